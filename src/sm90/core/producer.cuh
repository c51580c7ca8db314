/*
 * core/producer.cuh — the producers of the Hopper conv kernels: what fills the stage ring and the
 * staging boxes, by TMA, one elected lane of a whole warp issuing (the warp loops in step, so its
 * loop values stay on the uniform datapath: docs/decisions.md "uniform-producer").
 *   sm90_issue_kblock      one k-block: the A box (TMA im2col, one filter tap through the
 *                          instruction's offsets, or the tiled 2-D map of an unpadded 1x1 conv)
 *                          and the filter box, into one ring stage
 *   sm90_first_unit / sm90_early_loads  thread 0 at set-up: the CTA's first unit's first
 *                          SM90_EARLY_STAGES k-blocks, before the __syncthreads
 *   sm90_produce_kblocks   a tile's k-blocks through the ring (the A/B producer warp)
 *   sm90_produce_residual_stages  the operand-ring residual (res_ring 2): one ring stage per
 *                          64-column chunk after the tile's k-blocks
 *   sm90_residual_producer the epilogue-ring residual (res_ring 1): warp 1 loads each epilogue
 *                          chunk's residual box into its consumer's staging box
 */
#ifndef IGEMM_SM90_CORE_PRODUCER_CUH
#define IGEMM_SM90_CORE_PRODUCER_CUH

#include "ring.cuh"
#include "scheduler.cuh"

/* Issues k-block (cb, r, s) of the tile at (m0, n0) into ring stage `stage` whose full barrier is
 * fb (the elected producer thread): the stage's expect_tx, its A box (TMA im2col: one filter tap
 * through the instruction's offsets; or the tiled 2-D map of an unpadded 1x1 stride-1 conv) and,
 * where load_b, its filter box: BRES (filter resident) into B slot kb, else into B stage `stage`.
 * A box cut to M's rows (a.a_tx) leaves the stage's rows past it stale: they only reach outputs
 * of rows past M, which are never stored. */
template <int BN, bool BRES, bool GRP = false>
static __device__ __forceinline__ void sm90_issue_kblock(const igemm_sm90_args_t &a, const CUtensorMap *tmap_x,
                                                         const CUtensorMap *tmap_w, uint32_t a_smem, uint32_t b_smem,
                                                         uint32_t a_stage, uint32_t fb, int stage, int kb, int cb,
                                                         int r, int s, int m0, int n0, int nb, int h0, int w0,
                                                         bool load_b)
{
    constexpr uint32_t B_STAGE_BYTES = BN * SM90_BK * 2;
    const uint32_t a_bytes = a.a_tx ? (uint32_t)a.a_tx : a_stage; /* the A box, maybe cut to M's rows */
    /* grouped: the tile's groups start at input channel (n0 / kg) * cg */
    const int c0 = (GRP ? igemm_fastdiv_div(n0, a.fd_kg) * a.g_cg : 0) + cb * SM90_BK;
    ptx_mbarrier_arrive_expect_tx(fb, a_bytes + (load_b ? B_STAGE_BYTES : 0u));
    if (a.a_tiled)
        ptx_cp_async_bulk_tensor_2d_tile(a_smem + (uint32_t)stage * a_stage, tmap_x, fb, c0, m0);
    else
        ptx_cp_async_bulk_tensor_4d_im2col(a_smem + (uint32_t)stage * a_stage, tmap_x, fb, c0, w0, h0, nb,
                                           (uint16_t)(s * a.dil_w), (uint16_t)(r * a.dil_h));
    if (!load_b) return;
    const uint32_t b_dst = b_smem + (uint32_t)(BRES ? kb : stage) * B_STAGE_BYTES;
    if (GRP && a.g_boxes > 1) {
        /* a slab of g_boxes groups: box j (the filter rows of group j, g_kg rows) at channel
         * -j * cg, so that its cg channels land at the group's position in the k-block and the
         * rest of its row reads zero (out of the filter's cg channels) */
        for (int j = 0; j < a.g_boxes; j++)
            ptx_cp_async_bulk_tensor_4d_tile(b_dst + (uint32_t)(j * a.g_kg) * 128u, tmap_w, fb, -j * a.g_cg, s, r,
                                             n0 + j * a.g_kg);
    } else {
        ptx_cp_async_bulk_tensor_4d_tile(b_dst, tmap_w, fb, cb * SM90_BK, s, r, n0);
    }
}

/* The CTA's first unit as thread 0 decodes it at set-up (before the barrier set-up, so that its
 * parameter reads, each new constant line ~0.05-0.08 us, overlap it: S13-1). */
typedef struct sm90_first_unit {
    int m0, n0, kb0, kb1, nb, h0, w0, cb, r, s;
} sm90_first_unit_t;

template <int BN, bool BRES, bool SKC>
static __device__ __forceinline__ void sm90_first_unit(const igemm_sm90_args_t &a, int unit0, int rank,
                                                       sm90_first_unit_t &f)
{
    sm90_decode_unit<BRES>(a, unit0, BN, f.m0, f.n0, f.kb0, f.kb1);
    if (SKC) sm90_skc_range(a, rank, f.kb0, f.kb1);
    sm90_box_origin(a, f.m0, f.nb, f.h0, f.w0);
    sm90_kblock_tap(a, f.kb0, f.cb, f.r, f.s);
}

/* Thread 0, after the barrier set-up: the first unit's first SM90_EARLY_STAGES stages, issued now
 * rather than by the producer loop after the __syncthreads, the producer's setmaxnreg and its own
 * decode of the unit (docs/decisions.md "early-stages": the first load leaves at 0.54 us, not
 * 0.93). sm90_produce_kblocks skips them. The trigger and the wait as after the set-up: no global
 * access before the wait. */
template <int BN, bool BRES, bool GRP = false>
static __device__ __forceinline__ void sm90_early_loads(const igemm_sm90_args_t &a, const CUtensorMap *tmap_x,
                                                        const CUtensorMap *tmap_w, const sm90_smem_t &c, int S,
                                                        uint32_t a_stage, int unit0, sm90_first_unit_t &f)
{
    if (unit0 < a.num_units) {
        ptx_griddepcontrol_launch_dependents();
        ptx_griddepcontrol_wait();
        if (!BRES || f.m0 < a.gemm_m) {
            const int pre = sm90_early_stages(S, f.kb0, f.kb1);
            for (int i = 0; i < pre; i++) {
                sm90_issue_kblock<BN, BRES, GRP>(a, tmap_x, tmap_w, c.a_smem, c.b_smem, a_stage, c.full_bar + 8u * i, i,
                                            f.kb0 + i, f.cb, f.r, f.s, f.m0, f.n0, f.nb, f.h0, f.w0, true);
                sm90_kblock_next(a, f.cb, f.r, f.s);
            }
        }
    }
}

/* The A/B producer warp: the k-blocks [kb0, kb1) of the tile at (m0, n0) (box origin nb, h0, w0)
 * through the ring, leader issuing; load_b: its filter boxes too (filter-resident kernels load
 * them with the CTA's first tile only). first_early: this is the CTA's first unit, whose first
 * k-blocks thread 0 issued at set-up (sm90_early_loads): skip them. */
template <int BN, bool BRES, bool GRP = false>
static __device__ __forceinline__ void sm90_produce_kblocks(const igemm_sm90_args_t &a, const CUtensorMap *tmap_x,
                                                            const CUtensorMap *tmap_w, const sm90_smem_t &c,
                                                            sm90_ring_t &ring, int S, uint32_t a_stage, bool leader,
                                                            bool first_early, int m0, int n0, int kb0, int kb1, int nb,
                                                            int h0, int w0, bool load_b)
{
    int kbs = kb0;
    if (first_early) {
        const int pre = sm90_early_stages(S, kb0, kb1);
        kbs += pre;
        ring.stage = pre == S ? 0 : pre;
        ring.phase = pre == S ? 1u : 0u;
    }
    int cb, r, s;
    sm90_kblock_tap(a, kbs, cb, r, s);
    for (int kb = kbs; kb < kb1; kb++) {
        const uint32_t fb = c.full_bar + 8u * ring.stage;
        sm90_wait_empty(c, ring); /* slot free */
        if (leader) {
            sm90_issue_kblock<BN, BRES, GRP>(a, tmap_x, tmap_w, c.a_smem, c.b_smem, a_stage, fb, ring.stage, kb, cb, r, s, m0,
                                        n0, nb, h0, w0, load_b);
        }
        sm90_kblock_next(a, cb, r, s);
        sm90_ring_next(ring, S);
    }
}

/* Operand-ring residual stages of the tile at column n0 (a.res_ring == 2, in the kernels that take
 * the residual that way: OPERAND): one per 64-column chunk that starts inside N; 0 in every other
 * mode. Producer and consumers both count with it. */
template <int BN, bool OPERAND>
static __device__ __forceinline__ int sm90_res_chunks(const igemm_sm90_args_t &a, int n0)
{
    if (!OPERAND || a.res_ring != 2) return 0;
    const int64_t left = a.gemm_n - n0;
    const int64_t c = (left + SM90_EPI_COLS - 1) / SM90_EPI_COLS;
    return c < BN / SM90_EPI_COLS ? (int)c : BN / SM90_EPI_COLS;
}

/* The operand-ring residual of the tile at (m0, n0) (a.res_ring == 2): one stage per 64-column
 * chunk, its A part (A_STAGE bytes: the tile's pixel rows x 128 B) filled with the chunk's
 * residual rows m0 .. as boxes of RROWS rows (64, or the pixels-as-N tile's TP: the maps' box;
 * rows past M zero-filled). */
template <int BN, int RROWS, uint32_t A_STAGE>
static __device__ __forceinline__ void sm90_produce_residual_stages(const igemm_sm90_args_t &a, const CUtensorMap *tmap_r,
                                                                    const sm90_smem_t &c, sm90_ring_t &ring, int S,
                                                                    bool leader, int m0, int n0)
{
    const int nres = sm90_res_chunks<BN, true>(a, n0);
    for (int ch = 0; ch < nres; ch++) {
        const uint32_t fb = c.full_bar + 8u * ring.stage;
        sm90_wait_empty(c, ring);
        if (leader) {
            ptx_mbarrier_arrive_expect_tx(fb, A_STAGE);
#pragma unroll
            for (int b = 0; b < (int)(A_STAGE / (RROWS * 128u)); b++)
                ptx_cp_async_bulk_tensor_2d_tile(c.a_smem + (uint32_t)ring.stage * A_STAGE + (uint32_t)(b * RROWS * 128),
                                                 tmap_r, fb, n0 + ch * SM90_EPI_COLS, m0 + RROWS * b);
        }
        sm90_ring_next(ring, S);
    }
}

/* Residual producer of the epilogue-ring path (a.res_ring == 1; warp 1, one elected lane issuing): the residual box
 * of every epilogue chunk, in the consumers' order, into the chunk's ring slot once the store of
 * the slot's previous chunk has read it (up to ES - 1 ahead). Out of line: inlined next to the
 * A/B producer, it moved that loop off the uniform datapath (R2UR inside the elect loop before
 * every TMA of the fused instances: 7-10% slower on the fused one-wave layers, docs/decisions.md "uniform-producer", S6-3). */
template <int BN, int WM, int NC, bool PP, bool BRES, int TP, bool SKC>
static __device__ __noinline__ void sm90_residual_producer(const igemm_sm90_args_t &a, const CUtensorMap *tmap_r,
                                                           uint32_t epi_smem, uint32_t rfull_bar, uint32_t rempty_bar,
                                                           int ES, int unit0, int unit_step, int rank)
{
    constexpr int NCH = BN / SM90_EPI_COLS;
    /* a box: 64 rows x 64 columns, or with pixels as N (ping-pong, BN = 64) the tile's TP pixel rows */
    constexpr int RROWS = TP > 0 ? TP : 64;
    constexpr uint32_t RBOX = TP > 0 ? (uint32_t)TP * 128u : SM90_EPI_BUF_BYTES;
    static_assert(TP == 0 || (PP && WM == 1 && (NC == 2 || NC == 3)), "pixels-as-N residual boxes: ping-pong instances only");

    /* ------------------------------------------------- residual producer: the residual
     * box of every epilogue chunk, in the consumers' order, into the chunk's ring slot
     * once the store of the slot's previous chunk has read it (up to ES - 1 ahead) */
    const bool leader = ptx_elect_one_sync(); /* the whole warp loops; one lane issues */
    if (leader) ptx_prefetch_tensormap(tmap_r);
    int slot = 0;
    uint32_t phase = 0;
    int slot1 = 0, slot2 = 0; /* ping-pong: consumers 1 and 2's ring positions (slot/phase: consumer 0's) */
    uint32_t phase1 = 0, phase2 = 0;
    for (int unit = unit0, j = 0; unit < a.num_units; unit += unit_step, j++) {
        int m0, n0, kb0, kb1;
        sm90_decode_unit<BRES>(a, unit, BN, m0, n0, kb0, kb1);
        if (BRES && m0 >= a.gemm_m) break; /* past this CTA's last tile */
        if (PP) { /* the whole tile's boxes go to its consumer's ring (consumer j % NC), in its order */
            /* (NC = 2 keeps its original two-way form: the general three-way selection changed the
             * SASS of every two-consumer instance, which were measured as they are) */
            const int c = NC == 2 ? (j & 1) : j % NC;
            int sl;
            uint32_t ph;
            if constexpr (NC == 2) {
                sl = c ? slot1 : slot;
                ph = c ? phase1 : phase;
            } else {
                sl = c == 0 ? slot : c == 1 ? slot1 : slot2;
                ph = c == 0 ? phase : c == 1 ? phase1 : phase2;
            }
            for (int ch = 0; ch < NCH; ch++) {
                if ((int64_t)n0 + ch * SM90_EPI_COLS >= a.gemm_n) break;
                for (int i = 0; i < WM; i++) {
                    const uint32_t idx = (uint32_t)(c * SM90_MAX_EPI_SLOTS + sl);
                    ptx_mbarrier_wait_parity(rempty_bar + 8u * idx, ph ^ 1u);
                    if (leader) {
                        ptx_mbarrier_arrive_expect_tx(rfull_bar + 8u * idx, RBOX);
                        ptx_cp_async_bulk_tensor_2d_tile(epi_smem + (uint32_t)(c * ES + sl) * RBOX, tmap_r,
                                                         rfull_bar + 8u * idx, n0 + ch * SM90_EPI_COLS,
                                                         m0 + RROWS * i);
                    }
                    if (++sl == ES) {
                        sl = 0;
                        ph ^= 1u;
                    }
                }
            }
            if constexpr (NC == 2) {
                if (c) slot1 = sl, phase1 = ph;
                else slot = sl, phase = ph;
            } else {
                if (c == 0) slot = sl, phase = ph;
                else if (c == 1) slot1 = sl, phase1 = ph;
                else slot2 = sl, phase2 = ph;
            }
        } else {
            for (int ch = 0; ch < NCH; ch++) {
                if ((int64_t)n0 + ch * SM90_EPI_COLS >= a.gemm_n) break;
                if (SKC && ch != rank) continue; /* split in cluster: the partner finishes that chunk */
                for (int i = 0; i < WM; i++) {
                    for (int c = 0; c < NC; c++) {
                        const uint32_t idx = (uint32_t)(c * SM90_MAX_EPI_SLOTS + slot);
                        ptx_mbarrier_wait_parity(rempty_bar + 8u * idx, phase ^ 1u);
                        if (leader) {
                            ptx_mbarrier_arrive_expect_tx(rfull_bar + 8u * idx, SM90_EPI_BUF_BYTES);
                            ptx_cp_async_bulk_tensor_2d_tile(epi_smem + (uint32_t)(c * ES + slot) * SM90_EPI_BUF_BYTES,
                                                             tmap_r, rfull_bar + 8u * idx, n0 + ch * SM90_EPI_COLS,
                                                             m0 + 64 * (WM * c + i));
                        }
                    }
                    if (++slot == ES) {
                        slot = 0;
                        phase ^= 1u;
                    }
                }
            }
        }
    }
}

/* The A/B producer warp of the im2col kernels (cooperative, ping-pong, pixels as N): every tile
 * of the CTA, its k-blocks and, RES_OPERAND (the kernel takes a fused residual through the operand
 * ring) with a.res_ring == 2, its residual stages of RROWS-row boxes; BRES: the walk stops past the
 * CTA's last tile and the filter is loaded with the first tile only (resident slots). */
template <int BN, bool BRES, bool RES_OPERAND, int RROWS, uint32_t A_STAGE, bool GRP = false>
static __device__ __forceinline__ void sm90_produce_tiles(const igemm_sm90_args_t &a, const CUtensorMap *tmap_x,
                                                          const CUtensorMap *tmap_w, const CUtensorMap *tmap_r,
                                                          const sm90_smem_t &c, int S, int unit0, int unit_step)
{
    const bool leader = ptx_elect_one_sync();
    if (RES_OPERAND && a.res_ring == 2 && leader) ptx_prefetch_tensormap(tmap_r);
    sm90_ring_t ring = {0, 0u};
    for (int unit = unit0, j = 0; unit < a.num_units; unit += unit_step, j++) {
        int m0, n0, kb0, kb1, nb, h0, w0;
        sm90_decode_unit<BRES>(a, unit, BN, m0, n0, kb0, kb1);
        if (BRES && m0 >= a.gemm_m) break; /* past this CTA's last tile */
        const bool load_b = !BRES || j == 0;
        sm90_box_origin(a, m0, nb, h0, w0);
        sm90_produce_kblocks<BN, BRES, GRP>(a, tmap_x, tmap_w, c, ring, S, A_STAGE, leader, j == 0, m0, n0, kb0, kb1, nb, h0,
                                       w0, load_b);
        if (RES_OPERAND && a.res_ring == 2)
            sm90_produce_residual_stages<BN, RROWS, A_STAGE>(a, tmap_r, c, ring, S, leader, m0, n0);
    }
}

#endif /* IGEMM_SM90_CORE_PRODUCER_CUH */
