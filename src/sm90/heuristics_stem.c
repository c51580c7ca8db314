/*
 * heuristics_stem.c — supports() and configure() of the two sm90 families for few input
 * channels, in plain C (CPU-tested in tests/test_heuristics.c):
 *   stem rows (family_stem.cu, conv_stem_rows.cuh): c <= 4 with stride 2 along W — the
 *     geometry of pixel pairs, tiles and the shared-memory carve, and raw mode (the kernel reads
 *     x itself) against pre-pass mode;
 *   fold (family_fold.cu): the other c % 8 != 0 layers — how many filter rows F to fold into
 *     each pixel (a cost model), and the folded problem the planner plans for the conv kernels.
 */
#include <stdio.h>
#include <string.h>

#include "instances.h"
#include "sm90.h"

#define WHY(...)                                                                                       \
    do {                                                                                               \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                       \
    } while (0)

static size_t align256(size_t v) { return (v + 255) & ~(size_t)255; }

/* ------------------------------------------------------------------ stem rows */

static int64_t floor_div2(int64_t v) { return v >= 0 ? v / 2 : -((1 - v) / 2); }

static int64_t round_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

#define STEM_MAX_WORKSPACE ((int64_t)2 << 30)

/* Raw mode (the kernel loads x's row segments by TMA and repacks them into pixel pairs in shared
 * memory): x's rows must be 16-byte multiples (TMA strides), i.e. w c % 8 == 0; otherwise, or with
 * hints.stem_prepass, a pre-pass writes x4 and the kernel loads its pairs. */
static int stem_raw_fits(const igemm_conv_params_t *p)
{
    return (p->w * p->c) % 8 == 0 && p->w * p->c < ((int64_t)1 << 31);
}

static int stem_raw_ok(const igemm_conv_params_t *p, const igemm_plan_hints_t *h)
{
    return h->stem_prepass != 1 && stem_raw_fits(p);
}

void igemm_sm90_stem_geometry(const igemm_conv_params_t *p, int raw, stem_geom_t *g)
{
    g->d_lo = floor_div2(-p->pad_left);
    g->s2 = floor_div2(p->s - 1 - p->pad_left) - g->d_lo + 1;
    g->ks = (g->s2 + 1) / 2;
    /* the tile width that wastes the fewest pixel columns (ties: the wider) */
    const int64_t t112 = (p->q + 111) / 112, t128 = (p->q + 127) / 128;
    g->tp = t112 * 112 < t128 * 128 ? 112 : 128;
    g->tiles_q = g->tp == 112 ? t112 : t128;
    g->raw = raw;
    g->w2 = ((p->w + 1) / 2 + 7) / 8 * 8;
    if (g->raw) {
        /* a stage holds the chunks of the tile's R row segments; each consumer repacks its tile
         * into R rows of the pairs it reads (from q0 + d_lo) */
        const int64_t rowp = STEM_ROW_PAIRS(g->tp, g->ks);
        g->ng = 0;
        g->nch = STEM_RAW_NCH(p->c, rowp);
        g->row_bytes = rowp * 16;
        g->stage_bytes = g->nch * STEM_RAW_PITCH(p->r);
        g->pair_bytes = round_up(p->r * g->row_bytes, 128);
        g->x4_bytes = 0;
    } else {
        /* the tile's TP + 2 KS - 1 pairs start at any pair of a group: up to 7 more */
        g->ng = (7 + g->tp + 2 * g->ks - 1 + 7) / 8;
        g->nch = 0;
        g->row_bytes = g->ng * 128;
        g->stage_bytes = p->r * g->row_bytes;
        g->pair_bytes = 0;
        g->x4_bytes = p->n * p->h * g->w2 * 16;
    }
    g->w_bytes = p->r * g->ks * (int64_t)STEM_STEP_BYTES;
}

/* The stages, the consumers' pair buffers (raw mode), the staging boxes (1024-aligned:
 * 128B-swizzled TMA), the filter, the barriers; and the total with the alignment slack. */
void igemm_sm90_stem_layout(const stem_geom_t *g, int64_t stages, stem_carve_t *c)
{
    c->pair_off = stages * g->stage_bytes;
    c->e_off = round_up(c->pair_off + (int64_t)STEM_NC * g->pair_bytes, 1024);
    c->w_off = c->e_off + (int64_t)STEM_NC * STEM_EB * g->tp * 128;
    c->bar_off = c->w_off + g->w_bytes;
    c->total = 1024 + c->bar_off + 8 * (2 * stages + 2 * STEM_NC * STEM_EB + STEM_NC + 1);
}

static int64_t stem_smem(const stem_geom_t *g, int64_t stages)
{
    stem_carve_t c;
    igemm_sm90_stem_layout(g, stages, &c);
    return c.total;
}

int igemm_sm90_stem_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                             char *why, size_t why_len)
{
    if (h->kernel && h->kernel != IGEMM_KERNEL_STEM_ROWS) {
        WHY("hints.kernel = %d names another kernel", h->kernel);
        return 0;
    }
    if (dev->cc_major != 9 || dev->cc_minor != 0) {
        WHY("device cc %d.%d: the stem kernel is built for sm_90a only", dev->cc_major, dev->cc_minor);
        return 0;
    }
    if (p->c > 4 || p->groups != 1) {
        WHY("c = %lld, groups = %lld: the stem path takes c <= 4, groups == 1", (long long)p->c, (long long)p->groups);
        return 0;
    }
    if (p->stride_w != 2 || p->dil_w != 1 || p->dil_h != 1) {
        WHY("stride_w = %lld, dilation %lldx%lld: the stem path takes stride_w 2 (pixel pairs) and no dilation",
            (long long)p->stride_w, (long long)p->dil_h, (long long)p->dil_w);
        return 0;
    }
    if ((p->in_dtype != IGEMM_DTYPE_BF16 && p->in_dtype != IGEMM_DTYPE_F16) || p->out_dtype != p->in_dtype) {
        WHY("dtypes in %d, out %d: the stem path stores y of the input's 16-bit dtype by TMA", (int)p->in_dtype,
            (int)p->out_dtype);
        return 0;
    }
    if (p->k > 64 || p->k % 8 != 0) {
        WHY("k = %lld: the stem path takes k <= 64, k %% 8 == 0 (one 64-channel tile, 16-byte rows)", (long long)p->k);
        return 0;
    }
    stem_geom_t g;
    igemm_sm90_stem_geometry(p, stem_raw_ok(p, h), &g);
    if (!STEM_HAS_INSTANCE(p->r, g.ks)) {
        WHY("filter %lldx%lld with pad_left %lld (%lld pixel-pair taps): the stem path has 3x3 (1 or 2 k16 steps "
            "per row), 4x4, 5x5 and 7x7 (up to 4 pair taps) instances",
            (long long)p->r, (long long)p->s, (long long)p->pad_left, (long long)g.s2);
        return 0;
    }
    const int64_t lim = (int64_t)1 << 30;
    if (p->n * p->p >= lim || p->n * p->p * g.tiles_q >= lim || p->h >= lim || g.w2 >= lim || p->q >= lim ||
        p->p * p->stride_h + p->r >= lim || p->pad_top >= lim || p->gemm_m >= ((int64_t)1 << 40) ||
        g.x4_bytes > STEM_MAX_WORKSPACE) {
        WHY("n*p = %lld, h = %lld, w = %lld: beyond the stem path's 32-bit tile and TMA coordinates or its "
            "2 GB workspace",
            (long long)(p->n * p->p), (long long)p->h, (long long)p->w);
        return 0;
    }
    if (p->k * p->r * p->s * p->c * 2 > (int64_t)STEM_NC * STEM_EB * g.tp * 128) { /* the fold's scratch */
        WHY("filter of %lld elements: more than the stem kernel's staging boxes hold while it folds them",
            (long long)(p->k * p->r * p->s * p->c));
        return 0;
    }
    if (stem_smem(&g, 2) > dev->smem_optin_per_block) {
        WHY("the stem tile needs %lld B of shared memory (device: %d)", (long long)stem_smem(&g, 2),
            dev->smem_optin_per_block);
        return 0;
    }
    return 1;
}

igemm_status_t igemm_sm90_stem_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                         const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    stem_plan_t *pl = igemm_family_priv(cfg, stem_plan_t);
    stem_geom_t g;
    igemm_sm90_stem_geometry(p, stem_raw_ok(p, h), &g);
    int64_t stages = STEM_MAX_STAGES;
    while (stages > 2 && stem_smem(&g, stages) > dev->smem_optin_per_block) stages--;
    if (h->stages >= 2 && h->stages < stages) stages = h->stages;
    const int sms = dev->sm_count > 0 ? dev->sm_count : 132;
    const int64_t tiles = p->n * p->p * g.tiles_q;
    memset(pl, 0, sizeof *pl);
    pl->tp = (int)g.tp;
    pl->stages = (int)stages;
    pl->threads = STEM_THREADS;
    pl->raw = g.raw; /* the run follows the plan's mode */
    pl->grid = (int)(tiles < sms ? tiles : sms);
    if (h->grid >= 1 && h->grid < pl->grid) pl->grid = h->grid; /* fewer CTAs, each many tiles (tests) */
    pl->smem_bytes = (size_t)stem_smem(&g, stages);
    pl->smem_limit = dev->smem_optin_per_block;
    pl->pdl = dev->driver_version >= 12030 && h->pdl >= 0;
    cfg->workspace_bytes = g.raw ? 0 : align256((size_t)g.x4_bytes);
    char how[160];
    if (g.raw)
        snprintf(how, sizeof how, "x read in place (w*c %% 8 == 0: row segments by TMA, repacked by each consumer to "
                                  "4-channel pixel pairs in shared memory)");
    else
        snprintf(how, sizeof how, "c=%lld padded to 4 channels as pixel pairs by a pre-pass (x4 %lld MB; %s)",
                 (long long)p->c, (long long)(g.x4_bytes >> 20),
                 stem_raw_fits(p) ? "hints.stem_prepass = 1" : "w*c % 8 != 0: x's rows are no 16-byte multiples");
    snprintf(cfg->desc, sizeof cfg->desc,
             "stem rows: %s, tile %lld pixels of one output row x 64 channels (pixels as wgmma N), the tile's %lld "
             "input rows staged once and %lld pair tap(s) per row read from them shifted (K'=%lld for %lld), filter "
             "resident in shared memory (laid out by each CTA), %lld stages, 1 producer + %d consumer warpgroups taking tiles "
             "in turn, y by TMA stores, grid %d over %lld tiles%s",
             how, (long long)g.tp, (long long)p->r, (long long)g.s2, (long long)(p->r * g.ks * 16),
             (long long)(p->r * p->s * p->c), (long long)stages, STEM_NC, pl->grid, (long long)tiles,
             pl->pdl ? ", programmatic dependent launch" : "");
    return IGEMM_STATUS_SUCCESS;
}

void igemm_sm90_stem_instance_key(const igemm_conv_params_t *p, const stem_plan_t *pl, sm90_instance_t *key)
{
    stem_geom_t g;
    igemm_sm90_stem_geometry(p, pl->raw, &g);
    memset(key, 0, sizeof *key); /* (dtype, TP, R, KS, epilogue) */
    key->kernel = IGEMM_KERNEL_STEM_ROWS;
    key->dtype = (int)p->in_dtype;
    key->bm = (int)g.tp;
    key->bn = 64;
    key->wm = 1;
    key->nc = STEM_NC;
    key->rows = (int)p->r;
    key->ks = (int)g.ks;
    key->tma = 1;
    key->epi = sm90_epi_kind(p);
}

/* ------------------------------------------------------------------ fold */

#define FOLD_MAX_WORKSPACE ((int64_t)2 << 30) /* x' is materialised: keep it bounded */

void igemm_sm90_fold_geometry_f(const igemm_conv_params_t *p, int64_t f, fold_geom_t *g)
{
    g->f = f;
    g->whole = 0;
    g->rp = (p->r + f - 1) / f;
    g->hp = (p->p - 1) * p->stride_h + (g->rp - 1) * f * p->dil_h + 1;
    g->used = f * p->s * p->c;
    g->cf = (g->used + 7) / 8 * 8;
    g->x_elems = p->n * g->hp * p->q * g->cf;
    g->w_elems = p->k * g->rp * g->cf;
}

/* The whole window folded, the vertical stride too: x' is the im2col matrix, [n, P, Q, C'] with
 * C' = roundup(R*S*C, 8), and the folded conv a 1x1 (family_fold.cu). */
void igemm_sm90_fold_geometry_whole(const igemm_conv_params_t *p, fold_geom_t *g)
{
    g->f = p->r;
    g->whole = 1;
    g->rp = 1;
    g->hp = p->p;
    g->used = p->r * p->s * p->c;
    g->cf = (g->used + 7) / 8 * 8;
    g->x_elems = p->n * g->hp * p->q * g->cf;
    g->w_elems = p->k * g->cf;
}

void igemm_sm90_fold_geometry_plan(const igemm_conv_params_t *p, const fold_plan_t *pl, fold_geom_t *g)
{
    if (pl->whole) igemm_sm90_fold_geometry_whole(p, g);
    else igemm_sm90_fold_geometry_f(p, pl->fold_rows >= 1 ? pl->fold_rows : 1, g);
}

/* The whole-window mode: where windows do not overlap along H (stride_h >= the filter's extent,
 * stride_h > 1: patch embeddings, kernel = stride; x' is no larger than the rows it reads), or
 * where folding rows cannot work (S*C > FOLD_C, or the folded conv's vertical stride over TMA's 8);
 * never with hints.fold_rows, and only up to FOLD_WHOLE_C channels. */
static int fold_whole(const igemm_conv_params_t *p, const igemm_plan_hints_t *h)
{
    if (h->fold_rows >= 1 || (p->r * p->s * p->c + 7) / 8 * 8 > FOLD_WHOLE_C) return 0;
    const int no_overlap = (p->r - 1) * p->dil_h + 1 <= p->stride_h && p->stride_h > 1;
    return no_overlap || p->s * p->c > FOLD_C || p->stride_h > 8;
}

/* F by the cost model of family_fold.cu's header comment (ties to the larger F), or
 * min(hints.fold_rows, the most that fit); or the whole window (fold_whole). */
static void fold_geometry(const igemm_conv_params_t *p, const igemm_plan_hints_t *h, fold_geom_t *g)
{
    if (fold_whole(p, h)) {
        igemm_sm90_fold_geometry_whole(p, g);
        return;
    }
    int64_t fmax = FOLD_C / (p->s * p->c);
    if (fmax > p->r) fmax = p->r;
    if (fmax < 1) fmax = 1;
    if (h->fold_rows >= 1) {
        igemm_sm90_fold_geometry_f(p, h->fold_rows < fmax ? h->fold_rows : fmax, g);
        return;
    }
    const double y_bytes = (double)p->gemm_m * (double)p->gemm_n * (p->out_dtype == IGEMM_DTYPE_F32 ? 4.0 : 2.0);
    double best = 0.0;
    for (int64_t f = fmax; f >= 1; f--) {
        fold_geom_t c;
        igemm_sm90_fold_geometry_f(p, f, &c);
        const double mem = ((double)c.x_elems * 2.0 + y_bytes) / 3.0e6;
        const double mma = (double)p->gemm_m * (double)p->gemm_n * (double)c.rp * 64.0 * 2.0 / 2.7e8;
        const double t = 1.26e-6 * (double)c.x_elems + (mem > mma ? mem : mma);
        if (f == fmax || t < best) {
            best = t;
            *g = c;
        }
    }
}

/* The derived problem the conv kernels run on x' and w'. */
void igemm_sm90_fold_params(const igemm_conv_params_t *p, const fold_geom_t *g, igemm_conv_params_t *d)
{
    *d = *p;
    d->h = g->hp;
    d->w = p->q;
    d->c = g->cf;
    d->cg = g->cf;
    d->r = g->rp;
    d->s = 1;
    d->pad_top = d->pad_bottom = d->pad_left = d->pad_right = 0;
    d->stride_w = 1;
    if (g->whole) d->stride_h = 1; /* x' row p is output row p */
    d->dil_h = g->whole ? 1 : g->f * p->dil_h;
    d->dil_w = 1;
    d->gemm_k = g->rp * g->cf;
    d->x = d->filter = NULL;
    d->scale = d->bias = NULL;
    d->residual = NULL;
    d->y = NULL;
}

int igemm_sm90_fold_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                             char *why, size_t why_len)
{
    fold_geom_t g;
    if (h->kernel && h->kernel != IGEMM_KERNEL_FOLD) {
        WHY("hints.kernel = %d names another kernel", h->kernel);
        return 0;
    }
    if (p->c % 8 == 0) {
        WHY("c = %lld is a multiple of 8: the direct TMA im2col path takes it", (long long)p->c);
        return 0;
    }
    if (p->groups != 1) {
        WHY("groups = %lld: the fold path takes groups == 1 only", (long long)p->groups);
        return 0;
    }
    if (p->s * p->c > FOLD_C && !fold_whole(p, h)) {
        WHY("s*c = %lld: one filter row must fold into %d channels (or the whole window into %d)",
            (long long)(p->s * p->c), FOLD_C, FOLD_WHOLE_C);
        return 0;
    }
    if ((p->h + p->pad_top + p->r * p->dil_h) * (p->w + p->pad_left + p->s * p->dil_w) * p->c >= ((int64_t)1 << 31) ||
        p->r * p->dil_h >= ((int64_t)1 << 20) || p->s * p->dil_w >= ((int64_t)1 << 20) ||
        p->q * p->stride_w >= ((int64_t)1 << 30)) {
        WHY("image of %lld elements or filter extent too large for the fold pre-pass's 32-bit offsets",
            (long long)(p->h * p->w * p->c));
        return 0;
    }
    fold_geometry(p, h, &g);
    if ((g.x_elems + g.w_elems) * 2 > FOLD_MAX_WORKSPACE) {
        WHY("folded input would take %lld MB of workspace (limit %lld MB)", (long long)((g.x_elems + g.w_elems) * 2 >> 20),
            (long long)(FOLD_MAX_WORKSPACE >> 20));
        return 0;
    }
    return 1;
}

igemm_status_t igemm_sm90_fold_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                         const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    fold_geom_t g;
    (void)dev;
    fold_geometry(p, h, &g);
    igemm_family_priv(cfg, fold_plan_t)->fold_rows = (int)g.f; /* run() folds with the plan's F */
    igemm_family_priv(cfg, fold_plan_t)->whole = (int)g.whole;
    cfg->workspace_bytes = align256((size_t)g.x_elems * 2) + align256((size_t)g.w_elems * 2);
    if (g.whole) {
        snprintf(cfg->desc, sizeof cfg->desc,
                 "fold the whole %lldx%lld window x c=%lld and the vertical stride into %lld channels (patch "
                 "embedding: x' is the im2col matrix, %lld x %lld, %lld MB; the conv a 1x1 over it)",
                 (long long)p->r, (long long)p->s, (long long)p->c, (long long)g.cf, (long long)(p->n * p->p * p->q),
                 (long long)g.cf, (long long)((size_t)g.x_elems * 2 >> 20));
        return IGEMM_STATUS_SUCCESS;
    }
    snprintf(cfg->desc, sizeof cfg->desc,
             "fold %lld filter row(s) x %lld taps x c=%lld into %lld channels (x' %lld MB, R'=%lld, K'=%lld)",
             (long long)g.f, (long long)p->s, (long long)p->c, (long long)g.cf, (long long)((size_t)g.x_elems * 2 >> 20),
             (long long)g.rp, (long long)(g.rp * g.cf));
    return IGEMM_STATUS_SUCCESS;
}

void igemm_sm90_fold_rewrite(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, igemm_conv_params_t *out)
{
    fold_geom_t g;
    igemm_sm90_fold_geometry_plan(p, igemm_family_priv(cfg, const fold_plan_t), &g);
    igemm_sm90_fold_params(p, &g, out);
}
