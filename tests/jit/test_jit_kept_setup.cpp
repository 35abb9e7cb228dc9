// The set-up the JIT drivers make at execute from runtime parameter tensors (scales widened to
// f32, lane tables) is kept from call to call while the tensors hold the same bytes
// (src/backends/jit/jit_kept_setup.hpp). One compiled partition executed again and again:
// with its scale or zero-point tensor changed in place between executes (the same address,
// other bytes: the set-up must be made again), and with equal bytes at another address (the
// kept set-up serves; f32 scales the code reads must then be read from the new tensor). Each
// execute against ref on the same inputs, bit for bit, at every ISA level and 1 and 2 threads.
// Concurrent executes with their own parameters are in tests/reliability/test_concurrency.cpp.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/helpers.hpp"
#include "api/isa_threads.hpp"

namespace {

using namespace qtest;

struct kept_case {
    std::string name;
    op o;
    int scale_port; ///< index of the scale tensor among the inputs
    int zp_port; ///< index of the zero-point tensor, or -1
};

/// Random bytes, but for the scale tensor: f16 codes 0x2000..0x4fff (2^-7 .. 32, positive
/// normals: lane tables take them), f32 values in [0.01, 2), e8m0 codes 100..150.
void fill_input(buffer &b, bool scale, std::mt19937 &g) {
    auto *p = static_cast<uint8_t *>(b.data());
    const dt t = b.desc().get_data_type();
    if (scale && t == dt::f16) {
        for (size_t i = 0; i + 1 < b.size(); i += 2) {
            const uint16_t h = static_cast<uint16_t>(0x2000 + g() % 0x3000);
            std::memcpy(p + i, &h, 2);
        }
    } else if (scale && t == dt::f32) {
        for (size_t i = 0; i + 3 < b.size(); i += 4) {
            const float f = 0.01f + static_cast<float>(g() % 100000) * 2e-5f;
            std::memcpy(p + i, &f, 4);
        }
    } else if (scale && t == dt::e8m0) {
        for (size_t i = 0; i < b.size(); ++i) p[i] = static_cast<uint8_t>(100 + g() % 51);
    } else if (t == dt::f32) {
        for (size_t i = 0; i + 3 < b.size(); i += 4) {
            const float f = (static_cast<float>(g() % 20001) - 10000.f) * 0.0137f;
            std::memcpy(p + i, &f, 4);
        }
    } else if (t == dt::f16) {
        for (size_t i = 0; i + 1 < b.size(); i += 2) {
            const uint16_t h = static_cast<uint16_t>(g() % 0x7c00 | (g() % 2 ? 0x8000 : 0));
            std::memcpy(p + i, &h, 2);
        }
    } else {
        for (size_t i = 0; i < b.size(); ++i) p[i] = static_cast<uint8_t>(g());
    }
}

/// ONNX QuantizeLinear or DequantizeLinear of x (dims d) to y, with scales s and zero points
/// z (undef: none) of dims pd along axis 1, in blocks of `block` (0: per channel).
op onnx_op(op::kind kind, dt x, dt s, dt z, dt y, const dims &d, const dims &pd, int64_t opset,
        int64_t block = 0) {
    std::vector<lt> ins {dense(0, x, d), dense(1, s, pd)};
    if (z != dt::undef) ins.push_back(dense(2, z, pd));
    op o(0, kind, ins, {dense(3, y, d)}, "o");
    o.set_attr<int64_t>("opset", opset);
    o.set_attr<int64_t>("axis", 1);
    if (block > 0) o.set_attr<int64_t>("block_size", block);
    if (kind == op::kind::DequantizeLinear && opset >= 21) o.set_attr<int64_t>("output_dtype", 1);
    return o;
}

/// Problems whose drivers set up runtime parameters at execute: the quantize lane tables
/// (f16 and f32 scales along the contiguous dim, with zero points), the 4-bit lane tables,
/// widened f16 scales of blocked rows and of a dequantize along the contiguous dim, and an
/// e8m0 tensor of a grouped dequantize.
std::vector<kept_case> cases() {
    const op::kind q = op::kind::QuantizeLinear, dq = op::kind::DequantizeLinear;
    const dims d {40, 200}, lanes {200};
    return {{"f16 -> u8, f16 lane scales, u8 zero points",
                    onnx_op(q, dt::f16, dt::f16, dt::u8, dt::u8, d, lanes, 19), 1, 2},
            {"f32 -> s8, f32 lane scales, s8 zero points",
                    onnx_op(q, dt::f32, dt::f32, dt::s8, dt::s8, d, lanes, 19), 1, 2},
            {"f32 -> u4, f32 lane scales, u4 zero points",
                    onnx_op(q, dt::f32, dt::f32, dt::u4, dt::u4, d, lanes, 21), 1, 2},
            // Blocks of 40 along the last dim: whole short rows.
            {"f32 -> u8, f16 scales in blocks of 40",
                    onnx_op(q, dt::f32, dt::f16, dt::u8, dt::u8, d, {40, 5}, 23, 40), 1, 2},
            {"u8 -> f16, f16 lane scales",
                    onnx_op(dq, dt::u8, dt::f16, dt::u8, dt::f16, d, lanes, 19), 1, 2},
            {"f4_e2m1 -> f32, e8m0 scales in blocks of 32",
                    onnx_op(dq, dt::f4_e2m1, dt::e8m0, dt::undef, dt::f32, {16, 256}, {16, 8},
                            25, 32),
                    1, -1}};
}

/// Executes cp on `in` and checks its output against ref's on the same inputs.
void expect_matches_ref(const qgraph::compiled_partition &cp, const op &o,
        const std::vector<buffer> &in, const std::string &what) {
    SCOPED_TRACE(what);
    buffer out(o.get_output_logical_tensors()[0]);
    qgraph::stream s(cpu());
    cp.execute(s, tensors(in), {out.as_tensor()});
    s.wait();
    const run_result ref = run_op_on("ref", o, in, {buffer(out.desc())});
    EXPECT_EQ(out.bytes(), ref.outputs[0].bytes());
}

TEST(JitKeptSetUp, ParametersChangedInPlaceOrMovedBetweenExecutes) {
    for (const kept_case &k : cases())
        at_every_isa_and_thread_count([&] {
            SCOPED_TRACE(k.name);
            std::mt19937 g(7);
            std::vector<buffer> in;
            for (const lt &t : k.o.get_input_logical_tensors()) {
                in.emplace_back(t);
                fill_input(in.back(), static_cast<int>(in.size()) - 1 == k.scale_port, g);
            }
            qgraph::compiled_partition cp = [&] {
                backend_guard jit("jit");
                const qgraph::partition p = single_partition(k.o);
                return p.compile(descs(in), k.o.get_output_logical_tensors(), cpu());
            }();
            ASSERT_EQ(cp.get_backend_name(), "jit");
            expect_matches_ref(cp, k.o, in, "first execute");
            expect_matches_ref(cp, k.o, in, "the same tensors again");
            const auto refill = [&](int port) {
                buffer &b = in[static_cast<size_t>(port)];
                const std::vector<unsigned char> before = b.bytes();
                fill_input(b, port == k.scale_port, g);
                ASSERT_NE(b.bytes(), before) << "port " << port << " refilled alike";
            };
            refill(k.scale_port);
            expect_matches_ref(cp, k.o, in, "scales changed in place");
            if (k.zp_port >= 0) {
                refill(k.zp_port);
                expect_matches_ref(cp, k.o, in, "zero points changed in place");
            }
            // The same bytes at another address (the kept set-up serves them), then that
            // copy changed while the first stays as it was.
            std::vector<buffer> moved;
            for (const buffer &b : in) {
                moved.emplace_back(b.desc());
                std::memcpy(moved.back().data(), b.data(), b.size());
            }
            expect_matches_ref(cp, k.o, moved, "parameters at another address");
            buffer &s = moved[static_cast<size_t>(k.scale_port)];
            fill_input(s, true, g);
            expect_matches_ref(cp, k.o, moved, "the copy's scales changed");
            expect_matches_ref(cp, k.o, in, "back to the first tensors");
        });
}

} // namespace
