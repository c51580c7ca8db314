/*
 * test_grouped.c — the grouped-conv family (src/mem/grouped.cu, IGEMM_PATH_MEMORY): convs of
 * 1 < groups < c with c/g and k/g multiples of 8, k/g <= 32. On the GPU (gpu_problem.h says what
 * every check checks: guards, poisoned y, unchanged inputs, tolerances): random grouped convs
 * forced onto the path — groups of 8 channels (one column tile) and of 16-32 (several), slabs of
 * 4 groups of 8 and of 8 groups of 4 (one warp over 32 input channels) and group counts that
 * make none, c/g != k/g,
 * depths that are not a multiple of the 32-deep chunk (a partial last chunk) and longer than one
 * unrolled step, 1x1 / 3x3 / 5x5 / 1x7 filters, stride 2, padding, dilation, pixel counts that are
 * not a multiple of the warp's block, every epilogue, fp16 and bf16 in, f16/bf16/f32 out; the
 * planner's choice under AUTO (ResNeXt's and RegNet's grouped 3x3s take it; depthwise, 12 groups of
 * 4 channels and groups of 64 do not, and say why); two runs agree bit for bit. Both kernels: the
 * tiled one (the default for groups of 8..32 channels; also under random tiles, partial tiles and
 * small grids) and the gather one (groups of 4; forced by filter_resident = -1 on the rest).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu_problem.h"
#include "igemm.h"
#include "test.h"

#ifndef IGEMM_HAVE_CUDA

GPU_SKIP_TEST(gpu_grouped_random)
GPU_SKIP_TEST(gpu_grouped_tiled_random)
GPU_SKIP_TEST(gpu_grouped_gather_random)
GPU_SKIP_TEST(gpu_grouped_planner)

#else /* IGEMM_HAVE_CUDA */

#define F16 IGEMM_DTYPE_F16
#define BF IGEMM_DTYPE_BF16
#define F32 IGEMM_DTYPE_F32

/* a random narrow-group conv */
static igemm_conv2d_desc_t gen_grouped(data_rng_t *g, int it)
{
    static const int64_t fil[5][2] = {{3, 3}, {1, 1}, {3, 3}, {5, 5}, {1, 7}};
    int64_t cg = 8 * data_rng_int(g, 1, it % 3 == 0 ? 4 : 2);
    int64_t kg = it % 4 == 1 ? 8 : 8 * data_rng_int(g, 1, 4);
    int64_t groups = data_rng_int(g, 2, it % 5 == 0 ? 12 : 5);
    /* slabs of several groups (32 input channels of one tap per chunk) */
    if (it % 10 == 2) cg = 8, kg = 8, groups = 4 * data_rng_int(g, 1, 3);
    if (it % 10 == 7) cg = 16, kg = 8 * data_rng_int(g, 1, 2), groups = 2 * data_rng_int(g, 1, 4);
    if (it % 10 == 5) cg = 8, kg = 8, groups = 2 * data_rng_int(g, 1, 5) + 1; /* odd: no slabs */
    if (it % 10 == 9) cg = 4, kg = 4, groups = 8 * data_rng_int(g, 1, 3);     /* slabs of 8 groups of 4 */
    const int64_t r = fil[it % 5][0], s = fil[it % 5][1];
    const int64_t stride = it % 6 == 5 ? 2 : 1;
    const int64_t dil = it % 9 == 7 ? 2 : 1;
    const int64_t n = data_rng_int(g, 1, 3);
    const int64_t h = data_rng_int(g, 5, 20), w = data_rng_int(g, 5, 20);
    const igemm_dtype_t in = it % 2 ? F16 : BF;
    const igemm_dtype_t out = it % 3 == 1 ? F32 : it % 3 == 2 ? in : (in == F16 ? BF : F16);
    igemm_conv2d_desc_t d = conv_shape(n, h, w, cg * groups, kg * groups, r, s, stride, 0, dil, groups, in, out);
    conv_pad_random(&d, it % 4 != 3, it % 8 == 6); /* "same" on most, none on some, asymmetric on a few */
    return d;
}

TEST(gpu_grouped_random)
{
    SKIP_WITHOUT_GPU();
    run_memory_random(gen_grouped, 150, 0x6a0e, "kernel mem_grouped", "grouped");
}

/* The output height of d. */
static int64_t out_rows(const igemm_conv2d_desc_t *d)
{
    return (d->h + d->pad_top + d->pad_bottom - d->dil_h * (d->r - 1) - 1) / d->stride_h + 1;
}

/* The tiled kernel under random tiles and grids (forced by filter_resident = 1): output row bands
 * of 1..P rows (partial last bands), column tiles of 8 where q > 8 (partial last tiles, a window
 * per tile), grids of 1..9 CTAs (several items per CTA: the ring of 2..4 input buffers; grids
 * rounded to whole slab counts), on the generator's groups of 8..32 channels (not 4). */
static int skip_groups_of_4(int it) { return it % 10 == 9; }

static void tiled_hints(data_rng_t *g, int it, const igemm_conv2d_desc_t *d, igemm_plan_hints_t *h)
{
    const int64_t p = out_rows(d);
    h->filter_resident = 1;
    h->rows_per_tile = (int)data_rng_int(g, 1, p < 6 ? p : 6);
    const int64_t q = (d->w + d->pad_left + d->pad_right - d->dil_w * (d->s - 1) - 1) / d->stride_w + 1;
    if (it % 3 == 0 && q > 8) h->tile_m = 8 * h->rows_per_tile;
    if (it % 2 == 0) h->grid = (int)data_rng_int(g, 1, 9);
    if (it % 4 == 1) h->stages = (int)data_rng_int(g, 2, 4);
}

TEST(gpu_grouped_tiled_random)
{
    SKIP_WITHOUT_GPU();
    run_memory_random_hinted(gen_grouped, skip_groups_of_4, tiled_hints, 120, 0x6a10, "), tiled:", "grouped tiled");
}

/* The gather kernel (filter_resident = -1) on the same generator: the planner takes it only for
 * groups of 4 and windows too large for shared memory. */
static void gather_hints(data_rng_t *g, int it, const igemm_conv2d_desc_t *d, igemm_plan_hints_t *h)
{
    (void)g, (void)it, (void)d;
    h->filter_resident = -1;
}

TEST(gpu_grouped_gather_random)
{
    SKIP_WITHOUT_GPU();
    run_memory_random_hinted(gen_grouped, NULL, gather_hints, 60, 0x6a11, "gathered", "grouped gather");
}

TEST(gpu_grouped_planner)
{
    SKIP_WITHOUT_GPU();
    static char msg[4096];
    /* ResNeXt's 32 groups of 8 and of 32 channels, RegNet's groups of 8: the family */
    igemm_conv2d_desc_t rx = conv_shape(2, 28, 28, 256, 256, 3, 3, 1, 1, 1, 32, BF, BF);
    REQUIRE(plan_text(&rx, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_grouped") && strstr(msg, "grouped conv (32 groups of 8 -> 8 channels, filter 3x3") &&
                  strstr(msg, "), tiled:"),
              "%s", msg);
    /* the gather kernel by the hint, saying why not the tiled one */
    REQUIRE(plan_text(&rx, IGEMM_PATH_AUTO, "filter_resident=-1", msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_grouped") && strstr(msg, "slab of 4 group(s)") &&
                  strstr(msg, "gathered (not the tiled kernel: filter_resident = -1)"),
              "%s", msg);
    /* tiling hints the tiled kernel cannot take: refused with the reason */
    CHECK_EQ_INT(plan_text(&rx, IGEMM_PATH_MEMORY, "tile_n=40", msg, sizeof msg), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "allowed by the hints") != NULL, "%s", msg);
    CHECK_EQ_INT(plan_text(&rx, IGEMM_PATH_MEMORY, "filter_resident=-1,rows_per_tile=2", msg, sizeof msg),
                 IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "with tile_n / rows_per_tile / tile_m / stages") != NULL, "%s", msg);
    igemm_conv2d_desc_t rx2 = conv_shape(2, 14, 14, 1024, 1024, 3, 3, 2, 1, 1, 32, F16, F16);
    REQUIRE(plan_text(&rx2, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    /* groups of 32 on Hopper: the sm90 grouped tiles (faster: decisions.md "sm90-grouped"), saying why */
    if (device_is_sm90())
        CHECK_MSG(strstr(msg, "kernel sm90_tma_wgmma") && strstr(msg, "grouped: 32 groups of 32 -> 32") &&
                      strstr(msg, "mem_grouped not taken: c/g = 32, k/g = 32: the sm90 grouped tiles take"),
                  "%s", msg);
    else
        CHECK_MSG(strstr(msg, "kernel mem_grouped") != NULL, "%s", msg);
    REQUIRE(plan_text(&rx2, IGEMM_PATH_MEMORY, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS); /* forced: the family */
    CHECK_MSG(strstr(msg, "kernel mem_grouped") != NULL, "%s", msg);
    /* depthwise, groups of 4 channels and groups of 64 output channels: not this family */
    igemm_conv2d_desc_t dw = conv_shape(1, 8, 8, 64, 64, 3, 3, 1, 1, 1, 64, BF, BF);
    REQUIRE(plan_text(&dw, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_depthwise") != NULL, "%s", msg);
    igemm_conv2d_desc_t g4 = conv_shape(1, 8, 8, 48, 48, 3, 3, 1, 1, 1, 12, BF, BF); /* 12 groups of 4 */
    CHECK_EQ_INT(plan_text(&g4, IGEMM_PATH_MEMORY, NULL, msg, sizeof msg), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "c/g = 4, k/g = 4") != NULL, "%s", msg);
    REQUIRE(plan_text(&g4, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS); /* another path takes it */
    CHECK_MSG(strstr(msg, "kernel mem_grouped") == NULL, "%s", msg);
    igemm_conv2d_desc_t g64 = conv_shape(1, 8, 8, 256, 256, 3, 3, 1, 1, 1, 4, BF, BF);
    CHECK_EQ_INT(plan_text(&g64, IGEMM_PATH_MEMORY, NULL, msg, sizeof msg), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "c/g = 64, k/g = 64") != NULL, "%s", msg);

    /* two runs of one plan agree bit for bit (and match the reference): 6 groups of 16 -> 24
     * channels, 3x3 stride 2, with the fused epilogue and f32 out */
    data_rng_t g = {test_seed(0x6a0f)};
    igemm_conv2d_desc_t d = conv_shape(2, 15, 13, 96, 144, 3, 3, 2, 1, 1, 6, F16, F32);
    igemm_epilogue_t e = epilogue_kind(2);
    check_plan_repeatable(&d, &e, &g, "kernel mem_grouped", "grouped");
    /* RegNet's 6 groups of 8: one group per warp (a partial slab measured slower) */
    igemm_conv2d_desc_t rg = conv_shape(2, 28, 28, 48, 48, 3, 3, 1, 1, 1, 6, BF, BF);
    REQUIRE(plan_text(&rg, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_grouped") && strstr(msg, "), tiled:"), "%s", msg);
    /* ResNeXt-50's first stage: 32 groups of 4 channels, slabs of 8 */
    igemm_conv2d_desc_t r1 = conv_shape(2, 14, 14, 128, 128, 3, 3, 1, 1, 1, 32, BF, BF);
    REQUIRE(plan_text(&r1, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_grouped") && strstr(msg, "slab of 8 group(s)") &&
                  strstr(msg, "c/g = 4, k/g = 4: the tiled kernel takes multiples of 8"),
              "%s", msg);
    /* and 8 groups of 8 (ResNeXt's widths) on the tiled kernel, 3x3 stride 1, bf16 */
    igemm_conv2d_desc_t d4 = conv_shape(2, 9, 11, 64, 64, 3, 3, 1, 1, 1, 8, BF, BF);
    check_plan_repeatable(&d4, &e, &g, "), tiled:", "grouped tiled");
}

#endif
