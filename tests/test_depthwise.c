/*
 * test_depthwise.c — the depthwise family (src/mem/depthwise.cu, IGEMM_PATH_MEMORY): convs of
 * groups = c = k. On the GPU (gpu_problem.h says what every check checks: guards, poisoned y,
 * unchanged inputs, tolerances): random depthwise convs forced onto the path — the compiled
 * windows (3x3, 5x5, 7x7 at stride_w 1 and 2) forced onto the tiled kernel
 * (kernel=depthwise_tiled), the TMA kernel (kernel=depthwise_tma, square filters on sm_90) or the
 * mma kernel (kernel=depthwise_mma), the other filters of at most
 * 50 taps on the mma kernel by the planner's choice (any stride and dilation), every fourth on a
 * grid of 1-3 CTAs, and the strip kernel's generic instance (filters of more than 50 taps), paddings, output columns that are not a multiple of the strip, channel
 * counts of 8..320 (several channel blocks, partial ones), every epilogue, fp16 and bf16 in,
 * f16/bf16/f32 out; the planner's choice under AUTO (depthwise convs take it, a grouped conv with
 * two channels per group and c % 8 != 0 do not, and say why); two runs agree bit for bit.
 */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "gpu_problem.h"
#include "igemm.h"
#include "test.h"

#ifndef IGEMM_HAVE_CUDA

GPU_SKIP_TEST(gpu_depthwise_random)
GPU_SKIP_TEST(gpu_depthwise_planner)
GPU_SKIP_TEST(gpu_depthwise_plans_share_kernel)

#else /* IGEMM_HAVE_CUDA */

#define F16 IGEMM_DTYPE_F16
#define BF IGEMM_DTYPE_BF16
#define F32 IGEMM_DTYPE_F32

/* a random depthwise conv; it % 3 == 0: outside the compiled windows (it % 6 == 0: over 50 taps,
 * the strip kernel's generic instance) */
static igemm_conv2d_desc_t gen_dw(data_rng_t *g, int it)
{
    static const int fast_s[3] = {3, 5, 7};
    const int generic = it % 3 == 0;
    int64_t r, s, sh, sw, dh = 1, dw = 1;
    if (generic) {
        r = data_rng_int(g, 1, 9), s = data_rng_int(g, 1, 9);
        if (it % 6 == 0) r = data_rng_int(g, 7, 9), s = data_rng_int(g, 8, 9); /* 56+ taps */
        sh = data_rng_int(g, 1, 3), sw = data_rng_int(g, 1, 3);
        dh = data_rng_int(g, 1, 2), dw = data_rng_int(g, 1, 2);
        if (s == 3 || s == 5 || s == 7) dw = 2; /* keep it off the compiled windows */
    } else {
        s = fast_s[data_rng_int(g, 0, 2)];
        r = it % 4 == 1 ? data_rng_int(g, 1, 7) : s;
        sh = data_rng_int(g, 1, 2), sw = data_rng_int(g, 1, 2);
        dh = it % 5 == 2 ? 2 : 1;
    }
    const int64_t c = it % 11 == 0 ? 8 * data_rng_int(g, 33, 40) : 8 * data_rng_int(g, 1, 32);
    const int64_t n = data_rng_int(g, 1, 3), h = data_rng_int(g, 1, 19), w = data_rng_int(g, 1, 23);
    const igemm_dtype_t in = it % 2 ? F16 : BF;
    const igemm_dtype_t out = it % 3 == 1 ? F32 : it % 3 == 2 ? in : (in == F16 ? BF : F16);
    igemm_conv2d_desc_t d = conv_shape(n, h, w, c, c, r, s, 1, 0, 1, c, in, out);
    d.stride_h = sh, d.stride_w = sw, d.dil_h = dh, d.dil_w = dw;
    /* padding: none, "same", or asymmetric */
    const int pm = (int)data_rng_int(g, 0, 2);
    d.pad_top = pm == 0 ? 0 : (dh * (r - 1)) / 2;
    d.pad_left = pm == 0 ? 0 : (dw * (s - 1)) / 2;
    d.pad_bottom = pm == 2 ? d.pad_top + 1 : d.pad_top;
    d.pad_right = pm == 2 ? 0 : d.pad_left;
    /* an output of at least one pixel */
    if (d.h + d.pad_top + d.pad_bottom < dh * (r - 1) + 1) d.h = dh * (r - 1) + 1;
    if (d.w + d.pad_left + d.pad_right < dw * (s - 1) + 1) d.w = dw * (s - 1) + 1;
    return d;
}

TEST(gpu_depthwise_random)
{
    SKIP_WITHOUT_GPU();
    data_rng_t g = {test_seed(0xd3e1)};
    run_stats_t st;
    memset(&st, 0, sizeof st);
    /* 1: the tiled kernel ran, 2: the strip kernel's generic instance, 4: the mma kernel, 8: the TMA
     * kernel (sm_90 devices: square windows) */
    int kinds = 0;
    const int sm90 = device_is_sm90();
    for (int it = 0; it < 150 && st.failed < 5; it++) {
        igemm_conv2d_desc_t d = gen_dw(&g, it);
        igemm_epilogue_t e;
        gen_epilogue(&g, &e);
        const int fast = (d.s == 3 || d.s == 5 || d.s == 7) && d.stride_w <= 2 && d.dil_w == 1;
        /* the compiled windows in turn: tiled, TMA (square filters on sm_90), mma */
        const int pick = (it / 3) % 3;
        if (fast && pick == 1 && sm90 && it % 4 != 1) d.r = d.s; /* (gen_dw's odd rows stay for the others) */
        const int tma = fast && pick == 1 && sm90 && d.r == d.s, tiled = fast && !tma && pick != 2;
        const int strip = d.r * d.s > 50;
        kinds |= tma ? 8 : tiled ? 1 : strip ? 2 : 4;
        /* every fourth: the persistent grid capped at 1-3 CTAs (each CTA many tiles, the buffers or
         * the ring's stages in turn, the weights restaged when the channel block changes) */
        igemm_plan_hints_t h = igemm_plan_hints_default();
        if (it % 4 == 3) h.grid = (int)data_rng_int(&g, 1, 3);
        if (fast)
            h.kernel = tma ? IGEMM_KERNEL_DEPTHWISE_TMA : tiled ? IGEMM_KERNEL_DEPTHWISE_TILED : IGEMM_KERNEL_DEPTHWISE_MMA;
        const char *want = tma ? "tma; persistent" : tiled ? "tiled; persistent" : strip ? "generic taps" : "mma.sync";
        const int rc = run_one(&d, &e, IGEMM_PATH_MEMORY, &h, want, &g, &st, 0);
        REQUIRE(rc >= 0);
    }
    fprintf(stdout, "  depthwise: %d configs ran, %d failed, worst err/tol %.3f (f32 out %.3f)\n",
            st.ran[IGEMM_PATH_MEMORY], st.failed, st.worst, st.worst_f32);
    CHECK_EQ_INT(st.ran[IGEMM_PATH_MEMORY], 150);
    CHECK_EQ_INT(st.failed, 0);
    CHECK_EQ_INT(st.refused, 0);
    CHECK_EQ_INT(kinds, sm90 ? 15 : 7);
}

TEST(gpu_depthwise_planner)
{
    SKIP_WITHOUT_GPU();
    static char msg[4096];
    /* MobileNetV2's 3x3 depthwise: the family, with the reason of the window */
    igemm_conv2d_desc_t dw = conv_shape(2, 28, 28, 144, 144, 3, 3, 2, 1, 1, 144, BF, BF);
    REQUIRE(plan_text(&dw, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_depthwise") && strstr(msg, "depthwise 3x3 (stride 2x2"), "%s", msg);
    /* two channels per group, and c % 8 != 0: not this family (the reasons named) */
    igemm_conv2d_desc_t g2 = conv_shape(1, 8, 8, 64, 64, 3, 3, 1, 1, 1, 32, BF, BF);
    CHECK_EQ_INT(plan_text(&g2, IGEMM_PATH_MEMORY, NULL, msg, sizeof msg), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "groups = 32, c = 64") != NULL, "%s", msg);
    igemm_conv2d_desc_t c12 = conv_shape(1, 8, 8, 12, 12, 3, 3, 1, 1, 1, 12, BF, BF);
    CHECK_EQ_INT(plan_text(&c12, IGEMM_PATH_MEMORY, NULL, msg, sizeof msg), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "c = 12: needs c % 8 == 0") != NULL, "%s", msg);
    REQUIRE(plan_text(&c12, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS); /* another path takes it */
    CHECK_MSG(strstr(msg, "kernel mem_depthwise") == NULL, "%s", msg);

    /* two runs of one plan agree bit for bit (and match the reference); a 7x7 of 768 channels
     * (twelve channel blocks) with the fused epilogue */
    data_rng_t g = {test_seed(0xd3e2)};
    igemm_conv2d_desc_t d = conv_shape(2, 7, 9, 768, 768, 7, 7, 1, 3, 1, 768, F16, F32);
    igemm_epilogue_t e = epilogue_kind(2);
    check_plan_repeatable(&d, &e, &g, "kernel mem_depthwise", "depthwise");
}

/* Two live plans of one kernel instance whose tiles need different shared memory (both above the
 * 48 KB default): run big, small, big again. The limit is a process-wide attribute of the kernel;
 * the small plan must not lower it under the big one (MobileNetV2 under igemm.optimize failed so:
 * "depthwise launch (c = 144, 3x3): invalid argument"). Each run matches the reference. */
TEST(gpu_depthwise_plans_share_kernel)
{
    SKIP_WITHOUT_GPU();
    data_rng_t g = {test_seed(0xd3e3)};
    const igemm_conv2d_desc_t d = conv_shape(2, 40, 40, 64, 64, 3, 3, 1, 1, 1, 64, BF, BF);
    const igemm_epilogue_t e = epilogue_kind(0);
    problem_t pb;
    if (problem_init(&pb, &d, &e, &g, 1) != 0) {
        problem_free(&pb);
        return;
    }
    /* the tiled kernel's plans, then the mma kernel's, then the TMA kernel's (sm_90) */
    for (int kern = 0; kern < (device_is_sm90() ? 3 : 2); kern++) {
        igemm_plan_t *plan[2] = {NULL, NULL};
        static const char *const hints[3][2] = {
            {"kernel=depthwise_tiled,tile_n=64,rows_per_tile=16,tile_m=512", "kernel=depthwise_tiled,tile_n=64,rows_per_tile=8,tile_m=256"},
            {"kernel=depthwise_mma,tile_n=64,rows_per_tile=12,tile_m=480", "kernel=depthwise_mma,tile_n=64,rows_per_tile=8,tile_m=320"},
            {"kernel=depthwise_tma,tile_n=64,rows_per_tile=16,tile_m=640", "kernel=depthwise_tma,tile_n=64,rows_per_tile=4,tile_m=128"}};
        for (int i = 0; i < 2; i++) {
            igemm_plan_hints_t h;
            REQUIRE(igemm_plan_hints_parse(hints[kern][i], &h) == IGEMM_STATUS_SUCCESS);
            igemm_plan_options_t o = igemm_plan_options_default();
            o.path = IGEMM_PATH_MEMORY;
            o.hints = &h;
            const igemm_status_t st = igemm_plan_create(&plan[i], &d, &e, &o);
            CHECK_MSG(st == IGEMM_STATUS_SUCCESS, "hints %s: %s", hints[kern][i], igemm_last_error());
            if (st != IGEMM_STATUS_SUCCESS) goto done;
            const char *desc = igemm_plan_describe(plan[i]);
            CHECK_MSG(strstr(desc, kern == 2 ? "tma; persistent" : kern ? "mma.sync" : "tiled; persistent") != NULL, "%s",
                      desc);
        }
        /* the two tiles' shared memory, from the descriptions: different, both over 48 KB */
        {
            size_t b[2] = {0, 0};
            for (int i = 0; i < 2; i++) {
                const char *m = strstr(igemm_plan_describe(plan[i]), " B of shared memory");
                const char *q = m;
                while (q && q > igemm_plan_describe(plan[i]) && q[-1] >= '0' && q[-1] <= '9') q--;
                if (q) b[i] = (size_t)strtoull(q, NULL, 10);
            }
            CHECK_MSG(b[0] > b[1] && b[1] > 48 * 1024, "shared memory %zu and %zu B", b[0], b[1]);
        }
        static const int order[3] = {0, 1, 0};
        for (int i = 0; i < 3; i++) {
            const igemm_status_t rs = problem_run(&pb, plan[order[i]], NULL);
            CHECK_MSG(rs == IGEMM_STATUS_SUCCESS, "run %d (plan %d): %s", i, order[i], igemm_last_error());
            if (rs == IGEMM_STATUS_SUCCESS) CHECK_EQ_INT((int)problem_check(&pb, "dw shared kernel", NULL), 0);
        }
    done:
        for (int i = 0; i < 2; i++) igemm_plan_destroy(plan[i]);
    }
    problem_free(&pb);
}

#endif
