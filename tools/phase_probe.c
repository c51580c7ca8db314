/*
 * tools/phase_probe.c — where the time of one sm90 launch goes, phase by phase (docs/perf.md S12-5).
 *
 * Needs the diagnostics build of the library (-DIGEMM_SM90_PHASE_PROBE: CTA 0 of each sm90
 * launch records clock64() at its phases into a buffer set by igemm_sm90_probe_set):
 *   NVCCFLAGS="-O3 -DIGEMM_SM90_PHASE_PROBE" make BUILD=build_probe HAVE_CUDA=1 all
 *   gcc -O2 -std=c11 -Iinclude tools/phase_probe.c -Lbuild_probe -ligemm -L$CUDA_HOME/lib64 -lcudart \
 *       -Wl,-rpath,$PWD/build_probe -o build_probe/phase_probe
 *   usage: build_probe/phase_probe [n h w c k r s stride pad [fused]] (default r50_l4_3x3_512);
 *   PROBE_NOFLUSH=1 leaves L2 warm (the kernel's code and operands stay there between runs);
 *   TRACE=1 prints the last run's per-tile trace of CTA 0 (docs/perf.md S16-3); CHUNKS=1 its consumer 0's
 *   cooperative epilogue chunk by chunk (S17-5); ALLCTA=1 the spread
 *   of every CTA's entry and exit, ALLCTA=2 also each CTA's SM and exit (S16-12, S16-16)
 * Each of ITERS runs follows a 96 MB memset (L2 flushed) and is timed with CUDA events; the
 * median of every phase is printed: entry -> barriers set up -> first TMA issued (producer) ->
 * first stage landed (consumer 0) -> mainloop done -> consumer 0's first epilogue: residual
 * ready, values in shared memory, visible to the TMA -> epilogue done -> stores read (exit), in
 * microseconds from CTA 0's first instruction (clock64 at the device's clock rate), and CTA 0's
 * %globaltimer span against the event-timed launch.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "igemm.h"
#include "probe_util.h"

void igemm_sm90_probe_set(long long *dev_buf); /* the diagnostics build's hook */

#define ITERS 41
/* the probe buffer's layout (as SM90_TRACE_* and SM90_CTA_BASE in conv2d_fprop_kernel.cuh) */
#define TRACE_BASE 32   /* tile j's event k at TRACE_BASE + TRACE_EV * j + k */
#define TRACE_TILES 64
#define TRACE_EV 8
#define CHUNK_BASE 576  /* tile j's chunk ch event k at CHUNK_BASE + 16 j + 4 ch + k (SM90_CHUNK_BASE) */
#define CTA_BASE 1024   /* CTA c's entry / exit at CTA_BASE + 2 c + 0 / 1, its SM at CTA_BASE + 1024 + c */
#define CTA_MAX 512

static int cmp_d(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
    int64_t v[10] = {32, 7, 7, 512, 512, 3, 3, 1, 1, 0}; /* n h w c k r s stride pad fused */
    for (int i = 0; i < 10 && i + 1 < argc; i++) v[i] = atoll(argv[i + 1]);
    d.n = v[0], d.h = v[1], d.w = v[2], d.c = v[3], d.k = v[4], d.r = v[5], d.s = v[6];
    d.stride_h = d.stride_w = v[7];
    d.pad_top = d.pad_bottom = d.pad_left = d.pad_right = v[8];
    d.x_dtype = d.w_dtype = d.y_dtype = IGEMM_DTYPE_BF16;
    igemm_epilogue_t e = igemm_epilogue_default();
    if (v[9]) {
        e.has_bias = e.has_residual = 1;
        e.beta = 1.0f;
        e.activation = IGEMM_ACT_RELU;
    }
    int64_t xe = 0, we = 0, ye = 0;
    igemm_plan_t *plan = NULL;
    if (igemm_conv2d_sizes(&d, &xe, &we, &ye) != IGEMM_STATUS_SUCCESS ||
        igemm_plan_create(&plan, &d, &e, NULL) != IGEMM_STATUS_SUCCESS) {
        fprintf(stderr, "plan: %s\n", igemm_last_error());
        return 1;
    }
    printf("plan: %.200s\n", igemm_plan_describe(plan));
    void *x = alloc_random((size_t)xe, 11), *w = alloc_random((size_t)we, 101), *y = alloc_random((size_t)ye, 1001);
    void *res = v[9] ? alloc_random((size_t)ye, 7) : NULL;
    float *bias = NULL;
    CK(cudaMalloc((void **)&bias, (size_t)d.k * sizeof(float)));
    CK(cudaMemset(bias, 0, (size_t)d.k * sizeof(float)));
    long long *probe = NULL, hp[CTA_BASE + 1024 + CTA_MAX];
    CK(cudaMalloc((void **)&probe, sizeof hp));
    igemm_sm90_probe_set(probe);
    void *flush = NULL;
    const size_t flush_bytes = (size_t)96 << 20;
    CK(cudaMalloc(&flush, flush_bytes));
    int khz = 0;
    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    static const char *const names[] = {"tensormaps prefetched", "barriers initialised", "fence.mbarrier_init", "barriers set up",
                                        "griddepcontrol.wait", "producer: setmaxnreg", "producer: unit decoded", "first TMA issued",
                                        "first stage landed", "mainloop done", "epi: residual ready",
                                        "epi: values in smem", "epi: smem visible", "epilogue issued",
                                        "stores read (exit)"};
    static const int slot[] = {12, 10, 11, 2, 3, 13, 14, 4, 5, 6, 15, 16, 17, 7, 8};
    enum { NPH = 15 };
    double ph[NPH][ITERS], ev[ITERS], gt[ITERS];
    for (int it = -5; it < ITERS; it++) {
        CK(cudaMemsetAsync(probe, 0, sizeof hp, 0));
        if (!getenv("PROBE_NOFLUSH")) CK(cudaMemsetAsync(flush, it & 0xFF, flush_bytes, 0));
        CK(cudaEventRecord(e0, 0));
        if (igemm_plan_run(plan, x, w, NULL, v[9] ? bias : NULL, res, y, NULL) != IGEMM_STATUS_SUCCESS) {
            fprintf(stderr, "run: %s\n", igemm_last_error());
            return 1;
        }
        CK(cudaEventRecord(e1, 0));
        CK(cudaEventSynchronize(e1));
        CK(cudaMemcpy(hp, probe, sizeof hp, cudaMemcpyDeviceToHost));
        if (it < 0) continue;
        float ms = 0.0f;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        ev[it] = 1000.0 * ms;
        gt[it] = (double)(hp[9] - hp[1]) / 1000.0;
        for (int k = 0; k < NPH; k++) ph[k][it] = hp[slot[k]] ? (double)(hp[slot[k]] - hp[0]) / (khz / 1000.0) : -1.0;
    }
    if (getenv("TRACE")) { /* the last run's per-tile trace of CTA 0 (us after entry) */
        static const char *const ev_names[TRACE_EV] = {"A issued", "res issued", "turn", "row0 landed", "ml issued",
                                                "mma done", "res ready", "store issued"};
        printf("trace (CTA 0, last run; us after entry):\n  tile");
        for (int k = 0; k < TRACE_EV; k++) printf(" %12s", ev_names[k]);
        printf("\n");
        for (int j = 0; j < TRACE_TILES; j++) {
            const long long *t = hp + TRACE_BASE + TRACE_EV * j;
            int any = 0;
            for (int k = 0; k < TRACE_EV; k++) any |= t[k] != 0;
            if (!any) continue;
            printf("  %4d", j);
            for (int k = 0; k < TRACE_EV; k++) {
                if (t[k]) printf(" %12.3f", (double)(t[k] - hp[0]) / (khz / 1000.0));
                else printf(" %12s", "-");
            }
            printf("\n");
        }
    }
    if (getenv("CHUNKS")) { /* the last run's per-chunk epilogue trace of CTA 0's consumer 0 (us after entry) */
        printf("chunks (CTA 0, consumer 0, last run; us after entry): residual landed / box free / store issued\n");
        for (int j = 0; j < 4; j++) {
            const long long *t = hp + CHUNK_BASE + 16 * j;
            int any = 0;
            for (int k = 0; k < 16; k++) any |= t[k] != 0;
            if (!any) continue;
            printf("  tile %d:", j);
            for (int ch = 0; ch < 4; ch++) {
                printf("  ch%d", ch);
                for (int k = 0; k < 3; k++) {
                    if (t[4 * ch + k]) printf(" %.3f", (double)(t[4 * ch + k] - hp[0]) / (khz / 1000.0));
                    else printf(" -");
                }
            }
            printf("\n");
        }
    }
    if (getenv("ALLCTA")) { /* the last run's per-CTA entry and exit (%globaltimer), us after the first entry */
        const long long *ce = hp + CTA_BASE, *sm = hp + CTA_BASE + 1024;
        long long t0 = 0;
        int n = 0;
        for (int c = 0; c < CTA_MAX; c++)
            if (ce[2 * c] && (t0 == 0 || ce[2 * c] < t0)) t0 = ce[2 * c];
        double ent[CTA_MAX], ex[CTA_MAX];
        for (int c = 0; c < CTA_MAX; c++)
            if (ce[2 * c] && ce[2 * c + 1]) {
                ent[n] = (double)(ce[2 * c] - t0) / 1000.0;
                ex[n] = (double)(ce[2 * c + 1] - t0) / 1000.0;
                n++;
            }
        if (n > 0) {
            qsort(ent, (size_t)n, sizeof ent[0], cmp_d);
            qsort(ex, (size_t)n, sizeof ex[0], cmp_d);
            printf("CTAs %d (last run): entry us min %.2f median %.2f max %.2f; exit us min %.2f p10 %.2f median %.2f "
                   "p90 %.2f max %.2f\n",
                   n, ent[0], ent[n / 2], ent[n - 1], ex[0], ex[n / 10], ex[n / 2], ex[(9 * n) / 10], ex[n - 1]);
            if (atoi(getenv("ALLCTA")) == 2) /* each CTA: block, SM, exit */
                for (int c = 0; c < CTA_MAX; c++)
                    if (ce[2 * c] && ce[2 * c + 1])
                        printf("  cta %3d sm %3lld exit %.2f\n", c, sm[c], (double)(ce[2 * c + 1] - t0) / 1000.0);
        }
    }
    qsort(ev, ITERS, sizeof ev[0], cmp_d);
    qsort(gt, ITERS, sizeof gt[0], cmp_d);
    printf("event-timed %.2f us, CTA 0 entry to exit (globaltimer) %.2f us; CTA 0, us after entry at %d MHz:\n",
           ev[ITERS / 2], gt[ITERS / 2], khz / 1000);
    for (int k = 0; k < NPH; k++) {
        qsort(ph[k], ITERS, sizeof ph[k][0], cmp_d);
        printf("  %-22s %7.2f  (min %.2f, max %.2f)\n", names[k], ph[k][ITERS / 2], ph[k][0], ph[k][ITERS - 1]);
    }
    igemm_plan_destroy(plan);
    return 0;
}
