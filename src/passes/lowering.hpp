#ifndef QGRAPH_PASSES_LOWERING_HPP
#define QGRAPH_PASSES_LOWERING_HPP

// Lowering of one quantization op with concrete logical tensors to the canonical problem the
// backends take: op semantics become (kind, types, scale/zp sources) and any strided layout
// becomes merged dims with src/dst strides and a channel dim.

#include "backends/problem.hpp"
#include "qgraph/op.hpp"

namespace qgraph {
namespace impl {

/// `o` has passed check_op and is_implemented, and every logical tensor is strided with a
/// known shape. Throws unimplemented if the layout has too many dims after merging.
quant_problem lower_op(const op &o);

} // namespace impl
} // namespace qgraph

#endif
