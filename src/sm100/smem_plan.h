/*
 * smem_plan.h — the shared-memory plan, barrier arrival counts, TMA byte counts and TMEM columns
 * of the Blackwell (sm_100a) conv / GEMM kernel of the seeds (../shared/seeds: Conv2dFpropKernel,
 * Conv2dSmem), computed on the host (smem_plan.c) so that the CPU tests can hold it against the
 * 227 KB budget and the seeds' formulas before any sm_100 hardware runs it.
 *
 * Warp roles (the seeds'): a scheduler warp (cluster launch control), a TMA load warp, an MMA
 * warp, an epilogue-load warp (the residual, "source C", through its own pipeline) and four
 * epilogue warps (TMEM -> registers -> shared memory -> TMA store): 256 threads.
 * Shared memory, in order, each region aligned as its users need (tiles on 1024 B: the 128-byte
 * swizzle's repeat; barriers on 8 B; CLC responses on 16 B):
 *   A tiles [stages][BM x BK], B tiles [stages][BN x BK], output tiles [out_stages][OM x ON],
 *   source tiles [epi_load_stages][OM x ON] (epi_load_stages = MMA_N / ON; only with a residual),
 *   barriers: input full/empty per barrier group (stages / k_group), accumulator full/empty per
 *   accumulator stage, CLC throttle full/empty, CLC full and CLC empty per CLC stage, the TMEM
 *   dealloc barrier, epilogue-load full/empty per stage, the load-order barrier; the CLC
 *   responses (16 B per CLC stage); the TMEM base address slot (4 B).
 */
#ifndef IGEMM_SM100_SMEM_PLAN_H
#define IGEMM_SM100_SMEM_PLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SM100_SMEM_BUDGET 232448 /* bytes of dynamic shared memory per block (227 KB opt-in) */
#define SM100_TMEM_COLS 512      /* 32-bit TMEM columns per SM (128 lanes each) */
#define SM100_WARP 32
#define SM100_SCHEDULER_THREADS SM100_WARP
#define SM100_TMA_LOAD_THREADS SM100_WARP
#define SM100_MMA_THREADS SM100_WARP
#define SM100_EPILOGUE_LOAD_THREADS SM100_WARP
#define SM100_EPILOGUE_THREADS (4 * SM100_WARP)
#define SM100_THREADS                                                                                     \
    (SM100_SCHEDULER_THREADS + SM100_TMA_LOAD_THREADS + SM100_MMA_THREADS + SM100_EPILOGUE_LOAD_THREADS + \
     SM100_EPILOGUE_THREADS)

typedef struct sm100_config {
    int bm, bn, bk;                /* this CTA's tile of A rows, B rows (output channels), K */
    int mma_m, mma_n;              /* the MMA (cta_group 2: mma_m = 2 bm over the CTA pair) */
    int cta_group;                 /* 1 or 2 */
    int cluster_m, cluster_n;      /* CTAs per cluster */
    int in_bytes, out_bytes;       /* element sizes of x/w and y */
    int out_m, out_n;              /* the epilogue's output tile */
    int stages, k_group;           /* ring stages; stages per input barrier (divides stages) */
    int out_stages, accum_stages, clc_stages;
    int has_source;                /* a residual: source tiles and the epilogue-load pipeline */
} sm100_config_t;

typedef struct sm100_plan {
    /* byte offsets from the (1024-aligned) base, and the total */
    size_t a_off, b_off, out_off, src_off, bar_off, clc_resp_off, tmem_addr_off, total;
    size_t a_stage_bytes, b_stage_bytes, out_tile_bytes;
    int group_stages;              /* stages / k_group */
    int epi_load_stages;           /* mma_n / out_n (0 without a residual) */
    int barriers;                  /* mbarriers in the plan */
    /* arrival counts (the seeds' formulas) */
    int input_producer_arv, input_consumer_arv;
    int accum_producer_arv, accum_consumer_arv;
    int clc_producer_arv, clc_consumer_arv;
    int clc_throttle_producer_arv, clc_throttle_consumer_arv;
    int epi_load_producer_arv, epi_load_consumer_arv;
    /* the library kernels' own arrival counts (per-warp arrivals where the seeds count threads):
     * acc_empty: lane 0 of each epilogue warp of each CTA of the MMA group (cta_group x 4, on the
     * leader's barrier); clc_empty: the scheduler and the MMA issuer (one each, in the leader) +
     * per CTA of the cluster its producer, 4 epilogue warps and epilogue-load warp (1 + 1 +
     * cluster x 6: 8 for one CTA, 14 for a pair) */
    int acc_empty_kernel_arv, clc_empty_kernel_arv;
    /* bytes each barrier phase expects from TMA */
    uint32_t act_bytes, filter_bytes, input_expected_bytes, src_expected_bytes;
    /* TMEM: columns per accumulator stage and in all */
    int tmem_stage_cols, tmem_cols;
    int threads;
} sm100_plan_t;

/* Computes the plan of cfg. Returns 1 if it is valid and fits SM100_SMEM_BUDGET (with 1 KB for
 * aligning the base) and the TMEM, else 0 with the reason in why (may be NULL). Pure. */
int igemm_sm100_plan(const sm100_config_t *cfg, sm100_plan_t *plan, char *why, size_t why_len);

/* The most ring stages (a multiple of cfg->k_group, at most 16) with which cfg fits; 0 if none. */
int igemm_sm100_max_stages(const sm100_config_t *cfg);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_SM100_SMEM_PLAN_H */
