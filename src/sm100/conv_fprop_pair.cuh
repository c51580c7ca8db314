/*
 * conv_fprop_pair.cuh — the Blackwell (sm_100a) conv2d fprop kernel of the seeds over 2-CTA
 * pairs (cta_group::2): implicit GEMM (M = n*p*q output pixels, N = k, K = r*s*c) on 256 x BN
 * tiles (BN = 128 or 256), one tile per CTA pair = a cluster of 2 CTAs on two SMs, the K loop
 * over the Hopper core's k-blocks (a filter tap x 64 channels), as conv_fprop.cuh.
 *
 * THE PAIR: the cluster's CTA of rank 0 is the LEADER, rank 1 the PEER. Of the pair's tile
 *   (rows m0 .. m0 + 255, channels n0 .. n0 + BN - 1) each CTA holds, in its own shared memory,
 *   its 128 rows of A (leader: m0 .. +127, peer: m0 + 128 .. +255; sm100/schedule.h's tile of
 *   cluster CTA rx = rank) and BN / 2 rows of B (leader: channels n0 .., peer: n0 + BN/2 ..), at
 *   the same offsets in both CTAs (the same plan), and in its own TMEM the accumulator of its
 *   128 rows x all BN columns (lanes 0-127, the same TMEM address in both: one
 *   tcgen05.alloc.cta_group::2 by warp 1 of each CTA).
 * WARP ROLES (256 threads per CTA, the eight warps of conv_fprop.cuh):
 *   warp 0, one thread, BOTH CTAs   TMA loads of the CTA's own A and B halves per k-block into
 *                       its ring stage (cp.async.bulk.tensor .cta_group::2), every byte counted on
 *                       the LEADER's full barrier of the stage (a shared::cluster address, mapa);
 *                       the leader's producer alone arrives on it, with expect_tx of both CTAs'
 *                       bytes (a.full_tx = 2 x (A + B/2 stage) = plan.input_expected_bytes). A
 *                       producer waits on its own CTA's empty barrier of the stage. Before the
 *                       cluster barrier of the teardown it waits until its last S stages were
 *                       released (the multicast commits have landed in its shared memory).
 *   warp 1              TMEM: alloc / relinquish cta_group::2 (both CTAs' warp 1). LEADER, one
 *                       thread: per k-block four tcgen05.mma.cta_group::2 kind::f16 M256 N=BN K16
 *                       into accumulator t % 2 (after its acc_empty, a.acc_empty_arv = 8
 *                       arrivals: lane 0 of each epilogue warp of both CTAs), the stage's
 *                       release by tcgen05.commit.cta_group::2 multicast to BOTH CTAs' empty
 *                       barriers (mask 0b11), the tile's by a multicast commit to both acc_full.
 *                       Peer: idle until the teardown.
 *   warp 2, one thread, LEADER      the scheduler: per request it waits for clc_empty of the slot
 *                       (a.clc_empty_arv = 14: the scheduler and the MMA thread; producer, 4
 *                       epilogue warps and epilogue load of each CTA), arms its own clc_full and
 *                       the peer's (arrive.expect_tx 16, remote) and issues
 *                       clusterlaunchcontrol.try_cancel .multicast::cluster::all: a successful
 *                       response cancels a whole not-yet-launched CLUSTER (its first CTA's id,
 *                       even: unit = id / 2) and lands in both CTAs' slot. Peer: idle.
 *   warp 7, one thread, BOTH CTAs   the epilogue load of conv_fprop.cuh for the CTA's own 128 rows.
 *   warps 3-6, BOTH CTAs            the epilogue of conv_fprop.cuh (sm100k_epilogue_chunks) on the
 *                       CTA's own TMEM and rows; each warp's lane 0 then frees the accumulator by
 *                       a remote arrival on the LEADER's acc_empty (release.cluster).
 * Every role of both CTAs walks the same unit sequence (blockIdx.x / 2, then each response's), and
 * arrives on the leader's clc_empty per response read (the peer's by a remote arrival). A CTA
 * whose 128 rows lie past M (the last pair of an odd count of 128-row tiles) still loads (the
 * last valid rows, for the pair's MMA) but has no epilogue work.
 * SETUP: barrier init, fence.mbarrier_init.release.cluster, a cluster barrier (both CTAs running,
 *   every barrier initialised before any remote arrival or complete_tx), the TMEM alloc, a second
 *   cluster barrier (both allocations done before the leader's first MMA writes the peer's TMEM).
 * TEARDOWN: the producers' drains (above); the leader's MMA thread waits for the last
 *   accumulators' acc_empty and its scheduler for the last responses' clc_empty (every remote
 *   arrival into the leader has landed); then a cluster barrier (neither CTA frees TMEM or exits
 *   while the peer's MMAs, multicast commits or CLC writes may still reach it), the dealloc
 *   cta_group::2 by warp 1 of both, and a last cluster barrier (the peer is alive for the dealloc).
 * SHARED MEMORY (igemm_sm100_plan with cta_group 2, bm 128, bn BN/2, mma 256 x BN): as
 *   conv_fprop.cuh, with B stages of BN/2 rows.
 * PTX: tcgen05.alloc / relinquish_alloc_permit / dealloc / mma / commit .cta_group::2 (commit with
 *   .multicast::cluster and a CTA mask), tcgen05.ld / wait::ld / fences; cp.async.bulk.tensor
 *   .cta_group::2 (im2col / tile loads onto the leader's barrier), tile stores; mapa,
 *   mbarrier.arrive(.expect_tx).release.cluster.shared::cluster, try_wait.parity(.acquire.cluster);
 *   barrier.cluster.arrive.release / wait.acquire; clusterlaunchcontrol.try_cancel
 *   .multicast::cluster::all / query_cancel; griddepcontrol.
 * NOT RUN ON HARDWARE: no Blackwell GPU is available to the project; the family's first-use
 * self-check (src/selfcheck.c: cases forced onto this kernel with tile_m = 256) runs it against the
 * direct path on the device before any plan may use the family (docs/sm100.md).
 */
#ifndef IGEMM_SM100_CONV_FPROP_PAIR_CUH
#define IGEMM_SM100_CONV_FPROP_PAIR_CUH

#include "../ptx/cluster.cuh"
#include "conv_fprop.cuh"

#define SM100P_CLUSTER 2 /* CTAs per cluster: one pair */

/* The next unit of a role: the response in this CTA's slot `slot` (lap parity `phase`); `arrive`:
 * this thread's arrival on the leader's clc_empty[slot] (clc_empty_l: its shared::cluster
 * address). Returns 0 when the response cancelled nothing. */
static __device__ __forceinline__ int sm100p_next(uint32_t clc_full, uint32_t clc_empty_l, uint32_t resp, int slot,
                                                  uint32_t phase, bool arrive, int *unit)
{
    ptx_mbarrier_wait_parity_acquire_cluster(clc_full + 8u * slot, phase);
    uint32_t x, y, z;
    const uint32_t ok = ptx_clusterlaunchcontrol_query_cancel(resp + 16u * slot, &x, &y, &z);
    if (arrive) ptx_mbarrier_arrive_release_cluster_shared_cluster(clc_empty_l + 8u * slot);
    *unit = (int)(x / SM100P_CLUSTER);
    return (int)ok;
}

template <int BN>
__global__ void __cluster_dims__(SM100P_CLUSTER, 1, 1) __launch_bounds__(SM100K_THREADS, 1)
    igemm_sm100_conv_fprop_pair(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_w,
                                const __grid_constant__ CUtensorMap tmap_y, const __grid_constant__ CUtensorMap tmap_r,
                                const __grid_constant__ igemm_sm100_args_t a)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    const uint32_t base = (ptx_cvta_to_shared(smem_raw) + 1023u) & ~1023u;
    const int S = a.g.stages, ACC = SM100K_ACCUM_STAGES, CLC = SM100K_CLC_STAGES;
    constexpr uint32_t TMEM_COLS = SM100K_ACCUM_STAGES * BN; /* per CTA: 128 lanes x 2 accumulators */
    const uint32_t a_smem = base + a.a_off, b_smem = base + a.b_off;
    const uint32_t full = base + a.bar_off, empty = full + 8u * S;
    const uint32_t acc_full = empty + 8u * S, acc_empty = acc_full + 8u * ACC;
    const uint32_t clc_full = acc_empty + 8u * ACC, clc_empty = clc_full + 8u * CLC;
    const int E = a.src_tma ? BN / 32 : 0;
    const uint32_t epi_full = clc_empty + 8u * CLC, epi_empty = epi_full + 8u * E, order = epi_empty + 8u * E;
    const uint32_t resp = base + a.resp_off, tslot = base + a.tslot_off;
    const int warp = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31);
    const int KB = a.g.k_iters;
    const uint32_t rank = ptx_cluster_ctarank(), leader = rank & ~1u;
    const bool is_leader = rank == leader;
    const uint16_t pair_mask = (uint16_t)(3u << leader);
    /* the leader's barriers, as shared::cluster addresses (this CTA's own in the leader) */
    const uint32_t full_l = ptx_mapa_shared_cluster(full, leader);
    const uint32_t acc_empty_l = ptx_mapa_shared_cluster(acc_empty, leader);
    const uint32_t clc_empty_l = ptx_mapa_shared_cluster(clc_empty, leader);

    if (threadIdx.x == 0) {
        ptx_prefetch_tensormap(&tmap_x);
        ptx_prefetch_tensormap(&tmap_w);
        for (int s = 0; s < S; s++) {
            ptx_mbarrier_init(full + 8u * s, 1);  /* the leader's producer: arrive.expect_tx (both halves) */
            ptx_mbarrier_init(empty + 8u * s, 1); /* the leader's multicast tcgen05.commit */
        }
        for (int i = 0; i < ACC; i++) {
            ptx_mbarrier_init(acc_full + 8u * i, 1);              /* the leader's multicast commit */
            ptx_mbarrier_init(acc_empty + 8u * i, a.acc_empty_arv); /* leader only: both CTAs' epilogue warps */
        }
        for (int i = 0; i < CLC; i++) {
            ptx_mbarrier_init(clc_full + 8u * i, 1);               /* the leader's scheduler (remote in the peer) */
            ptx_mbarrier_init(clc_empty + 8u * i, a.clc_empty_arv); /* leader only: every role of both CTAs */
        }
        for (int i = 0; i < E; i++) {
            ptx_mbarrier_init(epi_full + 8u * i, 1);
            ptx_mbarrier_init(epi_empty + 8u * i, 128);
        }
        ptx_mbarrier_init(order, 1);
        ptx_fence_mbarrier_init_release_cluster();
    }
    /* both CTAs running and their barriers initialised before any cross-CTA signal or the alloc */
    ptx_barrier_cluster_arrive_release();
    ptx_barrier_cluster_wait_acquire();
    if (warp == 1) {
        ptx_tcgen05_alloc_cta_group_2(tslot, TMEM_COLS);
        ptx_tcgen05_relinquish_alloc_permit_cta_group_2();
    }
    ptx_tcgen05_fence_before_thread_sync();
    ptx_barrier_cluster_arrive_release(); /* both allocations done before the first MMA */
    ptx_barrier_cluster_wait_acquire();
    ptx_tcgen05_fence_after_thread_sync();
    const uint32_t tmem = *(volatile uint32_t *)((uint8_t *)smem_raw + (tslot - ptx_cvta_to_shared(smem_raw)));
    ptx_griddepcontrol_launch_dependents();
    ptx_griddepcontrol_wait();

    int unit = (int)(blockIdx.x / SM100P_CLUSTER);
    if (warp == 0) {
        /* ------------------------------------------------------------ TMA producer (both CTAs) */
        if (lane == 0) {
            int j = 0;
            const int last_m0 = (a.g.tiles_m - 1) * 128; /* the loads of a CTA past M: the last rows */
            const int b_row = (int)rank * (BN / 2);       /* this CTA's half of the pair's channels */
            for (int t = 0;; t++) {
                int m0, n0, nb, h0, w0;
                sm100k_tile(a, unit, SM100P_CLUSTER, (int)(rank - leader), BN, m0, n0);
                /* a CTA whose rows (or B half) lie wholly past M (N) loads valid rows instead: the
                 * pair's MMA needs its half; their results are never stored */
                const int am0 = m0 < last_m0 ? m0 : last_m0;
                const int bn0 = (int64_t)n0 + b_row < a.g.gemm_n ? n0 + b_row : n0;
                sm90_box_origin(a.g, am0, nb, h0, w0);
                int cb = 0, r = 0, s = 0;
                for (int kb = 0; kb < KB; kb++, j++) {
                    const int st = j % S;
                    ptx_mbarrier_wait_parity(empty + 8u * st, ((uint32_t)(j / S) & 1u) ^ 1u);
                    if (is_leader) ptx_mbarrier_arrive_expect_tx(full + 8u * st, a.full_tx);
                    const uint32_t fb = full_l + 8u * st;
                    const uint32_t ad = a_smem + (uint32_t)st * a.a_stage_bytes;
                    if (a.g.a_tiled)
                        ptx_cp_async_bulk_tensor_2d_tile_cta_group_2(ad, &tmap_x, fb, cb * SM90_BK, am0);
                    else
                        ptx_cp_async_bulk_tensor_4d_im2col_cta_group_2(ad, &tmap_x, fb, cb * SM90_BK, w0, h0, nb,
                                                                       (uint16_t)(s * a.g.dil_w),
                                                                       (uint16_t)(r * a.g.dil_h));
                    ptx_cp_async_bulk_tensor_4d_tile_cta_group_2(b_smem + (uint32_t)st * a.b_stage_bytes, &tmap_w, fb,
                                                                 cb * SM90_BK, s, r, bn0);
                    sm90_kblock_next(a.g, cb, r, s);
                    if (j + 1 == (S < KB ? S : KB)) ptx_mbarrier_arrive(order);
                }
                if (!sm100p_next(clc_full, clc_empty_l, resp, t % CLC, (uint32_t)(t / CLC) & 1u, true, &unit)) break;
            }
            /* drain: every stage this CTA filled has been released by the leader's multicast commit */
            for (int i = 0; i < S; i++, j++)
                ptx_mbarrier_wait_parity(empty + 8u * (j % S), ((uint32_t)(j / S) & 1u) ^ 1u);
        }
    } else if (warp == 1) {
        /* ------------------------------------------------------------ MMA issuer (leader) */
        if (lane == 0 && is_leader) {
            int j = 0, t = 0;
            for (;; t++) {
                const int acc = t % ACC;
                ptx_mbarrier_wait_parity_acquire_cluster(acc_empty + 8u * acc, ((uint32_t)(t / ACC) & 1u) ^ 1u);
                ptx_tcgen05_fence_after_thread_sync();
                const uint32_t d = tmem + (uint32_t)(acc * BN);
                for (int kb = 0; kb < KB; kb++, j++) {
                    const int st = j % S;
                    ptx_mbarrier_wait_parity(full + 8u * st, (uint32_t)(j / S) & 1u);
                    ptx_tcgen05_fence_after_thread_sync();
                    const uint64_t da = igemm_tcgen05_sdesc_kmajor_sw128(a_smem + (uint32_t)st * a.a_stage_bytes);
                    const uint64_t db = igemm_tcgen05_sdesc_kmajor_sw128(b_smem + (uint32_t)st * a.b_stage_bytes);
#pragma unroll
                    for (int kk = 0; kk < 4; kk++)
                        ptx_tcgen05_mma_cta_group_2_kind_f16(d, da + 2u * kk, db + 2u * kk, a.idesc, kb > 0 || kk > 0);
                    ptx_tcgen05_commit_cta_group_2_multicast(empty + 8u * st, pair_mask); /* both CTAs' stage */
                }
                ptx_tcgen05_commit_cta_group_2_multicast(acc_full + 8u * acc, pair_mask); /* both halves done */
                if (!sm100p_next(clc_full, clc_empty_l, resp, t % CLC, (uint32_t)(t / CLC) & 1u, true, &unit)) break;
            }
            /* drain: both CTAs' epilogues have freed the last accumulators (their remote arrivals landed) */
            for (int u = t + 1 - ACC < 0 ? 0 : t + 1 - ACC; u <= t; u++)
                ptx_mbarrier_wait_parity_acquire_cluster(acc_empty + 8u * (u % ACC), (uint32_t)(u / ACC) & 1u);
        }
    } else if (warp == 2) {
        /* ------------------------------------------------------------ scheduler (leader, CLC) */
        if (lane == 0 && is_leader) {
            const uint32_t clc_full_peer = ptx_mapa_shared_cluster(clc_full, leader + 1u);
            int t = 0;
            for (;; t++) {
                const int c = t % CLC;
                /* every role of both CTAs read the slot's last response */
                ptx_mbarrier_wait_parity_acquire_cluster(clc_empty + 8u * c, ((uint32_t)(t / CLC) & 1u) ^ 1u);
                ptx_mbarrier_arrive_expect_tx(clc_full + 8u * c, 16);
                ptx_mbarrier_arrive_expect_tx_release_cluster_shared_cluster(clc_full_peer + 8u * c, 16);
                ptx_clusterlaunchcontrol_try_cancel_multicast_cluster_all(resp + 16u * c, clc_full + 8u * c);
                if (!sm100p_next(clc_full, clc_empty_l, resp, c, (uint32_t)(t / CLC) & 1u, true, &unit)) break;
            }
            /* drain: the last responses were read by every role of both CTAs */
            for (int u = t + 1 - CLC < 0 ? 0 : t + 1 - CLC; u <= t; u++)
                ptx_mbarrier_wait_parity_acquire_cluster(clc_empty + 8u * (u % CLC), (uint32_t)(u / CLC) & 1u);
        }
    } else if (warp == SM100K_EPI_LOAD_WARP) {
        /* ------------------------------------------------------------ epilogue load (both CTAs) */
        if (lane == 0) {
            if (E > 0) ptx_mbarrier_wait_parity(order, 0u);
            int i = 0;
            for (int t = 0;; t++) {
                int m0, n0;
                sm100k_tile(a, unit, SM100P_CLUSTER, (int)(rank - leader), BN, m0, n0);
                if (E > 0 && m0 < a.g.gemm_m) {
                    for (int c = 0; c < BN / 32; c++, i++) {
                        if ((int64_t)n0 + 32 * c >= a.g.gemm_n) break;
                        const int st = i % E;
                        ptx_mbarrier_wait_parity(epi_empty + 8u * st, ((uint32_t)(i / E) & 1u) ^ 1u);
                        ptx_mbarrier_arrive_expect_tx(epi_full + 8u * st, a.out_tile_bytes);
                        ptx_cp_async_bulk_tensor_2d_tile(base + a.src_off + (uint32_t)st * a.out_tile_bytes, &tmap_r,
                                                         epi_full + 8u * st, n0 + 32 * c, m0);
                    }
                }
                if (!sm100p_next(clc_full, clc_empty_l, resp, t % CLC, (uint32_t)(t / CLC) & 1u, true, &unit)) break;
            }
        }
    } else if (warp >= SM100K_EPI_WARP0) {
        /* ------------------------------------------------------------ epilogue, warps 3-6 (both CTAs) */
        const int q = warp & 3;
        const int et = (int)threadIdx.x - 32 * SM100K_EPI_WARP0;
        int chunks = 0, srcs = 0;
        if (a.tma_store && et == 0) ptx_prefetch_tensormap(&tmap_y);
        for (int t = 0;; t++) {
            const int acc = t % ACC;
            int m0, n0;
            sm100k_tile(a, unit, SM100P_CLUSTER, (int)(rank - leader), BN, m0, n0);
            ptx_mbarrier_wait_parity(acc_full + 8u * acc, (uint32_t)(t / ACC) & 1u);
            ptx_tcgen05_fence_after_thread_sync();
            if (m0 < a.g.gemm_m) /* uniform in the CTA: a CTA past M only frees the accumulator */
                sm100k_epilogue_chunks<BN>(a, &tmap_y, base, tmem + (uint32_t)(acc * BN), q, lane, et, m0, n0, E,
                                           epi_full, epi_empty, chunks, srcs);
            ptx_tcgen05_fence_before_thread_sync();
            __syncwarp();
            if (lane == 0) ptx_mbarrier_arrive_release_cluster_shared_cluster(acc_empty_l + 8u * acc);
            if (!sm100p_next(clc_full, clc_empty_l, resp, t % CLC, (uint32_t)(t / CLC) & 1u, lane == 0, &unit)) break;
        }
        if (a.tma_store && et == 0) ptx_cp_async_bulk_wait_group<0>();
    }
    /* teardown: neither CTA frees its TMEM or exits while the other may still signal or read it */
    ptx_tcgen05_fence_before_thread_sync();
    ptx_barrier_cluster_arrive_release();
    ptx_barrier_cluster_wait_acquire();
    if (warp == 1) {
        __syncwarp(); /* .sync.aligned: the whole warp (lane 0 came from the MMA loop) */
        ptx_tcgen05_fence_after_thread_sync();
        ptx_tcgen05_dealloc_cta_group_2(tmem, TMEM_COLS);
    }
    ptx_barrier_cluster_arrive_relaxed(); /* the peer is still running while the pair deallocates */
    ptx_barrier_cluster_wait_acquire();
#endif
}

#endif /* IGEMM_SM100_CONV_FPROP_PAIR_CUH */
