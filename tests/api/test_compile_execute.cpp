// partition::compile and compiled_partition::execute: argument matching by id, dtype / shape /
// layout checks, aliasing and overflowing layouts, engines, tensor checks at execute, memory
// overlap, query_logical_tensor, `any` outputs.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <thread>

#include "api/valid_ops.hpp"

namespace {

using namespace qtest;

/// How compile messages about partition p of dyq() start. Partition ids are unique in the
/// process, so the id is p's own.
std::string where(const qgraph::partition &p) {
    return "compile(partition " + std::to_string(p.get_id()) + ", DynamicQuantize 'dyq' (id 0))";
}

// DynamicQuantize: 1 f32 2x3, 2 f32 scale (0-D), 3 u8 zp (0-D) -> 4 u8 2x3.
op dyq() {
    op o(0, op::kind::DynamicQuantize,
            {dense(1, dt::f32, shape23()), dense(2, dt::f32, {}), dense(3, dt::u8, {})},
            {dense(4, dt::u8, shape23())}, "dyq");
    return o;
}

const lt x_lt = dense(1, dt::f32, shape23());
const lt s_lt = dense(2, dt::f32, {});
const lt z_lt = dense(3, dt::u8, {});
const lt y_lt = dense(4, dt::u8, shape23());

// x / 0.5 + 10: 0 -> 10, 1 -> 12, 2.5 -> 15, -1 -> 8, 300 -> 610 -> 255, NaN -> 0 (qmin).
const std::vector<float> x_vals {0.f, 1.f, 2.5f, -1.f, 300.f, std::nanf("")};
const std::vector<uint8_t> y_want {10, 12, 15, 8, 255, 0};

std::vector<buffer> inputs() {
    return {make_buffer(x_lt, x_vals), make_buffer(s_lt, std::vector<float> {0.5f}),
            make_buffer(z_lt, std::vector<uint8_t> {10})};
}

/// The id of the partition compiled() compiled last.
size_t compiled_id = 0;

qgraph::compiled_partition compiled() {
    const qgraph::partition p = single_partition(dyq());
    compiled_id = p.get_id();
    return p.compile({x_lt, s_lt, z_lt}, {y_lt}, cpu());
}

/// How execute messages about the partition compiled() compiled last start. (A cache hit from
/// an earlier partition still names this one.)
std::string exec_where() { return "execute(partition " + std::to_string(compiled_id) + ")"; }

TEST(CompileExecute, CompilesAndRuns) {
    qgraph::compiled_partition cp = compiled();
    EXPECT_FALSE(cp.get_backend_name().empty());
    EXPECT_EQ(cp.get_kernel_name().rfind(cp.get_backend_name() + ":", 0), 0u)
            << cp.get_kernel_name();
    ASSERT_EQ(cp.get_input_logical_tensors().size(), 3u);
    ASSERT_EQ(cp.get_output_logical_tensors().size(), 1u);
    EXPECT_TRUE(cp.get_input_logical_tensors()[0].is_equal(x_lt));
    EXPECT_TRUE(cp.get_output_logical_tensors()[0].is_equal(y_lt));
    std::vector<buffer> in = inputs();
    buffer out(y_lt);
    qgraph::stream s(cpu());
    cp.execute(s, tensors(in), {out.as_tensor()});
    EXPECT_EQ(out.read<uint8_t>(), y_want);
    EXPECT_TRUE(out.guards_intact());
    // A second execution on other buffers.
    std::vector<buffer> in2 = inputs();
    in2[1].fill(std::vector<float> {1.f});
    buffer out2(y_lt);
    cp.execute(s, tensors(in2), {out2.as_tensor()});
    // x / 1 + 10: 10, 11, 12 (2.5 ties to 2), 9, 255, 0.
    EXPECT_EQ(out2.read<uint8_t>(), (std::vector<uint8_t> {10, 11, 12, 9, 255, 0}));
}

TEST(CompileExecute, MissingExtraDuplicateInputs) {
    qgraph::partition p = single_partition(dyq());
    EXPECT_QG_ERROR((p.compile({x_lt, s_lt}, {y_lt}, cpu())), status::invalid_arguments, where(p),
            "input logical tensor 3 (port 2) is missing");
    EXPECT_QG_ERROR((p.compile({x_lt, s_lt, z_lt, dense(9, dt::f32, {})}, {y_lt}, cpu())),
            status::invalid_arguments, where(p), "input logical tensor 9 is not a port");
    EXPECT_QG_ERROR((p.compile({x_lt, s_lt, x_lt, z_lt}, {y_lt}, cpu())),
            status::invalid_arguments, where(p), "input logical tensor 1 (port 0) is given twice");
    EXPECT_QG_ERROR((p.compile({x_lt, s_lt, z_lt}, {}, cpu())), status::invalid_arguments,
            where(p), "output logical tensor 4 (port 0) is missing");
    EXPECT_QG_ERROR((p.compile({x_lt, s_lt, z_lt}, {y_lt, dense(8, dt::u8, {})}, cpu())),
            status::invalid_arguments, where(p), "output logical tensor 8 is not a port");
    EXPECT_QG_ERROR((p.compile({x_lt, s_lt, z_lt}, {y_lt, y_lt}, cpu())),
            status::invalid_arguments, where(p), "output logical tensor 4 (port 0) is given twice");
    // An output id given as an input.
    EXPECT_QG_ERROR((p.compile({x_lt, s_lt, z_lt, y_lt}, {y_lt}, cpu())),
            status::invalid_arguments, where(p), "input logical tensor 4 is not a port");
}

TEST(CompileExecute, DataTypeMismatch) {
    qgraph::partition p = single_partition(dyq());
    EXPECT_QG_ERROR((p.compile({dense(1, dt::s8, shape23()), s_lt, z_lt}, {y_lt}, cpu())),
            status::invalid_arguments, where(p),
            "input logical tensor 1 (port 0) is s8 but the graph declares f32");
    EXPECT_QG_ERROR((p.compile({x_lt, s_lt, z_lt}, {dense(4, dt::s8, shape23())}, cpu())),
            status::invalid_arguments, where(p),
            "output logical tensor 4 (port 0) is s8 but the graph declares u8");
}

TEST(CompileExecute, ShapeMismatch) {
    qgraph::partition p = single_partition(dyq());
    EXPECT_QG_ERROR((p.compile({dense(1, dt::f32, {3, 2}), s_lt, z_lt}, {y_lt}, cpu())),
            status::invalid_shape, where(p),
            "input logical tensor 1 (port 0) has shape 3x2 but the graph declares 2x3");
    EXPECT_QG_ERROR((p.compile({x_lt, s_lt, z_lt}, {dense(4, dt::u8, {6})}, cpu())),
            status::invalid_shape, where(p), "output logical tensor 4 (port 0) has shape 6");
}

TEST(CompileExecute, InputWithLayoutAny) {
    qgraph::partition p = single_partition(dyq());
    EXPECT_QG_ERROR((p.compile({any(1, dt::f32, shape23()), s_lt, z_lt}, {y_lt}, cpu())),
            status::invalid_arguments, where(p), "input logical tensor 1 (port 0)",
            "must have a strided layout");
}

TEST(CompileExecute, AliasingOutputStrides) {
    qgraph::partition p = single_partition(dyq());
    for (const dims &st : {dims {0, 1}, dims {1, 1}, dims {2, 1}, dims {3, 0}, dims {1, 0}}) {
        SCOPED_TRACE(::testing::PrintToString(st));
        EXPECT_QG_ERROR((p.compile({x_lt, s_lt, z_lt}, {strided(4, dt::u8, shape23(), st)}, cpu())),
                status::invalid_shape, where(p), "output logical tensor 4 has strides",
                "under which elements alias");
    }
    // Non-aliasing strides are fine: transposed, padded.
    EXPECT_NO_THROW(p.compile({x_lt, s_lt, z_lt}, {strided(4, dt::u8, shape23(), {1, 2})}, cpu()));
    EXPECT_NO_THROW(p.compile({x_lt, s_lt, z_lt}, {strided(4, dt::u8, shape23(), {8, 2})}, cpu()));
    // A zero-stride (broadcast) input is allowed: inputs may alias.
    EXPECT_NO_THROW(p.compile({strided(1, dt::f32, shape23(), {0, 1}), s_lt, z_lt}, {y_lt}, cpu()));
}

TEST(CompileExecute, OverflowingAndNegativeLayouts) {
    // The graph leaves x's shape open; compile brings impossible ones.
    op o(0, op::kind::DynamicQuantize, {unknown(1, dt::f32), s_lt, z_lt}, {unknown(4, dt::u8)},
            "dyq");
    qgraph::partition p = single_partition(o);
    const int64_t big = int64_t(1) << 40;
    // Element count 2^80.
    EXPECT_QG_ERROR((p.compile({strided(1, dt::f32, {big, big}, {big, 1}), s_lt, z_lt},
                            {strided(4, dt::u8, {big, big}, {big, 1})}, cpu())),
            status::invalid_shape, "overflows int64");
    // Element count fine, but the strided span overflows.
    const int64_t max = std::numeric_limits<int64_t>::max();
    EXPECT_QG_ERROR((p.compile({strided(1, dt::f32, {2, 3}, {max, 1}), s_lt, z_lt}, {y_lt},
                            cpu())),
            status::invalid_shape, "overflows int64");
    // Byte size overflows (span * 4 bytes).
    EXPECT_QG_ERROR((p.compile({strided(1, dt::f32, {2, 3}, {max / 4, 1}), s_lt, z_lt},
                            {y_lt}, cpu())),
            status::invalid_shape, "overflows int64");
    EXPECT_QG_ERROR((p.compile({strided(1, dt::f32, {2, 3}, {-3, 1}), s_lt, z_lt}, {y_lt},
                            cpu())),
            status::invalid_shape, "negative stride -3");
    EXPECT_QG_ERROR((p.compile({strided(1, dt::f32, {2, -3}, {3, 1}), s_lt, z_lt},
                            {strided(4, dt::u8, {2, -3}, {3, 1})}, cpu())),
            status::invalid_shape, "negative dimension -3");
}

TEST(CompileExecute, ShapeOnlyKnownAtCompile) {
    op o(0, op::kind::DynamicQuantize, {unknown(1, dt::f32), s_lt, z_lt}, {unknown(4, dt::u8)},
            "dyq");
    qgraph::partition p = single_partition(o);
    // A shape must come from the caller or the graph.
    EXPECT_QG_ERROR((p.compile({unknown(1, dt::f32), s_lt, z_lt}, {y_lt}, cpu())),
            status::invalid_shape, where(p), "input logical tensor 1 (port 0) has no shape");
    EXPECT_QG_ERROR((p.compile({x_lt, s_lt, z_lt}, {unknown(4, dt::u8)}, cpu())),
            status::invalid_shape, where(p), "output logical tensor 4 (port 0) has no shape");
    // The schema rules run again with the concrete shapes: output must mirror input.
    EXPECT_QG_ERROR((p.compile({x_lt, s_lt, z_lt}, {dense(4, dt::u8, {3, 2})}, cpu())),
            status::invalid_shape, "output 0 (dst) has shape 3x2 but must equal the input shape 2x3");
    qgraph::compiled_partition cp = p.compile({x_lt, s_lt, z_lt}, {y_lt}, cpu());
    std::vector<buffer> in = inputs();
    buffer out(y_lt);
    qgraph::stream s(cpu());
    cp.execute(s, tensors(in), {out.as_tensor()});
    EXPECT_EQ(out.read<uint8_t>(), y_want);
}

TEST(CompileExecute, PerChannelCountCheckedAtCompile) {
    op o(0, op::kind::DynamicQuantize, {unknown(1, dt::f32), dense(2, dt::f32, {3}),
            dense(3, dt::u8, {3})}, {unknown(4, dt::u8)}, "dyq");
    o.set_attr(op::attr::qtype, "per_channel");
    o.set_attr(op::attr::axis, 1);
    qgraph::partition p = single_partition(o);
    // 3x2 has 2 channels along axis 1, the scale tensor 3 values.
    EXPECT_QG_ERROR((p.compile({dense(1, dt::f32, {3, 2}), dense(2, dt::f32, {3}),
                                       dense(3, dt::u8, {3})},
                            {dense(4, dt::u8, {3, 2})}, cpu())),
            status::invalid_graph_op, "input 1 (scales) has 3 values", "2 channels along axis 1");
    EXPECT_NO_THROW(p.compile({x_lt, dense(2, dt::f32, {3}), dense(3, dt::u8, {3})}, {y_lt},
            cpu()));
}

TEST(CompileExecute, OnlyCpuZero) {
    EXPECT_QG_ERROR(qgraph::engine(qgraph::engine::kind::gpu, 0), status::unimplemented,
            "CPU only", "gpu 0");
    EXPECT_QG_ERROR(qgraph::engine(qgraph::engine::kind::cpu, 1), status::unimplemented,
            "cpu 1");
    EXPECT_QG_ERROR(qgraph::engine(qgraph::engine::kind::any, 0), status::unimplemented, "any 0");
    const qgraph::engine e = cpu();
    EXPECT_EQ(e.get_kind(), qgraph::engine::kind::cpu);
    EXPECT_EQ(e.get_index(), 0u);
}

TEST(CompileExecute, WrongTensorCounts) {
    qgraph::compiled_partition cp = compiled();
    std::vector<buffer> in = inputs();
    buffer out(y_lt);
    qgraph::stream s(cpu());
    std::vector<qgraph::tensor> t = tensors(in);
    EXPECT_QG_ERROR(cp.execute(s, {t[0], t[1]}, {out.as_tensor()}), status::invalid_arguments,
            exec_where(), "got 2 inputs and 1 outputs, compiled for 3 and 1");
    EXPECT_QG_ERROR(cp.execute(s, t, {}), status::invalid_arguments,
            "got 3 inputs and 0 outputs, compiled for 3 and 1");
    EXPECT_QG_ERROR(cp.execute(s, t, {out.as_tensor(), out.as_tensor()}),
            status::invalid_arguments, "got 3 inputs and 2 outputs");
}

TEST(CompileExecute, NullHandle) {
    qgraph::compiled_partition cp = compiled();
    std::vector<buffer> in = inputs();
    buffer out(y_lt);
    qgraph::stream s(cpu());
    std::vector<qgraph::tensor> t = tensors(in);
    t[0].set_data_handle(nullptr);
    EXPECT_QG_ERROR(cp.execute(s, t, {out.as_tensor()}), status::invalid_arguments, exec_where(),
            "input 0 (id 1) has a null data handle");
    t = tensors(in);
    t[2].set_data_handle(nullptr);
    EXPECT_QG_ERROR(cp.execute(s, t, {out.as_tensor()}), status::invalid_arguments,
            "input 2 (id 3) has a null data handle");
    EXPECT_QG_ERROR(cp.execute(s, tensors(in), {qgraph::tensor(y_lt, cpu(), nullptr)}),
            status::invalid_arguments, "output 0 (id 4) has a null data handle");
}

TEST(CompileExecute, TensorLogicalTensorMustMatchCompiled) {
    qgraph::compiled_partition cp = compiled();
    std::vector<buffer> in = inputs();
    buffer out(y_lt);
    qgraph::stream s(cpu());
    auto with_lt = [&](size_t i, const lt &d) {
        std::vector<qgraph::tensor> t = tensors(in);
        t[i] = qgraph::tensor(d, cpu(), in[i].data());
        return t;
    };
    // Another id.
    EXPECT_QG_ERROR(cp.execute(s, with_lt(0, dense(9, dt::f32, shape23())), {out.as_tensor()}),
            status::invalid_arguments, exec_where(),
            "input 0 has logical tensor id 9, compiled for id 1");
    // Another shape.
    EXPECT_QG_ERROR(cp.execute(s, with_lt(0, dense(1, dt::f32, {3, 2})), {out.as_tensor()}),
            status::invalid_arguments, "input 0 (id 1) is f32:3x2 strides 2x1",
            "compiled for f32:2x3 strides 3x1");
    // Other strides.
    EXPECT_QG_ERROR(cp.execute(s, with_lt(0, strided(1, dt::f32, shape23(), {1, 2})),
                            {out.as_tensor()}),
            status::invalid_arguments, "strides 1x2, compiled for f32:2x3 strides 3x1");
    // Another dtype.
    EXPECT_QG_ERROR(cp.execute(s, with_lt(0, dense(1, dt::s32, shape23())), {out.as_tensor()}),
            status::invalid_arguments, "input 0 (id 1) is s32:2x3");
    // Outputs are checked the same way.
    buffer wrong(dense(4, dt::s8, shape23()));
    EXPECT_QG_ERROR(cp.execute(s, tensors(in), {wrong.as_tensor()}), status::invalid_arguments,
            "output 0 (id 4) is s8:2x3");
    buffer wrong_id(dense(5, dt::u8, shape23()));
    EXPECT_QG_ERROR(cp.execute(s, tensors(in), {wrong_id.as_tensor()}),
            status::invalid_arguments, "output 0 has logical tensor id 5, compiled for id 4");
}

TEST(CompileExecute, OutputOverlappingInput) {
    // Quantize f32 -> u8 written over its own input: rejected before anything runs.
    op q(0, op::kind::Quantize, {dense(1, dt::f32, {8})}, {dense(2, dt::u8, {8})}, "q");
    q.set_attr(op::attr::scales, std::vector<float> {1.f});
    const qgraph::partition p = single_partition(q);
    qgraph::compiled_partition cp
            = p.compile({dense(1, dt::f32, {8})}, {dense(2, dt::u8, {8})}, cpu());
    const std::string where = "execute(partition " + std::to_string(p.get_id()) + ")";
    buffer in = make_buffer(dense(1, dt::f32, {8}), std::vector<float>(8, 1.5f));
    const std::vector<unsigned char> before = in.bytes();
    qgraph::stream s(cpu());
    auto *base = static_cast<unsigned char *>(in.data());
    for (size_t off : {size_t(0), size_t(1), size_t(31)}) {
        SCOPED_TRACE(off);
        EXPECT_QG_ERROR(cp.execute(s, {in.as_tensor()},
                                {qgraph::tensor(dense(2, dt::u8, {8}), cpu(), base + off)}),
                status::invalid_arguments, where, "output 0 overlaps input 0 in memory");
    }
    // Ends exactly where the input starts: no overlap.
    std::vector<unsigned char> two(32 + 8);
    std::memcpy(two.data() + 8, in.data(), 32);
    qgraph::tensor t_in(dense(1, dt::f32, {8}), cpu(), two.data() + 8);
    EXPECT_NO_THROW(cp.execute(s, {t_in}, {qgraph::tensor(dense(2, dt::u8, {8}), cpu(), two.data())}));
    // One byte further: the output's last byte is the input's first.
    EXPECT_QG_ERROR(cp.execute(s, {t_in},
                            {qgraph::tensor(dense(2, dt::u8, {8}), cpu(), two.data() + 1)}),
            status::invalid_arguments, "output 0 overlaps input 0 in memory");
    EXPECT_EQ(before, in.bytes());
}

TEST(CompileExecute, OutputsOverlappingEachOther) {
    const op o = valid_dynamic_quantize_linear();
    qgraph::compiled_partition cp = single_partition(o).compile(
            o.get_input_logical_tensors(), o.get_output_logical_tensors(), cpu());
    buffer x = make_buffer(o.get_input_logical_tensors()[0], std::vector<float>(6, 1.f));
    buffer y(o.get_output_logical_tensors()[0]);
    buffer zp(o.get_output_logical_tensors()[2]);
    qgraph::stream s(cpu());
    // y_scale (4 bytes) placed inside y (6 bytes).
    qgraph::tensor scale_in_y(o.get_output_logical_tensors()[1], cpu(), y.data());
    EXPECT_QG_ERROR(cp.execute(s, {x.as_tensor()}, {y.as_tensor(), scale_in_y, zp.as_tensor()}),
            status::invalid_arguments, "output 1 overlaps output 0 in memory");
    qgraph::tensor zp_in_y(o.get_output_logical_tensors()[2], cpu(),
            static_cast<unsigned char *>(y.data()) + 5);
    buffer scale(o.get_output_logical_tensors()[1]);
    EXPECT_QG_ERROR(cp.execute(s, {x.as_tensor()}, {y.as_tensor(), scale.as_tensor(), zp_in_y}),
            status::invalid_arguments, "output 2 overlaps output 0 in memory");
}

TEST(CompileExecute, QueryLogicalTensor) {
    qgraph::compiled_partition cp = compiled();
    EXPECT_TRUE(cp.query_logical_tensor(1).is_equal(x_lt));
    EXPECT_TRUE(cp.query_logical_tensor(3).is_equal(z_lt));
    EXPECT_TRUE(cp.query_logical_tensor(4).is_equal(y_lt));
    EXPECT_QG_ERROR(cp.query_logical_tensor(99), status::invalid_arguments,
            "query_logical_tensor: id 99 is not a port of partition "
                    + std::to_string(compiled_id));
}

TEST(CompileExecute, AnyOutputResolvesToDenseStrides) {
    qgraph::partition p = single_partition(dyq());
    qgraph::compiled_partition cp = p.compile({x_lt, s_lt, z_lt}, {any(4, dt::u8, shape23())}, cpu());
    const lt q = cp.query_logical_tensor(4);
    EXPECT_EQ(q.get_layout_type(), layout::strided);
    EXPECT_EQ(q.get_dims(), shape23());
    EXPECT_EQ(q.get_strides(), (dims {3, 1}));
    EXPECT_EQ(q.get_data_type(), dt::u8);
    EXPECT_TRUE(cp.get_output_logical_tensors()[0].is_equal(q));
    // Execute with the queried (strided) logical tensor, and with the `any` one.
    std::vector<buffer> in = inputs();
    qgraph::stream s(cpu());
    buffer out(q);
    cp.execute(s, tensors(in), {out.as_tensor()});
    EXPECT_EQ(out.read<uint8_t>(), y_want);
    buffer out2(q);
    cp.execute(s, tensors(in), {qgraph::tensor(any(4, dt::u8, shape23()), cpu(), out2.data())});
    EXPECT_EQ(out2.read<uint8_t>(), y_want);
    // An `any` output whose shape comes from the graph.
    qgraph::compiled_partition cp2 = p.compile({x_lt, s_lt, z_lt}, {lt(4, dt::u8, layout::any)}, cpu());
    EXPECT_EQ(cp2.query_logical_tensor(4).get_strides(), (dims {3, 1}));
    EXPECT_EQ(cp2.query_logical_tensor(4).get_dims(), shape23());
}

TEST(CompileExecute, InputsInAnotherOrder) {
    // Ports are matched by id; execute takes the tensors in the order given to compile.
    qgraph::partition p = single_partition(dyq());
    qgraph::compiled_partition cp = p.compile({z_lt, x_lt, s_lt}, {y_lt}, cpu());
    ASSERT_EQ(cp.get_input_logical_tensors().size(), 3u);
    EXPECT_EQ(cp.get_input_logical_tensors()[0].get_id(), 3u);
    EXPECT_EQ(cp.get_input_logical_tensors()[1].get_id(), 1u);
    EXPECT_EQ(cp.get_input_logical_tensors()[2].get_id(), 2u);
    std::vector<buffer> in = inputs();
    buffer out(y_lt);
    qgraph::stream s(cpu());
    cp.execute(s, {in[2].as_tensor(), in[0].as_tensor(), in[1].as_tensor()}, {out.as_tensor()});
    EXPECT_EQ(out.read<uint8_t>(), y_want);
    // The port order instead is a mismatch (id 1 where 3 was compiled).
    EXPECT_QG_ERROR(cp.execute(s, tensors(in), {out.as_tensor()}), status::invalid_arguments,
            "input 0 has logical tensor id 1, compiled for id 3");
}

TEST(CompileExecute, ConcurrentExecution) {
    // One compiled partition, four threads, each on its own buffers, many times.
    qgraph::compiled_partition cp = compiled();
    std::vector<std::thread> threads;
    std::vector<int> bad(4, 0);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            qgraph::stream s(cpu());
            std::vector<buffer> in = inputs();
            for (int i = 0; i < 200; ++i) {
                buffer out(y_lt);
                cp.execute(s, tensors(in), {out.as_tensor()});
                if (out.read<uint8_t>() != y_want) ++bad[t];
            }
        });
    for (std::thread &th : threads) th.join();
    EXPECT_EQ(bad, std::vector<int>(4, 0));
}

TEST(CompileExecute, ConcurrentExecutionWithChangingParameters) {
    // Threads run one compiled partition with different runtime scales and zero points, some
    // exact for a fast kernel, some not: every call is right whatever kernel serves it.
    qgraph::compiled_partition cp = compiled();
    struct params {
        float s;
        uint8_t zp;
        std::vector<uint8_t> want;
    };
    // x = {0, 1, 2.5, -1, 300, NaN}
    const std::vector<params> ps = {
            {0.5f, 10, y_want}, // 10, 12, 15, 8, 255, 0
            {0.5f, 0, {0, 2, 5, 0, 255, 0}}, // -1/0.5 = -2 -> 0
            {1.f, 0, {0, 1, 2, 0, 255, 0}}, // 2.5 -> 2
            {0.3f, 7, {7, 10, 15, 4, 255, 0}}, // 1/0.3 = 3.33 -> 3; 2.5/0.3 = 8.33 -> 8;
                                              // -1/0.3 = -3.33 -> -3
    };
    std::vector<std::thread> threads;
    std::vector<int> bad(8, 0);
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&, t] {
            qgraph::stream s(cpu());
            for (int i = 0; i < 100; ++i) {
                const params &p = ps[static_cast<size_t>(t + i) % ps.size()];
                std::vector<buffer> in = inputs();
                in[1].fill(std::vector<float> {p.s});
                in[2].fill(std::vector<uint8_t> {p.zp});
                buffer out(y_lt);
                cp.execute(s, tensors(in), {out.as_tensor()});
                if (out.read<uint8_t>() != p.want) ++bad[static_cast<size_t>(t)];
            }
        });
    for (std::thread &th : threads) th.join();
    EXPECT_EQ(bad, std::vector<int>(8, 0));
}

TEST(CompileExecute, InputWithoutShapeTakesTheGraphs) {
    qgraph::partition p = single_partition(dyq());
    qgraph::compiled_partition cp
            = p.compile({unknown(1, dt::f32), unknown(2, dt::f32), z_lt}, {y_lt}, cpu());
    EXPECT_TRUE(cp.query_logical_tensor(1).is_equal(x_lt));
    EXPECT_TRUE(cp.query_logical_tensor(2).is_equal(s_lt));
}

TEST(CompileExecute, StrideCountMismatchAtCompile) {
    qgraph::partition p = single_partition(dyq());
    EXPECT_QG_ERROR((p.compile({strided(1, dt::f32, shape23(), {1}), s_lt, z_lt}, {y_lt}, cpu())),
            status::invalid_shape, "input 0 (src): 1 strides for 2 dims");
    EXPECT_QG_ERROR((p.compile({x_lt, s_lt, z_lt}, {strided(4, dt::u8, shape23(), {3, 1, 1})},
                            cpu())),
            status::invalid_shape, "output 0 (dst): 3 strides for 2 dims");
}

TEST(CompileExecute, CompilingAnUnsupportedPartition) {
    op o(0, op::kind::MatMul, {x_lt, dense(2, dt::f32, {3, 3})}, {dense(3, dt::f32, shape23())},
            "mm");
    qgraph::partition p = single_partition(o);
    EXPECT_QG_ERROR((p.compile({x_lt, dense(2, dt::f32, {3, 3})}, {dense(3, dt::f32, shape23())},
                            cpu())),
            status::unimplemented,
            "compile(partition " + std::to_string(p.get_id()) + ", MatMul 'mm' (id 0))",
            "MatMul");
}

} // namespace

namespace {

using namespace qtest;

// Defect 6: DequantizeLinear with x also as x_zero_point. The tensor is one logical tensor on
// two ports: get_input_ports lists it once, and the documented loop (compile for the ports,
// one tensor per compiled logical tensor) runs end to end.
TEST(CompileExecute, TensorOnTwoPortsRunsThroughTheDocumentedLoop) {
    const lt x = dense(1, dt::u8, {4});
    op o(0, op::kind::DequantizeLinear, {x, dense(2, dt::f32, {4}), x}, {dense(3, dt::f32, {4})},
            "self_zp");
    o.set_attr<int64_t>(op::attr::axis, 0); // per-axis: scale and zero point per element
    qgraph::graph g(qgraph::engine::kind::cpu);
    g.add_op(o);
    g.finalize();
    for (const char *backend : {"", "jit", "dnnl", "ref"}) {
        SCOPED_TRACE(backend);
        backend_guard guard(backend);
        for (const qgraph::partition &p : g.get_partitions()) {
            ASSERT_TRUE(p.is_supported()) << p.get_unsupported_reason();
            ASSERT_EQ(p.get_input_ports().size(), 2u);
            EXPECT_EQ(p.get_input_ports()[0].get_id(), 1u);
            EXPECT_EQ(p.get_input_ports()[1].get_id(), 2u);
            std::unique_ptr<qgraph::compiled_partition> cp;
            try {
                cp = std::make_unique<qgraph::compiled_partition>(
                        p.compile(p.get_input_ports(), p.get_output_ports(), cpu()));
            } catch (const qgraph::error &e) {
                // Only a forced backend may reject the problem (dnnl: per-channel zero points).
                EXPECT_EQ(e.status(), status::unimplemented) << e.what();
                EXPECT_NE(std::string(backend), "") << e.what();
                EXPECT_NE(std::string(backend), "ref") << e.what();
                continue;
            }
            buffer xb = make_buffer(x, std::vector<uint8_t> {7, 200, 0, 255});
            buffer sb = make_buffer(dense(2, dt::f32, {4}), std::vector<float> {0.5f, 2, 3, 4});
            buffer yb(dense(3, dt::f32, {4}));
            std::vector<qgraph::tensor> ins;
            for (const lt &t : cp->get_input_logical_tensors())
                ins.push_back(t.get_id() == 1 ? xb.as_tensor() : sb.as_tensor());
            qgraph::stream s(cpu());
            cp->execute(s, ins, {yb.as_tensor()});
            // (x - x) * s = +0 for every element.
            for (float v : yb.read<float>()) EXPECT_EQ(bits_of(v), 0u) << v;
            EXPECT_TRUE(cp->get_inplace_ports().empty());
        }
    }
}

// Defect 8: an overflow of dense strides names the tensor, and the op when there is one.
TEST(CompileExecute, DenseStrideOverflowNamesTensorAndOp) {
    const int64_t big = int64_t(1) << 40;
    EXPECT_QG_ERROR(lt(7, dt::f32, {big, big, big}, layout::strided), status::invalid_shape,
            "logical tensor 7: dense strides of shape 1099511627776x1099511627776x1099511627776"
            " overflow int64");
    // An empty tensor has an element count (0) but its dense strides may still overflow.
    // An output declared strided without a shape gets its input's shape at add_op; the
    // input's layout is `any`, so nothing overflowed before.
    const dims empty_big {0, big, big};
    op q(0, op::kind::Quantize, {any(1, dt::f32, empty_big)}, {unknown(2, dt::u8)}, "q");
    q.set_attr(op::attr::scales, std::vector<float> {1.f});
    qgraph::graph g(qgraph::engine::kind::cpu);
    EXPECT_QG_ERROR(g.add_op(q), status::invalid_shape, "Quantize 'q' (id 0)",
            "logical tensor 2: dense strides of shape 0x1099511627776x1099511627776",
            "overflow int64");
    // An output of layout any resolved at compile.
    op dq(0, op::kind::Dequantize, {unknown(1, dt::u8)}, {lt(2, dt::f32, layout::any)}, "dq");
    dq.set_attr(op::attr::scales, std::vector<float> {1.f});
    qgraph::partition p = single_partition(dq);
    EXPECT_QG_ERROR(p.compile({strided(1, dt::u8, empty_big, {1, 1, 1})},
                            {any(2, dt::f32, empty_big)}, cpu()),
            status::invalid_shape,
            "compile(partition " + std::to_string(p.get_id()) + ", Dequantize 'dq' (id 0))",
            "output logical tensor 2 (port 0)", "logical tensor 2: dense strides of shape");
}

} // namespace
