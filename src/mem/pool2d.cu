/*
 * pool2d.cu — max and average pooling over NHWC (igemm_maxpool2d, igemm_avgpool2d): memory-bound
 * kernels, judged against their bytes floor (x read once, y written once).
 *
 * Algorithm (maxpool2d_kernel<T2, V, I>): one thread per (output pixel, group of V channels), grid-stride over
 * N * P * Q * C / V: V = 8 (one 16-byte load per in-image tap, one 16-byte store) when C % 8 == 0
 * and both pointers are 16-byte aligned, else V = 1. The window's in-image taps are read in
 * (r, s) order and the max kept per channel with __hmax2_nan / __hmax_nan (NaN propagates, as in
 * PyTorch); the start value -inf is what a window with no tap inside the input returns. Threads
 * of a warp take consecutive channel groups of neighbouring pixels, so each tap's loads are
 * coalesced; the overlapping windows (3x3, stride 2) re-read their shared rows from L2. Index
 * math in 32 bits when every index fits, else 64.
 * Average (avgpool2d_kernel<T2, V, I>, the same threads and loads): the taps summed in fp32 per
 * channel, times the reciprocal of the window's divisor (MUFU, within 2 fp32 ulp) (its taps inside the padded input, or inside x without
 * count_include_pad; pool.h igemm_pool_divisor), rounded once; 0 for an empty window.
 * Layouts: x N x H x W x C, y N x P x Q x C, f16 or bf16. PTX: griddepcontrol on sm_90 (the
 * launch carries programmatic stream serialisation there when the driver is CUDA 12.3+, so it
 * overlaps the kernel before it; the wait comes before the first read of x).
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "../common/launch.h"
#include "../error.h"
#include "../pool.h"
#include "../ptx/griddepcontrol.cuh"

#define POOL_THREADS 256

typedef struct pool_args {
    const void *x;
    void *y;
    int64_t n, h, w, c, p, q, r, s;
    int64_t pad_top, pad_left, stride_h, stride_w, dil_h, dil_w;
    int64_t pad_bottom, pad_right;
    int count_include_pad;
} pool_args_t;

static __device__ __forceinline__ void pool_griddep(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_wait();
    ptx_griddepcontrol_launch_dependents();
#endif
}

/* the pair type's -inf and max (NaN wins) */
template <typename T2> struct pool_ops;
template <> struct pool_ops<__half2> {
    typedef __half T;
    static __device__ __forceinline__ float2 to_float2(__half2 v) { return __half22float2(v); }
    static __device__ __forceinline__ __half2 from_float2(float a, float b) { return __floats2half2_rn(a, b); }
    static __device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
    static __device__ __forceinline__ __half from_float(float v) { return __float2half_rn(v); }
    static __device__ __forceinline__ __half neg_inf() { return __ushort_as_half(0xfc00u); }
    static __device__ __forceinline__ __half2 max2(__half2 a, __half2 b) { return __hmax2_nan(a, b); }
    static __device__ __forceinline__ __half max1(__half a, __half b) { return __hmax_nan(a, b); }
};
template <> struct pool_ops<__nv_bfloat162> {
    typedef __nv_bfloat16 T;
    static __device__ __forceinline__ float2 to_float2(__nv_bfloat162 v) { return __bfloat1622float2(v); }
    static __device__ __forceinline__ __nv_bfloat162 from_float2(float a, float b) { return __floats2bfloat162_rn(a, b); }
    static __device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
    static __device__ __forceinline__ __nv_bfloat16 from_float(float v) { return __float2bfloat16_rn(v); }
    static __device__ __forceinline__ __nv_bfloat16 neg_inf() { return __ushort_as_bfloat16(0xff80u); }
    static __device__ __forceinline__ __nv_bfloat162 max2(__nv_bfloat162 a, __nv_bfloat162 b) { return __hmax2_nan(a, b); }
    static __device__ __forceinline__ __nv_bfloat16 max1(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmax_nan(a, b); }
};

/* What one thread loads per tap: V = 8 channels as a uint4 (16-byte load, 4 pair maxes) or one
 * channel. */
template <typename T2, int V> struct pool_unit;
template <typename T2> struct pool_unit<T2, 8> {
    typedef uint4 U;
    static __device__ __forceinline__ U neg_inf()
    {
        const typename pool_ops<T2>::T ni = pool_ops<T2>::neg_inf();
        const uint32_t p = (uint32_t)(*(const uint16_t *)&ni) * 0x10001u;
        return make_uint4(p, p, p, p);
    }
    static __device__ __forceinline__ U load(const U *src) { return __ldg(src); }
    static __device__ __forceinline__ U max(U a, U v)
    {
        T2 *pa = (T2 *)&a;
        const T2 *pv = (const T2 *)&v;
#pragma unroll
        for (int j = 0; j < 4; j++) pa[j] = pool_ops<T2>::max2(pa[j], pv[j]);
        return a;
    }
};
template <typename T2> struct pool_unit<T2, 1> {
    typedef typename pool_ops<T2>::T U;
    static __device__ __forceinline__ U neg_inf() { return pool_ops<T2>::neg_inf(); }
    static __device__ __forceinline__ U load(const U *src) { return *src; }
    static __device__ __forceinline__ U max(U a, U v) { return pool_ops<T2>::max1(a, v); }
};

/* V = 8 (C % 8 == 0, 16-byte aligned pointers) or V = 1 (any C, 2-byte alignment) */
template <typename T2, int V, typename I>
__global__ void __launch_bounds__(POOL_THREADS) maxpool2d_kernel(const __grid_constant__ pool_args_t a)
{
    typedef pool_unit<T2, V> unit;
    typedef typename unit::U U;
    pool_griddep();
    const I groups = (I)(a.c / V);
    const I total = (I)(a.n * a.p * a.q) * groups;
    const I h = (I)a.h, w = (I)a.w, p = (I)a.p, q = (I)a.q;
    const U *x = (const U *)a.x;
    U *y = (U *)a.y;
    for (I i = (I)blockIdx.x * POOL_THREADS + threadIdx.x; i < total; i += (I)gridDim.x * POOL_THREADS) {
        const I g = i % groups;
        const I m = i / groups;
        const I ow = m % q;
        const I t = m / q;
        const I oh = t % p;
        const I nn = t / p;
        const I ih0 = oh * (I)a.stride_h - (I)a.pad_top;
        const I iw0 = ow * (I)a.stride_w - (I)a.pad_left;
        U best = unit::neg_inf();
        for (I r = 0; r < (I)a.r; r++) {
            const I ih = ih0 + r * (I)a.dil_h;
            if (ih < 0 || ih >= h) continue;
            const I row = (nn * h + ih) * w;
            for (I s = 0; s < (I)a.s; s++) {
                const I iw = iw0 + s * (I)a.dil_w;
                if (iw < 0 || iw >= w) continue;
                best = unit::max(best, unit::load(x + (row + iw) * groups + g));
            }
        }
        y[i] = best;
    }
}

/* the fp32 sums of V channels: add a tap, write the averages */
template <typename T2, int V> struct avg_unit;
template <typename T2> struct avg_unit<T2, 8> {
    typedef uint4 U;
    static __device__ __forceinline__ void add(float (&acc)[8], const U *src)
    {
        U v = __ldg(src);
        const T2 *pv = (const T2 *)&v;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const float2 f = pool_ops<T2>::to_float2(pv[j]);
            acc[2 * j] += f.x;
            acc[2 * j + 1] += f.y;
        }
    }
    static __device__ __forceinline__ void store(U *dst, const float (&acc)[8], float div)
    {
        const float k = div > 0.f ? __fdividef(1.f, div) : 0.f; /* (no division subroutine per element) */
        U out;
        T2 *po = (T2 *)&out;
#pragma unroll
        for (int j = 0; j < 4; j++) po[j] = pool_ops<T2>::from_float2(k * acc[2 * j], k * acc[2 * j + 1]);
        *dst = out;
    }
};
template <typename T2> struct avg_unit<T2, 1> {
    typedef typename pool_ops<T2>::T U;
    static __device__ __forceinline__ void add(float (&acc)[1], const U *src) { acc[0] += pool_ops<T2>::to_float(*src); }
    static __device__ __forceinline__ void store(U *dst, const float (&acc)[1], float div)
    {
        *dst = pool_ops<T2>::from_float(div > 0.f ? acc[0] * __fdividef(1.f, div) : 0.f);
    }
};

template <typename T2, int V, typename I>
__global__ void __launch_bounds__(POOL_THREADS, 1) avgpool2d_kernel(const __grid_constant__ pool_args_t a)
{
    typedef avg_unit<T2, V> unit;
    typedef typename unit::U U;
    pool_griddep();
    const I groups = (I)(a.c / V);
    const I total = (I)(a.n * a.p * a.q) * groups;
    const I h = (I)a.h, w = (I)a.w, p = (I)a.p, q = (I)a.q;
    /* the divisor's bounds: the padded input, or x itself */
    const I lo_h = a.count_include_pad ? -(I)a.pad_top : 0, hi_h = a.count_include_pad ? h + (I)a.pad_bottom : h;
    const I lo_w = a.count_include_pad ? -(I)a.pad_left : 0, hi_w = a.count_include_pad ? w + (I)a.pad_right : w;
    const U *x = (const U *)a.x;
    U *y = (U *)a.y;
    for (I i = (I)blockIdx.x * POOL_THREADS + threadIdx.x; i < total; i += (I)gridDim.x * POOL_THREADS) {
        const I g = i % groups;
        const I m = i / groups;
        const I ow = m % q;
        const I t = m / q;
        const I oh = t % p;
        const I nn = t / p;
        const I ih0 = oh * (I)a.stride_h - (I)a.pad_top;
        const I iw0 = ow * (I)a.stride_w - (I)a.pad_left;
        float acc[V];
#pragma unroll
        for (int j = 0; j < V; j++) acc[j] = 0.f;
        I rows = 0, cols = 0;
        for (I s = 0; s < (I)a.s; s++) {
            const I iw = iw0 + s * (I)a.dil_w;
            cols += iw >= lo_w && iw < hi_w;
        }
        for (I r = 0; r < (I)a.r; r++) {
            const I ih = ih0 + r * (I)a.dil_h;
            rows += ih >= lo_h && ih < hi_h;
            if (ih < 0 || ih >= h) continue;
            const I row = (nn * h + ih) * w;
            for (I s = 0; s < (I)a.s; s++) {
                const I iw = iw0 + s * (I)a.dil_w;
                if (iw < 0 || iw >= w) continue;
                unit::add(acc, x + (row + iw) * groups + g);
            }
        }
        unit::store(y + i, acc, (float)(rows * cols));
    }
}

/* One launch of the max (avg = 0) or average pooling instance <T2, VEC, I>. */
template <typename T2, int VEC, typename I>
static cudaError_t pool_launch_instance(const cudaLaunchConfig_t *lc, const pool_args_t &a, int avg)
{
    return avg ? cudaLaunchKernelEx(lc, avgpool2d_kernel<T2, VEC, I>, a)
               : cudaLaunchKernelEx(lc, maxpool2d_kernel<T2, VEC, I>, a);
}

template <typename T2>
static cudaError_t pool_launch_dtype(const pool_args_t &a, int avg, int vec, int small, int pdl, void *stream)
{
    const int64_t total = a.n * a.p * a.q * (vec ? a.c / 8 : a.c);
    int64_t blocks = (total + POOL_THREADS - 1) / POOL_THREADS;
    if (blocks > (1 << 20)) blocks = 1 << 20; /* grid-stride beyond */
    cudaLaunchConfig_t lc;
    cudaLaunchAttribute attr[1];
    igemm_launch_config_1d(&lc, attr, (unsigned)blocks, POOL_THREADS, 0, stream, pdl);
    if (vec)
        return small ? pool_launch_instance<T2, 8, int32_t>(&lc, a, avg)
                     : pool_launch_instance<T2, 8, int64_t>(&lc, a, avg);
    return small ? pool_launch_instance<T2, 1, int32_t>(&lc, a, avg)
                 : pool_launch_instance<T2, 1, int64_t>(&lc, a, avg);
}

/* Whether launches on device dev may carry programmatic stream serialisation: sm_90+ and a driver
 * of CUDA 12.3+ (older drivers reject it inside graph capture). Asked once per device and process
 * (a race only repeats the query); 0 with *e set on a CUDA error. */
static int pool_pdl_ok(int dev, cudaError_t *e)
{
    static int cache[64]; /* 0 unknown, 1 yes, 2 no */
    if (dev >= 0 && dev < 64 && cache[dev]) return cache[dev] == 1;
    int major = 0, drv = 0;
    *e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    if (*e != cudaSuccess) return 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    const int ok = major >= 9 && drv >= 12030;
    if (dev >= 0 && dev < 64) cache[dev] = ok ? 1 : 2;
    return ok;
}

/* max (avg = 0) or average pooling of a valid problem */
static igemm_status_t pool_launch(const igemm_pool_params_t *p, int avg, int count_include_pad, const void *x, void *y,
                                  void *stream)
{
    pool_args_t a;
    memset(&a, 0, sizeof a);
    a.x = x, a.y = y;
    a.n = p->n, a.h = p->h, a.w = p->w, a.c = p->c, a.p = p->p, a.q = p->q, a.r = p->r, a.s = p->s;
    a.pad_top = p->pad_top, a.pad_left = p->pad_left, a.stride_h = p->stride_h, a.stride_w = p->stride_w;
    a.dil_h = p->dil_h, a.dil_w = p->dil_w;
    a.pad_bottom = p->pad_bottom, a.pad_right = p->pad_right, a.count_include_pad = count_include_pad;
    const int vec = p->c % 8 == 0 && ((uintptr_t)x % 16) == 0 && ((uintptr_t)y % 16) == 0;
    /* 32-bit indices: every element index of x and y, and the grid-stride counter's last step
     * (total + the grid's thread count), below 2^31 */
    const int small = p->x_elems < ((int64_t)1 << 30) && p->y_elems < ((int64_t)1 << 30);
    int dev = 0, pdl = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) pdl = pool_pdl_ok(dev, &e);
    if (e == cudaSuccess)
        e = p->dtype == IGEMM_DTYPE_BF16 ? pool_launch_dtype<__nv_bfloat162>(a, avg, vec, small, pdl, stream)
                                         : pool_launch_dtype<__half2>(a, avg, vec, small, pdl, stream);
    if (e == cudaSuccess) e = cudaGetLastError();
    else (void)cudaGetLastError();
    if (e != cudaSuccess)
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "%s launch: %s (%s)", avg ? "avgpool2d" : "maxpool2d",
                               cudaGetErrorString(e), cudaGetErrorName(e));
    return IGEMM_STATUS_SUCCESS;
}

extern "C" igemm_status_t igemm_maxpool2d_launch(const igemm_pool_params_t *p, const void *x, void *y, void *stream)
{
    return pool_launch(p, 0, 0, x, y, stream);
}

extern "C" igemm_status_t igemm_avgpool2d_launch(const igemm_pool_params_t *p, int count_include_pad, const void *x,
                                                 void *y, void *stream)
{
    return pool_launch(p, 1, count_include_pad, x, y, stream);
}
