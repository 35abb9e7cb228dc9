#include "float8_kernel.hpp"

#include <cstddef>

#include "backends/jit/jit_float8_emitter.hpp"
#include "backends/jit/jit_generator.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

using namespace Xbyak;

struct convert_call {
    const void *src;
    void *dst;
    int64_t n; ///< a multiple of the vector length
};

/// One conversion per vector of 32-bit lanes, unrolled twice like the kernels' rows.
template <cpu_isa_t isa>
class convert_generator : public jit_generator {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr int vlen = isa_traits<isa>::vlen;

public:
    convert_generator(data_type dt, bool saturate, bool encode) : f8_(*this, dt, saturate) {
        const Reg64 reg_src = r8, reg_dst = r9, reg_n = r10;
        preamble();
        mov(reg_src, ptr[abi_arg + offsetof(convert_call, src)]);
        mov(reg_dst, ptr[abi_arg + offsetof(convert_call, dst)]);
        mov(reg_n, ptr[abi_arg + offsetof(convert_call, n)]);
        element_loop(
                reg_n, vlen, 2, false,
                [&](int u, int off, bool) {
                    const Vmm in(6 * u), out(6 * u + 1), t0(6 * u + 2), t1(6 * u + 3),
                            t2(6 * u + 4), m(6 * u + 5);
                    vmovups(in, ptr[reg_src + off * 4]);
                    if (encode)
                        f8_.encode(out, in, t0, t1, t2, m);
                    else
                        f8_.decode(out, in, t0, t1, m);
                    vmovups(ptr[reg_dst + off * 4], out);
                },
                [&](int elems) {
                    add(reg_src, elems * 4);
                    add(reg_dst, elems * 4);
                });
        postamble();
        f8_.emit_constants();
        finish();
    }

private:
    float8_emitter<isa> f8_;
};

template <cpu_isa_t isa>
void run(data_type dt, bool saturate, bool encode, const void *src, void *dst, int64_t n) {
    const convert_generator<isa> g(dt, saturate, encode);
    const auto k = g.template entry<convert_call>();
    constexpr int vlen = isa_traits<isa>::vlen;
    const int64_t body = n / vlen * vlen;
    convert_call c {src, dst, body};
    k(&c);
    if (body == n) return;
    // Whole vectors only: bounce the tail through a padded buffer.
    uint32_t in[vlen] = {}, out[vlen];
    const auto *s = static_cast<const uint32_t *>(src);
    for (int64_t i = body; i < n; ++i) in[i - body] = s[i];
    c = {in, out, vlen};
    k(&c);
    for (int64_t i = body; i < n; ++i) static_cast<uint32_t *>(dst)[i] = out[i - body];
}

void dispatch(cpu_isa_t isa, data_type dt, bool saturate, bool encode, const void *src,
        void *dst, int64_t n) {
    if (isa == avx512_core)
        run<avx512_core>(dt, saturate, encode, src, dst, n);
    else
        run<avx2>(dt, saturate, encode, src, dst, n);
}

} // namespace

void jit_encode_minifloat(cpu_isa_t isa, data_type dt, bool saturate, const float *x,
        uint32_t *code, int64_t n) {
    dispatch(isa, dt, saturate, true, x, code, n);
}

void jit_decode_minifloat(
        cpu_isa_t isa, data_type dt, const uint32_t *code, float *y, int64_t n) {
    dispatch(isa, dt, false, false, code, y, n);
}

} // namespace jit
} // namespace impl
} // namespace qgraph
