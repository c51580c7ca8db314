/* main.c — runner for the C tests: runs every registered test (or those whose name contains
 * argv[1]), prints one line per failure and skip, and the summary line CI reads. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "igemm.h"
#include "test.h"

#define MAX_TESTS 1024
static struct { const char *name; test_fn fn; } g_tests[MAX_TESTS];
static int g_ntests;
static int g_cur_failed, g_cur_skipped;
static const char *g_cur_name;

void test_register(const char *name, test_fn fn)
{
    if (g_ntests < MAX_TESTS) {
        g_tests[g_ntests].name = name;
        g_tests[g_ntests].fn = fn;
        g_ntests++;
    }
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    if (g_cur_failed < 20) {
        fprintf(stdout, "  FAIL %s (%s:%d): ", g_cur_name, file, line);
        va_start(ap, fmt);
        vfprintf(stdout, fmt, ap);
        va_end(ap);
        fputc('\n', stdout);
    }
    g_cur_failed++;
}

void test_skip(const char *reason)
{
    fprintf(stdout, "  SKIP %s: %s\n", g_cur_name, reason);
    g_cur_skipped = 1;
}

int test_failed_now(void) { return g_cur_failed; }

int test_gpu_available(void)
{
    static int cached = -1;
    if (cached < 0) cached = igemm_device_count() > 0;
    return cached;
}


int main(int argc, char **argv)
{
    int passed = 0, failed = 0, skipped = 0;
    const char *filter = argc > 1 ? argv[1] : NULL;
    fprintf(stdout, "igemm %s tests: %d registered, GPU %s\n", igemm_version_string(), g_ntests,
            test_gpu_available() ? "available" : "not available (GPU tests skip)");
    for (int i = 0; i < g_ntests; i++) {
        if (filter && !strstr(g_tests[i].name, filter)) continue;
        g_cur_name = g_tests[i].name;
        g_cur_failed = 0;
        g_cur_skipped = 0;
        clock_t t0 = clock();
        g_tests[i].fn();
        double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
        if (g_cur_failed) {
            failed++;
            fprintf(stdout, "[FAIL] %s (%d failed checks)\n", g_cur_name, g_cur_failed);
        } else if (g_cur_skipped) {
            skipped++;
        } else {
            passed++;
            fprintf(stdout, "[ ok ] %s (%.2fs)\n", g_cur_name, secs);
        }
        fflush(stdout);
    }
    fprintf(stdout, "%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed ? 1 : 0;
}
