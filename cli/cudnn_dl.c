/*
 * cudnn_dl.c — loads the cuDNN entry points the benchmark uses with dlopen/dlsym (see
 * cudnn_dl.h). No CUDA or cuDNN header is needed.
 */
#include "cudnn_dl.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if UINTPTR_MAX == 0xffffffffffffffffu
_Static_assert(sizeof(cudnn_dl_fwd_perf_t) == 48, "cudnnConvolutionFwdAlgoPerf_t layout");
#endif

static void *cudnn_dl_try(const char *name, char *last, size_t lastlen)
{
    void *h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(last, lastlen, "%s", e ? e : name);
    }
    return h;
}

int cudnn_dl_load(cudnn_dl_t *api, char *err, size_t errlen)
{
    char last[512] = "";
    char buf[512];
    const char *env = getenv("IGEMM_CUDNN_LIB");
    const char *cuda_home = getenv("CUDA_HOME");
    void *h = NULL;
    const char *used = NULL;
    memset(api, 0, sizeof *api);
    if (env && *env) {
        h = cudnn_dl_try(env, last, sizeof last);
        used = env;
        if (!h) {
            snprintf(err, errlen, "IGEMM_CUDNN_LIB=%s: %s", env, last);
            return -1;
        }
    }
    if (!h) {
        static const char *const names[] = {"libcudnn.so.9", "libcudnn.so", "libcudnn.so.8"};
        for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++) {
            h = cudnn_dl_try(names[i], last, sizeof last);
            used = names[i];
        }
    }
    if (!h && cuda_home && *cuda_home) {
        snprintf(buf, sizeof buf, "%s/lib64/libcudnn.so.9", cuda_home);
        h = cudnn_dl_try(buf, last, sizeof last);
        used = buf;
    }
    if (!h) {
        snprintf(buf, sizeof buf, "/usr/local/cuda/lib64/libcudnn.so.9");
        h = cudnn_dl_try(buf, last, sizeof last);
        used = buf;
    }
    if (!h) {
        snprintf(err, errlen, "cannot load libcudnn.so.9 or libcudnn.so (%s); set IGEMM_CUDNN_LIB",
                 last);
        return -1;
    }
    api->lib = h;
    snprintf(api->path, sizeof api->path, "%.250s", used);

#define CUDNN_DL_SYM(field, sym, required)                                                  \
    do {                                                                                   \
        void *p_ = dlsym(h, sym);                                                          \
        if (!p_ && (required)) {                                                           \
            snprintf(err, errlen, "%s: symbol %s not found", api->path, sym);              \
            dlclose(h);                                                                    \
            memset(api, 0, sizeof *api);                                                   \
            return -1;                                                                     \
        }                                                                                  \
        memcpy(&api->field, &p_, sizeof p_);                                               \
    } while (0)

    CUDNN_DL_SYM(GetVersion, "cudnnGetVersion", 1);
    CUDNN_DL_SYM(GetErrorString, "cudnnGetErrorString", 1);
    CUDNN_DL_SYM(GetLastErrorString, "cudnnGetLastErrorString", 0);
    CUDNN_DL_SYM(Create, "cudnnCreate", 1);
    CUDNN_DL_SYM(Destroy, "cudnnDestroy", 1);
    CUDNN_DL_SYM(SetStream, "cudnnSetStream", 1);
    CUDNN_DL_SYM(CreateTensorDescriptor, "cudnnCreateTensorDescriptor", 1);
    CUDNN_DL_SYM(SetTensor4dDescriptor, "cudnnSetTensor4dDescriptor", 1);
    CUDNN_DL_SYM(DestroyTensorDescriptor, "cudnnDestroyTensorDescriptor", 1);
    CUDNN_DL_SYM(CreateFilterDescriptor, "cudnnCreateFilterDescriptor", 1);
    CUDNN_DL_SYM(SetFilter4dDescriptor, "cudnnSetFilter4dDescriptor", 1);
    CUDNN_DL_SYM(DestroyFilterDescriptor, "cudnnDestroyFilterDescriptor", 1);
    CUDNN_DL_SYM(CreateConvolutionDescriptor, "cudnnCreateConvolutionDescriptor", 1);
    CUDNN_DL_SYM(SetConvolution2dDescriptor, "cudnnSetConvolution2dDescriptor", 1);
    CUDNN_DL_SYM(SetConvolutionMathType, "cudnnSetConvolutionMathType", 1);
    CUDNN_DL_SYM(SetConvolutionGroupCount, "cudnnSetConvolutionGroupCount", 1);
    CUDNN_DL_SYM(DestroyConvolutionDescriptor, "cudnnDestroyConvolutionDescriptor", 1);
    CUDNN_DL_SYM(GetConvolution2dForwardOutputDim, "cudnnGetConvolution2dForwardOutputDim", 1);
    CUDNN_DL_SYM(GetConvolutionForwardAlgorithmMaxCount,
                 "cudnnGetConvolutionForwardAlgorithmMaxCount", 1);
    CUDNN_DL_SYM(GetConvolutionForwardAlgorithm_v7, "cudnnGetConvolutionForwardAlgorithm_v7", 1);
    CUDNN_DL_SYM(FindConvolutionForwardAlgorithmEx, "cudnnFindConvolutionForwardAlgorithmEx", 1);
    CUDNN_DL_SYM(GetConvolutionForwardWorkspaceSize, "cudnnGetConvolutionForwardWorkspaceSize",
                 1);
    CUDNN_DL_SYM(ConvolutionForward, "cudnnConvolutionForward", 1);
    CUDNN_DL_SYM(ConvolutionBiasActivationForward, "cudnnConvolutionBiasActivationForward", 1);
    CUDNN_DL_SYM(CreateActivationDescriptor, "cudnnCreateActivationDescriptor", 1);
    CUDNN_DL_SYM(SetActivationDescriptor, "cudnnSetActivationDescriptor", 1);
    CUDNN_DL_SYM(DestroyActivationDescriptor, "cudnnDestroyActivationDescriptor", 1);
#undef CUDNN_DL_SYM
    return 0;
}

void cudnn_dl_unload(cudnn_dl_t *api)
{
    /* cuDNN registers process-exit handlers; unloading it early can crash at exit, so the
     * library stays mapped and only the table is cleared. */
    memset(api, 0, sizeof *api);
}

void cudnn_dl_version_string(size_t v, char *buf, size_t len)
{
    unsigned long major, minor, patch;
    if (v >= 90000) {
        major = (unsigned long)(v / 10000);
        minor = (unsigned long)(v % 10000 / 100);
    } else {
        major = (unsigned long)(v / 1000);
        minor = (unsigned long)(v % 1000 / 100);
    }
    patch = (unsigned long)(v % 100);
    snprintf(buf, len, "%lu.%lu.%lu", major, minor, patch);
}

const char *cudnn_dl_error(const cudnn_dl_t *api, cudnn_dl_status_t st, char *buf, size_t len)
{
    char last[384] = "";
    const char *name = api && api->GetErrorString ? api->GetErrorString(st) : NULL;
    if (api && api->GetLastErrorString) {
        api->GetLastErrorString(last, sizeof last);
        last[sizeof last - 1] = '\0';
        for (char *p = last; *p; p++)
            if (*p == '\n' || *p == '\r') *p = ' ';
    }
    snprintf(buf, len, "%s (%d)%s%s", name ? name : "cuDNN error", st, last[0] ? ": " : "",
             last);
    return buf;
}

const char *cudnn_dl_algo_name(int algo)
{
    switch (algo) {
    case CUDNN_DL_FWD_ALGO_IMPLICIT_GEMM: return "implicit_gemm";
    case CUDNN_DL_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "implicit_precomp_gemm";
    case CUDNN_DL_FWD_ALGO_GEMM: return "gemm";
    case CUDNN_DL_FWD_ALGO_DIRECT: return "direct";
    case CUDNN_DL_FWD_ALGO_FFT: return "fft";
    case CUDNN_DL_FWD_ALGO_FFT_TILING: return "fft_tiling";
    case CUDNN_DL_FWD_ALGO_WINOGRAD: return "winograd";
    case CUDNN_DL_FWD_ALGO_WINOGRAD_NONFUSED: return "winograd_nonfused";
    default: return "?";
    }
}
