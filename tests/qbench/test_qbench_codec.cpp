// Values <-> bits for every data type qbench may have to fill, read or compare.

#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "tools/qbench/codec.hpp"

namespace qgraph {
namespace qbench {
namespace {

uint64_t enc(data_type dt, double v) {
    uint64_t bits = 0;
    std::string why;
    EXPECT_TRUE(encode(dt, v, bits, why)) << to_string(dt) << " " << v << ": " << why;
    return bits;
}

bool refuses(data_type dt, double v) {
    uint64_t bits = 0;
    std::string why;
    return !encode(dt, v, bits, why) && !why.empty();
}

TEST(QbenchCodec, IntegersAreExactAndRangeChecked) {
    EXPECT_EQ(enc(data_type::u8, 255), 0xffu);
    EXPECT_EQ(enc(data_type::s8, -128), 0x80u);
    EXPECT_EQ(enc(data_type::s8, -1), 0xffu);
    EXPECT_EQ(enc(data_type::s32, -2147483648.0), 0x80000000u);
    EXPECT_EQ(enc(data_type::s4, -8), 0x8u);
    EXPECT_EQ(enc(data_type::u2, 3), 0x3u);
    EXPECT_EQ(decode(data_type::s8, 0x80), -128);
    EXPECT_EQ(decode(data_type::s4, 0xf), -1);
    EXPECT_EQ(decode(data_type::s32, 0xffffffff), -1);
    EXPECT_TRUE(refuses(data_type::u8, 256));
    EXPECT_TRUE(refuses(data_type::u8, -1));
    EXPECT_TRUE(refuses(data_type::s8, 1.5));
    EXPECT_TRUE(refuses(data_type::s32, NAN));
    EXPECT_TRUE(refuses(data_type::s64, 9223372036854775808.0));
    EXPECT_EQ(type_max(data_type::s32), 2147483647.0);
    EXPECT_EQ(type_lowest(data_type::u4), 0.0);
    EXPECT_EQ(type_max(data_type::s2), 1.0);
}

TEST(QbenchCodec, F32IsBitExact) {
    EXPECT_EQ(enc(data_type::f32, 1.5), 0x3fc00000u);
    EXPECT_EQ(enc(data_type::f32, -0.0), 0x80000000u);
    EXPECT_EQ(enc(data_type::f32, INFINITY), 0x7f800000u);
    EXPECT_EQ(enc(data_type::f32, 0.1), 0x3dcccccdu); // rounded once to nearest
    EXPECT_TRUE(std::isnan(decode(data_type::f32, enc(data_type::f32, NAN))));
    EXPECT_EQ(decode(data_type::f32, 0x3fc00000u), 1.5);
    EXPECT_EQ(type_max(data_type::f32), 3.4028234663852886e38);
}

TEST(QbenchCodec, SmallFloatsRoundToNearestEven) {
    EXPECT_EQ(enc(data_type::bf16, 1.0), 0x3f80u);
    EXPECT_EQ(enc(data_type::bf16, 1.0 + 1.0 / 256), 0x3f80u); // tie -> even
    EXPECT_EQ(enc(data_type::bf16, 1.0 + 3.0 / 256), 0x3f82u); // tie -> even (up)
    EXPECT_EQ(enc(data_type::f16, 65504), 0x7bffu);
    EXPECT_EQ(enc(data_type::f16, 65520), 0x7c00u); // halfway past max -> Inf
    EXPECT_EQ(enc(data_type::f16, 65519), 0x7bffu);
    EXPECT_EQ(enc(data_type::f16, -0.0), 0x8000u);
    EXPECT_EQ(enc(data_type::f16, 5.960464477539063e-08), 0x0001u); // smallest subnormal
    EXPECT_EQ(enc(data_type::f8_e4m3, 448), 0x7eu);
    EXPECT_EQ(enc(data_type::f8_e4m3, 1000), 0x7eu); // no Inf: saturates
    EXPECT_EQ(enc(data_type::f8_e4m3, NAN), 0x7fu);
    EXPECT_EQ(enc(data_type::f8_e5m2, 57344), 0x7bu);
    EXPECT_EQ(enc(data_type::f8_e5m2, -INFINITY), 0xfcu);
    EXPECT_EQ(enc(data_type::f8_e4m3fnuz, NAN), 0x80u);
    EXPECT_EQ(enc(data_type::f8_e4m3fnuz, -0.0), 0x00u); // no -0
    EXPECT_EQ(enc(data_type::f4_e2m1, 6), 0x7u);
    EXPECT_EQ(enc(data_type::f4_e2m1, -0.5), 0x9u);
    EXPECT_TRUE(refuses(data_type::f4_e2m1, NAN));
    EXPECT_EQ(enc(data_type::e8m0, 1.0), 127u);
    EXPECT_EQ(decode(data_type::f8_e4m3, 0x01), std::ldexp(1.0, -9));
    EXPECT_TRUE(is_nan(data_type::f8_e5m2, 0x7f));
    EXPECT_FALSE(is_nan(data_type::f8_e5m2, 0x7c)); // Inf
    EXPECT_FALSE(is_nan(data_type::u8, 0xff));
    EXPECT_EQ(type_max(data_type::bf16), 3.3895313892515355e38);
}

TEST(QbenchCodec, EveryCodeOfSmallTypesRoundTrips) {
    for (data_type dt : {data_type::bf16, data_type::f16, data_type::f8_e4m3, data_type::f8_e5m2,
                 data_type::f8_e4m3fnuz, data_type::f8_e5m2fnuz, data_type::f4_e2m1}) {
        const uint64_t n = uint64_t(1) << type_bits(dt);
        for (uint64_t code = 0; code < n; ++code) {
            if (is_nan(dt, code)) continue;
            ASSERT_EQ(enc(dt, decode(dt, code)), code) << to_string(dt) << " " << code;
        }
    }
}

TEST(QbenchCodec, SubByteElementsArePackedLowBitsFirst) {
    uint8_t mem[2] = {0, 0};
    store_bits(mem, data_type::s4, 0, 0x3);
    store_bits(mem, data_type::s4, 1, 0xa);
    store_bits(mem, data_type::u2, 4, 0x2);
    EXPECT_EQ(mem[0], 0xa3);
    EXPECT_EQ(mem[1], 0x02);
    EXPECT_EQ(load_bits(mem, data_type::s4, 1), 0xau);
    EXPECT_EQ(load_bits(mem, data_type::u2, 4), 0x2u);
    int32_t words[2] = {0, 0};
    store_bits(words, data_type::s32, 1, 0xfffffffe);
    EXPECT_EQ(words[1], -2);
    EXPECT_EQ(load_bits(words, data_type::s32, 1), 0xfffffffeu);
}

TEST(QbenchCodec, FormatsValuesAndBits) {
    EXPECT_EQ(format_value(data_type::s8, 0xff), "-1");
    EXPECT_EQ(format_value(data_type::u8, 0xff), "255");
    EXPECT_EQ(format_value(data_type::f32, 0x3fc00000), "1.5 (0x3fc00000)");
    EXPECT_EQ(format_value(data_type::f32, 0x80000000), "-0 (0x80000000)");
    EXPECT_EQ(format_value(data_type::f32, 0x7fc00000), "nan (0x7fc00000)");
    EXPECT_EQ(format_value(data_type::bf16, 0x3f80), "1 (0x3f80)");
}

} // namespace
} // namespace qbench
} // namespace qgraph
