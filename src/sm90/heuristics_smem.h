/*
 * heuristics_smem.h — the shared-memory budget of an sm90 conv plan (heuristics_smem.c), for the
 * planner (heuristics.c) and its rules (heuristics_rules.c). Plain C, host only, private to src/sm90.
 */
#ifndef IGEMM_SM90_HEURISTICS_SMEM_H
#define IGEMM_SM90_HEURISTICS_SMEM_H

#include <stddef.h>

/* Shared memory of a plan and the ring depth / staging boxes that fit (each documented at its
 * definition in heuristics_smem.c). */
size_t sm90_h_smem_bytes(int bm, int bn, int nc, int stages, int epi_slots, int pixn, int bres);
int sm90_h_stages_fit(int bm, int bn, int nc, int epi_slots, int pixn, int bres, int smem_optin);
int sm90_h_stages_for(int bm, int bn, int nc, int epi_slots, int smem_optin);
int sm90_h_narrow_stages(int bm, int smem_optin);
int sm90_h_epi_slots(int bm, int wm, int bn, int nc, int residual_ring, int k_iters, int one_wave, int forced,
                     int smem_optin);

#endif /* IGEMM_SM90_HEURISTICS_SMEM_H */
