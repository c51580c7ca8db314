/*
 * plan.h — the plan object (private) and the planner (src/plan.c): the family registry, the
 * choice of family and configuration under the caller's hints, the composition of a rewriting
 * family with the plan of its rewritten problem, the alignment fallback, and the description.
 */
#ifndef IGEMM_PLAN_H
#define IGEMM_PLAN_H

#include "internal.h"

/* One family chosen for one problem: its configuration, its part of the plan's workspace and
 * its per-plan scratch. */
typedef struct igemm_stage {
    const igemm_family_t *family; /* NULL: none */
    igemm_family_config_t cfg;
    size_t ws_offset; /* its workspace: plan->workspace + ws_offset, cfg.workspace_bytes long */
    _Alignas(64) unsigned char state[IGEMM_FAMILY_STATE_BYTES]; /* 64-byte aligned: families keep
                                   CUtensorMaps (alignas 64) in it; plans are allocated 64-aligned */
} igemm_stage_t;

struct igemm_plan {
    igemm_conv_params_t params; /* geometry + epilogue; operand pointers set per run */
    igemm_device_info_t dev;
    igemm_plan_hints_t hints;   /* zeros: none */
    igemm_stage_t main;         /* the chosen family */
    igemm_conv_params_t inner_params; /* main.family->rewrite's problem */
    igemm_stage_t inner;        /* its plan (family NULL unless main rewrites) */
    igemm_stage_t fallback;     /* taken at run time when pointers are not 16-byte aligned and
                                   main needs them (family NULL if none) */
    /* a GEMM plan (igemm_gemm_plan_create): the conv above computes one launch of the GEMM;
     * a run repeats it gemm_launches times, A, B and D (and C) advancing by gemm_step bytes */
    int64_t gemm_launches; /* 0: a conv plan */
    int64_t gemm_step[3];
    void *workspace;            /* device memory: main's, inner's and fallback's parts */
    size_t workspace_bytes;
    char describe[2560];
};

/* Checks every field of hints (NULL: none). Returns SUCCESS or INVALID_VALUE naming the field. */
igemm_status_t igemm_hints_validate(const igemm_plan_hints_t *hints);

/* Parses the text form of hints (see igemm_plan_hints_parse in igemm.h). */
igemm_status_t igemm_hints_parse(const char *text, igemm_plan_hints_t *hints);

/* Chooses the families and configurations for plan->params on plan->dev under plan->hints,
 * honouring `path` (AUTO = the fastest that takes it), and lays out the workspace
 * (plan->workspace_bytes; not allocated here). Fills main, inner, fallback, describe. Returns
 * SUCCESS or NOT_SUPPORTED (the message says why each path refused). */
igemm_status_t igemm_planner_choose(struct igemm_plan *plan, igemm_path_t path);

/* Makes plan (its problem and device set) a plan of the validated GEMM g on the strided GEMM
 * kernel (src/sm80/gemm_strided.cu), for GEMMs the conv engine cannot read (why: the mapping's
 * reason, quoted in the description). No workspace. Without CUDA it leaves the plan empty. */
struct igemm_gemm_params;
void igemm_planner_gemm_strided(struct igemm_plan *plan, const struct igemm_gemm_params *g, const char *why);

/* Runs the plan on the operands in `run` (plan->params with the pointers set), choosing the
 * fallback for unaligned pointers. Returns the family's status. */
igemm_status_t igemm_planner_run(struct igemm_plan *plan, const igemm_conv_params_t *run, void *stream);

#endif
