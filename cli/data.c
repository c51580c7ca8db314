/* data.c — see data.h. */
#include "data.h"

uint64_t data_rng_next(data_rng_t *g)
{
    uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double data_rng_uniform(data_rng_t *g, double lo, double hi)
{
    return lo + (hi - lo) * ((double)(data_rng_next(g) >> 11) * (1.0 / 9007199254740992.0));
}

int64_t data_rng_int(data_rng_t *g, int64_t lo, int64_t hi)
{
    if (hi <= lo) return lo;
    return lo + (int64_t)(data_rng_next(g) % (uint64_t)(hi - lo + 1));
}

int64_t data_rng_pick(data_rng_t *g, const int64_t *list, int n) { return list[data_rng_int(g, 0, n - 1)]; }

uint64_t data_hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

size_t data_dtype_bytes(igemm_dtype_t dt) { return dt == IGEMM_DTYPE_F32 ? 4 : 2; }

const char *data_dtype_name(igemm_dtype_t dt)
{
    switch (dt) {
    case IGEMM_DTYPE_F16: return "f16";
    case IGEMM_DTYPE_BF16: return "bf16";
    case IGEMM_DTYPE_F32: return "f32";
    }
    return "?";
}

double data_get(const void *base, int64_t i, igemm_dtype_t dt)
{
    if (dt == IGEMM_DTYPE_F32) return (double)((const float *)base)[i];
    const uint16_t h = ((const uint16_t *)base)[i];
    return dt == IGEMM_DTYPE_F16 ? (double)igemm_f16_to_float(h) : (double)igemm_bf16_to_float(h);
}

void data_set(void *base, int64_t i, igemm_dtype_t dt, double v)
{
    const float f = (float)v;
    if (dt == IGEMM_DTYPE_F32) ((float *)base)[i] = f;
    else if (dt == IGEMM_DTYPE_F16) ((uint16_t *)base)[i] = igemm_float_to_f16(f);
    else ((uint16_t *)base)[i] = igemm_float_to_bf16(f);
}

void data_fill(void *dst, int64_t n, igemm_dtype_t dt, double lo, double hi, data_rng_t *g)
{
    for (int64_t i = 0; i < n; i++) {
        double v;
        do {
            data_set(dst, i, dt, data_rng_uniform(g, lo, hi));
            v = data_get(dst, i, dt);
        } while (v == 0.0);
    }
}
