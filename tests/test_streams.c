/*
 * test_streams.c — plans on streams: a run on a non-blocking stream and the same captured into a
 * CUDA graph and replayed (every path; on sm_90 also split-K, split in cluster and ping-pong with
 * programmatic dependent launch); two live plans of one kernel instance with different shared
 * memory; chains of sm90 layers with programmatic dependent launch (back to back and as a graph,
 * against the synchronised chain bit for bit and each layer against sampled reference values),
 * including split-in-cluster layers and PDL forced on small grids. gpu_problem.h says what every
 * check against the reference checks.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_problem.h"
#include "igemm.h"
#include "test.h"
#include "tolerance.h"

#ifndef IGEMM_HAVE_CUDA

GPU_SKIP_TEST(gpu_stream_and_graph)
GPU_SKIP_TEST(gpu_plans_share_kernel)
GPU_SKIP_TEST(gpu_sm90_pdl_chain)
GPU_SKIP_TEST(gpu_sm90_pdl_chain_split_cluster)
GPU_SKIP_TEST(gpu_sm90_pdl_chain_pixn_cluster)
GPU_SKIP_TEST(gpu_sm90_pdl_chain_small_grids)

#else /* IGEMM_HAVE_CUDA */

#include <cuda_runtime_api.h>

/* ------------------------------------------------------------------ stream + CUDA graph */

TEST(gpu_stream_and_graph)
{
    SKIP_WITHOUT_GPU();
    data_rng_t g = {test_seed(0x7007)};
    igemm_conv2d_desc_t d = conv_shape(2, 10, 10, 64, 128, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    igemm_epilogue_t e = igemm_epilogue_default();
    e.has_bias = e.has_residual = 1;
    e.activation = IGEMM_ACT_RELU;
    e.beta = 0.5f;
    problem_t pb;
    if (problem_init(&pb, &d, &e, &g, 1)) {
        problem_free(&pb);
        return;
    }
    size_t bytes = (size_t)pb.ye * pb.ysz;
    void *direct_out = malloc(bytes);
    cudaStream_t stream = NULL;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    /* each path; on an sm_90 device also split-K (a reduce kernel after the conv, a workspace),
     * split in cluster (a cluster launch) and ping-pong with PDL forced on a small grid */
    static const struct {
        igemm_path_t path;
        const char *hints, *says; /* says: what the plan's description must contain */
    } variants[6] = {{IGEMM_PATH_AUTO, "", ""}, {IGEMM_PATH_GENERAL, "", ""}, {IGEMM_PATH_DIRECT, "", ""},
                     {IGEMM_PATH_SM90, "kernel=cooperative,split_k=2", "x 2 split(s)"},
                     {IGEMM_PATH_SM90, "kernel=split_cluster", "split-K 2 over a 2-CTA cluster"},
                     {IGEMM_PATH_SM90, "kernel=pingpong,grid=3,pdl=1", "rows each, ping-pong)"}};
    for (int pi = 0; pi < 6; pi++) {
        if (variants[pi].hints[0] && !device_is_sm90()) continue;
        igemm_plan_options_t o = igemm_plan_options_default();
        igemm_plan_hints_t h;
        REQUIRE(igemm_plan_hints_parse(variants[pi].hints, &h) == IGEMM_STATUS_SUCCESS);
        o.path = variants[pi].path;
        o.hints = &h;
        igemm_plan_t *plan = NULL;
        if (igemm_plan_create(&plan, &d, &e, &o) != IGEMM_STATUS_SUCCESS) {
            test_fail(__FILE__, __LINE__, "plan_create(%s, hints \"%s\"): %s", path_str(variants[pi].path),
                      variants[pi].hints, igemm_last_error());
            continue;
        }
        CHECK_MSG(strstr(igemm_plan_describe(plan), variants[pi].says) != NULL, "hints \"%s\": the plan should say "
                  "\"%s\": %s", variants[pi].hints, variants[pi].says, igemm_plan_describe(plan));
        char tag[96];
        snprintf(tag, sizeof tag, "stream %s %s", path_str(igemm_plan_path(plan)), variants[pi].hints);
        /* plain run on the non-default stream */
        CHECK_EQ_INT(problem_run(&pb, plan, stream), IGEMM_STATUS_SUCCESS);
        problem_check(&pb, tag, NULL);
        memcpy(direct_out, pb.hout, bytes);

        /* capture into a graph */
        cudaGraph_t graph = NULL;
        cudaGraphExec_t exec = NULL;
        REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
        igemm_status_t s = igemm_plan_run(plan, pb.x.ptr, pb.w.ptr, NULL, (const float *)pb.bias.ptr,
                                          pb.res.ptr, pb.y.ptr, stream);
        cudaError_t ce = cudaStreamEndCapture(stream, &graph);
        CHECK_MSG(s == IGEMM_STATUS_SUCCESS, "run under capture: %s", igemm_last_error());
        CHECK_MSG(ce == cudaSuccess, "cudaStreamEndCapture: %s", cudaGetErrorString(ce));
        if (s != IGEMM_STATUS_SUCCESS || ce != cudaSuccess) {
            (void)cudaGetLastError();
            if (graph) cudaGraphDestroy(graph);
            igemm_plan_destroy(plan);
            continue;
        }
        size_t nnodes = 0;
        CHECK(cudaGraphGetNodes(graph, NULL, &nnodes) == cudaSuccess && nnodes >= 1);
        REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
        snprintf(tag, sizeof tag, "graph %s %s", path_str(igemm_plan_path(plan)), variants[pi].hints);
        for (int rep = 0; rep < 2; rep++) {
            REQUIRE(dbuf_poison(&pb.y, POISON_BYTE) == 0);
            REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
            CHECK(cudaGraphLaunch(exec, stream) == cudaSuccess);
            ce = cudaStreamSynchronize(stream);
            CHECK_MSG(ce == cudaSuccess, "graph replay: %s", cudaGetErrorString(ce));
            REQUIRE(dbuf_download(&pb.y, pb.hout, bytes) == 0);
            problem_check(&pb, tag, NULL);
            CHECK_MSG(memcmp(direct_out, pb.hout, bytes) == 0, "[%s] replay %d differs from the stream run", tag, rep);
        }
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        igemm_plan_destroy(plan);
    }
    cudaStreamDestroy(stream);
    free(direct_out);
    problem_free(&pb);
}


/* ------------------------------------------------------------------ plans sharing a kernel */

/* Two live plans that run the same sm90 kernel instance (cooperative 128 x 64, bf16, the bias +
 * ReLU epilogue instance; the second also takes a residual) with different shared-memory needs
 * (the planner's ring and a 2-stage ring: stages=2): each must still launch after the other ran.
 * The kernel's dynamic-smem limit is process-wide; a plan lowering it to its own need broke the
 * other plan's next launch (found by the torch.compile test). */
TEST(gpu_plans_share_kernel)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    data_rng_t g = {test_seed(0x6106)};
    const igemm_conv2d_desc_t d = conv_shape(2, 28, 28, 64, 64, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    igemm_epilogue_t e1 = igemm_epilogue_default(), e2;
    e1.has_bias = 1;
    e1.activation = IGEMM_ACT_RELU;
    e2 = e1;
    e2.has_residual = 1;
    e2.beta = 0.5f;
    problem_t p1, p2;
    if (problem_init(&p1, &d, &e1, &g, 1)) {
        problem_free(&p1);
        return;
    }
    if (problem_init(&p2, &d, &e2, &g, 1)) {
        problem_free(&p1);
        problem_free(&p2);
        return;
    }
    igemm_plan_hints_t ha, hb;
    REQUIRE(igemm_plan_hints_parse("kernel=cooperative,tile=128x64", &ha) == IGEMM_STATUS_SUCCESS);
    REQUIRE(igemm_plan_hints_parse("kernel=cooperative,tile=128x64,stages=2", &hb) == IGEMM_STATUS_SUCCESS);
    igemm_plan_options_t oa = igemm_plan_options_default(), ob = igemm_plan_options_default();
    oa.hints = &ha;
    ob.hints = &hb;
    igemm_plan_t *a = NULL, *b = NULL;
    REQUIRE(igemm_plan_create(&a, &p1.d, &p1.e, &oa) == IGEMM_STATUS_SUCCESS);
    REQUIRE(igemm_plan_create(&b, &p2.d, &p2.e, &ob) == IGEMM_STATUS_SUCCESS);
    /* the same kernel (tile, consumers), the second with less shared memory */
    CHECK_MSG(strstr(igemm_plan_describe(a), "tile 128x64x64,") && !strstr(igemm_plan_describe(a), " 2 stages,"),
              "plan A: %s", igemm_plan_describe(a));
    CHECK_MSG(strstr(igemm_plan_describe(b), "tile 128x64x64, 2 stages,") != NULL, "plan B: %s", igemm_plan_describe(b));
    for (int rep = 0; rep < 2; rep++) { /* A (more smem), B (less), A again, B again */
        CHECK_MSG(problem_run(&p1, a, NULL) == IGEMM_STATUS_SUCCESS, "plan A run %d: %s", rep, igemm_last_error());
        problem_check(&p1, "shared kernel A", NULL);
        CHECK_MSG(problem_run(&p2, b, NULL) == IGEMM_STATUS_SUCCESS, "plan B run %d: %s", rep, igemm_last_error());
        problem_check(&p2, "shared kernel B", NULL);
    }
    igemm_plan_destroy(a);
    igemm_plan_destroy(b);
    problem_free(&p1);
    problem_free(&p2);
}

/* ------------------------------------------------------------------ programmatic dependent launch */

/* One layer of a chain. */
typedef struct chain_layer {
    int64_t rs;        /* filter size (square, "same" padding) */
    const char *hints; /* plan hints (text form; "" none) */
    const char *says;  /* what the plan's description must contain ("" nothing) */
} chain_layer_t;

#define PDL_CHAIN_MAX 5
#define PDL_SAMPLES 1024 /* outputs of each layer checked against the reference */

/* Checks PDL_SAMPLES random outputs of one layer of the synchronised chain (its input hin, filter
 * hw, residual hres or NULL, output hout, all host copies) against igemm_conv2d_reference_elems
 * (the values before rounding) within tol_conv. The weights are scaled to keep the activations'
 * magnitude, so tol_conv (made for terms of magnitude <= 1) is generous there, yet a missing
 * tap or channel (sums of ~C terms of |x w| ~ 1/sqrt(taps C)) is far above it. */
static void chain_layer_check(int l, const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e, const uint16_t *hin,
                              const uint16_t *hw, const uint16_t *hres, const uint16_t *hout, int64_t elems,
                              data_rng_t *g)
{
    int64_t idx[PDL_SAMPLES];
    double ref[PDL_SAMPLES];
    for (int i = 0; i < PDL_SAMPLES; i++) idx[i] = i < 2 ? (i ? elems - 1 : 0) : data_rng_int(g, 0, elems - 1);
    const igemm_status_t st = igemm_conv2d_reference_elems(d, e, hin, hw, NULL, NULL, hres, idx, PDL_SAMPLES, ref);
    if (st != IGEMM_STATUS_SUCCESS) {
        test_fail(__FILE__, __LINE__, "layer %d: reference_elems: %s", l, igemm_last_error());
        return;
    }
    int bad = 0;
    for (int i = 0; i < PDL_SAMPLES; i++) {
        const double out = (double)igemm_bf16_to_float(hout[idx[i]]);
        const double tol = tol_conv(d, e, NULL, NULL, idx[i] % d->k, ref[i]);
        if (!(fabs(out - ref[i]) <= tol) && bad++ < 3)
            test_fail(__FILE__, __LINE__, "layer %d: y[%lld] = %.6g, reference %.6g (tol %.3g)", l, (long long)idx[i],
                      out, ref[i], tol);
    }
    CHECK_MSG(bad == 0, "layer %d: %d of %d sampled outputs differ from the reference", l, bad, PDL_SAMPLES);
}

/* A chain of sm90 convs on two ping-pong buffers (layer i reads the buffer layer i-1 wrote and
 * overwrites the one layer i-1 read, with the first input as every odd layer's residual): with
 * programmatic dependent launch each kernel may start before the previous one ends, so a wait
 * placed after any global access would show as a read-after-write or write-after-read race.
 * The chain runs with a stream synchronisation after every layer (each layer's output checked
 * against sampled reference values), then back to back (repeatedly) and as a replayed CUDA graph,
 * which must equal the synchronised chain bit for bit (the kernels are deterministic).
 * L layers of N x H x W x C, C output channels each; each layer's plan must say what its hints
 * force and follow the PDL rule. */
static void pdl_chain(int L, int64_t N, int64_t H, int64_t W, int64_t C, const chain_layer_t *layers, uint64_t seed)
{
    const size_t elems = (size_t)N * H * W * C, bytes = elems * 2;
    data_rng_t g = {test_seed(seed)};
    void *buf[2] = {NULL, NULL}, *res = NULL, *w[PDL_CHAIN_MAX] = {NULL};
    uint16_t *hw[PDL_CHAIN_MAX] = {NULL};
    igemm_plan_t *plan[PDL_CHAIN_MAX] = {NULL};
    igemm_conv2d_desc_t d[PDL_CHAIN_MAX];
    igemm_epilogue_t e[PDL_CHAIN_MAX];
    REQUIRE(L >= 1 && L <= PDL_CHAIN_MAX);
    uint16_t *hx = (uint16_t *)malloc(bytes), *href = (uint16_t *)malloc(bytes), *hout = (uint16_t *)malloc(bytes);
    uint16_t *hin = (uint16_t *)malloc(bytes);
    cudaStream_t stream = NULL;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    int drv = 0, n_pdl = 0;
    REQUIRE(hx && href && hout && hin);
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    data_fill(hx, (int64_t)elems, IGEMM_DTYPE_BF16, -1.0, 1.0, &g);
    REQUIRE(cudaMalloc(&buf[0], bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&buf[1], bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&res, bytes) == cudaSuccess);
    REQUIRE(cudaMemcpy(res, hx, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    (void)cudaDriverGetVersion(&drv);
    for (int l = 0; l < L; l++) {
        const int64_t rs = layers[l].rs;
        const size_t we = (size_t)C * rs * rs * C;
        hw[l] = (uint16_t *)malloc(we * 2);
        REQUIRE(hw[l]);
        /* |w| <= 1/sqrt(taps * C): each layer keeps the activations' scale (no overflow to inf) */
        const double a = 1.0 / sqrt((double)(rs * rs * C));
        data_fill(hw[l], (int64_t)we, IGEMM_DTYPE_BF16, -a, a, &g);
        REQUIRE(cudaMalloc(&w[l], we * 2) == cudaSuccess);
        REQUIRE(cudaMemcpy(w[l], hw[l], we * 2, cudaMemcpyHostToDevice) == cudaSuccess);
        d[l] = conv_shape(N, H, W, C, C, rs, rs, 1, rs / 2, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
        e[l] = igemm_epilogue_default();
        e[l].has_residual = l % 2; /* plain and fused layers */
        e[l].beta = 0.5f;
        igemm_plan_hints_t h;
        REQUIRE(igemm_plan_hints_parse(layers[l].hints, &h) == IGEMM_STATUS_SUCCESS);
        igemm_plan_options_t o = igemm_plan_options_default();
        o.path = IGEMM_PATH_SM90;
        o.hints = &h;
        const igemm_status_t st = igemm_plan_create(&plan[l], &d[l], &e[l], &o);
        CHECK_MSG(st == IGEMM_STATUS_SUCCESS, "layer %d (hints \"%s\"): %s", l, layers[l].hints, igemm_last_error());
        if (st != IGEMM_STATUS_SUCCESS) goto done;
        const char *desc = igemm_plan_describe(plan[l]);
        CHECK_MSG(strstr(desc, layers[l].says) != NULL, "layer %d (hints \"%s\"): the plan should say \"%s\": %s", l,
                  layers[l].hints, layers[l].says, desc);
        /* programmatic dependent launch: with pdl=1, for the cluster plans (split in cluster, split
         * pixels as N: "DSMEM"), on grids of at least 7/8 or at most 5/8 of the SMs; never with
         * pdl=-1 or a driver older than CUDA 12.3 */
        const char *gp = strstr(desc, ", grid ");
        const int grid = gp ? atoi(gp + strlen(", grid ")) : 0, sms = device_sm_count();
        const int want_pdl = drv >= 12030 && (h.pdl == 1 || (h.pdl == 0 && (strstr(desc, "DSMEM") != NULL ||
                                                                             (int64_t)grid * 8 >= (int64_t)sms * 7 ||
                                                                             (int64_t)grid * 8 <= (int64_t)sms * 5)));
        const int has_pdl = strstr(desc, ", programmatic dependent launch") != NULL;
        CHECK_MSG(gp != NULL && grid >= 1, "layer %d: no grid in the description: %s", l, desc);
        CHECK_MSG(has_pdl == want_pdl, "layer %d (hints \"%s\", grid %d of %d SMs, driver %d): the plan should %suse "
                  "programmatic dependent launch: %s", l, layers[l].hints, grid, sms, drv, want_pdl ? "" : "not ", desc);
        if (h.pdl < 0)
            CHECK_MSG(strstr(desc, "no programmatic dependent launch (hints.pdl = -1)") != NULL, "layer %d: %s", l, desc);
        n_pdl += has_pdl;
    }
    /* (a chain without PDL would test nothing of it) */
    if (drv >= 12030) CHECK_MSG(n_pdl >= 2, "only %d of %d layers use programmatic dependent launch", n_pdl, L);
#define CHAIN_RUN()                                                                                        \
    do {                                                                                                   \
        for (int l = 0; l < L; l++) {                                                                      \
            const igemm_status_t st_ = igemm_plan_run(plan[l], buf[l % 2], w[l], NULL, NULL,              \
                                                      l % 2 ? res : NULL, buf[(l + 1) % 2], stream);      \
            CHECK_MSG(st_ == IGEMM_STATUS_SUCCESS, "layer %d: %s", l, igemm_last_error());                 \
        }                                                                                                  \
    } while (0)
    /* the synchronised chain, each layer checked against the reference */
    REQUIRE(cudaMemcpy(buf[0], hx, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemset(buf[1], 0xFF, bytes) == cudaSuccess); /* NaN: an unwritten output shows */
    for (int l = 0; l < L; l++) {
        REQUIRE(cudaMemcpy(hin, buf[l % 2], bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        const igemm_status_t st = igemm_plan_run(plan[l], buf[l % 2], w[l], NULL, NULL, l % 2 ? res : NULL,
                                                 buf[(l + 1) % 2], stream);
        CHECK_MSG(st == IGEMM_STATUS_SUCCESS, "layer %d: %s", l, igemm_last_error());
        REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
        REQUIRE(cudaMemcpy(href, buf[(l + 1) % 2], bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        chain_layer_check(l, &d[l], &e[l], hin, hw[l], l % 2 ? hx : NULL, href, (int64_t)elems, &g);
    }
    {
        size_t bad = 0, nz = 0;
        for (size_t i = 0; i < elems; i++) {
            const float v = igemm_bf16_to_float(href[i]);
            if (!isfinite(v)) bad++;
            else if (v != 0.0f) nz++;
        }
        CHECK_MSG(bad == 0 && nz > elems / 2, "chain output: %zu non-finite, %zu of %zu nonzero", bad, nz, elems);
    }
    /* back to back, several times */
    for (int rep = 0; rep < 4; rep++) {
        REQUIRE(cudaMemcpy(buf[0], hx, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
        REQUIRE(cudaMemset(buf[1], 0xFF, bytes) == cudaSuccess);
        REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
        CHAIN_RUN();
        REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
        REQUIRE(cudaMemcpy(hout, buf[L % 2], bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        CHECK_MSG(memcmp(hout, href, bytes) == 0, "back-to-back chain %d differs from the synchronised chain", rep);
    }
    /* captured into one graph and replayed */
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    CHAIN_RUN();
    {
        const cudaError_t ce = cudaStreamEndCapture(stream, &graph);
        CHECK_MSG(ce == cudaSuccess, "cudaStreamEndCapture: %s", cudaGetErrorString(ce));
    }
#undef CHAIN_RUN
    if (graph && cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess) {
        for (int rep = 0; rep < 3; rep++) {
            REQUIRE(cudaMemcpy(buf[0], hx, bytes, cudaMemcpyHostToDevice) == cudaSuccess);
            REQUIRE(cudaMemset(buf[1], 0xFF, bytes) == cudaSuccess);
            REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
            CHECK(cudaGraphLaunch(exec, stream) == cudaSuccess);
            const cudaError_t ce = cudaStreamSynchronize(stream);
            CHECK_MSG(ce == cudaSuccess, "graph replay: %s", cudaGetErrorString(ce));
            REQUIRE(cudaMemcpy(hout, buf[L % 2], bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
            CHECK_MSG(memcmp(hout, href, bytes) == 0, "graph replay %d differs from the synchronised chain", rep);
        }
    } else {
        test_fail(__FILE__, __LINE__, "the chain's graph did not instantiate");
    }
done:
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    for (int l = 0; l < L; l++) {
        igemm_plan_destroy(plan[l]);
        cudaFree(w[l]);
        free(hw[l]);
    }
    cudaFree(buf[0]);
    cudaFree(buf[1]);
    cudaFree(res);
    cudaStreamDestroy(stream);
    free(hx);
    free(href);
    free(hout);
    free(hin);
}

/* Layer shapes differ in grid and kernel (the planner's cooperative 192 x 128, ping-pong, pixels
 * as N, a one-wave 256 x 128 layer of 98 CTAs; 1x1 and 3x3) so that CTAs of one layer retire
 * while the previous is running. */
TEST(gpu_sm90_pdl_chain)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    const chain_layer_t layers[5] = {{3, "", ""},
                                     {1, "kernel=pingpong", "rows each, ping-pong)"},
                                     {3, "kernel=pixels_n", "pixels as wgmma N each)"},
                                     {1, "kernel=cooperative,tile=256x128", "tile 256x128x64"}, /* 98 CTAs */
                                     {3, "", ""}};
    pdl_chain(5, 8, 56, 56, 128, layers, 0x9d1);
}

/* The same with split-in-cluster plans (2-CTA clusters, partial tiles by st.async; r50_l4's
 * shape, 104 CTAs): programmatic dependent launch is on for them, so a layer's set-up runs
 * while the one before it finishes. */
TEST(gpu_sm90_pdl_chain_split_cluster)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    const char *const skc = "split-K 2 over a 2-CTA cluster";
    const chain_layer_t layers[4] = {{3, "kernel=split_cluster", skc}, {1, "kernel=split_cluster", skc},
                                     {3, "kernel=split_cluster", skc}, {3, "kernel=split_cluster", skc}};
    pdl_chain(4, 32, 7, 7, 512, layers, 0x9d2);
}

/* The same with pixels-as-N split-K plans (a cluster of split_k CTAs per tile, partial tiles summed
 * through DSMEM, the epilogue in the kernel): the planner's own pick on a batch-1 7 x 7 x 512 3x3
 * layer (8 splits) and forced ones of 2, 3 and 8 splits, TP 32 and 64, plain and fused layers. */
TEST(gpu_sm90_pdl_chain_pixn_cluster)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    const char *const pxc = "split-K over a cluster of split_k CTAs";
    const chain_layer_t layers[4] = {{3, "", pxc},
                                     {1, "kernel=pixels_n,tile_m=32,split_k=3", pxc},
                                     {3, "kernel=pixels_n,tile_m=64,split_k=8", pxc},
                                     {1, "kernel=pixels_n,tile_m=64,split_k=2", pxc}};
    pdl_chain(4, 1, 7, 7, 512, layers, 0x9d4);
}

/* PDL forced (pdl=1) on grids far under the SMs (the planner leaves it off there): each kernel's
 * CTAs may start while a few CTAs of the previous layer still run, with every kind of grid
 * (cooperative, ping-pong with the resident filter, pixels as N in ping-pong) and one layer with
 * PDL off (pdl=-1) in the middle. */
TEST(gpu_sm90_pdl_chain_small_grids)
{
    SKIP_WITHOUT_GPU();
    if (!require_sm90()) return;
    const chain_layer_t layers[5] = {
        {3, "kernel=cooperative,tile=128x64,grid=8,pdl=1", "grid 8 over"},
        {1, "kernel=pingpong,grid=5,pdl=1", "rows each, ping-pong)"},
        {3, "kernel=pixels_n_pingpong,grid=4,pdl=1", "pixels as wgmma N each, ping-pong)"},
        {3, "kernel=cooperative,tile=128x64,grid=3,pdl=-1", "grid 3 over"},
        {1, "kernel=cooperative,tile=128x64,grid=2,pdl=1", "grid 2 over"},
    };
    pdl_chain(5, 2, 28, 28, 64, layers, 0x9d3);
}

#endif /* IGEMM_HAVE_CUDA */
