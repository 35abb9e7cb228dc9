#ifndef QGRAPH_TESTS_API_HELPERS_HPP
#define QGRAPH_TESTS_API_HELPERS_HPP

// Small helpers shared by the core tests: logical tensors, guarded buffers laid out by strides,
// one-op graphs run end to end, backend selection, and error expectations.
// Public API only (the header is used by tests linked against the shared library).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "api/isa_threads.hpp"
#include "qgraph/qgraph.hpp"

namespace qtest {

using lt = qgraph::logical_tensor;
using dt = qgraph::data_type;
using dims = lt::dims;
using layout = lt::layout_type;
using qgraph::op;
using qgraph::status;

inline qgraph::engine cpu() { return qgraph::engine(qgraph::engine::kind::cpu, 0); }

/// Dense row-major strided tensor.
inline lt dense(size_t id, dt t, const dims &d) { return lt(id, t, d, layout::strided); }
/// Explicit strides (elements).
inline lt strided(size_t id, dt t, const dims &d, const dims &s) { return lt(id, t, d, s); }
/// Layout any, known shape.
inline lt any(size_t id, dt t, const dims &d) { return lt(id, t, d, layout::any); }
/// Shape unknown (inferred by the graph).
inline lt unknown(size_t id, dt t) { return lt(id, t, layout::strided); }

/// Row-major product of dims.
inline int64_t nelems(const dims &d) {
    int64_t n = 1;
    for (int64_t x : d) n *= x;
    return n;
}

/// Element offsets (from the strides) of every element, in logical row-major order.
inline std::vector<int64_t> offsets(const lt &t) {
    const dims &d = t.get_dims();
    const dims &s = t.get_strides();
    const int64_t n = nelems(d);
    std::vector<int64_t> off;
    off.reserve(static_cast<size_t>(n));
    std::vector<int64_t> idx(d.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
        int64_t o = 0;
        for (size_t k = 0; k < d.size(); ++k) o += idx[k] * s[k];
        off.push_back(o);
        for (size_t k = d.size(); k-- > 0;) {
            if (++idx[k] < d[k]) break;
            idx[k] = 0;
        }
    }
    return off;
}

/// Index along `axis` (already in [0, rank)) of the element at logical row-major position i.
inline int64_t channel_of(const dims &d, int axis, int64_t i) {
    if (axis < 0) return 0;
    int64_t inner = 1;
    for (size_t k = static_cast<size_t>(axis) + 1; k < d.size(); ++k) inner *= d[k];
    return (i / inner) % d[static_cast<size_t>(axis)];
}

/// Memory for one logical tensor (get_mem_size() bytes) between two 64-byte guard zones.
/// Bytes the layout does not cover (padding) keep the fill value, so tests can check that
/// nothing wrote them.
class buffer {
public:
    static constexpr size_t guard = 64;
    static constexpr unsigned char guard_byte = 0x5C;

    buffer() = default;
    explicit buffer(const lt &desc, unsigned char fill = 0xA5)
        : desc_(desc), size_(desc.get_mem_size()), storage_(size_ + 2 * guard, fill) {
        std::memset(storage_.data(), guard_byte, guard);
        std::memset(storage_.data() + guard + size_, guard_byte, guard);
    }

    const lt &desc() const { return desc_; }
    size_t size() const { return size_; }
    /// Null for an empty tensor (0 bytes).
    void *data() const {
        return size_ ? const_cast<unsigned char *>(storage_.data()) + guard : nullptr;
    }
    qgraph::tensor as_tensor() const { return qgraph::tensor(desc_, cpu(), data()); }
    std::vector<unsigned char> bytes() const {
        return std::vector<unsigned char>(
                storage_.begin() + guard, storage_.begin() + guard + size_);
    }
    bool guards_intact() const {
        for (size_t i = 0; i < guard; ++i)
            if (storage_[i] != guard_byte || storage_[guard + size_ + i] != guard_byte)
                return false;
        return true;
    }

    /// Writes `v` (logical row-major order) through the strides.
    template <typename T>
    buffer &fill(const std::vector<T> &v) {
        const std::vector<int64_t> off = offsets(desc_);
        EXPECT_EQ(off.size(), v.size()) << "values for logical tensor " << desc_.get_id();
        for (size_t i = 0; i < off.size() && i < v.size(); ++i)
            std::memcpy(static_cast<unsigned char *>(data()) + off[i] * sizeof(T), &v[i],
                    sizeof(T));
        return *this;
    }
    /// Reads every element in logical row-major order.
    template <typename T>
    std::vector<T> read() const {
        std::vector<T> v;
        for (int64_t o : offsets(desc_)) {
            T x;
            std::memcpy(&x, static_cast<const unsigned char *>(data()) + o * sizeof(T),
                    sizeof(T));
            v.push_back(x);
        }
        return v;
    }

private:
    lt desc_;
    size_t size_ = 0;
    std::vector<unsigned char> storage_;
};

template <typename T>
buffer make_buffer(const lt &desc, const std::vector<T> &v) {
    buffer b(desc);
    b.fill(v);
    return b;
}

/// Forces a backend for its lifetime ("" = default selection), then restores the old choice.
class backend_guard {
public:
    explicit backend_guard(const std::string &name) : old_(qgraph::get_backend()) {
        qgraph::set_backend(name);
    }
    ~backend_guard() {
        try {
            qgraph::set_backend(old_);
        } catch (const qgraph::error &) {
            // The old choice came from a QGRAPH_BACKEND naming no backend; set_backend
            // cannot restore it.
            qgraph::set_backend("");
        }
    }
    backend_guard(const backend_guard &) = delete;
    backend_guard &operator=(const backend_guard &) = delete;

private:
    std::string old_;
};

/// The only partition of a graph holding just `o`.
inline qgraph::partition single_partition(const op &o) {
    qgraph::graph g(qgraph::engine::kind::cpu);
    g.add_op(o);
    g.finalize();
    std::vector<qgraph::partition> parts = g.get_partitions();
    EXPECT_EQ(parts.size(), 1u);
    return parts.at(0);
}

inline std::vector<lt> descs(const std::vector<buffer> &bufs) {
    std::vector<lt> v;
    for (const buffer &b : bufs) v.push_back(b.desc());
    return v;
}

inline std::vector<qgraph::tensor> tensors(const std::vector<buffer> &bufs) {
    std::vector<qgraph::tensor> v;
    for (const buffer &b : bufs) v.push_back(b.as_tensor());
    return v;
}

struct run_result {
    std::vector<buffer> outputs;
    std::string backend;
    std::string kernel;
};

/// Adds `o` to a graph of its own, compiles its partition for the buffers' logical tensors
/// and executes it once. Checks that the inputs are unchanged (bytes and guards) and that no
/// output guard zone was written.
inline run_result run_op(
        const op &o, const std::vector<buffer> &inputs, std::vector<buffer> outputs) {
    qgraph::partition p = single_partition(o);
    EXPECT_TRUE(p.is_supported()) << p.get_unsupported_reason();
    qgraph::compiled_partition cp = p.compile(descs(inputs), descs(outputs), cpu());
    std::vector<std::vector<unsigned char>> before;
    for (const buffer &b : inputs) before.push_back(b.bytes());
    qgraph::stream s(cpu());
    cp.execute(s, tensors(inputs), tensors(outputs));
    s.wait();
    for (size_t i = 0; i < inputs.size(); ++i) {
        EXPECT_EQ(before[i], inputs[i].bytes()) << "input " << i << " was modified";
        EXPECT_TRUE(inputs[i].guards_intact()) << "input " << i;
    }
    for (size_t i = 0; i < outputs.size(); ++i)
        EXPECT_TRUE(outputs[i].guards_intact()) << "output " << i << " written out of bounds";
    return {std::move(outputs), cp.get_backend_name(), cp.get_kernel_name()};
}

/// run_op on zero-filled inputs and fresh outputs of o's own logical tensors.
inline run_result compile_and_run(const op &o) {
    std::vector<buffer> in;
    for (const lt &t : o.get_input_logical_tensors()) in.emplace_back(t, 0);
    std::vector<buffer> out;
    for (const lt &t : o.get_output_logical_tensors()) out.emplace_back(t);
    return run_op(o, in, out);
}

/// run_op with a forced backend ("" = default selection).
inline run_result run_op_on(const std::string &backend, const op &o,
        const std::vector<buffer> &inputs, const std::vector<buffer> &outputs) {
    backend_guard g(backend);
    return run_op(o, inputs, outputs);
}

/// o forced on the jit and on the reference backend with inputs `in`: the jit takes it,
/// and its first output (padding bytes included) is bit-identical to the reference's.
inline void expect_jit_matches_ref(const op &o, const std::vector<buffer> &in) {
    const std::vector<buffer> out {buffer(o.get_output_logical_tensors()[0])};
    const run_result jit = run_op_on("jit", o, in, out);
    const run_result ref = run_op_on("ref", o, in, out);
    EXPECT_EQ(jit.backend, "jit");
    EXPECT_EQ(jit.outputs[0].bytes(), ref.outputs[0].bytes());
}

/// expect_jit_matches_ref at every ISA level and 1 and 2 threads, traced with `what`.
inline void expect_jit_matches_ref_everywhere(
        const op &o, const std::vector<buffer> &in, const std::string &what) {
    at_every_isa_and_thread_count([&] {
        SCOPED_TRACE(what);
        expect_jit_matches_ref(o, in);
    });
}

/// Runs with the default selection and with the reference backend; every output (padding
/// bytes included) must be bit-identical. Returns the reference run.
inline run_result run_default_and_ref(
        const op &o, const std::vector<buffer> &inputs, const std::vector<buffer> &outputs) {
    run_result dflt = run_op_on("", o, inputs, outputs);
    run_result ref = run_op_on("ref", o, inputs, outputs);
    EXPECT_EQ(ref.backend, "ref");
    for (size_t i = 0; i < outputs.size(); ++i)
        EXPECT_EQ(dflt.outputs[i].bytes(), ref.outputs[i].bytes())
                << "output " << i << ": backend " << dflt.backend << " (" << dflt.kernel
                << ") differs from ref";
    return ref;
}

/// Bitwise float equality (NaN payloads aside: any NaN equals any NaN).
inline bool same_float(float a, float b) {
    if (a != a && b != b) return true;
    uint32_t ua, ub;
    std::memcpy(&ua, &a, 4);
    std::memcpy(&ub, &b, 4);
    return ua == ub;
}

inline uint32_t bits_of(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}

/// The float with bit pattern b (NaN payloads included).
inline float float_of(uint32_t b) {
    float f;
    std::memcpy(&f, &b, sizeof(f));
    return f;
}

/// ONNX QuantizeLinear (opset 25) of `ins` (x, the scale) into the float8 type y (f8_e4m3,
/// ONNX's e4m3fn, or f8_e5m2) of shape x, saturating as `saturate` says; output id 3.
inline op float8_quantize_linear(const std::vector<lt> &ins, dt y, const dims &x, int saturate) {
    op o(0, op::kind::QuantizeLinear, ins, {dense(3, y, x)}, "q");
    o.set_attr<int64_t>("opset", 25);
    o.set_attr<int64_t>("output_dtype", y == dt::f8_e4m3 ? 17 : 19);
    o.set_attr<int64_t>("saturate", saturate);
    return o;
}

/// Calls f and checks it throws qgraph::error with `st` and every fragment in what().
template <typename F>
void check_error(F &&f, status st, std::initializer_list<std::string> fragments) {
    try {
        f();
    } catch (const qgraph::error &e) {
        EXPECT_EQ(e.status(), st) << "got " << qgraph::to_string(e.status()) << ": "
                                  << e.what();
        const std::string msg = e.what();
        for (const std::string &frag : fragments)
            EXPECT_NE(msg.find(frag), std::string::npos)
                    << "message lacks \"" << frag << "\": " << msg;
        return;
    } catch (const std::exception &e) {
        ADD_FAILURE() << "threw a non-qgraph exception: " << e.what();
        return;
    }
    ADD_FAILURE() << "did not throw (expected " << qgraph::to_string(st) << ")";
}

/// Compiling `o` with the jit backend forced fails (unimplemented) with a reason that
/// contains `why`; the default selection runs it, bit for bit as ref does.
inline void expect_ref_with_reason(
        const op &o, const std::vector<buffer> &in, const std::string &why) {
    const std::vector<buffer> out {buffer(o.get_output_logical_tensors()[0])};
    run_default_and_ref(o, in, out);
    qgraph::partition p = single_partition(o);
    backend_guard g("jit");
    check_error([&] { p.compile(descs(in), descs(out), cpu()); }, status::unimplemented, {why});
}

} // namespace qtest

/// EXPECT_QG_ERROR(statement, status::x, "fragment", ...): the statement throws qgraph::error
/// with that status and a message holding every fragment.
#define EXPECT_QG_ERROR(stmt, st, ...) \
    do { \
        SCOPED_TRACE(#stmt); \
        ::qtest::check_error([&] { stmt; }, st, {__VA_ARGS__}); \
    } while (0)

#endif
