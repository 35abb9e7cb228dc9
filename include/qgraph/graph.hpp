#ifndef QGRAPH_GRAPH_HPP
#define QGRAPH_GRAPH_HPP

#include <memory>
#include <vector>

#include "qgraph/engine.hpp"
#include "qgraph/export.hpp"
#include "qgraph/op.hpp"
#include "qgraph/partition.hpp"

namespace qgraph {

namespace impl {
struct graph_impl;
}

/// A set of ops connected by logical tensor ids. Modelled on dnnl::graph::graph:
/// add_op (checks the op's schema and infers shapes), finalize (checks the graph as a whole:
/// ids, producers, cycles), get_partitions.
class QGRAPH_API graph {
public:
    enum class partition_policy { fusion, debug };

    explicit graph(engine::kind kind, fpmath_mode mode = fpmath_mode::strict);

    /// Throws if the op breaks its schema (invalid_graph_op, invalid_data_type, ...) or its id
    /// is already in the graph, or the graph is finalized.
    void add_op(const op &aop, bool allow_exists = false);
    /// Throws invalid_graph for an empty graph, a logical tensor produced twice or declared
    /// inconsistently, or a cycle.
    void finalize();
    bool is_finalized() const;

    /// Partitions in execution order. Requires finalize(). `fusion` puts each chain a fusion
    /// pattern matches (Dequantize -> Quantize, Quantize -> Dequantize, their ONNX pairs) in
    /// one partition whose results equal its ops' run one by one, bit for bit; `debug` keeps
    /// one op per partition (docs/api.md, "Partitions").
    std::vector<partition> get_partitions(partition_policy policy = partition_policy::fusion);

    engine::kind get_engine_kind() const;
    fpmath_mode get_fpmath_mode() const;
    /// The ops with inferred shapes filled in: in the order added, and in execution
    /// (topological) order once the graph is finalized.
    std::vector<op> get_ops() const;

private:
    std::shared_ptr<impl::graph_impl> impl_;
};

} // namespace qgraph

#endif
