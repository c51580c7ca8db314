/*
 * data.h — test data for the CLI and the C tests (which link cli/data.o): the one deterministic
 * RNG of the tree (splitmix64), element access by dtype, random tensors that are never exactly
 * zero (a kernel that skips work cannot pass on them), and a string hash for per-layer seeds.
 */
#ifndef IGEMM_CLI_DATA_H
#define IGEMM_CLI_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "igemm.h"

typedef struct data_rng {
    uint64_t s;
} data_rng_t;

uint64_t data_rng_next(data_rng_t *g);
double data_rng_uniform(data_rng_t *g, double lo, double hi); /* [lo, hi) */
int64_t data_rng_int(data_rng_t *g, int64_t lo, int64_t hi);  /* [lo, hi], inclusive */
int64_t data_rng_pick(data_rng_t *g, const int64_t *list, int n);

/* FNV-1a of s: a seed per layer name. */
uint64_t data_hash_str(const char *s);

size_t data_dtype_bytes(igemm_dtype_t dt);
const char *data_dtype_name(igemm_dtype_t dt); /* "f16", "bf16", "f32" */
/* Element i of a tensor of dtype dt, as double. */
double data_get(const void *base, int64_t i, igemm_dtype_t dt);
/* Stores v (rounded to nearest even) as element i of a tensor of dtype dt. */
void data_set(void *base, int64_t i, igemm_dtype_t dt, double v);
/* Fills n elements with values uniform in [lo, hi] rounded to dt, never exactly zero. */
void data_fill(void *dst, int64_t n, igemm_dtype_t dt, double lo, double hi, data_rng_t *g);

#endif
