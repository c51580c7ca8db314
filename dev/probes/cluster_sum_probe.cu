/*
 * dev/probes/cluster_sum_probe.cu — what each step of the split pixels-as-N plans' cluster sum
 * costs on its own (docs/decisions.md "pixn-phases": ~0.5-0.65 us for the first barrier.cluster and
 * ~1.3 us for the ld.shared::cluster gather inside the conv kernel, with a cold or a warm L2).
 * A stand-alone kernel shaped like the plans: 384 threads, ~200 KB of dynamic shared memory (one
 * CTA per SM), 128 CTAs in clusters of C (2, 4 or 8); the 256 threads of warpgroups 1-2 ("the
 * consumers") each store 32 floats (their partial tile: 8 float4 at (q * 128 + t) * 16 of their
 * 16 KB box), then (thread 128 of every CTA records %globaltimer after each step):
 *   1 barrier.cluster.arrive.release + wait.acquire
 *   2 one ld.shared::cluster float4 from the next rank (its value used before the next step)
 *   3 8 independent ld.shared::cluster float4 from the next rank, then used
 *   4 the same 8 loads from this CTA's own shared memory through the cluster window (mapa of
 *     its own rank)
 *   5 the same 8 from its own shared memory by ld.shared
 *   6 barrier.cluster again (everyone is already close: the barrier's own round trip)
 *   7 fence.acq_rel.cluster
 * Then the same exchange through L2 (probe_l2_kernel: pairs of CTAs, no cluster, a flag per CTA).
 * Optionally (PROBE_STREAM=1) each CTA first streams 256 KB from DRAM with 16-byte loads, as the
 * mainloop would have just done. Prints, per cluster size, the median over CTAs and launches of
 * each step (ns).
 *   make -C dev/probes && build/probes/cluster_sum_probe
 */
#include <algorithm>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <vector>

#include <cuda_runtime.h>

#include "probe_util.h" /* CK() */
#include "../../src/ptx/cluster.cuh"
#include "../../src/ptx/fence.cuh"
#include "../../src/ptx/ld_shared.cuh"
#include "../../src/ptx/mbarrier.cuh"

#define NSTEP 8

static __device__ __forceinline__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}
static __device__ __forceinline__ uint32_t cluster_rank()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}
static __device__ __forceinline__ uint32_t cluster_size()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(r));
    return r;
}
static __device__ __forceinline__ void cluster_sync()
{
    ptx_barrier_cluster_arrive_release();
    ptx_barrier_cluster_wait_acquire();
}

/* PROBE_STREAM: this CTA's share of src (per_cta 16-byte vectors) by 16-byte streaming loads, as
 * the mainloop would have just read its operands */
static __device__ __forceinline__ void stream_share(const int4 *src, long long per_cta, float *sink)
{
    if (per_cta <= 0) return;
    const int4 *p = src + (long long)blockIdx.x * per_cta;
    int4 acc = make_int4(0, 0, 0, 0);
    for (long long i = threadIdx.x; i < per_cta; i += 384 * 4) {
        int4 v[4];
#pragma unroll
        for (int u = 0; u < 4; u++) v[u] = i + u * 384 < per_cta ? __ldcs(p + i + u * 384) : make_int4(0, 0, 0, 0);
#pragma unroll
        for (int u = 0; u < 4; u++) acc.x ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
    }
    if (acc.x == 0x12345678) sink[blockIdx.x] = 1.0f;
}

__global__ void __launch_bounds__(384, 1)
    probe_kernel(const int4 *src, long long per_cta, unsigned long long *out, float *sink)
{
    extern __shared__ __align__(1024) unsigned char smem[];
    const int tid = (int)threadIdx.x;
    unsigned long long t[NSTEP];
    stream_share(src, per_cta, sink);
    __syncthreads();
    const uint32_t rank = cluster_rank(), next = (rank + 1) % cluster_size();
    float s = 0.0f;
    if (tid >= 128) {
        const int c = tid / 128 - 1, ct = tid % 128;
        const uint32_t mine = ptx_cvta_to_shared(smem) + (uint32_t)c * 16384u + (uint32_t)ct * 16u;
        t[0] = now_ns();
#pragma unroll
        for (int q = 0; q < 8; q++)
            ptx_st_shared_v4_f32(mine + q * 2048u, (float)q, 1.0f, 2.0f, (float)ct);
        cluster_sync();
        t[1] = now_ns();
        {
            const float4 v = ptx_ld_shared_cluster_v4_f32(ptx_mapa_shared_cluster(mine, next));
            s += v.x;
        }
        t[2] = now_ns() + (s == -1.0f);
        {
            float4 v[8];
#pragma unroll
            for (int q = 0; q < 8; q++) v[q] = ptx_ld_shared_cluster_v4_f32(ptx_mapa_shared_cluster(mine + q * 2048u, next));
#pragma unroll
            for (int q = 0; q < 8; q++) s += v[q].x + v[q].w;
        }
        t[3] = now_ns() + (s == -1.0f);
        {
            float4 v[8];
#pragma unroll
            for (int q = 0; q < 8; q++) v[q] = ptx_ld_shared_cluster_v4_f32(ptx_mapa_shared_cluster(mine + q * 2048u, rank));
#pragma unroll
            for (int q = 0; q < 8; q++) s += v[q].x + v[q].w;
        }
        t[4] = now_ns() + (s == -1.0f);
        {
            float4 v[8];
#pragma unroll
            for (int q = 0; q < 8; q++) v[q] = ptx_ld_shared_v4_f32(mine + q * 2048u);
#pragma unroll
            for (int q = 0; q < 8; q++) s += v[q].x + v[q].w;
        }
        t[5] = now_ns() + (s == -1.0f);
    } else {
        cluster_sync(); /* the producer warpgroup arrives too */
    }
    cluster_sync();
    if (tid >= 128) {
        t[6] = now_ns();
        asm volatile("fence.acq_rel.cluster;" ::: "memory");
        t[7] = now_ns();
        if (tid == 128)
            for (int i = 0; i < NSTEP; i++) out[blockIdx.x * NSTEP + i] = t[i];
        if (s == -1.0f) sink[blockIdx.x] = s;
    }
}

/* The same exchange through L2 instead (no cluster): the 256 consumer threads store their 8 float4
 * to a global workspace, thread 128 fences and sets this CTA's flag; it spins until its partner's
 * (CTA ^ 1) flag is set; then every consumer thread loads the partner's 8 float4 (ld.global.cg).
 * Steps recorded: stores + fence + flag, partner's flag seen (+ a named barrier), loads used. */
__global__ void __launch_bounds__(384, 1)
    probe_l2_kernel(const int4 *src, long long per_cta, unsigned long long *out, float *sink, float4 *ws, int *flags,
                    int epoch)
{
    const int tid = (int)threadIdx.x;
    stream_share(src, per_cta, sink);
    __syncthreads();
    if (tid < 128) return;
    const int ct = tid - 128; /* 0..255 */
    unsigned long long t[4];
    float s = 0.0f;
    t[0] = now_ns();
    float4 *mine = ws + (size_t)blockIdx.x * 256 * 8;
#pragma unroll
    for (int q = 0; q < 8; q++) mine[q * 256 + ct] = make_float4((float)q, 1.0f, 2.0f, (float)ct);
    __threadfence();
    ptx_bar_sync(1, 256);
    if (tid == 128) atomicExch(flags + blockIdx.x, epoch);
    t[1] = now_ns();
    if (tid == 128) {
        volatile int *f = flags + (blockIdx.x ^ 1);
        while (*f != epoch) {
        }
        __threadfence();
    }
    ptx_bar_sync(1, 256);
    t[2] = now_ns();
    const float4 *peer = ws + (size_t)(blockIdx.x ^ 1) * 256 * 8;
    float4 v[8];
#pragma unroll
    for (int q = 0; q < 8; q++) v[q] = __ldcg(peer + q * 256 + ct);
#pragma unroll
    for (int q = 0; q < 8; q++) s += v[q].x + v[q].w;
    t[3] = now_ns() + (s == -1.0f);
    if (tid == 128)
        for (int i = 0; i < 4; i++) out[blockIdx.x * NSTEP + i] = t[i];
    if (s == -1.0f) sink[blockIdx.x] = s;
}

int main(void)
{
    const int grid = 128, runs = 21;
    const size_t smem_bytes = 200 * 1024;
    const char *st = getenv("PROBE_STREAM");
    const long long per_cta = st && atoi(st) ? 256 * 1024 / 16 : 0;
    int4 *src = NULL;
    unsigned long long *out = NULL;
    float *sink = NULL;
    CK(cudaMalloc((void **)&src, (size_t)grid * 256 * 1024 + 16));
    CK(cudaMemset(src, 1, (size_t)grid * 256 * 1024));
    CK(cudaMalloc((void **)&out, (size_t)grid * NSTEP * 8));
    CK(cudaMalloc((void **)&sink, (size_t)grid * 4));
    CK(cudaFuncSetAttribute((const void *)probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem_bytes));
    CK(cudaFuncSetAttribute((const void *)probe_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    const char *names[NSTEP - 1] = {"st.shared + barrier.cluster", "1 remote ld (used)", "8 remote lds (used)",
                                    "8 own-rank cluster lds", "8 ld.shared", "barrier.cluster (2nd)", "fence.acq_rel.cluster"};
    printf("cluster_sum_probe: %d CTAs x 384 threads, %zu KB smem, %s; median over CTAs x %d launches, ns\n", grid,
           smem_bytes / 1024, per_cta ? "after streaming 256 KB per CTA" : "idle memory system", runs);
    printf("%-30s", "step");
    const int cls[3] = {2, 4, 8};
    for (int c = 0; c < 3; c++) printf("  cluster %d", cls[c]);
    printf("\n");
    double med[3][NSTEP - 1];
    for (int c = 0; c < 3; c++) {
        cudaLaunchConfig_t lc = {};
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = (unsigned)cls[c];
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        lc.gridDim = dim3(grid, 1, 1);
        lc.blockDim = dim3(384, 1, 1);
        lc.dynamicSmemBytes = smem_bytes;
        lc.attrs = attr;
        lc.numAttrs = 1;
        std::vector<double> d[NSTEP - 1];
        std::vector<unsigned long long> h((size_t)grid * NSTEP);
        for (int r = 0; r < runs; r++) {
            const cudaError_t e = cudaLaunchKernelEx(&lc, probe_kernel, (const int4 *)src, per_cta, out, sink);
            if (e != cudaSuccess) { /* e.g. clusters of 8 of one CTA per SM do not fit */
                printf("cluster %d: %s\n", cls[c], cudaGetErrorString(e));
                (void)cudaGetLastError();
                break;
            }
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
            if (r == 0) continue; /* warm-up */
            for (int b = 0; b < grid; b++)
                for (int i = 0; i + 1 < NSTEP; i++)
                    d[i].push_back((double)(h[b * NSTEP + i + 1] - h[b * NSTEP + i]));
        }
        for (int i = 0; i + 1 < NSTEP; i++) {
            std::sort(d[i].begin(), d[i].end());
            med[c][i] = d[i].empty() ? 0.0 : d[i][d[i].size() / 2];
        }
    }
    for (int i = 0; i + 1 < NSTEP; i++) {
        printf("%-30s", names[i]);
        for (int c = 0; c < 3; c++) printf("  %9.0f", med[c][i]);
        printf("\n");
    }
    { /* the exchange through L2, pairs of CTAs, no cluster */
        float4 *ws = NULL;
        int *flags = NULL;
        CK(cudaMalloc((void **)&ws, (size_t)grid * 256 * 8 * sizeof(float4)));
        CK(cudaMalloc((void **)&flags, (size_t)grid * sizeof(int)));
        CK(cudaMemset(flags, 0, (size_t)grid * sizeof(int)));
        CK(cudaFuncSetAttribute((const void *)probe_l2_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)smem_bytes));
        std::vector<double> d[3];
        std::vector<unsigned long long> h((size_t)grid * NSTEP);
        for (int r = 0; r < runs; r++) {
            probe_l2_kernel<<<grid, 384, smem_bytes>>>(src, per_cta, out, sink, ws, flags, r + 1);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(h.data(), out, h.size() * 8, cudaMemcpyDeviceToHost));
            if (r == 0) continue;
            for (int b = 0; b < grid; b++)
                for (int i = 0; i < 3; i++) d[i].push_back((double)(h[b * NSTEP + i + 1] - h[b * NSTEP + i]));
        }
        const char *ln[3] = {"L2: 32 KB stored + fence + flag", "L2: partner's flag seen", "L2: partner's 32 KB loaded"};
        for (int i = 0; i < 3; i++) {
            std::sort(d[i].begin(), d[i].end());
            printf("%-30s  %9.0f   (pairs of CTAs, no cluster)\n", ln[i], d[i][d[i].size() / 2]);
        }
        CK(cudaFree(ws));
        CK(cudaFree(flags));
    }
    CK(cudaFree(src));
    CK(cudaFree(out));
    CK(cudaFree(sink));
    return 0;
}
