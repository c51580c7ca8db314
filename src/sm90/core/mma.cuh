/*
 * core/mma.cuh — the consumers' mainloops of the Hopper conv kernels: wgmma.mma_async over the
 * stage ring, one k-block (64 channels of one filter tap) per stage, one wgmma group in flight
 * (wait_group 1: the previous k-block's MMAs are done with their stage, which is then released).
 *   sm90_mainloop_rows   row tiles: the consumer's WM 64-row blocks of the A stage (wgmma A) times
 *                        the B stage's BN filter rows (wgmma B): m64nBNk16, 4 * WM per k-block
 *   sm90_mainloop_pixn   pixels as N: the consumer's 64 filter rows (wgmma A) times the TP pixel
 *                        rows of the A stage (wgmma B): m64nTPk16, 4 per k-block
 * Descriptors (src/ptx/wgmma.cuh): K-major, 128B swizzle, SBO = 1024 B, base offset 0; the k-th
 * 16-element slice of a stage is the tile start + 32*k bytes (+2 encoded). Accumulators: fp32 in
 * registers, fragment layout of src/ptx/wgmma.cuh. The accumulator registers are fenced around
 * each wgmma group (wgmma_fence_operand): accumulators written by other instructions inside a
 * wgmma pipeline stage make ptxas serialize every wgmma of the kernel (the build fails on it:
 * docs/decisions.md "wgmma-serialization").
 */
#ifndef IGEMM_SM90_CORE_MMA_CUH
#define IGEMM_SM90_CORE_MMA_CUH

#include "ring.cuh"

/* One k16 step of the consumer's 64 x BN tile: the wgmma form for (dtype, BN). */
template <int DT, int BN>
static __device__ __forceinline__ void sm90_wgmma(float *acc, uint64_t da, uint64_t db, int scale_d)
{
    static_assert(BN == 32 || BN == 56 || BN == 64 || BN == 80 || BN == 96 || BN == 112 || BN == 128 || BN == 208 || BN == 256,
                  "no wgmma form for BN");
    if constexpr (DT == IGEMM_DTYPE_BF16) {
        if constexpr (BN == 256) ptx_wgmma_m64n256k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 208) ptx_wgmma_m64n208k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 128) ptx_wgmma_m64n128k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 112) ptx_wgmma_m64n112k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 96) ptx_wgmma_m64n96k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 80) ptx_wgmma_m64n80k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 56) ptx_wgmma_m64n56k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 32) ptx_wgmma_m64n32k16_f32_bf16_ss(acc, da, db, scale_d);
        else ptx_wgmma_m64n64k16_f32_bf16_ss(acc, da, db, scale_d);
    } else {
        if constexpr (BN == 256) ptx_wgmma_m64n256k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 208) ptx_wgmma_m64n208k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 128) ptx_wgmma_m64n128k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 112) ptx_wgmma_m64n112k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 96) ptx_wgmma_m64n96k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 80) ptx_wgmma_m64n80k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 56) ptx_wgmma_m64n56k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 32) ptx_wgmma_m64n32k16_f32_f16_ss(acc, da, db, scale_d);
        else ptx_wgmma_m64n64k16_f32_f16_ss(acc, da, db, scale_d);
    }
}

/* Row tiles: the tile's nk k-blocks through the ring (ring at the first), the consumer's rows
 * row0 .. row0 + 64 * WM of each A stage; BRES: the filter of k-block it in resident slot it.
 * Leaves the last k-block's wgmma group in flight; returns its stage (released by the caller
 * after wait_group 0). lane: the releasing lane is 0. */
template <int DT, int BN, int WM, uint32_t A_STAGE, bool BRES, int GW = BN>
static __device__ __forceinline__ int sm90_mainloop_rows(float (&acc)[WM][BN / 2], const sm90_smem_t &c,
                                                         sm90_ring_t &ring, int S, int nk, int row0, int lane)
{
    constexpr uint32_t B_STAGE_BYTES = BN * SM90_BK * 2;
    int prev = 0;
    for (int it = 0; it < nk; it++) {
        sm90_wait_full(c, ring); /* TMA bytes landed */
        const uint32_t a_st = c.a_smem + (uint32_t)ring.stage * A_STAGE + (uint32_t)row0 * 128u;
        const uint32_t b_st = c.b_smem + (uint32_t)(BRES ? it : ring.stage) * B_STAGE_BYTES; /* resident slot or ring stage */
        const uint64_t db = wgmma_desc_kmajor_sw128(b_st);
#pragma unroll
        for (int i = 0; i < WM; i++)
#pragma unroll
            for (int j = 0; j < BN / 2; j++) wgmma_fence_operand(acc[i][j]);
        ptx_wgmma_fence();
        if constexpr (GW == BN) {
#pragma unroll
            for (int kk = 0; kk < SM90_BK / 16; kk++) /* +32 B per k16 step = +2 encoded */
#pragma unroll
                for (int i = 0; i < WM; i++)
                    sm90_wgmma<DT, BN>(acc[i], wgmma_desc_kmajor_sw128(a_st + 8192u * i) + 2u * kk, db + 2u * kk,
                                       (it > 0 || kk > 0) ? 1 : 0);
        } else {
            /* grouped slabs (sm90.h sm90_group_tile): window v = output columns v*GW .. of the tile
             * (filter rows v*GW .., +GW*128 B each: whole 1024 B swizzle atoms) times the k16 steps
             * of its groups' channels, KW per window; its accumulators are the columns' registers
             * of the m64nBN fragment (4 per 8 columns: acc + GW/2 per window) */
            constexpr int NWIN = BN / GW, KW = (SM90_BK / 16) / NWIN;
            static_assert(NWIN * GW == BN && KW * NWIN == SM90_BK / 16, "grouped windows split the tile and the k-block");
#pragma unroll
            for (int v = 0; v < NWIN; v++)
#pragma unroll
                for (int kq = 0; kq < KW; kq++)
#pragma unroll
                    for (int i = 0; i < WM; i++) {
                        const int kk = v * KW + kq;
                        sm90_wgmma<DT, GW>(&acc[i][v * (GW / 2)],
                                           wgmma_desc_kmajor_sw128(a_st + 8192u * i) + 2u * kk,
                                           wgmma_desc_kmajor_sw128(b_st + (uint32_t)(v * GW) * 128u) + 2u * kk,
                                           (it > 0 || kq > 0) ? 1 : 0);
                    }
        }
        ptx_wgmma_commit_group();
        ptx_wgmma_wait_group<1>(); /* the previous k-block's MMAs are done with their stage */
#pragma unroll
        for (int i = 0; i < WM; i++)
#pragma unroll
            for (int j = 0; j < BN / 2; j++) wgmma_fence_operand(acc[i][j]);
        if (it > 0) sm90_release_stage(c.empty_bar, prev, lane == 0);
        prev = ring.stage;
        sm90_ring_next(ring, S);
    }
    return prev;
}

/* Pixels as N: the tile's nk k-blocks, this consumer's 64 filter rows at b_off into each B stage
 * (or resident slot) as wgmma A, the A stage's TP pixel rows as wgmma B. As sm90_mainloop_rows.
 * KSTEPS k16 steps of each k-block from step kk0: 4 from 0 (the whole k-block), or 2 from 0 or 2
 * where two consumers share 64 filter rows and take half of each k-block each. */
template <int DT, int TP, int BN, uint32_t A_STAGE, bool BRES, int KSTEPS = SM90_BK / 16>
static __device__ __forceinline__ int sm90_mainloop_pixn(float (&acc)[1][TP / 2], const sm90_smem_t &c,
                                                         sm90_ring_t &ring, int S, int nk, uint32_t b_off, int lane,
                                                         int kk0 = 0)
{
    constexpr uint32_t B_STAGE_BYTES = BN * SM90_BK * 2;
    int prev = 0;
    for (int it = 0; it < nk; it++) {
        sm90_wait_full(c, ring); /* TMA bytes landed */
        const uint32_t b_st = c.b_smem + (uint32_t)(BRES ? it : ring.stage) * B_STAGE_BYTES; /* resident slot or ring stage */
#pragma unroll
        for (int j = 0; j < TP / 2; j++) wgmma_fence_operand(acc[0][j]);
        ptx_wgmma_fence();
        /* channels x pixels: filter rows b_off / 128 .. as wgmma A, the TP pixels as B */
        const uint64_t df = wgmma_desc_kmajor_sw128(b_st + b_off) + 2u * (uint32_t)kk0;
        const uint64_t dp = wgmma_desc_kmajor_sw128(c.a_smem + (uint32_t)ring.stage * A_STAGE) + 2u * (uint32_t)kk0;
#pragma unroll
        for (int kk = 0; kk < KSTEPS; kk++)
            sm90_wgmma<DT, TP>(acc[0], df + 2u * kk, dp + 2u * kk, (it > 0 || kk > 0) ? 1 : 0);
        ptx_wgmma_commit_group();
        ptx_wgmma_wait_group<1>(); /* the previous k-block's MMAs are done with their stage */
#pragma unroll
        for (int j = 0; j < TP / 2; j++) wgmma_fence_operand(acc[0][j]);
        if (it > 0) sm90_release_stage(c.empty_bar, prev, lane == 0);
        prev = ring.stage;
        sm90_ring_next(ring, S);
    }
    return prev;
}

/* After the mainloop: the last wgmma group done, the accumulators fenced, its stage released. */
template <int WM, int ACCN>
static __device__ __forceinline__ void sm90_mainloop_drain(float (&acc)[WM][ACCN / 2], const sm90_smem_t &c, int prev,
                                                           int lane)
{
    ptx_wgmma_wait_group<0>();
#pragma unroll
    for (int i = 0; i < WM; i++)
#pragma unroll
        for (int j = 0; j < ACCN / 2; j++) wgmma_fence_operand(acc[i][j]);
    sm90_release_stage(c.empty_bar, prev, lane == 0);
}

#endif /* IGEMM_SM90_CORE_MMA_CUH */
