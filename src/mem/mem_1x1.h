/*
 * mem_1x1.h — what the two 1x1 memory-bound families (skinny_gemm.cu: few rows; narrow_1x1.cu:
 * few channels) require alike of a problem before their own limits: no plan hints (they name sm90
 * settings), compute capability 8.0+ (mma.sync), a 1x1 filter of groups 1, c % 8 == 0 (16-byte
 * rows). Host only.
 */
#ifndef IGEMM_MEM_1X1_H
#define IGEMM_MEM_1X1_H

#include <stdio.h>
#include <string.h>

#include "../internal.h"

/* 1 if h sets no hint (all fields zero). */
static inline int mem_no_hints(const igemm_plan_hints_t *h)
{
    igemm_plan_hints_t none;
    memset(&none, 0, sizeof none);
    return memcmp(h, &none, sizeof none) == 0;
}

/* 1 if p passes the checks above on dev under h; else 0 with the reason in why. */
static inline int mem_1x1_supports(const igemm_conv_params_t *p, const igemm_device_info_t *dev,
                                   const igemm_plan_hints_t *h, char *why, size_t why_len)
{
    if (!mem_no_hints(h)) {
        if (why && why_len) snprintf(why, why_len, "plan hints name sm90 settings");
        return 0;
    }
    if (dev->cc_major < 8) {
        if (why && why_len)
            snprintf(why, why_len, "needs compute capability >= 8.0, device has %d.%d", dev->cc_major, dev->cc_minor);
        return 0;
    }
    if (p->r != 1 || p->s != 1 || p->groups != 1) {
        if (why && why_len)
            snprintf(why, why_len, "filter %lldx%lld, groups %lld: takes 1x1 filters, groups 1", (long long)p->r,
                     (long long)p->s, (long long)p->groups);
        return 0;
    }
    if (p->c % 8 != 0) {
        if (why && why_len) snprintf(why, why_len, "c = %lld: needs c %% 8 == 0 (16-byte rows)", (long long)p->c);
        return 0;
    }
    return 1;
}

#endif /* IGEMM_MEM_1X1_H */
