/*
 * tma.cuh — Tensor Memory Accelerator bulk tensor copies (PTX cp.async.bulk.tensor, sm_90).
 * One wrapper per instruction form, named after it. `tmap` is the generic address of a
 * CUtensorMap in param/const/global space (e.g. &a `const __grid_constant__ CUtensorMap`
 * kernel parameter); `dst` and `bar` are shared-state-space addresses. Coordinates are
 * innermost dimension first, in elements, signed 32-bit; out-of-bounds elements are filled
 * (zero with CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) and still count toward complete_tx bytes.
 */
#ifndef IGEMM_PTX_TMA_CUH
#define IGEMM_PTX_TMA_CUH

#include <stdint.h>

/* cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: loads the
 * tensor map's box at {c0, c1, c2, c3} into dst and signals its byte count on bar. */
static __device__ __forceinline__ void ptx_cp_async_bulk_tensor_4d_tile(uint32_t dst, const void *tmap, uint32_t bar,
                                                                        int32_t c0, int32_t c1, int32_t c2, int32_t c3)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)tmap), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
}

/* cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster:
 * loads the tensor map's box at {c0, c1, c2, c3} into shared address dst of every CTA of the
 * cluster whose rank bit is set in cta_mask, and signals the byte count on the mbarrier at
 * shared address bar of each of those CTAs (dst and bar: the same offsets in every CTA). */
static __device__ __forceinline__ void ptx_cp_async_bulk_tensor_4d_tile_multicast(uint32_t dst, const void *tmap,
                                                                                  uint32_t bar, int32_t c0, int32_t c1,
                                                                                  int32_t c2, int32_t c3,
                                                                                  uint16_t cta_mask)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%3, %4, %5, %6}], [%2], %7;\n" ::"r"(dst),
                 "l"((uint64_t)tmap), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "h"(cta_mask)
                 : "memory");
}

/* cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes: im2col
 * load from an NHWC tensor map. Coordinates {c, w, h, n}: c and n are start offsets; (w, h) is
 * the filter-base position of the first pixel (inside the map's bounding box); the 16-bit
 * im2col offsets {off_w, off_h} (range [0, 255] for 4-D) are added to every pixel's (w, h).
 * Loads Pixels-per-Column pixels x Channels-per-Pixel channels, walking w (by the traversal
 * stride) then h then n across the bounding box. */
static __device__ __forceinline__ void ptx_cp_async_bulk_tensor_4d_im2col(uint32_t dst, const void *tmap, uint32_t bar,
                                                                          int32_t c, int32_t w, int32_t h, int32_t n,
                                                                          uint16_t off_w, uint16_t off_h)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5, %6}], [%2], {%7, %8};\n" ::"r"(dst),
                 "l"((uint64_t)tmap), "r"(bar), "r"(c), "r"(w), "r"(h), "r"(n), "h"(off_w), "h"(off_h)
                 : "memory");
}

/* cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: loads the
 * tensor map's 2-D box at {c0, c1} into dst and signals its byte count on bar. */
static __device__ __forceinline__ void ptx_cp_async_bulk_tensor_2d_tile(uint32_t dst, const void *tmap, uint32_t bar,
                                                                        int32_t c0, int32_t c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)tmap), "r"(bar), "r"(c0), "r"(c1)
                 : "memory");
}

/* cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster:
 * loads the 2-D box at {c0, c1} into shared address dst of every CTA of the cluster whose rank
 * bit is set in cta_mask, signalling the byte count on the mbarrier at bar of each of them. */
static __device__ __forceinline__ void ptx_cp_async_bulk_tensor_2d_tile_multicast(uint32_t dst, const void *tmap,
                                                                                  uint32_t bar, int32_t c0, int32_t c1,
                                                                                  uint16_t cta_mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(dst),
                 "l"((uint64_t)tmap), "r"(bar), "r"(c0), "r"(c1), "h"(cta_mask)
                 : "memory");
}

/* cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes: loads the
 * tensor map's 3-D box at {c0, c1, c2} into dst and signals its byte count on bar. */
static __device__ __forceinline__ void ptx_cp_async_bulk_tensor_3d_tile(uint32_t dst, const void *tmap, uint32_t bar,
                                                                        int32_t c0, int32_t c1, int32_t c2)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)tmap), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}

/* ---------------------------------------------------------------- .cta_group::2 (CTA pairs)
 * The loads of a cta_group::2 MMA's operands: each CTA of the pair loads its own half into its
 * own shared memory (dst: a shared::cta address of the executing CTA), and the byte count is
 * signalled on the mbarrier at the shared::cluster address bar, which may be in the PEER CTA
 * (igemm: the pair's even-ranked CTA, whose one arrive.expect_tx counts both halves). */

/* cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 */
static __device__ __forceinline__ void ptx_cp_async_bulk_tensor_2d_tile_cta_group_2(uint32_t dst, const void *tmap,
                                                                                    uint32_t bar, int32_t c0,
                                                                                    int32_t c1)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2"
                 " [%0], [%1, {%3, %4}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)tmap), "r"(bar), "r"(c0), "r"(c1)
                 : "memory");
}

/* cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2 */
static __device__ __forceinline__ void ptx_cp_async_bulk_tensor_4d_tile_cta_group_2(uint32_t dst, const void *tmap,
                                                                                    uint32_t bar, int32_t c0,
                                                                                    int32_t c1, int32_t c2, int32_t c3)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2"
                 " [%0], [%1, {%3, %4, %5, %6}], [%2];\n" ::"r"(dst),
                 "l"((uint64_t)tmap), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
}

/* cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.cta_group::2:
 * the im2col load of ptx_cp_async_bulk_tensor_4d_im2col, signalled on bar (possibly the peer's). */
static __device__ __forceinline__ void ptx_cp_async_bulk_tensor_4d_im2col_cta_group_2(uint32_t dst, const void *tmap,
                                                                                      uint32_t bar, int32_t c,
                                                                                      int32_t w, int32_t h, int32_t n,
                                                                                      uint16_t off_w, uint16_t off_h)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes.cta_group::2"
                 " [%0], [%1, {%3, %4, %5, %6}], [%2], {%7, %8};\n" ::"r"(dst),
                 "l"((uint64_t)tmap), "r"(bar), "r"(c), "r"(w), "r"(h), "r"(n), "h"(off_w), "h"(off_h)
                 : "memory");
}

/* cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes: copies `bytes` (a multiple
 * of 16; src and dst 16-byte aligned) from global src to shared dst, no tensor map, and signals
 * the byte count on bar. */
static __device__ __forceinline__ void ptx_cp_async_bulk_shared_global(uint32_t dst, const void *src, uint32_t bytes,
                                                                       uint32_t bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(dst),
                 "l"((uint64_t)src), "r"(bytes), "r"(bar)
                 : "memory");
}

/* cp.async.bulk.tensor.3d.global.shared::cta.bulk_group: stores the shared-memory box at src to
 * the tensor map's 3-D box at {c0, c1, c2}; out-of-bounds parts are not written. */
static __device__ __forceinline__ void ptx_cp_async_bulk_tensor_3d_global_shared_cta(const void *tmap, uint32_t src,
                                                                                     int32_t c0, int32_t c1, int32_t c2)
{
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
                     (uint64_t)tmap),
                 "r"(src), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}

/* cp.async.bulk.tensor.2d.global.shared::cta.bulk_group: stores the shared-memory box at src to
 * the tensor map's box at {c0, c1} (innermost first). Out-of-bounds parts of the box are not
 * written (the hardware clips them). Completion is tracked by bulk async-groups. */
static __device__ __forceinline__ void ptx_cp_async_bulk_tensor_2d_global_shared_cta(const void *tmap, uint32_t src,
                                                                                     int32_t c0, int32_t c1)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"((uint64_t)tmap),
                 "r"(src), "r"(c0), "r"(c1)
                 : "memory");
}

/* cp.async.bulk.commit_group: closes the bulk async-group of the bulk stores issued so far. */
static __device__ __forceinline__ void ptx_cp_async_bulk_commit_group(void)
{
    asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}

/* cp.async.bulk.wait_group.read N: waits until at most N bulk async-groups still read their
 * shared-memory source (the older ones' buffers may be overwritten). */
template <int N>
static __device__ __forceinline__ void ptx_cp_async_bulk_wait_group_read(void)
{
    asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(N) : "memory");
}

/* cp.async.bulk.wait_group N: waits until at most N bulk async-groups are pending (their
 * global writes are complete). */
template <int N>
static __device__ __forceinline__ void ptx_cp_async_bulk_wait_group(void)
{
    asm volatile("cp.async.bulk.wait_group %0;\n" ::"n"(N) : "memory");
}

/* prefetch.tensormap: brings the tensor map (a kernel parameter) into the descriptor cache. */
static __device__ __forceinline__ void ptx_prefetch_tensormap(const void *tmap)
{
    asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)tmap) : "memory");
}

#endif /* IGEMM_PTX_TMA_CUH */
