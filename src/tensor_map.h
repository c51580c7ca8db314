/*
 * tensor_map.h — host-side TMA descriptor (CUtensorMap) encoding for the sm90 path.
 *
 * The driver functions cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col are reached through
 * cudaGetDriverEntryPointByVersion, so libigemm never links against libcuda. Encoding is pure
 * host work (no allocation, no synchronisation, no CUDA context needed): safe inside run().
 *
 * Declared for C11 host code built with IGEMM_HAVE_CUDA and for CUDA sources (nvcc).
 */
#ifndef IGEMM_TENSOR_MAP_H
#define IGEMM_TENSOR_MAP_H

#if defined(IGEMM_HAVE_CUDA) || defined(__CUDACC__)

#include <cuda.h> /* CUtensorMap and its enums only; no libcuda symbol is referenced */
#include <stdint.h>

#include "error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Encodes a tiled tensor map. dtype: F16, BF16 or F32. rank 1..5; dims[rank] in elements
 * (innermost first); strides[rank-1] are the byte strides of dims 1..rank-1 (multiples of 16,
 * < 2^40); box[rank] in elements (<= 256; box[0]*elem_size a multiple of 16 and, when
 * swizzled, <= the swizzle span); elementStrides all 1. OOB elements read as zero.
 * base must be 16-byte aligned; map must be 64-byte aligned.
 * Returns SUCCESS, or INTERNAL_ERROR / CUDA_ERROR with igemm_set_error naming what failed. */
igemm_status_t igemm_tmap_encode_tiled(CUtensorMap *map, igemm_dtype_t dtype, const void *base, uint32_t rank,
                                       const uint64_t *dims, const uint64_t *strides, const uint32_t *box,
                                       CUtensorMapSwizzle swizzle);

/* Encodes an im2col tensor map over a rank-3..5 channels-last tensor (dims innermost first:
 * C, W[, H[, D]], N). lower/upper: rank-2 bounding-box corners, innermost spatial dim first
 * (W, H, D); elem_strides[rank]: traversal strides (elem_strides[0] ignored, 1).
 * channels_per_pixel <= 256, pixels_per_column <= 1024. OOB elements read as zero.
 * Same alignment rules and return values as igemm_tmap_encode_tiled. */
igemm_status_t igemm_tmap_encode_im2col(CUtensorMap *map, igemm_dtype_t dtype, const void *base, uint32_t rank,
                                        const uint64_t *dims, const uint64_t *strides, const int *lower,
                                        const int *upper, uint32_t channels_per_pixel,
                                        uint32_t pixels_per_column, const uint32_t *elem_strides,
                                        CUtensorMapSwizzle swizzle);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_HAVE_CUDA || __CUDACC__ */

#endif /* IGEMM_TENSOR_MAP_H */
