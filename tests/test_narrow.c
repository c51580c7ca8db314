/*
 * test_narrow.c — the narrow 1x1 family (src/mem/narrow_1x1.cu, IGEMM_PATH_MEMORY): 1x1 convs of
 * c <= 64, k <= 16 and M >= 256, and of c <= 160, k <= 24 with many rows (the wider instance:
 * gpu_narrow_wide). On the GPU (gpu_problem.h says what every check checks: guards,
 * poisoned y, unchanged inputs, tolerances): random narrow 1x1s forced onto the path — c of one
 * and two 32-channel chunks and not a multiple of 32 (a partial last chunk), k of one and two
 * 8-channel tiles, odd k (unpaired stores), pixel counts that are not a multiple of the warp's
 * block, stride 2 and padding (the gather path), every epilogue, fp16 and bf16 in, f16/bf16/f32
 * out; the planner's choice under AUTO (MobileNetV2's projection to 16 channels and a 2-class
 * head take it; a wide 1x1, a 3x3 and a few-row 1x1 do not, and say why); two runs agree bit for
 * bit. The wide-output kernel (narrow_wide.cuh: c <= 32, 16 < k <= 512, many rows): gpu_narrow_wide_out.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu_problem.h"
#include "igemm.h"
#include "test.h"

#ifndef IGEMM_HAVE_CUDA

GPU_SKIP_TEST(gpu_narrow_random)
GPU_SKIP_TEST(gpu_narrow_planner)
GPU_SKIP_TEST(gpu_narrow_wide)
GPU_SKIP_TEST(gpu_narrow_wide_out)

#else /* IGEMM_HAVE_CUDA */

#define F16 IGEMM_DTYPE_F16
#define BF IGEMM_DTYPE_BF16
#define F32 IGEMM_DTYPE_F32

/* a random narrow 1x1: c of one chunk (<= 32) or two, k of one 8-channel tile or two */
static igemm_conv2d_desc_t gen_narrow(data_rng_t *g, int it)
{
    const int64_t c = it % 2 ? 8 * data_rng_int(g, 1, 4) : 8 * data_rng_int(g, 5, 8);
    int64_t k = it % 4 < 2 ? data_rng_int(g, 1, 8) : data_rng_int(g, 9, 16);
    if (it % 7 == 3 && k % 2 == 0) k -= 1; /* odd k: unpaired stores */
    const int strided = it % 5 == 4;
    const int64_t n = data_rng_int(g, 1, 3);
    int64_t h = data_rng_int(g, 8, 40), w = data_rng_int(g, 8, 40);
    const igemm_dtype_t in = it % 2 ? F16 : BF;
    const igemm_dtype_t out = it % 3 == 1 ? F32 : it % 3 == 2 ? in : (in == F16 ? BF : F16);
    igemm_conv2d_desc_t d = conv_shape(n, h, w, c, k, 1, 1, 1, 0, 1, 1, in, out);
    if (strided) { /* stride 2 with a one-pixel border: output pixels of the padding read zeros */
        d.stride_h = 2, d.stride_w = 2;
        d.pad_top = d.pad_left = d.pad_bottom = d.pad_right = 1;
    }
    /* at least 256 output pixels (the family's lower bound) */
    while (n * ((d.h + d.pad_top + d.pad_bottom - 1) / d.stride_h + 1) *
               ((d.w + d.pad_left + d.pad_right - 1) / d.stride_w + 1) < 256)
        d.h += 8;
    return d;
}

TEST(gpu_narrow_random)
{
    SKIP_WITHOUT_GPU();
    run_memory_random(gen_narrow, 120, 0x9a1e, "kernel mem_narrow", "narrow 1x1");
}

TEST(gpu_narrow_planner)
{
    SKIP_WITHOUT_GPU();
    static char msg[4096];
    /* MobileNetV2's projection 32 -> 16 and a 2-class head of 64 channels: the family */
    igemm_conv2d_desc_t p1 = conv_shape(2, 56, 56, 32, 16, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&p1, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_narrow") && strstr(msg, "narrow 1x1 (c = 32, k = 16)"), "%s", msg);
    igemm_conv2d_desc_t p2 = conv_shape(2, 28, 28, 64, 2, 1, 1, 1, 0, 1, 1, F16, F16);
    REQUIRE(plan_text(&p2, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_narrow") != NULL, "%s", msg);
    /* a wide 1x1, a 3x3 and a few-row 1x1: not this family (the reasons named) */
    igemm_conv2d_desc_t wide = conv_shape(2, 28, 28, 256, 256, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&wide, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_narrow") == NULL && strstr(msg, "mem_narrow not taken: c = 256, k = 256"), "%s",
              msg);
    igemm_conv2d_desc_t r3 = conv_shape(2, 28, 28, 32, 16, 3, 3, 1, 1, 1, 1, BF, BF);
    CHECK_EQ_INT(plan_text(&r3, IGEMM_PATH_MEMORY, NULL, msg, sizeof msg), IGEMM_STATUS_NOT_SUPPORTED);
    CHECK_MSG(strstr(msg, "takes 1x1 filters") != NULL, "%s", msg);
    igemm_conv2d_desc_t few = conv_shape(1, 10, 10, 32, 16, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&few, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "mem_narrow not taken: M = 100 output rows") != NULL, "%s", msg);

    /* two runs of one plan agree bit for bit (and match the reference): c 48 -> k 13 with the
     * fused epilogue and f32 out */
    data_rng_t g = {test_seed(0x9a1f)};
    igemm_conv2d_desc_t d = conv_shape(2, 14, 15, 48, 13, 1, 1, 1, 0, 1, 1, F16, F32);
    igemm_epilogue_t e = epilogue_kind(2);
    check_plan_repeatable(&d, &e, &g, "kernel mem_narrow", "narrow 1x1");
}

/* The wider instance (c <= 160, 16 < k <= 24 or 64 < c; many rows): c of one to five 32-channel
 * chunks and partial ones, k of one to three 8-channel tiles and odd k, stride 2 with padding (the gather
 * path), every epilogue kind (the residual by 4-byte words where y is 16-bit and k even, element by
 * element otherwise), fp16 / bf16 in, f16 / bf16 / f32 out; MobileNetV2's 144 -> 24 projection at
 * batch 32 takes it under AUTO, with and without its residual; at batch 8, or to 32 channels, not
 * (and the plan says why). */
TEST(gpu_narrow_wide)
{
    SKIP_WITHOUT_GPU();
    data_rng_t g = {test_seed(0x9a20)};
    run_stats_t st;
    memset(&st, 0, sizeof st);
    /* (n, h, w, c, k, stride): 71k+ output pixels, at least 2 x 16 x 8 x 2 per SM up to 139 SMs */
    static const int64_t cases[][6] = {
        {2, 190, 190, 144, 24, 1}, {1, 270, 270, 96, 23, 1}, {3, 160, 160, 160, 24, 1},
        {2, 380, 380, 72, 8, 2},   {1, 275, 266, 136, 17, 1}, {2, 188, 190, 112, 3, 1},
        /* c <= 64 with 16 < k <= 24 (until session 12 a k <= 16 instance ran them) */
        {2, 190, 190, 8, 23, 1},   {1, 275, 266, 32, 24, 1},  {2, 190, 190, 64, 20, 1},
    };
    const int ncases = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < ncases; i++) {
        const igemm_dtype_t in = i % 2 ? F16 : BF;
        const igemm_dtype_t out = i % 3 == 1 ? F32 : i % 3 == 2 ? in : (in == F16 ? BF : F16);
        igemm_conv2d_desc_t d = conv_shape(cases[i][0], cases[i][1], cases[i][2], cases[i][3], cases[i][4], 1, 1,
                                           cases[i][5], 0, 1, 1, in, out);
        if (cases[i][5] == 2) d.pad_top = d.pad_left = d.pad_bottom = d.pad_right = 1;
        for (int ek = 0; ek < 3; ek++) {
            const igemm_epilogue_t e = epilogue_kind(ek);
            REQUIRE(run_one(&d, &e, IGEMM_PATH_MEMORY, NULL, "kernel mem_narrow", &g, &st, 0) >= 0);
        }
    }
    CHECK_EQ_INT(st.ran[IGEMM_PATH_MEMORY], 3 * ncases);
    CHECK_EQ_INT(st.failed, 0);
    CHECK_EQ_INT(st.refused, 0);

    static char msg[4096];
    igemm_conv2d_desc_t p1 = conv_shape(32, 56, 56, 144, 24, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&p1, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_narrow") && strstr(msg, "narrow 1x1 (c = 144, k = 24)"), "%s", msg);
    const igemm_epilogue_t er = epilogue_kind(2);
    igemm_plan_t *plan = NULL;
    REQUIRE(igemm_plan_create(&plan, &p1, &er, NULL) == IGEMM_STATUS_SUCCESS);
    snprintf(msg, sizeof msg, "%s", igemm_plan_describe(plan));
    igemm_plan_destroy(plan);
    CHECK_MSG(strstr(msg, "kernel mem_narrow") != NULL, "%s", msg);
    igemm_conv2d_desc_t p8 = conv_shape(8, 56, 56, 144, 24, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&p8, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_narrow") == NULL && strstr(msg, "M = 25088: takes c <= 64") != NULL, "%s", msg);
    igemm_conv2d_desc_t p32 = conv_shape(128, 28, 28, 144, 32, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&p32, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_narrow") == NULL && strstr(msg, "k = 32, M = 100352: takes") != NULL, "%s", msg);
}

/* A random wide-output 1x1 (the wide kernel, narrow_wide.cuh: c <= 32, 24 < k <= 96, at least a
 * 32-row block per resident warp: ~68k+ output pixels): c of one 32-channel chunk, partial ones; k
 * of whole 32-channel chunks, a partial last chunk, and k % 8 != 0 (element stores); stride 2 with
 * padding (the gather path); pixel counts not a multiple of the warp's block; dtypes as
 * gen_narrow; with run_memory_random's random epilogues (every activation, scale, bias, residual,
 * alpha, beta). */
static igemm_conv2d_desc_t gen_wide_out(data_rng_t *g, int it)
{
    const int64_t c = 8 * data_rng_int(g, 1, 4);
    int64_t k;
    switch (it % 3) {
    case 0: k = 32 * data_rng_int(g, 1, 3); break; /* whole chunks */
    case 1: k = 8 * data_rng_int(g, 5, 11); break; /* a partial last chunk */
    default: k = data_rng_int(g, 25, 96); break;   /* any k: element stores where k % 8 != 0 */
    }
    const int strided = it % 5 == 4;
    const int64_t n = data_rng_int(g, 1, 2);
    const int64_t h = data_rng_int(g, 250, 300) / n, w = data_rng_int(g, 300, 340); /* 75k+ pixels */
    const igemm_dtype_t in = it % 2 ? F16 : BF;
    const igemm_dtype_t out = it % 3 == 1 ? F32 : it % 3 == 2 ? in : (in == F16 ? BF : F16);
    igemm_conv2d_desc_t d = conv_shape(n, strided ? 2 * h : h, w, c, k, 1, 1, 1, 0, 1, 1, in, out);
    if (strided) {
        d.w = 2 * w;
        d.stride_h = 2, d.stride_w = 2;
        d.pad_top = d.pad_left = d.pad_bottom = d.pad_right = 1;
    }
    return d;
}

TEST(gpu_narrow_wide_out)
{
    SKIP_WITHOUT_GPU();
    run_memory_random(gen_wide_out, 20, 0x9a21, "narrow 1x1, wide output", "narrow 1x1 wide output");
    /* two runs agree bit for bit: 16 -> 96 with the fused epilogue (residual included) */
    data_rng_t g = {test_seed(0x9a22)};
    igemm_conv2d_desc_t d = conv_shape(2, 190, 190, 16, 96, 1, 1, 1, 0, 1, 1, BF, BF);
    igemm_epilogue_t e = epilogue_kind(2);
    check_plan_repeatable(&d, &e, &g, "kernel mem_narrow", "narrow 1x1, wide output");

    /* the planner: MobileNetV2's expansion 16 -> 96 at batch 32 takes it under AUTO with a
     * residual, and without one where the sm90 whole-N tile cannot (else it defers: on sm_90 the
     * plan is that tile's and names the deferral); at batch 1 (12544 rows), from 64 channels
     * (ResNet-50's 64 -> 256) and to 144 or 192 channels not, and the plan says why */
    static char msg[4096];
    igemm_conv2d_desc_t p1 = conv_shape(32, 112, 112, 16, 96, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&p1, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    if (device_is_sm90())
        CHECK_MSG(strstr(msg, "tile 64x128x64") && strstr(msg, "one whole-N tile") &&
                      strstr(msg, "the sm90 whole-N ping-pong tile takes this 1x1"),
                  "%s", msg);
    else
        CHECK_MSG(strstr(msg, "kernel mem_narrow") && strstr(msg, "wide output (c = 16, k = 96)"), "%s", msg);
    igemm_conv2d_desc_t p2 = conv_shape(1, 112, 112, 16, 96, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&p2, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_narrow") == NULL && strstr(msg, "k = 96, M = 12544: takes") != NULL, "%s", msg);
    const igemm_epilogue_t er = epilogue_kind(2);
    igemm_plan_t *plan = NULL;
    REQUIRE(igemm_plan_create(&plan, &p1, &er, NULL) == IGEMM_STATUS_SUCCESS);
    snprintf(msg, sizeof msg, "%s", igemm_plan_describe(plan));
    igemm_plan_destroy(plan);
    CHECK_MSG(strstr(msg, "wide output (c = 16, k = 96)") != NULL, "%s", msg);
    igemm_conv2d_desc_t p4 = conv_shape(32, 56, 56, 24, 144, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&p4, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_narrow") == NULL && strstr(msg, "c = 24, k = 144") != NULL, "%s", msg);
    igemm_conv2d_desc_t p5 = conv_shape(32, 56, 56, 32, 192, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&p5, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_narrow") == NULL && strstr(msg, "c = 32, k = 192") != NULL, "%s", msg);
    igemm_conv2d_desc_t p3 = conv_shape(32, 56, 56, 64, 256, 1, 1, 1, 0, 1, 1, BF, BF);
    REQUIRE(plan_text(&p3, IGEMM_PATH_AUTO, NULL, msg, sizeof msg) == IGEMM_STATUS_SUCCESS);
    CHECK_MSG(strstr(msg, "kernel mem_narrow") == NULL && strstr(msg, "c = 64, k = 256, M = 100352") != NULL, "%s",
              msg);
}

#endif
