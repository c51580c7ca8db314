/*
 * test_sm90_grouped.c — grouped convs on the sm90 cooperative kernel (src/sm90/heuristics_grouped.c,
 * sm90.h sm90_group_tile, conv_cooperative.cuh with GW > 0).
 *   heur_sm90_grouped (CPU)      the form each group width gets (slabs of two 32-channel groups
 *                                with windows of k/g = 32 or 64; tiles inside one group for k/g a
 *                                multiple of 64), the refusals and their reasons (group
 *                                widths without a form, f32 y, hints the tile cannot take), the
 *                                description naming the form, on the fake H100 SXM, H100 PCIe, A100.
 *   gpu_sm90_grouped_random      random grouped convs forced onto IGEMM_PATH_SM90 against the
 *                                reference (gpu_problem.h: guards, poisoned y, unchanged inputs):
 *                                every form and window (groups of 32 in slabs, odd counts leaving a
 *                                half slab; 64, 128, and input widths that are not a multiple of 64
 *                                inside one group), group counts
 *                                that leave the last slab or tile partial, 1x1 (the tiled A map) to
 *                                5x5 and 1x7 filters, stride 2, dilation, asymmetric padding, pixel
 *                                counts that are not a multiple of 128, every epilogue, fp16 / bf16.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "igemm.h"
#include "test.h"

#ifndef IGEMM_HAVE_CUDA

TEST(heur_sm90_grouped) { test_skip("built without CUDA: the planner has no families"); }

#include "gpu_problem.h"
GPU_SKIP_TEST(gpu_sm90_grouped_random)

#else /* IGEMM_HAVE_CUDA */

#include "fake_device.h"
#include "gpu_problem.h"
#include "plan.h"
#include "sm90/sm90.h"

/* Plans d on the sm90 path of fake device dev under hints; returns the status, *msg the
 * description or the error. */
static igemm_status_t plan_sm90(const igemm_conv2d_desc_t *d, int dev, const char *hints, const char **msg)
{
    return fake_planner_choose(d, NULL, dev, IGEMM_PATH_SM90, hints, msg);
}

static igemm_conv2d_desc_t grouped(int64_t groups, int64_t cg, int64_t kg, int64_t r, igemm_dtype_t y)
{
    igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
    d.n = 4, d.h = d.w = 14, d.c = groups * cg, d.k = groups * kg, d.groups = groups;
    d.r = d.s = r;
    d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = r / 2;
    d.y_dtype = y;
    return d;
}

TEST(heur_sm90_grouped)
{
    /* (cg, kg) -> the form: BN, window, boxes (0 0 0: none) */
    static const int64_t forms[][5] = {
        {32, 32, 64, 32, 2},   {32, 64, 128, 64, 2}, {64, 64, 64, 64, 1}, {128, 128, 128, 128, 1}, {40, 64, 64, 64, 1},
        {8, 192, 64, 64, 1},   {32, 128, 128, 128, 1}, {8, 8, 0, 0, 0},   {16, 16, 0, 0, 0},       {24, 24, 0, 0, 0},
        {16, 32, 0, 0, 0},     {64, 32, 0, 0, 0},    {32, 16, 0, 0, 0},   {12, 12, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        const int64_t cg = forms[i][0], kg = forms[i][1];
        igemm_conv2d_desc_t d = grouped(8, cg, kg, 3, IGEMM_DTYPE_BF16);
        igemm_conv_params_t p;
        igemm_epilogue_t e = igemm_epilogue_default();
        REQUIRE(igemm_problem_init(&d, &e, &p) == IGEMM_STATUS_SUCCESS); /* (c/g = 12: c = 96 is fine) */
        int bn = 0, gw = 0, boxes = 0;
        const int ok = sm90_group_tile(&p, &bn, &gw, &boxes);
        CHECK_MSG(ok == (forms[i][2] != 0) && (!ok || (bn == forms[i][2] && gw == forms[i][3] && boxes == forms[i][4])),
                  "c/g %lld k/g %lld: form %d (%d, %d, %d), want (%lld, %lld, %lld)", (long long)cg, (long long)kg, ok,
                  bn, gw, boxes, (long long)forms[i][2], (long long)forms[i][3], (long long)forms[i][4]);
        for (int dev = 0; dev < 3; dev++) {
            const char *msg;
            const igemm_status_t st = plan_sm90(&d, dev, "", &msg);
            if (dev == FAKE_A100) {
                CHECK_MSG(st == IGEMM_STATUS_NOT_SUPPORTED && strstr(msg, "sm_90a"), "%s", msg);
                continue;
            }
            if (!ok) {
                CHECK_MSG(st == IGEMM_STATUS_NOT_SUPPORTED && (strstr(msg, "the TMA im2col path takes groups of c/g = 32") ||
                                                               strstr(msg, "c % 8")),
                          "c/g %lld k/g %lld: %s", (long long)cg, (long long)kg, msg);
                continue;
            }
            CHECK_MSG(st == IGEMM_STATUS_SUCCESS && strstr(msg, "grouped: 8 groups of"), "%s", msg);
            char want[96];
            snprintf(want, sizeof want, "tile 128x%dx64", bn);
            CHECK_MSG(strstr(msg, want) != NULL, "%s: %s", want, msg);
            if (boxes > 1) {
                snprintf(want, sizeof want, "slabs of %d groups per tile", boxes);
                CHECK_MSG(strstr(msg, want) != NULL, "%s: %s", want, msg);
                snprintf(want, sizeof want, "m64n%dk16 per window", gw);
                CHECK_MSG(strstr(msg, want) != NULL, "%s: %s", want, msg);
            } else {
                CHECK_MSG(strstr(msg, "each tile inside one group") != NULL, "%s", msg);
            }
        }
    }
    /* y in f32: no TMA stores, refused with the reason */
    const char *msg;
    igemm_conv2d_desc_t d = grouped(32, 32, 32, 3, IGEMM_DTYPE_F32);
    CHECK(plan_sm90(&d, FAKE_H100_SXM, "", &msg) == IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "store y by TMA") != NULL, "%s", msg);
    /* hints the grouped tile cannot take, and those it can */
    d = grouped(32, 32, 32, 3, IGEMM_DTYPE_BF16);
    CHECK(plan_sm90(&d, FAKE_H100_SXM, "tile_n=128", &msg) == IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "the grouped tile is 128 x 64") != NULL, "%s", msg);
    CHECK(plan_sm90(&d, FAKE_H100_SXM, "kernel=pingpong", &msg) == IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "are cooperative") != NULL, "%s", msg);
    CHECK(plan_sm90(&d, FAKE_H100_SXM, "split_k=2", &msg) == IGEMM_STATUS_NOT_SUPPORTED);
    CHECK(plan_sm90(&d, FAKE_H100_SXM, "kernel=cooperative,tile_n=64,stages=3,grid=7", &msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "3 stages") && strstr(msg, "grid 7 over"), "%s", msg);
}

/* A random grouped conv that one of the sm90 forms takes; y of the input's dtype. */
static igemm_conv2d_desc_t gen_sm90_grouped(data_rng_t *g, int it)
{
    static const int64_t fil[6][2] = {{3, 3}, {1, 1}, {3, 3}, {5, 5}, {1, 7}, {1, 1}};
    int64_t cg, kg, groups;
    switch (it % 8) {
    case 0: cg = 32, kg = 32, groups = data_rng_int(g, 2, 11); break;  /* slabs of 2: odd counts leave half */
    case 1: cg = 32, kg = 64, groups = data_rng_int(g, 2, 5); break;   /* slabs of 2, 128 columns */
    case 2: cg = 32, kg = 32, groups = 2 * data_rng_int(g, 1, 6); break;
    case 3: cg = 8 * data_rng_int(g, 1, 12), kg = 64, groups = data_rng_int(g, 2, 5); break; /* inside one group */
    case 4: cg = 64, kg = 64, groups = data_rng_int(g, 2, 4); break;
    case 5: cg = 128 + 64 * data_rng_int(g, 0, 1), kg = 128, groups = 2; break;
    case 6: cg = 8 * data_rng_int(g, 3, 25), kg = 64 * data_rng_int(g, 1, 3), groups = data_rng_int(g, 2, 3); break;
    default: cg = 32, kg = 32, groups = 32; break;                      /* ResNeXt's widest */
    }
    const int64_t r = fil[it % 6][0], s = fil[it % 6][1];
    const int64_t stride = it % 5 == 4 ? 2 : 1;
    const int64_t dil = it % 7 == 6 ? 2 : 1;
    const int64_t n = data_rng_int(g, 1, 3);
    const int64_t h = data_rng_int(g, 3, 24), w = data_rng_int(g, 3, 24);
    const igemm_dtype_t in = it % 2 ? IGEMM_DTYPE_F16 : IGEMM_DTYPE_BF16;
    igemm_conv2d_desc_t d = conv_shape(n, h, w, cg * groups, kg * groups, r, s, stride, 0, dil, groups, in, in);
    /* "same" padding on most; none on some (1x1: the tiled A map); asymmetric on a few */
    conv_pad_random(&d, it % 4 != 3 && it % 6 != 5, it % 8 == 6);
    return d;
}

TEST(gpu_sm90_grouped_random)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    data_rng_t g = {test_seed(0x6a90)};
    run_stats_t st;
    memset(&st, 0, sizeof st);
    const int n = 160;
    for (int it = 0; it < n && st.failed < 5; it++) {
        const igemm_conv2d_desc_t d = gen_sm90_grouped(&g, it);
        igemm_epilogue_t e;
        gen_epilogue(&g, &e);
        REQUIRE(run_one(&d, &e, IGEMM_PATH_SM90, NULL, "grouped:", &g, &st, 0) >= 0);
    }
    fprintf(stdout, "  sm90 grouped: %d configs ran, %d failed, worst err/tol %.3f\n", st.ran[IGEMM_PATH_SM90],
            st.failed, st.worst);
    CHECK_EQ_INT(st.ran[IGEMM_PATH_SM90], n);
    CHECK_EQ_INT(st.failed, 0);
    CHECK_EQ_INT(st.refused, 0);
}

#endif /* IGEMM_HAVE_CUDA */
