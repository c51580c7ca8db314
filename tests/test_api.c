/*
 * test_api.c — the public API's contract: validation of every field (status and a message that
 * names the field and its value), overflow checks, NULL handling, status strings, version,
 * the thread-local error message, plan creation without a GPU, the experimental plan hints (their
 * text form and their validation in plan creation), the reference's sampled values
 * (igemm_conv2d_reference_elems), and (GPU only) the operand checks of igemm_plan_run.
 */
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data.h"
#include "gpu_util.h"
#include "igemm.h"
#include "test.h"

#ifdef IGEMM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

/* 1 if msg contains needle at a position not preceded by an identifier character (so "c = 0"
 * does not match inside "k = 5, ..."-like text of another field such as "cc = 0"). */
static int names(const char *msg, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = strstr(msg, needle); p; p = strstr(p + 1, needle)) {
        if (p == msg) return 1;
        char b = p[-1];
        if (!((b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') || b == '_'))
            return 1;
        (void)n;
    }
    return 0;
}

#define CHECK_STATUS_MSG(call, status, needle)                                                  \
    do {                                                                                       \
        igemm_status_t st_ = (call);                                                           \
        const char *m_ = igemm_last_error();                                                   \
        CHECK_MSG(st_ == (status), "%s returned %d (%s), expected %d; message: \"%s\"", #call,  \
                  (int)st_, igemm_status_string(st_), (int)(status), m_);                      \
        CHECK_MSG(names(m_, needle), "%s: message \"%s\" does not name \"%s\"", #call, m_,       \
                  needle);                                                                     \
    } while (0)

static igemm_conv2d_desc_t good(void)
{
    igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
    d.n = 2; d.h = 10; d.w = 12; d.c = 64; d.k = 32; d.r = 3; d.s = 3;
    d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = 1;
    return d;
}

TEST(api_defaults_valid)
{
    igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
    CHECK_EQ_INT(igemm_conv2d_validate(&d), IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(d.n, 1);
    CHECK_EQ_INT(d.groups, 1);
    CHECK_EQ_INT(d.stride_h, 1);
    CHECK_EQ_INT(d.dil_w, 1);
    CHECK_EQ_INT(d.x_dtype, IGEMM_DTYPE_BF16);
    CHECK_EQ_INT(d.y_dtype, IGEMM_DTYPE_BF16);
    int64_t p = 0, q = 0, xe = 0, we = 0, ye = 0;
    CHECK_EQ_INT(igemm_conv2d_output_dims(&d, &p, &q), IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(p, 1);
    CHECK_EQ_INT(q, 1);
    CHECK_EQ_INT(igemm_conv2d_sizes(&d, &xe, &we, &ye), IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(xe + we + ye, 3);
    igemm_epilogue_t e = igemm_epilogue_default();
    CHECK(e.alpha == 1.0f && e.beta == 1.0f);
    CHECK(e.has_scale == 0 && e.has_bias == 0 && e.has_residual == 0);
    CHECK_EQ_INT(e.activation, IGEMM_ACT_NONE);
    igemm_plan_options_t o = igemm_plan_options_default();
    CHECK_EQ_INT(o.path, IGEMM_PATH_AUTO);
    CHECK_EQ_INT(o.device, -1);
    CHECK_EQ_INT(igemm_conv2d_validate(&(igemm_conv2d_desc_t){0}) == IGEMM_STATUS_SUCCESS, 0);
}

TEST(api_output_dims_and_sizes)
{
    /* ResNet-50 stem: 224x224x3, 7x7/2, pad 3 -> 112x112x64 */
    igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
    d.n = 8; d.h = 224; d.w = 224; d.c = 3; d.k = 64; d.r = 7; d.s = 7;
    d.stride_h = d.stride_w = 2;
    d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = 3;
    int64_t p = 0, q = 0, xe = 0, we = 0, ye = 0;
    CHECK_EQ_INT(igemm_conv2d_output_dims(&d, &p, &q), IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(p, 112);
    CHECK_EQ_INT(q, 112);
    CHECK_EQ_INT(igemm_conv2d_sizes(&d, &xe, &we, &ye), IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(xe, 8LL * 224 * 224 * 3);
    CHECK_EQ_INT(we, 64LL * 7 * 7 * 3);
    CHECK_EQ_INT(ye, 8LL * 112 * 112 * 64);
    CHECK_EQ_INT(igemm_conv2d_sizes(&d, NULL, NULL, NULL), IGEMM_STATUS_SUCCESS);
    /* asymmetric: h 7, pad 0/2, r 3, dil 2, stride 3: (7 + 2 - 5) / 3 + 1 = 2 */
    igemm_conv2d_desc_t a = igemm_conv2d_desc_default();
    a.h = 7; a.w = 9; a.r = 3; a.s = 2; a.pad_bottom = 2; a.pad_left = 1; a.dil_h = 2; a.dil_w = 3;
    a.stride_h = 3; a.stride_w = 2;
    CHECK_EQ_INT(igemm_conv2d_output_dims(&a, &p, &q), IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(p, 2);
    CHECK_EQ_INT(q, 4); /* extent 3*(2-1)+1 = 4: (9 + 1 - 4) / 2 + 1 */
    /* grouped: w elements use c / groups */
    igemm_conv2d_desc_t g = good();
    g.groups = 4;
    CHECK_EQ_INT(igemm_conv2d_sizes(&g, NULL, &we, NULL), IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(we, 32LL * 3 * 3 * 16);
    /* NULL outputs of output_dims */
    CHECK_STATUS_MSG(igemm_conv2d_output_dims(&d, NULL, &q), IGEMM_STATUS_NULL_POINTER, "p = NULL");
}

TEST(api_each_field_bad_value)
{
    struct { const char *name; size_t off; int64_t lo; } f[] = {
#define F(x, lo) {#x, offsetof(igemm_conv2d_desc_t, x), lo}
        F(n, 1), F(h, 1), F(w, 1), F(c, 1), F(k, 1), F(r, 1), F(s, 1), F(groups, 1),
        F(pad_top, 0), F(pad_bottom, 0), F(pad_left, 0), F(pad_right, 0),
        F(stride_h, 1), F(stride_w, 1), F(dil_h, 1), F(dil_w, 1),
#undef F
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        int64_t bads[3] = {f[i].lo - 1, f[i].lo - 2, INT64_MIN};
        for (int j = 0; j < 3; j++) {
            igemm_conv2d_desc_t d = good();
            *(int64_t *)((char *)&d + f[i].off) = bads[j];
            char needle[64];
            snprintf(needle, sizeof needle, "%s = %lld", f[i].name, (long long)bads[j]);
            igemm_status_t st = igemm_conv2d_validate(&d);
            const char *m = igemm_last_error();
            CHECK_MSG(st == IGEMM_STATUS_INVALID_VALUE, "%s = %lld: status %d (%s), message \"%s\"",
                      f[i].name, (long long)bads[j], (int)st, igemm_status_string(st), m);
            CHECK_MSG(names(m, needle), "%s: message \"%s\" does not contain \"%s\"", f[i].name, m, needle);
            /* every entry point that takes a desc reports the same */
            int64_t p, q;
            CHECK_EQ_INT(igemm_conv2d_output_dims(&d, &p, &q), IGEMM_STATUS_INVALID_VALUE);
            CHECK_EQ_INT(igemm_conv2d_sizes(&d, NULL, NULL, NULL), IGEMM_STATUS_INVALID_VALUE);
        }
    }
    igemm_conv2d_desc_t d = good();
    d.stride_h = 0;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE, "stride_h = 0");
    d = good();
    d.c = -1;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE, "c = -1");
}

TEST(api_groups_must_divide)
{
    igemm_conv2d_desc_t d = good(); /* c = 64, k = 32 */
    d.groups = 3;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE, "groups = 3");
    CHECK(names(igemm_last_error(), "c = 64"));
    d.c = 48; d.k = 20; d.groups = 8; /* divides c, not k */
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE, "groups = 8");
    CHECK(names(igemm_last_error(), "k = 20"));
    d.k = 24;
    CHECK_EQ_INT(igemm_conv2d_validate(&d), IGEMM_STATUS_SUCCESS);
    /* depthwise and depthwise with multiplier */
    d.c = 32; d.k = 32; d.groups = 32;
    CHECK_EQ_INT(igemm_conv2d_validate(&d), IGEMM_STATUS_SUCCESS);
    d.k = 64;
    CHECK_EQ_INT(igemm_conv2d_validate(&d), IGEMM_STATUS_SUCCESS);
    d.groups = 64; /* > c */
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE, "groups = 64");
}

TEST(api_empty_output)
{
    /* h = 8, r = 3, dil 4: dilated extent 9 > 8 */
    igemm_conv2d_desc_t d = good();
    d.h = 8; d.pad_top = d.pad_bottom = 0; d.dil_h = 4;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE, "h = 8");
    CHECK(strstr(igemm_last_error(), "9") != NULL);
    /* padding makes it valid again: 8 + 1 >= 9, p = 1 */
    d.pad_bottom = 1;
    int64_t p = 0, q = 0;
    CHECK_EQ_INT(igemm_conv2d_output_dims(&d, &p, &q), IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(p, 1);
    /* w too small for the filter */
    d = good();
    d.w = 2; d.s = 5; d.pad_left = d.pad_right = 1;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE, "w = 2");
    d.pad_right = 2;
    CHECK_EQ_INT(igemm_conv2d_validate(&d), IGEMM_STATUS_SUCCESS);
}

TEST(api_overflow)
{
    igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
    /* x: n*h*w*c = 2^80 */
    d.n = d.h = d.w = d.c = 1LL << 20;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_OVERFLOW, "x");
    CHECK(strstr(igemm_last_error(), "overflow") != NULL);
    /* x bytes: n*h*w*c = 2^62 elements fits int64, 2^63 bytes does not */
    d.n = d.h = d.w = 1LL << 15; d.c = 1LL << 17;
    CHECK_EQ_INT(igemm_conv2d_validate(&d), IGEMM_STATUS_OVERFLOW);
    /* exactly INT64_MAX + 1 elements */
    d.n = 1LL << 31; d.h = 1LL << 16; d.w = 1LL << 16; d.c = 1;
    CHECK_EQ_INT(igemm_conv2d_validate(&d), IGEMM_STATUS_OVERFLOW);
    /* w: k*r*s*cg = 2^80 */
    d = igemm_conv2d_desc_default();
    d.c = 1LL << 40; d.k = 1LL << 40;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_OVERFLOW, "w");
    /* y: n*p*q*k = 2^90 with x and w small enough */
    d = igemm_conv2d_desc_default();
    d.n = 1LL << 30; d.h = 1LL << 10; d.w = 1; d.c = 1; d.k = 1LL << 50;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_OVERFLOW, "y");
    /* padding and dilation overflow */
    d = good();
    d.pad_top = INT64_MAX;
    CHECK_EQ_INT(igemm_conv2d_validate(&d), IGEMM_STATUS_OVERFLOW);
    d = good();
    d.pad_left = INT64_MAX - 5; d.pad_right = INT64_MAX - 5;
    CHECK_EQ_INT(igemm_conv2d_validate(&d), IGEMM_STATUS_OVERFLOW);
    d = good();
    d.dil_h = INT64_MAX / 2 + 1; /* times r - 1 = 2 */
    CHECK_EQ_INT(igemm_conv2d_validate(&d), IGEMM_STATUS_OVERFLOW);
    d = good();
    d.r = INT64_MAX; d.h = INT64_MAX; /* extent r = INT64_MAX fits, but x overflows */
    d.pad_top = d.pad_bottom = 0;
    CHECK(igemm_conv2d_validate(&d) != IGEMM_STATUS_SUCCESS);
    /* huge stride is fine: p = 1 */
    d = good();
    d.stride_h = d.stride_w = INT64_MAX;
    int64_t p = 0, q = 0;
    CHECK_EQ_INT(igemm_conv2d_output_dims(&d, &p, &q), IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(p, 1);
    CHECK_EQ_INT(q, 1);
}

TEST(api_dtypes)
{
    igemm_conv2d_desc_t d = good();
    igemm_dtype_t ins[2] = {IGEMM_DTYPE_F16, IGEMM_DTYPE_BF16};
    igemm_dtype_t outs[3] = {IGEMM_DTYPE_F16, IGEMM_DTYPE_BF16, IGEMM_DTYPE_F32};
    for (int i = 0; i < 2; i++)
        for (int o = 0; o < 3; o++) {
            d.x_dtype = d.w_dtype = ins[i];
            d.y_dtype = outs[o];
            CHECK_MSG(igemm_conv2d_validate(&d) == IGEMM_STATUS_SUCCESS, "in %d out %d: %s", i, o,
                      igemm_last_error());
        }
    d = good();
    d.x_dtype = d.w_dtype = IGEMM_DTYPE_F32;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_NOT_SUPPORTED, "x_dtype = 2");
    d = good();
    d.x_dtype = (igemm_dtype_t)7;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE, "x_dtype = 7");
    d = good();
    d.x_dtype = (igemm_dtype_t)-1;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE, "x_dtype = -1");
    d = good();
    d.w_dtype = IGEMM_DTYPE_F16; /* x is bf16 */
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE, "w_dtype = 0");
    d = good();
    d.w_dtype = IGEMM_DTYPE_F32;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE, "w_dtype = 2");
    d = good();
    d.y_dtype = (igemm_dtype_t)3;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE, "y_dtype = 3");
    d = good();
    d.y_dtype = (igemm_dtype_t)-5;
    CHECK_STATUS_MSG(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE, "y_dtype = -5");
}

TEST(api_null_pointers)
{
    int64_t p = 0, q = 0;
    CHECK_STATUS_MSG(igemm_conv2d_validate(NULL), IGEMM_STATUS_NULL_POINTER, "desc = NULL");
    CHECK_STATUS_MSG(igemm_conv2d_output_dims(NULL, &p, &q), IGEMM_STATUS_NULL_POINTER, "desc = NULL");
    CHECK_STATUS_MSG(igemm_conv2d_sizes(NULL, NULL, NULL, NULL), IGEMM_STATUS_NULL_POINTER, "desc = NULL");
    igemm_conv2d_desc_t d = good();
    CHECK_STATUS_MSG(igemm_plan_create(NULL, &d, NULL, NULL), IGEMM_STATUS_NULL_POINTER, "plan = NULL");
    igemm_plan_t *plan = (igemm_plan_t *)(uintptr_t)1; /* must be overwritten with NULL */
    CHECK_STATUS_MSG(igemm_plan_create(&plan, NULL, NULL, NULL), IGEMM_STATUS_NULL_POINTER, "desc = NULL");
    CHECK(plan == NULL);
    int dummy[4];
    CHECK_STATUS_MSG(igemm_plan_run(NULL, dummy, dummy, NULL, NULL, NULL, dummy, NULL),
                     IGEMM_STATUS_NULL_POINTER, "plan = NULL");
    igemm_plan_destroy(NULL); /* safe */
    CHECK(strcmp(igemm_plan_describe(NULL), "(null plan)") == 0);
    CHECK_EQ_INT(igemm_plan_path(NULL), IGEMM_PATH_AUTO);
    CHECK_EQ_INT(igemm_plan_workspace_bytes(NULL), 0);
}

TEST(api_epilogue_and_options_validation)
{
    igemm_conv2d_desc_t d = good();
    igemm_plan_t *plan = NULL;
    igemm_epilogue_t e = igemm_epilogue_default();
    e.activation = (igemm_activation_t)99;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, &e, NULL), IGEMM_STATUS_INVALID_VALUE, "activation = 99");
    CHECK(plan == NULL);
    e.activation = (igemm_activation_t)-1;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, &e, NULL), IGEMM_STATUS_INVALID_VALUE, "activation = -1");
    e = igemm_epilogue_default();
    e.alpha = NAN;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, &e, NULL), IGEMM_STATUS_INVALID_VALUE, "alpha");
    e = igemm_epilogue_default();
    e.beta = INFINITY;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, &e, NULL), IGEMM_STATUS_INVALID_VALUE, "beta");
    e = igemm_epilogue_default();
    e.act_param = -INFINITY;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, &e, NULL), IGEMM_STATUS_INVALID_VALUE, "act_param");
    e = igemm_epilogue_default();
    e.has_bias = 2;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, &e, NULL), IGEMM_STATUS_INVALID_VALUE, "has_bias = 2");
    e = igemm_epilogue_default();
    e.has_scale = -1;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, &e, NULL), IGEMM_STATUS_INVALID_VALUE, "has_scale = -1");
    e = igemm_epilogue_default();
    e.has_residual = 7;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, &e, NULL), IGEMM_STATUS_INVALID_VALUE, "has_residual = 7");
    igemm_plan_options_t o = igemm_plan_options_default();
    o.path = (igemm_path_t)6;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, NULL, &o), IGEMM_STATUS_INVALID_VALUE, "path = 6");
    o.path = (igemm_path_t)-1;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, NULL, &o), IGEMM_STATUS_INVALID_VALUE, "path = -1");
    o = igemm_plan_options_default();
    o.device = -2;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, NULL, &o), IGEMM_STATUS_INVALID_VALUE, "device = -2");
    /* a bad desc is reported by plan_create too, before any device query */
    d.k = 0;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, NULL, NULL), IGEMM_STATUS_INVALID_VALUE, "k = 0");
    CHECK(plan == NULL);
}

TEST(api_plan_create_without_gpu)
{
    if (test_gpu_available()) {
        /* with a GPU: a device ordinal past the last one is rejected */
        igemm_conv2d_desc_t d = good();
        igemm_plan_options_t o = igemm_plan_options_default();
        o.device = igemm_device_count();
        igemm_plan_t *plan = NULL;
        char needle[64];
        snprintf(needle, sizeof needle, "device = %d", o.device);
        CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, NULL, &o), IGEMM_STATUS_INVALID_VALUE, needle);
        CHECK(plan == NULL);
        return;
    }
    CHECK_EQ_INT(igemm_device_count(), 0);
    igemm_conv2d_desc_t d = good();
    igemm_plan_t *plan = (igemm_plan_t *)(uintptr_t)1;
    igemm_status_t st = igemm_plan_create(&plan, &d, NULL, NULL);
    CHECK_EQ_INT(st, IGEMM_STATUS_NO_DEVICE);
    CHECK(plan == NULL);
    const char *m = igemm_last_error();
    CHECK_MSG(strlen(m) > 10 && (strstr(m, "CUDA") || strstr(m, "device")), "message \"%s\"", m);
    /* every forced path too */
    for (int p = 0; p <= 3; p++) {
        igemm_plan_options_t o = igemm_plan_options_default();
        o.path = (igemm_path_t)p;
        CHECK_EQ_INT(igemm_plan_create(&plan, &d, NULL, &o), IGEMM_STATUS_NO_DEVICE);
    }
}

TEST(api_status_strings)
{
    const char *seen[10];
    for (int s = 0; s <= 9; s++) {
        const char *str = igemm_status_string((igemm_status_t)s);
        REQUIRE(str != NULL);
        CHECK_MSG(strlen(str) > 0 && strcmp(str, "unknown status") != 0, "status %d: \"%s\"", s, str);
        for (int t = 0; t < s; t++) CHECK_MSG(strcmp(seen[t], str) != 0, "status %d and %d share \"%s\"", t, s, str);
        seen[s] = str;
    }
    CHECK(strcmp(igemm_status_string(IGEMM_STATUS_SUCCESS), "success") == 0);
    CHECK(strcmp(igemm_status_string(IGEMM_STATUS_INVALID_VALUE), "invalid value") == 0);
    CHECK(strcmp(igemm_status_string((igemm_status_t)10), "unknown status") == 0);
    CHECK(strcmp(igemm_status_string((igemm_status_t)-1), "unknown status") == 0);
    CHECK(strcmp(igemm_status_string((igemm_status_t)12345), "unknown status") == 0);
}

TEST(api_version)
{
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", IGEMM_VERSION_MAJOR, IGEMM_VERSION_MINOR, IGEMM_VERSION_PATCH);
    CHECK_MSG(strcmp(igemm_version_string(), want) == 0, "\"%s\" vs \"%s\"", igemm_version_string(), want);
    CHECK_EQ_INT(IGEMM_VERSION, IGEMM_VERSION_MAJOR * 10000 + IGEMM_VERSION_MINOR * 100 + IGEMM_VERSION_PATCH);
    CHECK(igemm_device_count() >= 0);
    CHECK_EQ_INT(igemm_device_count() > 0, test_gpu_available());
}

static char g_thread_msg_before[512], g_thread_msg_after[512];
static void *thread_body(void *arg)
{
    (void)arg;
    snprintf(g_thread_msg_before, sizeof g_thread_msg_before, "%s", igemm_last_error());
    igemm_conv2d_desc_t d = good();
    d.dil_w = 0;
    (void)igemm_conv2d_validate(&d);
    snprintf(g_thread_msg_after, sizeof g_thread_msg_after, "%s", igemm_last_error());
    return NULL;
}

TEST(api_last_error_thread_local)
{
    igemm_conv2d_desc_t d = good();
    d.stride_w = -3;
    CHECK_EQ_INT(igemm_conv2d_validate(&d), IGEMM_STATUS_INVALID_VALUE);
    CHECK(names(igemm_last_error(), "stride_w = -3"));
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, thread_body, NULL) == 0);
    REQUIRE(pthread_join(t, NULL) == 0);
    CHECK_MSG(g_thread_msg_before[0] == '\0', "a new thread sees \"%s\"", g_thread_msg_before);
    CHECK_MSG(names(g_thread_msg_after, "dil_w = 0"), "thread's message \"%s\"", g_thread_msg_after);
    /* the second thread's failure did not touch this thread's message */
    CHECK_MSG(names(igemm_last_error(), "stride_w = -3"), "main thread's message now \"%s\"", igemm_last_error());
    CHECK(igemm_last_error() != NULL);
}

/* ------------------------------------------------------------------ plan hints (experimental) */

TEST(api_hints_parse_every_key)
{
    igemm_plan_hints_t h;
    const igemm_plan_hints_t zero = igemm_plan_hints_default();
    CHECK_EQ_INT(zero.kernel | zero.tile_m | zero.tile_n | zero.consumers | zero.stages | zero.split_k | zero.grid |
                     zero.staging_boxes | zero.filter_resident | zero.pdl | zero.rows_per_tile | zero.fold_rows |
                     zero.stem_prepass,
                 0);
    CHECK_EQ_INT(igemm_plan_hints_parse(NULL, &h), IGEMM_STATUS_SUCCESS);
    CHECK(memcmp(&h, &zero, sizeof h) == 0);
    h.grid = 7; /* parse starts from the defaults */
    CHECK_EQ_INT(igemm_plan_hints_parse("", &h), IGEMM_STATUS_SUCCESS);
    CHECK(memcmp(&h, &zero, sizeof h) == 0);
    CHECK_EQ_INT(igemm_plan_hints_parse("kernel=pingpong,tile=128x64,consumers=2,stages=5,split_k=3,grid=17,"
                                        "staging_boxes=4,filter_resident=on,pdl=off,rows_per_tile=2,fold_rows=3,"
                                        "stem_prepass=1",
                                        &h),
                 IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(h.kernel, IGEMM_KERNEL_PINGPONG);
    CHECK_EQ_INT(h.tile_m, 128);
    CHECK_EQ_INT(h.tile_n, 64);
    CHECK_EQ_INT(h.consumers, 2);
    CHECK_EQ_INT(h.stages, 5);
    CHECK_EQ_INT(h.split_k, 3);
    CHECK_EQ_INT(h.grid, 17);
    CHECK_EQ_INT(h.staging_boxes, 4);
    CHECK_EQ_INT(h.filter_resident, 1);
    CHECK_EQ_INT(h.pdl, -1);
    CHECK_EQ_INT(h.rows_per_tile, 2);
    CHECK_EQ_INT(h.fold_rows, 3);
    CHECK_EQ_INT(h.stem_prepass, 1);
    /* tile_m / tile_n alone; on/off as yes/no and as 1/-1; auto is 0; empty items are skipped */
    CHECK_EQ_INT(igemm_plan_hints_parse("tile_m=192,,tile_n=256,filter_resident=-1,pdl=yes,", &h), IGEMM_STATUS_SUCCESS);
    CHECK(h.tile_m == 192 && h.tile_n == 256 && h.filter_resident == -1 && h.pdl == 1 && h.kernel == 0);
    CHECK_EQ_INT(igemm_plan_hints_parse("filter_resident=no,pdl=1,grid=auto", &h), IGEMM_STATUS_SUCCESS);
    CHECK(h.filter_resident == -1 && h.pdl == 1 && h.grid == 0);
    /* every kernel by name and by number; a later key wins */
    static const char *const kernels[13] = {"auto",          "cooperative", "pingpong",        "pixels_n",
                                            "pixels_n_pingpong", "halo_rows", "split_cluster",   "stem_rows",
                                            "fold",          "depthwise_tiled", "depthwise_mma", "depthwise_tma",
                                            "tcgen05"};
    for (int k = 0; k < 13; k++) {
        char text[64];
        snprintf(text, sizeof text, "kernel=%s", kernels[k]);
        CHECK_MSG(igemm_plan_hints_parse(text, &h) == IGEMM_STATUS_SUCCESS && h.kernel == k, "%s: %s, kernel %d", text,
                  igemm_last_error(), h.kernel);
        snprintf(text, sizeof text, "kernel=fold,kernel=%d", k);
        CHECK_MSG(igemm_plan_hints_parse(text, &h) == IGEMM_STATUS_SUCCESS && h.kernel == k, "%s: %s, kernel %d", text,
                  igemm_last_error(), h.kernel);
    }
    CHECK_EQ_INT(IGEMM_KERNEL_FOLD, 8);
    CHECK_EQ_INT(IGEMM_KERNEL_DEPTHWISE_TILED, 9);
    CHECK_EQ_INT(IGEMM_KERNEL_DEPTHWISE_MMA, 10);
    CHECK_EQ_INT(IGEMM_KERNEL_DEPTHWISE_TMA, 11);
    CHECK_EQ_INT(IGEMM_KERNEL_TCGEN05, 12);
    CHECK_EQ_INT(IGEMM_PATH_SM100, 5);
    CHECK_EQ_INT(igemm_plan_hints_parse("self_check=-1", &h), IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(h.self_check, -1);
}

TEST(api_hints_parse_errors)
{
    igemm_plan_hints_t h;
    CHECK_STATUS_MSG(igemm_plan_hints_parse("grid=4", NULL), IGEMM_STATUS_NULL_POINTER, "hints = NULL");
    /* unknown key, missing '=', values that are no numbers, bad kernels and tiles: each names the key */
    CHECK_STATUS_MSG(igemm_plan_hints_parse("grid=4,tiles=128x64", &h), IGEMM_STATUS_INVALID_VALUE, "\"tiles\"");
    CHECK_STATUS_MSG(igemm_plan_hints_parse("Grid=4", &h), IGEMM_STATUS_INVALID_VALUE, "\"Grid\"");
    CHECK_STATUS_MSG(igemm_plan_hints_parse("grid", &h), IGEMM_STATUS_INVALID_VALUE, "\"grid\"");
    CHECK_STATUS_MSG(igemm_plan_hints_parse("grid=", &h), IGEMM_STATUS_INVALID_VALUE, "grid");
    CHECK_STATUS_MSG(igemm_plan_hints_parse("stages=four", &h), IGEMM_STATUS_INVALID_VALUE, "stages");
    CHECK_STATUS_MSG(igemm_plan_hints_parse("split_k=2x", &h), IGEMM_STATUS_INVALID_VALUE, "split_k");
    CHECK_STATUS_MSG(igemm_plan_hints_parse("kernel=warp", &h), IGEMM_STATUS_INVALID_VALUE, "kernel");
    CHECK(strstr(igemm_last_error(), "warp") != NULL);
    CHECK_STATUS_MSG(igemm_plan_hints_parse("kernel=13", &h), IGEMM_STATUS_INVALID_VALUE, "kernel");
    CHECK_STATUS_MSG(igemm_plan_hints_parse("kernel=-1", &h), IGEMM_STATUS_INVALID_VALUE, "kernel");
    CHECK_STATUS_MSG(igemm_plan_hints_parse("tile=128", &h), IGEMM_STATUS_INVALID_VALUE, "tile");
    CHECK_STATUS_MSG(igemm_plan_hints_parse("tile=128x", &h), IGEMM_STATUS_INVALID_VALUE, "tile");
    CHECK_STATUS_MSG(igemm_plan_hints_parse("tile=-128x64", &h), IGEMM_STATUS_INVALID_VALUE, "tile");
    /* out of range: the message names the field, its value and the range */
    static const struct {
        const char *text, *needle;
    } range[] = {
        {"grid=-1", "hints.grid = -1"},         {"stages=1", "hints.stages = 1"},
        {"stages=65", "hints.stages = 65"},     {"split_k=65", "hints.split_k = 65"},
        {"consumers=5", "hints.consumers = 5"}, {"staging_boxes=7", "hints.staging_boxes = 7"},
        {"filter_resident=2", "hints.filter_resident = 2"}, {"pdl=-2", "hints.pdl = -2"},
        {"rows_per_tile=65", "hints.rows_per_tile = 65"},   {"fold_rows=65", "hints.fold_rows = 65"},
        {"stem_prepass=-1", "hints.stem_prepass = -1"},   {"tile_m=-8", "hints.tile_m = -8"},
        {"tile_n=5000", "hints.tile_n = 5000"}, {"self_check=1", "hints.self_check = 1"},
    };
    for (size_t i = 0; i < sizeof range / sizeof range[0]; i++)
        CHECK_STATUS_MSG(igemm_plan_hints_parse(range[i].text, &h), IGEMM_STATUS_INVALID_VALUE, range[i].needle);
}

/* Plan creation validates the hints before the problem and before any device query (so these
 * hold with and without a GPU), and an out-of-range field is named. */
TEST(api_hints_validated_by_plan_create)
{
    igemm_conv2d_desc_t d = good();
    igemm_plan_hints_t h = igemm_plan_hints_default();
    igemm_plan_options_t o = igemm_plan_options_default();
    igemm_plan_t *plan = (igemm_plan_t *)(uintptr_t)1;
    CHECK(o.hints == NULL);
    o.hints = &h;
    h.grid = -3;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, NULL, &o), IGEMM_STATUS_INVALID_VALUE, "hints.grid = -3");
    CHECK(plan == NULL);
    d.k = 0; /* the hints are checked first */
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, NULL, &o), IGEMM_STATUS_INVALID_VALUE, "hints.grid = -3");
    d = good();
    static const struct {
        size_t off;
        int bad;
        const char *needle;
    } fields[] = {
        {offsetof(igemm_plan_hints_t, kernel), 13, "hints.kernel = 13"},
        {offsetof(igemm_plan_hints_t, tile_m), -1, "hints.tile_m = -1"},
        {offsetof(igemm_plan_hints_t, tile_n), 4097, "hints.tile_n = 4097"},
        {offsetof(igemm_plan_hints_t, consumers), -2, "hints.consumers = -2"},
        {offsetof(igemm_plan_hints_t, stages), 1, "hints.stages = 1"},
        {offsetof(igemm_plan_hints_t, split_k), -1, "hints.split_k = -1"},
        {offsetof(igemm_plan_hints_t, staging_boxes), 7, "hints.staging_boxes = 7"},
        {offsetof(igemm_plan_hints_t, filter_resident), -2, "hints.filter_resident = -2"},
        {offsetof(igemm_plan_hints_t, pdl), 2, "hints.pdl = 2"},
        {offsetof(igemm_plan_hints_t, rows_per_tile), 65, "hints.rows_per_tile = 65"},
        {offsetof(igemm_plan_hints_t, fold_rows), -4, "hints.fold_rows = -4"},
        {offsetof(igemm_plan_hints_t, stem_prepass), 2, "hints.stem_prepass = 2"},
        {offsetof(igemm_plan_hints_t, self_check), 1, "hints.self_check = 1"},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        h = igemm_plan_hints_default();
        *(int *)((char *)&h + fields[i].off) = fields[i].bad;
        CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, NULL, &o), IGEMM_STATUS_INVALID_VALUE, fields[i].needle);
        CHECK(plan == NULL);
    }
    /* valid hints get as far as the device: NO_DEVICE without a GPU */
    if (!test_gpu_available()) {
        REQUIRE(igemm_plan_hints_parse("kernel=pingpong,grid=4", &h) == IGEMM_STATUS_SUCCESS);
        CHECK_EQ_INT(igemm_plan_create(&plan, &d, NULL, &o), IGEMM_STATUS_NO_DEVICE);
    }
}

/* ------------------------------------------------------------------ sampled reference values */

/* One ulp of y's dtype at |v| (the spacing of the representable values just above |v|). */
static double ulp_of(double v, igemm_dtype_t dt)
{
    const int mant = dt == IGEMM_DTYPE_F32 ? 23 : dt == IGEMM_DTYPE_F16 ? 10 : 7;
    const int emin = dt == IGEMM_DTYPE_F32 ? -126 : dt == IGEMM_DTYPE_F16 ? -14 : -126;
    int e = 0;
    (void)frexp(fabs(v), &e); /* |v| in [2^(e-1), 2^e) */
    e -= 1;
    if (e < emin) e = emin;
    return ldexp(1.0, e - mant);
}

/* igemm_conv2d_reference_elems gives the values before rounding; igemm_conv2d_reference the
 * rounded output: every element within one ulp of y's dtype, on small random problems (grouped,
 * strided, dilated, asymmetric padding) under a full epilogue, every output dtype. */
TEST(api_reference_elems_matches_reference)
{
    data_rng_t g = {test_seed(0xe1e5)};
    for (int variant = 0; variant < 6; variant++) {
        igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
        d.n = 2; d.h = 7; d.w = 9; d.c = 6; d.k = 10; d.r = 3; d.s = 2;
        d.stride_h = 2; d.dil_w = 2; d.pad_top = 1; d.pad_bottom = 2; d.pad_left = 0; d.pad_right = 1;
        d.groups = variant % 2 ? 2 : 1;
        d.x_dtype = d.w_dtype = variant < 3 ? IGEMM_DTYPE_BF16 : IGEMM_DTYPE_F16;
        d.y_dtype = (igemm_dtype_t)(variant % 3);
        igemm_epilogue_t e = igemm_epilogue_default();
        e.has_scale = e.has_bias = e.has_residual = 1;
        e.alpha = 0.75f;
        e.beta = -0.5f;
        e.activation = variant % 2 ? IGEMM_ACT_GELU_ERF : IGEMM_ACT_LEAKY_RELU;
        e.act_param = 0.125f;
        int64_t xe = 0, we = 0, ye = 0;
        REQUIRE(igemm_conv2d_sizes(&d, &xe, &we, &ye) == IGEMM_STATUS_SUCCESS);
        const size_t ysz = data_dtype_bytes(d.y_dtype);
        void *x = malloc((size_t)xe * 2), *w = malloc((size_t)we * 2), *res = malloc((size_t)ye * ysz);
        void *y = malloc((size_t)ye * ysz);
        float scale[10], bias[10];
        int64_t *idx = (int64_t *)malloc((size_t)ye * sizeof(int64_t));
        double *vals = (double *)malloc((size_t)ye * sizeof(double));
        REQUIRE(x && w && res && y && idx && vals);
        data_fill(x, xe, d.x_dtype, -1, 1, &g);
        data_fill(w, we, d.w_dtype, -1, 1, &g);
        data_fill(res, ye, d.y_dtype, -1, 1, &g);
        for (int k = 0; k < 10; k++) {
            scale[k] = (float)data_rng_uniform(&g, -2, 2);
            bias[k] = (float)data_rng_uniform(&g, -1, 1);
        }
        REQUIRE(igemm_conv2d_reference(&d, &e, x, w, scale, bias, res, y) == IGEMM_STATUS_SUCCESS);
        for (int64_t i = 0; i < ye; i++) idx[i] = ye - 1 - i; /* every element, in reverse order */
        CHECK_EQ_INT(igemm_conv2d_reference_elems(&d, &e, x, w, scale, bias, res, idx, ye, vals), IGEMM_STATUS_SUCCESS);
        int bad = 0, nonzero = 0;
        for (int64_t i = 0; i < ye; i++) {
            const double full = data_get(y, idx[i], d.y_dtype);
            nonzero += vals[i] != 0.0;
            if (!(fabs(full - vals[i]) <= ulp_of(vals[i], d.y_dtype)) && bad++ < 3)
                test_fail(__FILE__, __LINE__, "variant %d: y[%lld] = %.9g, reference_elems %.12g (ulp %g)", variant,
                          (long long)idx[i], full, vals[i], ulp_of(vals[i], d.y_dtype));
        }
        CHECK_MSG(bad == 0 && nonzero > ye / 2, "variant %d: %d of %lld differ by more than an ulp, %d nonzero",
                  variant, bad, (long long)ye, nonzero);
        /* a sample with repeats; count 0 (idx and out may then be NULL) */
        const int64_t some[4] = {5, 0, ye - 1, 5};
        double sv[4];
        CHECK_EQ_INT(igemm_conv2d_reference_elems(&d, &e, x, w, scale, bias, res, some, 4, sv), IGEMM_STATUS_SUCCESS);
        CHECK(sv[0] == sv[3] && fabs(sv[2] - data_get(y, ye - 1, d.y_dtype)) <= ulp_of(sv[2], d.y_dtype));
        CHECK_EQ_INT(igemm_conv2d_reference_elems(&d, &e, x, w, scale, bias, res, NULL, 0, NULL), IGEMM_STATUS_SUCCESS);
        /* an index out of range is named; so are missing operands */
        char needle[64];
        const int64_t out_of_range[3] = {0, ye, 1};
        snprintf(needle, sizeof needle, "idx[1] = %lld", (long long)ye);
        CHECK_STATUS_MSG(igemm_conv2d_reference_elems(&d, &e, x, w, scale, bias, res, out_of_range, 3, sv),
                         IGEMM_STATUS_INVALID_VALUE, needle);
        const int64_t negative[2] = {3, -1};
        CHECK_STATUS_MSG(igemm_conv2d_reference_elems(&d, &e, x, w, scale, bias, res, negative, 2, sv),
                         IGEMM_STATUS_INVALID_VALUE, "idx[1] = -1");
        CHECK_STATUS_MSG(igemm_conv2d_reference_elems(&d, &e, x, w, scale, bias, res, NULL, 2, sv),
                         IGEMM_STATUS_NULL_POINTER, "idx = NULL");
        CHECK_STATUS_MSG(igemm_conv2d_reference_elems(&d, &e, x, w, scale, bias, res, some, 2, NULL),
                         IGEMM_STATUS_NULL_POINTER, "out = NULL");
        CHECK_EQ_INT(igemm_conv2d_reference_elems(&d, &e, x, w, scale, bias, res, some, -1, sv),
                     IGEMM_STATUS_INVALID_VALUE);
        d.stride_w = 0;
        CHECK_STATUS_MSG(igemm_conv2d_reference_elems(&d, &e, x, w, scale, bias, res, some, 2, sv),
                         IGEMM_STATUS_INVALID_VALUE, "stride_w = 0");
        free(x); free(w); free(res); free(y); free(idx); free(vals);
    }
}

/* ------------------------------------------------------------------ run() checks (GPU) */

#ifdef IGEMM_HAVE_CUDA
TEST(api_run_operand_checks)
{
    SKIP_WITHOUT_GPU();
    igemm_conv2d_desc_t d = good();
    d.y_dtype = IGEMM_DTYPE_F32;
    int64_t xe = 0, we = 0, ye = 0;
    REQUIRE(igemm_conv2d_sizes(&d, &xe, &we, &ye) == IGEMM_STATUS_SUCCESS);
    igemm_epilogue_t e = igemm_epilogue_default();
    igemm_plan_t *plan = NULL;
    REQUIRE(igemm_plan_create(&plan, &d, &e, NULL) == IGEMM_STATUS_SUCCESS);
    CHECK(plan != NULL);
    CHECK(igemm_plan_path(plan) != IGEMM_PATH_AUTO);
    CHECK(strlen(igemm_plan_describe(plan)) > 0);
    dbuf_t x, w, y, b;
    REQUIRE(dbuf_alloc(&x, (size_t)xe * 2 + 64, 0, 0) == 0);
    REQUIRE(dbuf_alloc(&w, (size_t)we * 2 + 64, 0, 0) == 0);
    REQUIRE(dbuf_alloc(&y, (size_t)ye * 4 + 64, 0, 0) == 0);
    REQUIRE(dbuf_alloc(&b, 64 * 4, 0, 0) == 0);
    cudaMemset(x.ptr, 0, x.bytes);
    cudaMemset(w.ptr, 0, w.bytes);
    char *xp = (char *)x.ptr, *wp = (char *)w.ptr, *yp = (char *)y.ptr;
    CHECK_STATUS_MSG(igemm_plan_run(plan, NULL, wp, NULL, NULL, NULL, yp, NULL), IGEMM_STATUS_NULL_POINTER, "x = NULL");
    CHECK_STATUS_MSG(igemm_plan_run(plan, xp, NULL, NULL, NULL, NULL, yp, NULL), IGEMM_STATUS_NULL_POINTER, "w = NULL");
    CHECK_STATUS_MSG(igemm_plan_run(plan, xp, wp, NULL, NULL, NULL, NULL, NULL), IGEMM_STATUS_NULL_POINTER, "y = NULL");
    CHECK_STATUS_MSG(igemm_plan_run(plan, xp, wp, NULL, (const float *)b.ptr, NULL, yp, NULL),
                     IGEMM_STATUS_INVALID_VALUE, "bias");
    CHECK_STATUS_MSG(igemm_plan_run(plan, xp, wp, (const float *)b.ptr, NULL, NULL, yp, NULL),
                     IGEMM_STATUS_INVALID_VALUE, "scale");
    CHECK_STATUS_MSG(igemm_plan_run(plan, xp, wp, NULL, NULL, yp, yp, NULL), IGEMM_STATUS_INVALID_VALUE, "residual");
    CHECK_STATUS_MSG(igemm_plan_run(plan, xp + 1, wp, NULL, NULL, NULL, yp, NULL), IGEMM_STATUS_MISALIGNED, "x");
    CHECK_STATUS_MSG(igemm_plan_run(plan, xp, wp + 1, NULL, NULL, NULL, yp, NULL), IGEMM_STATUS_MISALIGNED, "w");
    CHECK_STATUS_MSG(igemm_plan_run(plan, xp, wp, NULL, NULL, NULL, yp + 2, NULL), IGEMM_STATUS_MISALIGNED, "y");
    /* a valid run succeeds */
    CHECK_EQ_INT(igemm_plan_run(plan, xp, wp, NULL, NULL, NULL, yp, NULL), IGEMM_STATUS_SUCCESS);
    CHECK_EQ_INT(cudaDeviceSynchronize(), cudaSuccess);
    igemm_plan_destroy(plan);

    /* a plan with bias and residual: missing operands are NULL_POINTER */
    e.has_bias = 1;
    e.has_residual = 1;
    plan = NULL;
    REQUIRE(igemm_plan_create(&plan, &d, &e, NULL) == IGEMM_STATUS_SUCCESS);
    CHECK_STATUS_MSG(igemm_plan_run(plan, xp, wp, NULL, NULL, yp, yp, NULL), IGEMM_STATUS_NULL_POINTER, "bias = NULL");
    CHECK_STATUS_MSG(igemm_plan_run(plan, xp, wp, NULL, (const float *)b.ptr, NULL, yp, NULL),
                     IGEMM_STATUS_NULL_POINTER, "residual = NULL");
    CHECK_STATUS_MSG(igemm_plan_run(plan, xp, wp, NULL, (const float *)(b.ptr) , yp + 2, yp, NULL),
                     IGEMM_STATUS_MISALIGNED, "residual");
    CHECK_STATUS_MSG(igemm_plan_run(plan, xp, wp, NULL, (const float *)((char *)b.ptr + 2), yp, yp, NULL),
                     IGEMM_STATUS_MISALIGNED, "bias");
    igemm_plan_destroy(plan);
    dbuf_free(&x);
    dbuf_free(&w);
    dbuf_free(&y);
    dbuf_free(&b);
}
#endif
