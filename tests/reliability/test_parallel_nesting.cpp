// qgraph's threading entry point (src/common/parallel.hpp) called from inside a caller's own
// TBB and OpenMP parallel regions, and while the thread count changes: no deadlock, every
// chunk run exactly once, at most nthr chunks. Kernels reach TBB only through parallel(), so
// this covers every kernel that uses it, whichever backend it belongs to.

#include <gtest/gtest.h>

#include <omp.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "common/parallel.hpp"
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

} // namespace
