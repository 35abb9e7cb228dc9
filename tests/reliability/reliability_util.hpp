#ifndef QGRAPH_TESTS_RELIABILITY_RELIABILITY_UTIL_HPP
#define QGRAPH_TESTS_RELIABILITY_RELIABILITY_UTIL_HPP

// Helpers of the reliability tests: a few representative one-op problems with deterministic
// inputs, a run that returns the output bytes, and a watchdog that turns a hang into a
// failure. Public API only.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "qgraph/qgraph.hpp"

namespace qrel {

using lt = qgraph::logical_tensor;
using dt = qgraph::data_type;
using qgraph::op;

inline qgraph::engine cpu() { return qgraph::engine(qgraph::engine::kind::cpu, 0); }

/// One op, the logical tensors it is compiled for, and how to fill its inputs.
struct problem {
    std::string name;
    op the_op;
    std::vector<lt> ins, outs;
};

/// Deterministic bytes for one input: f32 data in [-300, 300) with a few specials, scales in
/// [0.25, 4), integers over their whole range. `seed` makes each caller's data different.
inline std::vector<unsigned char> input_bytes(const lt &t, bool is_scale, uint32_t seed) {
    const size_t n = static_cast<size_t>(t.get_element_num());
    const size_t bytes = t.get_mem_size();
    std::vector<unsigned char> out(bytes, 0);
    uint32_t x = seed * 2654435761u + 12345u;
    auto next = [&x] {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        return x;
    };
    // Dense layouts only: these problems use dense inputs.
    for (size_t i = 0; i < n; ++i) {
        const uint32_t r = next();
        switch (t.get_data_type()) {
            case dt::f32: {
                float v = is_scale ? 0.25f + static_cast<float>(r % 1500) / 400.f
                                   : static_cast<float>(static_cast<int32_t>(r % 240000) - 120000)
                                / 400.f;
                if (!is_scale && r % 97 == 0) v = -0.5f - static_cast<float>(r % 5); // ties
                std::memcpy(out.data() + 4 * i, &v, 4);
                break;
            }
            case dt::s32: {
                const int32_t v = static_cast<int32_t>(r % 2001) - 1000;
                std::memcpy(out.data() + 4 * i, &v, 4);
                break;
            }
            default: out[i] = static_cast<unsigned char>(r); break;
        }
    }
    return out;
}

inline op make_quantize(size_t id, const lt &x, const lt &y, bool per_channel, size_t nch) {
    op o(id, op::kind::Quantize, {x}, {y}, "q" + std::to_string(id));
    if (per_channel) {
        std::vector<float> sc;
        std::vector<int64_t> zp;
        for (size_t c = 0; c < nch; ++c) {
            sc.push_back(0.125f * static_cast<float>(c % 7 + 1));
            zp.push_back(static_cast<int64_t>(c % 5));
        }
        o.set_attr<std::string>(op::attr::qtype, "per_channel");
        o.set_attr<int64_t>(op::attr::axis, 1);
        o.set_attr(op::attr::scales, sc);
        o.set_attr(op::attr::zps, zp);
    } else {
        o.set_attr<std::string>(op::attr::qtype, "per_tensor");
        o.set_attr(op::attr::scales, std::vector<float> {0.37f});
        o.set_attr(op::attr::zps, std::vector<int64_t> {3});
    }
    return o;
}

/// Representative problems: static per-tensor and per-channel quantize (dnnl takes these),
/// dequantize, ONNX QuantizeLinear with runtime scale and zero point (ref), and
/// DynamicQuantizeLinear (a reduction, then a quantize). `rows` scales the size.
inline std::vector<problem> problems(int64_t rows = 64) {
    std::vector<problem> v;
    const lt::dims d {rows, 96};
    {
        lt x(0, dt::f32, d, lt::layout_type::strided), y(1, dt::u8, d, lt::layout_type::strided);
        v.push_back({"quantize_per_tensor_u8", make_quantize(0, x, y, false, 1), {x}, {y}});
    }
    {
        lt x(0, dt::f32, d, lt::layout_type::strided), y(1, dt::s8, d, lt::layout_type::strided);
        v.push_back({"quantize_per_channel_s8", make_quantize(0, x, y, true, 96), {x}, {y}});
    }
    {
        lt x(0, dt::s8, d, lt::layout_type::strided), y(1, dt::f32, d, lt::layout_type::strided);
        op o(0, op::kind::Dequantize, {x}, {y}, "deq");
        o.set_attr<std::string>(op::attr::qtype, "per_tensor");
        o.set_attr(op::attr::scales, std::vector<float> {0.5f});
        o.set_attr(op::attr::zps, std::vector<int64_t> {-7});
        v.push_back({"dequantize_s8", o, {x}, {y}});
    }
    {
        lt x(0, dt::f32, d, lt::layout_type::strided);
        lt s(1, dt::f32, {96}, lt::layout_type::strided), z(2, dt::u8, {96}, lt::layout_type::strided);
        lt y(3, dt::u8, d, lt::layout_type::strided);
        op o(0, op::kind::QuantizeLinear, {x, s, z}, {y}, "qlinear");
        o.set_attr<int64_t>(op::attr::axis, 1);
        v.push_back({"quantizelinear_axis1", o, {x, s, z}, {y}});
    }
    {
        lt x(0, dt::f32, d, lt::layout_type::strided);
        lt y(1, dt::u8, d, lt::layout_type::strided);
        lt s(2, dt::f32, {}, lt::layout_type::strided), z(3, dt::u8, {}, lt::layout_type::strided);
        op o(0, op::kind::DynamicQuantizeLinear, {x}, {y, s, z}, "dql");
        v.push_back({"dynamicquantizelinear", o, {x}, {y, s, z}});
    }
    return v;
}

inline qgraph::partition partition_of(const op &o) {
    qgraph::graph g(qgraph::engine::kind::cpu);
    g.add_op(o);
    g.finalize();
    return g.get_partitions().at(0);
}

inline qgraph::compiled_partition compile(const problem &p) {
    return partition_of(p.the_op).compile(p.ins, p.outs, cpu());
}

/// Inputs for one caller (seed): port 1 of QuantizeLinear is its scale.
inline std::vector<std::vector<unsigned char>> make_inputs(const problem &p, uint32_t seed) {
    std::vector<std::vector<unsigned char>> in;
    for (size_t i = 0; i < p.ins.size(); ++i)
        in.push_back(input_bytes(p.ins[i], p.the_op.get_kind() == op::kind::QuantizeLinear && i == 1,
                seed * 31u + static_cast<uint32_t>(i)));
    return in;
}

/// Executes `cp` on the given input bytes; returns every output's bytes, concatenated.
/// Each output sits between two guard zones that must stay untouched.
inline std::vector<unsigned char> run(const qgraph::compiled_partition &cp,
        const std::vector<std::vector<unsigned char>> &in, size_t misalign = 0) {
    qgraph::stream strm(cpu());
    std::vector<qgraph::tensor> ti, to;
    // `misalign` shifts every buffer off its natural alignment (kernels use unaligned loads).
    std::vector<std::vector<unsigned char>> in_store;
    for (size_t i = 0; i < in.size(); ++i) {
        in_store.emplace_back(in[i].size() + misalign + 1);
        std::memcpy(in_store.back().data() + misalign, in[i].data(), in[i].size());
    }
    for (size_t i = 0; i < in.size(); ++i)
        ti.emplace_back(cp.get_input_logical_tensors()[i], cpu(), in_store[i].data() + misalign);
    constexpr size_t guard = 64;
    std::vector<std::vector<unsigned char>> out_store;
    for (const lt &t : cp.get_output_logical_tensors()) {
        const lt c = cp.query_logical_tensor(t.get_id());
        out_store.emplace_back(c.get_mem_size() + 2 * guard + misalign, 0xEE);
        to.emplace_back(c, cpu(), out_store.back().data() + guard + misalign);
    }
    cp.execute(strm, ti, to);
    std::vector<unsigned char> result;
    for (size_t i = 0; i < out_store.size(); ++i) {
        const auto &s = out_store[i];
        const size_t n = s.size() - 2 * guard - misalign;
        for (size_t k = 0; k < guard + misalign; ++k)
            if (s[k] != 0xEE) ADD_FAILURE() << "output " << i << ": guard before written";
        for (size_t k = guard + misalign + n; k < s.size(); ++k)
            if (s[k] != 0xEE) ADD_FAILURE() << "output " << i << ": guard after written";
        result.insert(result.end(), s.begin() + guard + misalign, s.begin() + guard + misalign + n);
    }
    for (size_t i = 0; i < in.size(); ++i)
        if (std::memcmp(in_store[i].data() + misalign, in[i].data(), in[i].size()) != 0)
            ADD_FAILURE() << "input " << i << " was written";
    return result;
}

/// Runs `body` on its own thread and fails (then ends the process: a deadlocked thread cannot
/// be joined) if it has not finished within `limit`. Generous limits only: this guards
/// against hangs, it is not a performance check.
inline void with_watchdog(const char *what, std::chrono::seconds limit,
        const std::function<void()> &body) {
    std::packaged_task<void()> task(body);
    std::future<void> done = task.get_future();
    std::thread t(std::move(task));
    if (done.wait_for(limit) != std::future_status::ready) {
        std::fprintf(stderr, "%s: still running after %lld s (deadlock?)\n", what,
                static_cast<long long>(limit.count()));
        std::fflush(stderr);
        std::_Exit(3);
    }
    t.join();
    done.get(); // rethrows what the body threw
}

/// Restores the thread count and cache capacity a test changes.
class config_guard {
public:
    config_guard()
        : threads_(qgraph::get_num_threads())
        , capacity_(qgraph::get_compiled_partition_cache_capacity()) {}
    ~config_guard() {
        qgraph::set_num_threads(threads_);
        qgraph::set_compiled_partition_cache_capacity(capacity_);
    }
    config_guard(const config_guard &) = delete;
    config_guard &operator=(const config_guard &) = delete;

private:
    int threads_;
    int capacity_;
};

} // namespace qrel

#endif
