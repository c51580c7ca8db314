/*
 * sm100_step07_tcgen05.cu — the ladder's warp-specialised step on its native hardware (Blackwell,
 * sm_100a): accumulators in tensor memory. One CTA per 128 x 256 tile of D, four 48 KB stages.
 *   warp 0, one thread: TMA loads of A (128 x 64) and B (256 x 64) into a stage, on its `full`
 *     mbarrier (expect_tx 48 KB), after its `empty` mbarrier;
 *   warp 1: allocates 256 TMEM columns (tcgen05.alloc), then one thread issues per stage four
 *     tcgen05.mma .kind::f16 M128 N256 K16 (the 128 x 256 fp32 accumulator lives in TMEM: lane =
 *     row, column = column) and tcgen05.commit to the stage's `empty` barrier (the stage is free
 *     once those MMAs completed); after the last stage a commit to the accumulator barrier;
 *   warps 2-5 (the epilogue): wait for the accumulator, each reads the 32 TMEM lanes its warp
 *     may access (32 (warp % 4) ..) with tcgen05.ld 32x32b.x32 (a row's 32 columns per load),
 *     converts to bf16 and stores; then warp 1 frees the TMEM.
 * The descriptors: src/sm100/tcgen05_desc.h (CPU-tested against the PTX ISA tables); the PTX
 * wrappers: src/ptx/tcgen05.cuh. NOT YET RUN: the project has no Blackwell GPU; the program
 * checks itself against float64 (ladder.cuh) wherever it runs. Build: `make ladder` builds it
 * for sm_100a; run on a B200: build/ladder/sm100_step07_tcgen05.
 */
#include "ladder_sm100.cuh"

#define BM 128
#define BN 256
#define STAGES 4
#define A_BYTES (BM * 128)
#define B_BYTES (BN * 128)
#define STAGE_BYTES (A_BYTES + B_BYTES)
#define TMEM_COLS 256
#define SMEM_BYTES (STAGES * STAGE_BYTES + 8 * (2 * STAGES + 1) + 16 + 1024)

__global__ void __launch_bounds__(192, 1) sm100_step07_kernel(const __grid_constant__ CUtensorMap ta,
                                                              const __grid_constant__ CUtensorMap tb, bf16 *D,
                                                              int M, int N, int K)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
    const uint32_t base = lad_smem_base();
    const uint32_t full = base + STAGES * STAGE_BYTES, empty = full + 8 * STAGES, accum = empty + 8 * STAGES;
    const uint32_t tslot = accum + 8;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int tm = blockIdx.y, tn = blockIdx.x, KB = K / LAD_BK;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            ptx_mbarrier_init(full + 8 * s, 1);
            ptx_mbarrier_init(empty + 8 * s, 1);
        }
        ptx_mbarrier_init(accum, 1);
        ptx_fence_mbarrier_init_release_cluster();
    }
    const uint32_t tmem = lad100_tmem_setup(tslot, TMEM_COLS);

    if (warp == 0) {
        if (lane == 0) {
            for (int kb = 0; kb < KB; kb++) {
                const int s = kb % STAGES;
                ptx_mbarrier_wait_parity(empty + 8 * s, ((kb / STAGES) & 1) ^ 1);
                ptx_mbarrier_arrive_expect_tx(full + 8 * s, STAGE_BYTES);
                const uint32_t a_st = base + s * STAGE_BYTES;
                ptx_cp_async_bulk_tensor_2d_tile(a_st, &ta, full + 8 * s, kb * LAD_BK, tm * BM);
                ptx_cp_async_bulk_tensor_2d_tile(a_st + A_BYTES, &tb, full + 8 * s, kb * LAD_BK, tn * BN);
            }
        }
    } else if (warp == 1) {
        if (lane == 0) {
            const uint32_t idesc = igemm_tcgen05_idesc_f16(BM, BN, 1, 1, 0, 0, 1);
            for (int kb = 0; kb < KB; kb++) {
                const int s = kb % STAGES;
                const uint32_t a_st = base + s * STAGE_BYTES;
                lad100_mma_kblock(tmem, a_st, a_st + A_BYTES, idesc, full + 8 * s, (kb / STAGES) & 1, empty + 8 * s,
                                  kb == 0);
            }
            ptx_tcgen05_commit_cta_group_1(accum); /* the accumulator is complete */
        }
    } else {
        /* the epilogue: warp w reads TMEM lanes 32 (w % 4) .. + 31, i.e. those rows of the tile */
        ptx_mbarrier_wait_parity(accum, 0);
        ptx_tcgen05_fence_after_thread_sync();
        const int q = warp % 4;
        const int64_t row = (int64_t)tm * BM + 32 * q + lane;
        lad100_store_rows<BN>(tmem, q, 0u, D + row * N + (int64_t)tn * BN);
    }
    lad100_tmem_release(tmem, TMEM_COLS);
#endif
}

static void launch(const lad_problem_t *p, cudaStream_t s)
{
    lad100_launch<BM, BN>(sm100_step07_kernel, 192, SMEM_BYTES, p, s);
}

int main(int argc, char **argv)
{
    const lad_cfg_t cfg = {7, "sm100: tcgen05 MMA into TMEM", 0, 0, 0, BM, BN, BM, BN, launch, 10};
    return lad_main(&cfg, argc, argv);
}
