#include "backends/jit/jit_convert.hpp"

#include <memory>

#include "backends/jit/jit_bf16_emitter.hpp"
#include "backends/jit/jit_load_emitter.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

using namespace Xbyak;

template <cpu_isa_t isa>
class convert_generator : public jit_generator {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr bool avx512 = isa == avx512_core;
    static constexpr int vlen = isa_traits<isa>::vlen;
    static constexpr int unroll = 4;

public:
    convert_generator(data_type src, data_type dst, bool bf16_insn)
        : dst_dt_(dst)
        , bf16_insn_(avx512 && bf16_insn)
        , ss_(static_cast<int>(size_of(src)))
        , ds_(static_cast<int>(size_of(dst)))
        , load_(*this, src, data_type::undef, false) {
        preamble();
        if (dst_dt_ == data_type::bf16) {
            // The rounding's constants, in the three registers above the unrolled vectors.
            for (int i = 0; i < 3; ++i) {
                mov(eax, bf16_rounding<isa>::constants[i]);
                vmovd(Xmm(cfirst + i), eax);
                vpbroadcastd(Vmm(cfirst + i), Xmm(cfirst + i));
            }
            bf16_ = std::make_unique<bf16_rounding<isa>>(
                    *this, Vmm(cfirst), Vmm(cfirst + 1), Vmm(cfirst + 2));
        }
        row_loop<convert_call, uint8_t>(reg_src, reg_dst, reg_n, reg_prm, [&] {
            element_loop(
                    reg_n, vlen, unroll, avx512,
                    [&](int u, int off, bool tail) { vector(u, off, tail); },
                    [&](int elems) {
                        add(reg_src, elems * ss_);
                        add(reg_dst, elems * ds_);
                    });
        });
        postamble();
        finish("convert", isa);
    }

private:
    const data_type dst_dt_;
    const bool bf16_insn_; ///< bf16 rounding by round_packed (avx512_core_bf16)
    const int ss_, ds_; ///< element sizes in bytes
    const Reg64 reg_src = r8, reg_dst = r9, reg_n = r10, reg_prm = r11;
    // Vector u in registers 3u .. 3u + 2 (u < unroll); the bf16 constants from cfirst on.
    static constexpr int cfirst = 3 * unroll;
    load_emitter<isa> load_;
    std::unique_ptr<bf16_rounding<isa>> bf16_;

    /// Vector u, at element offset off of the row; `tail`: only the lanes of k1.
    void vector(int u, int off, bool tail) {
        const Vmm x(3 * u), t(3 * u + 1), n(3 * u + 2);
        load_.load(x, ptr[reg_src + off * ss_], tail, t, n);
        const Address a = ptr[reg_dst + off * ds_];
        const Address am = tail ? Address(a | k1) : a;
        switch (dst_dt_) {
            case data_type::bf16:
                if (bf16_insn_) {
                    const Ymm packed(t.getIdx());
                    bf16_->round_packed(packed, x, t, n, k2); // tail lanes +0: not subnormal
                    vmovdqu16(am, packed);
                    break;
                }
                bf16_->round(t, x, n, k2);
                if (avx512) {
                    vpmovdw(am, t);
                } else {
                    // The low words of the 8 dwords into one xmm: each 128-bit lane packs its
                    // four (no word exceeds 0xffff, so nothing saturates), qwords 0 and 2.
                    vpackusdw(t, t, t);
                    vpermq(Ymm(t.getIdx()), Ymm(t.getIdx()), 0x08);
                    vmovdqu(a, Xmm(t.getIdx()));
                }
                break;
            case data_type::f16: store_f16(am, x); break;
            default:
                if (avx512)
                    vmovups(am, x);
                else
                    vmovups(a, x);
                break;
        }
    }
};

} // namespace

jit_convert_kernel::jit_convert_kernel(
        cpu_isa_t isa, data_type src, data_type dst, bool bf16_insn)
    : jit_code(generate_for_isa<convert_generator>(isa, src, dst, bf16_insn)) {}

} // namespace jit
} // namespace impl
} // namespace qgraph
