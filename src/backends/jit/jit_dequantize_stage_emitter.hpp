#ifndef QGRAPH_BACKENDS_JIT_JIT_DEQUANTIZE_STAGE_EMITTER_HPP
#define QGRAPH_BACKENDS_JIT_JIT_DEQUANTIZE_STAGE_EMITTER_HPP

// The output stage of a fake-quantize (quant_problem::dequantize_after) as instructions: the
// quantize's quotient q = x / s goes to the dequantize's f32 result, the integer never stored.
//   q = clamp(q, qmin - zp, qmax - zp)      NaN -> qmin - zp, as the quantize saturates it
//   r = rne(q)                              in f32: an integer in [qmin - zp, qmax - zp]
//   y = (r + (zp - zp')) * s'               f32, stored as f32 or rounded to f16
// r + zp is the quantize's integer c and r + (zp - zp') = c - zp', exact in f32 while the
// zero points are at most 2^22 in magnitude (the driver's condition): every term is an
// integer below 2^24. The product is then the dequantize's one rounding of f32(c - zp') * s'.
// A zero c - zp' is +0 (-0 + +0 and x + -x are +0 to nearest), as f32(0) is. An f16 result
// is that f32 rounded once by vcvtps2ph (imm 0: nearest even), which common/half_types.hpp's
// f32_to_f16 is defined to equal, as the dequantize rounds it.
// Both sides of the clamp are needed: the quantize's avx512 code leaves one side to the
// saturating store, which an f32 result does not have.

#include "backends/jit/jit_generator.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {
namespace jit {

template <cpu_isa_t isa>
class dequantize_stage_emitter {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr bool avx512 = isa == avx512_core;

public:
    /// `dst_dt`: f32 or f16 (undef where the kernel has no such stage).
    dequantize_stage_emitter(jit_generator &g, data_type dst_dt) : g_(g), dst_dt_(dst_dt) {}

    /// The stage's two constant registers: the row's s' and f32(zp - zp').
    void set_up(const Vmm &scale, const Vmm &offset) {
        scale_ = scale;
        offset_ = offset;
    }

    /// At the start of a row: its s' and offset, each a float at `scale` and `offset`.
    void load_row(const Xbyak::Address &scale, const Xbyak::Address &offset) {
        g_.vbroadcastss(scale_, scale);
        g_.vbroadcastss(offset_, offset);
    }

    /// y = the dequantized value of quotient q (overwritten), which the caller has clamped to
    /// [qmin - zp, qmax - zp] (NaN to qmin - zp: the quantize's own clamp, which the checked
    /// path does before its check), stored at `dst` as dst_dt; `tail`: only the lanes of k1
    /// (avx512; avx2 stores whole vectors, the driver bounces its tails).
    void store(const Vmm &q, const Xbyak::Address &dst, bool tail) {
        // imm 8: round to nearest even, whatever MXCSR says, no precision exception.
        if (avx512)
            g_.vrndscaleps(q, q, 8);
        else
            g_.vroundps(q, q, 8);
        g_.vaddps(q, q, offset_);
        g_.vmulps(q, q, scale_);
        const Xbyak::Address d = tail ? Xbyak::Address(dst | g_.k1) : dst;
        if (dst_dt_ == data_type::f16)
            g_.store_f16(d, q);
        else
            g_.vmovups(d, q);
    }

private:
    jit_generator &g_;
    data_type dst_dt_;
    Vmm scale_, offset_;
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
