/*
 * dev/probes/placement_probe.c — does a layer's time depend on where its buffers lie?
 * (docs/decisions.md "r50-l4-slow-mode", S9-3, S9-6)
 *
 * One plan, NB separate allocations of each of x, w and y (pseudo-random bf16 data). For each
 * operand in turn, the run uses allocation i of that operand (i = 0 .. NB-1) and allocation 0
 * of the other two, and reports the median time of ITERS runs (CUDA events around each run;
 * L2 flushed before each by a 96 MB memset outside the events). A spread along one operand
 * and not the others names the operand whose placement matters.
 *   build: make -C dev/probes (against build/libigemm.so: `make lib` first)
 *   usage: build/probes/placement_probe [n h w c k r s stride pad] (default r50_l4_3x3_512);
 *   PROBE_PREFREE_MB=n allocates, touches and frees n MB before the buffers (S9-6);
 *   PROBE_HINTS="key=value,..." plans the layer with those (experimental) plan hints, e.g.
 *   PROBE_HINTS="kernel=pingpong,tile=128x64" (igemm_plan_hints_parse; see include/igemm.h)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "igemm.h"
#include "probe_util.h"

#define NB 6
#define ITERS 60

static int cmp_f(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
    int64_t v[9] = {32, 7, 7, 512, 512, 3, 3, 1, 1}; /* n h w c k r s stride pad */
    for (int i = 0; i < 9 && i + 1 < argc; i++) v[i] = atoll(argv[i + 1]);
    d.n = v[0], d.h = v[1], d.w = v[2], d.c = v[3], d.k = v[4], d.r = v[5], d.s = v[6];
    d.stride_h = d.stride_w = v[7];
    d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = v[8];
    d.x_dtype = d.w_dtype = d.y_dtype = IGEMM_DTYPE_BF16;
    int64_t xe = 0, we = 0, ye = 0;
    igemm_plan_t *plan = NULL;
    igemm_plan_hints_t hints = igemm_plan_hints_default();
    igemm_plan_options_t opts = igemm_plan_options_default();
    if (igemm_plan_hints_parse(getenv("PROBE_HINTS"), &hints) != IGEMM_STATUS_SUCCESS) {
        fprintf(stderr, "PROBE_HINTS: %s\n", igemm_last_error());
        return 1;
    }
    opts.hints = &hints;
    if (igemm_conv2d_sizes(&d, &xe, &we, &ye) != IGEMM_STATUS_SUCCESS ||
        igemm_plan_create(&plan, &d, NULL, &opts) != IGEMM_STATUS_SUCCESS) {
        fprintf(stderr, "plan: %s\n", igemm_last_error());
        return 1;
    }
    printf("plan: %.160s\n", igemm_plan_describe(plan));
    void *x[NB], *w[NB], *y[NB], *flush = NULL;
    { /* PROBE_PREFREE_MB=n: allocate and free n MB first (the state a large earlier layer leaves) */
        const char *pf = getenv("PROBE_PREFREE_MB");
        const char *pn = getenv("PROBE_PREFREE_N"); /* as PROBE_PREFREE_N buffers of 1/n each, with a
                                                      small one between (a bench layer's sets) */
        const int nb = pn && atoi(pn) > 0 && atoi(pn) <= 64 ? atoi(pn) : 1;
        if (pf && atoi(pf) > 0) {
            void *big[2 * 64];
            const size_t each = ((size_t)atoi(pf) << 20) / (size_t)nb;
            for (int i = 0; i < nb; i++) {
                CK(cudaMalloc(&big[2 * i], each));
                CK(cudaMemset(big[2 * i], 1, each));
                CK(cudaMalloc(&big[2 * i + 1], 75 * 1024));
            }
            for (int i = 0; i < 2 * nb; i++) CK(cudaFree(big[i]));
        }
    }
    for (int i = 0; i < NB; i++) {
        x[i] = alloc_random((size_t)xe, 11 + i);
        w[i] = alloc_random((size_t)we, 101 + i);
        y[i] = alloc_random((size_t)ye, 1001 + i);
        void *gap = NULL; /* a gap between the sets: different offsets and pages */
        CK(cudaMalloc(&gap, (size_t)(i + 1) * 3 * 1024 * 1024 + 65536 * (size_t)i));
    }
    const size_t flush_bytes = (size_t)96 << 20;
    CK(cudaMalloc(&flush, flush_bytes));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float t[ITERS];
    static const char *const names[3] = {"x", "w", "y"};
    for (int op = 0; op < 3; op++) {
        printf("%s:", names[op]);
        for (int i = 0; i < NB; i++) {
            void *xp = op == 0 ? x[i] : x[0], *wp = op == 1 ? w[i] : w[0], *yp = op == 2 ? y[i] : y[0];
            for (int it = -5; it < ITERS; it++) {
                CK(cudaMemsetAsync(flush, it & 0xFF, flush_bytes, 0));
                CK(cudaEventRecord(e0, 0));
                if (igemm_plan_run(plan, xp, wp, NULL, NULL, NULL, yp, NULL) != IGEMM_STATUS_SUCCESS) {
                    fprintf(stderr, "run: %s\n", igemm_last_error());
                    return 1;
                }
                CK(cudaEventRecord(e1, 0));
                CK(cudaEventSynchronize(e1));
                if (it >= 0) CK(cudaEventElapsedTime(&t[it], e0, e1));
            }
            qsort(t, ITERS, sizeof t[0], cmp_f);
            printf(" %7.2f", 1000.0f * t[ITERS / 2]);
        }
        printf("  (us, median of %d, allocation 0..%d of %s)\n", ITERS, NB - 1, names[op]);
    }
    igemm_plan_destroy(plan);
    return 0;
}
