/*
 * gemm_ref.c — the CPU reference GEMM (the oracle of the GEMM kernels).
 *
 * D[b, m, n] = act(alpha * scale[n] * acc + bias[n] + beta * C[b, m, n]) with acc = sum_k
 * A[b, m, k] * B[b, k, n] in double (every f16/bf16 product is exact in double), rounded to D's
 * dtype at the end (double -> float -> 16-bit, nearest even), as the conv reference does. Per
 * batch, B is converted once to a packed N x K double copy so each D element is a dot product
 * of two contiguous rows.
 */
#include <stdlib.h>
#include <string.h>

#include "gemm_ref.h"
#include "elem.h"

#include "../error.h"
#include "conv2d_ref.h" /* igemm_act_host */

igemm_status_t igemm_ref_gemm(const igemm_gemm_params_t *p, const void *a, const void *b, const float *scale,
                              const float *bias, const void *c, void *d)
{
    if (!a || !b || !d) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "a, b and d must not be NULL");
    if (p->has_scale && !scale) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "epilogue.has_scale = 1 but scale is NULL");
    if (p->has_bias && !bias) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "epilogue.has_bias = 1 but bias is NULL");
    if (p->has_residual && !c)
        return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "epilogue.has_residual = 1 but c is NULL");
    const int64_t m = p->m, n = p->n, k = p->k;
    if ((uint64_t)n > (uint64_t)(SIZE_MAX / sizeof(double)) / (uint64_t)k ||
        (uint64_t)k > (uint64_t)(SIZE_MAX / sizeof(double)))
        return igemm_set_error(IGEMM_STATUS_OUT_OF_MEMORY, "reference: n * k = %lld * %lld doubles do not fit memory",
                               (long long)n, (long long)k);
    double *bt = (double *)malloc((size_t)n * (size_t)k * sizeof(double)); /* B[n][k] */
    double *ar = (double *)malloc((size_t)k * sizeof(double));              /* one row of A */
    if (!bt || !ar) {
        free(bt);
        free(ar);
        return igemm_set_error(IGEMM_STATUS_OUT_OF_MEMORY, "reference: %lld bytes for the packed B",
                               (long long)(n * k * (int64_t)sizeof(double)));
    }
    for (int64_t bi = 0; bi < p->batch; bi++) {
        const int64_t ob = bi * p->stride_b;
        if (bi == 0 || p->stride_b != 0) {
            for (int64_t j = 0; j < n; j++)
                for (int64_t t = 0; t < k; t++)
                    bt[j * k + t] = ref_load_in(b, (size_t)(ob + (p->b_kn ? t * p->ldb + j : j * p->ldb + t)), p->in_dtype);
        }
        for (int64_t i = 0; i < m; i++) {
            const int64_t oa = bi * p->stride_a + i * p->lda;
            for (int64_t t = 0; t < k; t++) ar[t] = ref_load_in(a, (size_t)(oa + t), p->in_dtype);
            for (int64_t j = 0; j < n; j++) {
                const double *br = bt + j * k;
                double acc = 0.0;
                for (int64_t t = 0; t < k; t++) acc += ar[t] * br[t];
                const int64_t od = bi * p->stride_d + i * p->ldd + j;
                double v = (double)p->alpha * (p->has_scale ? (double)scale[j] : 1.0) * acc;
                if (p->has_bias) v += (double)bias[j];
                if (p->has_residual) v += (double)p->beta * ref_load_out(c, (size_t)od, p->out_dtype);
                ref_store_out(d, (size_t)od, p->out_dtype, igemm_act_host(p->act, v, (double)p->act_param));
            }
        }
    }
    free(bt);
    free(ar);
    return IGEMM_STATUS_SUCCESS;
}
