/*
 * problem.h — one conv2d problem as every kernel family sees it (src/problem.c): validation of
 * every descriptor and epilogue field, overflow-safe 64-bit derived sizes, the GEMM view.
 * Ground floor: calls only error.c.
 */
#ifndef IGEMM_PROBLEM_H
#define IGEMM_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "../include/igemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything a kernel needs to know about one conv2d problem, derived and validated by
 * igemm_problem_init. GEMM view per group g (see DESIGN.md):
 *   M = n*p*q, N = kg = k/groups, K = r*s*cg, cg = c/groups.
 *   A[m, (r*S + s)*cg + c] = x[nn, p*stride_h - pad_top + r*dil_h, q*stride_w - pad_left + s*dil_w, g*cg + c]
 *   B[kk, (r*S + s)*cg + c] = w[g*kg + kk, r, s, c]
 *   y[m, g*kg + kk] = act(alpha * scale[.] * D[m, kk] + bias[.] + beta * residual[m, g*kg + kk])
 * pad_bottom / pad_right are implied by p and q (rows/cols past h/w read as zero). */
typedef struct igemm_conv_params {
    /* geometry */
    int64_t n, h, w, c, k, r, s, groups;
    int64_t p, q;
    int64_t cg, kg; /* c / groups, k / groups */
    int64_t pad_top, pad_bottom, pad_left, pad_right;
    int64_t stride_h, stride_w, dil_h, dil_w;
    int64_t gemm_m, gemm_n, gemm_k; /* n*p*q, kg, r*s*cg */
    igemm_dtype_t in_dtype;         /* x and w: F16 or BF16 */
    igemm_dtype_t out_dtype;        /* y and residual: F16, BF16 or F32 */
    /* epilogue */
    float alpha, beta, act_param;
    int act; /* igemm_activation_t */
    int has_scale, has_bias, has_residual;
    /* operands (set per run; NULL at plan time). The filter pointer is `filter` because `w`
     * is the input width above. */
    const void *x;
    const void *filter;
    const float *scale;
    const float *bias;
    const void *residual;
    void *y;
} igemm_conv_params_t;

/* The defaults of the public igemm_conv2d_desc_default / igemm_epilogue_default. */
igemm_conv2d_desc_t igemm_problem_desc_default(void);
igemm_epilogue_t igemm_problem_epilogue_default(void);

/* Validates desc (every field, the overflow of every derived size) and, unless epi is NULL
 * (the identity epilogue is used then), the epilogue; fills params (if not NULL) with the
 * geometry and the epilogue, operand pointers NULL. Returns SUCCESS or INVALID_VALUE /
 * NULL_POINTER / OVERFLOW / NOT_SUPPORTED with the message naming the field and its value. */
igemm_status_t igemm_problem_init(const igemm_conv2d_desc_t *desc, const igemm_epilogue_t *epi,
                                  igemm_conv_params_t *params);

/* "f16", "bf16", "f32" ("unknown" otherwise) and the element size in bytes (2 or 4). */
/* Checked 64-bit arithmetic for derived sizes: 1 and *out = a op b, or 0 on overflow. */
static inline int igemm_mul_ok(int64_t a, int64_t b, int64_t *out) { return !__builtin_mul_overflow(a, b, out); }
static inline int igemm_add_ok(int64_t a, int64_t b, int64_t *out) { return !__builtin_add_overflow(a, b, out); }

/* Checks every field of an epilogue (activation range, finite alpha/beta/act_param, 0/1 flags),
 * naming the field. Shared by conv2d and GEMM problems. */
igemm_status_t igemm_problem_validate_epilogue(const igemm_epilogue_t *epi);

const char *igemm_dtype_name(int dtype);
size_t igemm_dtype_size(int dtype);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_PROBLEM_H */
