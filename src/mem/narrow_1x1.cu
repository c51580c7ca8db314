/*
 * narrow_1x1.cu — the narrow 1x1 family (mem_narrow, IGEMM_PATH_MEMORY): 1x1 convs (any stride,
 * any padding) and GEMMs of many output rows with few channels (c <= 64 and k <= 16: MobileNet
 * projections to 16 channels, segmentation heads, few-class classifiers per pixel; and, with many
 * rows, c <= 160 and k <= 24: MobileNet's projections to 24 channels; and, with many rows, c <= 32
 * and 24 < k <= 96 on the wide-output kernel of narrow_wide.cuh: MobileNet's expansion 16 -> 96;
 * under AUTO on Hopper its k of 65-96 without a residual defer to the sm90 whole-N tile: nw_defers).
 * They are bound by reading x and writing y once; a tensor-core tile of 64+ channels and 64-deep
 * k-blocks pads them with zeros (c = 16: three quarters of every k-block) and makes fewer, larger
 * tiles than the SMs can stream. Here the whole filter sits in shared memory and each warp streams
 * 16-pixel row blocks through mma.sync against it (docs/decisions.md "narrow-1x1").
 *
 * Algorithm (narrow_kernel<T, CH, KT, MT, CPS>): a persistent grid of NW_WARPS-warp CTAs, CPS per
 * SM. Set-up: the CTA copies the filter (K x C, KRSC with R = S = 1) into shared memory, rows
 * padded to C32 (C rounded up to 32) with zeros, K rounded up to 8 with zero rows, row pitch
 * NW_PITCH (conflict-free 16-byte reads by 8 lanes of two rows). Main loop: warp w of CTA b takes
 * the pixel blocks (b * NW_WARPS + w) + i * (grid * NW_WARPS) of 16 * MT pixels: lane (g = lane/4,
 * t = lane%4) loads 16 bytes (elements 8t .. 8t+7 of each 32-channel chunk) of pixel rows g and g +
 * 8 of each of the MT 16-row blocks, all chunks at once (CH chunks at most: the loads of a block
 * are in flight together), zeros past C and for padding pixels; per chunk and 8-channel output tile
 * j (KT at most) the lane reads 16 bytes of filter row 8j + g at the same elements and feeds two
 * mma.sync m16n8k16: the k order inside a chunk is permuted alike for both operands (MMA 1 takes
 * elements 0-3 of each lane's 8 as k-slots {2t, 2t+1, 2t+8, 2t+9}, MMA 2 elements 4-7), which a dot
 * product allows. The next block's loads are issued before the current block's MMAs and stores (its
 * rows double-buffered in registers): a warp always has a block of x in flight. Epilogue from the
 * accumulators (rows g, g+8; channels 8j + 2t, +1): the fused epilogue (epilogue.cuh) with the
 * run-time switches hoisted out of the unrolled loops, stores of two channels at a time where
 * aligned.
 * Layouts: x N x H x W x C (row m of the GEMM is output pixel m: x[img, p*sh - pt, q*sw - pl, :]),
 * w K x C, y and the residual M x K. C % 8 == 0, 16-byte aligned x and w (the planner's fallback
 * takes the rest). PTX: mma.sync (sm_80+), griddepcontrol on sm_90 (launched with programmatic
 * stream serialisation: the wait comes before any global access).
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common/epilogue.cuh"
#include "../common/launch.h"
#include "../error.h"
#include "../internal.h"
#include "../ptx/griddepcontrol.cuh"
#include "../ptx/mma_sync.cuh"
#include "../sm90/sm90.h"
#include "mem_1x1.h"
#include "mem_args.h"

#define NW_WARPS 8
#define NW_THREADS (32 * NW_WARPS)
#define NW_MAX_C 64        /* c <= 64 and k <= 16 (any M >= NW_MIN_M): measured faster than the sm90
                              tiles at k = 2 and 16, slower at k = 40, 96, 240 (decisions.md
                              "narrow-1x1"; with the prefetch, k <= 96 still 1.4-2.6x slower:
                              "narrow-prefetch") */
#define NW_MAX_K 16
#define NW_WIDE_MAX_C 160  /* 64 < c <= 160 and k <= 24 (MobileNet projections) with 2+ pixel blocks */
#define NW_WIDE_MAX_K 24   /* per resident warp ("narrow-prefetch": k = 32 slower than the sm90 tiles) */
#define NW_CTAS_PER_SM 2   /* the instances' registers allow two CTAs per SM; the grid is that many per SM */
#define NW_MIN_M 256       /* output rows at least this (fewer: the few-row families) */
#define NWW_MAX_C 32       /* the wide kernel (narrow_wide.cuh): c <= 32 (at c = 40 even with the sm90 */
#define NWW_MAX_K 96       /* tiles, at c = 64 1.2-1.8x slower), 24 < k <= 96 (three 32-channel chunks; */
                           /* k = 128 / 160 / 256 slower at 100k rows, the fused 24 -> 144 too), at least */
                           /* one 32-row block per resident warp; decisions.md "narrow-wide" */

/* shared-memory row pitch (bytes) of the filter for c32 (C rounded up to 32) channels: 16-byte reads
 * of rows g, g+1 by lanes 8t apart stay conflict-free when the pitch is 64 mod 128 */
static inline __host__ __device__ int nw_pitch(int64_t c32)
{
    const int b = (int)(c32 * 2);
    return b % 128 == 64 ? b : b + 64;
}

typedef struct nw_args {
    const void *x, *w;
    void *y;
    const float *scale, *bias;
    const void *residual;
    int64_t m;                 /* output pixels */
    int32_t n, c, c32, pitch;  /* output channels, input channels, c rounded to 32, smem row pitch (B) */
    int64_t h, w_in, pq, q;    /* input height, width; output pixels per image, output width */
    int64_t stride_h, stride_w, pad_top, pad_left;
    int64_t blocks;            /* pixel blocks of 16 * MT rows */
    int plain;                 /* stride 1, no padding: output pixel m reads input pixel m */
    float alpha, beta, act_param;
    int act, has_scale, has_bias, has_residual, out_dtype;
} nw_args_t;

typedef struct nw_cfg {
    int ch, kt, mt, pdl;
    int wide;                  /* 1: narrow_wide_kernel (32-channel output chunks) */
    int smem_optin;            /* the device's opt-in shared memory per block */
    int64_t grid;
    size_t smem;
} nw_cfg_t;

/* per-plan host state: the wide kernel's shared-memory limit raised (on the plan's first run) */
typedef struct nw_state {
    int smem_attr_done;
} nw_state_t;
static_assert(sizeof(nw_cfg_t) <= IGEMM_FAMILY_PRIV_BYTES, "nw_cfg_t must fit the plan's family state");
static_assert(sizeof(nw_state_t) <= IGEMM_FAMILY_STATE_BYTES, "nw_state_t must fit the plan's host state");

/* Stores v0, v1 at elements idx, idx + 1 of y (idx + 1 only if two); one 4- or 8-byte store where
 * aligned. */
static __device__ __forceinline__ void nw_store2(void *y, int64_t idx, int dtype, float v0, float v1, bool two)
{
    if (two && (idx & 1) == 0) {
        if (dtype == IGEMM_DTYPE_F32) {
            *(float2 *)((float *)y + idx) = make_float2(v0, v1);
        } else if (dtype == IGEMM_DTYPE_F16) {
            *(__half2 *)((__half *)y + idx) = __floats2half2_rn(v0, v1);
        } else {
            *(__nv_bfloat162 *)((__nv_bfloat16 *)y + idx) = __floats2bfloat162_rn(v0, v1);
        }
        return;
    }
    igemm_store_out(y, idx, dtype, v0);
    if (two) igemm_store_out(y, idx + 1, dtype, v1);
}

/* The epilogue of a warp's MT x 16 pixels x KT*8 channels (acc[mt][j]: rows g, g+8 of block mt,
 * channels 8j + 2t, +1). GENERAL: scale / bias / residual / activation (else y = alpha * acc);
 * RES: with the residual; CALL: an activation besides ReLU / none, out of line. */
template <int KT, int MT, bool GENERAL, bool RES, bool CALL>
static __device__ __forceinline__ void nw_epilogue(const nw_args_t &a, float (&acc)[MT][KT][4], int64_t m0, int g,
                                                   int t)
{
    const int kt = (a.n + 7) >> 3;
    const bool relu = a.act == IGEMM_ACT_RELU;
    /* 16-bit y of an even width: each column pair of the residual is one aligned 4-byte word (the
     * family runs on 16-byte aligned pointers only), a column tile's words loaded before their use,
     * in flight together (element by element at their use they made the fused plans ~1.8x the
     * plain ones) */
    const bool rpair = RES && a.out_dtype != IGEMM_DTYPE_F32 && (a.n & 1) == 0;
#pragma unroll
    for (int j = 0; j < KT; j++) {
        if (j >= kt) break;
        const int n = 8 * j + 2 * t;
        if (n >= a.n) continue;
        const bool two = n + 1 < a.n;
        uint32_t rw[RES ? MT : 1][2];
        if (RES && rpair) {
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
#pragma unroll
                for (int hh = 0; hh < 2; hh++) {
                    const int64_t m = m0 + 16 * mt + g + 8 * hh;
                    rw[RES ? mt : 0][hh] =
                        m < a.m ? __ldg((const unsigned int *)((const uint16_t *)a.residual + m * a.n + n)) : 0u;
                }
        }
        float s0 = a.alpha, s1 = a.alpha, b0 = 0.0f, b1 = 0.0f;
        if (GENERAL && a.has_scale) s0 *= __ldg(a.scale + n), s1 *= two ? __ldg(a.scale + n + 1) : 0.0f;
        if (GENERAL && a.has_bias) b0 = __ldg(a.bias + n), b1 = two ? __ldg(a.bias + n + 1) : 0.0f;
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int hh = 0; hh < 2; hh++) {
                const int64_t m = m0 + 16 * mt + g + 8 * hh;
                if (m >= a.m) continue;
                const int64_t yi = m * a.n + n;
                float v0 = s0 * acc[mt][j][2 * hh], v1 = s1 * acc[mt][j][2 * hh + 1];
                if (GENERAL) {
                    v0 += b0, v1 += b1;
                    if (RES && rpair) {
                        const uint32_t w = rw[RES ? mt : 0][hh];
                        const float2 r = a.out_dtype == IGEMM_DTYPE_F16 ? __half22float2(*(const __half2 *)&w)
                                                                       : __bfloat1622float2(*(const __nv_bfloat162 *)&w);
                        v0 += a.beta * r.x;
                        v1 += a.beta * r.y;
                    } else if (RES) {
                        v0 += a.beta * igemm_load_out(a.residual, yi, a.out_dtype);
                        if (two) v1 += a.beta * igemm_load_out(a.residual, yi + 1, a.out_dtype);
                    }
                    if (CALL) {
                        v0 = igemm_act_dev_noinline(a.act, v0, a.act_param);
                        v1 = igemm_act_dev_noinline(a.act, v1, a.act_param);
                    } else if (relu) {
                        v0 = fmaxf(v0, 0.0f), v1 = fmaxf(v1, 0.0f);
                    }
                }
                nw_store2(a.y, yi, a.out_dtype, v0, v1, two);
            }
    }
}

/* Lane (g, t)'s x rows of the warp's pixel block at m0: pixel rows g, g + 8 of each of the MT 16-row
 * blocks (their input pixel; zeros past M, for padding pixels and past C), 16 bytes (elements
 * 8t .. 8t+7) of each 32-channel chunk, all issued at once. */
template <int CH, int MT>
static __device__ __forceinline__ void nw_load_rows(const nw_args_t &a, uint4 (&xr)[MT][2][CH], int64_t m0, int g,
                                                    int t, int nch)
{
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int hh = 0; hh < 2; hh++) {
            const int64_t m = m0 + 16 * mt + g + 8 * hh;
            bool ok = m < a.m;
            const uint4 *src = (const uint4 *)a.x;
            if (ok && a.plain) {
                src += m * a.c >> 3;
            } else if (ok) {
                const int64_t img = m / a.pq, rem = m - img * a.pq;
                const int64_t pp = rem / a.q, qq = rem - pp * a.q;
                const int64_t ih = pp * a.stride_h - a.pad_top, iw = qq * a.stride_w - a.pad_left;
                ok = ih >= 0 && ih < a.h && iw >= 0 && iw < a.w_in;
                src += ok ? (((img * a.h + ih) * a.w_in + iw) * a.c >> 3) : 0;
            }
#pragma unroll
            for (int ch = 0; ch < CH; ch++) {
                const int e = 32 * ch + 8 * t; /* this lane's first element of the chunk */
                xr[mt][hh][ch] = ok && ch < nch && e < a.c ? __ldg(src + (e >> 3)) : zero;
            }
        }
}

#include "narrow_wide.cuh"

/* CH: 32-channel chunks at most (C <= 32 * CH); KT: 8-channel output tiles at most (K <= 8 * KT);
 * MT: 16-pixel blocks per warp iteration; CPS: CTAs per SM the registers are sized for. The next
 * block's rows are loaded before the current block's MMAs and stores (registers double-buffered),
 * so each warp keeps a block's loads in flight all the time. */
template <typename T, int CH, int KT, int MT, int CPS>
__global__ void __launch_bounds__(NW_THREADS, CPS) narrow_kernel(nw_args_t a)
{
    extern __shared__ __align__(16) uint8_t nw_smem[]; /* the filter: KT*8 rows of a.pitch bytes */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_wait();
#endif
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    const int kt = (a.n + 7) >> 3, nch = a.c32 >> 5;
    const int64_t step = (int64_t)gridDim.x * NW_WARPS;
    int64_t blk = (int64_t)blockIdx.x * NW_WARPS + warp;
    /* the first block's rows: in flight while the filter is staged */
    uint4 xr[MT][2][CH];
    nw_load_rows<CH, MT>(a, xr, blk * (16 * MT), g, t, nch);
    /* the filter into shared memory, 16 bytes at a time; zeros past C and past K */
    {
        const int vrow = a.c32 >> 3; /* 16-byte vectors per padded row */
        const int total = kt * 8 * vrow;
        for (int i = threadIdx.x; i < total; i += NW_THREADS) {
            const int row = i / vrow, v = i - row * vrow;
            uint4 val = make_uint4(0u, 0u, 0u, 0u);
            if (row < a.n && 8 * v < a.c) val = __ldg((const uint4 *)a.w + ((int64_t)row * a.c >> 3) + v);
            *(uint4 *)(nw_smem + (size_t)row * a.pitch + 16 * v) = val;
        }
    }
    __syncthreads();
    for (; blk < a.blocks; blk += step) {
        const int64_t m0 = blk * (16 * MT);
        /* the next block's rows (zeros past the end): their loads overlap this block's work */
        uint4 xn[MT][2][CH];
        nw_load_rows<CH, MT>(a, xn, (blk + step) * (16 * MT), g, t, nch);
        float acc[MT][KT][4];
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int j = 0; j < KT; j++) acc[mt][j][0] = acc[mt][j][1] = acc[mt][j][2] = acc[mt][j][3] = 0.0f;
#pragma unroll
        for (int ch = 0; ch < CH; ch++) {
            if (ch >= nch) break;
#pragma unroll
            for (int j = 0; j < KT; j++) {
                if (j >= kt) break;
                const uint4 wv = *(const uint4 *)(nw_smem + (size_t)(8 * j + g) * a.pitch + 64 * ch + 16 * t);
                const uint32_t b0[2] = {wv.x, wv.y}, b1[2] = {wv.z, wv.w};
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    const uint4 r0 = xr[mt][0][ch], r1 = xr[mt][1][ch];
                    const uint32_t a0[4] = {r0.x, r1.x, r0.y, r1.y};
                    const uint32_t a1[4] = {r0.z, r1.z, r0.w, r1.w};
                    mma_sync_m16n8k16_row_col_f32<T>(acc[mt][j], a0, b0);
                    mma_sync_m16n8k16_row_col_f32<T>(acc[mt][j], a1, b1);
                }
            }
        }
        const bool general = a.has_scale || a.has_bias || a.has_residual || a.act != IGEMM_ACT_NONE;
        const bool call = a.act != IGEMM_ACT_NONE && a.act != IGEMM_ACT_RELU;
        if (!general) nw_epilogue<KT, MT, false, false, false>(a, acc, m0, g, t);
        else if (a.has_residual && call) nw_epilogue<KT, MT, true, true, true>(a, acc, m0, g, t);
        else if (a.has_residual) nw_epilogue<KT, MT, true, true, false>(a, acc, m0, g, t);
        else if (call) nw_epilogue<KT, MT, true, false, true>(a, acc, m0, g, t);
        else nw_epilogue<KT, MT, true, false, false>(a, acc, m0, g, t);
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int hh = 0; hh < 2; hh++)
#pragma unroll
                for (int ch = 0; ch < CH; ch++) xr[mt][hh][ch] = xn[mt][hh][ch];
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_launch_dependents();
#endif
}

/* ------------------------------------------------------------------ family */

/* The instances (CH, KT, MT, CTAs per SM): c <= 32: (1, 2, 4, 2), 64 pixels per warp iteration;
 * c <= 64: (2, 2, 2, 2), 32 pixels; k <= 16 (KT 2) in both; 16 < k <= 24 (any c <= 160): (5, 4, 1, 2),
 * 16 pixels (until session 12 c <= 64 with 16 < k <= 24 got a KT 2 instance: channels 16+ unwritten). Registers for two 8-warp CTAs per SM with the next block's rows in flight (106-121).
 * The one instance before, (2, 4, 4) without the prefetch, ran one CTA per SM (~185 registers);
 * the instances for k <= 96 / 256 and c <= 256 ran slower than the sm90 tiles and were deleted
 * (decisions.md "narrow-1x1", "narrow-prefetch"). Wider outputs: the wide kernel (CH, MT) = (1, 2),
 * c <= 32 (narrow_wide.cuh; (2, 1) for c <= 64 ran slower than the sm90 tiles, (2, 2) and (4, 1)
 * spilled: decisions.md "narrow-wide"). */
static void nw_instance(int64_t c, int64_t k, int wide, int *ch, int *kt, int *mt)
{
    *kt = 2;
    if (wide) *kt = 0, *ch = 1, *mt = 2;
    else if (k > NW_MAX_K) *ch = 5, *kt = 4, *mt = 1; /* the wider instance, whatever c */
    else if (c <= 32) *ch = 1, *mt = 4;
    else if (c <= 64) *ch = 2, *mt = 2;
    else *ch = 5, *kt = 4, *mt = 1;
}

/* the wide kernel's shared memory: the filter's rows (k up to a multiple of 32) at the padded pitch,
 * the coefficients and the warps' staging */
static size_t nw_wide_smem(int64_t c, int64_t k)
{
    const int64_t k32 = (k + NWW_CHUNK - 1) / NWW_CHUNK * NWW_CHUNK;
    int ch, kt, mt;
    nw_instance(c, k, 1, &ch, &kt, &mt);
    return (size_t)k32 * (size_t)nw_pitch((c + 31) / 32 * 32) + nww_coef_bytes(k32) + nww_stage_bytes(mt);
}

/* 1 if p is for the narrow kernel (few output channels), 0 if for the wide kernel, -1 if neither
 * (reason in why) */
static int nw_kernel_for(const igemm_conv_params_t *p, const igemm_device_info_t *dev, char *why, size_t why_len)
{
    if (p->c <= NW_MAX_C && p->k <= NW_MAX_K) return 1;
    /* the narrow kernel's wider instance: 16-pixel blocks, at least two per warp of the resident
     * grid (with fewer, warps idle and nothing is in flight behind a block: slower than the sm90
     * tiles at M = 25088) */
    const int64_t warps = (int64_t)NW_WARPS * NW_CTAS_PER_SM * (dev->sm_count > 0 ? dev->sm_count : 1);
    if (p->c <= NW_WIDE_MAX_C && p->k <= NW_WIDE_MAX_K && p->gemm_m >= 2 * 16 * warps) return 1;
    /* the wide kernel: few input channels, many output channels, a 32-row block per resident warp */
    const int64_t wide_rows = (int64_t)32 * warps;
    if (p->c <= NWW_MAX_C && p->k <= NWW_MAX_K && p->gemm_m >= wide_rows) return 0;
    if (why && why_len)
        snprintf(why, why_len, "c = %lld, k = %lld, M = %lld: takes c <= %d and k <= %d, or c <= %d and k <= %d with "
                 "M >= %lld, or c <= %d and k <= %d with M >= %lld (narrow)",
                 (long long)p->c, (long long)p->k, (long long)p->gemm_m, NW_MAX_C, NW_MAX_K, NW_WIDE_MAX_C,
                 NW_WIDE_MAX_K, (long long)(2 * 16 * warps), NWW_MAX_C, NWW_MAX_K, (long long)wide_rows);
    return -1;
}

static int nw_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                       char *why, size_t why_len)
{
    if (!mem_1x1_supports(p, dev, h, why, why_len)) return 0;
    if (p->gemm_m < NW_MIN_M) {
        if (why && why_len)
            snprintf(why, why_len, "M = %lld output rows: takes M >= %d (streaming pixels)", (long long)p->gemm_m,
                     NW_MIN_M);
        return 0;
    }
    return nw_kernel_for(p, dev, why, why_len) >= 0;
}

static igemm_status_t nw_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                   const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    (void)h;
    nw_cfg_t *c = igemm_family_priv(cfg, nw_cfg_t);
    const int kind = nw_kernel_for(p, dev, NULL, 0);
    if (kind < 0) return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "narrow 1x1: configure without support");
    c->wide = kind == 0;
    nw_instance(p->c, p->k, c->wide, &c->ch, &c->kt, &c->mt);
    const int64_t c32 = (p->c + 31) / 32 * 32;
    c->smem = c->wide ? nw_wide_smem(p->c, p->k) : (size_t)((p->k + 7) / 8 * 8) * (size_t)nw_pitch(c32);
    c->smem_optin = dev->smem_optin_per_block;
    const int64_t blocks = (p->gemm_m + 16 * c->mt - 1) / (16 * c->mt);
    const int64_t ctas = (blocks + NW_WARPS - 1) / NW_WARPS;
    const int64_t cap = NW_CTAS_PER_SM * (int64_t)(dev->sm_count > 0 ? dev->sm_count : 1);
    c->grid = ctas < cap ? ctas : cap;
    c->pdl = dev->cc_major >= 9 && dev->driver_version >= 12030;
    cfg->workspace_bytes = 0;
    const double bytes = (double)p->gemm_m * (double)(p->c + p->k) * 2.0;
    if (c->wide)
        snprintf(cfg->desc, sizeof cfg->desc,
                 "narrow 1x1, wide output (c = %lld, k = %lld): the whole filter in shared memory (%zu B), each warp "
                 "streaming blocks of %d pixels through mma.sync m16n8k16 against it (%d x 32-channel input chunks) "
                 "in %d chunks of 32 output channels, each chunk staged per warp in shared memory for 16-byte stores, x "
                 "read once and y written once (%.1f MB), fused epilogue; %d warps per CTA, grid %lld%s",
                 (long long)p->c, (long long)p->k, c->smem, 16 * c->mt, (int)(c32 / 32),
                 (int)((p->k + NWW_CHUNK - 1) / NWW_CHUNK), bytes / 1e6, NW_WARPS, (long long)c->grid,
                 c->pdl ? ", programmatic dependent launch" : "");
    else
        snprintf(cfg->desc, sizeof cfg->desc,
                 "narrow 1x1 (c = %lld, k = %lld): the whole filter in shared memory (%zu B), each warp streaming "
                 "blocks of %d pixels through mma.sync m16n8k16 against it (%d x 32-channel chunks, %d x 8 output "
                 "channels), x read once by 16-byte loads and y written once (%.1f MB), fused epilogue; %d warps per "
                 "CTA, grid %lld%s",
                 (long long)p->c, (long long)p->k, c->smem, 16 * c->mt, (int)(c32 / 32), (int)((p->k + 7) / 8),
                 bytes / 1e6, NW_WARPS, (long long)c->grid, c->pdl ? ", programmatic dependent launch" : "");
    return IGEMM_STATUS_SUCCESS;
}

template <typename T, int CH, int KT, int MT>
static cudaError_t nw_launch(const nw_args_t *a, const nw_cfg_t *c, cudaStream_t st)
{
    cudaLaunchConfig_t lc;
    cudaLaunchAttribute attr;
    igemm_launch_config_1d(&lc, &attr, (unsigned)c->grid, NW_THREADS, c->smem, st, c->pdl);
    return cudaLaunchKernelEx(&lc, narrow_kernel<T, CH, KT, MT, NW_CTAS_PER_SM>, *a);
}

/* The wide kernel's launch: its shared-memory limit raised to the device's opt-in maximum on the
 * plan's first run (one limit per kernel for every plan in the process: a lower one would fail
 * another live plan of the same instance). */
template <typename T, int CH, int MT, bool RES, bool CALL, bool V16>
static cudaError_t nww_launch(const nw_args_t *a, const nw_cfg_t *c, nw_state_t *ns, cudaStream_t st)
{
    void (*kern)(nw_args_t) = narrow_wide_kernel<T, CH, MT, NW_CTAS_PER_SM, RES, CALL, V16>;
    const cudaError_t e = igemm_raise_smem_limit((const void *)kern, c->smem, c->smem_optin, &ns->smem_attr_done);
    if (e != cudaSuccess) return e;
    cudaLaunchConfig_t lc;
    cudaLaunchAttribute attr;
    igemm_launch_config_1d(&lc, &attr, (unsigned)c->grid, NW_THREADS, c->smem, st, c->pdl);
    return cudaLaunchKernelEx(&lc, kern, *a);
}

/* the wide kernel's epilogue instances: residual, activation out of line, staged 16-byte stores */
template <typename T, int CH, int MT>
static cudaError_t nww_launch_epi(const nw_args_t *a, const nw_cfg_t *c, nw_state_t *ns, int v16, cudaStream_t st)
{
    const bool call = a->act != IGEMM_ACT_NONE && a->act != IGEMM_ACT_RELU && a->act != IGEMM_ACT_RELU6;
    switch ((a->has_residual ? 4 : 0) + (call ? 2 : 0) + (v16 ? 1 : 0)) {
    case 0: return nww_launch<T, CH, MT, false, false, false>(a, c, ns, st);
    case 1: return nww_launch<T, CH, MT, false, false, true>(a, c, ns, st);
    case 2: return nww_launch<T, CH, MT, false, true, false>(a, c, ns, st);
    case 3: return nww_launch<T, CH, MT, false, true, true>(a, c, ns, st);
    case 4: return nww_launch<T, CH, MT, true, false, false>(a, c, ns, st);
    case 5: return nww_launch<T, CH, MT, true, false, true>(a, c, ns, st);
    case 6: return nww_launch<T, CH, MT, true, true, false>(a, c, ns, st);
    default: return nww_launch<T, CH, MT, true, true, true>(a, c, ns, st);
    }
}

template <typename T>
static cudaError_t nw_dispatch(const nw_args_t *a, const nw_cfg_t *c, nw_state_t *ns, int v16, cudaStream_t st)
{
    switch (c->wide * 10000 + c->ch * 1000 + c->kt * 10 + c->mt) {
    case 1024: return nw_launch<T, 1, 2, 4>(a, c, st);
    case 2022: return nw_launch<T, 2, 2, 2>(a, c, st);
    case 5041: return nw_launch<T, 5, 4, 1>(a, c, st);
    case 11002: return nww_launch_epi<T, 1, 2>(a, c, ns, v16, st);
    }
    return cudaErrorInvalidValue;
}

static igemm_status_t nw_run(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                             void *state, void *stream, const igemm_inner_t *inner)
{
    (void)workspace;
    (void)inner;
    const nw_cfg_t *c = igemm_family_priv((igemm_family_config_t *)cfg, nw_cfg_t);
    nw_args_t a;
    memset(&a, 0, sizeof a);
    MEM_ARGS_SET_OPERANDS(a, p);
    a.m = p->gemm_m;
    a.n = (int32_t)p->k;
    a.c = (int32_t)p->c;
    a.c32 = (int32_t)((p->c + 31) / 32 * 32);
    a.pitch = nw_pitch(a.c32);
    a.h = p->h;
    a.w_in = p->w;
    a.pq = p->p * p->q;
    a.q = p->q;
    a.stride_h = p->stride_h;
    a.stride_w = p->stride_w;
    a.pad_top = p->pad_top;
    a.pad_left = p->pad_left;
    a.blocks = (p->gemm_m + 16 * c->mt - 1) / (16 * c->mt);
    a.plain = p->stride_h == 1 && p->stride_w == 1 && p->pad_top == 0 && p->pad_left == 0 && p->p == p->h &&
              p->q == p->w;
    /* the wide kernel's staged 16-byte stores: 16-bit y, rows of whole 16-byte vectors */
    const int v16 = p->out_dtype != IGEMM_DTYPE_F32 && p->k % 8 == 0 && (uintptr_t)p->y % 16 == 0 &&
                    (!p->has_residual || (uintptr_t)p->residual % 4 == 0);
    nw_state_t *ns = (nw_state_t *)state;
    const cudaError_t e = p->in_dtype == IGEMM_DTYPE_BF16
                              ? nw_dispatch<__nv_bfloat16>(&a, c, ns, v16, (cudaStream_t)stream)
                              : nw_dispatch<__half>(&a, c, ns, v16, (cudaStream_t)stream);
    if (e != cudaSuccess)
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "narrow 1x1 launch (M = %lld, c = %lld, k = %lld): %s",
                               (long long)a.m, (long long)p->c, (long long)p->k, cudaGetErrorString(e));
    return IGEMM_STATUS_SUCCESS;
}

/* Under AUTO, no hint of this family's: the wide kernel's problems that the sm90 whole-N 64-row
 * tile takes on this device (sm90.h sm90_whole_n_bn: no residual, ragged k of 65-96 here) go to it
 * (measured 1.06-1.10x faster on both of the suites' layers of this kernel: 16 -> 96 channels at
 * 401408 and 100352 rows; docs/decisions.md "whole-n-tiles"). */
static int nw_defers(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                     char *why, size_t why_len)
{
    if (!mem_no_hints(h)) return 0;                     /* hints keep it here (its supports refuses them) */
    if (nw_kernel_for(p, dev, NULL, 0) != 0) return 0; /* the narrow kernel's problems stay */
    if (!sm90_whole_n_bn(p, dev->sm_count > 0 ? dev->sm_count : 132) || !igemm_sm90_conv_supports(p, dev, h, NULL, 0))
        return 0;
    if (why && why_len)
        snprintf(why, why_len, "c = %lld, k = %lld: the sm90 whole-N ping-pong tile takes this 1x1 on this device (faster)",
                 (long long)p->c, (long long)p->k);
    return 1;
}

extern "C" const igemm_family_t igemm_family_narrow = {
    "mem_narrow", IGEMM_PATH_MEMORY, 1, nw_supports, nw_configure, NULL, nw_run, nw_defers,
};
