/*
 * conv2d_ref.h — the CPU reference conv2d forward (src/ref/conv2d_ref.c): the test oracle, the
 * numpy path of the Python package, and the sampled reference of `igemm check`. Calls only
 * problem.c, error.c and the 16-bit conversions (common/half.c).
 */
#ifndef IGEMM_REF_CONV2D_REF_H
#define IGEMM_REF_CONV2D_REF_H

#include "../problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y for the validated problem p (host pointers; scale/bias/residual as p's flags say), in
 * double, rounded to y's dtype at the end. Returns SUCCESS, NULL_POINTER or OUT_OF_MEMORY. */
igemm_status_t igemm_ref_conv2d(const igemm_conv_params_t *p, const void *x, const void *w, const float *scale,
                                const float *bias, const void *residual, void *y);

/* The exact values (before rounding to y's dtype) of y at flat indices idx[0 .. count). Returns
 * SUCCESS, NULL_POINTER or INVALID_VALUE (count < 0 or an index out of range). */
igemm_status_t igemm_ref_conv2d_elems(const igemm_conv_params_t *p, const void *x, const void *w, const float *scale,
                                      const float *bias, const void *residual, const int64_t *idx, int64_t count,
                                      double *out);

/* act(v) in double (the one definition: common/activation.h). Exported for the tests. */
IGEMM_API double igemm_act_host(int act, double v, double act_param);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_REF_CONV2D_REF_H */
