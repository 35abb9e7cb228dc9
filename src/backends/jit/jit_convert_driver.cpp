// The convert driver (q_kind::convert): TypeCast through the generated code
// (jit_convert.hpp), and the copies of Reorder, StaticReshape and StaticTranspose as plain data
// movement: memmove along runs that are contiguous on both sides, jit_tiles.hpp's transposes
// where src and dst are contiguous along different dims. Both move bits: NaN payloads,
// signalling NaNs and the sign of zero arrive as they left.

#include <cstring>

#include "backends/jit/jit_convert.hpp"
#include "backends/jit/jit_driver.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

class convert_kernel : public jit_kernel_base {
public:
    convert_kernel(const quant_problem &p, cpu_isa_t isa, const run_layout &lay)
        : jit_kernel_base(p, isa, lay)
        , bf16_insn_(p.dst_dt == data_type::bf16 && isa == avx512_core
                  && mayiuse(avx512_core_bf16, p.isa_cap)) {
        if (p.src_dt != p.dst_dt)
            code_ = std::make_unique<jit_convert_kernel>(isa, p.src_dt, p.dst_dt, bf16_insn_);
    }

    /// A TypeCast names the ISA of its code; a copy runs no generated code.
    std::string name() const override {
        if (!code_) return "jit:copy";
        return (bf16_insn_ ? std::string("jit:") + isa_name(avx512_core_bf16)
                           : jit_kernel_base::name())
                + ":typecast";
    }

    /// A copy without tiles whose src and dst share strides moves each row onto itself
    /// (memmove); a transpose over its own buffer would overwrite elements it has yet to
    /// read, and a TypeCast's two sides differ in size, so never share one buffer.
    bool in_place_safe() const override {
        return !code_ && !lay_.tiles.active && p_.src_strides == p_.dst_strides;
    }

    const kernel &run(const exec_args &a) const override {
        if (p_.nelems == 0) return *this;
        const size_t ss = size_of(p_.src_dt), ds = size_of(p_.dst_dt);
        for_pieces(a.par, threads(a), a.src, a.dst,
                [&](const run_layout::piece &pc, const void *src, void *dst) {
            const convert_call c = piece_call<convert_call>(pc, src, dst);
            if (!code_) return copy_rows(c, ss);
            run_rows(c, [&](const convert_call *cc) { (*code_)(cc); },
                    [&](const convert_call &row, int64_t body, int vlen) {
                bounce_tail(row, body, vlen, ss, ds);
            });
        });
        return *this;
    }

private:
    const bool bf16_insn_; ///< f32 -> bf16 code with vcvtneps2bf16 (avx512_core_bf16)
    std::unique_ptr<jit_convert_kernel> code_; ///< null for a same-type copy

    static void copy_rows(const convert_call &c, size_t esize) {
        const size_t row_bytes = static_cast<size_t>(c.n) * esize;
        for (int64_t r = 0; r < c.rows; ++r)
            std::memmove(bytes(c.dst, r * c.dst_row_stride, 1),
                    bytes(c.src, r * c.src_row_stride, 1), row_bytes);
    }

    /// avx2 code takes whole vectors: the row's last n - body elements go through a stack
    /// vector, so that no byte past the row is read or written.
    void bounce_tail(const convert_call &row, int64_t body, int vlen, size_t ss, size_t ds) const {
        const int64_t rest = row.n - body;
        if (rest == 0) return;
        alignas(32) unsigned char in[32] = {}, out[32];
        std::memcpy(in, bytes(row.src, body, ss), static_cast<size_t>(rest) * ss);
        convert_call t = row;
        t.src = in;
        t.dst = out;
        t.n = vlen;
        t.rows = 1;
        (*code_)(&t);
        std::memcpy(bytes(row.dst, body, ds), out, static_cast<size_t>(rest) * ds);
    }
};

} // namespace

std::unique_ptr<kernel> make_convert_driver(
        const quant_problem &p, cpu_isa_t isa, std::string &reason) {
    const bool copy = p.src_dt == p.dst_dt;
    const size_t es = size_of(p.src_dt); // 0 for sub-byte types
    const bool cast = is_wide_float(p.src_dt) && is_wide_float(p.dst_dt)
            && (p.src_dt == data_type::f32 || p.dst_dt == data_type::f32);
    if (copy ? es != 1 && es != 2 && es != 4 : !cast) {
        reason = std::string("no jit kernel for ") + p.op_name + " " + to_string(p.src_dt)
                + " -> " + to_string(p.dst_dt) + (copy ? " (copies of 1, 2 or 4-byte elements)" : "");
        return nullptr;
    }
    run_layout lay;
    if (!lay.init(p, reason)) return nullptr;
    lay.tiles.avx512 = isa == avx512_core;
    lay.tiles.copy = copy;
    return std::make_unique<convert_kernel>(p, isa, lay);
}

} // namespace jit
} // namespace impl
} // namespace qgraph
