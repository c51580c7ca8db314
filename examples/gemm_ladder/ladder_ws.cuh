/*
 * ladder_ws.cuh — the warp-specialised persistent kernel of ladder steps 7-10, one template:
 *   BN        tile columns (128 x BN tiles)
 *   STAGES    depth of the TMA ring (step 8 deepens it)
 *   CLUSTER   CTAs per cluster along M (step 9: 2; the B tile is loaded once per cluster, each
 *             CTA fetching BN / CLUSTER of its rows and multicasting them to both)
 *   CONSUMERS consumer warpgroups (step 10: 2, each 64 rows of the tile)
 * Warpgroup 0 is the producer (its registers given back with setmaxnreg.dec; one thread issues
 * the loads): for each (tile, K block) of the CTA's sequence it waits for the stage's `empty`
 * barrier, arms the stage's `full` barrier with the bytes to come (A 16 KB + the whole B tile,
 * whichever CTA loads which part) and issues the TMA loads. The consumers (setmaxnreg.inc) wait on
 * `full`, issue the block's wgmma, keep one wgmma group in flight (wait_group 1) and release the
 * previous block's stage: one arrival per warp on `empty` of every CTA of the cluster (a stage
 * that receives multicast data may be refilled only when every CTA that reads it is done). After
 * a tile's last block: wait_group 0, release, store the accumulators (while the producer already
 * loads the next tile). The CTAs of a cluster walk the same tile sequence (cluster-pair tiles),
 * and meet at a cluster barrier after initialising their barriers and before exiting.
 */
#ifndef LADDER_WS_CUH
#define LADDER_WS_CUH

#include "ladder.cuh"

#define LAD_GROUP 8

template <int BN, int STAGES, int CLUSTER, int CONSUMERS> struct lad_ws {
    static constexpr int H = 2 / CONSUMERS;                 /* m64 blocks per consumer */
    static constexpr uint32_t A_BYTES = LAD_TILE_BYTES(128), B_BYTES = LAD_TILE_BYTES(BN);
    static constexpr uint32_t STAGE = A_BYTES + B_BYTES;
    static constexpr int B_ROWS = BN / CLUSTER;            /* rows of B this CTA loads */
    static constexpr uint32_t EMPTY_ARRIVALS = 4 * CONSUMERS * CLUSTER;
    static constexpr int THREADS = 128 * (CONSUMERS + 1);
    static constexpr int SMEM = STAGES * STAGE + 16 * STAGES + 1024;
    static constexpr int CONSUMER_REGS = CONSUMERS == 1 ? 240 : 232;
};

template <int CLUSTER>
static __device__ __forceinline__ void lad_ws_release(uint32_t empty_bar)
{
    if (CLUSTER == 1) {
        ptx_mbarrier_arrive_pred(empty_bar, (threadIdx.x & 31) == 0);
    } else {
#pragma unroll
        for (int r = 0; r < CLUSTER; r++)
            ptx_mbarrier_arrive_shared_cluster_pred(ptx_mapa_shared_cluster(empty_bar, r), (threadIdx.x & 31) == 0);
    }
}

template <int BN, int STAGES, int CLUSTER, int CONSUMERS>
__global__ void __launch_bounds__(lad_ws<BN, STAGES, CLUSTER, CONSUMERS>::THREADS)
    lad_ws_kernel(const __grid_constant__ CUtensorMap ta, const __grid_constant__ CUtensorMap tb, bf16 *D, int M,
                  int N, int K)
{
    typedef lad_ws<BN, STAGES, CLUSTER, CONSUMERS> W;
    const uint32_t base = lad_smem_base(), full = base + STAGES * W::STAGE, empty = full + 8 * STAGES;
    const int wg = threadIdx.x / 128;
    const int rank = CLUSTER > 1 ? (int)(blockIdx.x % CLUSTER) : 0;
    const int cid = blockIdx.x / CLUSTER, ncl = gridDim.x / CLUSTER;
    const int ntm = M / (128 * CLUSTER), ntn = N / BN, nct = ntm * ntn, KB = K / LAD_BK;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            ptx_mbarrier_init(full + 8 * s, 1);
            ptx_mbarrier_init(empty + 8 * s, W::EMPTY_ARRIVALS);
        }
        ptx_fence_mbarrier_init_release_cluster();
    }
    __syncthreads();
    if (CLUSTER > 1) { /* the peer's barriers exist before any multicast or remote arrival */
        ptx_barrier_cluster_arrive_relaxed();
        ptx_barrier_cluster_wait_acquire();
    }
    if (wg == 0) {
        /* ---------------- producer */
        ptx_setmaxnreg_dec<40>();
        if (threadIdx.x == 0) {
            int j = 0;
            for (int ct = cid; ct < nct; ct += ncl) {
                int mc, ni;
                lad_tile_of(ct, ntm, ntn, LAD_GROUP, &mc, &ni);
                const int mi = mc * CLUSTER + rank;
                for (int kb = 0; kb < KB; kb++, j++) {
                    const int s = j % STAGES;
                    ptx_mbarrier_wait_parity(empty + 8 * s, ((j / STAGES) & 1) ^ 1);
                    ptx_mbarrier_arrive_expect_tx(full + 8 * s, W::STAGE);
                    const uint32_t a_dst = base + s * W::STAGE, b_dst = a_dst + W::A_BYTES + rank * W::B_ROWS * 128;
                    ptx_cp_async_bulk_tensor_2d_tile(a_dst, &ta, full + 8 * s, kb * LAD_BK, mi * 128);
                    if (CLUSTER > 1)
                        ptx_cp_async_bulk_tensor_2d_tile_multicast(b_dst, &tb, full + 8 * s, kb * LAD_BK,
                                                                   ni * BN + rank * W::B_ROWS,
                                                                   (uint16_t)((1u << CLUSTER) - 1));
                    else
                        ptx_cp_async_bulk_tensor_2d_tile(b_dst, &tb, full + 8 * s, kb * LAD_BK, ni * BN);
                }
            }
        }
    } else {
        /* ---------------- consumers */
        ptx_setmaxnreg_inc<W::CONSUMER_REGS>();
        const int c = wg - 1;
        float acc[W::H][BN / 2];
        int j = 0, pending = -1;
        for (int ct = cid; ct < nct; ct += ncl) {
            int mc, ni;
            lad_tile_of(ct, ntm, ntn, LAD_GROUP, &mc, &ni);
            const int mi = mc * CLUSTER + rank;
            for (int kb = 0; kb < KB; kb++, j++) {
                const int s = j % STAGES;
                ptx_mbarrier_wait_parity(full + 8 * s, (j / STAGES) & 1);
                const uint32_t a = base + s * W::STAGE;
                lad_mma_k64<BN, W::H>(acc, a + c * 8192u * W::H, a + W::A_BYTES, kb == 0);
                ptx_wgmma_wait_group<1>();
                if (pending >= 0) lad_ws_release<CLUSTER>(empty + 8 * pending);
                pending = s;
            }
            ptx_wgmma_wait_group<0>();
            lad_ws_release<CLUSTER>(empty + 8 * pending);
            pending = -1;
            lad_store_acc<BN, W::H>(acc, D, N, (int64_t)mi * 128 + c * 64 * W::H, (int64_t)ni * BN);
        }
    }
    if (CLUSTER > 1) { /* no CTA leaves while its peer may still signal or fill its shared memory */
        ptx_barrier_cluster_arrive_relaxed();
        ptx_barrier_cluster_wait_acquire();
    }
}

template <int BN, int STAGES, int CLUSTER, int CONSUMERS>
static void lad_ws_launch(const lad_problem_t *p, cudaStream_t s)
{
    typedef lad_ws<BN, STAGES, CLUSTER, CONSUMERS> W;
    static int attr_set = 0;
    if (!attr_set) {
        LAD_CK(cudaFuncSetAttribute(lad_ws_kernel<BN, STAGES, CLUSTER, CONSUMERS>,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize, W::SMEM));
        attr_set = 1;
    }
    const int nct = (p->m / (128 * CLUSTER)) * (p->n / BN);
    int grid = p->sms / CLUSTER;
    if (grid > nct) grid = nct;
    cudaLaunchConfig_t lc;
    cudaLaunchAttribute attr[1];
    memset(&lc, 0, sizeof lc);
    memset(attr, 0, sizeof attr);
    lc.gridDim = dim3(grid * CLUSTER, 1, 1);
    lc.blockDim = dim3(W::THREADS, 1, 1);
    lc.dynamicSmemBytes = W::SMEM;
    lc.stream = s;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = CLUSTER;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    lc.attrs = attr;
    lc.numAttrs = 1;
    LAD_CK(cudaLaunchKernelEx(&lc, lad_ws_kernel<BN, STAGES, CLUSTER, CONSUMERS>, p->ta, p->tb, p->d, p->m, p->n,
                              p->k));
}

#endif /* LADDER_WS_CUH */
