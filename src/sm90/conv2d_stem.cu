/*
 * conv2d_stem.cu — the sm90 stem path: convolutions of c <= 4 input channels with stride 2 along
 * W (the first layer of image networks: ResNet's 7x7/2, the 3x3/2 stems), without an im2col
 * copy of the input. Exports igemm_family_sm90_stem (path IGEMM_PATH_SM90); tried before the
 * fold family (conv2d_fold.cu), which takes the c < 8 layers this one does not.
 *
 * ALGORITHM: pixels as the wgmma N, a tile's input rows staged once, the filter taps read from
 *   them through shifted shared-memory descriptors.
 *   - The kernel reads pixel pairs (two pixels x 4 channels = 16 bytes; channels >= C zero).
 *     Raw mode (w c % 8 == 0, so x's rows are 16-byte multiples; ResNet-50 conv1): the TMA loads
 *     the tile's row segments of x itself, as overlapping chunks of 256 elements (boxes of 256 x
 *     R x 1 from the 16-byte aligned element at or below the segment's start: the TMA traps on an
 *     innermost coordinate that is no 16-byte multiple), and the consumer that takes the tile
 *     repacks them into pairs in its own shared-memory buffer. Pre-pass mode (other widths, or
 *     IGEMM_SM90_STEM_RAW=0): a pre-pass writes x4, x with its channels padded to 4 and its width
 *     to a multiple of 16 (zeros), x2[n][h][W2][8] as pairs (W2 = ceil(W / 2) rounded up to a
 *     multiple of 8), and the TMA loads it as groups of 8 pairs (128 B), read by the wgmmas where
 *     they land. (Raw mode took ResNet-50 conv1 from 30.2 to 26.9 us plain, 42.5 to 36.1 fused,
 *     H200: no 22 MB pre-pass round trip, no second launch.)
 *   - Output column q reads input columns 2q - pad_left + s (s < S). In pairs, that is the pairs
 *     q + d_lo + t, t = 0 .. S2-1 (d_lo = floor(-pad_left / 2)), element (s - pad_left) mod 2 of
 *     each: for a fixed pair tap t, consecutive output pixels read consecutive 16-byte pairs.
 *   - A tile is TP output pixels (q0 .. q0 + TP - 1) of one output row p. Its ring stage holds the
 *     R input rows p*stride_h - pad_top + r: the pairs q0 + d_lo .. q0 + d_lo + TP + 2 KS - 2 of
 *     each (raw mode: NCH chunks per row; pre-pass mode: the NG groups of 8 pairs that hold them, one
 *     4-D TMA box); zero fill outside the image is the padding. (A box of 16-byte pairs made the
 *     TMA move 16-byte rows: ResNet conv1 ran 42 us that way.)
 *   - The GEMM: D[64 filter rows][TP pixels] = sum over (r, j < KS) of A_rj[64][16] x B_rj[16][TP],
 *     K = R x KS x 16 (pair taps 2j and 2j + 1 of filter row r, 8 elements each). B_rj is row r of
 *     the pairs read from the tile's first pair + 2j with a no-swizzle K-major descriptor: core
 *     matrix = 8 pixels x 16 bytes (8 consecutive pairs: contiguous), SBO 128 B (the next 8
 *     pixels), LBO 16 B (the next pair tap: the core matrices of the two K halves overlap, which
 *     the descriptor allows). No data is duplicated: each staged pair feeds S2 taps.
 *   - A_rj comes from the folded filter, the shared-memory image of 64 x K in the no-swizzle
 *     K-major layout (per k16 step 2 KB: core matrix (8 rows, 16 B) at (2 g + h) x 128 B for row
 *     group g and K half h; LBO 128 B, SBO 256 B): w2[step r*KS + j][row m][element 8h + e] =
 *     w[m, r, s, c] with s = 2 (d_lo + 2j + h) + e/4 + pad_left and c = e % 4 (zero where s >= S,
 *     s < 0, c >= C or m >= K). Each CTA's consumers lay it out once (from a copy of w) and it
 *     stays resident.
 *   The MMA work is K = 16 R KS per output pixel against R S C useful (ResNet-50 conv1: 224 for
 *   147), and x is read about once from DRAM (each input row serves R / stride_h output rows
 *   through L2); the fold family wrote and read a 75 MB x' for conv1.
 * LAYOUTS: x NHWC (c <= 4), w KRSC, y and residual NHWC of the input dtype, k <= 64, k % 8 == 0.
 *   Pre-pass mode: x4 [n][h][2 W2][4] in the plan's workspace (raw mode: no workspace).
 * TILE: TP = 112 or 128 output pixels x 64 channels, fp32 accumulators (TP/2 per thread).
 * KERNEL (conv2d_stem_kernel.cuh): persistent (grid = min(tiles, SMs)), a producer warpgroup
 *   (warp 0: one stage per tile; warp 1: each tile's residual into its consumer's staging box)
 *   and 3 consumer warpgroups taking the CTA's tiles in turn (one consumer's epilogue runs under
 *   the others' MMAs; raw mode: its repack too); full/empty barriers per stage, rfull/rempty per
 *   staging box (2 per consumer), an order barrier per consumer; the epilogue is the sm90 family's
 *   pixels-as-N one (scale, bias, residual, activation, stmatrix into a 128B-swizzled box, 3-D TMA
 *   store clipped at Q and K).
 * PTX: cp.async.bulk.tensor 3-D/4-D tile loads and 3-D stores, mbarrier expect_tx rings,
 *   wgmma.mma_async m64n112k16 / m64n128k16 (bf16, f16) with no-swizzle descriptors, setmaxnreg,
 *   ldmatrix/stmatrix .trans, named barriers, fence.proxy.async, griddepcontrol (PDL).
 * Knobs: IGEMM_SM90_STEM=0 turns the family off (the fold family then takes the layer);
 *   IGEMM_SM90_GATHER=1 (the fold family's gathered-A stem) also steps it aside;
 *   IGEMM_SM90_STEM_RAW=0 takes the pre-pass mode where raw mode would do; IGEMM_SM90_GRID=n
 *   launches n CTAs (tests).
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv2d_stem_kernel.cuh"

/* ------------------------------------------------------------------ geometry */

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

static int64_t floor_div2(int64_t v) { return v >= 0 ? v / 2 : -((1 - v) / 2); }

static size_t stem_align256(size_t v) { return (v + 255) & ~(size_t)255; }

static int64_t stem_round(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

/* Raw mode (the kernel loads x's row segments by TMA and repacks them into pixel pairs in shared
 * memory): x's rows must be 16-byte multiples (TMA strides), i.e. w c % 8 == 0; otherwise, or with
 * IGEMM_SM90_STEM_RAW=0, a pre-pass writes x4 and the kernel loads its pairs. */
static int stem_raw_fits(const igemm_conv_params_t *p)
{
    return (p->w * p->c) % 8 == 0 && p->w * p->c < ((int64_t)1 << 31);
}

static int stem_raw_ok(const igemm_conv_params_t *p)
{
    const char *r_s = getenv("IGEMM_SM90_STEM_RAW");
    return !(r_s && atoi(r_s) == 0) && stem_raw_fits(p);
}

static void stem_geometry(const igemm_conv_params_t *p, int raw, stem_geom_t *g)
{
    g->d_lo = floor_div2(-p->pad_left);
    g->s2 = floor_div2(p->s - 1 - p->pad_left) - g->d_lo + 1;
    g->ks = (g->s2 + 1) / 2;
    /* the tile width that wastes the fewest pixel columns (ties: the wider) */
    const int64_t t112 = (p->q + 111) / 112, t128 = (p->q + 127) / 128;
    g->tp = t112 * 112 < t128 * 128 ? 112 : 128;
    g->tiles_q = g->tp == 112 ? t112 : t128;
    g->raw = raw;
    g->w2 = ((p->w + 1) / 2 + 7) / 8 * 8;
    if (g->raw) {
        /* a stage holds the chunks of the tile's R row segments; each consumer repacks its tile
         * into R rows of the pairs it reads (from q0 + d_lo) */
        const int64_t rowp = STEM_ROW_PAIRS(g->tp, g->ks);
        g->ng = 0;
        g->nch = STEM_RAW_NCH(p->c, rowp);
        g->row_bytes = rowp * 16;
        g->stage_bytes = g->nch * STEM_RAW_PITCH(p->r);
        g->pair_bytes = stem_round(p->r * g->row_bytes, 128);
        g->x4_bytes = 0;
    } else {
        /* the tile's TP + 2 KS - 1 pairs start at any pair of a group: up to 7 more */
        g->ng = (7 + g->tp + 2 * g->ks - 1 + 7) / 8;
        g->nch = 0;
        g->row_bytes = g->ng * 128;
        g->stage_bytes = p->r * g->row_bytes;
        g->pair_bytes = 0;
        g->x4_bytes = p->n * p->h * g->w2 * 16;
    }
    g->w_bytes = p->r * g->ks * (int64_t)STEM_STEP_BYTES;
}

/* The shared-memory carve for S ring stages (offsets from the kernel's 1024-aligned base): the
 * stages, the consumers' pair buffers (raw mode), the staging boxes (1024-aligned: 128B-swizzled
 * TMA), the filter, the barriers; and the total with the alignment slack. */
typedef struct stem_carve {
    int64_t pair_off, e_off, w_off, bar_off, total;
} stem_carve_t;

static void stem_layout(const stem_geom_t *g, int64_t stages, stem_carve_t *c)
{
    c->pair_off = stages * g->stage_bytes;
    c->e_off = stem_round(c->pair_off + (int64_t)STEM_NC * g->pair_bytes, 1024);
    c->w_off = c->e_off + (int64_t)STEM_NC * STEM_EB * g->tp * 128;
    c->bar_off = c->w_off + g->w_bytes;
    c->total = 1024 + c->bar_off + 8 * (2 * stages + 2 * STEM_NC * STEM_EB + STEM_NC + 1);
}

static int64_t stem_smem(const stem_geom_t *g, int64_t stages)
{
    stem_carve_t c;
    stem_layout(g, stages, &c);
    return c.total;
}

#define STEM_WHY(...)                                                                                  \
    do {                                                                                               \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                       \
    } while (0)

#define STEM_MAX_WORKSPACE ((int64_t)2 << 30)

static int stem_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, char *why, size_t why_len)
{
    const char *k_s = getenv("IGEMM_SM90_STEM"), *g_s = getenv("IGEMM_SM90_GATHER");
    if (k_s && atoi(k_s) == 0) {
        STEM_WHY("IGEMM_SM90_STEM=0");
        return 0;
    }
    if (g_s && atoi(g_s) == 1) {
        STEM_WHY("IGEMM_SM90_GATHER=1 asks for the fold family's gathered-A stem");
        return 0;
    }
    if (dev->cc_major != 9 || dev->cc_minor != 0) {
        STEM_WHY("device cc %d.%d: the stem kernel is built for sm_90a only", dev->cc_major, dev->cc_minor);
        return 0;
    }
    if (p->c > 4 || p->groups != 1) {
        STEM_WHY("c = %lld, groups = %lld: the stem path takes c <= 4, groups == 1", (long long)p->c,
                 (long long)p->groups);
        return 0;
    }
    if (p->stride_w != 2 || p->dil_w != 1 || p->dil_h != 1) {
        STEM_WHY("stride_w = %lld, dilation %lldx%lld: the stem path takes stride_w 2 (pixel pairs) and no dilation",
                 (long long)p->stride_w, (long long)p->dil_h, (long long)p->dil_w);
        return 0;
    }
    if ((p->in_dtype != IGEMM_DTYPE_BF16 && p->in_dtype != IGEMM_DTYPE_F16) || p->out_dtype != p->in_dtype) {
        STEM_WHY("dtypes in %d, out %d: the stem path stores y of the input's 16-bit dtype by TMA",
                 (int)p->in_dtype, (int)p->out_dtype);
        return 0;
    }
    if (p->k > 64 || p->k % 8 != 0) {
        STEM_WHY("k = %lld: the stem path takes k <= 64, k %% 8 == 0 (one 64-channel tile, 16-byte rows)",
                 (long long)p->k);
        return 0;
    }
    stem_geom_t g;
    stem_geometry(p, stem_raw_ok(p), &g);
    if (!STEM_HAS_INSTANCE(p->r, g.ks)) {
        STEM_WHY("filter %lldx%lld with pad_left %lld (%lld pixel-pair taps): the stem path has 3x3 (1 or 2 k16 steps "
                 "per row), 4x4, 5x5 and 7x7 (up to 4 pair taps) instances",
                 (long long)p->r, (long long)p->s, (long long)p->pad_left, (long long)g.s2);
        return 0;
    }
    const int64_t lim = (int64_t)1 << 30;
    if (p->n * p->p >= lim || p->n * p->p * g.tiles_q >= lim || p->h >= lim || g.w2 >= lim || p->q >= lim || p->p * p->stride_h + p->r >= lim ||
        p->pad_top >= lim || p->gemm_m >= ((int64_t)1 << 40) || g.x4_bytes > STEM_MAX_WORKSPACE) {
        STEM_WHY("n*p = %lld, h = %lld, w = %lld: beyond the stem path's 32-bit tile and TMA coordinates or its "
                 "2 GB workspace",
                 (long long)(p->n * p->p), (long long)p->h, (long long)p->w);
        return 0;
    }
    if (p->k * p->r * p->s * p->c * 2 > (int64_t)STEM_NC * STEM_EB * g.tp * 128) { /* the fold's scratch */
        STEM_WHY("filter of %lld elements: more than the stem kernel's staging boxes hold while it folds them",
                 (long long)(p->k * p->r * p->s * p->c));
        return 0;
    }
    if (stem_smem(&g, 2) > dev->smem_optin_per_block) {
        STEM_WHY("the stem tile needs %lld B of shared memory (device: %d)", (long long)stem_smem(&g, 2),
                 dev->smem_optin_per_block);
        return 0;
    }
    return 1;
}

static igemm_status_t stem_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                     igemm_kernel_config_t *cfg)
{
    stem_geom_t g;
    stem_geometry(p, stem_raw_ok(p), &g);
    int64_t stages = STEM_MAX_STAGES;
    while (stages > 2 && stem_smem(&g, stages) > dev->smem_optin_per_block) stages--;
    const int sms = dev->sm_count > 0 ? dev->sm_count : 132;
    const int64_t tiles = p->n * p->p * g.tiles_q;
    memset(cfg, 0, sizeof *cfg);
    cfg->bm = (int)g.tp;
    cfg->bn = 64;
    cfg->bk = 16;
    cfg->stages = (int)stages;
    cfg->threads = STEM_THREADS;
    cfg->consumers = STEM_NC;
    cfg->pixels_n = 1;
    cfg->variant = g.raw; /* the run follows the plan's mode whatever the environment says later */
    cfg->grid = (int)(tiles < sms ? tiles : sms);
    const char *fg_s = getenv("IGEMM_SM90_GRID"); /* tests: fewer CTAs, each many tiles (the rings wrap) */
    if (fg_s && atoi(fg_s) >= 1 && atoi(fg_s) < cfg->grid) cfg->grid = atoi(fg_s);
    cfg->smem_bytes = (size_t)stem_smem(&g, stages);
    cfg->smem_limit = dev->smem_optin_per_block;
    cfg->workspace_bytes = g.raw ? 0 : stem_align256((size_t)g.x4_bytes);
    int drv = 0;
    cfg->pdl = cudaDriverGetVersion(&drv) == cudaSuccess && drv >= 12030;
    char how[160];
    if (g.raw)
        snprintf(how, sizeof how, "x read in place (w*c %% 8 == 0: row segments by TMA, repacked by each consumer to "
                                  "4-channel pixel pairs in shared memory)");
    else
        snprintf(how, sizeof how, "c=%lld padded to 4 channels as pixel pairs by a pre-pass (x4 %lld MB; %s)",
                 (long long)p->c, (long long)(g.x4_bytes >> 20),
                 stem_raw_fits(p) ? "IGEMM_SM90_STEM_RAW=0" : "w*c % 8 != 0: x's rows are no 16-byte multiples");
    snprintf(cfg->desc, sizeof cfg->desc,
             "stem rows: %s, tile %lld pixels of one output row x 64 channels (pixels as wgmma N), the tile's %lld "
             "input rows staged once and %lld pair tap(s) per row read from them shifted (K'=%lld for %lld), filter "
             "resident in shared memory (laid out by each CTA), %lld stages, 1 producer + %d consumer warpgroups taking tiles "
             "in turn, y by TMA stores, grid %d over %lld tiles%s",
             how, (long long)g.tp, (long long)p->r, (long long)g.s2, (long long)(p->r * g.ks * 16),
             (long long)(p->r * p->s * p->c), (long long)stages, STEM_NC, cfg->grid, (long long)tiles,
             cfg->pdl ? ", programmatic dependent launch" : "");
    return IGEMM_STATUS_SUCCESS;
}

/* ------------------------------------------------------------------ pre-pass */

/* Pre-pass mode: x4, one 16-byte pair per thread (pixels 2 wp and 2 wp + 1 of a row, channels >= C
 * and a column past W zero). (8 pixels per thread by 16-byte loads, for c = 3, measured 31 -> 34 us
 * on ResNet-50 conv1 in another call: not kept; that layer now takes the raw mode.) */
__global__ void __launch_bounds__(256) igemm_stem_prep_kernel(const uint16_t *__restrict__ x, uint4 *__restrict__ x4,
                                                              igemm_conv_params_t p, int64_t w2p)
{
    ptx_griddepcontrol_wait(); /* x comes from the grid before this one */
    ptx_griddepcontrol_launch_dependents();
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    const int64_t pairs = p.n * p.h * w2p;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < pairs; t += step) {
        const int64_t row = t / w2p, wp = t - row * w2p;
        const uint16_t *const px = x + (row * p.w + 2 * wp) * p.c;
        uint32_t v[8];
#pragma unroll
        for (int e = 0; e < 8; e++) {
            const int pix = e >> 2, c = e & 3;
            v[e] = c < p.c && 2 * wp + pix < p.w ? (uint32_t)px[pix * p.c + c] : 0u;
        }
        x4[t] = make_uint4(v[0] | (v[1] << 16), v[2] | (v[3] << 16), v[4] | (v[5] << 16), v[6] | (v[7] << 16));
    }
}

/* ------------------------------------------------------------------ run */

typedef struct stem_state {
    CUtensorMap tmap_x, tmap_y, tmap_r;
    const void *x_key, *y_key, *r_key;
    int have_x, have_y, have_r;
    int smem_attr_done;
} stem_state_t;

static_assert(sizeof(stem_state_t) + 63 <= IGEMM_FAMILY_STATE_BYTES, "stem state must fit the family scratch");

static igemm_status_t stem_cuda_fail(const char *what, cudaError_t e)
{
    return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "sm90 stem: %s failed: %s (%s)", what, cudaGetErrorString(e),
                           cudaGetErrorName(e));
}

/* y or the residual as a 3-D map {k, Q, N*P}, a box of 64 channels x TP pixels (one output row's
 * pixels: the store clips at Q and K) */
static igemm_status_t stem_encode_out(const igemm_conv_params_t *p, const void *ptr, int tp, CUtensorMap *map)
{
    const uint64_t dims[3] = {(uint64_t)p->k, (uint64_t)p->q, (uint64_t)(p->n * p->p)};
    const uint64_t strides[2] = {(uint64_t)p->k * 2, (uint64_t)(p->q * p->k * 2)};
    const uint32_t box[3] = {64, (uint32_t)tp, 1};
    return igemm_tmap_encode_tiled(map, p->out_dtype, ptr, 3, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B);
}

static igemm_status_t stem_run(const igemm_conv_params_t *p, const igemm_kernel_config_t *cfg, void *workspace,
                               void *state, void *stream)
{
    stem_state_t *st = (stem_state_t *)(((uintptr_t)state + 63u) & ~(uintptr_t)63u);
    stem_geom_t g;
    stem_geometry(p, cfg->variant, &g);
    if ((!g.raw && (workspace == NULL || cfg->workspace_bytes < stem_align256((size_t)g.x4_bytes))) || cfg->bm != g.tp)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 stem run: workspace of %zu B missing or plan changed",
                               cfg->workspace_bytes);
    uint8_t *x4 = (uint8_t *)workspace;
    const bool general = p->has_scale || p->has_bias || p->has_residual || p->act != IGEMM_ACT_NONE;
    const int epi = !general ? 0 : (p->act == IGEMM_ACT_NONE || p->act == IGEMM_ACT_RELU) ? 1 : 2;
    const sm90_stem_kernel_fn kern = p->in_dtype == IGEMM_DTYPE_BF16 ? igemm_sm90_pick_bf16_stem((int)g.tp, (int)p->r, (int)g.ks, epi)
                                                                      : igemm_sm90_pick_f16_stem((int)g.tp, (int)p->r, (int)g.ks, epi);
    if (kern == NULL)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 stem run: no kernel for tile %lld, %lld steps",
                               (long long)g.tp, (long long)g.ks);
    igemm_status_t rc;
    const void *x_key = g.raw ? p->x : workspace;
    if (!st->have_x || st->x_key != x_key) {
        st->have_x = 0;
        if (g.raw) {
            /* x as {W C, H, N} elements: a box of CHUNK elements x the tile's R rows (zero fill
             * left and right of the row, above and below the image) */
            const uint64_t wc = (uint64_t)(p->w * p->c);
            const uint64_t dims[3] = {wc, (uint64_t)p->h, (uint64_t)p->n};
            const uint64_t strides[2] = {wc * 2, wc * 2 * (uint64_t)p->h};
            const uint32_t box[3] = {STEM_RAW_CHUNK, (uint32_t)p->r, 1};
            rc = igemm_tmap_encode_tiled(&st->tmap_x, p->in_dtype, p->x, 3, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_NONE);
        } else {
            /* x4 as {64, W2 / 8, H, N}: groups of 8 pairs (128 B: TMA moves 128-byte rows, not the
             * 16-byte ones of a pair view), a box of NG groups x the tile's R rows */
            const uint64_t dims[4] = {64, (uint64_t)(g.w2 / 8), (uint64_t)p->h, (uint64_t)p->n};
            const uint64_t strides[3] = {128, (uint64_t)(g.w2 * 16), (uint64_t)(p->h * g.w2 * 16)};
            const uint32_t box[4] = {64, (uint32_t)g.ng, (uint32_t)p->r, 1};
            rc = igemm_tmap_encode_tiled(&st->tmap_x, p->in_dtype, x4, 4, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_NONE);
        }
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->x_key = x_key;
        st->have_x = 1;
    }
    if (!st->have_y || st->y_key != p->y) {
        st->have_y = 0;
        rc = stem_encode_out(p, p->y, (int)g.tp, &st->tmap_y);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->y_key = p->y;
        st->have_y = 1;
    }
    if (p->has_residual && (!st->have_r || st->r_key != p->residual)) {
        st->have_r = 0;
        rc = stem_encode_out(p, p->residual, (int)g.tp, &st->tmap_r);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->r_key = p->residual;
        st->have_r = 1;
    }

    igemm_sm90_args_t a; /* the epilogue's fields only (sm90_pixn_blocks) */
    memset(&a, 0, sizeof a);
    igemm_sm90_args_epilogue(p, &a);
    igemm_sm90_stem_args_t sa;
    memset(&sa, 0, sizeof sa);
    sa.p = (int32_t)p->p;
    sa.stride_h = (int32_t)p->stride_h;
    sa.pad_top = (int32_t)p->pad_top;
    sa.d_lo = (int32_t)g.d_lo;
    sa.tiles_q = (int32_t)g.tiles_q;
    sa.num_tiles = (int32_t)(p->n * p->p * g.tiles_q);
    sa.stages = cfg->stages;
    sa.raw = g.raw;
    sa.c = (int32_t)p->c;
    sa.k = (int32_t)p->k;
    sa.s = (int32_t)p->s;
    sa.pad_left = (int32_t)p->pad_left;
    sa.stage_bytes = (uint32_t)g.stage_bytes;
    sa.row_bytes = (uint32_t)g.row_bytes;
    sa.raw_nch = (int32_t)g.nch;
    sa.pair_bytes = (uint32_t)g.pair_bytes;
    stem_carve_t cv;
    stem_layout(&g, cfg->stages, &cv);
    sa.pair_off = (uint32_t)cv.pair_off;
    sa.e_off = (uint32_t)cv.e_off;
    sa.w_off = (uint32_t)cv.w_off;
    sa.bar_off = (uint32_t)cv.bar_off;
    sa.w = (const uint16_t *)p->filter;
    sa.fd_tq = igemm_fastdiv_make(sa.tiles_q);
    sa.fd_p = igemm_fastdiv_make(sa.p);

    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e;
    if (!st->smem_attr_done) { /* raised to the device's opt-in maximum (see conv2d_fprop.cu) */
        int optin = cfg->smem_limit;
        if ((size_t)optin < cfg->smem_bytes) optin = (int)cfg->smem_bytes;
        e = cudaFuncSetAttribute((const void *)kern, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return stem_cuda_fail("cudaFuncSetAttribute(max dynamic shared memory)", e);
        }
        st->smem_attr_done = 1;
    }
    cudaLaunchAttribute attr[1];
    memset(attr, 0, sizeof attr);
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    if (!g.raw) {
        /* the pre-pass: x4 (at most 16 blocks per SM) */
        int64_t xb = (p->n * p->h * g.w2 + 255) / 256;
        const int64_t cap = (int64_t)cfg->grid * 16;
        if (xb > cap) xb = cap;
        if (xb < 1) xb = 1;
        cudaLaunchConfig_t lc;
        memset(&lc, 0, sizeof lc);
        lc.gridDim = dim3((unsigned)xb, 1, 1);
        lc.blockDim = dim3(256, 1, 1);
        lc.stream = s;
        lc.attrs = cfg->pdl ? attr : NULL;
        lc.numAttrs = cfg->pdl ? 1 : 0;
        e = cudaLaunchKernelEx(&lc, igemm_stem_prep_kernel, (const uint16_t *)p->x, (uint4 *)x4, *p, g.w2);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return stem_cuda_fail("pre-pass launch", e);
        }
    }
    {
        cudaLaunchConfig_t lc;
        memset(&lc, 0, sizeof lc);
        lc.gridDim = dim3((unsigned)cfg->grid, 1, 1);
        lc.blockDim = dim3((unsigned)cfg->threads, 1, 1);
        lc.dynamicSmemBytes = cfg->smem_bytes;
        lc.stream = s;
        lc.attrs = cfg->pdl ? attr : NULL;
        lc.numAttrs = cfg->pdl ? 1 : 0;
        e = cudaLaunchKernelEx(&lc, kern, st->tmap_x, st->tmap_y, st->tmap_r, a, sa);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return stem_cuda_fail("kernel launch", e);
        }
    }
    return IGEMM_STATUS_SUCCESS;
}

extern "C" const igemm_family_t igemm_family_sm90_stem = {
    "sm90_stem_tma_wgmma", IGEMM_PATH_SM90, stem_supports, stem_configure, stem_run,
};
