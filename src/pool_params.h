/*
 * pool_params.h — the validated pooling problem (igemm_pool2d_desc_t with P, Q and the element
 * counts, filled by pool.c's igemm_pool_problem_init) and the average pool's divisor: what the
 * reference (src/ref/pool_ref.c) and the kernels (src/mem/pool2d.cu) run on. Header only.
 */
#ifndef IGEMM_POOL_PARAMS_H
#define IGEMM_POOL_PARAMS_H

#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct igemm_pool_params {
    int64_t n, h, w, c, r, s, p, q;
    int64_t pad_top, pad_left, stride_h, stride_w, dil_h, dil_w;
    int64_t pad_bottom, pad_right;
    int64_t x_elems, y_elems;
    igemm_dtype_t dtype;
} igemm_pool_params_t;

/* The divisor of output (oh, ow)'s window (igemm_avgpool2d): its taps inside the padded input
 * (count_include_pad) or inside x; 0 when none (the caller writes 0). Host code (the reference;
 * the kernel computes the same per output). */
static inline int64_t igemm_pool_divisor(const igemm_pool_params_t *p, int count_include_pad, int64_t oh, int64_t ow)
{
    const int64_t lo_h = count_include_pad ? -p->pad_top : 0, hi_h = count_include_pad ? p->h + p->pad_bottom : p->h;
    const int64_t lo_w = count_include_pad ? -p->pad_left : 0, hi_w = count_include_pad ? p->w + p->pad_right : p->w;
    int64_t rows = 0, cols = 0;
    for (int64_t r = 0; r < p->r; r++) {
        const int64_t ih = oh * p->stride_h - p->pad_top + r * p->dil_h;
        rows += ih >= lo_h && ih < hi_h;
    }
    for (int64_t s = 0; s < p->s; s++) {
        const int64_t iw = ow * p->stride_w - p->pad_left + s * p->dil_w;
        cols += iw >= lo_w && iw < hi_w;
    }
    return rows * cols;
}

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_POOL_PARAMS_H */
