/*
 * elem.h — element access of the CPU references (conv2d_ref.c, gemm_ref.c): a 16-bit input
 * element as double (exact), an output element (f16/bf16/f32) as double, and the store that
 * rounds double -> float -> the output dtype (nearest even), the reference's one rounding.
 */
#ifndef IGEMM_REF_ELEM_H
#define IGEMM_REF_ELEM_H

#include <stddef.h>
#include <stdint.h>

#include "../../include/igemm.h"

static inline double ref_load_in(const void *base, size_t i, igemm_dtype_t dt)
{
    uint16_t h = ((const uint16_t *)base)[i];
    return dt == IGEMM_DTYPE_F16 ? (double)igemm_f16_to_float(h) : (double)igemm_bf16_to_float(h);
}

static inline double ref_load_out(const void *base, size_t i, igemm_dtype_t dt)
{
    if (dt == IGEMM_DTYPE_F32) return (double)((const float *)base)[i];
    return ref_load_in(base, i, dt);
}

static inline void ref_store_out(void *base, size_t i, igemm_dtype_t dt, double v)
{
    float f = (float)v;
    if (dt == IGEMM_DTYPE_F32) ((float *)base)[i] = f;
    else if (dt == IGEMM_DTYPE_F16) ((uint16_t *)base)[i] = igemm_float_to_f16(f);
    else ((uint16_t *)base)[i] = igemm_float_to_bf16(f);
}

#endif /* IGEMM_REF_ELEM_H */
