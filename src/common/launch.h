/*
 * launch.h — the launch configuration of a 1-D grid for cudaLaunchKernelEx, with programmatic
 * stream serialisation (PDL: the kernel may start while the one before it in the stream runs,
 * and must execute griddepcontrol.wait before touching its data) when pdl is set. Host code
 * (CUDA C and C++); needs cuda_runtime.h.
 */
#ifndef IGEMM_COMMON_LAUNCH_H
#define IGEMM_COMMON_LAUNCH_H

#include <string.h>

#include <cuda_runtime.h>

/* Fills *lc (and attr[0] when pdl) for grid x block threads, smem bytes of dynamic shared
 * memory, on stream. attr must outlive the launch call. */
static inline void igemm_launch_config_1d(cudaLaunchConfig_t *lc, cudaLaunchAttribute *attr, unsigned grid,
                                          unsigned block, size_t smem, void *stream, int pdl)
{
    memset(lc, 0, sizeof *lc);
    memset(attr, 0, sizeof *attr);
    attr->id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr->val.programmaticStreamSerializationAllowed = 1;
    lc->gridDim = dim3(grid, 1, 1);
    lc->blockDim = dim3(block, 1, 1);
    lc->dynamicSmemBytes = smem;
    lc->stream = (cudaStream_t)stream;
    lc->attrs = pdl ? attr : NULL;
    lc->numAttrs = pdl ? 1 : 0;
}

/* Raises kern's dynamic shared-memory limit, once per plan (*done), where the plan needs more than
 * the 48 KB default: to the device's opt-in maximum smem_optin (smem where that is smaller). The
 * limit is a process-wide attribute of the kernel, shared by every plan of the instance: raised to
 * the maximum, never set to one plan's need (a plan needing less would lower it under another's).
 * Returns cudaSuccess or cudaFuncSetAttribute's error. */
static inline cudaError_t igemm_raise_smem_limit(const void *kern, size_t smem, int smem_optin, int *done)
{
    if (smem <= 48 * 1024 || *done) return cudaSuccess;
    const int lim = (size_t)smem_optin >= smem ? smem_optin : (int)smem;
    const cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, lim);
    if (e == cudaSuccess) *done = 1;
    return e;
}

#endif /* IGEMM_COMMON_LAUNCH_H */
