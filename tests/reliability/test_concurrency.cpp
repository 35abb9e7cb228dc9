// Concurrency: one compiled partition executed from 8 threads at once (a table lookup built
// at execute from each thread's own parameters, and jit lane tables kept from call to call,
// among them), compiles racing on the
// compiled-partition cache, qgraph called from inside a caller's TBB and OpenMP parallel
// regions, and the thread count changed while other threads execute. Every result must be
// bit-identical to a single-threaded run of the same compiled partition. Built and run under
// ThreadSanitizer by .ci/sanitizers.sh.
//
// The caller-side TBB and OpenMP runtimes are prebuilt and not instrumented, so TSan cannot see
// that parallel_for / an omp region orders the work before and after it. Results are therefore
// published through std::atomic (release per item, acquire by the checker): correct C++ in any
// case, and visible to TSan.

#include <gtest/gtest.h>

#include <omp.h>
#include <tbb/parallel_for.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "reliability/reliability_util.hpp"

namespace {

using namespace qrel;
using std::chrono::seconds;

constexpr int kThreads = 8;

// Every backend the library offers, forced in turn (then the default choice), so each
// backend's kernels run concurrently. A backend that rejects a problem is skipped for it.
std::vector<std::string> backend_choices() {
    std::vector<std::string> v {""};
    for (const std::string &b : qgraph::get_backend_names()) v.push_back(b);
    return v;
}

struct backend_scope {
    std::string old = qgraph::get_backend();
    explicit backend_scope(const std::string &b) { qgraph::set_backend(b); }
    ~backend_scope() { qgraph::set_backend(old); }
};

// Compiles p under the current backend choice; empty when that backend rejects it.
std::optional<qgraph::compiled_partition> try_compile(const problem &p) {
    try {
        return compile(p);
    } catch (const qgraph::error &e) {
        if (e.status() == qgraph::status::unimplemented) return std::nullopt;
        throw;
    }
}

// A start line: threads wait until all are ready, so the calls really overlap.
class start_line {
public:
    explicit start_line(int n) : waiting_(n) {}
    void arrive_and_wait() {
        waiting_.fetch_sub(1, std::memory_order_acq_rel);
        while (waiting_.load(std::memory_order_acquire) > 0) std::this_thread::yield();
    }

private:
    std::atomic<int> waiting_;
};

// Executes cp from kThreads threads at once, thread t on in[t], reps times each (under a
// watchdog named `what`); every result must be want[t].
void expect_each_thread_gets_its_own(const qgraph::compiled_partition &cp,
        const std::vector<std::vector<std::vector<unsigned char>>> &in,
        const std::vector<std::vector<unsigned char>> &want, int reps, const char *what) {
    std::vector<int> mismatches(kThreads, 0);
    start_line start(kThreads);
    with_watchdog(what, seconds(300), [&] {
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                start.arrive_and_wait();
                for (int rep = 0; rep < reps; ++rep)
                    if (run(cp, in[t]) != want[t]) ++mismatches[t];
            });
        for (auto &th : threads) th.join();
    });
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(mismatches[t], 0) << "thread " << t;
}

TEST(Concurrency, OneCompiledPartitionFrom8ThreadsIsExact) {
    int ran = 0;
    for (const std::string &b : backend_choices()) {
        backend_scope scope(b);
        for (const problem &p : problems(128)) {
            const std::optional<qgraph::compiled_partition> compiled = try_compile(p);
            if (!compiled) continue;
            const qgraph::compiled_partition &cp = *compiled;
            ++ran;
            SCOPED_TRACE(p.name + " on backend " + cp.get_backend_name());
            // Per thread: its own inputs and the single-threaded result for them.
            std::vector<std::vector<std::vector<unsigned char>>> in(kThreads);
            std::vector<std::vector<unsigned char>> want(kThreads);
            for (int t = 0; t < kThreads; ++t) {
                in[t] = make_inputs(p, static_cast<uint32_t>(t + 1));
                want[t] = run(cp, in[t]);
            }
            // Different inputs must give different outputs, or the comparison below could not
            // tell whose buffer a thread wrote.
            ASSERT_NE(want[0], want[1]);
            expect_each_thread_gets_its_own(cp, in, want, 10, "8 threads executing");
        }
    }
    EXPECT_GE(ran, 5); // the default choice takes every problem
}

TEST(Concurrency, OneRuntimeLookupFrom8ThreadsWithTheirOwnParameters) {
    // ONNX DequantizeLinear -> QuantizeLinear, u8 -> s8 per channel: one table lookup whose
    // tables are built at execute from the parameters bound and kept while they stay. Each
    // thread binds its own scales and zero points, so the kept tables change hands all the
    // time; every call must get the result of its own parameters.
    const lt::dims d {4, 16, 64}, c {16};
    const lt x(0, dt::u8, d, lt::layout_type::strided), mid(1, dt::f32, d, lt::layout_type::any),
            y(2, dt::s8, d, lt::layout_type::strided);
    const lt s1(10, dt::f32, c, lt::layout_type::strided),
            z1(11, dt::u8, c, lt::layout_type::strided),
            s2(20, dt::f32, c, lt::layout_type::strided),
            z2(21, dt::s8, c, lt::layout_type::strided);
    op dq(0, op::kind::DequantizeLinear, {x, s1, z1}, {mid}, "dql");
    op q(1, op::kind::QuantizeLinear, {mid, s2, z2}, {y}, "ql");
    dq.set_attr<int64_t>(op::attr::axis, 1);
    q.set_attr<int64_t>(op::attr::axis, 1);
    qgraph::graph g(qgraph::engine::kind::cpu);
    g.add_op(dq);
    g.add_op(q);
    g.finalize();
    const qgraph::partition part = g.get_partitions().at(0);
    ASSERT_EQ(part.get_ops_num(), 2u);
    const qgraph::compiled_partition cp
            = part.compile(part.get_input_ports(), part.get_output_ports(), cpu());
    EXPECT_NE(cp.get_kernel_name().find(":lookup"), std::string::npos) << cp.get_kernel_name();
    // One source for every thread, so that the results differ by the parameters alone: a
    // kept table served for other values would give equal results here.
    std::vector<std::vector<std::vector<unsigned char>>> in(kThreads);
    std::vector<std::vector<unsigned char>> want(kThreads);
    for (int t = 0; t < kThreads; ++t) {
        for (const lt &port : cp.get_input_logical_tensors())
            in[t].push_back(input_bytes(port, port.get_id() == 10 || port.get_id() == 20,
                    port.get_id() == 0 ? 1u : static_cast<uint32_t>(t * 7 + port.get_id())));
        want[t] = run(cp, in[t]);
    }
    for (int t = 1; t < kThreads; ++t) ASSERT_NE(want[0], want[t]) << "thread " << t;
    expect_each_thread_gets_its_own(cp, in, want, 20, "8 threads executing one runtime lookup");
}

TEST(Concurrency, OneKeptLaneSetUpFrom8ThreadsWithTheirOwnScales) {
    // ONNX QuantizeLinear with scales and zero points along the contiguous dim: the jit
    // driver sets up lane tables (and widens f16 scales) at execute and keeps them while the
    // tensors hold the same bytes (jit_kept_setup.hpp). Each thread binds its own scales and
    // zero points to one compiled partition, so the kept set-up changes hands all the time;
    // every call must get the result of its own parameters.
    const auto f16_scales = [](uint32_t seed, size_t n) {
        std::vector<unsigned char> b(2 * n);
        for (size_t i = 0; i < n; ++i) {
            const uint16_t h = static_cast<uint16_t>(0x2000 + (seed * 7919u + i * 104729u) % 0x3000);
            std::memcpy(b.data() + 2 * i, &h, 2);
        }
        return b;
    };
    backend_scope jit("jit");
    for (const dt x_dt : {dt::f32, dt::f16}) {
        const lt::dims d {64, 96}, c {96};
        const lt x(0, x_dt, d, lt::layout_type::strided), s(1, x_dt, c, lt::layout_type::strided),
                z(2, dt::u8, c, lt::layout_type::strided), y(3, dt::u8, d, lt::layout_type::strided);
        op q(0, op::kind::QuantizeLinear, {x, s, z}, {y}, "ql");
        q.set_attr<int64_t>(op::attr::axis, 1);
        qgraph::graph g(qgraph::engine::kind::cpu);
        g.add_op(q);
        g.finalize();
        const qgraph::partition part = g.get_partitions().at(0);
        const qgraph::compiled_partition cp
                = part.compile(part.get_input_ports(), part.get_output_ports(), cpu());
        SCOPED_TRACE(cp.get_kernel_name());
        ASSERT_EQ(cp.get_backend_name(), "jit");
        // One source for every thread, so that the results differ by the parameters alone.
        std::vector<std::vector<std::vector<unsigned char>>> in(kThreads);
        std::vector<std::vector<unsigned char>> want(kThreads);
        for (int t = 0; t < kThreads; ++t) {
            in[t] = {input_bytes(x, false, 1u),
                    x_dt == dt::f16 ? f16_scales(static_cast<uint32_t>(t + 1), 96)
                                    : input_bytes(s, true, static_cast<uint32_t>(t * 7 + 1)),
                    input_bytes(z, false, static_cast<uint32_t>(t * 7 + 2))};
            if (x_dt == dt::f16) in[t][0] = f16_scales(3u, 64 * 96); // finite, positive x
            want[t] = run(cp, in[t]);
        }
        for (int t = 1; t < kThreads; ++t) ASSERT_NE(want[0], want[t]) << "thread " << t;
        expect_each_thread_gets_its_own(
                cp, in, want, 20, "8 threads executing one kept lane set-up");
    }
}

TEST(Concurrency, CompilingFromManyThreadsKeepsTheCacheConsistent) {
    config_guard restore;
    qgraph::set_compiled_partition_cache_capacity(0); // empties it
    qgraph::set_compiled_partition_cache_capacity(1024);
    ASSERT_EQ(qgraph::get_compiled_partition_cache_size(), 0);

    const std::vector<problem> ps = problems(16);
    // Reference outputs from compiles done one at a time, before any race.
    std::vector<std::vector<std::vector<unsigned char>>> in;
    std::vector<std::vector<unsigned char>> want;
    std::vector<std::string> kernel;
    for (const problem &p : ps) {
        in.push_back(make_inputs(p, 7));
        qgraph::compiled_partition cp = compile(p);
        want.push_back(run(cp, in.back()));
        kernel.push_back(cp.get_kernel_name());
    }
    const int distinct = qgraph::get_compiled_partition_cache_size();
    EXPECT_EQ(distinct, static_cast<int>(ps.size()));
    qgraph::set_compiled_partition_cache_capacity(0);
    qgraph::set_compiled_partition_cache_capacity(1024);

    // Each thread compiles every problem (the same partitions as the other threads, and
    // different ones) several times, in a thread-dependent order, from its own graphs.
    std::atomic<int> bad {0};
    start_line start(kThreads);
    with_watchdog("concurrent compiles", seconds(300), [&] {
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                start.arrive_and_wait();
                for (int rep = 0; rep < 6; ++rep)
                    for (size_t k = 0; k < ps.size(); ++k) {
                        const size_t i = (k + static_cast<size_t>(t)) % ps.size();
                        qgraph::compiled_partition cp = compile(ps[i]);
                        if (cp.get_kernel_name() != kernel[i] || run(cp, in[i]) != want[i])
                            bad.fetch_add(1);
                    }
            });
        for (auto &th : threads) th.join();
    });
    EXPECT_EQ(bad.load(), 0);
    // One entry per distinct request, however many threads raced to insert it.
    EXPECT_EQ(qgraph::get_compiled_partition_cache_size(), distinct);
}

TEST(Concurrency, CompilingUnderASmallCacheEvictsConsistently) {
    config_guard restore;
    qgraph::set_compiled_partition_cache_capacity(0);
    qgraph::set_compiled_partition_cache_capacity(2);
    const std::vector<problem> ps = problems(8);
    std::vector<std::vector<std::vector<unsigned char>>> in;
    std::vector<std::vector<unsigned char>> want;
    for (const problem &p : ps) {
        in.push_back(make_inputs(p, 3));
        want.push_back(run(compile(p), in.back()));
    }
    std::atomic<int> bad {0}, over {0};
    start_line start(kThreads + 1);
    with_watchdog("compiles with evictions", seconds(300), [&] {
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t)
            threads.emplace_back([&, t] {
                start.arrive_and_wait();
                for (int rep = 0; rep < 8; ++rep)
                    for (size_t k = 0; k < ps.size(); ++k) {
                        const size_t i = (k * 3 + static_cast<size_t>(t)) % ps.size();
                        // The compiled partition outlives its eviction: it is shared.
                        qgraph::compiled_partition cp = compile(ps[i]);
                        if (qgraph::get_compiled_partition_cache_size() > 2) over.fetch_add(1);
                        if (run(cp, in[i]) != want[i]) bad.fetch_add(1);
                    }
            });
        // Meanwhile the capacity changes under the compiles.
        threads.emplace_back([&] {
            start.arrive_and_wait();
            for (int rep = 0; rep < 50; ++rep) {
                qgraph::set_compiled_partition_cache_capacity(rep % 3 == 0 ? 1 : 2);
                std::this_thread::yield();
            }
            qgraph::set_compiled_partition_cache_capacity(2);
        });
        for (auto &th : threads) th.join();
    });
    EXPECT_EQ(bad.load(), 0);
    EXPECT_EQ(over.load(), 0);
    EXPECT_LE(qgraph::get_compiled_partition_cache_size(), 2);
}

// Every problem once per item of a caller's parallel loop; `loop` is that loop.
template <typename Loop>
void run_inside(const char *what, Loop &&loop) {
    const std::vector<problem> ps = problems(96);
    std::vector<qgraph::compiled_partition> cps;
    std::vector<std::vector<std::vector<unsigned char>>> in;
    std::vector<std::vector<unsigned char>> want;
    for (size_t i = 0; i < ps.size(); ++i) {
        cps.push_back(compile(ps[i]));
        in.push_back(make_inputs(ps[i], static_cast<uint32_t>(100 + i)));
        want.push_back(run(cps.back(), in.back()));
    }
    const int items = 64;
    // 1: equal to the reference; 2: different. Published with release, read with acquire.
    std::unique_ptr<std::atomic<int>[]> verdict(new std::atomic<int>[items]);
    for (int i = 0; i < items; ++i) verdict[i].store(0);
    with_watchdog(what, seconds(300), [&] {
        loop(items, [&](int item) {
            const size_t i = static_cast<size_t>(item) % ps.size();
            // Compile inside the region too (a cache hit, or a fresh compile for odd items).
            qgraph::compiled_partition cp = item % 2 ? compile(ps[i]) : cps[i];
            verdict[item].store(run(cp, in[i]) == want[i] ? 1 : 2, std::memory_order_release);
        });
    });
    for (int i = 0; i < items; ++i)
        EXPECT_EQ(verdict[i].load(std::memory_order_acquire), 1) << what << ", item " << i;
}

TEST(Concurrency, InsideACallersTbbParallelFor) {
    config_guard restore;
    for (int nthr : {1, 2, 4}) {
        qgraph::set_num_threads(nthr);
        run_inside("qgraph inside tbb::parallel_for", [](int items, auto body) {
            tbb::parallel_for(0, items, [&](int i) { body(i); });
        });
    }
}

TEST(Concurrency, InsideACallersOpenMpParallelRegion) {
    config_guard restore;
    for (int nthr : {1, 2, 4}) {
        qgraph::set_num_threads(nthr);
        run_inside("qgraph inside omp parallel for", [](int items, auto body) {
#pragma omp parallel for num_threads(4) schedule(dynamic, 1)
            for (int i = 0; i < items; ++i) body(i);
        });
    }
}

TEST(Concurrency, InsideNestedTbbAndOpenMp) {
    config_guard restore;
    qgraph::set_num_threads(2);
    // A TBB loop whose items open OpenMP regions that call qgraph: the shapes framework
    // integrations produce (an inference server's TBB pool over an OpenMP model).
    run_inside("qgraph inside omp inside tbb", [](int items, auto body) {
        tbb::parallel_for(0, items / 8, [&](int outer) {
#pragma omp parallel for num_threads(2)
            for (int k = 0; k < 8; ++k) body(outer * 8 + k);
        });
    });
}

TEST(Concurrency, SetNumThreadsWhileOthersExecute) {
    config_guard restore;
    const std::vector<problem> ps = problems(256);
    std::vector<qgraph::compiled_partition> cps;
    std::vector<std::vector<std::vector<unsigned char>>> in;
    std::vector<std::vector<unsigned char>> want;
    for (size_t i = 0; i < ps.size(); ++i) {
        cps.push_back(compile(ps[i]));
        in.push_back(make_inputs(ps[i], static_cast<uint32_t>(500 + i)));
        qgraph::set_num_threads(1);
        want.push_back(run(cps.back(), in.back()));
    }
    std::atomic<bool> stop {false};
    std::atomic<int> bad {0}, runs {0};
    with_watchdog("set_num_threads during execute", seconds(300), [&] {
        std::vector<std::thread> threads;
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                for (int rep = 0; rep < 20; ++rep) {
                    const size_t i = static_cast<size_t>(rep + t) % ps.size();
                    if (run(cps[i], in[i]) != want[i]) bad.fetch_add(1);
                    runs.fetch_add(1);
                }
            });
        std::thread changer([&] {
            const int counts[] = {1, 3, 2, 8, 0, 4};
            for (int k = 0; !stop.load(); ++k) {
                qgraph::set_num_threads(counts[k % 6]);
                EXPECT_GE(qgraph::get_num_threads(), 1);
                std::this_thread::yield();
            }
        });
        for (auto &th : threads) th.join();
        stop.store(true);
        changer.join();
    });
    EXPECT_EQ(runs.load(), 80);
    EXPECT_EQ(bad.load(), 0);
}

} // namespace
