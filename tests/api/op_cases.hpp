#ifndef QGRAPH_TESTS_API_OP_CASES_HPP
#define QGRAPH_TESTS_API_OP_CASES_HPP

// Builds a runnable case for any of the six scale / zero-point ops (and DynamicQuantizeLinear)
// over any shape, axis and src / dst strides, with fixed-seed data and the expected outputs
// from the independent oracle (oracle.hpp). Used by the layout and size sweeps.

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api/helpers.hpp"
#include "api/oracle.hpp"

namespace qtest {

enum class family {
    quantize, ///< oneDNN Quantize: static scales / zps
    dequantize, ///< oneDNN Dequantize
    dyn_quantize, ///< oneDNN DynamicQuantize: scale / zp tensors
    dyn_dequantize, ///< oneDNN DynamicDequantize
    quantize_linear, ///< ONNX QuantizeLinear
    dequantize_linear, ///< ONNX DequantizeLinear
    dyn_quantize_linear, ///< ONNX DynamicQuantizeLinear
};

inline const char *name_of(family f) {
    switch (f) {
        case family::quantize: return "Quantize";
        case family::dequantize: return "Dequantize";
        case family::dyn_quantize: return "DynamicQuantize";
        case family::dyn_dequantize: return "DynamicDequantize";
        case family::quantize_linear: return "QuantizeLinear";
        case family::dequantize_linear: return "DequantizeLinear";
        case family::dyn_quantize_linear: return "DynamicQuantizeLinear";
    }
    return "?";
}

inline bool is_quantize(family f) {
    return f == family::quantize || f == family::dyn_quantize || f == family::quantize_linear;
}

/// What to build.
struct case_spec {
    family fam = family::quantize;
    dims shape;
    bool per_channel = false;
    int64_t axis = 1; ///< attribute value (may be negative); per_channel only
    dims src_strides; ///< empty: dense
    dims dst_strides; ///< empty: dense
    dt qdt = dt::u8; ///< the quantized type (dst of quantize, src of dequantize)
    dt zp_dt = dt::u8; ///< dynamic ops: u8, s8 or s32; the linear ops use qdt
    bool with_zp = true;
    uint32_t seed = 1;
    bool specials = true; ///< sprinkle NaN / Inf / huge / subnormal values into float inputs
    /// Scales +-2^k only, so that a backend multiplying by 1/s may take the case (the other
    /// parameters as set: use with_zp = false to keep quantize zero points out).
    bool pow2_scales = false;

    std::string describe() const {
        std::string s = std::string(name_of(fam)) + " " + to_string(qdt) + " shape "
                + ::testing::PrintToString(shape);
        if (per_channel) s += " axis " + std::to_string(axis);
        if (!src_strides.empty()) s += " src strides " + ::testing::PrintToString(src_strides);
        if (!dst_strides.empty()) s += " dst strides " + ::testing::PrintToString(dst_strides);
        const bool zp_is_q = fam != family::dyn_quantize && fam != family::dyn_dequantize;
        if (with_zp) s += std::string(" zp ") + to_string(zp_is_q ? qdt : zp_dt);
        if (pow2_scales) s += " pow2 scales";
        return s;
    }
};

/// A built case: the op, its input buffers, empty output buffers and the expected outputs.
struct built_case {
    op o {0, op::kind::Wildcard};
    std::vector<buffer> inputs;
    std::vector<buffer> outputs;
    std::vector<int64_t> want_int; ///< quantize: y in logical order
    std::vector<float> want_float; ///< dequantize: y in logical order
    float want_scale = 0.f; ///< DynamicQuantizeLinear
    int64_t want_zp = 0;
};

inline qrange range_of_dt(dt t) {
    return t == dt::u8 ? u8_range : (t == dt::s8 ? s8_range : s32_range);
}

/// Per-channel parameters, cycled: a mix of power-of-two and other scales, zero points
/// spread over the type's range.
inline float scale_for(int64_t c, bool pow2 = false) {
    static const float pool[] = {0.5f, 0.1f, 2.f, 0.37f, 0.25f, 1.f, 3.f, 0.0625f, -0.75f};
    static const float pow2_pool[] = {0.5f, 2.f, 0.25f, 1.f, 0.0625f, -4.f, 1024.f};
    return pow2 ? pow2_pool[c % 7] : pool[c % 9];
}
inline int64_t zp_for(dt t, int64_t c) {
    static const int64_t u8z[] = {0, 1, 128, 255, 3, 77, 200, 13};
    static const int64_t s8z[] = {0, -1, 127, -128, 3, -77, 50, -13};
    static const int64_t s32z[] = {1000, -1000, 0, 5, 300, -7, 128, 1 << 20};
    const int64_t *p = t == dt::u8 ? u8z : (t == dt::s8 ? s8z : s32z);
    return p[c % 8];
}

/// Float inputs: multiples of 1/8 in [-100, 100] (many exact ties with power-of-two scales),
/// with NaN, +-Inf and huge values at a few positions when `specials`.
inline std::vector<float> float_values(int64_t n, uint32_t seed, bool specials) {
    std::mt19937 rng(seed);
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        float x = static_cast<float>(static_cast<int64_t>(rng() % 1601) - 800) / 8.f;
        if (specials) {
            const uint32_t r = rng() % 64;
            if (r == 0) x = std::numeric_limits<float>::quiet_NaN();
            if (r == 1) x = std::numeric_limits<float>::infinity();
            if (r == 2) x = -std::numeric_limits<float>::infinity();
            if (r == 3) x = 3e9f;
            if (r == 4) x = -1e20f;
            if (r == 5) x = -0.f;
            if (r == 6) x = 1e-40f; // subnormal
            if (r == 7) x = 255.5f;
            if (r == 8) x = -128.5f;
            if (r == 9) x = 3e38f;
        }
        v[static_cast<size_t>(i)] = x;
    }
    return v;
}

inline std::vector<int64_t> int_values(int64_t n, dt t, uint32_t seed) {
    std::mt19937 rng(seed);
    const qrange q = range_of_dt(t);
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        const uint64_t span = static_cast<uint64_t>(q.hi - q.lo) + 1;
        v[static_cast<size_t>(i)] = q.lo + static_cast<int64_t>((uint64_t(rng()) << 32 | rng()) % span);
    }
    return v;
}

inline buffer int_buffer(const lt &desc, const std::vector<int64_t> &v) {
    buffer b(desc);
    switch (desc.get_data_type()) {
        case dt::u8: b.fill(std::vector<uint8_t>(v.begin(), v.end())); break;
        case dt::s8: b.fill(std::vector<int8_t>(v.begin(), v.end())); break;
        default: b.fill(std::vector<int32_t>(v.begin(), v.end())); break;
    }
    return b;
}

inline std::vector<int64_t> read_ints(const buffer &b) {
    std::vector<int64_t> v;
    switch (b.desc().get_data_type()) {
        case dt::u8:
            for (uint8_t x : b.read<uint8_t>()) v.push_back(x);
            break;
        case dt::s8:
            for (int8_t x : b.read<int8_t>()) v.push_back(x);
            break;
        default:
            for (int32_t x : b.read<int32_t>()) v.push_back(x);
            break;
    }
    return v;
}

inline lt with_strides(size_t id, dt t, const dims &d, const dims &s) {
    return s.empty() ? dense(id, t, d) : strided(id, t, d, s);
}

inline built_case build(const case_spec &c) {
    built_case b;
    const int64_t n = nelems(c.shape);
    const int rank = static_cast<int>(c.shape.size());
    const int axis = c.per_channel ? static_cast<int>(c.axis < 0 ? c.axis + rank : c.axis) : -1;
    const int64_t nparams = axis >= 0 ? c.shape[static_cast<size_t>(axis)] : 1;
    const bool q = is_quantize(c.fam);
    const dt src_dt = q || c.fam == family::dyn_quantize_linear ? dt::f32 : c.qdt;
    const dt dst_dt = c.fam == family::dyn_quantize_linear ? dt::u8 : (q ? c.qdt : dt::f32);
    const lt src = with_strides(1, src_dt, c.shape, c.src_strides);
    const lt dst = with_strides(4, dst_dt, c.shape, c.dst_strides);

    std::vector<float> xf;
    std::vector<int64_t> xi;
    // With a broadcast (zero-stride) src several elements share memory and the last write
    // wins: the oracle reads the values back in logical order.
    if (src_dt == dt::f32) {
        b.inputs.push_back(make_buffer(src, float_values(n, c.seed, c.specials)));
        xf = b.inputs[0].read<float>();
    } else {
        b.inputs.push_back(int_buffer(src, int_values(n, src_dt, c.seed)));
        xi = read_ints(b.inputs[0]);
    }

    if (c.fam == family::dyn_quantize_linear) {
        b.o = op(0, op::kind::DynamicQuantizeLinear, {src},
                {dst, dense(5, dt::f32, {}), dense(6, dt::u8, {})}, "case");
        b.outputs = {buffer(dst), buffer(dense(5, dt::f32, {})), buffer(dense(6, dt::u8, {}))};
        const oracle_dql r = oracle_dynamic_quantize_linear(xf);
        b.want_int = r.y;
        b.want_scale = r.scale;
        b.want_zp = r.zp;
        return b;
    }

    std::vector<float> scales;
    std::vector<int64_t> zps;
    const dt zdt = (c.fam == family::quantize_linear || c.fam == family::dequantize_linear
                           || c.fam == family::quantize || c.fam == family::dequantize)
            ? c.qdt
            : c.zp_dt;
    for (int64_t k = 0; k < nparams; ++k) {
        scales.push_back(scale_for(k + c.seed, c.pow2_scales));
        zps.push_back(c.with_zp ? zp_for(zdt, k + c.seed) : 0);
    }
    const dims pdims = c.per_channel ? dims {nparams} : dims {};

    switch (c.fam) {
        case family::quantize:
        case family::dequantize:
            b.o = op(0, c.fam == family::quantize ? op::kind::Quantize : op::kind::Dequantize,
                    {src}, {dst}, "case");
            b.o.set_attr(op::attr::qtype, c.per_channel ? "per_channel" : "per_tensor");
            if (c.per_channel) b.o.set_attr(op::attr::axis, c.axis);
            b.o.set_attr(op::attr::scales, scales);
            if (c.with_zp) b.o.set_attr(op::attr::zps, zps);
            break;
        case family::dyn_quantize:
        case family::dyn_dequantize:
        case family::quantize_linear:
        case family::dequantize_linear: {
            const bool dyn = c.fam == family::dyn_quantize || c.fam == family::dyn_dequantize;
            const op::kind k = c.fam == family::dyn_quantize ? op::kind::DynamicQuantize
                    : c.fam == family::dyn_dequantize        ? op::kind::DynamicDequantize
                    : c.fam == family::quantize_linear       ? op::kind::QuantizeLinear
                                                             : op::kind::DequantizeLinear;
            b.o = op(0, k, {src, dense(2, dt::f32, pdims)}, {dst}, "case");
            b.inputs.push_back(make_buffer(dense(2, dt::f32, pdims), scales));
            if (c.with_zp) {
                b.o.add_input(dense(3, zdt, pdims));
                b.inputs.push_back(int_buffer(dense(3, zdt, pdims), zps));
            }
            if (dyn) b.o.set_attr(op::attr::qtype, c.per_channel ? "per_channel" : "per_tensor");
            if (c.per_channel) b.o.set_attr(op::attr::axis, c.axis);
            break;
        }
        default: break;
    }
    b.outputs = {buffer(dst)};

    for (int64_t i = 0; i < n; ++i) {
        const int64_t ch = channel_of(c.shape, axis, i);
        const float s = scales[static_cast<size_t>(ch)];
        const int64_t z = zps[static_cast<size_t>(ch)];
        if (q)
            b.want_int.push_back(
                    oracle_quantize(xf[static_cast<size_t>(i)], s, z, range_of_dt(c.qdt)));
        else
            b.want_float.push_back(oracle_dequantize(xi[static_cast<size_t>(i)], z, s));
    }
    return b;
}

/// Runs a built case on the default backend and on ref (bitwise equal, inputs untouched),
/// then checks the outputs against the oracle.
inline void run_and_check(const case_spec &c) {
    SCOPED_TRACE(c.describe());
    built_case b = build(c);
    run_result r = run_default_and_ref(b.o, b.inputs, b.outputs);
    const buffer &y = r.outputs[0];
    if (!b.want_float.empty() || (!is_quantize(c.fam) && c.fam != family::dyn_quantize_linear)) {
        const std::vector<float> got = y.read<float>();
        ASSERT_EQ(got.size(), b.want_float.size());
        for (size_t i = 0; i < got.size(); ++i)
            ASSERT_TRUE(same_float(got[i], b.want_float[i]))
                    << "element " << i << ": got " << got[i] << ", oracle " << b.want_float[i];
    } else {
        EXPECT_EQ(read_ints(y), b.want_int);
    }
    if (c.fam == family::dyn_quantize_linear) {
        const float scale = r.outputs[1].read<float>()[0];
        EXPECT_TRUE(same_float(scale, b.want_scale)) << scale << " vs " << b.want_scale;
        EXPECT_EQ(r.outputs[2].read<uint8_t>()[0], b.want_zp);
    }
    // Bytes of the output buffer the layout does not cover stay as they were (0xA5).
    const std::vector<unsigned char> bytes = y.bytes();
    std::vector<bool> covered(bytes.size(), false);
    const size_t esz = qgraph::data_type_bits(y.desc().get_data_type()) / 8;
    for (int64_t off : offsets(y.desc()))
        for (size_t k = 0; k < esz; ++k) covered[static_cast<size_t>(off) * esz + k] = true;
    for (size_t i = 0; i < bytes.size(); ++i)
        if (!covered[i]) {
            ASSERT_EQ(bytes[i], 0xA5) << "padding byte " << i << " written";
        }
}

} // namespace qtest

#endif
