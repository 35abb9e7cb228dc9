// version() and verbose output: the info header, the callback sink, what compile and execute
// lines carry (partition, op, fallbacks and why; a fused chain's per op, a runtime lookup's
// table builds), partition ids across graphs and the cache.

#include <gtest/gtest.h>

#include <mutex>
#include <sstream>
#include <thread>

#include "api/valid_ops.hpp"

#ifndef QGRAPH_TEST_PROJECT_VERSION
#error "tests/api/CMakeLists.txt defines QGRAPH_TEST_PROJECT_VERSION (the CMake project version)"
#endif

namespace {

using namespace qtest;

bool has(const std::string &s, const std::string &frag) { return s.find(frag) != std::string::npos; }

std::vector<std::string> starting(const std::vector<std::string> &lines, const std::string &p) {
    std::vector<std::string> v;
    for (const std::string &l : lines)
        if (l.rfind(p, 0) == 0) v.push_back(l);
    return v;
}

/// Collects verbose lines through set_verbose_callback at `level` for one test; restores
/// stdout and the old level after.
class capture {
public:
    explicit capture(int level) : old_level_(qgraph::get_verbose()) {
        qgraph::set_verbose_callback([this](const std::string &line) {
            std::lock_guard<std::mutex> lock(m_);
            lines_.push_back(line);
        });
        qgraph::set_verbose(level);
    }
    ~capture() {
        qgraph::set_verbose(old_level_);
        qgraph::set_verbose_callback(nullptr);
    }
    std::vector<std::string> lines() {
        std::lock_guard<std::mutex> lock(m_);
        return lines_;
    }
    std::vector<std::string> lines(const std::string &prefix) { return starting(lines(), prefix); }
    std::string all() {
        std::string s;
        for (const std::string &l : lines()) s += l + "\n";
        return s;
    }

private:
    int old_level_;
    std::mutex m_;
    std::vector<std::string> lines_;
};

struct isa_guard {
    std::string old = qgraph::get_max_cpu_isa();
    explicit isa_guard(const std::string &cap) { qgraph::set_max_cpu_isa(cap); }
    ~isa_guard() { qgraph::set_max_cpu_isa(old); }
};

qgraph::compiled_partition compile(const qgraph::partition &p, const op &o) {
    return p.compile(o.get_input_logical_tensors(), o.get_output_logical_tensors(), cpu());
}

TEST(Version, NumbersHashRuntimeAndIsa) {
    const qgraph::version_t v = qgraph::version();
    std::ostringstream numbers;
    numbers << v.major << "." << v.minor << "." << v.patch;
    EXPECT_EQ(numbers.str(), QGRAPH_TEST_PROJECT_VERSION);
    ASSERT_NE(v.hash, nullptr);
    EXPECT_GT(std::string(v.hash).size(), 0u); // a hash, or "unknown" outside git
    EXPECT_STREQ(v.cpu_runtime, "tbb");
    EXPECT_EQ(v.cpu_isa, qgraph::get_effective_cpu_isa());
    // The ISA is the one in use now: it follows the cap.
    isa_guard cap("none");
    EXPECT_STREQ(qgraph::version().cpu_isa, "none");
}

TEST(Verbose, HeaderComesOnceBeforeTheFirstLine) {
    backend_guard g("ref");
    capture c(1);
    compile_and_run(valid_quantize());
    compile_and_run(valid_quantize());
    const std::vector<std::string> lines = c.lines();
    const std::vector<std::string> info = c.lines("qgraph_verbose,info,");
    ASSERT_EQ(info.size(), 4u) << c.all();
    for (size_t i = 0; i < info.size(); ++i) EXPECT_EQ(lines[i], info[i]) << c.all();
    const qgraph::version_t v = qgraph::version();
    EXPECT_TRUE(has(info[0], "qgraph v" + std::string(QGRAPH_TEST_PROJECT_VERSION))) << info[0];
    EXPECT_TRUE(has(info[0], std::string("git hash ") + v.hash)) << info[0];
    EXPECT_TRUE(has(info[1], "runtime:tbb")) << info[1];
    EXPECT_TRUE(has(info[1], "nthr:" + std::to_string(qgraph::get_num_threads()))) << info[1];
    EXPECT_TRUE(has(info[2], "isa:" + qgraph::get_effective_cpu_isa())) << info[2];
    EXPECT_TRUE(has(info[2], "isa_cap:" + qgraph::get_max_cpu_isa())) << info[2];
    EXPECT_TRUE(has(info[3], "template:")) << info[3];
    EXPECT_EQ(c.lines("qgraph_verbose,compile,").size(), 2u) << c.all();
    EXPECT_EQ(c.lines("qgraph_verbose,exec,").size(), 2u) << c.all();
}

TEST(Verbose, CallbackGetsWholeLinesAndNullRestoresStdout) {
    backend_guard g("ref");
    {
        capture c(1);
        testing::internal::CaptureStdout();
        compile_and_run(valid_quantize());
        EXPECT_EQ(testing::internal::GetCapturedStdout(), "");
        for (const std::string &l : c.lines()) {
            EXPECT_EQ(l.rfind("qgraph_verbose,", 0), 0u) << l;
            EXPECT_FALSE(has(l, "\n")) << l;
        }
        EXPECT_EQ(c.lines("qgraph_verbose,exec,").size(), 1u) << c.all();
    }
    // capture's destructor passed nullptr: stdout again, with its own header first.
    qgraph::set_verbose(1);
    testing::internal::CaptureStdout();
    compile_and_run(valid_quantize());
    const std::string out = testing::internal::GetCapturedStdout();
    qgraph::set_verbose(0);
    EXPECT_EQ(out.rfind("qgraph_verbose,info,qgraph v", 0), 0u) << out;
    EXPECT_TRUE(has(out, "qgraph_verbose,exec,")) << out;
}

TEST(Verbose, LinesFromManyThreadsStayWhole) {
    backend_guard g("ref");
    capture c(1);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([] {
            for (int i = 0; i < 20; ++i) compile_and_run(valid_quantize());
        });
    for (std::thread &t : threads) t.join();
    EXPECT_EQ(c.lines("qgraph_verbose,exec,").size(), 80u);
    for (const std::string &l : c.lines("qgraph_verbose,exec,"))
        EXPECT_TRUE(has(l, ",op:Quantize,name:q,")) << l;
}

TEST(Verbose, LinesNameTheOpAndTheirOwnPartition) {
    // The same op in two graphs: two partitions with their own ids, one cache entry (the key
    // is the request, not the partition id), and each line names its own partition and op.
    backend_guard g("ref");
    const int old = qgraph::get_compiled_partition_cache_capacity();
    qgraph::set_compiled_partition_cache_capacity(0);
    qgraph::set_compiled_partition_cache_capacity(8);
    op a = valid_quantize();
    op b(a.get_id(), a.get_kind(), a.get_input_logical_tensors(), a.get_output_logical_tensors(),
            "q, from another graph");
    for (const auto &kv : a.get_attrs()) b.set_attr_value(kv.first, kv.second);
    const qgraph::partition pa = single_partition(a), pb = single_partition(b);
    ASSERT_NE(pa.get_id(), pb.get_id());
    capture c(1);
    const qgraph::compiled_partition ca = compile(pa, a);
    const qgraph::compiled_partition cb = compile(pb, b);
    EXPECT_EQ(qgraph::get_compiled_partition_cache_size(), 1);
    const std::vector<std::string> comp = c.lines("qgraph_verbose,compile,");
    ASSERT_EQ(comp.size(), 2u) << c.all();
    EXPECT_EQ(comp[0].rfind("qgraph_verbose,compile,partition:" + std::to_string(pa.get_id())
                      + ",op:Quantize,name:q,Quantize f32:u8",
                      0),
            0u)
            << comp[0];
    // ',' in a user's op name would split the line's fields: it is written as ';'.
    EXPECT_EQ(comp[1].rfind("qgraph_verbose,compile,partition:" + std::to_string(pb.get_id())
                      + ",op:Quantize,name:q; from another graph,",
                      0),
            0u)
            << comp[1];
    EXPECT_TRUE(has(comp[1], ",cache_hit")) << comp[1];
    // Messages of the hit name its own partition too.
    EXPECT_QG_ERROR(cb.query_logical_tensor(99), status::invalid_arguments,
            "is not a port of partition " + std::to_string(pb.get_id()));
    qgraph::set_compiled_partition_cache_capacity(old);
}

TEST(Verbose, CompileLineSaysWhichBackendsRejectedAndWhy) {
    // Level 1: a compile that passed over better backends names them with a short reason
    // (level 2 adds the whole reasons on dispatch lines).
    backend_guard g("");
    isa_guard cap("none");
    capture c(1);
    compile_and_run(valid_dynamic_quantize_linear());
    const std::vector<std::string> comp = c.lines("qgraph_verbose,compile,");
    ASSERT_EQ(comp.size(), 1u) << c.all();
    EXPECT_TRUE(has(comp[0], ",backend:ref,")) << comp[0];
    EXPECT_TRUE(has(comp[0], ",rejected:jit(needs avx2);dnnl(")) << comp[0];
    EXPECT_TRUE(c.lines("qgraph_verbose,dispatch,").empty()) << c.all();
}

TEST(Verbose, CompileLineWithoutFallbackHasNoRejections) {
    backend_guard g("ref");
    capture c(1);
    compile_and_run(valid_dynamic_quantize_linear());
    const std::vector<std::string> comp = c.lines("qgraph_verbose,compile,");
    ASSERT_EQ(comp.size(), 1u) << c.all();
    EXPECT_FALSE(has(comp[0], "rejected:")) << comp[0];
}

TEST(Verbose, ExecLineSaysWhyTheCallFellBack) {
    // dnnl's reorder adds a runtime zero point before rounding, qgraph after: a nonzero one
    // goes to the fallback, and the exec line says which kernel handed it over and why.
    backend_guard g("dnnl");
    const op o(0, op::kind::QuantizeLinear,
            {dense(1, dt::f32, {4}), dense(2, dt::f32, {}), dense(3, dt::u8, {})},
            {dense(4, dt::u8, {4})}, "ql");
    const qgraph::compiled_partition cp = compile(single_partition(o), o);
    if (cp.get_kernel_name() != "dnnl:reorder") GTEST_SKIP() << cp.get_kernel_name();
    const buffer x = make_buffer(dense(1, dt::f32, {4}), std::vector<float> {1.f, 2.f, 3.f, 5.f});
    const buffer s = make_buffer(dense(2, dt::f32, {}), std::vector<float> {2.f});
    auto exec_line = [&](uint8_t zp) {
        const buffer z = make_buffer(dense(3, dt::u8, {}), std::vector<uint8_t> {zp});
        buffer y(dense(4, dt::u8, {4}));
        capture c(1);
        qgraph::stream st(cpu());
        cp.execute(st, {x.as_tensor(), s.as_tensor(), z.as_tensor()}, {y.as_tensor()});
        const std::vector<std::string> l = c.lines("qgraph_verbose,exec,");
        EXPECT_EQ(l.size(), 1u) << c.all();
        return l.empty() ? std::string() : l[0];
    };
    const std::string direct = exec_line(0);
    EXPECT_TRUE(has(direct, ",kernel:dnnl:reorder,")) << direct;
    EXPECT_FALSE(has(direct, "fallback")) << direct;
    const std::string fell_back = exec_line(3);
    EXPECT_TRUE(has(fell_back, ",backend:ref,kernel:ref:quantize,")) << fell_back;
    EXPECT_TRUE(has(fell_back,
            ",fallback_from:dnnl:reorder (nonzero runtime zero point (oneDNN adds it before "
            "rounding))"))
            << fell_back;
}

/// The one partition `ops` fuse into, compiled for its own ports.
qgraph::compiled_partition compile_fused(const std::vector<op> &ops) {
    qgraph::graph g(qgraph::engine::kind::cpu);
    for (const op &o : ops) g.add_op(o);
    g.finalize();
    const std::vector<qgraph::partition> parts = g.get_partitions();
    EXPECT_EQ(parts.size(), 1u);
    const qgraph::partition &p = parts.at(0);
    return p.compile(p.get_input_ports(), p.get_output_ports(), cpu());
}

/// The exec line of one execute of cp, each input port bound to the buffer of its id.
std::string fused_exec_line(const qgraph::compiled_partition &cp, const std::vector<buffer> &bufs) {
    std::vector<qgraph::tensor> ins;
    for (const lt &t : cp.get_input_logical_tensors())
        for (const buffer &b : bufs)
            if (b.desc().get_id() == t.get_id()) ins.push_back(b.as_tensor());
    EXPECT_EQ(ins.size(), cp.get_input_logical_tensors().size());
    buffer y(cp.get_output_logical_tensors().at(0));
    capture c(1);
    qgraph::stream st(cpu());
    cp.execute(st, ins, {y.as_tensor()});
    const std::vector<std::string> l = c.lines("qgraph_verbose,exec,");
    EXPECT_EQ(l.size(), 1u) << c.all();
    return l.empty() ? std::string() : l[0];
}

TEST(Verbose, ExecLineOfAChainSaysWhichStageFellBack) {
    // A float8 dequantize into a quantize whose s32 zero point is a tensor: no lookup (the
    // source is not 8-bit integers), the ops' own kernels over blocks. A zero point beyond
    // +-2^23 sends the quantize stage's generated code to its fallback at execute: the line
    // names the kernels that ran, the compiled ones and why, as for one op.
    backend_guard g("");
    // 32 blocks (fused_chain.cpp: 32 KiB of f32 each), enough bytes for several threads
    // (thread_count.hpp) where there are: each notes its blocks' fallbacks, merged after.
    const dims d {256, 1024};
    const lt x = dense(1, dt::f8_e4m3, d), s1 = dense(2, dt::f32, {1}), s2 = dense(5, dt::f32, {1}),
             z2 = dense(6, dt::s32, {1}), y = dense(7, dt::u8, d);
    op dq(0, op::kind::DynamicDequantize, {x, s1}, {any(3, dt::f32, d)}, "dq");
    dq.set_attr(op::attr::qtype, std::string("per_tensor"));
    op q(1, op::kind::DynamicQuantize, {any(3, dt::f32, d), s2, z2}, {y}, "q");
    q.set_attr(op::attr::qtype, std::string("per_tensor"));
    const qgraph::compiled_partition cp = compile_fused({dq, q});
    const std::string compiled = cp.get_kernel_name();
    const size_t plus = compiled.find('+');
    if (plus == std::string::npos || compiled.compare(plus + 1, 4, "jit:") != 0)
        GTEST_SKIP() << "the quantize stage is not generated code: " << compiled;
    const buffer xb = make_buffer(x, std::vector<uint8_t>(nelems(d), 0x38)); // 1.0
    const buffer s1b = make_buffer(s1, std::vector<float> {1.f});
    const buffer s2b = make_buffer(s2, std::vector<float> {0.5f});
    const auto line = [&](int32_t zp) {
        return fused_exec_line(cp, {xb, s1b, s2b, make_buffer(z2, std::vector<int32_t> {zp})});
    };
    const std::string direct = line(3);
    EXPECT_TRUE(has(direct, ",kernel:" + compiled + ",")) << direct;
    EXPECT_FALSE(has(direct, "fallback")) << direct;
    const std::string fell_back = line(1 << 24);
    const std::string ran = compiled.substr(0, plus) + "+ref:quantize";
    EXPECT_TRUE(has(fell_back, ",kernel:" + ran + ",")) << fell_back;
    EXPECT_TRUE(has(fell_back, ",backend:" + compiled.substr(0, compiled.find(':')) + "+ref,"))
            << fell_back;
    EXPECT_TRUE(has(fell_back,
            ",fallback_from:" + compiled + " (runtime s32 zero point beyond +-2^23 (qmin - zp; "
                    "qmax - zp not exact in f32))"))
            << fell_back;
}

TEST(Verbose, ExecLineOfARuntimeLookupSaysWhenItBuiltTheTables) {
    // The lookup's tables come from the parameter tensors at execute and are kept while their
    // bytes match: the line says which calls paid for building them.
    backend_guard g("");
    const dims d {2, 6, 40};
    const lt x = dense(1, dt::u8, d), s1 = dense(2, dt::f32, {1}), z1 = dense(3, dt::u8, {1}),
             s2 = dense(5, dt::f32, {1}), z2 = dense(6, dt::s8, {1}), y = dense(7, dt::s8, d);
    op dq(0, op::kind::DynamicDequantize, {x, s1, z1}, {any(4, dt::f32, d)}, "dq");
    dq.set_attr(op::attr::qtype, std::string("per_tensor"));
    op q(1, op::kind::DynamicQuantize, {any(4, dt::f32, d), s2, z2}, {y}, "q");
    q.set_attr(op::attr::qtype, std::string("per_tensor"));
    const qgraph::compiled_partition cp = compile_fused({dq, q});
    ASSERT_TRUE(has(cp.get_kernel_name(), "lookup")) << cp.get_kernel_name();
    const buffer xb = make_buffer(x, std::vector<uint8_t>(nelems(d), 7));
    const buffer s1b = make_buffer(s1, std::vector<float> {0.25f});
    const buffer z1b = make_buffer(z1, std::vector<uint8_t> {120});
    const buffer z2b = make_buffer(z2, std::vector<int8_t> {-4});
    const auto line = [&](float scale) {
        return fused_exec_line(cp, {xb, s1b, z1b, make_buffer(s2, std::vector<float> {scale}), z2b});
    };
    const std::string first = line(0.5f), same = line(0.5f), other = line(0.75f);
    EXPECT_TRUE(has(first, ",kernel:" + cp.get_kernel_name() + ",")) << first;
    EXPECT_TRUE(has(first, ",tables:built")) << first;
    EXPECT_FALSE(has(same, "tables:")) << same;
    EXPECT_TRUE(has(other, ",tables:built")) << other;
}

} // namespace
