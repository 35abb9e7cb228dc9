// The runtimes behind parallel().
//
// TBB (the default). When the thread count setting equals the concurrency of the arena the
// caller is in (the usual case: both are the core count; or an integrator's own arena of that
// size), every region runs in that arena, as oneDNN's TBB runtime does, sharing the caller's
// workers with the caller's own TBB work, whatever number of threads the region is worth
// (thread_count.hpp): its parts go to that many of the arena's threads. A second arena has to
// take the workers over each time (TBB moves workers between arenas lazily): interleaved with
// other TBB work the workers came late or not at all, on 2 cores and on 16
// (docs/performance.md).
// The run is isolated (this_task_arena::isolate), so a thread waiting for it never picks up
// another of the caller's tasks: no deadlock through a lock the caller holds, no execute that
// returns late. Any other count gets qgraph's own task_arena of that size, created when the
// count is set (never on execute) and kept for the life of the process: execute only reads an
// atomic pointer, no lock, no allocation on the calling thread. Its size bounds the threads
// qgraph adds (no oversubscription blow-up inside a caller's own parallel region).
//
// OpenMP (QGRAPH_CPU_RUNTIME=omp): one `omp parallel` region per call, on the same team of
// threads as oneDNN's primitives, so the two never spin-wait against each other. The
// num_threads clause leaves the caller's OpenMP settings alone.
//
// An integrator's pool: its parallel_for, unless the caller already runs inside one of its
// tasks (a nested region then runs on the calling thread, as oneDNN's threadpool runtime
// does: a synchronous pool waiting on itself could deadlock).
//
// Whatever runs a task, it runs under fp_env_guard, and task i always gets part i of the work.

#include "common/parallel.hpp"

#include "common/fp_env.hpp"
#include "qgraph/threadpool.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include <omp.h>
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

cpu_runtime runtime_from_env() {
    cpu_runtime r = cpu_runtime::tbb;
    const char *v = env_value("QGRAPH_CPU_RUNTIME");
    if (v && !cpu_runtime_from_name(v, r))
        env_warn_invalid("QGRAPH_CPU_RUNTIME", v, "tbb or omp", "tbb");
    return r;
}

std::atomic<cpu_runtime> &runtime_setting() {
    static std::atomic<cpu_runtime> r {runtime_from_env()};
    return r;
}

/// Task i of n under the default floating-point environment.
inline void run_task(detail::parallel_fn fn, void *fctx, int ithr, int nthr) {
    fp_env_guard fp;
    fn(fctx, ithr, nthr);
}

void run_tbb(const parallel_ctx &ctx, int nthr, detail::parallel_fn fn, void *fctx) {
    // One chunk per thread index, handed out statically.
    const auto run = [&] {
        tbb::parallel_for(
                0, nthr, [&](int ithr) { run_task(fn, fctx, ithr, nthr); },
                tbb::static_partitioner());
    };
    if (ctx.max_threads == tbb::this_task_arena::max_concurrency())
        return tbb::this_task_arena::isolate(run);
    tbb::task_arena *arena = setting().arena.load(std::memory_order_acquire);
    arena->execute(run);
}

void run_omp(int nthr, detail::parallel_fn fn, void *fctx) {
    // OpenMP may give a smaller team (nested inside another region, a thread limit): the
    // team's threads then take the parts round robin, so every part still runs once.
#pragma omp parallel num_threads(nthr)
    {
        const int team = omp_get_num_threads();
        for (int ithr = omp_get_thread_num(); ithr < nthr; ithr += team)
            run_task(fn, fctx, ithr, nthr);
    }
}

void run_pool(threadpool_iface &pool, int nthr, detail::parallel_fn fn, void *fctx) {
    if (pool.get_in_parallel()) {
        for (int ithr = 0; ithr < nthr; ++ithr) run_task(fn, fctx, ithr, nthr);
        return;
    }
    // Two pointers: within std::function's small buffer, so no allocation.
    pool.parallel_for(nthr, [fn, fctx](int ithr, int n) { run_task(fn, fctx, ithr, n); });
}

} // namespace

cpu_runtime current_cpu_runtime() { return runtime_setting().load(std::memory_order_relaxed); }
void set_cpu_runtime(cpu_runtime r) { runtime_setting().store(r); }

const char *cpu_runtime_name(cpu_runtime r) { return r == cpu_runtime::omp ? "omp" : "tbb"; }
const char *cpu_runtime_name() { return cpu_runtime_name(current_cpu_runtime()); }

bool cpu_runtime_from_name(const std::string &name, cpu_runtime &r) {
    for (cpu_runtime c : {cpu_runtime::tbb, cpu_runtime::omp})
        if (name == cpu_runtime_name(c)) {
            r = c;
            return true;
        }
    return false;
}

parallel_ctx current_parallel_ctx(threadpool_iface *pool) {
    parallel_ctx c;
    c.pool = pool;
    c.runtime = current_cpu_runtime();
    c.max_threads = pool ? std::max(1, pool->get_num_threads()) : num_threads();
    return c;
}

int default_num_threads() {
    return env_int("QGRAPH_NUM_THREADS", 1, 4096, std::max(1, tbb::info::default_concurrency()));
}

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

namespace detail {

void parallel_run(const parallel_ctx &ctx, int nthr, parallel_fn fn, void *fctx) {
    if (ctx.pool) return run_pool(*ctx.pool, nthr, fn, fctx);
    if (ctx.runtime == cpu_runtime::omp) return run_omp(nthr, fn, fctx);
    run_tbb(ctx, nthr, fn, fctx);
}

} // namespace detail

} // namespace impl
} // namespace qgraph
