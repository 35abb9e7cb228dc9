#ifndef QGRAPH_COMMON_THREAD_COUNT_HPP
#define QGRAPH_COMMON_THREAD_COUNT_HPP

// How many threads a problem is worth. A pass over memory costs one thread
// bytes * ns_per_byte; every thread beyond the first adds handoff_ns (waking it, handing it
// its part, joining it). n threads then take
//
//     T(n) = bytes * ns_per_byte / n + handoff_ns * (n - 1)
//
// and the count is the smallest n <= max_threads that minimises T. So tiny problems stay on
// the calling thread, large ones get every thread, and a context with more threads never
// picks a count that the model says is slower than a smaller one.
//
// The costs are data, one row per kind of pass, measured with qbench (docs/performance.md,
// "Serial cut-off"); a machine whose hand-off cost differs needs its own row.

#include <cstdint>

namespace qgraph {
namespace impl {

struct thread_cost {
    double ns_per_byte; ///< one thread's time per byte read or written, in cache
    double handoff_ns; ///< what each thread beyond the first adds
};

/// An elementwise pass (quantize, dequantize, a min/max reduction) on the 2-core development
/// machine: f32 -> u8 at 0.0687 ns per element (5 bytes) on one thread; the second thread
/// costs about 1.5 us.
constexpr thread_cost elementwise_pass {0.0137, 1500.0};

/// The count in [1, max_threads] that minimises T(n) for `bytes` (the smallest such count).
int threads_for(int max_threads, int64_t bytes, const thread_cost &c = elementwise_pass);

} // namespace impl
} // namespace qgraph

#endif
