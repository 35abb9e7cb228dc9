#ifndef QGRAPH_PASSES_CHAIN_TABLES_HPP
#define QGRAPH_PASSES_CHAIN_TABLES_HPP

// Lowering of a fused Dequantize -> Quantize chain from an 8-bit integer source to an 8-bit
// integer destination to one table lookup (q_kind::lookup). Such a chain is a function of the
// source code and of the element's parameter entry only: 256 result codes per entry. The tables
// are computed at compile by the chain's own ops on the reference backend (the oracle) over
// every code of every entry, so the lookup gives the ops' results bit for bit by construction
// (NUMERICS.md, "Chains and fusions"); nothing re-derives the formulas.

#include <vector>

#include "backends/problem.hpp"

namespace qgraph {
namespace impl {

/// The lookup problem of the chain whose ops' problems (each over the whole tensor, the
/// intermediate dense) are `chain`, in order; or false, leaving `lookup` as it was, when the
/// chain is not one: it is not Dequantize -> Quantize, its source or destination is not u8/s8,
/// a parameter is read at execute (ONNX scale and zero-point inputs, the Dynamic ops), or the
/// two parameter maps do not vary along at most one dim, the same one, one entry per element
/// (per-tensor or per-channel on either side, the same axis where both are per-channel), or
/// its tables (256 bytes a channel) would be larger than both 16 KiB and the tensor.
bool lower_chain_to_lookup(const std::vector<quant_problem> &chain, quant_problem &lookup);

} // namespace impl
} // namespace qgraph

#endif
