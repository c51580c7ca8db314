/*
 * cmd_run.c — `igemm run`: plans each shape (default: ResNet-50's r50_l1_3x3_64), prints the plan
 * and times it on rotated buffer sets (median of --iters calls). Without a usable GPU it times
 * the library's CPU reference on a small layer instead, so the command always shows something.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "data.h"
#include "gpu.h"
#include "timing.h"

/* Times igemm_conv2d_reference on n1 14x14x16 -> 16, 3x3 (bf16) and prints one line. Returns
 * the exit status. */
static int run_cpu_fallback(const char *reason)
{
    igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
    igemm_epilogue_t e = igemm_epilogue_default();
    int64_t xe = 0, we = 0, ye = 0;
    void *x = NULL, *w = NULL, *y = NULL;
    double times[5], sum = 0.0, med;
    int rc = CLI_EXIT_FAIL;
    igemm_status_t st;
    data_rng_t gx = {1}, gw = {2};

    printf("igemm: no CUDA GPU found (%s); running the CPU reference on a small layer instead\n", reason);
    d.n = 1;
    d.h = d.w = 14;
    d.c = 16;
    d.k = 16;
    d.r = d.s = 3;
    d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = 1;
    d.x_dtype = d.w_dtype = d.y_dtype = IGEMM_DTYPE_BF16;
    if ((st = igemm_conv2d_sizes(&d, &xe, &we, &ye)) != IGEMM_STATUS_SUCCESS) {
        fprintf(stderr, "igemm: igemm_conv2d_sizes: %s: %s\n", igemm_status_string(st), igemm_last_error());
        return CLI_EXIT_FAIL;
    }
    x = malloc((size_t)xe * data_dtype_bytes(d.x_dtype));
    w = malloc((size_t)we * data_dtype_bytes(d.w_dtype));
    y = malloc((size_t)ye * data_dtype_bytes(d.y_dtype));
    if (!x || !w || !y) {
        fprintf(stderr, "igemm: out of host memory\n");
        goto done;
    }
    data_fill(x, xe, d.x_dtype, -1.0, 1.0, &gx);
    data_fill(w, we, d.w_dtype, -1.0, 1.0, &gw);
    for (int i = 0; i < 5; i++) {
        const double t0 = timing_now_s();
        st = igemm_conv2d_reference(&d, &e, x, w, NULL, NULL, NULL, y);
        times[i] = timing_now_s() - t0;
        if (st != IGEMM_STATUS_SUCCESS) {
            fprintf(stderr, "igemm: igemm_conv2d_reference: %s: %s\n", igemm_status_string(st), igemm_last_error());
            goto done;
        }
    }
    for (int64_t i = 0; i < ye; i++) sum += data_get(y, i, d.y_dtype);
    med = timing_median(times, 5);
    printf("cpu_reference  n=1 14x14x16 -> 16, 3x3, pad 1 (bf16): %.3f ms (median of 5), %.3f GFLOP/s, "
           "checksum %.6f\n",
           med * 1e3, cli_conv_flops(&d) / med * 1e-9, sum);
    rc = CLI_EXIT_OK;
done:
    free(x);
    free(w);
    free(y);
    return rc;
}

#ifdef IGEMM_HAVE_CUDA
/* Writes "n=.. HxWxC -> k=.., RxS filter, stride, pad, dil, groups -> PxQ output" into buf. */
static void describe_shape(const cli_shape_t *s, char *buf, size_t len)
{
    const igemm_conv2d_desc_t *d = &s->desc;
    int64_t p = 0, q = 0;
    cli_conv_out_dims(d, &p, &q);
    snprintf(buf, len,
             "n=%lld %lldx%lldx%lld -> k=%lld, %lldx%lld filter, stride %lldx%lld, pad %lldx%lld, "
             "dil %lldx%lld, groups %lld -> %lldx%lld output",
             (long long)d->n, (long long)d->h, (long long)d->w, (long long)d->c, (long long)d->k, (long long)d->r,
             (long long)d->s, (long long)d->stride_h, (long long)d->stride_w, (long long)d->pad_top,
             (long long)d->pad_left, (long long)d->dil_h, (long long)d->dil_w, (long long)d->groups, (long long)p,
             (long long)q);
}

/* Plans, times and reports one shape. Returns 0, or -1 with a message in err. */
static int run_one_gpu(const cli_shape_t *sh, const cli_opts_t *o, char *err, size_t errlen)
{
    const igemm_conv2d_desc_t *d = &sh->desc;
    igemm_plan_options_t opts = igemm_plan_options_default();
    igemm_plan_t *plan = NULL;
    timing_sets_t sets;
    void *hx = NULL, *hw = NULL;
    cudaStream_t stream = NULL;
    timing_result_t r;
    timing_igemm_t ctx;
    int64_t xe, we, ye;
    int nsets, rc = -1;
    char desc[512];
    const timing_cfg_t cfg = {o->warmup, o->iters, o->back_to_back};
    const uint64_t seed = data_hash_str(sh->name);
    data_rng_t gx = {seed ^ 1}, gw = {seed ^ 2};
    memset(&sets, 0, sizeof sets);

    describe_shape(sh, desc, sizeof desc);
    printf("%s: %s, %s -> %s\n", sh->name, desc, cli_dtype_name(d->x_dtype), cli_dtype_name(d->y_dtype));
    opts.path = o->path;
    opts.hints = cli_opts_hints(o);
    CLI_IG(igemm_plan_create(&plan, d, NULL, &opts));
    printf("  plan: %s\n", igemm_plan_describe(plan));
    CLI_IG(igemm_conv2d_sizes(d, &xe, &we, &ye));
    hx = malloc((size_t)xe * data_dtype_bytes(d->x_dtype));
    hw = malloc((size_t)we * data_dtype_bytes(d->w_dtype));
    if (!hx || !hw) {
        snprintf(err, errlen, "out of host memory");
        goto fail;
    }
    data_fill(hx, xe, d->x_dtype, -1.0, 1.0, &gx);
    data_fill(hw, we, d->w_dtype, -1.0, 1.0, &gw);
    nsets = timing_sets_count((size_t)xe * data_dtype_bytes(d->x_dtype) + (size_t)we * data_dtype_bytes(d->w_dtype) +
                                  (size_t)ye * data_dtype_bytes(d->y_dtype),
                              igemm_plan_workspace_bytes(plan), o->sets);
    if (timing_sets_alloc(&sets, d, nsets, 0, hx, hw, NULL, NULL, err, errlen) != 0) goto fail;
    CLI_CU(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    ctx.plan = plan;
    ctx.s = &sets;
    ctx.use_bias = ctx.use_res = 0;
    if (timing_run(timing_igemm_fn, &ctx, &cfg, sets.n, stream, &r, err, errlen) != 0) goto fail;
    printf("  time: %.2f us median (min %.2f, mean %.2f; %d runs%s, %d buffer sets), %.1f TFLOP/s\n", r.median_us,
           r.min_us, r.mean_us, r.iters, o->back_to_back ? " back to back" : "", sets.n,
           cli_conv_flops(d) / (r.median_us * 1e-6) * 1e-12);
    rc = 0;
fail:
    if (stream) (void)cudaStreamDestroy(stream); /* cleanup: the first error is the one reported */
    timing_sets_free(&sets);
    igemm_plan_destroy(plan);
    free(hx);
    free(hw);
    return rc;
}
#endif

int cmd_run(const cli_opts_t *o)
{
    char reason[256];
    if (!gpu_usable(reason, sizeof reason)) return run_cpu_fallback(reason);
#ifdef IGEMM_HAVE_CUDA
    char dev[256], err[1024];
    int failed = 0;
    gpu_device_line(dev, sizeof dev);
    printf("igemm %s on %s%s%s\n", igemm_version_string(), dev, o->has_hints ? "; hints " : "",
           o->has_hints ? o->hints_text : "");
    for (int i = 0; i < o->shapes.n; i++) {
        if (run_one_gpu(&o->shapes.v[i], o, err, sizeof err) != 0) {
            fprintf(stderr, "igemm: %s: %s\n", o->shapes.v[i].name, err);
            failed++;
        }
        fflush(stdout);
    }
    return failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
#else
    return CLI_EXIT_NO_GPU; /* not reached: without CUDA no GPU is usable */
#endif
}
