/*
 * conv2d_fprop_bf16_nc3.cu — instances of the sm90 conv2d fprop kernel for bf16 inputs with
 * 3 consumer warpgroups (512 threads) and WM = 1: tile 192 x 128 x plain/general epilogue x
 * TMA/direct stores (see conv2d_fprop.cu for the algorithm). The 192-row tile lets layers
 * whose 128- or 256-row tiles leave SMs idle in their one wave fill the GPU (M = 6272:
 * 33 M-tiles x 4 N-tiles = 132 CTAs).
 */
#include "conv2d_fprop_kernel.cuh"

SM90_DEFINE_PICK_NC3(igemm_sm90_pick_bf16_nc3, IGEMM_DTYPE_BF16)
