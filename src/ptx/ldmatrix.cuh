/*
 * ldmatrix.cuh — warp-cooperative shared-memory matrix loads (PTX ldmatrix, sm_75+). One
 * wrapper per instruction form, named after it. Each 8x8 matrix of 16-bit elements is given by
 * eight 16-byte row addresses (threads 8i..8i+7 give matrix i's rows); thread t receives row t/4,
 * elements 2*(t%4) and 2*(t%4)+1 of each matrix in one .b32 register. smem_addr is a
 * shared-state-space address (__cvta_generic_to_shared).
 */
#ifndef IGEMM_PTX_LDMATRIX_CUH
#define IGEMM_PTX_LDMATRIX_CUH

#include <stdint.h>

/* ldmatrix.sync.aligned.m8n8.x4.shared.b16: four 8x8 matrices, row addresses from all 32 threads. */
static __device__ __forceinline__ void ldmatrix_sync_aligned_m8n8_x4_b16(uint32_t r[4], uint32_t smem_addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr));
}

/* ldmatrix.sync.aligned.m8n8.x2.shared.b16: two 8x8 matrices, row addresses from threads 0..15. */
static __device__ __forceinline__ void ldmatrix_sync_aligned_m8n8_x2_b16(uint32_t r[2], uint32_t smem_addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(smem_addr));
}

/* ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16: as the .x4 form, each 8x8 matrix read
 * transposed: r[m] = (row 2(l%4) and +1, column l/4) of matrix m, i.e. the (row l/4, columns
 * 2(l%4), +1) pair of its transpose. */
static __device__ __forceinline__ void ldmatrix_sync_aligned_m8n8_x4_trans_b16(uint32_t r[4], uint32_t smem_addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_addr));
}

/* ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16: two 8x8 matrices (lanes 0-7 and 8-15 give
 * their row addresses), each read transposed as in the .x4 form. */
static __device__ __forceinline__ void ldmatrix_sync_aligned_m8n8_x2_trans_b16(uint32_t r[2], uint32_t smem_addr)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(smem_addr));
}

#endif /* IGEMM_PTX_LDMATRIX_CUH */
