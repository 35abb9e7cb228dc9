// f16 and bf16 scale tensors on the JIT kernels (ONNX QuantizeLinear / DequantizeLinear of
// fp16 and bf16 models): the drivers widen each row's scale exactly to f32
// (jit_driver.hpp's scale_at()), and an f16 x with f16 scales divides in f16 (NUMERICS.md,
// division precision): the exact f32 quotient rounded to f16 (quantize_conf::quotient_dt),
// and a bf16 x with bf16 scales in bf16 alike.
// Through the public API with the jit backend forced, against ref bit for bit, at every ISA
// level and 1 and 2 threads.

#include <gtest/gtest.h>

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

/// Scales as f16 bits: generic ones (inexact reciprocals: 0.1, 0.0117, 3.75 is exact), a
/// power of two, negative, the smallest subnormal, the largest finite, +-0, +-Inf and NaN.
const std::vector<uint16_t> f16_scales {0x2e66, 0x2200, 0x4380, 0x3800, 0xb4cd, 0x0001,
        0x7bff, 0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x1c00, 0x5a40};

/// The same values' neighbourhood for bf16 (bits): 0.1, 0.0117, 3.75, 0.5, -0.3, the
/// smallest subnormal, the largest finite, 0, -0, +-Inf, NaN.
const std::vector<uint16_t> bf16_scales {0x3dcd, 0x3c40, 0x4070, 0x3f00, 0xbe9a, 0x0001,
        0x7f7f, 0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0};

/// Every f16 code as x (65536 elements), quantized with one f16 scale and a zero point of
/// the destination's type (zp < 0: none): every quotient's f16 rounding, ties and the
/// saturation of each side.
TEST(JitHalfScales, F16DivisionOfEveryF16Code) {
    const dims shape {256, 256};
    std::vector<uint16_t> x(65536);
    for (uint32_t c = 0; c < x.size(); ++c) x[c] = static_cast<uint16_t>(c);
    constexpr int64_t none = INT64_MIN; // no zero-point input
    struct dst_case {
        dt y;
        std::vector<int64_t> zps;
    };
    const dst_case dsts[] = {
            {dt::u8, {none, 0, 255, 128}},
            {dt::s8, {none, -128, 127, 5}},
            {dt::u16, {none, 0, 65535}},
            {dt::s16, {none, -32768, 32767}},
    };
    for (const dst_case &d : dsts)
        for (int64_t zp : d.zps)
            for (uint16_t s : f16_scales) {
                std::vector<lt> ins {dense(0, dt::f16, shape), dense(1, dt::f16, {})};
                if (zp != none) ins.push_back(dense(2, d.y, {}));
                const op o(0, op::kind::QuantizeLinear, ins, {dense(3, d.y, shape)}, "q");
                std::vector<buffer> in {make_buffer(ins[0], x),
                        make_buffer(ins[1], std::vector<uint16_t> {s})};
                if (ins.size() == 3) {
                    buffer z(ins[2]);
                    const size_t bytes = d.y == dt::u8 || d.y == dt::s8 ? 1 : 2;
                    std::memcpy(z.data(), &zp, bytes); // little endian: the low bytes
                    in.push_back(std::move(z));
                }
                expect_jit_matches_ref_everywhere(o, in,
                        std::string(qgraph::to_string(d.y)) + " scale bits "
                                + std::to_string(s)
                                + (zp == none ? " no zp" : " zp " + std::to_string(zp)));
            }
}

/// Every bf16 code as x, quantized with bf16 scales: the division in bf16.
TEST(JitHalfScales, Bf16DivisionOfEveryBf16Code) {
    const dims shape {256, 256};
    std::vector<uint16_t> x(65536);
    for (uint32_t c = 0; c < x.size(); ++c) x[c] = static_cast<uint16_t>(c);
    for (dt y : {dt::u8, dt::s8, dt::u16, dt::s16})
        for (bool zp : {false, true})
            for (uint16_t s : bf16_scales) {
                std::vector<lt> ins {dense(0, dt::bf16, shape), dense(1, dt::bf16, {})};
                if (zp) ins.push_back(dense(2, y, {}));
                const op o(0, op::kind::QuantizeLinear, ins, {dense(3, y, shape)}, "q");
                std::vector<buffer> in {make_buffer(ins[0], x),
                        make_buffer(ins[1], std::vector<uint16_t> {s})};
                if (zp) {
                    // The unsigned types' largest value, the signed ones' -1.
                    buffer z(ins[2]);
                    std::memset(z.data(), 0xff, y == dt::u8 || y == dt::s8 ? 1 : 2);
                    in.push_back(std::move(z));
                }
                expect_jit_matches_ref_everywhere(o, in,
                        std::string(qgraph::to_string(y)) + " scale bits " + std::to_string(s)
                                + (zp ? " zp all ones" : ""));
            }
}

/// f32 x with f16 / bf16 scales: f32 division of the scales' exact values; per tensor, per
/// channel on an outer axis (rows) and in blocks along the last axis (rows of entries).
TEST(JitHalfScales, F32SourcesWithHalfScales) {
    std::mt19937 g(3);
    for (dt sdt : {dt::f16, dt::bf16}) {
        const std::vector<uint16_t> &pool = sdt == dt::f16 ? f16_scales : bf16_scales;
        struct shape_case {
            dims x, s;
            int64_t axis, block;
        };
        const shape_case shapes[] = {
                {{4, 96}, {}, 1, 0},
                {{6, 40}, {6}, 0, 0},
                {{3, 128}, {3, 4}, 1, 32},
        };
        // s4: rows with one scale each (the blocked code, its scales widened at execute);
        // scales along the run stay on ref.
        for (const shape_case &c : shapes) {
            for (dt y : {dt::u8, dt::s4}) {
                if (y == dt::s4 && c.axis == 1 && c.block == 0) continue;
                const std::vector<lt> ins {dense(0, dt::f32, c.x), dense(1, sdt, c.s),
                        dense(2, y, c.s)};
                op o(0, op::kind::QuantizeLinear, ins, {dense(3, y, c.x)}, "q");
                o.set_attr<int64_t>("axis", c.axis);
                if (c.block > 0) o.set_attr<int64_t>("block_size", c.block);
                std::vector<uint16_t> s(static_cast<size_t>(nelems(c.s)));
                for (size_t i = 0; i < s.size(); ++i) s[i] = pool[(i + g()) % pool.size()];
                buffer z(ins[2]);
                for (size_t i = 0; i < z.size(); ++i)
                    static_cast<uint8_t *>(z.data())[i] = static_cast<uint8_t>(g());
                std::vector<float> x(static_cast<size_t>(nelems(c.x)));
                for (float &v : x) v = (static_cast<int>(g() % 2048) - 1024) * 0.0625f;
                expect_jit_matches_ref_everywhere(o,
                        {make_buffer(ins[0], x), make_buffer(ins[1], s), z},
                        std::string(qgraph::to_string(sdt)) + " scales, axis "
                                + std::to_string(c.axis) + " block " + std::to_string(c.block)
                                + " " + qgraph::to_string(y));
            }
        }
    }
}

/// f32 x and an f32 scale with the `precision` attribute (opset 23): x and the scale rounded
/// to f16 (ONNX code 10) or bf16 (16) first, the quotient too.
TEST(JitHalfScales, PrecisionAttributeRoundsAnF32Source) {
    std::mt19937 g(9);
    const dims shape {16, 96};
    std::vector<float> x(static_cast<size_t>(nelems(shape)));
    for (float &v : x) v = (static_cast<int>(g() % 4096) - 2048) * 0.0371f; // rounds in f16
    for (int64_t precision : {10, 16})
        for (float s : {0.1f, 0.0230102539f, 3.7f})
            for (dt y : {dt::u8, dt::s16}) {
                const std::vector<lt> ins {dense(0, dt::f32, shape), dense(1, dt::f32, {})};
                op o(0, op::kind::QuantizeLinear, ins, {dense(3, y, shape)}, "q");
                o.set_attr<int64_t>("opset", 23);
                o.set_attr<int64_t>("precision", precision);
                expect_jit_matches_ref_everywhere(o,
                        {make_buffer(ins[0], x), make_buffer(ins[1], std::vector<float> {s})},
                        "precision " + std::to_string(precision) + " scale " + std::to_string(s)
                                + " " + qgraph::to_string(y));
            }
}

/// DequantizeLinear to the scales' type (f16 or bf16): per tensor and per channel on an
/// outer axis, 8- and 16-bit x.
TEST(JitHalfScales, DequantizeToTheScaleType) {
    std::mt19937 g(5);
    for (dt sdt : {dt::f16, dt::bf16})
        for (dt xdt : {dt::u8, dt::s8, dt::s16})
            for (const dims &sshape : {dims {}, dims {8}}) {
                const dims shape {8, 72};
                const std::vector<lt> ins {dense(0, xdt, shape), dense(1, sdt, sshape)};
                op o(0, op::kind::DequantizeLinear, ins, {dense(3, sdt, shape)}, "dq");
                o.set_attr<int64_t>("axis", 0);
                const std::vector<uint16_t> &pool = sdt == dt::f16 ? f16_scales : bf16_scales;
                std::vector<uint16_t> s(static_cast<size_t>(nelems(sshape)));
                for (uint16_t &v : s) v = pool[g() % pool.size()];
                std::vector<uint16_t> x(static_cast<size_t>(nelems(shape)));
                for (uint16_t &v : x) v = static_cast<uint16_t>(g());
                std::vector<uint8_t> x8(x.begin(), x.end());
                const bool wide = xdt == dt::s16;
                expect_jit_matches_ref_everywhere(o,
                        {wide ? make_buffer(ins[0], x) : make_buffer(ins[0], x8),
                                make_buffer(ins[1], s)},
                        std::string(qgraph::to_string(xdt)) + " -> "
                                + qgraph::to_string(sdt) + (sshape.empty() ? "" : " axis 0"));
            }
}

/// Half scales along the contiguous dim (per channel on the last axis): the drivers widen
/// the scale tensor to f32 at execute (lane_scales()). Quantize with f16 x and scales, bf16
/// with bf16 (the division in that type: lane tables of x * RN(1/s) when every scale lies in
/// [2^-30, 2^30] and serves 16 rows or more, else the division), f32 x with half scales (f32
/// division: the checked lane tables into u8 / s8); Dequantize of 8- and 16-bit x to the
/// scales' type. Scales in range only, and the whole pool (0, subnormal, huge, Inf, NaN:
/// the calls divide); zero points of the destination's type or none; 40 rows (lane tables),
/// 3 (too few), 100 lanes (avx2 tails).
TEST(JitHalfScales, HalfScalesAlongTheContiguousDim) {
    const auto f16_value = [](uint16_t h) {
        const int e = (h >> 10) & 31, m = h & 1023;
        const float v = e == 0 ? std::ldexp(static_cast<float>(m), -24)
                : e == 31      ? (m ? NAN : INFINITY)
                               : std::ldexp(static_cast<float>(1024 + m), e - 25);
        return h & 0x8000 ? -v : v;
    };
    std::mt19937 g(11);
    const dims shapes[] = {{40, 64}, {3, 64}, {17, 100}};
    for (dt sdt : {dt::f16, dt::bf16})
        for (bool in_range : {true, false}) {
            const std::vector<uint16_t> &pool = sdt == dt::f16 ? f16_scales : bf16_scales;
            std::vector<uint16_t> scales;
            for (uint16_t v : pool) {
                const float f = sdt == dt::f16 ? f16_value(v)
                                               : float_of(static_cast<uint32_t>(v) << 16);
                if (!in_range || (std::fabs(f) >= 0x1p-30f && std::fabs(f) <= 0x1p30f))
                    scales.push_back(v);
            }
            for (const dims &shape : shapes) {
                const dims sshape {shape[1]};
                std::vector<uint16_t> sv(static_cast<size_t>(shape[1]));
                for (size_t i = 0; i < sv.size(); ++i) sv[i] = scales[(i + g()) % scales.size()];
                const std::string where = std::string(qgraph::to_string(sdt)) + " scales"
                        + (in_range ? " in range " : " any ") + std::to_string(shape[0]) + "x"
                        + std::to_string(shape[1]);
                // Quantize: x of the scales' type (that division) or f32 (f32 division).
                for (dt xdt : {sdt, dt::f32})
                    for (dt y : {dt::u8, dt::s8, dt::u16, dt::s16})
                        for (bool zp : {false, true}) {
                            if (xdt == dt::f32 && (y == dt::u16 || y == dt::s16)) continue;
                            std::vector<lt> ins {dense(0, xdt, shape), dense(1, sdt, sshape)};
                            if (zp) ins.push_back(dense(2, y, sshape));
                            op o(0, op::kind::QuantizeLinear, ins, {dense(3, y, shape)}, "q");
                            o.set_attr<int64_t>("axis", 1);
                            const size_t n = static_cast<size_t>(nelems(shape));
                            std::vector<buffer> in;
                            if (xdt == dt::f32) {
                                std::vector<float> x(n);
                                for (float &v : x)
                                    v = (static_cast<int>(g() % 4096) - 2048) * 0.03125f;
                                in.push_back(make_buffer(ins[0], x));
                            } else {
                                // Random codes: every sign, exponent, NaN and Inf.
                                std::vector<uint16_t> x(n);
                                for (uint16_t &v : x) v = static_cast<uint16_t>(g());
                                in.push_back(make_buffer(ins[0], x));
                            }
                            in.push_back(make_buffer(ins[1], sv));
                            if (zp) {
                                buffer z(ins[2]);
                                auto *b = static_cast<uint8_t *>(z.data());
                                for (size_t i = 0; i < z.size(); ++i)
                                    b[i] = static_cast<uint8_t>(g());
                                in.push_back(std::move(z));
                            }
                            expect_jit_matches_ref_everywhere(o, in,
                                    where + " " + qgraph::to_string(xdt) + " -> "
                                            + qgraph::to_string(y) + (zp ? " zp" : ""));
                        }
                // Dequantize to the scales' type.
                for (dt xdt : {dt::u8, dt::s8, dt::s16}) {
                    const std::vector<lt> ins {dense(0, xdt, shape), dense(1, sdt, sshape),
                            dense(2, xdt, sshape)};
                    op o(0, op::kind::DequantizeLinear, ins, {dense(3, sdt, shape)}, "dq");
                    o.set_attr<int64_t>("axis", 1);
                    std::vector<buffer> in;
                    for (int k : {0, 2}) {
                        buffer b(ins[static_cast<size_t>(k)]);
                        auto *p = static_cast<uint8_t *>(b.data());
                        for (size_t i = 0; i < b.size(); ++i) p[i] = static_cast<uint8_t>(g());
                        in.push_back(std::move(b));
                    }
                    in.insert(in.begin() + 1, make_buffer(ins[1], sv));
                    expect_jit_matches_ref_everywhere(o, in,
                            where + " dequantize " + qgraph::to_string(xdt));
                }
            }
        }
}

/// Every f16 code (bf16 code) as x, quantized to each float8 type, saturating or not, with
/// f16 (bf16) scales: the quotient rounded to that type first, nearest even, then to the
/// float8 type (NUMERICS.md). Scales that put quotients in the subnormal range of the type
/// (2, 4096 and their neighbours: e5m2 has f16's exponents, and the -0 code of e4m3fn and
/// e5m2 tells a zero from a tiny negative quotient), generic ones, negative, huge, tiny,
/// +-0, +-Inf and NaN; per tensor, and per channel on the last axis (the lane code).
TEST(JitHalfScales, HalfDivisionIntoFloat8OfEveryCode) {
    const dims shape {256, 256};
    std::vector<uint16_t> x(65536);
    for (uint32_t c = 0; c < x.size(); ++c) x[c] = static_cast<uint16_t>(c);
    // f16: 2, 4096, 1.0009766 (0x3c01), 0.1, -0.3, 3.75, the largest finite, the smallest
    // subnormal, 0, -Inf, NaN. bf16: 2, 2^40, 1.0078125 (0x3f81), 0.1, -0.3, 3.75, the
    // largest finite, the smallest subnormal, 0, -Inf, NaN.
    const std::vector<uint16_t> f16s {0x4000, 0x6c00, 0x3c01, 0x2e66, 0xb4cd, 0x4380, 0x7bff,
            0x0001, 0x0000, 0xfc00, 0x7e00};
    const std::vector<uint16_t> bf16s {0x4000, 0x5380, 0x3f81, 0x3dcd, 0xbe9a, 0x4070, 0x7f7f,
            0x0001, 0x0000, 0xff80, 0x7fc0};
    for (dt sdt : {dt::f16, dt::bf16})
        for (dt y : {dt::f8_e4m3, dt::f8_e5m2, dt::f8_e4m3fnuz, dt::f8_e5m2fnuz})
            for (bool saturate : {true, false})
                for (bool lanes : {false, true}) {
                    const std::vector<uint16_t> &pool = sdt == dt::f16 ? f16s : bf16s;
                    const dims sshape = lanes ? dims {shape[1]} : dims {};
                    const std::vector<lt> ins {dense(0, sdt, shape), dense(1, sdt, sshape)};
                    op o(0, op::kind::QuantizeLinear, ins, {dense(3, y, shape)}, "q");
                    o.set_attr<int64_t>("opset", 21);
                    o.set_attr<int64_t>("saturate", saturate ? 1 : 0);
                    if (lanes) o.set_attr<int64_t>("axis", 1);
                    // Per tensor: each scale of the pool in turn; per channel: the pool over
                    // the lanes.
                    const size_t runs = lanes ? 1 : pool.size();
                    for (size_t r = 0; r < runs; ++r) {
                        std::vector<uint16_t> sv(lanes ? static_cast<size_t>(shape[1]) : 1);
                        for (size_t i = 0; i < sv.size(); ++i) sv[i] = pool[(i + r) % pool.size()];
                        expect_jit_matches_ref_everywhere(o,
                                {make_buffer(ins[0], x), make_buffer(ins[1], sv)},
                                std::string(qgraph::to_string(sdt)) + " -> "
                                        + qgraph::to_string(y) + (saturate ? " sat" : "")
                                        + (lanes ? " lanes"
                                                 : " scale bits " + std::to_string(sv[0])));
                    }
                }
}

} // namespace
