/*
 * conv_cooperative.cuh — the cooperative Hopper conv kernel: NC consumer warpgroups share one row
 * tile of BM = 64 * WM * NC output pixels x BN output channels.
 *
 * ALGORITHM: implicit GEMM (M = n*p*q pixels, N = k channels, K = r*s*c), persistent (one CTA per
 *   SM, units = (tile, split) rasterised: core/scheduler.cuh), warp specialised:
 *   producer warp 0   per k-block (64 channels of one filter tap) one TMA im2col box of BM pixel
 *                     rows (or a tiled 2-D box of x for an unpadded 1x1 stride-1 conv) and one
 *                     filter box of BN rows into the stage ring; with a fused residual, after the
 *                     tile's k-blocks one ring stage per 64-column chunk of the residual (the
 *                     operand ring: docs/decisions.md "residual-ring").
 *   consumers 1..NC   consumer i owns rows 64*WM*i .. of the tile: 4*WM wgmma m64nBNk16 per
 *                     k-block, one group in flight; then the epilogue of its rows (TMA stores from
 *                     staging boxes, or direct stores: f32 y, k % 8 != 0, split-K partials into
 *                     the workspace that igemm_sm90_splitk_reduce_kernel sums).
 * TILES: 128x64, 128x128, 128x256 (WM 1, NC 2), 256x64, 256x128 (WM 2, NC 2), 192x128 (WM 1, NC 3:
 *   512 threads, one-wave layers); 64x32 (WM 1, NC 1: 256 threads, no register rebalance) and
 *   128x32 for few-row GEMMs (the whole K per tile, up to 16 small stages in flight; an A box cut
 *   to M's rows where M < BM), with direct stores (32-column epilogue chunks); EPI 0 (y =
 *   alpha*acc), 1 (scale/bias/residual, ReLU), 2 (any activation, out of line); TMA_EPI: y by TMA
 *   stores.
 * SHARED MEMORY: S stages of BM x 128 B (A) + BN x 128 B (B), NC x ES staging boxes of 64 x 64
 *   16-bit, the barriers (core/ring.cuh).
 * PTX: cp.async.bulk.tensor (im2col and tile loads, tile stores), mbarrier expect_tx /
 *   try_wait.parity, wgmma.mma_async / fence / commit_group / wait_group, stmatrix, ldmatrix,
 *   elect.sync, setmaxnreg, prefetch.tensormap, fence.proxy.async, bar.sync, griddepcontrol.
 * GROUPED (GW > 0; sm90.h sm90_group_tile, docs/decisions.md "sm90-grouped"): the tile's output
 *   channels are whole groups (a slab of several in one k-block, or part of one group); the producer
 *   reads the input channels of the tile's groups and, for slabs, one filter box per group at its
 *   channel offset (a block-diagonal B); the consumers' wgmmas run per window of GW columns over
 *   the k16 steps of the window's groups (m64nGWk16).
 * Template parameters are the instance table's (instances/list.txt); TP, BRES and HROWS must be
 * 0, false, 1 here.
 */
#ifndef IGEMM_SM90_CONV_COOPERATIVE_CUH
#define IGEMM_SM90_CONV_COOPERATIVE_CUH

#include "core/epilogue.cuh"
#include "core/mma.cuh"
#include "core/producer.cuh"
#include "core/setup.cuh"

template <int DT, int BN, int WM, int EPI, bool TMA_EPI, int NC, int TP, bool BRES, int HROWS, int GW = 0>
__global__ void __launch_bounds__(SM90_THREADS(NC), 1)
    igemm_sm90_conv_cooperative(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_w,
                                const __grid_constant__ CUtensorMap tmap_y, const __grid_constant__ CUtensorMap tmap_r,
                                const __grid_constant__ igemm_sm90_args_t a)
{
    static_assert(TP == 0 && !BRES && HROWS == 1 && (NC == 2 || ((NC == 1 || NC == 3) && WM == 1)) && WM * BN <= 256,
                  "cooperative tiles: 64*WM*NC x BN rows of pixels, WM*BN/2 accumulators per thread");
    constexpr uint32_t B_STAGE = BN * SM90_BK * 2;
    constexpr uint32_t A_STAGE = 64u * WM * NC * SM90_BK * 2;
    constexpr uint32_t EBOX = SM90_EPI_BUF_BYTES;
    constexpr bool GENERAL = EPI > 0;  /* scale/bias/residual/activation (else y = alpha * acc) */
    constexpr bool ACT_ANY = EPI == 2; /* activations besides ReLU (out of line) */
    constexpr bool GRP = GW > 0;       /* grouped conv: the tile's groups' channels, wgmma windows of GW */
    static_assert(!GRP || (TMA_EPI && BN % (GRP ? GW : 1) == 0), "grouped instances: TMA stores, windows splitting BN");
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    const int S = a.stages;
    const int ES = a.epi_slots;
    const sm90_smem_t c = sm90_carve<A_STAGE, B_STAGE, EBOX, NC, false>(a, ptx_cvta_to_shared(smem_raw), S, ES);
    const int unit0 = (int)blockIdx.x, unit_step = (int)gridDim.x;

    /* ------------------------------------------------ set-up: barriers, the first k-blocks */
    sm90_setup<BN, false, false, true, A_STAGE, GRP>(a, &tmap_x, &tmap_w, c, S, ES, NC, SM90_CONSUMER_ARRIVALS(NC), unit0);

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        /* -------------------------------------------------------- producer: warp 0 */
        if constexpr (NC > 1) ptx_setmaxnreg_dec<SM90_PRODUCER_REGS>(); /* one consumer: no rebalance */
        const int pwarp = __shfl_sync(0xffffffffu, (int)(threadIdx.x >> 5), 0);
        if (pwarp == 0)
            sm90_produce_tiles<BN, false, TMA_EPI && GENERAL, 64, A_STAGE, GRP>(a, &tmap_x, &tmap_w, &tmap_r, c, S,
                                                                              unit0, unit_step);
        return;
    }

    /* ------------------------------------------------------------ consumers 1..NC */
    if constexpr (NC > 1) ptx_setmaxnreg_inc<SM90_CONSUMER_REGS(NC)>();
    const sm90_consumer_t C = sm90_consumer<EBOX>(c, wg, ES);
    const bool partial = a.splits > 1;
    sm90_staging_t E = {0, -1, 0u};
    if (TMA_EPI && C.tid == 0) ptx_prefetch_tensormap(&tmap_y);
    float acc[WM][BN / 2];
#pragma unroll
    for (int i = 0; i < WM; i++)
#pragma unroll
        for (int j = 0; j < BN / 2; j++) acc[i][j] = 0.0f;
    sm90_ring_t ring = {0, 0u};
    for (int unit = unit0; unit < a.num_units; unit += unit_step) {
        int m0, n0, kb0, kb1;
        sm90_decode_unit<false>(a, unit, BN, m0, n0, kb0, kb1);
        const int nk = kb1 - kb0; /* >= 1: configure() keeps every split non-empty */
        const int nres = TMA_EPI && GENERAL ? sm90_res_chunks<BN, true>(a, n0) : 0; /* operand-ring residual */
        const int row0 = 64 * WM * C.cw;
        const int split = partial ? igemm_fastdiv_div(unit, a.fd_tiles) : 0;
        if (GENERAL && !partial) sm90_prefetch_scale_bias<BN>(a, n0, C.tid); /* for the epilogue */
        /* the first chunk's scale/bias factors, loaded now so that their latency hides behind the
         * mainloop; each chunk loads the next chunk's once it has used its own (S11-4) */
        float2 as[8], bi[8];
        if (GENERAL && !partial)
            sm90_chunk_factors<SM90_EPI_CW(BN) / 8>(a, (int64_t)n0 + 2 * (C.lane & 3), (int64_t)n0 + SM90_EPI_CW(BN), as,
                                                    bi);

        const int prev = sm90_mainloop_rows<DT, BN, WM, A_STAGE, false, GRP ? GW : BN>(acc, c, ring, S, nk, row0, C.lane);
        /* the tile's operand-ring residual stages follow its k-blocks (rstage/rphase the first):
         * the epilogue waits on each at its chunk and releases it once read */
        const int rstage = ring.stage;
        const uint32_t rphase = ring.phase;
        if (nres > 0) sm90_ring_skip(ring, nres, S);
        sm90_mainloop_drain<WM, BN>(acc, c, prev, C.lane);
        sm90_epilogue_rows<DT, BN, WM, GENERAL, ACT_ANY, TMA_EPI, false, A_STAGE>(
            a, &tmap_y, acc, as, bi, C, E, c, S, ES, m0, n0, row0, false, partial, split, nres, rstage, rphase, 0);
    }
    /* the staging boxes must stay valid until the last stores have read them */
    if (TMA_EPI && C.tid == 0) ptx_cp_async_bulk_wait_group_read<0>();
}

#endif /* IGEMM_SM90_CONV_COOPERATIVE_CUH */
