/*
 * test_depthwise_plans.c — the depthwise family's planner on the CPU (fake device descriptions,
 * no GPU): which of its three kernels takes a depthwise conv, the kernel hints honoured or refused
 * with the reason, and each tile's geometry as igemm_plan_describe states it.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "igemm.h"
#include "test.h"

#ifndef IGEMM_HAVE_CUDA

TEST(heur_depthwise_plans) { test_skip("built without CUDA: the planner has no families"); }

#else /* IGEMM_HAVE_CUDA */

#include "plan.h"
#include "fake_device.h"

/* The depthwise family's kernel choice and tile geometry on random depthwise convs (filters 1..9 x
 * 1..9, strides 1-3, dilations 1-3, paddings, 8..1024 channels), on the fake H100 SXM, H100 PCIe
 * and A100, with no hint and with kernel=depthwise_tiled / depthwise_mma / depthwise_tma: the
 * planner's rule (the TMA kernel for square 3x3 and 5x5 windows of at most 192 channels on sm_90
 * (hinted: 7x7 too), the tiled kernel for the other filter widths 3, 5, 7 at stride_w 1-2 and dil_w 1; the mma kernel for the other
 * filters of at most 50 taps; the strip kernel beyond), the hints honoured or refused with the
 * reason, and each tile as the description states it: the input window (rows x columns) the
 * output tile and the filter need, inside the output, twice in the device's shared memory (the
 * mma kernel: exactly twice the window at >= 16 bytes per column and 8-channel chunk). */
TEST(heur_depthwise_plans)
{
    uint64_t g = 0x5eed5ull;
    int counts[5] = {0, 0, 0, 0, 0}; /* tiled, mma, strip, refused hints, tma */
    for (int i = 0; i < 1500; i++) {
        g = g * 6364136223846793005ull + 1442695040888963407ull;
        const uint64_t u = g >> 11;
        igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
        d.n = 1 + (int64_t)(u % 32);
        d.h = 1 + (int64_t)((u >> 5) % 112), d.w = 1 + (int64_t)((u >> 12) % 112);
        d.c = d.k = d.groups = 8 * (1 + (int64_t)((u >> 19) % 128));
        d.r = 1 + (int64_t)((u >> 26) % 9), d.s = 1 + (int64_t)((u >> 30) % 9);
        if (i % 7 == 0) d.r = d.s; /* (square filters: the TMA kernel's) */
        d.stride_h = 1 + (int64_t)((u >> 34) % 3), d.stride_w = 1 + (int64_t)((u >> 36) % 3);
        d.dil_h = (u >> 38) % 4 == 0 ? 2 + (int64_t)((u >> 40) % 2) : 1;
        d.dil_w = (u >> 41) % 4 == 0 ? 2 + (int64_t)((u >> 43) % 2) : 1;
        d.pad_top = d.pad_bottom = d.dil_h * (d.r - 1) / 2;
        d.pad_left = d.pad_right = d.dil_w * (d.s - 1) / 2;
        if (d.h + 2 * d.pad_top < d.dil_h * (d.r - 1) + 1) d.h = d.dil_h * (d.r - 1) + 1;
        if (d.w + 2 * d.pad_left < d.dil_w * (d.s - 1) + 1) d.w = d.dil_w * (d.s - 1) + 1;
        const int hint = (int)((u >> 45) % 4); /* 0 none, 1 tiled, 2 mma, 3 tma */
        static struct igemm_plan plan;
        memset(&plan, 0, sizeof plan);
        igemm_epilogue_t e = igemm_epilogue_default();
        REQUIRE(igemm_problem_init(&d, &e, &plan.params) == IGEMM_STATUS_SUCCESS);
        static const char *const hints[4] = {"", "kernel=depthwise_tiled", "kernel=depthwise_mma", "kernel=depthwise_tma"};
        REQUIRE(igemm_plan_hints_parse(hints[hint], &plan.hints) == IGEMM_STATUS_SUCCESS);
        plan.dev = fake_device((int)((u >> 47) % 3));
        const igemm_status_t st = igemm_planner_choose(&plan, IGEMM_PATH_MEMORY);
        const int64_t taps = d.r * d.s;
        const int windows = (d.s == 3 || d.s == 5 || d.s == 7) && d.stride_w <= 2 && d.dil_w == 1;
        /* the TMA kernel's windows: square, on sm_90 */
        const int tma_ok = windows && d.r == d.s && plan.dev.cc_major >= 9;
        const char *msg = st == IGEMM_STATUS_SUCCESS ? plan.describe : igemm_last_error();
        char what[192];
        snprintf(what, sizeof what, "case %d: n%lld %lldx%lld c%lld %lldx%lld s%lldx%lld d%lldx%lld hint %d", i,
                 (long long)d.n, (long long)d.h, (long long)d.w, (long long)d.c, (long long)d.r, (long long)d.s,
                 (long long)d.stride_h, (long long)d.stride_w, (long long)d.dil_h, (long long)d.dil_w, hint);
        if ((hint == 1 && !windows) || (hint == 2 && taps > 50) || (hint == 3 && !tma_ok)) {
            /* the hint names a kernel that cannot take it */
            CHECK_MSG(st == IGEMM_STATUS_NOT_SUPPORTED && strstr(msg, hints[hint] + 7), "%s: %s", what, msg);
            counts[3]++;
            continue;
        }
        if (st != IGEMM_STATUS_SUCCESS) {
            CHECK_MSG(0, "%s: not planned: %s", what, msg);
            continue;
        }
        const int is_tiled = strstr(msg, "): tiled; persistent") != NULL, is_mma = strstr(msg, "): mma.sync;") != NULL;
        const int is_tma = strstr(msg, "): tma; persistent") != NULL;
        /* under AUTO: 3x3 and 5x5 windows of at most 192 channels */
        const int want_tma = hint == 3 || (hint == 0 && tma_ok && d.s <= 5 && d.c <= 192);
        const int want_tiled = hint == 1 || (hint == 0 && windows && !want_tma);
        const int want_mma = hint == 2 || (hint == 0 && !windows && taps <= 50);
        CHECK_MSG(is_tiled == want_tiled && is_mma == want_mma && is_tma == want_tma, "%s: %s", what, msg);
        counts[is_tiled ? 0 : is_mma ? 1 : is_tma ? 4 : 2]++;
        if (!is_tiled && !is_mma && !is_tma) continue;
        int th = 0, tw = 0, cb = 0, ir = 0, ic = 0;
        size_t smem = 0;
        unsigned grid = 0;
        const char *t = strstr(msg, "tiles of ");
        REQUIRE(t != NULL);
        CHECK_MSG(sscanf(t, "tiles of %d output rows x %d columns x %d channels, each tile's %dx%d input window", &th, &tw,
                         &cb, &ir, &ic) == 5, "%s: %s", what, msg);
        const char *m = strstr(msg, " B of shared memory, grid ");
        REQUIRE(m != NULL);
        while (m > msg && m[-1] >= '0' && m[-1] <= '9') m--;
        CHECK_MSG(sscanf(m, "%zu B of shared memory, grid %u", &smem, &grid) == 2, "%s: %s", what, msg);
        const int64_t P = plan.params.p, Q = plan.params.q;
        CHECK_MSG(th >= 1 && th <= P && tw >= 1 && tw <= Q + 7 && cb % 8 == 0 && cb >= 8 && cb <= (is_tma ? 256 : 64) &&
                      cb <= d.c,
                  "%s: %s", what, msg);
        CHECK_MSG(ir == (th - 1) * d.stride_h + (d.r - 1) * d.dil_h + 1 &&
                      ic == (tw - 1) * d.stride_w + (d.s - 1) * d.dil_w + 1,
                  "%s: window %dx%d for tile %dx%d: %s", what, ir, ic, th, tw, msg);
        CHECK_MSG(smem <= (size_t)plan.dev.smem_optin_per_block && grid >= 1, "%s: %s", what, msg);
        if (is_mma)
            CHECK_MSG(smem % (size_t)(2 * ir) == 0 && smem / (size_t)(2 * ir) >= (size_t)(ic * cb * 2), "%s: %s", what, msg);
        if (is_tma) { /* a TMA box of at most 256 per dimension, at least two stages of it */
            CHECK_MSG(ir <= 256 && ic <= 256 && smem >= (size_t)2 * ir * ic * cb * 2, "%s: %s", what, msg);
            CHECK_MSG(strstr(msg, "ring of 2 stages") || strstr(msg, "ring of 3 stages") || strstr(msg, "ring of 4 stages"),
                      "%s: %s", what, msg);
        }
    }
    fprintf(stdout, "  depthwise plans: %d tiled, %d tma, %d mma, %d strip, %d hints refused\n", counts[0], counts[4],
            counts[1], counts[2], counts[3]);
    CHECK(counts[0] > 100 && counts[1] > 100 && counts[2] > 20 && counts[3] > 20 && counts[4] > 10);
}

#endif /* IGEMM_HAVE_CUDA */
