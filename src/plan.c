/*
 * plan.c — the planner: problem -> kernel family + tile configuration.
 *
 * Families are tried in priority order (fastest first): sm90 (TMA im2col + wgmma, Hopper
 * only), sm90 fold (small c: taps folded into 64 channels, then the sm90 kernel), sm80 general (mma.sync, every valid shape on cc >= 8.0), direct (naive, any GPU).
 * Each family's supports() says whether it takes the problem and, if not, why; those reasons
 * go into igemm_plan_describe() so a user sees why the fast path was not taken.
 * A path forced through igemm_plan_options_t.path is tried alone.
 */
#include "plan.h"

#include <stdio.h>
#include <string.h>

#ifdef IGEMM_HAVE_CUDA
static const igemm_family_t *const k_families[] = {
    &igemm_family_sm90,
    &igemm_family_sm90_stem,
    &igemm_family_sm90_fold,
    &igemm_family_sm80,
    &igemm_family_direct,
};
#define N_FAMILIES ((int)(sizeof(k_families) / sizeof(k_families[0])))
#else
static const igemm_family_t *const *const k_families = NULL;
#define N_FAMILIES 0
#endif

static const char *path_name(igemm_path_t p)
{
    switch (p) {
    case IGEMM_PATH_AUTO: return "auto";
    case IGEMM_PATH_GENERAL: return "general (sm80 mma.sync)";
    case IGEMM_PATH_SM90: return "sm90 (TMA im2col + wgmma)";
    case IGEMM_PATH_DIRECT: return "direct (reference kernel)";
    }
    return "?";
}

int igemm_family_needs_16b(const igemm_family_t *f)
{
    return f != NULL && f->path == IGEMM_PATH_SM90;
}

/* Appends printf-style text to buf (size n), never overflowing. */
static void appendf(char *buf, size_t n, const char *fmt, const char *a, const char *b)
{
    size_t used = strlen(buf);
    if (used + 1 >= n) return;
    snprintf(buf + used, n - used, fmt, a, b);
}

igemm_status_t igemm_planner_choose(struct igemm_plan *plan, igemm_path_t path)
{
    char why_all[1024] = "";
    char why[256];
    const igemm_conv_params_t *p = &plan->params;

    plan->family = NULL;
    plan->fallback = NULL;
    for (int i = 0; i < N_FAMILIES; i++) {
        const igemm_family_t *f = k_families[i];
        if (path != IGEMM_PATH_AUTO && f->path != path) continue;
        why[0] = '\0';
        if (!f->supports(p, &plan->dev, why, sizeof why)) {
            appendf(why_all, sizeof why_all, "%s not taken: %s. ", f->name, why);
            continue;
        }
        if (plan->family == NULL) {
            memset(&plan->cfg, 0, sizeof plan->cfg);
            igemm_status_t st = f->configure(p, &plan->dev, &plan->cfg);
            if (st != IGEMM_STATUS_SUCCESS) {
                appendf(why_all, sizeof why_all, "%s not taken: %s. ", f->name, "configure failed");
                continue;
            }
            plan->family = f;
            if (!igemm_family_needs_16b(f)) break;
            continue; /* look for a fallback that takes unaligned pointers */
        }
        /* a fallback for run-time misalignment: the first later family that does not need it */
        if (!igemm_family_needs_16b(f)) {
            memset(&plan->fallback_cfg, 0, sizeof plan->fallback_cfg);
            if (f->configure(p, &plan->dev, &plan->fallback_cfg) == IGEMM_STATUS_SUCCESS) {
                plan->fallback = f;
                break;
            }
        }
    }
    if (plan->family == NULL) {
        if (N_FAMILIES == 0)
            return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                                   "this igemm was built without CUDA: no GPU path");
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED, "path = %s: no kernel takes this problem: %s",
                               path_name(path), why_all);
    }
    /* a forced path that needs alignment gets the general path as its fallback */
    if (plan->fallback == NULL && igemm_family_needs_16b(plan->family)) {
        for (int i = 0; i < N_FAMILIES; i++) {
            const igemm_family_t *f = k_families[i];
            if (igemm_family_needs_16b(f) || !f->supports(p, &plan->dev, why, sizeof why)) continue;
            memset(&plan->fallback_cfg, 0, sizeof plan->fallback_cfg);
            if (f->configure(p, &plan->dev, &plan->fallback_cfg) == IGEMM_STATUS_SUCCESS) {
                plan->fallback = f;
                break;
            }
        }
    }

    snprintf(plan->describe, sizeof plan->describe,
             "path %s, kernel %s: %s. Problem: conv2d n=%lld h=%lld w=%lld c=%lld -> k=%lld, "
             "filter %lldx%lld, stride %lldx%lld, pad t%lld b%lld l%lld r%lld, dilation %lldx%lld, "
             "groups %lld, output %lldx%lld; GEMM M=%lld N=%lld K=%lld per group. "
             "Chosen because: %s%s%s%s",
             path_name(plan->family->path), plan->family->name, plan->cfg.desc,
             (long long)p->n, (long long)p->h, (long long)p->w, (long long)p->c, (long long)p->k,
             (long long)p->r, (long long)p->s, (long long)p->stride_h, (long long)p->stride_w,
             (long long)p->pad_top, (long long)p->pad_bottom, (long long)p->pad_left,
             (long long)p->pad_right, (long long)p->dil_h, (long long)p->dil_w,
             (long long)p->groups, (long long)p->p, (long long)p->q, (long long)p->gemm_m,
             (long long)p->gemm_n, (long long)p->gemm_k,
             path == IGEMM_PATH_AUTO ? "fastest path that takes this problem on "
                                     : "path forced by options on ",
             plan->dev.name, ". ", why_all);
    if (plan->fallback) {
        size_t used = strlen(plan->describe);
        snprintf(plan->describe + used, sizeof plan->describe - used,
                 "Pointers not 16-byte aligned at run time go to %s (%s).", plan->fallback->name,
                 plan->fallback_cfg.desc);
    }
    return IGEMM_STATUS_SUCCESS;
}
