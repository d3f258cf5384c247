#include "ladder/ladder_tolerance.h"

size_t wk_ladder_depth(size_t n, size_t serial)
{
    size_t levels = 0;
    while (((size_t)1 << levels) < n)
        levels++;
    return levels + serial + 2;
}

double wk_ladder_tolerance(wk_dtype dtype, size_t depth, double abs_sum)
{
    double u = dtype == WK_F64 ? 0x1p-53 : dtype == WK_F32 ? 0x1p-24 : 0.0;
    return (double)depth * u * abs_sum;
}
