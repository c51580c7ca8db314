/*
 * cudnn_baseline.c — cuDNN as the baseline of `igemm bench --vs cudnn` (see cudnn_baseline.h):
 * descriptors for a layer, the choice of cuDNN's fastest algorithm, the timed call, and the
 * comparison of cuDNN's output with ours.
 */
#include "cudnn_baseline.h"

#ifdef IGEMM_HAVE_CUDA
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "gpu.h"
#include "tolerance.h"


int cudnn_baseline_fn(void *ctx, int set, void *stream, char *err, size_t errlen)
{
    cudnn_baseline_t *c = (cudnn_baseline_t *)ctx;
    float one = 1.0f, zero = 0.0f;
    cudnn_dl_status_t st;
    char buf[512];
    (void)stream; /* set on the handle */
    if (c->fused)
        st = c->api->ConvolutionBiasActivationForward(
            c->h, &one, c->xd, c->s->x[set], c->wd, c->s->w[set], c->cd, c->algo, c->ws,
            c->ws_bytes, &one, c->yd, c->s->res[set], c->bd,
            c->bias_f32 ? (const void *)c->s->bias : c->s->bias_lp, c->ad, c->yd, c->s->y[set]);
    else
        st = c->api->ConvolutionForward(c->h, &one, c->xd, c->s->x[set], c->wd, c->s->w[set], c->cd,
                                        c->algo, c->ws, c->ws_bytes, &zero, c->yd, c->s->y[set]);
    c->last = st;
    if (st != CUDNN_DL_STATUS_SUCCESS) {
        snprintf(err, errlen, "%s(algo %s): %s",
                 c->fused ? "cudnnConvolutionBiasActivationForward" : "cudnnConvolutionForward",
                 cudnn_dl_algo_name(c->algo), cudnn_dl_error(c->api, st, buf, sizeof buf));
        return -1;
    }
    return 0;
}

void cudnn_baseline_destroy(cudnn_baseline_t *c)
{
    if (!c->api) return;
    /* cleanup: failures here follow an error already reported, or leak nothing that matters */
    if (c->xd) (void)c->api->DestroyTensorDescriptor(c->xd);
    if (c->yd) (void)c->api->DestroyTensorDescriptor(c->yd);
    if (c->bd) (void)c->api->DestroyTensorDescriptor(c->bd);
    if (c->wd) (void)c->api->DestroyFilterDescriptor(c->wd);
    if (c->cd) (void)c->api->DestroyConvolutionDescriptor(c->cd);
    if (c->ad) (void)c->api->DestroyActivationDescriptor(c->ad);
    (void)gpu_free(c->ws);
    c->xd = c->yd = c->bd = NULL;
    c->wd = NULL;
    c->cd = NULL;
    c->ad = NULL;
    c->ws = NULL;
}

#define DNN(call)                                                                          \
    do {                                                                                   \
        cudnn_dl_status_t s_ = (call);                                                     \
        if (s_ != CUDNN_DL_STATUS_SUCCESS) {                                               \
            char b_[512];                                                                  \
            snprintf(err, errlen, "%s: %s", #call, cudnn_dl_error(c->api, s_, b_, sizeof b_)); \
            goto fail;                                                                     \
        }                                                                                  \
    } while (0)

static int fits_int(int64_t v) { return v >= 0 && v <= 2147483647; }

/* Sets up cuDNN for the shape, picks its fastest algorithm (timed with the same harness on the
 * same buffers), and leaves c ready for cudnn_baseline_fn. */
int cudnn_baseline_setup(cudnn_baseline_t *c, const igemm_conv2d_desc_t *d, int64_t p, int64_t q,
                     cudaStream_t stream, int back_to_back, char *algo_out, size_t algo_len, char *err,
                     size_t errlen)
{
    const timing_cfg_t sel = {2, 10, back_to_back}; /* a brief timing of each candidate */
    int dt = d->x_dtype == IGEMM_DTYPE_BF16 ? CUDNN_DL_DATA_BFLOAT16 : CUDNN_DL_DATA_HALF;
    int on, oc, oh, ow, nret = 0, ncand = 0;
    cudnn_dl_fwd_perf_t perf[2 * CUDNN_DL_FWD_ALGO_COUNT + 1];
    struct {
        int algo, math;
        size_t ws;
    } cand[2 * CUDNN_DL_FWD_ALGO_COUNT + 2];
    size_t free_b = 0, total_b = 0, ws_cap, ws_max = 0;
    double best_us = 1e300;
    int best = -1;
    char why[512] = "no algorithm ran";

    if (d->pad_top != d->pad_bottom || d->pad_left != d->pad_right) {
        snprintf(err, errlen, "asymmetric padding is not expressible in cuDNN's 2-D descriptor");
        return -1;
    }
    if (!fits_int(d->n) || !fits_int(d->c) || !fits_int(d->h) || !fits_int(d->w) ||
        !fits_int(d->k) || !fits_int(p) || !fits_int(q) || !fits_int(d->n * d->h * d->w * d->c) ||
        !fits_int(d->n * p * q * d->k)) {
        snprintf(err, errlen, "tensor too large for cuDNN's 4-D int descriptors");
        return -1;
    }
    DNN(c->api->CreateTensorDescriptor(&c->xd));
    DNN(c->api->CreateTensorDescriptor(&c->yd));
    DNN(c->api->CreateFilterDescriptor(&c->wd));
    DNN(c->api->CreateConvolutionDescriptor(&c->cd));
    DNN(c->api->SetTensor4dDescriptor(c->xd, CUDNN_DL_TENSOR_NHWC, dt, (int)d->n, (int)d->c,
                                      (int)d->h, (int)d->w));
    DNN(c->api->SetTensor4dDescriptor(c->yd, CUDNN_DL_TENSOR_NHWC, dt, (int)d->n, (int)d->k, (int)p,
                                      (int)q));
    DNN(c->api->SetFilter4dDescriptor(c->wd, dt, CUDNN_DL_TENSOR_NHWC, (int)d->k,
                                      (int)(d->c / d->groups), (int)d->r, (int)d->s));
    DNN(c->api->SetConvolution2dDescriptor(c->cd, (int)d->pad_top, (int)d->pad_left,
                                           (int)d->stride_h, (int)d->stride_w, (int)d->dil_h,
                                           (int)d->dil_w, CUDNN_DL_CROSS_CORRELATION,
                                           CUDNN_DL_DATA_FLOAT));
    DNN(c->api->SetConvolutionMathType(c->cd, CUDNN_DL_TENSOR_OP_MATH));
    if (d->groups > 1) DNN(c->api->SetConvolutionGroupCount(c->cd, (int)d->groups));
    DNN(c->api->GetConvolution2dForwardOutputDim(c->cd, c->xd, c->wd, &on, &oc, &oh, &ow));
    if (on != d->n || oc != d->k || oh != p || ow != q) {
        snprintf(err, errlen, "cuDNN output dims %dx%dx%dx%d differ from igemm's %lldx%lldx%lldx%lld",
                 on, oc, oh, ow, (long long)d->n, (long long)d->k, (long long)p, (long long)q);
        goto fail;
    }
    if (c->fused) {
        DNN(c->api->CreateTensorDescriptor(&c->bd));
        DNN(c->api->SetTensor4dDescriptor(c->bd, CUDNN_DL_TENSOR_NHWC, dt, 1, (int)d->k, 1, 1));
        DNN(c->api->CreateActivationDescriptor(&c->ad));
        DNN(c->api->SetActivationDescriptor(c->ad, CUDNN_DL_ACTIVATION_RELU,
                                            CUDNN_DL_NOT_PROPAGATE_NAN, 0.0));
    }
    DNN(c->api->SetStream(c->h, (void *)stream));

    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) free_b = 0;
    ws_cap = free_b / 2;
    if (ws_cap > ((size_t)4 << 30)) ws_cap = (size_t)4 << 30;

    /* Candidates: the heuristics' list, then cudnnFind...Ex's measured list. */
    {
        int maxc = 0;
        if (c->api->GetConvolutionForwardAlgorithmMaxCount(c->h, &maxc) != CUDNN_DL_STATUS_SUCCESS ||
            maxc <= 0 || maxc > CUDNN_DL_FWD_ALGO_COUNT)
            maxc = CUDNN_DL_FWD_ALGO_COUNT;
        memset(perf, 0, sizeof perf);
        if (c->api->GetConvolutionForwardAlgorithm_v7(c->h, c->xd, c->wd, c->cd, c->yd, maxc, &nret,
                                                      perf) == CUDNN_DL_STATUS_SUCCESS) {
            for (int i = 0; i < nret; i++) {
                if (perf[i].status != CUDNN_DL_STATUS_SUCCESS) continue;
                cand[ncand].algo = perf[i].algo;
                cand[ncand].math = perf[i].math_type;
                cand[ncand].ws = perf[i].memory;
                ncand++;
                if (perf[i].memory <= ws_cap && perf[i].memory > ws_max) ws_max = perf[i].memory;
            }
        }
        if (ws_max > 0) CLI_CU(cudaMalloc(&c->ws, ws_max));
        c->ws_bytes = ws_max;
        memset(perf, 0, sizeof perf);
        nret = 0;
        if (c->api->FindConvolutionForwardAlgorithmEx(c->h, c->xd, c->s->x[0], c->wd, c->s->w[0],
                                                      c->cd, c->yd, c->s->y[0], maxc, &nret, perf,
                                                      c->ws, c->ws_bytes) == CUDNN_DL_STATUS_SUCCESS) {
            for (int i = 0; i < nret; i++) {
                int dup = 0;
                if (perf[i].status != CUDNN_DL_STATUS_SUCCESS) continue;
                for (int j = 0; j < ncand; j++)
                    if (cand[j].algo == perf[i].algo && cand[j].math == perf[i].math_type) dup = 1;
                if (dup) continue;
                cand[ncand].algo = perf[i].algo;
                cand[ncand].math = perf[i].math_type;
                cand[ncand].ws = perf[i].memory;
                ncand++;
            }
        }
        (void)cudaGetLastError();
        if (c->fused) { /* the documented always-supported algorithm for fused ReLU */
            int dup = 0;
            for (int j = 0; j < ncand; j++)
                if (cand[j].algo == CUDNN_DL_FWD_ALGO_IMPLICIT_PRECOMP_GEMM &&
                    cand[j].math == CUDNN_DL_TENSOR_OP_MATH)
                    dup = 1;
            if (!dup) {
                cand[ncand].algo = CUDNN_DL_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
                cand[ncand].math = CUDNN_DL_TENSOR_OP_MATH;
                cand[ncand].ws = 0;
                ncand++;
            }
        }
    }
    if (ncand == 0) {
        snprintf(err, errlen, "cuDNN offers no algorithm for this shape");
        goto fail;
    }
    /* Exact workspace per candidate (under its math type); grow the buffer outside timing. */
    for (int i = 0; i < ncand; i++) {
        size_t b = 0;
        if (c->api->SetConvolutionMathType(c->cd, cand[i].math) != CUDNN_DL_STATUS_SUCCESS ||
            c->api->GetConvolutionForwardWorkspaceSize(c->h, c->xd, c->wd, c->cd, c->yd,
                                                       cand[i].algo, &b) != CUDNN_DL_STATUS_SUCCESS)
            b = (size_t)-1;
        cand[i].ws = b;
        if (b != (size_t)-1 && b <= ws_cap && b > c->ws_bytes) {
            if (c->ws) cudaFree(c->ws);
            c->ws = NULL;
            c->ws_bytes = 0;
            CLI_CU(cudaMalloc(&c->ws, b));
            c->ws_bytes = b;
        }
    }
    /* Time each candidate briefly; for --fused, retry with an fp32 bias if the input-typed bias
     * is refused everywhere. */
    for (int pass = 0; pass < (c->fused ? 2 : 1) && best < 0; pass++) {
        c->bias_f32 = pass;
        if (pass == 1)
            DNN(c->api->SetTensor4dDescriptor(c->bd, CUDNN_DL_TENSOR_NHWC, CUDNN_DL_DATA_FLOAT, 1,
                                              (int)d->k, 1, 1));
        for (int i = 0; i < ncand; i++) {
            timing_result_t r;
            char e2[512];
            if (cand[i].ws == (size_t)-1) {
                snprintf(why, sizeof why, "algo %s: no workspace size (unsupported)",
                         cudnn_dl_algo_name(cand[i].algo));
                continue;
            }
            if (cand[i].ws > c->ws_bytes) {
                snprintf(why, sizeof why, "algo %s needs %zu bytes of workspace",
                         cudnn_dl_algo_name(cand[i].algo), cand[i].ws);
                continue;
            }
            c->algo = cand[i].algo;
            c->math = cand[i].math;
            if (c->api->SetConvolutionMathType(c->cd, c->math) != CUDNN_DL_STATUS_SUCCESS) continue;
            if (timing_run(cudnn_baseline_fn, c, &sel, c->s->n, (void *)stream, &r, e2, sizeof e2) != 0) {
                snprintf(why, sizeof why, "%s", e2);
                (void)cudaGetLastError();
                continue;
            }
            if (r.median_us < best_us) {
                best_us = r.median_us;
                best = i;
            }
        }
    }
    if (best < 0) {
        snprintf(err, errlen, "no cuDNN algorithm ran: %s", why);
        goto fail;
    }
    c->algo = cand[best].algo;
    c->math = cand[best].math;
    DNN(c->api->SetConvolutionMathType(c->cd, c->math));
    snprintf(algo_out, algo_len, "%s%s%s", cudnn_dl_algo_name(c->algo),
             c->math == CUDNN_DL_DEFAULT_MATH ? "/default_math" : "",
             c->bias_f32 ? "/f32bias" : "");
    return 0;
fail:
    cudnn_baseline_destroy(c);
    return -1;
}

int cudnn_baseline_compare(timing_igemm_t *oc, cudnn_baseline_t *dc, const igemm_conv2d_desc_t *d, const float *hbias,
                           cudaStream_t stream, double *max_abs, char *err, size_t errlen)
{
    igemm_epilogue_t e = igemm_epilogue_default();
    double round_conv = 0.0;
    if (dc->fused) {
        e.has_bias = e.has_residual = 1;
        e.activation = IGEMM_ACT_RELU;
        /* cuDNN may round the conv result to y's type before adding bias and z: half an ulp of a
         * sum of Kg products of magnitude <= 1 (about sqrt(Kg) in size for random signs, 2x
         * margin) plus the bias and z terms */
        round_conv = 0.5 * tol_out_ulp(d->y_dtype) *
                     (2.0 * sqrt((double)d->r * (double)d->s * (double)(d->c / d->groups)) + 2.0);
    }
    return timing_compare(oc, cudnn_baseline_fn, dc, d, &e, hbias, round_conv, stream, max_abs, err, errlen);
}
#endif /* IGEMM_HAVE_CUDA */
