/* The reproducible sums checked on the GPU against the host model
 * (ref/repro_model.h): the whole sum of a case of the fixed list, and the
 * same input cut into rows for the segmented form. Used by `warpkit verify`;
 * tests/gpu/test_repro.c adds every launch shape and the splits. */
#ifndef WARPKIT_CHECK_REPRO_CHECK_H
#define WARPKIT_CHECK_REPRO_CHECK_H

#include "check/check_env.h"
#include "check/repro_cases.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "repro f32 n=1000 mixed" */
void wk_describe_repro_case(const wk_repro_case *c, char *buf, size_t size);

/* wk_reduce_repro of the case, at an aligned start and one element past it,
 * must give the model's bits (*bits gets them, for the list's hash); and
 * wk_segmented_reduce_repro over the input cut into rows must give each row
 * the model's bits for that row alone. */
wk_check_result wk_check_repro_case(wk_check_env *env, const wk_repro_case *c, uint64_t *bits, char *msg,
                                    size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif
