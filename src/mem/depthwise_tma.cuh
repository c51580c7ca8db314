/*
 * depthwise_tma.cuh — the depthwise family's TMA kernel (dwx_kernel; included by depthwise.cu,
 * which plans and launches it): depthwise convs (groups = c = k) of square filters R = S = 3, 5,
 * 7 at stride_w SW = 1 or 2 and dil_w = 1 (any stride_h, dil_h, padding) on sm_90 and later.
 *
 * Why: the tiled kernel (depthwise_tiled.cuh) is issue-bound at 0.2-0.5 of the bytes floor — its
 * cp.async window copies cost ~18 instructions per 16 bytes, a thread per channel pair unpacks and
 * multiplies 2 channels per shared load and stores 4 bytes per output (decisions.md
 * "depthwise-tiled"). Here one TMA instruction copies a whole window (zero fill outside the image
 * and past c comes free), a thread owns 8 channels (16-byte shared loads, 16-byte stores) and a
 * strip of OWT output columns, so each input column is loaded and unpacked once per strip and
 * filter row and feeds up to S * 8 FMAs.
 *
 * Algorithm (dwx_kernel<T, S, SW, OWT>): work items are an output tile (image n, TH output rows x
 * NS strips of OWT columns) of one channel block of CB channels (CB % 8 == 0, <= 256), channel
 * blocks fastest. Persistent CTAs take items b, b + grid, ...; a ring of STAGES input windows
 * ((TH-1)*SH + (S-1)*DH + 1 rows x (NS*OWT-1)*SW + S columns x CB channels, [row][column][channel]
 * as the 4-D tiled TMA box {CB, cols, rows, 1} of x lands), one full-barrier per stage
 * (mbarrier expect_tx); thread 0 issues the window of item k + STAGES into stage k % STAGES once
 * every thread has left item k (__syncthreads). Per item: the block's fp32 weights
 * ([chunk][tap][8], the chunk's row padded by 16 bytes: a phase's 8 chunks in 8 bank quads) and
 * epilogue coefficients (alpha * scale, bias) staged in shared memory when the block changes;
 * thread (chunk, group) takes the tile's (row, strip) pieces group, group + groups, ... (strips
 * fastest), per filter row loads the row's S x 8 weights, then each of the strip's
 * (OWT-1)*SW + S input columns (one 16-byte load, 8 unpacks) into every output of the strip it
 * covers (fp32 FMA); the fused epilogue per output column (alpha * scale, bias, beta * residual,
 * the activation; 16-byte residual loads and output stores).
 * Layouts: x N x H x W x C (TMA map {C, W, H, N}), w C x R x S, y and the residual N x P x Q x C;
 * C % 8 == 0, 16-byte aligned y and residual. PTX: cp.async.bulk.tensor.4d (tile),
 * mbarrier expect_tx / try_wait.parity, griddepcontrol.
 */
#ifndef IGEMM_MEM_DEPTHWISE_TMA_CUH
#define IGEMM_MEM_DEPTHWISE_TMA_CUH

#include <cuda.h>

#include "../ptx/fence.cuh"
#include "../ptx/mbarrier.cuh"
#include "../ptx/tma.cuh"

#define DWX_THREADS 256
#define DWX_MAX_STAGES 4

/* the TMA kernel's arguments */
typedef struct dwx_args {
    igemm_conv_params_t p;
    int th, ns;               /* output rows and OWT-column strips per tile */
    int cb, nch, groups;      /* channels per tile, their 16-byte chunks, thread groups per chunk */
    int in_rows, in_cols;     /* the input window */
    int stages, stage_bytes;  /* the ring: its stages, a stage's box bytes */
    int stage_stride;         /* bytes from one stage to the next (the box's, rounded up to 128: TMA
                                 destinations are 128-byte aligned) */
    int w_stride;             /* weights at byte 0: bytes per chunk ([tap][8] fp32 + 16) */
    int coef_off, bar_off, stage_off; /* coefficients ([chunk][sa 8, bi 8] + 16), barriers, stages */
    int total;                /* work items: tiles x channel blocks */
    igemm_fastdiv_t fd_cblocks, fd_tq, fd_tp, fd_ns;
} dwx_args_t;

/* Thread 0: the window of item w into stage s (its full barrier expects the box's bytes). */
template <int SW, int OWT>
static __device__ __forceinline__ void dwx_issue(const dwx_args_t &a, const CUtensorMap *tmap, int w, int s,
                                                 uint32_t bar0, uint32_t stage0)
{
    int cblk;
    int64_t n, oh0, ow0;
    dwt_item<OWT>(a, w, cblk, n, oh0, ow0);
    const uint32_t bar = bar0 + 8u * (uint32_t)s;
    ptx_mbarrier_arrive_expect_tx(bar, (uint32_t)a.stage_bytes);
    ptx_cp_async_bulk_tensor_4d_tile(stage0 + (uint32_t)(s * a.stage_stride), tmap, bar, cblk * a.cb,
                                     (int)ow0 * SW - (int)a.p.pad_left, (int)oh0 * (int)a.p.stride_h - (int)a.p.pad_top,
                                     (int)n);
}

/* 8 packed 16-bit values as fp32 (bf16: a shift or a mask each) */
template <typename T>
static __device__ __forceinline__ void dwx_unpack8(const uint4 u, float (&x)[8])
{
    const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
    for (int i = 0; i < 4; i++) {
        if constexpr (__is_same(T, __nv_bfloat16)) {
            x[2 * i] = __uint_as_float(w[i] << 16), x[2 * i + 1] = __uint_as_float(w[i] & 0xffff0000u);
        } else {
            const float2 f = __half22float2(*(const __half2 *)&w[i]);
            x[2 * i] = f.x, x[2 * i + 1] = f.y;
        }
    }
}

/* The fused epilogue of one output column's 8 channels v at element index yidx of y: the
 * coefficients coef (alpha * scale, bias) from shared memory, beta * residual, the activation, and
 * the strip kernel's 8-channel loads and stores (dw_load8, dw_store8). */
static __device__ __forceinline__ void dwx_store8(const igemm_conv_params_t &p, float (&v)[8], const float4 *coef,
                                                  int64_t yidx)
{
    const float4 s0 = coef[0], s1 = coef[1], b0 = coef[2], b1 = coef[3];
    const float sa[8] = {s0.x, s0.y, s0.z, s0.w, s1.x, s1.y, s1.z, s1.w};
    const float bi[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
    for (int e = 0; e < 8; e++) v[e] = fmaf(v[e], sa[e], bi[e]);
    if (p.has_residual) {
        float r[8];
        dw_residual8(p, yidx, r);
#pragma unroll
        for (int e = 0; e < 8; e++) v[e] = fmaf(p.beta, r[e], v[e]);
    }
    igemm_act_dev_array<8>(p.act, v, p.act_param);
    dw_store8(p, v, yidx);
}

/* CTAs per SM the registers are sized for: 2 (128 registers). Three CTAs of 80 registers spilled
 * the 4-column 3x3 stride-1 instance and, spill-free with the row loop rolled, ran the stride-2
 * layers 0.3-3% slower (decisions.md "depthwise-tma"). */
#define DWX_MIN_BLOCKS 2

template <typename T, int S, int SW, int OWT>
__global__ void __launch_bounds__(DWX_THREADS, DWX_MIN_BLOCKS)
    dwx_kernel(const __grid_constant__ CUtensorMap tmap, const __grid_constant__ dwx_args_t a)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ __align__(128) uint8_t dwx_smem[];
    constexpr int NCOL = (OWT - 1) * SW + S, TAPS = S * S;
    const igemm_conv_params_t &p = a.p;
    const int tid = (int)threadIdx.x, nthr = (int)blockDim.x, step = (int)gridDim.x, total = a.total, stages = a.stages;
    const uint32_t sbase = ptx_cvta_to_shared(dwx_smem);
    const uint32_t bar0 = sbase + (uint32_t)a.bar_off, stage0 = sbase + (uint32_t)a.stage_off;
    if (tid == 0) {
        for (int s = 0; s < stages; s++) ptx_mbarrier_init(bar0 + 8u * (uint32_t)s, 1);
        ptx_fence_mbarrier_init_release_cluster();
        ptx_prefetch_tensormap(&tmap);
    }
    __syncthreads();
    ptx_griddepcontrol_wait(); /* launched with programmatic stream serialisation: data after this */
    if (tid == 0)
        for (int s = 0; s < stages; s++) {
            const int w = (int)blockIdx.x + s * step;
            if (w < total) dwx_issue<SW, OWT>(a, &tmap, w, s, bar0, stage0);
        }
    const int nch = a.nch, chunk = tid % nch, g = tid / nch, pieces = a.th * a.ns;
    const int col_bytes = a.cb * 2, row_bytes = a.in_cols * col_bytes;
    const int P = (int)p.p, Q = (int)p.q, sh = (int)p.stride_h, dh = (int)p.dil_h;
    int cur_cblk = -1;
    for (int k = 0, w = (int)blockIdx.x; w < total; k++, w += step) {
        const int s = k % stages;
        int cblk;
        int64_t n64, oh064, ow064;
        dwt_item<OWT>(a, w, cblk, n64, oh064, ow064);
        const int c0 = cblk * a.cb, n = (int)n64, oh0 = (int)oh064, ow0 = (int)ow064;
        if (cblk != cur_cblk) { /* every thread left the last item (the barrier at its end) */
            const T *wg = (const T *)p.filter + (int64_t)c0 * TAPS;
            for (int i = tid; i < TAPS * a.cb; i += nthr) {
                const int cc = i / TAPS, tap = i - cc * TAPS;
                float *wr = (float *)(dwx_smem + (cc >> 3) * a.w_stride);
                wr[tap * 8 + (cc & 7)] = c0 + cc < p.c ? dw_f1(wg[i]) : 0.0f;
            }
            for (int cc = tid; cc < a.cb; cc += nthr) {
                float *cf = (float *)(dwx_smem + a.coef_off + (cc >> 3) * 80);
                const int64_t ch = c0 + cc;
                const bool ok = ch < p.c;
                cf[cc & 7] = p.alpha * (ok && p.has_scale ? __ldg(p.scale + ch) : 1.0f);
                cf[8 + (cc & 7)] = ok && p.has_bias ? __ldg(p.bias + ch) : 0.0f;
            }
            __syncthreads();
            cur_cblk = cblk;
        }
        ptx_mbarrier_wait_parity(bar0 + 8u * (uint32_t)s, (uint32_t)((k / stages) & 1));
        if (k == 0) ptx_griddepcontrol_launch_dependents();
        const int ch = c0 + 8 * chunk;
        if (g < a.groups && ch < (int)p.c) {
            const uint8_t *tile = dwx_smem + a.stage_off + s * a.stage_stride + chunk * 16;
            const float4 *wch = (const float4 *)(dwx_smem + chunk * a.w_stride);
            const float4 *coef = (const float4 *)(dwx_smem + a.coef_off + chunk * 80);
            for (int it = g; it < pieces; it += a.groups) {
                const int orow = igemm_fastdiv_div(it, a.fd_ns), strip = it - orow * a.ns;
                const int oh = oh0 + orow, owb = ow0 + strip * OWT;
                if (oh >= P || owb >= Q) continue;
                float acc[OWT][8];
#pragma unroll
                for (int o = 0; o < OWT; o++)
#pragma unroll
                    for (int e = 0; e < 8; e++) acc[o][e] = 0.0f;
                const uint8_t *src = tile + (orow * sh) * row_bytes + strip * (OWT * SW) * col_bytes;
#pragma unroll
                for (int r = 0; r < S; r++) {
                    float4 wr[S][2];
#pragma unroll
                    for (int t = 0; t < S; t++) wr[t][0] = wch[(r * S + t) * 2], wr[t][1] = wch[(r * S + t) * 2 + 1];
                    const uint8_t *row = src + r * dh * row_bytes;
#pragma unroll
                    for (int j = 0; j < NCOL; j++) {
                        float x[8];
                        dwx_unpack8<T>(*(const uint4 *)(row + j * col_bytes), x);
#pragma unroll
                        for (int o = 0; o < OWT; o++) {
                            const int t = j - o * SW;
                            if (t >= 0 && t < S) {
                                const float wv[8] = {wr[t][0].x, wr[t][0].y, wr[t][0].z, wr[t][0].w,
                                                     wr[t][1].x, wr[t][1].y, wr[t][1].z, wr[t][1].w};
#pragma unroll
                                for (int e = 0; e < 8; e++) acc[o][e] = fmaf(wv[e], x[e], acc[o][e]);
                            }
                        }
                    }
                }
                const int64_t ybase = (((int64_t)n * P + oh) * Q + owb) * p.c + ch;
                const int valid = Q - owb;
#pragma unroll
                for (int o = 0; o < OWT; o++)
                    if (o < valid) dwx_store8(p, acc[o], coef, ybase + (int64_t)o * p.c);
            }
        }
        __syncthreads(); /* stage s is free: its next window goes in */
        if (tid == 0) {
            const int wn = w + stages * step;
            ptx_fence_proxy_async_shared_cta(); /* the generic reads of stage s before the TMA's writes */
            if (wn < total) dwx_issue<SW, OWT>(a, &tmap, wn, s, bar0, stage0);
        }
    }
#endif
}


/* ---- host side (planned by dw_configure, launched by dw_run in depthwise.cu) ------------------ */

/* The strip widths (output columns per thread) compiled for this window, at most 2: 3x3 stride 1
 * takes 7 or 8 (whichever pads q less; 7 on a tie: with 32 channels a warp's strips then fall in
 * different bank quads) and 4 (twice the thread pieces per tile: finer balance); the others 4 (the
 * accumulators and a filter row's weights in 128 registers). Returns the count. */
static int dwx_owts(const igemm_conv_params_t *p, int owt[2])
{
    owt[0] = 4;
    if (p->s != 3 || p->stride_w != 1) return 1;
    owt[1] = (p->q + 6) / 7 * 7 - p->q <= (p->q + 7) / 8 * 8 - p->q ? 7 : 8;
    return 2;
}

/* The most 16-byte loads of one quarter-warp phase that share a bank quad (distinct addresses)
 * when the first warp's lanes (chunk = lane % nch, piece = lane / nch: strip = piece % ns, row =
 * piece / ns) load their strips' first column: rows rowcols columns apart, strips stripcols apart,
 * columns of cb channels. */
static int dwx_conflicts(int nch, int ns, int rowcols, int stripcols, int cb)
{
    int worst = 1;
    for (int ph = 0; ph < 4; ph++) {
        int n[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int l = 8 * ph; l < 8 * ph + 8; l++) {
            const int chunk = l % nch, piece = l / nch, strip = piece % ns, row = piece / ns;
            const long long off16 = ((long long)row * rowcols + (long long)strip * stripcols) * (cb / 8) + chunk;
            const int q = (int)(off16 % 8);
            if (++n[q] > worst) worst = n[q];
        }
    }
    return worst;
}

/* The TMA kernel's shared-memory layout for nch 8-channel chunks of an S x S filter and a stage
 * box of box bytes: the weights at 0 (w_stride bytes per chunk), the coefficients, the barriers,
 * then the stages (from *stage_off, *stride bytes apart: TMA destinations are 128-byte aligned). */
static void dwx_layout(int nch, int taps, int64_t box, int *w_stride, int *coef_off, int *bar_off, int *stage_off,
                       int64_t *stride)
{
    *w_stride = taps * 32 + 16;
    *coef_off = nch * *w_stride;
    *bar_off = *coef_off + nch * 80;
    *stage_off = (*bar_off + 8 * DWX_MAX_STAGES + 127) / 128 * 128;
    *stride = (box + 127) / 128 * 128;
}

/* The TMA kernel's tile: the strip width OWT (dwx_owts), the channel block cb (a multiple of 8 up
 * to 256, at least 32 where c is, padding c by at most an eighth), the output rows th and strips
 * ns, and the ring's stages (2-4, as many CTAs per SM as the registers allow where two stages each
 * fit) of least estimated time: per SM, its CTAs' items times an item's time, the largest of its
 * issue time (its thread pieces: per filter row the strip's column loads with their unpacks, the
 * row's weights, the FMAs; the epilogue) over 4 schedulers at ~60%, its shared-memory wavefronts
 * (bank conflicts of the column loads counted), the busiest thread's pieces in sequence (the item
 * ends at a barrier) and its bytes (the window's own rows and columns, its halo at 0.4: the
 * neighbours' copies leave it in L2; the output and the residual) at ~11 B per cycle per SM,
 * slowed where fewer than 16 busy warps per SM hide the latency. Hints: tile_n fixes cb, rows_per_tile th, tile_m the tile's output pixels (th x ns x OWT).
 * Returns 0 where no tile fits (TMA boxes of at most 256 per dimension, shared memory) or the items
 * do not fit 31 bits. Fills c's TMA fields (c->owt, c->x_*). */
static int dwx_choose(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                      dw_cfg_t *c)
{
    const int S = (int)p->s, SW = (int)p->stride_w, taps = S * S;
    const int64_t R = p->r, sh = p->stride_h, dh = p->dil_h;
    const int64_t smem_sm = (int64_t)dev->smem_optin_per_block + 1024;
    const int64_t sms = dev->sm_count > 0 ? dev->sm_count : 132;
    const int64_t ybytes = p->out_dtype == IGEMM_DTYPE_F32 ? 4 : 2, res = p->has_residual ? 2 : 1;
    if (p->h * p->w * p->c * 2 >= ((int64_t)1 << 40) || p->p * p->q >= ((int64_t)1 << 31)) return 0;
    int owts[2];
    const int nowt = dwx_owts(p, owts);
    /* channel blocks that divide c where one of 32..256 does (a padded block costs its copies and
     * its share of the tile's threads: measured 26.1 us on a 144-channel 3x3 stride 2 in blocks
     * of 40, 19.6 in blocks of 48) */
    int divides = 0;
    for (int cb = 32; cb <= 256; cb += 8) divides |= p->c % cb == 0;
    double best = -1.0;
    int best_qstrips = 0;
    for (int oi = 0; oi < nowt; oi++) {
        const int OWT = owts[oi], ncol = (OWT - 1) * SW + S, minb = DWX_MIN_BLOCKS;
        const int64_t qstrips = (p->q + OWT - 1) / OWT;
        for (int cb = 8; cb <= 256 && cb <= p->c; cb += 8) {
            const int64_t cblocks = (p->c + cb - 1) / cb;
            /* (>= 64 bytes of each pixel per box row: 32-byte pieces of pixels halve the DRAM rate) */
            if (h->tile_n ? cb != h->tile_n
                          : (cblocks * cb - p->c) * 8 > p->c || (cb < 32 && cb < p->c) || (divides && p->c % cb))
                continue;
            const int nch = cb / 8, groups = DWX_THREADS / nch, warps = (nch * groups + 31) / 32;
            for (int64_t th = 1; th <= 64 && th <= p->p; th++) {
                if (h->rows_per_tile && th != h->rows_per_tile) continue;
                const int64_t in_rows = (th - 1) * sh + (R - 1) * dh + 1;
                if (in_rows > 256) break;
                for (int64_t ns = 1; ns <= 32 && ns <= qstrips; ns++) {
                    if (h->tile_m && th * ns * OWT != h->tile_m) continue;
                    const int64_t pieces = th * ns, in_cols = (ns * OWT - 1) * SW + S;
                    if (in_cols > 256) break;
                    const int64_t box = (int64_t)cb * 2 * in_cols * in_rows;
                    int w_stride, coef_off, bar_off, fixed;
                    int64_t stride;
                    dwx_layout(nch, taps, box, &w_stride, &coef_off, &bar_off, &fixed, &stride);
                    /* minb CTAs per SM where two stages each fit, then as many stages as fit */
                    int occ = minb;
                    while (occ > 1 && fixed + 2 * stride + 1024 > smem_sm / occ) occ--;
                    int64_t budget = smem_sm / occ - 1024 - fixed;
                    if (budget > dev->smem_optin_per_block - fixed) budget = dev->smem_optin_per_block - fixed;
                    int stages = (int)(budget / stride);
                    if (stages > DWX_MAX_STAGES) stages = DWX_MAX_STAGES;
                    if (stages < 2) continue;
                    const int64_t total = p->n * ((p->p + th - 1) / th) * ((qstrips + ns - 1) / ns) * cblocks;
                    if (total >= ((int64_t)1 << 31)) continue;
                    int64_t grid = total < sms * occ ? total : sms * occ;
                    if (grid > cblocks) grid -= grid % cblocks;
                    const int64_t per_cta = (total + grid - 1) / grid;
                    /* an item: its thread pieces' warp instructions (a piece: per filter row the
                     * strip's column loads and unpacks, the row's weights, the FMAs; the
                     * epilogue), the shared-memory wavefronts, one thread's pieces in sequence (the
                     * item ends at a barrier: the busiest group bounds it), its bytes */
                    const double ppg = (double)((pieces + groups - 1) / groups);
                    const double piece = (double)R * (9.0 * ncol + 2.0 * S) + (double)(R * S * OWT * 8) + 30.0 * OWT + 30.0;
                    const double wpieces = (double)(pieces * nch) / 32.0;
                    const double issue = wpieces * piece + 30.0 * (double)warps;
                    const int deg = dwx_conflicts(nch, (int)ns, (int)(sh * in_cols), OWT * SW, cb);
                    const double lds = wpieces * (double)R * (4.0 * deg * ncol + 8.0 * S);
                    const int64_t core = th * sh * ns * OWT * SW * cb * 2;
                    const double bytes = (double)core + 0.4 * (double)(box > core ? box - core : 0) +
                                         (double)(pieces * OWT * cb * ybytes * res);
                    double item = (double)occ * issue / 2.4;
                    if ((double)occ * lds > item) item = (double)occ * lds;
                    if (1.5 * ppg * piece > item) item = 1.5 * ppg * piece;
                    if ((double)occ * bytes / 11.0 > item) item = (double)occ * bytes / 11.0;
                    /* slowed where fewer than 16 busy warps per SM hide the latency */
                    const double busy = (double)((pieces < groups ? pieces : groups) * nch) / 32.0;
                    double hide = (double)occ * busy / 16.0;
                    if (hide > 1.0) hide = 1.0;
                    const double t = ((double)per_cta * item + 2000.0) / hide;
                    if (best < 0.0 || t < best) {
                        best = t;
                        best_qstrips = (int)qstrips;
                        c->owt = OWT;
                        c->cb = cb, c->threads = nch * groups, c->groups = groups;
                        c->th = (int)th, c->ns = (int)ns, c->in_rows = (int)in_rows, c->in_cols = (int)in_cols;
                        c->x_stages = stages;
                        c->smem = (size_t)fixed + (size_t)stages * (size_t)stride;
                        c->grid_x = (unsigned)grid;
                    }
                }
            }
        }
    }
    if (best < 0.0) return 0;
    dw_tile_divisors(p, best_qstrips, c);
    c->fd_ns = igemm_fastdiv_make(c->ns);
    return 1;
}

/* The TMA kernel's launch: x's tensor map (re-encoded when x moved), the arguments, the instance. */
template <typename T>
static cudaError_t dwx_launch(const igemm_conv_params_t *p, const dw_cfg_t *c, dw_state_t *ds, cudaStream_t st,
                              igemm_status_t *rc)
{
    *rc = IGEMM_STATUS_SUCCESS;
    if (!ds->have_x || ds->x_key != p->x) {
        const uint64_t dims[4] = {(uint64_t)p->c, (uint64_t)p->w, (uint64_t)p->h, (uint64_t)p->n};
        const uint64_t strides[3] = {(uint64_t)p->c * 2, (uint64_t)(p->w * p->c * 2), (uint64_t)(p->h * p->w * p->c * 2)};
        const uint32_t box[4] = {(uint32_t)c->cb, (uint32_t)c->in_cols, (uint32_t)c->in_rows, 1};
        ds->have_x = 0;
        *rc = igemm_tmap_encode_tiled(&ds->tmap_x, p->in_dtype, p->x, 4, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_NONE);
        if (*rc != IGEMM_STATUS_SUCCESS) return cudaSuccess;
        ds->x_key = p->x;
        ds->have_x = 1;
    }
    dwx_args_t a;
    memset(&a, 0, sizeof a);
    a.p = *p;
    a.th = c->th, a.ns = c->ns, a.cb = c->cb, a.nch = c->cb / 8, a.groups = c->groups;
    a.in_rows = c->in_rows, a.in_cols = c->in_cols, a.stages = c->x_stages, a.total = c->total;
    a.stage_bytes = c->cb * 2 * c->in_cols * c->in_rows;
    int64_t stride;
    dwx_layout(a.nch, (int)(p->s * p->s), a.stage_bytes, &a.w_stride, &a.coef_off, &a.bar_off, &a.stage_off, &stride);
    a.stage_stride = (int)stride;
    a.fd_cblocks = c->fd_cblocks, a.fd_tq = c->fd_tq, a.fd_tp = c->fd_tp, a.fd_ns = c->fd_ns;
    void (*kern)(const CUtensorMap, const dwx_args_t) = NULL;
    switch (c->s_t * 100 + c->sw * 10 + c->owt % 10) {
    case 317: kern = dwx_kernel<T, 3, 1, 7>; break;
    case 318: kern = dwx_kernel<T, 3, 1, 8>; break;
    case 314: kern = dwx_kernel<T, 3, 1, 4>; break;
    case 324: kern = dwx_kernel<T, 3, 2, 4>; break;
    case 514: kern = dwx_kernel<T, 5, 1, 4>; break;
    case 524: kern = dwx_kernel<T, 5, 2, 4>; break;
    case 714: kern = dwx_kernel<T, 7, 1, 4>; break;
    case 724: kern = dwx_kernel<T, 7, 2, 4>; break;
    default: return cudaErrorInvalidConfiguration;
    }
    cudaError_t e = igemm_raise_smem_limit((const void *)kern, c->smem, c->smem_optin, &ds->smem_attr_done);
    if (e != cudaSuccess) return e;
    cudaLaunchConfig_t lc;
    cudaLaunchAttribute attr;
    igemm_launch_config_1d(&lc, &attr, c->grid_x, (unsigned)c->threads, c->smem, st, c->pdl);
    return cudaLaunchKernelEx(&lc, kern, ds->tmap_x, a);
}

#endif /* IGEMM_MEM_DEPTHWISE_TMA_CUH */
