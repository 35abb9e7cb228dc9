// bf16 / f16 through the public API (the extension in docs/semantics.md): Quantize and
// DynamicQuantize from bf16 / f16 sources (converted exactly to f32, then
// saturate(rne(x / s) + zp)), Dequantize and DynamicDequantize to bf16 / f16 destinations
// (the f32 result f32(x - zp) * s rounded once to nearest even, no flushing).
//
// Every expected value below was worked out by hand (the comments show the arithmetic); no
// qgraph code computes them. Each op runs with the default selection and with every backend
// forced in turn: a backend that does not take bf16 / f16 must say so at compile
// (unimplemented), but the default selection and "ref" must run it and give these bits.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "api/helpers.hpp"

namespace {

using namespace qtest;

using bits16 = std::vector<uint16_t>; // bf16 / f16 elements, as their bits

float f32_of(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

struct backend_output {
    std::string who; ///< backend (kernel), for messages
    buffer out;
};

/// Runs `o` with the default selection and with each backend forced. Returns the output of
/// every run that compiled; "ref" and the default selection must compile.
std::vector<backend_output> run_everywhere(
        const op &o, const std::vector<buffer> &inputs, const buffer &output) {
    std::vector<std::string> names = qgraph::get_backend_names();
    names.insert(names.begin(), ""); // the default selection
    std::vector<backend_output> runs;
    bool ref_ran = false;
    for (const std::string &name : names) {
        SCOPED_TRACE("backend \"" + name + "\"");
        try {
            run_result r = run_op_on(name, o, inputs, {output});
            ref_ran = ref_ran || r.backend == "ref";
            runs.push_back({(name.empty() ? "default selection: " : "") + r.backend + " ("
                            + r.kernel + ")",
                    r.outputs.at(0)});
        } catch (const qgraph::error &e) {
            // bf16 / f16 are new: other backends may not take them (yet), but must say so.
            EXPECT_EQ(e.status(), status::unimplemented) << e.what();
            EXPECT_TRUE(name != "ref" && !name.empty()) << "must run: " << e.what();
        }
    }
    EXPECT_TRUE(ref_ran);
    return runs;
}

/// Every backend that ran gives exactly `want` (16-bit values compared as bits). Returns
/// the runs.
template <typename T>
std::vector<backend_output> expect_everywhere(const op &o, const std::vector<buffer> &inputs,
        const buffer &output, const std::vector<T> &want) {
    std::vector<backend_output> runs = run_everywhere(o, inputs, output);
    for (const backend_output &r : runs) {
        const std::vector<T> got = r.out.read<T>();
        EXPECT_EQ(got.size(), want.size()) << r.who;
        for (size_t i = 0; i < want.size() && i < got.size(); ++i)
            if (got[i] != want[i]) {
                char buf[64];
                std::snprintf(buf, sizeof(buf), "got %lld (0x%llx), want %lld (0x%llx)",
                        static_cast<long long>(got[i]), static_cast<unsigned long long>(got[i]),
                        static_cast<long long>(want[i]),
                        static_cast<unsigned long long>(want[i]));
                ADD_FAILURE() << r.who << ", element " << i << ": " << buf;
            }
    }
    return runs;
}

/// Quantize / Dequantize with attributes; axis < 0 means per tensor, else per channel.
op static_op(op::kind k, const lt &src, const lt &dst, int64_t axis,
        const std::vector<float> &scales, const std::vector<int64_t> &zps) {
    op o(0, k, {src}, {dst}, k == op::kind::Quantize ? "q" : "dq");
    o.set_attr(op::attr::qtype, axis < 0 ? "per_tensor" : "per_channel");
    if (axis >= 0) o.set_attr(op::attr::axis, axis);
    o.set_attr(op::attr::scales, scales);
    o.set_attr(op::attr::zps, zps);
    return o;
}

/// DynamicQuantize / DynamicDequantize: inputs src (1), scales (2), zps (3); dst (4).
op dynamic_op(op::kind k, const std::vector<lt> &ins, const lt &dst, int64_t axis) {
    op o(0, k, ins, {dst}, k == op::kind::DynamicQuantize ? "dyq" : "dydq");
    o.set_attr(op::attr::qtype, axis < 0 ? "per_tensor" : "per_channel");
    if (axis >= 0) o.set_attr(op::attr::axis, axis);
    return o;
}

// --- Quantize -------------------------------------------------------------------------

TEST(HalfOps, QuantizeBf16ToU8PerTensor) {
    // s = 1, zp = 3 (odd, so rounding before adding zp matters at ties): y = rne(x) + 3.
    const lt x = dense(1, dt::bf16, {2, 7}), y = dense(2, dt::u8, {2, 7});
    const bits16 xs {
            0x4020, // 2.5 -> 2 (tie, even) + 3 = 5 (rne(2.5 + 3) would give 6)
            0x4060, // 3.5 -> 4 + 3 = 7
            0x3f00, // 0.5 -> 0 + 3 = 3
            0xc020, // -2.5 -> -2 + 3 = 1
            0xc060, // -3.5 -> -4 + 3 = -1 -> 0
            0x7fc0, 0x7f81, 0xffc1, // quiet, signalling, negative NaN -> qmin 0
            0x7f80, 0xff80, // +Inf -> 255, -Inf -> 0
            0x437c, // 252 + 3 = 255
            0x437b, // 251 + 3 = 254
            0x47c3, // 99840, beyond f16's range -> 255
            0x3080, // 2^-30, below f16's range -> 0 + 3 = 3
    };
    expect_everywhere(static_op(op::kind::Quantize, x, y, -1, {1.f}, {3}),
            {make_buffer(x, xs)}, buffer(y),
            std::vector<uint8_t> {5, 7, 3, 1, 0, 0, 0, 0, 255, 0, 255, 254, 255, 3});
}

TEST(HalfOps, QuantizeBf16ToU8PerChannel) {
    // Axis 1: channel c uses s = {1, 2^-32, 1024}[c], zp = {3, 0, 128}[c].
    const lt x = dense(1, dt::bf16, {2, 3}), y = dense(2, dt::u8, {2, 3});
    const bits16 xs {
            0x4020, // 2.5 / 1 -> 2 + 3 = 5
            0x3080, // 2^-30 / 2^-32 = 4 (not an f16 value: below 2^-24)
            0x47c3, // 99840 / 1024 = 97.5 -> 98 (even) + 128 = 226 (not an f16 value)
            0xff80, // -Inf -> 0
            0x3020, // 1.25 * 2^-31 / 2^-32 = 2.5 -> 2
            0xffc1, // NaN -> 0
    };
    expect_everywhere(static_op(op::kind::Quantize, x, y, 1, {1.f, 0x1p-32f, 1024.f}, {3, 0, 128}),
            {make_buffer(x, xs)}, buffer(y), std::vector<uint8_t> {5, 4, 226, 0, 2, 0});
}

TEST(HalfOps, QuantizeF16ToS8PerTensor) {
    // s = 0.5, zp = -1: y = rne(2x) - 1, in [-128, 127].
    const lt x = dense(1, dt::f16, {2, 7}), y = dense(2, dt::s8, {2, 7});
    const bits16 xs {
            0x3d00, // 1.25 -> 2.5 -> 2 - 1 = 1
            0x3f00, // 1.75 -> 3.5 -> 4 - 1 = 3
            0xbd00, // -1.25 -> -2.5 -> -2 - 1 = -3
            0x3400, // 0.25 -> 0.5 -> 0 - 1 = -1
            0x3a00, // 0.75 -> 1.5 -> 2 - 1 = 1
            0x7bff, 0xfbff, // +-65504 -> 127, -128
            0x7c00, 0xfc00, // +-Inf -> 127, -128
            0x7e00, 0x7c01, 0xfe00, // quiet, signalling, negative NaN -> qmin -128
            0x53f8, // 63.75 -> 127.5 -> 128 (even) - 1 = 127 (rne(127.5 - 1) would give 126)
            0xd404, // -64.25 -> -128.5 -> -128 - 1 -> -128
    };
    expect_everywhere(static_op(op::kind::Quantize, x, y, -1, {0.5f}, {-1}),
            {make_buffer(x, xs)}, buffer(y),
            std::vector<int8_t> {1, 3, -3, -1, 1, 127, -128, 127, -128, -128, -128, -128, 127,
                    -128});
}

// Axis 0 of 3x4: s = {2^-26, 1, 3}[c], zp = {-1, 0, 5}[c]. Row 0 holds f16 subnormals.
const bits16 f16_per_channel_x {
        0x0001, // 2^-24 / 2^-26 = 4 - 1 = 3
        0x8003, // -3 * 2^-24 -> -12 - 1 = -13
        0x001f, // 31 * 2^-24 -> 124 - 1 = 123
        0x0040, // 64 * 2^-24 -> 256 - 1 -> 127
        0x4100, // 2.5 -> 2
        0xb800, // -0.5 -> -0 -> 0
        0x57f8, // 127.5 -> 128 -> 127
        0xd804, // -128.5 -> -128
        0x3e00, // 1.5 / 3 = 0.5 -> 0 + 5 = 5
        0x4480, // 4.5 / 3 = 1.5 -> 2 + 5 = 7
        0xc780, // -7.5 / 3 = -2.5 -> -2 + 5 = 3
        0x5400, // 64 / 3 = 21.33 -> 21 + 5 = 26
};
const std::vector<int8_t> f16_per_channel_y {3, -13, 123, 127, 2, 0, 127, -128, 5, 7, 3, 26};

op f16_per_channel_quantize(const lt &x, const lt &y) {
    return static_op(op::kind::Quantize, x, y, 0, {0x1p-26f, 1.f, 3.f}, {-1, 0, 5});
}

TEST(HalfOps, QuantizeF16ToS8PerChannel) {
    const lt x = dense(1, dt::f16, {3, 4}), y = dense(2, dt::s8, {3, 4});
    expect_everywhere(f16_per_channel_quantize(x, y), {make_buffer(x, f16_per_channel_x)},
            buffer(y), f16_per_channel_y);
}

TEST(HalfOps, DynamicQuantizeF16ToU8PerTensor) {
    // Runtime s = 0.1f (0x3dcccccd, slightly above 0.1), zp = 7. The quotients are f32
    // divisions: 0.25 / 0.1f = 2.49999996... rounds to the f32 2.5 (a tie: 2), 0.75 / 0.1f
    // to 7.5 (8; in double it would stay below 7.5 and give 7).
    const lt x = dense(1, dt::f16, {8}), s = dense(2, dt::f32, {}), z = dense(3, dt::u8, {}),
             y = dense(4, dt::u8, {8});
    const bits16 xs {
            0x3400, // 0.25 -> 2.5 -> 2 + 7 = 9
            0x3a00, // 0.75 -> 7.5 -> 8 + 7 = 15
            0x4e60, // 25.5 -> 255 + 7 -> 255
            0xb800, // -0.5 -> -5 + 7 = 2
            0x7bff, // 65504 -> 255
            0x03ff, // the largest f16 subnormal, 6.1e-5 -> 0 + 7 = 7
            0x7e00, // NaN -> 0
            0xfc00, // -Inf -> 0
    };
    expect_everywhere(dynamic_op(op::kind::DynamicQuantize, {x, s, z}, y, -1),
            {make_buffer(x, xs), make_buffer(s, std::vector<float> {0.1f}),
                    make_buffer(z, std::vector<uint8_t> {7})},
            buffer(y), std::vector<uint8_t> {9, 15, 255, 2, 255, 7, 0, 0});
}

TEST(HalfOps, DynamicQuantizeF16ToS8PerChannelS32ZeroPoints) {
    // Axis 0 of 2x3: s = {0.5, 3}, s32 zp = {-200, 101}.
    const lt x = dense(1, dt::f16, {2, 3}), s = dense(2, dt::f32, {2}), z = dense(3, dt::s32, {2}),
             y = dense(4, dt::s8, {2, 3});
    const bits16 xs {
            0x5640, // 100 / 0.5 = 200 - 200 = 0
            0x5644, // 100.25 -> 200.5 -> 200 (even) - 200 = 0
            0x57fc, // 127.75 -> 255.5 -> 256 - 200 = 56
            0xe14f, // -679.5 / 3 = -226.5 -> -226 + 101 = -125 (rne(-125.5) would give -126)
            0x3e00, // 1.5 / 3 = 0.5 -> 0 + 101 = 101
            0x7c00, // +Inf -> 127
    };
    expect_everywhere(dynamic_op(op::kind::DynamicQuantize, {x, s, z}, y, 0),
            {make_buffer(x, xs), make_buffer(s, std::vector<float> {0.5f, 3.f}),
                    make_buffer(z, std::vector<int32_t> {-200, 101})},
            buffer(y), std::vector<int8_t> {0, 0, 56, -125, 101, 127});
}

// --- Dequantize -----------------------------------------------------------------------
// bf16 keeps 8 significant bits: between 256 and 512 its values are 2 apart, so 261 and
// 267 are ties (-> 260 = 0x4382, mantissa even; 267 -> 268 = 0x4386).

const std::vector<uint8_t> u8_to_bf16_x {97, 99, 10, 9, 255, 0};
const bits16 u8_to_bf16_y {
        0x4382, // (97 - 10) * 3 = 261: tie -> 260
        0x4386, // (99 - 10) * 3 = 267: tie -> 268
        0x0000, // 0
        0xc040, // -3
        0x4438, // 245 * 3 = 735 -> 736 (values 4 apart)
        0xc1f0, // -30
};

op u8_to_bf16_dequantize(const lt &x, const lt &y) {
    return static_op(op::kind::Dequantize, x, y, -1, {3.f}, {10});
}

TEST(HalfOps, DequantizeU8ToBf16PerTensor) {
    const lt x = dense(1, dt::u8, {2, 3}), y = dense(2, dt::bf16, {2, 3});
    expect_everywhere(u8_to_bf16_dequantize(x, y), {make_buffer(x, u8_to_bf16_x)}, buffer(y),
            u8_to_bf16_y);
}

TEST(HalfOps, DequantizeS8ToBf16PerChannelSubnormalsAndOverflow) {
    // Axis 1 of 2x3: s = {2^-130, 8193 * 2^-149, 0x7f7f8000 (3.396e38)}, zp = {0, 0, -1}.
    const lt x = dense(1, dt::s8, {2, 3}), y = dense(2, dt::bf16, {2, 3});
    const bits16 want {
            0x0018, // 3 * 2^-130 = 0x00180000: a subnormal, kept exactly
            0x0001, // 5 * 8193 * 2^-149 = 0x0000a005: rounds to the smallest subnormal
            0x7f80, // 1 * 0x7f7f8000: finite in f32, a tie above the largest bf16 -> Inf
            0x8200, // -128 * 2^-130 = -2^-123
            0x8000, // -8193 * 2^-149 = 0x80002001: rounds to -0
            0xff80, // -1 * 0x7f7f8000 -> -Inf
    };
    expect_everywhere(static_op(op::kind::Dequantize, x, y, 1,
                              {0x1p-130f, f32_of(0x00002001), f32_of(0x7f7f8000)}, {0, 0, -1}),
            {make_buffer(x, std::vector<int8_t> {3, 5, 0, -128, -1, -2})}, buffer(y), want);
}

TEST(HalfOps, DequantizeU8ToF16PerTensorOverflowAndTies) {
    // s = 257, zp = 0. f16 keeps 11 significant bits.
    const lt x = dense(1, dt::u8, {6}), y = dense(2, dt::f16, {6});
    const bits16 want {
            0x7c00, // 255 * 257 = 65535 >= 65520 -> Inf
            0x7bf8, // 254 * 257 = 65278 -> 65280 (values 32 apart)
            0x6206, // 771, exact
            0x6884, // 9 * 257 = 2313: tie between 2312 (even) and 2314 -> 2312
            0x6986, // 11 * 257 = 2827: tie between 2826 and 2828 (even) -> 2828
            0x0000, // 0
    };
    expect_everywhere(static_op(op::kind::Dequantize, x, y, -1, {257.f}, {0}),
            {make_buffer(x, std::vector<uint8_t> {255, 254, 3, 9, 11, 0})}, buffer(y), want);
}

TEST(HalfOps, DequantizeS8ToF16PerChannelSubnormals) {
    // Axis 0 of 2x3: s = {2^-24, 2^-30}, zp = {-3, 5}. f16 subnormals are k * 2^-24.
    const lt x = dense(1, dt::s8, {2, 3}), y = dense(2, dt::f16, {2, 3});
    const bits16 want {
            0x0001, // (-2 + 3) * 2^-24: the smallest subnormal
            0x0082, // 130 * 2^-24
            0x807d, // -125 * 2^-24
            0x0000, // (37 - 5) * 2^-30 = 2^-25: tie between 0 and 2^-24 -> 0
            0x0001, // 48 * 2^-30 = 0.75 * 2^-24 -> 2^-24
            0x8002, // -96 * 2^-30 = -1.5 * 2^-24: tie -> -2 * 2^-24
    };
    expect_everywhere(static_op(op::kind::Dequantize, x, y, 0, {0x1p-24f, 0x1p-30f}, {-3, 5}),
            {make_buffer(x, std::vector<int8_t> {-2, 127, -128, 37, 53, -91})}, buffer(y), want);
}

// Runtime NaN / Inf scales follow IEEE f32 arithmetic as x86 does it (NaN operand returned
// quiet with its sign and payload; 0 * Inf gives the default NaN 0xffc00000), then the NaN
// conversion rule: quiet, sign and top payload bits kept.

TEST(HalfOps, DynamicDequantizeS8ToBf16NaNScale) {
    // Axis 0 of 2x2: s = {signalling NaN 0xffa00001, 3}, s8 zp = {1, -2}.
    const lt x = dense(1, dt::s8, {2, 2}), s = dense(2, dt::f32, {2}), z = dense(3, dt::s8, {2}),
             y = dense(4, dt::bf16, {2, 2});
    const bits16 want {
            0xffe0, // -1 * NaN: 0xffe00001 (made quiet) -> bf16 0xffe0
            0xffe0, // 0 * NaN, the same NaN
            0x4382, // (85 + 2) * 3 = 261: tie -> 260
            0x4386, // (87 + 2) * 3 = 267: tie -> 268
    };
    expect_everywhere(dynamic_op(op::kind::DynamicDequantize, {x, s, z}, y, 0),
            {make_buffer(x, std::vector<int8_t> {0, 1, 85, 87}),
                    make_buffer(s, std::vector<float> {f32_of(0xffa00001), 3.f}),
                    make_buffer(z, std::vector<int8_t> {1, -2})},
            buffer(y), want);
}

TEST(HalfOps, DynamicDequantizeU8ToF16NaNAndInfScales) {
    const lt x = dense(1, dt::u8, {3}), s = dense(2, dt::f32, {}), z = dense(3, dt::u8, {}),
             y = dense(4, dt::f16, {3});
    const op o = dynamic_op(op::kind::DynamicDequantize, {x, s, z}, y, -1);
    const buffer xb = make_buffer(x, std::vector<uint8_t> {0, 7, 255});
    const buffer zb = make_buffer(z, std::vector<uint8_t> {7});
    // s = quiet NaN 0x7fd00000: every result is that NaN; f16 keeps payload bits 22..13:
    // 0x7e00 | 0x280 = 0x7e80.
    expect_everywhere(o, {xb, make_buffer(s, std::vector<float> {f32_of(0x7fd00000)}), zb},
            buffer(y), bits16 {0x7e80, 0x7e80, 0x7e80});
    // s = +Inf: -7 * Inf = -Inf, 0 * Inf = default NaN 0xffc00000 -> 0xfe00, 248 * Inf = Inf.
    expect_everywhere(o, {xb, make_buffer(s, std::vector<float> {f32_of(0x7f800000)}), zb},
            buffer(y), bits16 {0xfc00, 0xfe00, 0x7c00});
}

// --- Layouts --------------------------------------------------------------------------

/// Bytes of `b` no element of its layout covers still hold buffer's fill byte 0xA5.
void expect_padding_untouched(const buffer &b, size_t elem_size, const std::string &who) {
    std::vector<bool> covered(b.size(), false);
    for (int64_t off : offsets(b.desc()))
        for (size_t k = 0; k < elem_size; ++k) covered.at(off * elem_size + k) = true;
    const std::vector<unsigned char> bytes = b.bytes();
    for (size_t i = 0; i < bytes.size(); ++i)
        if (!covered[i] && bytes[i] != 0xA5)
            ADD_FAILURE() << who << ": padding byte " << i << " was written";
}

TEST(HalfOps, StridedLayouts) {
    // The per-channel f16 quantize with a column-major src and a dst padded to rows of 6...
    const lt qx = strided(1, dt::f16, {3, 4}, {1, 3}), qy = strided(2, dt::s8, {3, 4}, {6, 1});
    const op q = f16_per_channel_quantize(qx, qy);
    for (const backend_output &r : expect_everywhere(
                 q, {make_buffer(qx, f16_per_channel_x)}, buffer(qy), f16_per_channel_y))
        expect_padding_untouched(r.out, 1, r.who);
    // ... and the u8 -> bf16 dequantize with a transposed src and a padded, transposed dst.
    const lt dx = strided(1, dt::u8, {2, 3}, {1, 2}), dy = strided(2, dt::bf16, {2, 3}, {1, 4});
    const op dq = u8_to_bf16_dequantize(dx, dy);
    for (const backend_output &r : expect_everywhere(
                 dq, {make_buffer(dx, u8_to_bf16_x)}, buffer(dy), u8_to_bf16_y))
        expect_padding_untouched(r.out, 2, r.who);
}

TEST(HalfOps, EmptyTensors) {
    // No elements, null handles: every backend that compiles runs without writing anything
    // (run_op checks the guard zones).
    const lt qx = dense(1, dt::bf16, {0, 3}), qy = dense(2, dt::u8, {0, 3});
    for (const backend_output &r : run_everywhere(static_op(op::kind::Quantize, qx, qy, 1,
                                                          {1.f, 2.f, 4.f}, {0, 1, 2}),
                 {buffer(qx)}, buffer(qy))) {
        EXPECT_EQ(r.out.size(), 0u) << r.who;
        EXPECT_EQ(r.out.data(), nullptr) << r.who;
    }
    const lt dx = dense(1, dt::s8, {2, 0}), s = dense(2, dt::f32, {}), z = dense(3, dt::s8, {}),
             dy = dense(4, dt::f16, {2, 0});
    for (const backend_output &r : run_everywhere(
                 dynamic_op(op::kind::DynamicDequantize, {dx, s, z}, dy, -1),
                 {buffer(dx), make_buffer(s, std::vector<float> {0.5f}),
                         make_buffer(z, std::vector<int8_t> {1})},
                 buffer(dy)))
        EXPECT_EQ(r.out.size(), 0u) << r.who;
}

} // namespace
