/*
 * clc.cuh — Blackwell (sm_100a) cluster launch control: a running CTA asks the hardware to cancel
 * the launch of a cluster that has not started yet and, if that succeeds, does its work (a
 * persistent kernel that keeps the hardware's launch order and yields to higher-priority work).
 * One wrapper per instruction form, named after it (PTX ISA 8.6, "clusterlaunchcontrol").
 */
#ifndef IGEMM_PTX_CLC_CUH
#define IGEMM_PTX_CLC_CUH

#include <stdint.h>

/* clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128: requests
 * the cancellation of a not-yet-launched cluster of this grid; the opaque 16-byte response is
 * written to the 16-byte aligned shared address resp and its 16 bytes are counted (complete_tx) on
 * the mbarrier at shared address bar (armed with expect_tx 16 by the caller). Issued by one thread.
 * After a CTA has observed a failed response, issuing another is undefined. */
static __device__ __forceinline__ void ptx_clusterlaunchcontrol_try_cancel(uint32_t resp, uint32_t bar)
{
    asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];\n" ::"r"(
                     resp),
                 "r"(bar)
                 : "memory");
}

/* clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128:
 * as ptx_clusterlaunchcontrol_try_cancel, for a kernel launched in clusters: the cancelled unit is
 * a whole cluster, and the 16-byte response is written to the same shared offset resp in EVERY
 * CTA of the requesting cluster, each CTA's copy counted (complete_tx 16) on the mbarrier at the
 * same offset bar in that CTA (each armed with expect_tx 16 for the phase). Undefined if any CTA
 * of the cluster has exited. Issued by one thread of one CTA of the cluster. */
static __device__ __forceinline__ void ptx_clusterlaunchcontrol_try_cancel_multicast_cluster_all(uint32_t resp,
                                                                                                 uint32_t bar)
{
    asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all"
                 ".b128 [%0], [%1];\n" ::"r"(resp),
                 "r"(bar)
                 : "memory");
}

/* The response at shared address resp (after its mbarrier completed): returns 1 if a cluster was
 * cancelled, and then its first CTA's id in *x, *y, *z
 * (clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 and .get_first_ctaid.v4.b32.b128 on
 * the response loaded as one .b128 register). */
static __device__ __forceinline__ uint32_t ptx_clusterlaunchcontrol_query_cancel(uint32_t resp, uint32_t *x,
                                                                                 uint32_t *y, uint32_t *z)
{
    uint32_t ok, cx, cy, cz;
    asm volatile("{\n"
                 ".reg .b128 r;\n"
                 ".reg .pred p;\n"
                 ".reg .b32 w;\n"
                 "ld.shared.b128 r, [%4];\n"
                 "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, r;\n"
                 "selp.u32 %0, 1, 0, p;\n"
                 "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%1, %2, %3, w}, r;\n"
                 "}\n"
                 : "=r"(ok), "=r"(cx), "=r"(cy), "=r"(cz)
                 : "r"(resp)
                 : "memory");
    *x = cx, *y = cy, *z = cz;
    return ok;
}

#endif /* IGEMM_PTX_CLC_CUH */
