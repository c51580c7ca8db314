/*
 * internal.h — the contract between the planner (src/plan.c) and the kernel families. Included
 * by C11 host code and by CUDA C kernel files; needs no CUDA header.
 *
 * A kernel family (src/sm80, src/sm90, src/gpu_ref) exports one `const igemm_family_t` (extern
 * "C"). The planner asks each family in priority order whether it takes the problem
 * (supports), lets it choose its configuration (configure) and at run time calls run() with
 * the device pointers and the stream. A family's configuration is its own: it keeps a struct
 * of its own in igemm_family_config_t.priv (see igemm_family_priv). Families never call each
 * other: one that rewrites a problem (the fold family) says so through rewrite(), the planner
 * plans the rewritten problem and hands the family a callback that runs it (igemm_inner_t).
 */
#ifndef IGEMM_INTERNAL_H
#define IGEMM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../include/igemm.h"
#include "error.h"
#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device a plan was made for (src/device.c). */
typedef struct igemm_device_info {
    int ordinal;
    int cc_major, cc_minor;   /* compute capability */
    int sm_count;
    int smem_optin_per_block; /* bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin */
    int l2_bytes;
    int driver_version;       /* cudaDriverGetVersion (12030 = CUDA 12.3); 0 if unknown */
    char name[128];
} igemm_device_info_t;

#define IGEMM_FAMILY_PRIV_BYTES 512

/* A family's configuration, chosen by configure() and kept in the plan. */
typedef struct igemm_family_config {
    char desc[512];         /* human-readable: "tile 128x128x64, 4 stages, ..." */
    size_t workspace_bytes; /* device workspace the plan allocates for run() */
    union {                 /* the family's own struct (igemm_family_priv) */
        unsigned char bytes[IGEMM_FAMILY_PRIV_BYTES];
        long long align_ll;
        double align_d;
        void *align_p;
    } priv;
} igemm_family_config_t;

/* The family's own view of cfg->priv (a struct of at most IGEMM_FAMILY_PRIV_BYTES bytes). */
#define igemm_family_priv(cfg, type) ((type *)(void *)(cfg)->priv.bytes)

/* Handed to a rewriting family's run(): runs the planner's plan of the rewritten problem on
 * the operands the family prepared (x, w: the rewritten problem's; the epilogue operands and y
 * are the original call's). */
typedef struct igemm_inner {
    igemm_status_t (*run)(const struct igemm_inner *self, const void *x, const void *w, void *stream);
    void *ctx; /* the planner's */
} igemm_inner_t;

/* A problem a family's first-use self-check runs (src/selfcheck.h): geometry, epilogue and the
 * hints that select the variant it covers. */
typedef struct igemm_selfcheck_case {
    igemm_conv2d_desc_t desc;
    igemm_epilogue_t epi;
    igemm_plan_hints_t hints;
    const char *name; /* static: "3x3 stride 2, tile 128x256, f32 out" */
} igemm_selfcheck_case_t;

typedef struct igemm_family {
    const char *name;  /* "sm90_tma_wgmma", "sm80_mma_sync", "direct" */
    igemm_path_t path;
    int needs_16b;     /* 1: x, w, y and residual must be 16-byte aligned (TMA); the planner
                          adds a fallback family for unaligned pointers */
    /* 1 if the family can run p on dev under hints h (never NULL: zeros = none); else 0 and a
     * reason ("c = 3: TMA im2col needs c % 8 == 0") written into why (NUL-terminated, at most
     * why_len bytes). p's operand pointers are NULL here. Host only, no CUDA call. */
    int (*supports)(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                    char *why, size_t why_len);
    /* Chooses cfg (zeroed by the caller) for p on dev under h. Host only, no CUDA call. Returns
     * SUCCESS, or NOT_SUPPORTED / INTERNAL_ERROR with the message set. */
    igemm_status_t (*configure)(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                const igemm_plan_hints_t *h, igemm_family_config_t *cfg);
    /* NULL, or: the problem the family's run() hands to inner->run (its operand pointers NULL);
     * the planner plans it with the other families. */
    void (*rewrite)(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, igemm_conv_params_t *out);
    /* Enqueues the kernel(s) on stream (a cudaStream_t). workspace has cfg->workspace_bytes
     * bytes (NULL if 0). state points to family-owned per-plan host scratch of
     * IGEMM_FAMILY_STATE_BYTES bytes (64-byte aligned), zeroed at plan creation (e.g. cached
     * tensor maps). inner: NULL unless the family rewrites. Must not allocate, synchronise or
     * print. Returns SUCCESS or CUDA_ERROR / INTERNAL_ERROR (message set). */
    igemm_status_t (*run)(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *workspace,
                          void *state, void *stream, const igemm_inner_t *inner);
    /* NULL, or: 1 if under the AUTO path the family leaves p (which it supports) to a later family
     * that measured faster, the reason written into why as for supports; forced onto its path
     * (or named by its hints) it takes p. Host only, no CUDA call. */
    int (*defers)(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                  char *why, size_t why_len);
    /* NULL for families verified on hardware. Else the family has never run where the project
     * could test it: it fills at most max cases (small problems covering each of its variants)
     * for dev and returns their count, and the planner gives it no problem on a device until
     * those cases matched the direct path there (src/selfcheck.h). Host only, no CUDA call. */
    int (*self_check_cases)(const igemm_device_info_t *dev, igemm_selfcheck_case_t *cases, int max);
} igemm_family_t;

#define IGEMM_FAMILY_STATE_BYTES 4096

/* Families (defined in their .cu files; absent in a build without CUDA). */
extern const igemm_family_t igemm_family_skinny;    /* src/mem/skinny_gemm.cu: 1x1, M <= 16 */
extern const igemm_family_t igemm_family_depthwise; /* src/mem/depthwise.cu: groups = c = k */
extern const igemm_family_t igemm_family_grouped;   /* src/mem/grouped.cu: 1 < groups < c, c/g, k/g % 8 == 0 */
extern const igemm_family_t igemm_family_narrow;    /* src/mem/narrow_1x1.cu: 1x1, c <= 64, k <= 16 */
extern const igemm_family_t igemm_family_sm100;     /* src/sm100/family_conv.cu: tcgen05, cc 10.0 only,
                                                      self-checked at first use */
extern const igemm_family_t igemm_family_sm90;      /* src/sm90/family_conv.cu */
extern const igemm_family_t igemm_family_sm90_stem; /* src/sm90/family_stem.cu: c <= 4, stride_w 2 */
extern const igemm_family_t igemm_family_sm90_fold; /* src/sm90/family_fold.cu: small c */
extern const igemm_family_t igemm_family_sm80;      /* src/sm80/conv2d_fprop.cu */
extern const igemm_family_t igemm_family_sm80_gemm; /* src/sm80/gemm_strided.cu: GEMMs the conv engine
                                                      cannot read (igemm_gemm_plan_create only) */
struct igemm_gemm_params;
/* The strided GEMM kernel's configuration for the validated GEMM g on a device of sm_count SMs. */
void igemm_gemm_strided_config(const struct igemm_gemm_params *g, int sm_count, igemm_family_config_t *cfg);
extern const igemm_family_t igemm_family_direct;    /* src/gpu_ref/conv2d_direct.cu */

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_INTERNAL_H */
