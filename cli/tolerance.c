/* tolerance.c — see tolerance.h. */
#include "tolerance.h"

#include <math.h>

double tol_conv(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, const float *scale, const float *bias,
                int64_t kk, double ref)
{
    double u_out, sub_out = 0.0;
    switch (d->y_dtype) {
    case IGEMM_DTYPE_F16: u_out = ldexp(1.0, -10); sub_out = ldexp(1.0, -24); break;
    case IGEMM_DTYPE_BF16: u_out = ldexp(1.0, -7); break;
    default: u_out = ldexp(1.0, -23); break;
    }
    const double kgemm = (double)d->r * (double)d->s * (double)(d->c / d->groups);
    double a = e ? fabs((double)e->alpha) : 1.0;
    if (e && e->has_scale && scale) a *= fabs((double)scale[kk]);
    const double b = (e && e->has_bias && bias) ? fabs((double)bias[kk]) : 0.0;
    const double be = (e && e->has_residual) ? fabs((double)e->beta) : 0.0;
    double gain = 1.25;
    if (e && e->activation == IGEMM_ACT_LEAKY_RELU && fabs((double)e->act_param) > gain)
        gain = fabs((double)e->act_param);
    const double atol = sub_out + gain * (a * ldexp(kgemm, -19) + ldexp(a * kgemm + b + be, -22));
    const double rtol = u_out + ldexp(1.0, -20);
    return rtol * fabs(ref) + atol;
}
