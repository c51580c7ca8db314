/*
 * api.c — the public entry points, and nothing else: each checks its arguments, clears the
 * thread's error message and hands the work down (problem.c: validation and sizes; plan.c:
 * the planner; device.c: devices; ref/: the CPU reference).
 *
 * Nothing here aborts, exits or prints. Every failure returns a status and leaves a message
 * naming the field and the value in a thread-local buffer (igemm_last_error).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "internal.h"
#include "plan.h"
#include "gemm_problem.h"
#include "ref/conv2d_ref.h"
#include "ref/gemm_ref.h"

#ifdef IGEMM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

#define STR2(x) #x
#define STR(x) STR2(x)

IGEMM_API const char *igemm_version_string(void)
{
    return STR(IGEMM_VERSION_MAJOR) "." STR(IGEMM_VERSION_MINOR) "." STR(IGEMM_VERSION_PATCH);
}

/* ---------------------------------------------------------------- defaults */

IGEMM_API igemm_conv2d_desc_t igemm_conv2d_desc_default(void) { return igemm_problem_desc_default(); }

IGEMM_API igemm_epilogue_t igemm_epilogue_default(void) { return igemm_problem_epilogue_default(); }

IGEMM_API igemm_plan_options_t igemm_plan_options_default(void)
{
    igemm_plan_options_t o;
    memset(&o, 0, sizeof o);
    o.path = IGEMM_PATH_AUTO;
    o.device = -1;
    o.hints = NULL;
    return o;
}

IGEMM_API igemm_plan_hints_t igemm_plan_hints_default(void)
{
    igemm_plan_hints_t h;
    memset(&h, 0, sizeof h);
    return h;
}

IGEMM_API igemm_status_t igemm_plan_hints_parse(const char *text, igemm_plan_hints_t *hints)
{
    igemm_clear_error();
    return igemm_hints_parse(text, hints);
}

/* ---------------------------------------------------------------- problems */

IGEMM_API igemm_status_t igemm_conv2d_validate(const igemm_conv2d_desc_t *desc)
{
    igemm_clear_error();
    return igemm_problem_init(desc, NULL, NULL);
}

IGEMM_API igemm_status_t igemm_conv2d_output_dims(const igemm_conv2d_desc_t *desc, int64_t *p, int64_t *q)
{
    igemm_conv_params_t prm;
    igemm_clear_error();
    if (p == NULL || q == NULL)
        return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "%s = NULL: output pointer is required",
                               p == NULL ? "p" : "q");
    igemm_status_t st = igemm_problem_init(desc, NULL, &prm);
    if (st) return st;
    *p = prm.p;
    *q = prm.q;
    return IGEMM_STATUS_SUCCESS;
}

IGEMM_API igemm_status_t igemm_conv2d_sizes(const igemm_conv2d_desc_t *desc, int64_t *x_elems,
                                            int64_t *w_elems, int64_t *y_elems)
{
    igemm_conv_params_t prm;
    igemm_clear_error();
    igemm_status_t st = igemm_problem_init(desc, NULL, &prm);
    if (st) return st;
    if (x_elems) *x_elems = prm.n * prm.h * prm.w * prm.c;
    if (w_elems) *w_elems = prm.k * prm.r * prm.s * prm.cg;
    if (y_elems) *y_elems = prm.gemm_m * prm.k;
    return IGEMM_STATUS_SUCCESS;
}

IGEMM_API igemm_status_t igemm_conv2d_reference(const igemm_conv2d_desc_t *desc, const igemm_epilogue_t *epi,
                                                const void *x, const void *w, const float *scale,
                                                const float *bias, const void *residual, void *y)
{
    igemm_conv_params_t p;
    igemm_clear_error();
    igemm_status_t st = igemm_problem_init(desc, epi, &p);
    if (st) return st;
    return igemm_ref_conv2d(&p, x, w, scale, bias, residual, y);
}

IGEMM_API igemm_status_t igemm_conv2d_reference_elems(const igemm_conv2d_desc_t *desc, const igemm_epilogue_t *epi,
                                                      const void *x, const void *w, const float *scale,
                                                      const float *bias, const void *residual, const int64_t *idx,
                                                      int64_t count, double *out)
{
    igemm_conv_params_t p;
    igemm_clear_error();
    igemm_status_t st = igemm_problem_init(desc, epi, &p);
    if (st) return st;
    return igemm_ref_conv2d_elems(&p, x, w, scale, bias, residual, idx, count, out);
}

/* ---------------------------------------------------------------- GEMM problems */

IGEMM_API igemm_gemm_desc_t igemm_gemm_desc_packed(int64_t m, int64_t n, int64_t k, int64_t batch,
                                                   igemm_b_layout_t b_layout, igemm_dtype_t in_dtype,
                                                   igemm_dtype_t out_dtype)
{
    return igemm_gemm_problem_packed(m, n, k, batch, (int)b_layout, in_dtype, out_dtype);
}

IGEMM_API igemm_status_t igemm_gemm_validate(const igemm_gemm_desc_t *desc)
{
    igemm_clear_error();
    return igemm_gemm_problem_init(desc, NULL, NULL);
}

IGEMM_API igemm_status_t igemm_gemm_sizes(const igemm_gemm_desc_t *desc, int64_t *a_elems, int64_t *b_elems,
                                          int64_t *d_elems)
{
    igemm_gemm_params_t p;
    igemm_clear_error();
    igemm_status_t st = igemm_gemm_problem_init(desc, NULL, &p);
    if (st) return st;
    if (a_elems) *a_elems = p.a_elems;
    if (b_elems) *b_elems = p.b_elems;
    if (d_elems) *d_elems = p.d_elems;
    return IGEMM_STATUS_SUCCESS;
}

IGEMM_API igemm_status_t igemm_gemm_reference(const igemm_gemm_desc_t *desc, const igemm_epilogue_t *epi,
                                              const void *a, const void *b, const float *scale, const float *bias,
                                              const void *c, void *d)
{
    igemm_gemm_params_t p;
    igemm_clear_error();
    igemm_status_t st = igemm_gemm_problem_init(desc, epi, &p);
    if (st) return st;
    return igemm_ref_gemm(&p, a, b, scale, bias, c, d);
}

/* ---------------------------------------------------------------- devices */

IGEMM_API int igemm_device_count(void) { return igemm_device_count_query(); }

/* ---------------------------------------------------------------- plans */

/* A new plan of desc / epi on the options' device: options checked, the host object allocated
 * (64-byte aligned: the families' state, plan.h), the problem validated, the device queried.
 * The caller chooses the families. Returns SUCCESS or the error (message set; *plan_out NULL). */
static igemm_status_t plan_new(igemm_plan_t **plan_out, const igemm_conv2d_desc_t *desc, const igemm_epilogue_t *epi,
                               const igemm_plan_options_t *opts)
{
    igemm_status_t st;
    *plan_out = NULL;
    if ((int)opts->path < IGEMM_PATH_AUTO || (int)opts->path > IGEMM_PATH_SM100)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "options.path = %d: not an igemm_path_t (0..5)",
                               (int)opts->path);
    if (opts->device < -1)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "options.device = %d: must be >= -1", opts->device);
    st = igemm_hints_validate(opts->hints);
    if (st) return st;

    /* aligned_alloc wants a multiple of 64 */
    igemm_plan_t *plan = (igemm_plan_t *)aligned_alloc(64, (sizeof *plan + 63) & ~(size_t)63);
    if (plan == NULL) return igemm_set_error(IGEMM_STATUS_OUT_OF_MEMORY, "plan: host allocation failed");
    memset(plan, 0, sizeof *plan);
    st = igemm_problem_init(desc, epi ? epi : NULL, &plan->params);
    if (st) goto fail;
    if (opts->hints) plan->hints = *opts->hints;
#ifdef IGEMM_HAVE_CUDA
    {
        int count = igemm_device_count_query(), ordinal = opts->device;
        if (count <= 0) {
            st = igemm_set_error(IGEMM_STATUS_NO_DEVICE,
                                 "the CUDA driver reports no usable GPU (igemm_conv2d_reference, the CPU path, still works)");
            goto fail;
        }
        if (ordinal >= count) {
            st = igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "options.device = %d: only %d CUDA device(s)", ordinal,
                                 count);
            goto fail;
        }
        if (ordinal < 0 && (ordinal = igemm_device_current()) < 0) {
            st = igemm_set_error(IGEMM_STATUS_CUDA_ERROR, "cudaGetDevice failed: no current device");
            goto fail;
        }
        st = igemm_device_query(ordinal, &plan->dev);
        if (st) goto fail;
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

IGEMM_API igemm_status_t igemm_plan_create(igemm_plan_t **plan_out, const igemm_conv2d_desc_t *desc,
                                           const igemm_epilogue_t *epi, const igemm_plan_options_t *opts)
{
    igemm_plan_options_t defopts = igemm_plan_options_default();
    igemm_clear_error();
    if (plan_out == NULL)
        return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "plan = NULL: a place to store the plan is required");
    *plan_out = NULL;
    igemm_plan_t *plan = NULL;
    igemm_status_t st = plan_new(&plan, desc, epi, opts ? opts : &defopts);
    if (st) return st;
#ifdef IGEMM_HAVE_CUDA
    st = igemm_planner_choose(plan, (opts ? opts : &defopts)->path);
    if (st) goto fail;
    if (plan->workspace_bytes > 0) {
        const int ordinal = plan->dev.ordinal, prev = igemm_device_current();
        if (prev != ordinal) cudaSetDevice(ordinal);
        cudaError_t e = cudaMalloc(&plan->workspace, plan->workspace_bytes);
        if (prev >= 0 && prev != ordinal) cudaSetDevice(prev);
        if (e != cudaSuccess) {
            plan->workspace = NULL;
            (void)cudaGetLastError();
            st = igemm_set_error(IGEMM_STATUS_OUT_OF_MEMORY, "workspace: cudaMalloc of %zu bytes failed: %s",
                                 plan->workspace_bytes, cudaGetErrorString(e));
            goto fail;
        }
    }
    *plan_out = plan;
    return IGEMM_STATUS_SUCCESS;
fail:
#endif
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
    return plan && plan->main.family ? plan->main.family->path : IGEMM_PATH_AUTO;
}

IGEMM_API size_t igemm_plan_workspace_bytes(const igemm_plan_t *plan)
{
    return plan ? plan->workspace_bytes : 0;
}

static int aligned(const void *ptr, size_t a) { return ((uintptr_t)ptr % a) == 0; }

/* The plan of a GEMM the conv engine cannot read (why: igemm_gemm_conv_mapping's reason): the
 * strided GEMM kernel (src/sm80/gemm_strided.cu) for the whole batch. Its epilogue checks and
 * dtypes come from the proxy conv of the same M, N, K. Returns SUCCESS or the error. */
static igemm_status_t gemm_strided_plan(igemm_plan_t **plan_out, const igemm_gemm_params_t *g,
                                        const igemm_epilogue_t *epi, const igemm_plan_options_t *opts, const char *why)
{
    igemm_plan_options_t defopts = igemm_plan_options_default();
    if (opts == NULL) opts = &defopts;
    if (opts->path != IGEMM_PATH_AUTO && opts->path != IGEMM_PATH_GENERAL)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                               "gemm: options.path = %d: only the strided GEMM kernel (path AUTO or GENERAL) takes this "
                               "GEMM: %s", (int)opts->path, why);
    const igemm_plan_hints_t zero = igemm_plan_hints_default();
    if (opts->hints && memcmp(opts->hints, &zero, sizeof zero) != 0)
        return igemm_set_error(IGEMM_STATUS_NOT_SUPPORTED,
                               "gemm: plan hints name conv-engine settings, and this GEMM runs on the strided GEMM "
                               "kernel, which takes none (%s)", why);
    igemm_conv2d_desc_t proxy = igemm_conv2d_desc_default();
    proxy.w = g->m, proxy.c = g->k, proxy.k = g->n;
    proxy.x_dtype = proxy.w_dtype = g->in_dtype;
    proxy.y_dtype = g->out_dtype;
    igemm_plan_t *plan = NULL;
    igemm_status_t st = plan_new(&plan, &proxy, epi, opts);
    if (st) return st;
    igemm_planner_gemm_strided(plan, g, why);
    *plan_out = plan;
    return IGEMM_STATUS_SUCCESS;
}

IGEMM_API igemm_status_t igemm_gemm_plan_create(igemm_plan_t **plan_out, const igemm_gemm_desc_t *desc,
                                                const igemm_epilogue_t *epi, const igemm_plan_options_t *opts)
{
    igemm_clear_error();
    if (plan_out == NULL)
        return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "plan = NULL: a place to store the plan is required");
    *plan_out = NULL;
    igemm_gemm_params_t g;
    igemm_status_t st = igemm_gemm_problem_init(desc, epi, &g);
    if (st) return st;
    igemm_conv2d_desc_t conv;
    int64_t launches, step[3];
    const char *why = NULL;
    igemm_plan_t *plan = NULL;
    if (!igemm_gemm_conv_mapping(&g, &conv, &launches, step, &why))
        return gemm_strided_plan(plan_out, &g, epi, opts, why);
    st = igemm_plan_create(&plan, &conv, epi, opts);
    if (st) return st;
    plan->gemm_launches = launches;
    memcpy(plan->gemm_step, step, sizeof plan->gemm_step);
    char head[256];
    snprintf(head, sizeof head, "GEMM %lld x %lld x %lld, batch %lld (%s), as a 1x1 conv of %lld rows: ",
             (long long)g.m, (long long)g.n, (long long)g.k, (long long)g.batch,
             launches > 1 ? "one launch per matrix" : g.batch > 1 ? "B shared: batch folded into M" : "one matrix",
             (long long)conv.w);
    const size_t hl = strlen(head), cap = sizeof plan->describe;
    memmove(plan->describe + hl, plan->describe, cap - hl - 1);
    plan->describe[cap - 1] = '\0';
    memcpy(plan->describe, head, hl);
    *plan_out = plan;
    return IGEMM_STATUS_SUCCESS;
}

IGEMM_API igemm_status_t igemm_plan_run(igemm_plan_t *plan, const void *x, const void *w, const float *scale,
                                        const float *bias, const void *residual, void *y, void *stream)
{
    igemm_clear_error();
    if (plan == NULL) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "plan = NULL: a plan is required");
    if (x == NULL) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "x = NULL: input tensor pointer is required");
    if (w == NULL) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "w = NULL: filter tensor pointer is required");
    if (y == NULL) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "y = NULL: output tensor pointer is required");
    const igemm_conv_params_t *p = &plan->params;
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
    const size_t osz = igemm_dtype_size(p->out_dtype);
    if (!aligned(x, 2)) return igemm_set_error(IGEMM_STATUS_MISALIGNED, "x = %p: must be 2-byte aligned", x);
    if (!aligned(w, 2)) return igemm_set_error(IGEMM_STATUS_MISALIGNED, "w = %p: must be 2-byte aligned", w);
    if (!aligned(y, osz))
        return igemm_set_error(IGEMM_STATUS_MISALIGNED, "y = %p: must be %zu-byte aligned (%s)", y, osz,
                               igemm_dtype_name(p->out_dtype));
    if (residual && !aligned(residual, osz))
        return igemm_set_error(IGEMM_STATUS_MISALIGNED, "residual = %p: must be %zu-byte aligned (%s)", residual, osz,
                               igemm_dtype_name(p->out_dtype));
    if (scale && !aligned(scale, 4))
        return igemm_set_error(IGEMM_STATUS_MISALIGNED, "scale = %p: must be 4-byte aligned", (const void *)scale);
    if (bias && !aligned(bias, 4))
        return igemm_set_error(IGEMM_STATUS_MISALIGNED, "bias = %p: must be 4-byte aligned", (const void *)bias);

    igemm_conv_params_t run = *p;
    run.x = x;
    run.filter = w;
    run.scale = scale;
    run.bias = bias;
    run.residual = residual;
    run.y = y;
#ifdef IGEMM_HAVE_CUDA
    const int cur = igemm_device_current();
    if (cur != plan->dev.ordinal)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,
                               "current device = %d: the plan was created for device %d (call cudaSetDevice)", cur,
                               plan->dev.ordinal);
    if (plan->gemm_launches > 1) { /* a GEMM batch: one conv per matrix */
        for (int64_t i = 0; i < plan->gemm_launches; i++) {
            run.x = (const char *)x + i * plan->gemm_step[0];
            run.filter = (const char *)w + i * plan->gemm_step[1];
            run.y = (char *)y + i * plan->gemm_step[2];
            run.residual = residual ? (const char *)residual + i * plan->gemm_step[2] : NULL;
            const igemm_status_t st = igemm_planner_run(plan, &run, stream);
            if (st) return st;
        }
        return IGEMM_STATUS_SUCCESS;
    }
    return igemm_planner_run(plan, &run, stream);
#else
    (void)stream;
    (void)run;
    return igemm_set_error(IGEMM_STATUS_NO_DEVICE, "this igemm was built without CUDA");
#endif
}
