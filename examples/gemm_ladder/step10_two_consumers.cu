/*
 * step10_two_consumers.cu — ladder step 10: two consumer warpgroups. The tile grows to 128 x 256;
 * each consumer warpgroup owns 64 of its rows (wgmma m64n256k16, 128 fp32 accumulators per
 * thread, 232 registers by setmaxnreg), so each B tile feeds two warpgroups' MMAs and the wgmma
 * are twice as wide. With step 9's 2-CTA cluster (each CTA loads 128 of B's 256 rows, multicast)
 * and a 4-stage ring of 48 KB stages. The kernel: ladder_ws.cuh.
 */
#include "ladder_ws.cuh"

int main(int argc, char **argv)
{
    const lad_cfg_t cfg = {10, "two consumers, 128x256, cluster 2", 0, 0, 0, 256, 256, 128, 128,
                           lad_ws_launch<256, 4, 2, 2>};
    return lad_main(&cfg, argc, argv);
}
