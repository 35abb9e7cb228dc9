#ifndef QGRAPH_PASSES_CHAIN_TABLES_HPP
#define QGRAPH_PASSES_CHAIN_TABLES_HPP

// Lowering of a fused Dequantize -> Quantize chain from an 8-bit integer source to an 8-bit
// integer destination to one table lookup (q_kind::lookup). Such a chain is a function of the
// source code and of the element's parameter entry only: 256 result codes per entry. The tables
// are computed at compile by the chain's own ops on the reference backend (the oracle) over
// every code of every entry, so the lookup gives the ops' results bit for bit by construction
// (NUMERICS.md, "Chains and fusions"); nothing re-derives the formulas. Where a parameter is
// a tensor read at execute, the same ops build the tables then (interface/runtime_lookup.hpp).

#include <cstdint>
#include <vector>

#include "backends/problem.hpp"

namespace qgraph {
namespace impl {

/// A chain that is one lookup, before its tables: the lookup problem (tables empty) and the
/// chain's two ops over the table space (every code of every entry: dims [entries, 256],
/// dense, the parameters varying along the entries as they vary along the channel).
struct chain_lookup {
    quant_problem lookup;
    quant_problem dq_tables, q_tables;

    /// A parameter of either op is a tensor read at execute (ONNX scale and zero-point inputs,
    /// the Dynamic ops): the tables can only be built then, from the values bound.
    bool runtime_params() const;
};

/// The lookup of the chain whose ops' problems (each over the whole tensor, the intermediate
/// dense) are `chain`, in order; or false, leaving `plan` as it was, when the chain is not
/// one: it is not Dequantize -> Quantize, its source or destination is not u8/s8, the two
/// parameter maps do not vary along at most one dim, the same one, one entry per element
/// (per-tensor or per-channel on either side, the same axis where both are per-channel), or
/// its tables (256 bytes a channel) would be larger than both 16 KiB and the tensor.
/// Parameters may be attributes or tensors read at execute alike.
bool plan_chain_lookup(const std::vector<quant_problem> &chain, chain_lookup &plan);

/// plan's tables: the two ops run on the reference backend over every code of every entry,
/// the intermediate in the Dequantize's own type. `dq` and `q` hold each op's parameter
/// tensors where they are read at execute (scales, zps; their src and dst are ignored), and
/// `par` where the ops' parallel regions run. Throws what the ops throw on their values.
std::vector<uint8_t> build_lookup_tables(const chain_lookup &plan, const exec_args &dq,
        const exec_args &q, const parallel_ctx &par);

} // namespace impl
} // namespace qgraph

#endif
