/*
 * api.c — the public entry points: validation (every field, overflow-safe 64-bit sizes),
 * status strings, the thread-local error message, version, plan create/run/destroy.
 *
 * Nothing here aborts, exits or prints. Every failure returns a status and leaves a message
 * naming the field and the value in a thread-local buffer (igemm_last_error).
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "plan.h"

#ifdef IGEMM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define STR2(x) #x
#define STR(x) STR2(x)

/* ---------------------------------------------------------------- errors, version */

static _Thread_local char t_last_error[512];

igemm_status_t igemm_set_error(igemm_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t_last_error, sizeof t_last_error, fmt, ap);
    va_end(ap);
    return status;
}

static void clear_error(void) { t_last_error[0] = '\0'; }

IGEMM_API const char *igemm_last_error(void) { return t_last_error; }

IGEMM_API const char *igemm_version_string(void)
{
    return STR(IGEMM_VERSION_MAJOR) "." STR(IGEMM_VERSION_MINOR) "." STR(IGEMM_VERSION_PATCH);
}

IGEMM_API const char *igemm_status_string(igemm_status_t s)
{
    switch (s) {
    case IGEMM_STATUS_SUCCESS: return "success";
    case IGEMM_STATUS_INVALID_VALUE: return "invalid value";
    case IGEMM_STATUS_NULL_POINTER: return "null pointer";
    case IGEMM_STATUS_OVERFLOW: return "size overflow";
    case IGEMM_STATUS_NOT_SUPPORTED: return "not supported";
    case IGEMM_STATUS_MISALIGNED: return "misaligned pointer";
    case IGEMM_STATUS_NO_DEVICE: return "no CUDA device";
    case IGEMM_STATUS_CUDA_ERROR: return "CUDA error";
    case IGEMM_STATUS_OUT_OF_MEMORY: return "out of memory";
    case IGEMM_STATUS_INTERNAL_ERROR: return "internal error";
    }
    return "unknown status";
}

static const char *dtype_name(int d)
{
    switch (d) {
    case IGEMM_DTYPE_F16: return "f16";
    case IGEMM_DTYPE_BF16: return "bf16";
    case IGEMM_DTYPE_F32: return "f32";
    }
    return "unknown";
}

static size_t dtype_size(int d) { return d == IGEMM_DTYPE_F32 ? 4 : 2; }

/* ---------------------------------------------------------------- defaults */

IGEMM_API igemm_conv2d_desc_t igemm_conv2d_desc_default(void)
{
    igemm_conv2d_desc_t d;
    memset(&d, 0, sizeof d);
    d.n = d.h = d.w = d.c = d.k = d.r = d.s = 1;
    d.groups = 1;
    d.stride_h = d.stride_w = 1;
    d.dil_h = d.dil_w = 1;
    d.x_dtype = d.w_dtype = d.y_dtype = IGEMM_DTYPE_BF16;
    return d;
}

IGEMM_API igemm_epilogue_t igemm_epilogue_default(void)
{
    igemm_epilogue_t e;
    memset(&e, 0, sizeof e);
    e.alpha = 1.0f;
    e.beta = 1.0f;
    e.activation = IGEMM_ACT_NONE;
    e.act_param = 0.01f;
    return e;
}

IGEMM_API igemm_plan_options_t igemm_plan_options_default(void)
{
    igemm_plan_options_t o;
    memset(&o, 0, sizeof o);
    o.path = IGEMM_PATH_AUTO;
    o.device = -1;
    return o;
}

/* ---------------------------------------------------------------- validation */

static int mul_ok(int64_t a, int64_t b, int64_t *out) { return !__builtin_mul_overflow(a, b, out); }
static int add_ok(int64_t a, int64_t b, int64_t *out) { return !__builtin_add_overflow(a, b, out); }

#define REQUIRE_GE(field, lo)                                                              \
    do {                                                                                   \
        if (d->field < (lo))                                                               \
            return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, #field " = %lld: must be >= %d", \
                                   (long long)d->field, (int)(lo));                        \
    } while (0)

/* One output extent: (in + pb + pe - dil*(f-1) - 1) / stride + 1, overflow-checked. */
static igemm_status_t out_extent(const char *dim, int64_t in, int64_t pb, int64_t pe, int64_t f,
                                 int64_t dil, int64_t stride, const char *fname, int64_t *out)
{
    int64_t padded, span;
    if (!add_ok(in, pb, &padded) || !add_ok(padded, pe, &padded))
        return igemm_set_error(IGEMM_STATUS_OVERFLOW, "%s + padding overflows 64 bits", dim);
    if (!mul_ok(dil, f - 1, &span) || !add_ok(span, 1, &span))
        return igemm_set_error(IGEMM_STATUS_OVERFLOW, "dilated %s extent overflows 64 bits", fname);
    if (padded < span)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,
                               "%s = %lld with padding %lld+%lld is smaller than the dilated filter "
                               "extent %lld: the output would be empty",
                               dim, (long long)in, (long long)pb, (long long)pe, (long long)span);
    *out = (padded - span) / stride + 1;
    return IGEMM_STATUS_SUCCESS;
}

/* Validates desc and fills the geometry part of params (if not NULL). */
static igemm_status_t validate_desc(const igemm_conv2d_desc_t *d, igemm_conv_params_t *params)
{
    igemm_status_t st;
    int64_t p, q, t;

    if (d == NULL) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "desc = NULL: a descriptor is required");
    REQUIRE_GE(n, 1);
    REQUIRE_GE(h, 1);
    REQUIRE_GE(w, 1);
    REQUIRE_GE(c, 1);
    REQUIRE_GE(k, 1);
    REQUIRE_GE(r, 1);
    REQUIRE_GE(s, 1);
    REQUIRE_GE(groups, 1);
    REQUIRE_GE(pad_top, 0);
    REQUIRE_GE(pad_bottom, 0);
    REQUIRE_GE(pad_left, 0);
    REQUIRE_GE(pad_right, 0);
    REQUIRE_GE(stride_h, 1);
    REQUIRE_GE(stride_w, 1);
    REQUIRE_GE(dil_h, 1);
    REQUIRE_GE(dil_w, 1);
    if (d->c % d->groups != 0)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "groups = %lld: must divide c = %lld",
                               (long long)d->groups, (long long)d->c);
    if (d->k % d->groups != 0)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "groups = %lld: must divide k = %lld",
                               (long long)d->groups, (long long)d->k);
    if ((int)d->x_dtype == IGEMM_DTYPE_F32)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                               "x_dtype = 2 (f32): inputs must be f16 or bf16");
    if ((int)d->x_dtype != IGEMM_DTYPE_F16 && (int)d->x_dtype != IGEMM_DTYPE_BF16)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,
                               "x_dtype = %d: not a dtype (f16 = 0, bf16 = 1)", (int)d->x_dtype);
    if ((int)d->w_dtype != (int)d->x_dtype)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,
                               "w_dtype = %d (%s): must equal x_dtype = %d (%s)", (int)d->w_dtype,
                               dtype_name(d->w_dtype), (int)d->x_dtype, dtype_name(d->x_dtype));
    if ((int)d->y_dtype != IGEMM_DTYPE_F16 && (int)d->y_dtype != IGEMM_DTYPE_BF16 &&
        (int)d->y_dtype != IGEMM_DTYPE_F32)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,
                               "y_dtype = %d: not a dtype (f16 = 0, bf16 = 1, f32 = 2)", (int)d->y_dtype);

    st = out_extent("h", d->h, d->pad_top, d->pad_bottom, d->r, d->dil_h, d->stride_h, "r", &p);
    if (st) return st;
    st = out_extent("w", d->w, d->pad_left, d->pad_right, d->s, d->dil_w, d->stride_w, "s", &q);
    if (st) return st;

    /* element counts and byte sizes of every tensor must fit in int64 */
    int64_t x_el, w_el, y_el, m, gk, bytes;
    if (!mul_ok(d->n, d->h, &t) || !mul_ok(t, d->w, &t) || !mul_ok(t, d->c, &x_el) ||
        !mul_ok(x_el, 2, &bytes))
        return igemm_set_error(IGEMM_STATUS_OVERFLOW,
                               "x size n*h*w*c = %lld*%lld*%lld*%lld overflows 64 bits", (long long)d->n,
                               (long long)d->h, (long long)d->w, (long long)d->c);
    if (!mul_ok(d->r, d->s, &t) || !mul_ok(t, d->c / d->groups, &gk) || !mul_ok(gk, d->k, &w_el) ||
        !mul_ok(w_el, 2, &bytes))
        return igemm_set_error(IGEMM_STATUS_OVERFLOW,
                               "w size k*r*s*(c/groups) = %lld*%lld*%lld*%lld overflows 64 bits",
                               (long long)d->k, (long long)d->r, (long long)d->s,
                               (long long)(d->c / d->groups));
    if (!mul_ok(d->n, p, &t) || !mul_ok(t, q, &m) || !mul_ok(m, d->k, &y_el) ||
        !mul_ok(y_el, 4, &bytes))
        return igemm_set_error(IGEMM_STATUS_OVERFLOW,
                               "y size n*p*q*k = %lld*%lld*%lld*%lld overflows 64 bits", (long long)d->n,
                               (long long)p, (long long)q, (long long)d->k);
    if (params) {
        memset(params, 0, sizeof *params);
        params->n = d->n; params->h = d->h; params->w = d->w; params->c = d->c;
        params->k = d->k; params->r = d->r; params->s = d->s; params->groups = d->groups;
        params->p = p; params->q = q;
        params->cg = d->c / d->groups; params->kg = d->k / d->groups;
        params->pad_top = d->pad_top; params->pad_bottom = d->pad_bottom;
        params->pad_left = d->pad_left; params->pad_right = d->pad_right;
        params->stride_h = d->stride_h; params->stride_w = d->stride_w;
        params->dil_h = d->dil_h; params->dil_w = d->dil_w;
        params->gemm_m = m; params->gemm_n = params->kg; params->gemm_k = gk;
        params->in_dtype = d->x_dtype; params->out_dtype = d->y_dtype;
    }
    return IGEMM_STATUS_SUCCESS;
}

static igemm_status_t validate_epilogue(const igemm_epilogue_t *e)
{
    if ((int)e->activation < IGEMM_ACT_NONE || (int)e->activation > IGEMM_ACT_TANH)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,
                               "epilogue.activation = %d: not an igemm_activation_t (0..8)",
                               (int)e->activation);
    if (!isfinite(e->alpha))
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "epilogue.alpha = %g: must be finite", (double)e->alpha);
    if (!isfinite(e->beta))
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "epilogue.beta = %g: must be finite", (double)e->beta);
    if (!isfinite(e->act_param))
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "epilogue.act_param = %g: must be finite",
                               (double)e->act_param);
    if (e->has_scale != 0 && e->has_scale != 1)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "epilogue.has_scale = %d: must be 0 or 1", e->has_scale);
    if (e->has_bias != 0 && e->has_bias != 1)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "epilogue.has_bias = %d: must be 0 or 1", e->has_bias);
    if (e->has_residual != 0 && e->has_residual != 1)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "epilogue.has_residual = %d: must be 0 or 1",
                               e->has_residual);
    return IGEMM_STATUS_SUCCESS;
}

IGEMM_API igemm_status_t igemm_conv2d_validate(const igemm_conv2d_desc_t *desc)
{
    clear_error();
    return validate_desc(desc, NULL);
}

IGEMM_API igemm_status_t igemm_conv2d_output_dims(const igemm_conv2d_desc_t *desc, int64_t *p, int64_t *q)
{
    igemm_conv_params_t prm;
    clear_error();
    if (p == NULL || q == NULL)
        return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "%s = NULL: output pointer is required",
                               p == NULL ? "p" : "q");
    igemm_status_t st = validate_desc(desc, &prm);
    if (st) return st;
    *p = prm.p;
    *q = prm.q;
    return IGEMM_STATUS_SUCCESS;
}

IGEMM_API igemm_status_t igemm_conv2d_sizes(const igemm_conv2d_desc_t *desc, int64_t *x_elems,
                                            int64_t *w_elems, int64_t *y_elems)
{
    igemm_conv_params_t prm;
    clear_error();
    igemm_status_t st = validate_desc(desc, &prm);
    if (st) return st;
    if (x_elems) *x_elems = prm.n * prm.h * prm.w * prm.c;
    if (w_elems) *w_elems = prm.k * prm.r * prm.s * prm.cg;
    if (y_elems) *y_elems = prm.gemm_m * prm.k;
    return IGEMM_STATUS_SUCCESS;
}

/* Used by the CPU reference (src/ref) to share validation and derived geometry. */
igemm_status_t igemm_internal_params(const igemm_conv2d_desc_t *desc, const igemm_epilogue_t *epi,
                                     igemm_conv_params_t *params)
{
    igemm_epilogue_t def = igemm_epilogue_default();
    igemm_status_t st = validate_desc(desc, params);
    if (st) return st;
    if (epi == NULL) epi = &def;
    st = validate_epilogue(epi);
    if (st) return st;
    params->alpha = epi->alpha;
    params->beta = epi->beta;
    params->act = (int)epi->activation;
    params->act_param = epi->act_param;
    params->has_scale = epi->has_scale;
    params->has_bias = epi->has_bias;
    params->has_residual = epi->has_residual;
    return IGEMM_STATUS_SUCCESS;
}

/* ---------------------------------------------------------------- devices */

IGEMM_API int igemm_device_count(void)
{
#ifdef IGEMM_HAVE_CUDA
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the sticky-free error state */
        return 0;
    }
    return n;
#else
    return 0;
#endif
}

#ifdef IGEMM_HAVE_CUDA
static igemm_status_t cuda_fail(const char *what, cudaError_t e)
{
    (void)cudaGetLastError();
    return igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "%s failed: %s (%s)", what, cudaGetErrorString(e),
                           cudaGetErrorName(e));
}

static igemm_status_t query_device(int ordinal, igemm_device_info_t *dev)
{
    cudaError_t e;
    int v;
    memset(dev, 0, sizeof *dev);
    dev->ordinal = ordinal;
    if ((e = cudaDeviceGetAttribute(&dev->cc_major, cudaDevAttrComputeCapabilityMajor, ordinal))) return cuda_fail("cudaDeviceGetAttribute(cc major)", e);
    if ((e = cudaDeviceGetAttribute(&dev->cc_minor, cudaDevAttrComputeCapabilityMinor, ordinal))) return cuda_fail("cudaDeviceGetAttribute(cc minor)", e);
    if ((e = cudaDeviceGetAttribute(&dev->sm_count, cudaDevAttrMultiProcessorCount, ordinal))) return cuda_fail("cudaDeviceGetAttribute(SM count)", e);
    if ((e = cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal))) return cuda_fail("cudaDeviceGetAttribute(smem opt-in)", e);
    dev->smem_optin_per_block = v;
    if ((e = cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, ordinal))) return cuda_fail("cudaDeviceGetAttribute(L2 size)", e);
    dev->l2_bytes = v;
    struct cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, ordinal) == cudaSuccess) {
        snprintf(dev->name, sizeof dev->name, "%s (sm_%d%d, %d SMs)", prop.name, dev->cc_major,
                 dev->cc_minor, dev->sm_count);
    } else {
        (void)cudaGetLastError();
        snprintf(dev->name, sizeof dev->name, "device %d (sm_%d%d)", ordinal, dev->cc_major, dev->cc_minor);
    }
    return IGEMM_STATUS_SUCCESS;
}
#endif

/* ---------------------------------------------------------------- plans */

IGEMM_API igemm_status_t igemm_plan_create(igemm_plan_t **plan_out, const igemm_conv2d_desc_t *desc,
                                           const igemm_epilogue_t *epi, const igemm_plan_options_t *opts)
{
    igemm_plan_options_t defopts = igemm_plan_options_default();
    igemm_status_t st;
    clear_error();
    if (plan_out == NULL)
        return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "plan = NULL: a place to store the plan is required");
    *plan_out = NULL;
    if (opts == NULL) opts = &defopts;
    if ((int)opts->path < IGEMM_PATH_AUTO || (int)opts->path > IGEMM_PATH_DIRECT)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "options.path = %d: not an igemm_path_t (0..3)",
                               (int)opts->path);
    if (opts->device < -1)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "options.device = %d: must be >= -1", opts->device);

    igemm_plan_t *plan = (igemm_plan_t *)calloc(1, sizeof *plan);
    if (plan == NULL) return igemm_set_error(IGEMM_STATUS_OUT_OF_MEMORY, "plan: host allocation failed");
    st = igemm_internal_params(desc, epi, &plan->params);
    if (st) goto fail;

#ifdef IGEMM_HAVE_CUDA
    {
        int count = igemm_device_count(), ordinal = opts->device;
        cudaError_t e;
        if (count <= 0) {
            st = igemm_set_error(IGEMM_STATUS_NO_DEVICE,
                                 "the CUDA driver reports no usable GPU (igemm_conv2d_reference, the CPU path, still works)");
            goto fail;
        }
        if (ordinal >= count) {
            st = igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "options.device = %d: only %d CUDA device(s)",
                                 ordinal, count);
            goto fail;
        }
        if (ordinal < 0 && (e = cudaGetDevice(&ordinal)) != cudaSuccess) {
            st = cuda_fail("cudaGetDevice", e);
            goto fail;
        }
        st = query_device(ordinal, &plan->dev);
        if (st) goto fail;
        st = igemm_planner_choose(plan, opts->path);
        if (st) goto fail;
        size_t ws = plan->cfg.workspace_bytes;
        if (plan->fallback && plan->fallback_cfg.workspace_bytes > ws) ws = plan->fallback_cfg.workspace_bytes;
        if (ws > 0) {
            int prev = -1;
            (void)cudaGetDevice(&prev);
            if (prev != ordinal) cudaSetDevice(ordinal);
            e = cudaMalloc(&plan->workspace, ws);
            if (prev >= 0 && prev != ordinal) cudaSetDevice(prev);
            if (e != cudaSuccess) {
                plan->workspace = NULL;
                (void)cudaGetLastError();
                st = igemm_set_error(IGEMM_STATUS_OUT_OF_MEMORY, "workspace: cudaMalloc of %zu bytes failed: %s",
                                     ws, cudaGetErrorString(e));
                goto fail;
            }
            plan->workspace_bytes = ws;
        }
    }
    *plan_out = plan;
    return IGEMM_STATUS_SUCCESS;
#else
    st = igemm_set_error(IGEMM_STATUS_NO_DEVICE,
                         "this igemm was built without CUDA (no nvcc at build time): GPU plans are unavailable; "
                         "igemm_conv2d_reference still works");
#endif
fail:
    igemm_plan_destroy(plan);
    return st;
}

IGEMM_API void igemm_plan_destroy(igemm_plan_t *plan)
{
    if (plan == NULL) return;
#ifdef IGEMM_HAVE_CUDA
    if (plan->workspace) {
        cudaFree(plan->workspace);
        (void)cudaGetLastError();
    }
#endif
    free(plan);
}

IGEMM_API const char *igemm_plan_describe(const igemm_plan_t *plan)
{
    return plan ? plan->describe : "(null plan)";
}

IGEMM_API igemm_path_t igemm_plan_path(const igemm_plan_t *plan)
{
    return plan && plan->family ? plan->family->path : IGEMM_PATH_AUTO;
}

IGEMM_API size_t igemm_plan_workspace_bytes(const igemm_plan_t *plan)
{
    return plan ? plan->workspace_bytes : 0;
}

static int aligned(const void *ptr, size_t a) { return ((uintptr_t)ptr % a) == 0; }

IGEMM_API igemm_status_t igemm_plan_run(igemm_plan_t *plan, const void *x, const void *w, const float *scale,
                                        const float *bias, const void *residual, void *y, void *stream)
{
    clear_error();
    if (plan == NULL) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "plan = NULL: a plan is required");
    if (x == NULL) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "x = NULL: input tensor pointer is required");
    if (w == NULL) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "w = NULL: filter tensor pointer is required");
    if (y == NULL) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "y = NULL: output tensor pointer is required");
    igemm_conv_params_t *p = &plan->params;
#define OPERAND(ptr, flag, what)                                                                     \
    do {                                                                                             \
        if (p->flag && (ptr) == NULL)                                                                \
            return igemm_set_error(IGEMM_STATUS_NULL_POINTER,                                        \
                                   #ptr " = NULL: the plan's epilogue has " #flag " = 1");           \
        if (!p->flag && (ptr) != NULL)                                                               \
            return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,                                       \
                                   #ptr " = %p: given, but the plan's epilogue has " #flag " = 0 (" what ")", \
                                   (const void *)(ptr));                                             \
    } while (0)
    OPERAND(scale, has_scale, "pass NULL or create the plan with has_scale = 1");
    OPERAND(bias, has_bias, "pass NULL or create the plan with has_bias = 1");
    OPERAND(residual, has_residual, "pass NULL or create the plan with has_residual = 1");
#undef OPERAND
    size_t osz = dtype_size(p->out_dtype);
    if (!aligned(x, 2)) return igemm_set_error(IGEMM_STATUS_MISALIGNED, "x = %p: must be 2-byte aligned", x);
    if (!aligned(w, 2)) return igemm_set_error(IGEMM_STATUS_MISALIGNED, "w = %p: must be 2-byte aligned", w);
    if (!aligned(y, osz))
        return igemm_set_error(IGEMM_STATUS_MISALIGNED, "y = %p: must be %zu-byte aligned (%s)", y, osz,
                               dtype_name(p->out_dtype));
    if (residual && !aligned(residual, osz))
        return igemm_set_error(IGEMM_STATUS_MISALIGNED, "residual = %p: must be %zu-byte aligned (%s)", residual,
                               osz, dtype_name(p->out_dtype));
    if (scale && !aligned(scale, 4)) return igemm_set_error(IGEMM_STATUS_MISALIGNED, "scale = %p: must be 4-byte aligned", (const void *)scale);
    if (bias && !aligned(bias, 4)) return igemm_set_error(IGEMM_STATUS_MISALIGNED, "bias = %p: must be 4-byte aligned", (const void *)bias);

    igemm_conv_params_t run = *p;
    run.x = x;
    run.filter = w;
    run.scale = scale;
    run.bias = bias;
    run.residual = residual;
    run.y = y;
#ifdef IGEMM_HAVE_CUDA
    const igemm_family_t *f = plan->family;
    const igemm_kernel_config_t *cfg = &plan->cfg;
    void *state = plan->state;
    if (igemm_family_needs_16b(f) &&
        !(aligned(x, 16) && aligned(w, 16) && aligned(y, 16) && (residual == NULL || aligned(residual, 16)))) {
        if (plan->fallback == NULL)
            return igemm_set_error(IGEMM_STATUS_MISALIGNED,
                                   "x, w, y, residual must be 16-byte aligned for the %s path and no fallback exists",
                                   f->name);
        f = plan->fallback;
        cfg = &plan->fallback_cfg;
        state = plan->fallback_state;
    }
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess) {
        (void)cudaGetLastError();
        cur = -1;
    }
    if (cur != plan->dev.ordinal)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,
                               "current device = %d: the plan was created for device %d (call cudaSetDevice)", cur,
                               plan->dev.ordinal);
    return f->run(&run, cfg, plan->workspace, state, stream);
#else
    (void)stream;
    (void)run;
    return igemm_set_error(IGEMM_STATUS_NO_DEVICE, "this igemm was built without CUDA");
#endif
}
