/*
 * gemm_ref.h — the CPU reference GEMM (src/ref/gemm_ref.c): the oracle of the GEMM kernels.
 * Calls only gemm_problem/problem, error.c, the activation and the 16-bit conversions.
 */
#ifndef IGEMM_REF_GEMM_REF_H
#define IGEMM_REF_GEMM_REF_H

#include "../gemm_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* D for the validated problem p (host pointers; scale/bias/c as p's flags say), accumulated in
 * double, rounded to D's dtype at the end; only D's elements are written. Returns SUCCESS,
 * NULL_POINTER or OUT_OF_MEMORY. */
igemm_status_t igemm_ref_gemm(const igemm_gemm_params_t *p, const void *a, const void *b, const float *scale,
                              const float *bias, const void *c, void *d);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_REF_GEMM_REF_H */
