/*
 * family_conv.cu — the sm90 conv family (igemm_family_sm90): the host side of the Hopper conv
 * kernels — their tensor maps, argument block, instance lookup and launch — and the split-K
 * reduction kernel. Its plan (supports, configure: which kernel, tile, ring, staging boxes, grid)
 * is heuristics.c, plain C.
 *
 * THE KERNELS (one file each, composing the Hopper core in core/: stage ring, scheduler,
 * producers, mainloops, epilogues):
 *   conv_cooperative.cuh       row tiles of 64*WM*NC pixels x BN, NC consumers on one tile
 *   conv_pingpong.cuh          128 x BN row tiles, two consumers taking tiles in turn
 *   conv_pixels_n.cuh          TP pixels x 128 channels, the pixels as the wgmma N
 *   conv_pixels_n_pingpong.cuh 128 pixels x 64 channels, in turn
 *   conv_halo_rows.cuh         3x3 stride-1 64-channel layers: input rows loaded once with halo
 *   conv_split_cluster.cuh     a 2-CTA cluster per 128 x 128 tile, K split between the two
 * Instances: instances/list.txt, expanded at build time (instances/gen.sh); run() finds the
 * plan's instance once per plan (instances.h).
 *
 * GEMM VIEW (DESIGN.md): M = n*p*q output pixels, N = k output channels, K = r*s*c. The K loop
 *   runs over "k-blocks" kb = (r*S + s)*CB + cb, CB = ceil(c/64): for each filter tap (r, s), for
 *   each block of 64 input channels. The last channel block may be partial: TMA zero-fills
 *   channels >= c in both A and B, so they add nothing. Pixels m >= M (a tile running past the
 *   end) are read from image n >= N, out of bounds -> zero; the epilogue masks m >= M, n >= k.
 *
 * TMA IM2COL COORDINATES (PTX ISA 5.5.4 "im2col mode"; cuTensorMapEncodeIm2col)
 *   Tensor map over x, rank 4, dims {C, W, H, N} (innermost first), byte strides
 *   {C*2, W*C*2, H*W*C*2}, channelsPerPixel = 64, pixelsPerColumn = 128, traversal strides
 *   {1, stride_w, stride_h, 1}, SWIZZLE_128B, zero OOB fill.
 *   Bounding box (per image, in the W/H plane, at im2col offset 0): [lower, size-1+upper]
 *   per spatial dim. The TMA walks pixels through the box with the traversal stride: along
 *   W from the instruction's w coordinate, wrapping to the box's lower W corner on the next
 *   H row (h += stride_h), wrapping to the next image (n + 1) after the box's last H row.
 *   Box positions along W are lower_w + j*stride_w, j = 0 .. ceil(width/stride_w) - 1, with
 *   width = W + upper_w - lower_w. For these positions to be exactly the conv's output
 *   columns q = 0..Q-1 (input column of tap s = 0 is q*stride_w - pad_left):
 *       lower_w = -pad_left
 *       width   = (Q-1)*stride_w + 1   ->  upper_w = (Q-1)*stride_w + 1 - W - pad_left
 *   (= pad_right - dil_w*(S-1) when the padding divides exactly; computing it from Q makes
 *   the box right whatever pad_right is, since ceil(((Q-1)*stride + 1)/stride) = Q). Same
 *   for H with pad_top, P, stride_h. Both corners must lie in [-128, 127] (4-D maps).
 *   A tile starting at output pixel m0 = (nb*P + p0)*Q + q0 loads with coordinates
 *       {c0, q0*stride_w - pad_left, p0*stride_h - pad_top, nb}   (c0 = 64*cb)
 *   = the box position of output pixel (nb, p0, q0) for tap (0, 0); pixel i of the tile is
 *   output pixel m0 + i (row-major over (n, p, q) by the wrap rule above). The im2col
 *   offsets {s*dil_w, r*dil_h} (16-bit, [0, 255] for 4-D maps) shift every pixel to tap
 *   (r, s): input (h, w) = (p*stride_h - pad_top + r*dil_h, q*stride_w - pad_left + s*dil_w),
 *   exactly A[m, k] of DESIGN.md; positions outside the real tensor read zero (padding).
 *   Filter map: tiled, rank 4, dims {C, S, R, K}, box {64, 1, 1, BN}, coordinates
 *   {c0, s, r, n0}: a BN x 64 K-major tile whose channels >= C read zero (a 2-D {RSC, K}
 *   map would instead read the next tap's channels there).
 *
 * GROUPS (groups > 1, the cooperative GW instances: sm90.h sm90_group_tile): the filter map's C
 *   is c / groups (KRSC of one group's channels); a tile's A boxes start at input channel
 *   (n0 / kg) * cg; slabs load one filter box of kg rows per group at channel -j * cg.
 *
 * ASSUMPTIONS: run() is only called with x, w, y and residual 16-byte aligned (the planner
 *   falls back to the general path otherwise), on the device the plan was made for.
 */
#include <stdlib.h>

#include "../common/launch.h"
#include "conv_maps.h"
#include "core/epilogue.cuh"
#include "instances.h"

/* Split-K reduction: y[m, n] = epilogue(sum over splits, in order, of workspace[split][m][n]).
 * One thread per 4 consecutive columns of a row; grid-stride. */
__global__ void __launch_bounds__(256, 4) igemm_sm90_splitk_reduce_kernel(const __grid_constant__ igemm_sm90_args_t a)
{
    /* launched with programmatic stream serialisation when the plan has pdl: wait for the conv
     * kernel's partial sums (no-ops otherwise) */
    ptx_griddepcontrol_wait();
    ptx_griddepcontrol_launch_dependents();
    const int64_t nq = (a.gemm_n + 3) / 4;
    const int64_t total = a.gemm_m * nq;
    const int64_t plane = a.gemm_m * a.gemm_n;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t m = i / nq;
        const int64_t n = (i - m * nq) * 4;
        const int64_t off = m * a.gemm_n + n;
        const int64_t left = a.gemm_n - n;
        float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int sp = 0; sp < a.splits; sp++) {
            const float *src = a.workspace + (int64_t)sp * plane + off;
            if (left >= 4 && a.vec4) {
                const float4 t = *(const float4 *)src;
                sum.x += t.x, sum.y += t.y, sum.z += t.z, sum.w += t.w;
            } else {
                sum.x += src[0];
                if (left > 1) sum.y += src[1];
                if (left > 2) sum.z += src[2];
                if (left > 3) sum.w += src[3];
            }
        }
        sm90_store4(a, m, n, sum, false, 0);
    }
}

/* ------------------------------------------------------------------ host code */

/* Per-plan cached state (inside the family's 4096-byte scratch, 64-byte aligned). */
typedef struct sm90_state {
    CUtensorMap tmap_x; /* im2col map of x; valid when have_x */
    CUtensorMap tmap_w; /* tiled map of the filter; valid when have_w */
    CUtensorMap tmap_y; /* tiled 2-D {k, M} map of y for TMA stores; valid when have_y */
    CUtensorMap tmap_r; /* the same map over the residual (TMA loads); valid when have_r */
    const void *r_key;
    int have_r;
    const void *x_key;
    const void *y_key;
    int have_y;
    const void *w_key;
    int w_bn; /* box rows the filter map was encoded for */
    int have_x, have_w;
    int smem_attr_done; /* cudaFuncAttributeMaxDynamicSharedMemorySize set for this plan's kernel */
    sm90_kernel_fn kern; /* the plan's instance (found at the first run) */
} sm90_state_t;

static_assert(sizeof(sm90_state_t) + 63 <= IGEMM_FAMILY_STATE_BYTES, "sm90 state must fit the family scratch");

static sm90_state_t *sm90_state_of(void *state)
{
    return (sm90_state_t *)(((uintptr_t)state + 63u) & ~(uintptr_t)63u);
}

static igemm_status_t sm90_cuda_fail(const char *what, cudaError_t e)
{
    return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "sm90 %s failed: %s (%s)", what, cudaGetErrorString(e),
                           cudaGetErrorName(e));
}

/* The tensor map of an [M, K] 16-bit epilogue operand (y or the residual): boxes of 64
 * channels x `rows` pixels (64, or TP with pixels as N), 128B-swizzled like the staging boxes. */
static igemm_status_t sm90_encode_epi_map(const igemm_conv_params_t *p, const void *ptr, int rows, CUtensorMap *map)
{
    const uint64_t dims[2] = {(uint64_t)p->k, (uint64_t)p->gemm_m};
    const uint64_t strides[1] = {(uint64_t)p->k * 2};
    const uint32_t box[2] = {SM90_EPI_COLS, (uint32_t)rows};
    return igemm_tmap_encode_tiled(map, p->out_dtype, ptr, 2, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B);
}


static igemm_status_t sm90_run(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                               void *state, void *stream, const igemm_inner_t *inner)
{
    (void)inner;
    const sm90_plan_t *pl = igemm_family_priv(cfg, const sm90_plan_t);
    sm90_state_t *st = sm90_state_of(state);
    const int bn = pl->bn;
    const bool general = sm90_plan_general_epilogue(p, pl);
    const bool reduce = sm90_plan_reduces(pl); /* workspace + reduce kernel */
    /* TMA stores of y: y of the input dtype, row pitch k*2 a multiple of 16 B, no split, 32-bit rows */
    const int tma_store = sm90_tma_store_bn(p, pl->split_k, pl->bn);
    if (st->kern == NULL) { /* the plan's instance, found once */
        sm90_instance_t key;
        igemm_sm90_conv_instance_key(p, pl, &key);
        st->kern = (sm90_kernel_fn)igemm_sm90_instance_find(&key);
        if (st->kern == NULL)
            return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR,
                                   "sm90 run: no instance of kernel %d, dtype %d, tile %dx%d, wm %d, %d consumers, "
                                   "filter resident %d, rows %d, TMA store %d, epilogue %d",
                                   key.kernel, key.dtype, key.bm, key.bn, key.wm, key.nc, key.bres, key.rows, key.tma,
                                   key.epi);
    }
    const sm90_kernel_fn kern = st->kern;
    igemm_status_t rc;
    if (reduce && workspace == NULL)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 run: split-K %d needs a workspace of %zu B",
                               pl->split_k, cfg->workspace_bytes);

    /* (re-)encode the tensor maps when an operand pointer changed */
    /* a 1x1, stride-1, unpadded conv reads x as the plain matrix A[M, C]: tiled TMA, not im2col */
    const int a_tiled = !pl->halo && sm90_a_is_matrix(p);
    if (pl->halo && (!st->have_x || st->x_key != p->x)) {
        /* halo rows: x as a 4-D tiled map {C, W, H, N}, a box of one row of bm + 2 pixels (the
         * tile's pixels and the 3x3 filter's halo; out of the image: zeros), or with two-row
         * tiles bm / 2 + 2 */
        const uint64_t dims[4] = {(uint64_t)p->c, (uint64_t)p->w, (uint64_t)p->h, (uint64_t)p->n};
        const uint64_t strides[3] = {(uint64_t)p->c * 2, (uint64_t)(p->w * p->c * 2),
                                     (uint64_t)(p->h * p->w * p->c * 2)};
        const uint32_t box[4] = {SM90_BK, (uint32_t)(pl->halo == 2 ? pl->bm / 2 : pl->bm) + 2u, 1, 1};
        st->have_x = 0;
        rc = igemm_tmap_encode_tiled(&st->tmap_x, p->in_dtype, p->x, 4, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->x_key = p->x;
        st->have_x = 1;
    }
    /* one M-tile of fewer rows than the tile: the A box (tiled or im2col) cut to M rounded up to 8
     * rows. The TMA's zero fill of a box's rows past M costs time: 128 x 32 tiles over the whole K
     * of a 64-row GEMM ran at 1.7x the time of the same tiles at M = 128 (docs/decisions.md
     * "tma-oob-rows"). The stage's rows past the box are stale and feed only unstored rows. */
    const int a_rows = !pl->halo && p->gemm_m < pl->bm ? (int)((p->gemm_m + 7) / 8 * 8) : pl->bm;
    if (!pl->halo && (!st->have_x || st->x_key != p->x)) { /* tiled 2-D where a_tiled, else im2col */
        st->have_x = 0;
        rc = igemm_conv_encode_x_map(p, a_rows, &st->tmap_x);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->x_key = p->x;
        st->have_x = 1;
    }
    const int skc = pl->kernel == IGEMM_KERNEL_SPLIT_CLUSTER;
    /* grouped slabs: one box of kg rows per group (sm90.h sm90_group_tile) */
    const int w_rows = pl->g_boxes > 1 ? (int)p->kg : bn;
    if (!st->have_w || st->w_key != p->filter || st->w_bn != w_rows) {
        st->have_w = 0;
        rc = igemm_conv_encode_w_map(p, w_rows, &st->tmap_w);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->w_key = p->filter;
        st->w_bn = w_rows;
        st->have_w = 1;
    }

    if (tma_store && (!st->have_y || st->y_key != p->y)) {
        st->have_y = 0;
        rc = sm90_encode_epi_map(p, p->y, pl->pixels_n ? pl->bm : 64, &st->tmap_y);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->y_key = p->y;
        st->have_y = 1;
    }
    if (tma_store && p->has_residual && (!st->have_r || st->r_key != p->residual)) {
        st->have_r = 0;
        rc = sm90_encode_epi_map(p, p->residual, pl->pixels_n ? pl->bm : 64, &st->tmap_r);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->r_key = p->residual;
        st->have_r = 1;
    }

    igemm_sm90_args_t a;
    memset(&a, 0, sizeof a);
    a.pq = (int32_t)(p->p * p->q);
    a.q = (int32_t)p->q;
    a.stride_h = (int32_t)p->stride_h;
    a.stride_w = (int32_t)p->stride_w;
    a.pad_top = (int32_t)p->pad_top;
    a.pad_left = (int32_t)p->pad_left;
    a.dil_h = (int32_t)p->dil_h;
    a.dil_w = (int32_t)p->dil_w;
    a.filter_s = (int32_t)p->s;
    a.c_blocks = (int32_t)((p->cg + SM90_BK - 1) / SM90_BK); /* of a group's channels (c without groups) */
    a.k_iters = (int32_t)(p->r * p->s * a.c_blocks);
    a.bm = pl->bm;
    a.res_ring = tma_store && p->has_residual && general ? pl->res_mode : 0;
    a.epi_slots = pl->epi_slots; /* sm90_epi_slots() of this plan, as its smem_bytes counted */
    a.tiles_m = (int32_t)((p->gemm_m + pl->bm - 1) / pl->bm);
    a.tiles_n = (int32_t)((p->k + bn - 1) / bn); /* over all groups' output channels */
    a.num_tiles = a.tiles_m * a.tiles_n;
    a.splits = pl->split_k > 1 ? pl->split_k : 1;
    a.num_units = a.num_tiles * a.splits;
    a.k_q = a.k_iters / a.splits;
    a.k_r = a.k_iters % a.splits;
    a.group_m = a.tiles_m < SM90_GROUP_M ? a.tiles_m : SM90_GROUP_M; /* GROUP_M M-tiles */
    a.full_groups = a.tiles_m / a.group_m;
    a.fd_tiles = igemm_fastdiv_make(a.num_tiles);
    a.fd_group = igemm_fastdiv_make(a.group_m * a.tiles_n);
    a.fd_gm = igemm_fastdiv_make(a.group_m);
    a.fd_gm_tail = igemm_fastdiv_make(a.tiles_m - a.full_groups * a.group_m > 0 ? a.tiles_m - a.full_groups * a.group_m
                                                                                 : a.group_m);
    a.fd_pq = igemm_fastdiv_make(a.pq);
    a.fd_q = igemm_fastdiv_make(a.q);
    const int grid = pl->grid > 0 ? pl->grid : 1;
    /* split in cluster: one tile per cluster (the receive slots are used once), both K halves
     * non-empty, the receive buffer's two slots beside the residual's */
    if (skc && (a.splits > 1 || grid != 2 * a.num_units || a.k_iters < 2 ||
                a.epi_slots < (a.res_ring == 1 ? 3 : 2)))
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR,
                               "sm90 run: inconsistent split-in-cluster plan (grid %d for %d tiles, %d k-blocks)", grid,
                               (int)a.num_units, (int)a.k_iters);
    /* split-K in a cluster (pixels as N): one unit per CTA, a cluster per tile */
    if (pl->pixels_n && a.splits > 1 &&
        (pl->cluster != a.splits || grid != a.num_units || a.splits > SM90_MAX_CLUSTER || a.epi_slots < 2))
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR,
                               "sm90 run: inconsistent split-in-cluster pixels-as-N plan (grid %d, %d units, cluster %d, "
                               "%d splits)",
                               grid, (int)a.num_units, pl->cluster, (int)a.splits);
    if (pl->b_reuse) { /* configure() set it only without split, with grid >= tiles_n */
        if (grid < a.tiles_n)
            return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 run: filter-resident plan with grid %d < %d N-tiles",
                                   grid, (int)a.tiles_n);
        a.rq = grid / a.tiles_n;
        a.rr = grid % a.tiles_n;
        a.fd_grid = igemm_fastdiv_make(grid);
        a.fd_tn = igemm_fastdiv_make(a.tiles_n);
        a.num_units = grid * ((a.tiles_m + a.rq - 1) / a.rq); /* the most laps a CTA takes */
    }
    a.stages = pl->stages;
    a.a_tx = a_rows < pl->bm ? a_rows * SM90_BK * 2 : 0;
    igemm_sm90_args_epilogue(p, &a);
    a.gemm_n = p->k; /* y's columns: every group's (p->gemm_n is one group's) */
    a.vec4 = (p->k % 4) == 0;
    a.vec2 = (p->k % 2) == 0;
    a.a_tiled = a_tiled;
    a.sb_vec2 = p->k % 2 == 0 && ((uintptr_t)p->scale & 7u) == 0 && ((uintptr_t)p->bias & 7u) == 0;
    if (pl->gw > 0) {
        a.g_cg = (int32_t)p->cg;
        a.g_kg = (int32_t)p->kg;
        a.g_boxes = pl->g_boxes;
        a.fd_kg = igemm_fastdiv_make((int32_t)p->kg);
    }
    a.workspace = reduce ? (float *)workspace : NULL;
    cudaError_t e;
    if (!st->smem_attr_done) {
        /* The limit is a process-wide attribute of the kernel, and plans of one kernel instance
         * may need different amounts (stages and epilogue ring vary): raise it to the device's
         * opt-in maximum, never lower it to this plan's need. */
        int optin = pl->smem_limit; /* the device's opt-in maximum, known since plan time */
        if ((size_t)optin < pl->smem_bytes) optin = (int)pl->smem_bytes;
        e = cudaFuncSetAttribute((const void *)kern, cudaFuncAttributeMaxDynamicSharedMemorySize, optin);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return sm90_cuda_fail("cudaFuncSetAttribute(max dynamic shared memory)", e);
        }
        st->smem_attr_done = 1;
    }
    {
        cudaLaunchConfig_t lc;
        cudaLaunchAttribute attr[2];
        unsigned na = 0;
        memset(&lc, 0, sizeof lc);
        memset(attr, 0, sizeof attr);
        if (pl->cluster > 1) { /* split in cluster (2), pixels-as-N split-K (split_k) */
            attr[na].id = cudaLaunchAttributeClusterDimension;
            attr[na].val.clusterDim.x = (unsigned)pl->cluster;
            attr[na].val.clusterDim.y = 1;
            attr[na].val.clusterDim.z = 1;
            na++;
        }
        if (pl->pdl) { /* the kernel waits (griddepcontrol.wait) before any global access */
            attr[na].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr[na].val.programmaticStreamSerializationAllowed = 1;
            na++;
        }
        lc.gridDim = dim3((unsigned)grid, 1, 1);
        lc.blockDim = dim3((unsigned)pl->threads, 1, 1);
        lc.dynamicSmemBytes = pl->smem_bytes;
        lc.stream = (cudaStream_t)stream;
        lc.attrs = na ? attr : NULL;
        lc.numAttrs = na;
        e = cudaLaunchKernelEx(&lc, kern, st->tmap_x, st->tmap_w, st->tmap_y, st->tmap_r, a);
        if (e == cudaSuccess) e = cudaGetLastError();
        else (void)cudaGetLastError();
    }
    if (e != cudaSuccess) return sm90_cuda_fail("conv kernel launch", e);
    if (reduce) {
        const int64_t work = a.gemm_m * ((a.gemm_n + 3) / 4);
        int64_t blocks = (work + 255) / 256;
        const int64_t cap = (int64_t)grid * 8;
        if (blocks > cap) blocks = cap;
        if (blocks < 1) blocks = 1;
        /* with PDL like the conv kernel: its launch overlaps the conv kernel's last tiles */
        cudaLaunchConfig_t lc;
        cudaLaunchAttribute attr[1];
        igemm_launch_config_1d(&lc, attr, (unsigned)blocks, 256, 0, stream, pl->pdl);
        e = cudaLaunchKernelEx(&lc, igemm_sm90_splitk_reduce_kernel, a);
        if (e == cudaSuccess) e = cudaGetLastError();
        else (void)cudaGetLastError();
        if (e != cudaSuccess) return sm90_cuda_fail("split-K reduce launch", e);
    }
    return IGEMM_STATUS_SUCCESS;
}

extern "C" const igemm_family_t igemm_family_sm90 = {
    "sm90_tma_wgmma", IGEMM_PATH_SM90, 1, igemm_sm90_conv_supports, igemm_sm90_conv_configure, NULL, sm90_run,
};
