/*
 * cmd_info.c — `igemm info`: the library's version, the CUDA runtime and driver, each GPU, which
 * kernel paths can plan the default layer (and what AUTO picks), and where cuDNN is found.
 */
#include <stdio.h>

#include "commands.h"
#include "cudnn_dl.h"
#include "gpu.h"
#include "shapes.h"

#ifdef IGEMM_HAVE_CUDA
/* Prints the CUDA runtime and driver versions and one line per device. */
static void info_gpu(void)
{
    int rt = 0, drv = 0, ndev = 0, dev = -1;
    cudaError_t e;
    if ((e = cudaRuntimeGetVersion(&rt)) != cudaSuccess) {
        printf("CUDA runtime: version unknown (%s)\n", cudaGetErrorString(e));
        return;
    }
    if (cudaDriverGetVersion(&drv) == cudaSuccess && drv > 0)
        printf("CUDA runtime %d.%d, driver supports CUDA %d.%d\n", rt / 1000, rt % 1000 / 10, drv / 1000,
               drv % 1000 / 10);
    else
        printf("CUDA runtime %d.%d, no CUDA driver\n", rt / 1000, rt % 1000 / 10);
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || cudaGetDevice(&dev) != cudaSuccess) {
        (void)cudaGetLastError(); /* no device: gpu_usable says why */
        return;
    }
    for (int i = 0; i < ndev; i++) {
        struct cudaDeviceProp prop;
        if ((e = cudaGetDeviceProperties(&prop, i)) != cudaSuccess) {
            printf("GPU %d: properties unknown (%s)\n", i, cudaGetErrorString(e));
            continue;
        }
        printf("GPU %d%s: %s, compute capability %d.%d, %d SMs, %.1f GiB, L2 %.0f MiB, smem/block opt-in %zu KiB\n", i,
               i == dev ? " (current)" : "", prop.name, prop.major, prop.minor, prop.multiProcessorCount,
               (double)prop.totalGlobalMem / 1073741824.0, prop.l2CacheSize / 1048576.0,
               prop.sharedMemPerBlockOptin / 1024);
    }
}
#endif

int cmd_info(const cli_opts_t *o)
{
    static const igemm_path_t paths[] = {IGEMM_PATH_AUTO, IGEMM_PATH_SM90, IGEMM_PATH_GENERAL, IGEMM_PATH_DIRECT, IGEMM_PATH_MEMORY, IGEMM_PATH_SM100};
    cli_shape_t s;
    char err[512], reason[256];
    cudnn_dl_t api;
    const int have_gpu = gpu_usable(reason, sizeof reason);
    (void)o; /* info takes no options */

    printf("igemm %s (IGEMM_VERSION %d), built %s CUDA\n", igemm_version_string(), IGEMM_VERSION,
#ifdef IGEMM_HAVE_CUDA
           "with"
#else
           "without"
#endif
    );
#ifdef IGEMM_HAVE_CUDA
    info_gpu();
#endif
    if (!have_gpu) printf("GPU: none usable (%s)\n", reason);
    if (cli_parse_shape_arg(CLI_DEFAULT_SHAPE, &s, err, sizeof err) == 0) {
        printf("paths (plan for %s, bf16):\n", s.name);
        for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
            igemm_plan_options_t opts = igemm_plan_options_default();
            igemm_plan_t *plan = NULL;
            igemm_status_t st;
            opts.path = paths[i];
            st = igemm_plan_create(&plan, &s.desc, NULL, &opts);
            if (st == IGEMM_STATUS_SUCCESS) {
                if (paths[i] == IGEMM_PATH_AUTO)
                    printf("  %-8s usable -> %s: %s\n", cli_path_name(paths[i]), cli_path_name(igemm_plan_path(plan)),
                           igemm_plan_describe(plan));
                else
                    printf("  %-8s usable\n", cli_path_name(paths[i]));
            } else {
                printf("  %-8s not usable: %s: %s\n", cli_path_name(paths[i]), igemm_status_string(st),
                       igemm_last_error());
            }
            igemm_plan_destroy(plan);
        }
    }
    if (cudnn_dl_load(&api, err, sizeof err) == 0) {
        char ver[32];
        cudnn_dl_version_string(api.GetVersion(), ver, sizeof ver);
        printf("cuDNN: %s (%s)\n", ver, api.path);
        cudnn_dl_unload(&api);
    } else {
        printf("cuDNN: not found (%s)\n", err);
    }
    return CLI_EXIT_OK;
}
