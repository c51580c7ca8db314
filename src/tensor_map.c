/*
 * tensor_map.c — TMA descriptor encoding through the driver entry points (see tensor_map.h).
 *
 * The two driver functions are looked up once per process (pthread_once) with
 * cudaGetDriverEntryPointByVersion(..., 12000, ...): both exist since CUDA 12.0 with the
 * signatures typedef'd below, so the ABI we call is pinned whatever the installed driver.
 */
#ifdef IGEMM_HAVE_CUDA

#include "tensor_map.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h> /* memcpy: object -> function pointer without a pedantic cast */

typedef CUresult (*igemm_pfn_encode_tiled)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                           const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                           const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                           CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
typedef CUresult (*igemm_pfn_encode_im2col)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                            const cuuint64_t *, const cuuint64_t *, const int *, const int *,
                                            cuuint32_t, cuuint32_t, const cuuint32_t *, CUtensorMapInterleave,
                                            CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static igemm_pfn_encode_tiled g_encode_tiled;
static igemm_pfn_encode_im2col g_encode_im2col;
static cudaError_t g_lookup_error = cudaSuccess;

static void lookup_entry_points(void)
{
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q);
    if (e == cudaSuccess && q == cudaDriverEntryPointSuccess) memcpy(&g_encode_tiled, &fn, sizeof fn);
    else g_lookup_error = e != cudaSuccess ? e : cudaErrorSymbolNotFound;
    fn = NULL;
    q = cudaDriverEntryPointSymbolNotFound;
    e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeIm2col", &fn, 12000, cudaEnableDefault, &q);
    if (e == cudaSuccess && q == cudaDriverEntryPointSuccess) memcpy(&g_encode_im2col, &fn, sizeof fn);
    else g_lookup_error = e != cudaSuccess ? e : cudaErrorSymbolNotFound;
    (void)cudaGetLastError(); /* a failed lookup must not leave a sticky error for the caller */
}

static igemm_status_t lookup_fail(const char *what)
{
    return igemm_set_error(IGEMM_STATUS_CUDA_ERROR,
                           "%s: driver entry point not found through cudaGetDriverEntryPointByVersion "
                           "(%s); the driver is too old for TMA (needs CUDA 12.0+)",
                           what, cudaGetErrorString(g_lookup_error));
}

static int tmap_dtype(igemm_dtype_t d, CUtensorMapDataType *t, uint32_t *size)
{
    switch (d) {
    case IGEMM_DTYPE_F16: *t = CU_TENSOR_MAP_DATA_TYPE_FLOAT16; *size = 2; return 1;
    case IGEMM_DTYPE_BF16: *t = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16; *size = 2; return 1;
    case IGEMM_DTYPE_F32: *t = CU_TENSOR_MAP_DATA_TYPE_FLOAT32; *size = 4; return 1;
    }
    return 0;
}

igemm_status_t igemm_tmap_encode_tiled(CUtensorMap *map, igemm_dtype_t dtype, const void *base, uint32_t rank,
                                       const uint64_t *dims, const uint64_t *strides, const uint32_t *box,
                                       CUtensorMapSwizzle swizzle)
{
    CUtensorMapDataType t;
    uint32_t esize;
    cuuint64_t d[5], s[4];
    cuuint32_t b[5], es[5];
    if (!tmap_dtype(dtype, &t, &esize))
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "tensor map: dtype = %d: not a TMA type", (int)dtype);
    if (rank < 1 || rank > 5)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "tensor map: rank = %u: must be 1..5", rank);
    if (((uintptr_t)map % 64) != 0 || ((uintptr_t)base % 16) != 0)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR,
                               "tensor map: map = %p must be 64-byte and base = %p 16-byte aligned", (void *)map,
                               base);
    pthread_once(&g_once, lookup_entry_points);
    if (g_encode_tiled == NULL) return lookup_fail("cuTensorMapEncodeTiled");
    for (uint32_t i = 0; i < rank; i++) {
        d[i] = dims[i];
        b[i] = box[i];
        es[i] = 1;
        if (i + 1 < rank) s[i] = strides[i];
    }
    CUresult r = g_encode_tiled(map, t, rank, (void *)base, d, s, b, es, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                                CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR,
                               "cuTensorMapEncodeTiled failed (CUresult %d): rank %u, dims {%llu, %llu, %llu, %llu, "
                               "%llu}, box {%u, %u, %u, %u, %u}, swizzle %d",
                               (int)r, rank, (unsigned long long)dims[0],
                               (unsigned long long)(rank > 1 ? dims[1] : 0),
                               (unsigned long long)(rank > 2 ? dims[2] : 0),
                               (unsigned long long)(rank > 3 ? dims[3] : 0),
                               (unsigned long long)(rank > 4 ? dims[4] : 0), box[0], rank > 1 ? box[1] : 0,
                               rank > 2 ? box[2] : 0, rank > 3 ? box[3] : 0, rank > 4 ? box[4] : 0, (int)swizzle);
    return IGEMM_STATUS_SUCCESS;
}

igemm_status_t igemm_tmap_encode_im2col(CUtensorMap *map, igemm_dtype_t dtype, const void *base, uint32_t rank,
                                        const uint64_t *dims, const uint64_t *strides, const int *lower,
                                        const int *upper, uint32_t channels_per_pixel,
                                        uint32_t pixels_per_column, const uint32_t *elem_strides,
                                        CUtensorMapSwizzle swizzle)
{
    CUtensorMapDataType t;
    uint32_t esize;
    cuuint64_t d[5], s[4];
    cuuint32_t es[5];
    int lo[3], up[3];
    if (!tmap_dtype(dtype, &t, &esize))
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "im2col tensor map: dtype = %d: not a TMA type",
                               (int)dtype);
    if (rank < 3 || rank > 5)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR, "im2col tensor map: rank = %u: must be 3..5", rank);
    if (((uintptr_t)map % 64) != 0 || ((uintptr_t)base % 16) != 0)
        return igemm_set_error(IGEMM_STATUS_INTERNAL_ERROR,
                               "im2col tensor map: map = %p must be 64-byte and base = %p 16-byte aligned",
                               (void *)map, base);
    pthread_once(&g_once, lookup_entry_points);
    if (g_encode_im2col == NULL) return lookup_fail("cuTensorMapEncodeIm2col");
    for (uint32_t i = 0; i < rank; i++) {
        d[i] = dims[i];
        es[i] = elem_strides[i];
        if (i + 1 < rank) s[i] = strides[i];
    }
    for (uint32_t i = 0; i + 2 < rank; i++) {
        lo[i] = lower[i];
        up[i] = upper[i];
    }
    CUresult r = g_encode_im2col(map, t, rank, (void *)base, d, s, lo, up, channels_per_pixel, pixels_per_column,
                                 es, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR,
                               "cuTensorMapEncodeIm2col failed (CUresult %d): rank %u, dims {%llu, %llu, %llu, "
                               "%llu}, lower corner {%d, %d}, upper corner {%d, %d}, channels/pixel %u, "
                               "pixels/column %u, traversal strides {%u, %u}",
                               (int)r, rank, (unsigned long long)dims[0], (unsigned long long)dims[1],
                               (unsigned long long)dims[2], (unsigned long long)(rank > 3 ? dims[3] : 0), lo[0],
                               rank > 3 ? lo[1] : 0, up[0], rank > 3 ? up[1] : 0, channels_per_pixel,
                               pixels_per_column, elem_strides[1], rank > 3 ? elem_strides[2] : 0);
    return IGEMM_STATUS_SUCCESS;
}

#else  /* !IGEMM_HAVE_CUDA */

/* ISO C forbids an empty translation unit. */
typedef int igemm_tensor_map_unused;

#endif /* IGEMM_HAVE_CUDA */
