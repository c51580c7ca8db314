/*
 * step03_multi_cta.cu — ladder step 3: spatial tiling. A grid of (N/128) x (M/128) CTAs, each the
 * K loop of step 2 on its own 128 x 128 tile of D (A rows 128*blockIdx.y.., B rows
 * 128*blockIdx.x..). Every CTA still copies its operands synchronously: the tensor cores wait
 * for each copy.
 */
#include "ladder.cuh"

__global__ void __launch_bounds__(128) step03_kernel(const bf16 *A, const bf16 *B, bf16 *D, int M, int N, int K)
{
    const uint32_t sa = lad_smem_base(), sb = sa + LAD_TILE_BYTES(128);
    const int64_t row0 = (int64_t)blockIdx.y * 128, col0 = (int64_t)blockIdx.x * 128;
    float acc[2][64];
    for (int kb = 0; kb < K / LAD_BK; kb++) {
        lad_load_tile_sync(sa, A, K, row0, (int64_t)kb * LAD_BK, 128, threadIdx.x, 128);
        lad_load_tile_sync(sb, B, K, col0, (int64_t)kb * LAD_BK, 128, threadIdx.x, 128);
        ptx_fence_proxy_async_shared_cta();
        __syncthreads();
        lad_mma_k64<128, 2>(acc, sa, sb, kb == 0);
        ptx_wgmma_wait_group<0>();
        __syncthreads();
    }
    lad_store_acc<128, 2>(acc, D, N, row0, col0);
}

static void launch(const lad_problem_t *p, cudaStream_t s)
{
    step03_kernel<<<dim3(p->n / 128, p->m / 128), 128, 2 * LAD_TILE_BYTES(128) + 1024, s>>>(p->a, p->b, p->d, p->m,
                                                                                          p->n, p->k);
}

int main(int argc, char **argv)
{
    const lad_cfg_t cfg = {3, "multi-CTA tiles, synchronous", 0, 0, 0, 128, 128, 0, 0, launch};
    return lad_main(&cfg, argc, argv);
}
