/*
 * heuristics.c — the sm90 conv family's supports() and configure(), in plain C: which Hopper
 * conv kernel (conv_cooperative.cuh, conv_pingpong.cuh, conv_pixels_n.cuh, conv_pixels_n_pingpong.cuh,
 * conv_halo_rows.cuh, conv_split_cluster.cuh) takes a problem, with which tile, ring depth, staging boxes
 * and grid. No CUDA call: tests/test_heuristics.c runs it on the CPU over fixed device
 * descriptions ("this layer on this GPU gets this plan").
 *
 * The cost model (microseconds on an H100-class SM) picks the row tile (WM, BN, consumer count
 * NC), the split and the stages:
 *   t_kblock = BM*BN*64*2 flop / (7.0e6 flop/us * eff); eff by tile (BM x BN): 128x256 1.0,
 *              256x128 1.05, 128x128 0.8 (rising to 0.97 from 64 to 192 k-blocks per unit),
 *              256x64 0.45, 128x64 0.65, 192x128 0.95 (NC = 3,
 *              estimated; only where its tiles make one wave: S4-3); x0.5 for a partial last
 *              N tile at BN = 256, x0.9 at BN = 128; x0.9 with fewer than 4 stages
 *   t_unit   = t_kblock * ceil(k_blocks / split) + 0.2 us (decode, barriers, drain) +
 *              BM*BN*out_bytes / 12.5e3 (the tile's output at an SM's share of bandwidth)
 *   t        = ceil(units / grid) * t_unit (+ for split > 1: 4 us + the partials' write and
 *              read at 3 TB/s), units = tiles * split, grid = min(units, SMs); x1.3 for a
 *              fused plan of several waves whose residual ring holds less than a tile.
 * The constants were fitted to a sweep of the five 2-consumer tiles over the 31 layers of
 * bench/shapes.csv (H200, docs/decisions.md "cost-model"): the picks are within 4% of each
 * layer's best tile. Rules after the search replace the pick where measurements said so
 * (heuristics_rules.c: wide tiles, ping-pong, pixels as N, pixels as N in ping-pong, halo rows,
 * split in cluster, narrow whole-K row tiles, pixels as N with split-K in a cluster, the resident
 * filter); here, after them: the ring cap of short fused 1x1 layers, programmatic dependent launch.
 *
 * Grouped convs (groups > 1): heuristics_grouped.c (supports' last check, configure's first).
 *
 * Hints (igemm_plan_hints_t, experimental) restrict the choice: kernel names the kernel; tile_m,
 * tile_n, consumers and split_k restrict the row tiles (with kernel = AUTO they also keep the
 * planner to the row-tile kernels); stages caps the ring; staging_boxes, grid, pdl,
 * filter_resident and rows_per_tile set what they name. Without hints the plan is the
 * measured default.
 */
#include <stdio.h>
#include <string.h>

#include "heuristics_rules.h"
#include "heuristics_smem.h"
#include "instances.h"
#include "sm90.h"

#define SM90_WHY(...)                                                                                  \
    do {                                                                                               \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                       \
    } while (0)

int igemm_tma_conv_geometry_ok(const igemm_conv_params_t *p, char *why, size_t why_len)
{
    const int64_t lim31 = ((int64_t)1 << 30); /* TMA coordinates are signed 32-bit: keep headroom */
    int64_t lo_w, lo_h, up_w, up_h;
    if (p->in_dtype != IGEMM_DTYPE_F16 && p->in_dtype != IGEMM_DTYPE_BF16) {
        SM90_WHY("x dtype = %d: the tensor-core paths take f16 or bf16 inputs", (int)p->in_dtype);
        return 0;
    }
    if (p->c % 8 != 0) {
        SM90_WHY("c = %lld: TMA im2col needs c %% 8 == 0 (16-byte pixel rows)", (long long)p->c);
        return 0;
    }
    if (p->stride_h > 8 || p->stride_w > 8) {
        SM90_WHY("stride = %lldx%lld: TMA traversal strides are at most 8", (long long)p->stride_h, (long long)p->stride_w);
        return 0;
    }
    if ((p->r - 1) * p->dil_h > 255 || (p->s - 1) * p->dil_w > 255) {
        SM90_WHY("filter extent (r-1)*dil_h = %lld, (s-1)*dil_w = %lld: 4-D im2col offsets are at most 255",
                 (long long)((p->r - 1) * p->dil_h), (long long)((p->s - 1) * p->dil_w));
        return 0;
    }
    sm90_corners(p, &lo_w, &lo_h, &up_w, &up_h);
    if (lo_w < -128 || lo_h < -128 || lo_w > 127 || lo_h > 127) {
        SM90_WHY("pad_top = %lld, pad_left = %lld: im2col lower corner -pad must be in [-128, 127]",
                 (long long)p->pad_top, (long long)p->pad_left);
        return 0;
    }
    if (up_w < -128 || up_h < -128 || up_w > 127 || up_h > 127) {
        SM90_WHY("im2col upper corner (w %lld, h %lld) = (out-1)*stride + 1 - size - pad_begin must be in "
                 "[-128, 127] (padding or filter extent too large)",
                 (long long)up_w, (long long)up_h);
        return 0;
    }
    if (p->n > lim31 || p->h > lim31 || p->w > lim31 || p->c > lim31 || p->k > lim31 || p->p > lim31 || p->q > lim31) {
        SM90_WHY("a dimension exceeds 2^30 (n %lld, h %lld, w %lld, c %lld, k %lld): TMA coordinates are 32-bit",
                 (long long)p->n, (long long)p->h, (long long)p->w, (long long)p->c, (long long)p->k);
        return 0;
    }
    /* byte strides < 2^40 (TMA): the largest are h*w*c*2 (x) and r*s*c*2 (filter) */
    if (p->h * p->w * p->c * 2 >= ((int64_t)1 << 40) || p->r * p->s * p->c * 2 >= ((int64_t)1 << 40)) {
        SM90_WHY("image or filter too large: TMA byte strides must be < 2^40");
        return 0;
    }
    if (p->gemm_m >= ((int64_t)1 << 31) - 512) {
        SM90_WHY("n*p*q = %lld output pixels: the TMA kernels index pixels with 32 bits (needs < 2^31 - 512)",
                 (long long)p->gemm_m);
        return 0;
    }
    const int64_t k_iters = p->r * p->s * ((p->c + SM90_BK - 1) / SM90_BK);
    const int64_t units = ((p->gemm_m + 127) / 128) * ((p->gemm_n + 63) / 64);
    if (k_iters > INT32_MAX / 2 || units > INT32_MAX / 2) {
        SM90_WHY("GEMM too large for 32-bit tile/k-block counters (M %lld, N %lld, k-blocks %lld)", (long long)p->gemm_m,
                 (long long)p->gemm_n, (long long)k_iters);
        return 0;
    }
    return 1;
}

int igemm_sm90_conv_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                             char *why, size_t why_len)
{
    if (h->kernel > IGEMM_KERNEL_SPLIT_CLUSTER) {
        SM90_WHY("hints.kernel = %d names another family's kernel", h->kernel);
        return 0;
    }
    if (dev->cc_major != 9 || dev->cc_minor != 0) {
        SM90_WHY("device cc %d.%d: the TMA/wgmma kernels are built for sm_90a only", dev->cc_major, dev->cc_minor);
        return 0;
    }
    if (!igemm_tma_conv_geometry_ok(p, why, why_len)) return 0;
    if (sm90_h_stages_for(128, 64, 2, sm90_h_epi_slots(128, 1, 64, 2, 1, 1, 0, 0, dev->smem_optin_per_block),
                   dev->smem_optin_per_block) < 2) {
        SM90_WHY("opt-in shared memory per block = %d B: too small for 2 pipeline stages", dev->smem_optin_per_block);
        return 0;
    }
    if (p->groups != 1) return sm90_grouped_supports(p, h, why, why_len); /* heuristics_grouped.c */
    return 1;
}

/* The cost-model search over the row tiles (cooperative, or ping-pong where forced) and splits;
 * returns 0 (best unset) if no tile fits. */
static int search_row_tiles(const ctx_t *c, const igemm_plan_hints_t *h, int fpp, pick_t *best, double *best_t)
{
    /* (WM, BN, consumers, ping-pong): tile rows 64 * WM * consumers, or 64 * WM in ping-pong */
    static const int cand[12][4] = {{1, 256, 2, 0}, {2, 128, 2, 0}, {1, 128, 2, 0}, {2, 64, 2, 0},
                                    {1, 64, 2, 0},  {1, 128, 3, 0}, {2, 128, 2, 1}, {2, 64, 2, 1},
                                    {1, 32, 2, 0},  {1, 32, 1, 0},  {1, 256, 2, 1}, {1, 128, 2, 1}};
    static const double cand_eff[12] = {1.0, 1.05, 0.8, 0.45, 0.65, 0.95, 0.8, 0.65, 0.3, 0.3, 0.5, 0.5};
    const int64_t M = c->M, N = c->N;
    const int fbn = h->tile_n, fnc = h->consumers, fsp = h->split_k;
    *best = mkpick(0, 0, 2, 1, 0, 0, 0, 0);
    for (int ci = 0; ci < 12; ci++) {
        const int wm = cand[ci][0], bn = cand[ci][1], nc = cand[ci][2], pp = cand[ci][3];
        const int bm = pp ? 64 * wm : 64 * wm * nc;
        if (pp != fpp) continue;
        /* the 64-row ping-pong tiles (64 x 128 / 256, filter resident): sm90_rule_whole_n, or hinted by tile_m = 64 */
        if (pp && wm == 1 && h->tile_m != 64) continue;
        if (fnc && nc != fnc) continue;
        if (h->tile_m && bm != h->tile_m) continue;
        if (fbn) {
            if (bn != fbn) continue;
        } else {
            if (bn == 256 && N <= 128) continue;
            if (bn == 128 && N <= 64) continue;
        }
        double eff = cand_eff[ci];
        if (N % bn != 0) eff *= bn == 256 ? 0.5 : bn == 128 ? 0.9 : 1.0;
        const int64_t tiles = ((M + bm - 1) / bm) * ((N + bn - 1) / bn);
        /* 192x128 only where it makes one wave (what it is for): on multi-wave layers it
         * measured 0-16% slower than the planner's other tiles (S4-3), which the model misses */
        if (nc == 3 && tiles > c->sms && fnc != 3) continue;
        /* 128 x 32 and 64 x 32 (direct stores: 32-column epilogue chunks) only when hinted; the
         * planner takes them through sm90_rule_narrow_rows */
        const int narrow = bn == 32; /* 32-column epilogue chunks: no staging boxes, up to 16 stages */
        if (narrow && fbn != 32) continue;
        for (int split = 1; split <= SM90_MAX_SPLITS; split++) {
            if (split > 1 && (c->k_iters / split < 4 || pp || (narrow && fsp < 2))) break;
            const int kbu = (c->k_iters + split - 1) / split; /* k-blocks per unit */
            if (fsp >= 1 && split != fsp) continue;
            if (split > 1 && (double)split * (double)M * (double)N * 4.0 > (double)SM90_MAX_WORKSPACE) break;
            const int64_t units = tiles * split;
            if (units > INT32_MAX / 2) break;
            const int res_ring = sm90_tma_store_bn(c->p, split, bn) && c->p->has_residual ? (pp ? 1 : 2) : 0;
            const int es = narrow ? 0
                                  : sm90_h_epi_slots(bm, wm, bn, nc, res_ring == 1, kbu, units <= c->sms,
                                                     h->staging_boxes, c->smem);
            const int stages = narrow ? sm90_h_narrow_stages(bm, c->smem) : sm90_h_stages_for(bm, bn, nc, es, c->smem);
            if (stages < 2) continue;
            /* 128 x 128: 0.8 was fitted on conv layers of 9-72 k-blocks, where the tile's fixed
             * costs weigh; over long mainloops it runs near the 256 x 128 rate (one wave of
             * 512-k-block units: 774 TFLOP/s against 799; docs/decisions.md "long-k") */
            double ek = eff;
            if (bn == 128 && bm == 128 && kbu > 64) ek += 0.17 * (kbu >= 192 ? 1.0 : (double)(kbu - 64) / 128.0);
            const double e = stages < 4 ? ek * 0.9 : ek;
            const double t_kb = (double)bm * bn * SM90_BK * 2.0 / (7.0e6 * e);
            const int64_t grid = units < c->sms ? units : c->sms;
            const int64_t waves = (units + grid - 1) / grid;
            const double t_unit = t_kb * (double)kbu + 0.2 + (double)bm * bn * c->out_size / 12.5e3;
            double t = (double)waves * t_unit;
            /* a residual ring smaller than the tile reloads boxes inside every epilogue: on
             * multi-wave layers that measured ~3 us per 256x128 tile (128x128 tiles ran 4-9%
             * faster fused on vgg_3x3_128/256 and sd_vae_3x3_128/256, S5-2) */
            if (res_ring == 1 && es < wm * (bn / SM90_EPI_COLS) && waves > 1) t *= 1.3;
            if (split > 1) t += 4.0 + ((double)split * 8.0 + c->out_size) * (double)M * (double)N / 3.0e6;
            if (best->bn == 0 || t < *best_t) {
                *best_t = t;
                *best = mkpick(wm, bn, nc, split, stages, es, pp, 0);
            }
        }
    }
    return best->bn != 0;
}

static const char *kernel_name(int k)
{
    switch (k) {
    case IGEMM_KERNEL_COOPERATIVE: return "cooperative";
    case IGEMM_KERNEL_PINGPONG: return "pingpong";
    case IGEMM_KERNEL_PIXELS_N: return "pixels_n";
    case IGEMM_KERNEL_PIXELS_N_PINGPONG: return "pixels_n_pingpong";
    case IGEMM_KERNEL_HALO_ROWS: return "halo_rows";
    case IGEMM_KERNEL_SPLIT_CLUSTER: return "split_cluster";
    }
    return "?";
}

igemm_status_t igemm_sm90_conv_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                         const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    if (p->groups != 1) return sm90_grouped_configure(p, dev, h, cfg); /* heuristics_grouped.c */
    sm90_plan_t *pl = igemm_family_priv(cfg, sm90_plan_t);
    ctx_t c;
    c.p = p;
    c.dev = dev;
    c.h = h;
    c.M = p->gemm_m;
    c.N = p->gemm_n;
    c.k_iters = (int)(p->r * p->s * ((p->c + SM90_BK - 1) / SM90_BK));
    c.sms = dev->sm_count > 0 ? dev->sm_count : 132;
    c.smem = dev->smem_optin_per_block;
    c.out_size = p->out_dtype == IGEMM_DTYPE_F32 ? 4.0 : 2.0;
    c.tile_forced = h->tile_m || h->tile_n || h->consumers || h->split_k > 1;
    c.pp_ok = sm90_tma_store_ok(p, 1);
    const int64_t M = c.M, N = c.N;
    const int kern = h->kernel;
    const int pixn_split = kern == IGEMM_KERNEL_PIXELS_N && h->split_k > 1; /* direct stores of partials */
    if (kern != IGEMM_KERNEL_AUTO && kern != IGEMM_KERNEL_COOPERATIVE && !pixn_split && !c.pp_ok)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                               "hints.kernel = %s needs TMA stores of y (y of the input's dtype, k %% 8 == 0, no split)",
                               kernel_name(kern));

    /* ping-pong candidates only where forced; the row-tile search, then the rules. With another
     * kernel named, the tile hints describe that kernel's tile: the row-tile search (which the
     * rules start from) is not restricted by them. */
    const int fpp = kern == IGEMM_KERNEL_PINGPONG;
    igemm_plan_hints_t hrow = *h;
    if (kern != IGEMM_KERNEL_AUTO && kern != IGEMM_KERNEL_COOPERATIVE && kern != IGEMM_KERNEL_PINGPONG)
        hrow.tile_m = hrow.tile_n = hrow.consumers = hrow.split_k = hrow.staging_boxes = 0;
    double best_t = 0.0;
    pick_t best;
    if (!search_row_tiles(&c, &hrow, fpp, &best, &best_t))
        return igemm_set_error(h->kernel || c.tile_forced ? IGEMM_STATUS_NOT_SUPPORTED : IGEMM_STATUS_INTERNAL_ERROR,
                               "sm90 configure: no tile%s fits %d B of shared memory",
                               c.tile_forced ? " of the hinted shape" : "", dev->smem_optin_per_block);
    sm90_rule_wide(&c, &best);
    sm90_rule_pingpong(&c, &best);
    sm90_rule_whole_n(&c, &best);
    const int tp_taken = sm90_rule_pixels_n(&c, &best, &best_t);
    if (!tp_taken && kern == IGEMM_KERNEL_PIXELS_N && h->split_k <= 1)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                               "hints.kernel = pixels_n: no pixels-as-N tile (80, 96, 208 x 128) fits this problem");
    const int pxpp = sm90_rule_pixels_n_pingpong(&c, &best);
    if (!pxpp && kern == IGEMM_KERNEL_PIXELS_N_PINGPONG)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                               "hints.kernel = pixels_n_pingpong: takes k <= 64 with 128-pixel tiles only");
    const int halo = sm90_rule_halo(&c, &best);
    if (!halo && kern == IGEMM_KERNEL_HALO_ROWS)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                               "hints.kernel = halo_rows: takes 3x3 stride-1 undilated convs of c = 64, k <= 64 and "
                               "output rows of a multiple of 56 pixels (with the hinted tile, rows and consumers)");
    const int skc0 = sm90_rule_split_cluster(&c, &best, &best_t);
    const int narrow = !halo && sm90_rule_narrow_rows(&c, &best, &best_t);
    const int psk = !halo && !narrow && sm90_rule_pixels_n_split(&c, &best, &best_t);
    if (!psk && kern == IGEMM_KERNEL_PIXELS_N && h->split_k > 1)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                               "hints.kernel = pixels_n, split_k = %d: the split pixels-as-N tiles (32 or 64 x 128 or 64; "
                               "tile_m picks one) need split_k <= the k-blocks (%d), split_k <= %d (a cluster) and no "
                               "grid hint",
                               h->split_k, c.k_iters, SM90_MAX_CLUSTER);
    const int skc = skc0 && !psk && !narrow;
    if (!skc && kern == IGEMM_KERNEL_SPLIT_CLUSTER)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                               "hints.kernel = split_cluster: needs 2+ k-blocks, k > 64, at most SMs/2 tiles of 128x128 "
                               "and no grid hint");
    if (kern == IGEMM_KERNEL_COOPERATIVE && (best.pp || best.tp)) /* (cannot happen: the rules above check) */
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "sm90 configure: cooperative hint, other kernel picked");

    if (h->staging_boxes && best.es != h->staging_boxes)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                               "hints.staging_boxes = %d: this plan (%s) has %d staging boxes per consumer (the hint is "
                               "honoured by fused ping-pong plans, 2..6; pixels_n, 1..2; halo_rows, 1..3)",
                               h->staging_boxes, kernel_name(best.tp ? (best.pp ? IGEMM_KERNEL_PIXELS_N_PINGPONG
                                                                                : IGEMM_KERNEL_PIXELS_N)
                                                                     : best.pp ? IGEMM_KERNEL_PINGPONG
                                                                               : IGEMM_KERNEL_COOPERATIVE),
                               best.es);
    const int bm = best.tp ? best.tp : best.pp ? 64 * best.wm : 64 * best.wm * best.nc;
    const int64_t tiles = ((M + bm - 1) / bm) * ((N + best.bn - 1) / best.bn);
    const int64_t units = tiles * best.split;
    int64_t max_ctas = c.sms;
    if (h->grid >= 1 && h->grid < max_ctas) max_ctas = h->grid; /* hints.grid caps the persistent grid */
    const int rows64 = best.pp && best.wm == 1 && !best.tp; /* a 64-row ping-pong tile (filter resident only) */
    int best_br = 0;
    if (halo) { /* the halo-row kernels keep the filter resident (their stages were counted so) */
        best_br = 1;
    } else if (rows64) {
        const int s_br = sm90_h_stages_fit(bm, best.bn, best.nc, best.es, 0, c.k_iters, c.smem);
        if (h->filter_resident < 0 || s_br < 2)
            return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                                   "the 64-row ping-pong tiles (64x%d) keep the filter resident: %s", best.bn,
                                   h->filter_resident < 0 ? "hints.filter_resident = -1 excludes it"
                                                          : "its k-blocks' filter slots do not fit shared memory");
        best_br = 1;
        best.stages = s_br;
    } else {
        const int s_br = sm90_rule_filter_resident(&c, &best, bm, units, max_ctas);
        if (s_br) {
            best_br = 1;
            best.stages = s_br;
        }
    }
    /* hints.stages caps the ring depth. Fused 1x1 ping-pong plans with the residual through the
     * staging ring and mainloops of at most 4 k-blocks (memory-bound layers): at most 4 operand
     * stages, so the residual boxes the epilogue waits on get DRAM sooner. docs/decisions.md
     * "short-ring-1x1" (S14-3: r50_l1_1x1_256_64 fused 4.1-4.5% faster; not for plain plans). */
    if (h->stages >= 2 && h->stages < best.stages) best.stages = h->stages;
    const int res1 = p->has_residual && sm90_tma_store_ok(p, best.split) && best.pp;
    if (!h->stages && best.pp && res1 && p->r == 1 && p->s == 1 && c.k_iters <= 4 && best.stages > 4) best.stages = 4;

    memset(pl, 0, sizeof *pl);
    pl->kernel = halo ? IGEMM_KERNEL_HALO_ROWS
                 : skc ? IGEMM_KERNEL_SPLIT_CLUSTER
                 : best.tp ? (best.pp ? IGEMM_KERNEL_PIXELS_N_PINGPONG : IGEMM_KERNEL_PIXELS_N)
                 : best.pp ? IGEMM_KERNEL_PINGPONG
                           : IGEMM_KERNEL_COOPERATIVE;
    pl->bm = bm;
    pl->bn = best.bn;
    pl->wm = best.wm;
    pl->stages = best.stages;
    pl->threads = SM90_THREADS(best.nc);
    pl->consumers = best.nc;
    pl->pingpong = best.pp;
    pl->pixels_n = best.tp > 0;
    pl->b_reuse = best_br;
    pl->halo = halo;
    pl->split_k = best.split;
    pl->epi_slots = best.es;
    const int tma_y = sm90_tma_store_bn(p, best.split, best.bn);
    pl->res_mode = tma_y && p->has_residual ? (best.pp || skc ? 1 : 2) : 0;
    pl->cluster = skc ? 2 : psk ? best.split : 1;
    pl->grid = skc ? 2 * (int)units : psk ? (int)units : (int)(units < max_ctas ? units : max_ctas);
    const char *pdl_why;
    pl->pdl = sm90_pdl_pick(dev, h, pl->grid, c.sms, pl->cluster, &pdl_why);
    pl->smem_bytes = sm90_h_smem_bytes(bm, best.bn, best.nc, best.stages, best.es, halo ? 1 + halo : best.tp > 0,
                                best_br ? c.k_iters : 0);
    pl->smem_limit = dev->smem_optin_per_block;
    cfg->workspace_bytes = best.split > 1 && !psk ? (size_t)best.split * (size_t)M * (size_t)N * sizeof(float) : 0;
    snprintf(cfg->desc, sizeof cfg->desc,
             "%s + wgmma, tile %dx%dx%d, %d stages, 1 producer + %d consumer warpgroups (%d x 64 %s each%s)%s, "
             "%d staging boxes%s%s, %s, %s, grid %d over %lld tiles x %d split(s)%s, %zu B smem%s, est %.1f us",
             halo ? "TMA halo rows" : "TMA im2col", bm, best.bn, SM90_BK, best.stages, best.nc, best.wm,
             best.tp ? "channels, pixels as wgmma N" : "rows",
             best.pp && best.nc == 3 ? ", taking tiles in turn" : best.pp ? ", ping-pong" : "",
             best.tp && best.bn == 64 ? " on the same 64 channels, half of each k-block each" : "", best.es,
             pl->res_mode == 2   ? ", residual via operand ring"
             : pl->res_mode == 1 ? ", residual via staging ring"
                                 : "",
             halo == 2 ? ", filter resident, halo rows (tiles of two 56-pixel rows, 4 row loads per tile; the taps along W read them shifted)"
             : halo    ? ", filter resident, halo rows (3 row loads per tile; the taps along W read them shifted)"
             : rows64 && N <= best.bn
                 ? ", filter resident (a slot per k-block), one whole-N tile per 64 pixels (short K: each pixel tile "
                   "read once, the chunks past N skipped)"
             : rows64  ? ", filter resident (a slot per k-block), 64-pixel tiles"
             : best_br ? ", filter resident (a slot per k-block, one N-tile per CTA)"
                       : "",
             tma_y                         ? "y by TMA stores"
             : psk                         ? "y by direct stores (each CTA of the cluster 1/split_k of the tile's pixels)"
             : best.split > 1              ? "y by direct stores (split-K partials)"
             : p->out_dtype != p->in_dtype ? "y by direct stores (y's dtype is not the input's)"
             : best.bn % SM90_EPI_COLS     ? "y by direct stores (32-column epilogue chunks)"
                                           : "y by direct stores (k % 8 != 0)",
             skc   ? "split-K 2 over a 2-CTA cluster (partial tiles exchanged through DSMEM)"
             : psk ? "split-K over a cluster of split_k CTAs (partial tiles summed through DSMEM)"
                   : "no cluster",
             pl->grid, (long long)tiles, best.split, best.split > 1 && !psk ? " (fp32 workspace + reduce)" : "",
             pl->smem_bytes, pdl_why,
             best_t);
    return IGEMM_STATUS_SUCCESS;
}

void igemm_sm90_conv_instance_key(const igemm_conv_params_t *p, const sm90_plan_t *pl, sm90_instance_t *key)
{
    const int general = sm90_plan_general_epilogue(p, pl);
    memset(key, 0, sizeof *key);
    key->kernel = pl->kernel;
    key->dtype = (int)p->in_dtype;
    key->bm = pl->bm;
    key->bn = pl->bn;
    key->wm = pl->wm;
    key->nc = pl->consumers;
    key->bres = pl->b_reuse;
    key->rows = pl->halo ? pl->halo : 1;
    key->tma = sm90_tma_store_bn(p, pl->split_k, pl->bn);
    key->epi = general ? sm90_epi_kind(p) : 0;
    key->gw = pl->gw;
    /* the direct-store row tiles have instances 0 and 2 only; split pixels as N all three */
    if (!key->tma && key->epi == 1 && !(pl->pixels_n && pl->split_k > 1)) key->epi = 2;
}
