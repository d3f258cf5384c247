/* GPU test of wk::warp_compact (include/warpkit/warp.cuh) and wk::block_compact
 * (include/warpkit/block.cuh) on fresh random inputs. The kernels pack the kept
 * elements with the returned slots; the host checks against a stable compaction:
 * the packed elements in order, every slot past the count still poisoned, the
 * count on every calling thread, and every calling thread's slot, kept or not
 * (the kept elements before it). Keep patterns: 0%, 1%, 50%, 100%, alternating.
 *  - full warp: warp_compact(keep, &count) in 1D and 2D blocks of 128 threads
 *    (a warp is 32 consecutive linear thread indices, not threadIdx.x).
 *  - masked warp: warp_compact(keep, mask, &count) called only in the branch of
 *    the mask's lanes (lane 0 only, lane 31 only, all, alternating, both ends,
 *    halves, all but one, random single lanes, runs, sparse and dense subsets;
 *    every mask meets every pattern); lanes outside the mask write nothing.
 *  - block_compact: 1D sizes 1, 20, 32, 33, 64, 100, 256, 512, 1000, 1024 and
 *    16x8x2, 33x3, 7x5x3 (linear order, x fastest); ten blocks per launch.
 * Usage: test_compact_primitives. WK_SEED=<n> repeats a run; WK_VERBOSE=1 shows
 * every wrong element. Exits 77 (CTest's skip code) without a CUDA device.
 */
#include "gpu/primitives_test_util.cuh"
#include "warpkit/block.cuh"

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

typedef unsigned long long u64;

int g_passed = 0, g_failed = 0, g_lines_shown = 0;
bool g_verbose = false;
constexpr int max_lines_shown = 200;

void print_summary() { printf("%d passed, %d failed\n", g_passed, g_failed); }

/* A CUDA error leaves nothing sensible to test: a failure, and stop. */
void check_cuda(cudaError_t err, const char *call, const char *file, int line)
{
    if (err == cudaSuccess)
        return;
    printf("FAIL CUDA error %s from %s at %s:%d\n", cudaGetErrorString(err), call, file, line);
    ++g_failed;
    print_summary();
    exit(1);
}
#define CUDA_CHECK(call) check_cuda((call), #call, __FILE__, __LINE__)

/* Output buffers are filled with 0xa5 bytes before each launch. */
constexpr unsigned poison32 = 0xa5a5a5a5u;
constexpr u64 poison64 = 0xa5a5a5a5a5a5a5a5ull;

/* A device copy of `host`, or `count` poisoned elements. */
template <class T> struct device_array {
    T *ptr = nullptr;
    size_t n;
    explicit device_array(const std::vector<T> &host) : n(host.size())
    {
        CUDA_CHECK(cudaMalloc(&ptr, n * sizeof(T)));
        CUDA_CHECK(cudaMemcpy(ptr, host.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    }
    explicit device_array(size_t count) : n(count)
    {
        CUDA_CHECK(cudaMalloc(&ptr, n * sizeof(T)));
        CUDA_CHECK(cudaMemset(ptr, 0xa5, n * sizeof(T)));
    }
    ~device_array() { cudaFree(ptr); }
    device_array(const device_array &) = delete;
    std::vector<T> download() const
    {
        std::vector<T> host(n);
        CUDA_CHECK(cudaMemcpy(host.data(), ptr, n * sizeof(T), cudaMemcpyDeviceToHost));
        return host;
    }
};

/* A group of cases prints one line when it ends; a case counts once. */
struct group {
    std::string name;
    int passed = 0, failed = 0;
    ~group()
    {
        printf("%-28s %6d passed, %d failed\n", name.c_str(), passed, failed);
        fflush(stdout);
        g_passed += passed;
        g_failed += failed;
    }
};

/* ================================================================ kernels */

__device__ unsigned linear_thread() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
__device__ unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }

enum mode { full_warp, masked_warp, whole_block };

/* Every thread votes keep[g] and stores its slot and count; kept ones store
 * in[g] at packed[first + slot], `first` being the first element of their
 * warp (block). masked_warp: only the lanes of masks[warp] take the branch
 * that calls the masked form. Warp modes run in blocks of a multiple of 32
 * threads, so lane = global linear index % 32. */
__global__ void compact_kernel(mode m, const u64 *in, const unsigned char *keep, const unsigned *masks, u64 *packed,
                               unsigned *slots, unsigned *counts)
{
    __shared__ unsigned scratch[wk::block_scratch_size];
    const unsigned t = linear_thread(), g = blockIdx.x * block_threads() + t;
    const unsigned warp = g / 32, lane = g % 32;
    const bool k = keep[g] != 0;
    unsigned count, slot, first = warp * 32;
    if (m == whole_block) {
        slot = wk::block_compact(k, scratch, &count);
        first = g - t;
    } else if (m == full_warp) {
        slot = wk::warp_compact(k, &count);
    } else if ((masks[warp] >> lane) & 1u) {
        slot = wk::warp_compact(k, masks[warp], &count);
    } else {
        return; /* the other lanes take another path */
    }
    slots[g] = slot;
    counts[g] = count;
    if (k)
        packed[first + slot] = in[g];
}

/* ================================================================== host */

const char *const pattern_names[] = {"keep 0%", "keep 1%", "keep 50%", "keep 100%", "alternating"};
constexpr int pattern_count = 5;

void fill_keep(unsigned char *k, int n, int pattern, rng &r)
{
    const int phase = (int)r.below(2); /* alternating: the even or the odd elements */
    for (int i = 0; i < n; ++i)
        k[i] = pattern == 0   ? 0
               : pattern == 1 ? r.below(100) == 0
               : pattern == 2 ? r.below(2) == 0
               : pattern == 3 ? 1
                              : (i + phase) & 1;
}

/* One compaction over elements [base, base + n). Element i calls the
 * primitive if i >= 32 or bit i of `mask` is set (blocks pass full_mask). */
void check(group &g, const std::string &what, const std::vector<u64> &in, const std::vector<unsigned char> &keep,
           size_t base, int n, unsigned mask, const std::vector<u64> &packed, const std::vector<unsigned> &slots,
           const std::vector<unsigned> &counts)
{
    bool ok = true;
    auto fail = [&](const std::string &where, const std::string &expected, const std::string &got) {
        const bool first = ok;
        ok = false;
        if (!g_verbose && (!first || g_lines_shown++ >= max_lines_shown))
            return; /* counted, not shown */
        printf("FAIL %s | %s | %s: expected %s, got %s\n", g.name.c_str(), what.c_str(), where.c_str(),
               expected.c_str(), got.c_str());
    };
    auto calls = [&](int i) { return i >= 32 || ((mask >> i) & 1u); };

    std::vector<u64> expected; /* the stable compaction */
    for (int i = 0; i < n; ++i)
        if (calls(i) && keep[base + i])
            expected.push_back(in[base + i]);
    const unsigned total = (unsigned)expected.size();

    unsigned before = 0;
    for (int i = 0; i < n; ++i) {
        const unsigned slot = slots[base + i], count = counts[base + i];
        if (!calls(i)) {
            if (slot != poison32 || count != poison32)
                fail(fmt("lane %d outside the mask", i), "outputs untouched", fmt("slot %u count %u", slot, count));
            continue;
        }
        if (slot != before)
            fail(fmt("slot of thread %d (%s)", i, keep[base + i] ? "kept" : "not kept"), fmt("%u", before),
                 fmt("%u", slot));
        if (count != total)
            fail(fmt("count on thread %d", i), fmt("%u", total), fmt("%u", count));
        before += keep[base + i];
    }
    for (int k = 0; k < n; ++k) {
        const u64 got = packed[base + k];
        if (k < (int)total && got != expected[k])
            fail(fmt("packed[%d] of %u", k, total),
                 fmt("0x%016llx (element %llu)", expected[k], expected[k] & 0xffffffffull), fmt("0x%016llx", got));
        else if (k >= (int)total && got != poison64)
            fail(fmt("packed[%d], past the count %u", k, total), "poison", fmt("0x%016llx", got));
    }
    ++(ok ? g.passed : g.failed);
}

std::string shape_name(dim3 b) { return fmt("%ux%ux%u", b.x, b.y, b.z); }

/* One launch: case c is a warp or a block compacting with keep pattern
 * pattern[c]; for masked_warp, masks[c] is the mask of warp c. */
void run(group &g, rng &r, dim3 shape, mode m, const std::vector<int> &pattern, const std::vector<unsigned> &masks)
{
    const unsigned threads = shape.x * shape.y * shape.z;
    const int size = m == whole_block ? (int)threads : 32, cases = (int)pattern.size();
    const size_t n = (size_t)cases * size; /* warp cases fill whole blocks */
    std::vector<unsigned char> keep(n);
    std::vector<u64> in(n);
    for (int c = 0; c < cases; ++c)
        fill_keep(&keep[(size_t)c * size], size, pattern[c], r);
    for (size_t i = 0; i < n; ++i)
        in[i] = (r.next() << 32) | i; /* distinct (the low half is the index), never the poison */

    const device_array<u64> d_in(in), d_packed(n);
    const device_array<unsigned char> d_keep(keep);
    const device_array<unsigned> d_slot(n), d_count(n), d_masks(masks);
    compact_kernel<<<(unsigned)(n / threads), shape>>>(m, d_in.ptr, d_keep.ptr, d_masks.ptr, d_packed.ptr, d_slot.ptr,
                                                        d_count.ptr);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<u64> packed = d_packed.download();
    const std::vector<unsigned> slots = d_slot.download(), counts = d_count.download();

    for (int c = 0; c < cases; ++c) {
        const unsigned mask = m == masked_warp ? masks[c] : wk::full_mask;
        const std::string what = fmt("blockDim %s, %s %d, %s, mask 0x%08x", shape_name(shape).c_str(),
                                     m == whole_block ? "block" : "warp", c, pattern_names[pattern[c]], mask);
        check(g, what, in, keep, (size_t)c * size, size, mask, packed, slots, counts);
    }
}

/* Fixed edge cases, then random single lanes, runs, sparse and dense sets. */
std::vector<unsigned> make_masks(rng &r)
{
    std::vector<unsigned> m = {0x1u,        0x80000000u, 0xffffffffu, 0x55555555u, 0xaaaaaaaau, 0x80000001u,
                               0x7fffffffu, 0xfffffffeu, 0x0000ffffu, 0xffff0000u, 0x3u,        0xc0000000u};
    while (m.size() < 48) {
        unsigned x;
        switch (r.below(4)) {
        case 0: x = 1u << r.below(32); break; /* one lane */
        case 1: x = (0xffffffffu >> r.below(32)) << r.below(32); break; /* a run of lanes */
        case 2: x = (unsigned)(r.next() & r.next() & r.next()); break;
        default: x = (unsigned)r.next(); break;
        }
        m.push_back(x != 0 ? x : 1u << r.below(32));
    }
    return m;
}

/* Every mask (16 full warps for the full-warp form) with every pattern. */
void test_warp(rng &r, bool masked)
{
    group g{masked ? "warp_compact masked" : "warp_compact full warp"};
    for (const dim3 shape : {dim3(128), dim3(8, 16)}) {
        const std::vector<unsigned> mask_set = masked ? make_masks(r) : std::vector<unsigned>(16, wk::full_mask);
        std::vector<int> pattern;
        std::vector<unsigned> masks;
        for (const unsigned m : mask_set)
            for (int p = 0; p < pattern_count; ++p) {
                pattern.push_back(p);
                masks.push_back(m);
            }
        run(g, r, shape, masked ? masked_warp : full_warp, pattern, masks);
    }
}

/* Every shape, with each pattern in two of its ten blocks. */
void test_block(rng &r)
{
    group g{"block_compact"};
    const dim3 shapes[] = {dim3(1),   dim3(20),   dim3(32),   dim3(33),       dim3(64),    dim3(100),    dim3(256),
                           dim3(512), dim3(1000), dim3(1024), dim3(16, 8, 2), dim3(33, 3), dim3(7, 5, 3)};
    for (const dim3 shape : shapes) {
        const int offset = (int)r.below(pattern_count);
        std::vector<int> pattern;
        for (int b = 0; b < 2 * pattern_count; ++b)
            pattern.push_back((b + offset) % pattern_count);
        run(g, r, shape, whole_block, pattern, std::vector<unsigned>(1));
    }
}

} // namespace

int main()
{
    rng r;
    if (!primitives_test_start(&r, &g_verbose, check_cuda))
        return 77;
    test_warp(r, false);
    test_warp(r, true);
    test_block(r);

    print_summary();
    return g_failed == 0 ? 0 : 1;
}
