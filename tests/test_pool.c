/*
 * test_pool.c — max pooling: descriptor validation (each bad field named with its value), the CPU
 * reference on a hand-computed case (padding never wins, an empty window gives -inf, NaN wins),
 * and the GPU kernel against the reference bit for bit on random shapes (both dtypes, C % 8 == 0
 * and not, 16-byte aligned and 2-byte aligned pointers, stride, padding, dilation), on values
 * that include NaN and -0, with the output poisoned first and guard bytes around it.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "gpu_problem.h"
#include "igemm.h"
#include "test.h"

static igemm_pool2d_desc_t pool_shape(int64_t n, int64_t h, int64_t w, int64_t c, int64_t r, int64_t stride,
                                      int64_t pad, int64_t dil, igemm_dtype_t dt)
{
    igemm_pool2d_desc_t d = igemm_pool2d_desc_default();
    d.n = n, d.h = h, d.w = w, d.c = c, d.r = r, d.s = r;
    d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = pad;
    d.stride_h = d.stride_w = stride;
    d.dil_h = d.dil_w = dil;
    d.dtype = dt;
    return d;
}

TEST(pool_validation_names_the_field)
{
    igemm_pool2d_desc_t d = pool_shape(2, 112, 112, 64, 3, 2, 1, 1, IGEMM_DTYPE_BF16);
    int64_t p = 0, q = 0;
    CHECK_EQ_INT(igemm_pool2d_output_dims(&d, &p, &q), IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(p, 56);
    CHECK_EQ_INT(q, 56);
    struct {
        int64_t *field;
        int64_t value;
        const char *text;
    } bad[] = {
        {&d.n, 0, "pool2d.n = 0"},          {&d.c, -3, "pool2d.c = -3"},
        {&d.r, 0, "pool2d.r = 0"},          {&d.pad_left, -1, "pool2d.pad_left = -1"},
        {&d.stride_w, 0, "pool2d.stride_w = 0"}, {&d.dil_h, 0, "pool2d.dil_h = 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const int64_t keep = *bad[i].field;
        *bad[i].field = bad[i].value;
        CHECK_EQ_INT(igemm_pool2d_validate(&d), IGEMM_STATUS_INVALID_VALUE);
        CHECK_MSG(strstr(igemm_last_error(), bad[i].text) != NULL, "message '%s' lacks '%s'", igemm_last_error(),
                  bad[i].text);
        *bad[i].field = keep;
    }
    d.dtype = IGEMM_DTYPE_F32;
    CHECK_EQ_INT(igemm_pool2d_validate(&d), IGEMM_STATUS_INVALID_VALUE);
    CHECK(strstr(igemm_last_error(), "pool2d.dtype = 2") != NULL);
    d = pool_shape(1, 2, 2, 8, 5, 1, 0, 1, IGEMM_DTYPE_F16); /* window larger than the input */
    CHECK_EQ_INT(igemm_pool2d_validate(&d), IGEMM_STATUS_INVALID_VALUE);
    CHECK(strstr(igemm_last_error(), "empty") != NULL);
    d = pool_shape(INT64_MAX / 4, 1024, 1024, 64, 1, 1, 0, 1, IGEMM_DTYPE_F16);
    CHECK_EQ_INT(igemm_pool2d_validate(&d), IGEMM_STATUS_OVERFLOW);
    CHECK_EQ_INT(igemm_pool2d_validate(NULL), IGEMM_STATUS_NULL_POINTER);
    d = pool_shape(1, 4, 4, 8, 3, 1, 1, 1, IGEMM_DTYPE_F16);
    uint16_t buf[128];
    CHECK_EQ_INT(igemm_maxpool2d_reference(&d, NULL, buf), IGEMM_STATUS_NULL_POINTER);
    CHECK_EQ_INT(igemm_maxpool2d_reference(&d, buf, (char *)buf + 1), IGEMM_STATUS_MISALIGNED);
}

TEST(pool_reference_by_hand)
{
    /* one image, 3 x 3, one channel, 2 x 2 window, stride 1, padding 1 (4 x 4 output); the corner
     * windows hold one element each: padding never wins even when every element is negative */
    igemm_pool2d_desc_t d = pool_shape(1, 3, 3, 1, 2, 1, 1, 1, IGEMM_DTYPE_BF16);
    const float xv[9] = {-5, -1, -7, -2, -9, -3, -8, -4, -6};
    uint16_t x[9], y[16];
    for (int i = 0; i < 9; i++) x[i] = igemm_float_to_bf16(xv[i]);
    REQUIRE(igemm_maxpool2d_reference(&d, x, y) == IGEMM_STATUS_SUCCESS);
    const float want[16] = {-5, -1, -1, -7, -2, -1, -1, -3, -2, -2, -3, -3, -8, -4, -4, -6};
    for (int i = 0; i < 16; i++) CHECK_NEAR(igemm_bf16_to_float(y[i]), want[i], 0);
    /* dilation 3 with padding 2 on a 2 x 1 input (3 outputs): the middle window's taps (rows -1
     * and 2) both miss the input and give -inf; the others see one row each */
    d = pool_shape(1, 2, 1, 1, 2, 1, 0, 1, IGEMM_DTYPE_F16);
    d.s = 1, d.pad_top = d.pad_bottom = 2, d.dil_h = 3;
    int64_t p, q;
    REQUIRE(igemm_pool2d_output_dims(&d, &p, &q) == IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(p, 3);
    CHECK_EQ_INT(q, 1);
    uint16_t x2[2] = {igemm_float_to_f16(3.0f), igemm_float_to_f16(5.0f)}, y3[3];
    REQUIRE(igemm_maxpool2d_reference(&d, x2, y3) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(igemm_f16_to_float(y3[0]), 5.0, 0);
    CHECK(isinf(igemm_f16_to_float(y3[1])) && igemm_f16_to_float(y3[1]) < 0);
    CHECK_NEAR(igemm_f16_to_float(y3[2]), 3.0, 0);
    /* NaN wins over larger values */
    d = pool_shape(1, 1, 2, 1, 2, 1, 0, 1, IGEMM_DTYPE_F16);
    d.r = 1;
    uint16_t xn[2] = {igemm_float_to_f16(NAN), igemm_float_to_f16(100.0f)}, yn[1];
    REQUIRE(igemm_maxpool2d_reference(&d, xn, yn) == IGEMM_STATUS_SUCCESS);
    CHECK(isnan(igemm_f16_to_float(yn[0])));
}

TEST(avgpool_reference_by_hand)
{
    /* x = 1..9 on a 3 x 3 image, 2 x 2 windows, stride 1, padding 1: the corner window holds one
     * element; with count_include_pad its divisor is the 4 taps inside the padded input */
    igemm_pool2d_desc_t d = pool_shape(1, 3, 3, 1, 2, 1, 1, 1, IGEMM_DTYPE_BF16);
    uint16_t x[9], y[16];
    for (int i = 0; i < 9; i++) x[i] = igemm_float_to_bf16((float)(i + 1));
    REQUIRE(igemm_avgpool2d_reference(&d, 1, x, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(igemm_bf16_to_float(y[0]), 0.25, 0);      /* 1 / 4 */
    CHECK_NEAR(igemm_bf16_to_float(y[5]), 3.0, 0);       /* (1 + 2 + 4 + 5) / 4 */
    CHECK_NEAR(igemm_bf16_to_float(y[15]), 9.0 / 4, 0);  /* the bottom-right corner */
    REQUIRE(igemm_avgpool2d_reference(&d, 0, x, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(igemm_bf16_to_float(y[0]), 1.0, 0);       /* one tap inside x */
    CHECK_NEAR(igemm_bf16_to_float(y[1]), 1.5, 0);       /* (1 + 2) / 2 */
    CHECK_NEAR(igemm_bf16_to_float(y[5]), 3.0, 0);
    /* the global average (adaptive_avg_pool2d(x, 1)) */
    d = pool_shape(1, 3, 3, 1, 3, 1, 0, 1, IGEMM_DTYPE_F16);
    for (int i = 0; i < 9; i++) x[i] = igemm_float_to_f16((float)(i + 1));
    REQUIRE(igemm_avgpool2d_reference(&d, 1, x, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(igemm_f16_to_float(y[0]), 5.0, 0);
    /* a window wholly in the padding (dilation 3, padding 2, 2 x 1 input): 0 */
    d = pool_shape(1, 2, 1, 1, 2, 1, 0, 1, IGEMM_DTYPE_F16);
    d.s = 1, d.pad_top = d.pad_bottom = 2, d.dil_h = 3;
    uint16_t x2[2] = {igemm_float_to_f16(3.0f), igemm_float_to_f16(5.0f)}, y3[3];
    REQUIRE(igemm_avgpool2d_reference(&d, 0, x2, y3) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(igemm_f16_to_float(y3[0]), 5.0, 0);
    CHECK_NEAR(igemm_f16_to_float(y3[1]), 0.0, 0);
    CHECK_NEAR(igemm_f16_to_float(y3[2]), 3.0, 0);
    /* the arguments */
    CHECK_EQ_INT(igemm_avgpool2d_reference(&d, 2, x2, y3), IGEMM_STATUS_INVALID_VALUE);
    CHECK(strstr(igemm_last_error(), "count_include_pad = 2") != NULL);
    CHECK_EQ_INT(igemm_avgpool2d_reference(&d, 1, NULL, y3), IGEMM_STATUS_NULL_POINTER);
    CHECK_EQ_INT(igemm_avgpool2d(&d, -1, x2, y3, NULL), IGEMM_STATUS_INVALID_VALUE);
    CHECK(strstr(igemm_last_error(), "count_include_pad = -1") != NULL);
}

#ifndef IGEMM_HAVE_CUDA
GPU_SKIP_TEST(gpu_maxpool_random)
GPU_SKIP_TEST(gpu_avgpool_random)
#else
#include <cuda_runtime_api.h>

/* equal as values (NaN == NaN, -0 == +0), which is what max can promise */
static int same_value(uint16_t a, uint16_t b, igemm_dtype_t dt)
{
    const double x = data_get(&a, 0, dt), y = data_get(&b, 0, dt);
    return (isnan(x) && isnan(y)) || x == y;
}

TEST(gpu_maxpool_random)
{
    SKIP_WITHOUT_GPU();
    data_rng_t g = {test_seed(77)};
    for (int it = 0; it < 60; it++) {
        const igemm_dtype_t dt = it % 2 ? IGEMM_DTYPE_F16 : IGEMM_DTYPE_BF16;
        const int64_t c = it % 3 == 2 ? data_rng_int(&g, 1, 21) : 8 * data_rng_int(&g, 1, 12);
        const int64_t r = data_rng_int(&g, 1, 4), s = data_rng_int(&g, 1, 3), stride = data_rng_int(&g, 1, 3);
        const int64_t dil = it % 5 == 4 ? 2 : 1, pad = data_rng_int(&g, 0, r / 2);
        igemm_pool2d_desc_t d = pool_shape(data_rng_int(&g, 1, 3), data_rng_int(&g, dil * (r - 1) + 1, 19),
                                           data_rng_int(&g, dil * (s - 1) + 1, 23), c, r, stride, pad, dil, dt);
        d.s = s;
        d.pad_left = data_rng_int(&g, 0, s / 2);
        d.pad_right = data_rng_int(&g, 0, s / 2);
        const int misalign = it % 4 == 3; /* 2-byte aligned pointers: the scalar kernel */
        int64_t p, q;
        REQUIRE(igemm_pool2d_output_dims(&d, &p, &q) == IGEMM_STATUS_SUCCESS);
        const int64_t xe = d.n * d.h * d.w * c, ye = d.n * p * q * c;
        uint16_t *x = (uint16_t *)malloc((size_t)xe * 2), *y = (uint16_t *)malloc((size_t)ye * 2),
                 *ref = (uint16_t *)malloc((size_t)ye * 2);
        REQUIRE(x && y && ref);
        data_fill(x, xe, dt, -4.0, 4.0, &g);
        for (int k = 0; k < 3; k++) x[data_rng_int(&g, 0, xe - 1)] = dt == IGEMM_DTYPE_F16 ? 0x7e00u : 0x7fc0u; /* NaN */
        x[data_rng_int(&g, 0, xe - 1)] = 0x8000u;                                                              /* -0 */
        REQUIRE(igemm_maxpool2d_reference(&d, x, ref) == IGEMM_STATUS_SUCCESS);
        dbuf_t bx, by;
        REQUIRE(dbuf_alloc(&bx, (size_t)xe * 2 + 16, 256, 0xA5) == 0);
        REQUIRE(dbuf_alloc(&by, (size_t)ye * 2 + 16, 256, 0x5A) == 0);
        void *xp = (char *)bx.ptr + (misalign ? 2 : 0), *yp = (char *)by.ptr + (misalign ? 6 : 0);
        REQUIRE(cudaMemcpy(xp, x, (size_t)xe * 2, cudaMemcpyHostToDevice) == cudaSuccess);
        REQUIRE(dbuf_poison(&by, 0x7b) == 0);
        cudaStream_t stream;
        REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
        CHECK_EQ_INT(igemm_maxpool2d(&d, xp, yp, stream), IGEMM_STATUS_SUCCESS);
        REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
        cudaStreamDestroy(stream);
        REQUIRE(cudaMemcpy(y, yp, (size_t)ye * 2, cudaMemcpyDeviceToHost) == cudaSuccess);
        int64_t bad = 0, first = -1;
        for (int64_t i = 0; i < ye; i++)
            if (!same_value(y[i], ref[i], dt)) bad++, first = first < 0 ? i : first;
        CHECK_MSG(bad == 0, "maxpool it %d (n%lld h%lld w%lld c%lld %lldx%lld str %lld pad %lld,%lld dil %lld %s%s): "
                  "%lld of %lld wrong, first at %lld: %g vs %g", it, (long long)d.n, (long long)d.h,
                  (long long)d.w, (long long)c, (long long)d.r, (long long)d.s, (long long)stride, (long long)pad,
                  (long long)d.pad_right, (long long)dil, dt == IGEMM_DTYPE_F16 ? "f16" : "bf16",
                  misalign ? " misaligned" : "", (long long)bad, (long long)ye, (long long)first,
                  first >= 0 ? data_get(y, first, dt) : 0.0, first >= 0 ? data_get(ref, first, dt) : 0.0);
        /* nothing written past the output (the 16 spare bytes and the guards keep their poison) */
        unsigned char tail[16];
        REQUIRE(cudaMemcpy(tail, (char *)yp + ye * 2, misalign ? 10 : 16, cudaMemcpyDeviceToHost) == cudaSuccess);
        for (int k = 0; k < (misalign ? 10 : 16); k++) CHECK(tail[k] == 0x7b);
        CHECK_EQ_INT(dbuf_guard_damage(&by), 0);
        CHECK_EQ_INT(dbuf_guard_damage(&bx), 0);
        dbuf_free(&bx);
        dbuf_free(&by);
        free(x), free(y), free(ref);
        if (test_failed_now()) return;
    }
}

/* |got - want| within one unit in the last place of the dtype at want (the kernel's fp32 sum and
 * reciprocal against the double reference, both rounded once); NaN only against NaN */
static int within_ulp(uint16_t a, uint16_t b, igemm_dtype_t dt)
{
    const double x = data_get(&a, 0, dt), y = data_get(&b, 0, dt);
    if (isnan(x) || isnan(y)) return isnan(x) && isnan(y);
    const double m = fabs(y) > 1e-30 ? fabs(y) : 1e-30;
    const double ulp = ldexp(1.0, (int)floor(log2(m)) - (dt == IGEMM_DTYPE_F16 ? 10 : 7));
    return fabs(x - y) <= 1.01 * ulp + 1e-7;
}

TEST(gpu_avgpool_random)
{
    SKIP_WITHOUT_GPU();
    data_rng_t g = {test_seed(78)};
    for (int it = 0; it < 60; it++) {
        const igemm_dtype_t dt = it % 2 ? IGEMM_DTYPE_F16 : IGEMM_DTYPE_BF16;
        const int64_t c = it % 3 == 2 ? data_rng_int(&g, 1, 21) : 8 * data_rng_int(&g, 1, 12);
        const int cip = it % 4 < 2;
        int64_t r = data_rng_int(&g, 1, 4), s = data_rng_int(&g, 1, 3), stride = data_rng_int(&g, 1, 3);
        const int64_t dil = it % 5 == 4 ? 2 : 1, pad = data_rng_int(&g, 0, r / 2);
        int64_t h = data_rng_int(&g, dil * (r - 1) + 1, 19), w = data_rng_int(&g, dil * (s - 1) + 1, 23);
        if (it % 7 == 6) r = h, s = w, stride = 1; /* a global average pool */
        igemm_pool2d_desc_t d = pool_shape(data_rng_int(&g, 1, 3), h, w, c, r, stride, it % 7 == 6 ? 0 : pad,
                                           it % 7 == 6 ? 1 : dil, dt);
        d.s = s;
        d.pad_left = it % 7 == 6 ? 0 : data_rng_int(&g, 0, s / 2);
        d.pad_right = it % 7 == 6 ? 0 : data_rng_int(&g, 0, s / 2);
        const int misalign = it % 4 == 3;
        int64_t p, q;
        REQUIRE(igemm_pool2d_output_dims(&d, &p, &q) == IGEMM_STATUS_SUCCESS);
        const int64_t xe = d.n * d.h * d.w * c, ye = d.n * p * q * c;
        uint16_t *x = (uint16_t *)malloc((size_t)xe * 2), *y = (uint16_t *)malloc((size_t)ye * 2),
                 *ref = (uint16_t *)malloc((size_t)ye * 2);
        REQUIRE(x && y && ref);
        data_fill(x, xe, dt, -4.0, 4.0, &g);
        if (it % 6 == 5) x[data_rng_int(&g, 0, xe - 1)] = dt == IGEMM_DTYPE_F16 ? 0x7e00u : 0x7fc0u; /* NaN */
        REQUIRE(igemm_avgpool2d_reference(&d, cip, x, ref) == IGEMM_STATUS_SUCCESS);
        dbuf_t bx, by;
        REQUIRE(dbuf_alloc(&bx, (size_t)xe * 2 + 16, 256, 0xA5) == 0);
        REQUIRE(dbuf_alloc(&by, (size_t)ye * 2 + 16, 256, 0x5A) == 0);
        void *xp = (char *)bx.ptr + (misalign ? 2 : 0), *yp = (char *)by.ptr + (misalign ? 6 : 0);
        REQUIRE(cudaMemcpy(xp, x, (size_t)xe * 2, cudaMemcpyHostToDevice) == cudaSuccess);
        REQUIRE(dbuf_poison(&by, 0x7b) == 0);
        CHECK_EQ_INT(igemm_avgpool2d(&d, cip, xp, yp, NULL), IGEMM_STATUS_SUCCESS);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        REQUIRE(cudaMemcpy(y, yp, (size_t)ye * 2, cudaMemcpyDeviceToHost) == cudaSuccess);
        int64_t bad = 0, first = -1;
        for (int64_t i = 0; i < ye; i++)
            if (!within_ulp(y[i], ref[i], dt)) bad++, first = first < 0 ? i : first;
        CHECK_MSG(bad == 0, "avgpool it %d (n%lld h%lld w%lld c%lld %lldx%lld str %lld pad %lld,%lld dil %lld cip %d "
                  "%s%s): %lld of %lld wrong, first at %lld: %g vs %g", it, (long long)d.n, (long long)d.h,
                  (long long)d.w, (long long)c, (long long)d.r, (long long)d.s, (long long)stride,
                  (long long)d.pad_top, (long long)d.pad_right, (long long)d.dil_h, cip,
                  dt == IGEMM_DTYPE_F16 ? "f16" : "bf16", misalign ? " misaligned" : "", (long long)bad,
                  (long long)ye, (long long)first, first >= 0 ? data_get(y, first, dt) : 0.0,
                  first >= 0 ? data_get(ref, first, dt) : 0.0);
        unsigned char tail[16];
        REQUIRE(cudaMemcpy(tail, (char *)yp + ye * 2, misalign ? 10 : 16, cudaMemcpyDeviceToHost) == cudaSuccess);
        for (int k = 0; k < (misalign ? 10 : 16); k++) CHECK(tail[k] == 0x7b);
        CHECK_EQ_INT(dbuf_guard_damage(&by), 0);
        CHECK_EQ_INT(dbuf_guard_damage(&bx), 0);
        dbuf_free(&bx);
        dbuf_free(&by);
        free(x), free(y), free(ref);
        if (test_failed_now()) return;
    }
}
#endif
