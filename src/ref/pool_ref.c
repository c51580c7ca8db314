/*
 * pool_ref.c — the CPU max and average pools (the oracles of src/mem/pool2d.cu). Max: every
 * output element the max of its window's in-image elements, compared as floats (f16/bf16 ->
 * float is exact, so the result is one of the inputs, bit for bit); NaN wins; a window with
 * nothing inside gives -inf. Average: the in-image elements summed in double, divided by the
 * divisor of igemm_pool_divisor (pool.h), rounded once to the dtype; 0 for an empty window.
 */
#include <math.h>
#include <stdint.h>

#include "pool_ref.h"
#include "elem.h"

void igemm_ref_maxpool2d(const igemm_pool_params_t *p, const void *x, void *y)
{
    const uint16_t *xs = (const uint16_t *)x;
    uint16_t *ys = (uint16_t *)y;
    const uint16_t neg_inf = p->dtype == IGEMM_DTYPE_BF16 ? 0xff80u : 0xfc00u;
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t oh = 0; oh < p->p; oh++)
            for (int64_t ow = 0; ow < p->q; ow++)
                for (int64_t c = 0; c < p->c; c++) {
                    uint16_t best = neg_inf;
                    double bv = -INFINITY;
                    int nan = 0;
                    for (int64_t r = 0; r < p->r && !nan; r++) {
                        const int64_t ih = oh * p->stride_h - p->pad_top + r * p->dil_h;
                        if (ih < 0 || ih >= p->h) continue;
                        for (int64_t s = 0; s < p->s; s++) {
                            const int64_t iw = ow * p->stride_w - p->pad_left + s * p->dil_w;
                            if (iw < 0 || iw >= p->w) continue;
                            const size_t i = (size_t)(((n * p->h + ih) * p->w + iw) * p->c + c);
                            const uint16_t v = xs[i];
                            const double f = ref_load_in(x, i, p->dtype);
                            if (isnan(f)) {
                                best = v;
                                nan = 1;
                                break;
                            }
                            if (f > bv) bv = f, best = v;
                        }
                    }
                    ys[((n * p->p + oh) * p->q + ow) * p->c + c] = best;
                }
}

void igemm_ref_avgpool2d(const igemm_pool_params_t *p, int count_include_pad, const void *x, void *y)
{
    for (int64_t n = 0; n < p->n; n++)
        for (int64_t oh = 0; oh < p->p; oh++)
            for (int64_t ow = 0; ow < p->q; ow++) {
                const int64_t div = igemm_pool_divisor(p, count_include_pad, oh, ow);
                for (int64_t c = 0; c < p->c; c++) {
                    double sum = 0;
                    for (int64_t r = 0; r < p->r; r++) {
                        const int64_t ih = oh * p->stride_h - p->pad_top + r * p->dil_h;
                        if (ih < 0 || ih >= p->h) continue;
                        for (int64_t s = 0; s < p->s; s++) {
                            const int64_t iw = ow * p->stride_w - p->pad_left + s * p->dil_w;
                            if (iw < 0 || iw >= p->w) continue;
                            sum += ref_load_in(x, (size_t)(((n * p->h + ih) * p->w + iw) * p->c + c), p->dtype);
                        }
                    }
                    ref_store_out(y, (size_t)(((n * p->p + oh) * p->q + ow) * p->c + c), p->dtype,
                              div > 0 ? sum / (double)div : 0.0);
                }
            }
}
