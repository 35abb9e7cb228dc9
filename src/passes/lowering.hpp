#ifndef QGRAPH_PASSES_LOWERING_HPP
#define QGRAPH_PASSES_LOWERING_HPP

// Lowering of one quantization op with concrete logical tensors to the canonical problem the
// backends take: op semantics become (kind, types, scale/zp sources) and any strided layout
// becomes merged dims with src/dst strides and a parameter map. The data-movement ops
// (TypeCast, Reorder, StaticReshape, StaticTranspose) become a convert over dst's index space,
// a transpose as src strides permuted, a reshape of a dense src as dense strides of dst's dims.

#include "backends/problem.hpp"
#include "qgraph/op.hpp"

namespace qgraph {
namespace impl {

/// `o` has passed check_op and is_implemented, and every logical tensor is strided with a
/// known shape. Throws unimplemented if the layout has too many dims after merging, and for
/// a StaticReshape whose src is not dense row-major.
quant_problem lower_op(const op &o);

/// Fills dims, strides and params from the orig_ fields and nelems (an empty orig_params is
/// per-tensor): size-1 dims are dropped, orig_params entries with one parameter entry along
/// their dim stop varying, and neighbours contiguous in both src and dst merge when the
/// parameters vary along neither (so every dim's parameter index stays i / group).
void canonicalise(quant_problem &p);

} // namespace impl
} // namespace qgraph

#endif
