/* dev/probes/cluster_spread.cu — does a cluster launch of few CTAs reach less DRAM bandwidth than
 * the same CTAs launched without clusters (the cluster scheduler packing them into fewer GPCs)?
 * Each CTA (384 threads, ~200 KB dynamic smem: one CTA per SM, as the few-row split plans) streams
 * an equal share of 1 GiB with 16-byte loads; grid G with cluster size C; median of 15 event-timed
 * runs; prints GB/s and the distinct SM ids used.
 *   nvcc -gencode arch=compute_90a,code=sm_90a -o /tmp/clspread dev/probes/cluster_spread.cu */
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void __launch_bounds__(384, 1) stream_kernel(const int4 *src, long long per_cta, int *smid, int4 *sink, int every)
{
    extern __shared__ int4 s[];
    /* every = 2: only the even clusters (of 2) work, CTA pair j -> share j */
    if (every == 2 && (blockIdx.x / 2) % 2) { if (threadIdx.x == 0) { unsigned id; asm volatile("mov.u32 %0, %%smid;" : "=r"(id)); smid[blockIdx.x] = 1000 + (int)id; } return; }
    const int work = every == 2 ? (int)(blockIdx.x / 4) * 2 + (int)(blockIdx.x % 2) : (int)blockIdx.x;
    const int4 *p = src + (long long)work * per_cta;
    int4 acc = make_int4(0, 0, 0, 0);
    for (long long i = threadIdx.x; i < per_cta; i += 384 * 8) {
        int4 v[8];
#pragma unroll
        for (int u = 0; u < 8; u++) v[u] = i + u * 384 < per_cta ? __ldcs(p + i + u * 384) : make_int4(0, 0, 0, 0);
#pragma unroll
        for (int u = 0; u < 8; u++) { acc.x ^= v[u].x; acc.y ^= v[u].y; acc.z ^= v[u].z; acc.w ^= v[u].w; }
    }
    s[threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned id; asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
        smid[blockIdx.x] = (int)id;
        int4 t = s[0];
        for (int i = 1; i < 384; i++) { t.x ^= s[i].x; t.y ^= s[i].y; }
        if (t.x == 0x12345678) sink[blockIdx.x] = t;
    }
}

int main()
{
    const size_t bytes = 1ull << 30;
    int4 *src, *sink; int *smid;
    CK(cudaMalloc(&src, bytes)); CK(cudaMemset(src, 1, bytes));
    CK(cudaMalloc(&sink, 1024 * sizeof(int4))); CK(cudaMalloc(&smid, 1024 * sizeof(int)));
    const int smem = 200 * 1024;
    CK(cudaFuncSetAttribute(stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
    const int cfg[][3] = {{64, 1, 1}, {64, 2, 1}, {64, 4, 1}, {128, 2, 2}, {128, 1, 1}, {128, 2, 1}, {128, 4, 1}, {132, 1, 1}, {132, 2, 1}, {32, 1, 1}, {32, 2, 1}};
    for (auto &c : cfg) {
        const int G = c[0], C = c[1], every = c[2];
        cudaLaunchConfig_t lc = {};
        cudaLaunchAttribute at[1] = {};
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
        lc.gridDim = dim3(G); lc.blockDim = dim3(384); lc.dynamicSmemBytes = smem; lc.attrs = at; lc.numAttrs = 1;
        const long long per = (long long)(bytes / 16) / (G / every);
        std::vector<float> ts;
        for (int r = 0; r < 16; r++) {
            CK(cudaEventRecord(a));
            CK(cudaLaunchKernelEx(&lc, stream_kernel, (const int4 *)src, per, smid, sink, every));
            CK(cudaEventRecord(b));
            CK(cudaEventSynchronize(b));
            float ms; CK(cudaEventElapsedTime(&ms, a, b));
            if (r) ts.push_back(ms);
        }
        std::sort(ts.begin(), ts.end());
        std::vector<int> h(G); CK(cudaMemcpy(h.data(), smid, G * sizeof(int), cudaMemcpyDeviceToHost));
        std::vector<int> hs = h; std::sort(hs.begin(), hs.end());
        printf("grid %3d cluster %d every %d: %7.1f GB/s  (%.1f GB/s per working CTA)  smids in block order:", G, C, every, (double)per * 16 * (G / every) / (ts[ts.size() / 2] * 1e6),
               (double)per * 16 / (ts[ts.size() / 2] * 1e6));
        for (int i = 0; i < G; i++) printf(" %d", h[i]);
        printf("\n");
    }
    return 0;
}
