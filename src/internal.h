/*
 * internal.h — contracts between the host layer (api.c, plan.c) and the kernel families.
 * Included by C11 host code and by CUDA C kernel files; no CUDA header needed here.
 *
 * A kernel family (src/sm80, src/sm90, src/gpu_ref, later src/sm100) exports one
 * `const igemm_family_t` (extern "C"). The planner asks each family in priority order whether it
 * takes the problem (supports), lets it choose a tile configuration (configure), and at run
 * time calls run() with the device pointers and the stream.
 */
#ifndef IGEMM_INTERNAL_H
#define IGEMM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "../include/igemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Everything a kernel needs to know about one conv2d problem, derived and validated by
 * api.c. GEMM view per group g (see DESIGN.md):
 *   M = n*p*q, N = kg = k/groups, K = r*s*cg, cg = c/groups.
 *   A[m, (r*S + s)*cg + c] = x[nn, p*stride_h - pad_top + r*dil_h, q*stride_w - pad_left + s*dil_w, g*cg + c]
 *   B[kk, (r*S + s)*cg + c] = w[g*kg + kk, r, s, c]
 *   y[m, g*kg + kk] = act(alpha * scale[.] * D[m, kk] + bias[.] + beta * residual[m, g*kg + kk])
 * pad_bottom / pad_right are implied by p and q (rows/cols past h/w read as zero). */
typedef struct igemm_conv_params {
    /* geometry */
    int64_t n, h, w, c, k, r, s, groups;
    int64_t p, q;
    int64_t cg, kg; /* c / groups, k / groups */
    int64_t pad_top, pad_bottom, pad_left, pad_right;
    int64_t stride_h, stride_w, dil_h, dil_w;
    int64_t gemm_m, gemm_n, gemm_k; /* n*p*q, kg, r*s*cg */
    igemm_dtype_t in_dtype;         /* x and w: F16 or BF16 */
    igemm_dtype_t out_dtype;        /* y and residual: F16, BF16 or F32 */
    /* epilogue */
    float alpha, beta, act_param;
    int act; /* igemm_activation_t */
    int has_scale, has_bias, has_residual;
    /* operands (set per run; NULL at plan time). The filter pointer is `filter` because `w`
     * is the input width above. */
    const void *x;
    const void *filter;
    const float *scale;
    const float *bias;
    const void *residual;
    void *y;
} igemm_conv_params_t;

/* The device a plan was created for. */
typedef struct igemm_device_info {
    int ordinal;
    int cc_major, cc_minor; /* compute capability */
    int sm_count;
    int smem_optin_per_block; /* bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin */
    int l2_bytes;
    char name[128];
} igemm_device_info_t;

/* A family's tile configuration, chosen by configure() and kept in the plan. Fields a family
 * does not use stay 0. */
typedef struct igemm_kernel_config {
    int bm, bn, bk;        /* CTA tile */
    int stages;            /* shared-memory pipeline depth */
    int threads;           /* threads per CTA */
    int consumers;         /* consumer warpgroups (sm90) */
    int cluster_m;         /* CTAs per cluster along M (sm90) */
    int split_cluster;     /* sm90: 1 = the two CTAs of a cluster split one tile's K (partials exchanged
                              through distributed shared memory); cluster_m stays 1 */
    int pdl;               /* sm90: launched with programmatic stream serialization (PDL) */
    int pingpong;          /* sm90: consumers take whole tiles in turn (tile rows 64 * WM) */
    int res_mode;          /* sm90, TMA-loaded residual: 1 epilogue ring, 2 operand ring, 0 none */
    int pixels_n;          /* sm90: tile of bm pixels x 128 channels (x 64 with pingpong), pixels as the wgmma N */
    int b_reuse;           /* sm90: filter tiles resident (k-block slots), loaded when the N-tile changes */
    int halo;              /* sm90: halo rows (3x3 stride 1, 64 channels): a tile's input rows loaded once
                              with their halo, the taps along W read from them shifted; 1: tiles of
                              one image row, 2: of two whole rows */
    int fold_rows;         /* sm90 fold path: filter rows F folded into each x' pixel (fixed at plan time) */
    int a_gather;          /* sm90 stem path (c <= 4): A gathered by the producer warps from a 4-channel
                              copy of x (fold_rows = filter rows per k-block); set by the fold family
                              before it calls the sm90 configure, which then plans ping-pong 128-row
                              tiles with the residual through the operand ring */
    int g_r, g_s;          /* sm90 stem path: the original filter's R and S */
    int split_k;           /* K splits (1 = none); deterministic reduction */
    int variant;           /* family-specific kernel variant id */
    int grid;              /* CTAs launched (persistent kernels) */
    size_t smem_bytes;     /* dynamic shared memory per CTA */
    int smem_limit;        /* sm90: the device's opt-in dynamic-smem maximum, set on the kernel */
    size_t workspace_bytes;/* device workspace the plan must allocate */
    char desc[512];        /* human-readable: "tile 128x128x64, 4 stages, ..." */
    int launch_cluster;    /* sm90 diagnostics (IGEMM_SM90_CLUSTER_LAUNCH=2): launched in clusters of 2
                              that the kernel does not use (cluster_m stays 1): the placement alone */
} igemm_kernel_config_t;

typedef struct igemm_family {
    const char *name;  /* "sm90_tma_wgmma", "sm80_mma_sync", "direct" */
    igemm_path_t path;
    /* 1 if the family can run p on dev; else 0 and a reason ("c = 3: TMA im2col needs
     * c % 8 == 0") written into why (NUL-terminated, at most why_len bytes). p's operand
     * pointers are NULL here. */
    int (*supports)(const igemm_conv_params_t *p, const igemm_device_info_t *dev, char *why,
                    size_t why_len);
    /* Chooses cfg for p on dev (cfg is zeroed by the caller). Host only: no CUDA calls that
     * allocate or synchronise. */
    igemm_status_t (*configure)(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                igemm_kernel_config_t *cfg);
    /* Enqueues the kernel(s) on stream (a cudaStream_t). workspace has cfg->workspace_bytes
     * bytes (NULL if 0). state points to family-owned per-plan host scratch of
     * IGEMM_FAMILY_STATE_BYTES bytes, zeroed at plan creation (e.g. cached tensor maps).
     * Must not allocate, synchronise or print. Returns SUCCESS or CUDA_ERROR (with
     * igemm_set_error called). */
    igemm_status_t (*run)(const igemm_conv_params_t *p, const igemm_kernel_config_t *cfg,
                          void *workspace, void *state, void *stream);
} igemm_family_t;

#define IGEMM_FAMILY_STATE_BYTES 4096

/* Families (defined in their .cu files; absent in a build without CUDA). */
extern const igemm_family_t igemm_family_sm90;      /* src/sm90/conv2d_fprop.cu */
extern const igemm_family_t igemm_family_sm90_stem; /* src/sm90/conv2d_stem.cu: c <= 4, stride_w 2 */
extern const igemm_family_t igemm_family_sm90_fold; /* src/sm90/conv2d_fold.cu: small c */
extern const igemm_family_t igemm_family_sm80;   /* src/sm80/conv2d_fprop.cu */
extern const igemm_family_t igemm_family_direct; /* src/gpu_ref/conv2d_direct.cu */

/* Error reporting (src/api.c). Formats the thread-local message; returns status. */
igemm_status_t igemm_set_error(igemm_status_t status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Validates desc and epi (NULL = identity) and fills params' geometry and epilogue fields
 * (operand pointers NULL). Returns SUCCESS or the validation status (message set). Used by
 * api.c and the CPU reference. */
igemm_status_t igemm_internal_params(const igemm_conv2d_desc_t *desc, const igemm_epilogue_t *epi,
                                     igemm_conv_params_t *params);

/* Host-side activation, shared by the CPU reference (src/ref) and the tests: the exact
 * definition every GPU path must match. */
IGEMM_API double igemm_act_host(int act, double v, double act_param);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_INTERNAL_H */
