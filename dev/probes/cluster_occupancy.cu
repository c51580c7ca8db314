/* dev/probes/cluster_occupancy.cu — how many clusters of 1, 2, 4 CTAs of a given block size and
 * dynamic shared memory can be resident at once (cudaOccupancyMaxActiveClusters), against the SM
 * count: a persistent grid larger than that runs a second wave.
 *   nvcc -gencode arch=compute_90a,code=sm_90a -o /tmp/clocc dev/probes/cluster_occupancy.cu
 *   /tmp/clocc THREADS SMEM_BYTES */
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void probe_kernel(int *p)
{
    extern __shared__ int s[];
    if (p) p[threadIdx.x] = s[threadIdx.x];
}

int main(int argc, char **argv)
{
    const int threads = argc > 1 ? atoi(argv[1]) : 384;
    const int smem = argc > 2 ? atoi(argv[2]) : 197696;
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    cudaError_t e = cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    if (e != cudaSuccess) { printf("set attr: %s\n", cudaGetErrorString(e)); return 1; }
    e = cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    for (int cl = 1; cl <= 8; cl *= 2) {
        cudaLaunchConfig_t lc = {};
        cudaLaunchAttribute at[1] = {};
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = cl, at[0].val.clusterDim.y = 1, at[0].val.clusterDim.z = 1;
        lc.gridDim = dim3(cl * 64, 1, 1);
        lc.blockDim = dim3(threads, 1, 1);
        lc.dynamicSmemBytes = smem;
        lc.attrs = at;
        lc.numAttrs = 1;
        int n = -1;
        e = cudaOccupancyMaxActiveClusters(&n, (void *)probe_kernel, &lc);
        printf("threads %d smem %d: cluster %d -> max active clusters %d (%d CTAs of %d SMs)%s%s\n", threads, smem, cl,
               n, n * cl, sms, e ? " error: " : "", e ? cudaGetErrorString(e) : "");
    }
    return 0;
}
