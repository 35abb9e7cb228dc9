#ifndef QGRAPH_BACKENDS_JIT_JIT_STORE_EMITTER_HPP
#define QGRAPH_BACKENDS_JIT_JIT_STORE_EMITTER_HPP

// The integer store stage of the quantize kernel as instructions: vectors of s32 lanes, each
// already rounded, go to the destination type's bytes.
//   store()         one vector: avx512 vpmov[us]d{b,w} (saturating; the kernel clamps only
//                   the side these do not), avx2 vpack* of lanes already in range
//   store_packed()  pack_vectors vectors (avx2: or 4) at once with vpackssdw, vpaddsw
//                   (the zero point in words) and vpackuswb / vpacksswb, then one vpermd
//                   into element order: about half the shuffle work of a vpmovusdb per
//                   vector
//   store_words()   s16 / u16: two vectors at once with vpackssdw / vpackusdw and a vpermq
//                   into element order (the kernel keeps the lanes from wrapping)
// s4 / u4 (blocked rows only; the lanes hold r + zp within the type's range, the kernel's
// two-sided clamp): the same packs to one byte per element, then two elements a byte,
// element 2i in the low nibble (NUMERICS.md): as words w = b0 | b1 << 8, the byte b0 & 0x0f
// | (b1 & 0x0f) << 4, which is w's low nibble beside (w >> 4)'s second one (avx512: vpsrlw,
// one vpternlogd bit select, vpmovwb keeping the low bytes), or b0' + 16 * b1' of the bytes
// masked to b' = b & 0x0f (avx2: vpand, vpmaddubsw, then vpackuswb of the words, each
// below 256; four vectors' 32 bytes in a ymm, whose two halves of words the vpackuswb joins).
// And, on a streaming kernel (quantize_conf::stream), the non-temporal stores of whole
// vectors, whose widest width the kernel reports (stream_align()) so that execute takes it
// only where dst and the row stride are aligned to that.
// The quantize kernel stores its integers only through this class.

#include <cassert>
#include <cstdint>

#include "backends/jit/jit_generator.hpp"
#include "common/data_types.hpp"

namespace qgraph {
namespace impl {
namespace jit {

template <cpu_isa_t isa>
class store_emitter {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr bool avx512 = isa == avx512_core;

public:
    /// Vectors store_packed() takes at once: one zmm of 64 bytes, or avx2's xmm of 16.
    static constexpr int pack_vectors = avx512 ? 4 : 2;

    /// `dst_dt`: u8, s8, u16, s16, s4, u4, or a float8 type (codes < 256 in the lanes). `has_zp`:
    /// store_packed() adds the zero point. `stream`: whole vectors of bytes are stored
    /// non-temporally (the kernel ends with sfence).
    store_emitter(jit_generator &g, data_type dst_dt, bool has_zp, bool stream)
        : g_(g), dst_dt_(dst_dt), has_zp_(has_zp), stream_(stream) {}

    /// Whether elements are stored two a byte (s4, u4).
    bool nibbles() const { return dst_dt_ == data_type::s4 || dst_dt_ == data_type::u4; }

    /// s4 / u4: store_packed() clamps the packed bytes to the 4-bit range, for lanes whose
    /// zero points were added as s32 before the packs (the packs saturate to bytes only).
    void clamp_packed_nibbles() { clamp_nibbles_ = true; }

    /// s4 / u4 with a masked tail of `elems` elements (avx512, even): k3 holds the tail's
    /// byte mask for the whole kernel, set here (uses eax).
    void set_up_nibble_tail(int elems) {
        g_.mov(g_.eax, (1u << (elems / 2)) - 1);
        g_.kmovw(g_.k3, g_.eax);
    }
    /// The same for a tail of the (even) element count in `n`, known at run time (uses eax
    /// and rcx).
    void set_up_nibble_tail(const Xbyak::Reg64 &n) {
        g_.mov(g_.rcx, n);
        g_.shr(g_.ecx, 1);
        g_.mov(g_.eax, 1);
        g_.shl(g_.eax, g_.cl);
        g_.sub(g_.eax, 1);
        g_.kmovw(g_.k3, g_.eax);
    }

    /// The bytes of the whole register v (zmm or ymm) at d, a multiple of its width from the
    /// row's start: non-temporal on a streaming kernel.
    void store_vector(const Xbyak::Address &d, const Xbyak::Xmm &v) {
        if (stream_) return store_nt(d, v);
        if (v.isZMM()) return g_.vmovdqu8(d, v);
        g_.vmovdqu(d, v);
    }

    /// The widest non-temporal store emitted so far, in bytes (0: none).
    int stream_align() const { return stream_align_; }

    /// Before store_packed(): its two constant registers, the zero point in every word
    /// (broadcast_zp(), per row) and the dword order, filled (uses rax). `unpacked_bf16`:
    /// the vectors hold bf16 elements as vpunpck[lh]wd leaves them (see below).
    void set_up_packs(const Vmm &zp16, const Vmm &perm, bool unpacked_bf16) {
        zp16_ = zp16;
        perm_ = perm;
        // After the packs, dword 4L + k holds elements 4L..4L+3 of vector k (L the 128-bit
        // lane); they belong at dword 4k + L (avx512: 4 lanes, 4 vectors) or 2k + L (avx2:
        // 2 lanes, 2 or 4 vectors; with 2 the upper half repeats the lower).
        static const uint32_t perm512[16]
                = {0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15};
        static const uint32_t perm256[8] = {0, 4, 1, 5, 2, 6, 3, 7};
        // Unpacked bf16: vector 2m + h holds elements 32m + 8L + 4h..+3 (avx2: 16m), so
        // dword 4L + k of the packs holds the four elements that belong at dword 2L + (k & 1)
        // + 8 * (k >> 1) (avx2: dword 2L + (k & 1) + 4 * (k >> 1), the same table for 2 and
        // 4 vectors).
        static const uint32_t perm512_bf16[16]
                = {0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15};
        static const uint32_t perm256_bf16[8] = {0, 1, 4, 5, 2, 3, 6, 7};
        const uint32_t *p = unpacked_bf16 ? (avx512 ? perm512_bf16 : perm256_bf16)
                                          : (avx512 ? perm512 : perm256);
        g_.mov(g_.rax, reinterpret_cast<size_t>(p));
        if (avx512)
            g_.vmovdqu32(perm_, g_.ptr[g_.rax]);
        else
            g_.vmovdqu(perm_, g_.ptr[g_.rax]);
    }

    /// The zero point of store_packed() for the next stores: the low word of `zp` (a word
    /// in memory or an xmm) in every word.
    void broadcast_zp(const Xbyak::Operand &zp) { g_.vpbroadcastw(zp16_, zp); }

    /// Stores the s32 lanes of q at d as dst_dt; `tail`: only the lanes of k1 (avx512; avx2
    /// stores whole vectors, its driver bounces tails). avx512 saturates, avx2 lanes are
    /// already inside the type's range. `scratch` is overwritten.
    void store(const Vmm &q, const Vmm &scratch, const Xbyak::Address &d, bool tail) {
        if (nibbles()) return store_nibbles(q, scratch, d, tail);
        if (avx512 && stream_ && !tail) {
            // The 16 bytes in a register first: vpmov*db has no non-temporal form.
            const Xbyak::Xmm b(scratch.getIdx());
            switch (dst_dt_) {
                case data_type::u8: g_.vpmovusdb(b, q); break;
                case data_type::s8: g_.vpmovsdb(b, q); break;
                default: g_.vpmovdb(b, q); break; // float8 codes, each < 256
            }
            return store_nt(d, b);
        }
        if (avx512) {
            const Xbyak::Address dm = tail ? Xbyak::Address(d | g_.k1) : d;
            switch (dst_dt_) {
                case data_type::u8: g_.vpmovusdb(dm, q); break;
                case data_type::s8: g_.vpmovsdb(dm, q); break;
                case data_type::u16: g_.vpmovusdw(dm, q); break;
                case data_type::s16: g_.vpmovsdw(dm, q); break;
                default: g_.vpmovdb(dm, q); break; // float8 codes, each < 256
            }
            return;
        }
        const Xbyak::Xmm qx(q.getIdx()), sx(scratch.getIdx());
        g_.vextracti128(sx, Xbyak::Ymm(q.getIdx()), 1);
        switch (dst_dt_) {
            case data_type::u16: g_.vpackusdw(qx, qx, sx); return g_.vmovdqu(d, qx);
            case data_type::s16: g_.vpackssdw(qx, qx, sx); return g_.vmovdqu(d, qx);
            default: break;
        }
        g_.vpackssdw(qx, qx, sx); // exact: every value is within [-128, 255]
        if (dst_dt_ == data_type::s8)
            g_.vpacksswb(qx, qx, qx);
        else
            g_.vpackuswb(qx, qx, qx); // u8, float8 codes: 0..255
        g_.vmovq(d, qx);
    }

    /// Stores `vectors` vectors q[0..] of s32 r = rne(q'), q' <= qmax - zp or q' < 2^31, as
    /// bytes at d: sat8(sat16(sat16(r) + zp)), the saturations being those of vpackssdw,
    /// vpaddsw and vpackuswb / vpacksswb (1-byte integer destinations only). The vectors
    /// are overwritten.
    /// That equals sat8(r + zp) because the callers' zero points have |zp| <= 384
    /// (checked_zp_fits):
    ///  - r > 32767 (unclamped q'): sat16(r) + zp >= 32383 saturates to qmax, as r + zp does;
    ///  - -32768 <= r <= 32767: r packs exactly; a sum above 32767 or below -32768
    ///    saturates there, still beyond qmax or qmin as r + zp is;
    ///  - r < -32768 (NaN and q' <= -2^31 convert to -2^31): -32768 + zp < qmin, and so is
    ///    r + zp (NaN -> qmin, as NUMERICS asks).
    /// `vectors`: pack_vectors, or 2 for avx512's half group (32 bytes, never streamed), or 4
    /// for avx2's wide groups of bytes (32 bytes; s4 / u4: 16). `zp_added`: the lanes hold
    /// r + zp already (the fixed-point check's), and no zero point is added.
    void store_packed(const Vmm *q, int vectors, const Xbyak::Address &d, bool zp_added = false) {
        // avx2 packs two vectors, and so does avx512's half group; the byte pack then takes
        // the same words twice (avx512: dword 4L + k still holds elements 4L..4L+3 of vector
        // k, so perm512's first 8 entries order the 32 bytes the ymm store keeps).
        const bool four = vectors == 4;
        const Vmm q0 = q[0], q1 = q[1];
        pack_bytes(q, vectors, zp_added);
        if (nibbles()) {
            // avx512: 64 or 32 bytes (half group) in order; avx2: 32, or 16 in the low half.
            const Xbyak::Ymm y0(q0.getIdx()), y1(q1.getIdx());
            if (avx512 && four) return pack_nibbles(q0, q1, d, 64, false);
            if (avx512 || four) return pack_nibbles(y0, y1, d, 32, false);
            return pack_nibbles(Xbyak::Xmm(y0.getIdx()), Xbyak::Xmm(y1.getIdx()), d, 16, false);
        }
        if (stream_ && (four || !avx512))
            store_nt(d, four ? Xbyak::Xmm(q0) : Xbyak::Xmm(q0.getIdx()));
        else if (four && avx512)
            g_.vmovdqu32(d, q0);
        else if (four || avx512) // avx2's four vectors, avx512's half group: 32 bytes
            g_.vmovdqu(d, Xbyak::Ymm(q0.getIdx()));
        else
            g_.vmovdqu(d, Xbyak::Xmm(q0.getIdx()));
    }

    /// avx512, u8 / s8: four vectors of r + zp (zero point added) of two rows, the packs of
    /// store_packed(), the first row's 32 bytes at d0 and the second's at d1.
    void store_packed_rows(const Vmm *q, const Xbyak::Address &d0, const Xbyak::Address &d1) {
        assert(avx512 && !nibbles() && !stream_);
        pack_bytes(q, 4, true); // in element order: the first row's in the low half
        g_.vmovdqu(d0, Xbyak::Ymm(q[0].getIdx()));
        g_.vextracti64x4(d1, Xbyak::Zmm(q[0].getIdx()), 1);
    }

    /// Before store_words() (avx512): its qword order, filled (uses rax).
    void set_up_words(const Vmm &perm) {
        words_perm_ = perm;
        // After vpackssdw / vpackusdw of (a, b), qword 2L holds elements 4L..4L+3 of a and
        // qword 2L + 1 those of b (L the 128-bit lane).
        static const uint64_t perm512[8] = {0, 2, 4, 6, 1, 3, 5, 7};
        g_.mov(g_.rax, reinterpret_cast<size_t>(perm512));
        g_.vmovdqu64(words_perm_, g_.ptr[g_.rax]);
    }

    /// Stores two vectors a, b of s32 lanes as 2 * vlen words at d (s16, u16 only): sat16(a)
    /// then sat16(b), the saturation being vpackssdw's (s16) or vpackusdw's (u16), i.e. to
    /// the destination's range. One pack and one vpermq for two vectors instead of a
    /// vpmov[us]dw (two shuffle uops) each. a is overwritten.
    void store_words(const Vmm &a, const Vmm &b, const Xbyak::Address &d) {
        assert(dst_dt_ == data_type::s16 || dst_dt_ == data_type::u16);
        if (dst_dt_ == data_type::u16)
            g_.vpackusdw(a, a, b);
        else
            g_.vpackssdw(a, a, b);
        if (avx512) {
            g_.vpermq(a, words_perm_, a);
            return g_.vmovdqu32(d, a);
        }
        // avx2: qword 0 and 2 hold a's elements 0..3 and 4..7, 1 and 3 b's.
        g_.vpermq(a, a, 0xd8); // qwords 0 2 1 3
        g_.vmovdqu(d, a);
    }

    /// After the kernel's code: the constants of the nibble packs (s4, u4).
    void emit_constants() {
        if (!nibbles()) return;
        g_.align(32);
        g_.L(l_consts_);
        for (int i = 0; i < 8; ++i) g_.dd(0x0f0f0f0f); // the low nibble of every byte
        for (int i = 0; i < 8; ++i) g_.dd(0x10011001); // bytes 1, 16: b0' + 16 * b1'
        if (!clamp_nibbles_) return;
        const q_range q = range_of(dst_dt_); // clamp_packed_nibbles(): a vector of each
        for (int64_t v : {q.lo, q.hi})
            for (int i = 0; i < (4 * isa_traits<isa>::vlen); ++i)
                g_.db(static_cast<uint8_t>(static_cast<int8_t>(v)));
    }

private:
    /// store_packed()'s packs: the s32 lanes of `vectors` vectors (2 or 4) saturated to
    /// bytes in element order in q[0] (with 2, its low 32 bytes on avx512).
    void pack_bytes(const Vmm *q, int vectors, bool zp_added) {
        const bool four = vectors == 4;
        const Vmm q0 = q[0], q1 = q[1];
        const Vmm q2 = four ? q[2] : q0, q3 = four ? q[3] : q1;
        g_.vpackssdw(q0, q0, q1);
        if (four) g_.vpackssdw(q2, q2, q3);
        if (has_zp_ && !zp_added) {
            g_.vpaddsw(q0, q0, zp16_);
            if (four) g_.vpaddsw(q2, q2, zp16_);
        }
        if (dst_dt_ == data_type::u8)
            g_.vpackuswb(q0, q0, q2);
        else
            g_.vpacksswb(q0, q0, q2);
        if (clamp_nibbles_) {
            // sat8(sat16(r)) is monotone and saturates outside [qmin, qmax]: clamping it
            // clamps r.
            g_.vpmaxsb(q0, q0, g_.ptr[g_.rip + l_consts_ + c_nibble_min]);
            g_.vpminsb(q0, q0, g_.ptr[g_.rip + l_consts_ + c_nibble_max]);
        }
        g_.vpermd(q0, perm_, q0);
    }

    jit_generator &g_;
    data_type dst_dt_;
    bool has_zp_, stream_;
    int stream_align_ = 0;
    Vmm zp16_, perm_;
    Vmm words_perm_; // set_up_words()
    Xbyak::Label l_consts_; // emit_constants()
    bool clamp_nibbles_ = false; // clamp_packed_nibbles()
    // Offsets in l_consts_: the nibble mask and the pair multipliers, a ymm each.
    static constexpr int c_nibble_mask = 0, c_nibble_pairs = 32;
    static constexpr int c_nibble_min = 64, c_nibble_max = 64 + (4 * isa_traits<isa>::vlen);

    /// One vector of s32 lanes as nibbles: the lanes to bytes, then pack_nibbles().
    void store_nibbles(const Vmm &q, const Vmm &scratch, const Xbyak::Address &d, bool tail) {
        const Xbyak::Xmm qx(q.getIdx()), sx(scratch.getIdx());
        if (avx512) {
            g_.vpmovdb(sx, q); // exact: every lane is within [-8, 15]
            return pack_nibbles(sx, qx, d, 16, tail);
        }
        g_.vextracti128(sx, Xbyak::Ymm(q.getIdx()), 1);
        g_.vpackssdw(qx, qx, sx);
        g_.vpacksswb(qx, qx, qx); // exact, as above; the 8 bytes in the low quarter
        pack_nibbles(qx, sx, d, 8, false);
    }

    /// Stores the low `elems` bytes of v (avx512: all of v), two a byte, at d: elems / 2
    /// bytes. t is scratch; `tail`: only k3's bytes (avx512).
    template <typename V>
    void pack_nibbles(const V &v, const V &t, const Xbyak::Address &d, int elems, bool tail) {
        if (avx512) {
            g_.vpsrlw(t, v, 4);
            g_.vpternlogd(v, t, g_.ptr_b[g_.rip + l_consts_ + c_nibble_mask], 0xe4); // mask ? v : t
            return g_.vpmovwb(tail ? Xbyak::Address(d | g_.k3) : d, v);
        }
        const Xbyak::Xmm x(v.getIdx());
        if (elems == 32) {
            // The 16 words of a ymm, 8 a lane, joined into 16 bytes in order.
            const Xbyak::Ymm y(v.getIdx());
            g_.vpand(y, y, g_.ptr[g_.rip + l_consts_ + c_nibble_mask]);
            g_.vpmaddubsw(y, y, g_.ptr[g_.rip + l_consts_ + c_nibble_pairs]);
            g_.vextracti128(Xbyak::Xmm(t.getIdx()), y, 1);
            g_.vpackuswb(x, x, Xbyak::Xmm(t.getIdx()));
            return g_.vmovdqu(d, x);
        }
        g_.vpand(x, x, g_.ptr[g_.rip + l_consts_ + c_nibble_mask]);
        g_.vpmaddubsw(x, x, g_.ptr[g_.rip + l_consts_ + c_nibble_pairs]);
        g_.vpackuswb(x, x, x);
        if (elems == 16) return g_.vmovq(d, x);
        g_.vmovd(d, x); // a single vector's 8 elements
    }

    /// A non-temporal store of v (no read for ownership; the line is not cached); records
    /// its width for stream_align().
    void store_nt(const Xbyak::Address &a, const Xbyak::Xmm &v) {
        g_.vmovntdq(a, v);
        const int bytes = v.isZMM() ? 64 : v.isYMM() ? 32 : 16;
        if (bytes > stream_align_) stream_align_ = bytes;
    }
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
