/*
 * conv2d_fprop_kernel.cuh — device code of the sm90 conv2d fprop family (algorithm, layouts and
 * PTX features: see the header comment of conv2d_fprop.cu). Included by conv2d_fprop.cu (host
 * side, split-K reduce kernel) and by conv2d_fprop_bf16.cu / conv2d_fprop_f16.cu, which
 * instantiate the kernel templates for one input dtype each.
 */
#ifndef IGEMM_SM90_CONV2D_FPROP_KERNEL_CUH
#define IGEMM_SM90_CONV2D_FPROP_KERNEL_CUH

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common/epilogue.cuh"
#include "../common/fastdiv.h"
#include "sm90.h"
#include "../ptx/cluster.cuh"
#include "../ptx/cp_async.cuh"
#include "../ptx/elect.cuh"
#include "../ptx/fence.cuh"
#include "../ptx/griddepcontrol.cuh"
#include "../ptx/mbarrier.cuh"
#include "../ptx/prefetch.cuh"
#include "../ptx/ld_shared.cuh"
#include "../ptx/ldmatrix.cuh"
#include "../ptx/max.cuh"
#include "../ptx/setmaxnreg.cuh"
#include "../ptx/st_async.cuh"
#include "../ptx/stmatrix.cuh"
#include "../ptx/tma.cuh"
#include "../ptx/wgmma.cuh"
#include "../tensor_map.h"

#define SM90_PRODUCER_REGS 40
#define SM90_CONSUMER_REGS(NC) ((NC) == 2 ? 232 : 152) /* 128*40 + 128*NC*regs <= 64K */
#define SM90_CONSUMER_ARRIVALS(NC) (4 * (NC)) /* empty barrier: lane 0 of each consumer warp */
/* k-blocks of its first unit a CTA's thread 0 issues at set-up, before the __syncthreads (the
 * producer warp issues the rest): the first stage's latency starts ~0.4 us sooner. Each costs
 * thread 0 (non-uniform registers) ~0.1 us, which every other warp waits for: with all S stages
 * the set-up's end moved from 0.51 to 1.25 us (docs/decisions.md "early-stages", S13-3). */
#define SM90_EARLY_STAGES 2

/* Everything the kernels need besides the tensor maps (passed by value, __grid_constant__).
 * All pixel and tile indices are 32-bit: supports() requires M = n*p*q < 2^31 - 512. */
typedef struct igemm_sm90_args {
    int64_t gemm_m; /* n*p*q */
    int64_t gemm_n; /* k, output channels */
    int32_t pq;     /* p*q */
    int32_t q;
    int32_t stride_h, stride_w, pad_top, pad_left, dil_h, dil_w;
    int32_t filter_s; /* S */
    int32_t c_blocks; /* ceil(c / 64) */
    int32_t k_iters;  /* R*S*c_blocks: k-blocks of the whole reduction */
    int32_t tiles_m;   /* M-tiles: ceil(M / bm) */
    int32_t tiles_n, num_tiles, splits, num_units, group_m, stages; /* units: of a cluster */
    int32_t k_q, k_r;    /* k_iters / splits, k_iters % splits */
    int32_t full_groups; /* tiles_m / group_m: groups of group_m M-tiles; the last may be smaller */
    igemm_fastdiv_t fd_tiles, fd_group, fd_gm, fd_gm_tail, fd_pq, fd_q; /* / num_tiles, group_m*tiles_n,
                                                  group_m, tiles_m - full_groups*group_m, pq, q */
    float alpha, beta, act_param;
    int32_t act, has_scale, has_bias, has_residual, out_dtype;
    int32_t vec4; /* gemm_n % 4 == 0: 4-element row chunks are 4-element aligned */
    int32_t vec2; /* gemm_n % 2 == 0: column pairs are 2-element aligned */
    int32_t a_tiled; /* 1x1, stride 1, no padding: x is the A matrix [M, C]; tmap_x is a tiled 2-D map */
    int32_t bm;        /* rows per tile: 64 * WM * NC */
    int32_t epi_slots; /* epilogue ring: 64 x 64 boxes per consumer (TMA epilogue: 2, or with a
                          residual the tile's boxes + 1), each staging its chunk's residual and output */
    int32_t res_ring;  /* TMA-loaded residual (TMA epilogue with a residual), by mode:
                          1 (epilogue ring): the residual producer loads each chunk's residual
                            into the consumer's epilogue-ring slot, which then stages its output;
                          2 (operand ring): the A/B producer loads each chunk's residual
                            (BM x 64) into the A part of the next operand-ring stage after the
                            tile's k-blocks; the consumers read it there and release the stage;
                          0: none (or global loads on the direct-store path) */
    int32_t sb_vec2;   /* gemm_n even and scale/bias (where given) 8-byte aligned: float2 loads */
    const float *scale;
    const float *bias;
    const void *residual;
    void *y;
    float *workspace; /* split-K partials [splits][M][N] fp32; NULL when splits == 1 */
    /* filter-resident instances (BRES; no split, no cluster): the B part of the ring is k_iters
     * slots, one per k-block of the tile, loaded once: CTA c keeps N-tile c % tiles_n and takes
     * the M-tiles c / tiles_n + lap * (CTAs of that N-tile), so the N-tiles' CTAs run the same
     * M-tiles in step (the A tile shared in L2 at once, as in the rasterised order). Last in the
     * struct: the other instances' parameter offsets stay as they were. */
    int32_t rq, rr; /* grid / tiles_n, grid % tiles_n (N-tile n has rq + (n < rr) CTAs) */
    igemm_fastdiv_t fd_grid, fd_tn; /* / grid, / tiles_n */
} igemm_sm90_args_t;

/* Host side: a's epilogue fields (alpha, beta, activation, scale/bias/residual flags and
 * pointers, y, its dtype, and M and N) from the problem; the other fields are the caller's. */
static inline void igemm_sm90_args_epilogue(const igemm_conv_params_t *p, igemm_sm90_args_t *a)
{
    a->gemm_m = p->gemm_m;
    a->gemm_n = p->gemm_n;
    a->alpha = p->alpha;
    a->beta = p->beta;
    a->act_param = p->act_param;
    a->act = p->act;
    a->has_scale = p->has_scale;
    a->has_bias = p->has_bias;
    a->has_residual = p->has_residual;
    a->out_dtype = (int32_t)p->out_dtype;
    a->scale = p->scale;
    a->bias = p->bias;
    a->residual = p->residual;
    a->y = p->y;
}

/* ------------------------------------------------------------------ device code */

/* One k16 step of the consumer's 64 x BN tile: the wgmma form for (dtype, BN). */
template <int DT, int BN>
static __device__ __forceinline__ void sm90_wgmma(float *acc, uint64_t da, uint64_t db, int scale_d)
{
    static_assert(BN == 56 || BN == 64 || BN == 80 || BN == 96 || BN == 112 || BN == 128 || BN == 208 || BN == 256,
                  "no wgmma form for BN");
    if constexpr (DT == IGEMM_DTYPE_BF16) {
        if constexpr (BN == 256) ptx_wgmma_m64n256k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 208) ptx_wgmma_m64n208k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 128) ptx_wgmma_m64n128k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 112) ptx_wgmma_m64n112k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 96) ptx_wgmma_m64n96k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 80) ptx_wgmma_m64n80k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 56) ptx_wgmma_m64n56k16_f32_bf16_ss(acc, da, db, scale_d);
        else ptx_wgmma_m64n64k16_f32_bf16_ss(acc, da, db, scale_d);
    } else {
        if constexpr (BN == 256) ptx_wgmma_m64n256k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 208) ptx_wgmma_m64n208k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 128) ptx_wgmma_m64n128k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 112) ptx_wgmma_m64n112k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 96) ptx_wgmma_m64n96k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 80) ptx_wgmma_m64n80k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 56) ptx_wgmma_m64n56k16_f32_f16_ss(acc, da, db, scale_d);
        else ptx_wgmma_m64n64k16_f32_f16_ss(acc, da, db, scale_d);
    }
}

/* Stores 4 consecutive columns n..n+3 of output row m (m < M, n < N; columns >= N dropped).
 * partial: raw fp32 into workspace[split]; else the fused epilogue, rounded to y's dtype. */
static __device__ __forceinline__ void sm90_store4(const igemm_sm90_args_t &a, int64_t m, int64_t n, float4 acc,
                                                   bool partial, int split)
{
    const int64_t N = a.gemm_n;
    const int64_t off = m * N + n;
    const int64_t left = N - n;
    const bool full = left >= 4 && a.vec4;
    float v[4] = {acc.x, acc.y, acc.z, acc.w};
    if (partial) {
        float *dst = a.workspace + (int64_t)split * a.gemm_m * N + off;
        if (full) {
            *(float4 *)dst = acc;
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++)
                if (e < left) dst[e] = v[e];
        }
        return;
    }
    float res[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (a.has_residual) {
        if (full) {
            if (a.out_dtype == IGEMM_DTYPE_F32) {
                const float4 r4 = *(const float4 *)((const float *)a.residual + off);
                res[0] = r4.x, res[1] = r4.y, res[2] = r4.z, res[3] = r4.w;
            } else {
                const uint2 raw = *(const uint2 *)((const uint16_t *)a.residual + off);
                if (a.out_dtype == IGEMM_DTYPE_F16) {
                    const float2 lo = __half22float2(*(const __half2 *)&raw.x);
                    const float2 hi = __half22float2(*(const __half2 *)&raw.y);
                    res[0] = lo.x, res[1] = lo.y, res[2] = hi.x, res[3] = hi.y;
                } else {
                    const float2 lo = __bfloat1622float2(*(const __nv_bfloat162 *)&raw.x);
                    const float2 hi = __bfloat1622float2(*(const __nv_bfloat162 *)&raw.y);
                    res[0] = lo.x, res[1] = lo.y, res[2] = hi.x, res[3] = hi.y;
                }
            }
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++)
                if (e < left) res[e] = igemm_load_out(a.residual, off + e, a.out_dtype);
        }
    }
#pragma unroll
    for (int e = 0; e < 4; e++) {
        if (e < left) {
            float t = a.alpha * v[e];
            if (a.has_scale) t *= a.scale[n + e];
            if (a.has_bias) t += a.bias[n + e];
            if (a.has_residual) t += a.beta * res[e];
            v[e] = igemm_act_dev(a.act, t, a.act_param);
        }
    }
    if (full) {
        if (a.out_dtype == IGEMM_DTYPE_F32) {
            *(float4 *)((float *)a.y + off) = make_float4(v[0], v[1], v[2], v[3]);
        } else if (a.out_dtype == IGEMM_DTYPE_F16) {
            const __half2 lo = __floats2half2_rn(v[0], v[1]);
            const __half2 hi = __floats2half2_rn(v[2], v[3]);
            uint2 raw;
            raw.x = *(const uint32_t *)&lo;
            raw.y = *(const uint32_t *)&hi;
            *(uint2 *)((uint16_t *)a.y + off) = raw;
        } else {
            const __nv_bfloat162 lo = __floats2bfloat162_rn(v[0], v[1]);
            const __nv_bfloat162 hi = __floats2bfloat162_rn(v[2], v[3]);
            uint2 raw;
            raw.x = *(const uint32_t *)&lo;
            raw.y = *(const uint32_t *)&hi;
            *(uint2 *)((uint16_t *)a.y + off) = raw;
        }
    } else {
#pragma unroll
        for (int e = 0; e < 4; e++)
            if (e < left) igemm_store_out(a.y, off + e, a.out_dtype, v[e]);
    }
}

/* Activations other than ReLU, out of line: inlining the 9-way switch for every element of the
 * unrolled epilogue made the kernel too large for the instruction cache. */
static __device__ __noinline__ float sm90_act_slow(int act, float v, float act_param)
{
    return igemm_act_dev(act, v, act_param);
}

/* Packs two floats into a 16-bit pair of the input-like dtype DTO (F16 or BF16). */
static __device__ __forceinline__ uint32_t sm90_pack2(int out_dtype, float v0, float v1)
{
    if (out_dtype == IGEMM_DTYPE_F16) {
        const __half2 h = __floats2half2_rn(v0, v1);
        return *(const uint32_t *)&h;
    }
    const __nv_bfloat162 h = __floats2bfloat162_rn(v0, v1);
    return *(const uint32_t *)&h;
}

/* The TMA-store epilogue's pack: (v0, v1) rounded to DT (F16 or BF16) and, with relu, ReLU
 * applied to the packed pair (one max.{b}f16x2 per pair instead of one fmaxf per value: the
 * fused epilogue of a cooperative tile runs while the tensor cores idle, so its instructions
 * are time, docs/perf.md S10-7; the result is the same as packing fmaxf(v, 0), max.cuh). */
template <int DT>
static __device__ __forceinline__ uint32_t sm90_pack2_relu(float v0, float v1, bool relu)
{
    const uint32_t p = sm90_pack2(DT, v0, v1);
    if (!relu) return p;
    return DT == IGEMM_DTYPE_F16 ? ptx_max_f16x2(p, 0u) : ptx_max_bf16x2(p, 0u);
}

/* Unpacks a 16-bit pair of dtype out_dtype (F16 or BF16) into two floats. */
static __device__ __forceinline__ float2 sm90_unpack2(int out_dtype, uint32_t raw)
{
    if (out_dtype == IGEMM_DTYPE_F16) return __half22float2(*(const __half2 *)&raw);
    return __bfloat1622float2(*(const __nv_bfloat162 *)&raw);
}

/* Direct store of one (already epilogued) column pair to y, or raw partials to the split-K
 * workspace; masks m >= M (row_ok) and columns >= N. */
static __device__ __forceinline__ void sm90_store_pair(const igemm_sm90_args_t &a, int64_t rowoff, int64_t n,
                                                       bool row_ok, float v0, float v1, bool partial, int split)
{
    if (!row_ok || n >= a.gemm_n) return;
    const int64_t off = rowoff + n;
    const bool both = n + 1 < a.gemm_n;
    if (partial) {
        float *dst = a.workspace + (int64_t)split * a.gemm_m * a.gemm_n + off;
        if (both && a.vec2) *(float2 *)dst = make_float2(v0, v1);
        else {
            dst[0] = v0;
            if (both) dst[1] = v1;
        }
        return;
    }
    if (both && a.vec2) {
        if (a.out_dtype == IGEMM_DTYPE_F32) *(float2 *)((float *)a.y + off) = make_float2(v0, v1);
        else *(uint32_t *)((uint16_t *)a.y + off) = sm90_pack2(a.out_dtype, v0, v1);
    } else {
        igemm_store_out(a.y, off, a.out_dtype, v0);
        if (both) igemm_store_out(a.y, off + 1, a.out_dtype, v1);
    }
}


/* Residual pair (n, n+1) of output row rowoff/N for the direct-store epilogue (0 outside). */
static __device__ __forceinline__ float2 sm90_res_pair(const igemm_sm90_args_t &a, int64_t rowoff, int64_t n,
                                                       bool row_ok)
{
    float2 r = make_float2(0.0f, 0.0f);
    if (!row_ok || n >= a.gemm_n) return r;
    const int64_t off = rowoff + n;
    if (a.vec2 && n + 1 < a.gemm_n && a.out_dtype != IGEMM_DTYPE_F32)
        return sm90_unpack2(a.out_dtype, __ldg((const unsigned int *)((const uint16_t *)a.residual + off)));
    r.x = igemm_load_out(a.residual, off, a.out_dtype);
    if (n + 1 < a.gemm_n) r.y = igemm_load_out(a.residual, off + 1, a.out_dtype);
    return r;
}

/* Work unit -> tile origin (m0, n0) and k-block range [kb0, kb1). Units are split-major; inside
 * a split, tiles go in groups of group_m M-tiles (all N-tiles of a group, M fastest), so
 * consecutive units share filter tiles and A rows in L2. Divisions by run-time constants use
 * igemm_fastdiv (a few instructions instead of ~40 per '/'). */
template <bool BRES>
static __device__ __forceinline__ void sm90_decode_unit(const igemm_sm90_args_t &a, int unit, int bn,
                                                        int &m0, int &n0, int &kb0, int &kb1)
{
    if constexpr (BRES) { /* unit = c + lap*grid: CTA c, N-tile c % tiles_n, M-tile c / tiles_n + lap *
                        (CTAs of that N-tile); m0 >= M past the CTA's last M-tile (every role stops
                        there: a.num_units = grid * the most laps any CTA takes) */
        const int lap = igemm_fastdiv_div(unit, a.fd_grid);
        const int c = unit - lap * a.fd_grid.d;
        const int cr = igemm_fastdiv_div(c, a.fd_tn);
        const int tn = c - cr * a.tiles_n;
        m0 = (cr + lap * (a.rq + (tn < a.rr ? 1 : 0))) * a.bm;
        n0 = tn * bn;
        kb0 = 0;
        kb1 = a.k_iters;
        return;
    }
    int t = unit, split = 0;
    if (a.splits > 1) {
        split = igemm_fastdiv_div(unit, a.fd_tiles);
        t = unit - split * a.num_tiles;
    }
    const int g = igemm_fastdiv_div(t, a.fd_group);
    const int local = t - g * a.fd_group.d;
    const bool full = g < a.full_groups;
    const int gm = full ? a.fd_gm.d : a.fd_gm_tail.d;
    const int tn = full ? igemm_fastdiv_div(local, a.fd_gm) : igemm_fastdiv_div(local, a.fd_gm_tail);
    const int tm = g * a.group_m + (local - tn * gm);
    m0 = tm * a.bm;
    n0 = tn * bn;
    if (a.splits > 1) { /* split s: k_q + (s < k_r) k-blocks */
        kb0 = split * a.k_q + min(split, a.k_r);
        kb1 = kb0 + a.k_q + (split < a.k_r ? 1 : 0);
    } else {
        kb0 = 0;
        kb1 = a.k_iters;
    }
}

/* The k-block range of cluster rank `rank` in a split-in-cluster plan (SKC): rank 0 the first
 * ceil(k_iters / 2) k-blocks of the tile, rank 1 the rest (k_iters >= 2: both non-empty). */
static __device__ __forceinline__ void sm90_skc_range(const igemm_sm90_args_t &a, int rank, int &kb0, int &kb1)
{
    const int kh = (a.k_iters + 1) >> 1;
    kb0 = rank ? kh : 0;
    kb1 = rank ? a.k_iters : kh;
}

/* Split-in-cluster exchange of one consumer's partial sums (acc: its 64 accumulators, columns
 * 0..63 of the tile = acc[0..31], 64..127 = acc[32..63]): sends the 32 values at SEND (the chunk
 * the partner finishes) by st.async to dst (the partner's receive buffer, thread-major 16 B
 * stores: conflict-free on both sides) counted on xbar there, waits (acquire, cluster scope) on
 * this consumer's barrier wait_bar for the partner's half of the chunk it keeps and adds it from
 * src into acc[KEEP ..]. SEND and KEEP are compile-time so that acc stays in registers. */
/* The filter-base coordinates of output pixel m0 = (nb*P + p0)*Q + q0: image nb, input row h0
 * and column w0 of the box's first pixel (before the tap offsets). */
static __device__ __forceinline__ void sm90_box_origin(const igemm_sm90_args_t &a, int m0, int &nb, int &h0, int &w0)
{
    nb = igemm_fastdiv_div(m0, a.fd_pq);
    const int rem = m0 - nb * a.pq;
    const int p0 = igemm_fastdiv_div(rem, a.fd_q);
    const int q0 = rem - p0 * a.q;
    w0 = q0 * a.stride_w - a.pad_left;
    h0 = p0 * a.stride_h - a.pad_top;
}

/* k-block kb = (r*S + s)*CB + cb: its channel block cb and filter tap (r, s). */
static __device__ __forceinline__ void sm90_kblock_tap(const igemm_sm90_args_t &a, int kb, int &cb, int &r, int &s)
{
    cb = 0, r = 0, s = 0;
    if (kb > 0) {
        cb = kb % a.c_blocks;
        const int rs = kb / a.c_blocks;
        r = rs / a.filter_s;
        s = rs - r * a.filter_s;
    }
}

/* The k-block after (cb, r, s): the next channel block, then the next tap. */
static __device__ __forceinline__ void sm90_kblock_next(const igemm_sm90_args_t &a, int &cb, int &r, int &s)
{
    if (++cb == a.c_blocks) {
        cb = 0;
        if (++s == a.filter_s) {
            s = 0;
            ++r;
        }
    }
}

/* K-blocks of a CTA's first unit [kb0, kb1) that thread 0 issues at set-up (ring of S stages). */
static __device__ __forceinline__ int sm90_early_stages(int S, int kb0, int kb1)
{
    return min(min(S, SM90_EARLY_STAGES), kb1 - kb0);
}

/* Issues k-block (cb, r, s) of the tile at (m0, n0) into ring stage `stage` whose full barrier is
 * fb (the elected producer thread): the stage's expect_tx, its A box (TMA im2col: one filter tap
 * through the instruction's offsets; or the tiled 2-D map of an unpadded 1x1 stride-1 conv) and,
 * where load_b, its filter box: BRES (filter resident) into B slot kb, else into B stage `stage`. */
template <int BN, bool BRES>
static __device__ __forceinline__ void sm90_issue_kblock(const igemm_sm90_args_t &a, const CUtensorMap *tmap_x,
                                                         const CUtensorMap *tmap_w, uint32_t a_smem, uint32_t b_smem,
                                                         uint32_t a_stage, uint32_t fb, int stage, int kb, int cb,
                                                         int r, int s, int m0, int n0, int nb, int h0, int w0,
                                                         bool load_b)
{
    constexpr uint32_t B_STAGE_BYTES = BN * SM90_BK * 2;
    ptx_mbarrier_arrive_expect_tx(fb, a_stage + (load_b ? B_STAGE_BYTES : 0u));
    if (a.a_tiled)
        ptx_cp_async_bulk_tensor_2d_tile(a_smem + (uint32_t)stage * a_stage, tmap_x, fb, cb * SM90_BK, m0);
    else
        ptx_cp_async_bulk_tensor_4d_im2col(a_smem + (uint32_t)stage * a_stage, tmap_x, fb, cb * SM90_BK, w0, h0, nb,
                                           (uint16_t)(s * a.dil_w), (uint16_t)(r * a.dil_h));
    if (load_b)
        ptx_cp_async_bulk_tensor_4d_tile(b_smem + (uint32_t)(BRES ? kb : stage) * B_STAGE_BYTES, tmap_w, fb,
                                         cb * SM90_BK, s, r, n0);
}

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

/* Operand-ring residual stages of the tile at column n0 (a.res_ring == 2, in the kernels that take
 * the residual that way: OPERAND): one per 64-column chunk that starts inside N; 0 in every other
 * mode. Producer and consumers both count with it. */
template <int BN, bool OPERAND>
static __device__ __forceinline__ int sm90_res_chunks(const igemm_sm90_args_t &a, int n0)
{
    if (!OPERAND || a.res_ring != 2) return 0;
    const int64_t left = a.gemm_n - n0;
    const int64_t c = (left + SM90_EPI_COLS - 1) / SM90_EPI_COLS;
    return c < BN / SM90_EPI_COLS ? (int)c : BN / SM90_EPI_COLS;
}

/* Per-column factors of one 64-column epilogue chunk for this lane: as = alpha*scale, bi = bias
 * at columns nc + 8jj, nc + 8jj + 1 (nc: the chunk's first column + 2*(lane%4)); float2 loads
 * where the chunk ends inside N (chunk_end <= N) and the vectors are 8-byte aligned, clamped
 * scalar loads otherwise (a chunk past N loads column N - 1: harmless, unused). */
static __device__ __forceinline__ void sm90_chunk_factors(const igemm_sm90_args_t &a, int64_t nc, int64_t chunk_end,
                                                          float2 (&as)[8], float2 (&bi)[8])
{
    const bool whole = a.sb_vec2 && chunk_end <= a.gemm_n;
#pragma unroll
    for (int jj = 0; jj < 8; jj++) {
        as[jj] = make_float2(a.alpha, a.alpha);
        bi[jj] = make_float2(0.0f, 0.0f);
    }
    if (a.has_scale) {
        if (whole) {
#pragma unroll
            for (int jj = 0; jj < 8; jj++) {
                const float2 sc = __ldg((const float2 *)(a.scale + nc + 8 * jj));
                as[jj] = make_float2(a.alpha * sc.x, a.alpha * sc.y);
            }
        } else {
#pragma unroll
            for (int jj = 0; jj < 8; jj++) {
                const int64_t n = nc + 8 * jj;
                as[jj] = make_float2(a.alpha * __ldg(a.scale + (n < a.gemm_n ? n : a.gemm_n - 1)),
                                     a.alpha * __ldg(a.scale + (n + 1 < a.gemm_n ? n + 1 : a.gemm_n - 1)));
            }
        }
    }
    if (a.has_bias) {
        if (whole) {
#pragma unroll
            for (int jj = 0; jj < 8; jj++) bi[jj] = __ldg((const float2 *)(a.bias + nc + 8 * jj));
        } else {
#pragma unroll
            for (int jj = 0; jj < 8; jj++) {
                const int64_t n = nc + 8 * jj;
                bi[jj] = make_float2(__ldg(a.bias + (n < a.gemm_n ? n : a.gemm_n - 1)),
                                     __ldg(a.bias + (n + 1 < a.gemm_n ? n + 1 : a.gemm_n - 1)));
            }
        }
    }
}

/* The residual of sm90_pixn_blocks' NB = 2 (or 1) 8-pixel blocks: ldmatrix .trans from rbox
 * (.x4, or .x2 with lanes 0-15 addressing) into rr[0 .. 2NB). Issued for all of a tile's blocks
 * before the first block's arithmetic, so that their shared-memory latency overlaps (one block
 * pair at a time, each unpack waited on its own load: docs/perf.md S15-8). */
template <int NB>
static __device__ __forceinline__ void sm90_pixn_residual(uint32_t *rr, uint32_t rbox)
{
    static_assert(NB == 1 || NB == 2, "one or two 8-pixel blocks");
    if constexpr (NB == 2) ldmatrix_sync_aligned_m8n8_x4_trans_b16(rr, rbox);
    else ldmatrix_sync_aligned_m8n8_x2_trans_b16(rr, rbox);
}

/* Pixels-as-N epilogue of NB = 2 (or 1) 8-pixel blocks of this thread's two channels (h = 0, 1):
 * v[4q + 2h + e] is pixel block q, channel half h. The linear part (as/bi: the channels'
 * alpha*scale and bias; alpha alone without GENERAL), + beta * the residual rr (has_res: loaded
 * by sm90_pixn_residual), an out-of-line activation (ReLU goes on the packed pairs), then
 * stmatrix .trans to box (.x4 for two blocks, .x2 for one: lanes 0-15 address it). Matrix m
 * of the .x4 forms is (h = m & 1, block m >> 1). */
template <int DT, int NB, bool GENERAL, bool ACT_ANY>
static __device__ __forceinline__ void sm90_pixn_blocks(const igemm_sm90_args_t &a, float *v, uint32_t box,
                                                        const uint32_t *rr, bool has_res, float as0, float bi0,
                                                        float as1, float bi1)
{
    static_assert(NB == 1 || NB == 2, "one or two 8-pixel blocks");
    if (GENERAL) {
#pragma unroll
        for (int q = 0; q < NB; q++) {
            v[4 * q] = fmaf(v[4 * q], as0, bi0);
            v[4 * q + 1] = fmaf(v[4 * q + 1], as0, bi0);
            v[4 * q + 2] = fmaf(v[4 * q + 2], as1, bi1);
            v[4 * q + 3] = fmaf(v[4 * q + 3], as1, bi1);
        }
        if (has_res) {
#pragma unroll
            for (int m = 0; m < 2 * NB; m++) {
                const float2 r2 = sm90_unpack2(DT, rr[m]);
                const int j = 4 * (m >> 1) + 2 * (m & 1);
                v[j] = fmaf(a.beta, r2.x, v[j]);
                v[j + 1] = fmaf(a.beta, r2.y, v[j + 1]);
            }
        }
        /* ReLU: on the packed pairs below */
        if (a.act != IGEMM_ACT_NONE && ACT_ANY && a.act != IGEMM_ACT_RELU) {
#pragma unroll
            for (int e = 0; e < 4 * NB; e++) v[e] = sm90_act_slow(a.act, v[e], a.act_param);
        }
    } else {
#pragma unroll
        for (int e = 0; e < 4 * NB; e++) v[e] *= a.alpha;
    }
    const bool relu = GENERAL && a.act == IGEMM_ACT_RELU;
    if constexpr (NB == 2)
        stmatrix_sync_aligned_m8n8_x4_trans_b16(box, sm90_pack2_relu<DT>(v[0], v[1], relu),
                                                sm90_pack2_relu<DT>(v[2], v[3], relu),
                                                sm90_pack2_relu<DT>(v[4], v[5], relu),
                                                sm90_pack2_relu<DT>(v[6], v[7], relu));
    else
        stmatrix_sync_aligned_m8n8_x2_trans_b16(box, sm90_pack2_relu<DT>(v[0], v[1], relu),
                                                sm90_pack2_relu<DT>(v[2], v[3], relu));
}

/* The pixels-as-N epilogue of a whole tile (TP pixels x this warpgroup's 64 channels; v = the
 * m64nTPk16 accumulators): the residual (has_res: a TP x 64 box at rbox, 128B-swizzled) read by
 * ldmatrix for every block pair at once, so their latency overlaps, then sm90_pixn_blocks per pair
 * of 8-pixel blocks (and the last block alone when TP = 16 j + 8) into the staging box at box,
 * rows = pixels, 128B-swizzled as the TMA store expects. Each warp reads and then overwrites only
 * its own 16 channels (box == rbox is fine). */
template <int DT, int TP, bool GENERAL, bool ACT_ANY>
static __device__ __forceinline__ void sm90_pixn_tile(const igemm_sm90_args_t &a, float *v, uint32_t box,
                                                      uint32_t rbox, bool has_res, int warp, int lane, float as0,
                                                      float bi0, float as1, float bi1)
{
    const uint32_t mi = (uint32_t)lane >> 3, li = (uint32_t)lane & 7u;
    const uint32_t chunk = ((2u * (uint32_t)warp + (mi & 1u)) ^ li) << 4;
    constexpr int JL = TP / 8 - 1; /* TP = 16 j + 8: the last 8-pixel block alone (lanes 0-15) */
    const uint32_t off_tail = (uint32_t)(8 * JL + (int)li) * 128u + chunk;
    uint32_t rres[TP / 16 + 1][4];
    if (GENERAL && has_res) {
#pragma unroll
        for (int jp = 0; jp < TP / 16; jp++)
            sm90_pixn_residual<2>(rres[jp], rbox + (uint32_t)(16 * jp + 8 * (int)(mi >> 1) + (int)li) * 128u + chunk);
        if constexpr (TP % 16 == 8) sm90_pixn_residual<1>(rres[TP / 16], rbox + off_tail);
    }
#pragma unroll
    for (int jp = 0; jp < TP / 16; jp++) {
        const uint32_t off = (uint32_t)(16 * jp + 8 * (int)(mi >> 1) + (int)li) * 128u + chunk;
        /* v[4q + 2h + e]: pixel block 2jp + q, half h */
        sm90_pixn_blocks<DT, 2, GENERAL, ACT_ANY>(a, &v[8 * jp], box + off, rres[jp], has_res, as0, bi0, as1, bi1);
    }
    if constexpr (TP % 16 == 8)
        sm90_pixn_blocks<DT, 1, GENERAL, ACT_ANY>(a, &v[4 * JL], box + off_tail, rres[TP / 16], has_res, as0, bi0, as1,
                                                  bi1);
}

/* Consumer warp's release of stage `stage` (by its lane 0: leader): an arrival on the stage's
 * empty barrier. Predicated, not branched: a branch here put a BSSY/BSYNC reconvergence pair in
 * the mainloop and cost the 128x64 tiles 6-9%. */
static __device__ __forceinline__ void sm90_release_stage(uint32_t empty_bar, int stage, bool leader)
{
    ptx_mbarrier_arrive_pred(empty_bar + 8u * (uint32_t)stage, leader);
}

/* 0 (zero must be a run-time 0), computed from v: a release predicated on it is issued only once
 * the ldmatrix that wrote v has returned its data. The operand-ring residual stage is released
 * right after its ldmatrix reads; predicated on the arrival alone, the release could overtake
 * reads still in flight, and the producer's next TMA into the stage then raced them (ping-pong
 * plans with the residual through the operand ring: 17 of 60 stress checks wrong, H200 S8-3;
 * there the producer is typically blocked on exactly that stage). */
static __device__ __forceinline__ uint32_t sm90_zero_after(uint32_t v, uint32_t acc, uint32_t zero)
{
    uint32_t r;
    asm volatile("{\n\t.reg .b32 t;\n\txor.b32 t, %1, %2;\n\tand.b32 %0, t, %3;\n\t}"
                 : "=r"(r)
                 : "r"(v), "r"(acc), "r"(zero));
    return r;
}

/* Residual producer of the epilogue-ring path (a.res_ring == 1; warp 1, one elected lane issuing): the residual box
 * of every epilogue chunk, in the consumers' order, into the chunk's ring slot once the store of
 * the slot's previous chunk has read it (up to ES - 1 ahead). Out of line: inlined next to the
 * A/B producer, it moved that loop off the uniform datapath (R2UR inside the elect loop before
 * every TMA of the fused instances: 7-10% slower on the fused one-wave layers, docs/perf.md S6-3). */
template <int BN, int WM, int NC, bool PP, bool BRES, int TP, bool SKC>
static __device__ __noinline__ void sm90_residual_producer(const igemm_sm90_args_t &a, const CUtensorMap *tmap_r,
                                                           uint32_t epi_smem, uint32_t rfull_bar, uint32_t rempty_bar,
                                                           int ES, int unit0, int unit_step, int rank)
{
    constexpr int NCH = BN / SM90_EPI_COLS;
    /* a box: 64 rows x 64 columns, or with pixels as N (ping-pong, BN = 64) the tile's TP pixel rows */
    constexpr int RROWS = TP > 0 ? TP : 64;
    constexpr uint32_t RBOX = TP > 0 ? (uint32_t)TP * 128u : SM90_EPI_BUF_BYTES;
    static_assert(TP == 0 || (PP && WM == 1 && (NC == 2 || NC == 3)), "pixels-as-N residual boxes: ping-pong instances only");

    /* ------------------------------------------------- residual producer: the residual
     * box of every epilogue chunk, in the consumers' order, into the chunk's ring slot
     * once the store of the slot's previous chunk has read it (up to ES - 1 ahead) */
    const bool leader = ptx_elect_one_sync(); /* the whole warp loops; one lane issues */
    if (leader) ptx_prefetch_tensormap(tmap_r);
    int slot = 0;
    uint32_t phase = 0;
    int slot1 = 0, slot2 = 0; /* ping-pong: consumers 1 and 2's ring positions (slot/phase: consumer 0's) */
    uint32_t phase1 = 0, phase2 = 0;
    for (int unit = unit0, j = 0; unit < a.num_units; unit += unit_step, j++) {
        int m0, n0, kb0, kb1;
        sm90_decode_unit<BRES>(a, unit, BN, m0, n0, kb0, kb1);
        if (BRES && m0 >= a.gemm_m) break; /* past this CTA's last tile */
        if (PP) { /* the whole tile's boxes go to its consumer's ring (consumer j % NC), in its order */
            /* (NC = 2 keeps its original two-way form: the general three-way selection changed the
             * SASS of every two-consumer instance, which were measured as they are) */
            const int c = NC == 2 ? (j & 1) : j % NC;
            int sl;
            uint32_t ph;
            if constexpr (NC == 2) {
                sl = c ? slot1 : slot;
                ph = c ? phase1 : phase;
            } else {
                sl = c == 0 ? slot : c == 1 ? slot1 : slot2;
                ph = c == 0 ? phase : c == 1 ? phase1 : phase2;
            }
            for (int ch = 0; ch < NCH; ch++) {
                if ((int64_t)n0 + ch * SM90_EPI_COLS >= a.gemm_n) break;
                for (int i = 0; i < WM; i++) {
                    const uint32_t idx = (uint32_t)(c * SM90_MAX_EPI_SLOTS + sl);
                    ptx_mbarrier_wait_parity(rempty_bar + 8u * idx, ph ^ 1u);
                    if (leader) {
                        ptx_mbarrier_arrive_expect_tx(rfull_bar + 8u * idx, RBOX);
                        ptx_cp_async_bulk_tensor_2d_tile(epi_smem + (uint32_t)(c * ES + sl) * RBOX, tmap_r,
                                                         rfull_bar + 8u * idx, n0 + ch * SM90_EPI_COLS,
                                                         m0 + RROWS * i);
                    }
                    if (++sl == ES) {
                        sl = 0;
                        ph ^= 1u;
                    }
                }
            }
            if constexpr (NC == 2) {
                if (c) slot1 = sl, phase1 = ph;
                else slot = sl, phase = ph;
            } else {
                if (c == 0) slot = sl, phase = ph;
                else if (c == 1) slot1 = sl, phase1 = ph;
                else slot2 = sl, phase2 = ph;
            }
        } else {
            for (int ch = 0; ch < NCH; ch++) {
                if ((int64_t)n0 + ch * SM90_EPI_COLS >= a.gemm_n) break;
                if (SKC && ch != rank) continue; /* split in cluster: the partner finishes that chunk */
                for (int i = 0; i < WM; i++) {
                    for (int c = 0; c < NC; c++) {
                        const uint32_t idx = (uint32_t)(c * SM90_MAX_EPI_SLOTS + slot);
                        ptx_mbarrier_wait_parity(rempty_bar + 8u * idx, phase ^ 1u);
                        if (leader) {
                            ptx_mbarrier_arrive_expect_tx(rfull_bar + 8u * idx, SM90_EPI_BUF_BYTES);
                            ptx_cp_async_bulk_tensor_2d_tile(epi_smem + (uint32_t)(c * ES + slot) * SM90_EPI_BUF_BYTES,
                                                             tmap_r, rfull_bar + 8u * idx, n0 + ch * SM90_EPI_COLS,
                                                             m0 + 64 * (WM * c + i));
                        }
                    }
                    if (++slot == ES) {
                        slot = 0;
                        phase ^= 1u;
                    }
                }
            }
        }
    }
}

/* The persistent warp-specialised kernel.
 *   DT: input dtype (F16/BF16); BN: 64, 128 or 256 columns per tile; WM: 64-row blocks per
 *   consumer; NC: consumer warpgroups (2, or 3 with WM = 1: 512 threads, 128 registers at
 *   compile time); tile rows BM = 64 * WM * NC (WM = 2 only with BN <= 128, the accumulators
 *   are WM * BN / 2 registers); EPI: 0 y = alpha * acc, 1 scale/bias/residual with no activation
 *   or ReLU, 2 the same with any activation (the others out of line: rarely used code kept out
 *   of the instances that run the common epilogues, measured to slow them); TMA_EPI: y (of the input dtype DT, k % 8 == 0) is written by TMA stores from swizzled
 *   staging boxes, else by direct pair stores (f32 y, other k, split-K partials).
 * Warp roles (each producer a whole warp, one elected lane issuing): warp 0 loads A/B (ring of
 * a.stages) and, with a.res_ring == 2, each tile's residual chunks into the same ring after its
 * k-blocks; warp 1 (a.res_ring == 1) loads residual boxes into the consumers' epilogue rings of
 * a.epi_slots boxes; warpgroups 1 .. NC are the consumers.
 *   TP > 0: pixels as N (TP pixels x 128 channels per tile; see conv2d_fprop.cu). */
template <int DT, int BN, int WM, int EPI, bool TMA_EPI, int NC, bool PP = false, int TP = 0, bool BRES = false,
          bool SKC = false, bool HALO = false, int HROWS = 1>
__global__ void __launch_bounds__(SM90_THREADS(NC), 1)
    igemm_sm90_conv2d_fprop_kernel(const __grid_constant__ CUtensorMap tmap_x,
                                   const __grid_constant__ CUtensorMap tmap_w,
                                   const __grid_constant__ CUtensorMap tmap_y,
                                   const __grid_constant__ CUtensorMap tmap_r,
                                   const __grid_constant__ igemm_sm90_args_t a)
{
    constexpr uint32_t B_STAGE_BYTES = BN * SM90_BK * 2;
    constexpr int TILE_WG = PP ? 1 : NC; /* consumer warpgroups per tile (ping-pong: one) */
    /* pixels as N (TP > 0): a tile of TP pixels x BN = 128 channels, the A stage holds TP pixel
     * rows, and each consumer multiplies its 64 filter rows (wgmma A) by them (wgmma N = TP) */
    static_assert(TP == 0 || (WM == 1 && (NC == 2 || (HALO && NC == 3)) && TMA_EPI && (TP % 16 == 0 || (HALO && TP % 8 == 0)) &&
                              ((BN == 128 && !PP) || (BN == 64 && PP))),
                  "pixels-as-N instances: 2 consumers (the halo-row instances also 3 in turn), TP a multiple of 16 "
                  "(pairs of 8-pixel blocks; the halo-row instances also TP = 16 j + 8, the last block alone), and "
                  "either 128 channels (each consumer 64 of them) or, ping-pong, 64 channels (each consumer a whole tile)");
    static_assert(!SKC || (BN == 128 && WM == 1 && NC == 2 && !PP && TP == 0 && !BRES && TMA_EPI),
                  "split-in-cluster instances: 128 x 128 cooperative tiles (two 64-row consumers), TMA stores");
    /* halo rows (HALO): a 3x3, stride-1, pad-1 conv of 64 channels, tiles of TP pixels of one
     * image row; a stage holds one input row of the tile with its halo (TP + 2 pixels x 64
     * channels, zero-filled past the image by the TMA), and the taps (r, 0..2) read it as the
     * wgmma B operand shifted by 0, 1, 2 pixel rows (128 B each: any row start works with the
     * 128B swizzle and descriptor base offset 0, tools/wgmma_shift_probe.cu). 3 stages per tile
     * instead of 9 im2col k-blocks; the 9 filter taps resident (BRES). */
    static_assert(!HALO || (PP && BRES && TP > 0 && BN == 64 && !SKC),
                  "halo-row instances: pixels-as-N ping-pong, filter resident, 64 channels");
    /* HROWS = 2: a tile is two whole output rows of HW = TP / 2 pixels (consecutive in M, so the
     * epilogue is the TP-pixel one). Its 4 input rows (HW + 2 pixels each) are one stage each;
     * output row o takes filter row r from input row o + r, each (o, tap) one m64nHWk16 into
     * accumulator columns HW*o .. (the m64nHWk16 fragments of the two rows side by side are the
     * m64nTPk16 fragment) */
    static_assert(HROWS == 1 || (HALO && HROWS == 2 && TP % 16 == 0), "two-row halo tiles: HALO, TP = 2 x a multiple of 8");
    constexpr int HW = TP / HROWS;     /* halo instances: output pixels per row of the tile */
    constexpr int HSTAGES = HROWS + 2; /* halo instances: input rows (stages) per tile */
    /* split in cluster: the bytes of one consumer's fp32 partial chunk (64 x 64), sent to the partner */
    constexpr uint32_t SKC_BYTES = 64u * SM90_EPI_COLS * 4u;
    constexpr uint32_t HALO_BYTES = (uint32_t)(HW + 2) * 128u; /* one halo row: HW + 2 pixels x 128 B */
    constexpr uint32_t A_STAGE = HALO ? SM90_HALO_STAGE_BYTES(HW)
                                 : TP > 0 ? (uint32_t)TP * SM90_BK * 2 : 64u * WM * TILE_WG * SM90_BK * 2;
    constexpr uint32_t EBOX = TP > 0 ? (uint32_t)TP * 128u : SM90_EPI_BUF_BYTES; /* staging box bytes */
    constexpr int ACCN = TP > 0 ? TP : BN; /* accumulator columns (wgmma N) */
    constexpr int NCH = BN / SM90_EPI_COLS;               /* 64-column epilogue chunks */
    constexpr bool GENERAL = EPI > 0;  /* scale/bias/residual/activation (else y = alpha * acc) */
    constexpr bool ACT_ANY = EPI == 2; /* activations besides ReLU (out of line): EPI 1 has none/ReLU only */
    /* a TMA-loaded residual comes through the operand ring (res_ring 2) in the cooperative and
     * pixels-as-N kernels, through the epilogue ring (res_ring 1) in the ping-pong and
     * split-in-cluster ones */
    constexpr bool RES_OPERAND = !PP && !SKC;
    constexpr bool RES_STAGING = PP || SKC;
    extern __shared__ __align__(1024) uint8_t smem_raw[];

    /* carve the aligned dynamic shared memory (layout: conv2d_fprop.cu header comment) */
    const int S = a.stages;
    const int ES = a.epi_slots;
    const uint32_t raw = ptx_cvta_to_shared(smem_raw);
    const uint32_t base = (raw + 1023u) & ~1023u;
    const uint32_t a_smem = base;
    const uint32_t b_smem = base + (uint32_t)S * A_STAGE;
    /* B: S ring stages, or filter-resident (BRES) one slot per k-block of the tile */
    const uint32_t epi_smem = b_smem + (uint32_t)(BRES ? a.k_iters : S) * B_STAGE_BYTES; /* multiple of 1024 */
    const uint32_t full_bar = epi_smem + (uint32_t)NC * (uint32_t)ES * EBOX; /* full[i] = + 8 i */
    const uint32_t empty_bar = full_bar + 8u * (uint32_t)S;
    const uint32_t rfull_bar = empty_bar + 8u * (uint32_t)S;      /* [consumer][slot] */
    const uint32_t rempty_bar = rfull_bar + 8u * NC * SM90_MAX_EPI_SLOTS; /* [consumer][slot] */
    const uint32_t order_bar = rempty_bar + 8u * NC * SM90_MAX_EPI_SLOTS; /* ping-pong: [consumer] */

    /* split in cluster (SKC): clusters of CM = 2 CTAs along x, CTAs 2c and 2c + 1 form cluster c
     * (rank = %cluster_ctarank = blockIdx.x % 2). Computed from blockIdx/gridDim rather than read
     * from %cluster_ctarank / %clusterid by asm, whose results the compiler cannot treat as
     * warp-uniform (the producer loop must stay on the uniform datapath) */
    constexpr int CM = SKC ? 2 : 1;
    const int cshift = CM > 1 ? 1 : 0;
    const int rank = (int)blockIdx.x & (CM - 1);
    const int unit0 = (int)(blockIdx.x >> cshift), unit_step = (int)(gridDim.x >> cshift);
    /* thread 0 issues the first unit's first stages at set-up (not with the halo rows, whose
     * producer loads whole input rows) */
    const bool early = !HALO;

    if (threadIdx.x == 0) {
        /* descriptor fetches first: they overlap the barrier set-up */
        ptx_prefetch_tensormap(&tmap_x);
        ptx_prefetch_tensormap(&tmap_w);
        /* the first unit (the early stages below): decoded before the barrier set-up, so that
         * its parameter reads (each new constant line ~0.05-0.08 us, S13-1) overlap it */
        int m0 = 0, n0 = 0, kb0 = 0, kb1 = 0, nb = 0, h0 = 0, w0 = 0, cb = 0, r = 0, s = 0;
        if (early) {
            sm90_decode_unit<BRES>(a, unit0, BN, m0, n0, kb0, kb1);
            if (SKC) sm90_skc_range(a, rank, kb0, kb1);
            sm90_box_origin(a, m0, nb, h0, w0);
            sm90_kblock_tap(a, kb0, cb, r, s);
        }
        for (int i = 0; i < S; i++) {
            ptx_mbarrier_init(full_bar + 8u * i, 1u);
            /* a stage is free once every consumer warp of the tile has released it */
            ptx_mbarrier_init(empty_bar + 8u * i, SM90_CONSUMER_ARRIVALS(TILE_WG));
        }
        for (int c = 0; c < NC; c++)
            for (int i = 0; i < ES; i++) {
                ptx_mbarrier_init(rfull_bar + 8u * (uint32_t)(c * SM90_MAX_EPI_SLOTS + i), 1);
                ptx_mbarrier_init(rempty_bar + 8u * (uint32_t)(c * SM90_MAX_EPI_SLOTS + i), 1);
            }
        if (PP) /* consumer c may start a mainloop once the one before it has passed its previous one */
            for (int c = 0; c < NC; c++) ptx_mbarrier_init(order_bar + 8u * (uint32_t)c, 1);
        if (SKC) /* (the order barriers' place) consumer c's partner chunk: SKC_BYTES by st.async */
            for (int c = 0; c < NC; c++) {
                ptx_mbarrier_init(order_bar + 8u * (uint32_t)c, 1);
                ptx_mbarrier_arrive_expect_tx(order_bar + 8u * (uint32_t)c, SKC_BYTES);
            }
        ptx_fence_mbarrier_init_release_cluster();
        if (early && unit0 < a.num_units) {
            /* the first unit's first SM90_EARLY_STAGES stages, issued now rather than by the
             * producer loop after the __syncthreads, the producer's setmaxnreg and its own decode
             * of the unit (docs/perf.md S13-3: the first load leaves at 0.54 us, not 0.93). The
             * loop skips them. The trigger and the wait as below: no global access before the wait. */
            ptx_griddepcontrol_launch_dependents();
            ptx_griddepcontrol_wait();
            if (!BRES || m0 < a.gemm_m) {
                const int pre = sm90_early_stages(S, kb0, kb1);
                for (int i = 0; i < pre; i++) {
                    sm90_issue_kblock<BN, BRES>(a, &tmap_x, &tmap_w, a_smem, b_smem, A_STAGE, full_bar + 8u * i, i,
                                                kb0 + i, cb, r, s, m0, n0, nb, h0, w0, true);
                    sm90_kblock_next(a, cb, r, s);
                }
            }
        }
    }
    if (CM > 1) { /* the partner's barriers exist before any remote arrival */
        ptx_barrier_cluster_arrive_relaxed();
        ptx_barrier_cluster_wait_acquire();
    } else {
        __syncthreads();
    }
    /* programmatic dependent launch (cfg->pdl: launched with programmatic stream serialization;
     * without it both are no-ops): the set-up above may overlap the previous kernel of the stream; every
     * global access comes after the wait, which returns once that kernel has completed and its
     * writes are visible. The trigger lets the next kernel (if launched the same way) be
     * scheduled now: its CTAs take SMs as this grid's CTAs exit, run their set-up, and wait. */
    ptx_griddepcontrol_launch_dependents();
    ptx_griddepcontrol_wait();

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        ptx_setmaxnreg_dec<SM90_PRODUCER_REGS>();
        /* producer roles by warp, with warp-uniform control flow: the whole warp runs the loop
         * (so its values stay on the uniform datapath) and the elected lane issues each
         * arrival and TMA. (Single-thread producer branches left the loop's coordinates in
         * vector registers in the fused instances, R2UR before every TMA inside the elect
         * loop: the fused one-wave layers ran 7-10% slower than now, docs/perf.md S6-3.) */
        const int pwarp = __shfl_sync(0xffffffffu, (int)(threadIdx.x >> 5), 0);
        if (pwarp == 0) {
            /* ------------------------------------------------------- A/B producer */
            const bool leader = ptx_elect_one_sync();
            if (RES_OPERAND && TMA_EPI && GENERAL && a.res_ring == 2 && leader) ptx_prefetch_tensormap(&tmap_r);
            int stage = 0;
            uint32_t phase = 0;
            for (int unit = unit0, j = 0; unit < a.num_units; unit += unit_step, j++) {
                int m0, n0, kb0, kb1;
                sm90_decode_unit<BRES>(a, unit, BN, m0, n0, kb0, kb1);
                if (SKC) sm90_skc_range(a, rank, kb0, kb1);
                if (BRES && m0 >= a.gemm_m) break; /* past this CTA's last tile */
                /* filter-resident plans load the B slots with the CTA's first tile only (its
                 * N-tile never changes; sm90_decode_unit) */
                const bool load_b = !BRES || j == 0;
                int nb, h0, w0;
                sm90_box_origin(a, m0, nb, h0, w0);
                if constexpr (HALO) {
                    /* the tile's HROWS + 2 input rows with their halo (w0 = q0 - 1, h0 = p0 - 1),
                     * and with the first tile the filter taps (r, 0..2) into their resident slots
                     * along with input row r */
                    for (int r = 0; r < HSTAGES; r++) {
                        const uint32_t fb = full_bar + 8u * stage;
                        ptx_mbarrier_wait_parity(empty_bar + 8u * stage, phase ^ 1u);
                        const bool taps = load_b && r < 3;
                        if (leader) {
                            ptx_mbarrier_arrive_expect_tx(fb, HALO_BYTES + (taps ? 3u * B_STAGE_BYTES : 0u));
                            ptx_cp_async_bulk_tensor_4d_tile(a_smem + (uint32_t)stage * A_STAGE, &tmap_x, fb, 0, w0,
                                                             h0 + r, nb);
                            if (taps)
                                for (int s = 0; s < 3; s++)
                                    ptx_cp_async_bulk_tensor_4d_tile(b_smem + (uint32_t)(3 * r + s) * B_STAGE_BYTES,
                                                                     &tmap_w, fb, 0, s, r, n0);
                        }
                        if (++stage == S) {
                            stage = 0;
                            phase ^= 1u;
                        }
                    }
                    continue;
                }
                /* the first unit's first k-blocks (SM90_EARLY_STAGES) left from thread 0 at set-up */
                int kbs = kb0;
                if (early && j == 0) {
                    const int pre = sm90_early_stages(S, kb0, kb1);
                    kbs += pre;
                    stage = pre == S ? 0 : pre;
                    phase = pre == S ? 1u : 0u;
                }
                int cb, r, s;
                sm90_kblock_tap(a, kbs, cb, r, s);
                for (int kb = kbs; kb < kb1; kb++) {
                    const uint32_t fb = full_bar + 8u * stage;
                    ptx_mbarrier_wait_parity(empty_bar + 8u * stage, phase ^ 1u); /* slot free (cluster-wide) */
                    if (leader) {
                        sm90_issue_kblock<BN, BRES>(a, &tmap_x, &tmap_w, a_smem, b_smem, A_STAGE, fb, stage, kb, cb, r,
                                                    s, m0, n0, nb, h0, w0, load_b);
                    }
                    sm90_kblock_next(a, cb, r, s);
                    if (++stage == S) {
                        stage = 0;
                        phase ^= 1u;
                    }
                }
                if (RES_OPERAND && TMA_EPI && GENERAL && a.res_ring == 2) {
                    /* operand-ring residual: one stage per 64-column chunk, its A part (BM x
                     * 128 B) filled with the chunk's residual rows m0 .. m0 + BM - 1 as 64 x 64
                     * boxes (rows past M zero-filled) */
                    const int nres = sm90_res_chunks<BN, RES_OPERAND>(a, n0);
                    for (int ch = 0; ch < nres; ch++) {
                        const uint32_t fb = full_bar + 8u * stage;
                        ptx_mbarrier_wait_parity(empty_bar + 8u * stage, phase ^ 1u);
                        if (leader) { /* 64-row boxes; with TP > 0 one box of TP rows (the maps' box) */
                            constexpr int RROWS = TP > 0 ? TP : 64;
                            ptx_mbarrier_arrive_expect_tx(fb, A_STAGE);
#pragma unroll
                            for (int b = 0; b < (int)(A_STAGE / (RROWS * 128u)); b++)
                                ptx_cp_async_bulk_tensor_2d_tile(a_smem + (uint32_t)stage * A_STAGE +
                                                                     (uint32_t)(b * RROWS * 128),
                                                                 &tmap_r, fb, n0 + ch * SM90_EPI_COLS, m0 + RROWS * b);
                        }
                        if (++stage == S) {
                            stage = 0;
                            phase ^= 1u;
                        }
                    }
                }
            }
        } else if (RES_STAGING && TMA_EPI && GENERAL && pwarp == 1 && a.res_ring == 1) {
            if constexpr (TP == 0 || PP) /* (the 128-channel pixels-as-N plans take mode 2 only) */
                sm90_residual_producer<BN, WM, NC, PP, BRES, TP, SKC>(a, &tmap_r, epi_smem, rfull_bar, rempty_bar, ES,
                                                                 unit0, unit_step, rank);
        }
        /* no cluster barrier here: barrier.cluster.wait counts the cluster's non-exited threads,
         * and the consumers' final one keeps the CTA alive while the partner may still arrive
         * on its barriers. (A common exit path for all of warpgroup 0 made the compiler
         * reconverge around the producer loop and move it off the uniform datapath: R2UR
         * before every TMA, 128x64 tiles 8-12% slower.) */
        return;
    }

    /* -------------------------------------------------------------------- consumers */
    ptx_setmaxnreg_inc<SM90_CONSUMER_REGS(NC)>();
    const int cw = wg - 1;                  /* consumer index: rows 64*WM*cw .. of the tile */
    const int tid = threadIdx.x - 128 * wg; /* 0..127 inside the warpgroup */
    const int warp = tid >> 5;
    const int lane = tid & 31;
    const bool partial = a.splits > 1;
    const bool res_ring = RES_STAGING && TMA_EPI && GENERAL && a.res_ring == 1; /* epilogue-ring residual */
    /* this consumer's ring of ES 8 KB boxes (64 rows x 128 B, 128B-swizzled like TMA expects) */
    const uint32_t my_epi = epi_smem + (uint32_t)cw * (uint32_t)ES * EBOX;
    const uint32_t my_rfull = rfull_bar + 8u * SM90_MAX_EPI_SLOTS * (uint32_t)cw;
    const uint32_t my_rempty = rempty_bar + 8u * SM90_MAX_EPI_SLOTS * (uint32_t)cw;
    int eslot = 0, prev_eslot = -1; /* ring slot of this chunk, of the previous chunk */
    uint32_t ephase = 0;
    if (TMA_EPI && tid == 0) ptx_prefetch_tensormap(&tmap_y);
    /* stmatrix/ldmatrix row address of this lane inside a 64 x 64 swizzled box, for the
     * 16-byte column pair jp: matrix mi = lane/8 is (row half h = mi & 1, column block
     * 2jp + (mi >> 1)); row = 16*warp + 8h + lane%8; swizzled 16 B chunk = (2jp + (mi>>1)) ^ (row%8) */
    const uint32_t lrow = (uint32_t)(warp * 16 + 8 * ((lane >> 3) & 1) + (lane & 7));
    const uint32_t lane_box = lrow * 128u + ((((uint32_t)lane >> 4) ^ ((uint32_t)lane & 7u)) << 4);

    float acc[WM][ACCN / 2];
#pragma unroll
    for (int i = 0; i < WM; i++)
#pragma unroll
        for (int j = 0; j < ACCN / 2; j++) acc[i][j] = 0.0f;

    int stage = 0;
    uint32_t phase = 0;
    int own = 0; /* ping-pong: this consumer's tiles so far */
    for (int unit = unit0, j = 0; unit < a.num_units; unit += unit_step, j++) {
        int m0, n0, kb0, kb1;
        sm90_decode_unit<BRES>(a, unit, BN, m0, n0, kb0, kb1);
        if (SKC) sm90_skc_range(a, rank, kb0, kb1);
        if (BRES && m0 >= a.gemm_m) break; /* past this CTA's last tile */
        const int nk = HALO ? HSTAGES : kb1 - kb0; /* stages of the tile: k-blocks (>= 1: configure() keeps
                                                       every split non-empty), or halo rows */
        const int nres = TMA_EPI && GENERAL ? sm90_res_chunks<BN, RES_OPERAND>(a, n0) : 0; /* operand-ring residual stages */
        /* ping-pong: the consumers take the tiles in turn, tile j to consumer j % NC */
        if (PP && (NC == 2 ? (j & 1) : j % NC) != cw) { /* another consumer's tile: skip its nk + nres stages */
            const int adv = stage + nk + nres;
            stage = adv % S;
            phase ^= (uint32_t)((adv / S) & 1);
            continue;
        }
        const int row0 = PP ? 0 : 64 * WM * cw; /* this consumer's first row inside the tile */
        if (PP && ((NC == 2 ? cw == 1 : cw > 0) || own > 0)) {
            /* mainloops in turn: wait until the consumer before this one has passed every full
             * barrier of the preceding tile, so that no wait here can alias a stage's earlier
             * phase (one parity bit tells only adjacent phases apart) */
            ptx_mbarrier_wait_parity(order_bar + 8u * (uint32_t)cw,
                                     (uint32_t)(((NC == 2 ? cw == 1 : cw > 0) ? own : own - 1) & 1));
        }
        const int split = partial ? igemm_fastdiv_div(unit, a.fd_tiles) : 0;
        if (GENERAL && !partial && tid < BN / 32) { /* the tile's scale/bias lines into L1 for the epilogue */
            const int64_t n = (int64_t)n0 + 32 * tid < a.gemm_n ? (int64_t)n0 + 32 * tid : a.gemm_n - 1;
            if (a.has_bias) ptx_prefetch_global_l1(a.bias + n);
            if (a.has_scale) ptx_prefetch_global_l1(a.scale + n);
        }

        /* the first epilogue chunk's scale/bias factors, loaded now so that their latency (an
         * L2 round trip under the mainloop's load) hides behind the mainloop; each chunk then
         * loads the next chunk's once it has used its own (docs/perf.md S11-4) */
        float2 as[8], bi[8];
        if (TP == 0 && GENERAL && !partial) { /* (split in cluster: chunk `rank`, the one this CTA finishes) */
            const int64_t c0 = (int64_t)n0 + (SKC ? SM90_EPI_COLS * rank : 0);
            sm90_chunk_factors(a, c0 + 2 * (lane & 3), c0 + SM90_EPI_COLS, as, bi);
        }
        /* pixels as N: this thread's two channels' factors (c0 and c0 + 8 of this consumer's 64) */
        float pas0 = a.alpha, pas1 = a.alpha, pbi0 = 0.0f, pbi1 = 0.0f;
        if (TP > 0 && GENERAL) {
            const int64_t c0 = (int64_t)n0 + 64 * (PP ? 0 : cw) + warp * 16 + (lane >> 2), c1 = c0 + 8;
            const int64_t k0 = c0 < a.gemm_n ? c0 : a.gemm_n - 1, k1 = c1 < a.gemm_n ? c1 : a.gemm_n - 1;
            if (a.has_scale) pas0 = a.alpha * __ldg(a.scale + k0), pas1 = a.alpha * __ldg(a.scale + k1);
            if (a.has_bias) pbi0 = __ldg(a.bias + k0), pbi1 = __ldg(a.bias + k1);
        }

        /* mainloop: stage `stage` holds k-block kb0 + it */
        int prev = 0;
        if constexpr (HALO) {
            /* halo rows: HSTAGES input rows, unrolled, so that which accumulator and filter row an
             * input row of a two-row tile feeds is known at compile time (a run-time branch around a
             * wgmma serialises every wgmma of the kernel, ptxas C7520). The stage handling is the
             * k-block loop's below. */
#pragma unroll
            for (int it = 0; it < HSTAGES; it++) {
                ptx_mbarrier_wait_parity(full_bar + 8u * stage, phase); /* TMA bytes landed */
#pragma unroll
                for (int j = 0; j < ACCN / 2; j++) wgmma_fence_operand(acc[0][j]);
                ptx_wgmma_fence();
                /* input row `it`: output row o takes filter row it - o from it, tap s shifted by s pixel rows */
#pragma unroll
                for (int o = 0; o < HROWS; o++) {
                    const int r = it - o;
                    if (r < 0 || r > 2) continue;
#pragma unroll
                    for (int s = 0; s < 3; s++) {
                        const uint64_t df = wgmma_desc_kmajor_sw128(b_smem + (uint32_t)(3 * r + s) * B_STAGE_BYTES);
                        const uint64_t dp = wgmma_desc_kmajor_sw128(a_smem + (uint32_t)stage * A_STAGE + 128u * s);
#pragma unroll
                        for (int kk = 0; kk < SM90_BK / 16; kk++)
                            sm90_wgmma<DT, HW>(&acc[0][(HW / 2) * o], df + 2u * kk, dp + 2u * kk,
                                               (r > 0 || s > 0 || kk > 0) ? 1 : 0);
                    }
                }
                ptx_wgmma_commit_group();
                ptx_wgmma_wait_group<1>(); /* the previous row's MMAs are done with their stage */
#pragma unroll
                for (int j = 0; j < ACCN / 2; j++) wgmma_fence_operand(acc[0][j]);
                if (it > 0) sm90_release_stage(empty_bar, prev, lane == 0);
                prev = stage;
                if (++stage == S) {
                    stage = 0;
                    phase ^= 1u;
                }
            }
        } else
        for (int it = 0; it < nk; it++) {
            ptx_mbarrier_wait_parity(full_bar + 8u * stage, phase); /* TMA bytes landed */
            const uint32_t a_st = a_smem + (uint32_t)stage * A_STAGE + (uint32_t)row0 * 128u;
            const uint32_t b_st = b_smem + (uint32_t)(BRES ? it : stage) * B_STAGE_BYTES; /* resident slot or ring stage */
            const uint64_t db = wgmma_desc_kmajor_sw128(b_st);
#pragma unroll
            for (int i = 0; i < WM; i++)
#pragma unroll
                for (int j = 0; j < ACCN / 2; j++) wgmma_fence_operand(acc[i][j]);
            ptx_wgmma_fence();
            if constexpr (TP > 0) { /* channels x pixels: filter rows 64*cw .. as wgmma A, the TP pixels as B */
                const uint64_t df = wgmma_desc_kmajor_sw128(b_st + (PP ? 0u : 8192u * cw));
                const uint64_t dp = wgmma_desc_kmajor_sw128(a_smem + (uint32_t)stage * A_STAGE);
#pragma unroll
                for (int kk = 0; kk < SM90_BK / 16; kk++)
                    sm90_wgmma<DT, TP>(acc[0], df + 2u * kk, dp + 2u * kk, (it > 0 || kk > 0) ? 1 : 0);
            } else {
#pragma unroll
                for (int kk = 0; kk < SM90_BK / 16; kk++) /* +32 B per k16 step = +2 encoded */
#pragma unroll
                    for (int i = 0; i < WM; i++)
                        sm90_wgmma<DT, BN>(acc[i], wgmma_desc_kmajor_sw128(a_st + 8192u * i) + 2u * kk, db + 2u * kk,
                                           (it > 0 || kk > 0) ? 1 : 0);
            }
            ptx_wgmma_commit_group();
            ptx_wgmma_wait_group<1>(); /* the previous k-block's MMAs are done with their stage */
#pragma unroll
            for (int i = 0; i < WM; i++)
#pragma unroll
                for (int j = 0; j < ACCN / 2; j++) wgmma_fence_operand(acc[i][j]);
            if (it > 0) sm90_release_stage(empty_bar, prev, lane == 0);
            prev = stage;
            if (++stage == S) {
                stage = 0;
                phase ^= 1u;
            }
        }
        /* the tile's operand-ring residual stages follow its k-blocks: rstage/rphase is the
         * first; each is waited on at its chunk and released once read */
        const int rstage = stage;
        const uint32_t rphase = phase;
        if (nres > 0) {
            const int adv = stage + nres;
            stage = adv % S;
            phase ^= (uint32_t)((adv / S) & 1);
        }
        if (PP) { /* this tile's full barriers all passed (the mainloop's, then the residual
                     stages'): the other consumer's turn */
            for (int r = 0, st = rstage; r < nres; r++) {
                ptx_mbarrier_wait_parity(full_bar + 8u * st, rphase ^ (uint32_t)(((rstage + r) / S) & 1));
                if (++st == S) st = 0;
            }
            if (tid == 0) ptx_mbarrier_arrive(order_bar + 8u * (uint32_t)(NC == 2 ? cw ^ 1 : cw + 1 == NC ? 0 : cw + 1));
            own++;
        }
        ptx_wgmma_wait_group<0>();
#pragma unroll
        for (int i = 0; i < WM; i++)
#pragma unroll
            for (int j = 0; j < ACCN / 2; j++) wgmma_fence_operand(acc[i][j]);
        sm90_release_stage(empty_bar, prev, lane == 0);
        if constexpr (SKC) {
            /* split in cluster: the two CTAs hold the same tile's partial sums over the two halves
             * of K. Rank r finishes 64-column chunk r of the tile: each consumer sends its other
             * chunk (64 x 64 fp32, 16 KB) to the same consumer of the partner, whose barrier
             * (armed at set-up) counts the bytes, and adds the partner's half of its own chunk
             * (sm90_skc_exchange). Every consumer of both CTAs sends, receives and runs the
             * epilogue of one chunk at once. fp32 a + b = b + a: the same bits whichever rank adds. */
            const uint32_t peer = (uint32_t)rank ^ 1u;
            /* the receive buffer: two of the consumer's epilogue slots, idle until its one chunk's
             * epilogue (without a residual slots 0-1, the first of which then stages the output:
             * the named barrier before the staging writes orders them after every thread's reads
             * here; with the residual through the epilogue ring slots 1-2, the residual in 0) */
            const uint32_t xbuf = my_epi + (res_ring ? EBOX : 0u);
            static_assert(SKC_BYTES == 2 * EBOX || !SKC, "the receive buffer is two staging boxes");
            const uint32_t dst = ptx_mapa_shared_cluster(xbuf, peer) + (uint32_t)tid * 16u;
            const uint32_t xbar = ptx_mapa_shared_cluster(order_bar + 8u * (uint32_t)cw, peer);
            const uint32_t src = xbuf + (uint32_t)tid * 16u;
            /* rank 0 keeps chunk 0 and sends chunk 1, rank 1 the other way round */
            if (rank == 0) sm90_skc_exchange<32, 0>(acc[0], dst, xbar, order_bar + 8u * (uint32_t)cw, src);
            else sm90_skc_exchange<0, 32>(acc[0], dst, xbar, order_bar + 8u * (uint32_t)cw, src);
        }

        if constexpr (TP > 0) {
            /* pixels-as-N epilogue: this consumer's 64 channels (cbase ..) x TP pixels (m0 ..).
             * acc[0][4J + 2h + e] is channel cbase + 16*warp + lane/4 + 8h, pixel m0 + 8J +
             * 2(lane%4) + e; stmatrix/ldmatrix .trans move 8x8 blocks between that layout and
             * the [pixel][64 channels] 128B-swizzled boxes (staging box, residual stage; the TMA
             * boxes of y and the residual are {64, TP}). Lane l addresses row l%8 of matrix l/8
             * = (channel half h = (l/8) & 1, pixel block 2jp + l/16). Ping-pong (BN = 64): the
             * consumer's tile is all 64 channels; the residual, if any, comes by TMA into the
             * staging box itself (res_ring: one box per consumer, refilled once its store has
             * read it), where the epilogue reads it and writes the output over it. */
            const int rch = PP ? 0 : cw; /* this consumer's 64-channel chunk of the tile */
            const bool box_res = PP && res_ring; /* (compile-time false in the 128-channel instances) */
            const int64_t cbase = (int64_t)n0 + 64 * rch;
            for (int r = 0; r < nres; r++) /* the tile's residual chunks (chunk cw is this consumer's) */
                ptx_mbarrier_wait_parity(full_bar + 8u * (uint32_t)((rstage + r) % S),
                                         rphase ^ (uint32_t)(((rstage + r) / S) & 1));
            if (cbase < a.gemm_n) {
                /* channels cbase + warp*16 + lane/4 (h = 0) and + 8 (h = 1): their factors were
                 * loaded before the mainloop */
                const float as0 = pas0, as1 = pas1, bi0 = pbi0, bi1 = pbi1;
                if (box_res) { /* the residual landed in the box (after its last store had read it) */
                    ptx_mbarrier_wait_parity(my_rfull + 8u * eslot, ephase);
                } else {
                    if (tid == 0) { /* the store ES tiles ago has read this box */
                        if (ES == 1) ptx_cp_async_bulk_wait_group_read<0>();
                        else ptx_cp_async_bulk_wait_group_read<1>();
                    }
                    ptx_bar_sync(1 + cw, 128);
                }
                const uint32_t box = my_epi + (uint32_t)eslot * EBOX;
                /* the residual: in the staging box (res_ring), or in the operand-ring stage of
                 * this consumer's chunk (valid when nres > rch) */
                const bool has_res = a.has_residual && (box_res || nres > rch);
                const uint32_t rbox = box_res ? box : a_smem + (uint32_t)((rstage + rch) % S) * A_STAGE;
                sm90_pixn_tile<DT, TP, GENERAL, ACT_ANY>(a, acc[0], box, rbox, has_res, warp, lane, as0, bi0, as1, bi1);
                ptx_fence_proxy_async_shared_cta(); /* st.shared -> visible to the TMA (async proxy) */
                ptx_bar_sync(1 + cw, 128);
                if (tid == 0) {
                    ptx_cp_async_bulk_tensor_2d_global_shared_cta(&tmap_y, box, (int32_t)cbase, m0);
                    ptx_cp_async_bulk_commit_group();
                    if (box_res) { /* once the store has read the box, the next residual may land in it */
                        ptx_cp_async_bulk_wait_group_read<0>();
                        ptx_mbarrier_arrive(my_rempty + 8u * eslot);
                    }
                }
                if (++eslot == ES) {
                    eslot = 0;
                    ephase ^= 1u;
                }
            }
            for (int r = 0; r < nres; r++) /* residual read (or not this consumer's): release */
                sm90_release_stage(empty_bar, (rstage + r) % S, lane == 0);
        } else {
        /* epilogue, fully unrolled (compile-time accumulator indices), in three passes per
         * 64-column chunk of a 64-row block, each with its run-time switches hoisted:
         * linear (alpha*scale, bias) + residual, activation, store. Fragment layout
         * (src/ptx/wgmma.cuh): acc[i][4J + 2h + e] is row 64i + 16*warp + lane/4 + 8h,
         * column 8J + 2*(lane%4) + e of this consumer's 64*WM x BN block. */
        const int r_lo = warp * 16 + (lane >> 2); /* and r_lo + 8, inside a 64-row block */
        const uint32_t zero_rt = (uint32_t)(a.gemm_m >> 40); /* 0 (M < 2^31), unknown to the compiler */
#pragma unroll
        for (int ch = 0; ch < NCH; ch++) {
            if ((int64_t)n0 + ch * SM90_EPI_COLS >= a.gemm_n) break; /* uniform in the CTA */
            if (SKC && ch != rank) continue; /* split in cluster: the partner finishes that chunk */
            const int64_t nc = (int64_t)n0 + ch * SM90_EPI_COLS + 2 * (lane & 3); /* column of jj = 0 */
            /* as/bi hold this chunk's per-column factors (as = alpha*scale, bi = bias, 8 pairs):
             * loaded before the mainloop (chunk 0) or after the previous chunk's linear pass */
            /* operand-ring residual: this chunk's stage (BM rows x 64 columns, 64-row boxes),
             * read into registers (16 per 64-row block) and released as soon as read, so the
             * producer refills it while the chunk is computed (held through the chunk, it
             * stalled the other ping-pong consumer's mainloop a ring length later): all blocks
             * up front where the registers allow (RES_HOIST), else block by block, the stage
             * released after the last block's read */
            constexpr bool RES_HOIST = WM == 1 || BN <= 64;
            constexpr bool RES_EARLY = WM * BN <= 128; /* epilogue-ring residual read at its slot's wait */
            uint32_t rres[WM][16];
            const int rpos = rstage + ch;
            const uint32_t rst = (uint32_t)(rpos % S);
            if (TMA_EPI && GENERAL && nres > 0) {
                ptx_mbarrier_wait_parity(full_bar + 8u * rst, rphase ^ (uint32_t)((rpos / S) & 1));
                if (RES_HOIST) {
#pragma unroll
                    for (int i = 0; i < WM; i++)
#pragma unroll
                        for (int jp = 0; jp < 4; jp++)
                            ldmatrix_sync_aligned_m8n8_x4_b16(&rres[i][4 * jp],
                                                              a_smem + rst * A_STAGE + (uint32_t)(row0 + 64 * i) * 128u +
                                                                  (lane_box ^ (jp << 5)));
                    uint32_t dep = 0u; /* released once every read above has returned (sm90_zero_after) */
#pragma unroll
                    for (int i = 0; i < WM; i++)
#pragma unroll
                        for (int jp = 0; jp < 4; jp++) dep = sm90_zero_after(rres[i][4 * jp], dep, zero_rt);
                    sm90_release_stage(empty_bar, (int)rst, lane == 0 && dep == 0u);
                }
            }
#pragma unroll
            for (int i = 0; i < WM; i++) {
                float *const v = &acc[i][32 * ch]; /* this chunk's 32 values: v[4jj + 2h + e] */
                const int mrow = m0 + row0 + 64 * i;  /* first row of this 64-row block */
                const int64_t m_lo = (int64_t)mrow + r_lo;
                const bool ok0 = m_lo < a.gemm_m, ok1 = m_lo + 8 < a.gemm_m;
                const int64_t rowoff0 = m_lo * a.gemm_n, rowoff1 = (m_lo + 8) * a.gemm_n;
                const uint32_t box = my_epi + (uint32_t)eslot * SM90_EPI_BUF_BYTES;
                if (TMA_EPI) {
                    if (res_ring) { /* the residual landed (so the slot's last store has read it) */
                        ptx_mbarrier_wait_parity(my_rfull + 8u * eslot, ephase);
                        /* read now, so the loads' latency overlaps the linear pass, where the
                         * registers allow (64 x 128 accumulators per consumer or fewer; with 128 x
                         * 128 the 16 registers spilled; docs/perf.md S15-9) */
                        if (RES_EARLY && !partial && nres == 0) {
#pragma unroll
                            for (int jp = 0; jp < 4; jp++)
                                ldmatrix_sync_aligned_m8n8_x4_b16(&rres[i][4 * jp], box + (lane_box ^ (jp << 5)));
                        }
                    } else { /* the store ES = 2 chunks ago has read this box */
                        if (tid == 0) ptx_cp_async_bulk_wait_group_read<1>();
                        ptx_bar_sync(1 + cw, 128);
                    }
                }
                if (!partial) {
                    /* pass 1: linear part */
#pragma unroll
                    for (int jj = 0; jj < 8; jj++) {
                        if (GENERAL) {
                            v[4 * jj] = fmaf(v[4 * jj], as[jj].x, bi[jj].x);
                            v[4 * jj + 1] = fmaf(v[4 * jj + 1], as[jj].y, bi[jj].y);
                            v[4 * jj + 2] = fmaf(v[4 * jj + 2], as[jj].x, bi[jj].x);
                            v[4 * jj + 3] = fmaf(v[4 * jj + 3], as[jj].y, bi[jj].y);
                        } else {
#pragma unroll
                            for (int e = 0; e < 4; e++) v[4 * jj + e] *= a.alpha;
                        }
                    }
                    /* the next chunk's factors (as/bi are dead for this chunk once its last
                     * block's linear pass is done): their loads overlap this chunk's residual,
                     * activation and store */
                    if (GENERAL && !SKC && i == WM - 1 && ch + 1 < NCH)
                        sm90_chunk_factors(a, nc + SM90_EPI_COLS, (int64_t)n0 + (ch + 2) * SM90_EPI_COLS, as, bi);
                    /* pass 1b: + beta * residual (TMA ring box by ldmatrix, or global loads) */
                    if (GENERAL && a.has_residual) {
                        if (TMA_EPI) { /* TMA epilogue: the residual is in the epilogue-ring slot
                                          (res_ring 1) or the operand-ring stage (2); each warp
                                          reads (and in the slot later overwrites) only its 16 rows */
                            if (nres == 0) {
                                if (!(RES_EARLY && res_ring)) /* (else read at the slot's wait above) */
#pragma unroll
                                    for (int jp = 0; jp < 4; jp++)
                                        ldmatrix_sync_aligned_m8n8_x4_b16(&rres[i][4 * jp], box + (lane_box ^ (jp << 5)));
                            } else if (!RES_HOIST) {
#pragma unroll
                                for (int jp = 0; jp < 4; jp++)
                                    ldmatrix_sync_aligned_m8n8_x4_b16(&rres[i][4 * jp],
                                                                      a_smem + rst * A_STAGE +
                                                                          (uint32_t)(row0 + 64 * i) * 128u +
                                                                          (lane_box ^ (jp << 5)));
                                if (i == WM - 1) { /* once the reads above have returned */
                                    uint32_t dep = 0u;
#pragma unroll
                                    for (int jp = 0; jp < 4; jp++) dep = sm90_zero_after(rres[i][4 * jp], dep, zero_rt);
                                    sm90_release_stage(empty_bar, (int)rst, lane == 0 && dep == 0u);
                                }
                            }
#pragma unroll
                            for (int jp = 0; jp < 4; jp++) {
                                /* rres[i][4jp ..]: {(2jp, h0), (2jp, h1), (2jp+1, h0), (2jp+1, h1)} */
                                const uint32_t *const rr = &rres[i][4 * jp];
#pragma unroll
                                for (int q4 = 0; q4 < 4; q4++) {
                                    const int jj = 2 * jp + (q4 >> 1), h = q4 & 1;
                                    const float2 r2 = sm90_unpack2(DT, rr[q4]);
                                    v[4 * jj + 2 * h] = fmaf(a.beta, r2.x, v[4 * jj + 2 * h]);
                                    v[4 * jj + 2 * h + 1] = fmaf(a.beta, r2.y, v[4 * jj + 2 * h + 1]);
                                }
                            }
                        } else {
#pragma unroll
                            for (int jj = 0; jj < 8; jj++) {
                                const float2 ra = sm90_res_pair(a, rowoff0, nc + 8 * jj, ok0);
                                const float2 rb = sm90_res_pair(a, rowoff1, nc + 8 * jj, ok1);
                                v[4 * jj] = fmaf(a.beta, ra.x, v[4 * jj]);
                                v[4 * jj + 1] = fmaf(a.beta, ra.y, v[4 * jj + 1]);
                                v[4 * jj + 2] = fmaf(a.beta, rb.x, v[4 * jj + 2]);
                                v[4 * jj + 3] = fmaf(a.beta, rb.y, v[4 * jj + 3]);
                            }
                        }
                    }
                    /* pass 2: activation (ReLU inline, on the packed pairs in pass 3 where y
                     * goes by TMA stores; the others out of line) */
                    if (GENERAL && a.act != IGEMM_ACT_NONE) {
                        if (!ACT_ANY || a.act == IGEMM_ACT_RELU) {
                            if (!TMA_EPI) {
#pragma unroll
                                for (int e = 0; e < 32; e++) v[e] = fmaxf(v[e], 0.0f);
                            }
                        } else {
#pragma unroll
                            for (int e = 0; e < 32; e++) v[e] = sm90_act_slow(a.act, v[e], a.act_param);
                        }
                    }
                }
                /* pass 3: store */
                if (TMA_EPI) {
                    const bool relu = GENERAL && !partial && a.act == IGEMM_ACT_RELU;
#pragma unroll
                    for (int jp = 0; jp < 4; jp++)
                        stmatrix_sync_aligned_m8n8_x4_b16(box + (lane_box ^ (jp << 5)),
                                                          sm90_pack2_relu<DT>(v[8 * jp], v[8 * jp + 1], relu),
                                                          sm90_pack2_relu<DT>(v[8 * jp + 2], v[8 * jp + 3], relu),
                                                          sm90_pack2_relu<DT>(v[8 * jp + 4], v[8 * jp + 5], relu),
                                                          sm90_pack2_relu<DT>(v[8 * jp + 6], v[8 * jp + 7], relu));
                    ptx_fence_proxy_async_shared_cta(); /* st.shared -> visible to the TMA (async proxy) */
                    ptx_bar_sync(1 + cw, 128);
                    if (tid == 0) {
                        ptx_cp_async_bulk_tensor_2d_global_shared_cta(&tmap_y, box, n0 + ch * SM90_EPI_COLS, mrow);
                        ptx_cp_async_bulk_commit_group();
                        if (res_ring) { /* the previous chunk's store has read its slot: refill it */
                            ptx_cp_async_bulk_wait_group_read<1>();
                            if (prev_eslot >= 0) ptx_mbarrier_arrive(my_rempty + 8u * prev_eslot);
                        }
                    }
                    prev_eslot = eslot;
                    if (++eslot == ES) {
                        eslot = 0;
                        ephase ^= 1u;
                    }
                } else {
#pragma unroll
                    for (int jj = 0; jj < 8; jj++) {
                        sm90_store_pair(a, rowoff0, nc + 8 * jj, ok0, v[4 * jj], v[4 * jj + 1], partial, split);
                        sm90_store_pair(a, rowoff1, nc + 8 * jj, ok1, v[4 * jj + 2], v[4 * jj + 3], partial, split);
                    }
                }
            }
        }
        } /* TP == 0 */
    }
    /* the staging boxes must stay valid until the last stores have read them; their global
     * writes complete with the grid */
    if (TMA_EPI && tid == 0) ptx_cp_async_bulk_wait_group_read<0>();
}

typedef void (*sm90_kernel_fn)(CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap, igemm_sm90_args_t);

/* Kernel instances for one (input dtype, WM or consumer count), chosen by (BN, epilogue kind,
 * store path). Defined in conv2d_fprop_{bf16,f16}_{wm1,wm2,nc3}.cu (one translation unit each,
 * so the instances compile in parallel). WM = 2 has no BN = 256 instance (the accumulators
 * would not fit); 3 consumers (tile rows 192) come with WM = 1, BN = 128 only. */
sm90_kernel_fn igemm_sm90_pick_bf16_wm1(int bn, int epi, bool tma_epi);
sm90_kernel_fn igemm_sm90_pick_bf16_wm2(int bn, int epi, bool tma_epi);
sm90_kernel_fn igemm_sm90_pick_bf16_nc3(int bn, int epi, bool tma_epi);
sm90_kernel_fn igemm_sm90_pick_f16_wm1(int bn, int epi, bool tma_epi);
sm90_kernel_fn igemm_sm90_pick_f16_wm2(int bn, int epi, bool tma_epi);
sm90_kernel_fn igemm_sm90_pick_f16_nc3(int bn, int epi, bool tma_epi);
sm90_kernel_fn igemm_sm90_pick_bf16_pp(int bn, int epi);
sm90_kernel_fn igemm_sm90_pick_f16_pp(int bn, int epi);
sm90_kernel_fn igemm_sm90_pick_bf16_pixn(int tp, int epi);
sm90_kernel_fn igemm_sm90_pick_bf16_ppbr(int bn, int epi);
sm90_kernel_fn igemm_sm90_pick_f16_ppbr(int bn, int epi);
sm90_kernel_fn igemm_sm90_pick_f16_pixn(int tp, int epi);
sm90_kernel_fn igemm_sm90_pick_bf16_pxpp(int tp, int epi);
sm90_kernel_fn igemm_sm90_pick_f16_pxpp(int tp, int epi);
sm90_kernel_fn igemm_sm90_pick_bf16_pxppbr(int tp, int epi);
sm90_kernel_fn igemm_sm90_pick_f16_pxppbr(int tp, int epi);
sm90_kernel_fn igemm_sm90_pick_bf16_skc(int epi);
sm90_kernel_fn igemm_sm90_pick_f16_skc(int epi);
sm90_kernel_fn igemm_sm90_pick_bf16_pxhalo(int tp, int rows, int nc, int epi);
sm90_kernel_fn igemm_sm90_pick_f16_pxhalo(int tp, int rows, int nc, int epi);

/* epi 0/1/2 as the kernel's EPI; the direct-store path has instances 0 and 2 only. BRES: the
 * filter-resident instance flag (ping-pong only). */
#define SM90_PICK_TMA_EPI_FLAGS(DT, BN, WM, NC, PP, TP, BRES, SKC, epi)                                 \
    ((epi) == 0   ? igemm_sm90_conv2d_fprop_kernel<DT, BN, WM, 0, true, NC, PP, TP, BRES, SKC>          \
     : (epi) == 1 ? igemm_sm90_conv2d_fprop_kernel<DT, BN, WM, 1, true, NC, PP, TP, BRES, SKC>          \
                  : igemm_sm90_conv2d_fprop_kernel<DT, BN, WM, 2, true, NC, PP, TP, BRES, SKC>)
#define SM90_PICK_TMA_EPI_TP(DT, BN, WM, NC, PP, TP, epi)                                              \
    SM90_PICK_TMA_EPI_FLAGS(DT, BN, WM, NC, PP, TP, false, false, epi)
#define SM90_PICK_TMA_EPI(DT, BN, WM, NC, PP, epi) SM90_PICK_TMA_EPI_TP(DT, BN, WM, NC, PP, 0, epi)
#define SM90_PICK_BN(DT, BN, WM, NC, epi, tma_epi)                                                     \
    ((tma_epi) ? SM90_PICK_TMA_EPI(DT, BN, WM, NC, false, epi)                                        \
               : ((epi) == 0 ? igemm_sm90_conv2d_fprop_kernel<DT, BN, WM, 0, false, NC>               \
                             : igemm_sm90_conv2d_fprop_kernel<DT, BN, WM, 2, false, NC>))

#define SM90_DEFINE_PICK_WM1(NAME, DT)                                                                 \
    sm90_kernel_fn NAME(int bn, int epi, bool tma_epi)                                                 \
    {                                                                                                  \
        if (bn == 256) return SM90_PICK_BN(DT, 256, 1, 2, epi, tma_epi);                               \
        if (bn == 128) return SM90_PICK_BN(DT, 128, 1, 2, epi, tma_epi);                               \
        if (bn == 64) return SM90_PICK_BN(DT, 64, 1, 2, epi, tma_epi);                                 \
        return NULL;                                                                                   \
    }

#define SM90_DEFINE_PICK_WM2(NAME, DT)                                                                 \
    sm90_kernel_fn NAME(int bn, int epi, bool tma_epi)                                                 \
    {                                                                                                  \
        if (bn == 128) return SM90_PICK_BN(DT, 128, 2, 2, epi, tma_epi);                               \
        if (bn == 64) return SM90_PICK_BN(DT, 64, 2, 2, epi, tma_epi);                                 \
        return NULL;                                                                                   \
    }

#define SM90_DEFINE_PICK_NC3(NAME, DT)                                                                 \
    sm90_kernel_fn NAME(int bn, int epi, bool tma_epi)                                                 \
    {                                                                                                  \
        if (bn == 128) return SM90_PICK_BN(DT, 128, 1, 3, epi, tma_epi);                               \
        return NULL;                                                                                   \
    }

/* ping-pong instances (2 consumers, each a whole 128 x BN tile in turn; TMA stores only), plain
 * or filter-resident (BRES: the filter tiles of every k-block stay in shared memory, one N-tile
 * per CTA) */
#define SM90_DEFINE_PICK_PP_FLAGS(NAME, DT, BRES)                                                      \
    sm90_kernel_fn NAME(int bn, int epi)                                                               \
    {                                                                                                  \
        if (bn == 128) return SM90_PICK_TMA_EPI_FLAGS(DT, 128, 2, 2, true, 0, BRES, false, epi);       \
        if (bn == 64) return SM90_PICK_TMA_EPI_FLAGS(DT, 64, 2, 2, true, 0, BRES, false, epi);         \
        return NULL;                                                                                   \
    }
#define SM90_DEFINE_PICK_PP(NAME, DT) SM90_DEFINE_PICK_PP_FLAGS(NAME, DT, false)
#define SM90_DEFINE_PICK_PPBR(NAME, DT) SM90_DEFINE_PICK_PP_FLAGS(NAME, DT, true)

/* pixels-as-N instances (TP pixels x 128 channels, 2 consumers, TMA stores only) */
#define SM90_DEFINE_PICK_PIXN(NAME, DT)                                                                \
    sm90_kernel_fn NAME(int tp, int epi)                                                               \
    {                                                                                                  \
        if (tp == 80) return SM90_PICK_TMA_EPI_TP(DT, 128, 1, 2, false, 80, epi);                      \
        if (tp == 96) return SM90_PICK_TMA_EPI_TP(DT, 128, 1, 2, false, 96, epi);                      \
        if (tp == 208) return SM90_PICK_TMA_EPI_TP(DT, 128, 1, 2, false, 208, epi);                    \
        return NULL;                                                                                   \
    }

/* pixels-as-N ping-pong instances (TP = 128 or 256 pixels x 64 channels per tile, each consumer
 * a whole tile in turn: m64nTPk16 with the 64 filter rows as wgmma A; TMA stores only), with the
 * filter in a ring or resident (BRES) */
#define SM90_DEFINE_PICK_PXPP(NAME, DT, BRES)                                                          \
    sm90_kernel_fn NAME(int tp, int epi)                                                               \
    {                                                                                                  \
        if (tp == 128) return SM90_PICK_TMA_EPI_FLAGS(DT, 64, 1, 2, true, 128, BRES, false, epi);      \
        return NULL;                                                                                   \
    }

/* halo-row instances (pixels as N, ping-pong, filter resident, 64 channels; tiles of TP = 112 or
 * 56 pixels of one image row, or of two whole 56-pixel rows): a 3x3 stride-1 conv's taps along W
 * from one halo row per input row */
#define SM90_PXHALO(DT, TP, ROWS, NC, epi)                                                             \
    ((epi) == 0   ? igemm_sm90_conv2d_fprop_kernel<DT, 64, 1, 0, true, NC, true, TP, true, false, true, ROWS> \
     : (epi) == 1 ? igemm_sm90_conv2d_fprop_kernel<DT, 64, 1, 1, true, NC, true, TP, true, false, true, ROWS> \
                  : igemm_sm90_conv2d_fprop_kernel<DT, 64, 1, 2, true, NC, true, TP, true, false, true, ROWS>)
/* nc: 2 consumers in ping-pong, or 3 taking the tiles in turn (each epilogue then has two other
 * consumers' mainloops to finish under) */
#define SM90_DEFINE_PICK_PXHALO(NAME, DT)                                                              \
    sm90_kernel_fn NAME(int tp, int rows, int nc, int epi)                                             \
    {                                                                                                  \
        if (nc == 3) {                                                                                 \
            if (tp == 112 && rows == 1) return SM90_PXHALO(DT, 112, 1, 3, epi);                        \
            if (tp == 112 && rows == 2) return SM90_PXHALO(DT, 112, 2, 3, epi);                        \
            return NULL;                                                                               \
        }                                                                                              \
        if (nc != 2) return NULL;                                                                      \
        if (tp == 112 && rows == 1) return SM90_PXHALO(DT, 112, 1, 2, epi);                            \
        if (tp == 56 && rows == 1) return SM90_PXHALO(DT, 56, 1, 2, epi);                              \
        if (tp == 112 && rows == 2) return SM90_PXHALO(DT, 112, 2, 2, epi); /* two 56-pixel rows */    \
        return NULL;                                                                                   \
    }

/* split-in-cluster instances (128 x 128 cooperative tiles, 2 consumers, TMA stores): the two
 * CTAs of a cluster take the two halves of one tile's K, and rank r finishes 64-column chunk r
 * after adding the partner's partial of it (received by st.async) */
#define SM90_DEFINE_PICK_SKC(NAME, DT)                                                                 \
    sm90_kernel_fn NAME(int epi)                                                                       \
    {                                                                                                  \
        return SM90_PICK_TMA_EPI_FLAGS(DT, 128, 1, 2, false, 0, false, true, epi);              \
    }

#endif /* IGEMM_SM90_CONV2D_FPROP_KERNEL_CUH */
