/*
 * bench.h — GPU timing for the igemm CLI.
 *
 * Method: `warmup` untimed calls, then `iters` calls each bracketed by its own pair of CUDA
 * events on one stream; the result is the median (also min/mean) of the per-call times. Two
 * functions compared (ours against cuDNN) are timed interleaved, chunk by chunk.
 * Back to back (bench_set_back_to_back(1), `--timing back-to-back`): one event pair around each
 * chunk of 16 calls, every call of the chunk counted at the chunk's mean. An event record
 * between two kernels serialises them fully (the second kernel's launch and set-up cannot
 * overlap the first one's end, programmatic dependent launch included); back to back, calls
 * follow each other as the layers of a network do.
 * Successive calls rotate over `nsets` buffer sets (chosen so that their total exceeds twice
 * the L2 size) so no call finds its operands in L2 from the previous one.
 *
 * Launch gating: the timed calls are enqueued in chunks behind a host function that holds the
 * stream until the whole chunk is enqueued, so the GPU runs the chunk back to back and the
 * event pairs measure GPU time only, not the host's launch overhead (cuDNN's legacy API has
 * tens of microseconds of it). If a call blocks the host (e.g. it synchronises), the gate
 * opens after a timeout and the measurement is redone without gating.
 *
 * The pure helpers (median, set count) build without CUDA; the timing needs IGEMM_HAVE_CUDA.
 */
#ifndef IGEMM_CLI_BENCH_H
#define IGEMM_CLI_BENCH_H

#include <stddef.h>

typedef struct bench_result {
    double median_us, min_us, mean_us, max_us;
    int iters;
    int gated; /* 1 if launch gating was in effect */
} bench_result_t;

/* One call of the thing being timed, on buffer set `set`, enqueued on `stream`
 * (a cudaStream_t). Returns 0, or non-zero with a message in err. Must not synchronise. */
typedef int (*bench_fn)(void *ctx, int set, void *stream, char *err, size_t errlen);

/* Timing mode: 1 = back to back (see Method above), 0 = an event pair per call (default).
 * bench_back_to_back() also returns 1 when IGEMM_BENCH_BATCH=1 is in the environment. */
void bench_set_back_to_back(int on);
int bench_back_to_back(void);

/* Median of v[0..n) (sorts v). 0 for n == 0. */
double bench_median(double *v, int n);

/* Buffer sets to rotate over: the smallest count whose total exceeds 2 * l2_bytes (at least
 * 2 when that fits), capped at max_sets and at what budget_bytes allows (at least 1). */
int bench_num_sets(size_t set_bytes, size_t l2_bytes, size_t budget_bytes, int max_sets);

#ifdef IGEMM_HAVE_CUDA
/* Times fn as described above. Returns 0, or -1 with a message in err (the stream is
 * synchronised before returning in every case). */
int bench_time(bench_fn fn, void *ctx, int nsets, int warmup, int iters, void *stream,
               bench_result_t *res, char *err, size_t errlen);

/* Times fa and fb as above, interleaved: chunks of 16 calls of each in turn after both have
 * warmed up, so both see the same clock and power states. Same return as bench_time. */
int bench_time_pair(bench_fn fa, void *ca, bench_fn fb, void *cb, int nsets, int warmup, int iters, void *stream,
                    bench_result_t *ra, bench_result_t *rb, char *err, size_t errlen);

/* L2 size of the current device in bytes (0 if unknown). */
size_t bench_l2_bytes(void);
#endif

#endif
