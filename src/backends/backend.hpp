#ifndef QGRAPH_BACKENDS_BACKEND_HPP
#define QGRAPH_BACKENDS_BACKEND_HPP

// A backend turns a canonical problem into a kernel, or says why it cannot. Backends are tried
// in priority order (registry.hpp); the reference backend accepts everything and comes last.

#include <functional>
#include <memory>
#include <string>

#include "backends/problem.hpp"

namespace qgraph {
namespace impl {

/// Compiled code for one problem. run() is const and keeps no state between calls, so one
/// kernel may run from several threads at once on different buffers.
class kernel {
public:
    virtual ~kernel() = default;
    /// The backend that built it, as the registry names it: "jit", "dnnl" or "ref".
    virtual const char *backend() const = 0;
    /// backend() + ":" + what it is: "ref:quantize", "dnnl:reorder", "jit:avx512_core", ...
    virtual std::string name() const = 0;
    /// Runs the problem; returns the kernel that actually ran (a kernel may hand a call to
    /// its fallback, e.g. dnnl when runtime scales turn out not to be exact for oneDNN).
    virtual const kernel &run(const exec_args &args) const = 0;
    /// Whether run() stays exact with dst at src's address, for a problem whose src and dst
    /// elements have the same size and strides (so element i of each is at the same bytes):
    /// every element's bytes are read before they are written and never read after, by
    /// this kernel and by any fallback it may hand a call to. Asked only for such problems.
    virtual bool in_place_safe() const { return false; }
    /// Why run(args) hands the call to its fallback (a static string), or nullptr when it
    /// runs the call itself. Only verbose output asks, after a run that fell back, so run()
    /// itself stays free of message building.
    virtual const char *fallback_reason(const exec_args &args) const {
        (void)args;
        return nullptr;
    }
};

/// Builds the kernel of the next backend in the priority list (the fallback).
using fallback_factory = std::function<std::unique_ptr<kernel>()>;

class backend {
public:
    virtual ~backend() = default;
    virtual const char *name() const = 0;
    /// A kernel for `prb`, or nullptr with `reason` saying why the backend rejects it.
    /// `next` builds the next backend's kernel, for backends that decide per execution.
    virtual std::unique_ptr<kernel> create(const quant_problem &prb,
            const fallback_factory &next, std::string &reason) const = 0;
};

} // namespace impl
} // namespace qgraph

#endif
