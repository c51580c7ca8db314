/*
 * core/args.cuh — the Hopper core's kernel parameters: igemm_sm90_args_t (everything a conv
 * kernel needs besides its tensor maps, passed by value as a __grid_constant__), the register
 * split of the warp-specialised kernels, and the includes every core header and kernel uses.
 * Filled on the host by family_conv.cu (and the stem family, for the epilogue's fields).
 */
#ifndef IGEMM_SM90_CORE_ARGS_CUH
#define IGEMM_SM90_CORE_ARGS_CUH

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../../common/epilogue.cuh"
#include "../../common/fastdiv.h"
#include "../../ptx/cluster.cuh"
#include "../../ptx/cp_async.cuh"
#include "../../ptx/elect.cuh"
#include "../../ptx/fence.cuh"
#include "../../ptx/griddepcontrol.cuh"
#include "../../ptx/ld_shared.cuh"
#include "../../ptx/ldmatrix.cuh"
#include "../../ptx/max.cuh"
#include "../../ptx/mbarrier.cuh"
#include "../../ptx/prefetch.cuh"
#include "../../ptx/setmaxnreg.cuh"
#include "../../ptx/st_async.cuh"
#include "../../ptx/stmatrix.cuh"
#include "../../ptx/tma.cuh"
#include "../../ptx/wgmma.cuh"
#include "../../tensor_map.h"
#include "../sm90.h"

#define SM90_PRODUCER_REGS 40
#define SM90_CONSUMER_REGS(NC) ((NC) == 2 ? 232 : 152) /* 128*40 + 128*NC*regs <= 64K */
#define SM90_CONSUMER_ARRIVALS(NC) (4 * (NC)) /* empty barrier: lane 0 of each consumer warp */

/* Everything the kernels need besides the tensor maps (passed by value, __grid_constant__).
 * All pixel and tile indices are 32-bit: supports() requires M = n*p*q < 2^31 - 512. */
typedef struct igemm_sm90_args {
    int64_t gemm_m; /* n*p*q */
    int64_t gemm_n; /* k, output channels */
    int32_t pq;     /* p*q */
    int32_t q;
    int32_t stride_h, stride_w, pad_top, pad_left, dil_h, dil_w;
    int32_t filter_s; /* S */
    int32_t c_blocks; /* ceil(c / 64) */
    int32_t k_iters;  /* R*S*c_blocks: k-blocks of the whole reduction */
    int32_t tiles_m;   /* M-tiles: ceil(M / bm) */
    int32_t tiles_n, num_tiles, splits, num_units, group_m, stages; /* units: of a cluster */
    int32_t k_q, k_r;    /* k_iters / splits, k_iters % splits */
    int32_t full_groups; /* tiles_m / group_m: groups of group_m M-tiles; the last may be smaller */
    igemm_fastdiv_t fd_tiles, fd_group, fd_gm, fd_gm_tail, fd_pq, fd_q; /* / num_tiles, group_m*tiles_n,
                                                  group_m, tiles_m - full_groups*group_m, pq, q */
    float alpha, beta, act_param;
    int32_t act, has_scale, has_bias, has_residual, out_dtype;
    int32_t vec4; /* gemm_n % 4 == 0: 4-element row chunks are 4-element aligned */
    int32_t vec2; /* gemm_n % 2 == 0: column pairs are 2-element aligned */
    int32_t a_tiled; /* 1x1, stride 1, no padding: x is the A matrix [M, C]; tmap_x is a tiled 2-D map */
    int32_t bm;        /* rows per tile: 64 * WM * NC */
    int32_t epi_slots; /* epilogue ring: 64 x 64 boxes per consumer (TMA epilogue: 2, or with a
                          residual the tile's boxes + 1), each staging its chunk's residual and output */
    int32_t res_ring;  /* TMA-loaded residual (TMA epilogue with a residual), by mode:
                          1 (epilogue ring): the residual producer loads each chunk's residual
                            into the consumer's epilogue-ring slot, which then stages its output;
                          2 (operand ring): the A/B producer loads each chunk's residual
                            (BM x 64) into the A part of the next operand-ring stage after the
                            tile's k-blocks; the consumers read it there and release the stage;
                          0: none (or global loads on the direct-store path) */
    int32_t sb_vec2;   /* gemm_n even and scale/bias (where given) 8-byte aligned: float2 loads */
    const float *scale;
    const float *bias;
    const void *residual;
    void *y;
    float *workspace; /* split-K partials [splits][M][N] fp32; NULL when splits == 1 */
    /* filter-resident instances (BRES; no split, no cluster): the B part of the ring is k_iters
     * slots, one per k-block of the tile, loaded once: CTA c keeps N-tile c % tiles_n and takes
     * the M-tiles c / tiles_n + lap * (CTAs of that N-tile), so the N-tiles' CTAs run the same
     * M-tiles in step (the A tile shared in L2 at once, as in the rasterised order). Last in the
     * struct: the other instances' parameter offsets stay as they were. */
    int32_t rq, rr; /* grid / tiles_n, grid % tiles_n (N-tile n has rq + (n < rr) CTAs) */
    igemm_fastdiv_t fd_grid, fd_tn; /* / grid, / tiles_n */
    /* bytes of an A box where the A map's box is cut to M's rows (one M-tile of M < bm rows:
     * the TMA's zero fill of rows past M is slow, docs/decisions.md "tma-oob-rows"); 0: the stage's */
    int32_t a_tx;
    /* grouped convs (the GRP instances; sm90.h sm90_group_tile): the tile at column n0 reads the
     * input channels from (n0 / g_kg) * g_cg (fd_kg: / g_kg); g_boxes filter boxes of g_kg rows
     * per stage, box j at channel -j * g_cg (1: one box of BN rows, as without groups) */
    int32_t g_cg, g_kg, g_boxes;
    igemm_fastdiv_t fd_kg;
} igemm_sm90_args_t;

/* Host side: a's epilogue fields (alpha, beta, activation, scale/bias/residual flags and
 * pointers, y, its dtype, and M and N) from the problem; the other fields are the caller's. */
static inline void igemm_sm90_args_epilogue(const igemm_conv_params_t *p, igemm_sm90_args_t *a)
{
    a->gemm_m = p->gemm_m;
    a->gemm_n = p->gemm_n;
    a->alpha = p->alpha;
    a->beta = p->beta;
    a->act_param = p->act_param;
    a->act = p->act;
    a->has_scale = p->has_scale;
    a->has_bias = p->has_bias;
    a->has_residual = p->has_residual;
    a->out_dtype = (int32_t)p->out_dtype;
    a->scale = p->scale;
    a->bias = p->bias;
    a->residual = p->residual;
    a->y = p->y;
}

/* Every conv kernel instance has this signature (the generated instance tables hold them). */
typedef void (*sm90_kernel_fn)(CUtensorMap, CUtensorMap, CUtensorMap, CUtensorMap, igemm_sm90_args_t);

#endif /* IGEMM_SM90_CORE_ARGS_CUH */
