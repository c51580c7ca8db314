/*
 * step09_cluster_multicast.cu — ladder step 9: a 2-CTA cluster with TMA multicast (Hopper's
 * counterpart of Blackwell's cta_group::2). The two CTAs of a cluster compute vertically adjacent
 * tiles that share their B tile: each loads its own A and half of B (64 rows), multicast into both
 * CTAs' shared memory, so B is read from L2 once per pair. A stage is refilled only when the
 * consumers of both CTAs released it (remote mbarrier arrivals through mapa). The kernel:
 * ladder_ws.cuh.
 */
#include "ladder_ws.cuh"

int main(int argc, char **argv)
{
    const lad_cfg_t cfg = {9, "2-CTA cluster, B multicast", 0, 0, 0, 256, 128, 128, 64, lad_ws_launch<128, 6, 2, 1>};
    return lad_main(&cfg, argc, argv);
}
