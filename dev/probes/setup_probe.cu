/*
 * dev/probes/setup_probe.cu — what the first microsecond of an sm90 CTA costs, step by step, on a
 * stand-alone kernel shaped like ours (384 threads, ~1 KB of __grid_constant__ parameters,
 * 200 KB of dynamic shared memory), so that each step of the conv kernel's set-up (docs/decisions.md
 * "launch-overhead", S12-5: ~1 us from CTA entry to the first TMA load; the results are S13-1) can be priced on its own:
 *   a first read of a parameter line, a second line, the same line again;
 *   26 mbarrier.init by one thread, the same 26 spread over 26 threads;
 *   fence.mbarrier_init, __syncthreads, setmaxnreg.
 * Thread 0 of CTA 0 records clock64() after each step (each read's value is consumed by an
 * instruction before the clock is read, so the load's latency is inside the step).
 *   make -C dev/probes
 *   build/probes/setup_probe            (L2 flushed by a 96 MB memset before each launch)
 *   PROBE_NOFLUSH=1 build/probes/setup_probe
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "probe_util.h" /* CK() */

typedef struct probe_args {
    unsigned char blob[4][128]; /* four tensor-map-sized blobs, like the conv kernel's maps */
    int v[128];                 /* 512 B of scalars: fields 0, 32, 64 are on different lines */
    long long *out;
} probe_args_t;

#define NBAR 26
#define NSTEP 12

__device__ __forceinline__ long long clk(void)
{
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

/* consume v before the next clock read: a branch on it (ptxas keeps the clock read after it, and
 * cannot drop it as dead, as it could an arithmetic use) */
__device__ __forceinline__ void use(int v)
{
    if (v == 0x7fffffff) __trap();
}

template <int MODE>
__global__ void __launch_bounds__(384, 1) setup_kernel(const __grid_constant__ probe_args_t a)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    __shared__ __align__(8) unsigned long long bars[2 * NBAR];
    long long t[NSTEP];
    const uint32_t bar0 = (uint32_t)__cvta_generic_to_shared(&bars[0]);
    const uint32_t bar1 = (uint32_t)__cvta_generic_to_shared(&bars[NBAR]);
    t[0] = clk();
    if (threadIdx.x == 0) {
        use(a.v[0]);
        t[1] = clk(); /* first read of a parameter line */
        use(a.v[32]);
        t[2] = clk(); /* a second line */
        use(a.v[1]);
        t[3] = clk(); /* the first line again */
        if (MODE == 0) { /* MODE 0: the reads above were waited on one by one; also try three lines at once */
            const int x = a.v[64], y = a.v[96], z = a.v[127];
            use(x + y + z);
        }
        t[4] = clk();
        for (int i = 0; i < NBAR; i++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar0 + 8u * i), "r"(1) : "memory");
        t[5] = clk(); /* 26 inits by one thread */
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
        t[6] = clk();
    }
    if (threadIdx.x < NBAR)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar1 + 8u * threadIdx.x), "r"(1) : "memory");
    if (threadIdx.x == 0) t[7] = clk(); /* 26 inits, one per thread (thread 0's view) */
    __syncthreads();
    if (threadIdx.x == 0) t[8] = clk();
    __syncthreads();
    if (threadIdx.x == 0) t[9] = clk(); /* a second __syncthreads, every warp already there */
    if (threadIdx.x < 128) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;" ::: "memory");
        if (threadIdx.x == 0) t[10] = clk();
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;" ::: "memory");
    }
    if (threadIdx.x == 0) {
        t[11] = clk();
        smem[0] = 1;
        for (int i = 0; i < NSTEP; i++) a.out[i] = t[i] - t[0];
    }
}

/* launch-overhead variants: an empty kernel (one thread writes a word), with small or ~1 KB
 * parameters, with or without 200 KB of dynamic shared memory (the launch parameters below) */
typedef struct small_args {
    long long *out;
} small_args_t;

__global__ void empty_small(const __grid_constant__ small_args_t a)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) a.out[15] = 1;
}

__global__ void empty_big(const __grid_constant__ probe_args_t a)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) a.out[15] = a.v[5];
}

static double median_d(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            const double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[n / 2];
}

static int cmp_ll(const void *x, const void *y)
{
    const long long a = *(const long long *)x, b = *(const long long *)y;
    return a < b ? -1 : a > b;
}

int main(void)
{
    enum { ITERS = 41 };
    static const char *const names[NSTEP] = {"entry", "1st param line read", "2nd line read", "1st line again",
                                             "3 more lines at once", "26 inits, one thread", "fence.mbarrier_init",
                                             "26 inits, 26 threads", "__syncthreads", "__syncthreads again",
                                             "setmaxnreg.dec", "setmaxnreg.inc done"};
    probe_args_t a;
    for (int i = 0; i < 128; i++) a.v[i] = i;
    long long *out = NULL, h[NSTEP], res[NSTEP][ITERS];
    CK(cudaMalloc((void **)&out, sizeof h));
    a.out = out;
    void *flush = NULL;
    const size_t flush_bytes = (size_t)96 << 20;
    CK(cudaMalloc(&flush, flush_bytes));
    const int smem = 200 * 1024;
    CK(cudaFuncSetAttribute(setup_kernel<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int khz = 0;
    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    double ev[ITERS];
    for (int grid = 1; grid <= 132; grid += 131) {
        for (int it = -5; it < ITERS; it++) {
            if (!getenv("PROBE_NOFLUSH")) CK(cudaMemsetAsync(flush, it & 0xFF, flush_bytes, 0));
            CK(cudaEventRecord(e0, 0));
            setup_kernel<0><<<grid, 384, smem>>>(a);
            CK(cudaGetLastError());
            CK(cudaEventRecord(e1, 0));
            CK(cudaEventSynchronize(e1));
            CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
            if (it < 0) continue;
            float ms = 0.0f;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            ev[it] = 1000.0 * ms;
            for (int k = 0; k < NSTEP; k++) res[k][it] = h[k];
        }
        printf("setup probe, grid %d x 384 threads, %d KB dynamic smem, ~1 KB params; event-timed launch %.2f us\n",
               grid, smem / 1024, median_d(ev, ITERS));
        printf("  %-24s %8s %8s   (cycles after entry, median / min; clock %d MHz)\n", "step", "cycles", "us",
               khz / 1000);
        for (int k = 1; k < NSTEP; k++) {
            qsort(res[k], ITERS, sizeof res[k][0], cmp_ll);
            printf("  %-24s %8lld %8.3f   min %lld\n", names[k], res[k][ITERS / 2],
                   (double)res[k][ITERS / 2] / (khz / 1000.0), res[k][0]);
        }
    }
    /* event-timed launches of empty kernels (no L2 flush; one launch between each event pair) */
    CK(cudaFuncSetAttribute(empty_small, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CK(cudaFuncSetAttribute(empty_big, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    small_args_t sa;
    sa.out = out;
    for (int v = 0; v < 8; v++) {
        const int big = v & 1, sm = (v >> 1) & 1, grid = (v >> 2) & 1 ? 132 : 1;
        for (int it = -5; it < ITERS; it++) {
            CK(cudaEventRecord(e0, 0));
            if (big) empty_big<<<grid, 384, sm ? smem : 0>>>(a);
            else empty_small<<<grid, 384, sm ? smem : 0>>>(sa);
            CK(cudaGetLastError());
            CK(cudaEventRecord(e1, 0));
            CK(cudaEventSynchronize(e1));
            if (it < 0) continue;
            float ms = 0.0f;
            CK(cudaEventElapsedTime(&ms, e0, e1));
            ev[it] = 1000.0 * ms;
        }
        printf("empty kernel, grid %3d x 384, params %4zu B, dynamic smem %3d KB: event-timed %.2f us\n", grid,
               big ? sizeof(probe_args_t) : sizeof(small_args_t), sm ? smem / 1024 : 0, median_d(ev, ITERS));
    }
    return 0;
}
