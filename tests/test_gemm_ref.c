/*
 * test_gemm_ref.c — the GEMM descriptor (validation messages, extents, overflow) and the CPU
 * reference GEMM (igemm_gemm_reference): a hand-computed case, an independent naive loop over
 * random layouts (padded leading dimensions, batch strides, broadcast, both B layouts, every
 * epilogue term) on values exact in bf16 so the comparison is exact, untouched gaps, C aliasing
 * D, and the identity with a 1x1 convolution.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "igemm.h"
#include "test.h"

static const double POISON = -777.0;

TEST(gemm_ref_hand_case)
{
    /* A = [[1, 2, 3], [4, 5, 6]], B (N x K) = [[1, 0, -1], [0.5, 0.5, 0.5]]:
     * D = A B^T = [[-2, 3], [-2, 7.5]]; then relu(2 * scale * D + bias), scale = [1, -1], bias = [1, 0] */
    const double av[6] = {1, 2, 3, 4, 5, 6}, bv[6] = {1, 0, -1, 0.5, 0.5, 0.5};
    uint16_t a[6], b[6];
    for (int i = 0; i < 6; i++) {
        a[i] = igemm_float_to_bf16((float)av[i]);
        b[i] = igemm_float_to_bf16((float)bv[i]);
    }
    float d[4], scale[2] = {1, -1}, bias[2] = {1, 0};
    igemm_gemm_desc_t g = igemm_gemm_desc_packed(2, 2, 3, 1, IGEMM_B_NK, IGEMM_DTYPE_BF16, IGEMM_DTYPE_F32);
    REQUIRE(igemm_gemm_reference(&g, NULL, a, b, NULL, NULL, NULL, d) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(d[0], -2, 0);
    CHECK_NEAR(d[1], 3, 0);
    CHECK_NEAR(d[2], -2, 0);
    CHECK_NEAR(d[3], 7.5, 0);
    igemm_epilogue_t e = igemm_epilogue_default();
    e.alpha = 2;
    e.has_scale = e.has_bias = 1;
    e.activation = IGEMM_ACT_RELU;
    REQUIRE(igemm_gemm_reference(&g, &e, a, b, scale, bias, NULL, d) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(d[0], 0, 0);  /* relu(-4 + 1) */
    CHECK_NEAR(d[1], 0, 0);  /* relu(-6) */
    CHECK_NEAR(d[2], 0, 0);  /* relu(-4 + 1) */
    CHECK_NEAR(d[3], 0, 0);  /* relu(-15) */
    e.activation = IGEMM_ACT_NONE;
    REQUIRE(igemm_gemm_reference(&g, &e, a, b, scale, bias, NULL, d) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(d[0], -3, 0);
    CHECK_NEAR(d[1], -6, 0);
    CHECK_NEAR(d[3], -15, 0);
}

/* the naive definition, written independently of the library's loop order */
static double naive(const igemm_gemm_desc_t *g, const igemm_epilogue_t *e, const double *a, const double *b,
                    const float *scale, const float *bias, const double *c, int64_t bi, int64_t i, int64_t j)
{
    double acc = 0;
    for (int64_t t = 0; t < g->k; t++) {
        double bv = g->b_layout == IGEMM_B_KN ? b[bi * g->batch_stride_b + t * g->ldb + j]
                                              : b[bi * g->batch_stride_b + j * g->ldb + t];
        acc += a[bi * g->batch_stride_a + i * g->lda + t] * bv;
    }
    double v = e->alpha * (e->has_scale ? scale[j] : 1.0) * acc + (e->has_bias ? bias[j] : 0.0);
    if (e->has_residual) v += e->beta * c[bi * g->batch_stride_d + i * g->ldd + j];
    if (e->activation == IGEMM_ACT_RELU) v = v > 0 ? v : 0;
    if (e->activation == IGEMM_ACT_LEAKY_RELU) v = v > 0 ? v : v * e->act_param;
    return v;
}

TEST(gemm_ref_random_layouts)
{
    data_rng_t g = {0x9e3779b97f4a7c15ull};
    for (int it = 0; it < 60; it++) {
        igemm_gemm_desc_t d = igemm_gemm_desc_packed(data_rng_int(&g, 1, 9), data_rng_int(&g, 1, 9),
                                                     data_rng_int(&g, 1, 40), data_rng_int(&g, 1, 3),
                                                     (igemm_b_layout_t)(it & 1),
                                                     (it & 2) ? IGEMM_DTYPE_F16 : IGEMM_DTYPE_BF16,
                                                     IGEMM_DTYPE_F32);
        d.lda += data_rng_int(&g, 0, 3);
        d.ldb += data_rng_int(&g, 0, 3);
        d.ldd += data_rng_int(&g, 0, 3);
        const int64_t brows = d.b_layout == IGEMM_B_KN ? d.k : d.n;
        d.batch_stride_a = (it % 5 == 0) ? 0 : d.m * d.lda + data_rng_int(&g, 0, 2);
        d.batch_stride_b = (it % 7 == 0) ? 0 : brows * d.ldb + data_rng_int(&g, 0, 2);
        d.batch_stride_d = d.m * d.ldd + data_rng_int(&g, 0, 2);
        igemm_epilogue_t e = igemm_epilogue_default();
        e.alpha = (it % 3) ? 0.5f : 1.0f;
        e.beta = (it % 4) ? -1.0f : 2.0f;
        e.has_scale = it % 2;
        e.has_bias = (it / 2) % 2;
        e.has_residual = (it / 4) % 2;
        e.activation = (it % 3 == 0) ? IGEMM_ACT_RELU : (it % 3 == 1) ? IGEMM_ACT_LEAKY_RELU : IGEMM_ACT_NONE;
        e.act_param = 0.25f;
        int64_t an = 0, bn = 0, dn = 0;
        REQUIRE(igemm_gemm_sizes(&d, &an, &bn, &dn) == IGEMM_STATUS_SUCCESS);
        CHECK_EQ_INT(dn, (d.batch - 1) * d.batch_stride_d + (d.m - 1) * d.ldd + d.n);
        double *av = malloc(an * sizeof(double)), *bv = malloc(bn * sizeof(double)), *cv = malloc(dn * sizeof(double));
        uint16_t *a = malloc(an * 2), *b = malloc(bn * 2);
        float *c = malloc(dn * 4), *out = malloc(dn * 4), scale[9], bias[9];
        /* multiples of 1/16 in [-2, 2]: exact in f16 and bf16; every sum is exact in fp32 */
        for (int64_t i = 0; i < an; i++) av[i] = data_rng_int(&g, -32, 32) / 16.0, data_set(a, i, d.a_dtype, av[i]);
        for (int64_t i = 0; i < bn; i++) bv[i] = data_rng_int(&g, -32, 32) / 16.0, data_set(b, i, d.b_dtype, bv[i]);
        for (int64_t i = 0; i < dn; i++) cv[i] = data_rng_int(&g, -32, 32) / 16.0, c[i] = (float)cv[i], out[i] = (float)POISON;
        for (int j = 0; j < 9; j++) scale[j] = (float)(data_rng_int(&g, 1, 8) / 4.0), bias[j] = (float)(data_rng_int(&g, -8, 8) / 4.0);
        REQUIRE(igemm_gemm_reference(&d, &e, a, b, scale, bias, c, out) == IGEMM_STATUS_SUCCESS);
        int64_t bad = 0, written = 0;
        for (int64_t bi = 0; bi < d.batch; bi++)
            for (int64_t i = 0; i < d.m; i++)
                for (int64_t j = 0; j < d.n; j++) {
                    double want = naive(&d, &e, av, bv, scale, bias, cv, bi, i, j);
                    int64_t o = bi * d.batch_stride_d + i * d.ldd + j;
                    if (out[o] != (float)want && bad++ < 3)
                        CHECK_MSG(0, "it %d: D[%lld,%lld,%lld] = %.9g, expected %.9g", it, (long long)bi,
                                  (long long)i, (long long)j, out[o], want);
                }
        for (int64_t o = 0; o < dn; o++) written += out[o] != (float)POISON;
        /* the gaps (ldd > n, batch_stride_d > m*ldd) keep their poison */
        int64_t gaps = 0;
        for (int64_t o = 0; o < dn; o++) {
            int64_t r = o % d.batch_stride_d, col = r % d.ldd, row = r / d.ldd;
            if (col >= d.n || row >= d.m) gaps += out[o] != (float)POISON;
        }
        CHECK_EQ_INT(gaps, 0);
        CHECK(written <= d.batch * d.m * d.n);
        free(av); free(bv); free(cv); free(a); free(b); free(c); free(out);
    }
}

TEST(gemm_ref_b_layouts_agree_and_c_may_alias_d)
{
    data_rng_t g = {42};
    const int64_t m = 5, n = 7, k = 13;
    uint16_t a[5 * 13], bnk[7 * 13], bkn[13 * 7];
    for (int i = 0; i < m * k; i++) data_set(a, i, IGEMM_DTYPE_BF16, data_rng_int(&g, -16, 16) / 8.0);
    for (int j = 0; j < n; j++)
        for (int t = 0; t < k; t++) {
            double v = data_rng_int(&g, -16, 16) / 8.0;
            data_set(bnk, j * k + t, IGEMM_DTYPE_BF16, v);
            data_set(bkn, t * n + j, IGEMM_DTYPE_BF16, v);
        }
    float d1[35], d2[35], d3[35];
    igemm_gemm_desc_t nk = igemm_gemm_desc_packed(m, n, k, 1, IGEMM_B_NK, IGEMM_DTYPE_BF16, IGEMM_DTYPE_F32);
    igemm_gemm_desc_t kn = igemm_gemm_desc_packed(m, n, k, 1, IGEMM_B_KN, IGEMM_DTYPE_BF16, IGEMM_DTYPE_F32);
    REQUIRE(igemm_gemm_reference(&nk, NULL, a, bnk, NULL, NULL, NULL, d1) == IGEMM_STATUS_SUCCESS);
    REQUIRE(igemm_gemm_reference(&kn, NULL, a, bkn, NULL, NULL, NULL, d2) == IGEMM_STATUS_SUCCESS);
    CHECK(memcmp(d1, d2, sizeof d1) == 0);
    /* D = A B^T + 1 * D (C aliasing D): twice the product */
    memcpy(d3, d1, sizeof d1);
    igemm_epilogue_t e = igemm_epilogue_default();
    e.has_residual = 1;
    REQUIRE(igemm_gemm_reference(&nk, &e, a, bnk, NULL, NULL, d3, d3) == IGEMM_STATUS_SUCCESS);
    for (int i = 0; i < 35; i++) CHECK_NEAR(d3[i], 2.0 * d1[i], 0);
}

TEST(gemm_ref_equals_1x1_conv)
{
    /* a 1x1 stride-1 conv is the GEMM with A = x (N*H*W x C) and B = w (K x C, B_NK) */
    data_rng_t g = {7};
    igemm_conv2d_desc_t cd = igemm_conv2d_desc_default();
    cd.n = 2; cd.h = 3; cd.w = 5; cd.c = 24; cd.k = 10;
    cd.x_dtype = cd.w_dtype = IGEMM_DTYPE_F16;
    cd.y_dtype = IGEMM_DTYPE_BF16;
    const int64_t m = 30, n = 10, k = 24;
    uint16_t x[30 * 24], w[10 * 24], res[30 * 10], y1[30 * 10], y2[30 * 10];
    data_fill(x, m * k, IGEMM_DTYPE_F16, -1, 1, &g);
    data_fill(w, n * k, IGEMM_DTYPE_F16, -1, 1, &g);
    data_fill(res, m * n, IGEMM_DTYPE_BF16, -1, 1, &g);
    float scale[10], bias[10];
    for (int j = 0; j < 10; j++) scale[j] = (float)data_rng_uniform(&g, 0.5, 2), bias[j] = (float)data_rng_uniform(&g, -1, 1);
    igemm_epilogue_t e = igemm_epilogue_default();
    e.has_scale = e.has_bias = e.has_residual = 1;
    e.alpha = 0.75f;
    e.beta = -0.5f;
    e.activation = IGEMM_ACT_GELU_TANH;
    REQUIRE(igemm_conv2d_reference(&cd, &e, x, w, scale, bias, res, y1) == IGEMM_STATUS_SUCCESS);
    igemm_gemm_desc_t gd = igemm_gemm_desc_packed(m, n, k, 1, IGEMM_B_NK, IGEMM_DTYPE_F16, IGEMM_DTYPE_BF16);
    REQUIRE(igemm_gemm_reference(&gd, &e, x, w, scale, bias, res, y2) == IGEMM_STATUS_SUCCESS);
    CHECK(memcmp(y1, y2, sizeof y1) == 0);
}

static void expect_invalid(igemm_gemm_desc_t d, igemm_status_t want, const char *needle)
{
    igemm_status_t st = igemm_gemm_validate(&d);
    CHECK_MSG(st == want, "status %d, expected %d (%s)", (int)st, (int)want, igemm_last_error());
    CHECK_MSG(strstr(igemm_last_error(), needle) != NULL, "message '%s' lacks '%s'", igemm_last_error(), needle);
}

TEST(gemm_validate_names_the_field)
{
    const igemm_gemm_desc_t ok = igemm_gemm_desc_packed(64, 32, 16, 4, IGEMM_B_KN, IGEMM_DTYPE_BF16, IGEMM_DTYPE_F32);
    CHECK(igemm_gemm_validate(&ok) == IGEMM_STATUS_SUCCESS);
    CHECK(igemm_gemm_validate(NULL) == IGEMM_STATUS_NULL_POINTER);
    igemm_gemm_desc_t d;
    d = ok; d.m = 0; expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.m = 0");
    d = ok; d.n = -3; expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.n = -3");
    d = ok; d.k = 0; expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.k = 0");
    d = ok; d.batch = 0; expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.batch = 0");
    d = ok; d.b_layout = (igemm_b_layout_t)2; expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.b_layout = 2");
    d = ok; d.a_dtype = d.b_dtype = IGEMM_DTYPE_F32; expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.a_dtype = 2");
    d = ok; d.b_dtype = IGEMM_DTYPE_F16; expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.b_dtype = 0");
    d = ok; d.d_dtype = (igemm_dtype_t)7; expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.d_dtype = 7");
    d = ok; d.lda = 15; expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.lda = 15: must be >= 16");
    d = ok; d.ldb = 31; expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.ldb = 31: must be >= 32");
    d = ok; d.b_layout = IGEMM_B_NK; d.ldb = 15; expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.ldb = 15: must be >= 16");
    d = ok; d.ldd = 8; expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.ldd = 8");
    d = ok; d.batch_stride_a = -1; expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.batch_stride_a = -1");
    d = ok; d.batch_stride_d = 63 * 32 + 31;
    expect_invalid(d, IGEMM_STATUS_INVALID_VALUE, "gemm.batch_stride_d = 2047: must be >= (m - 1) * ldd + n = 2048");
    d = ok; d.batch_stride_a = 0; d.batch_stride_b = 0; CHECK(igemm_gemm_validate(&d) == IGEMM_STATUS_SUCCESS);
    d = ok; d.batch = 1; d.batch_stride_d = 0; CHECK(igemm_gemm_validate(&d) == IGEMM_STATUS_SUCCESS);
    /* extents beyond 64 bits */
    d = igemm_gemm_desc_packed(INT64_C(1) << 40, 8, INT64_C(1) << 40, 1, IGEMM_B_NK, IGEMM_DTYPE_BF16, IGEMM_DTYPE_F32);
    expect_invalid(d, IGEMM_STATUS_OVERFLOW, "A: ");
    d = igemm_gemm_desc_packed(1 << 20, 1 << 20, 8, INT64_C(1) << 30, IGEMM_B_NK, IGEMM_DTYPE_BF16, IGEMM_DTYPE_F32);
    expect_invalid(d, IGEMM_STATUS_OVERFLOW, "D: ");
    /* over 2^31 elements is fine */
    d = igemm_gemm_desc_packed(1 << 17, 1 << 15, 1 << 15, 1, IGEMM_B_NK, IGEMM_DTYPE_BF16, IGEMM_DTYPE_F32);
    int64_t an = 0, bn = 0, dn = 0;
    CHECK(igemm_gemm_sizes(&d, &an, &bn, &dn) == IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(an, INT64_C(1) << 32);
    CHECK_EQ_INT(bn, INT64_C(1) << 30);
    CHECK_EQ_INT(dn, INT64_C(1) << 32);
    /* the epilogue is checked too, and NULL operands are refused */
    igemm_epilogue_t e = igemm_epilogue_default();
    e.alpha = NAN;
    uint16_t a1 = 0, b1 = 0;
    float d1 = 0;
    igemm_gemm_desc_t one = igemm_gemm_desc_packed(1, 1, 1, 1, IGEMM_B_NK, IGEMM_DTYPE_BF16, IGEMM_DTYPE_F32);
    CHECK(igemm_gemm_reference(&one, &e, &a1, &b1, NULL, NULL, NULL, &d1) == IGEMM_STATUS_INVALID_VALUE);
    CHECK(strstr(igemm_last_error(), "epilogue.alpha") != NULL);
    e = igemm_epilogue_default();
    e.has_bias = 1;
    CHECK(igemm_gemm_reference(&one, &e, &a1, &b1, NULL, NULL, NULL, &d1) == IGEMM_STATUS_NULL_POINTER);
    CHECK(strstr(igemm_last_error(), "bias") != NULL);
    CHECK(igemm_gemm_reference(&one, NULL, NULL, &b1, NULL, NULL, NULL, &d1) == IGEMM_STATUS_NULL_POINTER);
}
