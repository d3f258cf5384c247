#include "launch.h"

unsigned wk_repro_grid(size_t nvec, int sm_count)
{
    size_t cap = (size_t)(sm_count > 0 ? sm_count : 1) * WK_REPRO_BLOCKS_PER_SM;
    size_t per_block = (size_t)WK_REPRO_THREADS * WK_REPRO_UNROLL;
    size_t wanted = (nvec + per_block - 1) / per_block;
    return (unsigned)(wanted < 1 ? 1 : wanted > cap ? cap : wanted);
}
