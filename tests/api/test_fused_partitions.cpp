// Partitions of several ops: which chains the fusion policy fuses and which it must leave
// apart, their external ports, the compile loop over a chain, and fused results against the
// same ops run one partition each (the debug policy) on the reference backend, bit for bit,
// at every ISA level and at 1 and 2 threads.

#include <gtest/gtest.h>

#include <limits>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "api/helpers.hpp"
#include "api/isa_threads.hpp"

namespace {

using namespace qtest;
using qgraph::graph;
using policy = graph::partition_policy;

/// oneDNN Dequantize / Quantize with attribute parameters: per-tensor when axis < 0.
op static_op(op::kind k, size_t id, const lt &in, const lt &out, int axis,
        const std::vector<float> &scales, const std::vector<int64_t> &zps) {
    op o(id, k, {in}, {out}, "op" + std::to_string(id));
    o.set_attr(op::attr::qtype, std::string(axis < 0 ? "per_tensor" : "per_channel"));
    if (axis >= 0) o.set_attr(op::attr::axis, int64_t(axis));
    o.set_attr(op::attr::scales, scales);
    o.set_attr(op::attr::zps, zps);
    return o;
}

/// Ops with parameter tensors (DynamicQuantize/DynamicDequantize, QuantizeLinear /
/// DequantizeLinear): scales and zero points are inputs `sid` and `zid`.
op tensor_op(op::kind k, size_t id, const lt &in, const lt &scales, const lt &zps, const lt &out,
        int axis) {
    op o(id, k, {in, scales, zps}, {out}, "op" + std::to_string(id));
    const bool onnx = k == op::kind::QuantizeLinear || k == op::kind::DequantizeLinear;
    if (!onnx) o.set_attr(op::attr::qtype, std::string(axis < 0 ? "per_tensor" : "per_channel"));
    if (axis >= 0) o.set_attr(op::attr::axis, int64_t(axis));
    return o;
}

/// A graph and the data of its inputs.
struct graph_case {
    std::vector<op> ops;
    std::vector<buffer> inputs;
    std::vector<size_t> outputs;
};

struct graph_run {
    std::map<size_t, std::vector<unsigned char>> outputs;
    size_t partitions = 0;
};

/// Runs every partition in order with docs/api.md's compile loop: each compiled for its own
/// ports (graph inputs for their buffers' logical tensors, which may be strided), outputs
/// allocated from query_logical_tensor.
graph_run run_graph(const graph_case &c, policy pol) {
    graph g(qgraph::engine::kind::cpu);
    for (const op &o : c.ops) g.add_op(o);
    g.finalize();
    std::map<size_t, buffer> bufs;
    for (const buffer &b : c.inputs) bufs[b.desc().get_id()] = b;
    const std::vector<qgraph::partition> parts = g.get_partitions(pol);
    qgraph::stream strm(cpu());
    for (const qgraph::partition &p : parts) {
        EXPECT_TRUE(p.is_supported()) << p.get_unsupported_reason();
        std::vector<lt> ins = p.get_input_ports();
        for (lt &t : ins)
            for (const buffer &b : c.inputs)
                if (b.desc().get_id() == t.get_id()) t = b.desc();
        const qgraph::compiled_partition cp = p.compile(ins, p.get_output_ports(), cpu());
        std::vector<qgraph::tensor> in_t, out_t;
        for (const lt &t : cp.get_input_logical_tensors())
            in_t.push_back(bufs.at(t.get_id()).as_tensor());
        for (const lt &t : cp.get_output_logical_tensors()) {
            bufs[t.get_id()] = buffer(cp.query_logical_tensor(t.get_id()));
            out_t.push_back(bufs[t.get_id()].as_tensor());
        }
        cp.execute(strm, in_t, out_t);
    }
    graph_run r;
    r.partitions = parts.size();
    for (size_t id : c.outputs) {
        EXPECT_TRUE(bufs.at(id).guards_intact()) << "output " << id << " written out of bounds";
        r.outputs[id] = bufs.at(id).bytes();
    }
    return r;
}

/// The fused run equals the unfused chain on ref at every ISA level and thread count, and
/// the chain is one partition.
void expect_fused_exact(const graph_case &c) {
    graph_run want;
    {
        backend_guard ref("ref");
        want = run_graph(c, policy::debug);
    }
    EXPECT_EQ(want.partitions, c.ops.size());
    at_every_isa_and_thread_count([&] {
        const graph_run fused = run_graph(c, policy::fusion);
        EXPECT_EQ(fused.partitions, 1u);
        EXPECT_TRUE(fused.outputs == want.outputs) << "fused differs from the ops one by one";
        const graph_run debug = run_graph(c, policy::debug);
        EXPECT_TRUE(debug.outputs == want.outputs) << "debug differs from ref";
    });
}

int64_t count(const dims &d) {
    int64_t n = 1;
    for (int64_t x : d) n *= x;
    return n;
}

/// u8 values cycling through all 256, so every quantized value meets every parameter set.
std::vector<uint8_t> all_u8(int64_t n) {
    std::vector<uint8_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i)
        v[static_cast<size_t>(i)] = static_cast<uint8_t>(i * 37 + i / 256);
    return v;
}

/// f32 values at and next to the ties of x / s for s = 0.25 .. 2: (k + 1/2) * s and its
/// neighbours, plus values that saturate and NaN.
std::vector<float> ties_f32(int64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const float s = 0.25f * static_cast<float>(1 + i % 8);
        const float tie = (static_cast<float>((i / 8) % 300) - 150.f + 0.5f) * s;
        switch (i % 5) {
            case 0: v[static_cast<size_t>(i)] = tie; break;
            case 1: v[static_cast<size_t>(i)] = std::nextafter(tie, 1e9f); break;
            case 2: v[static_cast<size_t>(i)] = std::nextafter(tie, -1e9f); break;
            case 3: v[static_cast<size_t>(i)] = tie * 0.1f; break;
            default: v[static_cast<size_t>(i)] = i % 7 == 0 ? NAN : tie * 3.f; break;
        }
    }
    return v;
}

/// Per-channel parameters for c channels whose products and quotients are not exact: folding
/// the two scales into one, or adding the zero point before rounding, changes results.
/// Periods 11 for a first op's and 7 for a second op's, so no two channels of a chain have
/// the same ratio of scales.
std::vector<float> scales_for(int64_t c, float base, int64_t period = 11) {
    std::vector<float> s;
    for (int64_t i = 0; i < c; ++i)
        s.push_back(base * (1.f + 0.37f * static_cast<float>(i % period)));
    return s;
}
std::vector<int64_t> zps_for(int64_t c, int64_t lo) {
    std::vector<int64_t> z;
    for (int64_t i = 0; i < c; ++i) z.push_back(lo + i % 9);
    return z;
}

/// Dequantize (u8, axis ax1) -> Quantize (s8, axis ax2); -1: per-tensor. The intermediate is
/// `mid` (f32, bf16 or f16).
graph_case requantize(
        const dims &d, int ax1, int ax2, const lt *src = nullptr, dt mid = dt::f32) {
    const int64_t c1 = ax1 < 0 ? 1 : d[static_cast<size_t>(ax1)];
    const int64_t c2 = ax2 < 0 ? 1 : d[static_cast<size_t>(ax2)];
    const lt x = src ? *src : dense(0, dt::u8, d);
    graph_case c;
    c.ops.push_back(static_op(op::kind::Dequantize, 0, x, lt(1, mid, d, layout::any), ax1,
            scales_for(c1, 0.1f), zps_for(c1, 120)));
    c.ops.push_back(static_op(op::kind::Quantize, 1, lt(1, mid, d, layout::any),
            lt(2, dt::s8, d, layout::any), ax2, scales_for(c2, 0.3f, 7), zps_for(c2, -4)));
    c.inputs.push_back(make_buffer(x, all_u8(count(d))));
    c.outputs = {2};
    return c;
}

/// The parameters of a fake-quantize chain: the quantized type, each op's zero point (the
/// first of zps_for's cycle) and scale base.
struct fq_params {
    dt qdt = dt::u8;
    int64_t zq = 100, zd = 100;
    float sq = 0.25f, sd = 0.25f;
    dt to = dt::f32; ///< the dequantize's destination
};

/// Quantize (f32 -> qdt, axis ax) -> Dequantize (qdt -> f32, same axis): fake quantize.
graph_case fake_quantize(const dims &d, int ax, const fq_params &f = {}) {
    const int64_t ch = ax < 0 ? 1 : d[static_cast<size_t>(ax)];
    graph_case c;
    c.ops.push_back(static_op(op::kind::Quantize, 0, dense(0, dt::f32, d),
            lt(1, f.qdt, d, layout::any), ax, scales_for(ch, f.sq), zps_for(ch, f.zq)));
    c.ops.push_back(static_op(op::kind::Dequantize, 1, lt(1, f.qdt, d, layout::any),
            lt(2, f.to, d, layout::any), ax, scales_for(ch, f.sd, 7), zps_for(ch, f.zd)));
    std::vector<float> x = ties_f32(count(d));
    // Infinities, signed zeros and values far beyond the range, among the ties.
    const float edges[] = {INFINITY, -INFINITY, -0.f, 0.f, 1e30f, -1e30f, 3e9f, -3e9f};
    for (size_t i = 3; i < x.size(); i += 13) x[i] = edges[(i / 13) % 8];
    c.inputs.push_back(make_buffer(dense(0, dt::f32, d), x));
    c.outputs = {2};
    return c;
}

/// A chain of two ops with parameter tensors: `first` (src `sdt` -> `mid`), `second`
/// (mid -> `ddt`), axes as in requantize.
graph_case tensor_chain(op::kind first, op::kind second, dt sdt, dt mid, dt ddt, const dims &d,
        int ax1, int ax2) {
    const int64_t c1 = ax1 < 0 ? 1 : d[static_cast<size_t>(ax1)];
    const int64_t c2 = ax2 < 0 ? 1 : d[static_cast<size_t>(ax2)];
    const bool onnx = first == op::kind::QuantizeLinear || first == op::kind::DequantizeLinear;
    const auto pdims = [&](int64_t n) { return onnx && n == 1 ? dims {} : dims {n}; };
    const bool first_q = first == op::kind::QuantizeLinear || first == op::kind::DynamicQuantize;
    const dt zp1 = first_q ? mid : sdt, zp2 = first_q ? mid : ddt;
    const lt x = dense(0, sdt, d), s1 = dense(10, dt::f32, pdims(c1)),
             z1 = dense(11, zp1, pdims(c1)), s2 = dense(20, dt::f32, pdims(c2)),
             z2 = dense(21, zp2, pdims(c2));
    graph_case c;
    c.ops.push_back(tensor_op(first, 0, x, s1, z1, lt(1, mid, d, layout::any), ax1));
    c.ops.push_back(tensor_op(second, 1, lt(1, mid, d, layout::any), s2, z2,
            lt(2, ddt, d, layout::any), ax2));
    if (sdt == dt::f32) {
        c.inputs.push_back(make_buffer(x, ties_f32(count(d))));
    } else { // the bytes, whatever the element size (two u4 elements a byte)
        buffer b(x);
        const std::vector<uint8_t> v = all_u8(static_cast<int64_t>(b.size()));
        if (!v.empty()) std::memcpy(b.data(), v.data(), v.size());
        c.inputs.push_back(b);
    }
    const auto zp_buf = [](const lt &t, int64_t n, int64_t lo) {
        std::vector<uint8_t> z;
        for (int64_t v : zps_for(n, lo)) z.push_back(static_cast<uint8_t>(v));
        if (data_type_bits(t.get_data_type()) < 8) { // packed: one small value in byte 0
            buffer b(t, 0);
            std::memcpy(b.data(), z.data(), 1);
            return b;
        }
        return make_buffer(t, z); // u8 or s8: the same bytes for these small values
    };
    const float base1 = first_q ? 0.25f : 0.1f, base2 = first_q ? 0.25f : 0.3f;
    c.inputs.push_back(make_buffer(s1, scales_for(c1, base1)));
    c.inputs.push_back(zp_buf(z1, c1, first_q ? 100 : 120));
    c.inputs.push_back(make_buffer(s2, scales_for(c2, base2, 7)));
    c.inputs.push_back(zp_buf(z2, c2, first_q ? 100 : 4));
    c.outputs = {2};
    return c;
}

/// f32 values for a chain that rounds them to `half` (bf16 or f16) first: ties_f32's, with
/// every third one moved onto a tie of that rounding or next to it (the dropped bits exactly
/// half, or one either side), plus values that overflow `half` and +-Inf.
std::vector<float> half_ties_f32(int64_t n, dt half) {
    std::vector<float> v = ties_f32(n);
    const uint32_t drop = half == dt::bf16 ? 16 : 13; // mantissa bits the rounding drops
    const uint32_t tie = 1u << (drop - 1), mask = (1u << drop) - 1;
    for (size_t i = 0; i < v.size(); ++i) {
        uint32_t b = bits_of(v[i]);
        if (std::isnan(v[i])) continue;
        switch (i % 9) {
            case 0: b = (b & ~mask) | tie; break;
            case 3: b = (b & ~mask) | (tie - 1); break;
            case 6: b = (b & ~mask) | (tie + 1); break;
            case 7: b = i % 2 ? 0x7f800000u : 0xff800000u; break; // +-Inf
            case 8: b = i % 4 == 0 ? 0x477ff000u : b; break; // 65520: f16 Inf
            default: break;
        }
        std::memcpy(&v[i], &b, sizeof(b));
    }
    return v;
}

/// scales_for's scales in a tensor of f32, or of bf16 (each f32 cut to its top half: the
/// bf16 value is what the op reads, whatever it was cut from).
buffer scale_buffer(const lt &t, int64_t c, float base, int64_t period) {
    const std::vector<float> s = scales_for(c, base, period);
    if (t.get_data_type() == dt::f32) return make_buffer(t, s);
    std::vector<uint16_t> h;
    for (float f : s) h.push_back(static_cast<uint16_t>(bits_of(f) >> 16));
    return make_buffer(t, h);
}

/// The parameter tensors' shape for c entries: ONNX takes a 0-D per-tensor scale.
dims param_dims(op::kind k, int64_t c) {
    const bool onnx = k == op::kind::QuantizeLinear || k == op::kind::DequantizeLinear;
    return onnx && c == 1 ? dims {} : dims {c};
}

/// Zero points `lo`, `lo + 1`, ... (zps_for's) in a u8 or s8 tensor.
buffer zp_buffer(const lt &t, int64_t c, int64_t lo) {
    std::vector<uint8_t> z;
    for (int64_t v : zps_for(c, lo)) z.push_back(static_cast<uint8_t>(v));
    return make_buffer(t, z);
}

/// TypeCast (f32 -> `half`) -> `qk` (Quantize, QuantizeLinear or DynamicQuantize; `half` ->
/// `qdt`), parameters along `ax` (-1: per-tensor), a scale tensor of type `sdt`.
graph_case typecast_quantize(
        op::kind qk, dt half, dt qdt, const dims &d, int ax, dt sdt = dt::f32) {
    const int64_t ch = ax < 0 ? 1 : d[static_cast<size_t>(ax)];
    const int64_t zlo = qdt == dt::u8 ? 101 : -5; // odd: adding it before rounding shows
    const lt x = dense(0, dt::f32, d), mid(1, half, d, layout::any), y(2, qdt, d, layout::any);
    graph_case c;
    c.ops.push_back(op(0, op::kind::TypeCast, {x}, {mid}, "cast"));
    c.inputs.push_back(make_buffer(x, half_ties_f32(count(d), half)));
    if (qk == op::kind::Quantize) {
        c.ops.push_back(static_op(qk, 1, mid, y, ax, scales_for(ch, 0.25f, 7), zps_for(ch, zlo)));
    } else {
        const lt s = dense(10, sdt, param_dims(qk, ch)), z = dense(11, qdt, param_dims(qk, ch));
        c.ops.push_back(tensor_op(qk, 1, mid, s, z, y, ax));
        c.inputs.push_back(scale_buffer(s, ch, 0.25f, 7));
        c.inputs.push_back(zp_buffer(z, ch, zlo));
    }
    c.outputs = {2};
    return c;
}

/// `dk` (Dequantize, DequantizeLinear or DynamicDequantize; u8 -> f32, parameters along
/// `ax`, scales from `base`) -> TypeCast (f32 -> `half`).
graph_case dequantize_typecast(
        op::kind dk, dt half, const dims &d, int ax, float base = 0.1f) {
    const int64_t ch = ax < 0 ? 1 : d[static_cast<size_t>(ax)];
    const lt x = dense(0, dt::u8, d), mid(1, dt::f32, d, layout::any), y(2, half, d, layout::any);
    graph_case c;
    c.inputs.push_back(make_buffer(x, all_u8(count(d))));
    if (dk == op::kind::Dequantize) {
        c.ops.push_back(static_op(dk, 0, x, mid, ax, scales_for(ch, base), zps_for(ch, 121)));
    } else {
        const lt s = dense(10, dt::f32, param_dims(dk, ch)),
                 z = dense(11, dt::u8, param_dims(dk, ch));
        c.ops.push_back(tensor_op(dk, 0, x, s, z, mid, ax));
        c.inputs.push_back(scale_buffer(s, ch, base, 11));
        c.inputs.push_back(zp_buffer(z, ch, 121));
    }
    c.ops.push_back(op(1, op::kind::TypeCast, {mid}, {y}, "cast"));
    c.outputs = {2};
    return c;
}

const std::vector<dims> &shapes() {
    // 1x64x56x56: blocks of whole channels, no tail; 3x7x50x50: a shorter last chunk;
    // 2x20000: a row cut into chunks; 5: one small block.
    static const std::vector<dims> v {{1, 64, 56, 56}, {3, 7, 50, 50}, {2, 20000}, {5}};
    return v;
}

/// The per-channel axes worth trying on d: per-tensor, the outermost non-batch, the last.
std::vector<int> axes(const dims &d) {
    if (d.size() == 1) return {-1, 0};
    return {-1, 1, static_cast<int>(d.size()) - 1};
}

TEST(FusedPartitions, RequantizeStaticEveryAxisPair) {
    for (const dims &d : shapes())
        for (int a1 : axes(d))
            for (int a2 : axes(d)) {
                SCOPED_TRACE("shape " + std::to_string(d.size()) + "-D, axes "
                        + std::to_string(a1) + "/" + std::to_string(a2) + " dim0 "
                        + std::to_string(d[0]));
                expect_fused_exact(requantize(d, a1, a2));
            }
}

TEST(FusedPartitions, RequantizeThroughHalfTypes) {
    // A bf16 or f16 intermediate: the dequantize rounds to it, the quantize reads it back.
    for (dt mid : {dt::bf16, dt::f16})
        for (const dims &d : {dims {3, 7, 50, 50}, dims {2, 20000}})
            for (int a : {-1, 1}) expect_fused_exact(requantize(d, a, a, nullptr, mid));
}

TEST(FusedPartitions, FakeQuantizeStatic) {
    for (const dims &d : shapes())
        for (int a : axes(d)) {
            SCOPED_TRACE("axis " + std::to_string(a) + " dim0 " + std::to_string(d[0]));
            expect_fused_exact(fake_quantize(d, a));
        }
}

TEST(FusedPartitions, FakeQuantizeZeroPointLimitsAndTileEdges) {
    // Zero points at the quantized type's limits (zps_for adds up to 8 along a channel, so the
    // limits sit at the channel cycle's ends), scales that differ between the two ops so that
    // folding them shows, odd zero points so that adding them before rounding shows; f16
    // results that overflow (jit) and bf16 ones (a chain of the two ops).
    const fq_params cases[] = {{dt::u8, 0, 247, 0.25f, 0.3f}, {dt::u8, 247, 0, 0.3f, 0.25f},
            {dt::u8, 101, 3, 0.7f, 1.1f}, {dt::s8, -128, 119, 0.25f, 0.3f},
            {dt::s8, 119, -128, 0.3f, 0.25f}, {dt::s8, -5, 3, 2.f, 0.1f},
            {dt::u8, 7, 247, 0.3f, 700.f, dt::f16}, {dt::s8, -5, 3, 2.f, 0.1f, dt::bf16}};
    std::vector<dims> sizes {{3, 7, 50, 50}};
    for (int64_t n : {1, 15, 16, 17, 63, 64, 65, 1000}) sizes.push_back({n});
    for (const fq_params &f : cases)
        for (const dims &d : sizes)
            for (int a : axes(d)) {
                SCOPED_TRACE(std::string(qgraph::to_string(f.qdt)) + " zps "
                        + std::to_string(f.zq) + "/" + std::to_string(f.zd) + " axis "
                        + std::to_string(a) + " dim0 " + std::to_string(d[0]));
                expect_fused_exact(fake_quantize(d, a, f));
            }
}

TEST(FusedPartitions, RequantizeDynamic) {
    for (const dims &d : shapes())
        for (int a1 : axes(d))
            for (int a2 : axes(d)) {
                SCOPED_TRACE("axes " + std::to_string(a1) + "/" + std::to_string(a2));
                expect_fused_exact(tensor_chain(op::kind::DynamicDequantize,
                        op::kind::DynamicQuantize, dt::u8, dt::f32, dt::s8, d, a1, a2));
            }
}

TEST(FusedPartitions, FakeQuantizeDynamic) {
    for (const dims &d : shapes())
        for (int a : axes(d))
            expect_fused_exact(tensor_chain(op::kind::DynamicQuantize,
                    op::kind::DynamicDequantize, dt::f32, dt::u8, dt::f32, d, a, a));
}

TEST(FusedPartitions, OnnxDequantizeLinearQuantizeLinear) {
    for (const dims &d : shapes())
        for (int a1 : axes(d))
            for (int a2 : axes(d))
                expect_fused_exact(tensor_chain(op::kind::DequantizeLinear,
                        op::kind::QuantizeLinear, dt::u8, dt::f32, dt::s8, d, a1, a2));
}

TEST(FusedPartitions, OnnxQuantizeLinearDequantizeLinear) {
    for (const dims &d : shapes())
        for (int a : axes(d))
            expect_fused_exact(tensor_chain(op::kind::QuantizeLinear,
                    op::kind::DequantizeLinear, dt::f32, dt::s8, dt::f32, d, a, a));
}

/// shapes() and 1-D sizes around the kernels' tiles (16 f32 lanes, 64-element blocks).
std::vector<dims> shapes_and_tile_edges() {
    std::vector<dims> v = shapes();
    for (int64_t n : {1, 15, 16, 17, 63, 64, 65, 1000}) v.push_back({n});
    return v;
}

TEST(FusedPartitions, TypeCastQuantize) {
    for (dt half : {dt::bf16, dt::f16})
        for (op::kind qk : {op::kind::Quantize, op::kind::QuantizeLinear,
                     op::kind::DynamicQuantize})
            for (const dims &d : shapes_and_tile_edges())
                for (int a : axes(d)) {
                    SCOPED_TRACE(std::string(qgraph::to_string(half)) + " "
                            + qgraph::to_string(qk) + " " + std::to_string(d.size())
                            + "-D dim0 " + std::to_string(d[0]) + " axis " + std::to_string(a));
                    expect_fused_exact(typecast_quantize(qk, half, dt::u8, d, a));
                    if (d.size() == 1)
                        expect_fused_exact(typecast_quantize(qk, half, dt::s8, d, a));
                }
}

TEST(FusedPartitions, TypeCastQuantizeLinearDividesInBf16) {
    // x and y_scale both bf16: QuantizeLinear divides in bf16 (NUMERICS.md), which the fused
    // chain keeps.
    for (const dims &d : {dims {3, 7, 50, 50}, dims {65}})
        for (int a : axes(d))
            expect_fused_exact(typecast_quantize(
                    op::kind::QuantizeLinear, dt::bf16, dt::s8, d, a, dt::bf16));
}

TEST(FusedPartitions, DequantizeTypeCast) {
    for (dt half : {dt::bf16, dt::f16})
        for (op::kind dk : {op::kind::Dequantize, op::kind::DequantizeLinear,
                     op::kind::DynamicDequantize})
            for (const dims &d : shapes_and_tile_edges())
                for (int a : axes(d)) {
                    SCOPED_TRACE(std::string(qgraph::to_string(half)) + " "
                            + qgraph::to_string(dk) + " " + std::to_string(d.size())
                            + "-D dim0 " + std::to_string(d[0]) + " axis " + std::to_string(a));
                    expect_fused_exact(dequantize_typecast(dk, half, d, a));
                }
}

TEST(FusedPartitions, DequantizeTypeCastIntoAStridedDst) {
    // The TypeCast's dst in NHWC memory: the one dequantize writes it through its strides.
    const dims d {2, 24, 9, 7};
    for (int a : {-1, 1, 3}) {
        graph_case c = dequantize_typecast(op::kind::DequantizeLinear, dt::f16, d, a);
        c.ops[1] = op(1, op::kind::TypeCast, {lt(1, dt::f32, d, layout::any)},
                {strided(2, dt::f16, d, {24 * 63, 1, 7 * 24, 24})}, "cast");
        expect_fused_exact(c);
    }
}

TEST(FusedPartitions, DequantizeTypeCastOverflowAndNaN) {
    // Products beyond f16's range become Inf; runtime scales of Inf and NaN give Inf, NaN
    // (x - zp = 0 times Inf) and NaN, each cast as TypeCast casts it.
    for (dt half : {dt::bf16, dt::f16}) {
        expect_fused_exact(dequantize_typecast(op::kind::Dequantize, half, {4, 9, 33}, 1, 400.f));
        graph_case c = dequantize_typecast(op::kind::DynamicDequantize, half, {4, 9, 33}, 1);
        std::vector<float> s = scales_for(9, 0.1f, 11);
        s[2] = INFINITY;
        s[5] = -INFINITY;
        s[7] = NAN;
        c.inputs[1] = make_buffer(c.inputs[1].desc(), s);
        expect_fused_exact(c);
    }
}

TEST(FusedPartitions, StaticThenDynamicParameters) {
    // Dequantize with attributes, then DynamicQuantize with tensors: both ops keep their own
    // parameter kinds inside the chain.
    const dims d {2, 8, 33, 17};
    graph_case c = requantize(d, 1, -1);
    const lt s = dense(20, dt::f32, {8}), z = dense(21, dt::s8, {8});
    c.ops[1] = tensor_op(op::kind::DynamicQuantize, 1, lt(1, dt::f32, d, layout::any), s, z,
            lt(2, dt::s8, d, layout::any), 1);
    c.inputs.push_back(make_buffer(s, scales_for(8, 0.3f, 7)));
    c.inputs.push_back(make_buffer(z, std::vector<int8_t> {-3, -2, -1, 0, 1, 2, 3, 4}));
    expect_fused_exact(c);
}

TEST(FusedPartitions, BlockedParametersCutOnWholeGroups) {
    // ONNX blocked DequantizeLinear (block 48 on the last axis: 417 groups, the last one
    // partial) -> per-tensor QuantizeLinear: chunks of the 20000-element rows start on group
    // boundaries, so each block reads its own groups' scales.
    const dims d {2, 20000}, pd {2, 417};
    const lt x = dense(0, dt::u8, d), s1 = dense(10, dt::f32, pd), z1 = dense(11, dt::u8, pd),
             s2 = dense(20, dt::f32, {}), z2 = dense(21, dt::s8, {});
    graph_case c;
    op dql = tensor_op(
            op::kind::DequantizeLinear, 0, x, s1, z1, lt(1, dt::f32, d, layout::any), 1);
    dql.set_attr(op::attr::block_size, int64_t(48));
    c.ops.push_back(dql);
    c.ops.push_back(tensor_op(op::kind::QuantizeLinear, 1, lt(1, dt::f32, d, layout::any), s2,
            z2, lt(2, dt::s8, d, layout::any), -1));
    c.inputs.push_back(make_buffer(x, all_u8(count(d))));
    c.inputs.push_back(make_buffer(s1, scales_for(count(pd), 0.1f)));
    std::vector<uint8_t> zps;
    for (int64_t z : zps_for(count(pd), 120)) zps.push_back(static_cast<uint8_t>(z));
    c.inputs.push_back(make_buffer(z1, zps));
    c.inputs.push_back(make_buffer(s2, std::vector<float> {0.3f}));
    c.inputs.push_back(make_buffer(z2, std::vector<int8_t> {-3}));
    c.outputs = {2};
    expect_fused_exact(c);
}

TEST(FusedPartitions, StridedOuterTensors) {
    // The source transposed (NHWC memory for an NCHW shape): the blocks follow its strides.
    const dims d {2, 24, 40, 40};
    const lt x = strided(0, dt::u8, d, {24 * 1600, 1, 40 * 24, 24});
    for (int a : {-1, 1, 3}) expect_fused_exact(requantize(d, a, a, &x));
}

TEST(FusedPartitions, SubByteTypesRunAsOneBlock) {
    // u4 elements share bytes, so the chain is not cut into blocks; still exact. A u4
    // source, and a u4 intermediate (its scratch holds two elements a byte).
    for (const dims &d : {dims {3, 40000}, dims {7}}) {
        expect_fused_exact(tensor_chain(op::kind::DequantizeLinear, op::kind::QuantizeLinear,
                dt::u4, dt::f32, dt::u8, d, -1, -1));
        expect_fused_exact(tensor_chain(op::kind::QuantizeLinear, op::kind::DequantizeLinear,
                dt::f32, dt::u4, dt::f32, d, -1, -1));
    }
}

/// The kernel name of c's one fusion partition, compiled for its own ports.
std::string fused_kernel(const graph_case &c) {
    graph g(qgraph::engine::kind::cpu);
    for (const op &o : c.ops) g.add_op(o);
    g.finalize();
    const std::vector<qgraph::partition> parts = g.get_partitions();
    EXPECT_EQ(parts.size(), 1u);
    std::vector<lt> ins = parts[0].get_input_ports();
    for (lt &t : ins)
        for (const buffer &b : c.inputs)
            if (b.desc().get_id() == t.get_id()) t = b.desc();
    return parts[0].compile(ins, parts[0].get_output_ports(), cpu()).get_kernel_name();
}

/// A static u8/s8 -> u8/s8 requantize whose zero points are `zp1` (Dequantize) and `zp2`
/// (Quantize) on every channel.
graph_case requantize_8bit(const dims &d, int ax1, int ax2, dt sdt, dt ddt, int64_t zp1,
        int64_t zp2, const lt *src = nullptr) {
    const int64_t c1 = ax1 < 0 ? 1 : d[static_cast<size_t>(ax1)];
    const int64_t c2 = ax2 < 0 ? 1 : d[static_cast<size_t>(ax2)];
    const lt x = src ? *src : dense(0, sdt, d);
    graph_case c;
    c.ops.push_back(static_op(op::kind::Dequantize, 0, x, lt(1, dt::f32, d, layout::any), ax1,
            scales_for(c1, 0.1f), std::vector<int64_t>(static_cast<size_t>(c1), zp1)));
    c.ops.push_back(static_op(op::kind::Quantize, 1, lt(1, dt::f32, d, layout::any),
            lt(2, ddt, d, layout::any), ax2, scales_for(c2, 0.3f, 7),
            std::vector<int64_t>(static_cast<size_t>(c2), zp2)));
    buffer b(x);
    const std::vector<uint8_t> v = all_u8(static_cast<int64_t>(b.size()));
    if (!v.empty()) std::memcpy(b.data(), v.data(), v.size());
    c.inputs.push_back(b);
    c.outputs = {2};
    return c;
}

bool is_lookup(const std::string &kernel) {
    return kernel.find(":lookup") != std::string::npos && kernel.find('+') == std::string::npos;
}

TEST(FusedPartitions, LookupChainsEveryTypeAndZeroPointLimit) {
    // Every one of the 256 codes meets every channel (all_u8 cycles through them); zero
    // points at the ends of their types, where the intermediate reaches its extremes and the
    // quantize saturates on both sides.
    const dims d {2, 6, 300};
    for (dt sdt : {dt::u8, dt::s8})
        for (dt ddt : {dt::u8, dt::s8}) {
            const int64_t lo1 = sdt == dt::u8 ? 0 : -128, hi1 = sdt == dt::u8 ? 255 : 127;
            const int64_t lo2 = ddt == dt::u8 ? 0 : -128, hi2 = ddt == dt::u8 ? 255 : 127;
            for (int64_t z1 : {lo1, hi1})
                for (int64_t z2 : {lo2, hi2})
                    for (int a : {-1, 1}) {
                        SCOPED_TRACE(std::string(qgraph::to_string(sdt)) + " -> "
                                + qgraph::to_string(ddt) + " zps " + std::to_string(z1) + "/"
                                + std::to_string(z2) + " axis " + std::to_string(a));
                        const graph_case c = requantize_8bit(d, a, a, sdt, ddt, z1, z2);
                        EXPECT_TRUE(is_lookup(fused_kernel(c))) << fused_kernel(c);
                        expect_fused_exact(c);
                    }
        }
}

TEST(FusedPartitions, LookupChainsPerChannelOnEitherSide) {
    // Per-channel Dequantize and per-tensor Quantize, the reverse, and both on one axis.
    for (const dims &d : {dims {1, 64, 56, 56}, dims {3, 7, 50, 50}})
        for (int a1 : {-1, 1})
            for (int a2 : {-1, 1}) {
                const graph_case c = requantize(d, a1, a2);
                EXPECT_TRUE(is_lookup(fused_kernel(c))) << fused_kernel(c);
                expect_fused_exact(c);
            }
}

TEST(FusedPartitions, LookupChainsRowSizes) {
    // Rows (one channel's elements) around the kernels' vector and unroll edges.
    for (int64_t n : {1, 15, 16, 17, 63, 64, 65, 127, 128, 129}) {
        SCOPED_TRACE("row of " + std::to_string(n));
        expect_fused_exact(requantize({2, 3, n}, 1, 1));
        expect_fused_exact(requantize({3, n}, -1, -1));
    }
}

TEST(FusedPartitions, LookupChainsStridedAndEmpty) {
    // Padded source rows: the lookup walks the source's strides.
    const dims d {2, 5, 33};
    const lt x = strided(0, dt::u8, d, {5 * 40, 40, 1});
    for (int a : {-1, 1}) {
        const graph_case c = requantize(d, a, a, &x);
        EXPECT_TRUE(is_lookup(fused_kernel(c))) << fused_kernel(c);
        expect_fused_exact(c);
    }
    expect_fused_exact(requantize({0, 4}, -1, -1));
    expect_fused_exact(requantize({0, 3, 4}, 1, 1));
    expect_fused_exact(requantize({}, -1, -1)); // 0-D: one element
}

TEST(FusedPartitions, LookupChainsTransposingLayouts) {
    // NHWC source, NCHW destination (per-tensor) and the reverse (per-channel too: the
    // channel is contiguous in the destination, a table per row of a tile).
    const dims d {2, 24, 40, 40};
    const lt nhwc = strided(0, dt::u8, d, {24 * 1600, 1, 40 * 24, 24});
    graph_case c = requantize(d, -1, -1, &nhwc);
    EXPECT_TRUE(is_lookup(fused_kernel(c))) << fused_kernel(c);
    expect_fused_exact(c);
    for (int a : {-1, 1, 2}) {
        c = requantize(d, a, a);
        // The Quantize writes NHWC memory.
        c.ops[1] = static_op(op::kind::Quantize, 1, lt(1, dt::f32, d, layout::any),
                strided(2, dt::s8, d, {24 * 1600, 1, 40 * 24, 24}), a,
                scales_for(a < 0 ? 1 : d[size_t(a)], 0.3f, 7),
                zps_for(a < 0 ? 1 : d[size_t(a)], -4));
        EXPECT_TRUE(is_lookup(fused_kernel(c))) << fused_kernel(c);
        expect_fused_exact(c);
    }
}

TEST(FusedPartitions, ChainsThatAreNoLookupStayChains) {
    // Channels on two different axes (with attribute or runtime parameters), tables larger
    // than 16 KiB and the tensor: chain_runner, one kernel per op ("a+b"), still exact.
    const dims d {2, 6, 40};
    std::vector<graph_case> cases {
            tensor_chain(op::kind::DynamicDequantize, op::kind::DynamicQuantize, dt::u8,
                    dt::f32, dt::s8, d, 1, 2),
            requantize(d, 1, 2),
            // 1000 channels of 2 elements: 256 KB of tables for a 2 KB tensor.
            requantize({1000, 2}, 0, 0)};
    for (const graph_case &c : cases) {
        const std::string k = fused_kernel(c);
        EXPECT_NE(k.find('+'), std::string::npos) << k;
        EXPECT_EQ(k.find("lookup"), std::string::npos) << k;
        expect_fused_exact(c);
    }
}

TEST(FusedPartitions, LookupOnlyFromGeneratedCodeUnlessRefIsForced) {
    // Channel innermost: the jit lookup kernel rejects it, and automatic selection keeps the
    // chain's own jit kernels rather than the scalar reference lookup.
    const graph_case c = requantize({4, 64}, 1, 1);
    std::string k = fused_kernel(c);
    EXPECT_NE(k.find('+'), std::string::npos) << k;
    EXPECT_EQ(k.find("lookup"), std::string::npos) << k;
    {
        backend_guard ref("ref");
        EXPECT_EQ(fused_kernel(c), "ref:lookup");
    }
    {
        // oneDNN has no lookup, and its reorder is not exact for these ops either: the
        // message gives both reasons.
        backend_guard dnnl("dnnl");
        EXPECT_QG_ERROR(fused_kernel(requantize({2, 64, 9}, -1, -1)), status::unimplemented,
                "dnnl: lookup: no oneDNN primitive looks up a byte table");
    }
}

TEST(FusedPartitions, LookupInPlaceEqualsOutOfPlace) {
    // Source and destination of one byte and the same strides: the lookup offers the pair,
    // and running over one buffer gives the out-of-place bytes (every kernel reads a vector
    // before it stores it; the avx2 tail goes through its stack copy).
    for (const dims &d : {dims {2, 64, 9}, dims {3, 100}, dims {129}})
        at_every_isa_and_thread_count([&] {
            const graph_case c = requantize(d, d.size() > 2 ? 1 : -1, -1);
            graph g(qgraph::engine::kind::cpu);
            for (const op &o : c.ops) g.add_op(o);
            g.finalize();
            const qgraph::partition p = g.get_partitions().at(0);
            const qgraph::compiled_partition cp
                    = p.compile(p.get_input_ports(), p.get_output_ports(), cpu());
            if (!is_lookup(cp.get_kernel_name())) return; // below avx2: chain_runner, no pair
            EXPECT_EQ(cp.get_inplace_ports(), (std::vector<std::pair<size_t, size_t>> {{0, 2}}));
            qgraph::stream s(cpu());
            buffer out(cp.query_logical_tensor(2));
            cp.execute(s, {c.inputs[0].as_tensor()}, {out.as_tensor()});
            buffer shared = c.inputs[0];
            cp.execute(s, {shared.as_tensor()},
                    {qgraph::tensor(cp.query_logical_tensor(2), cpu(), shared.data())});
            EXPECT_EQ(shared.bytes(), out.bytes()) << cp.get_kernel_name();
            EXPECT_TRUE(shared.guards_intact());
        });
}

/// ONNX DequantizeLinear -> QuantizeLinear (onnx) or oneDNN DynamicDequantize ->
/// DynamicQuantize from sdt to ddt: both per tensor (axis -1) or both per channel on `axis`,
/// their scales and zero points input tensors holding s1, z1 (the dequantize's) and s2, z2.
graph_case runtime_requantize(bool onnx, dt sdt, dt ddt, const dims &d, int axis,
        const std::vector<float> &s1, const std::vector<int64_t> &z1,
        const std::vector<float> &s2, const std::vector<int64_t> &z2) {
    const int64_t c = axis < 0 ? 1 : d[static_cast<size_t>(axis)];
    const dims pd = onnx && axis < 0 ? dims {} : dims {c};
    const lt x = dense(0, sdt, d), ls1 = dense(10, dt::f32, pd), lz1 = dense(11, sdt, pd),
             ls2 = dense(20, dt::f32, pd), lz2 = dense(21, ddt, pd);
    graph_case g;
    g.ops.push_back(tensor_op(onnx ? op::kind::DequantizeLinear : op::kind::DynamicDequantize,
            0, x, ls1, lz1, lt(1, dt::f32, d, layout::any), axis));
    g.ops.push_back(tensor_op(onnx ? op::kind::QuantizeLinear : op::kind::DynamicQuantize, 1,
            lt(1, dt::f32, d, layout::any), ls2, lz2, lt(2, ddt, d, layout::any), axis));
    buffer b(x);
    const std::vector<uint8_t> v = all_u8(static_cast<int64_t>(b.size()));
    if (!v.empty()) std::memcpy(b.data(), v.data(), v.size());
    const auto bytes = [](const std::vector<int64_t> &z) { // u8 or s8: the low byte
        std::vector<uint8_t> out;
        for (int64_t e : z) out.push_back(static_cast<uint8_t>(e));
        return out;
    };
    g.inputs = {b, make_buffer(ls1, s1), make_buffer(lz1, bytes(z1)), make_buffer(ls2, s2),
            make_buffer(lz2, bytes(z2))};
    g.outputs = {2};
    return g;
}

/// Dequantize scales whose ratio to the quantize's is 1/2 or 3/2 on every other channel, so
/// that (x - zp) * s1 / s2 meets ties of the rounding, and ratios that saturate.
std::vector<float> tie_scales(int64_t c, float base) {
    std::vector<float> s;
    for (int64_t i = 0; i < c; ++i) s.push_back(base * static_cast<float>(1 + i % 3));
    return s;
}

TEST(FusedPartitions, RuntimeLookupChainsEveryTypeAndZeroPointLimit) {
    // The ONNX requantize and the oneDNN dynamic one, parameters read at execute: one table
    // lookup built then, bit for bit the ops one by one on ref. Every code meets every
    // channel (all_u8), zero points at the ends of their types on both sides.
    const dims d {2, 6, 300};
    for (bool onnx : {true, false})
        for (dt sdt : {dt::u8, dt::s8})
            for (dt ddt : {dt::u8, dt::s8}) {
                const int64_t lo1 = sdt == dt::u8 ? 0 : -128, hi1 = sdt == dt::u8 ? 255 : 127;
                const int64_t lo2 = ddt == dt::u8 ? 0 : -128, hi2 = ddt == dt::u8 ? 255 : 127;
                for (int64_t z1 : {lo1, hi1})
                    for (int64_t z2 : {lo2, hi2})
                        for (int a : {-1, 1}) {
                            SCOPED_TRACE(std::string(onnx ? "onnx " : "dynamic ")
                                    + qgraph::to_string(sdt) + " -> " + qgraph::to_string(ddt)
                                    + " zps " + std::to_string(z1) + "/" + std::to_string(z2)
                                    + " axis " + std::to_string(a));
                            const int64_t c = a < 0 ? 1 : d[size_t(a)];
                            const graph_case g = runtime_requantize(onnx, sdt, ddt, d, a,
                                    tie_scales(c, 0.25f), std::vector<int64_t>(size_t(c), z1),
                                    std::vector<float>(size_t(c), 0.5f),
                                    std::vector<int64_t>(size_t(c), z2));
                            EXPECT_TRUE(is_lookup(fused_kernel(g))) << fused_kernel(g);
                            expect_fused_exact(g);
                        }
            }
}

/// c's one fusion partition, compiled for its own ports.
qgraph::compiled_partition compile_fused(const graph_case &c) {
    graph g(qgraph::engine::kind::cpu);
    for (const op &o : c.ops) g.add_op(o);
    g.finalize();
    const qgraph::partition p = g.get_partitions().at(0);
    return p.compile(p.get_input_ports(), p.get_output_ports(), cpu());
}

/// cp run on c's inputs: the bytes of its one output.
std::vector<unsigned char> execute_on(const qgraph::compiled_partition &cp, const graph_case &c) {
    std::vector<qgraph::tensor> ins;
    for (const lt &t : cp.get_input_logical_tensors())
        for (const buffer &b : c.inputs)
            if (b.desc().get_id() == t.get_id()) ins.push_back(b.as_tensor());
    buffer out(cp.query_logical_tensor(c.outputs.at(0)));
    qgraph::stream s(cpu());
    cp.execute(s, ins, {out.as_tensor()});
    EXPECT_TRUE(out.guards_intact());
    return out.bytes();
}

/// c's output from the ops one by one on ref.
std::vector<unsigned char> unfused_on_ref(const graph_case &c) {
    backend_guard ref("ref");
    return run_graph(c, policy::debug).outputs.at(c.outputs.at(0));
}

/// Three parameter sets of one ONNX or dynamic requantize u8 -> s8 per channel: the
/// second differs from the first in one channel's quantize zero point, the third in one
/// channel's dequantize scale.
std::vector<graph_case> parameter_sets(bool onnx) {
    const dims d {2, 6, 40};
    std::vector<float> s1 = tie_scales(6, 0.1f), s2 = tie_scales(6, 0.3f);
    std::vector<int64_t> z1 = zps_for(6, 120), z2 = zps_for(6, 4);
    std::vector<graph_case> sets {runtime_requantize(onnx, dt::u8, dt::s8, d, 1, s1, z1, s2, z2)};
    z2[3] += 1;
    sets.push_back(runtime_requantize(onnx, dt::u8, dt::s8, d, 1, s1, z1, s2, z2));
    z2[3] -= 1;
    s1[5] *= 1.5f;
    sets.push_back(runtime_requantize(onnx, dt::u8, dt::s8, d, 1, s1, z1, s2, z2));
    return sets;
}

TEST(FusedPartitions, RuntimeLookupRebuildsForNewParameterValues) {
    // One compiled partition executed with other parameter values, then the first again:
    // the tables kept from the last call must not serve values they were not built from.
    // The reference lookup, where ref is forced, builds its tables at execute alike.
    for (bool onnx : {true, false}) {
        const std::vector<graph_case> sets = parameter_sets(onnx);
        std::vector<std::vector<unsigned char>> want;
        for (const graph_case &g : sets) want.push_back(unfused_on_ref(g));
        ASSERT_NE(want[0], want[1]);
        ASSERT_NE(want[0], want[2]);
        const auto check = [&] {
            const qgraph::compiled_partition cp = compile_fused(sets[0]);
            for (size_t i : {0, 0, 1, 0, 2, 2, 0}) {
                SCOPED_TRACE("parameter set " + std::to_string(i));
                EXPECT_EQ(execute_on(cp, sets[i]), want[i]) << cp.get_kernel_name();
            }
        };
        at_every_isa_and_thread_count(check);
        backend_guard ref("ref");
        EXPECT_EQ(compile_fused(sets[0]).get_kernel_name(), "ref:lookup");
        check();
    }
}

TEST(FusedPartitions, RuntimeLookupConcurrentExecutesWithOtherParameters) {
    // Two threads execute one compiled partition at once, each with its own parameter
    // values: each gets its own values' result every time (the kept tables change under a
    // lock, and a running call keeps the tables it took; TSan checks the rest).
    for (bool onnx : {true, false}) {
        const std::vector<graph_case> sets = parameter_sets(onnx);
        const std::vector<unsigned char> want0 = unfused_on_ref(sets[0]),
                                         want1 = unfused_on_ref(sets[1]);
        const qgraph::compiled_partition cp = compile_fused(sets[0]);
        EXPECT_TRUE(is_lookup(cp.get_kernel_name())) << cp.get_kernel_name();
        std::atomic<int> wrong {0};
        const auto worker = [&](const graph_case &g, const std::vector<unsigned char> &want) {
            for (int i = 0; i < 50; ++i)
                if (execute_on(cp, g) != want) ++wrong;
        };
        std::thread t0(worker, std::cref(sets[0]), std::cref(want0));
        std::thread t1(worker, std::cref(sets[1]), std::cref(want1));
        t0.join();
        t1.join();
        EXPECT_EQ(wrong.load(), 0);
    }
}

TEST(FusedPartitions, PortsAreTheChainsOuterTensors) {
    const graph_case c = tensor_chain(op::kind::DynamicDequantize, op::kind::DynamicQuantize,
            dt::u8, dt::f32, dt::s8, {2, 3}, 1, -1);
    graph g(qgraph::engine::kind::cpu);
    for (const op &o : c.ops) g.add_op(o);
    g.finalize();
    const std::vector<qgraph::partition> parts = g.get_partitions();
    ASSERT_EQ(parts.size(), 1u);
    EXPECT_EQ(parts[0].get_ops(), (std::vector<size_t> {0, 1}));
    EXPECT_EQ(parts[0].get_ops_num(), 2u);
    EXPECT_EQ(parts[0].get_op_kinds(),
            (std::vector<op::kind> {op::kind::DynamicDequantize, op::kind::DynamicQuantize}));
    std::vector<size_t> in_ids, out_ids;
    for (const lt &t : parts[0].get_input_ports()) in_ids.push_back(t.get_id());
    for (const lt &t : parts[0].get_output_ports()) out_ids.push_back(t.get_id());
    EXPECT_EQ(in_ids, (std::vector<size_t> {0, 10, 11, 20, 21})); // not 1, the intermediate
    EXPECT_EQ(out_ids, (std::vector<size_t> {2}));
    // The intermediate is no port of the compiled partition either.
    std::vector<lt> ins = parts[0].get_input_ports();
    const qgraph::compiled_partition cp = parts[0].compile(ins, parts[0].get_output_ports(), cpu());
    EXPECT_QG_ERROR(cp.query_logical_tensor(1), status::invalid_arguments, "id 1 is not a port");
    // Each op's kernel, joined: "jit:avx2+jit:avx2" on the jit backend.
    EXPECT_NE(cp.get_kernel_name().find('+'), std::string::npos) << cp.get_kernel_name();
    EXPECT_TRUE(cp.get_inplace_ports().empty());
}

TEST(FusedPartitions, DebugPolicyKeepsOneOpPerPartition) {
    const graph_case c = requantize({4, 4}, -1, -1);
    graph g(qgraph::engine::kind::cpu);
    for (const op &o : c.ops) g.add_op(o);
    g.finalize();
    const std::vector<qgraph::partition> parts = g.get_partitions(policy::debug);
    ASSERT_EQ(parts.size(), 2u);
    EXPECT_EQ(parts[0].get_ops(), std::vector<size_t> {0});
    EXPECT_EQ(parts[1].get_ops(), std::vector<size_t> {1});
    EXPECT_EQ(parts[1].get_input_ports().at(0).get_layout_type(), layout::strided);
}

/// The partitions' op ids under the fusion policy. Checks that partition ids increase in
/// execution order.
std::vector<std::vector<size_t>> fused_ops(const std::vector<op> &ops) {
    graph g(qgraph::engine::kind::cpu);
    for (const op &o : ops) g.add_op(o);
    g.finalize();
    std::vector<std::vector<size_t>> v;
    size_t last_id = 0;
    for (const qgraph::partition &p : g.get_partitions()) {
        if (!v.empty()) {
            EXPECT_GT(p.get_id(), last_id);
        }
        last_id = p.get_id();
        v.push_back(p.get_ops());
    }
    return v;
}

using op_ids = std::vector<std::vector<size_t>>;

TEST(FusedPartitions, IntermediateThatIsAGraphOutputIsNotFused) {
    graph_case c = requantize({4, 4}, -1, -1);
    c.ops.push_back(op(2, op::kind::End, {lt(1, dt::f32, {4, 4}, layout::any)}, {}, "end"));
    EXPECT_EQ(fused_ops(c.ops), (op_ids {{0}, {1}, {2}}));
}

TEST(FusedPartitions, IntermediateReadTwiceIsNotFused) {
    graph_case c = requantize({4, 4}, -1, -1);
    c.ops.push_back(static_op(op::kind::Quantize, 2, lt(1, dt::f32, {4, 4}, layout::any),
            lt(3, dt::u8, {4, 4}, layout::any), -1, {0.5f}, {0}));
    EXPECT_EQ(fused_ops(c.ops), (op_ids {{0}, {1}, {2}}));
    // Read twice by one op: as DequantizeLinear's x and as its x_zero_point.
    const lt q(1, dt::u8, {}, layout::strided);
    std::vector<op> ops {
            op(0, op::kind::QuantizeLinear, {dense(0, dt::f32, {}), dense(5, dt::f32, {})},
                    {q}, "q"),
            op(1, op::kind::DequantizeLinear, {q, dense(6, dt::f32, {}), q},
                    {dense(2, dt::f32, {})}, "dq")};
    EXPECT_EQ(fused_ops(ops), (op_ids {{0}, {1}}));
}

TEST(FusedPartitions, IntermediateWithAStridedLayoutIsNotFused) {
    // Declared with padded strides: the fused kernel keeps its intermediate dense, which the
    // graph does not allow here.
    const dims d {4, 4};
    const lt mid = strided(1, dt::f32, d, {8, 1});
    std::vector<op> ops {static_op(op::kind::Dequantize, 0, dense(0, dt::u8, d), mid, -1,
                                 {0.5f}, {0}),
            static_op(op::kind::Quantize, 1, mid, dense(2, dt::s8, d), -1, {0.5f}, {0})};
    EXPECT_EQ(fused_ops(ops), (op_ids {{0}, {1}}));
    // Dense strides given explicitly fuse.
    ops[0] = static_op(op::kind::Dequantize, 0, dense(0, dt::u8, d), dense(1, dt::f32, d), -1,
            {0.5f}, {0});
    ops[1] = static_op(op::kind::Quantize, 1, dense(1, dt::f32, d), dense(2, dt::s8, d), -1,
            {0.5f}, {0});
    EXPECT_EQ(fused_ops(ops), (op_ids {{0, 1}}));
}

TEST(FusedPartitions, ConsumerWithStridesOfAnotherRankDoesNotCrash) {
    // The API fuzzer's find (tests/fuzz/regressions/api/strided-no-strides-partitioner): an
    // op qgraph does not run (no schema checks its ports) reads the intermediate through a
    // tensor of 3 dims and 2 strides, and the partitioner read the strides past their end.
    const dims d {4, 8, 4};
    op sm(1, op::kind::SoftMax, "sm");
    sm.add_input(strided(1, dt::f32, d, {32, 4})).add_output(dense(2, dt::f32, d));
    std::vector<op> ops {static_op(op::kind::Dequantize, 0, dense(0, dt::u8, d),
                                 lt(1, dt::f32, d, layout::any), -1, {0.5f}, {0}),
            sm};
    EXPECT_EQ(fused_ops(ops), (op_ids {{0}, {1}}));
}

TEST(FusedPartitions, ChannelAxisOutsideTheRankDoesNotOverflow) {
    // The API fuzzer's find (tests/fuzz/regressions/api/pattern_table_axis_overflow): a
    // per-channel Dequantize whose axis, INT64_MIN, names no dim of its source of unknown
    // rank, before a StaticReshape and a Quantize. The partitioner normalised the axis by
    // adding the rank, a signed overflow; an axis outside the rank now names no channel, and
    // no reshape folds around it. The same with axis 0 and a StaticTranspose between them
    // (all of unknown rank, so add_op checks neither), whose order entry INT64_MIN the
    // channel's move through it added the rank to.
    constexpr int64_t min = std::numeric_limits<int64_t>::min();
    for (const bool transpose : {false, true}) {
        SCOPED_TRACE(transpose ? "with a transpose" : "reshape only");
        op dq(0, op::kind::Dequantize, {unknown(0, dt::u8)}, {lt(1, dt::f32, layout::any)},
                "dq");
        dq.set_attr(op::attr::qtype, std::string("per_channel"));
        dq.set_attr(op::attr::axis, transpose ? int64_t(0) : min);
        dq.set_attr(op::attr::scales, std::vector<float>(4, 0.5f));
        dq.set_attr(op::attr::zps, std::vector<int64_t>(4, 0));
        std::vector<op> ops {dq};
        if (transpose) {
            op tr(1, op::kind::StaticTranspose, {lt(1, dt::f32, layout::any)},
                    {lt(5, dt::f32, layout::any)}, "transpose");
            tr.set_attr("order", std::vector<int64_t> {min, 0});
            ops.push_back(tr);
        }
        op rs(2, op::kind::StaticReshape, {lt(transpose ? 5 : 1, dt::f32, layout::any)},
                {lt(2, dt::f32, dims {24}, layout::any)}, "reshape");
        rs.set_attr("shape", dims {24});
        rs.set_attr("special_zero", false);
        ops.push_back(rs);
        ops.push_back(static_op(op::kind::Quantize, 3, lt(2, dt::f32, dims {24}, layout::any),
                dense(4, dt::u8, {24}), -1, {0.25f}, {0}));
        EXPECT_EQ(fused_ops(ops).size(), ops.size());
    }
}

TEST(FusedPartitions, FusedPartitionRunsWhereItsLastOpStood) {
    // The Quantize's scales come from an op between the two: the fused partition follows it.
    const dims d {4};
    std::vector<op> ops {static_op(op::kind::Dequantize, 0, dense(0, dt::u8, d),
                                 lt(1, dt::f32, d, layout::any), -1, {0.5f}, {0}),
            static_op(op::kind::Dequantize, 1, dense(5, dt::u8, {}), dense(6, dt::f32, {}), -1,
                    {0.5f}, {0}),
            tensor_op(op::kind::DynamicQuantize, 2, lt(1, dt::f32, d, layout::any),
                    dense(6, dt::f32, {}), dense(7, dt::s8, {}), dense(2, dt::s8, d), -1)};
    EXPECT_EQ(fused_ops(ops), (op_ids {{1}, {0, 2}}));
}

TEST(FusedPartitions, ChainCompilesFromItsOwnPortsUnderDebug) {
    // Both ops declare the intermediate `any`: the consumer's port comes back strided (dense,
    // what the producer's `any` output compiles to), so compile(p.get_input_ports(), ...)
    // works on the second partition too.
    const graph_case c = requantize({3, 5}, -1, 1);
    graph_run r;
    EXPECT_NO_THROW(r = run_graph(c, policy::debug));
    EXPECT_EQ(r.partitions, 2u);
}

/// The verbose lines (level 1) of running c under the fusion policy.
std::vector<std::string> fusion_verbose_lines(const graph_case &c) {
    std::vector<std::string> lines;
    qgraph::set_verbose_callback([&](const std::string &l) { lines.push_back(l); });
    const int old = qgraph::get_verbose();
    qgraph::set_verbose(1);
    run_graph(c, policy::fusion);
    qgraph::set_verbose(old);
    qgraph::set_verbose_callback(nullptr);
    return lines;
}

/// A compile and an exec line contain `head` and name one kernel (no '+' chain of kernels).
void expect_one_kernel(const std::vector<std::string> &lines, const std::string &head) {
    bool compile = false, exec = false;
    for (const std::string &l : lines) {
        const size_t kernel = l.find(",kernel:");
        const bool single = l.find(head) != std::string::npos && kernel != std::string::npos
                && l.find('+', kernel) == std::string::npos;
        compile = compile || (single && l.find("compile,") != std::string::npos);
        exec = exec || (single && l.find("exec,") != std::string::npos);
    }
    EXPECT_TRUE(compile) << head;
    EXPECT_TRUE(exec) << head;
}

TEST(FusedPartitions, VerboseNamesThePatternAndTheOps) {
    const graph_case c = requantize({3, 5}, -1, 1);
    const std::vector<std::string> lines = fusion_verbose_lines(c);
    bool compile = false, exec = false;
    for (const std::string &l : lines) {
        const bool names
                = l.find("op:requantize(Dequantize+Quantize),name:op0+op1,Dequantize u8:f32")
                != std::string::npos;
        compile = compile || (names && l.find("compile,") != std::string::npos);
        exec = exec || (names && l.find("exec,") != std::string::npos);
    }
    EXPECT_TRUE(compile);
    EXPECT_TRUE(exec);
}

TEST(FusedPartitions, HalfCastIntermediateThatIsAGraphOutputIsNotFused) {
    const dims d {4, 4};
    graph_case c = dequantize_typecast(op::kind::Dequantize, dt::bf16, d, -1);
    c.ops.push_back(op(2, op::kind::End, {lt(1, dt::f32, d, layout::any)}, {}, "end"));
    EXPECT_EQ(fused_ops(c.ops), (op_ids {{0}, {1}, {2}}));
    c = typecast_quantize(op::kind::Quantize, dt::f16, dt::u8, d, -1);
    c.ops.push_back(op(2, op::kind::TypeCast, {lt(1, dt::f16, d, layout::any)},
            {lt(3, dt::f32, d, layout::any)}, "cast back"));
    EXPECT_EQ(fused_ops(c.ops), (op_ids {{0}, {1}, {2}}));
}

TEST(FusedPartitions, DequantizeTypeCastRunsAsOneKernel) {
    // The chain rewrites to one dequantize problem to bf16 (passes/chain_rewrite.hpp):
    // verbose names the pattern and shows that problem and a single kernel, no '+' chain.
    const graph_case c = dequantize_typecast(op::kind::DynamicDequantize, dt::bf16, {3, 5}, 1);
    const std::vector<std::string> lines = fusion_verbose_lines(c);
    expect_one_kernel(lines,
            "op:dequantize_typecast(DynamicDequantize+TypeCast),name:"
            "op0+cast,DynamicDequantize u8:bf16 per_channel");
}

TEST(FusedPartitions, TypeCastQuantizeRunsAsOneKernel) {
    // One quantize problem whose source is rounded to f16 first (src_round_dt).
    const graph_case c
            = typecast_quantize(op::kind::QuantizeLinear, dt::f16, dt::u8, {3, 5}, -1);
    const std::vector<std::string> lines = fusion_verbose_lines(c);
    expect_one_kernel(lines,
            "op:typecast_quantize(TypeCast+QuantizeLinear),name:cast+op1,"
            "QuantizeLinear f32(f16):u8 per_tensor");
}

TEST(FusedPartitions, FakeQuantizeRunsAsOneKernel) {
    // One quantize problem with a dequantize stage (passes/chain_rewrite.hpp): a single
    // kernel, no '+' chain of two.
    const graph_case c = fake_quantize({3, 5, 4}, 1);
    const std::vector<std::string> lines = fusion_verbose_lines(c);
    expect_one_kernel(lines,
            "op:fake_quantize(Quantize+Dequantize),name:op0+op1,"
            "Quantize+Dequantize f32:u8:f32 per_channel(axis 1)");
}

TEST(FusedPartitions, FakeQuantizeNoGeneratedCodeTakesStaysAChain) {
    // Parameters along the innermost dim (and without AVX2, any fake-quantize): the jit
    // output stage takes one parameter set per row, and the reference loop would be slower
    // than the two ops' jit kernels, so chain_runner runs the two ops; forced, ref runs the
    // one problem.
    const graph_case inner = fake_quantize({3, 5}, 1), outer = fake_quantize({3, 5, 4}, 1);
    const std::vector<std::string> levels = qgraph::get_cpu_isa_levels();
    if (std::find(levels.begin(), levels.end(), "avx2") != levels.end()) {
        EXPECT_EQ(fused_kernel(outer).find('+'), std::string::npos) << fused_kernel(outer);
    }
    EXPECT_NE(fused_kernel(inner).find('+'), std::string::npos) << fused_kernel(inner);
    backend_guard ref("ref");
    EXPECT_EQ(fused_kernel(inner), "ref:quantize");
}

TEST(FusedPartitions, VerboseShowsTheLookupKernel) {
    const graph_case c = requantize({2, 64, 9}, 1, -1);
    const std::vector<std::string> lines = fusion_verbose_lines(c);
    int found = 0;
    for (const std::string &l : lines)
        if (l.find("op:requantize(Dequantize+Quantize),name:op0+op1,Dequantize+Quantize "
                   "u8:s8 per_channel(axis 1) 2x64x9 lookup:64x256,backend:jit,kernel:jit:")
                        != std::string::npos
                && l.find(":lookup,") != std::string::npos)
            ++found;
    EXPECT_EQ(found, 2) << "a compile and an exec line";
}

} // namespace

// Dequantize -> Reorder / StaticTranspose -> Quantize: the movement is folded into the outer
// tensors' strides (passes/chain_rewrite.hpp, fold_data_movement).

bool is_float8(dt t) { return t == dt::f8_e4m3 || t == dt::f8_e5m2; }

/// Zero points from `lo` for an integer type, all 0 for a float one (whose zero point must
/// be 0).
std::vector<int64_t> zps_of(dt t, int64_t c, int64_t lo) {
    return is_float8(t) ? std::vector<int64_t>(static_cast<size_t>(c), 0) : zps_for(c, lo);
}

/// The shape a StaticTranspose by `order` (entries < 0 counted from the end) gives d.
dims transposed(const dims &d, const std::vector<int64_t> &order) {
    dims e;
    for (int64_t a : order) e.push_back(d[static_cast<size_t>(a < 0 ? a + int64_t(d.size()) : a)]);
    return e;
}

/// The two ends of a requantize around a data movement (which the caller inserts as op 2):
/// Dequantize x -> m1 (axis ax1, c1 channels; -1: per tensor) and Quantize m2 -> y (axis ax2,
/// c2 channels), and x's values (every u8 code in turn). `dynamic`: DynamicDequantize /
/// DynamicQuantize, the parameters in tensors 10, 11, 20, 21.
graph_case requantize_ends(const lt &x, const lt &m1, const lt &m2, const lt &y, int ax1, int ax2,
        int64_t c1, int64_t c2, bool dynamic) {
    const dt sdt = x.get_data_type(), ddt = y.get_data_type();
    graph_case c;
    buffer b(x);
    const std::vector<uint8_t> v = all_u8(static_cast<int64_t>(b.size()));
    if (!v.empty()) std::memcpy(b.data(), v.data(), v.size());
    c.inputs.push_back(b);
    if (dynamic) {
        const lt s1 = dense(10, dt::f32, {c1}), z1 = dense(11, sdt, {c1}),
                 s2 = dense(20, dt::f32, {c2}), z2 = dense(21, ddt, {c2});
        c.ops.push_back(tensor_op(op::kind::DynamicDequantize, 0, x, s1, z1, m1, ax1));
        c.ops.push_back(tensor_op(op::kind::DynamicQuantize, 3, m2, s2, z2, y, ax2));
        c.inputs.push_back(scale_buffer(s1, c1, 0.1f, 11));
        c.inputs.push_back(zp_buffer(z1, c1, sdt == dt::u8 ? 120 : -5));
        c.inputs.push_back(scale_buffer(s2, c2, 0.3f, 7));
        c.inputs.push_back(zp_buffer(z2, c2, ddt == dt::u8 ? 101 : -4));
    } else {
        c.ops.push_back(static_op(op::kind::Dequantize, 0, x, m1, ax1, scales_for(c1, 0.1f),
                zps_of(sdt, c1, sdt == dt::u8 ? 120 : -5)));
        c.ops.push_back(static_op(op::kind::Quantize, 3, m2, y, ax2, scales_for(c2, 0.3f, 7),
                zps_of(ddt, c2, ddt == dt::u8 ? 101 : -4)));
    }
    return c;
}

/// Dequantize (x's type -> f32, axis ax1 of x) -> the movement -> Quantize (f32 -> ddt, axis
/// ax2 of the moved shape, written with strides ys; empty: dense); -1: per-tensor. The
/// movement is a Reorder when `order` is empty, its intermediates declared in x's and y's
/// layouts (as oneDNN's int8_reorder_fusion cases declare them), else a StaticTranspose by
/// `order`, its intermediates `any`. `dynamic`: DynamicDequantize / DynamicQuantize, the
/// parameters in tensors.
graph_case requantize_moved(const lt &x, const std::vector<int64_t> &order, const dims &ys,
        int ax1, int ax2, dt ddt = dt::s8, bool dynamic = false) {
    const dims d = x.get_dims();
    const bool reorder = order.empty();
    const dims e = reorder ? d : transposed(d, order);
    const int64_t c1 = ax1 < 0 ? 1 : d[static_cast<size_t>(ax1)];
    const int64_t c2 = ax2 < 0 ? 1 : e[static_cast<size_t>(ax2)];
    const lt y = ys.empty() ? lt(4, ddt, e, layout::any) : strided(4, ddt, e, ys);
    const lt m1 = reorder ? strided(1, dt::f32, d, x.get_strides()) : lt(1, dt::f32, d, layout::any);
    const lt m2 = reorder && !ys.empty() ? strided(2, dt::f32, e, ys) : lt(2, dt::f32, e, layout::any);
    graph_case c = requantize_ends(x, m1, m2, y, ax1, ax2, c1, c2, dynamic);
    op mv = reorder ? op(2, op::kind::Reorder, {m1}, {m2}, "reorder")
                    : op(2, op::kind::StaticTranspose, {m1}, {m2}, "transpose");
    if (!reorder) mv.set_attr("order", order);
    c.ops.insert(c.ops.begin() + 1, mv);
    c.outputs = {4};
    return c;
}

dims dense_strides(const dims &d) { return {d[1] * d[2] * d[3], d[2] * d[3], d[3], 1}; }
/// NCHW dims' strides, dense and NHWC.
dims nhwc_strides(const dims &d) { return {d[1] * d[2] * d[3], 1, d[3] * d[1], d[1]}; }

TEST(FusedPartitions, RequantizeAroundReorderNchwNhwc) {
    // NCHW -> NHWC, NHWC -> NCHW and NCHW -> NCHW, per-tensor and per-channel (the Reorder
    // keeps the index space: both axes are the same dim); shapes whose rows and planes end
    // inside the kernels' vectors and tiles.
    for (const dims &d : {dims {1, 64, 56, 56}, dims {2, 17, 9, 33}, dims {1, 3, 1, 65}}) {
        const lt nchw = dense(0, dt::u8, d), nhwc = strided(0, dt::u8, d, nhwc_strides(d));
        for (int a : {-1, 1, 3}) {
            SCOPED_TRACE("dims " + std::to_string(d[1]) + "x" + std::to_string(d[3]) + " axis "
                    + std::to_string(a));
            const graph_case to_nhwc = requantize_moved(nchw, {}, nhwc_strides(d), a, a);
            const graph_case to_nchw = requantize_moved(nhwc, {}, dense_strides(d), a, a);
            // One table lookup where the jit lookup takes the layout (as without the
            // Reorder: LookupChainsTransposingLayouts): not per channel on the source's
            // innermost dim.
            if (a < 0) {
                EXPECT_TRUE(is_lookup(fused_kernel(to_nchw))) << fused_kernel(to_nchw);
            }
            if (a != 3) {
                EXPECT_TRUE(is_lookup(fused_kernel(to_nhwc))) << fused_kernel(to_nhwc);
            }
            expect_fused_exact(to_nhwc);
            expect_fused_exact(to_nchw);
            expect_fused_exact(requantize_moved(nchw, {}, {}, a, a));
        }
    }
}

TEST(FusedPartitions, RequantizeAroundStaticTranspose) {
    // Each permutation with the Quantize's channel the Dequantize's moved through it, with
    // another channel, and per-tensor on either side.
    const dims d {2, 12, 7, 19};
    const lt x = dense(0, dt::u8, d);
    for (const std::vector<int64_t> &order : {std::vector<int64_t> {0, 2, 3, 1},
                 std::vector<int64_t> {0, 3, 1, 2}, std::vector<int64_t> {3, 2, 1, 0},
                 std::vector<int64_t> {1, 0, 2, 3}, std::vector<int64_t> {0, -1, 1, -2}})
        for (int a1 : {-1, 1, 3}) {
            int moved = -1; // where a1 lands
            for (size_t i = 0; i < order.size(); ++i)
                if ((order[i] + 4) % 4 == a1) moved = static_cast<int>(i);
            SCOPED_TRACE("order " + std::to_string(order[0]) + std::to_string(order[1])
                    + std::to_string(order[2]) + std::to_string(order[3]) + " axis "
                    + std::to_string(a1));
            const graph_case same = requantize_moved(x, order, {}, a1, moved);
            expect_fused_exact(same);
            expect_fused_exact(requantize_moved(x, order, {}, -1, a1 < 0 ? 0 : a1));
            expect_fused_exact(requantize_moved(x, order, {}, a1, moved < 0 ? 2 : -1));
        }
}

TEST(FusedPartitions, RequantizeAroundMovementThroughChainStages) {
    // Ends that are no 8-bit integers: no table, the two kernels of chain_runner over a
    // destination whose strides the blocks cut transposed. 8-bit ends with runtime
    // parameters: one lookup, its tables built at execute, over the same layouts.
    const dims d {2, 20, 30, 17};
    const lt nchw = dense(0, dt::u8, d), f8 = dense(0, dt::f8_e4m3, d);
    const std::vector<int64_t> to_nhwc {0, 2, 3, 1};
    std::vector<graph_case> cases {requantize_moved(nchw, to_nhwc, {}, -1, 3, dt::f8_e5m2),
            requantize_moved(f8, {}, nhwc_strides(d), 1, 1, dt::s8),
            requantize_moved(f8, to_nhwc, {}, 2, 1, dt::f8_e4m3)};
    for (const graph_case &c : cases) {
        EXPECT_NE(fused_kernel(c).find('+'), std::string::npos) << fused_kernel(c);
        expect_fused_exact(c);
    }
    for (const graph_case &c : {requantize_moved(nchw, {}, nhwc_strides(d), 1, 1, dt::s8, true),
                 requantize_moved(nchw, to_nhwc, {}, 1, 3, dt::u8, true)}) {
        EXPECT_TRUE(is_lookup(fused_kernel(c))) << fused_kernel(c);
        expect_fused_exact(c);
    }
}

TEST(FusedPartitions, RequantizeAroundMovementEmpty) {
    for (const dims &d : {dims {0, 3, 4, 5}, dims {2, 3, 0, 5}}) {
        const lt x = dense(0, dt::u8, d);
        expect_fused_exact(requantize_moved(x, {}, nhwc_strides(d), 1, 1));
        expect_fused_exact(requantize_moved(x, {0, 2, 3, 1}, {}, 1, 3));
        expect_fused_exact(requantize_moved(x, {0, 2, 3, 1}, {}, -1, -1, dt::s8, true));
    }
}

TEST(FusedPartitions, MovementIntermediateThatIsAGraphOutputIsNotFused) {
    const dims d {2, 3, 4, 5};
    graph_case c = requantize_moved(dense(0, dt::u8, d), {0, 2, 3, 1}, {}, -1, -1);
    c.ops.push_back(op(5, op::kind::End, {lt(2, dt::f32, {2, 4, 5, 3}, layout::any)}, {}, "end"));
    EXPECT_EQ(fused_ops(c.ops), (op_ids {{0}, {2}, {3}, {5}}));
    c = requantize_moved(dense(0, dt::u8, d), {0, 2, 3, 1}, {}, -1, -1);
    c.ops.push_back(op(5, op::kind::End, {lt(1, dt::f32, d, layout::any)}, {}, "end"));
    EXPECT_EQ(fused_ops(c.ops), (op_ids {{0}, {2}, {3}, {5}}));
}

TEST(FusedPartitions, IntermediatesAroundAMovementFuseWhateverTheirStrides) {
    // Padded strides on both intermediates: the Reorder is folded away at compile, so neither
    // is ever written (the layout rule of IntermediateWithAStridedLayoutIsNotFused is moot).
    const dims d {2, 3, 4, 5};
    graph_case c = requantize_moved(dense(0, dt::u8, d), {}, {}, 1, 1);
    const lt m1 = strided(1, dt::f32, d, {100, 32, 8, 1}), m2 = strided(2, dt::f32, d, {1, 2, 6, 24});
    c.ops[0] = static_op(op::kind::Dequantize, 0, dense(0, dt::u8, d), m1, 1,
            scales_for(3, 0.1f), zps_for(3, 120));
    c.ops[1] = op(2, op::kind::Reorder, {m1}, {m2}, "reorder");
    c.ops[2] = static_op(op::kind::Quantize, 3, m2, lt(4, dt::s8, d, layout::any), 1,
            scales_for(3, 0.3f, 7), zps_for(3, -4));
    EXPECT_EQ(fused_ops(c.ops), (op_ids {{0, 2, 3}}));
    expect_fused_exact(c);
}

// Dequantize -> StaticReshape -> Quantize: the reshape is a view of the dense intermediate,
// folded where both shapes regroup one finer shape that cuts no channel (passes/
// chain_rewrite.hpp, common_refinement), else left as three partitions.

/// Dequantize (x's type -> f32, axis ax1 of x) -> StaticReshape to `shape` -> Quantize (f32 ->
/// ddt, axis ax2 of `shape`, written with strides ys; empty: dense); -1: per-tensor. With
/// `order`, a StaticTranspose by it stands between the Dequantize and the reshape. The
/// intermediates are `any`. `dynamic`: DynamicDequantize / DynamicQuantize.
graph_case requantize_reshaped(const lt &x, const dims &shape, const dims &ys, int ax1, int ax2,
        dt ddt = dt::s8, bool dynamic = false, const std::vector<int64_t> &order = {}) {
    const dims d = x.get_dims();
    const dims e = order.empty() ? d : transposed(d, order);
    const int64_t c1 = ax1 < 0 ? 1 : d[static_cast<size_t>(ax1)];
    const int64_t c2 = ax2 < 0 ? 1 : shape[static_cast<size_t>(ax2)];
    const lt y = ys.empty() ? lt(4, ddt, shape, layout::any) : strided(4, ddt, shape, ys);
    const lt m1 = lt(1, dt::f32, d, layout::any), mt = lt(5, dt::f32, e, layout::any),
             m2 = lt(2, dt::f32, shape, layout::any);
    graph_case c = requantize_ends(x, m1, m2, y, ax1, ax2, c1, c2, dynamic);
    op rs(2, op::kind::StaticReshape, {order.empty() ? m1 : mt}, {m2}, "reshape");
    rs.set_attr("shape", shape);
    rs.set_attr("special_zero", false);
    c.ops.insert(c.ops.begin() + 1, rs);
    if (!order.empty()) {
        op tr(1, op::kind::StaticTranspose, {m1}, {mt}, "transpose");
        tr.set_attr("order", order);
        c.ops.insert(c.ops.begin() + 1, tr);
    }
    c.outputs = {4};
    return c;
}

TEST(FusedPartitions, RequantizeAroundReshape) {
    // A flatten (NCHW -> N x CHW, as before a fully connected layer) and its inverse, a
    // regrouping whose refinement is finer than both shapes, each per-tensor and with the
    // channel on either side where the refinement keeps it whole; into dense, padded and
    // transposed destinations.
    struct rcase {
        dims from, to;
        int ax1, ax2; // kept whole by the refinement
    };
    const std::vector<rcase> cases {{{1, 64, 7, 7}, {1, 3136}, 1, -1},
            {{2, 16, 5, 9}, {2, 720}, 0, 0}, {{2, 720}, {2, 16, 5, 9}, 0, 1},
            {{6, 10, 3}, {3, 2, 5, 6}, 2, 2}, {{4, 3, 33}, {12, 33}, 2, 1},
            {{1, 64, 56, 56}, {64, 3136}, 1, 0}};
    for (const rcase &r : cases) {
        const lt x = dense(0, dt::u8, r.from);
        const dims &t = r.to;
        dims padded(t.size()), transposed_ys(t.size());
        int64_t step = 1;
        for (size_t i = t.size(); i-- > 0;) padded[i] = step, step *= (i + 1 == t.size() ? t[i] + 3 : t[i]);
        step = 1; // the first dim innermost
        for (size_t i = 0; i < t.size(); ++i) transposed_ys[i] = step, step *= t[i];
        for (int a1 : {-1, r.ax1})
            for (int a2 : {-1, r.ax2}) {
                SCOPED_TRACE("to " + std::to_string(t.size()) + "-D " + std::to_string(t.back())
                        + " axes " + std::to_string(a1) + " " + std::to_string(a2));
                expect_fused_exact(requantize_reshaped(x, t, {}, a1, a2));
                expect_fused_exact(requantize_reshaped(x, t, padded, a1, a2, dt::u8));
                expect_fused_exact(requantize_reshaped(x, t, transposed_ys, a1, a2));
            }
    }
}

TEST(FusedPartitions, RequantizeAroundReshapeFromStridedSource) {
    // NHWC source flattened in NCHW order: the refinement is the source's own dims, each
    // stepping through it as the user's strides say.
    const dims d {2, 12, 5, 7};
    const lt nhwc = strided(0, dt::u8, d, nhwc_strides(d));
    expect_fused_exact(requantize_reshaped(nhwc, {2, 420}, {}, 1, -1));
    expect_fused_exact(requantize_reshaped(nhwc, {24, 35}, {}, -1, -1, dt::u8));
    expect_fused_exact(requantize_reshaped(nhwc, {2, 12, 35}, {}, 1, 1));
}

TEST(FusedPartitions, RequantizeAroundReshapeThroughChainStages) {
    // Float8 ends: no table, two kernels in chain_runner over the refined index space.
    // 8-bit ends with runtime parameters: one lookup, its tables built at execute.
    const dims d {2, 20, 6, 17};
    const lt u8 = dense(0, dt::u8, d), f8 = dense(0, dt::f8_e4m3, d);
    std::vector<graph_case> cases {requantize_reshaped(u8, {2, 2040}, {}, 1, 0, dt::f8_e5m2),
            requantize_reshaped(f8, {2, 20, 102}, {}, 1, 1, dt::s8)};
    for (const graph_case &c : cases) {
        EXPECT_NE(fused_kernel(c).find('+'), std::string::npos) << fused_kernel(c);
        expect_fused_exact(c);
    }
    for (const graph_case &c : {requantize_reshaped(u8, {40, 102}, {}, -1, -1, dt::s8, true),
                 requantize_reshaped(u8, {2, 20, 102}, {}, 1, 1, dt::u8, true)}) {
        EXPECT_TRUE(is_lookup(fused_kernel(c))) << fused_kernel(c);
        expect_fused_exact(c);
    }
}

TEST(FusedPartitions, RequantizeAroundTransposeThenReshape) {
    // NCHW -> NHWC -> N x HWC (a flatten after a layout change): the transpose folds first,
    // then the reshape, the channel moved through both.
    const dims d {2, 12, 5, 7};
    const lt x = dense(0, dt::u8, d);
    const std::vector<int64_t> to_nhwc {0, 2, 3, 1};
    expect_fused_exact(requantize_reshaped(x, {2, 420}, {}, -1, -1, dt::s8, false, to_nhwc));
    expect_fused_exact(requantize_reshaped(x, {70, 12}, {}, 1, 1, dt::s8, false, to_nhwc));
    expect_fused_exact(requantize_reshaped(x, {2, 35, 12}, {}, 1, 2, dt::u8, true, to_nhwc));
}

TEST(FusedPartitions, RequantizeAroundReorderThenReshape) {
    // Dequantize -> Reorder -> StaticReshape -> Quantize (requantize_reorder_reshape): the
    // Dequantize's result declared NHWC and reordered to the dense layout the reshape reads
    // (as oneDNN's int8_reorder_fusion cases declare theirs), which the fused chain never
    // writes.
    const dims d {2, 12, 5, 7};
    graph_case c = requantize_reshaped(
            dense(0, dt::u8, d), {2, 12, 35}, {}, 1, 1, dt::s8, false, {0, 1, 2, 3});
    const lt m1 = strided(1, dt::f32, d, nhwc_strides(d));
    c.ops[0] = static_op(op::kind::Dequantize, 0, dense(0, dt::u8, d), m1, 1,
            scales_for(12, 0.1f), zps_for(12, 120));
    c.ops[1] = op(1, op::kind::Reorder, {m1}, {lt(5, dt::f32, d, layout::any)}, "reorder");
    EXPECT_EQ(fused_ops(c.ops), (op_ids {{0, 1, 2, 3}}));
    expect_fused_exact(c);
}

TEST(FusedPartitions, RequantizeAroundReshapeEmpty) {
    for (const dims &d : {dims {0, 3, 4, 5}, dims {2, 3, 0, 5}}) {
        const lt x = dense(0, dt::u8, d);
        expect_fused_exact(requantize_reshaped(x, {d[0] * d[1], d[2] * d[3]}, {}, 1, -1));
        expect_fused_exact(requantize_reshaped(x, {d[0], d[1] * d[2] * d[3]}, {}, -1, -1,
                dt::s8, true));
    }
}

TEST(FusedPartitions, ReshapesThatDoNotFoldStayApart) {
    // No common refinement ((6, 4) and (4, 6) cut at 4 and 6, and 6 is no multiple of 4): the
    // view would need one stride for two dims. A refinement that would cut the Dequantize's
    // channel (64 of 1x64x7x7 into 8x8) or the Quantize's (49 of 64x49 from 64x7x7): a
    // parameter index spanning two dims. Each stays three partitions and runs as such.
    const std::vector<graph_case> apart {
            requantize_reshaped(dense(0, dt::u8, {6, 4}), {4, 6}, {}, -1, -1),
            requantize_reshaped(dense(0, dt::u8, {1, 64, 7, 7}), {8, 8, 49}, {}, 1, -1),
            requantize_reshaped(dense(0, dt::u8, {64, 7, 7}), {64, 49}, {}, -1, 1)};
    for (const graph_case &c : apart) {
        EXPECT_EQ(fused_ops(c.ops), (op_ids {{0}, {2}, {3}}));
        EXPECT_EQ(run_graph(c, policy::fusion).outputs, run_graph(c, policy::debug).outputs);
    }
    // Per-tensor, the same reshapes fold: only channels constrain the refinement.
    EXPECT_EQ(fused_ops(requantize_reshaped(dense(0, dt::u8, {1, 64, 7, 7}), {8, 8, 49}, {}, -1,
                      -1).ops),
            (op_ids {{0, 2, 3}}));
    // An intermediate that is also a graph output.
    graph_case c = requantize_reshaped(dense(0, dt::u8, {2, 3, 4}), {6, 4}, {}, -1, -1);
    c.ops.push_back(op(5, op::kind::End, {lt(2, dt::f32, {6, 4}, layout::any)}, {}, "end"));
    EXPECT_EQ(fused_ops(c.ops), (op_ids {{0}, {2}, {3}, {5}}));
}

TEST(FusedPartitions, ReshapeChainRunsAsOneLookup) {
    // A static 8-bit flatten is a table lookup like the requantize without it.
    const graph_case c = requantize_reshaped(dense(0, dt::u8, {1, 64, 56, 56}), {64, 3136}, {},
            -1, -1);
    const std::string k = fused_kernel(c);
    if (k.find("jit:") == 0) {
        EXPECT_TRUE(is_lookup(k)) << k;
    }
    expect_one_kernel(fusion_verbose_lines(c), "requantize_reshape(Dequantize+StaticReshape+Quantize)");
}
