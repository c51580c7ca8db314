/*
 * test_gpu_random.c — random configurations over the whole parameter space against the CPU
 * reference (gpu_problem.h says what every check checks): the planner's choice (AUTO), and each
 * path forced (GENERAL, DIRECT, SM90). The sm90 run also cycles random plan hints over the
 * configurations (every sm90 kernel forced, tile shapes, grid and stage caps, staging boxes, the
 * resident filter, PDL, fold rows, the stem pre-pass), so every kernel instance meets random
 * shapes with M, N and channel tails. IGEMM_TEST_SEED=<n> changes the seed.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_problem.h"
#include "igemm.h"
#include "test.h"

#ifndef IGEMM_HAVE_CUDA

GPU_SKIP_TEST(gpu_random_auto)
GPU_SKIP_TEST(gpu_random_general)
GPU_SKIP_TEST(gpu_random_direct)
GPU_SKIP_TEST(gpu_random_sm90)

#else /* IGEMM_HAVE_CUDA */

#include <cuda_runtime_api.h>

#define MAX_MACS 2e7 /* reference cost cap per random configuration */

typedef enum { GEN_ANY = 0, GEN_SM90 = 1 } gen_mode_t;

static int64_t gen_filter(data_rng_t *g) { return data_rng_int(g, 0, 99) < 92 ? data_rng_int(g, 1, 7) : 11; }
static int64_t gen_stride(data_rng_t *g)
{
    return data_rng_int(g, 0, 99) < 88 ? data_rng_int(g, 1, 4) : data_rng_int(g, 5, 8);
}

static int gen_config(data_rng_t *g, gen_mode_t mode, igemm_conv2d_desc_t *out, igemm_epilogue_t *e)
{
    static const int64_t cl[] = {1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 24, 31, 32, 40, 48, 56, 64, 72, 96, 128, 136, 160};
    static const int64_t dw_groups[] = {1, 2, 3, 5, 8, 16, 24, 32, 64, 96, 128, 160};
    static const int64_t g_groups[] = {2, 3, 4, 8, 16, 32};
    static const int64_t g_cg[] = {1, 2, 3, 4, 8, 16};
    static const int64_t sm90_c[] = {64, 64, 128, 128, 192, 256, 8, 16, 24, 32, 40, 48, 72, 96, 136, 160};
    static const int64_t sm90_k[] = {64, 64, 128, 128, 192, 256, 8, 16, 24, 32, 40, 72, 96, 136};
    static const int64_t sm90_f[] = {1, 1, 1, 3, 3, 3, 3, 5, 7, 2};
    const int ncl = (int)(sizeof cl / sizeof cl[0]);
    for (int tries = 0; tries < 100000; tries++) {
        igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
        d.n = data_rng_int(g, 1, 3);
        if (mode == GEN_ANY) {
            const int gm = (int)data_rng_int(g, 0, 99);
            if (gm < 55) {
                d.groups = 1;
                d.c = data_rng_int(g, 0, 3) == 0 ? 2 * data_rng_int(g, 0, 16) + 1 : data_rng_pick(g, cl, ncl);
                d.k = data_rng_int(g, 0, 3) == 0 ? 2 * data_rng_int(g, 0, 16) + 1 : data_rng_pick(g, cl, ncl);
            } else if (gm < 75) { /* depthwise, channel multiplier 1..3 */
                d.groups = data_rng_pick(g, dw_groups, 12);
                d.c = d.groups;
                d.k = d.groups * (data_rng_int(g, 0, 2) == 0 ? data_rng_int(g, 2, 3) : 1);
            } else {
                d.groups = data_rng_pick(g, g_groups, 6);
                d.c = d.groups * data_rng_pick(g, g_cg, 6);
                d.k = d.groups * data_rng_pick(g, g_cg, 6);
            }
            d.h = data_rng_int(g, 1, 20);
            d.w = data_rng_int(g, 1, 20);
            d.r = gen_filter(g);
            d.s = data_rng_int(g, 0, 9) < 7 ? d.r : gen_filter(g);
            d.stride_h = gen_stride(g);
            d.stride_w = data_rng_int(g, 0, 9) < 6 ? d.stride_h : gen_stride(g);
            d.dil_h = data_rng_int(g, 0, 3) == 0 ? data_rng_int(g, 2, 3) : 1;
            d.dil_w = data_rng_int(g, 0, 3) == 0 ? data_rng_int(g, 2, 3) : 1;
        } else {
            d.groups = 1;
            d.c = data_rng_pick(g, sm90_c, (int)(sizeof sm90_c / sizeof sm90_c[0]));
            d.k = data_rng_pick(g, sm90_k, (int)(sizeof sm90_k / sizeof sm90_k[0]));
            d.h = data_rng_int(g, 1, 20);
            d.w = data_rng_int(g, 1, 20);
            d.r = data_rng_pick(g, sm90_f, 10);
            d.s = data_rng_int(g, 0, 4) ? d.r : data_rng_pick(g, sm90_f, 10);
            d.stride_h = data_rng_int(g, 0, 3) ? 1 : data_rng_int(g, 2, 4);
            d.stride_w = data_rng_int(g, 0, 3) ? d.stride_h : data_rng_int(g, 1, 4);
            d.dil_h = data_rng_int(g, 0, 5) ? 1 : 2;
            d.dil_w = data_rng_int(g, 0, 5) ? d.dil_h : 2;
        }
        if (data_rng_int(g, 0, 2) == 0) { /* "same"-style padding */
            d.pad_top = d.pad_bottom = (d.r - 1) * d.dil_h / 2;
            d.pad_left = d.pad_right = (d.s - 1) * d.dil_w / 2;
            if (d.pad_top > 3) d.pad_top = d.pad_bottom = 3;
            if (d.pad_left > 3) d.pad_left = d.pad_right = 3;
        } else {
            d.pad_top = data_rng_int(g, 0, 3);
            d.pad_bottom = data_rng_int(g, 0, 3);
            d.pad_left = data_rng_int(g, 0, 3);
            d.pad_right = data_rng_int(g, 0, 3);
        }
        d.x_dtype = d.w_dtype = data_rng_next(g) & 1 ? IGEMM_DTYPE_BF16 : IGEMM_DTYPE_F16;
        d.y_dtype = (igemm_dtype_t)data_rng_int(g, 0, 2);
        if (igemm_conv2d_validate(&d) != IGEMM_STATUS_SUCCESS) continue;
        int64_t p = 0, q = 0;
        (void)igemm_conv2d_output_dims(&d, &p, &q);
        const double macs = (double)d.n * p * q * d.k * d.r * d.s * (d.c / d.groups);
        if (macs > MAX_MACS) continue;
        *out = d;
        gen_epilogue(g, e);
        return 1;
    }
    return 0;
}

/* Which corners of the parameter space a run of the generator reached. */
typedef struct coverage {
    unsigned act, dtypes, feat;
} coverage_t;
enum {
    COV_GROUPED = 1u << 0, COV_DEPTHWISE = 1u << 1, COV_R11 = 1u << 2, COV_STRIDE5 = 1u << 3,
    COV_DIL = 1u << 4, COV_ASYM_PAD = 1u << 5, COV_C1 = 1u << 6, COV_K1 = 1u << 7, COV_C_ODD = 1u << 8,
    COV_C64 = 1u << 9, COV_SCALE = 1u << 10, COV_BIAS = 1u << 11, COV_RES = 1u << 12,
    COV_ALL = (1u << 13) - 1
};

static void cover(coverage_t *cv, const igemm_conv2d_desc_t *d, const igemm_epilogue_t *e)
{
    cv->act |= 1u << (int)e->activation;
    cv->dtypes |= 1u << ((int)d->x_dtype * 3 + (int)d->y_dtype);
    if (d->groups > 1 && d->groups < d->c) cv->feat |= COV_GROUPED;
    if (d->groups > 1 && d->groups == d->c) cv->feat |= COV_DEPTHWISE;
    if (d->r == 11 || d->s == 11) cv->feat |= COV_R11;
    if (d->stride_h > 4 || d->stride_w > 4) cv->feat |= COV_STRIDE5;
    if (d->dil_h > 1 || d->dil_w > 1) cv->feat |= COV_DIL;
    if (d->pad_top != d->pad_bottom || d->pad_left != d->pad_right) cv->feat |= COV_ASYM_PAD;
    if (d->c == 1) cv->feat |= COV_C1;
    if (d->k == 1) cv->feat |= COV_K1;
    if (d->c % 2 == 1 && d->c > 1) cv->feat |= COV_C_ODD;
    if (d->c % 64 == 0) cv->feat |= COV_C64;
    if (e->has_scale) cv->feat |= COV_SCALE;
    if (e->has_bias) cv->feat |= COV_BIAS;
    if (e->has_residual) cv->feat |= COV_RES;
}

/* Appends ",key=value" (or "key=value" to an empty buf). */
static void add_hint(char *buf, size_t n, const char *kv)
{
    const size_t used = strlen(buf);
    snprintf(buf + used, n - used, "%s%s", used ? "," : "", kv);
}

/* The sm90 run's hints for configuration i, in a cycle over the kernels (their text in buf; the
 * named kernel in *kernel). Where the hinted kernel stores y by TMA (ping-pong, pixels as N, split
 * in cluster) y takes the input's dtype, and pixels as N in ping-pong gets k <= 64, so the hints
 * apply to most configurations rather than being refused. */
static void sm90_hints_for(int i, data_rng_t *g, igemm_conv2d_desc_t *d, char *buf, size_t n, int *kernel)
{
    const igemm_conv2d_desc_t orig = *d;
    static const char *const coop_tiles[6] = {"tile=256x64", "tile=256x128", "tile=128x64",
                                              "tile=128x128", "tile=128x256", "tile=192x128,consumers=3"};
    char kv[64];
    buf[0] = '\0';
    *kernel = IGEMM_KERNEL_AUTO;
    if (d->c % 8 != 0) { /* (the general configurations mixed in): the stem and fold paths */
        const int which = (i / 4) % 3;
        if (which == 1) {
            *kernel = IGEMM_KERNEL_FOLD;
            add_hint(buf, n, "kernel=fold");
        } else if (which == 2) {
            *kernel = IGEMM_KERNEL_STEM_ROWS;
            add_hint(buf, n, "kernel=stem_rows,stem_prepass=1,grid=3");
        }
        if (i % 2 == 1) add_hint(buf, n, "fold_rows=64"); /* the most rows that fit: F > 1 */
    } else if (i % 7 == 3) { /* pixels as N in ping-pong (64 channels), on 2 CTAs, filter resident or not */
        *kernel = IGEMM_KERNEL_PIXELS_N_PINGPONG;
        add_hint(buf, n, (i / 7) % 2 ? "kernel=pixels_n_pingpong,grid=2,filter_resident=1"
                                     : "kernel=pixels_n_pingpong,grid=2,filter_resident=-1");
        d->y_dtype = d->x_dtype;
        if (d->k > 64) d->k = 8 * data_rng_int(g, 1, 8);
    } else if (i % 5 == 1) { /* pixels as N (128 channels per tile), a third on a 2-CTA grid */
        *kernel = IGEMM_KERNEL_PIXELS_N;
        add_hint(buf, n, (i / 5) % 3 == 1 ? "kernel=pixels_n,grid=2" : "kernel=pixels_n");
        d->y_dtype = d->x_dtype;
    } else if (i % 9 == 0 && (i / 18) % 2 == 1) { /* split in cluster */
        *kernel = IGEMM_KERNEL_SPLIT_CLUSTER;
        add_hint(buf, n, "kernel=split_cluster");
        d->y_dtype = d->x_dtype;
    } else if (i % 9 >= 1 && i % 9 <= 6) { /* every cooperative tile */
        *kernel = IGEMM_KERNEL_COOPERATIVE;
        add_hint(buf, n, "kernel=cooperative");
        add_hint(buf, n, coop_tiles[i % 9 - 1]);
    } else if (i % 9 >= 7 && (i / 9) % 3 == 2) { /* 64-row ping-pong tiles (64 x 128 / 256, filter resident) */
        *kernel = IGEMM_KERNEL_PINGPONG;
        snprintf(kv, sizeof kv, "kernel=pingpong,tile=64x%d,grid=%d", 128 << ((i / 27) % 2), i % 2 ? 3 : 2);
        add_hint(buf, n, kv);
        d->y_dtype = d->x_dtype;
    } else if (i % 9 >= 7) { /* ping-pong on a small grid (each consumer several tiles), resident or not */
        *kernel = IGEMM_KERNEL_PINGPONG;
        snprintf(kv, sizeof kv, "kernel=pingpong,tile=128x%d,grid=%d,filter_resident=%d", i % 9 == 7 ? 64 : 128,
                 i % 2 ? 3 : 2, (i / 9) % 2 ? 1 : -1);
        add_hint(buf, n, kv);
        d->y_dtype = d->x_dtype;
    }
    if (i % 4 == 2) add_hint(buf, n, "staging_boxes=2"); /* the residual's smallest staging ring */
    if (i % 8 == 6) add_hint(buf, n, "stages=3");
    if (i % 6 == 5) add_hint(buf, n, "pdl=1");
    if (i % 6 == 2) add_hint(buf, n, "pdl=-1");
    if (i % 10 == 7 && !strstr(buf, "grid=") && *kernel != IGEMM_KERNEL_SPLIT_CLUSTER) {
        snprintf(kv, sizeof kv, "grid=%d", (int)data_rng_int(g, 1, 6));
        add_hint(buf, n, kv);
    }
    if (igemm_conv2d_validate(d) != IGEMM_STATUS_SUCCESS) *d = orig; /* (a grouped conv's k stays) */
}

static void random_test(igemm_path_t path, int nconfigs, gen_mode_t mode, uint64_t seed_base)
{
    coverage_t cv = {0, 0, 0};
    const uint64_t seed = test_seed(seed_base);
    data_rng_t g = {seed};
    run_stats_t st;
    memset(&st, 0, sizeof st);
    int hinted = 0, hint_ran = 0, hint_refused = 0;
    const double t0 = now_s();
    for (int i = 0; i < nconfigs; i++) {
        igemm_conv2d_desc_t d;
        igemm_epilogue_t e;
        /* the sm90 run mixes in general configurations: they must be refused cleanly */
        const gen_mode_t m = mode == GEN_SM90 && i % 5 == 4 ? GEN_ANY : mode;
        if (!gen_config(&g, m, &d, &e)) {
            test_fail(__FILE__, __LINE__, "could not generate a configuration");
            return;
        }
        int rc;
        if (path == IGEMM_PATH_SM90) {
            char text[256];
            int kernel = 0;
            igemm_plan_hints_t h;
            sm90_hints_for(i, &g, &d, text, sizeof text, &kernel);
            cover(&cv, &d, &e);
            if (igemm_plan_hints_parse(text, &h) != IGEMM_STATUS_SUCCESS) {
                test_fail(__FILE__, __LINE__, "hints \"%s\": %s", text, igemm_last_error());
                return;
            }
            hinted += text[0] != '\0';
            /* hints that cannot apply to this shape are refused (NOT_SUPPORTED): then the
             * configuration runs on the planner's choice */
            rc = run_one(&d, &e, path, &h, kernel_says(kernel), &g, &st, 1);
            if (rc == 1 && text[0]) {
                hint_refused++;
                rc = run_one(&d, &e, path, NULL, NULL, &g, &st, 1);
            } else if (rc == 0 && text[0]) {
                hint_ran++;
            }
        } else {
            cover(&cv, &d, &e);
            rc = run_one(&d, &e, path, NULL, NULL, &g, &st, 0);
        }
        if (rc == 1) st.refused++;
        if (rc < 0) {
            test_fail(__FILE__, __LINE__, "stopping after a CUDA error (config %d)", i);
            break;
        }
        if (st.failed >= 10) {
            test_fail(__FILE__, __LINE__, "stopping after %d failing configs", st.failed);
            break;
        }
    }
    fprintf(stdout, "  random %-7s seed %llu: %d configs ran (general %d, sm90 %d, direct %d, memory %d), %d refused, "
            "%d failed, %lld elements, worst err/tol %.3f (f32 out %.3f), %.1fs\n",
            path_str(path), (unsigned long long)seed, st.ran[1] + st.ran[2] + st.ran[3] + st.ran[4], st.ran[1],
            st.ran[2], st.ran[3], st.ran[4], st.refused, st.failed, (long long)st.elems, st.worst, st.worst_f32, now_s() - t0);
    if (mode == GEN_ANY && nconfigs >= 300) {
        CHECK_MSG(cv.act == 0x7FFu, "activations covered: mask 0x%x", cv.act);
        CHECK_MSG(cv.dtypes == 0x3Fu, "dtype combinations covered: mask 0x%x", cv.dtypes);
        CHECK_MSG(cv.feat == COV_ALL, "features covered: mask 0x%x of 0x%x", cv.feat, (unsigned)COV_ALL);
    }
    if (path == IGEMM_PATH_SM90) {
        fprintf(stdout, "  random sm90 hints: %d configs hinted, %d ran under their hints, %d refused them\n", hinted,
                hint_ran, hint_refused);
        int dev = 0, major = 0, minor = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
        if (major == 9 && minor == 0) {
            CHECK_MSG(st.ran[2] >= nconfigs / 4, "sm_90 device but the sm90 path ran only %d of %d configs",
                      st.ran[2], nconfigs);
            /* the hints are chosen to fit most configurations: a planner that refuses most of
             * them no longer honours what they name */
            CHECK_MSG(hint_ran >= hinted / 2, "only %d of %d hinted configurations ran under their hints", hint_ran,
                      hinted);
        }
    }
}

TEST(gpu_random_auto)
{
    SKIP_WITHOUT_GPU();
    random_test(IGEMM_PATH_AUTO, 320, GEN_ANY, 0x1001);
}

TEST(gpu_random_general)
{
    SKIP_WITHOUT_GPU();
    random_test(IGEMM_PATH_GENERAL, 100, GEN_ANY, 0x2002);
}

TEST(gpu_random_direct)
{
    SKIP_WITHOUT_GPU();
    random_test(IGEMM_PATH_DIRECT, 100, GEN_ANY, 0x3003);
}

TEST(gpu_random_sm90)
{
    SKIP_WITHOUT_GPU();
    random_test(IGEMM_PATH_SM90, 240, GEN_SM90, 0x4004);
}

#endif /* IGEMM_HAVE_CUDA */
