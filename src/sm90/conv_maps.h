/*
 * conv_maps.h — the tensor maps of the TMA conv kernels' operands (host, CUDA sources): x as the A
 * operand (the im2col 4-D map, or the tiled 2-D map [M, C] of an unpadded 1x1 stride-1 conv) and
 * the KRSC filter as B (a tiled 4-D map), both in boxes of 64 channels, 128-byte swizzled. Shared
 * by the sm90 conv family (family_conv.cu, whose header derives the im2col coordinates) and the
 * sm100 family (src/sm100/family_conv.cu).
 */
#ifndef IGEMM_SM90_CONV_MAPS_H
#define IGEMM_SM90_CONV_MAPS_H

#include "../tensor_map.h"
#include "sm90.h"

/* x as A in boxes of 64 channels x a_rows pixels: tiled 2-D {C, M} where sm90_a_is_matrix(p), else
 * im2col {C, W, H, N} with the bounding box of sm90_corners and the conv's traversal strides. */
static inline igemm_status_t igemm_conv_encode_x_map(const igemm_conv_params_t *p, int a_rows, CUtensorMap *map)
{
    if (sm90_a_is_matrix(p)) {
        const uint64_t dims[2] = {(uint64_t)p->c, (uint64_t)p->gemm_m};
        const uint64_t strides[1] = {(uint64_t)p->c * 2};
        const uint32_t box[2] = {SM90_BK, (uint32_t)a_rows};
        return igemm_tmap_encode_tiled(map, p->in_dtype, p->x, 2, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B);
    }
    int64_t lo_w, lo_h, up_w, up_h;
    sm90_corners(p, &lo_w, &lo_h, &up_w, &up_h);
    const uint64_t dims[4] = {(uint64_t)p->c, (uint64_t)p->w, (uint64_t)p->h, (uint64_t)p->n};
    const uint64_t strides[3] = {(uint64_t)p->c * 2, (uint64_t)(p->w * p->c * 2), (uint64_t)(p->h * p->w * p->c * 2)};
    const int lower[2] = {(int)lo_w, (int)lo_h};
    const int upper[2] = {(int)up_w, (int)up_h};
    const uint32_t es[4] = {1, (uint32_t)p->stride_w, (uint32_t)p->stride_h, 1};
    return igemm_tmap_encode_im2col(map, p->in_dtype, p->x, 4, dims, strides, lower, upper, SM90_BK, (uint32_t)a_rows,
                                    es, CU_TENSOR_MAP_SWIZZLE_128B);
}

/* The filter (KRSC, C = c / groups) in boxes of 64 channels x 1 x 1 x rows filters. */
static inline igemm_status_t igemm_conv_encode_w_map(const igemm_conv_params_t *p, int rows, CUtensorMap *map)
{
    const uint64_t dims[4] = {(uint64_t)p->cg, (uint64_t)p->s, (uint64_t)p->r, (uint64_t)p->k};
    const uint64_t strides[3] = {(uint64_t)p->cg * 2, (uint64_t)(p->s * p->cg * 2), (uint64_t)(p->r * p->s * p->cg * 2)};
    const uint32_t box[4] = {SM90_BK, 1, 1, (uint32_t)rows};
    return igemm_tmap_encode_tiled(map, p->in_dtype, p->filter, 4, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B);
}

#endif /* IGEMM_SM90_CONV_MAPS_H */
