#ifndef QGRAPH_BACKENDS_JIT_JIT_DRIVER_HPP
#define QGRAPH_BACKENDS_JIT_JIT_DRIVER_HPP

// The kernel objects that drive generated code over a problem: what the quantize and
// dequantize drivers share (the problem, the ISA, the layout walk in parallel, per-row
// parameter blocks, merged rows, the avx2 row split, runtime zero-point checks), and the
// factories jit_backend.cpp calls once a problem is legal.
//
// Everything that can be decided at compile is: the code (jit_*.cpp), the layout walk, the
// per-channel parameter tables. execute reads runtime scales and zero points, splits the
// flat index range among threads (common/parallel.hpp) and calls the code. It allocates and
// locks only to set up runtime parameters the code cannot read as they are (scales widened to
// f32, lane tables), a set-up kept while the tensors hold the same bytes (jit_kept_setup.hpp).

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "backends/backend.hpp"
#include "backends/jit/jit_kept_setup.hpp"
#include "backends/jit/jit_layout.hpp"
#include "backends/jit/jit_tiles.hpp"
#include "common/cpu_isa.hpp"
#include "common/data_types.hpp"
#include "common/half_types.hpp"
#include "common/parallel.hpp"
#include "common/q10n.hpp"
#include "common/thread_count.hpp"

namespace qgraph {
namespace impl {
namespace jit {

// Thread ranges start on multiples of 64 elements: whole cache lines of a u8 tensor and of
// an f32 tensor, so no two threads write the same line of a dense destination.
constexpr int64_t range_align = 64;

// Destinations of at least this many bytes get a second kernel that writes whole vectors
// with streaming stores (no read for ownership; the data is not kept in cache): dequantize to
// f32 and quantize to 8-bit types. Measured with qbench (docs/performance.md).
constexpr int64_t stream_min_bytes = int64_t(8) << 20;

/// Whether call c may take a streaming kernel whose widest non-temporal store is `align`
/// bytes, each at a multiple of `align` from a row start: dst and the row stride aligned.
template <typename Call>
bool stream_aligned(const Call &c, int64_t align) {
    return reinterpret_cast<uintptr_t>(c.dst) % align == 0
            && (c.rows == 1 || c.dst_row_stride % align == 0);
}

/// Whether code generated for `isa` may use AVX512_VBMI (vpermb, vpermi2b, vpermt2b): avx512
/// code on a CPU that has it, which is no level of the ISA table (common/cpu_isa.hpp).
inline bool vbmi_code(cpu_isa_t isa) { return isa == avx512_core && has_avx512_vbmi(); }

inline const char *bytes(const void *p, int64_t off, size_t esize) {
    return static_cast<const char *>(p) + off * static_cast<int64_t>(esize);
}
inline char *bytes(void *p, int64_t off, size_t esize) {
    return static_cast<char *>(p) + off * static_cast<int64_t>(esize);
}

/// Runtime scale tensors of another type than f32 (f16, bf16, e8m0) are widened to f32 before
/// the code runs: widen(b, e) widens entries [b, e) of n, in parallel parts of whole 64-entry
/// blocks where the thread-count model finds `moved` bytes (the tensor read, the f32 written)
/// worth them. An MX scale tensor of a 4096x4096 weight in 1x32 blocks has 2^19 entries, whose
/// widening, and first touch of 2 MiB of f32, took longer on one thread than the 16-thread
/// dequantize that reads them (docs/performance.md, "Scale tensors widened in parallel").
template <typename F>
void widen_in_parts(const parallel_ctx &par, int64_t n, int64_t moved, F &&widen) {
    parallel(par, threads_for(par.max_threads, moved), [&](int ithr, int nthr) {
        int64_t b, e;
        balance(n, range_align, ithr, nthr, b, e);
        if (b < e) widen(b, e);
    });
}

/// Runtime scales widened to f32 at execute (f16, bf16, e8m0 tensors), as a kept set-up
/// (kept_setup): made once for the tensor's bytes.
struct widened_scales {
    std::unique_ptr<float[]> f32;

    /// The scales as the code reads them: w's, or the tensor itself (w or its f32 null).
    static const float *of(const widened_scales *w, const exec_args &a) {
        return w && w->f32 ? w->f32.get() : static_cast<const float *>(a.scales);
    }
};

/// What every JIT kernel shares: the problem, the ISA, the layout and the parallel walk.
class jit_kernel_base : public kernel {
public:
    jit_kernel_base(const quant_problem &p, cpu_isa_t isa, const run_layout &lay)
        : p_(p)
        , isa_(isa)
        , lay_(lay)
        , nparams_(param_indices(p))
        , scale_stride_(p.scale_stride())
        , zp_stride_(p.zp_stride()) {}
    const char *backend() const override { return "jit"; }
    std::string name() const override { return std::string(backend()) + ":" + isa_name(isa_); }

protected:
    quant_problem p_;
    cpu_isa_t isa_;
    run_layout lay_;
    // The parameter map read once: the parameter indices of the rows (channels, or entries
    // where the parameters vary along several outer dims: run_layout::param_steps) and the
    // channel's strides in the parameter tensors (1 for entries).
    int64_t nparams_;
    int64_t scale_stride_;
    int64_t zp_stride_;
    std::unique_ptr<kernel> fallback_; ///< for runtime zero points the code cannot take

    /// The parameter indices the checks of runtime zero points go over: the channels, or
    /// every entry up to the last a row reads (entries in between, which belong to no row of
    /// this problem, are checked too: a check that fails there only sends a call to the
    /// fallback, which is exact).
    static int64_t param_indices(const quant_problem &p) {
        return p.per_tensor() || p.per_channel() ? p.nparams() : p.scale_span();
    }

    /// Whether the code should get a streaming variant: it writes a destination of
    /// stream_min_bytes or more itself, not through tile buffers (read right back).
    bool streams_dst() const {
        return p_.nelems * static_cast<int64_t>(size_of(p_.dst_dt)) >= stream_min_bytes
                && !(lay_.tiles.active && lay_.tiles.narrow_dst);
    }

    /// Threads for `passes` passes over the source and one over the destination.
    int threads(const exec_args &a, int passes = 1) const {
        // Bits, so that sub-byte tensors count (size_of of s4 is 0).
        const int64_t bits = passes * data_type_bits(p_.src_dt) + data_type_bits(p_.dst_dt);
        return threads_for(a.par.max_threads, p_.nelems * bits / 8);
    }

    /// The call for piece pc, whose offsets are in src and dst, without its parameters.
    template <typename Call>
    Call piece_call(const run_layout::piece &pc, const void *src, void *dst) const {
        const size_t ss = size_of(p_.src_dt), ds = size_of(p_.dst_dt);
        Call c {};
        c.src = bytes(src, pc.src, ss);
        c.dst = bytes(dst, pc.dst, ds);
        c.n = pc.n;
        c.rows = pc.rows;
        c.src_row_stride = pc.src_row_stride * static_cast<int64_t>(ss);
        c.dst_row_stride = pc.dst_row_stride * static_cast<int64_t>(ds);
        return c;
    }

    /// Calls f(piece, src, dst) over the whole problem, with the buffers the piece's offsets
    /// are in: the user's, or a tile buffer (jit_tiles.hpp). Thread ithr of nthr gets the
    /// same range on every run.
    template <typename F>
    void for_pieces(const parallel_ctx &ctx, int nthr, const void *src, void *dst, F &&f) const {
        parallel(ctx, nthr, [&](int ithr, int n) {
            int64_t b, e;
            if (lay_.tiles.active) {
                balance(lay_.tiles.tiles(), 1, ithr, n, b, e);
                return for_each_tile(lay_.tiles, b, e, src, dst, f);
            }
            balance(p_.nelems, range_align, ithr, n, b, e);
            lay_.walk(b, e, [&](const run_layout::piece &pc) { f(pc, src, dst); });
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

    /// Runs c over pc's rows with per-row parameters make(channel, out), written into a
    /// stack block of rows at a time (execute allocates nothing); run(call) runs each block.
    /// make writes its row's parameters in place: returned by value, the struct was
    /// assembled on the stack and copied back with wider loads than its stores, a stalled
    /// store forwarding per row.
    template <typename Param, typename Call, typename Make, typename Run>
    static void in_blocks(const Call &c, const run_layout::piece &pc, Make &&make, Run &&run) {
        constexpr int64_t block = 64;
        std::array<Param, block> prm;
        for (int64_t r0 = 0; r0 < c.rows; r0 += block) {
            const int64_t nr = std::min(block, c.rows - r0);
            for (int64_t i = 0; i < nr; ++i)
                make(pc.channel + (r0 + i) * pc.channel_step, prm[i]);
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

    /// Runtime scale entry i as the code takes it: an f32 value, widened exactly from an
    /// f16 or bf16 tensor, and for a quantize rounded to its division precision (NUMERICS.md;
    /// the quotient is rounded to it too: quantize_conf::quotient_dt).
    float scale_at(const exec_args &a, int64_t i) const {
        const float s = load_float(a.scales, p_.scale_dt, i);
        return p_.kind == q_kind::quantize ? round_to(s, p_.div_dt) : s;
    }
    /// Whether the code may read the runtime scales itself (lanes, blocked rows): f32
    /// tensors, divided in f32. Other scales go through scale_at(), per row.
    bool code_reads_scales() const {
        return p_.scale_dt == data_type::f32 && p_.div_dt == data_type::f32;
    }

    /// The first nparams_ runtime scales widened to f32 as the lane code reads them (f16,
    /// bf16 and e8m0 tensors; quantize scales rounded to an f16 / bf16 division), or null
    /// where code_reads_scales(): the code reads the tensor itself.
    std::unique_ptr<float[]> widen_scales(const exec_args &a) const {
        if (code_reads_scales()) return nullptr;
        std::unique_ptr<float[]> buf(new float[static_cast<size_t>(nparams_)]);
        float *s = buf.get();
        // f16 and bf16 widen exactly, and a division in their own type or in f32 rounds
        // them to nothing new: one vectorized loop (the general one is several times slower).
        const bool exact = p_.kind != q_kind::quantize || p_.div_dt == data_type::f32
                || p_.div_dt == p_.scale_dt;
        const size_t ss = size_of(p_.scale_dt);
        widen_in_parts(a.par, nparams_, nparams_ * static_cast<int64_t>(ss + sizeof(float)),
                [&](int64_t b, int64_t e) {
            if (exact && p_.scale_dt == data_type::f16) {
                f16_to_f32(bytes(a.scales, b, ss), s + b, e - b);
            } else if (exact && p_.scale_dt == data_type::bf16) {
                bf16_to_f32(bytes(a.scales, b, ss), s + b, e - b);
            } else if (exact && p_.scale_dt == data_type::e8m0) {
                e8m0_to_f32(static_cast<const uint8_t *>(a.scales) + b, s + b, e - b);
            } else {
                for (int64_t i = b; i < e; ++i) s[i] = scale_at(a, i);
            }
        });
        return buf;
    }
    /// widen_scales() of a's tensor, kept in `kept` from call to call; null where
    /// code_reads_scales().
    std::shared_ptr<const widened_scales> kept_widened(
            const exec_args &a, const kept_setup<widened_scales> &kept) const {
        if (code_reads_scales()) return nullptr;
        return kept.get({scale_bytes(a)}, [&] { return widened_scales {widen_scales(a)}; });
    }
    /// The bytes of the first nparams_ entries of the scale and zero-point tensors: what a
    /// set-up over them reads (kept_setup). No zero-point bytes where they are not a tensor.
    param_bytes scale_bytes(const exec_args &a) const {
        return {a.scales, static_cast<size_t>(nparams_) * size_of(p_.scale_dt)};
    }
    param_bytes zp_bytes(const exec_args &a) const {
        if (p_.zp_src != param_source::input) return {nullptr, 0};
        return {a.zps, static_cast<size_t>((nparams_ * data_type_bits(p_.zp_dt) + 7) / 8)};
    }

    /// A float8 zero-point tensor counts as 0 here: the code takes it only when
    /// float_zps_plus_zero() holds.
    int64_t runtime_zp(const exec_args &a, int64_t ch) const {
        return p_.zp_src == param_source::input && !is_minifloat(p_.zp_dt)
                ? load_int(a.zps, p_.zp_dt, ch * zp_stride_)
                : 0;
    }

    /// A float8 zero-point tensor must hold +0 (code 0) everywhere for the code, which adds
    /// +0 (NUMERICS.md); a -0 (which keeps a -0 quotient) or a nonzero value (which the
    /// fallback reports) runs on the fallback.
    bool float_zps_plus_zero(const exec_args &a) const {
        if (p_.zp_src != param_source::input || !is_minifloat(p_.zp_dt)) return true;
        for (int64_t c = 0; c < nparams_; ++c)
            if (static_cast<const uint8_t *>(a.zps)[c * zp_stride_] != 0) return false;
        return true;
    }

    /// Runtime s32 zero points beyond `limit` go to the fallback (8-bit ones never do).
    bool runtime_zps_fit(const exec_args &a, int64_t limit) const {
        if (p_.zp_src != param_source::input || p_.zp_dt != data_type::s32) return true;
        for (int64_t c = 0; c < nparams_; ++c) {
            const int64_t z = runtime_zp(a, c);
            if (z > limit || z < -limit) return false;
        }
        return true;
    }
};

/// A quantize (or DynamicQuantizeLinear) driver with its code generated, or null with
/// `reason` when the code cannot take the problem's parameters.
std::unique_ptr<kernel> make_quantize_driver(const quant_problem &p, cpu_isa_t isa,
        const run_layout &lay, const fallback_factory &next, std::string &reason);

/// The same for dequantize.
std::unique_ptr<kernel> make_dequantize_driver(const quant_problem &p, cpu_isa_t isa,
        const run_layout &lay, const fallback_factory &next, std::string &reason);

/// Dequantize from s4 / u4, or with parameters in groups along the contiguous inner dim
/// (jit_dequantize_grouped_driver.cpp).
std::unique_ptr<kernel> make_grouped_dequantize_driver(const quant_problem &p, cpu_isa_t isa,
        const fallback_factory &next, std::string &reason);

/// A lookup (q_kind::lookup) driver, with avx512_vbmi code where the CPU has it and isa is
/// avx512_core, else avx2 code; null with `reason` for layouts it does not walk.
std::unique_ptr<kernel> make_lookup_driver(
        const quant_problem &p, cpu_isa_t isa, std::string &reason);

/// A convert (q_kind::convert) driver: TypeCast f32 <-> bf16 / f16 through generated code,
/// copies of one type of 1, 2 or 4 bytes as data movement (jit_convert_driver.cpp); null
/// with `reason` for other types and layouts it does not walk.
std::unique_ptr<kernel> make_convert_driver(
        const quant_problem &p, cpu_isa_t isa, std::string &reason);

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
