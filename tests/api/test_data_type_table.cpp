// The type table (qgraph/data_type_table.hpp) against facts obtained without it: float
// formats decoded code by code from their exponent, mantissa and bias, compared with the
// values NUMERICS.md and the IEEE/ONNX specs state; integer ranges against
// std::numeric_limits and 2^(bits-1); names through the public string functions.

#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "qgraph/qgraph.hpp"

namespace {

using qgraph::data_type;
using qgraph::data_type_facts;
using qgraph::facts_of;
using qgraph::float_style;
using qgraph::type_class;

/// What one code means, from the row's fields alone: sign | exponent | mantissa, with the
/// style deciding which codes are NaN and Inf.
double decode(const data_type_facts &f, uint32_t code) {
    const uint32_t mmask = (1u << f.man_bits) - 1, emask = (1u << f.exp_bits) - 1;
    const uint32_t m = code & mmask, e = (code >> f.man_bits) & emask;
    const bool neg = f.is_signed && ((code >> (f.exp_bits + f.man_bits)) & 1);
    const double inf = std::numeric_limits<double>::infinity();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    switch (f.style) {
        case float_style::ieee:
            if (e == emask) return m != 0 ? nan : neg ? -inf : inf;
            break;
        case float_style::fn:
            if (e == emask && m == mmask) return nan;
            break;
        case float_style::fnuz:
            if (neg && e == 0 && m == 0) return nan;
            break;
        case float_style::e8m0: return e == emask ? nan : std::ldexp(1.0, int(e) - f.bias);
        case float_style::finite:
        case float_style::none: break;
    }
    const double mag = e == 0 ? std::ldexp(double(m), 1 - f.bias - f.man_bits)
                              : std::ldexp(double(m + mmask + 1), int(e) - f.bias - f.man_bits);
    return neg ? -mag : mag;
}

/// Facts stated outside the table: NUMERICS.md's float8/float4 table, IEEE 754 binary16,
/// bfloat16, ONNX's E8M0.
struct float_expect {
    data_type dt;
    double max; ///< largest finite value
    double smallest; ///< smallest positive value (a subnormal except for e8m0)
    int nan_codes, inf_codes;
    std::vector<uint32_t> some_nans; ///< codes the specs name as NaN
    bool neg_zero;
};

const std::vector<float_expect> &float_expects() {
    static const std::vector<float_expect> v = {
            {data_type::bf16, 0x1.fep127, 0x1p-133, 2 * 127, 2, {0x7fc0, 0xffff}, true},
            {data_type::f16, 65504, 0x1p-24, 2 * 1023, 2, {0x7e00, 0xfc01}, true},
            {data_type::f8_e4m3, 448, 0x1p-9, 2, 0, {0x7f, 0xff}, true},
            {data_type::f8_e5m2, 57344, 0x1p-16, 6, 2, {0x7d, 0x7e, 0x7f, 0xfd, 0xfe, 0xff},
                    true},
            {data_type::f8_e4m3fnuz, 240, 0x1p-10, 1, 0, {0x80}, false},
            {data_type::f8_e5m2fnuz, 57344, 0x1p-17, 1, 0, {0x80}, false},
            {data_type::f4_e2m1, 6, 0.5, 0, 0, {}, true},
            {data_type::e8m0, 0x1p127, 0x1p-127, 1, 0, {0xff}, false},
    };
    return v;
}

TEST(DataTypeTable, EveryFloatFormatDecodesToItsStatedFacts) {
    for (const float_expect &x : float_expects()) {
        const data_type_facts &f = facts_of(x.dt);
        SCOPED_TRACE(f.name);
        ASSERT_EQ(f.cls, type_class::floating);
        EXPECT_EQ(f.bits, int(f.is_signed) + f.exp_bits + f.man_bits);
        EXPECT_EQ(f.max, x.max);
        double max = 0, smallest = INFINITY;
        int nans = 0, infs = 0;
        bool neg_zero = false;
        for (uint32_t c = 0; c < (1u << f.bits); ++c) {
            const double v = decode(f, c);
            if (std::isnan(v)) ++nans;
            else if (std::isinf(v)) ++infs;
            else {
                max = std::fmax(max, v);
                if (v > 0) smallest = std::fmin(smallest, v);
                neg_zero |= v == 0 && std::signbit(v);
            }
        }
        EXPECT_EQ(max, x.max);
        EXPECT_EQ(max, f.max);
        EXPECT_EQ(smallest, x.smallest);
        EXPECT_EQ(nans, x.nan_codes);
        EXPECT_EQ(infs, x.inf_codes);
        EXPECT_EQ(neg_zero, x.neg_zero);
        for (uint32_t c : x.some_nans) EXPECT_TRUE(std::isnan(decode(f, c))) << c;
    }
}

TEST(DataTypeTable, F32IsTheCompilersFloat) {
    using lim = std::numeric_limits<float>;
    const data_type_facts &f = facts_of(data_type::f32);
    EXPECT_EQ(f.bits, 8 * int(sizeof(float)));
    EXPECT_EQ(f.man_bits, lim::digits - 1);
    EXPECT_EQ(f.bias, lim::max_exponent - 1);
    EXPECT_EQ(f.style, float_style::ieee);
    EXPECT_EQ(f.max, double(lim::max()));
    EXPECT_EQ(decode(f, 0x7f7fffffu), double(lim::max()));
    EXPECT_EQ(decode(f, 1), double(lim::denorm_min()));
    EXPECT_TRUE(std::isinf(decode(f, 0x7f800000u)));
    EXPECT_TRUE(std::isnan(decode(f, 0x7fc00000u)));
}

TEST(DataTypeTable, EveryFloatTypeIsCheckedAbove) {
    std::set<data_type> checked = {data_type::f32};
    for (const float_expect &x : float_expects()) checked.insert(x.dt);
    for (const data_type_facts &f : qgraph::data_type_table)
        EXPECT_EQ(f.cls == type_class::floating, checked.count(f.dt) == 1) << f.name;
}

template <typename T>
void expect_range_of(data_type dt) {
    const data_type_facts &f = facts_of(dt);
    SCOPED_TRACE(f.name);
    EXPECT_EQ(f.cls, type_class::integer);
    EXPECT_EQ(f.bits, 8 * int(sizeof(T)));
    EXPECT_EQ(f.is_signed, std::numeric_limits<T>::is_signed);
    EXPECT_EQ(f.lo, int64_t(std::numeric_limits<T>::min()));
    EXPECT_EQ(f.hi, int64_t(std::numeric_limits<T>::max()));
}

TEST(DataTypeTable, IntegerRangesAreTheirCppTypes) {
    expect_range_of<int8_t>(data_type::s8);
    expect_range_of<uint8_t>(data_type::u8);
    expect_range_of<int16_t>(data_type::s16);
    expect_range_of<uint16_t>(data_type::u16);
    expect_range_of<int32_t>(data_type::s32);
    expect_range_of<int64_t>(data_type::s64);
}

TEST(DataTypeTable, SubByteIntegersSpanTheirBits) {
    for (data_type dt : {data_type::s4, data_type::u4, data_type::s2, data_type::u2}) {
        const data_type_facts &f = facts_of(dt);
        SCOPED_TRACE(f.name);
        EXPECT_EQ(f.cls, type_class::integer);
        const int64_t span = int64_t(1) << f.bits;
        EXPECT_EQ(f.lo, f.is_signed ? -span / 2 : 0);
        EXPECT_EQ(f.hi, f.is_signed ? span / 2 - 1 : span - 1);
        EXPECT_EQ(f.is_signed, f.name[0] == 's');
    }
    EXPECT_EQ(facts_of(data_type::s4).bits, 4);
    EXPECT_EQ(facts_of(data_type::s2).bits, 2);
    const data_type_facts &b = facts_of(data_type::boolean);
    EXPECT_EQ(b.cls, type_class::boolean);
    EXPECT_EQ(b.lo, 0);
    EXPECT_EQ(b.hi, 1);
}

TEST(DataTypeTable, PackingFillsWholeBytes) {
    for (const data_type_facts &f : qgraph::data_type_table) {
        SCOPED_TRACE(f.name);
        if (f.dt == data_type::undef) continue;
        if (f.bits < 8)
            EXPECT_EQ(f.per_byte * f.bits, 8);
        else
            EXPECT_TRUE(f.per_byte == 1 && f.bits % 8 == 0);
        EXPECT_EQ(qgraph::data_type_bits(f.dt), size_t(f.bits));
    }
    EXPECT_EQ(qgraph::data_type_bits(data_type::undef), 0u);
    EXPECT_EQ(facts_of(data_type::f4_e2m1).per_byte, 2);
    EXPECT_EQ(facts_of(data_type::u2).per_byte, 4);
}

TEST(DataTypeTable, NamesRoundTripAndAreUnique) {
    std::set<std::string> names, onnx;
    for (const data_type_facts &f : qgraph::data_type_table) {
        EXPECT_STREQ(qgraph::to_string(f.dt), f.name);
        EXPECT_TRUE(names.insert(f.name).second) << f.name;
        EXPECT_TRUE(onnx.insert(f.onnx_name).second) << f.onnx_name;
        if (f.dt != data_type::undef) {
            EXPECT_EQ(qgraph::data_type_from_string(f.name), f.dt) << f.name;
        }
    }
    // "undef" names no type a file may use.
    EXPECT_THROW(qgraph::data_type_from_string("undef"), qgraph::error);
    EXPECT_STREQ(facts_of(data_type::f8_e4m3).onnx_name, "FLOAT8E4M3FN");
    EXPECT_STREQ(facts_of(data_type::boolean).onnx_name, "BOOL");
}

} // namespace
