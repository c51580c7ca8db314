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
#include "../internal.h"
#include "../ptx/fence.cuh"
#include "../ptx/mbarrier.cuh"
#include "../ptx/setmaxnreg.cuh"
#include "../ptx/tma.cuh"
#include "../ptx/wgmma.cuh"
#include "../tensor_map.h"

#define SM90_BM 128
#define SM90_BK 64
#define SM90_THREADS 384
#define SM90_PRODUCER_REGS 40
#define SM90_CONSUMER_REGS 232
#define SM90_EPI_COLS 64                            /* epilogue chunk: 64 columns (one 128 B swizzle row) */
#define SM90_EPI_BUF_BYTES (64 * SM90_EPI_COLS * 2) /* one 64 x 64 16-bit staging box: 8 KB */
#define SM90_EPI_BYTES (2 * 2 * SM90_EPI_BUF_BYTES) /* 2 consumers x 2 buffers: 32 KB */
#define SM90_ALIGN_SLACK 1024                       /* dynamic smem base rounded up to 1024 B */
#define SM90_MAX_STAGES 8
#define SM90_CONSUMER_ARRIVALS 8 /* empty barrier: lane 0 of each of the 8 consumer warps */
#define SM90_GROUP_M 8           /* rasterisation: M-tiles per group */
#define SM90_MAX_SPLITS 16
#define SM90_MAX_WORKSPACE ((size_t)256 << 20)

/* Everything the kernels need besides the tensor maps (passed by value, __grid_constant__). */
typedef struct igemm_sm90_args {
    int64_t gemm_m; /* n*p*q */
    int64_t gemm_n; /* k, output channels */
    int64_t pq;     /* p*q */
    int32_t q;
    int32_t stride_h, stride_w, pad_top, pad_left, dil_h, dil_w;
    int32_t filter_s; /* S */
    int32_t c_blocks; /* ceil(c / 64) */
    int32_t k_iters;  /* R*S*c_blocks: k-blocks of the whole reduction */
    int32_t tiles_m, tiles_n, num_tiles, splits, num_units, group_m, stages;
    float alpha, beta, act_param;
    int32_t act, has_scale, has_bias, has_residual, out_dtype;
    int32_t vec4; /* gemm_n % 4 == 0: 4-element row chunks are 4-element aligned */
    int32_t vec2; /* gemm_n % 2 == 0: column pairs are 2-element aligned */
    int32_t a_tiled; /* 1x1, stride 1, no padding: x is the A matrix [M, C]; tmap_x is a tiled 2-D map */
    int32_t bm;       /* rows per work unit: 128 (cooperative: both consumers, 64 rows each) or 64
                         (ping-pong: each consumer its own units, alternating) */
    int32_t pingpong; /* 1: consumer c takes the CTA's units c, c+2, ...; one's epilogue overlaps
                         the other's mainloop. Needs splits == 1 (uniform k-blocks per unit). */
    const float *scale;
    const float *bias;
    const void *residual;
    void *y;
    float *workspace; /* split-K partials [splits][M][N] fp32; NULL when splits == 1 */
} igemm_sm90_args_t;

/* ------------------------------------------------------------------ device code */

/* One k16 step of the consumer's 64 x BN tile: the wgmma form for (dtype, BN). */
template <int DT, int BN>
static __device__ __forceinline__ void sm90_wgmma(float *acc, uint64_t da, uint64_t db, int scale_d)
{
    if constexpr (DT == IGEMM_DTYPE_BF16) {
        if constexpr (BN == 256) ptx_wgmma_m64n256k16_f32_bf16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 128) ptx_wgmma_m64n128k16_f32_bf16_ss(acc, da, db, scale_d);
        else ptx_wgmma_m64n64k16_f32_bf16_ss(acc, da, db, scale_d);
    } else {
        if constexpr (BN == 256) ptx_wgmma_m64n256k16_f32_f16_ss(acc, da, db, scale_d);
        else if constexpr (BN == 128) ptx_wgmma_m64n128k16_f32_f16_ss(acc, da, db, scale_d);
        else ptx_wgmma_m64n64k16_f32_f16_ss(acc, da, db, scale_d);
    }
}

/* Work unit -> tile origin (m0, n0) and k-block range [kb0, kb1) of its split. Units are
 * split-major; inside a split, tiles go in groups of group_m M-tiles, M fastest. */
static __device__ __forceinline__ void sm90_decode_unit(const igemm_sm90_args_t &a, int unit, int bn, int64_t &m0,
                                                        int &n0, int &kb0, int &kb1, int &split)
{
    split = unit / a.num_tiles;
    const int t = unit - split * a.num_tiles;
    const int group_size = a.group_m * a.tiles_n;
    const int g = t / group_size;
    const int first_m = g * a.group_m;
    const int gm = min(a.tiles_m - first_m, a.group_m);
    const int local = t - g * group_size;
    const int tm = first_m + local % gm;
    const int tn = local / gm;
    m0 = (int64_t)tm * a.bm;
    n0 = tn * bn;
    kb0 = (int)((int64_t)split * a.k_iters / a.splits);
    kb1 = (int)((int64_t)(split + 1) * a.k_iters / a.splits);
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

/* cv[0..15] = the accumulators of 32-column half-chunk hc (fragment blocks 4hc .. 4hc+3). The
 * chunk loop is not unrolled (one copy of the epilogue body, small enough for the instruction
 * cache); register arrays need compile-time indices, hence the predicated copy. 16 values at a
 * time (not 32) keep the general BN = 256 instances from spilling. */
template <int BN>
static __device__ __forceinline__ void sm90_take_half(const float *acc, int hc, float *cv)
{
#pragma unroll
    for (int c = 0; c < BN / 32; c++) {
        if (hc == c) {
#pragma unroll
            for (int i = 0; i < 16; i++) cv[i] = acc[16 * c + i];
        }
    }
}

/* Activations other than ReLU, out of line: inlining the 9-way switch for every element of the
 * unrolled epilogue made the kernel too large for the instruction cache. */
static __device__ __noinline__ float sm90_act_slow(int act, float v, float act_param)
{
    return igemm_act_dev(act, v, act_param);
}

/* act(v) for a.act != NONE: ReLU inline, the rest through sm90_act_slow. */
static __device__ __forceinline__ float sm90_act(const igemm_sm90_args_t &a, float v)
{
    if (a.act == IGEMM_ACT_RELU) return fmaxf(v, 0.0f);
    return sm90_act_slow(a.act, v, a.act_param);
}

/* Epilogue of one column pair (n, n+1) on one output row: v = act(alpha*scale*acc + bias +
 * beta*residual), the order of src/common/epilogue.cuh. GENERAL = false: y = alpha*acc only.
 * rowoff = m*N (64-bit); row_ok = m < M; sc/bi are the pair's scale/bias (hoisted). */
template <bool GENERAL>
static __device__ __forceinline__ void sm90_epi_pair(const igemm_sm90_args_t &a, float &v0, float &v1, int64_t rowoff,
                                                     int64_t n, bool row_ok, float2 sc, float2 bi)
{
    v0 *= a.alpha;
    v1 *= a.alpha;
    if (!GENERAL) return;
    v0 = v0 * sc.x + bi.x;
    v1 = v1 * sc.y + bi.y;
    if (a.has_residual && row_ok) {
        float r0 = 0.0f, r1 = 0.0f;
        const int64_t off = rowoff + n;
        if (a.vec2 && n + 1 < a.gemm_n && a.out_dtype != IGEMM_DTYPE_F32) {
            const uint32_t raw = __ldg((const unsigned int *)((const uint16_t *)a.residual + off));
            if (a.out_dtype == IGEMM_DTYPE_F16) {
                const float2 f = __half22float2(*(const __half2 *)&raw);
                r0 = f.x, r1 = f.y;
            } else {
                const float2 f = __bfloat1622float2(*(const __nv_bfloat162 *)&raw);
                r0 = f.x, r1 = f.y;
            }
        } else {
            if (n < a.gemm_n) r0 = igemm_load_out(a.residual, off, a.out_dtype);
            if (n + 1 < a.gemm_n) r1 = igemm_load_out(a.residual, off + 1, a.out_dtype);
        }
        v0 += a.beta * r0;
        v1 += a.beta * r1;
    }
    if (a.act != IGEMM_ACT_NONE) {
        v0 = sm90_act(a, v0);
        v1 = sm90_act(a, v1);
    }
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

/* The persistent warp-specialised kernel. DT: input dtype (F16/BF16); BN: 64, 128 or 256;
 * GENERAL: the epilogue has scale/bias/residual/activation (else y = alpha * acc);
 * TMA_EPI: y (16-bit, k % 8 == 0) is written by TMA stores from swizzled staging boxes, else by
 * direct pair stores (f32 y, other k, split-K partials). One store path per instance keeps the
 * unrolled epilogue small: v2 measured 37% of stall samples as instruction-cache misses. */
template <int DT, int BN, bool GENERAL, bool TMA_EPI>
__global__ void __launch_bounds__(SM90_THREADS, 1)
    igemm_sm90_conv2d_fprop_kernel(const __grid_constant__ CUtensorMap tmap_x,
                                   const __grid_constant__ CUtensorMap tmap_w,
                                   const __grid_constant__ CUtensorMap tmap_y,
                                   const __grid_constant__ CUtensorMap tmap_r,
                                   const __grid_constant__ igemm_sm90_args_t a)
{
    constexpr uint32_t B_STAGE_BYTES = BN * SM90_BK * 2;
    extern __shared__ __align__(1024) uint8_t smem_raw[];

    /* carve the aligned dynamic shared memory (layout: header comment) */
    const int S = a.stages;
    const uint32_t raw = ptx_cvta_to_shared(smem_raw);
    const uint32_t base = (raw + 1023u) & ~1023u;
    const uint32_t a_smem = base;
    const uint32_t A_STAGE = (uint32_t)a.bm * SM90_BK * 2; /* 16 KB cooperative, 8 KB ping-pong */
    const uint32_t b_smem = base + (uint32_t)S * A_STAGE;
    const uint32_t epi_off = (uint32_t)S * (A_STAGE + B_STAGE_BYTES); /* multiple of 1024 */
    uint8_t *const epi = smem_raw + (base - raw) + epi_off; /* generic pointer to the staging */
    const uint32_t full_bar = base + epi_off + SM90_EPI_BYTES; /* full[i]  = full_bar + 8 i  */
    const uint32_t empty_bar = full_bar + 8u * (uint32_t)S;     /* empty[i] = empty_bar + 8 i */
    const uint32_t res_bar = empty_bar + 8u * (uint32_t)S;      /* res[2*consumer + buffer]   */
    const uint32_t order_bar = res_bar + 32u;                   /* order[consumer] (ping-pong) */

    if (threadIdx.x == 0) {
        for (int i = 0; i < S; i++) {
            ptx_mbarrier_init(full_bar + 8u * i, 1);
            /* released by lane 0 of each warp of the consumer(s) that read the stage */
            ptx_mbarrier_init(empty_bar + 8u * i, a.pingpong ? SM90_CONSUMER_ARRIVALS / 2 : SM90_CONSUMER_ARRIVALS);
        }
        for (int i = 0; i < 4; i++) ptx_mbarrier_init(res_bar + 8u * i, 1);
        for (int i = 0; i < 2; i++) ptx_mbarrier_init(order_bar + 8u * i, SM90_CONSUMER_ARRIVALS / 2);
        ptx_fence_mbarrier_init_release_cluster();
    }
    __syncthreads();

    const int wg = threadIdx.x / 128;
    if (wg == 0) {
        /* ---------------------------------------------------------------- producer */
        ptx_setmaxnreg_dec<SM90_PRODUCER_REGS>();
        if (threadIdx.x == 0) {
            ptx_prefetch_tensormap(&tmap_x);
            ptx_prefetch_tensormap(&tmap_w);
            int stage = 0;
            uint32_t phase = 0;
            for (int unit = blockIdx.x; unit < a.num_units; unit += gridDim.x) {
                int64_t m0;
                int n0, kb0, kb1, split;
                sm90_decode_unit(a, unit, BN, m0, n0, kb0, kb1, split);
                /* output pixel m0 = (nb*P + p0)*Q + q0 -> filter-base coordinates of the box */
                const int64_t nb = m0 / a.pq;
                const int64_t rem = m0 - nb * a.pq;
                const int32_t p0 = (int32_t)(rem / a.q);
                const int32_t q0 = (int32_t)(rem - (int64_t)p0 * a.q);
                const int32_t w0 = q0 * a.stride_w - a.pad_left;
                const int32_t h0 = p0 * a.stride_h - a.pad_top;
                /* k-block kb = (r*S + s)*CB + cb */
                int cb = kb0 % a.c_blocks;
                const int rs = kb0 / a.c_blocks;
                int r = rs / a.filter_s;
                int s = rs - r * a.filter_s;
                for (int kb = kb0; kb < kb1; kb++) {
                    const uint32_t fb = full_bar + 8u * stage;
                    ptx_mbarrier_wait_parity(empty_bar + 8u * stage, phase ^ 1u); /* slot free */
                    ptx_mbarrier_arrive_expect_tx(fb, A_STAGE + B_STAGE_BYTES);
                    if (a.a_tiled)
                        ptx_cp_async_bulk_tensor_2d_tile(a_smem + (uint32_t)stage * A_STAGE, &tmap_x, fb,
                                                         cb * SM90_BK, (int32_t)m0);
                    else
                        ptx_cp_async_bulk_tensor_4d_im2col(a_smem + (uint32_t)stage * A_STAGE, &tmap_x, fb,
                                                           cb * SM90_BK, w0, h0, (int32_t)nb,
                                                           (uint16_t)(s * a.dil_w), (uint16_t)(r * a.dil_h));
                    ptx_cp_async_bulk_tensor_4d_tile(b_smem + (uint32_t)stage * B_STAGE_BYTES, &tmap_w, fb,
                                                     cb * SM90_BK, s, r, n0);
                    if (++cb == a.c_blocks) {
                        cb = 0;
                        if (++s == a.filter_s) {
                            s = 0;
                            ++r;
                        }
                    }
                    if (++stage == S) {
                        stage = 0;
                        phase ^= 1u;
                    }
                }
            }
        }
        return;
    }

    /* -------------------------------------------------------------------- consumers */
    ptx_setmaxnreg_inc<SM90_CONSUMER_REGS>();
    const int cw = wg - 1;                  /* consumer index: rows 64*cw .. 64*cw + 63 (cooperative) */
    const int row_off = a.pingpong ? 0 : 64 * cw; /* this consumer's first row inside a unit */
    const int tid = threadIdx.x - 128 * wg; /* 0..127 inside the warpgroup */
    const int warp = tid >> 5;
    const int lane = tid & 31;
    const bool partial = a.splits > 1;
    /* this consumer's two 8 KB staging boxes (64 rows x 128 B, 128B-swizzled like TMA expects) */
    uint8_t *const stg = epi + cw * 2 * SM90_EPI_BUF_BYTES;
    const uint32_t stg_smem = base + epi_off + (uint32_t)cw * 2u * SM90_EPI_BUF_BYTES;
    uint32_t chunk_count = 0; /* epilogue chunks stored so far: staging buffer = chunk_count & 1 */
    /* residual by TMA into the staging box the output of the same chunk overwrites (each thread
     * reads, then writes, exactly its own elements), prefetched one chunk ahead */
    const bool res_tma = GENERAL && TMA_EPI && a.has_residual;
    const uint32_t my_res_bar = res_bar + 16u * (uint32_t)cw; /* + 8 * buffer */
    uint32_t res_phase = 0;                                    /* bit b: parity of buffer b */
    if (TMA_EPI && threadIdx.x == 128 * wg) ptx_prefetch_tensormap(&tmap_y);

    float acc[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;

    int stage = 0;
    uint32_t phase = 0;
    const int unit_step = a.pingpong ? 2 * (int)gridDim.x : (int)gridDim.x;
    uint32_t order_phase = 0; /* parity of the other consumer's next order-barrier completion */
    for (int unit = blockIdx.x + (a.pingpong ? cw * (int)gridDim.x : 0); unit < a.num_units; unit += unit_step) {
        int64_t m0;
        int n0, kb0, kb1, split;
        sm90_decode_unit(a, unit, BN, m0, n0, kb0, kb1, split);
        const int nk = kb1 - kb0;
        if (a.pingpong) {
            /* the producer fills the ring with every unit of this CTA in order, k_iters k-blocks
             * each: this unit's first k-block sits at ring position local * k_iters */
            const int local = (unit - (int)blockIdx.x) / (int)gridDim.x;
            const int64_t pos = (int64_t)local * a.k_iters;
            stage = (int)(pos % S);
            phase = (uint32_t)((pos / S) & 1);
            /* order: start only after the other consumer finished the mainloop of unit local-1.
             * Then every earlier fill of the stages this unit waits on has been observed, so the
             * parity waits below are never two phases apart (and the mainloops alternate, each
             * consumer's epilogue overlapping the other's MMAs). */
            if (local > 0) {
                ptx_mbarrier_wait_parity(order_bar + 8u * (uint32_t)(cw ^ 1), order_phase);
                order_phase ^= 1u;
            }
        }
        if (res_tma && tid == 0) {
            /* buffer of this tile's chunk 0: its last store (2 chunks ago) must be done reading */
            const uint32_t b = chunk_count & 1u;
            ptx_cp_async_bulk_wait_group_read<1>();
            ptx_mbarrier_arrive_expect_tx(my_res_bar + 8u * b, SM90_EPI_BUF_BYTES);
            ptx_cp_async_bulk_tensor_2d_tile(stg_smem + b * SM90_EPI_BUF_BYTES, &tmap_r, my_res_bar + 8u * b, n0,
                                             (int32_t)(m0 + row_off));
        }

        /* mainloop: stage `stage` holds k-block kb0 + it */
        int prev = 0;
        for (int it = 0; it < nk; it++) {
            ptx_mbarrier_wait_parity(full_bar + 8u * stage, phase); /* TMA bytes landed */
            const uint64_t da =
                wgmma_desc_kmajor_sw128(a_smem + (uint32_t)stage * A_STAGE + (uint32_t)row_off * 128u);
            const uint64_t db = wgmma_desc_kmajor_sw128(b_smem + (uint32_t)stage * B_STAGE_BYTES);
#pragma unroll
            for (int i = 0; i < BN / 2; i++) wgmma_fence_operand(acc[i]);
            ptx_wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < SM90_BK / 16; kk++) /* +32 B per k16 step = +2 encoded */
                sm90_wgmma<DT, BN>(acc, da + 2u * kk, db + 2u * kk, (it > 0 || kk > 0) ? 1 : 0);
            ptx_wgmma_commit_group();
            ptx_wgmma_wait_group<1>(); /* the previous k-block's MMAs are done with their stage */
#pragma unroll
            for (int i = 0; i < BN / 2; i++) wgmma_fence_operand(acc[i]);
            if (it > 0 && lane == 0) ptx_mbarrier_arrive(empty_bar + 8u * prev);
            prev = stage;
            if (++stage == S) {
                stage = 0;
                phase ^= 1u;
            }
        }
        ptx_wgmma_wait_group<0>();
#pragma unroll
        for (int i = 0; i < BN / 2; i++) wgmma_fence_operand(acc[i]);
        if (nk > 0 && lane == 0) ptx_mbarrier_arrive(empty_bar + 8u * prev);
        if (a.pingpong && lane == 0) ptx_mbarrier_arrive(order_bar + 8u * (uint32_t)cw); /* my mainloop is done */
        if (nk == 0) { /* cannot happen with a plan from configure(); keeps the output defined */
#pragma unroll
            for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;
        }

        /* epilogue: fragment -> fused math -> (16-bit y, k % 8 == 0) bf16/f16 staging box in
         * 128B-swizzled smem -> TMA store of 64 x 64 boxes (the hardware clips m >= M, n >= k),
         * double-buffered per consumer; otherwise direct masked pair stores. Fragment layout
         * (src/ptx/wgmma.cuh): acc[4j + 2h + e] is row 16*warp + lane/4 + 8h, column
         * 8j + 2*(lane%4) + e of this consumer's 64 x BN block. */
        const int r_lo = warp * 16 + (lane >> 2); /* and r_lo + 8 */
        const int64_t m_row0 = m0 + row_off + r_lo;
        const bool ok0 = m_row0 < a.gemm_m, ok1 = m_row0 + 8 < a.gemm_m;
        const int64_t rowoff0 = m_row0 * a.gemm_n, rowoff1 = (m_row0 + 8) * a.gemm_n;
        constexpr bool use_tma = TMA_EPI;
#pragma unroll 1
        for (int ch = 0; ch < BN / SM90_EPI_COLS; ch++) {
            if ((int64_t)n0 + ch * SM90_EPI_COLS >= a.gemm_n) break; /* uniform in the warpgroup */

            const uint32_t buf = chunk_count & 1u;
            uint8_t *const box = stg + buf * SM90_EPI_BUF_BYTES;
            if (use_tma) {
                if (tid == 0) {
                    /* the store that last read this buffer (2 chunks ago) must have finished reading */
                    ptx_cp_async_bulk_wait_group_read<1>();
                    if (res_tma && ch + 1 < BN / SM90_EPI_COLS && (int64_t)n0 + (ch + 1) * SM90_EPI_COLS < a.gemm_n) {
                        /* prefetch the next chunk's residual into the other buffer, once the
                         * previous chunk's store has read it */
                        ptx_cp_async_bulk_wait_group_read<0>();
                        const uint32_t nb = buf ^ 1u;
                        ptx_mbarrier_arrive_expect_tx(my_res_bar + 8u * nb, SM90_EPI_BUF_BYTES);
                        ptx_cp_async_bulk_tensor_2d_tile(stg_smem + nb * SM90_EPI_BUF_BYTES, &tmap_r,
                                                         my_res_bar + 8u * nb, n0 + (ch + 1) * SM90_EPI_COLS,
                                                         (int32_t)(m0 + row_off));
                    }
                }
                ptx_bar_sync(1 + cw, 128);
                if (res_tma) {
                    ptx_mbarrier_wait_parity(my_res_bar + 8u * buf, (res_phase >> buf) & 1u);
                    res_phase ^= 1u << buf;
                }
            }
            float cv[16];          /* accumulators of the current half chunk: cv[4(jj%4) + 2h + e] */
            float2 scv[4], biv[4]; /* its per-column scale and bias */
#pragma unroll
            for (int jj = 0; jj < SM90_EPI_COLS / 8; jj++) {
                if ((jj & 3) == 0) { /* next half chunk: its accumulators, scale and bias (all loads first) */
                    sm90_take_half<BN>(acc, 2 * ch + (jj >> 2), cv);
#pragma unroll
                    for (int u = 0; u < 4; u++) {
                        const int64_t nn = (int64_t)n0 + ch * SM90_EPI_COLS + 8 * (jj + u) + 2 * (lane & 3);
                        const int64_t c0 = nn < a.gemm_n ? nn : a.gemm_n - 1;
                        const int64_t c1 = nn + 1 < a.gemm_n ? nn + 1 : a.gemm_n - 1;
                        scv[u] = make_float2(1.0f, 1.0f);
                        biv[u] = make_float2(0.0f, 0.0f);
                        if (GENERAL && !partial && a.has_scale) scv[u] = make_float2(__ldg(a.scale + c0), __ldg(a.scale + c1));
                        if (GENERAL && !partial && a.has_bias) biv[u] = make_float2(__ldg(a.bias + c0), __ldg(a.bias + c1));
                    }
                }
                const int64_t n = (int64_t)n0 + ch * SM90_EPI_COLS + 8 * jj + 2 * (lane & 3);
                float v0 = cv[4 * (jj & 3)], v1 = cv[4 * (jj & 3) + 1], v2 = cv[4 * (jj & 3) + 2], v3 = cv[4 * (jj & 3) + 3];
                /* row r at r*128 B; 16-byte chunk jj of the row at (jj ^ (r & 7)) * 16 */
                const uint32_t in_chunk = 4u * (uint32_t)(lane & 3);
                const int ra = r_lo, rb = r_lo + 8;
                uint32_t *const pa = (uint32_t *)(box + ra * 128 + ((jj ^ (ra & 7)) << 4) + in_chunk);
                uint32_t *const pb = (uint32_t *)(box + rb * 128 + ((jj ^ (rb & 7)) << 4) + in_chunk);
                if (res_tma) {
                    /* v = act(alpha*scale*acc + bias + beta*residual), residual from the box */
                    const float2 ra2 = sm90_unpack2(a.out_dtype, *pa), rb2 = sm90_unpack2(a.out_dtype, *pb);
                    v0 = (a.alpha * v0) * scv[jj & 3].x + biv[jj & 3].x + a.beta * ra2.x;
                    v1 = (a.alpha * v1) * scv[jj & 3].y + biv[jj & 3].y + a.beta * ra2.y;
                    v2 = (a.alpha * v2) * scv[jj & 3].x + biv[jj & 3].x + a.beta * rb2.x;
                    v3 = (a.alpha * v3) * scv[jj & 3].y + biv[jj & 3].y + a.beta * rb2.y;
                    if (a.act != IGEMM_ACT_NONE) {
                        v0 = sm90_act(a, v0);
                        v1 = sm90_act(a, v1);
                        v2 = sm90_act(a, v2);
                        v3 = sm90_act(a, v3);
                    }
                } else if (!partial) {
                    sm90_epi_pair<GENERAL>(a, v0, v1, rowoff0, n, ok0, scv[jj & 3], biv[jj & 3]);
                    sm90_epi_pair<GENERAL>(a, v2, v3, rowoff1, n, ok1, scv[jj & 3], biv[jj & 3]);
                }
                if (use_tma) {
                    *pa = sm90_pack2(a.out_dtype, v0, v1);
                    *pb = sm90_pack2(a.out_dtype, v2, v3);
                } else {
                    sm90_store_pair(a, rowoff0, n, ok0, v0, v1, partial, split);
                    sm90_store_pair(a, rowoff1, n, ok1, v2, v3, partial, split);
                }
            }
            if (use_tma) {
                ptx_fence_proxy_async_shared_cta(); /* st.shared -> visible to the TMA (async proxy) */
                ptx_bar_sync(1 + cw, 128);
                if (tid == 0) {
                    ptx_cp_async_bulk_tensor_2d_global_shared_cta(&tmap_y, stg_smem + buf * SM90_EPI_BUF_BYTES,
                                                                  n0 + ch * SM90_EPI_COLS, (int32_t)(m0 + row_off));
                    ptx_cp_async_bulk_commit_group();
                }
                chunk_count++;
            }
        }
    }
    if (TMA_EPI && tid == 0) ptx_cp_async_bulk_wait_group<0>(); /* all TMA stores complete before exit */
}


typedef void (*sm90_kernel_fn)(CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap, igemm_sm90_args_t);

/* Kernel instances for one input dtype, chosen by (BN, epilogue kind, store path). Defined in
 * conv2d_fprop_bf16.cu and conv2d_fprop_f16.cu (one translation unit per dtype so the
 * instances compile in parallel). */
sm90_kernel_fn igemm_sm90_pick_bf16(int bn, bool general, bool tma_epi);
sm90_kernel_fn igemm_sm90_pick_f16(int bn, bool general, bool tma_epi);

#define SM90_DEFINE_PICK(NAME, DT)                                                                     \
    sm90_kernel_fn NAME(int bn, bool general, bool tma_epi)                                            \
    {                                                                                                  \
        if (general) {                                                                                 \
            if (tma_epi) {                                                                             \
                if (bn == 256) return igemm_sm90_conv2d_fprop_kernel<DT, 256, true, true>;             \
                if (bn == 128) return igemm_sm90_conv2d_fprop_kernel<DT, 128, true, true>;             \
                if (bn == 64) return igemm_sm90_conv2d_fprop_kernel<DT, 64, true, true>;               \
            } else {                                                                                   \
                if (bn == 256) return igemm_sm90_conv2d_fprop_kernel<DT, 256, true, false>;            \
                if (bn == 128) return igemm_sm90_conv2d_fprop_kernel<DT, 128, true, false>;            \
                if (bn == 64) return igemm_sm90_conv2d_fprop_kernel<DT, 64, true, false>;              \
            }                                                                                          \
        } else {                                                                                       \
            if (tma_epi) {                                                                             \
                if (bn == 256) return igemm_sm90_conv2d_fprop_kernel<DT, 256, false, true>;            \
                if (bn == 128) return igemm_sm90_conv2d_fprop_kernel<DT, 128, false, true>;            \
                if (bn == 64) return igemm_sm90_conv2d_fprop_kernel<DT, 64, false, true>;              \
            } else {                                                                                   \
                if (bn == 256) return igemm_sm90_conv2d_fprop_kernel<DT, 256, false, false>;           \
                if (bn == 128) return igemm_sm90_conv2d_fprop_kernel<DT, 128, false, false>;           \
                if (bn == 64) return igemm_sm90_conv2d_fprop_kernel<DT, 64, false, false>;             \
            }                                                                                          \
        }                                                                                              \
        return NULL;                                                                                   \
    }

#endif /* IGEMM_SM90_CONV2D_FPROP_KERNEL_CUH */
