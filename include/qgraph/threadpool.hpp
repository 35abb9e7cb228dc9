#ifndef QGRAPH_THREADPOOL_HPP
#define QGRAPH_THREADPOOL_HPP

#include <functional>

#include "qgraph/export.hpp"

namespace qgraph {

/// An integrator's thread pool, in the spirit of oneDNN's
/// dnnl::threadpool_interop::threadpool_iface. Hand one to a `stream`: every parallel region
/// of an execute on that stream then runs on it, instead of on qgraph's own runtime (TBB by
/// default, see set_cpu_runtime).
///
/// qgraph asks for at most get_num_threads() tasks per region, and never relies on more
/// than one of them running at a time: a pool with fewer threads (even one) gives the same,
/// bitwise identical results. Kernels set the floating-point environment they need (MXCSR)
/// on the pool's threads for the duration of a task and restore it afterwards.
class threadpool_iface {
public:
    virtual ~threadpool_iface() = default;
    /// The threads the pool runs tasks on (>= 1).
    virtual int get_num_threads() const = 0;
    /// True when the calling thread is running one of this pool's tasks. qgraph then runs
    /// the region on the calling thread instead of submitting to the pool again.
    virtual bool get_in_parallel() const = 0;
    /// Calls fn(i, n) once for each i in [0, n), in any order and on any of the pool's
    /// threads (the caller's included), and returns when every call has returned. fn does
    /// not throw.
    virtual void parallel_for(int n, const std::function<void(int, int)> &fn) = 0;
};

} // namespace qgraph

#endif
