#include "check/check_env.h"

#include "tiles/plan.h"

#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

wk_status wk_check_env_init(wk_check_env *env, int device)
{
    memset(env, 0, sizeof *env);
    wk_status st = wk_create(&env->ctx, device);
    if (st != WK_SUCCESS)
        return st;
    if (cudaSetDevice(wk_context_device(env->ctx)) != cudaSuccess ||
        cudaStreamCreate(&env->stream) != cudaSuccess ||
        cudaMalloc(&env->d_out, WK_CHECK_OUT_BYTES) != cudaSuccess) {
        wk_check_env_free(env);
        return WK_ERROR_CUDA;
    }
    return WK_SUCCESS;
}

/* Each buffer that grows with the cases, released and marked empty. */
static void release_in(wk_check_env *env)
{
    cudaFree(env->d_in);
    free(env->h_in);
    env->d_in = env->h_in = NULL;
    env->in_bytes = 0;
}

static void release_d_big(wk_check_env *env)
{
    cudaFree(env->d_big);
    env->d_big = NULL;
    env->d_big_bytes = 0;
}

static void release_h_big(wk_check_env *env)
{
    free(env->h_big);
    env->h_big = NULL;
    env->h_big_bytes = 0;
}

void wk_check_env_free(wk_check_env *env)
{
    if (env->stream)
        cudaStreamDestroy(env->stream);
    release_in(env);
    release_d_big(env);
    release_h_big(env);
    cudaFree(env->d_out);
    wk_destroy(env->ctx);
    memset(env, 0, sizeof *env);
}

/* Memory the kernel would hand out now (MemAvailable), or SIZE_MAX when
 * that cannot be read: then nothing is skipped for the host's sake. */
static size_t host_available_bytes(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return SIZE_MAX;
    char line[256];
    unsigned long long kib = 0;
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = sscanf(line, "MemAvailable: %llu kB", &kib) == 1;
    fclose(f);
    return found ? (size_t)kib * 1024 : SIZE_MAX;
}

/* Room left for the context's own growth (a scan over the largest input
 * grows its tile-status slots by a few MiB), the runtime and the rest of
 * the process. */
#define DEVICE_HEADROOM ((size_t)256 << 20)
#define HOST_HEADROOM ((size_t)1 << 30)

static double gib(size_t bytes) { return (double)bytes / (1024.0 * 1024.0 * 1024.0); }

wk_check_result wk_check_reserve(wk_check_env *env, size_t in_bytes, size_t d_big_bytes, size_t h_big_bytes,
                                 char *why, size_t why_size)
{
    int grow_in = in_bytes > env->in_bytes;
    int grow_d_big = d_big_bytes > env->d_big_bytes;
    int grow_h_big = h_big_bytes > env->h_big_bytes;
    if (!grow_in && !grow_d_big && !grow_h_big)
        return WK_CHECK_PASS;
    /* Free what is replaced first, so that the free-memory queries below
     * count it and two generations of a buffer never coexist. */
    if (grow_in)
        release_in(env);
    if (grow_d_big)
        release_d_big(env);
    if (grow_h_big)
        release_h_big(env);
    size_t dev_need = (grow_in ? in_bytes : 0) + (grow_d_big ? d_big_bytes : 0);
    size_t host_need = (grow_in ? in_bytes : 0) + (grow_h_big ? h_big_bytes : 0);
    size_t dev_free = 0, dev_total = 0;
    if (cudaMemGetInfo(&dev_free, &dev_total) != cudaSuccess) {
        snprintf(why, why_size, "cannot query the device's free memory");
        return WK_CHECK_FAIL;
    }
    if (dev_need + DEVICE_HEADROOM > dev_free) {
        snprintf(why, why_size, "needs %.2f GiB of device memory, %.2f GiB of %.2f GiB free", gib(dev_need),
                 gib(dev_free), gib(dev_total));
        return WK_CHECK_SKIP;
    }
    size_t host_free = host_available_bytes();
    if (host_free != SIZE_MAX && host_need + HOST_HEADROOM > host_free) {
        snprintf(why, why_size, "needs %.2f GiB of host memory, %.2f GiB available", gib(host_need),
                 gib(host_free));
        return WK_CHECK_SKIP;
    }
    if (grow_in) {
        env->h_in = malloc(in_bytes);
        if (!env->h_in || cudaMalloc(&env->d_in, in_bytes) != cudaSuccess) {
            cudaGetLastError(); /* a failed allocation must not fail later calls */
            snprintf(why, why_size, "cannot allocate %zu bytes for the input", in_bytes);
            return WK_CHECK_FAIL;
        }
        env->in_bytes = in_bytes;
    }
    if (grow_d_big) {
        if (cudaMalloc(&env->d_big, d_big_bytes) != cudaSuccess) {
            cudaGetLastError();
            env->d_big = NULL;
            snprintf(why, why_size, "cannot allocate %zu bytes of device memory for the output", d_big_bytes);
            return WK_CHECK_FAIL;
        }
        env->d_big_bytes = d_big_bytes;
    }
    if (grow_h_big) {
        env->h_big = malloc(h_big_bytes);
        if (!env->h_big) {
            snprintf(why, why_size, "cannot allocate %zu bytes of host memory for the output", h_big_bytes);
            return WK_CHECK_FAIL;
        }
        env->h_big_bytes = h_big_bytes;
    }
    return WK_CHECK_PASS;
}

wk_check_result wk_check_reserve_case(wk_check_env *env, size_t in_bytes, size_t d_big_bytes, size_t h_big_bytes,
                                      const char *name, char *msg, size_t msg_size)
{
    char why[512];
    wk_check_result r = wk_check_reserve(env, in_bytes, d_big_bytes, h_big_bytes, why, sizeof why);
    if (r != WK_CHECK_PASS)
        snprintf(msg, msg_size, "%s: %s", name, why);
    return r;
}

int wk_check_pipelined_ok(size_t needed)
{
    int device = 0, major = 0, shared = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess)
        return -1;
    return wk_pipelined_ok(major, shared, needed);
}
