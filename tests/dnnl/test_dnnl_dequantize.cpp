// Dequantize through the dnnl backend, bit for bit against the reference backend: every 8-bit
// value, s32 edges, every zero-point form dnnl accepts, static and runtime scales (special
// values included), per-channel on every axis, strided layouts, sizes 1..130 and large ones.

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dnnl/dnnl_test_util.hpp"

namespace qgraph {
namespace impl {
namespace dnnl_test {
namespace {

const data_type int_types[] = {data_type::u8, data_type::s8, data_type::s32};

// Zero points dnnl runs itself (no fallback) for each src type.
struct zp_form {
    param_source src;
    data_type dt;
    int64_t value;
};

std::vector<zp_form> zero_points_for(data_type src) {
    const int64_t int_min = std::numeric_limits<int32_t>::min();
    if (src == data_type::s32) // only zero: oneDNN rounds f32(x) before subtracting
        return {{param_source::none, data_type::undef, 0},
                {param_source::attr, data_type::undef, 0},
                {param_source::input, data_type::s32, 0},
                {param_source::input, data_type::u8, 0},
                {param_source::input, data_type::s8, 0}};
    return {{param_source::none, data_type::undef, 0}, {param_source::attr, data_type::undef, 1},
            {param_source::attr, data_type::undef, -3},
            {param_source::attr, data_type::undef, 128},
            {param_source::attr, data_type::undef, 255},
            {param_source::attr, data_type::undef, -128},
            {param_source::attr, data_type::undef, 16776961}, // 2^24 - 255: exact in f32
            {param_source::attr, data_type::undef, -16777216},
            {param_source::attr, data_type::undef, int64_t {1} << 30},
            {param_source::attr, data_type::undef, int_min}, // == DNNL_RUNTIME_S32_VAL
            {param_source::input, data_type::u8, 0}, {param_source::input, data_type::u8, 7},
            {param_source::input, data_type::u8, 255},
            {param_source::input, data_type::s8, -128},
            {param_source::input, data_type::s8, 5},
            {param_source::input, data_type::s32, int_min},
            {param_source::input, data_type::s32, 16777216},
            {param_source::input, data_type::s32, -77}};
}

// A common zero point; `count` copies for a per-channel problem, as lowering passes them.
void set_zp(spec &s, const zp_form &z, size_t count = 1) {
    s.zp_src = z.src;
    s.zp_dt = z.dt;
    s.zps.assign(count, z.value);
}

const float scales[] = {0.1f, -0.7f, 1.f, 1e-40f /* subnormal */, 3e38f /* overflows */,
        6.1e-5f, 0.003921569f};

TEST(DnnlDequantize, EveryValueZeroPointAndScale) {
    for (data_type dt : int_types)
        for (const zp_form &z : zero_points_for(dt))
            for (float sc : scales)
                for (param_source ss : {param_source::attr, param_source::input}) {
                    spec s = dequantize_spec(dt, {300}); // every 8-bit value, then a tail
                    s.scales = {sc};
                    s.scale_src = ss;
                    set_zp(s, z);
                    std::string ran;
                    ASSERT_TRUE(same_as_ref(s, &ran)) << "scale " << sc;
                    EXPECT_EQ(ran, "dnnl:reorder");
                }
}

TEST(DnnlDequantize, SpecialRuntimeScales) {
    // Graphs reject these as attributes, but runtime scales follow the formula whatever they are.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    for (data_type dt : int_types)
        for (float sc : {nan, -nan, inf, -inf, 0.f, -0.f, std::numeric_limits<float>::max(),
                     std::numeric_limits<float>::denorm_min()}) {
            spec s = dequantize_spec(dt, {300});
            s.scale_src = param_source::input;
            s.scales = {sc};
            if (dt != data_type::s32) set_zp(s, {param_source::input, data_type::u8, 9});
            ASSERT_TRUE(same_as_ref(s)) << sc;
        }
}

TEST(DnnlDequantize, NegativeScaleGivesNegativeZero) {
    // x == zp with a negative scale is -0.f; the sign must survive.
    spec s = dequantize_spec(data_type::u8, {256});
    s.scales = {-0.5f};
    set_zp(s, {param_source::attr, data_type::undef, 17});
    ASSERT_TRUE(same_as_ref(s));
}

// oneDNN 2.6 drops a source zero point on some non-dense layouts (see dnnl_legality.cpp), so
// the backend takes a zero point only when src and dst are dense.
void expect_zero_point_layout_rejected(const spec &s) {
    std::string reason;
    EXPECT_EQ(create_dnnl(make_problem(s), reason), nullptr);
    EXPECT_NE(reason.find("zero point on a non-dense layout"), std::string::npos) << reason;
}

TEST(DnnlDequantize, SizesOneTo130DenseAndStrided) {
    for (data_type dt : int_types)
        for (int64_t n = 1; n <= 130; ++n)
            for (bool strided : {false, true}) {
                spec s = dequantize_spec(dt, {n});
                if (strided) {
                    s.src_strides = {3};
                    s.dst_strides = {2};
                }
                s.scales = {0.37f};
                ASSERT_TRUE(same_as_ref(s)) << "n " << n;
                if (dt == data_type::s32) continue;
                set_zp(s, {param_source::attr, data_type::undef, 3});
                if (strided && n > 1) // one element has no layout to get wrong
                    expect_zero_point_layout_rejected(s);
                else
                    ASSERT_TRUE(same_as_ref(s)) << "n " << n;
            }
}

// Distinct, awkward scales per channel.
std::vector<float> channel_scales(int64_t n) {
    std::vector<float> v;
    for (int64_t c = 0; c < n; ++c)
        v.push_back((c % 2 ? -1.f : 1.f)
                * std::ldexp(1.1f + 0.07f * c, static_cast<int>(c % 7) * 9 - 30));
    return v;
}

TEST(DnnlDequantize, PerChannelEveryAxis) {
    const std::vector<int64_t> dims {3, 4, 5, 6};
    for (data_type dt : int_types)
        for (int axis = 0; axis < 4; ++axis)
            for (param_source ss : {param_source::attr, param_source::input})
                for (bool with_zp : {false, true}) {
                    spec s = dequantize_spec(dt, dims);
                    s.axis = axis;
                    s.scale_src = ss;
                    s.scales = channel_scales(dims[axis]);
                    // The same static zp for every channel is one common zp for oneDNN
                    // (per-channel zp inputs are rejected; s32 only has an exact zp of 0).
                    if (with_zp)
                        set_zp(s, {param_source::attr, data_type::undef,
                                          dt == data_type::s32 ? 0 : -9},
                                static_cast<size_t>(dims[axis]));
                    ASSERT_TRUE(same_as_ref(s)) << "axis " << axis;
                }
}

TEST(DnnlDequantize, StridedLayouts) {
    const std::vector<int64_t> dims {5, 7, 9};
    struct layout {
        std::vector<int64_t> src, dst;
    };
    const layout layouts[] = {
            {reversed_strides(dims), {}}, // transposed src
            {{}, reversed_strides(dims)}, // transposed dst
            {padded_strides(dims, 3), padded_strides(dims, 1)}, // padded both
            {{1, 5, 35}, padded_strides(dims, 2)}, // transposed src, padded dst
            {{0, 9, 1}, {}}, // src broadcast along dim 0
    };
    for (data_type dt : int_types)
        for (const layout &l : layouts)
            for (int axis : {-1, 0, 1, 2}) {
                spec s = dequantize_spec(dt, dims);
                s.src_strides = l.src;
                s.dst_strides = l.dst;
                s.axis = axis;
                s.scales = axis < 0 ? std::vector<float> {0.21f} : channel_scales(dims[axis]);
                ASSERT_TRUE(same_as_ref(s)) << "axis " << axis;
                if (dt == data_type::s32) continue;
                set_zp(s, {param_source::attr, data_type::undef, 100}, s.scales.size());
                expect_zero_point_layout_rejected(s);
            }
}

TEST(DnnlDequantize, ZeroDAndSingleElement) {
    for (data_type dt : int_types)
        for (const std::vector<int64_t> &dims :
                {std::vector<int64_t> {}, std::vector<int64_t> {1}, std::vector<int64_t> {1, 1, 1}})
            for (const zp_form &z : zero_points_for(dt)) {
                spec s = dequantize_spec(dt, dims);
                set_zp(s, z);
                const auto in = make_int_inputs(s, [dt](int64_t) {
                    return dt == data_type::u8 ? 200 : dt == data_type::s8 ? -100 : 16777217;
                });
                ASSERT_TRUE(same_as_ref(s, in));
            }
}

TEST(DnnlDequantize, LargeTensors) {
    for (data_type dt : int_types) {
        spec s = dequantize_spec(dt, {(int64_t {1} << 20) + 5});
        if (dt != data_type::s32) set_zp(s, {param_source::input, data_type::u8, 128});
        ASSERT_TRUE(same_as_ref(s));

        spec pc = dequantize_spec(dt, {64, 3, 1001});
        pc.axis = 0;
        pc.scale_src = param_source::input;
        pc.scales = channel_scales(64);
        ASSERT_TRUE(same_as_ref(pc));
    }
}

} // namespace
} // namespace dnnl_test
} // namespace impl
} // namespace qgraph
