#include "backends/dnnl/dnnl_legality.hpp"

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/data_types.hpp"

namespace qgraph {
namespace impl {
namespace dnnl_impl {

namespace {

// oneDNN 2.6's DNNL_MAX_NDIMS. Kept here so this file stays free of oneDNN headers; the kernel
// static_asserts that the two agree.
constexpr size_t max_ndims = 12;

std::string dt_pair(const quant_problem &prb) {
    return std::string(to_string(prb.src_dt)) + ":" + to_string(prb.dst_dt);
}

bool all_equal(const std::vector<int64_t> &v) {
    for (int64_t x : v)
        if (x != v.front()) return false;
    return true;
}

// One candidate layout (the user's own, or the canonical one) and whether oneDNN can take it.
struct layout_view {
    const std::vector<int64_t> &dims;
    const std::vector<int64_t> &src_strides;
    const std::vector<int64_t> &dst_strides;
    int axis;
};

bool layout_fits(const quant_problem &prb, const layout_view &v, std::string &why) {
    const size_t nd = v.dims.size();
    if (v.src_strides.size() != nd || v.dst_strides.size() != nd) {
        why = "dims and strides differ in rank";
        return false;
    }
    if (nd > max_ndims) {
        why = "rank " + std::to_string(nd) + " exceeds oneDNN's 12 dims";
        return false;
    }
    int64_t n = 1;
    for (size_t d = 0; d < nd; ++d) {
        // The jit:uni reorder of 2.6 keeps each dim in an int; larger dims would wrap.
        if (v.dims[d] < 1 || v.dims[d] > std::numeric_limits<int32_t>::max()) {
            why = "dim " + std::to_string(v.dims[d])
                    + " is outside [1, 2^31-1] (oneDNN 2.6's reorder keeps dims in int)";
            return false;
        }
        if (v.src_strides[d] < 0 || v.dst_strides[d] < 0) {
            why = "negative stride";
            return false;
        }
        // A broadcast dst would be written by several threads at once.
        if (v.dims[d] > 1 && v.dst_strides[d] == 0) {
            why = "dst stride 0 on a dim of size > 1 (elements alias)";
            return false;
        }
        if (n > std::numeric_limits<int64_t>::max() / v.dims[d]) {
            why = "element count overflows";
            return false;
        }
        n *= v.dims[d];
    }
    if (n != prb.nelems) {
        why = "dims do not multiply to nelems";
        return false;
    }
    if (prb.per_channel()
            && (v.axis < 0 || v.axis >= static_cast<int>(nd)
                    || v.dims[v.axis] != prb.nparams())) {
        why = "channel axis does not match nparams";
        return false;
    }
    return true;
}

// The user's own shape reads best in ONEDNN_VERBOSE; the canonical one (fewer dims) is used
// only when the original does not fit, e.g. more than 12 dims that merge.
bool plan_layout(const quant_problem &prb, reorder_plan &plan, std::string &reason) {
    static const std::vector<int64_t> one {1};
    std::string why_orig, why_canon;
    const layout_view orig {prb.orig_dims, prb.orig_src_strides, prb.orig_dst_strides,
            prb.orig_axis()};
    const layout_view canon {prb.dims, prb.src_strides, prb.dst_strides, prb.channel_dim()};
    const layout_view *pick = nullptr;
    if (layout_fits(prb, orig, why_orig))
        pick = &orig;
    else if (layout_fits(prb, canon, why_canon))
        pick = &canon;
    if (!pick) {
        reason = "layout: " + why_orig + " (canonical layout: " + why_canon + ")";
        return false;
    }
    const bool scalar = pick->dims.empty(); // 0-D: oneDNN wants at least one dim
    plan.dims = scalar ? one : pick->dims;
    plan.src_strides = scalar ? one : pick->src_strides;
    plan.dst_strides = scalar ? one : pick->dst_strides;
    plan.scale_mask = prb.per_channel() ? 1 << pick->axis : 0;
    plan.nscales = prb.per_channel() ? prb.nparams() : 1;
    return true;
}

bool plan_types(const quant_problem &prb, std::string &reason) {
    switch (prb.kind) {
        case q_kind::dynamic_quantize_linear:
            reason = "dynamic_quantize_linear needs a min/max reduction; a oneDNN reorder "
                     "cannot compute it";
            return false;
        case q_kind::quantize:
            if (prb.fake_quantize()) {
                reason = "fake-quantize: a oneDNN reorder stores the quantized integer, it "
                         "cannot dequantize it in the same pass";
                return false;
            }
            if (prb.src_dt == data_type::f32 && prb.dst_dt == data_type::s8) {
                // Measured: every ISA path of 2.6's jit:uni reorder writes 127 for NaN.
                reason = "quantize to s8: oneDNN 2.6's reorder turns NaN into 127 (qmax), "
                         "NUMERICS.md requires qmin -128";
                return false;
            }
            if (prb.src_dt != data_type::f32 || prb.dst_dt != data_type::u8) {
                reason = "quantize " + dt_pair(prb) + ": only f32:u8 is exact in oneDNN";
                return false;
            }
            return true;
        case q_kind::convert:
            reason = "no oneDNN reorder for " + prb.op_name + " (data movement runs on jit or ref)";
            return false;
        case q_kind::lookup:
            reason = "no oneDNN primitive looks up a byte table (the lookup of a fused chain)";
            return false;
        case q_kind::dequantize:
            if (!is_quant_int(prb.src_dt) || prb.dst_dt != data_type::f32) {
                reason = "dequantize " + dt_pair(prb) + ": only u8/s8/s32 to f32 is handled";
                return false;
            }
            return true;
    }
    reason = "unknown problem kind";
    return false;
}

bool plan_scales(const quant_problem &prb, reorder_plan &plan, std::string &reason) {
    const bool quantize = prb.kind == q_kind::quantize;
    if (prb.scale_dt != data_type::f32) {
        reason = std::string("scales of type ") + to_string(prb.scale_dt)
                + ": only f32 scales are handled";
        return false;
    }
    if (prb.div_dt != data_type::f32) {
        reason = std::string("division in ") + to_string(prb.div_dt);
        return false;
    }
    if (prb.src_round_dt != data_type::undef) {
        reason = std::string("source rounded to ") + to_string(prb.src_round_dt)
                + " first: a oneDNN reorder reads it as it is";
        return false;
    }
    if (prb.scale_src == param_source::input) {
        plan.runtime_scales = true;
        plan.scale_stride = prb.scale_stride();
        // Dequantize hands the user's scale buffer to oneDNN, which reads it densely.
        // Quantize copies reciprocals into a dense buffer anyway, so any stride works.
        if (!quantize && plan.nscales > 1 && prb.scale_stride() != 1) {
            reason = "runtime scales with stride " + std::to_string(prb.scale_stride())
                    + ": oneDNN reads runtime scales densely";
            return false;
        }
        return true;
    }
    if (prb.scale_src != param_source::attr
            || static_cast<int64_t>(prb.scales.size()) != plan.nscales) {
        reason = "static scales: expected " + std::to_string(plan.nscales) + " values";
        return false;
    }
    plan.output_scales.reserve(prb.scales.size());
    for (float s : prb.scales) {
        if (quantize && !has_exact_reciprocal(s)) {
            reason = "scale " + std::to_string(s)
                    + " is not a power of two with an exact finite reciprocal: oneDNN "
                      "multiplies by 1/s, which is not x/s bit for bit";
            return false;
        }
        // A static NaN could be DNNL_RUNTIME_F32_VAL's bit pattern and make oneDNN expect a
        // runtime scale. Graphs reject NaN attribute scales anyway (NUMERICS.md).
        if (std::isnan(s)) {
            reason = "NaN static scale (may collide with DNNL_RUNTIME_F32_VAL)";
            return false;
        }
        plan.output_scales.push_back(quantize ? 1.f / s : s);
    }
    return true;
}

bool dense_row_major(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
    int64_t expect = 1;
    for (size_t i = dims.size(); i-- > 0;) {
        if (strides[i] != expect) return false;
        expect *= dims[i];
    }
    return true;
}

// oneDNN 2.6's jit:uni reorder drops a nonzero source zero point on some non-dense layouts
// (a dst stride of 2, padded rows, a broadcast src): it returns x * s. Measured in
// tests/api (Layouts.DequantizeZeroPointWithStridedDst and the layout sweeps); dense
// row-major src and dst were exact in every case tried, so only those are accepted.
bool zero_point_layout_ok(const quant_problem &prb, std::string &reason) {
    if (dense_row_major(prb.dims, prb.src_strides) && dense_row_major(prb.dims, prb.dst_strides))
        return true;
    reason = "dequantize with a zero point on a non-dense layout: oneDNN 2.6's reorder drops "
             "the zero point there (returns x * s)";
    return false;
}

bool plan_zero_point(const quant_problem &prb, reorder_plan &plan, std::string &reason) {
    const bool quantize = prb.kind == q_kind::quantize;
    if (prb.zp_src == param_source::none) return true;
    if (prb.zp_src == param_source::input) {
        if (!is_quant_int(prb.zp_dt)) {
            reason = std::string("zero-point input of type ") + to_string(prb.zp_dt);
            return false;
        }
        plan.zp_dt = prb.zp_dt;
        plan.zp_stride = prb.zp_stride();
        plan.zp_count = prb.per_channel() ? prb.nparams() : 1;
        if (quantize || prb.src_dt == data_type::s32) {
            // Quantize: see the static case below. s32 dequantize: oneDNN rounds f32(x)
            // before subtracting, so only zp == 0 is exact.
            plan.zp = zp_plan::input_must_be_zero;
            return true;
        }
        if (prb.per_channel()) {
            reason = "per-channel zero points: oneDNN 2.6's reorder takes only a common one";
            return false;
        }
        if (!zero_point_layout_ok(prb, reason)) return false;
        plan.zp = zp_plan::src_input;
        return true;
    }
    if (prb.zps.empty()) {
        reason = "static zero points: no values";
        return false;
    }
    // Equal values are one common zero point whatever the granularity.
    if (!all_equal(prb.zps)) {
        reason = quantize ? "nonzero zero point: oneDNN rounds x/s + zp in one step"
                          : "per-channel zero points: oneDNN 2.6's reorder takes only a "
                            "common one";
        return false;
    }
    const int64_t zp = prb.zps.front();
    if (zp == 0) return true;
    if (quantize) {
        // rne(y + zp) != rne(y) + zp: y + zp is an f32 addition that rounds first, e.g.
        // y = 0.5 + 2^-24, zp = 2 gives f32(2.5) -> 2, NUMERICS.md gives 1 + 2 = 3.
        reason = "nonzero zero point " + std::to_string(zp)
                + ": oneDNN rounds x/s + zp in one step (rne(y + zp) != rne(y) + zp, "
                  "e.g. y = 0.5 + 2^-24, zp = 2)";
        return false;
    }
    if (prb.src_dt == data_type::s32) {
        reason = "s32 src with zero point " + std::to_string(zp)
                + ": oneDNN converts x to f32 before subtracting zp, which rounds |x| > 2^24";
        return false;
    }
    if (!is_exact_in_f32(zp)) {
        reason = "zero point " + std::to_string(zp)
                + " is not exact in f32: oneDNN subtracts f32(zp), not the exact integer";
        return false;
    }
    if (!zero_point_layout_ok(prb, reason)) return false;
    plan.zp = zp_plan::src_static;
    plan.zp_value = zp;
    return true;
}

} // namespace

bool reorder_plan::needs_fallback() const {
    const bool scale_check = runtime_scales && kind == q_kind::quantize;
    const bool zp_check = zp == zp_plan::input_must_be_zero
            || (zp == zp_plan::src_input && zp_dt == data_type::s32);
    return scale_check || zp_check;
}

bool plan_reorder(const quant_problem &prb, reorder_plan &plan, std::string &reason) {
    if (!plan_types(prb, reason)) return false;
    if (prb.nelems <= 0) {
        reason = "empty problem (nelems == 0): nothing for oneDNN to do, the ref backend "
                 "handles it";
        return false;
    }
    if (!prb.per_tensor() && !prb.per_channel()) {
        // oneDNN 2.6's reorder takes a scale mask (whole dims), not groups of a dim.
        reason = "blocked or grouped parameters: the reorder takes per-tensor or per-channel";
        return false;
    }
    plan = reorder_plan();
    plan.kind = prb.kind;
    plan.src_dt = prb.src_dt;
    plan.dst_dt = prb.dst_dt;
    return plan_layout(prb, plan, reason) && plan_scales(prb, plan, reason)
            && plan_zero_point(prb, plan, reason);
}

bool has_exact_reciprocal(float s) {
    if (!std::isfinite(s) || s == 0.f) return false;
    int e = 0;
    if (std::fabs(std::frexp(s, &e)) != 0.5f) return false; // not +-2^k
    return std::isfinite(1.f / s); // 2^-128 and below: 1/s overflows
}

bool is_exact_in_f32(int64_t zp) {
    // Every int64 converts to a finite float, and a float that holds an integer of at most
    // 2^63 in magnitude converts back exactly, so the round trip is defined behaviour.
    const float f = static_cast<float>(zp);
    return std::fabs(f) < 9.2233720e18f && static_cast<int64_t>(f) == zp;
}

bool is_verified_impl(const std::string &impl_name) { return impl_name == "jit:uni"; }

} // namespace dnnl_impl
} // namespace impl
} // namespace qgraph
