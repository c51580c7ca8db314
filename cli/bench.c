/*
 * bench.c — GPU timing for the igemm CLI (see bench.h for the method).
 */
#include "bench.h"
#include "gpu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    if (n <= 0) return 0.0;
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* --timing back-to-back (or IGEMM_BENCH_BATCH=1 in the environment, for scripts that pass
 * settings as variables): see bench.h */
static int g_back_to_back = -1;

void bench_set_back_to_back(int on)
{
    g_back_to_back = on ? 1 : 0;
}

int bench_back_to_back(void)
{
    const char *e = getenv("IGEMM_BENCH_BATCH");
    return g_back_to_back == 1 || (e != NULL && atoi(e) == 1);
}

int bench_num_sets(size_t set_bytes, size_t l2_bytes, size_t budget_bytes, int max_sets)
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
#include <time.h>

#define BENCH_CHUNK 16
#define BENCH_GATE_TIMEOUT_S 5.0

typedef struct bench_gate {
    atomic_int open;
    atomic_int timed_out;
} bench_gate_t;

static double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Runs on a CUDA runtime thread: holds the stream until the host opens the gate. Makes no
 * CUDA call. */
static void CUDART_CB bench_gate_wait(void *arg)
{
    bench_gate_t *g = (bench_gate_t *)arg;
    double t0 = bench_now_s();
    while (!atomic_load(&g->open)) {
        if (bench_now_s() - t0 > BENCH_GATE_TIMEOUT_S) {
            atomic_store(&g->timed_out, 1);
            return;
        }
        sched_yield();
    }
}

#define BENCH_WARM_MS 30.0

size_t bench_l2_bytes(void)
{
    int dev = 0, l2 = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 0;
    if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess) return 0;
    return l2 > 0 ? (size_t)l2 : 0;
}


/* Times nfn (1 or 2) functions: warm-up of each, then chunks of BENCH_CHUNK calls of each in
 * turn (A's chunk, B's chunk, A's, ...), every call between its own event pair, so both see the
 * same clock and power states (a dense-MMA layer's time drifts up by ~10% within a fraction of a
 * second as the GPU settles at its power limit: docs/perf.md S9-3). res[i] gets fns[i]'s result. */
static int bench_time_once(int nfn, bench_fn *fns, void **ctxs, int nsets, int warmup, int iters,
                           cudaStream_t stream, int gated, bench_result_t *res, int *gate_failed,
                           char *err, size_t errlen)
{
    cudaEvent_t *ev = NULL;
    bench_gate_t **gates = NULL;
    double *t = NULL;
    int nev = 0, ngates = 0, set = 0, rc = -1;
    int nchunks = (iters + BENCH_CHUNK - 1) / BENCH_CHUNK;
    /* back to back (--timing back-to-back): each chunk of BENCH_CHUNK calls between one event
     * pair (per call: the chunk's mean), so no event record separates two calls; the default
     * times every call between its own pair */
    const int batch = bench_back_to_back();
    *gate_failed = 0;

    ev = (cudaEvent_t *)calloc((size_t)iters * 2 * nfn, sizeof *ev);
    gates = (bench_gate_t **)calloc((size_t)nchunks * nfn, sizeof *gates);
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
    /* Warm up by time as well: keep the GPU busy for at least BENCH_WARM_MS before timing, so
     * that clock ramp-up after host-side setup cannot bias whichever side is timed first. */
    if (warmup > 0) {
        double t0 = bench_now_s();
        while ((bench_now_s() - t0) * 1000.0 < BENCH_WARM_MS) {
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
            int i0 = c * BENCH_CHUNK, i1 = i0 + BENCH_CHUNK < iters ? i0 + BENCH_CHUNK : iters;
            cudaEvent_t *fev = ev + (size_t)f * iters * 2;
            bench_gate_t *g = NULL;
            if (gated) {
                g = (bench_gate_t *)calloc(1, sizeof *g);
                if (!g) {
                    snprintf(err, errlen, "out of host memory");
                    goto fail;
                }
                atomic_init(&g->open, 0);
                atomic_init(&g->timed_out, 0);
                gates[ngates++] = g;
                CLI_CU(cudaLaunchHostFunc(stream, bench_gate_wait, g));
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
                const int i0 = i - i % BENCH_CHUNK, i1 = i0 + BENCH_CHUNK < iters ? i0 + BENCH_CHUNK : iters;
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
        res[f].median_us = bench_median(t, iters);
        res[f].iters = iters;
        res[f].gated = gated;
    }
    rc = 0;
fail:
    /* Open every gate and drain the stream before freeing anything the host function uses. */
    for (int i = 0; i < ngates; i++) atomic_store(&gates[i]->open, 1);
    if (rc != 0) (void)cudaStreamSynchronize(stream);
    for (int i = 0; i < ngates; i++) free(gates[i]);
    for (int i = 0; i < nev; i++) cudaEventDestroy(ev[i]);
    free(gates);
    free(ev);
    free(t);
    return rc;
}

static int bench_time_n(int nfn, bench_fn *fns, void **ctxs, int nsets, int warmup, int iters, void *stream,
                        bench_result_t *res, char *err, size_t errlen)
{
    int gate_failed = 0;
    if (nsets < 1) nsets = 1;
    if (iters < 1) iters = 1;
    if (warmup < 0) warmup = 0;
    memset(res, 0, sizeof *res * (size_t)nfn);
    if (bench_time_once(nfn, fns, ctxs, nsets, warmup, iters, (cudaStream_t)stream, 1, res, &gate_failed, err,
                        errlen) != 0)
        return -1;
    if (gate_failed) /* a call blocked the host: time again without gating */
        return bench_time_once(nfn, fns, ctxs, nsets, warmup, iters, (cudaStream_t)stream, 0, res, &gate_failed,
                               err, errlen);
    return 0;
}

int bench_time(bench_fn fn, void *ctx, int nsets, int warmup, int iters, void *stream,
               bench_result_t *res, char *err, size_t errlen)
{
    return bench_time_n(1, &fn, &ctx, nsets, warmup, iters, stream, res, err, errlen);
}

int bench_time_pair(bench_fn fa, void *ca, bench_fn fb, void *cb, int nsets, int warmup, int iters, void *stream,
                    bench_result_t *ra, bench_result_t *rb, char *err, size_t errlen)
{
    bench_fn fns[2] = {fa, fb};
    void *ctxs[2] = {ca, cb};
    bench_result_t res[2];
    const int rc = bench_time_n(2, fns, ctxs, nsets, warmup, iters, stream, res, err, errlen);
    *ra = res[0];
    *rb = res[1];
    return rc;
}
#endif /* IGEMM_HAVE_CUDA */
