/*
 * plan_table.c — prints the planner's description of conv layers on a fake device description
 * (no GPU: the planner's heuristics only), one line per layer of a shapes CSV
 * (name,n,h,w,c,k,r,s,stride_h,stride_w,pad_h,pad_w,dil_h,dil_w[,groups]), or per GEMM of a GEMM
 * CSV (name,m,n,k: planned as the 1x1 conv igemm_gemm_plan_create maps it to).
 *   build: cc -std=c11 -O1 -Iinclude -Isrc -DIGEMM_HAVE_CUDA=1 -I$CUDA_HOME/include
 *          dev/probes/plan_table.c build/libigemm.a -L$CUDA_HOME/lib64 -lcudart -lcuda -lstdc++ -lm -ldl -lpthread
 *   run:   ./plan_table FILE.csv [sm_count [hints]]   (sm_count 132: H100 SXM / H200; hints as
 *          igemm_plan_hints_parse: "tile=128x128,split_k=2")
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "igemm.h"
#include "plan.h"
#include "../../tests/fake_device.h"

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s shapes.csv [sm_count]\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 2; }
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n' || !strncmp(line, "name", 4)) continue;
        char name[128];
        long v[14] = {0};
        v[13] = 1;
        int got = sscanf(line, "%127[^,],%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld", name, &v[0], &v[1],
                         &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10], &v[11], &v[12], &v[13]);
        igemm_conv2d_desc_t d = igemm_conv2d_desc_default();
        if (got == 4) { /* a GEMM line name,m,n,k: the 1x1 conv igemm_gemm_plan_create runs it as */
            d.n = 1; d.h = 1; d.w = v[0]; d.c = v[2]; d.k = v[1]; d.r = 1; d.s = 1;
        } else if (got < 14) {
            continue;
        } else {
            d.n = v[0]; d.h = v[1]; d.w = v[2]; d.c = v[3]; d.k = v[4]; d.r = v[5]; d.s = v[6];
            d.stride_h = v[7]; d.stride_w = v[8];
            d.pad_top = d.pad_bottom = v[9]; d.pad_left = d.pad_right = v[10];
            d.dil_h = v[11]; d.dil_w = v[12];
            d.groups = got >= 15 ? v[13] : 1;
        }
        igemm_epilogue_t e = igemm_epilogue_default();
        static struct igemm_plan plan;
        memset(&plan, 0, sizeof plan);
        if (igemm_problem_init(&d, &e, &plan.params) != IGEMM_STATUS_SUCCESS) {
            printf("%-28s invalid: %s\n", name, igemm_last_error());
            continue;
        }
        plan.dev = fake_device(FAKE_H100_SXM);
        if (argc > 2) plan.dev.sm_count = atoi(argv[2]);
        if (argc > 3 && igemm_hints_parse(argv[3], &plan.hints) != IGEMM_STATUS_SUCCESS) {
            printf("%s\n", igemm_last_error());
            return 2;
        }
        igemm_status_t st = igemm_planner_choose(&plan, IGEMM_PATH_AUTO);
        printf("%-28s %s\n", name, st == IGEMM_STATUS_SUCCESS ? plan.describe : igemm_last_error());
    }
    fclose(f);
    return 0;
}
