/* The GPU tests' levels (tests/test_util.h) over the real case lists: the
 * default and large levels split the full list (with the cases over 2^31
 * elements) in two without overlap or loss, at WK_TEST_DEFAULT_MAX_BYTES, and
 * the environment picks the level. The reduce and segmented lists meet every
 * dtype and op, the refused bool sums among them, and the quick lists stay
 * a few thousand cases. No GPU needed. */
#include "gpu/case_test_util.h"
#include "check/case_family.h"
#include "check/reduce_cases.h"
#include "check/scan_cases.h"
#include "check/select_cases.h"
#include "check/segmented_check.h"
#include "ref/reference.h"

static size_t reduce_bytes(const void *c) { return ((const wk_reduce_case *)c)->n * wk_dtype_size(((const wk_reduce_case *)c)->dtype); }
static size_t scan_bytes(const void *c) { return ((const wk_scan_case *)c)->n * wk_dtype_size(((const wk_scan_case *)c)->dtype); }
static size_t select_bytes(const void *c) { return ((const wk_select_case *)c)->n * wk_dtype_size(((const wk_select_case *)c)->dtype); }
static size_t reduce_n(const void *c) { return ((const wk_reduce_case *)c)->n; }
static size_t scan_n(const void *c) { return ((const wk_scan_case *)c)->n; }
static size_t select_n(const void *c) { return ((const wk_select_case *)c)->n; }

/* Splits one list (full + huge, written to `all`) and checks the split. */
static void check_split(wk_tally *t, const char *name, unsigned char *all, size_t full, size_t huge, size_t case_bytes,
                        size_t (*bytes)(const void *), size_t (*elements)(const void *))
{
    size_t total = full + huge;
    unsigned char *d = malloc(total * case_bytes), *l = malloc(total * case_bytes);
    memcpy(d, all, total * case_bytes);
    memcpy(l, all, total * case_bytes);
    size_t nd = wk_case_test_filter(WK_LEVEL_DEFAULT, d, total, case_bytes, bytes);
    size_t nl = wk_case_test_filter(WK_LEVEL_LARGE, l, total, case_bytes, bytes);
    printf("%s: %zu cases in all, %zu default, %zu large\n", name, total, nd, nl);
    char label[160];
    snprintf(label, sizeof label, "%s: default and large share out every case", name);
    wk_expect(t, nd + nl == total && nd > 0 && nl >= huge, label);
    int ok = 1;
    for (size_t i = 0; i < nd; ++i)
        ok &= bytes(d + i * case_bytes) <= WK_TEST_DEFAULT_MAX_BYTES && elements(d + i * case_bytes) < ((size_t)1 << 31);
    for (size_t i = 0; i < nl; ++i)
        ok &= bytes(l + i * case_bytes) > WK_TEST_DEFAULT_MAX_BYTES;
    snprintf(label, sizeof label, "%s: default up to 2^27 bytes, large over, every case over 2^31 elements large", name);
    wk_expect(t, ok, label);
    /* Order kept: the default cases are the full list's, less the large ones, in order. */
    size_t j = 0;
    for (size_t i = 0; i < total && j < nd; ++i)
        if (memcmp(all + i * case_bytes, d + j * case_bytes, case_bytes) == 0)
            j++;
    snprintf(label, sizeof label, "%s: the default list keeps the full list's order", name);
    wk_expect(t, j == nd, label);
    free(d);
    free(l);
}

/* The family's full list with its cases over 2^31 elements (132 SMs, an
 * H200's), split and checked. */
static void check_family(wk_tally *t, const wk_case_family *f, uint64_t seed, size_t (*bytes)(const void *),
                         size_t (*elements)(const void *))
{
    size_t full, huge;
    unsigned char *all = wk_case_family_cases(f, WK_CASES_FULL, 132, seed, 1, &full, &huge);
    if (!all) {
        wk_expect(t, 0, "host memory for the case list");
        return;
    }
    check_split(t, f->name, all, full, huge, f->case_size, bytes, elements);
    free(all);
}

/* Every dtype with every op it takes at both levels, and a sum of bools,
 * which the library refuses, once in the quick list and twice in the
 * full one (n = 0 and not), for the check of the refusal. */
static void check_reduce_dtypes(wk_tally *t, uint64_t seed)
{
    for (int level = 0; level < 2; ++level) {
        size_t count = wk_reduce_cases(level ? WK_CASES_FULL : WK_CASES_QUICK, 132, seed, NULL, 0);
        wk_reduce_case *cases = malloc(count * sizeof *cases);
        wk_reduce_cases(level ? WK_CASES_FULL : WK_CASES_QUICK, 132, seed, cases, count);
        int seen[WK_DTYPE_COUNT][WK_OP_COUNT] = {{0}}, refused = 0;
        for (size_t i = 0; i < count; ++i) {
            seen[cases[i].dtype][cases[i].op]++;
            refused += wk_ref_dtype_op_status(cases[i].dtype, cases[i].op) != WK_SUCCESS;
        }
        int missing = 0;
        for (int d = 0; d < WK_DTYPE_COUNT; ++d)
            for (int o = 0; o < WK_OP_COUNT; ++o)
                missing += !seen[d][o] && !(wk_op_is_bitwise((wk_op)o) && wk_dtype_is_float((wk_dtype)d));
        wk_checkf(t, missing == 0 && refused == (level ? 2 : 1) && seen[WK_BOOL][WK_SUM] == refused,
                  "reduce %s: every dtype x op (%d missing), %d refused cases, all bool sums", level ? "full" : "quick",
                  missing, refused);
        free(cases);
    }
}

/* `warpkit verify --quick` runs every family's quick list: a few thousand
 * cases. */
static void check_quick_counts(wk_tally *t, uint64_t seed)
{
    size_t reduce = wk_reduce_cases(WK_CASES_QUICK, 132, seed, NULL, 0);
    size_t scan = wk_scan_cases(WK_CASES_QUICK, seed, NULL, 0);
    size_t select = wk_select_cases(WK_CASES_QUICK, seed, NULL, 0);
    size_t segmented = wk_segmented_cases(WK_CASES_QUICK, seed, NULL, 0);
    size_t total = reduce + scan + select + segmented;
    wk_checkf(t, total <= 3300,
              "quick lists: %zu reduce, %zu scan, %zu select, %zu segmented: %zu cases (at most 3300)", reduce, scan,
              select, segmented, total);
}

static void level_is(wk_tally *t, const char *level, const char *quick, wk_test_level want)
{
    level ? setenv("WK_TEST_LEVEL", level, 1) : unsetenv("WK_TEST_LEVEL");
    quick ? setenv("WK_TEST_QUICK", quick, 1) : unsetenv("WK_TEST_QUICK");
    char label[128];
    snprintf(label, sizeof label, "WK_TEST_LEVEL=%s WK_TEST_QUICK=%s gives %s", level ? level : "(unset)",
             quick ? quick : "(unset)", wk_test_level_name(want));
    wk_expect(t, wk_test_level_get() == want && wk_test_quick() == (want == WK_LEVEL_QUICK), label);
}

int main(void)
{
    wk_tally t = {0, 0};
    level_is(&t, NULL, NULL, WK_LEVEL_DEFAULT);
    level_is(&t, NULL, "1", WK_LEVEL_QUICK);
    level_is(&t, NULL, "0", WK_LEVEL_DEFAULT);
    level_is(&t, "quick", NULL, WK_LEVEL_QUICK);
    level_is(&t, "default", NULL, WK_LEVEL_DEFAULT);
    level_is(&t, "large", NULL, WK_LEVEL_LARGE);
    level_is(&t, "large", "1", WK_LEVEL_LARGE);
    level_is(&t, "", "1", WK_LEVEL_QUICK);
    unsetenv("WK_TEST_LEVEL");
    unsetenv("WK_TEST_QUICK");

    uint64_t seed = 12345;
    check_family(&t, &wk_reduce_family, seed, reduce_bytes, reduce_n);
    check_family(&t, &wk_scan_family, seed, scan_bytes, scan_n);
    check_family(&t, &wk_select_family, seed, select_bytes, select_n);

    /* The segmented list of `warpkit verify --quick`: every dtype under each
     * of the three calls, overlapping offsets for the reduce only. */
    size_t quick = wk_segmented_cases(WK_CASES_QUICK, seed, NULL, 0);
    size_t full = wk_segmented_cases(WK_CASES_FULL, seed, NULL, 0);
    wk_segmented_case *g = malloc(full * sizeof *g);
    int seen[3][WK_DTYPE_COUNT] = {{0}}, wild_scan = 0;
    wk_segmented_cases(WK_CASES_QUICK, seed, g, quick);
    for (size_t i = 0; i < quick; ++i) {
        seen[g[i].call][g[i].dtype] = 1;
        wild_scan |= g[i].layout == WK_SEG_WILD && g[i].call != WK_SEG_REDUCE;
    }
    int all = 1;
    for (int c = 0; c < 3; ++c)
        for (int d = 0; d < WK_DTYPE_COUNT; ++d)
            all &= seen[c][d];
    wk_checkf(&t, quick > 0 && full > quick && all && !wild_scan,
              "segmented: %zu quick cases cover every dtype of the three calls, %zu in the full list", quick, full);
    /* A sum of bools, which the library refuses: one case per call at
     * either level, which expects the refusal. */
    for (int level = 0; level < 2; ++level) {
        size_t count = level ? full : quick;
        int refused[3] = {0, 0, 0};
        wk_segmented_cases(level ? WK_CASES_FULL : WK_CASES_QUICK, seed, g, count);
        for (size_t i = 0; i < count; ++i)
            if (wk_ref_dtype_op_status(g[i].dtype, g[i].op) != WK_SUCCESS)
                refused[g[i].call]++;
        wk_checkf(&t, refused[0] == 1 && refused[1] == 1 && refused[2] == 1,
                  "segmented %s: one bool sum per call (%d reduce, %d inclusive, %d exclusive)",
                  level ? "full" : "quick", refused[0], refused[1], refused[2]);
    }
    free(g);

    check_reduce_dtypes(&t, seed);
    check_quick_counts(&t, seed);
    return wk_tally_finish(&t);
}
