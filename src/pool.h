/*
 * pool.h — the pooling problem's validation (igemm_pool_problem_init; the parameters:
 * pool_params.h) and the GPU launches (src/mem/pool2d.cu).
 * Ground floor: calls only error.c and problem.c.
 */
#ifndef IGEMM_POOL_H
#define IGEMM_POOL_H

#include "pool_params.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Validates desc (every field named in the message) and fills params (if not NULL). Returns
 * SUCCESS, NULL_POINTER, INVALID_VALUE or OVERFLOW. */
igemm_status_t igemm_pool_problem_init(const igemm_pool2d_desc_t *desc, igemm_pool_params_t *params);

/* Launches the GPU max pool of a valid problem on the current device. Returns SUCCESS or
 * CUDA_ERROR (message set). */
igemm_status_t igemm_maxpool2d_launch(const igemm_pool_params_t *p, const void *x, void *y, void *stream);

/* Launches the GPU average pool (same contract). */
igemm_status_t igemm_avgpool2d_launch(const igemm_pool_params_t *p, int count_include_pad, const void *x, void *y,
                                      void *stream);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_POOL_H */
