/*
 * heuristics_rules.c — the sm90 conv planner's rules: after the cost-model search over the row
 * tiles (heuristics.c), each replaces the pick where measurements said so — wide tiles, ping-pong,
 * pixels as N, pixels as N in ping-pong, halo rows, split in cluster, narrow whole-K row tiles and
 * pixels as N with split-K in a cluster (few-row problems), the resident filter; and the
 * programmatic-dependent-launch rule, shared by the conv and the grouped planners
 * (heuristics.c, heuristics_grouped.c). Each rule's comment names its measurement in
 * docs/decisions.md. Plain C, no CUDA: tests/test_heuristics.c runs them on the CPU.
 */
#include "heuristics_rules.h"
#include "heuristics_smem.h"

/* 128 x 256 in place of 256 x 128 (the same tile count and operand bytes per MMA, but m64n256k16
 * steps: 10 KB of shared-memory reads per 128 tensor-core cycles instead of 12 KB) on layers of
 * N % 256 == 0 with mainloops of 16 to 48 k-blocks. docs/decisions.md "wide-tiles" (S8-1, S9-1:
 * vgg_3x3_256 and sd_vae_3x3_256 1.5-3.8% faster; sd_vae_3x3_512, 72 k-blocks, not). */
void sm90_rule_wide(const ctx_t *c, pick_t *best)
{
    if (c->tile_forced || best->wm != 2 || best->bn != 128 || best->nc != 2 || best->pp || best->split != 1 ||
        c->N % 256 != 0 || c->k_iters < 16 || c->k_iters > 48)
        return;
    const int res_ring = sm90_tma_store_ok(c->p, 1) && c->p->has_residual ? 2 : 0;
    const int64_t units = ((c->M + 127) / 128) * (c->N / 256);
    const int es = sm90_h_epi_slots(128, 1, 256, 2, res_ring == 1, c->k_iters, units <= c->sms, c->h->staging_boxes, c->smem);
    const int stages = sm90_h_stages_for(128, 256, 2, es, c->smem);
    if (stages >= 4) {
        best->wm = 1;
        best->bn = 256;
        best->es = es;
        best->stages = stages;
    }
}

/* Ping-pong (each consumer a whole 128-row tile, mainloops in turn, one consumer's epilogue under
 * the other's mainloop) in place of a 2-consumer plan of BN <= 128 on layers of mainloops of at
 * most 18 k-blocks and 4+ ping-pong tiles per CTA: 1-15% faster there, plain and fused; it lost on
 * one-wave layers, 256-row one-k-block tiles and the 36-72 k-block mainloops. docs/decisions.md
 * "pingpong" (S5-4, S5-5, S6-1, S6-9). 128 x 128 tiles with a residual and 16+ k-blocks: 3 slots
 * per consumer (a 5th operand stage) instead of the tile's 4 boxes + 1 (S9-2, S9-8). */
void sm90_rule_pingpong(const ctx_t *c, pick_t *best)
{
    const igemm_plan_hints_t *h = c->h;
    if (best->pp || !c->pp_ok || best->split != 1 || best->nc != 2 || best->bn > 128 || (best->wm == 2 && c->k_iters < 2) ||
        c->k_iters > 18 || h->kernel == IGEMM_KERNEL_COOPERATIVE || (h->tile_m && h->tile_m != 128) ||
        ((c->M + 127) / 128) * ((c->N + best->bn - 1) / best->bn) < 4 * (int64_t)c->sms)
        return;
    int es = sm90_h_epi_slots(128, 2, best->bn, 2, c->p->has_residual, c->k_iters, 0, h->staging_boxes, c->smem);
    if (c->p->has_residual && !h->staging_boxes && best->bn == 128 && c->k_iters >= 16) es = 3;
    const int stages = sm90_h_stages_for(128, best->bn, 2, es, c->smem);
    if (stages >= 2) {
        best->pp = 1;
        best->wm = 2;
        best->es = es;
        best->stages = stages;
    }
}

/* The whole-N ping-pong tile (64 x BN, filter resident; sm90.h sm90_whole_n_bn: BN = 128 for
 * ragged N of 65-128 channels, 256 for 129-256) for short-K layers without a residual: over a
 * mainloop of one or two k-blocks the 64- and 128-channel tiles read each pixel tile once per
 * N-tile and spend a whole N-tile on the ragged last one (N = 144: three 64-channel N-tiles, the
 * last of 16); one whole-N tile reads it once, computes only the 64-column chunks that start
 * inside N, and the TMA store clips the last. Measured (docs/decisions.md "whole-n-tiles", H100,
 * plain, against the plans before): 100352 x 144 x 24 1.22-1.24x, 25088 x 240 x 40 1.07x,
 * 401408 x 96 x 16 and 100352 x 96 x 16 1.10x / 1.06x (against the narrow memory family's wide
 * kernel, which defers to this tile), 25088 x 120 x 40 1.02x; 0.98x on 102400 x 80 x 64 and 0.95x
 * on 25088 x 144 x 24. Where N is a multiple of 64 (no padded N-tile) 0.95-1.01x and with a fused
 * residual 0.85-1.04x (the staging ring of 64-row tiles; 6 boxes per consumer did not help): not
 * taken there. The filter's k_iters slots must fit beside 4+ stages. */
void sm90_rule_whole_n(const ctx_t *c, pick_t *best)
{
    const igemm_plan_hints_t *h = c->h;
    const int bn = sm90_whole_n_bn(c->p, c->sms);
    if (!bn || c->tile_forced || h->kernel != IGEMM_KERNEL_AUTO || h->filter_resident < 0 || best->split != 1) return;
    const int es = sm90_h_epi_slots(64, 1, bn, 2, 0, c->k_iters, 0, h->staging_boxes, c->smem);
    const int stages = sm90_h_stages_fit(64, bn, 2, es, 0, c->k_iters, c->smem);
    if (stages < 4) return;
    *best = mkpick(1, bn, 2, 1, stages, es, 1, 0);
}

/* Pixels as N: a tile of TP output pixels x 128 channels, each consumer's 64 filter rows as wgmma A
 * and the TP pixel rows as wgmma B (N = TP), so one-wave plans whose 64-multiple tiles leave SMs
 * idle get exact waves (M = 6272: 132 CTAs of 96 x 128 where 128 x 128 gave 98). TMA stores, no
 * split, a residual through the operand ring only; N % 128 == 0. Modelled like the other tiles
 * (eff 0.75 / 0.8 / 1.0 for TP = 80 / 96 / 208) and taken when that beats the best plan.
 * docs/decisions.md "pixels-as-n" (S6-5). Returns 1 if taken. */
int sm90_rule_pixels_n(const ctx_t *c, pick_t *best, double *best_t)
{
    static const int tps[3] = {80, 96, 208};
    static const double tp_eff[3] = {0.75, 0.8, 1.0};
    const igemm_plan_hints_t *h = c->h;
    const int forced = h->kernel == IGEMM_KERNEL_PIXELS_N;
    if (!c->pp_ok || (!forced && (h->kernel || c->tile_forced))) return 0;
    if (forced && ((h->tile_n && h->tile_n != 128) || h->split_k > 1)) return 0; /* split: rule_pixels_n_split */
    int taken = 0;
    for (int ti = 0; ti < 3; ti++) {
        const int tp = tps[ti];
        if (forced && h->tile_m && tp != h->tile_m) continue;
        const int64_t units = ((c->M + tp - 1) / tp) * ((c->N + 127) / 128);
        /* one tile per CTA: one staging box per consumer (no store to overlap) */
        const int es = h->staging_boxes == 1 || h->staging_boxes == 2 ? h->staging_boxes
                       : units <= c->sms && !h->grid                ? 1
                                                                     : 2;
        const int stages = sm90_h_stages_fit(tp, 128, 2, es, 1, 0, c->smem);
        if (stages < 2) continue;
        if (!forced && (c->N % 128 != 0 || units > c->sms || stages < 4)) continue;
        const double t_kb = 128.0 * tp * SM90_BK * 2.0 / (7.0e6 * tp_eff[ti]);
        const double t = t_kb * (double)c->k_iters + 0.2 + 128.0 * tp * c->out_size / 12.5e3;
        if ((!forced || taken) && t >= *best_t) continue;
        *best_t = t;
        *best = mkpick(1, 128, 2, 1, stages, es, 0, tp);
        taken = 1;
    }
    return taken;
}

/* Pixels as N with split-K (the pixels_n_sk instances: TP = 32 or 64 pixels x 128 or 64 channels, a
 * cluster of `split` CTAs per tile, each a k-range, the partial tiles summed through distributed
 * shared memory: core/cluster_sum.cuh) for problems of at most 128 output rows and 32+ k-blocks
 * (few-row GEMMs: decode steps, classifiers; batch-1 late layers): the row tiles of 128+ rows
 * leave half or more of their MMA idle there and few CTAs pull the whole filter. TP 32 for M <= 32,
 * else 64 (TP 128 measured slower than two rows of 64 on every shape: deleted). The split: as
 * many as keep the units within half the SMs and 8+ k-blocks per unit, at most a cluster's 8 — more
 * splits measured slower on every shape of the sweep (then through a workspace and a reduce
 * kernel: docs/decisions.md "pixn-split", "pixn-cluster"); without a split of 2+ the rule does not
 * apply. Estimated per k-block as the larger of the MMA time (eff 0.5 / 0.7 for TP 32 / 64) and
 * the stage's bytes at 87 GB/s per SM, at least the operands' bytes at 3 TB/s, + 0.2 us and 0.6 us
 * for the exchange (the estimate is only reported). The 64-channel form (two consumers sharing
 * the channels, half of each k-block each: decisions.md "pixn64") may take the units up to the SMs
 * and wins the estimate where its split is 2+ (half the bytes per CTA). kernel=pixels_n with
 * split_k >= 2 forces it (tile_m picks TP, tile_n the channels). Returns 1 if taken. */
int sm90_rule_pixels_n_split(const ctx_t *c, pick_t *best, double *best_t)
{
    const igemm_plan_hints_t *h = c->h;
    const int forced = h->kernel == IGEMM_KERNEL_PIXELS_N && h->split_k > 1;
    if (!forced && (h->kernel || c->tile_forced || c->M > 128 || c->k_iters < 32)) return 0;
    if (forced && ((h->tile_n && h->tile_n != 128 && h->tile_n != 64) ||
                   (h->tile_m && h->tile_m != 32 && h->tile_m != 64)))
        return 0;
    const int tp = forced && h->tile_m ? h->tile_m : c->M <= 32 ? 32 : 64;
    const double in_bytes = 2.0 * (double)SM90_BK * (double)c->k_iters * (double)(c->M + c->N);
    int found = 0;
    double best_cta = 0.0;
    for (int bn = 128; bn >= 64; bn -= 64) {
        if (forced && h->tile_n && bn != h->tile_n) continue;
        const int64_t tiles = ((c->M + tp - 1) / tp) * ((c->N + bn - 1) / bn);
        /* 128 channels: the units within half the SMs; 64 channels: within the SMs in clusters of
         * 2 (the point of the form: twice the CTAs, each half the bytes), within half of them in
         * clusters of 4+ (a one-CTA-per-SM grid of 4-CTA clusters over ~all SMs does not fit at
         * once: dev/probes/cluster_spread.cu, 128 CTAs in clusters of 4 stream at 2/3 the rate) */
        int64_t split = forced ? h->split_k : (bn == 128 ? c->sms / 2 : c->sms) / tiles;
        if (!forced && bn == 64 && split >= 4) split = (c->sms / 2) / tiles;
        if (!forced) {
            if (split > c->k_iters / 8) split = c->k_iters / 8;
            if (split > SM90_MAX_CLUSTER) split = SM90_MAX_CLUSTER;
        }
        if (split < 2 || split > c->k_iters || split > SM90_MAX_CLUSTER || h->grid || tiles * split > INT32_MAX / 2)
            continue;
        /* two staging boxes per consumer: its partial tile for the cluster (TP x 256 B) */
        const int stages = sm90_h_stages_fit(tp, bn, 2, 2, 1, 0, c->smem);
        if (stages < 2) continue;
        const double t_mma = (double)bn * tp * SM90_BK * 2.0 / (7.0e6 * (tp == 32 ? 0.5 : 0.7));
        const double t_ld = (double)(tp + bn) * SM90_BK * 2.0 / 8.7e4;
        const double t_cta = (double)((c->k_iters + split - 1) / split) * (t_mma > t_ld ? t_mma : t_ld);
        const double t = (t_cta > in_bytes / 3.0e6 ? t_cta : in_bytes / 3.0e6) + 0.2 + 0.6;
        /* at the bytes floor both forms tie: the one with less per CTA */
        if (!found || t < *best_t - 1e-9 || (t < *best_t + 1e-9 && t_cta < best_cta)) {
            *best = mkpick(1, bn, 2, (int)split, stages, 2, 0, tp);
            *best_t = t;
            best_cta = t_cta;
            found = 1;
        }
    }
    return found;
}

/* Narrow row tiles for few-row GEMMs: BM x 32 cooperative tiles over the whole K, one per CTA, y
 * by direct stores — 64 x 32 with one consumer warpgroup for M <= 64, else 128 x 32 with two (an A
 * box cut to M's rows where M < BM) — and up to 16 stages of 12 or 20 KB. No split, so none of the
 * split plans' partial-tile exchange (~2.5 us through distributed shared memory: docs/decisions.md
 * "pixn-phases") or cluster set-up. For 32 < M <= 128, 32 to 128 k-blocks and N / 32 tiles that
 * fill 3/4 to all of the SMs in one wave (decode steps: 64 x 4096 x 4096 gets 128 CTAs, each 256 KB
 * of the filter and the 64 rows of x from L2, as cuBLASLt's 64x32 tiles). Measured against the
 * split plans (docs/decisions.md "narrow-rows", H200): 5-12% faster at 32-64 k-blocks (M = 64 and
 * 96), even at M = 128 and 128 k-blocks; 2-5% slower at 172-224 k-blocks (where the split plans'
 * fixed costs are amortised) and at M = 32 (the 32-pixel split tile): hence the windows. The
 * one-consumer 64 x 32 tile with a fused epilogue (bias + ReLU) measured 2-9% slower than the split
 * plan (not understood: no spill, the EPI 2 instance 70 registers against 56): with M <= 64 the rule
 * takes plain epilogues only. Estimated (reported only) as 2.1 us per `stages` k-blocks, at least
 * the operands at 3 TB/s, + 2 us. Returns 1 if taken. */
int sm90_rule_narrow_rows(const ctx_t *c, pick_t *best, double *best_t)
{
    const igemm_plan_hints_t *h = c->h;
    const int bm = c->M <= 64 ? 64 : 128;
    const int64_t tiles = (c->M + bm - 1) / bm * ((c->N + 31) / 32);
    if (h->kernel || c->tile_forced || h->grid || c->M <= 32 || c->M > 128 || c->k_iters < 32 || c->k_iters > 128 ||
        tiles > c->sms || 4 * tiles < 3 * (int64_t)c->sms || (bm == 64 && sm90_general_epilogue(c->p)))
        return 0;
    const int stages = sm90_h_narrow_stages(bm, c->smem);
    if (stages < 4) return 0;
    const double in_bytes = 2.0 * (double)SM90_BK * (double)c->k_iters * (double)(c->M + c->N);
    const double t_cta = (double)c->k_iters * 2.1 / (double)stages; /* a stage per 2.1 / stages us */
    *best_t = (t_cta > in_bytes / 3.0e6 ? t_cta : in_bytes / 3.0e6) + 2.0;
    *best = mkpick(1, 32, bm / 64, 1, stages, 0, 0, 0);
    return 1;
}

/* Pixels as N in ping-pong plans of 64 channels (N <= 64): a tile of 128 pixels x 64 channels per
 * consumer, one m64n128k16 per k16 step (the 64 filter rows as wgmma A) instead of two m64n64k16:
 * 6 KB of shared-memory operand reads per 64 tensor-core cycles instead of 8 KB. For ping-pong
 * 128 x 64 plans with mainloops of 8+ k-blocks. docs/decisions.md "pixels-n-pingpong" (S9-1:
 * vgg_3x3_64 -3.0% plain / -2.0% fused; TP = 256 2-8% slower, deleted). Returns 1 if taken. */
int sm90_rule_pixels_n_pingpong(const ctx_t *c, pick_t *best)
{
    const igemm_plan_hints_t *h = c->h;
    const int forced = h->kernel == IGEMM_KERNEL_PIXELS_N_PINGPONG || h->kernel == IGEMM_KERNEL_HALO_ROWS;
    if (!c->pp_ok || c->N > 64 || best->tp || (!forced && (h->kernel || c->tile_forced))) return 0;
    if (forced && ((h->tile_n && h->tile_n != 64) || (h->kernel == IGEMM_KERNEL_PIXELS_N_PINGPONG && h->tile_m &&
                                                      h->tile_m != 128)))
        return 0;
    if (!forced && !(best->pp && best->bn == 64 && best->split == 1 && c->k_iters >= 8)) return 0;
    const int stages = sm90_h_stages_fit(128, 64, 2, 1, 1, 0, c->smem);
    if (stages < (forced ? 2 : 4)) return 0;
    *best = mkpick(1, 64, 2, 1, stages, 1, 1, 128);
    return 1;
}

/* Halo rows, in place of that 128-pixel plan on 3x3, stride-1, undilated convs of 64 input channels
 * whose output rows split into tiles of TP = 112 (or else 56) pixels: each tile loads its 3 input
 * rows with a one-pixel halo instead of 9 im2col boxes, and the three taps of a filter row read the
 * same row shifted by 0, 1, 2 pixels. Where the output rows are 56 pixels and come in pairs, a tile
 * is two whole rows (112 pixels). Fused 112-pixel plans run three consumers taking the tiles in
 * turn. docs/decisions.md "halo-rows" (S14, S15-3, S16-3, S16-4). Returns the rows per tile (0: not
 * taken). */
int sm90_rule_halo(const ctx_t *c, pick_t *best)
{
    const igemm_conv_params_t *p = c->p;
    const igemm_plan_hints_t *h = c->h;
    const int forced = h->kernel == IGEMM_KERNEL_HALO_ROWS;
    const int shape = c->N <= 64 && p->r == 3 && p->s == 3 && p->stride_h == 1 && p->stride_w == 1 && p->dil_h == 1 &&
                      p->dil_w == 1 && p->c == SM90_BK && p->q % 56 == 0;
    const int ok = shape && best->tp == 128 && best->pp && best->bn == 64 &&
                   (forced || (h->filter_resident >= 0 && !h->kernel));
    if (!ok || h->rows_per_tile > 2) return 0;
    int rows = p->q == 56 && p->p % 2 == 0 && h->rows_per_tile != 1 && h->tile_m != 56 ? 2 : 1;
    if (h->rows_per_tile == 2 && rows != 2) return 0;
    int tp = rows == 2 || p->q % 112 == 0 ? 112 : 56; /* two rows, a row or half a row per tile */
    if (h->tile_m == 56 && rows == 1) tp = 56;
    else if (h->tile_m && h->tile_m != tp) return 0;
    const int fhn = h->consumers;
    const int nc = tp == 112 && (fhn == 3 || (fhn != 2 && p->has_residual)) ? 3 : 2;
    if (fhn && fhn != nc) return 0;
    const int fes = h->staging_boxes;
    const int es = fes >= 1 && fes <= 3 ? fes : p->has_residual && nc == 2 ? 2 : 1;
    const int many = forced || (c->M + tp - 1) / tp > c->sms; /* several tiles per CTA */
    const int st = many ? sm90_h_stages_fit(tp, 64, nc, es, 1 + rows, c->k_iters, c->smem) : 0;
    if (st < 4) return 0;
    *best = mkpick(1, 64, nc, 1, st, es, 1, tp);
    return rows;
}

/* Split in cluster: a 2-CTA cluster per 128 x 128 tile, each CTA running half of the tile's
 * k-blocks, the partial tiles exchanged through distributed shared memory, each CTA finishing 64
 * of the columns. For one-wave layers of few tiles (the r50_l4 layers: 104 CTAs of 128 x 64
 * otherwise). Modelled as a 128 x 128 tile (eff 0.8) over ceil(K/2) k-blocks + 0.6 us for the
 * exchange. docs/decisions.md "split-cluster" (S11-2, S12-3). Returns 1 if taken. */
int sm90_rule_split_cluster(const ctx_t *c, pick_t *best, double *best_t)
{
    const igemm_plan_hints_t *h = c->h;
    const int forced = h->kernel == IGEMM_KERNEL_SPLIT_CLUSTER;
    const int64_t tiles128 = ((c->M + 127) / 128) * ((c->N + 127) / 128);
    if (!forced && (h->kernel || c->tile_forced)) return 0;
    if (!c->pp_ok || c->k_iters < 2 || c->N <= 64 || 2 * tiles128 > c->sms || h->grid) return 0;
    const int es = c->p->has_residual ? 3 : 2; /* the receive buffer: 2 slots; + the residual's */
    const int stages = sm90_h_stages_for(128, 128, 2, es, c->smem);
    if (stages < 2) return 0;
    double eff = c->N % 128 != 0 ? 0.8 * 0.9 : 0.8;
    if (stages < 4) eff *= 0.9;
    const double t_kb = 128.0 * 128.0 * SM90_BK * 2.0 / (7.0e6 * eff);
    const double t = t_kb * (double)((c->k_iters + 1) / 2) + 0.2 + 0.6 + 64.0 * 128.0 * c->out_size / 12.5e3;
    if (!forced && !(c->k_iters >= 8 && t < *best_t)) return 0;
    *best = mkpick(1, 128, 2, 1, stages, es, 0, 0);
    *best_t = t;
    return 1;
}

/* Filter-resident ping-pong plans: the B part of the ring becomes k_iters slots, one per k-block,
 * loaded once: CTA c keeps N-tile c % tiles_n and walks M-tiles c / tiles_n + lap * (the N-tile's
 * CTAs), so the operand traffic from L2 of a 128 x BN tile drops by BN / (128 + BN). For ping-pong
 * plans of several tiles per CTA whose per-N-tile CTA counts take no more laps than the plain order
 * and whose filter slots leave 4 A stages; not on 1x1 stride-1 layers of one N-tile.
 * docs/decisions.md "filter-resident" (S7-2, S7-F, S8-1). Returns the stages, 0 if not taken. */
int sm90_rule_filter_resident(const ctx_t *c, const pick_t *best, int bm, int64_t units, int64_t max_ctas)
{
    const int fbr = c->h->filter_resident;
    const int64_t tiles_m = (c->M + bm - 1) / bm;
    const int64_t grid_u = units < max_ctas ? units : max_ctas;
    const int64_t tiles_n = (c->N + best->bn - 1) / best->bn;
    const int64_t per_n = grid_u / tiles_n; /* the fewest CTAs of an N-tile */
    const int balanced = per_n >= 1 && (tiles_m + per_n - 1) / per_n == (units + grid_u - 1) / grid_u;
    const int a_plain = sm90_a_is_matrix(c->p);
    if (fbr < 0 || !best->pp || best->split != 1 || units <= max_ctas || per_n < 1 ||
        !(fbr == 1 || (balanced && !(a_plain && tiles_n == 1))))
        return 0;
    const int s_br = sm90_h_stages_fit(bm, best->bn, best->nc, best->es, best->tp > 0, c->k_iters, c->smem);
    return s_br >= (fbr == 1 ? 2 : 4) ? s_br : 0;
}

int sm90_pdl_pick(const igemm_device_info_t *dev, const igemm_plan_hints_t *h, int64_t grid, int sms, int cluster,
                  const char **why)
{
    /* programmatic dependent launch: the kernel's launch and set-up overlap the end of the kernel
     * before it in the stream. For grids of at least 7/8 of the SMs, grids of at most 5/8 (the
     * kernel before leaves SMs free for this one's CTAs to start on: ResNet-50 batch 1 replay
     * 0.333 -> 0.307 ms) and the split-in-cluster plans; not in between, where 104-CTA grids were
     * slower with it (docs/decisions.md "pdl": S10-2, S12-3, pdl-small-grids); needs a driver that
     * captures it into graphs (12.3). */
    const int drv_ok = dev->driver_version >= 12030;
    const int64_t g8 = grid * 8, s8 = sms;
    const int grid_ok = h->pdl == 1 || g8 >= s8 * 7 || g8 <= s8 * 5 || cluster > 1;
    const int pdl = h->pdl >= 0 && grid_ok && drv_ok;
    *why = pdl            ? ", programmatic dependent launch"
           : h->pdl < 0   ? ", no programmatic dependent launch (hints.pdl = -1)"
           : !drv_ok      ? ", no programmatic dependent launch (driver older than CUDA 12.3)"
                          : ", no programmatic dependent launch (grid between 5/8 and 7/8 of the SMs)";
    return pdl;
}
