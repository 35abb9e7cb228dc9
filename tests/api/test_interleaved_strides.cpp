// Output strides whose dims interleave without aliasing ([2,2] with strides [3,2]: offsets
// 0, 2, 3, 5): compile decides aliasing exactly (docs/api.md), and every backend that takes
// such a layout writes what the reference writes, at every ISA level and thread count.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "api/helpers.hpp"
#include "api/isa_threads.hpp"

namespace {

using namespace qtest;

struct layout_case {
    dims shape;
    dims strides;
};

// Each non-aliasing, and each rejected by the sorted test "every stride is at least the
// previous stride times its dim".
const std::vector<layout_case> interleaved {
        {{2, 2}, {3, 2}},
        {{2, 3}, {2, 3}},
        {{3, 3}, {2, 3}},
        {{2, 5}, {3, 2}},
        {{2, 2, 17}, {3, 2, 6}}, // interleaved outer dims around a contiguous-free inner one
        {{17, 2, 2}, {6, 3, 2}},
        {{3, 2, 2}, {1, 9, 6}}, // nested by span (9 > 8) but not by product (9 < 6 x 2)
};

std::vector<float> src_values(int64_t n) {
    std::vector<float> v;
    for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<float>(i * 7 % 23) * 0.75f - 6.f);
    return v;
}

/// Runs o on every backend (each forced; a rejection is fine) and checks each output against
/// the reference backend's, padding bytes included.
void same_as_ref_on_every_backend(
        const op &o, const std::vector<buffer> &ins, const std::vector<buffer> &outs) {
    const run_result ref = run_op_on("ref", o, ins, outs);
    for (const char *backend : {"", "jit", "dnnl"}) {
        SCOPED_TRACE(std::string("backend '") + backend + "'");
        try {
            const run_result r = run_op_on(backend, o, ins, outs);
            for (size_t i = 0; i < outs.size(); ++i)
                EXPECT_EQ(r.outputs[i].bytes(), ref.outputs[i].bytes())
                        << r.kernel << ", output " << i;
        } catch (const qgraph::error &e) {
            EXPECT_EQ(e.status(), status::unimplemented) << e.what();
        }
    }
}

TEST(InterleavedStrides, QuantizePerTensorAndPerChannel) {
    at_every_isa_and_thread_count([] {
        for (const layout_case &c : interleaved)
            for (int axis = -1; axis < static_cast<int>(c.shape.size()); ++axis) {
                SCOPED_TRACE(::testing::PrintToString(c.shape) + " strides "
                        + ::testing::PrintToString(c.strides) + " axis " + std::to_string(axis));
                const lt x = dense(1, dt::f32, c.shape);
                const lt y = strided(2, dt::u8, c.shape, c.strides);
                op q(0, op::kind::Quantize, {x}, {y}, "q");
                const int64_t nc = axis < 0 ? 1 : c.shape[axis];
                std::vector<float> s;
                std::vector<int64_t> z;
                for (int64_t i = 0; i < nc; ++i) {
                    s.push_back(0.25f * static_cast<float>(i + 1));
                    z.push_back(100 + i);
                }
                q.set_attr(op::attr::qtype, axis < 0 ? "per_tensor" : "per_channel");
                if (axis >= 0) q.set_attr<int64_t>(op::attr::axis, axis);
                q.set_attr(op::attr::scales, s);
                q.set_attr(op::attr::zps, z);
                same_as_ref_on_every_backend(
                        q, {make_buffer(x, src_values(nelems(c.shape)))}, {buffer(y)});
            }
    });
}

TEST(InterleavedStrides, DequantizeAndDynamicQuantizeLinear) {
    at_every_isa_and_thread_count([] {
        for (const layout_case &c : interleaved) {
            SCOPED_TRACE(::testing::PrintToString(c.shape) + " strides "
                    + ::testing::PrintToString(c.strides));
            const int64_t n = nelems(c.shape);
            std::vector<uint8_t> q;
            for (int64_t i = 0; i < n; ++i) q.push_back(static_cast<uint8_t>(i * 37 % 256));
            const lt x = dense(1, dt::u8, c.shape);
            const lt y = strided(2, dt::f32, c.shape, c.strides);
            op dq(0, op::kind::Dequantize, {x}, {y}, "dq");
            dq.set_attr(op::attr::scales, std::vector<float> {0.5f});
            dq.set_attr(op::attr::zps, std::vector<int64_t> {3});
            same_as_ref_on_every_backend(dq, {make_buffer(x, q)}, {buffer(y)});

            const lt xf = dense(1, dt::f32, c.shape);
            const lt yq = strided(2, dt::u8, c.shape, c.strides);
            const op dql(0, op::kind::DynamicQuantizeLinear, {xf},
                    {yq, dense(3, dt::f32, {}), dense(4, dt::u8, {})}, "dql");
            same_as_ref_on_every_backend(dql, {make_buffer(xf, src_values(n))},
                    {buffer(yq), buffer(dense(3, dt::f32, {})), buffer(dense(4, dt::u8, {}))});
        }
    });
}

TEST(InterleavedStrides, ReferenceValuesByHand) {
    // [2,2] with strides [3,2]: element (i, j) at 3i + 2j; bytes 1 and 4 are not written.
    const lt x = dense(1, dt::f32, {2, 2});
    const lt y = strided(2, dt::u8, {2, 2}, {3, 2});
    op q(0, op::kind::Quantize, {x}, {y}, "q");
    q.set_attr(op::attr::scales, std::vector<float> {0.5f});
    q.set_attr(op::attr::zps, std::vector<int64_t> {10});
    const run_result r = run_op_on("ref", q, {make_buffer(x, std::vector<float> {1, 2, 3, 4})},
            {buffer(y, 0xA5)});
    EXPECT_EQ(r.outputs[0].bytes(), (std::vector<unsigned char> {12, 0xA5, 14, 16, 0xA5, 18}));
}

TEST(InterleavedStrides, AliasingDecidedExactly) {
    op q(0, op::kind::Quantize, {unknown(1, dt::f32)}, {unknown(2, dt::u8)}, "q");
    q.set_attr(op::attr::scales, std::vector<float> {1.f});
    qgraph::partition p = single_partition(q);
    const auto compile = [&](const dims &d, const dims &s) {
        return p.compile({dense(1, dt::f32, d)}, {strided(2, dt::u8, d, s)}, cpu());
    };
    for (const layout_case &c : interleaved) EXPECT_NO_THROW(compile(c.shape, c.strides));
    // (1,1,0) and (0,0,1) both at 4: found only by the search (8 elements in 9 offsets).
    EXPECT_QG_ERROR(compile({2, 2, 2}, {1, 3, 4}), status::invalid_shape,
            "output logical tensor 2 has strides 1x3x4 for shape 2x2x2",
            "under which elements alias");
    // (3,0) and (0,2) both at 6.
    EXPECT_QG_ERROR(compile({4, 3}, {2, 3}), status::invalid_shape, "under which elements alias");
    // Interleaved over 2^24 elements (odd and even offsets, no alias): too costly to prove.
    const int64_t half = int64_t(1) << 23;
    EXPECT_QG_ERROR(compile({2, half}, {3, 2}), status::unimplemented,
            "output logical tensor 2 has strides 3x2",
            "too many to prove that no two elements alias");
    // The same span nested is decided without a search.
    EXPECT_NO_THROW(compile({2, half}, {1, 2}));
}

} // namespace
