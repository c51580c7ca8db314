/* gpu.c — see gpu.h. */
#include "gpu.h"

#include <stdio.h>

#include "igemm.h"

int gpu_usable(char *reason, size_t len)
{
    if (igemm_device_count() > 0) return 1;
    if (!reason || len == 0) return 0;
#ifdef IGEMM_HAVE_CUDA
    int count = 0, drv = 0;
    const cudaError_t e = cudaGetDeviceCount(&count);
    if (cudaDriverGetVersion(&drv) == cudaSuccess && drv == 0)
        snprintf(reason, len, "no CUDA driver is installed");
    else if (e != cudaSuccess) snprintf(reason, len, "%s", cudaGetErrorString(e));
    else if (count == 0) snprintf(reason, len, "the CUDA driver reports no device");
    else snprintf(reason, len, "%d CUDA device(s) present but none usable by igemm", count);
#else
    snprintf(reason, len, "this igemm was built without CUDA");
#endif
    return 0;
}

int gpu_require(const char *cmd)
{
    char reason[256];
    if (gpu_usable(reason, sizeof reason)) return 1;
    fprintf(stderr, "igemm: no CUDA GPU found (%s); '%s' needs one\n", reason, cmd);
    return 0;
}

#ifdef IGEMM_HAVE_CUDA
int gpu_device_line(char *buf, size_t len)
{
    int dev = 0;
    struct cudaDeviceProp prop;
    cudaError_t e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, dev);
    if (e != cudaSuccess) {
        snprintf(buf, len, "unknown device (%s)", cudaGetErrorString(e));
        return -1;
    }
    snprintf(buf, len, "%.128s (sm_%d%d, %d SMs, %.0f MiB L2, %.1f GiB)", prop.name, prop.major,
             prop.minor, prop.multiProcessorCount, prop.l2CacheSize / 1048576.0,
             (double)prop.totalGlobalMem / 1073741824.0);
    return 0;
}

cudaError_t gpu_free(void *p) { return p ? cudaFree(p) : cudaSuccess; }
#endif
