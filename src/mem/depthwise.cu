/*
 * depthwise.cu — the depthwise family (mem_depthwise, IGEMM_PATH_MEMORY): convs of groups = c = k
 * (one R x S filter per channel: MobileNet, EfficientNet, ConvNeXt, DeepLab, ...). They do R*S
 * multiply-adds per output element and read each input element about once: bound by memory (and,
 * for 7x7, by the multiply-add rate), never by dense tensor-core tiles (an implicit GEMM over groups
 * of one channel wastes all but 1/64 of every MMA: the general path ran them at 1-3% of their
 * bytes floor).
 *
 * Four kernels, one chosen per plan (dw_configure; `describe` names it, the hints
 * kernel=depthwise_tiled / depthwise_tma / depthwise_mma force one):
 *   - the TMA kernel (depthwise_tma.cuh, sm_90+) for square 3x3 and 5x5 windows of at most 192
 *     channels (stride_w 1 or 2, dil_w 1; forced: 7x7 and any channel count): the tiled kernel's
 *     items, each input window one TMA box into a ring of stages, a thread per 8-channel chunk
 *     and strip of output columns, 16-byte shared loads and stores; its tile chosen by dwx_choose;
 *   - the tiled kernel (depthwise_tiled.cuh) for filter widths 3, 5, 7 at stride_w 1 or 2 and
 *     dil_w 1 (any R, stride_h, dil_h): persistent CTAs over output tiles whose input windows are
 *     copied to shared memory by cp.async, double-buffered; a thread per channel pair, fp32 FMA;
 *     its tile chosen by dwt_choose;
 *   - the mma kernel (depthwise_mma.cuh) for every other filter of at most 50 taps (dilation,
 *     stride_w > 2, Rx1, ...): the same windows; per 8-channel chunk an mma.sync GEMM whose B is
 *     the block-diagonal filter of two taps, ldmatrix rows at each tap's offset as the im2col; its
 *     tile chosen by dwm_choose (measured slower than the tiled kernel on the tiled kernel's
 *     windows: decisions.md "depthwise-mma");
 *   - the strip kernel (depthwise_strip.cuh) for the rest: filters of more than 50 taps, images of
 *     2^31 elements or more, devices below sm_80 for the mma kernel's filters.
 * Layouts: x N x H x W x C, w C x R x S (KRSC with C/g = 1), y and the residual N x P x Q x C;
 * C % 8 == 0 and 16-byte aligned x, y, residual (the planner's fallback takes the rest). fp32
 * accumulation, the fused epilogue (alpha * scale + bias + beta * residual, the activation).
 * PTX: cp.async, ldmatrix, mma.sync, cp.async.bulk.tensor + mbarrier (the TMA kernel), griddepcontrol on
 * sm_90 (programmatic dependent launch).
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../common/epilogue.cuh"
#include "../common/fastdiv.h"
#include "../common/launch.h"
#include "../error.h"
#include "../internal.h"
#include "../ptx/griddepcontrol.cuh"
#include "../tensor_map.h"

#define DW_MAX_THREADS 256
#define DW_MAX_CBV 32     /* channel vectors per CTA: at most 256 channels */

typedef struct dw_args {
    igemm_conv_params_t p;
    int64_t qs, strips; /* strips per output row (ceil(q / OWT)), strips in all (n * p * qs) */
    igemm_fastdiv_t fd_qs, fd_p; /* qs and p as divisors, valid when fd_ok (strips < 2^31) */
    int fd_ok;
    int cbv;            /* 8-channel vectors per CTA (blockDim.x) */
} dw_args_t;

/* the family's configuration (igemm_family_priv) */
typedef struct dw_cfg {
    int cbv, ty, s_t, sw, owt, pdl;
    unsigned grid_x, grid_y;
    size_t smem;
    int smem_optin;                        /* the device's opt-in shared memory per block (bytes) */
    int tiled;                             /* the tiled kernel (depthwise_tiled.cuh), with: */
    int th, ns, in_rows, in_cols, cb, np, groups, pitch, chunk_pitch, tile_off, threads;
    int total;                             /* work items: tiles x channel blocks */
    igemm_fastdiv_t fd_taps, fd_tq, fd_tp, fd_cblocks, fd_cv, fd_cols; /* dwt_args_t's divisors, made at plan time */
    int mma;                               /* the mma kernel (depthwise_mma.cuh; tiles as above, OWT 1), with: */
    int tp, units;                         /* tap pairs compiled (5, 13, 25), 16-pixel units per tile */
    igemm_fastdiv_t fd_tw;                 /* the tile's output columns */
    int tma;                               /* the TMA kernel (depthwise_tma.cuh; tiles as above), with: */
    int x_stages;                          /* its ring's stages (the layout: dwx_layout) */
    igemm_fastdiv_t fd_ns;                 /* strips per tile */
} dw_cfg_t;
static_assert(sizeof(dw_cfg_t) <= IGEMM_FAMILY_PRIV_BYTES, "dw_cfg_t must fit the plan's family state");

/* per-plan state (the family scratch, 64-byte aligned): the TMA kernel's map of x (encoded when
 * x moves), the kernel's shared-memory attribute set (the plan's one instance) */
typedef struct dw_state {
    CUtensorMap tmap_x;
    const void *x_key;
    int have_x;
    int smem_attr_done;
} dw_state_t;
static_assert(sizeof(dw_state_t) + 63 <= IGEMM_FAMILY_STATE_BYTES, "dw_state_t must fit the family scratch");

static dw_state_t *dw_state_of(void *state) { return (dw_state_t *)(((uintptr_t)state + 63u) & ~(uintptr_t)63u); }

static __device__ __forceinline__ float2 dw_f2(__half2 v) { return __half22float2(v); }
static __device__ __forceinline__ float2 dw_f2(__nv_bfloat162 v) { return __bfloat1622float2(v); }
static __device__ __forceinline__ float dw_f1(__half v) { return __half2float(v); }
static __device__ __forceinline__ float dw_f1(__nv_bfloat16 v) { return __bfloat162float(v); }


#include "depthwise_strip.cuh"

/* A packed pair of 16-bit elements as fp32 (the tiled kernel's unpacking). */
template <typename T2>
static __device__ __forceinline__ float2 dw_unpack2(uint32_t u)
{
    if constexpr (sizeof(T2) == 4 && !__is_same(T2, __half2)) /* bf16: a shift and a mask (1 instruction each) */
        return make_float2(__uint_as_float(u << 16), __uint_as_float(u & 0xffff0000u));
    else
        return dw_f2(*(const T2 *)&u);
}

#include "depthwise_tiled.cuh"
#include "depthwise_mma.cuh"

/* ---- host side ---------------------------------------------------------------------------- */

/* output columns per strip: 4, or 2 for the 5- and 7-wide windows (registers: 128 per thread) */
static int dw_owt(int s_t) { return s_t >= 5 ? 2 : 4; }

static int dw_fast_s(const igemm_conv_params_t *p)
{
    const int s_ok = p->s == 3 || p->s == 5 || p->s == 7;
    return s_ok && (p->stride_w == 1 || p->stride_w == 2) && p->dil_w == 1 ? (int)p->s : 0;
}

/* The TMA kernel's compiled windows: R = S = 3, 5, 7, stride_w 1 or 2, dil_w 1, on sm_90+. */
static int dwx_window_ok(const igemm_conv_params_t *p, const igemm_device_info_t *dev)
{
    return dev->cc_major >= 9 && p->r == p->s && (p->s == 3 || p->s == 5 || p->s == 7) &&
           (p->stride_w == 1 || p->stride_w == 2) && p->dil_w == 1;
}

/* Under AUTO, the TMA kernel takes 3x3 and 5x5 windows of at most 192 channels, the tiled kernel
 * the rest. Measured (H100, 25 layers, decisions.md "depthwise-tma"): 1.0-1.46x the tiled kernel
 * plain and 1.04-1.40x fused on those; on wider channel counts at small images (384-1152 channels
 * at 7x7-14x14) 0.8-1.0x, on 7x7 windows 0.6-0.98x (a 7x7 filter row's weights reloaded per strip:
 * no fewer instructions than the tiled kernel's pairs). */
static int dwx_preferred(const igemm_conv_params_t *p)
{
    return (p->s == 3 || p->s == 5) && p->c <= 192;
}

/* channel vectors per CTA: all channels up to 256, fewer where the filters would not fit smem */
static int dw_cbv(const igemm_conv_params_t *p, int smem_optin)
{
    int cbv = (int)(p->c / 8 < DW_MAX_CBV ? p->c / 8 : DW_MAX_CBV);
    while (cbv > 1 && (size_t)p->r * p->s * cbv * 8 * sizeof(float) > (size_t)smem_optin) cbv /= 2;
    return cbv;
}

/* The tiled and mma kernels' items and divisors, once per plan (not per run), for a chosen tile
 * (c->th rows x c->ns column units, c->cb channels, c->in_cols window columns) over an output of
 * qunits column units (strips of the tiled kernel, columns of the mma kernel); grid_y 1. */
static void dw_tile_divisors(const igemm_conv_params_t *p, int64_t qunits, dw_cfg_t *c)
{
    const int64_t tq = (qunits + c->ns - 1) / c->ns, tp = (p->p + c->th - 1) / c->th, cblocks = (p->c + c->cb - 1) / c->cb;
    c->grid_y = 1;
    c->total = (int)(p->n * tp * tq * cblocks);
    c->fd_taps = igemm_fastdiv_make((int32_t)(p->r * p->s));
    c->fd_tq = igemm_fastdiv_make((int32_t)tq);
    c->fd_tp = igemm_fastdiv_make((int32_t)tp);
    c->fd_cblocks = igemm_fastdiv_make((int32_t)cblocks);
    c->fd_cv = igemm_fastdiv_make(c->cb / 8);
    c->fd_cols = igemm_fastdiv_make(c->in_cols);
}

/* The mma kernel's compiled tap pairs for this filter: 5 (at most 10 taps: 3x3, 1x7, 3x1, ...),
 * 13 (5x5), 25 (7x7), 0 for filters of more than 50 taps. */
static int dwm_tap_pairs(const igemm_conv_params_t *p)
{
    const int64_t taps = p->r * p->s;
    return taps <= 10 ? 5 : taps <= 26 ? 13 : taps <= 50 ? 25 : 0;
}

static int dw_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                       char *why, size_t why_len)
{
#define DW_WHY(...)                                                                                     \
    do {                                                                                                \
        if (why && why_len) snprintf(why, why_len, __VA_ARGS__);                                        \
    } while (0)
    if ((h->kernel && h->kernel != IGEMM_KERNEL_DEPTHWISE_TILED && h->kernel != IGEMM_KERNEL_DEPTHWISE_MMA &&
         h->kernel != IGEMM_KERNEL_DEPTHWISE_TMA) ||
        h->consumers || h->split_k || h->stages || h->staging_boxes ||
        h->filter_resident || h->fold_rows || h->stem_prepass) {
        DW_WHY("plan hints name sm90 settings");
        return 0;
    }
    if (p->groups == 1 || p->groups != p->c || p->k != p->c) {
        DW_WHY("groups = %lld, c = %lld, k = %lld: takes depthwise convs (groups = c = k)", (long long)p->groups,
               (long long)p->c, (long long)p->k);
        return 0;
    }
    if (p->c > ((int64_t)1 << 26)) {
        DW_WHY("c = %lld: the window's 32-bit offsets take c <= 2^26", (long long)p->c);
        return 0;
    }
    if (p->c % 8 != 0) {
        DW_WHY("c = %lld: needs c %% 8 == 0 (16-byte channel vectors)", (long long)p->c);
        return 0;
    }
    const int mma_ok = dwm_tap_pairs(p) > 0 && dev->cc_major >= 8;
    if (h->kernel == IGEMM_KERNEL_DEPTHWISE_MMA && !mma_ok) {
        DW_WHY("hints.kernel = depthwise_mma: takes filters of at most 50 taps on compute capability >= 8.0; r x s = "
               "%lldx%lld, device %d.%d", (long long)p->r, (long long)p->s, dev->cc_major, dev->cc_minor);
        return 0;
    }
    if (h->kernel == IGEMM_KERNEL_DEPTHWISE_TMA && !dwx_window_ok(p, dev)) {
        DW_WHY("hints.kernel = depthwise_tma: takes square filters 3x3, 5x5, 7x7 (stride_w 1, 2; dil_w 1) on compute "
               "capability >= 9.0; r x s = %lldx%lld, stride_w = %lld, dil_w = %lld, device %d.%d",
               (long long)p->r, (long long)p->s, (long long)p->stride_w, (long long)p->dil_w, dev->cc_major,
               dev->cc_minor);
        return 0;
    }
    if (h->kernel == IGEMM_KERNEL_DEPTHWISE_TILED && !dw_fast_s(p)) {
        DW_WHY("hints.kernel = depthwise_tiled: takes filter widths 3, 5, 7 (stride_w 1, 2; dil_w 1); s = %lld, "
               "stride_w = %lld, dil_w = %lld", (long long)p->s, (long long)p->stride_w, (long long)p->dil_w);
        return 0;
    }
    if ((h->tile_m || h->tile_n || h->rows_per_tile) && !dw_fast_s(p) && !mma_ok) {
        DW_WHY("tile hints (tile_m, tile_n, rows_per_tile) take the tiled kernel's filter widths 3, 5, 7 (stride_w 1, 2; "
               "dil_w 1) or the mma kernel's filters of at most 50 taps; %lldx%lld, stride_w = %lld, dil_w = %lld",
               (long long)p->r, (long long)p->s, (long long)p->stride_w, (long long)p->dil_w);
        return 0;
    }
    if ((size_t)p->r * p->s * 8 * sizeof(float) > (size_t)dev->smem_optin_per_block) {
        DW_WHY("filter %lldx%lld: its taps of 8 channels do not fit %d B of shared memory", (long long)p->r,
               (long long)p->s, dev->smem_optin_per_block);
        return 0;
    }
    return 1;
#undef DW_WHY
}

/* The mma kernel's configuration (c->tp set): the channel block cb (a multiple of 8 up to 64: a
 * warp per 8-channel chunk and unit, 8 / (cb / 8) warps per chunk up to cb = 32, one beyond) and the tile (th output rows x tw output columns) of least estimated time:
 * per SM, its CTAs' items (tiles x channel blocks over a grid of SMs x resident CTAs) times an
 * item's time, the larger of its issue time (the window copy's instructions, and per 16-pixel unit
 * a ldmatrix + mma per tap pair and the epilogue; the slowest warp of the CTA bounds the item) and
 * its DRAM time (the window with its halo, the output; at ~15 B per cycle per SM), slowed where
 * fewer than 16 warps per SM hide the latency. Hints: tile_n fixes cb, rows_per_tile th, tile_m
 * the tile's pixels (th x tw). Returns 0 where no tile fits in shared memory twice, the items do
 * not fit 31 bits or an image has 2^31 elements or more. */
static int dwm_choose(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                      dw_cfg_t *c)
{
    const int64_t R = p->r, S = p->s, sh = p->stride_h, sw = p->stride_w, dh = p->dil_h, dwl = p->dil_w;
    const int64_t smem_sm = (int64_t)dev->smem_optin_per_block + 1024;
    const int64_t sms = dev->sm_count > 0 ? dev->sm_count : 132;
    const int64_t pairs = (R * S + 1) / 2;
    const int64_t ybytes = p->out_dtype == IGEMM_DTYPE_F32 ? 4 : 2;
    const int regs_occ = c->tp <= 5 ? 4 : 2; /* DWM_MIN_BLOCKS */
    if (p->h * p->w * p->c >= ((int64_t)1 << 31) || p->p * p->q * p->c >= ((int64_t)1 << 31)) return 0;
    double best = -1.0;
    for (int cb = 8; cb <= 64; cb += 8) {
        if (h->tile_n ? cb != h->tile_n : cb > p->c) continue;
        /* a warp per chunk and 16-pixel unit: 8 / nch warps per chunk (one from 5 chunks on) */
        const int nch = cb / 8, wpc = nch <= 4 ? 8 / nch : 1, threads = 32 * nch * wpc;
        const int64_t cblocks = (p->c + cb - 1) / cb;
        for (int64_t th = 1; th <= 64 && th <= p->p; th++) {
            if (h->rows_per_tile && th != h->rows_per_tile) continue;
            for (int64_t tw = 1; tw <= 128 && tw <= p->q; tw++) {
                const int64_t npix = th * tw, units = (npix + 15) / 16;
                if (h->tile_m ? npix != h->tile_m : npix > 1024) continue;
                /* at least one unit per warp where the output has them */
                if (units < wpc && units < (p->p * p->q + 15) / 16 && !h->tile_m && !h->rows_per_tile) continue;
                const int64_t in_rows = (th - 1) * sh + (R - 1) * dh + 1, in_cols = (tw - 1) * sw + (S - 1) * dwl + 1;
                /* the row pitch such that the unit's next pixels, sh rows on, continue the bank pattern */
                const int64_t base = nch * in_cols;
                int64_t pitch16 = base;
                for (int64_t pad = 0; pad < 8; pad++)
                    if ((sh * (base + pad) - tw * sw) % 8 == 0) {
                        pitch16 = base + pad;
                        break;
                    }
                const int64_t smem = 2 * in_rows * pitch16 * 16;
                if (smem > dev->smem_optin_per_block) continue;
                int64_t occ = smem_sm / (smem + 1024);
                if (occ > regs_occ) occ = regs_occ;
                const int64_t total = p->n * ((p->p + th - 1) / th) * ((p->q + tw - 1) / tw) * cblocks;
                if (total >= ((int64_t)1 << 31)) continue;
                int64_t grid = total < sms * occ ? total : sms * occ;
                if (grid > cblocks) grid -= grid % cblocks;
                const int64_t per_cta = (total + grid - 1) / grid;
                const int64_t ctas_sm = (grid + sms - 1) / sms;
                /* an item: its warp instructions (the copy ~10 per 16-byte chunk and 32 lanes; a unit 2
                 * per tap pair + 40) over 4 schedulers at ~60% issue, one warp's chain of units (~10
                 * cycles per mma, 80 for the epilogue), its DRAM bytes at ~15 per cycle; the SM's
                 * CTAs share the first and the last */
                const double copy = 10.0 * (double)(in_rows * in_cols * nch) / 32.0;
                const double issue_all = copy + (double)(units * nch) * (2.0 * (double)pairs + 40.0);
                const double chain = copy / (threads / 32) + (double)((units + wpc - 1) / wpc) * (10.0 * (double)pairs + 80.0);
                /* (8-channel blocks copy half sectors: counted as 1.5x the bytes where c > 8) */
                const double bytes = (double)(in_rows * in_cols * cb * 2) * (cb == 8 && p->c > 8 ? 1.5 : 1.0) +
                                     (double)(npix * cb * ybytes);
                double item = (double)ctas_sm * issue_all / 2.4;
                if (chain > item) item = chain;
                if ((double)ctas_sm * bytes / 15.0 > item) item = (double)ctas_sm * bytes / 15.0;
                double hide = (double)(ctas_sm * threads / 32) / 16.0;
                if (hide > 1.0) hide = 1.0;
                const double t = ((double)per_cta * item + 2000.0) / hide;
                if (best < 0.0 || t < best) {
                    best = t;
                    c->cb = cb, c->threads = threads; /* (warps per chunk: the kernel derives them) */
                    c->th = (int)th, c->ns = (int)tw, c->in_rows = (int)in_rows, c->in_cols = (int)in_cols;
                    c->chunk_pitch = (int)(in_cols * 16), c->pitch = (int)(pitch16 * 16);
                    c->tile_off = 0, c->smem = (size_t)smem;
                    c->grid_x = (unsigned)grid;
                    c->units = (int)units;
                }
            }
        }
    }
    if (best < 0.0) return 0;
    c->owt = 1;
    dw_tile_divisors(p, p->q, c);
    c->fd_tw = igemm_fastdiv_make(c->ns);
    return 1;
}

/* The tiled kernel's configuration for a compiled window (c->s_t, c->sw set): the channel block
 * cb (a multiple of 8 from 32 up to 64: each pixel's copy at least two 32-byte sectors; fewer where
 * c is) and the tile (output rows th x 7- or 8-column strips ns) of least
 * estimated time: the items per CTA (tiles x channel blocks, padded channels included, over a grid
 * of SMs x resident CTAs: up to 4, as the two buffers allow) times an item's cost in instructions
 * per thread (its input chunks, its pieces' FMAs, shared loads and stores) and the warps sharing a
 * scheduler, plus one exposed copy, slowed where fewer than 24 warps per SM hide the latency.
 * Strips are of OWT = 7 output columns where that pads q less than 8 (q = 7, 14, 28, ...), else 8.
 * Tiles with fewer (row, strip) pieces than thread groups are left out where the output has
 * enough of them. Hints: tile_n fixes cb, rows_per_tile th, tile_m the tile's output pixels
 * (th x ns x OWT). Returns 0 where no tile fits in shared memory twice, the items do not fit 31
 * bits or an image (input or output) has 2^31 elements or more. */
static int dwt_choose(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                      dw_cfg_t *c)
{
    /* strips of 7 output columns where they pad q less than strips of 8 (q = 7, 14, 28, ...) */
    const int OWT = (p->q + 6) / 7 * 7 - p->q < (p->q + 7) / 8 * 8 - p->q ? 7 : 8, S = c->s_t, SW = c->sw;
    const int64_t R = p->r, sh = p->stride_h, dh = p->dil_h;
    const int64_t qstrips = (p->q + OWT - 1) / OWT;
    const int64_t smem_sm = (int64_t)dev->smem_optin_per_block + 1024;
    const int64_t sms = dev->sm_count > 0 ? dev->sm_count : 132;
    const int ncol = (OWT - 1) * SW + S;
    if (p->h * p->w * p->c >= ((int64_t)1 << 31) || p->p * p->q * p->c >= ((int64_t)1 << 31))
        return 0; /* (the kernel's offsets inside an image are 32-bit) */
    double best = -1.0;
    for (int cb = 8; cb <= 64 && cb <= p->c; cb += 8) {
        if (h->tile_n ? cb != h->tile_n : cb < 32 && cb < p->c) continue; /* >= 64 bytes of each pixel per copy */
        const int np = cb / 2, groups = DWT_THREADS / np, threads = np * groups, cv = cb / 8;
        const int64_t cblocks = (p->c + cb - 1) / cb;
        const int64_t wbytes = (R * S * cb * 4 + 15) / 16 * 16;
        for (int64_t th = 1; th <= 64 && th <= p->p; th++) {
            for (int64_t ns = 1; ns <= 16 && ns <= qstrips; ns++) {
                if ((h->rows_per_tile && th != h->rows_per_tile) || (h->tile_m && th * ns * OWT != h->tile_m)) continue;
                /* every thread group busy (where the output has the pieces for it; hints may say otherwise) */
                if (th * ns < groups && th * ns < p->p * qstrips && !h->rows_per_tile && !h->tile_m) continue;
                const int64_t in_rows = (th - 1) * sh + (R - 1) * dh + 1, in_cols = (ns * OWT - 1) * SW + S;
                /* chunk rows of an odd number of 16-byte chunks (a warp's 8 chunks of one column in 8
                 * different bank quads); the row pitch such that a warp's next group, sh rows on,
                 * continues the bank pattern of one contiguous position (where the stride allows) */
                const int64_t cpp = in_cols | 1, base = cv * cpp;
                int64_t pitch16 = base;
                for (int64_t pad = 0; pad < 8 && cv < 8; pad++)
                    if ((sh * (base + pad) - base) % 8 == 0) {
                        pitch16 = base + pad;
                        break;
                    }
                const int64_t smem = wbytes + 2 * in_rows * pitch16 * 16;
                if (smem > dev->smem_optin_per_block) continue;
                int64_t occ = smem_sm / (smem + 1024);
                if (occ > 4) occ = 4;
                const int64_t total = p->n * ((p->p + th - 1) / th) * ((qstrips + ns - 1) / ns) * cblocks;
                if (total >= ((int64_t)1 << 31)) continue;
                /* (a multiple of the channel blocks: each CTA keeps one block, its weights staged once) */
                int64_t grid = total < sms * occ ? total : sms * occ;
                if (grid > cblocks) grid -= grid % cblocks;
                const int64_t per_cta = (total + grid - 1) / grid;
                const double pieces = (double)((th * ns + groups - 1) / groups);
                const double piece = (double)(OWT * R * S) + 1.5 * (double)(R * ncol) + 4.0 * OWT;
                const double load = 6.0 * (double)(in_rows * in_cols * cv) / threads;
                const double item = 60.0 + load + pieces * piece;
                /* ~cycles (occ * threads / 128 warps per scheduler), over the latency hiding of
                 * fewer than 24 warps per SM */
                double hide = (double)(occ * threads / 32) / 24.0;
                if (hide > 1.0) hide = 1.0;
                const double t = ((double)per_cta * item * (double)(occ * threads) / 128.0 + 3000.0) / hide;
                if (best < 0.0 || t < best) {
                    best = t;
                    c->cb = cb, c->np = np, c->groups = groups, c->threads = threads;
                    c->th = (int)th, c->ns = (int)ns, c->in_rows = (int)in_rows, c->in_cols = (int)in_cols;
                    c->chunk_pitch = (int)(cpp * 16), c->pitch = (int)(pitch16 * 16);
                    c->tile_off = (int)wbytes, c->smem = (size_t)smem;
                    c->grid_x = (unsigned)grid;
                }
            }
        }
    }
    if (best < 0.0) return 0;
    c->owt = OWT;
    dw_tile_divisors(p, qstrips, c);
    return 1;
}

#include "depthwise_tma.cuh"

static igemm_status_t dw_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                   const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    dw_cfg_t *c = igemm_family_priv(cfg, dw_cfg_t);
    c->s_t = dw_fast_s(p);
    c->sw = c->s_t ? (int)p->stride_w : 0;
    c->smem_optin = dev->smem_optin_per_block;
    c->pdl = h->pdl >= 0 && dev->cc_major >= 9 && dev->driver_version >= 12030;
    cfg->workspace_bytes = 0;
    /* the tiled kernel for its compiled windows (filter widths 3, 5, 7 at stride_w 1, 2, dil_w 1:
     * measured faster than the mma kernel there, decisions.md "depthwise-mma"); the mma kernel for
     * the other filters of at most 50 taps (any stride and dilation; 1.5x the strip kernel) or
     * when the hint names it; the strip kernel for the rest */
    c->tma = (h->kernel == IGEMM_KERNEL_DEPTHWISE_TMA || (!h->kernel && dwx_preferred(p))) && dwx_window_ok(p, dev) &&
             dwx_choose(p, dev, h, c);
    c->tiled = !c->tma && h->kernel != IGEMM_KERNEL_DEPTHWISE_MMA && h->kernel != IGEMM_KERNEL_DEPTHWISE_TMA && c->s_t &&
               dwt_choose(p, dev, h, c);
    c->tp = !c->tma && !c->tiled && dev->cc_major >= 8 && h->kernel != IGEMM_KERNEL_DEPTHWISE_TILED &&
                    h->kernel != IGEMM_KERNEL_DEPTHWISE_TMA
                ? dwm_tap_pairs(p)
                : 0;
    c->mma = c->tp && dwm_choose(p, dev, h, c);
    if (!c->tma && !c->mma && !c->tiled && (h->tile_m || h->tile_n || h->rows_per_tile || h->kernel))
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                               "depthwise: hints kernel = %d, tile_m = %d, tile_n = %d, rows_per_tile = %d: no tile of "
                               "that shape (output rows x columns x channels: a multiple of 8 up to 64) fits %d B of shared memory twice",
                               h->kernel, h->tile_m, h->tile_n, h->rows_per_tile, dev->smem_optin_per_block);
    if (c->tma || c->mma || c->tiled) { /* the three kernels over tiled work items */
        if (h->grid > 0 && c->grid_x > (unsigned)h->grid) c->grid_x = (unsigned)h->grid; /* the hint: at most */
        char how[448], grid[32];
        if (c->tma)
            snprintf(how, sizeof how,
                     "tma; persistent CTAs over tiles of %d output rows x %d columns x %d channels, each tile's %dx%d "
                     "input window loaded by one TMA box (zero fill outside the image) into a ring of %d stages, a "
                     "thread per 8-channel chunk over the tile's %d-column strips, fp32 FMA, fused epilogue with "
                     "16-byte stores",
                     c->th, c->ns * c->owt, c->cb, c->in_rows, c->in_cols, c->x_stages, c->owt);
        else if (c->mma)
            snprintf(how, sizeof how,
                     "mma.sync; persistent CTAs over tiles of %d output rows x %d columns x %d channels, each tile's "
                     "%dx%d input window copied to shared memory (cp.async, zero-filled padding, the next tile's copy "
                     "in flight), a warp per 8-channel chunk and 16-pixel unit: per tap pair a ldmatrix of the window "
                     "(implicit im2col) and an m16n8k16 MMA with the taps' block-diagonal filter (fp32 accumulation), "
                     "fused epilogue",
                     c->th, c->ns, c->cb, c->in_rows, c->in_cols);
        else
            snprintf(how, sizeof how,
                     "tiled; persistent CTAs over tiles of %d output rows x %d columns x %d channels, each tile's %dx%d "
                     "input window copied to shared memory (cp.async, zero-filled padding, the next tile's copy in "
                     "flight), a thread per channel pair over the tile's %d-column strips, fp32 FMA, fused epilogue",
                     c->th, c->ns * c->owt, c->cb, c->in_rows, c->in_cols, c->owt);
        if (c->tiled) snprintf(grid, sizeof grid, "%ux%u", c->grid_x, c->grid_y);
        else snprintf(grid, sizeof grid, "%u", c->grid_x);
        snprintf(cfg->desc, sizeof cfg->desc,
                 "depthwise %lldx%lld (stride %lldx%lld, dilation %lldx%lld): %s; %zu B of shared memory, grid %s%s",
                 (long long)p->r, (long long)p->s, (long long)p->stride_h, (long long)p->stride_w, (long long)p->dil_h,
                 (long long)p->dil_w, how, c->smem, grid, c->pdl ? ", programmatic dependent launch" : "");
        return IGEMM_STATUS_SUCCESS;
    }
    const int vw = 8; /* channels per thread */
    c->cbv = dw_cbv(p, dev->smem_optin_per_block);
    c->ty = DW_MAX_THREADS / c->cbv;
    c->owt = dw_owt(c->s_t);
    c->smem = (size_t)p->r * p->s * c->cbv * vw * sizeof(float);
    const int64_t qs = (p->q + c->owt - 1) / c->owt, strips = p->n * p->p * qs;
    const int64_t gy = (p->c + vw * c->cbv - 1) / (vw * c->cbv);
    /* about 4 CTAs per SM in all (6 for the pair kernel, 3 resident), each looping over its strips:
     * the filters staged once per CTA */
    int64_t gx = (strips + c->ty - 1) / c->ty,
            cap = (int64_t)(dev->sm_count > 0 ? dev->sm_count : 132) * 4 / gy;
    if (cap < 1) cap = 1;
    if (gx > cap) gx = cap;
    if (gy > 65535)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED, "depthwise: c = %lld needs %lld channel blocks (> 65535)",
                               (long long)p->c, (long long)gy);
    c->grid_x = (unsigned)gx;
    c->grid_y = (unsigned)gy;
    snprintf(cfg->desc, sizeof cfg->desc,
             "depthwise %lldx%lld (stride %lldx%lld, dilation %lldx%lld): %s; CTA of %d channels x %d strips of %d "
             "output columns, filters in shared memory (%zu B, fp32), fp32 FMA, fused "
             "epilogue; grid %ux%u%s",
             (long long)p->r, (long long)p->s, (long long)p->stride_h, (long long)p->stride_w, (long long)p->dil_h,
             (long long)p->dil_w,
             c->s_t ? "8-channel vectors, each input column loaded once per strip and filter row (the window in registers)"
                      : "8-channel vectors, generic taps (one load per tap and output)",
             vw * c->cbv, c->ty, c->owt, c->smem, c->grid_x, c->grid_y, c->pdl ? ", programmatic dependent launch" : "");
    return IGEMM_STATUS_SUCCESS;
}

/* Launches kern (either kernel of the family) on the plan's grid with block threads, c->smem bytes
 * of dynamic shared memory (the limit raised on the plan's first run) and PDL where the plan has
 * it. */
template <typename A>
static cudaError_t dw_launch_kernel(void (*kern)(const A), const A *a, dim3 block, const dw_cfg_t *c, dw_state_t *ds,
                                    cudaStream_t st)
{
    const cudaError_t e = igemm_raise_smem_limit((const void *)kern, c->smem, c->smem_optin, &ds->smem_attr_done);
    if (e != cudaSuccess) return e;
    cudaLaunchConfig_t lc;
    cudaLaunchAttribute attr;
    igemm_launch_config_1d(&lc, &attr, c->grid_x, 1, c->smem, st, c->pdl);
    lc.gridDim = dim3(c->grid_x, c->grid_y, 1);
    lc.blockDim = block;
    return cudaLaunchKernelEx(&lc, kern, *a);
}

template <typename T, typename T2, int S_T, int SW, int OWT>
static cudaError_t dw_launch(const dw_args_t *a, const dw_cfg_t *c, dw_state_t *ds, cudaStream_t st)
{
    return dw_launch_kernel(dw_kernel<T, T2, S_T, SW, OWT>, a, dim3((unsigned)c->cbv, (unsigned)c->ty, 1), c, ds, st);
}

template <typename T, typename T2>
static cudaError_t dw_dispatch(const dw_args_t *a, const dw_cfg_t *c, dw_state_t *ds, cudaStream_t st)
{
    switch (c->s_t * 10 + c->sw) {
    case 31: return dw_launch<T, T2, 3, 1, 4>(a, c, ds, st);
    case 32: return dw_launch<T, T2, 3, 2, 4>(a, c, ds, st);
    case 51: return dw_launch<T, T2, 5, 1, 2>(a, c, ds, st);
    case 52: return dw_launch<T, T2, 5, 2, 2>(a, c, ds, st);
    case 71: return dw_launch<T, T2, 7, 1, 2>(a, c, ds, st);
    case 72: return dw_launch<T, T2, 7, 2, 2>(a, c, ds, st);
    default: return dw_launch<T, T2, 0, 0, 4>(a, c, ds, st);
    }
}

template <typename T, typename T2, int S_T, int SW>
static cudaError_t dwt_launch(const dwt_args_t *a, const dw_cfg_t *c, dw_state_t *ds, cudaStream_t st)
{
    void (*kern)(const dwt_args_t) = c->owt == 7 ? dwt_kernel<T, T2, S_T, SW, 7> : dwt_kernel<T, T2, S_T, SW, 8>;
    return dw_launch_kernel(kern, a, dim3((unsigned)c->threads, 1, 1), c, ds, st);
}

template <typename T>
static cudaError_t dwm_dispatch(const dwt_args_t *a, const dw_cfg_t *c, dw_state_t *ds, cudaStream_t st)
{
    void (*kern)(const dwt_args_t) = c->tp == 5 ? dwm_kernel<T, 5> : c->tp == 13 ? dwm_kernel<T, 13> : dwm_kernel<T, 25>;
    return dw_launch_kernel(kern, a, dim3((unsigned)c->threads, 1, 1), c, ds, st);
}

template <typename T, typename T2>
static cudaError_t dwt_dispatch(const igemm_conv_params_t *p, const dw_cfg_t *c, dw_state_t *ds, cudaStream_t st)
{
    dwt_args_t a;
    memset(&a, 0, sizeof a);
    a.p = *p;
    a.th = c->th, a.ns = c->ns, a.in_rows = c->in_rows, a.in_cols = c->in_cols;
    a.cb = c->cb, a.np = c->np, a.groups = c->groups, a.pitch = c->pitch, a.chunk_pitch = c->chunk_pitch;
    a.tile_off = c->tile_off, a.buf_bytes = c->in_rows * c->pitch, a.total = c->total;
    a.fd_taps = c->fd_taps, a.fd_tq = c->fd_tq, a.fd_tp = c->fd_tp, a.fd_cblocks = c->fd_cblocks;
    a.fd_cv = c->fd_cv, a.fd_cols = c->fd_cols;
    a.units = c->units, a.fd_tw = c->fd_tw;
    if (c->mma) return dwm_dispatch<T>(&a, c, ds, st);
    switch (c->s_t * 10 + c->sw) {
    case 31: return dwt_launch<T, T2, 3, 1>(&a, c, ds, st);
    case 32: return dwt_launch<T, T2, 3, 2>(&a, c, ds, st);
    case 51: return dwt_launch<T, T2, 5, 1>(&a, c, ds, st);
    case 52: return dwt_launch<T, T2, 5, 2>(&a, c, ds, st);
    case 71: return dwt_launch<T, T2, 7, 1>(&a, c, ds, st);
    default: return dwt_launch<T, T2, 7, 2>(&a, c, ds, st);
    }
}

static igemm_status_t dw_run(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                             void *state, void *stream, const igemm_inner_t *inner)
{
    (void)workspace, (void)inner;
    const dw_cfg_t *c = igemm_family_priv((igemm_family_config_t *)cfg, dw_cfg_t);
    if (c->tma) {
        igemm_status_t rc = IGEMM_STATUS_SUCCESS;
        const cudaError_t e = p->in_dtype == IGEMM_DTYPE_BF16
                                  ? dwx_launch<__nv_bfloat16>(p, c, dw_state_of(state), (cudaStream_t)stream, &rc)
                                  : dwx_launch<__half>(p, c, dw_state_of(state), (cudaStream_t)stream, &rc);
        if (rc != IGEMM_STATUS_SUCCESS) return rc;
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "depthwise launch (c = %lld, %lldx%lld, tma): %s",
                                   (long long)p->c, (long long)p->r, (long long)p->s, cudaGetErrorString(e));
        }
        return IGEMM_STATUS_SUCCESS;
    }
    if (c->tiled || c->mma) {
        const cudaError_t e = p->in_dtype == IGEMM_DTYPE_BF16
                                  ? dwt_dispatch<__nv_bfloat16, __nv_bfloat162>(p, c, dw_state_of(state), (cudaStream_t)stream)
                                  : dwt_dispatch<__half, __half2>(p, c, dw_state_of(state), (cudaStream_t)stream);
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "depthwise launch (c = %lld, %lldx%lld): %s",
                                   (long long)p->c, (long long)p->r, (long long)p->s, cudaGetErrorString(e));
        }
        return IGEMM_STATUS_SUCCESS;
    }
    dw_args_t a;
    memset(&a, 0, sizeof a);
    a.p = *p;
    a.qs = (p->q + c->owt - 1) / c->owt;
    a.strips = p->n * p->p * a.qs;
    a.fd_ok = a.strips < ((int64_t)1 << 31);
    if (a.fd_ok) a.fd_qs = igemm_fastdiv_make((int32_t)a.qs), a.fd_p = igemm_fastdiv_make((int32_t)p->p);
    a.cbv = c->cbv;
    dw_state_t *ds = dw_state_of(state);
    const cudaStream_t st = (cudaStream_t)stream;
    const cudaError_t e = p->in_dtype == IGEMM_DTYPE_BF16 ? dw_dispatch<__nv_bfloat16, __nv_bfloat162>(&a, c, ds, st)
                                                         : dw_dispatch<__half, __half2>(&a, c, ds, st);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "depthwise launch (c = %lld, %lldx%lld): %s", (long long)p->c,
                               (long long)p->r, (long long)p->s, cudaGetErrorString(e));
    }
    return IGEMM_STATUS_SUCCESS;
}

extern "C" const igemm_family_t igemm_family_depthwise = {
    "mem_depthwise", IGEMM_PATH_MEMORY, 1, dw_supports, dw_configure, NULL, dw_run,
};
