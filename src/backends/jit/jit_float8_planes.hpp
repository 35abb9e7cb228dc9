#ifndef QGRAPH_BACKENDS_JIT_JIT_FLOAT8_PLANES_HPP
#define QGRAPH_BACKENDS_JIT_JIT_FLOAT8_PLANES_HPP

// bf16 x times a power of two y into e4m3 / e5m2 codes by byte planes, 64 codes a step
// (avx512 with AVX512_VBMI): the FP8 cast and the other power-of-two scales per tensor.
//
// float8_emitter::encode_scaled_half() rounds t = |x| - k in words, k being y's exponent step
// (scaled_half_k()): t's exponent field E is the quotient's in the code's bias, and the code's
// magnitude is t >> d rounded to nearest even, d = 7 - man (bf16 has 7 mantissa bits, the code
// man). That splits over x's two bytes, hi (the sign, exponent bits 7..1) and lo (exponent
// bit 0, the mantissa m):
//
//     t >> d = T[hi & 0x7f] + 2^man * (lo >> 7) + (m >> d),   T[h] = ((h << 8) - k) >> d,
//
// and the rounding's increment depends on m alone (its lowest kept bit, bit d, is m's: d <= 5),
// so the magnitude is A + R[m], A = T[h] + 2^man * (lo >> 7) = 2^man * E, R[m] = (m >> d)
// rounded. T (built per run from k) and R (a constant) are 128-byte vpermi2b tables of two
// registers each; vpermi2b's 7-bit index ignores hi's sign and lo's exponent bit by itself, and
// one vpermi2b per plane splits x's 64 words into hi and lo.
//
// The bytes hold A' = A + off, off = 2^man (man + 2), T clamped to [0, sat] (every A' of a
// finite x below the largest binade is a multiple of 2^man, and no byte sum wraps):
// - E >= 1 (A' > off): the quotient is normal in the code, whose magnitude is
//   min(A' + R[m], off + the overflow code) - off;
// - E in [-man, 0] (A' in [2^(man + 1), off]): below the smallest normal, where the code rounds
//   at the smallest subnormal instead: the caller takes those lanes from encode_scaled_half()'s
//   FMA per 16 (merge_below());
// - E below that (A' < 2^(man + 1), a T clamped at 0 included): the magnitude is 0, which
//   max(A' + R[m], off) - off gives;
// - hi & 0x7f = 0x7f (x's exponent 254 or 255: the largest binade, Inf and NaN) is marked by
//   T = 2^(man + 1) + 1, inside the window of the lanes below the normals (one compare finds
//   both) with low bits no other A' has: the caller encodes such a step another way.
// The sign is x's where x is nonzero (a zero x gives +0, as -0 + 0.f is +0).
//
// 16 vector instructions per 64 codes, three of them compares (besides three loads, one
// register copy and the store), where no lane lies below the normals; 14 more for a
// step with such lanes. encode_scaled_half() takes 40 and two opmask ORs for every step, six
// of them compares.
//
// f16 x into e4m3 (d = 7): T's entries carry the mantissa's top two bits too, the low byte's
// bit 7 is the code's lowest, and the rounding reads the whole low byte, so R is indexed by
// the byte shifted down one with bit 0 folded into bit 1 (the kept bit, the rounding bit,
// whether anything below is set) and holds the increment; the window is 2^man - 1 wider, and
// the marks (f16's exponent 31) are found from x's words (jump_if_marked()).
//
// Any scale (any_scale, jit_float8_planes_table.hpp): for a scale s = 2^e * s1 that is not a
// power of two, the code is A + C[m] with C (the reference's codes of the quotients of
// (1 + m / 128) * 2^e, less (bias * 2^man)) in [-2^man, 2^man]: the quotient's ratio to 2^(ex -
// 127 - e) lies in (1/2, 2), below 1 one binade down, at 2 one up. The driver's R is C + 2^man,
// so A' is T of k one exponent step more (E - 1 in A's place), off 2^man (man + 3), and the
// window [2^(man + 1), off] holds E in [-man, 1], the binades whose code may lie below the
// normals. The caller encodes a step with a lane in the window, or a marked one, another
// way; sat leaves room for R's 2^(man + 1).
//
// f16 x, any scale (into e4m3 or e5m2): the mantissa has 10 bits, so C is a table of 1024
// entries, which the planes take as two of 128 indexed by m >> 3 (the low byte of the word
// shifted down three: jit_float8_planes_table.hpp): C[m] = R[m >> 3] + ((m & 7) >= th[m >>
// 3]). T is built from the high byte's exponent bits alone (its two mantissa bits are R's),
// T[ex = 0] is 0 (x = +-0 gives +0; a nonzero subnormal x, whose quotient may round to a
// nonzero code, is flagged with the window's lanes: exponent bits 0, a mantissa bit set) and
// T[ex = 31] the mark. 27 vector instructions a step, the three tables in six registers
// (encode_f16_any()).

#include <cassert>
#include <cstddef>
#include <cstdint>

#include "backends/jit/jit_float8_planes_table.hpp"
#include "backends/jit/jit_generator.hpp"
#include "qgraph/data_type_table.hpp"

namespace qgraph {
namespace impl {
namespace jit {

class float8_byte_planes {
    using Zmm = Xbyak::Zmm;
    using Ymm = Xbyak::Ymm;

public:
    /// The codes served from bf16 x (its words; f32 pairs round to them), and from f16 x:
    /// e4m3 only (e5m2's rounding reads a bit of the high byte too).
    static bool serves(data_type src, data_type dst) {
        if (src == data_type::f16) return dst == data_type::f8_e4m3;
        return dst == data_type::f8_e4m3 || dst == data_type::f8_e5m2;
    }
    /// The same for any scale (the driver's float8_planes_table): bf16 and f16 x into both.
    static bool serves_any(data_type src, data_type dst) {
        return (src == data_type::bf16 || src == data_type::f16)
                && (dst == data_type::f8_e4m3 || dst == data_type::f8_e5m2);
    }

    /// T's two registers, then R's; th's (f16 x, any scale).
    struct tables {
        Zmm t0, t1, r0, r1;
        Zmm th0 = Zmm(0), th1 = Zmm(0);
    };

    /// src: x's words, bf16 or f16 (serves()). overflow: the magnitude code of an overflow
    /// (float8_emitter::overflow_magnitude()). any_scale (bf16): R is the driver's
    /// (float8_planes_table), for a scale that is not a power of two; else the rounded
    /// mantissas of a power-of-two scale.
    float8_byte_planes(
            jit_generator &g, data_type src, data_type dst, uint32_t overflow, bool any_scale)
        : g_(g)
        , man_(facts_of(dst).man_bits)
        , bias_(facts_of(dst).bias)
        , f16_(src == data_type::f16)
        , d_((f16_ ? 10 : 7) - man_)
        , overflow_(overflow)
        , any_(any_scale) {
        assert(any_ ? serves_any(src, dst) : serves(src, dst));
    }

    /// T and R into tb for the word k in reg k32 (kept); tmp32 and z are scratch, and k2.
    /// any_scale: R from the float8_planes_table at `table` (else unread).
    void build_tables(const tables &tb, const Xbyak::Reg32 &k32, const Xbyak::Reg32 &tmp32,
            const Zmm &z, const Xbyak::Reg64 &table = Xbyak::Reg64()) {
        // T + off in words: ((h << 8) - (k - (off << d))) >> d, clamped to [0, sat], as bytes.
        g_.mov(tmp32, k32);
        g_.sub(tmp32, off() << d_);
        // f16, any scale: in units of 4, ex << 8 less k / 4 (k a multiple of 2^10), whose
        // differences stay far inside a word for every scale the table takes (ex << 10 less
        // k would pass 2^15 for e5m2, which saturating to 2^15 - 1 would misplace).
        if (f16_any()) g_.sar(tmp32, 2);
        g_.vpbroadcastw(z, tmp32.cvt16());
        const Zmm w[4] = {tb.r0, tb.r1, tb.t0, tb.t1}; // words 0-31, 32-63, 64-95, 96-127
        const int shifted = f16_any() ? c_shifted_ex : c_shifted_h;
        for (int i = 0; i < 4; ++i) {
            g_.vmovdqu16(w[i], cst(shifted + i));
            g_.vpsubsw(w[i], w[i], z); // saturating: 1/s up to 2^120 (k near 0)
            g_.vpsraw(w[i], w[i], f16_any() ? d_ - 2 : d_);
            g_.vpmaxsw(w[i], w[i], cst(c_zero));
            g_.vpminsw(w[i], w[i], cst(c_sat_words));
            g_.vpmovwb(Ymm(w[i].getIdx()), w[i]);
        }
        g_.vinserti64x4(tb.t1, tb.t0, Ymm(tb.t1.getIdx()), 1);
        g_.vinserti64x4(tb.t0, tb.r0, Ymm(tb.r1.getIdx()), 1);
        // The mark: bf16 h = 0x7f, f16 h from 0x7c (its exponent 31).
        g_.mov(tmp32, f16_ ? 0xf : 1);
        g_.kmovd(g_.k2, tmp32);
        g_.kshiftlq(g_.k2, g_.k2, f16_ ? 60 : 63);
        g_.vmovdqu8(tb.t1 | g_.k2, cst(c_mark));
        if (f16_any()) { // T[ex = 0] = 0: h = 0..3
            g_.mov(tmp32, 0xf);
            g_.kmovq(g_.k2, tmp32.cvt64());
            g_.vmovdqu8(tb.t0 | g_.k2, cst(c_zero));
            g_.vmovdqu8(tb.th0, g_.ptr[table + offsetof(float8_planes_table, th)]);
            g_.vmovdqu8(tb.th1, g_.ptr[table + offsetof(float8_planes_table, th) + 64]);
        }
        if (any_) {
            g_.vmovdqu8(tb.r0, g_.ptr[table + offsetof(float8_planes_table, r)]);
            g_.vmovdqu8(tb.r1, g_.ptr[table + offsetof(float8_planes_table, r) + 64]);
            return;
        }
        g_.vmovdqu8(tb.r0, cst(c_r));
        g_.vmovdqu8(tb.r1, cst(c_r_hi));
    }

    /// The constants encode() keeps in registers (Zen 4 loads one 64-byte operand a cycle).
    struct constants {
        Zmm lo_index, hi_index, negative, off, window_base, window_width;
    };
    void load_constants(const constants &c) {
        g_.vmovdqu8(c.lo_index, cst(c_lo_index));
        g_.vmovdqu8(c.hi_index, cst(c_hi_index));
        g_.vmovdqu8(c.negative, cst(c_negative));
        g_.vmovdqu8(c.off, cst(c_off));
        g_.vmovdqu8(c.window_base, cst(c_window_base));
        g_.vmovdqu8(c.window_width, cst(c_window_width));
    }

    /// The magnitudes of the 64 x at x0 (words 0-31) and x1 (32-63) into code, A' into a (the
    /// marks' test); hi, lo and w1 are scratch. k3: x negative and nonzero (apply_sign()'s);
    /// k5: the lanes below the normals and the marked ones (jump_if_flagged()). Zen 4 runs
    /// compares and mask moves (and byte saturation) on one pair of its pipes, and register
    /// copies take a slot as other instructions do: there are three compares and one copy, and
    /// no byte sum wraps (A' is at most sat + 2^man, the sum 2^man more).
    void encode(const tables &tb, const constants &c, const Zmm &code, const Zmm &hi,
            const Zmm &lo, const Zmm &a, const Zmm &w1, const Xbyak::Address &x0,
            const Xbyak::Address &x1) {
        g_.vmovdqu16(hi, x0);
        g_.vmovdqu16(w1, x1);
        g_.vmovdqu16(lo, x0);
        signs(c, hi, w1);
        encode_words(tb, c, code, hi, lo, a, w1);
    }

    /// Blocked rows of 32 (MXFP8), two a step, each with its own k (pair_k_min() at least):
    /// the words w0 (row 0) and w1 (row 1) of x into those of max(|x| + B - k, 0), B =
    /// pair_k_min(), in place, the sign into k3 as encode() sets it, and k6 nonzero where an
    /// x is NaN (one compare of the rows' maximum: such a step is encoded another way); k0
    /// and k1 are the rows' k - B as words in memory, kw scratch. Where T is built for k = B
    /// (build_tables()), encode_words() of those words encodes the rows as encode() would
    /// with each row's k: |x| + B - k is t plus B, and T of B takes the B off again; a t
    /// below zero (a quotient far below the smallest subnormal) saturates to the zero code.
    /// Only a NaN x needs marking here: Inf and the largest binade saturate as their
    /// quotients do.
    void pair_words(const constants &c, const Zmm &w0, const Zmm &w1, const Zmm &kw,
            const Xbyak::Address &k0, const Xbyak::Address &k1) {
        signs(c, w0, w1);
        g_.vpandd(w0, w0, bcst(c_abs));
        g_.vpandd(w1, w1, bcst(c_abs));
        g_.vpmaxuw(kw, w0, w1);
        g_.vpcmpuw(g_.k6, kw, cst(f16_ ? c_f16_inf : c_inf), 6); // > Inf: NaN
        const Zmm w[2] = {w0, w1};
        const Xbyak::Address k[2] = {k0, k1};
        for (int r = 0; r < 2; ++r) {
            g_.vpbroadcastw(kw, k[r]);
            g_.vpsubusw(w[r], w[r], kw); // max(|x| - (k - B), 0)
        }
    }
    /// pair_words()'s B: off << d (bf16: 2^7 (man + 2)), where T is 2h and its clamp at 0
    /// takes every t below zero.
    int pair_k_min() const { return off() << d_; }

    /// f32 quotients to bf16 words for the planes of scale 1 (T of k_one()): q[0..3] hold
    /// elements 0-15, 16-31, 32-47 and 48-63; q[0] becomes the words of 0-31 and q[2] those
    /// of 32-63, each f32 rounded to odd at bf16 (its top half, the lowest bit set where a bit
    /// below was). A float8 code has at most 4 significant bits and bf16 8, so rounding the
    /// word to the code is rounding the f32 to it; a nonzero f32 keeps a nonzero word (its
    /// sign, where the code is a zero) and NaN stays NaN. t is scratch.
    void odd_words(const Zmm *q, const Zmm &t) {
        for (int i = 0; i < 4; ++i) {
            g_.vpaddd(t, q[i], bcst(c_low_ones)); // bit 16 flips where bits 15..0 are not 0
            g_.vpternlogd(q[i], t, bcst(c_bit16), 0xf8); // q | (t & bit 16)
        }
        g_.vmovdqu16(t, cst(c_high_words));
        g_.vpermt2w(q[0], t, q[1]);
        g_.vpermt2w(q[2], t, q[3]);
    }
    /// T's k for x = the quotient itself (scale 1): (bias_bf16 - bias) << 7.
    int k_one() const { return (127 - bias_) << 7; }

    /// encode() of words already loaded: hi and lo both words 0-31, w1 words 32-63; k3 the
    /// signs (signs()).
    void encode_words(const tables &tb, const constants &c, const Zmm &code, const Zmm &hi,
            const Zmm &lo, const Zmm &a, const Zmm &w1) {
        g_.vpermt2b(hi, c.hi_index, w1);
        g_.vpermt2b(lo, c.lo_index, w1);
        g_.vmovdqa64(a, hi);
        g_.vpermi2b(a, tb.t0, tb.t1); // T[h]
        g_.vpsrlw(code, lo, d_); // lo's bit 7 at bit 7 - d of its byte
        g_.vpandd(code, code, bcst(c_lo_weight));
        g_.vpaddb(a, a, code); // A'
        g_.vpsubb(code, a, c.window_base);
        g_.vpcmpub(g_.k5, code, c.window_width, 2); // <=: below the normals, or marked
        if (f16_) {
            // R's index: lo >> 1 with bit 0 the OR of lo's bits 1 and 0 (bit 6 the lowest
            // bit kept, 5 the rounding bit, 4..0 whether anything below it is set).
            g_.vpaddb(code, lo, lo);
            g_.vpternlogd(lo, code, bcst(c_two), 0xf8); // lo | ((lo << 1) & 2)
            g_.vpsrlw(lo, lo, 1); // the neighbour's bit lands in bit 7, which the index ignores
        }
        g_.vpermi2b(lo, tb.r0, tb.r1); // R[m]
        g_.vpaddb(lo, lo, a);
        g_.vpmaxub(lo, lo, c.off); // off where the magnitude rounds to 0
        g_.vpminub(lo, lo, cst(c_off_overflow));
        g_.vpsubb(code, lo, c.off);
    }

    /// encode_f16_any()'s two constants in registers.
    void load_indices(const Zmm &lo_index, const Zmm &hi_index) {
        g_.vmovdqu8(lo_index, cst(c_lo_index));
        g_.vmovdqu8(hi_index, cst(c_hi_index));
    }

    /// f16 x, any scale: the registers of encode_f16_any() besides its tables.
    struct f16_any_registers {
        Zmm code, hi, lo, a, w1, s0, s1, lo_index, hi_index;
    };
    /// The magnitudes of the 64 f16 x at x0 (words 0-31) and x1 (32-63) into r.code; k3 their
    /// signs (signs()'s), k5 the lanes the caller encodes another way (in the window, marked,
    /// or a nonzero subnormal x); k2 and k6 scratch. The constants but the byte indices are
    /// read from memory (the tables take two registers more than encode()'s).
    void encode_f16_any(const tables &tb, const f16_any_registers &r, const Xbyak::Address &x0,
            const Xbyak::Address &x1) {
        assert(f16_any());
        g_.vmovdqu16(r.hi, x0);
        g_.vmovdqu16(r.w1, x1);
        g_.vpcmpuw(g_.k3, r.hi, cst(c_negative), 6); // > 0x8000: negative, not -0
        g_.vpcmpuw(g_.k2, r.w1, cst(c_negative), 6);
        g_.kunpckdq(g_.k3, g_.k2, g_.k3);
        g_.vpsrlw(r.s0, r.hi, 3); // m >> 3 in the low byte (its bit 7, ex's lowest, unread)
        g_.vpsrlw(r.s1, r.w1, 3);
        g_.vmovdqa64(r.lo, r.hi);
        g_.vpermt2b(r.hi, r.hi_index, r.w1);
        g_.vpermt2b(r.lo, r.lo_index, r.w1);
        g_.vpermt2b(r.s0, r.lo_index, r.s1); // R's and th's index
        g_.vmovdqa64(r.a, r.hi);
        g_.vpermi2b(r.a, tb.t0, tb.t1); // A' = T[h]
        g_.vpsubb(r.code, r.a, cst(c_window_base));
        g_.vpcmpub(g_.k5, r.code, cst(c_window_width), 2); // <=: below the normals, or marked
        // Nonzero subnormal x: exponent bits 0, a mantissa bit set.
        g_.vptestnmb(g_.k6, r.hi, cst(c_f16_exp));
        g_.vpandd(r.code, r.hi, bcst(c_three));
        g_.vpord(r.code, r.code, r.lo);
        g_.vptestmb(g_.k6 | g_.k6, r.code, r.code);
        g_.korq(g_.k5, g_.k5, g_.k6);
        g_.vmovdqa64(r.code, r.s0);
        g_.vpermi2b(r.code, tb.r0, tb.r1); // R[m >> 3]
        g_.vpermi2b(r.s0, tb.th0, tb.th1); // th[m >> 3]
        g_.vpandd(r.lo, r.lo, bcst(c_seven)); // m & 7
        g_.vpcmpub(g_.k6, r.lo, r.s0, 5); // m & 7 >= th
        g_.vpaddb(r.code, r.code, r.a);
        g_.vpaddb(r.code | g_.k6, r.code, cst(c_one));
        g_.vpmaxub(r.code, r.code, cst(c_off)); // off where the magnitude rounds to 0
        g_.vpminub(r.code, r.code, cst(c_off_overflow));
        g_.vpsubb(r.code, r.code, cst(c_off));
    }

    /// k3: x negative and nonzero, for the 64 words x0 (0-31) and x1 (32-63); uses k2.
    void signs(const constants &c, const Zmm &x0, const Zmm &x1) {
        g_.vpcmpuw(g_.k3, x0, c.negative, 6); // > 0x8000: negative, not -0
        g_.vpcmpuw(g_.k2, x1, c.negative, 6);
        g_.kunpckdq(g_.k3, g_.k2, g_.k3);
    }

    /// After encode(): to `flagged` where a lane lies below the normals or is marked.
    void jump_if_flagged(const Xbyak::Label &flagged) {
        g_.kortestq(g_.k5, g_.k5);
        g_.jnz(flagged, jit_generator::T_NEAR);
    }
    /// At `flagged`: to `marked` where a lane is marked (else they all lie below): bf16 from
    /// a (encode()'s A', kept: the caller's a) into k4; f16 (whose A' has mantissa bits) from
    /// x's 64 words at x0 and x1 themselves, Inf or NaN, t0 and t1 scratch.
    void jump_if_marked(const Zmm &a, const Xbyak::Address &x0, const Xbyak::Address &x1,
            const Zmm &t0, const Zmm &t1, const Xbyak::Label &marked) {
        if (f16_) {
            g_.vmovdqu16(t0, x0);
            g_.vmovdqu16(t1, x1);
            g_.vpandd(t0, t0, bcst(c_abs));
            g_.vpandd(t1, t1, bcst(c_abs));
            g_.vpmaxuw(t0, t0, t1);
            g_.vpcmpuw(g_.k4, t0, cst(c_f16_inf), 5); // >= 0x7c00: Inf or NaN
        } else {
            g_.vptestmb(g_.k4, a, cst(c_low_bits));
        }
        g_.kortestq(g_.k4, g_.k4);
        g_.jnz(marked, jit_generator::T_NEAR);
    }

    /// encode()'s lanes below the normals (k5) from codes: the word encode's, which computes
    /// them by one FMA per 16 (float8_emitter::below_normal_words(), join_half_codes()).
    void merge_below(const Zmm &code, const Zmm &codes) { g_.vmovdqu8(code | g_.k5, codes); }

    /// The sign bit into code where x is negative and nonzero (encode()'s k3).
    void apply_sign(const Zmm &code) { g_.vpaddb(code | g_.k3, code, cst(c_sign)); }

    /// The constants, 64 bytes each, after the code.
    void emit_constants() {
        const int step = 1 << man_;
        const auto bytes = [&](auto f) {
            for (int j = 0; j < 64; ++j) g_.db(static_cast<uint8_t>(f(j)));
        };
        const auto fill = [&](uint8_t v) { bytes([v](int) { return v; }); };
        const auto dwords = [&](uint32_t v) {
            for (int j = 0; j < 16; ++j) g_.dd(v);
        };
        g_.align(64);
        g_.L(l_);
        bytes([](int j) { return 2 * j; }); // c_lo_index
        bytes([](int j) { return 2 * j + 1; }); // c_hi_index
        for (int m = 0; m < 128; ++m) g_.db(static_cast<uint8_t>(rounded(m))); // c_r, c_r_hi
        // c_lo_weight: encode_words()' (d <= 7); f16 into e5m2 (d = 8, any scale only) reads
        // none.
        fill(static_cast<uint8_t>(d_ <= 7 ? 1 << (7 - d_) : 0));
        fill(static_cast<uint8_t>(step - 1)); // c_low_bits
        fill(static_cast<uint8_t>(2 * step)); // c_window_base
        // f16: A' has the mantissa's high bits, up to 2^man - 1 over 2^man E + off.
        const int wider = f16_ && !any_ ? step - 1 : 0;
        fill(static_cast<uint8_t>(off() - 2 * step + wider)); // c_window_width
        fill(static_cast<uint8_t>(off())); // c_off
        fill(static_cast<uint8_t>(off() + overflow_)); // c_off_overflow
        dwords(0x80008000u); // c_negative
        fill(0x80); // c_sign
        dwords(0); // c_zero
        dwords(sat() * 0x10001u); // c_sat_words
        fill(static_cast<uint8_t>(mark())); // c_mark
        for (int h = 0; h < 128; ++h) g_.dw(static_cast<uint16_t>(h << 8)); // c_shifted_h
        dwords(0x7fff7fffu); // c_abs
        dwords(0x7f807f80u); // c_inf
        dwords(0x7c007c00u); // c_f16_inf
        fill(2); // c_two
        dwords(0xffffu); // c_low_ones
        dwords(0x10000u); // c_bit16
        for (int j = 0; j < 32; ++j) g_.dw(static_cast<uint16_t>(2 * j + 1)); // c_high_words
        for (int h = 0; h < 128; ++h) // c_shifted_ex
            g_.dw(static_cast<uint16_t>((h & 0x7c) << 6));
        fill(0x7c); // c_f16_exp
        fill(3); // c_three
        fill(7); // c_seven
        fill(1); // c_one
    }

private:
    bool f16_any() const { return f16_ && any_; }
    int off() const { return (1 << man_) * (man_ + (any_ ? 3 : 2)); }
    /// R[m]: m >> d rounded to nearest even; f16 (d = 7): the rounding's increment for the
    /// index encode_words() makes (bit 6 the lowest kept bit, 5 the rounding bit, 4..0 the
    /// rest).
    int rounded(int m) const {
        if (f16_) return (m >> 5 & 1) && ((m >> 6 & 1) || (m & 0x1f) != 0);
        const int kept = m >> d_, rest = m & ((1 << d_) - 1), half = 1 << (d_ - 1);
        return kept + (rest > half || (rest == half && (kept & 1)));
    }
    /// The largest A' of a finite x below the marked binade, less 2^man: a multiple of
    /// 2^man whose sums with 2^man and R stay bytes, and at least off + the overflow code.
    int sat() const { return any_ ? (255 - (3 << man_)) & -(1 << man_) : 232; }
    /// T's mark: inside the window (jump_if_flagged()'s one compare); bf16: with low bits no
    /// other A' has (f16's A' has mantissa bits: jump_if_marked() reads x there).
    int mark() const { return (2 << man_) + (f16_ ? 0 : 1); }

    enum constant : int {
        c_lo_index,
        c_hi_index,
        c_r, // two vectors
        c_r_hi,
        c_lo_weight,
        c_low_bits,
        c_window_base,
        c_window_width,
        c_off,
        c_off_overflow,
        c_negative,
        c_sign,
        c_zero,
        c_sat_words,
        c_mark,
        c_shifted_h, // four vectors
        c_abs = c_shifted_h + 4,
        c_inf,
        c_f16_inf,
        c_two,
        c_low_ones,
        c_bit16,
        c_high_words,
        c_shifted_ex, // four vectors
        c_f16_exp = c_shifted_ex + 4,
        c_three,
        c_seven,
        c_one,
    };
    Xbyak::Address cst(int c) { return g_.ptr[g_.rip + l_ + c * 64]; }
    /// A dword broadcast of constant c, whose bytes are all alike.
    Xbyak::Address bcst(int c) { return g_.ptr_b[g_.rip + l_ + c * 64]; }

    jit_generator &g_;
    const int man_, bias_;
    const bool f16_;
    const int d_;
    const uint32_t overflow_;
    const bool any_;
    Xbyak::Label l_;
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
