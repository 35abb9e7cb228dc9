#ifndef QGRAPH_TESTS_API_VALID_OPS_HPP
#define QGRAPH_TESTS_API_VALID_OPS_HPP

// One valid instance of each of the seven quantization ops (ids 1.. for logical tensors, op id
// 0, named), and helpers that copy an op with one thing changed, for the schema tests.

#include <string>
#include <vector>

#include "api/helpers.hpp"

namespace qtest {

/// Copies kind, id, name and attributes; replaces the ports.
inline op rebuild(const op &o, const std::vector<lt> &ins, const std::vector<lt> &outs) {
    op r(o.get_id(), o.get_kind(), ins, outs, o.get_name());
    for (const auto &kv : o.get_attrs()) r.set_attr_value(kv.first, kv.second);
    return r;
}
inline op with_inputs(const op &o, const std::vector<lt> &ins) {
    return rebuild(o, ins, o.get_output_logical_tensors());
}
inline op with_outputs(const op &o, const std::vector<lt> &outs) {
    return rebuild(o, o.get_input_logical_tensors(), outs);
}
/// Replaces input `i` (or output `i`).
inline op with_input(const op &o, size_t i, const lt &t) {
    std::vector<lt> ins = o.get_input_logical_tensors();
    ins.at(i) = t;
    return with_inputs(o, ins);
}
inline op with_output(const op &o, size_t i, const lt &t) {
    std::vector<lt> outs = o.get_output_logical_tensors();
    outs.at(i) = t;
    return with_outputs(o, outs);
}
template <typename T>
op with_attr(op o, const std::string &name, const T &v) {
    o.set_attr(name, v);
    return o;
}
inline op without_attr(const op &o, const std::string &name) {
    op r(o.get_id(), o.get_kind(), o.get_input_logical_tensors(),
            o.get_output_logical_tensors(), o.get_name());
    for (const auto &kv : o.get_attrs())
        if (kv.first != name) r.set_attr_value(kv.first, kv.second);
    return r;
}

inline const dims &shape23() {
    static const dims d {2, 3};
    return d;
}

inline op valid_quantize() {
    op o(0, op::kind::Quantize, {dense(1, dt::f32, shape23())}, {dense(2, dt::u8, shape23())},
            "q");
    o.set_attr(op::attr::qtype, "per_tensor");
    o.set_attr(op::attr::scales, std::vector<float> {0.5f});
    o.set_attr(op::attr::zps, std::vector<int64_t> {3});
    return o;
}

inline op valid_dequantize() {
    op o(0, op::kind::Dequantize, {dense(1, dt::u8, shape23())}, {dense(2, dt::f32, shape23())},
            "dq");
    o.set_attr(op::attr::qtype, "per_tensor");
    o.set_attr(op::attr::scales, std::vector<float> {0.5f});
    o.set_attr(op::attr::zps, std::vector<int64_t> {3});
    return o;
}

inline op valid_dynamic_quantize() {
    op o(0, op::kind::DynamicQuantize,
            {dense(1, dt::f32, shape23()), dense(2, dt::f32, {1}), dense(3, dt::u8, {1})},
            {dense(4, dt::u8, shape23())}, "dyq");
    o.set_attr(op::attr::qtype, "per_tensor");
    return o;
}

inline op valid_dynamic_dequantize() {
    op o(0, op::kind::DynamicDequantize,
            {dense(1, dt::s8, shape23()), dense(2, dt::f32, {1}), dense(3, dt::s8, {1})},
            {dense(4, dt::f32, shape23())}, "dydq");
    o.set_attr(op::attr::qtype, "per_tensor");
    return o;
}

inline op valid_quantize_linear() {
    return op(0, op::kind::QuantizeLinear,
            {dense(1, dt::f32, shape23()), dense(2, dt::f32, {}), dense(3, dt::u8, {})},
            {dense(4, dt::u8, shape23())}, "ql");
}

inline op valid_dequantize_linear() {
    return op(0, op::kind::DequantizeLinear,
            {dense(1, dt::s8, shape23()), dense(2, dt::f32, {}), dense(3, dt::s8, {})},
            {dense(4, dt::f32, shape23())}, "dql");
}

inline op valid_dynamic_quantize_linear() {
    return op(0, op::kind::DynamicQuantizeLinear, {dense(1, dt::f32, shape23())},
            {dense(2, dt::u8, shape23()), dense(3, dt::f32, {}), dense(4, dt::u8, {})}, "dyql");
}

/// add_op on a fresh graph.
inline void add(const op &o) {
    qgraph::graph g(qgraph::engine::kind::cpu);
    g.add_op(o);
}

/// add_op + finalize + the one partition.
inline qgraph::partition partition_of(const op &o) { return single_partition(o); }

} // namespace qtest

#endif
