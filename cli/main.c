/*
 * igemm.c — the igemm command-line tool:
 *
 *   igemm run   [--shape S | --shapes FILE] [--dtype D] [--out-dtype D] [--path P] [--iters N]
 *   igemm check [--shape S | --shapes FILE] [--dtype D] [--out-dtype D] [--epilogue E] [--path P]
 *   igemm bench [--shape S | --shapes FILE] [--vs cudnn] [--fused] [--dtype D] [--csv OUT] ...
 *   igemm info
 *
 * Exit status: 0 success; 1 a failure (a check failed, a shape failed, a malformed shape
 * file, a CUDA error); 2 a usage error (unknown command or option, bad option value);
 * 3 the command needs a CUDA GPU and none is usable.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "igemm.h"
#include "cudnn_baseline.h"
#include "cudnn_dl.h"
#include "commands.h"
#include "gpu.h"
#include "options.h"
#include "shapes.h"
#include "timing.h"

#ifdef IGEMM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif


/* Helpers used only by the GPU commands stay compiled (and warning-free) in a CPU-only build. */
#if defined(__GNUC__)
#define MAYBE_UNUSED __attribute__((unused))
#else
#define MAYBE_UNUSED
#endif


/* ------------------------------------------------------------------------------------------ */
/* Usage and options                                                                           */

static void usage(FILE *f)
{
    fprintf(f,
            "usage: igemm <command> [options]\n"
            "\n"
            "commands:\n"
            "  run     time igemm on a layer (default r50_l1_3x3_64: n32 56x56x64 -> 64, 3x3);\n"
            "          without a GPU, runs the CPU reference on a small layer instead\n"
            "  check   compare igemm against the GPU direct path (every element) and an exact\n"
            "          host reference (sampled elements), with y poisoned before each run\n"
            "  bench   time igemm (and cuDNN with --vs cudnn) in one process, one table\n"
            "  info    version, GPU, usable kernel paths, cuDNN\n"
            "  help    this message\n"
            "\n"
            "options (run, check, bench):\n"
            "  --shape S        name,n,h,w,c,k,r,s,stride_h,stride_w,pad_h,pad_w,dil_h,dil_w[,groups]\n"
            "                   (the name is optional; may be repeated)\n"
            "  --shapes FILE    shape file: one such line per layer, '#' comments\n"
            "  --dtype D        input type: bf16 (default) or fp16\n"
            "  --out-dtype D    output type: bf16, fp16 or f32 (default: the input type)\n"
            "  --path P         auto (default), general, sm90, direct\n"
            "options (run, bench):\n"
            "  --iters N        timed runs, median reported (default 100)\n"
            "  --warmup N       untimed runs first (default 10)\n"
            "  --timing T       per-call (default): an event pair around each call; back-to-back:\n"
            "                   an event pair around each 16 calls enqueued back to back (no\n"
            "                   event between two calls: launch latency overlaps as in a network)\n"
            "  --sets N         rotate over N buffer sets (1..64; default: enough that their total\n"
            "                   exceeds twice the L2, so no call finds its operands in L2; 1 = warm L2)\n"
            "options (check):\n"
            "  --epilogue E     none (default), bias, scale-bias, bias-relu, residual-relu,\n"
            "                   bias-gelu, fused (= full: silu(0.75*scale*acc+bias+1.25*res)),\n"
            "                   bias-residual-relu (relu(acc+bias+res): bench --fused's),\n"
            "                   all (none, scale-bias, bias-relu, residual-relu, bias-gelu, full,\n"
            "                   bias-residual-relu);\n"
            "                   a comma list combines them\n"
            "  --samples N      host-reference samples per run (default 2048)\n"
            "  --seed N         data seed (default 1)\n"
            "options (bench):\n"
            "  --vs cudnn       also time cuDNN (cudnnConvolutionForward, best algorithm)\n"
            "  --fused          bias + residual + ReLU epilogue on both sides\n"
            "                   (cuDNN: cudnnConvolutionBiasActivationForward)\n"
            "  --csv OUT        also write the results as CSV\n"
            "\n"
            "exit status: 0 ok, 1 failure, 2 usage error, 3 no usable CUDA GPU\n"
            "environment: IGEMM_CUDNN_LIB = path of libcudnn to load\n");
}

/* ------------------------------------------------------------------------------------------ */
/* Host data helpers                                                                           */

MAYBE_UNUSED static size_t dtype_size(igemm_dtype_t d) { return d == IGEMM_DTYPE_F32 ? 4 : 2; }

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double rng_unit(uint64_t *s) { return (double)(splitmix64(s) >> 11) * (1.0 / 9007199254740992.0); }

MAYBE_UNUSED static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* v rounded to dtype d and back. */
MAYBE_UNUSED static float round_to(float v, igemm_dtype_t d)
{
    if (d == IGEMM_DTYPE_BF16) return igemm_bf16_to_float(igemm_float_to_bf16(v));
    if (d == IGEMM_DTYPE_F16) return igemm_f16_to_float(igemm_float_to_f16(v));
    return v;
}

static double load_elem(const void *base, size_t i, igemm_dtype_t d)
{
    if (d == IGEMM_DTYPE_F32) return (double)((const float *)base)[i];
    if (d == IGEMM_DTYPE_BF16) {
        uint32_t bits = (uint32_t)((const uint16_t *)base)[i] << 16;
        float f;
        memcpy(&f, &bits, sizeof f);
        return (double)f;
    }
    return (double)igemm_f16_to_float(((const uint16_t *)base)[i]);
}

/* Fills n elements of dtype d with uniform values in [lo, hi] (rounded to d). */
static void fill_random(void *dst, size_t n, igemm_dtype_t d, uint64_t seed, float lo, float hi)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        float v = lo + (hi - lo) * (float)rng_unit(&s);
        if (d == IGEMM_DTYPE_F32) ((float *)dst)[i] = v;
        else if (d == IGEMM_DTYPE_BF16) ((uint16_t *)dst)[i] = igemm_float_to_bf16(v);
        else ((uint16_t *)dst)[i] = igemm_float_to_f16(v);
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Host reference for one output element, and tolerances                                       */

static double host_act(int act, double v, double prm)
{
    switch (act) {
    case IGEMM_ACT_RELU: return v > 0.0 ? v : 0.0;
    case IGEMM_ACT_RELU6: return v < 0.0 ? 0.0 : (v > 6.0 ? 6.0 : v);
    case IGEMM_ACT_LEAKY_RELU: return v > 0.0 ? v : prm * v;
    case IGEMM_ACT_GELU_ERF: return 0.5 * v * (1.0 + erf(v * 0.70710678118654752440));
    case IGEMM_ACT_GELU_TANH:
        return 0.5 * v * (1.0 + tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
    case IGEMM_ACT_SILU: return v / (1.0 + exp(-v));
    case IGEMM_ACT_SIGMOID: return 1.0 / (1.0 + exp(-v));
    case IGEMM_ACT_TANH: return tanh(v);
    default: return v;
    }
}

/* Largest slope of the activation (errors before it grow by at most this factor). */
static double act_lipschitz(int act)
{
    switch (act) {
    case IGEMM_ACT_GELU_ERF:
    case IGEMM_ACT_GELU_TANH:
    case IGEMM_ACT_SILU: return 1.2;
    default: return 1.0;
    }
}

/* Relative rounding error bound (half an ulp) of a dtype. */
MAYBE_UNUSED static double unit_roundoff(igemm_dtype_t d)
{
    if (d == IGEMM_DTYPE_BF16) return 1.0 / 256.0;   /* 2^-8: 8-bit significand */
    if (d == IGEMM_DTYPE_F16) return 1.0 / 2048.0;   /* 2^-11 */
    return 1.0 / 16777216.0;                         /* 2^-24 */
}

#define U32 (1.0 / 16777216.0) /* fp32 unit roundoff */

typedef struct host_problem {
    const igemm_conv2d_desc_t *d;
    int64_t p, q, cg, kg;
    const void *x, *w;
    const float *scale, *bias;
    const void *res;
    igemm_dtype_t res_dtype;
    igemm_epilogue_t epi;
} host_problem_t;

/* Exact (double) y[m, kk] from the rounded inputs, with the epilogue; also returns the
 * absolute tolerance that fp32 accumulation in any order (on both compared sides) and the fp32
 * epilogue justify for this element:
 *   accumulation: 4 * Kg * u32 * |alpha*scale| * sqrt(sum p_i^2)  (p_i the products; a
 *                 statistical bound on order-dependent fp32 rounding, incl. truncating adds)
 *   epilogue:     8 * u32 * (|alpha*scale| * sum|p_i| + |bias| + |beta*res|)
 * both times the activation's largest slope. */
MAYBE_UNUSED static double host_ref_elem(const host_problem_t *hp, int64_t m, int64_t kk, double *atol)
{
    const igemm_conv2d_desc_t *d = hp->d;
    int64_t pq = hp->p * hp->q;
    int64_t nn = m / pq, rem = m % pq, pp = rem / hp->q, qq = rem % hp->q;
    int64_t g = kk / hp->kg;
    double acc = 0.0, sabs = 0.0, ssq = 0.0, v, a, extra = 0.0;
    igemm_dtype_t in = d->x_dtype;
    for (int64_t r = 0; r < d->r; r++) {
        int64_t ih = pp * d->stride_h - d->pad_top + r * d->dil_h;
        if (ih < 0 || ih >= d->h) continue;
        for (int64_t s = 0; s < d->s; s++) {
            int64_t iw = qq * d->stride_w - d->pad_left + s * d->dil_w;
            size_t xb, wb;
            if (iw < 0 || iw >= d->w) continue;
            xb = (size_t)(((nn * d->h + ih) * d->w + iw) * d->c + g * hp->cg);
            wb = (size_t)(((kk * d->r + r) * d->s + s) * hp->cg);
            for (int64_t ci = 0; ci < hp->cg; ci++) {
                double prod = load_elem(hp->x, xb + (size_t)ci, in) *
                              load_elem(hp->w, wb + (size_t)ci, in);
                acc += prod;
                sabs += fabs(prod);
                ssq += prod * prod;
            }
        }
    }
    a = hp->epi.alpha;
    if (hp->epi.has_scale) a *= hp->scale[kk];
    v = a * acc;
    if (hp->epi.has_bias) {
        v += hp->bias[kk];
        extra += fabs(hp->bias[kk]);
    }
    if (hp->epi.has_residual) {
        double rv = hp->epi.beta * load_elem(hp->res, (size_t)(m * d->k + kk), hp->res_dtype);
        v += rv;
        extra += fabs(rv);
    }
    *atol = act_lipschitz(hp->epi.activation) *
                (4.0 * (double)d->r * (double)d->s * (double)hp->cg * U32 * fabs(a) * sqrt(ssq) +
                 8.0 * U32 * (fabs(a) * sabs + extra)) +
            1e-6;
    return host_act(hp->epi.activation, v, hp->epi.act_param);
}

/* Tolerance of the whole-tensor comparison against the direct path, from bounds on the data
 * (inputs in [-1, 1], so sqrt(sum p^2) <= sqrt(Kg) and sum|p| <= Kg). */
MAYBE_UNUSED static double full_atol(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, double max_scale,
                        double max_bias, double max_res)
{
    double kg = (double)d->r * (double)d->s * (double)(d->c / d->groups);
    double a = fabs(e->alpha) * (e->has_scale ? max_scale : 1.0);
    double extra = (e->has_bias ? max_bias : 0.0) + (e->has_residual ? fabs(e->beta) * max_res : 0.0);
    return act_lipschitz(e->activation) *
               (4.0 * kg * U32 * a * sqrt(kg) + 8.0 * U32 * (a * kg + extra)) +
           1e-6;
}

/* ------------------------------------------------------------------------------------------ */
/* CPU fallback of `run`                                                                        */

/* ------------------------------------------------------------------------------------------ */
/* GPU commands                                                                                */

#ifdef IGEMM_HAVE_CUDA



/* ---- check ---- */

#define GUARD 256 /* poisoned bytes on each side of y, checked after the run */

typedef struct check_stats {
    double max_abs, max_rel, worst; /* worst = max |d| / tol */
    int64_t nan_count, bad_count;
    int64_t first_bad;
} check_stats_t;

static void stats_init(check_stats_t *st)
{
    memset(st, 0, sizeof *st);
    st->first_bad = -1;
}

static void stats_add(check_stats_t *st, int64_t idx, double got, double ref, double tol)
{
    double d = fabs(got - ref);
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

static int guards_intact(const unsigned char *raw, size_t y_bytes)
{
    for (size_t i = 0; i < GUARD; i++)
        if (raw[i] != 0xFF || raw[GUARD + y_bytes + i] != 0xFF) return 0;
    return 1;
}

typedef struct check_data {
    const cli_shape_t *sh;
    igemm_conv2d_desc_t d;
    int64_t xe, we, ye, p, q;
    void *hx, *hw, *hres;   /* inputs; residual in y's dtype */
    float *hres32;          /* residual as fp32 (for the direct path) */
    float *hscale, *hbias;
    unsigned char *hy_raw;  /* our y, with guards */
    unsigned char *hyd_raw; /* direct y (fp32), with guards */
    void *dx, *dw, *dres, *dres32, *dy_raw, *dyd_raw;
    float *dscale, *dbias;
    double max_scale, max_bias, max_res;
} check_data_t;

static void check_data_free(check_data_t *c)
{
    free(c->hx);
    free(c->hw);
    free(c->hres);
    free(c->hres32);
    free(c->hscale);
    free(c->hbias);
    free(c->hy_raw);
    free(c->hyd_raw);
    if (c->dx) cudaFree(c->dx);
    if (c->dw) cudaFree(c->dw);
    if (c->dres) cudaFree(c->dres);
    if (c->dres32) cudaFree(c->dres32);
    if (c->dy_raw) cudaFree(c->dy_raw);
    if (c->dyd_raw) cudaFree(c->dyd_raw);
    if (c->dscale) cudaFree(c->dscale);
    if (c->dbias) cudaFree(c->dbias);
}

static int check_data_init(check_data_t *c, const cli_shape_t *sh, const cli_opts_t *o,
                           int need_res, char *err, size_t errlen)
{
    uint64_t seed = hash_str(sh->name) ^ (o->seed * 0x9E3779B97F4A7C15ull);
    size_t ysz;
    memset(c, 0, sizeof *c);
    c->sh = sh;
    c->d = sh->desc;
    CLI_IG(igemm_conv2d_sizes(&c->d, &c->xe, &c->we, &c->ye));
    CLI_IG(igemm_conv2d_output_dims(&c->d, &c->p, &c->q));
    ysz = (size_t)c->ye * dtype_size(c->d.y_dtype);
    c->hx = malloc((size_t)c->xe * 2);
    c->hw = malloc((size_t)c->we * 2);
    c->hscale = (float *)malloc((size_t)c->d.k * 4);
    c->hbias = (float *)malloc((size_t)c->d.k * 4);
    c->hy_raw = (unsigned char *)malloc(ysz + 2 * GUARD);
    c->hyd_raw = (unsigned char *)malloc((size_t)c->ye * 4 + 2 * GUARD);
    if (need_res) {
        c->hres = malloc(ysz);
        c->hres32 = (float *)malloc((size_t)c->ye * 4);
    }
    if (!c->hx || !c->hw || !c->hscale || !c->hbias || !c->hy_raw || !c->hyd_raw ||
        (need_res && (!c->hres || !c->hres32))) {
        snprintf(err, errlen, "out of host memory");
        goto fail;
    }
    fill_random(c->hx, (size_t)c->xe, c->d.x_dtype, seed ^ 0x11, -1.0f, 1.0f);
    fill_random(c->hw, (size_t)c->we, c->d.w_dtype, seed ^ 0x22, -1.0f, 1.0f);
    fill_random(c->hscale, (size_t)c->d.k, IGEMM_DTYPE_F32, seed ^ 0x33, 0.5f, 1.5f);
    fill_random(c->hbias, (size_t)c->d.k, IGEMM_DTYPE_F32, seed ^ 0x44, -1.0f, 1.0f);
    for (int64_t i = 0; i < c->d.k; i++) {
        if (c->hscale[i] > c->max_scale) c->max_scale = c->hscale[i];
        if (fabs(c->hbias[i]) > c->max_bias) c->max_bias = fabs(c->hbias[i]);
    }
    if (need_res) {
        fill_random(c->hres, (size_t)c->ye, c->d.y_dtype, seed ^ 0x55, -1.0f, 1.0f);
        for (int64_t i = 0; i < c->ye; i++) {
            c->hres32[i] = (float)load_elem(c->hres, (size_t)i, c->d.y_dtype);
            if (fabs(c->hres32[i]) > c->max_res) c->max_res = fabs(c->hres32[i]);
        }
    }
    CLI_CU(cudaMalloc(&c->dx, (size_t)c->xe * 2));
    CLI_CU(cudaMalloc(&c->dw, (size_t)c->we * 2));
    CLI_CU(cudaMalloc((void **)&c->dscale, (size_t)c->d.k * 4));
    CLI_CU(cudaMalloc((void **)&c->dbias, (size_t)c->d.k * 4));
    CLI_CU(cudaMalloc(&c->dy_raw, ysz + 2 * GUARD));
    CLI_CU(cudaMalloc(&c->dyd_raw, (size_t)c->ye * 4 + 2 * GUARD));
    CLI_CU(cudaMemcpy(c->dx, c->hx, (size_t)c->xe * 2, cudaMemcpyHostToDevice));
    CLI_CU(cudaMemcpy(c->dw, c->hw, (size_t)c->we * 2, cudaMemcpyHostToDevice));
    CLI_CU(cudaMemcpy(c->dscale, c->hscale, (size_t)c->d.k * 4, cudaMemcpyHostToDevice));
    CLI_CU(cudaMemcpy(c->dbias, c->hbias, (size_t)c->d.k * 4, cudaMemcpyHostToDevice));
    if (need_res) {
        CLI_CU(cudaMalloc(&c->dres, ysz));
        CLI_CU(cudaMalloc(&c->dres32, (size_t)c->ye * 4));
        CLI_CU(cudaMemcpy(c->dres, c->hres, ysz, cudaMemcpyHostToDevice));
        CLI_CU(cudaMemcpy(c->dres32, c->hres32, (size_t)c->ye * 4, cudaMemcpyHostToDevice));
    }
    return 0;
fail:
    return -1;
}

/* Runs one epilogue case of one shape and prints its row. Returns 1 pass, 0 fail. */
static int check_case(check_data_t *c, int epi_case, const cli_opts_t *o)
{
    char err[1024] = "";
    size_t errlen = sizeof err;
    const igemm_conv2d_desc_t *d = &c->d;
    igemm_epilogue_t e = cli_epi_make(epi_case);
    igemm_plan_options_t opts = igemm_plan_options_default(), dopts = igemm_plan_options_default();
    igemm_conv2d_desc_t dd = c->d;
    igemm_plan_t *plan = NULL, *dplan = NULL;
    size_t ysz = (size_t)c->ye * dtype_size(d->y_dtype);
    unsigned char *dy = (unsigned char *)c->dy_raw + GUARD;
    unsigned char *dyd = (unsigned char *)c->dyd_raw + GUARD;
    const void *hy = c->hy_raw + GUARD;
    const float *hyd = (const float *)(c->hyd_raw + GUARD);
    check_stats_t s_full, s_samp, s_dir;
    char direct_note[512] = "";
    const char *path = "?";
    int have_direct = 0, pass = 0, guards_ok = 1;
    double u_out = unit_roundoff(d->y_dtype);
    host_problem_t hp;
    uint64_t rs;
    int nsamples, nsampled = 0;

    stats_init(&s_full);
    stats_init(&s_samp);
    stats_init(&s_dir);
    opts.path = o->path;
    CLI_IG(igemm_plan_create(&plan, d, &e, &opts));
    path = cli_path_name(igemm_plan_path(plan));

    dd.y_dtype = IGEMM_DTYPE_F32;
    dopts.path = IGEMM_PATH_DIRECT;
    if (igemm_plan_create(&dplan, &dd, &e, &dopts) == IGEMM_STATUS_SUCCESS) have_direct = 1;
    else snprintf(direct_note, sizeof direct_note, "direct path unavailable (%s)", igemm_last_error());

    CLI_CU(cudaMemset(c->dy_raw, 0xFF, ysz + 2 * GUARD));
    CLI_CU(cudaMemset(c->dyd_raw, 0xFF, (size_t)c->ye * 4 + 2 * GUARD));
    CLI_IG(igemm_plan_run(plan, c->dx, c->dw, e.has_scale ? c->dscale : NULL,
                      e.has_bias ? c->dbias : NULL, e.has_residual ? c->dres : NULL, dy, NULL));
    if (have_direct)
        CLI_IG(igemm_plan_run(dplan, c->dx, c->dw, e.has_scale ? c->dscale : NULL,
                          e.has_bias ? c->dbias : NULL, e.has_residual ? c->dres32 : NULL, dyd,
                          NULL));
    CLI_CU(cudaDeviceSynchronize());
    CLI_CU(cudaMemcpy(c->hy_raw, c->dy_raw, ysz + 2 * GUARD, cudaMemcpyDeviceToHost));
    guards_ok = guards_intact(c->hy_raw, ysz);
    if (have_direct) {
        CLI_CU(cudaMemcpy(c->hyd_raw, c->dyd_raw, (size_t)c->ye * 4 + 2 * GUARD,
                      cudaMemcpyDeviceToHost));
        if (!guards_intact(c->hyd_raw, (size_t)c->ye * 4))
            snprintf(direct_note, sizeof direct_note, "direct path wrote outside y");
    }

    /* 1. every element against the direct path */
    if (have_direct) {
        double atol = full_atol(d, &e, c->max_scale, c->max_bias, c->max_res) * (1.0 + u_out);
        for (int64_t i = 0; i < c->ye; i++) {
            double ref = hyd[i];
            double got = load_elem(hy, (size_t)i, d->y_dtype);
            if (!(ref == ref)) { /* the direct path left poison: it is broken, not us */
                s_dir.nan_count++;
                continue;
            }
            stats_add(&s_full, i, got, ref, u_out * fabs(ref) + atol);
        }
    }

    /* 2. sampled elements against the exact host reference (also checks the direct path) */
    hp.d = d;
    hp.p = c->p;
    hp.q = c->q;
    hp.cg = d->c / d->groups;
    hp.kg = d->k / d->groups;
    hp.x = c->hx;
    hp.w = c->hw;
    hp.scale = c->hscale;
    hp.bias = c->hbias;
    hp.res = c->hres;
    hp.res_dtype = d->y_dtype;
    hp.epi = e;
    rs = hash_str(c->sh->name) ^ (o->seed * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)epi_case << 56) ^ 0x5a5a;
    nsamples = o->samples;
    if ((int64_t)nsamples > c->ye) nsamples = (int)c->ye;
    for (int i = 0; i < nsamples + 2 + (nsamples > 0 ? 64 : 0); i++) {
        int64_t m, kk, idx, mtot = d->n * c->p * c->q;
        double ref, atol, got;
        if (i == 0) {
            m = 0;
            kk = 0;
        } else if (i == 1) {
            m = mtot - 1;
            kk = d->k - 1;
        } else if (i < 2 + 64 && nsamples > 0) {
            /* output-border pixels, where padding is read */
            int64_t nn = (int64_t)(rng_unit(&rs) * (double)d->n);
            int64_t pp = (i & 1) ? 0 : c->p - 1, qq = (i & 2) ? 0 : c->q - 1;
            if (i & 4) pp = (int64_t)(rng_unit(&rs) * (double)c->p);
            else if (i & 8) qq = (int64_t)(rng_unit(&rs) * (double)c->q);
            m = (nn * c->p + pp) * c->q + qq;
            kk = (int64_t)(rng_unit(&rs) * (double)d->k);
        } else {
            m = (int64_t)(rng_unit(&rs) * (double)mtot);
            kk = (int64_t)(rng_unit(&rs) * (double)d->k);
        }
        if (m >= mtot) m = mtot - 1;
        if (kk >= d->k) kk = d->k - 1;
        idx = m * d->k + kk;
        nsampled++;
        ref = host_ref_elem(&hp, m, kk, &atol);
        got = load_elem(hy, (size_t)idx, d->y_dtype);
        stats_add(&s_samp, idx, got, ref, u_out * fabs(ref) + (1.0 + u_out) * atol);
        if (have_direct) stats_add(&s_dir, idx, hyd[idx], ref, 2.0 * U32 * fabs(ref) + atol);
    }

    {
        double max_abs = fmax(s_full.max_abs, s_samp.max_abs);
        double max_rel = fmax(s_full.max_rel, s_samp.max_rel);
        double worst = fmax(s_full.worst, s_samp.worst);
        char note[768] = "";
        pass = guards_ok && s_full.bad_count == 0 && s_samp.bad_count == 0;
        if (!guards_ok) snprintf(note + strlen(note), sizeof note - strlen(note), " wrote outside y;");
        if (s_full.nan_count || s_samp.nan_count)
            snprintf(note + strlen(note), sizeof note - strlen(note), " %lld%s NaN/inf/unwritten;",
                     (long long)(have_direct ? s_full.nan_count : s_samp.nan_count),
                     have_direct ? "" : " sampled");
        if (s_full.bad_count)
            snprintf(note + strlen(note), sizeof note - strlen(note),
                     " %lld/%lld differ from direct (first at y[%lld]);",
                     (long long)s_full.bad_count, (long long)c->ye, (long long)s_full.first_bad);
        if (s_samp.bad_count)
            snprintf(note + strlen(note), sizeof note - strlen(note),
                     " %lld/%d samples differ from host ref (first at y[%lld]);",
                     (long long)s_samp.bad_count, nsampled, (long long)s_samp.first_bad);
        if (have_direct && (s_dir.bad_count || s_dir.nan_count)) {
            /* Our result was judged against a direct path that is itself wrong. */
            pass = 0;
            snprintf(note + strlen(note), sizeof note - strlen(note),
                     " DIRECT PATH disagrees with host ref (%lld samples, %lld NaN);",
                     (long long)s_dir.bad_count, (long long)s_dir.nan_count);
        }
        if (direct_note[0]) {
            snprintf(note + strlen(note), sizeof note - strlen(note), " %s;", direct_note);
            if (have_direct) pass = 0; /* wrote outside y */
        }
        char ratio[32];
        if (worst < 1e4) snprintf(ratio, sizeof ratio, "%.3f", worst);
        else snprintf(ratio, sizeof ratio, "%.2e", worst);
        printf("%-26s %-13s %-8s %11.3e %11.3e %8s  %s%s\n", c->sh->name, cli_epi_name(epi_case),
               path, max_abs, max_rel, ratio, pass ? "PASS" : "FAIL", note);
    }
    igemm_plan_destroy(plan);
    igemm_plan_destroy(dplan);
    return pass;
fail:
    printf("%-26s %-13s %-8s %11s %11s %8s  FAIL %s\n", c->sh->name, cli_epi_name(epi_case), path,
           "-", "-", "-", err);
    igemm_plan_destroy(plan);
    igemm_plan_destroy(dplan);
    /* A sticky CUDA error makes every later call fail too: clear what can be cleared. */
    (void)cudaGetLastError();
    return 0;
}

static int cmd_check_gpu(const cli_opts_t *o)
{
    char dev[256], err[1024];
    int ncases = 0, npass = 0, ntotal = 0, need_res = 0;
    unsigned mask = o->epi_mask ? o->epi_mask : 1u << CLI_EPI_NONE;
    for (int e = 0; e < CLI_EPI_COUNT; e++)
        if (mask & (1u << e)) {
            ncases++;
            if (cli_epi_make(e).has_residual) need_res = 1;
        }
    gpu_device_line(dev, sizeof dev);
    printf("igemm %s check on %s: %s in, %s out; every element vs the direct path, %d sampled "
           "vs an exact host reference\n"
           "pass: |d| <= u_out*|ref| + atol everywhere (u_out = %g; atol bounds fp32 "
           "accumulation-order error); max_rel = max |d|/max(|ref|,1); err/tol = max |d|/tol\n",
           igemm_version_string(), dev, cli_dtype_name(o->dtype), cli_dtype_name(o->out_dtype),
           o->samples, unit_roundoff(o->out_dtype));
    printf("%-26s %-13s %-8s %11s %11s %8s  %s\n", "name", "epilogue", "path", "max_abs",
           "max_rel", "err/tol", "result");
    for (int i = 0; i < o->shapes.n; i++) {
        const cli_shape_t *sh = &o->shapes.v[i];
        check_data_t c;
        fprintf(stderr, "[%d/%d] %s ...\n", i + 1, o->shapes.n, sh->name);
        if (check_data_init(&c, sh, o, need_res, err, sizeof err) != 0) {
            printf("%-26s %-13s %-8s %11s %11s %8s  FAIL %s\n", sh->name, "*", "?", "-", "-", "-",
                   err);
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

/* ---- bench ---- */

#endif /* IGEMM_HAVE_CUDA */

/* ------------------------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    cli_opts_t o;
    const char *cmd;
    unsigned allowed;
    char err[1024] = "";
    int rc;

    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    cmd = argv[1];
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("igemm %s\n", igemm_version_string());
        return CLI_EXIT_OK;
    }
    if (!strcmp(cmd, "run")) allowed = CLI_OPTS_RUN;
    else if (!strcmp(cmd, "check")) allowed = CLI_OPTS_CHECK;
    else if (!strcmp(cmd, "bench")) allowed = CLI_OPTS_BENCH;
    else if (!strcmp(cmd, "info")) allowed = CLI_OPTS_INFO;
    else {
        fprintf(stderr, "igemm: unknown command '%s'\n\n", cmd);
        usage(stderr);
        return CLI_EXIT_USAGE;
    }

    cli_opts_init(&o, cmd);
    rc = cli_opts_parse(&o, argc - 2, argv + 2, allowed, err, sizeof err);
    if (rc == CLI_OPTS_HELP) {
        usage(stdout);
        cli_opts_free(&o);
        return CLI_EXIT_OK;
    }
    if (rc != CLI_EXIT_OK) {
        fprintf(stderr, "igemm: %s\n", err);
        if (rc == CLI_EXIT_USAGE) fprintf(stderr, "run 'igemm help' for usage\n");
        cli_opts_free(&o);
        return rc;
    }
    if (!strcmp(cmd, "info")) {
        rc = cmd_info(&o);
        cli_opts_free(&o);
        return rc;
    }
    rc = cli_opts_finish(&o, err, sizeof err);
    if (rc != CLI_EXIT_OK) {
        fprintf(stderr, "igemm: %s\n", err);
        cli_opts_free(&o);
        return rc;
    }

    if (!strcmp(cmd, "run")) {
        rc = cmd_run(&o);
        cli_opts_free(&o);
        return rc;
    }
    if (!strcmp(cmd, "bench")) {
        rc = cmd_bench(&o);
        cli_opts_free(&o);
        return rc;
    }
    char reason[256];
    if (!gpu_usable(reason, sizeof reason)) {
        {
            fprintf(stderr, "igemm: no CUDA GPU found (%s); '%s' needs one\n", reason, cmd);
            rc = CLI_EXIT_NO_GPU;
        }
        cli_opts_free(&o);
        return rc;
    }
#ifdef IGEMM_HAVE_CUDA
    rc = cmd_check_gpu(&o);
#else
    fprintf(stderr, "igemm: this build has no CUDA support; '%s' needs it\n", cmd);
    rc = CLI_EXIT_NO_GPU;
#endif
    cli_opts_free(&o);
    return rc;
}
