/*
 * device.h — what the planner needs to know of a CUDA device (src/device.c). Ground floor:
 * calls only error.c and the CUDA runtime.
 */
#ifndef IGEMM_DEVICE_H
#define IGEMM_DEVICE_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Usable CUDA devices (0 without CUDA or driver). Never fails. */
int igemm_device_count_query(void);

/* Fills dev for device `ordinal` (attributes, name, driver version). Returns SUCCESS, or
 * CUDA_ERROR / NO_DEVICE with the message set. */
igemm_status_t igemm_device_query(int ordinal, igemm_device_info_t *dev);

/* The calling thread's current device (cudaGetDevice); -1 if it cannot be read. */
int igemm_device_current(void);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_DEVICE_H */
