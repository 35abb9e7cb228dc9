#ifndef QGRAPH_INTERFACE_OP_SCHEMA_HPP
#define QGRAPH_INTERFACE_OP_SCHEMA_HPP

// Op schemas: ports, dtype constraints, attributes with defaults, the cross-port rules (axis
// range, scale and zero-point counts) and shape inference of the quantization ops and of the
// data-movement ops (TypeCast, Reorder, StaticReshape, StaticTranspose). Checked
// when an op is added to a graph, and again at compile once every shape is concrete.

#include <string>

#include "qgraph/op.hpp"

namespace qgraph {
namespace impl {

/// Checks `o` against its schema and returns it with unknown output shapes inferred.
/// Shape-dependent rules are skipped while an input shape is unknown. Throws qgraph::error
/// (invalid_graph_op, invalid_data_type, invalid_shape) naming the op, port or attribute and
/// the rule. Other op kinds are returned unchecked (they load and are never run).
op check_op(const op &o);

/// For an op that passed check_op: whether qgraph can run it. When not, `reason` says why
/// (a dtype, per_group, block_size, ... valid by the spec but not implemented).
bool is_implemented(const op &o, std::string &reason);

} // namespace impl
} // namespace qgraph

#endif
