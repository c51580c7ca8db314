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

#include "../internal.h"

IGEMM_API double igemm_act_host(int act, double v, double act_param)
{
    switch (act) {
    case IGEMM_ACT_RELU: return fmax(v, 0.0);
    case IGEMM_ACT_RELU6: return fmin(fmax(v, 0.0), 6.0);
    case IGEMM_ACT_LEAKY_RELU: return v > 0.0 ? v : v * act_param;
    case IGEMM_ACT_GELU_ERF: return 0.5 * v * (1.0 + erf(v * 0.70710678118654752440));
    case IGEMM_ACT_GELU_TANH: {
        double u = 0.79788456080286535588 * (v + 0.044715 * v * v * v);
        return 0.5 * v * (1.0 + tanh(u));
    }
    case IGEMM_ACT_SILU: return v / (1.0 + exp(-v));
    case IGEMM_ACT_SIGMOID: return 1.0 / (1.0 + exp(-v));
    case IGEMM_ACT_TANH: return tanh(v);
    default: return v;
    }
}

static double load_in(const void *base, size_t i, igemm_dtype_t dt)
{
    uint16_t h = ((const uint16_t *)base)[i];
    return dt == IGEMM_DTYPE_F16 ? (double)igemm_f16_to_float(h) : (double)igemm_bf16_to_float(h);
}

static double load_out(const void *base, size_t i, igemm_dtype_t dt)
{
    if (dt == IGEMM_DTYPE_F32) return (double)((const float *)base)[i];
    return load_in(base, i, dt);
}

static void store_out(void *base, size_t i, igemm_dtype_t dt, double v)
{
    float f = (float)v;
    if (dt == IGEMM_DTYPE_F32) ((float *)base)[i] = f;
    else if (dt == IGEMM_DTYPE_F16) ((uint16_t *)base)[i] = igemm_float_to_f16(f);
    else ((uint16_t *)base)[i] = igemm_float_to_bf16(f);
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

IGEMM_API igemm_status_t igemm_conv2d_reference(const igemm_conv2d_desc_t *desc,
                                                const igemm_epilogue_t *epi, const void *x,
                                                const void *w, const float *scale,
                                                const float *bias, const void *residual,
                                                void *y)
{
    igemm_status_t st = igemm_conv2d_validate(desc);
    if (st != IGEMM_STATUS_SUCCESS) return st;
    igemm_conv_params_t prm;
    st = igemm_internal_params(desc, epi, &prm);
    if (st != IGEMM_STATUS_SUCCESS) return st;
    igemm_epilogue_t e = epi ? *epi : igemm_epilogue_default();

    if (!x) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "x = NULL: input tensor pointer is required");
    if (!w) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "w = NULL: filter tensor pointer is required");
    if (!y) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "y = NULL: output tensor pointer is required");
    if (e.has_scale && !scale)
        return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "scale = NULL: required because has_scale = 1");
    if (e.has_bias && !bias)
        return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "bias = NULL: required because has_bias = 1");
    if (e.has_residual && !residual)
        return igemm_set_error(IGEMM_STATUS_NULL_POINTER,
                               "residual = NULL: required because has_residual = 1");

    /* validated above: every product below fits in int64 */
    const int64_t P = prm.p, Q = prm.q;
    const int64_t x_elems = prm.n * prm.h * prm.w * prm.c;
    const int64_t w_elems = prm.k * prm.r * prm.s * prm.cg;

    const int64_t N = desc->n, H = desc->h, W = desc->w, C = desc->c, K = desc->k;
    const int64_t R = desc->r, S = desc->s, G = desc->groups;
    const int64_t cg = C / G, kg = K / G;
    const igemm_dtype_t in_dt = desc->x_dtype, out_dt = desc->y_dtype;

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

    const double alpha = (double)e.alpha, beta = (double)e.beta, ap = (double)e.act_param;
    for (int64_t n = 0; n < N; n++) {
        for (int64_t p = 0; p < P; p++) {
            for (int64_t q = 0; q < Q; q++) {
                /* valid taps of this output pixel */
                int64_t ntap = 0;
                for (int64_t r = 0; r < R; r++) {
                    int64_t ih = p * desc->stride_h - desc->pad_top + r * desc->dil_h;
                    if (ih < 0 || ih >= H) continue;
                    for (int64_t s = 0; s < S; s++) {
                        int64_t iw = q * desc->stride_w - desc->pad_left + s * desc->dil_w;
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
                            double v = alpha * acc[j];
                            if (e.has_scale) v *= (double)scale[kk];
                            if (e.has_bias) v += (double)bias[kk];
                            if (e.has_residual) v += beta * load_out(residual, (size_t)yi, out_dt);
                            v = igemm_act_host((int)e.activation, v, ap);
                            store_out(y, (size_t)yi, out_dt, v);
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
