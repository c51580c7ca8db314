/*
 * conv_pixels_n.cuh — the pixels-as-N Hopper conv kernel: a tile of TP output pixels (80, 96 or
 * 208) x 128 channels, the pixels as the wgmma N, so the pixel tile need not be a multiple of 64
 * and one-wave layers get exact waves (M = 6272: 66 x 2 = 132 CTAs of 96 x 128; docs/decisions.md
 * "pixels-as-n").
 *
 * ALGORITHM: implicit GEMM, persistent, warp specialised (core/scheduler.cuh, core/ring.cuh):
 *   producer warp 0   per k-block one TMA im2col box of TP pixel rows and one filter box of 128
 *                     rows; with a fused residual, after the tile's k-blocks one ring stage per
 *                     64-column chunk (the operand ring), one box of TP rows each.
 *   consumers 1, 2    consumer i multiplies filter rows 64i .. 64i + 63 of the B stage (wgmma A)
 *                     by the TP pixel rows of the A stage (wgmma B): 4 m64nTPk16 per k-block;
 *                     then the pixels-as-N epilogue of its 64 channels (ldmatrix/stmatrix .trans
 *                     between the channel-major accumulators and a [pixel][channel] staging box,
 *                     TMA store of TP x 64).
 *                     Split-K instances (TP 32, 64; no TMA stores): a cluster of S = splits
 *                     CTAs per tile, CTA rank r running k-range r; the partial tiles are summed
 *                     through distributed shared memory and each rank finishes 1/S of the
 *                     tile's pixel columns with the fused epilogue (core/cluster_sum.cuh): few-row
 *                     GEMMs and 1x1s (decode, classifiers) spread over the SMs, one kernel.
 *                     Their 64-channel form (BN = 64): both consumers multiply the same 64 filter
 *                     rows, consumer i k16 steps 2i, 2i + 1 of each k-block (2 m64nTPk16 each),
 *                     and both partial tiles join the cluster's sum: twice the tiles of the
 *                     128-channel form, half the bytes per CTA (decisions.md "pixn64").
 * SHARED MEMORY: S stages of TP x 128 B (A) + BN x 128 B (B), 2 x ES staging boxes of TP x 128 B (ES = 1
 *   on one-wave plans; 2 with split-K: the partial tile sent to the cluster), the barriers
 *   (core/ring.cuh).
 * PTX: as conv_cooperative.cuh, plus ldmatrix/stmatrix .trans; split-K: barrier.cluster, mapa,
 *   ld.shared::cluster.
 */
#ifndef IGEMM_SM90_CONV_PIXELS_N_CUH
#define IGEMM_SM90_CONV_PIXELS_N_CUH

#include "core/cluster_sum.cuh"
#include "core/epilogue.cuh"
#include "core/mma.cuh"
#include "core/producer.cuh"
#include "core/setup.cuh"

template <int DT, int BN, int WM, int EPI, bool TMA_EPI, int NC, int TP, bool BRES, int HROWS>
__global__ void __launch_bounds__(SM90_THREADS(NC), 1)
    igemm_sm90_conv_pixels_n(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_w,
                             const __grid_constant__ CUtensorMap tmap_y, const __grid_constant__ CUtensorMap tmap_r,
                             const __grid_constant__ igemm_sm90_args_t a)
{
    static_assert((BN == 128 || (BN == 64 && !TMA_EPI)) && WM == 1 && NC == 2 && TP % 16 == 0 && TP > 0 && !BRES &&
                      HROWS == 1 && (TMA_EPI || TP <= 64),
                  "pixels-as-N tiles: TP (a multiple of 16) pixels x 128 channels, 64 per consumer, TMA stores "
                  "(or, split-K in a cluster, direct stores; there also 64 channels, half of each k-block per "
                  "consumer)");
    /* KS = 2: the two consumers share the tile's 64 channels, consumer i taking k16 steps 2i, 2i + 1
     * of every k-block; their partial tiles join the cluster's sum (core/cluster_sum.cuh) */
    constexpr int KS = BN == 64 ? 2 : 1;
    constexpr uint32_t B_STAGE = BN * SM90_BK * 2;
    constexpr uint32_t A_STAGE = (uint32_t)TP * SM90_BK * 2;
    constexpr uint32_t EBOX = (uint32_t)TP * 128u;
    constexpr bool GENERAL = EPI > 0;
    constexpr bool ACT_ANY = EPI == 2;
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    const int S = a.stages;
    const int ES = a.epi_slots;
    const sm90_smem_t c = sm90_carve<A_STAGE, B_STAGE, EBOX, NC, false>(a, ptx_cvta_to_shared(smem_raw), S, ES);
    /* split-K (no TMA stores): one unit per CTA, cluster rank = split (units are split-major) */
    const int rank = TMA_EPI ? 0 : (int)blockIdx.x % a.splits;
    const int unit0 = TMA_EPI ? (int)blockIdx.x : rank * a.num_tiles + (int)blockIdx.x / a.splits;
    const int unit_step = (int)gridDim.x;

    /* ------------------------------------------------ set-up: barriers, the first k-blocks */
    sm90_setup<BN, false, false, true, A_STAGE>(a, &tmap_x, &tmap_w, c, S, ES, NC, SM90_CONSUMER_ARRIVALS(NC), unit0);

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        /* -------------------------------------------------------- producer: warp 0 */
        ptx_setmaxnreg_dec<SM90_PRODUCER_REGS>();
        const int pwarp = __shfl_sync(0xffffffffu, (int)(threadIdx.x >> 5), 0);
        if (pwarp == 0)
            sm90_produce_tiles<BN, false, TMA_EPI && GENERAL, TP, A_STAGE>(a, &tmap_x, &tmap_w, &tmap_r, c, S, unit0,
                                                                         unit_step);
        return;
    }

    /* ------------------------------------------------------------ consumers 1, 2 */
    ptx_setmaxnreg_inc<SM90_CONSUMER_REGS(NC)>();
    const sm90_consumer_t C = sm90_consumer<EBOX>(c, wg, ES);
    sm90_staging_t E = {0, -1, 0u};
    if (TMA_EPI && C.tid == 0) ptx_prefetch_tensormap(&tmap_y);
    float acc[WM][TP / 2];
#pragma unroll
    for (int j = 0; j < TP / 2; j++) acc[0][j] = 0.0f;
    sm90_ring_t ring = {0, 0u};
    for (int unit = unit0; unit < a.num_units; unit += unit_step) {
        int m0, n0, kb0, kb1;
        sm90_decode_unit<false>(a, unit, BN, m0, n0, kb0, kb1);
        const int nk = kb1 - kb0;
        const int nres = TMA_EPI && GENERAL ? sm90_res_chunks<BN, true>(a, n0) : 0; /* operand-ring residual */
        if (GENERAL) sm90_prefetch_scale_bias<BN>(a, n0, C.tid); /* for the epilogue */
        /* this thread's two channels' factors (c0 and c0 + 8 of this consumer's 64) */
        float pas0 = a.alpha, pas1 = a.alpha, pbi0 = 0.0f, pbi1 = 0.0f;
        const int64_t ch0 = (int64_t)n0 + (KS == 1 ? 64 * C.cw : 0) + C.warp * 16 + (C.lane >> 2);
        if (GENERAL) sm90_pixn_factors(a, ch0, pas0, pas1, pbi0, pbi1);

        const int prev = KS == 1 ? sm90_mainloop_pixn<DT, TP, BN, A_STAGE, false>(acc, c, ring, S, nk, 8192u * C.cw, C.lane)
                                 : sm90_mainloop_pixn<DT, TP, BN, A_STAGE, false, SM90_BK / 32>(acc, c, ring, S, nk, 0u,
                                                                                                 C.lane, 2 * C.cw);
        /* the tile's operand-ring residual stages follow its k-blocks (rstage/rphase the first) */
        const int rstage = ring.stage;
        const uint32_t rphase = ring.phase;
        if (nres > 0) sm90_ring_skip(ring, nres, S);
        sm90_mainloop_drain<WM, TP>(acc, c, prev, C.lane);
        if constexpr (TMA_EPI) {
            sm90_epilogue_pixn<DT, TP, GENERAL, ACT_ANY, A_STAGE, EBOX>(a, &tmap_y, acc, C, E, c, S, ES, m0, n0, C.cw,
                                                                        false, nres, rstage, rphase, pas0, pas1, pbi0,
                                                                        pbi1);
        } else { /* split-K (the instances without TMA stores): summed in the cluster */
            sm90_pixn_cluster_sum<TP, GENERAL, ACT_ANY, KS>(a, acc[0], C, m0, ch0, rank, pas0, pas1, pbi0, pbi1,
                                                            (uint32_t)ES * EBOX);
        }
    }
    if (TMA_EPI && C.tid == 0) ptx_cp_async_bulk_wait_group_read<0>();
}

#endif /* IGEMM_SM90_CONV_PIXELS_N_CUH */
