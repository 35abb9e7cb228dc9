#ifndef QGRAPH_INTERFACE_RUNTIME_LOOKUP_HPP
#define QGRAPH_INTERFACE_RUNTIME_LOOKUP_HPP

// A fused 8-bit Dequantize -> Quantize whose scales or zero points are tensors read at
// execute (ONNX DequantizeLinear -> QuantizeLinear, oneDNN DynamicDequantize ->
// DynamicQuantize) as one table lookup. Its tables are a function of the parameter values, so
// they are built at execute the way the static chain's are at compile (passes/chain_tables:
// the chain's own ops on the reference backend over every code of every entry), and a lookup
// kernel is made over them. Building costs 256 evaluations per entry, so the last kernel is
// kept and reused while the parameter bytes bound are those it was built from: graphs pass the
// same initializers on every execute.
//
// A compiled partition may run from several threads at once (docs/api.md), each with its own
// parameters: the kept kernel and its parameter bytes change under a mutex, which is never
// held while anything runs, and a call runs the kernel it took by shared_ptr, so a rebuild by
// another thread never frees the tables a running call reads.

#include <memory>
#include <mutex>
#include <vector>

#include "backends/backend.hpp"
#include "interface/partition_impl.hpp"
#include "passes/chain_tables.hpp"

namespace qgraph {
namespace impl {

class runtime_lookup {
public:
    /// `plan`: the chain's lookup (plan.runtime_params()); `dq_args` and `q_args`: where each
    /// op's parameter tensors sit among the partition's inputs (a port not read is -1), whose
    /// sizes in bytes are `input_bytes`; `coder`: the backend that took the lookup at compile.
    runtime_lookup(chain_lookup plan, const arg_positions &dq_args, const arg_positions &q_args,
            const std::vector<size_t> &input_bytes, const backend *coder);

    /// `in` and `out`: the handles of the partition's external inputs and outputs, by
    /// position; src and dst at `src` and `dst`. Returns whether this call built the tables
    /// (the first call, or parameter bytes other than the kept kernel's), for verbose output.
    bool run(const parallel_ctx &ctx, const void *const *in, void *const *out, int src,
            int dst) const;

private:
    /// One parameter tensor the tables depend on: its input position and size.
    struct param_port {
        int pos;
        size_t bytes;
    };

    chain_lookup plan_;
    arg_positions dq_args_, q_args_;
    std::vector<param_port> params_;
    const backend *coder_;

    mutable std::mutex mutex_;
    /// The kernel built last and the bytes of params_, one after another, it was built from.
    mutable std::shared_ptr<const kernel> last_;
    mutable std::vector<unsigned char> last_params_;

    /// Whether the tensors bound now hold last_params_.
    bool same_params(const void *const *in) const;
    /// A kernel over the tables of the parameters bound now.
    std::shared_ptr<const kernel> build(const parallel_ctx &ctx, const void *const *in) const;
};

} // namespace impl
} // namespace qgraph

#endif
