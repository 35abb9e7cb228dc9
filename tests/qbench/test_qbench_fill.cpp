// The benchdnn-style fill: deterministic, special values first, roles chosen from the ops.

#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "tools/case/case_io.hpp"
#include "tools/qbench/codec.hpp"
#include "tools/qbench/fill.hpp"

namespace qgraph {
namespace qbench {
namespace {

bool same(const tools::tensor_values &a, const tools::tensor_values &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
    return true;
}

TEST(QbenchFill, IsDeterministicPerSeedAndTensor) {
    for (fill_role r : {fill_role::data, fill_role::quant_src, fill_role::dql_src,
                 fill_role::scale, fill_role::zero_point}) {
        const data_type dt = r == fill_role::zero_point ? data_type::s8 : data_type::f32;
        const auto a = fill_values(r, dt, 500, 0, 3);
        EXPECT_TRUE(same(a, fill_values(r, dt, 500, 0, 3))) << to_string(r);
        EXPECT_FALSE(same(a, fill_values(r, dt, 500, 1, 3))) << to_string(r);
        EXPECT_FALSE(same(a, fill_values(r, dt, 500, 0, 4))) << to_string(r);
    }
    // A prefix of a longer fill: values do not depend on the tensor size.
    const auto long_fill = fill_values(fill_role::data, data_type::s32, 100, 0, 1);
    const auto short_fill = fill_values(fill_role::data, data_type::s32, 40, 0, 1);
    EXPECT_TRUE(same(short_fill, tools::tensor_values(long_fill.begin(), long_fill.begin() + 40)));
}

// --fill=normal: the float sources' random values near N(0, 1), the same on every call (and
// platform: integer sums), the special values first as with the grid; other roles and integer
// types keep the grid fill's values.
TEST(QbenchFill, NormalFillIsNearAStandardNormal) {
    const int64_t n = 40000;
    for (fill_role r : {fill_role::quant_src, fill_role::dql_src, fill_role::data}) {
        const auto grid = fill_values(r, data_type::f32, n, 0, 0);
        const auto v = fill_values(r, data_type::f32, n, 0, 0, fill_dist::normal);
        EXPECT_TRUE(same(v, fill_values(r, data_type::f32, n, 0, 0, fill_dist::normal)));
        EXPECT_FALSE(same(v, fill_values(r, data_type::f32, n, 1, 0, fill_dist::normal)));
        const size_t specials = r == fill_role::quant_src ? 17 : 8;
        EXPECT_TRUE(same(tools::tensor_values(v.begin(), v.begin() + specials),
                tools::tensor_values(grid.begin(), grid.begin() + specials)))
                << to_string(r);
        double sum = 0, squares = 0;
        size_t off_grid = 0, below_2m6 = 0;
        for (size_t i = specials; i < v.size(); ++i) {
            ASSERT_TRUE(std::fabs(v[i]) < 6) << v[i];
            sum += v[i];
            squares += v[i] * v[i];
            if (v[i] * 4 != std::floor(v[i] * 4)) ++off_grid;
            if (std::fabs(v[i]) < 0x1p-6) ++below_2m6;
        }
        const double m = static_cast<double>(v.size() - specials);
        EXPECT_LT(std::fabs(sum / m), 0.03) << to_string(r);
        EXPECT_NEAR(squares / m, 1.0, 0.05) << to_string(r);
        EXPECT_GT(off_grid, v.size() * 99 / 100) << to_string(r);
        // P(|x| < 2^-6) is about 1.2% for N(0, 1): the values activations have below e4m3's
        // normals.
        EXPECT_GT(below_2m6, v.size() / 200) << to_string(r);
        EXPECT_LT(below_2m6, v.size() / 50) << to_string(r);
    }
    for (fill_role r : {fill_role::scale, fill_role::zero_point}) {
        const data_type dt = r == fill_role::zero_point ? data_type::s8 : data_type::f32;
        EXPECT_TRUE(same(fill_values(r, dt, 300, 0, 1),
                fill_values(r, dt, 300, 0, 1, fill_dist::normal)))
                << to_string(r);
    }
    EXPECT_TRUE(same(fill_values(fill_role::data, data_type::s8, 300, 0, 1),
            fill_values(fill_role::data, data_type::s8, 300, 0, 1, fill_dist::normal)));
}

TEST(QbenchFill, QuantizeSourcesStartWithSpecialValues) {
    const auto v = fill_values(fill_role::quant_src, data_type::f32, 1000, 0, 0);
    const float max = 3.4028234663852886e38f;
    EXPECT_EQ(v[0], max);
    EXPECT_EQ(v[1], -max);
    EXPECT_EQ(v[2], 0.0);
    EXPECT_EQ(v[3], 0.25);
    EXPECT_EQ(v[4], 0.5);
    EXPECT_EQ(v[5], 1.0);
    EXPECT_EQ(v[6], 1.5);
    EXPECT_EQ(v[7], 2.0);
    EXPECT_EQ(v[8], 16.0);
    EXPECT_EQ(v[9], 64.0);
    size_t nans = 0, infs = 0, ties = 0, saturating = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        if (std::isnan(v[i])) ++nans;
        if (std::isinf(v[i])) ++infs;
        if (i < 20 || !std::isfinite(v[i])) continue;
        EXPECT_EQ(v[i] * 4, std::floor(v[i] * 4)) << "not on the 0.25 grid: " << v[i];
        EXPECT_LE(std::fabs(v[i]), 1024.0);
        if (v[i] - std::floor(v[i]) == 0.5) ++ties;
        if (std::fabs(v[i]) > 256) ++saturating;
    }
    EXPECT_EQ(nans, 1u);
    EXPECT_EQ(infs, 2u);
    EXPECT_GT(ties, 100u);
    EXPECT_GT(saturating, 200u);
}

TEST(QbenchFill, ScalesArePositiveMixingPowersOfTwoAndOthers) {
    const auto v = fill_values(fill_role::scale, data_type::f32, 200, 0, 1);
    std::set<double> seen(v.begin(), v.end());
    for (double s : v) EXPECT_GT(s, 0.0);
    EXPECT_TRUE(seen.count(0.25) && seen.count(2.0) && seen.count(0.1) && seen.count(3.0));
}

TEST(QbenchFill, ZeroPointsAreSmallAndInRange) {
    for (data_type dt : {data_type::u8, data_type::s8, data_type::s32}) {
        const auto v = fill_values(fill_role::zero_point, dt, 300, 0, 2);
        std::set<double> seen(v.begin(), v.end());
        for (double z : v) {
            EXPECT_GE(z, std::max(-16.0, type_lowest(dt)));
            EXPECT_LE(z, 15.0);
            EXPECT_EQ(z, std::floor(z));
        }
        EXPECT_TRUE(seen.count(3.0) || seen.count(5.0) || seen.count(7.0)) << "no odd zp";
    }
}

TEST(QbenchFill, NarrowScaleTypesGetValuesTheyHoldExactly) {
    for (data_type dt : {data_type::f16, data_type::bf16, data_type::e8m0}) {
        const auto v = fill_values(fill_role::scale, dt, 200, 0, 1);
        std::set<double> seen(v.begin(), v.end());
        EXPECT_GT(seen.size(), 3u) << to_string(dt);
        for (double s : v) {
            uint64_t bits;
            std::string why;
            ASSERT_TRUE(encode(dt, s, bits, why)) << why;
            EXPECT_EQ(decode(dt, bits), s) << to_string(dt) << " " << s;
        }
    }
}

TEST(QbenchFill, FloatZeroPointsAreZero) {
    // NUMERICS.md: a float quantized type takes no zero point; ONNX's 0 means none.
    for (data_type dt : {data_type::f8_e4m3, data_type::f8_e5m2fnuz, data_type::f4_e2m1})
        for (double z : fill_values(fill_role::zero_point, dt, 100, 0, 2))
            EXPECT_EQ(z, 0.0) << to_string(dt);
    for (data_type dt : {data_type::s4, data_type::u2, data_type::s16}) {
        const auto v = fill_values(fill_role::zero_point, dt, 100, 0, 2);
        EXPECT_NE(std::set<double>(v.begin(), v.end()).size(), 1u) << to_string(dt);
    }
}

TEST(QbenchFill, IntegerDataCoversTheWholeRange) {
    const auto v = fill_values(fill_role::data, data_type::s8, 5000, 0, 0);
    EXPECT_EQ(v[0], 127);
    EXPECT_EQ(v[1], -128);
    std::set<double> seen(v.begin(), v.end());
    EXPECT_EQ(seen.size(), 256u);
    const auto w = fill_values(fill_role::data, data_type::s32, 2000, 0, 0);
    EXPECT_EQ(w[0], 2147483647.0);
    EXPECT_EQ(w[1], -2147483648.0);
    double lo = 0, hi = 0;
    for (double x : w) lo = std::min(lo, x), hi = std::max(hi, x);
    EXPECT_LT(lo, -1e9);
    EXPECT_GT(hi, 1e9);
    // u4: 16 and 64 are out of range and skipped.
    for (double x : fill_values(fill_role::data, data_type::u4, 100, 0, 0)) {
        EXPECT_GE(x, 0);
        EXPECT_LE(x, 15);
    }
}

TEST(QbenchFill, EveryValueCanBeStored) {
    for (data_type dt : {data_type::f32, data_type::bf16, data_type::f16, data_type::u8,
                 data_type::s8, data_type::s32, data_type::s4, data_type::u4, data_type::boolean,
                 data_type::f8_e4m3}) {
        for (fill_role r : {fill_role::data, fill_role::quant_src, fill_role::scale,
                     fill_role::zero_point}) {
            if (r == fill_role::quant_src && !is_float_type(dt)) continue;
            for (double x : fill_values(r, dt, 300, 0, 0)) {
                uint64_t bits;
                std::string why;
                EXPECT_TRUE(encode(dt, x, bits, why))
                        << to_string(dt) << " " << to_string(r) << " " << x << ": " << why;
            }
        }
    }
}

TEST(QbenchFill, RolesComeFromTheOpsThatReadTheTensor) {
    const tools::graph_case c = tools::parse_case(R"({
      "version": "0.1.0", "engine_kind": "cpu", "fpmath_mode": "strict",
      "graph": [
        {"id": 0, "name": "q", "kind": "QuantizeLinear", "attrs": {},
         "inputs": [
           {"id": 0, "dtype": "f32", "shape": [4], "stride": [1], "layout_type": "strided", "property_type": "undef"},
           {"id": 1, "dtype": "f32", "shape": [], "stride": [], "layout_type": "strided", "property_type": "undef"},
           {"id": 2, "dtype": "u8", "shape": [], "stride": [], "layout_type": "strided", "property_type": "undef"}],
         "outputs": [
           {"id": 3, "dtype": "u8", "shape": [4], "stride": [1], "layout_type": "strided", "property_type": "undef"}]},
        {"id": 1, "name": "dql", "kind": "DynamicQuantizeLinear", "attrs": {},
         "inputs": [
           {"id": 4, "dtype": "f32", "shape": [4], "stride": [1], "layout_type": "strided", "property_type": "undef"}],
         "outputs": [
           {"id": 5, "dtype": "u8", "shape": [4], "stride": [1], "layout_type": "strided", "property_type": "undef"},
           {"id": 6, "dtype": "f32", "shape": [], "stride": [], "layout_type": "strided", "property_type": "undef"},
           {"id": 7, "dtype": "u8", "shape": [], "stride": [], "layout_type": "strided", "property_type": "undef"}]},
        {"id": 2, "name": "dq", "kind": "Dequantize",
         "attrs": {"qtype": {"type": "string", "value": "per_tensor"}, "scales": {"type": "f32[]", "value": [1.0]}},
         "inputs": [
           {"id": 8, "dtype": "s8", "shape": [4], "stride": [1], "layout_type": "strided", "property_type": "undef"}],
         "outputs": [
           {"id": 9, "dtype": "f32", "shape": [4], "stride": [1], "layout_type": "strided", "property_type": "undef"}]}
      ]})");
    EXPECT_EQ(input_role(c, 0), fill_role::quant_src);
    EXPECT_EQ(input_role(c, 1), fill_role::scale);
    EXPECT_EQ(input_role(c, 2), fill_role::zero_point);
    EXPECT_EQ(input_role(c, 4), fill_role::dql_src);
    EXPECT_EQ(input_role(c, 8), fill_role::data);
}

} // namespace
} // namespace qbench
} // namespace qgraph
