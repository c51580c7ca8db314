/*
 * tcgen05.cuh — Blackwell (sm_100a) 5th-generation tensor core instructions: tensor memory (TMEM)
 * allocation, the MMA into TMEM, its commit to an mbarrier, loads from TMEM and the tcgen05
 * fences. One wrapper per instruction form, named after it. TMEM addresses are 32-bit: lane in
 * bits 31-16, column in bits 15-0. The descriptors: src/sm100/tcgen05_desc.h.
 */
#ifndef IGEMM_PTX_TCGEN05_CUH
#define IGEMM_PTX_TCGEN05_CUH

#include <stdint.h>

/* tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32: allocates ncols TMEM columns (a
 * power of 2, 32..512) for this CTA and writes their address to the shared word at dst. Executed
 * by one whole warp. */
static __device__ __forceinline__ void ptx_tcgen05_alloc_cta_group_1(uint32_t dst, uint32_t ncols)
{
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;\n" ::"r"(dst), "r"(ncols)
                 : "memory");
}

/* tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned: this CTA allocates no more TMEM
 * (lets other CTAs on the SM allocate). One whole warp. */
static __device__ __forceinline__ void ptx_tcgen05_relinquish_alloc_permit_cta_group_1(void)
{
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;\n" ::: "memory");
}

/* tcgen05.dealloc.cta_group::1.sync.aligned.b32: frees ncols columns at taddr (the allocating
 * warp, after every access). */
static __device__ __forceinline__ void ptx_tcgen05_dealloc_cta_group_1(uint32_t taddr, uint32_t ncols)
{
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;\n" ::"r"(taddr), "r"(ncols) : "memory");
}

/* tcgen05.mma.cta_group::1.kind::f16: D (TMEM at d_tmem) (+)= A (smem, a_desc) x B (smem,
 * b_desc)^T for the shape and types of idesc; accumulate = 0 overwrites D. Issued by one thread. */
static __device__ __forceinline__ void ptx_tcgen05_mma_cta_group_1_kind_f16(uint32_t d_tmem, uint64_t a_desc,
                                                                            uint64_t b_desc, uint32_t idesc,
                                                                            uint32_t accumulate)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n"
                 "}\n" ::"r"(d_tmem),
                 "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate)
                 : "memory");
}

/* tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64: one arrival on the
 * mbarrier at shared address bar once every tcgen05.mma this thread issued before has completed
 * (their shared-memory operands read, D written). */
static __device__ __forceinline__ void ptx_tcgen05_commit_cta_group_1(uint32_t bar)
{
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];\n" ::"r"(bar)
                 : "memory");
}

/* ---------------------------------------------------------------- cta_group::2 (CTA pairs)
 * A CTA pair is the two CTAs of a cluster whose %cluster_ctarank differ only in bit 0. Every
 * tcgen05 instruction of a kernel must carry the same .cta_group (PTX ISA, tcgen05.alloc): a
 * kernel built on these forms uses no cta_group::1 form (tcgen05.ld / wait / fences carry none). */

/* tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32: allocates ncols TMEM columns in each
 * CTA of the pair and writes their address to the shared word at dst. One warp of EACH CTA of
 * the pair executes it (collectively), with the same dst and ncols; the peer CTA must have been
 * launched and still be running (a cluster barrier before). */
static __device__ __forceinline__ void ptx_tcgen05_alloc_cta_group_2(uint32_t dst, uint32_t ncols)
{
    asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;\n" ::"r"(dst), "r"(ncols)
                 : "memory");
}

/* tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned: the pair allocates no more TMEM. */
static __device__ __forceinline__ void ptx_tcgen05_relinquish_alloc_permit_cta_group_2(void)
{
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;\n" ::: "memory");
}

/* tcgen05.dealloc.cta_group::2.sync.aligned.b32: frees ncols columns at taddr in both CTAs of
 * the pair; one warp of each CTA (the allocating warps), after every access of either CTA. */
static __device__ __forceinline__ void ptx_tcgen05_dealloc_cta_group_2(uint32_t taddr, uint32_t ncols)
{
    asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;\n" ::"r"(taddr), "r"(ncols) : "memory");
}

/* tcgen05.mma.cta_group::2.kind::f16: the pair's MMA, issued by ONE thread of one CTA of the pair
 * (igemm: the even-ranked one). a_desc / b_desc / d_tmem name the same shared-memory offsets and
 * TMEM address in both CTAs: for an M = 256 shape, rows 0-127 of A come from the issuing CTA's
 * shared memory and rows 128-255 from its peer's; the N rows of B are split, N/2 in each CTA
 * (the issuer's first); D rows 0-127 are written to the issuer's TMEM lanes 0-127 and rows
 * 128-255 to the peer's (all N columns in each). accumulate = 0 overwrites D. */
static __device__ __forceinline__ void ptx_tcgen05_mma_cta_group_2_kind_f16(uint32_t d_tmem, uint64_t a_desc,
                                                                            uint64_t b_desc, uint32_t idesc,
                                                                            uint32_t accumulate)
{
    asm volatile("{\n"
                 ".reg .pred p;\n"
                 "setp.ne.b32 p, %4, 0;\n"
                 "tcgen05.mma.cta_group::2.kind::f16 [%0], %1, %2, %3, p;\n"
                 "}\n" ::"r"(d_tmem),
                 "l"(a_desc), "l"(b_desc), "r"(idesc), "r"(accumulate)
                 : "memory");
}

/* tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64:
 * once every tcgen05 operation this thread issued before has completed, one arrival on the
 * mbarrier at the same shared-memory offset as bar (a shared::cta address of the issuer) in each
 * CTA of the cluster whose rank bit is set in cta_mask (a pair: 0b11 << leader rank). Implies
 * tcgen05.fence::before_thread_sync. */
static __device__ __forceinline__ void ptx_tcgen05_commit_cta_group_2_multicast(uint32_t bar, uint16_t cta_mask)
{
    asm volatile(
        "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;\n" ::"r"(
            bar),
        "h"(cta_mask)
        : "memory");
}

/* tcgen05.ld.sync.aligned.32x32b.x32.b32: thread t of the warp loads 32 consecutive 32-bit
 * columns of TMEM lane (lane base of taddr) + t, from column (taddr & 0xFFFF). A warp may access
 * only the 32 lanes 32 (warp_id % 4) .. +31. Complete after tcgen05.wait::ld. */
static __device__ __forceinline__ void ptx_tcgen05_ld_32x32b_x32(uint32_t taddr, uint32_t v[32])
{
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x32.b32 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
                 "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];\n"
                 : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]), "=r"(v[4]), "=r"(v[5]), "=r"(v[6]), "=r"(v[7]),
                   "=r"(v[8]), "=r"(v[9]), "=r"(v[10]), "=r"(v[11]), "=r"(v[12]), "=r"(v[13]), "=r"(v[14]),
                   "=r"(v[15]), "=r"(v[16]), "=r"(v[17]), "=r"(v[18]), "=r"(v[19]), "=r"(v[20]), "=r"(v[21]),
                   "=r"(v[22]), "=r"(v[23]), "=r"(v[24]), "=r"(v[25]), "=r"(v[26]), "=r"(v[27]), "=r"(v[28]),
                   "=r"(v[29]), "=r"(v[30]), "=r"(v[31])
                 : "r"(taddr)
                 : "memory");
}

/* tcgen05.wait::ld.sync.aligned: waits for this thread's prior tcgen05.ld. */
static __device__ __forceinline__ void ptx_tcgen05_wait_ld(void)
{
    asm volatile("tcgen05.wait::ld.sync.aligned;\n" ::: "memory");
}

/* tcgen05.fence::before_thread_sync: orders prior tcgen05 operations before a following thread
 * synchronisation (barrier, mbarrier arrive). */
static __device__ __forceinline__ void ptx_tcgen05_fence_before_thread_sync(void)
{
    asm volatile("tcgen05.fence::before_thread_sync;\n" ::: "memory");
}

/* tcgen05.fence::after_thread_sync: orders following tcgen05 operations after a prior thread
 * synchronisation (barrier, mbarrier wait). */
static __device__ __forceinline__ void ptx_tcgen05_fence_after_thread_sync(void)
{
    asm volatile("tcgen05.fence::after_thread_sync;\n" ::: "memory");
}

#endif /* IGEMM_PTX_TCGEN05_CUH */
