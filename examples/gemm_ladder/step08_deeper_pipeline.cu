/*
 * step08_deeper_pipeline.cu — ladder step 8: a deeper pipeline. Step 7's kernel with 6 stages
 * (192 KB of the 227 KB of shared memory) instead of 4: more TMA loads in flight hide more of
 * the memory latency and the producer's waits. The kernel: ladder_ws.cuh.
 */
#include "ladder_ws.cuh"

int main(int argc, char **argv)
{
    const lad_cfg_t cfg = {8, "deeper pipeline (6 stages)", 0, 0, 0, 128, 128, 128, 128, lad_ws_launch<128, 6, 1, 1>};
    return lad_main(&cfg, argc, argv);
}
