/* Reading a wk_value (the API's one-value union) as a storage type. */
#ifndef WARPKIT_COMMON_VALUE_CUH
#define WARPKIT_COMMON_VALUE_CUH

#include "warpkit.h"

#include <cstring>

namespace wk {

/* The dtype's member of v: its first sizeof(S) bytes (raw bits for f16 and
 * bf16). */
template <class S> __device__ inline S value_of(const wk_value &v)
{
    S s;
    memcpy(&s, &v, sizeof s);
    return s;
}

} // namespace wk

#endif
