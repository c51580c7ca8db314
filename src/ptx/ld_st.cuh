/*
 * ld_st.cuh — scoped global loads and stores for flags between CTAs (PTX ld/st with
 * .acquire/.release/.relaxed and .gpu scope, sm_70+). One wrapper per instruction form.
 * Used by the sm90 stream-K fix-up: a CTA publishes a partial tile, another waits for it.
 */
#ifndef IGEMM_PTX_LD_ST_CUH
#define IGEMM_PTX_LD_ST_CUH

#include <stdint.h>

/* ld.acquire.gpu.global.u32: a load that later loads of this thread cannot pass; pairs with a
 * st.release.gpu of the same address by another CTA. */
static __device__ __forceinline__ uint32_t ptx_ld_acquire_gpu_u32(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* st.release.gpu.global.u32: a store that earlier memory accesses of this thread (and, through
 * a preceding CTA barrier, of the threads that synchronised with it) cannot pass. */
static __device__ __forceinline__ void ptx_st_release_gpu_u32(uint32_t *p, uint32_t v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}

/* st.relaxed.gpu.global.u32: a plain coherent store at gpu scope (no ordering). */
static __device__ __forceinline__ void ptx_st_relaxed_gpu_u32(uint32_t *p, uint32_t v)
{
    asm volatile("st.relaxed.gpu.global.u32 [%0], %1;\n" ::"l"(p), "r"(v) : "memory");
}

/* st.global.cg.v4.f32: a 16-byte store cached in L2 only (the reader is another SM). */
static __device__ __forceinline__ void ptx_st_global_cg_v4_f32(float *p, float x, float y, float z, float w)
{
    asm volatile("st.global.cg.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"l"(p), "f"(x), "f"(y), "f"(z), "f"(w)
                 : "memory");
}

/* ld.global.cg.v4.f32: a 16-byte load from L2 (bypasses L1, which is not coherent across SMs). */
static __device__ __forceinline__ float4 ptx_ld_global_cg_v4_f32(const float *p)
{
    float4 v;
    asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];\n"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p)
                 : "memory");
    return v;
}

#endif /* IGEMM_PTX_LD_ST_CUH */
