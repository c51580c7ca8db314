/*
 * step07_warp_specialized.cu — ladder step 7: warp specialisation. A producer warpgroup (one
 * thread issuing TMA, its registers given back) and a consumer warpgroup (the wgmma and the
 * accumulators) run their own loops over the 4-stage ring, coupled only by a `full` and an
 * `empty` mbarrier per stage: no CTA-wide barrier in the main loop any more (step 6 had one per
 * block). Persistent, grouped tile order as in step 6. The kernel: ladder_ws.cuh.
 */
#include "ladder_ws.cuh"

int main(int argc, char **argv)
{
    const lad_cfg_t cfg = {7, "warp specialised (4 stages)", 0, 0, 0, 128, 128, 128, 128, lad_ws_launch<128, 4, 1, 1>};
    return lad_main(&cfg, argc, argv);
}
