/*
 * heuristics_grouped.c — grouped convs (groups > 1) on the sm90 cooperative kernel: whether it
 * takes a grouped problem and its plan (plain C, CPU-tested like heuristics.c). The tile and its
 * form (slabs of several groups per k-block, or tiles inside one group) are sm90.h
 * sm90_group_tile's; here: the hints it honours, the ring and staging boxes that fit, the grid,
 * programmatic dependent launch and the description. The kernel is conv_cooperative.cuh with
 * GW > 0 (docs/decisions.md "sm90-grouped"): 128-pixel tiles, two consumer warpgroups, y by TMA
 * stores, the fused residual through the operand ring.
 */
#include <stdio.h>
#include <string.h>

#include "heuristics_rules.h"
#include "heuristics_smem.h"
#include "sm90.h"

#define GRP_WHY(...)                                                                                   \
    do {                                                                                               \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                       \
    } while (0)

int sm90_grouped_supports(const igemm_conv_params_t *p, const igemm_plan_hints_t *h, char *why, size_t why_len)
{
    int bn, gw, boxes;
    if (!sm90_group_tile(p, &bn, &gw, &boxes)) {
        GRP_WHY("groups = %lld, c/g = %lld, k/g = %lld: the TMA im2col path takes groups of c/g = 32 with k/g = 32 "
                "or 64 (slabs of two groups), or k/g a multiple of 64 (c/g a multiple of 8)",
                (long long)p->groups, (long long)p->cg, (long long)p->kg);
        return 0;
    }
    if (!sm90_tma_store_ok(p, 1)) {
        GRP_WHY("groups = %lld: the grouped TMA im2col tiles store y by TMA (y of the input's dtype, k %% 8 == 0); "
                "y dtype %d, k = %lld", (long long)p->groups, (int)p->out_dtype, (long long)p->k);
        return 0;
    }
    if (h->kernel != IGEMM_KERNEL_AUTO && h->kernel != IGEMM_KERNEL_COOPERATIVE) {
        GRP_WHY("groups = %lld: the grouped TMA im2col tiles are cooperative (hints.kernel = %d)", (long long)p->groups,
                h->kernel);
        return 0;
    }
    if ((h->tile_m && h->tile_m != 128) || (h->tile_n && h->tile_n != bn) || (h->consumers && h->consumers != 2) ||
        h->split_k > 1 || h->filter_resident == 1 || h->rows_per_tile || h->staging_boxes) {
        GRP_WHY("groups = %lld: the grouped tile is 128 x %d with 2 consumers, no split, no resident filter, its own "
                "staging boxes (hints tile %dx%d, consumers %d, split_k %d, filter_resident %d, rows_per_tile %d, "
                "staging_boxes %d)",
                (long long)p->groups, bn, h->tile_m, h->tile_n, h->consumers, h->split_k, h->filter_resident,
                h->rows_per_tile, h->staging_boxes);
        return 0;
    }
    return 1;
}

igemm_status_t sm90_grouped_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                      const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    sm90_plan_t *pl = igemm_family_priv(cfg, sm90_plan_t);
    int bn, gw, boxes;
    if (!sm90_grouped_supports(p, h, NULL, 0) || !sm90_group_tile(p, &bn, &gw, &boxes))
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 grouped configure: unsupported problem");
    const int bm = 128, wm = 1, nc = 2;
    const int sms = dev->sm_count > 0 ? dev->sm_count : 132;
    const int64_t k_iters = p->r * p->s * ((p->cg + SM90_BK - 1) / SM90_BK);
    const int64_t tiles = ((p->gemm_m + bm - 1) / bm) * ((p->k + bn - 1) / bn);
    const int es = sm90_h_epi_slots(bm, wm, bn, nc, 0, (int)k_iters, tiles <= sms, 0, dev->smem_optin_per_block);
    int stages = sm90_h_stages_for(bm, bn, nc, es, dev->smem_optin_per_block);
    if (stages < 2)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED, "sm90 grouped configure: no 2-stage ring of 128x%d fits %d B",
                               bn, dev->smem_optin_per_block);
    if (h->stages >= 2 && h->stages < stages) stages = h->stages;
    int64_t grid = tiles < sms ? tiles : sms;
    if (h->grid >= 1 && h->grid < grid) grid = h->grid;

    memset(pl, 0, sizeof *pl);
    pl->kernel = IGEMM_KERNEL_COOPERATIVE;
    pl->bm = bm;
    pl->bn = bn;
    pl->wm = wm;
    pl->stages = stages;
    pl->threads = SM90_THREADS(nc);
    pl->consumers = nc;
    pl->split_k = 1;
    pl->epi_slots = es;
    pl->res_mode = p->has_residual ? 2 : 0;
    pl->cluster = 1;
    pl->grid = (int)grid;
    pl->gw = gw;
    pl->g_boxes = boxes;
    const char *pdl_why;
    pl->pdl = sm90_pdl_pick(dev, h, grid, sms, 1, &pdl_why); /* the conv planner's rule */
    pl->smem_bytes = sm90_h_smem_bytes(bm, bn, nc, stages, es, 0, 0);
    pl->smem_limit = dev->smem_optin_per_block;
    cfg->workspace_bytes = 0;
    char form[160];
    if (boxes > 1)
        snprintf(form, sizeof form,
                 "slabs of %d groups per tile (one filter box per group, a block-diagonal B; wgmma m64n%dk16 per "
                 "window of %d output channels)",
                 boxes, gw, gw);
    else
        snprintf(form, sizeof form, "each tile inside one group (%lld k-blocks of its %lld channels per tap)",
                 (long long)((p->cg + SM90_BK - 1) / SM90_BK), (long long)p->cg);
    snprintf(cfg->desc, sizeof cfg->desc,
             "%s + wgmma, grouped: %lld groups of %lld -> %lld channels, %s, tile %dx%dx%d, %d stages, 1 "
             "producer + 2 consumer warpgroups (64 rows each), %d staging boxes%s, y by TMA stores, no cluster, grid "
             "%d over %lld tiles, %zu B smem%s",
             sm90_a_is_matrix(p) ? "TMA tiles (x as the A matrix)" : "TMA im2col", (long long)p->groups,
             (long long)p->cg, (long long)p->kg, form, bm, bn, SM90_BK, stages, es,
             pl->res_mode ? ", residual via operand ring" : "", pl->grid, (long long)tiles, pl->smem_bytes,
             pdl_why);
    return IGEMM_STATUS_SUCCESS;
}
