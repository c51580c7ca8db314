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

/* Bounding-box corners of the im2col map (see the header comment): lower = -pad_begin,
 * upper = (out-1)*stride + 1 - size - pad_begin. */
static void sm90_corners(const igemm_conv_params_t *p, int64_t *lo_w, int64_t *lo_h, int64_t *up_w, int64_t *up_h)
{
    *lo_w = -p->pad_left;
    *lo_h = -p->pad_top;
    *up_w = (p->q - 1) * p->stride_w + 1 - p->w - p->pad_left;
    *up_h = (p->p - 1) * p->stride_h + 1 - p->h - p->pad_top;
}

/* Dynamic shared memory of a (BM, BN, consumers, stages, epilogue slots) plan: A ring, B ring
 * (or with bres > 0 that many resident filter slots), nc x epi_slots epilogue boxes (64 x 64
 * 16-bit, or with pixels as N (pixn) BM pixel rows x 64 channels), full/empty barriers per
 * stage, nc x 6 x 2 residual barriers and nc ping-pong order barriers. pixn = 2: halo rows, an A
 * stage of SM90_HALO_STAGE_BYTES(BM) (one input row of the tile with its halo); 3: two-row halo
 * tiles, SM90_HALO_STAGE_BYTES(BM / 2) (one input row of BM / 2 + 2 pixels). */
static size_t sm90_smem_bytes(int bm, int bn, int nc, int stages, int epi_slots, int pixn, int bres)
{
    const size_t ebox = pixn ? (size_t)bm * 128 : (size_t)SM90_EPI_BUF_BYTES;
    const size_t a_stage = pixn == 2   ? (size_t)SM90_HALO_STAGE_BYTES(bm)
                           : pixn == 3 ? (size_t)SM90_HALO_STAGE_BYTES(bm / 2) /* two-row halo tiles */
                                       : (size_t)bm * SM90_BK * 2;
    return (size_t)SM90_ALIGN_SLACK + (size_t)stages * a_stage +
           (size_t)(bres > 0 ? bres : stages) * (size_t)bn * SM90_BK * 2 +
           (size_t)nc * epi_slots * ebox + (size_t)stages * 16 + (size_t)16 * nc * SM90_MAX_EPI_SLOTS +
           (size_t)8 * nc; /* ping-pong order barriers */
}

static int sm90_stages_for(int bm, int bn, int nc, int epi_slots, int smem_optin)
{
    int s = SM90_MAX_STAGES;
    while (s >= 2 && sm90_smem_bytes(bm, bn, nc, s, epi_slots, 0, 0) > (size_t)smem_optin) s--;
    return s;
}

/* Stages of a filter-resident plan (bres = k_iters filter slots beside the A ring; pixn as in
 * sm90_smem_bytes, 2 or 3 for halo rows). */
static int sm90_stages_bres(int bm, int bn, int nc, int epi_slots, int pixn, int bres, int smem_optin)
{
    int s = SM90_MAX_STAGES;
    while (s >= 2 && sm90_smem_bytes(bm, bn, nc, s, epi_slots, pixn, bres) > (size_t)smem_optin) s--;
    return s;
}

/* The same for a pixels-as-N plan (TP pixel rows x 128 channels, es staging boxes per consumer). */
static int sm90_stages_pixn(int tp, int es, int smem_optin)
{
    int s = SM90_MAX_STAGES;
    while (s >= 2 && sm90_smem_bytes(tp, 128, 2, s, es, 1, 0) > (size_t)smem_optin) s--;
    return s;
}

/* Epilogue ring slots per consumer: 2 (store double buffer), or with a TMA-loaded residual the
 * tile's boxes + 1, so a whole tile's residual loads during the tile's mainloop; + 2 on short
 * mainloops (k_iters < 8) where that still leaves 4 stages (a mainloop too short to hide one
 * tile's residual latency). Where + 1 leaves fewer than 4 stages (the 48 KB stages of 256x128
 * and 128x256 tiles) and the mainloop is long (k_iters >= 16), 2 slots instead: the 4th stage
 * is worth more than the residual latency the smaller ring exposes in the epilogue (two box
 * loads per tile). A plan of one unit per CTA (one_wave) has no next tile to load ahead: at
 * most the tile's boxes, the rest of the memory goes to stages. Measured, fused (docs/perf.md
 * S4-2, S5-2): 2 slots cut 6-13% on the long-K 256x128 layers and cost 10-29% on the short-K
 * ones; boxes + 1 instead of + 2 on 128x64 tiles cut vgg_3x3_64 5% (8 stages instead of 7)
 * and cost r50_l1_1x1_64_64 (one k-block) 5%; one_wave cut the one-wave layers 2-4%. */
static int sm90_epi_slots(int bm, int wm, int bn, int nc, int residual_ring, int k_iters, int one_wave,
                          int forced, int smem_optin)
{
    if (!residual_ring) return 2;
    if (forced >= 2 && forced <= SM90_MAX_EPI_SLOTS) return forced; /* IGEMM_SM90_RES_SLOTS */
    const int boxes = wm * (bn / SM90_EPI_COLS);
    const int cap = one_wave ? (boxes < 2 ? 2 : boxes) : SM90_MAX_EPI_SLOTS;
    int es = boxes + 1;
    if (k_iters < 8 && sm90_stages_for(bm, bn, nc, boxes + 2, smem_optin) >= 4) es = boxes + 2;
    else if (sm90_stages_for(bm, bn, nc, boxes + 1, smem_optin) < 4 && k_iters >= 16 &&
             sm90_stages_for(bm, bn, nc, 2, smem_optin) >= 4)
        es = 2;
    return es < cap ? es : cap;
}

/* 1 if y is written by TMA stores: y of the input dtype, row pitch k*2 a multiple of 16 B, no split. */
static int sm90_tma_store_ok(const igemm_conv_params_t *p, int split)
{
    /* y of the input's dtype: the TMA-store instances pack y and unpack the residual with the
     * input dtype as a compile-time constant (with it at run time the fused epilogue converted
     * every residual pair both ways and selected, docs/perf.md S10-7) */
    return p->out_dtype == p->in_dtype && p->k % 8 == 0 && split <= 1;
}

/* 1 for a 1x1, stride-1, unpadded conv: x is the plain matrix A[M, C] (tiled TMA, not im2col). */
static int sm90_a_is_matrix(const igemm_conv_params_t *p)
{
    return p->r == 1 && p->s == 1 && p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 && p->pad_bottom == 0 &&
           p->pad_left == 0 && p->pad_right == 0;
}

/* 1 if the epilogue needs more than y = alpha * acc. */
static bool sm90_general_epilogue(const igemm_conv_params_t *p)
{
    return p->has_scale || p->has_bias || p->has_residual || p->act != IGEMM_ACT_NONE;
}

#define SM90_WHY(...)                                                                                  \
    do {                                                                                               \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                       \
    } while (0)

static int sm90_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, char *why, size_t why_len)
{
    const int64_t lim31 = ((int64_t)1 << 30); /* TMA coordinates are signed 32-bit: keep headroom */
    int64_t lo_w, lo_h, up_w, up_h;
    if (dev->cc_major != 9 || dev->cc_minor != 0) {
        SM90_WHY("device cc %d.%d: the TMA/wgmma kernels are built for sm_90a only", dev->cc_major, dev->cc_minor);
        return 0;
    }
    if (p->groups != 1) {
        SM90_WHY("groups = %lld: the TMA im2col path takes groups == 1 only", (long long)p->groups);
        return 0;
    }
    if (p->in_dtype != IGEMM_DTYPE_F16 && p->in_dtype != IGEMM_DTYPE_BF16) {
        SM90_WHY("x dtype = %d: wgmma path takes f16 or bf16 inputs", (int)p->in_dtype);
        return 0;
    }
    if (p->c % 8 != 0) {
        SM90_WHY("c = %lld: TMA im2col needs c %% 8 == 0 (16-byte pixel rows)", (long long)p->c);
        return 0;
    }
    if (p->stride_h > 8 || p->stride_w > 8) {
        SM90_WHY("stride = %lldx%lld: TMA traversal strides are at most 8", (long long)p->stride_h,
                 (long long)p->stride_w);
        return 0;
    }
    if ((p->r - 1) * p->dil_h > 255 || (p->s - 1) * p->dil_w > 255) {
        SM90_WHY("filter extent (r-1)*dil_h = %lld, (s-1)*dil_w = %lld: 4-D im2col offsets are at most 255",
                 (long long)((p->r - 1) * p->dil_h), (long long)((p->s - 1) * p->dil_w));
        return 0;
    }
    sm90_corners(p, &lo_w, &lo_h, &up_w, &up_h);
    if (lo_w < -128 || lo_h < -128 || lo_w > 127 || lo_h > 127) {
        SM90_WHY("pad_top = %lld, pad_left = %lld: im2col lower corner -pad must be in [-128, 127]",
                 (long long)p->pad_top, (long long)p->pad_left);
        return 0;
    }
    if (up_w < -128 || up_h < -128 || up_w > 127 || up_h > 127) {
        SM90_WHY("im2col upper corner (w %lld, h %lld) = (out-1)*stride + 1 - size - pad_begin must be in "
                 "[-128, 127] (padding or filter extent too large)",
                 (long long)up_w, (long long)up_h);
        return 0;
    }
    if (p->n > lim31 || p->h > lim31 || p->w > lim31 || p->c > lim31 || p->k > lim31 || p->p > lim31 ||
        p->q > lim31) {
        SM90_WHY("a dimension exceeds 2^30 (n %lld, h %lld, w %lld, c %lld, k %lld): TMA coordinates are 32-bit",
                 (long long)p->n, (long long)p->h, (long long)p->w, (long long)p->c, (long long)p->k);
        return 0;
    }
    /* byte strides < 2^40 (TMA): the largest are h*w*c*2 (x) and r*s*c*2 (filter) */
    if (p->h * p->w * p->c * 2 >= ((int64_t)1 << 40) || p->r * p->s * p->c * 2 >= ((int64_t)1 << 40)) {
        SM90_WHY("image or filter too large: TMA byte strides must be < 2^40");
        return 0;
    }
    if (p->gemm_m >= ((int64_t)1 << 31) - 512) {
        SM90_WHY("n*p*q = %lld output pixels: the sm90 kernel indexes pixels with 32 bits (needs < 2^31 - 512)",
                 (long long)p->gemm_m);
        return 0;
    }
    const int64_t k_iters = p->r * p->s * ((p->c + SM90_BK - 1) / SM90_BK);
    const int64_t units = ((p->gemm_m + 127) / 128) * ((p->gemm_n + 63) / 64);
    if (k_iters > INT32_MAX / 2 || units > INT32_MAX / 2) {
        SM90_WHY("GEMM too large for 32-bit tile/k-block counters (M %lld, N %lld, k-blocks %lld)",
                 (long long)p->gemm_m, (long long)p->gemm_n, (long long)k_iters);
        return 0;
    }
    if (sm90_stages_for(128, 64, 2, sm90_epi_slots(128, 1, 64, 2, 1, 1, 0, 0, dev->smem_optin_per_block), dev->smem_optin_per_block) < 2) {
        SM90_WHY("opt-in shared memory per block = %d B: too small for 2 pipeline stages", dev->smem_optin_per_block);
        return 0;
    }
    return 1;
}

/* The planner's pick: WM, BN, consumer warpgroups, split, stages, epilogue slots per consumer,
 * ping-pong, and the pixels-as-N tile (TP pixels; 0 for the row tiles). */
typedef struct sm90_pick {
    int wm, bn, nc, split, stages, es, pp, tp;
} sm90_pick_t;

static sm90_pick_t sm90_pick(int wm, int bn, int nc, int split, int stages, int es, int pp, int tp)
{
    const sm90_pick_t k = {wm, bn, nc, split, stages, es, pp, tp};
    return k;
}

/* Planner. A cost model (microseconds on an H100-class SM) picks the tile (WM, BN, consumer
 * count NC), the split and the stages:
 *   t_kblock = BM*BN*64*2 flop / (7.0e6 flop/us * eff); eff by tile (BM x BN): 128x256 1.0,
 *              256x128 1.05, 128x128 0.8, 256x64 0.45, 128x64 0.65, 192x128 0.95 (NC = 3,
 *              estimated; only where its tiles make one wave: S4-3); x0.5 for a partial last
 *              N tile at BN = 256, x0.9 at BN = 128; x0.9 with fewer than 4 stages
 *   t_unit   = t_kblock * ceil(k_blocks / split) + 0.2 us (decode, barriers, drain) +
 *              BM*BN*out_bytes / 12.5e3 (the tile's output at an SM's share of bandwidth)
 *   t        = ceil(units / grid) * t_unit (+ for split > 1: 4 us + the partials' write and
 *              read at 3 TB/s), units = tiles * split, grid = min(units, SMs); x1.3 for a
 *              fused plan of several waves whose residual ring holds less than a tile.
 * The constants were fitted to a sweep of the five 2-consumer tiles over the 31 layers of
 * bench/shapes.csv (H200, docs/perf.md): the picks are within 4% of each layer's best tile.
 * BN = 256 is only tried when k > 128, BN = 128 when k > 64. A split keeps >= 4 k-blocks per
 * split and a workspace <= 256 MB. The epilogue ring (sm90_epi_slots) takes its shared memory
 * from the stages. Ties go to the first candidate.
 * Developer knobs (read at plan time, for tuning):
 *   IGEMM_SM90_FORCE_BN=64|128|256, IGEMM_SM90_FORCE_WM=1|2, IGEMM_SM90_FORCE_NC=2|3 restrict
 *   the tiles; IGEMM_SM90_FORCE_SPLIT=n the split (where the split rules allow it);
 *   IGEMM_SM90_CLUSTER=1|2 the cluster (2 where the tile has at least 2 M-tiles);
 *   IGEMM_SM90_CLUSTER_LAUNCH=2 (diagnostics) launches the plan in 2-CTA clusters it does not use
 *   (docs/perf.md S17-9: the clusters' placement apart from their coupling);
 *   IGEMM_SM90_STAGES=n caps the operand ring's stages;
 *   IGEMM_SM90_SKC=0|1 turns the split-in-cluster plans off / forces them where they apply;
 *   IGEMM_SM90_HALO=0|1 turns the halo-row plans off / drops their several-tiles condition;
 *   IGEMM_SM90_HALO_ROWS=1 keeps their tiles to one image row; IGEMM_SM90_HALO_NC=2|3 their
 *   consumer warpgroups;
 *   IGEMM_SM90_RES_SLOTS=2..6 the residual ring's slots per consumer; IGEMM_SM90_PINGPONG=1|0
 *   forces ping-pong where it applies / turns its rule off; IGEMM_SM90_RES_MODE=1|2 the
 *   residual path (epilogue ring / operand ring); IGEMM_SM90_PIXN=0|80|96|208 turns the
 *   pixels-as-N tiles off or forces one; IGEMM_SM90_GRID=n caps the grid; IGEMM_SM90_PDL=0|1
 *   launches without programmatic dependent launch / with it on any grid (default: grids of
 *   at least 7/8 of the SMs, and split-in-cluster plans).
 * Cluster: 2x1 (two M-tiles of one N-tile, the filter tile multicast) only when forced; the
 * grid is then 2 * min(cluster units, SMs / 2). */
static igemm_status_t sm90_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                     igemm_kernel_config_t *cfg)
{
    /* (WM, BN, consumers, ping-pong): tile rows 64 * WM * consumers, or 64 * WM in ping-pong
     * (each consumer a whole tile, in turn) */
    static const int cand[8][4] = {{1, 256, 2, 0}, {2, 128, 2, 0}, {1, 128, 2, 0}, {2, 64, 2, 0},
                                   {1, 64, 2, 0},  {1, 128, 3, 0}, {2, 128, 2, 1}, {2, 64, 2, 1}};
    static const double cand_eff[8] = {1.0, 1.05, 0.8, 0.45, 0.65, 0.95, 0.8, 0.65};
    const int64_t M = p->gemm_m, N = p->gemm_n;
    const int c_blocks = (int)((p->c + SM90_BK - 1) / SM90_BK);
    const int k_iters = (int)(p->r * p->s * c_blocks);
    const int sms = dev->sm_count > 0 ? dev->sm_count : 132;
    const double out_size = p->out_dtype == IGEMM_DTYPE_F32 ? 4.0 : 2.0;
    const char *fbn_s = getenv("IGEMM_SM90_FORCE_BN");
    const char *fwm_s = getenv("IGEMM_SM90_FORCE_WM");
    const char *fsp_s = getenv("IGEMM_SM90_FORCE_SPLIT");
    const char *fes_s = getenv("IGEMM_SM90_RES_SLOTS");
    const char *fnc_s = getenv("IGEMM_SM90_FORCE_NC");
    const int fnc = fnc_s ? atoi(fnc_s) : 0;
    const int fbn = fbn_s ? atoi(fbn_s) : 0, fwm = fwm_s ? atoi(fwm_s) : 0, fsp = fsp_s ? atoi(fsp_s) : 0;
    const int fes = fes_s ? atoi(fes_s) : 0;
    const char *fbr_s = getenv("IGEMM_SM90_BREUSE"); /* filter-resident plans: 0 off, 1 forced (below) */
    const int fbr = fbr_s ? atoi(fbr_s) : -1;
    const char *fcl_s = getenv("IGEMM_SM90_CLUSTER");
    const int fcl = fcl_s && (atoi(fcl_s) == 1 || atoi(fcl_s) == 2) ? atoi(fcl_s) : 0;
    /* ping-pong: TMA stores, no split-K, no cluster; IGEMM_SM90_PINGPONG=1 forces it where it
     * applies, else the rule after the search below picks it */
    const char *fpp_s = getenv("IGEMM_SM90_PINGPONG");
    /* the stem path's gathered A (cfg->a_gather, set by the fold family): ping-pong 128-row
     * tiles only (one A row per producer thread), the residual through the operand ring (the
     * residual-producer warp gathers too), no cluster, no split, no filter-resident slots */
    const int ga = cfg->a_gather;
    const int pp_ok = sm90_tma_store_ok(p, 1), fpp = ga ? pp_ok : fpp_s && atoi(fpp_s) == 1 && pp_ok;
    if (ga && !pp_ok)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                               "sm90 gathered A needs TMA stores of y (y of the input's dtype, k %% 8 == 0)");
    /* a TMA-loaded residual goes through the operand ring (mode 2) in cooperative plans and
     * through the epilogue ring (mode 1) in ping-pong ones (S6-1: ping-pong with the operand ring
     * ran 5-14% slower, cooperative with it up to 9% faster); IGEMM_SM90_RES_MODE=1|2 forces one */
    const char *frm_s = getenv("IGEMM_SM90_RES_MODE");
    const int frm = ga ? 2 : frm_s && (atoi(frm_s) == 1 || atoi(frm_s) == 2) ? atoi(frm_s) : 0;
    double best_t = 0.0;
    sm90_pick_t best = sm90_pick(0, 0, 2, 1, 0, 0, 0, 0);
    for (int ci = 0; ci < 8; ci++) {
        const int wm = cand[ci][0], bn = cand[ci][1], nc = cand[ci][2], pp = cand[ci][3];
        const int bm = pp ? 64 * wm : 64 * wm * nc;
        if (pp != fpp) continue;
        if ((fnc == 2 || fnc == 3) && nc != fnc) continue;
        if (fbn == 64 || fbn == 128 || fbn == 256) {
            if (bn != fbn) continue;
        } else {
            if (bn == 256 && N <= 128) continue;
            if (bn == 128 && N <= 64) continue;
        }
        if ((fwm == 1 || fwm == 2) && wm != fwm) continue;
        double eff = cand_eff[ci];
        if (N % bn != 0) eff *= bn == 256 ? 0.5 : bn == 128 ? 0.9 : 1.0;
        const int64_t tiles = ((M + bm - 1) / bm) * ((N + bn - 1) / bn);
        /* 192x128 only where it makes one wave (what it is for): on multi-wave layers it
         * measured 0-16% slower than the planner's other tiles (S4-3), which the model misses */
        if (nc == 3 && tiles > sms && fnc != 3) continue;
        for (int split = 1; split <= SM90_MAX_SPLITS; split++) {
            if (split > 1 && (k_iters / split < 4 || pp)) break;
            if (fsp >= 1 && split != fsp) continue;
            if (split > 1 && (double)split * (double)M * (double)N * 4.0 > (double)SM90_MAX_WORKSPACE) break;
            const int64_t units = tiles * split;
            if (units > INT32_MAX / 2) break;
            const int res_ring = sm90_tma_store_ok(p, split) && p->has_residual ? (frm ? frm : pp ? 1 : 2) : 0;
            const int es = sm90_epi_slots(bm, wm, bn, nc, res_ring == 1, (k_iters + split - 1) / split,
                                          units <= sms, fes, dev->smem_optin_per_block);
            const int stages = sm90_stages_for(bm, bn, nc, es, dev->smem_optin_per_block);
            if (stages < 2) continue;
            const double e = stages < 4 ? eff * 0.9 : eff;
            const double t_kb = (double)bm * bn * SM90_BK * 2.0 / (7.0e6 * e);
            const int64_t grid = units < sms ? units : sms;
            const int64_t waves = (units + grid - 1) / grid;
            const double t_unit =
                t_kb * (double)((k_iters + split - 1) / split) + 0.2 + (double)bm * bn * out_size / 12.5e3;
            double t = (double)waves * t_unit;
            /* a residual ring smaller than the tile reloads boxes inside every epilogue: on
             * multi-wave layers that measured ~3 us per 256x128 tile (128x128 tiles ran 4-9%
             * faster fused on vgg_3x3_128/256 and sd_vae_3x3_128/256, S5-2) */
            if (res_ring == 1 && es < wm * (bn / SM90_EPI_COLS) && waves > 1) t *= 1.3;
            if (split > 1) t += 4.0 + ((double)split * 8.0 + out_size) * (double)M * (double)N / 3.0e6;
            if (best.bn == 0 || t < best_t) {
                best_t = t;
                best = sm90_pick(wm, bn, nc, split, stages, es, pp, 0);
            }
        }
    }
    if (best.bn == 0)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 configure: no tile fits %d B of shared memory",
                               dev->smem_optin_per_block);
    /* 128 x 256 in place of 256 x 128 (the same tile count and operand bytes per MMA, but
     * m64n256k16 steps: 10 KB of shared-memory reads per 128 tensor-core cycles instead of 12 KB)
     * on layers of N % 256 == 0 with mainloops of 16 to 48 k-blocks (the shorter ones of the
     * suite become ping-pong 128 x 128 plans by the rule below; not measured against this).
     * Forced against 256 x 128 on the H200 (docs/perf.md S8-1, S9-1): vgg_3x3_256 (36 k-blocks)
     * -2.4% / -1.8% plain, -1.5% / -3.8% fused; sd_vae_3x3_256 (36) -3.7% / -1.9% plain, -1.7% /
     * +0.7% fused; sd_vae_3x3_512 (72) -1.2% plain, +1.1% fused, so not there. The
     * cost model's efficiencies do not tell the two apart (they were fitted before the operand-ring
     * residual). IGEMM_SM90_WIDE=0 turns the rule off. */
    {
        const char *fwd_s = getenv("IGEMM_SM90_WIDE");
        if (!(fwd_s && atoi(fwd_s) == 0) && !fbn && !fwm && !fnc && !fpp && best.wm == 2 && best.bn == 128 &&
            best.nc == 2 && !best.pp && best.split == 1 && N % 256 == 0 && k_iters >= 16 && k_iters <= 48) {
            const int res_ring = sm90_tma_store_ok(p, 1) && p->has_residual ? (frm ? frm : 2) : 0;
            const int64_t units = ((M + 127) / 128) * (N / 256);
            const int es = sm90_epi_slots(128, 1, 256, 2, res_ring == 1, k_iters, units <= sms, fes,
                                          dev->smem_optin_per_block);
            const int stages = sm90_stages_for(128, 256, 2, es, dev->smem_optin_per_block);
            if (stages >= 4) {
                best.wm = 1;
                best.bn = 256;
                best.es = es;
                best.stages = stages;
            }
        }
    }
    /* Ping-pong (each consumer a whole 128-row tile, mainloops in turn, one consumer's epilogue
     * under the other's mainloop) on layers of several tiles per CTA (first for residual epilogues), in
     * place of a 2-consumer plan of BN <= 128: forced against the cooperative plans it cut the
     * fused time 2-7% on most such layers of bench/shapes.csv and lost on one-wave layers (a
     * consumer idles), on 256-row one-k-block tiles (nothing to overlap) and on 72-k-block
     * mainloops (the epilogue is too small a part to hide; 4-5% slower in run S5-5). S5-4/S5-5.
     * Since the cooperative plans take the residual through the operand ring (S6-1), ping-pong
     * (with the epilogue ring) stays ahead only where epilogues are frequent: mainloops of at
     * most 18 k-blocks and 4+ ping-pong tiles per CTA (l1/l2 layers, vgg_3x3_64/128,
     * sd_vae_3x3_128: 1-15% faster); with 36 k-blocks or 3 tiles per CTA the cooperative
     * 256-row tile won by 2-5% (vgg_3x3_256, sd_vae_3x3_256, r50_l3_1x1_256_1024). The same
     * rule without a residual (plain conv, S6-9): sd_vae_3x3_128 -9.8%, vgg_3x3_128 -4.9%,
     * vgg_3x3_64 -4.0%, r50 l1/l2 layers -2..+1%, so it applies to every TMA-store epilogue.
     * IGEMM_SM90_PINGPONG=0 turns the rule off. */
    if (!best.pp && pp_ok && best.split == 1 && best.nc == 2 && best.bn <= 128 &&
        !(best.wm == 2 && k_iters < 2) && k_iters <= 18 && !(fpp_s && atoi(fpp_s) == 0) &&
        ((M + 127) / 128) * ((N + best.bn - 1) / best.bn) >= 4 * (int64_t)sms) {
        int es = sm90_epi_slots(128, 2, best.bn, 2, p->has_residual && frm != 2, k_iters, 0, fes,
                                dev->smem_optin_per_block);
        /* 128 x 128 tiles with a residual and 16+ k-blocks: 3 slots per consumer (a 5th operand
         * stage) instead of the tile's 4 boxes + 1; the 4th box then loads inside the epilogue,
         * which runs under the other consumer's mainloop. Fused A/B on the H200 (S9-2):
         * vgg_3x3_128 -3.9%, sd_vae_3x3_128 -0.9%; on shorter mainloops 3 slots lost up to 9%,
         * and on the 36-72 k-block layers (ping-pong forced, which the rule above excludes) 37-52%
         * (S9-8): the residual warp, serving both consumers in order, then waits on a slot that
         * frees only inside the other consumer's epilogue. */
        if (p->has_residual && frm != 2 && !fes && best.bn == 128 && k_iters >= 16) es = 3;
        const int stages = sm90_stages_for(128, best.bn, 2, es, dev->smem_optin_per_block);
        if (stages >= 2) {
            best.pp = 1;
            best.wm = 2;
            best.es = es;
            best.stages = stages;
        }
    }
    /* Pixels as N: a tile of TP output pixels x 128 channels, each consumer's 64 filter rows as
     * wgmma A and the TP pixel rows as wgmma B (N = TP, any multiple of 8), so the pixel tile
     * need not be a multiple of 64: for one-wave plans whose 64-multiple tiles leave SMs idle
     * (M = 6272 = 66 x 96 + ..: 132 CTAs of 96 x 128 where 128 x 128 gave 98; M = 2048, N = 640:
     * 130 of 80 x 128 instead of 80; M = 1568, N = 2048: 128 of 208 x 128 instead of 112 of
     * 256 x 128). TMA stores, no split, no cluster, a residual through the operand ring only;
     * N % 128 == 0 (a half-empty channel tile idles a consumer). Modelled like the other tiles
     * (eff 0.75 / 0.8 / 1.0 for TP = 80 / 96 / 208, guessed from 128 x {64, 128, 256}) and
     * taken when that beats the best plan. IGEMM_SM90_PIXN=0 turns it off, =80|96|208 forces
     * that TP where the epilogue allows it. */
    {
        static const int tps[3] = {80, 96, 208};
        static const double tp_eff[3] = {0.75, 0.8, 1.0};
        const char *ftp_s = getenv("IGEMM_SM90_PIXN");
        const int ftp = ftp_s ? atoi(ftp_s) : -1;
        const int other_forced = fbn || fwm || fnc || fsp > 1 || fpp || fcl == 2;
        const int ok = !ga && sm90_tma_store_ok(p, 1) && frm != 1 && ftp != 0;
        for (int ti = 0; ti < 3 && ok; ti++) {
            const int tp = tps[ti];
            const int64_t units = ((M + tp - 1) / tp) * ((N + 127) / 128);
            /* one tile per CTA: one staging box per consumer (no store to overlap) */
            const int es = units <= sms && !getenv("IGEMM_SM90_GRID") ? 1 : 2;
            const int stages = sm90_stages_pixn(tp, es, dev->smem_optin_per_block);
            if (stages < 2) continue;
            if (ftp > 0) { /* forced */
                if (tp != ftp) continue;
            } else {
                if (other_forced || N % 128 != 0 || units > sms || stages < 4) continue;
                const double t_kb = 128.0 * tp * SM90_BK * 2.0 / (7.0e6 * tp_eff[ti]);
                const double t = t_kb * (double)k_iters + 0.2 + 128.0 * tp * out_size / 12.5e3;
                if (t >= best_t) continue;
                best_t = t;
            }
            best = sm90_pick(1, 128, 2, 1, stages, es, 0, tp);
            if (ftp > 0) break;
        }
    }
    /* Pixels as N in ping-pong plans of 64 channels (N <= 64): a tile of TP = 128 (or 256)
     * pixels x 64 channels per consumer, the consumers taking tiles in turn as in the 128 x 64
     * ping-pong plan it replaces, but with one m64nTPk16 per k16 step (the 64 filter rows as
     * wgmma A) instead of two m64n64k16: 6 KB of shared-memory operand reads per 64 tensor-core
     * cycles instead of 8 KB per 64 (at TP = 256, 10 KB per 128), where the 128 x 64 tile needs
     * the SM's whole shared-memory bandwidth (128 B per cycle) at full MMA rate. One staging box
     * of TP x 64 per consumer, the residual TMA-loaded into it (mode 1). Predicted 20-30% on
     * vgg_3x3_64 from the shared-memory bandwidth; measured against the 128 x 64 ping-pong plan
     * on the H200 (docs/perf.md S9-1): vgg_3x3_64 -3.0% plain / -2.0% fused, r50_l1_3x3_64 -0.8% /
     * -0.2%, but the 1x1 layers even or slower (r50_l1_1x1_256_64 +0.8% / +4.1%), and TP = 256
     * 2-8% slower than 128 on the 3x3 layers. So: TP = 128, for ping-pong 128 x 64 plans (several
     * tiles per CTA) with mainloops of 8+ k-blocks. IGEMM_SM90_PIXPP=0 turns it off, =128|256
     * forces that TP wherever a TMA-store plan of N <= 64 allows it. */
    {
        const char *fpx_s = getenv("IGEMM_SM90_PIXPP");
        const int fpx = fpx_s ? atoi(fpx_s) : -1;
        const int forced = fpx == 128 || fpx == 256;
        const int tp = forced ? fpx : 128;
        const int ok = !ga && pp_ok && frm != 2 && N <= 64 && !best.tp && fpx != 0 &&
                       (forced || (best.pp && best.bn == 64 && best.split == 1 && k_iters >= 8));
        const int stages = ok ? sm90_stages_bres(tp, 64, 2, 1, 1, 0, dev->smem_optin_per_block) : 0;
        if (ok && stages >= (forced ? 2 : 4)) {
            best = sm90_pick(1, 64, 2, 1, stages, 1, 1, tp);
        }
    }
    /* Halo rows (HALO instances, conv2d_fprop_{bf16,f16}_pxhalo.cu): in place of that 128-pixel
     * plan on 3x3, stride-1, undilated convs of 64 input channels whose output rows split into
     * tiles of TP = 112 (or else 56) pixels, each tile loads its 3 input rows with a one-pixel
     * halo (one tiled TMA box of TP + 2 pixels each, zero fill past the image) instead of 9 im2col
     * boxes, and the three taps of a filter row read the same row shifted by 0, 1, 2 pixels
     * (wgmma B descriptors 128 B apart: tools/wgmma_shift_probe.cu). A ring stage then carries 3 k-blocks of MMA work,
     * and the operand bytes from L2 per tile drop from 9 x 16 KB to 3 x 14.6 KB: vgg_3x3_64's
     * 7-stage ring was latency-bound (each stage fewer, 5-12% slower: docs/perf.md S14). The
     * filter taps resident (one N-tile: N <= 64), several tiles per CTA.
     * Where the output rows are 56 pixels (q == 56) and come in pairs (p even), a tile is two whole
     * rows (112 pixels, consecutive in M): 4 input-row stages per 112 pixels instead of 3 per 56,
     * and half the epilogues (per pixel, the 56-pixel tiles ran 1.5x slower than vgg_3x3_64's
     * 112-pixel ones: docs/perf.md S15-3). IGEMM_SM90_HALO=0 turns halo rows off, =1 drops the
     * several-tiles condition (tests); IGEMM_SM90_HALO_ROWS=1 keeps one-row tiles. */
    int halo = 0;
    {
        const char *fh_s = getenv("IGEMM_SM90_HALO");
        const int fh = fh_s ? atoi(fh_s) : -1;
        const char *fhr_s = getenv("IGEMM_SM90_HALO_ROWS");
        const int ok = fh != 0 && fbr != 0 && best.tp == 128 && best.pp && best.bn == 64 &&
                       N <= 64 && p->r == 3 && p->s == 3 && p->stride_h == 1 && p->stride_w == 1 && p->dil_h == 1 &&
                       p->dil_w == 1 && p->c == SM90_BK && p->q % 56 == 0;
        const int rows = p->q == 56 && p->p % 2 == 0 && !(fhr_s && atoi(fhr_s) == 1) ? 2 : 1;
        const int tp = rows == 2 || p->q % 112 == 0 ? 112 : 56; /* two rows, a row or half a row per tile */
        /* With a residual (112-pixel tiles), three consumers taking the tiles in turn: with two in
         * ping-pong the fused epilogue (its residual reads and output writes competing with the
         * other consumer's wgmma for shared memory: 0.9-1.5 us against a 1.0-1.2 us mainloop,
         * per-tile trace of vgg_3x3_64, docs/perf.md S16-3) held back the next mainloop; in turn,
         * each epilogue runs under two mainloops. Per call on the H200 (S16-4): fused vgg_3x3_64
         * 0.93x time, r50_l1_3x3_64 0.96x; plain 1.00-1.02x, so two consumers there.
         * IGEMM_SM90_HALO_NC=2|3 forces the count (3: 112-pixel tiles only). Staging boxes per
         * consumer: with a residual and two consumers two (the next tile's residual lands while
         * this one's output is stored; the ring then has 6 stages, 18 k-blocks of work); one
         * otherwise (three consumers: the next residual has two mainloops to land; two boxes
         * were even to 1% slower, S16-4). IGEMM_SM90_RES_SLOTS=1..3 forces the count. */
        const char *fhn_s = getenv("IGEMM_SM90_HALO_NC");
        const int fhn = fhn_s ? atoi(fhn_s) : 0;
        const int nc = tp == 112 && (fhn == 3 || (fhn != 2 && p->has_residual)) ? 3 : 2;
        const int es = fes >= 1 && fes <= 3 ? fes : p->has_residual && nc == 2 ? 2 : 1;
        const int many = fh == 1 || (M + tp - 1) / tp > sms; /* several tiles per CTA */
        const int st = ok && many ? sm90_stages_bres(tp, 64, nc, es, 1 + rows, k_iters, dev->smem_optin_per_block) : 0;
        if (st >= 4) {
            halo = rows;
            best = sm90_pick(1, 64, nc, 1, st, es, 1, tp);
        }
    }
    /* Split in cluster (SKC instances): a 2-CTA cluster per 128 x 128 tile, each CTA running half
     * of the tile's k-blocks, the partial tiles exchanged through distributed shared memory
     * (st.async into the partner's epilogue slots), each CTA finishing 64 of the columns. For
     * one-wave layers of few tiles: the r50_l4 layers (M = 1568, N = 512) otherwise run 104 CTAs
     * of 128 x 64, a tile that cannot feed the tensor cores (m64n64k16: 4 KB of operand reads per
     * 32 tensor-core cycles; 128 x 128 measured 1.7x more work per SM, docs/perf.md S11-2), and a
     * split-K through a workspace pays a second kernel and the partials' round trip to memory.
     * Every cluster takes one tile (2 x tiles <= SMs, no grid cap), K >= 2 k-blocks; TMA stores,
     * the residual through the epilogue ring (mode 1: the operand ring is busy to the end); the
     * partner's 16 KB arrive in two of the consumer's epilogue slots (2, or 3 with a residual).
     * Programmatic dependent launch on (measured back to back on the three r50_l4 layers: 5-13%
     * faster, per call even). Modelled as a 128 x 128 tile (eff 0.8) over ceil(K/2) k-blocks
     * + 0.6 us for the exchange, and taken where that beats the best plan, unless a tile knob is
     * set. IGEMM_SM90_SKC=0 turns it off, =1 forces it wherever it applies. */
    int skc = 0;
    {
        const char *fsk_s = getenv("IGEMM_SM90_SKC");
        const int fsk = fsk_s ? atoi(fsk_s) : -1;
        const int64_t tiles128 = ((M + 127) / 128) * ((N + 127) / 128);
        const int other_forced = fbn || fwm || fnc || fsp > 1 || fpp; /* (a forced 2x1 cluster: not ok) */
        const int ok = !ga && pp_ok && frm != 2 && fcl != 2 && fsk != 0 && k_iters >= 2 && N > 64 &&
                       2 * tiles128 <= sms && !getenv("IGEMM_SM90_GRID");
        /* epilogue slots per consumer: 2, the receive buffer (16 KB) until the chunk's epilogue,
         * the first then staging the output; with a residual (epilogue ring) 3: the residual's
         * slot and the receive buffer */
        const int es_skc = p->has_residual ? 3 : 2;
        const int stages = ok ? sm90_stages_for(128, 128, 2, es_skc, dev->smem_optin_per_block) : 0;
        if (stages >= 2) {
            double eff = N % 128 != 0 ? 0.8 * 0.9 : 0.8;
            if (stages < 4) eff *= 0.9;
            const double t_kb = 128.0 * 128.0 * SM90_BK * 2.0 / (7.0e6 * eff);
            const double t = t_kb * (double)((k_iters + 1) / 2) + 0.2 + 0.6 + 64.0 * 128.0 * out_size / 12.5e3;
            if (fsk == 1 || (!other_forced && k_iters >= 8 && t < best_t)) {
                best = sm90_pick(1, 128, 2, 1, stages, es_skc, 0, 0);
                best_t = t;
                skc = 1;
            }
        }
    }
    const int bm = best.tp ? best.tp : best.pp ? 64 * best.wm : 64 * best.wm * best.nc;
    const int64_t tiles = ((M + bm - 1) / bm) * ((N + best.bn - 1) / best.bn);
    const int64_t tiles_m = (M + bm - 1) / bm;
    /* 2x1 clusters (the filter tile TMA-multicast to two CTAs on neighbouring M-tiles) only
     * when forced: on the H200 no layer of bench/shapes.csv got faster with them (up to 27%
     * slower, with or without the multicast: docs/perf.md S4-1). Re-measured with the
     * warp-uniform producers (S7-3, H100): plain r50_l4_3x3_512 -5.5% and r50_l4_3x3s2_512
     * -2.9%, but the same two fused +20-24%, and every other layer tried 3-42% slower. */
    int cm = 1;
    if (fcl) cm = fcl;
    if (tiles_m < 2 || best.pp || best.tp || skc) cm = 1;
    /* units of a cluster: cluster rows (ceil(tiles_m / cm)) x N-tiles x splits */
    const int64_t units = ((tiles_m + cm - 1) / cm) * ((N + best.bn - 1) / best.bn) * best.split;
    int64_t max_clusters = sms / cm;
    { /* IGEMM_SM90_GRID=n caps the persistent grid (tests: many tiles per CTA on small problems) */
        const char *fg_s = getenv("IGEMM_SM90_GRID");
        const int64_t cap = fg_s ? atoll(fg_s) / cm : 0;
        if (cap >= 1 && cap < max_clusters) max_clusters = cap;
    }
    /* Filter-resident ping-pong plans (b_reuse, their own kernel instances: BRES): the B part of
     * the ring becomes k_iters slots, one per k-block, loaded once: CTA c keeps N-tile c %
     * tiles_n and walks M-tiles c / tiles_n + lap * (the N-tile's CTAs), so the operand traffic
     * from L2 of a 128 x BN tile drops by BN / (128 + BN) (a third at BN = 128) while the CTAs
     * of the N-tiles still run the same M-tiles at once. For ping-pong plans of several tiles
     * per CTA, where the per-N-tile CTA counts take no more laps than the plain order
     * (ceil(tiles / grid)) and the k_iters filter slots leave at least 4 A stages. Measured as a
     * run-time switch in every instance (docs/perf.md S7-2, S7-F): vgg_3x3_64 -17% (H100) and
     * -4.5% (H200), r50_l1_3x3_64 -5% / -2.6%, r50_l2_ds_256_512 -5% / 0%, but the switch cost
     * the other plans 1-4%, hence separate instances. IGEMM_SM90_BREUSE=0 turns it off, =1
     * forces it on ping-pong plans wherever it fits (2+ stages, grid >= N-tiles). */
    int best_br = 0;
    {
        const int64_t grid_u = units < max_clusters ? units : max_clusters;
        const int64_t tiles_n = (N + best.bn - 1) / best.bn;
        const int64_t per_n = grid_u / tiles_n; /* the fewest CTAs of an N-tile */
        const int balanced = per_n >= 1 && (tiles_m + per_n - 1) / per_n == (units + grid_u - 1) / grid_u;
        /* 1x1 stride-1 layers (A loaded as a plain tiled matrix) of one N-tile lost 1-2% with it
         * on the H200 (S8-1: r50_l1_1x1_256_64, r50_l2_1x1_256_128; r50_l1_1x1_64_64 even) */
        const int a_plain = sm90_a_is_matrix(p);
        if (halo) { /* the halo-row instances keep the filter resident (their stages were counted so) */
            best_br = 1;
        } else if (!ga && fbr != 0 && best.pp && cm == 1 && best.split == 1 && units > max_clusters && per_n >= 1 &&
            (fbr == 1 || (balanced && !(a_plain && tiles_n == 1)))) {
            const int s_br = sm90_stages_bres(bm, best.bn, best.nc, best.es, best.tp > 0, k_iters,
                                              dev->smem_optin_per_block);
            if (s_br >= (fbr == 1 ? 2 : 4)) {
                best_br = 1;
                best.stages = s_br;
            }
        }
    }
    { /* IGEMM_SM90_STAGES=n caps the ring depth (tuning: how the time scales with the stages in flight) */
        const char *fst_s = getenv("IGEMM_SM90_STAGES");
        const int fst = fst_s ? atoi(fst_s) : 0;
        if (fst >= 2 && fst < best.stages) best.stages = fst;
        /* Fused 1x1 ping-pong plans with the residual through the staging ring (mode 1) and
         * mainloops of at most 4 k-blocks (memory-bound layers): at most 4 operand stages. Per
         * call on the H200 (docs/perf.md S14-3, three device calls): r50_l1_1x1_256_64 fused
         * 4.1-4.5% faster, r50_l2_1x1_128_512 1.8-3.1%, r50_l1_1x1_64_64 even; the same cap on the
         * plain plans made r50_l2_1x1_128_512 2.8% slower, so it is for the residual: with fewer
         * operand loads in flight, the residual boxes the epilogue waits on get DRAM sooner. (The
         * stem's folded plan, 3 k-blocks, measured even: not included.) */
        const int res1 = p->has_residual && sm90_tma_store_ok(p, best.split) && (frm ? frm == 1 : best.pp);
        if (!fst && best.pp && res1 && p->r == 1 && p->s == 1 && k_iters <= 4 && best.stages > 4) best.stages = 4;
    }
    cfg->bm = bm;
    cfg->bn = best.bn;
    cfg->bk = SM90_BK;
    cfg->stages = best.stages;
    cfg->threads = SM90_THREADS(best.nc);
    cfg->consumers = best.nc;
    cfg->pingpong = best.pp;
    cfg->pixels_n = best.tp > 0;
    cfg->b_reuse = best_br;
    cfg->halo = halo;
    cfg->cluster_m = cm;
    cfg->split_cluster = skc;
    cfg->split_k = best.split;
    cfg->variant = best.es; /* epilogue ring slots per consumer */
    cfg->res_mode = sm90_tma_store_ok(p, best.split) && p->has_residual ? (frm ? frm : best.pp || skc ? 1 : 2) : 0;
    cfg->grid = skc ? 2 * (int)units : cm * (int)(units < max_clusters ? units : max_clusters);
    { /* IGEMM_SM90_CLUSTER_LAUNCH=2 (diagnostics): the same plan launched in 2-CTA clusters it does
         not use (no multicast, no shared barriers), to tell the clusters' placement from the
         coupling of S4-1 (an extra CTA past the units, if the grid is odd, takes none) */
        const char *fcla_s = getenv("IGEMM_SM90_CLUSTER_LAUNCH");
        if (fcla_s && atoi(fcla_s) == 2 && !skc && cm == 1 && !best_br) {
            cfg->launch_cluster = 2;
            cfg->grid += cfg->grid & 1;
        }
    }
    /* programmatic dependent launch: the kernel's launch and set-up overlap the end of the
     * kernel before it in the stream (every global access waits: griddepcontrol.wait). Back to
     * back it took 8-17% off the 8-25 us layers (docs/perf.md S10-2). Only for grids of at
     * least 7/8 of the SMs: on the 104-CTA grids (r50_l4, 128x64) it was 7% slower (the next
     * grid's CTAs start on the idle SMs first, and the CTAs' spread over the GPCs changes), but
     * the split-in-cluster plans of those layers (104 CTAs in 2-CTA clusters) took it 5-13%
     * faster back to back and even per call (docs/perf.md S12-3), so they have it too.
     * Needs a driver that also captures it into graphs (12.3); IGEMM_SM90_PDL=0 turns it off,
     * =1 forces it on any grid. */
    const char *pdl_why = ", programmatic dependent launch";
    {
        const char *pdl_s = getenv("IGEMM_SM90_PDL");
        const int fpdl = pdl_s ? atoi(pdl_s) : -1;
        int drv = 0;
        const int drv_ok = cudaDriverGetVersion(&drv) == cudaSuccess && drv >= 12030;
        const int grid_ok = fpdl == 1 || (int64_t)cfg->grid * 8 >= (int64_t)sms * 7 || skc;
        cfg->pdl = fpdl != 0 && grid_ok && drv_ok;
        if (!cfg->pdl)
            pdl_why = fpdl == 0  ? ", no programmatic dependent launch (IGEMM_SM90_PDL=0)"
                      : !drv_ok  ? ", no programmatic dependent launch (driver older than CUDA 12.3)"
                                 : ", no programmatic dependent launch (grid under 7/8 of the SMs)";
    }
    cfg->smem_bytes = sm90_smem_bytes(bm, best.bn, best.nc, best.stages, best.es, halo ? 1 + halo : best.tp > 0,
                                      best_br ? k_iters : 0);
    cfg->smem_limit = dev->smem_optin_per_block;
    cfg->workspace_bytes = best.split > 1 ? (size_t)best.split * (size_t)M * (size_t)N * sizeof(float) : 0;
    snprintf(cfg->desc, sizeof cfg->desc,
             "%s + wgmma, tile %dx%dx%d, %d stages, 1 producer + %d consumer warpgroups (%d x 64 %s each%s), "
             "%d staging boxes%s%s, %s, %s, grid %d over %lld tiles x %d split(s)%s, %zu B smem%s, est %.1f us",
             ga ? "A gathered by cp.async (producer warpgroup)" : halo ? "TMA halo rows" : "TMA im2col", bm, best.bn,
             SM90_BK, best.stages,
             best.nc, best.wm, best.tp ? "channels, pixels as wgmma N" : "rows", best.pp && best.nc == 3 ? ", taking tiles in turn" : best.pp ? ", ping-pong" : "", best.es,
             cfg->res_mode == 2   ? ", residual via operand ring"
             : cfg->res_mode == 1 ? ", residual via staging ring"
                                  : "",
             halo == 2 ? ", filter resident, halo rows (tiles of two 56-pixel rows, 4 row loads per tile; the taps along W read them shifted)"
             : halo    ? ", filter resident, halo rows (3 row loads per tile; the taps along W read them shifted)"
             : best_br ? ", filter resident (a slot per k-block, one N-tile per CTA)"
                       : "",
             sm90_tma_store_ok(p, best.split) ? "y by TMA stores"
             : best.split > 1                 ? "y by direct stores (split-K partials)"
             : p->out_dtype != p->in_dtype    ? "y by direct stores (y's dtype is not the input's)"
                                              : "y by direct stores (k % 8 != 0)",
             skc      ? "split-K 2 over a 2-CTA cluster (partial tiles exchanged through DSMEM)"
             : cm > 1 ? "cluster 2x1 (filter multicast)"
                      : "no cluster",
             cfg->grid, (long long)tiles, best.split,
             best.split > 1 ? " (fp32 workspace + reduce)" : "", cfg->smem_bytes,
             pdl_why, best_t);
    if (cfg->launch_cluster > 1) { /* (the diagnostic launch above: said, not silent) */
        const size_t len = strlen(cfg->desc);
        snprintf(cfg->desc + len, sizeof cfg->desc - len, ", launched in 2-CTA clusters it does not use (IGEMM_SM90_CLUSTER_LAUNCH=2)");
    }
    return IGEMM_STATUS_SUCCESS;
}

/* The kernel instance for (input dtype, BN, epilogue kind, store path). */
static sm90_kernel_fn sm90_pick_kernel(igemm_dtype_t dt, int bm, int bn, int nc, int pp, int pixn, int bres, int ga,
                                       int skc, int halo, int epi, bool tma_epi)
{
    if (halo) return !(tma_epi && pp && pixn && bres && bn == 64 && !ga && !skc) ? NULL
                     : dt == IGEMM_DTYPE_BF16 ? igemm_sm90_pick_bf16_pxhalo(bm, halo, nc, epi)
                     : dt == IGEMM_DTYPE_F16  ? igemm_sm90_pick_f16_pxhalo(bm, halo, nc, epi)
                                              : NULL;
    if (skc) return !(tma_epi && bm == 128 && bn == 128 && nc == 2 && !pp && !pixn && !bres && !ga) ? NULL
                    : dt == IGEMM_DTYPE_BF16 ? igemm_sm90_pick_bf16_skc(epi)
                    : dt == IGEMM_DTYPE_F16  ? igemm_sm90_pick_f16_skc(epi)
                                             : NULL;
    if (ga) return !(pp && tma_epi) ? NULL : dt == IGEMM_DTYPE_BF16 ? igemm_sm90_pick_bf16_ga(bn, epi)
                                           : dt == IGEMM_DTYPE_F16  ? igemm_sm90_pick_f16_ga(bn, epi)
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

#ifdef IGEMM_SM90_PHASE_PROBE
/* Diagnostics build only (tools/phase_probe.c): where CTA 0 of the next launches records its
 * phase clocks (a device buffer of 2560 long longs: slots 0-17 the phases, 32 + 8 j + k the
 * per-tile trace, 576 + 16 j + 4 ch + k the cooperative epilogue's per-chunk trace, 1024 + 2 c + k
 * each CTA's entry/exit, 2048 + c its SM; NULL: none). */
static long long *g_sm90_probe;
extern "C" IGEMM_API void igemm_sm90_probe_set(long long *dev_buf)
{
    g_sm90_probe = dev_buf;
}
#endif

static igemm_status_t sm90_run(const igemm_conv_params_t *p, const igemm_kernel_config_t *cfg, void *workspace,
                               void *state, void *stream)
{
    sm90_state_t *st = sm90_state_of(state);
    const int bn = cfg->bn;
    /* split-K partials are raw sums (the reduce kernel applies the epilogue): plain instance */
    const bool general = sm90_general_epilogue(p) && cfg->split_k <= 1;
    /* TMA stores of y: y of the input dtype, row pitch k*2 a multiple of 16 B, no split, 32-bit rows */
    const int tma_store = sm90_tma_store_ok(p, cfg->split_k);
    const int epi = !general ? 0 : (p->act == IGEMM_ACT_NONE || p->act == IGEMM_ACT_RELU) ? 1 : 2;
    const sm90_kernel_fn kern = sm90_pick_kernel(p->in_dtype, cfg->bm, bn, cfg->consumers, cfg->pingpong, cfg->pixels_n,
                                                cfg->b_reuse, cfg->a_gather, cfg->split_cluster, cfg->halo, epi,
                                                tma_store != 0);
    igemm_status_t rc;
    if (kern == NULL)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 run: no kernel for dtype %d, bn %d",
                               (int)p->in_dtype, bn);
    if (cfg->split_k > 1 && workspace == NULL)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 run: split-K %d needs a workspace of %zu B",
                               cfg->split_k, cfg->workspace_bytes);

    /* (re-)encode the tensor maps when an operand pointer changed */
    /* a 1x1, stride-1, unpadded conv reads x as the plain matrix A[M, C]: tiled TMA, not im2col */
    /* (gathered A: no map; the producer warps read p->x, the 4-channel copy, themselves) */
    const int ga = cfg->a_gather;
    const int a_tiled = !ga && !cfg->halo && sm90_a_is_matrix(p);
    if (cfg->halo && (!st->have_x || st->x_key != p->x)) {
        /* halo rows: x as a 4-D tiled map {C, W, H, N}, a box of one row of bm + 2 pixels (the
         * tile's pixels and the 3x3 filter's halo; out of the image: zeros), or with two-row
         * tiles bm / 2 + 2 */
        const uint64_t dims[4] = {(uint64_t)p->c, (uint64_t)p->w, (uint64_t)p->h, (uint64_t)p->n};
        const uint64_t strides[3] = {(uint64_t)p->c * 2, (uint64_t)(p->w * p->c * 2),
                                     (uint64_t)(p->h * p->w * p->c * 2)};
        const uint32_t box[4] = {SM90_BK, (uint32_t)(cfg->halo == 2 ? cfg->bm / 2 : cfg->bm) + 2u, 1, 1};
        st->have_x = 0;
        rc = igemm_tmap_encode_tiled(&st->tmap_x, p->in_dtype, p->x, 4, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->x_key = p->x;
        st->have_x = 1;
    }
    if (a_tiled && (!st->have_x || st->x_key != p->x)) {
        const uint64_t dims[2] = {(uint64_t)p->c, (uint64_t)p->gemm_m};
        const uint64_t strides[1] = {(uint64_t)p->c * 2};
        const uint32_t box[2] = {SM90_BK, (uint32_t)cfg->bm};
        st->have_x = 0;
        rc = igemm_tmap_encode_tiled(&st->tmap_x, p->in_dtype, p->x, 2, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->x_key = p->x;
        st->have_x = 1;
    }
    if (!ga && !a_tiled && !cfg->halo && (!st->have_x || st->x_key != p->x)) {
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
                                      (uint32_t)cfg->bm, es, CU_TENSOR_MAP_SWIZZLE_128B);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->x_key = p->x;
        st->have_x = 1;
    }
    const int cm = cfg->cluster_m > 1 ? cfg->cluster_m : 1;
    const int skc = cfg->split_cluster;
    const int w_rows = bn / cm; /* each CTA of a cluster loads (and multicasts) 1/cm of the filter tile */
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
        rc = sm90_encode_epi_map(p, p->y, cfg->pixels_n ? cfg->bm : 64, &st->tmap_y);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->y_key = p->y;
        st->have_y = 1;
    }
    if (tma_store && p->has_residual && (!st->have_r || st->r_key != p->residual)) {
        st->have_r = 0;
        rc = sm90_encode_epi_map(p, p->residual, cfg->pixels_n ? cfg->bm : 64, &st->tmap_r);
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
    a.bm = cfg->bm;
    a.res_ring = tma_store && p->has_residual && general ? cfg->res_mode : 0;
    a.epi_slots = cfg->variant; /* sm90_epi_slots() of this plan, as its smem_bytes counted */
    a.cluster_m = cm;
    a.tiles_m = (int32_t)(((p->gemm_m + cfg->bm - 1) / cfg->bm + cm - 1) / cm); /* cluster rows */
    a.tiles_n = (int32_t)((p->gemm_n + bn - 1) / bn);
    a.num_tiles = a.tiles_m * a.tiles_n;
    a.splits = cfg->split_k > 1 ? cfg->split_k : 1;
    a.num_units = a.num_tiles * a.splits;
    a.k_q = a.k_iters / a.splits;
    a.k_r = a.k_iters % a.splits;
    a.group_m = a.tiles_m < SM90_GROUP_M / cm ? a.tiles_m : SM90_GROUP_M / cm; /* GROUP_M M-tiles */
    a.full_groups = a.tiles_m / a.group_m;
    a.fd_tiles = igemm_fastdiv_make(a.num_tiles);
    a.fd_group = igemm_fastdiv_make(a.group_m * a.tiles_n);
    a.fd_gm = igemm_fastdiv_make(a.group_m);
    a.fd_gm_tail = igemm_fastdiv_make(a.tiles_m - a.full_groups * a.group_m > 0 ? a.tiles_m - a.full_groups * a.group_m
                                                                                 : a.group_m);
    a.fd_pq = igemm_fastdiv_make(a.pq);
    a.fd_q = igemm_fastdiv_make(a.q);
    const int grid = cfg->grid > 0 ? cfg->grid : 1;
    /* split in cluster: one tile per cluster (the receive slots are used once), both K halves
     * non-empty, the receive buffer's two slots beside the residual's */
    if (skc && (cm > 1 || a.splits > 1 || grid != 2 * a.num_units || a.k_iters < 2 ||
                a.epi_slots < (a.res_ring == 1 ? 3 : 2)))
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR,
                               "sm90 run: inconsistent split-in-cluster plan (grid %d for %d tiles, %d k-blocks)", grid,
                               (int)a.num_units, (int)a.k_iters);
    if (cfg->b_reuse) { /* configure() set it only without split and cluster, with grid >= tiles_n */
        if (grid < a.tiles_n)
            return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 run: filter-resident plan with grid %d < %d N-tiles",
                                   grid, (int)a.tiles_n);
        a.rq = grid / a.tiles_n;
        a.rr = grid % a.tiles_n;
        a.fd_grid = igemm_fastdiv_make(grid);
        a.fd_tn = igemm_fastdiv_make(a.tiles_n);
        a.num_units = grid * ((a.tiles_m + a.rq - 1) / a.rq); /* the most laps a CTA takes */
    }
    a.stages = cfg->stages;
    igemm_sm90_args_epilogue(p, &a);
    a.vec4 = (p->gemm_n % 4) == 0;
    a.vec2 = (p->gemm_n % 2) == 0;
    a.a_tiled = a_tiled;
    a.sb_vec2 = p->gemm_n % 2 == 0 && ((uintptr_t)p->scale & 7u) == 0 && ((uintptr_t)p->bias & 7u) == 0;
    a.workspace = a.splits > 1 ? (float *)workspace : NULL;
#ifdef IGEMM_SM90_PHASE_PROBE
    a.probe = g_sm90_probe;
#endif
    if (ga) {
        a.gx = (const uint16_t *)p->x;
        a.gh = (int32_t)p->h;
        a.gw = (int32_t)p->w;
        a.gr = cfg->g_r;
        a.gs = cfg->g_s;
        a.gf = cfg->fold_rows;
    }

    cudaError_t e;
    if (!st->smem_attr_done) {
        /* The limit is a process-wide attribute of the kernel, and plans of one kernel instance
         * may need different amounts (stages and epilogue ring vary): raise it to the device's
         * opt-in maximum, never lower it to this plan's need. */
        int optin = cfg->smem_limit; /* the device's opt-in maximum, known since plan time */
        if ((size_t)optin < cfg->smem_bytes) optin = (int)cfg->smem_bytes;
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
        const unsigned cdim = skc ? 2u : cfg->launch_cluster > 1 ? (unsigned)cfg->launch_cluster : (unsigned)cm; /* CTAs per cluster */
        if (cdim > 1) {
            attr[na].id = cudaLaunchAttributeClusterDimension;
            attr[na].val.clusterDim.x = cdim;
            attr[na].val.clusterDim.y = 1;
            attr[na].val.clusterDim.z = 1;
            na++;
        }
        if (cfg->pdl) { /* the kernel waits (griddepcontrol.wait) before any global access */
            attr[na].id = cudaLaunchAttributeProgrammaticStreamSerialization;
            attr[na].val.programmaticStreamSerializationAllowed = 1;
            na++;
        }
        lc.gridDim = dim3((unsigned)grid, 1, 1);
        lc.blockDim = dim3((unsigned)cfg->threads, 1, 1);
        lc.dynamicSmemBytes = cfg->smem_bytes;
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
    "sm90_tma_wgmma", IGEMM_PATH_SM90, sm90_supports, sm90_configure, sm90_run,
};
