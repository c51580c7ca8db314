/* options.c — see options.h. */
#include "options.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "timing.h"

static const struct {
    const char *name;
    unsigned bit;
    int has_value;
} k_options[] = {
    {"--shape", CLI_OPT_SHAPE, 1},   {"--shapes", CLI_OPT_SHAPES, 1},     {"--dtype", CLI_OPT_DTYPE, 1},
    {"--out-dtype", CLI_OPT_OUT_DTYPE, 1}, {"--iters", CLI_OPT_ITERS, 1}, {"--warmup", CLI_OPT_WARMUP, 1},
    {"--path", CLI_OPT_PATH, 1},     {"--epilogue", CLI_OPT_EPI, 1},      {"--samples", CLI_OPT_SAMPLES, 1},
    {"--seed", CLI_OPT_SEED, 1},     {"--vs", CLI_OPT_VS, 1},             {"--fused", CLI_OPT_FUSED, 0},
    {"--csv", CLI_OPT_CSV, 1},       {"--timing", CLI_OPT_TIMING, 1},     {"--sets", CLI_OPT_SETS, 1},
    {"--hints", CLI_OPT_HINTS, 1},   {"--fused-parts", CLI_OPT_FUSED_PARTS, 1}, {"--gemm", CLI_OPT_GEMM, 0},
};

/* Writes a printf-style message into err. Returns CLI_EXIT_USAGE. */
static int opts_usage(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int opts_usage(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

void cli_opts_init(cli_opts_t *o, const char *cmd)
{
    memset(o, 0, sizeof *o);
    o->cmd = cmd;
    o->dtype = o->out_dtype = IGEMM_DTYPE_BF16;
    o->iters = 100;
    o->warmup = 10;
    o->samples = 2048;
    o->seed = 1;
    o->path = IGEMM_PATH_AUTO;
    o->fused_parts = CLI_FUSED_ALL;
}

/* Parses --fused-parts: a non-empty word of the letters b (bias), r (residual), a (ReLU). Returns
 * 0 and sets *mask, or -1. */
static int opts_parse_fused_parts(const char *s, unsigned *mask)
{
    unsigned m = 0;
    if (!*s) return -1;
    for (; *s; s++) {
        if (*s == 'b') m |= CLI_FUSED_BIAS;
        else if (*s == 'r') m |= CLI_FUSED_RESIDUAL;
        else if (*s == 'a') m |= CLI_FUSED_RELU;
        else return -1;
    }
    *mask = m;
    return 0;
}

/* Applies option `bit` with value val (NULL for a flag) to o. Returns as cli_opts_parse. */
static int opts_apply(cli_opts_t *o, unsigned bit, const char *val, char *err, size_t errlen)
{
    switch (bit) {
    case CLI_OPT_SHAPE: {
        cli_shape_t s;
        if (cli_parse_shape_arg(val, &s, err, errlen) != 0) return CLI_EXIT_USAGE;
        if (cli_shape_list_push(&o->shapes, &s) != 0) {
            snprintf(err, errlen, "out of memory");
            return CLI_EXIT_FAIL;
        }
        return CLI_EXIT_OK;
    }
    case CLI_OPT_SHAPES:
        return cli_load_shapes(val, &o->shapes, err, errlen) != 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
    case CLI_OPT_DTYPE:
        if (cli_parse_dtype(val, 0, &o->dtype) != 0)
            return opts_usage(err, errlen, "--dtype '%s': expected bf16 or fp16", val);
        return CLI_EXIT_OK;
    case CLI_OPT_OUT_DTYPE:
        if (cli_parse_dtype(val, 1, &o->out_dtype) != 0)
            return opts_usage(err, errlen, "--out-dtype '%s': expected bf16, fp16 or f32", val);
        o->out_dtype_set = 1;
        return CLI_EXIT_OK;
    case CLI_OPT_ITERS:
        if (cli_parse_int_range(val, 1, 1000000, &o->iters) != 0)
            return opts_usage(err, errlen, "--iters '%s': expected an integer in [1, 1000000]", val);
        return CLI_EXIT_OK;
    case CLI_OPT_WARMUP:
        if (cli_parse_int_range(val, 0, 1000000, &o->warmup) != 0)
            return opts_usage(err, errlen, "--warmup '%s': expected an integer in [0, 1000000]", val);
        return CLI_EXIT_OK;
    case CLI_OPT_SAMPLES:
        if (cli_parse_int_range(val, 0, 100000000, &o->samples) != 0)
            return opts_usage(err, errlen, "--samples '%s': expected an integer in [0, 1e8]", val);
        return CLI_EXIT_OK;
    case CLI_OPT_SEED: {
        int64_t v;
        if (cli_parse_i64(val, &v) != 0) return opts_usage(err, errlen, "--seed '%s': expected an integer", val);
        o->seed = (uint64_t)v;
        return CLI_EXIT_OK;
    }
    case CLI_OPT_PATH:
        if (cli_parse_path(val, &o->path) != 0)
            return opts_usage(err, errlen, "--path '%s': expected auto, general, sm90, direct or memory", val);
        return CLI_EXIT_OK;
    case CLI_OPT_EPI:
        if (cli_parse_epilogue(val, &o->epi_mask) != 0)
            return opts_usage(err, errlen,
                              "--epilogue '%s': expected none, bias, scale-bias, bias-relu, residual-relu, "
                              "bias-gelu, fused, full, bias-residual-relu or all",
                              val);
        return CLI_EXIT_OK;
    case CLI_OPT_VS:
        if (strcmp(val, "cudnn") == 0) o->vs_cudnn = 1;
        else if (strcmp(val, "cublas") == 0) o->vs_cublas = 1;
        else return opts_usage(err, errlen, "--vs '%s': expected cudnn or cublas", val);
        if (o->vs_cudnn && o->vs_cublas) return opts_usage(err, errlen, "--vs: one of cudnn and cublas");
        return CLI_EXIT_OK;
    case CLI_OPT_GEMM: o->gemm = 1; return CLI_EXIT_OK;
    case CLI_OPT_FUSED: o->fused = 1; return CLI_EXIT_OK;
    case CLI_OPT_CSV: o->csv = val; return CLI_EXIT_OK;
    case CLI_OPT_TIMING:
        if (strcmp(val, "per-call") == 0) o->back_to_back = 0;
        else if (strcmp(val, "back-to-back") == 0) o->back_to_back = 1;
        else return opts_usage(err, errlen, "--timing '%s': expected per-call or back-to-back", val);
        return CLI_EXIT_OK;
    case CLI_OPT_SETS:
        if (cli_parse_int_range(val, 1, TIMING_MAX_SETS, &o->sets) != 0)
            return opts_usage(err, errlen, "--sets '%s': expected an integer in [1, %d]", val, TIMING_MAX_SETS);
        return CLI_EXIT_OK;
    case CLI_OPT_FUSED_PARTS:
        if (opts_parse_fused_parts(val, &o->fused_parts) != 0)
            return opts_usage(err, errlen, "--fused-parts '%s': expected letters of b (bias), r (residual), a (ReLU)",
                              val);
        o->fused_parts_set = 1;
        return CLI_EXIT_OK;
    case CLI_OPT_HINTS:
        if (igemm_plan_hints_parse(val, &o->hints) != IGEMM_STATUS_SUCCESS)
            return opts_usage(err, errlen, "--hints '%s': %s", val, igemm_last_error());
        o->has_hints = val[0] != '\0';
        o->hints_text = val;
        return CLI_EXIT_OK;
    default: snprintf(err, errlen, "internal error: option bit %#x has no parser", bit); return CLI_EXIT_FAIL;
    }
}

int cli_opts_parse(cli_opts_t *o, int nargs, char **args, unsigned allowed, char *err, size_t errlen)
{
    for (int i = 0; i < nargs; i++) {
        const char *arg = args[i], *val = NULL, *eq;
        char name[64];
        size_t nlen;
        int which = -1, rc;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) return CLI_OPTS_HELP;
        if (strncmp(arg, "--", 2) != 0) return opts_usage(err, errlen, "%s: unexpected argument '%s'", o->cmd, arg);
        eq = strchr(arg, '=');
        nlen = eq ? (size_t)(eq - arg) : strlen(arg);
        if (nlen >= sizeof name) return opts_usage(err, errlen, "%s: unknown option '%s'", o->cmd, arg);
        memcpy(name, arg, nlen);
        name[nlen] = '\0';
        for (size_t j = 0; j < sizeof k_options / sizeof k_options[0]; j++)
            if (!strcmp(name, k_options[j].name)) which = (int)j;
        if (which < 0 || !(k_options[which].bit & allowed))
            return opts_usage(err, errlen, "%s: unknown option '%s'", o->cmd, name);
        if (k_options[which].has_value) {
            if (eq) val = eq + 1;
            else if (i + 1 < nargs) val = args[++i];
            else return opts_usage(err, errlen, "%s: option %s needs a value", o->cmd, name);
        } else if (eq) {
            return opts_usage(err, errlen, "%s: option %s takes no value", o->cmd, name);
        }
        rc = opts_apply(o, k_options[which].bit, val, err, errlen);
        if (rc != CLI_EXIT_OK) return rc;
    }
    if (o->fused_parts_set && !o->fused)
        return opts_usage(err, errlen, "%s: --fused-parts needs --fused", o->cmd);
    /* cuBLASLt's fused GEMM epilogue is bias + ReLU: ours runs the same unless told otherwise */
    if (o->vs_cublas && o->fused && !o->fused_parts_set) o->fused_parts = CLI_FUSED_BIAS | CLI_FUSED_RELU;
    return CLI_EXIT_OK;
}

int cli_opts_finish(cli_opts_t *o, char *err, size_t errlen)
{
    if (o->shapes.n == 0) {
        cli_shape_t s;
        char why[512] = "out of memory";
        if (cli_parse_shape_arg(CLI_DEFAULT_SHAPE, &s, why, sizeof why) != 0 || cli_shape_list_push(&o->shapes, &s) != 0) {
            snprintf(err, errlen, "internal error: the default shape: %s", why);
            return CLI_EXIT_FAIL;
        }
    }
    if (!o->out_dtype_set) o->out_dtype = o->dtype;
    for (int i = 0; i < o->shapes.n; i++) {
        cli_shape_t *s = &o->shapes.v[i];
        s->desc.x_dtype = s->desc.w_dtype = o->dtype;
        s->desc.y_dtype = o->out_dtype;
        if (o->gemm && !s->gemm) {
            snprintf(err, errlen, "--gemm: shape '%s' is a conv, not a GEMM line (name,m,n,k)", s->name);
            return CLI_EXIT_USAGE;
        }
        if (igemm_conv2d_validate(&s->desc) != IGEMM_STATUS_SUCCESS) {
            if (s->file) {
                snprintf(err, errlen, "%s:%d: shape '%s': %s", s->file, s->line, s->name, igemm_last_error());
                return CLI_EXIT_FAIL;
            }
            snprintf(err, errlen, "--shape '%s': %s", s->name, igemm_last_error());
            return CLI_EXIT_USAGE;
        }
    }
    return CLI_EXIT_OK;
}

const igemm_plan_hints_t *cli_opts_hints(const cli_opts_t *o) { return o->has_hints ? &o->hints : NULL; }

void cli_opts_free(cli_opts_t *o) { cli_shape_list_free(&o->shapes); }
