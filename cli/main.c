/*
 * main.c — the igemm command-line tool's entry point: parses the command and its options
 * (options.c) and calls the subcommand (cmd_run.c, cmd_check.c, cmd_bench.c, cmd_info.c).
 *
 *   igemm run   [--shape S | --shapes FILE] [--dtype D] [--out-dtype D] [--path P] [--iters N] ...
 *   igemm check [--shape S | --shapes FILE] [--dtype D] [--out-dtype D] [--epilogue E] [--path P] ...
 *   igemm bench [--shape S | --shapes FILE] [--vs cudnn|cublas] [--gemm] [--fused] [--dtype D] [--csv OUT] ...
 *   igemm info
 *
 * Exit status: 0 success; 1 a failure (a check failed, a shape failed, a malformed shape
 * file, a CUDA error); 2 a usage error (unknown command or option, bad option value);
 * 3 the command needs a CUDA GPU and none is usable.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "igemm.h"
#include "options.h"

/* Prints the usage text to f. */
static void usage(FILE *f)
{
    fprintf(f,
            "usage: igemm <command> [options]\n"
            "\n"
            "commands:\n"
            "  run     time igemm on a layer (default r50_l1_3x3_64: n32 56x56x64 -> 64, 3x3);\n"
            "          without a GPU, runs the CPU reference on a small layer instead\n"
            "  check   compare igemm against the GPU direct path (every element) and the library's\n"
            "          exact reference (sampled elements), with y poisoned before each run\n"
            "  bench   time igemm (and cuDNN with --vs cudnn, cuBLASLt with --vs cublas) in one\n"
            "          process, one table\n"
            "  info    version, GPU, usable kernel paths, cuDNN\n"
            "  help    this message\n"
            "\n"
            "options (run, check, bench):\n"
            "  --shape S        name,n,h,w,c,k,r,s,stride_h,stride_w,pad_h,pad_w,dil_h,dil_w[,groups]\n"
            "                   (the name is optional; may be repeated), or a GEMM name,m,n,k\n"
            "                   (D[m,n] = A[m,k] B[n,k]^T, run as the 1x1 conv it is)\n"
            "  --shapes FILE    shape file: one such line per layer, '#' comments\n"
            "  --dtype D        input type: bf16 (default) or fp16\n"
            "  --out-dtype D    output type: bf16, fp16 or f32 (default: the input type)\n"
            "  --path P         auto (default), general, sm90, sm100, direct, memory\n"
            "  --hints TEXT     EXPERIMENTAL plan hints for igemm's plans, key=value[,key=value]\n"
            "                   (e.g. kernel=pingpong,tile=128x64,grid=4; keys: kernel, tile, tile_m,\n"
            "                   tile_n, consumers, stages, split_k, grid, staging_boxes, filter_resident,\n"
            "                   pdl, rows_per_tile, fold_rows, stem_prepass, self_check); check's direct-path\n"
            "                   oracle never gets them\n"
            "options (run, bench):\n"
            "  --iters N        timed runs, median reported (default 100)\n"
            "  --warmup N       untimed runs first (default 10)\n"
            "  --timing T       per-call (default): an event pair around each call; back-to-back:\n"
            "                   an event pair around each 16 calls enqueued back to back (no\n"
            "                   event between two calls: launch latency overlaps as in a network)\n"
            "  --sets N         rotate over N buffer sets (1..64; default: enough that their total\n"
            "                   exceeds twice the L2, so no call finds its operands in L2; 1 = warm L2)\n"
            "options (check):\n"
            "  --epilogue E     none (default), bias, scale-bias, bias-relu, residual-relu,\n"
            "                   bias-gelu, fused (= full: silu(0.75*scale*acc+bias+1.25*res)),\n"
            "                   bias-residual-relu (relu(acc+bias+res): bench --fused's),\n"
            "                   all (none, scale-bias, bias-relu, residual-relu, bias-gelu, full,\n"
            "                   bias-residual-relu);\n"
            "                   a comma list combines them\n"
            "  --samples N      reference samples per run (default 2048)\n"
            "  --seed N         data seed (default 1)\n"
            "options (bench):\n"
            "  --vs cudnn       also time cuDNN (cudnnConvolutionForward, best algorithm)\n"
            "  --vs cublas      also time cuBLASLt on GEMM shapes (best of its heuristic's top 8;\n"
            "                   with --fused its EPILOGUE_RELU_BIAS against our bias + ReLU)\n"
            "  --gemm           plan the shapes (GEMM lines) with igemm_gemm_plan_create\n"
            "  --fused          bias + residual + ReLU epilogue on both sides\n"
            "                   (cuDNN: cudnnConvolutionBiasActivationForward)\n"
            "  --fused-parts L  with --fused: our epilogue runs only the parts named by the letters\n"
            "                   b (bias), r (residual), a (ReLU), e.g. br (cuDNN still runs all; the\n"
            "                   outputs are then not compared): what each part costs\n"
            "  --csv OUT        also write the results as CSV\n"
            "\n"
            "exit status: 0 ok, 1 failure, 2 usage error, 3 no usable CUDA GPU\n"
            "environment: IGEMM_CUDNN_LIB / IGEMM_CUBLASLT_LIB = path of libcudnn / libcublasLt to load\n");
}

/* The subcommands: name, the options each takes, whether its shapes are finished (default shape,
 * dtypes, validation) before it runs, and its function. */
static const struct {
    const char *name;
    unsigned allowed;
    int uses_shapes;
    int (*fn)(const cli_opts_t *o);
} k_commands[] = {
    {"run", CLI_OPTS_RUN, 1, cmd_run},
    {"check", CLI_OPTS_CHECK, 1, cmd_check},
    {"bench", CLI_OPTS_BENCH, 1, cmd_bench},
    {"info", CLI_OPTS_INFO, 0, cmd_info},
};

int main(int argc, char **argv)
{
    cli_opts_t o;
    char err[1024] = "";
    int which = -1, rc;

    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return CLI_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
        printf("igemm %s\n", igemm_version_string());
        return CLI_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof k_commands / sizeof k_commands[0]; i++)
        if (!strcmp(argv[1], k_commands[i].name)) which = (int)i;
    if (which < 0) {
        fprintf(stderr, "igemm: unknown command '%s'\n\n", argv[1]);
        usage(stderr);
        return CLI_EXIT_USAGE;
    }

    cli_opts_init(&o, k_commands[which].name);
    rc = cli_opts_parse(&o, argc - 2, argv + 2, k_commands[which].allowed, err, sizeof err);
    if (rc == CLI_OPTS_HELP) {
        usage(stdout);
        rc = CLI_EXIT_OK;
    } else if (rc != CLI_EXIT_OK) {
        fprintf(stderr, "igemm: %s\n", err);
        if (rc == CLI_EXIT_USAGE) fprintf(stderr, "run 'igemm help' for usage\n");
    } else if (k_commands[which].uses_shapes && (rc = cli_opts_finish(&o, err, sizeof err)) != CLI_EXIT_OK) {
        fprintf(stderr, "igemm: %s\n", err);
    } else {
        rc = k_commands[which].fn(&o);
    }
    cli_opts_free(&o);
    return rc;
}
