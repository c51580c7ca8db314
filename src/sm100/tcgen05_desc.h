/*
 * tcgen05_desc.h — the two descriptors of a Blackwell (sm_100a) tcgen05.mma, encoded in plain C
 * so that the host (and the CPU tests) compute exactly what a kernel would pass:
 *   - the 32-bit instruction descriptor of .kind::f16 (PTX ISA, "Instruction descriptor", the
 *     table for .kind::tf32 / f16 / f8f6f4 / i8): D type, A and B types, transposes, N and M;
 *   - the 64-bit shared-memory matrix descriptor (PTX ISA, tcgen05 "Shared memory descriptor"):
 *     start address, leading and stride byte offsets, the fixed 0b001 at bits 46-48, the matrix
 *     base offset, the leading-offset mode and the 3-bit swizzle mode at bits 61-63 (whose codes
 *     differ from Hopper's 2-bit wgmma field: 128B is 2 here, 1 on sm_90).
 * Header-only; IGEMM_HD marks the functions __host__ __device__ under nvcc.
 */
#ifndef IGEMM_SM100_TCGEN05_DESC_H
#define IGEMM_SM100_TCGEN05_DESC_H

#include <stdint.h>

#ifdef __CUDACC__
#define IGEMM_HD __host__ __device__
#else
#define IGEMM_HD
#endif

/* swizzle modes of the tcgen05 shared-memory descriptor (bits 61-63) */
enum {
    TCGEN05_SWIZZLE_NONE = 0,
    TCGEN05_SWIZZLE_128B_BASE32B = 1, /* 128-byte swizzle with 32-byte atoms */
    TCGEN05_SWIZZLE_128B = 2,
    TCGEN05_SWIZZLE_64B = 4,
    TCGEN05_SWIZZLE_32B = 6
};

/* Instruction descriptor of tcgen05.mma .kind::f16 for an M x N x 16 MMA: d_f32 (1: fp32
 * accumulators, 0: fp16), ab_bf16 (1: A and B bf16, 0: fp16), a_mn_major / b_mn_major (1: the
 * operand is M- / N-major in shared memory, i.e. transposed; 0: K-major), cta_group (1 or 2).
 * Shapes (PTX ISA, kind::f16): cta_group 1: M = 64 with N % 8 == 0, or M = 128 with N % 16 == 0,
 * 8 / 16 <= N <= 256; cta_group 2: M = 128 or 256 with N % 16 == 0, 32 <= N <= 256.
 * Returns the descriptor, or 0 for a shape that does not exist (no valid descriptor is 0: M >> 4
 * is never 0). Dense, no negation, no saturation, no B shift. */
static inline IGEMM_HD uint32_t igemm_tcgen05_idesc_f16(int m, int n, int d_f32, int ab_bf16, int a_mn_major,
                                                        int b_mn_major, int cta_group)
{
    int ok;
    if (cta_group == 1)
        ok = (m == 64 && n % 8 == 0 && n >= 8 && n <= 256) || (m == 128 && n % 16 == 0 && n >= 16 && n <= 256);
    else if (cta_group == 2)
        ok = (m == 128 || m == 256) && n % 16 == 0 && n >= 32 && n <= 256;
    else
        ok = 0;
    if (!ok) return 0u;
    uint32_t d = 0;
    d |= (uint32_t)(d_f32 ? 1 : 0) << 4;      /* bits 4-5: D type, F16 = 0, F32 = 1 */
    d |= (uint32_t)(ab_bf16 ? 1 : 0) << 7;    /* bits 7-9: A type, F16 = 0, BF16 = 1 */
    d |= (uint32_t)(ab_bf16 ? 1 : 0) << 10;   /* bits 10-12: B type */
    d |= (uint32_t)(a_mn_major ? 1 : 0) << 15; /* bit 15: transpose A */
    d |= (uint32_t)(b_mn_major ? 1 : 0) << 16; /* bit 16: transpose B */
    d |= (uint32_t)(n >> 3) << 17;            /* bits 17-22: N >> 3 */
    d |= (uint32_t)(m >> 4) << 24;            /* bits 24-28: M >> 4 */
    return d;
}

/* Shared-memory matrix descriptor: smem_addr (shared-window byte address), lbo / sbo (leading /
 * stride dimension byte offsets, multiples of 16), base_offset (0-7: the pattern's start within
 * the swizzle repeat; 0 for tiles on the swizzle's alignment), swizzle (TCGEN05_SWIZZLE_*).
 * Address, LBO and SBO keep bits 4-17 (the 4 low bits are dropped). LBO mode 0 (relative). */
static inline IGEMM_HD uint64_t igemm_tcgen05_sdesc(uint32_t smem_addr, uint32_t lbo, uint32_t sbo, uint32_t base_offset,
                                                    uint32_t swizzle)
{
    uint64_t d = 0;
    d |= (uint64_t)((smem_addr & 0x3FFFFu) >> 4);       /* bits 0-13 */
    d |= (uint64_t)((lbo & 0x3FFFFu) >> 4) << 16;       /* bits 16-29 */
    d |= (uint64_t)((sbo & 0x3FFFFu) >> 4) << 32;       /* bits 32-45 */
    d |= (uint64_t)1 << 46;                             /* bits 46-48: fixed 0b001 */
    d |= (uint64_t)(base_offset & 7u) << 49;            /* bits 49-51 */
    d |= (uint64_t)(swizzle & 7u) << 61;                /* bits 61-63 */
    return d;
}

/* The descriptor of a K-major tile of 128-byte rows written by TMA with the 128-byte swizzle on a
 * 1024-byte boundary (the layout of the sm90 kernels' tiles): SBO 1024 (8 rows x 128 B), LBO 16
 * (unused for swizzled K-major), base offset 0. Advancing K by 16 bf16/f16 elements inside the
 * row is +32 bytes on the address (+2 on the encoded field), as on sm_90. */
static inline IGEMM_HD uint64_t igemm_tcgen05_sdesc_kmajor_sw128(uint32_t smem_addr)
{
    return igemm_tcgen05_sdesc(smem_addr, 16u, 1024u, 0u, TCGEN05_SWIZZLE_128B);
}

#endif /* IGEMM_SM100_TCGEN05_DESC_H */
