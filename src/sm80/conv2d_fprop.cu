/*
 * conv2d_fprop.cu — the general path (IGEMM_PATH_GENERAL): implicit-GEMM conv2d forward on
 * tensor cores with mma.sync, sm_80 and newer. Correct for every valid shape: any n/h/w, any
 * c and k (odd, 1, 3, ...), any r/s, stride, asymmetric padding, dilation and groups
 * (depthwise included).
 *
 * GEMM per group g (see internal.h): M = n*p*q, N = kg, K = r*s*cg, k index = (r*S + s)*cg + ci.
 *   A[m, k] = x[nn, oh*stride_h - pad_top + r*dil_h, ow*stride_w - pad_left + s*dil_w, g*cg + ci]
 *             (zero outside [0,h) x [0,w)), B[kk, k] = w[g*kg + kk, r, s, ci] (a contiguous row).
 * Layouts: x NHWC, w KRSC (C = cg), y / residual NHWC (N x P x Q x K). f16 or bf16 in, fp32
 * accumulate, y in f16 / bf16 / f32 through the shared epilogue (common/epilogue.cuh).
 *
 * Grid: x over M tiles (64-bit m), y over N tiles, z over groups; each CTA loops over further
 * tiles when a count exceeds its grid limit. One CTA computes one BM x BN output tile over the
 * whole K (no split-K, no atomics: deterministic).
 *
 * CTA tiles (BK = 32; warp tile = BM/WARPS_M x BN/WARPS_N, made of m16n8k16 MMAs):
 *   128x128 (2x4 warps, 64x32 each)  128x64 (2x2, 64x32)  128x32 (4x1, 32x32)
 *   128x16  (4x1, 32x16)             128x8  (4x1, 32x8)   — small BN for small kg (depthwise).
 * Variants (sm80_plan_t: tile, vec):
 *   vec = 1: cg % 8 == 0 and x, w 16-byte aligned. Each 16-byte chunk of 8 channels lies in one
 *            filter tap; A and B chunks go global -> smem with cp.async.cg (src-size 0 zero-fill
 *            for padding / out-of-range rows / the K tail), 4-stage pipeline.
 *   vec = 0: any cg / alignment. Each thread gathers its elements one by one (ordinary 16-bit
 *            loads; the (r, s, ci) decode of k is advanced incrementally), keeps the next k-tile
 *            in registers while the tensor cores work on the current one, then stores it to smem
 *            (2 smem stages).
 *   configure() picks vec when cg % 8 == 0; run() drops to vec = 0 if x or w is not 16-byte
 *   aligned (both variants of every tile are compiled).
 * Shared memory: per stage an A tile [BM][32] and a B tile [BN][32] of 16-bit elements, rows of
 * 64 bytes with the 16-byte chunks XOR-swizzled (chunk ^ ((row >> 1) & 3)) so that cp.async
 * stores and ldmatrix reads are bank-conflict free.
 * PTX: cp.async.cg.shared.global (+ commit_group / wait_group), ldmatrix.sync.aligned.m8n8
 * .x4/.x2.shared.b16, mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16} (wrappers in src/ptx/).
 * Epilogue: straight from the accumulator registers; each value goes through igemm_epilogue_value
 * and is stored (pairs of adjacent channels as one 4- or 8-byte store when aligned).
 * 32-bit limits (checked by supports()): h + pad_top + pad_bottom + dil_h*r < 2^31 (w likewise),
 * r*s*cg and kg below 2^31 - 256; everything indexing memory is 64-bit.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/epilogue.cuh"
#include "../internal.h"
#include "../ptx/cp_async.cuh"
#include "../ptx/ldmatrix.cuh"
#include "../ptx/mma_sync.cuh"

#define SM80_BK 32
#define SM80_VEC_STAGES 4
#define SM80_SCALAR_STAGES 2
#define SM80_LIMIT32 ((int64_t)INT32_MAX - 256)

/* The tile shapes (index = sm80_plan_t.tile). */
typedef struct sm80_tile {
    int bm, bn, warps_m, warps_n;
} sm80_tile_t;

static const sm80_tile_t sm80_tiles[] = {
    {128, 128, 2, 4}, {128, 64, 2, 2}, {128, 32, 4, 1}, {128, 16, 4, 1}, {128, 8, 4, 1},
};
#define SM80_NUM_TILES ((int)(sizeof sm80_tiles / sizeof sm80_tiles[0]))

/* Geometry in the widths the kernel uses (32-bit where supports() guarantees it fits). */
typedef struct sm80_geom {
    int64_t c;       /* input channels (x pixel stride, elements) */
    int64_t hwc;     /* h * w * c (x image stride) */
    int h, w;        /* input height, width */
    int cg, s;       /* channels per group, filter width */
    int dil_h, dil_w;/* 0 when the filter dimension is 1 */
    int gemm_k;      /* r * s * cg */
} sm80_geom_t;

/* Element offset of (row, col) in a [rows][32] smem tile with swizzled 16-byte chunks. */
static __device__ __forceinline__ int sm80_swz(int row, int col)
{
    return row * SM80_BK + ((((col >> 3) ^ (row >> 1)) & 3) << 3) + (col & 7);
}

/* ---- vectorized loaders: 16-byte cp.async chunks of 8 channels ---------------------------- */

/* A tile (BM x 32) of k-tile kt into smem at sA. Thread owns chunk column cc and rows
 * row0 + i * (THREADS / 4). Per row: x offset of the image plus the group's first channel
 * (base), and the top-left input coordinate (ih0, iw0; INT_MIN for rows past M). */
template <int BM, int THREADS>
static __device__ __forceinline__ void sm80_vec_load_a(uint32_t sA, const uint16_t *x, const sm80_geom_t *geo,
                                                       const int64_t *base, const int *ih0, const int *iw0,
                                                       int row0, int cc, int kt)
{
    constexpr int ITERS = BM * (SM80_BK / 8) / THREADS;
    constexpr int ROW_STEP = THREADS / (SM80_BK / 8);
    const int k = kt * SM80_BK + cc * 8;
    const bool kok = k < geo->gemm_k;
    const int kc = kok ? k : 0;
    const int rs = kc / geo->cg;
    const int ci = kc - rs * geo->cg;
    const int r = rs / geo->s;
    const int s = rs - r * geo->s;
    const unsigned dh = (unsigned)(r * geo->dil_h), dw = (unsigned)(s * geo->dil_w);
#pragma unroll
    for (int i = 0; i < ITERS; ++i) {
        const int row = row0 + i * ROW_STEP;
        /* unsigned: a negative coordinate (padding, or INT_MIN for rows past M) compares >= h */
        const unsigned ih = (unsigned)ih0[i] + dh, iw = (unsigned)iw0[i] + dw;
        const bool ok = kok && ih < (unsigned)geo->h && iw < (unsigned)geo->w;
        const uint16_t *src = ok ? x + base[i] + ((int64_t)ih * geo->w + (int64_t)iw) * geo->c + ci : x;
        cp_async_cg_shared_global_16(sA + 2u * (uint32_t)sm80_swz(row, cc * 8), src, ok ? 16u : 0u);
    }
}

/* B tile (BN x 32) of k-tile kt into smem at sB. Chunk j of this thread is idx = tid + j*THREADS
 * (row idx / 4, column idx % 4); wrow[j] = w offset of its filter row, -1 when out of range. */
template <int BN, int THREADS>
static __device__ __forceinline__ void sm80_vec_load_b(uint32_t sB, const uint16_t *w, const sm80_geom_t *geo,
                                                       const int64_t *wrow, int tid, int kt)
{
    constexpr int CHUNKS = BN * (SM80_BK / 8);
    constexpr int ITERS = (CHUNKS + THREADS - 1) / THREADS;
#pragma unroll
    for (int j = 0; j < ITERS; ++j) {
        const int idx = tid + j * THREADS;
        if (CHUNKS % THREADS == 0 || idx < CHUNKS) {
            const int row = idx >> 2, cc = idx & 3;
            const int k = kt * SM80_BK + cc * 8;
            const bool ok = wrow[j] >= 0 && k < geo->gemm_k;
            const uint16_t *src = ok ? w + wrow[j] + k : w;
            cp_async_cg_shared_global_16(sB + 2u * (uint32_t)sm80_swz(row, cc * 8), src, ok ? 16u : 0u);
        }
    }
}

/* ---- scalar loaders: element gathers into registers (any cg, any alignment) ---------------- */

/* COLS consecutive k of one A row (k-tile kt, first column kpart) into regs (2 per uint32). */
template <int COLS>
static __device__ __forceinline__ void sm80_scalar_load_a(uint32_t *regs, const uint16_t *x, const sm80_geom_t *geo,
                                                          int64_t base, int ih0, int iw0, int kpart, int kt)
{
    const int k0 = kt * SM80_BK + kpart;
    const int kc = k0 < geo->gemm_k ? k0 : 0;
    const int rs = kc / geo->cg;
    int ci = kc - rs * geo->cg;
    const int r = rs / geo->s;
    int s = rs - r * geo->s;
    /* unsigned (wrapping) tap offsets: past the end of K they may grow without bound, but
     * those elements are masked by the k check */
    unsigned dh = (unsigned)(r * geo->dil_h), dw = (unsigned)(s * geo->dil_w);
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
        const unsigned ih = (unsigned)ih0 + dh, iw = (unsigned)iw0 + dw;
        const bool ok = k0 + j < geo->gemm_k && ih < (unsigned)geo->h && iw < (unsigned)geo->w;
        uint32_t v = 0;
        if (ok) v = __ldg(x + base + ((int64_t)ih * geo->w + (int64_t)iw) * geo->c + ci);
        if (j & 1) regs[j >> 1] |= v << 16;
        else regs[j >> 1] = v;
        /* advance k by one: ci, then s, then r */
        if (++ci == geo->cg) {
            ci = 0;
            dw += (unsigned)geo->dil_w;
            if (++s == geo->s) {
                s = 0;
                dw = 0;
                dh += (unsigned)geo->dil_h;
            }
        }
    }
}

/* COLS consecutive k of one B row (wrow = w offset of the row, -1 when out of range). */
template <int COLS>
static __device__ __forceinline__ void sm80_scalar_load_b(uint32_t *regs, const uint16_t *w, const sm80_geom_t *geo,
                                                          int64_t wrow, int kpart, int kt)
{
    const int k0 = kt * SM80_BK + kpart;
#pragma unroll
    for (int j = 0; j < COLS; ++j) {
        uint32_t v = 0;
        if (wrow >= 0 && k0 + j < geo->gemm_k) v = __ldg(w + wrow + k0 + j);
        if (j & 1) regs[j >> 1] |= v << 16;
        else regs[j >> 1] = v;
    }
}

/* Stores COLS (even) elements held in regs at (row, col0..col0+COLS-1) of a swizzled tile.
 * col0 is a multiple of COLS, so a piece never straddles a 16-byte chunk unless COLS >= 8. */
template <int COLS>
static __device__ __forceinline__ void sm80_scalar_store(uint16_t *tile, const uint32_t *regs, int row, int col0)
{
    if (COLS >= 8) {
#pragma unroll
        for (int c = 0; c < COLS / 8; ++c)
            *(uint4 *)(tile + sm80_swz(row, col0 + 8 * c)) =
                make_uint4(regs[4 * c], regs[4 * c + 1], regs[4 * c + 2], regs[4 * c + 3]);
    } else if (COLS == 4) {
        *(uint2 *)(tile + sm80_swz(row, col0)) = make_uint2(regs[0], regs[1]);
    } else {
        *(uint32_t *)(tile + sm80_swz(row, col0)) = regs[0];
    }
}

/* ---- warp MMA over one smem stage ---------------------------------------------------------- */

template <bool BF16, int MI, int NI>
static __device__ __forceinline__ void sm80_warp_mma(float (*acc)[NI][4], uint32_t sA, uint32_t sB, int wrow0,
                                                     int wcol0, int lane)
{
#pragma unroll
    for (int ks = 0; ks < SM80_BK / 16; ++ks) {
        uint32_t af[MI][4];
        uint32_t bf[NI][2];
#pragma unroll
        for (int mi = 0; mi < MI; ++mi) {
            /* matrices: rows 0-7|8-15 x k 0-7, then rows 0-7|8-15 x k 8-15 -> a0..a3 */
            const int row = wrow0 + mi * 16 + (lane & 15);
            const int col = ks * 16 + ((lane >> 4) << 3);
            ldmatrix_sync_aligned_m8n8_x4_b16(af[mi], sA + 2u * (uint32_t)sm80_swz(row, col));
        }
        if (NI >= 2) {
#pragma unroll
            for (int nj = 0; nj < NI / 2; ++nj) {
                /* matrices: n 0-7 x k 0-7, n 0-7 x k 8-15, n 8-15 x k 0-7, n 8-15 x k 8-15 */
                const int row = wcol0 + nj * 16 + (lane & 7) + ((lane >> 4) << 3);
                const int col = ks * 16 + (((lane >> 3) & 1) << 3);
                uint32_t t[4];
                ldmatrix_sync_aligned_m8n8_x4_b16(t, sB + 2u * (uint32_t)sm80_swz(row, col));
                bf[2 * nj][0] = t[0];
                bf[2 * nj][1] = t[1];
                bf[2 * nj + 1][0] = t[2];
                bf[2 * nj + 1][1] = t[3];
            }
        } else {
            const int row = wcol0 + (lane & 7);
            const int col = ks * 16 + (((lane >> 3) & 1) << 3);
            ldmatrix_sync_aligned_m8n8_x2_b16(bf[0], sB + 2u * (uint32_t)sm80_swz(row, col));
        }
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
            for (int ni = 0; ni < NI; ++ni) {
                if (BF16) mma_sync_m16n8k16_row_col_f32_bf16(acc[mi][ni], af[mi], bf[ni]);
                else mma_sync_m16n8k16_row_col_f32_f16(acc[mi][ni], af[mi], bf[ni]);
            }
    }
}

/* ---- epilogue ------------------------------------------------------------------------------- */

/* Two adjacent output channels (kout, kout + 1) of row m: one 4/8-byte store when aligned. */
static __device__ __forceinline__ void sm80_store_pair(const igemm_conv_params_t *p, int64_t yidx, float v0, float v1,
                                                       bool y_aligned)
{
    if (y_aligned && (yidx & 1) == 0) {
        if (p->out_dtype == IGEMM_DTYPE_F32) {
            *(float2 *)((float *)p->y + yidx) = make_float2(v0, v1);
        } else if (p->out_dtype == IGEMM_DTYPE_F16) {
            *(__half2 *)((__half *)p->y + yidx) = __floats2half2_rn(v0, v1);
        } else {
            *(__nv_bfloat162 *)((__nv_bfloat16 *)p->y + yidx) = __floats2bfloat162_rn(v0, v1);
        }
    } else {
        igemm_store_out(p->y, yidx, p->out_dtype, v0);
        igemm_store_out(p->y, yidx + 1, p->out_dtype, v1);
    }
}

/* ---- the kernel ------------------------------------------------------------------------------ */

template <bool BF16, int BM, int BN, int WARPS_M, int WARPS_N, int STAGES, bool VEC>
__global__ void __launch_bounds__(WARPS_M *WARPS_N * 32, (WARPS_M * WARPS_N * 32 == 256) ? 1 : (VEC ? 3 : 2))
    sm80_conv2d_fprop_kernel(const __grid_constant__ igemm_conv_params_t p)
{
    constexpr int THREADS = WARPS_M * WARPS_N * 32;
    constexpr int BK = SM80_BK;
    constexpr int WTM = BM / WARPS_M, WTN = BN / WARPS_N;
    constexpr int MI = WTM / 16, NI = WTN / 8;
    constexpr int A_ELEMS = BM * BK, B_ELEMS = BN * BK;
    constexpr uint32_t STAGE_BYTES = (uint32_t)(A_ELEMS + B_ELEMS) * 2u;
    static_assert(WTM % 16 == 0 && WTN % 8 == 0 && (NI == 1 || NI % 2 == 0), "warp tile");
    static_assert((BM * (BK / 8)) % THREADS == 0 && THREADS % BM == 0 && THREADS % BN == 0, "loader split");
    /* vectorized loaders */
    constexpr int VA_ITERS = BM * (BK / 8) / THREADS;
    constexpr int VB_ITERS = (BN * (BK / 8) + THREADS - 1) / THREADS;
    /* scalar loaders: A_TPR threads per A row, B_TPR per B row */
    constexpr int A_TPR = THREADS / BM, A_COLS = BK / A_TPR;
    constexpr int B_TPR = THREADS / BN, B_COLS = BK / B_TPR;
    static_assert(A_COLS % 2 == 0 && B_COLS % 2 == 0, "scalar split");

    extern __shared__ uint4 sm80_smem[];
    uint16_t *smem = (uint16_t *)sm80_smem;
    const uint32_t smem_base = (uint32_t)__cvta_generic_to_shared(smem);

    const int tid = threadIdx.x;
    const int lane = tid & 31, warp = tid >> 5;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;

    const uint16_t *x = (const uint16_t *)p.x;
    const uint16_t *w = (const uint16_t *)p.filter;
    sm80_geom_t geo;
    geo.c = p.c;
    geo.hwc = p.h * p.w * p.c;
    geo.h = (int)p.h;
    geo.w = (int)p.w;
    geo.cg = (int)p.cg;
    geo.s = (int)p.s;
    geo.dil_h = p.r > 1 ? (int)p.dil_h : 0;
    geo.dil_w = p.s > 1 ? (int)p.dil_w : 0;
    geo.gemm_k = (int)p.gemm_k;
    const int kg = (int)p.kg;
    const int groups = (int)p.groups;
    const int64_t M = p.gemm_m;
    const int64_t PQ = p.p * p.q;
    const int ktiles = (geo.gemm_k + BK - 1) / BK;
    const int64_t m_tiles = (M + BM - 1) / BM;
    const int n_tiles = (kg + BN - 1) / BN;
    const bool y_aligned = ((uintptr_t)p.y & (p.out_dtype == IGEMM_DTYPE_F32 ? 7u : 3u)) == 0;

    for (int g = blockIdx.z; g < groups; g += gridDim.z) {
        for (int nt = blockIdx.y; nt < n_tiles; nt += gridDim.y) {
            for (int64_t mt = blockIdx.x; mt < m_tiles; mt += gridDim.x) {
                const int64_t m0 = mt * BM;
                const int n0 = nt * BN;
                const int64_t xch = (int64_t)g * geo.cg; /* the group's first input channel */

                float acc[MI][NI][4];
#pragma unroll
                for (int mi = 0; mi < MI; ++mi)
#pragma unroll
                    for (int ni = 0; ni < NI; ++ni)
#pragma unroll
                        for (int e = 0; e < 4; ++e) acc[mi][ni][e] = 0.0f;

                if (VEC) {
                    /* per-row A geometry of this thread's rows */
                    const int a_cc = tid % (BK / 8), a_row0 = tid / (BK / 8);
                    int64_t a_base[VA_ITERS];
                    int a_ih0[VA_ITERS], a_iw0[VA_ITERS];
#pragma unroll
                    for (int i = 0; i < VA_ITERS; ++i) {
                        const int64_t m = m0 + a_row0 + i * (THREADS / (BK / 8));
                        if (m < M) {
                            const int64_t nn = m / PQ, rem = m - nn * PQ;
                            const int64_t oh = rem / p.q, ow = rem - oh * p.q;
                            a_base[i] = nn * geo.hwc + xch;
                            a_ih0[i] = (int)(oh * p.stride_h - p.pad_top);
                            a_iw0[i] = (int)(ow * p.stride_w - p.pad_left);
                        } else {
                            a_base[i] = 0;
                            a_ih0[i] = INT_MIN;
                            a_iw0[i] = INT_MIN;
                        }
                    }
                    int64_t b_wrow[VB_ITERS];
#pragma unroll
                    for (int j = 0; j < VB_ITERS; ++j) {
                        const int idx = tid + j * THREADS;
                        const int n = n0 + (idx >> 2);
                        b_wrow[j] = (idx < BN * (BK / 8) && n < kg) ? ((int64_t)g * kg + n) * geo.gemm_k : -1;
                    }
                    /* prologue: STAGES-1 k-tiles in flight */
#pragma unroll
                    for (int st = 0; st < STAGES - 1; ++st) {
                        if (st < ktiles) {
                            const uint32_t sA = smem_base + (uint32_t)st * STAGE_BYTES;
                            sm80_vec_load_a<BM, THREADS>(sA, x, &geo, a_base, a_ih0, a_iw0, a_row0, a_cc, st);
                            sm80_vec_load_b<BN, THREADS>(sA + A_ELEMS * 2u, w, &geo, b_wrow, tid, st);
                        }
                        cp_async_commit_group();
                    }
                    for (int kt = 0; kt < ktiles; ++kt) {
                        cp_async_wait_group<STAGES - 2>(); /* k-tile kt has landed (this thread) */
                        __syncthreads();                   /* ... for all threads; stage kt-1 is free */
                        const int nk = kt + STAGES - 1;
                        if (nk < ktiles) {
                            const uint32_t sA = smem_base + (uint32_t)(nk % STAGES) * STAGE_BYTES;
                            sm80_vec_load_a<BM, THREADS>(sA, x, &geo, a_base, a_ih0, a_iw0, a_row0, a_cc, nk);
                            sm80_vec_load_b<BN, THREADS>(sA + A_ELEMS * 2u, w, &geo, b_wrow, tid, nk);
                        }
                        cp_async_commit_group();
                        const uint32_t sA = smem_base + (uint32_t)(kt % STAGES) * STAGE_BYTES;
                        sm80_warp_mma<BF16, MI, NI>(acc, sA, sA + A_ELEMS * 2u, wm * WTM, wn * WTN, lane);
                    }
                    cp_async_wait_group<0>();
                    __syncthreads(); /* smem free for the next tile */
                } else {
                    /* this thread's A row and B row */
                    const int a_row = tid / A_TPR, a_kpart = (tid % A_TPR) * A_COLS;
                    const int b_row = tid / B_TPR, b_kpart = (tid % B_TPR) * B_COLS;
                    int64_t a_base = 0;
                    int a_ih0 = INT_MIN, a_iw0 = INT_MIN;
                    {
                        const int64_t m = m0 + a_row;
                        if (m < M) {
                            const int64_t nn = m / PQ, rem = m - nn * PQ;
                            const int64_t oh = rem / p.q, ow = rem - oh * p.q;
                            a_base = nn * geo.hwc + xch;
                            a_ih0 = (int)(oh * p.stride_h - p.pad_top);
                            a_iw0 = (int)(ow * p.stride_w - p.pad_left);
                        }
                    }
                    const int64_t b_wrow = (n0 + b_row < kg) ? ((int64_t)g * kg + n0 + b_row) * geo.gemm_k : -1;
                    uint32_t a_regs[A_COLS / 2], b_regs[B_COLS / 2];

                    sm80_scalar_load_a<A_COLS>(a_regs, x, &geo, a_base, a_ih0, a_iw0, a_kpart, 0);
                    sm80_scalar_load_b<B_COLS>(b_regs, w, &geo, b_wrow, b_kpart, 0);
                    sm80_scalar_store<A_COLS>(smem, a_regs, a_row, a_kpart);
                    sm80_scalar_store<B_COLS>(smem + A_ELEMS, b_regs, b_row, b_kpart);
                    __syncthreads();
                    for (int kt = 0; kt < ktiles; ++kt) {
                        const bool more = kt + 1 < ktiles;
                        if (more) { /* next k-tile into registers while the MMAs run */
                            sm80_scalar_load_a<A_COLS>(a_regs, x, &geo, a_base, a_ih0, a_iw0, a_kpart, kt + 1);
                            sm80_scalar_load_b<B_COLS>(b_regs, w, &geo, b_wrow, b_kpart, kt + 1);
                        }
                        const uint32_t sA = smem_base + (uint32_t)(kt & 1) * STAGE_BYTES;
                        sm80_warp_mma<BF16, MI, NI>(acc, sA, sA + A_ELEMS * 2u, wm * WTM, wn * WTN, lane);
                        if (more) { /* the other stage was last read in iteration kt-1: free */
                            uint16_t *tile = smem + (size_t)((kt + 1) & 1) * (A_ELEMS + B_ELEMS);
                            sm80_scalar_store<A_COLS>(tile, a_regs, a_row, a_kpart);
                            sm80_scalar_store<B_COLS>(tile + A_ELEMS, b_regs, b_row, b_kpart);
                        }
                        __syncthreads();
                    }
                }

                /* epilogue: accumulator (mi, ni, e) is row wm*WTM + mi*16 + lane/4 (+8 for e >= 2),
                 * column wn*WTN + ni*8 + 2*(lane%4) + (e & 1) */
#pragma unroll
                for (int mi = 0; mi < MI; ++mi) {
#pragma unroll
                    for (int hf = 0; hf < 2; ++hf) {
                        const int64_t m = m0 + wm * WTM + mi * 16 + (lane >> 2) + hf * 8;
                        if (m >= M) continue;
#pragma unroll
                        for (int ni = 0; ni < NI; ++ni) {
                            const int n = n0 + wn * WTN + ni * 8 + 2 * (lane & 3);
                            if (n >= kg) continue;
                            const int64_t kout = (int64_t)g * kg + n;
                            const int64_t yidx = m * p.k + kout;
                            const float v0 = igemm_epilogue_value(&p, acc[mi][ni][2 * hf], kout, yidx);
                            if (n + 1 < kg) {
                                const float v1 = igemm_epilogue_value(&p, acc[mi][ni][2 * hf + 1], kout + 1, yidx + 1);
                                sm80_store_pair(&p, yidx, v0, v1, y_aligned);
                            } else {
                                igemm_store_out(p.y, yidx, p.out_dtype, v0);
                            }
                        }
                    }
                }
            }
        }
    }
}

/* ---- host side ---------------------------------------------------------------------------- */

static size_t sm80_smem_bytes(int tile, int vec)
{
    const sm80_tile_t *t = &sm80_tiles[tile];
    return (size_t)(vec ? SM80_VEC_STAGES : SM80_SCALAR_STAGES) * (size_t)(t->bm + t->bn) * SM80_BK * 2;
}

template <bool BF16, int BM, int BN, int WM, int WN, int STAGES, bool VEC>
static igemm_status_t sm80_launch(const igemm_conv_params_t *p, dim3 grid, cudaStream_t stream,
                                  unsigned char *attr_done)
{
    const size_t smem = (size_t)STAGES * (BM + BN) * SM80_BK * 2;
    void (*kern)(const igemm_conv_params_t) = sm80_conv2d_fprop_kernel<BF16, BM, BN, WM, WN, STAGES, VEC>;
    if (smem > 48 * 1024 && !(attr_done && *attr_done)) {
        cudaError_t e = cudaFuncSetAttribute((const void *)kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "sm80 conv: cudaFuncSetAttribute(%zu bytes smem): %s",
                                   smem, cudaGetErrorString(e));
        }
        if (attr_done) *attr_done = 1;
    }
    kern<<<grid, WM * WN * 32, smem, stream>>>(*p);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "sm80 conv launch (tile %dx%d, %s): %s", BM, BN,
                               VEC ? "cp.async" : "scalar", cudaGetErrorString(e));
    return IGEMM_STATUS_SUCCESS;
}

template <int BM, int BN, int WM, int WN>
static igemm_status_t sm80_dispatch(const igemm_conv_params_t *p, int vec, dim3 grid, cudaStream_t stream,
                                    unsigned char *attr_done)
{
    if (p->in_dtype == IGEMM_DTYPE_BF16) {
        if (vec) return sm80_launch<true, BM, BN, WM, WN, SM80_VEC_STAGES, true>(p, grid, stream, attr_done);
        return sm80_launch<true, BM, BN, WM, WN, SM80_SCALAR_STAGES, false>(p, grid, stream, attr_done);
    }
    if (vec) return sm80_launch<false, BM, BN, WM, WN, SM80_VEC_STAGES, true>(p, grid, stream, attr_done);
    return sm80_launch<false, BM, BN, WM, WN, SM80_SCALAR_STAGES, false>(p, grid, stream, attr_done);
}

/* Writes why the 32-bit geometry limits fail, or returns 1 when they hold. */
static int sm80_fits_32bit(const igemm_conv_params_t *p, char *why, size_t why_len)
{
    const int64_t lim = SM80_LIMIT32;
    const int64_t dh = p->r > 1 ? p->dil_h : 0, dw = p->s > 1 ? p->dil_w : 0;
    const char *field = NULL;
    int64_t val = 0;
    /* each term <= lim < 2^31 before the sum, so the sum cannot overflow 64 bits */
    if (p->h > lim || p->pad_top > lim || p->pad_bottom > lim || dh > lim || p->r > lim) {
        field = "h, pad_top, pad_bottom, dil_h or r";
        val = p->h > lim ? p->h : p->pad_top > lim ? p->pad_top : p->pad_bottom > lim ? p->pad_bottom : dh > lim ? dh : p->r;
    } else if (p->h + p->pad_top + p->pad_bottom + dh * p->r > lim) {
        field = "h + pad_top + pad_bottom + dil_h*r";
        val = p->h + p->pad_top + p->pad_bottom + dh * p->r;
    } else if (p->w > lim || p->pad_left > lim || p->pad_right > lim || dw > lim || p->s > lim) {
        field = "w, pad_left, pad_right, dil_w or s";
        val = p->w > lim ? p->w : p->pad_left > lim ? p->pad_left : p->pad_right > lim ? p->pad_right : dw > lim ? dw : p->s;
    } else if (p->w + p->pad_left + p->pad_right + dw * p->s > lim) {
        field = "w + pad_left + pad_right + dil_w*s";
        val = p->w + p->pad_left + p->pad_right + dw * p->s;
    } else if (p->gemm_k > lim) {
        field = "r*s*c/groups";
        val = p->gemm_k;
    } else if (p->kg > lim) {
        field = "k/groups";
        val = p->kg;
    } else if (p->groups > lim) {
        field = "groups";
        val = p->groups;
    }
    if (!field) return 1;
    if (why && why_len)
        snprintf(why, why_len, "%s = %lld: the general path keeps tile geometry in 32 bits (limit %lld)", field,
                 (long long)val, (long long)lim);
    return 0;
}

static int sm80_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                         char *why, size_t why_len)
{
    if (h->kernel != IGEMM_KERNEL_AUTO) {
        if (why && why_len) snprintf(why, why_len, "hints.kernel = %d names an sm90 kernel", h->kernel);
        return 0;
    }
    if (dev->cc_major < 8) {
        if (why && why_len)
            snprintf(why, why_len, "needs compute capability >= 8.0, device has %d.%d", dev->cc_major, dev->cc_minor);
        return 0;
    }
    if (p->in_dtype != IGEMM_DTYPE_F16 && p->in_dtype != IGEMM_DTYPE_BF16) {
        if (why && why_len) snprintf(why, why_len, "x dtype %d: needs f16 or bf16", (int)p->in_dtype);
        return 0;
    }
    return sm80_fits_32bit(p, why, why_len);
}

/* The general family's plan (igemm_family_priv(cfg, sm80_plan_t)). */
typedef struct sm80_plan {
    int tile; /* index into sm80_tiles */
    int vec;  /* 16-byte cp.async variant (cg % 8 == 0) */
} sm80_plan_t;

static igemm_status_t sm80_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                     const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    (void)h;
    const int vec = (p->cg % 8) == 0;
    const int64_t kg = p->kg;
    const int64_t m_tiles = (p->gemm_m + 127) / 128;
    int tile;
    if (kg >= 128) {
        /* 128x128 when there are enough CTAs to fill the machine, else 128x64 */
        const int64_t ctas = m_tiles * ((kg + 127) / 128) * p->groups;
        tile = ctas >= (int64_t)(dev->sm_count > 0 ? dev->sm_count : 1) ? 0 : 1;
    } else if (kg > 32) {
        tile = 1;
    } else if (kg > 16) {
        tile = 2;
    } else if (kg > 8) {
        tile = 3;
    } else {
        tile = 4;
    }
    /* the 128x128 cp.async variant needs 64 KiB of smem (opt-in above 48 KiB) */
    if (vec && tile == 0 && dev->smem_optin_per_block > 0 && sm80_smem_bytes(0, 1) > (size_t)dev->smem_optin_per_block)
        tile = 1;
    const sm80_tile_t *t = &sm80_tiles[tile];
    sm80_plan_t *pl = igemm_family_priv(cfg, sm80_plan_t);
    pl->tile = tile;
    pl->vec = vec;
    cfg->workspace_bytes = 0;
    const int stages = vec ? SM80_VEC_STAGES : SM80_SCALAR_STAGES;
    if (vec)
        snprintf(cfg->desc, sizeof cfg->desc,
                 "mma.sync m16n8k16, tile %dx%dx%d, %d warps, %d stages, 16B cp.async (cg %% 8 == 0; scalar "
                 "gather if x/w not 16B aligned)",
                 t->bm, t->bn, SM80_BK, t->warps_m * t->warps_n, stages);
    else
        snprintf(cfg->desc, sizeof cfg->desc,
                 "mma.sync m16n8k16, tile %dx%dx%d, %d warps, %d stages, scalar gather (cg = %lld not a multiple of 8)",
                 t->bm, t->bn, SM80_BK, t->warps_m * t->warps_n, stages, (long long)p->cg);
    return IGEMM_STATUS_SUCCESS;
}

static igemm_status_t sm80_run(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                               void *state, void *stream, const igemm_inner_t *inner)
{
    (void)workspace;
    (void)inner;
    const sm80_plan_t *pl = igemm_family_priv(cfg, const sm80_plan_t);
    const int tile = pl->tile;
    int vec = pl->vec;
    if (tile < 0 || tile >= SM80_NUM_TILES)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm80 conv: tile = %d out of range", tile);
    if (vec && ((p->cg % 8) != 0 || ((uintptr_t)p->x & 15) != 0 || ((uintptr_t)p->filter & 15) != 0))
        vec = 0; /* 16-byte cp.async needs 16-byte aligned x and w */
    const sm80_tile_t *t = &sm80_tiles[tile];
    const int64_t m_tiles = (p->gemm_m + t->bm - 1) / t->bm;
    const int64_t n_tiles = (p->kg + t->bn - 1) / t->bn;
    dim3 grid((unsigned)(m_tiles < INT32_MAX ? m_tiles : INT32_MAX), (unsigned)(n_tiles < 65535 ? n_tiles : 65535),
              (unsigned)(p->groups < 65535 ? p->groups : 65535));
    /* state: one byte per (tile, vec) "max dynamic smem attribute set" (index 2 * tile + vec), per dtype */
    unsigned char *attr = state ? (unsigned char *)state + (p->in_dtype == IGEMM_DTYPE_BF16 ? 16 : 0) + 2 * tile + vec : NULL;
    cudaStream_t st = (cudaStream_t)stream;
    switch (tile) {
    case 0: return sm80_dispatch<128, 128, 2, 4>(p, vec, grid, st, attr);
    case 1: return sm80_dispatch<128, 64, 2, 2>(p, vec, grid, st, attr);
    case 2: return sm80_dispatch<128, 32, 4, 1>(p, vec, grid, st, attr);
    case 3: return sm80_dispatch<128, 16, 4, 1>(p, vec, grid, st, attr);
    default: return sm80_dispatch<128, 8, 4, 1>(p, vec, grid, st, attr);
    }
}

extern "C" const igemm_family_t igemm_family_sm80 = {
    "sm80_mma_sync", IGEMM_PATH_GENERAL, 0, sm80_supports, sm80_configure, NULL, sm80_run,
};
