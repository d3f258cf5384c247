/* CPU test: status strings, dtype and op metadata, argument checks that need
 * no GPU, and wk_create's answer on a machine without one. */
#include "warpkit.h"
#include "test_util.h"
#include "api/validate.h"
#include "ref/reference.h"

#include <stdint.h>

static void test_strings(wk_tally *t)
{
    const wk_status all[] = {WK_SUCCESS, WK_ERROR_INVALID_ARGUMENT, WK_ERROR_INVALID_DTYPE, WK_ERROR_INVALID_OP,
                             WK_ERROR_UNSUPPORTED, WK_ERROR_INVALID_POINTER, WK_ERROR_NO_DEVICE,
                             WK_ERROR_OUT_OF_MEMORY, WK_ERROR_CUDA, WK_ERROR_CAPTURE, WK_ERROR_LIMIT};
    const int count = (int)(sizeof all / sizeof all[0]);
    for (int i = 0; i < count; ++i) {
        const char *s = wk_status_string(all[i]);
        wk_expect(t, s && strlen(s) > 0 && strcmp(s, "unknown status") != 0, "every status has its own string");
        for (int j = 0; j < i; ++j)
            wk_expect(t, strcmp(s, wk_status_string(all[j])) != 0, "status strings are distinct");
    }
    wk_expect(t, strcmp(wk_status_string((wk_status)1234), "unknown status") == 0, "unknown status string");
}

static void test_metadata(wk_tally *t)
{
    const size_t sizes[WK_DTYPE_COUNT] = {4, 4, 8, 8, 4, 8, 2, 2, 1, 1, 1, 2, 2};
    const char *const names[WK_DTYPE_COUNT] = {"i32", "u32", "i64", "u64", "f32", "f64", "f16",
                                               "bf16", "bool", "u8", "i8", "i16", "u16"};
    for (int d = 0; d < WK_DTYPE_COUNT; ++d) {
        wk_checkf(t, wk_dtype_size((wk_dtype)d) == sizes[d] && strcmp(wk_dtype_name((wk_dtype)d), names[d]) == 0,
                  "dtype %d: %s, %zu bytes (want %s, %zu)", d, wk_dtype_name((wk_dtype)d), wk_dtype_size((wk_dtype)d),
                  names[d], sizes[d]);
        wk_expect(t, wk_dtype_valid(d), "every dtype below WK_DTYPE_COUNT is valid");
        wk_expect(t, wk_dtype_is_float((wk_dtype)d) == (d >= WK_F32 && d <= WK_BF16),
                  "the float dtypes are f32, f64, f16, bf16 (not the narrow integers)");
        for (int o = 0; o < WK_OP_COUNT; ++o) {
            size_t want = (o == WK_ARGMIN || o == WK_ARGMAX) ? 16 : sizes[d];
            wk_expect(t, wk_reduce_result_size((wk_dtype)d, (wk_op)o) == want, "result sizes");
        }
    }
    wk_expect(t, sizeof(wk_arg_result) == 16 && sizeof(wk_value) == 8, "wk_arg_result is 16 bytes");
    wk_expect(t, WK_DTYPE_COUNT == 13 && WK_BOOL == 8 && WK_U8 == 9 && WK_I8 == 10 && WK_I16 == 11 && WK_U16 == 12,
              "the dtype values of warpkit.h");
    wk_expect(t, wk_dtype_size((wk_dtype)WK_DTYPE_COUNT) == 0 && strcmp(wk_dtype_name((wk_dtype)-1), "?") == 0 &&
                     strcmp(wk_dtype_name((wk_dtype)WK_DTYPE_COUNT), "?") == 0 && !wk_dtype_valid(WK_DTYPE_COUNT),
              "unknown dtypes have no size or name");
    wk_expect(t, strcmp(wk_op_name(WK_ARGMAX), "argmax") == 0 && strcmp(wk_op_name((wk_op)8), "?") == 0, "op names");
    wk_expect(t, wk_reduce_result_size(WK_F32, (wk_op)9) == 0, "unknown op has no result size");
}

static void test_sum_widens(wk_tally *t)
{
    int pairs = 0, agree = 0, accepted = 0;
    for (int in = 0; in < WK_DTYPE_COUNT; ++in)
        for (int out = 0; out < WK_DTYPE_COUNT; ++out, ++pairs) {
            int want = wk_ref_sum_widens(in, out), got = wk_sum_widens(in, out);
            accepted += got;
            if ((got == 1) == (want == 1) && (got == 0 || got == 1))
                agree++;
            else
                printf("FAIL wk_sum_widens(%s, %s) = %d, want %d\n", wk_dtype_name((wk_dtype)in),
                       wk_dtype_name((wk_dtype)out), got, want);
        }
    wk_checkf(t, agree == pairs && accepted == 39, "wk_sum_widens: %d of %d pairs as listed, %d accepted (want 39)",
              agree, pairs, accepted);
    wk_expect(t, !wk_sum_widens(-1, WK_I64) && !wk_sum_widens(WK_U8, WK_DTYPE_COUNT) &&
                     !wk_sum_widens(WK_DTYPE_COUNT, WK_DTYPE_COUNT) && !wk_sum_widens(1000, 1000),
              "unknown dtypes widen into nothing");
}

static void test_checks(wk_tally *t)
{
    wk_expect(t, wk_check_dtype_op(WK_F32, WK_SUM, "f") == WK_SUCCESS, "f32 sum is valid");
    wk_expect(t, wk_check_dtype_op(WK_U64, WK_XOR, "f") == WK_SUCCESS, "u64 xor is valid");
    wk_expect(t, wk_check_dtype_op(WK_F16, WK_OR, "f") == WK_ERROR_UNSUPPORTED, "f16 or is unsupported");
    wk_expect(t, strstr(wk_last_error_message(), ": or is for integer dtypes, not f16") != NULL, "the message names the op and dtype");
    wk_expect(t, wk_check_dtype_op(WK_DTYPE_COUNT, WK_SUM, "f") == WK_ERROR_INVALID_DTYPE, "dtype 13 is invalid");
    wk_expect(t, wk_check_dtype_op(WK_BOOL, WK_SUM, "f") == WK_ERROR_UNSUPPORTED, "a bool sum is unsupported");
    wk_expect(t, strstr(wk_last_error_message(), "wk_reduce_to") != NULL, "the message says what to use instead");
    wk_expect(t, wk_check_dtype_op(WK_BOOL, WK_MIN, "f") == WK_SUCCESS &&
                     wk_check_dtype_op(WK_BOOL, WK_XOR, "f") == WK_SUCCESS &&
                     wk_check_dtype_op(WK_BOOL, WK_ARGMAX, "f") == WK_SUCCESS,
                 "bool min, xor and argmax are valid");
    wk_expect(t, wk_check_dtype_op(WK_I8, WK_SUM, "f") == WK_SUCCESS &&
                     wk_check_dtype_op(WK_U16, WK_AND, "f") == WK_SUCCESS,
                 "narrow integer sums and bitwise ops are valid");
    wk_expect(t, wk_check_dtype_op(WK_I32, -1, "f") == WK_ERROR_INVALID_OP, "op -1 is invalid");
    wk_expect(t, wk_check_extent(SIZE_MAX / 4 + 1, 4, "f") == WK_ERROR_LIMIT, "extent overflow is over the limit");
    wk_expect(t, wk_check_extent(WK_MAX_BYTES / 4 + 1, 4, "f") == WK_ERROR_LIMIT, "2^62 + 4 bytes are over the limit");
    wk_expect(t, strstr(wk_last_error_message(), "more than 2^62 bytes") != NULL, "the message names the limit");
    wk_expect(t, wk_check_extent(WK_MAX_BYTES / 4, 4, "f") == WK_SUCCESS, "2^62 bytes are within it");
    wk_expect(t, wk_check_extent(SIZE_MAX, 0, "f") == WK_SUCCESS, "no bytes at all are within it");

    char buf[64];
    wk_expect(t, wk_ranges_overlap(buf, 16, buf + 8, 16), "overlapping ranges");
    wk_expect(t, !wk_ranges_overlap(buf, 16, buf + 16, 16), "adjacent ranges do not overlap");
    wk_expect(t, !wk_ranges_overlap(buf, 0, buf, 16), "an empty range overlaps nothing");
    wk_expect(t, wk_ranges_overlap(buf + 20, 4, buf, 64), "a range inside another");
}

static void test_without_context(wk_tally *t)
{
    char out[16];
    memset(out, 7, sizeof out);
    wk_expect(t, wk_reduce(NULL, out, out, 1, WK_F32, WK_SUM, 0) == WK_ERROR_INVALID_ARGUMENT, "NULL context");
    wk_expect(t, strstr(wk_last_error_message(), "ctx") != NULL, "the message names ctx");
    wk_expect(t, out[0] == 7, "output untouched");
    wk_expect(t, wk_create(NULL, 0) == WK_ERROR_INVALID_ARGUMENT, "wk_create(NULL)");
    wk_expect(t, wk_destroy(NULL) == WK_SUCCESS, "wk_destroy(NULL) is a no-op");
    const int bad_devices[] = {-2, -7, -1000};
    for (int i = 0; i < 3; ++i) {
        wk_context *none = (wk_context *)&out;
        wk_status st = wk_create(&none, bad_devices[i]);
        wk_checkf(t, st == WK_ERROR_INVALID_ARGUMENT && none == NULL && strstr(wk_last_error_message(), "device") != NULL,
                  "wk_create(&ctx, %d): %s, '%s'", bad_devices[i], wk_status_string(st), wk_last_error_message());
    }

    /* With a GPU this makes a context; without one it must say so. */
    wk_context *ctx = NULL;
    wk_status st = wk_create(&ctx, -1);
    if (st == WK_SUCCESS) {
        printf("a CUDA device is present: context made on device %d\n", wk_context_device(ctx));
        wk_expect(t, wk_context_sm_count(ctx) > 0, "context knows its SM count");
        wk_destroy(ctx);
    } else {
        printf("wk_create without a device: %s\n", wk_last_error_message());
        wk_expect(t, st == WK_ERROR_NO_DEVICE && ctx == NULL, "wk_create reports no device");
        wk_expect(t, strstr(wk_last_error_message(), "no CUDA device") != NULL, "and says so");
    }
}

int main(void)
{
    wk_tally t = {0, 0};
    test_strings(&t);
    test_metadata(&t);
    test_sum_widens(&t);
    test_checks(&t);
    test_without_context(&t);
    return wk_tally_finish(&t);
}
