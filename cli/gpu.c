/* gpu.c — see gpu.h. */
#include "gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int gpu_upload(void **dptr, const void *host, size_t bytes, char *err, size_t errlen)
{
    *dptr = NULL;
    CLI_CU(cudaMalloc(dptr, bytes));
    CLI_CU(cudaMemcpy(*dptr, host, bytes, cudaMemcpyHostToDevice));
    return 0;
fail:
    (void)gpu_free(*dptr); /* cleanup: the error above is the one reported */
    *dptr = NULL;
    return -1;
}

int gpu_guarded_alloc(gpu_guarded_t *b, size_t bytes, size_t guard, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    CLI_CU(cudaMalloc((void **)&b->base, bytes + 2 * guard));
    b->ptr = b->base + guard;
    b->bytes = bytes;
    b->guard = guard;
    return 0;
fail:
    return -1;
}

int gpu_guarded_poison(gpu_guarded_t *b, unsigned char byte, char *err, size_t errlen)
{
    CLI_CU(cudaMemset(b->base, byte, b->bytes + 2 * b->guard));
    return 0;
fail:
    return -1;
}

int gpu_guarded_download(const gpu_guarded_t *b, void *host, unsigned char byte, int64_t *damaged, char *err,
                         size_t errlen)
{
    unsigned char *g = (unsigned char *)malloc(2 * b->guard + 1);
    int rc = -1;
    *damaged = 0;
    if (!g) {
        snprintf(err, errlen, "out of host memory");
        return -1;
    }
    CLI_CU(cudaMemcpy(host, b->ptr, b->bytes, cudaMemcpyDeviceToHost));
    CLI_CU(cudaMemcpy(g, b->base, b->guard, cudaMemcpyDeviceToHost));
    CLI_CU(cudaMemcpy(g + b->guard, b->base + b->guard + b->bytes, b->guard, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < 2 * b->guard; i++) *damaged += g[i] != byte;
    rc = 0;
fail:
    free(g);
    return rc;
}

void gpu_guarded_free(gpu_guarded_t *b)
{
    (void)gpu_free(b->base); /* cleanup */
    memset(b, 0, sizeof *b);
}
#endif
