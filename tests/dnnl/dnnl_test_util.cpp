#include "dnnl/dnnl_test_util.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "backends/dnnl/dnnl_backend.hpp"
#include "backends/ref/ref_backend.hpp"
#include "common/data_types.hpp"
#include "common/dense_strides.hpp"
#include "passes/lowering.hpp"

namespace qgraph {
namespace impl {
namespace dnnl_test {

namespace {

uint64_t mix(uint64_t x) { // splitmix64: fixed, seedless pseudo-random values
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

float bits_to_f32(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

void store_int(void *base, data_type dt, int64_t i, int64_t v) {
    switch (dt) {
        case data_type::s32: static_cast<int32_t *>(base)[i] = static_cast<int32_t>(v); break;
        case data_type::s8: static_cast<int8_t *>(base)[i] = static_cast<int8_t>(v); break;
        case data_type::u8: static_cast<uint8_t *>(base)[i] = static_cast<uint8_t>(v); break;
        default: break;
    }
}

std::string bytes_of(const uint8_t *p, size_t n) {
    std::ostringstream os;
    os << std::hex;
    for (size_t i = n; i-- > 0;) os << (p[i] < 16 ? "0" : "") << int(p[i]);
    return os.str();
}

} // namespace

spec quantize_spec(std::vector<int64_t> dims) {
    spec s;
    s.kind = q_kind::quantize;
    s.src_dt = data_type::f32;
    s.dst_dt = data_type::u8;
    s.dims = std::move(dims);
    return s;
}

spec dequantize_spec(data_type src, std::vector<int64_t> dims) {
    spec s;
    s.kind = q_kind::dequantize;
    s.src_dt = src;
    s.dst_dt = data_type::f32;
    s.dims = std::move(dims);
    s.scales = {0.1f};
    return s;
}


std::vector<int64_t> reversed_strides(const std::vector<int64_t> &dims) {
    std::vector<int64_t> s(dims.size());
    int64_t st = 1;
    for (size_t i = 0; i < dims.size(); ++i) {
        s[i] = st;
        st *= dims[i];
    }
    return s;
}

std::vector<int64_t> padded_strides(const std::vector<int64_t> &dims, int64_t pad) {
    std::vector<int64_t> s(dims.size());
    int64_t st = 1;
    for (size_t i = dims.size(); i-- > 0;) {
        s[i] = st;
        st = st * dims[i] + pad;
    }
    return s;
}

int64_t span_of(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
    int64_t m = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == 0) return 0;
        m += (dims[i] - 1) * strides[i];
    }
    return m + 1;
}

quant_problem make_problem(const spec &s) {
    quant_problem p;
    p.kind = s.kind;
    p.src_dt = s.src_dt;
    p.dst_dt = s.dst_dt;
    p.op_name = s.kind == q_kind::dequantize ? "TestDequantize" : "TestQuantize";
    p.orig_dims = s.dims;
    p.orig_src_strides = s.src_strides.empty() ? qtest::dense_strides(s.dims) : s.src_strides;
    p.orig_dst_strides = s.dst_strides.empty() ? qtest::dense_strides(s.dims) : s.dst_strides;
    p.orig_params.assign(s.dims.size(), param_dim {});
    if (s.axis >= 0) p.orig_params[s.axis] = param_dim {1, s.scale_stride, s.zp_stride};
    p.nelems = 1;
    for (int64_t d : s.dims) p.nelems *= d;
    canonicalise(p);

    p.scale_src = s.scale_src;
    if (s.scale_src == param_source::attr) p.scales = s.scales;
    p.zp_src = s.zp_src;
    if (s.zp_src == param_source::attr) p.zps = s.zps;
    if (s.zp_src == param_source::input) p.zp_dt = s.zp_dt;
    return p;
}

namespace {

int64_t src_span(const spec &s) {
    return span_of(s.dims, s.src_strides.empty() ? qtest::dense_strides(s.dims) : s.src_strides);
}

// Runtime scale and zero-point buffers of `s`.
void add_params(const spec &s, inputs &in) {
    // Gaps of strided parameter buffers hold values that would show if a kernel read them.
    if (s.scale_src == param_source::input) {
        in.scales.assign((s.scales.size() - 1) * s.scale_stride + 1,
                std::numeric_limits<float>::quiet_NaN());
        for (size_t i = 0; i < s.scales.size(); ++i) in.scales[i * s.scale_stride] = s.scales[i];
    }
    if (s.zp_src == param_source::input) {
        const size_t n_zp = (s.zps.size() - 1) * s.zp_stride + 1;
        in.zps.assign(n_zp * size_of(s.zp_dt), 77);
        for (size_t i = 0; i < s.zps.size(); ++i)
            store_int(in.zps.data(), s.zp_dt, static_cast<int64_t>(i * s.zp_stride), s.zps[i]);
    }
}

} // namespace

inputs make_f32_inputs(const spec &s, const std::function<float(int64_t)> &value) {
    inputs in;
    const int64_t n = src_span(s);
    in.src.resize(static_cast<size_t>(n) * sizeof(float));
    for (int64_t i = 0; i < n; ++i) {
        const float v = value(i);
        std::memcpy(&in.src[static_cast<size_t>(i) * sizeof(float)], &v, sizeof v);
    }
    add_params(s, in);
    return in;
}

inputs make_int_inputs(const spec &s, const std::function<int64_t(int64_t)> &value) {
    inputs in;
    const int64_t n = src_span(s);
    in.src.resize(static_cast<size_t>(n) * size_of(s.src_dt));
    for (int64_t i = 0; i < n; ++i) store_int(in.src.data(), s.src_dt, i, value(i));
    add_params(s, in);
    return in;
}

float quantize_input(int64_t i, float s) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    // Absolute values, whatever the scale.
    static const float absolute[] = {nan, -nan, bits_to_f32(0x7fa00001) /* signalling */,
            bits_to_f32(0xffc12345), inf, -inf, 0.f, -0.f,
            std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
            std::numeric_limits<float>::denorm_min(), -std::numeric_limits<float>::denorm_min(),
            bits_to_f32(0x007fffff), bits_to_f32(0x807fffff),
            std::numeric_limits<float>::min(), -std::numeric_limits<float>::min()};
    // Values of x / s: ties, the u8/s8 edges, and |x/s| >= 2^31.
    static const float relative[] = {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 0.49999997f,
            0.50000006f, 126.5f, 127.5f, 128.5f, -127.5f, -128.5f, -129.5f, 254.5f, 255.5f,
            256.5f, 255.49998f, 2147483648.f, -2147483648.f, 2147483520.f, 3e9f, -3e9f, 1e20f,
            -1e20f, 4294967296.f};
    constexpr int64_t n_abs = sizeof absolute / sizeof absolute[0];
    constexpr int64_t n_rel = sizeof relative / sizeof relative[0];
    const uint64_t h = mix(static_cast<uint64_t>(i));
    switch (i % 5) {
        case 0: return absolute[(i / 5) % n_abs];
        case 1: return relative[(i / 5) % n_rel] * s;
        case 2: return (static_cast<float>((i / 5) % 601) - 300.f + 0.5f) * s; // every tie
        case 3: return (static_cast<float>(h % 600001) / 1000.f - 300.f) * s;
        default: return bits_to_f32(static_cast<uint32_t>(h)); // any bit pattern
    }
}

int64_t dequantize_input(int64_t i, data_type dt) {
    // Each run of 256 consecutive elements holds every 8-bit value once.
    const int64_t byte = (i + i / 256) & 255;
    if (dt == data_type::u8) return byte;
    if (dt == data_type::s8) return byte - 128;
    static const int64_t edges[] = {std::numeric_limits<int32_t>::min(),
            std::numeric_limits<int32_t>::max(), 0, 1, -1, 16777216, 16777217, -16777217,
            16777219, 33554435, -33554435, 2147483520, -2147483520, 2147483583, 1073741825};
    constexpr int64_t n_edges = sizeof edges / sizeof edges[0];
    const uint64_t h = mix(static_cast<uint64_t>(i));
    switch (i % 4) {
        case 0: return edges[(i / 4) % n_edges];
        case 1: return static_cast<int32_t>(static_cast<uint32_t>(h));
        case 2: return static_cast<int64_t>(h % 70000001) - 35000000; // around 2^24 .. 2^25
        default: return static_cast<int64_t>(h % 2001) - 1000;
    }
}

fallback_factory ref_factory(const quant_problem &prb) {
    return [prb]() {
        std::string reason;
        return ref_backend().create(prb, {}, reason);
    };
}

std::unique_ptr<kernel> create_dnnl(const quant_problem &prb, std::string &reason) {
    return dnnl_backend().create(prb, ref_factory(prb), reason);
}

::testing::AssertionResult same_as_ref(const spec &s, const inputs &in, std::string *ran) {
    const quant_problem prb = make_problem(s);
    std::string reason;
    const auto dk = create_dnnl(prb, reason);
    if (!dk)
        return ::testing::AssertionFailure()
                << "dnnl rejected " << prb.describe() << ": " << reason;
    const auto rk = ref_backend().create(prb, {}, reason);
    if (!rk) return ::testing::AssertionFailure() << "ref rejected: " << reason;

    const auto ds = s.dst_strides.empty() ? qtest::dense_strides(s.dims) : s.dst_strides;
    const size_t esz = size_of(s.dst_dt);
    const size_t bytes = static_cast<size_t>(span_of(s.dims, ds)) * esz;
    // Same junk in both, so elements neither kernel writes compare equal too.
    std::vector<uint8_t> got(bytes, 0xa5), want(bytes, 0xa5);

    exec_args args;
    args.src = in.src.data();
    args.scales = in.scales.empty() ? nullptr : in.scales.data();
    args.zps = in.zps.empty() ? nullptr : in.zps.data();
    args.dst = got.data();
    const kernel &k = dk->run(args);
    if (ran) *ran = k.name();
    args.dst = want.data();
    rk->run(args);

    if (std::memcmp(got.data(), want.data(), bytes) == 0) return ::testing::AssertionSuccess();
    size_t first = 0, count = 0;
    for (size_t e = 0; e < bytes / esz; ++e)
        if (std::memcmp(&got[e * esz], &want[e * esz], esz) != 0 && count++ == 0) first = e;
    return ::testing::AssertionFailure()
            << prb.describe() << " (ran " << k.name() << "): " << count
            << " elements differ; first at dst offset " << first << ": dnnl 0x"
            << bytes_of(&got[first * esz], esz) << " ref 0x"
            << bytes_of(&want[first * esz], esz);
}

::testing::AssertionResult same_as_ref(const spec &s, std::string *ran) {
    if (s.src_dt == data_type::f32) {
        const float s0 = s.scales.empty() ? 1.f : s.scales.front();
        return same_as_ref(
                s, make_f32_inputs(s, [s0](int64_t i) { return quantize_input(i, s0); }), ran);
    }
    const data_type dt = s.src_dt;
    return same_as_ref(
            s, make_int_inputs(s, [dt](int64_t i) { return dequantize_input(i, dt); }), ran);
}

} // namespace dnnl_test
} // namespace impl
} // namespace qgraph
