/*
 * cublaslt_baseline.h — cuBLASLt as the baseline of `igemm bench --vs cublas` on GEMM shapes
 * (a 1x1, stride-1, unpadded, ungrouped conv is the GEMM D[M, N] = A[M, K] B[N, K]^T with
 * M = n*h*w, K = c, N = k: the shape files' GEMM lines "name,m,n,k" are read as such convs).
 * cuBLASLt is loaded at run time with dlopen (IGEMM_CUBLASLT_LIB, else libcublasLt.so.13/.12/.so);
 * its enum values and the heuristic result's layout are the documented ones of cublasLt.h (CUDA
 * 12-13), restated here so the CLI builds without the header. Row-major D = A B^T is computed as
 * the column-major D^T = B A^T: cuBLASLt's A is our B (K x N, ld K, transposed), its B our A
 * (K x M, ld K), D N x M with ld N. --fused: EPILOGUE_RELU_BIAS (bias in the input dtype).
 * The algorithm: the best of the heuristic's top candidates, each timed briefly on the same
 * buffers with the same harness (timing.h). Needs IGEMM_HAVE_CUDA.
 */
#ifndef IGEMM_CLI_CUBLASLT_BASELINE_H
#define IGEMM_CLI_CUBLASLT_BASELINE_H

#ifdef IGEMM_HAVE_CUDA
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "igemm.h"
#include "timing.h"

typedef struct cublaslt_algo {
    uint64_t data[8];
} cublaslt_algo_t;

/* The entry points, loaded by cublaslt_load. */
typedef struct cublaslt_api {
    void *lib;
    int (*Create)(void **handle);
    int (*Destroy)(void *handle);
    int (*MatmulDescCreate)(void **desc, int compute_type, int scale_type);
    int (*MatmulDescDestroy)(void *desc);
    int (*MatmulDescSetAttribute)(void *desc, int attr, const void *buf, size_t bytes);
    int (*MatrixLayoutCreate)(void **layout, int type, uint64_t rows, uint64_t cols, int64_t ld);
    int (*MatrixLayoutDestroy)(void *layout);
    int (*MatmulPreferenceCreate)(void **pref);
    int (*MatmulPreferenceDestroy)(void *pref);
    int (*MatmulPreferenceSetAttribute)(void *pref, int attr, const void *buf, size_t bytes);
    int (*MatmulAlgoGetHeuristic)(void *handle, void *desc, void *a, void *b, void *c, void *d, void *pref,
                                  int requested, void *results, int *returned);
    int (*Matmul)(void *handle, void *desc, const void *alpha, const void *a, void *adesc, const void *b,
                  void *bdesc, const void *beta, const void *c, void *cdesc, void *d, void *ddesc,
                  const cublaslt_algo_t *algo, void *ws, size_t ws_bytes, cudaStream_t stream);
} cublaslt_api_t;

/* Loads cuBLASLt. Returns 0, or -1 with a message in err naming what was tried. */
int cublaslt_load(cublaslt_api_t *api, char *err, size_t errlen);

/* One GEMM's cuBLASLt set-up. The caller fills api, handle, fused and s before the setup. */
typedef struct cublaslt_baseline {
    cublaslt_api_t *api;
    void *handle;
    int fused;
    timing_sets_t *s;
    void *desc, *la, *lb, *ld;
    cublaslt_algo_t algo;
    void *ws;
    size_t ws_bytes;
} cublaslt_baseline_t;

/* 1 if d is a GEMM cuBLASLt can be compared on (1x1, stride 1, no padding, groups 1, x dtype ==
 * y dtype), else 0. */
int cublaslt_takes(const igemm_conv2d_desc_t *d);

/* Sets cuBLASLt up for the GEMM of d on stream and picks its fastest of the heuristic's top 8
 * algorithms (each timed briefly, mode back_to_back); writes "cublasLt #i of n" into algo_out.
 * Returns 0, or -1 with a message in err (c destroyed). */
int cublaslt_baseline_setup(cublaslt_baseline_t *c, const igemm_conv2d_desc_t *d, cudaStream_t stream,
                            int back_to_back, char *algo_out, size_t algo_len, char *err, size_t errlen);

/* timing_fn of the cuBLASLt call on set `set` (ctx: a set-up cublaslt_baseline_t). */
int cublaslt_baseline_fn(void *ctx, int set, void *stream, char *err, size_t errlen);

/* Runs ours (oc: bias and ReLU when fused, as cuBLASLt) and cuBLASLt once each on set 0 and
 * compares every element (tol_conv_vs_fp32). Returns 1 (agree), 0 (not; *max_abs), -1 (error). */
int cublaslt_baseline_compare(timing_igemm_t *oc, cublaslt_baseline_t *c, const igemm_conv2d_desc_t *d,
                              const float *hbias, cudaStream_t stream, double *max_abs, char *err, size_t errlen);

/* Destroys what the setup created (not the handle). Safe on a zeroed c. */
void cublaslt_baseline_destroy(cublaslt_baseline_t *c);
#endif

#endif
