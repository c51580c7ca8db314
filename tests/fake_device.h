/*
 * fake_device.h — device descriptions without a GPU, for the planner's CPU tests (test_heuristics.c,
 * test_skinny.c) and dev/probes/plan_table.c: the planner's heuristics only read these fields.
 */
#ifndef IGEMM_TEST_FAKE_DEVICE_H
#define IGEMM_TEST_FAKE_DEVICE_H

#include <stdio.h>
#include <string.h>

#include "device.h"
#include "plan.h"

enum { FAKE_H100_SXM, FAKE_H100_PCIE, FAKE_H100_OLD_DRIVER, FAKE_A100, FAKE_B200 };

/* FAKE_H100_SXM: 132 SMs (H100 SXM, H200); FAKE_H100_PCIE: 114 SMs; FAKE_H100_OLD_DRIVER: a CUDA
 * 12.2 driver (no PDL in graphs); FAKE_A100: sm_80, 108 SMs; FAKE_B200: sm_100, 148 SMs. */
static inline igemm_device_info_t fake_device(int which)
{
    igemm_device_info_t d;
    memset(&d, 0, sizeof d);
    d.cc_major = 9;
    d.cc_minor = 0;
    d.sm_count = 132;
    d.smem_optin_per_block = 232448;
    d.l2_bytes = 50 << 20;
    d.driver_version = 12080;
    snprintf(d.name, sizeof d.name, "fake H100 SXM");
    if (which == FAKE_H100_PCIE) {
        d.sm_count = 114;
        snprintf(d.name, sizeof d.name, "fake H100 PCIe");
    } else if (which == FAKE_H100_OLD_DRIVER) {
        d.driver_version = 12020;
        snprintf(d.name, sizeof d.name, "fake H100 SXM, driver 12.2");
    } else if (which == FAKE_A100) {
        d.cc_major = 8;
        d.sm_count = 108;
        d.smem_optin_per_block = 166912;
        d.l2_bytes = 40 << 20;
        snprintf(d.name, sizeof d.name, "fake A100");
    } else if (which == FAKE_B200) {
        d.cc_major = 10;
        d.sm_count = 148;
        d.l2_bytes = 126 << 20;
        snprintf(d.name, sizeof d.name, "fake B200");
    }
    return d;
}

/* Plans d with epilogue epi (NULL: the identity) on fake device `which` along path under the hints
 * text (NULL: none), by the planner alone (no GPU is touched, except by a family's first-use
 * self-check). Returns the status; *msg is the description or the error (valid until the next
 * call: a static plan, or the thread's message). */
static inline igemm_status_t fake_planner_choose(const igemm_conv2d_desc_t *d, const igemm_epilogue_t *epi, int which,
                                                 igemm_path_t path, const char *hints, const char **msg)
{
    static struct igemm_plan plan; /* (large: the description buffer, the families' scratch) */
    memset(&plan, 0, sizeof plan);
    *msg = "problem or hints refused";
    if (igemm_problem_init(d, epi, &plan.params) != IGEMM_STATUS_SUCCESS ||
        (hints && igemm_plan_hints_parse(hints, &plan.hints) != IGEMM_STATUS_SUCCESS))
        return IGEMM_STATUS_INVALID_VALUE;
    plan.dev = fake_device(which);
    const igemm_status_t st = igemm_planner_choose(&plan, path);
    *msg = st == IGEMM_STATUS_SUCCESS ? plan.describe : igemm_last_error();
    return st;
}

#endif /* IGEMM_TEST_FAKE_DEVICE_H */
