/*
 * cluster.cuh — thread-block clusters (sm_90): distributed shared memory addressing (mapa) and
 * the cluster-wide barrier. One wrapper per instruction form, named after it.
 */
#ifndef IGEMM_PTX_CLUSTER_CUH
#define IGEMM_PTX_CLUSTER_CUH

#include <stdint.h>

/* mapa.shared::cluster.u32: the shared::cluster address of the variable at shared::cta
 * address addr in the CTA of rank `rank` of this cluster. */
static __device__ __forceinline__ uint32_t ptx_mapa_shared_cluster(uint32_t addr, uint32_t rank)
{
    uint32_t r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(addr), "r"(rank));
    return r;
}

/* %cluster_ctarank: this CTA's rank in its cluster (0 .. cluster size - 1). */
static __device__ __forceinline__ uint32_t ptx_cluster_ctarank(void)
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}

/* barrier.cluster.arrive.relaxed: this thread arrives at the cluster barrier with no memory
 * ordering (the .release form costs a GPU-wide MEMBAR); what must be visible across the
 * cluster is ordered by its own fence (e.g. fence.mbarrier_init.release.cluster). */
static __device__ __forceinline__ void ptx_barrier_cluster_arrive_relaxed(void)
{
    asm volatile("barrier.cluster.arrive.relaxed;\n" ::: "memory");
}

/* barrier.cluster.arrive.release: this thread arrives at the cluster barrier, its earlier
 * memory accesses (e.g. shared-memory stores that other CTAs of the cluster read after the
 * barrier) ordered before the arrival at cluster scope. Costs a memory barrier: once per
 * exchange, not in a loop. */
static __device__ __forceinline__ void ptx_barrier_cluster_arrive_release(void)
{
    asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
}

/* barrier.cluster.wait.acquire: waits until every non-exited thread of the cluster has
 * arrived; acquires at cluster scope. */
static __device__ __forceinline__ void ptx_barrier_cluster_wait_acquire(void)
{
    asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
}

#endif /* IGEMM_PTX_CLUSTER_CUH */
