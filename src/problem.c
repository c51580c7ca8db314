/*
 * problem.c — validation of a conv2d descriptor and epilogue (every field, with the value in
 * the message), overflow-safe 64-bit derived sizes, and the derived problem (problem.h) that
 * the planner and every family work on. Ground floor: calls only error.c.
 */
#include "problem.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "error.h"

const char *igemm_dtype_name(int d)
{
    switch (d) {
    case IGEMM_DTYPE_F16: return "f16";
    case IGEMM_DTYPE_BF16: return "bf16";
    case IGEMM_DTYPE_F32: return "f32";
    }
    return "unknown";
}

size_t igemm_dtype_size(int d) { return d == IGEMM_DTYPE_F32 ? 4 : 2; }

igemm_conv2d_desc_t igemm_problem_desc_default(void)
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

igemm_epilogue_t igemm_problem_epilogue_default(void)
{
    igemm_epilogue_t e;
    memset(&e, 0, sizeof e);
    e.alpha = 1.0f;
    e.beta = 1.0f;
    e.activation = IGEMM_ACT_NONE;
    e.act_param = 0.01f;
    return e;
}



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
    if (!igemm_add_ok(in, pb, &padded) || !igemm_add_ok(padded, pe, &padded))
        return igemm_set_error(IGEMM_STATUS_OVERFLOW, "%s + padding overflows 64 bits", dim);
    if (!igemm_mul_ok(dil, f - 1, &span) || !igemm_add_ok(span, 1, &span))
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
                               igemm_dtype_name(d->w_dtype), (int)d->x_dtype, igemm_dtype_name(d->x_dtype));
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
    if (!igemm_mul_ok(d->n, d->h, &t) || !igemm_mul_ok(t, d->w, &t) || !igemm_mul_ok(t, d->c, &x_el) ||
        !igemm_mul_ok(x_el, 2, &bytes))
        return igemm_set_error(IGEMM_STATUS_OVERFLOW,
                               "x size n*h*w*c = %lld*%lld*%lld*%lld overflows 64 bits", (long long)d->n,
                               (long long)d->h, (long long)d->w, (long long)d->c);
    if (!igemm_mul_ok(d->r, d->s, &t) || !igemm_mul_ok(t, d->c / d->groups, &gk) || !igemm_mul_ok(gk, d->k, &w_el) ||
        !igemm_mul_ok(w_el, 2, &bytes))
        return igemm_set_error(IGEMM_STATUS_OVERFLOW,
                               "w size k*r*s*(c/groups) = %lld*%lld*%lld*%lld overflows 64 bits",
                               (long long)d->k, (long long)d->r, (long long)d->s,
                               (long long)(d->c / d->groups));
    if (!igemm_mul_ok(d->n, p, &t) || !igemm_mul_ok(t, q, &m) || !igemm_mul_ok(m, d->k, &y_el) ||
        !igemm_mul_ok(y_el, 4, &bytes))
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

igemm_status_t igemm_problem_validate_epilogue(const igemm_epilogue_t *e)
{
    if ((int)e->activation < IGEMM_ACT_NONE || (int)e->activation > IGEMM_ACT_HARDSIGMOID)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,
                               "epilogue.activation = %d: not an igemm_activation_t (0..10)",
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

igemm_status_t igemm_problem_init(const igemm_conv2d_desc_t *desc, const igemm_epilogue_t *epi,
                                  igemm_conv_params_t *params)
{
    igemm_status_t st = validate_desc(desc, params);
    if (st) return st;
    if (epi == NULL) {
        const igemm_epilogue_t def = igemm_problem_epilogue_default();
        if (params) {
            params->alpha = def.alpha;
            params->beta = def.beta;
            params->act = (int)def.activation;
            params->act_param = def.act_param;
        }
        return IGEMM_STATUS_SUCCESS;
    }
    st = igemm_problem_validate_epilogue(epi);
    if (st) return st;
    if (params) {
        params->alpha = epi->alpha;
        params->beta = epi->beta;
        params->act = (int)epi->activation;
        params->act_param = epi->act_param;
        params->has_scale = epi->has_scale;
        params->has_bias = epi->has_bias;
        params->has_residual = epi->has_residual;
    }
    return IGEMM_STATUS_SUCCESS;
}
