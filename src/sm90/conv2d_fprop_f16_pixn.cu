/*
 * conv2d_fprop_f16_pixn.cu — "pixels as N" instances of the sm90 conv2d fprop kernel for f16
 * inputs: a tile of TP = 80, 96 or 208 output pixels x 128 channels, each of the 2 consumer
 * warpgroups multiplying its 64 filter rows (wgmma A) by the TP pixel rows (wgmma B, N = TP),
 * epilogue through stmatrix/ldmatrix .trans; TMA stores only. For one-wave layers whose pixel
 * count fits no multiple of 64 well (see conv2d_fprop.cu).
 */
#include "conv2d_fprop_kernel.cuh"

SM90_DEFINE_PICK_PIXN(igemm_sm90_pick_f16_pixn, IGEMM_DTYPE_F16)
