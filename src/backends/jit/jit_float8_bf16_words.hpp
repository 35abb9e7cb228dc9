#ifndef QGRAPH_BACKENDS_JIT_JIT_FLOAT8_BF16_WORDS_HPP
#define QGRAPH_BACKENDS_JIT_JIT_FLOAT8_BF16_WORDS_HPP

// f8_e4m3 / f8_e5m2 codes times a positive power of two 2^k, straight to bf16 in 16-bit lanes
// (MXFP8 weights with e8m0 scales): no f32 value, twice the lanes a vector, and no rounding.
//
// The product of a code and 2^k is exact in bf16 whenever it is normal and finite there (a
// float8 value has at most 4 significant bits): for 2^k in [lowest_scale(), highest_scale()]
// every finite code's product is, the smallest subnormal's included. Then, with
// m = (code & 0x7f) << (7 - man) (the code's exponent and mantissa fields at bf16's
// positions) and A = (127 - bias + k) << 7 (the scale's f32 bits >> 16, less bias << 7):
// - a normal code's result is m + A, its exponent re-biased by the add;
// - a subnormal code's (exponent field 0, mantissa x > 0) is S[x] + (k << 7), S[x] being the
//   bf16 bits of its value (k = 0): adding k << 7 scales a normal bf16 by 2^k;
// - a zero's is 0;
// and the code's sign goes to bit 15 (no carry reaches it: every result is below Inf).
//
// avx512 (BW) keeps a table per group, T[x] = S[x] - (127 - bias) << 7 + A for x > 0 and
// T[0] = 0 (one masked add of A to a constant table), and takes the codes whose exponent field
// is 0 from it by one vpermw under that mask (indexed by the code: its low bits are x there,
// the sign bit lies above the index): 10 instructions per 32 codes. avx2 has no masks nor word
// permutes: D[x] = S[x] - m - (127 - bias) << 7 comes from two vpshufb tables (low, high
// bytes) indexed by (code & 0x7f) + 0x80 - 2^man with unsigned saturation (the subnormals and
// zeros land on entries 16 - 2^man..15, every other code on an index with bit 7 set, which
// vpshufb turns into 0), the sign goes into D's high bytes before the words are formed, and
// A is vpsignw'ed by m (0 for a zero): 22 instructions per 32 codes.
//
// avx512 with AVX512_VBMI (planes(), chunk64()) looks the codes' own bf16 bits up instead, 64
// codes at a time: B[c] = bf16(x) for the 128 magnitudes, exact (4 significant bits), split into
// a low-byte and a high-byte plane of two registers each, one vpermi2b per plane (its 7-bit
// index ignores the sign bit, which is xor-ed into the high bytes), two byte unpacks, and for
// nonzero codes + (k << 7) = A - (127 - bias) << 7 by one masked word add per 32 (a sign bit
// flipped before the add is the same modulo 2^16): 11 vector instructions per 64 codes.
//
// The special codes (e4m3fn's NaN 0x7f, e5m2's Inf and NaNs from 0x7c, either sign) are not
// handled: chunk() keeps the largest magnitude seen, and special_jump() branches when any was
// special, so that the caller stores those codes another way (they do not occur in weights).

#include <cmath>
#include <cstdint>

#include "backends/jit/jit_generator.hpp"
#include "common/half_types.hpp"
#include "common/minifloat.hpp"
#include "qgraph/data_type_table.hpp"

namespace qgraph {
namespace impl {
namespace jit {

template <cpu_isa_t isa>
class float8_bf16_words {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr bool avx512 = isa == avx512_core;

public:
    /// The scratch registers the emitter takes (avx2: seven, and the two tables set_up()
    /// loads; avx512: four, and the constants set_up() loads).
    static constexpr int scratch = 9;

    static bool serves(data_type dt) {
        return dt == data_type::f8_e4m3 || dt == data_type::f8_e5m2;
    }

    /// vbmi: the CPU has AVX512_VBMI (common/cpu_isa.hpp's has_avx512_vbmi()), so avx512
    /// code may take chunk64().
    float8_bf16_words(jit_generator &g, data_type dt, bool vbmi = false)
        : g_(g), dt_(dt), f_(facts_of(dt)), planes_(avx512 && vbmi) {}

    /// Whether chunk64() may serve: avx512 with AVX512_VBMI. A block takes it or chunk()
    /// throughout, and says which to set_up() and special_jump().
    bool planes() const { return planes_; }

    /// The scales 2^k whose products with every finite code are normal and finite in bf16:
    /// the smallest subnormal x_min times 2^k at least 2^-126, the largest finite value times
    /// 2^k below 2^128 (its exponent at most 127).
    float lowest_scale() const { return 0x1p-126f / minifloat_to_f32(dt_, 1); }
    float highest_scale() const { return std::ldexp(1.f, 127 - std::ilogb(f_.max)); }

    /// Jumps to `to` unless each of the `count` (1 to 4) f32 scales in s's low dwords is a
    /// power of two in [lowest_scale(), highest_scale()] (so positive); else stores their A
    /// (see the header) as `count` words at `a`. s is consumed, t is scratch; uses eax.
    void scale_jump(const Xbyak::Xmm &s, const Xbyak::Xmm &t, int count,
            const Xbyak::Address &a, const Xbyak::Label &to) {
        g_.vptest(s, scale_cst(c_mantissa));
        g_.jnz(to, g_.T_NEAR);
        // s - lowest as unsigned at most highest - lowest: negative, NaN and Inf are above.
        g_.vpsubd(t, s, scale_cst(c_lowest));
        g_.vpmaxud(t, t, scale_cst(c_span));
        g_.vpcmpeqd(t, t, scale_cst(c_span));
        g_.vpmovmskb(g_.eax, t);
        const uint32_t all = (1u << (4 * count)) - 1;
        g_.and_(g_.eax, all);
        g_.cmp(g_.eax, all);
        g_.jne(to, g_.T_NEAR);
        g_.vpsrld(s, s, 16);
        g_.vpsubd(s, s, scale_cst(c_bias));
        g_.vpackusdw(s, s, s); // A < 2^15
        g_.vmovq(a, s);
    }

    /// acc (the largest code magnitude seen) cleared; into t[6..8]: avx2 the two D tables
    /// (t[7], t[8]; 16 bytes each, in both lanes); avx512 the constant table (t[6]), the
    /// exponent field mask and the special bound (word instructions take no broadcast), and
    /// k7 the table's lanes 1..2^man - 1.
    /// `planes` (chunk64(), planes() only): the plane registers t[4] (low bytes of
    /// magnitudes 0..63), t[5] (their high bytes), t[6] (chunk64()'s load order), t[7] (0x7f
    /// bytes).
    void set_up(const Vmm (&t)[scratch], const Vmm &acc, bool planes = false) {
        if (planes) {
            g_.vpxord(acc, acc, acc);
            g_.vmovdqu8(t[4], plane(pl_lo));
            g_.vmovdqu8(t[5], plane(pl_hi));
            g_.vmovdqu32(t[6], plane(pl_order));
            g_.vmovdqu8(t[7], plane(pl_magnitude));
            return;
        }
        if (avx512) {
            g_.vpxord(acc, acc, acc);
            g_.vmovdqu16(t[6], g_.ptr[g_.rip + l_]);
            g_.vpbroadcastd(t[7], g_.dword[g_.rip + l_ + 64 + 4 * w_exponent]);
            g_.vpbroadcastd(t[8], g_.dword[g_.rip + l_ + 64 + 4 * w_last_m]);
            g_.mov(g_.eax, (1u << (1 << f_.man_bits)) - 2);
            g_.kmovd(k_table, g_.eax);
            return;
        }
        g_.vpxor(acc, acc, acc);
        g_.vmovdqu(t[7], g_.ptr[g_.rip + l_]);
        g_.vmovdqu(t[8], g_.ptr[g_.rip + l_ + 32]);
    }

    /// A group's A in every word of a (avx512: its table into t[3]).
    void set_group(const Vmm &a, const Xbyak::Address &a_word, const Vmm (&t)[scratch]) {
        g_.vpbroadcastw(a, a_word);
        if (avx512) g_.vpaddw(t[3] | k_table | Xbyak::util::T_z, t[6], a);
    }

    /// The 32 codes at `src` times the scale, as bf16, at dst + off (64 bytes). a and t as
    /// set_group() left them, acc as set_up() or the last chunk did.
    void chunk(const Xbyak::Address &src, const Xbyak::Reg64 &dst, int off, const Vmm &a,
            const Vmm &acc, const Vmm (&t)[scratch]) {
        if (avx512)
            chunk_avx512(src, g_.ptr[dst + off], a, acc, t);
        else
            chunk_avx2(src, g_.ptr[dst + off], g_.ptr[dst + off + 32], a, acc, t);
    }

    /// planes(): the eight A words in `words` (scale_jump()'s, as its s left them) as each
    /// group's k << 7 twice in a dword, at `pairs` (32 bytes), for set_plane_group(); t is
    /// scratch. A word broadcast is a shuffle, a dword broadcast from memory a load.
    void store_plane_groups(const Xbyak::Xmm &words, const Xbyak::Xmm &t,
            const Xbyak::Address &pairs, const Xbyak::Address &pairs_hi) {
        g_.vpsubw(words, words, plane(pl_bias));
        g_.vpunpckhwd(t, words, words);
        g_.vpunpcklwd(words, words, words);
        g_.vmovdqu(pairs, words);
        g_.vmovdqu(pairs_hi, t);
    }

    /// planes(): a's every word the k << 7 of the group whose pair is at `pair`.
    void set_plane_group(const Vmm &a, const Xbyak::Address &pair) {
        g_.vpbroadcastd(a, pair);
    }

    /// planes(): the 64 codes at `src` times the scale, as bf16, at dst + off (128 bytes):
    /// codes 0..31 with a_lo's k, 32..63 with a_hi's (set_plane_group()); acc and t as
    /// set_up() or the last chunk left them. Uses k5 and k7.
    void chunk64(const Xbyak::Address &src, const Xbyak::Reg64 &dst, int off, const Vmm &a_lo,
            const Vmm &a_hi, const Vmm &acc, const Vmm (&t)[scratch]) {
        const Vmm &c = t[0], &lo = t[1], &hi = t[2];
        g_.vpermd(c, t[6], src); // each 128-bit lane: codes 8j..8j+7, 32+8j..32+8j+7
        g_.vmovdqa64(lo, c);
        g_.vpermi2b(lo, t[4], plane(pl_lo + 64));
        g_.vmovdqa64(hi, c);
        g_.vpermi2b(hi, t[5], plane(pl_hi + 64));
        g_.vpmaxub(acc, acc, hi); // a special code's high byte is 0x7f
        g_.vpternlogd(hi, c, g_.ptr_b[g_.rip + l_planes_ + pl_sign], 0x78); // hi ^ (c & 0x80)
        g_.vptestmb(k_nonzero, t[7], src); // in code order
        g_.vpunpcklbw(c, lo, hi); // codes 0..31
        g_.vpunpckhbw(lo, lo, hi); // codes 32..63
        g_.vpaddw(c | k_nonzero, c, a_lo);
        g_.kshiftrq(k_upper, k_nonzero, 32);
        g_.vpaddw(lo | k_upper, lo, a_hi);
        g_.vmovdqu16(g_.ptr[dst + off], c);
        g_.vmovdqu16(g_.ptr[dst + off + 64], lo);
    }

    /// To `to` when acc holds a special code's magnitude; t as set_up() left it. acc is
    /// consumed.
    void special_jump(const Vmm &acc, const Vmm (&t)[scratch], const Xbyak::Label &to,
            bool planes = false) {
        if (planes) {
            // Finite codes' high bytes are at most 0x47 (e5m2's 57344 is 0x4760).
            g_.vpcmpub(k_special, acc, plane(pl_special), 6); // >
            g_.kortestq(k_special, k_special);
        } else if (avx512) {
            g_.vpcmpw(k_special, acc, t[8], 6); // > (signed: every m is below 0x1000)
            g_.kortestd(k_special, k_special);
        } else {
            g_.vpcmpgtb(acc, acc, cst(b_last_code)); // magnitudes are below 0x80: signed
            g_.vptest(acc, acc);
        }
        g_.jnz(to, g_.T_NEAR);
    }

    void emit_constants() {
        if (planes_) emit_plane_constants();
        g_.align(16);
        g_.L(l_scale_);
        const uint32_t lo = f32_bits(lowest_scale()), hi = f32_bits(highest_scale());
        for (uint32_t v : {0x007fffffu, lo, hi - lo, uint32_t(f_.bias) << 7})
            for (int k = 0; k < 4; ++k) g_.dd(v);
        g_.align(64);
        g_.L(l_);
        const int man = f_.man_bits, shift = 7 - man, subnormals = 1 << man;
        const int index = 0x80 - subnormals; // avx2: the vpshufb index's offset
        const int special = f_.style == float_style::ieee ? ((1 << f_.exp_bits) - 1) << man
                                                          : 0x7f; // fn: the NaN
        // avx512 T at k = 0 less A, avx2 D (the header); entry 0 (a zero) 0.
        uint16_t d[32] = {};
        const int a0 = (127 - f_.bias) << 7;
        for (int x = 1; x < subnormals; ++x) {
            const uint32_t s = f32_bits(minifloat_to_f32(dt_, static_cast<uint32_t>(x))) >> 16;
            if (avx512)
                d[x] = static_cast<uint16_t>(s - a0);
            else
                d[(index + x) & 15] = static_cast<uint16_t>(s - (x << shift) - a0);
        }
        if (avx512) {
            for (uint16_t w : d) g_.dw(w);
            const uint32_t words[] = {0x7fu << shift, 0x80u - subnormals, 0x8000u,
                    uint32_t(special - 1) << shift};
            for (uint32_t w : words) g_.dd(w * 0x10001u);
            return;
        }
        for (int half = 0; half < 2; ++half)
            for (int lane = 0; lane < 2; ++lane)
                for (int e = 0; e < 16; ++e) g_.db(half ? d[e] >> 8 : d[e] & 0xff);
        for (int b : {0x7f, index, 0x80, 0, special - 1})
            for (int k = 0; k < 32; ++k) g_.db(b);
    }

private:
    // planes(): the tables (128 bytes each), then 64 bytes each but the sign's 4.
    enum { pl_lo = 0, pl_hi = 128, pl_order = 256, pl_magnitude = 320, pl_bias = 384,
        pl_special = 448, pl_sign = 512 };
    Xbyak::Address plane(int off) const { return g_.ptr[g_.rip + l_planes_ + off]; }

    void emit_plane_constants() {
        g_.align(64);
        g_.L(l_planes_);
        uint16_t b[128];
        for (uint32_t m = 0; m < 128; ++m) b[m] = static_cast<uint16_t>(f32_bits(minifloat_to_f32(dt_, m)) >> 16);
        for (uint16_t w : b) g_.db(w & 0xff);
        for (uint16_t w : b) g_.db(w >> 8);
        // Qwords 0, 4, 1, 5, 2, 6, 3, 7 as dword indexes.
        for (int d = 0; d < 16; ++d) g_.dd(static_cast<uint32_t>((d / 2 % 2) * 8 + d / 4 * 2 + d % 2));
        for (int i = 0; i < 64; ++i) g_.db(0x7f);
        for (int i = 0; i < 32; ++i) g_.dw(static_cast<uint16_t>((127 - f_.bias) << 7));
        for (int i = 0; i < 64; ++i) g_.db(0x60);
        g_.dd(0x80808080u);
    }

    enum { c_mantissa, c_lowest, c_span, c_bias }; // scale_jump()'s, 16 bytes each
    Xbyak::Address scale_cst(int k) const { return g_.ptr[g_.rip + l_scale_ + 16 * k]; }

    // The constants after the table(s), in this order: avx512 dwords of two words each, read
    // broadcast ({1to16}), after the 64-byte table (m's mask, the exponent field, the sign,
    // the special bound as an m); avx2 32 bytes each after the two tables (the magnitude
    // mask, the vpshufb index's offset, the sign, zeros, the special bound).
    enum { w_magnitude, w_exponent, w_sign, w_last_m }; // avx512
    enum { b_magnitude, b_index, b_sign, b_zero, b_last_code }; // avx2
    Xbyak::Address cst(int k) const {
        return avx512 ? g_.ptr_b[g_.rip + l_ + 64 + 4 * k] : g_.ptr[g_.rip + l_ + 64 + 32 * k];
    }

    void chunk_avx512(const Xbyak::Address &src, const Xbyak::Address &dst, const Vmm &a,
            const Vmm &acc, const Vmm (&t)[scratch]) {
        const Vmm &w = t[0], &m = t[1], &table = t[3], &exponent = t[7];
        g_.vpmovzxbw(w, src);
        g_.vpsllw(m, w, 7 - f_.man_bits);
        g_.vpandd(m, m, cst(w_magnitude));
        g_.vpmaxuw(acc, acc, m);
        g_.vpaddw(m, m, a);
        g_.vptestnmw(k_subnormal, w, exponent); // exponent field 0: zeros and subnormals
        g_.vpermw(m | k_subnormal, w, table); // indexed by the code's low 5 bits
        g_.vpsllw(w, w, 8); // the code's sign at bit 15
        g_.vpternlogd(m, w, cst(w_sign), 0xf8); // m | (w & 0x8000)
        g_.vmovdqu16(dst, m);
    }

    void chunk_avx2(const Xbyak::Address &src, const Xbyak::Address &dst,
            const Xbyak::Address &dst_hi, const Vmm &a, const Vmm &acc, const Vmm (&t)[scratch]) {
        const Vmm &c = t[0], &x = t[1], &i = t[2], &dl = t[3], &dh = t[4], &m0 = t[5], &m1 = t[6],
                  &lo = t[7], &hi = t[8];
        const int shift = 7 - f_.man_bits;
        // Qwords 0 2 1 3: the unpacks, which work per 128-bit lane, leave words in order.
        g_.vpermq(c, src, 0xd8);
        g_.vpand(x, c, cst(b_magnitude));
        g_.vpmaxub(acc, acc, x);
        g_.vpaddusb(i, x, cst(b_index));
        g_.vpshufb(dl, lo, i);
        g_.vpshufb(dh, hi, i);
        g_.vpand(i, c, cst(b_sign));
        g_.vpaddb(dh, dh, i); // D + sign << 8, modulo 2^16
        g_.vpunpcklbw(m0, x, cst(b_zero));
        g_.vpunpckhbw(m1, x, cst(b_zero));
        g_.vpsllw(m0, m0, shift);
        g_.vpsllw(m1, m1, shift);
        g_.vpunpcklbw(c, dl, dh);
        g_.vpunpckhbw(x, dl, dh);
        g_.vpsignw(dl, a, m0); // A, or 0 for a zero
        g_.vpsignw(dh, a, m1);
        g_.vpaddw(m0, m0, c);
        g_.vpaddw(m1, m1, x);
        g_.vpaddw(m0, m0, dl);
        g_.vpaddw(m1, m1, dh);
        g_.vmovdqu(dst, m0);
        g_.vmovdqu(dst_hi, m1);
    }

    jit_generator &g_;
    const data_type dt_;
    const data_type_facts &f_;
    const bool planes_;
    const Xbyak::Opmask k_subnormal = Xbyak::Opmask(5), k_special = Xbyak::Opmask(5),
                        k_table = Xbyak::Opmask(7), k_nonzero = Xbyak::Opmask(5),
                        k_upper = Xbyak::Opmask(7);
    Xbyak::Label l_, l_scale_, l_planes_;
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
