/*
 * conv2d_fprop_bf16_pp.cu — ping-pong instances of the sm90 conv2d fprop kernel for bf16 inputs:
 * 2 consumer warpgroups that take whole 128 x {64, 128} tiles in turn (WM = 2), so one
 * consumer's epilogue runs while the other's mainloop keeps the tensor cores busy; TMA stores
 * only (see conv2d_fprop.cu for the algorithm).
 */
#include "conv2d_fprop_kernel.cuh"

SM90_DEFINE_PICK_PP(igemm_sm90_pick_bf16_pp, IGEMM_DTYPE_BF16)
