/*
 * conv2d_stem_f16.cu — the sm90 stem kernel's instances for f16 inputs (tiles of 112 or 128
 * pixels, 1 or 2 k16 steps per filter row, epilogue kinds 0/1/2). See conv2d_stem.cu.
 */
#include "conv2d_stem_kernel.cuh"

SM90_DEFINE_PICK_STEM(igemm_sm90_pick_f16_stem, IGEMM_DTYPE_F16)
