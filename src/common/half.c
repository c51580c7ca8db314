/*
 * half.c — host conversions between fp32 and the 16-bit types fp16 (IEEE binary16) and bf16,
 * round to nearest, ties to even. NaN stays NaN (quiet, sign kept), infinities stay
 * infinities, overflow rounds to infinity, subnormals are produced and read exactly.
 */
#include <string.h>

#include "../../include/igemm.h"

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

IGEMM_API uint16_t igemm_float_to_f16(float f)
{
    uint32_t u = f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t exp = (u >> 23) & 0xFFu;
    uint32_t man = u & 0x7FFFFFu;

    if (exp == 0xFFu) { /* inf or NaN */
        if (man == 0) return (uint16_t)(sign | 0x7C00u);
        /* quiet NaN, keeping the top payload bits */
        return (uint16_t)(sign | 0x7E00u | (man >> 13));
    }
    int32_t e = (int32_t)exp - 127 + 15; /* biased f16 exponent */
    if (e >= 31) return (uint16_t)(sign | 0x7C00u); /* overflow (before rounding) */
    if (e <= 0) {
        /* subnormal f16 (or zero): value = m * 2^-24 with m = round(|f| * 2^24) */
        if (e < -10) return sign; /* |f| < 2^-25: rounds to zero (2^-25 exactly ties to 0) */
        uint32_t m = man | 0x800000u;        /* 24-bit significand, value m * 2^(exp-150) */
        uint32_t shift = (uint32_t)(14 - e); /* exp-150 -> -24: shift right by (-24)-(exp-150) */
        uint32_t q = m >> shift;
        uint32_t rem = m & ((1u << shift) - 1u);
        uint32_t half = 1u << (shift - 1u);
        if (rem > half || (rem == half && (q & 1u))) q++;
        return (uint16_t)(sign | q); /* q may reach 0x400: the smallest normal, correct */
    }
    uint32_t q = ((uint32_t)e << 10) | (man >> 13);
    uint32_t rem = man & 0x1FFFu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) q++; /* carry may give inf: correct */
    return (uint16_t)(sign | q);
}

IGEMM_API float igemm_f16_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1Fu;
    uint32_t man = h & 0x3FFu;
    if (exp == 0x1Fu) return bits_f32(sign | 0x7F800000u | (man << 13)); /* inf / NaN */
    if (exp == 0) {
        if (man == 0) return bits_f32(sign);
        /* subnormal: man * 2^-24, exact in fp32 */
        float v = (float)man * 5.9604644775390625e-8f;
        return sign ? -v : v;
    }
    return bits_f32(sign | ((exp - 15u + 127u) << 23) | (man << 13));
}

IGEMM_API uint16_t igemm_float_to_bf16(float f)
{
    uint32_t u = f32_bits(f);
    if ((u & 0x7F800000u) == 0x7F800000u && (u & 0x7FFFFFu) != 0)
        return (uint16_t)((u >> 16) | 0x0040u); /* NaN: quiet, sign and top payload kept */
    uint32_t lsb = (u >> 16) & 1u;
    u += 0x7FFFu + lsb; /* ties to even; overflow carries into inf correctly */
    return (uint16_t)(u >> 16);
}

IGEMM_API float igemm_bf16_to_float(uint16_t h)
{
    return bits_f32((uint32_t)h << 16);
}
