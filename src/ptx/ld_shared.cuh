/*
 * ld_shared.cuh — vector loads from this CTA's shared memory by shared-state-space address (PTX
 * ld.shared, sm_90). One wrapper per instruction form, named after it.
 */
#ifndef IGEMM_PTX_LD_SHARED_CUH
#define IGEMM_PTX_LD_SHARED_CUH

#include <stdint.h>

/* ld.shared.v4.f32: 16 bytes of this CTA's shared memory at shared::cta address addr (16-byte aligned). */
static __device__ __forceinline__ float4 ptx_ld_shared_v4_f32(uint32_t addr)
{
    float4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(addr)
                 : "memory");
    return v;
}

#endif /* IGEMM_PTX_LD_SHARED_CUH */
