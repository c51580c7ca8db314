/*
 * pool.h — a validated pooling problem (igemm_pool2d_desc_t with P, Q and the element counts):
 * what the max-pool reference (src/ref/pool_ref.c) and kernel (src/mem/maxpool2d.cu) run on.
 * Ground floor: calls only error.c and problem.c.
 */
#ifndef IGEMM_POOL_H
#define IGEMM_POOL_H

#include "problem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct igemm_pool_params {
    int64_t n, h, w, c, r, s, p, q;
    int64_t pad_top, pad_left, stride_h, stride_w, dil_h, dil_w;
    int64_t x_elems, y_elems;
    igemm_dtype_t dtype;
} igemm_pool_params_t;

/* Validates desc (every field named in the message) and fills params (if not NULL). Returns
 * SUCCESS, NULL_POINTER, INVALID_VALUE or OVERFLOW. */
igemm_status_t igemm_pool_problem_init(const igemm_pool2d_desc_t *desc, igemm_pool_params_t *params);

/* The CPU max pool of a valid problem (host pointers). Never fails. */
void igemm_ref_maxpool2d(const igemm_pool_params_t *p, const void *x, void *y);

/* Launches the GPU max pool of a valid problem on the current device. Returns SUCCESS or
 * CUDA_ERROR (message set). */
igemm_status_t igemm_maxpool2d_launch(const igemm_pool_params_t *p, const void *x, void *y, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_POOL_H */
