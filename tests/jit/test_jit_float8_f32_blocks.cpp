// f32 x into e4m3 / e5m2 in blocks of 32 along the last axis (MXFP8 activations): avx512
// with AVX512_VBMI takes two blocks a step by byte planes of the quotients x * y rounded to
// odd at bf16 (float8_byte_planes::odd_words()), a step with a quotient below the normals or
// an x of the largest binade, Inf or NaN by the word encode, and past a debt of such steps
// the rest of the call by the word encode; blocks whose 1/s is not exact by the divide path.
// Quotients at every rounding edge of both types (the midpoints between neighbours and the
// overflow edge) and one and two f32 units either side, where rounding the quotient to bf16
// without its sticky bit would land on the edge; random f32 patterns of every class; a
// different scale in each block; e8m0 scales, and f32 scales with some not a power of two.
// Through the public API with the jit backend forced, against ref bit for bit, at every ISA
// level and 1 and 2 threads.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "api/helpers.hpp"
#include "api/isa_threads.hpp"

namespace {

using namespace qtest;

/// The finite magnitudes of a float8 type with `man` mantissa bits and exponent bias `bias`,
/// codes 0 .. last, in order.
std::vector<float> magnitudes(int man, int bias, int last) {
    std::vector<float> v;
    for (int c = 0; c <= last; ++c) {
        const int e = c >> man, m = c & ((1 << man) - 1);
        v.push_back(e == 0 ? std::ldexp(static_cast<float>(m), 1 - bias - man)
                           : std::ldexp(static_cast<float>((1 << man) + m), e - bias - man));
    }
    return v;
}

/// Quotients at and around every rounding edge of e4m3 and e5m2, both signs, then random
/// f32 patterns; a multiple of 64 in all.
std::vector<float> quotients() {
    std::vector<float> q;
    for (const std::vector<float> &mag : {magnitudes(3, 7, 0x7e), magnitudes(2, 15, 0x7b)}) {
        std::vector<float> edges;
        for (size_t i = 0; i + 1 < mag.size(); ++i) edges.push_back((mag[i] + mag[i + 1]) / 2);
        // The overflow edge: halfway to the next binade's first value past the largest.
        edges.push_back(mag.back() + (mag.back() - mag[mag.size() - 2]) / 2);
        for (float e : edges)
            for (int d = -2; d <= 2; ++d)
                for (float sign : {1.f, -1.f})
                    q.push_back(sign * float_of(bits_of(e) + static_cast<uint32_t>(d)));
    }
    uint64_t state = 0x853c49e6748fea9bu;
    while (q.size() % 64 != 0 || q.size() < 8192) {
        state = state * 6364136223846793005u + 1442695040888963407u;
        q.push_back(float_of(static_cast<uint32_t>(state >> 32)));
    }
    return q;
}

op blocks_of_32(const std::vector<lt> &ins, dt y, const dims &xd, int saturate) {
    op o = float8_quantize_linear(ins, y, xd, saturate);
    o.set_attr<int64_t>("axis", 1);
    o.set_attr<int64_t>("block_size", 32);
    return o;
}

TEST(JitFloat8F32Blocks, EdgesAndRandomPatterns) {
    const std::vector<float> q = quotients();
    const int64_t rows = static_cast<int64_t>(q.size() / 32);
    const dims xd {rows, 32}, sd {rows, 1};
    for (dt sdt : {dt::e8m0, dt::f32})
        for (dt y : {dt::f8_e4m3, dt::f8_e5m2})
            for (int saturate : {1, 0}) {
                // Block r's scale 2^(c - 127), c cycling over 17 codes; f32 scales: every
                // fifth block's times 1.5 (no exact reciprocal: the divide path).
                std::vector<uint8_t> codes;
                std::vector<float> scales, x;
                for (int64_t r = 0; r < rows; ++r) {
                    const int c = 119 + static_cast<int>(r % 17);
                    codes.push_back(static_cast<uint8_t>(c));
                    const float s = std::ldexp(1.f, c - 127) * (r % 5 == 4 ? 1.5f : 1.f);
                    scales.push_back(s);
                    const float used = sdt == dt::e8m0 ? std::ldexp(1.f, c - 127) : s;
                    for (int64_t i = 0; i < 32; ++i) x.push_back(q[r * 32 + i] * used);
                }
                const std::vector<lt> ins {dense(0, dt::f32, xd), dense(1, sdt, sd)};
                std::vector<buffer> in;
                in.push_back(make_buffer(ins[0], x));
                in.push_back(sdt == dt::e8m0 ? make_buffer(ins[1], codes)
                                             : make_buffer(ins[1], scales));
                expect_jit_matches_ref_everywhere(blocks_of_32(ins, y, xd, saturate), in,
                        std::string(qgraph::to_string(sdt)) + " scales, "
                                + qgraph::to_string(y) + " saturate "
                                + std::to_string(saturate));
            }
}

} // namespace
