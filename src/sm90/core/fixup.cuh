/*
 * fixup.cuh — split-K reduced inside the conv kernel, deterministically: after a CTA has stored
 * its fp32 partial tile (split s of the tile's K range) into the workspace, it counts itself in
 * the tile's arrival counter; the CTA that arrives last reads the tile's S partials back in split
 * order 0..S-1 (so the sum is the same whichever CTA is last, and equals the reduce kernel's),
 * runs the fused epilogue on the sums (sm90_store4: scale, bias, residual, activation, y's dtype)
 * and resets the counter for the next run. It replaces the second kernel
 * (igemm_sm90_splitk_reduce_kernel) for the cooperative instances, whose consumer warpgroups all
 * work on the same tile.
 * Ordering: every consumer thread fences its partial stores (__threadfence), the consumers meet
 * at a named barrier whose OR-reduction carries the "last" verdict of thread 0's atomicAdd, and
 * the last CTA's threads fence again before reading the partials through L2 (__ldcg).
 * PTX: barrier.red.or.pred (named barrier SM90_BAR_FIXUP over the consumer threads).
 */
#ifndef IGEMM_SM90_CORE_FIXUP_CUH
#define IGEMM_SM90_CORE_FIXUP_CUH

#include "epilogue.cuh"

#define SM90_BAR_FIXUP 7 /* named barrier id (1..3: the consumers' epilogue barriers) */

/* The consumer threads (tid 0..nthreads-1) of the CTA that stored split `split` of tile `tile`
 * (rows m0.., columns n0.. of a BM x BN tile). */
template <int BM, int BN>
static __device__ __forceinline__ void sm90_splitk_fixup(const igemm_sm90_args_t &a, int tile, int64_t m0, int64_t n0,
                                                         int tid, int nthreads)
{
    __threadfence();
    bool last = false;
    if (tid == 0) last = atomicAdd(a.tile_counts + tile, 1) == a.splits - 1;
    last = ptx_barrier_red_or_pred(SM90_BAR_FIXUP, (uint32_t)nthreads, last);
    if (!last) return;
    __threadfence();
    const int64_t plane = a.gemm_m * a.gemm_n;
    constexpr int Q = BN / 4;
    for (int i = tid; i < BM * Q; i += nthreads) {
        const int64_t m = m0 + i / Q;
        const int64_t n = n0 + (int64_t)(i % Q) * 4;
        if (m >= a.gemm_m || n >= a.gemm_n) continue;
        const int64_t off = m * a.gemm_n + n;
        const int64_t left = a.gemm_n - n;
        float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int sp = 0; sp < a.splits; sp++) {
            const float *src = a.workspace + (int64_t)sp * plane + off;
            if (left >= 4 && a.vec4) {
                const float4 t = __ldcg((const float4 *)src);
                sum.x += t.x, sum.y += t.y, sum.z += t.z, sum.w += t.w;
            } else {
                sum.x += __ldcg(src);
                if (left > 1) sum.y += __ldcg(src + 1);
                if (left > 2) sum.z += __ldcg(src + 2);
                if (left > 3) sum.w += __ldcg(src + 3);
            }
        }
        sm90_store4(a, m, n, sum, false, 0);
    }
    if (tid == 0) a.tile_counts[tile] = 0;
}

#endif /* IGEMM_SM90_CORE_FIXUP_CUH */
