/*
 * conv_pingpong.cuh — the ping-pong Hopper conv kernel: two consumer warpgroups, each taking
 * whole 128 x BN row tiles (BN = 64 or 128) in turn, so that one's epilogue runs under the
 * other's mainloop (layers of several tiles per CTA and short mainloops: docs/decisions.md
 * "pingpong").
 *
 * The whole-N tiles (64 x 128 and 64 x 256, WM 1, filter resident: docs/decisions.md
 * "whole-n-tiles"): one N-tile of 65-128 or 129-256 output channels, so that a short-K 1x1's pixel
 * tile is read once, not once per 64- or 128-channel N-tile; the chunks past N are not computed and
 * the TMA store clips the last one. (Wider N walks several such N-tiles.)
 *
 * ALGORITHM: implicit GEMM, persistent, warp specialised (core/scheduler.cuh, core/ring.cuh):
 *   producer warp 0   per k-block one TMA im2col box of 128 pixel rows and one filter box into
 *                     the stage ring; BRES (filter resident): the filter boxes of all k-blocks
 *                     go to resident slots with the CTA's first tile only (CTA c keeps N-tile
 *                     c % tiles_n: docs/decisions.md "filter-resident").
 *   producer warp 1   with a fused residual: each epilogue chunk's residual box into its
 *                     consumer's staging box (the epilogue ring), up to a tile ahead.
 *   consumers 1, 2    tile j is consumer j % 2's; the other skips its stages. 4 * WM wgmma
 *                     m64nBNk16 per k-block (WM 64-row blocks), the mainloops in turn (order
 *                     barriers), then the epilogue of the whole tile through the staging ring
 *                     and TMA stores.
 * TILES: 128 x 64, 128 x 128 (WM 2, NC 2); 64 x 128, 64 x 256 (WM 1, NC 2, BRES); EPI 0, 1, 2 (as
 *   conv_cooperative.cuh); TMA stores only.
 * SHARED MEMORY: S stages of 8 KB * WM (A) + BN x 128 B (B; BRES: k_iters slots), 2 x ES staging
 *   boxes, the barriers (core/ring.cuh).
 * PTX: as conv_cooperative.cuh.
 */
#ifndef IGEMM_SM90_CONV_PINGPONG_CUH
#define IGEMM_SM90_CONV_PINGPONG_CUH

#include "core/epilogue.cuh"
#include "core/mma.cuh"
#include "core/producer.cuh"
#include "core/setup.cuh"

template <int DT, int BN, int WM, int EPI, bool TMA_EPI, int NC, int TP, bool BRES, int HROWS>
__global__ void __launch_bounds__(SM90_THREADS(NC), 1)
    igemm_sm90_conv_pingpong(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_w,
                             const __grid_constant__ CUtensorMap tmap_y, const __grid_constant__ CUtensorMap tmap_r,
                             const __grid_constant__ igemm_sm90_args_t a)
{
    static_assert(NC == 2 && TP == 0 && HROWS == 1 && TMA_EPI &&
                      ((WM == 2 && (BN == 64 || BN == 128)) || (WM == 1 && BRES && (BN == 128 || BN == 256))),
                  "ping-pong tiles: 128 x 64 or 128 x 128, or 64 x 128 / 256 with the filter resident; two consumers, "
                  "TMA stores");
    constexpr uint32_t B_STAGE = BN * SM90_BK * 2;
    constexpr uint32_t A_STAGE = 64u * WM * SM90_BK * 2;
    constexpr uint32_t EBOX = SM90_EPI_BUF_BYTES;
    constexpr bool GENERAL = EPI > 0;
    constexpr bool ACT_ANY = EPI == 2;
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    const int S = a.stages;
    const int ES = a.epi_slots;
    const sm90_smem_t c = sm90_carve<A_STAGE, B_STAGE, EBOX, NC, BRES>(a, ptx_cvta_to_shared(smem_raw), S, ES);
    const int unit0 = (int)blockIdx.x, unit_step = (int)gridDim.x;

    /* ------------------------------------------------ set-up: barriers, the first k-blocks */
    sm90_setup<BN, BRES, true, true, A_STAGE>(a, &tmap_x, &tmap_w, c, S, ES, NC, SM90_CONSUMER_ARRIVALS(1), unit0);

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        /* -------------------------------------------- producers: warp 0 A/B, warp 1 residual */
        ptx_setmaxnreg_dec<SM90_PRODUCER_REGS>();
        const int pwarp = __shfl_sync(0xffffffffu, (int)(threadIdx.x >> 5), 0);
        if (pwarp == 0) {
            sm90_produce_tiles<BN, BRES, false, 64, A_STAGE>(a, &tmap_x, &tmap_w, &tmap_r, c, S, unit0, unit_step);
        } else if (TMA_EPI && GENERAL && pwarp == 1 && a.res_ring == 1) {
            sm90_residual_producer<BN, WM, NC, true, BRES, 0, false>(a, &tmap_r, c.epi_smem, c.rfull_bar, c.rempty_bar,
                                                                    ES, unit0, unit_step, 0);
        }
        return;
    }

    /* ------------------------------------------------ consumers 1, 2: tiles in turn */
    ptx_setmaxnreg_inc<SM90_CONSUMER_REGS(NC)>();
    const sm90_consumer_t C = sm90_consumer<EBOX>(c, wg, ES);
    const bool partial = a.splits > 1;
    const bool res_ring = TMA_EPI && GENERAL && a.res_ring == 1; /* the residual in the staging boxes */
    sm90_staging_t E = {0, -1, 0u};
    if (TMA_EPI && C.tid == 0) ptx_prefetch_tensormap(&tmap_y);
    float acc[WM][BN / 2];
#pragma unroll
    for (int i = 0; i < WM; i++)
#pragma unroll
        for (int j = 0; j < BN / 2; j++) acc[i][j] = 0.0f;
    sm90_ring_t ring = {0, 0u};
    int own = 0; /* this consumer's tiles so far */
    for (int unit = unit0, j = 0; unit < a.num_units; unit += unit_step, j++) {
        int m0, n0, kb0, kb1;
        sm90_decode_unit<BRES>(a, unit, BN, m0, n0, kb0, kb1);
        if (BRES && m0 >= a.gemm_m) break; /* past this CTA's last tile */
        const int nk = kb1 - kb0;
        if (!sm90_turn_mine<NC>(j, C.cw)) { /* the other consumer's tile: skip its stages */
            sm90_ring_skip(ring, nk, S);
            continue;
        }
        sm90_turn_wait<NC>(c, C.cw, own);
        const int split = partial ? igemm_fastdiv_div(unit, a.fd_tiles) : 0;
        if (GENERAL && !partial) sm90_prefetch_scale_bias<BN>(a, n0, C.tid); /* for the epilogue */
        float2 as[8], bi[8]; /* the first chunk's factors, their latency under the mainloop (S11-4) */
        if (GENERAL && !partial) sm90_chunk_factors(a, (int64_t)n0 + 2 * (C.lane & 3), (int64_t)n0 + SM90_EPI_COLS, as, bi);

        const int prev = sm90_mainloop_rows<DT, BN, WM, A_STAGE, BRES>(acc, c, ring, S, nk, 0, C.lane);
        sm90_turn_pass<NC>(c, C.cw, C.tid); /* every full barrier of the tile passed */
        own++;
        sm90_mainloop_drain<WM, BN>(acc, c, prev, C.lane);
        sm90_epilogue_rows<DT, BN, WM, GENERAL, ACT_ANY, TMA_EPI, false, A_STAGE>(
            a, &tmap_y, acc, as, bi, C, E, c, S, ES, m0, n0, 0, res_ring, partial, split, 0, ring.stage, ring.phase, 0);
    }
    if (TMA_EPI && C.tid == 0) ptx_cp_async_bulk_wait_group_read<0>();
}

#endif /* IGEMM_SM90_CONV_PINGPONG_CUH */
