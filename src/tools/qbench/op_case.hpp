#ifndef QGRAPH_TOOLS_QBENCH_OP_CASE_HPP
#define QGRAPH_TOOLS_QBENCH_OP_CASE_HPP

// The op shorthand: a one-op graph case built from --op/--sdt/--ddt/--qtype/--axis/--zp/
// --scale/--group/--scale-dt/--saturate/--opset and a source shape, so a problem can be run
// without writing JSON.

#include "qgraph/logical_tensor.hpp"
#include "tools/case/case_io.hpp"
#include "tools/qbench/options.hpp"

namespace qgraph {
namespace qbench {

/// `o` with the types it leaves open filled in: f32 -> u8 for quantizing ops, u8 -> f32 for
/// dequantizing ones; an ONNX op with a zero point takes its type for the quantized side, and
/// DequantizeLinear / DynamicDequantize output --scale-dt (f32 for e8m0).
op_knobs resolve_op_knobs(const op_knobs &o);

/// The case: tensor ids x = 0, scale = 1, zero point = 2, y = 3 (DynamicQuantizeLinear:
/// x = 0, y = 1, y_scale = 2, y_zero_point = 3). Scales and zero points that are inputs get
/// their values in `inputs` (has_data stays false, so the source is filled). --group makes
/// ONNX ops blocked (axis, block_size; scales of x's rank with ceil(D / B) along the axis)
/// and oneDNN's per_group (group_shape 1..1xAxB; scales of src dims / group). Throws
/// qgraph::error(invalid_arguments) for an axis outside the shape, a knob the op has no use
/// for (--group on Quantize, --saturate without a float8 QuantizeLinear, ...), two grouped
/// dims on an ONNX op, and a scale --scale-dt cannot hold exactly; the library's schema
/// judges the rest (types, opset, partial groups).
tools::graph_case make_op_case(const op_knobs &o, const logical_tensor::dims &shape);

} // namespace qbench
} // namespace qgraph

#endif
