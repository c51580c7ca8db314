/*
 * options.h — the command line of the igemm CLI: exit statuses, the options every subcommand
 * takes (which ones each accepts: CLI_OPTS_*), their parsing into cli_opts_t with messages that
 * name the option and the value, and the shapes' final dtypes and validation.
 */
#ifndef IGEMM_CLI_OPTIONS_H
#define IGEMM_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "igemm.h"
#include "shapes.h"

/* Exit statuses of the igemm CLI. */
enum {
    CLI_EXIT_OK = 0,     /* success */
    CLI_EXIT_FAIL = 1,   /* a check failed, a shape failed, a malformed shape file, a CUDA error */
    CLI_EXIT_USAGE = 2,  /* unknown command or option, bad option value */
    CLI_EXIT_NO_GPU = 3  /* the command needs a CUDA GPU and none is usable */
};

/* cli_opts_parse's return when --help / -h was given (print usage, exit 0). */
#define CLI_OPTS_HELP (-1)

/* The layer run/check/bench use without --shape or --shapes. */
#define CLI_DEFAULT_SHAPE "r50_l1_3x3_64,32,56,56,64,64,3,3,1,1,1,1,1,1"

/* Option bits. */
enum {
    CLI_OPT_SHAPE = 1u << 0,
    CLI_OPT_SHAPES = 1u << 1,
    CLI_OPT_DTYPE = 1u << 2,
    CLI_OPT_OUT_DTYPE = 1u << 3,
    CLI_OPT_ITERS = 1u << 4,
    CLI_OPT_WARMUP = 1u << 5,
    CLI_OPT_PATH = 1u << 6,
    CLI_OPT_EPI = 1u << 7,
    CLI_OPT_SAMPLES = 1u << 8,
    CLI_OPT_SEED = 1u << 9,
    CLI_OPT_VS = 1u << 10,
    CLI_OPT_FUSED = 1u << 11,
    CLI_OPT_CSV = 1u << 12,
    CLI_OPT_TIMING = 1u << 13,
    CLI_OPT_SETS = 1u << 14,
    CLI_OPT_HINTS = 1u << 15,
    CLI_OPT_FUSED_PARTS = 1u << 16,
    CLI_OPT_GEMM = 1u << 17
};

/* bench --fused-parts letters: which parts of the fused epilogue our kernels run. */
enum { CLI_FUSED_BIAS = 1u << 0, CLI_FUSED_RESIDUAL = 1u << 1, CLI_FUSED_RELU = 1u << 2 };
#define CLI_FUSED_ALL (CLI_FUSED_BIAS | CLI_FUSED_RESIDUAL | CLI_FUSED_RELU)

/* The options each subcommand accepts. */
#define CLI_OPTS_COMMON \
    (CLI_OPT_SHAPE | CLI_OPT_SHAPES | CLI_OPT_DTYPE | CLI_OPT_OUT_DTYPE | CLI_OPT_PATH | CLI_OPT_HINTS)
#define CLI_OPTS_RUN (CLI_OPTS_COMMON | CLI_OPT_ITERS | CLI_OPT_WARMUP | CLI_OPT_TIMING | CLI_OPT_SETS)
#define CLI_OPTS_CHECK (CLI_OPTS_COMMON | CLI_OPT_EPI | CLI_OPT_SAMPLES | CLI_OPT_SEED)
#define CLI_OPTS_BENCH \
    (CLI_OPTS_COMMON | CLI_OPT_ITERS | CLI_OPT_WARMUP | CLI_OPT_TIMING | CLI_OPT_SETS | CLI_OPT_VS | CLI_OPT_FUSED | \
     CLI_OPT_FUSED_PARTS | CLI_OPT_CSV | CLI_OPT_GEMM)
#define CLI_OPTS_INFO 0u

typedef struct cli_opts {
    const char *cmd;
    cli_shape_list_t shapes;
    igemm_dtype_t dtype, out_dtype;
    int out_dtype_set;
    int iters, warmup, samples;
    uint64_t seed;
    igemm_path_t path;
    unsigned epi_mask; /* check's epilogue cases (1 << CLI_EPI_x); 0 = none given */
    int vs_cudnn, vs_cublas, fused;
    int gemm; /* --gemm: plan each shape with igemm_gemm_plan_create (every shape must be a GEMM) */
    unsigned fused_parts; /* --fused-parts (CLI_FUSED_*; default all): ours only, cuDNN runs all */
    int fused_parts_set;
    int back_to_back; /* --timing back-to-back */
    int sets;         /* --sets: buffer sets rotated over; 0 = as many as L2 needs */
    const char *csv;
    /* --hints TEXT (EXPERIMENTAL plan hints, igemm_plan_hints_parse): given to every plan of our
     * kernels (never to check's direct-path oracle) */
    int has_hints;
    igemm_plan_hints_t hints;
    const char *hints_text;
} cli_opts_t;

/* The hints for an igemm_plan_options_t of our kernels: &o->hints, or NULL without --hints. */
const igemm_plan_hints_t *cli_opts_hints(const cli_opts_t *o);

/* Sets o to the defaults of command cmd (bf16, 100 iterations after 10 warm-up, 2048 samples,
 * seed 1, auto path, the whole fused epilogue, no shapes yet). */
void cli_opts_init(cli_opts_t *o, const char *cmd);

/* Parses the options args[0..nargs) of command o->cmd, accepting those in `allowed` (CLI_OPTS_*);
 * --fused-parts needs --fused.
 * Returns CLI_EXIT_OK; CLI_OPTS_HELP for --help; CLI_EXIT_USAGE with a message in err naming the
 * option and the value; or CLI_EXIT_FAIL with a message in err (a shape file that cannot be read
 * or is malformed: "FILE:LINE: why"). */
int cli_opts_parse(cli_opts_t *o, int nargs, char **args, unsigned allowed, char *err, size_t errlen);

/* After parsing: the default shape if none was given, the dtypes of every shape, and each shape
 * validated by the library. Returns CLI_EXIT_OK, or CLI_EXIT_USAGE (a --shape the library
 * rejects) / CLI_EXIT_FAIL (a shape file's line it rejects) with a message in err. */
int cli_opts_finish(cli_opts_t *o, char *err, size_t errlen);

/* Frees what parsing allocated (the shape list). */
void cli_opts_free(cli_opts_t *o);

#endif
