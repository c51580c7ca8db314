/*
 * cmd_check.c — `igemm check`: for each shape and epilogue case, runs igemm with y poisoned (and
 * guard regions around it), then compares
 *   1. every element with the GPU direct path (fp32 accumulation, f32 y): tol_conv_vs_fp32;
 *   2. sampled elements (y's corners, output-border pixels, uniform picks) with the library's
 *      exact reference, igemm_conv2d_reference_elems, one call per case: tol_conv;
 *   3. the direct path itself at the same samples (a wrong oracle fails the case);
 * and checks that no byte outside y was written. One row per case, then "N/M passed".
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gpu.h"

#ifdef IGEMM_HAVE_CUDA
#include "data.h"
#include "tolerance.h"

#define CHECK_GUARD 256        /* poisoned bytes on each side of y, checked after the run */
#define CHECK_POISON 0xFF      /* y's poison (NaN in every dtype) and the guards' value */
#define CHECK_BORDER_SAMPLES 64 /* output-border samples (where padding is read) */

/* Differences of one comparison. */
typedef struct check_stats {
    double max_abs, max_rel, worst; /* worst = max |d| / tol */
    int64_t nan_count, bad_count;
    int64_t first_bad;
} check_stats_t;

/* One shape's data, on the host and the device, shared by its epilogue cases. */
typedef struct check_data {
    const cli_shape_t *sh;
    igemm_conv2d_desc_t d;  /* ours */
    igemm_conv2d_desc_t dd; /* the direct path's: y (and residual) f32 */
    int64_t xe, we, ye, p, q;
    void *hx, *hw, *hres; /* inputs; residual in y's dtype */
    float *hres32;        /* the residual as fp32 (for the direct path) */
    float *hscale, *hbias;
    void *hy;   /* our y */
    float *hyd; /* the direct path's y */
    void *dx, *dw, *dres, *dres32, *dscale, *dbias;
    gpu_guarded_t dy, dyd;
    int64_t *idx; /* sampled flat indices of y, and the reference's values there */
    double *ref;
    int64_t idx_cap;
} check_data_t;

static void stats_init(check_stats_t *st)
{
    memset(st, 0, sizeof *st);
    st->first_bad = -1;
}

/* Adds element idx (got against ref, tolerance tol) to st. */
static void stats_add(check_stats_t *st, int64_t idx, double got, double ref, double tol)
{
    const double d = fabs(got - ref);
    if (!(d == d) || isinf(got)) { /* NaN (unwritten poison) or inf */
        st->nan_count++;
        st->bad_count++;
        if (st->first_bad < 0) st->first_bad = idx;
        st->worst = INFINITY;
        return;
    }
    if (d > st->max_abs) st->max_abs = d;
    if (d / fmax(fabs(ref), 1.0) > st->max_rel) st->max_rel = d / fmax(fabs(ref), 1.0);
    if (d / tol > st->worst) st->worst = d / tol;
    if (!(d <= tol)) {
        st->bad_count++;
        if (st->first_bad < 0) st->first_bad = idx;
    }
}

static void check_data_free(check_data_t *c)
{
    free(c->hx);
    free(c->hw);
    free(c->hres);
    free(c->hres32);
    free(c->hscale);
    free(c->hbias);
    free(c->hy);
    free(c->hyd);
    free(c->idx);
    free(c->ref);
    /* cleanup: a failing free follows an error already reported */
    (void)gpu_free(c->dx);
    (void)gpu_free(c->dw);
    (void)gpu_free(c->dres);
    (void)gpu_free(c->dres32);
    (void)gpu_free(c->dscale);
    (void)gpu_free(c->dbias);
    gpu_guarded_free(&c->dy);
    gpu_guarded_free(&c->dyd);
}

/* Makes one shape's random data (seeded by its name and --seed: inputs, residual and bias uniform
 * in [-1, 1], scale in [0.5, 1.5], never exactly zero) and uploads it. Returns 0, or -1 with a
 * message in err (the caller frees c). */
static int check_data_init(check_data_t *c, const cli_shape_t *sh, const cli_opts_t *o, int need_res, char *err,
                           size_t errlen)
{
    const uint64_t seed = data_hash_str(sh->name) ^ (o->seed * 0x9E3779B97F4A7C15ull);
    data_rng_t gx = {seed ^ 0x11}, gw = {seed ^ 0x22}, gs = {seed ^ 0x33}, gb = {seed ^ 0x44}, gr = {seed ^ 0x55};
    size_t xsz, wsz, ysz;
    memset(c, 0, sizeof *c);
    c->sh = sh;
    c->d = sh->desc;
    c->dd = sh->desc;
    c->dd.y_dtype = IGEMM_DTYPE_F32;
    CLI_IG(igemm_conv2d_sizes(&c->d, &c->xe, &c->we, &c->ye));
    CLI_IG(igemm_conv2d_output_dims(&c->d, &c->p, &c->q));
    xsz = (size_t)c->xe * data_dtype_bytes(c->d.x_dtype);
    wsz = (size_t)c->we * data_dtype_bytes(c->d.w_dtype);
    ysz = (size_t)c->ye * data_dtype_bytes(c->d.y_dtype);
    c->idx_cap = (o->samples < c->ye ? o->samples : c->ye) + 2 + CHECK_BORDER_SAMPLES;
    c->hx = malloc(xsz);
    c->hw = malloc(wsz);
    c->hscale = (float *)malloc((size_t)c->d.k * sizeof(float));
    c->hbias = (float *)malloc((size_t)c->d.k * sizeof(float));
    c->hy = malloc(ysz);
    c->hyd = (float *)malloc((size_t)c->ye * sizeof(float));
    c->idx = (int64_t *)malloc((size_t)c->idx_cap * sizeof *c->idx);
    c->ref = (double *)malloc((size_t)c->idx_cap * sizeof *c->ref);
    if (need_res) {
        c->hres = malloc(ysz);
        c->hres32 = (float *)malloc((size_t)c->ye * sizeof(float));
    }
    if (!c->hx || !c->hw || !c->hscale || !c->hbias || !c->hy || !c->hyd || !c->idx || !c->ref ||
        (need_res && (!c->hres || !c->hres32))) {
        snprintf(err, errlen, "out of host memory");
        goto fail;
    }
    data_fill(c->hx, c->xe, c->d.x_dtype, -1.0, 1.0, &gx);
    data_fill(c->hw, c->we, c->d.w_dtype, -1.0, 1.0, &gw);
    data_fill(c->hscale, c->d.k, IGEMM_DTYPE_F32, 0.5, 1.5, &gs);
    data_fill(c->hbias, c->d.k, IGEMM_DTYPE_F32, -1.0, 1.0, &gb);
    if (need_res) {
        data_fill(c->hres, c->ye, c->d.y_dtype, -1.0, 1.0, &gr);
        for (int64_t i = 0; i < c->ye; i++) c->hres32[i] = (float)data_get(c->hres, i, c->d.y_dtype);
    }
    if (gpu_upload(&c->dx, c->hx, xsz, err, errlen) != 0 || gpu_upload(&c->dw, c->hw, wsz, err, errlen) != 0 ||
        gpu_upload(&c->dscale, c->hscale, (size_t)c->d.k * sizeof(float), err, errlen) != 0 ||
        gpu_upload(&c->dbias, c->hbias, (size_t)c->d.k * sizeof(float), err, errlen) != 0 ||
        gpu_guarded_alloc(&c->dy, ysz, CHECK_GUARD, err, errlen) != 0 ||
        gpu_guarded_alloc(&c->dyd, (size_t)c->ye * sizeof(float), CHECK_GUARD, err, errlen) != 0)
        goto fail;
    if (need_res && (gpu_upload(&c->dres, c->hres, ysz, err, errlen) != 0 ||
                     gpu_upload(&c->dres32, c->hres32, (size_t)c->ye * sizeof(float), err, errlen) != 0))
        goto fail;
    return 0;
fail:
    return -1;
}

/* Fills c->idx with the flat indices of y to compare with the reference: y's first and last
 * element, then (with samples > 0) output-border pixels, where padding is read, and `samples`
 * uniform picks (at most y's size). Returns the count. */
static int64_t check_pick_samples(check_data_t *c, uint64_t seed, int samples)
{
    const igemm_conv2d_desc_t *d = &c->d;
    const int64_t picks = samples < c->ye ? samples : c->ye;
    data_rng_t g = {seed};
    int64_t n = 0;
    c->idx[n++] = 0;
    c->idx[n++] = c->ye - 1;
    if (picks > 0) {
        for (int i = 0; i < CHECK_BORDER_SAMPLES; i++) {
            const int64_t nn = data_rng_int(&g, 0, d->n - 1);
            int64_t pp = (i & 1) ? 0 : c->p - 1, qq = (i & 2) ? 0 : c->q - 1;
            if (i & 4) pp = data_rng_int(&g, 0, c->p - 1);
            else if (i & 8) qq = data_rng_int(&g, 0, c->q - 1);
            c->idx[n++] = ((nn * c->p + pp) * c->q + qq) * d->k + data_rng_int(&g, 0, d->k - 1);
        }
    }
    for (int64_t i = 0; i < picks; i++) c->idx[n++] = data_rng_int(&g, 0, c->ye - 1);
    return n;
}

/* Prints a case's row from its comparisons. Returns 1 pass, 0 fail. */
static int check_report(const check_data_t *c, int epi_case, const char *path, const check_stats_t *s_full,
                        const check_stats_t *s_samp, const check_stats_t *s_dir, int64_t nsampled, int have_direct,
                        int64_t guard_damage, const char *direct_note)
{
    const double max_abs = fmax(s_full->max_abs, s_samp->max_abs);
    const double max_rel = fmax(s_full->max_rel, s_samp->max_rel);
    const double worst = fmax(s_full->worst, s_samp->worst);
    char note[768] = "", ratio[32];
    int pass = guard_damage == 0 && s_full->bad_count == 0 && s_samp->bad_count == 0;
#define NOTE(...) snprintf(note + strlen(note), sizeof note - strlen(note), __VA_ARGS__)
    if (guard_damage) NOTE(" wrote outside y;");
    if (s_full->nan_count || s_samp->nan_count)
        NOTE(" %lld%s NaN/inf/unwritten;", (long long)(have_direct ? s_full->nan_count : s_samp->nan_count),
             have_direct ? "" : " sampled");
    if (s_full->bad_count)
        NOTE(" %lld/%lld differ from direct (first at y[%lld]);", (long long)s_full->bad_count, (long long)c->ye,
             (long long)s_full->first_bad);
    if (s_samp->bad_count)
        NOTE(" %lld/%lld samples differ from the reference (first at y[%lld]);", (long long)s_samp->bad_count,
             (long long)nsampled, (long long)s_samp->first_bad);
    if (have_direct && (s_dir->bad_count || s_dir->nan_count)) {
        /* our result was judged against a direct path that is itself wrong */
        pass = 0;
        NOTE(" DIRECT PATH disagrees with the reference (%lld samples, %lld NaN);", (long long)s_dir->bad_count,
             (long long)s_dir->nan_count);
    }
    if (direct_note[0]) {
        NOTE(" %s;", direct_note);
        if (have_direct) pass = 0; /* the direct path wrote outside its y */
    }
#undef NOTE
    if (worst < 1e4) snprintf(ratio, sizeof ratio, "%.3f", worst);
    else snprintf(ratio, sizeof ratio, "%.2e", worst);
    printf("%-26s %-13s %-8s %11.3e %11.3e %8s  %s%s\n", c->sh->name, cli_epi_name(epi_case), path, max_abs, max_rel,
           ratio, pass ? "PASS" : "FAIL", note);
    return pass;
}

/* Runs one epilogue case of one shape and prints its row. Returns 1 pass, 0 fail. */
static int check_case(check_data_t *c, int epi_case, const cli_opts_t *o)
{
    char err[1024] = "", direct_note[512] = "";
    const size_t errlen = sizeof err;
    const igemm_conv2d_desc_t *d = &c->d;
    const igemm_epilogue_t e = cli_epi_make(epi_case);
    igemm_plan_options_t opts = igemm_plan_options_default(), dopts = igemm_plan_options_default();
    igemm_plan_t *plan = NULL, *dplan = NULL;
    check_stats_t s_full, s_samp, s_dir;
    const char *path = "?";
    int have_direct = 0, pass = 0;
    int64_t guard_damage = 0, direct_damage = 0, nsampled;
    const float *scale = e.has_scale ? c->hscale : NULL, *bias = e.has_bias ? c->hbias : NULL;
    const uint64_t sample_seed = data_hash_str(c->sh->name) ^ (o->seed * 0x9E3779B97F4A7C15ull) ^
                                 ((uint64_t)epi_case << 56) ^ 0x5a5a;

    stats_init(&s_full);
    stats_init(&s_samp);
    stats_init(&s_dir);
    opts.path = o->path;
    opts.hints = cli_opts_hints(o);
    CLI_IG(igemm_plan_create(&plan, d, &e, &opts));
    path = cli_path_name(igemm_plan_path(plan));
    /* the oracle: the direct path with an f32 y, never hinted */
    dopts.path = IGEMM_PATH_DIRECT;
    if (igemm_plan_create(&dplan, &c->dd, &e, &dopts) == IGEMM_STATUS_SUCCESS) have_direct = 1;
    else snprintf(direct_note, sizeof direct_note, "direct path unavailable (%s)", igemm_last_error());

    if (gpu_guarded_poison(&c->dy, CHECK_POISON, err, errlen) != 0 ||
        gpu_guarded_poison(&c->dyd, CHECK_POISON, err, errlen) != 0)
        goto fail;
    CLI_IG(igemm_plan_run(plan, c->dx, c->dw, e.has_scale ? c->dscale : NULL, e.has_bias ? c->dbias : NULL,
                          e.has_residual ? c->dres : NULL, c->dy.ptr, NULL));
    if (have_direct)
        CLI_IG(igemm_plan_run(dplan, c->dx, c->dw, e.has_scale ? c->dscale : NULL, e.has_bias ? c->dbias : NULL,
                              e.has_residual ? c->dres32 : NULL, c->dyd.ptr, NULL));
    CLI_CU(cudaDeviceSynchronize());
    if (gpu_guarded_download(&c->dy, c->hy, CHECK_POISON, &guard_damage, err, errlen) != 0) goto fail;
    if (have_direct) {
        if (gpu_guarded_download(&c->dyd, c->hyd, CHECK_POISON, &direct_damage, err, errlen) != 0) goto fail;
        if (direct_damage) snprintf(direct_note, sizeof direct_note, "direct path wrote outside y");
    }

    /* 1. every element against the direct path; both accumulate in fp32 */
    if (have_direct) {
        for (int64_t i = 0; i < c->ye; i++) {
            const double ref = c->hyd[i];
            if (!(ref == ref)) { /* the direct path left poison: it is broken, not us */
                s_dir.nan_count++;
                continue;
            }
            stats_add(&s_full, i, data_get(c->hy, i, d->y_dtype), ref,
                      tol_conv_vs_fp32(d, &e, scale, bias, i % d->k, ref));
        }
    }

    /* 2. sampled elements against the library's exact reference (3. the direct path there too) */
    nsampled = check_pick_samples(c, sample_seed, o->samples);
    CLI_IG(igemm_conv2d_reference_elems(d, &e, c->hx, c->hw, scale, bias, e.has_residual ? c->hres : NULL, c->idx,
                                        nsampled, c->ref));
    for (int64_t i = 0; i < nsampled; i++) {
        const int64_t yi = c->idx[i], kk = yi % d->k;
        const double ref = c->ref[i];
        stats_add(&s_samp, yi, data_get(c->hy, yi, d->y_dtype), ref, tol_conv(d, &e, scale, bias, kk, ref));
        if (have_direct) stats_add(&s_dir, yi, c->hyd[yi], ref, tol_conv(&c->dd, &e, scale, bias, kk, ref));
    }

    pass = check_report(c, epi_case, path, &s_full, &s_samp, &s_dir, nsampled, have_direct, guard_damage,
                        direct_note);
    igemm_plan_destroy(plan);
    igemm_plan_destroy(dplan);
    return pass;
fail:
    printf("%-26s %-13s %-8s %11s %11s %8s  FAIL %s\n", c->sh->name, cli_epi_name(epi_case), path, "-", "-", "-",
           err);
    igemm_plan_destroy(plan);
    igemm_plan_destroy(dplan);
    /* a sticky CUDA error makes every later call fail too: clear what can be cleared */
    (void)cudaGetLastError();
    return 0;
}

/* The GPU part of cmd_check. Returns the exit status. */
static int check_gpu(const cli_opts_t *o)
{
    char dev[256], err[1024];
    int ncases = 0, npass = 0, ntotal = 0, need_res = 0;
    const unsigned mask = o->epi_mask ? o->epi_mask : 1u << CLI_EPI_NONE;
    for (int e = 0; e < CLI_EPI_COUNT; e++)
        if (mask & (1u << e)) {
            ncases++;
            if (cli_epi_make(e).has_residual) need_res = 1;
        }
    gpu_device_line(dev, sizeof dev);
    printf("igemm %s check on %s: %s in, %s out%s%s; every element vs the direct path, %d sampled vs the library's "
           "exact reference\n"
           "pass: |d| <= rtol*|ref| + atol everywhere (rtol = u_out + 2^-20, u_out = %g; atol bounds fp32 "
           "accumulation and epilogue error, twice against the direct path); max_rel = max |d|/max(|ref|,1); "
           "err/tol = max |d|/tol\n",
           igemm_version_string(), dev, cli_dtype_name(o->dtype), cli_dtype_name(o->out_dtype),
           o->has_hints ? "; hints " : "", o->has_hints ? o->hints_text : "", o->samples, tol_out_ulp(o->out_dtype));
    printf("%-26s %-13s %-8s %11s %11s %8s  %s\n", "name", "epilogue", "path", "max_abs", "max_rel", "err/tol",
           "result");
    for (int i = 0; i < o->shapes.n; i++) {
        const cli_shape_t *sh = &o->shapes.v[i];
        check_data_t c;
        fprintf(stderr, "[%d/%d] %s ...\n", i + 1, o->shapes.n, sh->name);
        if (check_data_init(&c, sh, o, need_res, err, sizeof err) != 0) {
            printf("%-26s %-13s %-8s %11s %11s %8s  FAIL %s\n", sh->name, "*", "?", "-", "-", "-", err);
            ntotal += ncases;
            check_data_free(&c);
            (void)cudaGetLastError();
            continue;
        }
        for (int e = 0; e < CLI_EPI_COUNT; e++) {
            if (!(mask & (1u << e))) continue;
            ntotal++;
            npass += check_case(&c, e, o);
            fflush(stdout);
        }
        check_data_free(&c);
    }
    printf("%d/%d passed\n", npass, ntotal);
    return npass == ntotal ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
#endif /* IGEMM_HAVE_CUDA */

int cmd_check(const cli_opts_t *o)
{
    if (!gpu_require("check")) return CLI_EXIT_NO_GPU;
#ifdef IGEMM_HAVE_CUDA
    return check_gpu(o);
#else
    return CLI_EXIT_NO_GPU; /* not reached: without CUDA no GPU is usable */
#endif
}
