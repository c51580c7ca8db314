/*
 * ladder.cuh — what the ten GEMM ladder programs share (examples/gemm_ladder/stepNN_*.cu): the
 * problem D[M,N] = A[M,K] * B[N,K]^T (bf16 in, fp32 accumulation, bf16 out; A and B K-major, as
 * torch.nn.Linear), the shared-memory tile layout, the wgmma block, the accumulator store, and
 * the host driver (data, TMA descriptors, timing, the check against a float64 reference on
 * sampled elements).
 *
 * Tile layout in shared memory (every step): a tile of R rows x 64 K-elements, 128 bytes per row,
 * the 16-byte chunk c of row r at chunk position c ^ (r % 8) (the 128-byte swizzle TMA writes
 * with CU_TENSOR_MAP_SWIZZLE_128B), tiles on 1024-byte boundaries; steps 1-3 write it with plain
 * stores, steps 4-10 by TMA. wgmma reads it through a K-major SW128 descriptor (src/ptx/wgmma.cuh).
 * A CTA's tile is 128 x BN: one warpgroup covers its 128 rows as two m64 blocks (BN/2 fp32 per
 * thread each), or (step 10) two warpgroups take 64 rows each.
 *
 * Host: `lad_main(cfg, argc, argv)` runs the step at each size (default 4096 and 8192 cubed;
 * `--sizes 2048,4096`), prints a line per size and a machine-readable `LADDER,...` line. The
 * check: D is poisoned (NaN) before the first run; 1024 sampled elements plus the first and last
 * row must match the float64 dot product within 1e-2 * (1 + |ref|) (an error of one missed
 * 64-wide K block is ~30x that). Timing: CUDA events around each of 10 runs after 2 warm-ups,
 * the median.
 * Not library code: standalone teaching programs (see docs/gemm_ladder.md).
 */
#ifndef LADDER_CUH
#define LADDER_CUH

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ptx/cluster.cuh"
#include "../../src/ptx/fence.cuh"
#include "../../src/ptx/mbarrier.cuh"
#include "../../src/ptx/setmaxnreg.cuh"
#include "../../src/ptx/tma.cuh"
#include "../../src/ptx/wgmma.cuh"

typedef __nv_bfloat16 bf16;

#define LAD_CK(x)                                                                                   \
    do {                                                                                            \
        cudaError_t e_ = (x);                                                                       \
        if (e_ != cudaSuccess) {                                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
            exit(2);                                                                                \
        }                                                                                           \
    } while (0)

#define LAD_BK 64            /* K elements per tile: one 128-byte row */
#define LAD_TILE_BYTES(r) ((r) * 128)

typedef struct lad_problem {
    int m, n, k;
    bf16 *a, *b, *d;
    CUtensorMap ta, tb; /* SW128 K-major maps, boxes of a_box_rows / b_box_rows x 64 (steps 4-10) */
    int sms;
} lad_problem_t;

typedef struct lad_cfg {
    int step;
    const char *title;               /* the mechanism the step adds */
    int fixed_m, fixed_n, fixed_k;   /* non-zero: the step's own problem (steps 1-2) */
    int tile_m, tile_n;              /* sizes must be multiples of these (and K of 64) */
    int a_box_rows, b_box_rows;      /* TMA boxes (0: no tensor maps) */
    void (*launch)(const lad_problem_t *p, cudaStream_t s);
    int sm_major;                    /* the GPU generation it runs on (0: 9, Hopper) */
} lad_cfg_t;

/* ------------------------------------------------------------------ device pieces */

/* The shared-memory address of the dynamic shared memory rounded up to 1024 bytes (launches
 * request 1 KB more than they use). */
static __device__ __forceinline__ uint32_t lad_smem_base(void)
{
    extern __shared__ __align__(16) uint8_t lad_smem[];
    return (ptx_cvta_to_shared(lad_smem) + 1023u) & ~1023u;
}

static __device__ __forceinline__ uint8_t *lad_smem_ptr(uint32_t addr)
{
    extern __shared__ __align__(16) uint8_t lad_smem[];
    return lad_smem + (addr - ptx_cvta_to_shared(lad_smem));
}

/* Synchronous copy of rows [row0, row0 + R) x K-block [k0, k0 + 64) of a K-major matrix (ld
 * elements per row) into the SW128 tile at smem address dst, by nthreads threads (16-byte loads
 * and stores). The caller fences (fence.proxy.async) and synchronises before wgmma reads it. */
static __device__ __forceinline__ void lad_load_tile_sync(uint32_t dst, const bf16 *g, int64_t ld, int64_t row0,
                                                          int64_t k0, int rows, int tid, int nthreads)
{
    uint8_t *s = lad_smem_ptr(dst);
    for (int i = tid; i < rows * 8; i += nthreads) {
        const int r = i >> 3, c = i & 7;
        const uint4 v = *(const uint4 *)(g + (row0 + r) * ld + k0 + c * 8);
        *(uint4 *)(s + r * 128 + ((c ^ (r & 7)) << 4)) = v;
    }
}

template <int BN> struct lad_wgmma;
template <> struct lad_wgmma<128> {
    static __device__ __forceinline__ void run(float *d, uint64_t a, uint64_t b, int scale_d)
    {
        ptx_wgmma_m64n128k16_f32_bf16_ss(d, a, b, scale_d);
    }
};
template <> struct lad_wgmma<256> {
    static __device__ __forceinline__ void run(float *d, uint64_t a, uint64_t b, int scale_d)
    {
        ptx_wgmma_m64n256k16_f32_bf16_ss(d, a, b, scale_d);
    }
};

/* One 64-wide K block on the tensor cores: for each of the H m64 blocks (A rows 64h.. of the
 * tile at a_addr), four m64nBNk16 wgmma against the BN-row B tile at b_addr; scale_d = 0 on the
 * first k16 step when `fresh` (the block starts a new accumulation). Issued, not waited. */
template <int BN, int H>
static __device__ __forceinline__ void lad_mma_k64(float (*acc)[BN / 2], uint32_t a_addr, uint32_t b_addr, bool fresh)
{
    ptx_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; kk++)
#pragma unroll
        for (int h = 0; h < H; h++)
            lad_wgmma<BN>::run(acc[h], wgmma_desc_kmajor_sw128(a_addr + 8192u * h) + 2u * kk,
                               wgmma_desc_kmajor_sw128(b_addr) + 2u * kk, (fresh && kk == 0) ? 0 : 1);
    ptx_wgmma_commit_group();
}

/* Stores the H m64 x BN accumulator blocks of this warpgroup (thread t = threadIdx.x % 128) as
 * bf16 at D[row0 + 64h + row][col0 + col] (the m64nNk16 fragment: wgmma.cuh), a bf16 pair per
 * 4-byte store. */
template <int BN, int H>
static __device__ __forceinline__ void lad_store_acc(float (*acc)[BN / 2], bf16 *D, int64_t ldd, int64_t row0,
                                                     int64_t col0)
{
    const int t = threadIdx.x & 127, w = t >> 5, l = t & 31;
#pragma unroll
    for (int h = 0; h < H; h++)
#pragma unroll
        for (int i = 0; i < BN / 2; i += 2) {
            const int64_t row = row0 + 64 * h + 16 * w + (l >> 2) + 8 * ((i >> 1) & 1);
            const int64_t col = col0 + 8 * (i >> 2) + 2 * (l & 3);
            *(__nv_bfloat162 *)(D + row * ldd + col) = __floats2bfloat162_rn(acc[h][i], acc[h][i + 1]);
        }
}

/* Tile order of the persistent steps: tile t of a grid of tm x tn tiles, in groups of G rows of
 * tiles (column by column inside a group), so that CTAs running at the same time share A and B
 * tiles in L2. */
static __device__ __forceinline__ void lad_tile_of(int t, int tm, int tn, int G, int *mi, int *ni)
{
    const int per_group = G * tn, group = t / per_group, first = group * G;
    const int gs = tm - first < G ? tm - first : G, r = t - group * per_group;
    *mi = first + r % gs;
    *ni = r / gs;
}

/* ------------------------------------------------------------------ host driver */

__global__ void lad_fill_kernel(bf16 *p, int64_t n, uint32_t seed)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
        uint32_t h = (uint32_t)i * 2654435761u ^ seed;
        h ^= h >> 15;
        h *= 2246822519u;
        h ^= h >> 13;
        p[i] = __float2bfloat16_rn(((h & 0xFFFFFFu) / 8388607.5f) - 1.0f + 1.0f / 16777216.0f);
    }
}

static void lad_tmap(CUtensorMap *map, const bf16 *base, int rows, int k, int box_rows)
{
    const cuuint64_t dims[2] = {(cuuint64_t)k, (cuuint64_t)rows};
    const cuuint64_t strides[1] = {(cuuint64_t)k * 2};
    const cuuint32_t box[2] = {64, (cuuint32_t)box_rows}, estr[2] = {1, 1};
    const CUresult r = cuTensorMapEncodeTiled(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)base, dims, strides,
                                              box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "cuTensorMapEncodeTiled failed (%d): %d rows x %d, box %d\n", (int)r, rows, k, box_rows);
        exit(2);
    }
}

static int lad_cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

static double lad_bf(bf16 v) { return (double)__bfloat162float(v); }

/* Runs cfg at m x n x k: returns 1 if the check passed. */
static int lad_run_size(const lad_cfg_t *cfg, int m, int n, int k, int sms)
{
    lad_problem_t p;
    memset(&p, 0, sizeof p);
    p.m = m, p.n = n, p.k = k, p.sms = sms;
    const size_t ae = (size_t)m * k, be = (size_t)n * k, de = (size_t)m * n;
    LAD_CK(cudaMalloc(&p.a, ae * 2));
    LAD_CK(cudaMalloc(&p.b, be * 2));
    LAD_CK(cudaMalloc(&p.d, de * 2));
    lad_fill_kernel<<<1024, 256>>>(p.a, (int64_t)ae, 0x1234u);
    lad_fill_kernel<<<1024, 256>>>(p.b, (int64_t)be, 0xbeefu);
    LAD_CK(cudaGetLastError());
    LAD_CK(cudaMemset(p.d, 0xFF, de * 2)); /* NaN: an element never written fails the check */
    if (cfg->a_box_rows) lad_tmap(&p.ta, p.a, m, k, cfg->a_box_rows);
    if (cfg->b_box_rows) lad_tmap(&p.tb, p.b, n, k, cfg->b_box_rows);
    cudaStream_t st;
    LAD_CK(cudaStreamCreate(&st));
    cudaEvent_t e0, e1;
    LAD_CK(cudaEventCreate(&e0));
    LAD_CK(cudaEventCreate(&e1));

    /* the check first, on the first run's output */
    cfg->launch(&p, st);
    LAD_CK(cudaGetLastError());
    LAD_CK(cudaStreamSynchronize(st));
    bf16 *ha = (bf16 *)malloc(ae * 2), *hb = (bf16 *)malloc(be * 2), *hd = (bf16 *)malloc(de * 2);
    if (!ha || !hb || !hd) { fprintf(stderr, "out of host memory\n"); exit(2); }
    LAD_CK(cudaMemcpy(ha, p.a, ae * 2, cudaMemcpyDeviceToHost));
    LAD_CK(cudaMemcpy(hb, p.b, be * 2, cudaMemcpyDeviceToHost));
    LAD_CK(cudaMemcpy(hd, p.d, de * 2, cudaMemcpyDeviceToHost));
    int bad = 0, checked = 0;
    double worst = 0;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    const int nsamp = 1024 + 2 * n;
    for (int s = 0; s < nsamp; s++) {
        int64_t i, j;
        if (s < 1024) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            i = (int64_t)(rng % (uint64_t)m);
            j = (int64_t)((rng >> 32) % (uint64_t)n);
        } else {
            const int r = s - 1024;
            i = r < n ? 0 : m - 1; /* the first and the last row, every column */
            j = r % n;
        }
        double ref = 0;
        for (int64_t kk = 0; kk < k; kk++) ref += lad_bf(ha[i * k + kk]) * lad_bf(hb[j * k + kk]);
        const double got = lad_bf(hd[i * n + j]), tol = 1e-2 * (1.0 + fabs(ref)), err = fabs(got - ref);
        checked++;
        if (!(err <= tol)) {
            if (bad < 5) fprintf(stderr, "  step %d: D[%lld][%lld] = %g, expected %g\n", cfg->step, (long long)i,
                                 (long long)j, got, ref);
            bad++;
        } else if (err / tol > worst) {
            worst = err / tol;
        }
    }
    free(ha), free(hb), free(hd);

    for (int i = 0; i < 2; i++) cfg->launch(&p, st);
    float ms[10];
    for (int i = 0; i < 10; i++) {
        LAD_CK(cudaEventRecord(e0, st));
        cfg->launch(&p, st);
        LAD_CK(cudaEventRecord(e1, st));
        LAD_CK(cudaEventSynchronize(e1));
        LAD_CK(cudaEventElapsedTime(&ms[i], e0, e1));
    }
    LAD_CK(cudaGetLastError());
    qsort(ms, 10, sizeof ms[0], lad_cmp_float);
    const double t = 0.5 * (ms[4] + ms[5]), tf = 2.0 * m * n * (double)k / (t * 1e-3) / 1e12;
    printf("step %02d %-34s %5d x %5d x %5d  %9.3f ms  %7.1f TFLOP/s  check: %d of %d sampled elements %s "
           "(worst err/tol %.3f)\n",
           cfg->step, cfg->title, m, n, k, t, tf, checked - bad, checked, bad ? "WRONG" : "ok", worst);
    printf("LADDER,%d,%d,%d,%d,%.2f,%.1f,%s\n", cfg->step, m, n, k, t * 1e3, tf, bad ? "wrong" : "ok");
    fflush(stdout);
    cudaEventDestroy(e0), cudaEventDestroy(e1), cudaStreamDestroy(st);
    cudaFree(p.a), cudaFree(p.b), cudaFree(p.d);
    return bad == 0;
}

static int lad_main(const lad_cfg_t *cfg, int argc, char **argv)
{
    int sizes[8] = {4096, 8192}, ns = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            ns = 0;
            for (char *s = strtok(argv[++i], ","); s && ns < 8; s = strtok(NULL, ",")) sizes[ns++] = atoi(s);
        } else {
            fprintf(stderr, "usage: %s [--sizes 4096,8192]  (cubes; multiples of %d x %d tiles)\n", argv[0],
                    cfg->tile_m, cfg->tile_n);
            return 2;
        }
    }
    int dev = 0, sms = 0, major = 0;
    LAD_CK(cudaGetDevice(&dev));
    LAD_CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    LAD_CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    const int want = cfg->sm_major ? cfg->sm_major : 9;
    if (major != want) {
        fprintf(stderr, "step %d needs an sm_%d0 GPU (%s); this one is sm_%d0\n", cfg->step, want,
                want == 9 ? "Hopper" : "Blackwell", major);
        return 2;
    }
    int ok = 1;
    if (cfg->fixed_m) {
        ok &= lad_run_size(cfg, cfg->fixed_m, cfg->fixed_n, cfg->fixed_k, sms);
        for (int i = 0; i < ns; i++)
            printf("step %02d %-34s %5d^3: n/a (the step computes its one-CTA problem only)\n", cfg->step, cfg->title,
                   sizes[i]);
    } else {
        for (int i = 0; i < ns; i++) {
            if (sizes[i] % cfg->tile_m || sizes[i] % cfg->tile_n || sizes[i] % LAD_BK) {
                fprintf(stderr, "size %d: not a multiple of the %d x %d tile\n", sizes[i], cfg->tile_m, cfg->tile_n);
                return 2;
            }
            ok &= lad_run_size(cfg, sizes[i], sizes[i], sizes[i], sms);
        }
    }
    return ok ? 0 : 1;
}

#endif /* LADDER_CUH */
