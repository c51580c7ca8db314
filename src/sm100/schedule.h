/*
 * schedule.h — the tile order of the Blackwell kernel's persistent scheduler (the seeds' CLC
 * scheduler: cluster launch control hands a CTA the id of a cluster that has not started, and
 * the cluster's CTAs compute the tiles of that id). A work unit is a cluster's block of
 * cluster_m x cluster_n tiles; units are rasterised in groups of `swizzle` unit rows, column by
 * column inside a group (CTAs that run together share their A rows and B columns in L2), and CTA
 * (rx, ry) of the cluster takes tile (unit_m * cluster_m + rx, unit_n * cluster_n + ry).
 * Plain C, tested on the CPU (tests/test_sm100.c); the kernel calls the same function.
 */
#ifndef IGEMM_SM100_SCHEDULE_H
#define IGEMM_SM100_SCHEDULE_H

#include <stdint.h>

#include "tcgen05_desc.h" /* IGEMM_HD */

/* Units (clusters of tiles) of a tiles_m x tiles_n grid. */
static inline IGEMM_HD int64_t igemm_sm100_units(int64_t tiles_m, int64_t tiles_n, int cluster_m, int cluster_n)
{
    return ((tiles_m + cluster_m - 1) / cluster_m) * ((tiles_n + cluster_n - 1) / cluster_n);
}

/* The tile of CTA (rx, ry) of the cluster that runs unit `unit`; *m may be >= tiles_m (or *n >=
 * tiles_n) at the grid's edge, where the cluster's extra CTAs have no tile (the caller skips). */
static inline IGEMM_HD void igemm_sm100_tile_of(int64_t unit, int64_t tiles_m, int64_t tiles_n, int cluster_m,
                                                int cluster_n, int swizzle, int rx, int ry, int64_t *m, int64_t *n)
{
    const int64_t um = (tiles_m + cluster_m - 1) / cluster_m, un = (tiles_n + cluster_n - 1) / cluster_n;
    const int64_t g = swizzle > 0 ? swizzle : 1, per_group = g * un, group = unit / per_group;
    const int64_t first = group * g, gs = um - first < g ? um - first : g, r = unit - group * per_group;
    const int64_t unit_m = first + r % gs, unit_n = r / gs;
    *m = unit_m * cluster_m + rx;
    *n = unit_n * cluster_n + ry;
}

#endif /* IGEMM_SM100_SCHEDULE_H */
