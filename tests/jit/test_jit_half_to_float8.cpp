// bf16 and f16 x into e4m3 / e5m2 with a power-of-two scale: the jit encodes a run of 32 or
// 64 straight from x's bits (float8_emitter::encode_scaled_half()): avx2 where its quotients
// are all zero or normal in the type, avx512 also those below the normals (one FMA a vector
// of f32), and any run with a lane it does not take (avx2 below the normals, both Inf and NaN
// x) by the multiply path, in blocked rows (MXFP8 activations: e8m0 scales in blocks of 32)
// and in broadcast rows (per tensor and per outer channel). Every code of x's type, in code
// order, so that a run of 32 holds one sign and exponent; scales that put each run above the
// type's range, inside it from the top to the smallest normal, below it and far below it;
// runs that mix +-0 with normal x; NaN and Inf runs; every finite code scrambled, so that
// runs mix all of those, and every code scrambled (Inf and NaN among the others); saturating
// and not. avx512 with AVX512_VBMI takes bf16 (and f16 into e4m3) per tensor by byte planes,
// 64 a step (jit_float8_planes.hpp), where a step with an x of the largest binade, Inf or NaN
// is encoded again by the multiply path and one with a quotient below the normals by an FMA, and
// bf16 blocks of 32 two rows a step by the same planes (each row's k subtracted from |x| in
// words first), also where the rows are those of padded tensors.
// Through the public API with the jit backend forced, against ref bit for bit, at every ISA
// level and 1 and 2 threads.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "api/helpers.hpp"
#include "api/isa_threads.hpp"

namespace {

using namespace qtest;

struct half_type {
    dt t;
    int man, bias, exp_mask;
};
const half_type half_types[] = {{dt::bf16, 7, 127, 0xff}, {dt::f16, 10, 15, 0x1f}};

/// Every code in code order, then runs of 32 normal x of one biased exponent with +0 and -0
/// among them.
std::vector<uint16_t> every_code_then_zeros(const half_type &h) {
    std::vector<uint16_t> x;
    for (uint32_t c = 0; c < 0x10000; ++c) x.push_back(static_cast<uint16_t>(c));
    for (uint32_t e = 1; e < 31; ++e)
        for (uint32_t i = 0; i < 32; ++i) {
            const uint32_t normal = (i % 2) << 15 | e << h.man | i * 4;
            x.push_back(static_cast<uint16_t>(i == 3 ? 0 : i == 17 ? 0x8000 : normal));
        }
    return x;
}

/// The e8m0 code of x's power of two times 2^d, for the run of 32 at element `at`.
int scale_code(const half_type &h, const std::vector<uint16_t> &x, size_t at, int d) {
    const int e = x[at + 1] >> h.man & h.exp_mask;
    return std::min(254, std::max(0, e - h.bias + 127 + d));
}

/// Quotients above the range, inside it, below it and far below it (2^40 to 2^110 times x:
/// k no longer fits a word) for either type's bias.
const int offsets[] = {-20, -17, -16, -12, -9, -8, -7, -5, 0, 3, 6, 7, 8, 12, 14, 15, 16, 20,
        40, 70, 110};

std::string label(dt x, dt s, dt y, int saturate, int d) {
    return std::string(qgraph::to_string(x)) + " x, " + qgraph::to_string(s) + " scales, "
            + qgraph::to_string(y) + " saturate " + std::to_string(saturate) + " d "
            + std::to_string(d);
}

/// QuantizeLinear of x in blocks of 32 along the last axis of xd (ins: x, the scales).
op blocks_of_32(const std::vector<lt> &ins, dt y, const dims &xd, int saturate) {
    op o = float8_quantize_linear(ins, y, xd, saturate);
    o.set_attr<int64_t>("axis", 1);
    o.set_attr<int64_t>("block_size", 32);
    return o;
}

/// QuantizeLinear of the codes x of h's type by the f32 scale s per tensor, jit against ref.
void expect_per_tensor_matches(const half_type &h, dt y, int saturate,
        const std::vector<uint16_t> &x, float s, const std::string &what) {
    const int64_t n = static_cast<int64_t>(x.size());
    const std::vector<lt> ins {dense(0, h.t, {n}), dense(1, dt::f32, {1})};
    std::vector<buffer> in;
    in.push_back(make_buffer(ins[0], x));
    in.push_back(make_buffer(ins[1], std::vector<float> {s}));
    expect_jit_matches_ref_everywhere(float8_quantize_linear(ins, y, {n}, saturate), in,
            label(h.t, dt::f32, y, saturate, 0) + what + std::to_string(s));
}

// Blocks of 32 along the last axis, a block's scale from its own x: e8m0, and the same powers
// of two as f32, every third one negative (the words take positive ones only).
TEST(JitHalfToFloat8, BlocksByWords) {
    for (const half_type &h : half_types) {
        const std::vector<uint16_t> x = every_code_then_zeros(h);
        const int64_t rows = static_cast<int64_t>(x.size() / 32);
        const dims xd {rows, 32}, sd {rows, 1};
        for (dt sdt : {dt::e8m0, dt::f32})
            for (dt y : {dt::f8_e4m3, dt::f8_e5m2})
                for (int saturate : {1, 0})
                    for (int d : offsets) {
                        const std::vector<lt> ins {dense(0, h.t, xd), dense(1, sdt, sd)};
                        const op o = blocks_of_32(ins, y, xd, saturate);
                        std::vector<uint8_t> codes;
                        std::vector<float> scales;
                        for (int64_t r = 0; r < rows; ++r) {
                            const int c = scale_code(h, x, static_cast<size_t>(r * 32), d);
                            codes.push_back(static_cast<uint8_t>(c));
                            const float sign = r % 3 == 0 ? -1.f : 1.f;
                            scales.push_back(sign * std::ldexp(1.f, c - 127));
                        }
                        std::vector<buffer> in;
                        in.push_back(make_buffer(ins[0], x));
                        in.push_back(sdt == dt::e8m0 ? make_buffer(ins[1], codes)
                                                     : make_buffer(ins[1], scales));
                        expect_jit_matches_ref_everywhere(o, in, label(h.t, sdt, y, saturate, d));
                    }
    }
}

// Broadcast rows: per tensor (a static scale, every run against the same one: 2^-30 .. 2^30,
// 1, negative, 3 (no power of two), each run meeting some in range), and per channel on the
// outer axis of rows of 32 * 9 + 7 (runs, then a tail under 32), a runtime f32 scale per row
// from its first run, as the blocks take theirs.
TEST(JitHalfToFloat8, BroadcastRowsByWords) {
    for (const half_type &h : half_types)
        for (dt y : {dt::f8_e4m3, dt::f8_e5m2})
            for (int saturate : {1, 0}) {
                const std::vector<uint16_t> x = every_code_then_zeros(h);
                const int64_t n = static_cast<int64_t>(x.size());
                for (float s : {1.f, 0x1p-30f, 0x1p-12f, 0.5f, 0x1p9f, 0x1p30f, -2.f, 3.f})
                    expect_per_tensor_matches(h, y, saturate, x, s, " per tensor, s ");
                const int64_t cols = 32 * 9 + 7, rows = n / cols;
                const dims xd {rows, cols};
                const std::vector<uint16_t> xr(x.begin(), x.begin() + rows * cols);
                for (int d : {-9, 0, 7, 40}) {
                    std::vector<float> scales;
                    for (int64_t r = 0; r < rows; ++r)
                        scales.push_back(std::ldexp(
                                1.f, scale_code(h, xr, static_cast<size_t>(r * cols), d) - 127));
                    const std::vector<lt> ins {dense(0, h.t, xd), dense(1, dt::f32, {rows})};
                    op o = float8_quantize_linear(ins, y, xd, saturate);
                    o.set_attr<int64_t>("axis", 0);
                    std::vector<buffer> in;
                    in.push_back(make_buffer(ins[0], xr));
                    in.push_back(make_buffer(ins[1], scales));
                    expect_jit_matches_ref_everywhere(o, in,
                            label(h.t, dt::f32, y, saturate, d) + " per channel");
                }
            }
}

} // namespace

/// Every finite code of x's type once, in a fixed pseudo-random order: runs of 32 and 64 that
/// mix quotients above the type's normals, among them, below them (avx512 encodes those in
/// the same run) and zeros of either sign, with no Inf or NaN to send a run elsewhere.
std::vector<uint16_t> finite_codes_scrambled(const half_type &h, bool finite = true) {
    std::vector<uint16_t> x;
    for (uint32_t c = 0; c < 0x10000; ++c)
        if (!finite || (c >> h.man & h.exp_mask) != static_cast<uint32_t>(h.exp_mask))
            x.push_back(static_cast<uint16_t>(c));
    uint64_t state = 0x9e3779b97f4a7c15u;
    for (size_t i = x.size() - 1; i > 0; --i) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        std::swap(x[i], x[static_cast<size_t>((state >> 33) % (i + 1))]);
    }
    return x;
}

// The scrambled codes per tensor (scales that put the normals of x at, above and below the
// type's) and in blocks of 32 with e8m0 scales, saturating and not.
TEST(JitHalfToFloat8, MixedRunsByWords) {
    for (const half_type &h : half_types) {
        const std::vector<uint16_t> x = finite_codes_scrambled(h);
        const int64_t n = static_cast<int64_t>(x.size()) / 64 * 64 + 40; // a tail under 64
        const std::vector<uint16_t> xn(x.begin(), x.begin() + n);
        for (dt y : {dt::f8_e4m3, dt::f8_e5m2})
            for (int saturate : {1, 0}) {
                for (float s : {1.f, 0x1p-8f, 0x1p4f, 0x1p-16f, 0x1p20f})
                    expect_per_tensor_matches(h, y, saturate, xn, s, " scrambled, s ");
                const int64_t rows = n / 32;
                const dims xd {rows, 32}, sd {rows, 1};
                const std::vector<uint16_t> xb(x.begin(), x.begin() + rows * 32);
                for (int d : {-8, 0, 8}) {
                    std::vector<uint8_t> codes;
                    for (int64_t r = 0; r < rows; ++r)
                        codes.push_back(static_cast<uint8_t>(
                                std::min(254, std::max(1, 127 + d + static_cast<int>(r % 5) - 2))));
                    const std::vector<lt> ins {dense(0, h.t, xd), dense(1, dt::e8m0, sd)};
                    const op o = blocks_of_32(ins, y, xd, saturate);
                    std::vector<buffer> in;
                    in.push_back(make_buffer(ins[0], xb));
                    in.push_back(make_buffer(ins[1], codes));
                    expect_jit_matches_ref_everywhere(o, in,
                            label(h.t, dt::e8m0, y, saturate, d) + " scrambled blocks");
                }
            }
    }
}

// Blocks that are whole rows of padded tensors (x rows 48 elements apart, y rows 40): the
// blocked code's rows, two a step by byte planes (avx512 with AVX512_VBMI), read and write
// through the row strides; an odd row count leaves a last single row.
TEST(JitHalfToFloat8, PaddedRowsOfOneBlock) {
    for (const half_type &h : half_types) {
        const std::vector<uint16_t> x = finite_codes_scrambled(h, false);
        const int64_t rows = static_cast<int64_t>(x.size() / 32) - 1; // odd
        const dims xd {rows, 32}, sd {rows, 1};
        for (dt y : {dt::f8_e4m3, dt::f8_e5m2})
            for (int saturate : {1, 0}) {
                const std::vector<lt> ins {strided(0, h.t, xd, {48, 1}), dense(1, dt::e8m0, sd)};
                op o(0, op::kind::QuantizeLinear, ins, {strided(3, y, xd, {40, 1})}, "q");
                o.set_attr<int64_t>("opset", 25);
                o.set_attr<int64_t>("output_dtype", y == dt::f8_e4m3 ? 17 : 19);
                o.set_attr<int64_t>("saturate", saturate);
                o.set_attr<int64_t>("axis", 1);
                o.set_attr<int64_t>("block_size", 32);
                std::vector<uint8_t> codes;
                for (int64_t r = 0; r < rows; ++r)
                    codes.push_back(static_cast<uint8_t>(118 + r % 17));
                std::vector<buffer> in;
                in.push_back(make_buffer(ins[0],
                        std::vector<uint16_t>(x.begin(), x.begin() + rows * 32)));
                in.push_back(make_buffer(ins[1], codes));
                expect_jit_matches_ref_everywhere(
                        o, in, label(h.t, dt::e8m0, y, saturate, 0) + " padded rows");
            }
    }
}

// Every code scrambled per tensor: steps of 64 that mix Inf, NaN and the largest binade (a
// step encoded again) with quotients below the normals, zeros and normal ones; a tail of 17.
TEST(JitHalfToFloat8, EveryCodeScrambledPerTensor) {
    for (const half_type &h : half_types) {
        const std::vector<uint16_t> x = finite_codes_scrambled(h, false);
        const std::vector<uint16_t> xn(x.begin(), x.begin() + 64 * 1000 + 17);
        for (dt y : {dt::f8_e4m3, dt::f8_e5m2})
            for (int saturate : {1, 0})
                for (float s : {1.f, 0x1p-8f, 0x1p12f, 0x1p-120f, 0x1p-119f, 0x1p-104f})
                    expect_per_tensor_matches(h, y, saturate, xn, s, " every code scrambled, s ");
    }
}
