/*
 * step05_pipeline.cu — ladder step 5: a software pipeline. Four stages of A and B tiles, each with
 * its own mbarrier; one thread keeps three blocks of TMA loads in flight ahead of the wgmma. Per
 * block: wait for its stage, issue its wgmma, wait until only that group is in flight
 * (wgmma.wait_group 1: the previous block's MMAs are done), synchronise the warpgroup, and load
 * block kb + 3 into the stage block kb - 1 just freed. Loads and MMAs now overlap.
 */
#include "ladder.cuh"

#define STAGES 4
#define STAGE_BYTES (2 * LAD_TILE_BYTES(128))

static __device__ __forceinline__ void step05_issue(const CUtensorMap *ta, const CUtensorMap *tb, uint32_t base,
                                                    uint32_t bars, int b, int row0, int col0)
{
    const int s = b % STAGES;
    const uint32_t bar = bars + 8 * s, dst = base + s * STAGE_BYTES;
    ptx_mbarrier_arrive_expect_tx(bar, STAGE_BYTES);
    ptx_cp_async_bulk_tensor_2d_tile(dst, ta, bar, b * LAD_BK, row0);
    ptx_cp_async_bulk_tensor_2d_tile(dst + LAD_TILE_BYTES(128), tb, bar, b * LAD_BK, col0);
}

__global__ void __launch_bounds__(128) step05_kernel(const __grid_constant__ CUtensorMap ta,
                                                     const __grid_constant__ CUtensorMap tb, bf16 *D, int M, int N,
                                                     int K)
{
    const uint32_t base = lad_smem_base(), bars = base + STAGES * STAGE_BYTES;
    const int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128, KB = K / LAD_BK;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) ptx_mbarrier_init(bars + 8 * s, 1);
        ptx_fence_mbarrier_init_release_cluster();
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int b = 0; b < STAGES - 1 && b < KB; b++) step05_issue(&ta, &tb, base, bars, b, row0, col0);
    float acc[2][64];
    for (int kb = 0; kb < KB; kb++) {
        const int s = kb % STAGES;
        ptx_mbarrier_wait_parity(bars + 8 * s, (kb / STAGES) & 1);
        const uint32_t a = base + s * STAGE_BYTES;
        lad_mma_k64<128, 2>(acc, a, a + LAD_TILE_BYTES(128), kb == 0);
        ptx_wgmma_wait_group<1>();
        ptx_bar_sync(1, 128); /* every warp is past block kb - 1's MMAs */
        if (threadIdx.x == 0 && kb + STAGES - 1 < KB) step05_issue(&ta, &tb, base, bars, kb + STAGES - 1, row0, col0);
    }
    ptx_wgmma_wait_group<0>();
    lad_store_acc<128, 2>(acc, D, N, row0, col0);
}

static void launch(const lad_problem_t *p, cudaStream_t s)
{
    const int smem = STAGES * STAGE_BYTES + 8 * STAGES + 1024;
    static int attr_set = 0;
    if (!attr_set) {
        LAD_CK(cudaFuncSetAttribute(step05_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        attr_set = 1;
    }
    step05_kernel<<<dim3(p->n / 128, p->m / 128), 128, smem, s>>>(p->ta, p->tb, p->d, p->m, p->n, p->k);
}

int main(int argc, char **argv)
{
    const lad_cfg_t cfg = {5, "software pipeline (4 TMA stages)", 0, 0, 0, 128, 128, 128, 128, launch};
    return lad_main(&cfg, argc, argv);
}
