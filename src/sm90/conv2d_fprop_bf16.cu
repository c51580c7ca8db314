/*
 * conv2d_fprop_bf16.cu — instances of the sm90 conv2d fprop kernel for bf16 inputs (see
 * conv2d_fprop.cu for the algorithm): BN 64/128/256 x plain/general epilogue x TMA/direct
 * stores. Split from the host file so the instances compile in parallel.
 */
#include "conv2d_fprop_kernel.cuh"

SM90_DEFINE_PICK(igemm_sm90_pick_bf16, IGEMM_DTYPE_BF16)
