/*
 * test_sm90_rows.c — the sm90 kernels that stage whole input rows, forced through the plan hints,
 * against the CPU reference (gpu_problem.h says what every check checks) under every epilogue
 * kind: halo rows (3x3 stride-1 convs of 64 channels: one-row and two-row tiles, two and three
 * consumers, one and two staging boxes), stem rows (c <= 4, stride_w 2: x read in place and through
 * the pre-pass, on the planner's grid and on a 3-CTA grid) and the fold (c % 8 != 0: each number of
 * folded filter rows). Every plan's description must name what was forced; plans of one problem
 * that differ only in scheduling must agree bit for bit. The row-tile kernels are in
 * test_sm90_kernels.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu_problem.h"
#include "igemm.h"
#include "test.h"

#ifndef IGEMM_HAVE_CUDA

GPU_SKIP_TEST(gpu_sm90_halo_rows)
GPU_SKIP_TEST(gpu_sm90_halo_consumers)
GPU_SKIP_TEST(gpu_sm90_stem_rows)
GPU_SKIP_TEST(gpu_sm90_fold_rows)
GPU_SKIP_TEST(gpu_sm90_fold_whole)

#else /* IGEMM_HAVE_CUDA */

#define F16 IGEMM_DTYPE_F16
#define BF IGEMM_DTYPE_BF16
#define F32 IGEMM_DTYPE_F32

/* ------------------------------------------------------------------ halo rows */

/* A halo-row test case: the problem, its grid hint and (or "") a staging-box hint. */
typedef struct halo_case {
    igemm_conv2d_desc_t d;
    int grid;
    const char *boxes;
} halo_case_t;

/* gpu_sm90_halo_rows' problem: forced twice, bit for bit (56-pixel rows in pairs: two-row tiles
 * against the one-row plan of rows_per_tile=1; else the planner's ring against 4 stages), then
 * the 128-pixel ping-pong plan (pixels as N) that the halo rows replace, forced on it */
static int halo_rows_one(problem_t *pb, int ci, int ek, const void *ctx)
{
    (void)ek;
    const halo_case_t *c = (const halo_case_t *)ctx + ci;
    const int two = pb->q == 56 && pb->p % 2 == 0;
    char base[64], off[96];
    snprintf(base, sizeof base, "kernel=halo_rows,grid=%d", c->grid);
    snprintf(off, sizeof off, "kernel=pixels_n_pingpong,filter_resident=1,grid=%d", c->grid);
    const char *const var_two[2] = {"rows_per_tile=2", "rows_per_tile=1"}, *const var_one[2] = {"", "stages=4"};
    const char *tile = two || pb->q % 112 == 0 ? "tile 112x64x64" : "tile 56x64x64";
    const char *want_on[] = {kernel_says(IGEMM_KERNEL_HALO_ROWS), tile,
                             two ? "two 56-pixel rows" : "!two 56-pixel rows", NULL};
    const char *want_one[] = {kernel_says(IGEMM_KERNEL_HALO_ROWS), "tile 56x64x64", "!two 56-pixel rows", NULL};
    const char *want_4[] = {kernel_says(IGEMM_KERNEL_HALO_ROWS), tile, ", 4 stages,", NULL};
    const char *const *const want[2] = {want_on, two ? want_one : want_4};
    const int ok = sm90_run_two(pb, base, two ? var_two : var_one, want, "sm90 halo rows", "halo-row runs differ");
    const char *want_off[] = {"!halo rows", kernel_says(IGEMM_KERNEL_PIXELS_N_PINGPONG), "tile 128x64x64", NULL};
    return ok && sm90_run_hinted(pb, off, want_off, "sm90 halo rows off");
}

/* Halo-row plans (kernel=halo_rows: 3x3 stride-1 convs of 64 channels, tiles of 112 or 56 pixels of
 * one image row, or of two whole 56-pixel rows, each filter row's three taps read from one input
 * row loaded with its halo, shifted by 0, 1, 2 pixels). Image edges (zero halo from the TMA's
 * out-of-bounds fill, top/bottom and left/right), one-row images, asymmetric padding, an N tail,
 * three tiles per row, every epilogue kind, bf16 and fp16, on small grids (several tiles per CTA,
 * the consumers in turn). */
TEST(gpu_sm90_halo_rows)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    halo_case_t cases[] = {
        {conv_shape(2, 6, 224, 64, 64, 3, 3, 1, 1, 1, 1, BF, BF), 3, ""},   /* 24 tiles, 2 per row */
        {conv_shape(1, 1, 112, 64, 40, 3, 3, 1, 1, 1, 1, BF, BF), 1, ""},   /* one row, N tail */
        {conv_shape(3, 3, 336, 64, 64, 3, 3, 1, 1, 1, 1, F16, F16), 4, ""}, /* 3 tiles per row */
        {conv_shape(2, 4, 224, 64, 64, 3, 3, 1, 1, 1, 1, F16, F16), 2, ""},
        {conv_shape(1, 5, 336, 64, 56, 3, 3, 1, 1, 1, 1, BF, BF), 5, ""},   /* asymmetric padding (below) */
        {conv_shape(2, 9, 56, 64, 64, 3, 3, 1, 1, 1, 1, BF, BF), 3, ""},    /* 56-pixel rows, p odd: TP = 56 */
        {conv_shape(1, 3, 168, 64, 48, 3, 3, 1, 1, 1, 1, F16, F16), 2, ""}, /* 3 x 56 per row, N tail */
        {conv_shape(2, 8, 56, 64, 64, 3, 3, 1, 1, 1, 1, BF, BF), 3, ""},    /* two-row tiles (p even) */
        {conv_shape(1, 2, 56, 64, 40, 3, 3, 1, 1, 1, 1, F16, F16), 1, ""},  /* one two-row tile, N tail */
        {conv_shape(3, 4, 56, 64, 64, 3, 3, 1, 1, 1, 1, F16, F16), 2, ""},
        {conv_shape(1, 6, 56, 64, 56, 3, 3, 1, 1, 1, 1, BF, BF), 2, ""},    /* asymmetric padding (below) */
    };
    cases[4].d.pad_top = 0, cases[4].d.pad_bottom = 2, cases[4].d.pad_left = 0, cases[4].d.pad_right = 2;
    cases[10].d.pad_top = 2, cases[10].d.pad_bottom = 0, cases[10].d.pad_left = 2, cases[10].d.pad_right = 0;
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    const int ran = sm90_each_case(&cases[0].d, sizeof cases[0], ncases, 0x6606, halo_rows_one, cases);
    if (ran < 0) return;
    CHECK_MSG(ran == 3 * ncases, "halo rows ran on %d of %d problems", ran, 3 * ncases);
}

/* gpu_sm90_halo_consumers' problem. Fused (a residual): the planner's three consumers taking the
 * 112-pixel tiles in turn against two in ping-pong (consumers=2); plain: one staging box per
 * consumer against two. Bit for bit. */
static int halo_consumers_one(problem_t *pb, int ci, int ek, const void *ctx)
{
    const halo_case_t *c = (const halo_case_t *)ctx + ci;
    char base[64], fused2[64], boxes[32];
    snprintf(base, sizeof base, "kernel=halo_rows,grid=%d", c->grid);
    snprintf(fused2, sizeof fused2, "consumers=2%s%s", c->boxes[0] ? "," : "", c->boxes);
    snprintf(boxes, sizeof boxes, " %s staging boxes", c->boxes[0] ? c->boxes + strlen("staging_boxes=") : "1");
    const char *const var_fused[2] = {c->boxes, fused2};
    const char *const var_plain[2] = {"consumers=2,staging_boxes=1", "consumers=2,staging_boxes=2"};
    const char *want3[] = {kernel_says(IGEMM_KERNEL_HALO_ROWS), "tile 112x64x64", "3 consumer warpgroups",
                           "taking tiles in turn", boxes, NULL};
    const char *want2[] = {kernel_says(IGEMM_KERNEL_HALO_ROWS), "tile 112x64x64", "2 consumer warpgroups", "ping-pong",
                           c->boxes[0] ? boxes : "", NULL};
    const char *want2_1[] = {kernel_says(IGEMM_KERNEL_HALO_ROWS), "2 consumer warpgroups", " 1 staging boxes", NULL};
    const char *want2_2[] = {kernel_says(IGEMM_KERNEL_HALO_ROWS), "2 consumer warpgroups", " 2 staging boxes", NULL};
    const char *const *const want_fused[2] = {want3, want2}, *const *const want_plain[2] = {want2_1, want2_2};
    if (ek == 2)
        return sm90_run_two(pb, base, var_fused, want_fused, "sm90 halo consumers",
                            "3-consumer and 2-consumer runs differ");
    return sm90_run_two(pb, base, var_plain, want_plain, "sm90 halo staging boxes", "1-box and 2-box runs differ");
}

/* Halo-row plans with three consumers taking the tiles in turn (the planner's choice for fused
 * 112-pixel plans: each epilogue runs under the two other consumers' mainloops) against the
 * two-consumer ping-pong of the same problem, and (plain epilogues) one staging box per consumer
 * against two: both match the reference and each other bit for bit (the same MMAs and epilogue per
 * tile). Small grids so every consumer takes several tiles and the turn wraps round; one tile
 * alone; 112-pixel half rows, three tiles per row, two-row tiles of 56-pixel rows; an N tail;
 * asymmetric padding; the residual with one and with two staging boxes per consumer. */
TEST(gpu_sm90_halo_consumers)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    halo_case_t cases[] = {
        {conv_shape(2, 6, 224, 64, 64, 3, 3, 1, 1, 1, 1, BF, BF), 3, ""},   /* 8 tiles per CTA */
        {conv_shape(1, 1, 112, 64, 40, 3, 3, 1, 1, 1, 1, BF, BF), 1, ""},   /* one tile, N tail */
        {conv_shape(3, 3, 336, 64, 64, 3, 3, 1, 1, 1, 1, F16, F16), 4, ""}, /* 3 tiles per row */
        {conv_shape(2, 8, 56, 64, 64, 3, 3, 1, 1, 1, 1, BF, BF), 3, ""},    /* two-row tiles */
        {conv_shape(1, 5, 224, 64, 56, 3, 3, 1, 1, 1, 1, BF, BF), 2, ""},   /* asymmetric padding (below) */
        {conv_shape(2, 4, 224, 64, 64, 3, 3, 1, 1, 1, 1, F16, F16), 2, "staging_boxes=2"},
    };
    cases[4].d.pad_top = 0, cases[4].d.pad_bottom = 2, cases[4].d.pad_left = 2, cases[4].d.pad_right = 0;
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    const int ran = sm90_each_case(&cases[0].d, sizeof cases[0], ncases, 0x6706, halo_consumers_one, cases);
    if (ran < 0) return;
    CHECK_MSG(ran == 3 * ncases, "halo rows ran both ways on %d of %d problems", ran, 3 * ncases);
}

/* ------------------------------------------------------------------ stem rows */

/* The stem-rows kernel (c <= 4, stride_w 2; the tile's input rows staged once as pixel pairs, the
 * filter taps read from them by shifted descriptors): 7x7 pad 3 (ResNet), 3x3 pad 1 (c = 1, odd W
 * and W = 40), 5x5 pad 2 (c = 4, k = 16), 4x4 pad 1 with stride_h 2 and asymmetric padding
 * (c = 2, k = 48), 4x4 pad 0 stride_h 1 (c = 3, k = 24); output rows of 18 to 150 pixels (tiles of
 * 112 or 128 with tails), every epilogue kind, bf16 and f16, on the planner's grid and on a 3-CTA
 * grid (each CTA many tiles: the rings, the order barriers and the staging boxes wrap). Where
 * w c % 8 == 0 the kernel reads x in place (raw mode: TMA chunks of the rows, repacked in shared
 * memory), and the same problem also runs with the pre-pass (stem_prepass=1); the other shapes
 * take the pre-pass. Each run must name its mode and match the reference, and both grids must
 * agree bit for bit. */
TEST(gpu_sm90_stem_rows)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    igemm_conv2d_desc_t cases[] = {
        conv_shape(2, 40, 40, 3, 64, 7, 7, 2, 3, 1, 1, BF, BF),    /* ResNet stem, Q = 20 (raw: w c = 120) */
        conv_shape(1, 21, 300, 3, 64, 7, 7, 2, 3, 1, 1, F16, F16), /* Q = 150: two 112-pixel tiles per row (pre-pass) */
        conv_shape(2, 33, 47, 1, 32, 3, 3, 2, 1, 1, 1, F16, F16),  /* c = 1, odd W (pre-pass) */
        conv_shape(1, 20, 40, 1, 32, 3, 3, 2, 1, 1, 1, BF, BF),    /* c = 1 raw */
        conv_shape(1, 29, 258, 4, 16, 5, 5, 2, 2, 1, 1, BF, BF),   /* c = 4, k = 16, Q = 129 (raw) */
        conv_shape(2, 26, 64, 2, 48, 4, 4, 2, 1, 1, 1, BF, BF),    /* 4x4 pad 1: 3 pair taps (raw) */
        conv_shape(1, 19, 256, 3, 24, 4, 4, 2, 0, 1, 1, F16, F16), /* 4x4 pad 0, Q = 127: a 128-pixel tile (raw) */
    };
    cases[5].pad_bottom = 2;
    cases[6].stride_h = 1;
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    data_rng_t g = {test_seed(0x6806)};
    const char *const var[2] = {"", "grid=3"}; /* the planner's grid; 3 CTAs */
    const char *const want_raw[] = {kernel_says(IGEMM_KERNEL_STEM_ROWS), "read in place", "!kernel sm90_fold",
                                    "!pre-pass", NULL};
    const char *const want_pre[] = {kernel_says(IGEMM_KERNEL_STEM_ROWS), "pre-pass", "!kernel sm90_fold",
                                    "!read in place", NULL};
    const char *const want_pre3[] = {kernel_says(IGEMM_KERNEL_STEM_ROWS), "pre-pass", "grid 3 over", NULL};
    const char *const want_raw3[] = {kernel_says(IGEMM_KERNEL_STEM_ROWS), "read in place", "grid 3 over", NULL};
    int ran = 0, runs = 0;
    for (int ci = 0; ci < ncases; ci++) {
        const int raw = (cases[ci].w * cases[ci].c) % 8 == 0;
        for (int mode = 0; mode < (raw ? 2 : 1); mode++) { /* as planned; then the pre-pass */
            const int in_place = raw && mode == 0;
            const char *const *const want[2] = {in_place ? want_raw : want_pre, in_place ? want_raw3 : want_pre3};
            for (int ek = 0; ek < 3; ek++) { /* none; bias + ReLU; scale + bias + residual + GELU */
                const igemm_epilogue_t e = epilogue_kind(ek);
                problem_t pb;
                if (problem_init(&pb, &cases[ci], &e, &g, 1)) {
                    problem_free(&pb);
                    return;
                }
                runs++;
                ran += sm90_run_two(&pb, mode == 1 ? "kernel=stem_rows,stem_prepass=1" : "kernel=stem_rows", var, want,
                                    mode == 1 ? "sm90 stem rows pre-pass" : "sm90 stem rows",
                                    "stem-rows results differ with the grid");
                problem_free(&pb);
            }
        }
    }
    CHECK_MSG(ran == runs && runs == 3 * (ncases + 5), "stem-rows path ran %d of %d problems", ran, runs);
}

/* ------------------------------------------------------------------ fold */

/* The fold (kernel=fold; c % 8 != 0) with each number of folded filter rows F (fold_rows) and the
 * cost model's pick: x' has C' = roundup(F*S*C, 8) channels and R' = ceil(R/F) rows of taps, and
 * the conv kernels run on the folded problem; every F must match the reference under every
 * epilogue kind (the stem-like shapes fold 1, 2 or 3 rows; the ResNet stem would go to the
 * stem-rows kernel unhinted). */
TEST(gpu_sm90_fold_rows)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    igemm_conv2d_desc_t cases[] = {
        conv_shape(2, 40, 36, 3, 64, 7, 7, 2, 3, 1, 1, BF, BF),   /* ResNet stem: F up to 3 */
        conv_shape(1, 23, 19, 5, 40, 5, 3, 1, 2, 1, 1, F16, F16), /* c = 5, 5x3: F up to 4 */
    };
    cases[1].dil_h = 2;
    const char *rows[4] = {NULL, "1", "2", "3"};
    data_rng_t g = {test_seed(0x6406)};
    int ran = 0;
    for (int ci = 0; ci < 2; ci++) {
        for (int ri = 0; ri < 4; ri++) {
            for (int ek = 0; ek < 3; ek++) { /* none; bias + ReLU; scale + bias + residual + GELU */
                const igemm_epilogue_t e = epilogue_kind(ek);
                problem_t pb;
                if (problem_init(&pb, &cases[ci], &e, &g, 1)) {
                    problem_free(&pb);
                    return;
                }
                char hints[48], want[32], tag[48];
                snprintf(hints, sizeof hints, "kernel=fold%s%s", rows[ri] ? ",fold_rows=" : "", rows[ri] ? rows[ri] : "");
                snprintf(want, sizeof want, "fold %s filter row", rows[ri] ? rows[ri] : "");
                const char *desc_want[] = {rows[ri] ? want : kernel_says(IGEMM_KERNEL_FOLD), "!stem rows", NULL};
                snprintf(tag, sizeof tag, "sm90 fold rows %s", rows[ri] ? rows[ri] : "auto");
                ran += sm90_run_hinted(&pb, hints, desc_want, tag);
                problem_free(&pb);
            }
        }
    }
    CHECK_MSG(ran == 24, "fold rows ran %d of 24 plans", ran);
}

/* The fold of the whole window (patch embeddings: kernel = stride; and windows whose rows cannot
 * be folded: S*C > 64): x' is the im2col matrix and the conv kernels run a 1x1 over it. Chosen
 * unhinted (under kernel=fold and under AUTO); every case under every epilogue kind. */
TEST(gpu_sm90_fold_whole)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    igemm_conv2d_desc_t cases[] = {
        conv_shape(2, 32, 48, 3, 96, 16, 16, 16, 0, 1, 1, BF, BF),  /* ViT 16x16/16: C' 768, P x Q 2 x 3 */
        conv_shape(3, 22, 21, 3, 40, 4, 4, 4, 0, 1, 1, F16, F32),   /* ConvNeXt 4x4/4 stem: C' 48, edges cut */
        conv_shape(1, 19, 23, 5, 72, 3, 2, 3, 1, 1, 1, BF, BF),     /* c = 5, 3x2/3 padded: C' 32 */
        conv_shape(2, 17, 15, 7, 24, 5, 11, 1, 2, 1, 1, F16, F16),  /* S*C = 77 > 64: overlapping windows, C' 392 */
    };
    cases[2].stride_w = 2;
    data_rng_t g = {test_seed(0x6407)};
    int ran = 0;
    for (int ci = 0; ci < (int)(sizeof cases / sizeof cases[0]); ci++) {
        for (int ek = 0; ek < 3; ek++) {
            const igemm_epilogue_t e = epilogue_kind(ek);
            for (int hinted = 0; hinted < 2; hinted++) {
                problem_t pb;
                if (problem_init(&pb, &cases[ci], &e, &g, 1)) {
                    problem_free(&pb);
                    return;
                }
                const char *desc_want[] = {"fold the whole", "the conv a 1x1", NULL};
                ran += sm90_run_hinted(&pb, hinted ? "kernel=fold" : "", desc_want,
                                       hinted ? "sm90 fold whole (hinted)" : "sm90 fold whole (auto)");
                problem_free(&pb);
            }
        }
    }
    CHECK_MSG(ran == 24, "whole-window fold ran %d of 24 plans", ran);
}

#endif /* IGEMM_HAVE_CUDA */
