// The convert driver (jit_convert*): TypeCast f32 <-> bf16 / f16 through generated code and
// the same-type copies of Reorder / StaticReshape / StaticTranspose, against the reference bit
// for bit at every ISA level the machine has (avx512_core_bf16: the cast to bf16 by
// vcvtneps2bf16 where a vector has no subnormal lane) and at 1 and 2 threads, with inputs and
// the jit's output against guard pages. Copies must keep every bit (NaN payloads, signalling NaNs, -0);
// the casts round as common/half_types.hpp does (ties to even, subnormals kept).

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "backends/jit/jit_backend.hpp"
#include "isa_level_fixture.hpp"
#include "jit_test_util.hpp"

namespace {

using namespace qtest;

const data_type f32 = data_type::f32, bf16 = data_type::bf16, f16 = data_type::f16;

struct types {
    data_type src, dst;
};
const std::vector<types> casts {{f32, bf16}, {f32, f16}, {bf16, f32}, {f16, f32}};
const std::vector<types> copies {{f32, f32}, {bf16, bf16}, {f16, f16}};

quant_problem convert(types t, const std::vector<int64_t> &dims) {
    quant_problem p = dense_problem(q_kind::convert, t.src, t.dst, dims);
    p.op_name = t.src == t.dst ? "Reorder" : "TypeCast";
    p.scale_src = param_source::none;
    return p;
}

float from_bits(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

class JitConvert : public IsaLevelTest {
protected:
    /// The kernel p must run on: generated code named by its ISA, or the copy. A cast to
    /// bf16 at avx512_core_bf16 uses vcvtneps2bf16 and names that level.
    std::string expected_name(const quant_problem &p) const {
        using namespace qgraph::impl;
        if (p.src_dt == p.dst_dt) return "jit:copy";
        const cpu_isa_t l = GetParam().isa;
        const bool bf16_insn = p.dst_dt == bf16 && (l & avx512_core_bf16) == avx512_core_bf16;
        return std::string("jit:")
                + isa_name(l == avx2 ? avx2 : bf16_insn ? avx512_core_bf16 : avx512_core)
                + ":typecast";
    }
    bool check(const quant_problem &p, uint32_t seed, const std::string &what,
            guard_side side = guard_side::end, const std::vector<float> *x = nullptr,
            const std::vector<uint16_t> *h = nullptr) {
        const outcome o = run_and_compare(p, seed, side, x, h);
        EXPECT_EQ(o.rejected, "") << what << " " << p.describe();
        EXPECT_EQ(o.kernel, expected_name(p)) << what;
        EXPECT_EQ(o.mismatch, "") << what << " " << p.describe() << " seed " << seed;
        return o.mismatch.empty() && o.rejected.empty();
    }
};

TEST_P(JitConvert, EverySize) {
    // Dense tensors are one canonical dim: vector bodies, unrolled blocks, the masked (avx512)
    // or bounced (avx2) tail, the empty tensor and thread-split edges, against both guards.
    uint32_t seed = 1;
    for (const std::vector<types> *set : {&casts, &copies})
        for (types t : *set)
            for (int64_t n : test_sizes())
                for (guard_side side : {guard_side::end, guard_side::start})
                    if (!check(convert(t, {n}), ++seed, "size " + std::to_string(n), side)) return;
}

TEST_P(JitConvert, SpecialF32Values) {
    // f32 -> bf16 / f16 at their rounding edges: ties to even both ways and just off them, f16
    // overflow at 65520, f16 subnormals and the half-way point below the smallest, f32
    // subnormals (kept by bf16: vcvtneps2bf16 would flush them, so at avx512_core_bf16 each
    // vector with one takes the integer sequence; the shorter lengths leave some vectors
    // without one, which take the instruction), +-0, +-Inf, quiet and signalling NaNs with
    // payloads. The copy of f32 must keep all of them bit for bit.
    std::vector<float> x;
    for (uint32_t hi : {0x3f800000u, 0x3f810000u, 0x00010000u, 0x7f7f0000u, 0x80000000u})
        for (uint32_t lo : {0x7fffu, 0x8000u, 0x8001u, 0xffffu, 0x0u})
            x.push_back(from_bits(hi | lo));
    for (uint32_t b : {0x477fefffu, 0x477ff000u, 0x477fe000u, 0x38800000u, 0x387fffffu,
                 0x33800000u, 0x33000000u, 0x33000001u, 0x337fffffu, 0x3f801000u, 0x3f803000u,
                 0x3f802fffu, 0x00000001u, 0x807fffffu, 0x00400000u, 0x7f800000u, 0xff800000u,
                 0x7fc00000u, 0xffc12345u, 0x7f800001u, 0xff812345u, 0x7fbfffffu, 0x00000000u,
                 0x80000000u, 0x7f7fffffu, 0xff7fffffu})
        x.push_back(from_bits(b));
    const int64_t n = static_cast<int64_t>(x.size());
    for (types t : {types {f32, bf16}, types {f32, f16}, types {f32, f32}})
        for (int64_t len = 1; len <= n; len += 7) {
            // Each length puts the values at other lanes, in the body and in the tail.
            std::vector<float> v(x.end() - len, x.end());
            if (!check(convert(t, {len}), 7, "special values, length " + std::to_string(len),
                        guard_side::end, &v))
                return;
        }
}

TEST_P(JitConvert, EveryHalfCode) {
    // Every bf16 and f16 code widened to f32 (exact; NaNs as half_types makes them) and copied
    // as it is (signalling NaNs and payloads kept).
    std::vector<uint16_t> codes(65536);
    for (uint32_t c = 0; c < 65536; ++c) codes[c] = static_cast<uint16_t>(c * 40503u); // odd: a permutation
    for (types t : {types {bf16, f32}, types {f16, f32}, types {bf16, bf16}, types {f16, f16}})
        if (!check(convert(t, {65536}), 3, "every code", guard_side::end, nullptr, &codes)) return;
}

TEST_P(JitConvert, StridedAndTransposedLayouts) {
    // Strided rows (a padded side), outer dims with any strides, and src and dst contiguous
    // along different dims (NHWC <-> NCHW: the tile transposes of 2 and 4-byte elements) at
    // extents around the transpose blocks and tile edges; both sides contiguous along a dim
    // that is not the last.
    const auto packed = strides_in_order;
    struct layout {
        std::vector<int64_t> dims;
        std::vector<int> src_order, dst_order;
        int64_t src_pad, dst_pad;
    };
    std::vector<layout> layouts;
    for (int64_t c : {3, 8, 17, 64, 65, 300})
        for (int64_t hw : {2, 9, 16, 17, 65, 130}) {
            layouts.push_back({{c, hw}, {1, 0}, {0, 1}, 0, 0});
            layouts.push_back({{c, hw}, {0, 1}, {1, 0}, 0, 0});
            layouts.push_back({{c, hw}, {0, 1}, {0, 1}, 3, 0});
            layouts.push_back({{c, hw}, {0, 1}, {0, 1}, 0, 5});
        }
    layouts.push_back({{2, 19, 33}, {0, 2, 1}, {0, 1, 2}, 0, 3});
    layouts.push_back({{2, 19, 33}, {0, 1, 2}, {0, 2, 1}, 5, 0});
    layouts.push_back({{3, 70, 300}, {2, 0, 1}, {0, 1, 2}, 0, 0}); // the batch dim innermost
    layouts.push_back({{4, 130, 300}, {0, 2, 1}, {0, 1, 2}, 0, 0}); // two threads' worth
    layouts.push_back({{40, 33}, {1, 0}, {1, 0}, 0, 0}); // contiguous along dim 0 on both
    uint32_t seed = 100;
    for (const std::vector<types> *set : {&casts, &copies})
        for (types t : *set)
            for (const layout &l : layouts) {
                quant_problem p = convert(t, l.dims);
                p.src_strides = packed(l.dims, l.src_order, l.src_pad);
                p.dst_strides = packed(l.dims, l.dst_order, l.dst_pad);
                if (!check(p, ++seed, "layout")) return;
            }
}

TEST_P(JitConvert, SubByteCopiesRejected) {
    // A copy of packed 4-bit elements has no byte-addressed rows: jit says why it rejects it.
    quant_problem p = convert({data_type::u4, data_type::u4}, {64});
    std::string reason;
    EXPECT_EQ(qgraph::impl::jit_backend().create(p, {}, reason), nullptr);
    EXPECT_NE(reason.find("Reorder u4 -> u4"), std::string::npos) << reason;
}

INSTANTIATE_TEST_SUITE_P(Levels, JitConvert,
        testing::ValuesIn(at_one_and_two_threads({qgraph::impl::avx2, qgraph::impl::avx512_core,
                qgraph::impl::avx512_core_bf16})),
        isa_level_name);

} // namespace
