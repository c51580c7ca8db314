/*
 * conv2d_fprop_bf16_pxhalo.cu — halo-row instances of the sm90 conv2d fprop kernel for bf16
 * inputs: "pixels as N" ping-pong with the filter resident (as conv2d_fprop_bf16_pxppbr.cu), for a
 * 3x3, stride-1 conv of 64 channels whose output rows split into tiles of TP = 112 (or 56)
 * pixels. A ring stage holds one input row of the tile with its one-pixel halo (TP + 2 pixels x
 * 64 channels, one tiled TMA box, zero fill past the image), and the filter row's three taps read
 * it as the wgmma B operand (m64nTPk16) shifted by 0, 1 and 2 pixel rows: 3 loads per tile
 * instead of 9 im2col loads, and 3 k-blocks of MMA work per stage. Also tiles of two whole 56-pixel
 * rows (4 input rows per 112 pixels, each output row's taps read from input rows o .. o + 2). Two
 * consumers in ping-pong, or (fused, 112-pixel tiles) three taking the tiles in turn. TMA stores
 * only.
 * See conv2d_fprop.cu ("HALO ROWS").
 */
#include "conv2d_fprop_kernel.cuh"

SM90_DEFINE_PICK_PXHALO(igemm_sm90_pick_bf16_pxhalo, IGEMM_DTYPE_BF16)
