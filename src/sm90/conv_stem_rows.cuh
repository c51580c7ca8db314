/*
 * conv_stem_rows.cuh — the stem-rows Hopper conv kernel (igemm_sm90_stem_kernel): convolutions of
 * c <= 4 input channels with stride 2 along W (the algorithm, layouts, tile and PTX features: the
 * header comment of family_stem.cu; its plan: heuristics_stem.c). Instances: the generated
 * instance files (instances/list.txt); family_stem.cu holds the host code and the pre-pass.
 */
#ifndef IGEMM_SM90_CONV_STEM_ROWS_CUH
#define IGEMM_SM90_CONV_STEM_ROWS_CUH

/* igemm_sm90_args_t (the epilogue's fields), the pixels-as-N epilogue (sm90_pixn_blocks,
 * sm90_pixn_residual), sm90_wgmma, the stage release and the PTX wrappers */
#include "core/epilogue.cuh"
#include "core/mma.cuh"

/* STEM_NC, STEM_EB, STEM_RAW_* and the other constants of the stem kernels: sm90.h */

/* The stem kernel's geometry (the epilogue's fields travel in an igemm_sm90_args_t). */
typedef struct igemm_sm90_stem_args {
    int32_t p;           /* output rows */
    int32_t stride_h, pad_top;
    int32_t d_lo;        /* the first pair tap: floor(-pad_left / 2) */
    int32_t tiles_q;     /* ceil(Q / TP) tiles per output row */
    int32_t num_tiles;   /* n * p * tiles_q */
    int32_t stages;      /* operand ring stages (one tile each) */
    int32_t raw;         /* 1: tmap_x is x itself ({w c, h, n}); each consumer repacks its tile into pairs */
    int32_t c;           /* input channels (1..4) */
    int32_t k, s, pad_left; /* the filter: k rows, s taps per row (for the in-kernel fold; w k r s c
                               elements fit the staging boxes: the host checks) */
    uint32_t stage_bytes;/* pitch of a ring stage (raw mode: NCH chunk boxes of R rows) */
    uint32_t row_bytes;  /* one input row of pixel pairs as the wgmmas read it (a multiple of 128 B) */
    int32_t raw_nch;     /* raw mode: TMA chunks per input row */
    uint32_t pair_off, pair_bytes; /* raw mode: each consumer's repacked tile (R rows of pairs) */
    uint32_t e_off, w_off, bar_off; /* shared-memory carve, from the 1024-aligned base */
    const uint16_t *w;   /* the filter, KRSC (folded into shared memory by every CTA) */
    igemm_fastdiv_t fd_tq, fd_p; /* / tiles_q, / p */
} igemm_sm90_stem_args_t;

/* The folded filter (the no-swizzle K-major image of 64 x K in k16 steps of 2 KB: core matrix (8
 * rows, 16 B) at (2 g + h) x 128 B for row group g and K half h) into shared memory at w_smem, by
 * the NT threads t = 0 .. NT-1 (the consumer warpgroups): w (KRSC, 16-byte aligned) copied as it is
 * into scratch by 16-byte loads (all issued before the stores), then folded from there, a 16-byte
 * row of a core matrix per thread and step. (Element by element, gathered straight from w by every
 * thread of every CTA, it cost ~3 us on ResNet-50 conv1.) bar: a named barrier of the NT threads.
 * Ends with the folded filter visible to the async proxy (wgmma) and that barrier passed. */
template <int R, int KS, int NT>
static __device__ __forceinline__ void stem_fold_filter(const igemm_sm90_stem_args_t &g, uint32_t w_smem,
                                                        uint32_t scratch, int t, uint32_t bar)
{
    const int wn = g.k * R * g.s * g.c; /* elements of w */
    constexpr int MAXV = (64 * R * 8 * 4 / 8 + NT - 1) / NT; /* 16-byte loads per thread at most (s <= 8, c <= 4) */
    const uint4 *w16 = (const uint4 *)g.w;
    uint4 q[MAXV];
#pragma unroll
    for (int u = 0; u < MAXV; u++) {
        const int v = t + u * NT;
        if (v < wn / 8) q[u] = __ldg(w16 + v);
    }
#pragma unroll
    for (int u = 0; u < MAXV; u++) {
        const int v = t + u * NT;
        if (v < wn / 8)
            asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(scratch + 16u * (uint32_t)v), "r"(q[u].x),
                         "r"(q[u].y), "r"(q[u].z), "r"(q[u].w)
                         : "memory");
    }
    for (int e = (wn & ~7) + t; e < wn; e += NT)
        asm volatile("st.shared.u16 [%0], %1;" ::"r"(scratch + 2u * (uint32_t)e), "h"(__ldg(g.w + e)) : "memory");
    ptx_bar_sync(bar, NT);
    /* 16-byte vector vi of the folded filter: k16 step vi / 128 (r = step / KS, j = step mod KS),
     * core matrix cm = (vi mod 128) / 8 (row group cm / 2, K half h = cm mod 2), row m = 8 (cm / 2) +
     * vi mod 8; element e < 8 of it is w[m, r, s0 + e / 4, e mod 4] with s0 = 2 (d_lo + 2j + h) +
     * pad_left (zero where s >= S, s < 0, c >= C or m >= K). All loads first, then the stores. */
    constexpr int WV = R * KS * (int)(STEM_STEP_BYTES / 16), MAXW = (WV + NT - 1) / NT;
    uint32_t o[MAXW][4];
#pragma unroll
    for (int u = 0; u < MAXW; u++) {
        const int vi = t + u * NT;
        const int step = vi >> 7, cm = (vi >> 3) & 15, m = 8 * (cm >> 1) + (vi & 7), h = cm & 1;
        const int r = step / KS, j = step - r * KS;
        const int s0 = 2 * (g.d_lo + 2 * j + h) + g.pad_left;
        const bool row_ok = vi < WV && m < g.k;
#pragma unroll
        for (int e2 = 0; e2 < 4; e2++) { /* elements 2 e2, 2 e2 + 1: the same tap s, channels c, c + 1 */
            const int s_ = s0 + (e2 >> 1), c = 2 * (e2 & 1);
            const bool tap_ok = row_ok && s_ >= 0 && s_ < g.s;
            const uint32_t src = scratch + 2u * (uint32_t)(((m * R + r) * g.s + s_) * g.c + c);
            uint16_t lo = 0, hi = 0;
            if (tap_ok && c < g.c) asm volatile("ld.shared.u16 %0, [%1];" : "=h"(lo) : "r"(src) : "memory");
            if (tap_ok && c + 1 < g.c) asm volatile("ld.shared.u16 %0, [%1];" : "=h"(hi) : "r"(src + 2u) : "memory");
            o[u][e2] = (uint32_t)lo | ((uint32_t)hi << 16);
        }
    }
#pragma unroll
    for (int u = 0; u < MAXW; u++) {
        const int vi = t + u * NT;
        if (vi < WV)
            asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(w_smem + 16u * (uint32_t)vi), "r"(o[u][0]),
                         "r"(o[u][1]), "r"(o[u][2]), "r"(o[u][3])
                         : "memory");
    }
    ptx_fence_proxy_async_shared_cta(); /* st.shared -> visible to the wgmmas (async proxy) */
    ptx_bar_sync(bar, NT);
}

/* Raw mode: pair pi of all R rows, the loads first (one shared-memory round trip), then the
 * stores. src0, dst0: the pair in row 0 of the raw and the pair stage. */
template <int C, int R, int ROWP>
static __device__ __forceinline__ void stem_repack_rows(uint32_t src0, uint32_t dst0)
{
    constexpr int CHUNK = STEM_RAW_CHUNK;
    uint32_t v[R][4];
#pragma unroll
    for (int rr = 0; rr < R; rr++) {
        const uint32_t src = src0 + (uint32_t)(rr * CHUNK * 2);
        if (C == 4) {
            asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                         : "=r"(v[rr][0]), "=r"(v[rr][1]), "=r"(v[rr][2]), "=r"(v[rr][3])
                         : "r"(src));
        } else if (C == 3) { /* (c0 c1)(c2 c0')(c1' c2') */
            asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v[rr][0]) : "r"(src));
            asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v[rr][1]) : "r"(src + 4u));
            asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v[rr][2]) : "r"(src + 8u));
        } else if (C == 2) {
            asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(v[rr][0]), "=r"(v[rr][2]) : "r"(src));
        } else {
            asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v[rr][0]) : "r"(src));
        }
    }
#pragma unroll
    for (int rr = 0; rr < R; rr++) {
        uint32_t o0, o1, o2, o3;
        if (C == 4) o0 = v[rr][0], o1 = v[rr][1], o2 = v[rr][2], o3 = v[rr][3];
        else if (C == 3) o0 = v[rr][0], o1 = v[rr][1] & 0xffffu, o2 = (v[rr][1] >> 16) | (v[rr][2] << 16), o3 = v[rr][2] >> 16;
        else if (C == 2) o0 = v[rr][0], o1 = 0u, o2 = v[rr][2], o3 = 0u;
        else o0 = v[rr][0] & 0xffffu, o1 = 0u, o2 = v[rr][0] >> 16, o3 = 0u;
        asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(dst0 + (uint32_t)(rr * ROWP * 16)),
                     "r"(o0), "r"(o1), "r"(o2), "r"(o3)
                     : "memory");
    }
}

/* Raw mode: one tile's R input rows from the raw stage into the pair stage. Pair i of a row starts
 * at element E = off + 2 C i of the loaded segment (off: the segment's first element past the
 * 16-byte aligned start), i.e. in chunk ch = E / STEP at element E - STEP ch, row r of the chunk's
 * box at byte ch PITCH + 2 (r CHUNK + E - STEP ch). It goes to row r of the pair stage at byte
 * (r ROWP + i) 16: pixel 2i channels 0..3, pixel 2i + 1 channels 0..3, the channels >= C zero.
 * Thread t of the NT repack threads takes pairs t, t + NT, .. of every row; the loaded words feed
 * the stores, so every load has returned once the thread's stores issued (the raw stage may then
 * be released). */
template <int C, int R, int ROWP, int NT>
static __device__ __forceinline__ void stem_repack(uint32_t raw, uint32_t pair, int off, int t)
{
    constexpr int PITCH = STEM_RAW_PITCH(R);
#pragma unroll 1
    for (int pi = t; pi < ROWP; pi += NT) {
        const int e = off + 2 * C * pi, ch = e / STEM_RAW_STEP, within = e - ch * STEM_RAW_STEP;
        const uint32_t src0 = raw + (uint32_t)(ch * PITCH + 2 * within), dst0 = pair + (uint32_t)pi * 16u;
        stem_repack_rows<C, R, ROWP>(src0, dst0);
    }
}

/* One CTA per SM, persistent. Warp 0 of the producer warpgroup loads one ring stage per tile: the
 * tile's R input rows, either from x4 (pre-pass mode: groups of 8 pixel pairs, 128 B, a 4-D TMA
 * box of 64 x NG x R x 1) or from x itself (raw mode: NCH overlapping chunks of the row segment,
 * 3-D boxes of CHUNK x R x 1); both zero fill outside the image. Warp 1 loads each tile's residual
 * into its consumer's staging box. Consumer warpgroup cw takes the CTA's tiles cw, cw + NC, ..;
 * first the consumers fold the filter into shared memory (it stays resident; the staging boxes
 * serve as scratch, so warp 1 waits for it). Per tile, in raw mode the consumer repacks the stage
 * into pixel pairs in its own pair buffer and releases the stage; then R x KS wgmma m64nTPk16 (the
 * 64 filter rows as A, the TP pixels as B read from the pair rows with no-swizzle descriptors,
 * start + 32 j bytes, LBO 16 B = the next pair tap, SBO 128 B = the next 8 pixels), then the
 * pixels-as-N epilogue into its staging box and a 3-D TMA store.
 * Barriers: full/empty per ring stage, rfull/rempty per staging box, order per consumer (a
 * consumer waits on a stage only after the previous tile's consumer has: no parity aliasing), one
 * for the folded filter; named barriers 1 + cw (a consumer warpgroup), 4 (all consumers). */
template <int DT, int TP, int R, int KS, int EPI>
__global__ void __launch_bounds__(STEM_THREADS, 1)
    igemm_sm90_stem_kernel(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_y,
                           const __grid_constant__ CUtensorMap tmap_r, const __grid_constant__ igemm_sm90_args_t a,
                           const __grid_constant__ igemm_sm90_stem_args_t g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int NC = STEM_NC;
    constexpr int ROWP = STEM_ROW_PAIRS(TP, KS);
    constexpr uint32_t EBOX = (uint32_t)TP * 128u; /* TP pixels x 64 channels, 128B-swizzled (TMA store) */
    constexpr bool GENERAL = EPI > 0;
    constexpr bool ACT_ANY = EPI == 2;
    static_assert(TP % 16 == 0 && TP <= 128 && (KS == 1 || KS == 2) && R >= 1 && R <= STEM_MAX_ROWS,
                  "stem tiles: TP a multiple of 16, KS 1 or 2, R rows");
    extern __shared__ __align__(1024) uint8_t smem_raw[];

    /* carve (offsets from the host): S ring stages | raw mode: NC pair buffers | NC x EB staging
     * boxes | folded filter | barriers */
    const int S = g.stages;
    const uint32_t base = (ptx_cvta_to_shared(smem_raw) + 1023u) & ~1023u;
    const uint32_t x_smem = base;
    const uint32_t pair_smem = base + g.pair_off;
    const uint32_t e_smem = base + g.e_off;
    const uint32_t w_smem = base + g.w_off;
    const uint32_t full_bar = base + g.bar_off;
    const uint32_t empty_bar = full_bar + 8u * (uint32_t)S;
    const uint32_t rfull_bar = empty_bar + 8u * (uint32_t)S;       /* [consumer][box] */
    const uint32_t rempty_bar = rfull_bar + 8u * NC * STEM_EB;     /* [consumer][box] */
    const uint32_t order_bar = rempty_bar + 8u * NC * STEM_EB;     /* [consumer] */
    const uint32_t w_bar = order_bar + 8u * NC;
    const bool has_res = GENERAL && a.has_residual;
    const bool raw = g.raw != 0;

    if (threadIdx.x == 0) {
        ptx_prefetch_tensormap(&tmap_x);
        for (int i = 0; i < S; i++) {
            ptx_mbarrier_init(full_bar + 8u * i, 1);
            ptx_mbarrier_init(empty_bar + 8u * i, 4); /* lane 0 of each warp of the tile's consumer */
        }
        for (int i = 0; i < NC * STEM_EB; i++) {
            ptx_mbarrier_init(rfull_bar + 8u * i, 1);
            ptx_mbarrier_init(rempty_bar + 8u * i, 1);
        }
        for (int c = 0; c < NC; c++) ptx_mbarrier_init(order_bar + 8u * c, 1);
        ptx_mbarrier_init(w_bar, 1);
        ptx_fence_mbarrier_init_release_cluster();
    }
    __syncthreads();
    /* programmatic dependent launch: the next grid may start its set-up; every global access
     * below waits for the grid before this one (which wrote x and w, or the pre-pass's x4) */
    ptx_griddepcontrol_launch_dependents();
    ptx_griddepcontrol_wait();

    const int wg = (int)(threadIdx.x >> 7);
    if (wg == 0) {
        /* ---------------------------------------------------------------- producers */
        ptx_setmaxnreg_dec<SM90_PRODUCER_REGS>();
        const int warp = (int)(threadIdx.x >> 5);
        if (warp == 0 && threadIdx.x == 0) { /* operands */
            const uint32_t tx = raw ? (uint32_t)g.raw_nch * (uint32_t)STEM_RAW_PITCH(R) : (uint32_t)R * g.row_bytes;
            int stage = 0;
            uint32_t phase = 0;
            for (int tile = (int)blockIdx.x, i = 0; tile < g.num_tiles; tile += (int)gridDim.x, i++) {
                if (i >= S) ptx_mbarrier_wait_parity(empty_bar + 8u * stage, phase ^ 1u);
                const int np = igemm_fastdiv_div(tile, g.fd_tq), tq = tile - np * g.tiles_q;
                const int n = igemm_fastdiv_div(np, g.fd_p), p = np - n * g.p;
                const int y0 = p * g.stride_h - g.pad_top;
                const uint32_t fb = full_bar + 8u * stage, dst = x_smem + (uint32_t)stage * g.stage_bytes;
                ptx_mbarrier_arrive_expect_tx(fb, tx);
                if (raw) {
                    /* the row segment from pixel 2 (q0 + d_lo), in NCH chunks from the 16-byte
                     * aligned element at or below its first */
                    const int e0 = (2 * g.c * (tq * TP + g.d_lo)) & ~7;
#pragma unroll 1
                    for (int ch = 0; ch < g.raw_nch; ch++)
                        ptx_cp_async_bulk_tensor_3d_tile(dst + (uint32_t)(ch * STEM_RAW_PITCH(R)), &tmap_x, fb,
                                                         e0 + ch * STEM_RAW_STEP, y0, n);
                } else {
                    /* the row's pairs from q0 + d_lo: the groups of 8 pairs from floor((q0 + d_lo) / 8) */
                    ptx_cp_async_bulk_tensor_4d_tile(dst, &tmap_x, fb, 0, (tq * TP + g.d_lo) >> 3, y0, n);
                }
                if (++stage == S) {
                    stage = 0;
                    phase ^= 1u;
                }
            }
        } else if (warp == 1 && has_res && threadIdx.x == 32) { /* residuals into the staging boxes */
            ptx_prefetch_tensormap(&tmap_r);
            ptx_mbarrier_wait_parity(w_bar, 0); /* the boxes were the fold's scratch */
            for (int tile = (int)blockIdx.x, i = 0; tile < g.num_tiles; tile += (int)gridDim.x, i++) {
                const int c = i % NC, u = i / NC, slot = c * STEM_EB + u % STEM_EB;
                /* the box's previous tile (u - EB) has been read by its store */
                if (u >= STEM_EB) ptx_mbarrier_wait_parity(rempty_bar + 8u * slot, (uint32_t)((u / STEM_EB - 1) & 1));
                const int np = igemm_fastdiv_div(tile, g.fd_tq), tq = tile - np * g.tiles_q;
                const uint32_t rb = rfull_bar + 8u * slot;
                ptx_mbarrier_arrive_expect_tx(rb, EBOX);
                ptx_cp_async_bulk_tensor_3d_tile(e_smem + (uint32_t)slot * EBOX, &tmap_r, rb, 0, tq * TP, np);
            }
        }
        return;
    }

    /* -------------------------------------------------------------------- consumers */
    ptx_setmaxnreg_inc<SM90_CONSUMER_REGS(NC)>();
    const int cw = wg - 1;
    const int tid = (int)threadIdx.x - 128 * wg;
    const int warp = tid >> 5, lane = tid & 31;
    if (tid == 0) ptx_prefetch_tensormap(&tmap_y);
    /* the folded filter, by the consumer warpgroups (the staging boxes hold w meanwhile) */
    stem_fold_filter<R, KS, 128 * NC>(g, w_smem, e_smem, (int)threadIdx.x - 128, 4u);
    if (threadIdx.x == 128) ptx_mbarrier_arrive(w_bar);
    /* this thread's two channels (wgmma rows 16 warp + lane/4 and + 8): their factors */
    float as0 = a.alpha, as1 = a.alpha, bi0 = 0.0f, bi1 = 0.0f;
    if (GENERAL) {
        const int64_t c0 = warp * 16 + (lane >> 2), c1 = c0 + 8;
        const int64_t k0 = c0 < a.gemm_n ? c0 : a.gemm_n - 1, k1 = c1 < a.gemm_n ? c1 : a.gemm_n - 1;
        if (a.has_scale) as0 = a.alpha * __ldg(a.scale + k0), as1 = a.alpha * __ldg(a.scale + k1);
        if (a.has_bias) bi0 = __ldg(a.bias + k0), bi1 = __ldg(a.bias + k1);
    }
    const uint32_t my_pairs = pair_smem + (uint32_t)cw * g.pair_bytes;

    float acc[TP / 2];
#pragma unroll
    for (int j = 0; j < TP / 2; j++) acc[j] = 0.0f;
    /* the ring position of this consumer's tile i = cw + NC u: stage i mod S, phase (i / S) mod 2,
     * advanced by NC per tile (a run-time division per tile cost ~6% of the consumers' time) */
    int stage = cw, phase = 0;
    while (stage >= S) stage -= S, phase ^= 1;
    for (int tile = (int)blockIdx.x + cw * (int)gridDim.x, i = cw, u = 0; tile < g.num_tiles;
         tile += NC * (int)gridDim.x, i += NC, u++) {
        if (u > 0) {
            stage += NC;
            while (stage >= S) stage -= S, phase ^= 1;
        }
        /* in tile order: the previous tile's consumer has passed its stage wait */
        if (i > 0) ptx_mbarrier_wait_parity(order_bar + 8u * cw, (uint32_t)((cw == 0 ? u - 1 : u) & 1));
        ptx_mbarrier_wait_parity(full_bar + 8u * stage, (uint32_t)phase);
        if (tid == 0) ptx_mbarrier_arrive(order_bar + 8u * (uint32_t)((cw + 1) % NC));
        const int np = igemm_fastdiv_div(tile, g.fd_tq), tq = tile - np * g.tiles_q;
        const uint32_t stage_smem = x_smem + (uint32_t)stage * g.stage_bytes;
        uint32_t xs; /* the tile's first pair q0 + d_lo */
        if (raw) {
            /* the stage's chunks into pixel pairs (this consumer's previous MMAs, which read the
             * pair buffer, completed before its epilogue); then the stage goes back to the ring */
            const int off = (2 * g.c * (tq * TP + g.d_lo)) & 7; /* past the chunks' aligned start */
            if (g.c == 3) stem_repack<3, R, ROWP, 128>(stage_smem, my_pairs, off, tid);
            else if (g.c == 4) stem_repack<4, R, ROWP, 128>(stage_smem, my_pairs, off, tid);
            else if (g.c == 2) stem_repack<2, R, ROWP, 128>(stage_smem, my_pairs, off, tid);
            else stem_repack<1, R, ROWP, 128>(stage_smem, my_pairs, off, tid);
            ptx_fence_proxy_async_shared_cta(); /* st.shared -> visible to the wgmmas (async proxy) */
            ptx_bar_sync(1 + (uint32_t)cw, 128);
            sm90_release_stage(empty_bar, stage, lane == 0);
            xs = my_pairs;
        } else {
            xs = stage_smem + 16u * (uint32_t)((tq * TP + g.d_lo) & 7); /* at pair (q0 + d_lo) mod 8 */
        }
#pragma unroll
        for (int j = 0; j < TP / 2; j++) wgmma_fence_operand(acc[j]);
        ptx_wgmma_fence();
        /* R and KS at compile time: straight-line wgmmas (a run-time loop made ptxas inject
         * warpgroup.arrive, C7519; a run-time branch around a wgmma serialises them all, C7520) */
#pragma unroll
        for (int r = 0; r < R; r++) {
#pragma unroll
            for (int j = 0; j < KS; j++) {
                const uint64_t da = wgmma_desc_kmajor_none(w_smem + (uint32_t)(r * KS + j) * STEM_STEP_BYTES, 128u, 256u);
                const uint64_t db = wgmma_desc_kmajor_none(xs + (uint32_t)r * g.row_bytes + 32u * (uint32_t)j, 16u, 128u);
                sm90_wgmma<DT, TP>(acc, da, db, (r > 0 || j > 0) ? 1 : 0);
            }
        }
        ptx_wgmma_commit_group();
        /* while the MMAs run: this consumer's previous store has read its box, which may now take
         * the residual of its next tile (or, without one, the next tile's output) */
        if (tid == 0 && u > 0) {
            ptx_cp_async_bulk_wait_group_read<0>();
            if (has_res) ptx_mbarrier_arrive(rempty_bar + 8u * (uint32_t)(cw * STEM_EB + (u - 1) % STEM_EB));
        }
        ptx_wgmma_wait_group<0>();
#pragma unroll
        for (int j = 0; j < TP / 2; j++) wgmma_fence_operand(acc[j]);
        if (!raw) sm90_release_stage(empty_bar, stage, lane == 0);

        /* epilogue: TP pixels x this CTA's 64 channels (the residual, if any, landed in the box) */
        const int slot = cw * STEM_EB + u % STEM_EB;
        const uint32_t box = e_smem + (uint32_t)slot * EBOX;
        if (has_res) ptx_mbarrier_wait_parity(rfull_bar + 8u * (uint32_t)slot, (uint32_t)((u / STEM_EB) & 1));
        sm90_pixn_tile<DT, TP, GENERAL, ACT_ANY>(a, acc, box, box, has_res, warp, lane, as0, bi0, as1, bi1);
        ptx_fence_proxy_async_shared_cta(); /* st.shared -> visible to the TMA (async proxy) */
        ptx_bar_sync(1 + (uint32_t)cw, 128);
        if (tid == 0) {
            ptx_cp_async_bulk_tensor_3d_global_shared_cta(&tmap_y, box, 0, tq * TP, np);
            ptx_cp_async_bulk_commit_group();
        }
    }
    /* the staging boxes stay valid until the last stores have read them */
    if (tid == 0) ptx_cp_async_bulk_wait_group_read<0>();
#endif
}

#endif /* IGEMM_SM90_CONV_STEM_ROWS_CUH */
