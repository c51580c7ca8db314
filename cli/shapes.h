/*
 * shapes.h — parsing for the igemm CLI: shape files, --shape arguments, option values.
 * Pure C11 (no CUDA, no calls into libigemm: only its types); tests/test_cli.c links it
 * (build/cli/shapes.o). Every function is prefixed cli_.
 *
 * Shape file: one conv layer a line,
 *     name,n,h,w,c,k,r,s,stride_h,stride_w,pad_h,pad_w,dil_h,dil_w[,groups]
 * '#' starts a comment (whole line or trailing), blank lines are ignored, fields may be padded
 * with spaces. Padding is symmetric (pad_top = pad_bottom = pad_h). groups defaults to 1.
 * A --shape argument is the same comma list, with the name optional.
 */
#ifndef IGEMM_CLI_SHAPES_H
#define IGEMM_CLI_SHAPES_H

#include <stddef.h>
#include <stdint.h>

#include "igemm.h"

#define CLI_NAME_MAX 64
#define CLI_SHAPE_FIELDS 14 /* name + 13 numbers; a 15th (groups) is optional */

typedef struct cli_shape {
    char name[CLI_NAME_MAX];
    igemm_conv2d_desc_t desc; /* dtypes: BF16 in and out until the caller sets them */
    const char *file;         /* the shape file it came from (the path given to
                                 cli_load_shapes); NULL for --shape */
    int line;                 /* line in that file; 0 for --shape */
    int gemm;                 /* given as a GEMM "name,m,n,k": desc is its 1x1 conv (n = h = 1,
                                 w = m, c = k, k = n) */
} cli_shape_t;

typedef struct cli_shape_list {
    cli_shape_t *v;
    int n, cap;
} cli_shape_list_t;

/* Strict integer parse: optional sign, decimal digits, surrounding blanks allowed, nothing
 * else; no overflow. Returns 0 on success, -1 otherwise (*out untouched). */
int cli_parse_i64(const char *s, int64_t *out);
/* Same, and the value must lie in [lo, hi]. */
int cli_parse_int_range(const char *s, long long lo, long long hi, int *out);

/* Parses one line of a shape file. Returns 1 and fills *out for a shape, 0 for a blank or
 * comment line, -1 on a malformed line with a message in err (no FILE:LINE prefix), e.g.
 * "expected 14 fields, got 9 (name,n,h,...)" or "field 'stride_h' = 'x' is not an integer". */
int cli_parse_shape_line(const char *line, cli_shape_t *out, char *err, size_t errlen);

/* Parses a --shape argument: 13 or 14 numbers (14th = groups), or a name and 13 or 14
 * numbers. Unnamed shapes get a name made from their numbers. Returns 0 or -1 (err set). */
int cli_parse_shape_arg(const char *arg, cli_shape_t *out, char *err, size_t errlen);

/* Loads a shape file, appending to list. Returns 0, or -1 with err = "FILE:LINE: why" (or
 * "FILE: why" for open errors and a file without shapes). */
int cli_load_shapes(const char *path, cli_shape_list_t *list, char *err, size_t errlen);

/* Appends a copy of s. Returns 0, or -1 when out of memory. */
int cli_shape_list_push(cli_shape_list_t *list, const cli_shape_t *s);
void cli_shape_list_free(cli_shape_list_t *list);

/* Output size of desc's conv. Returns 0, or -1 when it is not positive (or invalid input). */
int cli_conv_out_dims(const igemm_conv2d_desc_t *d, int64_t *p, int64_t *q);
/* 2 * n*p*q * k * r*s*c/groups (0 for an invalid desc). */
double cli_conv_flops(const igemm_conv2d_desc_t *d);

/* Option values. Each returns 0 on success, -1 for an unknown word. */
int cli_parse_dtype(const char *s, int allow_f32, igemm_dtype_t *out); /* bf16|fp16|f32 and aliases */
const char *cli_dtype_name(igemm_dtype_t d);
int cli_parse_path(const char *s, igemm_path_t *out); /* auto|general|sm90|direct */
const char *cli_path_name(igemm_path_t p);

/* Epilogue cases used by `igemm check`. */
enum {
    CLI_EPI_NONE = 0,      /* identity */
    CLI_EPI_BIAS,          /* + bias */
    CLI_EPI_SCALE_BIAS,    /* scale * acc + bias */
    CLI_EPI_BIAS_RELU,     /* relu(acc + bias) */
    CLI_EPI_RESIDUAL_RELU, /* relu(acc + 0.5 * residual) */
    CLI_EPI_BIAS_GELU,     /* gelu_tanh(acc + bias) */
    CLI_EPI_FULL,          /* silu(0.75 * scale * acc + bias + 1.25 * residual) */
    CLI_EPI_BIAS_RESIDUAL_RELU, /* relu(acc + bias + residual): bench --fused's epilogue */
    CLI_EPI_COUNT
};
/* Parses --epilogue into a bit mask of cases (1 << CLI_EPI_x): none, bias, scale-bias,
 * bias-relu, residual-relu, bias-gelu, fused|full, all (= none, scale-bias, bias-relu,
 * residual-relu, bias-gelu, full); a comma list combines them. */
int cli_parse_epilogue(const char *s, unsigned *mask);
const char *cli_epi_name(int epi_case);
/* The igemm_epilogue_t of a case (does not call libigemm). */
igemm_epilogue_t cli_epi_make(int epi_case);

#endif
