/*
 * conv2d_fprop.cu — the Hopper (sm_90a) fast path: implicit-GEMM conv2d forward with TMA
 * im2col loads and wgmma, warp specialised and persistent. Exports igemm_family_sm90.
 *
 * ALGORITHM
 *   GEMM view (DESIGN.md): M = n*p*q output pixels, N = k output channels, K = r*s*c.
 *   The K loop runs over "k-blocks" kb = (r*S + s)*CB + cb, CB = ceil(c/64): for each filter
 *   tap (r, s), for each block of BK = 64 input channels. A k-block is one pipeline stage:
 *     A tile  BM x 64  (BM = 128 output pixels x 64 channels of tap (r, s))  by TMA im2col
 *     B tile  BN x 64  (BN output channels x 64 channels of tap (r, s))      by TMA tiled
 *   The last channel block may be partial: TMA zero-fills channels >= c in both A and B, so
 *   they add nothing. Pixels m >= M (the tile runs past the end) are read from image
 *   n >= N, which is out of bounds -> zero; the epilogue masks m >= M and n >= k.
 *
 * CTA (384 threads, __launch_bounds__(384, 1), one CTA per SM, persistent)
 *   warpgroup 0  producer: setmaxnreg.dec 40; one thread issues all TMA loads into an
 *                S-stage ring guarded by full/empty mbarriers.
 *   warpgroups 1, 2  consumers: setmaxnreg.inc 232; consumer i owns rows 64i..64i+63 of the
 *                128-row tile and issues wgmma.mma_async m64nBNk16 (4 per k-block, K = 16
 *                each), keeps 1 wgmma group in flight, and releases the previous stage.
 *   Work units = (tile, split) pairs, split-major, tiles rasterised in groups of GROUP_M
 *   M-tiles (consecutive units share the filter tile in L2). CTA b takes units b, b + grid,
 *   ...; producer and consumers walk the same sequence. The producer runs ahead into the
 *   next unit's stages while the consumers run the epilogue, so the next mainloop's loads
 *   overlap this epilogue.
 *
 * SHARED MEMORY (dynamic; base rounded up to 1024 B, the 128B-swizzle repeat)
 *   A ring   S x 16 KB        (128 rows x 128 B, 128B-swizzled, K-major)
 *   B ring   S x BN*128 B     (BN rows x 128 B, 128B-swizzled, K-major)
 *   epilogue staging 2 x 64 x 40 fp32 (one 64 x 32 chunk per consumer, row pitch 40 floats)
 *   mbarriers full[S] (count 1 + tx bytes), empty[S] (count 8: lane 0 of each consumer warp)
 *   S = 4 (BN 256), 6 (BN 128), 8 (BN 64) with 227 KB of opt-in shared memory.
 *
 * TMA IM2COL COORDINATES (PTX ISA 5.5.4 "im2col mode"; cuTensorMapEncodeIm2col)
 *   Tensor map over x, rank 4, dims {C, W, H, N} (innermost first), byte strides
 *   {C*2, W*C*2, H*W*C*2}, channelsPerPixel = 64, pixelsPerColumn = 128, traversal strides
 *   {1, stride_w, stride_h, 1}, SWIZZLE_128B, zero OOB fill.
 *   Bounding box (per image, in the W/H plane, at im2col offset 0): [lower, size-1+upper]
 *   per spatial dim. The TMA walks pixels through the box with the traversal stride: along
 *   W from the instruction's w coordinate, wrapping to the box's lower W corner on the next
 *   H row (h += stride_h), wrapping to the next image (n + 1) after the box's last H row.
 *   Box positions along W are lower_w + j*stride_w, j = 0 .. ceil(width/stride_w) - 1, with
 *   width = W + upper_w - lower_w. For these positions to be exactly the conv's output
 *   columns q = 0..Q-1 (input column of tap s = 0 is q*stride_w - pad_left):
 *       lower_w = -pad_left
 *       width   = (Q-1)*stride_w + 1   ->  upper_w = (Q-1)*stride_w + 1 - W - pad_left
 *   (= pad_right - dil_w*(S-1) when the padding divides exactly; computing it from Q makes
 *   the box right whatever pad_right is, since ceil(((Q-1)*stride + 1)/stride) = Q). Same
 *   for H with pad_top, P, stride_h. Both corners must lie in [-128, 127] (4-D maps).
 *   A tile starting at output pixel m0 = (nb*P + p0)*Q + q0 loads with coordinates
 *       {c0, q0*stride_w - pad_left, p0*stride_h - pad_top, nb}   (c0 = 64*cb)
 *   = the box position of output pixel (nb, p0, q0) for tap (0, 0); pixel i of the tile is
 *   output pixel m0 + i (row-major over (n, p, q) by the wrap rule above). The im2col
 *   offsets {s*dil_w, r*dil_h} (16-bit, [0, 255] for 4-D maps) shift every pixel to tap
 *   (r, s): input (h, w) = (p*stride_h - pad_top + r*dil_h, q*stride_w - pad_left + s*dil_w),
 *   exactly A[m, k] of DESIGN.md; positions outside the real tensor read zero (padding).
 *   Filter map: tiled, rank 4, dims {C, S, R, K}, box {64, 1, 1, BN}, coordinates
 *   {c0, s, r, n0}: a BN x 64 K-major tile whose channels >= C read zero (a 2-D {RSC, K}
 *   map would instead read the next tap's channels there).
 *
 * WGMMA
 *   Descriptors (src/ptx/wgmma.cuh): K-major, 128B swizzle, SBO = 1024 B, base offset 0;
 *   the k-th 16-element slice of a stage is the tile start + 32*k bytes. Consumer i's A
 *   operand starts at row 64i (+8 KB). Accumulators: BN/2 fp32 registers per thread.
 *
 * EPILOGUE
 *   Per 32-column chunk: fragments -> padded fp32 staging in shared memory (named barrier per
 *   consumer warpgroup) -> each thread reads 4 consecutive columns of a row and applies
 *       v = alpha*acc; v *= scale[k]; v += bias[k]; v += beta*residual[m,k]; v = act(v)
 *   (the order of src/common/epilogue.cuh), then stores 4 elements (8 B for 16-bit y, 16 B
 *   for fp32) when k % 4 == 0, else element by element; masks m >= M, n >= k. With split-K
 *   each split stores raw fp32 partials to workspace[split][M][k] instead, and
 *   igemm_sm90_splitk_reduce_kernel sums the splits in fixed order (deterministic) and applies
 *   the epilogue. All tensor offsets are 64-bit.
 *
 * PTX FEATURES: cp.async.bulk.tensor (tile + im2col), mbarrier expect_tx/try_wait.parity,
 *   wgmma.mma_async/fence/commit_group/wait_group, setmaxnreg, prefetch.tensormap, bar.sync.
 *
 * ASSUMPTIONS: run() is only called with x, w, y and residual 16-byte aligned (api.c checks
 *   and falls back to the general path otherwise), on the device the plan was made for.
 */
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
#define SM90_A_STAGE_BYTES (SM90_BM * SM90_BK * 2) /* 16 KB */
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
    int32_t tma_store; /* y written by TMA stores from bf16/f16 staging (16-bit y, k % 8 == 0, no split) */
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
    m0 = (int64_t)tm * SM90_BM;
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
        v0 = igemm_act_dev(a.act, v0, a.act_param);
        v1 = igemm_act_dev(a.act, v1, a.act_param);
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
 * GENERAL: the epilogue has scale/bias/residual/activation (else y = alpha * acc). */
template <int DT, int BN, bool GENERAL>
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
    const uint32_t b_smem = base + (uint32_t)S * SM90_A_STAGE_BYTES;
    const uint32_t epi_off = (uint32_t)S * (SM90_A_STAGE_BYTES + B_STAGE_BYTES); /* multiple of 1024 */
    uint8_t *const epi = smem_raw + (base - raw) + epi_off; /* generic pointer to the staging */
    const uint32_t full_bar = base + epi_off + SM90_EPI_BYTES; /* full[i]  = full_bar + 8 i  */
    const uint32_t empty_bar = full_bar + 8u * (uint32_t)S;     /* empty[i] = empty_bar + 8 i */
    const uint32_t res_bar = empty_bar + 8u * (uint32_t)S;      /* res[2*consumer + buffer]   */

    if (threadIdx.x == 0) {
        for (int i = 0; i < S; i++) {
            ptx_mbarrier_init(full_bar + 8u * i, 1);
            ptx_mbarrier_init(empty_bar + 8u * i, SM90_CONSUMER_ARRIVALS);
        }
        for (int i = 0; i < 4; i++) ptx_mbarrier_init(res_bar + 8u * i, 1);
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
                    ptx_mbarrier_arrive_expect_tx(fb, SM90_A_STAGE_BYTES + B_STAGE_BYTES);
                    ptx_cp_async_bulk_tensor_4d_im2col(a_smem + (uint32_t)stage * SM90_A_STAGE_BYTES, &tmap_x, fb,
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
    const int cw = wg - 1;                  /* consumer index: rows 64*cw .. 64*cw + 63 */
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
    const bool res_tma = GENERAL && a.has_residual && a.tma_store && !partial;
    const uint32_t my_res_bar = res_bar + 16u * (uint32_t)cw; /* + 8 * buffer */
    uint32_t res_phase = 0;                                    /* bit b: parity of buffer b */
    if (threadIdx.x == 128 * wg && a.tma_store) ptx_prefetch_tensormap(&tmap_y);

    float acc[BN / 2];
#pragma unroll
    for (int i = 0; i < BN / 2; i++) acc[i] = 0.0f;

    int stage = 0;
    uint32_t phase = 0;
    for (int unit = blockIdx.x; unit < a.num_units; unit += gridDim.x) {
        int64_t m0;
        int n0, kb0, kb1, split;
        sm90_decode_unit(a, unit, BN, m0, n0, kb0, kb1, split);
        const int nk = kb1 - kb0;
        if (res_tma && tid == 0) {
            /* buffer of this tile's chunk 0: its last store (2 chunks ago) must be done reading */
            const uint32_t b = chunk_count & 1u;
            ptx_cp_async_bulk_wait_group_read<1>();
            ptx_mbarrier_arrive_expect_tx(my_res_bar + 8u * b, SM90_EPI_BUF_BYTES);
            ptx_cp_async_bulk_tensor_2d_tile(stg_smem + b * SM90_EPI_BUF_BYTES, &tmap_r, my_res_bar + 8u * b, n0,
                                             (int32_t)(m0 + 64 * cw));
        }

        /* mainloop: stage `stage` holds k-block kb0 + it */
        int prev = 0;
        for (int it = 0; it < nk; it++) {
            ptx_mbarrier_wait_parity(full_bar + 8u * stage, phase); /* TMA bytes landed */
            const uint64_t da =
                wgmma_desc_kmajor_sw128(a_smem + (uint32_t)stage * SM90_A_STAGE_BYTES + (uint32_t)cw * 64u * 128u);
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
        const int64_t m_row0 = m0 + 64 * cw + r_lo;
        const bool ok0 = m_row0 < a.gemm_m, ok1 = m_row0 + 8 < a.gemm_m;
        const int64_t rowoff0 = m_row0 * a.gemm_n, rowoff1 = (m_row0 + 8) * a.gemm_n;
        const bool use_tma = a.tma_store && !partial;
#pragma unroll
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
                                                         (int32_t)(m0 + 64 * cw));
                    }
                }
                ptx_bar_sync(1 + cw, 128);
                if (res_tma) {
                    ptx_mbarrier_wait_parity(my_res_bar + 8u * buf, (res_phase >> buf) & 1u);
                    res_phase ^= 1u << buf;
                }
            }
            /* per-column scale and bias of this chunk, all loads issued before any use */
            float2 scv[SM90_EPI_COLS / 8], biv[SM90_EPI_COLS / 8];
#pragma unroll
            for (int jj = 0; jj < SM90_EPI_COLS / 8; jj++) {
                const int64_t n = (int64_t)n0 + ch * SM90_EPI_COLS + 8 * jj + 2 * (lane & 3);
                const int64_t c0 = n < a.gemm_n ? n : a.gemm_n - 1, c1 = n + 1 < a.gemm_n ? n + 1 : a.gemm_n - 1;
                scv[jj] = make_float2(1.0f, 1.0f);
                biv[jj] = make_float2(0.0f, 0.0f);
                if (GENERAL && !partial && a.has_scale) scv[jj] = make_float2(__ldg(a.scale + c0), __ldg(a.scale + c1));
                if (GENERAL && !partial && a.has_bias) biv[jj] = make_float2(__ldg(a.bias + c0), __ldg(a.bias + c1));
            }
#pragma unroll
            for (int jj = 0; jj < SM90_EPI_COLS / 8; jj++) {
                const int j = ch * (SM90_EPI_COLS / 8) + jj;
                const int64_t n = (int64_t)n0 + 8 * j + 2 * (lane & 3);
                float v0 = acc[4 * j], v1 = acc[4 * j + 1], v2 = acc[4 * j + 2], v3 = acc[4 * j + 3];
                /* row r at r*128 B; 16-byte chunk jj of the row at (jj ^ (r & 7)) * 16 */
                const uint32_t in_chunk = 4u * (uint32_t)(lane & 3);
                const int ra = r_lo, rb = r_lo + 8;
                uint32_t *const pa = (uint32_t *)(box + ra * 128 + ((jj ^ (ra & 7)) << 4) + in_chunk);
                uint32_t *const pb = (uint32_t *)(box + rb * 128 + ((jj ^ (rb & 7)) << 4) + in_chunk);
                if (res_tma) {
                    /* v = act(alpha*scale*acc + bias + beta*residual), residual from the box */
                    const float2 ra2 = sm90_unpack2(a.out_dtype, *pa), rb2 = sm90_unpack2(a.out_dtype, *pb);
                    v0 = (a.alpha * v0) * scv[jj].x + biv[jj].x + a.beta * ra2.x;
                    v1 = (a.alpha * v1) * scv[jj].y + biv[jj].y + a.beta * ra2.y;
                    v2 = (a.alpha * v2) * scv[jj].x + biv[jj].x + a.beta * rb2.x;
                    v3 = (a.alpha * v3) * scv[jj].y + biv[jj].y + a.beta * rb2.y;
                    if (a.act != IGEMM_ACT_NONE) {
                        v0 = igemm_act_dev(a.act, v0, a.act_param);
                        v1 = igemm_act_dev(a.act, v1, a.act_param);
                        v2 = igemm_act_dev(a.act, v2, a.act_param);
                        v3 = igemm_act_dev(a.act, v3, a.act_param);
                    }
                } else if (!partial) {
                    sm90_epi_pair<GENERAL>(a, v0, v1, rowoff0, n, ok0, scv[jj], biv[jj]);
                    sm90_epi_pair<GENERAL>(a, v2, v3, rowoff1, n, ok1, scv[jj], biv[jj]);
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
                                                                  n0 + ch * SM90_EPI_COLS, (int32_t)(m0 + 64 * cw));
                    ptx_cp_async_bulk_commit_group();
                }
                chunk_count++;
            }
        }
    }
    if (tid == 0) ptx_cp_async_bulk_wait_group<0>(); /* all TMA stores complete before exit */
}

/* Split-K reduction: y[m, n] = epilogue(sum over splits, in order, of workspace[split][m][n]).
 * One thread per 4 consecutive columns of a row; grid-stride. */
__global__ void __launch_bounds__(256) igemm_sm90_splitk_reduce_kernel(const __grid_constant__ igemm_sm90_args_t a)
{
    const int64_t nq = (a.gemm_n + 3) / 4;
    const int64_t total = a.gemm_m * nq;
    const int64_t plane = a.gemm_m * a.gemm_n;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < total; i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t m = i / nq;
        const int64_t n = (i - m * nq) * 4;
        const int64_t off = m * a.gemm_n + n;
        const int64_t left = a.gemm_n - n;
        float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int sp = 0; sp < a.splits; sp++) {
            const float *src = a.workspace + (int64_t)sp * plane + off;
            if (left >= 4 && a.vec4) {
                const float4 t = *(const float4 *)src;
                sum.x += t.x, sum.y += t.y, sum.z += t.z, sum.w += t.w;
            } else {
                sum.x += src[0];
                if (left > 1) sum.y += src[1];
                if (left > 2) sum.z += src[2];
                if (left > 3) sum.w += src[3];
            }
        }
        sm90_store4(a, m, n, sum, false, 0);
    }
}

/* ------------------------------------------------------------------ host code */

/* Per-plan cached state (inside the family's 4096-byte scratch, 64-byte aligned). */
typedef struct sm90_state {
    CUtensorMap tmap_x; /* im2col map of x; valid when have_x */
    CUtensorMap tmap_w; /* tiled map of the filter; valid when have_w */
    CUtensorMap tmap_y; /* tiled 2-D {k, M} map of y for TMA stores; valid when have_y */
    CUtensorMap tmap_r; /* the same map over the residual (TMA loads); valid when have_r */
    const void *r_key;
    int have_r;
    const void *x_key;
    const void *y_key;
    int have_y;
    const void *w_key;
    int w_bn; /* box rows the filter map was encoded for */
    int have_x, have_w;
    int smem_attr_done; /* cudaFuncAttributeMaxDynamicSharedMemorySize set for this plan's kernel */
} sm90_state_t;

static_assert(sizeof(sm90_state_t) + 63 <= IGEMM_FAMILY_STATE_BYTES, "sm90 state must fit the family scratch");

static sm90_state_t *sm90_state_of(void *state)
{
    return (sm90_state_t *)(((uintptr_t)state + 63u) & ~(uintptr_t)63u);
}

/* Bounding-box corners of the im2col map (see the header comment): lower = -pad_begin,
 * upper = (out-1)*stride + 1 - size - pad_begin. */
static void sm90_corners(const igemm_conv_params_t *p, int64_t *lo_w, int64_t *lo_h, int64_t *up_w, int64_t *up_h)
{
    *lo_w = -p->pad_left;
    *lo_h = -p->pad_top;
    *up_w = (p->q - 1) * p->stride_w + 1 - p->w - p->pad_left;
    *up_h = (p->p - 1) * p->stride_h + 1 - p->h - p->pad_top;
}

static size_t sm90_smem_bytes(int bn, int stages)
{
    return (size_t)SM90_ALIGN_SLACK + (size_t)stages * (SM90_A_STAGE_BYTES + (size_t)bn * SM90_BK * 2) +
           SM90_EPI_BYTES + (size_t)stages * 16 + 32;
}

static int sm90_stages_for(int bn, int smem_optin)
{
    int s = SM90_MAX_STAGES;
    while (s >= 2 && sm90_smem_bytes(bn, s) > (size_t)smem_optin) s--;
    return s;
}

#define SM90_WHY(...)                                                                                  \
    do {                                                                                               \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                       \
    } while (0)

static int sm90_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, char *why, size_t why_len)
{
    const int64_t lim31 = ((int64_t)1 << 30); /* TMA coordinates are signed 32-bit: keep headroom */
    int64_t lo_w, lo_h, up_w, up_h;
    if (dev->cc_major != 9 || dev->cc_minor != 0) {
        SM90_WHY("device cc %d.%d: the TMA/wgmma kernels are built for sm_90a only", dev->cc_major, dev->cc_minor);
        return 0;
    }
    if (p->groups != 1) {
        SM90_WHY("groups = %lld: the TMA im2col path takes groups == 1 only", (long long)p->groups);
        return 0;
    }
    if (p->in_dtype != IGEMM_DTYPE_F16 && p->in_dtype != IGEMM_DTYPE_BF16) {
        SM90_WHY("x dtype = %d: wgmma path takes f16 or bf16 inputs", (int)p->in_dtype);
        return 0;
    }
    if (p->c % 8 != 0) {
        SM90_WHY("c = %lld: TMA im2col needs c %% 8 == 0 (16-byte pixel rows)", (long long)p->c);
        return 0;
    }
    if (p->stride_h > 8 || p->stride_w > 8) {
        SM90_WHY("stride = %lldx%lld: TMA traversal strides are at most 8", (long long)p->stride_h,
                 (long long)p->stride_w);
        return 0;
    }
    if ((p->r - 1) * p->dil_h > 255 || (p->s - 1) * p->dil_w > 255) {
        SM90_WHY("filter extent (r-1)*dil_h = %lld, (s-1)*dil_w = %lld: 4-D im2col offsets are at most 255",
                 (long long)((p->r - 1) * p->dil_h), (long long)((p->s - 1) * p->dil_w));
        return 0;
    }
    sm90_corners(p, &lo_w, &lo_h, &up_w, &up_h);
    if (lo_w < -128 || lo_h < -128 || lo_w > 127 || lo_h > 127) {
        SM90_WHY("pad_top = %lld, pad_left = %lld: im2col lower corner -pad must be in [-128, 127]",
                 (long long)p->pad_top, (long long)p->pad_left);
        return 0;
    }
    if (up_w < -128 || up_h < -128 || up_w > 127 || up_h > 127) {
        SM90_WHY("im2col upper corner (w %lld, h %lld) = (out-1)*stride + 1 - size - pad_begin must be in "
                 "[-128, 127] (padding or filter extent too large)",
                 (long long)up_w, (long long)up_h);
        return 0;
    }
    if (p->n > lim31 || p->h > lim31 || p->w > lim31 || p->c > lim31 || p->k > lim31 || p->p > lim31 ||
        p->q > lim31) {
        SM90_WHY("a dimension exceeds 2^30 (n %lld, h %lld, w %lld, c %lld, k %lld): TMA coordinates are 32-bit",
                 (long long)p->n, (long long)p->h, (long long)p->w, (long long)p->c, (long long)p->k);
        return 0;
    }
    /* byte strides < 2^40 (TMA): the largest are h*w*c*2 (x) and r*s*c*2 (filter) */
    if (p->h * p->w * p->c * 2 >= ((int64_t)1 << 40) || p->r * p->s * p->c * 2 >= ((int64_t)1 << 40)) {
        SM90_WHY("image or filter too large: TMA byte strides must be < 2^40");
        return 0;
    }
    const int64_t k_iters = p->r * p->s * ((p->c + SM90_BK - 1) / SM90_BK);
    const int64_t units = ((p->gemm_m + SM90_BM - 1) / SM90_BM) * ((p->gemm_n + 63) / 64);
    if (k_iters > INT32_MAX / 2 || units > INT32_MAX / 2) {
        SM90_WHY("GEMM too large for 32-bit tile/k-block counters (M %lld, N %lld, k-blocks %lld)",
                 (long long)p->gemm_m, (long long)p->gemm_n, (long long)k_iters);
        return 0;
    }
    if (sm90_stages_for(64, dev->smem_optin_per_block) < 2) {
        SM90_WHY("opt-in shared memory per block = %d B: too small for 2 pipeline stages", dev->smem_optin_per_block);
        return 0;
    }
    return 1;
}

/* Planner. A rough cost model (microseconds on an H100-class SM) picks BN and the split:
 *   t_kblock(BN) = 128*BN*64*2 flop / (7.0e6 flop/us * eff(BN)), eff = 1.0 / 0.9 / 0.6
 *                  for BN = 256 / 128 / 64 (small N tiles are load-bound)
 *   t_unit       = t_kblock * ceil(k_blocks / split) + epilogue (128*BN / 65536 us)
 *   t            = ceil(units / grid) * t_unit  (+ for split > 1: 2 us + the partials'
 *                  write + read at 3 TB/s), units = tiles * split, grid = min(units, SMs).
 * BN = 256 is only tried when k > 128, BN = 128 when k > 64. A split keeps >= 4 k-blocks per
 * split and a workspace <= 256 MB. Ties go to the first candidate (larger BN, no split). */
static igemm_status_t sm90_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                     igemm_kernel_config_t *cfg)
{
    static const int bns[3] = {256, 128, 64};
    const int64_t M = p->gemm_m, N = p->gemm_n;
    const int c_blocks = (int)((p->c + SM90_BK - 1) / SM90_BK);
    const int k_iters = (int)(p->r * p->s * c_blocks);
    const int sms = dev->sm_count > 0 ? dev->sm_count : 132;
    const double out_size = p->out_dtype == IGEMM_DTYPE_F32 ? 4.0 : 2.0;
    double best_t = 0.0;
    int best_bn = 0, best_split = 1, best_stages = 0;
    for (int bi = 0; bi < 3; bi++) {
        const int bn = bns[bi];
        if (bn == 256 && N <= 128) continue;
        if (bn == 128 && N <= 64) continue;
        const int stages = sm90_stages_for(bn, dev->smem_optin_per_block);
        if (stages < 2) continue;
        const double eff = bn == 256 ? 1.0 : bn == 128 ? 0.9 : 0.6;
        const int64_t tiles = ((M + SM90_BM - 1) / SM90_BM) * ((N + bn - 1) / bn);
        const double t_kb = (double)SM90_BM * bn * SM90_BK * 2.0 / (7.0e6 * eff);
        for (int split = 1; split <= SM90_MAX_SPLITS; split++) {
            if (split > 1 && k_iters / split < 4) break;
            if (split > 1 && (double)split * (double)M * (double)N * 4.0 > (double)SM90_MAX_WORKSPACE) break;
            const int64_t units = tiles * split;
            if (units > INT32_MAX / 2) break;
            const int64_t grid = units < sms ? units : sms;
            const int64_t waves = (units + grid - 1) / grid;
            const double t_unit = t_kb * (double)((k_iters + split - 1) / split) + (double)SM90_BM * bn / 65536.0;
            double t = (double)waves * t_unit;
            if (split > 1) t += 2.0 + ((double)split * 8.0 + out_size) * (double)M * (double)N / 3.0e6;
            if (best_bn == 0 || t < best_t) {
                best_t = t;
                best_bn = bn;
                best_split = split;
                best_stages = stages;
            }
        }
    }
    if (best_bn == 0)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 configure: no tile fits %d B of shared memory",
                               dev->smem_optin_per_block);
    const int64_t tiles = ((M + SM90_BM - 1) / SM90_BM) * ((N + best_bn - 1) / best_bn);
    const int64_t units = tiles * best_split;
    cfg->bm = SM90_BM;
    cfg->bn = best_bn;
    cfg->bk = SM90_BK;
    cfg->stages = best_stages;
    cfg->threads = SM90_THREADS;
    cfg->consumers = 2;
    cfg->cluster_m = 1;
    cfg->split_k = best_split;
    cfg->variant = SM90_GROUP_M;
    cfg->grid = (int)(units < sms ? units : sms);
    cfg->smem_bytes = sm90_smem_bytes(best_bn, best_stages);
    cfg->workspace_bytes = best_split > 1 ? (size_t)best_split * (size_t)M * (size_t)N * sizeof(float) : 0;
    snprintf(cfg->desc, sizeof cfg->desc,
             "TMA im2col + wgmma, tile %dx%dx%d, %d stages, 1 producer + 2 consumer warpgroups, persistent grid "
             "%d over %lld tiles x %d split(s)%s, %zu B smem, est %.1f us",
             SM90_BM, best_bn, SM90_BK, best_stages, cfg->grid, (long long)tiles, best_split,
             best_split > 1 ? " (fp32 workspace + reduce kernel)" : "", cfg->smem_bytes, best_t);
    return IGEMM_STATUS_SUCCESS;
}

typedef void (*sm90_kernel_fn)(CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap, igemm_sm90_args_t);

#define SM90_PICK_BN(DT, GEN)                                                                          \
    do {                                                                                               \
        if (bn == 256) return igemm_sm90_conv2d_fprop_kernel<DT, 256, GEN>;                            \
        if (bn == 128) return igemm_sm90_conv2d_fprop_kernel<DT, 128, GEN>;                            \
        if (bn == 64) return igemm_sm90_conv2d_fprop_kernel<DT, 64, GEN>;                              \
    } while (0)

/* The kernel instance for (input dtype, BN, epilogue kind). */
static sm90_kernel_fn sm90_pick_kernel(igemm_dtype_t dt, int bn, bool general)
{
    if (dt == IGEMM_DTYPE_BF16) {
        if (general) SM90_PICK_BN(IGEMM_DTYPE_BF16, true);
        else SM90_PICK_BN(IGEMM_DTYPE_BF16, false);
    } else if (dt == IGEMM_DTYPE_F16) {
        if (general) SM90_PICK_BN(IGEMM_DTYPE_F16, true);
        else SM90_PICK_BN(IGEMM_DTYPE_F16, false);
    }
    return NULL;
}

/* 1 if the epilogue needs more than y = alpha * acc. */
static bool sm90_general_epilogue(const igemm_conv_params_t *p)
{
    return p->has_scale || p->has_bias || p->has_residual || p->act != IGEMM_ACT_NONE;
}

static igemm_status_t sm90_cuda_fail(const char *what, cudaError_t e)
{
    return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "sm90 %s failed: %s (%s)", what, cudaGetErrorString(e),
                           cudaGetErrorName(e));
}

static igemm_status_t sm90_run(const igemm_conv_params_t *p, const igemm_kernel_config_t *cfg, void *workspace,
                               void *state, void *stream)
{
    sm90_state_t *st = sm90_state_of(state);
    const int bn = cfg->bn;
    const bool general = sm90_general_epilogue(p);
    const sm90_kernel_fn kern = sm90_pick_kernel(p->in_dtype, bn, general);
    igemm_status_t rc;
    if (kern == NULL)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 run: no kernel for dtype %d, bn %d",
                               (int)p->in_dtype, bn);
    if (cfg->split_k > 1 && workspace == NULL)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 run: split-K %d needs a workspace of %zu B",
                               cfg->split_k, cfg->workspace_bytes);

    /* (re-)encode the tensor maps when an operand pointer changed */
    if (!st->have_x || st->x_key != p->x) {
        int64_t lo_w, lo_h, up_w, up_h;
        sm90_corners(p, &lo_w, &lo_h, &up_w, &up_h);
        const uint64_t dims[4] = {(uint64_t)p->c, (uint64_t)p->w, (uint64_t)p->h, (uint64_t)p->n};
        const uint64_t strides[3] = {(uint64_t)p->c * 2, (uint64_t)(p->w * p->c * 2),
                                     (uint64_t)(p->h * p->w * p->c * 2)};
        const int lower[2] = {(int)lo_w, (int)lo_h};
        const int upper[2] = {(int)up_w, (int)up_h};
        const uint32_t es[4] = {1, (uint32_t)p->stride_w, (uint32_t)p->stride_h, 1};
        st->have_x = 0;
        rc = igemm_tmap_encode_im2col(&st->tmap_x, p->in_dtype, p->x, 4, dims, strides, lower, upper, SM90_BK,
                                      SM90_BM, es, CU_TENSOR_MAP_SWIZZLE_128B);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->x_key = p->x;
        st->have_x = 1;
    }
    if (!st->have_w || st->w_key != p->filter || st->w_bn != bn) {
        const uint64_t dims[4] = {(uint64_t)p->c, (uint64_t)p->s, (uint64_t)p->r, (uint64_t)p->k};
        const uint64_t strides[3] = {(uint64_t)p->c * 2, (uint64_t)(p->s * p->c * 2),
                                     (uint64_t)(p->r * p->s * p->c * 2)};
        const uint32_t box[4] = {SM90_BK, 1, 1, (uint32_t)bn};
        st->have_w = 0;
        rc = igemm_tmap_encode_tiled(&st->tmap_w, p->in_dtype, p->filter, 4, dims, strides, box,
                                     CU_TENSOR_MAP_SWIZZLE_128B);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->w_key = p->filter;
        st->w_bn = bn;
        st->have_w = 1;
    }

    /* TMA stores of y: 16-bit y, row pitch k*2 a multiple of 16 B, no split, 32-bit rows */
    const int tma_store = p->out_dtype != IGEMM_DTYPE_F32 && p->k % 8 == 0 && cfg->split_k <= 1 &&
                          p->gemm_m < ((int64_t)1 << 31) - 256;
    if (tma_store && (!st->have_y || st->y_key != p->y)) {
        const uint64_t dims[2] = {(uint64_t)p->k, (uint64_t)p->gemm_m};
        const uint64_t strides[1] = {(uint64_t)p->k * 2};
        const uint32_t box[2] = {SM90_EPI_COLS, 64};
        st->have_y = 0;
        rc = igemm_tmap_encode_tiled(&st->tmap_y, p->out_dtype, p->y, 2, dims, strides, box,
                                     CU_TENSOR_MAP_SWIZZLE_128B);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->y_key = p->y;
        st->have_y = 1;
    }
    if (tma_store && p->has_residual && (!st->have_r || st->r_key != p->residual)) {
        const uint64_t dims[2] = {(uint64_t)p->k, (uint64_t)p->gemm_m};
        const uint64_t strides[1] = {(uint64_t)p->k * 2};
        const uint32_t box[2] = {SM90_EPI_COLS, 64};
        st->have_r = 0;
        rc = igemm_tmap_encode_tiled(&st->tmap_r, p->out_dtype, p->residual, 2, dims, strides, box,
                                     CU_TENSOR_MAP_SWIZZLE_128B);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        st->r_key = p->residual;
        st->have_r = 1;
    }

    igemm_sm90_args_t a;
    memset(&a, 0, sizeof a);
    a.gemm_m = p->gemm_m;
    a.gemm_n = p->gemm_n;
    a.pq = p->p * p->q;
    a.q = (int32_t)p->q;
    a.stride_h = (int32_t)p->stride_h;
    a.stride_w = (int32_t)p->stride_w;
    a.pad_top = (int32_t)p->pad_top;
    a.pad_left = (int32_t)p->pad_left;
    a.dil_h = (int32_t)p->dil_h;
    a.dil_w = (int32_t)p->dil_w;
    a.filter_s = (int32_t)p->s;
    a.c_blocks = (int32_t)((p->c + SM90_BK - 1) / SM90_BK);
    a.k_iters = (int32_t)(p->r * p->s * a.c_blocks);
    a.tiles_m = (int32_t)((p->gemm_m + SM90_BM - 1) / SM90_BM);
    a.tiles_n = (int32_t)((p->gemm_n + bn - 1) / bn);
    a.num_tiles = a.tiles_m * a.tiles_n;
    a.splits = cfg->split_k > 1 ? cfg->split_k : 1;
    a.num_units = a.num_tiles * a.splits;
    a.group_m = cfg->variant > 0 ? cfg->variant : SM90_GROUP_M;
    a.stages = cfg->stages;
    a.alpha = p->alpha;
    a.beta = p->beta;
    a.act_param = p->act_param;
    a.act = p->act;
    a.has_scale = p->has_scale;
    a.has_bias = p->has_bias;
    a.has_residual = p->has_residual;
    a.out_dtype = (int32_t)p->out_dtype;
    a.vec4 = (p->gemm_n % 4) == 0;
    a.vec2 = (p->gemm_n % 2) == 0;
    a.tma_store = tma_store;
    a.scale = p->scale;
    a.bias = p->bias;
    a.residual = p->residual;
    a.y = p->y;
    a.workspace = a.splits > 1 ? (float *)workspace : NULL;

    cudaError_t e;
    if (!st->smem_attr_done) {
        e = cudaFuncSetAttribute((const void *)kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)cfg->smem_bytes);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return sm90_cuda_fail("cudaFuncSetAttribute(max dynamic shared memory)", e);
        }
        st->smem_attr_done = 1;
    }
    const int grid = cfg->grid > 0 ? cfg->grid : 1;
    kern<<<grid, SM90_THREADS, cfg->smem_bytes, (cudaStream_t)stream>>>(st->tmap_x, st->tmap_w, st->tmap_y, st->tmap_r, a);
    e = cudaGetLastError();
    if (e != cudaSuccess) return sm90_cuda_fail("conv kernel launch", e);
    if (a.splits > 1) {
        const int64_t work = a.gemm_m * ((a.gemm_n + 3) / 4);
        int64_t blocks = (work + 255) / 256;
        const int64_t cap = (int64_t)grid * 8;
        if (blocks > cap) blocks = cap;
        if (blocks < 1) blocks = 1;
        igemm_sm90_splitk_reduce_kernel<<<(unsigned)blocks, 256, 0, (cudaStream_t)stream>>>(a);
        e = cudaGetLastError();
        if (e != cudaSuccess) return sm90_cuda_fail("split-K reduce launch", e);
    }
    return IGEMM_STATUS_SUCCESS;
}

extern "C" const igemm_family_t igemm_family_sm90 = {
    "sm90_tma_wgmma", IGEMM_PATH_SM90, sm90_supports, sm90_configure, sm90_run,
};
