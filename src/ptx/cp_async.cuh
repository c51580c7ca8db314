/*
 * cp_async.cuh — asynchronous global -> shared copies (PTX cp.async, sm_80+). One wrapper per
 * instruction form, named after it. smem_addr is a shared-state-space address
 * (__cvta_generic_to_shared); gmem is a generic pointer to global memory.
 */
#ifndef IGEMM_PTX_CP_ASYNC_CUH
#define IGEMM_PTX_CP_ASYNC_CUH

#include <stdint.h>

/* cp.async.cg.shared.global 16 bytes (L2 only), src-size form: copies src_bytes (0..16) from
 * gmem and zero-fills the rest; src_bytes = 0 reads nothing (gmem must still be a valid
 * generic address; 16-byte aligned smem_addr and gmem). */
static __device__ __forceinline__ void cp_async_cg_shared_global_16(uint32_t smem_addr, const void *gmem,
                                                                    uint32_t src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr), "l"(gmem), "r"(src_bytes)
                 : "memory");
}

/* cp.async.commit_group: closes the group of cp.async issued by this thread since the last commit. */
static __device__ __forceinline__ void cp_async_commit_group(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* cp.async.wait_group N: waits until at most N of this thread's committed groups are pending. */
template <int N>
static __device__ __forceinline__ void cp_async_wait_group(void)
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

#endif /* IGEMM_PTX_CP_ASYNC_CUH */
