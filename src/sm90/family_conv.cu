/*
 * conv2d_fprop.cu — the Hopper (sm_90a) fast path: implicit-GEMM conv2d forward with TMA
 * im2col loads and wgmma, warp specialised and persistent. Exports igemm_family_sm90.
 *
 * ALGORITHM
 *   GEMM view (DESIGN.md): M = n*p*q output pixels, N = k output channels, K = r*s*c.
 *   The K loop runs over "k-blocks" kb = (r*S + s)*CB + cb, CB = ceil(c/64): for each filter
 *   tap (r, s), for each block of BK = 64 input channels. A k-block is one pipeline stage:
 *     A tile  BM x 64  (BM = 128 or 256 output pixels x 64 channels of tap (r, s)) by TMA im2col
 *     B tile  BN x 64  (BN output channels x 64 channels of tap (r, s))      by TMA tiled
 *   The last channel block may be partial: TMA zero-fills channels >= c in both A and B, so
 *   they add nothing. Pixels m >= M (the tile runs past the end) are read from image
 *   n >= N, which is out of bounds -> zero; the epilogue masks m >= M and n >= k.
 *
 * CTA (128 * (NC + 1) threads: 384 with NC = 2 consumer warpgroups, 512 with NC = 3;
 * __launch_bounds__(threads, 1), one CTA per SM, persistent)
 *   thread 0     at set-up: the mbarriers, then (no filter multicast, no gathered A) the CTA's
 *                first unit's first SM90_EARLY_STAGES (2) k-blocks, before the __syncthreads,
 *                so the first load leaves ~0.4 us sooner (docs/perf.md S13-3).
 *   warpgroup 0  producers (setmaxnreg.dec 40), each a whole warp looping in step (warp-uniform
 *                control flow keeps the loop on the uniform datapath) with an elect.sync lane
 *                issuing: warp 0 every other A/B TMA load into an S-stage ring guarded by
 *                full/empty mbarriers, and (residual mode 2, cooperative fused plans) after a tile's
 *                k-blocks one stage per 64-column residual chunk, loaded into the stage's A
 *                part; warp 1 (residual mode 1, ping-pong fused plans) each epilogue chunk's
 *                residual box into the consuming warpgroup's epilogue ring, up to a tile ahead.
 *   warpgroups 1 .. NC  consumers (setmaxnreg.inc 232, or 152 with NC = 3): consumer i owns
 *                rows 64*WM*i .. of the BM = 64*WM*NC row tile (WM = 1 or 2 blocks of 64
 *                rows) and issues wgmma.mma_async m64nBNk16 (4*WM per k-block), keeps 1 wgmma
 *                group in flight, releases the previous stage, then runs the epilogue of the
 *                tile. Ping-pong (PP): each consumer owns a whole BM = 64*WM tile instead and
 *                the two take the CTA's tiles in turn (skipping each other's ring stages);
 *                two order mbarriers run their mainloops in turn, so one's epilogue runs
 *                under the other's mainloop (multi-wave layers with short mainloops;
 *                docs/perf.md S5-4, S6-9).
 *   Work units = (tile, split) pairs, split-major, tiles rasterised in groups of GROUP_M
 *   M-tiles (consecutive units share the filter tile in L2). CTA b takes units b, b + grid,
 *   ...; all roles walk the same sequence, decoding units with host-made fast divisors
 *   (src/common/fastdiv.h: a multiply-high and a shift per division). The producer runs
 *   ahead into the next unit's stages while the consumers run the epilogue.
 *   Filter-resident ping-pong plans (b_reuse, instances with BRES = true; several tiles per
 *   CTA, no split, no cluster): the filter tiles of all k-blocks stay in shared memory, loaded
 *   with the CTA's first tile: CTA c keeps N-tile c % tiles_n and walks M-tiles c / tiles_n +
 *   lap * (CTAs of that N-tile), so each k-block stage carries only its A tile and the N-tiles'
 *   CTAs still run the same M-tiles at the same time (A shared in L2). Cuts a 128 x BN tile's
 *   operand traffic by BN/(128 + BN) (docs/perf.md S7-2: vgg_3x3_64 -17% on an H100).
 *   Tiles (BM x BN): 128x64, 128x128, 128x256, 256x64, 256x128 (NC = 2) and 192x128 (NC = 3,
 *   WM = 1: 512 threads, so 128 registers at compile time; the 64 accumulators fit). The
 *   192-row tile is for one-wave layers whose other tiles leave SMs idle: M = 6272 gives 33
 *   M-tiles, x 4 N-tiles = 132 CTAs. The planner's cost model was fitted to a sweep of the
 *   first five over bench/shapes.csv; the 192x128 efficiency is an estimate (S4-3).
 *   Pixels as N (template TP = 80, 96, 208): a tile of TP pixels x 128 channels; consumer i
 *   multiplies filter rows 64i .. 64i+63 of the B stage (wgmma A) by the TP pixel rows of the
 *   A stage (wgmma B, m64nTPk16), so the pixel tile need not be a multiple of 64 and one-wave
 *   layers get exact waves (M = 6272: 66 x 2 = 132 CTAs of 96 x 128; docs/perf.md S6-5).
 *   Pixels as N, ping-pong (TP = 128 or 256 with BN = 64): a tile of TP pixels x 64 channels
 *   per consumer, the consumers taking tiles in turn; one m64nTPk16 per k16 step with the 64
 *   filter rows as wgmma A; one TP x 64 staging box per consumer, into which a fused residual is
 *   TMA-loaded, read, overwritten by the output and stored (64-channel 3x3 layers; S9-1).
 *
 * CLUSTERS (optional, 2x1 along M; IGEMM_SM90_CLUSTER=2 or the planner's pick)
 *   A cluster of two CTAs walks the units of a cluster grid: unit -> (M-tile pair, N-tile,
 *   split); CTA rank r takes M-tile 2*pair + r (a phantom tile past the end for an odd
 *   M-tile count: it loads zeros, runs the mainloop with its partner and stores nothing).
 *   Each CTA TMA-loads filter rows [r*BN/2, (r+1)*BN/2) of every k-block and multicasts them
 *   (.multicast::cluster, mask 0b11) into the same stage offset of both CTAs, signalling
 *   both CTAs' full barriers; its own A tile it loads alone. A stage's empty barrier then
 *   counts the 8 consumer warps of both CTAs (16 arrivals: local mbarrier.arrive plus a
 *   remote one through mapa). A cluster barrier follows the barrier set-up and precedes
 *   exit (the partner may still arrive on this CTA's barriers). Every instance takes both
 *   launches: a launch without clusters is a cluster of one (rank 0, cluster id = CTA id).
 *   Measured (docs/perf.md S4-1): no layer of the suite is faster with clusters, so the
 *   planner does not pick them.
 *
 * SPLIT IN CLUSTER (SKC instances, conv2d_fprop_{bf16,f16}_skc.cu; the planner's pick for
 *   one-wave layers of few tiles, IGEMM_SM90_SKC=0|1 off / forced)
 *   A cluster of two CTAs per 128 x 128 tile (two 64-row consumers each): rank 0 runs the first
 *   ceil(K/2) k-blocks, rank 1 the rest, each with its own ring (no multicast: different k).
 *   Rank r finishes 64-column chunk r of the tile: each consumer sends the fp32 partial of its
 *   other chunk (64 x 64, 16 KB) by st.async (16 B per store, thread-major) into the same
 *   consumer's receive buffer in the partner (two of its epilogue slots), the bytes counted on
 *   that consumer's barrier (armed with expect_tx at set-up, in the ping-pong order barriers'
 *   place), then waits for the partner's half of its own chunk (acquire, cluster scope), adds
 *   it (a + b: the same bits whichever rank adds) and runs the epilogue of that one chunk.
 *   All four consumers send, receive and finish at once. One tile per cluster (grid = 2 x
 *   tiles): the buffers are used once. No workspace, no second kernel. A residual goes through
 *   the epilogue ring (mode 1; the residual producer loads chunk r only).
 *
 * HALO ROWS (pxhalo instances, conv2d_fprop_{bf16,f16}_pxhalo.cu; 3x3, stride 1, undilated,
 *   64 input channels, output rows a multiple of 56 pixels; IGEMM_SM90_HALO=0|1)
 *   A pixels-as-N ping-pong plan with the filter resident whose tiles are TP pixels of one output
 *   row (TP = 112 where the rows split into 112s, else 56). Im2col would load each tile 9 times (one box per tap); instead the producer loads, per
 *   filter row r, the tile's input row with a one-pixel halo: a 4-D tiled TMA box {64 channels,
 *   TP + 2 pixels, 1 row, 1 image} at (0, q0 - pad_left, p0 - pad_top + r, n), zero-filled past
 *   the image (the padding). Taps (r, 0..2) read that stage as the wgmma B operand (N = TP)
 *   starting 0, 1, 2 pixel rows in: the descriptor's start address + 128 B per pixel, base
 *   offset 0 (the 128B swizzle follows the absolute address: tools/wgmma_shift_probe.cu). A
 *   stage is (TP + 2) x 128 B rounded up to 1 KB and carries 3 k-blocks of MMA work; the tile's
 *   9 k-blocks take 3 stages. The epilogue is the pixels-as-N ping-pong one (TP x 64 staging
 *   boxes, TMA stores of y and loads of the residual with boxes of TP pixel rows); fused plans
 *   get 2 boxes per consumer. docs/perf.md S14: vgg_3x3_64 1.40x faster plain, 1.16x fused.
 *   Two-row tiles (56-pixel output rows in pairs, q == 56, p even; HROWS = 2): a tile is two whole
 *   rows, 112 pixels consecutive in M (so the same epilogue and boxes); its 4 input rows are one
 *   stage each, and output row o takes filter row r from input row o + r (one m64n56k16 per row,
 *   tap and k16 step, into that row's half of the 112-column accumulator). docs/perf.md S15-3:
 *   r50_l1_3x3_64 1.09x faster plain, 1.12x fused.
 *   Fused (with a residual) 112-pixel plans run three consumer warpgroups that take the tiles in
 *   turn (consumer j % 3 takes the CTA's tile j; each waits on its order barrier for the one
 *   before it to pass its mainloop, as the two of the ping-pong do): each epilogue then has two
 *   other mainloops to finish under. 152 registers per consumer, one staging box each.
 *   docs/perf.md S16-4: fused vgg_3x3_64 1.07x faster, r50_l1_3x3_64 1.04x.
 *
 * SHARED MEMORY (dynamic; base rounded up to 1024 B, the 128B-swizzle repeat)
 *   A ring   S x 128*WM x 128 B   (64 channels per row, 128B-swizzled, K-major)
 *   B ring   S x BN x 128 B       (BN rows x 128 B, 128B-swizzled, K-major); filter-resident
 *            plans: k_iters slots of BN x 128 B instead, one per k-block of the tile
 *   epilogue ring  NC consumers x ES boxes of 64 x 64 16-bit (8 KB, 128B-swizzled; with pixels
 *            as N, TP x 64): ES = 2 (store double buffer; 1 on one-wave pixels-as-N plans) or,
 *            with residual mode 1, the tile's boxes + 1 or 2 (or 2 where that buys a 4th
 *            stage on a long mainloop: sm90_epi_slots); a mode-1 slot holds a chunk's
 *            residual (TMA-loaded), then its output (written over it by the same warp), then
 *            is stored by TMA and refilled once the store has read it. Residual mode 2 needs
 *            no slots: its chunks ride in the A/B ring (a stage's A part, BM x 128 B)
 *   mbarriers full[S] (count 1 + tx bytes), empty[S] (count 8: lane 0 of each consumer
 *            warp; 16 with a 2x1 cluster), residual full/empty [NC][6] (count 1 each)
 *   S = 2..8, the most that fit the 227 KB opt-in budget after the epilogue ring.
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
 * WGMMA
 *   Descriptors (src/ptx/wgmma.cuh): K-major, 128B swizzle, SBO = 1024 B, base offset 0;
 *   the k-th 16-element slice of a stage is the tile start + 32*k bytes. Consumer i's row
 *   block j starts at row 64*(WM*i + j) (+8 KB each). Accumulators: WM*BN/2 fp32 registers
 *   per thread (at most 128: WM = 2 only with BN <= 128).
 *
 * EPILOGUE (fully unrolled: compile-time accumulator indices)
 *   Per 64-column chunk of each 64-row block, in passes with the run-time switches hoisted:
 *       v = acc * (alpha*scale[k]) + bias[k]; v += beta*residual[m,k]; v = act(v)
 *   (scale/bias as float2 loads, prefetched to L1 at tile start; residual by ldmatrix from
 *   the epilogue-ring slot (mode 1) or into registers from the operand-ring stage, which is
 *   released at once (mode 2)), then packed to 16 bits and written by stmatrix.x4 into the
 *   swizzled box (pixels as N: ldmatrix/stmatrix .trans between the channel-major
 *   accumulators and the [pixel][channel] boxes),
 *   fence.proxy.async, named barrier, and one thread TMA-stores the 64 x 64 box (the
 *   hardware clips m >= M, n >= k). f32 y, k % 8 != 0 and split-K partials use direct
 *   pair stores instead. EPI = 0 (y = alpha*acc), 1 (scale/bias/residual, ReLU or no
 *   activation) and 2 (any activation, the rare ones out of line) are separate instances, so
 *   the common ones stay small. With split-K each split stores raw fp32 partials to
 *   workspace[split][M][k] (balanced k-block ranges) and igemm_sm90_splitk_reduce_kernel sums
 *   them in fixed order (deterministic) and applies the epilogue.
 *
 * PTX FEATURES: cp.async.bulk.tensor (tile + im2col loads, tile stores, .multicast::cluster
 *   filter loads), mbarrier expect_tx/try_wait.parity and remote arrive (mapa), barrier.cluster,
 *   st.async with mbarrier complete_tx (split in cluster),
 *   wgmma.mma_async/fence/commit_group/wait_group, stmatrix, ldmatrix (and .trans), elect.sync,
 *   setmaxnreg,
 *   prefetch.tensormap, prefetch.global.L1, fence.proxy.async, bar.sync, griddepcontrol
 *   (programmatic dependent launch: the launch carries programmatic stream serialization, and
 *   every CTA triggers its dependents and then waits for the previous grid right after its
 *   barrier set-up, before any global access).
 *
 * ASSUMPTIONS: run() is only called with x, w, y and residual 16-byte aligned (api.c checks
 *   and falls back to the general path otherwise), on the device the plan was made for.
 */
#include <stdlib.h>

#include "conv2d_fprop_kernel.cuh"

/* Split-K reduction: y[m, n] = epilogue(sum over splits, in order, of workspace[split][m][n]).
 * One thread per 4 consecutive columns of a row; grid-stride. */
__global__ void __launch_bounds__(256, 4) igemm_sm90_splitk_reduce_kernel(const __grid_constant__ igemm_sm90_args_t a)
{
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
} sm90_state_t;

static_assert(sizeof(sm90_state_t) + 63 <= IGEMM_FAMILY_STATE_BYTES, "sm90 state must fit the family scratch");

static sm90_state_t *sm90_state_of(void *state)
{
    return (sm90_state_t *)(((uintptr_t)state + 63u) & ~(uintptr_t)63u);
}

/* The kernel instance for (input dtype, BN, epilogue kind, store path). */
static sm90_kernel_fn sm90_pick_kernel(igemm_dtype_t dt, int bm, int bn, int nc, int pp, int pixn, int bres, int skc,
                                       int halo, int epi, bool tma_epi)
{
    if (halo) return !(tma_epi && pp && pixn && bres && bn == 64 && !skc) ? NULL
                     : dt == IGEMM_DTYPE_BF16 ? igemm_sm90_pick_bf16_pxhalo(bm, halo, nc, epi)
                     : dt == IGEMM_DTYPE_F16  ? igemm_sm90_pick_f16_pxhalo(bm, halo, nc, epi)
                                              : NULL;
    if (skc) return !(tma_epi && bm == 128 && bn == 128 && nc == 2 && !pp && !pixn && !bres) ? NULL
                    : dt == IGEMM_DTYPE_BF16 ? igemm_sm90_pick_bf16_skc(epi)
                    : dt == IGEMM_DTYPE_F16  ? igemm_sm90_pick_f16_skc(epi)
                                             : NULL;
    if (pixn && pp) { /* pixels as N, 64 channels, ping-pong (bm = TP) */
        if (!tma_epi) return NULL;
        if (dt == IGEMM_DTYPE_BF16) return bres ? igemm_sm90_pick_bf16_pxppbr(bm, epi) : igemm_sm90_pick_bf16_pxpp(bm, epi);
        if (dt == IGEMM_DTYPE_F16) return bres ? igemm_sm90_pick_f16_pxppbr(bm, epi) : igemm_sm90_pick_f16_pxpp(bm, epi);
        return NULL;
    }
    if (pp && bres) return !tma_epi ? NULL : dt == IGEMM_DTYPE_BF16 ? igemm_sm90_pick_bf16_ppbr(bn, epi)
                                           : dt == IGEMM_DTYPE_F16  ? igemm_sm90_pick_f16_ppbr(bn, epi)
                                                                    : NULL;
    if (bres) return NULL; /* filter-resident instances exist for ping-pong plans only */
    if (pixn) return !tma_epi ? NULL : dt == IGEMM_DTYPE_BF16 ? igemm_sm90_pick_bf16_pixn(bm, epi)
                                     : dt == IGEMM_DTYPE_F16  ? igemm_sm90_pick_f16_pixn(bm, epi)
                                                              : NULL;
    if (pp) return !tma_epi ? NULL : dt == IGEMM_DTYPE_BF16 ? igemm_sm90_pick_bf16_pp(bn, epi)
                                   : dt == IGEMM_DTYPE_F16  ? igemm_sm90_pick_f16_pp(bn, epi)
                                                            : NULL;
    if (dt == IGEMM_DTYPE_BF16) {
        if (nc == 3) return igemm_sm90_pick_bf16_nc3(bn, epi, tma_epi);
        return bm == 256 ? igemm_sm90_pick_bf16_wm2(bn, epi, tma_epi) : igemm_sm90_pick_bf16_wm1(bn, epi, tma_epi);
    }
    if (dt == IGEMM_DTYPE_F16) {
        if (nc == 3) return igemm_sm90_pick_f16_nc3(bn, epi, tma_epi);
        return bm == 256 ? igemm_sm90_pick_f16_wm2(bn, epi, tma_epi) : igemm_sm90_pick_f16_wm1(bn, epi, tma_epi);
    }
    return NULL;
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
    /* split-K partials are raw sums (the reduce kernel applies the epilogue): plain instance */
    const bool general = sm90_general_epilogue(p) && pl->split_k <= 1;
    /* TMA stores of y: y of the input dtype, row pitch k*2 a multiple of 16 B, no split, 32-bit rows */
    const int tma_store = sm90_tma_store_ok(p, pl->split_k);
    const int epi = general ? sm90_epi_kind(p) : 0;
    const sm90_kernel_fn kern = sm90_pick_kernel(p->in_dtype, pl->bm, bn, pl->consumers, pl->pingpong, pl->pixels_n,
                                                pl->b_reuse, pl->kernel == IGEMM_KERNEL_SPLIT_CLUSTER, pl->halo, epi,
                                                tma_store != 0);
    igemm_status_t rc;
    if (kern == NULL)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 run: no kernel for dtype %d, bn %d",
                               (int)p->in_dtype, bn);
    if (pl->split_k > 1 && workspace == NULL)
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
    if (a_tiled && (!st->have_x || st->x_key != p->x)) {
        const uint64_t dims[2] = {(uint64_t)p->c, (uint64_t)p->gemm_m};
        const uint64_t strides[1] = {(uint64_t)p->c * 2};
        const uint32_t box[2] = {SM90_BK, (uint32_t)pl->bm};
        st->have_x = 0;
        rc = igemm_tmap_encode_tiled(&st->tmap_x, p->in_dtype, p->x, 2, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->x_key = p->x;
        st->have_x = 1;
    }
    if (!a_tiled && !pl->halo && (!st->have_x || st->x_key != p->x)) {
        int64_t lo_w, lo_h, up_w, up_h;
        sm90_corners(p, &lo_w, &lo_h, &up_w, &up_h);
        const uint64_t dims[4] = {(uint64_t)p->c, (uint64_t)p->w, (uint64_t)p->h, (uint64_t)p->n};
        const uint64_t strides[3] = {(uint64_t)p->c * 2, (uint64_t)(p->w * p->c * 2),
                                     (uint64_t)(p->h * p->w * p->c * 2)};
        const int lower[2] = {(int)lo_w, (int)lo_h};
        const int upper[2] = {(int)up_w, (int)up_h};
        const uint32_t es[4] = {1, (uint32_t)p->stride_w, (uint32_t)p->stride_h, 1};
        st->have_x = 0;
        rc = igemm_tmap_encode_im2col(&st->tmap_x, p->in_dtype, p->x, 4, dims, strides, lower, upper, SM90_BK,
                                      (uint32_t)pl->bm, es, CU_TENSOR_MAP_SWIZZLE_128B);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->x_key = p->x;
        st->have_x = 1;
    }
    const int skc = pl->kernel == IGEMM_KERNEL_SPLIT_CLUSTER;
    const int w_rows = bn;
    if (!st->have_w || st->w_key != p->filter || st->w_bn != w_rows) {
        const uint64_t dims[4] = {(uint64_t)p->c, (uint64_t)p->s, (uint64_t)p->r, (uint64_t)p->k};
        const uint64_t strides[3] = {(uint64_t)p->c * 2, (uint64_t)(p->s * p->c * 2),
                                     (uint64_t)(p->r * p->s * p->c * 2)};
        const uint32_t box[4] = {SM90_BK, 1, 1, (uint32_t)w_rows};
        st->have_w = 0;
        rc = igemm_tmap_encode_tiled(&st->tmap_w, p->in_dtype, p->filter, 4, dims, strides, box,
                                     CU_TENSOR_MAP_SWIZZLE_128B);
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
    a.c_blocks = (int32_t)((p->c + SM90_BK - 1) / SM90_BK);
    a.k_iters = (int32_t)(p->r * p->s * a.c_blocks);
    a.bm = pl->bm;
    a.res_ring = tma_store && p->has_residual && general ? pl->res_mode : 0;
    a.epi_slots = pl->epi_slots; /* sm90_epi_slots() of this plan, as its smem_bytes counted */
    a.tiles_m = (int32_t)((p->gemm_m + pl->bm - 1) / pl->bm);
    a.tiles_n = (int32_t)((p->gemm_n + bn - 1) / bn);
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
    igemm_sm90_args_epilogue(p, &a);
    a.vec4 = (p->gemm_n % 4) == 0;
    a.vec2 = (p->gemm_n % 2) == 0;
    a.a_tiled = a_tiled;
    a.sb_vec2 = p->gemm_n % 2 == 0 && ((uintptr_t)p->scale & 7u) == 0 && ((uintptr_t)p->bias & 7u) == 0;
    a.workspace = a.splits > 1 ? (float *)workspace : NULL;
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
        if (skc) { /* 2-CTA clusters */
            attr[na].id = cudaLaunchAttributeClusterDimension;
            attr[na].val.clusterDim.x = 2;
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
    if (a.splits > 1) {
        const int64_t work = a.gemm_m * ((a.gemm_n + 3) / 4);
        int64_t blocks = (work + 255) / 256;
        const int64_t cap = (int64_t)grid * 8;
        if (blocks > cap) blocks = cap;
        if (blocks < 1) blocks = 1;
        igemm_sm90_splitk_reduce_kernel<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>(a);
        e = cudaGetLastError();
        if (e != cudaSuccess) return sm90_cuda_fail("split-K reduce launch", e);
    }
    return IGEMM_STATUS_SUCCESS;
}

extern "C" const igemm_family_t igemm_family_sm90 = {
    "sm90_tma_wgmma", IGEMM_PATH_SM90, 1, igemm_sm90_conv_supports, igemm_sm90_conv_configure, NULL, sm90_run,
};
