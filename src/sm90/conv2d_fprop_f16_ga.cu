/*
 * conv2d_fprop_f16_ga.cu — gathered-A ping-pong instances of the sm90 conv2d fprop kernel for
 * f16 inputs (GA): the producer warpgroup builds each A stage from a 4-channel copy of x with
 * one 8-byte cp.async per filter tap (the stem path for c <= 4, conv2d_fold.cu); the filter
 * by TMA, the consumers and epilogue as in conv2d_fprop_f16_pp.cu (128 x {64, 128} tiles).
 */
#include "conv2d_fprop_kernel.cuh"

SM90_DEFINE_PICK_GA(igemm_sm90_pick_f16_ga, IGEMM_DTYPE_F16)
