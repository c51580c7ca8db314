/*
 * depthwise_tiled.cuh — the depthwise family's tiled kernel (dwt_kernel; included by
 * depthwise.cu, which plans and launches it): depthwise convs (groups = c = k) with a compiled
 * filter width S_T = 3, 5, 7, stride_w SW = 1, 2 and dil_w = 1 (any R, stride_h, dil_h, padding).
 *
 * Algorithm: the work is items of one output tile — image n, TH output rows x NS strips of OWT
 * output columns — and one channel block of CB channels (CB % 8 == 0, CB <= 64). Persistent CTAs
 * (a few per SM) take items b, b + grid, ... and per item
 *   1. copy its input window, ((TH-1)*SH + (R-1)*DH + 1) rows x ((NS*OWT-1)*SW + S) columns x CB
 *      channels, into one of two shared-memory buffers with cp.async (16-byte chunks of 8
 *      channels: consecutive threads copy consecutive 16 bytes of NHWC memory; positions outside
 *      the input and channels past c zero-filled) — issued one item ahead, so the next item's copy
 *      is in flight while this one's FMAs run — and the block's R*S fp32 weights when the channel
 *      block changes;
 *   2. each thread owns one channel pair (32-bit shared loads; the buffer is [row][chunk][column]
 *      of 16-byte chunks, so a column is 16 bytes on: compile-time load offsets; the chunk and row
 *      pitches padded so that a warp's pairs fall in different banks) and loops over the
 *      tile's (output row, strip) pieces, i = group, group + G, ...: per filter row r, the strip's
 *      (OWT-1)*SW + S input columns, each loaded and unpacked once and multiplied into every
 *      output of the strip that covers it (fp32 FMA, the row's weights from shared memory);
 *   3. the fused epilogue per output pair (scale and bias loaded once per item), 32-bit stores
 *      (a warp's 32 pairs: 128 contiguous bytes).
 * The whole input tile is read from DRAM once (the halo columns and rows again from L2 by the
 * neighbouring tile), unlike the strip kernel's per-strip L1 windows. Layouts: x N x H x W x C, w C x R x S (KRSC with
 * C/g = 1), y and the residual N x P x Q x C. PTX: cp.async (zero-fill form), griddepcontrol.
 */
#ifndef IGEMM_MEM_DEPTHWISE_TILED_CUH
#define IGEMM_MEM_DEPTHWISE_TILED_CUH

#include "../ptx/cp_async.cuh"

#define DWT_THREADS 256
/* CTAs per SM the registers are sized for (64 per thread): 4, but 3 for 7-wide windows on sm_80,
 * whose code needs a few more registers there (8-12 bytes of spills at 64) */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#define DWT_MIN_BLOCKS(s_t) ((s_t) == 7 ? 3 : 4)
#else
#define DWT_MIN_BLOCKS(s_t) 4
#endif

/* the tiled kernel's arguments */
typedef struct dwt_args {
    igemm_conv_params_t p;
    int th, ns;              /* output rows and OWT-column strips per tile */
    int in_rows, in_cols;    /* the input tile */
    int cb, np, groups;      /* channels per CTA, channel pairs (cb / 2), thread groups (threads / np) */
    int pitch;               /* bytes per input-tile row in shared memory: cb / 8 chunk rows */
    int chunk_pitch;         /* bytes per chunk row (the in_cols 16-byte chunks of 8 channels) */
    int tile_off;            /* byte offset of the two input buffers (after the fp32 weights) */
    int buf_bytes;           /* bytes per input buffer (in_rows * pitch) */
    int total;               /* work items: tiles x channel blocks */
    int units;               /* (the mma kernel) 16-pixel units per tile: ceil(th * ns / 16) */
    igemm_fastdiv_t fd_tw;   /* (the mma kernel) the tile's output columns, ns (OWT = 1) */
    igemm_fastdiv_t fd_cblocks, fd_tq, fd_tp; /* channel blocks, column tiles per output row band, row tiles per image */
    igemm_fastdiv_t fd_cv, fd_cols, fd_taps; /* 16-byte chunks per position (cb / 8), in_cols, r * s */
} dwt_args_t;

/* The fused epilogue of one piece: the channel pair's OWT outputs acc (the first `valid` of them
 * inside the output) at y + yidx, yidx + c, ...: v = acc * sa + bi (sa = alpha * scale), plus beta *
 * residual, the activation, stored. Each run-time choice (residual, activation, output type) is
 * made once per piece, not per output. */
template <int OWT>
static __device__ __forceinline__ void dwt_epilogue(const igemm_conv_params_t &p, float2 (&acc)[OWT], float2 sa,
                                                    float2 bi, int64_t yidx, int valid)
{
    const int64_t c = p.c;
#pragma unroll
    for (int o = 0; o < OWT; o++) acc[o] = make_float2(fmaf(acc[o].x, sa.x, bi.x), fmaf(acc[o].y, sa.y, bi.y));
    if (p.has_residual) {
        if (p.out_dtype == IGEMM_DTYPE_F32) {
            const float *rp = (const float *)p.residual + yidx;
#pragma unroll
            for (int o = 0; o < OWT; o++)
                if (o < valid) {
                    const float2 r = __ldg((const float2 *)(rp + o * c));
                    acc[o].x = fmaf(p.beta, r.x, acc[o].x), acc[o].y = fmaf(p.beta, r.y, acc[o].y);
                }
        } else {
            const unsigned int *rp = (const unsigned int *)((const uint16_t *)p.residual + yidx);
            const int64_t c2 = c / 2;
            const bool f16 = p.out_dtype == IGEMM_DTYPE_F16;
#pragma unroll
            for (int o = 0; o < OWT; o++)
                if (o < valid) {
                    const uint32_t u = __ldg(rp + o * c2);
                    const float2 r = f16 ? dw_f2(*(const __half2 *)&u) : dw_f2(*(const __nv_bfloat162 *)&u);
                    acc[o].x = fmaf(p.beta, r.x, acc[o].x), acc[o].y = fmaf(p.beta, r.y, acc[o].y);
                }
        }
    }
    if (p.act == IGEMM_ACT_RELU) {
#pragma unroll
        for (int o = 0; o < OWT; o++) acc[o] = make_float2(fmaxf(acc[o].x, 0.0f), fmaxf(acc[o].y, 0.0f));
    } else if (p.act != IGEMM_ACT_NONE) {
#pragma unroll
        for (int o = 0; o < OWT; o++)
            acc[o] = make_float2(igemm_act_dev_noinline(p.act, acc[o].x, p.act_param),
                                 igemm_act_dev_noinline(p.act, acc[o].y, p.act_param));
    }
    if (p.out_dtype == IGEMM_DTYPE_F32) {
        float2 *yp = (float2 *)((float *)p.y + yidx);
        const int64_t c2 = c / 2;
#pragma unroll
        for (int o = 0; o < OWT; o++)
            if (o < valid) yp[o * c2] = acc[o];
    } else if (p.out_dtype == IGEMM_DTYPE_F16) {
        __half2 *yp = (__half2 *)((uint16_t *)p.y + yidx);
        const int64_t c2 = c / 2;
#pragma unroll
        for (int o = 0; o < OWT; o++)
            if (o < valid) yp[o * c2] = __floats2half2_rn(acc[o].x, acc[o].y);
    } else {
        __nv_bfloat162 *yp = (__nv_bfloat162 *)((uint16_t *)p.y + yidx);
        const int64_t c2 = c / 2;
#pragma unroll
        for (int o = 0; o < OWT; o++)
            if (o < valid) yp[o * c2] = __floats2bfloat162_rn(acc[o].x, acc[o].y);
    }
}

/* The epilogue coefficients of channel pair ch, ch + 1: sa = alpha * scale, bi = bias (two 4-byte
 * loads each: they are only 4-byte aligned). Shared by the tiled and the mma kernels. */
static __device__ __forceinline__ void dwt_pair_coef(const igemm_conv_params_t &p, int64_t ch, float2 &sa, float2 &bi)
{
    sa = p.has_scale ? make_float2(__ldg(p.scale + ch), __ldg(p.scale + ch + 1)) : make_float2(1.0f, 1.0f);
    sa.x *= p.alpha, sa.y *= p.alpha;
    bi = p.has_bias ? make_float2(__ldg(p.bias + ch), __ldg(p.bias + ch + 1)) : make_float2(0.0f, 0.0f);
}

/* Work item w (< items in all; channel blocks fastest: the CTAs running at once read whole pixels
 * of neighbouring tiles) as its channel block cblk and tile origin (image n, first output
 * row oh0, first output column ow0). A: the tiled, mma or TMA kernel's arguments (th, ns, fd_cblocks,
 * fd_tq, fd_tp). */
template <int OWT, typename A>
static __device__ __forceinline__ void dwt_item(const A &a, int w, int &cblk, int64_t &n, int64_t &oh0,
                                                int64_t &ow0)
{
    const int t = igemm_fastdiv_div(w, a.fd_cblocks);
    cblk = w - t * a.fd_cblocks.d;
    const int band = igemm_fastdiv_div(t, a.fd_tq), img = igemm_fastdiv_div(band, a.fd_tp);
    const int tq = t - band * a.fd_tq.d, tp = band - img * a.fd_tp.d;
    n = img, oh0 = (int64_t)tp * a.th, ow0 = (int64_t)tq * a.ns * OWT;
}

/* A thread's fixed place in the copies: where a tile row's chunks (in_cols x cb / 8) fit the CTA's
 * threads, each thread copies one (column, chunk) of rows row0, row0 + rstep, ... (rstep = 0:
 * every chunk by the generic loop). */
typedef struct dwt_lane {
    int col, k, row0, rstep;
    int soff; /* shared-memory byte offset of (col, k) in a row */
} dwt_lane_t;

static __device__ __forceinline__ dwt_lane_t dwt_lane_make(const dwt_args_t &a)
{
    dwt_lane_t l = {0, 0, 0, 0, 0};
    const int cv = a.fd_cv.d, rc = a.in_cols * cv, t = (int)threadIdx.x, nthr = (int)blockDim.x;
    if (rc <= nthr) {
        l.rstep = nthr / rc;
        l.row0 = t / rc < l.rstep ? t / rc : a.in_rows; /* (threads past rstep whole rows: none) */
        l.col = (t % rc) / cv, l.k = (t % rc) % cv;
        l.soff = l.k * a.chunk_pitch + l.col * 16;
    }
    return l;
}

/* Issues the cp.async copies of the input window of image n whose first row is ih0, first column
 * iw0, first channel c0 (a.in_rows x a.in_cols positions x a.cb channels) into the buffer at shared
 * address buf ([row][16-byte chunk][column]; zero outside the input and past c) and commits them
 * as one group. Shared by the tiled and the mma kernels. */
static __device__ __forceinline__ void dwt_copy_window(const dwt_args_t &a, const dwt_lane_t &l, int64_t n, int ih0,
                                                       int iw0, int c0, uint32_t buf)
{
    const igemm_conv_params_t &p = a.p;
    /* 32-bit offsets inside the image (the planner's condition: h * w * c < 2^31) */
    const int cv = a.fd_cv.d, H = (int)p.h, W = (int)p.w, C = (int)p.c, WC = W * C;
    const uint16_t *x = (const uint16_t *)p.x, *xn = x + n * p.h * p.w * p.c + c0;
    if (l.rstep) { /* one (column, chunk) per thread, its rows */
        const int iw = iw0 + l.col;
        const bool cok = (unsigned)iw < (unsigned)W && c0 + 8 * l.k < C;
        const uint16_t *xc = xn + (cok ? iw * C + 8 * l.k : 0); /* (a valid address either way) */
        const int step = l.rstep * WC, sstep = l.rstep * a.pitch;
        int ih = ih0 + l.row0, off = ih * WC;
        uint32_t sa = buf + (uint32_t)(l.row0 * a.pitch + l.soff);
        for (int row = l.row0; row < a.in_rows; row += l.rstep, ih += l.rstep, off += step, sa += sstep) {
            const bool ok = cok && (unsigned)ih < (unsigned)H;
            cp_async_cg_shared_global_16(sa, xc + (ok ? off : 0), ok ? 16u : 0u);
        }
    } else {
        const int chunks = a.in_rows * a.in_cols * cv;
        for (int i = (int)threadIdx.x; i < chunks; i += (int)blockDim.x) {
            const int pos = igemm_fastdiv_div(i, a.fd_cv), k = i - pos * cv;
            const int row = igemm_fastdiv_div(pos, a.fd_cols), col = pos - row * a.in_cols;
            const int ih = ih0 + row, iw = iw0 + col;
            const bool ok = (unsigned)ih < (unsigned)H && (unsigned)iw < (unsigned)W && c0 + 8 * k < C;
            const uint16_t *src = ok ? xn + ((ih * W + iw) * C + 8 * k) : x;
            cp_async_cg_shared_global_16(buf + (uint32_t)(row * a.pitch + k * a.chunk_pitch + col * 16), src,
                                         ok ? 16u : 0u);
        }
    }
    cp_async_commit_group();
}

/* Issues the copies of work item w's input window into the buffer at shared address buf. */
template <int SW, int OWT>
static __device__ __forceinline__ void dwt_load(const dwt_args_t &a, const dwt_lane_t &l, int w, uint32_t buf)
{
    int cblk;
    int64_t n, oh0, ow0;
    dwt_item<OWT>(a, w, cblk, n, oh0, ow0);
    dwt_copy_window(a, l, n, (int)(oh0 * a.p.stride_h - a.p.pad_top), (int)(ow0 * SW - a.p.pad_left), cblk * a.cb, buf);
}

/* Persistent: CTA b takes work items b, b + gridDim.x, ... (an item: a tile of one channel
 * block), two input buffers: the next item's copy in flight while
 * this one's FMAs run. The weights are staged again when the channel block changes. */
template <typename T, typename T2, int S_T, int SW, int OWT>
__global__ void __launch_bounds__(DWT_THREADS, DWT_MIN_BLOCKS(S_T)) dwt_kernel(const __grid_constant__ dwt_args_t a)
{
    extern __shared__ float4 dw_smem4[];
    const igemm_conv_params_t &p = a.p;
    const int tid = (int)threadIdx.x, nthr = (int)blockDim.x, total = a.total, step = (int)gridDim.x;
    char *smem = (char *)dw_smem4;
    const uint32_t buf_s = (uint32_t)__cvta_generic_to_shared(smem + a.tile_off);
    const int np = a.np, pi = tid % np, g = tid / np, taps = (int)(p.r * p.s);
    const float2 *wp = (const float2 *)smem + pi * taps; /* this pair's weights, [tap] */
    const int items = a.th * a.ns, R = (int)p.r, sh = (int)p.stride_h, dh = (int)p.dil_h;
    constexpr int NCOL = (OWT - 1) * SW + S_T;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_wait(); /* launched with programmatic stream serialisation: data after this */
#endif
    int w = (int)blockIdx.x, cur_cblk = -1;
    const dwt_lane_t lane = dwt_lane_make(a);
    if (w < total) dwt_load<SW, OWT>(a, lane, w, buf_s);
    for (int k = 0; w < total; w += step, k++) {
        const int wn = w + step;
        if (wn < total) dwt_load<SW, OWT>(a, lane, wn, buf_s + (uint32_t)(((k + 1) & 1) * a.buf_bytes));
        else cp_async_commit_group(); /* (an empty group: the wait below counts groups) */
        int cblk;
        int64_t n, oh0, ow0;
        dwt_item<OWT>(a, w, cblk, n, oh0, ow0);
        const int64_t c0 = (int64_t)cblk * a.cb;
        if (cblk != cur_cblk) { /* the weights: fp32 [pair][tap][2], read in the filter's [channel][tap] order */
            const T *wg = (const T *)p.filter + c0 * taps;
            float *wsm = (float *)smem;
            for (int i = tid; i < taps * a.cb; i += nthr) {
                const int cc = igemm_fastdiv_div(i, a.fd_taps), tap = i - cc * taps;
                wsm[((cc >> 1) * taps + tap) * 2 + (cc & 1)] = c0 + cc < p.c ? dw_f1(wg[i]) : 0.0f;
            }
            cur_cblk = cblk;
        }
        cp_async_wait_group<1>(); /* this item's copy (the next one's may still fly) */
        __syncthreads();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        if (k == 0) ptx_griddepcontrol_launch_dependents();
#endif
        const int64_t ch = c0 + 2 * pi;
        if (g < a.groups && ch < p.c) {
            float2 sa, bi;
            dwt_pair_coef(p, ch, sa, bi);
            /* this pair in the buffer: its chunk row, its 4 bytes of each 16-byte chunk; a column
             * is 16 bytes on (compile-time offsets below) */
            const char *tile = smem + a.tile_off + (k & 1) * a.buf_bytes + (pi >> 2) * a.chunk_pitch + (pi & 3) * 4;
            const int P = (int)p.p, Q = (int)p.q;
            for (int it = g; it < items; it += a.groups) {
                const int orow = it % a.th, strip = it / a.th;
                const int oh = (int)oh0 + orow, owb = (int)ow0 + strip * OWT;
                if (oh >= P || owb >= Q) continue;
                float2 acc[OWT];
#pragma unroll
                for (int o = 0; o < OWT; o++) acc[o] = make_float2(0.0f, 0.0f);
                const char *src = tile + (orow * sh) * a.pitch + strip * (OWT * SW * 16);
                const float2 *wr_p = wp;
                for (int r = 0; r < R; r++, src += dh * a.pitch, wr_p += S_T) {
                    float2 wr[S_T];
#pragma unroll
                    for (int s = 0; s < S_T; s++) wr[s] = wr_p[s];
#pragma unroll
                    for (int j = 0; j < NCOL; j++) {
                        const float2 xv = dw_unpack2<T2>(*(const uint32_t *)(src + j * 16));
#pragma unroll
                        for (int o = 0; o < OWT; o++) {
                            const int s = j - o * SW;
                            if (s >= 0 && s < S_T) {
                                acc[o].x = fmaf(wr[s].x, xv.x, acc[o].x);
                                acc[o].y = fmaf(wr[s].y, xv.y, acc[o].y);
                            }
                        }
                    }
                }
                /* 3. the epilogue (32-bit offsets inside the image: p * q * c < 2^31) */
                dwt_epilogue<OWT>(p, acc, sa, bi, n * p.p * p.q * p.c + ((oh * Q + owb) * (int)p.c + (int)ch),
                                  Q - owb);
            }
        }
        __syncthreads(); /* this buffer and the weights are free for the copies issued next */
    }
    cp_async_wait_all();
}

#endif /* IGEMM_MEM_DEPTHWISE_TILED_CUH */
