// bf16 and f16 x into e4m3 / e5m2 with scales that are not a power of two: avx512 with
// AVX512_VBMI takes the whole steps of 64 by byte planes with the driver's table of the scale
// (jit_float8_planes_table.hpp), a step with a quotient that may lie below the type's normals,
// an x of the largest binade, Inf or NaN (f16: or a nonzero subnormal x) again by the divide
// path. Every bf16 and f16 code, in code
// order (steps of one sign and binade pair, each binade's every mantissa) and scrambled (steps
// that mix them), with a tail under 64; scales whose mantissa is near 1, near 2 and in between,
// at the ends of the range the table serves and just past them (the divide path's then);
// saturating and not; a runtime scale (QuantizeLinear, the table kept from call to call),
// runtime scales per channel on the outer axis, static scales per tensor and per channel
// (Quantize), and a runtime scale that changes between calls. Through the public API with the jit backend forced,
// against ref bit for bit, at every ISA level and 1 and 2 threads.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "api/helpers.hpp"
#include "api/isa_threads.hpp"

namespace {

using namespace qtest;

/// Every bf16 code in code order, then a tail of 17 (64 * 1024 + 17 in all).
std::vector<uint16_t> every_code_in_order() {
    std::vector<uint16_t> x;
    for (uint32_t c = 0; c < 0x10000; ++c) x.push_back(static_cast<uint16_t>(c));
    for (uint32_t c = 0; c < 17; ++c) x.push_back(static_cast<uint16_t>(0x3f80 + c * 3));
    return x;
}

/// Every bf16 code once in a fixed pseudo-random order, less the last 47 (a tail of 17).
std::vector<uint16_t> every_code_scrambled() {
    std::vector<uint16_t> x = every_code_in_order();
    x.resize(0x10000);
    uint64_t state = 0x2545f4914f6cdd1du;
    for (size_t i = x.size() - 1; i > 0; --i) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        std::swap(x[i], x[static_cast<size_t>((state >> 33) % (i + 1))]);
    }
    x.resize(x.size() - 47);
    return x;
}

/// ReLU-like data: +0 and -0 between normal codes of both signs (every exponent field from
/// 1 to 30, f16's normals; bf16's too), so that steps hold zeros and no subnormal x, which
/// would send them to the divide path whatever the zeros' codes.
std::vector<uint16_t> zeros_among_normals() {
    std::vector<uint16_t> x;
    for (uint32_t i = 0; i < 3 * 4096; ++i) {
        const uint32_t c = (i * 2654435761u) >> 16;
        const uint32_t ex = 1 + c % 30, m = (c >> 5) & 0x3ff, sign = (c >> 15) & 1;
        x.push_back(i % 3 == 0 ? 0x0000 : i % 3 == 1 ? 0x8000
                                        : static_cast<uint16_t>(sign << 15 | ex << 10 | m));
    }
    return x;
}

/// Mantissas near 1 and 2 and between (0.023 and 1 / 448 among them), times powers of two at
/// the table's ends (bf16: e4m3 2^-116, e5m2 2^-109; f16: 2^-28 for both), at 2^16, and past
/// them.
std::vector<float> scales(dt x_dt) {
    std::vector<float> s {0.023f, 0.7f, 1.5f, 3.7f, 1.f / 3.f, 1.f / 448.f, 0.0100446f,
            1.00000012f, 1.99999988f, 0x1.000002p-5f, 0x1.fffffep+3f};
    const std::vector<int> ends = x_dt == dt::f16 ? std::vector<int> {-29, -28, -20, 16, 17}
                                                  : std::vector<int> {-117, -116, -110, -109, 16, 17};
    for (int e : ends)
        for (float m : {1.00000012f, 1.3f, 1.99999988f}) s.push_back(std::ldexp(m, e));
    return s;
}

std::string label(dt x_dt, dt y, int saturate, float s, const std::string &what) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%a", static_cast<double>(s));
    return std::string(qgraph::to_string(x_dt)) + " -> " + qgraph::to_string(y) + " saturate "
            + std::to_string(saturate) + " s " + buf + what;
}

/// QuantizeLinear per tensor, the scale a runtime f32 input.
void expect_runtime_scale_matches(dt x_dt, dt y, int saturate, const std::vector<uint16_t> &x,
        float s, const std::string &what) {
    const int64_t n = static_cast<int64_t>(x.size());
    const std::vector<lt> ins {dense(0, x_dt, {n}), dense(1, dt::f32, {1})};
    std::vector<buffer> in;
    in.push_back(make_buffer(ins[0], x));
    in.push_back(make_buffer(ins[1], std::vector<float> {s}));
    expect_jit_matches_ref_everywhere(float8_quantize_linear(ins, y, {n}, saturate), in,
            label(x_dt, y, saturate, s, what));
}

TEST(JitHalfFloat8AnyScale, EveryCodeRuntimeScale) {
    const std::vector<uint16_t> ordered = every_code_in_order();
    const std::vector<uint16_t> scrambled = every_code_scrambled();
    for (dt x_dt : {dt::bf16, dt::f16})
        for (dt y : {dt::f8_e4m3, dt::f8_e5m2})
            for (int saturate : {1, 0})
                for (float s : scales(x_dt)) {
                    expect_runtime_scale_matches(x_dt, y, saturate, ordered, s, " in order");
                    expect_runtime_scale_matches(x_dt, y, saturate, scrambled, s, " scrambled");
                    expect_runtime_scale_matches(
                            x_dt, y, saturate, zeros_among_normals(), s, " zeros");
                }
}

// oneDNN Quantize (no saturation) with static scales: per tensor, and per channel on the
// outer axis of rows of 64 * 5 + 33 (steps, then a tail), one of the scales per row in turn.
TEST(JitHalfFloat8AnyScale, EveryCodeStaticScales) {
    const std::vector<uint16_t> x = every_code_scrambled();
    for (dt x_dt : {dt::bf16, dt::f16})
    for (dt y : {dt::f8_e4m3, dt::f8_e5m2}) {
        const std::vector<float> all = scales(x_dt);
        const int64_t n = static_cast<int64_t>(x.size());
        for (float s : all) {
            op o(0, op::kind::Quantize, {dense(0, x_dt, {n})}, {dense(1, y, {n})}, "q");
            o.set_attr("scales", std::vector<float> {s});
            o.set_attr("zps", std::vector<int64_t> {0});
            std::vector<buffer> in;
            in.push_back(make_buffer(o.get_input_logical_tensors()[0], x));
            expect_jit_matches_ref_everywhere(o, in, label(x_dt, y, 0, s, " static per tensor"));
        }
        const int64_t cols = 64 * 5 + 33, rows = n / cols;
        const dims xd {rows, cols};
        const std::vector<uint16_t> xr(x.begin(), x.begin() + rows * cols);
        std::vector<float> per_row;
        for (int64_t r = 0; r < rows; ++r) per_row.push_back(all[r % all.size()]);
        op o(0, op::kind::Quantize, {dense(0, x_dt, xd)}, {dense(1, y, xd)}, "q");
        o.set_attr("qtype", std::string("per_channel"));
        o.set_attr<int64_t>("axis", 0);
        o.set_attr("scales", per_row);
        o.set_attr("zps", std::vector<int64_t>(per_row.size(), 0));
        std::vector<buffer> in;
        in.push_back(make_buffer(o.get_input_logical_tensors()[0], xr));
        expect_jit_matches_ref_everywhere(o, in, label(x_dt, y, 0, 0.f, " static per channel"));
    }
}

// QuantizeLinear per channel on the outer axis with runtime scales (rows of 64 * 5 + 33, one
// of the scales per row in turn): each row's table made at execute and kept.
TEST(JitHalfFloat8AnyScale, EveryCodeRuntimeScalePerChannel) {
    const std::vector<uint16_t> x = every_code_scrambled();
    const int64_t cols = 64 * 5 + 33, rows = static_cast<int64_t>(x.size()) / cols;
    const dims xd {rows, cols};
    const std::vector<uint16_t> xr(x.begin(), x.begin() + rows * cols);
    for (dt x_dt : {dt::bf16, dt::f16})
    for (dt y : {dt::f8_e4m3, dt::f8_e5m2})
        for (int saturate : {1, 0}) {
            const std::vector<float> all = scales(x_dt);
            std::vector<float> per_row;
            for (int64_t r = 0; r < rows; ++r) per_row.push_back(all[r % all.size()]);
            const std::vector<lt> ins {dense(0, x_dt, xd), dense(1, dt::f32, {rows})};
            op o = float8_quantize_linear(ins, y, xd, saturate);
            o.set_attr<int64_t>("axis", 0);
            std::vector<buffer> in;
            in.push_back(make_buffer(ins[0], xr));
            in.push_back(make_buffer(ins[1], per_row));
            expect_jit_matches_ref_everywhere(
                    o, in, label(x_dt, y, saturate, 0.f, " runtime per channel"));
        }
}

/// p compiled for `in` and o's output on `backend`.
qgraph::compiled_partition compile_on(
        const std::string &backend, const qgraph::partition &p, const std::vector<buffer> &in,
        const op &o) {
    backend_guard g(backend);
    const std::vector<lt> out {o.get_output_logical_tensors()[0]};
    return p.compile(descs(in), out, cpu());
}

/// The output bytes of one execute of cp on `in`.
std::vector<unsigned char> execute_once(
        qgraph::compiled_partition &cp, const std::vector<buffer> &in, const op &o) {
    std::vector<buffer> out {buffer(o.get_output_logical_tensors()[0])};
    qgraph::stream st(cpu());
    cp.execute(st, tensors(in), tensors(out));
    st.wait();
    return out[0].bytes();
}

// One compiled QuantizeLinear executed with a scale that changes from call to call and back:
// the kept table follows the scale's bytes.
TEST(JitHalfFloat8AnyScale, RuntimeScaleChangesBetweenCalls) {
    const std::vector<uint16_t> x = every_code_scrambled();
    const int64_t n = static_cast<int64_t>(x.size());
    for (dt x_dt : {dt::bf16, dt::f16}) {
    const std::vector<lt> ins {dense(0, x_dt, {n}), dense(1, dt::f32, {1})};
    const op o = float8_quantize_linear(ins, dt::f8_e4m3, {n}, 1);
    const qgraph::partition p = single_partition(o);
    const auto inputs = [&](float s) {
        std::vector<buffer> in;
        in.push_back(make_buffer(ins[0], x));
        in.push_back(make_buffer(ins[1], std::vector<float> {s}));
        return in;
    };
    qgraph::compiled_partition jit = compile_on("jit", p, inputs(1.f), o);
    qgraph::compiled_partition ref = compile_on("ref", p, inputs(1.f), o);
    EXPECT_EQ(jit.get_backend_name(), "jit");
    for (float s : {0.023f, 0.7f, 0.023f, 3.7f, 0.5f, 0.023f, 0x1.3p-117f, 0.023f}) {
        const std::vector<buffer> in = inputs(s);
        EXPECT_EQ(execute_once(jit, in, o), execute_once(ref, in, o)) << "s " << s;
    }
    }
}

} // namespace
