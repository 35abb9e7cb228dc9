#include "interface/pattern_table.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "interface/op_schema.hpp"
#include "interface/partition_impl.hpp"
#include "passes/chain_rewrite.hpp"
#include "common/op_attrs.hpp"

namespace qgraph {
namespace impl {

const std::vector<fusion_pattern> &fusion_patterns() {
    using k = op::kind;
    // Static and dynamic parameters mix freely: each op runs its own kernel, so the fused
    // chain needs nothing from the pair but a shared shape.
    static const std::vector<fusion_pattern> table = [] {
        std::vector<fusion_pattern> t {
            // A layout change between the two: the movement only places an intermediate
            // that, fused, is never written (passes/chain_rewrite.hpp, fold_data_movement).
            {"requantize_reorder", 20,
                    {{k::Dequantize, k::DynamicDequantize}, {k::Reorder, k::StaticTranspose},
                            {k::Quantize, k::DynamicQuantize}}},
            // A flatten or unflatten between the two: a view of the intermediate, folded
            // where both shapes regroup one finer shape (reshape_folds below).
            {"requantize_reshape", 20,
                    {{k::Dequantize, k::DynamicDequantize}, {k::StaticReshape},
                            {k::Quantize, k::DynamicQuantize}}},
            {"requantize_reorder_reshape", 30,
                    {{k::Dequantize, k::DynamicDequantize}, {k::Reorder, k::StaticTranspose},
                            {k::StaticReshape}, {k::Quantize, k::DynamicQuantize}}},
            {"requantize", 10,
                    {{k::Dequantize, k::DynamicDequantize}, {k::Quantize, k::DynamicQuantize}}},
            {"fake_quantize", 10,
                    {{k::Quantize, k::DynamicQuantize}, {k::Dequantize, k::DynamicDequantize}}},
            {"onnx_requantize", 10, {{k::DequantizeLinear}, {k::QuantizeLinear}}},
            {"onnx_fake_quantize", 10, {{k::QuantizeLinear}, {k::DequantizeLinear}}},
            // A bf16 / f16 model's edges: its activations cast before they are quantized,
            // and dequantized values cast into its compute type.
            {"typecast_quantize", 10,
                    {{k::TypeCast}, {k::Quantize, k::QuantizeLinear, k::DynamicQuantize}}},
            {"dequantize_typecast", 10,
                    {{k::Dequantize, k::DequantizeLinear, k::DynamicDequantize},
                            {k::TypeCast}}},
        };
        std::stable_sort(t.begin(), t.end(), [](const fusion_pattern &a,
                                                     const fusion_pattern &b) {
            return a.priority > b.priority;
        });
        return t;
    }();
    return table;
}

namespace {

/// Whether t is dense row-major (or has no strides yet).
bool dense(const logical_tensor &t) {
    if (t.get_layout_type() != logical_tensor::layout_type::strided || !t.has_known_shape())
        return true; // `any`, or strided without a shape (dense once it has one)
    int64_t step = 1;
    const auto &d = t.get_dims();
    // Strides of another rank are malformed: not dense here; the op's own checks report them
    // when its partition compiles.
    if (t.get_strides().size() != d.size()) return false;
    for (size_t i = d.size(); i-- > 0;) {
        if (d[i] != 1 && t.get_strides()[i] != step) return false;
        // A size that overflows int64 has no dense strides (its own checks reject it).
        if (__builtin_mul_overflow(step, d[i], &step)) return false;
    }
    return true;
}

/// Reorder, StaticTranspose, StaticReshape: ops that only place elements. An intermediate
/// one of them writes or reads inside a fused chain is never materialised (its layout is
/// folded into the chain's outer tensors), so its declared strides do not matter.
bool moves_data(const op &o) {
    return o.get_kind() == op::kind::Reorder || o.get_kind() == op::kind::StaticTranspose
            || o.get_kind() == op::kind::StaticReshape;
}

/// channel_axis() of a per-tensor op, and of an axis that names no dim of a known rank
/// (the op's own checks reject it when its partition compiles; nothing folds around it).
constexpr int per_tensor_axis = -1, unknown_axis = -2;

/// The dim of input 0 that a per-channel Quantize / Dequantize (static or dynamic) takes its
/// parameters along, or per_tensor_axis / unknown_axis.
int channel_axis(const op &o) {
    if (attr_string(o, "qtype", "per_tensor") != "per_channel") return per_tensor_axis;
    const int64_t a = attr_s64(o, "axis", 1);
    const int64_t nd = o.get_input_logical_tensors()[0].get_ndims(); // -1: unknown
    if (a < -nd || a >= nd) return unknown_axis; // nd <= 0 included
    return static_cast<int>(a < 0 ? a + nd : a);
}

/// Whether every StaticReshape in `chain` folds at compile as a view (passes/chain_rewrite.hpp,
/// fold_data_movement): it stands right before the chain's last op, its two shapes are known
/// and have a common refinement, and the refinement cuts neither the first op's channel (moved
/// through a transpose before the reshape) nor the last op's. Shapes and axes are all it
/// takes, and compile cannot change them, so a chain that fuses folds whatever strides its
/// outer tensors are given.
bool reshapes_fold(const std::vector<op> &ops, const std::vector<size_t> &chain) {
    int channel = channel_axis(ops[chain.front()]); // in the current op's source
    for (size_t pos = 1; pos + 1 < chain.size(); ++pos) {
        const op &o = ops[chain[pos]];
        const logical_tensor &in = o.get_input_logical_tensors()[0];
        if (o.get_kind() == op::kind::StaticTranspose && channel >= 0) {
            const std::vector<int64_t> order = attr_s64s(o, "order");
            const int64_t nd = in.get_ndims(); // -1: unknown
            int moved = unknown_axis; // dst dim d is src dim order[d] (negative: from the end)
            for (size_t d = 0; d < order.size(); ++d)
                if (order[d] >= -nd && order[d] < nd && (order[d] + nd) % nd == channel)
                    moved = static_cast<int>(d);
            channel = moved;
        }
        if (o.get_kind() != op::kind::StaticReshape) continue;
        const logical_tensor &out = o.get_output_logical_tensors()[0];
        std::vector<int64_t> common;
        const int next_channel = channel_axis(ops[chain.back()]);
        if (channel == unknown_axis || next_channel == unknown_axis || pos + 2 != chain.size()
                || !in.has_known_shape() || !out.has_known_shape()
                || !ops[chain.front()].get_input_logical_tensors()[0].has_known_shape()
                || !common_refinement(in.get_dims(), out.get_dims(), common)
                || (channel >= 0 && !kept_whole(in.get_dims(), channel, common))
                || (next_channel >= 0 && !kept_whole(out.get_dims(), next_channel, common)))
            return false;
    }
    return true;
}

struct use {
    size_t op_index;
    size_t port;
};

/// Ops at `start` onwards matching `pat`, each intermediate read by one op through port 0
/// alone, or empty.
std::vector<size_t> match(const fusion_pattern &pat, size_t start, const std::vector<op> &ops,
        const std::map<size_t, std::vector<use>> &uses, const std::vector<bool> &claimed) {
    std::vector<size_t> chain;
    size_t at = start;
    for (size_t pos = 0; pos < pat.chain.size(); ++pos) {
        const op &o = ops[at];
        bool kind_ok = false;
        for (op::kind kd : pat.chain[pos]) kind_ok = kind_ok || kd == o.get_kind();
        std::string why;
        if (claimed[at] || !kind_ok || !is_implemented(o, why)) return {};
        chain.push_back(at);
        if (pos + 1 == pat.chain.size()) break;
        if (o.get_output_logical_tensors().size() != 1) return {};
        const logical_tensor &mid = o.get_output_logical_tensors()[0];
        const auto it = uses.find(mid.get_id());
        if (it == uses.end() || it->second.size() != 1 || it->second[0].port != 0) return {};
        const size_t next = it->second[0].op_index;
        if (!moves_data(o) && !moves_data(ops[next])
                && (!dense(mid) || !dense(ops[next].get_input_logical_tensors()[0])))
            return {};
        at = next;
    }
    return reshapes_fold(ops, chain) ? chain : std::vector<size_t> {};
}

std::shared_ptr<partition_impl> make_partition(const std::vector<op> &ops,
        const std::vector<size_t> &chain, const char *pattern, engine::kind ekind) {
    auto p = std::make_shared<partition_impl>();
    p->ekind = ekind;
    p->pattern = pattern ? pattern : "";
    for (size_t i : chain) p->ops.push_back(ops[i]);
    p->supported = true;
    for (const op &o : p->ops)
        if (!is_implemented(o, p->reason)) p->supported = false;
    p->set_ports();
    return p;
}

} // namespace

std::vector<std::shared_ptr<partition_impl>> partition_graph(
        const std::vector<op> &ops, engine::kind ekind, graph::partition_policy policy) {
    std::map<size_t, std::vector<use>> uses; // logical tensor id -> its reads
    for (size_t i = 0; i < ops.size(); ++i)
        for (size_t p = 0; p < ops[i].get_input_logical_tensors().size(); ++p)
            uses[ops[i].get_input_logical_tensors()[p].get_id()].push_back({i, p});

    std::vector<bool> claimed(ops.size(), false);
    // A fused partition runs where its last op stood: its external inputs are all produced
    // by then, and nothing before that reads its intermediates (their one reader is inside).
    std::map<size_t, std::shared_ptr<partition_impl>> at_last_op;
    for (size_t i = 0; i < ops.size(); ++i) {
        if (claimed[i]) continue;
        if (policy == graph::partition_policy::fusion)
            for (const fusion_pattern &pat : fusion_patterns()) {
                const std::vector<size_t> chain = match(pat, i, ops, uses, claimed);
                if (chain.empty()) continue;
                for (size_t c : chain) claimed[c] = true;
                at_last_op[chain.back()] = make_partition(ops, chain, pat.name, ekind);
                break;
            }
        if (!claimed[i]) {
            claimed[i] = true;
            at_last_op[i] = make_partition(ops, {i}, nullptr, ekind);
        }
    }
    std::vector<std::shared_ptr<partition_impl>> parts;
    for (auto &kv : at_last_op) {
        kv.second->id = next_partition_id(); // ids in execution order, as with one op each
        parts.push_back(std::move(kv.second));
    }
    return parts;
}

} // namespace impl
} // namespace qgraph
