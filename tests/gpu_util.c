/* gpu_util.c — see gpu_util.h. */
#include "gpu_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef IGEMM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

uint64_t trng_next(trng_t *g)
{
    uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double trng_uniform(trng_t *g, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(trng_next(g) >> 11) * (1.0 / 9007199254740992.0));
}

int64_t trng_int(trng_t *g, int64_t lo, int64_t hi)
{
    if (hi <= lo) return lo;
    return lo + (int64_t)(trng_next(g) % (uint64_t)(hi - lo + 1));
}

int64_t trng_pick(trng_t *g, const int64_t *list, int n) { return list[trng_int(g, 0, n - 1)]; }

uint64_t test_seed(uint64_t def)
{
    const char *s = getenv("IGEMM_TEST_SEED");
    if (s && *s) return strtoull(s, NULL, 0);
    return def;
}

size_t dtype_bytes(igemm_dtype_t dt) { return dt == IGEMM_DTYPE_F32 ? 4 : 2; }

const char *dtype_str(igemm_dtype_t dt)
{
    switch (dt) {
    case IGEMM_DTYPE_F16: return "f16";
    case IGEMM_DTYPE_BF16: return "bf16";
    case IGEMM_DTYPE_F32: return "f32";
    }
    return "?";
}

double elem_get(const void *base, int64_t i, igemm_dtype_t dt)
{
    if (dt == IGEMM_DTYPE_F32) return (double)((const float *)base)[i];
    uint16_t h = ((const uint16_t *)base)[i];
    return dt == IGEMM_DTYPE_F16 ? (double)igemm_f16_to_float(h) : (double)igemm_bf16_to_float(h);
}

void elem_set(void *base, int64_t i, igemm_dtype_t dt, double v)
{
    float f = (float)v;
    if (dt == IGEMM_DTYPE_F32) ((float *)base)[i] = f;
    else if (dt == IGEMM_DTYPE_F16) ((uint16_t *)base)[i] = igemm_float_to_f16(f);
    else ((uint16_t *)base)[i] = igemm_float_to_bf16(f);
}

void fill_random(void *dst, int64_t n, igemm_dtype_t dt, double lo, double hi, trng_t *g)
{
    for (int64_t i = 0; i < n; i++) {
        double v;
        do {
            elem_set(dst, i, dt, trng_uniform(g, lo, hi));
            v = elem_get(dst, i, dt);
        } while (v == 0.0);
    }
}

static const char *act_str(int a)
{
    static const char *names[] = {"none", "relu", "relu6", "leaky", "gelu_erf",
                                  "gelu_tanh", "silu", "sigmoid", "tanh"};
    return a >= 0 && a <= 8 ? names[a] : "?";
}

void conv_desc_str(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, char *buf, size_t n)
{
    int len = snprintf(buf, n,
                       "n%lld h%lld w%lld c%lld k%lld r%lld s%lld g%lld pad(t%lld,b%lld,l%lld,r%lld) "
                       "str(%lld,%lld) dil(%lld,%lld) %s->%s",
                       (long long)d->n, (long long)d->h, (long long)d->w, (long long)d->c,
                       (long long)d->k, (long long)d->r, (long long)d->s, (long long)d->groups,
                       (long long)d->pad_top, (long long)d->pad_bottom, (long long)d->pad_left,
                       (long long)d->pad_right, (long long)d->stride_h, (long long)d->stride_w,
                       (long long)d->dil_h, (long long)d->dil_w, dtype_str(d->x_dtype),
                       dtype_str(d->y_dtype));
    if (e && len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, " | alpha %g beta %g act %s(%g)%s%s%s", (double)e->alpha,
                 (double)e->beta, act_str((int)e->activation), (double)e->act_param,
                 e->has_scale ? " scale" : "", e->has_bias ? " bias" : "",
                 e->has_residual ? " residual" : "");
}

double conv_tol(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, const float *scale,
                const float *bias, int64_t kk, double ref)
{
    double u_out, sub_out = 0.0;
    switch (d->y_dtype) {
    case IGEMM_DTYPE_F16: u_out = ldexp(1.0, -10); sub_out = ldexp(1.0, -24); break;
    case IGEMM_DTYPE_BF16: u_out = ldexp(1.0, -7); break;
    default: u_out = ldexp(1.0, -23); break;
    }
    double kgemm = (double)d->r * (double)d->s * (double)(d->c / d->groups);
    double a = e ? fabs((double)e->alpha) : 1.0;
    if (e && e->has_scale && scale) a *= fabs((double)scale[kk]);
    double b = (e && e->has_bias && bias) ? fabs((double)bias[kk]) : 0.0;
    double be = (e && e->has_residual) ? fabs((double)e->beta) : 0.0;
    double gain = 1.25;
    if (e && e->activation == IGEMM_ACT_LEAKY_RELU && fabs((double)e->act_param) > gain)
        gain = fabs((double)e->act_param);
    double atol = sub_out + gain * (a * ldexp(kgemm, -19) + ldexp(a * kgemm + b + be, -22));
    double rtol = u_out + ldexp(1.0, -20);
    return rtol * fabs(ref) + atol;
}

#ifdef IGEMM_HAVE_CUDA
int dbuf_alloc(dbuf_t *b, size_t bytes, size_t guard, unsigned char guard_byte)
{
    memset(b, 0, sizeof *b);
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, bytes + 2 * guard);
    if (e != cudaSuccess) {
        fprintf(stdout, "  cudaMalloc(%zu) failed: %s\n", bytes + 2 * guard, cudaGetErrorString(e));
        (void)cudaGetLastError();
        return -1;
    }
    b->base = (unsigned char *)p;
    b->ptr = b->base + guard;
    b->bytes = bytes;
    b->guard = guard;
    b->guard_byte = guard_byte;
    if (guard) {
        if (cudaMemset(b->base, guard_byte, guard) != cudaSuccess ||
            cudaMemset(b->base + guard + bytes, guard_byte, guard) != cudaSuccess) {
            fprintf(stdout, "  cudaMemset of guards failed\n");
            return -1;
        }
    }
    return 0;
}

int dbuf_upload(dbuf_t *b, const void *host, size_t bytes)
{
    cudaError_t e = cudaMemcpy(b->ptr, host, bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        fprintf(stdout, "  cudaMemcpy H2D failed: %s\n", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

int dbuf_download(const dbuf_t *b, void *host, size_t bytes)
{
    cudaError_t e = cudaMemcpy(host, b->ptr, bytes, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        fprintf(stdout, "  cudaMemcpy D2H failed: %s\n", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

int dbuf_poison(dbuf_t *b, unsigned char byte)
{
    cudaError_t e = cudaMemset(b->ptr, byte, b->bytes);
    if (e != cudaSuccess) {
        fprintf(stdout, "  cudaMemset failed: %s\n", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

int64_t dbuf_guard_damage(const dbuf_t *b)
{
    if (b->guard == 0) return 0;
    unsigned char *h = (unsigned char *)malloc(b->guard);
    int64_t bad = 0;
    if (!h) return -1;
    for (int side = 0; side < 2; side++) {
        const unsigned char *src = side == 0 ? b->base : b->base + b->guard + b->bytes;
        if (cudaMemcpy(h, src, b->guard, cudaMemcpyDeviceToHost) != cudaSuccess) {
            free(h);
            return -1;
        }
        for (size_t i = 0; i < b->guard; i++) bad += h[i] != b->guard_byte;
    }
    free(h);
    return bad;
}

void dbuf_free(dbuf_t *b)
{
    if (b->base) cudaFree(b->base);
    memset(b, 0, sizeof *b);
}
#endif
