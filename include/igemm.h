/*
 * igemm.h — the one public header of igemm.
 *
 * igemm computes Conv2D forward as an implicit GEMM on NVIDIA tensor cores, with a fused
 * epilogue:
 *
 *     y = act(alpha * scale[k] * conv(x, w) + bias[k] + beta * residual)
 *
 * Layouts: x is NHWC, w is KRSC (K x R x S x C/groups), y and residual are NHWC
 * (N x P x Q x K). Inputs fp16 or bf16 (x and w the same type), fp32 accumulation, output
 * fp16, bf16 or fp32. scale and bias are fp32 vectors of length K; residual has y's dtype.
 *
 * This header is C99 and needs no CUDA header: streams are passed as `void *` (a
 * cudaStream_t, or NULL for the legacy default stream).
 *
 * Contract: no function aborts, exits or prints. Each returns a status; on failure a
 * thread-local message (igemm_last_error) names the field and the value that was wrong.
 * All sizes are 64-bit and overflow-checked.
 */
#ifndef IGEMM_H
#define IGEMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IGEMM_VERSION_MAJOR 0
#define IGEMM_VERSION_MINOR 5
#define IGEMM_VERSION_PATCH 0
/* Single integer, comparable: 10000*major + 100*minor + patch. */
#define IGEMM_VERSION (IGEMM_VERSION_MAJOR * 10000 + IGEMM_VERSION_MINOR * 100 + IGEMM_VERSION_PATCH)

#if defined(_WIN32)
#define IGEMM_API __declspec(dllexport)
#else
#define IGEMM_API __attribute__((visibility("default")))
#endif

/* Status codes. Values are stable and never reused. */
typedef enum igemm_status {
    IGEMM_STATUS_SUCCESS = 0,
    IGEMM_STATUS_INVALID_VALUE = 1,  /* a field has a value outside its domain */
    IGEMM_STATUS_NULL_POINTER = 2,   /* a required pointer is NULL */
    IGEMM_STATUS_OVERFLOW = 3,       /* a derived size does not fit in 64 bits */
    IGEMM_STATUS_NOT_SUPPORTED = 4,  /* valid, but no path of this build takes it */
    IGEMM_STATUS_MISALIGNED = 5,     /* a pointer lacks the alignment its dtype needs */
    IGEMM_STATUS_NO_DEVICE = 6,      /* no usable CUDA device (or built without CUDA) */
    IGEMM_STATUS_CUDA_ERROR = 7,     /* the CUDA runtime returned an error */
    IGEMM_STATUS_OUT_OF_MEMORY = 8,  /* a host or device allocation failed */
    IGEMM_STATUS_INTERNAL_ERROR = 9  /* a bug in igemm: please report it */
} igemm_status_t;

/* Element types. */
typedef enum igemm_dtype {
    IGEMM_DTYPE_F16 = 0,
    IGEMM_DTYPE_BF16 = 1,
    IGEMM_DTYPE_F32 = 2
} igemm_dtype_t;

/* Epilogue activations. */
typedef enum igemm_activation {
    IGEMM_ACT_NONE = 0,
    IGEMM_ACT_RELU = 1,
    IGEMM_ACT_RELU6 = 2,
    IGEMM_ACT_LEAKY_RELU = 3, /* x > 0 ? x : act_param * x */
    IGEMM_ACT_GELU_ERF = 4,   /* 0.5 x (1 + erf(x / sqrt 2)) */
    IGEMM_ACT_GELU_TANH = 5,  /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
    IGEMM_ACT_SILU = 6,       /* x * sigmoid(x) */
    IGEMM_ACT_SIGMOID = 7,
    IGEMM_ACT_TANH = 8,
    IGEMM_ACT_HARDSWISH = 9,  /* x * min(max(x + 3, 0), 6) / 6 (MobileNetV3) */
    IGEMM_ACT_HARDSIGMOID = 10 /* min(max(x + 3, 0), 6) / 6 */
} igemm_activation_t;

/* Which kernel path a plan may use. AUTO lets the planner choose the fastest that takes the
 * problem; the others force one path (plan creation fails with NOT_SUPPORTED if it can't). */
typedef enum igemm_path {
    IGEMM_PATH_AUTO = 0,
    IGEMM_PATH_GENERAL = 1, /* sm80+: mma.sync implicit GEMM, every valid shape */
    IGEMM_PATH_SM90 = 2,    /* sm90a: TMA im2col + wgmma, warp specialised, persistent */
    IGEMM_PATH_DIRECT = 3,  /* naive direct convolution (fp32 accumulate): the GPU oracle */
    IGEMM_PATH_MEMORY = 4,  /* sm80+: memory-bound kernels (1x1 convs / GEMMs of at most 16 rows) */
    IGEMM_PATH_SM100 = 5    /* sm100a (compute capability 10.0): TMA im2col + tcgen05.mma into TMEM,
                               warp specialised, CLC scheduler; taken only after its first-use
                               self-check passed on the device (docs/sm100.md) */
} igemm_path_t;

/* Conv2d problem. x: N x H x W x C; w: K x R x S x (C/groups); y: N x P x Q x K. */
typedef struct igemm_conv2d_desc {
    int64_t n, h, w, c;  /* input batch, height, width, channels */
    int64_t k, r, s;     /* output channels, filter height, filter width */
    int64_t groups;      /* >= 1; must divide c and k. groups == c is depthwise */
    int64_t pad_top, pad_bottom, pad_left, pad_right; /* >= 0, asymmetric allowed */
    int64_t stride_h, stride_w;                       /* >= 1 */
    int64_t dil_h, dil_w;                             /* >= 1 */
    igemm_dtype_t x_dtype; /* F16 or BF16 */
    igemm_dtype_t w_dtype; /* must equal x_dtype */
    igemm_dtype_t y_dtype; /* F16, BF16 or F32; also the residual's dtype */
} igemm_conv2d_desc_t;

/* Fused epilogue: y = act(alpha * scale[k] * acc + bias[k] + beta * residual[m, k]).
 * Flags say which optional operands run() will receive. */
typedef struct igemm_epilogue {
    float alpha;                   /* default 1 */
    float beta;                    /* default 1; used only with has_residual */
    int has_scale;                 /* 0/1: per-output-channel fp32 scale[K] */
    int has_bias;                  /* 0/1: per-output-channel fp32 bias[K] */
    int has_residual;              /* 0/1: residual tensor, NHWC like y, y's dtype */
    igemm_activation_t activation; /* default NONE */
    float act_param;               /* leaky_relu slope (default 0.01) */
} igemm_epilogue_t;

/* ---------------------------------------------------------------------------------------
 * EXPERIMENTAL — plan hints. UNSTABLE: the fields, their values and what the planner does with
 * them may change in any release, without a deprecation period. They exist for tuning, tests
 * and A/B measurements (igemm bench --hints, scripts/gpu_check.sh); production code should
 * leave them out (NULL) and let the planner choose.
 *
 * A hint restricts the planner's choice; 0 in any field means "the planner decides". kernel
 * names one kernel (sm90 Hopper kernels, or one of the depthwise family's): only it may take the problem, and plan creation fails with
 * NOT_SUPPORTED (the message says why) if it cannot. The other fields are honoured by the
 * kernels they describe and ignored by the rest (the general and direct paths ignore all);
 * with kernel = AUTO, a tile, consumer or split hint keeps the row-tile kernels (cooperative,
 * pingpong) only. igemm_plan_describe() lists the hints a plan was made with.
 * The text form (igemm_plan_hints_parse) is "key=value,key=value", keys as the field names
 * (kernel takes the names below without the prefix, e.g. "kernel=pingpong,tile=128x64,grid=4").
 * --------------------------------------------------------------------------------------- */
typedef enum igemm_kernel {
    IGEMM_KERNEL_AUTO = 0,
    IGEMM_KERNEL_COOPERATIVE = 1,       /* "cooperative": row tiles of 128/192/256 pixels, 2-3
                                           consumer warpgroups on one tile (split-K allowed) */
    IGEMM_KERNEL_PINGPONG = 2,          /* "pingpong": 128-pixel row tiles, two consumers taking
                                           tiles in turn */
    IGEMM_KERNEL_PIXELS_N = 3,          /* "pixels_n": TP (80, 96, 208) pixels x 128 channels,
                                           the pixels as the wgmma N */
    IGEMM_KERNEL_PIXELS_N_PINGPONG = 4, /* "pixels_n_pingpong": 128 pixels x 64 channels, in turn */
    IGEMM_KERNEL_HALO_ROWS = 5,         /* "halo_rows": 3x3 stride-1 convs of 64 channels, input
                                           rows loaded once with their halo */
    IGEMM_KERNEL_SPLIT_CLUSTER = 6,     /* "split_cluster": a 2-CTA cluster per 128x128 tile,
                                           each CTA half of K */
    IGEMM_KERNEL_STEM_ROWS = 7,         /* "stem_rows": c <= 4, stride_w 2 (image stems) */
    IGEMM_KERNEL_FOLD = 8,              /* "fold": c % 8 != 0: taps folded into channels, then the
                                           kernels above on the folded problem */
    IGEMM_KERNEL_DEPTHWISE_TILED = 9,   /* "depthwise_tiled": depthwise convs (path MEMORY), a
                                           thread per channel pair, fp32 FMA (filter widths 3, 5, 7) */
    IGEMM_KERNEL_DEPTHWISE_MMA = 10,    /* "depthwise_mma": depthwise convs (path MEMORY) on
                                           mma.sync (block-diagonal B; up to 50 taps) */
    IGEMM_KERNEL_DEPTHWISE_TMA = 11,    /* "depthwise_tma": depthwise convs (path MEMORY), square
                                           3x3 / 5x5 / 7x7 windows by TMA, a thread per 8 channels
                                           (sm_90+) */
    IGEMM_KERNEL_TCGEN05 = 12           /* "tcgen05": the Blackwell kernel (path SM100; tile_n 64,
                                           128 or 256; tile_m 128: one CTA per tile, cta_group::1,
                                           256: a 2-CTA pair per 256 x 128 / 256 x 256 tile,
                                           cta_group::2) */
} igemm_kernel_t;

typedef struct igemm_plan_hints {
    int kernel;          /* igemm_kernel_t (0 = AUTO) */
    int tile_m;          /* output pixels per tile: row tiles 128, 192 or 256 (64 or 128 with
                            tile_n 32); tcgen05 (path SM100) 128 (the single-CTA kernel) or 256
                            (the 2-CTA pair: M >= 256, tile_n 128 or 256); pixels_n 80, 96 or
                            208; pixels_n_pingpong 128; halo_rows 56 or 112; the tiled depthwise
                            kernel rows x columns (columns a multiple of 8); the tiled grouped
                            kernel rows x columns (columns q, or 8, 16, 32, 64 below q) */
    int tile_n;          /* output channels per tile: 64, 128 or 256 (32: the narrow row tiles of
                            few-row GEMMs, direct stores); tiled depthwise: 8..64, a
                            multiple of 8; tiled grouped: input channels per slab (whole groups) */
    int consumers;       /* consumer warpgroups: 2 or 3 (1: the 64 x 32 narrow tile) */
    int stages;          /* at most this many operand pipeline stages (>= 2); tiled grouped: input
                            buffers, 2..4 */
    int split_k;         /* split K over this many partial sums (>= 1; row tiles only) */
    int grid;            /* at most this many CTAs (persistent kernels) */
    int staging_boxes;   /* epilogue staging boxes per consumer: fused ping-pong 2..6, pixels_n 1..2,
                            halo_rows 1..3 (other plans have a fixed count and refuse the hint) */
    int filter_resident; /* 1: keep the filter in shared memory where the kernel can; -1: never
                            (grouped convs: 1 the tiled kernel, -1 the gather kernel) */
    int pdl;             /* programmatic dependent launch: 1 on any grid, -1 off */
    int rows_per_tile;   /* halo_rows: output rows per tile (1 or 2); tiled depthwise and tiled
                            grouped: >= 1 */
    int fold_rows;       /* fold: filter rows folded into each pixel (>= 1) */
    int stem_prepass;    /* stem_rows: 1 pads x by a pre-pass even where the kernel could read it */
    int self_check;      /* -1: the first-use self-check of a family not yet verified on hardware
                            (path SM100) fails without running, so the plan takes the next path
                            and igemm_plan_describe says why (a test of the fallback) */
} igemm_plan_hints_t;

/* Plan creation options. */
typedef struct igemm_plan_options {
    igemm_path_t path;                /* default AUTO */
    int device;                       /* CUDA device ordinal; -1 (default) = the current device */
    const igemm_plan_hints_t *hints;  /* EXPERIMENTAL (above); NULL (default) = none */
} igemm_plan_options_t;

typedef struct igemm_plan igemm_plan_t;

/* Returns "MAJOR.MINOR.PATCH" (static storage). */
IGEMM_API const char *igemm_version_string(void);

/* Returns a short English name of a status, e.g. "invalid value" (static storage; never NULL,
 * "unknown status" for values outside the enum). */
IGEMM_API const char *igemm_status_string(igemm_status_t status);

/* Returns the calling thread's message about its last failing igemm call, e.g.
 * "stride_h = 0: must be >= 1"; "" if none failed yet. Valid until the thread's next igemm
 * call. Never NULL. */
IGEMM_API const char *igemm_last_error(void);

/* Returns a conv2d descriptor with every field set to a valid default (1x1x1x1 input, 1x1
 * filter, groups 1, no padding, stride/dilation 1, bf16 in and out). */
IGEMM_API igemm_conv2d_desc_t igemm_conv2d_desc_default(void);

/* Returns the identity epilogue (alpha 1, beta 1, nothing fused, no activation). */
IGEMM_API igemm_epilogue_t igemm_epilogue_default(void);

/* Returns default plan options (AUTO path, current device, no hints). */
IGEMM_API igemm_plan_options_t igemm_plan_options_default(void);

/* EXPERIMENTAL. Returns hints with every field 0 (the planner decides everything). */
IGEMM_API igemm_plan_hints_t igemm_plan_hints_default(void);

/* EXPERIMENTAL. Parses "key=value[,key=value...]" (keys: kernel, tile (MxN), tile_m, tile_n,
 * consumers, stages, split_k, grid, staging_boxes, filter_resident, pdl, rows_per_tile,
 * fold_rows, stem_prepass, self_check; on/off fields take 1/-1 or on/off) into *hints, which starts from
 * igemm_plan_hints_default(). text may be NULL or "" (no hints). Returns SUCCESS, NULL_POINTER
 * (hints NULL) or INVALID_VALUE with igemm_last_error() naming the key and the value. */
IGEMM_API igemm_status_t igemm_plan_hints_parse(const char *text, igemm_plan_hints_t *hints);

/* Validates desc (every field, overflow of every derived size) without touching a GPU.
 * Returns SUCCESS, or INVALID_VALUE / NULL_POINTER / OVERFLOW / NOT_SUPPORTED with
 * igemm_last_error() naming the field and value. */
IGEMM_API igemm_status_t igemm_conv2d_validate(const igemm_conv2d_desc_t *desc);

/* Computes the output height p and width q of desc. Returns SUCCESS, or the status of
 * igemm_conv2d_validate on an invalid desc (then *p and *q are untouched). */
IGEMM_API igemm_status_t igemm_conv2d_output_dims(const igemm_conv2d_desc_t *desc,
                                                  int64_t *p, int64_t *q);

/* Element counts of x, w and y (== residual) for desc. Any pointer may be NULL. Returns
 * SUCCESS or the validation status. */
IGEMM_API igemm_status_t igemm_conv2d_sizes(const igemm_conv2d_desc_t *desc, int64_t *x_elems,
                                            int64_t *w_elems, int64_t *y_elems);

/* Creates a plan: validates desc, epi and opts, queries the device, chooses a kernel path and
 * tile configuration, and allocates any device workspace the plan needs (the only allocation
 * igemm makes; run() never allocates or synchronises). epi and opts may be NULL (defaults).
 * Returns SUCCESS and sets *plan, or a failure status with *plan set to NULL. */
IGEMM_API igemm_status_t igemm_plan_create(igemm_plan_t **plan, const igemm_conv2d_desc_t *desc,
                                           const igemm_epilogue_t *epi,
                                           const igemm_plan_options_t *opts);

/* Enqueues the convolution on stream (cudaStream_t; NULL = legacy default stream). Device
 * pointers: x, w and y always; scale, bias, residual when the epilogue says so (else they
 * must be NULL). x/w/residual/y need 16-byte alignment for the fast path and element
 * alignment at least. Asynchronous, stream-ordered, capturable in a CUDA graph, deterministic.
 * A plan runs on one stream at a time (its workspace is shared).
 * Returns SUCCESS, NULL_POINTER, INVALID_VALUE (operand given that the epilogue does not
 * use), MISALIGNED, or CUDA_ERROR (launch failure; the message has CUDA's text). */
IGEMM_API igemm_status_t igemm_plan_run(igemm_plan_t *plan, const void *x, const void *w,
                                        const float *scale, const float *bias,
                                        const void *residual, void *y, void *stream);

/* Returns a one-paragraph description of the plan: path, kernel, tile, stages, cluster,
 * split, and why this path was chosen (why faster paths were not). Static storage owned by
 * the plan; "(null plan)" for NULL. */
IGEMM_API const char *igemm_plan_describe(const igemm_plan_t *plan);

/* Returns the path the plan runs (never AUTO), or AUTO for a NULL plan. */
IGEMM_API igemm_path_t igemm_plan_path(const igemm_plan_t *plan);

/* Bytes of device workspace the plan holds (0 if none). */
IGEMM_API size_t igemm_plan_workspace_bytes(const igemm_plan_t *plan);

/* Destroys a plan and frees its workspace. NULL-safe. */
IGEMM_API void igemm_plan_destroy(igemm_plan_t *plan);

/* CPU reference (double accumulation, host pointers): computes y for desc and epi exactly as
 * the GPU paths define it, rounding to y's dtype at the end. Used as the test oracle and by
 * the Python package's numpy path. Slow: O(N*P*Q*K*R*S*C/groups). Returns SUCCESS or a
 * validation / NULL_POINTER / OUT_OF_MEMORY status. */
IGEMM_API igemm_status_t igemm_conv2d_reference(const igemm_conv2d_desc_t *desc,
                                                const igemm_epilogue_t *epi, const void *x,
                                                const void *w, const float *scale,
                                                const float *bias, const void *residual,
                                                void *y);

/* The reference's exact values (double, before rounding to y's dtype) of `count` elements of y,
 * at flat NHWC indices idx[i] (0 <= idx[i] < n*p*q*k), written to out[i]. Host pointers as for
 * igemm_conv2d_reference; costs O(r*s*c/groups) per element, so a sample of a large layer is
 * cheap. Returns SUCCESS, or a validation / NULL_POINTER / INVALID_VALUE (an index out of range,
 * named in the message) status. */
IGEMM_API igemm_status_t igemm_conv2d_reference_elems(const igemm_conv2d_desc_t *desc,
                                                      const igemm_epilogue_t *epi, const void *x,
                                                      const void *w, const float *scale,
                                                      const float *bias, const void *residual,
                                                      const int64_t *idx, int64_t count,
                                                      double *out);

/* ---------------------------------------------------------------------------------------
 * GEMM problems (descriptor, validation and CPU reference; the GPU GEMM plans come with the
 * sm90 GEMM kernel):
 *
 *     D[b, m, n] = act(alpha * scale[n] * sum_k A[b, m, k] * B[b, k, n] + bias[n] + beta * C[b, m, n])
 *
 * for b < batch, m < M, n < N. Matrices are row-major with leading dimensions (elements between
 * consecutive rows) and batch strides (elements between consecutive matrices of a batch):
 *   A[b, m, k] = a[b * batch_stride_a + m * lda + k]                          (M x K)
 *   B[b, k, n] = b[b * batch_stride_b + n * ldb + k]   with B_NK (N x K, K contiguous:
 *                                                       nn.Linear.weight; D = A B^T)
 *              = b[b * batch_stride_b + k * ldb + n]   with B_KN (K x N, N contiguous; D = A B)
 *   D[b, m, n] = d[b * batch_stride_d + m * ldd + n]; C (the epilogue's residual) has D's
 *                layout and dtype. scale and bias are fp32 vectors of length N.
 * A batch stride of 0 broadcasts A or B over the batch (not D).
 * --------------------------------------------------------------------------------------- */
typedef enum igemm_b_layout {
    IGEMM_B_NK = 0, /* B stored N x K (K contiguous), like nn.Linear.weight */
    IGEMM_B_KN = 1  /* B stored K x N (N contiguous) */
} igemm_b_layout_t;

typedef struct igemm_gemm_desc {
    int64_t m, n, k;   /* >= 1 */
    int64_t batch;     /* >= 1 */
    igemm_b_layout_t b_layout;
    int64_t lda;       /* >= k */
    int64_t ldb;       /* >= k (B_NK) or >= n (B_KN) */
    int64_t ldd;       /* >= n; also C's */
    int64_t batch_stride_a, batch_stride_b; /* >= 0; 0 broadcasts (only read if batch > 1) */
    int64_t batch_stride_d; /* with batch > 1: >= (m - 1) * ldd + n, matrices of D never overlap */
    igemm_dtype_t a_dtype; /* F16 or BF16 */
    igemm_dtype_t b_dtype; /* must equal a_dtype */
    igemm_dtype_t d_dtype; /* F16, BF16 or F32; also C's */
} igemm_gemm_desc_t;

/* A packed GEMM descriptor: lda = k, ldb = k (B_NK) or n (B_KN), ldd = n, batch strides m*k,
 * n*k and m*n. Validate it (or let the functions below) before use; never fails itself. */
IGEMM_API igemm_gemm_desc_t igemm_gemm_desc_packed(int64_t m, int64_t n, int64_t k, int64_t batch,
                                                   igemm_b_layout_t b_layout,
                                                   igemm_dtype_t in_dtype,
                                                   igemm_dtype_t out_dtype);

/* Checks every field of a GEMM descriptor. Returns SUCCESS, NULL_POINTER, INVALID_VALUE (the
 * message names the field and its value) or OVERFLOW (an extent does not fit in 64 bits). */
IGEMM_API igemm_status_t igemm_gemm_validate(const igemm_gemm_desc_t *desc);

/* Elements each buffer must hold (the highest element index read or written, plus one) for a
 * valid desc: a, b, and d (== c). Any pointer may be NULL. Returns igemm_gemm_validate's status. */
IGEMM_API igemm_status_t igemm_gemm_sizes(const igemm_gemm_desc_t *desc, int64_t *a_elems,
                                          int64_t *b_elems, int64_t *d_elems);

/* CPU reference GEMM (double accumulation, host pointers): D for desc and epi (NULL: the
 * identity epilogue), rounded to d's dtype at the end; writes only D's elements (the gaps of
 * ldd and batch_stride_d are left untouched). c is read when epi->has_residual. The oracle of
 * the GEMM kernels. O(batch*M*N*K). Returns SUCCESS or a validation / NULL_POINTER /
 * OUT_OF_MEMORY status. */
IGEMM_API igemm_status_t igemm_gemm_reference(const igemm_gemm_desc_t *desc,
                                              const igemm_epilogue_t *epi, const void *a,
                                              const void *b, const float *scale,
                                              const float *bias, const void *c, void *d);

/* ---------------------------------------------------------------------------------------
 * Max pooling (a memory-bound kernel for the layers between convs, e.g. ResNet's stem pool):
 *
 *     y[n, p, q, c] = max over r < R, s < S of x[n, p * stride_h - pad_top + r * dil_h,
 *                                                 q * stride_w - pad_left + s * dil_w, c]
 *
 * NHWC x (N x H x W x C) and y (N x P x Q x C), both of `dtype`; P and Q as for a conv with the
 * same window, padding, stride and dilation. Padding never wins (it is not a value); a window
 * with no element inside the input gives -inf. NaN propagates (a window holding a NaN gives NaN),
 * as in PyTorch's max_pool2d.
 * --------------------------------------------------------------------------------------- */
typedef struct igemm_pool2d_desc {
    int64_t n, h, w, c;                                  /* >= 1 */
    int64_t r, s;                                        /* window rows, columns: >= 1 */
    int64_t pad_top, pad_bottom, pad_left, pad_right;    /* >= 0 */
    int64_t stride_h, stride_w;                          /* >= 1 */
    int64_t dil_h, dil_w;                                /* >= 1 */
    igemm_dtype_t dtype;                                 /* F16 or BF16 (x and y) */
} igemm_pool2d_desc_t;

/* n = h = w = c = r = s = 1, no padding, stride and dilation 1, BF16. Never fails. */
IGEMM_API igemm_pool2d_desc_t igemm_pool2d_desc_default(void);

/* Checks every field (the message names the field and its value). Returns SUCCESS,
 * NULL_POINTER, INVALID_VALUE (also for an empty output) or OVERFLOW (a tensor's byte size
 * does not fit in 64 bits). */
IGEMM_API igemm_status_t igemm_pool2d_validate(const igemm_pool2d_desc_t *desc);

/* P and Q of a valid desc (either pointer may be NULL). Returns igemm_pool2d_validate's status. */
IGEMM_API igemm_status_t igemm_pool2d_output_dims(const igemm_pool2d_desc_t *desc, int64_t *p,
                                                  int64_t *q);

/* Max pooling on the GPU (the current device), stream-ordered on `stream` (NULL: the legacy
 * default stream), no allocation, no sync; CUDA-graph capturable. x and y are device pointers
 * aligned to 2 bytes (16-byte alignment and C % 8 == 0 take the vectorised path) and must not
 * overlap. Returns SUCCESS, a validation status, NULL_POINTER, MISALIGNED, NO_DEVICE (built
 * without CUDA) or CUDA_ERROR (the launch failed). */
IGEMM_API igemm_status_t igemm_maxpool2d(const igemm_pool2d_desc_t *desc, const void *x, void *y,
                                         void *stream);

/* The CPU reference of igemm_maxpool2d (host pointers). Returns SUCCESS, a validation status
 * or NULL_POINTER. */
IGEMM_API igemm_status_t igemm_maxpool2d_reference(const igemm_pool2d_desc_t *desc,
                                                   const void *x, void *y);

/* Average pooling, the same windows as igemm_maxpool2d (dilation included):
 *
 *     y[n, p, q, c] = (sum of the window's taps inside x) / divisor
 *
 * summed in fp32 and rounded once to dtype. divisor: count_include_pad = 1, the window's taps
 * inside the padded input (rows -pad_top .. H + pad_bottom - 1, columns likewise: as PyTorch's
 * avg_pool2d with symmetric padding and ceil_mode off); 0, the taps inside x. A window with no
 * tap inside x gives 0. A global average pool (R = H, S = W, no padding) is the mean over the
 * image, as adaptive_avg_pool2d(x, 1). Same arguments, alignment, stream and return values as
 * igemm_maxpool2d; INVALID_VALUE for a count_include_pad other than 0 or 1. */
IGEMM_API igemm_status_t igemm_avgpool2d(const igemm_pool2d_desc_t *desc, int count_include_pad,
                                         const void *x, void *y, void *stream);

/* The CPU reference of igemm_avgpool2d (host pointers; the sum in double, rounded once). */
IGEMM_API igemm_status_t igemm_avgpool2d_reference(const igemm_pool2d_desc_t *desc,
                                                   int count_include_pad, const void *x, void *y);

/* Creates a plan for a GEMM (desc and epi as igemm_gemm_reference; NULL epi: the identity),
 * run with igemm_plan_run(plan, a, b, scale, bias, c, d, stream): A as x, B as w, C as the
 * residual, D as y; described, queried and destroyed like a conv plan. Every valid GEMM is
 * taken. B stored N x K (IGEMM_B_NK) with packed rows (lda = k, ldb = k, ldd = n) runs on the
 * conv engine as 1x1 convs (a batch with a shared B over packed A and D as one conv of batch * M
 * rows, other batches one conv each): the fast path. Other layouts (B stored K x N, padded or odd
 * leading dimensions) run on the strided GEMM kernel (path GENERAL: mma.sync, the whole batch in
 * one launch; slower), and igemm_plan_describe says why; asking such a GEMM for another path, or
 * giving it plan hints, returns NOT_SUPPORTED with the reason. Returns SUCCESS, a validation
 * status (INVALID_VALUE / OVERFLOW naming the field), NOT_SUPPORTED, NO_DEVICE, CUDA_ERROR or
 * OUT_OF_MEMORY, as igemm_plan_create. EXPERIMENTAL. */
IGEMM_API igemm_status_t igemm_gemm_plan_create(igemm_plan_t **plan, const igemm_gemm_desc_t *desc,
                                                const igemm_epilogue_t *epi,
                                                const igemm_plan_options_t *opts);

/* Number of CUDA devices usable by igemm (0 when built without CUDA or when the driver
 * reports none). Never fails. */
IGEMM_API int igemm_device_count(void);

/* Conversions between float and the 16-bit types (round to nearest even), for callers
 * preparing data on the host. */
IGEMM_API uint16_t igemm_float_to_f16(float f);
IGEMM_API float igemm_f16_to_float(uint16_t h);
IGEMM_API uint16_t igemm_float_to_bf16(float f);
IGEMM_API float igemm_bf16_to_float(uint16_t h);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_H */
