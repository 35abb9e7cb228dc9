#include "backends/jit/jit_min_max.hpp"

#include <cstddef>

namespace qgraph {
namespace impl {
namespace jit {
namespace {

using namespace Xbyak;

#define CALL(field) ptr[abi_arg + offsetof(min_max_call, field)]

template <cpu_isa_t isa>
class min_max_generator : public jit_generator {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr int vlen = isa_traits<isa>::vlen;
    static constexpr bool avx512 = isa == avx512_core;
    static constexpr int acc = 4; // independent accumulators: hides the min/max latency

public:
    min_max_generator() { generate(); }

private:
    const Reg64 reg_src = r8, reg_n = r9;
    // lo[i] = Vmm(i), hi[i] = Vmm(acc + i), NaN flags (avx2) = Vmm(2 acc + i), x = 3 acc + i.
    Vmm lo(int i) const { return Vmm(i); }
    Vmm hi(int i) const { return Vmm(acc + i); }
    Vmm nanv(int i) const { return Vmm(2 * acc + i); }
    Vmm x(int i) const { return Vmm(3 * acc + i); }

    void generate() {
        preamble();
        mov(reg_src, CALL(src));
        mov(reg_n, CALL(n));
        for (int i = 0; i < acc; ++i) {
            vbroadcastss(lo(i), CALL(lo));
            vbroadcastss(hi(i), CALL(hi));
            if (!avx512) vxorps(nanv(i), nanv(i), nanv(i));
        }
        if (avx512) kxorw(k2, k2, k2); // NaN lanes seen

        // Masked-off tail lanes load as 0, which the range already includes.
        element_loop(
                reg_n, vlen, acc, avx512,
                [&](int i, int off, bool tail) { step(i, off, tail); },
                [&](int elems) { add(reg_src, elems * 4); });
        reduce();
        postamble();
        finish("min_max", isa);
    }

    void step(int i, int off, bool tail) {
        const Address a = ptr[reg_src + off * 4];
        if (tail)
            vmovups(x(i) | k1 | T_z, a);
        else
            vmovups(x(i), a);
        // vminps(d, a, b) = a < b ? a : b, and b when either is NaN: with the accumulator as
        // b, a NaN x leaves it unchanged.
        vminps(lo(i), x(i), lo(i));
        vmaxps(hi(i), x(i), hi(i));
        if (avx512) {
            vcmpps(k3, x(i), x(i), 3); // unordered: x is NaN
            korw(k2, k2, k3);
        } else {
            vcmpps(x(i), x(i), x(i), 3);
            vorps(nanv(i), nanv(i), x(i));
        }
    }

    /// Folds the accumulators lane by lane into the call's lo, hi and has_nan, with the same
    /// comparisons (so the order of folding cannot change the result).
    void reduce() {
        for (int i = 1; i < acc; ++i) {
            vminps(lo(0), lo(i), lo(0));
            vmaxps(hi(0), hi(i), hi(0));
            if (!avx512) vorps(nanv(0), nanv(0), nanv(i));
        }
        // Horizontal: halve the width until one lane is left.
        const Xmm l0(lo(0).getIdx()), h0(hi(0).getIdx()), t(x(0).getIdx());
        if (avx512) {
            vextractf32x8(Ymm(t.getIdx()), Zmm(lo(0).getIdx()), 1);
            vminps(Ymm(l0.getIdx()), Ymm(t.getIdx()), Ymm(l0.getIdx()));
            vextractf32x8(Ymm(t.getIdx()), Zmm(hi(0).getIdx()), 1);
            vmaxps(Ymm(h0.getIdx()), Ymm(t.getIdx()), Ymm(h0.getIdx()));
        }
        vextractf128(t, Ymm(l0.getIdx()), 1);
        vminps(l0, t, l0);
        vextractf128(t, Ymm(h0.getIdx()), 1);
        vmaxps(h0, t, h0);
        for (int shift : {8, 4}) {
            vpsrldq(t, l0, shift);
            vminps(l0, t, l0);
            vpsrldq(t, h0, shift);
            vmaxps(h0, t, h0);
        }
        vmovss(CALL(lo), l0);
        vmovss(CALL(hi), h0);
        // has_nan |= any NaN lane.
        if (avx512) {
            kmovw(eax, k2);
        } else {
            vmovmskps(eax, Ymm(nanv(0).getIdx()));
        }
        or_(CALL(has_nan), eax);
    }
};

#undef CALL

} // namespace

jit_min_max_kernel::jit_min_max_kernel(cpu_isa_t isa)
    : jit_code(generate_for_isa<min_max_generator>(isa)) {}

} // namespace jit
} // namespace impl
} // namespace qgraph
