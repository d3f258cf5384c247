/* A stand-in for the CUDA runtime's header: include/warpkit.h needs only
 * cudaStream_t from it, declared here exactly as CUDA declares it. It lets
 * the extension (and the tests' stub library) compile against the real
 * warpkit.h without the CUDA toolkit. */
#ifndef WARPKIT_PY_CUDA_RUNTIME_API_H
#define WARPKIT_PY_CUDA_RUNTIME_API_H
typedef struct CUstream_st *cudaStream_t;
#endif
