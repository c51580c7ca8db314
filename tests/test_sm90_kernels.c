/*
 * test_sm90_kernels.c — each sm90 row-tile kernel forced through the plan hints, against the CPU
 * reference (gpu_problem.h says what every check checks) under every epilogue kind: the
 * cooperative tiles (128x64, 128x128, 128x256, 256x64, 256x128, 192x128 with three consumers) with
 * M and N tails, channel tails, f32 y and k % 8 != 0 (direct stores) and split-K; split in cluster;
 * ping-pong with and without the resident filter on small grids; pixels as wgmma N (TP 80 forced,
 * 96 and 208 where the planner picks them), with split-K (TP 32, 64) and in ping-pong. Every forced plan's
 * description must name what was forced, and where two plans of one problem differ only in how the
 * work is scheduled (ring depth, resident filter, launch attributes) their outputs must agree bit
 * for bit. The halo-row, stem-row and fold kernels are in test_sm90_rows.c.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu_problem.h"
#include "igemm.h"
#include "test.h"

#ifndef IGEMM_HAVE_CUDA

GPU_SKIP_TEST(gpu_sm90_cooperative_tiles)
GPU_SKIP_TEST(gpu_sm90_split_cluster)
GPU_SKIP_TEST(gpu_sm90_filter_resident)
GPU_SKIP_TEST(gpu_sm90_pixels_n)
GPU_SKIP_TEST(gpu_sm90_pixels_n_split)
GPU_SKIP_TEST(gpu_sm90_pixn_pingpong)

#else /* IGEMM_HAVE_CUDA */

#define F16 IGEMM_DTYPE_F16
#define BF IGEMM_DTYPE_BF16
#define F32 IGEMM_DTYPE_F32

/* ------------------------------------------------------------------ cooperative tiles, split-K */

typedef struct coop_case {
    igemm_conv2d_desc_t d;
    const char *tile; /* "BMxBN" */
    int split;        /* split_k hint (1: none) */
} coop_case_t;

/* The planner's ring depth and two stages (the ring wrapping every other k-block): the same
 * k-blocks in the same order, so the same bits. */
static int coop_one(problem_t *pb, int ci, int ek, const void *ctx)
{
    (void)ek;
    const coop_case_t *c = (const coop_case_t *)ctx + ci;
    char base[128], tile[32], split[32];
    snprintf(base, sizeof base, "kernel=cooperative,tile=%s,split_k=%d%s", c->tile, c->split,
             !strcmp(c->tile, "192x128") ? ",consumers=3" : "");
    snprintf(tile, sizeof tile, "tile %sx64,", c->tile);
    snprintf(split, sizeof split, "x %d split(s)", c->split);
    const char *const var[2] = {"", "stages=2"};
    const char *want0[] = {kernel_says(IGEMM_KERNEL_COOPERATIVE), tile, split, "no cluster", NULL};
    const char *want1[] = {kernel_says(IGEMM_KERNEL_COOPERATIVE), tile, split, " 2 stages,", NULL};
    const char *const *const want[2] = {want0, want1};
    return sm90_run_two(pb, base, var, want, "sm90 cooperative", "the 2-stage plan's output differs");
}

/* Cooperative plans of every tile (two or three consumer warpgroups on one tile): odd M-tile
 * counts, M and N tails, 1x1 (x read as a plain matrix), stride 2, a partial channel block
 * (c = 72), f32 y and k % 8 != 0 (direct stores instead of TMA), split-K of 2 and 3 (fp32 partials,
 * reduce kernel; the planner would split some of these itself: split_k=1 keeps them whole); the
 * 128 x 32 and 64 x 32 (one consumer) tiles (32-column epilogue chunks; M = 64, 40 and 20: the A
 * box cut to M's rows, the stage's rows past it stale) and the cut box on 128 x 128 and 256 x 64 tiles (tiled and im2col). */
TEST(gpu_sm90_cooperative_tiles)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    const coop_case_t cases[] = {
        {conv_shape(1, 19, 20, 64, 128, 3, 3, 1, 1, 1, 1, BF, BF), "128x128", 1},    /* M 380: 3 M-tiles */
        {conv_shape(1, 19, 20, 64, 200, 3, 3, 1, 1, 1, 1, F16, F16), "128x64", 1},   /* N tail, 4 N-tiles */
        {conv_shape(2, 23, 29, 128, 200, 3, 3, 1, 1, 1, 1, BF, BF), "256x128", 1},   /* 256-row tiles, M 1334 */
        {conv_shape(2, 13, 13, 96, 256, 1, 1, 1, 0, 1, 1, BF, BF), "128x256", 1},    /* 1x1 tiled A, M 338 */
        {conv_shape(3, 14, 14, 256, 128, 3, 3, 2, 1, 1, 1, BF, F32), "128x128", 1},  /* stride 2, f32 y */
        {conv_shape(1, 14, 14, 512, 256, 3, 3, 1, 1, 1, 1, BF, BF), "128x128", 3},   /* split-K 3 */
        {conv_shape(1, 30, 30, 72, 120, 3, 3, 1, 1, 1, 1, F16, F16), "256x64", 1},   /* k % 8 == 0, c tail */
        {conv_shape(2, 9, 9, 64, 70, 3, 3, 1, 1, 1, 1, BF, BF), "128x128", 1},       /* k % 8 != 0: direct stores */
        {conv_shape(2, 9, 9, 64, 70, 3, 3, 1, 1, 1, 1, F16, F32), "128x64", 2},      /* split-K 2, f32 y, N tail */
        {conv_shape(2, 19, 20, 64, 200, 3, 3, 1, 1, 1, 1, BF, BF), "192x128", 1},    /* 192x128: 4 M-tiles, N tail */
        {conv_shape(1, 28, 30, 128, 128, 1, 1, 1, 0, 1, 1, F16, F16), "192x128", 1}, /* 192x128, tiled A, 5 M-tiles */
        {conv_shape(2, 17, 15, 64, 256, 3, 3, 1, 1, 1, 1, BF, BF), "128x256", 2},    /* split-K 2 of a wide tile */
        /* 128 x 32 (32-column epilogue chunks, direct stores) */
        {conv_shape(1, 1, 64, 2048, 200, 1, 1, 1, 0, 1, 1, BF, BF), "128x32", 1},    /* decode-like: A box cut to 64 rows */
        {conv_shape(1, 1, 20, 512, 96, 1, 1, 1, 0, 1, 1, F16, F16), "128x32", 1},    /* A box of 24 rows: stale rows */
        {conv_shape(1, 9, 9, 64, 96, 3, 3, 1, 1, 1, 1, F16, F32), "128x32", 1},      /* M 81, f32 y */
        {conv_shape(3, 10, 10, 128, 70, 3, 3, 1, 1, 1, 1, BF, BF), "128x32", 1},     /* 3 M-tiles, k % 8 != 0 */
        {conv_shape(1, 1, 64, 2048, 200, 1, 1, 1, 0, 1, 1, BF, BF), "64x32", 1},     /* one consumer, decode-like */
        {conv_shape(1, 1, 40, 1024, 96, 1, 1, 1, 0, 1, 1, F16, F32), "64x32", 1},    /* 40-row box, f32 y */
        {conv_shape(2, 7, 7, 64, 72, 3, 3, 1, 1, 1, 1, BF, BF), "64x32", 1},         /* im2col, 2 M-tiles, N tail 8 */
        /* one M-tile of fewer rows than the tile: the A box cut to M rounded up to 8 */
        {conv_shape(1, 1, 70, 256, 192, 1, 1, 1, 0, 1, 1, BF, BF), "128x128", 1},    /* 72-row box */
        {conv_shape(1, 1, 100, 320, 128, 1, 1, 1, 0, 1, 1, F16, F16), "256x64", 1},  /* 104-row box */
        {conv_shape(1, 7, 7, 128, 96, 3, 3, 1, 1, 1, 1, BF, BF), "128x128", 1},     /* im2col, 56-pixel box */
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    const int ran = sm90_each_case(&cases[0].d, sizeof cases[0], ncases, 0x6206, coop_one, cases);
    if (ran < 0) return;
    CHECK_MSG(ran == 3 * ncases, "cooperative tiles matched the reference on %d of %d problems", ran, 3 * ncases);
}

/* ------------------------------------------------------------------ split in cluster */

/* forced twice (the second without programmatic dependent launch: bit for bit the same), then the
 * cooperative kernel (which must not split over a cluster) */
static int split_cluster_one(problem_t *pb, int ci, int ek, const void *ctx)
{
    (void)ci, (void)ek, (void)ctx;
    const char *const var[2] = {"", "pdl=-1"};
    const char *want_on[] = {kernel_says(IGEMM_KERNEL_SPLIT_CLUSTER), "tile 128x128x64", NULL};
    const char *want_nopdl[] = {kernel_says(IGEMM_KERNEL_SPLIT_CLUSTER), "no programmatic dependent launch (hints.pdl = -1)",
                                NULL};
    const char *want_off[] = {"!split-K 2 over a 2-CTA cluster", kernel_says(IGEMM_KERNEL_COOPERATIVE), NULL};
    const char *const *const want[2] = {want_on, want_nopdl};
    const int ok = sm90_run_two(pb, "kernel=split_cluster", var, want, "sm90 split in cluster",
                                "split-in-cluster runs differ");
    return ok && sm90_run_hinted(pb, "kernel=cooperative", want_off, "sm90 split in cluster off");
}

/* Split in cluster (kernel=split_cluster): the two CTAs of a cluster run the two halves of one
 * 128 x 128 tile's k-blocks and exchange partial tiles through distributed shared memory (the
 * exchange's sum is order-free: a + b on both ranks). M and N tails (N % 128 != 0 with
 * k % 8 == 0), an odd k-block count (rank 0 takes one more), 2 k-blocks (one each), tiled A,
 * stride 2, a partial channel block, fp16 and every epilogue kind (the residual through the
 * staging ring). */
TEST(gpu_sm90_split_cluster)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    const igemm_conv2d_desc_t cases[] = {
        conv_shape(2, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1, BF, BF),    /* r50_l4-like: M 98, 4 N-tiles, 72 k-blocks */
        conv_shape(3, 14, 14, 256, 200, 3, 3, 2, 1, 1, 1, BF, BF),  /* stride 2, M 147 (tail), N 200 (tail) */
        conv_shape(2, 13, 13, 96, 256, 1, 1, 1, 0, 1, 1, F16, F16), /* tiled A, 2 k-blocks: one per rank */
        conv_shape(1, 19, 20, 72, 136, 3, 3, 1, 1, 1, 1, BF, BF),   /* c tail, 18 k-blocks, M 380, N 136 */
        conv_shape(1, 9, 9, 64, 128, 3, 3, 1, 1, 1, 1, F16, F16),   /* 9 k-blocks: 5 + 4 */
        conv_shape(2, 7, 7, 2048, 512, 1, 1, 1, 0, 1, 1, BF, BF),   /* 1x1 tiled A, 32 k-blocks */
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    const int ran = sm90_each_case(cases, sizeof cases[0], ncases, 0x6406, split_cluster_one, NULL);
    if (ran < 0) return;
    CHECK_MSG(ran == 3 * ncases, "split in cluster ran on %d of %d problems", ran, 3 * ncases);
}

/* ------------------------------------------------------------------ ping-pong, filter resident */

typedef struct pp_case {
    igemm_conv2d_desc_t d;
    int bn, grid;
    int fits; /* forced on, the planner keeps the filter resident (grid >= N-tiles, 2+ stages) */
} pp_case_t;

/* the ring plan, then the resident plan: bit for bit the same */
static int filter_resident_one(problem_t *pb, int ci, int ek, const void *ctx)
{
    (void)ek;
    const pp_case_t *c = (const pp_case_t *)ctx + ci;
    char base[96], tile[32];
    snprintf(base, sizeof base, "kernel=pingpong,tile=128x%d,grid=%d", c->bn, c->grid);
    snprintf(tile, sizeof tile, "tile 128x%dx64", c->bn);
    const char *const var[2] = {"filter_resident=-1", "filter_resident=1"};
    const char *want0[] = {kernel_says(IGEMM_KERNEL_PINGPONG), tile, "!filter resident", NULL};
    const char *want1[] = {kernel_says(IGEMM_KERNEL_PINGPONG), tile, c->fits ? "filter resident" : "!filter resident",
                           NULL};
    const char *const *const want[2] = {want0, want1};
    return sm90_run_two(pb, base, var, want, "sm90 filter resident",
                        "filter-resident output differs from the ring plan's");
}

/* Ping-pong plans (two consumers taking 128-row tiles in turn) with the filter in the operand ring
 * and resident (each CTA keeps one N-tile, loads its filter once and walks M-tiles). Small grids
 * make every CTA take several tiles, with N-tiles of unequal CTA counts (grid % N-tiles != 0).
 * 128 x 64 and 128 x 128 tiles, N tails, 1x1 (tiled A), strided and dilated 3x3; resident on and
 * off match the reference and each other bit for bit. */
TEST(gpu_sm90_filter_resident)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    const pp_case_t cases[] = {
        {conv_shape(2, 19, 20, 64, 200, 3, 3, 1, 1, 1, 1, F16, F16), 64, 5, 1},  /* 6 x 4 tiles, N tail */
        {conv_shape(2, 13, 13, 96, 256, 1, 1, 1, 0, 1, 1, BF, BF), 128, 4, 1},   /* tiled A, 2 c-blocks */
        {conv_shape(2, 23, 29, 128, 200, 1, 1, 1, 0, 1, 1, BF, BF), 128, 5, 1},  /* N tail */
        {conv_shape(1, 28, 30, 128, 256, 1, 1, 1, 0, 1, 1, F16, F16), 64, 3, 0}, /* 4 N-tiles on 3 CTAs */
        {conv_shape(2, 30, 30, 64, 192, 3, 3, 2, 1, 1, 1, BF, BF), 64, 3, 1},    /* stride 2, 3 N-tiles */
        {conv_shape(2, 21, 17, 64, 64, 3, 3, 1, 2, 2, 1, BF, BF), 64, 2, 1},     /* dilation 2, one N-tile */
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    const int ran = sm90_each_case(&cases[0].d, sizeof cases[0], ncases, 0x6306, filter_resident_one, cases);
    if (ran < 0) return;
    CHECK_MSG(ran == 3 * ncases, "filter resident on/off ran both ways on %d of %d problems", ran, 3 * ncases);
}

/* ------------------------------------------------------------------ the whole-N ping-pong tile */

typedef struct wn_case {
    igemm_conv2d_desc_t d;
    int bn, grid;
} wn_case_t;

static int whole_n_one(problem_t *pb, int ci, int ek, const void *ctx)
{
    (void)ek;
    const wn_case_t *c = (const wn_case_t *)ctx + ci;
    char hints[96];
    char tile[32];
    snprintf(hints, sizeof hints, "kernel=pingpong,tile=64x%d,grid=%d", c->bn, c->grid);
    snprintf(tile, sizeof tile, "tile 64x%dx64", c->bn);
    const char *want[] = {kernel_says(IGEMM_KERNEL_PINGPONG), tile,
                          c->d.k <= c->bn ? "one whole-N tile per 64 pixels"
                                          : "filter resident (a slot per k-block), 64-pixel tiles",
                          NULL};
    return sm90_run_hinted(pb, hints, want, "sm90 64-row ping-pong tile");
}

/* The 64-row ping-pong tiles (filter resident: 64 x 128 and 64 x 256, sm90_rule_whole_n's whole-N
 * tiles, here hinted) against the reference
 * on small grids (each consumer several tiles), N below, inside and past one 256-wide N-tile (the
 * chunks past N skipped, the last clipped by the TMA store; two N-tiles on 3 CTAs), c of a partial
 * channel block, two k-blocks, M tails, 2x2 im2col with stride 2, fp16 and bf16, every epilogue
 * kind (the residual through the staging ring). The 4 k-blocks of the 2x2 case fill the resident
 * slots (128 KB); 9 of a 3x3 would not fit, and the plan is refused. */
TEST(gpu_sm90_whole_n)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    const wn_case_t cases[] = {
        {conv_shape(2, 19, 21, 24, 144, 1, 1, 1, 0, 1, 1, BF, BF), 256, 5},   /* c 24 (one partial k-block), N 144 */
        {conv_shape(2, 13, 17, 96, 200, 1, 1, 1, 0, 1, 1, F16, F16), 256, 3}, /* 2 k-blocks, N tail, M tail */
        {conv_shape(1, 24, 24, 64, 256, 1, 1, 1, 0, 1, 1, BF, BF), 256, 4},  /* N = 256 */
        {conv_shape(2, 20, 22, 40, 72, 1, 1, 1, 0, 1, 1, F16, F16), 256, 2},  /* N 72: chunks 2, 3 skipped */
        {conv_shape(1, 21, 19, 64, 328, 1, 1, 1, 0, 1, 1, BF, BF), 256, 3},  /* two N-tiles on 3 CTAs */
        {conv_shape(2, 30, 30, 64, 160, 2, 2, 2, 0, 1, 1, BF, BF), 256, 5},  /* im2col, 2x2 stride 2, 4 k-blocks */
        {conv_shape(2, 14, 15, 120, 40, 1, 1, 1, 0, 1, 1, F16, F16), 128, 3}, /* 64 x 128: 2 k-blocks, N 40 */
        {conv_shape(1, 17, 19, 192, 200, 1, 1, 1, 0, 1, 1, BF, BF), 128, 5}, /* 64 x 128: 3 k-blocks, 2 N-tiles */
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    const int ran = sm90_each_case(&cases[0].d, sizeof cases[0], ncases, 0x6308, whole_n_one, cases);
    if (ran < 0) return;
    CHECK_MSG(ran == 3 * ncases, "the 64-row tiles ran on %d of %d problems", ran, 3 * ncases);
}

/* ------------------------------------------------------------------ pixels as N */

typedef struct pixn_case {
    igemm_conv2d_desc_t d;
    const char *hints; /* "kernel=pixels_n[,grid=G]", or "" for the planner's own pick */
    int tp;            /* the tile the plan must have */
    int sms[2];        /* the planner's own pick is tp on devices of these SM counts ({0, 0}: forced) */
} pixn_case_t;

static int pixels_n_one(problem_t *pb, int ci, int ek, const void *ctx)
{
    (void)ek;
    const pixn_case_t *c = (const pixn_case_t *)ctx + ci;
    char tile[32];
    snprintf(tile, sizeof tile, "tile %dx128x64", c->tp);
    const int sms = device_sm_count();
    const int exact = c->hints[0] || sms == c->sms[0] || sms == c->sms[1];
    /* (elsewhere the planner may pick another kernel: then only the result is checked) */
    const char *want[] = {exact ? kernel_says(IGEMM_KERNEL_PIXELS_N) : "", exact ? tile : "", NULL};
    char tag[64];
    snprintf(tag, sizeof tag, "sm90 pixels as N TP %d%s", c->tp, c->hints[0] ? " (hinted)" : "");
    return sm90_run_hinted(pb, c->hints, want, tag);
}

/* Pixels as wgmma N (TP pixels x 128 channels, each consumer's 64 filter rows as wgmma A):
 * kernel=pixels_n forces it with TP = 80 (pixel tails, N tails, N < 128, stride, dilation, a
 * partial channel block, a 2-CTA grid of several tiles each); TP = 96 and 208 run on layers where
 * the planner picks them itself (on 132-SM devices: H100 SXM, H200; 96 also on 114 SMs). */
TEST(gpu_sm90_pixels_n)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    const pixn_case_t cases[] = {
        {conv_shape(2, 19, 20, 64, 128, 3, 3, 1, 1, 1, 1, BF, BF), "kernel=pixels_n", 80, {0, 0}},  /* M 760: tail */
        {conv_shape(1, 13, 17, 96, 200, 1, 1, 1, 0, 1, 1, F16, F16), "kernel=pixels_n", 80, {0, 0}}, /* tiled A, N tail */
        {conv_shape(2, 21, 17, 64, 64, 3, 3, 1, 2, 2, 1, BF, BF), "kernel=pixels_n,grid=2", 80, {0, 0}}, /* N < 128 */
        {conv_shape(2, 30, 30, 40, 256, 3, 3, 2, 1, 1, 1, F16, F16), "kernel=pixels_n,grid=2", 80, {0, 0}}, /* c 40 */
        {conv_shape(2, 23, 28, 64, 1024, 1, 1, 1, 0, 1, 1, BF, BF), "", 96, {132, 114}}, /* 1288 pixels: 14 x 8 */
        {conv_shape(4, 28, 28, 64, 1024, 1, 1, 1, 0, 1, 1, BF, BF), "", 208, {132, 132}}, /* 3136 pixels: 16 x 8 */
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    const int ran = sm90_each_case(&cases[0].d, sizeof cases[0], ncases, 0x6506, pixels_n_one, cases);
    if (ran < 0) return;
    CHECK_MSG(ran == 3 * ncases, "pixels as N matched the reference on %d of %d problems", ran, 3 * ncases);
}

typedef struct pxsk_case {
    igemm_conv2d_desc_t d;
    int tp, split; /* forced by hints; split 0: the planner's own pick (a GEMM-like few-row 1x1) */
    int bn;        /* channels per tile: 128, or 64 (two consumers sharing them, half a k-block each) */
} pxsk_case_t;

static int pixels_n_split_one(problem_t *pb, int ci, int ek, const void *ctx)
{
    (void)ek;
    const pxsk_case_t *c = (const pxsk_case_t *)ctx + ci;
    char hints[96], tile[32], split[32];
    if (c->split) snprintf(hints, sizeof hints, "kernel=pixels_n,tile=%dx%d,split_k=%d", c->tp, c->bn, c->split);
    else hints[0] = '\0';
    snprintf(tile, sizeof tile, "tile %dx%dx64", c->tp, c->bn);
    snprintf(split, sizeof split, "x %d split(s)", c->split);
    const char *want[] = {kernel_says(IGEMM_KERNEL_PIXELS_N), tile, c->split ? split : "", "summed through DSMEM",
                          "!workspace", NULL};
    char tag[64];
    snprintf(tag, sizeof tag, "sm90 pixels as N, split-K, TP %d x %d", c->tp, c->bn);
    return sm90_run_hinted(pb, hints, want, tag);
}

/* Pixels as N with split-K (the pixels_n_sk instances: TP 32, 64; a cluster of split_k CTAs per
 * tile summing the partial tiles through distributed shared memory, each CTA applying the
 * epilogue to its share of the pixels): few-row 1x1s as GEMMs (M = 64 of a decode step, M = 32 of
 * a classifier, N tails), 3x3 layers of batch 1 (pixel tails, a partial channel block, stride 2),
 * splits that do not divide the k-blocks, the largest cluster (8: more ranks than a TP 32 tile
 * has 8-pixel groups, so some CTAs finish nothing), f32 and f16 y, every epilogue kind; the same
 * with 64-channel tiles; and the planner's own pick on a decode-like GEMM. */
TEST(gpu_sm90_pixels_n_split)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    const pxsk_case_t cases[] = {
        {conv_shape(1, 1, 64, 1024, 512, 1, 1, 1, 0, 1, 1, BF, BF), 64, 4, 128},    /* decode-like */
        {conv_shape(1, 1, 32, 512, 200, 1, 1, 1, 0, 1, 1, F16, F16), 32, 3, 128},   /* classifier, N tail */
        {conv_shape(1, 10, 10, 64, 128, 3, 3, 1, 1, 1, 1, BF, F32), 64, 2, 128},    /* 100 pixels: 2 tiles, f32 y */
        {conv_shape(2, 7, 7, 40, 96, 3, 3, 1, 1, 1, 1, F16, F16), 64, 5, 128},      /* c 40, 2 tiles, 9 k-blocks */
        {conv_shape(1, 13, 13, 128, 256, 3, 3, 2, 1, 1, 1, BF, BF), 64, 3, 128},    /* stride 2: 49 pixels */
        {conv_shape(1, 1, 40, 2048, 1000, 1, 1, 1, 0, 1, 1, BF, BF), 32, 8, 128},   /* cluster of 8, M and N tails */
        {conv_shape(1, 1, 64, 1024, 256, 1, 1, 1, 0, 1, 1, F16, F32), 64, 7, 128},  /* 16 k-blocks over 7, f32 y */
        /* 64 channels per tile: both consumers' partials in the sum */
        {conv_shape(1, 1, 64, 1024, 512, 1, 1, 1, 0, 1, 1, BF, BF), 64, 2, 64},     /* decode-like */
        {conv_shape(1, 1, 32, 512, 200, 1, 1, 1, 0, 1, 1, F16, F16), 32, 3, 64},    /* N tail of 8 channels */
        {conv_shape(1, 10, 10, 64, 128, 3, 3, 1, 1, 1, 1, BF, F32), 64, 2, 64},     /* 2 pixel tiles, f32 y */
        {conv_shape(2, 7, 7, 40, 96, 3, 3, 1, 1, 1, 1, F16, F16), 64, 5, 64},       /* c 40, N tail of 32 */
        {conv_shape(1, 13, 13, 128, 256, 3, 3, 2, 1, 1, 1, BF, BF), 64, 4, 64},     /* stride 2: 49 pixels */
        {conv_shape(1, 1, 40, 2048, 1000, 1, 1, 1, 0, 1, 1, BF, F32), 32, 8, 64},   /* 16 units for 4 groups */
        {conv_shape(1, 1, 48, 2048, 1024, 1, 1, 1, 0, 1, 1, BF, BF), 64, 0, 64},    /* the planner's pick */
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    const int ran = sm90_each_case(&cases[0].d, sizeof cases[0], ncases, 0x6507, pixels_n_split_one, cases);
    if (ran < 0) return;
    CHECK_MSG(ran == 3 * ncases, "split pixels as N matched the reference on %d of %d problems", ran, 3 * ncases);
}

typedef struct pxpp_case {
    igemm_conv2d_desc_t d;
    int grid;
} pxpp_case_t;

/* the filter in the ring, then resident (where the grid leaves a CTA several tiles): bit for bit */
static int pixn_pingpong_one(problem_t *pb, int ci, int ek, const void *ctx)
{
    (void)ek;
    const pxpp_case_t *c = (const pxpp_case_t *)ctx + ci;
    char base[96];
    snprintf(base, sizeof base, "kernel=pixels_n_pingpong,grid=%d", c->grid);
    const int64_t tiles = (pb->d.n * pb->p * pb->q + 127) / 128; /* N <= 64: one N-tile */
    const char *const var[2] = {"filter_resident=-1", "filter_resident=1"};
    const char *want0[] = {kernel_says(IGEMM_KERNEL_PIXELS_N_PINGPONG), "!halo rows", "tile 128x64x64", "!filter resident",
                           NULL};
    const char *want1[] = {kernel_says(IGEMM_KERNEL_PIXELS_N_PINGPONG), "!halo rows", "tile 128x64x64",
                           tiles > c->grid ? "filter resident" : "!filter resident", NULL};
    const char *const *const want[2] = {want0, want1};
    return sm90_run_two(pb, base, var, want, "sm90 pixels as N ping-pong", "the resident plan's output differs");
}

/* Pixels as N in ping-pong plans of at most 64 output channels (kernel=pixels_n_pingpong): a tile
 * of 128 pixels x 64 channels per consumer, the consumers taking tiles in turn, the residual
 * TMA-loaded into the consumer's staging box. On a small grid each consumer takes several tiles
 * (the staging box and its residual reused), with the filter in the ring and resident; pixel
 * tails, N < 64 (channels past N zero-filled and not stored), im2col and tiled A, stride,
 * dilation, a partial channel block and every epilogue kind. */
TEST(gpu_sm90_pixn_pingpong)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    const pxpp_case_t cases[] = {
        {conv_shape(2, 19, 20, 64, 64, 3, 3, 1, 1, 1, 1, F16, F16), 2}, /* 760 pixels: 6 tiles, tail */
        {conv_shape(2, 13, 13, 96, 64, 1, 1, 1, 0, 1, 1, BF, BF), 3},   /* tiled A, 2 channel blocks, 3 tiles */
        {conv_shape(3, 23, 29, 64, 40, 1, 1, 1, 0, 1, 1, BF, BF), 4},   /* N = 40 */
        {conv_shape(2, 30, 30, 64, 32, 3, 3, 2, 1, 1, 1, BF, BF), 2},   /* stride 2, N = 32 */
        {conv_shape(2, 21, 17, 64, 64, 3, 3, 1, 2, 2, 1, F16, F16), 3}, /* dilation 2 */
        {conv_shape(1, 40, 40, 24, 64, 3, 3, 1, 1, 1, 1, BF, BF), 5},   /* c = 24: a partial channel block */
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    const int ran = sm90_each_case(&cases[0].d, sizeof cases[0], ncases, 0x6307, pixn_pingpong_one, cases);
    if (ran < 0) return;
    CHECK_MSG(ran == 3 * ncases, "pixels as N ping-pong: %d of %d problems ran both ways", ran, 3 * ncases);
}

#endif /* IGEMM_HAVE_CUDA */
