/*
 * conv2d_fprop_f16_pxppbr.cu — "pixels as N" ping-pong instances of the sm90 conv2d fprop kernel
 * for f16 inputs, the filter tiles of every k-block resident in shared memory (BRES): a tile of
 * TP = 128 or 256 output pixels x 64
 * channels, each of the 2 consumer warpgroups taking whole tiles in turn (mainloops in turn,
 * one's epilogue under the other's mainloop) and multiplying the 64 filter rows (wgmma A) by
 * the TP pixel rows (wgmma B, m64nTPk16). For layers of 64 output channels, where a 128 x 64
 * tile's m64n64k16 steps read 4 KB of shared memory per 32 tensor-core cycles (the SM's whole
 * shared-memory bandwidth); m64n128k16 reads 6 KB per 64. Epilogue through stmatrix/ldmatrix
 * .trans into one [pixel][64 channel] staging box per consumer, the residual TMA-loaded into
 * that box; TMA stores only. See conv2d_fprop.cu.
 */
#include "conv2d_fprop_kernel.cuh"

SM90_DEFINE_PICK_PXPP(igemm_sm90_pick_f16_pxppbr, IGEMM_DTYPE_F16, true)
