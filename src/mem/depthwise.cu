/*
 * depthwise.cu — the depthwise family (mem_depthwise, IGEMM_PATH_MEMORY): convs of groups = c = k
 * (one R x S filter per channel: MobileNet, EfficientNet, ConvNeXt, ...). They do R*S multiply-adds
 * per output element and read each input element about once: bound by memory (and, for 7x7, by
 * the fp32 FMA rate), never by tensor cores; an implicit GEMM over groups of one channel wastes
 * all but 1/64 of every MMA (the general path ran them at 1-3% of their bytes floor).
 *
 * Two kernels. Filter widths 3, 5, 7 at stride_w 1 or 2 (dil_w 1: the compiled windows) run the
 * tiled kernel (depthwise_tiled.cuh: persistent CTAs over output tiles whose input windows are
 * copied to shared memory by cp.async, double-buffered; a thread per channel pair; its tile chosen
 * by dwt_choose below). Everything else runs the strip kernel below: other filters, strides and
 * dilations (its generic instance), and compiled windows the tiled kernel cannot take (an image of
 * 2^31 elements or more, or a window too tall for shared memory).
 *
 * The strip kernel (dw_kernel<T, S_T, SW, OWT>): a CTA of CBV x TY threads owns CB = 8 * CBV
 * consecutive channels and loops over output strips (image, output row, OWT consecutive output
 * columns: 4, or 2 for 5x5 and 7x7, whose windows leave fewer registers);
 * thread (cv, ty) computes channels c0 + 8cv .. +7 of its strips. The CTA's filters are staged once
 * in shared memory as fp32 [tap][channel] (the KRSC filter is [channel][tap]: strided, read once).
 * Per filter row r of a strip: the strip's window of the row, (OWT - 1) * SW + S_T input
 * columns, each a 16-byte load of 8 channels (NHWC: consecutive threads read consecutive 16 bytes
 * of a pixel), all issued before any is used; each column multiplied into every output of the
 * strip that covers it (each input column loaded once per strip and row instead of once per tap).
 * 3x3 stride 1: the next row's window in flight during this row's FMAs, the row's taps in
 * registers, each column unpacked once; the others (registers for the window): tap by tap, the
 * tap's 8 weights from shared memory. Columns and rows outside the input read zero. fp32
 * accumulation; the fused epilogue per element (alpha * scale + bias + beta * residual, the
 * activation: ReLU inline, the others out of line), 16-byte residual loads and y stores. The
 * generic instance (S_T = 0): taps and strides at run time, one 16-byte load per tap and output.
 * Layouts: x N x H x W x C, w C x R x S (KRSC with C/g = 1),
 * y and the residual N x P x Q x C; C % 8 == 0 and 16-byte aligned x, y, residual (the planner's
 * fallback takes the rest). PTX: griddepcontrol on sm_90 (programmatic dependent launch).
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

#define DW_MAX_THREADS 256
#define DW_MAX_CBV 32     /* channel vectors per CTA: at most 256 channels */

typedef struct dw_args {
    igemm_conv_params_t p;
    int64_t qs, strips; /* strips per output row (ceil(q / OWT)), strips in all (n * p * qs) */
    igemm_fastdiv_t fd_qs, fd_p; /* qs and p as divisors, valid when fd_ok (strips < 2^31) */
    int fd_ok;
    int cbv;            /* 8-channel vectors per CTA (blockDim.x) */
} dw_args_t;

/* the family's configuration (igemm_family_priv) */
typedef struct dw_cfg {
    int cbv, ty, s_t, sw, owt, pdl;
    unsigned grid_x, grid_y;
    size_t smem;
    int smem_optin;                        /* the device's opt-in shared memory per block (bytes) */
    int tiled;                             /* the tiled kernel (depthwise_tiled.cuh), with: */
    int th, ns, in_rows, in_cols, cb, np, groups, pitch, chunk_pitch, tile_off, threads;
    int total;                             /* work items: tiles x channel blocks */
    igemm_fastdiv_t fd_taps, fd_tq, fd_tp, fd_cblocks, fd_cv, fd_cols; /* dwt_args_t's divisors, made at plan time */
    int mma;                               /* the mma kernel (depthwise_mma.cuh; tiles as above, OWT 1), with: */
    int tp, units;                         /* tap pairs compiled (5, 13, 25), 16-pixel units per tile */
    igemm_fastdiv_t fd_tw;                 /* the tile's output columns */
} dw_cfg_t;
static_assert(sizeof(dw_cfg_t) <= IGEMM_FAMILY_PRIV_BYTES, "dw_cfg_t must fit the plan's family state");

/* per-plan state: the kernel's shared-memory attribute set (the plan's one instance) */
typedef struct dw_state {
    int smem_attr_done;
} dw_state_t;

static __device__ __forceinline__ float2 dw_f2(__half2 v) { return __half22float2(v); }
static __device__ __forceinline__ float2 dw_f2(__nv_bfloat162 v) { return __bfloat1622float2(v); }
static __device__ __forceinline__ float dw_f1(__half v) { return __half2float(v); }
static __device__ __forceinline__ float dw_f1(__nv_bfloat16 v) { return __bfloat162float(v); }


/* Eight 16-bit elements (one 16-byte vector) as fp32. */
template <typename T2>
static __device__ __forceinline__ void dw_unpack8(uint4 u, float f[8])
{
    const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const float2 t = dw_f2(*(const T2 *)&w[i]);
        f[2 * i] = t.x, f[2 * i + 1] = t.y;
    }
}

/* Eight 16-bit elements at p (16-byte aligned) as fp32. */
template <typename T2>
static __device__ __forceinline__ void dw_load8(const void *p, float f[8])
{
    dw_unpack8<T2>(__ldg((const uint4 *)p), f);
}

/* The NCOL input vectors V (uint4: 8 channels, uint32_t: a channel pair) of channels ch.. at row
 * ih, columns iw0 .. iw0 + NCOL - 1 of image n (zero outside the input): all loads issued before
 * any is used. */
template <int NCOL, typename V, typename T>
static __device__ __forceinline__ void dw_window(V (&v)[NCOL], const T *x, const igemm_conv_params_t &p, int64_t n,
                                                 int64_t ih, int64_t iw0, int64_t ch)
{
    const bool row_ok = ih >= 0 && ih < p.h;
    /* the valid columns lo .. hi-1 of the window (32-bit compares per column), the offsets from
     * its first column in 32 bits (NCOL * c < 2^31: the planner's condition) */
    const int lo = row_ok ? (iw0 < 0 ? (int)(-iw0 < NCOL ? -iw0 : NCOL) : 0) : NCOL;
    const int hi = p.w - iw0 < NCOL ? (int)(p.w - iw0) : NCOL;
    const T *x0 = x + ((n * p.h + (row_ok ? ih : 0)) * p.w) * p.c + ch + (iw0 + lo) * p.c;
    const int c32 = (int)p.c;
#pragma unroll
    for (int j = 0; j < NCOL; j++) v[j] = j >= lo && j < hi ? __ldg((const V *)(x0 + (j - lo) * c32)) : V{};
}

/* The fp32 weights of 8 channels at shared address w (16-byte aligned). */
static __device__ __forceinline__ void dw_wload8(const float *w, float v[8])
{
    const float4 w0 = *(const float4 *)w, w1 = *(const float4 *)(w + 4);
    v[0] = w0.x, v[1] = w0.y, v[2] = w0.z, v[3] = w0.w, v[4] = w1.x, v[5] = w1.y, v[6] = w1.z, v[7] = w1.w;
}

/* Strip st as (column strip qi, output row oh, image n): 32-bit multiply-shift divisions where
 * the strips fit 31 bits (64-bit division costs ~70 instructions), else 64-bit. */
static __device__ __forceinline__ void dw_decode(const dw_args_t &a, int64_t st, int64_t &qi, int64_t &oh, int64_t &n)
{
    if (a.fd_ok) {
        const int s32 = (int)st, row = igemm_fastdiv_div(s32, a.fd_qs), img = igemm_fastdiv_div(row, a.fd_p);
        qi = s32 - row * a.fd_qs.d, oh = row - img * a.fd_p.d, n = img;
    } else {
        const int64_t row = st / a.qs;
        qi = st - row * a.qs, oh = row % a.p.p, n = row / a.p.p;
    }
}

/* acc[0..7] += w[0..7] * x[0..7] */
static __device__ __forceinline__ void dw_fma8(float acc[8], const float w[8], const float x[8])
{
#pragma unroll
    for (int i = 0; i < 8; i++) acc[i] = fmaf(w[i], x[i], acc[i]);
}

/* The epilogue of 8 channels ch.. of output element index yidx (NHWC), stored to y. */
static __device__ __forceinline__ void dw_epilogue8(const igemm_conv_params_t &p, const float acc[8], int64_t ch,
                                                    int64_t yidx)
{
    float v[8], res[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    if (p.has_residual) {
        if (p.out_dtype == IGEMM_DTYPE_F32) {
            const float4 r0 = __ldg((const float4 *)((const float *)p.residual + yidx));
            const float4 r1 = __ldg((const float4 *)((const float *)p.residual + yidx) + 1);
            res[0] = r0.x, res[1] = r0.y, res[2] = r0.z, res[3] = r0.w, res[4] = r1.x, res[5] = r1.y, res[6] = r1.z,
            res[7] = r1.w;
        } else if (p.out_dtype == IGEMM_DTYPE_F16) {
            dw_load8<__half2>((const __half *)p.residual + yidx, res);
        } else {
            dw_load8<__nv_bfloat162>((const __nv_bfloat16 *)p.residual + yidx, res);
        }
    }
#pragma unroll
    for (int i = 0; i < 8; i++) {
        float t = p.alpha * acc[i];
        if (p.has_scale) t *= __ldg(p.scale + ch + i);
        if (p.has_bias) t += __ldg(p.bias + ch + i);
        if (p.has_residual) t += p.beta * res[i];
        v[i] = t;
    }
    if (p.act == IGEMM_ACT_RELU) {
#pragma unroll
        for (int i = 0; i < 8; i++) v[i] = fmaxf(v[i], 0.0f);
    } else if (p.act != IGEMM_ACT_NONE) {
#pragma unroll
        for (int i = 0; i < 8; i++) v[i] = igemm_act_dev_noinline(p.act, v[i], p.act_param);
    }
    if (p.out_dtype == IGEMM_DTYPE_F32) {
        float4 *d = (float4 *)((float *)p.y + yidx);
        d[0] = make_float4(v[0], v[1], v[2], v[3]);
        d[1] = make_float4(v[4], v[5], v[6], v[7]);
    } else {
        uint32_t w[4];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            if (p.out_dtype == IGEMM_DTYPE_F16) {
                const __half2 h = __floats2half2_rn(v[2 * i], v[2 * i + 1]);
                w[i] = *(const uint32_t *)&h;
            } else {
                const __nv_bfloat162 h = __floats2bfloat162_rn(v[2 * i], v[2 * i + 1]);
                w[i] = *(const uint32_t *)&h;
            }
        }
        *(uint4 *)((uint16_t *)p.y + yidx) = make_uint4(w[0], w[1], w[2], w[3]);
    }
}

/* The CTA's prologue: after the programmatic-launch wait, the filters of channels c0 .. c0+CB-1
 * into shared memory as fp32 [tap][CB] (read in the filter's [channel][tap] order: coalesced;
 * channels past c zero), the barrier, then the dependents' trigger. */
template <typename T>
static __device__ __forceinline__ void dw_stage_filters(float *wsm, const igemm_conv_params_t &p, int64_t c0, int CB,
                                                        int taps)
{
    const int tid = (int)(threadIdx.y * blockDim.x + threadIdx.x), nthr = (int)(blockDim.x * blockDim.y);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_wait(); /* launched with programmatic stream serialisation: data after this */
#endif
    const T *w = (const T *)p.filter;
    for (int i = tid; i < taps * CB; i += nthr) {
        const int cc = i / taps, tap = i - cc * taps;
        const int64_t ch = c0 + cc;
        wsm[tap * CB + cc] = ch < p.c ? dw_f1(w[ch * taps + tap]) : 0.0f;
    }
    __syncthreads();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_launch_dependents();
#endif
}

template <typename T, typename T2, int S_T, int SW, int OWT>
__global__ void __launch_bounds__(DW_MAX_THREADS, 2) dw_kernel(const __grid_constant__ dw_args_t a)
{
    extern __shared__ float4 dw_smem4[];
    float *wsm = (float *)dw_smem4; /* [tap][CB] */
    const igemm_conv_params_t &p = a.p;
    const int CB = a.cbv * 8, taps = (int)(p.r * p.s);
    const int64_t c0 = (int64_t)blockIdx.y * CB;
    dw_stage_filters<T>(wsm, p, c0, CB, taps);
    const int64_t ch = c0 + 8 * (int64_t)threadIdx.x;
    if (ch >= p.c) return;
    const T *x = (const T *)p.x;
    const int S = S_T > 0 ? S_T : (int)p.s;
    for (int64_t st = (int64_t)blockIdx.x * blockDim.y + threadIdx.y; st < a.strips;
         st += (int64_t)gridDim.x * blockDim.y) {
        int64_t qi, oh, n;
        dw_decode(a, st, qi, oh, n);
        const int64_t ow0 = qi * OWT;
        float acc[OWT][8];
#pragma unroll
        for (int o = 0; o < OWT; o++)
#pragma unroll
            for (int i = 0; i < 8; i++) acc[o][i] = 0.0f;
        if constexpr (S_T > 0) {
            /* the strip's window of each filter row: NCOL 16-byte vectors (zero outside the input),
             * all loaded before any is used; with PF (3x3, stride 1) the next row's window is in
             * flight while this row's FMAs run (the wider windows leave no registers for it) */
            constexpr int NCOL = (OWT - 1) * SW + S_T;
            constexpr bool PF = S_T == 3 && SW == 1;
            const int64_t iw0 = ow0 * SW - p.pad_left;
            uint4 cur[NCOL], nxt[NCOL]; /* (nxt unused, so unallocated, without PF) */
            dw_window<NCOL>(cur, x, p, n, oh * p.stride_h - p.pad_top, iw0, ch);
            for (int r = 0; r < (int)p.r; r++) {
                if constexpr (PF) {
                    if (r + 1 < (int)p.r)
                        dw_window<NCOL>(nxt, x, p, n, oh * p.stride_h - p.pad_top + (r + 1) * p.dil_h, iw0, ch);
                }
                const float *wr = wsm + (size_t)r * S_T * CB + 8 * threadIdx.x;
                if constexpr (PF) { /* column-major: the row's taps in registers, each column unpacked once */
                    float wreg[S_T][8];
#pragma unroll
                    for (int s = 0; s < S_T; s++) dw_wload8(wr + s * CB, wreg[s]);
#pragma unroll
                    for (int j = 0; j < NCOL; j++) {
                        float xv[8];
                        dw_unpack8<T2>(cur[j], xv);
#pragma unroll
                        for (int o = 0; o < OWT; o++) {
                            const int s = j - o * SW;
                            if (s >= 0 && s < S_T) dw_fma8(acc[o], wreg[s], xv);
                        }
                    }
                } else { /* tap-major: one tap's weights at a time (registers for the window) */
#pragma unroll
                    for (int s = 0; s < S_T; s++) {
                        float wv[8];
                        dw_wload8(wr + s * CB, wv);
#pragma unroll
                        for (int o = 0; o < OWT; o++) {
                            float xv[8];
                            dw_unpack8<T2>(cur[o * SW + s], xv);
                            dw_fma8(acc[o], wv, xv);
                        }
                    }
                }
                if (r + 1 < (int)p.r) {
                    if constexpr (PF) {
#pragma unroll
                        for (int j = 0; j < NCOL; j++) cur[j] = nxt[j];
                    } else {
                        dw_window<NCOL>(cur, x, p, n, oh * p.stride_h - p.pad_top + (r + 1) * p.dil_h, iw0, ch);
                    }
                }
            }
        } else {
            for (int r = 0; r < (int)p.r; r++) {
                const int64_t ih = oh * p.stride_h - p.pad_top + r * p.dil_h;
                if (ih < 0 || ih >= p.h) continue;
                const T *xrow = x + (n * p.h + ih) * p.w * p.c + ch;
                const float *wr = wsm + (size_t)r * S * CB + 8 * threadIdx.x;
#pragma unroll
                for (int o = 0; o < OWT; o++) {
                    const int64_t iwo = (ow0 + o) * p.stride_w - p.pad_left;
                    for (int s = 0; s < S; s++) {
                        const int64_t iw = iwo + s * p.dil_w;
                        if (iw < 0 || iw >= p.w) continue;
                        float xv[8], wv[8];
                        dw_load8<T2>(xrow + iw * p.c, xv);
                        const float4 w0 = *(const float4 *)(wr + s * CB), w1 = *(const float4 *)(wr + s * CB + 4);
                        wv[0] = w0.x, wv[1] = w0.y, wv[2] = w0.z, wv[3] = w0.w;
                        wv[4] = w1.x, wv[5] = w1.y, wv[6] = w1.z, wv[7] = w1.w;
                        dw_fma8(acc[o], wv, xv);
                    }
                }
            }
        }
        const int64_t ybase = ((n * p.p + oh) * p.q) * p.c + ch;
#pragma unroll
        for (int o = 0; o < OWT; o++)
            if (ow0 + o < p.q) dw_epilogue8(p, acc[o], ch, ybase + (ow0 + o) * p.c);
    }
}

/* ---- the channel-pair kernel (7x7, stride 1) ----------------------------------------------- */

/* A packed pair of 16-bit elements as fp32. */
template <typename T2>
static __device__ __forceinline__ float2 dw_unpack2(uint32_t u)
{
    if constexpr (sizeof(T2) == 4 && !__is_same(T2, __half2)) /* bf16: a shift and a mask (1 instruction each) */
        return make_float2(__uint_as_float(u << 16), __uint_as_float(u & 0xffff0000u));
    else
        return dw_f2(*(const T2 *)&u);
}

#include "depthwise_tiled.cuh"
#include "depthwise_mma.cuh"

/* ---- host side ---------------------------------------------------------------------------- */

/* output columns per strip: 4, or 2 for the 5- and 7-wide windows (registers: 128 per thread) */
static int dw_owt(int s_t) { return s_t >= 5 ? 2 : 4; }

static int dw_fast_s(const igemm_conv_params_t *p)
{
    const int s_ok = p->s == 3 || p->s == 5 || p->s == 7;
    return s_ok && (p->stride_w == 1 || p->stride_w == 2) && p->dil_w == 1 ? (int)p->s : 0;
}

/* channel vectors per CTA: all channels up to 256, fewer where the filters would not fit smem */
static int dw_cbv(const igemm_conv_params_t *p, int smem_optin)
{
    int cbv = (int)(p->c / 8 < DW_MAX_CBV ? p->c / 8 : DW_MAX_CBV);
    while (cbv > 1 && (size_t)p->r * p->s * cbv * 8 * sizeof(float) > (size_t)smem_optin) cbv /= 2;
    return cbv;
}

/* The mma kernel's compiled tap pairs for this filter: 5 (at most 10 taps: 3x3, 1x7, 3x1, ...),
 * 13 (5x5), 25 (7x7), 0 for filters of more than 50 taps. */
static int dwm_tap_pairs(const igemm_conv_params_t *p)
{
    const int64_t taps = p->r * p->s;
    return taps <= 10 ? 5 : taps <= 26 ? 13 : taps <= 50 ? 25 : 0;
}

static int dw_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                       char *why, size_t why_len)
{
#define DW_WHY(...)                                                                                     \
    do {                                                                                                \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                        \
    } while (0)
    if ((h->kernel && h->kernel != IGEMM_KERNEL_DEPTHWISE_TILED && h->kernel != IGEMM_KERNEL_DEPTHWISE_MMA) ||
        h->consumers || h->split_k || h->stages || h->staging_boxes ||
        h->filter_resident || h->fold_rows || h->stem_prepass) {
        DW_WHY("plan hints name sm90 settings");
        return 0;
    }
    if (p->groups == 1 || p->groups != p->c || p->k != p->c) {
        DW_WHY("groups = %lld, c = %lld, k = %lld: takes depthwise convs (groups = c = k)", (long long)p->groups,
               (long long)p->c, (long long)p->k);
        return 0;
    }
    if (p->c > ((int64_t)1 << 26)) {
        DW_WHY("c = %lld: the window's 32-bit offsets take c <= 2^26", (long long)p->c);
        return 0;
    }
    if (p->c % 8 != 0) {
        DW_WHY("c = %lld: needs c %% 8 == 0 (16-byte channel vectors)", (long long)p->c);
        return 0;
    }
    const int mma_ok = dwm_tap_pairs(p) > 0 && dev->cc_major >= 8;
    if (h->kernel == IGEMM_KERNEL_DEPTHWISE_MMA && !mma_ok) {
        DW_WHY("hints.kernel = depthwise_mma: takes filters of at most 50 taps on compute capability >= 8.0; r x s = "
               "%lldx%lld, device %d.%d", (long long)p->r, (long long)p->s, dev->cc_major, dev->cc_minor);
        return 0;
    }
    if (h->kernel == IGEMM_KERNEL_DEPTHWISE_TILED && !dw_fast_s(p)) {
        DW_WHY("hints.kernel = depthwise_tiled: takes filter widths 3, 5, 7 (stride_w 1, 2; dil_w 1); s = %lld, "
               "stride_w = %lld, dil_w = %lld", (long long)p->s, (long long)p->stride_w, (long long)p->dil_w);
        return 0;
    }
    if ((h->tile_m || h->tile_n || h->rows_per_tile) && !dw_fast_s(p) && !mma_ok) {
        DW_WHY("tile hints (tile_m, tile_n, rows_per_tile) take the tiled kernel's filter widths 3, 5, 7 (stride_w 1, 2; "
               "dil_w 1) or the mma kernel's filters of at most 50 taps; %lldx%lld, stride_w = %lld, dil_w = %lld",
               (long long)p->r, (long long)p->s, (long long)p->stride_w, (long long)p->dil_w);
        return 0;
    }
    if ((size_t)p->r * p->s * 8 * sizeof(float) > (size_t)dev->smem_optin_per_block) {
        DW_WHY("filter %lldx%lld: its taps of 8 channels do not fit %d B of shared memory", (long long)p->r,
               (long long)p->s, dev->smem_optin_per_block);
        return 0;
    }
    return 1;
#undef DW_WHY
}

/* The mma kernel's configuration (c->tp set): the channel block cb (a multiple of 8 up to 64: a
 * warp per 8-channel chunk and unit, 8 / (cb / 8) warps per chunk up to cb = 32, one beyond) and the tile (th output rows x tw output columns) of least estimated time:
 * per SM, its CTAs' items (tiles x channel blocks over a grid of SMs x resident CTAs) times an
 * item's time, the larger of its issue time (the window copy's instructions, and per 16-pixel unit
 * a ldmatrix + mma per tap pair and the epilogue; the slowest warp of the CTA bounds the item) and
 * its DRAM time (the window with its halo, the output; at ~15 B per cycle per SM), slowed where
 * fewer than 16 warps per SM hide the latency. Hints: tile_n fixes cb, rows_per_tile th, tile_m
 * the tile's pixels (th x tw). Returns 0 where no tile fits in shared memory twice, the items do
 * not fit 31 bits or an image has 2^31 elements or more. */
static int dwm_choose(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                      dw_cfg_t *c)
{
    const int64_t R = p->r, S = p->s, sh = p->stride_h, sw = p->stride_w, dh = p->dil_h, dwl = p->dil_w;
    const int64_t smem_sm = (int64_t)dev->smem_optin_per_block + 1024;
    const int64_t sms = dev->sm_count > 0 ? dev->sm_count : 132;
    const int64_t pairs = (R * S + 1) / 2;
    const int64_t ybytes = p->out_dtype == IGEMM_DTYPE_F32 ? 4 : 2;
    const int regs_occ = c->tp <= 5 ? 4 : 2; /* DWM_MIN_BLOCKS */
    if (p->h * p->w * p->c >= ((int64_t)1 << 31) || p->p * p->q * p->c >= ((int64_t)1 << 31)) return 0;
    double best = -1.0;
    for (int cb = 8; cb <= 64; cb += 8) {
        if (h->tile_n ? cb != h->tile_n : cb > p->c) continue;
        /* a warp per chunk and 16-pixel unit: 8 / nch warps per chunk (one from 5 chunks on) */
        const int nch = cb / 8, wpc = nch <= 4 ? 8 / nch : 1, threads = 32 * nch * wpc;
        const int64_t cblocks = (p->c + cb - 1) / cb;
        for (int64_t th = 1; th <= 64 && th <= p->p; th++) {
            if (h->rows_per_tile && th != h->rows_per_tile) continue;
            for (int64_t tw = 1; tw <= 128 && tw <= p->q; tw++) {
                const int64_t npix = th * tw, units = (npix + 15) / 16;
                if (h->tile_m ? npix != h->tile_m : npix > 1024) continue;
                /* at least one unit per warp where the output has them */
                if (units < wpc && units < (p->p * p->q + 15) / 16 && !h->tile_m && !h->rows_per_tile) continue;
                const int64_t in_rows = (th - 1) * sh + (R - 1) * dh + 1, in_cols = (tw - 1) * sw + (S - 1) * dwl + 1;
                /* the row pitch such that the unit's next pixels, sh rows on, continue the bank pattern */
                const int64_t base = nch * in_cols;
                int64_t pitch16 = base;
                for (int64_t pad = 0; pad < 8; pad++)
                    if ((sh * (base + pad) - tw * sw) % 8 == 0) {
                        pitch16 = base + pad;
                        break;
                    }
                const int64_t smem = 2 * in_rows * pitch16 * 16;
                if (smem > dev->smem_optin_per_block) continue;
                int64_t occ = smem_sm / (smem + 1024);
                if (occ > regs_occ) occ = regs_occ;
                const int64_t total = p->n * ((p->p + th - 1) / th) * ((p->q + tw - 1) / tw) * cblocks;
                if (total >= ((int64_t)1 << 31)) continue;
                int64_t grid = total < sms * occ ? total : sms * occ;
                if (grid > cblocks) grid -= grid % cblocks;
                const int64_t per_cta = (total + grid - 1) / grid;
                const int64_t ctas_sm = (grid + sms - 1) / sms;
                /* an item: its warp instructions (the copy ~10 per 16-byte chunk and 32 lanes; a unit 2
                 * per tap pair + 40) over 4 schedulers at ~60% issue, one warp's chain of units (~10
                 * cycles per mma, 80 for the epilogue), its DRAM bytes at ~15 per cycle; the SM's
                 * CTAs share the first and the last */
                const double copy = 10.0 * (double)(in_rows * in_cols * nch) / 32.0;
                const double issue_all = copy + (double)(units * nch) * (2.0 * (double)pairs + 40.0);
                const double chain = copy / (threads / 32) + (double)((units + wpc - 1) / wpc) * (10.0 * (double)pairs + 80.0);
                /* (8-channel blocks copy half sectors: counted as 1.5x the bytes where c > 8) */
                const double bytes = (double)(in_rows * in_cols * cb * 2) * (cb == 8 && p->c > 8 ? 1.5 : 1.0) +
                                     (double)(npix * cb * ybytes);
                double item = (double)ctas_sm * issue_all / 2.4;
                if (chain > item) item = chain;
                if ((double)ctas_sm * bytes / 15.0 > item) item = (double)ctas_sm * bytes / 15.0;
                double hide = (double)(ctas_sm * threads / 32) / 16.0;
                if (hide > 1.0) hide = 1.0;
                const double t = ((double)per_cta * item + 2000.0) / hide;
                if (best < 0.0 || t < best) {
                    best = t;
                    c->cb = cb, c->np = cb / 2, c->groups = wpc, c->threads = threads;
                    c->th = (int)th, c->ns = (int)tw, c->in_rows = (int)in_rows, c->in_cols = (int)in_cols;
                    c->chunk_pitch = (int)(in_cols * 16), c->pitch = (int)(pitch16 * 16);
                    c->tile_off = 0, c->smem = (size_t)smem;
                    c->grid_x = (unsigned)grid;
                    c->units = (int)units;
                }
            }
        }
    }
    if (best < 0.0) return 0;
    c->owt = 1, c->grid_y = 1;
    const int64_t tq = (p->q + c->ns - 1) / c->ns, tp = (p->p + c->th - 1) / c->th, cblocks = (p->c + c->cb - 1) / c->cb;
    c->total = (int)(p->n * tp * tq * cblocks);
    c->fd_taps = igemm_fastdiv_make((int32_t)(p->r * p->s));
    c->fd_tq = igemm_fastdiv_make((int32_t)tq);
    c->fd_tp = igemm_fastdiv_make((int32_t)tp);
    c->fd_cblocks = igemm_fastdiv_make((int32_t)cblocks);
    c->fd_cv = igemm_fastdiv_make(c->cb / 8);
    c->fd_cols = igemm_fastdiv_make(c->in_cols);
    c->fd_tw = igemm_fastdiv_make(c->ns);
    return 1;
}

/* The tiled kernel's configuration for a compiled window (c->s_t, c->sw set): the channel block
 * cb (a multiple of 8 from 32 up to 64: each pixel's copy at least two 32-byte sectors; fewer where
 * c is) and the tile (output rows th x 7- or 8-column strips ns) of least
 * estimated time: the items per CTA (tiles x channel blocks, padded channels included, over a grid
 * of SMs x resident CTAs: up to 4, as the two buffers allow) times an item's cost in instructions
 * per thread (its input chunks, its pieces' FMAs, shared loads and stores) and the warps sharing a
 * scheduler, plus one exposed copy, slowed where fewer than 24 warps per SM hide the latency.
 * Strips are of OWT = 7 output columns where that pads q less than 8 (q = 7, 14, 28, ...), else 8.
 * Tiles with fewer (row, strip) pieces than thread groups are left out where the output has
 * enough of them. Hints: tile_n fixes cb, rows_per_tile th, tile_m the tile's output pixels
 * (th x ns x OWT). Returns 0 where no tile fits in shared memory twice, the items do not fit 31
 * bits or an image (input or output) has 2^31 elements or more. */
static int dwt_choose(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                      dw_cfg_t *c)
{
    /* strips of 7 output columns where they pad q less than strips of 8 (q = 7, 14, 28, ...) */
    const int OWT = (p->q + 6) / 7 * 7 - p->q < (p->q + 7) / 8 * 8 - p->q ? 7 : 8, S = c->s_t, SW = c->sw;
    const int64_t R = p->r, sh = p->stride_h, dh = p->dil_h;
    const int64_t qstrips = (p->q + OWT - 1) / OWT;
    const int64_t smem_sm = (int64_t)dev->smem_optin_per_block + 1024;
    const int64_t sms = dev->sm_count > 0 ? dev->sm_count : 132;
    const int ncol = (OWT - 1) * SW + S;
    if (p->h * p->w * p->c >= ((int64_t)1 << 31) || p->p * p->q * p->c >= ((int64_t)1 << 31))
        return 0; /* (the kernel's offsets inside an image are 32-bit) */
    double best = -1.0;
    for (int cb = 8; cb <= 64 && cb <= p->c; cb += 8) {
        if (h->tile_n ? cb != h->tile_n : cb < 32 && cb < p->c) continue; /* >= 64 bytes of each pixel per copy */
        const int np = cb / 2, groups = DWT_THREADS / np, threads = np * groups, cv = cb / 8;
        const int64_t cblocks = (p->c + cb - 1) / cb;
        const int64_t wbytes = (R * S * cb * 4 + 15) / 16 * 16;
        for (int64_t th = 1; th <= 64 && th <= p->p; th++) {
            for (int64_t ns = 1; ns <= 16 && ns <= qstrips; ns++) {
                if ((h->rows_per_tile && th != h->rows_per_tile) || (h->tile_m && th * ns * OWT != h->tile_m)) continue;
                /* every thread group busy (where the output has the pieces for it; hints may say otherwise) */
                if (th * ns < groups && th * ns < p->p * qstrips && !h->rows_per_tile && !h->tile_m) continue;
                const int64_t in_rows = (th - 1) * sh + (R - 1) * dh + 1, in_cols = (ns * OWT - 1) * SW + S;
                /* chunk rows of an odd number of 16-byte chunks (a warp's 8 chunks of one column in 8
                 * different bank quads); the row pitch such that a warp's next group, sh rows on,
                 * continues the bank pattern of one contiguous position (where the stride allows) */
                const int64_t cpp = in_cols | 1, base = cv * cpp;
                int64_t pitch16 = base;
                for (int64_t pad = 0; pad < 8 && cv < 8; pad++)
                    if ((sh * (base + pad) - base) % 8 == 0) {
                        pitch16 = base + pad;
                        break;
                    }
                const int64_t smem = wbytes + 2 * in_rows * pitch16 * 16;
                if (smem > dev->smem_optin_per_block) continue;
                int64_t occ = smem_sm / (smem + 1024);
                if (occ > 4) occ = 4;
                const int64_t total = p->n * ((p->p + th - 1) / th) * ((qstrips + ns - 1) / ns) * cblocks;
                if (total >= ((int64_t)1 << 31)) continue;
                /* (a multiple of the channel blocks: each CTA keeps one block, its weights staged once) */
                int64_t grid = total < sms * occ ? total : sms * occ;
                if (grid > cblocks) grid -= grid % cblocks;
                const int64_t per_cta = (total + grid - 1) / grid;
                const double pieces = (double)((th * ns + groups - 1) / groups);
                const double piece = (double)(OWT * R * S) + 1.5 * (double)(R * ncol) + 4.0 * OWT;
                const double load = 6.0 * (double)(in_rows * in_cols * cv) / threads;
                const double item = 60.0 + load + pieces * piece;
                /* ~cycles (occ * threads / 128 warps per scheduler), over the latency hiding of
                 * fewer than 24 warps per SM */
                double hide = (double)(occ * threads / 32) / 24.0;
                if (hide > 1.0) hide = 1.0;
                const double t = ((double)per_cta * item * (double)(occ * threads) / 128.0 + 3000.0) / hide;
                if (best < 0.0 || t < best) {
                    best = t;
                    c->cb = cb, c->np = np, c->groups = groups, c->threads = threads;
                    c->th = (int)th, c->ns = (int)ns, c->in_rows = (int)in_rows, c->in_cols = (int)in_cols;
                    c->chunk_pitch = (int)(cpp * 16), c->pitch = (int)(pitch16 * 16);
                    c->tile_off = (int)wbytes, c->smem = (size_t)smem;
                    c->grid_x = (unsigned)grid;
                }
            }
        }
    }
    if (best < 0.0) return 0;
    c->owt = OWT, c->grid_y = 1;
    /* the kernel's divisors, once per plan (not per run) */
    const int64_t tq = (qstrips + c->ns - 1) / c->ns, tp = (p->p + c->th - 1) / c->th, cblocks = (p->c + c->cb - 1) / c->cb;
    c->total = (int)(p->n * tp * tq * cblocks);
    c->fd_taps = igemm_fastdiv_make((int32_t)(p->r * p->s));
    c->fd_tq = igemm_fastdiv_make((int32_t)tq);
    c->fd_tp = igemm_fastdiv_make((int32_t)tp);
    c->fd_cblocks = igemm_fastdiv_make((int32_t)cblocks);
    c->fd_cv = igemm_fastdiv_make(c->cb / 8);
    c->fd_cols = igemm_fastdiv_make(c->in_cols);
    return 1;
}

static igemm_status_t dw_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                   const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    dw_cfg_t *c = igemm_family_priv(cfg, dw_cfg_t);
    c->s_t = dw_fast_s(p);
    c->sw = c->s_t ? (int)p->stride_w : 0;
    c->smem_optin = dev->smem_optin_per_block;
    c->pdl = h->pdl >= 0 && dev->cc_major >= 9 && dev->driver_version >= 12030;
    cfg->workspace_bytes = 0;
    /* the tiled kernel for its compiled windows (filter widths 3, 5, 7 at stride_w 1, 2, dil_w 1:
     * measured faster than the mma kernel there, decisions.md "depthwise-mma"); the mma kernel for
     * the other filters of at most 50 taps (any stride and dilation; 1.5x the strip kernel) or
     * when the hint names it; the strip kernel for the rest */
    c->tiled = h->kernel != IGEMM_KERNEL_DEPTHWISE_MMA && c->s_t && dwt_choose(p, dev, h, c);
    c->tp = !c->tiled && dev->cc_major >= 8 && h->kernel != IGEMM_KERNEL_DEPTHWISE_TILED ? dwm_tap_pairs(p) : 0;
    c->mma = c->tp && dwm_choose(p, dev, h, c);
    if (!c->mma && !c->tiled && (h->tile_m || h->tile_n || h->rows_per_tile || h->kernel))
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                               "depthwise: hints kernel = %d, tile_m = %d, tile_n = %d, rows_per_tile = %d: no tile of "
                               "that shape (output rows x columns x channels: a multiple of 8 up to 64) fits %d B of shared memory twice",
                               h->kernel, h->tile_m, h->tile_n, h->rows_per_tile, dev->smem_optin_per_block);
    if (c->mma) {
        if (h->grid > 0 && c->grid_x > (unsigned)h->grid) c->grid_x = (unsigned)h->grid; /* the hint: at most */
        snprintf(cfg->desc, sizeof cfg->desc,
                 "depthwise %lldx%lld (stride %lldx%lld, dilation %lldx%lld): mma.sync; persistent CTAs over tiles of "
                 "%d output rows x %d columns x %d channels, each tile's %dx%d input window copied to shared memory "
                 "(cp.async, zero-filled padding, the next tile's copy in flight), a warp per 8-channel chunk and "
                 "16-pixel unit: per tap pair a ldmatrix of the window (implicit im2col) and an m16n8k16 MMA with the "
                 "taps' block-diagonal filter (fp32 accumulation), fused epilogue; %zu B of shared memory, grid %u%s",
                 (long long)p->r, (long long)p->s, (long long)p->stride_h, (long long)p->stride_w, (long long)p->dil_h,
                 (long long)p->dil_w, c->th, c->ns, c->cb, c->in_rows, c->in_cols, c->smem, c->grid_x,
                 c->pdl ? ", programmatic dependent launch" : "");
        return IGEMM_STATUS_SUCCESS;
    }
    if (c->tiled) {
        if (h->grid > 0 && c->grid_x > (unsigned)h->grid) c->grid_x = (unsigned)h->grid; /* the hint: at most */
        snprintf(cfg->desc, sizeof cfg->desc,
                 "depthwise %lldx%lld (stride %lldx%lld, dilation %lldx%lld): tiled; persistent CTAs over tiles of %d "
                 "output rows x %d columns x %d channels, each tile's %dx%d input window copied to shared memory "
                 "(cp.async, zero-filled padding, the next tile's copy in flight), a thread per channel pair over "
                 "the tile's %d-column strips, fp32 FMA, fused epilogue; %zu B of shared memory, grid %ux%u%s",
                 (long long)p->r, (long long)p->s, (long long)p->stride_h, (long long)p->stride_w, (long long)p->dil_h,
                 (long long)p->dil_w, c->th, c->ns * c->owt, c->cb, c->in_rows, c->in_cols, c->owt, c->smem, c->grid_x,
                 c->grid_y, c->pdl ? ", programmatic dependent launch" : "");
        return IGEMM_STATUS_SUCCESS;
    }
    const int vw = 8; /* channels per thread */
    c->cbv = dw_cbv(p, dev->smem_optin_per_block);
    c->ty = DW_MAX_THREADS / c->cbv;
    c->owt = dw_owt(c->s_t);
    c->smem = (size_t)p->r * p->s * c->cbv * vw * sizeof(float);
    const int64_t qs = (p->q + c->owt - 1) / c->owt, strips = p->n * p->p * qs;
    const int64_t gy = (p->c + vw * c->cbv - 1) / (vw * c->cbv);
    /* about 4 CTAs per SM in all (6 for the pair kernel, 3 resident), each looping over its strips:
     * the filters staged once per CTA */
    int64_t gx = (strips + c->ty - 1) / c->ty,
            cap = (int64_t)(dev->sm_count > 0 ? dev->sm_count : 132) * 4 / gy;
    if (cap < 1) cap = 1;
    if (gx > cap) gx = cap;
    if (gy > 65535)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED, "depthwise: c = %lld needs %lld channel blocks (> 65535)",
                               (long long)p->c, (long long)gy);
    c->grid_x = (unsigned)gx;
    c->grid_y = (unsigned)gy;
    snprintf(cfg->desc, sizeof cfg->desc,
             "depthwise %lldx%lld (stride %lldx%lld, dilation %lldx%lld): %s; CTA of %d channels x %d strips of %d "
             "output columns, filters in shared memory (%zu B, fp32), fp32 FMA, fused "
             "epilogue; grid %ux%u%s",
             (long long)p->r, (long long)p->s, (long long)p->stride_h, (long long)p->stride_w, (long long)p->dil_h,
             (long long)p->dil_w,
             c->s_t ? "8-channel vectors, each input column loaded once per strip and filter row (the window in registers)"
                      : "8-channel vectors, generic taps (one load per tap and output)",
             vw * c->cbv, c->ty, c->owt, c->smem, c->grid_x, c->grid_y, c->pdl ? ", programmatic dependent launch" : "");
    return IGEMM_STATUS_SUCCESS;
}

/* Launches kern (either kernel of the family) on the plan's grid with block threads, c->smem bytes
 * of dynamic shared memory (the limit raised on the plan's first run) and PDL where the plan has
 * it. */
template <typename A>
static cudaError_t dw_launch_kernel(void (*kern)(const A), const A *a, dim3 block, const dw_cfg_t *c, dw_state_t *ds,
                                    cudaStream_t st)
{
    const cudaError_t e = igemm_raise_smem_limit((const void *)kern, c->smem, c->smem_optin, &ds->smem_attr_done);
    if (e != cudaSuccess) return e;
    cudaLaunchConfig_t lc;
    cudaLaunchAttribute attr;
    igemm_launch_config_1d(&lc, &attr, c->grid_x, 1, c->smem, st, c->pdl);
    lc.gridDim = dim3(c->grid_x, c->grid_y, 1);
    lc.blockDim = block;
    return cudaLaunchKernelEx(&lc, kern, *a);
}

template <typename T, typename T2, int S_T, int SW, int OWT>
static cudaError_t dw_launch(const dw_args_t *a, const dw_cfg_t *c, dw_state_t *ds, cudaStream_t st)
{
    return dw_launch_kernel(dw_kernel<T, T2, S_T, SW, OWT>, a, dim3((unsigned)c->cbv, (unsigned)c->ty, 1), c, ds, st);
}

template <typename T, typename T2>
static cudaError_t dw_dispatch(const dw_args_t *a, const dw_cfg_t *c, dw_state_t *ds, cudaStream_t st)
{
    switch (c->s_t * 10 + c->sw) {
    case 31: return dw_launch<T, T2, 3, 1, 4>(a, c, ds, st);
    case 32: return dw_launch<T, T2, 3, 2, 4>(a, c, ds, st);
    case 51: return dw_launch<T, T2, 5, 1, 2>(a, c, ds, st);
    case 52: return dw_launch<T, T2, 5, 2, 2>(a, c, ds, st);
    case 71: return dw_launch<T, T2, 7, 1, 2>(a, c, ds, st);
    case 72: return dw_launch<T, T2, 7, 2, 2>(a, c, ds, st);
    default: return dw_launch<T, T2, 0, 0, 4>(a, c, ds, st);
    }
}

template <typename T, typename T2, int S_T, int SW>
static cudaError_t dwt_launch(const dwt_args_t *a, const dw_cfg_t *c, dw_state_t *ds, cudaStream_t st)
{
    void (*kern)(const dwt_args_t) = c->owt == 7 ? dwt_kernel<T, T2, S_T, SW, 7> : dwt_kernel<T, T2, S_T, SW, 8>;
    return dw_launch_kernel(kern, a, dim3((unsigned)c->threads, 1, 1), c, ds, st);
}

template <typename T>
static cudaError_t dwm_dispatch(const dwt_args_t *a, const dw_cfg_t *c, dw_state_t *ds, cudaStream_t st)
{
    void (*kern)(const dwt_args_t) = c->tp == 5 ? dwm_kernel<T, 5> : c->tp == 13 ? dwm_kernel<T, 13> : dwm_kernel<T, 25>;
    return dw_launch_kernel(kern, a, dim3((unsigned)c->threads, 1, 1), c, ds, st);
}

template <typename T, typename T2>
static cudaError_t dwt_dispatch(const igemm_conv_params_t *p, const dw_cfg_t *c, dw_state_t *ds, cudaStream_t st)
{
    dwt_args_t a;
    memset(&a, 0, sizeof a);
    a.p = *p;
    a.th = c->th, a.ns = c->ns, a.in_rows = c->in_rows, a.in_cols = c->in_cols;
    a.cb = c->cb, a.np = c->np, a.groups = c->groups, a.pitch = c->pitch, a.chunk_pitch = c->chunk_pitch;
    a.tile_off = c->tile_off, a.buf_bytes = c->in_rows * c->pitch, a.total = c->total;
    a.fd_taps = c->fd_taps, a.fd_tq = c->fd_tq, a.fd_tp = c->fd_tp, a.fd_cblocks = c->fd_cblocks;
    a.fd_cv = c->fd_cv, a.fd_cols = c->fd_cols;
    a.units = c->units, a.fd_tw = c->fd_tw;
    if (c->mma) return dwm_dispatch<T>(&a, c, ds, st);
    switch (c->s_t * 10 + c->sw) {
    case 31: return dwt_launch<T, T2, 3, 1>(&a, c, ds, st);
    case 32: return dwt_launch<T, T2, 3, 2>(&a, c, ds, st);
    case 51: return dwt_launch<T, T2, 5, 1>(&a, c, ds, st);
    case 52: return dwt_launch<T, T2, 5, 2>(&a, c, ds, st);
    case 71: return dwt_launch<T, T2, 7, 1>(&a, c, ds, st);
    default: return dwt_launch<T, T2, 7, 2>(&a, c, ds, st);
    }
}

static igemm_status_t dw_run(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                             void *state, void *stream, const igemm_inner_t *inner)
{
    (void)workspace, (void)inner;
    const dw_cfg_t *c = igemm_family_priv((igemm_family_config_t *)cfg, dw_cfg_t);
    if (c->tiled || c->mma) {
        const cudaError_t e = p->in_dtype == IGEMM_DTYPE_BF16
                                  ? dwt_dispatch<__nv_bfloat16, __nv_bfloat162>(p, c, (dw_state_t *)state, (cudaStream_t)stream)
                                  : dwt_dispatch<__half, __half2>(p, c, (dw_state_t *)state, (cudaStream_t)stream);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "depthwise launch (c = %lld, %lldx%lld): %s",
                                   (long long)p->c, (long long)p->r, (long long)p->s, cudaGetErrorString(e));
        }
        return IGEMM_STATUS_SUCCESS;
    }
    dw_args_t a;
    memset(&a, 0, sizeof a);
    a.p = *p;
    a.qs = (p->q + c->owt - 1) / c->owt;
    a.strips = p->n * p->p * a.qs;
    a.fd_ok = a.strips < ((int64_t)1 << 31);
    if (a.fd_ok) a.fd_qs = igemm_fastdiv_make((int32_t)a.qs), a.fd_p = igemm_fastdiv_make((int32_t)p->p);
    a.cbv = c->cbv;
    dw_state_t *ds = (dw_state_t *)state;
    const cudaStream_t st = (cudaStream_t)stream;
    const cudaError_t e = p->in_dtype == IGEMM_DTYPE_BF16 ? dw_dispatch<__nv_bfloat16, __nv_bfloat162>(&a, c, ds, st)
                                                         : dw_dispatch<__half, __half2>(&a, c, ds, st);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "depthwise launch (c = %lld, %lldx%lld): %s", (long long)p->c,
                               (long long)p->r, (long long)p->s, cudaGetErrorString(e));
    }
    return IGEMM_STATUS_SUCCESS;
}

extern "C" const igemm_family_t igemm_family_depthwise = {
    "mem_depthwise", IGEMM_PATH_MEMORY, 1, dw_supports, dw_configure, NULL, dw_run,
};
