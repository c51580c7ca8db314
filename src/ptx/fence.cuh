/*
 * fence.cuh — memory-ordering fences and CTA-level named barriers (PTX fence / bar, sm_90).
 * One wrapper per instruction form, named after it.
 */
#ifndef IGEMM_PTX_FENCE_CUH
#define IGEMM_PTX_FENCE_CUH

#include <stdint.h>

/* fence.mbarrier_init.release.cluster: makes prior mbarrier.init visible to other threads and
 * to the async proxy (TMA complete_tx) before they use the barriers. Follow with a CTA barrier. */
static __device__ __forceinline__ void ptx_fence_mbarrier_init_release_cluster(void)
{
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

/* fence.proxy.async.shared::cta: orders this thread's generic-proxy shared-memory accesses with
 * later async-proxy accesses (TMA store / wgmma reading data written by st.shared). */
static __device__ __forceinline__ void ptx_fence_proxy_async_shared_cta(void)
{
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/* bar.sync id, nthreads: named CTA barrier over nthreads threads (multiple of 32); id 0 is the
 * one __syncthreads uses. */
static __device__ __forceinline__ void ptx_bar_sync(uint32_t id, uint32_t nthreads)
{
    asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(nthreads) : "memory");
}

#endif /* IGEMM_PTX_FENCE_CUH */
