// The quantize driver (Quantize, DynamicQuantize, QuantizeLinear) and DynamicQuantizeLinear's
// two passes over the generated code.

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <mutex>
#include <numeric>

#include "backends/jit/jit_division.hpp"
#include "backends/jit/jit_driver.hpp"
#include "backends/jit/jit_float8_emitter.hpp"
#include "backends/jit/jit_min_max.hpp"
#include "backends/jit/jit_params.hpp"
#include "backends/jit/jit_quantize.hpp"
#include "common/data_types.hpp"
#include "common/half_types.hpp"
#include "common/minifloat.hpp"
#include "common/q10n.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

// DynamicQuantizeLinear keeps one partial min/max per thread on the stack.
constexpr int max_dql_threads = 256;

/// The value of 16-bit code h of src_dt (bf16 or f16), exactly.
float half_value(data_type src_dt, uint16_t h) {
    return src_dt == data_type::bf16 ? bf16_to_f32(h) : f16_to_f32(h);
}

/// Whether the checked multiply of parameters p (scale s, on the checked path) rounds every
/// value of the 16-bit source type src_dt (f16, bf16) as the division does, so that the
/// kernel may skip the check (div_path::proven). A value the check proves agrees by
/// jit_division.hpp's argument; any other one is compared with the quotient itself. 2^16
/// values, a few ns each: compile time only, for static scales.
bool proven_for_all(data_type src_dt, float s, const quantize_params &p, q_range q) {
    if (static_cast<div_path>(p.path) != div_path::checked) return false;
    for (uint32_t code = 0; code <= 0xffff; ++code) {
        const float x = half_value(src_dt, static_cast<uint16_t>(code));
        // The kernel's check, in f32 (the project builds without FMA, so nothing fuses).
        const float qm = x * p.y_hi;
        if ((f32_bits(qm + tie_magic) & tie_mask) != 0) continue;
        if (quantize_quotient(qm, p.zp, q) != quantize_quotient(x / s, p.zp, q)) return false;
    }
    return true;
}

/// The f16 word of v rounded toward zero, as vcvtps2ph with imm 3 gives it: the finite values
/// past f16's largest to it, Inf kept, NaN quiet (0x7e00 and up with the sign).
uint16_t f16_toward_zero(float v) {
    const uint32_t b = f32_bits(v), a = b & 0x7fffffffu;
    const uint16_t sign = static_cast<uint16_t>(b >> 16 & 0x8000u);
    if (a > 0x7f800000u) return sign | 0x7e00u | static_cast<uint16_t>(a >> 13 & 0x1ffu);
    if (a == 0x7f800000u) return sign | 0x7c00u;
    if (a >= 0x477fe000u) return sign | 0x7bffu; // 65504 and up
    const int e = static_cast<int>(a >> 23) - 127;
    if (e >= -14)
        return sign | static_cast<uint16_t>((e + 15) << 10 | (a >> 13 & 0x3ffu));
    // Below f16's normals: whole units of 2^-24, truncated (the scaling is exact).
    return sign | static_cast<uint16_t>(std::ldexp(f32_from_bits(a), 24));
}

/// The checked float8 encode's shorter encode of v (float8_emitter: encode_f16_truncated(),
/// then encode_words() rounding half up, then the code's byte), for f8_e4m3 (v the quotient
/// times 2^-8) and f8_e5m2. saturate: v clamped to +-the largest value first (NaN kept).
uint32_t short_float8_code(data_type dt, bool saturate, float v) {
    const bool e4m3 = dt == data_type::f8_e4m3;
    const data_type_facts &f = facts_of(dt);
    if (saturate && !std::isnan(v)) {
        const float max = static_cast<float>(e4m3 ? f.max / 256 : f.max);
        v = std::min(std::max(v, -max), max);
    }
    uint16_t w = f16_toward_zero(v);
    // vpminsw, vpminuw: NaN words to the NaN code's, the sign kept; then half a unit up.
    const float8_word_constants c = float8_words(dt);
    if (static_cast<int16_t>(w) > static_cast<int16_t>(c.clamp_s)) w = c.clamp_s;
    if (w > c.clamp_u) w = c.clamp_u;
    w = static_cast<uint16_t>(w + c.half);
    if (e4m3) // bits 14..0 shifted up one, the sign kept
        w = static_cast<uint16_t>((w & 0x8000u) | (static_cast<uint16_t>(w << 1) & 0x7fffu));
    return w >> 8;
}

/// Whether the shorter float8 encode of x * y8 + 0 (y8 = RN(1/s), times 2^-8 for e4m3: the
/// checked encode's product) gives every value x of the 16-bit type src_dt its code, the
/// quotient x / s (f32) plus 0.f encoded (quantize_params::f8_proven). 2^16 values: compile
/// time only, for static scales.
bool float8_proven_for_all(data_type src_dt, float s, float y_hi, data_type dt, bool saturate) {
    const float y8 = dt == data_type::f8_e4m3 ? y_hi * 0x1p-8f : y_hi;
    for (uint32_t code = 0; code <= 0xffff; ++code) {
        const float x = half_value(src_dt, static_cast<uint16_t>(code));
        // The FMA's x * y8 + 0: x * y8 rounded once, but +0 where the exact product is 0.
        const float v = x == 0 ? 0.f : x * y8;
        if (short_float8_code(dt, saturate, v) != f32_to_minifloat(dt, x / s + 0.f, saturate))
            return false;
    }
    return true;
}

/// The smallest code c, as s16, such that every code below it (as s16) multiplied by y_hi
/// in f32 stays below 2^31, so that vcvtps2dq maps only NaN and values <= -2^31 to
/// 0x80000000 and the packs saturate the rest (quantize_params::clamp_from). Negative
/// codes sort below positive ones as s16, so only y_hi > 0 has such a bound above them;
/// other rows get -32768 and clamp every group.
int32_t clamp_from(data_type src_dt, float y_hi) {
    if (!(y_hi > 0)) return -32768;
    // Positive codes sort like their values, NaNs last: the first one from the top whose
    // product stays below 2^31.
    for (int32_t code = 0x7fff; code >= 0; --code) {
        const float x = half_value(src_dt, static_cast<uint16_t>(code));
        if (x * y_hi < 2147483648.f) return code + 1; // false for NaN and infinities
    }
    return 0;
}

/// 16-bit float sources into 8-bit destinations: the sources the proof above can enumerate,
/// the destinations the checked path serves.
/// The 16-bit type every value the division sees belongs to: a bf16 / f16 source, or an f32
/// source rounded to one first (quant_problem::src_round_dt); undef for other sources.
data_type half_values(const quant_problem &p) {
    const data_type t = p.src_round_dt != data_type::undef ? p.src_round_dt : p.src_dt;
    return t == data_type::f16 || t == data_type::bf16 ? t : data_type::undef;
}

/// 16-bit float sources into e4m3 / e5m2: the problems float8_proven_for_all() can
/// enumerate, for rows on the checked float8 encode's paths (float8_checked_row()).
bool float8_provable(const quant_problem &p) {
    return half_values(p) != data_type::undef && p.div_dt == data_type::f32
            && (p.dst_dt == data_type::f8_e4m3 || p.dst_dt == data_type::f8_e5m2);
}
bool float8_checked_row(const quantize_params &r) {
    const div_path path = static_cast<div_path>(r.path);
    return path == div_path::guarded || path == div_path::float8_checked;
}

bool provable(const quant_problem &p) {
    const bool ints = is_int8(p.dst_dt) || p.dst_dt == data_type::s4 || p.dst_dt == data_type::u4;
    return half_values(p) != data_type::undef && ints && p.div_dt == data_type::f32;
}

class quantize_kernel : public jit_kernel_base {
public:
    quantize_kernel(const quant_problem &p, cpu_isa_t isa, const run_layout &lay)
        : jit_kernel_base(p, isa, lay), q_(range_of(p.quantized_dt())) {
        conf(p, isa, lay);
    }

    std::string name() const override {
        return std::string("jit:") + isa_name(code_conf_.bf16_insn ? avx512_core_bf16 : isa_);
    }
    const char *fallback_reason(const exec_args &a) const override {
        if (p_.kind == q_kind::dynamic_quantize_linear || p_.nelems == 0) return nullptr;
        if (!float_zps_plus_zero(a))
            return "float zero point other than +0 (the code adds +0; -0 keeps a -0 quotient)";
        if (!runtime_zps_fit(a, max_quantize_zp))
            return "runtime s32 zero point beyond +-2^23 (qmin - zp, qmax - zp not exact in f32)";
        if (nibble_lanes() && !set_up_lanes(a, true)->has_tables)
            return "4-bit lanes: a scale outside [2^-30, 2^30] (the lane code has no "
                   "divide path)";
        return nullptr;
    }

    const kernel &run(const exec_args &a) const override {
        if (p_.kind == q_kind::dynamic_quantize_linear) return run_dql(a);
        if (p_.nelems == 0) return *this;
        if (!runtime_zps_fit(a, max_quantize_zp) || !float_zps_plus_zero(a))
            return fallback_->run(a);
        if (nibble_lanes()) return run_nibble_lanes(a);
        if (nibbles()) return run_nibbles(a);
        quantize_params base {};
        // The runtime scales' planes tables (base.planes, or the rows'), held for the call.
        std::shared_ptr<const runtime_planes> planes;
        if (!lay_.params_vary() && p_.scale_src == param_source::attr) {
            base = rows_[0];
        } else if (!lay_.params_vary()) {
            const float s = scale_at(a, 0);
            base = row_params(s, runtime_zp(a, 0));
            if (code_conf_.proven) prove_at_execute(base, s);
            if (planes_serve()) {
                planes = set_up_planes(a, &s, 1);
                base.planes = planes->of(0, base);
            }
            if (code_conf_.f8_proven && !base.planes) prove_float8_at_execute(base, s);
        }
        const size_t zs = p_.zp_src == param_source::input ? size_of(p_.zp_dt) : 4;
        // Runtime scales along the run or of the blocked rows, as f32 (widened from other
        // types), and their lane tables where the lanes_ code takes them (else the code
        // divides).
        const bool raw_lanes = lay_.channel_inner && p_.scale_src == param_source::input;
        const bool raw_rows = lay_.channel_outer >= 0 && p_.scale_src == param_source::input;
        const std::shared_ptr<const lane_setup> setup = raw_lanes || raw_rows
                ? set_up_lanes(a, lanes_ && p_.nelems >= min_lane_reuse * nparams_)
                : nullptr;
        const float *scales = raw_lanes || raw_rows ? lane_setup::scales(setup.get(), a) : nullptr;
        const bool lane_tables = setup && setup->has_tables;
        // Runtime scales of the rows, bf16 into e4m3 / e5m2: the planes' tables of the scales
        // that are not a power of two, kept with the scales' bytes.
        const bool planes_rows = raw_rows && !blocks_ && planes_serve()
                && nparams_ <= max_planes_rows && p_.nelems >= 64 * nparams_;
        if (planes_rows) planes = set_up_planes(a, scales, nparams_);
        for_pieces(a.par, threads(a), a.src, a.dst,
                [&](const run_layout::piece &pc, const void *src, void *dst) {
            quantize_call c = piece_call<quantize_call>(pc, src, dst);
            c.prm = &base;
            if (lay_.channel_outer >= 0) {
                if (p_.scale_src == param_source::attr) {
                    c.prm = &rows_[pc.channel];
                    c.prm_step = pc.channel_step;
                } else if (blocks_ && pc.n == lay_.inner) {
                    // Whole short rows (blocks): the blocked code reads their parameters.
                    const int64_t step = pc.channel_step;
                    c.b_s = scales + pc.channel * scale_stride_;
                    c.b_s_step = step * scale_stride_ * static_cast<int64_t>(sizeof(float));
                    if (p_.zp_src == param_source::input) {
                        c.b_zp = bytes(a.zps, pc.channel * zp_stride_, zs);
                        c.b_zp_step = step * zp_stride_ * static_cast<int64_t>(zs);
                    }
                    return (*blocks_)(&c); // whole vectors on avx2 (blocked_rows())
                } else {
                    // Runtime scales: the rows' parameters, a stack block at a time.
                    const bool divide = pc.n < recip_min_run;
                    const auto params = [&](int64_t ch, quantize_params &r) {
                        const int64_t i = ch * scale_stride_;
                        set_row_params(r, scales[i], runtime_zp(a, ch), divide);
                        if (planes) r.planes = planes->of(static_cast<size_t>(i), r);
                    };
                    return in_blocks<quantize_params>(
                            c, pc, params, [&](const quantize_call &b) { call(b); });
                }
            } else if (lay_.channel_inner) {
                if (p_.scale_src == param_source::attr) {
                    tables_.point(c, pc.lane);
                    return merged_rows(pc, c, size_of(p_.src_dt), size_of(p_.dst_dt),
                            [&](const quantize_call &m) { call(m); });
                } else {
                    c.l_s = scales + pc.channel + pc.lane;
                    if (lane_tables) {
                        setup->tables.point(c, scales, pc.channel + pc.lane);
                        return call(c, *lanes_);
                    }
                    if (p_.zp_src == param_source::input)
                        c.l_zp = bytes(a.zps, pc.channel + pc.lane, zs);
                }
            }
            call(c);
        });
        return *this;
    }

    /// Compile-time set-up of the parameters; false with `reason` if the code cannot take
    /// them.
    bool init(const fallback_factory &next, std::string &reason) {
        if (nibbles() && !nibbles_fit(reason)) return false;
        if (p_.fake_quantize() && !fake_quantize_fits(reason)) return false;
        if (p_.zp_src == param_source::attr)
            for (int64_t z : p_.zps)
                if (z > max_quantize_zp || z < -max_quantize_zp || (is_float8(p_.dst_dt) && z)) {
                    reason = "zero point " + std::to_string(z)
                            + (is_float8(p_.dst_dt) ? " for a float8 destination (must be 0)"
                                                    : " beyond +-2^23");
                    return false;
                }
        if (p_.scale_src == param_source::attr) {
            if (lay_.channel_inner) {
                set_lane_reps();
                tables_.init(p_.scales, p_.zps, q_, lane_reps_);
                lanes_proven_ = provable(p_) && tables_.all_checked;
                for (size_t c = 0; c < p_.scales.size() && lanes_proven_; ++c)
                    lanes_proven_ = proven_for_all(half_values(p_), p_.scales[c],
                            broadcast_params(p_.scales[c], p_.zps.empty() ? 0 : p_.zps[c], q_),
                            q_);
            } else {
                rows_.resize(p_.scales.size());
                static_planes_.resize(planes_serve() ? p_.scales.size() : 0);
                for (size_t c = 0; c < rows_.size(); ++c) {
                    quantize_params &r = rows_[c];
                    r = row_params(p_.scales[c], p_.zps.empty() ? 0 : p_.zps[c]);
                    if (p_.fake_quantize()) set_dequantize(r, c);
                    if (provable(p_) && proven_for_all(half_values(p_), p_.scales[c], r, q_)) {
                        r.path = static_cast<int32_t>(div_path::proven);
                        r.clamp_from = clamp_from(half_values(p_), r.y_hi);
                        code_conf_.proven = true;
                    }
                    if (set_static_planes(r, c)) continue;
                    if (float8_provable(p_) && float8_checked_row(r)
                            && float8_proven_for_all(half_values(p_), p_.scales[c], r.y_hi,
                                    p_.dst_dt, p_.saturate)) {
                        r.f8_proven = 1;
                        code_conf_.f8_proven = true;
                    }
                }
            }
        }
        // Per-tensor runtime scales of 16-bit sources: the code has the proven path too,
        // for the calls whose scale prove_at_execute() proves.
        if (p_.scale_src == param_source::input && !lay_.params_vary() && provable(p_)
                && !p_.fake_quantize())
            code_conf_.proven = true;
        // The same for float8 (prove_float8_at_execute()).
        if (p_.scale_src == param_source::input && !lay_.params_vary()
                && float8_provable(p_))
            code_conf_.f8_proven = true;
        if ((p_.zp_src == param_source::input
                    && (p_.zp_dt == data_type::s32 || is_minifloat(p_.zp_dt)))
                || nibble_lanes())
            fallback_ = next();
        return true;
    }

    /// The code for this problem (its lane tables known only after init()).
    void generate() {
        quantize_conf c = code_conf_;
        if (lay_.channel_inner && p_.scale_src == param_source::attr && !p_.zps.empty()) {
            const auto z = std::minmax_element(p_.zps.begin(), p_.zps.end());
            c.lane_zp_min = static_cast<int32_t>(*z.first);
            c.lane_zp_max = static_cast<int32_t>(*z.second);
        }
        if (lay_.channel_inner && p_.scale_src == param_source::attr)
            c.lane_path = static_cast<int32_t>(tables_.all_exact ? div_path::multiply
                            : is_float8(p_.dst_dt)             ? div_path::divide
                            : lanes_proven_                    ? div_path::proven
                            : tables_.all_checked              ? div_path::checked
                            : tables_.all_fast                 ? div_path::recip
                                                               : div_path::divide);
        if (!nibbles()) code_ = std::make_unique<jit_quantize_kernel>(c);
        const div_path runtime_path = runtime_lanes_path();
        if (c.lanes == lane_source::raw && runtime_path != div_path::divide) {
            quantize_conf l = c;
            l.lanes = lane_source::table;
            l.lane_path = static_cast<int32_t>(runtime_path);
            if (p_.zp_src == param_source::input) {
                const q_range z = range_of(p_.zp_dt);
                l.lane_zp_min = static_cast<int32_t>(z.lo);
                l.lane_zp_max = static_cast<int32_t>(z.hi);
            }
            lanes_ = std::make_unique<jit_quantize_kernel>(l);
        }
        if (size_of(p_.dst_dt) == 1 && streams_dst()) {
            quantize_conf s = c;
            s.stream = true;
            stream_ = std::make_unique<jit_quantize_kernel>(s);
            // avx2 code without packed groups (lanes, float8) has no whole-vector store to stream.
            if (stream_->stream_align() == 0) stream_.reset();
        }
        if (blocked_rows()) {
            c.block = nibbles() ? nibble_block() : lay_.inner;
            c.raw_zp_dt = p_.zp_src == param_source::input ? p_.zp_dt : data_type::s32;
            c.proven = false;
            blocks_ = std::make_unique<jit_quantize_kernel>(c);
            // 4-bit rows of one runtime scale for the calls whose scale prove_at_execute()
            // proves: every row on the proven path.
            if (nibbles() && code_conf_.proven) {
                c.proven = true;
                proven_blocks_ = std::make_unique<jit_quantize_kernel>(c);
            }
        }
        if (p_.kind == q_kind::dynamic_quantize_linear)
            min_max_ = std::make_unique<jit_min_max_kernel>(isa_);
    }

private:
    q_range q_;
    quantize_conf code_conf_;
    std::unique_ptr<jit_quantize_kernel> code_;
    std::unique_ptr<jit_quantize_kernel> stream_; ///< large 1-byte destinations (or null)
    /// Runtime scales along the run, u8 / s8: the lane-table code on the checked path, for
    /// calls that set up their tables at execute (runtime_lane_tables), or null.
    std::unique_ptr<jit_quantize_kernel> lanes_;
    std::unique_ptr<jit_min_max_kernel> min_max_;
    /// Short rows with runtime scales (blocked QuantizeLinear, per channel over small
    /// spatial dims): the blocked code (quantize_conf::block), for pieces of whole rows.
    std::unique_ptr<jit_quantize_kernel> blocks_;
    /// blocks_ with every row on the proven path (quantize_conf::proven), or null: 4-bit
    /// destinations of a per-tensor runtime scale and a 16-bit source (run_nibbles()).
    std::unique_ptr<jit_quantize_kernel> proven_blocks_;
    std::vector<quantize_params> rows_; ///< static scales, one per channel (or one)
    /// prove_at_execute()'s last proof: of the scale bits and zero point in key.
    struct runtime_proof {
        bool valid = false, proven = false;
        uint64_t key = 0;
        int32_t clamp_from = 0;
    };
    mutable std::mutex proof_mutex_;
    mutable runtime_proof proof_;
    /// prove_float8_at_execute()'s last proof (key: the scale's bits) and the scale of the
    /// call before.
    struct runtime_float8_proof {
        bool valid = false, proven = false;
        uint64_t key = 0, last = ~uint64_t(0);
    };
    mutable runtime_float8_proof f8_proof_;
    /// The planes tables of rows_ (planes_serve(): one a row, else none), which rows_[c].planes
    /// point into.
    std::vector<float8_planes_table> static_planes_;
    /// The planes tables of runtime scales, per tensor (one) or per row (an outer channel:
    /// one for each of the nparams_ scales), made once for the scales' bytes (128 divisions
    /// and encodes a scale) and kept; per row for up to max_planes_rows scales (kept_setup
    /// keeps them) and rows of 64 or more on average.
    static constexpr int64_t max_planes_rows = 4096;
    struct runtime_planes {
        std::vector<float8_planes_table> tables;
        std::vector<char> valid; ///< make_float8_planes_table() served the scale
        /// The table of scale i for row parameters r, or null.
        const float8_planes_table *of(size_t i, const quantize_params &r) const {
            return valid[i] && planes_row(r) ? &tables[i] : nullptr;
        }
    };
    kept_setup<runtime_planes> kept_planes_;
    std::shared_ptr<const runtime_planes> set_up_planes(
            const exec_args &a, const float *scales, int64_t n) const {
        return kept_planes_.get({scale_bytes(a)}, [&] {
            runtime_planes t;
            t.tables.resize(static_cast<size_t>(n));
            t.valid.resize(static_cast<size_t>(n));
            for (size_t i = 0; i < t.tables.size(); ++i)
                t.valid[i] = make_float8_planes_table(
                        p_.src_dt, p_.dst_dt, p_.saturate, scales[i], t.tables[i]);
            return t;
        });
    }
    lane_tables tables_; ///< static scales along the inner run
    bool lanes_proven_ = false; ///< every lane of tables_ may take div_path::proven

    /// Runtime scales along the run (or of the rows) set up at execute: widened to f32 where
    /// the code cannot read the tensor as it is (widen_scales()), and where the lanes_ code
    /// takes them, their lane tables.
    struct lane_setup {
        widened_scales widened; ///< f32 null: the code reads the scale tensor
        runtime_lane_tables tables;
        bool has_tables = false; ///< tables made (false: none asked, or a scale out of range)

        /// The scales as the code reads them, of the set-up s (null: none).
        static const float *scales(const lane_setup *s, const exec_args &a) {
            return widened_scales::of(s ? &s->widened : nullptr, a);
        }
    };
    kept_setup<lane_setup> kept_lanes_;

    /// The lane_setup of a's tensors, with lane tables where `tables` (the same on every call
    /// of a kernel: whether its lanes_ code serves the problem), kept from call to call; null
    /// where there is nothing to set up (f32 scales the code reads, no tables).
    std::shared_ptr<const lane_setup> set_up_lanes(const exec_args &a, bool tables) const {
        if (!tables && code_reads_scales()) return nullptr;
        const auto make = [&] {
            lane_setup s;
            s.widened.f32 = widen_scales(a);
            s.has_tables = tables
                    && s.tables.init(lane_setup::scales(&s, a),
                            p_.zp_src == param_source::input ? a.zps : nullptr, p_.zp_dt,
                            nparams_, q_);
            return s;
        };
        return tables ? kept_lanes_.get({scale_bytes(a), zp_bytes(a)}, make)
                      : kept_lanes_.get({scale_bytes(a)}, make);
    }

    /// Row parameters r of a per-tensor runtime scale s (on the checked path) on the proven
    /// path where proven_for_all() holds for s and r's zero point. The proof (2^16 codes,
    /// tens of microseconds) is kept for the next call with the same scale and zero point
    /// (a QuantizeLinear's scale is mostly an initializer, the same every call); executes may
    /// run concurrently, so the kept proof is read and replaced under a mutex, never held
    /// while proving.
    void prove_at_execute(quantize_params &r, float s) const {
        if (static_cast<div_path>(r.path) != div_path::checked) return;
        const uint64_t key = (uint64_t(f32_bits(s)) << 32) | uint32_t(r.zp);
        runtime_proof pr;
        {
            const std::lock_guard<std::mutex> lock(proof_mutex_);
            pr = proof_;
        }
        if (!pr.valid || pr.key != key) {
            pr.valid = true;
            pr.key = key;
            pr.proven = proven_for_all(half_values(p_), s, r, q_);
            pr.clamp_from = pr.proven ? clamp_from(half_values(p_), r.y_hi) : 0;
            const std::lock_guard<std::mutex> lock(proof_mutex_);
            proof_ = pr;
        }
        if (!pr.proven) return;
        r.path = static_cast<int32_t>(div_path::proven);
        r.clamp_from = pr.clamp_from;
    }

    /// bf16 and f16 x into e4m3 / e5m2 on code that has the byte planes for any scale
    /// (quantize_generator::any_scale_planes_run()): avx512 with AVX512_VBMI, the f32
    /// quotient.
    bool planes_serve() const {
        const bool half = p_.src_dt == data_type::bf16 || p_.src_dt == data_type::f16;
        return isa_ == avx512_core && code_conf_.vbmi && half
                && (p_.dst_dt == data_type::f8_e4m3 || p_.dst_dt == data_type::f8_e5m2)
                && p_.div_dt == data_type::f32 && !p_.fake_quantize();
    }
    /// Rows the planes take with a table: those off the multiply path (a power-of-two
    /// scale's, which has planes of its own, scaled_half_planes_run()).
    static bool planes_row(const quantize_params &r) {
        return static_cast<div_path>(r.path) != div_path::multiply;
    }
    /// r.planes = the table of static scale c (in static_planes_), where the planes take r's
    /// row with it.
    bool set_static_planes(quantize_params &r, size_t c) {
        if (!planes_serve() || !planes_row(r)
                || !make_float8_planes_table(
                        p_.src_dt, p_.dst_dt, p_.saturate, p_.scales[c], static_planes_[c]))
            return false;
        r.planes = &static_planes_[c];
        return true;
    }

    /// Row parameters r of a per-tensor runtime scale s on the checked float8 encode's paths:
    /// f8_proven where float8_proven_for_all() holds for s. Its proof costs about a
    /// millisecond, so only a scale seen on two calls in a row is proven (a QuantizeLinear's
    /// scale is mostly an initializer; a scale computed per call, as dynamic FP8 scaling
    /// does, would otherwise pay a proof a call), and the proof is kept for the calls with
    /// the same scale; under a mutex, never held while proving.
    void prove_float8_at_execute(quantize_params &r, float s) const {
        if (!float8_provable(p_) || !float8_checked_row(r)) return;
        const uint64_t key = f32_bits(s);
        runtime_float8_proof pr;
        {
            const std::lock_guard<std::mutex> lock(proof_mutex_);
            pr = f8_proof_;
        }
        if (!pr.valid || pr.key != key) {
            const bool again = pr.last == key;
            pr.last = key;
            pr.valid = again;
            pr.key = key;
            pr.proven = again
                    && float8_proven_for_all(half_values(p_), s, r.y_hi, p_.dst_dt, p_.saturate);
            const std::lock_guard<std::mutex> lock(proof_mutex_);
            f8_proof_ = pr;
        }
        if (pr.proven) r.f8_proven = 1;
    }

    /// The broadcast parameters of one scale. float8 destinations take the exact quotient:
    /// the multiply path where the reciprocal is exact, the guarded path where 2^-30 <= |s|
    /// <= 1 (jit_division.hpp), the checked encode with the divide path's redo where 1 <
    /// |s| <= 2^30, else the divide path (the reciprocal path may be 1 ulp off on a
    /// subnormal quotient, whose sign the code keeps).
    quantize_params row_params(float s, int64_t zp, bool divide = false) const {
        quantize_params r;
        set_row_params(r, s, zp, divide);
        return r;
    }
    void set_row_params(quantize_params &r, float s, int64_t zp, bool divide = false) const {
        set_broadcast_params(r, s, zp, q_, divide);
        const div_path path = static_cast<div_path>(r.path);
        const bool recip = path == div_path::checked || path == div_path::recip;
        if (is_float8(p_.dst_dt) && path != div_path::multiply) {
            const bool guarded = recip && std::fabs(s) <= guarded_max_scale;
            r.path = static_cast<int32_t>(guarded ? div_path::guarded
                            : recip               ? div_path::float8_checked
                                                  : div_path::divide);
            return;
        }
        // f16 / bf16 division: x * RN(1/s) rounded to that type is the rounded quotient
        // wherever an integer can tell (jit_division.hpp, "Division in f16 and bf16").
        if (p_.div_dt != data_type::f32 && recip) r.path = static_cast<int32_t>(div_path::multiply);
    }

    /// Fake-quantize (quant_problem::dequantize_after): the code's output stage takes
    /// broadcast parameters (per tensor, or per channel along an outer dim), an 8-bit
    /// quantized type and f32 or f16 results, and zero points whose differences stay exact in f32
    /// (jit_dequantize_stage_emitter.hpp). The rest runs as the two ops.
    bool fake_quantize_fits(std::string &reason) const {
        const dequantize_stage &dq = p_.dequantize_after;
        if (!is_int8(dq.q_dt) || (p_.dst_dt != data_type::f32 && p_.dst_dt != data_type::f16)) {
            reason = "fake-quantize through " + std::string(to_string(dq.q_dt)) + " to "
                    + to_string(p_.dst_dt) + " (the output stage takes u8 / s8 to f32 / f16)";
            return false;
        }
        if (lay_.channel_inner || lay_.tiles.active) {
            reason = "fake-quantize with parameters along the inner run or a transposing "
                     "layout (the output stage takes one parameter set per row)";
            return false;
        }
        constexpr int64_t max_zp = int64_t(1) << 22;
        for (const std::vector<int64_t> *zps : {&p_.zps, &dq.zps})
            for (int64_t z : *zps)
                if (z > max_zp || z < -max_zp) {
                    reason = "fake-quantize zero point " + std::to_string(z)
                            + " beyond +-2^22 (zp - zp' not exact in f32)";
                    return false;
                }
        return true;
    }

    /// Row parameters r of parameter entry c: the fused dequantize's scale and zp - zp'.
    void set_dequantize(quantize_params &r, size_t c) const {
        const dequantize_stage &dq = p_.dequantize_after;
        const int64_t zp = p_.zps.empty() ? 0 : p_.zps[c];
        r.dq_s = dq.scales[c];
        r.dq_off = static_cast<float>(zp - (dq.zps.empty() ? 0 : dq.zps[c]));
    }

    /// Whether whole rows take the blocked code: runtime scales along an outer dim (of any
    /// type: the code reads them widened to f32 at execute, widen_scales()), divided in f32, rows
    /// of the lengths blocked_run_fits() takes, 8-bit or s4 / u4
    /// destinations (the checked path) or float8 / f4_e2m1 (multiplied where 1/s is exact,
    /// as an e8m0 scale's is, else divided), no or 8-bit zero points
    /// that always pass checked_zp_fits, and 8-bit rows of whole vectors on avx2 (only the
    /// 4-bit rows have an avx2 tail). 4-bit destinations take them per tensor too, and rows
    /// of any length that nibble_block() cuts into sub-rows.
    bool blocked_rows() const {
        if (p_.kind == q_kind::dynamic_quantize_linear || p_.scale_src != param_source::input
                || p_.div_dt != data_type::f32
                || !(is_int8(p_.dst_dt) || nibbles() || is_float8(p_.dst_dt)))
            return false;
        if (nibbles() ? nibble_block() == 0 || lay_.channel_inner
                      : lay_.channel_outer < 0 || !blocked_run_fits()
                                || (isa_ == avx2
                                        && lay_.inner % jit_quantize_kernel::vlen(avx2) != 0))
            return false;
        if (p_.zp_src == param_source::none) return true;
        if (p_.zp_src != param_source::input
                || !(is_int8(p_.zp_dt) || (nibbles() && p_.zp_dt == p_.dst_dt)))
            return false;
        // float8 and f4_e2m1 zero points are +0 (checked at execute), and their rows round
        // the exact quotient (block_row()), no checked path.
        return is_minifloat(p_.dst_dt) || zp_type_fits_checked();
    }

    /// Whether 8-bit and float8 rows of lay_.inner elements take the blocked code: rows too
    /// short for a reciprocal set up per row (recip_min_run), and u8 / s8 rows up to
    /// max_blocked_run that the code packs (whole pairs of vectors, or avx512's fixed-point
    /// rows of any length: jit_quantize_generator.hpp, block_packed()), whose groups it
    /// loops over. Those rows' parameters set up per row by the driver and read by the
    /// broadcast code cost more than the code's own (rows of 196: 34 ns a row); destinations
    /// large enough to stream keep the broadcast code, which streams.
    bool blocked_run_fits() const {
        if (lay_.inner < recip_min_run) return true;
        // avx512 packs every such row (longer than a pair), avx2 whole pairs only.
        const bool packs = isa_ == avx512_core
                || lay_.inner % (2 * jit_quantize_kernel::vlen(avx2)) == 0;
        return is_int8(p_.dst_dt) && !p_.fake_quantize() && lay_.inner <= max_blocked_run
                && packs && !streams_dst();
    }
    static constexpr int64_t max_blocked_run = 8192;

    /// Whether every value of the zero points' type passes checked_zp_fits for the
    /// destination, so that code on the checked path needs no check of them at execute.
    bool zp_type_fits_checked() const {
        const q_range z = range_of(p_.zp_dt), q = range_of(p_.dst_dt);
        return checked_zp_fits(z.lo, q.lo, q.hi) && checked_zp_fits(z.hi, q.lo, q.hi);
    }

    /// 4-bit destinations (s4, u4, f4_e2m1): two elements a byte, written by the blocked code
    /// only, whose rows are straight-line code (jit_quantize_blocked.cpp): rows of up to
    /// max_nibble_row() elements (ONNX block sizes of 4-bit weights are mostly 32 to 256;
    /// 1024 outgrows the code buffer, code_pool::buffer_size), where 8-bit rows from
    /// recip_min_run on take the reciprocal path instead.
    bool nibbles() const { return four_bit(p_.dst_dt); }
    /// 4-bit destinations with scales along the contiguous dim (per channel on the last
    /// axis, blocks along the rows): the lane-table code on the checked path (lanes_), its
    /// tables set up at execute (run_nibble_lanes()).
    bool nibble_lanes() const { return nibbles() && lay_.channel_inner; }
    /// 512, and 128 for f4_e2m1, whose rows are emitted twice (multiply and divide) and
    /// whose vectors take about twice the code (the encode).
    int64_t max_nibble_row() const { return p_.dst_dt == data_type::f4_e2m1 ? 128 : 512; }
    /// Sub-rows shorter than this would spend more on their set-up than on their elements.
    static constexpr int64_t min_nibble_sub_row = 64;

    /// avx2 rows that are not whole pairs of vectors have no packed groups (a vector's code
    /// each, and its checked path's redo block): beyond this they outgrow the code buffer.
    static constexpr int64_t max_unpacked_nibble_row = 256;

    /// Whether the blocked code takes rows of b elements (code size, see above).
    bool nibble_row_fits(int64_t b) const {
        const int64_t pair = 2 * jit_quantize_kernel::vlen(avx2);
        return b <= max_nibble_row()
                && (isa_ != avx2 || b % pair == 0 || b <= max_unpacked_nibble_row);
    }

    /// The blocked code's row for 4-bit destinations: the run itself when it fits, else the
    /// longest sub-row of at least min_nibble_sub_row that divides it, each sub-row taking
    /// the run's scale and zero point (a per-tensor problem's runs, a per-channel row of
    /// 3136 as 7 of 448): whole pairs of vectors where one divides it (packed groups), else
    /// whole vectors (no tail: masked on avx512, through the stack on avx2), else even
    /// (nibbles_fit() rejects an odd run). 0: none.
    int64_t nibble_block() const {
        if (nibble_row_fits(lay_.inner)) return lay_.inner;
        const int64_t vlen = jit_quantize_kernel::vlen(isa_);
        for (const int64_t step : {2 * vlen, vlen, int64_t(2)})
            for (int64_t b = max_nibble_row() / step * step; b >= min_nibble_sub_row; b -= step)
                if (lay_.inner % b == 0 && nibble_row_fits(b)) return b;
        return 0;
    }

    /// What the 4-bit code takes (else `reason`): whole rows of the blocked code
    /// (blocked_rows(): zero points of the destination's type or none), each row an even
    /// number of elements starting on a byte (every outer dst stride even), so that rows and
    /// the threads' ranges of whole rows never share a byte.
    bool nibbles_fit(std::string &reason) const {
        const std::string op = std::string(to_string(p_.src_dt)) + " -> " + to_string(p_.dst_dt);
        if (nibble_lanes()
                && (lay_.tiles.active || p_.scale_src != param_source::input
                        || runtime_lanes_path() != div_path::checked)) {
            reason = "quantize " + op + ": scales along the contiguous dim take the 4-bit lane "
                     "code for s4 / u4 only, with runtime scales divided in f32 and zero "
                     "points of the destination's type or none";
            return false;
        }
        if (!nibble_lanes() && (lay_.tiles.active || !blocked_rows())) {
            reason = "quantize " + op + ": the 4-bit code takes runtime scales, divided "
                     "in f32, per tensor or along outer dims, over rows of at most "
                    + std::to_string(max_nibble_row()) + " contiguous elements or of a "
                    + "multiple of such a row of at least "
                    + std::to_string(min_nibble_sub_row)
                    + " (even)"
                    + ", and zero points of its type or none";
            return false;
        }
        bool even = lay_.inner % 2 == 0;
        for (size_t d = 0; d < p_.dst_strides.size(); ++d)
            if (p_.dst_strides[d] != 1 && p_.dst_strides[d] % 2 != 0) even = false;
        if (!even) {
            reason = "quantize " + op + ": rows of " + std::to_string(lay_.inner)
                    + " elements or an odd dst stride (rows must start on a byte)";
            return false;
        }
        return true;
    }

    /// nibble_lanes(): the lane tables of every call (however few times a scale is used: the
    /// code has no divide path for 4-bit lanes), then the lane code over pieces that start
    /// on even elements (range_align, an even run: nibbles_fit()), so on bytes. Scales whose
    /// reciprocal the tables cannot take go to the fallback.
    const kernel &run_nibble_lanes(const exec_args &a) const {
        const std::shared_ptr<const lane_setup> setup = set_up_lanes(a, true);
        if (!setup->has_tables) return fallback_->run(a);
        const float *scales = lane_setup::scales(setup.get(), a);
        const size_t ss = size_of(p_.src_dt);
        for_pieces(a.par, threads(a), a.src, a.dst,
                [&](const run_layout::piece &pc, const void *src, void *dst) {
            assert(pc.dst % 2 == 0 && pc.n % 2 == 0);
            quantize_call c {};
            c.src = bytes(src, pc.src, ss);
            c.dst = static_cast<char *>(dst) + pc.dst / 2;
            c.n = pc.n;
            c.rows = pc.rows;
            c.src_row_stride = pc.src_row_stride * static_cast<int64_t>(ss);
            c.dst_row_stride = pc.dst_row_stride / 2;
            setup->tables.point(c, scales, pc.channel + pc.lane);
            call(c, *lanes_);
        });
        return *this;
    }

    /// 4-bit destinations: the blocked code over whole rows, or each row's sub-rows (nibble_block()).
    /// Threads take ranges of whole (sub-)rows and whole 64-byte lines of a dense
    /// destination (128 elements), so none writes a byte or a line another does.
    const kernel &run_nibbles(const exec_args &a) const {
        const int64_t block = nibble_block();
        const int64_t align = std::lcm(block, 2 * range_align);
        const size_t ss = size_of(p_.src_dt);
        const std::shared_ptr<const lane_setup> setup = set_up_lanes(a, false);
        const float *scales = lane_setup::scales(setup.get(), a);
        // One scale (proven_blocks_): the proof of the last call's scale, kept, or made now.
        const jit_quantize_kernel *code = blocks_.get();
        if (proven_blocks_) {
            const float s = scale_at(a, 0);
            quantize_params r = row_params(s, runtime_zp(a, 0));
            prove_at_execute(r, s);
            if (static_cast<div_path>(r.path) == div_path::proven) code = proven_blocks_.get();
        }
        const auto call = [&](const run_layout::piece &pc, int64_t src, int64_t dst,
                                  int64_t rows, int64_t channel) {
            quantize_call c {};
            c.src = bytes(a.src, src, ss);
            c.dst = static_cast<char *>(a.dst) + dst / 2; // even: nibbles_fit()
            c.n = block;
            c.rows = rows;
            // Sub-rows follow each other and share the row's parameters.
            const bool sub = block < lay_.inner;
            const int64_t step = sub ? 0 : pc.channel_step;
            c.src_row_stride = (sub ? block : pc.src_row_stride) * static_cast<int64_t>(ss);
            c.dst_row_stride = (sub ? block : pc.dst_row_stride) / 2;
            c.b_s = scales + channel * scale_stride_;
            c.b_s_step = step * scale_stride_ * static_cast<int64_t>(sizeof(float));
            if (p_.zp_src == param_source::input) {
                c.b_zp = a.zps; // packed: the code counts its elements
                c.b_zp_index = channel * zp_stride_;
                c.b_zp_step = step * zp_stride_;
            }
            (*code)(&c);
        };
        parallel(a.par, threads(a), [&](int ithr, int n) {
            int64_t b, e;
            balance(p_.nelems, align, ithr, n, b, e);
            lay_.walk(b, e, [&](const run_layout::piece &pc) {
                // The range's ends are sub-row ends: pieces of whole sub-rows.
                assert(pc.n % block == 0 && (pc.n == lay_.inner || pc.rows == 1));
                if (block == lay_.inner) return call(pc, pc.src, pc.dst, pc.rows, pc.channel);
                for (int64_t r = 0; r < pc.rows; ++r)
                    call(pc, pc.src + r * pc.src_row_stride, pc.dst + r * pc.dst_row_stride,
                            pc.n / block, pc.channel + r * pc.channel_step);
            });
        });
        return *this;
    }

    void conf(const quant_problem &p, cpu_isa_t isa, const run_layout &lay) {
        quantize_conf &c = code_conf_;
        c.isa = isa;
        c.src_dt = p.src_dt;
        c.round_dt = p.src_round_dt;
        c.bf16_insn = p.src_round_dt == data_type::bf16 && isa == avx512_core
                && mayiuse(avx512_core_bf16, p.isa_cap);
        c.vbmi = vbmi_code(isa);
        c.dst_dt = p.quantized_dt();
        // f16 / bf16 division of an f32 source (ONNX precision): x is rounded to it first.
        c.quotient_dt = p.div_dt;
        if (p.div_dt != data_type::f32 && p.src_dt == data_type::f32) c.round_dt = p.div_dt;
        if (p.fake_quantize()) c.dequantize_to = p.dst_dt;
        c.saturate = p.saturate;
        // DynamicQuantizeLinear computes its zero point at execute; float8 and f4_e2m1 add
        // +0 always.
        c.has_zp = (p.zp_src != param_source::none && !is_minifloat(p.dst_dt))
                || p.kind == q_kind::dynamic_quantize_linear;
        // f4_e2m1: blocked rows that divide (the code rounds the quotient itself).
        if (p.dst_dt == data_type::f4_e2m1) c.recip = false;
        if (lay.channel_inner) {
            c.lanes = p.scale_src == param_source::attr ? lane_source::table : lane_source::raw;
            c.raw_zp_dt = p.zp_src == param_source::input ? p.zp_dt : data_type::s32;
        }
    }

    /// The path of runtime scales along the run with lane tables set up at execute
    /// (runtime_lane_tables, the lanes_ code), or divide (none: the code divides):
    ///  - f32 division into u8 / s8 with no zero point or one of a type every value of
    ///    which passes checked_zp_fits (as blocked_rows()): the checked multiply;
    ///  - f16 / bf16 division into 8- and 16-bit integers: x * RN(1/s), then the quotient's
    ///    rounding to that type (jit_division.hpp, "Division in f16 and bf16").
    div_path runtime_lanes_path() const {
        const data_type d = p_.dst_dt;
        if (p_.fake_quantize() || p_.kind == q_kind::dynamic_quantize_linear
                || (p_.zp_src != param_source::none && p_.zp_src != param_source::input)
                || (p_.zp_src == param_source::input && is_minifloat(p_.zp_dt)))
            return div_path::divide;
        if (p_.div_dt != data_type::f32) {
            const bool ints = is_int8(d) || d == data_type::u16 || d == data_type::s16;
            return ints ? div_path::multiply : div_path::divide;
        }
        const bool s4_u4 = d == data_type::s4 || d == data_type::u4;
        if (!is_int8(d) && !s4_u4) return div_path::divide;
        if (p_.zp_src == param_source::none) return div_path::checked;
        const bool zp_type = s4_u4 ? p_.zp_dt == d : is_int8(p_.zp_dt);
        return zp_type && zp_type_fits_checked() ? div_path::checked : div_path::divide;
    }

    void call(const quantize_call &c) const {
        call(c, stream_ && stream_aligned(c, stream_->stream_align()) ? *stream_ : *code_);
    }

    void call(const quantize_call &c, const jit_quantize_kernel &k) const {
        run_rows(c, k, [&](const quantize_call &row, int64_t body, int vlen) {
            tail_avx2(row, body, vlen, k);
        });
    }

    /// The last c.n - body < vlen elements of one row, through padded stack buffers.
    void tail_avx2(const quantize_call &c, int64_t body, int vlen,
            const jit_quantize_kernel &k) const {
        const int64_t rem = c.n - body;
        const size_t ss = size_of(p_.src_dt);
        const size_t zs = k.conf().lanes == lane_source::raw ? size_of(k.conf().raw_zp_dt) : 4;
        // s4 / u4 (lane rows): body and rem are even (nibbles_fit()), so whole bytes.
        const int dst_bits = data_type_bits(p_.dst_dt);
        const int64_t dst_body = position_of(body, dst_bits).byte,
                      dst_rem = position_of(rem, dst_bits).byte;
        alignas(32) char xs[32] = {}, ys[32], zp[32] = {};
        alignas(32) float s[8] = {1, 1, 1, 1, 1, 1, 1, 1}, yh[8] = {}, ya[8] = {}, yb[8] = {},
                          lo[8] = {}, hi[8] = {};
        std::memcpy(xs, bytes(c.src, body, ss), rem * ss);
        auto bounce = [&](const float *from, float *to) {
            if (from) std::memcpy(to, from + body, rem * sizeof(float));
            return from ? to : nullptr;
        };
        quantize_call t = c;
        t.src = xs;
        t.dst = ys;
        t.n = vlen;
        if (code_conf_.lanes != lane_source::none) {
            t.l_s = bounce(c.l_s, s);
            t.l_y_hi = bounce(c.l_y_hi, yh);
            t.l_y_a = bounce(c.l_y_a, ya);
            t.l_y_b = bounce(c.l_y_b, yb);
            t.l_lo = bounce(c.l_lo, lo);
            t.l_hi = bounce(c.l_hi, hi);
            if (c.l_zp) std::memcpy(zp, bytes(c.l_zp, body, zs), rem * zs);
            t.l_zp = zp;
        }
        k(&t);
        std::memcpy(static_cast<char *>(c.dst) + dst_body, ys, static_cast<size_t>(dst_rem));
    }

    void call_min_max(min_max_call &m) const {
        const int vlen = jit_quantize_kernel::vlen(isa_);
        if (isa_ == avx512_core || m.n % vlen == 0) return (*min_max_)(&m);
        const int64_t body = m.n / vlen * vlen, rem = m.n - body;
        const float *src = m.src;
        m.n = body;
        if (body > 0) (*min_max_)(&m);
        alignas(32) float xs[8] = {}; // zeros: the range includes 0 already
        std::memcpy(xs, src + body, rem * sizeof(float));
        m.src = xs;
        m.n = vlen;
        (*min_max_)(&m);
    }

    /// DynamicQuantizeLinear: per-thread min/max, the parameters, then the quantize pass over
    /// the same per-thread ranges (each thread re-reads what it has just read, from its own
    /// cache while the tensor fits in L2).
    const kernel &run_dql(const exec_args &a) const {
        const int nthr = std::min(threads(a, 2), max_dql_threads);
        std::array<min_max_call, max_dql_threads> part;
        parallel(a.par, nthr, [&](int ithr, int n) {
            min_max_call m {nullptr, 0, 0.f, 0.f, 0};
            int64_t b, e;
            balance(p_.nelems, range_align, ithr, n, b, e);
            lay_.walk(b, e, [&](const run_layout::piece &pc) {
                for (int64_t r = 0; r < pc.rows; ++r) {
                    m.src = static_cast<const float *>(a.src) + pc.src + r * pc.src_row_stride;
                    m.n = pc.n;
                    call_min_max(m);
                }
            });
            part[ithr] = m;
        });
        min_max mm;
        for (int i = 0; i < nthr; ++i) {
            min_max t;
            t.lo = part[i].lo;
            t.hi = part[i].hi;
            t.has_nan = part[i].has_nan != 0;
            mm.merge(t);
        }
        const dql_params prm = dynamic_qlinear_params(mm);
        store_elem<float>(a.out_scale, 0, prm.scale);
        *a.out_zp = static_cast<uint8_t>(prm.zp);
        const quantize_params base = broadcast_params(prm.scale, prm.zp, q_);
        for_pieces(a.par, nthr, a.src, a.dst,
                [&](const run_layout::piece &pc, const void *src, void *dst) {
            quantize_call c = piece_call<quantize_call>(pc, src, dst);
            c.prm = &base;
            call(c);
        });
        return *this;
    }
};

} // namespace

std::unique_ptr<kernel> make_quantize_driver(const quant_problem &p, cpu_isa_t isa,
        const run_layout &lay, const fallback_factory &next, std::string &reason) {
    auto k = std::make_unique<quantize_kernel>(p, isa, lay);
    if (!k->init(next, reason)) return nullptr;
    k->generate();
    return k;
}

} // namespace jit
} // namespace impl
} // namespace qgraph
