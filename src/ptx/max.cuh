/*
 * max.cuh — packed 16-bit maximum (PTX max.bf16x2 / max.f16x2, sm_80+). One wrapper per
 * instruction form, named after it. Without .NaN, a NaN operand yields the other operand (as
 * fmaxf does), so max(pack(v), 0) equals pack(fmaxf(v, 0)) for every v up to the sign of a
 * zero (rounding is monotonic and 0 is exact).
 */
#ifndef IGEMM_PTX_MAX_CUH
#define IGEMM_PTX_MAX_CUH

#include <stdint.h>

/* max.bf16x2: the lane-wise maximum of two bf16 pairs. */
static __device__ __forceinline__ uint32_t ptx_max_bf16x2(uint32_t a, uint32_t b)
{
    uint32_t d;
    asm("max.bf16x2 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(b));
    return d;
}

/* max.f16x2: the lane-wise maximum of two f16 pairs. */
static __device__ __forceinline__ uint32_t ptx_max_f16x2(uint32_t a, uint32_t b)
{
    uint32_t d;
    asm("max.f16x2 %0, %1, %2;\n" : "=r"(d) : "r"(a), "r"(b));
    return d;
}

#endif
