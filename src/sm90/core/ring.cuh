/*
 * core/ring.cuh — the stage ring of the Hopper conv kernels and the shared memory it lives in.
 *
 * SHARED MEMORY (dynamic; base rounded up to 1024 B, the 128B-swizzle repeat), carved by
 * sm90_carve in this order:
 *   A ring   S stages of A_STAGE bytes (the kernel's operand tile: BM pixel rows x 128 B,
 *            128B-swizzled, K-major; or one halo input row)
 *   B ring   S stages of BN x 128 B (filter rows, 128B-swizzled, K-major), or with the filter
 *            resident (BRES) k_iters slots, one per k-block of the tile
 *   epilogue ring  NC consumers x ES staging boxes of EBOX bytes
 *   mbarriers full[S] (count 1 + the TMA's tx bytes), empty[S] (count: lane 0 of every
 *            consumer warp of a tile), the consumers' staging-box rfull/rempty
 *            [NC][SM90_MAX_EPI_SLOTS], and one order barrier per consumer (ping-pong / in-turn
 *            consumers; the split-in-cluster receive barriers take their place).
 * The heuristics (heuristics.c, smem_bytes) count the same bytes.
 *
 * A ring position is (stage, phase): stage in 0..S-1, phase the parity of the laps the ring has
 * made. The producer waits on empty[stage] with phase ^ 1 (the consumers freed the lap before)
 * and fills; the consumers wait on full[stage] with phase and release empty[stage].
 */
#ifndef IGEMM_SM90_CORE_RING_CUH
#define IGEMM_SM90_CORE_RING_CUH

#include "args.cuh"

/* The carve of one CTA's shared memory (shared-window addresses). */
typedef struct sm90_smem {
    uint32_t a_smem, b_smem, epi_smem;
    uint32_t full_bar, empty_bar;  /* [S] */
    uint32_t rfull_bar, rempty_bar; /* [consumer][SM90_MAX_EPI_SLOTS] */
    uint32_t order_bar;             /* [consumer] */
} sm90_smem_t;

/* The carve for S stages of A_STAGE / B_STAGE bytes (BRES: a.k_iters resident filter slots) and
 * NC x ES staging boxes of EBOX bytes, from the dynamic shared memory at `raw`. */
template <uint32_t A_STAGE, uint32_t B_STAGE, uint32_t EBOX, int NC, bool BRES>
static __device__ __forceinline__ sm90_smem_t sm90_carve(const igemm_sm90_args_t &a, uint32_t raw, int S, int ES)
{
    sm90_smem_t c;
    const uint32_t base = (raw + 1023u) & ~1023u;
    c.a_smem = base;
    c.b_smem = base + (uint32_t)S * A_STAGE;
    c.epi_smem = c.b_smem + (uint32_t)(BRES ? a.k_iters : S) * B_STAGE; /* multiple of 1024 */
    c.full_bar = c.epi_smem + (uint32_t)NC * (uint32_t)ES * EBOX;       /* full[i] = + 8 i */
    c.empty_bar = c.full_bar + 8u * (uint32_t)S;
    c.rfull_bar = c.empty_bar + 8u * (uint32_t)S;
    c.rempty_bar = c.rfull_bar + 8u * NC * SM90_MAX_EPI_SLOTS;
    c.order_bar = c.rempty_bar + 8u * NC * SM90_MAX_EPI_SLOTS;
    return c;
}

/* Thread 0 at set-up: the operand ring's barriers (full: one arrival + tx bytes; empty: `arrivals`
 * consumer warps) and the NC consumers' ES staging-box barriers. */
static __device__ __forceinline__ void sm90_ring_init(const sm90_smem_t &c, int S, int ES, int NC, uint32_t arrivals)
{
    for (int i = 0; i < S; i++) {
        ptx_mbarrier_init(c.full_bar + 8u * i, 1u);
        /* a stage is free once every consumer warp of the tile has released it */
        ptx_mbarrier_init(c.empty_bar + 8u * i, arrivals);
    }
    for (int k = 0; k < NC; k++)
        for (int i = 0; i < ES; i++) {
            ptx_mbarrier_init(c.rfull_bar + 8u * (uint32_t)(k * SM90_MAX_EPI_SLOTS + i), 1);
            ptx_mbarrier_init(c.rempty_bar + 8u * (uint32_t)(k * SM90_MAX_EPI_SLOTS + i), 1);
        }
}

/* Thread 0 at set-up, kernels whose consumers take tiles in turn: consumer k may start a mainloop
 * once the one before it has passed its previous one (one arrival each). */
static __device__ __forceinline__ void sm90_order_init(const sm90_smem_t &c, int NC)
{
    for (int k = 0; k < NC; k++) ptx_mbarrier_init(c.order_bar + 8u * (uint32_t)k, 1);
}

/* A ring position: the stage and the parity of its lap. */
typedef struct sm90_ring {
    int stage;
    uint32_t phase;
} sm90_ring_t;

/* The next position. */
static __device__ __forceinline__ void sm90_ring_next(sm90_ring_t &r, int S)
{
    if (++r.stage == S) {
        r.stage = 0;
        r.phase ^= 1u;
    }
}

/* n positions on (n >= 0). */
static __device__ __forceinline__ void sm90_ring_skip(sm90_ring_t &r, int n, int S)
{
    const int adv = r.stage + n;
    r.stage = adv % S;
    r.phase ^= (uint32_t)((adv / S) & 1);
}

/* Producer: waits until the consumers have freed the stage (its previous lap). */
static __device__ __forceinline__ void sm90_wait_empty(const sm90_smem_t &c, const sm90_ring_t &r)
{
    ptx_mbarrier_wait_parity(c.empty_bar + 8u * r.stage, r.phase ^ 1u);
}

/* Consumer: waits until the stage's TMA bytes have landed. */
static __device__ __forceinline__ void sm90_wait_full(const sm90_smem_t &c, const sm90_ring_t &r)
{
    ptx_mbarrier_wait_parity(c.full_bar + 8u * r.stage, r.phase);
}

/* Consumer warp's release of stage `stage` (by its lane 0: leader): an arrival on the stage's
 * empty barrier. Predicated, not branched: a branch here put a BSSY/BSYNC reconvergence pair in
 * the mainloop and cost the 128x64 tiles 6-9% (docs/decisions.md "release-predicated"). */
static __device__ __forceinline__ void sm90_release_stage(uint32_t empty_bar, int stage, bool leader)
{
    ptx_mbarrier_arrive_pred(empty_bar + 8u * (uint32_t)stage, leader);
}

/* 0 (zero must be a run-time 0), computed from v: a release predicated on it is issued only once
 * the ldmatrix that wrote v has returned its data. A ring stage read by ldmatrix (the operand-ring
 * residual) is released right after the reads; predicated on the arrival alone, the release could
 * overtake reads still in flight, and the producer's next TMA into the stage then raced them (17 of
 * 60 stress checks wrong, H200 S8-3). */
static __device__ __forceinline__ uint32_t sm90_zero_after(uint32_t v, uint32_t acc, uint32_t zero)
{
    uint32_t r;
    asm volatile("{\n\t.reg .b32 t;\n\txor.b32 t, %1, %2;\n\tand.b32 %0, t, %3;\n\t}"
                 : "=r"(r)
                 : "r"(v), "r"(acc), "r"(zero));
    return r;
}

/* Consumers taking the CTA's tiles in turn (ping-pong with NC = 2, in turn with 3): tile j is
 * consumer j % NC's; the others skip its stages (the ring positions stay in step). Their mainloops
 * run in turn: consumer cw waits on its order barrier until the consumer before it has passed
 * every full barrier of the preceding tile, so that no wait can alias a stage's earlier phase (one
 * parity bit tells only adjacent phases apart), and passes the turn on after its own mainloop.
 * (NC = 2 keeps its two-way forms: the general ones changed the SASS of every two-consumer
 * instance, which were measured as they are.) */
template <int NC>
static __device__ __forceinline__ bool sm90_turn_mine(int j, int cw)
{
    return (NC == 2 ? (j & 1) : j % NC) == cw;
}

/* Before consumer cw's mainloop of its own-th tile (own = its tiles so far). */
template <int NC>
static __device__ __forceinline__ void sm90_turn_wait(const sm90_smem_t &c, int cw, int own)
{
    if ((NC == 2 ? cw == 1 : cw > 0) || own > 0)
        ptx_mbarrier_wait_parity(c.order_bar + 8u * (uint32_t)cw,
                                 (uint32_t)(((NC == 2 ? cw == 1 : cw > 0) ? own : own - 1) & 1));
}

/* After consumer cw has passed every full barrier of its tile: the next consumer's turn. */
template <int NC>
static __device__ __forceinline__ void sm90_turn_pass(const sm90_smem_t &c, int cw, int tid)
{
    if (tid == 0) ptx_mbarrier_arrive(c.order_bar + 8u * (uint32_t)(NC == 2 ? cw ^ 1 : cw + 1 == NC ? 0 : cw + 1));
}

#endif /* IGEMM_SM90_CORE_RING_CUH */
