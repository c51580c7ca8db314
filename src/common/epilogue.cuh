/*
 * epilogue.cuh — the fused epilogue every GPU path applies, element by element:
 *
 *     y = act(alpha * scale[k] * acc + bias[k] + beta * residual[m, k])
 *
 * in fp32, then rounded (nearest even) to y's dtype. The CPU reference (src/ref) computes the
 * same function in double; both expand the one activation definition (activation.h).
 * Device-only header, C style.
 */
#ifndef IGEMM_EPILOGUE_CUH
#define IGEMM_EPILOGUE_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "../problem.h"
#include "activation.h"

/* Activation in fp32 (the one definition: activation.h). act is an igemm_activation_t;
 * act_param the leaky-relu slope. */
static __device__ __forceinline__ float igemm_act_dev(int act, float v, float act_param)
{
    IGEMM_ACTIVATION_BODY(float, act, v, act_param, fmaxf, fminf, erff, tanhf, expf)
}

/* igemm_act_dev out of line: for kernels whose unrolled epilogues would otherwise inline the
 * activation switch at every element (the code outgrows the instruction cache; measured in the
 * sm90 conv epilogue and in the GEMM family, docs/decisions.md "gemm-family"). */
static __device__ __noinline__ float igemm_act_dev_noinline(int act, float v, float act_param)
{
    return igemm_act_dev(act, v, act_param);
}

/* act over v[0 .. N-1] with the activation of whole networks inline (ReLU, ReLU6: MobileNet; SiLU:
 * EfficientNet; hardswish: MobileNetV3) and the rest through igemm_act_dev_noinline: one branch on
 * act per call, not per element (docs/decisions.md "relu6-inline"). */
template <int N>
static __device__ __forceinline__ void igemm_act_dev_array(int act, float *v, float act_param)
{
    if (act == IGEMM_ACT_NONE) return;
    if (act == IGEMM_ACT_RELU) {
#pragma unroll
        for (int e = 0; e < N; e++) v[e] = fmaxf(v[e], 0.0f);
    } else if (act == IGEMM_ACT_RELU6) {
#pragma unroll
        for (int e = 0; e < N; e++) v[e] = fminf(fmaxf(v[e], 0.0f), 6.0f);
    } else if (act == IGEMM_ACT_SILU) {
#pragma unroll
        for (int e = 0; e < N; e++) v[e] = v[e] / (1.0f + expf(-v[e]));
    } else if (act == IGEMM_ACT_HARDSWISH) {
#pragma unroll
        for (int e = 0; e < N; e++) v[e] = v[e] * (fminf(fmaxf(v[e] + 3.0f, 0.0f), 6.0f) / 6.0f);
    } else {
#pragma unroll
        for (int e = 0; e < N; e++) v[e] = igemm_act_dev_noinline(act, v[e], act_param);
    }
}

/* Eight 16-bit values of dtype F16 or BF16 (16 bytes) as fp32, and back (round to nearest even). */
static __device__ __forceinline__ void igemm_unpack8_16(uint4 u, int dtype, float f[8])
{
    const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 4; i++) {
        float2 v;
        if (dtype == IGEMM_DTYPE_F16) v = __half22float2(*(const __half2 *)&w[i]);
        else v = __bfloat1622float2(*(const __nv_bfloat162 *)&w[i]);
        f[2 * i] = v.x, f[2 * i + 1] = v.y;
    }
}
static __device__ __forceinline__ uint4 igemm_pack8_16(const float f[8], int dtype)
{
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        if (dtype == IGEMM_DTYPE_F16) {
            const __half2 h = __floats2half2_rn(f[2 * i], f[2 * i + 1]);
            w[i] = *(const uint32_t *)&h;
        } else {
            const __nv_bfloat162 h = __floats2bfloat162_rn(f[2 * i], f[2 * i + 1]);
            w[i] = *(const uint32_t *)&h;
        }
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

/* Loads element idx of a tensor of out dtype (residual) as fp32. */
static __device__ __forceinline__ float igemm_load_out(const void *base, int64_t idx, int dtype)
{
    if (dtype == IGEMM_DTYPE_F32) return ((const float *)base)[idx];
    if (dtype == IGEMM_DTYPE_F16) return __half2float(((const __half *)base)[idx]);
    return __bfloat162float(((const __nv_bfloat16 *)base)[idx]);
}

/* Stores v at element idx of a tensor of out dtype. */
static __device__ __forceinline__ void igemm_store_out(void *base, int64_t idx, int dtype, float v)
{
    if (dtype == IGEMM_DTYPE_F32) ((float *)base)[idx] = v;
    else if (dtype == IGEMM_DTYPE_F16) ((__half *)base)[idx] = __float2half_rn(v);
    else ((__nv_bfloat16 *)base)[idx] = __float2bfloat16_rn(v);
}

/* Loads element idx of an input tensor (x or w, F16 or BF16) as fp32. */
static __device__ __forceinline__ float igemm_load_in(const void *base, int64_t idx, int dtype)
{
    if (dtype == IGEMM_DTYPE_F16) return __half2float(((const __half *)base)[idx]);
    return __bfloat162float(((const __nv_bfloat16 *)base)[idx]);
}

/* The epilogue of one output element before its activation: alpha * scale[kk] * acc + bias[kk]
 * + beta * residual[yidx] (acc the fp32 sum for output channel kk, yidx the element's index in
 * y and the residual). */
static __device__ __forceinline__ float igemm_epilogue_pre_act(const igemm_conv_params_t *p, float acc, int64_t kk,
                                                               int64_t yidx)
{
    float v = p->alpha * acc;
    if (p->has_scale) v *= p->scale[kk];
    if (p->has_bias) v += p->bias[kk];
    if (p->has_residual) v += p->beta * igemm_load_out(p->residual, yidx, p->out_dtype);
    return v;
}

/* The whole epilogue for one output element: acc is the fp32 conv sum for output channel
 * kk (global, 0..K-1) of output pixel m; yidx = m * K + kk. Returns the value before the
 * final rounding to y's dtype. */
static __device__ __forceinline__ float igemm_epilogue_value(const igemm_conv_params_t *p,
                                                             float acc, int64_t kk, int64_t yidx)
{
    return igemm_act_dev(p->act, igemm_epilogue_pre_act(p, acc, kk, yidx), p->act_param);
}

#endif /* IGEMM_EPILOGUE_CUH */
