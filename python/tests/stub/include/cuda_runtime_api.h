/* Stand-in for the CUDA runtime header: warpkit.h needs cudaStream_t only.
 * Lets the test stub compile against the real warpkit.h without CUDA. */
#ifndef WK_STUB_CUDA_RUNTIME_API_H
#define WK_STUB_CUDA_RUNTIME_API_H
typedef struct CUstream_st *cudaStream_t;
#endif
