/*
 * conv_halo_rows.cuh — the halo-row Hopper conv kernel: 3x3, stride-1, undilated convs of 64
 * input and at most 64 output channels (VGG/ResNet 64-channel layers), tiles of TP pixels of one
 * output row (TP = 112 or 56), or of two whole 56-pixel rows (HROWS = 2, TP = 112). Im2col would
 * load each tile 9 times (a box per tap); instead each input row is loaded once with its one-pixel
 * halo and the three taps along W read it shifted (docs/decisions.md "halo-rows").
 *
 * ALGORITHM: implicit GEMM as pixels as N (the 64 filter rows of a tap as wgmma A, the tile's
 *   pixels as wgmma B), persistent, warp specialised, the filter's 9 taps resident:
 *   producer warp 0   per tile its HROWS + 2 input rows, each one ring stage: a 4-D tiled TMA box
 *                     {64 channels, HW + 2 pixels, 1 row, 1 image} at (0, q0 - 1, p0 - 1 + r, n),
 *                     zero-filled past the image (the padding); with the CTA's first tile, the
 *                     taps (r, 0..2) into their resident slots along with input row r.
 *   producer warp 1   with a fused residual: each tile's residual box into the staging box of the
 *                     consumer that takes it.
 *   consumers 1..NC   tile j is consumer j % NC's (NC = 2 ping-pong, or 3 in turn for fused
 *                     112-pixel tiles, so each epilogue runs under two other mainloops); for
 *                     input row it, output row o takes filter row r = it - o from it: for each tap
 *                     s the stage read from pixel row s on (the wgmma descriptor's start + 128 B
 *                     per pixel, base offset 0: the 128B swizzle follows the absolute address,
 *                     dev/probes/wgmma_shift_probe.cu), m64nHWk16 into that row's accumulator
 *                     columns; then the pixels-as-N epilogue (core/epilogue.cuh).
 * SHARED MEMORY: S stages of SM90_HALO_STAGE_BYTES(HW) (one input row, rounded to 1 KB), 9 resident
 *   filter slots of 8 KB, NC x ES staging boxes of TP x 128 B, the barriers.
 * PTX: as conv_pixels_n.cuh (4-D tiled TMA loads of x instead of im2col).
 */
#ifndef IGEMM_SM90_CONV_HALO_ROWS_CUH
#define IGEMM_SM90_CONV_HALO_ROWS_CUH

#include "core/epilogue.cuh"
#include "core/mma.cuh"
#include "core/producer.cuh"
#include "core/setup.cuh"

template <int DT, int BN, int WM, int EPI, bool TMA_EPI, int NC, int TP, bool BRES, int HROWS>
__global__ void __launch_bounds__(SM90_THREADS(NC), 1)
    igemm_sm90_conv_halo_rows(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_w,
                              const __grid_constant__ CUtensorMap tmap_y, const __grid_constant__ CUtensorMap tmap_r,
                              const __grid_constant__ igemm_sm90_args_t a)
{
    static_assert(BN == 64 && WM == 1 && (NC == 2 || NC == 3) && BRES && TMA_EPI && TP % 8 == 0 &&
                      (HROWS == 1 || (HROWS == 2 && TP % 16 == 0)),
                  "halo-row tiles: TP pixels of one row (or two rows of TP / 2) x 64 channels, filter resident");
    constexpr int HW = TP / HROWS;     /* output pixels per row of the tile */
    constexpr int HSTAGES = HROWS + 2; /* input rows (stages) per tile */
    constexpr uint32_t HALO_BYTES = (uint32_t)(HW + 2) * 128u; /* one halo row: HW + 2 pixels x 128 B */
    constexpr uint32_t B_STAGE = BN * SM90_BK * 2;
    constexpr uint32_t A_STAGE = SM90_HALO_STAGE_BYTES(HW);
    constexpr uint32_t EBOX = (uint32_t)TP * 128u;
    constexpr bool GENERAL = EPI > 0;
    constexpr bool ACT_ANY = EPI == 2;
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    const int S = a.stages;
    const int ES = a.epi_slots;
    const sm90_smem_t c = sm90_carve<A_STAGE, B_STAGE, EBOX, NC, true>(a, ptx_cvta_to_shared(smem_raw), S, ES);
    const int unit0 = (int)blockIdx.x, unit_step = (int)gridDim.x;

    /* ------------------------------------------------ set-up: barriers (no early loads) */
    sm90_setup<BN, true, true, false, A_STAGE>(a, &tmap_x, &tmap_w, c, S, ES, NC, SM90_CONSUMER_ARRIVALS(1), unit0);

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        /* -------------------------------------------- producers: warp 0 rows, warp 1 residual */
        ptx_setmaxnreg_dec<SM90_PRODUCER_REGS>();
        const int pwarp = __shfl_sync(0xffffffffu, (int)(threadIdx.x >> 5), 0);
        if (pwarp == 0) {
            const bool leader = ptx_elect_one_sync();
            sm90_ring_t ring = {0, 0u};
            for (int unit = unit0, j = 0; unit < a.num_units; unit += unit_step, j++) {
                int m0, n0, kb0, kb1, nb, h0, w0;
                sm90_decode_unit<true>(a, unit, BN, m0, n0, kb0, kb1);
                if (m0 >= a.gemm_m) break; /* past this CTA's last tile */
                const bool load_b = j == 0; /* the resident taps with the first tile */
                sm90_box_origin(a, m0, nb, h0, w0);
                /* the tile's HSTAGES input rows with their halo (w0 = q0 - 1, h0 = p0 - 1), and with
                 * the first tile the taps (r, 0..2) into their resident slots along with row r */
                for (int r = 0; r < HSTAGES; r++) {
                    const uint32_t fb = c.full_bar + 8u * ring.stage;
                    sm90_wait_empty(c, ring);
                    const bool taps = load_b && r < 3;
                    if (leader) {
                        ptx_mbarrier_arrive_expect_tx(fb, HALO_BYTES + (taps ? 3u * B_STAGE : 0u));
                        ptx_cp_async_bulk_tensor_4d_tile(c.a_smem + (uint32_t)ring.stage * A_STAGE, &tmap_x, fb, 0, w0,
                                                         h0 + r, nb);
                        if (taps)
                            for (int s = 0; s < 3; s++)
                                ptx_cp_async_bulk_tensor_4d_tile(c.b_smem + (uint32_t)(3 * r + s) * B_STAGE, &tmap_w, fb, 0,
                                                                 s, r, n0);
                    }
                    sm90_ring_next(ring, S);
                }
            }
        } else if (TMA_EPI && GENERAL && pwarp == 1 && a.res_ring == 1) {
            sm90_residual_producer<BN, WM, NC, true, true, TP, false>(a, &tmap_r, c.epi_smem, c.rfull_bar, c.rempty_bar,
                                                                     ES, unit0, unit_step, 0);
        }
        return;
    }

    /* ------------------------------------------------ consumers 1..NC: tiles in turn */
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
        sm90_decode_unit<true>(a, unit, BN, m0, n0, kb0, kb1);
        if (m0 >= a.gemm_m) break; /* past this CTA's last tile */
        if (!sm90_turn_mine<NC>(j, C.cw)) { /* another consumer's tile: skip its stages */
            sm90_ring_skip(ring, HSTAGES, S);
            continue;
        }
        sm90_turn_wait<NC>(c, C.cw, own);
        if (GENERAL && !partial) sm90_prefetch_scale_bias<BN>(a, n0, C.tid); /* for the epilogue */
        float pas0 = a.alpha, pas1 = a.alpha, pbi0 = 0.0f, pbi1 = 0.0f; /* this thread's two channels */
        if (GENERAL) sm90_pixn_factors(a, (int64_t)n0 + C.warp * 16 + (C.lane >> 2), pas0, pas1, pbi0, pbi1);

        /* mainloop: HSTAGES input rows, unrolled, so that which accumulator and filter row an input
         * row of a two-row tile feeds is known at compile time (a run-time branch around a wgmma
         * serialises every wgmma of the kernel, ptxas C7520) */
        int prev = 0;
#pragma unroll
        for (int it = 0; it < HSTAGES; it++) {
            sm90_wait_full(c, ring); /* TMA bytes landed */
#pragma unroll
            for (int jj = 0; jj < TP / 2; jj++) wgmma_fence_operand(acc[0][jj]);
            ptx_wgmma_fence();
            /* input row `it`: output row o takes filter row it - o from it, tap s shifted by s pixel rows */
#pragma unroll
            for (int o = 0; o < HROWS; o++) {
                const int r = it - o;
                if (r < 0 || r > 2) continue;
#pragma unroll
                for (int s = 0; s < 3; s++) {
                    const uint64_t df = wgmma_desc_kmajor_sw128(c.b_smem + (uint32_t)(3 * r + s) * B_STAGE);
                    const uint64_t dp = wgmma_desc_kmajor_sw128(c.a_smem + (uint32_t)ring.stage * A_STAGE + 128u * s);
#pragma unroll
                    for (int kk = 0; kk < SM90_BK / 16; kk++)
                        sm90_wgmma<DT, HW>(&acc[0][(HW / 2) * o], df + 2u * kk, dp + 2u * kk,
                                           (r > 0 || s > 0 || kk > 0) ? 1 : 0);
                }
            }
            ptx_wgmma_commit_group();
            ptx_wgmma_wait_group<1>(); /* the previous row's MMAs are done with their stage */
#pragma unroll
            for (int jj = 0; jj < TP / 2; jj++) wgmma_fence_operand(acc[0][jj]);
            if (it > 0) sm90_release_stage(c.empty_bar, prev, C.lane == 0);
            prev = ring.stage;
            sm90_ring_next(ring, S);
        }
        sm90_turn_pass<NC>(c, C.cw, C.tid);
        own++;
        sm90_mainloop_drain<WM, TP>(acc, c, prev, C.lane);
        sm90_epilogue_pixn<DT, TP, GENERAL, ACT_ANY, A_STAGE, EBOX>(a, &tmap_y, acc, C, E, c, S, ES, m0, n0, 0, res_ring,
                                                                    0, ring.stage, ring.phase, pas0, pas1, pbi0, pbi1);
    }
    if (TMA_EPI && C.tid == 0) ptx_cp_async_bulk_wait_group_read<0>();
}

#endif /* IGEMM_SM90_CONV_HALO_ROWS_CUH */
