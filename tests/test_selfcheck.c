/*
 * test_selfcheck.c — the first-use self-check (src/selfcheck.h) on a real GPU, with test families
 * built on the direct path: a correct family passes (so that a correct Blackwell kernel will not be
 * refused by its own check), and one whose outputs are wrong in a single row, or never written
 * (NaN left by the poison), fails with the count of wrong outputs; one whose work does not finish
 * within the (lowered) hang limit is refused without waiting for it; verdicts are kept per family
 * and device (a second call returns the first verdict); hints.self_check = -1 fails without
 * running; the caller's current device and its context still work after the check (it runs in a
 * context of its own). On a machine without a GPU the check itself must refuse (not crash).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpu_problem.h"
#include "igemm.h"
#include "test.h"

#ifndef IGEMM_HAVE_CUDA

GPU_SKIP_TEST(gpu_selfcheck_verdicts)

#else /* IGEMM_HAVE_CUDA */

#include <cuda_runtime.h>

#include "device.h"
#include "internal.h"
#include "selfcheck.h"

static int tf_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev, const igemm_plan_hints_t *h,
                       char *why, size_t why_len)
{
    (void)p, (void)dev, (void)h, (void)why, (void)why_len;
    return 1;
}

static igemm_status_t tf_configure(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                   const igemm_plan_hints_t *h, igemm_family_config_t *cfg)
{
    const igemm_plan_hints_t none = igemm_plan_hints_default();
    (void)h;
    return igemm_family_direct.configure(p, dev, &none, cfg);
}

/* the direct path: correct */
static igemm_status_t tf_run_good(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *ws,
                                  void *state, void *stream, const igemm_inner_t *inner)
{
    return igemm_family_direct.run(p, cfg, ws, state, stream, inner);
}

/* the direct path, then the last output row overwritten with zeros (wrong wherever the reference
 * is not within the tolerance of zero: most of a row of random sums) */
static igemm_status_t tf_run_bad(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *ws,
                                 void *state, void *stream, const igemm_inner_t *inner)
{
    igemm_status_t st = igemm_family_direct.run(p, cfg, ws, state, stream, inner);
    if (st != IGEMM_STATUS_SUCCESS) return st;
    const size_t esz = p->out_dtype == IGEMM_DTYPE_F32 ? 4 : 2, row = (size_t)p->k * esz;
    char *last = (char *)p->y + (size_t)(p->gemm_m - 1) * row;
    return cudaMemsetAsync(last, 0, row, (cudaStream_t)stream) == cudaSuccess ? IGEMM_STATUS_SUCCESS
                                                                               : IGEMM_STATUS_CUDA_ERROR;
}

/* writes nothing: y keeps the check's NaN poison */
static igemm_status_t tf_run_none(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *ws,
                                  void *state, void *stream, const igemm_inner_t *inner)
{
    (void)p, (void)cfg, (void)ws, (void)state, (void)stream, (void)inner;
    return IGEMM_STATUS_SUCCESS;
}

/* the direct path, then 2 s of a host function on the stream: a "kernel" that does not finish
 * within the check's (lowered) limit */
static void CUDART_CB tf_sleep(void *arg)
{
    (void)arg;
    struct timespec t = {2, 0};
    nanosleep(&t, NULL);
}

static igemm_status_t tf_run_slow(const igemm_conv_params_t *p, const igemm_family_config_t *cfg, void *ws,
                                  void *state, void *stream, const igemm_inner_t *inner)
{
    igemm_status_t st = igemm_family_direct.run(p, cfg, ws, state, stream, inner);
    if (st != IGEMM_STATUS_SUCCESS) return st;
    return cudaLaunchHostFunc((cudaStream_t)stream, tf_sleep, NULL) == cudaSuccess ? IGEMM_STATUS_SUCCESS
                                                                                  : IGEMM_STATUS_CUDA_ERROR;
}

/* two cases: a 3x3 conv with padding and the whole epilogue into bf16, a 1x1 into f32 */
static int tf_cases(const igemm_device_info_t *dev, igemm_selfcheck_case_t *cases, int max)
{
    (void)dev;
    if (max < 2) return 0;
    memset(cases, 0, 2 * sizeof *cases);
    cases[0].name = "3x3, full epilogue";
    cases[0].desc = conv_shape(2, 9, 7, 40, 24, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    cases[0].epi = igemm_epilogue_default();
    cases[0].epi.has_scale = cases[0].epi.has_bias = cases[0].epi.has_residual = 1;
    cases[0].epi.activation = IGEMM_ACT_RELU;
    cases[1].name = "1x1, f32 out";
    cases[1].desc = conv_shape(1, 16, 16, 64, 72, 1, 1, 1, 0, 1, 1, IGEMM_DTYPE_F16, IGEMM_DTYPE_F32);
    cases[1].epi = igemm_epilogue_default();
    return 2;
}

static const igemm_family_t k_good = {"test_good", IGEMM_PATH_DIRECT, 0, tf_supports, tf_configure, NULL,
                                      tf_run_good, NULL, tf_cases};
static const igemm_family_t k_bad = {"test_bad", IGEMM_PATH_DIRECT, 0, tf_supports, tf_configure, NULL,
                                     tf_run_bad, NULL, tf_cases};
static const igemm_family_t k_none = {"test_none", IGEMM_PATH_DIRECT, 0, tf_supports, tf_configure, NULL,
                                      tf_run_none, NULL, tf_cases};
static const igemm_family_t k_slow = {"test_slow", IGEMM_PATH_DIRECT, 0, tf_supports, tf_configure, NULL,
                                      tf_run_slow, NULL, tf_cases};

TEST(gpu_selfcheck_verdicts)
{
    SKIP_WITHOUT_GPU();
    igemm_device_info_t dev;
    REQUIRE(igemm_device_query(0, &dev) == IGEMM_STATUS_SUCCESS);
    const igemm_plan_hints_t none = igemm_plan_hints_default();
    igemm_plan_hints_t forced = none;
    forced.self_check = -1;
    /* the caller's context before: a buffer to use after the checks */
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    void *mine = NULL;
    REQUIRE(cudaMalloc(&mine, 4096) == cudaSuccess);
    char why[512];
    for (int rep = 0; rep < 2; rep++) { /* the second time from the kept verdicts */
        why[0] = '\0';
        CHECK_MSG(igemm_selfcheck(&k_good, &dev, &none, why, sizeof why) == 1, "rep %d: good refused: %s", rep, why);
        why[0] = '\0';
        CHECK_MSG(igemm_selfcheck(&k_bad, &dev, &none, why, sizeof why) == 0 &&
                      strstr(why, "its first-use self-check on ") && strstr(why, "case 0 (3x3, full epilogue): ") &&
                      strstr(why, "outputs wrong"),
                  "rep %d: bad: %s", rep, why);
        why[0] = '\0';
        CHECK_MSG(igemm_selfcheck(&k_none, &dev, &none, why, sizeof why) == 0 && strstr(why, "outputs wrong"),
                  "rep %d: none: %s", rep, why);
    }
    /* a case that does not finish within the limit (1 s here): refused as a hang, not waited for */
    igemm_selfcheck_set_hang_seconds(1);
    why[0] = '\0';
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_MSG(igemm_selfcheck(&k_slow, &dev, &none, why, sizeof why) == 0 && strstr(why, "did not finish within 1 s"),
              "slow: %s", why);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    const double waited = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    CHECK_MSG(waited < 1.9, "the check waited %.2f s for a case that runs 2 s (limit 1 s)", waited);
    igemm_selfcheck_set_hang_seconds(0);
    /* forced: fails without running, not remembered (the good family still passes after) */
    why[0] = '\0';
    CHECK_MSG(igemm_selfcheck(&k_good, &dev, &forced, why, sizeof why) == 0 && strstr(why, "hints.self_check = -1"),
              "forced: %s", why);
    CHECK(igemm_selfcheck(&k_good, &dev, &none, why, sizeof why) == 1);
    /* the caller's device and context are as they were: its buffer still works */
    int cur = -1;
    CHECK(cudaGetDevice(&cur) == cudaSuccess && cur == 0);
    CHECK(cudaMemset(mine, 0x5A, 4096) == cudaSuccess);
    unsigned char host[16];
    CHECK(cudaMemcpy(host, mine, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess && host[7] == 0x5A);
    CHECK(cudaFree(mine) == cudaSuccess);
    CHECK(cudaGetLastError() == cudaSuccess);
}

#endif /* IGEMM_HAVE_CUDA */
