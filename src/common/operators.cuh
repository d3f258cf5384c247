/* The operator of a wk_op, chosen in one place for every launcher: the
 * callable gets an op_tag of the operator type (include/warpkit/ops.cuh). */
#ifndef WARPKIT_COMMON_OPERATORS_CUH
#define WARPKIT_COMMON_OPERATORS_CUH

#include "warpkit.h"
#include "warpkit/ops.cuh"

#include <cuda_runtime.h>

#include <type_traits>

namespace wk {

template <class Op> struct op_tag {
    using type = Op;
};

/* Whether Op is ARGMIN or ARGMAX: its reduction carries an index. */
template <class Op> struct is_arg_op : std::false_type {};
template <bool IsMax> struct is_arg_op<arg_extreme<IsMax>> : std::true_type {};

/* Returns f(op_tag<Op>()) for the operator of `op`: SUM, MIN, MAX, the
 * arg ops where Args is set (reductions, not scans) and the bitwise ops on
 * integer storage S only; cudaErrorInvalidValue for any other op. */
template <class S, bool Args, class F> inline cudaError_t with_operator(wk_op op, F &&f)
{
    switch (op) {
    case WK_SUM: return f(op_tag<sum>());
    case WK_MIN: return f(op_tag<min>());
    case WK_MAX: return f(op_tag<max>());
    case WK_ARGMIN:
    case WK_ARGMAX:
        if constexpr (Args)
            return op == WK_ARGMIN ? f(op_tag<argmin>()) : f(op_tag<argmax>());
        break;
    case WK_AND:
    case WK_OR:
    case WK_XOR:
        if constexpr (std::is_integral<S>::value)
            return op == WK_AND ? f(op_tag<bit_and>()) : op == WK_OR ? f(op_tag<bit_or>()) : f(op_tag<bit_xor>());
        break;
    }
    return cudaErrorInvalidValue;
}

} // namespace wk

#endif
