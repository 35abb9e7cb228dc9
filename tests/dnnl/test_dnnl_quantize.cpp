// f32 -> u8 quantize through the dnnl backend, bit for bit against the reference backend:
// every power-of-two scale class (subnormal 2^-127 to 2^127, negative), static and runtime,
// zero zero points in every form, NaN / +-Inf / ties / saturation / |x/s| >= 2^31 /
// subnormals / -0 / random bit patterns, per-channel on every axis, strided layouts, sizes
// 1..130 and large ones.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dnnl/dnnl_test_util.hpp"

namespace qgraph {
namespace impl {
namespace dnnl_test {
namespace {

const float pow2_scales[] = {1.f, 0.5f, 2.f, -1.f, -0.125f, 1024.f, 0x1p-20f,
        0x1p-126f /* smallest normal */, 0x1p-127f /* subnormal, 1/s = 2^127 */, 0x1p127f};

// A zero point that is zero in each form lowering can produce.
struct zero_zp {
    param_source src;
    data_type dt;
};
const zero_zp zero_zps[] = {{param_source::none, data_type::undef},
        {param_source::attr, data_type::undef}, {param_source::input, data_type::u8},
        {param_source::input, data_type::s8}, {param_source::input, data_type::s32}};

void set_zero_zp(spec &s, const zero_zp &z, size_t count) {
    s.zp_src = z.src;
    s.zp_dt = z.dt;
    s.zps.assign(count, 0);
}

TEST(DnnlQuantize, EveryScaleClassAndSpecialValue) {
    for (float sc : pow2_scales)
        for (param_source ss : {param_source::attr, param_source::input})
            for (const zero_zp &z : zero_zps) {
                spec s = quantize_spec({1000});
                s.scales = {sc};
                s.scale_src = ss;
                set_zero_zp(s, z, 1);
                std::string ran;
                ASSERT_TRUE(same_as_ref(s, &ran)) << "scale " << sc;
                EXPECT_EQ(ran, "dnnl:reorder");
            }
}

TEST(DnnlQuantize, AllFloatExponentsAtScaleOne) {
    // One value per (exponent, sign, a few mantissas): every magnitude class of f32.
    spec s = quantize_spec({256 * 2 * 4});
    const auto in = make_f32_inputs(s, [](int64_t i) {
        const uint32_t exp = static_cast<uint32_t>(i % 256);
        const uint32_t sign = static_cast<uint32_t>((i / 256) % 2) << 31;
        const uint32_t mant[] = {0, 1, 0x400000, 0x7fffff};
        const uint32_t u = sign | exp << 23 | mant[(i / 512) % 4];
        float f;
        std::memcpy(&f, &u, sizeof f);
        return f;
    });
    for (float sc : pow2_scales) {
        s.scales = {sc};
        ASSERT_TRUE(same_as_ref(s, in)) << "scale " << sc;
    }
}

TEST(DnnlQuantize, SizesOneTo130DenseAndStrided) {
    for (int64_t n = 1; n <= 130; ++n)
        for (bool strided : {false, true}) {
            spec s = quantize_spec({n});
            if (strided) {
                s.src_strides = {2};
                s.dst_strides = {3};
            }
            s.scales = {0.25f};
            ASSERT_TRUE(same_as_ref(s)) << "n " << n;
        }
}

// Distinct powers of two per channel, both signs, across the exponent range.
std::vector<float> channel_scales(int64_t n) {
    std::vector<float> v;
    for (int64_t c = 0; c < n; ++c)
        v.push_back((c % 3 == 1 ? -1.f : 1.f)
                * std::ldexp(1.f, static_cast<int>(c * 37 % 255) - 127));
    return v;
}

TEST(DnnlQuantize, PerChannelEveryAxis) {
    const std::vector<int64_t> dims {3, 4, 5, 6};
    for (int axis = 0; axis < 4; ++axis)
        for (param_source ss : {param_source::attr, param_source::input})
            for (const zero_zp &z : zero_zps) {
                spec s = quantize_spec(dims);
                s.axis = axis;
                s.scale_src = ss;
                s.scales = channel_scales(dims[axis]);
                set_zero_zp(s, z, static_cast<size_t>(dims[axis]));
                // Inputs are made at channel 0's scale, so the other channels see them as
                // very large or very small values; the next test aims at each channel.
                ASSERT_TRUE(same_as_ref(s)) << "axis " << axis;
            }
}

TEST(DnnlQuantize, PerChannelInputsScaledPerChannel) {
    // Inputs built from each element's own channel scale, so every channel sees ties and
    // saturation edges at its scale (dims {7, 130}, channels along dim 0).
    const std::vector<int64_t> dims {7, 130};
    for (param_source ss : {param_source::attr, param_source::input}) {
        spec s = quantize_spec(dims);
        s.axis = 0;
        s.scale_src = ss;
        s.scales = channel_scales(7);
        const auto sc = s.scales;
        const auto in = make_f32_inputs(
                s, [&sc](int64_t i) { return quantize_input(i, sc[i / 130]); });
        ASSERT_TRUE(same_as_ref(s, in));
    }
}

TEST(DnnlQuantize, StridedLayouts) {
    const std::vector<int64_t> dims {5, 7, 9};
    struct layout {
        std::vector<int64_t> src, dst;
    };
    const layout layouts[] = {
            {reversed_strides(dims), {}},
            {{}, reversed_strides(dims)},
            {padded_strides(dims, 3), padded_strides(dims, 1)},
            {{1, 5, 35}, padded_strides(dims, 2)},
            {{0, 9, 1}, {}},
    };
    for (const layout &l : layouts)
        for (int axis : {-1, 0, 1, 2}) {
            spec s = quantize_spec(dims);
            s.src_strides = l.src;
            s.dst_strides = l.dst;
            s.axis = axis;
            s.scales = axis < 0 ? std::vector<float> {0.5f} : channel_scales(dims[axis]);
            ASSERT_TRUE(same_as_ref(s)) << "axis " << axis;
        }
}

TEST(DnnlQuantize, ZeroDAndSingleElement) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (const std::vector<int64_t> &dims :
            {std::vector<int64_t> {}, std::vector<int64_t> {1}, std::vector<int64_t> {1, 1}})
        for (float x : {nan, -nan, 2.5f, 3.5f, -0.f, 255.5f, 1e30f, -1e30f,
                     std::numeric_limits<float>::infinity()})
            for (param_source ss : {param_source::attr, param_source::input}) {
                spec s = quantize_spec(dims);
                s.scale_src = ss;
                s.scales = {0.5f};
                ASSERT_TRUE(same_as_ref(s, make_f32_inputs(s, [x](int64_t) { return x; }))) << x;
            }
}

TEST(DnnlQuantize, LargeTensors) {
    for (param_source ss : {param_source::attr, param_source::input}) {
        spec s = quantize_spec({(int64_t {1} << 20) + 3});
        s.scale_src = ss;
        s.scales = {0.0625f};
        ASSERT_TRUE(same_as_ref(s));

        spec pc = quantize_spec({2, 100, 3000});
        pc.axis = 1;
        pc.scale_src = ss;
        pc.scales = channel_scales(100);
        ASSERT_TRUE(same_as_ref(pc));
    }
}

} // namespace
} // namespace dnnl_test
} // namespace impl
} // namespace qgraph
