/*
 * core/cluster_sum.cuh — split-K summed inside a thread-block cluster, for the pixels-as-N kernel
 * (conv_pixels_n.cuh, its instances without TMA stores): the S = a.splits CTAs of a cluster
 * (cluster dims S x 1 x 1; rank r = split r) each ran k-range r of the same TP x 128 tile, and
 * their fp32 partial tiles meet in distributed shared memory instead of a global workspace and a
 * second kernel (docs/decisions.md "pixn-cluster").
 *
 *   1. every consumer thread stores its TP/2 accumulators into its consumer's two staging boxes
 *      (TP x 256 B: float4 q of thread t at + (q * 128 + t) * 16, conflict-free); the boxes are
 *      used by nothing else in these plans, so no wgmma can still be reading them;
 *   2. barrier.cluster (arrive.release / wait.acquire): every partial is visible cluster-wide;
 *   3. rank r finishes the float4 groups q with q % S == r (8 pixel columns each): it reads group q
 *      of the same consumer and thread in ranks 0 .. S-1 (its own from registers; ld.shared::cluster
 *      through mapa) and adds them in rank order, so the sum has the same bits whichever rank
 *      computes it and whatever the timing; then the fused epilogue per element (alpha * scale,
 *      bias, beta * residual, the activation), stored to y in its dtype by direct stores;
 *   4. barrier.cluster again, so no CTA exits while another still reads its shared memory
 *      (relaxed: a thread loads a group only if it stores the group's element 0, which needs every
 *      loaded value, and its stores issue before the arrival).
 *   With 64-channel tiles (KS = 2) the two consumers of a CTA hold partial sums of the same 64
 *   channels (halves of each k-block): the finishing unit is (rank, consumer), V = 2S of them;
 *   unit v = 2 * rank + consumer finishes the groups q % V == v, adding the partials of every
 *   (rank, consumer) in that order (its own from registers).
 * Fragment layout (src/ptx/wgmma.cuh): acc[4q + 2h + e] is channel 16*warp + lane/4 + 8h of the
 * consumer's 64, pixel 8q + 2*(lane%4) + e of the tile.
 * PTX: st.shared, barrier.cluster, mapa, ld.shared::cluster.
 */
#ifndef IGEMM_SM90_CORE_CLUSTER_SUM_CUH
#define IGEMM_SM90_CORE_CLUSTER_SUM_CUH

#include "epilogue.cuh"

/* The epilogue of the groups a thread finishes (q % units == unit, inside M and N; the finishing
 * unit is the rank, or (rank, consumer) with KS = 2): v holds their sums. RES: with the residual; CALL: an activation besides ReLU / none, out of line (inlined at
 * each unrolled element they outgrew the instruction cache: decisions.md "gemm-family"). The
 * run-time switches are decided by the caller, once, outside the unrolled loops. */
template <int TP, bool GENERAL, bool RES, bool CALL>
static __device__ __forceinline__ void sm90_pixn_cluster_store(const igemm_sm90_args_t &a, const float (&v)[TP / 2],
                                                               int lane, int64_t m0, int64_t ch0, int unit,
                                                               int units, float as0, float as1, float bi0, float bi1)
{
    const int64_t N = a.gemm_n;
    const bool relu = a.act == IGEMM_ACT_RELU;
#pragma unroll
    for (int q = 0; q < TP / 8; q++) {
        const int64_t px0 = m0 + 8 * q + 2 * (lane & 3);
        if (q % units != unit || px0 >= a.gemm_m || ch0 >= N) continue;
#pragma unroll
        for (int e = 0; e < 4; e++) {
            const int64_t px = px0 + (e & 1), ch = ch0 + 8 * (e >> 1);
            if (px >= a.gemm_m || ch >= N) continue;
            float t = (e >> 1 ? as1 : as0) * v[4 * q + e];
            if (GENERAL) {
                t += e >> 1 ? bi1 : bi0;
                if (RES) t += a.beta * igemm_load_out(a.residual, px * N + ch, a.out_dtype);
                t = CALL ? igemm_act_dev_noinline(a.act, t, a.act_param) : relu ? fmaxf(t, 0.0f) : t;
            }
            igemm_store_out(a.y, px * N + ch, a.out_dtype, t);
        }
    }
}

/* The cluster's sum of this consumer's partial tile and its epilogue (see above). acc: this
 * thread's TP/2 partial sums; rank: this CTA's split; as0/as1, bi0/bi1: alpha * scale and bias of
 * the thread's channels ch0 and ch0 + 8 (sm90_pixn_factors; alpha and 0 without GENERAL). GENERAL
 * without ACT_ANY: the activation is ReLU or none (the epilogue kind 1 instances). */
template <int TP, bool GENERAL, bool ACT_ANY, int KS = 1>
static __device__ __forceinline__ void sm90_pixn_cluster_sum(const igemm_sm90_args_t &a, const float (&acc)[TP / 2],
                                                             const sm90_consumer_t &C, int64_t m0, int64_t ch0,
                                                             int rank, float as0, float as1, float bi0, float bi1,
                                                             uint32_t cstride = 0u)
{
    static_assert(KS == 1 || KS == 2, "one consumer per channel block, or two sharing it");
    const uint32_t mine = C.my_epi + (uint32_t)C.tid * 16u;
#pragma unroll
    for (int q = 0; q < TP / 8; q++)
        ptx_st_shared_v4_f32(mine + (uint32_t)q * 2048u, acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
    ptx_barrier_cluster_arrive_release();
    ptx_barrier_cluster_wait_acquire();

    /* the sums of the groups this thread finishes, every remote load issued before any use; a group
     * with nothing to store loads nothing: each remote load feeds the store of the group's element
     * 0, so it has completed before the final (relaxed) arrival */
    const int V = a.splits * KS;           /* finishing units */
    const int vr = rank * KS + (KS == 2 ? C.cw : 0); /* this thread's */
    const uint32_t box0 = mine - (KS == 2 ? (uint32_t)C.cw * cstride : 0u); /* consumer 0's */
    float v[TP / 2];
#pragma unroll
    for (int q = 0; q < TP / 8; q++) {
        v[4 * q] = v[4 * q + 1] = v[4 * q + 2] = v[4 * q + 3] = 0.0f;
        const int64_t px0 = m0 + 8 * q + 2 * (C.lane & 3);
        if (q % V != vr || px0 >= a.gemm_m || ch0 >= a.gemm_n) continue;
        for (int u = 0; u < V; u++) {
            float4 t;
            if (u == vr) t = make_float4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
            else
                t = ptx_ld_shared_cluster_v4_f32(ptx_mapa_shared_cluster(
                    box0 + (uint32_t)(u % KS) * cstride + (uint32_t)q * 2048u, (uint32_t)(u / KS)));
            v[4 * q] += t.x, v[4 * q + 1] += t.y, v[4 * q + 2] += t.z, v[4 * q + 3] += t.w;
        }
    }
    const bool res = GENERAL && a.has_residual;
    const bool call = ACT_ANY && a.act != IGEMM_ACT_NONE && a.act != IGEMM_ACT_RELU;
    if (res && call) sm90_pixn_cluster_store<TP, GENERAL, true, true>(a, v, C.lane, m0, ch0, vr, V, as0, as1, bi0, bi1);
    else if (res) sm90_pixn_cluster_store<TP, GENERAL, true, false>(a, v, C.lane, m0, ch0, vr, V, as0, as1, bi0, bi1);
    else if (call) sm90_pixn_cluster_store<TP, GENERAL, false, true>(a, v, C.lane, m0, ch0, vr, V, as0, as1, bi0, bi1);
    else sm90_pixn_cluster_store<TP, GENERAL, false, false>(a, v, C.lane, m0, ch0, vr, V, as0, as1, bi0, bi1);
    ptx_barrier_cluster_arrive_relaxed();
    ptx_barrier_cluster_wait_acquire();
}

#endif /* IGEMM_SM90_CORE_CLUSTER_SUM_CUH */
