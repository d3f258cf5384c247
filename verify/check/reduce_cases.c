#include "check/reduce_cases.h"

#include "check/case_writer.h"
#include "ref/reference.h"
#include "warpkit.h"
#include "reduce/plan.h"

typedef wk_case_writer case_list;

static void add(case_list *l, wk_dtype dtype, wk_op op, size_t n, size_t offset, wk_gen_pattern pattern,
                wk_special special)
{
    wk_reduce_case c = {dtype, op, n, offset, pattern, special, wk_case_writer_seed(l)};
    wk_case_writer_put(l, &c);
}

static int op_applies(wk_dtype d, wk_op op) { return !(wk_op_is_bitwise(op) && wk_dtype_is_float(d)); }

/* A call the library refuses (a sum of bools): its cases check the
 * refusal (reduce_check.c). */
static int refused(wk_dtype d, wk_op op) { return wk_ref_dtype_op_status(d, op) != WK_SUCCESS; }

/* Sizes around warp, block and vector boundaries, and primes. */
static const size_t small_sizes[] = {0, 1, 2, 3, 7, 31, 32, 33, 1023, 1024, 1025, 65537};
static const size_t quick_sizes[] = {0, 1, 33, 1025, 65537, 1000003}; /* 1000003 runs the deep shape */
static const size_t large_sizes[] = {1000003, ((size_t)1 << 20) - 1, ((size_t)1 << 20) + 1, ((size_t)1 << 24) + 7};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void add_specials(case_list *l, wk_dtype d, wk_op op, size_t n)
{
    if (wk_dtype_is_float(d)) {
        add(l, d, op, n, 1, WK_GEN_UNIFORM, WK_SPECIAL_NAN);
        add(l, d, op, n, 2, WK_GEN_UNIFORM, WK_SPECIAL_INF);
        add(l, d, op, n, 3, WK_GEN_POSITIVE, WK_SPECIAL_POS_INF);
    }
    /* Extremes would overflow a float sum in an order-dependent way. */
    if (!(wk_dtype_is_float(d) && op == WK_SUM))
        add(l, d, op, n, 0, WK_GEN_UNIFORM, WK_SPECIAL_EXTREMES);
    if (op != WK_SUM) {
        add(l, d, op, n, 1, WK_GEN_SMALL_INTS, WK_SPECIAL_NONE); /* many ties */
        add(l, d, op, n, 2, WK_GEN_CONSTANT, WK_SPECIAL_NONE);   /* all equal */
    }
}

/* Sizes at the edges of the launch shapes on a device with sm_count SMs
 * (src/reduce/plan.c): the first and last size of one deep block, the
 * first and last of one cluster and the wide one after it, the first deep
 * size, the first with two deep rounds, the last deep size, the first wide
 * size after it, and the first tiles size; odd by a few elements so that
 * the tail runs too. */
static void add_shape_edges(case_list *l, wk_dtype d, wk_op op, int sm_count)
{
    size_t vec = WK_VECTOR_BYTES / wk_dtype_size(d);
    size_t sms = sm_count > 0 ? (size_t)sm_count : 1;
    size_t wide_round = 2 * sms * WK_WIDE_THREADS * WK_WIDE_UNROLL;
    size_t deep_round = sms * WK_DEEP_BLOCKS_PER_SM * WK_DEEP_THREADS * WK_DEEP_UNROLL;
    /* The tiles size: five tiles and a vector past the first, so that
     * one-tile blocks make several groups that combine (four-tile blocks
     * make one or two, the last block short; the huge cases make more),
     * and so that a head does not take the body below it. */
    const size_t tiles = WK_TILES_FROM_BYTES(vec) / WK_VECTOR_BYTES + (size_t)5 * WK_TILES_THREADS * WK_TILES_VECTORS + 1;
    const size_t one_deep = (size_t)WK_DEEP_THREADS * WK_DEEP_UNROLL; /* the most one deep block takes */
    const size_t cluster = (size_t)WK_CLUSTER_BLOCKS * WK_CLUSTER_THREADS * WK_CLUSTER_UNROLL; /* the most it takes */
    const size_t vectors[] = {(size_t)WK_WIDE_THREADS * WK_WIDE_UNROLL + 1,
                              one_deep,
                              one_deep + 1,
                              cluster,
                              cluster + 1,
                              wide_round + 1,
                              deep_round + 1,
                              2 * deep_round,
                              2 * deep_round + 1,
                              tiles};
    for (size_t k = 0; k < COUNT(vectors); ++k)
        add(l, d, op, vectors[k] * vec + k % 2 * (vec - 1), k % 4, WK_GEN_UNIFORM, WK_SPECIAL_NONE);
}

/* Bools run u8's kernels, whose shapes u8's cases cover: the quick list
 * checks what is theirs alone, the identities (n = 0), coin tosses (ties
 * for the arg ops), and "all" / "any" on constant data, alone and with
 * one odd element near the end. */
static void add_quick_bool(case_list *l, wk_op op)
{
    add(l, WK_BOOL, op, 0, 0, WK_GEN_UNIFORM, WK_SPECIAL_NONE);
    add(l, WK_BOOL, op, 65537, 1, WK_GEN_UNIFORM, WK_SPECIAL_NONE);
    add(l, WK_BOOL, op, 1025, 2, WK_GEN_CONSTANT, WK_SPECIAL_NONE);
    add(l, WK_BOOL, op, 1025, 3, WK_GEN_CONSTANT, WK_SPECIAL_AT_END);
}

size_t wk_reduce_cases(wk_case_level level, int sm_count, uint64_t seed, wk_reduce_case *out, size_t cap)
{
    case_list l = wk_case_writer_start(out, sizeof *out, cap, seed);
    for (int d = 0; d < WK_DTYPE_COUNT; ++d) {
        for (int o = 0; o < WK_OP_COUNT; ++o) {
            wk_dtype dtype = (wk_dtype)d;
            wk_op op = (wk_op)o;
            if (!op_applies(dtype, op))
                continue;
            if (refused(dtype, op)) {
                /* Refused before n is looked at. */
                add(&l, dtype, op, 1025, 1, WK_GEN_UNIFORM, WK_SPECIAL_NONE);
                if (level != WK_CASES_QUICK)
                    add(&l, dtype, op, 0, 0, WK_GEN_UNIFORM, WK_SPECIAL_NONE);
                continue;
            }
            if (level == WK_CASES_QUICK && dtype == WK_BOOL) {
                add_quick_bool(&l, op);
                continue;
            }
            if (level == WK_CASES_QUICK) {
                for (size_t s = 0; s < COUNT(quick_sizes); ++s)
                    add(&l, dtype, op, quick_sizes[s], s % 4, WK_GEN_UNIFORM, WK_SPECIAL_NONE);
                add_specials(&l, dtype, op, 1025);
                if (op == WK_SUM && wk_dtype_is_float(dtype))
                    add(&l, dtype, op, 65537, 3, WK_GEN_SMALL_INTS, WK_SPECIAL_NONE);
                continue;
            }
            for (size_t s = 0; s < COUNT(small_sizes); ++s)
                for (size_t offset = 0; offset < 4; ++offset)
                    add(&l, dtype, op, small_sizes[s], offset, WK_GEN_UNIFORM, WK_SPECIAL_NONE);
            for (size_t s = 0; s < COUNT(large_sizes); ++s)
                add(&l, dtype, op, large_sizes[s], (s + (size_t)o) % 4, WK_GEN_UNIFORM, WK_SPECIAL_NONE);
            add_specials(&l, dtype, op, 33);
            add_specials(&l, dtype, op, 1000003);
            if (dtype == WK_BOOL) /* all but one, or none but one */
                add(&l, dtype, op, 1000003, 3, WK_GEN_CONSTANT, WK_SPECIAL_AT_END);
            if (op == WK_SUM || op == WK_ARGMAX)
                add_shape_edges(&l, dtype, op, sm_count);
            if (op == WK_SUM && wk_dtype_is_float(dtype)) {
                /* Exact sums (see reduce_check.c): a lost element shows. */
                add(&l, dtype, op, 65537, 1, WK_GEN_SMALL_INTS, WK_SPECIAL_NONE);
                add(&l, dtype, op, 1000003, 2, WK_GEN_SMALL_INTS, WK_SPECIAL_NONE);
                add(&l, dtype, op, ((size_t)1 << 24) + 7, 3, WK_GEN_SMALL_INTS, WK_SPECIAL_NONE);
            }
        }
    }
    return l.count;
}

size_t wk_reduce_huge_cases(uint64_t seed, wk_reduce_case *out, size_t cap)
{
    case_list l = wk_case_writer_start(out, sizeof *out, cap, seed);
    size_t n = WK_CASES_HUGE + 5;
    add(&l, WK_I32, WK_SUM, n, 1, WK_GEN_UNIFORM, WK_SPECIAL_NONE);
    add(&l, WK_F16, WK_ARGMAX, n, 3, WK_GEN_UNIFORM, WK_SPECIAL_AT_END);
    add(&l, WK_I64, WK_ARGMIN, n, 1, WK_GEN_UNIFORM, WK_SPECIAL_AT_END);
    add(&l, WK_F32, WK_SUM, n, 2, WK_GEN_POSITIVE, WK_SPECIAL_NONE);
    return l.count;
}
