/*
 * gemm_problem.c — validation of a GEMM descriptor (every field, with the value in the message)
 * and its overflow-safe extents: the highest element index of A, B and D a problem touches,
 * (batch - 1) * batch_stride + (rows - 1) * ld + cols, each product and sum checked.
 */
#include "gemm_problem.h"

#include <stdint.h>
#include <string.h>

#include "error.h"


/* (batch - 1) * stride + (rows - 1) * ld + cols, and the same in bytes, checked. */
static igemm_status_t extent(const char *what, int64_t batch, int64_t stride, int64_t rows, int64_t ld,
                             int64_t cols, size_t elem_bytes, int64_t *out)
{
    int64_t a, b, e, bytes;
    if (!igemm_mul_ok(batch - 1, stride, &a) || !igemm_mul_ok(rows - 1, ld, &b) || !igemm_add_ok(a, b, &e) ||
        !igemm_add_ok(e, cols, &e) || !igemm_mul_ok(e, (int64_t)elem_bytes, &bytes))
        return igemm_set_error(IGEMM_STATUS_OVERFLOW,
                               "%s: (batch - 1) * batch_stride + (rows - 1) * ld + cols = (%lld - 1) * %lld + "
                               "(%lld - 1) * %lld + %lld elements does not fit in 64 bits",
                               what, (long long)batch, (long long)stride, (long long)rows, (long long)ld,
                               (long long)cols);
    *out = e;
    return IGEMM_STATUS_SUCCESS;
}

#define AT_LEAST(field, lo, why)                                                                              \
    do {                                                                                                      \
        if (d->field < (lo))                                                                                  \
            return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "gemm." #field " = %lld: must be >= %lld%s",   \
                                   (long long)d->field, (long long)(lo), why);                                \
    } while (0)

igemm_status_t igemm_gemm_problem_init(const igemm_gemm_desc_t *d, const igemm_epilogue_t *epi,
                                       igemm_gemm_params_t *params)
{
    if (!d) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "desc is NULL");
    AT_LEAST(m, 1, "");
    AT_LEAST(n, 1, "");
    AT_LEAST(k, 1, "");
    AT_LEAST(batch, 1, "");
    if ((int)d->b_layout != IGEMM_B_NK && (int)d->b_layout != IGEMM_B_KN)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,
                               "gemm.b_layout = %d: expected IGEMM_B_NK (0) or IGEMM_B_KN (1)", (int)d->b_layout);
    if (d->a_dtype != IGEMM_DTYPE_F16 && d->a_dtype != IGEMM_DTYPE_BF16)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "gemm.a_dtype = %d: expected F16 (0) or BF16 (1)",
                               (int)d->a_dtype);
    if (d->b_dtype != d->a_dtype)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "gemm.b_dtype = %d: must equal a_dtype = %d",
                               (int)d->b_dtype, (int)d->a_dtype);
    if (d->d_dtype != IGEMM_DTYPE_F16 && d->d_dtype != IGEMM_DTYPE_BF16 && d->d_dtype != IGEMM_DTYPE_F32)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "gemm.d_dtype = %d: expected F16 (0), BF16 (1) or F32 (2)",
                               (int)d->d_dtype);
    const int kn = d->b_layout == IGEMM_B_KN;
    AT_LEAST(lda, d->k, " (= k: A is M x K, row-major)");
    if (kn) AT_LEAST(ldb, d->n, " (= n: B is K x N with b_layout = IGEMM_B_KN)");
    else AT_LEAST(ldb, d->k, " (= k: B is N x K with b_layout = IGEMM_B_NK)");
    AT_LEAST(ldd, d->n, " (= n: D is M x N, row-major)");
    AT_LEAST(batch_stride_a, 0, " (0 broadcasts A over the batch)");
    AT_LEAST(batch_stride_b, 0, " (0 broadcasts B over the batch)");
    AT_LEAST(batch_stride_d, 0, "");
    igemm_gemm_params_t p;
    memset(&p, 0, sizeof p);
    igemm_status_t st;
    const size_t in_b = igemm_dtype_size(d->a_dtype), out_b = igemm_dtype_size(d->d_dtype);
    if ((st = extent("A", d->batch, d->batch_stride_a, d->m, d->lda, d->k, in_b, &p.a_elems))) return st;
    if ((st = extent("B", d->batch, d->batch_stride_b, kn ? d->k : d->n, d->ldb, kn ? d->n : d->k, in_b,
                     &p.b_elems)))
        return st;
    if ((st = extent("D", d->batch, d->batch_stride_d, d->m, d->ldd, d->n, out_b, &p.d_elems))) return st;
    if (d->batch > 1) {
        const int64_t one = (d->m - 1) * d->ldd + d->n; /* no overflow: bounded by d_elems */
        if (d->batch_stride_d < one)
            return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,
                                   "gemm.batch_stride_d = %lld: must be >= (m - 1) * ldd + n = %lld with batch = %lld "
                                   "(the batch's D matrices must not overlap)",
                                   (long long)d->batch_stride_d, (long long)one, (long long)d->batch);
    }
    igemm_epilogue_t e = igemm_problem_epilogue_default();
    if (epi) {
        if ((st = igemm_problem_validate_epilogue(epi))) return st;
        e = *epi;
    }
    if (!params) return IGEMM_STATUS_SUCCESS;
    p.m = d->m; p.n = d->n; p.k = d->k; p.batch = d->batch;
    p.b_kn = kn;
    p.lda = d->lda; p.ldb = d->ldb; p.ldd = d->ldd;
    p.stride_a = d->batch_stride_a; p.stride_b = d->batch_stride_b; p.stride_d = d->batch_stride_d;
    p.in_dtype = d->a_dtype;
    p.out_dtype = d->d_dtype;
    p.alpha = e.alpha; p.beta = e.beta; p.act_param = e.act_param;
    p.act = (int)e.activation;
    p.has_scale = e.has_scale; p.has_bias = e.has_bias; p.has_residual = e.has_residual;
    *params = p;
    return IGEMM_STATUS_SUCCESS;
}

int igemm_gemm_conv_mapping(const igemm_gemm_params_t *g, igemm_conv2d_desc_t *conv, int64_t *launches,
                            int64_t step[3], const char **why)
{
    if (g->b_kn) {
        *why = "b_layout = IGEMM_B_KN (K x N): the conv engine reads B as an N x K filter (pass B N x K, "
               "e.g. nn.Linear.weight, with IGEMM_B_NK)";
        return 0;
    }
    if (g->lda != g->k || g->ldb != g->k || g->ldd != g->n) {
        *why = "leading dimensions other than packed rows (lda = k, ldb = k, ldd = n): the conv engine reads "
               "packed NHWC / KRSC tensors";
        return 0;
    }
    const size_t in_b = igemm_dtype_size(g->in_dtype), out_b = igemm_dtype_size(g->out_dtype);
    int64_t rows = g->m, n_launch = g->batch;
    if (g->batch == 1) {
        n_launch = 1;
    } else if (g->stride_b == 0 && g->stride_a == g->m * g->k && g->stride_d == g->m * g->n) {
        rows = g->batch * g->m; /* fits: bounded by the validated extents of A and D */
        n_launch = 1;
    }
    memset(conv, 0, sizeof *conv);
    conv->n = 1, conv->h = 1, conv->w = rows, conv->c = g->k, conv->k = g->n, conv->r = 1, conv->s = 1;
    conv->groups = 1;
    conv->stride_h = conv->stride_w = conv->dil_h = conv->dil_w = 1;
    conv->x_dtype = conv->w_dtype = g->in_dtype;
    conv->y_dtype = g->out_dtype;
    *launches = n_launch;
    step[0] = n_launch > 1 ? g->stride_a * (int64_t)in_b : 0;
    step[1] = n_launch > 1 ? g->stride_b * (int64_t)in_b : 0;
    step[2] = n_launch > 1 ? g->stride_d * (int64_t)out_b : 0;
    *why = NULL;
    return 1;
}

igemm_gemm_desc_t igemm_gemm_problem_packed(int64_t m, int64_t n, int64_t k, int64_t batch, int b_layout,
                                            igemm_dtype_t in_dtype, igemm_dtype_t out_dtype)
{
    igemm_gemm_desc_t d;
    memset(&d, 0, sizeof d);
    d.m = m; d.n = n; d.k = k; d.batch = batch;
    d.b_layout = (igemm_b_layout_t)b_layout;
    d.lda = k;
    d.ldb = b_layout == IGEMM_B_KN ? n : k;
    d.ldd = n;
    /* an overflowing product saturates; validation then reports the extent as OVERFLOW */
    if (!igemm_mul_ok(m, k, &d.batch_stride_a)) d.batch_stride_a = INT64_MAX;
    if (!igemm_mul_ok(n, k, &d.batch_stride_b)) d.batch_stride_b = INT64_MAX;
    if (!igemm_mul_ok(m, n, &d.batch_stride_d)) d.batch_stride_d = INT64_MAX;
    d.a_dtype = d.b_dtype = in_dtype;
    d.d_dtype = out_dtype;
    return d;
}
