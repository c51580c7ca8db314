/*
 * test_sm100_pair.c — the 2-CTA pair variant of the Blackwell family (cta_group::2, 256 x BN
 * tiles: src/sm100/conv_fprop_pair.cuh), on the CPU: its shared-memory plan, TMA bytes and the
 * kernel's arrival counts against values worked out by hand; the family's choice between the pair
 * and the single-CTA kernel (the rule in family_conv.cu, hints.tile_m), its description, its
 * refusals; the self-check's pair cases; and the forced self-check failure with the pair forced
 * (the plan still falls back, a forced kernel is refused). No Blackwell GPU runs any of it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sm100/smem_plan.h"
#include "sm100/tcgen05_desc.h"
#include "test.h"

/* The pair's configuration as family_conv.cu builds it: MMA 256 x bn, per CTA 128 rows of A and
 * bn / 2 rows of B, a cluster of 2, bf16 in, out_bytes out. */
static sm100_config_t pair_config(int bn, int out_bytes, int has_source)
{
    sm100_config_t c;
    memset(&c, 0, sizeof c);
    c.bm = 128, c.bn = bn / 2, c.bk = 64, c.mma_m = 256, c.mma_n = bn, c.cta_group = 2;
    c.cluster_m = 2, c.cluster_n = 1, c.in_bytes = 2, c.out_bytes = out_bytes, c.out_m = 128, c.out_n = 32;
    c.k_group = 1, c.out_stages = 2, c.accum_stages = 2, c.clc_stages = 2, c.has_source = has_source;
    c.stages = igemm_sm100_max_stages(&c);
    return c;
}

TEST(sm100_pair_smem_plan)
{
    sm100_plan_t p;
    char why[256] = "";
    /* 256 x 128, bf16 out, no residual: per stage A 128 x 128 B = 16,384 and B 64 x 128 B = 8,192;
     * 8 stages: A 131,072 + B 65,536 = 196,608, 2 output tiles 16,384 -> 212,992; barriers
     * 2 x 8 + 2 x 2 (accum) + 2 x 2 (throttle) + 2 x 2 (CLC) + 1 + 1 = 30 (240 B) -> 213,232;
     * 2 CLC responses (32 B) -> 213,264; the TMEM slot -> 213,268 (+1 KB: 214,292 <= 232,448).
     * 9 stages would need 221,184 + 16,384 = 237,568 before the barriers: over. */
    sm100_config_t c = pair_config(128, 2, 0);
    CHECK_EQ_INT(c.stages, 8);
    REQUIRE(igemm_sm100_plan(&c, &p, why, sizeof why) == 1);
    CHECK_EQ_INT(p.a_stage_bytes, 16384);
    CHECK_EQ_INT(p.b_stage_bytes, 8192);
    CHECK_EQ_INT(p.b_off, 131072);
    CHECK_EQ_INT(p.out_off, 196608);
    CHECK_EQ_INT(p.bar_off, 212992);
    CHECK_EQ_INT(p.barriers, 30);
    CHECK_EQ_INT(p.clc_resp_off, 213232);
    CHECK_EQ_INT(p.tmem_addr_off, 213264);
    CHECK_EQ_INT(p.total, 213268);
    /* the leader's full barrier receives both CTAs' A and B halves: 2 x (16,384 + 8,192) */
    CHECK_EQ_INT(p.input_expected_bytes, 49152);
    /* TMEM per CTA: 2 accumulators of 128 columns (each CTA holds its 128 rows x all 128) */
    CHECK_EQ_INT(p.tmem_cols, 256);
    /* the kernel's arrivals: acc_empty = lane 0 of the 4 epilogue warps of both CTAs; clc_empty =
     * scheduler + MMA issuer (leader) + 2 x (producer + 4 epilogue warps + epilogue load) */
    CHECK_EQ_INT(p.acc_empty_kernel_arv, 8);
    CHECK_EQ_INT(p.clc_empty_kernel_arv, 1 + 1 + 2 * (1 + 4 + 1));
    CHECK_EQ_INT(p.clc_empty_kernel_arv, 14);
    /* the seeds' thread counts for the same pair (smem_plan's formulas, cluster 2) */
    CHECK_EQ_INT(p.accum_consumer_arv, 256);
    CHECK_EQ_INT(p.clc_consumer_arv, 32 + 2 * 224);

    /* with a bf16 residual: 4 source tiles of 8 KB (32,768): 7 stages (172,032 + 16,384 + 32,768 =
     * 221,184, barriers 2 x 7 + 14 + 2 x 4 = 36 -> 221,472, responses -> 221,504, slot -> 221,508);
     * 8 would need 245,760 */
    c = pair_config(128, 2, 1);
    CHECK_EQ_INT(c.stages, 7);
    REQUIRE(igemm_sm100_plan(&c, &p, why, sizeof why) == 1);
    CHECK_EQ_INT(p.epi_load_stages, 4);
    CHECK_EQ_INT(p.src_off, 188416);
    CHECK_EQ_INT(p.bar_off, 221184);
    CHECK_EQ_INT(p.barriers, 36);
    CHECK_EQ_INT(p.total, 221508);

    /* 256 x 256 (the seeds' shape): B halves of 128 rows, 2 x (16,384 + 16,384) per stage, TMEM 512 */
    c = pair_config(256, 2, 0);
    CHECK_EQ_INT(c.stages, 6);
    REQUIRE(igemm_sm100_plan(&c, &p, why, sizeof why) == 1);
    CHECK_EQ_INT(p.input_expected_bytes, 65536);
    CHECK_EQ_INT(p.tmem_cols, 512);
    CHECK_EQ_INT(p.acc_empty_kernel_arv, 8);
    /* f32 out with a residual: 8 source tiles of 16 KB leave 2 stages (the family then reads the
     * residual in the epilogue warps: 3 stages are its minimum for source tiles) */
    c = pair_config(256, 4, 1);
    CHECK_EQ_INT(c.stages, 2);

    /* the single-CTA kernel's counts from the same formulas: 4 and 8 (conv_fprop.cuh's literals) */
    sm100_config_t s = c;
    s.bn = 128, s.mma_m = 128, s.mma_n = 128, s.cta_group = 1, s.cluster_m = 1, s.has_source = 0, s.out_bytes = 2;
    s.stages = 4;
    REQUIRE(igemm_sm100_plan(&s, &p, why, sizeof why) == 1);
    CHECK_EQ_INT(p.acc_empty_kernel_arv, 4);
    CHECK_EQ_INT(p.clc_empty_kernel_arv, 8);
    CHECK_EQ_INT(p.input_expected_bytes, 16384 + 16384);

    /* the pair's instruction descriptor: M 256 (16 at bit 24), N 128 (16 at bit 17), bf16 -> f32 */
    CHECK_EQ_INT(igemm_tcgen05_idesc_f16(256, 128, 1, 1, 0, 0, 2),
                 (1u << 4) | (1u << 7) | (1u << 10) | (16u << 17) | (16u << 24));
}

#ifndef IGEMM_HAVE_CUDA

TEST(sm100_pair_family) { test_skip("built without CUDA: the planner has no families"); }

#else /* IGEMM_HAVE_CUDA */

#include "fake_device.h"
#include "gpu_problem.h"
#include "plan.h"

/* configure() of the family for d under hints text h on a fake B200: the status, the description. */
static igemm_status_t pair_configure(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, const char *h,
                                     igemm_family_config_t *cfg, char *why, size_t why_len)
{
    igemm_conv_params_t p;
    if (igemm_problem_init(d, e, &p) != IGEMM_STATUS_SUCCESS) return IGEMM_STATUS_INVALID_VALUE;
    const igemm_device_info_t dev = fake_device(FAKE_B200);
    igemm_plan_hints_t hints = igemm_plan_hints_default();
    if (h && igemm_plan_hints_parse(h, &hints) != IGEMM_STATUS_SUCCESS) return IGEMM_STATUS_INVALID_VALUE;
    why[0] = '\0';
    if (!igemm_family_sm100.supports(&p, &dev, &hints, why, why_len)) return IGEMM_STATUS_NOT_SUPPORTED;
    memset(cfg, 0, sizeof *cfg);
    return igemm_family_sm100.configure(&p, &dev, &hints, cfg);
}

TEST(sm100_pair_family)
{
    static char msg[4096];
    char why[256];
    igemm_family_config_t cfg;
    /* a large layer (M = 32 x 56 x 56 = 100,352, k 256): 392 x 1 pair tiles fill 148 SMs: the pair */
    const igemm_conv2d_desc_t big = conv_shape(32, 56, 56, 64, 256, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    REQUIRE(pair_configure(&big, NULL, NULL, &cfg, why, sizeof why) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "tcgen05 2-CTA pair, cta_group::2, 256 x 256") && strstr(cfg.desc, "tile 256x256x64") &&
                  strstr(cfg.desc, "im2col") && strstr(cfg.desc, "128 rows of A, 128 of B") &&
                  strstr(cfg.desc, "392 pairs") && strstr(cfg.desc, "6 stages") &&
                  strstr(cfg.desc, "self-check on this device"),
              "%s", cfg.desc);
    /* k 128: 256 x 128 pair tiles (B halves of 64 rows), 8 stages */
    igemm_conv2d_desc_t d = big;
    d.k = 128;
    REQUIRE(pair_configure(&d, NULL, NULL, &cfg, why, sizeof why) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "256 x 128") && strstr(cfg.desc, "64 of B") && strstr(cfg.desc, "8 stages"), "%s",
              cfg.desc);
    /* tile_m = 128 forces the single-CTA kernel; k <= 64 (64-wide tiles) stays single */
    REQUIRE(pair_configure(&big, NULL, "tile_m=128", &cfg, why, sizeof why) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "tcgen05.mma cta_group::1") && strstr(cfg.desc, "tile 128x256x64"), "%s", cfg.desc);
    d.k = 64;
    REQUIRE(pair_configure(&d, NULL, NULL, &cfg, why, sizeof why) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "cta_group::1") && strstr(cfg.desc, "tile 128x64x64"), "%s", cfg.desc);
    /* a small layer (M = 4 x 14 x 14 = 784, k 256: 4 pair tiles, 8 CTAs of 148): single; forced: pair
     * (tile_n defaults to the width that covers N, 128 at least) */
    const igemm_conv2d_desc_t small = conv_shape(4, 14, 14, 64, 256, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_F16, IGEMM_DTYPE_F32);
    REQUIRE(pair_configure(&small, NULL, NULL, &cfg, why, sizeof why) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "cta_group::1"), "%s", cfg.desc);
    REQUIRE(pair_configure(&small, NULL, "tile_m=256", &cfg, why, sizeof why) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "2-CTA pair, cta_group::2, 256 x 256") && strstr(cfg.desc, "4 pairs"), "%s", cfg.desc);
    d = small, d.k = 40;
    REQUIRE(pair_configure(&d, NULL, "tile_m=256", &cfg, why, sizeof why) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "256 x 128"), "%s", cfg.desc);
    /* a residual: by the epilogue-load warp (bf16, 256 x 128: 7 stages) or by the epilogue warps
     * (f32, 256 x 256: the source tiles would leave 2 stages) */
    igemm_epilogue_t er = igemm_epilogue_default();
    er.has_residual = 1;
    d = big, d.k = 128;
    REQUIRE(pair_configure(&d, &er, NULL, &cfg, why, sizeof why) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "2-CTA pair") && strstr(cfg.desc, "the residual by TMA") && strstr(cfg.desc, "7 stages"),
              "%s", cfg.desc);
    d = big, d.y_dtype = IGEMM_DTYPE_F32;
    REQUIRE(pair_configure(&d, &er, NULL, &cfg, why, sizeof why) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(cfg.desc, "2-CTA pair") && strstr(cfg.desc, "idle: source tiles would leave fewer than 3") &&
                  strstr(cfg.desc, "self-check on this device"),
              "%s", cfg.desc);
    /* refusals: tile_m values the family has no kernel for, a 64-wide pair, M < 256 */
    CHECK_EQ_INT(pair_configure(&big, NULL, "tile_m=192", &cfg, why, sizeof why), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(why, "tile_m = 192") && strstr(why, "256 (a 2-CTA pair)"), "%s", why);
    CHECK_EQ_INT(pair_configure(&big, NULL, "tile=256x64", &cfg, why, sizeof why), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(why, "256 x 128 or 256 x 256"), "%s", why);
    const igemm_conv2d_desc_t tiny = conv_shape(1, 10, 10, 64, 128, 1, 1, 1, 0, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    CHECK_EQ_INT(pair_configure(&tiny, NULL, "tile_m=256", &cfg, why, sizeof why), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(why, "M = 100") && strstr(why, "needs M >= 256"), "%s", why);

    /* the self-check covers the pair: cases forced onto it (tile_m = 256) that configure to it, both
     * widths, both A maps, both residual paths */
    const igemm_device_info_t dev = fake_device(FAKE_B200);
    igemm_selfcheck_case_t cases[8];
    const int n = igemm_family_sm100.self_check_cases(&dev, cases, 8);
    int pairs = 0, widths = 0, tiled = 0, res_tma = 0, res_epi = 0;
    for (int i = 0; i < n; i++) {
        if (cases[i].hints.tile_m != 256) continue;
        pairs++;
        igemm_conv_params_t q;
        REQUIRE(igemm_problem_init(&cases[i].desc, &cases[i].epi, &q) == IGEMM_STATUS_SUCCESS);
        CHECK_MSG(igemm_family_sm100.supports(&q, &dev, &cases[i].hints, why, sizeof why), "case %d: %s", i, why);
        memset(&cfg, 0, sizeof cfg);
        REQUIRE(igemm_family_sm100.configure(&q, &dev, &cases[i].hints, &cfg) == IGEMM_STATUS_SUCCESS);
        CHECK_MSG(strstr(cfg.desc, "2-CTA pair, cta_group::2"), "case %d: %s", i, cfg.desc);
        widths |= strstr(cfg.desc, "256 x 128") ? 1 : strstr(cfg.desc, "256 x 256") ? 2 : 0;
        if (strstr(cfg.desc, "tiled A")) tiled++;
        if (strstr(cfg.desc, "the residual by TMA")) res_tma++;
        if (strstr(cfg.desc, "the epilogue reads")) res_epi++;
        if ((q.gemm_m + 127) / 128 % 2 == 1) widths |= 4; /* an odd count of row tiles */
    }
    CHECK_MSG(pairs >= 3 && n <= 8, "%d pair cases of %d", pairs, n);
    CHECK_EQ_INT(widths, 7);
    CHECK(tiled >= 1 && tiled < pairs);
    CHECK(res_tma >= 1 && res_epi >= 1);

    /* the forced failure with the pair forced: the general path, and why; forced kernel: refused */
    const char *text = "";
    REQUIRE(fake_planner_choose(&big, NULL, FAKE_B200, IGEMM_PATH_AUTO, "tile_m=256,self_check=-1", &text) ==
            IGEMM_STATUS_SUCCESS);
    snprintf(msg, sizeof msg, "%s", text);
    CHECK_MSG(strstr(msg, "path general") && strstr(msg, "sm100_tcgen05 not taken: its first-use self-check was made "
                                                       "to fail"),
              "%s", msg);
    CHECK_EQ_INT(fake_planner_choose(&big, NULL, FAKE_B200, IGEMM_PATH_AUTO, "kernel=tcgen05,tile_m=256,self_check=-1",
                                     &text),
                 IGEMM_STATUS_NOT_SUPPORTED);
    snprintf(msg, sizeof msg, "%s", text);
    CHECK_MSG(strstr(msg, "hints.kernel = tcgen05") && strstr(msg, "self-check was made to fail"), "%s", msg);
    /* without the hint the check runs and cannot pass here (no B200): the same fallback, the check's reason */
    REQUIRE(fake_planner_choose(&big, NULL, FAKE_B200, IGEMM_PATH_AUTO, "tile_m=256", &text) == IGEMM_STATUS_SUCCESS);
    snprintf(msg, sizeof msg, "%s", text);
    CHECK_MSG(strstr(msg, "path sm100") == NULL && strstr(msg, "sm100_tcgen05 not taken: its first-use self-check on "
                                                               "fake B200 failed: "),
              "%s", msg);
}

#endif /* IGEMM_HAVE_CUDA */
