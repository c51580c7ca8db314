/*
 * conv2d_fold.cu — the sm90 path for convolutions with few input channels (the first layer of
 * an image network: c = 3), which the TMA im2col path cannot take (a pixel row of c*2 bytes must
 * be a multiple of 16). Exports igemm_family_sm90_fold (path IGEMM_PATH_SM90). Layers of c <= 4
 * with stride 2 along W go to the stem-rows family first (conv2d_stem.cu: no folded copy; ResNet-50
 * conv1 3x faster than the fold below); the layers it does not take come here.
 *
 * ALGORITHM: fold filter taps into channels, then run the sm90 kernel (conv2d_fprop.cu).
 *   F filter rows (1 <= F <= floor(64 / (S*C))) and all S filter columns are folded into one
 *   pixel of C' = roundup(F*S*C, 8) <= 64 channels of a workspace tensor x' (channels >= F*S*C
 *   are zero):
 *       x'[n, i, q, (dr*S + s)*C + c] = x[n, i + dr*dil_h - pad_top, q*stride_w + s*dil_w - pad_left, c]
 *   (zero outside the input), for i = 0 .. H'-1, q = 0 .. Q-1, with
 *       R' = ceil(R / F),   H' = (P-1)*stride_h + (R'-1)*F*dil_h + 1.
 *   The filter is folded the same way: w'[k, r', 0, (dr*S + s)*C + c] = w[k, r'*F + dr, s, c]
 *   (zero for r'*F + dr >= R). Then y = conv(x', w') with an R' x 1 filter, stride (stride_h, 1),
 *   dilation (F*dil_h, 1), no padding, C' channels:
 *       y[n,p,q,k] = sum_{r',dr,s,c} w[k, r'F+dr, s, c] * x[n, p*sh + (r'F+dr)*dil_h - pt, q*sw + s*dw - pl, c]
 *   which is the original convolution (r = r'F + dr), with the same P and Q. The epilogue is
 *   the sm90 kernel's, unchanged.
 *   Choice of F (fold_geometry): more folded rows mean fewer k-blocks (R') but a larger x' (its
 *   pixels repeat each input element F*S times). The pre-pass is instruction-bound (1.26 us
 *   per million x' elements) and the conv reads x'; each k-block is a full 64-channel wgmma step
 *   whatever C' is (TMA zero-fills channels >= C'). The model
 *       t(F) = 1.26e-6 us * x' elements + max((x' + y bytes) / 3e6 B/us, M*N*R'*64*2 / 2.7e8 flop/us)
 *   was fitted to ResNet-50 conv1 (7x7, c = 3, stride 2, n = 32) on an H100 (docs/perf.md S7-5,
 *   ncu, fold pre-pass + conv): F = 1 (C' = 24, R' = 7, x' 39 MB) 27 + 107 us, F = 2 (C' = 48,
 *   R' = 4, x' 79 MB) 50 + 48 us, F = 3 (C' = 64, R' = 3, x' 105 MB) 64 + 54 us; it picks
 *   F = 2 there (end to end 105 us against 131 for F = 3, the fold of sessions 1-6).
 * LAYOUTS: x NHWC, w KRSC, x' NHWC with C' channels, w' K x R' x 1 x C', y NHWC.
 * KERNELS: igemm_fold_x_kernel writes x' with one thread per 16-byte (8-channel) chunk (coalesced
 *   16 B stores, 2-byte gathers from x, which is small and L2-resident); igemm_fold_w_kernel
 *   likewise for w'. Both copy raw 16-bit values (dtype-agnostic).
 * WORKSPACE: [sm90 split-K partials][x'][w'], allocated at plan creation.
 *
 * STEM PATH (c <= 4; off by default, IGEMM_SM90_GATHER=1 turns it on; measured slower than the
 *   materialised fold, see gather_ok): no x'.
 *   A pre-pass copies x into x4 [n][h][w][4] (channels >= c zero: 8-byte pixels) and folds the
 *   filter into wg[k][kb][64] with F = min(R, floor(64 / (4*S))) filter rows per k-block,
 *   element 4*(i*S + s) + c = w[k, kb*F + i, s, c] (zero past R, c or F*S taps). The sm90 kernel
 *   then runs its GA instances on the derived problem (C = 64, R = KB = ceil(R/F), S = 1: the
 *   filter map and k-loop) with the original image geometry: the producer warpgroup gathers each
 *   A stage itself, one 8-byte cp.async per filter tap of its row's output pixel (zero-filled
 *   outside the image), instead of TMA im2col (conv2d_fprop_kernel.cuh, sm90_gather_producer).
 *   ResNet-50 conv1: 2 rows x 7 taps = 56 of 64 channels per k-block, 4 k-blocks, x4 13 MB
 *   (the materialised fold wrote and read a 79 MB x'). Needs TMA stores of y (16-bit y,
 *   k % 8 == 0) and the ping-pong 128-row plan; else the materialised fold takes the layer.
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../internal.h"

#define FOLD_C 64 /* the most channels of x' and w' (the sm90 kernel's BK) */

/* Fold geometry derived from the original problem. */
typedef struct fold_geom {
    int64_t f;      /* filter rows folded per x' pixel */
    int64_t cf;     /* C': channels of x' and w', roundup(F*S*C, 8) <= FOLD_C */
    int64_t rp;     /* R' = ceil(R / F) */
    int64_t hp;     /* H' */
    int64_t used;   /* F*S*C channels that carry data */
    int64_t x_elems, w_elems;
} fold_geom_t;

static void fold_geometry_f(const igemm_conv_params_t *p, int64_t f, fold_geom_t *g)
{
    g->f = f;
    g->rp = (p->r + f - 1) / f;
    g->hp = (p->p - 1) * p->stride_h + (g->rp - 1) * f * p->dil_h + 1;
    g->used = f * p->s * p->c;
    g->cf = (g->used + 7) / 8 * 8;
    g->x_elems = p->n * g->hp * p->q * g->cf;
    g->w_elems = p->k * g->rp * g->cf;
}

/* F by the cost model of the header comment (ties to the larger F). Developer knob (tests,
 * tuning): IGEMM_SM90_FOLD_ROWS=n forces F = min(n, the most that fit). */
static void fold_geometry(const igemm_conv_params_t *p, fold_geom_t *g)
{
    int64_t fmax = FOLD_C / (p->s * p->c);
    if (fmax > p->r) fmax = p->r;
    if (fmax < 1) fmax = 1;
    const char *ff_s = getenv("IGEMM_SM90_FOLD_ROWS");
    if (ff_s && atoi(ff_s) >= 1) {
        fold_geometry_f(p, atoi(ff_s) < fmax ? atoi(ff_s) : fmax, g);
        return;
    }
    const double y_bytes = (double)p->gemm_m * (double)p->gemm_n * (p->out_dtype == IGEMM_DTYPE_F32 ? 4.0 : 2.0);
    double best = 0.0;
    for (int64_t f = fmax; f >= 1; f--) {
        fold_geom_t c;
        fold_geometry_f(p, f, &c);
        const double mem = ((double)c.x_elems * 2.0 + y_bytes) / 3.0e6;
        const double mma = (double)p->gemm_m * (double)p->gemm_n * (double)c.rp * 64.0 * 2.0 / 2.7e8;
        const double t = 1.26e-6 * (double)c.x_elems + (mem > mma ? mem : mma);
        if (f == fmax || t < best) {
            best = t;
            *g = c;
        }
    }
}

/* The derived problem the sm90 kernel runs on x' and w'. */
static void fold_params(const igemm_conv_params_t *p, const fold_geom_t *g, igemm_conv_params_t *d)
{
    *d = *p;
    d->h = g->hp;
    d->w = p->q;
    d->c = g->cf;
    d->cg = g->cf;
    d->r = g->rp;
    d->s = 1;
    d->pad_top = d->pad_bottom = d->pad_left = d->pad_right = 0;
    d->stride_w = 1;
    d->dil_h = g->f * p->dil_h;
    d->dil_w = 1;
    d->gemm_k = g->rp * g->cf;
}

static size_t align256(size_t v) { return (v + 255) & ~(size_t)255; }

/* ------------------------------------------------------------------ device code */

/* x' chunk t (8 channels) of pixel (n, i, q): see the header comment. Per folded channel f a
 * shared-memory table holds its row offset dr*dil_h, column offset s*dil_w and its element
 * offset relative to the tap-(0,0) input pixel; per element the kernel does two unsigned bounds
 * tests and one add (v1 computed 64-bit addresses per element and was ALU-bound: 107 us for
 * ResNet-50 conv1 on an H200). The pixel index is split once per chunk, in 32-bit arithmetic
 * when it fits. Requires h*w*c < 2^31 (checked by fold_supports). */
__global__ void __launch_bounds__(256) igemm_fold_x_kernel(const uint16_t *__restrict__ x, uint16_t *__restrict__ xf,
                                                           igemm_conv_params_t p, int64_t hp, int64_t used, int nch)
{
    /* nch = C' / 8 chunks per x' pixel */
    /* {row offset, column offset, element offset, unused} of folded channel f, stored at
     * (f % 8) * 8 + f / 8: the 8 lanes of a pixel (chunks ch = f / 8) read 8 consecutive int4s
     * (f = ch*8 + j at a time), conflict-free; stored at f it was an 8-way bank conflict. */
    __shared__ int4 tab[FOLD_C];
    if (threadIdx.x < FOLD_C) {
        const int f = threadIdx.x;
        const int sc = (int)(p.s * p.c);
        const int dr = f / sc, rem = f - dr * sc;
        const int s = rem / (int)p.c, c = rem - s * (int)p.c;
        const int ro = dr * (int)p.dil_h, co = s * (int)p.dil_w;
        /* channels past F*S*C get a row offset that fails every bounds test (they read zero) */
        tab[(f & 7) * 8 + (f >> 3)] = make_int4(f < used ? ro : INT32_MIN / 2, co, (ro * (int)p.w + co) * (int)p.c + c, 0);
    }
    __syncthreads();
    const int64_t chunks = p.n * hp * p.q * nch;
    const bool small = chunks < ((int64_t)1 << 31);
    const int H = (int)p.h, W = (int)p.w;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < chunks; t += (int64_t)gridDim.x * blockDim.x) {
        int ch, q, i;
        int64_t n, pix;
        if (small) {
            const uint32_t tu = (uint32_t)t;
            pix = tu / (uint32_t)nch;
            ch = (int)(tu - (uint32_t)pix * (uint32_t)nch);
            const uint32_t pu = (uint32_t)pix, qq = (uint32_t)p.q, hh = (uint32_t)hp;
            const uint32_t ni = pu / qq;
            q = (int)(pu - ni * qq);
            n = ni / hh;
            i = (int)(ni - (uint32_t)n * hh);
        } else {
            pix = t / nch;
            ch = (int)(t - pix * nch);
            const int64_t ni = pix / p.q;
            q = (int)(pix - ni * p.q);
            n = ni / hp;
            i = (int)(ni - n * hp);
        }
        const int row0 = i - (int)p.pad_top;                      /* input row of tap (0, 0) */
        const int col0 = q * (int)p.stride_w - (int)p.pad_left;   /* input column of tap (0, 0) */
        /* image n of x, and the 32-bit offset of (row0, col0, 0) inside it (h*w*c < 2^31; may be
         * negative or past the image: only used when the element is in bounds) */
        const uint16_t *const xn = x + n * p.h * p.w * p.c;
        const int base = (row0 * W + col0) * (int)p.c;
        uint32_t packed[4];
#pragma unroll
        for (int j = 0; j < 8; j += 2) {
            uint32_t two = 0;
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int4 tb = tab[(j + e) * 8 + ch];
                const bool ok = (unsigned)(row0 + tb.x) < (unsigned)H && (unsigned)(col0 + tb.y) < (unsigned)W;
                const uint32_t val = ok ? (uint32_t)xn[base + tb.z] : 0u;
                two |= val << (16 * e);
            }
            packed[j / 2] = two;
        }
        *(uint4 *)(xf + t * 8) = make_uint4(packed[0], packed[1], packed[2], packed[3]);
    }
}

/* w'[k, r', 0, f] (one thread per element). */
__global__ void __launch_bounds__(256) igemm_fold_w_kernel(const uint16_t *__restrict__ w, uint16_t *__restrict__ wf,
                                                           igemm_conv_params_t p, int64_t f_rows, int64_t rp, int64_t used,
                                                           int64_t cf)
{
    const int64_t total = p.k * rp * cf;
    const int64_t sc = p.s * p.c;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t f = t % cf;
        const int64_t kr = t / cf;
        const int64_t r2 = kr % rp;
        const int64_t k = kr / rp;
        uint16_t val = 0;
        if (f < used) {
            const int64_t dr = f / sc, rem = f - dr * sc;
            const int64_t s = rem / p.c, c = rem - s * p.c;
            const int64_t r = r2 * f_rows + dr;
            if (r < p.r) val = w[((k * p.r + r) * p.s + s) * p.c + c];
        }
        wf[t] = val;
    }
}

/* The stem path's operands (gathered A, see the header comment): x4[pixel][0..3] = x[pixel][c]
 * for c < C, zero above (one thread per pixel, one 8-byte store). */
__global__ void __launch_bounds__(256) igemm_pad_x4_kernel(const uint16_t *__restrict__ x, uint2 *__restrict__ x4,
                                                           int64_t pixels, int c)
{
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < pixels; t += (int64_t)gridDim.x * blockDim.x) {
        const uint16_t *const px = x + t * c;
        uint32_t v[4];
#pragma unroll
        for (int j = 0; j < 4; j++) v[j] = j < c ? (uint32_t)px[j] : 0u;
        x4[t] = make_uint2(v[0] | (v[1] << 16), v[2] | (v[3] << 16));
    }
}

/* wg[k, kb, e] = w[k, kb*F + i, s, c] for e = 4*(i*S + s) + c, c < C, i < F, kb*F + i < R; zero
 * otherwise (one thread per element). */
__global__ void __launch_bounds__(256) igemm_gather_w_kernel(const uint16_t *__restrict__ w, uint16_t *__restrict__ wg,
                                                             igemm_conv_params_t p, int64_t f_rows, int64_t kbs)
{
    const int64_t total = p.k * kbs * FOLD_C;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t e = t % FOLD_C, kr = t / FOLD_C;
        const int64_t kb = kr % kbs, k = kr / kbs;
        const int64_t tap = e / 4, c = e % 4;
        const int64_t i = tap / p.s, sc = tap % p.s;
        const int64_t r = kb * f_rows + i;
        uint16_t val = 0;
        if (i < f_rows && c < p.c && r < p.r) val = w[((k * p.r + r) * p.s + sc) * p.c + c];
        wg[t] = val;
    }
}

/* ------------------------------------------------------------------ host code */

#define FOLD_MAX_WORKSPACE ((int64_t)2 << 30) /* x' is materialised: keep it bounded */

#define FOLD_WHY(...)                                                                                  \
    do {                                                                                               \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                       \
    } while (0)

/* ---- the stem path (gathered A): c <= 4. F = min(R, floor(64 / (4*S))) filter rows per
 * k-block, KB = ceil(R / F) k-blocks; the sm90 kernel runs on the derived problem of C = 64,
 * R = KB, S = 1 (its filter wg, its k-loop) with the original image geometry, and its producer
 * warps gather A from x4 (GA instances, conv2d_fprop_kernel.cuh). Only with IGEMM_SM90_GATHER=1
 * (gather_ok); otherwise the materialised fold takes these layers. */
static int64_t gather_rows(const igemm_conv_params_t *p)
{
    int64_t f = FOLD_C / (4 * p->s);
    return f < p->r ? f : p->r;
}

static int gather_ok(const igemm_conv_params_t *p)
{
    /* off by default: measured slower than the materialised fold on ResNet-50 conv1 (H200, S8-2:
     * 113.2 against 96.2 us plain, 121.7 against 109.8 fused; the conv kernel alone took 99 us,
     * its producer warps' 8-byte cp.async gathers the bottleneck). IGEMM_SM90_GATHER=1 turns it on. */
    const char *g_s = getenv("IGEMM_SM90_GATHER");
    if (!g_s || atoi(g_s) != 1) return 0;
    return p->c <= 4 && p->s <= FOLD_C / 4 && p->groups == 1 && p->out_dtype == p->in_dtype && p->k % 8 == 0 &&
           p->n * p->h * p->w * 4 * 2 <= FOLD_MAX_WORKSPACE && p->h * p->w < ((int64_t)1 << 30) &&
           (p->p - 1) * p->stride_h + (p->r - 1) * p->dil_h < ((int64_t)1 << 30) &&
           (p->q - 1) * p->stride_w + (p->s - 1) * p->dil_w < ((int64_t)1 << 30);
}

/* The derived problem of the gathered-A kernel: the filter wg as C = 64, R = KB, S = 1 (the
 * kernel's B map and k-loop); x, h, w, strides, padding, dilation, p, q as the original (the
 * producer's gather). */
static void gather_params(const igemm_conv_params_t *p, igemm_conv_params_t *d)
{
    const int64_t f = gather_rows(p);
    *d = *p;
    d->c = FOLD_C;
    d->cg = FOLD_C;
    d->r = (p->r + f - 1) / f;
    d->s = 1;
    d->gemm_k = d->r * FOLD_C;
}

/* The shape-only check of the gathered-A problem by the sm90 family (device, dtypes, sizes):
 * as a 1x1 conv of the same M and N, so that the TMA im2col limits, which the gather does not
 * meet, are not applied. */
static int gather_inner_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, char *why,
                                 size_t why_len)
{
    igemm_conv_params_t d;
    gather_params(p, &d);
    d.h = p->p;
    d.w = p->q;
    d.r = 1;
    d.stride_h = d.stride_w = d.dil_h = d.dil_w = 1;
    d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = 0;
    return igemm_family_sm90.supports(&d, dev, why, why_len);
}

static int fold_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, char *why, size_t why_len)
{
    fold_geom_t g;
    igemm_conv_params_t d;
    char inner[192];
    if (p->c % 8 == 0) {
        FOLD_WHY("c = %lld is a multiple of 8: the direct TMA im2col path takes it", (long long)p->c);
        return 0;
    }
    if (p->groups != 1) {
        FOLD_WHY("groups = %lld: the fold path takes groups == 1 only", (long long)p->groups);
        return 0;
    }
    if (gather_ok(p) && gather_inner_supports(p, dev, inner, sizeof inner)) return 1;
    if (p->s * p->c > FOLD_C) {
        FOLD_WHY("s*c = %lld: one filter row must fold into %d channels", (long long)(p->s * p->c), FOLD_C);
        return 0;
    }
    if ((p->h + p->pad_top + p->r * p->dil_h) * (p->w + p->pad_left + p->s * p->dil_w) * p->c >= ((int64_t)1 << 31) ||
        p->r * p->dil_h >= ((int64_t)1 << 20) ||
        p->s * p->dil_w >= ((int64_t)1 << 20) || p->q * p->stride_w >= ((int64_t)1 << 30)) {
        FOLD_WHY("image of %lld elements or filter extent too large for the fold pre-pass's 32-bit offsets",
                 (long long)(p->h * p->w * p->c));
        return 0;
    }
    fold_geometry(p, &g);
    if ((g.x_elems + g.w_elems) * 2 > FOLD_MAX_WORKSPACE) {
        FOLD_WHY("folded input would take %lld MB of workspace (limit %lld MB)",
                 (long long)((g.x_elems + g.w_elems) * 2 >> 20), (long long)(FOLD_MAX_WORKSPACE >> 20));
        return 0;
    }
    fold_params(p, &g, &d);
    inner[0] = '\0';
    if (!igemm_family_sm90.supports(&d, dev, inner, sizeof inner)) {
        FOLD_WHY("folded problem refused by the TMA path: %s", inner);
        return 0;
    }
    return 1;
}

static igemm_status_t fold_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                     igemm_kernel_config_t *cfg)
{
    fold_geom_t g;
    igemm_conv_params_t d;
    char inner_desc[sizeof cfg->desc];
    if (gather_ok(p) && gather_inner_supports(p, dev, inner_desc, sizeof inner_desc)) {
        gather_params(p, &d);
        memset(cfg, 0, sizeof *cfg);
        cfg->a_gather = 1;
        cfg->fold_rows = (int)gather_rows(p);
        cfg->g_r = (int)p->r;
        cfg->g_s = (int)p->s;
        if (igemm_family_sm90.configure(&d, dev, cfg) == IGEMM_STATUS_SUCCESS && cfg->a_gather && cfg->pingpong &&
            cfg->bm == 128 && cfg->split_k <= 1) {
            const size_t x4 = align256((size_t)(p->n * p->h * p->w) * 8), wg = align256((size_t)(p->k * d.r * FOLD_C) * 2);
            cfg->workspace_bytes = align256(cfg->workspace_bytes) + x4 + wg;
            memcpy(inner_desc, cfg->desc, sizeof inner_desc);
            snprintf(cfg->desc, sizeof cfg->desc,
                     "stem: c=%lld padded to 4 channels (x4 %lld MB), %d filter row(s) x %lld taps per k-block "
                     "(K'=%lld), %s",
                     (long long)p->c, (long long)((size_t)(p->n * p->h * p->w) * 8 >> 20), cfg->fold_rows,
                     (long long)p->s, (long long)(d.r * FOLD_C), inner_desc);
            return IGEMM_STATUS_SUCCESS;
        }
        memset(cfg, 0, sizeof *cfg); /* not plannable that way: the materialised fold */
    }
    fold_geometry(p, &g);
    fold_params(p, &g, &d);
    igemm_status_t st = igemm_family_sm90.configure(&d, dev, cfg);
    if (st != IGEMM_STATUS_SUCCESS) return st;
    cfg->fold_rows = (int)g.f; /* run() folds with the plan's F (the model or knob is not read again) */
    const size_t inner_ws = align256(cfg->workspace_bytes);
    cfg->workspace_bytes = inner_ws + align256((size_t)g.x_elems * 2) + align256((size_t)g.w_elems * 2);
    memcpy(inner_desc, cfg->desc, sizeof inner_desc);
    snprintf(cfg->desc, sizeof cfg->desc,
             "fold %lld filter row(s) x %lld taps x c=%lld into %lld channels (x' %lld MB, R'=%lld, K'=%lld), then %s",
             (long long)g.f, (long long)p->s, (long long)p->c, (long long)g.cf, (long long)((size_t)g.x_elems * 2 >> 20),
             (long long)g.rp, (long long)(g.rp * g.cf), inner_desc);
    return IGEMM_STATUS_SUCCESS;
}

static int fold_grid(int64_t work, int sm_hint)
{
    int64_t blocks = (work + 255) / 256;
    const int64_t cap = (int64_t)sm_hint * 16;
    if (blocks > cap) blocks = cap;
    return blocks < 1 ? 1 : (int)blocks;
}

/* After the pre-passes (their launch status e): the sm90 kernel on the derived problem d with
 * operands x, w, the inner part of the workspace being its first inner_ws bytes. */
static igemm_status_t run_derived(cudaError_t e, const char *what, igemm_conv_params_t *d, const void *x,
                                  const void *w, const igemm_kernel_config_t *cfg, size_t inner_ws, void *workspace,
                                  void *state, void *stream)
{
    if (e != cudaSuccess)
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "sm90 %s kernel launch failed: %s (%s)", what,
                               cudaGetErrorString(e), cudaGetErrorName(e));
    d->x = x;
    d->filter = w;
    igemm_kernel_config_t inner = *cfg;
    inner.workspace_bytes = inner_ws;
    return igemm_family_sm90.run(d, &inner, inner_ws ? workspace : NULL, state, stream);
}

/* The stem path's run: x4 and wg into the workspace (after the inner part), then the
 * gathered-A kernel on the derived problem. */
static igemm_status_t gather_run(const igemm_conv_params_t *p, const igemm_kernel_config_t *cfg, void *workspace,
                                 void *state, void *stream)
{
    igemm_conv_params_t d;
    gather_params(p, &d);
    const int64_t pixels = p->n * p->h * p->w;
    const size_t x4_bytes = align256((size_t)pixels * 8), wg_bytes = align256((size_t)(p->k * d.r * FOLD_C) * 2);
    if (workspace == NULL || cfg->workspace_bytes < x4_bytes + wg_bytes)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 stem run: workspace of %zu B missing",
                               x4_bytes + wg_bytes);
    const size_t inner_ws = cfg->workspace_bytes - x4_bytes - wg_bytes;
    uint8_t *base = (uint8_t *)workspace;
    uint2 *x4 = (uint2 *)(base + inner_ws);
    uint16_t *wg = (uint16_t *)(base + inner_ws + x4_bytes);
    cudaStream_t s = (cudaStream_t)stream;
    igemm_pad_x4_kernel<<<fold_grid(pixels, 132), 256, 0, s>>>((const uint16_t *)p->x, x4, pixels, (int)p->c);
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) {
        igemm_gather_w_kernel<<<fold_grid(p->k * d.r * FOLD_C, 132), 256, 0, s>>>((const uint16_t *)p->filter, wg, *p,
                                                                                  (int64_t)cfg->fold_rows, d.r);
        e = cudaGetLastError();
    }
    return run_derived(e, "stem", &d, x4, wg, cfg, inner_ws, workspace, state, stream);
}

static igemm_status_t fold_run(const igemm_conv_params_t *p, const igemm_kernel_config_t *cfg, void *workspace,
                               void *state, void *stream)
{
    fold_geom_t g;
    igemm_conv_params_t d;
    if (cfg->a_gather) return gather_run(p, cfg, workspace, state, stream);
    fold_geometry_f(p, cfg->fold_rows >= 1 ? cfg->fold_rows : 1, &g);
    fold_params(p, &g, &d);
    const size_t fold_bytes = align256((size_t)g.x_elems * 2) + align256((size_t)g.w_elems * 2);
    if (workspace == NULL || cfg->workspace_bytes < fold_bytes)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 fold run: workspace of %zu B missing", fold_bytes);
    const size_t inner_ws = cfg->workspace_bytes - fold_bytes;
    uint8_t *base = (uint8_t *)workspace;
    uint16_t *xf = (uint16_t *)(base + inner_ws);
    uint16_t *wf = (uint16_t *)(base + inner_ws + align256((size_t)g.x_elems * 2));
    cudaStream_t s = (cudaStream_t)stream;

    igemm_fold_x_kernel<<<fold_grid(g.x_elems / 8, 132), 256, 0, s>>>((const uint16_t *)p->x, xf, *p, g.hp, g.used,
                                                                      (int)(g.cf / 8));
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess) {
        igemm_fold_w_kernel<<<fold_grid(g.w_elems, 132), 256, 0, s>>>((const uint16_t *)p->filter, wf, *p, g.f, g.rp,
                                                                      g.used, g.cf);
        e = cudaGetLastError();
    }
    return run_derived(e, "fold", &d, xf, wf, cfg, inner_ws, workspace, state, stream);
}

extern "C" const igemm_family_t igemm_family_sm90_fold = {
    "sm90_fold_tma_wgmma", IGEMM_PATH_SM90, fold_supports, fold_configure, fold_run,
};
