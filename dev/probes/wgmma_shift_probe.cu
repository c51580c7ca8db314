/*
 * dev/probes/wgmma_shift_probe.cu — can a wgmma operand start at any 128-byte row of a 128B-swizzled
 * buffer? The question behind halo tiles for 3x3 convolutions (a tile's input rows loaded once,
 * with the halo, and the three taps along W read from it as the same operand shifted by 0, 1, 2
 * pixel rows instead of three im2col loads): the operand of tap s then starts s x 128 B past a
 * 1024 B swizzle repeat, and the descriptor's 3-bit "matrix base offset" (bits 49-51) is meant
 * for starts off the repeat.
 * One warpgroup fills shared memory with A (72 rows x 64 bf16) and B (136 rows x 64 bf16), each
 * row 128 B, 16-byte chunk c of row r stored at chunk c ^ (r % 8) (the TMA's 128B swizzle, the
 * buffers 1024 B aligned), runs m64n128k16 x 4 (K = 64) with B (or A) starting at row `shift`,
 * base offset 0 or shift % 8, and compares D = A[sa ..] x B[sb ..]^T with the host's (small
 * integers: exact in fp32).
 *   make -C dev/probes
 *   build/probes/wgmma_shift_probe            (results: docs/decisions.md "halo-rows", S14-4)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "probe_util.h" /* CK() */
#include "../../src/ptx/fence.cuh"
#include "../../src/ptx/mbarrier.cuh" /* ptx_cvta_to_shared */
#include "../../src/ptx/wgmma.cuh"

#define BROWS 136

__global__ void __launch_bounds__(128, 1) shift_kernel(const uint16_t *a, const uint16_t *b, float *d, int shift, int bo,
                                                       int on_a)
{
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    const uint32_t raw = ptx_cvta_to_shared(smem_raw);
    const uint32_t pad = ((raw + 1023u) & ~1023u) - raw;
    uint8_t *const sa = smem_raw + pad, *const sb = sa + 16384; /* A: 72 rows (a shifted A reads 64 of them) */
    const int tid = threadIdx.x;
    for (int i = tid; i < 72 * 64; i += 128) {
        const int r = i / 64, c = i % 64;
        *(uint16_t *)(sa + r * 128 + (((c / 8) ^ (r % 8)) * 16) + (c % 8) * 2) = a[i];
    }
    for (int i = tid; i < BROWS * 64; i += 128) {
        const int r = i / 64, c = i % 64;
        *(uint16_t *)(sb + r * 128 + (((c / 8) ^ (r % 8)) * 16) + (c % 8) * 2) = b[i];
    }
    ptx_fence_proxy_async_shared_cta(); /* the generic stores, visible to the wgmma (async proxy) */
    __syncthreads();
    const uint32_t sh_a = on_a ? (uint32_t)shift : 0u, sh_b = on_a ? 0u : (uint32_t)shift;
    const uint32_t a_addr = raw + pad + 128u * sh_a, b_addr = raw + pad + 16384u + 128u * sh_b;
    const uint64_t da = wgmma_desc_kmajor_sw128(a_addr) | (bo ? (uint64_t)(sh_a & 7) << 49 : 0ull);
    const uint64_t db = wgmma_desc_kmajor_sw128(b_addr) | (bo ? (uint64_t)(sh_b & 7) << 49 : 0ull);
    float acc[64];
    for (int j = 0; j < 64; j++) acc[j] = 0.0f;
    for (int j = 0; j < 64; j++) wgmma_fence_operand(acc[j]);
    ptx_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; kk++) ptx_wgmma_m64n128k16_f32_bf16_ss(acc, da + 2u * kk, db + 2u * kk, 1);
    ptx_wgmma_commit_group();
    ptx_wgmma_wait_group<0>();
    for (int j = 0; j < 64; j++) wgmma_fence_operand(acc[j]);
    /* acc[4J + 2h + e]: row 16 * warp + lane / 4 + 8h, column 8J + 2 (lane % 4) + e */
    const int warp = tid / 32, lane = tid % 32;
    for (int J = 0; J < 16; J++)
        for (int h = 0; h < 2; h++)
            for (int e = 0; e < 2; e++)
                d[(16 * warp + lane / 4 + 8 * h) * 128 + 8 * J + 2 * (lane % 4) + e] = acc[4 * J + 2 * h + e];
}

static uint16_t bf16_of_int(int v) /* small integers are exact in bf16: the top half of the float */
{
    const float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}

int main(void)
{
    static uint16_t ha[72 * 64], hb[BROWS * 64];
    static int ia[72 * 64], ib[BROWS * 64];
    static float hd[64 * 128];
    uint64_t seed = 12345;
    for (int i = 0; i < 72 * 64; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        ia[i] = (int)((seed >> 33) % 9) - 4;
        ha[i] = bf16_of_int(ia[i]);
    }
    for (int i = 0; i < BROWS * 64; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        ib[i] = (int)((seed >> 33) % 9) - 4;
        hb[i] = bf16_of_int(ib[i]);
    }
    uint16_t *da, *db;
    float *dd;
    CK(cudaMalloc(&da, sizeof ha));
    CK(cudaMalloc(&db, sizeof hb));
    CK(cudaMalloc(&dd, sizeof hd));
    CK(cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    const int smem = 1024 + 16384 + BROWS * 128;
    CK(cudaFuncSetAttribute(shift_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int all_ok[2][2] = {{1, 1}, {1, 1}};
    for (int on_a = 0; on_a < 2; on_a++)
        for (int bo = 0; bo < 2; bo++) {
            for (int shift = 0; shift <= 8; shift++) {
                CK(cudaMemset(dd, 0xFF, sizeof hd)); /* poisoned: NaN where nothing is written */
                shift_kernel<<<1, 128, smem>>>(da, db, dd, shift, bo, on_a);
                CK(cudaGetLastError());
                CK(cudaDeviceSynchronize());
                CK(cudaMemcpy(hd, dd, sizeof hd, cudaMemcpyDeviceToHost));
                int bad = 0;
                const int sa = on_a ? shift : 0, sb = on_a ? 0 : shift;
                for (int m = 0; m < 64; m++)
                    for (int n = 0; n < 128; n++) {
                        int ref = 0;
                        for (int k = 0; k < 64; k++) ref += ia[(sa + m) * 64 + k] * ib[(sb + n) * 64 + k];
                        if (hd[m * 128 + n] != (float)ref) bad++;
                    }
                printf("%s from row %d, base offset %s: %s (%d of %d wrong)\n", on_a ? "A" : "B", shift,
                       bo ? "shift % 8" : "0        ", bad ? "WRONG" : "exact", bad, 64 * 128);
                if (bad) all_ok[on_a][bo] = 0;
            }
        }
    for (int on_a = 0; on_a < 2; on_a++)
        printf("summary, %s shifted: base offset 0: %s; base offset = shift %% 8: %s\n", on_a ? "A" : "B",
               all_ok[on_a][0] ? "all exact" : "wrong", all_ok[on_a][1] ? "all exact" : "wrong");
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dd));
    return 0;
}
