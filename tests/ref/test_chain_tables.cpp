// The lowering of an 8-bit requantize to one table lookup (src/passes/chain_tables): which
// chains plan to a lookup, and that tables built from parameter tensors at execute are the
// tables built from the same values as attributes at compile. The lookup's results against
// the ops one by one are tested end to end in tests/api/test_fused_partitions.cpp.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "api/valid_ops.hpp"
#include "backends/problem.hpp"
#include "passes/chain_tables.hpp"
#include "passes/lowering.hpp"

namespace {

using namespace qtest;
using qgraph::impl::build_lookup_tables;
using qgraph::impl::chain_lookup;
using qgraph::impl::current_parallel_ctx;
using qgraph::impl::exec_args;
using qgraph::impl::lower_op;
using qgraph::impl::plan_chain_lookup;
using qgraph::impl::quant_problem;

const dims shape {2, 6, 40};
constexpr int64_t channels = 6;

std::vector<float> scales(float base) {
    std::vector<float> s;
    for (int64_t i = 0; i < channels; ++i) s.push_back(base * static_cast<float>(1 + i % 3));
    return s;
}
std::vector<int64_t> zps(int64_t lo) {
    std::vector<int64_t> z;
    for (int64_t i = 0; i < channels; ++i) z.push_back(lo + 40 * i); // within s8 and u8 from lo = -120 and 3
    return z;
}

/// oneDNN Dequantize u8 -> f32 -> Quantize s8, per channel on axis 1, attribute parameters.
std::vector<quant_problem> static_chain() {
    op dq(0, op::kind::Dequantize, {dense(0, dt::u8, shape)}, {dense(1, dt::f32, shape)}, "dq");
    op q(1, op::kind::Quantize, {dense(1, dt::f32, shape)}, {dense(2, dt::s8, shape)}, "q");
    for (op *o : {&dq, &q}) {
        o->set_attr(op::attr::qtype, std::string("per_channel"));
        o->set_attr(op::attr::axis, int64_t(1));
    }
    dq.set_attr(op::attr::scales, scales(0.25f));
    dq.set_attr(op::attr::zps, zps(3));
    q.set_attr(op::attr::scales, scales(0.5f));
    q.set_attr(op::attr::zps, zps(-120));
    return {lower_op(dq), lower_op(q)};
}

/// The same chain as ONNX DequantizeLinear -> QuantizeLinear, the parameters input tensors
/// on `q_axis` for the quantize (1: per channel like the dequantize).
std::vector<quant_problem> tensor_chain(int q_axis = 1) {
    const dims c {channels}, qc {q_axis == 2 ? shape[2] : channels};
    op dq(0, op::kind::DequantizeLinear,
            {dense(0, dt::u8, shape), dense(10, dt::f32, c), dense(11, dt::u8, c)},
            {dense(1, dt::f32, shape)}, "dql");
    op q(1, op::kind::QuantizeLinear,
            {dense(1, dt::f32, shape), dense(20, dt::f32, qc), dense(21, dt::s8, qc)},
            {dense(2, dt::s8, shape)}, "ql");
    dq.set_attr(op::attr::axis, int64_t(1));
    q.set_attr(op::attr::axis, int64_t(q_axis));
    return {lower_op(dq), lower_op(q)};
}

TEST(ChainTables, TensorParametersGiveTheTablesOfTheSameAttributes) {
    chain_lookup at_compile, at_execute;
    ASSERT_TRUE(plan_chain_lookup(static_chain(), at_compile));
    ASSERT_TRUE(plan_chain_lookup(tensor_chain(), at_execute));
    EXPECT_FALSE(at_compile.runtime_params());
    EXPECT_TRUE(at_execute.runtime_params());
    EXPECT_EQ(at_execute.lookup.nparams(), channels);
    EXPECT_TRUE(at_execute.lookup.tables.empty()); // built at execute, not by the plan

    const std::vector<float> s1 = scales(0.25f), s2 = scales(0.5f);
    std::vector<uint8_t> z1, z2;
    for (int64_t z : zps(3)) z1.push_back(static_cast<uint8_t>(z));
    for (int64_t z : zps(-120)) z2.push_back(static_cast<uint8_t>(z)); // s8 bytes
    exec_args dq, q;
    dq.scales = s1.data();
    dq.zps = z1.data();
    q.scales = s2.data();
    q.zps = z2.data();
    const std::vector<uint8_t> want
            = build_lookup_tables(at_compile, exec_args(), exec_args(), current_parallel_ctx());
    ASSERT_EQ(want.size(), static_cast<size_t>(channels * 256));
    EXPECT_EQ(build_lookup_tables(at_execute, dq, q, current_parallel_ctx()), want);
    // Another value gives other tables: the values are read, not the attributes' shape.
    z2[2] = static_cast<uint8_t>(z2[2] + 1);
    EXPECT_NE(build_lookup_tables(at_execute, dq, q, current_parallel_ctx()), want);
}

TEST(ChainTables, TensorParametersKeepTheStaticLimits) {
    // Channels on two different axes: no one table per element.
    chain_lookup plan;
    EXPECT_FALSE(plan_chain_lookup(tensor_chain(2), plan));
    // ONNX blocked parameters (block_size): groups, not channels.
    const dims b {shape[0], shape[1], shape[2] / 8};
    op dq(0, op::kind::DequantizeLinear,
            {dense(0, dt::u8, shape), dense(10, dt::f32, b), dense(11, dt::u8, b)},
            {dense(1, dt::f32, shape)}, "dql");
    dq.set_attr(op::attr::axis, int64_t(2));
    dq.set_attr(op::attr::block_size, int64_t(8));
    std::vector<quant_problem> blocked = tensor_chain();
    blocked[0] = lower_op(dq);
    EXPECT_FALSE(plan_chain_lookup(blocked, plan));
}

} // namespace
