/*
 * ref/pool_ref.h — the CPU pooling references (pool_ref.c) on a validated problem.
 */
#ifndef IGEMM_REF_POOL_REF_H
#define IGEMM_REF_POOL_REF_H

#include "../pool_params.h"

/* The CPU max pool of a valid problem (host pointers). Never fails. */
void igemm_ref_maxpool2d(const igemm_pool_params_t *p, const void *x, void *y);

/* The CPU average pool of a valid problem (host pointers). Never fails. */
void igemm_ref_avgpool2d(const igemm_pool_params_t *p, int count_include_pad, const void *x, void *y);

#endif /* IGEMM_REF_POOL_REF_H */
