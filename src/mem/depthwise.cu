/*
 * depthwise.cu — the depthwise family (mem_depthwise, IGEMM_PATH_MEMORY): convs of groups = c = k
 * (one R x S filter per channel: MobileNet, EfficientNet, ConvNeXt, ...). They do R*S multiply-adds
 * per output element and read each input element about once: bound by memory and by the load /
 * store pipes (never by tensor cores; an implicit GEMM over groups of one channel wastes all but
 * 1/64 of every MMA: the general path ran them at 1-3% of their bytes floor).
 *
 * Algorithm (dw_kernel<T2, S_T, SW, OWT>): a CTA of CBP x TY threads owns CB = 2 * CBP consecutive
 * channels (CBP <= 32: a warp reads up to 128 contiguous bytes of a pixel) and loops over output
 * strips (image, output row, OWT consecutive output columns); thread (cp, ty) computes the channel
 * pair c0 + 2cp, +1 of its strips (one 32-bit load of two 16-bit channels per input pixel). The
 * CTA's filters are staged once in shared memory as fp32 [tap][channel], read in the filter's
 * (KRSC, [channel][tap]) order. Per filter row of a strip: the row's S_T taps of the pair into
 * registers (one 8-byte shared load per tap), the strip's window of (OWT - 1) * SW + S_T input
 * columns loaded (all issued before any is used; zero outside the input), then every column
 * multiplied into every output of the strip that covers it: each input column loaded once per
 * strip and row, each weight once per strip and row. OWT = 8 for the compiled windows (3x3, 5x5,
 * 7x7 at stride 1 and 2, dil_w = 1); everything else (any R x S, strides, dilations) runs the
 * generic instance (S_T = 0: taps at run time, OWT = 4, one load per tap and output). fp32
 * accumulation; the fused epilogue per element (alpha * scale + bias + beta * residual, the
 * activation: ReLU inline, the others out of line). Layouts: x N x H x W x C, w C x R x S (KRSC
 * with C/g = 1), y and the residual N x P x Q x C; C % 8 == 0 and 16-byte aligned x, y, residual
 * (the planner's fallback takes the rest). PTX: griddepcontrol on sm_90 (programmatic dependent
 * launch).
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

#define DW_MAX_THREADS 256
#define DW_MAX_CBP 32 /* channel pairs per CTA: at most 64 channels */

typedef struct dw_args {
    igemm_conv_params_t p;
    int64_t qs, strips; /* strips per output row (ceil(q / OWT)), strips in all (n * p * qs) */
    int cbp;            /* channel pairs per CTA (blockDim.x) */
} dw_args_t;

/* the family's configuration (igemm_family_priv) */
typedef struct dw_cfg {
    int cbp, ty, s_t, sw, owt, pdl;
    unsigned grid_x, grid_y;
    size_t smem;
} dw_cfg_t;

/* per-plan state: the kernel's shared-memory attribute set (the plan's one instance) */
typedef struct dw_state {
    int smem_attr_done;
} dw_state_t;

static __device__ __forceinline__ float2 dw_f2(__half2 v) { return __half22float2(v); }
static __device__ __forceinline__ float2 dw_f2(__nv_bfloat162 v) { return __bfloat1622float2(v); }
static __device__ __forceinline__ float dw_f1(__half v) { return __half2float(v); }
static __device__ __forceinline__ float dw_f1(__nv_bfloat16 v) { return __bfloat162float(v); }

/* A packed pair of 16-bit elements as fp32. */
template <typename T2>
static __device__ __forceinline__ float2 dw_unpack2(uint32_t u)
{
    return dw_f2(*(const T2 *)&u);
}

/* The NCOL input pairs of channels ch, ch+1 at row ih, columns iw0 .. iw0 + NCOL - 1 of image n
 * (zero outside the input): all loads issued before any is used. */
template <int NCOL>
static __device__ __forceinline__ void dw_window(uint32_t (&v)[NCOL], const uint16_t *x, const igemm_conv_params_t &p,
                                                 int64_t n, int64_t ih, int64_t iw0, int64_t ch)
{
    const bool row_ok = ih >= 0 && ih < p.h;
    const uint16_t *xrow = x + ((n * p.h + (row_ok ? ih : 0)) * p.w) * p.c + ch;
#pragma unroll
    for (int j = 0; j < NCOL; j++) {
        const int64_t iw = iw0 + j;
        v[j] = row_ok && iw >= 0 && iw < p.w ? __ldg((const unsigned int *)(xrow + iw * p.c)) : 0u;
    }
}

/* The epilogue of the channel pair ch, ch+1 at output element index yidx (NHWC), stored to y. */
template <typename T2>
static __device__ __forceinline__ void dw_epilogue2(const igemm_conv_params_t &p, float2 acc, int64_t ch, int64_t yidx)
{
    float v[2] = {acc.x, acc.y}, res[2] = {0.0f, 0.0f};
    if (p.has_residual) {
        if (p.out_dtype == IGEMM_DTYPE_F32) {
            const float2 r = __ldg((const float2 *)((const float *)p.residual + yidx));
            res[0] = r.x, res[1] = r.y;
        } else {
            const uint32_t u = __ldg((const unsigned int *)((const uint16_t *)p.residual + yidx));
            const float2 r = p.out_dtype == IGEMM_DTYPE_F16 ? dw_f2(*(const __half2 *)&u) : dw_f2(*(const __nv_bfloat162 *)&u);
            res[0] = r.x, res[1] = r.y;
        }
    }
#pragma unroll
    for (int i = 0; i < 2; i++) {
        float t = p.alpha * v[i];
        if (p.has_scale) t *= __ldg(p.scale + ch + i);
        if (p.has_bias) t += __ldg(p.bias + ch + i);
        if (p.has_residual) t += p.beta * res[i];
        if (p.act == IGEMM_ACT_RELU) t = fmaxf(t, 0.0f);
        else if (p.act != IGEMM_ACT_NONE) t = igemm_act_dev_noinline(p.act, t, p.act_param);
        v[i] = t;
    }
    if (p.out_dtype == IGEMM_DTYPE_F32) {
        *(float2 *)((float *)p.y + yidx) = make_float2(v[0], v[1]);
    } else if (p.out_dtype == IGEMM_DTYPE_F16) {
        const __half2 h = __floats2half2_rn(v[0], v[1]);
        *(__half2 *)((uint16_t *)p.y + yidx) = h;
    } else {
        const __nv_bfloat162 h = __floats2bfloat162_rn(v[0], v[1]);
        *(__nv_bfloat162 *)((uint16_t *)p.y + yidx) = h;
    }
}

template <typename T, typename T2, int S_T, int SW, int OWT>
__global__ void __launch_bounds__(DW_MAX_THREADS, 3) dw_kernel(const __grid_constant__ dw_args_t a)
{
    extern __shared__ float2 dw_smem2[];
    float *wsm = (float *)dw_smem2; /* [tap][CB] */
    const igemm_conv_params_t &p = a.p;
    const int CB = a.cbp * 2, taps = (int)(p.r * p.s);
    const int64_t c0 = (int64_t)blockIdx.y * CB;
    const int tid = (int)(threadIdx.y * blockDim.x + threadIdx.x), nthr = (int)(blockDim.x * blockDim.y);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_wait(); /* launched with programmatic stream serialisation: data after this */
#endif
    const T *w = (const T *)p.filter;
    for (int i = tid; i < taps * CB; i += nthr) { /* read in the filter's order (coalesced) */
        const int cc = i / taps, tap = i - cc * taps;
        const int64_t ch = c0 + cc;
        wsm[tap * CB + cc] = ch < p.c ? dw_f1(w[ch * taps + tap]) : 0.0f;
    }
    __syncthreads();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_launch_dependents();
#endif
    const int64_t ch = c0 + 2 * (int64_t)threadIdx.x;
    if (ch >= p.c) return;
    const uint16_t *x = (const uint16_t *)p.x;
    const float *wcol = wsm + 2 * threadIdx.x; /* this pair's weights: wcol[tap * CB], +1 */
    for (int64_t st = (int64_t)blockIdx.x * blockDim.y + threadIdx.y; st < a.strips;
         st += (int64_t)gridDim.x * blockDim.y) {
        const int64_t qi = st % a.qs, row = st / a.qs;
        const int64_t oh = row % p.p, n = row / p.p;
        const int64_t ow0 = qi * OWT;
        float2 acc[OWT];
#pragma unroll
        for (int o = 0; o < OWT; o++) acc[o] = make_float2(0.0f, 0.0f);
        if constexpr (S_T > 0) {
            constexpr int NCOL = (OWT - 1) * SW + S_T;
            const int64_t iw0 = ow0 * SW - p.pad_left;
            for (int r = 0; r < (int)p.r; r++) {
                uint32_t win[NCOL];
                dw_window<NCOL>(win, x, p, n, oh * p.stride_h - p.pad_top + r * p.dil_h, iw0, ch);
                float2 wreg[S_T];
#pragma unroll
                for (int s = 0; s < S_T; s++) wreg[s] = *(const float2 *)(wcol + (r * S_T + s) * CB);
#pragma unroll
                for (int j = 0; j < NCOL; j++) {
                    const float2 xv = dw_unpack2<T2>(win[j]);
#pragma unroll
                    for (int o = 0; o < OWT; o++) {
                        const int s = j - o * SW;
                        if (s >= 0 && s < S_T) {
                            acc[o].x = fmaf(wreg[s].x, xv.x, acc[o].x);
                            acc[o].y = fmaf(wreg[s].y, xv.y, acc[o].y);
                        }
                    }
                }
            }
        } else {
            const int S = (int)p.s;
            for (int r = 0; r < (int)p.r; r++) {
                const int64_t ih = oh * p.stride_h - p.pad_top + r * p.dil_h;
                if (ih < 0 || ih >= p.h) continue;
                const uint16_t *xrow = x + (n * p.h + ih) * p.w * p.c + ch;
                for (int s = 0; s < S; s++) {
                    const float2 wv = *(const float2 *)(wcol + (r * S + s) * CB);
#pragma unroll
                    for (int o = 0; o < OWT; o++) {
                        const int64_t iw = (ow0 + o) * p.stride_w - p.pad_left + s * p.dil_w;
                        if (iw < 0 || iw >= p.w) continue;
                        const float2 xv = dw_unpack2<T2>(__ldg((const unsigned int *)(xrow + iw * p.c)));
                        acc[o].x = fmaf(wv.x, xv.x, acc[o].x);
                        acc[o].y = fmaf(wv.y, xv.y, acc[o].y);
                    }
                }
            }
        }
        const int64_t ybase = ((n * p.p + oh) * p.q) * p.c + ch;
#pragma unroll
        for (int o = 0; o < OWT; o++)
            if (ow0 + o < p.q) dw_epilogue2<T2>(p, acc[o], ch, ybase + (ow0 + o) * p.c);
    }
}

/* ---- host side ---------------------------------------------------------------------------- */

/* output columns per strip: 8 for the compiled windows, 4 for the generic instance */
static int dw_owt(int s_t) { return s_t ? 8 : 4; }

static int dw_fast_s(const igemm_conv_params_t *p)
{
    const int s_ok = p->s == 3 || p->s == 5 || p->s == 7;
    return s_ok && (p->stride_w == 1 || p->stride_w == 2) && p->dil_w == 1 ? (int)p->s : 0;
}

/* channel pairs per CTA: all channels up to 64, fewer where the filters would not fit smem */
static int dw_cbp(const igemm_conv_params_t *p, int smem_optin)
{
    int cbp = (int)(p->c / 2 < DW_MAX_CBP ? p->c / 2 : DW_MAX_CBP);
    while (cbp > 1 && (size_t)p->r * p->s * cbp * 2 * sizeof(float) > (size_t)smem_optin) cbp /= 2;
    return cbp;
}

static int dw_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                       char *why, size_t why_len)
{
#define DW_WHY(...)                                                                                     \
    do {                                                                                                \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                        \
    } while (0)
    if (h->kernel || h->tile_m || h->tile_n || h->consumers || h->split_k || h->stages || h->staging_boxes ||
        h->filter_resident || h->rows_per_tile || h->fold_rows || h->stem_prepass) {
        DW_WHY("plan hints name sm90 settings");
        return 0;
    }
    if (p->groups == 1 || p->groups != p->c || p->k != p->c) {
        DW_WHY("groups = %lld, c = %lld, k = %lld: takes depthwise convs (groups = c = k)", (long long)p->groups,
               (long long)p->c, (long long)p->k);
        return 0;
    }
    if (p->c % 8 != 0) {
        DW_WHY("c = %lld: needs c %% 8 == 0 (16-byte channel vectors)", (long long)p->c);
        return 0;
    }
    if ((size_t)p->r * p->s * 2 * sizeof(float) > (size_t)dev->smem_optin_per_block) {
        DW_WHY("filter %lldx%lld: its taps of 2 channels do not fit %d B of shared memory", (long long)p->r,
               (long long)p->s, dev->smem_optin_per_block);
        return 0;
    }
    return 1;
#undef DW_WHY
}

static igemm_status_t dw_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                   const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    dw_cfg_t *c = igemm_family_priv(cfg, dw_cfg_t);
    c->cbp = dw_cbp(p, dev->smem_optin_per_block);
    c->ty = DW_MAX_THREADS / c->cbp;
    c->s_t = dw_fast_s(p);
    c->sw = c->s_t ? (int)p->stride_w : 0;
    c->owt = dw_owt(c->s_t);
    c->smem = (size_t)p->r * p->s * c->cbp * 2 * sizeof(float);
    const int64_t qs = (p->q + c->owt - 1) / c->owt, strips = p->n * p->p * qs;
    const int64_t gy = (p->c + 2 * c->cbp - 1) / (2 * c->cbp);
    /* about 6 CTAs per SM in all (each loops over its strips: the filters staged once per CTA) */
    int64_t gx = (strips + c->ty - 1) / c->ty, cap = (int64_t)(dev->sm_count > 0 ? dev->sm_count : 132) * 6 / gy;
    if (cap < 1) cap = 1;
    if (gx > cap) gx = cap;
    if (gy > 65535)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED, "depthwise: c = %lld needs %lld channel blocks (> 65535)",
                               (long long)p->c, (long long)gy);
    c->grid_x = (unsigned)gx;
    c->grid_y = (unsigned)gy;
    c->pdl = h->pdl >= 0 && dev->cc_major >= 9 && dev->driver_version >= 12030;
    cfg->workspace_bytes = 0;
    snprintf(cfg->desc, sizeof cfg->desc,
             "depthwise %lldx%lld (stride %lldx%lld, dilation %lldx%lld): %s; CTA of %d channels x %d strips of %d "
             "output columns, filters in shared memory (%zu B, fp32), channel pairs (32-bit loads), fp32 FMA, fused "
             "epilogue; grid %ux%u%s",
             (long long)p->r, (long long)p->s, (long long)p->stride_h, (long long)p->stride_w, (long long)p->dil_h,
             (long long)p->dil_w,
             c->s_t ? "each input column loaded once per strip and filter row (the window in registers)"
                    : "generic taps (one load per tap and output)",
             2 * c->cbp, c->ty, c->owt, c->smem, c->grid_x, c->grid_y, c->pdl ? ", programmatic dependent launch" : "");
    return IGEMM_STATUS_SUCCESS;
}

template <typename T, typename T2, int S_T, int SW, int OWT>
static cudaError_t dw_launch(const dw_args_t *a, const dw_cfg_t *c, dw_state_t *ds, cudaStream_t st)
{
    void (*kern)(const dw_args_t) = dw_kernel<T, T2, S_T, SW, OWT>;
    if (c->smem > 48 * 1024 && !ds->smem_attr_done) {
        const cudaError_t e = cudaFuncSetAttribute((const void *)kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   (int)c->smem);
        if (e != cudaSuccess) return e;
        ds->smem_attr_done = 1;
    }
    cudaLaunchConfig_t lc;
    cudaLaunchAttribute attr;
    igemm_launch_config_1d(&lc, &attr, c->grid_x, 1, c->smem, st, c->pdl);
    lc.gridDim = dim3(c->grid_x, c->grid_y, 1);
    lc.blockDim = dim3((unsigned)c->cbp, (unsigned)c->ty, 1);
    return cudaLaunchKernelEx(&lc, kern, *a);
}

template <typename T, typename T2>
static cudaError_t dw_dispatch(const dw_args_t *a, const dw_cfg_t *c, dw_state_t *ds, cudaStream_t st)
{
    switch (c->s_t * 10 + c->sw) {
    case 31: return dw_launch<T, T2, 3, 1, 8>(a, c, ds, st);
    case 32: return dw_launch<T, T2, 3, 2, 8>(a, c, ds, st);
    case 51: return dw_launch<T, T2, 5, 1, 8>(a, c, ds, st);
    case 52: return dw_launch<T, T2, 5, 2, 8>(a, c, ds, st);
    case 71: return dw_launch<T, T2, 7, 1, 8>(a, c, ds, st);
    case 72: return dw_launch<T, T2, 7, 2, 8>(a, c, ds, st);
    default: return dw_launch<T, T2, 0, 0, 4>(a, c, ds, st);
    }
}

static igemm_status_t dw_run(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                             void *state, void *stream, const igemm_inner_t *inner)
{
    (void)workspace, (void)inner;
    const dw_cfg_t *c = igemm_family_priv((igemm_family_config_t *)cfg, dw_cfg_t);
    dw_args_t a;
    memset(&a, 0, sizeof a);
    a.p = *p;
    a.qs = (p->q + c->owt - 1) / c->owt;
    a.strips = p->n * p->p * a.qs;
    a.cbp = c->cbp;
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
