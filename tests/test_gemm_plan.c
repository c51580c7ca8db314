/*
 * test_gemm_plan.c — GEMM plans (igemm_gemm_plan_create + igemm_plan_run): the mapping onto the
 * conv engine on the CPU (one matrix, a batch folded into M when B is shared, a batch as one conv
 * per matrix, the layouts refused with their reason), and on a GPU random GEMMs (M, N, K tails,
 * batches of each kind, every epilogue term, bf16/fp16 in, f16/bf16/f32 out) against
 * igemm_gemm_reference within the conv tolerance model of the mapped 1x1 conv, with D poisoned
 * and guard bytes around it.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "gemm_problem.h"
#include "gpu_problem.h"
#include "igemm.h"
#include "test.h"
#include "tolerance.h"

/* the library's own parameters and mapping for d (-1: d is invalid) */
static int map(const igemm_gemm_desc_t *d, igemm_conv2d_desc_t *conv, int64_t *launches, int64_t step[3],
               const char **why)
{
    igemm_gemm_params_t g;
    if (igemm_gemm_problem_init(d, NULL, &g) != IGEMM_STATUS_SUCCESS) return -1;
    return igemm_gemm_conv_mapping(&g, conv, launches, step, why);
}

TEST(gemm_plan_mapping)
{
    igemm_conv2d_desc_t c;
    int64_t launches, step[3];
    const char *why;
    /* one matrix: a 1 x 1 x M image of K channels, N filters */
    igemm_gemm_desc_t d = igemm_gemm_desc_packed(100, 72, 40, 1, IGEMM_B_NK, IGEMM_DTYPE_BF16, IGEMM_DTYPE_F32);
    REQUIRE(map(&d, &c, &launches, step, &why) == 1);
    CHECK(c.n == 1 && c.h == 1 && c.w == 100 && c.c == 40 && c.k == 72 && c.r == 1 && c.s == 1 && c.groups == 1);
    CHECK(c.x_dtype == IGEMM_DTYPE_BF16 && c.y_dtype == IGEMM_DTYPE_F32 && launches == 1);
    CHECK(igemm_conv2d_validate(&c) == IGEMM_STATUS_SUCCESS);
    /* a batch over a shared B (nn.Linear over a batch of sequences): one conv of batch * M rows */
    d = igemm_gemm_desc_packed(100, 72, 40, 3, IGEMM_B_NK, IGEMM_DTYPE_F16, IGEMM_DTYPE_F16);
    d.batch_stride_b = 0;
    REQUIRE(map(&d, &c, &launches, step, &why) == 1);
    CHECK(c.w == 300 && launches == 1);
    /* a batch of separate B: one conv per matrix, the pointers advancing by the batch strides */
    d = igemm_gemm_desc_packed(100, 72, 40, 3, IGEMM_B_NK, IGEMM_DTYPE_F16, IGEMM_DTYPE_F32);
    REQUIRE(map(&d, &c, &launches, step, &why) == 1);
    CHECK(c.w == 100 && launches == 3);
    CHECK(step[0] == 100 * 40 * 2 && step[1] == 72 * 40 * 2 && step[2] == 100 * 72 * 4);
    /* a shared B over a D with a batch stride larger than packed: one conv per matrix */
    d = igemm_gemm_desc_packed(10, 8, 16, 2, IGEMM_B_NK, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    d.batch_stride_b = 0;
    d.batch_stride_d = 10 * 8 + 8;
    REQUIRE(map(&d, &c, &launches, step, &why) == 1);
    CHECK(launches == 2 && step[1] == 0 && step[2] == (10 * 8 + 8) * 2);
    /* refused, with the reason */
    d = igemm_gemm_desc_packed(10, 8, 16, 1, IGEMM_B_KN, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    REQUIRE(map(&d, &c, &launches, step, &why) == 0);
    CHECK(why && strstr(why, "IGEMM_B_KN"));
    d = igemm_gemm_desc_packed(10, 8, 16, 1, IGEMM_B_NK, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    d.lda = 24;
    REQUIRE(map(&d, &c, &launches, step, &why) == 0);
    CHECK(why && strstr(why, "leading dimensions"));
    /* the public entry plans it on the strided GEMM kernel (or, without a GPU, says there is none);
     * another path or plan hints are refused with the reason */
    igemm_plan_t *plan = (igemm_plan_t *)1;
    igemm_plan_options_t o = igemm_plan_options_default();
    o.path = IGEMM_PATH_SM90;
    CHECK(igemm_gemm_plan_create(&plan, &d, NULL, &o) == IGEMM_STATUS_NOT_SUPPORTED);
    CHECK(plan == NULL);
    CHECK(strstr(igemm_last_error(), "options.path = 2") && strstr(igemm_last_error(), "leading dimensions"));
    igemm_plan_hints_t h = igemm_plan_hints_default();
    h.split_k = 2;
    o = igemm_plan_options_default();
    o.hints = &h;
    CHECK(igemm_gemm_plan_create(&plan, &d, NULL, &o) == IGEMM_STATUS_NOT_SUPPORTED);
    CHECK(strstr(igemm_last_error(), "plan hints") != NULL);
    const igemm_status_t st = igemm_gemm_plan_create(&plan, &d, NULL, NULL);
    if (st == IGEMM_STATUS_SUCCESS) {
        CHECK(igemm_plan_path(plan) == IGEMM_PATH_GENERAL);
        CHECK(strstr(igemm_plan_describe(plan), "sm80_gemm_mma_sync") &&
              strstr(igemm_plan_describe(plan), "leading dimensions"));
        igemm_plan_destroy(plan);
    } else {
        CHECK(st == IGEMM_STATUS_NO_DEVICE && plan == NULL);
    }
    d.m = 0;
    CHECK(igemm_gemm_plan_create(&plan, &d, NULL, NULL) == IGEMM_STATUS_INVALID_VALUE);
    CHECK(strstr(igemm_last_error(), "gemm.m = 0") != NULL);
    CHECK(igemm_gemm_plan_create(NULL, &d, NULL, NULL) == IGEMM_STATUS_NULL_POINTER);
}

#ifndef IGEMM_HAVE_CUDA
GPU_SKIP_TEST(gpu_gemm_plan_random)
#else
#include <cuda_runtime_api.h>

TEST(gpu_gemm_plan_random)
{
    SKIP_WITHOUT_GPU();
    data_rng_t g = {test_seed(0x6e33)};
    static const igemm_dtype_t outs[3] = {IGEMM_DTYPE_F32, IGEMM_DTYPE_BF16, IGEMM_DTYPE_F16};
    int checked = 0;
    enum { ITERS = 300 };
    int strided = 0, kn = 0;
    for (int it = 0; it < ITERS; it++) {
        const igemm_dtype_t in = it % 2 ? IGEMM_DTYPE_F16 : IGEMM_DTYPE_BF16;
        const igemm_dtype_t out = it % 5 == 4 ? in : outs[(it / 2) % 3];
        const int64_t m = data_rng_int(&g, 1, it % 7 == 0 ? 700 : 200);
        const int64_t n = it % 3 == 0 ? data_rng_int(&g, 1, 100) : 8 * data_rng_int(&g, 1, 40);
        const int64_t k = it % 4 == 0 ? data_rng_int(&g, 1, 90) : 8 * data_rng_int(&g, 1, 72);
        const int64_t batch = it % 3 == 1 ? data_rng_int(&g, 2, 3) : 1;
        /* a third of the cases B stored K x N, a third padded leading dimensions (odd pads take
         * the element loads), some both: the strided GEMM kernel */
        const int b_kn = it % 3 == 2 || it % 10 == 9, padded = it % 3 == 1 || it % 10 == 9;
        igemm_gemm_desc_t d = igemm_gemm_desc_packed(m, n, k, batch, b_kn ? IGEMM_B_KN : IGEMM_B_NK, in, out);
        if (padded) {
            d.lda = k + data_rng_int(&g, 0, 9);
            d.ldb = (b_kn ? n : k) + data_rng_int(&g, 0, 9);
            d.ldd = n + data_rng_int(&g, 0, 9);
            d.batch_stride_a = m * d.lda + data_rng_int(&g, 0, 8);
            d.batch_stride_b = (b_kn ? k : n) * d.ldb;
            d.batch_stride_d = m * d.ldd;
        }
        if (batch > 1 && it % 2) d.batch_stride_b = 0;                   /* shared B (folded into M if packed) */
        if (batch > 1 && it % 4 == 3) d.batch_stride_d = m * d.ldd + 8; /* a gap between the D matrices */
        igemm_conv2d_desc_t mc;
        int64_t ml, mstep[3];
        const char *mwhy;
        const int on_strided = map(&d, &mc, &ml, mstep, &mwhy) == 0; /* the conv engine cannot read it */
        strided += on_strided, kn += b_kn;
        igemm_epilogue_t e;
        gen_epilogue(&g, &e);
        int64_t ae, be, de;
        REQUIRE(igemm_gemm_sizes(&d, &ae, &be, &de) == IGEMM_STATUS_SUCCESS);
        const size_t isz = 2, osz = out == IGEMM_DTYPE_F32 ? 4 : 2;
        void *ha = malloc((size_t)ae * isz), *hb = malloc((size_t)be * isz), *hc = malloc((size_t)de * osz);
        void *hd = malloc((size_t)de * osz), *ref = malloc((size_t)de * osz);
        float *sc = (float *)malloc((size_t)n * 4), *bi = (float *)malloc((size_t)n * 4);
        REQUIRE(ha && hb && hc && hd && ref && sc && bi);
        data_fill(ha, ae, in, -1.0, 1.0, &g);
        data_fill(hb, be, in, -1.0, 1.0, &g);
        data_fill(hc, de, out, -1.0, 1.0, &g);
        data_fill(sc, n, IGEMM_DTYPE_F32, -2.0, 2.0, &g);
        data_fill(bi, n, IGEMM_DTYPE_F32, -1.0, 1.0, &g);
        memcpy(ref, hc, (size_t)de * osz); /* the gaps of D keep the poison-free values of C here */
        REQUIRE(igemm_gemm_reference(&d, &e, ha, hb, sc, bi, hc, ref) == IGEMM_STATUS_SUCCESS);
        igemm_plan_t *plan = NULL;
        const igemm_status_t st = igemm_gemm_plan_create(&plan, &d, &e, NULL);
        CHECK_MSG(st == IGEMM_STATUS_SUCCESS, "it %d: gemm %lldx%lldx%lld batch %lld: %s", it, (long long)m,
                  (long long)n, (long long)k, (long long)batch, igemm_last_error());
        if (st == IGEMM_STATUS_SUCCESS) {
            dbuf_t da, db, dc, dd, ds, dbias;
            REQUIRE(dbuf_alloc(&da, (size_t)ae * isz, 256, 0x11) == 0 && dbuf_alloc(&db, (size_t)be * isz, 256, 0x22) == 0);
            REQUIRE(dbuf_alloc(&dc, (size_t)de * osz, 256, 0x33) == 0 && dbuf_alloc(&dd, (size_t)de * osz, 256, 0x44) == 0);
            REQUIRE(dbuf_alloc(&ds, (size_t)n * 4, 256, 0x55) == 0 && dbuf_alloc(&dbias, (size_t)n * 4, 256, 0x66) == 0);
            dbuf_upload(&da, ha, (size_t)ae * isz);
            dbuf_upload(&db, hb, (size_t)be * isz);
            dbuf_upload(&dc, hc, (size_t)de * osz);
            dbuf_upload(&dd, hc, (size_t)de * osz); /* D's gaps hold C's values, as in ref */
            dbuf_upload(&ds, sc, (size_t)n * 4);
            dbuf_upload(&dbias, bi, (size_t)n * 4);
            /* poison the elements the GEMM must write (every row of every matrix) */
            for (int64_t b = 0; b < batch; b++)
                for (int64_t i = 0; i < m; i++)
                    cudaMemset((char *)dd.ptr + (size_t)(b * d.batch_stride_d + i * d.ldd) * osz, 0x7b, (size_t)n * osz);
            const igemm_status_t rs =
                igemm_plan_run(plan, da.ptr, db.ptr, e.has_scale ? (const float *)ds.ptr : NULL,
                               e.has_bias ? (const float *)dbias.ptr : NULL, e.has_residual ? dc.ptr : NULL, dd.ptr, NULL);
            CHECK_MSG(rs == IGEMM_STATUS_SUCCESS, "it %d: run: %s", it, igemm_last_error());
            REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
            dbuf_download(&dd, hd, (size_t)de * osz);
            /* the tolerance of the mapped 1x1 conv (K terms per output) */
            igemm_conv2d_desc_t cd = igemm_conv2d_desc_default();
            cd.c = k, cd.k = n, cd.w = m, cd.x_dtype = cd.w_dtype = in, cd.y_dtype = out;
            int64_t bad = 0, first = -1;
            for (int64_t idx = 0; idx < de; idx++) {
                const int64_t col = (idx % d.batch_stride_d) % d.ldd;
                const double want = data_get(ref, idx, out), got = data_get(hd, idx, out);
                if (!(fabs(got - want) <= tol_conv(&cd, &e, sc, bi, col < n ? col : 0, want))) {
                    if (first < 0) first = idx;
                    bad++;
                }
            }
            CHECK_MSG(bad == 0, "it %d: gemm %lldx%lldx%lld batch %lld (%s, B %s, ld %lld %lld %lld) out %d act %d: %lld "
                      "of %lld wrong, first %lld: %g vs %g [%s]", it, (long long)m, (long long)n, (long long)k,
                      (long long)batch, d.batch_stride_b ? "own B" : "shared B", b_kn ? "KxN" : "NxK",
                      (long long)d.lda, (long long)d.ldb, (long long)d.ldd, (int)out, (int)e.activation, (long long)bad,
                      (long long)de, (long long)first, first >= 0 ? data_get(hd, first, out) : 0.0,
                      first >= 0 ? data_get(ref, first, out) : 0.0, igemm_plan_describe(plan));
            CHECK(strstr(igemm_plan_describe(plan), "GEMM ") == igemm_plan_describe(plan));
            CHECK((strstr(igemm_plan_describe(plan), "sm80_gemm_mma_sync") != NULL) == on_strided);
            CHECK_EQ_INT(dbuf_guard_damage(&dd), 0);
            dbuf_free(&da), dbuf_free(&db), dbuf_free(&dc), dbuf_free(&dd), dbuf_free(&ds), dbuf_free(&dbias);
            igemm_plan_destroy(plan);
            checked++;
        }
        free(ha), free(hb), free(hc), free(hd), free(ref), free(sc), free(bi);
        if (test_failed_now()) return;
    }
    CHECK_EQ_INT(checked, ITERS);
    CHECK(strided >= 140 && kn >= 100);
}
#endif
