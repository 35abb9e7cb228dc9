// An integrator's thread pool on a stream (qgraph/threadpool.hpp) and the OpenMP runtime
// (set_cpu_runtime): every op, bit-exact with the reference backend, on a plain std::thread
// pool and an OpenMP pool of 1..4 threads; pools that have fewer threads than they report;
// executes from inside a pool task; callers and pool threads with another MXCSR; the dnnl
// backend leaving the caller's OpenMP thread count alone. The std::thread pool tests also run
// under TSan (.ci/sanitizers.sh): with a pool, qgraph's regions touch no TBB, and the pool's
// hand-offs are mutexes TSan sees (libgomp's barriers it does not: the OpenMP tests run in
// the main and ASan builds).

#include <gtest/gtest.h>

#include <omp.h>
#include <xmmintrin.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/op_cases.hpp"
#include "reliability/reliability_util.hpp"

namespace {

using namespace qtest;
using std::chrono::seconds;

// ---- two foreign pools ---------------------------------------------------------------------

/// Which pool, if any, the calling thread is running a task of.
thread_local const qgraph::threadpool_iface *current_pool = nullptr;

/// A pool of `threads` std::threads. parallel_for runs one job at a time (a second caller
/// waits for the first): a region submitted again from inside a task would deadlock, which
/// is what the nesting test would catch. `reported` is what get_num_threads() claims (a pool
/// may have fewer threads than it reports). `on_start` runs first on each worker thread.
class thread_pool final : public qgraph::threadpool_iface {
public:
    explicit thread_pool(int threads, int reported = 0,
            std::function<void()> on_start = nullptr)
        : reported_(reported > 0 ? reported : threads) {
        for (int t = 0; t < threads; ++t)
            workers_.emplace_back([this, on_start] {
                if (on_start) on_start();
                work();
            });
    }
    ~thread_pool() override {
        {
            std::lock_guard<std::mutex> lock(m_);
            stop_ = true;
        }
        wake_.notify_all();
        for (std::thread &w : workers_) w.join();
    }

    int get_num_threads() const override { return reported_; }
    bool get_in_parallel() const override { return current_pool == this; }

    void parallel_for(int n, const std::function<void(int, int)> &fn) override {
        std::lock_guard<std::mutex> one_job(job_m_);
        std::unique_lock<std::mutex> lock(m_);
        fn_ = &fn;
        n_ = n;
        next_ = 0;
        done_ = 0;
        ++generation_;
        ++jobs_;
        if (n > max_n_) max_n_ = n;
        wake_.notify_all();
        finished_.wait(lock, [&] { return done_ == n_; });
        fn_ = nullptr;
    }

    int jobs() const { return jobs_.load(); }
    /// The most tasks one parallel_for was asked to run.
    int max_tasks() {
        std::lock_guard<std::mutex> lock(m_);
        return max_n_;
    }
    /// Distinct threads that ran a task (workers only: the caller never does).
    size_t threads_used() {
        std::lock_guard<std::mutex> lock(m_);
        return used_.size();
    }

private:
    void work() {
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(m_);
        for (;;) {
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            while (fn_ && next_ < n_) {
                const int i = next_++;
                const std::function<void(int, int)> *fn = fn_;
                const int n = n_;
                used_.insert(std::this_thread::get_id());
                lock.unlock();
                current_pool = this;
                (*fn)(i, n);
                current_pool = nullptr;
                lock.lock();
                if (++done_ == n_) finished_.notify_all();
            }
        }
    }

    const int reported_;
    std::vector<std::thread> workers_;
    std::mutex job_m_;
    std::mutex m_;
    std::condition_variable wake_, finished_;
    const std::function<void(int, int)> *fn_ = nullptr;
    int n_ = 0, next_ = 0, done_ = 0, max_n_ = 0;
    uint64_t generation_ = 0;
    bool stop_ = false;
    std::atomic<int> jobs_ {0};
    std::set<std::thread::id> used_;
};

/// A pool on OpenMP: a team of `threads` per parallel_for, reporting `reported` threads.
class omp_pool final : public qgraph::threadpool_iface {
public:
    explicit omp_pool(int threads, int reported = 0)
        : threads_(threads), reported_(reported > 0 ? reported : threads) {}
    int get_num_threads() const override { return reported_; }
    bool get_in_parallel() const override { return omp_in_parallel() != 0; }
    void parallel_for(int n, const std::function<void(int, int)> &fn) override {
        ++jobs_;
#pragma omp parallel for num_threads(threads_) schedule(static)
        for (int i = 0; i < n; ++i) fn(i, n);
    }
    int jobs() const { return jobs_.load(); }

private:
    const int threads_, reported_;
    std::atomic<int> jobs_ {0};
};

// ---- running a case ------------------------------------------------------------------------

const family every_family[] = {family::quantize, family::dequantize, family::dyn_quantize,
        family::dyn_dequantize, family::quantize_linear, family::dequantize_linear,
        family::dyn_quantize_linear};

/// Cases large enough for several threads (1x64x56x56, the perf_jit size) and a small odd
/// one that stays on the calling thread, per tensor and per channel, with strided outputs.
std::vector<case_spec> pool_cases() {
    std::vector<case_spec> v;
    for (family f : every_family)
        for (int k = 0; k < 3; ++k) {
            case_spec c;
            c.fam = f;
            c.shape = k == 2 ? dims {3, 5, 7} : dims {1, 64, 56, 56};
            c.per_channel = k == 1 && f != family::dyn_quantize_linear;
            c.axis = 1;
            if (k == 2) c.dst_strides = {80, 8, 1};
            c.seed = 7 + k;
            c.specials = f != family::dyn_quantize_linear || k == 0;
            v.push_back(c);
        }
    return v;
}

/// A compiled case with the reference backend's output bytes.
struct prepared {
    case_spec spec;
    built_case b;
    qgraph::compiled_partition cp;
    std::vector<std::vector<unsigned char>> want;
};

prepared prepare(const case_spec &c) {
    built_case b = build(c);
    run_result ref = run_op_on("ref", b.o, b.inputs, b.outputs);
    std::vector<std::vector<unsigned char>> want;
    for (const buffer &y : ref.outputs) want.push_back(y.bytes());
    qgraph::partition p = single_partition(b.o);
    qgraph::compiled_partition cp = p.compile(descs(b.inputs), descs(b.outputs), cpu());
    return {c, std::move(b), cp, std::move(want)};
}

/// Executes `pc` on a stream with `pool` (nullptr: qgraph's runtime) into fresh outputs and
/// returns whether every output equals the reference, byte for byte.
bool matches_ref(const prepared &pc, qgraph::threadpool_iface *pool, std::string *why = nullptr) {
    std::vector<buffer> outs;
    for (const buffer &y : pc.b.outputs) outs.emplace_back(y.desc());
    qgraph::stream s(cpu(), pool);
    pc.cp.execute(s, tensors(pc.b.inputs), tensors(outs));
    for (size_t i = 0; i < outs.size(); ++i)
        if (outs[i].bytes() != pc.want[i]) {
            if (why)
                *why = pc.spec.describe() + ": output " + std::to_string(i) + " of "
                        + pc.cp.get_kernel_name() + " differs from ref";
            return false;
        }
    return true;
}

const std::vector<prepared> &all_prepared() {
    static const std::vector<prepared> v = [] {
        std::vector<prepared> r;
        for (const case_spec &c : pool_cases()) r.push_back(prepare(c));
        return r;
    }();
    return v;
}

// ---- tests ---------------------------------------------------------------------------------

TEST(ThreadPool, EveryOpBitExactOnAStdThreadPoolOfOneToFourThreads) {
    for (int threads = 1; threads <= 4; ++threads) {
        thread_pool pool(threads);
        for (const prepared &pc : all_prepared()) {
            std::string why;
            EXPECT_TRUE(matches_ref(pc, &pool, &why)) << threads << " threads: " << why;
        }
        // Regions of the large cases ran on the pool, split into several tasks (which of the
        // pool's threads takes them is up to the pool).
        if (threads > 1) {
            EXPECT_GT(pool.jobs(), 0);
            EXPECT_GT(pool.max_tasks(), 1);
            EXPECT_LE(pool.max_tasks(), threads);
        } else {
            EXPECT_EQ(pool.jobs(), 0) << "a one-thread pool needs no region";
        }
    }
}

TEST(ThreadPool, EveryOpBitExactOnAnOpenMPPoolOfOneToFourThreads) {
    for (int threads = 1; threads <= 4; ++threads) {
        omp_pool pool(threads);
        for (const prepared &pc : all_prepared()) {
            std::string why;
            EXPECT_TRUE(matches_ref(pc, &pool, &why)) << threads << " threads: " << why;
        }
        if (threads > 1) {
            EXPECT_GT(pool.jobs(), 0);
        }
    }
}

TEST(ThreadPool, AStdThreadPoolWithFewerThreadsThanItReports) {
    // 16 tasks per region, all on one worker.
    thread_pool one(1, 16);
    for (const prepared &pc : all_prepared()) {
        std::string why;
        EXPECT_TRUE(matches_ref(pc, &one, &why)) << why;
    }
    EXPECT_GT(one.jobs(), 0);
    EXPECT_EQ(one.threads_used(), 1u);
}

TEST(ThreadPool, AnOpenMPPoolWithFewerThreadsThanItReports) {
    // 16 tasks per region on an OpenMP team of two.
    omp_pool two(2, 16);
    for (const prepared &pc : all_prepared()) {
        std::string why;
        EXPECT_TRUE(matches_ref(pc, &two, &why)) << why;
    }
    EXPECT_GT(two.jobs(), 0);
}

TEST(ThreadPool, ExecutesFromInsideAPoolTaskRunOnTheCallingThread) {
    // The pool runs one job at a time: submitting again from inside a task would wait for
    // the job that waits for it. qgraph must see get_in_parallel() and run inline.
    thread_pool pool(3);
    const std::vector<prepared> &cases = all_prepared();
    std::atomic<int> wrong {0}, ran {0};
    qrel::with_watchdog("execute inside a pool task", seconds(120), [&] {
        pool.parallel_for(static_cast<int>(cases.size()), [&](int i, int) {
            wrong += !matches_ref(cases[static_cast<size_t>(i)], &pool);
            ++ran;
        });
    });
    EXPECT_EQ(ran.load(), static_cast<int>(cases.size()));
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(pool.jobs(), 1) << "only the test's own job reached the pool";
}

TEST(ThreadPool, ConcurrentExecutesOnOneSharedPool) {
    thread_pool pool(2);
    const std::vector<prepared> &cases = all_prepared();
    std::atomic<int> wrong {0};
    qrel::with_watchdog("concurrent executes on one pool", seconds(120), [&] {
        std::vector<std::thread> callers;
        for (int t = 0; t < 3; ++t)
            callers.emplace_back([&, t] {
                for (size_t i = static_cast<size_t>(t); i < cases.size(); i += 3)
                    wrong += !matches_ref(cases[i], &pool);
            });
        for (std::thread &c : callers) c.join();
    });
    EXPECT_EQ(wrong.load(), 0);
}

/// Flush-to-zero, denormals-are-zero and round toward zero: what a caller's or a pool's
/// thread may run with.
constexpr unsigned int hostile_mxcsr = 0x1F80 | 0x8000 | 0x0040 | 0x6000;

class mxcsr_scope {
public:
    explicit mxcsr_scope(unsigned int v) : saved_(_mm_getcsr()) { _mm_setcsr(v); }
    ~mxcsr_scope() { _mm_setcsr(saved_); }

private:
    unsigned int saved_;
};

/// Every case under the hostile MXCSR on the caller: bit-exact, and the caller keeps it.
void check_under_hostile_mxcsr(qgraph::threadpool_iface *pool) {
    for (const prepared &pc : all_prepared()) {
        std::string why;
        mxcsr_scope hostile(hostile_mxcsr);
        const bool same = matches_ref(pc, pool, &why);
        const unsigned int after = _mm_getcsr() & 0xFFC0;
        EXPECT_TRUE(same) << (pool ? "pool: " : "runtime: ") << why;
        EXPECT_EQ(after, hostile_mxcsr) << "the caller's MXCSR was changed";
    }
}

TEST(ThreadPool, KernelsDoNotDependOnTheFloatEnvironmentOfThePoolOrCaller) {
    // Subnormal inputs, .5 ties and inexact quotients all change under FTZ/DAZ and round
    // toward zero; the results must not. The pool's threads run with it too.
    thread_pool pool(2, 0, [] { _mm_setcsr(hostile_mxcsr); });
    check_under_hostile_mxcsr(&pool);
    EXPECT_GT(pool.jobs(), 0);
}

TEST(CpuRuntime, KernelsDoNotDependOnTheCallersFloatEnvironment) {
    check_under_hostile_mxcsr(nullptr);
}

TEST(CpuRuntime, EveryOpBitExactOnTheOpenMPRuntime) {
    qrel::config_guard restore;
    const std::string before = qgraph::get_cpu_runtime();
    EXPECT_EQ(before, "tbb") << "TBB is the default runtime";
    qgraph::set_cpu_runtime("omp");
    EXPECT_EQ(qgraph::get_cpu_runtime(), "omp");
    for (int threads : {1, 2, 3}) {
        qgraph::set_num_threads(threads);
        for (const prepared &pc : all_prepared()) {
            std::string why;
            EXPECT_TRUE(matches_ref(pc, nullptr, &why)) << threads << " threads: " << why;
        }
    }
    qgraph::set_cpu_runtime(before);
    EXPECT_EQ(qgraph::get_cpu_runtime(), before);
}

TEST(CpuRuntime, UnknownNamesAreRejected) {
    for (const char *bad : {"", "openmp", "TBB", "omp ", "threadpool"}) {
        try {
            qgraph::set_cpu_runtime(bad);
            ADD_FAILURE() << "accepted \"" << bad << "\"";
        } catch (const qgraph::error &e) {
            EXPECT_EQ(e.status(), qgraph::status::invalid_arguments);
            EXPECT_NE(std::string(e.what()).find("set_cpu_runtime"), std::string::npos);
        }
    }
    EXPECT_EQ(qgraph::get_cpu_runtime(), "tbb");
}

TEST(CpuRuntime, TheDnnlBackendLeavesTheCallersOpenMPThreadCount) {
    // oneDNN's thread count is the calling thread's OpenMP setting: qgraph may change it for a
    // compile or execute, never after.
    qrel::config_guard restore;
    case_spec c;
    c.fam = family::quantize;
    c.shape = {1, 64, 56, 56};
    c.pow2_scales = true;
    c.with_zp = false;
    built_case b = build(c);
    const int mine = 3;
    for (const char *runtime : {"tbb", "omp"}) {
        qgraph::set_cpu_runtime(runtime);
        for (int threads : {1, 2}) {
            qgraph::set_num_threads(threads);
            omp_set_num_threads(mine);
            run_result r = run_op_on("dnnl", b.o, b.inputs, b.outputs);
            EXPECT_EQ(r.backend, "dnnl");
            EXPECT_EQ(omp_get_max_threads(), mine) << runtime << ", " << threads << " threads";
        }
    }
    qgraph::set_cpu_runtime("tbb");
}

} // namespace
