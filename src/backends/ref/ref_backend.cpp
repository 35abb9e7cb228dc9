// The reference backend: NUMERICS.md element by element, through common/q10n.hpp, over any
// strided layout. It is the oracle every other backend is tested against, and the last resort
// of backend selection, so it accepts every problem lowering can produce.

#include "backends/ref/ref_backend.hpp"

#include <array>
#include <cstdint>

#include "common/data_types.hpp"
#include "common/half_types.hpp"
#include "common/minifloat.hpp"
#include "common/q10n.hpp"
#include "qgraph/error.hpp"

namespace qgraph {
namespace impl {
namespace {

constexpr size_t max_ndims = 12;

/// Calls f(src_offset, dst_offset, scale_offset, zp_offset) for every element, outer dims
/// first. Each element's parameter offsets come from the map: index / group along each dim
/// whose parameters vary, times the parameter arrays' strides along it.
template <typename F>
void for_each_element(const quant_problem &p, F &&f) {
    if (p.nelems == 0) return;
    const size_t nd = p.dims.size();
    if (nd == 0) {
        f(int64_t {0}, int64_t {0}, int64_t {0}, int64_t {0});
        return;
    }
    std::array<int64_t, max_ndims> idx {};
    const size_t inner = nd - 1;
    const int64_t n_inner = p.dims[inner];
    const int64_t s_in = p.src_strides[inner], d_in = p.dst_strides[inner];
    const param_dim &prm_in = p.params[inner];
    for (;;) {
        int64_t soff = 0, doff = 0;
        for (size_t d = 0; d < inner; ++d) {
            soff += idx[d] * p.src_strides[d];
            doff += idx[d] * p.dst_strides[d];
        }
        // idx[inner] is 0 here: the outer dims' part of the parameter offsets.
        const int64_t s_out = p.scale_offset(idx.data()), z_out = p.zp_offset(idx.data());
        for (int64_t i = 0; i < n_inner; ++i) {
            const int64_t entry = prm_in.varies() ? i / prm_in.group : 0;
            f(soff + i * s_in, doff + i * d_in, s_out + entry * prm_in.scale_stride,
                    z_out + entry * prm_in.zp_stride);
        }
        // Advance the odometer over the outer dims.
        size_t d = inner;
        while (d-- > 0) {
            if (++idx[d] < p.dims[d]) break;
            idx[d] = 0;
        }
        if (d == static_cast<size_t>(-1)) return;
    }
}

/// The scale and zero point at an offset from the map: into p.scales / p.zps for attributes,
/// into the tensors bound at execute for inputs. Every scale type converts to f32 exactly
/// (NUMERICS.md).
float load_scale(const quant_problem &p, const exec_args &a, int64_t off) {
    return p.scale_src == param_source::attr ? p.scales[off]
                                             : load_float(a.scales, p.scale_dt, off);
}

/// Integer zero points of any width; a float8/float4 zero point is 0 (checked first).
int64_t load_zp(const quant_problem &p, const exec_args &a, int64_t off) {
    switch (p.zp_src) {
        case param_source::none: return 0;
        case param_source::attr: return p.zps[off];
        case param_source::input:
            return is_minifloat(p.zp_dt) ? 0 : load_int(a.zps, p.zp_dt, off);
    }
    return 0;
}

/// A float8/float4 zero-point tensor must hold zeros only (NUMERICS.md); its values are known
/// at execute only, so this is where a nonzero one is reported.
void check_float_zero_points(const quant_problem &p, const exec_args &a) {
    if (p.zp_src != param_source::input || !is_minifloat(p.zp_dt)) return;
    for_each_element(p, [&](int64_t, int64_t, int64_t, int64_t z_off) {
        const float zp = minifloat_to_f32(p.zp_dt, load_code(a.zps, p.zp_dt, z_off));
        if (zp != 0.f)
            throw error(status::invalid_arguments,
                    p.op_name + ": zero point of type " + to_string(p.zp_dt)
                            + " must be 0 (a float quantized type has no zero point), got "
                            + std::to_string(zp));
    });
}

/// Offset (in elements) one past the last element of the dst layout.
int64_t dst_span(const quant_problem &p) {
    if (p.nelems == 0) return 0;
    int64_t last = 0;
    for (size_t d = 0; d < p.dims.size(); ++d) last += (p.dims[d] - 1) * p.dst_strides[d];
    return last + 1;
}

/// Quantize sources as f32: f32 itself, s32 rounded once to nearest even, bf16 and f16
/// converted exactly (common/half_types.hpp).
float load_source(const void *src, data_type dt, int64_t i) {
    return dt == data_type::s32 ? static_cast<float>(load_elem<int32_t>(src, i))
                                : load_float(src, dt, i);
}

/// x rounded to bf16 or f16 as TypeCast rounds it, widened back to f32 (exact): the source
/// of a quantize whose src_round_dt is set.
float rounded_through(float x, data_type dt) {
    return dt == data_type::bf16 ? bf16_to_f32(f32_to_bf16(x)) : f16_to_f32(f32_to_f16(x));
}

/// A float destination's zero point as f32: +0 or -0 from its tensor (check_float_zero_points
/// has rejected every other value), +0 when there is none.
float float_zp(const quant_problem &p, const exec_args &a, int64_t off) {
    if (p.zp_src != param_source::input || !is_minifloat(p.zp_dt)) return 0.f;
    return minifloat_to_f32(p.zp_dt, load_code(a.zps, p.zp_dt, off));
}

/// Quantize to any integer type (saturated to its range) or float8/float4 type (rounded once
/// from the quotient plus the zero point, an f32 addition: it changes nothing but the sign of a
/// zero quotient, -0 + 0 = +0, as ONNX's formula and reference give), the quotient in the
/// problem's division precision. Sub-byte results are
/// written into their bytes; the unused bits after the last element are zeroed.
void run_quantize(const quant_problem &p, const exec_args &a, float fixed_scale = 0.f,
        int64_t fixed_zp = 0, bool fixed = false) {
    check_float_zero_points(p, a);
    const bool to_float = is_minifloat(p.dst_dt);
    const q_range q = range_of(p.quantized_dt());
    const dequantize_stage &dq = p.dequantize_after;
    for_each_element(p, [&](int64_t so, int64_t dof, int64_t s_off, int64_t z_off) {
        const float s = fixed ? fixed_scale : load_scale(p, a, s_off);
        float x = load_source(a.src, p.src_dt, so);
        if (p.src_round_dt != data_type::undef) x = rounded_through(x, p.src_round_dt);
        const float v = quotient(x, s, p.div_dt);
        if (p.fake_quantize()) {
            // The integer as the quantize stores it, then the dequantize of it: one rounding
            // each, as the two ops run one after the other (NUMERICS.md).
            const int64_t code = quantize_quotient(v, load_zp(p, a, z_off), q);
            const int64_t zp = dq.zps.empty() ? 0 : dq.zps[static_cast<size_t>(s_off)];
            const float y = dequantize_value(code, zp, dq.scales[static_cast<size_t>(s_off)]);
            return store_float(a.dst, p.dst_dt, dof, y);
        }
        const uint32_t code = to_float
                ? f32_to_minifloat(p.dst_dt, v + float_zp(p, a, z_off), p.saturate)
                : static_cast<uint32_t>(quantize_quotient(
                        v, fixed ? fixed_zp : load_zp(p, a, z_off), q));
        store_code(a.dst, p.dst_dt, dof, code);
    });
    if (!p.fake_quantize()) clear_tail_bits(a.dst, p.dst_dt, dst_span(p));
}

/// Dequantize from any integer type (x - zp exact) or float8/float4 type (decoded exactly).
void run_dequantize(const quant_problem &p, const exec_args &a) {
    check_float_zero_points(p, a);
    const bool from_float = is_minifloat(p.src_dt);
    for_each_element(p, [&](int64_t so, int64_t dof, int64_t s_off, int64_t z_off) {
        const float s = load_scale(p, a, s_off);
        const float y = from_float
                ? minifloat_to_f32(p.src_dt, load_code(a.src, p.src_dt, so)) * s
                : dequantize_value(load_int(a.src, p.src_dt, so), load_zp(p, a, z_off), s);
        store_float(a.dst, p.dst_dt, dof, y); // f32, or rounded once into bf16 / f16
    });
}

/// DynamicQuantizeLinear: min/max over every element, the parameters, then quantize.
void run_dynamic_quantize_linear(const quant_problem &p, const exec_args &a) {
    min_max mm;
    for_each_element(
            p, [&](int64_t so, int64_t, int64_t, int64_t) { mm.add(load_elem<float>(a.src, so)); });
    const dql_params prm = dynamic_qlinear_params(mm);
    store_elem<float>(a.out_scale, 0, prm.scale);
    *a.out_zp = static_cast<uint8_t>(prm.zp);
    run_quantize(p, a, prm.scale, prm.zp, /*fixed=*/true);
}

/// TypeCast (f32 <-> bf16 / f16: exact widening, or one rounding to nearest even with NaN
/// kept) and the data movement of Reorder, StaticReshape, StaticTranspose (the bits copied:
/// no conversion touches a NaN payload or the sign of a zero).
void run_convert(const quant_problem &p, const exec_args &a) {
    const bool same = p.src_dt == p.dst_dt;
    for_each_element(p, [&](int64_t so, int64_t dof, int64_t, int64_t) {
        if (same)
            store_code(a.dst, p.dst_dt, dof, load_code(a.src, p.src_dt, so));
        else
            store_float(a.dst, p.dst_dt, dof, load_float(a.src, p.src_dt, so));
    });
}

/// A fused chain's table lookup: each element's byte indexes its parameter entry's 256 codes.
void run_lookup(const quant_problem &p, const exec_args &a) {
    const auto *src = static_cast<const uint8_t *>(a.src);
    auto *dst = static_cast<uint8_t *>(a.dst);
    for_each_element(p, [&](int64_t so, int64_t dof, int64_t s_off, int64_t) {
        dst[dof] = p.tables[static_cast<size_t>(s_off * 256 + src[so])];
    });
}

class ref_kernel : public kernel {
public:
    explicit ref_kernel(const quant_problem &p) : p_(p) {}
    const char *backend() const override { return "ref"; }
    std::string name() const override { return std::string(backend()) + ":" + kind_name(); }

    const kernel &run(const exec_args &a) const override {
        switch (p_.kind) {
            case q_kind::quantize: run_quantize(p_, a); break;
            case q_kind::dequantize: run_dequantize(p_, a); break;
            case q_kind::dynamic_quantize_linear: run_dynamic_quantize_linear(p_, a); break;
            case q_kind::convert: run_convert(p_, a); break;
            case q_kind::lookup: run_lookup(p_, a); break;
        }
        return *this;
    }
    /// One element at a time, each loaded before its result is stored (DynamicQuantizeLinear's
    /// min/max pass reads everything before the first store). A transpose over its own
    /// buffer would overwrite elements it has yet to read: only a convert whose src and dst
    /// strides agree keeps each element in place.
    bool in_place_safe() const override {
        return p_.kind != q_kind::convert || p_.src_strides == p_.dst_strides;
    }

private:
    std::string kind_name() const {
        switch (p_.kind) {
            case q_kind::quantize: return "quantize";
            case q_kind::dequantize: return "dequantize";
            case q_kind::dynamic_quantize_linear: return "dynamic_quantize_linear";
            case q_kind::convert: return "convert";
            case q_kind::lookup: return "lookup";
        }
        return "?";
    }
    quant_problem p_;
};

bool is_quantized(data_type dt) { return is_quantized_integer(dt) || is_minifloat(dt); }

bool supported_types(const quant_problem &p) {
    if (!is_wide_float(p.scale_dt) && p.scale_dt != data_type::e8m0) return false;
    if (!is_wide_float(p.div_dt)) return false;
    if (p.zp_src == param_source::input && !is_quantized(p.zp_dt)) return false;
    if (p.src_round_dt != data_type::undef
            && !(p.kind == q_kind::quantize && p.src_dt == data_type::f32
                    && (p.src_round_dt == data_type::bf16 || p.src_round_dt == data_type::f16)))
        return false;
    switch (p.kind) {
        case q_kind::lookup:
            return is_int8(p.src_dt) && is_int8(p.dst_dt)
                    && p.tables.size() == static_cast<size_t>(p.nparams()) * 256;
        case q_kind::quantize:
            if (p.fake_quantize())
                return (is_wide_float(p.src_dt) || p.src_dt == data_type::s32)
                        && is_quantized_integer(p.dequantize_after.q_dt)
                        && is_wide_float(p.dst_dt) && p.scale_src == param_source::attr
                        && p.dequantize_after.scales.size() == p.scales.size()
                        && (p.dequantize_after.zps.empty()
                                || p.dequantize_after.zps.size() == p.scales.size());
            return (is_wide_float(p.src_dt) || p.src_dt == data_type::s32)
                    && is_quantized(p.dst_dt);
        case q_kind::dequantize: return is_quantized(p.src_dt) && is_wide_float(p.dst_dt);
        case q_kind::dynamic_quantize_linear:
            return p.src_dt == data_type::f32 && p.dst_dt == data_type::u8;
        case q_kind::convert:
            return is_wide_float(p.src_dt) && is_wide_float(p.dst_dt)
                    && (p.src_dt == p.dst_dt || p.src_dt == data_type::f32
                            || p.dst_dt == data_type::f32);
    }
    return false;
}

class ref_backend_t : public backend {
public:
    const char *name() const override { return "ref"; }
    std::unique_ptr<kernel> create(const quant_problem &p, const fallback_factory &,
            std::string &reason) const override {
        if (!supported_types(p)) {
            reason = "no reference kernel for " + p.describe();
            return nullptr;
        }
        if (p.dims.size() > max_ndims) {
            reason = "more than 12 dimensions after merging";
            return nullptr;
        }
        if (p.params.size() != p.dims.size()) {
            reason = "parameter map of " + std::to_string(p.params.size()) + " dims for "
                    + std::to_string(p.dims.size()) + " dims";
            return nullptr;
        }
        return std::make_unique<ref_kernel>(p);
    }
};

} // namespace

const backend &ref_backend() {
    static const ref_backend_t b;
    return b;
}

} // namespace impl
} // namespace qgraph
