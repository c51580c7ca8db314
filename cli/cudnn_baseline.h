/*
 * cudnn_baseline.h — cuDNN as the baseline of `igemm bench --vs cudnn`: its descriptors for a
 * layer (plain cudnnConvolutionForward, or cudnnConvolutionBiasActivationForward for --fused),
 * its fastest algorithm found by timing the candidates with the same harness on the same buffers,
 * the timed call on the rotated buffer sets, and the comparison of its output with ours.
 * cuDNN itself is loaded at run time (cudnn_dl.h). Needs IGEMM_HAVE_CUDA.
 */
#ifndef IGEMM_CLI_CUDNN_BASELINE_H
#define IGEMM_CLI_CUDNN_BASELINE_H

#ifdef IGEMM_HAVE_CUDA
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cudnn_dl.h"
#include "igemm.h"
#include "timing.h"

/* One layer's cuDNN set-up. The caller fills api, h (a handle), fused and s before
 * cudnn_baseline_setup; the rest is the setup's. */
typedef struct cudnn_baseline {
    cudnn_dl_t *api;
    cudnn_dl_handle_t h;
    cudnn_dl_tensor_t xd, yd, bd;
    cudnn_dl_filter_t wd;
    cudnn_dl_conv_t cd;
    cudnn_dl_act_t ad;
    int algo, math, fused, bias_f32;
    void *ws;
    size_t ws_bytes;
    timing_sets_t *s;
    cudnn_dl_status_t last;
} cudnn_baseline_t;

/* Sets cuDNN up for d (output p x q) on stream, picks its fastest algorithm (each candidate timed
 * briefly, in the timing mode back_to_back) and writes its name into algo_out. Returns 0, or -1
 * with a message in err (c's descriptors destroyed). */
int cudnn_baseline_setup(cudnn_baseline_t *c, const igemm_conv2d_desc_t *d, int64_t p, int64_t q, cudaStream_t stream,
                         int back_to_back, char *algo_out, size_t algo_len, char *err, size_t errlen);

/* timing_fn of the cuDNN call on set `set` (ctx: a cudnn_baseline_t set up). */
int cudnn_baseline_fn(void *ctx, int set, void *stream, char *err, size_t errlen);

/* Destroys what cudnn_baseline_setup created (not the handle). Safe on a zeroed c. */
void cudnn_baseline_destroy(cudnn_baseline_t *c);

/* Runs ours (oc) and cuDNN (dc) once each on set 0 and compares every element of y: two
 * fp32-accumulating implementations (tol_conv_vs_fp32, with hbias: --fused's bias or NULL).
 * Returns 1 if they agree, 0 if not (*max_abs: the largest difference, inf for a NaN), -1 on a
 * failure with a message in err. */
int cudnn_baseline_compare(timing_igemm_t *oc, cudnn_baseline_t *dc, const igemm_conv2d_desc_t *d, const float *hbias,
                           cudaStream_t stream, double *max_abs, char *err, size_t errlen);
#endif

#endif
