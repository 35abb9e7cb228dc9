// In-place execution (compiled_partition::get_inplace_ports, docs/api.md "In place"): which
// pairs are offered, that every backend and ISA level gives in place exactly what it gives out
// of place, and that every other overlap is still rejected.

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "api/helpers.hpp"
#include "api/isa_threads.hpp"

namespace {

using namespace qtest;

/// DequantizeLinear s32 -> f32 (the one pair of equal element sizes): x (id 1) with `xs`
/// strides, scale (id 2) 0-D or per-axis [dims[axis]], optional s32 zero point (id 3); y
/// (id 4) with the same strides as x.
struct dql_case {
    dims shape;
    dims strides; ///< empty: dense
    int axis = -1; ///< -1: per-tensor
    bool zp = false;

    lt x() const {
        return strides.empty() ? dense(1, dt::s32, shape) : strided(1, dt::s32, shape, strides);
    }
    lt y() const {
        return strides.empty() ? dense(4, dt::f32, shape) : strided(4, dt::f32, shape, strides);
    }
    dims param_dims() const { return axis < 0 ? dims {} : dims {shape[axis]}; }
    lt scale() const { return dense(2, dt::f32, param_dims()); }
    lt zero_point() const { return dense(3, dt::s32, param_dims()); }
    op make() const {
        std::vector<lt> ins {x(), scale()};
        if (zp) ins.push_back(zero_point());
        op o(0, op::kind::DequantizeLinear, ins, {y()}, "dql");
        if (axis >= 0) o.set_attr<int64_t>(op::attr::axis, axis);
        return o;
    }
};

/// x values that make every rounding visible: large (> 2^24, rounded to f32), negative, odd.
std::vector<int32_t> x_values(int64_t n) {
    std::vector<int32_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        v[static_cast<size_t>(i)] = static_cast<int32_t>(
                static_cast<uint32_t>((i * 2654435761u) ^ (i << 7)) - (1u << 20));
    return v;
}

/// Runs c out of place and, when offered, in place on the same compiled partition; the
/// in-place result (every byte of the buffer, padding included) must equal the out-of-place
/// one with the same padding bytes. Returns whether in place was offered.
bool check_in_place(const dql_case &c) {
    const op o = c.make();
    qgraph::partition p = single_partition(o);
    qgraph::compiled_partition cp = p.compile(p.get_input_ports(), p.get_output_ports(), cpu());
    const int64_t nparams = c.axis < 0 ? 1 : c.shape[c.axis];
    std::vector<float> sv;
    std::vector<int32_t> zv;
    for (int64_t i = 0; i < nparams; ++i) {
        sv.push_back(0.03125f * static_cast<float>(i % 7 + 1) + 1e-3f);
        zv.push_back(static_cast<int32_t>(i % 5) - 2);
    }
    std::vector<buffer> ins {make_buffer(c.x(), x_values(nelems(c.shape))),
            make_buffer(c.scale(), sv)};
    if (c.zp) ins.push_back(make_buffer(c.zero_point(), zv));

    // Out of place, into a buffer whose padding holds x's padding bytes (in place leaves
    // them as they are).
    buffer out(c.y());
    std::memcpy(out.data(), ins[0].data(), ins[0].size());
    qgraph::stream s(cpu());
    cp.execute(s, tensors(ins), {out.as_tensor()});

    const auto pairs = cp.get_inplace_ports();
    buffer shared(c.x());
    std::memcpy(shared.data(), ins[0].data(), ins[0].size());
    std::vector<qgraph::tensor> in_t = tensors(ins);
    in_t[0] = shared.as_tensor();
    const qgraph::tensor y_t(c.y(), cpu(), shared.data());
    if (pairs.empty()) {
        EXPECT_QG_ERROR(cp.execute(s, in_t, {y_t}), status::invalid_arguments,
                "output 0 overlaps input 0 in memory");
        return false;
    }
    EXPECT_EQ(pairs, (std::vector<std::pair<size_t, size_t>> {{1, 4}}));
    cp.execute(s, in_t, {y_t});
    EXPECT_EQ(shared.bytes(), out.bytes()) << "in place differs from out of place on "
                                           << cp.get_kernel_name();
    EXPECT_TRUE(shared.guards_intact());
    return true;
}

std::vector<dql_case> cases() {
    std::vector<dql_case> v;
    // Around the vector (8 and 16 lanes), unroll (2 and 4 vectors) and avx2-tail boundaries.
    for (int64_t n : {1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000})
        v.push_back({{n}, {}, -1, false});
    // Per-axis, the channel outer and inner (lane tables), rows not multiples of a vector.
    for (int axis : {0, 1})
        for (const dims &d : {dims {3, 17}, dims {5, 64}, dims {16, 33}, dims {7, 1}}) {
            v.push_back({d, {}, axis, false});
            v.push_back({d, {}, axis, true});
        }
    // Padded and transposed layouts (the same for x and y).
    v.push_back({{4, 33}, {40, 1}, -1, false});
    v.push_back({{4, 33}, {40, 1}, 1, true});
    v.push_back({{9, 5}, {1, 9}, 0, false});
    v.push_back({{6, 5, 7}, {1, 42, 6}, 2, false});
    v.push_back({{6, 5, 7}, {1, 42, 6}, -1, true});
    return v;
}

TEST(InPlace, BitExactAgainstOutOfPlaceOnEveryBackendIsaAndThreadCount) {
    int offered = 0;
    at_every_isa_and_thread_count([&] {
        for (const char *backend : {"", "jit", "dnnl", "ref"}) {
            backend_guard g(backend);
            for (const dql_case &c : cases()) {
                SCOPED_TRACE(std::string("backend '") + backend + "', shape "
                        + ::testing::PrintToString(c.shape) + " strides "
                        + ::testing::PrintToString(c.strides) + " axis " + std::to_string(c.axis)
                        + (c.zp ? " with zp" : ""));
                try {
                    offered += check_in_place(c);
                } catch (const qgraph::error &e) {
                    // A forced backend may reject the problem; nothing else may fail.
                    EXPECT_EQ(e.status(), status::unimplemented) << e.what();
                }
            }
        }
    });
    EXPECT_GT(offered, 0) << "no backend offered in place";
}

TEST(InPlace, ReferenceAndJitOfferThePair) {
    const dql_case c {{70}, {}, -1, false};
    qgraph::partition p = single_partition(c.make());
    const auto pairs_on = [&](const char *backend) {
        backend_guard g(backend);
        return p.compile(p.get_input_ports(), p.get_output_ports(), cpu()).get_inplace_ports();
    };
    const std::vector<std::pair<size_t, size_t>> want {{1, 4}};
    EXPECT_EQ(pairs_on("ref"), want);
    if (qgraph::get_effective_cpu_isa() != "none") {
        EXPECT_EQ(pairs_on("jit"), want);
    }
}

TEST(InPlace, LargeDestinationWithStreamingStores) {
    // 8 MiB and more of f32 take the jit's streaming stores; odd size for a tail.
    at_every_isa_and_thread_count([] { check_in_place({{(int64_t(1) << 21) + 5}, {}, -1, false}); });
}

TEST(InPlace, NotOfferedWhenSizesStridesOrPortsDiffer) {
    for (const char *backend : {"", "ref"}) {
        backend_guard g(backend);
        // u8 -> f32: 1 byte against 4.
        const op dq = [] {
            op o(0, op::kind::Dequantize, {dense(1, dt::u8, {8})}, {dense(2, dt::f32, {8})}, "dq");
            o.set_attr(op::attr::scales, std::vector<float> {0.5f});
            return o;
        }();
        EXPECT_TRUE(single_partition(dq)
                            .compile({dense(1, dt::u8, {8})}, {dense(2, dt::f32, {8})}, cpu())
                            .get_inplace_ports()
                            .empty());
        // s32 -> f32 with other strides for y.
        const dql_case c {{4, 8}, {}, -1, false};
        qgraph::partition p = single_partition(c.make());
        EXPECT_TRUE(p.compile(p.get_input_ports(), {strided(4, dt::f32, {4, 8}, {1, 4})}, cpu())
                            .get_inplace_ports()
                            .empty());
        // x also read as its own zero point: writing y over x would change the zero point.
        op self_zp(0, op::kind::DequantizeLinear,
                {dense(1, dt::s32, {5}), dense(2, dt::f32, {5}), dense(1, dt::s32, {5})},
                {dense(4, dt::f32, {5})}, "dql");
        self_zp.set_attr<int64_t>(op::attr::axis, 0);
        qgraph::partition sp = single_partition(self_zp);
        EXPECT_TRUE(sp.compile(sp.get_input_ports(), sp.get_output_ports(), cpu())
                            .get_inplace_ports()
                            .empty());
    }
}

TEST(InPlace, PartialOverlapsAndOtherInputsRejected) {
    const dql_case c {{16}, {}, 0, false};
    backend_guard g("ref");
    qgraph::partition p = single_partition(c.make());
    qgraph::compiled_partition cp = p.compile(p.get_input_ports(), p.get_output_ports(), cpu());
    ASSERT_FALSE(cp.get_inplace_ports().empty());
    std::vector<unsigned char> mem(16 * 4 + 64, 0);
    buffer scale = make_buffer(c.scale(), std::vector<float>(16, 1.f));
    qgraph::stream s(cpu());
    const qgraph::tensor x(c.x(), cpu(), mem.data() + 8);
    for (int off : {-8, -4, -1, 1, 4, 60}) {
        SCOPED_TRACE(off);
        const qgraph::tensor y(c.y(), cpu(), mem.data() + 8 + off);
        EXPECT_QG_ERROR(cp.execute(s, {x, scale.as_tensor()}, {y}), status::invalid_arguments,
                "output 0 overlaps input 0 in memory without sharing its address");
    }
    // The scale is not the in-place input: y over it is rejected even at its address.
    std::vector<unsigned char> scale_mem(16 * 4);
    const qgraph::tensor s_t(c.scale(), cpu(), scale_mem.data());
    const qgraph::tensor y_t(c.y(), cpu(), scale_mem.data());
    EXPECT_QG_ERROR(cp.execute(s, {x, s_t}, {y_t}), status::invalid_arguments,
            "output 0 overlaps input 1 in memory", "get_inplace_ports");
}

} // namespace
