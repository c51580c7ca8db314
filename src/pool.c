/*
 * pool.c — the pooling entry points: descriptor default, validation (every field, with its
 * value in the message), output dims, and igemm_maxpool2d / igemm_maxpool2d_reference, which
 * check the pointers and hand a validated problem to the kernel (src/mem/pool2d.cu) or the
 * CPU reference (src/ref/pool_ref.c).
 */
#include <stdint.h>
#include <string.h>

#include "pool.h"
#include "ref/pool_ref.h"

#include "error.h"

#define POOL_AT_LEAST(field, lo)                                                                                \
    do {                                                                                                        \
        if (d->field < (lo))                                                                                    \
            return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "pool2d." #field " = %lld: must be >= %d",       \
                                   (long long)d->field, (int)(lo));                                             \
    } while (0)

/* One output extent: (size + pa + pb - dil * (k - 1) - 1) / stride + 1, overflow-checked. */
static igemm_status_t pool_out(const char *what, int64_t size, int64_t pa, int64_t pb, int64_t dil, int64_t k,
                               int64_t stride, int64_t *out)
{
    int64_t span, padded;
    if (!igemm_mul_ok(dil, k - 1, &span) || !igemm_add_ok(size, pa, &padded) || !igemm_add_ok(padded, pb, &padded))
        return igemm_set_error(IGEMM_STATUS_OVERFLOW, "pool2d: the padded %s extent or the dilated window does not "
                               "fit in 64 bits", what);
    const int64_t rem = padded - span - 1;
    if (rem < 0)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE,
                               "pool2d: the dilated window (%lld taps, dilation %lld) is larger than the padded %s "
                               "extent %lld: the output would be empty",
                               (long long)k, (long long)dil, what, (long long)padded);
    *out = rem / stride + 1;
    return IGEMM_STATUS_SUCCESS;
}

static igemm_status_t elems4(const char *what, int64_t a, int64_t b, int64_t c, int64_t e, int64_t *out)
{
    int64_t t, bytes;
    if (!igemm_mul_ok(a, b, &t) || !igemm_mul_ok(t, c, &t) || !igemm_mul_ok(t, e, &t) || !igemm_mul_ok(t, 2, &bytes))
        return igemm_set_error(IGEMM_STATUS_OVERFLOW, "pool2d: %s = %lld x %lld x %lld x %lld elements do not fit in "
                               "64 bits of bytes", what, (long long)a, (long long)b, (long long)c, (long long)e);
    *out = t;
    return IGEMM_STATUS_SUCCESS;
}

igemm_status_t igemm_pool_problem_init(const igemm_pool2d_desc_t *d, igemm_pool_params_t *params)
{
    if (!d) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "desc is NULL");
    POOL_AT_LEAST(n, 1);
    POOL_AT_LEAST(h, 1);
    POOL_AT_LEAST(w, 1);
    POOL_AT_LEAST(c, 1);
    POOL_AT_LEAST(r, 1);
    POOL_AT_LEAST(s, 1);
    POOL_AT_LEAST(pad_top, 0);
    POOL_AT_LEAST(pad_bottom, 0);
    POOL_AT_LEAST(pad_left, 0);
    POOL_AT_LEAST(pad_right, 0);
    POOL_AT_LEAST(stride_h, 1);
    POOL_AT_LEAST(stride_w, 1);
    POOL_AT_LEAST(dil_h, 1);
    POOL_AT_LEAST(dil_w, 1);
    if (d->dtype != IGEMM_DTYPE_F16 && d->dtype != IGEMM_DTYPE_BF16)
        return igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "pool2d.dtype = %d: expected F16 (0) or BF16 (1)",
                               (int)d->dtype);
    igemm_pool_params_t p;
    memset(&p, 0, sizeof p);
    igemm_status_t st = pool_out("height", d->h, d->pad_top, d->pad_bottom, d->dil_h, d->r, d->stride_h, &p.p);
    if (st == IGEMM_STATUS_SUCCESS)
        st = pool_out("width", d->w, d->pad_left, d->pad_right, d->dil_w, d->s, d->stride_w, &p.q);
    if (st == IGEMM_STATUS_SUCCESS) st = elems4("x", d->n, d->h, d->w, d->c, &p.x_elems);
    if (st == IGEMM_STATUS_SUCCESS) st = elems4("y", d->n, p.p, p.q, d->c, &p.y_elems);
    if (st != IGEMM_STATUS_SUCCESS) return st;
    p.n = d->n, p.h = d->h, p.w = d->w, p.c = d->c, p.r = d->r, p.s = d->s;
    p.pad_top = d->pad_top, p.pad_left = d->pad_left, p.pad_bottom = d->pad_bottom, p.pad_right = d->pad_right;
    p.stride_h = d->stride_h, p.stride_w = d->stride_w, p.dil_h = d->dil_h, p.dil_w = d->dil_w;
    p.dtype = d->dtype;
    if (params) *params = p;
    return IGEMM_STATUS_SUCCESS;
}

IGEMM_API igemm_pool2d_desc_t igemm_pool2d_desc_default(void)
{
    igemm_pool2d_desc_t d;
    memset(&d, 0, sizeof d);
    d.n = d.h = d.w = d.c = d.r = d.s = 1;
    d.stride_h = d.stride_w = d.dil_h = d.dil_w = 1;
    d.dtype = IGEMM_DTYPE_BF16;
    return d;
}

IGEMM_API igemm_status_t igemm_pool2d_validate(const igemm_pool2d_desc_t *desc)
{
    igemm_clear_error();
    return igemm_pool_problem_init(desc, NULL);
}

IGEMM_API igemm_status_t igemm_pool2d_output_dims(const igemm_pool2d_desc_t *desc, int64_t *p, int64_t *q)
{
    igemm_clear_error();
    igemm_pool_params_t pp;
    const igemm_status_t st = igemm_pool_problem_init(desc, &pp);
    if (st != IGEMM_STATUS_SUCCESS) return st;
    if (p) *p = pp.p;
    if (q) *q = pp.q;
    return IGEMM_STATUS_SUCCESS;
}

static igemm_status_t pool_pointers(const void *x, const void *y)
{
    if (x == NULL) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "x = NULL: the input tensor is required");
    if (y == NULL) return igemm_set_error(IGEMM_STATUS_NULL_POINTER, "y = NULL: the output tensor is required");
    if ((uintptr_t)x % 2) return igemm_set_error(IGEMM_STATUS_MISALIGNED, "x = %p: must be 2-byte aligned", x);
    if ((uintptr_t)y % 2) return igemm_set_error(IGEMM_STATUS_MISALIGNED, "y = %p: must be 2-byte aligned", y);
    return IGEMM_STATUS_SUCCESS;
}

/* The entry points' common part: clears the error, validates desc, count_include_pad (avg) and
 * the pointers, fills *p. */
static igemm_status_t pool_prepare(const igemm_pool2d_desc_t *desc, int avg, int count_include_pad, const void *x,
                                   const void *y, igemm_pool_params_t *p)
{
    igemm_clear_error();
    igemm_status_t st = igemm_pool_problem_init(desc, p);
    if (st == IGEMM_STATUS_SUCCESS && avg && count_include_pad != 0 && count_include_pad != 1)
        st = igemm_set_error(IGEMM_STATUS_INVALID_VALUE, "count_include_pad = %d: expected 0 or 1", count_include_pad);
    if (st == IGEMM_STATUS_SUCCESS) st = pool_pointers(x, y);
    return st;
}

#ifndef IGEMM_HAVE_CUDA
static igemm_status_t pool_no_device(void *stream)
{
    (void)stream;
    return igemm_set_error(IGEMM_STATUS_NO_DEVICE, "this igemm was built without CUDA");
}
#endif

IGEMM_API igemm_status_t igemm_maxpool2d_reference(const igemm_pool2d_desc_t *desc, const void *x, void *y)
{
    igemm_pool_params_t p;
    const igemm_status_t st = pool_prepare(desc, 0, 0, x, y, &p);
    if (st != IGEMM_STATUS_SUCCESS) return st;
    igemm_ref_maxpool2d(&p, x, y);
    return IGEMM_STATUS_SUCCESS;
}

IGEMM_API igemm_status_t igemm_maxpool2d(const igemm_pool2d_desc_t *desc, const void *x, void *y, void *stream)
{
    igemm_pool_params_t p;
    const igemm_status_t st = pool_prepare(desc, 0, 0, x, y, &p);
    if (st != IGEMM_STATUS_SUCCESS) return st;
#ifdef IGEMM_HAVE_CUDA
    return igemm_maxpool2d_launch(&p, x, y, stream);
#else
    return pool_no_device(stream);
#endif
}

IGEMM_API igemm_status_t igemm_avgpool2d_reference(const igemm_pool2d_desc_t *desc, int count_include_pad,
                                                   const void *x, void *y)
{
    igemm_pool_params_t p;
    const igemm_status_t st = pool_prepare(desc, 1, count_include_pad, x, y, &p);
    if (st != IGEMM_STATUS_SUCCESS) return st;
    igemm_ref_avgpool2d(&p, count_include_pad, x, y);
    return IGEMM_STATUS_SUCCESS;
}

IGEMM_API igemm_status_t igemm_avgpool2d(const igemm_pool2d_desc_t *desc, int count_include_pad, const void *x,
                                         void *y, void *stream)
{
    igemm_pool_params_t p;
    const igemm_status_t st = pool_prepare(desc, 1, count_include_pad, x, y, &p);
    if (st != IGEMM_STATUS_SUCCESS) return st;
#ifdef IGEMM_HAVE_CUDA
    return igemm_avgpool2d_launch(&p, count_include_pad, x, y, stream);
#else
    return pool_no_device(stream);
#endif
}
