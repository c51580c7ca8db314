/*
 * test_gpu_edge.c — edge shapes on every path, determinism (repeated runs bit for bit, split-K
 * included), pointers that are element-aligned but not 16-byte aligned (the plan's fallback
 * takes them), and tensors of more than 2^31 elements (a sampled check). gpu_problem.h says what
 * every check against the reference checks. IGEMM_TEST_SEED=<n> changes the seed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_problem.h"
#include "igemm.h"
#include "test.h"
#include "tolerance.h"

#ifndef IGEMM_HAVE_CUDA

GPU_SKIP_TEST(gpu_edge_shapes_all_paths)
GPU_SKIP_TEST(gpu_determinism)
GPU_SKIP_TEST(gpu_unaligned_pointers)
GPU_SKIP_TEST(gpu_large_tensor)

#else /* IGEMM_HAVE_CUDA */

#include <cuda_runtime_api.h>

/* ------------------------------------------------------------------ edge shapes */

TEST(gpu_edge_shapes_all_paths)
{
    SKIP_WITHOUT_GPU();
    const igemm_dtype_t F16 = IGEMM_DTYPE_F16, BF = IGEMM_DTYPE_BF16, F32 = IGEMM_DTYPE_F32;
    igemm_conv2d_desc_t shapes[] = {
        conv_shape(1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, BF, F32),      /* the smallest problem */
        conv_shape(1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, F16, F16),
        conv_shape(3, 5, 7, 1, 1, 3, 3, 1, 1, 1, 1, F16, F32),     /* c = k = 1 */
        conv_shape(2, 9, 9, 3, 64, 7, 7, 2, 3, 1, 1, BF, BF),      /* stem-like, c = 3 */
        conv_shape(1, 20, 20, 64, 64, 3, 3, 1, 1, 1, 1, BF, BF),   /* the canonical fast shape */
        conv_shape(1, 11, 13, 64, 128, 1, 1, 1, 0, 1, 1, F16, F16),/* 1x1, odd M */
        conv_shape(2, 12, 12, 32, 32, 3, 3, 1, 1, 1, 32, BF, F32), /* depthwise */
        conv_shape(1, 10, 10, 16, 48, 3, 3, 1, 1, 1, 16, F16, BF), /* depthwise, multiplier 3 */
        conv_shape(1, 15, 15, 8, 8, 11, 11, 1, 3, 1, 1, BF, F32),  /* 11x11, mostly padding */
        conv_shape(2, 17, 19, 24, 40, 3, 3, 8, 2, 1, 1, F16, F32), /* stride 8 */
        conv_shape(1, 19, 19, 16, 16, 3, 3, 1, 3, 3, 1, BF, BF),   /* dilation 3 */
        conv_shape(1, 7, 7, 64, 64, 7, 7, 1, 0, 1, 1, BF, F32),    /* filter = image: p = q = 1 */
        conv_shape(3, 8, 8, 96, 72, 3, 3, 2, 1, 1, 3, F16, F16),   /* grouped */
        conv_shape(1, 16, 16, 160, 136, 1, 1, 1, 0, 1, 1, BF, BF), /* tails in both N and K */
    };
    const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
    const igemm_path_t paths[4] = {IGEMM_PATH_AUTO, IGEMM_PATH_GENERAL, IGEMM_PATH_DIRECT, IGEMM_PATH_SM90};
    data_rng_t g = {test_seed(0x5005)};
    run_stats_t st;
    memset(&st, 0, sizeof st);
    for (int i = 0; i < nshapes; i++) {
        igemm_epilogue_t e;
        gen_epilogue(&g, &e);
        if (i < 2) e = igemm_epilogue_default();
        for (int pi = 0; pi < 4; pi++) {
            const int rc = run_one(&shapes[i], &e, paths[pi], NULL, NULL, &g, &st, paths[pi] == IGEMM_PATH_SM90);
            if (rc < 0) return;
            st.refused += rc == 1;
        }
    }
    fprintf(stdout, "  edge shapes: %d shapes x 4 paths: ran general %d, sm90 %d, direct %d; %d refused; "
            "worst err/tol %.3f\n", nshapes, st.ran[1], st.ran[2], st.ran[3], st.refused, st.worst);
}

/* ------------------------------------------------------------------ determinism */

/* Each plan runs four times on the same operands: every run matches the reference and the first
 * bit for bit (no atomics, no order-dependent sums: split-K partials are reduced in a fixed order).
 * The sm90 variants force split-K through the hints where the shape allows it. */
TEST(gpu_determinism)
{
    SKIP_WITHOUT_GPU();
    const igemm_dtype_t F16 = IGEMM_DTYPE_F16, BF = IGEMM_DTYPE_BF16, F32 = IGEMM_DTYPE_F32;
    struct {
        igemm_conv2d_desc_t d;
        const char *sm90_hints, *sm90_says; /* NULL: no sm90 variant (the sm90 path refuses the shape) */
    } cases[] = {
        {conv_shape(1, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1, BF, BF), "kernel=cooperative,split_k=3", "x 3 split(s)"},
        {conv_shape(2, 14, 14, 256, 64, 3, 3, 1, 1, 1, 1, F16, F32), "split_k=2", "x 2 split(s)"},
        {conv_shape(4, 20, 20, 64, 64, 3, 3, 1, 1, 1, 1, BF, F32), "kernel=cooperative,tile=128x64,split_k=2",
         "x 2 split(s)"},
        {conv_shape(2, 16, 16, 64, 64, 3, 3, 1, 1, 1, 64, F16, F16), NULL, NULL}, /* depthwise */
        /* split-K on a 3-CTA grid (each CTA many units; the tails of M and N) */
        {conv_shape(1, 13, 17, 96, 72, 3, 3, 1, 1, 1, 1, BF, BF), "kernel=cooperative,split_k=4,grid=3",
         "x 4 split(s)"},
    };
    data_rng_t g = {test_seed(0x6006)};
    const int sm90 = device_is_sm90();
    for (int i = 0; i < (int)(sizeof cases / sizeof cases[0]); i++) {
        igemm_epilogue_t e;
        gen_epilogue(&g, &e);
        problem_t pb;
        if (problem_init(&pb, &cases[i].d, &e, &g, 1)) {
            problem_free(&pb);
            return;
        }
        const size_t bytes = (size_t)pb.ye * pb.ysz;
        void *first = malloc(bytes);
        REQUIRE(first != NULL);
        for (int pi = 0; pi < 5; pi++) {
            static const igemm_path_t paths[5] = {IGEMM_PATH_AUTO, IGEMM_PATH_GENERAL, IGEMM_PATH_DIRECT,
                                                  IGEMM_PATH_SM90, IGEMM_PATH_SM90};
            igemm_plan_options_t o = igemm_plan_options_default();
            igemm_plan_hints_t h = igemm_plan_hints_default();
            o.path = paths[pi];
            if (pi == 4) { /* sm90 with split-K hinted */
                if (!cases[i].sm90_hints) continue;
                REQUIRE(igemm_plan_hints_parse(cases[i].sm90_hints, &h) == IGEMM_STATUS_SUCCESS);
                o.hints = &h;
            }
            igemm_plan_t *plan = NULL;
            const igemm_status_t s = igemm_plan_create(&plan, &pb.d, &pb.e, &o);
            if (s == IGEMM_STATUS_NOT_SUPPORTED && pi >= 3 && (!sm90 || !cases[i].sm90_hints)) continue;
            if (s != IGEMM_STATUS_SUCCESS) {
                test_fail(__FILE__, __LINE__, "%s: plan_create(%s%s%s): %s", pb.str, path_str(paths[pi]),
                          pi == 4 ? ", hints " : "", pi == 4 ? cases[i].sm90_hints : "", igemm_last_error());
                continue;
            }
            if (pi == 4)
                CHECK_MSG(strstr(igemm_plan_describe(plan), cases[i].sm90_says) != NULL, "%s: hints %s: the plan "
                          "should say \"%s\": %s", pb.str, cases[i].sm90_hints, cases[i].sm90_says,
                          igemm_plan_describe(plan));
            char tag[64];
            snprintf(tag, sizeof tag, "determinism %s%s", path_str(igemm_plan_path(plan)), pi == 4 ? " split-K" : "");
            int ok = problem_run(&pb, plan, NULL) == IGEMM_STATUS_SUCCESS;
            if (ok) {
                problem_check(&pb, tag, NULL);
                memcpy(first, pb.hout, bytes);
                for (int rep = 0; rep < 3 && ok; rep++) {
                    ok = problem_run(&pb, plan, NULL) == IGEMM_STATUS_SUCCESS;
                    CHECK_MSG(ok && memcmp(first, pb.hout, bytes) == 0,
                              "[%s] %s: repeat %d differs from the first run", tag, pb.str, rep + 1);
                }
            } else {
                test_fail(__FILE__, __LINE__, "[%s] %s: run failed: %s", tag, pb.str, igemm_last_error());
            }
            igemm_plan_destroy(plan);
        }
        free(first);
        problem_free(&pb);
    }
}

/* ------------------------------------------------------------------ unaligned pointers */

TEST(gpu_unaligned_pointers)
{
    /* x, w, y, residual element-aligned but not 16-byte aligned: the plan falls back to a path
     * that takes them (or runs them itself) and the result is still right; bytes next to y keep
     * their poison. */
    SKIP_WITHOUT_GPU();
    data_rng_t g = {test_seed(0x8008)};
    igemm_conv2d_desc_t shapes[2] = {
        conv_shape(2, 12, 12, 64, 64, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16),
        conv_shape(1, 9, 9, 128, 64, 1, 1, 1, 0, 1, 1, IGEMM_DTYPE_F16, IGEMM_DTYPE_F16),
    };
    for (int i = 0; i < 2; i++) {
        igemm_epilogue_t e = igemm_epilogue_default();
        e.has_residual = 1;
        e.has_bias = 1;
        problem_t pb;
        if (problem_init(&pb, &shapes[i], &e, &g, 1)) {
            problem_free(&pb);
            return;
        }
        /* shifted copies: element offset 1 (2 bytes) inside larger buffers */
        size_t xb = (size_t)pb.xe * 2, wb = (size_t)pb.we * 2, yb = (size_t)pb.ye * pb.ysz;
        dbuf_t x2, w2, y2, r2;
        REQUIRE(dbuf_alloc(&x2, xb + 16, GUARD, IN_GUARD_BYTE) == 0);
        REQUIRE(dbuf_alloc(&w2, wb + 16, GUARD, IN_GUARD_BYTE) == 0);
        REQUIRE(dbuf_alloc(&y2, yb + 16, GUARD, OUT_GUARD_BYTE) == 0);
        REQUIRE(dbuf_alloc(&r2, yb + 16, GUARD, IN_GUARD_BYTE) == 0);
        char *xs = (char *)x2.ptr + 2, *ws = (char *)w2.ptr + 2, *ys = (char *)y2.ptr + 2, *rs = (char *)r2.ptr + 2;
        cudaMemset(x2.ptr, IN_GUARD_BYTE, x2.bytes);
        cudaMemset(w2.ptr, IN_GUARD_BYTE, w2.bytes);
        cudaMemset(r2.ptr, IN_GUARD_BYTE, r2.bytes);
        cudaMemcpy(xs, pb.hx, xb, cudaMemcpyHostToDevice);
        cudaMemcpy(ws, pb.hw, wb, cudaMemcpyHostToDevice);
        cudaMemcpy(rs, pb.hres, yb, cudaMemcpyHostToDevice);
        for (int pi = 0; pi < 3; pi++) { /* AUTO, GENERAL, and SM90 forced (on an sm_90 device) */
            static const igemm_path_t paths[3] = {IGEMM_PATH_AUTO, IGEMM_PATH_GENERAL, IGEMM_PATH_SM90};
            if (paths[pi] == IGEMM_PATH_SM90 && !device_is_sm90()) continue;
            igemm_plan_options_t o = igemm_plan_options_default();
            o.path = paths[pi];
            igemm_plan_t *plan = NULL;
            if (igemm_plan_create(&plan, &pb.d, &pb.e, &o) != IGEMM_STATUS_SUCCESS) {
                test_fail(__FILE__, __LINE__, "plan_create(%s): %s", path_str(paths[pi]), igemm_last_error());
                continue;
            }
            /* a TMA plan names the fallback that takes the unaligned pointers */
            if (igemm_plan_path(plan) == IGEMM_PATH_SM90)
                CHECK_MSG(strstr(igemm_plan_describe(plan), "Pointers not 16-byte aligned at run time go to sm80") !=
                              NULL,
                          "%s: the sm90 plan names no fallback: %s", pb.str, igemm_plan_describe(plan));
            REQUIRE(cudaMemset(y2.ptr, POISON_BYTE, y2.bytes) == cudaSuccess);
            igemm_status_t s = igemm_plan_run(plan, xs, ws, NULL, (const float *)pb.bias.ptr, rs, ys, NULL);
            CHECK_MSG(s == IGEMM_STATUS_SUCCESS, "%s: unaligned run: %s", pb.str, igemm_last_error());
            cudaError_t ce = cudaDeviceSynchronize();
            CHECK_MSG(ce == cudaSuccess, "%s: %s", pb.str, cudaGetErrorString(ce));
            if (s == IGEMM_STATUS_SUCCESS && ce == cudaSuccess) {
                unsigned char *h = (unsigned char *)malloc(y2.bytes);
                REQUIRE(h != NULL);
                REQUIRE(cudaMemcpy(h, y2.ptr, y2.bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
                memcpy(pb.hout, h + 2, yb);
                /* bytes of y2 outside [2, 2 + yb) keep the poison */
                int outside = 0;
                for (size_t b = 0; b < y2.bytes; b++)
                    if ((b < 2 || b >= 2 + yb) && h[b] != POISON_BYTE) outside++;
                CHECK_MSG(outside == 0, "%s: %d bytes next to the unaligned y were written", pb.str, outside);
                CHECK_EQ_INT(dbuf_guard_damage(&y2), 0);
                free(h);
                problem_check(&pb, path_str(paths[pi]), NULL);
            }
            igemm_plan_destroy(plan);
        }
        dbuf_free(&x2);
        dbuf_free(&w2);
        dbuf_free(&y2);
        dbuf_free(&r2);
        problem_free(&pb);
    }
}

/* ------------------------------------------------------------------ > 2^31 elements */

/* x[i] = pattern[i % L] with L prime: any 32-bit wrap of an element or byte offset reads a
 * different value. */
#define LARGE_L 16777213LL

TEST(gpu_large_tensor)
{
    SKIP_WITHOUT_GPU();
    /* x: 5 x 4096 x 4096 x 32 = 2.68e9 elements (5.4 GB bf16), y the same size */
    igemm_conv2d_desc_t d = conv_shape(5, 4096, 4096, 32, 32, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    int64_t xe = 0, we = 0, ye = 0, P = 0, Q = 0;
    REQUIRE(igemm_conv2d_sizes(&d, &xe, &we, &ye) == IGEMM_STATUS_SUCCESS);
    REQUIRE(igemm_conv2d_output_dims(&d, &P, &Q) == IGEMM_STATUS_SUCCESS);
    CHECK(xe > (1LL << 31) && ye > (1LL << 31));
    size_t freeb = 0, totalb = 0;
    REQUIRE(cudaMemGetInfo(&freeb, &totalb) == cudaSuccess);
    size_t need = (size_t)xe * 2 + (size_t)ye * 2 + (size_t)we * 2 + (1ull << 30);
    if (freeb < need) {
        char why[128];
        snprintf(why, sizeof why, "needs %.1f GB of free device memory, %.1f GB free", need / 1e9, freeb / 1e9);
        test_skip(why);
        return;
    }
    data_rng_t g = {test_seed(0x9009)};
    uint16_t *pat = (uint16_t *)malloc((size_t)LARGE_L * 2);
    uint16_t *hw = (uint16_t *)malloc((size_t)we * 2);
    float *hbias = (float *)malloc((size_t)d.k * 4);
    REQUIRE(pat && hw && hbias);
    data_fill(pat, LARGE_L, d.x_dtype, -1, 1, &g);
    data_fill(hw, we, d.w_dtype, -1, 1, &g);
    for (int64_t k = 0; k < d.k; k++) hbias[k] = (float)data_rng_uniform(&g, -1, 1);
    void *x = NULL, *w = NULL, *y = NULL, *bias = NULL;
    REQUIRE(cudaMalloc(&x, (size_t)xe * 2) == cudaSuccess);
    REQUIRE(cudaMalloc(&y, (size_t)ye * 2) == cudaSuccess);
    REQUIRE(cudaMalloc(&w, (size_t)we * 2) == cudaSuccess);
    REQUIRE(cudaMalloc(&bias, (size_t)d.k * 4) == cudaSuccess);
    double t0 = now_s();
    for (int64_t off = 0; off < xe; off += LARGE_L) {
        int64_t n = xe - off < LARGE_L ? xe - off : LARGE_L;
        REQUIRE(cudaMemcpy((uint16_t *)x + off, pat, (size_t)n * 2, cudaMemcpyHostToDevice) == cudaSuccess);
    }
    REQUIRE(cudaMemcpy(w, hw, (size_t)we * 2, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(bias, hbias, (size_t)d.k * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    double t_fill = now_s() - t0;

    igemm_epilogue_t e = igemm_epilogue_default();
    e.has_bias = 1;
    e.alpha = 0.75f;

    /* sampled output pixels: random ones, the first, the last, and those whose x or y element
     * offsets cross 2^31 and 2^32 */
    enum { NS = 300 };
    int64_t pix[NS];
    int ns = 0;
    const int64_t npix = ye / d.k;
    pix[ns++] = 0;
    pix[ns++] = npix - 1;
    pix[ns++] = npix - 2;
    const int64_t marks[3] = {1LL << 31, 1LL << 32, 3LL << 31};
    for (int mi = 0; mi < 3; mi++)
        for (int64_t dlt = -2; dlt <= 2; dlt++) {
            int64_t pp = marks[mi] / d.k + dlt; /* y offset and (same geometry) x offset */
            if (pp >= 0 && pp < npix) pix[ns++] = pp;
        }
    while (ns < NS) pix[ns++] = data_rng_int(&g, 0, npix - 1);

    /* reference values of the sampled outputs */
    double *ref = (double *)malloc(sizeof(double) * NS * (size_t)d.k);
    REQUIRE(ref != NULL);
    for (int i = 0; i < NS; i++) {
        int64_t m = pix[i], qq = m % Q, pp = (m / Q) % P, nn = m / (P * Q);
        for (int64_t k = 0; k < d.k; k++) {
            double acc = 0;
            for (int64_t r = 0; r < d.r; r++) {
                int64_t ih = pp * d.stride_h - d.pad_top + r * d.dil_h;
                if (ih < 0 || ih >= d.h) continue;
                for (int64_t s = 0; s < d.s; s++) {
                    int64_t iw = qq * d.stride_w - d.pad_left + s * d.dil_w;
                    if (iw < 0 || iw >= d.w) continue;
                    int64_t xb = ((nn * d.h + ih) * d.w + iw) * d.c;
                    for (int64_t c = 0; c < d.c; c++)
                        acc += data_get(pat, (xb + c) % LARGE_L, d.x_dtype) *
                               data_get(hw, ((k * d.r + r) * d.s + s) * d.c + c, d.w_dtype);
                }
            }
            double v = (double)e.alpha * acc + (double)hbias[k];
            uint16_t rb;
            data_set(&rb, 0, d.y_dtype, v);
            ref[(size_t)i * d.k + k] = data_get(&rb, 0, d.y_dtype);
        }
    }

    const igemm_path_t paths[4] = {IGEMM_PATH_AUTO, IGEMM_PATH_GENERAL, IGEMM_PATH_SM90, IGEMM_PATH_DIRECT};
    uint16_t *row = (uint16_t *)malloc((size_t)d.k * 2);
    REQUIRE(row != NULL);
    for (int pi = 0; pi < 4; pi++) {
        igemm_plan_options_t o = igemm_plan_options_default();
        o.path = paths[pi];
        igemm_plan_t *plan = NULL;
        igemm_status_t s = igemm_plan_create(&plan, &d, &e, &o);
        if (s == IGEMM_STATUS_NOT_SUPPORTED && paths[pi] == IGEMM_PATH_SM90) continue;
        if (s != IGEMM_STATUS_SUCCESS) {
            test_fail(__FILE__, __LINE__, "plan_create(%s): %s", path_str(paths[pi]), igemm_last_error());
            continue;
        }
        REQUIRE(cudaMemset(y, POISON_BYTE, (size_t)ye * 2) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        double t1 = now_s();
        s = igemm_plan_run(plan, x, w, NULL, (const float *)bias, NULL, y, NULL);
        cudaError_t ce = cudaDeviceSynchronize();
        double t_run = now_s() - t1;
        if (s != IGEMM_STATUS_SUCCESS || ce != cudaSuccess) {
            test_fail(__FILE__, __LINE__, "large run (%s): %s / %s", path_str(paths[pi]), igemm_last_error(),
                      cudaGetErrorString(ce));
            igemm_plan_destroy(plan);
            if (ce != cudaSuccess) break;
            continue;
        }
        int bad = 0;
        for (int i = 0; i < NS; i++) {
            REQUIRE(cudaMemcpy(row, (uint16_t *)y + pix[i] * d.k, (size_t)d.k * 2, cudaMemcpyDeviceToHost) == cudaSuccess);
            for (int64_t k = 0; k < d.k; k++) {
                double want = ref[(size_t)i * d.k + k], got = data_get(row, k, d.y_dtype);
                double tol = tol_conv(&d, &e, NULL, hbias, k, want);
                if (isnan(got) || fabs(got - want) > tol) {
                    if (bad < 5)
                        test_fail(__FILE__, __LINE__, "large (%s): pixel %lld k %lld: %.6g, ref %.6g (tol %.3g)",
                                  path_str(igemm_plan_path(plan)), (long long)pix[i], (long long)k, got, want, tol);
                    bad++;
                }
            }
        }
        fprintf(stdout, "  large tensor (%lld elements) on %s: %.3f s, %d of %d sampled outputs wrong "
                "(fill %.1f s)\n", (long long)xe, path_str(igemm_plan_path(plan)), t_run, bad, NS * (int)d.k, t_fill);
        igemm_plan_destroy(plan);
    }
    free(row);
    free(ref);
    free(pat);
    free(hw);
    free(hbias);
    cudaFree(x);
    cudaFree(y);
    cudaFree(w);
    cudaFree(bias);
}

#endif /* IGEMM_HAVE_CUDA */
