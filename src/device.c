/*
 * device.c — device queries for the planner: the attributes a family's supports/configure read
 * (compute capability, SMs, opt-in shared memory, L2, driver version), made once per plan.
 */
#include "device.h"

#include <stdio.h>
#include <string.h>

#ifdef IGEMM_HAVE_CUDA
#include <cuda_runtime_api.h>

static igemm_status_t cuda_fail(const char *what, cudaError_t e)
{
    (void)cudaGetLastError();
    return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "%s failed: %s (%s)", what, cudaGetErrorString(e),
                           cudaGetErrorName(e));
}
#endif

int igemm_device_count_query(void)
{
#ifdef IGEMM_HAVE_CUDA
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the non-sticky error state */
        return 0;
    }
    return n;
#else
    return 0;
#endif
}

int igemm_device_current(void)
{
#ifdef IGEMM_HAVE_CUDA
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess) {
        (void)cudaGetLastError();
        return -1;
    }
    return cur;
#else
    return -1;
#endif
}

igemm_status_t igemm_device_query(int ordinal, igemm_device_info_t *dev)
{
    memset(dev, 0, sizeof *dev);
    dev->ordinal = ordinal;
#ifdef IGEMM_HAVE_CUDA
    cudaError_t e;
    int v;
    if ((e = cudaDeviceGetAttribute(&dev->cc_major, cudaDevAttrComputeCapabilityMajor, ordinal))) return cuda_fail("cudaDeviceGetAttribute(cc major)", e);
    if ((e = cudaDeviceGetAttribute(&dev->cc_minor, cudaDevAttrComputeCapabilityMinor, ordinal))) return cuda_fail("cudaDeviceGetAttribute(cc minor)", e);
    if ((e = cudaDeviceGetAttribute(&dev->sm_count, cudaDevAttrMultiProcessorCount, ordinal))) return cuda_fail("cudaDeviceGetAttribute(SM count)", e);
    if ((e = cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal))) return cuda_fail("cudaDeviceGetAttribute(smem opt-in)", e);
    dev->smem_optin_per_block = v;
    if ((e = cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, ordinal))) return cuda_fail("cudaDeviceGetAttribute(L2 size)", e);
    dev->l2_bytes = v;
    if (cudaDriverGetVersion(&v) == cudaSuccess) dev->driver_version = v;
    else (void)cudaGetLastError();
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, ordinal) == cudaSuccess) {
        snprintf(dev->name, sizeof dev->name, "%s (sm_%d%d, %d SMs)", prop.name, dev->cc_major, dev->cc_minor,
                 dev->sm_count);
    } else {
        (void)cudaGetLastError();
        snprintf(dev->name, sizeof dev->name, "device %d (sm_%d%d)", ordinal, dev->cc_major, dev->cc_minor);
    }
    return IGEMM_STATUS_SUCCESS;
#else
    return igemm_set_error(IGEMM_STATUS_NO_DEVICE, "this igemm was built without CUDA");
#endif
}
