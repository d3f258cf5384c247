/* GPU test of the warp and block primitives (include/warpkit/{ops,warp,block}.cuh).
 *
 * Every primitive runs on fresh random inputs and its outputs are compared
 * with a plain host computation. Coverage:
 *  - types int, unsigned, long long, unsigned long long, float, double,
 *    __half, __nv_bfloat16; ops sum, min, max, and bit_and / bit_or / bit_xor
 *    for the integer types. Every (type, op) pair goes through all three
 *    kernel families below (full warp, masked warp, block).
 *  - full warp: warp_reduce (lane 0), warp_allreduce (every lane, and all
 *    lanes hold the same bits), warp_inclusive_scan, warp_exclusive_scan with
 *    the identity and with an explicit init; warp_broadcast per type.
 *  - masked warp: the same five with the _masked forms, called only by the
 *    lanes of the mask; outputs of the other lanes must keep their poison.
 *    warp_broadcast_masked per type.
 *  - block: block_reduce (twice in one kernel, with a __syncthreads() between,
 *    as the reuse rule asks), block_allreduce, block_inclusive_scan and
 *    block_exclusive_scan with their total, for 1D sizes from 1 to 1024 and
 *    a 2D and a 3D block (threads ordered by linear index).
 *  - wk::argmin / wk::argmax on wk::indexed<float|double> through warp_reduce
 *    and block_reduce, with ties: the lowest index must win.
 *  The warp kernels run in 1D blocks and in 2D blocks: a warp is 32
 *  consecutive linear thread indices whatever the block's shape.
 *
 * Exactness: results are compared exactly, whatever order a primitive
 * combines in. Integer sums stay far from overflow (unsigned ones wrap,
 * which is defined); float and double sums add integers in [-8, 8], so every
 * partial sum is an exact integer; __half and bf16 sums add 0 / 1 / -1 with
 * at most 256 non-zero terms per case, so no partial sum of any grouping
 * leaves [-256, 256], where bf16 (8 significand bits) is still exact.
 * min / max pick one of their inputs, so they are exact on any values; they
 * get random bit patterns, ties, signed zeros, infinities and NaNs. Host
 * comparisons treat -0.0 and +0.0 as equal and any NaN as equal to any NaN
 * (the primitives may combine in any order); the lanes or threads of one
 * allreduce must still agree bit for bit.
 *
 * Usage: test_primitives (no arguments). WK_SEED=<n> repeats a run;
 * WK_VERBOSE=1 prints every wrong element, not only the first of a few cases
 * per group. Exits 77 (CTest's skip code) when there is no CUDA device.
 */
#include "gpu/primitives_test_util.cuh"
#include "warpkit/block.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

/* ================================================================ utilities */

/* ---------------------------------------------------------- test results */

int g_passed = 0, g_failed = 0;
/* Failure lines shown: the first wrong element of each case, for the first
 * few cases of each group, so that one broken primitive does not hide the
 * others. WK_VERBOSE=1 shows every wrong element. */
bool g_verbose = false;
int g_lines_shown = 0;
constexpr int max_lines_shown = 300;
constexpr int max_cases_shown_per_group = 3;

void print_summary() { printf("%d passed, %d failed\n", g_passed, g_failed); }

/* A CUDA error leaves nothing sensible to test: report it as a failure and stop. */
void check_cuda(cudaError_t err, const char *call, const char *file, int line)
{
    if (err == cudaSuccess)
        return;
    printf("FAIL CUDA error %s (%s) from %s at %s:%d\n", cudaGetErrorName(err), cudaGetErrorString(err), call,
           file, line);
    ++g_failed;
    print_summary();
    exit(1);
}
#define CUDA_CHECK(call) check_cuda((call), #call, __FILE__, __LINE__)
/* After every launch: launch errors, then errors while it ran. */
#define CHECK_LAUNCH()                               \
    do {                                             \
        CUDA_CHECK(cudaGetLastError());              \
        CUDA_CHECK(cudaDeviceSynchronize());         \
    } while (0)

void die(const char *what)
{
    printf("FAIL internal error in the test: %s\n", what);
    ++g_failed;
    print_summary();
    exit(1);
}

/* A group of cases prints one line when it ends. */
class group {
  public:
    explicit group(std::string name) : name_(std::move(name)) {}
    ~group()
    {
        printf("%-40s %6d passed, %d failed\n", name_.c_str(), passed_, failed_);
        fflush(stdout);
        g_passed += passed_;
        g_failed += failed_;
    }
    group(const group &) = delete;
    group &operator=(const group &) = delete;
    void record(bool ok) { ++(ok ? passed_ : failed_); }
    const std::string &name() const { return name_; }
    int failed() const { return failed_; }

  private:
    std::string name_;
    int passed_ = 0, failed_ = 0;
};

/* One case: a primitive on one input. It counts once, passed or failed,
 * however many of its elements are wrong. */
class case_check {
  public:
    case_check(group &g, std::string what) : group_(g), what_(std::move(what)) {}
    ~case_check() { group_.record(ok_); }
    case_check(const case_check &) = delete;
    case_check &operator=(const case_check &) = delete;

    void fail(const std::string &where, const std::string &expected, const std::string &got)
    {
        const bool first = ok_;
        ok_ = false;
        if (!g_verbose) {
            /* group_.failed() counts the failed cases before this one */
            if (!first || group_.failed() >= max_cases_shown_per_group)
                return;
            if (g_lines_shown++ == max_lines_shown)
                printf("(further failures are counted, not shown; WK_VERBOSE=1 shows them)\n");
            if (g_lines_shown > max_lines_shown)
                return;
        }
        printf("FAIL %s | %s | %s: expected %s, got %s\n", group_.name().c_str(), what_.c_str(), where.c_str(),
               expected.c_str(), got.c_str());
    }

  private:
    group &group_;
    std::string what_;
    bool ok_ = true;
};

/* ======================================================= host-side values */

template <class T> constexpr bool is_16bit_float =
    std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value;
template <class T> constexpr bool is_float_like = std::is_floating_point<T>::value || is_16bit_float<T>;

template <class T> const char *type_name()
{
    if constexpr (std::is_same<T, int>::value) return "int";
    else if constexpr (std::is_same<T, unsigned>::value) return "unsigned";
    else if constexpr (std::is_same<T, long long>::value) return "long long";
    else if constexpr (std::is_same<T, unsigned long long>::value) return "unsigned long long";
    else if constexpr (std::is_same<T, float>::value) return "float";
    else if constexpr (std::is_same<T, double>::value) return "double";
    else if constexpr (std::is_same<T, __half>::value) return "__half";
    else return "__nv_bfloat16";
}

/* Raw bits, by memcpy: the host never does arithmetic on __half / bf16. */
template <class T> uint64_t bits_of(const T &x)
{
    static_assert(sizeof(T) <= 8, "values are at most 8 bytes");
    uint64_t b = 0;
    memcpy(&b, &x, sizeof(T));
    return b;
}
template <class T> T from_bits(uint64_t b)
{
    T x;
    memcpy(static_cast<void *>(&x), &b, sizeof(T)); /* the low bytes, on a little-endian host */
    return x;
}

/* IEEE binary16 -> double; exact for every pattern. */
double half_bits_to_double(uint16_t h)
{
    const int exponent = (h >> 10) & 0x1f, fraction = h & 0x3ff;
    double magnitude;
    if (exponent == 0)
        magnitude = std::ldexp((double)fraction, -24); /* zero or subnormal */
    else if (exponent == 31)
        magnitude = fraction ? NAN : INFINITY;
    else
        magnitude = std::ldexp((double)(fraction | 0x400), exponent - 25);
    return (h & 0x8000) ? -magnitude : magnitude;
}

/* bf16 is the top half of a float. */
double bf16_bits_to_double(uint16_t b)
{
    const uint32_t f = (uint32_t)b << 16;
    float x;
    memcpy(&x, &f, sizeof x);
    return x;
}

/* Each value has a host form to compute references with: the integer types
 * themselves (exact, wrapping for unsigned), double for the float types
 * (exact for every float, double, __half and bf16 value). */
template <class T> using host_t = std::conditional_t<is_float_like<T>, double, T>;

template <class T> host_t<T> to_host(T x)
{
    if constexpr (std::is_same<T, __half>::value) return half_bits_to_double((uint16_t)bits_of(x));
    else if constexpr (std::is_same<T, __nv_bfloat16>::value) return bf16_bits_to_double((uint16_t)bits_of(x));
    else return x;
}

template <class H> bool host_is_nan(H x)
{
    if constexpr (std::is_floating_point<H>::value) return std::isnan(x);
    else return false;
}

/* double -> binary16 for values that are exactly representable (the test
 * only makes small integers, zeros, infinities and NaN this way). */
uint16_t double_to_half_bits_exact(double x)
{
    if (std::isnan(x))
        return 0x7e00;
    const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
    const double a = std::fabs(x);
    if (std::isinf(a))
        return sign | 0x7c00;
    if (a == 0)
        return sign;
    int e;
    const double f = std::frexp(a, &e); /* a = f * 2^e, f in [0.5, 1): unbiased exponent e - 1 */
    int biased = e + 14;
    double fraction;
    if (biased >= 31)
        die("half value out of range");
    if (biased >= 1) {
        fraction = (2 * f - 1) * 1024;
    } else {
        biased = 0;
        fraction = std::ldexp(a, 24);
    }
    const uint16_t h = (uint16_t)(sign | biased << 10 | (uint16_t)fraction);
    if (half_bits_to_double(h) != x)
        die("value not exact in __half");
    return h;
}

uint16_t double_to_bf16_bits_exact(double x)
{
    if (std::isnan(x))
        return 0x7fc0;
    const float f = (float)x;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    if ((b & 0xffffu) != 0 || (double)f != x)
        die("value not exact in bf16");
    return (uint16_t)(b >> 16);
}

/* A value of type T that equals x exactly. */
template <class T> T make(double x)
{
    if constexpr (std::is_same<T, __half>::value) {
        return from_bits<T>(double_to_half_bits_exact(x));
    } else if constexpr (std::is_same<T, __nv_bfloat16>::value) {
        return from_bits<T>(double_to_bf16_bits_exact(x));
    } else if constexpr (std::is_same<T, float>::value) {
        if (!std::isnan(x) && (double)(float)x != x)
            die("value not exact in float");
        return (float)x;
    } else {
        return (T)x;
    }
}

/* Any bit pattern but a NaN: finite values of every magnitude, subnormals,
 * both zeros and both infinities. */
template <class T> T random_bits_not_nan(rng &r)
{
    for (;;) {
        const T x = from_bits<T>(r.next());
        if (!host_is_nan(to_host(x)))
            return x;
    }
}

template <class H> std::string show_host(H x)
{
    if constexpr (std::is_floating_point<H>::value) return fmt("%.17g", x);
    else if constexpr (std::is_signed<H>::value) return fmt("%lld", (long long)x);
    else return fmt("%llu", (unsigned long long)x);
}
template <class T> std::string show(T x)
{
    if constexpr (is_float_like<T>) return fmt("%.17g (0x%0*llx)", to_host(x), (int)(2 * sizeof(T)),
                                               (unsigned long long)bits_of(x));
    else return show_host(x);
}

/* Output buffers are filled with this byte before each launch, so that a
 * slot nobody wrote is recognisable. */
constexpr unsigned char poison_byte = 0xa5;
template <class T> bool is_poison(const T &x)
{
    unsigned char bytes[sizeof(T)];
    memcpy(bytes, &x, sizeof(T));
    for (unsigned char b : bytes)
        if (b != poison_byte)
            return false;
    return true;
}

/* ================================================================ the ops */

enum class op_kind { sum, min, max, bit_and, bit_or, bit_xor };

/* Each operator under test: the device functor, and its kind for the host. */
template <class DeviceOp, op_kind K> struct op_desc {
    using device_op = DeviceOp;
    static constexpr op_kind kind = K;
};
using op_sum = op_desc<wk::sum, op_kind::sum>;
using op_min = op_desc<wk::min, op_kind::min>;
using op_max = op_desc<wk::max, op_kind::max>;
using op_and = op_desc<wk::bit_and, op_kind::bit_and>;
using op_or = op_desc<wk::bit_or, op_kind::bit_or>;
using op_xor = op_desc<wk::bit_xor, op_kind::bit_xor>;

const char *op_name(op_kind k)
{
    static const char *const names[] = {"sum", "min", "max", "bit_and", "bit_or", "bit_xor"};
    return names[(int)k];
}

/* The host reference of each op, on host values. min / max return NaN when
 * either operand is NaN, as ops.cuh documents. */
template <op_kind K, class H> H host_apply(H a, H b)
{
    if constexpr (K == op_kind::sum) {
        return a + b;
    } else if constexpr (K == op_kind::min || K == op_kind::max) {
        if (host_is_nan(a))
            return a;
        if (host_is_nan(b))
            return b;
        if constexpr (K == op_kind::min) return b < a ? b : a;
        else return b > a ? b : a;
    } else if constexpr (K == op_kind::bit_and) {
        return a & b;
    } else if constexpr (K == op_kind::bit_or) {
        return a | b;
    } else {
        return a ^ b;
    }
}

/* The identity each op pads with: what an exclusive scan's first element is. */
template <op_kind K, class T> host_t<T> host_identity()
{
    using H = host_t<T>;
    if constexpr (K == op_kind::sum || K == op_kind::bit_or || K == op_kind::bit_xor) return H(0);
    else if constexpr (K == op_kind::bit_and) return (H)~H(0);
    else if constexpr (is_float_like<T>) return K == op_kind::min ? INFINITY : -INFINITY;
    else return K == op_kind::min ? std::numeric_limits<H>::max() : std::numeric_limits<H>::lowest();
}

/* Exact match, except that any NaN matches any NaN and -0.0 matches +0.0. */
template <class T> bool matches(host_t<T> expected, T got)
{
    const host_t<T> g = to_host(got);
    return expected == g || (host_is_nan(expected) && host_is_nan(g));
}

/* =========================================================== test inputs */

/* Each case draws its inputs from one "variant" of the distributions below,
 * chosen to keep results exact (see the top of the file) and to reach the
 * corner cases of each op. */
template <class T, op_kind K> int variant_count()
{
    if constexpr (K == op_kind::sum) return 1;
    else if constexpr (K == op_kind::min || K == op_kind::max) return is_float_like<T> ? 5 : 3;
    else return 2;
}

template <class T, op_kind K> const char *variant_name(int v)
{
    if constexpr (K == op_kind::sum) {
        return "bounded";
    } else if constexpr (K == op_kind::min || K == op_kind::max) {
        static const char *const floats[] = {"random bits", "small ints", "signed zeros", "with NaN", "infinities"};
        static const char *const ints[] = {"random bits", "small ints", "extremes"};
        return is_float_like<T> ? floats[v] : ints[v];
    } else {
        static const char *const names[] = {"op-shaped bits", "random bits"};
        return names[v];
    }
}

template <class T, op_kind K> void fill(T *x, int n, int variant, rng &r)
{
    if constexpr (K == op_kind::sum) {
        /* 16-bit float sums: each term is non-zero with probability
         * min(2/3, 192/n), and never more than 256 of them (see the top of
         * the file). */
        int nonzero = 0;
        for (int i = 0; i < n; ++i) {
            if constexpr (std::is_same<T, int>::value) {
                x[i] = (int)r.range(-(1 << 20), 1 << 20); /* 1024 of them stay below 2^31 */
            } else if constexpr (std::is_same<T, long long>::value) {
                x[i] = r.range(-(1ll << 40), 1ll << 40);
            } else if constexpr (std::is_unsigned<T>::value) {
                x[i] = from_bits<T>(r.next()); /* wraps, which is defined */
            } else if constexpr (std::is_floating_point<T>::value) {
                x[i] = make<T>((double)r.range(-8, 8));
            } else {
                const bool want = r.below(3 * (uint64_t)n) < (uint64_t)std::min(2 * n, 576);
                const bool nz = want && nonzero < 256;
                nonzero += nz;
                x[i] = make<T>(nz ? (r.below(2) ? 1.0 : -1.0) : 0.0);
            }
        }
    } else if constexpr (K == op_kind::min || K == op_kind::max) {
        if constexpr (is_float_like<T>) {
            /* Values on the losing side of zero, so that signed zeros decide. */
            const double losing = K == op_kind::min ? 1.0 : -1.0;
            for (int i = 0; i < n; ++i) {
                switch (variant) {
                case 0: case 3: x[i] = random_bits_not_nan<T>(r); break;
                case 1: x[i] = make<T>((double)r.range(-8, 8)); break;
                case 2:
                    x[i] = r.below(2) ? make<T>(r.below(2) ? -0.0 : 0.0) : make<T>(losing * (double)r.range(1, 8));
                    break;
                default:
                    x[i] = r.below(4) == 0 ? make<T>(r.below(2) ? INFINITY : -INFINITY)
                                           : make<T>((double)r.range(-8, 8));
                    break;
                }
            }
            if (variant == 3)
                for (int k = 1 + (int)r.below(3); k > 0; --k)
                    x[r.below((uint64_t)n)] = make<T>(NAN);
        } else {
            for (int i = 0; i < n; ++i) {
                switch (variant) {
                case 0: x[i] = from_bits<T>(r.next()); break;
                case 1: x[i] = (T)(std::is_signed<T>::value ? r.range(-3, 3) : r.range(0, 6)); break;
                default: {
                    const uint64_t pick = r.below(3);
                    x[i] = pick == 0 ? std::numeric_limits<T>::lowest()
                           : pick == 1 ? std::numeric_limits<T>::max() : from_bits<T>(r.next());
                }
                }
            }
        }
    } else {
        for (int i = 0; i < n; ++i) {
            uint64_t b = r.next();
            /* And-ing (or-ing) 32 uniform words almost always gives all zeros
             * (ones); bits set with probability 31/32 for and, 1/32 for or,
             * leave warp results that depend on every lane. */
            if (variant == 0 && K == op_kind::bit_and)
                b = ~(b & r.next() & r.next() & r.next() & r.next());
            else if (variant == 0 && K == op_kind::bit_or)
                b = b & r.next() & r.next() & r.next() & r.next();
            x[i] = from_bits<T>(b);
        }
    }
}

/* Masks for the masked warp forms: fixed edge cases (one lane at either
 * end, all lanes, alternating lanes, every "first k lanes" tail of an
 * array), then random ones of several shapes. */
std::vector<unsigned> make_masks(rng &r, size_t count)
{
    std::vector<unsigned> masks = {0x1u,        0x80000000u, 0xffffffffu, 0x55555555u, 0xaaaaaaaau,
                                   0x7fffffffu, 0xfffffffeu, 0x80000001u, 0x3u,        0xc0000000u};
    for (unsigned k = 1; k < 32; ++k)
        masks.push_back((1u << k) - 1);
    while (masks.size() < count) {
        unsigned m;
        switch (r.below(6)) {
        case 0: m = 1u << r.below(32); break;                                 /* one lane         */
        case 1: {                                                             /* a run of lanes   */
            const unsigned lo = (unsigned)r.below(32), len = 1 + (unsigned)r.below(32 - lo);
            m = len == 32 ? 0xffffffffu : ((1u << len) - 1) << lo;
            break;
        }
        case 2: m = 0xffffffffu << r.below(32); break;                        /* the high lanes   */
        case 3: m = (unsigned)(r.next() & r.next() & r.next()); break;        /* sparse           */
        case 4: m = (unsigned)r.next(); break;                                /* dense            */
        default: m = ~(1u << r.below(32)); break;                             /* all but one      */
        }
        masks.push_back(m != 0 ? m : 1u << r.below(32));
    }
    return masks;
}

/* ====================================================== device buffers */

template <class T> class device_array {
  public:
    explicit device_array(size_t n) : n_(n) { CUDA_CHECK(cudaMalloc(&ptr_, bytes())); }
    explicit device_array(const std::vector<T> &host) : device_array(host.size())
    {
        CUDA_CHECK(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice));
    }
    ~device_array() { cudaFree(ptr_); }
    device_array(const device_array &) = delete;
    device_array &operator=(const device_array &) = delete;

    T *get() const { return ptr_; }
    void poison() { CUDA_CHECK(cudaMemset(ptr_, poison_byte, bytes())); }
    std::vector<T> download() const
    {
        std::vector<T> host(n_);
        CUDA_CHECK(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
        return host;
    }

  private:
    size_t bytes() const { return n_ * sizeof(T); }
    T *ptr_ = nullptr;
    size_t n_;
};

/* =============================================================== kernels */

/* Threads are ordered by linear index in any block shape; warps are 32
 * consecutive linear indices. The warp kernels need blocks of a multiple of
 * 32 threads, so that lane = global linear index % 32. */
__device__ unsigned linear_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
__device__ unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }

template <class T> struct warp_outputs {
    T *reduce;    /* per warp, from the mask's lowest lane       */
    T *all;       /* per thread: allreduce                       */
    T *incl;      /* per thread: inclusive scan                  */
    T *excl;      /* per thread: exclusive scan from identity    */
    T *excl_init; /* per thread: exclusive scan from init[warp]  */
};

template <class T, class Op> __global__ void warp_full_kernel(const T *in, const T *init, warp_outputs<T> out)
{
    const unsigned g = blockIdx.x * block_threads() + linear_thread();
    const unsigned warp = g / 32, lane = g % 32;
    const Op op{};
    const T v = in[g];
    const T reduced = wk::warp_reduce(v, op);
    if (lane == 0)
        out.reduce[warp] = reduced;
    out.all[g] = wk::warp_allreduce(v, op);
    out.incl[g] = wk::warp_inclusive_scan(v, op);
    out.excl[g] = wk::warp_exclusive_scan(v, op);
    out.excl_init[g] = wk::warp_exclusive_scan(v, op, init[warp]);
}

template <class T, class Op>
__global__ void warp_masked_kernel(const T *in, const T *init, const unsigned *masks, warp_outputs<T> out)
{
    const unsigned g = blockIdx.x * block_threads() + linear_thread();
    const unsigned warp = g / 32, lane = g % 32;
    const unsigned mask = masks[warp];
    if (!((mask >> lane) & 1u))
        return; /* only the lanes of the mask call the primitives */
    const Op op{};
    const T v = in[g];
    const T reduced = wk::warp_reduce_masked(v, op, mask);
    if (lane == (unsigned)(__ffs(mask) - 1))
        out.reduce[warp] = reduced;
    out.all[g] = wk::warp_allreduce_masked(v, op, mask);
    out.incl[g] = wk::warp_inclusive_scan_masked(v, op, mask);
    out.excl[g] = wk::warp_exclusive_scan_masked(v, op, mask);
    out.excl_init[g] = wk::warp_exclusive_scan_masked(v, op, mask, init[warp]);
}

template <class T>
__global__ void broadcast_kernel(const T *in, const int *src_full, const unsigned *masks, const int *src_masked,
                                 T *out_full, T *out_masked)
{
    const unsigned g = blockIdx.x * block_threads() + linear_thread();
    const unsigned warp = g / 32, lane = g % 32;
    const T v = in[g];
    out_full[g] = wk::warp_broadcast(v, src_full[warp]);
    if ((masks[warp] >> lane) & 1u)
        out_masked[g] = wk::warp_broadcast_masked(v, src_masked[warp], masks[warp]);
}

template <class T> struct block_outputs {
    T *reduce, *reduce2;  /* per block, from thread 0 */
    T *all;               /* per thread               */
    T *incl, *incl_total; /* per thread               */
    T *excl, *excl_total; /* per thread               */
};

/* One scratch for every call: each reuse follows a __syncthreads(), which
 * is the documented rule. */
template <class T, class Op> __global__ void block_kernel(const T *in, const T *in2, block_outputs<T> out)
{
    __shared__ T scratch[wk::block_scratch_size];
    const unsigned t = linear_thread();
    const size_t g = (size_t)blockIdx.x * block_threads() + t;
    const Op op{};
    const T v = in[g];

    const T reduced = wk::block_reduce(v, op, scratch);
    if (t == 0)
        out.reduce[blockIdx.x] = reduced;
    __syncthreads();
    const T reduced2 = wk::block_reduce(in2[g], op, scratch);
    if (t == 0)
        out.reduce2[blockIdx.x] = reduced2;
    __syncthreads();
    out.all[g] = wk::block_allreduce(v, op, scratch);
    __syncthreads();
    T total{};
    out.incl[g] = wk::block_inclusive_scan(v, op, scratch, &total);
    out.incl_total[g] = total;
    __syncthreads();
    total = T{};
    out.excl[g] = wk::block_exclusive_scan(v, op, scratch, &total);
    out.excl_total[g] = total;
}

/* Arg ops: each thread's index is `base` + its global index; base is past
 * 2^32 so that the whole 64-bit index has to travel. */
template <class T, class Op> __global__ void arg_warp_kernel(const T *in, long long base, wk::indexed<T> *out)
{
    const unsigned g = blockIdx.x * block_threads() + linear_thread();
    const wk::indexed<T> r = wk::warp_reduce(wk::indexed<T>{in[g], base + (long long)g}, Op{});
    if (g % 32 == 0)
        out[g / 32] = r;
}

template <class T, class Op> __global__ void arg_block_kernel(const T *in, long long base, wk::indexed<T> *out)
{
    __shared__ wk::indexed<T> scratch[wk::block_scratch_size];
    const unsigned t = linear_thread();
    const size_t g = (size_t)blockIdx.x * block_threads() + t;
    const wk::indexed<T> r = wk::block_reduce(wk::indexed<T>{in[g], base + (long long)g}, Op{}, scratch);
    if (t == 0)
        out[blockIdx.x] = r;
}

/* ===================================================== launch shapes */

std::string shape_name(dim3 b)
{
    if (b.y == 1 && b.z == 1)
        return fmt("%u", b.x);
    return b.z == 1 ? fmt("%ux%u", b.x, b.y) : fmt("%ux%ux%u", b.x, b.y, b.z);
}
unsigned threads_of(dim3 b) { return b.x * b.y * b.z; }

/* Warp kernels: one 1D and one 2D shape of 128 threads. In the 2D one,
 * threadIdx.x alone is not the lane. */
const dim3 warp_shapes[] = {dim3(128), dim3(8, 16)};

/* Block kernels: partial last warps (1, 20, 33, 100, 257, 1000), whole warps,
 * the largest block, and 2D / 3D shapes (128 threads, and 105 with a partial
 * last warp) to check the linear thread order. */
const dim3 block_shapes[] = {dim3(1),   dim3(20),  dim3(32),  dim3(33),   dim3(64),    dim3(96),     dim3(100),
                             dim3(256), dim3(257), dim3(512), dim3(1000), dim3(1024), dim3(16, 8), dim3(7, 5, 3)};

/* ==================================================== warp-level tests */

template <class T> struct warp_results {
    std::vector<T> reduce, all, incl, excl, excl_init;
};

/* Checks one warp's five results against the host. The full-warp forms are
 * the case mask = all lanes. The _masked forms work over the lanes of the
 * mask in lane order: the k-th active lane's scan covers active lanes 0..k. */
template <class T, class OpD>
void check_warp(group &g, const std::string &what, int warp, unsigned mask, const std::vector<T> &in, T init,
                const warp_results<T> &out, bool masked)
{
    constexpr op_kind K = OpD::kind;
    using H = host_t<T>;
    std::vector<int> lanes;
    for (int l = 0; l < 32; ++l)
        if ((mask >> l) & 1u)
            lanes.push_back(l);
    const size_t active = lanes.size();

    std::vector<H> incl(active);
    for (size_t k = 0; k < active; ++k) {
        const H v = to_host(in[warp * 32 + lanes[k]]);
        incl[k] = k == 0 ? v : host_apply<K>(incl[k - 1], v);
    }
    const H total = incl.back();
    const int lowest = lanes[0];
    const char *suffix = masked ? "_masked" : "";
    auto at = [&](int lane) { return warp * 32 + lane; };

    {
        case_check c(g, fmt("warp_reduce%s %s", suffix, what.c_str()));
        const T got = out.reduce[warp];
        if (!matches<T>(total, got))
            c.fail(fmt("lane %d", lowest), show_host(total), show(got));
    }
    {
        case_check c(g, fmt("warp_allreduce%s %s", suffix, what.c_str()));
        const T first = out.all[at(lowest)];
        for (int l = 0; l < 32; ++l) {
            const T got = out.all[at(l)];
            if (!((mask >> l) & 1u)) {
                if (!is_poison(got))
                    c.fail(fmt("inactive lane %d", l), "its output untouched", show(got));
            } else if (!matches<T>(total, got)) {
                c.fail(fmt("lane %d", l), show_host(total), show(got));
            } else if (bits_of(got) != bits_of(first)) {
                c.fail(fmt("lane %d vs lane %d", l, lowest), show(first) + " (same bits)", show(got));
            }
        }
    }
    /* Scans: k-th active lane. Exclusive: init at the lowest active lane,
     * then init op (inclusive result of the previous active lane). */
    const H identity = host_identity<K, T>();
    const H init_h = to_host(init);
    struct scan_case {
        const char *name;
        const std::vector<T> &got;
        int kind; /* 0 inclusive, 1 exclusive from identity, 2 exclusive from init */
    };
    const scan_case scans[] = {{"warp_inclusive_scan", out.incl, 0},
                               {"warp_exclusive_scan", out.excl, 1},
                               {"warp_exclusive_scan", out.excl_init, 2}};
    for (const scan_case &s : scans) {
        const std::string init_note = s.kind == 0 ? "" : s.kind == 1 ? ", init = identity" : ", init " + show(init);
        case_check c(g, fmt("%s%s %s%s", s.name, suffix, what.c_str(), init_note.c_str()));
        size_t k = 0; /* rank of lane l among the active lanes */
        for (int l = 0; l < 32; ++l) {
            const T got = s.got[at(l)];
            if (!((mask >> l) & 1u)) {
                if (!is_poison(got))
                    c.fail(fmt("inactive lane %d", l), "its output untouched", show(got));
                continue;
            }
            const H start = s.kind == 2 ? init_h : identity;
            const H expected = s.kind == 0 ? incl[k] : k == 0 ? start : host_apply<K>(start, incl[k - 1]);
            if (!matches<T>(expected, got))
                c.fail(fmt("lane %d (active #%zu)", l, k), show_host(expected), show(got));
            ++k;
        }
    }
}

template <class T, class OpD> void test_warp(rng &r, bool masked)
{
    constexpr op_kind K = OpD::kind;
    using device_op = typename OpD::device_op;
    group g(fmt("%s %s %s", masked ? "warp masked" : "warp", type_name<T>(), op_name(OpD::kind)));
    for (const dim3 shape : warp_shapes) {
        const std::vector<unsigned> masks = masked ? make_masks(r, 96) : std::vector<unsigned>(32, wk::full_mask);
        const int warps = (int)masks.size();
        const int n = warps * 32;
        if (n % threads_of(shape) != 0)
            die("warp count does not fill the blocks");

        std::vector<T> in(n), init(warps);
        std::vector<int> variant(warps);
        const int nv = variant_count<T, K>();
        const int offset = (int)r.below(nv);
        for (int w = 0; w < warps; ++w) {
            variant[w] = (w + offset) % nv;
            fill<T, K>(&in[w * 32], 32, variant[w], r);
            fill<T, K>(&init[w], 1, variant[w], r);
        }

        device_array<T> d_in(in), d_init(init);
        device_array<unsigned> d_masks(masks);
        device_array<T> d_reduce(warps), d_all(n), d_incl(n), d_excl(n), d_excl_init(n);
        for (auto *a : {&d_reduce, &d_all, &d_incl, &d_excl, &d_excl_init})
            a->poison();
        const warp_outputs<T> outs{d_reduce.get(), d_all.get(), d_incl.get(), d_excl.get(), d_excl_init.get()};
        const unsigned blocks = n / threads_of(shape);
        if (masked)
            warp_masked_kernel<T, device_op><<<blocks, shape>>>(d_in.get(), d_init.get(), d_masks.get(), outs);
        else
            warp_full_kernel<T, device_op><<<blocks, shape>>>(d_in.get(), d_init.get(), outs);
        CHECK_LAUNCH();

        const warp_results<T> out{d_reduce.download(), d_all.download(), d_incl.download(), d_excl.download(),
                                  d_excl_init.download()};
        for (int w = 0; w < warps; ++w) {
            const std::string what = fmt("blockDim %s, warp %d, mask 0x%08x, inputs %s",
                                         shape_name(shape).c_str(), w, masks[w], variant_name<T, K>(variant[w]));
            check_warp<T, OpD>(g, what, w, masks[w], in, init[w], out, masked);
        }
    }
}

/* Broadcast moves bits: every (active) lane must get the source lane's bits. */
template <class T> void test_broadcast(rng &r)
{
    group g(fmt("warp broadcast %s", type_name<T>()));
    for (const dim3 shape : warp_shapes) {
        const std::vector<unsigned> masks = make_masks(r, 96);
        const int warps = (int)masks.size(), n = warps * 32;
        std::vector<T> in(n);
        for (T &x : in)
            x = random_bits_not_nan<T>(r);
        std::vector<int> src_full(warps), src_masked(warps);
        for (int w = 0; w < warps; ++w) {
            src_full[w] = (int)r.below(32);
            /* a random lane of the mask */
            std::vector<int> lanes;
            for (int l = 0; l < 32; ++l)
                if ((masks[w] >> l) & 1u)
                    lanes.push_back(l);
            src_masked[w] = lanes[r.below(lanes.size())];
        }

        device_array<T> d_in(in), d_full(n), d_masked(n);
        device_array<int> d_src_full(src_full), d_src_masked(src_masked);
        device_array<unsigned> d_masks(masks);
        d_full.poison();
        d_masked.poison();
        broadcast_kernel<T><<<n / threads_of(shape), shape>>>(d_in.get(), d_src_full.get(), d_masks.get(),
                                                                d_src_masked.get(), d_full.get(), d_masked.get());
        CHECK_LAUNCH();
        const std::vector<T> full = d_full.download(), masked = d_masked.download();

        for (int w = 0; w < warps; ++w) {
            {
                case_check c(g, fmt("warp_broadcast blockDim %s, warp %d, source lane %d", shape_name(shape).c_str(),
                                    w, src_full[w]));
                const T expected = in[w * 32 + src_full[w]];
                for (int l = 0; l < 32; ++l)
                    if (bits_of(full[w * 32 + l]) != bits_of(expected))
                        c.fail(fmt("lane %d", l), show(expected), show(full[w * 32 + l]));
            }
            {
                case_check c(g, fmt("warp_broadcast_masked blockDim %s, warp %d, mask 0x%08x, source lane %d",
                                    shape_name(shape).c_str(), w, masks[w], src_masked[w]));
                const T expected = in[w * 32 + src_masked[w]];
                for (int l = 0; l < 32; ++l) {
                    const T got = masked[w * 32 + l];
                    if (!((masks[w] >> l) & 1u)) {
                        if (!is_poison(got))
                            c.fail(fmt("inactive lane %d", l), "its output untouched", show(got));
                    } else if (bits_of(got) != bits_of(expected)) {
                        c.fail(fmt("lane %d", l), show(expected), show(got));
                    }
                }
            }
        }
    }
}

/* =================================================== block-level tests */

template <class T, class OpD> void test_block(rng &r)
{
    constexpr op_kind K = OpD::kind;
    using H = host_t<T>;
    group g(fmt("block %s %s", type_name<T>(), op_name(OpD::kind)));
    const int nv = variant_count<T, K>();
    const int blocks = std::max(4, nv);
    for (const dim3 shape : block_shapes) {
        const int n = (int)threads_of(shape);
        std::vector<T> in((size_t)blocks * n), in2((size_t)blocks * n);
        std::vector<int> variant(blocks);
        for (int b = 0; b < blocks; ++b) {
            variant[b] = b % nv;
            fill<T, K>(&in[(size_t)b * n], n, variant[b], r);
            fill<T, K>(&in2[(size_t)b * n], n, (b + 1) % nv, r);
        }

        device_array<T> d_in(in), d_in2(in2);
        device_array<T> d_reduce(blocks), d_reduce2(blocks), d_all(in.size()), d_incl(in.size()),
            d_incl_total(in.size()), d_excl(in.size()), d_excl_total(in.size());
        for (auto *a : {&d_reduce, &d_reduce2, &d_all, &d_incl, &d_incl_total, &d_excl, &d_excl_total})
            a->poison();
        const block_outputs<T> outs{d_reduce.get(), d_reduce2.get(),     d_all.get(),       d_incl.get(),
                                    d_incl_total.get(), d_excl.get(), d_excl_total.get()};
        block_kernel<T, typename OpD::device_op><<<blocks, shape>>>(d_in.get(), d_in2.get(), outs);
        CHECK_LAUNCH();
        const std::vector<T> reduce = d_reduce.download(), reduce2 = d_reduce2.download(), all = d_all.download(),
                             incl = d_incl.download(), incl_total = d_incl_total.download(),
                             excl = d_excl.download(), excl_total = d_excl_total.download();

        for (int b = 0; b < blocks; ++b) {
            const size_t base = (size_t)b * n;
            const std::string what =
                fmt("blockDim %s, block #%d, inputs %s", shape_name(shape).c_str(), b,
                    variant_name<T, K>(variant[b]));
            std::vector<H> prefix(n);
            H acc2{};
            for (int t = 0; t < n; ++t) {
                const H v = to_host(in[base + t]), v2 = to_host(in2[base + t]);
                prefix[t] = t == 0 ? v : host_apply<K>(prefix[t - 1], v);
                acc2 = t == 0 ? v2 : host_apply<K>(acc2, v2);
            }
            const H total = prefix[n - 1];

            {
                case_check c(g, "block_reduce " + what);
                if (!matches<T>(total, reduce[b]))
                    c.fail("thread 0", show_host(total), show(reduce[b]));
            }
            {
                case_check c(g, "block_reduce (second call, other inputs) " + what);
                if (!matches<T>(acc2, reduce2[b]))
                    c.fail("thread 0", show_host(acc2), show(reduce2[b]));
            }
            /* Every thread must get the same bits, equal to the reference. */
            auto check_everywhere = [&](case_check &c, const std::vector<T> &got, const char *label) {
                for (int t = 0; t < n; ++t) {
                    const T x = got[base + t];
                    if (!matches<T>(total, x))
                        c.fail(fmt("%s of thread %d", label, t), show_host(total), show(x));
                    else if (bits_of(x) != bits_of(got[base]))
                        c.fail(fmt("%s of thread %d vs thread 0", label, t), show(got[base]) + " (same bits)",
                               show(x));
                }
            };
            {
                case_check c(g, "block_allreduce " + what);
                check_everywhere(c, all, "result");
            }
            {
                case_check c(g, "block_inclusive_scan " + what);
                for (int t = 0; t < n; ++t)
                    if (!matches<T>(prefix[t], incl[base + t]))
                        c.fail(fmt("thread %d", t), show_host(prefix[t]), show(incl[base + t]));
                check_everywhere(c, incl_total, "total");
            }
            {
                case_check c(g, "block_exclusive_scan " + what);
                const H identity = host_identity<K, T>();
                for (int t = 0; t < n; ++t) {
                    const H expected = t == 0 ? identity : host_apply<K>(identity, prefix[t - 1]);
                    if (!matches<T>(expected, excl[base + t]))
                        c.fail(fmt("thread %d", t), show_host(expected), show(excl[base + t]));
                }
                check_everywhere(c, excl_total, "total");
            }
        }
    }
}

/* ========================================================= arg-min / max */

/* Inputs with many ties (small integers, signed zeros), random bits, and
 * NaNs, which win like in min / max (the first NaN, by index). */
template <class T> void fill_arg(T *x, int n, int variant, bool is_max, rng &r)
{
    for (int i = 0; i < n; ++i) {
        switch (variant) {
        case 0: case 3: x[i] = make<T>((double)r.range(-4, 4)); break;
        case 1: x[i] = r.below(2) ? make<T>(r.below(2) ? -0.0 : 0.0) : make<T>(is_max ? -1.0 : 1.0); break;
        default: x[i] = random_bits_not_nan<T>(r); break;
        }
    }
    if (variant == 3)
        for (int k = 1 + (int)r.below(3); k > 0; --k)
            x[r.below((uint64_t)n)] = make<T>(NAN);
}
const char *const arg_variant_names[] = {"small ints", "signed zeros", "random bits", "with NaN"};

/* The position of the winner in x[0..n): the first NaN if any, else the
 * first of the largest (smallest) values, -0.0 and +0.0 being equal. */
template <class T> int host_arg(const T *x, int n, bool is_max)
{
    int best = 0;
    for (int i = 1; i < n; ++i) {
        const double b = to_host(x[best]), v = to_host(x[i]);
        if (std::isnan(b))
            break;
        if (std::isnan(v) || (is_max ? v > b : v < b))
            best = i;
    }
    return best;
}

/* got must be exactly the winning element: its index and its bits. */
template <class T>
void check_arg(case_check &c, const wk::indexed<T> &got, const std::vector<T> &in, size_t first, int n, bool is_max,
               long long index_base)
{
    const size_t win = first + (size_t)host_arg(&in[first], n, is_max);
    const long long want = index_base + (long long)win;
    if (got.index != want || bits_of(got.value) != bits_of(in[win]))
        c.fail("result", fmt("index %lld value %s", want, show(in[win]).c_str()),
               fmt("index %lld value %s", got.index, show(got.value).c_str()));
}

template <class T, bool IsMax> void test_arg(rng &r)
{
    using Op = wk::arg_extreme<IsMax>;
    const char *op_name = IsMax ? "argmax" : "argmin";
    const long long index_base = (long long)(1 + r.below(1000)) << 32;
    {
        group g(fmt("warp %s indexed<%s>", op_name, type_name<T>()));
        for (const dim3 shape : warp_shapes) {
            const int warps = 64, n = warps * 32;
            std::vector<T> in(n);
            for (int w = 0; w < warps; ++w)
                fill_arg(&in[w * 32], 32, w % 4, IsMax, r);
            device_array<T> d_in(in);
            device_array<wk::indexed<T>> d_out(warps);
            d_out.poison();
            arg_warp_kernel<T, Op><<<n / threads_of(shape), shape>>>(d_in.get(), index_base, d_out.get());
            CHECK_LAUNCH();
            const std::vector<wk::indexed<T>> out = d_out.download();
            for (int w = 0; w < warps; ++w) {
                case_check c(g, fmt("warp_reduce blockDim %s, warp %d, inputs %s", shape_name(shape).c_str(), w,
                                    arg_variant_names[w % 4]));
                check_arg(c, out[w], in, (size_t)w * 32, 32, IsMax, index_base);
            }
        }
    }
    {
        group g(fmt("block %s indexed<%s>", op_name, type_name<T>()));
        for (const dim3 shape : block_shapes) {
            const int n = (int)threads_of(shape), blocks = 4;
            std::vector<T> in((size_t)blocks * n);
            for (int b = 0; b < blocks; ++b)
                fill_arg(&in[(size_t)b * n], n, b, IsMax, r);
            device_array<T> d_in(in);
            device_array<wk::indexed<T>> d_out(blocks);
            d_out.poison();
            arg_block_kernel<T, Op><<<blocks, shape>>>(d_in.get(), index_base, d_out.get());
            CHECK_LAUNCH();
            const std::vector<wk::indexed<T>> out = d_out.download();
            for (int b = 0; b < blocks; ++b) {
                case_check c(g, fmt("block_reduce blockDim %s, block #%d, inputs %s", shape_name(shape).c_str(), b,
                                    arg_variant_names[b]));
                check_arg(c, out[b], in, (size_t)b * n, n, IsMax, index_base);
            }
        }
    }
}

/* ================================================================= driver */

template <class T, class OpD> void test_op(rng &r)
{
    test_warp<T, OpD>(r, false);
    test_warp<T, OpD>(r, true);
    test_block<T, OpD>(r);
}

template <class T> void test_type(rng &r)
{
    test_op<T, op_sum>(r);
    test_op<T, op_min>(r);
    test_op<T, op_max>(r);
    if constexpr (std::is_integral<T>::value) {
        test_op<T, op_and>(r);
        test_op<T, op_or>(r);
        test_op<T, op_xor>(r);
    }
    test_broadcast<T>(r);
}

} // namespace

int main()
{
    rng r;
    if (!primitives_test_start(&r, &g_verbose, check_cuda))
        return 77;
    test_type<int>(r);
    test_type<unsigned>(r);
    test_type<long long>(r);
    test_type<unsigned long long>(r);
    test_type<float>(r);
    test_type<double>(r);
    test_type<__half>(r);
    test_type<__nv_bfloat16>(r);
    test_arg<float, true>(r);
    test_arg<float, false>(r);
    test_arg<double, true>(r);
    test_arg<double, false>(r);

    print_summary();
    return g_failed == 0 ? 0 : 1;
}
