/*
 * timing.h — GPU timing for the igemm CLI (run and bench): the clock, CUDA-event timing of one
 * function or of two interleaved, and the rotated buffer sets the timed calls run on.
 *
 * Method: `warmup` untimed calls, then `iters` calls each bracketed by its own pair of CUDA
 * events on one stream; the result is the median (also min/mean) of the per-call times. Two
 * functions compared (ours against cuDNN) are timed interleaved, chunk by chunk.
 * Back to back (timing_cfg_t.back_to_back, `--timing back-to-back`): one event pair around each
 * chunk of 16 calls, every call of the chunk counted at the chunk's mean. An event record
 * between two kernels serialises them fully (the second kernel's launch and set-up cannot
 * overlap the first one's end, programmatic dependent launch included); back to back, calls
 * follow each other as the layers of a network do.
 * Successive calls rotate over `nsets` buffer sets (chosen so that their total exceeds twice
 * the L2 size, or `--sets N`) so no call finds its operands in L2 from the previous one.
 *
 * Launch gating: the timed calls are enqueued in chunks behind a host function that holds the
 * stream until the whole chunk is enqueued, so the GPU runs the chunk back to back and the
 * event pairs measure GPU time only, not the host's launch overhead (cuDNN's legacy API has
 * tens of microseconds of it). If a call blocks the host (e.g. it synchronises), the gate
 * opens after a timeout and the measurement is redone without gating.
 *
 * The pure helpers (clock, median, set count) build without CUDA; the rest needs IGEMM_HAVE_CUDA.
 */
#ifndef IGEMM_CLI_TIMING_H
#define IGEMM_CLI_TIMING_H

#include <stddef.h>

#include "igemm.h"

#define TIMING_MAX_SETS 64 /* most buffer sets rotated over (and the largest --sets) */

typedef struct timing_result {
    double median_us, min_us, mean_us, max_us;
    int iters;
    int gated; /* 1 if launch gating was in effect */
} timing_result_t;

/* How to time: untimed calls first, timed calls, and the mode (see Method above). */
typedef struct timing_cfg {
    int warmup, iters;
    int back_to_back; /* 1: an event pair per chunk of 16 calls; 0: one per call */
} timing_cfg_t;

/* One call of the thing being timed, on buffer set `set`, enqueued on `stream`
 * (a cudaStream_t). Returns 0, or non-zero with a message in err. Must not synchronise. */
typedef int (*timing_fn)(void *ctx, int set, void *stream, char *err, size_t errlen);

/* Seconds on the monotonic clock (for host-side timing). */
double timing_now_s(void);

/* Median of v[0..n) (sorts v). 0 for n == 0. */
double timing_median(double *v, int n);

/* Buffer sets to rotate over: the smallest count whose total exceeds 2 * l2_bytes (at least
 * 2 when that fits), capped at max_sets and at what budget_bytes allows (at least 1). */
int timing_num_sets(size_t set_bytes, size_t l2_bytes, size_t budget_bytes, int max_sets);

#ifdef IGEMM_HAVE_CUDA
/* Times fn as described above. Returns 0, or -1 with a message in err (the stream is
 * synchronised before returning in every case). */
int timing_run(timing_fn fn, void *ctx, const timing_cfg_t *cfg, int nsets, void *stream, timing_result_t *res,
               char *err, size_t errlen);

/* Times fa and fb as above, interleaved: chunks of 16 calls of each in turn after both have
 * warmed up, so both see the same clock and power states. Same return as timing_run. */
int timing_run_pair(timing_fn fa, void *ca, timing_fn fb, void *cb, const timing_cfg_t *cfg, int nsets,
                    void *stream, timing_result_t *ra, timing_result_t *rb, char *err, size_t errlen);

/* L2 size of the current device in bytes (0 if unknown). */
size_t timing_l2_bytes(void);

/* Buffer sets rotated over by the timing loop (every set holds the same data), and the
 * per-channel vectors. */
typedef struct timing_sets {
    int n;
    void *x[TIMING_MAX_SETS], *w[TIMING_MAX_SETS], *y[TIMING_MAX_SETS], *res[TIMING_MAX_SETS];
    float *scale, *bias; /* fp32 [K] (igemm) */
    void *bias_lp;       /* [K] in the input dtype (cuDNN) */
    size_t x_bytes, w_bytes, y_bytes;
} timing_sets_t;

/* Number of sets for one shape of set_bytes: `forced` (--sets) if >= 1, else a total above
 * 2 x L2 within 60% of the free device memory minus `reserve`. */
int timing_sets_count(size_t set_bytes, size_t reserve, int forced);

/* Allocates nsets sets for d (a residual too when with_res) and fills them from the host copies;
 * the sets after the first are best effort (fewer where memory runs out: s->n says how many).
 * bias (fp32, values representable in the input dtype) and its input-dtype copy are filled when
 * hbias is given. Returns 0, or -1 with a message in err (s freed). */
int timing_sets_alloc(timing_sets_t *s, const igemm_conv2d_desc_t *d, int nsets, int with_res, const void *hx,
                      const void *hw, const void *hres, const float *hbias, char *err, size_t errlen);
void timing_sets_free(timing_sets_t *s);

/* An igemm plan run on rotated sets: timing_igemm_fn's ctx. */
typedef struct timing_igemm {
    igemm_plan_t *plan;
    timing_sets_t *s;
    int use_bias, use_res;
} timing_igemm_t;

/* timing_fn of igemm_plan_run on set `set` (ctx: a timing_igemm_t). */
int timing_igemm_fn(void *ctx, int set, void *stream, char *err, size_t errlen);

/* Runs ours (oc) and a baseline (fn on ctx, a timing_fn writing oc's y buffers) once each on set 0
 * and compares every element of y: two fp32-accumulating implementations of epilogue e
 * (tol_conv_vs_fp32 with hbias, plus `extra`). Returns 1 if they agree, 0 if not (*max_abs: the
 * largest difference, inf for a NaN), -1 on a failure with a message in err. */
int timing_compare(timing_igemm_t *oc, timing_fn fn, void *ctx, const igemm_conv2d_desc_t *d,
                   const igemm_epilogue_t *e, const float *hbias, double extra, void *stream, double *max_abs,
                   char *err, size_t errlen);
#endif

#endif
