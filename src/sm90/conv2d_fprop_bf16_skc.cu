/*
 * conv2d_fprop_bf16_skc.cu — split-in-cluster instances of the sm90 conv2d fprop kernel for bf16
 * inputs: a 2-CTA cluster per 128 x 128 tile, each CTA running half of the tile's k-blocks (two
 * 64-row consumer warpgroups, m64n128k16), the partial tiles exchanged through distributed
 * shared memory (st.async with mbarrier complete_tx) so that each CTA finishes 64 of the columns;
 * TMA stores only. For one-wave layers of few tiles, where a 128 x 64 tile per SM leaves the
 * tensor cores under-fed (see conv2d_fprop.cu, "SPLIT IN CLUSTER").
 */
#include "conv2d_fprop_kernel.cuh"

SM90_DEFINE_PICK_SKC(igemm_sm90_pick_bf16_skc, IGEMM_DTYPE_BF16)
