#ifndef QGRAPH_BACKENDS_JIT_JIT_FLOAT8_EMITTER_HPP
#define QGRAPH_BACKENDS_JIT_JIT_FLOAT8_EMITTER_HPP

// float8 / float4 <-> f32 as instructions, one code per dword lane: the encode and decode of
// common/minifloat.hpp (NUMERICS.md "Float8 and float4"), bit for bit. The quantize and
// dequantize kernels emit their float8 conversions only through this class, and the exhaustive
// test (tests/jit) builds its conversion kernel on it too, so the test checks the very
// sequence the kernels run.
//
// Encode, for |q| at or above the smallest normal 2^emin: the code is |q|'s bits re-biased and
// shifted right by 23 - man, rounded to nearest even in integers (add 2^(22 - man) - 1 plus
// the lowest kept bit, then shift): a carry out of the mantissa steps the exponent, as it
// should, and anything at or beyond the target's overflow gives a code above the largest
// finite one (Inf's bits included). Below 2^emin the code is |q| in units of the smallest
// subnormal, 2^(emin - man), rounded to nearest even by the conversion to integer (|q| times a
// power of two, exact; a value that rounds up to 2^man is the smallest normal's code), and a
// NaN, which converts to 0x80000000, takes that path too. Then one signed min brings every
// code above the largest finite one (Inf's included) to the overflow code and keeps the NaN's
// 0x80000000, and one unsigned min turns that into the NaN code; the sign last. 14
// instructions on avx512 for a saturating e4m3fn / e5m2 (16 with a compare and blend for the
// NaN, 22 rounding with an f32 add and subtract at the quantum).
//
// e4m3 and e5m2 are encoded through f16 words instead (encode_f16(), encode_words(),
// pack_words()): on avx512 4 instructions per 16 quotients (6 saturating), then 6 (e5m2) or 8
// (e4m3) per 32 words, and the quantize kernels, bound by the encode's count, gather 64 codes
// with one vpermt2b; on avx2 (no vpternlogd, no byte gathers) 5 per 8 quotients (7
// saturating), 6 per 16 words, and 32 codes packed by 2 (e5m2) or 4 (e4m3) shifts and
// multiplies and one vpacksswb (docs/kernels.md "float8"). bf16 / f16 x times a power of two
// is encoded straight from x's bits where the quotient is zero or normal in the type
// (encode_scaled_half(): avx2 17 word instructions per 16, flagging the other lanes, which
// encode_scaled_half_all() then encodes with one FMA per 8 where no x is Inf or NaN; avx512
// 20 per 32, one FMA per 16 for the quotients below the normals, flagging Inf and NaN x).
//
// Decode moves the exponent and mantissa fields to f32's positions and multiplies by
// 2^(127 - bias): exact for normals and subnormals alike (an f32 subnormal operand, so the
// default MXCSR without DAZ is required, as every qgraph kernel runs with). Inf/NaN codes are
// blended in, then the sign. The dequantize kernels decode e5m2, and e4m3 on avx512, through
// f16 instead (decode_f16()), which has no subnormal f32 operand; on avx2 both 32 codes at a
// time (load_quad(), quad_to_f32()).
//
// avx512 uses k4 (and load_words() the caller's tail mask k1); avx2 a mask register the
// caller passes.

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "backends/jit/jit_generator.hpp"
#include "common/half_types.hpp"
#include "qgraph/data_type_table.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// The word encode's constants (float8_emitter::encode_words()), per 16-bit word: the signed
/// and unsigned clamps that send NaN words (e4m3: every magnitude from 0x3f80, 1.875 * 2^-8
/// times 2^8 = 480, whose code is the NaN) to the NaN code's word with their sign, half a
/// unit of the code's last bit (bit 7 for e4m3, 8 for e5m2) and that half less one. The
/// driver's model of the shorter encode reads the same (jit_quantize_driver.cpp).
struct float8_word_constants {
    uint16_t clamp_s, clamp_u, half, bias;
};
constexpr float8_word_constants float8_words(data_type dt) {
    return dt == data_type::f8_e4m3 ? float8_word_constants {0x3f80, 0xbf80, 0x40, 0x3f}
                                    : float8_word_constants {0x7e00, 0xfe00, 0x80, 0x7f};
}

template <cpu_isa_t isa>
class float8_emitter {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr bool avx512 = isa == avx512_core;
    static constexpr int vbytes = isa_traits<isa>::vlen * 4;

public:
    /// dt: f8_e4m3, f8_e4m3fnuz, f8_e5m2, f8_e5m2fnuz or f4_e2m1. saturate: encode's overflow
    /// rule (float4 always saturates). vbmi: the word encode may gather bytes with
    /// vpermt2b / vpermb (AVX512_VBMI, common/cpu_isa.hpp's has_avx512_vbmi(): the driver's
    /// decision, or a test's asking for the packs), else it packs; avx2 always packs.
    float8_emitter(jit_generator &g, data_type dt, bool saturate, bool vbmi)
        : g_(g)
        , dt_(dt)
        , f_(facts_of(dt))
        , saturate_(saturate || f_.style == float_style::finite)
        , vbmi_(avx512 && vbmi) {}

    /// code = f32_to_minifloat(dt, q, saturate) per lane, in the low bits of each dword. q is
    /// kept; t0, t1, t2 are scratch; m is avx2's mask register (unused on avx512).
    void encode(const Vmm &code, const Vmm &q, const Vmm &t0, const Vmm &t1, const Vmm &t2,
            const Vmm &m) {
        const Vmm &a = t0, &t = t1, &sub = t2;
        const int shift = 23 - f_.man_bits;
        g_.vandps(a, q, cst(c_abs));
        // Normal codes: re-biased, rounded to nearest even at the kept bits (c_round holds
        // 2^(shift - 1) - 1 less the re-bias; t is the lowest kept bit). Below 2^31.
        g_.vpsrld(t, a, shift);
        and_d(t, t, cst(c_one));
        g_.vpaddd(code, a, t);
        g_.vpaddd(code, code, cst(c_round));
        g_.vpsrld(code, code, shift);
        // Subnormal codes: a in units of the smallest subnormal, rounded to nearest even. A
        // NaN converts to the integer indefinite, 0x80000000, and is blended in too: below
        // every code as a signed integer, above every code as an unsigned one.
        g_.vmulps(sub, a, cst(c_sub_scale));
        if (avx512)
            g_.vcvtps2dq(sub, sub | Xbyak::util::T_rn_sae);
        else
            g_.vcvtps2dq(sub, sub); // MXCSR: nearest even, as every qgraph kernel runs with
        cmp_ps(m, a, cst(c_min_normal), 9); // !(a >= 2^emin) (nge_us: true for NaN)
        blend(code, m, sub);
        // Overflow, every code above the largest finite one (Inf included), by a signed min
        // that keeps the NaN's 0x80000000; then that to the NaN code by an unsigned min.
        if (overflow_code() != nan_code()) g_.vpminsd(code, code, cst(c_overflow));
        g_.vpminud(code, code, cst(c_nan));
        // The sign at the type's top bit: e5m2 and e4m3fn keep q's sign on their NaN; the
        // fnuz NaN is the sign bit alone, so the sign changes nothing there.
        if (avx512) {
            g_.vpsrld(t, q, 32 - f_.bits);
            if (f_.style == float_style::fnuz) keep_where_nonzero(t, code, m); // no -0
            g_.vpternlogd(code, t, cst(c_code_sign), 0xf8); // code | (t & sign bit)
        } else {
            g_.vandps(t, q, cst(c_sign));
            g_.vpsrld(t, t, 32 - f_.bits);
            if (f_.style == float_style::fnuz) keep_where_nonzero(t, code, m); // no -0
            g_.vorps(code, code, t);
        }
        // float4 has no NaN and encodes one as +max: the sign above was wrong for it.
        if (f_.style == float_style::finite) nan_to_code(code, q, m);
    }

    /// Whether the word encode (encode_f16(), encode_words()) serves this type: f8_e4m3 and
    /// f8_e5m2. The others take encode().
    bool encodes_through_f16() const {
        return dt_ == data_type::f8_e4m3 || dt_ == data_type::f8_e5m2;
    }
    /// The registers set_up_words() fills, which encode_f16(), encode_words() and
    /// pack_words() read. avx2 reads the word constants from memory (a ymm load is a dword
    /// one's width there) and keeps in registers only what an instruction needs there: the
    /// FMA's zero addend, and the clamps' bounds as the first source of vminps / vmaxps,
    /// which return their second source, v, when either is NaN.
    /// checked: the kernel runs the checked encode too (avx512: one more register, its
    /// rounding constant). At most max_word_consts.
    static constexpr int max_word_consts = 8;
    int word_consts(bool checked = false) const {
        if (!avx512) return saturate_ ? 3 : 1;
        return (saturate_ ? 7 : 5) + (checked ? 1 : 0);
    }
    /// Fills regs[0 .. word_consts(checked)) with the word encode's constants (word
    /// instructions have no embedded broadcast, and a zmm load takes twice a dword one's load
    /// width).
    void set_up_words(const Vmm *regs, bool checked = false) {
        if (!avx512) {
            wc_[3] = regs[0];
            g_.vpxor(regs[0], regs[0], regs[0]);
            if (!saturate_) return;
            wc_[4] = regs[1];
            wc_[5] = regs[2];
            g_.vmovaps(regs[1], cst(c_f16_max));
            g_.vmovaps(regs[2], cst(c_f16_min));
            return;
        }
        static constexpr constant order[] = {
                c_w_clamp_s, c_w_clamp_u, c_w_bias, c_zero, c_f16_max, c_f16_min};
        const int n = word_consts() - 1;
        for (int i = 0; i < n; ++i) {
            wc_[i] = regs[i];
            g_.vpbroadcastd(regs[i], g_.ptr[g_.rip + l_consts_ + order[i] * cbytes]);
        }
        high_bytes_ = group_order_ = regs[n];
        if (checked) {
            w_half_ = regs[n + 1];
            g_.vpbroadcastd(w_half_, g_.ptr[g_.rip + l_consts_ + c_w_half * cbytes]);
        }
        if (vbmi_)
            g_.vmovdqu8(high_bytes_, g_.ptr[g_.rip + l_consts_ + c_count * cbytes]);
        else // pack_words()'s qword order
            g_.vpmovzxbq(high_bytes_, g_.ptr[g_.rip + l_consts_ + c_count * cbytes + 128]);
    }

    /// The first stage of the word encode: h = the f16 words of v = q + 0.f (e5m2) or
    /// (q + 0.f) * 2^-8 (e4m3), rounded to odd below the code's round bit; q is clobbered,
    /// t is scratch (it may be h's register). h is the ymm of a register (avx2: its xmm, 8
    /// words); two such halves make one vector of 32 (16) words for encode_words().
    ///
    /// Why f16: every e5m2 value is the top byte of an f16 (the same exponent field, bias
    /// and subnormals), and every e4m3 value times 2^-8 is an f16 whose bits 14..7 are the
    /// code's magnitude (e4m3's subnormals, 2^-9 apart, are f16 subnormals 2^-17 apart). So
    /// the code is the f16 word of v rounded to nearest even at bit k (8, e5m2; 7, e4m3), for
    /// every v, provided the word keeps what that rounding reads: bits k and k - 1 as they are
    /// and whether anything below k - 1 is set (round to odd with >= 2 extra bits). A
    /// conversion to nearest even would round twice; toward zero drops that "anything below".
    /// So bit 18 of v's f32 pattern first takes the OR of bits 18..0 (t = v + 0x3ffff
    /// carries into bit 18 exactly when bits 17..0 are not all zero): bit 18 lies below the
    /// round bit (f32 bit 19 or 20 for an f16 normal, higher relative to v's exponent for
    /// f16 subnormals down to |v| = 2^-19), and toward zero keeps it (it weighs 2^(E - 5)
    /// for v's exponent E, at least the f16 quantum 2^-24 there). Below 2^-19, v rounds to
    /// zero in both types and its truncated word (< 32) does too, sign kept. Toward zero
    /// never makes Inf of a finite v (65504 at most, which rounds to e5m2's overflow code
    /// as any v past 61440 does), and a NaN stays a quiet NaN (word >= 0x7e00).
    void encode_f16(const Xbyak::Ymm &h, const Vmm &q, const Vmm &t) {
        // e4m3: q * 2^-8 + 0 rounded once, exact but where |q| < 2^-118, whose code is a zero
        // with q's sign either way.
        if (dt_ == data_type::f8_e4m3)
            g_.vfmadd132ps(q, wc_[3], cst(c_f16_down));
        else
            add_zero(q);
        to_f16(h, q, t);
    }

    /// The checked encode, for a quotient v = RN(x * y8) by a reciprocal that is not exact:
    /// y8 = RN(1/s) (e5m2) or RN(1/s) * 2^-8 (e4m3), exact, as set_up_product() makes it,
    /// with 2^-30 <= |RN(1/s)| <= 2^30. v lies within two units of its last place of the
    /// exact quotient's RN(x / s) (times 2^-8), or of +-0 below the smallest subnormal. Every float8 rounding edge (a midpoint between
    /// neighbours, the overflow edge) has at most 5 significant bits, so its f32 pattern is
    /// a multiple of 2^19. Where v's pattern lies 4 or more units from every such multiple,
    /// both quotients lie strictly between the same two edges: they have one code, and no
    /// tie is involved. There encode_f16_truncated() and encode_words(.., half_up) give the
    /// code in fewer instructions than encode_f16() and encode_words(); flag_near_edges()
    /// marks the other lanes, whose group the caller redoes on the exact quotient
    /// (docs/kernels.md, "The checked float8 encode").
    ///
    /// Flags the lanes of v whose pattern is within 4 below to 3 above a multiple of 2^19,
    /// but +0: v is +0 only where x / s is +0 or a positive quotient below 2^-140, whose
    /// code is +0 too. (A -0 is flagged, and so is every subnormal v within 3 units of 0:
    /// x / s + 0.f may be +0 there.) avx512: into k2 (k2 = the
    /// flags when `first`, else k2 |= them; uses k3); avx2: into acc, nonzero in the flagged
    /// lanes (acc is t when `first`). t is scratch.
    void flag_near_edges(const Vmm &v, const Vmm &t, const Vmm &acc, bool first) {
        g_.vpaddd(t, v, cst(c_check_add));
        if (!avx512) {
            // (t & mask) == 0, and v's bits: nonzero but for +0.
            g_.vpand(t, t, cst(c_check_mask));
            g_.vpcmpeqd(t, t, wc_[3]);
            g_.vpand(t, t, v);
            if (!first) g_.vpor(acc, acc, t);
            return;
        }
        g_.vptestmd(g_.k3, v, v); // not +0
        if (first) {
            g_.vptestnmd(g_.k2 | g_.k3, t, cst(c_check_mask));
            return;
        }
        g_.vptestnmd(g_.k3 | g_.k3, t, cst(c_check_mask));
        g_.korw(g_.k2, g_.k2, g_.k3);
    }
    /// Proven rows of the checked encode (quantize_params::f8_proven): v = x * y8 + 0 in one
    /// FMA, for encode_f16_truncated() without flag_near_edges(). The + 0 makes -0 the +0
    /// that -0 / s + 0.f is (the check would have flagged it); any other product keeps its
    /// sign (the exact product is not 0).
    void product_plus_zero(const Vmm &v, const Vmm &y8) {
        g_.vfmadd213ps(v, y8, cst(c_zero)); // v * y8 + 0
    }
    /// Jumps to `flagged` where flag_near_edges() flagged a lane (acc: avx2's).
    void jump_if_flagged(const Vmm &acc, const Xbyak::Label &flagged) {
        if (avx512)
            g_.kortestw(g_.k2, g_.k2);
        else
            g_.vptest(acc, acc);
        g_.jnz(flagged, g_.T_NEAR);
    }
    /// The checked encode's first stage: h = the f16 words of v rounded toward zero (v is
    /// clamped to the largest code when saturating), as encode_f16() leaves them (avx2: in
    /// h's xmm). Toward zero keeps v on its side of every edge, all of which f16 holds, and
    /// lands on an edge only from above it.
    void encode_f16_truncated(const Xbyak::Ymm &h, const Vmm &v) {
        if (saturate_) {
            g_.vminps(v, wc_[4], v);
            g_.vmaxps(v, wc_[5], v);
        }
        if (avx512)
            g_.vcvtps2ph(h, v, 3); // toward zero
        else
            g_.vcvtps2ph(Xbyak::Xmm(h.getIdx()), v, 3);
    }
    /// Multiply rows whose y = 1/s (a power of two) has |y| >= 1: y8 = y (e5m2) or
    /// y * 2^-8 (e4m3), exact, for encode_product().
    void set_up_product(const Vmm &y8, const Vmm &y) {
        if (dt_ == data_type::f8_e4m3)
            g_.vmulps(y8, y, cst(c_f16_down));
        else
            g_.vmovaps(y8, y);
    }
    /// encode_f16() of the quotient x * y on such a row, from x (at `x`, or in q) by one
    /// FMA, x * y8 + 0: with |y| >= 1 the product x * y of a finite x is exact or
    /// overflows, never a zero from a nonzero x, so rounding x * y8 + 0 once is the
    /// quotient plus 0.f (times 2^-8) rounded as encode_f16() does, but where x * y
    /// overflows: there e4m3's product may be a finite number of at least 2^120, whose code
    /// is the overflow code as Inf's is.
    void encode_product(
            const Xbyak::Ymm &h, const Vmm &q, const Xbyak::Address &x, const Vmm &y8,
            const Vmm &t) {
        if (avx512)
            g_.vpxord(q, q, q);
        else
            g_.vpxor(q, q, q);
        g_.vfmadd231ps(q, y8, x);
        to_f16(h, q, t);
    }
    void encode_product(const Xbyak::Ymm &h, const Vmm &q, const Vmm &y8, const Vmm &t) {
        g_.vfmadd213ps(q, y8, cst(c_zero));
        to_f16(h, q, t);
    }

    /// The second stage: the f16 words of w (32 in a zmm, 16 in a ymm, 8 in an xmm) to their
    /// codes, each in the high byte of its word (pack_words(), pack_word()); t is scratch
    /// (w's size). Every word from encode_f16(). avx2 leaves e4m3's sign at bit 15 and its
    /// magnitude at bits 13..7, which its packs join (down_to_code()). half_up: the checked
    /// encode's words (encode_f16_truncated(); avx512: after set_up_words(regs, true)),
    /// rounded half up at bit k instead of to nearest even: a word on an edge came from
    /// above it.
    void encode_words(const Xbyak::Xmm &w, const Xbyak::Xmm &t, bool half_up = false) {
        const auto c = [&](const Vmm &r) {
            const int idx = r.getIdx();
            return w.isZMM() ? Xbyak::Xmm(Xbyak::Zmm(idx)) : Xbyak::Xmm(Xbyak::Ymm(idx));
        };
        const int k = dt_ == data_type::f8_e4m3 ? 7 : 8;
        // NaN words (magnitude 0x7e00 and up) to the NaN code's word, the sign kept (a
        // signed min for positive words, an unsigned one for negative ones). e4m3: every
        // magnitude from 0x3f80 (1.875, i.e. 480 * 2^-8, whose code 0x7f is the NaN), which
        // takes every overflow when not saturating too (464 and up round to 0x7f, 464 itself
        // to 0x7e as the tie's even neighbour). Either way no carry below reaches bit 15.
        // (avx2 reads the constants from memory, in the same order.)
        if (!avx512) {
            g_.vpminsw(w, w, cst(c_w_clamp_s));
            g_.vpminuw(w, w, cst(c_w_clamp_u));
            if (half_up) return g_.vpaddw(w, w, cst(c_w_half));
            g_.vpsrlw(t, w, k);
            g_.vpand(t, t, cst(c_word_one));
            g_.vpaddw(w, w, t);
            g_.vpaddw(w, w, cst(c_w_bias));
            return;
        }
        g_.vpminsw(w, w, c(wc_[0]));
        g_.vpminuw(w, w, c(wc_[1]));
        if (half_up) {
            g_.vpaddw(w, w, c(w_half_)); // + 2^(k - 1)
        } else {
            // Round to nearest even at bit k: + 2^(k - 1) - 1 + bit k. A carry out of the
            // mantissa steps the exponent, as it should.
            g_.vpsrlw(t, w, k);
            g_.vpandd(t, t, cst(c_word_one));
            g_.vpaddw(w, w, t);
            g_.vpaddw(w, w, c(wc_[2]));
        }
        // e5m2: the code is the high byte. e4m3: bits 14..7 are 0 and the magnitude; the
        // word shifted up by one, its bit 15 replaced by the sign.
        if (dt_ == data_type::f8_e4m3) {
            g_.vpsllw(t, w, 1);
            g_.vpternlogd(w, t, cst(c_w_sign), 0xe4); // sign bits ? w : t
        }
    }

    /// w0 = the 64 codes of the encode_words() results w0 (elements 0-31) and w1 (32-63), in
    /// order, as bytes: their high bytes, by one vpermt2b; without AVX512_VBMI, each word
    /// shifted down 8 (sign-extended: -128..127), vpacksswb (exact), which leaves in qword 2L
    /// the elements 8L.. of w0 and in 2L + 1 those of w1, and vpermq; w1 is clobbered.
    /// avx2: the 32 codes of w0 (elements 0-7 in its low 128-bit lane, 16-23 in its high one)
    /// and w1 (8-15, 24-31), in order: each word to its code as a signed word
    /// (down_to_code()) and one vpacksswb (exact), which packs lane by lane.
    void pack_words(const Vmm &w0, const Vmm &w1) {
        if (!avx512) {
            down_to_code(w0, w1);
            return g_.vpacksswb(w0, w0, w1);
        }
        if (vbmi_) return g_.vpermt2b(w0, group_order_, w1);
        g_.vpsraw(w0, w0, 8);
        g_.vpsraw(w1, w1, 8);
        g_.vpacksswb(w0, w0, w1);
        g_.vpermq(w0, group_order_, w0);
    }
    /// avx512: the 32 codes of an encode_words() result in the zmm w, in order, as the
    /// bytes of its ymm: one vpermb, or a shift and vpmovwb without AVX512_VBMI.
    void pack_words32(const Vmm &w) {
        assert(avx512);
        if (vbmi_) return g_.vpermb(w, high_bytes_, w);
        g_.vpsrlw(w, w, 8);
        g_.vpmovwb(Xbyak::Ymm(w.getIdx()), w);
    }
    /// Whether set_up_unpacked_order() serves: pack_words() gathers bytes (AVX512_VBMI).
    bool gathers_bytes() const { return vbmi_; }
    /// After set_up_words(), where gathers_bytes(): pack_words() takes the elements in the
    /// order that vpunpcklwd / vpunpckhwd of bf16 against zero leave them (vector 2m + h: per
    /// 128-bit lane L of the m-th 32 elements, elements 8L + 4h .. 8L + 4h + 3), putting
    /// them back in order by the same vpermt2b; its index table goes in reg.
    void set_up_unpacked_order(const Vmm &reg) {
        group_order_ = reg;
        g_.vmovdqu8(reg, g_.ptr[g_.rip + l_consts_ + c_count * cbytes + 64]);
    }
    /// The 16 codes of an encode_words() result in the ymm w, in order, as the bytes of its
    /// xmm: one vpermb, or a shift and vpmovwb without AVX512_VBMI. avx2: the 8 codes of the
    /// xmm w, as its low 8 bytes (down_to_code() and vpacksswb).
    void pack_word(const Xbyak::Xmm &w) {
        if (!avx512) {
            down_to_code(w, w);
            return g_.vpacksswb(w, w, w);
        }
        const Xbyak::Ymm y(w.getIdx());
        if (vbmi_) return g_.vpermb(y, Xbyak::Ymm(high_bytes_.getIdx()), y);
        g_.vpsrlw(y, y, 8);
        g_.vpmovwb(Xbyak::Xmm(w.getIdx()), y);
    }

    /// q = q + 0.f: the zero point of a float8 quantize, y = cast(x / s + zp) with zp = +0
    /// (absent or a +0 tensor). It changes nothing but a -0 quotient, which becomes +0.
    void add_zero(const Vmm &q) { g_.vaddps(q, q, cst(c_zero)); }

    /// f = minifloat_to_f32(dt, code) per lane; code (in the low bits of each dword, the
    /// bits above zero) is kept; t0 and t1 are scratch; m is avx2's mask register.
    void decode(const Vmm &f, const Vmm &code, const Vmm &t0, const Vmm &t1, const Vmm &m) {
        const Vmm &mag = t0;
        g_.vandps(mag, code, cst(c_mag_mask));
        g_.vpslld(f, mag, 23 - f_.man_bits);
        g_.vmulps(f, f, cst(c_pow));
        if (f_.style == float_style::ieee) {
            cmp_eq_d(m, mag, cst(c_inf_code));
            blend(f, m, c_f32_inf);
            cmp_gt_d(m, mag, cst(c_inf_code));
            blend(f, m, c_f32_nan);
        } else if (f_.style == float_style::fn) {
            cmp_eq_d(m, mag, cst(c_nan));
            blend(f, m, c_f32_nan);
        }
        g_.vandps(t1, code, cst(c_code_sign));
        g_.vpslld(t1, t1, 32 - f_.bits);
        g_.vorps(f, f, t1);
        if (f_.style == float_style::fnuz) { // the NaN's sign bit is not a sign
            cmp_eq_d(m, code, cst(c_code_sign));
            blend(f, m, c_f32_nan);
        }
    }

    /// Whether decode_f16() serves this type. f8_e5m2 is the top byte of an f16 (the same
    /// sign, exponent bias 15, Inf and NaN codes). Every f8_e4m3 (e4m3fn) value is an f16
    /// too, and its sign and magnitude moved to f16's places read as the value times 2^-8,
    /// subnormals included (avx512 only: avx2 keeps decode()).
    bool decodes_as_f16() const {
        return dt_ == data_type::f8_e5m2 || (avx512 && dt_ == data_type::f8_e4m3);
    }

    /// decodes_as_f16() types: the codes at `at` into the words of w (as many as the vector
    /// has lanes; avx512: those of the mask k1 where `tail`), as decode_f16() takes them.
    void load_words(const Vmm &w, const Xbyak::Address &at, bool tail) {
        using Half = typename std::conditional<avx512, Xbyak::Ymm, Xbyak::Xmm>::type;
        const Half h(w.getIdx());
        const Half hd = tail ? Half(h | g_.k1 | Xbyak::util::T_z) : h;
        if (dt_ == data_type::f8_e4m3)
            g_.vpmovsxbw(hd, at); // the sign copied into the bits above it, cleared below
        else
            g_.vpmovzxbw(hd, at);
    }

    /// decodes_as_f16() types: f = minifloat_to_f32(dt, code) for the words of w that
    /// load_words() left; w and m are clobbered (m: avx2's mask register, avx512 scratch).
    /// e5m2: five instructions where decode() takes ten; e4m3: eight, and no f32 subnormal
    /// operand (an f32 multiply with one, which decode() has for the subnormal codes, costs
    /// Zen 4 several times a normal one: decode() ran e4m3 -> f32 at 0.6 to 0.8 of the
    /// roofline, nearly twice as slow on random codes as on normal ones).
    /// (test_float8_conversions' DecodesEveryCodeThroughF16 checks it on every code.)
    void decode_f16(const Vmm &f, const Vmm &w, const Vmm &m) {
        using Half = typename std::conditional<avx512, Xbyak::Ymm, Xbyak::Xmm>::type;
        const Half h(w.getIdx());
        if (dt_ == data_type::f8_e4m3) {
            const Xbyak::Ymm hm(m.getIdx());
            g_.vpsllw(h, h, 7); // sign, sign, magnitude, 7 zeros
            g_.vpandd(h, h, cst(c_f16_keep)); // f16 bits of the value times 2^-8
            // The NaN codes (magnitude all ones): k4 = the words whose magnitude bits are
            // all set, one mask bit per word, so per f32 lane below.
            g_.vpternlogd(hm, h, cst(c_f16_mag), 0x22); // ~h & magnitude bits
            g_.vptestnmw(g_.k4, hm, hm);
            g_.vcvtph2ps(f, h); // exact
            // +-1.875 (the NaN codes' f16 value) to minifloat_to_f32's quiet NaN, with the
            // code's sign, which the multiply keeps.
            g_.vpxord(f | g_.k4, f, cst(c_f16_to_nan));
            g_.vmulps(f, f, cst(c_f16_scale)); // exact: every operand is normal or zero
            return;
        }
        g_.vpsllw(h, h, 8);
        g_.vcvtph2ps(f, h); // exact; a NaN keeps its payload (shifted) and sign
        // minifloat_to_f32 gives the quiet NaN without payload, with the code's sign.
        if (avx512) {
            g_.vcmpps(g_.k4, f, f, 3); // unordered
            g_.vpandd(f | g_.k4, f, cst(c_nan_keep));
        } else {
            g_.vcmpps(m, f, f, 3);
            g_.vandps(m, m, cst(c_nan_payload));
            g_.vandnps(f, m, f);
        }
    }

    /// Whether load_quad() serves this type: avx2's e5m2 and e4m3 (the fnuz types, whose NaN
    /// is the code 0x80, keep decode()).
    bool decodes_quads() const {
        return !avx512 && (dt_ == data_type::f8_e5m2 || dt_ == data_type::f8_e4m3);
    }

    /// avx2, decodes_quads() types: the 32 codes at `at` as f16 words, 8 in the xmm of each
    /// w[i] (codes 8i .. 8i + 7) for quad_to_f32(). vpunpck[lh]bw against zero put each code
    /// in its word's high byte, lane by lane (w[0]: codes 0-7 and 16-23, w[1]: 8-15 and
    /// 24-31), and the high lanes move down into w[2], w[3]. e5m2: the word is the code's
    /// value; e4m3: its value times 2^-8, as decode_f16() makes it. The NaN codes become the
    /// quiet NaN word 0x7e00 with the code's sign, which the widening and any multiply keep
    /// as minifloat_to_f32()'s NaN (vcvtph2ps would quiet e5m2's signalling 0x7d00 and keep
    /// the payload of 0x7f00). t is scratch. Per 32 codes: 11 instructions (e5m2, the NaN
    /// codes mended as bytes) or 17 (e4m3), where decode_f16() takes 5 per 8 codes on avx2
    /// and decode() 10.
    void load_quad(const Vmm (&w)[4], const Xbyak::Address &at, const Vmm &t) {
        assert(decodes_quads());
        const Vmm &zero = w[3];
        g_.vpxor(zero, zero, zero);
        if (dt_ == data_type::f8_e5m2) {
            g_.vmovdqu(t, at);
            g_.vpand(w[0], t, cst(c_b_mag));
            g_.vpcmpgtb(w[0], w[0], cst(c_b_inf)); // the NaN codes: magnitude above Inf's
            g_.vpand(w[1], t, cst(c_b_sign));
            g_.vpor(w[1], w[1], cst(c_b_nan));
            g_.vpblendvb(t, t, w[1], w[0]);
            g_.vpunpckhbw(w[1], zero, t);
            g_.vpunpcklbw(w[0], zero, t);
        } else {
            g_.vpunpcklbw(w[0], zero, at);
            g_.vpunpckhbw(w[1], zero, at);
            for (int i = 0; i < 2; ++i) {
                g_.vpsraw(w[i], w[i], 1); // sign, sign, magnitude, 7 zeros
                g_.vpand(w[i], w[i], cst(c_f16_keep)); // the f16 word of the value times 2^-8
                // The NaN codes (magnitude 0x7f, 1.875 here) to 0x7e00, the sign kept.
                g_.vpand(t, w[i], cst(c_f16_mag));
                g_.vpcmpeqw(t, t, cst(c_f16_mag));
                g_.vpand(t, t, cst(c_w_nan_flip));
                g_.vpxor(w[i], w[i], t);
            }
        }
        for (int i = 0; i < 2; ++i)
            g_.vextracti128(Xbyak::Xmm(w[2 + i].getIdx()), Xbyak::Ymm(w[i].getIdx()), 1);
    }
    /// f = minifloat_to_f32(dt, code) for the 8 words in the xmm w of a load_quad()
    /// register, exact.
    /// scaled_down: e4m3's value times 2^-8 is left as it is (the caller's scale holds 256).
    void quad_to_f32(const Vmm &f, const Xbyak::Xmm &w, bool scaled_down = false) {
        g_.vcvtph2ps(f, w);
        if (dt_ == data_type::f8_e4m3 && !scaled_down)
            g_.vmulps(f, f, cst(c_f16_scale)); // exact
    }
    /// e4m3's quad_to_f32(.., true) words times s * 256: one multiply fewer a vector, exact
    /// where s * 256 is (|s| < 2^120: the same real product rounds once either way).
    /// d = s * 256 (avx2 broadcast rows).
    void scale_up_quads(const Vmm &d, const Vmm &s) { g_.vmulps(d, s, cst(c_f16_scale)); }

    /// Whether encode_scaled_half() serves this type: e4m3 and e5m2.
    bool encodes_scaled_half() const {
        return dt_ == data_type::f8_e4m3 || dt_ == data_type::f8_e5m2;
    }
    /// Before emit_constants(): encode_scaled_half()'s x type, bf16 (the default) or f16.
    void set_scaled_half_source(data_type src) {
        assert(src == data_type::bf16 || src == data_type::f16);
        half_ = src;
    }
    /// encode_scaled_half()'s k for a quotient x * y, y = 2^(e - 127) a normal power of two
    /// with biased exponent e: (scaled_half_base() - e) << x's mantissa bits, usable where
    /// scaled_half_base() - e lies in [0, scaled_half_most()] (else the caller takes another
    /// path). The most keeps k a word and y above 2^(bias + man - 24) for x's bias and
    /// mantissa bits, so that x's smallest subnormal, 2^(1 - bias - man), times y is above
    /// 2^-150: every nonzero x has a nonzero f32 quotient, whose code keeps x's sign (bf16:
    /// 1/s >= 2^-16; below it every nonzero quotient is far below the type's normals).
    int scaled_half_base() const { return facts_of(half_).bias + 127 - f_.bias; }
    int scaled_half_most() const {
        const data_type_facts &x = facts_of(half_);
        return std::min(0x7fff >> x.man_bits, scaled_half_base() - (x.bias + x.man_bits - 23));
    }
    int scaled_half_man_bits() const { return facts_of(half_).man_bits; }
    /// The magnitude code an overflow encodes to (the sign is added after).
    uint32_t overflow_magnitude() const { return overflow_code(); }
    /// avx512 with AVX512_VBMI: the 64 codes of two encode_scaled_half() results, a (x 0-31)
    /// and b (32-63), as the bytes of t in order, by one vpermi2b; false (nothing emitted)
    /// without it, where the caller stores each with vpmovwb.
    bool join_half_codes(const Vmm &t, const Vmm &a, const Vmm &b) {
        if (!vbmi_) return false;
        g_.vmovdqu8(t, g_.ptr[g_.rip + l_half_order_ + 64]);
        g_.vpermi2b(t, a, b);
        return true;
    }
    /// The flags encode_scaled_half() sets: avx2 the bits of the vector acc, avx512 the
    /// opmask k7. Cleared before a run, tested after it (ZF clear: a lane
    /// was flagged).
    void clear_half_flags(const Vmm &acc) {
        if (avx512)
            g_.kxord(g_.k7, g_.k7, g_.k7);
        else
            g_.vpxor(acc, acc, acc);
    }
    void test_half_flags(const Vmm &acc) {
        if (avx512)
            g_.kortestd(g_.k7, g_.k7);
        else
            g_.vptest(acc, acc);
    }
    /// encodes_scaled_half() types: the codes of q = x * y + 0.f for the bf16 / f16 x in the
    /// words of w (16 on avx2, 32 on avx512), y a power of two given as k (words,
    /// scaled_half_base()), straight from x's bits: |x|'s pattern less k is q's in the
    /// code's exponent bias (7 or 15) with x's mantissa bits (7 or 10), which rounds to
    /// nearest even at the code's last mantissa bit in integers, a carry stepping the
    /// exponent, and clamps to the overflow code (saturating: the largest finite one; else
    /// e4m3fn's NaN, e5m2's Inf). Exact for every lane whose q is +-0 or at least the type's
    /// smallest normal and whose x is finite: a zero x gives a zero difference (the
    /// subtraction saturates at 0), hence +0 (-0 + 0.f is +0), and a nonzero q is x * y
    /// exactly.
    ///
    /// Lanes whose q is nonzero below the smallest normal (the difference below one unit of
    /// x's exponent field): avx512 encodes them too, from y (f32 lanes of y, the row's 1/s):
    /// |x| * y + 2^(emin - man + 23) in one FMA is |q| rounded to nearest even in units of the
    /// type's smallest subnormal, the unit of that sum's last bit, so the sum's low word is
    /// the code's magnitude (up to 2^man, the smallest normal's code, where it rounds up);
    /// the FMA rounds the exact product once, as the reference rounds q (an f32 subnormal q
    /// included: its code is 0 either way). Such a q keeps x's sign (-tiny + 0.f is -tiny):
    /// every nonzero x has a nonzero f32 quotient where k is within scaled_half_most(). avx2
    /// flags those lanes instead. Lanes of an Inf or NaN x set a flag (clear_half_flags()),
    /// and the caller encodes the whole run another way. code: a word per x, each 0..255
    /// (vpackuswb / vpmovwb keep them); w is clobbered; t and f are scratch; avx512 also
    /// acc, k4 and k5. avx2 17 instructions, avx512 20 and an opmask OR (per 32, bf16 x; f16
    /// x two more to widen it). avx512 with `below` false leaves those lanes
    /// to the integer rounding, which is exact for them where k is 0 (the quotient's pattern
    /// is x's, subnormals included): 14 instructions.
    void encode_scaled_half(const Vmm &code, const Vmm &w, const Vmm &k, const Vmm &y,
            const Vmm &acc, const Vmm &t, const Vmm &f, bool below = true) {
        assert(encodes_scaled_half());
        const int shift = hshift();
        if (avx512) {
            // No embedded broadcast for word instructions: their constants are whole
            // vectors (wcst()); the flags gather in k7, the sign in f under k5.
            const Xbyak::Opmask &m = g_.k5, &under = g_.k4;
            g_.vpandd(t, w, cst(c_h_abs));
            g_.vpsubusw(code, t, k); // 0 where |x| <= k
            g_.vpcmpgtw(m, t, wcst(w_h_finite)); // Inf, NaN
            g_.kord(g_.k7, g_.k7, m);
            g_.vptestmw(m, t, t); // the sign where x is nonzero
            g_.vpsrlw(f | m | Xbyak::util::T_z, w, 8);
            if (below) {
                g_.vpcmpuw(under, code, wcst(w_h_subnormal), 2); // q below the smallest normal
                below_normal_codes(acc, t, w, y);
            }
            round_half_code(code, t, shift);
            if (below) g_.vmovdqu16(code | under, acc);
            g_.vpternlogd(code, f, cst(c_h_sign), 0xf8); // code | (f & the sign at bit 7)
            return;
        }
        g_.vpand(t, w, cst(c_h_abs));
        g_.vpsubusw(code, t, k); // 0 where |x| <= k
        g_.vpsrlw(w, w, 8);
        g_.vpand(w, w, cst(c_h_sign)); // the sign at bit 7
        g_.vpcmpgtw(f, t, wcst(w_h_finite)); // Inf, NaN: 0xffff
        g_.vpor(acc, acc, f);
        g_.vpcmpgtw(f, code, wcst(w_h_subnormal)); // q at least the smallest normal
        g_.vpandn(f, f, t); // ... else |x|'s bits: nonzero for a nonzero x, below 0x8000
        g_.vpor(acc, acc, f);
        g_.vpminuw(w, w, code); // no sign on +-0 (a nonzero difference is 0x80 or more)
        round_half_code(code, t, shift);
        g_.vpor(code, code, w);
    }

    /// avx2: whether encode_scaled_half()'s flags in acc hold an Inf or NaN x (a word's bit
    /// 15: the flags of the quotients below the normals are |x|'s bits, below 0x8000), as the
    /// zero flag clear; uses eax. Chunks with only the others can take
    /// encode_scaled_half_all().
    void test_half_specials(const Vmm &acc) {
        assert(!avx512);
        g_.vpmovmskb(g_.eax, acc);
        g_.test(g_.eax, 0xaaaaaaaa);
    }

    /// avx2: encode_scaled_half()'s codes with the lanes below the smallest normal encoded
    /// too, as avx512's below_normal_codes() does (|x| widened exactly to f32, one FMA by y
    /// plus 2^(emin - man + 23) per 8, the sums' low words back in x's order by a shift and a
    /// vpblendw), merged over the integer rounding's codes where the difference is below the
    /// smallest normal's (vpblendvb); the sign wherever x is nonzero, since such a q keeps
    /// x's sign (-tiny + 0.f is -tiny). For words with no Inf or NaN (test_half_specials()).
    /// t, f and m are scratch; w is clobbered. 23 instructions per 16 (bf16 x; f16 x two
    /// more).
    void encode_scaled_half_all(const Vmm &code, const Vmm &w, const Vmm &k, const Vmm &y,
            const Vmm &t, const Vmm &f, const Vmm &m) {
        assert(!avx512 && encodes_scaled_half());
        g_.vpand(t, w, cst(c_h_abs));
        g_.vpsubusw(code, t, k); // 0 where |x| <= k
        g_.vpcmpeqw(f, t, cst(c_zero)); // +-0
        g_.vpsrlw(w, w, 8);
        g_.vpand(w, w, cst(c_h_sign)); // the sign at bit 7 ...
        g_.vpandn(w, f, w); // ... where x is nonzero
        g_.vpcmpgtw(m, code, wcst(w_h_subnormal)); // q at least the smallest normal
        const Vmm &lo = f, &hi = t; // |x|'s even and odd words as f32
        if (half_ == data_type::bf16) {
            g_.vpslld(lo, t, 16);
            g_.vpand(hi, t, cst(c_h_odd));
        } else {
            g_.vpslld(lo, t, 13);
            g_.vpand(lo, lo, cst(c_h_odd)); // 13 up
            g_.vpsrld(hi, t, 3);
            g_.vpand(hi, hi, cst(c_h_odd)); // 13 up
        }
        g_.vfmadd213ps(lo, y, cst(c_h_magic));
        g_.vfmadd213ps(hi, y, cst(c_h_magic));
        g_.vpslld(hi, hi, 16);
        g_.vpblendw(lo, lo, hi, 0xaa); // the sums' low words, in x's order
        round_half_code(code, t, hshift());
        g_.vpblendvb(code, lo, code, m);
        g_.vpor(code, code, w);
    }

    /// The constants encode() and decode() read: one vector each, after the code, where the
    /// caller puts data.
    void emit_constants() {
        const int man = f_.man_bits, emin = 1 - f_.bias;
        const int h_man = facts_of(half_).man_bits;
        const uint32_t sign_bit = 1u << (f_.bits - 1);
        const uint32_t rebias = static_cast<uint32_t>(127 - f_.bias) << 23;
        // The largest value as encode_f16() scales it.
        const double f16_max = dt_ == data_type::f8_e4m3 ? f_.max / 256 : f_.max;
        const float8_word_constants words = float8_words(dt_);
        const uint32_t values[c_count] = {
                /* c_abs */ 0x7fffffffu,
                /* c_sign */ 0x80000000u,
                /* c_one */ 1u,
                /* c_round */ (1u << (22 - man)) - 1u - rebias, // modulo 2^32
                /* c_sub_scale */ f32_bits(std::ldexp(1.f, man - emin)),
                /* c_min_normal */ f32_bits(std::ldexp(1.f, emin)),
                /* c_overflow */ overflow_code(),
                /* c_zero */ 0u,
                /* c_nan */ nan_code(),
                /* c_mag_mask */ sign_bit - 1,
                /* c_pow */ f32_bits(std::ldexp(1.f, 127 - f_.bias)),
                /* c_inf_code */ ((1u << f_.exp_bits) - 1) << man,
                /* c_f32_inf */ 0x7f800000u,
                /* c_f32_nan */ 0x7fc00000u,
                /* c_code_sign */ sign_bit,
                /* c_nan_keep */ 0xffc00000u,
                /* c_nan_payload */ 0x003fffffu,
                /* c_f16_keep */ 0xbf80bf80u,
                /* c_f16_mag */ 0x3f803f80u,
                /* c_f16_to_nan */ 0x3ff00000u ^ 0x7fc00000u, // bits(1.875) to the NaN's
                /* c_f16_scale */ 0x43800000u, // 256.f
                /* c_f16_down */ 0x3b800000u, // 2^-8
                /* c_f16_max */ f32_bits(static_cast<float>(f16_max)),
                /* c_f16_min */ f32_bits(static_cast<float>(-f16_max)),
                /* c_sticky_add */ 0x3ffffu,
                /* c_sticky_bit */ 0x40000u,
                /* c_word_one */ 0x00010001u,
                /* c_w_clamp_s */ words.clamp_s * 0x10001u,
                /* c_w_clamp_u */ words.clamp_u * 0x10001u,
                /* c_w_bias */ words.bias * 0x10001u,
                /* c_w_sign */ 0x80008000u,
                /* c_w_join */ 0x80018001u, // avx2 e4m3 (down_to_code()): bytes 1, -128
                /* c_w_half */ words.half * 0x10001u,
                /* c_check_add */ 4u,
                /* c_check_mask */ 0x7fff8u,
                /* c_w_nan_flip */ 0x41804180u, // 0x3f80 ^ 0x7e00: e4m3's NaN word to the quiet NaN's
                /* c_b_mag */ 0x7f7f7f7fu, // load_quad()'s e5m2 bytes: magnitude,
                /* c_b_inf */ 0x7c7c7c7cu, // Inf's magnitude,
                /* c_b_sign */ 0x80808080u, // the sign,
                /* c_b_nan */ 0x7e7e7e7eu, // the quiet NaN's magnitude
                // encode_scaled_half()'s words: |x|, the sign at bit 7 (its other words:
                // half_words below).
                /* c_h_abs */ 0x7fff7fffu,
                /* c_h_sign */ 0x00800080u,
                // below_normal_codes(): a word's bits where it lies in a dword as f32 (bf16:
                // the odd word; f16: either, shifted 13 up); the FMA's addend, whose last bit
                // is worth the type's smallest subnormal (f16: times 2^-112).
                /* c_h_odd */ half_ == data_type::bf16 ? 0xffff0000u : 0x0fffe000u,
                /* c_h_magic */ f32_bits(std::ldexp(
                        1.f, emin - man + 23 - (half_ == data_type::bf16 ? 0 : 112))),
        };
        g_.align(64);
        g_.L(l_consts_);
        for (uint32_t v : values)
            for (int i = 0; i < cbytes / 4; ++i) g_.dd(v);
        for (int i = 0; i < 64; ++i) g_.db(2 * i + 1); // pack_words(): the high bytes
        for (int e = 0; e < 64; ++e) { // set_up_unpacked_order(): where element e is
            const int m = e / 32, lane = e % 32 / 8, h = e % 8 / 4, i = e % 4;
            g_.db(64 * m + 2 * (16 * h + 4 * lane + i) + 1);
        }
        for (int q : {0, 2, 4, 6, 1, 3, 5, 7}) g_.db(q); // pack_words() without VBMI
        // encode_scaled_half()'s word constants, whole vectors (word instructions take no
        // embedded broadcast): the largest finite |x|, the largest difference below the
        // smallest normal code's (exponent field 1), half a unit less one, the overflow code.
        const uint16_t half_words[w_count] = {
                /* w_h_finite */ static_cast<uint16_t>(half_ == data_type::bf16 ? 0x7f7f : 0x7bff),
                /* w_h_subnormal */ static_cast<uint16_t>((1 << h_man) - 1),
                /* w_h_round */ static_cast<uint16_t>((1 << (h_man - man - 1)) - 1),
                /* w_h_overflow */ static_cast<uint16_t>(overflow_code()),
        };
        g_.align(64);
        g_.L(l_words_);
        for (uint16_t v : half_words)
            for (int i = 0; i < vbytes / 2; ++i) g_.dw(v);
        if (!avx512) return;
        // below_normal_codes()'s vpermi2w: word j of x from the low word of its f32 sum:
        // even words in the first table, odd ones in the second, the sum of words 2i and
        // 2i + 1 in dword i of each.
        g_.L(l_half_order_);
        for (int j = 0; j < 32; ++j) g_.dw(static_cast<uint16_t>(j % 2 ? 31 + j : j));
        // join_half_codes()'s vpermi2b: the low byte of each of 64 words, in order.
        for (int j = 0; j < 64; ++j) g_.db(2 * j);
    }

    /// avx512: encode_scaled_half()'s codes of the words at x whose quotient lies below the
    /// smallest normal (below_normal_codes()), every lane computed so, into acc; t and w are
    /// scratch. The byte planes' steps with such lanes (jit_float8_planes.hpp) take them.
    void below_normal_words(
            const Vmm &acc, const Vmm &t, const Vmm &w, const Vmm &y, const Xbyak::Address &x) {
        assert(avx512);
        g_.vmovdqu16(t, x);
        g_.vpandd(t, t, cst(c_h_abs));
        below_normal_codes(acc, t, w, y);
    }

private:
    /// avx512 encode_scaled_half()'s codes of the lanes below the smallest normal, into acc:
    /// |x| (the words of t, even ones and odd ones) widened exactly to f32, times y plus
    /// 2^(emin - man + 23) in one FMA, the sums' low words put back in x's order by one
    /// vpermi2w. bf16's bits are the top half of its f32. An f16 word shifted up 13 is, as
    /// f32 bits, |x| * 2^-112 exactly (f16's subnormals f32 subnormals), and the addend is
    /// 2^-112 times the bf16 one: the FMA's sum is 2^-112 times that sum, rounded the same
    /// way (every such sum is a normal f32), and the same low word. t and w are clobbered.
    void below_normal_codes(const Vmm &acc, const Vmm &t, const Vmm &w, const Vmm &y) {
        const Xbyak::Zmm a(acc.getIdx()), lo(w.getIdx()), hi(t.getIdx());
        if (half_ == data_type::bf16) {
            g_.vpslld(lo, hi, 16); // even words
            g_.vpandd(hi, hi, cst(c_h_odd)); // odd words
        } else {
            g_.vpslld(lo, hi, 13);
            g_.vpandd(lo, lo, cst(c_h_odd)); // even words, 13 up
            g_.vpsrld(hi, hi, 3);
            g_.vpandd(hi, hi, cst(c_h_odd)); // odd words, 13 up
        }
        g_.vfmadd213ps(lo, Xbyak::Zmm(y.getIdx()), cst(c_h_magic));
        g_.vfmadd213ps(hi, Xbyak::Zmm(y.getIdx()), cst(c_h_magic));
        g_.vmovdqu16(a, g_.ptr[g_.rip + l_half_order_]);
        g_.vpermi2w(a, lo, hi);
    }

    /// encode_scaled_half()'s rounding bit: x's mantissa bits less the code's.
    int hshift() const { return facts_of(half_).man_bits - f_.man_bits; }

    /// encode_scaled_half()'s difference in code to the code's magnitude: rounded to
    /// nearest even at bit `shift`, then clamped to the overflow code. t is scratch.
    void round_half_code(const Vmm &code, const Vmm &t, int shift) {
        g_.vpsrlw(t, code, shift);
        if (avx512)
            g_.vpandd(t, t, cst(c_word_one));
        else
            g_.vpand(t, t, cst(c_word_one));
        g_.vpaddw(code, code, t);
        g_.vpaddw(code, code, wcst(w_h_round));
        g_.vpsrlw(code, code, shift);
        g_.vpminsw(code, code, wcst(w_h_overflow));
    }

    /// encode_f16() after the + 0.f: v in q to its f16 words in h.
    void to_f16(const Xbyak::Ymm &h, const Vmm &q, const Vmm &t) {
        // Saturating: -max <= v <= max, NaN kept (vminps and vmaxps return their second
        // source, v, when either is NaN); not saturating, encode_words() sends every
        // overflow to the overflow code.
        if (saturate_) {
            g_.vminps(q, wc_[4], q);
            g_.vmaxps(q, wc_[5], q);
        }
        g_.vpaddd(t, q, cst(c_sticky_add));
        if (avx512) {
            g_.vpternlogd(q, t, cst(c_sticky_bit), 0xf8); // q | (t & bit 18)
            g_.vcvtps2ph(h, q, 3); // toward zero
            return;
        }
        g_.vpand(t, t, cst(c_sticky_bit));
        g_.vpor(q, q, t);
        g_.vcvtps2ph(Xbyak::Xmm(h.getIdx()), q, 3); // toward zero
    }

    /// avx2's packs: the encode_words() results a and b (possibly one register) to their
    /// codes as signed words, -128..127, which vpacksswb keeps as they are. e5m2: the high
    /// byte, sign-extended. e4m3: bit 14 is 0 (the magnitude is at most 0x3f80 before the
    /// rounding's 0x40), so the word shifted down 7 holds the sign s in bit 8 and the
    /// magnitude m in bits 7..0 (m < 128): its bytes, unsigned, times 1 and -128 and summed
    /// (vpmaddubsw, exact) give m - 128 s, the code's byte as a signed number.
    void down_to_code(const Xbyak::Xmm &a, const Xbyak::Xmm &b) {
        const auto down = [&](const Xbyak::Xmm &w) {
            if (dt_ == data_type::f8_e4m3) {
                g_.vpsrlw(w, w, 7);
                g_.vpmaddubsw(w, w, cst(c_w_join));
            } else {
                g_.vpsraw(w, w, 8);
            }
        };
        down(a);
        if (b.getIdx() != a.getIdx()) down(b);
    }

    enum constant {
        c_abs, c_sign, c_one, c_round, c_sub_scale, c_min_normal, c_overflow, c_zero, c_nan,
        c_mag_mask, c_pow, c_inf_code, c_f32_inf, c_f32_nan, c_code_sign, c_nan_keep,
        c_nan_payload, c_f16_keep, c_f16_mag, c_f16_to_nan, c_f16_scale, c_f16_down,
        c_f16_max, c_f16_min, c_sticky_add, c_sticky_bit, c_word_one, c_w_clamp_s, c_w_clamp_u,
        c_w_bias, c_w_sign, c_w_join, c_w_half, c_check_add, c_check_mask, c_w_nan_flip,
        c_b_mag, c_b_inf, c_b_sign, c_b_nan, c_h_abs, c_h_sign, c_h_odd, c_h_magic, c_count
    };
    enum word_constant { w_h_finite, w_h_subnormal, w_h_round, w_h_overflow, w_count };

    jit_generator &g_;
    const data_type dt_;
    const data_type_facts &f_;
    const bool saturate_;
    const bool vbmi_;
    data_type half_ = data_type::bf16; // encode_scaled_half()'s x
    Xbyak::Label l_consts_;
    Xbyak::Label l_words_; // the word_constant vectors
    Xbyak::Label l_half_order_; // avx512: below_normal_codes()'s and join_half_codes()'s indices
    Vmm wc_[6]; // set_up_words(): clamp_s, clamp_u, bias, zero, (saturating) max, -max
    Vmm w_half_; // set_up_words(regs, true): half of bit k, per word (encode_words(half_up))
    Vmm high_bytes_; // set_up_words(): the high bytes of the words, in order
    Vmm group_order_; // pack_words()'s byte indices: high_bytes_ or the unpacked order

    // avx512 reads each constant as one dword broadcast to every lane ({1to16}): the
    // conversions read a constant in most of their instructions, and a zmm load takes twice
    // the load width of a dword one on Zen 4 (the encode ran 7% faster so, in L1). avx2 has
    // no embedded broadcast: a vector per constant.
    static constexpr int cbytes = avx512 ? 4 : vbytes;
    Xbyak::Address cst(constant c) {
        const auto at = g_.rip + l_consts_ + c * cbytes;
        return avx512 ? g_.ptr_b[at] : g_.ptr[at];
    }
    Xbyak::Address wcst(word_constant c) { return g_.ptr[g_.rip + l_words_ + c * vbytes]; }

    /// The magnitude code of an overflow (the sign is added after): the largest finite value
    /// when saturating, else Inf (e5m2) or NaN (e4m3fn, fnuz).
    uint32_t overflow_code() const {
        if (saturate_) return f32_to_code_max();
        if (f_.style == float_style::ieee) return ((1u << f_.exp_bits) - 1) << f_.man_bits;
        return nan_code();
    }
    /// The magnitude code of the largest finite value.
    uint32_t f32_to_code_max() const {
        const int e = std::ilogb(f_.max);
        const uint32_t m = static_cast<uint32_t>(std::ldexp(f_.max, f_.man_bits - e))
                & ((1u << f_.man_bits) - 1);
        return (static_cast<uint32_t>(e + f_.bias) << f_.man_bits) | m;
    }
    /// The NaN's code (e5m2: the quiet pattern 0x7E; e4m3fn 0x7F; fnuz 0x80) without a sign;
    /// float4 has no NaN and encodes one as +max.
    uint32_t nan_code() const {
        switch (f_.style) {
            case float_style::ieee:
                return (((1u << f_.exp_bits) - 1) << f_.man_bits) | (1u << (f_.man_bits - 1));
            case float_style::fn: return (1u << (f_.bits - 1)) - 1;
            case float_style::fnuz: return 1u << (f_.bits - 1);
            default: return f32_to_code_max();
        }
    }

    /// code = q's NaN lanes replaced by the type's NaN code (magnitude; the sign is the
    /// caller's).
    void nan_to_code(const Vmm &code, const Vmm &q, const Vmm &m) {
        cmp_ps(m, q, q, 3); // unordered
        blend(code, m, c_nan);
    }
    void and_d(const Vmm &d, const Vmm &a, const Xbyak::Operand &b) {
        if (avx512)
            g_.vpandd(d, a, b);
        else
            g_.vpand(d, a, b);
    }

    // Masks: avx512 k4 (m unused); avx2 the vector m. blend(d, m, s): d = m ? s : d.
    void cmp_ps(const Vmm &m, const Vmm &a, const Xbyak::Operand &b, int pred) {
        if (avx512)
            g_.vcmpps(g_.k4, a, b, pred);
        else
            g_.vcmpps(m, a, b, pred);
    }
    void cmp_eq_d(const Vmm &m, const Vmm &a, const Xbyak::Operand &b) {
        if (avx512)
            g_.vpcmpeqd(g_.k4, a, b);
        else
            g_.vpcmpeqd(m, a, b);
    }
    void cmp_gt_d(const Vmm &m, const Vmm &a, const Xbyak::Operand &b) {
        if (avx512)
            g_.vpcmpgtd(g_.k4, a, b);
        else
            g_.vpcmpgtd(m, a, b);
    }
    void blend(const Vmm &d, const Vmm &m, const Vmm &s) {
        if (avx512)
            g_.vmovaps(d | g_.k4, s);
        else
            g_.vblendvps(d, d, s, m);
    }
    void blend(const Vmm &d, const Vmm &m, constant c) {
        if (avx512)
            g_.vbroadcastss(d | g_.k4, g_.ptr[g_.rip + l_consts_ + c * cbytes]);
        else
            g_.vblendvps(d, d, cst(c), m);
    }
    /// d = 0 in the lanes where `code` is 0, else d.
    void keep_where_nonzero(const Vmm &d, const Vmm &code, const Vmm &m) {
        if (avx512) {
            g_.vpcmpd(g_.k4, code, cst(c_zero), 4); // not equal
            g_.vmovaps(d | g_.k4 | Xbyak::util::T_z, d);
        } else {
            g_.vpcmpeqd(m, code, cst(c_zero));
            g_.vandnps(d, m, d);
        }
    }
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
