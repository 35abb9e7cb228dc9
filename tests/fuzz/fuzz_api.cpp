// libFuzzer target 2: the public API driven by a byte stream. The bytes choose op kinds, port
// counts, logical tensors (ids, dtypes, ranks, dims, strides, layouts), attributes (names,
// variant types, scales as raw float bits, zero points at and beyond every range, axes), the
// backend, and then add_op / finalize / get_partitions / compile / execute with buffers of the
// compiled sizes (sometimes misaligned). Every refusal must be a qgraph::error; anything else
// (a crash, a sanitizer report, another exception) is a finding.
//
// Sizes are capped where the fuzzer could otherwise ask for real work: dims are small unless
// chosen from the "extreme" list (which compile must refuse or handle without allocating),
// and nothing over 64 KiB is executed.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/byte_reader.hpp"
#include "qgraph/qgraph.hpp"

namespace {

using namespace qgraph;
using lt = logical_tensor;
using qfuzz::byte_reader;

constexpr int64_t i64max = std::numeric_limits<int64_t>::max();
constexpr int64_t i64min = std::numeric_limits<int64_t>::min();

const data_type all_dtypes[] = {
#define QGRAPH_X(name) data_type::name,
        QGRAPH_DATA_TYPES(QGRAPH_X)
#undef QGRAPH_X
};

// Mostly the quantization ops (the code worth reaching), sometimes any other kind.
op::kind pick_kind(byte_reader &r) {
    static const op::kind quant[] = {op::kind::Quantize, op::kind::Dequantize,
            op::kind::DynamicQuantize, op::kind::DynamicDequantize, op::kind::QuantizeLinear,
            op::kind::DequantizeLinear, op::kind::DynamicQuantizeLinear};
    if (r.pick(8) != 0) return quant[r.pick(7)];
    return static_cast<op::kind>(r.pick(static_cast<size_t>(op::kind::Wildcard) + 1));
}

data_type pick_dtype(byte_reader &r) {
    static const data_type common[] = {data_type::f32, data_type::u8, data_type::s8,
            data_type::s32};
    if (r.pick(4) != 0) return common[r.pick(4)];
    return all_dtypes[r.pick(sizeof(all_dtypes) / sizeof(all_dtypes[0]))];
}

int64_t pick_dim(byte_reader &r) {
    static const int64_t extreme[] = {0, -1, i64max, i64min, int64_t(1) << 31,
            int64_t(1) << 32, int64_t(1) << 62, 65537};
    const uint8_t c = r.u8();
    if (c < 224) return c % 9; // 0..8: small shapes run
    return extreme[c % 8];
}

int64_t pick_stride(byte_reader &r, int64_t dense) {
    static const int64_t odd[] = {0, 1, -1, 2, 3, 7, int64_t(1) << 40, i64max, i64min, -4};
    const uint8_t c = r.u8();
    if (c < 160) return dense;
    return odd[c % 10];
}

lt pick_lt(byte_reader &r) {
    const size_t id = r.pick(6);
    const data_type dt = pick_dtype(r);
    const uint8_t shape_kind = r.u8();
    const auto prop = static_cast<lt::property_type>(r.pick(4));
    if (shape_kind < 24) // shape left to inference
        return lt(id, dt, shape_kind & 1 ? lt::layout_type::any : lt::layout_type::strided, prop);
    const size_t rank = r.pick(5);
    lt::dims d;
    for (size_t i = 0; i < rank; ++i) d.push_back(pick_dim(r));
    const uint8_t layout = r.u8();
    if (layout < 64) return lt(id, dt, d, lt::layout_type::any, prop);
    if (layout < 72) return lt(id, dt, d, lt::layout_type::undef, prop);
    lt::dims s(rank);
    int64_t dense = 1;
    for (size_t i = rank; i-- > 0;) {
        s[i] = pick_stride(r, dense);
        // Dense strides, saturated: extreme dims must not overflow the harness itself.
        if (d[i] > 0 && dense <= (int64_t(1) << 40) / d[i]) dense *= d[i];
    }
    if (r.pick(16) == 0 && !s.empty()) s.pop_back(); // a stride count that does not match
    return lt(id, dt, d, s, prop);
}

std::vector<float> pick_scales(byte_reader &r) {
    std::vector<float> v(r.pick(7));
    for (float &f : v) f = r.flag() ? r.raw_float() : 0.125f * static_cast<float>(r.pick(17));
    return v;
}

std::vector<int64_t> pick_zps(byte_reader &r) {
    static const int64_t edge[] = {0, 1, -1, 127, 128, -128, -129, 255, 256, i64max, i64min,
            2147483647, -2147483648LL};
    std::vector<int64_t> v(r.pick(7));
    for (int64_t &z : v) z = edge[r.pick(13)];
    return v;
}

void set_attrs(byte_reader &r, op &o) {
    const size_t n = r.pick(6);
    for (size_t k = 0; k < n; ++k) {
        switch (r.pick(10)) {
            case 0: {
                static const char *q[] = {"per_tensor", "per_channel", "per_group", "", "bogus"};
                o.set_attr<std::string>(op::attr::qtype, q[r.pick(5)]);
                break;
            }
            case 1: o.set_attr<int64_t>(op::attr::axis, static_cast<int8_t>(r.u8()) % 6); break;
            case 2: o.set_attr(op::attr::scales, pick_scales(r)); break;
            case 3: o.set_attr(op::attr::zps, pick_zps(r)); break;
            case 4: o.set_attr(op::attr::group_shape, pick_zps(r)); break;
            case 5: o.set_attr<int64_t>(op::attr::block_size, static_cast<int8_t>(r.u8())); break;
            case 6: o.set_attr<int64_t>(op::attr::saturate, r.pick(3)); break;
            case 7: o.set_attr<int64_t>("axis", r.flag() ? i64min : i64max); break;
            case 8: o.set_attr(op::attr::scales, r.raw_float()); break; // wrong variant type
            default: o.set_attr<std::string>("output_dtype", "u8"); break; // wrong type / name
        }
    }
}

// Default port counts for each quantization kind, varied now and then.
void add_ports(byte_reader &r, op &o) {
    size_t nin = 1, nout = 1;
    switch (o.get_kind()) {
        case op::kind::DynamicQuantize:
        case op::kind::DynamicDequantize:
        case op::kind::QuantizeLinear:
        case op::kind::DequantizeLinear: nin = 2 + r.pick(2); break;
        case op::kind::DynamicQuantizeLinear: nout = 3; break;
        default: break;
    }
    if (r.pick(8) == 0) nin = r.pick(5);
    if (r.pick(8) == 0) nout = r.pick(5);
    for (size_t i = 0; i < nin; ++i) o.add_input(pick_lt(r));
    for (size_t i = 0; i < nout; ++i) o.add_output(pick_lt(r));
}

// Compiles and runs one partition on buffers of the compiled sizes, within 64 KiB.
void run_partition(byte_reader &r, const partition &p, const engine &eng) {
    std::vector<lt> ins = p.get_input_ports(), outs = p.get_output_ports();
    if (r.pick(4) == 0 && !ins.empty()) ins[r.pick(ins.size())] = pick_lt(r); // a wrong one
    const compiled_partition cp = p.compile(ins, outs, eng);
    size_t total = 0;
    std::vector<lt> cin, cout;
    for (const lt &t : cp.get_input_logical_tensors()) cin.push_back(cp.query_logical_tensor(t.get_id()));
    for (const lt &t : cp.get_output_logical_tensors()) cout.push_back(cp.query_logical_tensor(t.get_id()));
    for (const auto *list : {&cin, &cout})
        for (const lt &t : *list) {
            const size_t b = t.get_mem_size();
            if (b > (size_t(1) << 16)) return;
            total += b;
        }
    if (total > (size_t(1) << 16)) return;
    // Kernels must take any byte address: handles are 0-3 bytes off their natural alignment
    // (regressions/api/ref_misaligned_scale is the input that found the typed loads, since
    // replaced by memcpy-based ones).
    const size_t misalign = r.pick(4);
    std::vector<std::vector<unsigned char>> store;
    store.reserve(cin.size() + cout.size());
    std::vector<tensor> tin, tout;
    for (const lt &t : cin) {
        store.emplace_back(t.get_mem_size() + misalign);
        for (unsigned char &b : store.back()) b = r.u8();
        tin.emplace_back(t, eng, t.get_mem_size() ? store.back().data() + misalign : nullptr);
    }
    for (const lt &t : cout) {
        store.emplace_back(t.get_mem_size() + misalign);
        tout.emplace_back(t, eng, t.get_mem_size() ? store.back().data() + misalign : nullptr);
    }
    stream s(eng);
    cp.execute(s, tin, tout);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    byte_reader r(data, size);
    static const std::string backends[] = {"", "ref", "dnnl", "jit"};
    const std::string old_backend = get_backend();
    try {
        const std::string &b = backends[r.pick(4)];
        try {
            set_backend(b); // "jit" may not exist in this build: then the default
        } catch (const error &) {}
        const engine eng(engine::kind::cpu, 0);
        graph g(engine::kind::cpu);
        const size_t nops = 1 + r.pick(4);
        for (size_t k = 0; k < nops; ++k) {
            op o(r.pick(4), pick_kind(r), "fuzz");
            add_ports(r, o);
            set_attrs(r, o);
            try {
                g.add_op(o, r.pick(8) == 0);
            } catch (const error &) {} // the graph stays usable after a refused op
        }
        g.finalize();
        for (const partition &p : g.get_partitions()) {
            if (!p.is_supported()) continue;
            try {
                run_partition(r, p, eng);
            } catch (const error &) {}
        }
    } catch (const error &) {
        // The defined way to refuse.
    }
    set_backend(old_backend);
    return 0;
}
