/*
 * cmd_bench.c — `igemm bench`: times igemm on each shape, and with --vs cudnn cuDNN's fastest
 * algorithm (with --vs cublas, on GEMM shapes, cuBLASLt's: cublaslt_baseline.h) on the same
 * buffers in the same process (interleaved, timing.h), checks that both outputs agree, and prints
 * one table row per shape (and a CSV line with --csv), then the geomean speedup. --fused runs
 * bias + residual + ReLU on both sides (bias + ReLU against cuBLASLt). --gemm plans each shape with
 * igemm_gemm_plan_create.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gpu.h"

#ifdef IGEMM_HAVE_CUDA
#include "cublaslt_baseline.h"
#include "cudnn_baseline.h"
#include "cudnn_dl.h"
#include "data.h"
#include "timing.h"

/* What one shape's measurement produced. */
typedef struct bench_row {
    char name[CLI_NAME_MAX];
    const char *path;
    int ours_ok;                 /* ours was timed */
    int failed;                  /* counts as a failed shape (an error, or a mismatch with cuDNN) */
    double ours_us, dnn_us, flops; /* dnn_us 0: cuDNN not timed */
    char algo[64];
    char status[256];
} bench_row_t;

/* What every shape shares: cuDNN (when --vs cudnn loaded it), the stream, the CSV file. */
typedef struct bench_env {
    cudnn_dl_t api;
    cudnn_dl_handle_t handle;
    int have_dnn;
    cublaslt_api_t lt; /* --vs cublas */
    void *lt_handle;
    int have_blas;
    cudaStream_t stream;
    FILE *csv;
} bench_env_t;

/* The run's geomean speedup and its failures. */
typedef struct bench_summary {
    int failed, nspeed;
    double log_sum, min_speed;
    char min_name[CLI_NAME_MAX];
} bench_summary_t;

/* Writes s as a CSV field (quoted, quotes doubled). */
static void csv_escape(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* Loads cuDNN and creates its handle for --vs cudnn; on any failure says why on stderr and
 * leaves env->have_dnn 0 (igemm is benchmarked alone). */
static void bench_open_cudnn(bench_env_t *env, const cli_opts_t *o)
{
    char why[1024];
    cudnn_dl_status_t st;
    if (cudnn_dl_load(&env->api, why, sizeof why) != 0) {
        fprintf(stderr, "igemm: cuDNN not available (%s); benchmarking igemm alone\n", why);
        return;
    }
    if ((st = env->api.Create(&env->handle)) != CUDNN_DL_STATUS_SUCCESS) {
        fprintf(stderr, "igemm: cudnnCreate failed (%s); benchmarking igemm alone\n",
                cudnn_dl_error(&env->api, st, why, sizeof why));
        env->handle = NULL;
        return;
    }
    env->have_dnn = 1;
    if (o->out_dtype != o->dtype) {
        fprintf(stderr, "igemm: cuDNN is compared only with out dtype == in dtype; benchmarking igemm alone\n");
        env->have_dnn = 0;
    }
}

/* Times ours and cuBLASLt (interleaved) on a GEMM shape's sets; fills row. Returns 0, or -1 with a
 * message in err. */
static int bench_time_cublas(bench_env_t *env, const cli_shape_t *sh, const cli_opts_t *o, bench_row_t *row,
                             timing_igemm_t *oc, timing_sets_t *sets, const float *hbias, char *err, size_t errlen)
{
    const igemm_conv2d_desc_t *d = &sh->desc;
    const timing_cfg_t cfg = {o->warmup, o->iters, o->back_to_back};
    cublaslt_baseline_t bc;
    timing_result_t r, rb;
    char berr[1024];
    double mabs = 0.0;
    int agree;
    memset(&bc, 0, sizeof bc);
    bc.api = &env->lt;
    bc.handle = env->lt_handle;
    bc.fused = o->fused;
    bc.s = sets;
    if (!cublaslt_takes(d) ||
        cublaslt_baseline_setup(&bc, d, env->stream, o->back_to_back, row->algo, sizeof row->algo, berr,
                                sizeof berr) != 0) {
        if (cublaslt_takes(d)) fprintf(stderr, "igemm: %s: cuBLASLt: %s\n", sh->name, berr);
        snprintf(row->status, sizeof row->status, cublaslt_takes(d) ? "cublas failed" : "not a GEMM");
        (void)cudaGetLastError();
        if (timing_run(timing_igemm_fn, oc, &cfg, sets->n, env->stream, &r, err, errlen) != 0) return -1;
        row->ours_us = r.median_us;
        row->ours_ok = 1;
        return 0;
    }
    if (timing_run_pair(timing_igemm_fn, oc, cublaslt_baseline_fn, &bc, &cfg, sets->n, env->stream, &r, &rb, err,
                        errlen) != 0) {
        cublaslt_baseline_destroy(&bc);
        return -1;
    }
    row->ours_us = r.median_us;
    row->ours_ok = 1;
    row->dnn_us = rb.median_us;
    snprintf(row->status, sizeof row->status, "ok");
    agree = cublaslt_baseline_compare(oc, &bc, d, o->fused ? hbias : NULL, env->stream, &mabs, berr, sizeof berr);
    if (agree < 0) {
        fprintf(stderr, "igemm: %s: comparison with cuBLASLt failed: %s\n", sh->name, berr);
        snprintf(row->status, sizeof row->status, "compare failed");
    } else if (!agree) {
        snprintf(row->status, sizeof row->status, "MISMATCH vs cuBLASLt (max |d| %.3g)", mabs);
        row->failed = 1;
    }
    cublaslt_baseline_destroy(&bc);
    return 0;
}

/* Times ours (and cuDNN) on one shape on buffer sets holding the given host data; fills row.
 * Returns 0, or -1 with a message in err (row->status says FAILED). */
static int bench_time_shape(bench_env_t *env, const cli_shape_t *sh, const cli_opts_t *o, bench_row_t *row,
                            igemm_plan_t *plan, const igemm_epilogue_t *e, const void *hx, const void *hw,
                            const void *hres, const float *hbias, char *err, size_t errlen)
{
    const igemm_conv2d_desc_t *d = &sh->desc;
    const timing_cfg_t cfg = {o->warmup, o->iters, o->back_to_back};
    timing_sets_t sets;
    timing_igemm_t oc;
    cudnn_baseline_t dc;
    timing_result_t r, rd;
    int64_t xe = 0, we = 0, ye = 0, p = 0, q = 0;
    int dnn_ready = 0, rc = -1;
    char derr[1024];
    memset(&sets, 0, sizeof sets);
    memset(&dc, 0, sizeof dc);
    memset(&rd, 0, sizeof rd);

    CLI_IG(igemm_conv2d_sizes(d, &xe, &we, &ye));
    CLI_IG(igemm_conv2d_output_dims(d, &p, &q));
    {
        const size_t set_bytes = (size_t)xe * data_dtype_bytes(d->x_dtype) + (size_t)we * data_dtype_bytes(d->w_dtype) +
                                 (size_t)ye * data_dtype_bytes(d->y_dtype) * (o->fused ? 2 : 1);
        const int nsets =
            timing_sets_count(set_bytes, igemm_plan_workspace_bytes(plan) + ((size_t)1 << 30) /* cuDNN workspace */,
                              o->sets);
        if (timing_sets_alloc(&sets, d, nsets, o->fused, hx, hw, hres, hbias, err, errlen) != 0) goto fail;
    }
    oc.plan = plan;
    oc.s = &sets;
    oc.use_bias = e->has_bias;
    oc.use_res = e->has_residual;
    if (env->have_blas) {
        rc = bench_time_cublas(env, sh, o, row, &oc, &sets, hbias, err, errlen);
        goto fail;
    }
    /* cuDNN set up first, then both timed interleaved (timing_run_pair: the same clock and power
     * states for both); ours alone where cuDNN is absent or fails */
    if (env->have_dnn) {
        dc.api = &env->api;
        dc.h = env->handle;
        dc.fused = o->fused;
        dc.s = &sets;
        if (cudnn_baseline_setup(&dc, d, p, q, env->stream, o->back_to_back, row->algo, sizeof row->algo, derr,
                                 sizeof derr) != 0) {
            fprintf(stderr, "igemm: %s: cuDNN: %s\n", sh->name, derr);
            snprintf(row->status, sizeof row->status, "cudnn failed");
            (void)cudaGetLastError();
        } else {
            dnn_ready = 1;
        }
    }
    if (dnn_ready && timing_run_pair(timing_igemm_fn, &oc, cudnn_baseline_fn, &dc, &cfg, sets.n, env->stream, &r, &rd,
                                     derr, sizeof derr) != 0) {
        fprintf(stderr, "igemm: %s: timing with cuDNN: %s\n", sh->name, derr);
        (void)cudaGetLastError();
        dnn_ready = 0; /* time ours alone below, report cuDNN failed */
        snprintf(row->status, sizeof row->status, "cudnn failed");
        if (timing_run(timing_igemm_fn, &oc, &cfg, sets.n, env->stream, &r, err, errlen) != 0) goto fail;
    } else if (!dnn_ready) {
        if (timing_run(timing_igemm_fn, &oc, &cfg, sets.n, env->stream, &r, err, errlen) != 0) goto fail;
    }
    row->ours_us = r.median_us;
    row->ours_ok = 1;
    if (!env->have_dnn || dnn_ready) snprintf(row->status, sizeof row->status, "ok");
    if (dnn_ready && o->fused && o->fused_parts != CLI_FUSED_ALL) {
        /* ours runs part of cuDNN's epilogue: the outputs differ by design */
        row->dnn_us = rd.median_us;
        snprintf(row->status, sizeof row->status, "ok, not compared (--fused-parts)");
    } else if (dnn_ready) {
        double mabs = 0.0;
        int agree;
        row->dnn_us = rd.median_us;
        agree = cudnn_baseline_compare(&oc, &dc, d, o->fused ? hbias : NULL, env->stream, &mabs, derr, sizeof derr);
        if (agree < 0) {
            fprintf(stderr, "igemm: %s: comparison with cuDNN failed: %s\n", sh->name, derr);
            snprintf(row->status, sizeof row->status, "compare failed");
        } else if (!agree) {
            snprintf(row->status, sizeof row->status, "MISMATCH vs cuDNN (max |d| %.3g)", mabs);
            row->failed = 1;
        }
    }
    rc = 0;
fail:
    cudnn_baseline_destroy(&dc);
    timing_sets_free(&sets);
    return rc;
}

/* Plans one shape, makes its data (seeded by the layer's name) and times it; fills row. Returns
 * 0, or -1 with a message in err. */
static int bench_shape(bench_env_t *env, const cli_shape_t *sh, const cli_opts_t *o, bench_row_t *row, char *err,
                       size_t errlen)
{
    const igemm_conv2d_desc_t *d = &sh->desc;
    igemm_plan_t *plan = NULL;
    igemm_plan_options_t opts = igemm_plan_options_default();
    igemm_epilogue_t e = igemm_epilogue_default();
    void *hx = NULL, *hw = NULL, *hres = NULL, *hbias_lp = NULL;
    float *hbias = NULL;
    int64_t xe = 0, we = 0, ye = 0;
    int rc = -1;
    const uint64_t seed = data_hash_str(sh->name);
    data_rng_t gx = {seed ^ 1}, gw = {seed ^ 2}, gb = {seed ^ 3}, gr = {seed ^ 4};

    if (o->fused) {
        /* --fused-parts (ours only, to isolate epilogue costs): a subset of bias, residual, ReLU */
        e.has_bias = (o->fused_parts & CLI_FUSED_BIAS) != 0;
        e.has_residual = (o->fused_parts & CLI_FUSED_RESIDUAL) != 0;
        e.beta = 1.0f;
        e.activation = (o->fused_parts & CLI_FUSED_RELU) ? IGEMM_ACT_RELU : IGEMM_ACT_NONE;
    }
    opts.path = o->path;
    opts.hints = cli_opts_hints(o);
    if (o->gemm) { /* the GEMM entry point: D[M, N] = A[M, K] B[N, K]^T of the 1x1 conv */
        const igemm_gemm_desc_t g = igemm_gemm_desc_packed(d->n * d->h * d->w, d->k, d->c, 1, IGEMM_B_NK, d->x_dtype,
                                                           d->y_dtype);
        CLI_IG(igemm_gemm_plan_create(&plan, &g, &e, &opts));
    } else {
        CLI_IG(igemm_plan_create(&plan, d, &e, &opts));
    }
    row->path = cli_path_name(igemm_plan_path(plan));
    CLI_IG(igemm_conv2d_sizes(d, &xe, &we, &ye));
    hx = malloc((size_t)xe * data_dtype_bytes(d->x_dtype));
    hw = malloc((size_t)we * data_dtype_bytes(d->w_dtype));
    hbias = (float *)malloc((size_t)d->k * sizeof(float));
    hbias_lp = malloc((size_t)d->k * data_dtype_bytes(d->x_dtype));
    if (o->fused) hres = malloc((size_t)ye * data_dtype_bytes(d->y_dtype));
    if (!hx || !hw || !hbias || !hbias_lp || (o->fused && !hres)) {
        snprintf(err, errlen, "out of host memory");
        goto fail;
    }
    data_fill(hx, xe, d->x_dtype, -1.0, 1.0, &gx);
    data_fill(hw, we, d->w_dtype, -1.0, 1.0, &gw);
    /* the bias in the input dtype (cuDNN's bias tensor), our fp32 bias the same values */
    data_fill(hbias_lp, d->k, d->x_dtype, -1.0, 1.0, &gb);
    for (int64_t i = 0; i < d->k; i++) hbias[i] = (float)data_get(hbias_lp, i, d->x_dtype);
    if (hres) data_fill(hres, ye, d->y_dtype, -1.0, 1.0, &gr);
    rc = bench_time_shape(env, sh, o, row, plan, &e, hx, hw, hres, hbias, err, errlen);
fail:
    igemm_plan_destroy(plan);
    free(hx);
    free(hw);
    free(hres);
    free(hbias);
    free(hbias_lp);
    return rc;
}

/* Prints row's table line (and its CSV line to csv if given) and adds it to the summary. */
static void bench_report(const bench_row_t *row, const igemm_conv2d_desc_t *d, const cli_opts_t *o, FILE *csv,
                         bench_summary_t *sum)
{
    char ours_s[32] = "-", dnn_s[32] = "-", sp_s[32] = "-", otf[32] = "-", dtf[32] = "-";
    double speed = 0.0;
    if (row->ours_ok) {
        snprintf(ours_s, sizeof ours_s, "%.2f", row->ours_us);
        snprintf(otf, sizeof otf, "%.1f", row->flops / (row->ours_us * 1e-6) * 1e-12);
    }
    if (row->dnn_us > 0.0) {
        snprintf(dnn_s, sizeof dnn_s, "%.2f", row->dnn_us);
        snprintf(dtf, sizeof dtf, "%.1f", row->flops / (row->dnn_us * 1e-6) * 1e-12);
    }
    if (row->ours_ok && row->dnn_us > 0.0) {
        speed = row->dnn_us / row->ours_us;
        snprintf(sp_s, sizeof sp_s, "%.3f", speed);
        sum->log_sum += log(speed);
        sum->nspeed++;
        if (speed < sum->min_speed) {
            sum->min_speed = speed;
            snprintf(sum->min_name, sizeof sum->min_name, "%s", row->name);
        }
    }
    if (row->failed) sum->failed++;
    printf("%-26s %-8s %10s %10s %8s %8s %8s  %-24s %s\n", row->name, row->path, ours_s, dnn_s, sp_s, otf, dtf,
           row->algo, row->status);
    fflush(stdout);
    if (!csv) return;
    csv_escape(csv, row->name);
    fprintf(csv, ",%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld", (long long)d->n,
            (long long)d->h, (long long)d->w, (long long)d->c, (long long)d->k, (long long)d->r, (long long)d->s,
            (long long)d->stride_h, (long long)d->stride_w, (long long)d->pad_top, (long long)d->pad_left,
            (long long)d->dil_h, (long long)d->dil_w, (long long)d->groups);
    fprintf(csv, ",%s,%s,%d,%s,%s,%s,%s,%s,%s,", cli_dtype_name(d->x_dtype), cli_dtype_name(d->y_dtype), o->fused,
            row->path, row->ours_ok ? ours_s : "", row->dnn_us > 0.0 ? dnn_s : "", speed > 0.0 ? sp_s : "",
            row->ours_ok ? otf : "", row->dnn_us > 0.0 ? dtf : "");
    csv_escape(csv, row->algo);
    fputc(',', csv);
    csv_escape(csv, row->status);
    fprintf(csv, ",%s\n", o->back_to_back ? "back_to_back" : "per_call");
    fflush(csv);
}

/* The GPU part of cmd_bench. Returns the exit status. */
static int bench_gpu(const cli_opts_t *o)
{
    bench_env_t env;
    bench_summary_t sum;
    char dev[256], ver[32] = "", fused[96] = "";
    cudaError_t ce;

    memset(&env, 0, sizeof env);
    memset(&sum, 0, sizeof sum);
    sum.min_speed = INFINITY;
    gpu_device_line(dev, sizeof dev);
    if (o->vs_cudnn) bench_open_cudnn(&env, o);
    if (o->vs_cublas) {
        char why[512];
        if (cublaslt_load(&env.lt, why, sizeof why) != 0) fprintf(stderr, "igemm: %s; benchmarking igemm alone\n", why);
        else if (env.lt.Create(&env.lt_handle) != 0) fprintf(stderr, "igemm: cublasLtCreate failed\n");
        else env.have_blas = 1;
    }
    if ((ce = cudaStreamCreateWithFlags(&env.stream, cudaStreamNonBlocking)) != cudaSuccess) {
        fprintf(stderr, "igemm: cudaStreamCreateWithFlags: %s\n", cudaGetErrorString(ce));
        sum.failed = 1;
        goto done;
    }
    if (o->csv) {
        env.csv = fopen(o->csv, "w");
        if (!env.csv) {
            fprintf(stderr, "igemm: %s: cannot open for writing\n", o->csv);
            sum.failed = 1;
            goto done;
        }
        /* the baseline's columns keep the cudnn_ names (scripts read them); --vs cublas fills them with cuBLASLt */
        fprintf(env.csv, "name,n,h,w,c,k,r,s,stride_h,stride_w,pad_h,pad_w,dil_h,dil_w,groups,dtype,out_dtype,fused,path,"
                         "ours_us,cudnn_us,speedup,ours_tflops,cudnn_tflops,cudnn_algo,status,timing\n");
    }
    if (env.have_dnn) cudnn_dl_version_string(env.api.GetVersion(), ver, sizeof ver);
    if (o->fused && o->fused_parts == CLI_FUSED_ALL) {
        snprintf(fused, sizeof fused, "; fused bias+residual+ReLU");
    } else if (o->fused) {
        char parts[32] = "";
        if (o->fused_parts & CLI_FUSED_BIAS) strcat(parts, "+bias");
        if (o->fused_parts & CLI_FUSED_RESIDUAL) strcat(parts, "+residual");
        if (o->fused_parts & CLI_FUSED_RELU) strcat(parts, "+ReLU");
        snprintf(fused, sizeof fused, "; fused (ours: %s; %s)", parts + 1,
                 o->vs_cublas ? "cuBLASLt: bias+ReLU" : "cuDNN: bias+residual+ReLU");
    }
    printf("igemm %s bench on %s; %s in, %s out%s%s%s; %d warm-up + median of %d runs %s, L2 %.0f MiB flushed by "
           "buffer rotation%s%s\n",
           igemm_version_string(), dev, cli_dtype_name(o->dtype), cli_dtype_name(o->out_dtype),
           fused, o->has_hints ? "; hints " : "",
           o->has_hints ? o->hints_text : "", o->warmup, o->iters,
           o->back_to_back ? "(back to back: an event pair per 16 calls)" : "(an event pair per call)",
           timing_l2_bytes() / 1048576.0, env.have_dnn ? "; vs cuDNN " : env.have_blas ? "; vs cuBLASLt" : "", ver);
    {
        const char *b = env.have_blas ? "cublas" : "cudnn";
        char us[32], tf[32], al[32];
        snprintf(us, sizeof us, "%s_us", b);
        snprintf(tf, sizeof tf, "%s_TF", b);
        snprintf(al, sizeof al, "%s_algo", b);
        printf("%-26s %-8s %10s %10s %8s %8s %8s  %-24s %s\n", "name", "path", "ours_us", us, "speedup", "ours_TF", tf,
               al, "status");
    }
    fflush(stdout);

    for (int si = 0; si < o->shapes.n; si++) {
        const cli_shape_t *sh = &o->shapes.v[si];
        bench_row_t row;
        char err[1024] = "";
        memset(&row, 0, sizeof row);
        snprintf(row.name, sizeof row.name, "%s", sh->name);
        row.path = "-";
        row.flops = cli_conv_flops(&sh->desc);
        snprintf(row.algo, sizeof row.algo, "-");
        fprintf(stderr, "[%d/%d] %s ...\n", si + 1, o->shapes.n, sh->name);
        if (bench_shape(&env, sh, o, &row, err, sizeof err) != 0) {
            fprintf(stderr, "igemm: %s: %s\n", sh->name, err);
            snprintf(row.status, sizeof row.status, "FAILED: %.200s", err);
            row.failed = 1;
            (void)cudaGetLastError(); /* clear what can be cleared for the next shape */
        }
        bench_report(&row, &sh->desc, o, env.csv, &sum);
    }
    if (sum.nspeed > 0)
        printf("geomean speedup (%s_us / ours_us) over %d shapes: %.3f; min %.3f (%s)\n",
               env.have_blas ? "cublas" : "cudnn", sum.nspeed, exp(sum.log_sum / sum.nspeed), sum.min_speed,
               sum.min_name);
    if (sum.failed) printf("%d shape(s) failed\n", sum.failed);
done:
    if (env.csv) fclose(env.csv);
    if (env.handle) (void)env.api.Destroy(env.handle);
    if (env.lt_handle) (void)env.lt.Destroy(env.lt_handle);
    cudnn_dl_unload(&env.api);
    if (env.stream) (void)cudaStreamDestroy(env.stream); /* cleanup */
    return sum.failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
#endif /* IGEMM_HAVE_CUDA */

int cmd_bench(const cli_opts_t *o)
{
    if (!gpu_require("bench")) return CLI_EXIT_NO_GPU;
#ifdef IGEMM_HAVE_CUDA
    return bench_gpu(o);
#else
    return CLI_EXIT_NO_GPU; /* not reached: without CUDA no GPU is usable */
#endif
}
