#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/fp_env.hpp"
#include "common/utils.hpp"
#include "common/verbose.hpp"
#include "interface/fused_chain.hpp"
#include "interface/partition_impl.hpp"
#include "interface/runtime_lookup.hpp"
#include "qgraph/error.hpp"

namespace qgraph {
namespace impl {
namespace {

/// Checks one tensor against its compiled logical tensor; returns its handle. The message
/// strings are only built when a check fails (execute is the hot path).
template <typename Where, typename What>
void *bound_handle(const tensor &t, const logical_tensor &want, size_t bytes,
        const Where &where, const What &what) {
    const logical_tensor &got = t.get_logical_tensor();
    if (got.get_id() != want.get_id())
        throw error(status::invalid_arguments,
                where() + ": " + what() + " has logical tensor id " + std::to_string(got.get_id())
                        + ", compiled for id " + std::to_string(want.get_id()));
    const bool same_layout = got.get_data_type() == want.get_data_type()
            && got.get_dims() == want.get_dims()
            && (got.get_layout_type() == logical_tensor::layout_type::any
                    || got.get_strides() == want.get_strides());
    if (!same_layout)
        throw error(status::invalid_arguments,
                where() + ": " + what() + " (id " + std::to_string(want.get_id()) + ") is "
                        + to_string(got.get_data_type()) + ":" + dims_to_string(got.get_dims())
                        + " strides " + dims_to_string(got.get_strides()) + ", compiled for "
                        + to_string(want.get_data_type()) + ":" + dims_to_string(want.get_dims())
                        + " strides " + dims_to_string(want.get_strides()));
    if (t.get_engine().get_kind() != engine::kind::cpu)
        throw error(status::invalid_arguments, where() + ": " + what() + " is not on a cpu engine");
    if (!t.get_data_handle() && bytes != 0)
        throw error(status::invalid_arguments,
                where() + ": " + what() + " (id " + std::to_string(want.get_id())
                        + ") has a null data handle");
    return t.get_data_handle();
}

/// The handles of one execute's tensors, by port position: on the stack for up to
/// kInline ports (every op, every pattern of pattern_table.cpp), on the heap beyond, so an
/// execute allocates nothing in the usual case whatever the number of ports.
template <typename T>
class port_handles {
public:
    explicit port_handles(size_t n)
        : heap_(n > kInline ? n : 0), data_(n > kInline ? heap_.data() : inline_) {}
    T &operator[](size_t i) { return data_[i]; }
    T *data() { return data_; }

private:
    static constexpr size_t kInline = 8;
    T inline_[kInline] = {};
    std::vector<T> heap_;
    T *data_;
};

bool overlap(const void *a, size_t na, const void *b, size_t nb) {
    const auto pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
    return na != 0 && nb != 0 && pa < pb + nb && pb < pa + na;
}

/// A fused partition's exec line; `fallbacks` from chain_runner::run, `tables_built` from
/// runtime_lookup::run.
std::string fused_exec_line(const compiled_partition_impl &cp,
        const std::vector<stage_fallback> &fallbacks, bool tables_built, double t0) {
    // As for one op: the kernels that ran, and where a stage's kernel handed its call to a
    // fallback chosen from the runtime values, the compiled kernels and why.
    std::string why;
    for (const stage_fallback &f : fallbacks)
        if (f.ran && f.why) why += (why.empty() ? "" : "; ") + verbose_field(f.why);
    const bool fell_back = std::any_of(fallbacks.begin(), fallbacks.end(),
            [](const stage_fallback &f) { return f.ran != nullptr; });
    std::string line = cp.verbose_head("exec") + ",backend:"
            + (fell_back ? cp.chain->backend_names(&fallbacks) : cp.backend_name) + ",kernel:"
            + (fell_back ? cp.chain->kernel_names(&fallbacks) : cp.kernel_name) + ","
            + std::to_string(now_ms() - t0);
    if (fell_back) {
        line += ",fallback_from:" + cp.kernel_name;
        if (!why.empty()) line += " (" + why + ")";
    }
    // The runtime lookup's tables are built from the parameter values: a call that built
    // them paid for 256 evaluations per entry (parameters that change on every call do).
    if (tables_built) line += ",tables:built";
    return line;
}

} // namespace

void compiled_partition_impl::execute(threadpool_iface *pool, const std::vector<tensor> &ins,
        const std::vector<tensor> &outs) const {
    const double t0 = verbose_level() >= 1 ? now_ms() : 0.0;
    const auto where = [this] { return "execute(partition " + std::to_string(partition_id) + ")"; };
    if (ins.size() != inputs.size() || outs.size() != outputs.size())
        throw error(status::invalid_arguments,
                where() + ": got " + std::to_string(ins.size()) + " inputs and "
                        + std::to_string(outs.size()) + " outputs, compiled for "
                        + std::to_string(inputs.size()) + " and "
                        + std::to_string(outputs.size()));
    port_handles<const void *> in_ptr(ins.size());
    port_handles<void *> out_ptr(outs.size());
    for (size_t i = 0; i < ins.size(); ++i)
        in_ptr[i] = bound_handle(ins[i], inputs[i], input_bytes[i], where,
                [i] { return "input " + std::to_string(i); });
    for (size_t i = 0; i < outs.size(); ++i) {
        out_ptr[i] = bound_handle(outs[i], outputs[i], output_bytes[i], where,
                [i] { return "output " + std::to_string(i); });
        // An output written over an input (or another output) would corrupt what is read;
        // only the in-place pair may share memory, and then exactly (get_inplace_ports).
        for (size_t j = 0; j < ins.size(); ++j) {
            if (!overlap(out_ptr[i], output_bytes[i], in_ptr[j], input_bytes[j])) continue;
            const bool pair = in_place == std::make_pair(static_cast<int>(j), static_cast<int>(i));
            if (pair && out_ptr[i] == in_ptr[j]) continue;
            throw error(status::invalid_arguments,
                    where() + ": output " + std::to_string(i) + " overlaps input "
                            + std::to_string(j) + " in memory"
                            + (pair ? " without sharing its address (in place needs both at one"
                                      " address)"
                                    : " (get_inplace_ports() lists the pairs that may share"
                                      " memory)"));
        }
        for (size_t j = 0; j < i; ++j)
            if (overlap(out_ptr[i], output_bytes[i], out_ptr[j], output_bytes[j]))
                throw error(status::invalid_arguments,
                        where() + ": output " + std::to_string(i) + " overlaps output "
                                + std::to_string(j) + " in memory");
    }

    if (chain || lookup) {
        // Filled only for verbose output: which stages fell back, and why.
        std::vector<stage_fallback> fallbacks;
        const bool verbose = verbose_level() >= 1;
        bool built = false;
        {
            const fp_env_guard fp; // the caller's MXCSR is theirs (fp_env.hpp)
            const parallel_ctx ctx = current_parallel_ctx(pool);
            if (chain)
                chain->run(ctx, in_ptr.data(), out_ptr.data(), verbose ? &fallbacks : nullptr);
            else
                built = lookup->run(ctx, in_ptr.data(), out_ptr.data(), args.src, args.dst);
        }
        if (verbose) verbose_print(fused_exec_line(*this, fallbacks, built, t0));
        return;
    }
    exec_args a;
    a.par = current_parallel_ctx(pool);
    a.src = in_ptr[args.src];
    if (args.scales >= 0) a.scales = in_ptr[args.scales];
    if (args.zps >= 0) a.zps = in_ptr[args.zps];
    a.dst = out_ptr[args.dst];
    if (args.out_scale >= 0) a.out_scale = static_cast<float *>(out_ptr[args.out_scale]);
    if (args.out_zp >= 0) a.out_zp = static_cast<uint8_t *>(out_ptr[args.out_zp]);

    const kernel &ran = [&]() -> const kernel & {
        const fp_env_guard fp; // the caller's MXCSR is theirs (fp_env.hpp)
        return k->run(a);
    }();
    if (verbose_level() >= 1) {
        // The kernel that ran may be a fallback chosen from the runtime values; then the line
        // says which kernel handed the call over and why.
        std::string line = verbose_head("exec") + ",backend:" + ran.backend()
                + ",kernel:" + ran.name() + "," + std::to_string(now_ms() - t0);
        if (&ran != k.get()) {
            const char *why = k->fallback_reason(a);
            line += ",fallback_from:" + k->name();
            if (why) line += " (" + verbose_field(why) + ")";
        }
        verbose_print(line);
    }
}

std::string compiled_partition_impl::verbose_head(const char *operation) const {
    return std::string(operation) + ",partition:" + std::to_string(partition_id) + ","
            + op_fields + "," + description;
}

} // namespace impl

void compiled_partition::execute(stream &strm, const std::vector<tensor> &inputs,
        const std::vector<tensor> &outputs) const {
    if (strm.get_engine().get_kind() != engine::kind::cpu)
        throw error(status::invalid_arguments, "execute: the stream is not on a cpu engine");
    impl_->execute(strm.get_threadpool(), inputs, outputs);
}

logical_tensor compiled_partition::query_logical_tensor(size_t id) const {
    for (const auto *list : {&impl_->inputs, &impl_->outputs})
        for (const logical_tensor &t : *list)
            if (t.get_id() == id) return t;
    throw error(status::invalid_arguments,
            "query_logical_tensor: id " + std::to_string(id) + " is not a port of partition "
                    + std::to_string(impl_->partition_id));
}

std::vector<std::pair<size_t, size_t>> compiled_partition::get_inplace_ports() const {
    if (impl_->in_place.first < 0) return {};
    return {{impl_->inputs[impl_->in_place.first].get_id(),
            impl_->outputs[impl_->in_place.second].get_id()}};
}

const std::vector<logical_tensor> &compiled_partition::get_input_logical_tensors() const {
    return impl_->inputs;
}
const std::vector<logical_tensor> &compiled_partition::get_output_logical_tensors() const {
    return impl_->outputs;
}
const std::string &compiled_partition::get_backend_name() const { return impl_->backend_name; }
const std::string &compiled_partition::get_kernel_name() const { return impl_->kernel_name; }

} // namespace qgraph
