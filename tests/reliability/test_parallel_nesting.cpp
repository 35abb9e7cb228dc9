// qgraph's threading entry point (src/common/parallel.hpp) called from inside a caller's own
// TBB and OpenMP parallel regions, and while the thread count changes, on the TBB and the
// OpenMP runtime: no deadlock, every chunk run exactly once, at most nthr chunks. Kernels
// reach a runtime only through parallel(), so this covers every kernel that uses it,
// whichever backend it belongs to. Also the thread-count model (common/thread_count.hpp).

#include <gtest/gtest.h>

#include <omp.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#include "common/parallel.hpp"
#include "common/thread_count.hpp"
#include "reliability/reliability_util.hpp"

namespace {

using qgraph::impl::balance;
using qgraph::impl::parallel;
using std::chrono::seconds;

// Splits [0, n) with balance() over nthr chunks run by parallel(); counts[i] += 1 for every
// index. Returns the number of distinct chunk indices that ran.
int cover(std::vector<std::atomic<int>> &counts, int nthr) {
    const int64_t n = static_cast<int64_t>(counts.size());
    std::vector<std::atomic<int>> chunk_ran(static_cast<size_t>(nthr));
    parallel(qgraph::impl::current_parallel_ctx(), nthr, [&](int ithr, int nt) {
        int64_t b = 0, e = 0;
        balance(n, 16, ithr, nt, b, e);
        for (int64_t i = b; i < e; ++i) counts[static_cast<size_t>(i)].fetch_add(1);
        chunk_ran[static_cast<size_t>(ithr)].fetch_add(1);
    });
    int ran = 0;
    for (auto &c : chunk_ran) {
        EXPECT_EQ(c.load(), 1);
        ran += c.load() > 0;
    }
    return ran;
}

// Each item of the caller's loop covers its own array through parallel().
template <typename Loop>
void check_nested(const char *what, int qgraph_threads, Loop &&loop) {
    qrel::config_guard restore;
    qgraph::set_num_threads(qgraph_threads);
    const int items = 32;
    std::vector<std::unique_ptr<std::vector<std::atomic<int>>>> arrays;
    for (int i = 0; i < items; ++i)
        arrays.push_back(std::make_unique<std::vector<std::atomic<int>>>(1000 + 37 * i));
    std::unique_ptr<std::atomic<int>[]> chunks(new std::atomic<int>[items]);
    for (int i = 0; i < items; ++i) chunks[i].store(0);
    qrel::with_watchdog(what, seconds(300), [&] {
        loop(items, [&](int i) {
            chunks[i].store(cover(*arrays[static_cast<size_t>(i)], qgraph::get_num_threads()),
                    std::memory_order_release);
        });
    });
    for (int i = 0; i < items; ++i) {
        EXPECT_EQ(chunks[i].load(std::memory_order_acquire), qgraph_threads) << what << " " << i;
        int wrong = 0;
        for (auto &c : *arrays[static_cast<size_t>(i)]) wrong += c.load() != 1;
        EXPECT_EQ(wrong, 0) << what << ", item " << i << ": indices not covered exactly once";
    }
}

TEST(ParallelNesting, InsideTbbParallelFor) {
    for (int nthr : {1, 2, 4, 16})
        check_nested("parallel() inside tbb::parallel_for", nthr, [](int items, auto body) {
            tbb::parallel_for(0, items, [&](int i) { body(i); });
        });
}

TEST(ParallelNesting, InsideOpenMpParallelFor) {
    for (int nthr : {1, 2, 4, 16})
        check_nested("parallel() inside omp parallel for", nthr, [](int items, auto body) {
#pragma omp parallel for num_threads(4) schedule(dynamic, 1)
            for (int i = 0; i < items; ++i) body(i);
        });
}

/// Runs the body of a test under the OpenMP runtime, then restores TBB.
class omp_runtime_scope {
public:
    omp_runtime_scope() { qgraph::impl::set_cpu_runtime(qgraph::impl::cpu_runtime::omp); }
    ~omp_runtime_scope() { qgraph::impl::set_cpu_runtime(qgraph::impl::cpu_runtime::tbb); }
};

TEST(ParallelNesting, OmpRuntimeInsideTbbParallelFor) {
    omp_runtime_scope omp;
    for (int nthr : {1, 2, 4, 16})
        check_nested("omp runtime inside tbb::parallel_for", nthr, [](int items, auto body) {
            tbb::parallel_for(0, items, [&](int i) { body(i); });
        });
}

TEST(ParallelNesting, OmpRuntimeInsideOpenMpParallelFor) {
    // Nested in the caller's OpenMP region the team is one thread: every chunk still runs.
    omp_runtime_scope omp;
    for (int nthr : {1, 2, 4, 16})
        check_nested("omp runtime inside omp parallel for", nthr, [](int items, auto body) {
#pragma omp parallel for num_threads(4) schedule(dynamic, 1)
            for (int i = 0; i < items; ++i) body(i);
        });
}

TEST(ParallelNesting, OmpRuntimeRunsTasksInAnOpenMPRegion) {
    omp_runtime_scope omp;
    std::atomic<int> outside {0}, tasks {0};
    parallel(qgraph::impl::current_parallel_ctx(), 3, [&](int, int) {
        outside += omp_in_parallel() == 0;
        ++tasks;
    });
    EXPECT_EQ(tasks.load(), 3);
    EXPECT_EQ(outside.load(), 0);
}

TEST(ParallelNesting, InsideParallelItself) {
    // A kernel whose chunk calls into qgraph again (as a fused kernel might).
    check_nested("parallel() inside parallel()", 4, [](int items, auto body) {
        parallel(qgraph::impl::current_parallel_ctx(), 4, [&](int ithr, int nthr) {
            for (int i = ithr; i < items; i += nthr) body(i);
        });
    });
}

TEST(ParallelNesting, AWaitingThreadRunsNoTaskOfTheCaller) {
    // At the machine's thread count, parallel() runs in the caller's arena. A thread that
    // waits there for its chunks must not pick up another item of the caller's loop: that
    // item could block on a lock the waiting item holds (parallel.cpp isolates the run).
    qrel::config_guard restore;
    qgraph::set_num_threads(tbb::this_task_arena::max_concurrency());
    static thread_local int depth = 0;
    std::atomic<int> reentered {0}, items_run {0};
    qrel::with_watchdog("parallel() isolated in the caller's arena", seconds(300), [&] {
        tbb::parallel_for(0, 1024, [&](int) {
            if (++depth > 1) reentered.fetch_add(1);
            std::vector<std::atomic<int>> counts(20000);
            cover(counts, qgraph::impl::num_threads());
            items_run.fetch_add(1);
            --depth;
        });
    });
    EXPECT_EQ(items_run.load(), 1024);
    EXPECT_EQ(reentered.load(), 0) << "an item of the caller's loop ran inside another's wait";
}

TEST(ParallelNesting, ThreadCountChangesWhileRunning) {
    qrel::config_guard restore;
    std::atomic<bool> stop {false};
    std::atomic<int> wrong {0};
    qrel::with_watchdog("parallel() while set_num_threads changes", seconds(300), [&] {
        std::vector<std::thread> users;
        for (int t = 0; t < 4; ++t)
            users.emplace_back([&] {
                for (int rep = 0; rep < 50; ++rep) {
                    std::vector<std::atomic<int>> counts(4096);
                    cover(counts, qgraph::impl::num_threads());
                    for (auto &c : counts) wrong.fetch_add(c.load() != 1);
                }
            });
        std::thread changer([&] {
            for (int k = 0; !stop.load(); ++k) qgraph::set_num_threads(1 + k % 5);
        });
        for (auto &u : users) u.join();
        stop.store(true);
        changer.join();
    });
    EXPECT_EQ(wrong.load(), 0);
}

// ---- the thread-count model ------------------------------------------------------------

using qgraph::impl::modelled_ns;
using qgraph::impl::thread_cost;
using qgraph::impl::threads_for;

/// The model written out again from its formula in thread_count.hpp, to check modelled_ns.
double model_time(int n, int64_t bytes, const thread_cost &c) {
    const double w = static_cast<double>(bytes) * c.ns_per_byte;
    return n == 1 ? w : w / n + c.fixed_ns + c.per_doubling_ns * std::log2(double(n));
}

/// The smallest count in [1, max] with the least modelled time, by trying every count.
int brute_force_count(int max, int64_t bytes, const thread_cost &c) {
    int best = 1;
    for (int n = 2; n <= max; ++n)
        if (model_time(n, bytes, c) < model_time(best, bytes, c)) best = n;
    return best;
}

TEST(ThreadCountModel, OneThreadForTinyProblemsAllForLargeOnes) {
    for (int max : {1, 2, 16, 128}) {
        EXPECT_EQ(threads_for(max, 0), 1);
        EXPECT_EQ(threads_for(max, 4096), 1) << "4 KiB is not worth a hand-off";
        EXPECT_EQ(threads_for(max, int64_t(1) << 34), max) << "16 GiB uses every thread";
    }
    // The 16-core measurements (docs/performance.md): 16384 f32 -> u8 elements ran fastest
    // on one thread, 65536 on a few, 1x64x56x56 (200704) on all 16.
    EXPECT_EQ(threads_for(16, 16384 * 5), 1);
    const int mid = threads_for(16, 65536 * 5);
    EXPECT_GT(mid, 1);
    EXPECT_LT(mid, 16);
    EXPECT_EQ(threads_for(16, 200704 * 5), 16);
}

TEST(ThreadCountModel, ModelledTimeIsTheFormula) {
    for (int n : {1, 2, 3, 16, 100})
        for (int64_t bytes : {int64_t(0), int64_t(4096), int64_t(1) << 30})
            EXPECT_DOUBLE_EQ(modelled_ns(n, bytes), model_time(n, bytes, qgraph::impl::elementwise_pass))
                    << n << " threads, " << bytes << " bytes";
}

TEST(ThreadCountModel, PicksTheBestCountOfTheModel) {
    const thread_cost costs[] = {
            qgraph::impl::elementwise_pass, {0.05, 400.0, 100.0}, {0.01, 5000.0, 3000.0}, {0.03, 0.0, 2000.0}};
    for (const thread_cost &c : costs)
        for (int max : {1, 2, 3, 7, 16, 64})
            for (int64_t bytes = 1; bytes < (int64_t(1) << 36); bytes = bytes * 3 / 2 + 1)
                ASSERT_EQ(threads_for(max, bytes, c), brute_force_count(max, bytes, c))
                        << max << " threads, " << bytes << " bytes";
}

TEST(ThreadCountModel, MoreThreadsAvailableNeverMeansSlower) {
    // For every size, the count picked with more threads available is at least the count
    // picked with fewer, and its modelled time is no larger.
    const thread_cost &c = qgraph::impl::elementwise_pass;
    for (int64_t bytes = 1; bytes < (int64_t(1) << 34); bytes = bytes * 5 / 4 + 1)
        for (int max = 1; max < 128; ++max) {
            const int a = threads_for(max, bytes), b = threads_for(max + 1, bytes);
            ASSERT_LE(a, b) << bytes << " bytes, " << max << " threads";
            ASSERT_LE(model_time(b, bytes, c), model_time(a, bytes, c));
        }
}

} // namespace
