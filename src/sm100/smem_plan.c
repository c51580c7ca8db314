/*
 * smem_plan.c — the Blackwell kernel's shared-memory plan and counts (smem_plan.h): plain C, no
 * CUDA, tested on the CPU (tests/test_sm100.c).
 */
#include "smem_plan.h"

#include <stdio.h>
#include <string.h>

#define WHY(...)                                                                                       \
    do {                                                                                               \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                       \
    } while (0)

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

int igemm_sm100_plan(const sm100_config_t *c, sm100_plan_t *p, char *why, size_t why_len)
{
    memset(p, 0, sizeof *p);
    if (c->cta_group != 1 && c->cta_group != 2) {
        WHY("cta_group = %d: 1 or 2", c->cta_group);
        return 0;
    }
    if (c->mma_m != c->cta_group * c->bm) {
        WHY("mma_m = %d: must be cta_group x bm = %d", c->mma_m, c->cta_group * c->bm);
        return 0;
    }
    if (c->cta_group == 2 && c->cluster_m % 2 != 0) {
        WHY("cta_group 2 needs an even cluster_m (CTA pairs), got %d", c->cluster_m);
        return 0;
    }
    if (c->bk * c->in_bytes != 128) {
        WHY("bk = %d of %d-byte elements: tiles are rows of 128 bytes (the 128-byte swizzle)", c->bk, c->in_bytes);
        return 0;
    }
    if (c->k_group < 1 || c->stages < 1 || c->stages % c->k_group != 0) {
        WHY("stages = %d, k_group = %d: k_group must divide stages", c->stages, c->k_group);
        return 0;
    }
    if (c->out_n <= 0 || c->mma_n % c->out_n != 0 || c->out_m <= 0) {
        WHY("output tile %d x %d: out_n must divide mma_n = %d", c->out_m, c->out_n, c->mma_n);
        return 0;
    }
    if (c->accum_stages < 1 || c->clc_stages < 1 || c->out_stages < 1) {
        WHY("accum_stages %d, clc_stages %d, out_stages %d: each >= 1", c->accum_stages, c->clc_stages,
            c->out_stages);
        return 0;
    }
    /* TMEM: the accumulator of one stage is mma_n fp32 columns in each CTA (128 lanes) */
    p->tmem_stage_cols = SM100_TMEM_COLS / c->accum_stages;
    p->tmem_cols = c->accum_stages * c->mma_n;
    if (p->tmem_cols > SM100_TMEM_COLS || c->mma_n > p->tmem_stage_cols) {
        WHY("%d accumulator stages of %d columns: TMEM has %d", c->accum_stages, c->mma_n, SM100_TMEM_COLS);
        return 0;
    }
    p->threads = SM100_THREADS;
    p->group_stages = c->stages / c->k_group;
    p->epi_load_stages = c->has_source ? c->mma_n / c->out_n : 0;

    p->a_stage_bytes = (size_t)c->bm * c->bk * c->in_bytes;
    p->b_stage_bytes = (size_t)c->bn * c->bk * c->in_bytes;
    p->out_tile_bytes = (size_t)c->out_m * c->out_n * c->out_bytes;
    size_t off = 0;
    p->a_off = off;
    off = align_up(off + (size_t)c->stages * p->a_stage_bytes, 1024);
    p->b_off = off;
    off = align_up(off + (size_t)c->stages * p->b_stage_bytes, 1024);
    p->out_off = off;
    off = align_up(off + (size_t)c->out_stages * p->out_tile_bytes, 1024);
    p->src_off = off;
    off += (size_t)p->epi_load_stages * p->out_tile_bytes;
    p->bar_off = off = align_up(off, 8);
    p->barriers = 2 * p->group_stages + 2 * c->accum_stages + 2 * c->clc_stages /* throttle */ +
                  2 * c->clc_stages /* full, empty */ + 1 /* TMEM dealloc */ + 2 * p->epi_load_stages +
                  1 /* load order */;
    off += (size_t)p->barriers * 8;
    p->clc_resp_off = off = align_up(off, 16);
    off += (size_t)c->clc_stages * 16;
    p->tmem_addr_off = off = align_up(off, 4);
    off += 4;
    p->total = off;

    /* arrival counts */
    const int cluster = c->cluster_m * c->cluster_n;
    p->input_producer_arv = 1;  /* the load warp's elected thread: arrive.expect_tx */
    p->input_consumer_arv = 1;  /* the MMA warp's tcgen05.commit */
    p->accum_producer_arv = 1;  /* tcgen05.commit of the tile's last MMA */
    p->accum_consumer_arv = c->cta_group * SM100_EPILOGUE_THREADS;
    p->clc_producer_arv = 1;
    p->clc_consumer_arv = SM100_SCHEDULER_THREADS +
                          cluster * (SM100_TMA_LOAD_THREADS + SM100_MMA_THREADS + SM100_EPILOGUE_LOAD_THREADS +
                                     SM100_EPILOGUE_THREADS);
    p->clc_throttle_producer_arv = SM100_TMA_LOAD_THREADS;
    p->clc_throttle_consumer_arv = SM100_SCHEDULER_THREADS;
    p->epi_load_producer_arv = 1;
    p->epi_load_consumer_arv = SM100_EPILOGUE_THREADS;
    p->acc_empty_kernel_arv = c->cta_group * (SM100_EPILOGUE_THREADS / SM100_WARP);
    p->clc_empty_kernel_arv = 1 + 1 + cluster * (1 + SM100_EPILOGUE_THREADS / SM100_WARP + 1);
    /* TMA bytes per input barrier phase: both CTAs' A and B of a pair land on the leader's
     * barrier under cta_group 2, k_group stages per phase */
    p->act_bytes = (uint32_t)p->a_stage_bytes;
    p->filter_bytes = (uint32_t)p->b_stage_bytes;
    p->input_expected_bytes = (uint32_t)(c->cta_group * (p->act_bytes + p->filter_bytes) * c->k_group);
    p->src_expected_bytes = (uint32_t)p->out_tile_bytes;

    if (p->total + 1024 > SM100_SMEM_BUDGET) {
        WHY("%zu bytes of shared memory (+1 KB to align the base): over the %d-byte budget", p->total,
            SM100_SMEM_BUDGET);
        return 0;
    }
    return 1;
}

int igemm_sm100_max_stages(const sm100_config_t *cfg)
{
    sm100_config_t c = *cfg;
    sm100_plan_t p;
    int best = 0;
    for (int s = c.k_group; s <= 16; s += c.k_group) {
        c.stages = s;
        if (igemm_sm100_plan(&c, &p, NULL, 0)) best = s;
    }
    return best;
}
