/*
 * stmatrix.cuh — warp-cooperative shared-memory matrix stores (PTX stmatrix, sm_90). One
 * wrapper per instruction form, named after it. The inverse of ldmatrix: each 8x8 matrix of
 * 16-bit elements goes to eight 16-byte row addresses (threads 8i..8i+7 give matrix i's rows);
 * thread t supplies row t/4, elements 2*(t%4) and 2*(t%4)+1 of each matrix in one .b32
 * register — the layout of an mma/wgmma accumulator pair after packing to 16 bits.
 */
#ifndef IGEMM_PTX_STMATRIX_CUH
#define IGEMM_PTX_STMATRIX_CUH

#include <stdint.h>

/* stmatrix.sync.aligned.m8n8.x4.shared.b16: four 8x8 matrices, row addresses from all 32 threads. */
static __device__ __forceinline__ void stmatrix_sync_aligned_m8n8_x4_b16(uint32_t smem_addr, uint32_t r0, uint32_t r1,
                                                                         uint32_t r2, uint32_t r3)
{
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};\n" ::"r"(smem_addr), "r"(r0), "r"(r1),
                 "r"(r2), "r"(r3)
                 : "memory");
}

/* stmatrix.sync.aligned.m8n8.x4.trans.shared.b16: as the .x4 form, each 8x8 matrix stored
 * transposed (lane 8m + i gives the address of row i of matrix m's transpose; the thread's
 * pair r_m = (row l/4, columns 2(l%4), +1) lands in column l/4 of rows 2(l%4), +1). */
static __device__ __forceinline__ void stmatrix_sync_aligned_m8n8_x4_trans_b16(uint32_t smem_addr, uint32_t r0,
                                                                               uint32_t r1, uint32_t r2, uint32_t r3)
{
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};\n" ::"r"(smem_addr), "r"(r0),
                 "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
}

/* stmatrix.sync.aligned.m8n8.x2.trans.shared.b16: two 8x8 matrices (lanes 0-7 and 8-15 give
 * the addresses of their transposes' rows), each stored transposed as in the .x4 form. */
static __device__ __forceinline__ void stmatrix_sync_aligned_m8n8_x2_trans_b16(uint32_t smem_addr, uint32_t r0, uint32_t r1)
{
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};\n" ::"r"(smem_addr), "r"(r0), "r"(r1)
                 : "memory");
}

#endif /* IGEMM_PTX_STMATRIX_CUH */
