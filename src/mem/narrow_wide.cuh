/*
 * narrow_wide.cuh — the narrow 1x1 family's kernel for wide outputs (included by narrow_1x1.cu,
 * which defines nw_args_t, nw_load_rows and the filter's shared-memory pitch): 1x1 convs and GEMMs
 * of few input channels (c <= 32) and many output channels (24 < k <= 96 as the family takes
 * them), bound by writing y (MobileNet / EfficientNet's expansion 16 -> 96).
 * A tensor-core tile runs them as one short k-block per tile and then a whole tile's epilogue, one
 * CTA per SM (decisions.md "plain-staging-boxes", "cooperative-2cta"); the narrow kernel's 8-channel
 * output tiles held the whole k in registers (one CTA per SM) and stored 4 bytes per lane
 * ("narrow-prefetch"). Here the output channels go in chunks of 32, and each chunk is staged
 * through a per-warp shared buffer so that a lane stores 16 contiguous bytes of a row (a warp writes
 * 8 rows x 64 contiguous bytes per instruction) (decisions.md "narrow-wide").
 *
 * Algorithm (narrow_wide_kernel<T, CH, MT, RES, CALL, V16>): the narrow kernel's set-up and stream
 * (filter in shared memory, rows padded to 32-channel chunks and to a multiple of 32 output rows;
 * each warp takes 16 * MT-pixel blocks, the next block's x rows loaded into registers before this
 * block's work), plus the per-channel coefficients (alpha * scale, bias) in shared memory. Per
 * block, for each 32-channel output chunk: 4 x 8-channel tiles x CH input chunks x 2 mma.sync
 * m16n8k16 per 16-row block, then the epilogue in the accumulator layout (lane (g, t): rows g,
 * g + 8, channels 8j + 2t, +1): coefficients, the residual (4-byte words, all of the chunk's
 * issued before their use), the activation; V16 (16-bit y, k % 8 == 0): the packed pairs written
 * to the warp's 16-row x 64-byte staging (16-byte chunks XOR-swizzled by row pair: conflict-free
 * 4-byte writes and 16-byte reads), read back as each lane's 16 bytes of a row and stored; else
 * (f32 y, odd widths) element pairs stored from the accumulator layout.
 * Layouts: as narrow_1x1.cu (x NHWC, w K x C, y and the residual M x K). PTX: mma.sync (sm_80+),
 * griddepcontrol on sm_90.
 */
#ifndef IGEMM_MEM_NARROW_WIDE_CUH
#define IGEMM_MEM_NARROW_WIDE_CUH

#define NWW_CHUNK 32 /* output channels per accumulator chunk (4 tiles of 8) */

/* shared memory beyond the filter: per-channel coefficients (alpha * scale, bias: 8 bytes per
 * channel of k rounded up to 32) and each warp's staging (16 * MT rows x 64 bytes) */
static inline __host__ __device__ size_t nww_coef_bytes(int64_t k32) { return (size_t)k32 * 8; }
static inline __host__ __device__ size_t nww_stage_bytes(int mt) { return (size_t)NW_WARPS * 16 * mt * 64; }

/* byte offset of 16-byte chunk q (0..3) of staging row r: chunks XOR-swizzled by (r / 2) % 4 */
static __device__ __forceinline__ uint32_t nww_stage_off(int r, int q) { return (uint32_t)(r * 64 + 16 * (q ^ ((r >> 1) & 3))); }

static __device__ __forceinline__ uint32_t nww_pack(float a, float b, int dtype16_is_f16)
{
    if (dtype16_is_f16) {
        const __half2 h = __floats2half2_rn(a, b);
        return *(const uint32_t *)&h;
    }
    const __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
    return *(const uint32_t *)&h;
}

static __device__ __forceinline__ float2 nww_unpack(uint32_t w, int dtype16_is_f16)
{
    return dtype16_is_f16 ? __half22float2(*(const __half2 *)&w) : __bfloat1622float2(*(const __nv_bfloat162 *)&w);
}

/* One chunk's epilogue for the warp's MT blocks: acc[mt][j] holds rows g, g + 8 of block mt,
 * channels n = 32 * cb + 8j + 2t, +1. coef: the coefficients' shared array (float4 per channel
 * pair: s0, b0, s1, b1 at pair n / 2); stage: this warp's staging. */
template <int MT, bool RES, bool CALL, bool V16>
static __device__ __forceinline__ void nww_epilogue(const nw_args_t &a, float (&acc)[MT][4][4], int64_t m0, int cb,
                                                    int g, int t, const float4 *coef, uint8_t *stage)
{
    const int nb = NWW_CHUNK * cb + 2 * t; /* this lane's channel in tile 0 */
    const bool f16 = a.out_dtype == IGEMM_DTYPE_F16;
    /* ReLU and ReLU6 inline (MobileNet's expansions end in ReLU6), the others out of line (CALL) */
    const bool clamp = a.act == IGEMM_ACT_RELU || a.act == IGEMM_ACT_RELU6;
    const float hi = a.act == IGEMM_ACT_RELU6 ? 6.0f : INFINITY;
    /* the residual's words (V16: k even, so each pair is one aligned word), all issued first */
    uint32_t rw[MT][2][4];
    if (RES && V16) {
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int hh = 0; hh < 2; hh++) {
                const int64_t m = m0 + 16 * mt + g + 8 * hh;
                const uint16_t *rrow = (const uint16_t *)a.residual + m * a.n + nb;
#pragma unroll
                for (int j = 0; j < 4; j++)
                    rw[mt][hh][j] = m < a.m && nb + 8 * j < a.n ? __ldg((const unsigned int *)(rrow + 8 * j)) : 0u;
            }
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const float4 cf = coef[(nb + 8 * j) >> 1];
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int hh = 0; hh < 2; hh++) {
                float v0 = acc[mt][j][2 * hh] * cf.x + cf.y, v1 = acc[mt][j][2 * hh + 1] * cf.z + cf.w;
                if (RES && V16) {
                    const float2 r = nww_unpack(rw[mt][hh][j], f16);
                    v0 += a.beta * r.x, v1 += a.beta * r.y;
                } else if (RES) {
                    const int64_t m = m0 + 16 * mt + g + 8 * hh, n = nb + 8 * j;
                    if (m < a.m && n < a.n) v0 += a.beta * igemm_load_out(a.residual, m * a.n + n, a.out_dtype);
                    if (m < a.m && n + 1 < a.n) v1 += a.beta * igemm_load_out(a.residual, m * a.n + n + 1, a.out_dtype);
                }
                if (CALL) {
                    v0 = igemm_act_dev_noinline(a.act, v0, a.act_param);
                    v1 = igemm_act_dev_noinline(a.act, v1, a.act_param);
                } else if (clamp) {
                    v0 = fminf(fmaxf(v0, 0.0f), hi), v1 = fminf(fmaxf(v1, 0.0f), hi);
                }
                if (V16) {
                    const int r = 16 * mt + g + 8 * hh;
                    *(uint32_t *)(stage + nww_stage_off(r, j) + 4 * t) = nww_pack(v0, v1, f16);
                } else {
                    const int64_t m = m0 + 16 * mt + g + 8 * hh, n = nb + 8 * j;
                    if (m < a.m && n < a.n) nw_store2(a.y, m * a.n + n, a.out_dtype, v0, v1, n + 1 < a.n);
                }
            }
    }
    if (V16) {
        __syncwarp();
        /* lane (g, t) stores 16 bytes: channels 8t .. 8t+7 of the chunk, rows g and g + 8 */
        const int n0 = NWW_CHUNK * cb + 8 * t;
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int hh = 0; hh < 2; hh++) {
                const int r = 16 * mt + g + 8 * hh;
                const uint4 v = *(const uint4 *)(stage + nww_stage_off(r, t));
                const int64_t m = m0 + r;
                if (m < a.m && n0 < a.n) *(uint4 *)((uint16_t *)a.y + m * a.n + n0) = v;
            }
        __syncwarp(); /* the staging is written again by the next chunk */
    }
}

/* CH: 32-channel input chunks at most (c <= 32 * CH); MT: 16-pixel blocks per warp iteration; CPS:
 * CTAs per SM the registers are sized for; RES: the residual; CALL: an activation besides none,
 * ReLU and ReLU6 (out of line); V16: 16-bit y of k % 8 == 0 (staged 16-byte stores). Shared memory: the
 * filter (a.n rounded up to 32 rows of a.pitch bytes), the coefficients, the warps' staging. */
template <typename T, int CH, int MT, int CPS, bool RES, bool CALL, bool V16>
__global__ void __launch_bounds__(NW_THREADS, CPS) narrow_wide_kernel(nw_args_t a)
{
    extern __shared__ __align__(16) uint8_t nww_smem[];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_wait();
#endif
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    const int nch = a.c32 >> 5, chunks = (a.n + NWW_CHUNK - 1) / NWW_CHUNK, k32 = chunks * NWW_CHUNK;
    float4 *coef = (float4 *)(nww_smem + (size_t)k32 * a.pitch);
    uint8_t *stage = nww_smem + (size_t)k32 * a.pitch + nww_coef_bytes(k32) + (size_t)warp * 16 * MT * 64;
    const int64_t step = (int64_t)gridDim.x * NW_WARPS;
    int64_t blk = (int64_t)blockIdx.x * NW_WARPS + warp;
    uint4 xr[MT][2][CH];
    nw_load_rows<CH, MT>(a, xr, blk * (16 * MT), g, t, nch);
    {
        const int vrow = a.c32 >> 3;
        const int total = k32 * vrow;
        for (int i = threadIdx.x; i < total; i += NW_THREADS) {
            const int row = i / vrow, v = i - row * vrow;
            uint4 val = make_uint4(0u, 0u, 0u, 0u);
            if (row < a.n && 8 * v < a.c) val = __ldg((const uint4 *)a.w + ((int64_t)row * a.c >> 3) + v);
            *(uint4 *)(nww_smem + (size_t)row * a.pitch + 16 * v) = val;
        }
        /* coefficient pairs: (alpha * scale, bias) of channels 2i, 2i + 1; zeros past k */
        for (int i = threadIdx.x; i < k32 / 2; i += NW_THREADS) {
            float s[2], b[2];
#pragma unroll
            for (int e = 0; e < 2; e++) {
                const int n = 2 * i + e;
                const bool in = n < a.n;
                s[e] = in ? a.alpha * (a.has_scale ? __ldg(a.scale + n) : 1.0f) : 0.0f;
                b[e] = in && a.has_bias ? __ldg(a.bias + n) : 0.0f;
            }
            coef[i] = make_float4(s[0], b[0], s[1], b[1]);
        }
    }
    __syncthreads();
    for (; blk < a.blocks; blk += step) {
        const int64_t m0 = blk * (16 * MT);
        uint4 xn[MT][2][CH];
        nw_load_rows<CH, MT>(a, xn, (blk + step) * (16 * MT), g, t, nch);
#pragma unroll 1
        for (int cb = 0; cb < chunks; cb++) {
            float acc[MT][4][4];
#pragma unroll
            for (int mt = 0; mt < MT; mt++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[mt][j][0] = acc[mt][j][1] = acc[mt][j][2] = acc[mt][j][3] = 0.0f;
#pragma unroll
            for (int ch = 0; ch < CH; ch++) {
                if (ch >= nch) break;
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    const uint4 wv = *(const uint4 *)(nww_smem + (size_t)(NWW_CHUNK * cb + 8 * j + g) * a.pitch +
                                                      64 * ch + 16 * t);
                    const uint32_t b0[2] = {wv.x, wv.y}, b1[2] = {wv.z, wv.w};
#pragma unroll
                    for (int mt = 0; mt < MT; mt++) {
                        const uint4 r0 = xr[mt][0][ch], r1 = xr[mt][1][ch];
                        const uint32_t a0[4] = {r0.x, r1.x, r0.y, r1.y};
                        const uint32_t a1[4] = {r0.z, r1.z, r0.w, r1.w};
                        mma_sync_m16n8k16_row_col_f32<T>(acc[mt][j], a0, b0);
                        mma_sync_m16n8k16_row_col_f32<T>(acc[mt][j], a1, b1);
                    }
                }
            }
            nww_epilogue<MT, RES, CALL, V16>(a, acc, m0, cb, g, t, coef, stage);
        }
#pragma unroll
        for (int mt = 0; mt < MT; mt++)
#pragma unroll
            for (int hh = 0; hh < 2; hh++)
#pragma unroll
                for (int ch = 0; ch < CH; ch++) xr[mt][hh][ch] = xn[mt][hh][ch];
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    ptx_griddepcontrol_launch_dependents();
#endif
}

#endif /* IGEMM_MEM_NARROW_WIDE_CUH */
