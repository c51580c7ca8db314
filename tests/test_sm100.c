/*
 * test_sm100.c — the host side of the Blackwell kernel, on the CPU (no sm_100 hardware is
 * available to the project): the tcgen05 instruction and shared-memory descriptors against values
 * worked out by hand from the PTX ISA tables, the shared-memory plan against the 227 KB budget and
 * the seeds' formulas (offsets, arrival counts, TMA bytes, TMEM columns, the most stages that
 * fit, configurations refused with their reason), and the scheduler's tile order (a bijection,
 * grouped rasterisation, cluster peers adjacent).
 */
#include <stdint.h>
#include <string.h>

#include "sm100/schedule.h"
#include "sm100/smem_plan.h"
#include "sm100/tcgen05_desc.h"
#include "test.h"

TEST(sm100_instruction_descriptor)
{
    /* kind::f16, D f32, A = B = bf16, both K-major, M = 128, N = 256, cta_group 1:
     * (1 << 4) | (1 << 7) | (1 << 10) | ((256 >> 3) << 17) | ((128 >> 4) << 24) */
    CHECK_EQ_INT(igemm_tcgen05_idesc_f16(128, 256, 1, 1, 0, 0, 1), 0x08400490u);
    /* D f16, A = B = f16, M = 64, N = 8: ((8 >> 3) << 17) | ((64 >> 4) << 24) */
    CHECK_EQ_INT(igemm_tcgen05_idesc_f16(64, 8, 0, 0, 0, 0, 1), 0x04020000u);
    /* cta_group 2, M = 256, N = 256, bf16 -> f32: M >> 4 = 16 at bit 24 */
    CHECK_EQ_INT(igemm_tcgen05_idesc_f16(256, 256, 1, 1, 0, 0, 2), 0x10400490u);
    /* B N-major (transposed) sets bit 16 only */
    CHECK_EQ_INT(igemm_tcgen05_idesc_f16(128, 256, 1, 1, 0, 1, 1) ^ 0x08400490u, 1u << 16);
    /* shapes that do not exist */
    CHECK_EQ_INT(igemm_tcgen05_idesc_f16(128, 8, 1, 1, 0, 0, 1), 0);   /* M 128 needs N % 16 */
    CHECK_EQ_INT(igemm_tcgen05_idesc_f16(64, 264, 1, 1, 0, 0, 1), 0);  /* N <= 256 */
    CHECK_EQ_INT(igemm_tcgen05_idesc_f16(64, 64, 1, 1, 0, 0, 2), 0);   /* cta_group 2: M 128 / 256 */
    CHECK_EQ_INT(igemm_tcgen05_idesc_f16(256, 64, 1, 1, 0, 0, 1), 0);  /* M 256 only over 2 CTAs */
    CHECK_EQ_INT(igemm_tcgen05_idesc_f16(128, 16, 1, 1, 0, 0, 2), 0);  /* cta_group 2: N >= 32 */
}

TEST(sm100_smem_descriptor)
{
    /* a SW128 K-major tile at shared address 0x400: address 0x400 >> 4 = 0x40, LBO 16 >> 4 = 1 at
     * bit 16, SBO 1024 >> 4 = 0x40 at bit 32, the fixed 0b001 at bit 46, swizzle 2 (128B) at 61 */
    CHECK(igemm_tcgen05_sdesc_kmajor_sw128(0x400) == 0x4000404000010040ull);
    /* no swizzle, LBO 128, SBO 256, base offset 3, address 0x12340 (bits 4-17 kept) */
    const uint64_t d = igemm_tcgen05_sdesc(0x12340u, 128u, 256u, 3u, TCGEN05_SWIZZLE_NONE);
    CHECK(d == ((0x1234ull) | (8ull << 16) | (16ull << 32) | (1ull << 46) | (3ull << 49)));
    /* the other swizzle codes land in bits 61-63 */
    CHECK((igemm_tcgen05_sdesc(0, 0, 0, 0, TCGEN05_SWIZZLE_64B) >> 61) == 4u);
    CHECK((igemm_tcgen05_sdesc(0, 0, 0, 0, TCGEN05_SWIZZLE_32B) >> 61) == 6u);
    CHECK((igemm_tcgen05_sdesc(0, 0, 0, 0, TCGEN05_SWIZZLE_128B_BASE32B) >> 61) == 1u);
    /* advancing K by 16 bf16 (32 bytes) inside a 128-byte row is +2 on the address field */
    CHECK(igemm_tcgen05_sdesc_kmajor_sw128(0x400 + 32) == igemm_tcgen05_sdesc_kmajor_sw128(0x400) + 2);
}

/* the seeds' shape: a 2-CTA pair computing 256 x 256 MMAs, 128 x 128 of A and B per CTA, bf16,
 * 128 x 32 output tiles, with a residual */
static sm100_config_t pair_cfg(void)
{
    sm100_config_t c;
    memset(&c, 0, sizeof c);
    c.bm = 128, c.bn = 128, c.bk = 64, c.mma_m = 256, c.mma_n = 256, c.cta_group = 2;
    c.cluster_m = 2, c.cluster_n = 1, c.in_bytes = 2, c.out_bytes = 2, c.out_m = 128, c.out_n = 32;
    c.stages = 4, c.k_group = 1, c.out_stages = 2, c.accum_stages = 2, c.clc_stages = 2, c.has_source = 1;
    return c;
}

TEST(sm100_smem_plan_pair)
{
    sm100_config_t c = pair_cfg();
    sm100_plan_t p;
    char why[256] = "";
    REQUIRE(igemm_sm100_plan(&c, &p, why, sizeof why) == 1);
    /* tiles: A 4 x 16 KB, B 4 x 16 KB, output 2 x 8 KB, source 8 x 8 KB (mma_n / out_n = 8) */
    CHECK_EQ_INT(p.a_off, 0);
    CHECK_EQ_INT(p.b_off, 65536);
    CHECK_EQ_INT(p.out_off, 131072);
    CHECK_EQ_INT(p.src_off, 147456);
    CHECK_EQ_INT(p.epi_load_stages, 8);
    CHECK_EQ_INT(p.bar_off, 212992);
    /* barriers: input 2 x 4, accum 2 x 2, CLC throttle 2 x 2, CLC full + empty 2 x 2, TMEM
     * dealloc 1, epilogue load 2 x 8, load order 1 = 38 (304 bytes) */
    CHECK_EQ_INT(p.barriers, 38);
    CHECK_EQ_INT(p.clc_resp_off, 213296);
    CHECK_EQ_INT(p.tmem_addr_off, 213328);
    CHECK_EQ_INT(p.total, 213332);
    /* arrivals: accumulator consumers = cta_group x 128 epilogue threads; CLC consumers = the
     * scheduler warp + cluster x (load + MMA + epilogue-load + epilogue threads) */
    CHECK_EQ_INT(p.accum_consumer_arv, 256);
    CHECK_EQ_INT(p.clc_consumer_arv, 32 + 2 * (32 + 32 + 32 + 128));
    CHECK_EQ_INT(p.clc_throttle_producer_arv, 32);
    CHECK_EQ_INT(p.clc_throttle_consumer_arv, 32);
    CHECK_EQ_INT(p.epi_load_consumer_arv, 128);
    CHECK_EQ_INT(p.input_producer_arv, 1);
    CHECK_EQ_INT(p.input_consumer_arv, 1);
    /* TMA bytes: both CTAs' A and B per phase on the leader; a source tile */
    CHECK_EQ_INT(p.input_expected_bytes, 2 * (16384 + 16384));
    CHECK_EQ_INT(p.src_expected_bytes, 8192);
    /* TMEM: two accumulator stages of 256 columns fill the 512 */
    CHECK_EQ_INT(p.tmem_stage_cols, 256);
    CHECK_EQ_INT(p.tmem_cols, 512);
    CHECK_EQ_INT(p.threads, 256);
    /* the most stages: 4 with the source tiles (5 needs 245,760+ bytes), 6 without */
    CHECK_EQ_INT(igemm_sm100_max_stages(&c), 4);
    c.has_source = 0;
    CHECK_EQ_INT(igemm_sm100_max_stages(&c), 6);
    c.stages = 7;
    CHECK_EQ_INT(igemm_sm100_plan(&c, &p, why, sizeof why), 0);
    CHECK(strstr(why, "over the 232448-byte budget") != NULL);
}

TEST(sm100_smem_plan_refused)
{
    char why[256];
    sm100_plan_t p;
    sm100_config_t c = pair_cfg();
    c.accum_stages = 3; /* 3 x 256 columns > 512 */
    CHECK_EQ_INT(igemm_sm100_plan(&c, &p, why, sizeof why), 0);
    CHECK(strstr(why, "TMEM has 512") != NULL);
    c = pair_cfg();
    c.bk = 32; /* 64-byte rows */
    CHECK_EQ_INT(igemm_sm100_plan(&c, &p, why, sizeof why), 0);
    CHECK(strstr(why, "128 bytes") != NULL);
    c = pair_cfg();
    c.mma_m = 128; /* cta_group 2 of bm 128 is a 256-row MMA */
    CHECK_EQ_INT(igemm_sm100_plan(&c, &p, why, sizeof why), 0);
    CHECK(strstr(why, "mma_m = 128") != NULL);
    c = pair_cfg();
    c.cluster_m = 1;
    CHECK_EQ_INT(igemm_sm100_plan(&c, &p, why, sizeof why), 0);
    CHECK(strstr(why, "even cluster_m") != NULL);
    c = pair_cfg();
    c.stages = 6, c.k_group = 4;
    CHECK_EQ_INT(igemm_sm100_plan(&c, &p, why, sizeof why), 0);
    CHECK(strstr(why, "k_group must divide stages") != NULL);
    /* one CTA, 128 x 256 MMA, k_group 2: input barriers per pair of stages, TMA bytes x 2 */
    c = pair_cfg();
    c.cta_group = 1, c.mma_m = 128, c.cluster_m = 1, c.bn = 256, c.stages = 4, c.k_group = 2, c.has_source = 0;
    REQUIRE(igemm_sm100_plan(&c, &p, why, sizeof why) == 1);
    CHECK_EQ_INT(p.group_stages, 2);
    CHECK_EQ_INT(p.input_expected_bytes, 1 * (16384 + 32768) * 2);
    CHECK_EQ_INT(p.accum_consumer_arv, 128);
    CHECK_EQ_INT(p.clc_consumer_arv, 32 + 1 * 224);
}

TEST(sm100_tile_order)
{
    /* 8 x 3 tiles, clusters of 2 along M, groups of 2 unit rows: units 0..5 walk unit rows 0-1
     * column by column, then rows 2-3 */
    int64_t m, n;
    CHECK_EQ_INT(igemm_sm100_units(8, 3, 2, 1), 12);
    igemm_sm100_tile_of(0, 8, 3, 2, 1, 2, 0, 0, &m, &n);
    CHECK(m == 0 && n == 0);
    igemm_sm100_tile_of(0, 8, 3, 2, 1, 2, 1, 0, &m, &n);
    CHECK(m == 1 && n == 0); /* the cluster's second CTA: the adjacent tile */
    igemm_sm100_tile_of(1, 8, 3, 2, 1, 2, 0, 0, &m, &n);
    CHECK(m == 2 && n == 0);
    igemm_sm100_tile_of(2, 8, 3, 2, 1, 2, 0, 0, &m, &n);
    CHECK(m == 0 && n == 1);
    igemm_sm100_tile_of(5, 8, 3, 2, 1, 2, 1, 0, &m, &n);
    CHECK(m == 3 && n == 2);
    igemm_sm100_tile_of(6, 8, 3, 2, 1, 2, 0, 0, &m, &n);
    CHECK(m == 4 && n == 0);
    /* every tile exactly once, for several grids, clusters and group sizes (edge units included) */
    static const int grids[][5] = {{8, 3, 2, 1, 2}, {7, 5, 2, 1, 4}, {9, 9, 1, 2, 3}, {16, 1, 2, 1, 8}, {5, 6, 1, 1, 1}};
    for (size_t gi = 0; gi < sizeof grids / sizeof grids[0]; gi++) {
        const int tm = grids[gi][0], tn = grids[gi][1], cm = grids[gi][2], cn = grids[gi][3], sw = grids[gi][4];
        static int seen[64 * 64];
        memset(seen, 0, sizeof seen);
        const int64_t units = igemm_sm100_units(tm, tn, cm, cn);
        for (int64_t u = 0; u < units; u++)
            for (int rx = 0; rx < cm; rx++)
                for (int ry = 0; ry < cn; ry++) {
                    igemm_sm100_tile_of(u, tm, tn, cm, cn, sw, rx, ry, &m, &n);
                    if (m < tm && n < tn) seen[m * 64 + n]++;
                }
        for (int i = 0; i < tm; i++)
            for (int j = 0; j < tn; j++)
                CHECK_MSG(seen[i * 64 + j] == 1, "grid %dx%d cluster %dx%d swizzle %d: tile (%d, %d) taken %d times",
                          tm, tn, cm, cn, sw, i, j, seen[i * 64 + j]);
    }
}
