/*
 * heuristics_rules.h — what the sm90 conv planner (heuristics.c: supports(), the cost-model search
 * over the row tiles, configure()) shares with its rules (heuristics_rules.c: the measured
 * replacements of the search's pick — wide tiles, ping-pong, whole-N ping-pong tiles, pixels as N with and without split-K,
 * pixels as N in ping-pong, halo rows, split in cluster, narrow whole-K row tiles, the resident
 * filter). Both use the shared-memory budget of heuristics_smem.h. Plain C, host only, private to src/sm90.
 */
#ifndef IGEMM_SM90_HEURISTICS_RULES_H
#define IGEMM_SM90_HEURISTICS_RULES_H

#include <stddef.h>
#include <stdint.h>

#include "sm90.h"

/* The planner's pick: WM, BN, consumer warpgroups, split, stages, epilogue slots per consumer,
 * ping-pong, and the pixels-as-N tile (TP pixels; 0 for the row tiles). */
typedef struct pick {
    int wm, bn, nc, split, stages, es, pp, tp;
} pick_t;

static inline pick_t mkpick(int wm, int bn, int nc, int split, int stages, int es, int pp, int tp)
{
    const pick_t k = {wm, bn, nc, split, stages, es, pp, tp};
    return k;
}

/* What configure() knows of the problem and the hints, shared by its rules. */
typedef struct ctx {
    const igemm_conv_params_t *p;
    const igemm_device_info_t *dev;
    const igemm_plan_hints_t *h;
    int64_t M, N;
    int k_iters, sms, smem;
    double out_size;
    int tile_forced; /* a tile, consumer or split hint: the row-tile kernels only */
    int pp_ok;       /* TMA stores of y (the ping-pong and pixels-as-N kernels need them) */
} ctx_t;

/* heuristics_rules.c: the rules, in the order configure() applies them (each documented at its
 * definition, with its measurement in docs/decisions.md). */
void sm90_rule_wide(const ctx_t *c, pick_t *best);
void sm90_rule_pingpong(const ctx_t *c, pick_t *best);
void sm90_rule_whole_n(const ctx_t *c, pick_t *best);
int sm90_rule_pixels_n(const ctx_t *c, pick_t *best, double *best_t);
int sm90_rule_pixels_n_pingpong(const ctx_t *c, pick_t *best);
int sm90_rule_halo(const ctx_t *c, pick_t *best);
int sm90_rule_split_cluster(const ctx_t *c, pick_t *best, double *best_t);
int sm90_rule_pixels_n_split(const ctx_t *c, pick_t *best, double *best_t);
int sm90_rule_narrow_rows(const ctx_t *c, pick_t *best, double *best_t);
int sm90_rule_filter_resident(const ctx_t *c, const pick_t *best, int bm, int64_t units, int64_t max_ctas);

/* heuristics_rules.c: programmatic dependent launch for a plan of `grid` CTAs (clusters of `cluster`)
 * on `sms` SMs under the hints: 1 or 0, *why the description's clause saying which and why. */
int sm90_pdl_pick(const igemm_device_info_t *dev, const igemm_plan_hints_t *h, int64_t grid, int sms, int cluster,
                  const char **why);

/* heuristics_grouped.c: grouped convs on the cooperative kernel (sm90.h sm90_group_tile). */
int sm90_grouped_supports(const igemm_conv_params_t *p, const igemm_plan_hints_t *h, char *why, size_t why_len);
igemm_status_t sm90_grouped_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                      const igemm_plan_hints_t *h, igemm_family_config_t *cfg);

#endif /* IGEMM_SM90_HEURISTICS_RULES_H */
