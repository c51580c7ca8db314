/*
 * conv2d_fprop_bf16_wm2.cu — instances of the sm90 conv2d fprop kernel for bf16 inputs with
 * WM = 2 (tile rows 256): BN 64/128 x plain/general epilogue x TMA/direct
 * stores (see conv2d_fprop.cu for the algorithm). One translation unit per (dtype, WM) so the
 * instances compile in parallel.
 */
#include "conv2d_fprop_kernel.cuh"

SM90_DEFINE_PICK_WM2(igemm_sm90_pick_bf16_wm2, IGEMM_DTYPE_BF16)
