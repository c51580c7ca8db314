/*
 * test_skinny.c — the few-row family (src/mem/skinny_gemm.cu, IGEMM_PATH_MEMORY): 1x1 convs and
 * GEMMs of at most 16 output rows. On the GPU (gpu_problem.h says what every check checks: guards,
 * poisoned y, unchanged inputs, tolerances): random 1x1 convs forced onto the path (strides,
 * padding, M from 1 to 16 across both x-row group sizes, channel tails, every epilogue, fp16 and
 * bf16 in, f16/bf16/f32 out, a long K); the planner's choice under AUTO (a few-row 1x1 takes it,
 * 17 rows or a 3x3 or any sm90 hint does not, and the refusal says why); two runs of one plan
 * agree bit for bit (the warps' partial sums are added in a fixed order).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu_problem.h"
#include "igemm.h"
#include "test.h"

#ifndef IGEMM_HAVE_CUDA

GPU_SKIP_TEST(gpu_skinny_random)
GPU_SKIP_TEST(gpu_skinny_planner)
TEST(skinny_planner_fake_devices) { test_skip("built without CUDA: the planner has no families"); }

#else /* IGEMM_HAVE_CUDA */

#include "fake_device.h"
#include "plan.h"

/* The planner's choice for d (bias + ReLU) on a fake Hopper (cc_major 9) or Ampere device; the
 * description or the error into msg. */
static igemm_status_t fake_plan(const igemm_conv2d_desc_t *d, int cc_major, const char *hints, char *msg, size_t len)
{
    igemm_epilogue_t e = igemm_epilogue_default();
    e.has_bias = 1;
    e.activation = IGEMM_ACT_RELU;
    const char *text = "";
    const igemm_status_t st =
        fake_planner_choose(d, &e, cc_major == 9 ? FAKE_H100_SXM : FAKE_A100, IGEMM_PATH_AUTO, hints, &text);
    snprintf(msg, len, "%s", text);
    return st;
}

/* CPU: which problems the planner gives the few-row family, on Hopper and Ampere descriptions */
TEST(skinny_planner_fake_devices)
{
    static char msg[4096];
    const igemm_conv2d_desc_t fc = conv_shape(1, 1, 1, 2048, 1000, 1, 1, 1, 0, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    for (int cc = 8; cc <= 9; cc++) {
        REQUIRE(fake_plan(&fc, cc, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
        CHECK_MSG(strstr(msg, "kernel mem_skinny_mma") && strstr(msg, "few rows (M = 1)") &&
                      strstr(msg, "grid 63"), "cc %d: %s", cc, msg);
    }
    /* 16 rows of 8 images x 2 pixels, stride 2 with padding: still few rows (16 filter rows per CTA
     * for 1000 channels: 63 CTAs) */
    const igemm_conv2d_desc_t s2 = conv_shape(8, 3, 2, 64, 1000, 1, 1, 2, 0, 1, 1, IGEMM_DTYPE_F16, IGEMM_DTYPE_F16);
    REQUIRE(fake_plan(&s2, 9, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "few rows (M = 16)") && strstr(msg, "16 filter rows x 16 x rows"), "%s", msg);
    /* many output channels: two 16-row groups per CTA */
    const igemm_conv2d_desc_t wide = conv_shape(1, 1, 4, 1024, 8192, 1, 1, 1, 0, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    REQUIRE(fake_plan(&wide, 9, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "32 filter rows x 8 x rows") && strstr(msg, "grid 256"), "%s", msg);
    /* not this family: 17 rows, a 3x3 filter, c % 8 != 0, an sm90 hint, few channels over a long K */
    const igemm_conv2d_desc_t m17 = conv_shape(1, 1, 17, 256, 512, 1, 1, 1, 0, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    REQUIRE(fake_plan(&m17, 9, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "mem_skinny_mma not taken: M = 17 output rows") && !strstr(msg, "kernel mem_skinny_mma"),
              "%s", msg);
    const igemm_conv2d_desc_t k3 = conv_shape(1, 3, 3, 64, 64, 3, 3, 1, 1, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    REQUIRE(fake_plan(&k3, 9, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "mem_skinny_mma not taken: filter 3x3"), "%s", msg);
    const igemm_conv2d_desc_t c12 = conv_shape(1, 2, 2, 12, 64, 1, 1, 1, 0, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    REQUIRE(fake_plan(&c12, 9, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "mem_skinny_mma not taken: c = 12"), "%s", msg);
    REQUIRE(fake_plan(&fc, 9, "kernel=cooperative", msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel sm90_tma_wgmma") && strstr(msg, "plan hints name sm90 settings"), "%s", msg);
    /* a decode step of 8 rows (4096 -> 4096): on Hopper the split pixels-as-N tiles (64 tiles x 2
     * splits fill the SMs), on Ampere this family */
    const igemm_conv2d_desc_t dec = conv_shape(1, 1, 8, 4096, 4096, 1, 1, 1, 0, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    REQUIRE(fake_plan(&dec, 9, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel sm90_tma_wgmma") && strstr(msg, "tile 32x64x64") &&
                  strstr(msg, "mem_skinny_mma not taken: k = 4096, c = 4096 on sm_90"),
              "%s", msg);
    REQUIRE(fake_plan(&dec, 8, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_skinny_mma") && strstr(msg, "few rows (M = 8)"), "%s", msg);
    /* wider N too (the sm90 row tiles), not the 2048-channel ones (64 units: unmeasured there) */
    const igemm_conv2d_desc_t up = conv_shape(1, 1, 1, 4096, 14336, 1, 1, 1, 0, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    REQUIRE(fake_plan(&up, 9, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel sm90_tma_wgmma") && strstr(msg, "mem_skinny_mma not taken"), "%s", msg);
    const igemm_conv2d_desc_t n2k = conv_shape(1, 1, 4, 4096, 2048, 1, 1, 1, 0, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    REQUIRE(fake_plan(&n2k, 9, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_skinny_mma") && strstr(msg, "few rows (M = 4)"), "%s", msg);
    const igemm_conv2d_desc_t longk = conv_shape(1, 1, 2, 65536, 64, 1, 1, 1, 0, 1, 1, IGEMM_DTYPE_BF16, IGEMM_DTYPE_BF16);
    REQUIRE(fake_plan(&longk, 9, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "mem_skinny_mma not taken: k = 64 channels over c = 65536"), "%s", msg);
}

#include <cuda_runtime_api.h>

#define F16 IGEMM_DTYPE_F16
#define BF IGEMM_DTYPE_BF16
#define F32 IGEMM_DTYPE_F32

/* a random 1x1 conv of at most 16 output pixels */
static igemm_conv2d_desc_t gen_skinny(data_rng_t *g, int it)
{
    for (;;) {
        const int64_t n = data_rng_int(g, 1, 3), stride = data_rng_int(g, 1, 2), pad = it % 5 == 0 ? 1 : 0;
        const int64_t h = data_rng_int(g, 1, 5), w = data_rng_int(g, 1, 5);
        const int64_t c = it % 17 == 0 ? 8 * data_rng_int(g, 200, 520) : 8 * data_rng_int(g, 1, 96);
        const int64_t k = it % 3 == 0 ? data_rng_int(g, 1, 300) : it % 7 == 1 ? 1000 : 16 * data_rng_int(g, 1, 24);
        const igemm_dtype_t in = it % 2 ? F16 : BF;
        const igemm_dtype_t out = it % 3 == 0 ? F32 : it % 3 == 1 ? in : (in == F16 ? BF : F16);
        igemm_conv2d_desc_t d = conv_shape(n, h, w, c, k, 1, 1, stride, pad, 1, 1, in, out);
        const int64_t p = (h + 2 * pad - 1) / stride + 1, q = (w + 2 * pad - 1) / stride + 1;
        if (n * p * q <= 16) return d;
    }
}

TEST(gpu_skinny_random)
{
    SKIP_WITHOUT_GPU();
    data_rng_t g = {test_seed(0x5c1a)};
    run_stats_t st;
    memset(&st, 0, sizeof st);
    int mask = 0; /* x-row group sizes seen: 8, 16 */
    for (int it = 0; it < 160 && st.failed < 5; it++) {
        const igemm_conv2d_desc_t d = gen_skinny(&g, it);
        igemm_epilogue_t e;
        gen_epilogue(&g, &e);
        const int64_t p = (d.h + d.pad_top + d.pad_bottom - 1) / d.stride_h + 1;
        const int64_t q = (d.w + d.pad_left + d.pad_right - 1) / d.stride_w + 1, m = d.n * p * q;
        mask |= m <= 8 ? 1 : 2;
        const int rc = run_one(&d, &e, IGEMM_PATH_MEMORY, NULL, "few rows (M = ", &g, &st, 0);
        REQUIRE(rc >= 0);
    }
    fprintf(stdout, "  skinny: %d configs ran, %d failed, worst err/tol %.3f (f32 out %.3f)\n", st.ran[IGEMM_PATH_MEMORY],
            st.failed, st.worst, st.worst_f32);
    CHECK_EQ_INT(st.ran[IGEMM_PATH_MEMORY], 160);
    CHECK_EQ_INT(st.failed, 0);
    CHECK_EQ_INT(st.refused, 0);
    CHECK_MSG(mask == 3, "x-row groups covered: mask 0x%x", mask);
}

TEST(gpu_skinny_planner)
{
    SKIP_WITHOUT_GPU();
    static char msg[4096];
    /* a classifier at batch 1 (M = 1, 2048 -> 1000): the planner's choice */
    igemm_conv2d_desc_t fc = conv_shape(1, 1, 1, 2048, 1000, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&fc, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_skinny_mma") && strstr(msg, "few rows (M = 1)"), "%s", msg);
    /* 16 rows still, 17 not (the refusal names M) */
    igemm_conv2d_desc_t m16 = conv_shape(1, 4, 4, 256, 512, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&m16, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "few rows (M = 16)") != NULL, "%s", msg);
    igemm_conv2d_desc_t m17 = conv_shape(1, 1, 17, 256, 512, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&m17, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "mem_skinny_mma not taken: M = 17 output rows") != NULL, "%s", msg);
    CHECK_EQ_INT(plan_text(&m17, IGEMM_PATH_MEMORY, NULL, msg, sizeof msg), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "M = 17") != NULL, "%s", msg);
    /* a 3x3 filter, c % 8 != 0, an sm90 hint: not this family */
    igemm_conv2d_desc_t k3 = conv_shape(1, 4, 4, 64, 64, 3, 3, 1, 1, 1, 1, BF, BF);
    CHECK_EQ_INT(plan_text(&k3, IGEMM_PATH_MEMORY, NULL, msg, sizeof msg), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "filter 3x3") != NULL, "%s", msg);
    igemm_conv2d_desc_t c12 = conv_shape(1, 2, 2, 12, 64, 1, 1, 1, 0, 1, 1, BF, BF);
    CHECK_EQ_INT(plan_text(&c12, IGEMM_PATH_MEMORY, NULL, msg, sizeof msg), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "c = 12") != NULL, "%s", msg);
    if (device_is_sm90()) {
        REQUIRE(plan_text(&fc, IGEMM_PATH_AUTO, "kernel=cooperative", msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
        CHECK_MSG(strstr(msg, "kernel sm90_tma_wgmma") != NULL, "%s", msg);
    }

    /* two runs of one plan agree bit for bit (and match the reference) */
    data_rng_t g = {test_seed(0x5c1b)};
    igemm_conv2d_desc_t d = conv_shape(2, 2, 3, 1024, 376, 1, 1, 1, 0, 1, 1, BF, F32);
    igemm_epilogue_t e = epilogue_kind(2);
    check_plan_repeatable(&d, &e, &g, "few rows (M = 12)", "skinny");
}

#endif
