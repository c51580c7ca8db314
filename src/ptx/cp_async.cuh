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

/* cp.async.ca.shared.global 8 bytes (through L1), src-size form: copies src_bytes (0 or 8) from
 * gmem and zero-fills the rest; src_bytes = 0 reads nothing (gmem must still be a valid generic
 * address; 8-byte aligned smem_addr and gmem). */
static __device__ __forceinline__ void cp_async_ca_shared_global_8(uint32_t smem_addr, const void *gmem,
                                                                   uint32_t src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(smem_addr), "l"(gmem), "r"(src_bytes)
                 : "memory");
}

/* cp.async.mbarrier.arrive.noinc.shared::cta.b64: an arrive-on operation on the mbarrier at
 * smem_bar, triggered once every cp.async this thread issued so far has completed. noinc: the
 * barrier's pending count is not raised first, so the arrival counts against its expected
 * arrivals (the barrier's init count includes one per thread that does this). */
static __device__ __forceinline__ void cp_async_mbarrier_arrive_noinc_shared(uint32_t smem_bar)
{
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_bar) : "memory");
}

/* cp.async.wait_all: waits until every cp.async of this thread has completed. */
static __device__ __forceinline__ void cp_async_wait_all(void)
{
    asm volatile("cp.async.wait_all;\n" ::: "memory");
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
