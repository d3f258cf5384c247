#include "repro/launch.h"

unsigned wk_repro_grid(size_t nvec, size_t elem_size, int sm_count)
{
    const size_t sms = (size_t)(sm_count > 0 ? sm_count : 1);
    const size_t per_block = (size_t)WK_REPRO_THREADS * WK_REPRO_UNROLL;
    /* A block's end (its warps' partials combined, its ticket) costs more
     * than a few rounds of loads: one block per SM until its threads would
     * make more than the spread's rounds, which are more where a vector
     * holds more elements to split. */
    const size_t rounds = elem_size >= 8 ? WK_REPRO_SPREAD_ROUNDS : WK_REPRO_SPREAD_ROUNDS_NARROW;
    const size_t cap = nvec <= sms * per_block * rounds ? sms : sms * WK_REPRO_BLOCKS_PER_SM;
    size_t wanted = (nvec + per_block - 1) / per_block;
    return (unsigned)(wanted < 1 ? 1 : wanted > cap ? cap : wanted);
}
