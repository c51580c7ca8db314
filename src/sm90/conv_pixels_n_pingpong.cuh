/*
 * conv_pixels_n_pingpong.cuh — the pixels-as-N ping-pong Hopper conv kernel for layers of at most
 * 64 output channels: a tile of TP = 128 output pixels x 64 channels per consumer, the two
 * consumers taking tiles in turn, one m64nTPk16 per k16 step with the 64 filter rows as wgmma A
 * (6 KB of shared-memory operand reads per 64 tensor-core cycles, where a 128 x 64 row tile's two
 * m64n64k16 read 8 KB: docs/decisions.md "pixels-n-pingpong").
 *
 * ALGORITHM: implicit GEMM, persistent, warp specialised (core/scheduler.cuh, core/ring.cuh):
 *   producer warp 0   per k-block one TMA im2col box of TP pixel rows and one filter box of 64
 *                     rows (BRES: the filter resident, loaded with the CTA's first tile).
 *   producer warp 1   with a fused residual: each tile's TP x 64 residual box into the staging
 *                     box of the consumer that takes the tile.
 *   consumers 1, 2    tile j is consumer j % 2's; mainloops in turn; the pixels-as-N epilogue
 *                     reads the residual from the staging box and writes the output over it.
 * SHARED MEMORY: S stages of TP x 128 B (A) + 8 KB (B; BRES: k_iters slots), one TP x 128 B
 *   staging box per consumer, the barriers (core/ring.cuh). TMA stores only.
 * PTX: as conv_pixels_n.cuh.
 */
#ifndef IGEMM_SM90_CONV_PIXELS_N_PINGPONG_CUH
#define IGEMM_SM90_CONV_PIXELS_N_PINGPONG_CUH

#include "core/epilogue.cuh"
#include "core/mma.cuh"
#include "core/producer.cuh"
#include "core/setup.cuh"

template <int DT, int BN, int WM, int EPI, bool TMA_EPI, int NC, int TP, bool BRES, int HROWS>
__global__ void __launch_bounds__(SM90_THREADS(NC), 1)
    igemm_sm90_conv_pixels_n_pingpong(const __grid_constant__ CUtensorMap tmap_x,
                                      const __grid_constant__ CUtensorMap tmap_w,
                                      const __grid_constant__ CUtensorMap tmap_y,
                                      const __grid_constant__ CUtensorMap tmap_r,
                                      const __grid_constant__ igemm_sm90_args_t a)
{
    static_assert(BN == 64 && WM == 1 && NC == 2 && TP % 16 == 0 && TP > 0 && HROWS == 1 && TMA_EPI,
                  "pixels-as-N ping-pong tiles: TP pixels x 64 channels per consumer, TMA stores");
    constexpr uint32_t B_STAGE = BN * SM90_BK * 2;
    constexpr uint32_t A_STAGE = (uint32_t)TP * SM90_BK * 2;
    constexpr uint32_t EBOX = (uint32_t)TP * 128u;
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
            sm90_residual_producer<BN, WM, NC, true, BRES, TP, false>(a, &tmap_r, c.epi_smem, c.rfull_bar, c.rempty_bar,
                                                                     ES, unit0, unit_step, 0);
        }
        return;
    }

    /* ------------------------------------------------ consumers 1, 2: tiles in turn */
    ptx_setmaxnreg_inc<SM90_CONSUMER_REGS(NC)>();
    const sm90_consumer_t C = sm90_consumer<EBOX>(c, wg, ES);
    const bool partial = a.splits > 1;
    const bool res_ring = TMA_EPI && GENERAL && a.res_ring == 1; /* the residual in the staging box */
    sm90_staging_t E = {0, -1, 0u};
    if (TMA_EPI && C.tid == 0) ptx_prefetch_tensormap(&tmap_y);
    float acc[WM][TP / 2];
#pragma unroll
    for (int j = 0; j < TP / 2; j++) acc[0][j] = 0.0f;
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
        if (GENERAL && !partial) sm90_prefetch_scale_bias<BN>(a, n0, C.tid); /* for the epilogue */
        /* this thread's two channels' factors (c0 and c0 + 8 of the tile's 64) */
        float pas0 = a.alpha, pas1 = a.alpha, pbi0 = 0.0f, pbi1 = 0.0f;
        if (GENERAL) sm90_pixn_factors(a, (int64_t)n0 + C.warp * 16 + (C.lane >> 2), pas0, pas1, pbi0, pbi1);

        const int prev = sm90_mainloop_pixn<DT, TP, BN, A_STAGE, BRES>(acc, c, ring, S, nk, 0u, C.lane);
        sm90_turn_pass<NC>(c, C.cw, C.tid);
        own++;
        sm90_mainloop_drain<WM, TP>(acc, c, prev, C.lane);
        sm90_epilogue_pixn<DT, TP, GENERAL, ACT_ANY, A_STAGE, EBOX>(a, &tmap_y, acc, C, E, c, S, ES, m0, n0, 0, res_ring,
                                                                    0, ring.stage, ring.phase, pas0, pas1, pbi0, pbi1);
    }
    if (TMA_EPI && C.tid == 0) ptx_cp_async_bulk_wait_group_read<0>();
}

#endif /* IGEMM_SM90_CONV_PIXELS_N_PINGPONG_CUH */
