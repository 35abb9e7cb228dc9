#include "qgraph/graph.hpp"

#include <algorithm>
#include <map>
#include <queue>
#include <set>
#include <unordered_map>

#include "common/op_attrs.hpp"
#include "common/utils.hpp"
#include "interface/op_schema.hpp"
#include "interface/partition_impl.hpp"
#include "interface/pattern_table.hpp"
#include "qgraph/error.hpp"

namespace qgraph {
namespace impl {

struct graph_impl {
    engine::kind ekind;
    fpmath_mode mode;
    std::vector<op> ops; ///< as added (outputs shape-inferred); topological after finalize
    bool finalized = false;
    /// op id -> index in ops as added: add_op's duplicate check in O(1), so building a graph
    /// of n ops is O(n), not O(n^2).
    std::unordered_map<size_t, size_t> index_of_id {};
};

namespace {

/// One id, one tensor: the producer and every consumer must agree on dtype, shape and (when
/// both give them) strides, or one would write a layout the other misreads.
bool same_declaration(const logical_tensor &a, const logical_tensor &b) {
    if (a.get_data_type() != b.get_data_type()) return false;
    if (!a.has_known_shape() || !b.has_known_shape()) return true;
    if (a.get_dims() != b.get_dims()) return false;
    const auto strided = logical_tensor::layout_type::strided;
    return a.get_layout_type() != strided || b.get_layout_type() != strided
            || a.get_strides() == b.get_strides();
}

std::string lt_desc(const logical_tensor &t) {
    std::string s = std::string(to_string(t.get_data_type())) + ":"
            + (t.has_known_shape() ? dims_to_string(t.get_dims()) : "?");
    if (t.get_layout_type() == logical_tensor::layout_type::strided && t.has_known_shape())
        s += " strides " + dims_to_string(t.get_strides());
    return s;
}

/// Kahn's algorithm over "op b reads what op a writes". Throws invalid_graph on a cycle,
/// naming the ops on it.
std::vector<op> topological_order(const std::vector<op> &ops) {
    std::map<size_t, size_t> producer; // lt id -> op index
    for (size_t i = 0; i < ops.size(); ++i)
        for (const logical_tensor &t : ops[i].get_output_logical_tensors())
            producer[t.get_id()] = i;
    std::vector<std::set<size_t>> users(ops.size());
    std::vector<size_t> pending(ops.size(), 0);
    for (size_t i = 0; i < ops.size(); ++i) {
        std::set<size_t> deps;
        for (const logical_tensor &t : ops[i].get_input_logical_tensors()) {
            auto it = producer.find(t.get_id());
            if (it != producer.end()) deps.insert(it->second);
        }
        pending[i] = deps.size();
        for (size_t d : deps) users[d].insert(i);
    }
    // Lowest index first (a min-heap), so independent ops keep the order they were added in;
    // O(n log n) for n ops.
    std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
    for (size_t i = 0; i < ops.size(); ++i)
        if (pending[i] == 0) ready.push(i);
    std::vector<op> order;
    order.reserve(ops.size());
    while (!ready.empty()) {
        const size_t i = ready.top();
        ready.pop();
        order.push_back(ops[i]);
        for (size_t u : users[i])
            if (--pending[u] == 0) ready.push(u);
    }
    if (order.size() != ops.size()) {
        // Name the first few ops left unsorted (on or behind a cycle), then how many more: a
        // message stays one readable line however large the graph.
        constexpr size_t max_named = 8;
        std::string names;
        size_t left = 0;
        for (size_t i = 0; i < ops.size(); ++i)
            if (pending[i] != 0 && left++ < max_named)
                names += (names.empty() ? "" : ", ") + op_desc(ops[i]);
        if (left > max_named) names += " and " + std::to_string(left - max_named) + " more ops";
        throw error(status::invalid_graph, "graph has a cycle through " + names);
    }
    return order;
}

} // namespace
} // namespace impl

graph::graph(engine::kind kind, fpmath_mode mode)
    : impl_(std::make_shared<impl::graph_impl>(impl::graph_impl {kind, mode, {}, false})) {
    if (kind != engine::kind::cpu)
        throw error(status::unimplemented,
                std::string("graph: qgraph runs on the cpu engine only, got ") + to_string(kind));
}

void graph::add_op(const op &aop, bool allow_exists) {
    if (impl_->finalized)
        throw error(status::invalid_graph,
                "add_op(" + impl::op_desc(aop) + "): the graph is finalized");
    const auto found = impl_->index_of_id.find(aop.get_id());
    if (found != impl_->index_of_id.end()) {
        if (allow_exists) return;
        throw error(status::invalid_graph,
                "add_op(" + impl::op_desc(aop) + "): op id " + std::to_string(aop.get_id())
                        + " is already used by " + impl::op_desc(impl_->ops[found->second]));
    }
    impl_->ops.push_back(impl::check_op(aop));
    impl_->index_of_id.emplace(aop.get_id(), impl_->ops.size() - 1);
}

void graph::finalize() {
    if (impl_->finalized) return;
    std::vector<op> &ops = impl_->ops;
    if (ops.empty()) throw error(status::invalid_graph, "finalize: the graph has no ops");

    // Each logical tensor id has one producer and one declaration (dtype, shape).
    std::map<size_t, const op *> producer;
    std::map<size_t, std::pair<logical_tensor, const op *>> declared;
    for (const op &o : ops) {
        for (const logical_tensor &t : o.get_output_logical_tensors()) {
            auto ins = producer.emplace(t.get_id(), &o);
            if (!ins.second)
                throw error(status::invalid_graph,
                        "finalize: logical tensor " + std::to_string(t.get_id())
                                + " is produced by both " + impl::op_desc(*ins.first->second)
                                + " and " + impl::op_desc(o));
        }
        auto check = [&](const logical_tensor &t) {
            auto it = declared.emplace(t.get_id(), std::make_pair(t, &o)).first;
            if (!impl::same_declaration(it->second.first, t))
                throw error(status::invalid_graph,
                        "finalize: logical tensor " + std::to_string(t.get_id())
                                + " is declared " + impl::lt_desc(it->second.first) + " by "
                                + impl::op_desc(*it->second.second) + " but "
                                + impl::lt_desc(t) + " by " + impl::op_desc(o));
        };
        for (const logical_tensor &t : o.get_input_logical_tensors()) check(t);
        for (const logical_tensor &t : o.get_output_logical_tensors()) check(t);
    }

    std::vector<op> order = impl::topological_order(ops);

    // Propagate inferred shapes along the edges: an input declared without a shape takes its
    // producer's, and the consumer's schema is checked again with it.
    std::map<size_t, logical_tensor> known;
    for (op &o : order) {
        std::vector<logical_tensor> ins = o.get_input_logical_tensors();
        bool changed = false;
        for (logical_tensor &t : ins) {
            auto it = known.find(t.get_id());
            const bool any = t.get_layout_type() == logical_tensor::layout_type::any;
            if (it != known.end() && (!t.has_known_shape() || any)) {
                // The shape travels; the consumer keeps its own layout (a producer's `any`
                // is its output's business), strided meaning dense, except that a consumer's
                // `any` becomes strided: dense, what the producer's `any` output compiles
                // to. Then get_input_ports() compiles as it is (docs/api.md's loop).
                const auto &d = t.has_known_shape() ? t.get_dims() : it->second.get_dims();
                try {
                    t = logical_tensor(t.get_id(), t.get_data_type(), d,
                            any ? logical_tensor::layout_type::strided : t.get_layout_type(),
                            t.get_property_type());
                } catch (const error &e) { // dense strides overflow: say which op reads it
                    throw error(e.status(), "finalize: " + impl::op_desc(o) + ": " + e.what());
                }
                changed = true;
            }
        }
        if (changed) {
            op r(o.get_id(), o.get_kind(), ins, o.get_output_logical_tensors(), o.get_name());
            for (const auto &kv : o.get_attrs()) r.set_attr_value(kv.first, kv.second);
            o = impl::check_op(r);
        }
        for (const logical_tensor &t : o.get_output_logical_tensors())
            if (t.has_known_shape()) known[t.get_id()] = t;
    }
    ops = std::move(order);
    impl_->finalized = true;
}

bool graph::is_finalized() const { return impl_->finalized; }

std::vector<partition> graph::get_partitions(partition_policy policy) {
    if (!impl_->finalized)
        throw error(status::invalid_graph, "get_partitions: call finalize() first");
    std::vector<partition> parts;
    for (auto &p : impl::partition_graph(impl_->ops, impl_->ekind, policy))
        parts.push_back(partition(std::move(p)));
    return parts;
}

engine::kind graph::get_engine_kind() const { return impl_->ekind; }
fpmath_mode graph::get_fpmath_mode() const { return impl_->mode; }
std::vector<op> graph::get_ops() const { return impl_->ops; }

} // namespace qgraph
