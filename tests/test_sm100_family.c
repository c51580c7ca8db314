/*
 * test_sm100_family.c — the Blackwell family in the planner (src/sm100/family_conv.cu) and its
 * first-use self-check (src/selfcheck.h), on the CPU with fake devices: the family takes problems
 * on compute capability 10.0 only; no plan gets it before its self-check passed on the device;
 * hints.self_check = -1 makes the check fail without running, and the plan then takes the general
 * path with the reason in its description; a forced path or kernel fails with that reason; on a
 * machine where the check cannot pass (no GPU, or a GPU that is no B200) the outcome is the same
 * refusal with the check's own reason. The configuration (tile, stages, shared memory) of the
 * family is checked against the 227 KB budget.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_problem.h"
#include "igemm.h"
#include "test.h"

#ifndef IGEMM_HAVE_CUDA

TEST(sm100_family_planner) { test_skip("built without CUDA: the planner has no families"); }
TEST(sm100_family_configure) { test_skip("built without CUDA: the planner has no families"); }
TEST(sm100_family_gemm) { test_skip("built without CUDA: the planner has no families"); }

#else /* IGEMM_HAVE_CUDA */

#include "fake_device.h"
#include "gemm_problem.h"
#include "plan.h"

/* The planner's choice for d (bias + ReLU) on fake device `dev` under path and hints; the
 * description or the error into msg. */
static igemm_status_t fake_plan(const igemm_conv2d_desc_t *d, int dev, igemm_path_t path, const char *hints, char *msg,
                                size_t len)
{
    igemm_epilogue_t e = igemm_epilogue_default();
    e.has_bias = 1;
    e.activation = IGEMM_ACT_RELU;
    const char *text = "";
    const igemm_status_t st = fake_planner_choose(d, &e, dev, path, hints, &text);
    snprintf(msg, len, "%s", text);
    return st;
}

TEST(sm100_family_planner)
{
    static char msg[4096];
    const igemm_conv2d_desc_t d = conv_shape(8, 28, 28, 128, 256, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    /* the forced failure: the general path, and the description says why */
    REQUIRE(fake_plan(&d, FAKE_B200, IGEMM_PATH_AUTO, "self_check=-1", msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "path general") && strstr(msg, "sm100_tcgen05 not taken: its first-use self-check was made "
                                                       "to fail by hints.self_check = -1"),
              "%s", msg);
    /* forced onto the path or the kernel: NOT_SUPPORTED naming the check */
    CHECK_EQ_INT(fake_plan(&d, FAKE_B200, IGEMM_PATH_SM100, "self_check=-1", msg, sizeof msg), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "path = sm100") && strstr(msg, "self-check was made to fail"), "%s", msg);
    CHECK_EQ_INT(fake_plan(&d, FAKE_B200, IGEMM_PATH_AUTO, "kernel=tcgen05,self_check=-1", msg, sizeof msg),
                 IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "hints.kernel = tcgen05") && strstr(msg, "self-check was made to fail"), "%s", msg);
    /* without the hint the check runs: it cannot pass here (no GPU, or a GPU that is no B200: the
     * sm_100a kernel has no image for it), so the answer is the same fallback with the check's
     * own reason, remembered for the rest of the process */
    for (int rep = 0; rep < 2; rep++) {
        REQUIRE(fake_plan(&d, FAKE_B200, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
        CHECK_MSG(strstr(msg, "path general") &&
                      strstr(msg, "sm100_tcgen05 not taken: its first-use self-check on fake B200 failed: "),
                  "rep %d: %s", rep, msg);
    }
    /* never on Hopper or Ampere: refused before any check, by the compute capability */
    const int others[3] = {FAKE_H100_SXM, FAKE_H100_PCIE, FAKE_A100};
    for (int i = 0; i < 3; i++) {
        REQUIRE(fake_plan(&d, others[i], IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
        CHECK_MSG(strstr(msg, "path sm100") == NULL && strstr(msg, "self-check") == NULL, "dev %d: %s", others[i], msg);
        CHECK_EQ_INT(fake_plan(&d, others[i], IGEMM_PATH_AUTO, "kernel=tcgen05", msg, sizeof msg),
                     IGEMM_STATUS_NOT_SUPPORTED);
        CHECK_MSG(strstr(msg, "the tcgen05 kernel is built for sm_100a (cc 10.0) only"), "dev %d: %s", others[i], msg);
    }
    /* problems the family refuses are refused before the check: groups, a tile it has no instance of */
    const igemm_conv2d_desc_t g = conv_shape(8, 28, 28, 128, 256, 3, 3, 1, 1, 1, 2, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    CHECK_EQ_INT(fake_plan(&g, FAKE_B200, IGEMM_PATH_SM100, NULL, msg, sizeof msg), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "groups = 2") && strstr(msg, "self-check") == NULL, "%s", msg);
    CHECK_EQ_INT(fake_plan(&d, FAKE_B200, IGEMM_PATH_SM100, "tile_n=96", msg, sizeof msg), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "hints.tile_n = 96"), "%s", msg);
}

/* A GEMM (B stored N x K, as nn.Linear) runs on the conv engine as a 1x1 conv, so on a B200 it
 * reaches the same family (and the same self-check); B stored K x N goes to the strided kernel. */
TEST(sm100_family_gemm)
{
    static char msg[4096];
    igemm_gemm_params_t g;
    const igemm_gemm_desc_t gd = igemm_gemm_problem_packed(4096, 4096, 4096, 1, IGEMM_B_NK, IGEMM_DTYPE_BF16,
                                                           IGEMM_DTYPE_BF16);
    REQUIRE(igemm_gemm_problem_init(&gd, NULL, &g) == IGEMM_STATUS_SUCCESS);
    igemm_conv2d_desc_t conv;
    int64_t launches = 0, step[3];
    const char *why = NULL;
    REQUIRE(igemm_gemm_conv_mapping(&g, &conv, &launches, step, &why));
    CHECK_EQ_INT(launches, 1);
    REQUIRE(fake_plan(&conv, FAKE_B200, IGEMM_PATH_AUTO, "self_check=-1", msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "sm100_tcgen05 not taken: its first-use self-check was made to fail"), "%s", msg);
    /* the family itself takes it: a 1x1 with the tiled A map, on the 2-CTA pair's 256 x 256 tiles
     * (16 x 16 pairs fill the 148 SMs), or on 128 x 256 tiles of one CTA with tile_m = 128 */
    igemm_conv_params_t p;
    REQUIRE(igemm_problem_init(&conv, NULL, &p) == IGEMM_STATUS_SUCCESS);
    const igemm_device_info_t dev = fake_device(FAKE_B200);
    const igemm_plan_hints_t h = igemm_plan_hints_default();
    char w[256] = "";
    CHECK_MSG(igemm_family_sm100.supports(&p, &dev, &h, w, sizeof w), "%s", w);
    igemm_family_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    REQUIRE(igemm_family_sm100.configure(&p, &dev, &h, &cfg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "tiled A") && strstr(cfg.desc, "2-CTA pair, cta_group::2, 256 x 256") &&
                  strstr(cfg.desc, "tile 256x256x64") && strstr(cfg.desc, "256 pairs"),
              "%s", cfg.desc);
    igemm_plan_hints_t h1 = igemm_plan_hints_default();
    h1.tile_m = 128;
    memset(&cfg, 0, sizeof cfg);
    REQUIRE(igemm_family_sm100.configure(&p, &dev, &h1, &cfg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "tiled A") && strstr(cfg.desc, "tile 128x256x64") && strstr(cfg.desc, "(512)"),
              "%s", cfg.desc);
}

/* The family's configuration on a fake B200: the smallest tile that covers N (or the hint), the
 * most stages that fit, shared memory within the opt-in budget, and a description naming it. */
TEST(sm100_family_configure)
{
    const igemm_device_info_t dev = fake_device(FAKE_B200);
    static const struct {
        int64_t k;
        const char *hint;
        const char *tile;
    } t[] = {{40, NULL, "tile 128x64x64"}, {128, NULL, "tile 128x128x64"}, {136, NULL, "tile 128x256x64"},
             {1000, NULL, "tile 128x256x64"}, {1000, "tile_n=64", "tile 128x64x64"}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const igemm_conv2d_desc_t d = conv_shape(4, 14, 14, 64, t[i].k, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_F16, IGEMM_DTYPE_F32);
        igemm_conv_params_t p;
        REQUIRE(igemm_problem_init(&d, NULL, &p) == IGEMM_STATUS_SUCCESS);
        igemm_plan_hints_t h = igemm_plan_hints_default();
        if (t[i].hint) REQUIRE(igemm_plan_hints_parse(t[i].hint, &h) == IGEMM_STATUS_SUCCESS);
        char why[256] = "";
        REQUIRE(igemm_family_sm100.supports(&p, &dev, &h, why, sizeof why));
        igemm_family_config_t cfg;
        memset(&cfg, 0, sizeof cfg);
        REQUIRE(igemm_family_sm100.configure(&p, &dev, &h, &cfg) == IGEMM_STATUS_SUCCESS);
        CHECK_MSG(strstr(cfg.desc, t[i].tile) && strstr(cfg.desc, "tcgen05.mma cta_group::1") &&
                      strstr(cfg.desc, "im2col") && strstr(cfg.desc, "TMA stores through 2 output tiles"),
                  "k %lld: %s", (long long)t[i].k, cfg.desc);
        /* stages: at least 4 at every tile width within 227 KB; the smem figure in the text */
        int stages = 0;
        size_t smem = 0;
        const char *sp = strstr(cfg.desc, " stages");
        REQUIRE(sp != NULL);
        while (sp > cfg.desc && sp[-1] >= '0' && sp[-1] <= '9') sp--;
        stages = atoi(sp);
        const char *mp = strstr(cfg.desc, " B smem");
        REQUIRE(mp != NULL);
        while (mp > cfg.desc && mp[-1] >= '0' && mp[-1] <= '9') mp--;
        smem = (size_t)atoll(mp);
        CHECK_MSG(stages >= 4 && stages <= 16, "k %lld: %d stages", (long long)t[i].k, stages);
        CHECK_MSG(smem > 0 && smem <= (size_t)dev.smem_optin_per_block, "k %lld: %zu B", (long long)t[i].k, smem);
    }
    /* the 1x1 stride-1 unpadded conv reads x as a matrix (tiled map) */
    const igemm_conv2d_desc_t one = conv_shape(4, 14, 14, 64, 64, 1, 1, 1, 0, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    igemm_conv_params_t p;
    REQUIRE(igemm_problem_init(&one, NULL, &p) == IGEMM_STATUS_SUCCESS);
    igemm_plan_hints_t h = igemm_plan_hints_default();
    igemm_family_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    REQUIRE(igemm_family_sm100.configure(&p, &dev, &h, &cfg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "tiled A"), "%s", cfg.desc);
    /* y's rows not 16-byte multiples (k = 250 of f16: 500 bytes): direct stores; f32 of k = 4: TMA */
    igemm_conv2d_desc_t odd = one;
    odd.k = 250, odd.x_dtype = odd.w_dtype = odd.y_dtype = IGEMM_DTYPE_F16;
    REQUIRE(igemm_problem_init(&odd, NULL, &p) == IGEMM_STATUS_SUCCESS);
    memset(&cfg, 0, sizeof cfg);
    REQUIRE(igemm_family_sm100.configure(&p, &dev, &h, &cfg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "direct 16-byte stores"), "%s", cfg.desc);
    odd.k = 4, odd.y_dtype = IGEMM_DTYPE_F32;
    REQUIRE(igemm_problem_init(&odd, NULL, &p) == IGEMM_STATUS_SUCCESS);
    memset(&cfg, 0, sizeof cfg);
    REQUIRE(igemm_family_sm100.configure(&p, &dev, &h, &cfg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "TMA stores") && strstr(cfg.desc, "tile 128x64x64"), "%s", cfg.desc);
    /* a residual: by the epilogue-load warp where its source tiles leave 3+ stages (bf16, 256-wide
     * tiles: 8 tiles of 8 KB), else read by the epilogue warps (f32: 8 of 16 KB) */
    igemm_epilogue_t er = igemm_epilogue_default();
    er.has_residual = 1;
    igemm_conv2d_desc_t wide = conv_shape(4, 14, 14, 64, 256, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    REQUIRE(igemm_problem_init(&wide, &er, &p) == IGEMM_STATUS_SUCCESS);
    memset(&cfg, 0, sizeof cfg);
    REQUIRE(igemm_family_sm100.configure(&p, &dev, &h, &cfg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "epilogue load (the residual by TMA") && strstr(cfg.desc, "3 stages"), "%s", cfg.desc);
    wide.y_dtype = IGEMM_DTYPE_F32;
    REQUIRE(igemm_problem_init(&wide, &er, &p) == IGEMM_STATUS_SUCCESS);
    memset(&cfg, 0, sizeof cfg);
    REQUIRE(igemm_family_sm100.configure(&p, &dev, &h, &cfg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "idle: source tiles would leave fewer than 3 stages"), "%s", cfg.desc);
    /* the self-check's cases: each tile width, both A maps, valid problems the family takes */
    igemm_selfcheck_case_t cases[8];
    const int n = igemm_family_sm100.self_check_cases(&dev, cases, 8);
    CHECK(n >= 4);
    int widths = 0, tiled = 0, im2col = 0, direct = 0, res_tma = 0, res_global = 0;
    for (int i = 0; i < n; i++) {
        igemm_conv_params_t q;
        REQUIRE(igemm_problem_init(&cases[i].desc, &cases[i].epi, &q) == IGEMM_STATUS_SUCCESS);
        char why[256] = "";
        CHECK_MSG(igemm_family_sm100.supports(&q, &dev, &cases[i].hints, why, sizeof why), "case %d: %s", i, why);
        widths |= cases[i].hints.tile_n == 64 ? 1 : cases[i].hints.tile_n == 128 ? 2 : cases[i].hints.tile_n == 256 ? 4 : 0;
        if (q.r == 1 && q.s == 1 && q.pad_top == 0 && q.stride_h == 1) tiled++;
        else im2col++;
        igemm_family_config_t ccfg;
        memset(&ccfg, 0, sizeof ccfg);
        REQUIRE(igemm_family_sm100.configure(&q, &dev, &cases[i].hints, &ccfg) == IGEMM_STATUS_SUCCESS);
        if (strstr(ccfg.desc, "direct 16-byte stores")) direct++;
        if (strstr(ccfg.desc, "the residual by TMA")) res_tma++;
        if (strstr(ccfg.desc, "the epilogue reads it")) res_global++;
    }
    CHECK_EQ_INT(widths, 7);
    CHECK(tiled >= 1 && im2col >= 1);
    CHECK_MSG(direct >= 1 && direct < n, "%d of %d cases on direct stores: both epilogues must be covered", direct, n);
    CHECK_MSG(res_tma >= 1 && res_global >= 1, "residual cases: %d by the epilogue-load warp, %d by the epilogue warps",
              res_tma, res_global);
}

#endif /* IGEMM_HAVE_CUDA */
