/*
 * conv_split_cluster.cuh — the split-in-cluster Hopper conv kernel, for one-wave layers of few
 * tiles (ResNet stage 4: M = 1568, N = 512): a 2-CTA cluster per 128 x 128 tile, rank 0 running the
 * first ceil(K/2) k-blocks and rank 1 the rest, each with its own ring; the partial tiles are
 * exchanged through distributed shared memory and each CTA finishes 64 of the columns. No
 * workspace, no second kernel (docs/decisions.md "split-cluster").
 *
 * ALGORITHM: implicit GEMM, one tile per cluster (grid = 2 x tiles), warp specialised:
 *   producer warp 0   the rank's k-blocks of the tile: TMA im2col A boxes of 128 pixel rows and
 *                     filter boxes of 128 rows through the stage ring.
 *   producer warp 1   with a fused residual: the residual box of chunk `rank` (the one this CTA
 *                     finishes) into each consumer's staging box.
 *   consumers 1, 2    64 rows each: 4 m64n128k16 per k-block; then consumer i sends the fp32
 *                     partial of the chunk the partner finishes (64 x 64, 16 KB) by st.async into
 *                     the same consumer's receive buffer in the partner (two of its staging boxes),
 *                     the bytes counted on that consumer's barrier (armed with expect_tx at set-up,
 *                     in the order barriers' place), waits for the partner's half of its own chunk
 *                     (acquire, cluster scope), adds it (a + b: the same bits whichever rank adds)
 *                     and runs the epilogue of that one chunk (core/epilogue.cuh).
 * SHARED MEMORY: S stages of 16 KB (A) + 16 KB (B), 2 x ES staging boxes (ES = 2, 3 with a
 *   residual), the barriers. A cluster barrier follows the set-up (the partner's barriers exist
 *   before any remote arrival). TMA stores only.
 * PTX: as conv_cooperative.cuh, plus st.async with mbarrier complete_tx, mapa, barrier.cluster,
 *   mbarrier.try_wait.acquire.cluster.
 */
#ifndef IGEMM_SM90_CONV_SPLIT_CLUSTER_CUH
#define IGEMM_SM90_CONV_SPLIT_CLUSTER_CUH

#include "core/epilogue.cuh"
#include "core/mma.cuh"
#include "core/producer.cuh"

/* Split-in-cluster exchange of one consumer's partial sums (acc: its 64 accumulators, columns
 * 0..63 of the tile = acc[0..31], 64..127 = acc[32..63]): sends the 32 values at SEND (the chunk
 * the partner finishes) by st.async to dst (the partner's receive buffer, thread-major 16 B
 * stores: conflict-free on both sides) counted on xbar there, waits (acquire, cluster scope) on
 * this consumer's barrier wait_bar for the partner's half of the chunk it keeps and adds it from
 * src into acc[KEEP ..]. SEND and KEEP are compile-time so that acc stays in registers. */
template <int SEND, int KEEP>
static __device__ __forceinline__ void sm90_skc_exchange(float *acc, uint32_t dst, uint32_t xbar, uint32_t wait_bar,
                                                         uint32_t src)
{
#pragma unroll
    for (int q = 0; q < 8; q++)
        ptx_st_async_shared_cluster_v4_b32(dst + (uint32_t)q * 2048u, acc[SEND + 4 * q], acc[SEND + 4 * q + 1],
                                           acc[SEND + 4 * q + 2], acc[SEND + 4 * q + 3], xbar);
    ptx_mbarrier_wait_parity_acquire_cluster(wait_bar, 0u);
#pragma unroll
    for (int q = 0; q < 8; q++) {
        const float4 t = ptx_ld_shared_v4_f32(src + (uint32_t)q * 2048u);
        acc[KEEP + 4 * q] += t.x;
        acc[KEEP + 4 * q + 1] += t.y;
        acc[KEEP + 4 * q + 2] += t.z;
        acc[KEEP + 4 * q + 3] += t.w;
    }
}


template <int DT, int BN, int WM, int EPI, bool TMA_EPI, int NC, int TP, bool BRES, int HROWS>
__global__ void __launch_bounds__(SM90_THREADS(NC), 1)
    igemm_sm90_conv_split_cluster(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_w,
                                  const __grid_constant__ CUtensorMap tmap_y, const __grid_constant__ CUtensorMap tmap_r,
                                  const __grid_constant__ igemm_sm90_args_t a)
{
    static_assert(BN == 128 && WM == 1 && NC == 2 && TP == 0 && !BRES && HROWS == 1 && TMA_EPI,
                  "split-in-cluster tiles: 128 x 128 cooperative (two 64-row consumers), TMA stores");
    constexpr uint32_t B_STAGE = BN * SM90_BK * 2;
    constexpr uint32_t A_STAGE = 64u * WM * NC * SM90_BK * 2;
    constexpr uint32_t EBOX = SM90_EPI_BUF_BYTES;
    constexpr uint32_t SKC_BYTES = 64u * SM90_EPI_COLS * 4u; /* one consumer's fp32 partial chunk */
    static_assert(SKC_BYTES == 2 * EBOX, "the receive buffer is two staging boxes");
    constexpr bool GENERAL = EPI > 0;
    constexpr bool ACT_ANY = EPI == 2;
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    const int S = a.stages;
    const int ES = a.epi_slots;
    const sm90_smem_t c = sm90_carve<A_STAGE, B_STAGE, EBOX, NC, false>(a, ptx_cvta_to_shared(smem_raw), S, ES);
    /* clusters of 2 CTAs along x: CTAs 2u and 2u + 1 take unit u (rank = %cluster_ctarank =
     * blockIdx.x % 2), computed from blockIdx/gridDim rather than read from %cluster_ctarank by
     * asm, whose results the compiler cannot treat as warp-uniform (the producer loop must stay on
     * the uniform datapath) */
    const int rank = (int)blockIdx.x & 1;
    const int unit0 = (int)(blockIdx.x >> 1), unit_step = (int)(gridDim.x >> 1);

    /* ------------------------------------------------ set-up: barriers, the first k-blocks */
    if (threadIdx.x == 0) {
        ptx_prefetch_tensormap(&tmap_x);
        ptx_prefetch_tensormap(&tmap_w);
        sm90_first_unit_t f = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        sm90_first_unit<BN, false, true>(a, unit0, rank, f);
        sm90_ring_init(c, S, ES, NC, SM90_CONSUMER_ARRIVALS(NC));
        for (int k = 0; k < NC; k++) { /* (the order barriers' place) consumer k's partner chunk by st.async */
            ptx_mbarrier_init(c.order_bar + 8u * (uint32_t)k, 1);
            ptx_mbarrier_arrive_expect_tx(c.order_bar + 8u * (uint32_t)k, SKC_BYTES);
        }
        ptx_fence_mbarrier_init_release_cluster();
        sm90_early_loads<BN, false>(a, &tmap_x, &tmap_w, c, S, A_STAGE, unit0, f);
    }
    ptx_barrier_cluster_arrive_relaxed(); /* the partner's barriers exist before any remote arrival */
    ptx_barrier_cluster_wait_acquire();
    ptx_griddepcontrol_launch_dependents();
    ptx_griddepcontrol_wait();

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        /* -------------------------------------------- producers: warp 0 A/B, warp 1 residual */
        ptx_setmaxnreg_dec<SM90_PRODUCER_REGS>();
        const int pwarp = __shfl_sync(0xffffffffu, (int)(threadIdx.x >> 5), 0);
        if (pwarp == 0) {
            const bool leader = ptx_elect_one_sync();
            sm90_ring_t ring = {0, 0u};
            for (int unit = unit0, j = 0; unit < a.num_units; unit += unit_step, j++) {
                int m0, n0, kb0, kb1, nb, h0, w0;
                sm90_decode_unit<false>(a, unit, BN, m0, n0, kb0, kb1);
                sm90_skc_range(a, rank, kb0, kb1);
                sm90_box_origin(a, m0, nb, h0, w0);
                sm90_produce_kblocks<BN, false>(a, &tmap_x, &tmap_w, c, ring, S, A_STAGE, leader, j == 0, m0, n0, kb0,
                                                kb1, nb, h0, w0, true);
            }
        } else if (TMA_EPI && GENERAL && pwarp == 1 && a.res_ring == 1) {
            sm90_residual_producer<BN, WM, NC, false, false, 0, true>(a, &tmap_r, c.epi_smem, c.rfull_bar, c.rempty_bar,
                                                                     ES, unit0, unit_step, rank);
        }
        /* no cluster barrier here: barrier.cluster.wait counts the cluster's non-exited threads,
         * and the consumers keep the CTA alive while the partner may still write into it */
        return;
    }

    /* ------------------------------------------------------------ consumers 1, 2 */
    ptx_setmaxnreg_inc<SM90_CONSUMER_REGS(NC)>();
    const sm90_consumer_t C = sm90_consumer<EBOX>(c, wg, ES);
    const bool partial = a.splits > 1;
    const bool res_ring = TMA_EPI && GENERAL && a.res_ring == 1; /* the residual in the staging boxes */
    sm90_staging_t E = {0, -1, 0u};
    if (TMA_EPI && C.tid == 0) ptx_prefetch_tensormap(&tmap_y);
    float acc[WM][BN / 2];
#pragma unroll
    for (int j = 0; j < BN / 2; j++) acc[0][j] = 0.0f;
    sm90_ring_t ring = {0, 0u};
    for (int unit = unit0; unit < a.num_units; unit += unit_step) {
        int m0, n0, kb0, kb1;
        sm90_decode_unit<false>(a, unit, BN, m0, n0, kb0, kb1);
        sm90_skc_range(a, rank, kb0, kb1);
        const int nk = kb1 - kb0;
        const int row0 = 64 * WM * C.cw;
        const int split = partial ? igemm_fastdiv_div(unit, a.fd_tiles) : 0;
        if (GENERAL && !partial) sm90_prefetch_scale_bias<BN>(a, n0, C.tid); /* for the epilogue */
        float2 as[8], bi[8]; /* chunk `rank`'s factors (the one this CTA finishes) */
        if (GENERAL && !partial) {
            const int64_t c0 = (int64_t)n0 + SM90_EPI_COLS * rank;
            sm90_chunk_factors(a, c0 + 2 * (C.lane & 3), c0 + SM90_EPI_COLS, as, bi);
        }

        const int prev = sm90_mainloop_rows<DT, BN, WM, A_STAGE, false>(acc, c, ring, S, nk, row0, C.lane);
        sm90_mainloop_drain<WM, BN>(acc, c, prev, C.lane);
        /* the exchange: the receive buffer is two of the consumer's staging boxes, idle until its one
         * chunk's epilogue (without a residual boxes 0-1, the first of which then stages the output:
         * the named barrier before the staging writes orders them after every thread's reads here;
         * with the residual through the staging boxes 1-2, the residual in 0); rank 0 keeps chunk 0
         * and sends chunk 1, rank 1 the other way round */
        const uint32_t peer = (uint32_t)rank ^ 1u;
        const uint32_t xbuf = C.my_epi + (res_ring ? EBOX : 0u);
        const uint32_t dst = ptx_mapa_shared_cluster(xbuf, peer) + (uint32_t)C.tid * 16u;
        const uint32_t xbar = ptx_mapa_shared_cluster(c.order_bar + 8u * (uint32_t)C.cw, peer);
        const uint32_t src = xbuf + (uint32_t)C.tid * 16u;
        if (rank == 0) sm90_skc_exchange<32, 0>(acc[0], dst, xbar, c.order_bar + 8u * (uint32_t)C.cw, src);
        else sm90_skc_exchange<0, 32>(acc[0], dst, xbar, c.order_bar + 8u * (uint32_t)C.cw, src);
        sm90_epilogue_rows<DT, BN, WM, GENERAL, ACT_ANY, TMA_EPI, true, A_STAGE>(
            a, &tmap_y, acc, as, bi, C, E, c, S, ES, m0, n0, row0, res_ring, partial, split, 0, ring.stage, ring.phase,
            rank);
    }
    if (TMA_EPI && C.tid == 0) ptx_cp_async_bulk_wait_group_read<0>();
}

#endif /* IGEMM_SM90_CONV_SPLIT_CLUSTER_CUH */
