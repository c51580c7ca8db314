/*
 * gpu_util.h — helpers shared by the C tests: the seed of the random tests, a description string
 * for a conv problem, and (with CUDA) device buffers with guard regions. The RNG, element access
 * and random tensors are cli/data.h's; the GPU-vs-reference tolerance is cli/tolerance.h's
 * (tol_conv): the test binary links cli/data.c and cli/tolerance.c.
 */
#ifndef IGEMM_TEST_GPU_UTIL_H
#define IGEMM_TEST_GPU_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "igemm.h"

/* Seed for the random tests: IGEMM_TEST_SEED from the environment (a test-harness variable, not a
 * library knob), else def. */
uint64_t test_seed(uint64_t def);

/* "n2 h14 w9 c64 k32 r3 s3 g1 pad(1,0,2,1) str(2,1) dil(1,2) bf16->f32 | alpha .. act 4 scale bias res" */
void conv_desc_str(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, char *buf, size_t n);

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
