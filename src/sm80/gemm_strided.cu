/*
 * gemm_strided.cu — the strided GEMM kernel (sm80_gemm_mma_sync): the GEMMs the conv engine
 * cannot read, run by igemm_gemm_plan_create's plans when igemm_gemm_conv_mapping refuses them:
 * B stored K x N (IGEMM_B_KN, N contiguous), leading dimensions other than packed rows (any
 * lda >= k, ldb, ldd >= n, odd ones included), batches whose matrices the conv engine cannot
 * fold (one launch for the whole batch here). Every valid GEMM; the slower correct path.
 *
 *   D[b, m, n] = act(alpha * scale[n] * sum_k A[b, m, k] B[b, k, n] + bias[n] + beta * C[b, m, n])
 *
 * Layouts: A[b, m, k] at a[b * stride_a + m * lda + k]; B at b[b * stride_b + n * ldb + k] (B_NK)
 * or b[b * stride_b + k * ldb + n] (B_KN); D and C at d[b * stride_d + m * ldd + n].
 *
 * Algorithm (gs_kernel<T, KN>): tile 128 x 128 x 32, 8 warps as 2 (M) x 4 (N), each 64 x 32 =
 * 4 x 4 mma.sync m16n8k16 (fp32 accumulators). The CTAs loop over the (batch, row tile, column
 * tile) units (grid = 2 per SM). Per k-tile every thread loads two 8-element chunks of A and two
 * of B into registers (one 16-byte load per chunk where the chunk is inside the matrix and the
 * operand's base, leading dimension and batch stride keep it 16-byte aligned; else element by
 * element, zeros outside), stores them into the other of two shared-memory stages while the
 * warps multiply the current one; one barrier per k-tile. Fragments by ldmatrix: A and an N x K
 * B row-major (K contiguous: x4), a K x N B by ldmatrix .trans (the K x N tile read as the
 * fragment of its transpose). Shared-memory rows padded to 80 B (K tiles) / 272 B (K x N tiles):
 * the 8 row addresses of each ldmatrix fall in distinct bank quads.
 * Epilogue from the accumulators: igemm_epilogue_pre_act per element, the activation out of line
 * (igemm_act_dev_noinline), bounds-checked stores in D's dtype.
 * PTX: mma.sync (sm_80+), ldmatrix (.trans). No TMA, no workspace.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common/epilogue.cuh"
#include "../error.h"
#include "../gemm_problem.h"
#include "../internal.h"
#include "../ptx/ldmatrix.cuh"
#include "../ptx/mma_sync.cuh"

#define GS_BM 128
#define GS_BN 128
#define GS_BK 32
#define GS_THREADS 256
#define GS_LDK 40  /* shared row pitch (elements) of a K-contiguous tile: 80 B */
#define GS_LDN 136 /* shared row pitch of a K x N tile: 272 B */
#define GS_A_ELEMS (GS_BM * GS_LDK)
#define GS_B_ELEMS (GS_BN * GS_LDK) /* >= GS_BK * GS_LDN (5120 >= 4352) */
#define GS_STAGE_ELEMS (GS_A_ELEMS + GS_B_ELEMS)

typedef struct gs_args {
    igemm_conv_params_t p; /* the epilogue and the pointers: x = A, filter = B, y = D, residual = C */
    int64_t m, n, k, lda, ldb, ldd, sa, sb, sd;
    int64_t tiles_n, tiles_mn, units;
    int vec_a, vec_b; /* 16-byte loads allowed (base, ld, batch stride multiples of 8 elements) */
} gs_args_t;

/* Eight consecutive elements at off (valid of them inside the matrix, the rest zero) into r. */
static __device__ __forceinline__ uint4 gs_load8(const uint16_t *base, int64_t off, int valid, int vec)
{
    if (valid >= 8 && vec) return __ldg((const uint4 *)(base + off));
    uint32_t w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
    for (int e = 0; e < 8; e++)
        if (e < valid) w[e >> 1] |= (uint32_t)__ldg(base + off + e) << (16 * (e & 1));
    return make_uint4(w[0], w[1], w[2], w[3]);
}

static __device__ __forceinline__ int gs_clamp8(int64_t left) { return left <= 0 ? 0 : left >= 8 ? 8 : (int)left; }

/* The k-tile kt of unit (b, m0, n0): two chunks of A and two of B per thread. */
template <bool KN>
static __device__ __forceinline__ void gs_load_tile(uint4 ra[2], uint4 rb[2], const gs_args_t &a, int64_t b,
                                                    int64_t m0, int64_t n0, int64_t k0, int tid)
{
    const uint16_t *A = (const uint16_t *)a.p.x, *B = (const uint16_t *)a.p.filter;
#pragma unroll
    for (int j = 0; j < 2; j++) {
        const int c = tid + j * GS_THREADS;
        const int64_t m = m0 + (c >> 2), k = k0 + (c & 3) * 8;
        ra[j] = gs_load8(A, b * a.sa + m * a.lda + k, m < a.m ? gs_clamp8(a.k - k) : 0, a.vec_a);
        if (KN) { /* [32 k][128 n]: 16 chunks per k row */
            const int64_t kb = k0 + (c >> 4), n = n0 + (c & 15) * 8;
            rb[j] = gs_load8(B, b * a.sb + kb * a.ldb + n, kb < a.k ? gs_clamp8(a.n - n) : 0, a.vec_b);
        } else {  /* [128 n][32 k] */
            const int64_t n = n0 + (c >> 2);
            rb[j] = gs_load8(B, b * a.sb + n * a.ldb + k, n < a.n ? gs_clamp8(a.k - k) : 0, a.vec_b);
        }
    }
}

template <bool KN>
static __device__ __forceinline__ void gs_store_tile(uint16_t *stage, const uint4 ra[2], const uint4 rb[2], int tid)
{
#pragma unroll
    for (int j = 0; j < 2; j++) {
        const int c = tid + j * GS_THREADS;
        *(uint4 *)(stage + (c >> 2) * GS_LDK + (c & 3) * 8) = ra[j];
        if (KN) *(uint4 *)(stage + GS_A_ELEMS + (c >> 4) * GS_LDN + (c & 15) * 8) = rb[j];
        else *(uint4 *)(stage + GS_A_ELEMS + (c >> 2) * GS_LDK + (c & 3) * 8) = rb[j];
    }
}

/* The warp's 64 x 32 share of one 128 x 128 x 32 stage (shared address sA). */
template <typename T, bool KN>
static __device__ __forceinline__ void gs_warp_mma(float acc[4][4][4], uint32_t sA, int wm, int wn, int lane)
{
    const uint32_t sB = sA + GS_A_ELEMS * 2u;
#pragma unroll
    for (int kk = 0; kk < GS_BK; kk += 16) {
        uint32_t af[4][4], bf[4][2];
#pragma unroll
        for (int mi = 0; mi < 4; mi++)
            ldmatrix_sync_aligned_m8n8_x4_b16(
                af[mi], sA + 2u * (uint32_t)((wm * 64 + mi * 16 + (lane & 15)) * GS_LDK + kk + (lane >> 4) * 8));
#pragma unroll
        for (int nj = 0; nj < 2; nj++) {
            uint32_t r[4];
            if (KN) /* rows k (lanes 8-15, 24-31: k + 8), columns n (lanes 16-31: n + 8) */
                ldmatrix_sync_aligned_m8n8_x4_trans_b16(
                    r, sB + 2u * (uint32_t)((kk + (lane & 7) + ((lane >> 3) & 1) * 8) * GS_LDN + wn * 32 + nj * 16 +
                                            (lane >> 4) * 8));
            else    /* rows n (lanes 16-31: n + 8), columns k (lanes 8-15, 24-31: k + 8) */
                ldmatrix_sync_aligned_m8n8_x4_b16(
                    r, sB + 2u * (uint32_t)((wn * 32 + nj * 16 + (lane & 7) + (lane >> 4) * 8) * GS_LDK + kk +
                                            ((lane >> 3) & 1) * 8));
            bf[2 * nj][0] = r[0], bf[2 * nj][1] = r[1], bf[2 * nj + 1][0] = r[2], bf[2 * nj + 1][1] = r[3];
        }
#pragma unroll
        for (int mi = 0; mi < 4; mi++)
#pragma unroll
            for (int ni = 0; ni < 4; ni++) mma_sync_m16n8k16_row_col_f32<T>(acc[mi][ni], af[mi], bf[ni]);
    }
}

template <typename T, bool KN>
__global__ void __launch_bounds__(GS_THREADS, 2) gs_kernel(const __grid_constant__ gs_args_t a)
{
    __shared__ __align__(16) uint16_t smem[2 * GS_STAGE_ELEMS];
    const int tid = (int)threadIdx.x, lane = tid & 31, warp = tid >> 5, wm = warp >> 2, wn = warp & 3;
    const uint32_t s0 = (uint32_t)__cvta_generic_to_shared(smem);
    const int64_t ktiles = (a.k + GS_BK - 1) / GS_BK;
    for (int64_t u = blockIdx.x; u < a.units; u += gridDim.x) {
        const int64_t b = u / a.tiles_mn, r = u % a.tiles_mn;
        const int64_t m0 = (r / a.tiles_n) * GS_BM, n0 = (r % a.tiles_n) * GS_BN;
        float acc[4][4][4];
#pragma unroll
        for (int mi = 0; mi < 4; mi++)
#pragma unroll
            for (int ni = 0; ni < 4; ni++)
#pragma unroll
                for (int e = 0; e < 4; e++) acc[mi][ni][e] = 0.0f;
        uint4 ra[2], rb[2];
        gs_load_tile<KN>(ra, rb, a, b, m0, n0, 0, tid);
        gs_store_tile<KN>(smem, ra, rb, tid);
        __syncthreads();
        for (int64_t kt = 0; kt < ktiles; kt++) {
            const bool more = kt + 1 < ktiles;
            if (more) gs_load_tile<KN>(ra, rb, a, b, m0, n0, (kt + 1) * GS_BK, tid); /* in flight under the MMAs */
            gs_warp_mma<T, KN>(acc, s0 + (uint32_t)(kt & 1) * GS_STAGE_ELEMS * 2u, wm, wn, lane);
            /* the other stage was last read in iteration kt - 1, before its closing barrier */
            if (more) gs_store_tile<KN>(smem + ((kt + 1) & 1) * GS_STAGE_ELEMS, ra, rb, tid);
            __syncthreads();
        }
        /* accumulator (mi, ni, e): row wm*64 + mi*16 + lane/4 (+8 for e >= 2), column
         * wn*32 + ni*8 + 2*(lane%4) + (e & 1) */
        const igemm_conv_params_t *p = &a.p;
#pragma unroll
        for (int mi = 0; mi < 4; mi++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int64_t m = m0 + wm * 64 + mi * 16 + (lane >> 2) + (e >> 1) * 8;
                if (m >= a.m) continue;
#pragma unroll
                for (int ni = 0; ni < 4; ni++) {
                    const int64_t n = n0 + wn * 32 + ni * 8 + 2 * (lane & 3) + (e & 1);
                    if (n >= a.n) continue;
                    const int64_t yidx = b * a.sd + m * a.ldd + n;
                    float v = igemm_epilogue_pre_act(p, acc[mi][ni][e], n, yidx);
                    if (p->act != IGEMM_ACT_NONE) v = igemm_act_dev_noinline(p->act, v, p->act_param);
                    igemm_store_out(p->y, yidx, p->out_dtype, v);
                }
            }
    }
}

/* ---- host side ---------------------------------------------------------------------------- */

/* cfg->priv: the validated GEMM (set by igemm_gemm_plan_create) and the device's SM count */
typedef struct gs_cfg {
    igemm_gemm_params_t g;
    int sm_count;
} gs_cfg_t;

static int gs_aligned(const void *ptr, int64_t ld, int64_t stride, int64_t batch)
{
    return ((uintptr_t)ptr % 16) == 0 && ld % 8 == 0 && (batch == 1 || stride % 8 == 0);
}

static int gs_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                       char *why, size_t why_len)
{
    (void)p, (void)dev, (void)h;
    if (why && why_len) snprintf(why, why_len, "takes GEMMs only (igemm_gemm_plan_create), not convolutions");
    return 0;
}

static igemm_status_t gs_run(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                             void *state, void *stream, const igemm_inner_t *inner)
{
    (void)workspace, (void)state, (void)inner;
    const gs_cfg_t *c = igemm_family_priv(cfg, const gs_cfg_t);
    const igemm_gemm_params_t *g = &c->g;
    gs_args_t a;
    memset(&a, 0, sizeof a);
    a.p = *p;
    a.m = g->m, a.n = g->n, a.k = g->k, a.lda = g->lda, a.ldb = g->ldb, a.ldd = g->ldd;
    a.sa = g->stride_a, a.sb = g->stride_b, a.sd = g->stride_d;
    a.tiles_n = (g->n + GS_BN - 1) / GS_BN;
    a.tiles_mn = ((g->m + GS_BM - 1) / GS_BM) * a.tiles_n;
    if (a.tiles_mn > INT64_MAX / g->batch)
        return igemm_set_error(IGEMM_STATUS_OVERFLOW, "gemm: %lld tiles x batch %lld overflow", (long long)a.tiles_mn,
                               (long long)g->batch);
    a.units = a.tiles_mn * g->batch;
    a.vec_a = gs_aligned(p->x, g->lda, g->stride_a, g->batch);
    a.vec_b = gs_aligned(p->filter, g->ldb, g->stride_b, g->batch);
    const int64_t cap = 2 * (int64_t)(c->sm_count > 0 ? c->sm_count : 1);
    const unsigned grid = (unsigned)(a.units < cap ? a.units : cap);
    const cudaStream_t s = (cudaStream_t)stream;
    const int bf16 = g->in_dtype == IGEMM_DTYPE_BF16;
    if (bf16 && g->b_kn) gs_kernel<__nv_bfloat16, true><<<grid, GS_THREADS, 0, s>>>(a);
    else if (bf16) gs_kernel<__nv_bfloat16, false><<<grid, GS_THREADS, 0, s>>>(a);
    else if (g->b_kn) gs_kernel<__half, true><<<grid, GS_THREADS, 0, s>>>(a);
    else gs_kernel<__half, false><<<grid, GS_THREADS, 0, s>>>(a);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "sm80 strided GEMM: launch failed: %s", cudaGetErrorString(e));
    return IGEMM_STATUS_SUCCESS;
}

extern "C" void igemm_gemm_strided_config(const igemm_gemm_params_t *g, int sm_count, igemm_family_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    gs_cfg_t *c = igemm_family_priv(cfg, gs_cfg_t);
    c->g = *g;
    c->sm_count = sm_count;
    snprintf(cfg->desc, sizeof cfg->desc,
             "mma.sync m16n8k16, tile %dx%dx%d, 8 warps, 2 shared-memory stages, ldmatrix%s, 16-byte loads where "
             "base, leading dimension and batch stride allow (else element loads), the batch in one launch",
             GS_BM, GS_BN, GS_BK, g->b_kn ? " .trans for B (K x N)" : "");
}

extern "C" const igemm_family_t igemm_family_sm80_gemm = {
    "sm80_gemm_mma_sync", IGEMM_PATH_GENERAL, 0, gs_supports, NULL, NULL, gs_run,
};
