/*
 * selfcheck.h — the first-use self-check of a family that has never run on hardware the project
 * has (the Blackwell family: docs/sm100.md). Before the planner may give such a family a problem
 * on a device, the family's own cases (igemm_family_t.self_check_cases: small problems covering
 * each of its variants) run on that device through the family's configure() and run() and through
 * the direct path, and every output must match; on a mismatch, a CUDA error or a device the check
 * cannot run on, the family refuses every problem on that device for the rest of the process and
 * the planner's description says why. Run at plan creation (never in run()), once per device and
 * process, under a lock, in a CUDA context of its own on the device (a kernel that faults leaves
 * its sticky error there, not in the caller's context).
 */
#ifndef IGEMM_SELFCHECK_H
#define IGEMM_SELFCHECK_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Returns 1 if family f (which has self_check_cases) passed its self-check on device dev, running
 * the check now if this process has not run it on dev yet; else 0 with why ("its first-use
 * self-check on <device> failed: case 2 (...): 17 of 5120 outputs wrong, worst y[4711] = ...").
 * hints->self_check == -1 makes it fail without running (tests show the fallback that way; not
 * remembered). Allocates and synchronises on dev (plan creation only). */
int igemm_selfcheck(const igemm_family_t *f, const igemm_device_info_t *dev, const igemm_plan_hints_t *hints,
                    char *why, size_t why_len);

/* The seconds after which a case's kernel counts as hung (default 10; <= 0 restores it): the
 * check then refuses the family and leaves the kernel running in its own context. For tests. */
void igemm_selfcheck_set_hang_seconds(int seconds);

#ifdef __cplusplus
}
#endif

#endif /* IGEMM_SELFCHECK_H */
