/* A C11 program that uses warpkit as an outside user would: the installed
 * header and library only, compiled by a C compiler. It checks that the
 * library's version is the header's; then, without a GPU, that wk_create says
 * there is none (the link is what is tested); with one it reduces a small
 * array. */
#include <warpkit.h>

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    if (strcmp(wk_status_string(WK_SUCCESS), "success") != 0 || wk_dtype_size(WK_BF16) != 2) {
        puts("FAIL: metadata");
        return 1;
    }
    /* The library that is loaded is the one whose header this was built with. */
    char macros[32];
    snprintf(macros, sizeof macros, "%d.%d.%d", WARPKIT_VERSION_MAJOR, WARPKIT_VERSION_MINOR,
             WARPKIT_VERSION_PATCH);
    printf("warpkit %s (%d), header %s\n", wk_version(), wk_version_number(), macros);
    if (strcmp(wk_version(), macros) != 0 || wk_version_number() != WARPKIT_VERSION_NUMBER) {
        puts("FAIL: version");
        return 1;
    }
    wk_context *ctx = NULL;
    wk_status st = wk_create(&ctx, -1);
    if (st == WK_ERROR_NO_DEVICE) {
        printf("no device, as reported: %s\n", wk_last_error_message());
        puts("1 passed, 0 failed");
        return 0;
    }
    if (st != WK_SUCCESS) {
        printf("FAIL: wk_create: %s\n", wk_last_error_message());
        return 1;
    }
    double host[5] = {1.5, -2.0, 8.25, 0.25, 3.0}, sum = 0;
    double *dev = NULL;
    wk_arg_result arg;
    int ok = cudaMalloc((void **)&dev, sizeof host) == cudaSuccess &&
             cudaMemcpy(dev, host, sizeof host, cudaMemcpyHostToDevice) == cudaSuccess &&
             wk_reduce_to_host(ctx, dev, &sum, 5, WK_F64, WK_SUM, 0) == WK_SUCCESS &&
             wk_reduce_to_host(ctx, dev, &arg, 5, WK_F64, WK_ARGMAX, 0) == WK_SUCCESS;
    ok = ok && sum == 11.0 && arg.index == 2 && arg.value.f64 == 8.25;
    printf("sum %g, argmax %g at %lld\n", sum, arg.value.f64, (long long)arg.index);
    cudaFree(dev);
    wk_destroy(ctx);
    puts(ok ? "1 passed, 0 failed" : "0 passed, 1 failed");
    return ok ? 0 : 1;
}
