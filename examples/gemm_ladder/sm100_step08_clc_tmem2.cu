/*
 * sm100_step08_clc_tmem2.cu — the Blackwell ladder's next step after sm100_step07: the seeds'
 * scheduler warp and accumulator pipeline. The grid is still one CTA per 128 x 256 tile of D, but a
 * CTA that finishes its tile asks the hardware to cancel a CTA that has not started yet
 * (cluster launch control) and computes that one's tile instead: persistent CTAs that keep the
 * hardware's launch order, with no grid-size guess. Two TMEM accumulators (2 x 256 columns, the
 * whole TMEM) let the MMA warp start the next tile while the epilogue warps drain the last one.
 *   warp 0, one thread   TMA loads of A (128 x 64) and B (256 x 64) per k-block into a 4-stage ring
 *                        (full / empty mbarriers), tile after tile;
 *   warp 1               TMEM allocation (512 columns); one thread issues per k-block four
 *                        tcgen05.mma kind::f16 M128 N256 K16 into accumulator a = (tile count) % 2
 *                        after acc_empty[a], commits each stage to its empty barrier and the tile to
 *                        acc_full[a];
 *   warp 2, one thread   the scheduler: per tile, clusterlaunchcontrol.try_cancel into one of two
 *                        16-byte response slots (clc_full: expect_tx 16; clc_empty: every role
 *                        has read it), stopping after the first failed response;
 *   warps 3-6            the epilogue: acc_full[a], tcgen05.ld 32x32b.x32 of the 32 TMEM lanes the
 *                        warp may access (warp % 4), bf16 stores, tcgen05.fence::before_thread_sync
 *                        and one arrival per warp on acc_empty[a].
 * Every role walks the same tile sequence: its own tile, then the tile of each cancelled CTA, read
 * from the response slots in order (clc_full / clc_empty pipeline, 2 slots; arrivals on clc_empty:
 * producer, MMA and scheduler threads + the 4 epilogue warps).
 * NOT YET RUN: no Blackwell GPU; `make ladder` builds it for sm_100a (docs/sm100.md); it checks
 * itself against float64 (ladder.cuh) wherever it runs.
 */
#include "ladder_sm100.cuh"

#include "../../src/ptx/clc.cuh"

#define BM 128
#define BN 256
#define STAGES 4
#define A_BYTES (BM * 128)
#define B_BYTES (BN * 128)
#define STAGE_BYTES (A_BYTES + B_BYTES)
#define ACC 2                          /* TMEM accumulators */
#define TMEM_COLS (ACC * BN)           /* 512: the whole tensor memory */
#define CLC 2                          /* response slots */
#define CLC_READERS (3 + 4)            /* producer, MMA, scheduler threads; 4 epilogue warps */
#define THREADS (7 * 32)
/* ring, then barriers: full[S], empty[S], acc_full[2], acc_empty[2], clc_full[2], clc_empty[2],
 * the TMEM address slot (8 B), the CLC responses (16 B each, 16-byte aligned) */
#define BAR_BYTES (8 * (2 * STAGES + 2 * ACC + 2 * CLC) + 8)
#define SMEM_BYTES (STAGES * STAGE_BYTES + BAR_BYTES + 16 * CLC + 16 + 1024)

/* The next tile of every role: the response in slot `slot` (lap `phase`), read once complete; the
 * reader's arrival on clc_empty[slot] (lane 0 of a warp, or the one thread of a single-thread role:
 * `arrive`). Returns 0 when no CTA was cancelled (no more tiles). */
static __device__ __forceinline__ int sm100_next_tile(uint32_t clc_full, uint32_t clc_empty, uint32_t resp, int slot,
                                                      uint32_t phase, bool arrive, int *tm, int *tn)
{
    ptx_mbarrier_wait_parity(clc_full + 8 * slot, phase);
    uint32_t x, y, z;
    const uint32_t ok = ptx_clusterlaunchcontrol_query_cancel(resp + 16 * slot, &x, &y, &z);
    if (arrive) ptx_mbarrier_arrive(clc_empty + 8 * slot);
    *tn = (int)x, *tm = (int)y;
    return (int)ok;
}

__global__ void __launch_bounds__(THREADS, 1) sm100_step08_kernel(const __grid_constant__ CUtensorMap ta,
                                                                  const __grid_constant__ CUtensorMap tb, bf16 *D,
                                                                  int M, int N, int K)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
    const uint32_t base = lad_smem_base();
    const uint32_t full = base + STAGES * STAGE_BYTES, empty = full + 8 * STAGES;
    const uint32_t acc_full = empty + 8 * STAGES, acc_empty = acc_full + 8 * ACC;
    const uint32_t clc_full = acc_empty + 8 * ACC, clc_empty = clc_full + 8 * CLC;
    const uint32_t tslot = clc_empty + 8 * CLC;
    const uint32_t resp = (tslot + 8 + 15) & ~15u;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int KB = K / LAD_BK;
    (void)M;
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; s++) {
            ptx_mbarrier_init(full + 8 * s, 1);
            ptx_mbarrier_init(empty + 8 * s, 1);
        }
        for (int a = 0; a < ACC; a++) {
            ptx_mbarrier_init(acc_full + 8 * a, 1);  /* the MMA thread's commit */
            ptx_mbarrier_init(acc_empty + 8 * a, 4); /* lane 0 of each epilogue warp */
        }
        for (int c = 0; c < CLC; c++) {
            ptx_mbarrier_init(clc_full + 8 * c, 1); /* the scheduler's expect_tx + the response's bytes */
            ptx_mbarrier_init(clc_empty + 8 * c, CLC_READERS);
        }
        ptx_fence_mbarrier_init_release_cluster();
    }
    const uint32_t tmem = lad100_tmem_setup(tslot, TMEM_COLS);

    int tm = blockIdx.y, tn = blockIdx.x; /* this CTA's own tile first */
    if (warp == 0) {
        /* ---------------------------------------------------------------- TMA producer */
        if (lane == 0) {
            int j = 0; /* k-blocks issued so far (ring position) */
            for (int t = 0;; t++) {
                for (int kb = 0; kb < KB; kb++, j++) {
                    const int s = j % STAGES;
                    ptx_mbarrier_wait_parity(empty + 8 * s, ((j / STAGES) & 1) ^ 1);
                    ptx_mbarrier_arrive_expect_tx(full + 8 * s, STAGE_BYTES);
                    const uint32_t a_st = base + s * STAGE_BYTES;
                    ptx_cp_async_bulk_tensor_2d_tile(a_st, &ta, full + 8 * s, kb * LAD_BK, tm * BM);
                    ptx_cp_async_bulk_tensor_2d_tile(a_st + A_BYTES, &tb, full + 8 * s, kb * LAD_BK, tn * BN);
                }
                if (!sm100_next_tile(clc_full, clc_empty, resp, t % CLC, (uint32_t)(t / CLC) & 1u, true, &tm, &tn))
                    break;
            }
        }
    } else if (warp == 1) {
        /* ---------------------------------------------------------------- MMA issuer */
        if (lane == 0) {
            const uint32_t idesc = igemm_tcgen05_idesc_f16(BM, BN, 1, 1, 0, 0, 1);
            int j = 0;
            for (int t = 0;; t++) {
                const int a = t % ACC;
                ptx_mbarrier_wait_parity(acc_empty + 8 * a, ((t / ACC) & 1) ^ 1); /* drained by the epilogue */
                ptx_tcgen05_fence_after_thread_sync();
                const uint32_t d = tmem + (uint32_t)(a * BN); /* column offset of accumulator a */
                for (int kb = 0; kb < KB; kb++, j++) {
                    const int s = j % STAGES;
                    const uint32_t a_st = base + s * STAGE_BYTES;
                    lad100_mma_kblock(d, a_st, a_st + A_BYTES, idesc, full + 8 * s, (j / STAGES) & 1, empty + 8 * s,
                                      kb == 0);
                }
                ptx_tcgen05_commit_cta_group_1(acc_full + 8 * a); /* accumulator a is complete */
                if (!sm100_next_tile(clc_full, clc_empty, resp, t % CLC, (uint32_t)(t / CLC) & 1u, true, &tm, &tn))
                    break;
            }
        }
    } else if (warp == 2) {
        /* ---------------------------------------------------------------- scheduler (CLC) */
        if (lane == 0) {
            for (int t = 0;; t++) {
                const int c = t % CLC;
                ptx_mbarrier_wait_parity(clc_empty + 8 * c, ((t / CLC) & 1) ^ 1); /* every role read it */
                ptx_mbarrier_arrive_expect_tx(clc_full + 8 * c, 16);
                ptx_clusterlaunchcontrol_try_cancel(resp + 16 * c, clc_full + 8 * c);
                /* read it too: after a failed response no further request may be issued */
                if (!sm100_next_tile(clc_full, clc_empty, resp, c, (uint32_t)(t / CLC) & 1u, true, &tm, &tn)) break;
            }
        }
    } else {
        /* ---------------------------------------------------------------- epilogue, warps 3-6 */
        const int q = warp % 4; /* the TMEM lanes 32 q .. this warp may access: rows 32 q .. of the tile */
        for (int t = 0;; t++) {
            const int a = t % ACC;
            ptx_mbarrier_wait_parity(acc_full + 8 * a, (t / ACC) & 1);
            ptx_tcgen05_fence_after_thread_sync();
            const int64_t row = (int64_t)tm * BM + 32 * q + lane;
            lad100_store_rows<BN>(tmem, q, (uint32_t)(a * BN), D + row * N + (int64_t)tn * BN);
            /* every lane's TMEM reads are complete (wait::ld) before its warp releases the accumulator */
            ptx_tcgen05_fence_before_thread_sync();
            __syncwarp();
            if (lane == 0) ptx_mbarrier_arrive(acc_empty + 8 * a);
            if (!sm100_next_tile(clc_full, clc_empty, resp, t % CLC, (uint32_t)(t / CLC) & 1u, lane == 0, &tm, &tn))
                break;
        }
    }
    lad100_tmem_release(tmem, TMEM_COLS);
#endif
}

static void launch(const lad_problem_t *p, cudaStream_t s)
{
    lad100_launch<BM, BN>(sm100_step08_kernel, THREADS, SMEM_BYTES, p, s);
}

int main(int argc, char **argv)
{
    const lad_cfg_t cfg = {8, "sm100: CLC scheduler warp, two TMEM accumulators", 0, 0, 0, BM, BN, BM, BN, launch, 10};
    return lad_main(&cfg, argc, argv);
}
