// The dequantize driver (Dequantize, DynamicDequantize, DequantizeLinear) over the generated
// code.

#include <cstring>

#include "backends/jit/jit_dequantize.hpp"
#include "backends/jit/jit_dequantize_transposed.hpp"
#include "backends/jit/jit_driver.hpp"
#include "backends/jit/jit_params.hpp"
#include "common/minifloat.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

class dequantize_kernel : public jit_kernel_base {
public:
    dequantize_kernel(const quant_problem &p, cpu_isa_t isa, const run_layout &lay)
        : jit_kernel_base(p, isa, lay) {}
    /// The highest level whose instructions the code uses.
    std::string name() const override {
        return conf_.bf16_insn ? std::string("jit:") + isa_name(avx512_core_bf16)
                               : jit_kernel_base::name();
    }

    bool init(const fallback_factory &next, std::string &reason) {
        const bool wide_src = p_.src_dt == data_type::s32;
        if (wide_src && p_.zp_src == param_source::input) {
            reason = "s32 x with a zero-point input: x - zp needs 64 bits";
            return false;
        }
        if (p_.zp_src == param_source::attr && is_float8(p_.src_dt))
            for (int64_t z : p_.zps)
                if (z != 0) {
                    reason = "zero point " + std::to_string(z)
                            + " for a float8 source (must be 0)";
                    return false;
                }
        if (p_.zp_src == param_source::attr)
            for (int64_t z : p_.zps)
                if ((wide_src && z != 0) || z > max_dequantize_zp || z < -max_dequantize_zp) {
                    reason = "zero point " + std::to_string(z) + (wide_src
                                    ? " with s32 x: x - zp needs 64 bits"
                                    : " beyond +-2^30: x - zp needs 64 bits");
                    return false;
                }
        conf_.isa = isa_;
        conf_.src_dt = p_.src_dt;
        conf_.dst_dt = p_.dst_dt;
        conf_.bf16_insn = p_.dst_dt == data_type::bf16 && isa_ == avx512_core
                && mayiuse(avx512_core_bf16, p_.isa_cap);
        conf_.vbmi = vbmi_code(isa_);
        // The smallest nonzero |x - zp|: 1, or a float8 type's smallest subnormal.
        if (is_float8(p_.src_dt)) s_min_ = min_normal_scale(minifloat_to_f32(p_.src_dt, 1));
        conf_.has_zp = p_.zp_src != param_source::none && !is_float8(p_.src_dt);
        if (lay_.channel_inner) {
            conf_.lanes = p_.scale_src == param_source::attr ? lane_source::table
                                                              : lane_source::raw;
            conf_.raw_zp_dt = p_.zp_src == param_source::input ? p_.zp_dt : data_type::s32;
        }
        if (p_.zp_src == param_source::attr) zps_.assign(p_.zps.begin(), p_.zps.end());
        if (lay_.channel_inner && p_.scale_src == param_source::attr) {
            set_lane_reps();
            const size_t n = p_.scales.size();
            for (int64_t r = 0; r < lane_reps_; ++r)
                for (size_t i = 0; i < n; ++i) {
                    lane_s_.push_back(p_.scales[i]);
                    if (!zps_.empty()) lane_zp_.push_back(zps_[i]);
                }
        }
        if (p_.scale_src == param_source::attr && !lay_.channel_inner)
            for (size_t c = 0; c < p_.scales.size(); ++c)
                rows_.push_back(make_dequantize_params(
                        p_.scales[c], zps_.empty() ? 0 : zps_[c], s_min_));
        if (p_.zp_src == param_source::input
                && (p_.zp_dt == data_type::s32 || is_float8(p_.zp_dt)))
            fallback_ = next();
        code_ = std::make_unique<jit_dequantize_kernel>(conf_);
        if (p_.dst_dt == data_type::f32 && streams_dst()) {
            dequantize_conf s = conf_;
            s.stream = true;
            stream_ = std::make_unique<jit_dequantize_kernel>(s);
        }
        // Tiles of whole blocks with one parameter set, or static ones along K, skip the tile
        // buffer (the streaming stores of large destinations stay with the ordinary code).
        const tile_plan &tp = lay_.tiles;
        const bool static_lanes = tp.channel_k && conf_.lanes == lane_source::table
                && p_.zp_src != param_source::input;
        if (tp.active && !tp.narrow_dst && (!tp.channel_k || static_lanes) && !tp.channel_t
                && isa_ == avx512_core
                && (p_.src_dt == data_type::u8 || p_.src_dt == data_type::s8)
                && p_.dst_dt == data_type::f32 && !stream_) {
            direct_ = std::make_unique<jit_dequantize_transposed_kernel>(
                    p_.src_dt, conf_.has_zp, static_lanes);
            lay_.tiles.direct_k = jit_dequantize_transposed_kernel::block_k;
            lay_.tiles.direct_t = jit_dequantize_transposed_kernel::block_t;
        }
        return true;
    }

    /// Each vector (and the avx2 tail, through its stack copy) loads its elements before it
    /// stores theirs, pieces and threads own disjoint elements, and streaming stores are
    /// ordered after the thread's own loads. Not the tile walk: it reads the narrow side a
    /// tile at a time, but only problems whose src and dst strides differ take it.
    bool in_place_safe() const override {
        return !lay_.tiles.active && (!fallback_ || fallback_->in_place_safe());
    }

    const char *fallback_reason(const exec_args &a) const override {
        if (p_.nelems == 0) return nullptr;
        if (!float_zps_plus_zero(a)) return "float8 zero point other than +0";
        if (!runtime_zps_fit(a, max_dequantize_zp))
            return "runtime s32 zero point beyond +-2^30 (x - zp would overflow s32)";
        return nullptr;
    }

    const kernel &run(const exec_args &a) const override {
        if (p_.nelems == 0) return *this;
        if (!runtime_zps_fit(a, max_dequantize_zp) || !float_zps_plus_zero(a))
            return fallback_->run(a);
        const bool attr = p_.scale_src == param_source::attr;
        // Runtime scales that vary (along the run or per row), as f32: the tensor itself, or
        // widened once (a load_float call per row cost a tenth of rows of 32).
        const bool vary = lay_.params_vary() && !attr;
        const std::shared_ptr<const widened_scales> widened
                = vary ? kept_widened(a, kept_scales_) : nullptr;
        const float *scales = vary ? widened_scales::of(widened.get(), a) : nullptr;
        const auto params = [&](int64_t ch) {
            const float s = scales ? scales[ch * scale_stride_] : scale_at(a, ch * scale_stride_);
            return make_dequantize_params(
                    s, static_cast<int32_t>(zps_.empty() ? runtime_zp(a, ch) : zps_[ch]), s_min_);
        };
        dequantize_params base {};
        if (!lay_.params_vary()) base = attr ? rows_[0] : params(0);
        const size_t ss = size_of(p_.src_dt), ds = size_of(p_.dst_dt);
        const size_t zs = p_.zp_src == param_source::input ? size_of(p_.zp_dt) : 4;
        for_pieces(a.par, threads(a), a.src, a.dst,
                [&](const run_layout::piece &pc, const void *src, void *dst) {
            if (pc.src_lane_stride != 1) {
                // A direct tile: static lane tables (the channel is K), or one parameter set
                // (the channel is another dim, or none).
                dequantize_params prm = base;
                dequantize_transposed_call c {bytes(src, pc.src, ss), bytes(dst, pc.dst, ds),
                        pc.n, pc.rows, pc.src_lane_stride * static_cast<int64_t>(ss),
                        pc.dst_row_stride * static_cast<int64_t>(ds), &prm, nullptr, nullptr};
                if (lay_.channel_inner) {
                    c.l_s = lane_s_.data() + pc.lane;
                    if (!lane_zp_.empty()) c.l_zp = lane_zp_.data() + pc.lane;
                } else if (lay_.params_vary()) {
                    prm = attr ? rows_[pc.channel] : params(pc.channel);
                }
                return (*direct_)(&c);
            }
            dequantize_call c = piece_call<dequantize_call>(pc, src, dst);
            c.prm = &base;
            if (lay_.channel_outer >= 0) {
                if (!attr)
                    return in_blocks<dequantize_params>(
                            c, pc, [&](int64_t ch, dequantize_params &r) { r = params(ch); },
                            [&](const dequantize_call &b) { call(b); });
                c.prm = &rows_[pc.channel];
                c.prm_step = pc.channel_step;
            } else if (lay_.channel_inner) {
                if (attr) {
                    c.l_s = lane_s_.data() + pc.lane;
                    if (!lane_zp_.empty()) c.l_zp = lane_zp_.data() + pc.lane;
                    return merged_rows(
                            pc, c, ss, ds, [&](const dequantize_call &m) { call(m); });
                }
                c.l_s = scales + pc.channel + pc.lane;
                if (p_.zp_src == param_source::input)
                    c.l_zp = bytes(a.zps, pc.channel + pc.lane, zs);
            }
            call(c);
        });
        return *this;
    }

private:
    dequantize_conf conf_;
    std::unique_ptr<jit_dequantize_kernel> code_;
    std::unique_ptr<jit_dequantize_kernel> stream_; ///< large f32 destinations (or null)
    std::unique_ptr<jit_dequantize_transposed_kernel> direct_; ///< tile_plan::direct_k (or null)
    std::vector<int32_t> zps_; ///< static zero points
    std::vector<float> lane_s_; ///< static scales along the inner run, lane_reps_ times
    std::vector<int32_t> lane_zp_; ///< their zero points (empty: none)
    std::vector<dequantize_params> rows_; ///< static scales on an outer dim, one per channel
    float s_min_ = min_normal_scale(); ///< make_dequantize_params' bound
    kept_setup<widened_scales> kept_scales_; ///< runtime scales that vary, widened

    void call(const dequantize_call &c) const {
        // The streaming code stores whole f32 vectors.
        const jit_dequantize_kernel &k
                = stream_ && stream_aligned(c, isa_ == avx512_core ? 64 : 32) ? *stream_ : *code_;
        run_rows(c, k, [&](const dequantize_call &row, int64_t body, int vlen) {
            tail_avx2(row, body, vlen);
        });
    }

    /// As quantize_kernel::tail_avx2.
    void tail_avx2(const dequantize_call &c, int64_t body, int vlen) const {
        const int64_t rem = c.n - body;
        const size_t ss = size_of(p_.src_dt);
        const size_t zs = conf_.lanes == lane_source::raw ? size_of(conf_.raw_zp_dt) : 4;
        alignas(32) char xs[32] = {}, zp[32] = {};
        alignas(32) float s[8] = {};
        alignas(32) char ys[32];
        std::memcpy(xs, bytes(c.src, body, ss), rem * ss);
        dequantize_call t = c;
        t.src = xs;
        t.dst = ys;
        t.n = vlen;
        if (conf_.lanes != lane_source::none) {
            std::memcpy(s, c.l_s + body, rem * sizeof(float));
            t.l_s = s;
            if (c.l_zp) std::memcpy(zp, bytes(c.l_zp, body, zs), rem * zs);
            t.l_zp = zp;
        }
        (*code_)(&t);
        const size_t ds = size_of(p_.dst_dt);
        std::memcpy(bytes(c.dst, body, ds), ys, rem * ds);
    }
};

} // namespace

std::unique_ptr<kernel> make_dequantize_driver(const quant_problem &p, cpu_isa_t isa,
        const run_layout &lay, const fallback_factory &next, std::string &reason) {
    auto k = std::make_unique<dequantize_kernel>(p, isa, lay);
    if (!k->init(next, reason)) return nullptr;
    return k;
}

} // namespace jit
} // namespace impl
} // namespace qgraph
