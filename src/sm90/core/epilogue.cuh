/*
 * core/epilogue.cuh — the epilogues of the Hopper conv kernels: the fused epilogue's fragment math
 *     y = act(alpha * scale[k] * acc + bias[k] + beta * residual[m, k])
 * on the wgmma accumulators, the staging boxes (stmatrix into 128B-swizzled boxes that a TMA store
 * writes to y; the residual read from them or from an operand-ring stage by ldmatrix) and the
 * direct stores (f32 y, k % 8 != 0, split-K partials).
 *   sm90_epilogue_rows   row tiles: per 64-column chunk of each 64-row block, in passes with the
 *                        run-time switches hoisted: linear (alpha*scale, bias) + residual,
 *                        activation (ReLU on the packed pairs; the others out of line), store
 *   sm90_epilogue_pixn   pixels as N: the consumer's 64 channels x TP pixels, through
 *                        ldmatrix/stmatrix .trans between the channel-major accumulators and the
 *                        [pixel][channel] boxes
 * The staging ring of a consumer: ES boxes; a box is refilled (residual TMA-loaded, or written)
 * only once the TMA store of its previous contents has read it (cp.async.bulk.wait_group.read).
 */
#ifndef IGEMM_SM90_CORE_EPILOGUE_CUH
#define IGEMM_SM90_CORE_EPILOGUE_CUH

#include "ring.cuh"

/* Stores 4 consecutive columns n..n+3 of output row m (m < M, n < N; columns >= N dropped).
 * partial: raw fp32 into workspace[split]; else the fused epilogue, rounded to y's dtype. */
static __device__ __forceinline__ void sm90_store4(const igemm_sm90_args_t &a, int64_t m, int64_t n, float4 acc,
                                                   bool partial, int split)
{
    const int64_t N = a.gemm_n;
    const int64_t off = m * N + n;
    const int64_t left = N - n;
    const bool full = left >= 4 && a.vec4;
    float v[4] = {acc.x, acc.y, acc.z, acc.w};
    if (partial) {
        float *dst = a.workspace + (int64_t)split * a.gemm_m * N + off;
        if (full) {
            *(float4 *)dst = acc;
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++)
                if (e < left) dst[e] = v[e];
        }
        return;
    }
    float res[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (a.has_residual) {
        if (full) {
            if (a.out_dtype == IGEMM_DTYPE_F32) {
                const float4 r4 = *(const float4 *)((const float *)a.residual + off);
                res[0] = r4.x, res[1] = r4.y, res[2] = r4.z, res[3] = r4.w;
            } else {
                const uint2 raw = *(const uint2 *)((const uint16_t *)a.residual + off);
                if (a.out_dtype == IGEMM_DTYPE_F16) {
                    const float2 lo = __half22float2(*(const __half2 *)&raw.x);
                    const float2 hi = __half22float2(*(const __half2 *)&raw.y);
                    res[0] = lo.x, res[1] = lo.y, res[2] = hi.x, res[3] = hi.y;
                } else {
                    const float2 lo = __bfloat1622float2(*(const __nv_bfloat162 *)&raw.x);
                    const float2 hi = __bfloat1622float2(*(const __nv_bfloat162 *)&raw.y);
                    res[0] = lo.x, res[1] = lo.y, res[2] = hi.x, res[3] = hi.y;
                }
            }
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++)
                if (e < left) res[e] = igemm_load_out(a.residual, off + e, a.out_dtype);
        }
    }
#pragma unroll
    for (int e = 0; e < 4; e++) {
        if (e < left) {
            float t = a.alpha * v[e];
            if (a.has_scale) t *= a.scale[n + e];
            if (a.has_bias) t += a.bias[n + e];
            if (a.has_residual) t += a.beta * res[e];
            v[e] = igemm_act_dev(a.act, t, a.act_param);
        }
    }
    if (full) {
        if (a.out_dtype == IGEMM_DTYPE_F32) {
            *(float4 *)((float *)a.y + off) = make_float4(v[0], v[1], v[2], v[3]);
        } else if (a.out_dtype == IGEMM_DTYPE_F16) {
            const __half2 lo = __floats2half2_rn(v[0], v[1]);
            const __half2 hi = __floats2half2_rn(v[2], v[3]);
            uint2 raw;
            raw.x = *(const uint32_t *)&lo;
            raw.y = *(const uint32_t *)&hi;
            *(uint2 *)((uint16_t *)a.y + off) = raw;
        } else {
            const __nv_bfloat162 lo = __floats2bfloat162_rn(v[0], v[1]);
            const __nv_bfloat162 hi = __floats2bfloat162_rn(v[2], v[3]);
            uint2 raw;
            raw.x = *(const uint32_t *)&lo;
            raw.y = *(const uint32_t *)&hi;
            *(uint2 *)((uint16_t *)a.y + off) = raw;
        }
    } else {
#pragma unroll
        for (int e = 0; e < 4; e++)
            if (e < left) igemm_store_out(a.y, off + e, a.out_dtype, v[e]);
    }
}

/* Packs two floats into a 16-bit pair of the input-like dtype DTO (F16 or BF16). */
static __device__ __forceinline__ uint32_t sm90_pack2(int out_dtype, float v0, float v1)
{
    if (out_dtype == IGEMM_DTYPE_F16) {
        const __half2 h = __floats2half2_rn(v0, v1);
        return *(const uint32_t *)&h;
    }
    const __nv_bfloat162 h = __floats2bfloat162_rn(v0, v1);
    return *(const uint32_t *)&h;
}

/* The TMA-store epilogue's pack: (v0, v1) rounded to DT (F16 or BF16) and, with relu, ReLU
 * applied to the packed pair (one max.{b}f16x2 per pair instead of one fmaxf per value: the
 * fused epilogue of a cooperative tile runs while the tensor cores idle, so its instructions
 * are time, docs/decisions.md "relu-packed", S10-7; the result is the same as packing fmaxf(v, 0), max.cuh). */
template <int DT>
static __device__ __forceinline__ uint32_t sm90_pack2_relu(float v0, float v1, bool relu)
{
    const uint32_t p = sm90_pack2(DT, v0, v1);
    if (!relu) return p;
    return DT == IGEMM_DTYPE_F16 ? ptx_max_f16x2(p, 0u) : ptx_max_bf16x2(p, 0u);
}

/* Unpacks a 16-bit pair of dtype out_dtype (F16 or BF16) into two floats. */
static __device__ __forceinline__ float2 sm90_unpack2(int out_dtype, uint32_t raw)
{
    if (out_dtype == IGEMM_DTYPE_F16) return __half22float2(*(const __half2 *)&raw);
    return __bfloat1622float2(*(const __nv_bfloat162 *)&raw);
}

/* Direct store of one (already epilogued) column pair to y, or raw partials to the split-K
 * workspace; masks m >= M (row_ok) and columns >= N. */
static __device__ __forceinline__ void sm90_store_pair(const igemm_sm90_args_t &a, int64_t rowoff, int64_t n,
                                                       bool row_ok, float v0, float v1, bool partial, int split)
{
    if (!row_ok || n >= a.gemm_n) return;
    const int64_t off = rowoff + n;
    const bool both = n + 1 < a.gemm_n;
    if (partial) {
        float *dst = a.workspace + (int64_t)split * a.gemm_m * a.gemm_n + off;
        if (both && a.vec2) *(float2 *)dst = make_float2(v0, v1);
        else {
            dst[0] = v0;
            if (both) dst[1] = v1;
        }
        return;
    }
    if (both && a.vec2) {
        if (a.out_dtype == IGEMM_DTYPE_F32) *(float2 *)((float *)a.y + off) = make_float2(v0, v1);
        else *(uint32_t *)((uint16_t *)a.y + off) = sm90_pack2(a.out_dtype, v0, v1);
    } else {
        igemm_store_out(a.y, off, a.out_dtype, v0);
        if (both) igemm_store_out(a.y, off + 1, a.out_dtype, v1);
    }
}


/* Residual pair (n, n+1) of output row rowoff/N for the direct-store epilogue (0 outside). */
static __device__ __forceinline__ float2 sm90_res_pair(const igemm_sm90_args_t &a, int64_t rowoff, int64_t n,
                                                       bool row_ok)
{
    float2 r = make_float2(0.0f, 0.0f);
    if (!row_ok || n >= a.gemm_n) return r;
    const int64_t off = rowoff + n;
    if (a.vec2 && n + 1 < a.gemm_n && a.out_dtype != IGEMM_DTYPE_F32)
        return sm90_unpack2(a.out_dtype, __ldg((const unsigned int *)((const uint16_t *)a.residual + off)));
    r.x = igemm_load_out(a.residual, off, a.out_dtype);
    if (n + 1 < a.gemm_n) r.y = igemm_load_out(a.residual, off + 1, a.out_dtype);
    return r;
}

/* The epilogue chunk of a BN-column row tile: 64 columns (one 128 B swizzle row: the staging
 * boxes and TMA stores), or 32 for widths of 32 (j + 1/2) x 64 (BN = 32: direct stores only). */
#define SM90_EPI_CW(BN) ((BN) % SM90_EPI_COLS == 0 ? SM90_EPI_COLS : 32)

/* Per-column factors of one epilogue chunk of 8 JJ columns for this lane: as = alpha*scale, bi = bias
 * at columns nc + 8jj, nc + 8jj + 1 (nc: the chunk's first column + 2*(lane%4)); float2 loads
 * where the chunk ends inside N (chunk_end <= N) and the vectors are 8-byte aligned, clamped
 * scalar loads otherwise (a chunk past N loads column N - 1: harmless, unused). */
template <int JJ = 8>
static __device__ __forceinline__ void sm90_chunk_factors(const igemm_sm90_args_t &a, int64_t nc, int64_t chunk_end,
                                                          float2 (&as)[8], float2 (&bi)[8])
{
    static_assert(JJ == 4 || JJ == 8, "chunks of 32 or 64 columns");
    const bool whole = a.sb_vec2 && chunk_end <= a.gemm_n;
#pragma unroll
    for (int jj = 0; jj < JJ; jj++) {
        as[jj] = make_float2(a.alpha, a.alpha);
        bi[jj] = make_float2(0.0f, 0.0f);
    }
    if (a.has_scale) {
        if (whole) {
#pragma unroll
            for (int jj = 0; jj < JJ; jj++) {
                const float2 sc = __ldg((const float2 *)(a.scale + nc + 8 * jj));
                as[jj] = make_float2(a.alpha * sc.x, a.alpha * sc.y);
            }
        } else {
#pragma unroll
            for (int jj = 0; jj < JJ; jj++) {
                const int64_t n = nc + 8 * jj;
                as[jj] = make_float2(a.alpha * __ldg(a.scale + (n < a.gemm_n ? n : a.gemm_n - 1)),
                                     a.alpha * __ldg(a.scale + (n + 1 < a.gemm_n ? n + 1 : a.gemm_n - 1)));
            }
        }
    }
    if (a.has_bias) {
        if (whole) {
#pragma unroll
            for (int jj = 0; jj < JJ; jj++) bi[jj] = __ldg((const float2 *)(a.bias + nc + 8 * jj));
        } else {
#pragma unroll
            for (int jj = 0; jj < JJ; jj++) {
                const int64_t n = nc + 8 * jj;
                bi[jj] = make_float2(__ldg(a.bias + (n < a.gemm_n ? n : a.gemm_n - 1)),
                                     __ldg(a.bias + (n + 1 < a.gemm_n ? n + 1 : a.gemm_n - 1)));
            }
        }
    }
}

/* The residual of sm90_pixn_blocks' NB = 2 (or 1) 8-pixel blocks: ldmatrix .trans from rbox
 * (.x4, or .x2 with lanes 0-15 addressing) into rr[0 .. 2NB). Issued for all of a tile's blocks
 * before the first block's arithmetic, so that their shared-memory latency overlaps (one block
 * pair at a time, each unpack waited on its own load: docs/decisions.md "pixn-residual-ldmatrix", S15-8). */
template <int NB>
static __device__ __forceinline__ void sm90_pixn_residual(uint32_t *rr, uint32_t rbox)
{
    static_assert(NB == 1 || NB == 2, "one or two 8-pixel blocks");
    if constexpr (NB == 2) ldmatrix_sync_aligned_m8n8_x4_trans_b16(rr, rbox);
    else ldmatrix_sync_aligned_m8n8_x2_trans_b16(rr, rbox);
}

/* Pixels-as-N epilogue of NB = 2 (or 1) 8-pixel blocks of this thread's two channels (h = 0, 1):
 * v[4q + 2h + e] is pixel block q, channel half h. The linear part (as/bi: the channels'
 * alpha*scale and bias; alpha alone without GENERAL), + beta * the residual rr (has_res: loaded
 * by sm90_pixn_residual), an out-of-line activation (ReLU goes on the packed pairs), then
 * stmatrix .trans to box (.x4 for two blocks, .x2 for one: lanes 0-15 address it). Matrix m
 * of the .x4 forms is (h = m & 1, block m >> 1). */
template <int DT, int NB, bool GENERAL, bool ACT_ANY>
static __device__ __forceinline__ void sm90_pixn_blocks(const igemm_sm90_args_t &a, float *v, uint32_t box,
                                                        const uint32_t *rr, bool has_res, float as0, float bi0,
                                                        float as1, float bi1)
{
    static_assert(NB == 1 || NB == 2, "one or two 8-pixel blocks");
    if (GENERAL) {
#pragma unroll
        for (int q = 0; q < NB; q++) {
            v[4 * q] = fmaf(v[4 * q], as0, bi0);
            v[4 * q + 1] = fmaf(v[4 * q + 1], as0, bi0);
            v[4 * q + 2] = fmaf(v[4 * q + 2], as1, bi1);
            v[4 * q + 3] = fmaf(v[4 * q + 3], as1, bi1);
        }
        if (has_res) {
#pragma unroll
            for (int m = 0; m < 2 * NB; m++) {
                const float2 r2 = sm90_unpack2(DT, rr[m]);
                const int j = 4 * (m >> 1) + 2 * (m & 1);
                v[j] = fmaf(a.beta, r2.x, v[j]);
                v[j + 1] = fmaf(a.beta, r2.y, v[j + 1]);
            }
        }
        /* ReLU: on the packed pairs below */
        if (a.act != IGEMM_ACT_NONE && ACT_ANY && a.act != IGEMM_ACT_RELU)
            igemm_act_dev_array<4 * NB>(a.act, v, a.act_param); /* ReLU6 / SiLU / hardswish inline */
    } else {
#pragma unroll
        for (int e = 0; e < 4 * NB; e++) v[e] *= a.alpha;
    }
    const bool relu = GENERAL && a.act == IGEMM_ACT_RELU;
    if constexpr (NB == 2)
        stmatrix_sync_aligned_m8n8_x4_trans_b16(box, sm90_pack2_relu<DT>(v[0], v[1], relu),
                                                sm90_pack2_relu<DT>(v[2], v[3], relu),
                                                sm90_pack2_relu<DT>(v[4], v[5], relu),
                                                sm90_pack2_relu<DT>(v[6], v[7], relu));
    else
        stmatrix_sync_aligned_m8n8_x2_trans_b16(box, sm90_pack2_relu<DT>(v[0], v[1], relu),
                                                sm90_pack2_relu<DT>(v[2], v[3], relu));
}

/* The pixels-as-N epilogue of a whole tile (TP pixels x this warpgroup's 64 channels; v = the
 * m64nTPk16 accumulators): the residual (has_res: a TP x 64 box at rbox, 128B-swizzled) read by
 * ldmatrix for every block pair at once, so their latency overlaps, then sm90_pixn_blocks per pair
 * of 8-pixel blocks (and the last block alone when TP = 16 j + 8) into the staging box at box,
 * rows = pixels, 128B-swizzled as the TMA store expects. Each warp reads and then overwrites only
 * its own 16 channels (box == rbox is fine). */
template <int DT, int TP, bool GENERAL, bool ACT_ANY>
static __device__ __forceinline__ void sm90_pixn_tile(const igemm_sm90_args_t &a, float *v, uint32_t box,
                                                      uint32_t rbox, bool has_res, int warp, int lane, float as0,
                                                      float bi0, float as1, float bi1)
{
    const uint32_t mi = (uint32_t)lane >> 3, li = (uint32_t)lane & 7u;
    const uint32_t chunk = ((2u * (uint32_t)warp + (mi & 1u)) ^ li) << 4;
    constexpr int JL = TP / 8 - 1; /* TP = 16 j + 8: the last 8-pixel block alone (lanes 0-15) */
    const uint32_t off_tail = (uint32_t)(8 * JL + (int)li) * 128u + chunk;
    uint32_t rres[TP / 16 + 1][4];
    if (GENERAL && has_res) {
#pragma unroll
        for (int jp = 0; jp < TP / 16; jp++)
            sm90_pixn_residual<2>(rres[jp], rbox + (uint32_t)(16 * jp + 8 * (int)(mi >> 1) + (int)li) * 128u + chunk);
        if constexpr (TP % 16 == 8) sm90_pixn_residual<1>(rres[TP / 16], rbox + off_tail);
    }
#pragma unroll
    for (int jp = 0; jp < TP / 16; jp++) {
        const uint32_t off = (uint32_t)(16 * jp + 8 * (int)(mi >> 1) + (int)li) * 128u + chunk;
        /* v[4q + 2h + e]: pixel block 2jp + q, half h */
        sm90_pixn_blocks<DT, 2, GENERAL, ACT_ANY>(a, &v[8 * jp], box + off, rres[jp], has_res, as0, bi0, as1, bi1);
    }
    if constexpr (TP % 16 == 8)
        sm90_pixn_blocks<DT, 1, GENERAL, ACT_ANY>(a, &v[4 * JL], box + off_tail, rres[TP / 16], has_res, as0, bi0, as1,
                                                  bi1);
}

/* The tile's scale/bias cache lines (columns n0 ..) into L1 for its epilogue: a line per thread
 * tid < BN / 32. */
template <int BN>
static __device__ __forceinline__ void sm90_prefetch_scale_bias(const igemm_sm90_args_t &a, int n0, int tid)
{
    if (tid < BN / 32) {
        const int64_t n = (int64_t)n0 + 32 * tid < a.gemm_n ? (int64_t)n0 + 32 * tid : a.gemm_n - 1;
        if (a.has_bias) ptx_prefetch_global_l1(a.bias + n);
        if (a.has_scale) ptx_prefetch_global_l1(a.scale + n);
    }
}

/* Pixels as N: this thread's two channels' factors, alpha*scale and bias of channels c0 and c0 + 8
 * (clamped to N - 1: a channel past N is computed but not stored). as/bi hold alpha and 0 on entry. */
static __device__ __forceinline__ void sm90_pixn_factors(const igemm_sm90_args_t &a, int64_t c0, float &as0, float &as1,
                                                         float &bi0, float &bi1)
{
    const int64_t c1 = c0 + 8;
    const int64_t k0 = c0 < a.gemm_n ? c0 : a.gemm_n - 1, k1 = c1 < a.gemm_n ? c1 : a.gemm_n - 1;
    if (a.has_scale) as0 = a.alpha * __ldg(a.scale + k0), as1 = a.alpha * __ldg(a.scale + k1);
    if (a.has_bias) bi0 = __ldg(a.bias + k0), bi1 = __ldg(a.bias + k1);
}

/* What a consumer warpgroup knows of itself for its epilogues. */
typedef struct sm90_consumer {
    int cw;                               /* consumer index (warpgroup - 1) */
    int tid, warp, lane;                  /* thread in the warpgroup, its warp and lane */
    uint32_t lane_box;                    /* this lane's stmatrix/ldmatrix row address in a 64 x 64 box */
    uint32_t my_epi, my_rfull, my_rempty; /* its staging boxes and their barriers */
} sm90_consumer_t;

/* The consumer's staging-box ring: the next box, the previous chunk's box (-1: none), the lap. */
typedef struct sm90_staging {
    int slot, prev;
    uint32_t phase;
} sm90_staging_t;

/* The consumer context of consumer warpgroup wg (1..NC) with ES boxes of EBOX bytes each. The lane
 * address: matrix mi = lane/8 is (row half h = mi & 1, column block 2jp + (mi >> 1)); row = 16*warp
 * + 8h + lane%8; swizzled 16 B chunk = (2jp + (mi>>1)) ^ (row%8). */
template <uint32_t EBOX>
static __device__ __forceinline__ sm90_consumer_t sm90_consumer(const sm90_smem_t &c, int wg, int ES)
{
    sm90_consumer_t k;
    k.cw = wg - 1;
    k.tid = threadIdx.x - 128 * wg;
    k.warp = k.tid >> 5;
    k.lane = k.tid & 31;
    k.my_epi = c.epi_smem + (uint32_t)k.cw * (uint32_t)ES * EBOX;
    k.my_rfull = c.rfull_bar + 8u * SM90_MAX_EPI_SLOTS * (uint32_t)k.cw;
    k.my_rempty = c.rempty_bar + 8u * SM90_MAX_EPI_SLOTS * (uint32_t)k.cw;
    const uint32_t lrow = (uint32_t)(k.warp * 16 + 8 * ((k.lane >> 3) & 1) + (k.lane & 7));
    k.lane_box = lrow * 128u + ((((uint32_t)k.lane >> 4) ^ ((uint32_t)k.lane & 7u)) << 4);
    return k;
}

/* The row-tile epilogue of one tile (origin m0, n0; this consumer's rows row0 ..): every epilogue
 * chunk (64 columns; 32 where BN is an odd multiple of 32: direct stores) that starts inside N
 * (SKC: only chunk `rank`, the one this CTA finishes), for each of the WM 64-row blocks. Residual: from the staging box (res_ring: TMA-loaded by the residual
 * producer), from the tile's operand-ring stages (nres > 0: the stage of chunk ch is rstage + ch,
 * lap rphase), or by global loads (direct stores). as/bi: chunk 0's factors on entry (loaded
 * before the mainloop); each chunk loads the next chunk's after its linear pass. Fragment layout
 * (src/ptx/wgmma.cuh): acc[i][4J + 2h + e] is row 64i + 16*warp + lane/4 + 8h, column
 * 8J + 2*(lane%4) + e of this consumer's 64*WM x BN block. */
template <int DT, int BN, int WM, bool GENERAL, bool ACT_ANY, bool TMA_EPI, bool SKC, uint32_t A_STAGE>
static __device__ __forceinline__ void sm90_epilogue_rows(const igemm_sm90_args_t &a, const CUtensorMap *tmap_y,
                                                          float (&acc)[WM][BN / 2], float2 (&as)[8], float2 (&bi)[8],
                                                          const sm90_consumer_t &C, sm90_staging_t &E,
                                                          const sm90_smem_t &c, int S, int ES, int m0, int n0,
                                                          int row0, bool res_ring, bool partial, int split, int nres,
                                                          int rstage, uint32_t rphase, int rank)
{
    constexpr int CW = SM90_EPI_CW(BN); /* columns per epilogue chunk */
    constexpr int NCH = BN / CW, JJ = CW / 8;
    static_assert(BN % 32 == 0 && (CW == SM90_EPI_COLS || (!TMA_EPI && !SKC)),
                  "32-column chunks: direct stores only (the staging boxes are 64 columns wide)");
    const int cw = C.cw, tid = C.tid, warp = C.warp, lane = C.lane;
    const uint32_t lane_box = C.lane_box, my_epi = C.my_epi, my_rfull = C.my_rfull, my_rempty = C.my_rempty;
    const uint32_t a_smem = c.a_smem, full_bar = c.full_bar, empty_bar = c.empty_bar;
    int &eslot = E.slot, &prev_eslot = E.prev;
    uint32_t &ephase = E.phase;
    const int r_lo = warp * 16 + (lane >> 2); /* and r_lo + 8, inside a 64-row block */
    const uint32_t zero_rt = (uint32_t)(a.gemm_m >> 40); /* 0 (M < 2^31), unknown to the compiler */
#pragma unroll
    for (int ch = 0; ch < NCH; ch++) {
        if ((int64_t)n0 + ch * CW >= a.gemm_n) break; /* uniform in the CTA */
        if (SKC && ch != rank) continue; /* split in cluster: the partner finishes that chunk */
        const int64_t nc = (int64_t)n0 + ch * CW + 2 * (lane & 3); /* column of jj = 0 */
        /* as/bi hold this chunk's per-column factors (as = alpha*scale, bi = bias, 8 pairs):
         * loaded before the mainloop (chunk 0) or after the previous chunk's linear pass */
        /* operand-ring residual: this chunk's stage (BM rows x 64 columns, 64-row boxes),
         * read into registers (16 per 64-row block) and released as soon as read, so the
         * producer refills it while the chunk is computed (held through the chunk, it
         * stalled the other ping-pong consumer's mainloop a ring length later): all blocks
         * up front where the registers allow (RES_HOIST), else block by block, the stage
         * released after the last block's read */
        constexpr bool RES_HOIST = WM == 1 || BN <= 64;
        constexpr bool RES_EARLY = WM * BN <= 128; /* epilogue-ring residual read at its slot's wait */
        uint32_t rres[WM][16];
        const int rpos = rstage + ch;
        const uint32_t rst = (uint32_t)(rpos % S);
        if (TMA_EPI && GENERAL && nres > 0) {
            ptx_mbarrier_wait_parity(full_bar + 8u * rst, rphase ^ (uint32_t)((rpos / S) & 1));
            if (RES_HOIST) {
#pragma unroll
                for (int i = 0; i < WM; i++)
#pragma unroll
                    for (int jp = 0; jp < 4; jp++)
                        ldmatrix_sync_aligned_m8n8_x4_b16(&rres[i][4 * jp],
                                                          a_smem + rst * A_STAGE + (uint32_t)(row0 + 64 * i) * 128u +
                                                              (lane_box ^ (jp << 5)));
                uint32_t dep = 0u; /* released once every read above has returned (sm90_zero_after) */
#pragma unroll
                for (int i = 0; i < WM; i++)
#pragma unroll
                    for (int jp = 0; jp < 4; jp++) dep = sm90_zero_after(rres[i][4 * jp], dep, zero_rt);
                sm90_release_stage(empty_bar, (int)rst, lane == 0 && dep == 0u);
            }
        }
#pragma unroll
        for (int i = 0; i < WM; i++) {
            float *const v = &acc[i][(CW / 2) * ch]; /* this chunk's CW / 2 values: v[4jj + 2h + e] */
            const int mrow = m0 + row0 + 64 * i;  /* first row of this 64-row block */
            const int64_t m_lo = (int64_t)mrow + r_lo;
            const bool ok0 = m_lo < a.gemm_m, ok1 = m_lo + 8 < a.gemm_m;
            const int64_t rowoff0 = m_lo * a.gemm_n, rowoff1 = (m_lo + 8) * a.gemm_n;
            const uint32_t box = my_epi + (uint32_t)eslot * SM90_EPI_BUF_BYTES;
            if (TMA_EPI) {
                if (res_ring) { /* the residual landed (so the slot's last store has read it) */
                    ptx_mbarrier_wait_parity(my_rfull + 8u * eslot, ephase);
                    /* read now, so the loads' latency overlaps the linear pass, where the
                     * registers allow (64 x 128 accumulators per consumer or fewer; with 128 x
                     * 128 the 16 registers spilled; docs/decisions.md "staging-residual-ldmatrix", S15-9) */
                    if (RES_EARLY && !partial && nres == 0) {
#pragma unroll
                        for (int jp = 0; jp < 4; jp++)
                            ldmatrix_sync_aligned_m8n8_x4_b16(&rres[i][4 * jp], box + (lane_box ^ (jp << 5)));
                    }
                } else { /* the store ES = 2 chunks ago has read this box */
                    if (tid == 0) ptx_cp_async_bulk_wait_group_read<1>();
                    ptx_bar_sync(1 + cw, 128);
                }
            }
            if (!partial) {
                /* pass 1: linear part */
#pragma unroll
                for (int jj = 0; jj < JJ; jj++) {
                    if (GENERAL) {
                        v[4 * jj] = fmaf(v[4 * jj], as[jj].x, bi[jj].x);
                        v[4 * jj + 1] = fmaf(v[4 * jj + 1], as[jj].y, bi[jj].y);
                        v[4 * jj + 2] = fmaf(v[4 * jj + 2], as[jj].x, bi[jj].x);
                        v[4 * jj + 3] = fmaf(v[4 * jj + 3], as[jj].y, bi[jj].y);
                    } else {
#pragma unroll
                        for (int e = 0; e < 4; e++) v[4 * jj + e] *= a.alpha;
                    }
                }
                /* the next chunk's factors (as/bi are dead for this chunk once its last
                 * block's linear pass is done): their loads overlap this chunk's residual,
                 * activation and store */
                if (GENERAL && !SKC && i == WM - 1 && ch + 1 < NCH)
                    sm90_chunk_factors<JJ>(a, nc + CW, (int64_t)n0 + (ch + 2) * CW, as, bi);
                /* pass 1b: + beta * residual (TMA ring box by ldmatrix, or global loads) */
                if (GENERAL && a.has_residual) {
                    if (TMA_EPI) { /* TMA epilogue: the residual is in the epilogue-ring slot
                                      (res_ring 1) or the operand-ring stage (2); each warp
                                      reads (and in the slot later overwrites) only its 16 rows */
                        if (nres == 0) {
                            if (!(RES_EARLY && res_ring)) /* (else read at the slot's wait above) */
#pragma unroll
                                for (int jp = 0; jp < 4; jp++)
                                    ldmatrix_sync_aligned_m8n8_x4_b16(&rres[i][4 * jp], box + (lane_box ^ (jp << 5)));
                        } else if (!RES_HOIST) {
#pragma unroll
                            for (int jp = 0; jp < 4; jp++)
                                ldmatrix_sync_aligned_m8n8_x4_b16(&rres[i][4 * jp],
                                                                  a_smem + rst * A_STAGE +
                                                                      (uint32_t)(row0 + 64 * i) * 128u +
                                                                      (lane_box ^ (jp << 5)));
                            if (i == WM - 1) { /* once the reads above have returned */
                                uint32_t dep = 0u;
#pragma unroll
                                for (int jp = 0; jp < 4; jp++) dep = sm90_zero_after(rres[i][4 * jp], dep, zero_rt);
                                sm90_release_stage(empty_bar, (int)rst, lane == 0 && dep == 0u);
                            }
                        }
#pragma unroll
                        for (int jp = 0; jp < 4; jp++) {
                            /* rres[i][4jp ..]: {(2jp, h0), (2jp, h1), (2jp+1, h0), (2jp+1, h1)} */
                            const uint32_t *const rr = &rres[i][4 * jp];
#pragma unroll
                            for (int q4 = 0; q4 < 4; q4++) {
                                const int jj = 2 * jp + (q4 >> 1), h = q4 & 1;
                                const float2 r2 = sm90_unpack2(DT, rr[q4]);
                                v[4 * jj + 2 * h] = fmaf(a.beta, r2.x, v[4 * jj + 2 * h]);
                                v[4 * jj + 2 * h + 1] = fmaf(a.beta, r2.y, v[4 * jj + 2 * h + 1]);
                            }
                        }
                    } else {
#pragma unroll
                        for (int jj = 0; jj < JJ; jj++) {
                            const float2 ra = sm90_res_pair(a, rowoff0, nc + 8 * jj, ok0);
                            const float2 rb = sm90_res_pair(a, rowoff1, nc + 8 * jj, ok1);
                            v[4 * jj] = fmaf(a.beta, ra.x, v[4 * jj]);
                            v[4 * jj + 1] = fmaf(a.beta, ra.y, v[4 * jj + 1]);
                            v[4 * jj + 2] = fmaf(a.beta, rb.x, v[4 * jj + 2]);
                            v[4 * jj + 3] = fmaf(a.beta, rb.y, v[4 * jj + 3]);
                        }
                    }
                }
                /* pass 2: activation (ReLU inline, on the packed pairs in pass 3 where y
                 * goes by TMA stores; ReLU6, SiLU, hardswish inline; the others out of line) */
                if (GENERAL && a.act != IGEMM_ACT_NONE) {
                    if (!ACT_ANY || a.act == IGEMM_ACT_RELU) {
                        if (!TMA_EPI) {
#pragma unroll
                            for (int e = 0; e < 4 * JJ; e++) v[e] = fmaxf(v[e], 0.0f);
                        }
                    } else {
                        igemm_act_dev_array<4 * JJ>(a.act, v, a.act_param); /* ReLU6 / SiLU / hardswish inline */
                    }
                }
            }
            /* pass 3: store */
            if (TMA_EPI) {
                const bool relu = GENERAL && !partial && a.act == IGEMM_ACT_RELU;
#pragma unroll
                for (int jp = 0; jp < 4; jp++)
                    stmatrix_sync_aligned_m8n8_x4_b16(box + (lane_box ^ (jp << 5)),
                                                      sm90_pack2_relu<DT>(v[8 * jp], v[8 * jp + 1], relu),
                                                      sm90_pack2_relu<DT>(v[8 * jp + 2], v[8 * jp + 3], relu),
                                                      sm90_pack2_relu<DT>(v[8 * jp + 4], v[8 * jp + 5], relu),
                                                      sm90_pack2_relu<DT>(v[8 * jp + 6], v[8 * jp + 7], relu));
                ptx_fence_proxy_async_shared_cta(); /* st.shared -> visible to the TMA (async proxy) */
                ptx_bar_sync(1 + cw, 128);
                if (tid == 0) {
                    ptx_cp_async_bulk_tensor_2d_global_shared_cta(tmap_y, box, n0 + ch * SM90_EPI_COLS, mrow);
                    ptx_cp_async_bulk_commit_group();
                    if (res_ring) { /* the previous chunk's store has read its slot: refill it */
                        ptx_cp_async_bulk_wait_group_read<1>();
                        if (prev_eslot >= 0) ptx_mbarrier_arrive(my_rempty + 8u * prev_eslot);
                    }
                }
                prev_eslot = eslot;
                if (++eslot == ES) {
                    eslot = 0;
                    ephase ^= 1u;
                }
            } else {
#pragma unroll
                for (int jj = 0; jj < JJ; jj++) {
                    sm90_store_pair(a, rowoff0, nc + 8 * jj, ok0, v[4 * jj], v[4 * jj + 1], partial, split);
                    sm90_store_pair(a, rowoff1, nc + 8 * jj, ok1, v[4 * jj + 2], v[4 * jj + 3], partial, split);
                }
            }
        }
    }
}

/* The pixels-as-N epilogue of one tile: this consumer's 64 channels cbase = n0 + 64 * rch .. x TP
 * pixels (m0 ..). acc[0][4J + 2h + e] is channel cbase + 16*warp + lane/4 + 8h, pixel m0 + 8J +
 * 2(lane%4) + e; stmatrix/ldmatrix .trans move 8x8 blocks between that layout and the [pixel][64
 * channels] 128B-swizzled boxes (staging box, residual stage; the TMA boxes of y and the residual
 * are {64, TP}). Lane l addresses row l%8 of matrix l/8 = (channel half h = (l/8) & 1, pixel block
 * 2jp + l/16). box_res (ping-pong, 64 channels per tile): the residual, if any, comes by TMA into
 * the staging box itself (one box per consumer, refilled once its store has read it), where the
 * epilogue reads it and writes the output over it; otherwise it is in the tile's operand-ring
 * stages (nres > rch: chunk rch's stage). as0/bi0, as1/bi1: the factors of this thread's two
 * channels, loaded before the mainloop. */
template <int DT, int TP, bool GENERAL, bool ACT_ANY, uint32_t A_STAGE, uint32_t EBOX>
static __device__ __forceinline__ void sm90_epilogue_pixn(const igemm_sm90_args_t &a, const CUtensorMap *tmap_y,
                                                          float (&acc)[1][TP / 2], const sm90_consumer_t &C,
                                                          sm90_staging_t &E, const sm90_smem_t &c, int S, int ES,
                                                          int m0, int n0, int rch, bool box_res, int nres, int rstage,
                                                          uint32_t rphase, float pas0, float pas1, float pbi0,
                                                          float pbi1)
{
    const int cw = C.cw, tid = C.tid, warp = C.warp, lane = C.lane;
    const uint32_t my_epi = C.my_epi, my_rfull = C.my_rfull, my_rempty = C.my_rempty;
    const uint32_t a_smem = c.a_smem, full_bar = c.full_bar, empty_bar = c.empty_bar;
    int &eslot = E.slot;
    uint32_t &ephase = E.phase;
    const int64_t cbase = (int64_t)n0 + 64 * rch;
    for (int r = 0; r < nres; r++) /* the tile's residual chunks (chunk cw is this consumer's) */
        ptx_mbarrier_wait_parity(full_bar + 8u * (uint32_t)((rstage + r) % S),
                                 rphase ^ (uint32_t)(((rstage + r) / S) & 1));
    if (cbase < a.gemm_n) {
        /* channels cbase + warp*16 + lane/4 (h = 0) and + 8 (h = 1): their factors were
         * loaded before the mainloop */
        const float as0 = pas0, as1 = pas1, bi0 = pbi0, bi1 = pbi1;
        if (box_res) { /* the residual landed in the box (after its last store had read it) */
            ptx_mbarrier_wait_parity(my_rfull + 8u * eslot, ephase);
        } else {
            if (tid == 0) { /* the store ES tiles ago has read this box */
                if (ES == 1) ptx_cp_async_bulk_wait_group_read<0>();
                else ptx_cp_async_bulk_wait_group_read<1>();
            }
            ptx_bar_sync(1 + cw, 128);
        }
        const uint32_t box = my_epi + (uint32_t)eslot * EBOX;
        /* the residual: in the staging box (res_ring), or in the operand-ring stage of
         * this consumer's chunk (valid when nres > rch) */
        const bool has_res = a.has_residual && (box_res || nres > rch);
        const uint32_t rbox = box_res ? box : a_smem + (uint32_t)((rstage + rch) % S) * A_STAGE;
        sm90_pixn_tile<DT, TP, GENERAL, ACT_ANY>(a, acc[0], box, rbox, has_res, warp, lane, as0, bi0, as1, bi1);
        ptx_fence_proxy_async_shared_cta(); /* st.shared -> visible to the TMA (async proxy) */
        ptx_bar_sync(1 + cw, 128);
        if (tid == 0) {
            ptx_cp_async_bulk_tensor_2d_global_shared_cta(tmap_y, box, (int32_t)cbase, m0);
            ptx_cp_async_bulk_commit_group();
            if (box_res) { /* once the store has read the box, the next residual may land in it */
                ptx_cp_async_bulk_wait_group_read<0>();
                ptx_mbarrier_arrive(my_rempty + 8u * eslot);
            }
        }
        if (++eslot == ES) {
            eslot = 0;
            ephase ^= 1u;
        }
    }
    for (int r = 0; r < nres; r++) /* residual read (or not this consumer's): release */
        sm90_release_stage(empty_bar, (rstage + r) % S, lane == 0);
}

#endif /* IGEMM_SM90_CORE_EPILOGUE_CUH */
