/*
 * family_fold.cu — the sm90 path for convolutions with few input channels (the first layer of
 * an image network: c = 3), which the TMA im2col path cannot take (a pixel row of c*2 bytes must
 * be a multiple of 16). Exports igemm_family_sm90_fold (path IGEMM_PATH_SM90). Layers of c <= 4
 * with stride 2 along W go to the stem-rows family first (family_stem.cu: no folded copy; ResNet-50
 * conv1 3x faster than the fold below); the layers it does not take come here.
 *
 * ALGORITHM: fold filter taps into channels, then the sm90 conv kernels on the folded problem (family_conv.cu).
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
 *   was fitted to ResNet-50 conv1 (7x7, c = 3, stride 2, n = 32) on an H100 (docs/decisions.md "fold", S7-5,
 *   ncu, fold pre-pass + conv): F = 1 (C' = 24, R' = 7, x' 39 MB) 27 + 107 us, F = 2 (C' = 48,
 *   R' = 4, x' 79 MB) 50 + 48 us, F = 3 (C' = 64, R' = 3, x' 105 MB) 64 + 54 us; it picks
 *   F = 2 there (end to end 105 us against 131 for F = 3, the fold of sessions 1-6).
 * WHOLE WINDOW (patch embeddings): where windows do not overlap along H (stride_h >= the filter's
 *   extent, stride_h > 1: ViT's 16x16/16, ConvNeXt's 4x4/4 stem), or where rows cannot be folded
 *   (S*C > 64, or the folded conv's stride_h over TMA's 8), F = R and the vertical stride is
 *   folded too: x'[n, p, q, (r*S + s)*C + c] = x[n, p*stride_h + r*dil_h - pad_top, q*stride_w +
 *   s*dil_w - pad_left, c], C' = roundup(R*S*C, 8) <= 1024 channels: x' is the im2col matrix (no
 *   larger than the rows it reads, as the windows do not overlap) and the folded conv a 1x1 of
 *   stride 1, i.e. a GEMM of K = C' on the conv kernels (docs/decisions.md "patch-fold").
 * LAYOUTS: x NHWC, w KRSC, x' NHWC with C' channels, w' K x R' x 1 x C', y NHWC.
 * KERNELS: igemm_fold_x_kernel writes x' with one thread per 16-byte (8-channel) chunk (coalesced
 *   16 B stores, 2-byte gathers from x, which is small and L2-resident), and its last blocks w'
 *   (one thread per element): one launch, which lets the conv kernel after it start its set-up
 *   early (griddepcontrol.launch_dependents). Both copy raw 16-bit values (dtype-agnostic).
 * WORKSPACE: [sm90 split-K partials][x'][w'], allocated at plan creation.
 *
 * PLAN: heuristics_stem.c (F, the workspace, the folded problem). The planner plans the folded
 *   problem with the conv kernels and hands run() a callback (igemm_inner_t) that runs it: this
 *   family never calls another.
 * (A gathered-A variant of this path for c <= 4, which built A from a 4-channel copy of x in the
 *   producer warps, ran 113 against 96 us on ResNet-50 conv1 and was deleted: docs/decisions.md
 *   "gathered-a".)
 */
#include <cuda_runtime.h>
#include <limits.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../ptx/griddepcontrol.cuh"
#include "sm90.h"

static size_t align256(size_t v) { return (v + 255) & ~(size_t)255; }

/* ------------------------------------------------------------------ device code */

/* w'[k, r', 0, f], one thread per element, over `nblocks` blocks of which this is `block`. */
static __device__ __forceinline__ void fold_w_part(const uint16_t *__restrict__ w, uint16_t *__restrict__ wf,
                                                   const igemm_conv_params_t &p, int64_t f_rows, int64_t rp,
                                                   int64_t used, int64_t cf, int64_t block, int64_t nblocks)
{
    const int64_t total = p.k * rp * cf;
    const int64_t sc = p.s * p.c;
    for (int64_t t = block * blockDim.x + threadIdx.x; t < total; t += nblocks * blockDim.x) {
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

/* x' chunk t (8 channels) of pixel (n, i, q): see the header comment. Per folded channel f a
 * shared-memory table holds its row offset dr*dil_h, column offset s*dil_w and its element
 * offset relative to the tap-(0,0) input pixel; per element the kernel does two unsigned bounds
 * tests and one add (v1 computed 64-bit addresses per element and was ALU-bound: 107 us for
 * ResNet-50 conv1 on an H200). The pixel index is split once per chunk, in 32-bit arithmetic
 * when it fits. Requires h*w*c < 2^31 (checked by fold_supports). */
__global__ void __launch_bounds__(256) igemm_fold_x_kernel(const uint16_t *__restrict__ x, uint16_t *__restrict__ xf,
                                                           igemm_conv_params_t p, int64_t hp, int64_t used, int nch,
                                                           int row_step, const uint16_t *__restrict__ w,
                                                           uint16_t *__restrict__ wf, int64_t f_rows, int64_t rp,
                                                           int xblocks)
{
    /* the conv kernel after this one (launched with programmatic dependent launch) may start its
     * set-up now: it waits (griddepcontrol.wait) for this grid to complete before any load */
    ptx_griddepcontrol_launch_dependents();
    /* blocks xblocks.. fold the filter (one launch for both: a launch less per call) */
    if ((int)blockIdx.x >= xblocks) {
        fold_w_part(w, wf, p, f_rows, rp, used, 8 * (int64_t)nch, (int64_t)blockIdx.x - xblocks,
                    (int64_t)gridDim.x - xblocks);
        return;
    }
    /* nch = C' / 8 chunks per x' pixel; row_step: input rows per x' row (1, or the vertical
     * stride when the whole window is folded: x' row i is output row i) */
    /* {row offset, column offset, element offset, unused} of folded channel f, stored at
     * (f % 8) * nch + f / 8: the lanes of a pixel (chunks ch = f / 8) read consecutive int4s
     * (f = ch*8 + j at a time), conflict-free; stored at f it was an 8-way bank conflict. */
    __shared__ int4 tab[FOLD_WHOLE_C];
    for (int f = threadIdx.x; f < 8 * nch; f += blockDim.x) {
        const int sc = (int)(p.s * p.c);
        const int dr = f / sc, rem = f - dr * sc;
        const int s = rem / (int)p.c, c = rem - s * (int)p.c;
        const int ro = dr * (int)p.dil_h, co = s * (int)p.dil_w;
        /* channels past F*S*C get a row offset that fails every bounds test (they read zero) */
        tab[(f & 7) * nch + (f >> 3)] = make_int4(f < used ? ro : INT32_MIN / 2, co, (ro * (int)p.w + co) * (int)p.c + c, 0);
    }
    __syncthreads();
    const int64_t chunks = p.n * hp * p.q * nch;
    const bool small = chunks < ((int64_t)1 << 31);
    const int H = (int)p.h, W = (int)p.w;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < chunks; t += (int64_t)xblocks * blockDim.x) {
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
        const int row0 = i * row_step - (int)p.pad_top;           /* input row of tap (0, 0) */
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
                const int4 tb = tab[(j + e) * nch + ch];
                const bool ok = (unsigned)(row0 + tb.x) < (unsigned)H && (unsigned)(col0 + tb.y) < (unsigned)W;
                const uint32_t val = ok ? (uint32_t)xn[base + tb.z] : 0u;
                two |= val << (16 * e);
            }
            packed[j / 2] = two;
        }
        *(uint4 *)(xf + t * 8) = make_uint4(packed[0], packed[1], packed[2], packed[3]);
    }
}

/* ------------------------------------------------------------------ host code */

static int fold_grid(int64_t work, int sm_hint)
{
    int64_t blocks = (work + 255) / 256;
    const int64_t cap = (int64_t)sm_hint * 16;
    if (blocks > cap) blocks = cap;
    return blocks < 1 ? 1 : (int)blocks;
}

/* x' and w' into the workspace, then the planner's plan of the folded problem on them. */
static igemm_status_t fold_run(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                               void *state, void *stream, const igemm_inner_t *inner)
{
    (void)state;
    fold_geom_t g;
    igemm_sm90_fold_geometry_plan(p, igemm_family_priv(cfg, const fold_plan_t), &g);
    const size_t x_bytes = align256((size_t)g.x_elems * 2), fold_bytes = x_bytes + align256((size_t)g.w_elems * 2);
    if (workspace == NULL || cfg->workspace_bytes < fold_bytes || inner == NULL)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 fold run: workspace of %zu B or the inner plan missing",
                               fold_bytes);
    uint16_t *xf = (uint16_t *)workspace;
    uint16_t *wf = (uint16_t *)((uint8_t *)workspace + x_bytes);
    cudaStream_t s = (cudaStream_t)stream;
    const int xblocks = fold_grid(g.x_elems / 8, 132), wblocks = fold_grid(g.w_elems, 132);
    igemm_fold_x_kernel<<<xblocks + wblocks, 256, 0, s>>>((const uint16_t *)p->x, xf, *p, g.hp, g.used, (int)(g.cf / 8),
                                                          g.whole ? (int)p->stride_h : 1, (const uint16_t *)p->filter,
                                                          wf, g.f, g.rp, xblocks);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "sm90 fold kernel launch failed: %s (%s)", cudaGetErrorString(e),
                               cudaGetErrorName(e));
    return inner->run(inner, xf, wf, stream);
}

extern "C" const igemm_family_t igemm_family_sm90_fold = {
    "sm90_fold_tma_wgmma", IGEMM_PATH_SM90, 1, igemm_sm90_fold_supports, igemm_sm90_fold_configure,
    igemm_sm90_fold_rewrite, fold_run,
};
