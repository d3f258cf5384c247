/* The host side of reproducible sums: partials combined and rounded on the
 * CPU with the kernels' arithmetic (repro/binned.h). */
#include "api/error.h"
#include "repro/binned.h"

#include <string.h>

_Static_assert(sizeof(wk_rp) == sizeof(wk_repro_partial), "the public partial holds the canonical one");

/* A partial that binned.h can have made: a top on the lattice, bins
 * normalized, carries in range, nothing in the spare word. */
static int is_partial(const wk_rp *p)
{
    if (p->top < WK_RP_LOWEST || p->top > WK_RP_HIGHEST || p->reserved != 0)
        return 0;
    if (p->flags & ~(uint32_t)(WK_RP_NAN | WK_RP_POS_INF | WK_RP_NEG_INF | WK_RP_NONEMPTY | WK_RP_NONNEGATIVE))
        return 0;
    for (int k = 0; k < WK_RP_FOLD; ++k) {
        if (p->lo[k] < -((int64_t)1 << 49) || p->lo[k] >= ((int64_t)1 << 49))
            return 0;
        /* Far beyond any real carry count; keeps combinations from overflowing. */
        if (p->hi[k] < -((int64_t)1 << 60) || p->hi[k] > ((int64_t)1 << 60))
            return 0;
    }
    return 1;
}

static wk_rp load(const wk_repro_partial *p)
{
    wk_rp r;
    memcpy(&r, p, sizeof r);
    return r;
}

void wk_repro_partial_clear(wk_repro_partial *p)
{
    wk_rp r;
    wk_rp_clear(&r);
    if (p)
        memcpy(p, &r, sizeof r);
}

wk_status wk_repro_combine_host(wk_repro_partial *acc, const wk_repro_partial *p)
{
    wk_clear_error();
    if (!acc || !p)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "wk_repro_combine_host: %s is NULL", acc ? "p" : "acc");
    wk_rp a = load(acc), b = load(p);
    if (!is_partial(&a) || !is_partial(&b))
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "wk_repro_combine_host: %s is not a wk_repro_partial",
                       is_partial(&a) ? "p" : "acc");
    wk_rp_combine(&a, &b);
    memcpy(acc, &a, sizeof a);
    return WK_SUCCESS;
}

wk_status wk_repro_round_host(const wk_repro_partial *p, wk_dtype dtype, void *h_out)
{
    const char *fn = "wk_repro_round_host";
    wk_clear_error();
    if (!p || !h_out)
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: %s is NULL", fn, p ? "h_out" : "p");
    if (!wk_dtype_valid(dtype))
        return wk_fail(WK_ERROR_INVALID_DTYPE, "%s: dtype %d is not a wk_dtype", fn, (int)dtype);
    if (!wk_dtype_is_float(dtype))
        return wk_fail(WK_ERROR_UNSUPPORTED, "%s: %s is not a float dtype", fn, wk_dtype_name(dtype));
    wk_rp r = load(p);
    if (!is_partial(&r))
        return wk_fail(WK_ERROR_INVALID_ARGUMENT, "%s: p is not a wk_repro_partial", fn);
    int which = dtype == WK_F64 ? 8 : dtype == WK_F32 ? 4 : dtype == WK_F16 ? 2 : 3;
    uint64_t bits = wk_rp_round(&r, wk_rp_format_for(which));
    size_t size = wk_dtype_size(dtype);
    if (size == 8)
        memcpy(h_out, &bits, 8);
    else if (size == 4) {
        uint32_t b = (uint32_t)bits;
        memcpy(h_out, &b, 4);
    } else {
        uint16_t b = (uint16_t)bits;
        memcpy(h_out, &b, 2);
    }
    return WK_SUCCESS;
}
