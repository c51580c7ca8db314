/* gpu_problem.c — see gpu_problem.h. */
#include "gpu_problem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tolerance.h"

#ifdef IGEMM_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

igemm_conv2d_desc_t conv_shape(int64_t n, int64_t h, int64_t w, int64_t c, int64_t k, int64_t r, int64_t s,
                               int64_t stride, int64_t pad, int64_t dil, int64_t groups, igemm_dtype_t in,
                               igemm_dtype_t out)
{
    igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
    d.n = n; d.h = h; d.w = w; d.c = c; d.k = k; d.r = r; d.s = s;
    d.stride_h = d.stride_w = stride;
    d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = pad;
    d.dil_h = d.dil_w = dil;
    d.groups = groups;
    d.x_dtype = d.w_dtype = in;
    d.y_dtype = out;
    return d;
}

void conv_pad_random(igemm_conv2d_desc_t *d, int same, int asym)
{
    if (same) {
        d->pad_top = d->pad_bottom = d->dil_h * (d->r - 1) / 2;
        d->pad_left = d->pad_right = d->dil_w * (d->s - 1) / 2;
    }
    if (asym) d->pad_bottom += 1, d->pad_left += 1;
    /* the filter must fit the padded input */
    while (d->h + d->pad_top + d->pad_bottom < d->dil_h * (d->r - 1) + 1) d->h += 1;
    while (d->w + d->pad_left + d->pad_right < d->dil_w * (d->s - 1) + 1) d->w += 1;
}

igemm_epilogue_t epilogue_kind(int ek)
{
    igemm_epilogue_t e = igemm_epilogue_default();
    if (ek >= 1) {
        e.has_bias = 1;
        e.activation = IGEMM_ACT_RELU;
    }
    if (ek == 2) {
        e.has_scale = e.has_residual = 1;
        e.beta = 0.75f;
        e.activation = IGEMM_ACT_GELU_TANH;
    }
    return e;
}

void gen_epilogue(data_rng_t *g, igemm_epilogue_t *e)
{
    *e = igemm_epilogue_default();
    e->activation = (igemm_activation_t)data_rng_int(g, 0, 10);
    e->act_param = (float)data_rng_uniform(g, 0.0, 0.5);
    e->has_scale = (int)(data_rng_next(g) & 1);
    e->has_bias = (int)(data_rng_next(g) & 1);
    e->has_residual = (int)(data_rng_next(g) & 1);
    if (data_rng_int(g, 0, 3) != 0) {
        e->alpha = (float)(data_rng_uniform(g, 0.25, 2.0) * (data_rng_next(g) & 1 ? -1 : 1));
        e->beta = (float)(data_rng_uniform(g, 0.25, 2.0) * (data_rng_next(g) & 1 ? -1 : 1));
    }
}

const char *path_str(igemm_path_t p)
{
    switch (p) {
    case IGEMM_PATH_AUTO: return "auto";
    case IGEMM_PATH_GENERAL: return "general";
    case IGEMM_PATH_SM90: return "sm90";
    case IGEMM_PATH_DIRECT: return "direct";
    case IGEMM_PATH_MEMORY: return "memory";
    case IGEMM_PATH_SM100: return "sm100";
    }
    return "?";
}

double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

const char *kernel_says(int kernel)
{
    switch (kernel) {
    case IGEMM_KERNEL_COOPERATIVE: return "rows each)";
    case IGEMM_KERNEL_PINGPONG: return "rows each, ping-pong)";
    case IGEMM_KERNEL_PIXELS_N: return "pixels as wgmma N each)";
    case IGEMM_KERNEL_PIXELS_N_PINGPONG: return "pixels as wgmma N each, ping-pong)";
    case IGEMM_KERNEL_HALO_ROWS: return "halo rows";
    case IGEMM_KERNEL_SPLIT_CLUSTER: return "split-K 2 over a 2-CTA cluster";
    case IGEMM_KERNEL_STEM_ROWS: return "stem rows:";
    case IGEMM_KERNEL_FOLD: return "fold ";
    case IGEMM_KERNEL_DEPTHWISE_TILED: return "tiled; persistent";
    case IGEMM_KERNEL_DEPTHWISE_MMA: return "mma.sync";
    case IGEMM_KERNEL_DEPTHWISE_TMA: return "tma; persistent";
    }
    return "";
}

#ifdef IGEMM_HAVE_CUDA

void problem_free(problem_t *pb)
{
    free(pb->hx); free(pb->hw); free(pb->hres); free(pb->href); free(pb->hout);
    free(pb->hscale); free(pb->hbias);
    dbuf_free(&pb->x); dbuf_free(&pb->w); dbuf_free(&pb->y); dbuf_free(&pb->res);
    dbuf_free(&pb->scale); dbuf_free(&pb->bias);
    memset(pb, 0, sizeof *pb);
}

int problem_init(problem_t *pb, const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, data_rng_t *g,
                 int with_ref)
{
    memset(pb, 0, sizeof *pb);
    pb->d = *d;
    pb->e = e ? *e : igemm_epilogue_default();
    conv_desc_str(&pb->d, &pb->e, pb->str, sizeof pb->str);
    if (igemm_conv2d_output_dims(d, &pb->p, &pb->q) != IGEMM_STATUS_SUCCESS ||
        igemm_conv2d_sizes(d, &pb->xe, &pb->we, &pb->ye) != IGEMM_STATUS_SUCCESS) {
        test_fail(__FILE__, __LINE__, "%s: invalid desc: %s", pb->str, igemm_last_error());
        return -1;
    }
    pb->ysz = data_dtype_bytes(d->y_dtype);
    const int64_t K = d->k;
    pb->hx = malloc((size_t)pb->xe * 2);
    pb->hw = malloc((size_t)pb->we * 2);
    pb->href = malloc((size_t)pb->ye * pb->ysz);
    pb->hout = malloc((size_t)pb->ye * pb->ysz);
    if (pb->e.has_residual) pb->hres = malloc((size_t)pb->ye * pb->ysz);
    if (pb->e.has_scale) pb->hscale = (float *)malloc((size_t)K * sizeof(float));
    if (pb->e.has_bias) pb->hbias = (float *)malloc((size_t)K * sizeof(float));
    if (!pb->hx || !pb->hw || !pb->href || !pb->hout || (pb->e.has_residual && !pb->hres) ||
        (pb->e.has_scale && !pb->hscale) || (pb->e.has_bias && !pb->hbias)) {
        test_fail(__FILE__, __LINE__, "%s: host allocation failed", pb->str);
        return -1;
    }
    data_fill(pb->hx, pb->xe, d->x_dtype, -1, 1, g);
    data_fill(pb->hw, pb->we, d->w_dtype, -1, 1, g);
    if (pb->hres) data_fill(pb->hres, pb->ye, d->y_dtype, -1, 1, g);
    for (int64_t k = 0; pb->hscale && k < K; k++)
        pb->hscale[k] = (float)(data_rng_uniform(g, 0.5, 1.5) * (data_rng_next(g) & 1 ? -1 : 1));
    for (int64_t k = 0; pb->hbias && k < K; k++) pb->hbias[k] = (float)data_rng_uniform(g, -1, 1);

    if (dbuf_alloc(&pb->x, (size_t)pb->xe * 2, GUARD, IN_GUARD_BYTE) ||
        dbuf_alloc(&pb->w, (size_t)pb->we * 2, GUARD, IN_GUARD_BYTE) ||
        dbuf_alloc(&pb->y, (size_t)pb->ye * pb->ysz, GUARD, OUT_GUARD_BYTE) ||
        (pb->hres && dbuf_alloc(&pb->res, (size_t)pb->ye * pb->ysz, GUARD, IN_GUARD_BYTE)) ||
        (pb->hscale && dbuf_alloc(&pb->scale, (size_t)K * 4, GUARD, IN_GUARD_BYTE)) ||
        (pb->hbias && dbuf_alloc(&pb->bias, (size_t)K * 4, GUARD, IN_GUARD_BYTE)) ||
        dbuf_upload(&pb->x, pb->hx, (size_t)pb->xe * 2) || dbuf_upload(&pb->w, pb->hw, (size_t)pb->we * 2) ||
        (pb->hres && dbuf_upload(&pb->res, pb->hres, (size_t)pb->ye * pb->ysz)) ||
        (pb->hscale && dbuf_upload(&pb->scale, pb->hscale, (size_t)K * 4)) ||
        (pb->hbias && dbuf_upload(&pb->bias, pb->hbias, (size_t)K * 4))) {
        test_fail(__FILE__, __LINE__, "%s: device allocation/upload failed", pb->str);
        return -1;
    }
    if (with_ref) {
        const igemm_status_t st = igemm_conv2d_reference(d, &pb->e, pb->hx, pb->hw, pb->hscale, pb->hbias,
                                                         pb->hres, pb->href);
        if (st != IGEMM_STATUS_SUCCESS) {
            test_fail(__FILE__, __LINE__, "%s: reference failed: %s", pb->str, igemm_last_error());
            return -1;
        }
    }
    return 0;
}

igemm_status_t problem_run_ptrs(problem_t *pb, igemm_plan_t *plan, void *stream, const void *x, const void *w,
                                void *y, const void *res)
{
    if (dbuf_poison(&pb->y, POISON_BYTE)) return IGEMM_STATUS_CUDA_ERROR;
    if (cudaDeviceSynchronize() != cudaSuccess) return IGEMM_STATUS_CUDA_ERROR;
    const igemm_status_t st =
        igemm_plan_run(plan, x, w, pb->hscale ? (const float *)pb->scale.ptr : NULL,
                       pb->hbias ? (const float *)pb->bias.ptr : NULL, res, y, stream);
    if (st != IGEMM_STATUS_SUCCESS) return st;
    cudaError_t ce = cudaStreamSynchronize((cudaStream_t)stream);
    if (ce == cudaSuccess) ce = cudaGetLastError();
    if (ce != cudaSuccess) {
        test_fail(__FILE__, __LINE__, "%s: CUDA error after run (%s): %s", pb->str,
                  path_str(igemm_plan_path(plan)), cudaGetErrorString(ce));
        return IGEMM_STATUS_CUDA_ERROR;
    }
    if (dbuf_download(&pb->y, pb->hout, (size_t)pb->ye * pb->ysz)) return IGEMM_STATUS_CUDA_ERROR;
    return IGEMM_STATUS_SUCCESS;
}

igemm_status_t problem_run(problem_t *pb, igemm_plan_t *plan, void *stream)
{
    return problem_run_ptrs(pb, plan, stream, pb->x.ptr, pb->w.ptr, pb->y.ptr, pb->hres ? pb->res.ptr : NULL);
}

int64_t problem_check(problem_t *pb, const char *tag, double *worst)
{
    const igemm_conv2d_desc_t *d = &pb->d;
    int64_t bad = 0;
    const int64_t K = d->k;
    int reported = 0;
    for (int64_t i = 0; i < pb->ye; i++) {
        const int64_t kk = i % K;
        const double ref = data_get(pb->href, i, d->y_dtype);
        const double out = data_get(pb->hout, i, d->y_dtype);
        const double tol = tol_conv(d, &pb->e, pb->hscale, pb->hbias, kk, ref);
        const double err = fabs(out - ref);
        int ok;
        if (isinf(ref)) ok = out == ref;
        else ok = !isnan(out) && err <= tol;
        if (ok && worst && tol > 0 && err / tol > *worst) *worst = err / tol;
        if (!ok) {
            bad++;
            if (reported < 3) {
                const int64_t pix = i / K, q = pix % pb->q, p = (pix / pb->q) % pb->p, n = pix / (pb->q * pb->p);
                test_fail(__FILE__, __LINE__, "[%s] %s: y[n=%lld p=%lld q=%lld k=%lld] = %.8g, ref %.8g, "
                          "|err| %.3g > tol %.3g", tag, pb->str, (long long)n, (long long)p, (long long)q,
                          (long long)kk, out, ref, err, tol);
                reported++;
            }
        }
    }
    if (bad > 3)
        test_fail(__FILE__, __LINE__, "[%s] %s: %lld of %lld elements wrong", tag, pb->str, (long long)bad,
                  (long long)pb->ye);
    /* the inputs are read-only */
    const dbuf_t *ins[3] = {&pb->x, &pb->w, &pb->res};
    const void *hins[3] = {pb->hx, pb->hw, pb->hres};
    for (int b = 0; b < 3; b++) {
        if (!hins[b]) continue;
        void *tmp = malloc(ins[b]->bytes);
        if (tmp && dbuf_download(ins[b], tmp, ins[b]->bytes) == 0 && memcmp(tmp, hins[b], ins[b]->bytes) != 0) {
            test_fail(__FILE__, __LINE__, "[%s] %s: input %s was modified", tag, pb->str,
                      b == 0 ? "x" : b == 1 ? "w" : "residual");
            bad++;
        }
        free(tmp);
    }
    const dbuf_t *bufs[6] = {&pb->y, &pb->x, &pb->w, &pb->res, &pb->scale, &pb->bias};
    const char *names[6] = {"y", "x", "w", "residual", "scale", "bias"};
    for (int b = 0; b < 6; b++) {
        if (!bufs[b]->base) continue;
        const int64_t dmg = dbuf_guard_damage(bufs[b]);
        if (dmg != 0) {
            test_fail(__FILE__, __LINE__, "[%s] %s: %lld bytes of the guard around %s changed", tag, pb->str,
                      (long long)dmg, names[b]);
            bad += dmg > 0 ? dmg : 1;
        }
    }
    return bad;
}

int run_one(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, igemm_path_t path,
            const igemm_plan_hints_t *hints, const char *want_desc, data_rng_t *g, run_stats_t *st, int refuse_ok)
{
    problem_t pb;
    igemm_plan_options_t o = igemm_plan_options_default();
    o.path = path;
    o.hints = hints;
    igemm_plan_t *plan = NULL;
    char tmp[512];
    conv_desc_str(d, e, tmp, sizeof tmp);
    igemm_status_t s = igemm_plan_create(&plan, d, e, &o);
    if (s == IGEMM_STATUS_NOT_SUPPORTED && refuse_ok) return 1;
    if (s != IGEMM_STATUS_SUCCESS) {
        test_fail(__FILE__, __LINE__, "%s: plan_create(path %s) = %s: %s", tmp, path_str(path),
                  igemm_status_string(s), igemm_last_error());
        st->failed++;
        return 0;
    }
    if (path != IGEMM_PATH_AUTO && igemm_plan_path(plan) != path) {
        test_fail(__FILE__, __LINE__, "%s: forced path %s but plan runs %s", tmp, path_str(path),
                  path_str(igemm_plan_path(plan)));
        st->failed++;
    }
    if (want_desc && want_desc[0] && strstr(igemm_plan_describe(plan), want_desc) == NULL) {
        test_fail(__FILE__, __LINE__, "%s: the plan should say \"%s\": %s", tmp, want_desc, igemm_plan_describe(plan));
        st->failed++;
    }
    if (problem_init(&pb, d, e, g, 1)) {
        st->failed++;
        problem_free(&pb);
        igemm_plan_destroy(plan);
        return cudaGetLastError() == cudaSuccess ? 0 : -1;
    }
    s = problem_run(&pb, plan, NULL);
    int rc = 0;
    const char *tag = path_str(igemm_plan_path(plan));
    if (s != IGEMM_STATUS_SUCCESS) {
        test_fail(__FILE__, __LINE__, "%s: run(%s) = %s: %s", pb.str, tag, igemm_status_string(s),
                  igemm_last_error());
        st->failed++;
        rc = s == IGEMM_STATUS_CUDA_ERROR ? -1 : 0;
    } else {
        double w = 0;
        if (problem_check(&pb, tag, &w)) st->failed++;
        if (w > st->worst) st->worst = w;
        if (d->y_dtype == IGEMM_DTYPE_F32 && w > st->worst_f32) st->worst_f32 = w;
        st->elems += pb.ye;
        const int pi = (int)igemm_plan_path(plan);
        if (pi >= 0 && pi < 6) st->ran[pi]++;
    }
    problem_free(&pb);
    igemm_plan_destroy(plan);
    return rc;
}

int device_is_sm90(void)
{
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    return major == 9 && minor == 0;
}

int require_sm90(void)
{
    if (!device_is_sm90()) {
        test_skip("needs an sm_90 device (the sm90 path)");
        return 0;
    }
    return 1;
}

int device_sm_count(void)
{
    int dev = 0, sms = 0;
    cudaGetDevice(&dev);
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) sms = 0;
    return sms;
}

int sm90_run_hinted(problem_t *pb, const char *hints, const char *const *want, const char *tag)
{
    igemm_plan_hints_t h;
    if (igemm_plan_hints_parse(hints, &h) != IGEMM_STATUS_SUCCESS) {
        test_fail(__FILE__, __LINE__, "[%s] hints \"%s\": %s", tag, hints, igemm_last_error());
        return 0;
    }
    igemm_plan_options_t o = igemm_plan_options_default();
    o.path = IGEMM_PATH_SM90;
    o.hints = &h;
    igemm_plan_t *plan = NULL;
    const igemm_status_t s = igemm_plan_create(&plan, &pb->d, &pb->e, &o);
    if (s != IGEMM_STATUS_SUCCESS) {
        test_fail(__FILE__, __LINE__, "[%s] %s: plan_create(sm90, hints \"%s\") = %s: %s", tag, pb->str,
                  hints ? hints : "", igemm_status_string(s), igemm_last_error());
        return 0;
    }
    const char *desc = igemm_plan_describe(plan);
    int ok = 1;
    for (int i = 0; want && want[i]; i++) {
        if (!want[i][0]) continue;
        const int absent = want[i][0] == '!';
        if ((strstr(desc, want[i] + absent) != NULL) == absent) {
            test_fail(__FILE__, __LINE__, "[%s] %s: the plan (hints \"%s\") should %s \"%s\": %s", tag, pb->str,
                      hints ? hints : "", absent ? "not say" : "say", want[i] + absent, desc);
            ok = 0;
        }
    }
    if (hints && hints[0] && strstr(desc, "Hints (experimental): ") == NULL) {
        test_fail(__FILE__, __LINE__, "[%s] the description does not list the hints \"%s\": %s", tag, hints, desc);
        ok = 0;
    }
    const igemm_status_t rs = problem_run(pb, plan, NULL);
    if (rs != IGEMM_STATUS_SUCCESS) {
        test_fail(__FILE__, __LINE__, "[%s] %s: run (hints \"%s\") = %s: %s", tag, pb->str, hints ? hints : "",
                  igemm_status_string(rs), igemm_last_error());
        ok = 0;
    } else if (problem_check(pb, tag, NULL) != 0) {
        ok = 0;
    }
    igemm_plan_destroy(plan);
    return ok;
}

igemm_status_t plan_text(const igemm_conv2d_desc_t *d, igemm_path_t path, const char *hints, char *out, size_t len)
{
    igemm_plan_options_t o = igemm_plan_options_default();
    igemm_plan_hints_t h = igemm_plan_hints_default();
    o.path = path;
    if (hints) {
        if (igemm_plan_hints_parse(hints, &h) != IGEMM_STATUS_SUCCESS) return IGEMM_STATUS_INVALID_VALUE;
        o.hints = &h;
    }
    igemm_plan_t *plan = NULL;
    const igemm_status_t st = igemm_plan_create(&plan, d, NULL, &o);
    snprintf(out, len, "%s", st == IGEMM_STATUS_SUCCESS ? igemm_plan_describe(plan) : igemm_last_error());
    igemm_plan_destroy(plan);
    return st;
}

void check_plan_repeatable(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, data_rng_t *g, const char *want,
                           const char *tag)
{
    problem_t pb;
    if (problem_init(&pb, d, e, g, 1) == 0) {
        igemm_plan_t *plan = NULL;
        REQUIRE(igemm_plan_create(&plan, d, e, NULL) == IGEMM_STATUS_SUCCESS);
        CHECK_MSG(strstr(igemm_plan_describe(plan), want) != NULL, "%s", igemm_plan_describe(plan));
        char run1[96];
        snprintf(run1, sizeof run1, "%s run 1", tag);
        CHECK_EQ_INT(problem_run(&pb, plan, NULL), IGEMM_STATUS_SUCCESS);
        CHECK_EQ_INT(problem_check(&pb, run1, NULL), 0);
        const size_t bytes = (size_t)pb.ye * pb.ysz;
        void *first = malloc(bytes);
        REQUIRE(first != NULL);
        memcpy(first, pb.hout, bytes);
        CHECK_EQ_INT(problem_run(&pb, plan, NULL), IGEMM_STATUS_SUCCESS);
        CHECK_MSG(memcmp(first, pb.hout, bytes) == 0, "two runs of one %s plan differ", tag);
        free(first);
        igemm_plan_destroy(plan);
    }
    problem_free(&pb);
}

void run_memory_random_hinted(igemm_conv2d_desc_t (*gen)(data_rng_t *g, int it), int (*skip)(int it),
                              void (*hint)(data_rng_t *g, int it, const igemm_conv2d_desc_t *d, igemm_plan_hints_t *h),
                              int n, uint64_t seed, const char *want, const char *label)
{
    data_rng_t g = {test_seed(seed)};
    run_stats_t st;
    memset(&st, 0, sizeof st);
    int runs = 0;
    for (int it = 0; it < n && st.failed < 5; it++) {
        if (skip && skip(it)) continue;
        const igemm_conv2d_desc_t d = gen(&g, it);
        igemm_epilogue_t e;
        gen_epilogue(&g, &e);
        igemm_plan_hints_t h = igemm_plan_hints_default();
        if (hint) hint(&g, it, &d, &h);
        const int rc = run_one(&d, &e, IGEMM_PATH_MEMORY, hint ? &h : NULL, want, &g, &st, 0);
        REQUIRE(rc >= 0);
        runs++;
    }
    fprintf(stdout, "  %s: %d configs ran, %d failed, worst err/tol %.3f (f32 out %.3f)\n", label,
            st.ran[IGEMM_PATH_MEMORY], st.failed, st.worst, st.worst_f32);
    CHECK_EQ_INT(st.ran[IGEMM_PATH_MEMORY], runs);
    CHECK_EQ_INT(st.failed, 0);
    CHECK_EQ_INT(st.refused, 0);
}

void run_memory_random(igemm_conv2d_desc_t (*gen)(data_rng_t *g, int it), int n, uint64_t seed, const char *want,
                       const char *label)
{
    run_memory_random_hinted(gen, NULL, NULL, n, seed, want, label);
}

int sm90_run_two(problem_t *pb, const char *base, const char *const var[2], const char *const *const want[2],
                 const char *tag, const char *what)
{
    const size_t bytes = (size_t)pb->ye * pb->ysz;
    void *first = malloc(bytes);
    if (first == NULL) {
        test_fail(__FILE__, __LINE__, "[%s] out of host memory", tag);
        return 0;
    }
    int ok = 1;
    for (int v = 0; v < 2 && ok; v++) {
        char hints[512], vtag[160];
        snprintf(hints, sizeof hints, "%s%s%s", base ? base : "", base && base[0] && var[v][0] ? "," : "", var[v]);
        snprintf(vtag, sizeof vtag, "%s [%s]", tag, hints);
        ok = sm90_run_hinted(pb, hints, want[v], vtag);
        if (ok && v == 0) memcpy(first, pb->hout, bytes);
        if (ok && v == 1) CHECK_MSG(memcmp(first, pb->hout, bytes) == 0, "[%s] %s: %s", tag, pb->str, what);
    }
    free(first);
    return ok;
}

int sm90_each_case(const igemm_conv2d_desc_t *descs, size_t stride, int ncases, uint64_t seed,
                   int (*fn)(problem_t *pb, int ci, int ek, const void *ctx), const void *ctx)
{
    data_rng_t g = {test_seed(seed)};
    int ran = 0;
    for (int ci = 0; ci < ncases; ci++) {
        const igemm_conv2d_desc_t *d = (const igemm_conv2d_desc_t *)((const char *)descs + (size_t)ci * stride);
        for (int ek = 0; ek < 3; ek++) {
            const igemm_epilogue_t e = epilogue_kind(ek);
            problem_t pb;
            if (problem_init(&pb, d, &e, &g, 1)) {
                problem_free(&pb);
                return -1;
            }
            ran += fn(&pb, ci, ek, ctx);
            problem_free(&pb);
        }
    }
    return ran;
}

#endif /* IGEMM_HAVE_CUDA */
