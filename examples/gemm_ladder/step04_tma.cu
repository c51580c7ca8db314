/*
 * step04_tma.cu — ladder step 4: TMA. The operand copies become two cp.async.bulk.tensor loads
 * issued by one thread (boxes of 128 rows x 64 from SW128 tensor maps), completing on an mbarrier
 * that expects their 32 KB (mbarrier.arrive.expect_tx); the warpgroup waits on the barrier's
 * phase, computes the block, waits for its wgmma and synchronises before the next load reuses
 * the tiles. Still one stage: load, then compute.
 */
#include "ladder.cuh"

__global__ void __launch_bounds__(128) step04_kernel(const __grid_constant__ CUtensorMap ta,
                                                     const __grid_constant__ CUtensorMap tb, bf16 *D, int M, int N,
                                                     int K)
{
    const uint32_t sa = lad_smem_base(), sb = sa + LAD_TILE_BYTES(128), bar = sb + LAD_TILE_BYTES(128);
    const int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
    if (threadIdx.x == 0) {
        ptx_mbarrier_init(bar, 1);
        ptx_fence_mbarrier_init_release_cluster();
    }
    __syncthreads();
    float acc[2][64];
    for (int kb = 0; kb < K / LAD_BK; kb++) {
        if (threadIdx.x == 0) {
            ptx_mbarrier_arrive_expect_tx(bar, 2 * LAD_TILE_BYTES(128));
            ptx_cp_async_bulk_tensor_2d_tile(sa, &ta, bar, kb * LAD_BK, row0);
            ptx_cp_async_bulk_tensor_2d_tile(sb, &tb, bar, kb * LAD_BK, col0);
        }
        ptx_mbarrier_wait_parity(bar, kb & 1);
        lad_mma_k64<128, 2>(acc, sa, sb, kb == 0);
        ptx_wgmma_wait_group<0>();
        __syncthreads();
    }
    lad_store_acc<128, 2>(acc, D, N, row0, col0);
}

static void launch(const lad_problem_t *p, cudaStream_t s)
{
    step04_kernel<<<dim3(p->n / 128, p->m / 128), 128, 2 * LAD_TILE_BYTES(128) + 1024 + 64, s>>>(p->ta, p->tb, p->d,
                                                                                               p->m, p->n, p->k);
}

int main(int argc, char **argv)
{
    const lad_cfg_t cfg = {4, "TMA loads (one stage)", 0, 0, 0, 128, 128, 128, 128, launch};
    return lad_main(&cfg, argc, argv);
}
