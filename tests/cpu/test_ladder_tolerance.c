/* CPU test of the ladder's tolerance rule. */
#include "ladder/ladder_tolerance.h"
#include "test_util.h"

int main(void)
{
    wk_tally t = {0, 0};
    wk_expect(&t, wk_ladder_depth(1, 1) == 3, "one element: no tree levels");
    wk_expect(&t, wk_ladder_depth(1u << 24, 1) == 27, "2^24 elements, one per thread: 24 levels");
    wk_expect(&t, wk_ladder_depth((1u << 24) + 7, 1) == 28, "2^24 + 7 needs a 25th level");
    wk_expect(&t, wk_ladder_depth(1000003, 8) == 30, "1000003 elements, 8 serial adds");
    wk_expect(&t, wk_ladder_tolerance(WK_I32, 30, 1e6) == 0.0, "integers match exactly");
    wk_expect(&t, wk_ladder_tolerance(WK_F64, 1, 1.0) == 0x1p-53, "f64 unit roundoff");
    wk_expect(&t, wk_ladder_tolerance(WK_F32, 1, 1.0) == 0x1p-24, "f32 unit roundoff");
    double f32 = wk_ladder_tolerance(WK_F32, wk_ladder_depth(1u << 24, 1), (double)(1u << 23));
    wk_expect(&t, f32 > 13.0 && f32 < 14.0, "2^24 f32 uniform in [-1, 1): 27 * 2^-24 * 2^23 = 13.5");
    wk_expect(&t, wk_ladder_tolerance(WK_F32, 60, 10.0) > wk_ladder_tolerance(WK_F32, 30, 10.0),
              "a deeper tree gets a wider tolerance");
    return wk_tally_finish(&t);
}
