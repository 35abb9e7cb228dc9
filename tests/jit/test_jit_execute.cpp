// What execute and compile promise around the kernels:
// - execute allocates nothing (counted by replacing operator new and malloc in this binary);
// - the compiled-partition cache returns the same compiled partition for the same request;
// - the ISA cap picks the kernel and verbose/kernel names say which.

#include <gtest/gtest.h>

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "api/helpers.hpp"
#include "common/cpu_isa.hpp"
#include "qgraph/qgraph.hpp"

// ---- allocation counting ---------------------------------------------------------------
// Every operator new and every malloc/calloc/realloc of the process (any thread, including
// TBB's) goes through these while `counting` is set. Sanitizers replace the allocator
// themselves (and allocate through malloc before main), so under them nothing is replaced and
// the counting tests skip; the plain build runs them.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define QGRAPH_COUNT_ALLOCATIONS 0
#else
#define QGRAPH_COUNT_ALLOCATIONS 1
#endif
namespace {
std::atomic<bool> counting {false};
std::atomic<long> allocations {0};
} // namespace

#if QGRAPH_COUNT_ALLOCATIONS
namespace {
void note() {
    if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1);
}
} // namespace
extern "C" void *__libc_malloc(size_t);
extern "C" void *__libc_calloc(size_t, size_t);
extern "C" void *__libc_realloc(void *, size_t);
extern "C" void *malloc(size_t n) {
    note();
    return __libc_malloc(n);
}
extern "C" void *calloc(size_t a, size_t b) {
    note();
    return __libc_calloc(a, b);
}
extern "C" void *realloc(void *p, size_t n) {
    note();
    return __libc_realloc(p, n);
}
void *operator new(size_t n) {
    note();
    if (void *p = __libc_malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void *operator new[](size_t n) { return operator new(n); }
// The operator new above allocates with malloc, so free is its match; GCC warns because it
// pairs the deletes with the standard operator new it cannot see is replaced.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }
void operator delete[](void *p, size_t) noexcept { std::free(p); }
#pragma GCC diagnostic pop
#endif

namespace {

using namespace qtest;

struct threads_guard {
    int old = qgraph::get_num_threads();
    explicit threads_guard(int n) { qgraph::set_num_threads(n); }
    ~threads_guard() { qgraph::set_num_threads(old); }
};

struct isa_guard {
    std::string old = qgraph::get_max_cpu_isa();
    explicit isa_guard(const std::string &cap) { qgraph::set_max_cpu_isa(cap); }
    ~isa_guard() { qgraph::set_max_cpu_isa(old); }
};

op quantize_op(const dims &shape, float scale) {
    op o(0, op::kind::Quantize, {dense(1, dt::f32, shape)}, {dense(2, dt::u8, shape)}, "q");
    o.set_attr("scales", std::vector<float> {scale});
    o.set_attr("zps", std::vector<int64_t> {3});
    return o;
}

/// NHWC source (channels innermost), NCHW destination: the tile walk (jit_tiles.hpp).
op quantize_nhwc_to_nchw_op(const dims &shape) {
    const dims nhwc {shape[1] * shape[2] * shape[3], 1, shape[3] * shape[1], shape[1]};
    op o(0, op::kind::Quantize, {strided(1, dt::f32, shape, nhwc)}, {dense(2, dt::u8, shape)},
            "q");
    o.set_attr("scales", std::vector<float> {0.02f});
    o.set_attr("zps", std::vector<int64_t> {3});
    return o;
}

op quantize_linear_op(const dims &shape) {
    return op(0, op::kind::QuantizeLinear,
            {dense(1, dt::f32, shape), dense(2, dt::f32, {}), dense(3, dt::s8, {})},
            {dense(4, dt::s8, shape)}, "ql");
}

/// Scales and zero points along the contiguous dim, f16 (widened to f32 at execute) and u8:
/// lane tables made at the first execute and kept while the tensors hold the same bytes.
op quantize_linear_lanes_op(const dims &shape) {
    op o(0, op::kind::QuantizeLinear,
            {dense(1, dt::f16, shape), dense(2, dt::f16, {shape[1]}), dense(3, dt::u8, {shape[1]})},
            {dense(4, dt::u8, shape)}, "ql");
    o.set_attr("axis", int64_t(1));
    return o;
}

op dequantize_per_channel_op(const dims &shape) {
    op o(0, op::kind::Dequantize, {dense(1, dt::u8, shape)}, {dense(2, dt::f32, shape)}, "dq");
    o.set_attr("qtype", std::string("per_channel"));
    o.set_attr("axis", int64_t(1));
    o.set_attr("scales", std::vector<float>(shape[1], 0.25f));
    o.set_attr("zps", std::vector<int64_t>(shape[1], 7));
    return o;
}

op dql_op(const dims &shape) {
    return op(0, op::kind::DynamicQuantizeLinear, {dense(1, dt::f32, shape)},
            {dense(2, dt::u8, shape), dense(3, dt::f32, {}), dense(4, dt::u8, {})}, "dql");
}

/// Allocations made by `reps` executes of `o` (after one warm-up execute, which also makes
/// the set-up kept from call to call: jit_kept_setup.hpp).
long allocations_of_execute(const op &o, int reps) {
    std::vector<buffer> in, out;
    for (const lt &t : o.get_input_logical_tensors()) in.emplace_back(t, 0x3f);
    for (const lt &t : o.get_output_logical_tensors()) out.emplace_back(t);
    qgraph::compiled_partition cp = single_partition(o).compile(
            o.get_input_logical_tensors(), o.get_output_logical_tensors(), cpu());
    EXPECT_EQ(cp.get_backend_name(), "jit") << cp.get_kernel_name();
    const std::vector<qgraph::tensor> ins = tensors(in), outs = tensors(out);
    qgraph::stream st(cpu());
    cp.execute(st, ins, outs); // first use of the arena may set up TBB's thread pool
    allocations = 0;
    counting = true;
    for (int i = 0; i < reps; ++i) cp.execute(st, ins, outs);
    counting = false;
    return allocations.load();
}

TEST(JitExecute, CountingSeesAllocations) {
    if (!QGRAPH_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under sanitizers";
    // The counter itself works (otherwise the zero checks below would prove nothing).
    allocations = 0;
    counting = true;
    std::vector<int> *v = new std::vector<int>(100);
    void *m = std::malloc(64);
    counting = false;
    delete v;
    std::free(m);
    EXPECT_GE(allocations.load(), 3);
}

TEST(JitExecute, AllocatesNothingAtOneThread) {
    if (!QGRAPH_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under sanitizers";
    threads_guard t(1);
    EXPECT_EQ(allocations_of_execute(quantize_op({1, 64, 56, 56}, 0.02f), 20), 0);
    EXPECT_EQ(allocations_of_execute(quantize_linear_op({3, 1000}), 20), 0);
    EXPECT_EQ(allocations_of_execute(quantize_linear_lanes_op({64, 200}), 20), 0);
    EXPECT_EQ(allocations_of_execute(dequantize_per_channel_op({2, 64, 7, 7}), 20), 0);
    EXPECT_EQ(allocations_of_execute(dql_op({1, 64, 56, 56}), 20), 0);
    EXPECT_EQ(allocations_of_execute(quantize_nhwc_to_nchw_op({1, 64, 56, 56}), 20), 0);
}

TEST(JitExecute, AllocatesNothingAtTwoThreads) {
    if (!QGRAPH_COUNT_ALLOCATIONS) GTEST_SKIP() << "allocation counting is off under sanitizers";
    // Big enough to run on both threads.
    threads_guard t(2);
    EXPECT_EQ(allocations_of_execute(quantize_op({1, 64, 56, 56}, 0.02f), 20), 0);
    EXPECT_EQ(allocations_of_execute(quantize_linear_lanes_op({64, 3136}), 20), 0);
    EXPECT_EQ(allocations_of_execute(dql_op({1, 64, 56, 56}), 20), 0);
    EXPECT_EQ(allocations_of_execute(quantize_nhwc_to_nchw_op({1, 64, 56, 56}), 20), 0);
}

TEST(JitExecute, CacheReturnsTheSameCompiledPartition) {
    const int old = qgraph::get_compiled_partition_cache_capacity();
    qgraph::set_compiled_partition_cache_capacity(0); // empties it
    qgraph::set_compiled_partition_cache_capacity(16);
    const op a = quantize_op({4, 100}, 0.5f);
    const op b = quantize_op({4, 101}, 0.5f);
    const qgraph::partition pa = single_partition(a);
    auto compile = [](const qgraph::partition &p, const op &o) {
        return p.compile(o.get_input_logical_tensors(), o.get_output_logical_tensors(), cpu());
    };
    compile(pa, a);
    EXPECT_EQ(qgraph::get_compiled_partition_cache_size(), 1);
    compile(pa, a);
    compile(single_partition(a), a); // another graph, same request
    EXPECT_EQ(qgraph::get_compiled_partition_cache_size(), 1);
    compile(single_partition(b), b);
    EXPECT_EQ(qgraph::get_compiled_partition_cache_size(), 2);
    {
        // The ISA cap is part of the request.
        isa_guard cap("avx2");
        compile(pa, a);
        EXPECT_EQ(qgraph::get_compiled_partition_cache_size(), 3);
    }
    qgraph::set_compiled_partition_cache_capacity(2); // least recently used goes first
    EXPECT_EQ(qgraph::get_compiled_partition_cache_size(), 2);
    qgraph::set_compiled_partition_cache_capacity(old);
}

TEST(JitExecute, CacheHitIsVisibleInVerbose) {
    const int old = qgraph::get_compiled_partition_cache_capacity();
    qgraph::set_compiled_partition_cache_capacity(0);
    qgraph::set_compiled_partition_cache_capacity(8);
    const op a = quantize_op({9, 9}, 0.5f);
    const qgraph::partition p = single_partition(a);
    qgraph::set_verbose(1);
    testing::internal::CaptureStdout();
    p.compile(a.get_input_logical_tensors(), a.get_output_logical_tensors(), cpu());
    p.compile(a.get_input_logical_tensors(), a.get_output_logical_tensors(), cpu());
    const std::string out = testing::internal::GetCapturedStdout();
    qgraph::set_verbose(0);
    qgraph::set_compiled_partition_cache_capacity(old);
    const size_t first = out.find("qgraph_verbose,compile,");
    ASSERT_NE(first, std::string::npos) << out;
    const size_t second = out.find("qgraph_verbose,compile,", first + 1);
    ASSERT_NE(second, std::string::npos) << out;
    EXPECT_EQ(out.substr(first, second - first).find("cache_hit"), std::string::npos) << out;
    EXPECT_NE(out.find("cache_hit", second), std::string::npos) << out;
}

TEST(JitExecute, IsaCapPicksTheKernel) {
    const std::vector<std::string> levels = qgraph::get_cpu_isa_levels();
    const op a = quantize_op({3, 33}, 0.5f);
    for (const std::string &level : levels) {
        if (level != "avx2" && level != "avx512_core") continue;
        isa_guard cap(level);
        EXPECT_EQ(qgraph::get_effective_cpu_isa(), level);
        const qgraph::compiled_partition cp = single_partition(a).compile(
                a.get_input_logical_tensors(), a.get_output_logical_tensors(), cpu());
        EXPECT_EQ(cp.get_kernel_name(), "jit:" + level);
    }
    {
        // Levels above avx512_core add nothing for these kernels: they get avx512_core code.
        isa_guard cap("all");
        bool has_avx512 = false;
        for (const std::string &l : levels) has_avx512 = has_avx512 || l == "avx512_core";
        const qgraph::compiled_partition cp = single_partition(a).compile(
                a.get_input_logical_tensors(), a.get_output_logical_tensors(), cpu());
        EXPECT_EQ(cp.get_kernel_name(), has_avx512 ? "jit:avx512_core" : "jit:avx2");
    }
    {
        isa_guard cap("none");
        EXPECT_EQ(qgraph::get_effective_cpu_isa(), "none");
        const qgraph::compiled_partition cp = single_partition(a).compile(
                a.get_input_logical_tensors(), a.get_output_logical_tensors(), cpu());
        EXPECT_NE(cp.get_backend_name(), "jit");
    }
}

TEST(JitExecute, KernelLevelsAreTheLevelsWhoseCodeDiffers) {
    using namespace qgraph::impl;
    // The table: each level lowers to a kernel level at or below it, a kernel level to itself.
    const std::vector<cpu_isa_t> all = cpu_isa_levels(), kernels = kernel_isa_levels();
    std::vector<std::string> kernel_names;
    for (cpu_isa_t k : kernels) kernel_names.emplace_back(isa_name(k));
    EXPECT_EQ(qgraph::get_cpu_isa_kernel_levels(), kernel_names);
    EXPECT_EQ(kernel_isa_cap(isa_none), isa_none);
    EXPECT_EQ(kernel_isa_cap(isa_all), kernels.empty() ? isa_none : kernels.back());
    for (cpu_isa_t l : all) {
        SCOPED_TRACE(isa_name(l));
        const cpu_isa_t k = kernel_isa_cap(l);
        EXPECT_EQ(k & l, k) << "above the level";
        EXPECT_NE(std::find(kernels.begin(), kernels.end(), k), kernels.end()) << isa_name(k);
        const bool is_kernel = std::find(kernels.begin(), kernels.end(), l) != kernels.end();
        EXPECT_EQ(k == l, is_kernel);
    }
    for (cpu_isa_t l : {avx2, avx512_core, avx512_core_bf16})
        if (mayiuse(l, isa_all)) {
            EXPECT_NE(std::find(kernels.begin(), kernels.end(), l), kernels.end()) << isa_name(l);
        }
    // The kernels: at every level the CPU has, the same kernel as at its kernel level and the
    // same bytes, for a quantize from f16 and a dequantize to bf16 (the one kernel that reads
    // a level above avx512_core).
    op q(0, op::kind::Quantize, {dense(1, dt::f16, {3, 77})}, {dense(2, dt::u8, {3, 77})}, "q");
    q.set_attr("scales", std::vector<float> {0.023f});
    q.set_attr("zps", std::vector<int64_t> {7});
    op d(0, op::kind::Dequantize, {dense(1, dt::s8, {3, 77})}, {dense(2, dt::bf16, {3, 77})},
            "d");
    d.set_attr("scales", std::vector<float> {0.023f});
    d.set_attr("zps", std::vector<int64_t> {-3});
    std::vector<uint16_t> codes(3 * 77);
    std::vector<int8_t> bytes(3 * 77);
    for (size_t i = 0; i < codes.size(); ++i) {
        codes[i] = static_cast<uint16_t>(i * 283 + 0x3000);
        bytes[i] = static_cast<int8_t>(i * 37);
    }
    const std::pair<op, buffer> cases[] = {
            {q, make_buffer(dense(1, dt::f16, {3, 77}), codes)},
            {d, make_buffer(dense(1, dt::s8, {3, 77}), bytes)}};
    for (const std::pair<op, buffer> &c : cases) {
        const std::vector<buffer> in {c.second};
        const std::vector<buffer> out {buffer(c.first.get_output_logical_tensors()[0])};
        for (cpu_isa_t l : all) {
            SCOPED_TRACE(isa_name(l));
            run_result at_level, at_kernel_level;
            {
                isa_guard cap(isa_name(l));
                at_level = run_op_on("jit", c.first, in, out);
            }
            {
                isa_guard cap(isa_name(kernel_isa_cap(l)));
                at_kernel_level = run_op_on("jit", c.first, in, out);
            }
            EXPECT_EQ(at_level.kernel, at_kernel_level.kernel);
            EXPECT_EQ(at_level.outputs[0].bytes(), at_kernel_level.outputs[0].bytes());
        }
    }
}

TEST(JitExecute, BadSettingsAreErrors) {
    EXPECT_QG_ERROR(qgraph::set_max_cpu_isa("avx9000"), status::invalid_arguments,
            "set_max_cpu_isa", "avx9000", "avx512_core");
    EXPECT_QG_ERROR(qgraph::set_num_threads(-1), status::invalid_arguments, "set_num_threads",
            "negative");
    EXPECT_QG_ERROR(qgraph::set_compiled_partition_cache_capacity(-5),
            status::invalid_arguments, "negative");
    threads_guard t(3);
    EXPECT_EQ(qgraph::get_num_threads(), 3);
    qgraph::set_num_threads(0); // the default
    EXPECT_GE(qgraph::get_num_threads(), 1);
}

} // namespace
