/*
 * conv2d_stem_kernel.cuh — device code of the sm90 stem family (the algorithm, layouts, tile and
 * PTX features: the header comment of conv2d_stem.cu). Included by conv2d_stem.cu (host code,
 * the pre-pass kernel) and by conv2d_stem_{bf16,f16}.cu, which instantiate the kernel for one
 * input dtype each.
 */
#ifndef IGEMM_SM90_CONV2D_STEM_KERNEL_CUH
#define IGEMM_SM90_CONV2D_STEM_KERNEL_CUH

/* igemm_sm90_args_t (the epilogue's fields), the pixels-as-N epilogue (sm90_pixn_blocks,
 * sm90_pixn_residual), sm90_wgmma and the PTX wrappers */
#include "conv2d_fprop_kernel.cuh"

#define STEM_NC 3                          /* consumer warpgroups, taking the CTA's tiles in turn */
#define STEM_THREADS (128 * (STEM_NC + 1)) /* + the producer warpgroup */
#define STEM_EB 2                          /* staging boxes per consumer (its tiles alternate) */
#define STEM_MAX_STAGES 8
#define STEM_STEP_BYTES 2048u /* one k16 step of the folded filter: 64 rows x 16 elements */
#define STEM_MAX_ROWS 11      /* filter rows R (the folded filter stays in shared memory) */

/* The stem kernel's geometry (the epilogue's fields travel in an igemm_sm90_args_t). */
typedef struct igemm_sm90_stem_args {
    int32_t p;           /* output rows */
    int32_t stride_h, pad_top;
    int32_t d_lo;        /* the first pair tap: floor(-pad_left / 2) */
    int32_t tiles_q;     /* ceil(Q / TP) tiles per output row */
    int32_t num_tiles;   /* n * p * tiles_q */
    int32_t stages;      /* operand ring stages (one tile each) */
    uint32_t stage_bytes;/* pitch of a ring stage (a multiple of 1024) */
    uint32_t row_bytes;  /* one staged input row: NG groups of 8 pairs (128 B each) */
    uint32_t w_bytes;    /* the folded filter: R * KS * STEM_STEP_BYTES */
    const void *w2;      /* the folded filter (its shared-memory image, written by the pre-pass) */
    igemm_fastdiv_t fd_tq, fd_p; /* / tiles_q, / p */
} igemm_sm90_stem_args_t;

/* One CTA per SM, persistent: warp 0 of the producer warpgroup loads the folded filter once and
 * then one stage per tile (the tile's R input rows as groups of 8 pixel pairs, 128 B: a 4-D TMA box
 * of 64 x NG x R x 1, zero fill outside the image); warp 1 loads each tile's residual into its
 * consumer's staging box; consumer warpgroup cw takes the CTA's tiles cw, cw + NC, .. (each tile
 * R x KS wgmma m64nTPk16: the 64 filter rows as A, the TP pixels as B read from the staged rows
 * with no-swizzle descriptors, start + 32 j bytes, LBO 16 B = the next pair tap, SBO 128 B = the
 * next 8 pixels), then the pixels-as-N epilogue into its staging box and a 3-D TMA store.
 * Barriers: full/empty per stage (ring), rfull/rempty per staging box, order per consumer (a
 * consumer waits on a stage only after the previous tile's consumer has: no parity aliasing),
 * one for the filter. */
template <int DT, int TP, int R, int KS, int EPI>
__global__ void __launch_bounds__(STEM_THREADS, 1)
    igemm_sm90_stem_kernel(const __grid_constant__ CUtensorMap tmap_x, const __grid_constant__ CUtensorMap tmap_y,
                           const __grid_constant__ CUtensorMap tmap_r, const __grid_constant__ igemm_sm90_args_t a,
                           const __grid_constant__ igemm_sm90_stem_args_t g)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    constexpr int NC = STEM_NC;
    constexpr uint32_t EBOX = (uint32_t)TP * 128u; /* TP pixels x 64 channels, 128B-swizzled (TMA store) */
    constexpr bool GENERAL = EPI > 0;
    constexpr bool ACT_ANY = EPI == 2;
    static_assert(TP % 16 == 0 && TP <= 128 && (KS == 1 || KS == 2) && R >= 1 && R <= STEM_MAX_ROWS,
                  "stem tiles: TP a multiple of 16, KS 1 or 2, R rows");
    extern __shared__ __align__(1024) uint8_t smem_raw[];

    /* carve: S stages | NC x EB staging boxes | folded filter | barriers */
    const int S = g.stages;
    const uint32_t raw = ptx_cvta_to_shared(smem_raw);
    const uint32_t x_smem = (raw + 1023u) & ~1023u;
    const uint32_t e_smem = x_smem + (uint32_t)S * g.stage_bytes;
    const uint32_t w_smem = e_smem + (uint32_t)(NC * STEM_EB) * EBOX;
    const uint32_t full_bar = w_smem + g.w_bytes; /* 8-byte aligned: w_bytes is a multiple of 2048 */
    const uint32_t empty_bar = full_bar + 8u * (uint32_t)S;
    const uint32_t rfull_bar = empty_bar + 8u * (uint32_t)S;       /* [consumer][box] */
    const uint32_t rempty_bar = rfull_bar + 8u * NC * STEM_EB;     /* [consumer][box] */
    const uint32_t order_bar = rempty_bar + 8u * NC * STEM_EB;     /* [consumer] */
    const uint32_t w_bar = order_bar + 8u * NC;
    const bool has_res = GENERAL && a.has_residual;

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
     * below waits for the grid before this one (the pre-pass that wrote x4 and w2) */
    ptx_griddepcontrol_launch_dependents();
    ptx_griddepcontrol_wait();

    const int wg = (int)(threadIdx.x >> 7);
    if (wg == 0) {
        /* ---------------------------------------------------------------- producers */
        ptx_setmaxnreg_dec<SM90_PRODUCER_REGS>();
        const int warp = (int)(threadIdx.x >> 5);
        if (warp == 0 && threadIdx.x == 0) { /* operands */
            ptx_mbarrier_arrive_expect_tx(w_bar, g.w_bytes);
            ptx_cp_async_bulk_shared_global(w_smem, g.w2, g.w_bytes, w_bar);
            const uint32_t tx = (uint32_t)R * g.row_bytes;
            int stage = 0;
            uint32_t phase = 0;
            for (int tile = (int)blockIdx.x, i = 0; tile < g.num_tiles; tile += (int)gridDim.x, i++) {
                if (i >= S) ptx_mbarrier_wait_parity(empty_bar + 8u * stage, phase ^ 1u);
                const int np = igemm_fastdiv_div(tile, g.fd_tq), tq = tile - np * g.tiles_q;
                const int n = igemm_fastdiv_div(np, g.fd_p), p = np - n * g.p;
                const uint32_t fb = full_bar + 8u * stage;
                ptx_mbarrier_arrive_expect_tx(fb, tx);
                /* the row's pairs from q0 + d_lo: the groups of 8 pairs from floor((q0 + d_lo) / 8) */
                ptx_cp_async_bulk_tensor_4d_tile(x_smem + (uint32_t)stage * g.stage_bytes, &tmap_x, fb, 0,
                                                 (tq * TP + g.d_lo) >> 3, p * g.stride_h - g.pad_top, n);
                if (++stage == S) {
                    stage = 0;
                    phase ^= 1u;
                }
            }
        } else if (warp == 1 && has_res && threadIdx.x == 32) { /* residuals into the staging boxes */
            ptx_prefetch_tensormap(&tmap_r);
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
    /* this thread's two channels (wgmma rows 16 warp + lane/4 and + 8): their factors */
    float as0 = a.alpha, as1 = a.alpha, bi0 = 0.0f, bi1 = 0.0f;
    if (GENERAL) {
        const int64_t c0 = warp * 16 + (lane >> 2), c1 = c0 + 8;
        const int64_t k0 = c0 < a.gemm_n ? c0 : a.gemm_n - 1, k1 = c1 < a.gemm_n ? c1 : a.gemm_n - 1;
        if (a.has_scale) as0 = a.alpha * __ldg(a.scale + k0), as1 = a.alpha * __ldg(a.scale + k1);
        if (a.has_bias) bi0 = __ldg(a.bias + k0), bi1 = __ldg(a.bias + k1);
    }
    ptx_mbarrier_wait_parity(w_bar, 0); /* the folded filter landed */

    float acc[TP / 2];
#pragma unroll
    for (int j = 0; j < TP / 2; j++) acc[j] = 0.0f;
    for (int tile = (int)blockIdx.x + cw * (int)gridDim.x, i = cw, u = 0; tile < g.num_tiles;
         tile += NC * (int)gridDim.x, i += NC, u++) {
        /* in tile order: the previous tile's consumer has passed its stage wait */
        if (i > 0) ptx_mbarrier_wait_parity(order_bar + 8u * cw, (uint32_t)((cw == 0 ? u - 1 : u) & 1));
        const int stage = i % S;
        ptx_mbarrier_wait_parity(full_bar + 8u * stage, (uint32_t)((i / S) & 1));
        if (tid == 0) ptx_mbarrier_arrive(order_bar + 8u * (uint32_t)((cw + 1) % NC));
        /* the tile's first pair q0 + d_lo sits at pair (q0 + d_lo) mod 8 of the staged rows */
        const int np = igemm_fastdiv_div(tile, g.fd_tq), tq = tile - np * g.tiles_q;
        const uint32_t xs = x_smem + (uint32_t)stage * g.stage_bytes + 16u * (uint32_t)((tq * TP + g.d_lo) & 7);
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
        sm90_release_stage(empty_bar, 0u, stage, lane == 0);

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

typedef void (*sm90_stem_kernel_fn)(CUtensorMap, CUtensorMap, CUtensorMap, igemm_sm90_args_t, igemm_sm90_stem_args_t);

/* The instance for (TP, KS, epilogue kind 0/1/2 as the kernel's EPI), or NULL. Defined in
 * conv2d_stem_{bf16,f16}.cu. */
sm90_stem_kernel_fn igemm_sm90_pick_bf16_stem(int tp, int r, int ks, int epi);
sm90_stem_kernel_fn igemm_sm90_pick_f16_stem(int tp, int r, int ks, int epi);

/* (R, KS) instances: 3x3 (3, 1: two pair taps whatever the padding); 4x4 (4, 1 or 2: two or three
 * pair taps); 5x5 (5, 2); 7x7 (7, 2), ResNet's stem. Other filters go to the fold family. */
#define STEM_HAS_INSTANCE(r, ks) (((r) == 3 && (ks) == 1) || ((r) == 4 && (ks) == 1) || ((r) == 4 && (ks) == 2) || \
                                  ((r) == 5 && (ks) == 2) || ((r) == 7 && (ks) == 2))
#define SM90_STEM_EPI(DT, TP, R, KS, epi)                                                             \
    ((epi) == 0   ? igemm_sm90_stem_kernel<DT, TP, R, KS, 0>                                          \
     : (epi) == 1 ? igemm_sm90_stem_kernel<DT, TP, R, KS, 1>                                          \
                  : igemm_sm90_stem_kernel<DT, TP, R, KS, 2>)
#define SM90_STEM_TP(DT, R, KS, tp, epi)                                                              \
    ((tp) == 112 ? SM90_STEM_EPI(DT, 112, R, KS, epi) : SM90_STEM_EPI(DT, 128, R, KS, epi))
#define SM90_DEFINE_PICK_STEM(NAME, DT)                                                                \
    sm90_stem_kernel_fn NAME(int tp, int r, int ks, int epi)                                           \
    {                                                                                                  \
        if (tp != 112 && tp != 128) return NULL;                                                       \
        if (r == 3 && ks == 1) return SM90_STEM_TP(DT, 3, 1, tp, epi);                                 \
        if (r == 4 && ks == 1) return SM90_STEM_TP(DT, 4, 1, tp, epi);                                 \
        if (r == 4 && ks == 2) return SM90_STEM_TP(DT, 4, 2, tp, epi);                                 \
        if (r == 5 && ks == 2) return SM90_STEM_TP(DT, 5, 2, tp, epi);                                 \
        if (r == 7 && ks == 2) return SM90_STEM_TP(DT, 7, 2, tp, epi);                                 \
        return NULL;                                                                                   \
    }

#endif /* IGEMM_SM90_CONV2D_STEM_KERNEL_CUH */
