/*
 * test_cli_bin.c — the exit codes and messages of the built igemm CLI (build/igemm, next to this
 * test binary; the tests skip if it is missing): usage errors, malformed shape files, info, run,
 * check and bench on small problems.
 */
#include <stdio.h>
#include <string.h>

#include "igemm.h"
#include "test.h"
#include "test_cli.h"

TEST(cli_bin_help_and_usage_errors)
{
    char out[16384];
    SKIP_WITHOUT_CLI();
    CHECK_EQ_INT(tcli_run("--help", out, sizeof out), 0);
    CHECK(strstr(out, "usage: igemm") != NULL);
    CHECK_EQ_INT(tcli_run("help", out, sizeof out), 0);
    CHECK_EQ_INT(tcli_run("run --help", out, sizeof out), 0);
    CHECK_EQ_INT(tcli_run("", out, sizeof out), 2);
    CHECK(strstr(out, "usage: igemm") != NULL);
    CHECK_EQ_INT(tcli_run("frobnicate", out, sizeof out), 2);
    CHECK(strstr(out, "unknown command 'frobnicate'") != NULL);
    CHECK_EQ_INT(tcli_run("run --bogus", out, sizeof out), 2);
    CHECK(strstr(out, "unknown option '--bogus'") != NULL);
    CHECK_EQ_INT(tcli_run("run --dtype f32", out, sizeof out), 2);
    CHECK_EQ_INT(tcli_run("run --out-dtype int8", out, sizeof out), 2);
    CHECK_EQ_INT(tcli_run("bench --iters 0", out, sizeof out), 2);
    CHECK_EQ_INT(tcli_run("bench --iters", out, sizeof out), 2);
    CHECK(strstr(out, "needs a value") != NULL);
    CHECK_EQ_INT(tcli_run("bench --vs mkl", out, sizeof out), 2);
    CHECK_EQ_INT(tcli_run("bench --timing sometimes", out, sizeof out), 2);
    CHECK(strstr(out, "--timing 'sometimes'") != NULL);
    CHECK_EQ_INT(tcli_run("run --sets 0", out, sizeof out), 2);
    CHECK(strstr(out, "--sets '0'") != NULL);
    CHECK_EQ_INT(tcli_run("check --sets 2", out, sizeof out), 2); /* run/bench-only option */
    CHECK_EQ_INT(tcli_run("run --hints bogus=1", out, sizeof out), 2);
    CHECK_MSG(strstr(out, "--hints 'bogus=1'") != NULL && strstr(out, "\"bogus\"") != NULL, "output '%s'", out);
    CHECK_EQ_INT(tcli_run("check --hints kernel=nope", out, sizeof out), 2);
    CHECK_MSG(strstr(out, "kernel") != NULL, "output '%s'", out);
    CHECK_EQ_INT(tcli_run("info --hints grid=1", out, sizeof out), 2);
    CHECK_EQ_INT(tcli_run("check --timing per-call", out, sizeof out), 2); /* run/bench-only option */
    CHECK_EQ_INT(tcli_run("bench --fused=yes", out, sizeof out), 2);
    CHECK_EQ_INT(tcli_run("run stray", out, sizeof out), 2);
    CHECK_EQ_INT(tcli_run("run --epilogue all", out, sizeof out), 2); /* check-only option */
    CHECK_EQ_INT(tcli_run("check --epilogue nope", out, sizeof out), 2);
    CHECK_EQ_INT(tcli_run("check --path fastest", out, sizeof out), 2);
    CHECK_EQ_INT(tcli_run("info --shape 1,2", out, sizeof out), 2);
    CHECK_EQ_INT(tcli_run("run --shape 1,2,3,4", out, sizeof out), 2);
    CHECK(strstr(out, "13 numbers") != NULL);
    CHECK_EQ_INT(tcli_run("bench --vs cublas --vs cudnn", out, sizeof out), 2);
    CHECK(strstr(out, "one of cudnn and cublas") != NULL);
    CHECK_EQ_INT(tcli_run("bench --vs mkl", out, sizeof out), 2);
    CHECK(strstr(out, "expected cudnn or cublas") != NULL);
    CHECK_EQ_INT(tcli_run("bench --gemm --shape 1,8,8,16,16,3,3,1,1,1,1,1,1", out, sizeof out), 2);
    CHECK(strstr(out, "not a GEMM line") != NULL);
    /* Parses as a shape but the library rejects it: groups must divide c. */
    CHECK_EQ_INT(tcli_run("run --shape 1,8,8,15,16,3,3,1,1,1,1,1,1,2", out, sizeof out), 2);
    CHECK(strstr(out, "groups") != NULL);
}

TEST(cli_bin_malformed_shape_files)
{
    char out[16384], args[512], want[256];
    const char *bad = tcli_tmpfile(0, "ok,1,8,8,16,16,3,3,1,1,1,1,1,1\nbad,1,2,3,4,5,6,7,8\n");
    const char *nonint = tcli_tmpfile(1, "# c\na,1,8,8,16,16,3,3,x,1,1,1,1,1\n");
    const char *invalid = tcli_tmpfile(2, "a,1,8,8,15,16,3,3,1,1,1,1,1,1,2\n");
    SKIP_WITHOUT_CLI();
    REQUIRE(bad && nonint && invalid);
    snprintf(want, sizeof want, "%s:2: expected 14 fields, got 9", bad);
    {
        static const char *const cmds[] = {"run", "check", "bench"};
        for (int i = 0; i < 3; i++) {
            snprintf(args, sizeof args, "%s --shapes '%s'", cmds[i], bad);
            CHECK_EQ_INT(tcli_run(args, out, sizeof out), 1);
            CHECK_MSG(strstr(out, want) != NULL, "%s: output '%s'", cmds[i], out);
        }
    }
    snprintf(args, sizeof args, "check --shapes '%s'", nonint);
    CHECK_EQ_INT(tcli_run(args, out, sizeof out), 1);
    snprintf(want, sizeof want, "%s:2: field 'stride_h' = 'x' is not an integer", nonint);
    CHECK_MSG(strstr(out, want) != NULL, "output '%s'", out);
    snprintf(args, sizeof args, "bench --shapes '%s'", invalid);
    CHECK_EQ_INT(tcli_run(args, out, sizeof out), 1);
    snprintf(want, sizeof want, "%s:1: shape 'a'", invalid);
    CHECK_MSG(strstr(out, want) != NULL, "output '%s'", out);
    CHECK_EQ_INT(tcli_run("check --shapes /nonexistent/igemm/shapes.csv", out, sizeof out), 1);
    CHECK(strstr(out, "cannot open") != NULL);
    unlink(bad);
    unlink(nonint);
    unlink(invalid);
}

TEST(cli_bin_info)
{
    char out[16384], want[64];
    SKIP_WITHOUT_CLI();
    CHECK_EQ_INT(tcli_run("info", out, sizeof out), 0);
    snprintf(want, sizeof want, "igemm %s", igemm_version_string());
    CHECK_MSG(strstr(out, want) != NULL, "output '%s'", out);
    CHECK(strstr(out, "cuDNN") != NULL);
    CHECK(strstr(out, "direct") != NULL);
}

TEST(cli_bin_run_small)
{
    char out[16384];
    SKIP_WITHOUT_CLI();
    CHECK_EQ_INT(tcli_run("run --shape tiny,1,8,8,16,16,3,3,1,1,1,1,1,1 --iters 3 --warmup 1", out,
                          sizeof out),
                 0);
    if (test_gpu_available())
        CHECK_MSG(strstr(out, "TFLOP/s") != NULL, "output '%s'", out);
    else
        CHECK_MSG(strstr(out, "no CUDA GPU found") != NULL && strstr(out, "CPU reference") != NULL,
                  "output '%s'", out);
}

TEST(cli_bin_check_and_bench_small)
{
    char out[65536], args[512];
    const char *csv = tcli_tmpfile(3, "");
    int rc;
    SKIP_WITHOUT_CLI();
    REQUIRE(csv != NULL);
    rc = tcli_run("check --shape tiny,1,9,7,16,24,3,3,1,1,1,1,1,1 --shape s2,2,11,13,8,16,3,3,2,2,"
                  "1,1,1,1 --epilogue all --samples 256",
                  out, sizeof out);
    if (!test_gpu_available()) {
        CHECK_EQ_INT(rc, 3);
        CHECK(strstr(out, "no CUDA GPU found") != NULL);
        unlink(csv);
        return;
    }
    CHECK_MSG(rc == 0, "igemm check exited %d:\n%s", rc, out);
    CHECK(strstr(out, "14/14 passed") != NULL); /* 2 shapes x 7 epilogues */
    snprintf(args, sizeof args,
             "bench --shape tiny,1,9,7,16,24,3,3,1,1,1,1,1,1 --iters 5 --warmup 1 --csv '%s'", csv);
    rc = tcli_run(args, out, sizeof out);
    CHECK_MSG(rc == 0, "igemm bench exited %d:\n%s", rc, out);
    {
        FILE *f = fopen(csv, "r");
        char line[1024];
        int lines = 0;
        REQUIRE(f != NULL);
        while (fgets(line, sizeof line, f)) lines++;
        fclose(f);
        CHECK_EQ_INT(lines, 2);
    }
    unlink(csv);
}
