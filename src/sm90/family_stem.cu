/*
 * family_stem.cu — the sm90 stem path: convolutions of c <= 4 input channels with stride 2 along
 * W (the first layer of image networks: ResNet's 7x7/2, the 3x3/2 stems), without an im2col
 * copy of the input. Exports igemm_family_sm90_stem (path IGEMM_PATH_SM90); tried before the
 * fold family (family_fold.cu), which takes the c < 8 layers this one does not.
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
 * KERNEL (conv_stem_rows.cuh): persistent (grid = min(tiles, SMs)), a producer warpgroup
 *   (warp 0: one stage per tile; warp 1: each tile's residual into its consumer's staging box)
 *   and 3 consumer warpgroups taking the CTA's tiles in turn (one consumer's epilogue runs under
 *   the others' MMAs; raw mode: its repack too); full/empty barriers per stage, rfull/rempty per
 *   staging box (2 per consumer), an order barrier per consumer; the epilogue is the sm90 family's
 *   pixels-as-N one (scale, bias, residual, activation, stmatrix into a 128B-swizzled box, 3-D TMA
 *   store clipped at Q and K).
 * PTX: cp.async.bulk.tensor 3-D/4-D tile loads and 3-D stores, mbarrier expect_tx rings,
 *   wgmma.mma_async m64n112k16 / m64n128k16 (bf16, f16) with no-swizzle descriptors, setmaxnreg,
 *   ldmatrix/stmatrix .trans, named barriers, fence.proxy.async, griddepcontrol (PDL).
 * Hints (experimental): kernel = fold (or another kernel) steps it aside; stem_prepass = 1 takes
 *   the pre-pass mode where raw mode would do; grid = n launches at most n CTAs (tests); stages
 *   caps the ring; pdl = -1 launches without programmatic dependent launch.
 * Plan (supports, configure, geometry, shared-memory carve): heuristics_stem.c.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conv_stem_rows.cuh"
#include "instances.h"
#include "sm90.h"

typedef void (*sm90_stem_kernel_fn)(CUtensorMap, CUtensorMap, CUtensorMap, igemm_sm90_args_t, igemm_sm90_stem_args_t);

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
    const void *kern; /* the plan's instance (found at the first run) */
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

static igemm_status_t stem_run(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                               void *state, void *stream, const igemm_inner_t *inner)
{
    (void)inner;
    const stem_plan_t *pl = igemm_family_priv(cfg, const stem_plan_t);
    stem_state_t *st = (stem_state_t *)(((uintptr_t)state + 63u) & ~(uintptr_t)63u);
    stem_geom_t g;
    igemm_sm90_stem_geometry(p, pl->raw, &g);
    if ((!g.raw && (workspace == NULL || cfg->workspace_bytes < (size_t)g.x4_bytes)) || pl->tp != g.tp)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 stem run: workspace of %zu B missing or plan changed",
                               cfg->workspace_bytes);
    uint8_t *x4 = (uint8_t *)workspace;
    if (st->kern == NULL) { /* the plan's instance, found once */
        sm90_instance_t key;
        igemm_sm90_stem_instance_key(p, pl, &key);
        st->kern = igemm_sm90_instance_find(&key);
    }
    const sm90_stem_kernel_fn kern = (sm90_stem_kernel_fn)st->kern;
    if (kern == NULL)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 stem run: no kernel for tile %lld, R %lld, %lld steps",
                               (long long)g.tp, (long long)p->r, (long long)g.ks);
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
    sa.stages = pl->stages;
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
    igemm_sm90_stem_layout(&g, pl->stages, &cv);
    sa.pair_off = (uint32_t)cv.pair_off;
    sa.e_off = (uint32_t)cv.e_off;
    sa.w_off = (uint32_t)cv.w_off;
    sa.bar_off = (uint32_t)cv.bar_off;
    sa.w = (const uint16_t *)p->filter;
    sa.fd_tq = igemm_fastdiv_make(sa.tiles_q);
    sa.fd_p = igemm_fastdiv_make(sa.p);

    cudaStream_t s = (cudaStream_t)stream;
    cudaError_t e;
    if (!st->smem_attr_done) { /* raised to the device's opt-in maximum (see family_conv.cu) */
        int optin = pl->smem_limit;
        if ((size_t)optin < pl->smem_bytes) optin = (int)pl->smem_bytes;
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
        const int64_t cap = (int64_t)pl->grid * 16;
        if (xb > cap) xb = cap;
        if (xb < 1) xb = 1;
        cudaLaunchConfig_t lc;
        memset(&lc, 0, sizeof lc);
        lc.gridDim = dim3((unsigned)xb, 1, 1);
        lc.blockDim = dim3(256, 1, 1);
        lc.stream = s;
        lc.attrs = pl->pdl ? attr : NULL;
        lc.numAttrs = pl->pdl ? 1 : 0;
        e = cudaLaunchKernelEx(&lc, igemm_stem_prep_kernel, (const uint16_t *)p->x, (uint4 *)x4, *p, g.w2);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return stem_cuda_fail("pre-pass launch", e);
        }
    }
    {
        cudaLaunchConfig_t lc;
        memset(&lc, 0, sizeof lc);
        lc.gridDim = dim3((unsigned)pl->grid, 1, 1);
        lc.blockDim = dim3((unsigned)pl->threads, 1, 1);
        lc.dynamicSmemBytes = pl->smem_bytes;
        lc.stream = s;
        lc.attrs = pl->pdl ? attr : NULL;
        lc.numAttrs = pl->pdl ? 1 : 0;
        e = cudaLaunchKernelEx(&lc, kern, st->tmap_x, st->tmap_y, st->tmap_r, a, sa);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return stem_cuda_fail("kernel launch", e);
        }
    }
    return IGEMM_STATUS_SUCCESS;
}

extern "C" const igemm_family_t igemm_family_sm90_stem = {
    "sm90_stem_tma_wgmma", IGEMM_PATH_SM90, 1, igemm_sm90_stem_supports, igemm_sm90_stem_configure, NULL, stem_run,
};
