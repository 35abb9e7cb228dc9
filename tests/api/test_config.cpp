// Configuration: backend names and forcing (set_backend / get_backend), verbose levels and the
// lines QGRAPH_VERBOSE prints (captured from stdout).

#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <thread>

#include "api/valid_ops.hpp"

namespace {

using namespace qtest;

std::vector<std::string> lines_of(const std::string &s) {
    std::vector<std::string> v;
    std::istringstream is(s);
    for (std::string l; std::getline(is, l);) v.push_back(l);
    return v;
}

std::vector<std::string> with_prefix(const std::vector<std::string> &lines, const std::string &p) {
    std::vector<std::string> v;
    for (const std::string &l : lines)
        if (l.rfind(p, 0) == 0) v.push_back(l);
    return v;
}

bool has(const std::string &s, const std::string &frag) { return s.find(frag) != std::string::npos; }

class verbose_guard {
public:
    explicit verbose_guard(int level) : old_(qgraph::get_verbose()) { qgraph::set_verbose(level); }
    ~verbose_guard() { qgraph::set_verbose(old_); }

private:
    int old_;
};

TEST(Config, BackendNames) {
    const std::vector<std::string> names = qgraph::get_backend_names();
    ASSERT_GE(names.size(), 2u);
    EXPECT_EQ(names.back(), "ref"); // the reference is the last resort
    EXPECT_EQ(names, (std::vector<std::string> {"jit", "dnnl", "ref"}));
    for (size_t i = 0; i + 1 < names.size(); ++i) EXPECT_NE(names[i], "ref");
}

TEST(Config, SetBackend) {
    backend_guard keep(qgraph::get_backend());
    qgraph::set_backend("ref");
    EXPECT_EQ(qgraph::get_backend(), "ref");
    qgraph::set_backend("dnnl");
    EXPECT_EQ(qgraph::get_backend(), "dnnl");
    qgraph::set_backend("");
    EXPECT_EQ(qgraph::get_backend(), "");
}

TEST(Config, UnknownBackend) {
    backend_guard keep("ref");
    EXPECT_QG_ERROR(qgraph::set_backend("nope"), status::invalid_arguments,
            "set_backend: unknown backend \"nope\"", "ref");
    EXPECT_QG_ERROR(qgraph::set_backend("REF"), status::invalid_arguments, "\"REF\"");
    EXPECT_QG_ERROR(qgraph::set_backend("ref "), status::invalid_arguments);
    EXPECT_EQ(qgraph::get_backend(), "ref"); // unchanged by the failed calls
}

TEST(Config, ForcedRefBackendIsUsed) {
    backend_guard g("ref");
    const op o = valid_quantize();
    qgraph::compiled_partition cp = single_partition(o).compile(
            o.get_input_logical_tensors(), o.get_output_logical_tensors(), cpu());
    EXPECT_EQ(cp.get_backend_name(), "ref");
    EXPECT_EQ(cp.get_kernel_name(), "ref:quantize");
    const op d = valid_dequantize();
    EXPECT_EQ(single_partition(d)
                      .compile(d.get_input_logical_tensors(), d.get_output_logical_tensors(), cpu())
                      .get_kernel_name(),
            "ref:dequantize");
    const op y = valid_dynamic_quantize_linear();
    EXPECT_EQ(single_partition(y)
                      .compile(y.get_input_logical_tensors(), y.get_output_logical_tensors(), cpu())
                      .get_kernel_name(),
            "ref:dynamic_quantize_linear");
}

TEST(Config, BackendChoiceIsFixedAtCompile) {
    // A partition compiled under "ref" stays on ref after the choice changes.
    const op o = valid_quantize();
    qgraph::compiled_partition cp = [&] {
        backend_guard g("ref");
        return single_partition(o).compile(
                o.get_input_logical_tensors(), o.get_output_logical_tensors(), cpu());
    }();
    backend_guard g("");
    EXPECT_EQ(cp.get_backend_name(), "ref");
}

TEST(Config, ForcedBackendThatRejectsIsUnimplemented) {
    // DynamicQuantizeLinear needs a min/max pass no oneDNN reorder does: forcing dnnl fails
    // at compile with dnnl's reason, never silently falling back to ref.
    backend_guard g("dnnl");
    const op o = valid_dynamic_quantize_linear();
    qgraph::partition p = single_partition(o);
    EXPECT_QG_ERROR((p.compile(o.get_input_logical_tensors(), o.get_output_logical_tensors(), cpu())),
            status::unimplemented, "DynamicQuantizeLinear 'dyql' (id 0)", "no backend accepts",
            "dnnl: ");
}

/// Caps the JIT ISA for one test (restored after).
struct isa_guard {
    std::string old = qgraph::get_max_cpu_isa();
    explicit isa_guard(const std::string &cap) { qgraph::set_max_cpu_isa(cap); }
    ~isa_guard() { qgraph::set_max_cpu_isa(old); }
};

/// Turns the compiled-partition cache off for one test, so every compile prints its
/// dispatch lines (a cache hit prints none).
struct no_cache_guard {
    int old = qgraph::get_compiled_partition_cache_capacity();
    no_cache_guard() { qgraph::set_compiled_partition_cache_capacity(0); }
    ~no_cache_guard() { qgraph::set_compiled_partition_cache_capacity(old); }
};

TEST(Config, DefaultSelectionFallsBackToRef) {
    // With JIT kernels capped off, nothing but ref takes DynamicQuantizeLinear.
    backend_guard g("");
    isa_guard cap("none");
    const op o = valid_dynamic_quantize_linear();
    qgraph::compiled_partition cp = single_partition(o).compile(
            o.get_input_logical_tensors(), o.get_output_logical_tensors(), cpu());
    EXPECT_EQ(cp.get_backend_name(), "ref");
}

TEST(Config, VerboseLevels) {
    verbose_guard v(0);
    qgraph::set_verbose(2);
    EXPECT_EQ(qgraph::get_verbose(), 2);
    qgraph::set_verbose(-5);
    EXPECT_EQ(qgraph::get_verbose(), 0);
    qgraph::set_verbose(1);
    EXPECT_EQ(qgraph::get_verbose(), 1);
}

TEST(Config, VerboseZeroPrintsNothing) {
    verbose_guard v(0);
    backend_guard g("");
    testing::internal::CaptureStdout();
    compile_and_run(valid_quantize());
    const std::string out = testing::internal::GetCapturedStdout();
    EXPECT_TRUE(with_prefix(lines_of(out), "qgraph_verbose,").empty()) << out;
}

TEST(Config, VerboseOnePrintsCompileAndExecLines) {
    verbose_guard v(1);
    backend_guard g("ref");
    testing::internal::CaptureStdout();
    compile_and_run(valid_quantize());
    const std::string out = testing::internal::GetCapturedStdout();
    const std::vector<std::string> lines = lines_of(out);
    const std::vector<std::string> comp = with_prefix(lines, "qgraph_verbose,compile,");
    const std::vector<std::string> exec = with_prefix(lines, "qgraph_verbose,exec,");
    ASSERT_EQ(comp.size(), 1u) << out;
    ASSERT_EQ(exec.size(), 1u) << out;
    for (const std::string &l : {comp[0], exec[0]}) {
        EXPECT_TRUE(has(l, ",partition:")) << l;
        EXPECT_TRUE(has(l, ",op:Quantize,name:q,")) << l;
        EXPECT_TRUE(has(l, "backend:ref")) << l;
        EXPECT_TRUE(has(l, "kernel:ref:quantize")) << l;
        EXPECT_TRUE(has(l, "Quantize f32:u8 per_tensor 2x3")) << l;
    }
    // Level 1 does not print rejections.
    EXPECT_TRUE(with_prefix(lines, "qgraph_verbose,dispatch,").empty()) << out;
}

TEST(Config, VerboseOneWithDefaultSelection) {
    verbose_guard v(1);
    backend_guard g("");
    testing::internal::CaptureStdout();
    compile_and_run(valid_dynamic_quantize_linear());
    const std::string out = testing::internal::GetCapturedStdout();
    const std::vector<std::string> lines = lines_of(out);
    ASSERT_EQ(with_prefix(lines, "qgraph_verbose,compile,").size(), 1u) << out;
    ASSERT_EQ(with_prefix(lines, "qgraph_verbose,exec,").size(), 1u) << out;
    for (const std::string &l : lines)
        if (has(l, "qgraph_verbose,") && !has(l, "qgraph_verbose,info,")) {
            EXPECT_TRUE(has(l, "backend:")) << l;
            EXPECT_TRUE(has(l, "kernel:")) << l;
            EXPECT_FALSE(has(l, "rejected:")) << l;
        }
}

TEST(Config, VerboseTwoAddsRejections) {
    // With JIT kernels capped off, jit and then dnnl reject DynamicQuantizeLinear; level 2
    // prints why, in that order, before the compile line.
    verbose_guard v(2);
    backend_guard g("");
    isa_guard cap("none");
    no_cache_guard nc;
    testing::internal::CaptureStdout();
    compile_and_run(valid_dynamic_quantize_linear());
    const std::string out = testing::internal::GetCapturedStdout();
    // Without the info header (the first verbose output of the process starts with it).
    std::vector<std::string> lines;
    for (const std::string &l : with_prefix(lines_of(out), "qgraph_verbose,"))
        if (!has(l, "qgraph_verbose,info,")) lines.push_back(l);
    ASSERT_GE(lines.size(), 4u) << out;
    const std::vector<std::string> rej = with_prefix(lines, "qgraph_verbose,dispatch,");
    ASSERT_EQ(rej.size(), 2u) << out;
    EXPECT_TRUE(has(rej[0], "backend:jit")) << rej[0];
    EXPECT_TRUE(has(rej[0], "rejected:needs avx2")) << rej[0];
    EXPECT_TRUE(has(rej[1], "backend:dnnl")) << rej[1];
    for (const std::string &r : rej) {
        EXPECT_TRUE(has(r, "rejected:")) << r;
        EXPECT_TRUE(has(r, "DynamicQuantizeLinear")) << r;
    }
    EXPECT_EQ(lines[0], rej[0]) << "the rejections come before the compile line";
    EXPECT_EQ(lines[1], rej[1]) << "the rejections come before the compile line";
    const std::vector<std::string> comp = with_prefix(lines, "qgraph_verbose,compile,");
    ASSERT_EQ(comp.size(), 1u);
    EXPECT_TRUE(has(comp[0], "backend:ref")) << comp[0];
    EXPECT_TRUE(has(comp[0], "kernel:ref:dynamic_quantize_linear")) << comp[0];
}

TEST(Config, VerboseTwoForcedRefHasNoRejections) {
    verbose_guard v(2);
    backend_guard g("ref");
    testing::internal::CaptureStdout();
    compile_and_run(valid_dynamic_quantize_linear());
    const std::string out = testing::internal::GetCapturedStdout();
    EXPECT_TRUE(with_prefix(lines_of(out), "qgraph_verbose,dispatch,").empty()) << out;
    EXPECT_EQ(with_prefix(lines_of(out), "qgraph_verbose,compile,").size(), 1u) << out;
}

TEST(Config, VerboseExecLineNamesTheKernelThatRan) {
    // QuantizeLinear f32 -> u8 with a runtime zero point: a backend may compile a fast kernel
    // that hands calls it cannot do exactly (here: a nonzero zero point) to its fallback. The
    // compiled kernel name stays; the exec line names the kernel that ran.
    // dnnl is such a backend (the jit takes zero points itself), so it is forced here.
    verbose_guard v(1);
    backend_guard g("dnnl");
    const op o(0, op::kind::QuantizeLinear,
            {dense(1, dt::f32, {4}), dense(2, dt::f32, {}), dense(3, dt::u8, {})},
            {dense(4, dt::u8, {4})}, "ql");
    testing::internal::CaptureStdout();
    qgraph::compiled_partition cp = single_partition(o).compile(
            o.get_input_logical_tensors(), o.get_output_logical_tensors(), cpu());
    const std::string compile_out = testing::internal::GetCapturedStdout();
    const std::string compiled_kernel = cp.get_kernel_name();
    EXPECT_TRUE(has(compile_out, "kernel:" + compiled_kernel)) << compile_out;
    const buffer x = make_buffer(dense(1, dt::f32, {4}), std::vector<float> {1.f, 2.f, 3.f, 5.f});
    auto run = [&](float scale, uint8_t zp, std::vector<uint8_t> want) {
        const buffer s = make_buffer(dense(2, dt::f32, {}), std::vector<float> {scale});
        const buffer z = make_buffer(dense(3, dt::u8, {}), std::vector<uint8_t> {zp});
        buffer y(dense(4, dt::u8, {4}));
        qgraph::stream st(cpu());
        testing::internal::CaptureStdout();
        cp.execute(st, {x.as_tensor(), s.as_tensor(), z.as_tensor()}, {y.as_tensor()});
        const std::vector<std::string> lines
                = with_prefix(lines_of(testing::internal::GetCapturedStdout()), "qgraph_verbose,exec,");
        EXPECT_EQ(y.read<uint8_t>(), want);
        EXPECT_EQ(lines.size(), 1u);
        return lines.empty() ? std::string() : lines[0];
    };
    // scale 2, zp 0: 0.5 -> 0, 1, 1.5 -> 2, 2.5 -> 2.
    const std::string exact = run(2.f, 0, {0, 1, 2, 2});
    // scale 2, zp 3: rounding before the zero point: 3, 4, 5, 5 (not 4, 4, 5, 6).
    const std::string with_zp = run(2.f, 3, {3, 4, 5, 5});
    EXPECT_EQ(cp.get_kernel_name(), compiled_kernel); // unchanged by what ran
    if (compiled_kernel.rfind("ref:", 0) == 0) {
        EXPECT_TRUE(has(exact, "kernel:" + compiled_kernel)) << exact;
        EXPECT_TRUE(has(with_zp, "kernel:" + compiled_kernel)) << with_zp;
        return;
    }
    // A non-reference kernel: the zp = 3 call went to the reference.
    EXPECT_TRUE(has(with_zp, "backend:ref,kernel:ref:quantize")) << with_zp;
    EXPECT_TRUE(has(exact, "backend:" + cp.get_backend_name())) << exact;
}

/// Quantize f32 -> u8 of n elements (n picks a distinct compile request).
op quantize_of(int64_t n) {
    op o(0, op::kind::Quantize, {dense(1, dt::f32, {n})}, {dense(2, dt::u8, {n})}, "q");
    o.set_attr(op::attr::qtype, "per_tensor");
    o.set_attr(op::attr::scales, std::vector<float> {0.5f});
    o.set_attr(op::attr::zps, std::vector<int64_t> {0});
    return o;
}

TEST(Config, SettingsChangedDuringCompilesDoNotMixUpTheCache) {
    // Defect 1: a compile read the backend choice and the ISA cap once for its cache key and
    // again for dispatch (the jit backend read the global cap itself), so a set_backend or
    // set_max_cpu_isa from another thread in between cached a kernel under a key that does
    // not describe it, and later compiles under that setting got the wrong kernel. Here one
    // thread flips both settings while others compile; afterwards each setting is fixed and
    // every request must get a kernel that honours it, cached or not.
    if (qgraph::get_cpu_isa_levels().empty()) GTEST_SKIP() << "no avx2: jit never accepts";
    backend_guard g("");
    isa_guard cap("all");
    const int old_capacity = qgraph::get_compiled_partition_cache_capacity();
    qgraph::set_compiled_partition_cache_capacity(0); // empties it
    qgraph::set_compiled_partition_cache_capacity(1 << 16);
    std::vector<op> ops;
    for (int64_t n = 1; n <= 1000; ++n) ops.push_back(quantize_of(n));
    const auto compile = [](const op &o) {
        return single_partition(o).compile(
                o.get_input_logical_tensors(), o.get_output_logical_tensors(), cpu());
    };

    std::atomic<int> running {4};
    std::vector<std::thread> compilers;
    for (int t = 0; t < 4; ++t)
        compilers.emplace_back([&, t] {
            for (size_t i = 0; i < ops.size(); ++i) compile(ops[(i + 250 * t) % ops.size()]);
            --running;
        });
    std::thread flipper([&] {
        while (running > 0) {
            qgraph::set_backend("ref");
            qgraph::set_max_cpu_isa("none");
            qgraph::set_backend("");
            qgraph::set_max_cpu_isa("all");
        }
    });
    for (std::thread &t : compilers) t.join();
    flipper.join();

    struct setting {
        const char *backend, *isa;
    };
    for (const setting st : {setting {"", "all"}, setting {"", "none"}, setting {"ref", "all"},
                 setting {"ref", "none"}}) {
        qgraph::set_backend(st.backend);
        qgraph::set_max_cpu_isa(st.isa);
        int wrong = 0;
        for (const op &o : ops) {
            const qgraph::compiled_partition cp = compile(o);
            const std::string b = cp.get_backend_name();
            const bool ok = std::string(st.backend) == "ref" ? b == "ref"
                    : std::string(st.isa) == "none"          ? b != "jit"
                                                             : b == "jit";
            if (!ok && wrong++ == 0)
                ADD_FAILURE() << "backend \"" << st.backend << "\", cap " << st.isa << ": got "
                              << cp.get_kernel_name();
        }
        EXPECT_EQ(wrong, 0) << "of " << ops.size() << " requests";
    }
    qgraph::set_compiled_partition_cache_capacity(old_capacity);
}

TEST(Config, NamesOfEnums) {
    EXPECT_STREQ(qgraph::to_string(dt::f8_e4m3), "f8_e4m3");
    EXPECT_EQ(qgraph::data_type_from_string("s8"), dt::s8);
    EXPECT_EQ(qgraph::data_type_from_string("e8m0"), dt::e8m0);
    EXPECT_QG_ERROR(qgraph::data_type_from_string("int8"), status::invalid_data_type,
            "unknown data type \"int8\"");
    EXPECT_QG_ERROR(qgraph::data_type_from_string("undef"), status::invalid_data_type);
    EXPECT_EQ(qgraph::data_type_bits(dt::s4), 4u);
    EXPECT_EQ(qgraph::data_type_bits(dt::u8), 8u);
    EXPECT_EQ(qgraph::data_type_bits(dt::f32), 32u);
    EXPECT_EQ(qgraph::data_type_bits(dt::undef), 0u);
    EXPECT_EQ(qgraph::op_kind_from_string("DynamicQuantizeLinear"),
            op::kind::DynamicQuantizeLinear);
    EXPECT_EQ(qgraph::op_kind_from_string("MatMul"), op::kind::MatMul);
    EXPECT_QG_ERROR(qgraph::op_kind_from_string("Conv"), status::invalid_arguments, "\"Conv\"");
    EXPECT_TRUE(qgraph::is_quantization_op(op::kind::DynamicQuantizeLinear));
    EXPECT_TRUE(qgraph::is_quantization_op(op::kind::Quantize));
    EXPECT_FALSE(qgraph::is_quantization_op(op::kind::Abs));
    EXPECT_EQ(qgraph::fpmath_mode_from_string("tf32"), qgraph::fpmath_mode::tf32);
    EXPECT_QG_ERROR(qgraph::fpmath_mode_from_string("fast"), status::invalid_arguments, "fast");
    EXPECT_STREQ(qgraph::to_string(status::invalid_graph_op), "invalid_graph_op");
}

TEST(Config, LogicalTensorBasics) {
    const lt d = dense(3, dt::s32, {2, 0, 4});
    EXPECT_EQ(d.get_element_num(), 0);
    EXPECT_EQ(d.get_mem_size(), 0u);
    EXPECT_EQ(d.get_strides(), (dims {4, 4, 1})); // a zero dim keeps later strides meaningful
    const lt z = dense(4, dt::f32, {});
    EXPECT_EQ(z.get_element_num(), 1);
    EXPECT_EQ(z.get_mem_size(), 4u);
    const lt p = strided(5, dt::u8, {2, 3}, {8, 2});
    EXPECT_EQ(p.get_mem_size(), 8u + 4u + 1u); // last element at 1*8 + 2*2 = 12
    EXPECT_EQ(unknown(6, dt::f32).get_ndims(), lt::unknown_ndims);
    EXPECT_QG_ERROR(unknown(6, dt::f32).get_element_num(), status::invalid_shape,
            "logical tensor 6: shape is not known");
    EXPECT_TRUE(d.is_equal(dense(3, dt::s32, {2, 0, 4})));
    EXPECT_FALSE(d.is_equal(dense(3, dt::s32, {2, 0, 5})));
    EXPECT_EQ(dense(7, dt::s4, {3}).get_mem_size(), 2u); // 12 bits -> 2 bytes
}

} // namespace
