/*
 * tolerance.h — the one tolerance model of a GPU result against the double-precision reference,
 * used by `igemm check` and the C tests (which link cli/tolerance.o). For output channel kk:
 *   |out - ref| <= rtol * |ref| + atol
 *   rtol = u_out + 2^-20          u_out: one ulp of y's dtype relative to the value
 *                                   (f16 2^-10, bf16 2^-7, f32 2^-23): the final rounding
 *                                   of a value that already differs slightly may flip
 *                                   one ulp; 2^-20 covers the fp32 activation functions
 *   atol = sub_out + gain * (a * 2^-19 * Kg + 2^-22 * (a * Kg + |bias[kk]| + |beta|))
 *       a = |alpha| * |scale[kk]| (scale 1 if absent), Kg = r*s*(c/groups) terms of
 *       magnitude <= 1 (inputs in [-1, 1]): 2^-19 * Kg bounds the fp32 accumulation error
 *       (tensor-core truncation included, ~30x the observed rms), the 2^-22 term the fp32
 *       epilogue arithmetic; gain = max(1.25, |act_param|) bounds the activation's slope (1.5
 *       for hardswish);
 *       sub_out = 2^-24 for f16 (subnormal spacing), else 0.
 * A missing tap, a wrong channel or a wrong epilogue operand gives errors of order |x*w| ~ 0.25
 * or more, far above atol for the shapes checked. Inputs, residual and bias must lie in [-1, 1],
 * scale in [-2, 2] (data_fill of the tests and the CLI).
 */
#ifndef IGEMM_CLI_TOLERANCE_H
#define IGEMM_CLI_TOLERANCE_H

#include <stdint.h>

#include "igemm.h"

/* The tolerance above for output channel kk of d (y's dtype) and e (NULL: identity; scale and bias
 * are read only where e has them) around the exact value ref. */
double tol_conv(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, const float *scale, const float *bias,
                int64_t kk, double ref);

/* Tolerance of |out - other| where `other` is not the exact reference but a second implementation
 * that also accumulates and runs its epilogue in fp32 (the GPU direct path with an f32 y): each
 * side may be atol from the exact value, so the absolute part counts twice:
 * rtol * |ref| + 2 * atol, ref = other's value. */
double tol_conv_vs_fp32(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, const float *scale,
                        const float *bias, int64_t kk, double ref);

/* u_out above: one ulp of dtype dt relative to the value (f16 2^-10, bf16 2^-7, f32 2^-23). */
double tol_out_ulp(igemm_dtype_t dt);

#endif
