/*
 * conv2d_fprop_bf16_ppbr.cu — filter-resident ping-pong instances of the sm90 conv2d fprop kernel
 * for bf16 inputs: as conv2d_fprop_bf16_pp.cu, with the filter tiles of every k-block loaded
 * once per CTA into k_iters shared-memory slots (BRES; see conv2d_fprop.cu for the algorithm).
 */
#include "conv2d_fprop_kernel.cuh"

SM90_DEFINE_PICK_PPBR(igemm_sm90_pick_bf16_ppbr, IGEMM_DTYPE_BF16)
