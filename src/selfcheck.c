/*
 * selfcheck.c — the first-use self-check of unverified families (selfcheck.h). For each of the
 * family's cases: random x, filter, scale, bias and residual (a fixed generator: the same data in
 * every process), y poisoned with NaN; the family's configure() and run() on a stream of its own,
 * then the direct path (the GPU oracle, src/gpu_ref) into a second buffer; every output compared
 * at a tolerance a wrong kernel cannot meet (|y - ref| <= 0.02 + 0.02 |ref| with inputs in
 * [-1, 1] and 64+ products per output: a missed k-block or a swapped tile is off by O(1)).
 * The cases run in a CUDA context of the check's own (cuCtxCreate through the driver entry
 * points), destroyed after. The verdict is kept per (family, device ordinal) for the process.
 */
#include "selfcheck.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "problem.h"

#define WHY(...)                                                                                       \
    do {                                                                                               \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                       \
    } while (0)

#ifdef IGEMM_HAVE_CUDA
#include <cuda.h> /* the driver types of the check's own context; no libcuda symbol is referenced */
#include <cuda_runtime.h>

#define SC_MAX_CASES 8
#define SC_MAX_VERDICTS 64

typedef struct sc_verdict {
    const igemm_family_t *family;
    int ordinal;
    int passed;
    char msg[384];
} sc_verdict_t;

/* Puts back the thread's message as it was before the check (whose failures set their own). */
static void sc_restore_error(const char *saved)
{
    if (saved[0] == '\0') igemm_clear_error();
    else (void)igemm_set_error(IGEMM_STATUS_SUCCESS, "%s", saved);
}

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static sc_verdict_t g_verdicts[SC_MAX_VERDICTS];
static int g_nverdicts;

/* Uniform in [-1, 1) from a 64-bit LCG. */
static float sc_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((*s >> 40) & 0xFFFFFF) / (float)(1 << 23) - 1.0f;
}

static uint16_t sc_to16(float v, int dtype) { return dtype == IGEMM_DTYPE_F16 ? igemm_float_to_f16(v) : igemm_float_to_bf16(v); }

static float sc_from_out(const void *base, size_t i, int dtype)
{
    if (dtype == IGEMM_DTYPE_F32) return ((const float *)base)[i];
    const uint16_t h = ((const uint16_t *)base)[i];
    return dtype == IGEMM_DTYPE_F16 ? igemm_f16_to_float(h) : igemm_bf16_to_float(h);
}

/* Device buffers of one case. */
typedef struct sc_bufs {
    void *x, *w, *y, *ref, *res, *ws;
    float *scale, *bias;
} sc_bufs_t;

static void sc_free(sc_bufs_t *b)
{
    cudaFree(b->x), cudaFree(b->w), cudaFree(b->y), cudaFree(b->ref), cudaFree(b->res), cudaFree(b->ws);
    cudaFree(b->scale), cudaFree(b->bias);
    memset(b, 0, sizeof *b);
}

/* Copies n host elements of 16-bit dtype (random in [-1, 1)) to a new device buffer. */
static cudaError_t sc_upload16(void **dst, size_t n, int dtype, uint64_t *seed)
{
    uint16_t *h = (uint16_t *)malloc(n * 2);
    if (h == NULL) return cudaErrorMemoryAllocation;
    for (size_t i = 0; i < n; i++) h[i] = sc_to16(sc_rand(seed), dtype);
    cudaError_t e = cudaMalloc(dst, n * 2);
    if (e == cudaSuccess) e = cudaMemcpy(*dst, h, n * 2, cudaMemcpyHostToDevice);
    free(h);
    return e;
}

static cudaError_t sc_upload_f32(float **dst, size_t n, float lo, float span, uint64_t *seed)
{
    float *h = (float *)malloc(n * 4);
    if (h == NULL) return cudaErrorMemoryAllocation;
    for (size_t i = 0; i < n; i++) h[i] = lo + span * 0.5f * (sc_rand(seed) + 1.0f);
    cudaError_t e = cudaMalloc((void **)dst, n * 4);
    if (e == cudaSuccess) e = cudaMemcpy(*dst, h, n * 4, cudaMemcpyHostToDevice);
    free(h);
    return e;
}

/* a case's kernel still running after this many seconds is a hang (tests lower it) */
static int g_hang_seconds = 10;

void igemm_selfcheck_set_hang_seconds(int seconds) { g_hang_seconds = seconds > 0 ? seconds : 10; }

/* Waits for stream: cudaSuccess, the stream's error, or cudaErrorNotReady after g_hang_seconds
 * (the kernel is left running: an unverified persistent kernel whose barriers never complete must
 * not hang plan creation). */
static cudaError_t sc_wait(cudaStream_t stream)
{
    struct timespec t0, now, nap = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        const cudaError_t e = cudaStreamQuery(stream);
        if (e != cudaErrorNotReady) return e;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - t0.tv_sec) * 1000000000L + (now.tv_nsec - t0.tv_nsec) > g_hang_seconds * 1000000000L)
            return cudaErrorNotReady;
        nanosleep(&nap, NULL);
    }
}

/* One case on the current device: 1 if every output matches, else 0 and why; *hung = 1 if its
 * kernel did not finish (then its buffers, stream and context must be left alone). */
static int sc_run_case(const igemm_family_t *f, const igemm_device_info_t *dev, const igemm_selfcheck_case_t *c,
                       int idx, cudaStream_t stream, int *hung, char *why, size_t why_len)
{
    igemm_conv_params_t p;
    if (igemm_problem_init(&c->desc, &c->epi, &p) != IGEMM_STATUS_SUCCESS) {
        WHY("case %d (%s) is not a valid problem: %s", idx, c->name, igemm_last_error());
        return 0;
    }
    char fwhy[256] = "";
    if (!f->supports(&p, dev, &c->hints, fwhy, sizeof fwhy)) {
        WHY("case %d (%s): the family refused it: %s", idx, c->name, fwhy);
        return 0;
    }
    igemm_family_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    if (f->configure(&p, dev, &c->hints, &cfg) != IGEMM_STATUS_SUCCESS) {
        WHY("case %d (%s): configure failed: %s", idx, c->name, igemm_last_error());
        return 0;
    }
    const size_t nx = (size_t)(p.n * p.h * p.w * p.c), nw = (size_t)(p.k * p.r * p.s * p.cg);
    const size_t ny = (size_t)(p.gemm_m * p.k), ysz = igemm_dtype_size(p.out_dtype);
    sc_bufs_t b;
    memset(&b, 0, sizeof b);
    uint64_t seed = 0x9E3779B97F4A7C15ull + (uint64_t)idx;
    cudaError_t e = sc_upload16(&b.x, nx, p.in_dtype, &seed);
    if (e == cudaSuccess) e = sc_upload16(&b.w, nw, p.in_dtype, &seed);
    if (e == cudaSuccess && p.has_scale) e = sc_upload_f32(&b.scale, (size_t)p.k, 0.5f, 1.0f, &seed);
    if (e == cudaSuccess && p.has_bias) e = sc_upload_f32(&b.bias, (size_t)p.k, -1.0f, 2.0f, &seed);
    if (e == cudaSuccess && p.has_residual) {
        if (p.out_dtype == IGEMM_DTYPE_F32) e = sc_upload_f32((float **)&b.res, ny, -1.0f, 2.0f, &seed);
        else e = sc_upload16(&b.res, ny, p.out_dtype, &seed);
    }
    if (e == cudaSuccess) e = cudaMalloc(&b.y, ny * ysz);
    if (e == cudaSuccess) e = cudaMalloc(&b.ref, ny * ysz);
    if (e == cudaSuccess) e = cudaMemset(b.y, 0xFF, ny * ysz); /* NaN in every output dtype */
    if (e == cudaSuccess && cfg.workspace_bytes) e = cudaMalloc(&b.ws, cfg.workspace_bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        WHY("case %d (%s): device memory: %s", idx, c->name, cudaGetErrorString(e));
        sc_free(&b);
        return 0;
    }
    p.x = b.x, p.filter = b.w, p.scale = b.scale, p.bias = b.bias, p.residual = b.res, p.y = b.y;
    _Alignas(64) unsigned char state[IGEMM_FAMILY_STATE_BYTES];
    memset(state, 0, sizeof state);
    igemm_status_t st = f->run(&p, &cfg, b.ws, state, stream, NULL);
    if (st != IGEMM_STATUS_SUCCESS) {
        WHY("case %d (%s): run failed: %s", idx, c->name, igemm_last_error());
        (void)cudaStreamSynchronize(stream);
        (void)cudaGetLastError();
        sc_free(&b);
        return 0;
    }
    e = sc_wait(stream);
    if (e == cudaErrorNotReady) {
        *hung = 1;
        WHY("case %d (%s): the kernel did not finish within %d s (a hang; it was left running in the check's "
            "context)", idx, c->name, g_hang_seconds);
        return 0;
    }
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        WHY("case %d (%s): the kernel failed: %s", idx, c->name, cudaGetErrorString(e));
        sc_free(&b);
        return 0;
    }
    /* the oracle */
    igemm_family_config_t dcfg;
    memset(&dcfg, 0, sizeof dcfg);
    igemm_conv_params_t q = p;
    q.y = b.ref;
    igemm_plan_hints_t none;
    memset(&none, 0, sizeof none);
    st = igemm_family_direct.configure(&q, dev, &none, &dcfg);
    if (st == IGEMM_STATUS_SUCCESS) st = igemm_family_direct.run(&q, &dcfg, NULL, state, stream, NULL);
    e = cudaStreamSynchronize(stream);
    if (st != IGEMM_STATUS_SUCCESS || e != cudaSuccess) {
        (void)cudaGetLastError();
        WHY("case %d (%s): the direct path failed: %s", idx, c->name,
            st != IGEMM_STATUS_SUCCESS ? igemm_last_error() : cudaGetErrorString(e));
        sc_free(&b);
        return 0;
    }
    unsigned char *hy = (unsigned char *)malloc(ny * ysz), *hr = (unsigned char *)malloc(ny * ysz);
    int ok = 0;
    if (hy && hr && cudaMemcpy(hy, b.y, ny * ysz, cudaMemcpyDeviceToHost) == cudaSuccess &&
        cudaMemcpy(hr, b.ref, ny * ysz, cudaMemcpyDeviceToHost) == cudaSuccess) {
        size_t bad = 0, worst_i = 0;
        double worst = 0.0;
        for (size_t i = 0; i < ny; i++) {
            const double yv = sc_from_out(hy, i, p.out_dtype), rv = sc_from_out(hr, i, p.out_dtype);
            const double err = fabs(yv - rv), tol = 0.02 + 0.02 * fabs(rv);
            if (!(err <= tol)) { /* NaN (unwritten) fails too */
                if (bad == 0 || !(err <= worst)) worst = err, worst_i = i;
                bad++;
            }
        }
        ok = bad == 0;
        if (!ok)
            WHY("case %d (%s): %zu of %zu outputs wrong (worst y[%zu] = %g, direct path %g)", idx, c->name, bad, ny,
                worst_i, sc_from_out(hy, worst_i, p.out_dtype), sc_from_out(hr, worst_i, p.out_dtype));
    } else {
        (void)cudaGetLastError();
        WHY("case %d (%s): reading the outputs back failed", idx, c->name);
    }
    free(hy);
    free(hr);
    sc_free(&b);
    return ok;
}

/* The driver calls of the check's own context, looked up once (as tensor_map.c does: libigemm
 * does not link libcuda), each at the version whose ABI these types declare (cuCtxCreate: 3.2,
 * the others 12.0). */
typedef CUresult (*sc_pfn_device_get)(CUdevice *, int);
typedef CUresult (*sc_pfn_ctx_create)(CUcontext *, unsigned int, CUdevice);
typedef CUresult (*sc_pfn_ctx_destroy)(CUcontext);
typedef CUresult (*sc_pfn_ctx_pop)(CUcontext *);
static pthread_once_t g_drv_once = PTHREAD_ONCE_INIT;
static sc_pfn_device_get g_device_get;
static sc_pfn_ctx_create g_ctx_create;
static sc_pfn_ctx_destroy g_ctx_destroy;
static sc_pfn_ctx_pop g_ctx_pop;

static void *sc_entry(const char *name, unsigned int version)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
        fn = NULL;
    return fn;
}

static void sc_lookup_driver(void)
{
    void *fn;
    /* each symbol at the version of the ABI declared above: "cuCtxCreate" at 12.0 is the CUDA 11.4
     * form (execution-affinity parameters before the flags), at 3.2 the (ctx, flags, device) one */
    if ((fn = sc_entry("cuDeviceGet", 12000))) memcpy(&g_device_get, &fn, sizeof fn);
    if ((fn = sc_entry("cuCtxCreate", 3020))) memcpy(&g_ctx_create, &fn, sizeof fn);
    if ((fn = sc_entry("cuCtxDestroy", 12000))) memcpy(&g_ctx_destroy, &fn, sizeof fn);
    if ((fn = sc_entry("cuCtxPopCurrent", 12000))) memcpy(&g_ctx_pop, &fn, sizeof fn);
    (void)cudaGetLastError(); /* a failed lookup must not leave an error for the caller */
}

/* Runs every case of f on dev: 1 if all pass, else 0 and why. The cases run in a CUDA context of
 * their own on dev (created here, current on this thread while they run, destroyed after): a kernel
 * that faults leaves its sticky error there, not in the caller's context. */
static int sc_run_all(const igemm_family_t *f, const igemm_device_info_t *dev, char *why, size_t why_len)
{
    igemm_selfcheck_case_t cases[SC_MAX_CASES];
    memset(cases, 0, sizeof cases);
    const int n = f->self_check_cases(dev, cases, SC_MAX_CASES);
    if (n <= 0) {
        WHY("the family has no self-check cases for this device");
        return 0;
    }
    pthread_once(&g_drv_once, sc_lookup_driver);
    if (!g_device_get || !g_ctx_create || !g_ctx_destroy || !g_ctx_pop) {
        WHY("the check could not run: no CUDA driver entry points for a context of its own");
        return 0;
    }
    CUdevice cu_dev = 0;
    CUcontext ctx = NULL;
    CUresult r = g_device_get(&cu_dev, dev->ordinal);
    if (r == CUDA_SUCCESS) r = g_ctx_create(&ctx, 0, cu_dev); /* and makes it current */
    if (r != CUDA_SUCCESS) {
        WHY("the check could not create its own CUDA context on device %d (driver error %d)", dev->ordinal, (int)r);
        return 0;
    }
    cudaStream_t stream = NULL;
    cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    int ok = 0;
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        WHY("the check could not run on device %d: %s", dev->ordinal, cudaGetErrorString(e));
    } else {
        ok = 1;
        int hung = 0;
        for (int i = 0; i < n && ok; i++) ok = sc_run_case(f, dev, &cases[i], i, stream, &hung, why, why_len);
        if (hung) { /* leave the running kernel's context alone (destroying it could block): only pop it */
            CUcontext popped = NULL;
            (void)g_ctx_pop(&popped);
            return 0;
        }
        (void)cudaStreamDestroy(stream);
    }
    (void)cudaGetLastError();
    CUcontext popped = NULL;
    (void)g_ctx_pop(&popped);
    (void)g_ctx_destroy(ctx); /* the caller's current context is as it was */
    return ok;
}

int igemm_selfcheck(const igemm_family_t *f, const igemm_device_info_t *dev, const igemm_plan_hints_t *hints,
                    char *why, size_t why_len)
{
    if (hints && hints->self_check == -1) {
        WHY("its first-use self-check was made to fail by hints.self_check = -1 (the check did not run)");
        return 0;
    }
    if (f->self_check_cases == NULL) return 1;
    /* igemm_set_error inside the check must not leak into the caller's message: keep it */
    char saved[2048];
    snprintf(saved, sizeof saved, "%s", igemm_last_error());
    pthread_mutex_lock(&g_lock);
    int found = -1;
    for (int i = 0; i < g_nverdicts; i++)
        if (g_verdicts[i].family == f && g_verdicts[i].ordinal == dev->ordinal) found = i;
    if (found < 0) {
        sc_verdict_t v;
        memset(&v, 0, sizeof v);
        v.family = f;
        v.ordinal = dev->ordinal;
        char msg[320] = "";
        v.passed = sc_run_all(f, dev, msg, sizeof msg);
        if (!v.passed) snprintf(v.msg, sizeof v.msg, "its first-use self-check on %s failed: %s", dev->name, msg);
        if (g_nverdicts < SC_MAX_VERDICTS) {
            found = g_nverdicts++;
            g_verdicts[found] = v;
        } else { /* more (family, device) pairs than slots: decide without remembering */
            pthread_mutex_unlock(&g_lock);
            sc_restore_error(saved);
            WHY("%s", v.msg);
            return v.passed;
        }
    }
    const int passed = g_verdicts[found].passed;
    if (!passed) WHY("%s", g_verdicts[found].msg);
    pthread_mutex_unlock(&g_lock);
    sc_restore_error(saved);
    return passed;
}

#else /* no CUDA */

void igemm_selfcheck_set_hang_seconds(int seconds) { (void)seconds; }

int igemm_selfcheck(const igemm_family_t *f, const igemm_device_info_t *dev, const igemm_plan_hints_t *hints,
                    char *why, size_t why_len)
{
    (void)dev;
    (void)hints;
    if (f->self_check_cases == NULL) return 1;
    WHY("built without CUDA: the self-check cannot run");
    return 0;
}

#endif
