/*
 * grouped_tiled.cuh — the grouped family's tiled kernel (grouped_tiled_kernel; included by grouped.cu, which
 * plans and launches it): grouped convs (1 < groups < c) whose groups have c/g and k/g multiples
 * of 8, k/g <= 32, any filter, stride, padding and dilation, whose input window fits shared memory.
 *
 * Algorithm: the work is items of one output tile — image n, TH output rows x TQ output columns —
 * and one slab of GB consecutive groups (CB = GB * c/g input channels). Persistent CTAs of 8 warps
 * take items b, b + grid, ... (the grid a multiple of the slab count and the slab the fastest item
 * index, so a CTA keeps one slab: its filter rows, GB * k/g x R*S*c/g, are copied into shared memory
 * once) and per item
 *   1. copy the tile's input window, ((TH-1)*SH + (R-1)*DH + 1) rows x ((TQ-1)*SW + (S-1)*DW + 1)
 *      columns x the slab's CB channels, into a ring of NBUF shared-memory buffers (2; 3-4 by the
 *      stages hint) with cp.async (16-byte chunks of 8 channels, consecutive threads on consecutive
 *      chunks of NHWC memory; positions outside the input zero-filled) — issued NBUF - 1 items
 *      ahead, so the next item's copy is in flight during this item's MMAs; a pixel's CB channels
 *      take an odd number of 16-byte chunks (padded): eight neighbouring pixels, eight bank quads;
 *   2. each warp takes units (group, MT blocks of 16 output pixels of the tile, pixels row-major):
 *      the group's implicit GEMM, rows = pixels, columns = its k/g output channels (NT 8-column
 *      tiles), depth = R*S*c/g in KRSC order (tap-major), in 16-deep steps through mma.sync
 *      m16n8k16 (a last 8-deep step through m16n8k8 where the depth is an odd multiple of 8). The
 *      im2col is free: ldmatrix.x4 takes an address per lane, so the A fragment's rows are the
 *      16 pixels' window positions of the step's taps (a per-CTA table maps each 8-deep chunk to its
 *      tap's offset in the window and its channels); B comes from the resident filter by ldmatrix.x4
 *      (two column tiles per load), shared by the unit's MT blocks;
 *   3. without a residual, the epilogue from the accumulators (gt_epilogue_direct: rows g, g + 8,
 *      two channels per store); with one, the accumulators into an fp32 staging tile in shared
 *      memory ([pixel][slab channel], pitch 32 mod 128 bytes: a warp's float2 writes in two
 *      wavefronts), then after a barrier the CTA's threads take 8-channel chunks of it for the fused
 *      epilogue (gt_epilogue): 16-byte residual loads (two chunks' in flight per thread) and y
 *      stores, consecutive threads on consecutive chunks (the direct epilogue's scattered 2-byte
 *      residual loads made the fused plan twice as slow: decisions.md "grouped-tiled").
 * The input is read from DRAM once (the halo rows and columns again from L2 by the neighbouring
 * tiles); no im2col gather through L1 (the gather kernel's bound: decisions.md "grouped-narrow").
 * Layouts: x N x H x W x C, w K x R x S x (C/g) (KRSC), y and the residual N x P x Q x K.
 * 16-byte aligned x, w, y and residual. Tile: chosen per problem by gt_choose (below); 8 warps,
 * two CTAs per SM. PTX: cp.async (zero-fill form), ldmatrix, mma.sync (m16n8k16, m16n8k8),
 * griddepcontrol.
 */
#ifndef IGEMM_MEM_GROUPED_TILED_CUH
#define IGEMM_MEM_GROUPED_TILED_CUH

#include "../ptx/cp_async.cuh"
#include "../ptx/ldmatrix.cuh"

#define GT_WARPS 8
#define GT_THREADS (32 * GT_WARPS)
#define GT_MIN_CTAS 2 /* CTAs per SM the registers are sized for (3, at 80 registers, spills) */
#define GT_KU(nt) ((nt) <= 2 ? 3 : 2) /* 16-deep steps whose fragments a warp loads before their MMAs */
#define GT_LATENCY 4000.0 /* cycles from a window's copy issued to its arrival (the chooser's model) */

/* the tiled kernel's arguments (the epilogue fields named as the other mem_* families': MEM_ARGS_SET_OPERANDS) */
typedef struct gt_args {
    const void *x, *w;
    void *y;
    const float *scale, *bias;
    const void *residual;
    float alpha, beta, act_param;
    int act, has_scale, has_bias, has_residual, out_dtype;
    int32_t k;                    /* all output channels (y's row pitch) */
    int32_t h, w_in, c, p, q;     /* input height, width, channels; output height, width */
    int32_t cg, kg, kd;           /* channels per group in / out, depth R * S * cg */
    int32_t s, dil_h, dil_w;      /* filter width, dilation */
    int32_t stride_h, stride_w, pad_top, pad_left;
    int32_t gb, cb, cbv, slabs;   /* groups per slab, channels per slab, its 16-byte chunks, slabs */
    int32_t th, tq, tiles_q, tiles_p; /* output tile, tiles per row band, row bands per image */
    int32_t in_rows, in_cols;     /* the input window */
    int32_t pix_pitch, row_pitch; /* window bytes per pixel (an odd number of 16-byte chunks), per row */
    int32_t w_pitch;              /* filter bytes per row in shared memory (an odd number of chunks) */
    int32_t nbuf;                 /* input buffers (2..4): nbuf - 1 windows in flight */
    int32_t tab_off, buf_off, buf_bytes; /* shared-memory layout: filter, table, nbuf buffers, */
    int32_t out_off, out_pitch;   /* the fp32 output staging tile (bytes per pixel: 32 mod 128) */
    int32_t ep_off;               /* alpha * scale, then bias, of the slab's gb * kg output channels */
    int32_t ksteps, tail8;        /* 16-deep steps, and a last 8-deep one (kd % 16 == 8) */
    int32_t units, total;         /* warp units per item, items */
    igemm_fastdiv_t fd_slabs, fd_tiles_q, fd_tiles_p, fd_cbv, fd_cols, fd_tq, fd_gb, fd_cvo;
} gt_args_t;

/* Copies item it's input window (image, row band, column tile of slab `slab`) into the buffer at
 * shared address buf: chunk i of the window is pixel i / cbv, its 16-byte chunk i % cbv. */
static __device__ __forceinline__ void gt_copy_window(const gt_args_t &a, int32_t img, int32_t ih0, int32_t iw0,
                                                      int slab, uint32_t buf)
{
    const int32_t nch = a.in_rows * a.in_cols * a.cbv;
    const char *xb = (const char *)a.x + ((int64_t)slab * a.cb) * 2;
    for (int32_t i = threadIdx.x; i < nch; i += GT_THREADS) {
        const int32_t pix = igemm_fastdiv_div(i, a.fd_cbv), cv = i - pix * a.cbv;
        const int32_t row = igemm_fastdiv_div(pix, a.fd_cols), col = pix - row * a.in_cols;
        const int32_t ih = ih0 + row, iw = iw0 + col;
        const bool ok = (unsigned)ih < (unsigned)a.h && (unsigned)iw < (unsigned)a.w_in;
        const char *src = ok ? xb + ((((int64_t)img * a.h + ih) * a.w_in + iw) * a.c) * 2 + cv * 16 : xb;
        cp_async_cg_shared_global_16(buf + (uint32_t)(row * a.row_pitch + col * a.pix_pitch + cv * 16), src,
                                     ok ? 16u : 0u);
    }
}

/* Item it's image, row band and column tile (its slab is it % slabs). */
static __device__ __forceinline__ void gt_item(const gt_args_t &a, int32_t it, int32_t &img, int32_t &tp, int32_t &tqi)
{
    const int32_t rest = igemm_fastdiv_div(it, a.fd_slabs);
    const int32_t r2 = igemm_fastdiv_div(rest, a.fd_tiles_q);
    tqi = rest - r2 * a.tiles_q;
    img = igemm_fastdiv_div(r2, a.fd_tiles_p);
    tp = r2 - img * a.tiles_p;
}

#define GT_EPI_UNROLL 2 /* output chunks per thread whose residual loads are in flight together */

/* The item's fused epilogue from the staging tile: thread t owns the 8-channel chunk t % cvo of
 * the slab's cvo output chunks per pixel and every (256 / cvo)-th pixel from t / cvo (consecutive
 * threads on consecutive chunks of a pixel: 16-byte residual loads and y stores, 32-byte for fp32
 * y), GT_EPI_UNROLL pixels' residual loads issued before their arithmetic: v = (alpha * scale[n]) *
 * acc + bias[n] + beta * residual, the activation; alpha * scale and bias of the slab's channels
 * come from shared memory (staged once per CTA). */
static __device__ __forceinline__ void gt_epilogue(const gt_args_t &a, int32_t img, int32_t tp, int32_t tqi, int slab)
{
    extern __shared__ __align__(16) unsigned char gt_smem[];
    const int32_t cvo = a.gb * a.kg / 8, ppi = GT_THREADS / cvo;
    const int32_t p0 = igemm_fastdiv_div((int32_t)threadIdx.x, a.fd_cvo), cv = (int32_t)threadIdx.x - p0 * cvo;
    if (p0 >= ppi) return;
    const int32_t tile_pix = a.th * a.tq;
    const int64_t n0 = (int64_t)slab * a.gb * a.kg + cv * 8;
    const bool f32 = a.out_dtype == IGEMM_DTYPE_F32;
    float sc[8], bi[8];
    {
        const float4 *e = (const float4 *)(gt_smem + a.ep_off) + 2 * cv;
        const float4 s0 = e[0], s1 = e[1], b0 = e[2 * cvo], b1 = e[2 * cvo + 1];
        sc[0] = s0.x, sc[1] = s0.y, sc[2] = s0.z, sc[3] = s0.w, sc[4] = s1.x, sc[5] = s1.y, sc[6] = s1.z, sc[7] = s1.w;
        bi[0] = b0.x, bi[1] = b0.y, bi[2] = b0.z, bi[3] = b0.w, bi[4] = b1.x, bi[5] = b1.y, bi[6] = b1.z, bi[7] = b1.w;
    }
    for (int32_t pix0 = p0; pix0 < tile_pix; pix0 += ppi * GT_EPI_UNROLL) {
        int64_t yidx[GT_EPI_UNROLL];
        int32_t sidx[GT_EPI_UNROLL];
        uint4 res[GT_EPI_UNROLL][2];
#pragma unroll
        for (int u = 0; u < GT_EPI_UNROLL; u++) {
            const int32_t pix = pix0 + u * ppi;
            yidx[u] = -1;
            res[u][0] = res[u][1] = make_uint4(0u, 0u, 0u, 0u);
            if (pix >= tile_pix) continue;
            const int32_t i = igemm_fastdiv_div(pix, a.fd_tq), j = pix - i * a.tq;
            const int32_t pp = tp * a.th + i, qq = tqi * a.tq + j;
            if (pp >= a.p || qq >= a.q) continue;
            sidx[u] = pix * a.out_pitch + cv * 32;
            yidx[u] = (((int64_t)img * a.p + pp) * a.q + qq) * a.k + n0;
            if (a.has_residual) {
                if (f32) {
                    const uint4 *r = (const uint4 *)((const float *)a.residual + yidx[u]);
                    res[u][0] = __ldg(r), res[u][1] = __ldg(r + 1);
                } else {
                    res[u][0] = __ldg((const uint4 *)((const uint16_t *)a.residual + yidx[u]));
                }
            }
        }
#pragma unroll
        for (int u = 0; u < GT_EPI_UNROLL; u++) {
            if (yidx[u] < 0) continue;
            const float4 s0 = *(const float4 *)(gt_smem + a.out_off + sidx[u]);
            const float4 s1 = *(const float4 *)(gt_smem + a.out_off + sidx[u] + 16);
            float v[8] = {s0.x, s0.y, s0.z, s0.w, s1.x, s1.y, s1.z, s1.w};
            float rv[8];
            if (a.has_residual) {
                if (f32) {
                    const uint4 r0 = res[u][0], r1 = res[u][1];
                    rv[0] = __uint_as_float(r0.x), rv[1] = __uint_as_float(r0.y), rv[2] = __uint_as_float(r0.z);
                    rv[3] = __uint_as_float(r0.w), rv[4] = __uint_as_float(r1.x), rv[5] = __uint_as_float(r1.y);
                    rv[6] = __uint_as_float(r1.z), rv[7] = __uint_as_float(r1.w);
                } else {
                    igemm_unpack8_16(res[u][0], a.out_dtype, rv);
                }
            }
#pragma unroll
            for (int e = 0; e < 8; e++) {
                float x = fmaf(v[e], sc[e], bi[e]);
                if (a.has_residual) x = fmaf(a.beta, rv[e], x);
                if (a.act == IGEMM_ACT_RELU) x = fmaxf(x, 0.0f);
                else if (a.act != IGEMM_ACT_NONE) x = igemm_act_dev_noinline(a.act, x, a.act_param);
                v[e] = x;
            }
            if (f32) {
                float4 *yp = (float4 *)((float *)a.y + yidx[u]);
                yp[0] = make_float4(v[0], v[1], v[2], v[3]);
                yp[1] = make_float4(v[4], v[5], v[6], v[7]);
            } else {
                *(uint4 *)((uint16_t *)a.y + yidx[u]) = igemm_pack8_16(v, a.out_dtype);
            }
        }
    }
}

/* The direct epilogue of a unit (the plan without a residual): from the accumulators, lane rows
 * g, g + 8 of each block, channels n0 + 8j + 2t, +1 (two per store: gw_store2, grouped.cu, which
 * includes this file after it), alpha * scale and bias from shared memory: no staging tile, no
 * barrier. */
template <int NT, int MT>
static __device__ __forceinline__ void gt_epilogue_direct(const gt_args_t &a, const float (&acc)[MT][NT][4], int32_t img,
                                                          int32_t tp, int32_t tqi, int slab, int32_t mb, int gi, int g,
                                                          int t)
{
    extern __shared__ __align__(16) unsigned char gt_smem[];
    const int32_t nk = a.gb * a.kg, tile_pix = a.th * a.tq;
    const float *ep = (const float *)(gt_smem + a.ep_off);
    const int64_t n0 = (int64_t)slab * nk + gi * a.kg + 2 * t;
#pragma unroll
    for (int mt = 0; mt < MT; mt++)
#pragma unroll
        for (int hh = 0; hh < 2; hh++) {
            const int32_t pix = (mb * MT + mt) * 16 + g + 8 * hh;
            if (pix >= tile_pix) continue;
            const int32_t i = igemm_fastdiv_div(pix, a.fd_tq), j = pix - i * a.tq;
            const int32_t pp = tp * a.th + i, qq = tqi * a.tq + j;
            if (pp >= a.p || qq >= a.q) continue;
            const int64_t yrow = (((int64_t)img * a.p + pp) * a.q + qq) * a.k + n0;
#pragma unroll
            for (int jt = 0; jt < NT; jt++) {
                const int c = gi * a.kg + 8 * jt + 2 * t;
                float v0 = fmaf(acc[mt][jt][2 * hh], ep[c], ep[nk + c]);
                float v1 = fmaf(acc[mt][jt][2 * hh + 1], ep[c + 1], ep[nk + c + 1]);
                if (a.act == IGEMM_ACT_RELU) v0 = fmaxf(v0, 0.0f), v1 = fmaxf(v1, 0.0f);
                else if (a.act != IGEMM_ACT_NONE)
                    v0 = igemm_act_dev_noinline(a.act, v0, a.act_param), v1 = igemm_act_dev_noinline(a.act, v1, a.act_param);
                gw_store2(a.y, yrow + 8 * jt, a.out_dtype, v0, v1);
            }
        }
}

/* NT: 8-channel column tiles per group (k/g = 8 * NT); MT: 16-pixel blocks per warp unit. */
template <typename T, int NT, int MT>
__global__ void __launch_bounds__(GT_THREADS, GT_MIN_CTAS) grouped_tiled_kernel(const gt_args_t a)
{
    extern __shared__ __align__(16) unsigned char gt_smem[];
    const uint32_t sbase = (uint32_t)__cvta_generic_to_shared(gt_smem);
    int32_t *tab = (int32_t *)(gt_smem + a.tab_off);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    const int slab = (int)(blockIdx.x % (unsigned)a.slabs); /* fixed: the grid is a multiple of slabs */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_wait();
#endif
    /* the depth table: 8-deep chunk j (depth 8j: tap (8j) / cg, channels (8j) % cg ..+7) -> its
     * byte offset from a pixel's window position; one entry past the depth (0) */
    const int32_t kchunks = a.kd / 8;
    for (int32_t j = threadIdx.x; j <= kchunks; j += GT_THREADS) {
        int32_t off = 0;
        if (j < kchunks) {
            const int32_t d = 8 * j, tap = d / a.cg, ch = d - tap * a.cg;
            const int32_t rr = tap / a.s, ss = tap - rr * a.s;
            off = rr * a.dil_h * a.row_pitch + ss * a.dil_w * a.pix_pitch + ch * 2;
        }
        tab[j] = off;
    }
    /* the slab's filter rows, zero-padded to a multiple of 16 deep */
    {
        const int32_t rows = a.gb * a.kg, cpr = a.w_pitch / 16; /* chunks per shared row (>= kd / 8) */
        const char *wb = (const char *)a.w + (int64_t)slab * rows * a.kd * 2;
        for (int32_t i = threadIdx.x; i < rows * cpr; i += GT_THREADS) {
            const int32_t row = i / cpr, cv = i - row * cpr;
            const bool ok = cv < kchunks;
            cp_async_cg_shared_global_16(sbase + (uint32_t)(row * a.w_pitch + cv * 16),
                                         ok ? wb + ((int64_t)row * a.kd + cv * 8) * 2 : wb, ok ? 16u : 0u);
        }
    }
    /* alpha * scale and bias of the slab's output channels (the epilogue's, once per CTA) */
    {
        float *ep = (float *)(gt_smem + a.ep_off);
        const int32_t nk = a.gb * a.kg, n0 = slab * nk;
        for (int32_t i = threadIdx.x; i < nk; i += GT_THREADS) {
            ep[i] = a.has_scale ? a.alpha * __ldg(a.scale + n0 + i) : a.alpha;
            ep[nk + i] = a.has_bias ? __ldg(a.bias + n0 + i) : 0.0f;
        }
    }
    const int32_t grid = (int32_t)gridDim.x;
    /* the ring: item blockIdx.x + k * grid in buffer k % nbuf; nbuf - 1 windows in flight */
    for (int k = 0; k < a.nbuf - 1; k++) {
        const int32_t itk = (int32_t)blockIdx.x + k * grid;
        if (itk < a.total) {
            int32_t img, tp, tqi;
            gt_item(a, itk, img, tp, tqi);
            gt_copy_window(a, img, tp * a.th * a.stride_h - a.pad_top, tqi * a.tq * a.stride_w - a.pad_left, slab,
                           sbase + a.buf_off + k * a.buf_bytes);
        }
        cp_async_commit_group(); /* (group 0 also holds the filter) */
    }
    const int32_t tile_pix = a.th * a.tq;
    int kb = 0;
    for (int32_t it = (int32_t)blockIdx.x; it < a.total; it += grid, kb = kb + 1 == a.nbuf ? 0 : kb + 1) {
        const int32_t nxt = it + (a.nbuf - 1) * grid;
        if (nxt < a.total) {
            int32_t img, tp, tqi;
            gt_item(a, nxt, img, tp, tqi);
            const int kn = kb == 0 ? a.nbuf - 1 : kb - 1; /* (kb + nbuf - 1) % nbuf: computed on last item */
            gt_copy_window(a, img, tp * a.th * a.stride_h - a.pad_top, tqi * a.tq * a.stride_w - a.pad_left, slab,
                           sbase + a.buf_off + kn * a.buf_bytes);
        }
        cp_async_commit_group();
        /* this item's group complete: nbuf - 1 younger ones may be in flight */
        if (a.nbuf == 2) cp_async_wait_group<1>();
        else if (a.nbuf == 3) cp_async_wait_group<2>();
        else cp_async_wait_group<3>();
        __syncthreads();
        int32_t img, tp, tqi;
        gt_item(a, it, img, tp, tqi);
        const uint32_t buf = sbase + a.buf_off + kb * a.buf_bytes;
        for (int32_t u = warp; u < a.units; u += GT_WARPS) {
            const int32_t mb = igemm_fastdiv_div(u, a.fd_gb), gi = u - mb * a.gb;
            /* this lane's A rows: pixel (lane & 7) + 8 * ((lane >> 3) & 1) of each block (past the
             * tile: the tile's first pixel, computed and not stored), depth half lane >> 4 */
            uint32_t abase[MT];
#pragma unroll
            for (int mt = 0; mt < MT; mt++) {
                int32_t pix = (mb * MT + mt) * 16 + (lane & 7) + 8 * ((lane >> 3) & 1);
                if (pix >= tile_pix) pix = 0;
                const int32_t i = igemm_fastdiv_div(pix, a.fd_tq), j = pix - i * a.tq;
                abase[mt] = buf + (uint32_t)(i * a.stride_h * a.row_pitch + j * a.stride_w * a.pix_pitch + gi * a.cg * 2);
            }
            /* this lane's B rows: column tile jt + (lane >> 4) (clamped), depth half (lane >> 3) & 1 */
            const uint32_t wrow = sbase + (uint32_t)((gi * a.kg + (lane & 7)) * a.w_pitch + ((lane >> 3) & 1) * 16);
            float acc[MT][NT][4];
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
#pragma unroll
                for (int j = 0; j < NT; j++) acc[mt][j][0] = acc[mt][j][1] = acc[mt][j][2] = acc[mt][j][3] = 0.0f;
            const int kh = lane >> 4;
            /* KU steps' fragments loaded (all their ldmatrix in flight) before their MMAs */
            for (int32_t ks0 = 0; ks0 < a.ksteps; ks0 += GT_KU(NT)) {
                uint32_t b[GT_KU(NT)][NT][2], af[GT_KU(NT)][MT][4];
#pragma unroll
                for (int u = 0; u < GT_KU(NT); u++) {
                    const int32_t ks = ks0 + u;
                    if (ks >= a.ksteps) break;
                    const uint32_t off = (uint32_t)tab[2 * ks + kh];
#pragma unroll
                    for (int jt = 0; jt < NT; jt += 2) {
                        const int jl = jt + (lane >> 4) < NT ? jt + (lane >> 4) : NT - 1;
                        uint32_t r4[4];
                        ldmatrix_sync_aligned_m8n8_x4_b16(r4, wrow + (uint32_t)(jl * 8 * a.w_pitch + ks * 32));
                        b[u][jt][0] = r4[0], b[u][jt][1] = r4[1];
                        if (jt + 1 < NT) b[u][jt + 1][0] = r4[2], b[u][jt + 1][1] = r4[3];
                    }
#pragma unroll
                    for (int mt = 0; mt < MT; mt++) ldmatrix_sync_aligned_m8n8_x4_b16(af[u][mt], abase[mt] + off);
                }
#pragma unroll
                for (int u = 0; u < GT_KU(NT); u++) {
                    if (ks0 + u >= a.ksteps) break;
#pragma unroll
                    for (int mt = 0; mt < MT; mt++)
#pragma unroll
                        for (int jt = 0; jt < NT; jt++) mma_sync_m16n8k16_row_col_f32<T>(acc[mt][jt], af[u][mt], b[u][jt]);
                }
            }
            if (a.tail8) { /* the last 8 deep: A rows 0-15 of depth half 0, B of tiles jt, jt + 1 */
                uint32_t b1[NT];
#pragma unroll
                for (int jt = 0; jt < NT; jt += 2) {
                    const int jl = jt + ((lane >> 3) & 1) < NT ? jt + ((lane >> 3) & 1) : NT - 1;
                    uint32_t r2[2];
                    ldmatrix_sync_aligned_m8n8_x2_b16(
                        r2, sbase + (uint32_t)((gi * a.kg + jl * 8 + (lane & 7)) * a.w_pitch + a.ksteps * 32));
                    b1[jt] = r2[0];
                    if (jt + 1 < NT) b1[jt + 1] = r2[1];
                }
                const uint32_t off = (uint32_t)tab[2 * a.ksteps];
#pragma unroll
                for (int mt = 0; mt < MT; mt++) {
                    uint32_t af[2];
                    ldmatrix_sync_aligned_m8n8_x2_b16(af, abase[mt] + off);
#pragma unroll
                    for (int jt = 0; jt < NT; jt++) mma_sync_m16n8k8_row_col_f32<T>(acc[mt][jt], af, b1[jt]);
                }
            }
            if (!a.has_residual) {
                gt_epilogue_direct<NT, MT>(a, acc, img, tp, tqi, slab, mb, gi, g, t);
                continue;
            }
            /* with a residual: the accumulators into the item's fp32 staging tile [pixel][slab
             * channel] (rows g, g + 8 of each block; past the tile: not stored) */
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
#pragma unroll
                for (int hh = 0; hh < 2; hh++) {
                    const int32_t pix = (mb * MT + mt) * 16 + g + 8 * hh;
                    if (pix >= tile_pix) continue;
                    float *row = (float *)(gt_smem + a.out_off + pix * a.out_pitch) + gi * a.kg + 2 * t;
#pragma unroll
                    for (int jt = 0; jt < NT; jt++)
                        *(float2 *)(row + 8 * jt) = make_float2(acc[mt][jt][2 * hh], acc[mt][jt][2 * hh + 1]);
                }
        }
        if (a.has_residual) {
            __syncthreads();
            gt_epilogue(a, img, tp, tqi, slab);
        }
        __syncthreads(); /* this buffer is the next item's copy target; the staging tile the next item's */
    }
    cp_async_wait_all();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_launch_dependents();
#endif
}

/* ------------------------------------------------------------------ host: the tile chooser */

/* the tiled kernel's plan (in the grouped family's configuration) */
typedef struct gt_geom {
    int nbuf, gb, th, tq, mt, nt;               /* input buffers, groups per slab, output tile, instance */
    int in_rows, in_cols, cbv, pix_pitch, row_pitch, w_pitch;
    int tab_off, buf_off, buf_bytes, out_off, out_pitch, ep_off, smem; /* shared-memory layout and bytes */
    int tiles_q, tiles_p, slabs, ksteps, tail8, nblk, units, total, grid;
    igemm_fastdiv_t fd_slabs, fd_tiles_q, fd_tiles_p, fd_cbv, fd_cols, fd_tq, fd_gb, fd_cvo;
} gt_geom_t;

/* Chooses the tiled kernel's slab width, tile, buffers and grid for p on dev (hints: tile_n =
 * channels per slab, rows_per_tile = output rows per tile, tile_m = output pixels per tile, stages
 * = input buffers (2..4; else 2), grid = CTAs at most) by a cycle model per SM: the larger of the
 * issue time (copies ~16 instructions per 16-byte chunk, per 16-deep step a B load and per block an
 * A load and NT MMAs, the epilogue; warps of an item that get fewer units idle) and the memory time
 * (the window from L2 at ~32 bytes per cycle, the unique input and the output from DRAM at ~16,
 * both in whole 32-byte sectors per pixel), and no item shorter than a copy's latency over the
 * windows in flight. Returns 1 and fills g, or 0 with the reason (no slab and tile fits shared
 * memory, or the hints allow none). Host only, no CUDA call. */
static int gt_choose(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                     gt_geom_t *g, char *why, size_t why_len)
{
    const int64_t cg = p->cg, kg = p->kg, groups = p->groups, R = p->r, S = p->s;
    const int64_t sh = p->stride_h, sw = p->stride_w, dh = p->dil_h, dw = p->dil_w;
    const int64_t kd = R * S * cg, kd16 = (kd + 15) / 16 * 16;
    const int64_t wp = ((kd16 / 8) | 1) * 16; /* filter row pitch: an odd number of chunks */
    const int64_t tab = ((kd / 8 + 1) * 4 + 15) / 16 * 16;
    const int64_t sms = dev->sm_count > 0 ? dev->sm_count : 132, optin = dev->smem_optin_per_block;
    const int nt = (int)(kg / 8);
    const double osz = p->out_dtype == IGEMM_DTYPE_F32 ? 4.0 : 2.0;
    double best = -1.0;
    if (kd > 8192 || nt < 1 || nt > 4) {
        if (why && why_len) snprintf(why, why_len, "depth R*S*c/g = %lld, k/g = %lld: the tiled kernel takes a depth <= 8192 "
                                     "and k/g <= 32", (long long)kd, (long long)kg);
        return 0;
    }
    /* two CTAs per SM (the registers allow two; 8 warps alone are latency-bound: ncu, decisions.md
     * "grouped-tiled"), one only where no tile fits half of the shared memory */
    for (int64_t min_occ = GT_MIN_CTAS; min_occ >= 1 && best < 0.0; min_occ--) {
        for (int64_t gb = 1; gb <= groups; gb++) {
            if (groups % gb) continue;
            const int64_t cb = gb * cg;
            if (cb > 256 || cb * 2 > 65535) break;
            if (h->tile_n ? cb != h->tile_n : cb < 32 && gb < groups && 2 * cb <= 256 && groups % (2 * gb) == 0) continue;
            const int64_t cbv = cb / 8, pixp = (cbv | 1) * 16, slabs = groups / gb;
            const double pixb = (double)((cb * 2 + 31) / 32 * 32); /* a pixel's slab: whole 32-byte sectors */
            const int64_t wbytes = gb * kg * wp;
            const int64_t opitch = gb * kg * 4 + (160 - gb * kg * 4 % 128) % 128; /* 32 mod 128: conflict-free float2 writes */
            int64_t tqs[8], ntq = 0;
            tqs[ntq++] = p->q < 256 ? p->q : 256;
            for (int64_t v = 8; v <= 64; v *= 2)
                if (v < p->q) tqs[ntq++] = v;
            for (int64_t iq = 0; iq < ntq; iq++) {
                const int64_t tq = tqs[iq];
                for (int64_t th = 1; th <= 64 && th <= p->p; th++) {
                    if (h->rows_per_tile && th != h->rows_per_tile) continue;
                    if (h->tile_m && th * tq != h->tile_m) continue;
                    const int64_t in_rows = (th - 1) * sh + (R - 1) * dh + 1, in_cols = (tq - 1) * sw + (S - 1) * dw + 1;
                    const int64_t bufb = in_rows * in_cols * pixp;
                    for (int64_t nb = 2; nb <= 4; nb++) {
                        /* two buffers unless the hint asks for more: measured faster than the model's
                         * pick of 3-4 on ResNeXt's layers (decisions.md "grouped-tiled") */
                        if (h->stages ? nb != h->stages : nb != 2) continue;
                        const int64_t stage = p->has_residual ? th * tq * opitch : 0; /* the staging tile */
                    const int64_t smem = wbytes + tab + nb * bufb + stage + gb * kg * 8;
                        if (smem > optin) continue;
                        int64_t occ = (optin + 1024) / (smem + 1024);
                        if (occ > GT_MIN_CTAS) occ = GT_MIN_CTAS;
                        if (occ < min_occ) continue;
                        const int64_t tiles_p = (p->p + th - 1) / th, tiles_q = (p->q + tq - 1) / tq;
                        const int64_t items = p->n * tiles_p * tiles_q * slabs;
                        if (items >= ((int64_t)1 << 31)) continue;
                        int64_t grid = sms * occ / slabs;
                        grid = (grid < 1 ? 1 : grid) * slabs;
                        if (h->grid && grid > h->grid) grid = h->grid / slabs < 1 ? slabs : h->grid / slabs * slabs;
                        if (grid > items) grid = items;
                        const int64_t nblk = (th * tq + 15) / 16;
                        const int64_t mt = gb * ((nblk + 1) / 2) >= GT_WARPS ? 2 : 1;
                        const int64_t units = gb * ((nblk + mt - 1) / mt);
                        const int64_t kst = (kd + 15) / 16;
                        const double unit_instr = (double)kst * ((nt + 1) / 2 + 2 + mt * (1 + nt)) + (double)(mt * 2 * nt * 2) + 40.0;
                        const double epi = (double)(th * tq * gb * kg / 8) / 32.0 * 40.0; /* per 8-channel chunk */
                        const double compute = (double)((units + GT_WARPS - 1) / GT_WARPS) * GT_WARPS * unit_instr;
                        const double copy = (double)(in_rows * in_cols * cbv) / 32.0 * 16.0;
                        double eff = (double)(occ * GT_WARPS) / 12.0;
                        if (eff > 1.0) eff = 1.0;
                        const double issue = (copy + compute + epi) / 4.0 / eff;
                        const double dram = ((double)(th * sh * tq * sw) * pixb + (double)(th * tq * gb * kg) * osz) / 16.0;
                        const double l2 = (double)(in_rows * in_cols) * pixb / 32.0;
                        const double memt = dram > l2 ? dram : l2;
                        const int64_t per_cta = (items + grid - 1) / grid;
                        const int64_t resident = (grid + sms - 1) / sms < occ ? (grid + sms - 1) / sms : occ;
                        /* a CTA's nb - 1 windows in flight: it takes an item at most every GT_LATENCY /
                         * (nb - 1) cycles (a copy's latency from DRAM under load) */
                        const double sm_share = (double)resident * (issue > memt ? issue : memt);
                        const double lat = GT_LATENCY / (double)(nb - 1);
                        const double tcyc = (double)per_cta * (sm_share > lat ? sm_share : lat) + 2000.0;
                        if (best < 0.0 || tcyc < best) {
                            best = tcyc;
                            memset(g, 0, sizeof *g);
                            g->nbuf = (int)nb, g->gb = (int)gb, g->th = (int)th, g->tq = (int)tq, g->mt = (int)mt, g->nt = nt;
                            g->in_rows = (int)in_rows, g->in_cols = (int)in_cols, g->cbv = (int)cbv, g->pix_pitch = (int)pixp;
                            g->row_pitch = (int)(in_cols * pixp), g->w_pitch = (int)wp;
                            g->tab_off = (int)wbytes, g->buf_off = (int)(wbytes + tab), g->buf_bytes = (int)bufb;
                            g->out_off = (int)(wbytes + tab + nb * bufb), g->out_pitch = (int)opitch;
                            g->ep_off = (int)(wbytes + tab + nb * bufb + stage);
                            g->smem = (int)smem;
                            g->tiles_q = (int)tiles_q, g->tiles_p = (int)tiles_p, g->slabs = (int)slabs;
                            g->ksteps = (int)(kd / 16), g->tail8 = (int)(kd % 16 != 0), g->nblk = (int)nblk;
                            g->units = (int)units, g->total = (int)items, g->grid = (int)grid;
                        }
                    }
                }
            }
        }
    }
    if (best < 0.0) {
        if (why && why_len)
            snprintf(why, why_len, "no slab of groups and output tile%s fits %d bytes of shared memory (filter %lldx%lld, "
                     "stride %lldx%lld, dilation %lldx%lld, c/g = %lld)", h->tile_n || h->rows_per_tile || h->tile_m ? " allowed by the hints" : "",
                     dev->smem_optin_per_block, (long long)R, (long long)S, (long long)sh, (long long)sw, (long long)dh,
                     (long long)dw, (long long)cg);
        return 0;
    }
    g->fd_slabs = igemm_fastdiv_make(g->slabs), g->fd_tiles_q = igemm_fastdiv_make(g->tiles_q);
    g->fd_tiles_p = igemm_fastdiv_make(g->tiles_p), g->fd_cbv = igemm_fastdiv_make(g->cbv);
    g->fd_cols = igemm_fastdiv_make(g->in_cols), g->fd_tq = igemm_fastdiv_make(g->tq), g->fd_gb = igemm_fastdiv_make(g->gb);
    g->fd_cvo = igemm_fastdiv_make((int32_t)(g->gb * kg / 8));
    return 1;
}

/* The kernel's arguments for p under plan g. */
static void gt_fill_args(const igemm_conv_params_t *p, const gt_geom_t *g, gt_args_t *a)
{
    memset(a, 0, sizeof *a);
    MEM_ARGS_SET_OPERANDS(*a, p);
    a->k = (int32_t)p->k, a->h = (int32_t)p->h, a->w_in = (int32_t)p->w, a->c = (int32_t)p->c;
    a->p = (int32_t)p->p, a->q = (int32_t)p->q;
    a->cg = (int32_t)p->cg, a->kg = (int32_t)p->kg, a->kd = (int32_t)(p->r * p->s * p->cg);
    a->s = (int32_t)p->s, a->dil_h = (int32_t)p->dil_h, a->dil_w = (int32_t)p->dil_w;
    a->stride_h = (int32_t)p->stride_h, a->stride_w = (int32_t)p->stride_w;
    a->pad_top = (int32_t)p->pad_top, a->pad_left = (int32_t)p->pad_left;
    a->gb = g->gb, a->cb = g->gb * (int32_t)p->cg, a->cbv = g->cbv, a->slabs = g->slabs;
    a->th = g->th, a->tq = g->tq, a->tiles_q = g->tiles_q, a->tiles_p = g->tiles_p;
    a->in_rows = g->in_rows, a->in_cols = g->in_cols, a->pix_pitch = g->pix_pitch, a->row_pitch = g->row_pitch;
    a->w_pitch = g->w_pitch, a->tab_off = g->tab_off, a->buf_off = g->buf_off, a->buf_bytes = g->buf_bytes;
    a->out_off = g->out_off, a->out_pitch = g->out_pitch, a->ep_off = g->ep_off;
    a->nbuf = g->nbuf;
    a->ksteps = g->ksteps, a->tail8 = g->tail8, a->units = g->units, a->total = g->total;
    a->fd_slabs = g->fd_slabs, a->fd_tiles_q = g->fd_tiles_q, a->fd_tiles_p = g->fd_tiles_p, a->fd_cbv = g->fd_cbv;
    a->fd_cols = g->fd_cols, a->fd_tq = g->fd_tq, a->fd_gb = g->fd_gb, a->fd_cvo = g->fd_cvo;
}

#endif /* IGEMM_MEM_GROUPED_TILED_CUH */
