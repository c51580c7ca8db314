/*
 * dev/probes/probe_util.h — what the stand-alone probes share: a CUDA-call check that exits with
 * the call's text, and a device buffer of pseudo-random bf16 (placement_probe.c).
 */
#ifndef IGEMM_DEV_PROBE_UTIL_H
#define IGEMM_DEV_PROBE_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "igemm.h"

#define CK(call)                                                                                       \
    do {                                                                                               \
        cudaError_t e_ = (call);                                                                       \
        if (e_ != cudaSuccess) {                                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));     \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

/* A device buffer of elems bf16 values in [-0.5, 0.5), from an LCG seeded with seed. */
static void *alloc_random(size_t elems, uint64_t seed)
{
    uint16_t *h = (uint16_t *)malloc(elems * 2);
    void *d = NULL;
    if (!h) exit(1);
    for (size_t i = 0; i < elems; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        h[i] = igemm_float_to_bf16((float)((seed >> 40) & 0xFFFF) / 65536.0f - 0.5f);
    }
    CK(cudaMalloc(&d, elems * 2));
    CK(cudaMemcpy(d, h, elems * 2, cudaMemcpyHostToDevice));
    free(h);
    return d;
}

#endif /* IGEMM_DEV_PROBE_UTIL_H */
