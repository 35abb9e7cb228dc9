#include "float8_kernel.hpp"

#include <cstddef>
#include <cstring>
#include <vector>

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

enum class conversion {
    encode, ///< f32 -> code
    decode, ///< code (a dword) -> f32
    decode_f16, ///< code (a byte) -> f32, load_words() and decode_f16()
    decode_quad, ///< 32 codes (bytes) -> f32, load_quad() and quad_to_f32() (avx2)
};

/// One conversion per vector of 32-bit lanes, unrolled twice like the kernels' rows; where
/// the emitter encodes through f16 words, the quantize kernel's two forms instead (words()).
template <cpu_isa_t isa>
class convert_generator : public jit_generator {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr int vlen = isa_traits<isa>::vlen;

public:
    convert_generator(data_type dt, bool saturate, conversion conv, bool vbmi)
        : f8_(*this, dt, saturate, vbmi)
        , served_(conv == conversion::decode_f16       ? f8_.decodes_as_f16()
                          : conv == conversion::decode_quad ? f8_.decodes_quads()
                                                            : true) {
        const Reg64 reg_src = r8, reg_dst = r9, reg_n = r10;
        const int src_size = conv == conversion::decode_f16 ? 1 : 4;
        preamble();
        mov(reg_src, ptr[abi_arg + offsetof(convert_call, src)]);
        mov(reg_dst, ptr[abi_arg + offsetof(convert_call, dst)]);
        mov(reg_n, ptr[abi_arg + offsetof(convert_call, n)]);
        if (conv == conversion::encode && f8_.encodes_through_f16())
            words(reg_src, reg_dst, reg_n);
        else if (conv == conversion::decode_quad && served_)
            quads(reg_src, reg_dst, reg_n);
        else if (served_)
            element_loop(
                    reg_n, vlen, 2, false,
                    [&](int u, int off, bool) {
                        const Vmm in(6 * u), out(6 * u + 1), t0(6 * u + 2), t1(6 * u + 3),
                                t2(6 * u + 4), m(6 * u + 5);
                        if (conv == conversion::decode_f16) {
                            f8_.load_words(in, ptr[reg_src + off], false);
                            f8_.decode_f16(out, in, m);
                        } else {
                            vmovups(in, ptr[reg_src + off * 4]);
                            if (conv == conversion::encode) {
                                f8_.add_zero(in);
                                f8_.encode(out, in, t0, t1, t2, m);
                            } else {
                                f8_.decode(out, in, t0, t1, m);
                            }
                        }
                        vmovups(ptr[reg_dst + off * 4], out);
                    },
                    [&](int elems) {
                        add(reg_src, elems * src_size);
                        add(reg_dst, elems * 4);
                    });
        postamble();
        f8_.emit_constants();
        finish("test_float8", isa);
    }

    /// The elements of one step of the loop; n is a multiple of it.
    int step() const { return step_; }

    /// Whether the kernel converts (decode_f16 serves only the emitter's decodes_as_f16()
    /// types; for the others it returns at once).
    bool served() const { return served_; }

private:
    float8_emitter<isa> f8_;
    const bool served_;
    int step_ = vlen;

    /// The dequantize kernel's avx2 decode of 32 codes a step (jit_dequantize.cpp's
    /// quad_loop()): load_quad(), then quad_to_f32() per 8 words.
    void quads(const Reg64 &reg_src, const Reg64 &reg_dst, const Reg64 &reg_n) {
        step_ = 32;
        const Vmm w[4] = {Vmm(3), Vmm(4), Vmm(8), Vmm(9)};
        Label l_loop, l_done;
        test(reg_n, reg_n);
        jle(l_done, T_NEAR);
        L(l_loop);
        f8_.load_quad(w, ptr[reg_src], Vmm(0));
        for (int v = 0; v < 4; ++v) {
            const Vmm y(v % 2 == 0 ? 0 : 5);
            f8_.quad_to_f32(y, Xmm(w[v].getIdx()));
            vmovups(ptr[reg_dst + 32 * v], y);
        }
        add(reg_src, step_);
        add(reg_dst, step_ * 4);
        sub(reg_n, step_);
        jg(l_loop, T_NEAR);
        L(l_done);
    }

    /// The quantize kernel's word encode, both forms, 80 elements a step: a group of four
    /// vectors (encode_f16(), two vectors' words joined, encode_words(), pack_words()) and a
    /// single vector (its 16 words, pack_word()); the code bytes widened to dwords.
    void words(const Reg64 &reg_src, const Reg64 &reg_dst, const Reg64 &reg_n) {
        if (isa == avx2) return words_avx2(reg_src, reg_dst, reg_n);
        step_ = 5 * vlen;
        Vmm consts[7];
        for (int i = 0; i < f8_.word_consts(); ++i) consts[i] = Vmm(25 + i);
        f8_.set_up_words(consts);
        Label l_loop, l_done;
        test(reg_n, reg_n);
        jle(l_done, T_NEAR);
        L(l_loop);
        const auto in = [](int u) { return Vmm(u); };
        const auto out = [](int u) { return Vmm(5 + u); };
        const auto t = [](int u) { return Vmm(10 + u); };
        for (int u = 0; u < 5; ++u) vmovups(in(u), ptr[reg_src + u * 64]);
        for (int u = 0; u < 5; ++u) f8_.encode_f16(Ymm(out(u).getIdx()), in(u), t(u));
        for (int u = 0; u < 4; u += 2) {
            const Zmm w(out(u).getIdx());
            vinserti64x4(w, w, Ymm(out(u + 1).getIdx()), 1);
            f8_.encode_words(out(u), t(u));
        }
        f8_.pack_words(out(0), out(2));
        f8_.encode_words(Ymm(out(4).getIdx()), Ymm(t(4).getIdx()));
        f8_.pack_word(Ymm(out(4).getIdx()));
        for (int i = 0; i < 4; ++i) {
            vextracti32x4(Xmm(t(i).getIdx()), Zmm(out(0).getIdx()), i);
            vpmovzxbd(in(i), Xmm(t(i).getIdx()));
        }
        vpmovzxbd(in(4), Xmm(out(4).getIdx()));
        for (int u = 0; u < 5; ++u) vmovups(ptr[reg_dst + u * 64], in(u));
        add(reg_src, step_ * 4);
        add(reg_dst, step_ * 4);
        sub(reg_n, step_);
        jg(l_loop, T_NEAR);
        L(l_done);
    }

    /// words() as the avx2 quantize kernel runs it, 40 elements a step: a group of four
    /// vectors in two registers each, x's the f16 stage's scratch (float8_groups(): the words
    /// of vectors 0 and 2 joined, of 1 and 3, pack_words()) and a single vector (its 8
    /// words, pack_word(); jit_quantize.cpp's vector()); the code bytes widened to dwords.
    void words_avx2(const Reg64 &reg_src, const Reg64 &reg_dst, const Reg64 &reg_n) {
        step_ = 5 * vlen;
        Vmm consts[3];
        for (int i = 0; i < f8_.word_consts(); ++i) consts[i] = Vmm(13 + i);
        f8_.set_up_words(consts);
        Label l_loop, l_done;
        test(reg_n, reg_n);
        jle(l_done, T_NEAR);
        L(l_loop);
        const auto x = [](int u) { return Vmm(2 * u); };
        const auto q = [](int u) { return Vmm(2 * u + 1); };
        const auto y = [](const Vmm &v) { return Ymm(v.getIdx()); };
        const auto xm = [](const Vmm &v) { return Xmm(v.getIdx()); };
        for (int u = 0; u < 5; ++u) vmovups(q(u), ptr[reg_src + u * 32]);
        // The group: x's register is h and the scratch.
        for (int u = 0; u < 4; ++u) f8_.encode_f16(y(x(u)), q(u), x(u));
        for (int u = 0; u < 2; ++u) {
            vinserti128(y(x(u)), y(x(u)), xm(x(u + 2)), 1);
            f8_.encode_words(y(x(u)), y(q(u)));
        }
        f8_.pack_words(x(0), x(1));
        // The single vector: its own scratch register, as vector() has.
        const Vmm t(10);
        f8_.encode_f16(y(x(4)), q(4), t);
        f8_.encode_words(xm(x(4)), xm(t));
        f8_.pack_word(xm(x(4)));
        // 40 code bytes: 32 in x(0), 8 in x(4)'s low qword.
        const Xmm lo = xm(x(0)), hi = xm(x(1)), s = xm(x(2));
        vextracti128(hi, y(x(0)), 1);
        vpmovzxbd(q(0), lo);
        vpsrldq(s, lo, 8);
        vpmovzxbd(q(1), s);
        vpmovzxbd(q(2), hi);
        vpsrldq(s, hi, 8);
        vpmovzxbd(q(3), s);
        vpmovzxbd(q(4), xm(x(4)));
        for (int u = 0; u < 5; ++u) vmovups(ptr[reg_dst + u * 32], q(u));
        add(reg_src, step_ * 4);
        add(reg_dst, step_ * 4);
        sub(reg_n, step_);
        jg(l_loop, T_NEAR);
        L(l_done);
    }
};

template <cpu_isa_t isa>
bool run(data_type dt, bool saturate, conversion conv, const void *src, void *dst, int64_t n,
        bool vbmi) {
    const convert_generator<isa> g(dt, saturate, conv, vbmi);
    if (!g.served()) return false;
    const auto k = g.template entry<convert_call>();
    const int step = g.step();
    const int64_t body = n / step * step;
    convert_call c {src, dst, body};
    k(&c);
    if (body == n) return true;
    // Whole steps only: bounce the tail through a padded buffer.
    const size_t src_size
            = conv == conversion::decode_f16 || conv == conversion::decode_quad ? 1 : 4;
    std::vector<unsigned char> in(step * 4);
    std::vector<uint32_t> out(step);
    std::memcpy(in.data(), static_cast<const unsigned char *>(src) + body * src_size,
            (n - body) * src_size);
    c = {in.data(), out.data(), step};
    k(&c);
    std::memcpy(static_cast<uint32_t *>(dst) + body, out.data(), (n - body) * 4);
    return true;
}

bool dispatch(cpu_isa_t isa, data_type dt, bool saturate, conversion conv, const void *src,
        void *dst, int64_t n, bool packs = false) {
    const bool vbmi = !packs && has_avx512_vbmi();
    if (isa == avx512_core) return run<avx512_core>(dt, saturate, conv, src, dst, n, vbmi);
    return run<avx2>(dt, saturate, conv, src, dst, n, vbmi);
}

} // namespace

void jit_encode_minifloat(cpu_isa_t isa, data_type dt, bool saturate, const float *x,
        uint32_t *code, int64_t n, bool packs) {
    dispatch(isa, dt, saturate, conversion::encode, x, code, n, packs);
}

void jit_decode_minifloat(
        cpu_isa_t isa, data_type dt, const uint32_t *code, float *y, int64_t n) {
    dispatch(isa, dt, false, conversion::decode, code, y, n);
}

bool jit_decode_minifloat_f16(
        cpu_isa_t isa, data_type dt, const uint8_t *code, float *y, int64_t n) {
    return dispatch(isa, dt, false, conversion::decode_f16, code, y, n);
}

bool jit_decode_minifloat_quads(
        cpu_isa_t isa, data_type dt, const uint8_t *code, float *y, int64_t n) {
    return dispatch(isa, dt, false, conversion::decode_quad, code, y, n);
}

} // namespace jit
} // namespace impl
} // namespace qgraph
