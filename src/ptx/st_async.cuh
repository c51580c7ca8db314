/*
 * st_async.cuh — asynchronous remote shared-memory stores (PTX st.async, sm_90): a store into
 * the shared memory of another CTA of the cluster whose completion is counted, in bytes, on an
 * mbarrier of that CTA (complete_tx), so the receiver needs no flag, fence or second round trip:
 * it waits on its own barrier, armed with arrive.expect_tx for the bytes it will receive.
 * One wrapper per instruction form, named after it.
 */
#ifndef IGEMM_PTX_ST_ASYNC_CUH
#define IGEMM_PTX_ST_ASYNC_CUH

#include <stdint.h>

/* st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32: stores {v0, v1, v2, v3} (16 B)
 * at shared::cluster address addr (16-byte aligned, from mapa) and signals complete_tx(16) on
 * the mbarrier at shared::cluster address bar, which must be in the same CTA as addr. The values
 * are fp32 registers ("f"): a bit cast to integers first let the compiler carry wgmma
 * accumulators as integers through the mainloop, with moves between the wgmma and its wait,
 * and ptxas then serialised every wgmma (C7514). */
static __device__ __forceinline__ void ptx_st_async_shared_cluster_v4_b32(uint32_t addr, float v0, float v1, float v2,
                                                                         float v3, uint32_t bar)
{
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];\n" ::"r"(
                     addr),
                 "f"(v0), "f"(v1), "f"(v2), "f"(v3), "r"(bar)
                 : "memory");
}

#endif /* IGEMM_PTX_ST_ASYNC_CUH */
