/*
 * gemm_problem.h — a validated GEMM problem (igemm_gemm_desc_t + igemm_epilogue_t) with its
 * overflow-checked extents: what the GEMM reference, and later the GEMM family, work on.
 * Ground floor: calls only error.c and problem.c (the shared epilogue check).
 */
#ifndef IGEMM_GEMM_PROBLEM_H
#define IGEMM_GEMM_PROBLEM_H

#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct igemm_gemm_params {
    int64_t m, n, k, batch;
    int b_kn; /* 1: B stored K x N; 0: N x K */
    int64_t lda, ldb, ldd;
    int64_t stride_a, stride_b, stride_d;
    int64_t a_elems, b_elems, d_elems; /* highest index touched + 1 */
    igemm_dtype_t in_dtype, out_dtype;
    float alpha, beta, act_param;
    int act;
    int has_scale, has_bias, has_residual;
} igemm_gemm_params_t;

/* Validates desc (every field, named in the message) and epi (NULL: the identity epilogue) and
 * fills params (if not NULL). Returns SUCCESS, NULL_POINTER, INVALID_VALUE or OVERFLOW. */
igemm_status_t igemm_gemm_problem_init(const igemm_gemm_desc_t *desc, const igemm_epilogue_t *epi,
                                       igemm_gemm_params_t *params);

/* How a validated GEMM runs on the conv engine: as 1x1 convs (n = 1, h = 1, w = rows, c = K,
 * k = N, R = S = 1), B being the N x K filter. Fills *conv and the launch loop: *launches convs
 * whose A, B and D (and C) pointers advance by step[0], step[1], step[2] bytes. A batch whose B
 * is shared (batch_stride_b = 0) over packed A and D folds into one conv of batch * M rows.
 * Returns 1, or 0 with *why saying what the conv engine cannot take (B stored K x N, leading
 * dimensions other than packed rows). Pure; no error state touched. */
int igemm_gemm_conv_mapping(const igemm_gemm_params_t *g, igemm_conv2d_desc_t *conv, int64_t *launches,
                            int64_t step[3], const char **why);

igemm_gemm_desc_t igemm_gemm_problem_packed(int64_t m, int64_t n, int64_t k, int64_t batch, int b_layout,
                                            igemm_dtype_t in_dtype, igemm_dtype_t out_dtype);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_GEMM_PROBLEM_H */
