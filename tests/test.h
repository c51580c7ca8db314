/*
 * test.h — a tiny self-registering C test harness. Each TEST(name) body runs in order of
 * registration; CHECK records a failure and carries on; REQUIRE fails and returns; SKIP marks
 * the test skipped (only for "no GPU on this machine", never to hide a failure).
 * The runner (tests/main.c) prints "N passed, N failed, N skipped" as its last line and exits
 * non-zero if any test failed.
 */
#ifndef IGEMM_TEST_H
#define IGEMM_TEST_H

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn);
void test_fail(const char *file, int line, const char *fmt, ...);
void test_skip(const char *reason);
int test_failed_now(void);
int test_gpu_available(void); /* 1 if a CUDA device is usable (igemm_device_count() > 0) */

#define TEST(name)                                                                     \
    static void test_##name(void);                                                     \
    __attribute__((constructor)) static void test_reg_##name(void)                     \
    {                                                                                  \
        test_register(#name, test_##name);                                             \
    }                                                                                  \
    static void test_##name(void)

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond);                \
    } while (0)
#define CHECK_MSG(cond, ...)                                                           \
    do {                                                                               \
        if (!(cond)) test_fail(__FILE__, __LINE__, __VA_ARGS__);                       \
    } while (0)
#define REQUIRE(cond)                                                                  \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            test_fail(__FILE__, __LINE__, "REQUIRE(%s)", #cond);                       \
            return;                                                                    \
        }                                                                              \
    } while (0)
#define CHECK_EQ_INT(a, b)                                                             \
    do {                                                                               \
        long long a_ = (long long)(a), b_ = (long long)(b);                            \
        if (a_ != b_) test_fail(__FILE__, __LINE__, "%s = %lld, expected %s = %lld", #a, a_, #b, b_); \
    } while (0)
#define CHECK_NEAR(a, b, tol)                                                          \
    do {                                                                               \
        double a_ = (double)(a), b_ = (double)(b);                                     \
        if (!(fabs(a_ - b_) <= (tol)))                                                 \
            test_fail(__FILE__, __LINE__, "%s = %.9g, expected %.9g (tol %g)", #a, a_, b_, (double)(tol)); \
    } while (0)
#define SKIP_WITHOUT_GPU()                                                             \
    do {                                                                               \
        if (!test_gpu_available()) {                                                   \
            test_skip("no CUDA device");                                               \
            return;                                                                    \
        }                                                                              \
    } while (0)

#endif
