/*
 * ladder_sm100.cuh — what the Blackwell ladder programs (sm100_step*.cu) share besides ladder.cuh:
 * the tensor-memory set-up (warp 1 allocates, every thread reads the address after the CTA
 * barrier), the MMA thread's k-block, one epilogue warp's store of its 32 rows of a TMEM accumulator (tcgen05.ld 32x32b.x32,
 * bf16, 16-byte stores) and the release of the tensor memory at exit. Device code for sm_100a.
 */
#ifndef LADDER_SM100_CUH
#define LADDER_SM100_CUH

#include "ladder.cuh"

#include "../../src/ptx/tcgen05.cuh"
#include "../../src/sm100/tcgen05_desc.h"

/* Every thread, after thread 0 initialised the barriers: warp 1 allocates ncols TMEM columns (their
 * address into the shared word at tslot) and gives up the allocation permit; the CTA barrier
 * between the tcgen05 fences; returns the TMEM address. */
static __device__ __forceinline__ uint32_t lad100_tmem_setup(uint32_t tslot, uint32_t ncols)
{
    if (threadIdx.x / 32 == 1) {
        ptx_tcgen05_alloc_cta_group_1(tslot, ncols);
        ptx_tcgen05_relinquish_alloc_permit_cta_group_1();
    }
    ptx_tcgen05_fence_before_thread_sync();
    __syncthreads();
    ptx_tcgen05_fence_after_thread_sync();
    return *(volatile uint32_t *)lad_smem_ptr(tslot);
}

/* One epilogue warp (TMEM lanes 32 q .. : q = warp % 4): the BN columns of its lanes from TMEM column
 * col0 on, as bf16 into row `row` of D at out (the tile's first column of that row), 32 columns a
 * load. */
template <int BN>
static __device__ __forceinline__ void lad100_store_rows(uint32_t tmem, int q, uint32_t col0, bf16 *out)
{
#pragma unroll 1
    for (int c = 0; c < BN / 32; c++) {
        uint32_t v[32];
        ptx_tcgen05_ld_32x32b_x32(tmem + ((uint32_t)(32 * q) << 16) + col0 + 32u * c, v);
        ptx_tcgen05_wait_ld();
        uint32_t packed[16];
#pragma unroll
        for (int i = 0; i < 16; i++) {
            const __nv_bfloat162 h = __floats2bfloat162_rn(__uint_as_float(v[2 * i]), __uint_as_float(v[2 * i + 1]));
            packed[i] = *(const uint32_t *)&h;
        }
#pragma unroll
        for (int i = 0; i < 4; i++)
            *(uint4 *)(out + 32 * c + 8 * i) =
                make_uint4(packed[4 * i], packed[4 * i + 1], packed[4 * i + 2], packed[4 * i + 3]);
    }
}

/* The MMA thread's k-block: once the stage's TMA bytes landed (full barrier `full`, parity `phase`),
 * four tcgen05.mma K16 steps of the K-major SW128 A tile at a_st and B tile at b_st into the TMEM
 * accumulator d (accumulate: all but the tile's first step), committed to the stage's empty
 * barrier (free once those MMAs completed). */
static __device__ __forceinline__ void lad100_mma_kblock(uint32_t d, uint32_t a_st, uint32_t b_st, uint32_t idesc,
                                                         uint32_t full, uint32_t phase, uint32_t empty, bool first)
{
    ptx_mbarrier_wait_parity(full, phase);
    ptx_tcgen05_fence_after_thread_sync();
    const uint64_t da = igemm_tcgen05_sdesc_kmajor_sw128(a_st);
    const uint64_t db = igemm_tcgen05_sdesc_kmajor_sw128(b_st);
#pragma unroll
    for (int kk = 0; kk < 4; kk++)
        ptx_tcgen05_mma_cta_group_1_kind_f16(d, da + 2u * kk, db + 2u * kk, idesc, !first || kk != 0);
    ptx_tcgen05_commit_cta_group_1(empty);
}

/* Every thread at exit: the CTA barrier between the tcgen05 fences, then warp 1 frees the TMEM. */
static __device__ __forceinline__ void lad100_tmem_release(uint32_t tmem, uint32_t ncols)
{
    ptx_tcgen05_fence_before_thread_sync();
    __syncthreads();
    if (threadIdx.x / 32 == 1) {
        ptx_tcgen05_fence_after_thread_sync();
        ptx_tcgen05_dealloc_cta_group_1(tmem, ncols);
    }
}

/* Host: launches kernel over one CTA per BM x BN tile of D with `threads` threads and `smem` bytes
 * of dynamic shared memory (the attribute raised once). */
template <int BM, int BN>
static void lad100_launch(void (*kernel)(CUtensorMap, CUtensorMap, bf16 *, int, int, int), int threads, int smem,
                          const lad_problem_t *p, cudaStream_t s)
{
    static int attr_set = 0;
    if (!attr_set) {
        LAD_CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        attr_set = 1;
    }
    kernel<<<dim3(p->n / BN, p->m / BM), threads, smem, s>>>(p->ta, p->tb, p->d, p->m, p->n, p->k);
}

#endif /* LADDER_SM100_CUH */
