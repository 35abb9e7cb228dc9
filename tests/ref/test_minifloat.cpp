// common/minifloat (float8 / float4 <-> f32) against the independent model in
// minifloat_model.hpp, which is first checked against NUMERICS.md's literal values:
// - every code of every format decoded;
// - hand-worked encodings: the overflow thresholds (e4m3fn 464 -> 448, e5m2 61440 overflows,
//   fnuz 248 / 61440), NaN, Inf, -0, ties, the smallest subnormals;
// - a few million f32 inputs, saturate on and off: each midpoint between two neighbouring
//   values and the inputs a few ulps around it, every value itself, NaN payloads, Inf, f32
//   subnormals, and random bits. All 2^32 inputs: test_minifloat_exhaustive (label
//   exhaustive).

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "common/minifloat.hpp"
#include "ref/minifloat_model.hpp"

namespace {

using qgraph::data_type;
using qgraph::impl::f32_to_minifloat;
using qgraph::impl::minifloat_to_f32;
using qtest::bits_of_f32;
using qtest::f32_from;
using qtest::minifloat_format;

std::string hex(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "0x%08x", v);
    return buf;
}

const minifloat_format &format_of(data_type dt) {
    for (const minifloat_format &f : qtest::minifloat_formats())
        if (f.dt == dt) return f;
    throw std::logic_error("not a minifloat");
}

TEST(MinifloatModel, MatchesTheValuesOfNumericsMd) {
    // The largest value and the smallest subnormal of each format.
    const struct {
        data_type dt;
        double max, min_sub;
        int nan_codes;
    } rows[] = {
            {data_type::f8_e4m3, 448, 0x1p-9, 2},
            {data_type::f8_e4m3fnuz, 240, 0x1p-10, 1},
            {data_type::f8_e5m2, 57344, 0x1p-16, 6},
            {data_type::f8_e5m2fnuz, 57344, 0x1p-17, 1},
            {data_type::f4_e2m1, 6, 0.5, 0},
    };
    for (const auto &r : rows) {
        const minifloat_format &f = format_of(r.dt);
        SCOPED_TRACE(f.name);
        EXPECT_EQ(qtest::model_max(f), r.max);
        EXPECT_EQ(qtest::model_value(f, 1), r.min_sub);
        int nans = 0;
        for (uint32_t c = 0; c < (1u << f.bits); ++c) nans += std::isnan(qtest::model_value(f, c));
        EXPECT_EQ(nans, r.nan_codes);
    }
    const minifloat_format &e5m2 = format_of(data_type::f8_e5m2);
    for (uint32_t c : {0x7du, 0x7eu, 0x7fu, 0xfdu, 0xfeu, 0xffu})
        EXPECT_TRUE(std::isnan(qtest::model_value(e5m2, c))) << c;
    EXPECT_EQ(qtest::model_value(e5m2, 0x7c), INFINITY);
    EXPECT_EQ(qtest::model_value(e5m2, 0xfc), -INFINITY);
    const minifloat_format &e4m3 = format_of(data_type::f8_e4m3);
    EXPECT_TRUE(std::isnan(qtest::model_value(e4m3, 0x7f)));
    EXPECT_TRUE(std::isnan(qtest::model_value(e4m3, 0xff)));
    EXPECT_EQ(qtest::model_value(e4m3, 0x7e), 448);
    EXPECT_TRUE(std::isnan(qtest::model_value(format_of(data_type::f8_e4m3fnuz), 0x80)));
    EXPECT_TRUE(std::isnan(qtest::model_value(format_of(data_type::f8_e5m2fnuz), 0x80)));
    // float4: exactly these values, in code order, then their negatives.
    const double f4[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    const minifloat_format &e2m1 = format_of(data_type::f4_e2m1);
    for (uint32_t c = 0; c < 8; ++c) {
        EXPECT_EQ(qtest::model_value(e2m1, c), f4[c]) << c;
        EXPECT_EQ(qtest::model_value(e2m1, c | 8), -f4[c]) << c;
    }
    // The model's values increase with the code (the encoder's search relies on it).
    for (const minifloat_format &f : qtest::minifloat_formats()) {
        const std::vector<qtest::minifloat_entry> v = qtest::model_entries(f);
        for (size_t k = 1; k < v.size(); ++k) {
            EXPECT_LT(v[k - 1].value, v[k].value) << f.name;
            EXPECT_EQ(v[k - 1].code + 1, v[k].code) << f.name;
        }
    }
}

TEST(Minifloat, DecodesEveryCode) {
    for (const minifloat_format &f : qtest::minifloat_formats()) {
        for (uint32_t c = 0; c < (1u << f.bits); ++c) {
            SCOPED_TRACE(std::string(f.name) + " code " + hex(c));
            const float got = minifloat_to_f32(f.dt, c);
            const double want = qtest::model_value(f, c);
            if (std::isnan(want)) {
                ASSERT_TRUE(std::isnan(got)) << got;
                // A quiet NaN with the code's sign; the fnuz NaN 0x80 is +NaN.
                const bool neg = f.nan_inf != minifloat_format::specials::fnuz
                        && (c & qtest::sign_bit_of(f));
                EXPECT_EQ(bits_of_f32(got), neg ? 0xffc00000u : 0x7fc00000u);
            } else {
                // Bitwise, so that -0 must come back as -0.
                EXPECT_EQ(bits_of_f32(got), bits_of_f32(static_cast<float>(want))) << got;
            }
        }
    }
    EXPECT_EQ(bits_of_f32(minifloat_to_f32(data_type::f8_e4m3, 0x80)), 0x80000000u);
    EXPECT_EQ(bits_of_f32(minifloat_to_f32(data_type::f4_e2m1, 0x8)), 0x80000000u);
    EXPECT_EQ(minifloat_to_f32(data_type::f8_e4m3fnuz, 0x7f), 240.f);
    EXPECT_EQ(minifloat_to_f32(data_type::f8_e5m2fnuz, 0xff), -57344.f);
    EXPECT_EQ(minifloat_to_f32(data_type::f8_e5m2, 0x01), 0x1p-16f);
}

struct encode_case {
    data_type dt;
    float x;
    uint32_t sat, nosat; ///< expected codes with saturate on and off
};

const float inf = INFINITY, qnan = NAN;
const float above_464 = 0x1.d00002p8f; // the f32 after 464
const float below_61440 = 0x1.dffffep15f;

// Worked out by hand from NUMERICS.md.
const std::vector<encode_case> encode_cases = {
        // e4m3fn: 448 = 1.110b * 2^8 (code 0x7e, even), so 464 ties down to it; above it
        // rounds to the missing 480 (NaN or 448).
        {data_type::f8_e4m3, 448.f, 0x7e, 0x7e},
        {data_type::f8_e4m3, 464.f, 0x7e, 0x7e},
        {data_type::f8_e4m3, -464.f, 0xfe, 0xfe},
        {data_type::f8_e4m3, above_464, 0x7e, 0x7f},
        {data_type::f8_e4m3, -above_464, 0xfe, 0xff},
        {data_type::f8_e4m3, 1e30f, 0x7e, 0x7f},
        {data_type::f8_e4m3, inf, 0x7e, 0x7f},
        {data_type::f8_e4m3, -inf, 0xfe, 0xff},
        {data_type::f8_e4m3, qnan, 0x7f, 0x7f},
        {data_type::f8_e4m3, -qnan, 0xff, 0xff},
        {data_type::f8_e4m3, -0.f, 0x80, 0x80},
        {data_type::f8_e4m3, 0x1p-9f, 0x01, 0x01}, // smallest subnormal
        {data_type::f8_e4m3, 0x1p-10f, 0x00, 0x00}, // half of it: tie to the even 0
        {data_type::f8_e4m3, 0x1.000002p-10f, 0x01, 0x01},
        {data_type::f8_e4m3, -0x1p-10f, 0x80, 0x80}, // -0
        {data_type::f8_e4m3, 0x1.8p-9f, 0x02, 0x02}, // tie between codes 1 and 2
        {data_type::f8_e4m3, 0x1.ep-7f, 0x08, 0x08}, // 7.5 * 2^-9: tie 7 / 8 -> 8 = 2^-6
        {data_type::f8_e4m3, 1.0625f, 0x38, 0x38}, // tie between 1 (0x38) and 1.125
        {data_type::f8_e4m3, 1.1875f, 0x3a, 0x3a}, // tie between 1.125 and 1.25 (0x3a)
        // e5m2: 57344 = 1.11b * 2^15 (code 0x7b, odd): 61440 ties up, past the range.
        {data_type::f8_e5m2, 57344.f, 0x7b, 0x7b},
        {data_type::f8_e5m2, below_61440, 0x7b, 0x7b},
        {data_type::f8_e5m2, 61440.f, 0x7b, 0x7c},
        {data_type::f8_e5m2, -61440.f, 0xfb, 0xfc},
        {data_type::f8_e5m2, inf, 0x7b, 0x7c},
        {data_type::f8_e5m2, -inf, 0xfb, 0xfc},
        {data_type::f8_e5m2, qnan, 0x7e, 0x7e},
        {data_type::f8_e5m2, -qnan, 0xfe, 0xfe},
        {data_type::f8_e5m2, 0x1p-16f, 0x01, 0x01},
        {data_type::f8_e5m2, 0x1p-17f, 0x00, 0x00},
        {data_type::f8_e5m2, -0x1p-17f, 0x80, 0x80},
        {data_type::f8_e5m2, 0x1p-14f, 0x04, 0x04}, // smallest normal
        // e4m3fnuz: 240 = 1.111b * 2^7 (0x7f, odd): 248 overflows; no -0, one NaN.
        {data_type::f8_e4m3fnuz, 240.f, 0x7f, 0x7f},
        {data_type::f8_e4m3fnuz, 0x1.effffep7f, 0x7f, 0x7f}, // just below 248
        {data_type::f8_e4m3fnuz, 248.f, 0x7f, 0x80},
        {data_type::f8_e4m3fnuz, -248.f, 0xff, 0x80},
        {data_type::f8_e4m3fnuz, inf, 0x7f, 0x80},
        {data_type::f8_e4m3fnuz, -inf, 0xff, 0x80},
        {data_type::f8_e4m3fnuz, qnan, 0x80, 0x80},
        {data_type::f8_e4m3fnuz, -qnan, 0x80, 0x80},
        {data_type::f8_e4m3fnuz, -0.f, 0x00, 0x00},
        {data_type::f8_e4m3fnuz, -0x1p-11f, 0x00, 0x00}, // rounds to zero: +0
        {data_type::f8_e4m3fnuz, -0x1p-10f, 0x81, 0x81},
        {data_type::f8_e4m3fnuz, 0x1p-10f, 0x01, 0x01},
        // e5m2fnuz: same largest value as e5m2, no Inf.
        {data_type::f8_e5m2fnuz, 57344.f, 0x7f, 0x7f},
        {data_type::f8_e5m2fnuz, below_61440, 0x7f, 0x7f},
        {data_type::f8_e5m2fnuz, 61440.f, 0x7f, 0x80},
        {data_type::f8_e5m2fnuz, -inf, 0xff, 0x80},
        {data_type::f8_e5m2fnuz, -qnan, 0x80, 0x80},
        {data_type::f8_e5m2fnuz, -0.f, 0x00, 0x00},
        {data_type::f8_e5m2fnuz, -0x1p-18f, 0x00, 0x00},
        {data_type::f8_e5m2fnuz, 0x1p-17f, 0x01, 0x01},
        // f4_e2m1: always saturates; NaN -> +6.
        {data_type::f4_e2m1, 6.f, 0x7, 0x7},
        {data_type::f4_e2m1, 7.f, 0x7, 0x7},
        {data_type::f4_e2m1, 100.f, 0x7, 0x7},
        {data_type::f4_e2m1, inf, 0x7, 0x7},
        {data_type::f4_e2m1, -inf, 0xf, 0xf},
        {data_type::f4_e2m1, qnan, 0x7, 0x7},
        {data_type::f4_e2m1, -qnan, 0x7, 0x7},
        {data_type::f4_e2m1, -0.f, 0x8, 0x8},
        {data_type::f4_e2m1, 0.25f, 0x0, 0x0}, // ties to even: 0
        {data_type::f4_e2m1, -0.25f, 0x8, 0x8},
        {data_type::f4_e2m1, 0.75f, 0x2, 0x2}, // 0.5 (1) / 1 (2)
        {data_type::f4_e2m1, 1.25f, 0x2, 0x2}, // 1 (2) / 1.5 (3)
        {data_type::f4_e2m1, 2.5f, 0x4, 0x4}, // 2 (4) / 3 (5)
        {data_type::f4_e2m1, 3.5f, 0x6, 0x6}, // 3 (5) / 4 (6)
        {data_type::f4_e2m1, 5.f, 0x6, 0x6}, // 4 (6) / 6 (7)
        {data_type::f4_e2m1, -5.5f, 0xf, 0xf},
};

TEST(Minifloat, EncodesHandWorkedCases) {
    for (const encode_case &c : encode_cases) {
        const minifloat_format &f = format_of(c.dt);
        const std::vector<qtest::minifloat_entry> v = qtest::model_entries(f);
        SCOPED_TRACE(std::string(f.name) + " x " + hex(bits_of_f32(c.x)));
        EXPECT_EQ(f32_to_minifloat(c.dt, c.x, true), c.sat);
        EXPECT_EQ(f32_to_minifloat(c.dt, c.x, false), c.nosat);
        // The model agrees, so that the sampled and exhaustive checks rest on it.
        EXPECT_EQ(qtest::model_encode(f, v, c.x, true), c.sat);
        EXPECT_EQ(qtest::model_encode(f, v, c.x, false), c.nosat);
    }
}

/// The sample: around every value and every midpoint, specials, f32 subnormals, random bits.
std::vector<uint32_t> sample_inputs(const std::vector<qtest::minifloat_entry> &v) {
    std::vector<uint32_t> in;
    auto around = [&](double x) {
        const uint32_t b = bits_of_f32(static_cast<float>(x));
        for (uint32_t d = 0; d <= 4; ++d)
            for (uint32_t s : {0u, 0x80000000u}) {
                in.push_back((b + d) ^ s);
                if (b >= d) in.push_back((b - d) ^ s);
            }
    };
    for (size_t k = 0; k < v.size(); ++k) {
        around(v[k].value);
        if (k + 1 < v.size()) around((v[k].value + v[k + 1].value) / 2);
    }
    for (uint32_t b : {0x7f800000u, 0x7f800001u, 0x7fa00000u, 0x7fc00000u, 0x7fc00001u,
                 0x7fffffffu, 0x7f7fffffu, 0x00000001u, 0x00000002u, 0x00400000u, 0x007fffffu,
                 0x00800000u})
        for (uint32_t s : {0u, 0x80000000u}) in.push_back(b | s);
    std::mt19937 gen(12); // fixed seed
    for (int i = 0; i < (1 << 20); ++i) in.push_back(static_cast<uint32_t>(gen()));
    // Magnitudes 2^-35 .. 2^17, around every format's values, subnormals included.
    std::uniform_int_distribution<uint32_t> near(0x2e000000u, 0x48000000u);
    for (int i = 0; i < (1 << 20); ++i) in.push_back(near(gen) | (i & 1u) << 31);
    return in;
}

TEST(Minifloat, EncodesASampleLikeTheModel) {
    for (const minifloat_format &f : qtest::minifloat_formats()) {
        const std::vector<qtest::minifloat_entry> v = qtest::model_entries(f);
        int reported = 0;
        for (uint32_t b : sample_inputs(v))
            for (bool sat : {true, false}) {
                const float x = f32_from(b);
                const uint32_t got = f32_to_minifloat(f.dt, x, sat);
                const uint32_t want = qtest::model_encode(f, v, x, sat);
                if (got != want && reported++ < 10)
                    ADD_FAILURE() << f.name << " saturate " << sat << " x " << hex(b)
                                  << ": got " << hex(got) << ", want " << hex(want);
            }
        EXPECT_EQ(reported, 0) << f.name;
    }
}

} // namespace
