#ifndef QGRAPH_COMMON_PARALLEL_HPP
#define QGRAPH_COMMON_PARALLEL_HPP

// qgraph's one threading entry point. Kernels never talk to TBB, OpenMP or a pool directly:
// they ask how many threads their problem is worth (threads_for), split their work with
// balance(), and run it with parallel(), all against the parallel_ctx of the execute.
//
// A parallel_ctx is read once per execute: the stream's pool (the integrator's), or the
// process runtime (TBB by default, OpenMP on request) with the process thread count
// (QGRAPH_NUM_THREADS / qgraph::set_num_threads, which the dnnl backend applies to oneDNN's
// OpenMP threads too). Every region of one execute sees the same context, so passes that must
// split alike (DynamicQuantizeLinear's reduction and quantize) do.
//
// Work is split statically (no stealing, no reduction order that depends on timing), so
// results are bitwise identical at any thread count and on any pool.

#include <cstdint>
#include <string>
#include <type_traits>

namespace qgraph {
class threadpool_iface;
namespace impl {

/// The runtimes qgraph's own parallel regions can run on.
enum class cpu_runtime { tbb, omp };

cpu_runtime current_cpu_runtime();
void set_cpu_runtime(cpu_runtime r);
const char *cpu_runtime_name(cpu_runtime r);
/// The name of the runtime executes use now ("tbb", "omp").
const char *cpu_runtime_name();
/// False for a name that is not a runtime.
bool cpu_runtime_from_name(const std::string &name, cpu_runtime &r);

/// Threads kernels may use (>= 1).
int num_threads();
/// 0 restores the default: QGRAPH_NUM_THREADS if set, else the cores TBB sees.
void set_num_threads(int n);
/// The default thread count (what set_num_threads(0) restores).
int default_num_threads();

/// Where one execute's parallel regions run.
struct parallel_ctx {
    threadpool_iface *pool = nullptr; ///< the stream's pool; nullptr: the runtime below
    cpu_runtime runtime = cpu_runtime::tbb;
    int max_threads = 1; ///< a region uses at most this many threads
};

/// The context of an execute on a stream with `pool` (nullptr: none), from the settings now.
parallel_ctx current_parallel_ctx(threadpool_iface *pool = nullptr);

/// Calls f(ithr, nthr) once for each ithr in [0, nthr), in parallel on ctx's pool or runtime.
/// nthr <= 1 calls f(0, 1) on the calling thread. A region started from inside a task of the
/// same pool (or inside an OpenMP region) runs its calls on the calling thread. Each task
/// runs with the default MXCSR (fp_env.hpp). f must not throw. Allocates nothing on the
/// calling thread (f is passed by reference, not as std::function).
template <typename F>
void parallel(const parallel_ctx &ctx, int nthr, F &&f);

/// Part ithr of nthr of [0, n): contiguous, in multiples of `align` items except the last,
/// sizes differing by at most one `align` block (oneDNN's balance211 with a granule).
void balance(int64_t n, int64_t align, int ithr, int nthr, int64_t &begin, int64_t &end);

namespace detail {
using parallel_fn = void (*)(void *ctx, int ithr, int nthr);
void parallel_run(const parallel_ctx &ctx, int nthr, parallel_fn fn, void *fctx);
} // namespace detail

template <typename F>
void parallel(const parallel_ctx &ctx, int nthr, F &&f) {
    if (nthr <= 1) {
        f(0, 1);
        return;
    }
    using fn_t = typename std::remove_reference<F>::type;
    detail::parallel_run(
            ctx, nthr,
            [](void *fctx, int ithr, int n) { (*static_cast<fn_t *>(fctx))(ithr, n); },
            const_cast<void *>(static_cast<const void *>(&f)));
}

} // namespace impl
} // namespace qgraph

#endif
