/*
 * test_cli.c — tests of the igemm CLI: its pieces, linked from the CLI's objects (all but
 * main.o): shape and option-value parsing (shapes.c), the option parser (options.c: --sets,
 * --hints, --fused-parts), the pure timing helpers (timing.c) and the tolerance model
 * (tolerance.c). The built binary's exit codes and messages: test_cli_bin.c.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "igemm.h"
#include "options.h"
#include "shapes.h"
#include "test.h"
#include "test_cli.h"
#include "timing.h"
#include "tolerance.h"

TEST(cli_parse_i64_strict)
{
    int64_t v = 0;
    CHECK(cli_parse_i64("42", &v) == 0 && v == 42);
    CHECK(cli_parse_i64("  -7 ", &v) == 0 && v == -7);
    CHECK(cli_parse_i64("+3", &v) == 0 && v == 3);
    CHECK(cli_parse_i64("9223372036854775807", &v) == 0 && v == INT64_MAX);
    CHECK(cli_parse_i64("-9223372036854775808", &v) == 0 && v == INT64_MIN);
    v = 5;
    CHECK(cli_parse_i64("9223372036854775808", &v) == -1 && v == 5);
    CHECK(cli_parse_i64("", &v) == -1);
    CHECK(cli_parse_i64("   ", &v) == -1);
    CHECK(cli_parse_i64("1x", &v) == -1);
    CHECK(cli_parse_i64("x1", &v) == -1);
    CHECK(cli_parse_i64("1 2", &v) == -1);
    CHECK(cli_parse_i64("--1", &v) == -1);
    CHECK(cli_parse_i64("1.0", &v) == -1);
    CHECK(cli_parse_i64("0x10", &v) == -1);
    CHECK(cli_parse_i64(NULL, &v) == -1);
}

TEST(cli_parse_int_range_bounds)
{
    int v = -1;
    CHECK(cli_parse_int_range("1", 1, 10, &v) == 0 && v == 1);
    CHECK(cli_parse_int_range("10", 1, 10, &v) == 0 && v == 10);
    CHECK(cli_parse_int_range("0", 1, 10, &v) == -1);
    CHECK(cli_parse_int_range("11", 1, 10, &v) == -1);
    CHECK(cli_parse_int_range("abc", 1, 10, &v) == -1);
    CHECK(v == 10);
}

TEST(cli_dtype_and_path_words)
{
    igemm_dtype_t d;
    igemm_path_t p;
    CHECK(cli_parse_dtype("bf16", 0, &d) == 0 && d == IGEMM_DTYPE_BF16);
    CHECK(cli_parse_dtype("BFloat16", 0, &d) == 0 && d == IGEMM_DTYPE_BF16);
    CHECK(cli_parse_dtype("fp16", 0, &d) == 0 && d == IGEMM_DTYPE_F16);
    CHECK(cli_parse_dtype("half", 0, &d) == 0 && d == IGEMM_DTYPE_F16);
    CHECK(cli_parse_dtype("f32", 0, &d) == -1);
    CHECK(cli_parse_dtype("f32", 1, &d) == 0 && d == IGEMM_DTYPE_F32);
    CHECK(cli_parse_dtype("int8", 1, &d) == -1);
    CHECK(cli_parse_dtype(NULL, 1, &d) == -1);
    CHECK(!strcmp(cli_dtype_name(IGEMM_DTYPE_BF16), "bf16"));
    CHECK(!strcmp(cli_dtype_name(IGEMM_DTYPE_F16), "fp16"));
    CHECK(!strcmp(cli_dtype_name(IGEMM_DTYPE_F32), "f32"));
    for (int i = 0; i <= 3; i++) {
        CHECK(cli_parse_path(cli_path_name((igemm_path_t)i), &p) == 0);
        CHECK_EQ_INT(p, i);
    }
    CHECK(cli_parse_path("sm80", &p) == 0 && p == IGEMM_PATH_GENERAL);
    CHECK(cli_parse_path("fast", &p) == -1);
}

TEST(cli_epilogue_words)
{
    unsigned m = 0;
    int bits = 0;
    igemm_epilogue_t e;
    CHECK(cli_parse_epilogue("all", &m) == 0);
    for (int i = 0; i < CLI_EPI_COUNT; i++) bits += (m >> i) & 1u;
    CHECK_EQ_INT(bits, 7);
    CHECK(m & (1u << CLI_EPI_NONE));
    CHECK(m & (1u << CLI_EPI_FULL));
    CHECK(!(m & (1u << CLI_EPI_BIAS)));
    CHECK(cli_parse_epilogue("none,bias", &m) == 0);
    CHECK_EQ_INT(m, (1u << CLI_EPI_NONE) | (1u << CLI_EPI_BIAS));
    CHECK(cli_parse_epilogue("fused", &m) == 0 && m == (1u << CLI_EPI_FULL));
    CHECK(cli_parse_epilogue("Bias-ReLU", &m) == 0 && m == (1u << CLI_EPI_BIAS_RELU));
    CHECK(cli_parse_epilogue("bogus", &m) == -1);
    CHECK(cli_parse_epilogue("none,bogus", &m) == -1);
    CHECK(cli_parse_epilogue("", &m) == -1);
    CHECK(cli_parse_epilogue(",", &m) == -1);

    e = cli_epi_make(CLI_EPI_NONE);
    CHECK(e.alpha == 1.0f && !e.has_scale && !e.has_bias && !e.has_residual &&
          e.activation == IGEMM_ACT_NONE);
    e = cli_epi_make(CLI_EPI_RESIDUAL_RELU);
    CHECK(e.has_residual && e.beta == 0.5f && e.activation == IGEMM_ACT_RELU && !e.has_bias);
    e = cli_epi_make(CLI_EPI_BIAS_GELU);
    CHECK(e.has_bias && e.activation == IGEMM_ACT_GELU_TANH);
    e = cli_epi_make(CLI_EPI_BIAS_RESIDUAL_RELU);
    CHECK(e.alpha == 1.0f && e.beta == 1.0f && !e.has_scale && e.has_bias && e.has_residual &&
          e.activation == IGEMM_ACT_RELU);
    e = cli_epi_make(CLI_EPI_FULL);
    CHECK(e.alpha == 0.75f && e.has_scale && e.has_bias && e.has_residual &&
          e.activation == IGEMM_ACT_SILU);
    /* Every case is a valid epilogue for the library. */
    for (int i = 0; i < CLI_EPI_COUNT; i++) CHECK(strcmp(cli_epi_name(i), "?") != 0);
}

/* ---- shape lines ---- */

TEST(cli_shape_line_fields)
{
    cli_shape_t s;
    char err[512];
    int r = cli_parse_shape_line("r50_l2_3x3s2_128,32,56,56,128,96,3,5,2,1,1,2,1,3\n", &s, err,
                                 sizeof err);
    REQUIRE(r == 1);
    CHECK(!strcmp(s.name, "r50_l2_3x3s2_128"));
    CHECK_EQ_INT(s.desc.n, 32);
    CHECK_EQ_INT(s.desc.h, 56);
    CHECK_EQ_INT(s.desc.w, 56);
    CHECK_EQ_INT(s.desc.c, 128);
    CHECK_EQ_INT(s.desc.k, 96);
    CHECK_EQ_INT(s.desc.r, 3);
    CHECK_EQ_INT(s.desc.s, 5);
    CHECK_EQ_INT(s.desc.stride_h, 2);
    CHECK_EQ_INT(s.desc.stride_w, 1);
    CHECK_EQ_INT(s.desc.pad_top, 1);
    CHECK_EQ_INT(s.desc.pad_bottom, 1);
    CHECK_EQ_INT(s.desc.pad_left, 2);
    CHECK_EQ_INT(s.desc.pad_right, 2);
    CHECK_EQ_INT(s.desc.dil_h, 1);
    CHECK_EQ_INT(s.desc.dil_w, 3);
    CHECK_EQ_INT(s.desc.groups, 1);
    CHECK_EQ_INT(s.desc.x_dtype, IGEMM_DTYPE_BF16);
    CHECK_EQ_INT(s.desc.w_dtype, IGEMM_DTYPE_BF16);
    CHECK_EQ_INT(s.desc.y_dtype, IGEMM_DTYPE_BF16);
    CHECK(igemm_conv2d_validate(&s.desc) == IGEMM_STATUS_SUCCESS);
}

TEST(cli_shape_line_groups_blanks_comments)
{
    cli_shape_t s;
    char err[512];
    CHECK(cli_parse_shape_line(" dw , 2, 8, 8, 32, 32, 3, 3, 1, 1, 1, 1, 1, 1, 32 \r\n", &s, err,
                               sizeof err) == 1);
    CHECK(!strcmp(s.name, "dw"));
    CHECK_EQ_INT(s.desc.groups, 32);
    CHECK_EQ_INT(s.desc.n, 2);
    CHECK(cli_parse_shape_line("a,1,4,4,8,8,1,1,1,1,0,0,1,1  # trailing comment", &s, err,
                               sizeof err) == 1);
    CHECK_EQ_INT(s.desc.pad_top, 0);
    CHECK_EQ_INT(cli_parse_shape_line("", &s, err, sizeof err), 0);
    CHECK_EQ_INT(cli_parse_shape_line("   \t\r\n", &s, err, sizeof err), 0);
    CHECK_EQ_INT(cli_parse_shape_line("# name,n,h,w,c,k,r,s,...", &s, err, sizeof err), 0);
    CHECK_EQ_INT(cli_parse_shape_line("   # indented comment", &s, err, sizeof err), 0);
}

TEST(cli_shape_line_errors)
{
    cli_shape_t s;
    char err[512];
    CHECK_EQ_INT(cli_parse_shape_line("bad,1,2,3,4,5,6,7,8", &s, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "expected 14 fields, got 9") != NULL, "err = '%s'", err);
    CHECK_EQ_INT(cli_parse_shape_line("a,1,8,8,16,16,3,3,1,1,1,1,1,1,1,1", &s, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "expected 14 fields, got 16") != NULL, "err = '%s'", err);
    CHECK_EQ_INT(cli_parse_shape_line("a,1,8,8,16,16,3,3,x,1,1,1,1,1", &s, err, sizeof err), -1);
    CHECK_MSG(!strcmp(err, "field 'stride_h' = 'x' is not an integer"), "err = '%s'", err);
    CHECK_EQ_INT(cli_parse_shape_line("a,1,8,8,16,16,3,3,1,1,1,1,1,", &s, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "field 'dil_w' = '' is not an integer") != NULL, "err = '%s'", err);
    CHECK_EQ_INT(cli_parse_shape_line("a,1,8,8,16,16,3,3,1,1,1,1,1,1,g", &s, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "field 'groups'") != NULL, "err = '%s'", err);
    CHECK_EQ_INT(cli_parse_shape_line("a,1,8,8,16,16,3,3,0,1,1,1,1,1", &s, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "'stride_h' = 0 must be >= 1") != NULL, "err = '%s'", err);
    CHECK_EQ_INT(cli_parse_shape_line("a,1,8,8,16,16,3,3,1,1,-1,1,1,1", &s, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "'pad_h' = -1 must be >= 0") != NULL, "err = '%s'", err);
    CHECK_EQ_INT(cli_parse_shape_line(",1,8,8,16,16,3,3,1,1,1,1,1,1", &s, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "field 'name' is empty") != NULL, "err = '%s'", err);
    CHECK_EQ_INT(cli_parse_shape_line("a_name_that_is_much_much_longer_than_sixty_three_characters_"
                                      "in_total,1,8,8,16,16,3,3,1,1,1,1,1,1",
                                      &s, err, sizeof err),
                 -1);
    CHECK_MSG(strstr(err, "longer than") != NULL, "err = '%s'", err);
    CHECK_EQ_INT(cli_parse_shape_line("a,99999999999999999999,8,8,16,16,3,3,1,1,1,1,1,1", &s, err,
                                      sizeof err),
                 -1);
    CHECK_MSG(strstr(err, "field 'n'") != NULL, "err = '%s'", err);
}

TEST(cli_shape_arg_forms)
{
    cli_shape_t s;
    char err[512];
    REQUIRE(cli_parse_shape_arg("32,56,56,64,64,3,3,1,1,1,1,1,1", &s, err, sizeof err) == 0);
    CHECK_EQ_INT(s.desc.n, 32);
    CHECK_EQ_INT(s.desc.k, 64);
    CHECK_EQ_INT(s.desc.groups, 1);
    CHECK(s.name[0] != '\0');
    CHECK(s.file == NULL && s.line == 0);
    REQUIRE(cli_parse_shape_arg("mine,32,56,56,64,64,3,3,1,1,1,1,1,1", &s, err, sizeof err) == 0);
    CHECK(!strcmp(s.name, "mine"));
    REQUIRE(cli_parse_shape_arg("1,8,8,16,16,3,3,1,1,1,1,1,1,4", &s, err, sizeof err) == 0);
    CHECK_EQ_INT(s.desc.groups, 4);
    REQUIRE(cli_parse_shape_arg("g,1,8,8,16,16,3,3,1,1,1,1,1,1,2", &s, err, sizeof err) == 0);
    CHECK_EQ_INT(s.desc.groups, 2);
    CHECK(!strcmp(s.name, "g"));
    CHECK_EQ_INT(cli_parse_shape_arg("1,2,3,4", &s, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "--shape '1,2,3,4'") != NULL && strstr(err, "13 numbers") != NULL &&
                  strstr(err, "GEMM (m,n,k)") != NULL,
              "err = '%s'", err);
    /* a GEMM m,n,k: the 1x1 conv of m pixels, k channels in, n out */
    REQUIRE(cli_parse_shape_arg("100,72,40", &s, err, sizeof err) == 0);
    CHECK(s.gemm && s.desc.n == 1 && s.desc.h == 1 && s.desc.w == 100 && s.desc.k == 72 && s.desc.c == 40);
    CHECK(s.desc.r == 1 && s.desc.s == 1 && s.desc.groups == 1 && s.desc.stride_h == 1 && s.desc.dil_w == 1);
    CHECK(!strcmp(s.name, "gemm_100x72x40"));
    REQUIRE(cli_parse_shape_arg("fc,32,1000,2048", &s, err, sizeof err) == 0);
    CHECK(s.gemm && !strcmp(s.name, "fc") && s.desc.w == 32 && s.desc.k == 1000 && s.desc.c == 2048);
    CHECK_EQ_INT(cli_parse_shape_arg("g,0,8,8", &s, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "field 'm' = 0 must be >= 1") != NULL, "err = '%s'", err);
    CHECK_EQ_INT(cli_parse_shape_arg("n,1,8,8,16,16,3,3,y,1,1,1,1,1", &s, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "field 'stride_h' = 'y' is not an integer") != NULL, "err = '%s'", err);
    CHECK_EQ_INT(cli_parse_shape_arg("", &s, err, sizeof err), -1);
    CHECK_EQ_INT(cli_parse_shape_arg(NULL, &s, err, sizeof err), -1);
}

/* ---- shape files ---- */

TEST(cli_load_shapes_file)
{
    cli_shape_list_t list = {0};
    char err[1024] = "";
    const char *path = tcli_tmpfile(0, "# name,n,h,w,c,k,r,s,stride_h,stride_w,pad_h,pad_w,dil_h,dil_w\n"
                                       "\n"
                                       "one,1,8,8,16,16,3,3,1,1,1,1,1,1\n"
                                       "   # indented comment\n"
                                       "two,2,9,9,32,64,1,1,2,2,0,0,1,1,2\n");
    REQUIRE(path != NULL);
    REQUIRE(cli_load_shapes(path, &list, err, sizeof err) == 0);
    REQUIRE(list.n == 2);
    CHECK(!strcmp(list.v[0].name, "one"));
    CHECK_EQ_INT(list.v[0].line, 3);
    CHECK(list.v[0].file == path);
    CHECK(!strcmp(list.v[1].name, "two"));
    CHECK_EQ_INT(list.v[1].line, 5);
    CHECK_EQ_INT(list.v[1].desc.groups, 2);
    CHECK_EQ_INT(list.v[1].desc.stride_w, 2);
    /* A second file appends. */
    REQUIRE(cli_load_shapes(path, &list, err, sizeof err) == 0);
    CHECK_EQ_INT(list.n, 4);
    cli_shape_list_free(&list);
    CHECK(list.n == 0 && list.v == NULL);
    unlink(path);
}

TEST(cli_load_shapes_errors_name_file_and_line)
{
    cli_shape_list_t list = {0};
    char err[1024] = "", want[256];
    const char *p1 = tcli_tmpfile(0, "# header\nok,1,8,8,16,16,3,3,1,1,1,1,1,1\n\nbad,1,2,3,4,5,6,7,8\n");
    const char *p2 = tcli_tmpfile(1, "a,1,8,8,16,16,3,3,x,1,1,1,1,1\n");
    const char *p3 = tcli_tmpfile(2, "# only comments\n\n");
    REQUIRE(p1 && p2 && p3);
    CHECK_EQ_INT(cli_load_shapes(p1, &list, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:4: expected 14 fields, got 9", p1);
    CHECK_MSG(strncmp(err, want, strlen(want)) == 0, "err = '%s'", err);
    CHECK_EQ_INT(cli_load_shapes(p2, &list, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:1: field 'stride_h' = 'x' is not an integer", p2);
    CHECK_MSG(!strcmp(err, want), "err = '%s'", err);
    CHECK_EQ_INT(cli_load_shapes(p3, &list, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "no shapes") != NULL, "err = '%s'", err);
    CHECK_EQ_INT(cli_load_shapes("/nonexistent/igemm/shapes.csv", &list, err, sizeof err), -1);
    CHECK_MSG(strstr(err, "/nonexistent/igemm/shapes.csv: cannot open") != NULL, "err = '%s'", err);
    cli_shape_list_free(&list);
    unlink(p1);
    unlink(p2);
    unlink(p3);
}

TEST(cli_load_gemm_shapes)
{
    /* bench/gemm_shapes.csv: GEMM lines name,m,n,k, read as 1x1 convs */
    static char path[PATH_MAX + 64];
    cli_shape_list_t list = {0};
    char err[1024] = "";
    snprintf(path, sizeof path, "%s/../bench/gemm_shapes.csv", tcli_exe_dir());
    REQUIRE(access(path, R_OK) == 0);
    REQUIRE(cli_load_shapes(path, &list, err, sizeof err) == 0);
    CHECK(list.n >= 10);
    int found = 0;
    for (int i = 0; i < list.n; i++) {
        const cli_shape_t *sh = &list.v[i];
        CHECK(sh->gemm && sh->desc.r == 1 && sh->desc.s == 1 && sh->desc.n == 1 && sh->desc.h == 1);
        if (!strcmp(sh->name, "llm_down"))
            found = sh->desc.w == 8192 && sh->desc.k == 4096 && sh->desc.c == 14336;
    }
    CHECK(found);
    cli_shape_list_free(&list);
}

TEST(cli_load_bench_shapes)
{
    cli_shape_list_t list = {0};
    char err[1024] = "";
    const char *path = tcli_shapes_csv();
    int found = 0;
    if (!path) {
        test_fail(__FILE__, __LINE__, "bench/shapes.csv not found beside build/");
        return;
    }
    REQUIRE(cli_load_shapes(path, &list, err, sizeof err) == 0);
    CHECK(list.n >= 20);
    for (int i = 0; i < list.n; i++) {
        CHECK_MSG(igemm_conv2d_validate(&list.v[i].desc) == IGEMM_STATUS_SUCCESS, "%s: %s",
                  list.v[i].name, igemm_last_error());
        if (!strcmp(list.v[i].name, "r50_l1_3x3_64")) {
            found = 1;
            CHECK_NEAR(cli_conv_flops(&list.v[i].desc), 2.0 * 32 * 56 * 56 * 64 * 64 * 9, 0.5);
        }
    }
    CHECK(found);
    cli_shape_list_free(&list);
}

/* ---- geometry ---- */

TEST(cli_out_dims_and_flops)
{
    cli_shape_t s;
    char err[256];
    int64_t p = 0, q = 0;
    REQUIRE(cli_parse_shape_arg("32,224,224,3,64,7,7,2,2,3,3,1,1", &s, err, sizeof err) == 0);
    CHECK(cli_conv_out_dims(&s.desc, &p, &q) == 0 && p == 112 && q == 112);
    CHECK_NEAR(cli_conv_flops(&s.desc), 2.0 * 32 * 112 * 112 * 64 * 7 * 7 * 3, 0.5);
    REQUIRE(cli_parse_shape_arg("1,10,12,8,8,3,3,1,1,0,0,2,3", &s, err, sizeof err) == 0);
    CHECK(cli_conv_out_dims(&s.desc, &p, &q) == 0 && p == 6 && q == 6);
    REQUIRE(cli_parse_shape_arg("1,8,8,32,64,3,3,1,1,1,1,1,1,4", &s, err, sizeof err) == 0);
    CHECK_NEAR(cli_conv_flops(&s.desc), 2.0 * 8 * 8 * 64 * 9 * 8, 0.5); /* c/groups = 8 */
    REQUIRE(cli_parse_shape_arg("1,2,2,8,8,5,5,1,1,0,0,1,1", &s, err, sizeof err) == 0);
    CHECK_EQ_INT(cli_conv_out_dims(&s.desc, &p, &q), -1); /* filter larger than input */
    CHECK(cli_conv_flops(&s.desc) == 0.0);
}

TEST(cli_out_dims_match_library)
{
    /* The CLI's own output-size formula agrees with igemm_conv2d_output_dims. */
    int checked = 0;
    for (int h = 1; h <= 9; h += 2)
        for (int r = 1; r <= 4; r++)
            for (int st = 1; st <= 3; st++)
                for (int pad = 0; pad <= 2; pad++)
                    for (int dil = 1; dil <= 2; dil++) {
                        igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
                        int64_t p1 = -1, q1 = -1, p2 = -1, q2 = -1;
                        int a, b;
                        d.h = h;
                        d.w = h + 1;
                        d.c = d.k = 8;
                        d.r = r;
                        d.s = r;
                        d.stride_h = st;
                        d.stride_w = st;
                        d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = pad;
                        d.dil_h = d.dil_w = dil;
                        a = cli_conv_out_dims(&d, &p1, &q1);
                        b = igemm_conv2d_output_dims(&d, &p2, &q2) == IGEMM_STATUS_SUCCESS ? 0 : -1;
                        CHECK_MSG(a == b, "h %d r %d stride %d pad %d dil %d: cli %d, lib %d", h, r,
                                  st, pad, dil, a, b);
                        if (a == 0 && b == 0) {
                            CHECK_EQ_INT(p1, p2);
                            CHECK_EQ_INT(q1, q2);
                            checked++;
                        }
                    }
    CHECK(checked > 100);
}

/* ---- timing helpers ---- */

TEST(cli_timing_median_and_sets)
{
    double a[] = {5, 1, 4, 2, 3}, b[] = {4, 1, 3, 2}, c[] = {7};
    CHECK_NEAR(timing_median(a, 5), 3.0, 0);
    CHECK_NEAR(timing_median(b, 4), 2.5, 0);
    CHECK_NEAR(timing_median(c, 1), 7.0, 0);
    CHECK_NEAR(timing_median(NULL, 0), 0.0, 0);
    /* Total strictly above 2 x L2. */
    CHECK_EQ_INT(timing_num_sets(10u << 20, 50u << 20, (size_t)64 << 30, 64), 11);
    CHECK_EQ_INT(timing_num_sets(25u << 20, 50u << 20, (size_t)64 << 30, 64), 5);
    /* Huge sets: still 2, to alternate buffers. */
    CHECK_EQ_INT(timing_num_sets((size_t)1 << 30, 50u << 20, (size_t)64 << 30, 64), 2);
    /* Capped by memory (but never below 1) and by max_sets. */
    CHECK_EQ_INT(timing_num_sets((size_t)1 << 30, 50u << 20, (size_t)1 << 30, 64), 1);
    CHECK_EQ_INT(timing_num_sets((size_t)1 << 30, 50u << 20, 0, 64), 1);
    CHECK_EQ_INT(timing_num_sets(1024, 50u << 20, (size_t)64 << 30, 64), 64);
    CHECK_EQ_INT(timing_num_sets(0, 50u << 20, (size_t)64 << 30, 64), 1);
}

/* ---- options (cli/options.c) ---- */

/* Parses the blank-separated words of `line` as the options of command cmd (accepting `allowed`)
 * into *o. Returns cli_opts_parse's status; err gets its message. */
static int tcli_parse(cli_opts_t *o, const char *cmd, unsigned allowed, const char *line, char *err, size_t errlen)
{
    static char buf[1024];
    char *args[64], *save = NULL;
    int n = 0;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *t = strtok_r(buf, " ", &save); t && n < 64; t = strtok_r(NULL, " ", &save)) args[n++] = t;
    cli_opts_init(o, cmd);
    err[0] = '\0';
    return cli_opts_parse(o, n, args, allowed, err, errlen);
}

TEST(cli_opts_defaults_and_values)
{
    cli_opts_t o;
    char err[1024];
    REQUIRE(tcli_parse(&o, "bench", CLI_OPTS_BENCH, "", err, sizeof err) == CLI_EXIT_OK);
    CHECK_EQ_INT(o.iters, 100);
    CHECK_EQ_INT(o.warmup, 10);
    CHECK_EQ_INT(o.sets, 0);
    CHECK_EQ_INT(o.back_to_back, 0);
    CHECK_EQ_INT(o.path, IGEMM_PATH_AUTO);
    REQUIRE(cli_opts_finish(&o, err, sizeof err) == CLI_EXIT_OK);
    REQUIRE(o.shapes.n == 1);
    CHECK(!strcmp(o.shapes.v[0].name, "r50_l1_3x3_64"));
    CHECK_EQ_INT(o.shapes.v[0].desc.y_dtype, IGEMM_DTYPE_BF16);
    cli_opts_free(&o);
    REQUIRE(tcli_parse(&o, "bench", CLI_OPTS_BENCH,
                       "--timing back-to-back --iters=7 --dtype fp16 --vs cudnn --fused --path sm90 "
                       "--shape a,1,8,8,16,16,3,3,1,1,1,1,1,1",
                       err, sizeof err) == CLI_EXIT_OK);
    CHECK_EQ_INT(o.back_to_back, 1);
    CHECK_EQ_INT(o.iters, 7);
    CHECK(o.vs_cudnn && o.fused);
    CHECK_EQ_INT(o.path, IGEMM_PATH_SM90);
    REQUIRE(cli_opts_finish(&o, err, sizeof err) == CLI_EXIT_OK);
    REQUIRE(o.shapes.n == 1);
    CHECK_EQ_INT(o.shapes.v[0].desc.x_dtype, IGEMM_DTYPE_F16);
    CHECK_EQ_INT(o.shapes.v[0].desc.y_dtype, IGEMM_DTYPE_F16); /* out dtype follows --dtype */
    cli_opts_free(&o);
    CHECK_EQ_INT(tcli_parse(&o, "run", CLI_OPTS_RUN, "--iters 3 --help", err, sizeof err), CLI_OPTS_HELP);
    cli_opts_free(&o);
    /* a shape the parser takes but the library rejects: a usage error from finish */
    REQUIRE(tcli_parse(&o, "run", CLI_OPTS_RUN, "--shape 1,8,8,15,16,3,3,1,1,1,1,1,1,2", err, sizeof err) ==
            CLI_EXIT_OK);
    CHECK_EQ_INT(cli_opts_finish(&o, err, sizeof err), CLI_EXIT_USAGE);
    CHECK_MSG(strstr(err, "groups") != NULL, "err = '%s'", err);
    cli_opts_free(&o);
}

TEST(cli_opts_sets_validation)
{
    static const char *const bad[] = {"--sets 0", "--sets 65", "--sets -1", "--sets x", "--sets 2.5", "--sets="};
    cli_opts_t o;
    char err[1024];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_MSG(tcli_parse(&o, "bench", CLI_OPTS_BENCH, bad[i], err, sizeof err) == CLI_EXIT_USAGE, "'%s'", bad[i]);
        CHECK_MSG(strstr(err, "--sets") != NULL && strstr(err, "[1, 64]") != NULL, "'%s': err = '%s'", bad[i], err);
        cli_opts_free(&o);
    }
    CHECK_EQ_INT(tcli_parse(&o, "bench", CLI_OPTS_BENCH, "--sets", err, sizeof err), CLI_EXIT_USAGE);
    CHECK_MSG(strstr(err, "needs a value") != NULL, "err = '%s'", err);
    CHECK(tcli_parse(&o, "run", CLI_OPTS_RUN, "--sets 1", err, sizeof err) == CLI_EXIT_OK && o.sets == 1);
    CHECK(tcli_parse(&o, "bench", CLI_OPTS_BENCH, "--sets=64", err, sizeof err) == CLI_EXIT_OK && o.sets == 64);
    /* check does not time: no --sets */
    CHECK_EQ_INT(tcli_parse(&o, "check", CLI_OPTS_CHECK, "--sets 4", err, sizeof err), CLI_EXIT_USAGE);
    CHECK_MSG(strstr(err, "unknown option '--sets'") != NULL, "err = '%s'", err);
    cli_opts_free(&o);
}

TEST(cli_opts_hints)
{
    /* a bad hint is a usage error whose message names the key (and the value) */
    static const struct {
        const char *args, *want;
    } bad[] = {
        {"--hints bogus=1", "\"bogus\""},          {"--hints kernel=nope", "kernel"},
        {"--hints tile=12", "tile"},                {"--hints grid=-5", "grid"},
        {"--hints stages=x", "stages"},             {"--hints kernel=pingpong,consumers=9", "consumers"},
        {"--hints split_k", "split_k"},
    };
    static const char *const cmds[] = {"run", "check", "bench"};
    static const unsigned allowed[] = {CLI_OPTS_RUN, CLI_OPTS_CHECK, CLI_OPTS_BENCH};
    cli_opts_t o;
    char err[1024];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_MSG(tcli_parse(&o, "bench", CLI_OPTS_BENCH, bad[i].args, err, sizeof err) == CLI_EXIT_USAGE, "'%s'",
                  bad[i].args);
        CHECK_MSG(strstr(err, "--hints") != NULL && strstr(err, bad[i].want) != NULL, "'%s': err = '%s'", bad[i].args,
                  err);
        cli_opts_free(&o);
    }
    for (int c = 0; c < 3; c++) {
        REQUIRE(tcli_parse(&o, cmds[c], allowed[c], "--hints kernel=pingpong,tile=128x64,grid=4", err, sizeof err) ==
                CLI_EXIT_OK);
        CHECK(o.has_hints && cli_opts_hints(&o) == &o.hints);
        CHECK_EQ_INT(o.hints.kernel, IGEMM_KERNEL_PINGPONG);
        CHECK_EQ_INT(o.hints.tile_m, 128);
        CHECK_EQ_INT(o.hints.tile_n, 64);
        CHECK_EQ_INT(o.hints.grid, 4);
        CHECK_EQ_INT(o.hints.stages, 0);
        CHECK(!strcmp(o.hints_text, "kernel=pingpong,tile=128x64,grid=4"));
        cli_opts_free(&o);
    }
    REQUIRE(tcli_parse(&o, "run", CLI_OPTS_RUN, "--iters 2", err, sizeof err) == CLI_EXIT_OK);
    CHECK(!o.has_hints && cli_opts_hints(&o) == NULL);
    cli_opts_free(&o);
    REQUIRE(tcli_parse(&o, "run", CLI_OPTS_RUN, "--hints=", err, sizeof err) == CLI_EXIT_OK); /* empty: none */
    CHECK(cli_opts_hints(&o) == NULL);
    cli_opts_free(&o);
    CHECK_EQ_INT(tcli_parse(&o, "info", CLI_OPTS_INFO, "--hints grid=1", err, sizeof err), CLI_EXIT_USAGE);
    cli_opts_free(&o);
}

TEST(cli_opts_fused_parts)
{
    cli_opts_t o;
    char err[1024];
    REQUIRE(tcli_parse(&o, "bench", CLI_OPTS_BENCH, "--fused", err, sizeof err) == CLI_EXIT_OK);
    CHECK_EQ_INT(o.fused_parts, CLI_FUSED_ALL); /* default: the whole epilogue */
    cli_opts_free(&o);
    REQUIRE(tcli_parse(&o, "bench", CLI_OPTS_BENCH, "--fused-parts ra --fused", err, sizeof err) == CLI_EXIT_OK);
    CHECK_EQ_INT(o.fused_parts, CLI_FUSED_RESIDUAL | CLI_FUSED_RELU);
    cli_opts_free(&o);
    REQUIRE(tcli_parse(&o, "bench", CLI_OPTS_BENCH, "--fused --fused-parts=b", err, sizeof err) == CLI_EXIT_OK);
    CHECK_EQ_INT(o.fused_parts, CLI_FUSED_BIAS);
    cli_opts_free(&o);
    CHECK_EQ_INT(tcli_parse(&o, "bench", CLI_OPTS_BENCH, "--fused-parts b", err, sizeof err), CLI_EXIT_USAGE);
    CHECK_MSG(strstr(err, "needs --fused") != NULL, "err = '%s'", err);
    cli_opts_free(&o);
    CHECK_EQ_INT(tcli_parse(&o, "bench", CLI_OPTS_BENCH, "--fused --fused-parts bx", err, sizeof err), CLI_EXIT_USAGE);
    CHECK_MSG(strstr(err, "--fused-parts 'bx'") != NULL, "err = '%s'", err);
    cli_opts_free(&o);
    CHECK_EQ_INT(tcli_parse(&o, "bench", CLI_OPTS_BENCH, "--fused --fused-parts=", err, sizeof err), CLI_EXIT_USAGE);
    cli_opts_free(&o);
    CHECK_EQ_INT(tcli_parse(&o, "run", CLI_OPTS_RUN, "--fused-parts b", err, sizeof err), CLI_EXIT_USAGE);
    cli_opts_free(&o);
}

/* ---- tolerance (cli/tolerance.c) ---- */

TEST(cli_tolerance_grows_with_k_and_scale)
{
    /* The accumulation part of the tolerance scales with the GEMM depth K = r*s*c/groups and with
     * |alpha * scale[kk]|; the vs-fp32 form (against the direct path) has twice the absolute part
     * and the same relative part. */
    igemm_conv2d_desc_t small = igemm_conv2d_desc_default(), big;
    igemm_epilogue_t e = igemm_epilogue_default();
    const float scale[2] = {0.5f, 1.5f}, bias[2] = {0.25f, 0.25f};
    small.c = small.k = 16;
    small.r = small.s = 3;
    small.y_dtype = IGEMM_DTYPE_BF16;
    big = small;
    big.c = 256;
    e.has_scale = e.has_bias = 1;
    for (int vs = 0; vs < 2; vs++) {
        double (*tol)(const igemm_conv2d_desc_t *, const igemm_epilogue_t *, const float *, const float *, int64_t,
                      double) = vs ? tol_conv_vs_fp32 : tol_conv;
        for (int kk = 0; kk < 2; kk++)
            for (double ref = 0.0; ref <= 4.0; ref += 4.0) {
                CHECK_MSG(tol(&big, &e, scale, bias, kk, ref) > tol(&small, &e, scale, bias, kk, ref),
                          "vs %d kk %d ref %g: K 2304 -> %g, K 144 -> %g", vs, kk, ref,
                          tol(&big, &e, scale, bias, kk, ref), tol(&small, &e, scale, bias, kk, ref));
                /* the K-proportional part dominates: 16x the depth, well over 4x the tolerance */
                CHECK(tol(&big, &e, scale, bias, kk, 0.0) > 4.0 * tol(&small, &e, scale, bias, kk, 0.0));
            }
        /* channel 1 has 3x channel 0's scale */
        CHECK(tol(&big, &e, scale, bias, 1, 1.0) > tol(&big, &e, scale, bias, 0, 1.0));
        CHECK(tol(&big, &e, scale, bias, 1, 0.0) > 2.0 * tol(&big, &e, scale, bias, 0, 0.0));
    }
    for (int kk = 0; kk < 2; kk++)
        for (double ref = -3.0; ref <= 3.0; ref += 1.5) {
            const double t = tol_conv(&big, &e, scale, bias, kk, ref), t0 = tol_conv(&big, &e, scale, bias, kk, 0.0);
            const double v = tol_conv_vs_fp32(&big, &e, scale, bias, kk, ref);
            /* twice the absolute part (tol at ref 0), once the relative part */
            CHECK_NEAR(v, t + t0, 1e-15);
            CHECK(t > t0 || ref == 0.0);
        }
    /* The relative part is one ulp of y's dtype (plus 2^-20). */
    CHECK_NEAR(tol_out_ulp(IGEMM_DTYPE_BF16), 1.0 / 128, 0);
    CHECK_NEAR(tol_out_ulp(IGEMM_DTYPE_F16), 1.0 / 1024, 0);
    CHECK_NEAR(tol_conv(&small, NULL, NULL, NULL, 0, 1000.0) - tol_conv(&small, NULL, NULL, NULL, 0, 0.0),
               1000.0 * (1.0 / 128 + 1.0 / 1048576), 1e-9);
}
