/*
 * core/setup.cuh — the set-up every Hopper conv kernel starts with (the split-in-cluster kernel
 * has its own: cluster barrier, receive barriers): thread 0 prefetches the tensor-map descriptors,
 * initialises the ring's, the staging boxes' and (consumers taking tiles in turn) the order
 * barriers, and issues the CTA's first unit's first SM90_EARLY_STAGES k-blocks (EARLY: not in the
 * halo-row kernel, whose producer loads whole input rows); then the CTA-wide barrier and
 * programmatic dependent launch: the trigger (the next kernel of the stream may be scheduled now)
 * and the wait (every global access comes after it; both no-ops without the launch attribute).
 */
#ifndef IGEMM_SM90_CORE_SETUP_CUH
#define IGEMM_SM90_CORE_SETUP_CUH

#include "producer.cuh"

template <int BN, bool BRES, bool ORDER, bool EARLY, uint32_t A_STAGE, bool GRP = false>
static __device__ __forceinline__ void sm90_setup(const igemm_sm90_args_t &a, const CUtensorMap *tmap_x,
                                                  const CUtensorMap *tmap_w, const sm90_smem_t &c, int S, int ES,
                                                  int NC, uint32_t arrivals, int unit0)
{
    if (threadIdx.x == 0) {
        ptx_prefetch_tensormap(tmap_x); /* descriptor fetches first: they overlap the set-up */
        ptx_prefetch_tensormap(tmap_w);
        sm90_first_unit_t f = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        if (EARLY) sm90_first_unit<BN, BRES, false>(a, unit0, 0, f);
        sm90_ring_init(c, S, ES, NC, arrivals);
        if (ORDER) sm90_order_init(c, NC);
        ptx_fence_mbarrier_init_release_cluster();
        if (EARLY) sm90_early_loads<BN, BRES, GRP>(a, tmap_x, tmap_w, c, S, A_STAGE, unit0, f);
    }
    __syncthreads();
    ptx_griddepcontrol_launch_dependents();
    ptx_griddepcontrol_wait();
}

#endif /* IGEMM_SM90_CORE_SETUP_CUH */
