// e8m0 scale tensors (ONNX opset 24+, the MX formats' power-of-two scales) on the JIT kernels:
// the drivers read them exactly as f32 (2^(c - 127), code 255 NaN; jit_driver.hpp's
// scale_at() per row, lane_scales() along the run) and the grouped dequantize driver widens
// the tensor at execute. Every one of the 256 codes as a scale, per channel on an outer axis,
// along the contiguous dim and in blocks along either; quantize into 8- and 16-bit integers,
// float8 and s4, dequantize of 8-bit, s4 and float8 x into f32, bf16 and f16. Through the
// public API with the jit backend forced, against ref bit for bit, at every ISA level and 1
// and 2 threads.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/helpers.hpp"
#include "api/isa_threads.hpp"

namespace {

using namespace qtest;

bool is_float8(dt t) {
    return t == dt::f8_e4m3 || t == dt::f8_e5m2;
}

uint32_t bits_of(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

/// ONNX's TensorProto code of a DequantizeLinear output type.
int64_t onnx_code(dt t) {
    return t == dt::f16 ? 10 : t == dt::bf16 ? 16 : 1;
}

/// The layouts: x's shape, the scale tensor's, the axis and block_size (0: per channel).
struct layout {
    dims x, s;
    int64_t axis, block;
};

/// 256 scales (every e8m0 code) in each layout: per channel on axis 0 and on the last axis,
/// blocks of 32 along the last axis (grouped dequantize; blocked quantize rows) and along
/// axis 0 (lanes).
const layout layouts[] = {
        {{256, 40}, {256}, 0, 0},
        {{8, 256}, {256}, 1, 0},
        {{2, 4096}, {2, 128}, 1, 32},
        {{64, 128}, {2, 128}, 0, 32},
};

std::string show(const layout &l) {
    return "axis " + std::to_string(l.axis) + " block " + std::to_string(l.block) + " "
            + std::to_string(l.x[0]) + "x" + std::to_string(l.x[1]);
}

/// The scale tensor: code i % 256 at entry i, shuffled, so that each layout's parameter
/// order meets every code.
std::vector<uint8_t> every_code(const dims &s, std::mt19937 &g) {
    std::vector<uint8_t> c(static_cast<size_t>(nelems(s)));
    for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<uint8_t>(i);
    std::shuffle(c.begin(), c.end(), g);
    return c;
}

/// x of QuantizeLinear: powers of two from 2^-140 to 2^140 (every quotient exact, landing
/// on and beyond each destination's range for some scale), ties and their neighbours at unit
/// scale, random values, zeros, Inf and NaN.
std::vector<float> quantize_x(int64_t n, std::mt19937 &g) {
    std::vector<float> x(static_cast<size_t>(n));
    for (size_t i = 0; i < x.size(); ++i) {
        switch (i % 5) {
            case 0: x[i] = std::ldexp(1.f, static_cast<int>(g() % 281) - 140); break;
            case 1: x[i] = static_cast<float>(static_cast<int>(g() % 601) - 300) + 0.5f; break;
            case 2: x[i] = (static_cast<int>(g() % 8192) - 4096) * 0.0371f; break;
            case 3:
                x[i] = std::ldexp(static_cast<float>(g() % 4096), static_cast<int>(g() % 61) - 30);
                break;
            default: {
                const float special[] = {0.f, -0.f, INFINITY, -INFINITY, NAN, 1e-40f, -3e38f};
                x[i] = special[g() % 7];
            }
        }
        if (g() % 2) x[i] = -x[i];
    }
    return x;
}

TEST(JitE8m0Scales, QuantizeWithEveryCode) {
    std::mt19937 g(24);
    for (const layout &l : layouts)
        for (dt xdt : {dt::f32, dt::bf16})
            for (dt y : {dt::u8, dt::s8, dt::s16, dt::f8_e4m3, dt::f8_e5m2, dt::s4}) {
                const std::vector<lt> ins {dense(0, xdt, l.x), dense(1, dt::e8m0, l.s),
                        dense(2, y, l.s)};
                op o(0, op::kind::QuantizeLinear, ins, {dense(3, y, l.x)}, "q");
                o.set_attr<int64_t>("opset", 25);
                o.set_attr<int64_t>("axis", l.axis);
                if (l.block > 0) o.set_attr<int64_t>("block_size", l.block);
                const std::vector<float> xf = quantize_x(nelems(l.x), g);
                std::vector<buffer> in;
                if (xdt == dt::f32) {
                    in.push_back(make_buffer(ins[0], xf));
                } else {
                    std::vector<uint16_t> xb(xf.size());
                    for (size_t i = 0; i < xf.size(); ++i) xb[i] = bits_of(xf[i]) >> 16;
                    in.push_back(make_buffer(ins[0], xb));
                }
                in.push_back(make_buffer(ins[1], every_code(l.s, g)));
                buffer z(ins[2]); // zero points: +0 for float8, else any code
                auto *zb = static_cast<uint8_t *>(z.data());
                for (size_t i = 0; i < z.size(); ++i)
                    zb[i] = is_float8(y) ? 0 : static_cast<uint8_t>(g());
                in.push_back(std::move(z));
                expect_jit_matches_ref_everywhere(o, in,
                        show(l) + " " + qgraph::to_string(xdt) + " -> " + qgraph::to_string(y));
            }
}

TEST(JitE8m0Scales, DequantizeWithEveryCode) {
    std::mt19937 g(25);
    for (const layout &l : layouts)
        for (dt xdt : {dt::u8, dt::s8, dt::s4, dt::u4, dt::f8_e4m3, dt::f8_e5m2})
            for (dt y : {dt::f32, dt::bf16, dt::f16}) {
                const bool f8 = is_float8(xdt);
                std::vector<lt> ins {dense(0, xdt, l.x), dense(1, dt::e8m0, l.s)};
                if (!f8) ins.push_back(dense(2, xdt, l.s));
                op o(0, op::kind::DequantizeLinear, ins, {dense(3, y, l.x)}, "dq");
                o.set_attr<int64_t>("opset", 25);
                o.set_attr<int64_t>("axis", l.axis);
                o.set_attr<int64_t>("output_dtype", onnx_code(y));
                if (l.block > 0) o.set_attr<int64_t>("block_size", l.block);
                std::vector<buffer> in;
                for (size_t k = 0; k < ins.size(); ++k) {
                    if (k == 1) {
                        in.push_back(make_buffer(ins[1], every_code(l.s, g)));
                        continue;
                    }
                    buffer b(ins[k]);
                    auto *p = static_cast<uint8_t *>(b.data());
                    for (size_t i = 0; i < b.size(); ++i) p[i] = static_cast<uint8_t>(g());
                    in.push_back(std::move(b));
                }
                expect_jit_matches_ref_everywhere(o, in,
                        show(l) + " " + qgraph::to_string(xdt) + " -> " + qgraph::to_string(y));
            }
}

/// Scale tensors large enough that the drivers widen them to f32 in parallel parts
/// (jit_driver.hpp's widen_in_parts(): two threads from some 32K entries on): the grouped
/// dequantize's e8m0 tensor, the blocked quantize's, and an f16 tensor along the contiguous
/// dim of a QuantizeLinear (widen_scales()). Entry counts that are no multiple of the parts'
/// 64-entry granule, so the last part is short.
TEST(JitE8m0Scales, LargeScaleTensorsWidenedInParts) {
    std::mt19937 g(26);
    const dims x {1040, 2080}, s {1040, 65}; // 67600 scales, in blocks of 32 along the rows
    std::vector<uint8_t> codes(static_cast<size_t>(nelems(s)));
    for (auto &c : codes) c = static_cast<uint8_t>(110 + g() % 30); // 2^-17 .. 2^12
    for (dt xdt : {dt::f4_e2m1, dt::s4}) {
        const std::vector<lt> ins {dense(0, xdt, x), dense(1, dt::e8m0, s)};
        op o(0, op::kind::DequantizeLinear, ins, {dense(3, dt::f32, x)}, "dq");
        o.set_attr<int64_t>("opset", 25);
        o.set_attr<int64_t>("axis", 1);
        o.set_attr<int64_t>("block_size", 32);
        o.set_attr<int64_t>("output_dtype", onnx_code(dt::f32));
        buffer b(ins[0]);
        auto *p = static_cast<uint8_t *>(b.data());
        for (size_t i = 0; i < b.size(); ++i) p[i] = static_cast<uint8_t>(g());
        std::vector<buffer> in;
        in.push_back(std::move(b));
        in.push_back(make_buffer(ins[1], codes));
        expect_jit_matches_ref_everywhere(o, in, std::string("dequantize ") + qgraph::to_string(xdt));
    }
    {
        const std::vector<lt> ins {dense(0, dt::f32, x), dense(1, dt::e8m0, s)};
        op o(0, op::kind::QuantizeLinear, ins, {dense(3, dt::f4_e2m1, x)}, "q");
        o.set_attr<int64_t>("opset", 25);
        o.set_attr<int64_t>("axis", 1);
        o.set_attr<int64_t>("block_size", 32);
        o.set_attr<int64_t>("output_dtype", 23); // f4_e2m1
        std::vector<buffer> in;
        in.push_back(make_buffer(ins[0], quantize_x(nelems(x), g)));
        in.push_back(make_buffer(ins[1], codes));
        expect_jit_matches_ref_everywhere(o, in, "quantize to f4_e2m1");
    }
    {
        const dims xh {3, 40000}, sh {40000}; // f16 scales along the contiguous dim
        const std::vector<lt> ins {dense(0, dt::f16, xh), dense(1, dt::f16, sh)};
        op o(0, op::kind::QuantizeLinear, ins, {dense(3, dt::u8, xh)}, "q");
        o.set_attr<int64_t>("opset", 21);
        o.set_attr<int64_t>("axis", 1);
        std::vector<uint16_t> xv(static_cast<size_t>(nelems(xh))), sv(static_cast<size_t>(nelems(sh)));
        for (auto &v : xv) v = static_cast<uint16_t>(g() & 0xffff);
        for (auto &v : sv) v = static_cast<uint16_t>(0x1c00 + g() % 0x2000); // 2^-8 .. 2^0
        std::vector<buffer> in;
        in.push_back(make_buffer(ins[0], xv));
        in.push_back(make_buffer(ins[1], sv));
        expect_jit_matches_ref_everywhere(o, in, "quantize f16 with f16 lane scales");
    }
}

} // namespace
