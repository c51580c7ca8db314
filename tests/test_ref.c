/*
 * test_ref.c — the CPU reference (igemm_conv2d_reference), on small cases whose expected values
 * were computed by hand (written below as literals), plus structural identities of convolution
 * (padding = explicit zero border, stride = subsampling, dilation = zero-inserted filter, groups =
 * independent convolutions). The host half conversions are in test_half.c.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "igemm.h"
#include "internal.h"
#include "ref/conv2d_ref.h"
#include "test.h"

/* ------------------------------------------------------------------ helpers */

static igemm_conv2d_desc_t mkdesc(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r,
                                  int64_t s)
{
    igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
    d.n = n; d.h = h; d.w = w; d.c = c; d.k = k; d.r = r; d.s = s;
    d.x_dtype = d.w_dtype = IGEMM_DTYPE_BF16;
    d.y_dtype = IGEMM_DTYPE_F32;
    return d;
}

/* Runs the reference with x and w given as doubles (converted to desc's input dtype) and
 * residual as doubles (converted to y's dtype); out receives y as doubles. Returns status. */
static igemm_status_t run_ref(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e,
                              const double *xv, const double *wv, const float *scale,
                              const float *bias, const double *resv, double *out)
{
    int64_t xn = 0, wn = 0, yn = 0;
    igemm_status_t st = igemm_conv2d_sizes(d, &xn, &wn, &yn);
    if (st) return st;
    void *x = malloc((size_t)xn * 2), *w = malloc((size_t)wn * 2);
    void *y = malloc((size_t)yn * data_dtype_bytes(d->y_dtype));
    void *res = resv ? malloc((size_t)yn * data_dtype_bytes(d->y_dtype)) : NULL;
    for (int64_t i = 0; i < xn; i++) data_set(x, i, d->x_dtype, xv[i]);
    for (int64_t i = 0; i < wn; i++) data_set(w, i, d->w_dtype, wv[i]);
    if (res)
        for (int64_t i = 0; i < yn; i++) data_set(res, i, d->y_dtype, resv[i]);
    st = igemm_conv2d_reference(d, e, x, w, scale, bias, res, y);
    if (st == IGEMM_STATUS_SUCCESS)
        for (int64_t i = 0; i < yn; i++) out[i] = data_get(y, i, d->y_dtype);
    free(x);
    free(w);
    free(y);
    free(res);
    return st;
}

/* x[i][j] = 4i + j + 1 on a 4x4 single-channel image (1..16). */
static void img4x4(double *x)
{
    for (int i = 0; i < 16; i++) x[i] = i + 1;
}

/* ------------------------------------------------------------------ conv geometry */

TEST(ref_1x1_is_matrix_product)
{
    /* 2 pixels x 3 channels times 2 filters of 3 channels */
    igemm_conv2d_desc_t d = mkdesc(1, 1, 2, 3, 2, 1, 1);
    double x[6] = {1, 2, 3, 4, 5, 6};
    double w[6] = {1, 0, -1, 2, 1, 0};
    double y[4];
    REQUIRE(run_ref(&d, NULL, x, w, NULL, NULL, NULL, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y[0], -2, 0); /* 1 - 3 */
    CHECK_NEAR(y[1], 4, 0);  /* 2 + 2 */
    CHECK_NEAR(y[2], -2, 0); /* 4 - 6 */
    CHECK_NEAR(y[3], 13, 0); /* 8 + 5 */

    /* batch of 2 with n = 2: the same product per image */
    igemm_conv2d_desc_t d2 = mkdesc(2, 1, 1, 3, 2, 1, 1);
    double y2[4];
    REQUIRE(run_ref(&d2, NULL, x, w, NULL, NULL, NULL, y2) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y2[0], -2, 0);
    CHECK_NEAR(y2[3], 13, 0);
}

TEST(ref_3x3_pad1_on_4x4)
{
    igemm_conv2d_desc_t d = mkdesc(1, 4, 4, 1, 1, 3, 3);
    d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = 1;
    double x[16], w[9], y[16];
    img4x4(x);
    for (int i = 0; i < 9; i++) w[i] = i + 1; /* w[r][s] = 3r + s + 1: catches a flipped filter */
    int64_t p = 0, q = 0;
    REQUIRE(igemm_conv2d_output_dims(&d, &p, &q) == IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(p, 4);
    CHECK_EQ_INT(q, 4);
    REQUIRE(run_ref(&d, NULL, x, w, NULL, NULL, NULL, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y[0 * 4 + 0], 111, 0); /* 5*1 + 6*2 + 8*5 + 9*6 */
    CHECK_NEAR(y[1 * 4 + 1], 348, 0); /* sum (3r+s+1)(4r+s+1) over the full window */
    CHECK_NEAR(y[3 * 4 + 3], 175, 0); /* 1*11 + 2*12 + 4*15 + 5*16 */
    CHECK_NEAR(y[2 * 4 + 0], 363, 0); /* 2*5 + 3*6 + 5*9 + 6*10 + 8*13 + 9*14 */
}

TEST(ref_stride)
{
    double x[16], w[4] = {1, 2, 3, 4}, y[16];
    img4x4(x);
    /* 2x2 filter, stride 2 */
    igemm_conv2d_desc_t d = mkdesc(1, 4, 4, 1, 1, 2, 2);
    d.stride_h = d.stride_w = 2;
    REQUIRE(run_ref(&d, NULL, x, w, NULL, NULL, NULL, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y[0], 44, 0);  /* 1 + 2*2 + 3*5 + 4*6 */
    CHECK_NEAR(y[1], 64, 0);  /* 3 + 2*4 + 3*7 + 4*8 */
    CHECK_NEAR(y[2], 124, 0); /* 9 + 2*10 + 3*13 + 4*14 */
    CHECK_NEAR(y[3], 144, 0); /* 11 + 2*12 + 3*15 + 4*16 */
    /* stride 2 x 1: P = 2, Q = 3 */
    d.stride_w = 1;
    int64_t p = 0, q = 0;
    REQUIRE(igemm_conv2d_output_dims(&d, &p, &q) == IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(p, 2);
    CHECK_EQ_INT(q, 3);
    REQUIRE(run_ref(&d, NULL, x, w, NULL, NULL, NULL, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y[0 * 3 + 1], 54, 0);  /* 2 + 2*3 + 3*6 + 4*7 */
    CHECK_NEAR(y[1 * 3 + 2], 144, 0); /* 11 + 2*12 + 3*15 + 4*16 */
}

TEST(ref_dilation)
{
    double x[16], w[4] = {1, 2, 3, 4}, y[4];
    img4x4(x);
    igemm_conv2d_desc_t d = mkdesc(1, 4, 4, 1, 1, 2, 2);
    d.dil_h = d.dil_w = 2; /* effective 3x3 */
    int64_t p = 0, q = 0;
    REQUIRE(igemm_conv2d_output_dims(&d, &p, &q) == IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(p, 2);
    CHECK_EQ_INT(q, 2);
    REQUIRE(run_ref(&d, NULL, x, w, NULL, NULL, NULL, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y[0], 78, 0);  /* x00 + 2 x02 + 3 x20 + 4 x22 = 1 + 6 + 27 + 44 */
    CHECK_NEAR(y[1], 88, 0);  /* x01 + 2 x03 + 3 x21 + 4 x23 = 2 + 8 + 30 + 48 */
    CHECK_NEAR(y[3], 128, 0); /* x11 + 2 x13 + 3 x31 + 4 x33 = 6 + 16 + 42 + 64 */
    /* dilation 2 in h only: P = 2, Q = 3 */
    d.dil_w = 1;
    double y2[6];
    REQUIRE(run_ref(&d, NULL, x, w, NULL, NULL, NULL, y2) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y2[0 * 3 + 2], 92, 0); /* x02 + 2 x03 + 3 x22 + 4 x23 = 3 + 8 + 33 + 48 */
}

TEST(ref_asymmetric_padding)
{
    double x[16], w[4] = {1, 2, 3, 4}, y[20];
    img4x4(x);
    igemm_conv2d_desc_t d = mkdesc(1, 4, 4, 1, 1, 2, 2);
    d.pad_top = 1;
    d.pad_right = 2;
    int64_t p = 0, q = 0;
    REQUIRE(igemm_conv2d_output_dims(&d, &p, &q) == IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(p, 4); /* 4 + 1 - 2 + 1 */
    CHECK_EQ_INT(q, 5); /* 4 + 2 - 2 + 1 */
    REQUIRE(run_ref(&d, NULL, x, w, NULL, NULL, NULL, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y[0 * 5 + 0], 11, 0); /* row -1 is padding: 3*x00 + 4*x01 */
    CHECK_NEAR(y[0 * 5 + 4], 0, 0);  /* all taps in the right padding */
    CHECK_NEAR(y[1 * 5 + 2], 64, 0); /* x02 + 2 x03 + 3 x12 + 4 x13 = 3 + 8 + 21 + 32 */
    CHECK_NEAR(y[3 * 5 + 3], 60, 0); /* x23 + 3 x33 = 12 + 48 */
    CHECK_NEAR(y[3 * 5 + 4], 0, 0);
}

TEST(ref_groups_and_depthwise)
{
    /* groups = 2, c = 4, k = 2 on one pixel: k0 sees channels 0,1; k1 sees channels 2,3 */
    igemm_conv2d_desc_t d = mkdesc(1, 1, 1, 4, 2, 1, 1);
    d.groups = 2;
    double x[4] = {1, 2, 3, 4};
    double w[4] = {1, 10, 100, 1000}, y[4];
    REQUIRE(run_ref(&d, NULL, x, w, NULL, NULL, NULL, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y[0], 21, 0);   /* 1 + 20 */
    CHECK_NEAR(y[1], 4300, 0); /* 300 + 4000 */
    /* groups = 2, k = 4 (2 filters per group) */
    d.k = 4;
    double w4[8] = {1, 1, 1, -1, 2, 0, 0, 3};
    REQUIRE(run_ref(&d, NULL, x, w4, NULL, NULL, NULL, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y[0], 3, 0);
    CHECK_NEAR(y[1], -1, 0);
    CHECK_NEAR(y[2], 6, 0);
    CHECK_NEAR(y[3], 12, 0);

    /* depthwise: c = k = groups = 3 on a 3x3 image, 3x3 filter, no padding: one output pixel.
     * x[i][j][ch] = (3i + j + 1) * (ch + 1); filters: ch0 all ones, ch1 centre, ch2 corner (0,0). */
    igemm_conv2d_desc_t dw = mkdesc(1, 3, 3, 3, 3, 3, 3);
    dw.groups = 3;
    double xd[27], wd[27], yd[3];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            for (int ch = 0; ch < 3; ch++) xd[(i * 3 + j) * 3 + ch] = (3 * i + j + 1) * (ch + 1);
    memset(wd, 0, sizeof wd);
    for (int t = 0; t < 9; t++) wd[0 * 9 + t] = 1;
    wd[1 * 9 + 4] = 1;
    wd[2 * 9 + 0] = 1;
    REQUIRE(run_ref(&dw, NULL, xd, wd, NULL, NULL, NULL, yd) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(yd[0], 45, 0); /* 1 + 2 + ... + 9 */
    CHECK_NEAR(yd[1], 10, 0); /* centre 5, times 2 */
    CHECK_NEAR(yd[2], 3, 0);  /* corner 1, times 3 */

    /* depthwise with channel multiplier 2: c = 2, k = 4, groups = 2, 1x1 */
    igemm_conv2d_desc_t dm = mkdesc(1, 1, 1, 2, 4, 1, 1);
    dm.groups = 2;
    double xm[2] = {3, 5}, wm[4] = {1, -2, 4, 0.5}, ym[4];
    REQUIRE(run_ref(&dm, NULL, xm, wm, NULL, NULL, NULL, ym) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(ym[0], 3, 0);
    CHECK_NEAR(ym[1], -6, 0);
    CHECK_NEAR(ym[2], 20, 0);
    CHECK_NEAR(ym[3], 2.5, 0);
}

TEST(ref_combined_geometry)
{
    /* 5x5 image, 3x3 filter of ones, stride 2, dilation 2, pad 2 (t, l) / 1 (b, r):
     * P = (5 + 3 - 5) / 2 + 1 = 2. Output (p, q) reads rows 2p - 2 + 2r, cols 2q - 2 + 2s. */
    igemm_conv2d_desc_t d = mkdesc(1, 5, 5, 1, 1, 3, 3);
    d.stride_h = d.stride_w = 2;
    d.dil_h = d.dil_w = 2;
    d.pad_top = d.pad_left = 2;
    d.pad_bottom = d.pad_right = 1;
    double x[25], w[9], y[4];
    for (int i = 0; i < 25; i++) x[i] = i + 1; /* x[i][j] = 5i + j + 1 */
    for (int i = 0; i < 9; i++) w[i] = 1;
    int64_t p = 0, q = 0;
    REQUIRE(igemm_conv2d_output_dims(&d, &p, &q) == IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(p, 2);
    CHECK_EQ_INT(q, 2);
    REQUIRE(run_ref(&d, NULL, x, w, NULL, NULL, NULL, y) == IGEMM_STATUS_SUCCESS);
    /* (0,0): rows {-2,0,2}, cols {-2,0,2} -> x00 + x02 + x20 + x22 = 1 + 3 + 11 + 13 */
    CHECK_NEAR(y[0], 28, 0);
    /* (1,1): rows {0,2,4}, cols {0,2,4} -> (1+3+5) + (11+13+15) + (21+23+25) */
    CHECK_NEAR(y[3], 117, 0);
    /* (0,1): rows {0,2}, cols {0,2,4} -> (1+3+5) + (11+13+15) */
    CHECK_NEAR(y[1], 48, 0);
}

/* ------------------------------------------------------------------ activations, epilogue */

TEST(ref_activation_values)
{
    const double e = 1e-15;
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_NONE, -1.5, 0), -1.5, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_RELU, -1, 0), 0, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_RELU, 2, 0), 2, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_RELU6, -1, 0), 0, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_RELU6, 3, 0), 3, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_RELU6, 7, 0), 6, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_LEAKY_RELU, -2, 0.1), -0.2, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_LEAKY_RELU, 3, 0.1), 3, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_LEAKY_RELU, -2, 0.25), -0.5, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_GELU_ERF, 0, 0), 0, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_GELU_ERF, 1, 0), 0.8413447460685429, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_GELU_ERF, -1, 0), -0.15865525393145707, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_GELU_ERF, 2, 0), 1.9544997361036416, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_GELU_ERF, -3, 0), -0.00404969409489031, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_GELU_TANH, 1, 0), 0.8411919906082768, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_GELU_TANH, -1, 0), -0.15880800939172324, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_GELU_TANH, -3, 0), -0.0036373920817729943, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_SILU, 1, 0), 0.7310585786300049, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_SILU, -1, 0), -0.2689414213699951, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_SILU, 2, 0), 1.7615941559557646, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_SIGMOID, 0, 0), 0.5, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_SIGMOID, 1, 0), 0.7310585786300049, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_SIGMOID, -3, 0), 0.04742587317756678, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_TANH, 0.5, 0), 0.46211715726000974, e);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_TANH, -1, 0), -0.7615941559557649, e);
    /* saturation without NaN */
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_SILU, -1000, 0), 0, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_SIGMOID, -1000, 0), 0, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_SIGMOID, 1000, 0), 1, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_GELU_ERF, -1000, 0), 0, 0);
    CHECK_NEAR(igemm_act_host(IGEMM_ACT_GELU_TANH, 1000, 0), 1000, 0);
}

TEST(ref_activation_applied)
{
    /* one pixel, x = 1, k = 4 filters with values v: y = act(v) for every activation */
    igemm_conv2d_desc_t d = mkdesc(1, 1, 1, 1, 4, 1, 1);
    double x[1] = {1}, w[4] = {-2, -0.5, 0.5, 8}, y[4];
    static const double expect[11][4] = {
        {-2, -0.5, 0.5, 8},                                               /* none */
        {0, 0, 0.5, 8},                                                   /* relu */
        {0, 0, 0.5, 6},                                                   /* relu6 */
        {-0.5, -0.125, 0.5, 8},                                           /* leaky 0.25 */
        {-0.04550026389635842, -0.15426876936299344, 0.34573123063700656, 8}, /* gelu_erf */
        {-0.04540230591222494, -0.15428599017485606, 0.34571400982514394, 8}, /* gelu_tanh */
        {-0.2384058440442351, -0.1887703343990727, 0.3112296656009273, 7.997317198956269}, /* silu */
        {0.11920292202211755, 0.3775406687981454, 0.6224593312018546, 0.9996646498695336}, /* sigmoid */
        {-0.9640275800758169, -0.46211715726000974, 0.46211715726000974, 0.9999997749296758}, /* tanh */
        {-2.0 / 6.0, -0.5 * 2.5 / 6.0, 0.5 * 3.5 / 6.0, 8},               /* hardswish */
        {1.0 / 6.0, 2.5 / 6.0, 3.5 / 6.0, 1},                             /* hardsigmoid */
    };
    for (int a = 0; a <= 10; a++) {
        igemm_epilogue_t e = igemm_epilogue_default();
        e.activation = (igemm_activation_t)a;
        e.act_param = 0.25f;
        REQUIRE(run_ref(&d, &e, x, w, NULL, NULL, NULL, y) == IGEMM_STATUS_SUCCESS);
        for (int j = 0; j < 4; j++) {
            double want = (double)(float)expect[a][j]; /* y is f32 */
            CHECK_MSG(y[j] == want, "act %d v %g: got %.17g want %.17g", a, w[j], y[j], want);
        }
    }
}

TEST(ref_epilogue_order)
{
    /* acc = 2 * 3 = 6 (k0) and 2 * 1 = 2 (k1).
     * k0: v = 0.5 * 6 = 3; * scale 4 = 12; + bias 1 = 13; + beta 2 * res -10 = -7; leaky 0.1 -> -0.7
     * k1: v = 0.5 * 2 = 1; * scale -1 = -1; + bias 0.5 = -0.5; + 2 * 3 = 5.5; leaky -> 5.5
     * (scale after bias would give (3+1)*4 - 20 = -4 -> -0.4; alpha on the residual etc. differ) */
    igemm_conv2d_desc_t d = mkdesc(1, 1, 1, 1, 2, 1, 1);
    double x[1] = {2}, w[2] = {3, 1}, res[2] = {-10, 3}, y[2];
    float scale[2] = {4, -1}, bias[2] = {1, 0.5f};
    igemm_epilogue_t e = igemm_epilogue_default();
    e.alpha = 0.5f;
    e.beta = 2;
    e.has_scale = e.has_bias = e.has_residual = 1;
    e.activation = IGEMM_ACT_LEAKY_RELU;
    e.act_param = 0.1f;
    REQUIRE(run_ref(&d, &e, x, w, scale, bias, res, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y[0], -0.7, 1e-7);
    CHECK_NEAR(y[1], 5.5, 0);
    /* each operand alone */
    e.has_scale = e.has_bias = e.has_residual = 0;
    e.activation = IGEMM_ACT_NONE;
    REQUIRE(run_ref(&d, &e, x, w, NULL, NULL, NULL, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y[0], 3, 0);
    CHECK_NEAR(y[1], 1, 0);
    e.has_bias = 1;
    REQUIRE(run_ref(&d, &e, x, w, NULL, bias, NULL, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y[0], 4, 0);
    CHECK_NEAR(y[1], 1.5, 0);
    e.has_bias = 0;
    e.has_residual = 1;
    REQUIRE(run_ref(&d, &e, x, w, NULL, NULL, res, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y[0], -17, 0); /* 3 + 2 * -10 */
    CHECK_NEAR(y[1], 7, 0);   /* 1 + 2 * 3 */
    /* beta = 0 with a residual: the residual does not count */
    e.beta = 0;
    REQUIRE(run_ref(&d, &e, x, w, NULL, NULL, res, y) == IGEMM_STATUS_SUCCESS);
    CHECK_NEAR(y[0], 3, 0);
}

TEST(ref_output_rounding)
{
    /* x = w = 1, alpha sets the value; y in bf16 / f16 */
    igemm_conv2d_desc_t d = mkdesc(1, 1, 1, 1, 1, 1, 1);
    uint16_t x = igemm_float_to_bf16(1.0f), w = x, y = 0;
    igemm_epilogue_t e = igemm_epilogue_default();
    struct { igemm_dtype_t dt; float alpha; uint16_t bits; } cases[] = {
        {IGEMM_DTYPE_BF16, 1.0f / 3.0f, 0x3EAB},   /* 1.0101010|1010.. x 2^-2 rounds up */
        {IGEMM_DTYPE_F16, 1.0f / 3.0f, 0x3555},    /* 1.0101010101|0101.. x 2^-2 rounds down */
        {IGEMM_DTYPE_BF16, 1.00390625f, 0x3F80},   /* 1 + 2^-8: tie -> even (1.0) */
        {IGEMM_DTYPE_BF16, 1.01171875f, 0x3F82},   /* 1 + 3 * 2^-8: tie -> even (1 + 2^-6) */
        {IGEMM_DTYPE_F16, 1.00048828125f, 0x3C00}, /* 1 + 2^-11: tie -> 1.0 */
        {IGEMM_DTYPE_F16, 1.00146484375f, 0x3C02}, /* 1 + 3 * 2^-11: tie -> 1 + 2^-9 */
        {IGEMM_DTYPE_F16, 65504.0f, 0x7BFF},
        {IGEMM_DTYPE_F16, 65519.0f, 0x7BFF},
        {IGEMM_DTYPE_F16, 65520.0f, 0x7C00},       /* rounds to infinity */
        {IGEMM_DTYPE_F16, -70000.0f, 0xFC00},
        {IGEMM_DTYPE_F16, 5.9604644775390625e-8f, 0x0001}, /* 2^-24, smallest subnormal */
        {IGEMM_DTYPE_F16, 2.98023223876953125e-8f, 0x0000}, /* 2^-25: tie -> 0 */
        {IGEMM_DTYPE_BF16, 3.0e38f, 0x7F62},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        d.y_dtype = cases[i].dt;
        e.alpha = cases[i].alpha;
        REQUIRE(igemm_conv2d_reference(&d, &e, &x, &w, NULL, NULL, NULL, &y) == IGEMM_STATUS_SUCCESS);
        CHECK_MSG(y == cases[i].bits, "case %zu: alpha %.9g -> %s 0x%04x, expected 0x%04x", i,
                  (double)cases[i].alpha, data_dtype_name(cases[i].dt), y, cases[i].bits);
    }
    /* f32 output: (float) of the double value */
    float yf = 0;
    d.y_dtype = IGEMM_DTYPE_F32;
    e.alpha = 0.1f;
    REQUIRE(igemm_conv2d_reference(&d, &e, &x, &w, NULL, NULL, NULL, &yf) == IGEMM_STATUS_SUCCESS);
    CHECK(yf == 0.1f);
    /* f16 inputs: 1 + 2^-10 is exact in f16 but not bf16 */
    d.x_dtype = d.w_dtype = IGEMM_DTYPE_F16;
    uint16_t xh = igemm_float_to_f16(1.0009765625f), wh = igemm_float_to_f16(3.0f);
    e.alpha = 1.0f;
    REQUIRE(igemm_conv2d_reference(&d, &e, &xh, &wh, NULL, NULL, NULL, &yf) == IGEMM_STATUS_SUCCESS);
    CHECK(yf == 3.0029296875f);
}

TEST(ref_f16_residual_and_out)
{
    /* f16 output and f16 residual: 2 + 0.5 * 0.1(f16) */
    igemm_conv2d_desc_t d = mkdesc(1, 1, 1, 1, 1, 1, 1);
    d.y_dtype = IGEMM_DTYPE_F16;
    double x[1] = {1}, w[1] = {2}, res[1] = {0.1}, y[1];
    igemm_epilogue_t e = igemm_epilogue_default();
    e.has_residual = 1;
    e.beta = 0.5f;
    REQUIRE(run_ref(&d, &e, x, w, NULL, NULL, res, y) == IGEMM_STATUS_SUCCESS);
    /* f16(0.1) = 0.0999755859375; 2 + 0.04998779296875 = 2.04998779296875 -> f16 spacing
     * 2^-9 at 2: 2.048828125 (0x401A) and 2.05078125 (0x401B); nearer is 2.05078125 */
    CHECK_NEAR(y[0], 2.05078125, 0);
}

/* ------------------------------------------------------------------ structural identities */

/* Random x (bf16) for desc d; returns malloc'd doubles. */
static double *rand_vec(int64_t n, data_rng_t *g)
{
    double *v = (double *)malloc((size_t)n * sizeof *v);
    for (int64_t i = 0; i < n; i++) v[i] = (double)igemm_bf16_to_float(igemm_float_to_bf16((float)data_rng_uniform(g, -1, 1)));
    return v;
}

TEST(ref_identity_padding_equals_zero_border)
{
    data_rng_t g = {11};
    igemm_conv2d_desc_t d = mkdesc(2, 5, 6, 3, 4, 3, 2);
    d.pad_top = 2; d.pad_bottom = 1; d.pad_left = 1; d.pad_right = 3;
    igemm_conv2d_desc_t z = d; /* same problem on an explicitly zero-padded image */
    z.h = d.h + 3; z.w = d.w + 4;
    z.pad_top = z.pad_bottom = z.pad_left = z.pad_right = 0;
    double *x = rand_vec(2 * 5 * 6 * 3, &g), *w = rand_vec(4 * 3 * 2 * 3, &g);
    double *xz = (double *)calloc((size_t)(2 * z.h * z.w * 3), sizeof(double));
    for (int n = 0; n < 2; n++)
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 6; j++)
                for (int c = 0; c < 3; c++)
                    xz[((n * z.h + i + 2) * z.w + j + 1) * 3 + c] = x[((n * 5 + i) * 6 + j) * 3 + c];
    int64_t yn = 0, yn2 = 0;
    REQUIRE(igemm_conv2d_sizes(&d, NULL, NULL, &yn) == IGEMM_STATUS_SUCCESS);
    REQUIRE(igemm_conv2d_sizes(&z, NULL, NULL, &yn2) == IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(yn, yn2);
    double *y1 = (double *)malloc((size_t)yn * sizeof(double)), *y2 = (double *)malloc((size_t)yn * sizeof(double));
    CHECK(run_ref(&d, NULL, x, w, NULL, NULL, NULL, y1) == IGEMM_STATUS_SUCCESS);
    CHECK(run_ref(&z, NULL, xz, w, NULL, NULL, NULL, y2) == IGEMM_STATUS_SUCCESS);
    for (int64_t i = 0; i < yn && i < yn2; i++) CHECK_NEAR(y1[i], y2[i], 1e-6 * (1 + fabs(y2[i])));
    free(x); free(w); free(xz); free(y1); free(y2);
}

TEST(ref_identity_stride_is_subsampling_dilation_is_sparse_filter)
{
    data_rng_t g = {12};
    igemm_conv2d_desc_t d = mkdesc(1, 9, 8, 5, 3, 3, 3);
    d.pad_top = d.pad_left = 1;
    double *x = rand_vec(9 * 8 * 5, &g), *w = rand_vec(3 * 9 * 5, &g);
    int64_t p1 = 0, q1 = 0;
    REQUIRE(igemm_conv2d_output_dims(&d, &p1, &q1) == IGEMM_STATUS_SUCCESS);
    double *y1 = (double *)malloc((size_t)(p1 * q1 * 3) * sizeof(double));
    REQUIRE(run_ref(&d, NULL, x, w, NULL, NULL, NULL, y1) == IGEMM_STATUS_SUCCESS);
    /* stride (3, 2): y_s[p][q] = y_1[3p][2q] */
    igemm_conv2d_desc_t s = d;
    s.stride_h = 3; s.stride_w = 2;
    int64_t p2 = 0, q2 = 0;
    REQUIRE(igemm_conv2d_output_dims(&s, &p2, &q2) == IGEMM_STATUS_SUCCESS);
    double *y2 = (double *)malloc((size_t)(p2 * q2 * 3) * sizeof(double));
    REQUIRE(run_ref(&s, NULL, x, w, NULL, NULL, NULL, y2) == IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(p2, (p1 + 2) / 3);
    CHECK_EQ_INT(q2, (q1 + 1) / 2);
    for (int64_t p = 0; p < p2; p++)
        for (int64_t q = 0; q < q2; q++)
            for (int k = 0; k < 3; k++)
                CHECK_NEAR(y2[(p * q2 + q) * 3 + k], y1[((3 * p) * q1 + 2 * q) * 3 + k], 1e-6);
    /* dilation (2, 3) with a 2x2 filter == 3x4 filter with zeros between the taps */
    igemm_conv2d_desc_t dl = d, ds = d;
    dl.r = 2; dl.s = 2; dl.dil_h = 2; dl.dil_w = 3;
    ds.r = 3; ds.s = 4;
    double wl[3 * 4 * 5], ws[3 * 12 * 5];
    memset(ws, 0, sizeof ws);
    for (int k = 0; k < 3; k++)
        for (int r = 0; r < 2; r++)
            for (int t = 0; t < 2; t++)
                for (int c = 0; c < 5; c++) {
                    double v = data_rng_uniform(&g, -1, 1);
                    v = (double)igemm_bf16_to_float(igemm_float_to_bf16((float)v));
                    wl[((k * 2 + r) * 2 + t) * 5 + c] = v;
                    ws[((k * 3 + 2 * r) * 4 + 3 * t) * 5 + c] = v;
                }
    int64_t pl = 0, ql = 0, ps = 0, qs = 0;
    REQUIRE(igemm_conv2d_output_dims(&dl, &pl, &ql) == IGEMM_STATUS_SUCCESS);
    REQUIRE(igemm_conv2d_output_dims(&ds, &ps, &qs) == IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(pl, ps);
    CHECK_EQ_INT(ql, qs);
    double *y3 = (double *)malloc((size_t)(pl * ql * 3) * sizeof(double));
    double *y4 = (double *)malloc((size_t)(ps * qs * 3) * sizeof(double));
    REQUIRE(run_ref(&dl, NULL, x, wl, NULL, NULL, NULL, y3) == IGEMM_STATUS_SUCCESS);
    REQUIRE(run_ref(&ds, NULL, x, ws, NULL, NULL, NULL, y4) == IGEMM_STATUS_SUCCESS);
    for (int64_t i = 0; i < pl * ql * 3; i++) CHECK_NEAR(y3[i], y4[i], 1e-6);
    free(x); free(w); free(y1); free(y2); free(y3); free(y4);
}

TEST(ref_identity_groups_are_independent_convs)
{
    data_rng_t g = {13};
    const int G = 3, cg = 2, kg = 4;
    igemm_conv2d_desc_t d = mkdesc(2, 4, 5, G * cg, G * kg, 3, 3);
    d.groups = G;
    d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = 1;
    int64_t xn = 2 * 4 * 5 * G * cg, wn = G * kg * 9 * cg, yn = 0;
    REQUIRE(igemm_conv2d_sizes(&d, NULL, NULL, &yn) == IGEMM_STATUS_SUCCESS);
    double *x = rand_vec(xn, &g), *w = rand_vec(wn, &g);
    double *y = (double *)malloc((size_t)yn * sizeof(double));
    REQUIRE(run_ref(&d, NULL, x, w, NULL, NULL, NULL, y) == IGEMM_STATUS_SUCCESS);
    igemm_conv2d_desc_t s = d;
    s.groups = 1; s.c = cg; s.k = kg;
    int64_t pix = yn / (G * kg);
    for (int gi = 0; gi < G; gi++) {
        double *xs = (double *)malloc((size_t)(xn / G) * sizeof(double));
        double *ys = (double *)malloc((size_t)(pix * kg) * sizeof(double));
        for (int64_t px = 0; px < xn / (G * cg); px++)
            for (int c = 0; c < cg; c++) xs[px * cg + c] = x[px * G * cg + gi * cg + c];
        REQUIRE(run_ref(&s, NULL, xs, w + (int64_t)gi * kg * 9 * cg, NULL, NULL, NULL, ys) == IGEMM_STATUS_SUCCESS);
        for (int64_t px = 0; px < pix; px++)
            for (int k = 0; k < kg; k++)
                CHECK_NEAR(y[px * G * kg + gi * kg + k], ys[px * kg + k], 1e-6);
        free(xs);
        free(ys);
    }
    free(x); free(w); free(y);
}

/* ------------------------------------------------------------------ reference errors */

TEST(ref_errors)
{
    igemm_conv2d_desc_t d = mkdesc(1, 1, 1, 1, 1, 1, 1);
    uint16_t x = 0x3F80, w = 0x3F80;
    float y = 0, s = 1;
    igemm_epilogue_t e = igemm_epilogue_default();
    CHECK_EQ_INT(igemm_conv2d_reference(&d, NULL, NULL, &w, NULL, NULL, NULL, &y), IGEMM_STATUS_NULL_POINTER);
    CHECK(strstr(igemm_last_error(), "x = NULL") != NULL);
    CHECK_EQ_INT(igemm_conv2d_reference(&d, NULL, &x, NULL, NULL, NULL, NULL, &y), IGEMM_STATUS_NULL_POINTER);
    CHECK(strstr(igemm_last_error(), "w = NULL") != NULL);
    CHECK_EQ_INT(igemm_conv2d_reference(&d, NULL, &x, &w, NULL, NULL, NULL, NULL), IGEMM_STATUS_NULL_POINTER);
    CHECK(strstr(igemm_last_error(), "y = NULL") != NULL);
    e.has_scale = 1;
    CHECK_EQ_INT(igemm_conv2d_reference(&d, &e, &x, &w, NULL, NULL, NULL, &y), IGEMM_STATUS_NULL_POINTER);
    CHECK(strstr(igemm_last_error(), "scale = NULL") != NULL);
    e.has_bias = 1;
    CHECK_EQ_INT(igemm_conv2d_reference(&d, &e, &x, &w, &s, NULL, NULL, &y), IGEMM_STATUS_NULL_POINTER);
    CHECK(strstr(igemm_last_error(), "bias = NULL") != NULL);
    e.has_bias = 0;
    e.has_residual = 1;
    CHECK_EQ_INT(igemm_conv2d_reference(&d, &e, &x, &w, &s, NULL, NULL, &y), IGEMM_STATUS_NULL_POINTER);
    CHECK(strstr(igemm_last_error(), "residual = NULL") != NULL);
    e = igemm_epilogue_default();
    e.activation = (igemm_activation_t)99;
    CHECK_EQ_INT(igemm_conv2d_reference(&d, &e, &x, &w, NULL, NULL, NULL, &y), IGEMM_STATUS_INVALID_VALUE);
    CHECK(strstr(igemm_last_error(), "activation = 99") != NULL);
    e = igemm_epilogue_default();
    e.alpha = NAN;
    CHECK_EQ_INT(igemm_conv2d_reference(&d, &e, &x, &w, NULL, NULL, NULL, &y), IGEMM_STATUS_INVALID_VALUE);
    CHECK(strstr(igemm_last_error(), "alpha") != NULL);
    d.stride_h = 0;
    CHECK_EQ_INT(igemm_conv2d_reference(&d, NULL, &x, &w, NULL, NULL, NULL, &y), IGEMM_STATUS_INVALID_VALUE);
    CHECK(strstr(igemm_last_error(), "stride_h = 0") != NULL);
    CHECK_EQ_INT(igemm_conv2d_reference(NULL, NULL, &x, &w, NULL, NULL, NULL, &y), IGEMM_STATUS_NULL_POINTER);
    /* a valid call: the message of the previous failure does not matter, the status does */
    d.stride_h = 1;
    CHECK_EQ_INT(igemm_conv2d_reference(&d, NULL, &x, &w, NULL, NULL, NULL, &y), IGEMM_STATUS_SUCCESS);
    CHECK(y == 1.0f);
}
