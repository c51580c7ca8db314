/*
 * test_half.c — the host half conversions (igemm_float_to_f16 / bf16 and back: every 16-bit
 * pattern round-trips, the special values) and the fast division the sm90 kernels use
 * (src/common/fastdiv.h), on the CPU. (Moved out of test_ref.c, which keeps the reference.)
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "igemm.h"
#include "test.h"

/* ------------------------------------------------------------------ half conversions */

static float fbits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint32_t bitsf(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

TEST(half_f16_round_trip_all)
{
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = igemm_f16_to_float((uint16_t)h);
        int is_nan = ((h & 0x7C00u) == 0x7C00u) && (h & 0x3FFu);
        if (is_nan) {
            bad += !isnan(f);
            bad += !isnan(igemm_f16_to_float(igemm_float_to_f16(f)));
        } else {
            bad += igemm_float_to_f16(f) != h;
        }
    }
    CHECK_EQ_INT(bad, 0);
}

TEST(half_bf16_round_trip_all)
{
    int bad = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        float f = igemm_bf16_to_float((uint16_t)h);
        CHECK(bitsf(f) == h << 16);
        int is_nan = ((h & 0x7F80u) == 0x7F80u) && (h & 0x7Fu);
        if (is_nan) bad += !isnan(f) || (igemm_float_to_bf16(f) & 0x8000u) != (h & 0x8000u);
        else bad += igemm_float_to_bf16(f) != h;
    }
    CHECK_EQ_INT(bad, 0);
}

TEST(half_f16_special_values)
{
    CHECK_EQ_INT(igemm_float_to_f16(0.0f), 0x0000);
    CHECK_EQ_INT(igemm_float_to_f16(-0.0f), 0x8000);
    CHECK_EQ_INT(igemm_float_to_f16(1.0f), 0x3C00);
    CHECK_EQ_INT(igemm_float_to_f16(-2.0f), 0xC000);
    CHECK_EQ_INT(igemm_float_to_f16(1.00048828125f), 0x3C00); /* 1 + 2^-11: tie -> even */
    CHECK_EQ_INT(igemm_float_to_f16(1.00146484375f), 0x3C02); /* 1 + 3*2^-11: tie -> even */
    CHECK_EQ_INT(igemm_float_to_f16(1.0005f), 0x3C01);        /* just above the tie */
    CHECK_EQ_INT(igemm_float_to_f16(2049.0f), 0x6800);        /* 2048: tie -> even */
    CHECK_EQ_INT(igemm_float_to_f16(2051.0f), 0x6802);        /* 2052 */
    CHECK_EQ_INT(igemm_float_to_f16(65504.0f), 0x7BFF);
    CHECK_EQ_INT(igemm_float_to_f16(65519.99f), 0x7BFF);
    CHECK_EQ_INT(igemm_float_to_f16(65520.0f), 0x7C00);
    CHECK_EQ_INT(igemm_float_to_f16(1e10f), 0x7C00);
    CHECK_EQ_INT(igemm_float_to_f16(INFINITY), 0x7C00);
    CHECK_EQ_INT(igemm_float_to_f16(-INFINITY), 0xFC00);
    uint16_t hn = igemm_float_to_f16(NAN);
    CHECK((hn & 0x7C00) == 0x7C00 && (hn & 0x3FF) != 0);
    uint16_t hn2 = igemm_float_to_f16(fbits(0xFF800001u)); /* NaN with only a low payload bit */
    CHECK((hn2 & 0x7C00) == 0x7C00 && (hn2 & 0x3FF) != 0 && (hn2 & 0x8000));
    /* subnormals */
    CHECK_EQ_INT(igemm_float_to_f16(ldexpf(1.0f, -14)), 0x0400); /* smallest normal */
    CHECK_EQ_INT(igemm_float_to_f16(ldexpf(1.0f, -24)), 0x0001); /* smallest subnormal */
    CHECK_EQ_INT(igemm_float_to_f16(ldexpf(1.0f, -25)), 0x0000); /* tie -> even (0) */
    CHECK_EQ_INT(igemm_float_to_f16(ldexpf(1.5f, -25)), 0x0001);
    CHECK_EQ_INT(igemm_float_to_f16(ldexpf(3.0f, -25)), 0x0002); /* 1.5 ulp: tie -> even (2) */
    CHECK_EQ_INT(igemm_float_to_f16(ldexpf(5.0f, -25)), 0x0002); /* 2.5 ulp: tie -> even (2) */
    CHECK_EQ_INT(igemm_float_to_f16(-ldexpf(1.0f, -24)), 0x8001);
    CHECK_EQ_INT(igemm_float_to_f16(ldexpf(1023.0f, -24)), 0x03FF); /* largest subnormal */
    CHECK_EQ_INT(igemm_float_to_f16(ldexpf(1023.5f, -24)), 0x0400); /* tie -> even: normal */
    CHECK_EQ_INT(igemm_float_to_f16(ldexpf(1.0f, -26)), 0x0000);
    CHECK_EQ_INT(igemm_float_to_f16(1e-30f), 0x0000);
    CHECK_EQ_INT(igemm_float_to_f16(fbits(0x00000001u)), 0x0000); /* f32 subnormal */
    /* f16 -> f32 */
    CHECK(igemm_f16_to_float(0x0001) == ldexpf(1.0f, -24));
    CHECK(igemm_f16_to_float(0x03FF) == ldexpf(1023.0f, -24));
    CHECK(igemm_f16_to_float(0x8001) == -ldexpf(1.0f, -24));
    CHECK(igemm_f16_to_float(0x7BFF) == 65504.0f);
    CHECK(igemm_f16_to_float(0x3555) == 0.333251953125f);
    CHECK(isinf(igemm_f16_to_float(0x7C00)) && igemm_f16_to_float(0x7C00) > 0);
    CHECK(isinf(igemm_f16_to_float(0xFC00)) && igemm_f16_to_float(0xFC00) < 0);
    CHECK(isnan(igemm_f16_to_float(0x7E00)));
    CHECK(isnan(igemm_f16_to_float(0x7C01)));
    CHECK(bitsf(igemm_f16_to_float(0x8000)) == 0x80000000u);
}

TEST(half_bf16_special_values)
{
    CHECK_EQ_INT(igemm_float_to_bf16(1.0f), 0x3F80);
    CHECK_EQ_INT(igemm_float_to_bf16(-0.0f), 0x8000);
    CHECK_EQ_INT(igemm_float_to_bf16(1.0f / 3.0f), 0x3EAB);
    CHECK_EQ_INT(igemm_float_to_bf16(fbits(0x3F808000u)), 0x3F80); /* tie -> even */
    CHECK_EQ_INT(igemm_float_to_bf16(fbits(0x3F818000u)), 0x3F82); /* tie -> even (up) */
    CHECK_EQ_INT(igemm_float_to_bf16(fbits(0x3F808001u)), 0x3F81); /* above the tie */
    CHECK_EQ_INT(igemm_float_to_bf16(fbits(0x3F807FFFu)), 0x3F80); /* below the tie */
    CHECK_EQ_INT(igemm_float_to_bf16(FLT_MAX), 0x7F80);             /* rounds up to inf */
    CHECK_EQ_INT(igemm_float_to_bf16(fbits(0x7F7F7FFFu)), 0x7F7F);  /* largest finite */
    CHECK_EQ_INT(igemm_float_to_bf16(INFINITY), 0x7F80);
    CHECK_EQ_INT(igemm_float_to_bf16(-INFINITY), 0xFF80);
    uint16_t n1 = igemm_float_to_bf16(NAN);
    CHECK((n1 & 0x7F80) == 0x7F80 && (n1 & 0x7F) != 0);
    uint16_t n2 = igemm_float_to_bf16(fbits(0x7F800001u)); /* payload only in the low bits */
    CHECK((n2 & 0x7F80) == 0x7F80 && (n2 & 0x7F) != 0);
    uint16_t n3 = igemm_float_to_bf16(fbits(0xFFFFFFFFu));
    CHECK((n3 & 0x7F80) == 0x7F80 && (n3 & 0x7F) != 0 && (n3 & 0x8000));
    /* subnormals are kept (no flush to zero) */
    CHECK_EQ_INT(igemm_float_to_bf16(fbits(0x00010000u)), 0x0001);
    CHECK_EQ_INT(igemm_float_to_bf16(fbits(0x00018000u)), 0x0002); /* tie -> even */
    CHECK_EQ_INT(igemm_float_to_bf16(fbits(0x00008000u)), 0x0000); /* tie -> even (0) */
    CHECK_EQ_INT(igemm_float_to_bf16(fbits(0x007FFFFFu)), 0x0080); /* rounds up to min normal */
    CHECK(igemm_bf16_to_float(0x0001) == fbits(0x00010000u));
    CHECK(isnan(igemm_bf16_to_float(0x7FC0)));
}

/* ------------------------------------------------------------------ fast division */
#include "../src/common/fastdiv.h"

/* The sm90 kernels divide tile and pixel indices by run-time constants with
 * igemm_fastdiv; its host form must equal '/' for every divisor and every x < 2^31. */
TEST(fastdiv_matches_division)
{
    static const int32_t ds[] = {1, 2, 3, 5, 6, 7, 8, 9, 12, 13, 56, 64, 100, 112, 127, 128, 129, 784, 3136, 12544,
                                 50176, 65535, 65536, 65537, 1 << 20, (1 << 20) + 1, 1000003, 1 << 30,
                                 (1 << 30) + 1, 2147483647};
    const int32_t xmax = 2147483647;
    uint64_t st = 0x9e3779b97f4a7c15ull;
    long checked = 0;
    for (size_t di = 0; di < sizeof ds / sizeof ds[0]; di++) {
        const int32_t d = ds[di];
        const igemm_fastdiv_t f = igemm_fastdiv_make(d);
        const int32_t edge[] = {0, 1, d - 1, d, d + 1, 2 * (d / 2), xmax, xmax - 1, xmax - d, xmax / d * d,
                                xmax / d * d - 1};
        for (size_t e = 0; e < sizeof edge / sizeof edge[0]; e++) {
            const int32_t x = edge[e];
            if (x < 0) continue;
            CHECK_MSG(igemm_fastdiv_div_host(x, f) == x / d, "fastdiv %d / %d = %d, want %d", x, d,
                      igemm_fastdiv_div_host(x, f), x / d);
            checked++;
        }
        for (int i = 0; i < 20000; i++) {
            st ^= st << 13, st ^= st >> 7, st ^= st << 17;
            const int32_t x = (int32_t)(st & 0x7fffffffu) >> (int)(st >> 59); /* spread over magnitudes */
            if (igemm_fastdiv_div_host(x, f) != x / d) {
                CHECK_MSG(0, "fastdiv %d / %d = %d, want %d", x, d, igemm_fastdiv_div_host(x, f), x / d);
                break;
            }
            checked++;
        }
        /* every multiple boundary near small quotients */
        for (int32_t qv = 0; qv < 3000 && (int64_t)qv * d < xmax; qv++) {
            const int64_t x0 = (int64_t)qv * d;
            for (int dx = -1; dx <= 1; dx++) {
                const int64_t x = x0 + dx;
                if (x < 0 || x > xmax) continue;
                if (igemm_fastdiv_div_host((int32_t)x, f) != (int32_t)(x / d)) {
                    CHECK_MSG(0, "fastdiv %lld / %d wrong", (long long)x, d);
                    qv = 3000;
                    break;
                }
                checked++;
            }
        }
    }
    CHECK(checked > 500000);
}
