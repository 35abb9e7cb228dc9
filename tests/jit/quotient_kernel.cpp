#include "quotient_kernel.hpp"

#include <cstddef>

#include "backends/jit/jit_division.hpp"
#include "backends/jit/jit_division_emitter.hpp"
#include "backends/jit/jit_generator.hpp"
#include "common/half_types.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

using namespace Xbyak;

struct quotient_call {
    const float *src;
    float *dst;
    int64_t n; ///< avx2: a multiple of 8
};

/// The division emitted for one scale, unrolled like the quantize kernels' broadcast rows
/// (four vectors of x, q and t), with the scale's parameters in registers.
template <cpu_isa_t isa>
class quotient_generator : public jit_generator {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr int vlen = isa_traits<isa>::vlen;
    static constexpr bool avx512 = isa == avx512_core;

public:
    explicit quotient_generator(float s) : div_(*this) {
        const recip_params p = make_recip(s);
        const int top = isa_traits<isa>::nregs;
        const Vmm v_s(top - 1), v_yhi(top - 2), v_ya(top - 3), v_yb(top - 4);
        const Reg64 reg_src = r8, reg_dst = r9, reg_n = r10;
        preamble();
        if (avx512) div_.set_up(Vmm(top - 5));
        broadcast_f32(v_s, s);
        broadcast_f32(v_yhi, p.y_hi);
        broadcast_f32(v_ya, p.y_a);
        broadcast_f32(v_yb, p.y_b);
        mov(reg_src, ptr[abi_arg + offsetof(quotient_call, src)]);
        mov(reg_dst, ptr[abi_arg + offsetof(quotient_call, dst)]);
        mov(reg_n, ptr[abi_arg + offsetof(quotient_call, n)]);
        element_loop(
                reg_n, vlen, 4, avx512,
                [&](int u, int off, bool tail) {
                    const Vmm x(3 * u), q(3 * u + 1), t(3 * u + 2);
                    const Address xa = ptr[reg_src + off * 4], qa = ptr[reg_dst + off * 4];
                    if (tail)
                        vmovups(x | k1 | T_z, xa);
                    else
                        vmovups(x, xa);
                    div_.divide(p.path, q, x, t, v_s, v_yhi, v_ya, v_yb);
                    if (tail)
                        vmovups(qa | k1, q);
                    else
                        vmovups(qa, q);
                },
                [&](int elems) {
                    add(reg_src, elems * 4);
                    add(reg_dst, elems * 4);
                });
        postamble();
        div_.emit_constants();
        finish("test_quotient", isa);
    }

private:
    division_emitter<isa> div_;

    void broadcast_f32(const Vmm &v, float value) {
        mov(eax, f32_bits(value));
        vmovd(Xmm(v.getIdx()), eax);
        vbroadcastss(v, Xmm(v.getIdx()));
    }
};

template <cpu_isa_t isa>
void run(const float *x, float *q, int64_t n, float s) {
    const quotient_generator<isa> g(s);
    const auto k = g.template entry<quotient_call>();
    constexpr int vlen = isa_traits<isa>::vlen;
    const int64_t body = avx512_core == isa ? n : n / vlen * vlen;
    quotient_call c {x, q, body};
    k(&c);
    if (body == n) return;
    // avx2 code takes whole vectors: bounce the tail through a padded buffer.
    float xs[vlen] = {}, qs[vlen];
    for (int64_t i = body; i < n; ++i) xs[i - body] = x[i];
    c = {xs, qs, vlen};
    k(&c);
    for (int64_t i = body; i < n; ++i) q[i] = qs[i - body];
}

} // namespace

void jit_divide(cpu_isa_t isa, const float *x, float *q, int64_t n, float s) {
    if (isa == avx512_core)
        run<avx512_core>(x, q, n, s);
    else
        run<avx2>(x, q, n, s);
}

} // namespace jit
} // namespace impl
} // namespace qgraph
