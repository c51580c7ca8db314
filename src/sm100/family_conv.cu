/*
 * family_conv.cu — the Blackwell conv family (igemm_family_sm100, path SM100): the host side of
 * the tcgen05 kernel (conv_fprop.cuh) — which problems it takes, its tile and shared-memory plan
 * (igemm_sm100_plan), its tensor maps (the Hopper core's: sm90/conv_maps.h), argument block and
 * launch — and its first-use self-check cases.
 *
 * The family is registered for compute capability 10.0 only (sm_100a SASS runs nowhere else).
 * No Blackwell GPU has run it: the planner gives it a problem on a device only after its
 * self-check cases matched the direct path there (src/selfcheck.h), and `describe` says why the
 * next path was taken otherwise. TWO VARIANTS, one family (one self-check covers both):
 *   - single: 128 x BN tiles, BN = 64 / 128 / 256 (the smallest that covers N, or hints.tile_n),
 *     cta_group::1, one CTA per tile (conv_fprop.cuh);
 *   - 2-CTA pair: 256 x BN tiles, BN = 128 / 256, cta_group::2 over a cluster of 2 CTAs, one
 *     cluster per tile (conv_fprop_pair.cuh).
 *   The choice (sm100_use_pair): hints.tile_m = 256 forces the pair, 128 the single kernel; else the
 *   pair where N needs BN >= 128, M >= 256 and the pair tiles fill the SMs (2 x pairs >= SMs: every
 *   SM gets a CTA of 256-row tiles), the single kernel otherwise (few tiles: 128-row tiles spread
 *   the work over twice as many SMs). Cluster launch control makes the CTAs (clusters) persistent.
 *   Groups and split-K are not in this version (docs/sm100.md).
 */
#include <stdlib.h>

#include "../common/launch.h"
#include "../sm90/conv_maps.h"
#include "conv_fprop_pair.cuh" /* and conv_fprop.cuh */
#include "smem_plan.h"

#define SM100_WHY(...)                                                                                 \
    do {                                                                                               \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                       \
    } while (0)

/* The configuration a plan keeps (cfg->priv). */
typedef struct sm100_priv {
    int bn, stages, pdl, smem_optin, tma_store, src_tma;
    int pair; /* 1: the 2-CTA pair kernel (256 x bn tiles), 0: cta_group::1 (128 x bn) */
    uint32_t full_tx, acc_empty_arv, clc_empty_arv; /* the plan's counts (the pair kernel's barriers) */
    size_t smem_bytes; /* the plan's total + 1 KB to align the base */
    uint32_t a_off, b_off, bar_off, resp_off, tslot_off, a_stage_bytes, b_stage_bytes, out_off, out_tile_bytes, src_off;
} sm100_priv_t;

static_assert(sizeof(sm100_priv_t) <= IGEMM_FAMILY_PRIV_BYTES, "sm100 plan must fit the family's config");

#define SM100_SWIZZLE 8 /* M-tiles per group of the rasterised order */

/* 1 if y is written by TMA stores: its rows are 16-byte multiples (the tensor map's stride). */
static int sm100_tma_store_ok(const igemm_conv_params_t *p)
{
    return (p->k * (int64_t)igemm_dtype_size(p->out_dtype)) % 16 == 0;
}

static int sm100_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                          char *why, size_t why_len)
{
    if (h->kernel != IGEMM_KERNEL_AUTO && h->kernel != IGEMM_KERNEL_TCGEN05) {
        SM100_WHY("hints.kernel = %d names another family's kernel", h->kernel);
        return 0;
    }
    if (dev->cc_major != 10 || dev->cc_minor != 0) {
        SM100_WHY("device cc %d.%d: the tcgen05 kernel is built for sm_100a (cc 10.0) only", dev->cc_major,
                  dev->cc_minor);
        return 0;
    }
    if (p->groups != 1) {
        SM100_WHY("groups = %lld: the tcgen05 kernel takes ungrouped convs", (long long)p->groups);
        return 0;
    }
    if (h->tile_n && h->tile_n != 64 && h->tile_n != 128 && h->tile_n != 256) {
        SM100_WHY("hints.tile_n = %d: the tcgen05 tiles are 64, 128 or 256 channels", h->tile_n);
        return 0;
    }
    if ((h->tile_m && h->tile_m != 128 && h->tile_m != 256) || h->split_k > 1) {
        SM100_WHY("hints tile_m = %d, split_k = %d: the tcgen05 tiles are 128 pixels (one CTA) or 256 (a 2-CTA pair), "
                  "no split",
                  h->tile_m, h->split_k);
        return 0;
    }
    if (h->tile_m == 256 && h->tile_n == 64) {
        SM100_WHY("hints tile_m = 256, tile_n = 64: the 2-CTA pair's tiles are 256 x 128 or 256 x 256");
        return 0;
    }
    if (h->tile_m == 256 && p->gemm_m < 256) {
        SM100_WHY("hints tile_m = 256: M = %lld output pixels, the 2-CTA pair needs M >= 256", (long long)p->gemm_m);
        return 0;
    }
    return igemm_tma_conv_geometry_ok(p, why, why_len);
}

/* The shared-memory plan of a BN-channel tile (pair: the 2-CTA pair's 256 x BN tile, each CTA
 * 128 rows of A and BN / 2 of B) with `stages` ring stages (0: the most that fit). */
static int sm100_plan_for(const igemm_conv_params_t *p, int bn, int pair, int stages, int has_source, sm100_plan_t *pl,
                          int *stages_out, char *why, size_t why_len)
{
    sm100_config_t c;
    memset(&c, 0, sizeof c);
    c.bm = 128, c.bn = pair ? bn / 2 : bn, c.bk = SM90_BK, c.mma_m = pair ? 256 : 128, c.mma_n = bn;
    c.cta_group = pair ? 2 : 1, c.cluster_m = pair ? SM100P_CLUSTER : 1, c.cluster_n = 1;
    c.in_bytes = 2, c.out_bytes = (int)igemm_dtype_size(p->out_dtype);
    c.out_m = 128, c.out_n = 32, c.k_group = 1, c.out_stages = SM100K_OUT_STAGES;
    c.accum_stages = SM100K_ACCUM_STAGES, c.clc_stages = SM100K_CLC_STAGES, c.has_source = has_source;
    const int most = igemm_sm100_max_stages(&c);
    c.stages = stages > 0 && stages < most ? stages : most;
    if (c.stages < 2) {
        SM100_WHY("tile %dx%d: fewer than 2 pipeline stages fit the shared memory", pair ? 256 : 128, bn);
        return 0;
    }
    *stages_out = c.stages;
    return igemm_sm100_plan(&c, pl, why, why_len);
}

/* The 2-CTA pair's 256 x bn tiles over p. */
static int64_t sm100_pairs(const igemm_conv_params_t *p, int bn)
{
    return ((p->gemm_m + 255) / 256) * ((p->k + bn - 1) / bn);
}

/* 1 if p runs on the 2-CTA pair kernel with bn-channel tiles (the rule at the top of the file). */
static int sm100_use_pair(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                          int bn)
{
    if (h->tile_m) return h->tile_m == 256;
    if (bn < 128 || p->gemm_m < 256) return 0;
    return 2 * sm100_pairs(p, bn) >= (int64_t)dev->sm_count;
}

static igemm_status_t sm100_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                      const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    sm100_priv_t *pr = igemm_family_priv(cfg, sm100_priv_t);
    int bn = h->tile_n ? h->tile_n : p->k <= 64 ? 64 : p->k <= 128 ? 128 : 256;
    const int pair = sm100_use_pair(p, dev, h, bn);
    if (pair && bn < 128) bn = 128; /* tile_m = 256 without tile_n, k <= 64 */
    sm100_plan_t pl;
    char why[256] = "";
    int stages = 0;
    /* the residual through the epilogue-load warp's pipeline where TMA can read it (as y) and its
     * BN / 32 source tiles leave at least 3 ring stages; else the epilogue warps read it */
    int src_tma = p->has_residual && sm100_tma_store_ok(p);
    const int src_fits = src_tma && sm100_plan_for(p, bn, pair, h->stages, 1, &pl, &stages, NULL, 0) && stages >= 3;
    if (src_tma && !src_fits) src_tma = 0;
    if (!src_tma && !sm100_plan_for(p, bn, pair, h->stages, 0, &pl, &stages, why, sizeof why))
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED, "sm100 plan: %s", why);
    if ((int)(pl.total + 1024) > dev->smem_optin_per_block)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED, "sm100 plan: %zu B of shared memory, the device allows %d",
                               pl.total + 1024, dev->smem_optin_per_block);
    pr->bn = bn;
    pr->pair = pair;
    pr->full_tx = pl.input_expected_bytes;
    pr->acc_empty_arv = (uint32_t)pl.acc_empty_kernel_arv, pr->clc_empty_arv = (uint32_t)pl.clc_empty_kernel_arv;
    pr->stages = stages;
    pr->pdl = h->pdl >= 0 && dev->driver_version >= 12030;
    pr->smem_bytes = pl.total + 1024;
    pr->smem_optin = dev->smem_optin_per_block;
    pr->a_off = (uint32_t)pl.a_off, pr->b_off = (uint32_t)pl.b_off, pr->bar_off = (uint32_t)pl.bar_off;
    pr->resp_off = (uint32_t)pl.clc_resp_off, pr->tslot_off = (uint32_t)pl.tmem_addr_off;
    pr->a_stage_bytes = (uint32_t)pl.a_stage_bytes, pr->b_stage_bytes = (uint32_t)pl.b_stage_bytes;
    pr->out_off = (uint32_t)pl.out_off, pr->out_tile_bytes = (uint32_t)pl.out_tile_bytes;
    pr->tma_store = sm100_tma_store_ok(p);
    pr->src_tma = src_tma;
    pr->src_off = (uint32_t)pl.src_off;
    const char *epi_load = src_tma ? "the residual by TMA into source tiles, after the mainloop's first stages"
                           : !p->has_residual     ? "idle: no residual"
                           : sm100_tma_store_ok(p) ? "idle: source tiles would leave fewer than 3 stages, the epilogue "
                                                     "reads the residual"
                                                   : "idle: the residual's rows are no 16-byte multiples, the epilogue "
                                                     "reads it";
    const char *store = pr->tma_store ? "TMA stores through 2 output tiles of 128 x 32"
                                      : "direct 16-byte stores: y's rows are no 16-byte multiples";
    const char *a_map = sm90_a_is_matrix(p) ? "tiled A" : "im2col";
    if (pair) {
        snprintf(cfg->desc, sizeof cfg->desc,
                 "tcgen05 2-CTA pair, cta_group::2, 256 x %d: TMA %s (per CTA 128 rows of A, %d of B) + tcgen05.mma "
                 "cta_group::2 into both CTAs' TMEM, multicast commits, tile 256x%dx64, %d stages, 2 accumulators of "
                 "%d columns; epilogue load (%s); epilogue (%s); %lld pairs (clusters of 2, CLC); %zu B smem per CTA%s; "
                 "passed its first-use self-check on this device",
                 bn, a_map, bn / 2, bn, stages, bn, epi_load, store, (long long)sm100_pairs(p, bn), pr->smem_bytes,
                 pr->pdl ? ", PDL" : "");
    } else {
        const int64_t tiles = ((p->gemm_m + 127) / 128) * ((p->k + bn - 1) / bn);
        snprintf(cfg->desc, sizeof cfg->desc,
                 "tcgen05: TMA %s + tcgen05.mma cta_group::1 into TMEM, tile 128x%dx64, %d stages, %d TMEM "
                 "accumulators (%d columns), warps: TMA load, MMA, CLC scheduler, epilogue load (%s), 4 epilogue "
                 "(tcgen05.ld, fused epilogue, %s); one CTA per tile (%lld), made persistent by cluster launch "
                 "control; %zu B smem%s; passed its first-use self-check on this device",
                 a_map, bn, stages, SM100K_ACCUM_STAGES, SM100K_ACCUM_STAGES * bn, epi_load, store, (long long)tiles,
                 pr->smem_bytes, pr->pdl ? ", programmatic dependent launch" : "");
    }
    cfg->workspace_bytes = 0;
    return IGEMM_STATUS_SUCCESS;
}

/* Per-plan cached state (the family's scratch, 64-byte aligned). */
typedef struct sm100_state {
    CUtensorMap tmap_x, tmap_w, tmap_y, tmap_r;
    const void *x_key, *w_key, *y_key, *r_key;
    int have_x, have_w, have_y, have_r, smem_attr_done;
} sm100_state_t;

static_assert(sizeof(sm100_state_t) + 63 <= IGEMM_FAMILY_STATE_BYTES, "sm100 state must fit the family scratch");

typedef void (*sm100_kernel_fn)(CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap, igemm_sm100_args_t);

/* The tensor map of an [M, k] operand of y's dtype (y, the residual): boxes of 32 columns x 128
 * rows, unswizzled (the output and source tiles' layout). */
static igemm_status_t sm100_encode_out_map(const igemm_conv_params_t *p, const void *ptr, CUtensorMap *map)
{
    const uint64_t dims[2] = {(uint64_t)p->k, (uint64_t)p->gemm_m};
    const uint64_t strides[1] = {(uint64_t)p->k * igemm_dtype_size(p->out_dtype)};
    const uint32_t box[2] = {32, 128};
    return igemm_tmap_encode_tiled(map, p->out_dtype, ptr, 2, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_NONE);
}

static sm100_kernel_fn sm100_kernel_of(int bn, int pair)
{
    if (pair) return bn == 128 ? igemm_sm100_conv_fprop_pair<128> : igemm_sm100_conv_fprop_pair<256>;
    return bn == 64 ? igemm_sm100_conv_fprop<64> : bn == 128 ? igemm_sm100_conv_fprop<128> : igemm_sm100_conv_fprop<256>;
}

static igemm_status_t sm100_run(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                                void *state, void *stream, const igemm_inner_t *inner)
{
    (void)workspace;
    (void)inner;
    const sm100_priv_t *pr = igemm_family_priv(cfg, const sm100_priv_t);
    sm100_state_t *st = (sm100_state_t *)(((uintptr_t)state + 63u) & ~(uintptr_t)63u);
    const int bn = pr->bn;
    const int a_rows = p->gemm_m < 128 ? (int)((p->gemm_m + 7) / 8 * 8) : 128; /* as sm90: the A box cut to M */
    igemm_status_t rc;
    if (!st->have_x || st->x_key != p->x) {
        st->have_x = 0;
        if ((rc = igemm_conv_encode_x_map(p, a_rows, &st->tmap_x)) != IGEMM_STATUS_SUCCESS) return rc;
        st->x_key = p->x, st->have_x = 1;
    }
    if (!st->have_w || st->w_key != p->filter) {
        st->have_w = 0;
        /* the pair: each CTA loads its bn / 2 filter rows */
        if ((rc = igemm_conv_encode_w_map(p, pr->pair ? bn / 2 : bn, &st->tmap_w)) != IGEMM_STATUS_SUCCESS) return rc;
        st->w_key = p->filter, st->have_w = 1;
    }
    if (pr->tma_store && (!st->have_y || st->y_key != p->y)) {
        st->have_y = 0;
        if ((rc = sm100_encode_out_map(p, p->y, &st->tmap_y)) != IGEMM_STATUS_SUCCESS) return rc;
        st->y_key = p->y, st->have_y = 1;
    }
    if (pr->src_tma && (!st->have_r || st->r_key != p->residual)) {
        st->have_r = 0;
        if ((rc = sm100_encode_out_map(p, p->residual, &st->tmap_r)) != IGEMM_STATUS_SUCCESS) return rc;
        st->r_key = p->residual, st->have_r = 1;
    }
    igemm_sm100_args_t a;
    memset(&a, 0, sizeof a);
    igemm_sm90_args_t *g = &a.g;
    g->pq = (int32_t)(p->p * p->q);
    g->q = (int32_t)p->q;
    g->stride_h = (int32_t)p->stride_h, g->stride_w = (int32_t)p->stride_w;
    g->pad_top = (int32_t)p->pad_top, g->pad_left = (int32_t)p->pad_left;
    g->dil_h = (int32_t)p->dil_h, g->dil_w = (int32_t)p->dil_w;
    g->filter_s = (int32_t)p->s;
    g->c_blocks = (int32_t)((p->c + SM90_BK - 1) / SM90_BK);
    g->k_iters = (int32_t)(p->r * p->s * g->c_blocks);
    g->bm = 128;
    g->tiles_m = (int32_t)((p->gemm_m + 127) / 128);
    g->tiles_n = (int32_t)((p->k + bn - 1) / bn);
    g->num_tiles = g->tiles_m * g->tiles_n;
    g->splits = 1;
    g->num_units = g->num_tiles;
    g->stages = pr->stages;
    g->a_tx = a_rows < 128 ? a_rows * SM90_BK * 2 : 0;
    g->a_tiled = sm90_a_is_matrix(p);
    g->fd_pq = igemm_fastdiv_make(g->pq);
    g->fd_q = igemm_fastdiv_make(g->q);
    igemm_sm90_args_epilogue(p, g);
    a.idesc = igemm_tcgen05_idesc_f16(pr->pair ? 256 : 128, bn, 1, p->in_dtype == IGEMM_DTYPE_BF16, 0, 0,
                                      pr->pair ? 2 : 1);
    a.full_tx = pr->full_tx, a.acc_empty_arv = pr->acc_empty_arv, a.clc_empty_arv = pr->clc_empty_arv;
    a.a_off = pr->a_off, a.b_off = pr->b_off, a.bar_off = pr->bar_off;
    a.resp_off = pr->resp_off, a.tslot_off = pr->tslot_off;
    a.a_stage_bytes = pr->a_stage_bytes, a.b_stage_bytes = pr->b_stage_bytes;
    a.swizzle = SM100_SWIZZLE;
    a.tma_store = pr->tma_store;
    a.out_off = pr->out_off, a.out_tile_bytes = pr->out_tile_bytes;
    a.src_tma = pr->src_tma, a.src_off = pr->src_off;

    const sm100_kernel_fn kern = sm100_kernel_of(bn, pr->pair);
    /* the pair: a cluster of 2 CTAs (the kernel's __cluster_dims__) per 256-row unit of tiles */
    const unsigned grid = pr->pair ? (unsigned)(SM100P_CLUSTER * igemm_sm100_units(g->tiles_m, g->tiles_n, SM100P_CLUSTER, 1))
                                   : (unsigned)g->num_tiles;
    cudaError_t e;
    e = igemm_raise_smem_limit((const void *)kern, pr->smem_bytes, pr->smem_optin, &st->smem_attr_done);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "sm100 cudaFuncSetAttribute failed: %s", cudaGetErrorString(e));
    }
    cudaLaunchConfig_t lc;
    cudaLaunchAttribute attr[1];
    igemm_launch_config_1d(&lc, attr, grid, SM100K_THREADS, pr->smem_bytes, stream, pr->pdl);
    e = cudaLaunchKernelEx(&lc, kern, st->tmap_x, st->tmap_w, st->tmap_y, st->tmap_r, a);
    if (e == cudaSuccess) e = cudaGetLastError();
    else (void)cudaGetLastError();
    if (e != cudaSuccess)
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "sm100 conv kernel launch failed: %s", cudaGetErrorString(e));
    return IGEMM_STATUS_SUCCESS;
}

/* The self-check's cases: each tile width, im2col and the tiled 1x1 map, channel / pixel / output
 * channel tails, stride, padding and dilation, f16 and bf16, the three output dtypes, the
 * epilogue's terms, and a grid of more tiles than run at once (cluster launch control hands out
 * the rest); then the 2-CTA pair kernel, forced by tile_m = 256 (the last three cases): both
 * tile widths, im2col and tiled A, an odd count of 128-row tiles (the last pair's peer has no
 * rows), an N tail, the residual by the epilogue-load warp and by the epilogue warps, and more
 * clusters than run at once. One verdict covers the family: a failure of either kernel's cases
 * refuses the whole family on the device (an unverified pair kernel is never used, nor is the
 * single kernel of a family whose pair kernel computed a wrong answer). */
static int sm100_self_check_cases(const igemm_device_info_t *dev, igemm_selfcheck_case_t *cases, int max)
{
    (void)dev;
    static const struct {
        const char *name;
        int64_t n, h, w, c, k, r, s, stride, pad, dil;
        igemm_dtype_t in, out;
        int tile_n, full, tile_m;
    } t[] = {
        {"3x3 pad 1, c 72 (a partial channel block), k 40, tile 128x64, bf16 -> bf16, bias + scale + residual + ReLU",
         2, 9, 11, 72, 40, 3, 3, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16, 64, 1},
        {"3x3 stride 2 pad 1, k 136 (an N tail), tile 128x256, f16 -> f32", 1, 17, 15, 64, 136, 3, 3, 2, 1, 1,
         IGEMM_DTYPE_F16, IGEMM_DTYPE_F32, 256, 0},
        {"5x5 dilation 2 pad 4, c 16, k 96, tile 128x128, bf16 -> f16, bias + scale + residual + ReLU", 2, 12, 12, 16,
         96, 5, 5, 1, 4, 2, IGEMM_DTYPE_BF16, IGEMM_DTYPE_F16, 128, 1},
        {"1x1 (tiled A), M 5120, k 512, tile 128x64: 320 tiles, more than run at once", 4, 40, 32, 64, 512, 1, 1, 1, 0, 1,
         IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16, 64, 0},
        {"1x1 (tiled A), M 100 (one short M-tile), c 200, k 250 (rows of 500 bytes: direct stores), tile 128x256, "
         "f16 -> f16",
         1, 10, 10, 200, 250, 1, 1, 1, 0, 1, IGEMM_DTYPE_F16, IGEMM_DTYPE_F16, 256, 1},
        {"2-CTA pair: 3x3 pad 1, M 800 (7 row tiles: the last pair's peer has none), k 200 (an N tail), tile "
         "256x128, bf16 -> bf16, bias + scale + residual (by TMA) + ReLU",
         2, 20, 20, 64, 200, 3, 3, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16, 128, 1, 256},
        {"2-CTA pair: 3x3 stride 2 pad 1, c 96 (a partial channel block), M 1024, k 256, tile 256x256, f16 -> f32, "
         "bias + scale + residual (read by the epilogue warps) + ReLU",
         4, 32, 32, 96, 256, 3, 3, 2, 1, 1, IGEMM_DTYPE_F16, IGEMM_DTYPE_F32, 256, 1, 256},
        {"2-CTA pair: 1x1 (tiled A), M 5120, k 1024, tile 256x256: 80 clusters, more than run at once", 4, 40, 32, 64,
         1024, 1, 1, 1, 0, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16, 256, 0, 256},
    };
    int n = 0;
    for (size_t i = 0; i < sizeof t / sizeof t[0] && n < max; i++, n++) {
        igemm_selfcheck_case_t *c = &cases[n];
        memset(c, 0, sizeof *c);
        c->name = t[i].name;
        c->desc = igemm_problem_desc_default();
        c->desc.n = t[i].n, c->desc.h = t[i].h, c->desc.w = t[i].w, c->desc.c = t[i].c, c->desc.k = t[i].k;
        c->desc.r = t[i].r, c->desc.s = t[i].s, c->desc.stride_h = c->desc.stride_w = t[i].stride;
        c->desc.pad_top = c->desc.pad_bottom = c->desc.pad_left = c->desc.pad_right = t[i].pad;
        c->desc.dil_h = c->desc.dil_w = t[i].dil;
        c->desc.x_dtype = c->desc.w_dtype = t[i].in;
        c->desc.y_dtype = t[i].out;
        c->epi = igemm_problem_epilogue_default();
        if (t[i].full) {
            c->epi.alpha = 0.75f, c->epi.beta = 0.5f;
            c->epi.has_scale = c->epi.has_bias = c->epi.has_residual = 1;
            c->epi.activation = IGEMM_ACT_RELU;
        }
        c->hints.kernel = IGEMM_KERNEL_TCGEN05;
        c->hints.tile_n = t[i].tile_n;
        c->hints.tile_m = t[i].tile_m;
    }
    return n;
}

extern "C" const igemm_family_t igemm_family_sm100 = {
    "sm100_tcgen05", IGEMM_PATH_SM100, 1, sm100_supports, sm100_configure, NULL, sm100_run, NULL,
    sm100_self_check_cases,
};
