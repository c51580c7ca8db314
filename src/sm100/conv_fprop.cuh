/*
 * conv_fprop.cuh — the Blackwell (sm_100a) conv2d fprop kernel of the seeds (Conv2dFpropKernel),
 * cta_group::1: implicit GEMM (M = n*p*q output pixels, N = k, K = r*s*c) on 128 x BN tiles
 * (BN = 64, 128, 256), the K loop over the Hopper core's k-blocks (a filter tap x 64 channels).
 *
 * WARP ROLES (256 threads, the seeds' eight warps):
 *   warp 0, one thread  TMA loads: per k-block the A box (TMA im2col, one filter tap through the
 *                       instruction's offsets; the tiled 2-D map of an unpadded 1x1 stride-1 conv)
 *                       and the BN x 64 filter box into a ring of `stages` stages (full / empty
 *                       mbarriers, expect_tx), tile after tile;
 *   warp 1              TMEM: allocates SM100K_ACCUM_STAGES x BN columns, relinquishes
 *                       the permit; one thread issues per k-block four tcgen05.mma kind::f16
 *                       M128 N=BN K16 into accumulator t % SM100K_ACCUM_STAGES (after its acc_empty),
 *                       commits each stage to its empty barrier and the tile to acc_full;
 *   warp 2, one thread  the scheduler (cluster launch control): per tile one
 *                       clusterlaunchcontrol.try_cancel into a 16-byte response slot (clc_full:
 *                       expect_tx 16; clc_empty: every role read it), none after a failed one;
 *   warp 7, one thread  the epilogue load: once the producer has issued the mainloop's first
 *                       stages (the load-order barrier), each chunk's residual (128 x 32) by TMA
 *                       into one of BN / 32 source tiles (epi_full: expect_tx; epi_empty: the 128
 *                       epilogue threads read their rows); without a residual, or where TMA cannot
 *                       read it, it only walks the tile sequence;
 *   warps 3-6           the epilogue: warp w reads TMEM lanes 32 (w % 4) .. +31 = the tile's rows
 *                       32 (w % 4) + lane; per 32 columns one tcgen05.ld 32x32b.x32, the fused
 *                       epilogue (common/epilogue.cuh: alpha, scale, bias, beta x residual from
 *                       the source tile or global memory, activation) in fp32, then (y's rows
 *                       16-byte multiples) the row's 32 outputs into a 128 x 32 output tile in shared memory (2 of them in turn; a named
 *                       barrier of the 128 threads before and after, fence.proxy.async) and one
 *                       thread's TMA store of the tile (clipped at M and N), or else 16-byte
 *                       direct stores where aligned; then one arrival per warp on acc_empty.
 * Every role walks the same tile sequence: the CTA's own (blockIdx.x), then the tile of each CTA
 * it cancelled, read from the response slots in order. A unit's tile comes from the rasterised
 * order of sm100/schedule.h (groups of `swizzle` M-tiles). The grid is one CTA per tile.
 * SHARED MEMORY (offsets from igemm_sm100_plan, sm100/smem_plan.h): A stages (128 rows x 128 B,
 *   128-byte swizzle, as TMA writes them), B stages (BN rows x 128 B), 2 output tiles (128 rows x
 *   32 columns of y's dtype, unswizzled), BN / 32 source tiles (as the output tiles; only with a
 *   TMA-read residual), the barriers, the CLC responses, the TMEM address slot.
 * PTX: cp.async.bulk.tensor (im2col / tile loads, tile stores with bulk groups), mbarrier expect_tx /
 *   try_wait.parity, bar.sync, fence.proxy.async, tcgen05.alloc /
 *   relinquish / dealloc / mma / commit / ld / wait::ld / fences, clusterlaunchcontrol.try_cancel /
 *   query_cancel, griddepcontrol.
 * NOT RUN ON HARDWARE: no Blackwell GPU is available to the project; the family's first-use
 * self-check (src/selfcheck.c) runs it against the direct path on the device before any plan
 * may use it (docs/sm100.md).
 */
#ifndef IGEMM_SM100_CONV_FPROP_CUH
#define IGEMM_SM100_CONV_FPROP_CUH

#include "../ptx/clc.cuh"
#include "../ptx/tcgen05.cuh"
#include "../sm90/core/scheduler.cuh"
#include "schedule.h"
#include "tcgen05_desc.h"

#define SM100K_THREADS (8 * 32)
#define SM100K_ACCUM_STAGES 2 /* TMEM accumulators: 2 x BN columns (128, 256 or 512: a power of two) */
#define SM100K_CLC_STAGES 2   /* CLC response slots */
#define SM100K_OUT_STAGES 2   /* output tiles (128 x 32) of the TMA-store epilogue */
#define SM100K_EPI_WARP0 3
#define SM100K_EPI_LOAD_WARP 7

/* Everything the kernel needs besides its two tensor maps: the Hopper core's argument block (the
 * geometry, tile counts, k-blocks and the epilogue's fields) and the Blackwell kernel's own. */
typedef struct igemm_sm100_args {
    igemm_sm90_args_t g;
    uint32_t idesc;                  /* tcgen05 instruction descriptor: M128 x BN, f32 accumulate */
    uint32_t a_off, b_off, bar_off;  /* shared-memory offsets from the 1024-aligned base */
    uint32_t resp_off, tslot_off;
    uint32_t a_stage_bytes, b_stage_bytes;
    int32_t swizzle;
    /* TMA stores of y (rows of 16-byte multiples): the output tiles (128 rows x 32 columns,
     * unswizzled) at out_off, SM100K_OUT_STAGES of out_tile_bytes; 0: 16-byte direct stores */
    int32_t tma_store;
    uint32_t out_off, out_tile_bytes;
    /* the residual by the epilogue-load warp (TMA, with tma_store): BN / 32 source tiles of
     * out_tile_bytes at src_off; 0: the epilogue warps load it from global memory */
    int32_t src_tma;
    uint32_t src_off;
    /* the pair kernel (conv_fprop_pair.cuh) only, from igemm_sm100_plan: the TMA bytes the leader's
     * full barrier expects per stage (both CTAs' A and B halves), the arrivals that complete
     * acc_empty (an epilogue warp's lane 0, both CTAs) and clc_empty (every role of both CTAs) */
    uint32_t full_tx, acc_empty_arv, clc_empty_arv;
} igemm_sm100_args_t;

/* The 128-row tile of work unit u: (m0, n0) by the rasterised order, for the CTA of rank `rank` in a
 * cluster of `cluster` CTAs along M (1, 0: one CTA per tile; 2, 0 / 1: the 2-CTA pair's halves). */
static __device__ __forceinline__ void sm100k_tile(const igemm_sm100_args_t &a, int u, int cluster, int rank, int bn,
                                                   int &m0, int &n0)
{
    int64_t tm, tn;
    igemm_sm100_tile_of(u, a.g.tiles_m, a.g.tiles_n, cluster, 1, a.swizzle, rank, 0, &tm, &tn);
    m0 = (int)tm * 128;
    n0 = (int)tn * bn;
}

/* The next unit of a role: the response in slot `slot` (lap parity `phase`), read once complete;
 * `arrive`: this thread's arrival on clc_empty[slot] (one per single-thread role, lane 0 per
 * epilogue warp). Returns 0 when the response cancelled nothing (no more tiles). */
static __device__ __forceinline__ int sm100k_next(uint32_t clc_full, uint32_t clc_empty, uint32_t resp, int slot,
                                                  uint32_t phase, bool arrive, int *unit)
{
    ptx_mbarrier_wait_parity(clc_full + 8u * slot, phase);
    uint32_t x, y, z;
    const uint32_t ok = ptx_clusterlaunchcontrol_query_cancel(resp + 16u * slot, &x, &y, &z);
    if (arrive) ptx_mbarrier_arrive(clc_empty + 8u * slot);
    *unit = (int)x;
    return (int)ok;
}

/* One epilogue thread's 32 outputs of row m, columns n .. n + 31, from the accumulators v: the
 * fused epilogue in fp32 into f (columns >= N and rows >= M: whatever; they are not stored); the
 * residual from res where staged (the epilogue-load warp's source tile), else from global memory. */
static __device__ __forceinline__ void sm100k_values32(const igemm_sm90_args_t &a, int64_t m, int64_t n,
                                                       const uint32_t v[32], bool staged, const float res[32],
                                                       float f[32])
{
    const int64_t N = a.gemm_n, row = m * N;
    const int cols = m >= a.gemm_m ? 0 : N - n < 32 ? (int)(N - n) : 32;
#pragma unroll
    for (int j = 0; j < 32; j++) {
        const int64_t nn = n + (j < cols ? j : 0);
        float t = a.alpha * __uint_as_float(v[j]);
        if (a.has_scale) t *= __ldg(a.scale + nn);
        if (a.has_bias) t += __ldg(a.bias + nn);
        f[j] = t;
    }
    if (a.has_residual && staged) { /* the row's 32 residual values, staged by the epilogue-load warp */
#pragma unroll
        for (int j = 0; j < 32; j++) f[j] += a.beta * res[j];
    } else if (a.has_residual) { /* unrolled with a predicate: f stays in registers */
#pragma unroll
        for (int j = 0; j < 32; j++)
            if (j < cols) f[j] += a.beta * igemm_load_out(a.residual, row + n + j, a.out_dtype);
    }
    igemm_act_dev_array<32>(a.act, f, a.act_param);
}

/* One thread's row of a 128 x 32 source tile at shared address rowp (32 values of y's dtype,
 * row_bytes 64 or 128) as fp32. */
static __device__ __forceinline__ void sm100k_load_row32(uint32_t rowp, int out_dtype, float r[32])
{
    const bool f32 = out_dtype == IGEMM_DTYPE_F32;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        if (!f32 && i >= 4) break;
        const float4 q = ptx_ld_shared_v4_f32(rowp + 16u * (uint32_t)i);
        if (f32) {
            r[4 * i] = q.x, r[4 * i + 1] = q.y, r[4 * i + 2] = q.z, r[4 * i + 3] = q.w;
        } else {
            const uint4 u = make_uint4(__float_as_uint(q.x), __float_as_uint(q.y), __float_as_uint(q.z), __float_as_uint(q.w));
            igemm_unpack8_16(u, out_dtype, r + 8 * i);
        }
    }
}

/* The 32 outputs f of row m, columns n .. n + 31, as y's dtype packed into 16 (16-bit) or 32 (f32)
 * words w. */
static __device__ __forceinline__ void sm100k_pack32(int out_dtype, const float f[32], uint32_t w[32])
{
    if (out_dtype == IGEMM_DTYPE_F32) {
#pragma unroll
        for (int e = 0; e < 32; e++) w[e] = __float_as_uint(f[e]);
        return;
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const uint4 u = igemm_pack8_16(f + 8 * i, out_dtype);
        w[4 * i] = u.x, w[4 * i + 1] = u.y, w[4 * i + 2] = u.z, w[4 * i + 3] = u.w;
    }
}

/* Direct stores of row m's outputs f at columns n .. n + 31 (those < N, rows < M): 16-byte stores
 * where the row's 32 are whole and aligned. */
static __device__ __forceinline__ void sm100k_store32(const igemm_sm90_args_t &a, int64_t m, int64_t n,
                                                      const float f[32])
{
    if (m >= a.gemm_m) return;
    const int64_t N = a.gemm_n, row = m * N;
    const int cols = N - n < 32 ? (int)(N - n) : 32;
    /* 16-byte stores of 8 (16-bit) or 4 (f32) outputs where the row's 32 are whole and aligned */
    const bool whole = cols == 32 && ((row + n) & 7) == 0;
    if (whole && a.out_dtype != IGEMM_DTYPE_F32) {
        uint32_t w[32];
        sm100k_pack32(a.out_dtype, f, w);
        uint4 *dst = (uint4 *)((uint16_t *)a.y + row + n);
#pragma unroll
        for (int i = 0; i < 4; i++) dst[i] = make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
    } else if (whole) {
        float4 *dst = (float4 *)((float *)a.y + row + n);
#pragma unroll
        for (int i = 0; i < 8; i++) dst[i] = make_float4(f[4 * i], f[4 * i + 1], f[4 * i + 2], f[4 * i + 3]);
    } else {
#pragma unroll
        for (int j = 0; j < 32; j++)
            if (j < cols) igemm_store_out(a.y, row + n + j, a.out_dtype, f[j]);
    }
}

/* One epilogue thread's part of a tile's epilogue (the caller waited for the tile's acc_full):
 * row m0 + 32 q + lane of the accumulator at TMEM column tmem_acc (lane base 32 q: warp q of the
 * four epilogue warps), per 32 columns one tcgen05.ld 32x32b.x32, the residual from the
 * epilogue-load warp's source tiles (E > 0: the ring of E tiles, position srcs) or global
 * memory, the fused epilogue, then the TMA store through the output tiles (position chunks:
 * the 128 epilogue threads' named barrier 1; epilogue thread et == 0 issues the stores and
 * owns their bulk groups) or direct stores. Shared by the cta_group::1
 * kernel and the pair kernel (conv_fprop_pair.cuh), whose CTAs each store their own 128 rows. */
template <int BN>
static __device__ __forceinline__ void sm100k_epilogue_chunks(const igemm_sm100_args_t &a, const CUtensorMap *tmap_y,
                                                              uint32_t base, uint32_t tmem_acc, int q, int lane,
                                                              int et, int m0, int n0, int E, uint32_t epi_full,
                                                              uint32_t epi_empty, int &chunks, int &srcs)
{
    const uint32_t out_smem = base + a.out_off;
    const uint32_t row_bytes = a.out_tile_bytes / 128u; /* 64 (16-bit) or 128 (f32) */
    const int64_t m = (int64_t)m0 + 32 * q + lane;
#pragma unroll 1
    for (int c = 0; c < BN / 32; c++) {
        if ((int64_t)n0 + 32 * c >= a.g.gemm_n) break; /* uniform in the warp */
        uint32_t v[32];
        ptx_tcgen05_ld_32x32b_x32(tmem_acc + ((uint32_t)(32 * q) << 16) + (uint32_t)(32 * c), v);
        ptx_tcgen05_wait_ld();
        float f[32], res[32] = {};
        if (E > 0) { /* the chunk's residual, staged by the epilogue-load warp */
            const int st = srcs % E;
            ptx_mbarrier_wait_parity(epi_full + 8u * st, (uint32_t)(srcs / E) & 1u);
            sm100k_load_row32(base + a.src_off + (uint32_t)st * a.out_tile_bytes +
                                  (uint32_t)(32 * q + lane) * row_bytes,
                              a.g.out_dtype, res);
            ptx_mbarrier_arrive(epi_empty + 8u * st);
            srcs++;
        }
        sm100k_values32(a.g, m, (int64_t)n0 + 32 * c, v, E > 0, res, f);
        if (!a.tma_store) {
            sm100k_store32(a.g, m, (int64_t)n0 + 32 * c, f);
            continue;
        }
        /* TMA store: the 128 x 32 output tile through shared memory (its rows past M and
         * columns past N are clipped by the store). The tile SM100K_OUT_STAGES stores ago must
         * have been read before it is overwritten. */
        const int os = chunks % SM100K_OUT_STAGES;
        const uint32_t tile = out_smem + (uint32_t)os * a.out_tile_bytes;
        if (et == 0) ptx_cp_async_bulk_wait_group_read<SM100K_OUT_STAGES - 1>();
        ptx_bar_sync(1, 128); /* the tile is free */
        uint32_t w[32];
        sm100k_pack32(a.g.out_dtype, f, w);
        const uint32_t rowp = tile + (uint32_t)(32 * q + lane) * row_bytes;
#pragma unroll
        for (int i = 0; i < 8; i++)
            if (i < (int)(row_bytes / 16u))
                ptx_st_shared_v4_b32(rowp + 16u * (uint32_t)i, w[4 * i], w[4 * i + 1], w[4 * i + 2],
                                     w[4 * i + 3]);
        ptx_fence_proxy_async_shared_cta(); /* the generic writes, before the async proxy reads */
        ptx_bar_sync(1, 128);                /* the whole tile written */
        if (et == 0) {
            ptx_cp_async_bulk_tensor_2d_global_shared_cta(tmap_y, tile, n0 + 32 * c, m0);
            ptx_cp_async_bulk_commit_group();
        }
        chunks++;
    }
}

template <int BN>
__global__ void __launch_bounds__(SM100K_THREADS, 1)
    igemm_sm100_conv_fprop(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_w,
                           const __grid_constant__ CUtensorMap tmap_y, const __grid_constant__ CUtensorMap tmap_r,
                           const __grid_constant__ igemm_sm100_args_t a)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    const uint32_t base = (ptx_cvta_to_shared(smem_raw) + 1023u) & ~1023u;
    const int S = a.g.stages, ACC = SM100K_ACCUM_STAGES, CLC = SM100K_CLC_STAGES;
    constexpr uint32_t TMEM_COLS = SM100K_ACCUM_STAGES * BN;
    const uint32_t a_smem = base + a.a_off, b_smem = base + a.b_off;
    const uint32_t full = base + a.bar_off, empty = full + 8u * S;
    const uint32_t acc_full = empty + 8u * S, acc_empty = acc_full + 8u * ACC;
    const uint32_t clc_full = acc_empty + 8u * ACC, clc_empty = clc_full + 8u * CLC;
    const int E = a.src_tma ? BN / 32 : 0; /* source tiles (the residual's pipeline) */
    const uint32_t epi_full = clc_empty + 8u * CLC, epi_empty = epi_full + 8u * E, order = epi_empty + 8u * E;
    const uint32_t resp = base + a.resp_off, tslot = base + a.tslot_off;
    const int warp = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
    const int KB = a.g.k_iters;

    if (threadIdx.x == 0) {
        ptx_prefetch_tensormap(&tmap_x);
        ptx_prefetch_tensormap(&tmap_w);
        for (int s = 0; s < S; s++) {
            ptx_mbarrier_init(full + 8u * s, 1);  /* the producer's arrive.expect_tx */
            ptx_mbarrier_init(empty + 8u * s, 1); /* the MMA thread's tcgen05.commit */
        }
        for (int i = 0; i < ACC; i++) {
            ptx_mbarrier_init(acc_full + 8u * i, 1);  /* tcgen05.commit of the tile's last MMAs */
            ptx_mbarrier_init(acc_empty + 8u * i, 4); /* lane 0 of each epilogue warp */
        }
        for (int i = 0; i < CLC; i++) {
            ptx_mbarrier_init(clc_full + 8u * i, 1);
            ptx_mbarrier_init(clc_empty + 8u * i, 3 + 4 + 1); /* producer, MMA, scheduler; 4 epilogue warps; epilogue load */
        }
        for (int i = 0; i < E; i++) {
            ptx_mbarrier_init(epi_full + 8u * i, 1);    /* the epilogue-load warp's arrive.expect_tx */
            ptx_mbarrier_init(epi_empty + 8u * i, 128); /* every epilogue thread has read its row */
        }
        ptx_mbarrier_init(order, 1); /* load order: the producer's first stages are issued */
        ptx_fence_mbarrier_init_release_cluster();
    }
    if (warp == 1) {
        ptx_tcgen05_alloc_cta_group_1(tslot, TMEM_COLS);
        ptx_tcgen05_relinquish_alloc_permit_cta_group_1();
    }
    ptx_tcgen05_fence_before_thread_sync();
    __syncthreads();
    ptx_tcgen05_fence_after_thread_sync();
    const uint32_t tmem = *(volatile uint32_t *)((uint8_t *)smem_raw + (tslot - ptx_cvta_to_shared(smem_raw)));
    ptx_griddepcontrol_launch_dependents();
    ptx_griddepcontrol_wait(); /* programmatic dependent launch: every global access after this */

    int unit = (int)blockIdx.x;
    if (warp == 0) {
        /* ------------------------------------------------------------ TMA producer */
        if (lane == 0) {
            int j = 0; /* k-blocks issued so far: the ring position */
            const uint32_t a_bytes = a.g.a_tx ? (uint32_t)a.g.a_tx : a.a_stage_bytes;
            for (int t = 0;; t++) {
                int m0, n0, nb, h0, w0;
                sm100k_tile(a, unit, 1, 0, BN, m0, n0);
                sm90_box_origin(a.g, m0, nb, h0, w0);
                int cb = 0, r = 0, s = 0;
                for (int kb = 0; kb < KB; kb++, j++) {
                    const int st = j % S;
                    ptx_mbarrier_wait_parity(empty + 8u * st, ((uint32_t)(j / S) & 1u) ^ 1u);
                    const uint32_t fb = full + 8u * st;
                    ptx_mbarrier_arrive_expect_tx(fb, a_bytes + a.b_stage_bytes);
                    const uint32_t ad = a_smem + (uint32_t)st * a.a_stage_bytes;
                    if (a.g.a_tiled)
                        ptx_cp_async_bulk_tensor_2d_tile(ad, &tmap_x, fb, cb * SM90_BK, m0);
                    else
                        ptx_cp_async_bulk_tensor_4d_im2col(ad, &tmap_x, fb, cb * SM90_BK, w0, h0, nb,
                                                           (uint16_t)(s * a.g.dil_w), (uint16_t)(r * a.g.dil_h));
                    ptx_cp_async_bulk_tensor_4d_tile(b_smem + (uint32_t)st * a.b_stage_bytes, &tmap_w, fb, cb * SM90_BK,
                                                     s, r, n0);
                    sm90_kblock_next(a.g, cb, r, s);
                    /* the load order: the epilogue-load warp starts once the mainloop's first
                     * stages are on their way (its residual loads must not delay them) */
                    if (j + 1 == (S < KB ? S : KB)) ptx_mbarrier_arrive(order);
                }
                if (!sm100k_next(clc_full, clc_empty, resp, t % CLC, (uint32_t)(t / CLC) & 1u, true, &unit)) break;
            }
        }
    } else if (warp == 1) {
        /* ------------------------------------------------------------ MMA issuer */
        if (lane == 0) {
            int j = 0;
            for (int t = 0;; t++) {
                const int acc = t % ACC;
                ptx_mbarrier_wait_parity(acc_empty + 8u * acc, ((uint32_t)(t / ACC) & 1u) ^ 1u);
                ptx_tcgen05_fence_after_thread_sync();
                const uint32_t d = tmem + (uint32_t)(acc * BN); /* accumulator acc's first column */
                for (int kb = 0; kb < KB; kb++, j++) {
                    const int st = j % S;
                    ptx_mbarrier_wait_parity(full + 8u * st, (uint32_t)(j / S) & 1u);
                    ptx_tcgen05_fence_after_thread_sync();
                    const uint64_t da = igemm_tcgen05_sdesc_kmajor_sw128(a_smem + (uint32_t)st * a.a_stage_bytes);
                    const uint64_t db = igemm_tcgen05_sdesc_kmajor_sw128(b_smem + (uint32_t)st * a.b_stage_bytes);
#pragma unroll
                    for (int kk = 0; kk < 4; kk++) /* K16 steps: +32 bytes = +2 in the descriptors */
                        ptx_tcgen05_mma_cta_group_1_kind_f16(d, da + 2u * kk, db + 2u * kk, a.idesc, kb > 0 || kk > 0);
                    ptx_tcgen05_commit_cta_group_1(empty + 8u * st); /* the stage is free once these ran */
                }
                ptx_tcgen05_commit_cta_group_1(acc_full + 8u * acc); /* the tile's accumulator is complete */
                if (!sm100k_next(clc_full, clc_empty, resp, t % CLC, (uint32_t)(t / CLC) & 1u, true, &unit)) break;
            }
        }
    } else if (warp == 2) {
        /* ------------------------------------------------------------ scheduler (CLC) */
        if (lane == 0) {
            for (int t = 0;; t++) {
                const int c = t % CLC;
                ptx_mbarrier_wait_parity(clc_empty + 8u * c, ((uint32_t)(t / CLC) & 1u) ^ 1u); /* every role read it */
                ptx_mbarrier_arrive_expect_tx(clc_full + 8u * c, 16);
                ptx_clusterlaunchcontrol_try_cancel(resp + 16u * c, clc_full + 8u * c);
                /* read it too: after a failed response no further request may be issued */
                if (!sm100k_next(clc_full, clc_empty, resp, c, (uint32_t)(t / CLC) & 1u, true, &unit)) break;
            }
        }
    } else if (warp == SM100K_EPI_LOAD_WARP) {
        /* ------------------------------------------------------------ epilogue load (residual) */
        if (lane == 0) {
            if (E > 0) ptx_mbarrier_wait_parity(order, 0u);
            int i = 0; /* source tiles loaded so far: the ring position */
            for (int t = 0;; t++) {
                if (E > 0) {
                    int m0, n0;
                    sm100k_tile(a, unit, 1, 0, BN, m0, n0);
                    for (int c = 0; c < BN / 32; c++, i++) {
                        if ((int64_t)n0 + 32 * c >= a.g.gemm_n) break; /* as the epilogue's chunks */
                        const int st = i % E;
                        ptx_mbarrier_wait_parity(epi_empty + 8u * st, ((uint32_t)(i / E) & 1u) ^ 1u);
                        ptx_mbarrier_arrive_expect_tx(epi_full + 8u * st, a.out_tile_bytes);
                        ptx_cp_async_bulk_tensor_2d_tile(base + a.src_off + (uint32_t)st * a.out_tile_bytes, &tmap_r,
                                                         epi_full + 8u * st, n0 + 32 * c, m0);
                    }
                }
                if (!sm100k_next(clc_full, clc_empty, resp, t % CLC, (uint32_t)(t / CLC) & 1u, true, &unit)) break;
            }
        }
    } else {
        /* ------------------------------------------------------------ epilogue, warps 3-6 */
        const int q = warp & 3; /* TMEM lanes 32 q .. : the tile's rows 32 q + lane */
        const int et = (int)threadIdx.x - 32 * SM100K_EPI_WARP0; /* 0..127 */
        int chunks = 0; /* output tiles stored so far: the output-tile ring position */
        int srcs = 0;   /* source tiles read so far: the residual ring position */
        if (a.tma_store && et == 0) ptx_prefetch_tensormap(&tmap_y);
        for (int t = 0;; t++) {
            const int acc = t % ACC;
            int m0, n0;
            sm100k_tile(a, unit, 1, 0, BN, m0, n0);
            ptx_mbarrier_wait_parity(acc_full + 8u * acc, (uint32_t)(t / ACC) & 1u);
            ptx_tcgen05_fence_after_thread_sync();
            sm100k_epilogue_chunks<BN>(a, &tmap_y, base, tmem + (uint32_t)(acc * BN), q, lane, et, m0, n0, E,
                                       epi_full, epi_empty, chunks, srcs);
            /* every lane's TMEM reads are complete (wait::ld) before its warp frees the accumulator */
            ptx_tcgen05_fence_before_thread_sync();
            __syncwarp();
            if (lane == 0) ptx_mbarrier_arrive(acc_empty + 8u * acc);
            if (!sm100k_next(clc_full, clc_empty, resp, t % CLC, (uint32_t)(t / CLC) & 1u, lane == 0, &unit)) break;
        }
        if (a.tma_store && et == 0) ptx_cp_async_bulk_wait_group<0>(); /* every store done before exit */
    }
    /* teardown: every role done with TMEM before warp 1 frees it */
    ptx_tcgen05_fence_before_thread_sync();
    __syncthreads();
    if (warp == 1) {
        ptx_tcgen05_fence_after_thread_sync();
        ptx_tcgen05_dealloc_cta_group_1(tmem, TMEM_COLS);
    }
#endif
}

#endif /* IGEMM_SM100_CONV_FPROP_CUH */
