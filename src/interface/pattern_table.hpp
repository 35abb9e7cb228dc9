#ifndef QGRAPH_INTERFACE_PATTERN_TABLE_HPP
#define QGRAPH_INTERFACE_PATTERN_TABLE_HPP

// The fusion patterns, as data (like oneDNN's pattern registry): each a name, a priority and
// the op kinds of a chain, position by position. The partitioner (partition_graph) tries them
// in priority order at every op still unclaimed and leaves every other op in a partition of
// its own. A chain fuses only where each intermediate is read by exactly one op, through its
// data port alone, and is declared with a layout the fused kernel takes (`any` or dense; an
// intermediate written or read by a Reorder, StaticTranspose or StaticReshape inside the chain
// may have any strides, as the movement is folded into the outer tensors' strides and the
// intermediate never exists): an intermediate that is also a graph output (an End op reads
// it) or feeds two ops stays between two partitions. A StaticReshape fuses only where its
// shapes let the fold be exact (passes/chain_rewrite.hpp, common_refinement).

#include <memory>
#include <string>
#include <vector>

#include "qgraph/graph.hpp"
#include "qgraph/op.hpp"

namespace qgraph {
namespace impl {

struct partition_impl;

struct fusion_pattern {
    const char *name;
    int priority; ///< higher first where two patterns could claim the same op
    /// The chain: at each position, the op kinds that may stand there.
    std::vector<std::vector<op::kind>> chain;
};

/// Every pattern, highest priority first.
const std::vector<fusion_pattern> &fusion_patterns();

/// The partitions of `ops` (topologically ordered, shape-inferred) under `policy`, in an
/// order in which they can be executed.
std::vector<std::shared_ptr<partition_impl>> partition_graph(
        const std::vector<op> &ops, engine::kind ekind, graph::partition_policy policy);

} // namespace impl
} // namespace qgraph

#endif
