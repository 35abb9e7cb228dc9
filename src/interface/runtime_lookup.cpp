#include "interface/runtime_lookup.hpp"

#include <cstring>
#include <utility>

#include "backends/registry.hpp"
#include "qgraph/error.hpp"

namespace qgraph {
namespace impl {

runtime_lookup::runtime_lookup(chain_lookup plan, const arg_positions &dq_args,
        const arg_positions &q_args, const std::vector<size_t> &input_bytes,
        const backend *coder)
    : plan_(std::move(plan)), dq_args_(dq_args), q_args_(q_args), coder_(coder) {
    size_t total = 0;
    for (int pos : {dq_args.scales, dq_args.zps, q_args.scales, q_args.zps})
        if (pos >= 0) {
            params_.push_back({pos, input_bytes[static_cast<size_t>(pos)]});
            total += params_.back().bytes;
        }
    last_params_.resize(total);
}

bool runtime_lookup::same_params(const void *const *in) const {
    const unsigned char *last = last_params_.data();
    for (const param_port &p : params_) {
        if (p.bytes != 0 && std::memcmp(last, in[p.pos], p.bytes) != 0) return false;
        last += p.bytes;
    }
    return true;
}

std::shared_ptr<const kernel> runtime_lookup::build(
        const parallel_ctx &ctx, const void *const *in) const {
    const auto bound = [in](const arg_positions &args) {
        exec_args a;
        if (args.scales >= 0) a.scales = in[args.scales];
        if (args.zps >= 0) a.zps = in[args.zps];
        return a;
    };
    quant_problem lookup = plan_.lookup;
    lookup.tables = build_lookup_tables(plan_, bound(dq_args_), bound(q_args_), ctx);
    std::vector<rejection> rejected;
    std::shared_ptr<const kernel> k = select_kernel(lookup, {coder_}, rejected);
    // The backend took the same problem at compile, with other table bytes, which no backend
    // looks at when it decides.
    if (!k)
        throw error(status::runtime_error,
                lookup.op_name + ": " + coder_->name() + " rejects the lookup it took at compile: "
                        + (rejected.empty() ? std::string() : rejected[0].reason));
    return k;
}

bool runtime_lookup::run(const parallel_ctx &ctx, const void *const *in, void *const *out,
        int src, int dst) const {
    std::shared_ptr<const kernel> k;
    {
        const std::lock_guard<std::mutex> lock(mutex_);
        if (last_ && same_params(in)) k = last_;
    }
    const bool built = !k;
    if (built) {
        // Built with no lock held (the ops' parallel regions may run other work on this
        // thread); two threads that miss at once both build, and the last one keeps its own.
        k = build(ctx, in);
        const std::lock_guard<std::mutex> lock(mutex_);
        unsigned char *last = last_params_.data();
        for (const param_port &p : params_) {
            if (p.bytes != 0) std::memcpy(last, in[p.pos], p.bytes);
            last += p.bytes;
        }
        last_ = k;
    }
    exec_args a;
    a.par = ctx;
    a.src = in[src];
    a.dst = out[dst];
    k->run(a);
    return built;
}

} // namespace impl
} // namespace qgraph
