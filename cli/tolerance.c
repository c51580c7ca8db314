/* tolerance.c — see tolerance.h. */
#include "tolerance.h"

#include <math.h>

double tol_out_ulp(igemm_dtype_t dt)
{
    switch (dt) {
    case IGEMM_DTYPE_F16: return ldexp(1.0, -10);
    case IGEMM_DTYPE_BF16: return ldexp(1.0, -7);
    default: return ldexp(1.0, -23);
    }
}

/* The two parts of the model in tolerance.h for output channel kk: *rtol (relative to |ref|) and
 * *atol (absolute). */
static void tol_parts(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, const float *scale, const float *bias,
                      int64_t kk, double *rtol, double *atol)
{
    const double sub_out = d->y_dtype == IGEMM_DTYPE_F16 ? ldexp(1.0, -24) : 0.0;
    const double kgemm = (double)d->r * (double)d->s * (double)(d->c / d->groups);
    double a = e ? fabs((double)e->alpha) : 1.0;
    if (e && e->has_scale && scale) a *= fabs((double)scale[kk]);
    const double b = (e && e->has_bias && bias) ? fabs((double)bias[kk]) : 0.0;
    const double be = (e && e->has_residual) ? fabs((double)e->beta) : 0.0;
    double gain = 1.25;
    if (e && e->activation == IGEMM_ACT_LEAKY_RELU && fabs((double)e->act_param) > gain)
        gain = fabs((double)e->act_param);
    if (e && e->activation == IGEMM_ACT_HARDSWISH) gain = 1.5; /* slope (2x + 3) / 6 <= 1.5 */
    *atol = sub_out + gain * (a * ldexp(kgemm, -19) + ldexp(a * kgemm + b + be, -22));
    *rtol = tol_out_ulp(d->y_dtype) + ldexp(1.0, -20);
}

double tol_conv(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, const float *scale, const float *bias,
                int64_t kk, double ref)
{
    double rtol, atol;
    tol_parts(d, e, scale, bias, kk, &rtol, &atol);
    return rtol * fabs(ref) + atol;
}

double tol_conv_vs_fp32(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, const float *scale,
                        const float *bias, int64_t kk, double ref)
{
    double rtol, atol;
    tol_parts(d, e, scale, bias, kk, &rtol, &atol);
    /* Both sides accumulate in fp32 (in different orders) and run an fp32 epilogue, so each may be
     * atol away from the exact value: |ours - other| <= |ours - exact| + |other - exact|. The
     * relative part (the final rounding to y's dtype) is ours alone: the other side's fp32 output
     * rounds at 2^-23, inside rtol's 2^-20. */
    return rtol * fabs(ref) + 2.0 * atol;
}
