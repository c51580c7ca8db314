/*
 * shapes.c — shape-file, --shape and option-value parsing for the igemm CLI (see shapes.h).
 * Pure C11: no CUDA, no libigemm calls.
 */
#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include "shapes.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const cli_field_names[CLI_SHAPE_FIELDS + 1] = {
    "name", "n", "h", "w", "c", "k", "r", "s", "stride_h", "stride_w",
    "pad_h", "pad_w", "dil_h", "dil_w", "groups"};

#define CLI_FIELD_LIST "name,n,h,w,c,k,r,s,stride_h,stride_w,pad_h,pad_w,dil_h,dil_w[,groups]"
#define CLI_MAX_SPLIT 64

static void cli_errf(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void cli_errf(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    if (!err || errlen == 0) return;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

int cli_parse_i64(const char *s, int64_t *out)
{
    const char *p = s;
    int neg = 0;
    uint64_t v = 0, lim;
    int digits = 0;
    if (!s) return -1;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '+' || *p == '-') neg = (*p++ == '-');
    lim = neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX;
    while (*p >= '0' && *p <= '9') {
        unsigned d = (unsigned)(*p - '0');
        if (v > (lim - d) / 10u) return -1; /* overflow */
        v = v * 10u + d;
        p++;
        digits++;
    }
    while (*p == ' ' || *p == '\t') p++;
    if (!digits || *p) return -1;
    if (neg) *out = v == (uint64_t)INT64_MAX + 1u ? INT64_MIN : -(int64_t)v;
    else *out = (int64_t)v;
    return 0;
}

int cli_parse_int_range(const char *s, long long lo, long long hi, int *out)
{
    int64_t v;
    if (cli_parse_i64(s, &v) != 0 || v < lo || v > hi) return -1;
    *out = (int)v;
    return 0;
}

/* Trims blanks (and CR/LF) at both ends in place; returns the new start. */
static char *cli_trim(char *s)
{
    char *e;
    while (*s && isspace((unsigned char)*s)) s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) *--e = '\0';
    return s;
}

/* Splits s (modified) at commas. Returns the number of fields (all of them are counted;
 * only the first CLI_MAX_SPLIT are stored). */
static int cli_split(char *s, char **fields)
{
    int n = 0;
    char *p = s;
    for (;;) {
        char *c = strchr(p, ',');
        if (c) *c = '\0';
        if (n < CLI_MAX_SPLIT) fields[n] = cli_trim(p);
        n++;
        if (!c) break;
        p = c + 1;
    }
    return n;
}

/* Fills desc from 13 or 14 numeric fields (names[i] names num[i]). */
static int cli_fill_desc(char **num, int nnum, const char *const *names, cli_shape_t *out,
                         char *err, size_t errlen)
{
    int64_t v[14];
    igemm_conv2d_desc_t d;
    memset(&d, 0, sizeof d);
    v[13] = 1; /* groups */
    for (int i = 0; i < nnum; i++) {
        int64_t minv = (i >= 9 && i <= 10) ? 0 : 1; /* pad_h, pad_w may be 0 */
        if (cli_parse_i64(num[i], &v[i]) != 0) {
            cli_errf(err, errlen, "field '%s' = '%s' is not an integer", names[i], num[i]);
            return -1;
        }
        if (v[i] < minv) {
            cli_errf(err, errlen, "field '%s' = %lld must be >= %lld", names[i], (long long)v[i],
                     (long long)minv);
            return -1;
        }
    }
    d.n = v[0];
    d.h = v[1];
    d.w = v[2];
    d.c = v[3];
    d.k = v[4];
    d.r = v[5];
    d.s = v[6];
    d.stride_h = v[7];
    d.stride_w = v[8];
    d.pad_top = d.pad_bottom = v[9];
    d.pad_left = d.pad_right = v[10];
    d.dil_h = v[11];
    d.dil_w = v[12];
    d.groups = v[13];
    d.x_dtype = d.w_dtype = d.y_dtype = IGEMM_DTYPE_BF16;
    out->desc = d;
    return 0;
}

/* Fills out->desc from the 3 numbers m, n, k of a GEMM line: the 1x1 conv D = A B^T is. */
static int cli_fill_gemm(char **num, cli_shape_t *out, char *err, size_t errlen)
{
    static const char *const names[3] = {"m", "n", "k"};
    int64_t v[3];
    for (int i = 0; i < 3; i++) {
        if (cli_parse_i64(num[i], &v[i]) != 0) {
            cli_errf(err, errlen, "field '%s' = '%s' is not an integer", names[i], num[i]);
            return -1;
        }
        if (v[i] < 1) {
            cli_errf(err, errlen, "field '%s' = %lld must be >= 1", names[i], (long long)v[i]);
            return -1;
        }
    }
    memset(&out->desc, 0, sizeof out->desc);
    out->desc.n = out->desc.h = 1;
    out->desc.w = v[0];
    out->desc.k = v[1];
    out->desc.c = v[2];
    out->desc.r = out->desc.s = out->desc.groups = 1;
    out->desc.stride_h = out->desc.stride_w = out->desc.dil_h = out->desc.dil_w = 1;
    out->desc.x_dtype = out->desc.w_dtype = out->desc.y_dtype = IGEMM_DTYPE_BF16;
    out->gemm = 1;
    return 0;
}

static int cli_set_name(const char *name, cli_shape_t *out, char *err, size_t errlen)
{
    size_t len = strlen(name);
    if (len == 0) {
        cli_errf(err, errlen, "field 'name' is empty");
        return -1;
    }
    if (len >= CLI_NAME_MAX) {
        cli_errf(err, errlen, "field 'name' = '%.20s...' is longer than %d characters", name,
                 CLI_NAME_MAX - 1);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)name[i];
        if (isspace(ch) || !isprint(ch)) {
            cli_errf(err, errlen, "field 'name' = '%s' contains a blank or unprintable character",
                     name);
            return -1;
        }
    }
    memcpy(out->name, name, len + 1);
    return 0;
}

int cli_parse_shape_line(const char *line, cli_shape_t *out, char *err, size_t errlen)
{
    char *buf, *s, *hash;
    char *fields[CLI_MAX_SPLIT];
    int nf, rc;
    if (!line) return 0;
    buf = strdup(line);
    if (!buf) {
        cli_errf(err, errlen, "out of memory");
        return -1;
    }
    hash = strchr(buf, '#');
    if (hash) *hash = '\0';
    s = cli_trim(buf);
    if (*s == '\0') {
        free(buf);
        return 0;
    }
    nf = cli_split(s, fields);
    if (nf != CLI_SHAPE_FIELDS && nf != CLI_SHAPE_FIELDS + 1 && nf != 4) {
        cli_errf(err, errlen, "expected %d fields, got %d (%s), or 4 for a GEMM (name,m,n,k)", CLI_SHAPE_FIELDS,
                 nf, CLI_FIELD_LIST);
        free(buf);
        return -1;
    }
    memset(out, 0, sizeof *out);
    rc = cli_set_name(fields[0], out, err, errlen);
    if (rc == 0) rc = nf == 4 ? cli_fill_gemm(fields + 1, out, err, errlen)
                              : cli_fill_desc(fields + 1, nf - 1, cli_field_names + 1, out, err, errlen);
    free(buf);
    return rc == 0 ? 1 : -1;
}

int cli_parse_shape_arg(const char *arg, cli_shape_t *out, char *err, size_t errlen)
{
    char *buf, *s;
    char *fields[CLI_MAX_SPLIT];
    int nf, named, nnum, rc;
    int64_t dummy;
    if (!arg) {
        cli_errf(err, errlen, "--shape needs a value");
        return -1;
    }
    buf = strdup(arg);
    if (!buf) {
        cli_errf(err, errlen, "out of memory");
        return -1;
    }
    s = cli_trim(buf);
    nf = cli_split(s, fields);
    named = nf >= 1 && cli_parse_i64(fields[0], &dummy) != 0;
    nnum = nf - named;
    if (nf > CLI_MAX_SPLIT || (nnum != 13 && nnum != 14 && nnum != 3)) {
        cli_errf(err, errlen,
                 "--shape '%s': expected 13 numbers (n,h,w,c,k,r,s,stride_h,stride_w,pad_h,pad_w,"
                 "dil_h,dil_w), optionally a name before them and groups after them, or 3 for a "
                 "GEMM (m,n,k); got %d field%s",
                 arg, nf, nf == 1 ? "" : "s");
        free(buf);
        return -1;
    }
    memset(out, 0, sizeof *out);
    rc = named ? cli_set_name(fields[0], out, err, errlen) : 0;
    if (rc == 0) rc = nnum == 3 ? cli_fill_gemm(fields + named, out, err, errlen)
                                : cli_fill_desc(fields + named, nnum, cli_field_names + 1, out, err, errlen);
    if (rc == 0 && !named && out->gemm) {
        snprintf(out->name, sizeof out->name, "gemm_%lldx%lldx%lld", (long long)out->desc.w, (long long)out->desc.k,
                 (long long)out->desc.c);
    } else if (rc == 0 && !named) {
        const igemm_conv2d_desc_t *d = &out->desc;
        snprintf(out->name, sizeof out->name, "n%lld_%lldx%lldx%lld_k%lld_%lldx%lld_s%lld",
                 (long long)d->n, (long long)d->h, (long long)d->w, (long long)d->c,
                 (long long)d->k, (long long)d->r, (long long)d->s, (long long)d->stride_h);
    }
    if (rc != 0) {
        /* Prefix the argument so the user sees which --shape was wrong. */
        char tmp[256];
        snprintf(tmp, sizeof tmp, "%s", err ? err : "");
        cli_errf(err, errlen, "--shape '%s': %s", arg, tmp);
    }
    out->file = NULL;
    out->line = 0;
    free(buf);
    return rc;
}

int cli_shape_list_push(cli_shape_list_t *list, const cli_shape_t *s)
{
    if (list->n == list->cap) {
        int cap = list->cap ? list->cap * 2 : 16;
        cli_shape_t *v = (cli_shape_t *)realloc(list->v, (size_t)cap * sizeof *v);
        if (!v) return -1;
        list->v = v;
        list->cap = cap;
    }
    list->v[list->n++] = *s;
    return 0;
}

void cli_shape_list_free(cli_shape_list_t *list)
{
    free(list->v);
    list->v = NULL;
    list->n = list->cap = 0;
}

int cli_load_shapes(const char *path, cli_shape_list_t *list, char *err, size_t errlen)
{
    FILE *f;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    int lineno = 0, found = 0, rc = 0;
    f = fopen(path, "r");
    if (!f) {
        cli_errf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    while ((len = getline(&line, &cap, f)) >= 0) {
        cli_shape_t s;
        char why[512];
        int r;
        lineno++;
        if ((size_t)len != strlen(line)) {
            cli_errf(err, errlen, "%s:%d: line contains a NUL byte", path, lineno);
            rc = -1;
            break;
        }
        r = cli_parse_shape_line(line, &s, why, sizeof why);
        if (r < 0) {
            cli_errf(err, errlen, "%s:%d: %s", path, lineno, why);
            rc = -1;
            break;
        }
        if (r == 0) continue;
        s.file = path;
        s.line = lineno;
        if (cli_shape_list_push(list, &s) != 0) {
            cli_errf(err, errlen, "%s:%d: out of memory", path, lineno);
            rc = -1;
            break;
        }
        found++;
    }
    if (rc == 0 && ferror(f)) {
        cli_errf(err, errlen, "%s: read error: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && !found) {
        cli_errf(err, errlen, "%s: no shapes in the file (expected lines of %s)", path,
                 CLI_FIELD_LIST);
        rc = -1;
    }
    free(line);
    fclose(f);
    return rc;
}

int cli_conv_out_dims(const igemm_conv2d_desc_t *d, int64_t *p, int64_t *q)
{
    int64_t eh, ew, nh, nw;
    if (!d || d->stride_h < 1 || d->stride_w < 1 || d->dil_h < 1 || d->dil_w < 1 || d->r < 1 ||
        d->s < 1 || d->h < 1 || d->w < 1 || d->pad_top < 0 || d->pad_bottom < 0 ||
        d->pad_left < 0 || d->pad_right < 0)
        return -1;
    /* Guard the products against overflow: limits far beyond any real layer. */
    if (d->r > (1 << 20) || d->s > (1 << 20) || d->dil_h > (1 << 20) || d->dil_w > (1 << 20) ||
        d->h > ((int64_t)1 << 40) || d->w > ((int64_t)1 << 40) ||
        d->pad_top > ((int64_t)1 << 40) || d->pad_bottom > ((int64_t)1 << 40) ||
        d->pad_left > ((int64_t)1 << 40) || d->pad_right > ((int64_t)1 << 40))
        return -1;
    eh = d->dil_h * (d->r - 1) + 1;
    ew = d->dil_w * (d->s - 1) + 1;
    nh = d->h + d->pad_top + d->pad_bottom - eh;
    nw = d->w + d->pad_left + d->pad_right - ew;
    if (nh < 0 || nw < 0) return -1;
    if (p) *p = nh / d->stride_h + 1;
    if (q) *q = nw / d->stride_w + 1;
    return 0;
}

double cli_conv_flops(const igemm_conv2d_desc_t *d)
{
    int64_t p, q;
    if (cli_conv_out_dims(d, &p, &q) != 0 || d->groups < 1) return 0.0;
    return 2.0 * (double)d->n * (double)p * (double)q * (double)d->k * (double)d->r *
           (double)d->s * ((double)d->c / (double)d->groups);
}

static int cli_streq_ci(const char *a, const char *b)
{
    while (*a && *b) {
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return 0;
        a++;
        b++;
    }
    return *a == *b;
}

int cli_parse_dtype(const char *s, int allow_f32, igemm_dtype_t *out)
{
    if (!s) return -1;
    if (cli_streq_ci(s, "bf16") || cli_streq_ci(s, "bfloat16")) {
        *out = IGEMM_DTYPE_BF16;
        return 0;
    }
    if (cli_streq_ci(s, "fp16") || cli_streq_ci(s, "f16") || cli_streq_ci(s, "half") ||
        cli_streq_ci(s, "float16")) {
        *out = IGEMM_DTYPE_F16;
        return 0;
    }
    if (allow_f32 && (cli_streq_ci(s, "f32") || cli_streq_ci(s, "fp32") ||
                      cli_streq_ci(s, "float") || cli_streq_ci(s, "float32"))) {
        *out = IGEMM_DTYPE_F32;
        return 0;
    }
    return -1;
}

const char *cli_dtype_name(igemm_dtype_t d)
{
    switch (d) {
    case IGEMM_DTYPE_F16: return "fp16";
    case IGEMM_DTYPE_BF16: return "bf16";
    case IGEMM_DTYPE_F32: return "f32";
    default: return "?";
    }
}

int cli_parse_path(const char *s, igemm_path_t *out)
{
    if (!s) return -1;
    if (cli_streq_ci(s, "auto")) *out = IGEMM_PATH_AUTO;
    else if (cli_streq_ci(s, "general") || cli_streq_ci(s, "sm80")) *out = IGEMM_PATH_GENERAL;
    else if (cli_streq_ci(s, "sm90")) *out = IGEMM_PATH_SM90;
    else if (cli_streq_ci(s, "direct")) *out = IGEMM_PATH_DIRECT;
    else if (cli_streq_ci(s, "memory")) *out = IGEMM_PATH_MEMORY;
    else if (cli_streq_ci(s, "sm100")) *out = IGEMM_PATH_SM100;
    else return -1;
    return 0;
}

const char *cli_path_name(igemm_path_t p)
{
    switch (p) {
    case IGEMM_PATH_AUTO: return "auto";
    case IGEMM_PATH_GENERAL: return "general";
    case IGEMM_PATH_SM90: return "sm90";
    case IGEMM_PATH_DIRECT: return "direct";
    case IGEMM_PATH_MEMORY: return "memory";
    case IGEMM_PATH_SM100: return "sm100";
    default: return "?";
    }
}

static const char *const cli_epi_names[CLI_EPI_COUNT] = {
    "none", "bias", "scale-bias", "bias-relu", "residual-relu", "bias-gelu", "full", "bias-residual-relu"};

const char *cli_epi_name(int epi_case)
{
    return epi_case >= 0 && epi_case < CLI_EPI_COUNT ? cli_epi_names[epi_case] : "?";
}

int cli_parse_epilogue(const char *s, unsigned *mask)
{
    char *buf, *tok, *save = NULL;
    unsigned m = 0;
    int ok = 1;
    if (!s || !*s) return -1;
    buf = strdup(s);
    if (!buf) return -1;
    for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *t = cli_trim(tok);
        int found = 0;
        if (cli_streq_ci(t, "all")) {
            m |= (1u << CLI_EPI_NONE) | (1u << CLI_EPI_SCALE_BIAS) | (1u << CLI_EPI_BIAS_RELU) |
                 (1u << CLI_EPI_RESIDUAL_RELU) | (1u << CLI_EPI_BIAS_GELU) | (1u << CLI_EPI_FULL) |
                 (1u << CLI_EPI_BIAS_RESIDUAL_RELU);
            continue;
        }
        if (cli_streq_ci(t, "fused")) {
            m |= 1u << CLI_EPI_FULL;
            continue;
        }
        for (int i = 0; i < CLI_EPI_COUNT; i++) {
            if (cli_streq_ci(t, cli_epi_names[i])) {
                m |= 1u << i;
                found = 1;
                break;
            }
        }
        if (!found) {
            ok = 0;
            break;
        }
    }
    free(buf);
    if (!ok || !m) return -1;
    *mask = m;
    return 0;
}

igemm_epilogue_t cli_epi_make(int epi_case)
{
    igemm_epilogue_t e;
    memset(&e, 0, sizeof e);
    e.alpha = 1.0f;
    e.beta = 1.0f;
    e.act_param = 0.01f;
    e.activation = IGEMM_ACT_NONE;
    switch (epi_case) {
    case CLI_EPI_BIAS: e.has_bias = 1; break;
    case CLI_EPI_SCALE_BIAS:
        e.has_scale = 1;
        e.has_bias = 1;
        break;
    case CLI_EPI_BIAS_RELU:
        e.has_bias = 1;
        e.activation = IGEMM_ACT_RELU;
        break;
    case CLI_EPI_RESIDUAL_RELU:
        e.has_residual = 1;
        e.beta = 0.5f;
        e.activation = IGEMM_ACT_RELU;
        break;
    case CLI_EPI_BIAS_GELU:
        e.has_bias = 1;
        e.activation = IGEMM_ACT_GELU_TANH;
        break;
    case CLI_EPI_BIAS_RESIDUAL_RELU:
        e.has_bias = 1;
        e.has_residual = 1;
        e.activation = IGEMM_ACT_RELU;
        break;
    case CLI_EPI_FULL:
        e.alpha = 0.75f;
        e.beta = 1.25f;
        e.has_scale = 1;
        e.has_bias = 1;
        e.has_residual = 1;
        e.activation = IGEMM_ACT_SILU;
        break;
    default: break;
    }
    return e;
}
