/*
 * core/scheduler.cuh — the persistent scheduler of the Hopper conv kernels: how a CTA walks its
 * work units (unit = (tile, split); CTA b takes units b, b + grid, ...; every role of the CTA
 * walks the same sequence) and what a unit is: the rasterised tile decode (groups of
 * SM90_GROUP_M M-tiles, so consecutive units share filter tiles and A rows in L2), the split-K
 * k-block ranges, the filter-resident walk (one N-tile per CTA), the split-in-cluster halves,
 * and a tile's im2col box origin and k-block taps. Divisions by run-time constants use
 * igemm_fastdiv (host-made multiply-high divisors).
 */
#ifndef IGEMM_SM90_CORE_SCHEDULER_CUH
#define IGEMM_SM90_CORE_SCHEDULER_CUH

#include "args.cuh"

/* k-blocks of its first unit a CTA's thread 0 issues at set-up, before the __syncthreads (the
 * producer warp issues the rest): the first stage's latency starts ~0.4 us sooner. Each costs
 * thread 0 (non-uniform registers) ~0.1 us, which every other warp waits for: with all S stages
 * the set-up's end moved from 0.51 to 1.25 us (docs/decisions.md "early-stages", S13-3). */
#define SM90_EARLY_STAGES 2

/* Work unit -> tile origin (m0, n0) and k-block range [kb0, kb1). Units are split-major; inside
 * a split, tiles go in groups of group_m M-tiles (all N-tiles of a group, M fastest), so
 * consecutive units share filter tiles and A rows in L2. Divisions by run-time constants use
 * igemm_fastdiv (a few instructions instead of ~40 per '/'). */
template <bool BRES>
static __device__ __forceinline__ void sm90_decode_unit(const igemm_sm90_args_t &a, int unit, int bn,
                                                        int &m0, int &n0, int &kb0, int &kb1)
{
    if constexpr (BRES) { /* unit = c + lap*grid: CTA c, N-tile c % tiles_n, M-tile c / tiles_n + lap *
                        (CTAs of that N-tile); m0 >= M past the CTA's last M-tile (every role stops
                        there: a.num_units = grid * the most laps any CTA takes) */
        const int lap = igemm_fastdiv_div(unit, a.fd_grid);
        const int c = unit - lap * a.fd_grid.d;
        const int cr = igemm_fastdiv_div(c, a.fd_tn);
        const int tn = c - cr * a.tiles_n;
        m0 = (cr + lap * (a.rq + (tn < a.rr ? 1 : 0))) * a.bm;
        n0 = tn * bn;
        kb0 = 0;
        kb1 = a.k_iters;
        return;
    }
    int t = unit, split = 0;
    if (a.splits > 1) {
        split = igemm_fastdiv_div(unit, a.fd_tiles);
        t = unit - split * a.num_tiles;
    }
    const int g = igemm_fastdiv_div(t, a.fd_group);
    const int local = t - g * a.fd_group.d;
    const bool full = g < a.full_groups;
    const int gm = full ? a.fd_gm.d : a.fd_gm_tail.d;
    const int tn = full ? igemm_fastdiv_div(local, a.fd_gm) : igemm_fastdiv_div(local, a.fd_gm_tail);
    const int tm = g * a.group_m + (local - tn * gm);
    m0 = tm * a.bm;
    n0 = tn * bn;
    if (a.splits > 1) { /* split s: k_q + (s < k_r) k-blocks */
        kb0 = split * a.k_q + min(split, a.k_r);
        kb1 = kb0 + a.k_q + (split < a.k_r ? 1 : 0);
    } else {
        kb0 = 0;
        kb1 = a.k_iters;
    }
}

/* The k-block range of cluster rank `rank` in a split-in-cluster plan (SKC): rank 0 the first
 * ceil(k_iters / 2) k-blocks of the tile, rank 1 the rest (k_iters >= 2: both non-empty). */
static __device__ __forceinline__ void sm90_skc_range(const igemm_sm90_args_t &a, int rank, int &kb0, int &kb1)
{
    const int kh = (a.k_iters + 1) >> 1;
    kb0 = rank ? kh : 0;
    kb1 = rank ? a.k_iters : kh;
}

/* The filter-base coordinates of output pixel m0 = (nb*P + p0)*Q + q0: image nb, input row h0
 * and column w0 of the box's first pixel (before the tap offsets). */
static __device__ __forceinline__ void sm90_box_origin(const igemm_sm90_args_t &a, int m0, int &nb, int &h0, int &w0)
{
    nb = igemm_fastdiv_div(m0, a.fd_pq);
    const int rem = m0 - nb * a.pq;
    const int p0 = igemm_fastdiv_div(rem, a.fd_q);
    const int q0 = rem - p0 * a.q;
    w0 = q0 * a.stride_w - a.pad_left;
    h0 = p0 * a.stride_h - a.pad_top;
}

/* k-block kb = (r*S + s)*CB + cb: its channel block cb and filter tap (r, s). */
static __device__ __forceinline__ void sm90_kblock_tap(const igemm_sm90_args_t &a, int kb, int &cb, int &r, int &s)
{
    cb = 0, r = 0, s = 0;
    if (kb > 0) {
        cb = kb % a.c_blocks;
        const int rs = kb / a.c_blocks;
        r = rs / a.filter_s;
        s = rs - r * a.filter_s;
    }
}

/* The k-block after (cb, r, s): the next channel block, then the next tap. */
static __device__ __forceinline__ void sm90_kblock_next(const igemm_sm90_args_t &a, int &cb, int &r, int &s)
{
    if (++cb == a.c_blocks) {
        cb = 0;
        if (++s == a.filter_s) {
            s = 0;
            ++r;
        }
    }
}

/* K-blocks of a CTA's first unit [kb0, kb1) that thread 0 issues at set-up (ring of S stages). */
static __device__ __forceinline__ int sm90_early_stages(int S, int kb0, int kb1)
{
    return min(min(S, SM90_EARLY_STAGES), kb1 - kb0);
}

#endif /* IGEMM_SM90_CORE_SCHEDULER_CUH */
