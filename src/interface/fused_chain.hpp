#ifndef QGRAPH_INTERFACE_FUSED_CHAIN_HPP
#define QGRAPH_INTERFACE_FUSED_CHAIN_HPP

// A fused partition's kernel: the chain's ops run one after another over cache-sized blocks
// of the tensor, each op by its own kernel, the intermediates in a per-thread scratch buffer.
// Each kernel rounds to its op's output type as it does alone, so the results are the ops'
// run one after another bit for bit (NUMERICS.md, "Chains and fusions"), and the
// intermediates never go to memory.
//
// The blocks cut the user's (orig) index space: the innermost dims whole, as many as fit a
// block, and a chunk of the next one out; every block but the last along that dim has one
// shape, so each op has two kernels at most (body and tail). Per-channel attribute parameters
// become input arrays of the chain (the block's kernel reads its slice of them). Where blocks
// cannot cut (sub-byte types, whose elements share bytes; a zero-dim tensor; groups of
// different sizes on the cut dim) the chain runs as one block over the whole tensor.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "interface/partition_impl.hpp"

namespace qgraph {
namespace impl {

/// What ran one op of a chain's execute where a block's kernel handed it to its fallback:
/// the first such block's (kernel::run's result, and kernel::fallback_reason's). `ran` null:
/// every block of the op ran on its compiled kernel.
struct stage_fallback {
    const kernel *ran = nullptr;
    const char *why = nullptr;
};

class chain_runner {
public:
    /// `full`: each op's problem over the whole tensor (the intermediates dense), in chain
    /// order; `args`: where each op's arguments sit among the partition's external inputs
    /// and outputs, src -1 for the previous op's result and dst -1 for the next op's input.
    /// Throws unimplemented, naming the op and the reasons, where no candidate takes a block.
    chain_runner(const std::vector<quant_problem> &full, const std::vector<arg_positions> &args,
            const std::vector<const backend *> &candidates, std::vector<rejection> &rejected);

    /// `in` and `out`: the handles of the partition's external inputs and outputs, by
    /// position. `fallbacks` (verbose output only; null: nothing is recorded): resized to one
    /// entry per op, filled where a block's kernel handed the call to its fallback.
    void run(const parallel_ctx &ctx, const void *const *in, void *const *out,
            std::vector<stage_fallback> *fallbacks = nullptr) const;

    /// The ops' kernel names joined by '+' ("jit:avx2+jit:avx2"); with `ran`, from run, the
    /// kernels that ran the stages that fell back in place of the compiled ones.
    std::string kernel_names(const std::vector<stage_fallback> *ran = nullptr) const;
    /// The ops' backends, each once, joined by '+' ("jit", "dnnl+jit"); `ran` as above.
    std::string backend_names(const std::vector<stage_fallback> *ran = nullptr) const;
    /// The ops' problems joined by " -> ", and the block shape.
    std::string describe() const;

private:
    struct stage {
        arg_positions args;
        quant_problem full; ///< over the whole tensor
        /// Per-channel attribute parameters, bound as the block kernels' input arrays.
        std::vector<float> scales;
        std::vector<int32_t> zps;
        std::shared_ptr<const kernel> body, tail; ///< tail: the last chunk, when shorter
        size_t scratch_offset = 0; ///< of its result in a thread's scratch, but the last op's
    };
    std::vector<stage> stages_;
    std::vector<int64_t> dims_; ///< the user's shape, shared by every op
    int cut_ = -1; ///< the dim cut into chunks; -1: one block, the whole tensor
    int64_t chunk_ = 0, nchunks_ = 1, nouter_ = 1; ///< outer: the dims before cut_
    int64_t block_elems_ = 0; ///< elements of a body block
    size_t scratch_bytes_ = 0; ///< the intermediates of one block
    std::string description_;

    /// Runs every op on one block; `proto` holds the parallel context the kernels get.
    /// `fallbacks`: null, or one entry per op, where a stage that falls back and has no entry
    /// yet records what ran.
    void run_block(int64_t block, const void *const *in, void *const *out, char *scratch,
            const exec_args &proto, stage_fallback *fallbacks) const;
    /// The kernel stage s ran on, by `ran` where given.
    const kernel &stage_kernel(size_t s, const std::vector<stage_fallback> *ran) const;
};

} // namespace impl
} // namespace qgraph

#endif
