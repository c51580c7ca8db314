/*
 * plan.h — the plan object (private) and the planner's entry points (src/plan.c).
 */
#ifndef IGEMM_PLAN_H
#define IGEMM_PLAN_H

#include "internal.h"

struct igemm_plan {
    igemm_conv_params_t params;       /* geometry + epilogue; operand pointers set per run */
    igemm_device_info_t dev;
    const igemm_family_t *family;     /* the chosen path */
    igemm_kernel_config_t cfg;
    const igemm_family_t *fallback;   /* taken at run time when pointers are not 16-byte
                                         aligned and `family` needs them (NULL if none) */
    igemm_kernel_config_t fallback_cfg;
    void *workspace;                  /* device memory, max of both configs' needs */
    size_t workspace_bytes;
    unsigned char state[IGEMM_FAMILY_STATE_BYTES];          /* family-owned scratch */
    unsigned char fallback_state[IGEMM_FAMILY_STATE_BYTES];
    char describe[2048];
};

/* Chooses family + config for plan->params on plan->dev honouring `path` (AUTO = fastest
 * that takes it). Fills family, cfg, fallback, fallback_cfg, describe. Returns SUCCESS or
 * NOT_SUPPORTED (message says why each path refused). */
igemm_status_t igemm_planner_choose(struct igemm_plan *plan, igemm_path_t path);

/* 1 if family needs 16-byte aligned x, w, y and residual (the TMA path). */
int igemm_family_needs_16b(const igemm_family_t *f);

#endif
