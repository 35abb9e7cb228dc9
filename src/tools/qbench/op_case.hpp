#ifndef QGRAPH_TOOLS_QBENCH_OP_CASE_HPP
#define QGRAPH_TOOLS_QBENCH_OP_CASE_HPP

// The op shorthand: a one-op graph case built from --op/--sdt/--ddt/--qtype/--axis/--zp/
// --scale and a source shape, so a problem can be run without writing JSON.

#include "qgraph/logical_tensor.hpp"
#include "tools/case/case_io.hpp"
#include "tools/qbench/options.hpp"

namespace qgraph {
namespace qbench {

/// `o` with the types it leaves open filled in: f32 -> u8 for quantizing ops, u8 -> f32 for
/// dequantizing ones; an ONNX op with an s8/u8 zero point takes that type for its integer side.
op_knobs resolve_op_knobs(const op_knobs &o);

/// The case: tensor ids x = 0, scale = 1, zero point = 2, y = 3 (DynamicQuantizeLinear:
/// x = 0, y = 1, y_scale = 2, y_zero_point = 3). Scales and zero points that are inputs get
/// their values in `inputs` (has_data stays false, so the source is filled). Throws
/// qgraph::error(invalid_arguments) for an axis outside the shape.
tools::graph_case make_op_case(const op_knobs &o, const logical_tensor::dims &shape);

} // namespace qbench
} // namespace qgraph

#endif
