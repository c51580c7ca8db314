/*
 * conv2d_direct.cu — the GPU oracle (IGEMM_PATH_DIRECT): a naive direct convolution.
 *
 * Algorithm: one thread per output element y[nn, oh, ow, ko] (grid-stride loop over the
 * N*P*Q*K outputs, all indices 64-bit), fp32 accumulation of x * w over the filter taps (r, s)
 * and the input channels of ko's group, in the order r, s, c; then the shared fused epilogue
 * (igemm_epilogue_value) and igemm_store_out. Taps outside [0,h) x [0,w) read zero, so
 * pad_bottom / pad_right are implied by p and q.
 * Layouts: x NHWC, w KRSC (C = c / groups), y and residual NHWC (N x P x Q x K).
 * Handles every valid shape (groups, dilation, asymmetric padding, any stride, tensors past
 * 2^31 elements), x/w in f16 or bf16 (element alignment suffices), y in f16, bf16 or f32.
 * No tensor cores, no shared memory, no PTX: plain CUDA C, 256 threads per block.
 * Deterministic: each output is summed by one thread in a fixed order.
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/epilogue.cuh"
#include "../internal.h"

#define DIRECT_THREADS 256
#define DIRECT_MAX_BLOCKS (1 << 20) /* grid-stride beyond this */

/* 16-bit input element as fp32; BF16 selects the type at compile time. */
template <bool BF16>
static __device__ __forceinline__ float direct_load_in(const uint16_t *base, int64_t idx)
{
    uint16_t v = __ldg(base + idx);
    if (BF16) return __bfloat162float(__ushort_as_bfloat16(v));
    return __half2float(__ushort_as_half(v));
}

template <bool BF16>
__global__ void __launch_bounds__(DIRECT_THREADS) conv2d_direct_kernel(const __grid_constant__ igemm_conv_params_t p)
{
    const uint16_t *x = (const uint16_t *)p.x;
    const uint16_t *w = (const uint16_t *)p.filter;
    const int64_t total = p.gemm_m * p.k;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += step) {
        const int64_t ko = idx % p.k;
        const int64_t m = idx / p.k;
        const int64_t ow = m % p.q;
        const int64_t t = m / p.q;
        const int64_t oh = t % p.p;
        const int64_t nn = t / p.p;
        const int64_t g = ko / p.kg;
        const int64_t ih0 = oh * p.stride_h - p.pad_top;
        const int64_t iw0 = ow * p.stride_w - p.pad_left;
        const int64_t xc0 = g * p.cg;                 /* first input channel of the group */
        const int64_t xn = nn * p.h * p.w * p.c;      /* image base */
        const int64_t wk = ko * p.r * p.s * p.cg;     /* filter base */
        float acc = 0.0f;
        for (int64_t r = 0; r < p.r; ++r) {
            const int64_t ih = ih0 + r * p.dil_h;
            if (ih < 0 || ih >= p.h) continue;
            for (int64_t s = 0; s < p.s; ++s) {
                const int64_t iw = iw0 + s * p.dil_w;
                if (iw < 0 || iw >= p.w) continue;
                const uint16_t *xp = x + xn + (ih * p.w + iw) * p.c + xc0;
                const uint16_t *wp = w + wk + (r * p.s + s) * p.cg;
                for (int64_t ci = 0; ci < p.cg; ++ci)
                    acc = fmaf(direct_load_in<BF16>(xp, ci), direct_load_in<BF16>(wp, ci), acc);
            }
        }
        const float v = igemm_epilogue_value(&p, acc, ko, idx);
        igemm_store_out(p.y, idx, p.out_dtype, v);
    }
}

static int direct_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                           char *why, size_t why_len)
{
    if (h->kernel != IGEMM_KERNEL_AUTO) {
        if (why && why_len) snprintf(why, why_len, "hints.kernel = %d names an sm90 kernel", h->kernel);
        return 0;
    }
    if (dev->cc_major < 5) {
        if (why && why_len) snprintf(why, why_len, "needs compute capability >= 5.0, device has %d.%d",
                                     dev->cc_major, dev->cc_minor);
        return 0;
    }
    return 1;
}

/* The grid of the direct kernel: a thread per output element, at most DIRECT_MAX_BLOCKS blocks. */
static int direct_grid(const igemm_conv_params_t *p)
{
    const int64_t total = p->gemm_m * p->k;
    int64_t blocks = (total + DIRECT_THREADS - 1) / DIRECT_THREADS;
    if (blocks > DIRECT_MAX_BLOCKS) blocks = DIRECT_MAX_BLOCKS;
    if (blocks < 1) blocks = 1;
    return (int)blocks;
}

static igemm_status_t direct_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                       const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    (void)dev;
    (void)h;
    cfg->workspace_bytes = 0;
    snprintf(cfg->desc, sizeof cfg->desc,
             "direct conv, one thread per output, fp32 accumulate (%d blocks x %d threads, grid-stride)", direct_grid(p),
             DIRECT_THREADS);
    return IGEMM_STATUS_SUCCESS;
}

static igemm_status_t direct_run(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                                 void *state, void *stream, const igemm_inner_t *inner)
{
    (void)cfg;
    (void)workspace;
    (void)state;
    (void)inner;
    cudaStream_t st = (cudaStream_t)stream;
    const int grid = direct_grid(p);
    if (p->in_dtype == IGEMM_DTYPE_BF16)
        conv2d_direct_kernel<true><<<grid, DIRECT_THREADS, 0, st>>>(*p);
    else
        conv2d_direct_kernel<false><<<grid, DIRECT_THREADS, 0, st>>>(*p);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "direct conv launch: %s", cudaGetErrorString(e));
    return IGEMM_STATUS_SUCCESS;
}

extern "C" const igemm_family_t igemm_family_direct = {
    "direct", IGEMM_PATH_DIRECT, 0, direct_supports, direct_configure, NULL, direct_run,
};
