// API misuse: each wrong use of the public API is a defined qgraph::error (status and a
// message fragment), checked from a table; and the uses that look wrong but are allowed
// (misaligned handles, objects outliving their graph, aliasing inputs) work and give exact
// results.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "reliability/reliability_util.hpp"

namespace {

using namespace qrel;
using qgraph::status;

// "Execute before compile" and "a partition not from a graph" cannot be written: neither class
// has a public constructor, so the only way to a compiled partition is compile().
static_assert(!std::is_default_constructible_v<qgraph::compiled_partition>,
        "a compiled partition must come from partition::compile");
static_assert(!std::is_default_constructible_v<qgraph::partition>,
        "a partition must come from graph::get_partitions");

// Quantize f32 [4, 96] -> u8, per tensor, compiled; inputs and outputs ready to run.
struct fixture {
    problem p = problems(4)[0];
    qgraph::compiled_partition cp = compile(p);
    std::vector<float> src = std::vector<float>(4 * 96, 1.5f);
    std::vector<uint8_t> dst = std::vector<uint8_t>(4 * 96, 0);
    qgraph::stream strm {cpu()};

    qgraph::tensor in(const lt &t) { return qgraph::tensor(t, cpu(), src.data()); }
    qgraph::tensor out(const lt &t) { return qgraph::tensor(t, cpu(), dst.data()); }
    lt x() const { return p.ins[0]; }
    lt y() const { return p.outs[0]; }
};

struct misuse {
    std::string name;
    std::function<void(fixture &)> action;
    status want;
    std::string fragment;
};

std::vector<misuse> misuses() {
    using L = lt::layout_type;
    return {
            // Tensors that do not match the compiled logical tensors.
            {"input_with_another_id",
                    [](fixture &f) {
                        f.cp.execute(f.strm, {f.in(lt(9, dt::f32, {4, 96}, L::strided))},
                                {f.out(f.y())});
                    },
                    status::invalid_arguments, "input 0 has logical tensor id 9, compiled for id 0"},
            {"input_with_another_dtype",
                    [](fixture &f) {
                        f.cp.execute(f.strm, {f.in(lt(0, dt::s32, {4, 96}, L::strided))},
                                {f.out(f.y())});
                    },
                    status::invalid_arguments, "input 0 (id 0) is s32:4x96"},
            {"input_with_another_shape",
                    [](fixture &f) {
                        f.cp.execute(f.strm, {f.in(lt(0, dt::f32, {96, 4}, L::strided))},
                                {f.out(f.y())});
                    },
                    status::invalid_arguments, "compiled for f32:4x96"},
            {"input_with_other_strides",
                    [](fixture &f) {
                        f.cp.execute(f.strm, {f.in(lt(0, dt::f32, {4, 96}, {1, 4}))},
                                {f.out(f.y())});
                    },
                    status::invalid_arguments, "strides 1x4, compiled for"},
            {"inputs_and_outputs_swapped",
                    [](fixture &f) {
                        f.cp.execute(f.strm, {f.out(f.y())}, {f.in(f.x())});
                    },
                    status::invalid_arguments, "input 0 has logical tensor id 1"},
            {"too_many_inputs",
                    [](fixture &f) {
                        f.cp.execute(f.strm, {f.in(f.x()), f.in(f.x())}, {f.out(f.y())});
                    },
                    status::invalid_arguments, "got 2 inputs and 1 outputs, compiled for 1 and 1"},
            {"no_outputs",
                    [](fixture &f) { f.cp.execute(f.strm, {f.in(f.x())}, {}); },
                    status::invalid_arguments, "got 1 inputs and 0 outputs"},
            // Null handles.
            {"null_input_handle",
                    [](fixture &f) {
                        f.cp.execute(f.strm, {qgraph::tensor(f.x(), cpu(), nullptr)},
                                {f.out(f.y())});
                    },
                    status::invalid_arguments, "input 0 (id 0) has a null data handle"},
            {"null_output_handle",
                    [](fixture &f) {
                        f.cp.execute(f.strm, {f.in(f.x())},
                                {qgraph::tensor(f.y(), cpu(), nullptr)});
                    },
                    status::invalid_arguments, "output 0 (id 1) has a null data handle"},
            {"output_over_input",
                    [](fixture &f) {
                        f.cp.execute(f.strm, {f.in(f.x())},
                                {qgraph::tensor(f.y(), cpu(), f.src.data() + 3)});
                    },
                    status::invalid_arguments, "output 0 overlaps input 0"},
            // Compile misuse.
            {"compile_without_inputs",
                    [](fixture &f) { partition_of(f.p.the_op).compile({}, f.p.outs, cpu()); },
                    status::invalid_arguments, "input logical tensor 0 (port 0) is missing"},
            {"compile_with_a_foreign_port",
                    [](fixture &f) {
                        partition_of(f.p.the_op).compile(
                                {f.x(), lt(5, dt::f32, {1}, L::strided)}, f.p.outs, cpu());
                    },
                    status::invalid_arguments, "input logical tensor 5 is not a port"},
            {"compile_input_as_any",
                    [](fixture &f) {
                        partition_of(f.p.the_op).compile(
                                {lt(0, dt::f32, {4, 96}, L::any)}, f.p.outs, cpu());
                    },
                    status::invalid_arguments, "must have a strided layout"},
            {"query_unknown_port",
                    [](fixture &f) { f.cp.query_logical_tensor(42); },
                    status::invalid_arguments, "id 42 is not a port of partition "},
            // A graph modified after finalize, or used before it.
            {"add_op_after_finalize",
                    [](fixture &f) {
                        qgraph::graph g(qgraph::engine::kind::cpu);
                        g.add_op(f.p.the_op);
                        g.finalize();
                        g.add_op(make_quantize(1, lt(2, dt::f32, {2}, L::strided),
                                lt(3, dt::u8, {2}, L::strided), false, 1));
                    },
                    status::invalid_graph, "the graph is finalized"},
            {"partitions_before_finalize",
                    [](fixture &f) {
                        qgraph::graph g(qgraph::engine::kind::cpu);
                        g.add_op(f.p.the_op);
                        g.get_partitions();
                    },
                    status::invalid_graph, "call finalize() first"},
            {"finalize_empty_graph",
                    [](fixture &) { qgraph::graph(qgraph::engine::kind::cpu).finalize(); },
                    status::invalid_graph, "the graph has no ops"},
            {"same_op_id_twice",
                    [](fixture &f) {
                        qgraph::graph g(qgraph::engine::kind::cpu);
                        g.add_op(f.p.the_op);
                        g.add_op(f.p.the_op);
                    },
                    status::invalid_graph, "op id 0 is already used"},
            // Engines of the wrong kind.
            {"gpu_engine",
                    [](fixture &) { qgraph::engine(qgraph::engine::kind::gpu, 0); },
                    status::unimplemented, ""},
            {"any_engine",
                    [](fixture &) { qgraph::engine(qgraph::engine::kind::any, 0); },
                    status::unimplemented, ""},
            {"second_cpu",
                    [](fixture &) { qgraph::engine(qgraph::engine::kind::cpu, 1); },
                    status::unimplemented, ""},
            {"gpu_graph",
                    [](fixture &) { qgraph::graph g(qgraph::engine::kind::gpu); },
                    status::unimplemented, "qgraph runs on the cpu engine only"},
            // Process-wide settings out of range.
            {"negative_thread_count", [](fixture &) { qgraph::set_num_threads(-1); },
                    status::invalid_arguments, "set_num_threads: -1 is negative"},
            {"negative_cache_capacity",
                    [](fixture &) { qgraph::set_compiled_partition_cache_capacity(-5); },
                    status::invalid_arguments, "-5 is negative"},
            {"unknown_backend", [](fixture &) { qgraph::set_backend("cuda"); },
                    status::invalid_arguments, "unknown backend \"cuda\""},
            {"unknown_isa", [](fixture &) { qgraph::set_max_cpu_isa("avx1024"); },
                    status::invalid_arguments, "unknown ISA \"avx1024\""},
            {"unknown_dtype_name", [](fixture &) { qgraph::data_type_from_string("f31"); },
                    status::invalid_data_type, "f31"},
            {"unknown_op_kind_name", [](fixture &) { qgraph::op_kind_from_string("Conv"); },
                    status::invalid_arguments, "Conv"},
            {"element_count_of_unknown_shape",
                    [](fixture &) { lt(0, dt::f32, L::strided).get_element_num(); },
                    status::invalid_shape, "shape is not known"},
    };
}

class Misuse : public ::testing::TestWithParam<misuse> {};

TEST_P(Misuse, IsADefinedError) {
    const misuse &m = GetParam();
    fixture f;
    const std::vector<uint8_t> dst_before = f.dst;
    const std::vector<float> src_before = f.src;
    try {
        m.action(f);
        FAIL() << m.name << ": no error";
    } catch (const qgraph::error &e) {
        EXPECT_EQ(e.status(), m.want) << qgraph::to_string(e.status()) << ": " << e.what();
        EXPECT_NE(std::string(e.what()).find(m.fragment), std::string::npos)
                << "message: " << e.what() << "\nexpected fragment: " << m.fragment;
    } catch (const std::exception &e) {
        FAIL() << "not a qgraph::error: " << e.what();
    }
    // A refused call changes nothing the caller owns.
    EXPECT_EQ(f.dst, dst_before);
    EXPECT_EQ(std::memcmp(f.src.data(), src_before.data(), src_before.size() * 4), 0);
}

void PrintTo(const misuse &m, std::ostream *os) { *os << m.name; }

INSTANTIATE_TEST_SUITE_P(Api, Misuse, ::testing::ValuesIn(misuses()),
        [](const ::testing::TestParamInfo<misuse> &i) { return i.param.name; });

// --- Uses that are allowed and must work.

TEST(ApiAllowed, EmptyTensorsTakeNullHandles) {
    lt x(0, dt::f32, {0, 8}, lt::layout_type::strided), y(1, dt::u8, {0, 8}, lt::layout_type::strided);
    qgraph::compiled_partition cp = partition_of(make_quantize(0, x, y, false, 1)).compile({x}, {y}, cpu());
    qgraph::stream s(cpu());
    EXPECT_NO_THROW(cp.execute(s, {qgraph::tensor(x, cpu(), nullptr)}, {qgraph::tensor(y, cpu(), nullptr)}));
}

// Every problem on handles 1, 2 and 3 bytes off their natural alignment, on every backend that
// takes it: the same bytes as aligned handles (kernels must use unaligned loads and stores).
TEST(ApiAllowed, MisalignedHandlesGiveExactResults) {
    // Backends read callers' memory with memcpy-based loads (common/data_types.hpp
    // load_elem) and unaligned vector loads, so this also runs under UBSan's alignment check.
    int checked = 0;
    for (const std::string &b : std::vector<std::string> {"", "jit", "dnnl", "ref"}) {
        const auto names = qgraph::get_backend_names();
        if (!b.empty() && std::find(names.begin(), names.end(), b) == names.end()) continue;
        const std::string old = qgraph::get_backend();
        qgraph::set_backend(b);
        for (const problem &p : problems(33)) {
            std::optional<qgraph::compiled_partition> cp;
            try {
                cp = compile(p);
            } catch (const qgraph::error &e) {
                if (e.status() == qgraph::status::unimplemented) continue; // not this backend's
                throw;
            }
            const auto in = make_inputs(p, 11);
            const std::vector<unsigned char> want = run(*cp, in, 0);
            for (size_t off : {1, 2, 3, 5})
                EXPECT_EQ(run(*cp, in, off), want)
                        << p.name << " on " << cp->get_kernel_name() << ", offset " << off;
            ++checked;
        }
        qgraph::set_backend(old);
    }
    EXPECT_GE(checked, 5);
}

TEST(ApiAllowed, CompiledPartitionOutlivesItsGraphAndPartition) {
    const problem p = problems(8)[1];
    const auto in = make_inputs(p, 5);
    std::unique_ptr<qgraph::compiled_partition> cp;
    std::vector<unsigned char> want;
    {
        qgraph::graph g(qgraph::engine::kind::cpu);
        g.add_op(p.the_op);
        g.finalize();
        qgraph::partition part = g.get_partitions().at(0);
        cp = std::make_unique<qgraph::compiled_partition>(part.compile(p.ins, p.outs, cpu()));
        want = run(*cp, in);
    } // graph and partition are gone
    qgraph::set_compiled_partition_cache_capacity(qgraph::get_compiled_partition_cache_capacity());
    EXPECT_EQ(run(*cp, in), want);
}

TEST(ApiAllowed, InputsMayShareMemory) {
    // QuantizeLinear reading x, scale and zero point from one buffer: inputs are never written,
    // so they may overlap each other.
    const problem p = problems(1)[3];
    qgraph::compiled_partition cp = compile(p);
    std::vector<unsigned char> block(4 * 96 + 64, 0);
    for (size_t i = 0; i < 96; ++i) {
        const float v = 0.5f + static_cast<float>(i % 4);
        std::memcpy(block.data() + 4 * i, &v, 4);
    }
    std::vector<unsigned char> y(96, 0);
    qgraph::stream s(cpu());
    // x and y_scale are the same 96 floats; the zero point is their first 96 bytes.
    cp.execute(s,
            {qgraph::tensor(p.ins[0], cpu(), block.data()), qgraph::tensor(p.ins[1], cpu(), block.data()),
                    qgraph::tensor(p.ins[2], cpu(), block.data())},
            {qgraph::tensor(p.outs[0], cpu(), y.data())});
    // x / x = 1 in every column; + zero point byte (the float's byte at that position).
    for (size_t i = 0; i < 96; ++i) {
        const int want = std::min(255, 1 + static_cast<int>(block[i]));
        EXPECT_EQ(y[i], want) << "element " << i;
    }
}

} // namespace
