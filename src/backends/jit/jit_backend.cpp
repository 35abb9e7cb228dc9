// The JIT backend: legality (what the generated kernels take, and why not otherwise) and the
// kernel objects that drive the generated code over a problem's layout, in parallel.
//
// Everything that can be decided at compile is: the code (jit_*.cpp), the layout walk, the
// per-channel parameter tables. execute only reads runtime scales and zero points, splits the
// flat index range among threads (common/parallel.hpp) and calls the code; it allocates
// nothing and takes no lock.

#include "backends/jit/jit_backend.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "backends/jit/jit_dequantize.hpp"
#include "backends/jit/jit_division.hpp"
#include "backends/jit/jit_layout.hpp"
#include "backends/jit/jit_min_max.hpp"
#include "backends/jit/jit_params.hpp"
#include "backends/jit/jit_quantize.hpp"
#include "common/data_types.hpp"
#include "common/parallel.hpp"
#include "common/q10n.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

// Below this many elements per thread, a second thread costs more than it saves (measured
// with qbench; docs/performance.md).
constexpr int64_t min_elems_per_thread = 1 << 15;
// Thread ranges start on multiples of 64 elements: whole cache lines of a u8 tensor and of
// an f32 tensor, so no two threads write the same line of a dense destination.
constexpr int64_t range_align = 64;
// Dequantize destinations of at least this many bytes are written with streaming stores
// (no read for ownership; the data is not kept in cache), measured with qbench
// (docs/performance.md).
constexpr int64_t stream_min_bytes = int64_t(8) << 20;
// DynamicQuantizeLinear keeps one partial min/max per thread on the stack.
constexpr int max_dql_threads = 256;

const char *bytes(const void *p, int64_t off, size_t esize) {
    return static_cast<const char *>(p) + off * static_cast<int64_t>(esize);
}
char *bytes(void *p, int64_t off, size_t esize) {
    return static_cast<char *>(p) + off * static_cast<int64_t>(esize);
}

/// What every JIT kernel shares: the problem, the ISA, the layout and the parallel walk.
class jit_kernel_base : public kernel {
public:
    jit_kernel_base(const quant_problem &p, cpu_isa_t isa, const run_layout &lay)
        : p_(p), isa_(isa), lay_(lay) {}
    std::string name() const override { return std::string("jit:") + isa_name(isa_); }

protected:
    quant_problem p_;
    cpu_isa_t isa_;
    run_layout lay_;
    std::unique_ptr<kernel> fallback_; ///< for runtime zero points the code cannot take

    int threads() const { return threads_for(p_.nelems, min_elems_per_thread); }

    /// Calls f(piece) over the whole problem; thread ithr of nthr gets the same range on
    /// every run.
    template <typename F>
    void for_pieces(int nthr, F &&f) const {
        parallel(nthr, [&](int ithr, int n) {
            int64_t b, e;
            balance(p_.nelems, range_align, ithr, n, b, e);
            lay_.walk(b, e, f);
        });
    }

    /// Static lane parameters (channel innermost) are laid out lane_reps_ times over, so
    /// that dense rows merge into runs of lane_reps_ * inner elements: one kernel row
    /// instead of lane_reps_ (a row costs a few ns; NHWC rows are often 64 elements).
    int64_t lane_reps_ = 1;
    void set_lane_reps() {
        constexpr int64_t min_run = 512;
        if (lay_.channel_inner && p_.scale_src == param_source::attr && lay_.inner < min_run)
            lane_reps_ = (min_run + lay_.inner - 1) / lay_.inner;
    }

    /// Calls call(c) for piece pc, merging its rows lane_reps_ at a time where they are
    /// whole, dense and start at lane 0. c is pc's call; ss and ds the element sizes.
    template <typename Call, typename F>
    void merged_rows(const run_layout::piece &pc, Call c, size_t ss, size_t ds, F &&call) const {
        const int64_t L = lay_.inner, r = lane_reps_;
        if (r == 1 || pc.rows == 1 || pc.n != L || pc.lane != 0 || pc.src_row_stride != L
                || pc.dst_row_stride != L)
            return call(c);
        const int64_t full = pc.rows / r, rem = pc.rows % r;
        if (full > 0) {
            Call m = c;
            m.n = r * L;
            m.rows = full;
            m.src_row_stride = r * L * static_cast<int64_t>(ss);
            m.dst_row_stride = r * L * static_cast<int64_t>(ds);
            call(m);
        }
        if (rem > 0) {
            Call m = c;
            m.src = bytes(c.src, full * r * L, ss);
            m.dst = bytes(c.dst, full * r * L, ds);
            m.n = rem * L;
            m.rows = 1;
            call(m);
        }
    }

    /// Runs c over pc's rows with per-row parameters make(channel), computed into a stack
    /// block of rows at a time (execute allocates nothing); run(call) runs each block.
    template <typename Param, typename Call, typename Make, typename Run>
    static void in_blocks(const Call &c, const run_layout::piece &pc, Make &&make, Run &&run) {
        constexpr int64_t block = 64;
        std::array<Param, block> prm;
        for (int64_t r0 = 0; r0 < c.rows; r0 += block) {
            const int64_t nr = std::min(block, c.rows - r0);
            for (int64_t i = 0; i < nr; ++i)
                prm[i] = make(pc.channel + (r0 + i) * pc.channel_step);
            Call b = c;
            b.src = bytes(c.src, r0 * c.src_row_stride, 1);
            b.dst = bytes(c.dst, r0 * c.dst_row_stride, 1);
            b.rows = nr;
            b.prm = prm.data();
            b.prm_step = 1;
            run(b);
        }
    }

    /// Runs the code on c, whose rows are whole vectors for avx2 code; other avx2 calls go
    /// row by row to tail(row), which bounces the row's tail through stack buffers.
    template <typename Call, typename Code, typename Tail>
    void run_rows(const Call &c, const Code &code, Tail &&tail) const {
        const int vlen = isa_ == avx2 ? 8 : 16;
        if (isa_ == avx512_core || c.n % vlen == 0) return code(&c);
        for (int64_t r = 0; r < c.rows; ++r) {
            Call row = c;
            row.src = bytes(c.src, r * c.src_row_stride, 1);
            row.dst = bytes(c.dst, r * c.dst_row_stride, 1);
            row.rows = 1;
            row.prm = c.prm ? c.prm + r * c.prm_step : nullptr;
            const int64_t body = c.n / vlen * vlen;
            if (body > 0) {
                Call b = row;
                b.n = body;
                code(&b);
            }
            tail(row, body, vlen);
        }
    }

    int64_t runtime_zp(const exec_args &a, int64_t ch) const {
        return p_.zp_src == param_source::input ? load_int(a.zps, p_.zp_dt, ch * p_.zp_stride)
                                                : 0;
    }

    /// Runtime s32 zero points beyond `limit` go to the fallback (8-bit ones never do).
    bool runtime_zps_fit(const exec_args &a, int64_t limit) const {
        if (p_.zp_src != param_source::input || p_.zp_dt != data_type::s32) return true;
        for (int64_t c = 0; c < p_.nparams; ++c) {
            const int64_t z = runtime_zp(a, c);
            if (z > limit || z < -limit) return false;
        }
        return true;
    }
};

class quantize_kernel : public jit_kernel_base {
public:
    quantize_kernel(const quant_problem &p, cpu_isa_t isa, const run_layout &lay)
        : jit_kernel_base(p, isa, lay), q_(range_of(p.dst_dt)) {
        conf(p, isa, lay);
    }

    const kernel &run(const exec_args &a) const override {
        if (p_.kind == q_kind::dynamic_quantize_linear) return run_dql(a);
        if (p_.nelems == 0) return *this;
        if (!runtime_zps_fit(a, max_quantize_zp)) return fallback_->run(a);
        quantize_params base {};
        if (!p_.per_channel())
            base = p_.scale_src == param_source::attr
                    ? rows_[0]
                    : broadcast_params(load_elem<float>(a.scales, 0), runtime_zp(a, 0), q_);
        const size_t zs = p_.zp_src == param_source::input ? size_of(p_.zp_dt) : 4;
        for_pieces(threads(), [&](const run_layout::piece &pc) {
            quantize_call c = first_call(pc, a.src, a.dst);
            c.prm = &base;
            if (lay_.channel_outer >= 0) {
                if (p_.scale_src == param_source::attr) {
                    c.prm = &rows_[pc.channel];
                    c.prm_step = pc.channel_step;
                } else {
                    // Runtime scales: the rows' parameters, a stack block at a time.
                    const bool divide = pc.n < recip_min_run;
                    const auto params = [&](int64_t ch) {
                        return broadcast_params(
                                load_elem<float>(a.scales, ch * p_.scale_stride),
                                runtime_zp(a, ch), q_, divide);
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
                    c.l_s = a.scales + pc.lane;
                    if (p_.zp_src == param_source::input) c.l_zp = bytes(a.zps, pc.lane, zs);
                }
            }
            call(c);
        });
        return *this;
    }

    /// Compile-time set-up of the parameters; false with `reason` if the code cannot take
    /// them.
    bool init(const fallback_factory &next, std::string &reason) {
        if (p_.zp_src == param_source::attr)
            for (int64_t z : p_.zps)
                if (z > max_quantize_zp || z < -max_quantize_zp) {
                    reason = "zero point " + std::to_string(z) + " beyond +-2^23";
                    return false;
                }
        if (p_.scale_src == param_source::attr) {
            if (lay_.channel_inner) {
                set_lane_reps();
                tables_.init(p_.scales, p_.zps, q_, lane_reps_);
            } else {
                rows_.resize(p_.scales.size());
                for (size_t c = 0; c < rows_.size(); ++c)
                    rows_[c] = broadcast_params(p_.scales[c], p_.zps.empty() ? 0 : p_.zps[c], q_);
            }
        }
        if (p_.zp_src == param_source::input && p_.zp_dt == data_type::s32) fallback_ = next();
        return true;
    }

    /// The code for this problem (its lane tables known only after init()).
    void generate() {
        quantize_conf c = code_conf_;
        if (lay_.channel_inner && p_.scale_src == param_source::attr)
            c.lane_path = static_cast<int32_t>(tables_.all_exact ? div_path::multiply
                            : tables_.all_checked              ? div_path::checked
                            : tables_.all_fast                 ? div_path::recip
                                                               : div_path::divide);
        code_ = std::make_unique<jit_quantize_kernel>(c);
        if (p_.kind == q_kind::dynamic_quantize_linear)
            min_max_ = std::make_unique<jit_min_max_kernel>(isa_);
    }

private:
    q_range q_;
    quantize_conf code_conf_;
    std::unique_ptr<jit_quantize_kernel> code_;
    std::unique_ptr<jit_min_max_kernel> min_max_;
    std::vector<quantize_params> rows_; ///< static scales, one per channel (or one)
    lane_tables tables_; ///< static scales along the inner run

    void conf(const quant_problem &p, cpu_isa_t isa, const run_layout &lay) {
        quantize_conf &c = code_conf_;
        c.isa = isa;
        c.src_dt = p.src_dt;
        c.dst_dt = p.dst_dt;
        // DynamicQuantizeLinear computes its zero point at execute.
        c.has_zp = p.zp_src != param_source::none || p.kind == q_kind::dynamic_quantize_linear;
        if (lay.channel_inner) {
            c.lanes = p.scale_src == param_source::attr ? lane_source::table : lane_source::raw;
            c.raw_zp_dt = p.zp_src == param_source::input ? p.zp_dt : data_type::s32;
        }
    }

    /// The call for piece pc, without its parameters.
    quantize_call first_call(const run_layout::piece &pc, const void *src, void *dst) const {
        const size_t ss = size_of(p_.src_dt), ds = size_of(p_.dst_dt);
        quantize_call c {};
        c.src = bytes(src, pc.src, ss);
        c.dst = bytes(dst, pc.dst, ds);
        c.n = pc.n;
        c.rows = pc.rows;
        c.src_row_stride = pc.src_row_stride * static_cast<int64_t>(ss);
        c.dst_row_stride = pc.dst_row_stride * static_cast<int64_t>(ds);
        return c;
    }

    void call(const quantize_call &c) const {
        run_rows(c, *code_, [&](const quantize_call &row, int64_t body, int vlen) {
            tail_avx2(row, body, vlen);
        });
    }

    /// The last c.n - body < vlen elements of one row, through padded stack buffers.
    void tail_avx2(const quantize_call &c, int64_t body, int vlen) const {
        const int64_t rem = c.n - body;
        const size_t ss = size_of(p_.src_dt), ds = size_of(p_.dst_dt);
        const size_t zs = code_conf_.lanes == lane_source::raw ? size_of(code_conf_.raw_zp_dt)
                                                                : 4;
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
        (*code_)(&t);
        std::memcpy(bytes(c.dst, body, ds), ys, rem * ds);
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
        const int nthr = std::min(threads(), max_dql_threads);
        std::array<min_max_call, max_dql_threads> part;
        parallel(nthr, [&](int ithr, int n) {
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
        for_pieces(nthr, [&](const run_layout::piece &pc) {
            quantize_call c = first_call(pc, a.src, a.dst);
            c.prm = &base;
            call(c);
        });
        return *this;
    }
};

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
                && mayiuse(avx512_core_bf16);
        conf_.has_zp = p_.zp_src != param_source::none;
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
                rows_.push_back(make_dequantize_params(p_.scales[c], zps_.empty() ? 0 : zps_[c]));
        if (p_.zp_src == param_source::input && p_.zp_dt == data_type::s32) fallback_ = next();
        code_ = std::make_unique<jit_dequantize_kernel>(conf_);
        if (p_.dst_dt == data_type::f32
                && p_.nelems * static_cast<int64_t>(sizeof(float)) >= stream_min_bytes) {
            dequantize_conf s = conf_;
            s.stream = true;
            stream_ = std::make_unique<jit_dequantize_kernel>(s);
        }
        return true;
    }

    const kernel &run(const exec_args &a) const override {
        if (p_.nelems == 0) return *this;
        if (!runtime_zps_fit(a, max_dequantize_zp)) return fallback_->run(a);
        const bool attr = p_.scale_src == param_source::attr;
        const auto params = [&](int64_t ch) {
            return make_dequantize_params(load_elem<float>(a.scales, ch * p_.scale_stride),
                    static_cast<int32_t>(zps_.empty() ? runtime_zp(a, ch) : zps_[ch]));
        };
        dequantize_params base {};
        if (!p_.per_channel()) base = attr ? rows_[0] : params(0);
        const size_t ss = size_of(p_.src_dt), ds = size_of(p_.dst_dt);
        const size_t zs = p_.zp_src == param_source::input ? size_of(p_.zp_dt) : 4;
        for_pieces(threads(), [&](const run_layout::piece &pc) {
            dequantize_call c {};
            c.src = bytes(a.src, pc.src, ss);
            c.dst = bytes(a.dst, pc.dst, ds);
            c.n = pc.n;
            c.rows = pc.rows;
            c.src_row_stride = pc.src_row_stride * static_cast<int64_t>(ss);
            c.dst_row_stride = pc.dst_row_stride * static_cast<int64_t>(ds);
            c.prm = &base;
            if (lay_.channel_outer >= 0) {
                if (!attr)
                    return in_blocks<dequantize_params>(
                            c, pc, params, [&](const dequantize_call &b) { call(b); });
                c.prm = &rows_[pc.channel];
                c.prm_step = pc.channel_step;
            } else if (lay_.channel_inner) {
                if (attr) {
                    c.l_s = lane_s_.data() + pc.lane;
                    if (!lane_zp_.empty()) c.l_zp = lane_zp_.data() + pc.lane;
                    return merged_rows(
                            pc, c, ss, ds, [&](const dequantize_call &m) { call(m); });
                }
                c.l_s = a.scales + pc.lane;
                if (p_.zp_src == param_source::input) c.l_zp = bytes(a.zps, pc.lane, zs);
            }
            call(c);
        });
        return *this;
    }

private:
    dequantize_conf conf_;
    std::unique_ptr<jit_dequantize_kernel> code_;
    std::unique_ptr<jit_dequantize_kernel> stream_; ///< large f32 destinations (or null)
    std::vector<int32_t> zps_; ///< static zero points
    std::vector<float> lane_s_; ///< static scales along the inner run, lane_reps_ times
    std::vector<int32_t> lane_zp_; ///< their zero points (empty: none)
    std::vector<dequantize_params> rows_; ///< static scales on an outer dim, one per channel

    /// Streaming stores need every full vector's address aligned: dst and the row stride.
    bool stream_aligned(const dequantize_call &c) const {
        const int64_t v = isa_ == avx512_core ? 64 : 32;
        return reinterpret_cast<uintptr_t>(c.dst) % v == 0
                && (c.rows == 1 || c.dst_row_stride % v == 0);
    }

    void call(const dequantize_call &c) const {
        const jit_dequantize_kernel &k = stream_ && stream_aligned(c) ? *stream_ : *code_;
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

/// f32, bf16 or f16: quantize sources and dequantize destinations.
bool is_float(data_type dt) {
    return dt == data_type::f32 || dt == data_type::bf16 || dt == data_type::f16;
}

bool supported_types(const quant_problem &p, std::string &reason) {
    const data_type s = p.src_dt, d = p.dst_dt;
    bool ok = false;
    switch (p.kind) {
        case q_kind::quantize: ok = (is_float(s) || s == data_type::s32) && is_int8(d); break;
        case q_kind::dequantize: ok = is_quant_int(s) && is_float(d); break;
        case q_kind::dynamic_quantize_linear:
            ok = s == data_type::f32 && d == data_type::u8;
            break;
    }
    if (!ok) reason = std::string("no jit kernel for ") + to_string(s) + " -> " + to_string(d);
    return ok;
}

class jit_backend_t : public backend {
public:
    const char *name() const override { return "jit"; }

    std::unique_ptr<kernel> create(const quant_problem &p, const fallback_factory &next,
            std::string &reason) const override {
        const cpu_isa_t isa = mayiuse(avx512_core) ? avx512_core
                : mayiuse(avx2)                    ? avx2
                                                   : isa_none;
        if (isa == isa_none) {
            reason = std::string("needs avx2 (CPU or QGRAPH_MAX_CPU_ISA cap: ")
                    + isa_name(max_cpu_isa()) + ")";
            return nullptr;
        }
        if (!supported_types(p, reason)) return nullptr;
        run_layout lay;
        if (!lay.init(p, reason)) return nullptr;
        if (lay.channel_inner
                && ((p.scale_src == param_source::input && p.scale_stride != 1)
                        || (p.zp_src == param_source::input && p.zp_stride != 1))) {
            reason = "strided scale or zero-point tensor along the inner run";
            return nullptr;
        }
        try {
            if (p.kind == q_kind::dequantize) {
                auto k = std::make_unique<dequantize_kernel>(p, isa, lay);
                if (!k->init(next, reason)) return nullptr;
                return k;
            }
            auto k = std::make_unique<quantize_kernel>(p, isa, lay);
            if (!k->init(next, reason)) return nullptr;
            k->generate();
            return k;
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

} // namespace impl
} // namespace qgraph
