/*
 * plan.c — the planner: problem -> kernel family + configuration. The top of src/: the only
 * file that knows every family.
 *
 * Families are tried in priority order (fastest first): the memory-bound ones (few-row 1x1s,
 * depthwise, narrow groups, narrow 1x1s: mem_*), sm90 (TMA im2col + wgmma, Hopper only), sm90 stem rows (c <= 4, stride_w 2), sm90 fold (small c: taps folded into channels,
 * then the sm90 kernels on the folded problem), sm80 general (mma.sync, every valid shape on
 * cc >= 8.0), direct (naive, any GPU). Each family's supports() says whether it takes the
 * problem and, if not, why; those reasons go into igemm_plan_describe() so a user sees why the
 * fast path was not taken. A path forced through igemm_plan_options_t.path is tried alone; a
 * kernel named by the hints (igemm_plan_hints_t.kernel) is taken or refused by its family.
 * A family with a rewrite() (fold) gets its rewritten problem planned here, by the families of
 * its path that do not rewrite, and runs it through the igemm_inner_t callback.
 */
#include "plan.h"
#include "selfcheck.h"
#include "gemm_problem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef IGEMM_HAVE_CUDA
static const igemm_family_t *const k_families[] = {
    &igemm_family_skinny,
    &igemm_family_depthwise,
    &igemm_family_grouped,
    &igemm_family_narrow,
    &igemm_family_sm90,
    &igemm_family_sm90_stem,
    &igemm_family_sm90_fold,
    &igemm_family_sm100, /* after the sm90 families (which refuse cc 10.0): their refusals lead the text */
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
    case IGEMM_PATH_MEMORY: return "memory (memory-bound kernels)";
    case IGEMM_PATH_SM100: return "sm100 (TMA im2col + tcgen05)";
    }
    return "?";
}

/* ---------------------------------------------------------------- hints */

static const char *const k_kernel_names[] = {"auto",      "cooperative",   "pingpong",  "pixels_n",
                                             "pixels_n_pingpong", "halo_rows", "split_cluster",
                                             "stem_rows", "fold", "depthwise_tiled", "depthwise_mma",
                                             "depthwise_tma", "tcgen05"};
#define N_KERNEL_NAMES ((int)(sizeof(k_kernel_names) / sizeof(k_kernel_names[0])))

typedef struct hint_field {
    const char *name;
    size_t offset;
    int lo, hi; /* valid range (0 is always valid: the planner decides) */
} hint_field_t;

#define HINT(f, lo, hi) {#f, offsetof(igemm_plan_hints_t, f), lo, hi}
static const hint_field_t k_hint_fields[] = {
    HINT(kernel, 0, IGEMM_KERNEL_TCGEN05), HINT(tile_m, 1, 4096),         HINT(tile_n, 1, 4096),
    HINT(consumers, 1, 4),              HINT(stages, 2, 64),            HINT(split_k, 1, 64),
    HINT(grid, 1, 1 << 30),             HINT(staging_boxes, 1, 6),      HINT(filter_resident, -1, 1),
    HINT(pdl, -1, 1),                   HINT(rows_per_tile, 1, 64),      HINT(fold_rows, 1, 64),
    HINT(stem_prepass, 0, 1),          HINT(self_check, -1, -1),
};
#undef HINT
#define N_HINT_FIELDS ((int)(sizeof(k_hint_fields) / sizeof(k_hint_fields[0])))

static int *hint_at(igemm_plan_hints_t *h, const hint_field_t *f) { return (int *)((char *)h + f->offset); }

igemm_status_t igemm_hints_validate(const igemm_plan_hints_t *h)
{
    if (h == NULL) return IGEMM_STATUS_SUCCESS;
    for (int i = 0; i < N_HINT_FIELDS; i++) {
        const hint_field_t *f = &k_hint_fields[i];
        const int v = *hint_at((igemm_plan_hints_t *)h, f);
        if (v != 0 && (v < f->lo || v > f->hi))
            return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "hints.%s = %d: must be 0 (the planner decides) or in [%d, %d]",
                                   f->name, v, f->lo, f->hi);
    }
    return IGEMM_STATUS_SUCCESS;
}

/* Parses a decimal int (optionally signed) or on/off/auto; 0 on success. */
static int parse_int(const char *s, size_t n, int *out)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (!strcmp(buf, "on") || !strcmp(buf, "yes")) return *out = 1, 0;
    if (!strcmp(buf, "off") || !strcmp(buf, "no")) return *out = -1, 0;
    if (!strcmp(buf, "auto")) return *out = 0, 0;
    char *end = NULL;
    long v = strtol(buf, &end, 10);
    if (end == buf || *end != '\0' || v < -(1L << 30) || v > (1L << 30)) return -1;
    *out = (int)v;
    return 0;
}

igemm_status_t igemm_hints_parse(const char *text, igemm_plan_hints_t *h)
{
    if (h == NULL) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "hints = NULL: a place to store the hints is required");
    memset(h, 0, sizeof *h);
    if (text == NULL) return IGEMM_STATUS_SUCCESS;
    const char *s = text;
    while (*s) {
        const char *item = s, *comma = strchr(s, ',');
        const size_t len = comma ? (size_t)(comma - s) : strlen(s);
        s = comma ? comma + 1 : s + len;
        if (len == 0) continue;
        const char *eq = memchr(item, '=', len);
        if (eq == NULL)
            return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "hints \"%.*s\": expected key=value", (int)len, item);
        const size_t klen = (size_t)(eq - item), vlen = len - klen - 1;
        const char *val = eq + 1;
        if (klen == 6 && !strncmp(item, "kernel", 6)) {
            int k = -1;
            for (int i = 0; i < N_KERNEL_NAMES; i++)
                if (strlen(k_kernel_names[i]) == vlen && !strncmp(val, k_kernel_names[i], vlen)) k = i;
            if (k < 0 && parse_int(val, vlen, &k) != 0) k = -1;
            if (k < 0 || k > IGEMM_KERNEL_TCGEN05)
                return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,
                                       "hints kernel = \"%.*s\": not a kernel (auto, cooperative, pingpong, pixels_n, "
                                       "pixels_n_pingpong, halo_rows, split_cluster, stem_rows, fold, depthwise_tiled, "
                                       "depthwise_mma, depthwise_tma, tcgen05)",
                                       (int)vlen, val);
            h->kernel = k;
            continue;
        }
        if (klen == 4 && !strncmp(item, "tile", 4)) {
            const char *x = memchr(val, 'x', vlen);
            int m = 0, n = 0;
            if (x == NULL || parse_int(val, (size_t)(x - val), &m) || parse_int(x + 1, vlen - (size_t)(x - val) - 1, &n) ||
                m < 0 || n < 0)
                return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "hints tile = \"%.*s\": expected MxN, e.g. 128x64",
                                       (int)vlen, val);
            h->tile_m = m;
            h->tile_n = n;
            continue;
        }
        int found = 0;
        for (int i = 0; i < N_HINT_FIELDS && !found; i++) {
            const hint_field_t *f = &k_hint_fields[i];
            if (strlen(f->name) != klen || strncmp(item, f->name, klen)) continue;
            int v;
            if (parse_int(val, vlen, &v))
                return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "hints %s = \"%.*s\": not an integer", f->name,
                                       (int)vlen, val);
            *hint_at(h, f) = v;
            found = 1;
        }
        if (!found)
            return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,
                                   "hints key \"%.*s\": unknown (kernel, tile, tile_m, tile_n, consumers, stages, split_k, "
                                   "grid, staging_boxes, filter_resident, pdl, rows_per_tile, fold_rows, stem_prepass, self_check)",
                                   (int)klen, item);
    }
    return igemm_hints_validate(h);
}

/* "kernel=pingpong, tile_n=64, grid=4" (the non-zero fields), or "" for none. */
static void hints_format(const igemm_plan_hints_t *h, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < N_HINT_FIELDS && used + 1 < n; i++) {
        const int v = *hint_at((igemm_plan_hints_t *)h, &k_hint_fields[i]);
        if (v == 0) continue;
        if (i == 0 && v > 0 && v < N_KERNEL_NAMES)
            snprintf(buf + used, n - used, "%skernel=%s", used ? ", " : "", k_kernel_names[v]);
        else
            snprintf(buf + used, n - used, "%s%s=%d", used ? ", " : "", k_hint_fields[i].name, v);
        used = strlen(buf);
    }
}

/* ---------------------------------------------------------------- choice */

/* Appends printf-style text to buf (size n), never overflowing. */
static void appendf(char *buf, size_t n, const char *fmt, const char *a, const char *b)
{
    size_t used = strlen(buf);
    if (used + 1 >= n) return;
    snprintf(buf + used, n - used, fmt, a, b);
}

/* 1 if family f takes p on dev under h: its supports() and, for a family not yet verified on
 * hardware, its first-use self-check on dev (src/selfcheck.h); else 0 and why. */
static int family_takes(const igemm_family_t *f, const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                        const igemm_plan_hints_t *h, char *why, size_t why_len)
{
    if (!f->supports(p, dev, h, why, why_len)) return 0;
    return f->self_check_cases == NULL || igemm_selfcheck(f, dev, h, why, why_len);
}

/* Configures family f for p into st; 1 on success. */
static int stage_configure(igemm_stage_t *st, const igemm_family_t *f, const igemm_conv_params_t *p,
                           const igemm_device_info_t *dev, const igemm_plan_hints_t *h)
{
    memset(&st->cfg, 0, sizeof st->cfg);
    memset(st->state, 0, sizeof st->state);
    if (f->configure(p, dev, h, &st->cfg) != IGEMM_STATUS_SUCCESS) return 0;
    st->family = f;
    return 1;
}

/* Plans a rewriting family's problem q with the families of path `path` that do not rewrite
 * (hints without their kernel); 1 on success, else 0 and why. */
static int plan_inner(struct igemm_plan *plan, const igemm_conv_params_t *q, igemm_path_t path, char *why,
                      size_t why_len)
{
    igemm_plan_hints_t h = plan->hints;
    h.kernel = IGEMM_KERNEL_AUTO;
    char one[256];
    why[0] = '\0';
    for (int i = 0; i < N_FAMILIES; i++) {
        const igemm_family_t *f = k_families[i];
        if (f->rewrite != NULL || f->path != path) continue;
        one[0] = '\0';
        if (!family_takes(f, q, &plan->dev, &h, one, sizeof one)) {
            appendf(why, why_len, why[0] ? "; %s: %s" : "%s: %s", f->name, one);
            continue;
        }
        if (stage_configure(&plan->inner, f, q, &plan->dev, &h)) return 1;
        appendf(why, why_len, why[0] ? "; %s: %s" : "%s: %s", f->name, igemm_last_error());
    }
    plan->inner.family = NULL;
    return 0;
}

/* Tries family f as the plan's main stage; 1 if taken. */
static int try_main(struct igemm_plan *plan, const igemm_family_t *f, char *why_all, size_t why_len)
{
    const igemm_conv_params_t *p = &plan->params;
    char why[256];
    why[0] = '\0';
    if (!family_takes(f, p, &plan->dev, &plan->hints, why, sizeof why)) {
        appendf(why_all, why_len, "%s not taken: %s. ", f->name, why);
        return 0;
    }
    if (!stage_configure(&plan->main, f, p, &plan->dev, &plan->hints)) {
        appendf(why_all, why_len, "%s not taken: %s. ", f->name, igemm_last_error());
        plan->main.family = NULL;
        return 0;
    }
    if (f->rewrite) {
        char iwhy[768];
        f->rewrite(p, &plan->main.cfg, &plan->inner_params);
        if (!plan_inner(plan, &plan->inner_params, f->path, iwhy, sizeof iwhy)) {
            appendf(why_all, why_len, "%s not taken: its rewritten problem was refused (%s). ", f->name, iwhy);
            plan->main.family = NULL;
            return 0;
        }
    }
    return 1;
}

static size_t align256(size_t v) { return (v + 255) & ~(size_t)255; }

igemm_status_t igemm_planner_choose(struct igemm_plan *plan, igemm_path_t path)
{
    char why_all[1536] = "";
    char why[256];
    const igemm_conv_params_t *p = &plan->params;

    /* the fallback for unaligned pointers is planned without a kernel hint (it names an sm90 kernel) */
    igemm_plan_hints_t fallback_hints = plan->hints;
    fallback_hints.kernel = IGEMM_KERNEL_AUTO;
    plan->main.family = plan->inner.family = plan->fallback.family = NULL;
    for (int i = 0; i < N_FAMILIES; i++) {
        const igemm_family_t *f = k_families[i];
        if (path != IGEMM_PATH_AUTO && f->path != path) continue;
        if (plan->main.family == NULL) {
            /* a family that leaves the problem to a later, faster one (under AUTO only) */
            why[0] = '\0';
            if (path == IGEMM_PATH_AUTO && f->defers && f->defers(p, &plan->dev, &plan->hints, why, sizeof why)) {
                appendf(why_all, sizeof why_all, "%s not taken: %s. ", f->name, why);
                continue;
            }
            if (try_main(plan, f, why_all, sizeof why_all) && !f->needs_16b) break;
            continue;
        }
        /* main needs 16-byte aligned pointers: the first later family that takes the problem
         * without them is the fallback for run-time misalignment (the refusals on the way are
         * part of the description) */
        why[0] = '\0';
        if (!family_takes(f, p, &plan->dev, f->needs_16b ? &plan->hints : &fallback_hints, why, sizeof why)) {
            appendf(why_all, sizeof why_all, "%s not taken: %s. ", f->name, why);
            continue;
        }
        if (!f->needs_16b && f->rewrite == NULL && stage_configure(&plan->fallback, f, p, &plan->dev, &fallback_hints))
            break;
    }
    if (plan->main.family == NULL) {
        if (N_FAMILIES == 0)
            return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED, "this igemm was built without CUDA: no GPU path");
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED, "path = %s%s%s: no kernel takes this problem: %s",
                               path_name(path), plan->hints.kernel ? ", hints.kernel = " : "",
                               plan->hints.kernel ? k_kernel_names[plan->hints.kernel] : "", why_all);
    }
    /* a forced path that needs alignment gets the general path as its fallback */
    if (plan->fallback.family == NULL && plan->main.family->needs_16b) {
        for (int i = 0; i < N_FAMILIES; i++) {
            const igemm_family_t *f = k_families[i];
            if (f->needs_16b || f->rewrite || !family_takes(f, p, &plan->dev, &fallback_hints, why, sizeof why)) continue;
            if (stage_configure(&plan->fallback, f, p, &plan->dev, &fallback_hints)) break;
        }
    }

    /* workspace: main's part at 0 and its inner plan's after it (they run together); the
     * fallback's (which runs instead of both) at 0 again */
    plan->main.ws_offset = 0;
    plan->inner.ws_offset = align256(plan->main.cfg.workspace_bytes);
    plan->fallback.ws_offset = 0;
    size_t ws = plan->main.cfg.workspace_bytes;
    if (plan->inner.family && plan->inner.cfg.workspace_bytes > 0)
        ws = plan->inner.ws_offset + plan->inner.cfg.workspace_bytes;
    if (plan->fallback.family && plan->fallback.cfg.workspace_bytes > ws) ws = plan->fallback.cfg.workspace_bytes;
    plan->workspace_bytes = ws;

    char hints[256], inner[640] = "";
    hints_format(&plan->hints, hints, sizeof hints);
    if (plan->inner.family)
        snprintf(inner, sizeof inner, ", then %s: %s", plan->inner.family->name, plan->inner.cfg.desc);
    snprintf(plan->describe, sizeof plan->describe,
             "path %s, kernel %s: %s%s. Problem: conv2d n=%lld h=%lld w=%lld c=%lld -> k=%lld, "
             "filter %lldx%lld, stride %lldx%lld, pad t%lld b%lld l%lld r%lld, dilation %lldx%lld, "
             "groups %lld, output %lldx%lld; GEMM M=%lld N=%lld K=%lld per group. "
             "Chosen because: %s%s%s%s%s%s%s",
             path_name(plan->main.family->path), plan->main.family->name, plan->main.cfg.desc, inner, (long long)p->n,
             (long long)p->h, (long long)p->w, (long long)p->c, (long long)p->k, (long long)p->r, (long long)p->s,
             (long long)p->stride_h, (long long)p->stride_w, (long long)p->pad_top, (long long)p->pad_bottom,
             (long long)p->pad_left, (long long)p->pad_right, (long long)p->dil_h, (long long)p->dil_w,
             (long long)p->groups, (long long)p->p, (long long)p->q, (long long)p->gemm_m, (long long)p->gemm_n,
             (long long)p->gemm_k,
             path == IGEMM_PATH_AUTO ? "fastest path that takes this problem on " : "path forced by options on ",
             plan->dev.name, ". ", why_all, hints[0] ? "Hints (experimental): " : "", hints, hints[0] ? ". " : "");
    if (plan->fallback.family) {
        size_t used = strlen(plan->describe);
        snprintf(plan->describe + used, sizeof plan->describe - used,
                 "Pointers not 16-byte aligned at run time go to %s (%s).", plan->fallback.family->name,
                 plan->fallback.cfg.desc);
    }
    return IGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- run */

typedef struct inner_ctx {
    struct igemm_plan *plan;
    const igemm_conv_params_t *outer; /* the call's operands (epilogue and y) */
} inner_ctx_t;

static igemm_status_t inner_run(const igemm_inner_t *self, const void *x, const void *w, void *stream)
{
    const inner_ctx_t *c = (const inner_ctx_t *)self->ctx;
    struct igemm_plan *plan = c->plan;
    igemm_conv_params_t q = plan->inner_params;
    q.x = x;
    q.filter = w;
    q.scale = c->outer->scale;
    q.bias = c->outer->bias;
    q.residual = c->outer->residual;
    q.y = c->outer->y;
    void *ws = plan->inner.cfg.workspace_bytes ? (char *)plan->workspace + plan->inner.ws_offset : NULL;
    return plan->inner.family->run(&q, &plan->inner.cfg, ws, plan->inner.state, stream, NULL);
}

static int aligned16(const void *ptr) { return ((uintptr_t)ptr & 15u) == 0; }

void igemm_planner_gemm_strided(struct igemm_plan *plan, const struct igemm_gemm_params *g, const char *why)
{
#ifdef IGEMM_HAVE_CUDA
    plan->main.family = &igemm_family_sm80_gemm;
    igemm_gemm_strided_config(g, plan->dev.sm_count, &plan->main.cfg);
    snprintf(plan->describe, sizeof plan->describe,
             "GEMM %lld x %lld x %lld, batch %lld, B %s, lda %lld ldb %lld ldd %lld: path %s, kernel %s (%s). "
             "Chosen because the conv engine cannot take it: %s. On %s.",
             (long long)g->m, (long long)g->n, (long long)g->k, (long long)g->batch, g->b_kn ? "K x N" : "N x K",
             (long long)g->lda, (long long)g->ldb, (long long)g->ldd, path_name(igemm_family_sm80_gemm.path),
             igemm_family_sm80_gemm.name, plan->main.cfg.desc, why, plan->dev.name);
#else
    (void)plan, (void)g, (void)why;
#endif
}

igemm_status_t igemm_planner_run(struct igemm_plan *plan, const igemm_conv_params_t *run, void *stream)
{
    igemm_stage_t *st = &plan->main;
    if (st->family->needs_16b && !(aligned16(run->x) && aligned16(run->filter) && aligned16(run->y) &&
                                   (run->residual == NULL || aligned16(run->residual)))) {
        if (plan->fallback.family == NULL)
            return igemm_set_error(IGEMM_STATUS_MISALIGNED,
                                   "x, w, y, residual must be 16-byte aligned for the %s path and no fallback exists",
                                   st->family->name);
        st = &plan->fallback;
    }
    void *ws = st->cfg.workspace_bytes ? (char *)plan->workspace + st->ws_offset : NULL;
    if (st == &plan->main && plan->inner.family) {
        inner_ctx_t ctx = {plan, run};
        const igemm_inner_t inner = {inner_run, &ctx};
        return st->family->run(run, &st->cfg, ws, st->state, stream, &inner);
    }
    return st->family->run(run, &st->cfg, ws, st->state, stream, NULL);
}
