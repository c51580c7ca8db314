/*
 * step06_persistent.cu — ladder step 6: a persistent scheduler. One CTA per SM walks the tiles
 * blockIdx.x, blockIdx.x + gridDim.x, ... in a grouped order (8 rows of tiles at a time, column by
 * column, so that CTAs running together share A and B tiles in L2). The pipeline of step 5 runs
 * over the CTA's whole sequence of (tile, K block): the loads of the next tile start while this
 * tile's last blocks compute and its accumulators are stored. No launch per tile, no tail wave.
 */
#include "ladder.cuh"

#define STAGES 4
#define STAGE_BYTES (2 * LAD_TILE_BYTES(128))
#define GROUP 8

typedef struct step06_seq {
    int ntm, ntn, kb_count;
} step06_seq_t;

/* the load of element j of this CTA's (tile, K block) sequence */
static __device__ __forceinline__ void step06_issue(const CUtensorMap *ta, const CUtensorMap *tb, uint32_t base,
                                                    uint32_t bars, int j, const step06_seq_t *q)
{
    const int t = blockIdx.x + (j / q->kb_count) * gridDim.x, kb = j % q->kb_count;
    int mi, ni;
    lad_tile_of(t, q->ntm, q->ntn, GROUP, &mi, &ni);
    const int s = j % STAGES;
    const uint32_t bar = bars + 8 * s, dst = base + s * STAGE_BYTES;
    ptx_mbarrier_arrive_expect_tx(bar, STAGE_BYTES);
    ptx_cp_async_bulk_tensor_2d_tile(dst, ta, bar, kb * LAD_BK, mi * 128);
    ptx_cp_async_bulk_tensor_2d_tile(dst + LAD_TILE_BYTES(128), tb, bar, kb * LAD_BK, ni * 128);
}

__global__ void __launch_bounds__(128) step06_kernel(const __grid_constant__ CUtensorMap ta,
                                                     const __grid_constant__ CUtensorMap tb, bf16 *D, int M, int N,
                                                     int K)
{
    const uint32_t base = lad_smem_base(), bars = base + STAGES * STAGE_BYTES;
    const step06_seq_t q = {M / 128, N / 128, K / LAD_BK};
    const int ntiles = q.ntm * q.ntn, mine = ((int)blockIdx.x < ntiles) ? (ntiles - 1 - blockIdx.x) / gridDim.x + 1 : 0;
    const int total = mine * q.kb_count;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) ptx_mbarrier_init(bars + 8 * s, 1);
        ptx_fence_mbarrier_init_release_cluster();
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int j = 0; j < STAGES - 1 && j < total; j++) step06_issue(&ta, &tb, base, bars, j, &q);
    float acc[2][64];
    int j = 0;
    for (int i = 0; i < mine; i++) {
        int mi, ni;
        lad_tile_of(blockIdx.x + i * gridDim.x, q.ntm, q.ntn, GROUP, &mi, &ni);
        for (int kb = 0; kb < q.kb_count; kb++, j++) {
            const int s = j % STAGES;
            ptx_mbarrier_wait_parity(bars + 8 * s, (j / STAGES) & 1);
            const uint32_t a = base + s * STAGE_BYTES;
            lad_mma_k64<128, 2>(acc, a, a + LAD_TILE_BYTES(128), kb == 0);
            ptx_wgmma_wait_group<1>();
            ptx_bar_sync(1, 128);
            if (threadIdx.x == 0 && j + STAGES - 1 < total) step06_issue(&ta, &tb, base, bars, j + STAGES - 1, &q);
        }
        ptx_wgmma_wait_group<0>();
        lad_store_acc<128, 2>(acc, D, N, (int64_t)mi * 128, (int64_t)ni * 128);
    }
}

static void launch(const lad_problem_t *p, cudaStream_t s)
{
    const int smem = STAGES * STAGE_BYTES + 8 * STAGES + 1024, ntiles = (p->m / 128) * (p->n / 128);
    static int attr_set = 0;
    if (!attr_set) {
        LAD_CK(cudaFuncSetAttribute(step06_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        attr_set = 1;
    }
    step06_kernel<<<p->sms < ntiles ? p->sms : ntiles, 128, smem, s>>>(p->ta, p->tb, p->d, p->m, p->n, p->k);
}

int main(int argc, char **argv)
{
    const lad_cfg_t cfg = {6, "persistent scheduler", 0, 0, 0, 128, 128, 128, 128, launch};
    return lad_main(&cfg, argc, argv);
}
