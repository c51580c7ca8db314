/*
 * test_gpu.c — GPU paths against the CPU reference (igemm_conv2d_reference).
 *
 * Every check: fresh random data uniform in [-1, 1] (never exactly 0), inputs surrounded by
 * 4 KB guards of 0xFF bytes (NaN in every dtype, so an unmasked out-of-bounds read shows up as
 * NaN), y surrounded by 4 KB guards of 0xA5 that must survive, y itself poisoned with 0xFF
 * (NaN) before each run; every output element must satisfy |out - ref| <= tol (tol_conv in
 * cli/tolerance.h) and must not be NaN.
 *
 * Tests: random configurations over the whole parameter space (AUTO), the same forcing each
 * path (GENERAL, DIRECT, SM90), edge shapes on every path, determinism, CUDA-graph capture on
 * a non-default stream, pointers that are element-aligned but not 16-byte aligned, and a
 * tensor of more than 2^31 elements (sampled check).
 * IGEMM_TEST_SEED=<n> changes the random seed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data.h"
#include "gpu_util.h"
#include "igemm.h"
#include "test.h"
#include "tolerance.h"

#ifndef IGEMM_HAVE_CUDA

/* Built without CUDA: register the GPU tests so that they show up as skipped. */
#define GPU_SKIP_TEST(name)                                                                   \
    TEST(name)                                                                                \
    {                                                                                         \
        test_skip("built without CUDA");                                                      \
    }
GPU_SKIP_TEST(gpu_random_auto)
GPU_SKIP_TEST(gpu_random_general)
GPU_SKIP_TEST(gpu_random_direct)
GPU_SKIP_TEST(gpu_random_sm90)
GPU_SKIP_TEST(gpu_edge_shapes_all_paths)
GPU_SKIP_TEST(gpu_determinism)
GPU_SKIP_TEST(gpu_stream_and_graph)
GPU_SKIP_TEST(gpu_unaligned_pointers)
GPU_SKIP_TEST(gpu_large_tensor)

#else /* IGEMM_HAVE_CUDA */

#include <cuda_runtime_api.h>

#define GUARD 4096
#define IN_GUARD_BYTE 0xFF  /* NaN pattern in f16, bf16 and f32 */
#define OUT_GUARD_BYTE 0xA5 /* must be untouched after a run */
#define POISON_BYTE 0xFF    /* y before each run: NaN */
#define MAX_MACS 2e7        /* reference cost cap per random configuration */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const char *path_str(igemm_path_t p)
{
    switch (p) {
    case IGEMM_PATH_AUTO: return "auto";
    case IGEMM_PATH_GENERAL: return "general";
    case IGEMM_PATH_SM90: return "sm90";
    case IGEMM_PATH_DIRECT: return "direct";
    }
    return "?";
}

/* ------------------------------------------------------------------ one problem */

typedef struct problem {
    igemm_conv2d_desc_t d;
    igemm_epilogue_t e;
    int64_t p, q, xe, we, ye;
    size_t ysz; /* bytes per y element */
    void *hx, *hw, *hres, *href, *hout;
    float *hscale, *hbias;
    dbuf_t x, w, y, res, scale, bias;
    char str[512];
} problem_t;

static void problem_free(problem_t *pb)
{
    free(pb->hx); free(pb->hw); free(pb->hres); free(pb->href); free(pb->hout);
    free(pb->hscale); free(pb->hbias);
    dbuf_free(&pb->x); dbuf_free(&pb->w); dbuf_free(&pb->y); dbuf_free(&pb->res);
    dbuf_free(&pb->scale); dbuf_free(&pb->bias);
    memset(pb, 0, sizeof *pb);
}

/* Random data, device buffers, and (with_ref) the reference output. Returns 0 or -1. */
static int problem_init(problem_t *pb, const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e,
                        data_rng_t *g, int with_ref)
{
    memset(pb, 0, sizeof *pb);
    pb->d = *d;
    pb->e = e ? *e : igemm_epilogue_default();
    conv_desc_str(&pb->d, &pb->e, pb->str, sizeof pb->str);
    if (igemm_conv2d_output_dims(d, &pb->p, &pb->q) != IGEMM_STATUS_SUCCESS ||
        igemm_conv2d_sizes(d, &pb->xe, &pb->we, &pb->ye) != IGEMM_STATUS_SUCCESS) {
        test_fail(__FILE__, __LINE__, "%s: invalid desc: %s", pb->str, igemm_last_error());
        return -1;
    }
    pb->ysz = data_dtype_bytes(d->y_dtype);
    int64_t K = d->k;
    pb->hx = malloc((size_t)pb->xe * 2);
    pb->hw = malloc((size_t)pb->we * 2);
    pb->href = malloc((size_t)pb->ye * pb->ysz);
    pb->hout = malloc((size_t)pb->ye * pb->ysz);
    if (pb->e.has_residual) pb->hres = malloc((size_t)pb->ye * pb->ysz);
    if (pb->e.has_scale) pb->hscale = (float *)malloc((size_t)K * sizeof(float));
    if (pb->e.has_bias) pb->hbias = (float *)malloc((size_t)K * sizeof(float));
    if (!pb->hx || !pb->hw || !pb->href || !pb->hout || (pb->e.has_residual && !pb->hres) ||
        (pb->e.has_scale && !pb->hscale) || (pb->e.has_bias && !pb->hbias)) {
        test_fail(__FILE__, __LINE__, "%s: host allocation failed", pb->str);
        return -1;
    }
    data_fill(pb->hx, pb->xe, d->x_dtype, -1, 1, g);
    data_fill(pb->hw, pb->we, d->w_dtype, -1, 1, g);
    if (pb->hres) data_fill(pb->hres, pb->ye, d->y_dtype, -1, 1, g);
    for (int64_t k = 0; pb->hscale && k < K; k++)
        pb->hscale[k] = (float)(data_rng_uniform(g, 0.5, 1.5) * (data_rng_next(g) & 1 ? -1 : 1));
    for (int64_t k = 0; pb->hbias && k < K; k++) pb->hbias[k] = (float)data_rng_uniform(g, -1, 1);

    if (dbuf_alloc(&pb->x, (size_t)pb->xe * 2, GUARD, IN_GUARD_BYTE) ||
        dbuf_alloc(&pb->w, (size_t)pb->we * 2, GUARD, IN_GUARD_BYTE) ||
        dbuf_alloc(&pb->y, (size_t)pb->ye * pb->ysz, GUARD, OUT_GUARD_BYTE) ||
        (pb->hres && dbuf_alloc(&pb->res, (size_t)pb->ye * pb->ysz, GUARD, IN_GUARD_BYTE)) ||
        (pb->hscale && dbuf_alloc(&pb->scale, (size_t)K * 4, GUARD, IN_GUARD_BYTE)) ||
        (pb->hbias && dbuf_alloc(&pb->bias, (size_t)K * 4, GUARD, IN_GUARD_BYTE)) ||
        dbuf_upload(&pb->x, pb->hx, (size_t)pb->xe * 2) || dbuf_upload(&pb->w, pb->hw, (size_t)pb->we * 2) ||
        (pb->hres && dbuf_upload(&pb->res, pb->hres, (size_t)pb->ye * pb->ysz)) ||
        (pb->hscale && dbuf_upload(&pb->scale, pb->hscale, (size_t)K * 4)) ||
        (pb->hbias && dbuf_upload(&pb->bias, pb->hbias, (size_t)K * 4))) {
        test_fail(__FILE__, __LINE__, "%s: device allocation/upload failed", pb->str);
        return -1;
    }
    if (with_ref) {
        igemm_status_t st = igemm_conv2d_reference(d, &pb->e, pb->hx, pb->hw, pb->hscale, pb->hbias,
                                                   pb->hres, pb->href);
        if (st != IGEMM_STATUS_SUCCESS) {
            test_fail(__FILE__, __LINE__, "%s: reference failed: %s", pb->str, igemm_last_error());
            return -1;
        }
    }
    return 0;
}

/* Poisons y, runs plan on stream with the given operand pointers, synchronises and downloads
 * y into hout. Returns the igemm status of run(), or CUDA_ERROR for an error after it (then a
 * failure is recorded). */
static igemm_status_t problem_run_ptrs(problem_t *pb, igemm_plan_t *plan, cudaStream_t stream,
                                       const void *x, const void *w, void *y, const void *res)
{
    if (dbuf_poison(&pb->y, POISON_BYTE)) return IGEMM_STATUS_CUDA_ERROR;
    if (cudaDeviceSynchronize() != cudaSuccess) return IGEMM_STATUS_CUDA_ERROR;
    igemm_status_t st = igemm_plan_run(plan, x, w, pb->hscale ? (const float *)pb->scale.ptr : NULL,
                                       pb->hbias ? (const float *)pb->bias.ptr : NULL, res, y, stream);
    if (st != IGEMM_STATUS_SUCCESS) return st;
    cudaError_t ce = cudaStreamSynchronize(stream);
    if (ce == cudaSuccess) ce = cudaGetLastError();
    if (ce != cudaSuccess) {
        test_fail(__FILE__, __LINE__, "%s: CUDA error after run (%s): %s", pb->str,
                  path_str(igemm_plan_path(plan)), cudaGetErrorString(ce));
        return IGEMM_STATUS_CUDA_ERROR;
    }
    if (dbuf_download(&pb->y, pb->hout, (size_t)pb->ye * pb->ysz)) return IGEMM_STATUS_CUDA_ERROR;
    return IGEMM_STATUS_SUCCESS;
}

static igemm_status_t problem_run(problem_t *pb, igemm_plan_t *plan, cudaStream_t stream)
{
    return problem_run_ptrs(pb, plan, stream, pb->x.ptr, pb->w.ptr, pb->y.ptr,
                            pb->hres ? pb->res.ptr : NULL);
}

/* Compares hout with href element by element and checks every guard. Returns the number of
 * bad elements (plus guard damage); records at most 3 failures per call. *worst gets the
 * largest err/tol seen. */
static int64_t problem_check(problem_t *pb, const char *tag, double *worst)
{
    const igemm_conv2d_desc_t *d = &pb->d;
    int64_t bad = 0, K = d->k;
    int reported = 0;
    for (int64_t i = 0; i < pb->ye; i++) {
        int64_t kk = i % K;
        double ref = data_get(pb->href, i, d->y_dtype);
        double out = data_get(pb->hout, i, d->y_dtype);
        double tol = tol_conv(d, &pb->e, pb->hscale, pb->hbias, kk, ref);
        double err = fabs(out - ref);
        int ok;
        if (isinf(ref)) ok = out == ref;
        else ok = !isnan(out) && err <= tol;
        if (ok && worst && tol > 0 && err / tol > *worst) *worst = err / tol;
        if (!ok) {
            bad++;
            if (reported < 3) {
                int64_t pix = i / K, q = pix % pb->q, p = (pix / pb->q) % pb->p, n = pix / (pb->q * pb->p);
                test_fail(__FILE__, __LINE__, "[%s] %s: y[n=%lld p=%lld q=%lld k=%lld] = %.8g, ref %.8g, "
                          "|err| %.3g > tol %.3g", tag, pb->str, (long long)n, (long long)p, (long long)q,
                          (long long)kk, out, ref, err, tol);
                reported++;
            }
        }
    }
    if (bad > 3) test_fail(__FILE__, __LINE__, "[%s] %s: %lld of %lld elements wrong", tag, pb->str,
                           (long long)bad, (long long)pb->ye);
    /* the inputs are read-only */
    const dbuf_t *ins[3] = {&pb->x, &pb->w, &pb->res};
    const void *hins[3] = {pb->hx, pb->hw, pb->hres};
    for (int b = 0; b < 3; b++) {
        if (!hins[b]) continue;
        void *tmp = malloc(ins[b]->bytes);
        if (tmp && dbuf_download(ins[b], tmp, ins[b]->bytes) == 0 && memcmp(tmp, hins[b], ins[b]->bytes) != 0) {
            test_fail(__FILE__, __LINE__, "[%s] %s: input %s was modified", tag, pb->str, b == 0 ? "x" : b == 1 ? "w" : "residual");
            bad++;
        }
        free(tmp);
    }
    const dbuf_t *bufs[6] = {&pb->y, &pb->x, &pb->w, &pb->res, &pb->scale, &pb->bias};
    const char *names[6] = {"y", "x", "w", "residual", "scale", "bias"};
    for (int b = 0; b < 6; b++) {
        if (!bufs[b]->base) continue;
        int64_t dmg = dbuf_guard_damage(bufs[b]);
        if (dmg != 0) {
            test_fail(__FILE__, __LINE__, "[%s] %s: %lld bytes of the guard around %s changed", tag,
                      pb->str, (long long)dmg, names[b]);
            bad += dmg > 0 ? dmg : 1;
        }
    }
    return bad;
}

/* ------------------------------------------------------------------ random configurations */

typedef enum { GEN_ANY = 0, GEN_SM90 = 1 } gen_mode_t;

static void gen_epilogue(data_rng_t *g, igemm_epilogue_t *e)
{
    *e = igemm_epilogue_default();
    e->activation = (igemm_activation_t)data_rng_int(g, 0, 8);
    e->act_param = (float)data_rng_uniform(g, 0.0, 0.5);
    e->has_scale = (int)(data_rng_next(g) & 1);
    e->has_bias = (int)(data_rng_next(g) & 1);
    e->has_residual = (int)(data_rng_next(g) & 1);
    if (data_rng_int(g, 0, 3) != 0) {
        e->alpha = (float)(data_rng_uniform(g, 0.25, 2.0) * (data_rng_next(g) & 1 ? -1 : 1));
        e->beta = (float)(data_rng_uniform(g, 0.25, 2.0) * (data_rng_next(g) & 1 ? -1 : 1));
    }
}

static int64_t gen_filter(data_rng_t *g) { return data_rng_int(g, 0, 99) < 92 ? data_rng_int(g, 1, 7) : 11; }
static int64_t gen_stride(data_rng_t *g) { return data_rng_int(g, 0, 99) < 88 ? data_rng_int(g, 1, 4) : data_rng_int(g, 5, 8); }

static int gen_config(data_rng_t *g, gen_mode_t mode, igemm_conv2d_desc_t *out, igemm_epilogue_t *e)
{
    static const int64_t cl[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 24, 31, 32, 40, 48, 56, 64, 72, 96, 128, 136, 160};
    static const int64_t dw_groups[] = {1, 2, 3, 5, 8, 16, 24, 32, 64, 96, 128, 160};
    static const int64_t g_groups[] = {2, 3, 4, 8, 16, 32};
    static const int64_t g_cg[] = {1, 2, 3, 4, 8, 16};
    static const int64_t sm90_c[] = {64, 64, 128, 128, 192, 256, 8, 16, 24, 32, 40, 48, 72, 96, 136, 160};
    static const int64_t sm90_k[] = {64, 64, 128, 128, 192, 256, 8, 16, 24, 32, 40, 72, 96, 136};
    static const int64_t sm90_f[] = {1, 1, 1, 3, 3, 3, 3, 5, 7, 2};
    const int ncl = (int)(sizeof cl / sizeof cl[0]);
    for (int tries = 0; tries < 100000; tries++) {
        igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
        d.n = data_rng_int(g, 1, 3);
        if (mode == GEN_ANY) {
            int gm = (int)data_rng_int(g, 0, 99);
            if (gm < 55) {
                d.groups = 1;
                d.c = data_rng_int(g, 0, 3) == 0 ? 2 * data_rng_int(g, 0, 16) + 1 : data_rng_pick(g, cl, ncl);
                d.k = data_rng_int(g, 0, 3) == 0 ? 2 * data_rng_int(g, 0, 16) + 1 : data_rng_pick(g, cl, ncl);
            } else if (gm < 75) { /* depthwise, channel multiplier 1..3 */
                d.groups = data_rng_pick(g, dw_groups, 12);
                d.c = d.groups;
                d.k = d.groups * (data_rng_int(g, 0, 2) == 0 ? data_rng_int(g, 2, 3) : 1);
            } else {
                d.groups = data_rng_pick(g, g_groups, 6);
                d.c = d.groups * data_rng_pick(g, g_cg, 6);
                d.k = d.groups * data_rng_pick(g, g_cg, 6);
            }
            d.h = data_rng_int(g, 1, 20);
            d.w = data_rng_int(g, 1, 20);
            d.r = gen_filter(g);
            d.s = data_rng_int(g, 0, 9) < 7 ? d.r : gen_filter(g);
            d.stride_h = gen_stride(g);
            d.stride_w = data_rng_int(g, 0, 9) < 6 ? d.stride_h : gen_stride(g);
            d.dil_h = data_rng_int(g, 0, 3) == 0 ? data_rng_int(g, 2, 3) : 1;
            d.dil_w = data_rng_int(g, 0, 3) == 0 ? data_rng_int(g, 2, 3) : 1;
        } else {
            d.groups = 1;
            d.c = data_rng_pick(g, sm90_c, (int)(sizeof sm90_c / sizeof sm90_c[0]));
            d.k = data_rng_pick(g, sm90_k, (int)(sizeof sm90_k / sizeof sm90_k[0]));
            d.h = data_rng_int(g, 1, 20);
            d.w = data_rng_int(g, 1, 20);
            d.r = data_rng_pick(g, sm90_f, 10);
            d.s = data_rng_int(g, 0, 4) ? d.r : data_rng_pick(g, sm90_f, 10);
            d.stride_h = data_rng_int(g, 0, 3) ? 1 : data_rng_int(g, 2, 4);
            d.stride_w = data_rng_int(g, 0, 3) ? d.stride_h : data_rng_int(g, 1, 4);
            d.dil_h = data_rng_int(g, 0, 5) ? 1 : 2;
            d.dil_w = data_rng_int(g, 0, 5) ? d.dil_h : 2;
        }
        if (data_rng_int(g, 0, 2) == 0) { /* "same"-style padding */
            d.pad_top = d.pad_bottom = (d.r - 1) * d.dil_h / 2;
            d.pad_left = d.pad_right = (d.s - 1) * d.dil_w / 2;
            if (d.pad_top > 3) d.pad_top = d.pad_bottom = 3;
            if (d.pad_left > 3) d.pad_left = d.pad_right = 3;
        } else {
            d.pad_top = data_rng_int(g, 0, 3);
            d.pad_bottom = data_rng_int(g, 0, 3);
            d.pad_left = data_rng_int(g, 0, 3);
            d.pad_right = data_rng_int(g, 0, 3);
        }
        d.x_dtype = d.w_dtype = data_rng_next(g) & 1 ? IGEMM_DTYPE_BF16 : IGEMM_DTYPE_F16;
        d.y_dtype = (igemm_dtype_t)data_rng_int(g, 0, 2);
        if (igemm_conv2d_validate(&d) != IGEMM_STATUS_SUCCESS) continue;
        int64_t p = 0, q = 0;
        (void)igemm_conv2d_output_dims(&d, &p, &q);
        double macs = (double)d.n * p * q * d.k * d.r * d.s * (d.c / d.groups);
        if (macs > MAX_MACS) continue;
        *out = d;
        gen_epilogue(g, e);
        return 1;
    }
    return 0;
}

typedef struct run_stats {
    int ran[4];   /* by igemm_plan_path */
    int skipped;  /* forced path refused the shape (NOT_SUPPORTED) */
    int failed;   /* configs with a wrong element, a status or a CUDA error */
    int64_t elems;
    double worst;     /* max err / tol over passing elements */
    double worst_f32; /* the same over f32 outputs only (no final-rounding flips: accumulation) */
} run_stats_t;

/* Runs one configuration on path; updates st. Returns 0, or -1 on a CUDA error that makes
 * carrying on pointless. */
static int run_one(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, igemm_path_t path,
                   data_rng_t *g, run_stats_t *st, int refuse_ok)
{
    problem_t pb;
    igemm_plan_options_t o = igemm_plan_options_default();
    o.path = path;
    igemm_plan_t *plan = NULL;
    char tmp[512];
    conv_desc_str(d, e, tmp, sizeof tmp);
    igemm_status_t s = igemm_plan_create(&plan, d, e, &o);
    if (s == IGEMM_STATUS_NOT_SUPPORTED && refuse_ok) {
        st->skipped++;
        return 0;
    }
    if (s != IGEMM_STATUS_SUCCESS) {
        test_fail(__FILE__, __LINE__, "%s: plan_create(path %s) = %s: %s", tmp, path_str(path),
                  igemm_status_string(s), igemm_last_error());
        st->failed++;
        return 0;
    }
    if (path != IGEMM_PATH_AUTO && igemm_plan_path(plan) != path) {
        test_fail(__FILE__, __LINE__, "%s: forced path %s but plan runs %s", tmp, path_str(path),
                  path_str(igemm_plan_path(plan)));
        st->failed++;
    }
    if (problem_init(&pb, d, e, g, 1)) {
        st->failed++;
        problem_free(&pb);
        igemm_plan_destroy(plan);
        return cudaGetLastError() == cudaSuccess ? 0 : -1;
    }
    s = problem_run(&pb, plan, NULL);
    int rc = 0;
    char tag[64];
    snprintf(tag, sizeof tag, "%s", path_str(igemm_plan_path(plan)));
    if (s != IGEMM_STATUS_SUCCESS) {
        test_fail(__FILE__, __LINE__, "%s: run(%s) = %s: %s", pb.str, tag, igemm_status_string(s),
                  igemm_last_error());
        st->failed++;
        rc = s == IGEMM_STATUS_CUDA_ERROR ? -1 : 0;
    } else {
        double w = 0;
        if (problem_check(&pb, tag, &w)) st->failed++;
        if (w > st->worst) st->worst = w;
        if (d->y_dtype == IGEMM_DTYPE_F32 && w > st->worst_f32) st->worst_f32 = w;
        st->elems += pb.ye;
        int pi = (int)igemm_plan_path(plan);
        if (pi >= 0 && pi < 4) st->ran[pi]++;
    }
    problem_free(&pb);
    igemm_plan_destroy(plan);
    return rc;
}

/* Which corners of the parameter space a run of the generator reached. */
typedef struct coverage {
    unsigned act, dtypes, feat;
} coverage_t;
enum {
    COV_GROUPED = 1u << 0, COV_DEPTHWISE = 1u << 1, COV_R11 = 1u << 2, COV_STRIDE5 = 1u << 3,
    COV_DIL = 1u << 4, COV_ASYM_PAD = 1u << 5, COV_C1 = 1u << 6, COV_K1 = 1u << 7, COV_C_ODD = 1u << 8,
    COV_C64 = 1u << 9, COV_SCALE = 1u << 10, COV_BIAS = 1u << 11, COV_RES = 1u << 12,
    COV_ALL = (1u << 13) - 1
};

static void cover(coverage_t *cv, const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e)
{
    cv->act |= 1u << (int)e->activation;
    cv->dtypes |= 1u << ((int)d->x_dtype * 3 + (int)d->y_dtype);
    if (d->groups > 1 && d->groups < d->c) cv->feat |= COV_GROUPED;
    if (d->groups > 1 && d->groups == d->c) cv->feat |= COV_DEPTHWISE;
    if (d->r == 11 || d->s == 11) cv->feat |= COV_R11;
    if (d->stride_h > 4 || d->stride_w > 4) cv->feat |= COV_STRIDE5;
    if (d->dil_h > 1 || d->dil_w > 1) cv->feat |= COV_DIL;
    if (d->pad_top != d->pad_bottom || d->pad_left != d->pad_right) cv->feat |= COV_ASYM_PAD;
    if (d->c == 1) cv->feat |= COV_C1;
    if (d->k == 1) cv->feat |= COV_K1;
    if (d->c % 2 == 1 && d->c > 1) cv->feat |= COV_C_ODD;
    if (d->c % 64 == 0) cv->feat |= COV_C64;
    if (e->has_scale) cv->feat |= COV_SCALE;
    if (e->has_bias) cv->feat |= COV_BIAS;
    if (e->has_residual) cv->feat |= COV_RES;
}

static void random_test(igemm_path_t path, int nconfigs, gen_mode_t mode, uint64_t seed_base)
{
    coverage_t cv = {0, 0, 0};
    uint64_t seed = test_seed(seed_base);
    data_rng_t g = {seed};
    run_stats_t st;
    memset(&st, 0, sizeof st);
    double t0 = now_s();
    for (int i = 0; i < nconfigs; i++) {
        igemm_conv2d_desc_t d;
        igemm_epilogue_t e;
        /* the sm90 run mixes in general configurations: they must be refused cleanly */
        gen_mode_t m = mode == GEN_SM90 && i % 5 == 4 ? GEN_ANY : mode;
        if (!gen_config(&g, m, &d, &e)) {
            test_fail(__FILE__, __LINE__, "could not generate a configuration");
            return;
        }
        cover(&cv, &d, &e);
        /* sm90: cycle the tile shapes (planner's choice, 256 x {64,128}, 128 x {64,128,256},
         * 192 x 128 with 3 consumers, ping-pong 128 x {64,128} per consumer) through the
         * planner's developer knobs, so every kernel instance meets M/N tails */
        static const char *const force_wm[9] = {NULL, "2", "2", "1", "1", "1", "1", "2", "2"};
        static const char *const force_bn[9] = {NULL, "64", "128", "64", "128", "256", "128", "64", "128"};
        static const char *const force_nc[9] = {NULL, "2", "2", "2", "2", "2", "3", "2", "2"};
        if (path == IGEMM_PATH_SM90 && force_wm[i % 9]) {
            setenv("IGEMM_SM90_FORCE_WM", force_wm[i % 9], 1);
            setenv("IGEMM_SM90_FORCE_BN", force_bn[i % 9], 1);
            setenv("IGEMM_SM90_FORCE_NC", force_nc[i % 9], 1);
            if (i % 9 >= 7) { /* where it applies (TMA stores); a small grid, so that each CTA's
                                 * two consumers take several tiles in turn; filter-resident
                                 * (where it fits) on every other such configuration */
                setenv("IGEMM_SM90_PINGPONG", "1", 1);
                setenv("IGEMM_SM90_GRID", i % 2 ? "3" : "2", 1);
                setenv("IGEMM_SM90_BREUSE", (i / 9) % 2 ? "1" : "0", 1);
            }
        }
        /* and clusters on and off: every tile shape meets both (2x1 where M has 2+ tiles) */
        if (path == IGEMM_PATH_SM90) setenv("IGEMM_SM90_CLUSTER", (i / 9) % 2 ? "2" : "1", 1);
        /* and split in cluster on every other planner's-choice configuration without a 2x1
         * cluster (it applies where TMA stores do and 2 x the 128 x 128 tiles fit the SMs) */
        if (path == IGEMM_PATH_SM90 && i % 9 == 0 && (i / 9) % 2 == 0 && (i / 18) % 2 == 1)
            setenv("IGEMM_SM90_SKC", "1", 1);
        /* and half of them with the residual through the epilogue ring instead of the operand
         * ring, half of those with its smallest ring (boxes reloaded in the epilogue) */
        if (path == IGEMM_PATH_SM90 && i % 2 == 0) setenv("IGEMM_SM90_RES_MODE", "1", 1);
        if (path == IGEMM_PATH_SM90 && i % 4 == 2) setenv("IGEMM_SM90_RES_SLOTS", "2", 1);
        /* and every fifth with pixels as wgmma N (TP = 80, 96, 208 in turn; applies where the
         * epilogue is a TMA store), a third of those on a 2-CTA grid (several tiles per CTA) */
        if (path == IGEMM_PATH_SM90 && i % 5 == 1) {
            static const char *const tps[3] = {"80", "96", "208"};
            setenv("IGEMM_SM90_PIXN", tps[(i / 5) % 3], 1);
            unsetenv("IGEMM_SM90_RES_MODE"); /* its residual goes through the operand ring */
            if ((i / 5) % 3 == 1) setenv("IGEMM_SM90_GRID", "2", 1);
        }
        /* and every seventh with pixels as N in a ping-pong plan of 64 channels (TP = 128, 256 in
         * turn; applies where N <= 64 and the epilogue is a TMA store), on a 2-CTA grid */
        if (path == IGEMM_PATH_SM90 && i % 7 == 3) {
            setenv("IGEMM_SM90_PIXPP", (i / 7) % 2 ? "256" : "128", 1);
            setenv("IGEMM_SM90_GRID", "2", 1);
            unsetenv("IGEMM_SM90_RES_MODE"); /* its residual goes through the staging box */
        }
        /* and the fold path (c % 8 != 0) with the most filter rows folded per pixel on half of
         * them (its cost model picks one row on most small problems) */
        if (path == IGEMM_PATH_SM90 && i % 2 == 1) setenv("IGEMM_SM90_FOLD_ROWS", "64", 1);
        /* (c <= 4 with stride_w 2 goes to the stem-rows family first; half of those to the fold) */
        if (path == IGEMM_PATH_SM90 && i % 4 == 1) setenv("IGEMM_SM90_STEM", "0", 1);
        /* and c <= 4 through the stem path (gathered A) instead of the materialised fold on every fourth */
        if (path == IGEMM_PATH_SM90 && i % 4 == 3) setenv("IGEMM_SM90_GATHER", "1", 1);
        const int rc1 = run_one(&d, &e, path, &g, &st, path == IGEMM_PATH_SM90);
        unsetenv("IGEMM_SM90_FOLD_ROWS");
        unsetenv("IGEMM_SM90_STEM");
        unsetenv("IGEMM_SM90_GATHER");
        unsetenv("IGEMM_SM90_BREUSE");
        unsetenv("IGEMM_SM90_FORCE_WM");
        unsetenv("IGEMM_SM90_FORCE_BN");
        unsetenv("IGEMM_SM90_CLUSTER");
        unsetenv("IGEMM_SM90_SKC");
        unsetenv("IGEMM_SM90_RES_SLOTS");
        unsetenv("IGEMM_SM90_RES_MODE");
        unsetenv("IGEMM_SM90_PIXN");
        unsetenv("IGEMM_SM90_PIXPP");
        unsetenv("IGEMM_SM90_FORCE_NC");
        unsetenv("IGEMM_SM90_PINGPONG");
        unsetenv("IGEMM_SM90_GRID");
        if (rc1 < 0) {
            test_fail(__FILE__, __LINE__, "stopping after a CUDA error (config %d)", i);
            break;
        }
        if (st.failed >= 10) {
            test_fail(__FILE__, __LINE__, "stopping after %d failing configs", st.failed);
            break;
        }
    }
    fprintf(stdout, "  random %-7s seed %llu: %d configs ran (general %d, sm90 %d, direct %d), %d refused, "
            "%d failed, %lld elements, worst err/tol %.3f (f32 out %.3f), %.1fs\n",
            path_str(path), (unsigned long long)seed, st.ran[1] + st.ran[2] + st.ran[3], st.ran[1],
            st.ran[2], st.ran[3], st.skipped, st.failed, (long long)st.elems, st.worst, st.worst_f32, now_s() - t0);
    if (mode == GEN_ANY && nconfigs >= 300) {
        CHECK_MSG(cv.act == 0x1FFu, "activations covered: mask 0x%x", cv.act);
        CHECK_MSG(cv.dtypes == 0x3Fu, "dtype combinations covered: mask 0x%x", cv.dtypes);
        CHECK_MSG(cv.feat == COV_ALL, "features covered: mask 0x%x of 0x%x", cv.feat, (unsigned)COV_ALL);
    }
    if (path == IGEMM_PATH_SM90) {
        int dev = 0, major = 0, minor = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
        if (major == 9 && minor == 0)
            CHECK_MSG(st.ran[2] >= nconfigs / 4, "sm_90 device but the sm90 path ran only %d of %d configs",
                      st.ran[2], nconfigs);
    }
}

TEST(gpu_random_auto)
{
    SKIP_WITHOUT_GPU();
    random_test(IGEMM_PATH_AUTO, 320, GEN_ANY, 0x1001);
}

TEST(gpu_random_general)
{
    SKIP_WITHOUT_GPU();
    random_test(IGEMM_PATH_GENERAL, 100, GEN_ANY, 0x2002);
}

TEST(gpu_random_direct)
{
    SKIP_WITHOUT_GPU();
    random_test(IGEMM_PATH_DIRECT, 100, GEN_ANY, 0x3003);
}

TEST(gpu_random_sm90)
{
    SKIP_WITHOUT_GPU();
    random_test(IGEMM_PATH_SM90, 240, GEN_SM90, 0x4004);
}

/* ------------------------------------------------------------------ edge shapes */

/* The three epilogue kinds the sm90 plan tests sweep: 0 none; 1 bias + ReLU; 2 scale + bias +
 * 0.75 * residual + GELU. */
static igemm_epilogue_t epilogue_kind(int ek)
{
    igemm_epilogue_t e = igemm_epilogue_default();
    if (ek >= 1) {
        e.has_bias = 1;
        e.activation = IGEMM_ACT_RELU;
    }
    if (ek == 2) {
        e.has_scale = e.has_residual = 1;
        e.beta = 0.75f;
        e.activation = IGEMM_ACT_GELU_TANH;
    }
    return e;
}

static igemm_conv2d_desc_t shape(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r,
                                 int64_t s, int64_t stride, int64_t pad, int64_t dil, int64_t groups,
                                 igemm_dtype_t in, igemm_dtype_t out)
{
    igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
    d.n = n; d.h = h; d.w = w; d.c = c; d.k = k; d.r = r; d.s = s;
    d.stride_h = d.stride_w = stride;
    d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = pad;
    d.dil_h = d.dil_w = dil;
    d.groups = groups;
    d.x_dtype = d.w_dtype = in;
    d.y_dtype = out;
    return d;
}

TEST(gpu_edge_shapes_all_paths)
{
    SKIP_WITHOUT_GPU();
    const igemm_dtype_t F16 = IGEMM_DTYPE_F16, BF = IGEMM_DTYPE_BF16, F32 = IGEMM_DTYPE_F32;
    igemm_conv2d_desc_t shapes[] = {
        shape(1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, BF, F32),      /* the smallest problem */
        shape(1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, F16, F16),
        shape(3, 5, 7, 1, 1, 3, 3, 1, 1, 1, 1, F16, F32),     /* c = k = 1 */
        shape(2, 9, 9, 3, 64, 7, 7, 2, 3, 1, 1, BF, BF),      /* stem-like, c = 3 */
        shape(1, 20, 20, 64, 64, 3, 3, 1, 1, 1, 1, BF, BF),   /* the canonical fast shape */
        shape(1, 11, 13, 64, 128, 1, 1, 1, 0, 1, 1, F16, F16),/* 1x1, odd M */
        shape(2, 12, 12, 32, 32, 3, 3, 1, 1, 1, 32, BF, F32), /* depthwise */
        shape(1, 10, 10, 16, 48, 3, 3, 1, 1, 1, 16, F16, BF), /* depthwise, multiplier 3 */
        shape(1, 15, 15, 8, 8, 11, 11, 1, 3, 1, 1, BF, F32),  /* 11x11, mostly padding */
        shape(2, 17, 19, 24, 40, 3, 3, 8, 2, 1, 1, F16, F32), /* stride 8 */
        shape(1, 19, 19, 16, 16, 3, 3, 1, 3, 3, 1, BF, BF),   /* dilation 3 */
        shape(1, 7, 7, 64, 64, 7, 7, 1, 0, 1, 1, BF, F32),    /* filter = image: p = q = 1 */
        shape(3, 8, 8, 96, 72, 3, 3, 2, 1, 1, 3, F16, F16),   /* grouped */
        shape(1, 16, 16, 160, 136, 1, 1, 1, 0, 1, 1, BF, BF), /* tails in both N and K */
    };
    const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
    const igemm_path_t paths[4] = {IGEMM_PATH_AUTO, IGEMM_PATH_GENERAL, IGEMM_PATH_DIRECT, IGEMM_PATH_SM90};
    data_rng_t g = {test_seed(0x5005)};
    run_stats_t st;
    memset(&st, 0, sizeof st);
    for (int i = 0; i < nshapes; i++) {
        igemm_epilogue_t e;
        gen_epilogue(&g, &e);
        if (i < 2) e = igemm_epilogue_default();
        for (int pi = 0; pi < 4; pi++)
            if (run_one(&shapes[i], &e, paths[pi], &g, &st, paths[pi] == IGEMM_PATH_SM90) < 0) return;
    }
    fprintf(stdout, "  edge shapes: %d shapes x 4 paths: ran general %d, sm90 %d, direct %d; %d refused; "
            "worst err/tol %.3f\n", nshapes, st.ran[1], st.ran[2], st.ran[3], st.skipped, st.worst);
}

/* ------------------------------------------------------------------ determinism */

TEST(gpu_determinism)
{
    SKIP_WITHOUT_GPU();
    const igemm_dtype_t F16 = IGEMM_DTYPE_F16, BF = IGEMM_DTYPE_BF16, F32 = IGEMM_DTYPE_F32;
    igemm_conv2d_desc_t shapes[] = {
        shape(1, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1, BF, BF),  /* long K: split-K candidate */
        shape(2, 14, 14, 256, 64, 3, 3, 1, 1, 1, 1, F16, F32),
        shape(4, 20, 20, 64, 64, 3, 3, 1, 1, 1, 1, BF, F32),
        shape(2, 16, 16, 64, 64, 3, 3, 1, 1, 1, 64, F16, F16),
    };
    const igemm_path_t paths[3] = {IGEMM_PATH_AUTO, IGEMM_PATH_GENERAL, IGEMM_PATH_DIRECT};
    data_rng_t g = {test_seed(0x6006)};
    for (int i = 0; i < 4; i++) {
        igemm_epilogue_t e;
        gen_epilogue(&g, &e);
        problem_t pb;
        if (problem_init(&pb, &shapes[i], &e, &g, 1)) {
            problem_free(&pb);
            return;
        }
        size_t bytes = (size_t)pb.ye * pb.ysz;
        void *first = malloc(bytes);
        REQUIRE(first != NULL);
        for (int pi = 0; pi < 3; pi++) {
            igemm_plan_options_t o = igemm_plan_options_default();
            o.path = paths[pi];
            igemm_plan_t *plan = NULL;
            igemm_status_t s = igemm_plan_create(&plan, &pb.d, &pb.e, &o);
            if (s != IGEMM_STATUS_SUCCESS) {
                test_fail(__FILE__, __LINE__, "%s: plan_create(%s): %s", pb.str, path_str(paths[pi]), igemm_last_error());
                continue;
            }
            char tag[32];
            snprintf(tag, sizeof tag, "determinism %s", path_str(igemm_plan_path(plan)));
            int ok = problem_run(&pb, plan, NULL) == IGEMM_STATUS_SUCCESS;
            if (ok) {
                problem_check(&pb, tag, NULL);
                memcpy(first, pb.hout, bytes);
                for (int rep = 0; rep < 3 && ok; rep++) {
                    ok = problem_run(&pb, plan, NULL) == IGEMM_STATUS_SUCCESS;
                    CHECK_MSG(ok && memcmp(first, pb.hout, bytes) == 0,
                              "[%s] %s: repeat %d differs from the first run", tag, pb.str, rep + 1);
                }
            } else {
                test_fail(__FILE__, __LINE__, "[%s] %s: run failed: %s", tag, pb.str, igemm_last_error());
            }
            igemm_plan_destroy(plan);
        }
        free(first);
        problem_free(&pb);
    }
}

/* 1 (and the test marked skipped) unless the current device is sm_90: the sm90-path tests. */
static int skip_unless_sm90(void)
{
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    if (major != 9 || minor != 0) {
        test_skip("needs an sm_90 device (the sm90 path)");
        return 1;
    }
    return 0;
}

/* Creates an sm90 plan for pb under the planner knobs in env (a NULL-terminated list of
 * "NAME=value", set only while the plan is created), checks its description against want (a
 * NULL-terminated list, may be NULL: each string must appear, or with a leading '!' must not),
 * runs it (y poisoned first) and checks y against the reference under tag. Returns 1 if it ran
 * and matched (pb->hout then holds y), 0 after recording the failure. */
static int run_sm90_forced(problem_t *pb, const char *const *env, const char *const *want, const char *tag)
{
    char names[8][48];
    int nenv = 0;
    for (; env && env[nenv] && nenv < 8; nenv++) {
        const char *eq = strchr(env[nenv], '=');
        size_t len = eq ? (size_t)(eq - env[nenv]) : strlen(env[nenv]);
        if (len >= sizeof names[0]) len = sizeof names[0] - 1;
        memcpy(names[nenv], env[nenv], len);
        names[nenv][len] = '\0';
        setenv(names[nenv], eq ? eq + 1 : "", 1);
    }
    igemm_plan_options_t o = igemm_plan_options_default();
    o.path = IGEMM_PATH_SM90;
    igemm_plan_t *plan = NULL;
    const igemm_status_t s = igemm_plan_create(&plan, &pb->d, &pb->e, &o);
    for (int i = 0; i < nenv; i++) unsetenv(names[i]);
    if (s != IGEMM_STATUS_SUCCESS) {
        test_fail(__FILE__, __LINE__, "[%s] %s: plan_create(sm90): %s", tag, pb->str, igemm_last_error());
        return 0;
    }
    const char *desc = igemm_plan_describe(plan);
    int ok = 1;
    for (int i = 0; want && want[i]; i++) {
        const int absent = want[i][0] == '!';
        if ((strstr(desc, want[i] + absent) != NULL) == absent) {
            test_fail(__FILE__, __LINE__, "[%s] %s: the plan should %s \"%s\": %s", tag, pb->str,
                      absent ? "not say" : "say", want[i] + absent, desc);
            ok = 0;
        }
    }
    if (problem_run(pb, plan, NULL) != IGEMM_STATUS_SUCCESS) {
        test_fail(__FILE__, __LINE__, "[%s] %s: run failed: %s", tag, pb->str, igemm_last_error());
        ok = 0;
    } else if (problem_check(pb, tag, NULL) != 0) {
        ok = 0;
    }
    igemm_plan_destroy(plan);
    return ok;
}

/* Runs pb as run_sm90_forced does twice: under the knobs in env plus knob[0], then env plus
 * knob[1] (each plan's text checked against want[0] / want[1]); both must match the reference
 * and each other bit for bit (a difference is recorded as a failure, `what` its message).
 * Returns 1 if both ran and matched the reference, else 0 (the failure recorded). */
static int run_sm90_both_ways(problem_t *pb, const char *const *env, const char *const knob[2],
                              const char *const *const want[2], const char *tag, const char *what)
{
    const char *envv[10];
    int n = 0;
    for (; env && env[n] && n < 8; n++) envv[n] = env[n];
    const size_t bytes = (size_t)pb->ye * pb->ysz;
    void *first = malloc(bytes);
    if (first == NULL) {
        test_fail(__FILE__, __LINE__, "[%s] out of host memory", tag);
        return 0;
    }
    int ok = 1;
    for (int v = 0; v < 2 && ok; v++) {
        char vtag[64];
        envv[n] = knob[v];
        envv[n + 1] = NULL;
        snprintf(vtag, sizeof vtag, "%s [%s]", tag, knob[v]);
        ok = run_sm90_forced(pb, envv, want[v], vtag);
        if (ok && v == 0) memcpy(first, pb->hout, bytes);
        if (ok && v == 1) CHECK_MSG(memcmp(first, pb->hout, bytes) == 0, "%s: %s", pb->str, what);
    }
    free(first);
    return ok;
}

/* ------------------------------------------------------------------ sm90 clusters */

/* The same problems with 2x1 clusters (filter multicast) and without: both match the
 * reference, and bit for bit each other (a cluster changes who loads the filter, not the
 * arithmetic). The shapes give odd M-tile counts (the cluster's phantom tile), M and N tails,
 * every tile shape, split-K, f32 output and every epilogue kind. */
TEST(gpu_sm90_cluster_on_off)
{
    SKIP_WITHOUT_GPU();
    if (skip_unless_sm90()) return;
    const igemm_dtype_t F16 = IGEMM_DTYPE_F16, BF = IGEMM_DTYPE_BF16, F32 = IGEMM_DTYPE_F32;
    struct {
        igemm_conv2d_desc_t d;
        const char *wm, *bn, *split, *nc;
    } cases[] = {
        {shape(1, 19, 20, 64, 128, 3, 3, 1, 1, 1, 1, BF, BF), "1", "128", NULL, "2"},   /* M 380: 3 M-tiles */
        {shape(1, 19, 20, 64, 200, 3, 3, 1, 1, 1, 1, F16, F16), "1", "64", NULL, "2"},  /* N tail, 4 N-tiles */
        {shape(2, 23, 29, 128, 200, 3, 3, 1, 1, 1, 1, BF, BF), "2", "128", NULL, "2"},  /* 256-row tiles, M 1334 */
        {shape(2, 13, 13, 96, 256, 1, 1, 1, 0, 1, 1, BF, BF), "1", "256", NULL, "2"},   /* 1x1 tiled A, M 338 */
        {shape(3, 14, 14, 256, 128, 3, 3, 2, 1, 1, 1, BF, F32), "1", "128", NULL, "2"}, /* stride 2, f32 y */
        {shape(1, 14, 14, 512, 256, 3, 3, 1, 1, 1, 1, BF, BF), "1", "128", "3", "2"},   /* split-K 3 */
        {shape(1, 30, 30, 72, 120, 3, 3, 1, 1, 1, 1, F16, F16), "2", "64", NULL, "2"},  /* k % 8 == 0, c tail */
        {shape(2, 9, 9, 64, 70, 3, 3, 1, 1, 1, 1, BF, BF), "1", "128", NULL, "2"},      /* k % 8 != 0: direct stores */
        {shape(2, 19, 20, 64, 200, 3, 3, 1, 1, 1, 1, BF, BF), "1", "128", NULL, "3"},  /* 192x128: 4 M-tiles, N tail */
        {shape(1, 28, 30, 128, 128, 1, 1, 1, 0, 1, 1, F16, F16), "1", "128", NULL, "3"}, /* 192x128, tiled A, 5 M-tiles */
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    data_rng_t g = {test_seed(0x6206)};
    int both_ran = 0;
    for (int ci = 0; ci < ncases; ci++) {
        for (int ek = 0; ek < 3; ek++) { /* none; bias + ReLU; scale + bias + residual + GELU */
            const igemm_epilogue_t e = epilogue_kind(ek);
            problem_t pb;
            if (problem_init(&pb, &cases[ci].d, &e, &g, 1)) {
                problem_free(&pb);
                return;
            }
            char wm[48], bn[48], nc[48], split[48];
            snprintf(wm, sizeof wm, "IGEMM_SM90_FORCE_WM=%s", cases[ci].wm);
            snprintf(bn, sizeof bn, "IGEMM_SM90_FORCE_BN=%s", cases[ci].bn);
            snprintf(nc, sizeof nc, "IGEMM_SM90_FORCE_NC=%s", cases[ci].nc);
            snprintf(split, sizeof split, "IGEMM_SM90_FORCE_SPLIT=%s", cases[ci].split ? cases[ci].split : "");
            const char *env[] = {wm, bn, nc, cases[ci].split ? split : NULL, NULL};
            const char *const knob[2] = {"IGEMM_SM90_CLUSTER=1", "IGEMM_SM90_CLUSTER=2"};
            const char *tile = cases[ci].nc[0] == '3' ? "tile 192x128" : "2 consumer";
            const char *splits = cases[ci].split ? "x 3 split" : NULL;
            const char *want0[] = {"no cluster", tile, splits, NULL}, *want1[] = {"cluster 2x1", tile, splits, NULL};
            const char *const *const want[2] = {want0, want1};
            both_ran += run_sm90_both_ways(&pb, env, knob, want, "sm90 cluster",
                                           "cluster 2x1 output differs from no cluster");
            problem_free(&pb);
        }
    }
    CHECK_MSG(both_ran == 3 * ncases, "cluster on/off ran both ways on %d of %d problems", both_ran, 3 * ncases);
}

/* The loop of the sm90 plan tests: each of ncases problems (the desc of case i at byte offset
 * i * stride from descs: a field of a case struct) under each epilogue kind of epilogue_kind
 * (none; bias + ReLU; scale + bias + residual + GELU), with the reference, data from seed; fn runs
 * one problem (ci: its case) and returns 1 if it passed. Returns the number that passed, or -1 if
 * a problem could not be set up (already reported). */
static int sm90_each_case(const igemm_conv2d_desc_t *descs, size_t stride, int ncases, uint64_t seed,
                          int (*fn)(problem_t *pb, int ci, const void *ctx), const void *ctx)
{
    data_rng_t g = {test_seed(seed)};
    int ran = 0;
    for (int ci = 0; ci < ncases; ci++) {
        const igemm_conv2d_desc_t *d = (const igemm_conv2d_desc_t *)((const char *)descs + (size_t)ci * stride);
        for (int ek = 0; ek < 3; ek++) {
            const igemm_epilogue_t e = epilogue_kind(ek);
            problem_t pb;
            if (problem_init(&pb, d, &e, &g, 1)) {
                problem_free(&pb);
                return -1;
            }
            ran += fn(&pb, ci, ctx);
            problem_free(&pb);
        }
    }
    return ran;
}

/* gpu_sm90_split_cluster's problem: twice on (bit for bit the same), then off */
static int split_cluster_one(problem_t *pb, int ci, const void *ctx)
{
    (void)ci, (void)ctx;
    const char *const on[2] = {"IGEMM_SM90_SKC=1", "IGEMM_SM90_SKC=1"}, *off[] = {"IGEMM_SM90_SKC=0", NULL};
    const char *want_on[] = {"split-K 2 over a 2-CTA cluster", "tile 128x128x64", NULL};
    const char *want_off[] = {"!split-K 2 over a 2-CTA cluster", NULL};
    const char *const *const want[2] = {want_on, want_on};
    const int ok = run_sm90_both_ways(pb, NULL, on, want, "sm90 split in cluster", "split-in-cluster runs differ");
    return ok && run_sm90_forced(pb, off, want_off, "sm90 split in cluster off");
}

/* Split in cluster (IGEMM_SM90_SKC=1, the SKC instances): the two CTAs of a cluster run the two
 * halves of one 128 x 128 tile's k-blocks and exchange partial tiles through distributed shared
 * memory. Each problem runs twice under the knob (the plan must say so): both runs match the
 * reference and each other bit for bit (the exchange's sum is order-free: a + b on both ranks),
 * and once with the knob off (the plan must not say so). M and N tails (N % 128 != 0 with
 * k % 8 == 0), an odd k-block count (rank 0 takes one more), 2 k-blocks (one each), tiled A,
 * stride 2, a partial channel block, fp16 and every epilogue kind (the residual through the
 * epilogue ring). */
TEST(gpu_sm90_split_cluster)
{
    SKIP_WITHOUT_GPU();
    if (skip_unless_sm90()) return;
    const igemm_dtype_t F16 = IGEMM_DTYPE_F16, BF = IGEMM_DTYPE_BF16;
    const igemm_conv2d_desc_t cases[] = {
        shape(2, 7, 7, 512, 512, 3, 3, 1, 1, 1, 1, BF, BF),    /* r50_l4-like: M 98, 4 N-tiles, 72 k-blocks */
        shape(3, 14, 14, 256, 200, 3, 3, 2, 1, 1, 1, BF, BF),  /* stride 2, M 147 (tail), N 200 (tail) */
        shape(2, 13, 13, 96, 256, 1, 1, 1, 0, 1, 1, F16, F16), /* tiled A, 2 k-blocks: one per rank */
        shape(1, 19, 20, 72, 136, 3, 3, 1, 1, 1, 1, BF, BF),   /* c tail, 18 k-blocks, M 380, N 136 */
        shape(1, 9, 9, 64, 128, 3, 3, 1, 1, 1, 1, F16, F16),   /* 9 k-blocks: 5 + 4 */
        shape(2, 7, 7, 2048, 512, 1, 1, 1, 0, 1, 1, BF, BF),  /* 1x1 tiled A, 32 k-blocks */
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    const int ran = sm90_each_case(cases, sizeof cases[0], ncases, 0x6406, split_cluster_one, NULL);
    if (ran < 0) return;
    CHECK_MSG(ran == 3 * ncases, "split in cluster ran on %d of %d problems", ran, 3 * ncases);
}

/* A halo-row test case: the problem, its grid knob and (or NULL) a staging-box knob. */
typedef struct halo_case {
    igemm_conv2d_desc_t d;
    const char *grid, *slots;
} halo_case_t;

/* gpu_sm90_halo_rows' problem: on twice (bit for bit; rows of 56 pixels in pairs: two-row tiles
 * against the one-row plan), then off (the 128-pixel ping-pong plan it replaces, forced on these
 * small problems) */
static int halo_rows_one(problem_t *pb, int ci, const void *ctx)
{
    const halo_case_t *c = (const halo_case_t *)ctx + ci;
    const char *env[] = {"IGEMM_SM90_PIXPP=128", "IGEMM_SM90_BREUSE=1", c->grid, "IGEMM_SM90_HALO=1", NULL};
    const int two = c->d.w == 56 && c->d.h % 2 == 0;
    const char *const on[2] = {"IGEMM_SM90_HALO_ROWS=2", two ? "IGEMM_SM90_HALO_ROWS=1" : "IGEMM_SM90_HALO_ROWS=2"};
    const char *want_on[] = {"halo rows", c->d.w % 112 == 0 || two ? "tile 112x64x64" : "tile 56x64x64",
                             two ? "two 56-pixel rows" : "!two 56-pixel rows", NULL};
    const char *want_one[] = {"halo rows", "tile 56x64x64", "!two 56-pixel rows", NULL};
    const char *const *const want[2] = {want_on, two ? want_one : want_on};
    const int ok = run_sm90_both_ways(pb, env, on, want, "sm90 halo rows", "halo-row runs differ");
    const char *off_env[] = {"IGEMM_SM90_PIXPP=128", "IGEMM_SM90_BREUSE=1", c->grid, "IGEMM_SM90_HALO=0", NULL};
    const char *want_off[] = {"!halo rows", "tile 128x64x64", NULL};
    return ok && run_sm90_forced(pb, off_env, want_off, "sm90 halo rows off");
}

/* Halo-row plans (IGEMM_SM90_HALO, the pxhalo instances: 3x3 stride-1 convs of 64 channels,
 * tiles of 112 or 56 pixels of one image row, or of two whole 56-pixel rows, each filter row's
 * three taps read from one input row loaded with its halo, shifted by 0, 1, 2 pixels). Image edges
 * (zero halo from the TMA's out-of-bounds fill, top/bottom and left/right), one-row images,
 * asymmetric padding, an N tail, three tiles per row, every epilogue kind, bf16 and fp16, on small
 * grids (several tiles per CTA, the consumers in turn): on matches the reference and itself bit for
 * bit (two-row tiles: the one-row plan of the same problem, bit for bit); off (the 128-pixel plan)
 * matches the reference. */
TEST(gpu_sm90_halo_rows)
{
    SKIP_WITHOUT_GPU();
    if (skip_unless_sm90()) return;
    const igemm_dtype_t F16 = IGEMM_DTYPE_F16, BF = IGEMM_DTYPE_BF16;
    halo_case_t cases[] = {
        {shape(2, 6, 224, 64, 64, 3, 3, 1, 1, 1, 1, BF, BF), "IGEMM_SM90_GRID=3", NULL},   /* 24 tiles, 2 per row */
        {shape(1, 1, 112, 64, 40, 3, 3, 1, 1, 1, 1, BF, BF), "IGEMM_SM90_GRID=1", NULL},   /* one row, N tail */
        {shape(3, 3, 336, 64, 64, 3, 3, 1, 1, 1, 1, F16, F16), "IGEMM_SM90_GRID=4", NULL}, /* 3 tiles per row */
        {shape(2, 4, 224, 64, 64, 3, 3, 1, 1, 1, 1, F16, F16), "IGEMM_SM90_GRID=2", NULL},
        {shape(1, 5, 336, 64, 56, 3, 3, 1, 1, 1, 1, BF, BF), "IGEMM_SM90_GRID=5", NULL},   /* asymmetric padding (below) */
        {shape(2, 9, 56, 64, 64, 3, 3, 1, 1, 1, 1, BF, BF), "IGEMM_SM90_GRID=3", NULL},    /* 56-pixel rows: TP = 56 */
        {shape(1, 3, 168, 64, 48, 3, 3, 1, 1, 1, 1, F16, F16), "IGEMM_SM90_GRID=2", NULL}, /* 3 x 56 per row, N tail */
        {shape(2, 8, 56, 64, 64, 3, 3, 1, 1, 1, 1, BF, BF), "IGEMM_SM90_GRID=3", NULL},    /* two-row tiles (p even) */
        {shape(1, 2, 56, 64, 40, 3, 3, 1, 1, 1, 1, F16, F16), "IGEMM_SM90_GRID=1", NULL},  /* one two-row tile, N tail */
        {shape(3, 4, 56, 64, 64, 3, 3, 1, 1, 1, 1, F16, F16), "IGEMM_SM90_GRID=2", NULL},
        {shape(1, 6, 56, 64, 56, 3, 3, 1, 1, 1, 1, BF, BF), "IGEMM_SM90_GRID=2", NULL},    /* asymmetric padding (below) */
    };
    cases[4].d.pad_top = 0, cases[4].d.pad_bottom = 2, cases[4].d.pad_left = 0, cases[4].d.pad_right = 2;
    cases[10].d.pad_top = 2, cases[10].d.pad_bottom = 0, cases[10].d.pad_left = 2, cases[10].d.pad_right = 0;
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    const int ran = sm90_each_case(&cases[0].d, sizeof cases[0], ncases, 0x6606, halo_rows_one, cases);
    if (ran < 0) return;
    CHECK_MSG(ran == 3 * ncases, "halo rows ran on %d of %d problems", ran, 3 * ncases);
}

/* gpu_sm90_halo_rotate's problem: three consumers in turn, then two in ping-pong, bit for bit */
static int halo_rotate_one(problem_t *pb, int ci, const void *ctx)
{
    const halo_case_t *c = (const halo_case_t *)ctx + ci;
    const char *env[] = {"IGEMM_SM90_PIXPP=128", "IGEMM_SM90_BREUSE=1", c->grid, "IGEMM_SM90_HALO=1", c->slots, NULL};
    const char *const knob[2] = {"IGEMM_SM90_HALO_NC=3", "IGEMM_SM90_HALO_NC=2"};
    const char *want3[] = {"halo rows", "tile 112x64x64", "3 consumer warpgroups", NULL};
    const char *want2[] = {"halo rows", "tile 112x64x64", "2 consumer warpgroups", NULL};
    const char *const *const want[2] = {want3, want2};
    return run_sm90_both_ways(pb, env, knob, want, "sm90 halo rotate", "3-consumer and 2-consumer runs differ");
}

/* Halo-row plans with three consumers taking the tiles in turn (IGEMM_SM90_HALO_NC=3: each
 * epilogue runs under the two other consumers' mainloops) against the two-consumer ping-pong of
 * the same plan: both match the reference and each other bit for bit (the same MMAs and epilogue
 * per tile). Small grids so every consumer takes several tiles and the turn wraps round; one
 * tile alone; 112-pixel half rows, three tiles per row, two-row tiles of 56-pixel rows; an N
 * tail; asymmetric padding; the residual with one and with two staging boxes per consumer;
 * every epilogue kind, bf16 and fp16. */
TEST(gpu_sm90_halo_rotate)
{
    SKIP_WITHOUT_GPU();
    if (skip_unless_sm90()) return;
    const igemm_dtype_t F16 = IGEMM_DTYPE_F16, BF = IGEMM_DTYPE_BF16;
    halo_case_t cases[] = {
        {shape(2, 6, 224, 64, 64, 3, 3, 1, 1, 1, 1, BF, BF), "IGEMM_SM90_GRID=3", NULL},    /* 8 tiles per CTA */
        {shape(1, 1, 112, 64, 40, 3, 3, 1, 1, 1, 1, BF, BF), "IGEMM_SM90_GRID=1", NULL},    /* one tile, N tail */
        {shape(3, 3, 336, 64, 64, 3, 3, 1, 1, 1, 1, F16, F16), "IGEMM_SM90_GRID=4", NULL},  /* 3 tiles per row */
        {shape(2, 8, 56, 64, 64, 3, 3, 1, 1, 1, 1, BF, BF), "IGEMM_SM90_GRID=3", NULL},     /* two-row tiles */
        {shape(1, 5, 224, 64, 56, 3, 3, 1, 1, 1, 1, BF, BF), "IGEMM_SM90_GRID=2", NULL},    /* asymmetric padding */
        {shape(2, 4, 224, 64, 64, 3, 3, 1, 1, 1, 1, F16, F16), "IGEMM_SM90_GRID=2", "IGEMM_SM90_RES_SLOTS=2"},
    };
    cases[4].d.pad_top = 0, cases[4].d.pad_bottom = 2, cases[4].d.pad_left = 2, cases[4].d.pad_right = 0;
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    const int ran = sm90_each_case(&cases[0].d, sizeof cases[0], ncases, 0x6706, halo_rotate_one, cases);
    if (ran < 0) return;
    CHECK_MSG(ran == 3 * ncases, "halo rows in turn ran on %d of %d problems", ran, 3 * ncases);
}

/* Filter-resident ping-pong plans (IGEMM_SM90_BREUSE, the BRES instances): each CTA keeps one
 * N-tile, loads its filter slots once and walks M-tiles. Small grids make every CTA take
 * several tiles, with N-tiles of unequal CTA counts (grid % N-tiles != 0). 128 x 64 and
 * 128 x 128 tiles, N tails, 1x1 (tiled A), strided and dilated 3x3, both residual paths:
 * resident on and off match the reference and each other bit for bit. */
TEST(gpu_sm90_filter_resident)
{
    SKIP_WITHOUT_GPU();
    if (skip_unless_sm90()) return;
    const igemm_dtype_t F16 = IGEMM_DTYPE_F16, BF = IGEMM_DTYPE_BF16;
    struct {
        igemm_conv2d_desc_t d;
        const char *bn, *grid;
        int fits; /* forced on, the planner takes it (grid >= N-tiles, 2+ stages) */
    } cases[] = {
        {shape(2, 19, 20, 64, 200, 3, 3, 1, 1, 1, 1, F16, F16), "64", "5", 1},   /* 6 x 4 tiles, N tail */
        {shape(2, 13, 13, 96, 256, 1, 1, 1, 0, 1, 1, BF, BF), "128", "4", 1},    /* tiled A, 2 c-blocks */
        {shape(2, 23, 29, 128, 200, 1, 1, 1, 0, 1, 1, BF, BF), "128", "5", 1},   /* N tail */
        {shape(1, 28, 30, 128, 256, 1, 1, 1, 0, 1, 1, F16, F16), "64", "3", 0},  /* 4 N-tiles on 3 CTAs */
        {shape(2, 30, 30, 64, 192, 3, 3, 2, 1, 1, 1, BF, BF), "64", "3", 1},     /* stride 2, 3 N-tiles */
        {shape(2, 21, 17, 64, 64, 3, 3, 1, 2, 2, 1, BF, BF), "64", "2", 1},      /* dilation 2, one N-tile */
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    data_rng_t g = {test_seed(0x6306)};
    int both_ran = 0;
    for (int ci = 0; ci < ncases; ci++) {
        for (int ek = 0; ek < 3; ek++) { /* none; bias + ReLU; scale + bias + residual + GELU */
            const igemm_epilogue_t e = epilogue_kind(ek);
            problem_t pb;
            if (problem_init(&pb, &cases[ci].d, &e, &g, 1)) {
                problem_free(&pb);
                return;
            }
            char bn[48], grid[48];
            snprintf(bn, sizeof bn, "IGEMM_SM90_FORCE_BN=%s", cases[ci].bn);
            snprintf(grid, sizeof grid, "IGEMM_SM90_GRID=%s", cases[ci].grid);
            /* the odd cases take the residual through the operand ring (ping-pong's default: 1) */
            const char *env[] = {"IGEMM_SM90_FORCE_WM=2", bn, "IGEMM_SM90_PINGPONG=1", grid,
                                 ci % 2 == 1 ? "IGEMM_SM90_RES_MODE=2" : NULL, NULL};
            const char *const knob[2] = {"IGEMM_SM90_BREUSE=0", "IGEMM_SM90_BREUSE=1"};
            const char *want0[] = {"ping-pong", "!filter resident", NULL};
            const char *want1[] = {"ping-pong", cases[ci].fits ? "filter resident" : "!filter resident", NULL};
            const char *const *const want[2] = {want0, want1};
            both_ran += run_sm90_both_ways(&pb, env, knob, want, "sm90 filter resident",
                                           "filter-resident output differs from the ring plan's");
            problem_free(&pb);
        }
    }
    CHECK_MSG(both_ran == 3 * ncases, "filter resident on/off ran both ways on %d of %d problems", both_ran,
              3 * ncases);
}

/* Pixels as N in ping-pong plans of at most 64 output channels (IGEMM_SM90_PIXPP=128|256): a
 * tile of TP pixels x 64 channels per consumer, the consumers taking tiles in turn, the residual
 * TMA-loaded into the consumer's staging box. On a small grid each consumer takes several tiles
 * (the staging box and its residual reused), with the filter in the ring and resident; pixel
 * tails, N < 64 (channels past N zero-filled and not stored), im2col and tiled A, stride,
 * dilation, a partial channel block and every epilogue kind, against the reference. */
TEST(gpu_sm90_pixn_pingpong)
{
    SKIP_WITHOUT_GPU();
    if (skip_unless_sm90()) return;
    const igemm_dtype_t F16 = IGEMM_DTYPE_F16, BF = IGEMM_DTYPE_BF16;
    struct {
        igemm_conv2d_desc_t d;
        const char *grid;
    } cases[] = {
        {shape(2, 19, 20, 64, 64, 3, 3, 1, 1, 1, 1, F16, F16), "2"},   /* 760 pixels: 6 / 3 tiles, tail */
        {shape(2, 13, 13, 96, 64, 1, 1, 1, 0, 1, 1, BF, BF), "3"},     /* tiled A, 2 channel blocks */
        {shape(3, 23, 29, 64, 40, 1, 1, 1, 0, 1, 1, BF, BF), "4"},     /* N = 40 */
        {shape(2, 30, 30, 64, 32, 3, 3, 2, 1, 1, 1, BF, BF), "2"},     /* stride 2, N = 32 */
        {shape(2, 21, 17, 64, 64, 3, 3, 1, 2, 2, 1, F16, F16), "3"},   /* dilation 2 */
        {shape(1, 40, 40, 24, 64, 3, 3, 1, 1, 1, 1, BF, BF), "5"},     /* c = 24: a partial channel block */
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    static const char *const tps[2] = {"128", "256"};
    data_rng_t g = {test_seed(0x6307)};
    int ran = 0, want = 0;
    for (int ci = 0; ci < ncases; ci++) {
        for (int ek = 0; ek < 3; ek++) { /* none; bias + ReLU; scale + bias + residual + GELU */
            const igemm_epilogue_t e = epilogue_kind(ek);
            problem_t pb;
            if (problem_init(&pb, &cases[ci].d, &e, &g, 1)) {
                problem_free(&pb);
                return;
            }
            for (int v = 0; v < 4; v++) { /* TP 128 / 256, filter in the ring / resident */
                want++;
                char tp[48], grid[48], tile[32];
                snprintf(tp, sizeof tp, "IGEMM_SM90_PIXPP=%s", tps[v & 1]);
                snprintf(grid, sizeof grid, "IGEMM_SM90_GRID=%s", cases[ci].grid);
                snprintf(tile, sizeof tile, "tile %sx64x64", tps[v & 1]);
                const char *env[] = {tp, grid, v >> 1 ? "IGEMM_SM90_BREUSE=1" : "IGEMM_SM90_BREUSE=0", NULL};
                const char *desc_want[] = {"pixels as wgmma N each, ping-pong", tile, NULL};
                char tag[48];
                snprintf(tag, sizeof tag, "sm90 pixn ping-pong TP %s resident %d", tps[v & 1], v >> 1);
                ran += run_sm90_forced(&pb, env, desc_want, tag);
            }
            problem_free(&pb);
        }
    }
    CHECK_MSG(ran == want, "pixels-as-N ping-pong: %d of %d plans matched the reference", ran, want);
}

/* The fold path (c % 8 != 0) with each number of folded filter rows F (IGEMM_SM90_FOLD_ROWS)
 * and the cost model's pick: x' has C' = roundup(F*S*C, 8) channels and R' = ceil(R/F) rows of
 * taps; every F must match the reference (the stem-like shapes fold 1, 2 or 3 rows). */
TEST(gpu_sm90_fold_rows)
{
    SKIP_WITHOUT_GPU();
    if (skip_unless_sm90()) return;
    const igemm_dtype_t F16 = IGEMM_DTYPE_F16, BF = IGEMM_DTYPE_BF16;
    igemm_conv2d_desc_t cases[] = {
        shape(2, 40, 36, 3, 64, 7, 7, 2, 3, 1, 1, BF, BF),   /* ResNet stem: F up to 3 */
        shape(1, 23, 19, 5, 40, 5, 3, 1, 2, 1, 1, F16, F16), /* c = 5, 5x3: F up to 4 */
    };
    cases[1].dil_h = 2;
    const char *rows[4] = {NULL, "1", "2", "3"};
    data_rng_t g = {test_seed(0x6406)};
    int ran = 0;
    for (int ci = 0; ci < 2; ci++) {
        for (int ri = 0; ri < 4; ri++) {
            igemm_epilogue_t e = igemm_epilogue_default();
            e.has_bias = 1;
            e.activation = IGEMM_ACT_RELU;
            problem_t pb;
            if (problem_init(&pb, &cases[ci], &e, &g, 1)) {
                problem_free(&pb);
                return;
            }
            char fold[48], want[32], tag[48];
            snprintf(fold, sizeof fold, "IGEMM_SM90_FOLD_ROWS=%s", rows[ri] ? rows[ri] : "");
            /* the materialised fold (c <= 4 has the stem path) */
            const char *env[] = {"IGEMM_SM90_GATHER=0", "IGEMM_SM90_STEM=0", rows[ri] ? fold : NULL, NULL};
            snprintf(want, sizeof want, "fold %s filter row", rows[ri] ? rows[ri] : "");
            const char *desc_want[] = {rows[ri] ? want : "fold ", NULL};
            snprintf(tag, sizeof tag, "sm90 fold rows %s", rows[ri] ? rows[ri] : "auto");
            ran += run_sm90_forced(&pb, env, desc_want, tag);
            problem_free(&pb);
        }
    }
    CHECK_MSG(ran == 8, "fold rows ran %d of 8 plans", ran);
}

/* The stem path (IGEMM_SM90_GATHER=1; c <= 4: A gathered by the producer warpgroup with cp.async
 * from a 4-channel copy of x, GA instances): c = 1..4, filters up to 7x7 and 1x16, strides, dilation and
 * asymmetric padding, 64- and 128-column tiles, M tails, every epilogue kind (the residual
 * through the operand ring), on the planner's grid and on a 3-CTA grid (each CTA many tiles, the
 * ring wrapping): each must name the stem path and match the reference. */
TEST(gpu_sm90_stem_gather)
{
    SKIP_WITHOUT_GPU();
    if (skip_unless_sm90()) return;
    const igemm_dtype_t F16 = IGEMM_DTYPE_F16, BF = IGEMM_DTYPE_BF16;
    igemm_conv2d_desc_t cases[] = {
        shape(2, 40, 36, 3, 64, 7, 7, 2, 3, 1, 1, BF, BF),    /* ResNet stem: 2 rows x 7 taps per k-block */
        shape(1, 30, 20, 1, 32, 5, 5, 1, 2, 1, 1, F16, F16),  /* c = 1 */
        shape(2, 17, 23, 4, 64, 3, 3, 1, 2, 2, 1, BF, BF),    /* c = 4, dilation 2: one k-block */
        shape(1, 33, 29, 2, 136, 7, 3, 1, 1, 1, 1, F16, F16), /* c = 2, 128-column tiles, N tail */
        shape(1, 21, 40, 3, 64, 2, 16, 1, 0, 1, 1, BF, BF),   /* 1 x 16 taps: all 16 of a row */
        shape(3, 11, 13, 3, 48, 1, 1, 1, 0, 1, 1, BF, BF),    /* 1x1 */
    };
    cases[1].stride_w = 2;
    cases[3].stride_h = 2;
    cases[3].pad_top = 3;
    cases[3].pad_bottom = 2;
    cases[4].pad_left = 5;
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    data_rng_t g = {test_seed(0x6506)};
    int ran = 0, runs = 0;
    for (int ci = 0; ci < ncases; ci++) {
        for (int ek = 0; ek < 3; ek++) { /* none; bias + ReLU; scale + bias + residual + GELU */
            for (int small = 0; small <= 1; small++) {
                const igemm_epilogue_t e = epilogue_kind(ek);
                problem_t pb;
                if (problem_init(&pb, &cases[ci], &e, &g, 1)) {
                    problem_free(&pb);
                    return;
                }
                /* the stem path is off by default (slower than the fold) */
                const char *env[] = {"IGEMM_SM90_GATHER=1", small ? "IGEMM_SM90_GRID=3" : NULL, NULL};
                const char *desc_want[] = {"stem:", "gathered", NULL};
                char tag[48];
                snprintf(tag, sizeof tag, "sm90 stem%s", small ? " grid 3" : "");
                runs++;
                ran += run_sm90_forced(&pb, env, desc_want, tag);
                problem_free(&pb);
            }
        }
    }
    CHECK_MSG(ran == runs && runs == ncases * 6, "stem path ran %d of %d plans", ran, ncases * 6);
}

/* The stem-rows family (conv2d_stem.cu: c <= 4, stride_w 2; the tile's input rows staged once as
 * pixel pairs, the filter taps read from them by shifted descriptors): 7x7 pad 3 (ResNet), 3x3
 * pad 1 (c = 1, odd W and W = 40), 5x5 pad 2 (c = 4, k = 16), 4x4 pad 1 with stride_h 2 and
 * asymmetric padding (c = 2, k = 48), 4x4 pad 0 stride_h 1 (c = 3, k = 24); output rows of 18 to
 * 150 pixels (tiles of 112 or 128 with tails), every epilogue kind, bf16 and f16, on the planner's
 * grid and on a 3-CTA grid (each CTA many tiles: the rings, the order barriers and the staging
 * boxes wrap). Where w c % 8 == 0 the kernel reads x in place (raw mode: TMA chunks of the rows,
 * repacked in shared memory), and the same problem also runs with the pre-pass
 * (IGEMM_SM90_STEM_RAW=0); the other shapes take the pre-pass. Each run must name its mode and
 * match the reference, and both grids must agree bit for bit. */
TEST(gpu_sm90_stem_rows)
{
    SKIP_WITHOUT_GPU();
    if (skip_unless_sm90()) return;
    const igemm_dtype_t F16 = IGEMM_DTYPE_F16, BF = IGEMM_DTYPE_BF16;
    igemm_conv2d_desc_t cases[] = {
        shape(2, 40, 40, 3, 64, 7, 7, 2, 3, 1, 1, BF, BF),   /* ResNet stem, Q = 20 (raw: w c = 120) */
        shape(1, 21, 300, 3, 64, 7, 7, 2, 3, 1, 1, F16, F16), /* Q = 150: two 112-pixel tiles per row (pre-pass) */
        shape(2, 33, 47, 1, 32, 3, 3, 2, 1, 1, 1, F16, F16),  /* c = 1, odd W (pre-pass) */
        shape(1, 20, 40, 1, 32, 3, 3, 2, 1, 1, 1, BF, BF),    /* c = 1 raw */
        shape(1, 29, 258, 4, 16, 5, 5, 2, 2, 1, 1, BF, BF),   /* c = 4, k = 16, Q = 129 (raw) */
        shape(2, 26, 64, 2, 48, 4, 4, 2, 1, 1, 1, BF, BF),    /* 4x4 pad 1: 3 pair taps (raw) */
        shape(1, 19, 256, 3, 24, 4, 4, 2, 0, 1, 1, F16, F16), /* 4x4 pad 0, Q = 127: a 128-pixel tile (raw) */
    };
    cases[5].pad_bottom = 2;
    cases[6].stride_h = 1;
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    data_rng_t g = {test_seed(0x6806)};
    const char *const knob[2] = {"IGEMM_SM90_GRID=0", "IGEMM_SM90_GRID=3"}; /* the planner's grid; 3 CTAs */
    const char *const want_raw[] = {"stem rows", "read in place", "!fold", "!pre-pass", NULL};
    const char *const want_pre[] = {"stem rows", "pre-pass", "!fold", "!read in place", NULL};
    const char *const raw_off[] = {"IGEMM_SM90_STEM_RAW=0", NULL};
    int ran = 0, runs = 0;
    for (int ci = 0; ci < ncases; ci++) {
        const int raw = (cases[ci].w * cases[ci].c) % 8 == 0;
        for (int mode = 0; mode < (raw ? 2 : 1); mode++) { /* as planned; then the pre-pass */
            const char *const *const want[2] = {raw && mode == 0 ? want_raw : want_pre,
                                                raw && mode == 0 ? want_raw : want_pre};
            for (int ek = 0; ek < 3; ek++) { /* none; bias + ReLU; scale + bias + residual + GELU */
                const igemm_epilogue_t e = epilogue_kind(ek);
                problem_t pb;
                if (problem_init(&pb, &cases[ci], &e, &g, 1)) {
                    problem_free(&pb);
                    return;
                }
                runs++;
                ran += run_sm90_both_ways(&pb, mode == 1 ? raw_off : NULL, knob, want,
                                          mode == 1 ? "sm90 stem rows pre-pass" : "sm90 stem rows",
                                          "stem-rows results differ with the grid");
                problem_free(&pb);
            }
        }
    }
    CHECK_MSG(ran == runs && runs == 3 * (ncases + 5), "stem-rows path ran %d of %d problems", ran, runs);
}

/* Two live plans that run the same sm90 kernel instance with different shared-memory needs
 * (a residual through the epilogue ring deepens it and drops a stage): each must still launch after the
 * other ran. The kernel's dynamic-smem limit is process-wide; a plan lowering it to its own
 * need broke the other plan's next launch (found by the torch.compile test). */
TEST(gpu_plans_share_kernel)
{
    SKIP_WITHOUT_GPU();
    data_rng_t g = {test_seed(0x6106)};
    igemm_conv2d_desc_t d = shape(2, 28, 28, 64, 64, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    igemm_epilogue_t e1 = igemm_epilogue_default(), e2 = igemm_epilogue_default();
    e1.has_bias = 1;
    e1.activation = IGEMM_ACT_RELU;
    e2 = e1;
    e2.has_residual = 1;
    e2.beta = 0.5f;
    problem_t p1, p2;
    if (problem_init(&p1, &d, &e1, &g, 1)) {
        problem_free(&p1);
        return;
    }
    if (problem_init(&p2, &d, &e2, &g, 1)) {
        problem_free(&p1);
        problem_free(&p2);
        return;
    }
    igemm_plan_options_t o = igemm_plan_options_default();
    igemm_plan_t *a = NULL, *b = NULL;
    REQUIRE(igemm_plan_create(&a, &p1.d, &p1.e, &o) == IGEMM_STATUS_SUCCESS);
    setenv("IGEMM_SM90_RES_MODE", "1", 1); /* the residual path that takes epilogue-ring memory */
    const igemm_status_t sb = igemm_plan_create(&b, &p2.d, &p2.e, &o);
    unsetenv("IGEMM_SM90_RES_MODE");
    REQUIRE(sb == IGEMM_STATUS_SUCCESS);
    for (int rep = 0; rep < 2; rep++) {
        CHECK_MSG(problem_run(&p1, a, NULL) == IGEMM_STATUS_SUCCESS, "plan A run %d: %s", rep, igemm_last_error());
        problem_check(&p1, "shared kernel A", NULL);
        CHECK_MSG(problem_run(&p2, b, NULL) == IGEMM_STATUS_SUCCESS, "plan B run %d: %s", rep, igemm_last_error());
        problem_check(&p2, "shared kernel B", NULL);
    }
    igemm_plan_destroy(a);
    igemm_plan_destroy(b);
    problem_free(&p1);
    problem_free(&p2);
}

/* ------------------------------------------------------------------ stream + CUDA graph */

TEST(gpu_stream_and_graph)
{
    SKIP_WITHOUT_GPU();
    data_rng_t g = {test_seed(0x7007)};
    igemm_conv2d_desc_t d = shape(2, 10, 10, 64, 64, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    igemm_epilogue_t e = igemm_epilogue_default();
    e.has_bias = e.has_residual = 1;
    e.activation = IGEMM_ACT_RELU;
    e.beta = 0.5f;
    problem_t pb;
    if (problem_init(&pb, &d, &e, &g, 1)) {
        problem_free(&pb);
        return;
    }
    size_t bytes = (size_t)pb.ye * pb.ysz;
    void *direct_out = malloc(bytes);
    cudaStream_t stream = NULL;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    const igemm_path_t paths[3] = {IGEMM_PATH_AUTO, IGEMM_PATH_GENERAL, IGEMM_PATH_DIRECT};
    for (int pi = 0; pi < 3; pi++) {
        igemm_plan_options_t o = igemm_plan_options_default();
        o.path = paths[pi];
        igemm_plan_t *plan = NULL;
        if (igemm_plan_create(&plan, &d, &e, &o) != IGEMM_STATUS_SUCCESS) {
            test_fail(__FILE__, __LINE__, "plan_create(%s): %s", path_str(paths[pi]), igemm_last_error());
            continue;
        }
        char tag[48];
        snprintf(tag, sizeof tag, "stream %s", path_str(igemm_plan_path(plan)));
        /* plain run on the non-default stream */
        CHECK_EQ_INT(problem_run(&pb, plan, stream), IGEMM_STATUS_SUCCESS);
        problem_check(&pb, tag, NULL);
        memcpy(direct_out, pb.hout, bytes);

        /* capture into a graph */
        cudaGraph_t graph = NULL;
        cudaGraphExec_t exec = NULL;
        REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
        igemm_status_t s = igemm_plan_run(plan, pb.x.ptr, pb.w.ptr, NULL, (const float *)pb.bias.ptr,
                                          pb.res.ptr, pb.y.ptr, stream);
        cudaError_t ce = cudaStreamEndCapture(stream, &graph);
        CHECK_MSG(s == IGEMM_STATUS_SUCCESS, "run under capture: %s", igemm_last_error());
        CHECK_MSG(ce == cudaSuccess, "cudaStreamEndCapture: %s", cudaGetErrorString(ce));
        if (s != IGEMM_STATUS_SUCCESS || ce != cudaSuccess) {
            (void)cudaGetLastError();
            if (graph) cudaGraphDestroy(graph);
            igemm_plan_destroy(plan);
            continue;
        }
        size_t nnodes = 0;
        CHECK(cudaGraphGetNodes(graph, NULL, &nnodes) == cudaSuccess && nnodes >= 1);
        REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
        snprintf(tag, sizeof tag, "graph %s", path_str(igemm_plan_path(plan)));
        for (int rep = 0; rep < 2; rep++) {
            REQUIRE(dbuf_poison(&pb.y, POISON_BYTE) == 0);
            REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
            CHECK(cudaGraphLaunch(exec, stream) == cudaSuccess);
            ce = cudaStreamSynchronize(stream);
            CHECK_MSG(ce == cudaSuccess, "graph replay: %s", cudaGetErrorString(ce));
            REQUIRE(dbuf_download(&pb.y, pb.hout, bytes) == 0);
            problem_check(&pb, tag, NULL);
            CHECK_MSG(memcmp(direct_out, pb.hout, bytes) == 0, "[%s] replay %d differs from the stream run", tag, rep);
        }
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        igemm_plan_destroy(plan);
    }
    cudaStreamDestroy(stream);
    free(direct_out);
    problem_free(&pb);
}

/* ------------------------------------------------------------------ programmatic dependent launch */

/* A chain of sm90 convs on two ping-pong buffers (layer i reads the buffer layer i-1 wrote and
 * overwrites the one layer i-1 read, with the first input as every layer's residual): with
 * programmatic dependent launch each kernel may start before the previous one ends, so a wait
 * placed after any global access would show as a read-after-write or write-after-read race.
 * The chain runs back to back (repeatedly) and as a replayed CUDA graph, and must equal bit for
 * bit the same chain with a stream synchronisation after every layer (the kernels are
 * deterministic). pdl_chain() runs a chain of L layers of N x H x W x C (filter sizes rs[l], C
 * output channels each); skc: every layer forced to a split-in-cluster plan (IGEMM_SM90_SKC=1,
 * which the plan must say), else layer 3 without ping-pong. */
#define PDL_CHAIN_MAX 5
static void pdl_chain(int L, int64_t N, int64_t H, int64_t W, int64_t C, const int64_t *rs, int skc, uint64_t seed)
{
    const size_t elems = (size_t)N * H * W * C, bytes = elems * 2;
    data_rng_t g = {test_seed(seed)};
    void *buf[2] = {NULL, NULL}, *res = NULL, *w[PDL_CHAIN_MAX] = {NULL};
    igemm_plan_t *plan[PDL_CHAIN_MAX] = {NULL};
    REQUIRE(L >= 1 && L <= PDL_CHAIN_MAX);
    uint16_t *hx = (uint16_t *)malloc(bytes), *href = (uint16_t *)malloc(bytes), *hout = (uint16_t *)malloc(bytes);
    cudaStream_t stream = NULL;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    int drv = 0;
    REQUIRE(hx && href && hout);
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    data_fill(hx, (int64_t)elems, IGEMM_DTYPE_BF16, -1.0, 1.0, &g);
    REQUIRE(cudaMalloc(&buf[0], bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&buf[1], bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&res, bytes) == cudaSuccess);
    REQUIRE(cudaMemcpy(res, hx, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    (void)cudaDriverGetVersion(&drv);
    for (int l = 0; l < L; l++) {
        const size_t we = (size_t)C * rs[l] * rs[l] * C;
        uint16_t *hw = (uint16_t *)malloc(we * 2);
        REQUIRE(hw);
        /* |w| <= 1/sqrt(taps * C): each layer keeps the activations' scale (no overflow to inf) */
        const double a = 1.0 / sqrt((double)(rs[l] * rs[l] * C));
        data_fill(hw, (int64_t)we, IGEMM_DTYPE_BF16, -a, a, &g);
        REQUIRE(cudaMalloc(&w[l], we * 2) == cudaSuccess);
        REQUIRE(cudaMemcpy(w[l], hw, we * 2, cudaMemcpyHostToDevice) == cudaSuccess);
        free(hw);
        const int64_t pad = rs[l] / 2;
        igemm_conv2d_desc_t d = shape(N, H, W, C, C, rs[l], rs[l], 1, pad, 1, 1, IGEMM_DTYPE_BF16,
                                      IGEMM_DTYPE_BF16);
        igemm_epilogue_t e = igemm_epilogue_default();
        e.has_residual = l % 2; /* plain and fused layers */
        e.beta = 0.5f;
        igemm_plan_options_t o = igemm_plan_options_default();
        o.path = IGEMM_PATH_SM90;
        if (skc) setenv("IGEMM_SM90_SKC", "1", 1);
        else if (l == 3) setenv("IGEMM_SM90_PINGPONG", "0", 1);
        const igemm_status_t st = igemm_plan_create(&plan[l], &d, &e, &o);
        unsetenv("IGEMM_SM90_PINGPONG");
        unsetenv("IGEMM_SM90_SKC");
        REQUIRE(st == IGEMM_STATUS_SUCCESS);
        if (skc)
            CHECK_MSG(strstr(igemm_plan_describe(plan[l]), "split-K 2 over a 2-CTA cluster") != NULL,
                      "layer %d: the plan should split K over a cluster: %s", l, igemm_plan_describe(plan[l]));
        if (drv >= 12030) { /* (grids of >= 7/8 of the SMs, or split in cluster: every layer here) */
            const char *desc = igemm_plan_describe(plan[l]);
            CHECK_MSG(strstr(desc, ", programmatic dependent launch") != NULL &&
                          strstr(desc, "no programmatic dependent launch") == NULL,
                      "layer %d: the plan should use programmatic dependent launch: %s", l, desc);
        }
    }
#define CHAIN_RUN(sync_each)                                                                               \
    do {                                                                                                   \
        for (int l = 0; l < L; l++) {                                                                      \
            const igemm_status_t st_ = igemm_plan_run(plan[l], buf[l % 2], w[l], NULL, NULL,              \
                                                      l % 2 ? res : NULL, buf[(l + 1) % 2], stream);      \
            CHECK_MSG(st_ == IGEMM_STATUS_SUCCESS, "layer %d: %s", l, igemm_last_error());                 \
            if (sync_each) CHECK(cudaStreamSynchronize(stream) == cudaSuccess);                            \
        }                                                                                                  \
    } while (0)
    /* reference: a synchronisation after every layer */
    REQUIRE(cudaMemcpy(buf[0], hx, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemset(buf[1], 0xFF, bytes) == cudaSuccess); /* NaN: an unwritten output shows */
    CHAIN_RUN(1);
    REQUIRE(cudaMemcpy(href, buf[L % 2], bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    {
        size_t bad = 0, nz = 0;
        for (size_t i = 0; i < elems; i++) {
            const float v = igemm_bf16_to_float(href[i]);
            if (!isfinite(v)) bad++;
            else if (v != 0.0f) nz++;
        }
        CHECK_MSG(bad == 0 && nz > elems / 2, "chain output: %zu non-finite, %zu of %zu nonzero", bad, nz, elems);
    }
    /* back to back, several times */
    for (int rep = 0; rep < 4; rep++) {
        REQUIRE(cudaMemcpy(buf[0], hx, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
        REQUIRE(cudaMemset(buf[1], 0xFF, bytes) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHAIN_RUN(0);
        REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
        REQUIRE(cudaMemcpy(hout, buf[L % 2], bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        CHECK_MSG(memcmp(hout, href, bytes) == 0, "back-to-back chain %d differs from the synchronised chain", rep);
    }
    /* captured into one graph and replayed */
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHAIN_RUN(0);
    {
        const cudaError_t ce = cudaStreamEndCapture(stream, &graph);
        CHECK_MSG(ce == cudaSuccess, "cudaStreamEndCapture: %s", cudaGetErrorString(ce));
    }
#undef CHAIN_RUN
    if (graph && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess) {
        for (int rep = 0; rep < 3; rep++) {
            REQUIRE(cudaMemcpy(buf[0], hx, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
            REQUIRE(cudaMemset(buf[1], 0xFF, bytes) == cudaSuccess);
            REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
            CHECK(cudaGraphLaunch(exec, stream) == cudaSuccess);
            const cudaError_t ce = cudaStreamSynchronize(stream);
            CHECK_MSG(ce == cudaSuccess, "graph replay: %s", cudaGetErrorString(ce));
            REQUIRE(cudaMemcpy(hout, buf[L % 2], bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
            CHECK_MSG(memcmp(hout, href, bytes) == 0, "graph replay %d differs from the synchronised chain", rep);
        }
    } else {
        test_fail(__FILE__, __LINE__, "the chain's graph did not instantiate");
    }
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    for (int l = 0; l < L; l++) {
        igemm_plan_destroy(plan[l]);
        cudaFree(w[l]);
    }
    cudaFree(buf[0]);
    cudaFree(buf[1]);
    cudaFree(res);
    cudaStreamDestroy(stream);
    free(hx);
    free(href);
    free(hout);
}

/* Layer shapes differ in grid and tile (multi-wave, under one wave, 1x1 and 3x3, ping-pong and
 * cooperative) so that CTAs of one layer retire while the previous is running. */
TEST(gpu_sm90_pdl_chain)
{
    SKIP_WITHOUT_GPU();
    if (skip_unless_sm90()) return;
    const int64_t rs[5] = {3, 1, 3, 1, 3};
    pdl_chain(5, 8, 56, 56, 128, rs, 0, 0x9d1);
}

/* The same with split-in-cluster plans (2-CTA clusters, partial tiles by st.async; r50_l4's
 * shape, 104 CTAs): programmatic dependent launch is on for them, so a layer's set-up runs
 * while the one before it finishes. */
TEST(gpu_sm90_pdl_chain_split_cluster)
{
    SKIP_WITHOUT_GPU();
    if (skip_unless_sm90()) return;
    const int64_t rs[4] = {3, 1, 3, 3};
    pdl_chain(4, 32, 7, 7, 512, rs, 1, 0x9d2);
}

/* ------------------------------------------------------------------ unaligned pointers */

TEST(gpu_unaligned_pointers)
{
    /* x, w, y, residual element-aligned but not 16-byte aligned: the plan falls back to a path
     * that takes them (or runs them itself) and the result is still right. */
    SKIP_WITHOUT_GPU();
    data_rng_t g = {test_seed(0x8008)};
    igemm_conv2d_desc_t shapes[2] = {
        shape(2, 12, 12, 64, 64, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16),
        shape(1, 9, 9, 128, 64, 1, 1, 1, 0, 1, 1, IGEMM_DTYPE_F16, IGEMM_DTYPE_F16),
    };
    for (int i = 0; i < 2; i++) {
        igemm_epilogue_t e = igemm_epilogue_default();
        e.has_residual = 1;
        e.has_bias = 1;
        problem_t pb;
        if (problem_init(&pb, &shapes[i], &e, &g, 1)) {
            problem_free(&pb);
            return;
        }
        /* shifted copies: element offset 1 (2 bytes) inside larger buffers */
        size_t xb = (size_t)pb.xe * 2, wb = (size_t)pb.we * 2, yb = (size_t)pb.ye * pb.ysz;
        dbuf_t x2, w2, y2, r2;
        REQUIRE(dbuf_alloc(&x2, xb + 16, GUARD, IN_GUARD_BYTE) == 0);
        REQUIRE(dbuf_alloc(&w2, wb + 16, GUARD, IN_GUARD_BYTE) == 0);
        REQUIRE(dbuf_alloc(&y2, yb + 16, GUARD, OUT_GUARD_BYTE) == 0);
        REQUIRE(dbuf_alloc(&r2, yb + 16, GUARD, IN_GUARD_BYTE) == 0);
        char *xs = (char *)x2.ptr + 2, *ws = (char *)w2.ptr + 2, *ys = (char *)y2.ptr + 2, *rs = (char *)r2.ptr + 2;
        cudaMemset(x2.ptr, IN_GUARD_BYTE, x2.bytes);
        cudaMemset(w2.ptr, IN_GUARD_BYTE, w2.bytes);
        cudaMemset(r2.ptr, IN_GUARD_BYTE, r2.bytes);
        cudaMemcpy(xs, pb.hx, xb, cudaMemcpyHostToDevice);
        cudaMemcpy(ws, pb.hw, wb, cudaMemcpyHostToDevice);
        cudaMemcpy(rs, pb.hres, yb, cudaMemcpyHostToDevice);
        for (int pi = 0; pi < 2; pi++) {
            igemm_plan_options_t o = igemm_plan_options_default();
            o.path = pi == 0 ? IGEMM_PATH_AUTO : IGEMM_PATH_GENERAL;
            igemm_plan_t *plan = NULL;
            if (igemm_plan_create(&plan, &pb.d, &pb.e, &o) != IGEMM_STATUS_SUCCESS) {
                test_fail(__FILE__, __LINE__, "plan_create: %s", igemm_last_error());
                continue;
            }
            REQUIRE(cudaMemset(y2.ptr, POISON_BYTE, y2.bytes) == cudaSuccess);
            igemm_status_t s = igemm_plan_run(plan, xs, ws, NULL, (const float *)pb.bias.ptr, rs, ys, NULL);
            CHECK_MSG(s == IGEMM_STATUS_SUCCESS, "%s: unaligned run: %s", pb.str, igemm_last_error());
            cudaError_t ce = cudaDeviceSynchronize();
            CHECK_MSG(ce == cudaSuccess, "%s: %s", pb.str, cudaGetErrorString(ce));
            if (s == IGEMM_STATUS_SUCCESS && ce == cudaSuccess) {
                unsigned char *h = (unsigned char *)malloc(y2.bytes);
                REQUIRE(h != NULL);
                REQUIRE(cudaMemcpy(h, y2.ptr, y2.bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
                memcpy(pb.hout, h + 2, yb);
                /* bytes of y2 outside [2, 2 + yb) keep the poison */
                int outside = 0;
                for (size_t b = 0; b < y2.bytes; b++)
                    if ((b < 2 || b >= 2 + yb) && h[b] != POISON_BYTE) outside++;
                CHECK_MSG(outside == 0, "%s: %d bytes next to the unaligned y were written", pb.str, outside);
                CHECK_EQ_INT(dbuf_guard_damage(&y2), 0);
                free(h);
                problem_check(&pb, "unaligned", NULL);
            }
            igemm_plan_destroy(plan);
        }
        dbuf_free(&x2);
        dbuf_free(&w2);
        dbuf_free(&y2);
        dbuf_free(&r2);
        problem_free(&pb);
    }
}

/* ------------------------------------------------------------------ > 2^31 elements */

/* x[i] = pattern[i % L] with L prime: any 32-bit wrap of an element or byte offset reads a
 * different value. */
#define LARGE_L 16777213LL

TEST(gpu_large_tensor)
{
    SKIP_WITHOUT_GPU();
    /* x: 5 x 4096 x 4096 x 32 = 2.68e9 elements (5.4 GB bf16), y the same size */
    igemm_conv2d_desc_t d = shape(5, 4096, 4096, 32, 32, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    int64_t xe = 0, we = 0, ye = 0, P = 0, Q = 0;
    REQUIRE(igemm_conv2d_sizes(&d, &xe, &we, &ye) == IGEMM_STATUS_SUCCESS);
    REQUIRE(igemm_conv2d_output_dims(&d, &P, &Q) == IGEMM_STATUS_SUCCESS);
    CHECK(xe > (1LL << 31) && ye > (1LL << 31));
    size_t freeb = 0, totalb = 0;
    REQUIRE(cudaMemGetInfo(&freeb, &totalb) == cudaSuccess);
    size_t need = (size_t)xe * 2 + (size_t)ye * 2 + (size_t)we * 2 + (1ull << 30);
    if (freeb < need) {
        char why[128];
        snprintf(why, sizeof why, "needs %.1f GB of free device memory, %.1f GB free", need / 1e9, freeb / 1e9);
        test_skip(why);
        return;
    }
    data_rng_t g = {test_seed(0x9009)};
    uint16_t *pat = (uint16_t *)malloc((size_t)LARGE_L * 2);
    uint16_t *hw = (uint16_t *)malloc((size_t)we * 2);
    float *hbias = (float *)malloc((size_t)d.k * 4);
    REQUIRE(pat && hw && hbias);
    data_fill(pat, LARGE_L, d.x_dtype, -1, 1, &g);
    data_fill(hw, we, d.w_dtype, -1, 1, &g);
    for (int64_t k = 0; k < d.k; k++) hbias[k] = (float)data_rng_uniform(&g, -1, 1);
    void *x = NULL, *w = NULL, *y = NULL, *bias = NULL;
    REQUIRE(cudaMalloc(&x, (size_t)xe * 2) == cudaSuccess);
    REQUIRE(cudaMalloc(&y, (size_t)ye * 2) == cudaSuccess);
    REQUIRE(cudaMalloc(&w, (size_t)we * 2) == cudaSuccess);
    REQUIRE(cudaMalloc(&bias, (size_t)d.k * 4) == cudaSuccess);
    double t0 = now_s();
    for (int64_t off = 0; off < xe; off += LARGE_L) {
        int64_t n = xe - off < LARGE_L ? xe - off : LARGE_L;
        REQUIRE(cudaMemcpy((uint16_t *)x + off, pat, (size_t)n * 2, cudaMemcpyHostToDevice) == cudaSuccess);
    }
    REQUIRE(cudaMemcpy(w, hw, (size_t)we * 2, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(bias, hbias, (size_t)d.k * 4, cudaMemcpyHostToDevice) == cudaSuccess);
    double t_fill = now_s() - t0;

    igemm_epilogue_t e = igemm_epilogue_default();
    e.has_bias = 1;
    e.alpha = 0.75f;

    /* sampled output pixels: random ones, the first, the last, and those whose x or y element
     * offsets cross 2^31 and 2^32 */
    enum { NS = 300 };
    int64_t pix[NS];
    int ns = 0;
    const int64_t npix = ye / d.k;
    pix[ns++] = 0;
    pix[ns++] = npix - 1;
    pix[ns++] = npix - 2;
    const int64_t marks[3] = {1LL << 31, 1LL << 32, 3LL << 31};
    for (int mi = 0; mi < 3; mi++)
        for (int64_t dlt = -2; dlt <= 2; dlt++) {
            int64_t pp = marks[mi] / d.k + dlt; /* y offset and (same geometry) x offset */
            if (pp >= 0 && pp < npix) pix[ns++] = pp;
        }
    while (ns < NS) pix[ns++] = data_rng_int(&g, 0, npix - 1);

    /* reference values of the sampled outputs */
    double *ref = (double *)malloc(sizeof(double) * NS * (size_t)d.k);
    REQUIRE(ref != NULL);
    for (int i = 0; i < NS; i++) {
        int64_t m = pix[i], qq = m % Q, pp = (m / Q) % P, nn = m / (P * Q);
        for (int64_t k = 0; k < d.k; k++) {
            double acc = 0;
            for (int64_t r = 0; r < d.r; r++) {
                int64_t ih = pp * d.stride_h - d.pad_top + r * d.dil_h;
                if (ih < 0 || ih >= d.h) continue;
                for (int64_t s = 0; s < d.s; s++) {
                    int64_t iw = qq * d.stride_w - d.pad_left + s * d.dil_w;
                    if (iw < 0 || iw >= d.w) continue;
                    int64_t xb = ((nn * d.h + ih) * d.w + iw) * d.c;
                    for (int64_t c = 0; c < d.c; c++)
                        acc += data_get(pat, (xb + c) % LARGE_L, d.x_dtype) *
                               data_get(hw, ((k * d.r + r) * d.s + s) * d.c + c, d.w_dtype);
                }
            }
            double v = (double)e.alpha * acc + (double)hbias[k];
            uint16_t rb;
            data_set(&rb, 0, d.y_dtype, v);
            ref[(size_t)i * d.k + k] = data_get(&rb, 0, d.y_dtype);
        }
    }

    const igemm_path_t paths[4] = {IGEMM_PATH_AUTO, IGEMM_PATH_GENERAL, IGEMM_PATH_SM90, IGEMM_PATH_DIRECT};
    uint16_t *row = (uint16_t *)malloc((size_t)d.k * 2);
    REQUIRE(row != NULL);
    for (int pi = 0; pi < 4; pi++) {
        igemm_plan_options_t o = igemm_plan_options_default();
        o.path = paths[pi];
        igemm_plan_t *plan = NULL;
        igemm_status_t s = igemm_plan_create(&plan, &d, &e, &o);
        if (s == IGEMM_STATUS_NOT_SUPPORTED && paths[pi] == IGEMM_PATH_SM90) continue;
        if (s != IGEMM_STATUS_SUCCESS) {
            test_fail(__FILE__, __LINE__, "plan_create(%s): %s", path_str(paths[pi]), igemm_last_error());
            continue;
        }
        REQUIRE(cudaMemset(y, POISON_BYTE, (size_t)ye * 2) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        double t1 = now_s();
        s = igemm_plan_run(plan, x, w, NULL, (const float *)bias, NULL, y, NULL);
        cudaError_t ce = cudaDeviceSynchronize();
        double t_run = now_s() - t1;
        if (s != IGEMM_STATUS_SUCCESS || ce != cudaSuccess) {
            test_fail(__FILE__, __LINE__, "large run (%s): %s / %s", path_str(paths[pi]), igemm_last_error(),
                      cudaGetErrorString(ce));
            igemm_plan_destroy(plan);
            if (ce != cudaSuccess) break;
            continue;
        }
        int bad = 0;
        for (int i = 0; i < NS; i++) {
            REQUIRE(cudaMemcpy(row, (uint16_t *)y + pix[i] * d.k, (size_t)d.k * 2, cudaMemcpyDeviceToHost) == cudaSuccess);
            for (int64_t k = 0; k < d.k; k++) {
                double want = ref[(size_t)i * d.k + k], got = data_get(row, k, d.y_dtype);
                double tol = tol_conv(&d, &e, NULL, hbias, k, want);
                if (isnan(got) || fabs(got - want) > tol) {
                    if (bad < 5)
                        test_fail(__FILE__, __LINE__, "large (%s): pixel %lld k %lld: %.6g, ref %.6g (tol %.3g)",
                                  path_str(igemm_plan_path(plan)), (long long)pix[i], (long long)k, got, want, tol);
                    bad++;
                }
            }
        }
        fprintf(stdout, "  large tensor (%lld elements) on %s: %.3f s, %d of %d sampled outputs wrong "
                "(fill %.1f s)\n", (long long)xe, path_str(igemm_plan_path(plan)), t_run, bad, NS * (int)d.k, t_fill);
        igemm_plan_destroy(plan);
    }
    free(row);
    free(ref);
    free(pat);
    free(hw);
    free(hbias);
    cudaFree(x);
    cudaFree(y);
    cudaFree(w);
    cudaFree(bias);
}

#endif /* IGEMM_HAVE_CUDA */
