/*
 * fastdiv.h — division of 32-bit unsigned integers x < 2^31 by a run-time constant d >= 1
 * with one multiply-high and one shift (round-up reciprocal method, Granlund & Montgomery
 * 1994): for d >= 2 let s = ceil(log2 d), p = 31 + s and mul = ceil(2^p / d) (< 2^32). Then
 * for every x < 2^31, floor(x / d) = (x * mul) >> p = umulhi(x, mul) >> (p - 32): the error
 * term x * (mul*d - 2^p) / (d * 2^p) is below 2^(31-p) = 2^-s <= 1/d. d = 1 is mul = 0
 * (the quotient is x). Host code makes the divisor (igemm_fastdiv_make), device code divides
 * (igemm_fastdiv_div); tests/test_ref.c checks it against '/' on edge and random values.
 */
#ifndef IGEMM_FASTDIV_H
#define IGEMM_FASTDIV_H

#include <stdint.h>

typedef struct igemm_fastdiv {
    uint32_t mul;   /* 0 when d == 1 */
    uint32_t shift; /* p - 32 */
    int32_t d;      /* the divisor */
    int32_t pad_;
} igemm_fastdiv_t;

/* The divisor d, 1 <= d < 2^31. */
static inline igemm_fastdiv_t igemm_fastdiv_make(int32_t d)
{
    igemm_fastdiv_t f = {0u, 0u, d, 0};
    if (d <= 1) {
        f.d = 1;
        return f;
    }
    uint32_t s = 0;
    while (((uint64_t)1 << s) < (uint64_t)d) s++;
    const uint64_t p2 = (uint64_t)1 << (31 + s);
    f.mul = (uint32_t)((p2 + (uint64_t)d - 1) / (uint64_t)d);
    f.shift = s - 1;
    return f;
}

/* floor(x / f.d) for 0 <= x < 2^31 (host reference of the device form). */
static inline int32_t igemm_fastdiv_div_host(int32_t x, igemm_fastdiv_t f)
{
    if (f.mul == 0) return x;
    return (int32_t)((uint32_t)(((uint64_t)(uint32_t)x * f.mul) >> 32) >> f.shift);
}

#ifdef __CUDACC__
/* floor(x / f.d) for 0 <= x < 2^31. */
static __device__ __forceinline__ int32_t igemm_fastdiv_div(int32_t x, const igemm_fastdiv_t &f)
{
    return f.mul == 0 ? x : (int32_t)(__umulhi((uint32_t)x, f.mul) >> f.shift);
}
#endif

#endif /* IGEMM_FASTDIV_H */
