/*
 * setmaxnreg.cuh — per-warpgroup register reallocation (PTX setmaxnreg, sm_90a). Every thread of
 * the warpgroup must execute the same instruction (.sync.aligned). N is a multiple of 8 in
 * [24, 256].
 */
#ifndef IGEMM_PTX_SETMAXNREG_CUH
#define IGEMM_PTX_SETMAXNREG_CUH

/* setmaxnreg.inc.sync.aligned.u32 N: raises this warpgroup's per-thread register count to N
 * (blocks until the CTA's pool has them). */
template <int N>
static __device__ __forceinline__ void ptx_setmaxnreg_inc(void)
{
    static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg: N must be a multiple of 8 in [24, 256]");
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

/* setmaxnreg.dec.sync.aligned.u32 N: lowers this warpgroup's per-thread register count to N,
 * returning the rest to the CTA's pool. */
template <int N>
static __device__ __forceinline__ void ptx_setmaxnreg_dec(void)
{
    static_assert(N % 8 == 0 && N >= 24 && N <= 256, "setmaxnreg: N must be a multiple of 8 in [24, 256]");
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}

#endif /* IGEMM_PTX_SETMAXNREG_CUH */
