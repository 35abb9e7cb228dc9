#include "jit_test_util.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <sstream>

#include "backends/jit/jit_backend.hpp"
#include "backends/ref/ref_backend.hpp"
#include "common/cpu_isa.hpp"
#include "common/data_types.hpp"
#include "common/dense_strides.hpp"
#include "common/half_types.hpp"

namespace qtest {
namespace {

using qgraph::impl::exec_args;
using qgraph::impl::kernel;
using qgraph::impl::param_dim;

/// Elements a strided tensor spans (0 when empty).
int64_t span(const quant_problem &p, const std::vector<int64_t> &strides) {
    if (p.nelems == 0) return 0;
    int64_t s = 1;
    for (size_t d = 0; d < p.dims.size(); ++d) s += (p.dims[d] - 1) * strides[d];
    return s;
}

float pick(std::mt19937 &g, std::initializer_list<float> pool) {
    return pool.begin()[g() % pool.size()];
}

/// f32 data that exercises every rule: ordinary values, values near .5 ties of x / s, exact
/// ties for power-of-two scales, zeros, NaN, Inf, huge and subnormal values, random bits.
void fill_f32(float *x, int64_t n, float s, std::mt19937 &g) {
    std::uniform_real_distribution<float> u(-300.f, 300.f);
    const float inf = std::numeric_limits<float>::infinity();
    for (int64_t i = 0; i < n; ++i) {
        const unsigned c = g() % 20;
        float v;
        if (c < 9) {
            v = u(g) * (std::isfinite(s) && s != 0.f ? std::fabs(s) : 1.f);
        } else if (c < 12) {
            v = (std::floor(u(g)) + 0.5f) * s; // a tie, or within an ulp of one
        } else if (c < 13) {
            v = std::nextafter((std::floor(u(g)) + 0.5f) * s, inf);
        } else if (c == 13) {
            v = pick(g, {0.f, -0.f});
        } else if (c == 14) {
            v = pick(g, {std::nanf(""), -std::nanf(""), inf, -inf});
        } else if (c == 15) {
            v = pick(g, {3.4e38f, -3.4e38f, 1e30f, -1e30f, 0x1p64f, -0x1p64f, 0x1.fffffep63f,
                    2147483648.f, -2147483648.f, 1e20f});
        } else if (c == 16) {
            v = pick(g, {1e-40f, -1e-40f, 1e-45f, 0x1p-100f, -0x1p-101f, 1e-30f});
        } else {
            const uint32_t b = g();
            std::memcpy(&v, &b, 4);
        }
        x[i] = v;
    }
}

void fill_int(void *x, data_type dt, int64_t n, std::mt19937 &g) {
    if (qgraph::impl::is_minifloat(dt)) {
        // float8 codes: every window of 256 elements holds each code once (167 is odd), in
        // an order that moves with the seed.
        const uint32_t r = g();
        for (int64_t i = 0; i < n; ++i)
            static_cast<uint8_t *>(x)[i] = static_cast<uint8_t>(r + 167 * i);
        return;
    }
    for (int64_t i = 0; i < n; ++i) {
        const uint32_t r = g();
        switch (dt) {
            case data_type::u8: static_cast<uint8_t *>(x)[i] = static_cast<uint8_t>(r); break;
            case data_type::s8: static_cast<int8_t *>(x)[i] = static_cast<int8_t>(r); break;
            case data_type::u16: static_cast<uint16_t *>(x)[i] = static_cast<uint16_t>(r); break;
            case data_type::s16: static_cast<int16_t *>(x)[i] = static_cast<int16_t>(r); break;
            default: {
                // Full range, and small values where rounding of f32(x) is exact.
                int32_t v = static_cast<int32_t>(r);
                if (g() % 2) v %= 70000;
                static_cast<int32_t *>(x)[i] = v;
            }
        }
    }
}

std::string hex(const void *p, size_t n) {
    std::ostringstream os;
    for (size_t i = 0; i < n; ++i) {
        char b[4];
        std::snprintf(b, sizeof(b), "%02x", static_cast<const uint8_t *>(p)[i]);
        os << b;
    }
    return os.str();
}

} // namespace

std::unique_ptr<kernel> ref_kernel(const quant_problem &p) {
    std::string reason;
    return qgraph::impl::ref_backend().create(p, qgraph::impl::fallback_factory(), reason);
}

std::unique_ptr<kernel> jit_kernel_at_level(const quant_problem &p, std::string &reason) {
    quant_problem capped = p;
    capped.isa_cap = qgraph::impl::max_cpu_isa();
    return qgraph::impl::jit_backend().create(capped, [&p]() { return ref_kernel(p); }, reason);
}

quant_problem dense_problem(q_kind kind, data_type src, data_type dst,
        const std::vector<int64_t> &dims, int channel_dim) {
    quant_problem p;
    p.kind = kind;
    p.src_dt = src;
    p.dst_dt = dst;
    p.dims = dims;
    p.src_strides = p.dst_strides = qtest::dense_strides(dims);
    p.nelems = 1;
    for (int64_t d : dims) p.nelems *= d;
    p.params.assign(dims.size(), param_dim {});
    if (channel_dim >= 0) p.params[channel_dim] = param_dim {1, 1, 1};
    p.orig_dims = dims;
    p.orig_src_strides = p.src_strides;
    p.orig_dst_strides = p.dst_strides;
    p.orig_params = p.params;
    p.op_name = kind == q_kind::quantize ? "Quantize"
            : kind == q_kind::dequantize ? "Dequantize"
                                         : "DynamicQuantizeLinear";
    if (kind == q_kind::dynamic_quantize_linear) {
        p.scale_src = param_source::none;
        p.zp_src = param_source::none;
    }
    return p;
}

void set_params(quant_problem &p, param_source scales, param_source zps, data_type zp_dt,
        uint32_t seed) {
    std::mt19937 g(seed);
    p.scale_src = scales;
    p.zp_src = zps;
    p.zp_dt = zps == param_source::input ? zp_dt : data_type::undef;
    p.scales.clear();
    p.zps.clear();
    if (scales == param_source::attr) {
        // Static scales are finite and nonzero (the schema rejects others); both division
        // paths: 1e30, 2^-35 and the subnormal are outside [2^-30, 2^30].
        for (int64_t c = 0; c < p.nparams(); ++c)
            p.scales.push_back(pick(g, {0.1f, 1.f / 3, 0.0173f, 0x1p-20f, 3.7f, 1e30f, 1e-40f,
                    -0.5f, 1.f, 0x1p-35f, 0x1p31f, 0.25f, 0.0039215689f, 117.f}));
    }
    if (zps == param_source::attr) {
        const qgraph::impl::q_range q = qgraph::impl::range_of(
                p.kind == q_kind::quantize ? p.dst_dt : p.src_dt);
        for (int64_t c = 0; c < p.nparams(); ++c) {
            const int64_t lo = std::max<int64_t>(q.lo, -300), hi = std::min<int64_t>(q.hi, 300);
            p.zps.push_back(p.src_dt == data_type::s32 && p.kind == q_kind::dequantize
                            ? 0
                            : lo + static_cast<int64_t>(g() % (hi - lo + 1)));
        }
    }
}

outcome run_and_compare(const quant_problem &p, uint32_t seed, guard_side side,
        const std::vector<float> *src_values, const std::vector<uint16_t> *src_codes,
        const std::vector<uint8_t> *float_zps) {
    using namespace qgraph::impl;
    outcome out;
    std::mt19937 g(seed);
    const size_t ss = size_of(p.src_dt), ds = size_of(p.dst_dt);
    const int64_t src_span = span(p, p.src_strides), dst_span = span(p, p.dst_strides);

    guarded_buffer src(src_span * ss, side);
    // An empty vector's data() may be null, which memcpy must not get even for 0 bytes.
    if (src_values) {
        if (src_span > 0) std::memcpy(src.data(), src_values->data(), src_span * sizeof(float));
    } else if (src_codes && ss == 1) {
        auto *b = static_cast<uint8_t *>(src.data());
        for (int64_t i = 0; i < src_span; ++i) b[i] = static_cast<uint8_t>((*src_codes)[i]);
    } else if (src_codes) {
        if (src_span > 0)
            std::memcpy(src.data(), src_codes->data(), src_span * sizeof(uint16_t));
    } else if (p.src_dt == data_type::f32) {
        const float s0 = p.scales.empty() ? 0.05f : p.scales[0];
        fill_f32(static_cast<float *>(src.data()), src_span, s0, g);
    } else if (p.src_dt == data_type::bf16 || p.src_dt == data_type::f16) {
        // The f32 pool (ties of x / s included) converted, and random 16-bit patterns (NaNs,
        // infinities and subnormals of the 16-bit type among them).
        const float s0 = p.scales.empty() ? 0.05f : p.scales[0];
        std::vector<float> f(src_span);
        fill_f32(f.data(), src_span, s0, g);
        auto *h = static_cast<uint16_t *>(src.data());
        for (int64_t i = 0; i < src_span; ++i)
            h[i] = g() % 4 == 0 ? static_cast<uint16_t>(g())
                    : p.src_dt == data_type::bf16 ? f32_to_bf16(f[i])
                                                  : f32_to_f16(f[i]);
    } else {
        fill_int(src.data(), p.src_dt, src_span, g);
    }
    guarded_buffer scales(
            p.scale_src == param_source::input ? p.nparams() * p.scale_stride() * 4 : 0,
            side);
    if (p.scale_src == param_source::input) {
        // Runtime scales are not validated: 0, subnormal, negative, huge, NaN, Inf follow
        // the rule (x / 0 = +-Inf or NaN).
        float *s = static_cast<float *>(scales.data());
        for (int64_t i = 0; i < p.nparams() * p.scale_stride(); ++i)
            s[i] = pick(g, {0.1f, 1.f / 3, 0.0173f, 2.f, 0x1p-20f, -7.5f, 1e30f, 1e-40f, 0.f,
                    std::nanf(""), std::numeric_limits<float>::infinity(), 0x1p-31f, 0.02f,
                    0.0039215689f});
    }
    guarded_buffer zps(p.zp_src == param_source::input
                    ? p.nparams() * p.zp_stride() * size_of(p.zp_dt)
                    : 0,
            side);
    if (p.zp_src == param_source::input && is_minifloat(p.zp_dt)) {
        // float8 zero points: +0 (code 0) unless the test gives the codes.
        std::memset(zps.data(), 0, p.nparams() * p.zp_stride());
        if (float_zps) std::memcpy(zps.data(), float_zps->data(), p.nparams() * p.zp_stride());
    } else if (p.zp_src == param_source::input) {
        fill_int(zps.data(), p.zp_dt, p.nparams() * p.zp_stride(), g);
        if (p.zp_dt == data_type::s32 && g() % 4 != 0) {
            // Mostly zero points the code takes itself; sometimes ones only ref takes.
            auto *z = static_cast<int32_t *>(zps.data());
            for (int64_t i = 0; i < p.nparams() * p.zp_stride(); ++i) z[i] %= 1000;
        }
    }

    // Both destinations start as the same pattern: bytes no element owns must stay as is.
    guarded_buffer dst_jit(dst_span * ds, side);
    std::vector<uint8_t> dst_ref(dst_span * ds, 0xa5);
    std::memset(dst_jit.data(), 0xa5, dst_span * ds);
    float scale_jit = -1.f, scale_ref = -1.f;
    uint8_t zp_jit = 77, zp_ref = 77;

    std::string reason;
    std::unique_ptr<kernel> jk = jit_kernel_at_level(p, reason);
    if (!jk) {
        out.rejected = reason;
        return out;
    }
    std::unique_ptr<kernel> rk = ref_kernel(p);
    out.kernel = jk->name();

    exec_args a;
    a.src = src.data();
    // Arguments the problem does not use are null, as execute passes them.
    if (p.scale_src == param_source::input) a.scales = static_cast<const float *>(scales.data());
    if (p.zp_src == param_source::input) a.zps = zps.data();
    a.dst = dst_jit.data();
    a.out_scale = &scale_jit;
    a.out_zp = &zp_jit;
    out.ran = jk->run(a).name();
    a.dst = dst_ref.data();
    a.out_scale = &scale_ref;
    a.out_zp = &zp_ref;
    rk->run(a);

    std::ostringstream os;
    const auto *j = static_cast<const uint8_t *>(dst_jit.data());
    for (int64_t i = 0; i < dst_span && os.tellp() < 600; ++i)
        if (std::memcmp(j + i * ds, dst_ref.data() + i * ds, ds) != 0) {
            os << " [" << i << "] jit " << hex(j + i * ds, ds) << " ref "
               << hex(dst_ref.data() + i * ds, ds);
            if (p.src_dt == data_type::f32) {
                float x;
                // The source element of destination i (dense problems only; a hint).
                if (i < src_span) {
                    std::memcpy(&x, static_cast<const float *>(src.data()) + i, 4);
                    os << " (x " << std::hexfloat << x << std::defaultfloat << ")";
                }
            }
        }
    if (p.kind == q_kind::dynamic_quantize_linear
            && (std::memcmp(&scale_jit, &scale_ref, 4) != 0 || zp_jit != zp_ref))
        os << " y_scale jit " << scale_jit << " ref " << scale_ref << ", y_zero_point jit "
           << int(zp_jit) << " ref " << int(zp_ref);
    out.mismatch = os.str();
    return out;
}

std::vector<int64_t> test_sizes() {
    std::vector<int64_t> s;
    for (int64_t i = 0; i <= 130; ++i) s.push_back(i);
    for (int64_t v : {255, 256, 257, 511, 512, 513, 1023, 1025, 4095, 4097, 65535, 65536,
                 65537, 65600, 131135, 200003})
        s.push_back(v);
    return s;
}

std::vector<int64_t> strides_in_order(
        const std::vector<int64_t> &dims, const std::vector<int> &order, int64_t pad) {
    std::vector<int64_t> st(dims.size());
    int64_t s = 1;
    for (size_t i = order.size(); i-- > 0;) {
        st[order[i]] = s;
        s *= dims[order[i]] + (i + 1 == order.size() ? pad : 0);
    }
    return st;
}

} // namespace qtest
