/*
 * depthwise_strip.cuh — the depthwise family's strip kernel (dw_kernel; included by depthwise.cu,
 * which plans and launches it): depthwise convs the tiled and mma kernels do not take (filters of
 * more than 50 taps; images of 2^31 elements or more; devices below sm_80 for the mma kernel).
 *
 * Algorithm: a CTA of CBV x TY threads owns CB = 8 * CBV consecutive channels and loops over
 * output strips (image, output row, OWT consecutive output columns); thread (cv, ty) computes
 * channels c0 + 8cv .. +7 of its strips, fp32 FMA, with the CTA's filters staged once in shared
 * memory as fp32 [tap][channel]. Compiled windows (S_T = 3, 5, 7): per filter row the strip's
 * window, (OWT - 1) * SW + S_T columns of 16-byte loads, each column multiplied into every output
 * of the strip that covers it; the generic instance (S_T = 0): taps and strides at run time, one
 * 16-byte load per tap and output. The fused epilogue per 8 channels (16-byte residual loads and y
 * stores). Layouts: x N x H x W x C, w C x R x S, y N x P x Q x C. PTX: griddepcontrol on sm_90.
 */
#ifndef IGEMM_MEM_DEPTHWISE_STRIP_CUH
#define IGEMM_MEM_DEPTHWISE_STRIP_CUH

/* Eight 16-bit elements (one 16-byte vector) as fp32. */
template <typename T2>
static __device__ __forceinline__ void dw_unpack8(uint4 u, float f[8])
{
    const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const float2 t = dw_f2(*(const T2 *)&w[i]);
        f[2 * i] = t.x, f[2 * i + 1] = t.y;
    }
}

/* Eight 16-bit elements at p (16-byte aligned) as fp32. */
template <typename T2>
static __device__ __forceinline__ void dw_load8(const void *p, float f[8])
{
    dw_unpack8<T2>(__ldg((const uint4 *)p), f);
}

/* The NCOL input vectors V (uint4: 8 channels, uint32_t: a channel pair) of channels ch.. at row
 * ih, columns iw0 .. iw0 + NCOL - 1 of image n (zero outside the input): all loads issued before
 * any is used. */
template <int NCOL, typename V, typename T>
static __device__ __forceinline__ void dw_window(V (&v)[NCOL], const T *x, const igemm_conv_params_t &p, int64_t n,
                                                 int64_t ih, int64_t iw0, int64_t ch)
{
    const bool row_ok = ih >= 0 && ih < p.h;
    /* the valid columns lo .. hi-1 of the window (32-bit compares per column), the offsets from
     * its first column in 32 bits (NCOL * c < 2^31: the planner's condition) */
    const int lo = row_ok ? (iw0 < 0 ? (int)(-iw0 < NCOL ? -iw0 : NCOL) : 0) : NCOL;
    const int hi = p.w - iw0 < NCOL ? (int)(p.w - iw0) : NCOL;
    const T *x0 = x + ((n * p.h + (row_ok ? ih : 0)) * p.w) * p.c + ch + (iw0 + lo) * p.c;
    const int c32 = (int)p.c;
#pragma unroll
    for (int j = 0; j < NCOL; j++) v[j] = j >= lo && j < hi ? __ldg((const V *)(x0 + (j - lo) * c32)) : V{};
}

/* The fp32 weights of 8 channels at shared address w (16-byte aligned). */
static __device__ __forceinline__ void dw_wload8(const float *w, float v[8])
{
    const float4 w0 = *(const float4 *)w, w1 = *(const float4 *)(w + 4);
    v[0] = w0.x, v[1] = w0.y, v[2] = w0.z, v[3] = w0.w, v[4] = w1.x, v[5] = w1.y, v[6] = w1.z, v[7] = w1.w;
}

/* Strip st as (column strip qi, output row oh, image n): 32-bit multiply-shift divisions where
 * the strips fit 31 bits (64-bit division costs ~70 instructions), else 64-bit. */
static __device__ __forceinline__ void dw_decode(const dw_args_t &a, int64_t st, int64_t &qi, int64_t &oh, int64_t &n)
{
    if (a.fd_ok) {
        const int s32 = (int)st, row = igemm_fastdiv_div(s32, a.fd_qs), img = igemm_fastdiv_div(row, a.fd_p);
        qi = s32 - row * a.fd_qs.d, oh = row - img * a.fd_p.d, n = img;
    } else {
        const int64_t row = st / a.qs;
        qi = st - row * a.qs, oh = row % a.p.p, n = row / a.p.p;
    }
}

/* acc[0..7] += w[0..7] * x[0..7] */
static __device__ __forceinline__ void dw_fma8(float acc[8], const float w[8], const float x[8])
{
#pragma unroll
    for (int i = 0; i < 8; i++) acc[i] = fmaf(w[i], x[i], acc[i]);
}

/* The residual's 8 channels at element index yidx (NHWC, the output type) as fp32. Shared by the
 * strip and the TMA kernels. */
static __device__ __forceinline__ void dw_residual8(const igemm_conv_params_t &p, int64_t yidx, float res[8])
{
    if (p.out_dtype == IGEMM_DTYPE_F32) {
        const float4 r0 = __ldg((const float4 *)((const float *)p.residual + yidx));
        const float4 r1 = __ldg((const float4 *)((const float *)p.residual + yidx) + 1);
        res[0] = r0.x, res[1] = r0.y, res[2] = r0.z, res[3] = r0.w, res[4] = r1.x, res[5] = r1.y, res[6] = r1.z,
        res[7] = r1.w;
    } else if (p.out_dtype == IGEMM_DTYPE_F16) {
        dw_load8<__half2>((const __half *)p.residual + yidx, res);
    } else {
        dw_load8<__nv_bfloat162>((const __nv_bfloat16 *)p.residual + yidx, res);
    }
}

/* 8 fp32 values v stored to y at element index yidx (16- or 32-byte stores in the output type).
 * Shared by the strip and the TMA kernels. */
static __device__ __forceinline__ void dw_store8(const igemm_conv_params_t &p, const float v[8], int64_t yidx)
{
    if (p.out_dtype == IGEMM_DTYPE_F32) {
        float4 *d = (float4 *)((float *)p.y + yidx);
        d[0] = make_float4(v[0], v[1], v[2], v[3]);
        d[1] = make_float4(v[4], v[5], v[6], v[7]);
    } else {
        uint32_t w[4];
#pragma unroll
        for (int i = 0; i < 4; i++) {
            if (p.out_dtype == IGEMM_DTYPE_F16) {
                const __half2 h = __floats2half2_rn(v[2 * i], v[2 * i + 1]);
                w[i] = *(const uint32_t *)&h;
            } else {
                const __nv_bfloat162 h = __floats2bfloat162_rn(v[2 * i], v[2 * i + 1]);
                w[i] = *(const uint32_t *)&h;
            }
        }
        *(uint4 *)((uint16_t *)p.y + yidx) = make_uint4(w[0], w[1], w[2], w[3]);
    }
}

/* The epilogue of 8 channels ch.. of output element index yidx (NHWC), stored to y. */
static __device__ __forceinline__ void dw_epilogue8(const igemm_conv_params_t &p, const float acc[8], int64_t ch,
                                                    int64_t yidx)
{
    float v[8], res[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    if (p.has_residual) dw_residual8(p, yidx, res);
#pragma unroll
    for (int i = 0; i < 8; i++) {
        float t = p.alpha * acc[i];
        if (p.has_scale) t *= __ldg(p.scale + ch + i);
        if (p.has_bias) t += __ldg(p.bias + ch + i);
        if (p.has_residual) t += p.beta * res[i];
        v[i] = t;
    }
    if (p.act == IGEMM_ACT_RELU) {
#pragma unroll
        for (int i = 0; i < 8; i++) v[i] = fmaxf(v[i], 0.0f);
    } else if (p.act != IGEMM_ACT_NONE) {
#pragma unroll
        for (int i = 0; i < 8; i++) v[i] = igemm_act_dev_noinline(p.act, v[i], p.act_param);
    }
    dw_store8(p, v, yidx);
}

/* The CTA's prologue: after the programmatic-launch wait, the filters of channels c0 .. c0+CB-1
 * into shared memory as fp32 [tap][CB] (read in the filter's [channel][tap] order: coalesced;
 * channels past c zero), the barrier, then the dependents' trigger. */
template <typename T>
static __device__ __forceinline__ void dw_stage_filters(float *wsm, const igemm_conv_params_t &p, int64_t c0, int CB,
                                                        int taps)
{
    const int tid = (int)(threadIdx.y * blockDim.x + threadIdx.x), nthr = (int)(blockDim.x * blockDim.y);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_wait(); /* launched with programmatic stream serialisation: data after this */
#endif
    const T *w = (const T *)p.filter;
    for (int i = tid; i < taps * CB; i += nthr) {
        const int cc = i / taps, tap = i - cc * taps;
        const int64_t ch = c0 + cc;
        wsm[tap * CB + cc] = ch < p.c ? dw_f1(w[ch * taps + tap]) : 0.0f;
    }
    __syncthreads();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_launch_dependents();
#endif
}

template <typename T, typename T2, int S_T, int SW, int OWT>
__global__ void __launch_bounds__(DW_MAX_THREADS, 2) dw_kernel(const __grid_constant__ dw_args_t a)
{
    extern __shared__ float4 dw_smem4[];
    float *wsm = (float *)dw_smem4; /* [tap][CB] */
    const igemm_conv_params_t &p = a.p;
    const int CB = a.cbv * 8, taps = (int)(p.r * p.s);
    const int64_t c0 = (int64_t)blockIdx.y * CB;
    dw_stage_filters<T>(wsm, p, c0, CB, taps);
    const int64_t ch = c0 + 8 * (int64_t)threadIdx.x;
    if (ch >= p.c) return;
    const T *x = (const T *)p.x;
    const int S = S_T > 0 ? S_T : (int)p.s;
    for (int64_t st = (int64_t)blockIdx.x * blockDim.y + threadIdx.y; st < a.strips;
         st += (int64_t)gridDim.x * blockDim.y) {
        int64_t qi, oh, n;
        dw_decode(a, st, qi, oh, n);
        const int64_t ow0 = qi * OWT;
        float acc[OWT][8];
#pragma unroll
        for (int o = 0; o < OWT; o++)
#pragma unroll
            for (int i = 0; i < 8; i++) acc[o][i] = 0.0f;
        if constexpr (S_T > 0) {
            /* the strip's window of each filter row: NCOL 16-byte vectors (zero outside the input),
             * all loaded before any is used; with PF (3x3, stride 1) the next row's window is in
             * flight while this row's FMAs run (the wider windows leave no registers for it) */
            constexpr int NCOL = (OWT - 1) * SW + S_T;
            constexpr bool PF = S_T == 3 && SW == 1;
            const int64_t iw0 = ow0 * SW - p.pad_left;
            uint4 cur[NCOL], nxt[NCOL]; /* (nxt unused, so unallocated, without PF) */
            dw_window<NCOL>(cur, x, p, n, oh * p.stride_h - p.pad_top, iw0, ch);
            for (int r = 0; r < (int)p.r; r++) {
                if constexpr (PF) {
                    if (r + 1 < (int)p.r)
                        dw_window<NCOL>(nxt, x, p, n, oh * p.stride_h - p.pad_top + (r + 1) * p.dil_h, iw0, ch);
                }
                const float *wr = wsm + (size_t)r * S_T * CB + 8 * threadIdx.x;
                if constexpr (PF) { /* column-major: the row's taps in registers, each column unpacked once */
                    float wreg[S_T][8];
#pragma unroll
                    for (int s = 0; s < S_T; s++) dw_wload8(wr + s * CB, wreg[s]);
#pragma unroll
                    for (int j = 0; j < NCOL; j++) {
                        float xv[8];
                        dw_unpack8<T2>(cur[j], xv);
#pragma unroll
                        for (int o = 0; o < OWT; o++) {
                            const int s = j - o * SW;
                            if (s >= 0 && s < S_T) dw_fma8(acc[o], wreg[s], xv);
                        }
                    }
                } else { /* tap-major: one tap's weights at a time (registers for the window) */
#pragma unroll
                    for (int s = 0; s < S_T; s++) {
                        float wv[8];
                        dw_wload8(wr + s * CB, wv);
#pragma unroll
                        for (int o = 0; o < OWT; o++) {
                            float xv[8];
                            dw_unpack8<T2>(cur[o * SW + s], xv);
                            dw_fma8(acc[o], wv, xv);
                        }
                    }
                }
                if (r + 1 < (int)p.r) {
                    if constexpr (PF) {
#pragma unroll
                        for (int j = 0; j < NCOL; j++) cur[j] = nxt[j];
                    } else {
                        dw_window<NCOL>(cur, x, p, n, oh * p.stride_h - p.pad_top + (r + 1) * p.dil_h, iw0, ch);
                    }
                }
            }
        } else {
            for (int r = 0; r < (int)p.r; r++) {
                const int64_t ih = oh * p.stride_h - p.pad_top + r * p.dil_h;
                if (ih < 0 || ih >= p.h) continue;
                const T *xrow = x + (n * p.h + ih) * p.w * p.c + ch;
                const float *wr = wsm + (size_t)r * S * CB + 8 * threadIdx.x;
#pragma unroll
                for (int o = 0; o < OWT; o++) {
                    const int64_t iwo = (ow0 + o) * p.stride_w - p.pad_left;
                    for (int s = 0; s < S; s++) {
                        const int64_t iw = iwo + s * p.dil_w;
                        if (iw < 0 || iw >= p.w) continue;
                        float xv[8], wv[8];
                        dw_load8<T2>(xrow + iw * p.c, xv);
                        const float4 w0 = *(const float4 *)(wr + s * CB), w1 = *(const float4 *)(wr + s * CB + 4);
                        wv[0] = w0.x, wv[1] = w0.y, wv[2] = w0.z, wv[3] = w0.w;
                        wv[4] = w1.x, wv[5] = w1.y, wv[6] = w1.z, wv[7] = w1.w;
                        dw_fma8(acc[o], wv, xv);
                    }
                }
            }
        }
        const int64_t ybase = ((n * p.p + oh) * p.q) * p.c + ch;
#pragma unroll
        for (int o = 0; o < OWT; o++)
            if (ow0 + o < p.q) dw_epilogue8(p, acc[o], ch, ybase + (ow0 + o) * p.c);
    }
}

#endif /* IGEMM_MEM_DEPTHWISE_STRIP_CUH */
