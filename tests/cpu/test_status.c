/* CPU test: status strings, dtype and op metadata, argument checks that need
 * no GPU, and wk_create's answer on a machine without one. */
#include "warpkit.h"
#include "test_util.h"
#include "api/validate.h"

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
    const size_t sizes[WK_DTYPE_COUNT] = {4, 4, 8, 8, 4, 8, 2, 2};
    for (int d = 0; d < WK_DTYPE_COUNT; ++d) {
        wk_expect(t, wk_dtype_size((wk_dtype)d) == sizes[d], "dtype sizes");
        wk_expect(t, strcmp(wk_dtype_name((wk_dtype)d), "?") != 0, "dtype names");
        for (int o = 0; o < WK_OP_COUNT; ++o) {
            size_t want = (o == WK_ARGMIN || o == WK_ARGMAX) ? 16 : sizes[d];
            wk_expect(t, wk_reduce_result_size((wk_dtype)d, (wk_op)o) == want, "result sizes");
        }
    }
    wk_expect(t, sizeof(wk_arg_result) == 16 && sizeof(wk_value) == 8, "wk_arg_result is 16 bytes");
    wk_expect(t, wk_dtype_size((wk_dtype)8) == 0 && strcmp(wk_dtype_name((wk_dtype)-1), "?") == 0,
              "unknown dtypes have no size or name");
    wk_expect(t, strcmp(wk_op_name(WK_ARGMAX), "argmax") == 0 && strcmp(wk_op_name((wk_op)8), "?") == 0, "op names");
    wk_expect(t, wk_reduce_result_size(WK_F32, (wk_op)9) == 0, "unknown op has no result size");
}

static void test_checks(wk_tally *t)
{
    wk_expect(t, wk_check_dtype_op(WK_F32, WK_SUM, "f") == WK_SUCCESS, "f32 sum is valid");
    wk_expect(t, wk_check_dtype_op(WK_U64, WK_XOR, "f") == WK_SUCCESS, "u64 xor is valid");
    wk_expect(t, wk_check_dtype_op(WK_F16, WK_OR, "f") == WK_ERROR_UNSUPPORTED, "f16 or is unsupported");
    wk_expect(t, strstr(wk_last_error_message(), ": or is for integer dtypes, not f16") != NULL, "the message names the op and dtype");
    wk_expect(t, wk_check_dtype_op(8, WK_SUM, "f") == WK_ERROR_INVALID_DTYPE, "dtype 8 is invalid");
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
    test_checks(&t);
    test_without_context(&t);
    return wk_tally_finish(&t);
}
