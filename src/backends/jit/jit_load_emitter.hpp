#ifndef QGRAPH_BACKENDS_JIT_JIT_LOAD_EMITTER_HPP
#define QGRAPH_BACKENDS_JIT_JIT_LOAD_EMITTER_HPP

// The load-and-decode stage of the quantize kernels as instructions: a vector of source
// elements as f32, ready for the division.
//   f32            as it is
//   bf16           exact: the top half of an f32 (vpmovzxwd, then a shift)
//   f16            exact (vcvtph2ps)
//   s32            rounded once to nearest even (vcvtdq2ps)
// then, where the problem asks (quant_problem::src_round_dt: a TypeCast -> Quantize chain as
// one problem), the f32 rounded to bf16 or f16 as TypeCast rounds it and widened back,
// exactly: bf16 through jit_bf16_emitter.hpp's sequence (common/half_types.hpp's f32_to_bf16,
// subnormals kept), f16 through vcvtps2ph / vcvtph2ps (f32_to_f16 is defined as they behave).
// With avx512_core_bf16 the bf16 rounding is vcvtneps2bf16 for every vector with no subnormal
// lane, the sequence for a vector with one (bf16_rounding::round_packed, which the TypeCast
// kernel shares).
// The quantize kernels load their source only through this class.

#include <memory>

#include "backends/jit/jit_bf16_emitter.hpp"
#include "backends/jit/jit_generator.hpp"
#include "common/data_types.hpp"

namespace qgraph {
namespace impl {
namespace jit {

template <cpu_isa_t isa>
class load_emitter {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr bool avx512 = isa == avx512_core;

public:
    /// `round_dt`: undef, or bf16 / f16 for an f32 source. `bf16_insn` (avx512 only): the CPU
    /// has avx512_core_bf16, so bf16 rounding may use vcvtneps2bf16.
    load_emitter(jit_generator &g, data_type src_dt, data_type round_dt, bool bf16_insn)
        : g_(g), src_dt_(src_dt), round_dt_(round_dt), bf16_insn_(avx512 && bf16_insn) {}

    /// Constant registers the stage keeps for the whole kernel: 3 for the bf16 rounding.
    int nconsts() const { return round_dt_ == data_type::bf16 ? 3 : 0; }

    /// Before the first load: the registers nconsts() asks for, filled (uses eax).
    void set_up(const Vmm *consts) {
        if (nconsts() == 0) return;
        for (int i = 0; i < 3; ++i) {
            g_.mov(g_.eax, bf16_rounding<isa>::constants[i]);
            g_.vmovd(Xbyak::Xmm(consts[i].getIdx()), g_.eax);
            g_.vpbroadcastd(consts[i], Xbyak::Xmm(consts[i].getIdx()));
        }
        bf16_ = std::make_unique<bf16_rounding<isa>>(g_, consts[0], consts[1], consts[2]);
    }

    /// x = the source elements at `a` as f32; `tail`: only the lanes of k1 (the others 0).
    /// t and n are scratch (overwritten only where the source is rounded; avx512 uses k2).
    void load(const Vmm &x, const Xbyak::Address &a, bool tail, const Vmm &t, const Vmm &n) {
        const Vmm xd = tail ? Vmm(x | g_.k1 | Xbyak::util::T_z) : x;
        switch (src_dt_) {
            case data_type::bf16:
                g_.vpmovzxwd(xd, a);
                g_.vpslld(x, x, 16);
                break;
            case data_type::f16: g_.vcvtph2ps(xd, a); break;
            case data_type::s32:
                if (avx512) {
                    g_.vmovdqu32(xd, a);
                    g_.vcvtdq2ps(x, x | Xbyak::util::T_rn_sae);
                } else {
                    g_.vmovdqu(x, a);
                    g_.vcvtdq2ps(x, x); // MXCSR: round to nearest even (qgraph's environment)
                }
                break;
            default: g_.vmovups(xd, a); break;
        }
        if (round_dt_ == data_type::bf16 && bf16_insn_) {
            // Masked-off tail lanes are +0, never subnormal.
            const Xbyak::Ymm packed(t.getIdx());
            bf16_->round_packed(packed, x, t, n, g_.k2);
            g_.vpmovzxwd(x, packed);
            g_.vpslld(x, x, 16);
        } else if (round_dt_ == data_type::bf16) {
            bf16_->round(t, x, n, g_.k2);
            g_.vpslld(x, t, 16);
        } else if (round_dt_ == data_type::f16) {
            // imm 0: round to nearest even, whatever MXCSR says.
            if (avx512) {
                g_.vcvtps2ph(Xbyak::Ymm(t.getIdx()), x, 0);
                g_.vcvtph2ps(x, Xbyak::Ymm(t.getIdx()));
            } else {
                g_.vcvtps2ph(Xbyak::Xmm(t.getIdx()), x, 0);
                g_.vcvtph2ps(x, Xbyak::Xmm(t.getIdx()));
            }
        }
    }

private:
    jit_generator &g_;
    data_type src_dt_, round_dt_;
    bool bf16_insn_;
    std::unique_ptr<bf16_rounding<isa>> bf16_;
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
