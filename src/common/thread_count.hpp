#ifndef QGRAPH_COMMON_THREAD_COUNT_HPP
#define QGRAPH_COMMON_THREAD_COUNT_HPP

// How many threads a problem is worth. A pass over memory costs one thread
// W = bytes * ns_per_byte. Running it on n > 1 threads costs the hand-off on top: a fixed part
// (starting the region, joining it) and a part that grows with the log of n (TBB and OpenMP
// wake and join their threads in a tree):
//
//     T(1) = W,    T(n) = W / n + fixed_ns + per_doubling_ns * log2(n)
//
// and the count is the smallest n <= max_threads that minimises T. So tiny problems stay on
// the calling thread, large ones get every thread, and a context with more threads never
// picks a count that the model says is slower than a smaller one.
//
// The costs are data, one row per kind of pass, measured with qbench on the 16-core server
// (benchdnn_inputs/thread_model; docs/performance.md, "Thread-count model").

#include <cstdint>

namespace qgraph {
namespace impl {

struct thread_cost {
    double ns_per_byte; ///< one thread's time per byte read or written, in cache
    double fixed_ns; ///< what any split onto more than one thread adds
    double per_doubling_ns; ///< what each doubling of the thread count adds
};

/// An elementwise pass (quantize, dequantize, a min/max reduction): f32 <-> u8 at 0.14 ns per
/// element (5 bytes) on one thread of the 16-core server, in cache; a region on n threads
/// adds 1.1 us + 1.15 us * log2(n) (2.25 us at 2 threads, 5.7 us at 16).
constexpr thread_cost elementwise_pass {0.028, 1100.0, 1150.0};

/// The modelled time of `bytes` on n threads (ns).
double modelled_ns(int n, int64_t bytes, const thread_cost &c = elementwise_pass);

/// The count in [1, max_threads] that minimises modelled_ns (the smallest such count).
int threads_for(int max_threads, int64_t bytes, const thread_cost &c = elementwise_pass);

} // namespace impl
} // namespace qgraph

#endif
