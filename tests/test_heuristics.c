/*
 * test_heuristics.c — CPU table tests of the planner (no GPU): for layers of bench/shapes.csv
 * (written out below) and fake device descriptions, the family igemm_planner_choose picks and the
 * sm90 plan its heuristics compute (src/sm90/heuristics.c, heuristics_stem.c): kernel, tile,
 * consumers, stages, staging boxes, resident filter, halo rows, split, grid, programmatic dependent
 * launch; with plan hints (every field at least once), hints that cannot be honoured, and old
 * drivers. The expected values are what the planner computed when the table was written: the
 * table's job is to catch unintended changes of the heuristics. A deliberate change updates the
 * rows (a mismatch prints the row as the planner now computes it, in the table's syntax).
 * Besides the table, every plan must satisfy what holds for any plan (threads, shared memory within
 * the device's opt-in, grid caps, the hinted kernel and tile, the hints listed in the description).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "igemm.h"
#include "test.h"

#ifndef IGEMM_HAVE_CUDA

/* Without CUDA the planner has no families (the family objects are CUDA files). */
TEST(heur_bench_layers) { test_skip("built without CUDA: the planner has no families"); }
TEST(heur_hints) { test_skip("built without CUDA: the planner has no families"); }
TEST(heur_hints_refused) { test_skip("built without CUDA: the planner has no families"); }

#else /* IGEMM_HAVE_CUDA */

#include "plan.h"
#include "sm90/sm90.h"
#include "fake_device.h"

/* ------------------------------------------------------------------ fake devices */

enum { SXM = FAKE_H100_SXM, PCIE = FAKE_H100_PCIE, OLDDRV = FAKE_H100_OLD_DRIVER, A100 = FAKE_A100 };

/* ------------------------------------------------------------------ the table */

enum { FAM_CONV = 1, FAM_STEM, FAM_FOLD, FAM_GENERAL, FAM_MEMORY, FAM_NONE };
enum { PLAIN = 0, FUSED = 1 };          /* FUSED: bias + ReLU + residual */
enum { BF = 0, F16 = 1, F32OUT = 2 };   /* bf16 -> bf16, f16 -> f16, bf16 -> f32 */

/* What the planner must choose. FAM_CONV: the sm90 conv plan; FAM_FOLD: the fold's rows (extra) and
 * the conv plan of the folded problem; FAM_STEM: raw (extra), tile pixels (bm), stages, grid, pdl;
 * FAM_GENERAL: the general path, `why` in the description; FAM_MEMORY: a memory-bound family (the
 * few-row, the depthwise or the narrow 1x1 kernel), `why` in the description; FAM_NONE: NOT_SUPPORTED, `why` in
 * the message. */
typedef struct want {
    int fam, kernel, bm, bn, nc, stages, boxes, resident, halo, split, grid, pdl, extra;
    const char *why;
} want_t;

#define CONV(k, bm, bn, nc, st, es, br, halo, sp, grid, pdl)                                                    \
    {FAM_CONV, IGEMM_KERNEL_##k, bm, bn, nc, st, es, br, halo, sp, grid, pdl, 0, NULL}
#define FOLD(f, k, bm, bn, nc, st, es, br, halo, sp, grid, pdl)                                                 \
    {FAM_FOLD, IGEMM_KERNEL_##k, bm, bn, nc, st, es, br, halo, sp, grid, pdl, f, NULL}
#define STEM(raw, tp, st, grid, pdl) {FAM_STEM, IGEMM_KERNEL_STEM_ROWS, tp, 64, 3, st, 2, 1, 0, 1, grid, pdl, raw, NULL}
#define GENERAL(why) {FAM_GENERAL, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, why}
#define MEMORY(why) {FAM_MEMORY, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, why}
#define FAILS(why) {FAM_NONE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, why}

typedef struct hrow {
    const char *name;
    int64_t n, h, w, c, k, r, s, stride, pad, groups;
    int epi, dt, dev;
    const char *hints;
    want_t want;
} hrow_t;

/* The problem: NHWC input, k output channels, r x s filter, stride and padding on both axes. */
#define L(n, h, w, c, k, r, s, st, pad) n, h, w, c, k, r, s, st, pad, 1
#define LG(n, h, w, c, k, r, s, st, pad, groups) n, h, w, c, k, r, s, st, pad, groups

static const char *kernel_name(int k)
{
    static const char *const names[] = {"AUTO",      "COOPERATIVE",   "PINGPONG",  "PIXELS_N",
                                        "PIXELS_N_PINGPONG", "HALO_ROWS", "SPLIT_CLUSTER", "STEM_ROWS",
                                        "FOLD",      "DEPTHWISE_TILED", "DEPTHWISE_MMA", "DEPTHWISE_TMA"};
    return k >= 0 && k <= 11 ? names[k] : "?";
}

/* The plan as the planner chose it, in the table's terms. */
static void actual_want(const struct igemm_plan *plan, igemm_status_t st, want_t *a)
{
    memset(a, 0, sizeof *a);
    if (st != IGEMM_STATUS_SUCCESS) {
        a->fam = FAM_NONE;
        return;
    }
    const char *name = plan->main.family->name;
    const igemm_stage_t *conv = NULL;
    if (!strcmp(name, "sm90_tma_wgmma")) {
        a->fam = FAM_CONV;
        conv = &plan->main;
    } else if (!strcmp(name, "sm90_fold_tma_wgmma")) {
        a->fam = FAM_FOLD;
        a->extra = igemm_family_priv(&plan->main.cfg, const fold_plan_t)->fold_rows;
        if (plan->inner.family && !strcmp(plan->inner.family->name, "sm90_tma_wgmma")) conv = &plan->inner;
    } else if (!strcmp(name, "sm90_stem_tma_wgmma")) {
        const stem_plan_t *sp = igemm_family_priv(&plan->main.cfg, const stem_plan_t);
        const want_t s = STEM(sp->raw, sp->tp, sp->stages, sp->grid, sp->pdl);
        *a = s;
    } else {
        a->fam = plan->main.family->path == IGEMM_PATH_MEMORY ? FAM_MEMORY : FAM_GENERAL;
    }
    if (conv) {
        const sm90_plan_t *p = igemm_family_priv(&conv->cfg, const sm90_plan_t);
        a->kernel = p->kernel;
        a->bm = p->bm;
        a->bn = p->bn;
        a->nc = p->consumers;
        a->stages = p->stages;
        a->boxes = p->epi_slots;
        a->resident = p->b_reuse;
        a->halo = p->halo;
        a->split = p->split_k;
        a->grid = p->grid;
        a->pdl = p->pdl;
    }
}

/* Prints want as a table entry. */
static void want_str(const want_t *w, const char *msg, char *buf, size_t n)
{
    switch (w->fam) {
    case FAM_CONV:
    case FAM_FOLD:
        if (w->fam == FAM_FOLD)
            snprintf(buf, n, "FOLD(%d, %s, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d)", w->extra, kernel_name(w->kernel),
                     w->bm, w->bn, w->nc, w->stages, w->boxes, w->resident, w->halo, w->split, w->grid, w->pdl);
        else
            snprintf(buf, n, "CONV(%s, %d, %d, %d, %d, %d, %d, %d, %d, %d, %d)", kernel_name(w->kernel), w->bm, w->bn,
                     w->nc, w->stages, w->boxes, w->resident, w->halo, w->split, w->grid, w->pdl);
        break;
    case FAM_STEM:
        snprintf(buf, n, "STEM(%d, %d, %d, %d, %d)", w->extra, w->bm, w->stages, w->grid, w->pdl);
        break;
    case FAM_GENERAL: snprintf(buf, n, "GENERAL(\"%s\")", msg); break;
    case FAM_MEMORY: snprintf(buf, n, "MEMORY(\"%s\")", msg); break;
    default: snprintf(buf, n, "FAILS(\"%s\")", msg); break;
    }
}

static int want_eq(const want_t *a, const want_t *b)
{
    return a->fam == b->fam && a->kernel == b->kernel && a->bm == b->bm && a->bn == b->bn && a->nc == b->nc &&
           a->stages == b->stages && a->boxes == b->boxes && a->resident == b->resident && a->halo == b->halo &&
           a->split == b->split && a->grid == b->grid && a->pdl == b->pdl && a->extra == b->extra;
}

/* What holds for every sm90 conv plan under its hints h on dev. */
static void check_conv_invariants(const char *name, const sm90_plan_t *p, const igemm_plan_hints_t *h,
                                  const igemm_device_info_t *dev)
{
    CHECK_MSG(p->threads == 128 * (p->consumers + 1), "%s: %d threads for %d consumers", name, p->threads,
              p->consumers);
    CHECK_MSG(p->smem_bytes <= (size_t)dev->smem_optin_per_block && p->smem_limit == dev->smem_optin_per_block,
              "%s: %zu B of shared memory (device %d)", name, p->smem_bytes, dev->smem_optin_per_block);
    CHECK_MSG(p->stages >= 2 && p->stages <= (p->bn == 32 ? SM90_MAX_NARROW_STAGES : SM90_MAX_STAGES), "%s: %d stages",
              name, p->stages);
    if (p->kernel == IGEMM_KERNEL_SPLIT_CLUSTER)
        CHECK_MSG(p->grid % 2 == 0 && p->grid <= dev->sm_count, "%s: split-in-cluster grid %d", name, p->grid);
    else
        CHECK_MSG(p->grid >= 1 && p->grid <= dev->sm_count, "%s: grid %d on %d SMs", name, p->grid, dev->sm_count);
    if (h->grid) CHECK_MSG(p->grid <= h->grid, "%s: grid %d over the hint's %d", name, p->grid, h->grid);
    if (h->stages) CHECK_MSG(p->stages <= h->stages, "%s: %d stages over the hint's %d", name, p->stages, h->stages);
    if (h->kernel) CHECK_MSG(p->kernel == h->kernel, "%s: kernel %d, hinted %d", name, p->kernel, h->kernel);
    if (h->tile_m) CHECK_MSG(p->bm == h->tile_m, "%s: tile_m %d, hinted %d", name, p->bm, h->tile_m);
    if (h->tile_n) CHECK_MSG(p->bn == h->tile_n, "%s: tile_n %d, hinted %d", name, p->bn, h->tile_n);
    if (h->consumers) CHECK_MSG(p->consumers == h->consumers, "%s: %d consumers, hinted %d", name, p->consumers,
                                h->consumers);
    if (h->split_k) CHECK_MSG(p->split_k == h->split_k, "%s: split %d, hinted %d", name, p->split_k, h->split_k);
    if (h->filter_resident < 0) CHECK_MSG(!p->b_reuse || p->halo, "%s: filter resident against the hint", name);
    if (h->pdl < 0) CHECK_MSG(!p->pdl, "%s: PDL against the hint", name);
    if (dev->driver_version < 12030) CHECK_MSG(!p->pdl, "%s: PDL on driver %d", name, dev->driver_version);
    if (h->rows_per_tile && p->halo) CHECK_MSG(p->halo == h->rows_per_tile, "%s: %d rows per tile, hinted %d", name,
                                               p->halo, h->rows_per_tile);
}

/* Plans each row on its fake device and compares with the row's want. */
static void run_table(const hrow_t *rows, int nrows)
{
    for (int i = 0; i < nrows; i++) {
        const hrow_t *r = &rows[i];
        igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
        d.n = r->n; d.h = r->h; d.w = r->w; d.c = r->c; d.k = r->k; d.r = r->r; d.s = r->s;
        d.stride_h = d.stride_w = r->stride;
        d.groups = r->groups;
        d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = r->pad;
        d.x_dtype = d.w_dtype = r->dt == F16 ? IGEMM_DTYPE_F16 : IGEMM_DTYPE_BF16;
        d.y_dtype = r->dt == F16 ? IGEMM_DTYPE_F16 : r->dt == F32OUT ? IGEMM_DTYPE_F32 : IGEMM_DTYPE_BF16;
        igemm_epilogue_t e = igemm_epilogue_default();
        if (r->epi == FUSED) {
            e.has_bias = e.has_residual = 1;
            e.activation = IGEMM_ACT_RELU;
        }
        static struct igemm_plan plan; /* (large: the description buffer) */
        memset(&plan, 0, sizeof plan);
        if (igemm_problem_init(&d, &e, &plan.params) != IGEMM_STATUS_SUCCESS) {
            test_fail(__FILE__, __LINE__, "%s: invalid problem: %s", r->name, igemm_last_error());
            continue;
        }
        if (igemm_plan_hints_parse(r->hints, &plan.hints) != IGEMM_STATUS_SUCCESS) {
            test_fail(__FILE__, __LINE__, "%s: hints \"%s\": %s", r->name, r->hints, igemm_last_error());
            continue;
        }
        plan.dev = fake_device(r->dev);
        const igemm_status_t st = igemm_planner_choose(&plan, IGEMM_PATH_AUTO);
        const char *msg = st == IGEMM_STATUS_SUCCESS ? plan.describe : igemm_last_error();
        want_t a;
        actual_want(&plan, st, &a);
        char got[256], exp[256];
        want_str(&a, a.fam == FAM_NONE ? msg : r->want.why ? r->want.why : "", got, sizeof got);
        want_str(&r->want, r->want.why ? r->want.why : "", exp, sizeof exp);
        if (!want_eq(&a, &r->want))
            test_fail(__FILE__, __LINE__, "%s (hints \"%s\"): planned %s, table says %s", r->name, r->hints, got, exp);
        if (r->want.why && r->want.why[0] && !strstr(msg, r->want.why))
            test_fail(__FILE__, __LINE__, "%s (hints \"%s\"): \"%s\" should say \"%s\"", r->name, r->hints, msg,
                      r->want.why);
        if (r->want.fam == FAM_NONE && st != IGEMM_STATUS_SUCCESS)
            CHECK_MSG(st == IGEMM_STATUS_NOT_SUPPORTED, "%s: status %d (%s)", r->name, (int)st, msg);
        if (st != IGEMM_STATUS_SUCCESS) continue;
        /* the invariants of every plan */
        if (r->hints[0])
            CHECK_MSG(strstr(msg, "Hints (experimental): ") != NULL, "%s: hints not listed: %s", r->name, msg);
        const igemm_stage_t *conv = a.fam == FAM_CONV ? &plan.main : a.fam == FAM_FOLD ? &plan.inner : NULL;
        if (conv && conv->family && !strcmp(conv->family->name, "sm90_tma_wgmma")) {
            igemm_plan_hints_t h = plan.hints;
            if (a.fam == FAM_FOLD) h.kernel = IGEMM_KERNEL_AUTO; /* the folded problem is planned without it */
            check_conv_invariants(r->name, igemm_family_priv(&conv->cfg, const sm90_plan_t), &h, &plan.dev);
        }
        /* a TMA plan has the general path for unaligned pointers (planned without the kernel hint) */
        if (a.fam != FAM_GENERAL && a.fam != FAM_MEMORY)
            CHECK_MSG(plan.fallback.family && !strcmp(plan.fallback.family->name, "sm80_mma_sync"),
                      "%s: no general fallback for unaligned pointers", r->name);
    }
}

/* ------------------------------------------------------------------ rows */

/* bench/shapes.csv's layers, plain and fused, on the fake H100 SXM (132 SMs), and some on the PCIe
 * card (114 SMs), the 12.2 driver and an A100. */
static const hrow_t k_layers[] = {
    {"r50_conv1", L(32, 224, 224, 3, 64, 7, 7, 2, 3), PLAIN, BF, SXM, "", STEM(1, 112, 7, 132, 1)},
    {"r50_conv1", L(32, 224, 224, 3, 64, 7, 7, 2, 3), FUSED, BF, SXM, "", STEM(1, 112, 7, 132, 1)},
    {"r50_l1_1x1_64_64", L(32, 56, 56, 64, 64, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PINGPONG, 128, 64, 2, 8, 2, 0, 0, 1, 132, 1)},
    {"r50_l1_1x1_64_64", L(32, 56, 56, 64, 64, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(PINGPONG, 128, 64, 2, 4, 4, 0, 0, 1, 132, 1)},
    {"r50_l1_3x3_64", L(32, 56, 56, 64, 64, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(HALO_ROWS, 112, 64, 2, 8, 1, 1, 2, 1, 132, 1)},
    {"r50_l1_3x3_64", L(32, 56, 56, 64, 64, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(HALO_ROWS, 112, 64, 3, 8, 1, 1, 2, 1, 132, 1)},
    {"r50_l1_1x1_64_256", L(32, 56, 56, 64, 256, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 256, 128, 2, 4, 2, 0, 0, 1, 132, 1)},
    {"r50_l1_1x1_64_256", L(32, 56, 56, 64, 256, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 256, 128, 2, 4, 2, 0, 0, 1, 132, 1)},
    /* the whole-N ping-pong tile (64 x 256, filter resident): short K, 128 < N <= 256 ragged (N % 64
     * != 0), no residual, 2+ tiles per CTA; with a residual, at N % 64 == 0 or on few tiles, not */
    {"pw_expand_24_144", L(32, 56, 56, 24, 144, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PINGPONG, 64, 256, 2, 8, 2, 1, 0, 1, 132, 1)},
    {"effnet_expand_40_240", L(32, 28, 28, 40, 240, 1, 1, 1, 0), PLAIN, F16, SXM, "",
     CONV(PINGPONG, 64, 256, 2, 8, 2, 1, 0, 1, 132, 1)},
    {"mbv2_expand_16_96 (the narrow family's wide kernel defers)", L(32, 112, 112, 16, 96, 1, 1, 1, 0), PLAIN, BF, SXM,
     "", CONV(PINGPONG, 64, 128, 2, 8, 2, 1, 0, 1, 132, 1)},
    {"mbv2_expand_16_96 fused (residual: the wide kernel)", L(32, 112, 112, 16, 96, 1, 1, 1, 0), FUSED, BF, SXM, "",
     MEMORY("kernel mem_narrow: narrow 1x1, wide output (c = 16, k = 96)")},
    {"mbv2_expand_16_96 A100", L(32, 112, 112, 16, 96, 1, 1, 1, 0), PLAIN, F16, A100, "",
     MEMORY("kernel mem_narrow: narrow 1x1, wide output (c = 16, k = 96)")},
    {"yolov8_cls_1x1_80", L(16, 80, 80, 64, 80, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PINGPONG, 64, 128, 2, 8, 2, 1, 0, 1, 132, 1)},
    {"pw_expand_24_144 fused", L(32, 56, 56, 24, 144, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(PINGPONG, 128, 64, 2, 4, 4, 1, 0, 1, 132, 1)},
    {"pw_expand_32_192", L(32, 28, 28, 32, 192, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PINGPONG, 128, 64, 2, 8, 2, 1, 0, 1, 132, 1)},
    {"pw_expand_24_144 b2", L(2, 56, 56, 24, 144, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 1, 98, 0)},
    {"r50_l1_1x1_256_64", L(32, 56, 56, 256, 64, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PINGPONG, 128, 64, 2, 8, 2, 0, 0, 1, 132, 1)},
    {"r50_l1_1x1_256_64", L(32, 56, 56, 256, 64, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(PINGPONG, 128, 64, 2, 4, 4, 0, 0, 1, 132, 1)},
    {"r50_l2_1x1_256_128", L(32, 56, 56, 256, 128, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PINGPONG, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    {"r50_l2_1x1_256_128", L(32, 56, 56, 256, 128, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(PINGPONG, 128, 128, 2, 4, 6, 0, 0, 1, 132, 1)},
    {"r50_l2_3x3s2_128", L(32, 56, 56, 128, 128, 3, 3, 2, 1), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 192, 128, 3, 4, 2, 0, 0, 1, 131, 1)},
    {"r50_l2_3x3s2_128", L(32, 56, 56, 128, 128, 3, 3, 2, 1), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 192, 128, 3, 4, 2, 0, 0, 1, 131, 1)},
    {"r50_l2_ds_256_512", L(32, 56, 56, 256, 512, 1, 1, 2, 0), PLAIN, BF, SXM, "",
     CONV(PINGPONG, 128, 128, 2, 8, 2, 1, 0, 1, 132, 1)},
    {"r50_l2_ds_256_512", L(32, 56, 56, 256, 512, 1, 1, 2, 0), FUSED, BF, SXM, "",
     CONV(PINGPONG, 128, 128, 2, 4, 6, 1, 0, 1, 132, 1)},
    {"r50_l2_1x1_128_512", L(32, 28, 28, 128, 512, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PINGPONG, 128, 128, 2, 8, 2, 1, 0, 1, 132, 1)},
    {"r50_l2_1x1_128_512", L(32, 28, 28, 128, 512, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(PINGPONG, 128, 128, 2, 4, 6, 1, 0, 1, 132, 1)},
    {"r50_l2_1x1_512_128", L(32, 28, 28, 512, 128, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 192, 128, 3, 4, 2, 0, 0, 1, 131, 1)},
    {"r50_l2_1x1_512_128", L(32, 28, 28, 512, 128, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 192, 128, 3, 4, 2, 0, 0, 1, 131, 1)},
    {"r50_l2_3x3_128", L(32, 28, 28, 128, 128, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 192, 128, 3, 4, 2, 0, 0, 1, 131, 1)},
    {"r50_l2_3x3_128", L(32, 28, 28, 128, 128, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 192, 128, 3, 4, 2, 0, 0, 1, 131, 1)},
    {"r50_l3_1x1_512_256", L(32, 28, 28, 512, 256, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    {"r50_l3_1x1_512_256", L(32, 28, 28, 512, 256, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    {"r50_l3_3x3s2_256", L(32, 28, 28, 256, 256, 3, 3, 2, 1), PLAIN, BF, SXM, "",
     CONV(PIXELS_N, 96, 128, 2, 7, 1, 0, 0, 1, 132, 1)},
    {"r50_l3_3x3s2_256", L(32, 28, 28, 256, 256, 3, 3, 2, 1), FUSED, BF, SXM, "",
     CONV(PIXELS_N, 96, 128, 2, 7, 1, 0, 0, 1, 132, 1)},
    {"r50_l3_ds_512_1024", L(32, 28, 28, 512, 1024, 1, 1, 2, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    {"r50_l3_ds_512_1024", L(32, 28, 28, 512, 1024, 1, 1, 2, 0), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    {"r50_l3_1x1_256_1024", L(32, 14, 14, 256, 1024, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    {"r50_l3_1x1_256_1024", L(32, 14, 14, 256, 1024, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    {"r50_l3_1x1_1024_256", L(32, 14, 14, 1024, 256, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PIXELS_N, 96, 128, 2, 7, 1, 0, 0, 1, 132, 1)},
    {"r50_l3_1x1_1024_256", L(32, 14, 14, 1024, 256, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(PIXELS_N, 96, 128, 2, 7, 1, 0, 0, 1, 132, 1)},
    {"r50_l3_3x3_256", L(32, 14, 14, 256, 256, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(PIXELS_N, 96, 128, 2, 7, 1, 0, 0, 1, 132, 1)},
    {"r50_l3_3x3_256", L(32, 14, 14, 256, 256, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(PIXELS_N, 96, 128, 2, 7, 1, 0, 0, 1, 132, 1)},
    {"r50_l4_1x1_1024_512", L(32, 14, 14, 1024, 512, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 192, 128, 3, 4, 2, 0, 0, 1, 132, 1)},
    {"r50_l4_1x1_1024_512", L(32, 14, 14, 1024, 512, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 192, 128, 3, 4, 2, 0, 0, 1, 132, 1)},
    {"r50_l4_3x3s2_512", L(32, 14, 14, 512, 512, 3, 3, 2, 1), PLAIN, BF, SXM, "",
     CONV(SPLIT_CLUSTER, 128, 128, 2, 6, 2, 0, 0, 1, 104, 1)},
    {"r50_l4_3x3s2_512", L(32, 14, 14, 512, 512, 3, 3, 2, 1), FUSED, BF, SXM, "",
     CONV(SPLIT_CLUSTER, 128, 128, 2, 5, 3, 0, 0, 1, 104, 1)},
    {"r50_l4_ds_1024_2048", L(32, 14, 14, 1024, 2048, 1, 1, 2, 0), PLAIN, BF, SXM, "",
     CONV(PIXELS_N, 208, 128, 2, 4, 1, 0, 0, 1, 128, 1)},
    {"r50_l4_ds_1024_2048", L(32, 14, 14, 1024, 2048, 1, 1, 2, 0), FUSED, BF, SXM, "",
     CONV(PIXELS_N, 208, 128, 2, 4, 1, 0, 0, 1, 128, 1)},
    {"r50_l4_1x1_512_2048", L(32, 7, 7, 512, 2048, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PIXELS_N, 208, 128, 2, 4, 1, 0, 0, 1, 128, 1)},
    {"r50_l4_1x1_512_2048", L(32, 7, 7, 512, 2048, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(PIXELS_N, 208, 128, 2, 4, 1, 0, 0, 1, 128, 1)},
    {"r50_l4_1x1_2048_512", L(32, 7, 7, 2048, 512, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(SPLIT_CLUSTER, 128, 128, 2, 6, 2, 0, 0, 1, 104, 1)},
    {"r50_l4_1x1_2048_512", L(32, 7, 7, 2048, 512, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(SPLIT_CLUSTER, 128, 128, 2, 5, 3, 0, 0, 1, 104, 1)},
    {"r50_l4_3x3_512", L(32, 7, 7, 512, 512, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(SPLIT_CLUSTER, 128, 128, 2, 6, 2, 0, 0, 1, 104, 1)},
    {"r50_l4_3x3_512", L(32, 7, 7, 512, 512, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(SPLIT_CLUSTER, 128, 128, 2, 5, 3, 0, 0, 1, 104, 1)},
    {"vgg_3x3_64", L(16, 224, 224, 64, 64, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(HALO_ROWS, 112, 64, 2, 8, 1, 1, 1, 1, 132, 1)},
    {"vgg_3x3_64", L(16, 224, 224, 64, 64, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(HALO_ROWS, 112, 64, 3, 7, 1, 1, 1, 1, 132, 1)},
    {"vgg_3x3_128", L(16, 112, 112, 128, 128, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(PINGPONG, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    {"vgg_3x3_128", L(16, 112, 112, 128, 128, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(PINGPONG, 128, 128, 2, 5, 3, 0, 0, 1, 132, 1)},
    {"vgg_3x3_256", L(16, 56, 56, 256, 256, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 128, 256, 2, 4, 2, 0, 0, 1, 132, 1)},
    {"vgg_3x3_256", L(16, 56, 56, 256, 256, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 128, 256, 2, 4, 2, 0, 0, 1, 132, 1)},
    {"vgg_3x3_512", L(16, 28, 28, 512, 512, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    {"vgg_3x3_512", L(16, 28, 28, 512, 512, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    {"sd_unet_3x3_320", L(2, 64, 64, 320, 320, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 192, 128, 3, 4, 2, 0, 0, 1, 129, 1)},
    {"sd_unet_3x3_320", L(2, 64, 64, 320, 320, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 192, 128, 3, 4, 2, 0, 0, 1, 129, 1)},
    {"sd_unet_3x3_640", L(2, 32, 32, 640, 640, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(PIXELS_N, 80, 128, 2, 7, 1, 0, 0, 1, 130, 1)},
    {"sd_unet_3x3_640", L(2, 32, 32, 640, 640, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(PIXELS_N, 80, 128, 2, 7, 1, 0, 0, 1, 130, 1)},
    {"sd_vae_3x3_512", L(1, 128, 128, 512, 512, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 256, 128, 2, 4, 2, 0, 0, 1, 132, 1)},
    {"sd_vae_3x3_512", L(1, 128, 128, 512, 512, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 256, 128, 2, 4, 2, 0, 0, 1, 132, 1)},
    {"sd_vae_3x3_256", L(1, 256, 256, 256, 256, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 128, 256, 2, 4, 2, 0, 0, 1, 132, 1)},
    {"sd_vae_3x3_256", L(1, 256, 256, 256, 256, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 128, 256, 2, 4, 2, 0, 0, 1, 132, 1)},
    {"sd_vae_3x3_128", L(1, 512, 512, 128, 128, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(PINGPONG, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    {"sd_vae_3x3_128", L(1, 512, 512, 128, 128, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(PINGPONG, 128, 128, 2, 5, 3, 0, 0, 1, 132, 1)},
    {"r50_conv1", L(32, 224, 224, 3, 64, 7, 7, 2, 3), PLAIN, BF, PCIE, "", STEM(1, 112, 7, 114, 1)},
    {"r50_l1_3x3_64", L(32, 56, 56, 64, 64, 3, 3, 1, 1), PLAIN, BF, PCIE, "",
     CONV(HALO_ROWS, 112, 64, 2, 8, 1, 1, 2, 1, 114, 1)},
    {"r50_l2_3x3s2_128", L(32, 56, 56, 128, 128, 3, 3, 2, 1), PLAIN, BF, PCIE, "",
     CONV(COOPERATIVE, 256, 128, 2, 4, 2, 0, 0, 1, 98, 0)},
    {"r50_l3_3x3_256", L(32, 14, 14, 256, 256, 3, 3, 1, 1), PLAIN, BF, PCIE, "",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 1, 98, 0)},
    {"r50_l4_ds_1024_2048", L(32, 14, 14, 1024, 2048, 1, 1, 2, 0), PLAIN, BF, PCIE, "",
     CONV(COOPERATIVE, 128, 256, 2, 4, 2, 0, 0, 1, 104, 1)},
    {"r50_l4_3x3_512", L(32, 7, 7, 512, 512, 3, 3, 1, 1), PLAIN, BF, PCIE, "",
     CONV(SPLIT_CLUSTER, 128, 128, 2, 6, 2, 0, 0, 1, 104, 1)},
    {"vgg_3x3_512", L(16, 28, 28, 512, 512, 3, 3, 1, 1), PLAIN, BF, PCIE, "",
     CONV(COOPERATIVE, 256, 128, 2, 4, 2, 0, 0, 1, 114, 1)},
    {"sd_unet_3x3_640", L(2, 32, 32, 640, 640, 3, 3, 1, 1), PLAIN, BF, PCIE, "",
     CONV(PIXELS_N, 96, 128, 2, 7, 1, 0, 0, 1, 110, 1)},
    {"r50_l1_1x1_64_64", L(32, 56, 56, 64, 64, 1, 1, 1, 0), PLAIN, BF, OLDDRV, "",
     CONV(PINGPONG, 128, 64, 2, 8, 2, 0, 0, 1, 132, 0)},
    {"r50_conv1", L(32, 224, 224, 3, 64, 7, 7, 2, 3), PLAIN, BF, OLDDRV, "", STEM(1, 112, 7, 132, 0)},
    {"r50_l4_3x3_512", L(32, 7, 7, 512, 512, 3, 3, 1, 1), FUSED, BF, OLDDRV, "",
     CONV(SPLIT_CLUSTER, 128, 128, 2, 5, 3, 0, 0, 1, 104, 0)},
    {"r50_l1_3x3_64 f32 y", L(32, 56, 56, 64, 64, 3, 3, 1, 1), PLAIN, F32OUT, SXM, "",
     CONV(COOPERATIVE, 128, 64, 2, 8, 2, 0, 0, 1, 132, 1)},
    {"vgg_3x3_64 f16", L(16, 224, 224, 64, 64, 3, 3, 1, 1), FUSED, F16, SXM, "",
     CONV(HALO_ROWS, 112, 64, 3, 7, 1, 1, 1, 1, 132, 1)},
    {"r50_conv1 f32 y", L(32, 224, 224, 3, 64, 7, 7, 2, 3), PLAIN, F32OUT, SXM, "",
     FOLD(1, COOPERATIVE, 128, 64, 2, 8, 2, 0, 0, 1, 132, 1)},
    {"k70 (k % 8 != 0)", L(32, 28, 28, 128, 70, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 192, 128, 3, 4, 2, 0, 0, 1, 131, 1)},
    {"c5 3x3", L(8, 64, 64, 5, 32, 3, 3, 1, 1), PLAIN, BF, SXM, "",
     FOLD(1, COOPERATIVE, 128, 64, 2, 8, 2, 0, 0, 1, 132, 1)},
    {"c3 3x3 stride 1", L(8, 64, 64, 3, 32, 3, 3, 1, 1), FUSED, BF, SXM, "",
     FOLD(1, COOPERATIVE, 128, 64, 2, 8, 2, 0, 0, 1, 132, 1)},
    {"r50_l1_3x3_64 A100", L(32, 56, 56, 64, 64, 3, 3, 1, 1), PLAIN, BF, A100, "", GENERAL("device cc 8.0")},
    {"depthwise 3x3 32", LG(32, 56, 56, 32, 32, 3, 3, 1, 1, 32), PLAIN, BF, SXM, "",
     MEMORY("kernel mem_depthwise: depthwise 3x3 (stride 1x1, dilation 1x1): tma; persistent")},
    {"depthwise 3x3 32 tiled hint", LG(32, 56, 56, 32, 32, 3, 3, 1, 1, 32), PLAIN, BF, SXM, "kernel=depthwise_tiled",
     MEMORY("kernel mem_depthwise: depthwise 3x3 (stride 1x1, dilation 1x1): tiled; persistent")},
    {"depthwise 3x3 32 A100", LG(32, 56, 56, 32, 32, 3, 3, 1, 1, 32), PLAIN, BF, A100, "",
     MEMORY("kernel mem_depthwise: depthwise 3x3 (stride 1x1, dilation 1x1): tiled; persistent")},
    {"depthwise 7x7 192", LG(32, 28, 28, 192, 192, 7, 7, 1, 3, 192), FUSED, BF, SXM, "",
     MEMORY("kernel mem_depthwise: depthwise 7x7 (stride 1x1, dilation 1x1): tiled; persistent")},
    {"depthwise 3x3 384", LG(32, 14, 14, 384, 384, 3, 3, 1, 1, 384), PLAIN, BF, SXM, "",
     MEMORY("kernel mem_depthwise: depthwise 3x3 (stride 1x1, dilation 1x1): tiled; persistent")},
    {"depthwise 3x3 s2 144", LG(32, 56, 56, 144, 144, 3, 3, 2, 1, 144), FUSED, BF, SXM, "",
     MEMORY("kernel mem_depthwise: depthwise 3x3 (stride 2x2, dilation 1x1): tma; persistent")},
    {"depthwise 3x3 32 mma hint", LG(32, 56, 56, 32, 32, 3, 3, 1, 1, 32), PLAIN, BF, SXM, "kernel=depthwise_mma",
     MEMORY("kernel mem_depthwise: depthwise 3x3 (stride 1x1, dilation 1x1): mma.sync; persistent")},
    {"depthwise 7x1", LG(8, 28, 28, 64, 64, 7, 1, 1, 0, 64), PLAIN, BF, SXM, "",
     MEMORY("kernel mem_depthwise: depthwise 7x1 (stride 1x1, dilation 1x1): mma.sync; persistent")},
    {"depthwise 9x9 (81 taps)", LG(8, 28, 28, 64, 64, 9, 9, 1, 4, 64), PLAIN, BF, SXM, "",
     MEMORY("generic taps")},
    {"depthwise 5x5 A100", LG(8, 28, 28, 240, 240, 5, 5, 2, 2, 240), PLAIN, F16, A100, "",
     MEMORY("kernel mem_depthwise: depthwise 5x5 (stride 2x2")},
    {"grouped 3x3 g32", LG(32, 28, 28, 256, 256, 3, 3, 1, 1, 32), PLAIN, BF, SXM, "",
     MEMORY("kernel mem_grouped: grouped conv (32 groups of 8 -> 8 channels, filter 3x3), tiled: items of")},
    {"grouped 3x3s2 g32 A100", LG(8, 14, 14, 1024, 1024, 3, 3, 2, 1, 32), FUSED, F16, A100, "",
     MEMORY("kernel mem_grouped: grouped conv (32 groups of 32 -> 32 channels, filter 3x3), tiled: items of")},
    {"grouped 3x3 g32 of 4", LG(8, 56, 56, 128, 128, 3, 3, 1, 1, 32), PLAIN, BF, SXM, "",
     MEMORY("gathered (not the tiled kernel: c/g = 4, k/g = 4: the tiled kernel takes multiples of 8)")},
    {"grouped 3x3 g32 gather hint", LG(32, 28, 28, 256, 256, 3, 3, 1, 1, 32), PLAIN, BF, SXM, "filter_resident=-1",
     MEMORY("gathered (not the tiled kernel: filter_resident = -1)")},
    /* groups of 32: slabs of two groups on the sm90 cooperative kernel, the grouped family deferring;
     * groups of 64: tiles inside one group (heuristics_grouped.c) */
    {"resnext_g32_3x3s2_1024", LG(32, 14, 14, 1024, 1024, 3, 3, 2, 1, 32), PLAIN, BF, SXM, "",
     {FAM_CONV, IGEMM_KERNEL_COOPERATIVE, 128, 64, 2, 8, 2, 0, 0, 1, 132, 1, 0,
      "mem_grouped not taken: c/g = 32, k/g = 32: the sm90 grouped tiles take these groups"}},
    {"grouped 3x3 g4 (64 channels per group)", LG(8, 14, 14, 256, 256, 3, 3, 1, 1, 4), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 128, 64, 2, 8, 2, 0, 0, 1, 52, 1)},
    /* narrow 1x1s (c <= 64, k <= 16, 256+ pixels): the narrow family, on Hopper and Ampere; */
    {"mbv2_project_32_16", L(32, 112, 112, 32, 16, 1, 1, 1, 0), FUSED, BF, SXM, "",
     MEMORY("kernel mem_narrow: narrow 1x1 (c = 32, k = 16)")},
    {"seg_head_1x1_2 A100", L(4, 512, 512, 32, 2, 1, 1, 1, 0), PLAIN, F16, A100, "",
     MEMORY("kernel mem_narrow: narrow 1x1 (c = 32, k = 2)")},
    /* the wider instance: c <= 160, k <= 24 with 2+ 16-pixel blocks per resident warp (M >= 67584 on
     * 132 SMs, 55296 on 108), with or without the residual; not at batch 8 (M 25088) nor k = 32 */
    {"mbv2_project_144_24", L(32, 56, 56, 144, 24, 1, 1, 1, 0), FUSED, BF, SXM, "",
     MEMORY("kernel mem_narrow: narrow 1x1 (c = 144, k = 24)")},
    {"mbv2_project_96_24 A100", L(32, 56, 56, 96, 24, 1, 1, 1, 0), PLAIN, F16, A100, "",
     MEMORY("kernel mem_narrow: narrow 1x1 (c = 96, k = 24)")},
    {"mbv2_project_144_24 b8", L(8, 56, 56, 144, 24, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 128, 64, 2, 8, 2, 0, 0, 1, 132, 1)},
    {"mbv2_project_144_32 b128", L(128, 28, 28, 144, 32, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PINGPONG, 128, 64, 2, 8, 2, 0, 0, 1, 132, 1)},
    /* few-row problems (M <= 128, 32+ k-blocks) whose N / 32 tiles fill 3/4 to all of the SMs:
     * narrow row tiles over the whole K (64 x 32 with one consumer for M <= 64, 128 x 32 else; up
     * to 16 stages, no staging boxes); the others: pixels as N with split-K in a cluster (2
     * staging boxes: the partial tile), at most 8 splits (a cluster); 64-channel tiles where their
     * units fill the SMs in clusters of 2 (half of them in clusters of 4+) */
    {"decode_b64 (GEMM 64x4096x4096)", L(1, 1, 64, 4096, 4096, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 64, 32, 1, 16, 0, 0, 0, 1, 128, 1)},
    {"decode_b64 fused (one consumer: plain epilogues only; the split plan)", L(1, 1, 64, 4096, 4096, 1, 1, 1, 0), FUSED,
     BF, SXM, "", CONV(PIXELS_N, 64, 64, 2, 8, 2, 0, 0, 2, 128, 1)},
    {"decode_b96 fused (128 x 32: any epilogue)", L(1, 1, 96, 4096, 4096, 1, 1, 1, 0), FUSED, BF, SXM, "",
     CONV(COOPERATIVE, 128, 32, 2, 11, 0, 0, 0, 1, 128, 1)},
    {"decode_b32 (the 32-pixel split plan)", L(1, 1, 32, 4096, 4096, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PIXELS_N, 32, 64, 2, 8, 2, 0, 0, 2, 128, 1)},
    {"decode_b64 K 14336 (224 k-blocks: the split plan)", L(1, 1, 64, 14336, 4096, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PIXELS_N, 64, 64, 2, 8, 2, 0, 0, 2, 128, 1)},
    {"decode_b64 N 2048 (64 tiles: the split plan)", L(1, 1, 64, 4096, 2048, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PIXELS_N, 64, 128, 2, 8, 2, 0, 0, 4, 64, 1)},
    {"classifier b32 (GEMM 32x1000x2048)", L(1, 1, 32, 2048, 1000, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(PIXELS_N, 32, 64, 2, 8, 2, 0, 0, 4, 64, 1)},
    {"r50_l4_3x3_512_b1", L(1, 7, 7, 512, 512, 3, 3, 1, 1), FUSED, BF, SXM, "",
     CONV(PIXELS_N, 64, 64, 2, 8, 2, 0, 0, 8, 64, 1)},
    {"decode_b64 (GEMM 64x4096x4096), 128 channels", L(1, 1, 64, 4096, 4096, 1, 1, 1, 0), PLAIN, BF, SXM,
     "kernel=pixels_n,tile=64x128,split_k=2", CONV(PIXELS_N, 64, 128, 2, 8, 2, 0, 0, 2, 64, 1)},
    {"decode_b128 (GEMM 128x4096x4096)", L(1, 1, 128, 4096, 4096, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 128, 32, 2, 11, 0, 0, 0, 1, 128, 1)},
    {"decode_b128, 3 of 4 SMs' tiles short (N 3072: 96 tiles)", L(1, 1, 128, 4096, 3072, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(SPLIT_CLUSTER, 128, 128, 2, 6, 2, 0, 0, 1, 48, 1)},
    /* long mainloops (K >= 8192 over few tiles): 128 x 128 tiles, split so that one wave of
     * 128-256-k-block units covers the SMs (docs/decisions.md "long-k") */
    {"wide_k (GEMM 1024x1024x32768)", L(1, 1, 1024, 32768, 1024, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 2, 128, 1)},
    {"GEMM 1024x2048x32768 (one wave, no split)", L(1, 1, 1024, 32768, 2048, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 1, 128, 1)},
    {"GEMM 512x512x65536", L(1, 1, 512, 65536, 512, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 8, 128, 1)},
    {"GEMM 1024x1024x16384 (split in cluster)", L(1, 1, 1024, 16384, 1024, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(SPLIT_CLUSTER, 128, 128, 2, 6, 2, 0, 0, 1, 128, 1)},
    {"GEMM 2048x2048x16384 (one wave of 256 x 128)", L(1, 1, 2048, 16384, 2048, 1, 1, 1, 0), PLAIN, BF, SXM, "",
     CONV(COOPERATIVE, 256, 128, 2, 4, 2, 0, 0, 1, 128, 1)},
};

/* Each hint field at least once, honoured. */
static const hrow_t k_hinted[] = {
    {"r50_l1_3x3_64", L(32, 56, 56, 64, 64, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=cooperative",
     CONV(COOPERATIVE, 128, 64, 2, 8, 2, 0, 0, 1, 132, 1)},
    {"vgg_3x3_256", L(16, 56, 56, 256, 256, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=pingpong",
     CONV(PINGPONG, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    {"r50_l3_1x1_512_256", L(32, 28, 28, 512, 256, 1, 1, 1, 0), PLAIN, BF, SXM, "kernel=pixels_n",
     CONV(PIXELS_N, 80, 128, 2, 7, 2, 0, 0, 1, 132, 1)},
    {"vgg_3x3_64", L(16, 224, 224, 64, 64, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=pixels_n_pingpong",
     CONV(PIXELS_N_PINGPONG, 128, 64, 2, 7, 1, 1, 0, 1, 132, 1)},
    {"vgg_3x3_64", L(16, 224, 224, 64, 64, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=pixels_n_pingpong,filter_resident=-1,grid=8",
     CONV(PIXELS_N_PINGPONG, 128, 64, 2, 8, 1, 0, 0, 1, 8, 1)},
    {"r50_l1_3x3_64", L(32, 56, 56, 64, 64, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=halo_rows,rows_per_tile=1",
     CONV(HALO_ROWS, 56, 64, 2, 8, 1, 1, 1, 1, 132, 1)},
    {"r50_l1_3x3_64", L(32, 56, 56, 64, 64, 3, 3, 1, 1), FUSED, BF, SXM, "kernel=halo_rows,staging_boxes=2",
     CONV(HALO_ROWS, 112, 64, 3, 8, 2, 1, 2, 1, 132, 1)},
    {"vgg_3x3_64", L(16, 224, 224, 64, 64, 3, 3, 1, 1), FUSED, BF, SXM, "kernel=halo_rows,consumers=2",
     CONV(HALO_ROWS, 112, 64, 2, 6, 2, 1, 1, 1, 132, 1)},
    {"r50_l1_3x3_64", L(32, 56, 56, 64, 64, 3, 3, 1, 1), PLAIN, BF, SXM, "rows_per_tile=1",
     CONV(HALO_ROWS, 56, 64, 2, 8, 1, 1, 1, 1, 132, 1)},
    {"r50_conv1", L(32, 224, 224, 3, 64, 7, 7, 2, 3), PLAIN, BF, SXM, "kernel=stem_rows,stem_prepass=1",
     STEM(0, 112, 8, 132, 1)},
    {"r50_conv1", L(32, 224, 224, 3, 64, 7, 7, 2, 3), PLAIN, BF, SXM, "kernel=stem_rows,grid=16,stages=3,pdl=-1",
     STEM(1, 112, 3, 16, 0)},
    {"r50_conv1", L(32, 224, 224, 3, 64, 7, 7, 2, 3), PLAIN, BF, SXM, "kernel=fold",
     FOLD(2, PINGPONG, 128, 64, 2, 8, 2, 1, 0, 1, 132, 1)},
    {"r50_conv1", L(32, 224, 224, 3, 64, 7, 7, 2, 3), PLAIN, BF, SXM, "kernel=fold,fold_rows=1",
     FOLD(1, PINGPONG, 128, 64, 2, 8, 2, 1, 0, 1, 132, 1)},
    {"r50_conv1", L(32, 224, 224, 3, 64, 7, 7, 2, 3), FUSED, BF, SXM, "kernel=fold,fold_rows=2",
     FOLD(2, PINGPONG, 128, 64, 2, 8, 4, 1, 0, 1, 132, 1)},
    {"vgg_3x3_256", L(16, 56, 56, 256, 256, 3, 3, 1, 1), PLAIN, BF, SXM, "tile=128x64",
     CONV(COOPERATIVE, 128, 64, 2, 8, 2, 0, 0, 1, 132, 1)},
    {"vgg_3x3_256", L(16, 56, 56, 256, 256, 3, 3, 1, 1), PLAIN, BF, SXM, "tile_m=256",
     CONV(COOPERATIVE, 256, 128, 2, 4, 2, 0, 0, 1, 132, 1)},
    {"r50_l3_1x1_512_256", L(32, 28, 28, 512, 256, 1, 1, 1, 0), PLAIN, BF, SXM, "tile_n=256",
     CONV(COOPERATIVE, 128, 256, 2, 4, 2, 0, 0, 1, 132, 1)},
    {"vgg_3x3_512", L(16, 28, 28, 512, 512, 3, 3, 1, 1), PLAIN, BF, SXM, "consumers=3",
     CONV(COOPERATIVE, 192, 128, 3, 4, 2, 0, 0, 1, 132, 1)},
    {"vgg_3x3_128", L(16, 112, 112, 128, 128, 3, 3, 1, 1), PLAIN, BF, SXM, "stages=3",
     CONV(PINGPONG, 128, 128, 2, 3, 2, 0, 0, 1, 132, 1)},
    {"r50_l4_3x3_512", L(32, 7, 7, 512, 512, 3, 3, 1, 1), PLAIN, BF, SXM, "split_k=2",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 2, 104, 0)},
    {"vgg_3x3_128", L(16, 112, 112, 128, 128, 3, 3, 1, 1), PLAIN, BF, SXM, "grid=64",
     CONV(PINGPONG, 128, 128, 2, 6, 2, 0, 0, 1, 64, 1)},
    {"r50_l2_1x1_256_128", L(32, 56, 56, 256, 128, 1, 1, 1, 0), FUSED, BF, SXM, "staging_boxes=2",
     CONV(PINGPONG, 128, 128, 2, 4, 2, 0, 0, 1, 132, 1)},
    {"r50_l2_ds_256_512", L(32, 56, 56, 256, 512, 1, 1, 2, 0), PLAIN, BF, SXM, "filter_resident=-1",
     CONV(PINGPONG, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    /* (18 resident filter slots of 128 x 64 do not fit: the ring plan stays) */
    {"vgg_3x3_128", L(16, 112, 112, 128, 128, 3, 3, 1, 1), PLAIN, BF, SXM, "filter_resident=1",
     CONV(PINGPONG, 128, 128, 2, 6, 2, 0, 0, 1, 132, 1)},
    {"r50_l1_1x1_64_64", L(32, 56, 56, 64, 64, 1, 1, 1, 0), PLAIN, BF, SXM, "filter_resident=1",
     CONV(PINGPONG, 128, 64, 2, 8, 2, 1, 0, 1, 132, 1)},
    {"r50_l1_1x1_64_64", L(32, 56, 56, 64, 64, 1, 1, 1, 0), PLAIN, BF, SXM, "pdl=-1",
     CONV(PINGPONG, 128, 64, 2, 8, 2, 0, 0, 1, 132, 0)},
    {"r50_l3_1x1_512_256", L(32, 28, 28, 512, 256, 1, 1, 1, 0), PLAIN, BF, SXM, "kernel=cooperative,tile=128x128,grid=16,pdl=1",
     CONV(COOPERATIVE, 128, 128, 2, 6, 2, 0, 0, 1, 16, 1)},
    {"split in cluster, 8 tiles", L(8, 7, 7, 512, 256, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=split_cluster",
     CONV(SPLIT_CLUSTER, 128, 128, 2, 6, 2, 0, 0, 1, 16, 1)},
    /* (the fold's folded problem is planned under the hints other than kernel) */
    {"r50_conv1 f32 y", L(32, 224, 224, 3, 64, 7, 7, 2, 3), PLAIN, F32OUT, SXM, "fold_rows=2,tile=128x64",
     FOLD(2, COOPERATIVE, 128, 64, 2, 8, 2, 0, 0, 1, 132, 1)},
    {"r50_l3_3x3_256", L(32, 14, 14, 256, 256, 3, 3, 1, 1), PLAIN, BF, PCIE, "kernel=pixels_n",
     CONV(PIXELS_N, 80, 128, 2, 7, 2, 0, 0, 1, 114, 1)},
    /* (a tile hint with another kernel named is that kernel's tile, not a row tile) */
    {"r50_l3_1x1_512_256", L(32, 28, 28, 512, 256, 1, 1, 1, 0), PLAIN, BF, SXM, "kernel=pixels_n,tile_m=208",
     CONV(PIXELS_N, 208, 128, 2, 2, 2, 0, 0, 1, 132, 1)},
    {"r50_l3_1x1_512_256", L(32, 28, 28, 512, 256, 1, 1, 1, 0), PLAIN, BF, SXM, "kernel=pixels_n,tile_m=96,staging_boxes=1",
     CONV(PIXELS_N, 96, 128, 2, 7, 1, 0, 0, 1, 132, 1)},
    {"vgg_3x3_64", L(16, 224, 224, 64, 64, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=halo_rows,consumers=3",
     CONV(HALO_ROWS, 112, 64, 3, 7, 1, 1, 1, 1, 132, 1)},
    {"r50_l1_3x3_64", L(32, 56, 56, 64, 64, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=halo_rows,tile_m=56",
     CONV(HALO_ROWS, 56, 64, 2, 8, 1, 1, 1, 1, 132, 1)},
};

/* Hints that cannot be honoured: the planner refuses (the message says why) or, without a kernel
 * hint, another family takes the problem. */
static const hrow_t k_refused[] = {
    {"r50_l3_3x3_256", L(32, 14, 14, 256, 256, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=split_cluster",
     FAILS("at most SMs/2 tiles of 128x128")},
    {"r50_l1_3x3_64", L(32, 56, 56, 64, 64, 3, 3, 1, 1), PLAIN, F32OUT, SXM, "kernel=pingpong",
     FAILS("needs TMA stores of y")},
    {"r50_l4_3x3_512", L(32, 7, 7, 512, 512, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=split_cluster,grid=8",
     FAILS("and no grid hint")},
    {"vgg_3x3_128", L(16, 112, 112, 128, 128, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=halo_rows",
     FAILS("hints.kernel = halo_rows: takes 3x3")},
    {"vgg_3x3_64", L(16, 224, 224, 64, 64, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=halo_rows,rows_per_tile=2",
     FAILS("hints.kernel = halo_rows: takes 3x3")},
    {"r50_l1_1x1_64_64", L(32, 56, 56, 64, 64, 1, 1, 1, 0), PLAIN, BF, SXM, "kernel=stem_rows",
     FAILS("the stem path takes c <= 4")},
    {"r50_l1_1x1_64_64", L(32, 56, 56, 64, 64, 1, 1, 1, 0), PLAIN, BF, SXM, "kernel=fold", FAILS("is a multiple of 8")},
    /* (no 64-row tile: without a kernel hint the general path takes it) */
    {"vgg_3x3_128", L(16, 112, 112, 128, 128, 3, 3, 1, 1), PLAIN, BF, SXM, "tile=64x64",
     GENERAL("no tile of the hinted shape")},
    {"vgg_3x3_128", L(16, 112, 112, 128, 128, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=pixels_n_pingpong",
     FAILS("takes k <= 64")},
    {"r50_l1_1x1_64_64", L(32, 56, 56, 64, 64, 1, 1, 1, 0), PLAIN, BF, SXM, "kernel=cooperative,split_k=64",
     FAILS("no tile of the hinted shape")},
    {"r50_l1_3x3_64", L(32, 56, 56, 64, 64, 3, 3, 1, 1), PLAIN, BF, A100, "kernel=pingpong", FAILS("device cc 8.0")},
    /* (224-pixel rows: no two-row tiles; the 128-pixel plan the halo rows would replace) */
    {"vgg_3x3_64", L(16, 224, 224, 64, 64, 3, 3, 1, 1), PLAIN, BF, SXM, "rows_per_tile=2",
     CONV(PIXELS_N_PINGPONG, 128, 64, 2, 7, 1, 1, 0, 1, 132, 1)},
    {"r50_conv1", L(32, 224, 224, 3, 64, 7, 7, 2, 3), PLAIN, F32OUT, SXM, "kernel=stem_rows",
     FAILS("stores y of the input's 16-bit dtype")},
    {"r50_conv1", L(32, 224, 224, 3, 64, 7, 7, 2, 3), PLAIN, BF, SXM, "kernel=cooperative",
     FAILS("c = 3: TMA im2col needs c % 8 == 0")},
    {"depthwise 3x3 32", LG(32, 56, 56, 32, 32, 3, 3, 1, 1, 32), PLAIN, BF, SXM, "kernel=cooperative",
     FAILS("groups = 32, c/g = 1, k/g = 1: the TMA im2col path takes groups of c/g = 32")},
    {"r50_l1_3x3_64", L(32, 56, 56, 64, 64, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=pixels_n,tile_n=64",
     FAILS("no pixels-as-N tile")},
    /* (a hint the plan cannot honour fails, it is not ignored: the cooperative plans' staging boxes
     * are fixed) */
    {"vgg_3x3_256", L(16, 56, 56, 256, 256, 3, 3, 1, 1), PLAIN, BF, SXM, "kernel=cooperative,staging_boxes=3",
     FAILS("hints.staging_boxes = 3")},
};

TEST(heur_bench_layers) { run_table(k_layers, (int)(sizeof k_layers / sizeof k_layers[0])); }
TEST(heur_hints) { run_table(k_hinted, (int)(sizeof k_hinted / sizeof k_hinted[0])); }
TEST(heur_hints_refused) { run_table(k_refused, (int)(sizeof k_refused / sizeof k_refused[0])); }

/* Every plan the planner makes has its kernel instance compiled: plans of many problems (the layers
 * above, random shapes, both dtypes, every epilogue kind, f32 and k % 8 != 0 outputs, with and
 * without hints) on the fake devices, each plan's instance key looked up in the generated tables
 * (a plan without an instance fails at its first run with an internal error). */
#include "sm90/instances.h"

static void check_instance(const struct igemm_plan *plan, const igemm_stage_t *st, const igemm_conv_params_t *p,
                           const char *what, int *checked)
{
    if (st->family == NULL) return;
    sm90_instance_t key;
    if (!strcmp(st->family->name, "sm90_tma_wgmma"))
        igemm_sm90_conv_instance_key(p, igemm_family_priv(&st->cfg, const sm90_plan_t), &key);
    else if (!strcmp(st->family->name, "sm90_stem_tma_wgmma"))
        igemm_sm90_stem_instance_key(p, igemm_family_priv(&st->cfg, const stem_plan_t), &key);
    else
        return;
    (*checked)++;
    CHECK_MSG(igemm_sm90_instance_find(&key) != NULL,
              "%s: no instance of kernel %d dtype %d tile %dx%d wm %d nc %d bres %d rows %d ks %d tma %d epi %d (%s)", what,
              key.kernel, key.dtype, key.bm, key.bn, key.wm, key.nc, key.bres, key.rows, key.ks, key.tma, key.epi,
              plan->describe);
}

TEST(heur_every_plan_has_its_instance)
{
    static const char *const hints[] = {"", "kernel=pingpong", "kernel=cooperative,split_k=2", "kernel=pixels_n",
                                        "kernel=pixels_n_pingpong", "kernel=halo_rows", "kernel=split_cluster",
                                        "tile=256x64", "consumers=3", "filter_resident=1", "kernel=fold"};
    static const int acts[] = {IGEMM_ACT_NONE, IGEMM_ACT_RELU, IGEMM_ACT_GELU_TANH};
    uint64_t g = 0x1234567ull;
    int checked = 0;
    for (int i = 0; i < 3000; i++) {
        g = g * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t u = g >> 16;
        static const int64_t cs[] = {1, 3, 4, 8, 16, 24, 64, 128, 256, 512};
        static const int64_t ks[] = {8, 16, 40, 64, 72, 128, 200, 256, 512, 1024};
        static const int64_t hw[] = {7, 14, 16, 28, 56, 57, 112, 224};
        igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
        d.n = 1 + (int64_t)(u % 8) * 4;
        d.h = d.w = hw[(u >> 3) % 8];
        d.c = cs[(u >> 6) % 10];
        d.k = ks[(u >> 10) % 10];
        d.r = d.s = (u >> 14) % 3 == 0 ? 1 : (u >> 14) % 3 == 1 ? 3 : 7;
        d.stride_h = d.stride_w = 1 + (int64_t)((u >> 16) % 2);
        d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = d.r / 2;
        d.x_dtype = d.w_dtype = (u >> 17) % 2 ? IGEMM_DTYPE_F16 : IGEMM_DTYPE_BF16;
        d.y_dtype = (u >> 18) % 5 == 0 ? IGEMM_DTYPE_F32 : d.x_dtype;
        igemm_epilogue_t e = igemm_epilogue_default();
        e.activation = (igemm_activation_t)acts[(u >> 20) % 3];
        e.has_bias = (int)((u >> 22) % 2);
        e.has_residual = (int)((u >> 23) % 2);
        static struct igemm_plan plan;
        memset(&plan, 0, sizeof plan);
        if (igemm_problem_init(&d, &e, &plan.params) != IGEMM_STATUS_SUCCESS) continue;
        REQUIRE(igemm_plan_hints_parse(hints[(u >> 24) % 11], &plan.hints) == IGEMM_STATUS_SUCCESS);
        plan.dev = fake_device((int)((u >> 28) % 3));
        if (igemm_planner_choose(&plan, IGEMM_PATH_AUTO) != IGEMM_STATUS_SUCCESS) continue;
        char what[128];
        snprintf(what, sizeof what, "case %d (hints \"%s\")", i, hints[(u >> 24) % 11]);
        check_instance(&plan, &plan.main, &plan.params, what, &checked);
        check_instance(&plan, &plan.inner, &plan.inner_params, what, &checked);
    }
    CHECK_MSG(checked > 1500, "only %d sm90 plans checked", checked);
}



#endif /* IGEMM_HAVE_CUDA */
