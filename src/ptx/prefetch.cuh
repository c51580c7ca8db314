/*
 * prefetch.cuh — cache prefetch hints (PTX prefetch). One wrapper per instruction form.
 */
#ifndef IGEMM_PTX_PREFETCH_CUH
#define IGEMM_PTX_PREFETCH_CUH

/* prefetch.global.L1 [a]: brings the line holding a into L1 (no register written, no fault). */
static __device__ __forceinline__ void ptx_prefetch_global_l1(const void *a)
{
    asm volatile("prefetch.global.L1 [%0];\n" ::"l"(a));
}

#endif /* IGEMM_PTX_PREFETCH_CUH */
