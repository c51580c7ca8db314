/*
 * heuristics_smem.c — the shared-memory budget of an sm90 conv plan, used by the planner
 * (heuristics.c) and its rules (heuristics_rules.c): the bytes of a (tile, consumers, stages,
 * staging boxes) plan, the deepest ring that fits the device's opt-in maximum, and the staging
 * boxes per consumer. Plain C, no CUDA (tests/test_heuristics.c).
 */
#include "heuristics_smem.h"
#include "sm90.h"

/* Dynamic shared memory of a (BM, BN, consumers, stages, epilogue slots) plan: A ring, B ring
 * (or with bres > 0 that many resident filter slots), nc x epi_slots epilogue boxes (64 x 64
 * 16-bit, or with pixels as N (pixn) BM pixel rows x 64 channels), full/empty barriers per
 * stage, nc x 6 x 2 residual barriers and nc ping-pong order barriers. pixn = 2: halo rows, an A
 * stage of SM90_HALO_STAGE_BYTES(BM) (one input row of the tile with its halo); 3: two-row halo
 * tiles, SM90_HALO_STAGE_BYTES(BM / 2) (one input row of BM / 2 + 2 pixels). */
size_t sm90_h_smem_bytes(int bm, int bn, int nc, int stages, int epi_slots, int pixn, int bres)
{
    const size_t ebox = pixn ? (size_t)bm * 128 : (size_t)SM90_EPI_BUF_BYTES;
    const size_t a_stage = pixn == 2   ? (size_t)SM90_HALO_STAGE_BYTES(bm)
                           : pixn == 3 ? (size_t)SM90_HALO_STAGE_BYTES(bm / 2) /* two-row halo tiles */
                                       : (size_t)bm * SM90_BK * 2;
    return (size_t)SM90_ALIGN_SLACK + (size_t)stages * a_stage + (size_t)(bres > 0 ? bres : stages) * (size_t)bn * SM90_BK * 2 +
           (size_t)nc * epi_slots * ebox + (size_t)stages * 16 + (size_t)16 * nc * SM90_MAX_EPI_SLOTS +
           (size_t)8 * nc; /* ping-pong order barriers */
}

/* The most stages (2..SM90_MAX_STAGES, or 1 if even 2 do not fit) of a plan within smem_optin. */
int sm90_h_stages_fit(int bm, int bn, int nc, int epi_slots, int pixn, int bres, int smem_optin)
{
    int s = SM90_MAX_STAGES;
    while (s >= 2 && sm90_h_smem_bytes(bm, bn, nc, s, epi_slots, pixn, bres) > (size_t)smem_optin) s--;
    return s;
}

/* The ring of the narrow row tiles (BM x 32, BM / 64 consumers, no staging boxes): as many stages
 * as fit, up to SM90_MAX_NARROW_STAGES. Their stages are small (12 or 20 KB) and a whole-K tile of
 * a few-row GEMM streams at the bytes it keeps in flight (docs/decisions.md "narrow-rows"). */
int sm90_h_narrow_stages(int bm, int smem_optin)
{
    int s = SM90_MAX_NARROW_STAGES;
    while (s >= 2 && sm90_h_smem_bytes(bm, 32, bm / 64, s, 0, 0, 0) > (size_t)smem_optin) s--;
    return s;
}

int sm90_h_stages_for(int bm, int bn, int nc, int epi_slots, int smem_optin)
{
    return sm90_h_stages_fit(bm, bn, nc, epi_slots, 0, 0, smem_optin);
}

/* Epilogue ring slots per consumer: 2 (store double buffer), or with a TMA-loaded residual the
 * tile's boxes + 1, so a whole tile's residual loads during the tile's mainloop; + 2 on short
 * mainloops (k_iters < 8) where that still leaves 4 stages (a mainloop too short to hide one
 * tile's residual latency). Where + 1 leaves fewer than 4 stages (the 48 KB stages of 256x128
 * and 128x256 tiles) and the mainloop is long (k_iters >= 16), 2 slots instead: the 4th stage
 * is worth more than the residual latency the smaller ring exposes in the epilogue (two box
 * loads per tile). A plan of one unit per CTA (one_wave) has no next tile to load ahead: at
 * most the tile's boxes, the rest of the memory goes to stages. docs/decisions.md
 * "residual-slots" (S4-2, S5-2). */
int sm90_h_epi_slots(int bm, int wm, int bn, int nc, int residual_ring, int k_iters, int one_wave, int forced,
                     int smem_optin)
{
    if (!residual_ring) return 2;
    if (forced >= 2 && forced <= SM90_MAX_EPI_SLOTS) return forced; /* hints.staging_boxes */
    const int boxes = wm * (bn / SM90_EPI_COLS);
    const int cap = one_wave ? (boxes < 2 ? 2 : boxes) : SM90_MAX_EPI_SLOTS;
    int es = boxes + 1;
    if (k_iters < 8 && sm90_h_stages_for(bm, bn, nc, boxes + 2, smem_optin) >= 4) es = boxes + 2;
    else if (sm90_h_stages_for(bm, bn, nc, boxes + 1, smem_optin) < 4 && k_iters >= 16 &&
             sm90_h_stages_for(bm, bn, nc, 2, smem_optin) >= 4)
        es = 2;
    return es < cap ? es : cap;
}
