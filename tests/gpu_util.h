/*
 * gpu_util.h — helpers shared by the C tests: a deterministic RNG, random tensors in the 16-bit
 * types, element access by dtype, a description string for a conv problem, the GPU-vs-reference
 * tolerance, and (with CUDA) device buffers with guard regions.
 */
#ifndef IGEMM_TEST_GPU_UTIL_H
#define IGEMM_TEST_GPU_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "igemm.h"

/* splitmix64: deterministic, seedable, good enough for test data. */
typedef struct trng {
    uint64_t s;
} trng_t;

uint64_t trng_next(trng_t *g);
double trng_uniform(trng_t *g, double lo, double hi); /* [lo, hi) */
int64_t trng_int(trng_t *g, int64_t lo, int64_t hi);  /* [lo, hi], inclusive */
int64_t trng_pick(trng_t *g, const int64_t *list, int n);
/* Seed for the random tests: IGEMM_TEST_SEED from the environment, else def. */
uint64_t test_seed(uint64_t def);

size_t dtype_bytes(igemm_dtype_t dt);
const char *dtype_str(igemm_dtype_t dt);
/* Element i of a tensor of dtype dt, as double. */
double elem_get(const void *base, int64_t i, igemm_dtype_t dt);
/* Stores v (rounded nearest-even) as element i of a tensor of dtype dt. */
void elem_set(void *base, int64_t i, igemm_dtype_t dt, double v);
/* Fills n elements with values uniform in [lo, hi] rounded to dt, never exactly zero. */
void fill_random(void *dst, int64_t n, igemm_dtype_t dt, double lo, double hi, trng_t *g);

/* "n2 h14 w9 c64 k32 r3 s3 g1 pad(1,0,2,1) str(2,1) dil(1,2) bf16->f32 | alpha .. act 4 scale bias res" */
void conv_desc_str(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, char *buf, size_t n);

/*
 * Tolerance of a GPU result against the double-precision reference, for output channel kk:
 *   |out - ref| <= rtol * |ref| + atol
 *   rtol = u_out + 2^-20          u_out: one ulp of y's dtype relative to the value
 *                                   (f16 2^-10, bf16 2^-7, f32 2^-23): the final rounding
 *                                   of a value that already differs slightly may flip
 *                                   one ulp; 2^-20 covers the fp32 activation functions
 *   atol = sub_out + gain * (a * 2^-19 * Kg + 2^-22 * (a * Kg + |bias[kk]| + |beta|))
 *       a = |alpha| * |scale[kk]| (scale 1 if absent), Kg = r*s*(c/groups) terms of
 *       magnitude <= 1 (inputs in [-1, 1]): 2^-19 * Kg bounds the fp32 accumulation error
 *       (tensor-core truncation included, ~30x the observed rms), the 2^-22 term the fp32
 *       epilogue arithmetic; gain = max(1.25, |act_param|) bounds the activation's slope;
 *       sub_out = 2^-24 for f16 (subnormal spacing), else 0.
 * A missing tap, a wrong channel or a wrong epilogue operand gives errors of order |x*w| ~ 0.25
 * or more, far above atol for the shapes the tests use.
 */
double conv_tol(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, const float *scale,
                const float *bias, int64_t kk, double ref);

#ifdef IGEMM_HAVE_CUDA
/* A device allocation with guard regions: ptr = base + guard, guards filled with guard_byte. */
typedef struct dbuf {
    unsigned char *base;
    void *ptr;
    size_t bytes; /* usable bytes at ptr */
    size_t guard; /* bytes of guard on each side */
    unsigned char guard_byte;
} dbuf_t;

/* Returns 0 on success (and fills the guards), -1 on failure (message printed). */
int dbuf_alloc(dbuf_t *b, size_t bytes, size_t guard, unsigned char guard_byte);
int dbuf_upload(dbuf_t *b, const void *host, size_t bytes);
int dbuf_download(const dbuf_t *b, void *host, size_t bytes);
int dbuf_poison(dbuf_t *b, unsigned char byte); /* fills the usable region */
/* Returns the number of guard bytes that no longer hold guard_byte (or -1 on a CUDA error). */
int64_t dbuf_guard_damage(const dbuf_t *b);
void dbuf_free(dbuf_t *b);
#endif

#endif
