#ifndef QGRAPH_BACKENDS_DNNL_DNNL_REORDER_KERNEL_HPP
#define QGRAPH_BACKENDS_DNNL_DNNL_REORDER_KERNEL_HPP

// The kernel: one oneDNN reorder primitive built from a reorder_plan. oneDNN's own headers
// stay in the .cpp so nothing else in qgraph sees them.

#include <memory>
#include <string>

#include "backends/backend.hpp"
#include "backends/dnnl/dnnl_legality.hpp"

namespace qgraph {
namespace impl {
namespace dnnl_impl {

/// Creates the primitive for `plan`, and the fallback kernel (via `next`) when the plan has
/// per-call checks. nullptr with `reason` when oneDNN cannot create it or picks an
/// implementation whose numerics were not verified.
std::unique_ptr<kernel> make_reorder_kernel(
        const reorder_plan &plan, const fallback_factory &next, std::string &reason);

/// The oneDNN implementation behind a kernel from make_reorder_kernel ("jit:uni"); empty for
/// any other kernel. For tests and diagnostics.
std::string onednn_impl_name(const kernel &k);

} // namespace dnnl_impl
} // namespace impl
} // namespace qgraph

#endif
