#ifndef QGRAPH_COMMON_PARALLEL_HPP
#define QGRAPH_COMMON_PARALLEL_HPP

// qgraph's one threading entry point. Kernels never talk to TBB directly: they ask how many
// threads to use, split their work with balance(), and run it with parallel(). The thread
// count is one process-wide setting (QGRAPH_NUM_THREADS / qgraph::set_num_threads) that the
// dnnl backend also applies to oneDNN's OpenMP threads.
//
// Work is split statically (no stealing, no reduction order that depends on timing), so
// results are bitwise identical at any thread count.

#include <cstdint>
#include <type_traits>

namespace qgraph {
namespace impl {

/// Threads kernels may use (>= 1).
int num_threads();
/// 0 restores the default: QGRAPH_NUM_THREADS if set, else the cores TBB sees.
void set_num_threads(int n);

/// The default thread count (what set_num_threads(0) restores).
int default_num_threads();

/// The threading runtime qgraph's kernels run on, for version() and the verbose header.
const char *cpu_runtime_name();

/// Calls f(ithr, nthr) once for each ithr in [0, nthr), in parallel: in the caller's TBB
/// arena when nthr is its concurrency, else in qgraph's arena of nthr threads (parallel.cpp).
/// nthr <= 1 calls f(0, 1) on the calling thread without touching TBB. f must not throw.
/// Allocates nothing on the calling thread (f is passed by reference, not as std::function).
template <typename F>
void parallel(int nthr, F &&f);

/// Part ithr of nthr of [0, n): contiguous, in multiples of `align` items except the last,
/// sizes differing by at most one `align` block (oneDNN's balance211 with a granule).
void balance(int64_t n, int64_t align, int ithr, int nthr, int64_t &begin, int64_t &end);

/// How many threads to use for `work` items when each thread should get at least
/// `min_per_thread` of them: 1 below the serial cut-off, num_threads() for large work.
int threads_for(int64_t work, int64_t min_per_thread);

namespace detail {
using parallel_fn = void (*)(void *ctx, int ithr, int nthr);
void parallel_run(int nthr, parallel_fn fn, void *ctx);
} // namespace detail

template <typename F>
void parallel(int nthr, F &&f) {
    if (nthr <= 1) {
        f(0, 1);
        return;
    }
    using fn_t = typename std::remove_reference<F>::type;
    detail::parallel_run(
            nthr, [](void *ctx, int ithr, int n) { (*static_cast<fn_t *>(ctx))(ithr, n); },
            const_cast<void *>(static_cast<const void *>(&f)));
}

} // namespace impl
} // namespace qgraph

#endif
