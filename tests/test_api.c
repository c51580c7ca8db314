/*
 * test_api.c — the public API's contract: validation of every field (status and a message that
 * names the field and its value), overflow checks, NULL handling, status strings, version,
 * the thread-local error message, plan creation without a GPU, and (GPU only) the operand
 * checks of igemm_plan_run.
 */
#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    o.path = (igemm_path_t)4;
    CHECK_STATUS_MSG(igemm_plan_create(&plan, &d, NULL, &o), IGEMM_STATUS_INVALID_VALUE, "path = 4");
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
