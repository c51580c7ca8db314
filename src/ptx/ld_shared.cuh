/*
 * ld_shared.cuh — vector loads and stores of shared memory by shared-state-space address (PTX
 * ld.shared, ld.shared::cluster, st.shared; sm_90). One wrapper per instruction form, named after it.
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

/* ld.shared::cluster.v4.f32: 16 bytes of the shared memory of a CTA of this cluster at
 * shared::cluster address addr (from mapa; 16-byte aligned). */
static __device__ __forceinline__ float4 ptx_ld_shared_cluster_v4_f32(uint32_t addr)
{
    float4 v;
    asm volatile("ld.shared::cluster.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(addr)
                 : "memory");
    return v;
}

/* st.shared.v4.f32: 16 bytes into this CTA's shared memory at shared::cta address addr
 * (16-byte aligned). */
static __device__ __forceinline__ void ptx_st_shared_v4_f32(uint32_t addr, float x, float y, float z, float w)
{
    asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "f"(x), "f"(y), "f"(z), "f"(w) : "memory");
}

/* st.shared.v4.b32: 16 bytes (four 32-bit words) into this CTA's shared memory at shared::cta
 * address addr (16-byte aligned). */
static __device__ __forceinline__ void ptx_st_shared_v4_b32(uint32_t addr, uint32_t x, uint32_t y, uint32_t z,
                                                            uint32_t w)
{
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(addr), "r"(x), "r"(y), "r"(z), "r"(w) : "memory");
}

#endif /* IGEMM_PTX_LD_SHARED_CUH */
