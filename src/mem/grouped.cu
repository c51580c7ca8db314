/*
 * grouped.cu — the grouped-conv family (mem_grouped, IGEMM_PATH_MEMORY): convs of 1 < groups < c
 * whose groups are narrow (c/g and k/g multiples of 8, k/g <= 32, or 4 -> 4 in multiples of 8
 * groups: ResNeXt's 32 groups of 4-32 channels, RegNet's groups of 8-24). An implicit GEMM per group has N = k/g <= 32 and K = R*S*c/g:
 * a 64/128-wide tensor-core tile leaves most of every MMA idle and the layer is bound by reading x
 * and writing y; the general path ran them at 0.4-0.6x cuDNN (docs/decisions.md "grouped-narrow").
 *
 * Algorithm (grouped_kernel<T, KT, MT>): a persistent grid of GW_WARPS-warp CTAs; a unit is (a
 * block of 16 * MT output pixels, a group), groups fastest, so the warps of a CTA take neighbouring
 * groups of the same pixels (their x reads are neighbouring 16-byte pieces of the same pixel rows).
 * Per unit, the group's GEMM: rows = the block's pixels, columns = the group's kg <= 8 * KT output
 * channels, depth = the group's R*S*cg filter taps x channels in KRSC order (tap-major), walked in
 * 32-deep chunks, GW_UNROLL chunks' loads in flight before their MMAs: lane (g = lane/4, t = lane%4)
 * loads 16 bytes at depth 32j + 8t (one tap, 8 channels: cg % 8 == 0) of the im2col rows of pixels
 * g and g + 8 of each 16-pixel block (zeros in the padding and past the depth) and 16 bytes of
 * filter row 8i + g at the same depth for each 8-channel column tile i, and feeds two mma.sync
 * m16n8k16 per (block, tile): the k order inside a chunk is permuted alike for both operands (MMA 1
 * takes elements 0-3 of each lane's 8 as k-slots {2t, 2t+1, 2t+8, 2t+9}, MMA 2 elements 4-7), as in
 * the narrow and skinny families. The filter is read through L1 (the CTA's 8 groups share none of
 * it; it is small and stays in L2). Epilogue from the accumulators (rows g, g+8; channels 8i + 2t,
 * +1 of the group): the fused epilogue (epilogue.cuh), two channels per store.
 * Layouts: x N x H x W x C, w K x R x S x (C/g) (KRSC), y and the residual N x P x Q x K; any
 * stride, padding, dilation; 16-byte aligned x and w (the planner's fallback takes the rest).
 * PTX: mma.sync (sm_80+), griddepcontrol on sm_90 (launched with programmatic stream
 * serialisation: the wait comes before any global access).
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common/epilogue.cuh"
#include "../common/fastdiv.h"
#include "../common/launch.h"
#include "../error.h"
#include "../internal.h"
#include "../ptx/griddepcontrol.cuh"
#include "../ptx/mma_sync.cuh"
#include "../sm90/sm90.h"
#include "mem_args.h"

#define GW_WARPS 8
#define GW_THREADS (32 * GW_WARPS)
#define GW_UNROLL 3    /* 32-deep chunks whose loads are in flight together */
#define GW_UNROLL_WIDE 2 /* the same for groups of 16 or 24 output channels (MT = 1) */
#define GW_MAX_KG 32   /* output channels per group at most (4 column tiles of 8) */
#define GW_MAX_CG 256  /* input channels per group at most */
#define GW_MAX_DEPTH 24576 /* R*S*c/g at most: its table (64 B per 32-deep chunk) within 48 KB */

typedef struct gw_args {
    const void *x, *w;
    void *y;
    const float *scale, *bias;
    const void *residual;
    int64_t m;                    /* output pixels (n * p * q) */
    int64_t units;                /* pixel blocks x groups */
    int64_t h, w_in, pq, q;       /* input height, width; output pixels per image, output width */
    int32_t groups, cg, kg, kdepth; /* groups, channels per group in / out, R * S * cg */
    int32_t gps, slabs, sw, nt;   /* groups per slab, slabs, slab width (gps * cg), 8-channel output
                                     tiles per slab (gps * kg / 8) */
    int32_t c, k, s, sdepth, chunks; /* all input / output channels, filter width, R * S * sw, ceil(sdepth / 32) */
    int32_t stride_h, stride_w, pad_top, pad_left, dil_h, dil_w;
    igemm_fastdiv_t fd_slabs, fd_pq, fd_q; /* valid when fd_ok (units and m < 2^31) */
    int fd_ok;
    float alpha, beta, act_param;
    int act, has_scale, has_bias, has_residual, out_dtype;
} gw_args_t;


/* Stores v0, v1 at elements idx, idx + 1 of y (idx even: one 4- or 8-byte store). */
static __device__ __forceinline__ void gw_store2(void *y, int64_t idx, int dtype, float v0, float v1)
{
    if (dtype == IGEMM_DTYPE_F32) *(float2 *)((float *)y + idx) = make_float2(v0, v1);
    else if (dtype == IGEMM_DTYPE_F16) *(__half2 *)((__half *)y + idx) = __floats2half2_rn(v0, v1);
    else *(__nv_bfloat162 *)((__nv_bfloat16 *)y + idx) = __floats2bfloat162_rn(v0, v1);
}

/* The epilogue of a unit: MT x 16 pixels from m0 x the group's kg channels from n0 (acc[mt][i]:
 * rows g, g+8 of block mt, channels 8i + 2t, +1). GENERAL: scale / bias / residual / activation
 * (else y = alpha * acc); RES: with the residual; CALL: an activation besides ReLU / none, out of
 * line. */
template <int KT, int MT, bool GENERAL, bool RES, bool CALL>
static __device__ __forceinline__ void gw_epilogue(const gw_args_t &a, float (&acc)[MT][KT][4], int64_t m0, int n0,
                                                   int ntv, int g, int t)
{
    const bool relu = a.act == IGEMM_ACT_RELU;
#pragma unroll
    for (int i = 0; i < KT; i++) {
        if (i >= ntv) break;
        const int n = n0 + 8 * i + 2 * t;
        float s0 = a.alpha, s1 = a.alpha, b0 = 0.0f, b1 = 0.0f;
        if (GENERAL && a.has_scale) s0 *= __ldg(a.scale + n), s1 *= __ldg(a.scale + n + 1);
        if (GENERAL && a.has_bias) b0 = __ldg(a.bias + n), b1 = __ldg(a.bias + n + 1);
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int hh = 0; hh < 2; hh++) {
                const int64_t m = m0 + 16 * mt + g + 8 * hh;
                if (m >= a.m) continue;
                const int64_t yi = m * a.k + n;
                float v0 = s0 * acc[mt][i][2 * hh], v1 = s1 * acc[mt][i][2 * hh + 1];
                if (GENERAL) {
                    v0 += b0, v1 += b1;
                    if (RES) {
                        v0 += a.beta * igemm_load_out(a.residual, yi, a.out_dtype);
                        v1 += a.beta * igemm_load_out(a.residual, yi + 1, a.out_dtype);
                    }
                    if (CALL) {
                        v0 = igemm_act_dev_noinline(a.act, v0, a.act_param);
                        v1 = igemm_act_dev_noinline(a.act, v1, a.act_param);
                    } else if (relu) {
                        v0 = fmaxf(v0, 0.0f), v1 = fmaxf(v1, 0.0f);
                    }
                }
                gw_store2(a.y, yi, a.out_dtype, v0, v1);
            }
    }
}

#include "grouped_tiled.cuh"

typedef struct gw_cfg {
    int kt, mt, gps, pdl;
    int64_t grid;
    int tiled;        /* the tiled kernel (grouped_tiled.cuh) with plan gt; else the gather kernel */
    int smem_optin;   /* the device's opt-in shared memory per block (the tiled kernel's limit) */
    gt_geom_t gt;
} gw_cfg_t;

/* per-plan host state: the tiled kernel's shared-memory limit raised (on the plan's first run) */
typedef struct gw_state {
    int smem_attr_done;
} gw_state_t;
static_assert(sizeof(gw_cfg_t) <= IGEMM_FAMILY_PRIV_BYTES, "gw_cfg_t must fit the plan's family state");
static_assert(sizeof(gw_state_t) <= IGEMM_FAMILY_STATE_BYTES, "gw_state_t must fit the plan's host state");

/* KT: 8-channel column tiles at most (kg <= 8 * KT); MT: 16-pixel blocks per unit. */
template <typename T, int KT, int MT, bool SLAB>
__global__ void __launch_bounds__(GW_THREADS, KT == 4 && MT == 2 ? 1 : 2) grouped_kernel(gw_args_t a)
{
    /* the depth table: for chunk j and lane column t, the 8 elements at slab depth d = 32j + 8t
     * are tap (r, s) = d / sw, slab channels sc .. sc + 7 (sc = d % sw) of group sc / cg of the
     * slab, its channels ch .. ch + 7: {offset of the tap's element from the window's origin,
     * (r * dil_h) << 16 | s * dil_w, the group's filter depth tap * cg + ch, 1 + (in a slab) the
     * output tile sc / 8 whose B is nonzero there}, or zeros past the depth */
    constexpr int UNR = SLAB || KT == 1 || MT == 2 ? GW_UNROLL : GW_UNROLL_WIDE;
    extern __shared__ int4 gw_tab[];
    for (int i = threadIdx.x; i < 4 * a.chunks; i += GW_THREADS) {
        const int d = 8 * i; /* = 32 * (i / 4) + 8 * (i % 4) */
        int4 e = make_int4(0, 0, 0, 0);
        if (d < a.sdepth) {
            const int tap = d / a.sw, sc = d - tap * a.sw, gl = sc / a.cg, ch = sc - gl * a.cg;
            const int r = tap / a.s, s = tap - r * a.s;
            /* w: in a slab, the 8-channel output tile whose B is nonzero in this depth, + 1 */
            e = make_int4((r * a.dil_h * (int)a.w_in + s * a.dil_w) * a.c + sc, (r * a.dil_h) << 16 | (s * a.dil_w),
                          tap * a.cg + ch, (a.gps > 1 ? sc >> 3 : 0) + 1);
        }
        gw_tab[i] = e;
    }
    __syncthreads();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_wait();
#endif
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    const int kt = a.nt;
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
    const uint4 *xv = (const uint4 *)a.x;
    const uint4 *wv = (const uint4 *)a.w;
    const int64_t step = (int64_t)gridDim.x * GW_WARPS;
    for (int64_t u = (int64_t)blockIdx.x * GW_WARPS + warp; u < a.units; u += step) {
        int64_t blk;
        int slab;
        if (a.fd_ok) {
            blk = igemm_fastdiv_div((int32_t)u, a.fd_slabs);
            slab = (int)(u - blk * a.slabs);
        } else {
            blk = u / a.slabs;
            slab = (int)(u - blk * a.slabs);
        }
        const int64_t m0 = blk * (16 * MT);
        /* this lane's im2col rows: pixels g, g + 8 of each block: the element offset of the
         * window's origin (its group's first channel; outside the image where the window starts
         * in the padding) and its first input row and column */
        int64_t xorg[MT][2];
        int ih0[MT][2], iw0[MT][2];
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int hh = 0; hh < 2; hh++) {
                const int64_t m = m0 + 16 * mt + g + 8 * hh;
                int64_t img, pp, qq;
                if (a.fd_ok) {
                    const int32_t mm = m < a.m ? (int32_t)m : 0;
                    const int32_t i32 = igemm_fastdiv_div(mm, a.fd_pq), rem = mm - i32 * (int32_t)a.pq;
                    const int32_t p32 = igemm_fastdiv_div(rem, a.fd_q);
                    img = i32, pp = p32, qq = rem - p32 * (int32_t)a.q;
                } else {
                    img = m / a.pq;
                    const int64_t rem = m - img * a.pq;
                    pp = rem / a.q, qq = rem - pp * a.q;
                }
                /* a pixel past M: a first row no tap brings into the image */
                ih0[mt][hh] = m < a.m ? (int)(pp * a.stride_h - a.pad_top) : -(1 << 30);
                iw0[mt][hh] = (int)(qq * a.stride_w - a.pad_left);
                xorg[mt][hh] = ((img * a.h + ih0[mt][hh]) * a.w_in + iw0[mt][hh]) * a.c + (int64_t)slab * a.sw;
            }
        const int64_t wrow = (int64_t)slab * a.gps * a.kg + g; /* this lane's filter row in tile 0 */
        float acc[MT][KT][4];
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int i = 0; i < KT; i++) acc[mt][i][0] = acc[mt][i][1] = acc[mt][i][2] = acc[mt][i][3] = 0.0f;
        for (int j0 = 0; j0 < a.chunks; j0 += UNR) {
            /* B: per tile (one group, SLAB = 0), or this lane's group's row once (SLAB: the tiles of the
             * slab's other groups take zeros in this lane's depth) */
            uint4 xr[UNR][MT][2], wr[UNR][SLAB ? 1 : KT];
            int gsel[UNR];
#pragma unroll
            for (int uu = 0; uu < UNR; uu++) {
                const int4 e = j0 + uu < a.chunks ? gw_tab[4 * (j0 + uu) + t] : make_int4(0, 0, 0, 0);
#pragma unroll
                for (int mt = 0; mt < MT; mt++)
#pragma unroll
                    for (int hh = 0; hh < 2; hh++) {
                        const int ih = ih0[mt][hh] + (e.y >> 16), iw = iw0[mt][hh] + (e.y & 0xffff);
                        const bool ok = e.w && (unsigned)ih < (unsigned)a.h && (unsigned)iw < (unsigned)a.w_in;
                        xr[uu][mt][hh] = ok ? __ldg(xv + ((xorg[mt][hh] + e.x) >> 3)) : zero;
                    }
                gsel[uu] = e.w - 1; /* in a slab: the tile with this lane's B (-1: past the depth) */
                if (SLAB) { /* filter rows 8 * tile + g: 8 channels of one group of 8 (a 16-byte load), or
                             * 4 of one group of 4 (8 bytes: MMA 1's half for columns g < 4, whose group is
                             * the lane's elements 0-3, MMA 2's for g >= 4, elements 4-7) */
                    const int64_t wi = (wrow + 8 * (int64_t)(e.w - 1)) * a.kdepth + e.z;
                    if (a.cg == 4) {
                        const uint2 h = e.w ? __ldg((const uint2 *)a.w + (wi >> 2)) : make_uint2(0u, 0u);
                        wr[uu][0] = g < 4 ? make_uint4(h.x, h.y, 0u, 0u) : make_uint4(0u, 0u, h.x, h.y);
                    } else {
                        wr[uu][0] = e.w ? __ldg(wv + (wi >> 3)) : zero;
                    }
                } else {
#pragma unroll
                    for (int i = 0; i < KT; i++)
                        wr[uu][i] = e.w && i < kt ? __ldg(wv + (((wrow + 8 * i) * a.kdepth + e.z) >> 3)) : zero;
                }
            }
#pragma unroll
            for (int uu = 0; uu < UNR; uu++)
#pragma unroll
                for (int i = 0; i < KT; i++) {
                    if (i >= kt) break;
                    /* SLAB: zeros outside the depth of tile i's groups */
                    const uint4 bw = SLAB ? (gsel[uu] == i ? wr[uu][0] : zero) : wr[uu][SLAB ? 0 : i];
                    const uint32_t b0[2] = {bw.x, bw.y}, b1[2] = {bw.z, bw.w};
#pragma unroll
                    for (int mt = 0; mt < MT; mt++) {
                        const uint4 r0 = xr[uu][mt][0], r1 = xr[uu][mt][1];
                        const uint32_t a0[4] = {r0.x, r1.x, r0.y, r1.y};
                        const uint32_t a1[4] = {r0.z, r1.z, r0.w, r1.w};
                        mma_sync_m16n8k16_row_col_f32<T>(acc[mt][i], a0, b0);
                        mma_sync_m16n8k16_row_col_f32<T>(acc[mt][i], a1, b1);
                    }
                }
        }
        const int n0 = slab * a.gps * a.kg;
        const bool general = a.has_scale || a.has_bias || a.has_residual || a.act != IGEMM_ACT_NONE;
        const bool call = a.act != IGEMM_ACT_NONE && a.act != IGEMM_ACT_RELU;
        if (!general) gw_epilogue<KT, MT, false, false, false>(a, acc, m0, n0, a.nt, g, t);
        else if (a.has_residual && call) gw_epilogue<KT, MT, true, true, true>(a, acc, m0, n0, a.nt, g, t);
        else if (a.has_residual) gw_epilogue<KT, MT, true, true, false>(a, acc, m0, n0, a.nt, g, t);
        else if (call) gw_epilogue<KT, MT, true, false, true>(a, acc, m0, n0, a.nt, g, t);
        else gw_epilogue<KT, MT, true, false, false>(a, acc, m0, n0, a.nt, g, t);
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_launch_dependents();
#endif
}

/* ------------------------------------------------------------------ family */

/* Groups per slab: 8 for groups of 4 -> 4 channels, 4 for groups of 8 -> 8 channels whose count
 * is a multiple of 4 (a warp's 32
 * input channels of one tap per chunk: 64 contiguous bytes per pixel per 4 lanes instead of 16;
 * its B tiles zero outside their group's depth); else 1. Measured (decisions.md
 * "grouped-narrow"): ResNeXt's 32 groups of 8 41.6 us in slabs against 48.5 alone; a partial last
 * slab (RegNet's 6 groups) and slabs of 2 groups of 16 in the same kernel made every slab plan
 * slower (44.0 against 32.0 alone). */
static int gw_gps(const igemm_conv_params_t *p)
{
    if (p->cg == 4 && p->kg == 4) return 8; /* (supports() asks groups % 8 == 0) */
    return p->cg == 8 && p->kg == 8 && p->groups % 4 == 0 ? 4 : 1;
}

/* The instance for the slab's 8-channel output tiles nt: KT = 1 or 4 (up to 32 channels); MT = 2
 * (32 pixels per unit), 1 with slabs of several groups and for groups of 16 or 24 output channels
 * (16 pixels, two chunks in flight: two CTAs per SM unspilled; measured 8-10% faster on groups of
 * 16 and 24, 7-10% slower on groups of 32, which keep MT = 2 at one CTA per SM: decisions.md
 * "grouped-narrow"). */
static void gw_instance(int64_t nt, int gps, int *kt, int *mt)
{
    *kt = nt <= 1 ? 1 : 4;
    *mt = gps > 1 || nt == 2 || nt == 3 ? 1 : 2;
}

static int gw_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                       char *why, size_t why_len)
{
#define GW_WHY(...)                                                                                     \
    do {                                                                                                \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                        \
    } while (0)
    /* hints this family reads: filter_resident (1: the tiled kernel, -1: the gather kernel), the
     * tiled kernel's tile_n (channels per slab), rows_per_tile, tile_m (output pixels per tile),
     * stages (input buffers), and grid; any other is another family's */
    igemm_plan_hints_t none, mine;
    memset(&none, 0, sizeof none);
    mine = *h;
    mine.filter_resident = mine.tile_n = mine.rows_per_tile = mine.tile_m = mine.stages = mine.grid = 0;
    if (memcmp(&mine, &none, sizeof none) != 0) {
        GW_WHY("plan hints name sm90 settings");
        return 0;
    }
    if (dev->cc_major < 8) {
        GW_WHY("needs compute capability >= 8.0, device has %d.%d", dev->cc_major, dev->cc_minor);
        return 0;
    }
    if (p->groups == 1 || p->groups == p->c) {
        GW_WHY("groups = %lld, c = %lld: takes grouped convs (1 < groups < c)", (long long)p->groups, (long long)p->c);
        return 0;
    }
    const int four = p->cg == 4 && p->kg == 4 && p->groups % 8 == 0; /* slabs of 8 groups of 4 */
    if (!four && (p->cg % 8 != 0 || p->kg % 8 != 0 || p->kg > GW_MAX_KG || p->cg > GW_MAX_CG)) {
        GW_WHY("c/g = %lld, k/g = %lld: takes groups of c/g, k/g multiples of 8 with k/g <= %d, c/g <= %d, or 4 "
               "-> 4 channels in a multiple of 8 groups",
               (long long)p->cg, (long long)p->kg, GW_MAX_KG, GW_MAX_CG);
        return 0;
    }
    /* the depth table (16 bytes per 8 elements of depth) in the default 48 KB of shared memory */
    if (p->r * p->s * (p->cg < 32 ? 32 : p->cg) > GW_MAX_DEPTH || (p->r - 1) * p->dil_h >= 32768 ||
        (p->s - 1) * p->dil_w >= 65536) {
        GW_WHY("filter %lldx%lld, dilation %lldx%lld, c/g = %lld: takes a depth R*S*max(c/g, 32) <= %d and a window "
               "under 32768 x 65536", (long long)p->r, (long long)p->s, (long long)p->dil_h, (long long)p->dil_w,
               (long long)p->cg, GW_MAX_DEPTH);
        return 0;
    }
    /* 32-bit coordinates, depth and in-window offsets (pixel and element offsets are 64-bit) */
    if (((p->r - 1) * p->dil_h * p->w + (p->s - 1) * p->dil_w + 1) * p->c > INT32_MAX / 2) {
        GW_WHY("w = %lld, c = %lld, filter %lldx%lld, dilation %lldx%lld: a window's offsets need 32 bits",
               (long long)p->w, (long long)p->c, (long long)p->r, (long long)p->s, (long long)p->dil_h,
               (long long)p->dil_w);
        return 0;
    }
    if (p->h > INT32_MAX / 4 || p->w > INT32_MAX / 4 || p->r * p->s * p->cg > INT32_MAX / 4 ||
        p->groups > INT32_MAX / 2 || p->k > INT32_MAX / 2 || p->c > INT32_MAX / 2) {
        GW_WHY("h = %lld, w = %lld, c = %lld, k = %lld, filter %lldx%lld: takes 32-bit coordinates", (long long)p->h,
               (long long)p->w, (long long)p->c, (long long)p->k, (long long)p->r, (long long)p->s);
        return 0;
    }
    /* the tiled kernel asked for by the hints: it must take the problem */
    if (h->filter_resident == 1 || h->tile_n || h->rows_per_tile || h->tile_m || h->stages) {
        if (h->filter_resident == -1) {
            GW_WHY("filter_resident = -1 (the gather kernel) with tile_n / rows_per_tile / tile_m / stages (the tiled "
                   "kernel's)");
            return 0;
        }
        if (four) {
            GW_WHY("c/g = 4: the tiled kernel takes c/g and k/g multiples of 8");
            return 0;
        }
        gt_geom_t gg;
        if (!gt_choose(p, dev, h, &gg, why, why_len)) return 0;
    }
    return 1;
#undef GW_WHY
}

static igemm_status_t gw_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                   const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    gw_cfg_t *c = igemm_family_priv(cfg, gw_cfg_t);
    c->pdl = dev->cc_major >= 9 && dev->driver_version >= 12030;
    c->smem_optin = dev->smem_optin_per_block;
    cfg->workspace_bytes = 0;
    char why[256] = "filter_resident = -1";
    if (h->filter_resident != -1 && p->cg % 8 == 0 && p->kg % 8 == 0)
        c->tiled = gt_choose(p, dev, h, &c->gt, why, sizeof why);
    else if (h->filter_resident != -1)
        snprintf(why, sizeof why, "c/g = %lld, k/g = %lld: the tiled kernel takes multiples of 8", (long long)p->cg,
                 (long long)p->kg);
    if (c->tiled) {
        const gt_geom_t *g = &c->gt;
        snprintf(cfg->desc, sizeof cfg->desc,
                 "grouped conv (%lld groups of %lld -> %lld channels, filter %lldx%lld), tiled: items of %d x %d output "
                 "pixels x a slab of %d group(s) (%d channels), the input window (%d x %d pixels) staged in shared "
                 "memory by cp.async %d item(s) ahead, the slab's filter resident in shared memory; per (group, %d x 16 "
                 "pixels) a warp's implicit GEMM of depth %lld through ldmatrix + mma.sync (%d x 8 output channels), "
                 "fused epilogue; %d warps per CTA, %d bytes of shared memory, grid %d%s",
                 (long long)p->groups, (long long)p->cg, (long long)p->kg, (long long)p->r, (long long)p->s, g->th,
                 g->tq, g->gb, g->gb * (int)p->cg, g->in_rows, g->in_cols, g->nbuf - 1, g->mt, (long long)(p->r * p->s * p->cg),
                 g->nt, GT_WARPS, g->smem, g->grid, c->pdl ? ", programmatic dependent launch" : "");
        return IGEMM_STATUS_SUCCESS;
    }
    c->gps = gw_gps(p);
    gw_instance(c->gps * p->kg / 8, c->gps, &c->kt, &c->mt);
    const int64_t blocks = (p->gemm_m + 16 * c->mt - 1) / (16 * c->mt);
    const int64_t units = blocks * (p->groups / c->gps);
    const int64_t ctas = (units + GW_WARPS - 1) / GW_WARPS;
    int64_t cap = 4 * (int64_t)(dev->sm_count > 0 ? dev->sm_count : 1);
    if (h->grid && h->grid < cap) cap = h->grid;
    c->grid = ctas < cap ? ctas : cap;
    const int64_t kdepth = p->r * p->s * p->cg;
    snprintf(cfg->desc, sizeof cfg->desc,
             "grouped conv (%lld groups of %lld -> %lld channels, filter %lldx%lld): per (block of %d output pixels, "
             "slab of %d group(s)) a warp's implicit GEMM of depth %lld (taps x the slab's channels) in 32-deep "
             "chunks through mma.sync m16n8k16 (%d chunks' 16-byte loads in flight, %d x 8 output channels%s), "
             "fused epilogue; %d warps per CTA, grid %lld%s; gathered (not the tiled kernel: %s)",
             (long long)p->groups, (long long)p->cg, (long long)p->kg, (long long)p->r, (long long)p->s,
             16 * c->mt, c->gps, (long long)(kdepth * c->gps), c->gps == 1 && c->kt > 1 && c->mt == 1 ? GW_UNROLL_WIDE : GW_UNROLL, (int)(c->gps * p->kg / 8),
             c->gps > 1 ? ", each tile zero outside its group's depth" : "", GW_WARPS, (long long)c->grid,
             c->pdl ? ", programmatic dependent launch" : "", why);
    return IGEMM_STATUS_SUCCESS;
}

template <typename T, int KT, int MT, bool SLAB>
static cudaError_t gw_launch(const gw_args_t *a, const gw_cfg_t *c, cudaStream_t st)
{
    cudaLaunchConfig_t lc;
    cudaLaunchAttribute attr;
    igemm_launch_config_1d(&lc, &attr, (unsigned)c->grid, GW_THREADS, (size_t)a->chunks * 4 * sizeof(int4), st,
                           c->pdl);
    return cudaLaunchKernelEx(&lc, grouped_kernel<T, KT, MT, SLAB>, *a);
}

template <typename T>
static cudaError_t gw_dispatch(const gw_args_t *a, const gw_cfg_t *c, cudaStream_t st)
{
    switch (c->kt * 10 + c->mt + (c->gps > 1 ? 100 : 0)) {
    case 12: return gw_launch<T, 1, 2, false>(a, c, st);
    case 41: return gw_launch<T, 4, 1, false>(a, c, st);
    case 42: return gw_launch<T, 4, 2, false>(a, c, st);
    case 141: return gw_launch<T, 4, 1, true>(a, c, st);
    }
    return cudaErrorInvalidValue;
}

/* The tiled kernel's launch: its shared-memory limit raised to the device's opt-in maximum on the
 * plan's first run (one limit per kernel for every plan in the process: a lower one would fail
 * another live plan of the same instance). */
template <typename T, int NT, int MT>
static cudaError_t gt_launch(const gt_args_t *a, const gw_cfg_t *c, gw_state_t *gs, cudaStream_t st)
{
    void (*kern)(const gt_args_t) = grouped_tiled_kernel<T, NT, MT>;
    const cudaError_t e =
        igemm_raise_smem_limit((const void *)kern, (size_t)c->gt.smem, c->smem_optin, &gs->smem_attr_done);
    if (e != cudaSuccess) return e;
    cudaLaunchConfig_t lc;
    cudaLaunchAttribute attr;
    igemm_launch_config_1d(&lc, &attr, (unsigned)c->gt.grid, GT_THREADS, (size_t)c->gt.smem, st, c->pdl);
    return cudaLaunchKernelEx(&lc, kern, *a);
}

template <typename T>
static cudaError_t gt_dispatch(const igemm_conv_params_t *p, const gw_cfg_t *c, gw_state_t *gs, cudaStream_t st)
{
    gt_args_t a;
    gt_fill_args(p, &c->gt, &a);
    switch (c->gt.nt * 10 + c->gt.mt) {
    case 11: return gt_launch<T, 1, 1>(&a, c, gs, st);
    case 12: return gt_launch<T, 1, 2>(&a, c, gs, st);
    case 21: return gt_launch<T, 2, 1>(&a, c, gs, st);
    case 22: return gt_launch<T, 2, 2>(&a, c, gs, st);
    case 31: return gt_launch<T, 3, 1>(&a, c, gs, st);
    case 32: return gt_launch<T, 3, 2>(&a, c, gs, st);
    case 41: return gt_launch<T, 4, 1>(&a, c, gs, st);
    case 42: return gt_launch<T, 4, 2>(&a, c, gs, st);
    }
    return cudaErrorInvalidValue;
}

static igemm_status_t gw_run(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                             void *state, void *stream, const igemm_inner_t *inner)
{
    (void)workspace;
    (void)inner;
    const gw_cfg_t *c = igemm_family_priv((igemm_family_config_t *)cfg, gw_cfg_t);
    if (c->tiled) {
        gw_state_t *gs = (gw_state_t *)state;
        const cudaError_t e = p->in_dtype == IGEMM_DTYPE_BF16
                                  ? gt_dispatch<__nv_bfloat16>(p, c, gs, (cudaStream_t)stream)
                                  : gt_dispatch<__half>(p, c, gs, (cudaStream_t)stream);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "grouped conv launch (tiled; groups = %lld, %lldx%lld): %s",
                                   (long long)p->groups, (long long)p->r, (long long)p->s, cudaGetErrorString(e));
        }
        return IGEMM_STATUS_SUCCESS;
    }
    gw_args_t a;
    memset(&a, 0, sizeof a);
    MEM_ARGS_SET_OPERANDS(a, p);
    a.m = p->gemm_m;
    a.units = (p->gemm_m + 16 * c->mt - 1) / (16 * c->mt) * (p->groups / c->gps);
    a.h = p->h;
    a.w_in = p->w;
    a.pq = p->p * p->q;
    a.q = p->q;
    a.groups = (int32_t)p->groups;
    a.cg = (int32_t)p->cg;
    a.kg = (int32_t)p->kg;
    a.kdepth = (int32_t)(p->r * p->s * p->cg);
    a.c = (int32_t)p->c;
    a.k = (int32_t)p->k;
    a.s = (int32_t)p->s;
    a.gps = c->gps;
    a.slabs = a.groups / a.gps;
    a.sw = a.gps * a.cg;
    a.nt = a.gps * a.kg / 8;
    a.sdepth = (int32_t)(p->r * p->s * a.sw);
    a.chunks = (a.sdepth + 31) / 32;
    a.stride_h = (int32_t)p->stride_h;
    a.stride_w = (int32_t)p->stride_w;
    a.pad_top = (int32_t)p->pad_top;
    a.pad_left = (int32_t)p->pad_left;
    a.dil_h = (int32_t)p->dil_h;
    a.dil_w = (int32_t)p->dil_w;
    a.fd_ok = a.units < INT32_MAX && a.m < INT32_MAX && p->p * p->q < INT32_MAX;
    if (a.fd_ok) {
        a.fd_slabs = igemm_fastdiv_make(a.slabs);
        a.fd_pq = igemm_fastdiv_make((int32_t)(p->p * p->q));
        a.fd_q = igemm_fastdiv_make((int32_t)p->q);
    }
    const cudaError_t e = p->in_dtype == IGEMM_DTYPE_BF16 ? gw_dispatch<__nv_bfloat16>(&a, c, (cudaStream_t)stream)
                                                         : gw_dispatch<__half>(&a, c, (cudaStream_t)stream);
    if (e != cudaSuccess)
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "grouped conv launch (M = %lld, groups = %lld): %s",
                               (long long)a.m, (long long)p->groups, cudaGetErrorString(e));
    return IGEMM_STATUS_SUCCESS;
}

/* Under AUTO, no hint of this family's: the groups the sm90 grouped tiles take on this device go
 * to them (sm90.h sm90_grouped_preferred: measured faster, docs/decisions.md "sm90-grouped"). */
static int gw_defers(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                     char *why, size_t why_len)
{
    igemm_plan_hints_t none;
    memset(&none, 0, sizeof none);
    if (memcmp(h, &none, sizeof none) != 0) return 0; /* its own hints keep it here */
    if (!sm90_grouped_preferred(p) || !igemm_sm90_conv_supports(p, dev, &none, NULL, 0)) return 0;
    if (why && why_len)
        snprintf(why, why_len, "c/g = %lld, k/g = %lld: the sm90 grouped tiles take these groups on this device (faster)",
                 (long long)p->cg, (long long)p->kg);
    return 1;
}

extern "C" const igemm_family_t igemm_family_grouped = {
    "mem_grouped", IGEMM_PATH_MEMORY, 1, gw_supports, gw_configure, NULL, gw_run, gw_defers,
};
