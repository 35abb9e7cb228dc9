// TBB behind parallel(). When the thread count equals the concurrency of the arena the caller
// is in (the usual case: both are the core count), the work runs in that arena, as oneDNN's
// TBB runtime does, sharing the caller's workers with the caller's own TBB work. A second
// arena has to take the workers over each time (TBB moves workers between arenas lazily):
// interleaved with other TBB work (qbench's roofline loop), the worker came late or not at
// all, and 1x64x56x56 at 2 threads took 8.4-14.4 us instead of 7.9-8.6. The run is isolated
// (this_task_arena::isolate), so a thread waiting for it never picks up another of the
// caller's tasks: no deadlock through a lock the caller holds, no execute that returns late.
//
// Any other count gets qgraph's own task_arena of that size, created when the count is set
// (never on execute) and kept for the life of the process: execute only reads an atomic
// pointer, no lock, no allocation on the calling thread. Its size bounds the threads qgraph
// adds (no oversubscription blow-up inside a caller's own parallel region).

#include "common/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>

#include "common/config.hpp"

namespace qgraph {
namespace impl {
namespace {

struct thread_setting {
    std::mutex m; // guards `arenas` (set_num_threads only)
    std::map<int, std::unique_ptr<tbb::task_arena>> arenas;
    std::atomic<int> n {1};
    std::atomic<tbb::task_arena *> arena {nullptr};

    thread_setting() { set(0); }

    void set(int want) {
        const int v = want > 0 ? want : default_num_threads();
        std::lock_guard<std::mutex> lock(m);
        auto &a = arenas[v];
        if (!a) {
            // One slot is reserved for the thread that calls execute, which joins the work.
            // TBB never runs more workers than the machine has cores, so an arena is no
            // larger than that; the work is still cut into v ranges (same results).
            const int slots = std::min(v, std::max(1, tbb::info::default_concurrency()));
            a = std::make_unique<tbb::task_arena>(slots, 1);
            a->initialize();
        }
        arena.store(a.get());
        n.store(v);
    }
};

thread_setting &setting() {
    static thread_setting s;
    return s;
}

} // namespace

int default_num_threads() {
    return env_int("QGRAPH_NUM_THREADS", 1, 4096, std::max(1, tbb::info::default_concurrency()));
}

const char *cpu_runtime_name() { return "tbb"; }

int num_threads() { return setting().n.load(std::memory_order_relaxed); }

void set_num_threads(int n) { setting().set(n); }

void balance(int64_t n, int64_t align, int ithr, int nthr, int64_t &begin, int64_t &end) {
    if (align < 1) align = 1;
    const int64_t blocks = (n + align - 1) / align;
    const int64_t base = blocks / nthr, extra = blocks % nthr;
    const int64_t b0 = ithr * base + std::min<int64_t>(ithr, extra);
    const int64_t b1 = b0 + base + (ithr < extra ? 1 : 0);
    begin = std::min(n, b0 * align);
    end = std::min(n, b1 * align);
}

int threads_for(int64_t work, int64_t min_per_thread) {
    const int n = num_threads();
    if (n <= 1 || work < 2 * min_per_thread) return 1;
    return static_cast<int>(std::min<int64_t>(n, work / min_per_thread));
}

namespace detail {

void parallel_run(int nthr, parallel_fn fn, void *ctx) {
    // One chunk per thread index, handed out statically: chunk i is the same range of the
    // problem every run.
    const auto run = [&] {
        tbb::parallel_for(
                0, nthr, [&](int ithr) { fn(ctx, ithr, nthr); }, tbb::static_partitioner());
    };
    if (nthr == tbb::this_task_arena::max_concurrency())
        return tbb::this_task_arena::isolate(run);
    tbb::task_arena *arena = setting().arena.load(std::memory_order_acquire);
    arena->execute(run);
}

} // namespace detail

} // namespace impl
} // namespace qgraph
