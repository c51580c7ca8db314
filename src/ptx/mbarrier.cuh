/*
 * mbarrier.cuh — shared-memory transaction barriers (PTX mbarrier, sm_90). One wrapper per
 * instruction form, named after it. `bar` is a shared-state-space address (32-bit, from
 * ptx_cvta_to_shared) of an 8-byte aligned uint64_t in shared memory.
 *
 * Phase protocol used by igemm: a barrier starts in phase 0. try_wait.parity(P) returns true
 * once the phase with parity P has completed; on a fresh barrier, waiting for parity 1 returns
 * at once (the "previous" phase counts as complete), which is how producers pass their first
 * wait on an empty-slot barrier.
 */
#ifndef IGEMM_PTX_MBARRIER_CUH
#define IGEMM_PTX_MBARRIER_CUH

#include <stdint.h>

/* cvta.to.shared: the 32-bit shared-state-space address of a generic pointer into shared memory. */
static __device__ __forceinline__ uint32_t ptx_cvta_to_shared(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* mbarrier.init.shared::cta.b64: sets the expected arrival count of a new phase to count. */
static __device__ __forceinline__ void ptx_mbarrier_init(uint32_t bar, uint32_t count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}

/* mbarrier.arrive.shared::cta.b64: one arrival (release semantics at CTA scope). */
static __device__ __forceinline__ void ptx_mbarrier_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* mbarrier.arrive.expect_tx.shared::cta.b64: one arrival that also adds tx_bytes to the bytes
 * the current phase waits for (the TMA loads' complete_tx decrements them). */
static __device__ __forceinline__ void ptx_mbarrier_arrive_expect_tx(uint32_t bar, uint32_t tx_bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(tx_bytes)
                 : "memory");
}

/* @p mbarrier.arrive.shared::cta.b64: one arrival by the threads whose pred is true. The
 * predicate lives inside the asm, so a call from divergent code (e.g. lane 0 of a warp) stays
 * a predicated instruction instead of a branch with a reconvergence barrier in the loop. */
static __device__ __forceinline__ void ptx_mbarrier_arrive_pred(uint32_t bar, bool pred)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.u32 p, %1, 0;\n"
                 "@p mbarrier.arrive.shared::cta.b64 _, [%0];\n"
                 "}\n" ::"r"(bar), "r"((uint32_t)pred)
                 : "memory");
}

/* @p mbarrier.arrive.shared::cluster.b64: one arrival, by the threads whose pred is true
 * (predicated inside the asm, as ptx_mbarrier_arrive_pred), on the barrier at shared::cluster
 * address bar (from ptx_mapa_shared_cluster: this CTA's or another CTA's of the cluster), with
 * the default semantics (release at CTA scope). The .release.cluster form compiles to a
 * GPU-wide MEMBAR + ERRBAR per arrival (measured: 1.5-2.7x slower mainloops); a consumer's
 * release of a stage only has to order its own reads of the stage (wgmma, complete at
 * wait_group) before the arrival, which this form does. */
static __device__ __forceinline__ void ptx_mbarrier_arrive_shared_cluster_pred(uint32_t bar, bool pred)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.u32 p, %1, 0;\n"
                 "@p mbarrier.arrive.shared::cluster.b64 _, [%0];\n"
                 "}\n" ::"r"(bar), "r"((uint32_t)pred)
                 : "memory");
}

/* mbarrier.arrive.release.cluster.shared::cluster.b64: one arrival on the barrier at
 * shared::cluster address bar (ptx_mapa_shared_cluster: this CTA's or a peer CTA's), releasing
 * this thread's prior accesses at cluster scope (a memory barrier: for once-per-tile arrivals
 * that another CTA's waiter must order against, e.g. TMEM reads before the pair's next MMA). */
static __device__ __forceinline__ void ptx_mbarrier_arrive_release_cluster_shared_cluster(uint32_t bar)
{
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];\n" ::"r"(bar) : "memory");
}

/* mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64: one arrival that also adds
 * tx_bytes to the current phase's expected transaction bytes, on the barrier at shared::cluster
 * address bar (possibly a peer CTA's: e.g. arming its copy of a multicast CLC response). */
static __device__ __forceinline__ void ptx_mbarrier_arrive_expect_tx_release_cluster_shared_cluster(uint32_t bar,
                                                                                                   uint32_t tx_bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%0], %1;\n" ::"r"(bar),
                 "r"(tx_bytes)
                 : "memory");
}

/* mbarrier.try_wait.parity.shared::cta.b64: 1 if the phase with the given parity has completed
 * (may suspend the thread for a system-defined time before answering 0). Acquire semantics. */
static __device__ __forceinline__ uint32_t ptx_mbarrier_try_wait_parity(uint32_t bar, uint32_t parity)
{
    uint32_t ok;
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n"
                 "}\n"
                 : "=r"(ok)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return ok;
}

/* Loop over mbarrier.try_wait.parity until the phase with the given parity has completed. */
static __device__ __forceinline__ void ptx_mbarrier_wait_parity(uint32_t bar, uint32_t parity)
{
    while (!ptx_mbarrier_try_wait_parity(bar, parity)) {
    }
}

/* mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64: as ptx_mbarrier_try_wait_parity,
 * with acquire semantics at cluster scope: for a phase completed by another CTA of the cluster
 * (st.async complete_tx, remote arrivals), so that its writes into this CTA are visible. */
static __device__ __forceinline__ uint32_t ptx_mbarrier_try_wait_parity_acquire_cluster(uint32_t bar, uint32_t parity)
{
    uint32_t ok;
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
                 "selp.u32 %0, 1, 0, p;\n"
                 "}\n"
                 : "=r"(ok)
                 : "r"(bar), "r"(parity)
                 : "memory");
    return ok;
}

/* Loop over ptx_mbarrier_try_wait_parity_acquire_cluster until the phase has completed. */
static __device__ __forceinline__ void ptx_mbarrier_wait_parity_acquire_cluster(uint32_t bar, uint32_t parity)
{
    while (!ptx_mbarrier_try_wait_parity_acquire_cluster(bar, parity)) {
    }
}

#endif /* IGEMM_PTX_MBARRIER_CUH */
