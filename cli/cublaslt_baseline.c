/*
 * cublaslt_baseline.c — cuBLASLt as the baseline of `igemm bench --vs cublas` (see
 * cublaslt_baseline.h): loading, the GEMM's descriptors, the choice of the fastest of the
 * heuristic's candidates, the timed call and the comparison with ours.
 */
#include "cublaslt_baseline.h"

#ifdef IGEMM_HAVE_CUDA
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "gpu.h"
#include "tolerance.h"

/* cublasLt.h / library_types.h / cublas_api.h values (CUDA 12-13) */
enum {
    LT_COMPUTE_32F = 68,          /* CUBLAS_COMPUTE_32F */
    LT_R_32F = 0, LT_R_16F = 2, LT_R_16BF = 14,
    LT_OP_N = 0, LT_OP_T = 1,
    LT_DESC_TRANSA = 3, LT_DESC_TRANSB = 4, LT_DESC_EPILOGUE = 7, LT_DESC_BIAS_POINTER = 8,
    LT_EPILOGUE_DEFAULT = 1, LT_EPILOGUE_RELU_BIAS = 6,
    LT_PREF_MAX_WORKSPACE_BYTES = 1
};
#define LT_CANDIDATES 8
#define LT_WS_BYTES ((size_t)32 << 20)

/* cublasLtMatmulHeuristicResult_t */
typedef struct lt_heuristic {
    cublaslt_algo_t algo;
    size_t workspace_bytes;
    int state;
    float waves;
    int reserved[4];
} lt_heuristic_t;
#if UINTPTR_MAX == 0xffffffffffffffffu
_Static_assert(sizeof(lt_heuristic_t) == 96, "cublasLtMatmulHeuristicResult_t layout");
#endif

int cublaslt_load(cublaslt_api_t *api, char *err, size_t errlen)
{
    const char *env = getenv("IGEMM_CUBLASLT_LIB");
    const char *names[4] = {env && *env ? env : "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so", NULL};
    memset(api, 0, sizeof *api);
    for (int i = 0; names[i] && !api->lib; i++) {
        api->lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (env && *env) break; /* the variable names the one to use */
    }
    if (!api->lib) {
        const char *e = dlerror();
        snprintf(err, errlen, "cuBLASLt not found (%s; set IGEMM_CUBLASLT_LIB)", e ? e : "dlopen failed");
        return -1;
    }
#define LT_SYM(field, name)                                                                    \
    do {                                                                                       \
        *(void **)&api->field = dlsym(api->lib, name);                                         \
        if (!api->field) {                                                                     \
            snprintf(err, errlen, "cuBLASLt lacks %s", name);                                  \
            dlclose(api->lib);                                                                 \
            memset(api, 0, sizeof *api);                                                       \
            return -1;                                                                         \
        }                                                                                      \
    } while (0)
    LT_SYM(Create, "cublasLtCreate");
    LT_SYM(Destroy, "cublasLtDestroy");
    LT_SYM(MatmulDescCreate, "cublasLtMatmulDescCreate");
    LT_SYM(MatmulDescDestroy, "cublasLtMatmulDescDestroy");
    LT_SYM(MatmulDescSetAttribute, "cublasLtMatmulDescSetAttribute");
    LT_SYM(MatrixLayoutCreate, "cublasLtMatrixLayoutCreate");
    LT_SYM(MatrixLayoutDestroy, "cublasLtMatrixLayoutDestroy");
    LT_SYM(MatmulPreferenceCreate, "cublasLtMatmulPreferenceCreate");
    LT_SYM(MatmulPreferenceDestroy, "cublasLtMatmulPreferenceDestroy");
    LT_SYM(MatmulPreferenceSetAttribute, "cublasLtMatmulPreferenceSetAttribute");
    LT_SYM(MatmulAlgoGetHeuristic, "cublasLtMatmulAlgoGetHeuristic");
    LT_SYM(Matmul, "cublasLtMatmul");
#undef LT_SYM
    return 0;
}

int cublaslt_takes(const igemm_conv2d_desc_t *d)
{
    return d->r == 1 && d->s == 1 && d->stride_h == 1 && d->stride_w == 1 && d->pad_top == 0 && d->pad_bottom == 0 &&
           d->pad_left == 0 && d->pad_right == 0 && d->groups == 1 && d->x_dtype == d->y_dtype;
}

int cublaslt_baseline_fn(void *ctx, int set, void *stream, char *err, size_t errlen)
{
    cublaslt_baseline_t *c = (cublaslt_baseline_t *)ctx;
    const float one = 1.0f, zero = 0.0f;
    const int st = c->api->Matmul(c->handle, c->desc, &one, c->s->w[set], c->la, c->s->x[set], c->lb, &zero,
                                  c->s->y[set], c->ld, c->s->y[set], c->ld, &c->algo, c->ws, c->ws_bytes,
                                  (cudaStream_t)stream);
    if (st != 0) {
        snprintf(err, errlen, "cublasLtMatmul: status %d", st);
        return -1;
    }
    return 0;
}

void cublaslt_baseline_destroy(cublaslt_baseline_t *c)
{
    if (c->api) {
        if (c->la) c->api->MatrixLayoutDestroy(c->la);
        if (c->lb) c->api->MatrixLayoutDestroy(c->lb);
        if (c->ld) c->api->MatrixLayoutDestroy(c->ld);
        if (c->desc) c->api->MatmulDescDestroy(c->desc);
    }
    if (c->ws) gpu_free(c->ws);
    c->la = c->lb = c->ld = c->desc = c->ws = NULL;
}

#define LT_OK(call, what)                                                                      \
    do {                                                                                       \
        const int s_ = (call);                                                                 \
        if (s_ != 0) {                                                                         \
            snprintf(err, errlen, "%s: cuBLASLt status %d", what, s_);                         \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)

int cublaslt_baseline_setup(cublaslt_baseline_t *c, const igemm_conv2d_desc_t *d, cudaStream_t stream,
                            int back_to_back, char *algo_out, size_t algo_len, char *err, size_t errlen)
{
    const timing_cfg_t sel = {2, 10, back_to_back};
    const uint64_t m = (uint64_t)(d->n * d->h * d->w), n = (uint64_t)d->k, k = (uint64_t)d->c;
    const int dt = d->x_dtype == IGEMM_DTYPE_BF16 ? LT_R_16BF : LT_R_16F;
    const int ta = LT_OP_T, tb = LT_OP_N;
    const int epi = c->fused ? LT_EPILOGUE_RELU_BIAS : LT_EPILOGUE_DEFAULT;
    void *pref = NULL;
    lt_heuristic_t cand[LT_CANDIDATES];
    int found = 0, best = -1;
    double best_us = 0.0;
    if (!cublaslt_takes(d)) {
        snprintf(err, errlen, "not a GEMM cuBLASLt is compared on (1x1, stride 1, no padding, groups 1, y dtype = x)");
        return -1;
    }
    CLI_CU(cudaMalloc(&c->ws, LT_WS_BYTES));
    c->ws_bytes = LT_WS_BYTES;
    LT_OK(c->api->MatmulDescCreate(&c->desc, LT_COMPUTE_32F, LT_R_32F), "cublasLtMatmulDescCreate");
    LT_OK(c->api->MatmulDescSetAttribute(c->desc, LT_DESC_TRANSA, &ta, sizeof ta), "TRANSA");
    LT_OK(c->api->MatmulDescSetAttribute(c->desc, LT_DESC_TRANSB, &tb, sizeof tb), "TRANSB");
    LT_OK(c->api->MatmulDescSetAttribute(c->desc, LT_DESC_EPILOGUE, &epi, sizeof epi), "EPILOGUE");
    if (c->fused) {
        const void *bias = c->s->bias_lp; /* [N] in the input (= output) dtype */
        LT_OK(c->api->MatmulDescSetAttribute(c->desc, LT_DESC_BIAS_POINTER, &bias, sizeof bias), "BIAS_POINTER");
    }
    LT_OK(c->api->MatrixLayoutCreate(&c->la, dt, k, n, (int64_t)k), "layout of B (K x N)");
    LT_OK(c->api->MatrixLayoutCreate(&c->lb, dt, k, m, (int64_t)k), "layout of A (K x M)");
    LT_OK(c->api->MatrixLayoutCreate(&c->ld, dt, n, m, (int64_t)n), "layout of D (N x M)");
    LT_OK(c->api->MatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
    LT_OK(c->api->MatmulPreferenceSetAttribute(pref, LT_PREF_MAX_WORKSPACE_BYTES, &c->ws_bytes, sizeof c->ws_bytes),
          "MAX_WORKSPACE_BYTES");
    LT_OK(c->api->MatmulAlgoGetHeuristic(c->handle, c->desc, c->la, c->lb, c->ld, c->ld, pref, LT_CANDIDATES, cand,
                                         &found),
          "cublasLtMatmulAlgoGetHeuristic");
    for (int i = 0; i < found; i++) {
        timing_result_t r;
        char terr[256];
        if (cand[i].state != 0 || cand[i].workspace_bytes > c->ws_bytes) continue;
        c->algo = cand[i].algo;
        if (timing_run(cublaslt_baseline_fn, c, &sel, c->s->n, stream, &r, terr, sizeof terr) != 0) {
            (void)cudaGetLastError();
            continue;
        }
        if (best < 0 || r.median_us < best_us) best = i, best_us = r.median_us;
    }
    if (best < 0) {
        snprintf(err, errlen, "no cuBLASLt algorithm ran (%d candidates)", found);
        goto fail;
    }
    c->algo = cand[best].algo;
    snprintf(algo_out, algo_len, "cublasLt #%d of %d", best + 1, found);
    c->api->MatmulPreferenceDestroy(pref);
    return 0;
fail:
    if (pref) c->api->MatmulPreferenceDestroy(pref);
    cublaslt_baseline_destroy(c);
    return -1;
}

int cublaslt_baseline_compare(timing_igemm_t *oc, cublaslt_baseline_t *c, const igemm_conv2d_desc_t *d,
                              const float *hbias, cudaStream_t stream, double *max_abs, char *err, size_t errlen)
{
    igemm_epilogue_t e = igemm_epilogue_default();
    if (c->fused) {
        e.has_bias = 1;
        e.activation = IGEMM_ACT_RELU;
    }
    return timing_compare(oc, cublaslt_baseline_fn, c, d, &e, hbias, 0.0, stream, max_abs, err, errlen);
}
#endif /* IGEMM_HAVE_CUDA */
