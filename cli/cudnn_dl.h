/*
 * cudnn_dl.h — the few pieces of the cuDNN (8/9) legacy C API the benchmark uses, loaded at run
 * time with dlopen/dlsym so igemm never needs cudnn.h or a link against cuDNN.
 *
 * The enum values below are those of cuDNN 9's cudnn_graph.h, cudnn_ops.h and cudnn_cnn.h
 * (unchanged since cuDNN 7). cuDNN enums are int-sized, so they are passed as int here;
 * handles and descriptors are opaque pointers.
 */
#ifndef IGEMM_CLI_CUDNN_DL_H
#define IGEMM_CLI_CUDNN_DL_H

#include <stddef.h>

typedef int cudnn_dl_status_t;

/* cudnnStatus_t */
#define CUDNN_DL_STATUS_SUCCESS 0
#define CUDNN_DL_STATUS_NOT_SUPPORTED 3000 /* 3000..3999: NOT_SUPPORTED_* sub-codes */
/* cudnnDataType_t */
#define CUDNN_DL_DATA_FLOAT 0
#define CUDNN_DL_DATA_HALF 2
#define CUDNN_DL_DATA_BFLOAT16 9
/* cudnnTensorFormat_t */
#define CUDNN_DL_TENSOR_NCHW 0
#define CUDNN_DL_TENSOR_NHWC 1
/* cudnnMathType_t */
#define CUDNN_DL_DEFAULT_MATH 0
#define CUDNN_DL_TENSOR_OP_MATH 1
/* cudnnConvolutionMode_t */
#define CUDNN_DL_CONVOLUTION 0
#define CUDNN_DL_CROSS_CORRELATION 1
/* cudnnNanPropagation_t */
#define CUDNN_DL_NOT_PROPAGATE_NAN 0
/* cudnnActivationMode_t */
#define CUDNN_DL_ACTIVATION_RELU 1
#define CUDNN_DL_ACTIVATION_IDENTITY 5
/* cudnnConvolutionFwdAlgo_t */
#define CUDNN_DL_FWD_ALGO_IMPLICIT_GEMM 0
#define CUDNN_DL_FWD_ALGO_IMPLICIT_PRECOMP_GEMM 1
#define CUDNN_DL_FWD_ALGO_GEMM 2
#define CUDNN_DL_FWD_ALGO_DIRECT 3
#define CUDNN_DL_FWD_ALGO_FFT 4
#define CUDNN_DL_FWD_ALGO_FFT_TILING 5
#define CUDNN_DL_FWD_ALGO_WINOGRAD 6
#define CUDNN_DL_FWD_ALGO_WINOGRAD_NONFUSED 7
#define CUDNN_DL_FWD_ALGO_COUNT 8

/* cudnnConvolutionFwdAlgoPerf_t (same layout: enums are ints). */
typedef struct cudnn_dl_fwd_perf {
    int algo;        /* cudnnConvolutionFwdAlgo_t */
    int status;      /* cudnnStatus_t */
    float time;      /* ms */
    size_t memory;   /* workspace bytes */
    int determinism; /* cudnnDeterminism_t */
    int math_type;   /* cudnnMathType_t */
    int reserved[3];
} cudnn_dl_fwd_perf_t;

typedef void *cudnn_dl_handle_t;
typedef void *cudnn_dl_tensor_t;
typedef void *cudnn_dl_filter_t;
typedef void *cudnn_dl_conv_t;
typedef void *cudnn_dl_act_t;

typedef struct cudnn_dl {
    void *lib;
    char path[256]; /* what was loaded */
    size_t (*GetVersion)(void);
    const char *(*GetErrorString)(cudnn_dl_status_t);
    void (*GetLastErrorString)(char *, size_t); /* cuDNN >= 9; may be NULL */
    cudnn_dl_status_t (*Create)(cudnn_dl_handle_t *);
    cudnn_dl_status_t (*Destroy)(cudnn_dl_handle_t);
    cudnn_dl_status_t (*SetStream)(cudnn_dl_handle_t, void *stream);
    cudnn_dl_status_t (*CreateTensorDescriptor)(cudnn_dl_tensor_t *);
    cudnn_dl_status_t (*SetTensor4dDescriptor)(cudnn_dl_tensor_t, int format, int dtype, int n,
                                               int c, int h, int w);
    cudnn_dl_status_t (*DestroyTensorDescriptor)(cudnn_dl_tensor_t);
    cudnn_dl_status_t (*CreateFilterDescriptor)(cudnn_dl_filter_t *);
    cudnn_dl_status_t (*SetFilter4dDescriptor)(cudnn_dl_filter_t, int dtype, int format, int k,
                                               int c, int h, int w);
    cudnn_dl_status_t (*DestroyFilterDescriptor)(cudnn_dl_filter_t);
    cudnn_dl_status_t (*CreateConvolutionDescriptor)(cudnn_dl_conv_t *);
    cudnn_dl_status_t (*SetConvolution2dDescriptor)(cudnn_dl_conv_t, int pad_h, int pad_w,
                                                    int u, int v, int dil_h, int dil_w, int mode,
                                                    int compute_type);
    cudnn_dl_status_t (*SetConvolutionMathType)(cudnn_dl_conv_t, int math_type);
    cudnn_dl_status_t (*SetConvolutionGroupCount)(cudnn_dl_conv_t, int groups);
    cudnn_dl_status_t (*DestroyConvolutionDescriptor)(cudnn_dl_conv_t);
    cudnn_dl_status_t (*GetConvolution2dForwardOutputDim)(cudnn_dl_conv_t, cudnn_dl_tensor_t,
                                                          cudnn_dl_filter_t, int *n, int *c,
                                                          int *h, int *w);
    cudnn_dl_status_t (*GetConvolutionForwardAlgorithmMaxCount)(cudnn_dl_handle_t, int *);
    cudnn_dl_status_t (*GetConvolutionForwardAlgorithm_v7)(cudnn_dl_handle_t, cudnn_dl_tensor_t,
                                                           cudnn_dl_filter_t, cudnn_dl_conv_t,
                                                           cudnn_dl_tensor_t, int requested,
                                                           int *returned,
                                                           cudnn_dl_fwd_perf_t *perf);
    cudnn_dl_status_t (*FindConvolutionForwardAlgorithmEx)(
        cudnn_dl_handle_t, cudnn_dl_tensor_t, const void *x, cudnn_dl_filter_t, const void *w,
        cudnn_dl_conv_t, cudnn_dl_tensor_t, void *y, int requested, int *returned,
        cudnn_dl_fwd_perf_t *perf, void *workspace, size_t workspace_bytes);
    cudnn_dl_status_t (*GetConvolutionForwardWorkspaceSize)(cudnn_dl_handle_t, cudnn_dl_tensor_t,
                                                            cudnn_dl_filter_t, cudnn_dl_conv_t,
                                                            cudnn_dl_tensor_t, int algo,
                                                            size_t *bytes);
    cudnn_dl_status_t (*ConvolutionForward)(cudnn_dl_handle_t, const void *alpha,
                                            cudnn_dl_tensor_t, const void *x, cudnn_dl_filter_t,
                                            const void *w, cudnn_dl_conv_t, int algo,
                                            void *workspace, size_t workspace_bytes,
                                            const void *beta, cudnn_dl_tensor_t, void *y);
    cudnn_dl_status_t (*ConvolutionBiasActivationForward)(
        cudnn_dl_handle_t, const void *alpha1, cudnn_dl_tensor_t, const void *x,
        cudnn_dl_filter_t, const void *w, cudnn_dl_conv_t, int algo, void *workspace,
        size_t workspace_bytes, const void *alpha2, cudnn_dl_tensor_t z_desc, const void *z,
        cudnn_dl_tensor_t bias_desc, const void *bias, cudnn_dl_act_t, cudnn_dl_tensor_t y_desc,
        void *y);
    cudnn_dl_status_t (*CreateActivationDescriptor)(cudnn_dl_act_t *);
    cudnn_dl_status_t (*SetActivationDescriptor)(cudnn_dl_act_t, int mode, int nan_opt,
                                                 double coef);
    cudnn_dl_status_t (*DestroyActivationDescriptor)(cudnn_dl_act_t);
} cudnn_dl_t;

/* Loads cuDNN: $IGEMM_CUDNN_LIB if set, else libcudnn.so.9, libcudnn.so, then
 * $CUDA_HOME/lib64 and /usr/local/cuda/lib64. Returns 0 with every entry point set, or -1
 * with a one-line reason in err (api is zeroed). */
int cudnn_dl_load(cudnn_dl_t *api, char *err, size_t errlen);
void cudnn_dl_unload(cudnn_dl_t *api);

/* "9.19.0" from cudnnGetVersion() (cuDNN 9 encodes 10000*major+100*minor+patch, cuDNN 8
 * 1000*major+100*minor+patch). */
void cudnn_dl_version_string(size_t version, char *buf, size_t len);

/* "CUDNN_STATUS_...: <last error text>" for a failing status. */
const char *cudnn_dl_error(const cudnn_dl_t *api, cudnn_dl_status_t st, char *buf, size_t len);

/* Name of a forward algorithm ("implicit_precomp_gemm", ...). */
const char *cudnn_dl_algo_name(int algo);

#endif
