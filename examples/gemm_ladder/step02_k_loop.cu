/*
 * step02_k_loop.cu — ladder step 2: the K loop. Still one CTA and one 128 x 128 tile, now over any
 * K (a multiple of 64): per 64-wide K block the warpgroup copies the A and B blocks into shared
 * memory (plain loads), fences, issues the block's wgmma with the accumulators carried over
 * (scale_d = 1 after the first block), waits, and synchronises before the next copy overwrites
 * the tiles. The step's problem: 128 x 128 x 4096.
 */
#include "ladder.cuh"

__global__ void __launch_bounds__(128) step02_kernel(const bf16 *A, const bf16 *B, bf16 *D, int M, int N, int K)
{
    const uint32_t sa = lad_smem_base(), sb = sa + LAD_TILE_BYTES(128);
    float acc[2][64];
    for (int kb = 0; kb < K / LAD_BK; kb++) {
        lad_load_tile_sync(sa, A, K, 0, (int64_t)kb * LAD_BK, 128, threadIdx.x, 128);
        lad_load_tile_sync(sb, B, K, 0, (int64_t)kb * LAD_BK, 128, threadIdx.x, 128);
        ptx_fence_proxy_async_shared_cta();
        __syncthreads();
        lad_mma_k64<128, 2>(acc, sa, sb, kb == 0);
        ptx_wgmma_wait_group<0>();
        __syncthreads(); /* every warp's wgmma has read the tiles before they are overwritten */
    }
    lad_store_acc<128, 2>(acc, D, N, 0, 0);
}

static void launch(const lad_problem_t *p, cudaStream_t s)
{
    step02_kernel<<<1, 128, 2 * LAD_TILE_BYTES(128) + 1024, s>>>(p->a, p->b, p->d, p->m, p->n, p->k);
}

int main(int argc, char **argv)
{
    const lad_cfg_t cfg = {2, "K loop (one CTA)", 128, 128, 4096, 128, 128, 0, 0, launch};
    return lad_main(&cfg, argc, argv);
}
