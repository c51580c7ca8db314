/*
 * mma_sync.cuh — warp-level tensor-core MMA (PTX mma.sync, sm_80+). One wrapper per
 * instruction form, named after it. Fragments follow the PTX ISA layouts for m16n8k16:
 *   A (16x16, row): 4 x .b32, each two 16-bit elements; B (16x8, col): 2 x .b32;
 *   C/D (16x8, f32): 4 floats — d0,d1 at (row lane/4, cols 2*(lane%4)+{0,1}), d2,d3 at row+8.
 */
#ifndef IGEMM_PTX_MMA_SYNC_CUH
#define IGEMM_PTX_MMA_SYNC_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

/* mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32: d += a (f16) * b (f16), fp32 accumulate. */
static __device__ __forceinline__ void mma_sync_m16n8k16_row_col_f32_f16(float d[4], const uint32_t a[4],
                                                                         const uint32_t b[2])
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32: d += a (bf16) * b (bf16), fp32 accumulate. */
static __device__ __forceinline__ void mma_sync_m16n8k16_row_col_f32_bf16(float d[4], const uint32_t a[4],
                                                                          const uint32_t b[2])
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* The two forms above by the 16-bit element type T (__half or __nv_bfloat16), for kernels
 * templated on it. */
template <typename T>
static __device__ __forceinline__ void mma_sync_m16n8k16_row_col_f32(float d[4], const uint32_t a[4],
                                                                     const uint32_t b[2]);
template <>
__device__ __forceinline__ void mma_sync_m16n8k16_row_col_f32<__half>(float d[4], const uint32_t a[4],
                                                                      const uint32_t b[2])
{
    mma_sync_m16n8k16_row_col_f32_f16(d, a, b);
}
template <>
__device__ __forceinline__ void mma_sync_m16n8k16_row_col_f32<__nv_bfloat16>(float d[4], const uint32_t a[4],
                                                                             const uint32_t b[2])
{
    mma_sync_m16n8k16_row_col_f32_bf16(d, a, b);
}

/* mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32: d += a (16x8 f16: 2 x .b32, rows lane/4 and
 * lane/4 + 8, k 2*(lane%4) + {0,1}) * b (8x8 f16: 1 x .b32, k 2*(lane%4) + {0,1} of column lane/4). */
static __device__ __forceinline__ void mma_sync_m16n8k8_row_col_f32_f16(float d[4], const uint32_t a[2], uint32_t b)
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b));
}

/* mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32: the same with bf16 operands. */
static __device__ __forceinline__ void mma_sync_m16n8k8_row_col_f32_bf16(float d[4], const uint32_t a[2], uint32_t b)
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(b));
}

/* The two m16n8k8 forms by the 16-bit element type T. */
template <typename T>
static __device__ __forceinline__ void mma_sync_m16n8k8_row_col_f32(float d[4], const uint32_t a[2], uint32_t b);
template <>
__device__ __forceinline__ void mma_sync_m16n8k8_row_col_f32<__half>(float d[4], const uint32_t a[2], uint32_t b)
{
    mma_sync_m16n8k8_row_col_f32_f16(d, a, b);
}
template <>
__device__ __forceinline__ void mma_sync_m16n8k8_row_col_f32<__nv_bfloat16>(float d[4], const uint32_t a[2],
                                                                            uint32_t b)
{
    mma_sync_m16n8k8_row_col_f32_bf16(d, a, b);
}

#endif /* IGEMM_PTX_MMA_SYNC_CUH */
