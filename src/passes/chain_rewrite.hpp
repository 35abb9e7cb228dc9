#ifndef QGRAPH_PASSES_CHAIN_REWRITE_HPP
#define QGRAPH_PASSES_CHAIN_REWRITE_HPP

// Rewrites of a fused chain's problems (one per op, as lowered) into fewer problems that give
// the same bits (NUMERICS.md, "Chains and fusions"): where two neighbouring ops compose into
// one problem a kernel runs in one pass, the intermediate never exists at all. A chain that
// rewrites to one problem is compiled and run as a single op (its kernel, its threads); the
// rest run stage by stage in chain_runner.
//
// The rules so far:
// - dequantize (to f32) -> convert (f32 to bf16 or f16, reading the f32 in order) is the
//   dequantize with the convert's destination. Exact: the dequantize's f32 result is rounded
//   to bf16 / f16 by the one conversion TypeCast uses (NUMERICS.md: "f16 / bf16 outputs: the
//   f32 result rounded once to nearest even" and "f32 -> f16 / bf16 (outputs, TypeCast)" are
//   one rule; the reference backend runs both through common/half_types.hpp, and the
//   kernels are tested bit for bit against it).
// - convert (f32 to bf16 or f16, written in order) -> quantize of that bf16 / f16 is the
//   quantize of the f32 source with src_round_dt: each value rounded as the convert rounds
//   it, then widened back exactly (as the quantize reads a bf16 / f16 source), then the
//   quantize's own division and rounding. The two roundings stay two.
// - quantize (to an integer type) -> dequantize of that integer, both with attribute
//   parameters on the same map (per tensor, or per channel on the same axis), is the
//   quantize with a dequantize_stage (problem.hpp: fake-quantize): the integer is computed
//   and saturated as the quantize stores it, then dequantized, never stored.

#include <cstddef>
#include <vector>

#include "backends/problem.hpp"

namespace qgraph {
namespace impl {

/// One problem of a rewritten chain, and the ops of the chain (indices into it) whose
/// tensors it binds.
struct chain_stage {
    quant_problem problem;
    size_t src_op = 0; ///< whose source it reads: the first op it stands for
    size_t dst_op = 0; ///< whose result it writes: the last op it stands for
    size_t params_op = 0; ///< whose scales and zero points it reads
};

/// The finest shape that `a` and `b` (one element count) both regroup: each dim of either,
/// but those of size 1, is the product of a run of consecutive dims of it. Its dims are the
/// gaps between the cut points of both (the element counts of their trailing dims), so it
/// exists where each cut point divides the next: (1, 64, 7, 7) and (64, 49) give (64, 7, 7),
/// (2, 3) and (3, 2) none (false). An empty shape gives {0}. A reshape keeps the row-major
/// order of the elements, so both shapes index a dense tensor as `common` does.
bool common_refinement(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
        std::vector<int64_t> &common);

/// Whether dim `d` of `dims` is one dim of `common` (a refinement of `dims`), or of size 1:
/// a dim the parameters vary along must not be cut, or its parameter index would no longer
/// be one dim's index.
bool kept_whole(const std::vector<int64_t> &dims, size_t d, const std::vector<int64_t> &common);

/// Folds each data movement inside `chain` (a convert that keeps its type: Reorder,
/// StaticTranspose, StaticReshape, between two other problems, so that both its ends are
/// intermediates). A permutation of its source's dims (a Reorder, a StaticTranspose, a reshape
/// that only adds or drops dims of size 1) is folded into the problems before it: they are
/// re-expressed in the movement's index space (each dim, its source strides and its parameter
/// map taken from the dim it comes from, the per-channel axis so mapped through a transpose),
/// the last of them writing what the movement wrote. A reshape that regroups dims, reading
/// its dense source in order and read in order by the next problem, is a view: the problems
/// on both sides are re-expressed over the common_refinement of its two shapes (each dim cut
/// into the refinement's, its strides with it), where neither cuts a dim its parameters vary
/// along. The movement only decided where an intermediate's elements lie, and a fused
/// intermediate never reaches memory, so the chain computes the same bits without it. Any
/// other movement stays. Returns, for each problem left, its index in the chain as given.
std::vector<size_t> fold_data_movement(std::vector<quant_problem> &chain);

/// `ops`: a fused chain's problems, each op's result the next op's source. Returns the
/// stages that run it, in order, each neighbouring pair that composes merged into one;
/// quantize -> dequantize pairs only with `fake_quantize` (the caller leaves them apart
/// where no generated code takes the merged problem).
std::vector<chain_stage> rewrite_chain(
        const std::vector<quant_problem> &ops, bool fake_quantize = true);

} // namespace impl
} // namespace qgraph

#endif
