/*
 * skinny_gemm.cu — the few-row family (mem_skinny_mma, IGEMM_PATH_MEMORY): 1x1 convs (any stride,
 * any padding) and GEMMs with at most 16 output rows M (pixels, tokens, a classifier's batch),
 * where the time is reading the filter B (N x K) once from DRAM, not tensor-core work. A tile
 * kernel of 128 rows would leave M/128 of its MMA idle and few CTAs to pull B; this one makes
 * B the MMA's M side ("swap AB": 16 filter rows per m16n8k16) and the x rows the N side (8 per
 * MMA, NT = 1 or 2 of them), so every filter element is read once, by a 16-byte load. With more
 * rows it measured slower than the tensor-core path (x re-read per CTA; decisions.md "skinny").
 *
 * Algorithm (skinny_kernel<T, NT, RT>): a CTA of SK_WARPS warps owns 16*RT output channels and
 * all M rows; its warps split K: warp w takes the 32-element chunks w, w + SK_WARPS, ... . Per
 * chunk, lane (g = lane/4, c = lane%4) loads 8 consecutive elements (16 bytes, kc + 8c ..) of
 * filter rows g and g+8 of each 16-row group and of x rows 8*nt + g; two mma.sync m16n8k16 per
 * (row group, x group) consume them. The K order inside a chunk is permuted alike for both
 * operands (MMA 1 takes elements 0-3 of each lane's 8 as k-slots {2c, 2c+1, 2c+8, 2c+9}, MMA 2
 * elements 4-7), which a dot product allows: no shared memory, no ldmatrix. U chunks' loads are
 * issued before their MMAs. The warps' fp32 partial tiles meet in shared memory and are summed
 * in warp order (deterministic); each thread then applies the fused epilogue (epilogue.cuh) to
 * one output element, consecutive threads on consecutive channels (coalesced stores).
 * Layouts: x N x H x W x C (row m of the GEMM is output pixel m: x[img, p*sh - pt, q*sw - pl, :],
 * zeros in the padding), w K x C (KRSC with R = S = 1), y and the residual M x K; C % 8 == 0 and
 * 16-byte aligned x and w (the planner's fallback takes the rest). PTX: mma.sync (sm_80+),
 * griddepcontrol on sm_90 (launched with programmatic stream serialisation: the wait comes
 * before any access).
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
#include "mem_1x1.h"
#include "mem_args.h"

#define SK_WARPS 8
#define SK_THREADS (32 * SK_WARPS)
#define SK_MAX_M 16 /* measured: slower than the tensor-core path above (decisions.md "skinny") */

typedef struct sk_args {
    const void *x, *w;
    void *y;
    const float *scale, *bias;
    const void *residual;
    int64_t m, n, k;           /* GEMM rows (output pixels), columns (output channels), depth (c) */
    int64_t h, w_in, pq, q;    /* input height, width; output pixels per image, output width */
    int64_t stride_h, stride_w, pad_top, pad_left;
    float alpha, beta, act_param;
    int act, has_scale, has_bias, has_residual, out_dtype;
} sk_args_t;

/* the family's configuration (igemm_family_priv) */
typedef struct sk_cfg {
    int nt, rt, pdl;
    int64_t grid;
} sk_cfg_t;

template <typename T, int NT, int RT>
__global__ void __launch_bounds__(SK_THREADS) skinny_kernel(sk_args_t a)
{
    constexpr int U = (2 * RT + NT) <= 4 ? 4 : 2; /* chunks whose loads are in flight together */
    extern __shared__ float sk_red[];            /* [SK_WARPS][RT][NT][4][32] */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_wait();
#endif
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, c4 = lane & 3;
    const int64_t row0 = (int64_t)blockIdx.x * (16 * RT);
    const int64_t kv = a.k >> 3; /* 16-byte vectors per row */

    /* filter rows g and g + 8 of each 16-row group (clamped: rows past N are computed, not stored) */
    const uint4 *wp[RT][2];
#pragma unroll
    for (int rt = 0; rt < RT; rt++)
#pragma unroll
        for (int hh = 0; hh < 2; hh++) {
            int64_t n = row0 + rt * 16 + g + 8 * hh;
            if (n > a.n - 1) n = a.n - 1;
            wp[rt][hh] = (const uint4 *)a.w + n * kv;
        }
    /* x rows 8 nt + g: the output pixel's input pixel, or none (padding) */
    const uint4 *xp[NT];
    bool xv[NT];
#pragma unroll
    for (int nt = 0; nt < NT; nt++) {
        int64_t m = nt * 8 + g;
        if (m > a.m - 1) m = a.m - 1;
        const int64_t img = m / a.pq, rem = m - img * a.pq;
        const int64_t pp = rem / a.q, qq = rem - pp * a.q;
        const int64_t ih = pp * a.stride_h - a.pad_top, iw = qq * a.stride_w - a.pad_left;
        xv[nt] = ih >= 0 && ih < a.h && iw >= 0 && iw < a.w_in;
        xp[nt] = (const uint4 *)a.x + (xv[nt] ? ((img * a.h + ih) * a.w_in + iw) * kv : 0);
    }

    float acc[RT][NT][4];
#pragma unroll
    for (int rt = 0; rt < RT; rt++)
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[rt][nt][r] = 0.f;

    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
    /* cb: the warp's chunk (uniform over the warp: mma.sync is collective); vi: the lane's vector */
    for (int64_t cb = (int64_t)warp * 4; cb < kv; cb += (int64_t)4 * SK_WARPS * U) {
        uint4 wr[U][RT][2], xr[U][NT];
#pragma unroll
        for (int u = 0; u < U; u++) {
            const int64_t vi = cb + (int64_t)u * 4 * SK_WARPS + c4;
            const bool in = vi < kv;
#pragma unroll
            for (int rt = 0; rt < RT; rt++)
#pragma unroll
                for (int hh = 0; hh < 2; hh++) wr[u][rt][hh] = in ? __ldg(wp[rt][hh] + vi) : zero;
#pragma unroll
            for (int nt = 0; nt < NT; nt++) xr[u][nt] = in && xv[nt] ? __ldg(xp[nt] + vi) : zero;
        }
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int rt = 0; rt < RT; rt++)
#pragma unroll
                for (int nt = 0; nt < NT; nt++) {
                    const uint32_t a0[4] = {wr[u][rt][0].x, wr[u][rt][1].x, wr[u][rt][0].y, wr[u][rt][1].y};
                    const uint32_t b0[2] = {xr[u][nt].x, xr[u][nt].y};
                    mma_sync_m16n8k16_row_col_f32<T>(acc[rt][nt], a0, b0);
                    const uint32_t a1[4] = {wr[u][rt][0].z, wr[u][rt][1].z, wr[u][rt][0].w, wr[u][rt][1].w};
                    const uint32_t b1[2] = {xr[u][nt].z, xr[u][nt].w};
                    mma_sync_m16n8k16_row_col_f32<T>(acc[rt][nt], a1, b1);
                }
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_launch_dependents();
#endif

    /* the warps' partial tiles, summed in warp order */
#pragma unroll
    for (int rt = 0; rt < RT; rt++)
#pragma unroll
        for (int nt = 0; nt < NT; nt++)
#pragma unroll
            for (int r = 0; r < 4; r++) sk_red[(((warp * RT + rt) * NT + nt) * 4 + r) * 32 + lane] = acc[rt][nt][r];
    __syncthreads();
    const int rows = 16 * RT;
    const int64_t mrows = a.m < NT * 8 ? a.m : NT * 8;
    for (int e = threadIdx.x; e < rows * mrows; e += SK_THREADS) {
        const int nl = e % rows, m = e / rows;
        const int64_t n = row0 + nl;
        if (n >= a.n) continue;
        /* where (channel nl, row m) sits in the MMA accumulators: d0,d1 = (row g, cols 2c, 2c+1),
         * d2,d3 = (row g + 8, ...) */
        const int rt = nl >> 4, r16 = nl & 15, nt = m >> 3, mm = m & 7;
        const int ln = (r16 & 7) * 4 + (mm >> 1), reg = (r16 >> 3) * 2 + (mm & 1);
        float s = 0.f;
#pragma unroll
        for (int wv = 0; wv < SK_WARPS; wv++) s += sk_red[(((wv * RT + rt) * NT + nt) * 4 + reg) * 32 + ln];
        const int64_t yi = (int64_t)m * a.n + n;
        float v = a.alpha * s;
        if (a.has_scale) v *= a.scale[n];
        if (a.has_bias) v += a.bias[n];
        if (a.has_residual) v += a.beta * igemm_load_out(a.residual, yi, a.out_dtype);
        igemm_store_out(a.y, yi, a.out_dtype, igemm_act_dev(a.act, v, a.act_param));
    }
}

/* ------------------------------------------------------------------ family */

static int sk_nt(int64_t m) { return m <= 8 ? 1 : 2; }

static int sk_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                       char *why, size_t why_len)
{
    if (!mem_1x1_supports(p, dev, h, why, why_len)) return 0;
    if (p->gemm_m > SK_MAX_M) {
        if (why && why_len)
            snprintf(why, why_len, "M = %lld output rows: takes M <= %d (few rows: bound by reading the filter)",
                     (long long)p->gemm_m, SK_MAX_M);
        return 0;
    }
    /* Hopper: where the sm90 path's 32-pixel tiles of 64 channels, split in two over a cluster,
     * would fill at least 3/4 of the SMs over 32+ k-blocks, the sm90 planner's plans are faster
     * than this family (decode 1..16 x 4096 x 4096 on an H200: 15.0-15.6 us against 17.0-18.6,
     * fused 15.1-15.7 against 17.3-18.7; wider N on its row tiles: 1 x 14336 x 4096 34.2 against
     * 42.3, 8 x 8192 x 8192 39.0 against 48.4; docs/decisions.md "fewest-rows"): leave those to it */
    if (dev->cc_major == 9 && dev->cc_minor == 0 && (p->c + 63) / 64 >= 32) {
        const int64_t sms = dev->sm_count > 0 ? dev->sm_count : 132, units = 2 * ((p->k + 63) / 64);
        if (4 * units >= 3 * sms) {
            if (why && why_len)
                snprintf(why, why_len,
                         "k = %lld, c = %lld on sm_90: the tensor-core plans take few-row problems whose split "
                         "tiles (%lld units on %lld SMs) fill the SMs",
                         (long long)p->k, (long long)p->c, (long long)units, (long long)sms);
            return 0;
        }
    }
    /* few output channels over a long K: a grid of a few CTAs cannot pull the filter at DRAM
     * speed; the tensor-core path splits K over more CTAs */
    if ((p->k + 15) / 16 < 8 && p->k * p->c * 2 > (1 << 20)) {
        if (why && why_len)
            snprintf(why, why_len, "k = %lld channels over c = %lld: %lld CTAs for %lld filter bytes",
                     (long long)p->k, (long long)p->c, (long long)((p->k + 15) / 16), (long long)(p->k * p->c * 2));
        return 0;
    }
    return 1;
}

static igemm_status_t sk_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                   const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    (void)h;
    sk_cfg_t *c = igemm_family_priv(cfg, sk_cfg_t);
    c->nt = sk_nt(p->gemm_m);
    /* two 16-row groups per CTA (x re-read half as often) when that still fills the SMs */
    c->rt = (p->k + 31) / 32 >= dev->sm_count ? 2 : 1;
    c->grid = (p->k + 16 * c->rt - 1) / (16 * c->rt);
    c->pdl = dev->cc_major >= 9 && dev->driver_version >= 12030;
    cfg->workspace_bytes = 0;
    const double wbytes = (double)p->k * p->c * 2, xbytes = (double)p->gemm_m * p->c * 2 * c->grid;
    snprintf(cfg->desc, sizeof cfg->desc,
             "few rows (M = %lld): the filter as the MMA's rows (mma.sync m16n8k16, %d filter rows x %d x rows per "
             "CTA), every filter element read once by a 16-byte load (%.2f MB), x re-read per CTA (%.2f MB, "
             "L2), %d warps splitting K, partial sums added in warp order, fused epilogue; grid %lld%s",
             (long long)p->gemm_m, 16 * c->rt, 8 * c->nt, wbytes / 1e6, xbytes / 1e6, SK_WARPS, (long long)c->grid,
             c->pdl ? ", programmatic dependent launch" : "");
    return IGEMM_STATUS_SUCCESS;
}

template <typename T, int NT, int RT>
static cudaError_t sk_launch(const sk_args_t *a, const sk_cfg_t *c, cudaStream_t st)
{
    cudaLaunchConfig_t lc;
    cudaLaunchAttribute attr;
    const size_t smem = (size_t)SK_WARPS * RT * NT * 4 * 32 * sizeof(float);
    igemm_launch_config_1d(&lc, &attr, (unsigned)c->grid, SK_THREADS, smem, st, c->pdl);
    return cudaLaunchKernelEx(&lc, skinny_kernel<T, NT, RT>, *a);
}

template <typename T>
static cudaError_t sk_dispatch(const sk_args_t *a, const sk_cfg_t *c, cudaStream_t st)
{
    switch (c->nt * 10 + c->rt) {
    case 11: return sk_launch<T, 1, 1>(a, c, st);
    case 12: return sk_launch<T, 1, 2>(a, c, st);
    case 21: return sk_launch<T, 2, 1>(a, c, st);
    case 22: return sk_launch<T, 2, 2>(a, c, st);
    }
    return cudaErrorInvalidValue;
}

static igemm_status_t sk_run(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                             void *state, void *stream, const igemm_inner_t *inner)
{
    (void)workspace;
    (void)state;
    (void)inner;
    const sk_cfg_t *c = igemm_family_priv((igemm_family_config_t *)cfg, sk_cfg_t);
    sk_args_t a;
    memset(&a, 0, sizeof a);
    MEM_ARGS_SET_OPERANDS(a, p);
    a.m = p->gemm_m;
    a.n = p->k;
    a.k = p->c;
    a.h = p->h;
    a.w_in = p->w;
    a.pq = p->p * p->q;
    a.q = p->q;
    a.stride_h = p->stride_h;
    a.stride_w = p->stride_w;
    a.pad_top = p->pad_top;
    a.pad_left = p->pad_left;
    const cudaError_t e = p->in_dtype == IGEMM_DTYPE_BF16 ? sk_dispatch<__nv_bfloat16>(&a, c, (cudaStream_t)stream)
                                                         : sk_dispatch<__half>(&a, c, (cudaStream_t)stream);
    if (e != cudaSuccess)
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "skinny GEMM launch (M = %lld, N = %lld, K = %lld): %s",
                               (long long)a.m, (long long)a.n, (long long)a.k, cudaGetErrorString(e));
    return IGEMM_STATUS_SUCCESS;
}

extern "C" const igemm_family_t igemm_family_skinny = {
    "mem_skinny_mma", IGEMM_PATH_MEMORY, 1, sk_supports, sk_configure, NULL, sk_run,
};
