/*
 * depthwise_mma.cuh — the depthwise family's tensor-core kernel (dwm_kernel; included by
 * depthwise.cu, which plans and launches it): depthwise convs (groups = c = k) of any filter of at
 * most 2 * TP taps (TP = 5: 3x3, 1x7, ...; 13: 5x5; 25: 7x7), any stride and dilation.
 *
 * Algorithm. A depthwise conv is, per 8-channel chunk, a GEMM whose B is block-diagonal:
 *   y[pixel, c] = sum_tap x[pixel + off(tap), c] * w[c, tap]
 *               = sum_{tap pairs} A[pixel, (tap, c')] * B[(tap, c'), c],  B = w[c, tap] if c' == c else 0.
 * One mma.sync.m16n8k16 takes 16 output pixels x (2 taps x 8 channels) of A and the two taps'
 * 16 x 8 diagonal B: 256 of its 2048 multiply-adds are useful, but it is one instruction where
 * the fp32 form needs 8 FFMA plus the loads and unpacking of its operands (the tiled kernel was
 * issue-bound at ~1.5 instructions per FFMA). A comes straight from the input window in shared
 * memory by ldmatrix: the window is [row][16-byte chunk of 8 channels][column], so the 16-byte row
 * of A for (pixel, tap) is one chunk at the pixel's input position plus the tap's offset — an
 * implicit im2col in the ldmatrix row addresses (lanes 0-15: the 16 pixels at the pair's first
 * tap, lanes 16-31: at its second). B is built once per CTA in registers (2 x TP words per thread).
 *
 * Work: the tiled kernel's items (an output tile of th rows x tw columns of one image, x a channel
 * block of cb = 8..64 channels) over persistent CTAs, each item's input window copied to shared
 * memory by cp.async (dwt_copy_window: zero-filled padding, two buffers: the next item's copy in
 * flight). Warp w owns the chunk w % (cb / 8) of every item (its B fragments fixed: the grid is a
 * multiple of the channel blocks, so a CTA keeps its block) and the tile's 16-pixel units
 * w / (cb / 8), + warps per chunk, ... (pixels in row-major order over the tile, so a unit may
 * span two output rows; lanes past the tile read pixel 0 and store nothing). Per unit: a
 * ldmatrix.x4 and an mma per tap pair (fp32 accumulation), then the fused epilogue of the thread's
 * two pixels x channel pair (dwt_epilogue: alpha * scale + bias + beta * residual, activation,
 * 32-bit stores). Layouts: x N x H x W x C, w C x R x S (KRSC with C/g = 1), y and the residual
 * N x P x Q x C. PTX: cp.async (zero-fill form), ldmatrix.x4, mma.sync m16n8k16 (f16 / bf16 in,
 * f32 accumulate), griddepcontrol.
 */
#ifndef IGEMM_MEM_DEPTHWISE_MMA_CUH
#define IGEMM_MEM_DEPTHWISE_MMA_CUH

#include "../ptx/ldmatrix.cuh"
#include "../ptx/mma_sync.cuh"

#define DWM_THREADS 256
/* CTAs per SM the registers are sized for: 4 for the short filters, 2 for 5x5 and 7x7 (their B
 * fragments and tap offsets: 3 x TP registers) */
#define DWM_MIN_BLOCKS(tp) ((tp) <= 5 ? 4 : 2)

/* A 16-bit element as the low (hi = 0) or high half of a 32-bit word, zero in the other. */
template <typename T>
static __device__ __forceinline__ uint32_t dwm_half(T v, bool hi)
{
    const uint32_t u = (uint32_t)(*(const uint16_t *)&v);
    return hi ? u << 16 : u;
}

/* Issues the copies of work item w's input window (stride_w at run time) into the buffer at buf. */
static __device__ __forceinline__ void dwm_load(const dwt_args_t &a, const dwt_lane_t &l, int w, uint32_t buf)
{
    int cblk;
    int64_t n, oh0, ow0;
    dwt_item<1>(a, w, cblk, n, oh0, ow0);
    dwt_copy_window(a, l, n, (int)(oh0 * a.p.stride_h - a.p.pad_top), (int)(ow0 * a.p.stride_w - a.p.pad_left),
                    cblk * a.cb, buf);
}

template <typename T, int TP>
__global__ void __launch_bounds__(DWM_THREADS, DWM_MIN_BLOCKS(TP)) dwm_kernel(const __grid_constant__ dwt_args_t a)
{
    extern __shared__ float4 dw_smem4[];
    const igemm_conv_params_t &p = a.p;
    const int tid = (int)threadIdx.x, lane = tid & 31, warp = tid >> 5, nwarps = (int)blockDim.x >> 5;
    const int total = a.total, step = (int)gridDim.x, taps = (int)(p.r * p.s);
    const int nchunks = a.fd_cv.d, chunk = warp % nchunks, wpc = nwarps / nchunks, wsub = warp / nchunks;
    const int th = a.th, tw = a.ns, npix = th * tw, units = a.units;
    const int sh16 = (int)p.stride_h * a.pitch, sw16 = (int)p.stride_w * 16;
    const uint32_t buf_s = (uint32_t)__cvta_generic_to_shared(dw_smem4);

    /* this lane's tap of each pair (lanes 16-31 the pair's second tap) as a byte offset in the
     * window; taps past r * s point at the window's origin (their weights are zero) */
    int toff[TP];
    {
        const int S = (int)p.s, dhp = (int)p.dil_h * a.pitch, dw16 = (int)p.dil_w * 16;
#pragma unroll
        for (int q = 0; q < TP; q++) {
            const int t = 2 * q + (lane >> 4), r = t / S, s = t - r * S;
            toff[q] = t < taps ? r * dhp + s * dw16 : 0;
        }
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_wait(); /* launched with programmatic stream serialisation: data after this */
#endif
    int w = (int)blockIdx.x, cur_cblk = -1;
    const dwt_lane_t cl = dwt_lane_make(a);
    if (w < total) dwm_load(a, cl, w, buf_s);
    uint32_t bfr[TP][2];
    float2 sa = make_float2(0.0f, 0.0f), bi = make_float2(0.0f, 0.0f);
    for (int k = 0; w < total; w += step, k++) {
        const int wn = w + step;
        if (wn < total) dwm_load(a, cl, wn, buf_s + (uint32_t)(((k + 1) & 1) * a.buf_bytes));
        else cp_async_commit_group(); /* (an empty group: the wait below counts groups) */
        int cblk;
        int64_t n, oh0, ow0;
        dwt_item<1>(a, w, cblk, n, oh0, ow0);
        const int ch0 = cblk * a.cb + chunk * 8; /* this warp's chunk */
        if (cblk != cur_cblk) {
            /* B of each tap pair: thread (g = lane / 4, i = lane % 4) holds B[k][g] for k = 2i, 2i + 1
             * (first tap) and 2i + 8, 2i + 9 (second tap): w[ch0 + g][tap] where k % 8 == g */
            const int g = lane >> 2, i = lane & 3;
            const bool lo = g == 2 * i, hi = g == 2 * i + 1, chok = ch0 + g < (int)p.c;
            const T *wg = (const T *)p.filter + (int64_t)(chok ? ch0 + g : 0) * taps;
#pragma unroll
            for (int q = 0; q < TP; q++) {
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const int t = 2 * q + h;
                    const T v = chok && t < taps && (lo || hi) ? wg[t] : T(0.0f);
                    bfr[q][h] = lo || hi ? dwm_half<T>(v, hi) : 0u;
                }
            }
            const int ch = ch0 + 2 * i;
            if (ch < (int)p.c) dwt_pair_coef(p, ch, sa, bi);
            cur_cblk = cblk;
        }
        cp_async_wait_group<1>(); /* this item's copy (the next one's may still fly) */
        __syncthreads();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        if (k == 0) ptx_griddepcontrol_launch_dependents();
#endif
        if (ch0 < (int)p.c) {
            const uint32_t tile = buf_s + (uint32_t)((k & 1) * a.buf_bytes + chunk * a.chunk_pitch);
            const int P = (int)p.p, Q = (int)p.q, C = (int)p.c;
            const int64_t ybase = n * p.p * p.q * p.c + ch0 + 2 * (lane & 3);
            for (int u = wsub; u < units; u += wpc) {
                /* the lane's A row: pixel u * 16 + lane % 16 of the tile (pixel 0 past the tile) */
                int f = u * 16 + (lane & 15);
                f = f < npix ? f : 0;
                const int orow = igemm_fastdiv_div(f, a.fd_tw), col = f - orow * tw;
                const uint32_t base = tile + (uint32_t)(orow * sh16 + col * sw16);
                /* two accumulator chains for the longer filters (the MMAs of one chain wait for each
                 * other), summed at the end */
                constexpr int NACC = TP > 5 ? 2 : 1;
                float acc4[NACC][4];
#pragma unroll
                for (int j = 0; j < NACC; j++) acc4[j][0] = acc4[j][1] = acc4[j][2] = acc4[j][3] = 0.0f;
#pragma unroll
                for (int q = 0; q < TP; q++) {
                    if (2 * q < taps) {
                        uint32_t af[4];
                        ldmatrix_sync_aligned_m8n8_x4_b16(af, base + (uint32_t)toff[q]);
                        mma_sync_m16n8k16_row_col_f32<T>(acc4[q % NACC], af, bfr[q]);
                    }
                }
                float acc[4];
#pragma unroll
                for (int j = 0; j < 4; j++) acc[j] = NACC == 2 ? acc4[0][j] + acc4[NACC - 1][j] : acc4[0][j];
                /* the epilogue of the thread's pixels u * 16 + lane / 4 and + 8, channels ch0 + 2 (lane % 4), + 1 */
#pragma unroll
                for (int h = 0; h < 2; h++) {
                    const int fo = u * 16 + (lane >> 2) + 8 * h;
                    const int orr = igemm_fastdiv_div(fo, a.fd_tw), oc = fo - orr * tw;
                    const int oh = (int)oh0 + orr, ow = (int)ow0 + oc;
                    float2 v[1] = {make_float2(acc[2 * h], acc[2 * h + 1])};
                    const bool ok = fo < npix && oh < P && ow < Q;
                    dwt_epilogue<1>(p, v, sa, bi, ybase + (ok ? (int64_t)((oh * Q + ow) * C) : 0), ok ? 1 : 0);
                }
            }
        }
        __syncthreads(); /* this buffer is free for the copies issued next */
    }
    cp_async_wait_all();
}

#endif /* IGEMM_MEM_DEPTHWISE_MMA_CUH */
