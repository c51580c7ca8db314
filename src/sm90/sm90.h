/*
 * sm90.h — what the Hopper families' host code (the plain-C heuristics: heuristics.c with
 * heuristics_rules.c and heuristics_smem.c, heuristics_stem.c) and their kernels share: the tile
 * and shared-memory constants, the plans the heuristics choose (kept in
 * igemm_family_config_t.priv), and the heuristics' entry points.
 * C11 and CUDA C; no CUDA header.
 */
#ifndef IGEMM_SM90_H
#define IGEMM_SM90_H

#include <stddef.h>
#include <stdint.h>

#include "../internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ conv kernels */

#define SM90_BK 64
#define SM90_THREADS(NC) (128 * ((NC) + 1))          /* a producer warpgroup + NC consumer warpgroups */
#define SM90_EPI_COLS 64                             /* epilogue chunk: 64 columns (one 128 B swizzle row) */
#define SM90_EPI_BUF_BYTES (64 * SM90_EPI_COLS * 2)  /* one 64 x 64 16-bit staging box: 8 KB */
#define SM90_ALIGN_SLACK 1024                        /* dynamic smem base rounded up to 1024 B */
/* operand-ring stages at most: also for the halo-row plans, whose 8 KB stages would allow 15
 * (r50_l1_3x3_64: 8 measured best, 9-16 1-3% slower; docs/decisions.md "halo-stages") */
#define SM90_MAX_STAGES 8
#define SM90_MAX_NARROW_STAGES 16 /* the narrow row tiles' small stages (heuristics_smem.c) */
#define SM90_GROUP_M 8        /* rasterisation: M-tiles per group */
#define SM90_MAX_SPLITS 16
#define SM90_MAX_CLUSTER 8 /* CTAs per cluster (the portable maximum): split-K summed in a cluster */
#define SM90_MAX_EPI_SLOTS 6  /* epilogue ring slots per consumer */
#define SM90_MAX_WORKSPACE ((size_t)256 << 20)
/* halo-row kernels: a ring stage holds one input row of a TP-pixel tile with its one-pixel halo
 * (TP + 2 rows of 128 B), rounded up to the 1024 B swizzle repeat */
#define SM90_HALO_STAGE_BYTES(tp) (((uint32_t)((tp) + 2) * 128u + 1023u) & ~1023u)

/* The sm90 conv family's plan (igemm_family_priv(cfg, sm90_plan_t)). */
typedef struct sm90_plan {
    int kernel;        /* igemm_kernel_t: COOPERATIVE .. SPLIT_CLUSTER */
    int bm, bn;        /* tile: output pixels (TP with pixels as N) x output channels */
    int wm;            /* row tiles: 64-row blocks per consumer */
    int consumers;     /* consumer warpgroups */
    int pingpong;      /* consumers take whole tiles in turn */
    int pixels_n;      /* 1: the pixels are the wgmma N (TP = bm) */
    int halo;          /* halo rows: output rows per tile (1 or 2); 0 otherwise */
    int b_reuse;       /* filter resident: a B slot per k-block, one N-tile per CTA */
    int split_k;       /* K splits (1 = none; >1: fp32 workspace + reduce kernel, or with pixels
                          as N summed in a cluster of split_k CTAs) */
    int cluster;       /* CTAs per cluster (1: none; split in cluster 2; pixels-as-N split-K split_k) */
    int stages;        /* operand ring depth */
    int epi_slots;     /* staging boxes per consumer */
    int res_mode;      /* TMA-loaded residual: 1 epilogue ring, 2 operand ring, 0 none */
    int grid;          /* CTAs launched (persistent) */
    int pdl;           /* launched with programmatic stream serialization */
    int threads;       /* threads per CTA */
    size_t smem_bytes; /* dynamic shared memory per CTA */
    int smem_limit;    /* the device's opt-in maximum (the kernel's attribute is raised to it) */
    int gw;            /* grouped conv (groups > 1): the wgmma window width (core/mma.cuh); 0: groups == 1 */
    int g_boxes;       /* grouped conv: filter boxes per ring stage (groups per tile; 1: the tile in one group) */
} sm90_plan_t;

/* Grouped convs (groups > 1) on the cooperative 128 x BN tiles: which tile, wgmma window and filter
 * boxes take the group widths cg = c/g, kg = k/g (docs/decisions.md "sm90-grouped"). Two forms:
 *   slabs    cg = 32, kg = 32 or 64: a 64-channel k-block holds two groups' channels of one tap,
 *            the tile their 2 * kg = BN output channels (64 or 128); the filter stage is two
 *            boxes of kg rows, box j at channel -32 j (its other 32 channels read zero: a
 *            block-diagonal B); the consumers' wgmmas run per window of gw = kg columns over the
 *            two k16 steps of the window's group, so the zero blocks are not multiplied.
 *   whole    kg a multiple of 64: each tile lies in one group (BN = 128 where kg allows, else
 *            64); the k-blocks walk the group's cg channels (ceil(cg / 64) per tap; channels past
 *            cg in the A box meet zero filter channels).
 * Groups of 8 and 16 channels (slabs of 8 and 4 groups, m64n16k16 windows) ran at 0.4-0.9x the
 * grouped memory family and were dropped: most of each of their 8 or 4 filter boxes per stage is
 * the TMA's zero fill. Returns 1 and sets *bn, *gw (the window; = BN where the whole tile is one
 * window) and *boxes, or 0 (no form: the grouped memory family or the general path takes it).
 * The (BN, gw) pairs are the instances of list.txt: (64, 32), (64, 64), (128, 64), (128, 128). */
static inline int sm90_group_tile(const igemm_conv_params_t *p, int *bn, int *gw, int *boxes)
{
    const int64_t cg = p->cg, kg = p->kg;
    if (p->groups <= 1 || cg % 8 != 0 || kg % 8 != 0) return 0;
    if (cg == 32 && (kg == 32 || kg == 64)) {
        *bn = (int)(2 * kg), *gw = (int)kg, *boxes = 2;
        return 1;
    }
    if (kg % 64 == 0) {
        *bn = kg % 128 == 0 ? 128 : 64;
        *gw = *bn;
        *boxes = 1;
        return 1;
    }
    return 0;
}

/* 1 if y is written by TMA stores: y of the input dtype, row pitch k*2 a multiple of 16 B, no split. */
static inline int sm90_tma_store_ok(const igemm_conv_params_t *p, int split)
{
    /* y of the input's dtype: the TMA-store instances pack y and unpack the residual with the
     * input dtype as a compile-time constant (docs/decisions.md "dtype-constant-epilogue") */
    return p->out_dtype == p->in_dtype && p->k % 8 == 0 && split <= 1;
}

/* 1 where the sm90 grouped tiles (sm90_group_tile) measured faster than the grouped memory family
 * (src/mem/grouped.cu), which then defers to them under the AUTO path: every form (the family
 * takes the 32-channel slabs; the whole-group tiles take widths it does not). The caller checks
 * that the sm90 family supports p on the device (docs/decisions.md "sm90-grouped"). */
static inline int sm90_grouped_preferred(const igemm_conv_params_t *p)
{
    int bn, gw, boxes;
    return sm90_group_tile(p, &bn, &gw, &boxes);
}

/* The whole-N 64-row ping-pong tile's width for p on a device of sms SMs (heuristics_rules.c
 * sm90_rule_whole_n), or 0 where it is not the pick: short K (1-2 k-blocks), 64 < N <= 256 and
 * ragged (N % 64 != 0: the 64- and 128-channel tiles would spend a padded N-tile), no residual, TMA
 * stores of y, 2+ tiles per SM. 128 for N <= 128, else 256: one N-tile, each pixel tile read once.
 * The narrow memory family's wide kernel defers to it (measured faster on its layers:
 * docs/decisions.md "whole-n-tiles"). */
static inline int sm90_whole_n_bn(const igemm_conv_params_t *p, int sms)
{
    const int64_t k_iters = p->r * p->s * ((p->c + SM90_BK - 1) / SM90_BK), n = p->gemm_n;
    if (!sm90_tma_store_ok(p, 1) || p->has_residual || n <= 64 || n > 256 || n % 64 == 0 || k_iters > 2 ||
        (p->gemm_m + 63) / 64 < 2 * (int64_t)sms)
        return 0;
    return n <= 128 ? 128 : 256;
}

/* 1 if a plan of BN-column tiles writes y by TMA stores: sm90_tma_store_ok and BN a multiple of 64
 * (the staging boxes' width; tiles of BN = 32 (j + 1/2) x 64 store directly in 32-column chunks). */
static inline int sm90_tma_store_bn(const igemm_conv_params_t *p, int split, int bn)
{
    return sm90_tma_store_ok(p, split) && bn % SM90_EPI_COLS == 0;
}

/* 1 for a 1x1, stride-1, unpadded conv: x is the plain matrix A[M, C] (tiled TMA, not im2col). */
static inline int sm90_a_is_matrix(const igemm_conv_params_t *p)
{
    return p->r == 1 && p->s == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 && p->pad_bottom == 0 &&
           p->pad_left == 0 && p->pad_right == 0;
}

/* 1 if the epilogue needs more than y = alpha * acc. */
static inline int sm90_general_epilogue(const igemm_conv_params_t *p)
{
    return p->has_scale || p->has_bias || p->has_residual || p->act != IGEMM_ACT_NONE;
}

/* 1 if the plan sums its split-K partials through the workspace and the reduce kernel (row tiles);
 * pixels-as-N plans sum theirs in a cluster. */
static inline int sm90_plan_reduces(const sm90_plan_t *pl)
{
    return pl->split_k > 1 && !pl->pixels_n;
}

/* 1 if the plan's kernel applies the general epilogue (scale/bias/residual/activation): not where
 * the reduce kernel does (it gets the plain instance's raw sums). */
static inline int sm90_plan_general_epilogue(const igemm_conv_params_t *p, const sm90_plan_t *pl)
{
    return sm90_general_epilogue(p) && !sm90_plan_reduces(pl);
}

/* The epilogue kind of the instances: 0 y = alpha * acc, 1 scale/bias/residual with no activation
 * or ReLU, 2 any activation (the rare ones out of line). */
static inline int sm90_epi_kind(const igemm_conv_params_t *p)
{
    return !sm90_general_epilogue(p) ? 0 : (p->act == IGEMM_ACT_NONE || p->act == IGEMM_ACT_RELU) ? 1 : 2;
}

/* Bounding-box corners of the im2col map (family_conv.cu's header): lower = -pad_begin,
 * upper = (out-1)*stride + 1 - size - pad_begin. */
static inline void sm90_corners(const igemm_conv_params_t *p, int64_t *lo_w, int64_t *lo_h, int64_t *up_w, int64_t *up_h)
{
    *lo_w = -p->pad_left;
    *lo_h = -p->pad_top;
    *up_w = (p->q - 1) * p->stride_w + 1 - p->w - p->pad_left;
    *up_h = (p->p - 1) * p->stride_h + 1 - p->h - p->pad_top;
}

struct sm90_instance;

/* The key of the kernel instance that runs plan pl of problem p (instances.h): the conv family's
 * (igemm_sm90_conv_instance_key) and the stem family's (igemm_sm90_stem_instance_key). */
void igemm_sm90_conv_instance_key(const igemm_conv_params_t *p, const struct sm90_plan *pl, struct sm90_instance *key);

/* heuristics.c: 1 if the TMA conv kernels (sm90, and sm100's on the same core) can address p:
 * f16 / bf16 x, c % 8 == 0, strides <= 8, im2col offsets and corners in range, 32-bit pixel and
 * k-block counters; else 0 and why. Plain C. */
int igemm_tma_conv_geometry_ok(const igemm_conv_params_t *p, char *why, size_t why_len);

/* heuristics.c: the sm90 conv family's supports() and configure() (plain C, CPU-tested). */
int igemm_sm90_conv_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                             char *why, size_t why_len);
igemm_status_t igemm_sm90_conv_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                         const igemm_plan_hints_t *h, igemm_family_config_t *cfg);

/* ------------------------------------------------------------------ stem rows */

#define STEM_NC 3                          /* consumer warpgroups, taking the CTA's tiles in turn */
#define STEM_THREADS (128 * (STEM_NC + 1)) /* + the producer warpgroup */
#define STEM_EB 2                          /* staging boxes per consumer (its tiles alternate) */
#define STEM_MAX_STAGES 8
#define STEM_STEP_BYTES 2048u /* one k16 step of the folded filter: 64 rows x 16 elements */
#define STEM_MAX_ROWS 11      /* filter rows R (the folded filter stays in shared memory) */
/* Raw mode: a tile's input row segment is loaded as NCH chunks of STEM_RAW_CHUNK elements (512 B)
 * starting STEM_RAW_STEP elements apart, from the 16-byte aligned element at or below the segment's
 * first (TMA traps on an innermost box coordinate that is no 16-byte multiple: cudaErrorIllegal-
 * Instruction). Consecutive chunks overlap by 8 elements, so every pixel pair (2 C <= 8 elements)
 * lies whole in one chunk. A chunk's box holds R rows; boxes are STEM_RAW_PITCH bytes apart. */
#define STEM_RAW_CHUNK 256
#define STEM_RAW_STEP 248
#define STEM_RAW_PITCH(r) ((r) * STEM_RAW_CHUNK * 2)
/* chunks for rowp pairs of c channels from an offset of up to 7 elements */
#define STEM_RAW_NCH(c, rowp) ((7 + 2 * (c) * ((rowp) - 1)) / STEM_RAW_STEP + 1)
/* Pixel pairs staged per input row: the TP + 2 KS - 1 a tile reads, rounded up to whole core
 * matrices (8 pairs, 128 B). */
#define STEM_ROW_PAIRS(tp, ks) (((tp) + 2 * (ks) - 1 + 7) / 8 * 8)
/* (R, KS) instances: 3x3 (3, 1: two pair taps whatever the padding); 4x4 (4, 1 or 2: two or three
 * pair taps); 5x5 (5, 2); 7x7 (7, 2), ResNet's stem. Other filters go to the fold family. */
#define STEM_HAS_INSTANCE(r, ks) (((r) == 3 && (ks) == 1) || ((r) == 4 && (ks) == 1) || ((r) == 4 && (ks) == 2) || \
                                  ((r) == 5 && (ks) == 2) || ((r) == 7 && (ks) == 2))

/* The stem geometry of a problem (heuristics_stem.c; family_stem.cu's header comment). */
typedef struct stem_geom {
    int64_t d_lo;    /* first pair tap */
    int64_t s2;      /* pair taps */
    int64_t ks;      /* k16 steps per filter row: ceil(s2 / 2) */
    int64_t tp;      /* output pixels per tile */
    int64_t tiles_q; /* tiles per output row */
    int raw;         /* 1: x is read by the kernel itself (no pre-pass, no workspace) */
    int64_t w2;      /* pre-pass mode: pairs per x4 row, ceil(W / 2) rounded up to a multiple of 8 */
    int64_t ng;      /* pre-pass mode: groups of 8 pairs staged per input row */
    int64_t nch;     /* raw mode: TMA chunks per input row */
    int64_t row_bytes;   /* one input row of pixel pairs as the wgmmas read it */
    int64_t stage_bytes; /* one ring stage (raw mode: NCH chunk boxes of R rows) */
    int64_t pair_bytes;  /* raw mode: a consumer's repacked tile */
    int64_t w_bytes;
    int64_t x4_bytes; /* pre-pass mode: the workspace */
} stem_geom_t;

/* The shared-memory carve for S ring stages (offsets from the kernel's 1024-aligned base). */
typedef struct stem_carve {
    int64_t pair_off, e_off, w_off, bar_off, total;
} stem_carve_t;

/* The stem family's plan (igemm_family_priv(cfg, stem_plan_t)). */
typedef struct stem_plan {
    int raw;       /* the mode planned (the run follows it) */
    int tp;        /* output pixels per tile */
    int stages;
    int grid;
    int pdl;
    int threads;
    size_t smem_bytes;
    int smem_limit;
} stem_plan_t;

void igemm_sm90_stem_geometry(const igemm_conv_params_t *p, int raw, stem_geom_t *g);
void igemm_sm90_stem_instance_key(const igemm_conv_params_t *p, const stem_plan_t *pl, struct sm90_instance *key);
void igemm_sm90_stem_layout(const stem_geom_t *g, int64_t stages, stem_carve_t *c);
int igemm_sm90_stem_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                             char *why, size_t why_len);
igemm_status_t igemm_sm90_stem_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                         const igemm_plan_hints_t *h, igemm_family_config_t *cfg);

/* ------------------------------------------------------------------ fold */

#define FOLD_C 64 /* the most channels of x' and w' when filter rows are folded (the sm90 kernel's BK) */
#define FOLD_WHOLE_C 1024 /* the most channels of x' when the whole filter window is (patch embeddings) */

/* Fold geometry derived from the original problem (family_fold.cu's header comment). */
typedef struct fold_geom {
    int64_t f;     /* filter rows folded per x' pixel */
    int64_t whole; /* 1: the whole window (F = R) and the vertical stride: x' rows are output rows */
    int64_t cf;    /* C': channels of x' and w', roundup(F*S*C, 8) <= FOLD_C (FOLD_WHOLE_C when whole) */
    int64_t rp;    /* R' = ceil(R / F) */
    int64_t hp;    /* H' */
    int64_t used;  /* F*S*C channels that carry data */
    int64_t x_elems, w_elems;
} fold_geom_t;

/* The fold family's plan (igemm_family_priv(cfg, fold_plan_t)). */
typedef struct fold_plan {
    int fold_rows; /* F, fixed at plan time */
    int whole;     /* the whole-window mode */
} fold_plan_t;

void igemm_sm90_fold_geometry_f(const igemm_conv_params_t *p, int64_t f, fold_geom_t *g);
void igemm_sm90_fold_geometry_whole(const igemm_conv_params_t *p, fold_geom_t *g);
void igemm_sm90_fold_geometry_plan(const igemm_conv_params_t *p, const fold_plan_t *pl, fold_geom_t *g);
void igemm_sm90_fold_params(const igemm_conv_params_t *p, const fold_geom_t *g, igemm_conv_params_t *d);
int igemm_sm90_fold_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                             char *why, size_t why_len);
igemm_status_t igemm_sm90_fold_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                         const igemm_plan_hints_t *h, igemm_family_config_t *cfg);
void igemm_sm90_fold_rewrite(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, igemm_conv_params_t *out);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_SM90_H */
