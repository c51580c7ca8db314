/*
 * timing.c — GPU timing for the igemm CLI and the rotated buffer sets it runs on (see timing.h
 * for the method).
 */
#include "timing.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "data.h"
#include "gpu.h"
#include "tolerance.h"

double timing_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int timing_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double timing_median(double *v, int n)
{
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, timing_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int timing_num_sets(size_t set_bytes, size_t l2_bytes, size_t budget_bytes, int max_sets)
{
    size_t want, fit;
    if (max_sets < 1) max_sets = 1;
    if (set_bytes == 0) return 1;
    want = (2 * l2_bytes) / set_bytes + 1; /* total strictly above 2 * L2 */
    if (want < 2) want = 2;
    fit = budget_bytes / set_bytes;
    if (want > fit) want = fit;
    if (want > (size_t)max_sets) want = (size_t)max_sets;
    if (want < 1) want = 1;
    return (int)want;
}

#ifdef IGEMM_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <sched.h>
#include <stdatomic.h>

#define TIMING_CHUNK 16
#define TIMING_GATE_TIMEOUT_S 5.0

typedef struct timing_gate {
    atomic_int open;
    atomic_int timed_out;
} timing_gate_t;

/* Runs on a CUDA runtime thread: holds the stream until the host opens the gate. Makes no
 * CUDA call. */
static void CUDART_CB timing_gate_wait(void *arg)
{
    timing_gate_t *g = (timing_gate_t *)arg;
    double t0 = timing_now_s();
    while (!atomic_load(&g->open)) {
        if (timing_now_s() - t0 > TIMING_GATE_TIMEOUT_S) {
            atomic_store(&g->timed_out, 1);
            return;
        }
        sched_yield();
    }
}

#define TIMING_WARM_MS 30.0

size_t timing_l2_bytes(void)
{
    int dev = 0, l2 = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 0;
    if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess) return 0;
    return l2 > 0 ? (size_t)l2 : 0;
}


/* Times nfn (1 or 2) functions: warm-up of each, then chunks of TIMING_CHUNK calls of each in
 * turn (A's chunk, B's chunk, A's, ...), every call between its own event pair, so both see the
 * same clock and power states (a dense-MMA layer's time drifts up by ~10% within a fraction of a
 * second as the GPU settles at its power limit: docs/decisions.md "bench-method", S9-3). res[i] gets fns[i]'s result. */
static int timing_once(int nfn, timing_fn *fns, void **ctxs, int nsets, const timing_cfg_t *cfg,
                       cudaStream_t stream, int gated, timing_result_t *res, int *gate_failed, char *err,
                       size_t errlen)
{
    const int warmup = cfg->warmup, iters = cfg->iters;
    cudaEvent_t *ev = NULL;
    timing_gate_t **gates = NULL;
    double *t = NULL;
    int nev = 0, ngates = 0, set = 0, rc = -1;
    int nchunks = (iters + TIMING_CHUNK - 1) / TIMING_CHUNK;
    /* back to back (--timing back-to-back): each chunk of TIMING_CHUNK calls between one event
     * pair (per call: the chunk's mean), so no event record separates two calls; the default
     * times every call between its own pair */
    const int batch = cfg->back_to_back;
    *gate_failed = 0;

    ev = (cudaEvent_t *)calloc((size_t)iters * 2 * nfn, sizeof *ev);
    gates = (timing_gate_t **)calloc((size_t)nchunks * nfn, sizeof *gates);
    t = (double *)calloc((size_t)iters, sizeof *t);
    if (!ev || !gates || !t) {
        snprintf(err, errlen, "out of host memory");
        goto fail;
    }
    for (nev = 0; nev < iters * 2 * nfn;) {
        CLI_CU(cudaEventCreate(&ev[nev]));
        nev++;
    }
    for (int f = 0; f < nfn; f++)
        for (int i = 0; i < warmup; i++) {
            if (fns[f](ctxs[f], set, stream, err, errlen) != 0) goto fail;
            set = (set + 1) % nsets;
        }
    CLI_CU(cudaStreamSynchronize(stream));
    /* Warm up by time as well: keep the GPU busy for at least TIMING_WARM_MS before timing, so
     * that clock ramp-up after host-side setup cannot bias whichever side is timed first. */
    if (warmup > 0) {
        double t0 = timing_now_s();
        while ((timing_now_s() - t0) * 1000.0 < TIMING_WARM_MS) {
            for (int f = 0; f < nfn; f++)
                for (int i = 0; i < 8; i++) {
                    if (fns[f](ctxs[f], set, stream, err, errlen) != 0) goto fail;
                    set = (set + 1) % nsets;
                }
            CLI_CU(cudaStreamSynchronize(stream));
        }
    }

    for (int c = 0; c < nchunks; c++) {
        for (int f = 0; f < nfn; f++) {
            int i0 = c * TIMING_CHUNK, i1 = i0 + TIMING_CHUNK < iters ? i0 + TIMING_CHUNK : iters;
            cudaEvent_t *fev = ev + (size_t)f * iters * 2;
            timing_gate_t *g = NULL;
            if (gated) {
                g = (timing_gate_t *)calloc(1, sizeof *g);
                if (!g) {
                    snprintf(err, errlen, "out of host memory");
                    goto fail;
                }
                atomic_init(&g->open, 0);
                atomic_init(&g->timed_out, 0);
                gates[ngates++] = g;
                CLI_CU(cudaLaunchHostFunc(stream, timing_gate_wait, g));
            }
            for (int i = i0; i < i1; i++) {
                /* batch mode: one event pair around the chunk's back-to-back calls */
                if (!batch || i == i0) CLI_CU(cudaEventRecord(fev[2 * i], stream));
                if (fns[f](ctxs[f], set, stream, err, errlen) != 0) goto fail;
                if (!batch || i == i1 - 1) CLI_CU(cudaEventRecord(fev[2 * i + 1], stream));
                set = (set + 1) % nsets;
            }
            if (g) atomic_store(&g->open, 1);
        }
    }
    CLI_CU(cudaStreamSynchronize(stream));
    for (int i = 0; i < ngates; i++)
        if (atomic_load(&gates[i]->timed_out)) *gate_failed = 1;

    for (int f = 0; f < nfn; f++) {
        const cudaEvent_t *fev = ev + (size_t)f * iters * 2;
        double sum = 0.0, mn = 1e300, mx = 0.0;
        for (int i = 0; i < iters; i++) {
            float ms = 0.0f;
            if (batch) { /* every call of a chunk gets the chunk's mean */
                const int i0 = i - i % TIMING_CHUNK, i1 = i0 + TIMING_CHUNK < iters ? i0 + TIMING_CHUNK : iters;
                CLI_CU(cudaEventElapsedTime(&ms, fev[2 * i0], fev[2 * (i1 - 1) + 1]));
                ms /= (float)(i1 - i0);
            } else {
                CLI_CU(cudaEventElapsedTime(&ms, fev[2 * i], fev[2 * i + 1]));
            }
            t[i] = 1000.0 * (double)ms;
            sum += t[i];
            if (t[i] < mn) mn = t[i];
            if (t[i] > mx) mx = t[i];
        }
        res[f].mean_us = sum / iters;
        res[f].min_us = mn;
        res[f].max_us = mx;
        res[f].median_us = timing_median(t, iters);
        res[f].iters = iters;
        res[f].gated = gated;
    }
    rc = 0;
fail:
    /* Open every gate and drain the stream before freeing anything the host function uses. */
    for (int i = 0; i < ngates; i++) atomic_store(&gates[i]->open, 1);
    if (rc != 0) (void)cudaStreamSynchronize(stream);
    for (int i = 0; i < ngates; i++) free(gates[i]);
    for (int i = 0; i < nev; i++) (void)cudaEventDestroy(ev[i]); /* cleanup: the first error is reported */
    free(gates);
    free(ev);
    free(t);
    return rc;
}

/* Times nfn functions (timing_once), gated first and again ungated if a call blocked the host.
 * Returns 0 or -1 (err set). */
static int timing_n(int nfn, timing_fn *fns, void **ctxs, const timing_cfg_t *cfg, int nsets, void *stream,
                    timing_result_t *res, char *err, size_t errlen)
{
    int gate_failed = 0;
    timing_cfg_t c = *cfg;
    if (nsets < 1) nsets = 1;
    if (c.iters < 1) c.iters = 1;
    if (c.warmup < 0) c.warmup = 0;
    memset(res, 0, sizeof *res * (size_t)nfn);
    if (timing_once(nfn, fns, ctxs, nsets, &c, (cudaStream_t)stream, 1, res, &gate_failed, err, errlen) != 0)
        return -1;
    if (gate_failed) /* a call blocked the host: time again without gating */
        return timing_once(nfn, fns, ctxs, nsets, &c, (cudaStream_t)stream, 0, res, &gate_failed, err, errlen);
    return 0;
}

int timing_run(timing_fn fn, void *ctx, const timing_cfg_t *cfg, int nsets, void *stream, timing_result_t *res,
               char *err, size_t errlen)
{
    return timing_n(1, &fn, &ctx, cfg, nsets, stream, res, err, errlen);
}

int timing_run_pair(timing_fn fa, void *ca, timing_fn fb, void *cb, const timing_cfg_t *cfg, int nsets,
                    void *stream, timing_result_t *ra, timing_result_t *rb, char *err, size_t errlen)
{
    timing_fn fns[2] = {fa, fb};
    void *ctxs[2] = {ca, cb};
    timing_result_t res[2];
    const int rc = timing_n(2, fns, ctxs, cfg, nsets, stream, res, err, errlen);
    *ra = res[0];
    *rb = res[1];
    return rc;
}

/* ---- rotated buffer sets ---- */

void timing_sets_free(timing_sets_t *s)
{
    /* cleanup: a failing cudaFree here follows an error already reported */
    for (int i = 0; i < s->n; i++) {
        (void)gpu_free(s->x[i]);
        (void)gpu_free(s->w[i]);
        (void)gpu_free(s->y[i]);
        (void)gpu_free(s->res[i]);
    }
    (void)gpu_free(s->scale);
    (void)gpu_free(s->bias);
    (void)gpu_free(s->bias_lp);
    memset(s, 0, sizeof *s);
}

int timing_sets_alloc(timing_sets_t *s, const igemm_conv2d_desc_t *d, int nsets, int with_res, const void *hx,
                      const void *hw, const void *hres, const float *hbias, char *err, size_t errlen)
{
    int64_t xe, we, ye;
    void *lp = NULL;
    const size_t lp_bytes = (size_t)d->k * data_dtype_bytes(d->x_dtype);
    memset(s, 0, sizeof *s);
    if (igemm_conv2d_sizes(d, &xe, &we, &ye) != IGEMM_STATUS_SUCCESS) {
        snprintf(err, errlen, "%s", igemm_last_error());
        return -1;
    }
    if (nsets > TIMING_MAX_SETS) nsets = TIMING_MAX_SETS;
    s->x_bytes = (size_t)xe * data_dtype_bytes(d->x_dtype);
    s->w_bytes = (size_t)we * data_dtype_bytes(d->w_dtype);
    s->y_bytes = (size_t)ye * data_dtype_bytes(d->y_dtype);
    for (int i = 0; i < nsets; i++) {
        if (i > 0) { /* extra sets are best effort: stop rotating wider when memory runs out */
            void *px = NULL, *pw = NULL, *py = NULL, *pr = NULL;
            const int ok = cudaMalloc(&px, s->x_bytes) == cudaSuccess && cudaMalloc(&pw, s->w_bytes) == cudaSuccess &&
                           cudaMalloc(&py, s->y_bytes) == cudaSuccess &&
                           (!with_res || cudaMalloc(&pr, s->y_bytes) == cudaSuccess);
            if (!ok) {
                /* cudaMalloc leaves the pointer untouched (NULL here) when it fails; the
                 * out-of-memory error is expected and cleared */
                (void)gpu_free(px);
                (void)gpu_free(pw);
                (void)gpu_free(py);
                (void)gpu_free(pr);
                (void)cudaGetLastError();
                break;
            }
            s->x[i] = px;
            s->w[i] = pw;
            s->y[i] = py;
            s->res[i] = pr;
            s->n = i + 1;
        } else {
            s->n = 1;
            CLI_CU(cudaMalloc(&s->x[0], s->x_bytes));
            CLI_CU(cudaMalloc(&s->w[0], s->w_bytes));
            CLI_CU(cudaMalloc(&s->y[0], s->y_bytes));
            if (with_res) CLI_CU(cudaMalloc(&s->res[0], s->y_bytes));
        }
        CLI_CU(cudaMemcpy(s->x[i], hx, s->x_bytes, cudaMemcpyHostToDevice));
        CLI_CU(cudaMemcpy(s->w[i], hw, s->w_bytes, cudaMemcpyHostToDevice));
        CLI_CU(cudaMemset(s->y[i], 0, s->y_bytes));
        if (with_res) CLI_CU(cudaMemcpy(s->res[i], hres, s->y_bytes, cudaMemcpyHostToDevice));
    }
    if (hbias) {
        lp = malloc(lp_bytes);
        if (!lp) {
            snprintf(err, errlen, "out of host memory");
            goto fail;
        }
        for (int64_t i = 0; i < d->k; i++) data_set(lp, i, d->x_dtype, hbias[i]);
        CLI_CU(cudaMalloc((void **)&s->bias, (size_t)d->k * sizeof(float)));
        CLI_CU(cudaMalloc(&s->bias_lp, lp_bytes));
        CLI_CU(cudaMemcpy(s->bias, hbias, (size_t)d->k * sizeof(float), cudaMemcpyHostToDevice));
        CLI_CU(cudaMemcpy(s->bias_lp, lp, lp_bytes, cudaMemcpyHostToDevice));
        free(lp);
    }
    return 0;
fail:
    free(lp);
    timing_sets_free(s);
    return -1;
}

int timing_sets_count(size_t set_bytes, size_t reserve, int forced)
{
    size_t free_b = 0, total_b = 0, budget;
    if (forced >= 1) return forced < TIMING_MAX_SETS ? forced : TIMING_MAX_SETS;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        (void)cudaGetLastError();
        free_b = 0; /* unknown: one set */
    }
    budget = free_b > reserve ? (size_t)((double)(free_b - reserve) * 0.6) : 0;
    return timing_num_sets(set_bytes, timing_l2_bytes(), budget, TIMING_MAX_SETS);
}

int timing_igemm_fn(void *ctx, int set, void *stream, char *err, size_t errlen)
{
    timing_igemm_t *c = (timing_igemm_t *)ctx;
    const igemm_status_t st = igemm_plan_run(c->plan, c->s->x[set], c->s->w[set], NULL, c->use_bias ? c->s->bias : NULL,
                                             c->use_res ? c->s->res[set] : NULL, c->s->y[set], stream);
    if (st != IGEMM_STATUS_SUCCESS) {
        snprintf(err, errlen, "igemm_plan_run: %s: %s", igemm_status_string(st), igemm_last_error());
        return -1;
    }
    return 0;
}

int timing_compare(timing_igemm_t *oc, timing_fn fn, void *ctx, const igemm_conv2d_desc_t *d,
                   const igemm_epilogue_t *e, const float *hbias, double extra, void *stream, double *max_abs,
                   char *err, size_t errlen)
{
    const size_t ysz = oc->s->y_bytes;
    const int64_t n = (int64_t)(ysz / data_dtype_bytes(d->y_dtype));
    const cudaStream_t st = (cudaStream_t)stream;
    void *a = malloc(ysz), *b = malloc(ysz);
    int ok = -1;
    *max_abs = 0.0;
    if (!a || !b) {
        snprintf(err, errlen, "out of host memory");
        goto fail;
    }
    if (timing_igemm_fn(oc, 0, stream, err, errlen) != 0) goto fail;
    CLI_CU(cudaStreamSynchronize(st));
    CLI_CU(cudaMemcpy(a, oc->s->y[0], ysz, cudaMemcpyDeviceToHost));
    CLI_CU(cudaMemset(oc->s->y[0], 0xFF, ysz));
    if (fn(ctx, 0, stream, err, errlen) != 0) goto fail;
    CLI_CU(cudaStreamSynchronize(st));
    CLI_CU(cudaMemcpy(b, oc->s->y[0], ysz, cudaMemcpyDeviceToHost));
    ok = 1;
    for (int64_t i = 0; i < n; i++) {
        const double x = data_get(a, i, d->y_dtype), y = data_get(b, i, d->y_dtype);
        const double dd = fabs(x - y);
        if (!(dd == dd)) {
            ok = 0;
            *max_abs = INFINITY;
            break;
        }
        if (dd > *max_abs) *max_abs = dd;
        if (dd > tol_conv_vs_fp32(d, e, NULL, hbias, i % d->k, fmax(fabs(x), fabs(y))) + extra) ok = 0;
    }
fail:
    free(a);
    free(b);
    return ok;
}
#endif /* IGEMM_HAVE_CUDA */
