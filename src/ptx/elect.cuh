/*
 * elect.cuh — elect.sync (sm_90): one lane of a converged warp, chosen by the hardware. One
 * wrapper per instruction form, named after it.
 */
#ifndef IGEMM_PTX_ELECT_CUH
#define IGEMM_PTX_ELECT_CUH

#include <stdint.h>

/* elect.sync _|p, 0xffffffff: true in exactly one lane of the (fully converged) warp. Used by
 * the producer warps, which run their loops with all 32 lanes (warp-uniform control flow, so
 * the compiler keeps the loop's values on the uniform datapath) and issue each TMA and
 * mbarrier arrival from the elected lane only. */
static __device__ __forceinline__ bool ptx_elect_one_sync(void)
{
    uint32_t pred;
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "elect.sync _|p, 0xffffffff;\n"
                 "selp.u32 %0, 1, 0, p;\n"
                 "}\n"
                 : "=r"(pred));
    return pred != 0;
}

#endif /* IGEMM_PTX_ELECT_CUH */
