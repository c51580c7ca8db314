/* gpu_util.c — see gpu_util.h. */
#include "gpu_util.h"

#include "data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef IGEMM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

uint64_t test_seed(uint64_t def)
{
    const char *s = getenv("IGEMM_TEST_SEED");
    if (s && *s) return strtoull(s, NULL, 0);
    return def;
}

static const char *act_str(int a)
{
    static const char *names[] = {"none", "relu", "relu6", "leaky", "gelu_erf", "gelu_tanh",
                                  "silu", "sigmoid", "tanh", "hardswish", "hardsigmoid"};
    return a >= 0 && a <= 10 ? names[a] : "?";
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
                       (long long)d->dil_h, (long long)d->dil_w, data_dtype_name(d->x_dtype),
                       data_dtype_name(d->y_dtype));
    if (e && len > 0 && (size_t)len < n)
        snprintf(buf + len, n - (size_t)len, " | alpha %g beta %g act %s(%g)%s%s%s", (double)e->alpha,
                 (double)e->beta, act_str((int)e->activation), (double)e->act_param,
                 e->has_scale ? " scale" : "", e->has_bias ? " bias" : "",
                 e->has_residual ? " residual" : "");
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
