/*
 * step01_single_tile.cu — ladder step 1: one 128 x 128 tile, K = 64, no loops. One CTA of one
 * warpgroup (128 threads) copies A (128 x 64) and B (128 x 64) from global to shared memory with
 * plain 16-byte loads and stores (into the 128-byte-swizzled layout wgmma reads), makes them
 * visible to the tensor cores (fence.proxy.async + barrier), issues 4 x 2 wgmma m64n128k16 and
 * waits for them, then writes its accumulators to D. The whole of a GEMM kernel, once.
 */
#include "ladder.cuh"

__global__ void __launch_bounds__(128) step01_kernel(const bf16 *A, const bf16 *B, bf16 *D, int M, int N, int K)
{
    const uint32_t sa = lad_smem_base(), sb = sa + LAD_TILE_BYTES(128);
    lad_load_tile_sync(sa, A, K, 0, 0, 128, threadIdx.x, 128);
    lad_load_tile_sync(sb, B, K, 0, 0, 128, threadIdx.x, 128);
    ptx_fence_proxy_async_shared_cta(); /* generic-proxy stores -> async-proxy (wgmma) reads */
    __syncthreads();
    float acc[2][64];
    lad_mma_k64<128, 2>(acc, sa, sb, true);
    ptx_wgmma_wait_group<0>();
    lad_store_acc<128, 2>(acc, D, N, 0, 0);
}

static void launch(const lad_problem_t *p, cudaStream_t s)
{
    step01_kernel<<<1, 128, 2 * LAD_TILE_BYTES(128) + 1024, s>>>(p->a, p->b, p->d, p->m, p->n, p->k);
}

int main(int argc, char **argv)
{
    const lad_cfg_t cfg = {1, "single tile, synchronous", 128, 128, 64, 128, 128, 0, 0, launch};
    return lad_main(&cfg, argc, argv);
}
