// The JIT backend: legality (what the generated kernels take, and why not otherwise), then
// the drivers of jit_driver.hpp build the code for a legal problem.

#include "backends/jit/jit_backend.hpp"

#include <string>

#include <xbyak/xbyak.h>

#include "backends/jit/jit_driver.hpp"
#include "backends/jit/jit_layout.hpp"
#include "backends/jit/jit_quantize.hpp"
#include "common/data_types.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

/// The integer types the kernels quantize to and dequantize from (and take zero points of).
bool is_kernel_int(data_type dt) {
    return is_quant_int(dt) || dt == data_type::s16 || dt == data_type::u16;
}

std::unique_ptr<kernel> make_elementwise_runs(const quant_problem &p, cpu_isa_t isa,
        const fallback_factory &next, std::string &reason);

bool supported_types(const quant_problem &p, std::string &reason) {
    // Fake-quantize: the quantize kernel's f32 output stage (the driver checks the rest).
    if (p.fake_quantize()
            && (p.kind != q_kind::quantize || !is_int8(p.quantized_dt())
                    || (p.dst_dt != data_type::f32 && p.dst_dt != data_type::f16))) {
        reason = "fake-quantize " + std::string(to_string(p.src_dt)) + ":"
                + to_string(p.quantized_dt()) + ":" + to_string(p.dst_dt)
                + " (the output stage takes u8 / s8 to f32 / f16)";
        return false;
    }
    const data_type s = p.src_dt, d = p.quantized_dt();
    bool ok = false;
    switch (p.kind) {
        case q_kind::quantize: {
            // s4 / u4 / f4_e2m1: the blocked code only (jit_quantize_driver.cpp's
            // nibbles_fit()).
            const bool nibbles = d == data_type::s4 || d == data_type::u4;
            ok = (is_wide_float(s) && (is_float8(d) || d == data_type::f4_e2m1))
                    || ((is_wide_float(s) || s == data_type::s32)
                            && ((is_kernel_int(d) && d != data_type::s32) || nibbles));
            break;
        }
        case q_kind::dequantize: ok = (is_kernel_int(s) || is_float8(s)) && is_wide_float(d); break;
        case q_kind::dynamic_quantize_linear:
            ok = s == data_type::f32 && d == data_type::u8;
            break;
        case q_kind::lookup: break; // create() hands lookups to make_lookup_driver first
        case q_kind::convert: break; // create() hands converts to make_convert_driver first
    }
    if (!ok) {
        reason = std::string("no jit kernel for ") + to_string(s) + " -> " + to_string(d);
        return false;
    }
    // float8, f4_e2m1: a zero-point tensor of the type (the driver checks at execute that it
    // holds +0). s4 / u4 destinations: zero points of their own type (the driver checks the
    // rest).
    const bool f8 = is_float8(p.kind == q_kind::dequantize ? s : d);
    const bool f4 = p.kind == q_kind::quantize && d == data_type::f4_e2m1;
    const bool nibble_zp = p.kind == q_kind::quantize && p.zp_dt == d
            && (d == data_type::s4 || d == data_type::u4);
    if (p.zp_src == param_source::input
            && !(f8     ? is_float8(p.zp_dt)
                    : f4 ? p.zp_dt == d
                         : is_kernel_int(p.zp_dt) || nibble_zp)) {
        reason = std::string("zero points of type ") + to_string(p.zp_dt);
        return false;
    }
    // No op lowers to runtime scales with static zero points; the drivers' lane code has no
    // zero-point source for that mix, so it is refused rather than run.
    if (p.scale_src == param_source::input && p.zp_src == param_source::attr) {
        reason = "runtime scales with static zero points";
        return false;
    }
    // jit_load_emitter.hpp rounds f32 sources of the quantize kernels to bf16 / f16.
    if (p.src_round_dt != data_type::undef
            && (p.kind != q_kind::quantize || s != data_type::f32
                    || (p.src_round_dt != data_type::bf16 && p.src_round_dt != data_type::f16))) {
        reason = std::string("source rounded to ") + to_string(p.src_round_dt) + " first";
        return false;
    }
    // f16 / bf16 division: the exact f32 quotient rounded to that type
    // (quantize_conf::quotient_dt), for x of that type, or f32 x rounded to it first by the
    // load (not after another rounding).
    const bool half_division = (p.div_dt == data_type::f16 || p.div_dt == data_type::bf16)
            && p.kind == q_kind::quantize && !p.fake_quantize()
            && p.src_round_dt == data_type::undef && (s == p.div_dt || s == data_type::f32)
            && (is_int8(d) || d == data_type::s16 || d == data_type::u16 || is_float8(d));
    if (p.div_dt != data_type::f32 && !half_division) {
        reason = std::string("division in ") + to_string(p.div_dt) + " (the kernels divide in "
                + "f32, and round the quotient to f16 or bf16 for x of that type or f32 and "
                + "8- or 16-bit integers or float8)";
        return false;
    }
    // Runtime scales are read as f32, exactly from f16, bf16 and e8m0 (the drivers'
    // scale_at(); e8m0 tensors widened at execute, widen_scales()).
    if (p.scale_dt != data_type::f32 && p.scale_dt != data_type::f16
            && p.scale_dt != data_type::bf16 && p.scale_dt != data_type::e8m0) {
        reason = std::string("scales of type ") + to_string(p.scale_dt)
                + ": the jit kernels take f32, f16, bf16 and e8m0 scales";
        return false;
    }
    return true;
}

/// Whether the parameters vary in groups on outer dims only, x and y being contiguous
/// along the last dim (MatMul weights [K, N] in blocks along K): the elementwise driver's
/// lanes, a row of the parameter tensors per block of rows.
bool groups_on_outer_dims(const quant_problem &p) {
    const size_t last = p.dims.size() - 1;
    if (p.dims.empty() || p.src_strides[last] != 1 || p.dst_strides[last] != 1
            || p.params[last].group > 1)
        return false;
    for (size_t d = 0; d < last; ++d)
        if (p.params[d].group > 1) return true;
    return false;
}

/// Dequantize problems for the grouped driver: 4-bit sources (s4, u4, f4_e2m1), and 8-bit
/// sources (s8, u8, float8) whose parameters vary in groups (blocked, per_group) rather
/// than per tensor or per channel, but for groups on outer dims only. Other sources (s16,
/// u16, s32) in blocks go to the elementwise driver.
bool grouped_dequantize(const quant_problem &p) {
    return p.kind == q_kind::dequantize
            && (data_type_bits(p.src_dt) == 4
                    || ((is_int8(p.src_dt) || is_float8(p.src_dt)) && !p.per_tensor()
                            && !p.per_channel()
                            && !groups_on_outer_dims(p)));
}

/// Whether some dim's parameters vary in groups of more than one element.
bool has_groups(const quant_problem &p) {
    for (const param_dim &pm : p.params)
        if (pm.group > 1) return true;
    return false;
}

/// Quantize and dequantize per tensor, per channel or per row, over a layout the code walks.
/// Blocks that tile their dim become rows of one parameter entry each (problem.hpp's
/// split_full_groups: per-channel over the block index, or entries along several outer dims,
/// run_layout::param_steps); a partial last block is split off before (backends/
/// last_group_split.hpp).
std::unique_ptr<kernel> make_elementwise_driver(const quant_problem &p, cpu_isa_t isa,
        const fallback_factory &next, std::string &reason) {
    if (!supported_types(p, reason)) return nullptr;
    if (!has_groups(p)) return make_elementwise_runs(p, isa, next, reason);
    quant_problem tiled = p;
    if (!split_full_groups(tiled) || has_groups(tiled)) {
        // The code takes one parameter set per row or per lane: groups along the
        // contiguous dim or groups that do not tile their dim have neither.
        reason = "blocked or grouped parameters (" + p.describe() + ")";
        return nullptr;
    }
    return make_elementwise_runs(tiled, isa, next, reason);
}

std::unique_ptr<kernel> make_elementwise_runs(const quant_problem &p, cpu_isa_t isa,
        const fallback_factory &next, std::string &reason) {
    run_layout lay;
    if (!lay.init(p, reason)) return nullptr;
    lay.tiles.avx512 = isa == avx512_core;
    if (lay.channel_inner
            && ((p.scale_src == param_source::input && p.scale_stride() != 1)
                    || (p.zp_src == param_source::input && p.zp_stride() != 1))) {
        reason = "strided scale or zero-point tensor along the inner run";
        return nullptr;
    }
    return p.kind == q_kind::dequantize ? make_dequantize_driver(p, isa, lay, next, reason)
                                        : make_quantize_driver(p, isa, lay, next, reason);
}

/// The drivers, as data: which problems each takes, and its factory. The first that takes
/// a problem builds its kernel or says why not; no later one is tried.
struct driver_route {
    const char *name;
    bool (*takes)(const quant_problem &);
    std::unique_ptr<kernel> (*make)(
            const quant_problem &, cpu_isa_t, const fallback_factory &, std::string &);
};

const driver_route routes[] = {
        {"lookup", [](const quant_problem &p) { return p.kind == q_kind::lookup; },
                [](const quant_problem &p, cpu_isa_t isa, const fallback_factory &,
                        std::string &reason) { return make_lookup_driver(p, isa, reason); }},
        {"convert", [](const quant_problem &p) { return p.kind == q_kind::convert; },
                [](const quant_problem &p, cpu_isa_t isa, const fallback_factory &,
                        std::string &reason) { return make_convert_driver(p, isa, reason); }},
        {"grouped dequantize", grouped_dequantize, make_grouped_dequantize_driver},
        {"elementwise", [](const quant_problem &) { return true; }, make_elementwise_driver},
};

const driver_route &route_of(const quant_problem &p) {
    for (const driver_route &r : routes)
        if (r.takes(p)) return r;
    return routes[sizeof(routes) / sizeof(routes[0]) - 1]; // unreachable: the last takes all
}

class jit_backend_t : public backend {
public:
    const char *name() const override { return "jit"; }

    std::unique_ptr<kernel> create(const quant_problem &prb, const fallback_factory &next,
            std::string &reason) const override {
        const cpu_isa_t isa = mayiuse(avx512_core, prb.isa_cap) ? avx512_core
                : mayiuse(avx2, prb.isa_cap)                    ? avx2
                                                                : isa_none;
        if (isa == isa_none) {
            reason = std::string("needs avx2 (CPU or QGRAPH_MAX_CPU_ISA cap: ")
                    + isa_name(prb.isa_cap) + ")";
            return nullptr;
        }
        // The drivers see the cap lowered to a kernel level, so that a level whose additions
        // no kernel uses (VNNI, FP16, AMX) generates the same code as the one below it.
        quant_problem p = prb;
        p.isa_cap = kernel_isa_cap(prb.isa_cap);
        try {
            return route_of(p).make(p, isa, next, reason);
        } catch (const Xbyak::Error &e) {
            reason = std::string("code generation failed: ") + e.what();
            return nullptr;
        }
    }
};

} // namespace
} // namespace jit

const backend &jit_backend() {
    static const jit::jit_backend_t b;
    return b;
}

const char *jit_driver_of(const quant_problem &p) { return jit::route_of(p).name; }

} // namespace impl
} // namespace qgraph
