/*
 * test_cli.h — helpers of the CLI tests (test_cli.c: the CLI's pieces; test_cli_bin.c: the built
 * binary): temporary files, the binary next to the test binary, running it.
 */
#ifndef IGEMM_TEST_CLI_H
#define IGEMM_TEST_CLI_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"

/* ---- helpers ---- */

/* Writes text to a fresh temporary file; returns its path (static buffer per slot). */
static inline const char *tcli_tmpfile(int slot, const char *text)
{
    static char paths[4][64];
    int fd;
    FILE *f;
    snprintf(paths[slot], sizeof paths[slot], "/tmp/igemm_test_cli_XXXXXX");
    fd = mkstemp(paths[slot]);
    if (fd < 0) return NULL;
    f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        return NULL;
    }
    fputs(text, f);
    fclose(f);
    return paths[slot];
}

/* Directory of this test binary ("" on failure). */
static inline const char *tcli_exe_dir(void)
{
    static char dir[PATH_MAX];
    static int done;
    if (!done) {
        ssize_t n = readlink("/proc/self/exe", dir, sizeof dir - 1);
        done = 1;
        if (n <= 0) {
            dir[0] = '\0';
        } else {
            char *slash;
            dir[n] = '\0';
            slash = strrchr(dir, '/');
            if (slash) *slash = '\0';
        }
    }
    return dir;
}

/* Path of the igemm binary, or NULL if it is not built. */
static inline const char *tcli_bin(void)
{
    static char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/igemm", tcli_exe_dir());
    if (access(path, X_OK) == 0) return path;
    snprintf(path, sizeof path, "build/igemm");
    if (access(path, X_OK) == 0) return path;
    return NULL;
}

/* Runs `igemm ARGS` (stdout and stderr captured together into out). Returns the exit status,
 * or -1 if it could not run or did not exit normally. */
static inline int tcli_run(const char *args, char *out, size_t outlen)
{
    char cmd[2048];
    FILE *p;
    size_t n = 0;
    int st;
    const char *bin = tcli_bin();
    if (out && outlen) out[0] = '\0';
    if (!bin) return -1;
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", bin, args);
    p = popen(cmd, "r");
    if (!p) return -1;
    for (;;) {
        char buf[4096];
        size_t got = fread(buf, 1, sizeof buf, p);
        if (got == 0) break;
        if (out && n + 1 < outlen) {
            size_t take = got < outlen - 1 - n ? got : outlen - 1 - n;
            memcpy(out + n, buf, take);
            n += take;
            out[n] = '\0';
        }
    }
    st = pclose(p);
    if (st == -1 || !WIFEXITED(st)) return -1;
    return WEXITSTATUS(st);
}

#define SKIP_WITHOUT_CLI()                                                              \
    do {                                                                                \
        if (!tcli_bin()) {                                                              \
            test_skip("build/igemm not built");                                         \
            return;                                                                     \
        }                                                                               \
    } while (0)

/* The repository's suite, bench/shapes.csv (beside build/, where this binary is). */
static inline const char *tcli_shapes_csv(void)
{
    static char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/../bench/shapes.csv", tcli_exe_dir());
    if (access(path, R_OK) == 0) return path;
    return NULL;
}

/* ---- integer and option values ---- */

#endif /* IGEMM_TEST_CLI_H */
