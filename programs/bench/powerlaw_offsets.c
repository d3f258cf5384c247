/* Power-law segment lengths for the segmented benchmark (powerlaw_offsets.h). */
#include "bench/powerlaw_offsets.h"

#include "ref/splitmix.h"

#include <math.h>

/* One length of the law, from a uniform 64-bit draw r.
 *
 * u = ((r >> 11) + 1) / 2^53 is uniform on (0, 1], and x = u^(-1/alpha) is
 * Pareto distributed: P(x >= s) = P(u <= s^-alpha) = s^-alpha for s >= 1.
 * The length floor(x) then has P(floor(x) >= s) = P(x >= s) = s^-alpha for
 * every integer s >= 1. x is at most 2^(53 / alpha), finite, and is compared
 * with the cap before it becomes an integer. */
static size_t powerlaw_length(uint64_t r)
{
    const double u = (double)((r >> 11) + 1) * 0x1p-53;
    const double x = pow(u, -1.0 / WK_POWERLAW_ALPHA);
    if (x >= (double)WK_POWERLAW_MAX_LENGTH)
        return WK_POWERLAW_MAX_LENGTH;
    return (size_t)x; /* floor: x >= 1 */
}

size_t wk_powerlaw_offsets(size_t n, uint64_t seed, int64_t *offsets)
{
    uint64_t state = seed;
    size_t count = 0, total = 0;
    if (offsets)
        offsets[0] = 0;
    while (total < n) {
        size_t length = powerlaw_length(wk_splitmix64_next(&state));
        if (length > n - total)
            length = n - total; /* the last segment, cut to end at n */
        total += length;
        ++count;
        if (offsets)
            offsets[count] = (int64_t)total;
    }
    return count;
}
