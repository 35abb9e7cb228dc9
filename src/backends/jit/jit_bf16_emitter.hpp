#ifndef QGRAPH_BACKENDS_JIT_JIT_BF16_EMITTER_HPP
#define QGRAPH_BACKENDS_JIT_JIT_BF16_EMITTER_HPP

// f32 -> bf16 as instructions, bit for bit common/half_types.hpp's f32_to_bf16: bits + 0x7fff
// + (bit 16), the top half, so ties go to even and subnormal results are kept; a NaN keeps its
// top half with the quiet bit set. vcvtneps2bf16 would flush subnormal inputs, so the kernels
// use it only where no product can be subnormal, or per vector after a test for subnormal
// lanes (round_packed), and this sequence everywhere else. The kernels emit the rounding only
// through this class.

#include "backends/jit/jit_generator.hpp"

namespace qgraph {
namespace impl {
namespace jit {

template <cpu_isa_t isa>
class bf16_rounding {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr bool avx512 = isa == avx512_core;

public:
    /// The kernel's constant registers: 1, 0x7fff and 0x40 in every dword (see constants()).
    bf16_rounding(jit_generator &g, const Vmm &one, const Vmm &round, const Vmm &quiet)
        : g_(g), one_(one), round_(round), quiet_(quiet) {}

    /// The dwords one_, round_ and quiet_ must hold, in that order.
    static constexpr uint32_t constants[3] = {1u, 0x7fffu, 0x40u};

    /// t = the bf16 code of each lane of x, in the low word of its dword (the high word 0).
    /// n is scratch; avx2 overwrites x (its NaN mask), avx512 uses opmask k.
    void round(const Vmm &t, const Vmm &x, const Vmm &n, const Xbyak::Opmask &k) {
        g_.vpsrld(t, x, 16);
        g_.vpsrld(n, x, 16);
        if (avx512) {
            g_.vpandd(t, t, one_);
            g_.vpord(n, n, quiet_);
        } else {
            g_.vpand(t, t, one_);
            g_.vpor(n, n, quiet_);
        }
        g_.vpaddd(t, t, round_);
        g_.vpaddd(t, t, x);
        g_.vpsrld(t, t, 16); // rounded, for every non-NaN lane
        if (avx512) {
            g_.vcmpps(k, x, x, 3); // unordered: NaN
            g_.vmovdqa32(t | k, n);
            return;
        }
        g_.vcmpps(x, x, x, 3);
        g_.vblendvps(t, t, n, x);
    }

    /// round() for a vector the caller has proven to hold no NaN: the same bits without the
    /// NaN blend, and the code left in the high word of t's dwords (the low word is junk:
    /// x's bits plus the rounding increment). x is kept.
    void round_no_nan(const Vmm &t, const Vmm &x) {
        g_.vpsrld(t, x, 16);
        if (avx512)
            g_.vpandd(t, t, one_);
        else
            g_.vpand(t, t, one_);
        g_.vpaddd(t, t, round_);
        g_.vpaddd(t, t, x); // no carry out: the largest non-NaN x is 0xff800000 (-Inf)
    }

    /// avx512_core_bf16 only: packed = the bf16 codes of x's 16 lanes, as words. A vector
    /// with no subnormal lane takes vcvtneps2bf16, which rounds to nearest even and quiets
    /// NaNs as round() does and differs only by flushing subnormal inputs (bf16 has f32's
    /// exponent range, so no normal input rounds to a subnormal); a vector with one takes
    /// round(), its words then packed. t and n are scratch, k an opmask; x is kept.
    void round_packed(const Xbyak::Ymm &packed, const Vmm &x, const Vmm &t, const Vmm &n,
            const Xbyak::Opmask &k) {
        Xbyak::Label sequence, done;
        g_.vfpclassps(k, x, 0x20); // subnormal
        g_.kortestw(k, k);
        g_.jnz(sequence, jit_generator::T_NEAR);
        g_.vcvtneps2bf16(packed, x);
        g_.jmp(done, jit_generator::T_NEAR);
        g_.L(sequence);
        round(t, x, n, k);
        g_.vpmovdw(packed, t);
        g_.L(done);
    }

private:
    jit_generator &g_;
    Vmm one_, round_, quiet_;
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
