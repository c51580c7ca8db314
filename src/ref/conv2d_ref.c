/*
 * conv2d_ref.c — the CPU reference conv2d forward (the test oracle).
 *
 * y[n, p, q, k] = act(alpha * scale[k] * acc + bias[k] + beta * residual[n, p, q, k]) where
 * acc = sum over r, s, c' of x[n, p*stride_h - pad_top + r*dil_h, q*stride_w - pad_left +
 * s*dil_w, g*cg + c'] * w[k, r, s, c'] (g = k / kg; taps outside the input read as zero),
 * computed in double (every f16/bf16 product is exact in double; the sum is rounded once per
 * addition at 53 bits), then rounded to y's dtype (double -> float -> 16-bit, nearest even).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_ref.h"
#include "elem.h"

#include "../common/activation.h"
#include "../error.h"

IGEMM_API double igemm_act_host(int act, double v, double act_param)
{
    IGEMM_ACTIVATION_BODY(double, act, v, act_param, fmax, fmin, erf, tanh, exp)
}

/* Converts n 16-bit elements to float (exact for f16 and bf16). NULL on allocation failure. */
static float *to_float(const void *src, int64_t n, igemm_dtype_t dt)
{
    if (n <= 0 || (uint64_t)n > (uint64_t)(SIZE_MAX / sizeof(float))) return NULL;
    float *out = (float *)malloc((size_t)n * sizeof(float));
    if (!out) return NULL;
    const uint16_t *s = (const uint16_t *)src;
    if (dt == IGEMM_DTYPE_F16) {
        for (int64_t i = 0; i < n; i++) out[i] = igemm_f16_to_float(s[i]);
    } else {
        for (int64_t i = 0; i < n; i++) out[i] = igemm_bf16_to_float(s[i]);
    }
    return out;
}

/* Output channels computed together: independent accumulators share each x load. */
#define KB 4

/* The operand pointers p's flags require. */
static igemm_status_t check_operands(const igemm_conv_params_t *p, const void *x, const void *w, const float *scale,
                                     const float *bias, const void *residual)
{
    if (!x) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "x = NULL: input tensor pointer is required");
    if (!w) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "w = NULL: filter tensor pointer is required");
    if (p->has_scale && !scale)
        return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "scale = NULL: required because has_scale = 1");
    if (p->has_bias && !bias)
        return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "bias = NULL: required because has_bias = 1");
    if (p->has_residual && !residual)
        return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "residual = NULL: required because has_residual = 1");
    return IGEMM_STATUS_SUCCESS;
}

/* The epilogue of one element: acc the exact conv sum of output channel kk, yi its flat index. */
static double epilogue(const igemm_conv_params_t *p, double acc, int64_t kk, int64_t yi, const float *scale,
                       const float *bias, const void *residual)
{
    double v = (double)p->alpha * acc;
    if (p->has_scale) v *= (double)scale[kk];
    if (p->has_bias) v += (double)bias[kk];
    if (p->has_residual) v += (double)p->beta * ref_load_out(residual, (size_t)yi, p->out_dtype);
    return igemm_act_host(p->act, v, (double)p->act_param);
}

igemm_status_t igemm_ref_conv2d_elems(const igemm_conv_params_t *p, const void *x, const void *w, const float *scale,
                                      const float *bias, const void *residual, const int64_t *idx, int64_t count,
                                      double *out)
{
    igemm_status_t st = check_operands(p, x, w, scale, bias, residual);
    if (st) return st;
    if (count < 0) return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "count = %lld: must be >= 0", (long long)count);
    if (count > 0 && (!idx || !out))
        return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "%s = NULL: required when count > 0", !idx ? "idx" : "out");
    const int64_t total = p->gemm_m * p->k;
    for (int64_t i = 0; i < count; i++) {
        const int64_t yi = idx[i];
        if (yi < 0 || yi >= total)
            return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "idx[%lld] = %lld: must be in [0, %lld) (n*p*q*k)",
                                   (long long)i, (long long)yi, (long long)total);
        const int64_t kk = yi % p->k, m = yi / p->k;
        const int64_t nn = m / (p->p * p->q), rem = m % (p->p * p->q), pp = rem / p->q, qq = rem % p->q;
        const int64_t g = kk / p->kg;
        double acc = 0.0;
        for (int64_t r = 0; r < p->r; r++) {
            const int64_t ih = pp * p->stride_h - p->pad_top + r * p->dil_h;
            if (ih < 0 || ih >= p->h) continue;
            for (int64_t s = 0; s < p->s; s++) {
                const int64_t iw = qq * p->stride_w - p->pad_left + s * p->dil_w;
                if (iw < 0 || iw >= p->w) continue;
                const size_t xb = (size_t)(((nn * p->h + ih) * p->w + iw) * p->c + g * p->cg);
                const size_t wb = (size_t)(((kk * p->r + r) * p->s + s) * p->cg);
                for (int64_t ci = 0; ci < p->cg; ci++)
                    acc += ref_load_in(x, xb + (size_t)ci, p->in_dtype) * ref_load_in(w, wb + (size_t)ci, p->in_dtype);
            }
        }
        out[i] = epilogue(p, acc, kk, yi, scale, bias, residual);
    }
    return IGEMM_STATUS_SUCCESS;
}

igemm_status_t igemm_ref_conv2d(const igemm_conv_params_t *prm_in, const void *x, const void *w, const float *scale,
                                const float *bias, const void *residual, void *y)
{
    const igemm_conv_params_t prm = *prm_in;
    igemm_status_t st = check_operands(&prm, x, w, scale, bias, residual);
    if (st) return st;
    if (!y) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "y = NULL: output tensor pointer is required");

    /* validated above: every product below fits in int64 */
    const int64_t P = prm.p, Q = prm.q;
    const int64_t x_elems = prm.n * prm.h * prm.w * prm.c;
    const int64_t w_elems = prm.k * prm.r * prm.s * prm.cg;

    const int64_t N = prm.n, H = prm.h, W = prm.w, C = prm.c, K = prm.k;
    const int64_t R = prm.r, S = prm.s, G = prm.groups;
    const int64_t cg = C / G, kg = K / G;
    const igemm_dtype_t in_dt = prm.in_dtype, out_dt = prm.out_dtype;

    float *xf = to_float(x, x_elems, in_dt);
    float *wf = to_float(w, w_elems, in_dt);
    /* per (r, s): input row/col offsets for one output pixel, valid-tap lists */
    const float **xrow = (const float **)malloc((size_t)(R * S) * sizeof(*xrow));
    int64_t *woff = (int64_t *)malloc((size_t)(R * S) * sizeof(*woff));
    if (!xf || !wf || !xrow || !woff) {
        free(xf);
        free(wf);
        free(xrow);
        free(woff);
        return igemm_set_error(IGEMM_STATUS_OUT_OF_MEMORY,
                               "reference: host allocation of %lld + %lld floats failed",
                               (long long)x_elems, (long long)w_elems);
    }

    for (int64_t n = 0; n < N; n++) {
        for (int64_t p = 0; p < P; p++) {
            for (int64_t q = 0; q < Q; q++) {
                /* valid taps of this output pixel */
                int64_t ntap = 0;
                for (int64_t r = 0; r < R; r++) {
                    int64_t ih = p * prm.stride_h - prm.pad_top + r * prm.dil_h;
                    if (ih < 0 || ih >= H) continue;
                    for (int64_t s = 0; s < S; s++) {
                        int64_t iw = q * prm.stride_w - prm.pad_left + s * prm.dil_w;
                        if (iw < 0 || iw >= W) continue;
                        xrow[ntap] = xf + ((n * H + ih) * W + iw) * C;
                        woff[ntap] = (r * S + s) * cg;
                        ntap++;
                    }
                }
                const int64_t ybase = ((n * P + p) * Q + q) * K;
                for (int64_t g = 0; g < G; g++) {
                    for (int64_t k0 = 0; k0 < kg; k0 += KB) {
                        const int64_t kn = kg - k0 < KB ? kg - k0 : KB;
                        double acc[KB] = {0.0, 0.0, 0.0, 0.0};
                        const float *wk[KB];
                        for (int j = 0; j < KB; j++) {
                            int64_t kk = g * kg + k0 + (j < kn ? j : 0);
                            wk[j] = wf + kk * R * S * cg;
                        }
                        for (int64_t t = 0; t < ntap; t++) {
                            const float *xp = xrow[t] + g * cg;
                            const float *w0 = wk[0] + woff[t], *w1 = wk[1] + woff[t];
                            const float *w2 = wk[2] + woff[t], *w3 = wk[3] + woff[t];
                            double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
                            for (int64_t ci = 0; ci < cg; ci++) {
                                double xv = (double)xp[ci];
                                a0 += xv * (double)w0[ci];
                                a1 += xv * (double)w1[ci];
                                a2 += xv * (double)w2[ci];
                                a3 += xv * (double)w3[ci];
                            }
                            acc[0] += a0;
                            acc[1] += a1;
                            acc[2] += a2;
                            acc[3] += a3;
                        }
                        for (int64_t j = 0; j < kn; j++) {
                            const int64_t kk = g * kg + k0 + j;
                            const int64_t yi = ybase + kk;
                            ref_store_out(y, (size_t)yi, out_dt, epilogue(&prm, acc[j], kk, yi, scale, bias, residual));
                        }
                    }
                }
            }
        }
    }
    free(xf);
    free(wf);
    free(xrow);
    free(woff);
    return IGEMM_STATUS_SUCCESS;
}
