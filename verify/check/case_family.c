#include "check/case_family.h"

#include "check/reduce_cases.h"
#include "check/scan_cases.h"
#include "check/segmented_check.h"
#include "check/select_cases.h"

#include <stdlib.h>

/* The typed list functions behind the family's untyped signature. */
static size_t reduce_list(wk_case_level level, int sm_count, uint64_t seed, void *out, size_t cap)
{
    return wk_reduce_cases(level, sm_count, seed, out, cap);
}
static size_t scan_list(wk_case_level level, int sm_count, uint64_t seed, void *out, size_t cap)
{
    (void)sm_count;
    return wk_scan_cases(level, seed, out, cap);
}
static size_t select_list(wk_case_level level, int sm_count, uint64_t seed, void *out, size_t cap)
{
    (void)sm_count;
    return wk_select_cases(level, seed, out, cap);
}
static size_t segmented_list(wk_case_level level, int sm_count, uint64_t seed, void *out, size_t cap)
{
    (void)sm_count;
    return wk_segmented_cases(level, seed, out, cap);
}

static size_t reduce_huge(uint64_t seed, void *out, size_t cap) { return wk_reduce_huge_cases(seed, out, cap); }
static size_t scan_huge(uint64_t seed, void *out, size_t cap) { return wk_scan_huge_cases(seed, out, cap); }
static size_t select_huge(uint64_t seed, void *out, size_t cap) { return wk_select_huge_cases(seed, out, cap); }

static wk_check_result reduce_check(wk_check_env *env, const void *c, char *msg, size_t msg_size)
{
    return wk_check_reduce_case(env, c, msg, msg_size) ? WK_CHECK_PASS : WK_CHECK_FAIL;
}
static wk_check_result scan_check(wk_check_env *env, const void *c, char *msg, size_t msg_size)
{
    return wk_check_scan_case(env, c, msg, msg_size);
}
static wk_check_result select_check(wk_check_env *env, const void *c, char *msg, size_t msg_size)
{
    return wk_check_select_case(env, c, msg, msg_size);
}
static wk_check_result segmented_check(wk_check_env *env, const void *c, char *msg, size_t msg_size)
{
    return wk_check_segmented_case(env, c, msg, msg_size);
}

const wk_case_family wk_reduce_family = {"reduce", sizeof(wk_reduce_case), reduce_list, reduce_huge, reduce_check};
const wk_case_family wk_scan_family = {"scan", sizeof(wk_scan_case), scan_list, scan_huge, scan_check};
const wk_case_family wk_select_family = {"select", sizeof(wk_select_case), select_list, select_huge, select_check};
const wk_case_family wk_segmented_family = {"segmented reduce and scans", sizeof(wk_segmented_case), segmented_list,
                                            NULL, segmented_check};

void *wk_case_family_cases(const wk_case_family *f, wk_case_level level, int sm_count, uint64_t seed, int with_huge,
                           size_t *count, size_t *huge)
{
    *count = f->list(level, sm_count, seed, NULL, 0);
    *huge = with_huge && f->huge ? f->huge(seed, NULL, 0) : 0;
    size_t total = *count + *huge;
    unsigned char *cases = malloc(total ? total * f->case_size : 1);
    if (!cases)
        return NULL;
    f->list(level, sm_count, seed, cases, *count);
    if (*huge)
        f->huge(seed, cases + *count * f->case_size, *huge);
    return cases;
}
