#include "backends/jit/jit_dequantize_grouped.hpp"

#include <algorithm>
#include <cstddef>
#include <memory>
#include <utility>

#include "backends/jit/jit_bf16_emitter.hpp"
#include "backends/jit/jit_float8_bf16_words.hpp"
#include "backends/jit/jit_float8_emitter.hpp"
#include "common/data_types.hpp"
#include "common/minifloat.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

using namespace Xbyak;

#define CALL(field) ptr[abi_arg + offsetof(grouped_call, field)]

template <cpu_isa_t isa>
class grouped_generator : public jit_generator {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr int vlen = isa_traits<isa>::vlen;
    static constexpr bool avx512 = isa == avx512_core;

public:
    explicit grouped_generator(const grouped_conf &c) : c_(c) { generate(); }

private:
    const grouped_conf c_;
    std::unique_ptr<float8_emitter<isa>> f8_; ///< float8 x: the codes' decode
    std::unique_ptr<float8_bf16_words<isa>> words_; ///< word_blocks(): codes straight to bf16
    const Reg64 reg_src = r8, reg_dst = r9, reg_n = r10, reg_scale = r11, reg_zps = r12,
                reg_zpi = r13, reg_glen = r14, reg_len = r15;
    // The avx2 tail keeps the run's pointers here while the vector code reads and writes the
    // stack block (both callee-saved, saved by preamble()).
    const Reg64 reg_keep_src = rbx, reg_keep_dst = rbp;
    // The stack block: the avx2 tail's x bytes at rsp, y bytes at rsp + 32 (up to 64: a
    // table lookup's 32 bf16/f16), and in lanes() its scales and zero points at frame_s and
    // frame_zp, the run's scale and zero-point pointers kept at frame_keep, the call's row
    // count at frame_rows (lane blocks); avx512 table batches' 16 f32 scales; the word
    // blocks' A words at frame_words, and their plane form at frame_pairs.
    static constexpr int frame_s = 96, frame_zp = 128, frame_keep = 160, frame_rows = 176,
                         frame_words = 192, frame_pairs = 208, frame = 240;

    int top_ = isa_traits<isa>::nregs;
    Vmm take_const() { return Vmm(--top_); }
    Vmm v_s, v_zp, v_nibble, v_bias, v_one, v_round, v_quiet;
    Vmm v_values, v_values_hi, v_table, v_table_hi, v_high;
    // avx512 lane blocks: the vpermt2ps indices that interleave the even and odd vectors'
    // f32 results (elements 0-15, 16-31), and the vpermw one of their 16-bit results.
    Vmm v_inter_lo, v_inter_hi, v_inter_w;
    Label l_values, l_split, l_float4, l_lanes, l_int4;

    bool nibbles() const { return four_bit(c_.src_dt); }
    /// avx512 lane blocks of s4 and f4_e2m1 x decode each nibble by one vpermps of a table of
    /// the 16 values as f32 (vpermps reads its index's low 4 bits: the even elements'
    /// nibbles as they lie, the odd ones' shifted down), where s4 took two shifts and a
    /// conversion a vector (f4_e2m1 a mask before its table); a zero point is subtracted in
    /// f32 then, exactly (both are small integers; the zero points as f32 once a block). Not
    /// with s32 zero points, which f32 may not hold, nor for u4, whose mask, shift and
    /// integer subtraction run on either vector pipe where the lookups take the shuffle one
    /// (u4 with a u4 zero point measured 7% slower with them).
    bool lane_lookup() const {
        const bool types = c_.src_dt == data_type::s4 || float4();
        return avx512 && lanes() && types && c_.zp_dt != data_type::s32;
    }
    /// f4_e2m1 x: codes decoded to their f32 values (to_f32()), no zero point.
    bool float4() const { return c_.src_dt == data_type::f4_e2m1; }
    /// float8 x (MXFP8, blocked FP8 weights): codes decoded by float8_emitter::decode()
    /// (to_f32()), or 32 at a time on avx2 (quads()), no zero point; the arithmetic path
    /// only.
    bool float8() const { return is_float8(c_.src_dt); }
    /// How vector() makes bf16 outputs: the integer rounding (jit_bf16_emitter.hpp), the
    /// conversion instruction (avx512_core_bf16, no subnormal result), or the top half of
    /// the f32 product where that is exact (top_halves()).
    enum class bf16_out { round, insn, top_half };
    bf16_out bf16_way() const { return c_.bf16_insn ? bf16_out::insn : bf16_out::round; }
    /// float8 x into bf16 without the conversion instruction: a block whose scales are all
    /// powers of two at or above min_exact_scale() stores the top half of each product. x
    /// has at most 4 significant bits and the scale 1, so every nonzero product is exact in
    /// f32 and, being normal (x >= the type's smallest subnormal), in bf16; Inf stays Inf
    /// and 0 * Inf is the default NaN, whose top half is already quiet: f32_to_bf16 of each
    /// product is its top half. MXFP8's e8m0 scales are all powers of two.
    bool top_halves() const {
        return float8() && c_.dst_dt == data_type::bf16 && !c_.bf16_insn && blocks();
    }
    /// e4m3 / e5m2 into bf16 in whole chunks of 32 (jit_float8_bf16_words.hpp): the
    /// word_groups() whole groups of a word step whose scales are all powers of two in the
    /// words' range, and whose codes hold no NaN or Inf, take their codes straight to bf16
    /// in 16-bit lanes, without f32.
    bool word_blocks() const {
        return float8_bf16_words<isa>::serves(c_.src_dt) && c_.dst_dt == data_type::bf16
                && blocks() && c_.group % 32 == 0 && c_.group <= max_word_block;
    }
    /// The most elements word_block() unrolls.
    static constexpr int64_t max_word_block = 256;
    /// Groups per word_block(): 128 elements or one group, so that the scale check and the
    /// step's bookkeeping are shared by at least four chunks of 32; with byte planes
    /// (chunk64(), whose 64 codes cost less than that bookkeeping) 256 elements, two checks
    /// of four scales.
    int word_groups() const {
        return static_cast<int>(std::max<int64_t>(1, (word_planes() ? 256 : 128) / c_.group));
    }
    bool word_planes() const { return avx512 && c_.vbmi; }
    /// The smallest scale that keeps x's smallest subnormal times it normal: 2^-126 / xmin.
    float min_exact_scale() const { return 0x1p-126f / minifloat_to_f32(c_.src_dt, 1); }
    /// Lane blocks into bf16 whose scales are all 0, powers of two or Inf (f32 mantissa bits
    /// zero) store each product's top half, as top_halves() argues. x (f4_e2m1)
    /// or x - zp (4-bit x with a 4-bit or s8 zero point or none: |x - zp| <= 143) has at
    /// most 8 significant bits, bf16's count, the lowest of weight 0.5 or more; times a
    /// normal power of two (at least 2^-126) every bit stays at or above 2^-127, within
    /// bf16's subnormals (2^-133), so the product is exact in f32 and in bf16. Subnormal
    /// scales and NaN have mantissa bits and round. Not u8 zero points (x - zp down to
    /// -263) nor s32 ones.
    bool lane_top_halves() const {
        return lanes() && nibbles() && c_.dst_dt == data_type::bf16
                && (!has_zp() || four_bit(c_.zp_dt) || c_.zp_dt == data_type::s8);
    }
    /// A scale and zero point per element (group 1): each vector loads its own.
    bool lanes() const { return c_.group == 1; }
    bool has_zp() const { return c_.zp_dt != data_type::undef; }
    /// Lanes of sub-byte zero points; lanes of s4 x or zero points, sign-extended from bytes.
    bool lane_nibbles() const { return lanes() && four_bit(c_.zp_dt); }
    bool sign_extends() const {
        return lanes() && (c_.src_dt == data_type::s4 || c_.zp_dt == data_type::s4);
    }
    int zp_size() const { return static_cast<int>(size_of(c_.zp_dt)); }
    /// Zero-point bytes of `elems` lanes from a byte boundary (elems even for nibbles).
    int zp_bytes(int elems) const { return four_bit(c_.zp_dt) ? elems / 2 : elems * zp_size(); }
    // 4-bit sources look each element up in its group's table of the 16 outputs (see the
    // header): on avx512 always, on avx2 for bf16/f16 outputs (vpshufb on the outputs' byte
    // planes); the arithmetic path (avx2 f32 outputs, 8-bit sources) computes every element.
    bool table() const { return nibbles() && !lanes() && (avx512 || dst_size() == 2); }
    // Arithmetic path: s4 nibbles are read biased (n ^ 8 = x + 8, so that they widen with
    // zero extension); the 8 goes into the subtracted zero point. Lanes, whose zero points
    // are vectors, sign-extend s4 nibbles instead.
    bool biased() const { return c_.src_dt == data_type::s4 && !table() && !lanes(); }
    /// How nibbles widen: as codes 0..15, biased (code ^ 8: s4 x + 8), or as s4 values.
    enum class nibble_form { plain, biased, sign_extended };

    bool subtracts() const { return c_.zp_dt != data_type::undef || biased(); }
    /// Elements per table lookup: a zmm of 16-bit outputs (vpermw), or of f32 (vpermps).
    int table_vlen() const { return dst_size() == 2 ? 32 : 16; }
    int dst_size() const { return static_cast<int>(size_of(c_.dst_dt)); }
    int scale_size() const { return static_cast<int>(size_of(c_.scale_dt)); }
    int unroll() const { return avx512 ? 4 : 2; }
    /// Vector u's registers: x and two scratch; float8 x two more (the codes and avx2's
    /// mask for the decode).
    Vmm vreg(int u, int i) const { return Vmm(u * (float8() ? 5 : 3) + i); }
    /// Source bytes of `elems` elements from a byte boundary (elems even for nibbles).
    int src_bytes(int elems) const { return nibbles() ? elems / 2 : elems; }

    void broadcast_const(const Vmm &v, uint32_t bits) {
        mov(eax, bits);
        vmovd(Xmm(0), eax);
        vpbroadcastd(v, Xmm(0));
    }

    void generate() {
        preamble();
        sub(rsp, frame);
        if (float8()) f8_ = std::make_unique<float8_emitter<isa>>(*this, c_.src_dt, false, false);
        if (word_blocks())
            words_ = std::make_unique<float8_bf16_words<isa>>(*this, c_.src_dt, c_.vbmi);
        v_s = take_const();
        v_zp = take_const();
        if (nibbles() || lane_nibbles()) {
            v_nibble = take_const();
            broadcast_const(v_nibble, 0x0f0f0f0fu);
            if (biased() || sign_extends()) {
                v_bias = take_const();
                broadcast_const(v_bias, 0x08080808u);
            }
        }
        if (c_.dst_dt == data_type::bf16) {
            v_one = take_const();
            v_round = take_const();
            v_quiet = take_const();
            broadcast_const(v_one, bf16_rounding<isa>::constants[0]);
            broadcast_const(v_round, bf16_rounding<isa>::constants[1]);
            broadcast_const(v_quiet, bf16_rounding<isa>::constants[2]);
        }
        if (biased() && c_.zp_dt == data_type::undef) broadcast_const(v_zp, 8u);
        if (avx512 && lanes() && nibbles()) {
            v_inter_lo = take_const();
            v_inter_hi = take_const();
            v_inter_w = take_const();
            vmovdqu32(v_inter_lo, lane_const(lc_inter_lo));
            vmovdqu32(v_inter_hi, lane_const(lc_inter_hi));
            vmovdqu32(v_inter_w, lane_const(lc_inter_w));
        }
        if (table()) {
            // The table's lanes: the value x of each nibble code (s4 codes 8..15 are -8..-1;
            // f4_e2m1 codes their float values), as f32 where no zero point is subtracted
            // (then only the scale varies), else as s32.
            v_values = take_const();
            v_table = take_const();
            if (avx512) {
                vmovdqu32(v_values, ptr[rip + l_values]);
            } else {
                // avx2: values 0..7 and 8..15, and the tables of the low and high bytes.
                v_values_hi = take_const();
                v_table_hi = take_const();
                vmovdqu(v_values, ptr[rip + l_values]);
                vmovdqu(v_values_hi, ptr[rip + l_values + 32]);
            }
            if (pairs()) {
                v_high = take_const();
                broadcast_const(v_high, 0x00100010u);
            }
        }

        mov(reg_src, CALL(src));
        mov(reg_dst, CALL(dst));
        mov(reg_scale, CALL(scales));
        mov(reg_zps, CALL(zps));
        mov(reg_zpi, CALL(zp_index));
        mov(reg_n, CALL(n));
        mov(reg_glen, CALL(first));
        if (lanes())
            lane_run();
        else
            group_loop();
        add(rsp, frame);
        postamble();
        if (table()) emit_table_constants();
        if (float4() && !table()) emit_float4_constants();
        if (f8_) f8_->emit_constants();
        if (words_) words_->emit_constants();
        if (avx512 && lanes() && nibbles()) emit_lane_constants();
        if (lane_lookup() && !float4()) emit_int4_constants();
        finish("dequantize_grouped", isa);
    }

    /// The run's groups, one after another (the call's first may be partial).
    void group_loop() {
        Label l_group, l_end;
        L(l_group);
        if (batched()) {
            // `batch` whole groups at a time: their scales converted to f32 in one vector
            // (and checked at once) and stored in the stack block, whence each group's
            // multiply (avx512) or broadcast (avx2) takes its own.
            Label l_single, l_int;
            cmp(reg_glen, c_.group);
            jne(l_single, T_NEAR);
            cmp(reg_n, batch * c_.group);
            jl(l_single, T_NEAR);
            sub(reg_n, batch * c_.group);
            const Vmm t = vreg(0, 0);
            scales_to_f32(t, t, ptr[reg_scale]);
            vmovups(ptr[rsp], t);
            if (!avx512 && c_.dst_dt == data_type::bf16) {
                // No NaN or Inf scale: then no table entry is NaN (x - zp is a finite
                // integer), and the bf16 rounding needs no NaN blend (round_no_nan).
                const Vmm z = vreg(0, 1);
                vxorps(z, z, z);
                vmulps(z, t, z); // NaN exactly where the scale is NaN or Inf
                vcmpps(z, z, z, 3); // unordered
                vmovmskps(eax, z);
                test(eax, eax);
                jnz(l_int, T_NEAR);
                lookup_batch(false, true);
                jmp(l_group, T_NEAR);
            }
            if (c_.bf16_insn) {
                vfpclassps(k3, t, 0x20); // subnormal: see subnormal_scale_jump
                kortestw(k3, k3);
                jnz(l_int, T_NEAR);
                lookup_batch(true);
                jmp(l_group, T_NEAR);
            }
            L(l_int);
            lookup_batch(false);
            jmp(l_group, T_NEAR);
            L(l_single);
        }
        if (whole_groups()) {
            // Whole groups (every one but a partial first or last): straight-line lookups,
            // no count bookkeeping per vector.
            Label l_partial;
            cmp(reg_glen, c_.group);
            jne(l_partial, T_NEAR);
            cmp(reg_n, c_.group);
            jl(l_partial, T_NEAR);
            sub(reg_n, c_.group);
            group_table();
            lookup_whole_group();
            add(reg_scale, scale_size());
            inc(reg_zpi);
            jmp(l_group, T_NEAR);
            L(l_partial);
        }
        if (blocks()) {
            // Whole groups of whole vectors, block_groups() at a time, straight-line: no
            // count bookkeeping and no call per group (a 64x3136 s8 tensor in groups of 32
            // is 6272 of them).
            Label l_partial;
            cmp(reg_glen, c_.group);
            jne(l_partial, T_NEAR);
            cmp(reg_n, block_groups() * c_.group);
            jl(l_partial, T_NEAR);
            if (word_blocks()) {
                Label l_other;
                cmp(reg_n, word_groups() * c_.group);
                jl(l_other, T_NEAR);
                word_block(l_other);
                jmp(l_group, T_NEAR);
                L(l_other);
            }
            if (c_.bf16_insn)
                for (int g = 0; g < block_groups(); ++g) {
                    // A subnormal scale: its group goes the general way, below.
                    load_scale(g);
                    subnormal_scale_jump(l_partial);
                }
            if (top_halves()) {
                Label l_round;
                for (int g = 0; g < block_groups(); ++g) {
                    load_scale(g);
                    inexact_scale_jump(l_round);
                }
                sub(reg_n, block_groups() * c_.group);
                block_step(bf16_out::top_half);
                jmp(l_group, T_NEAR);
                L(l_round);
            }
            sub(reg_n, block_groups() * c_.group);
            block_step(bf16_way());
            jmp(l_group, T_NEAR);
            L(l_partial);
        }
        test(reg_n, reg_n);
        jle(l_end, T_NEAR);
        mov(reg_len, reg_glen);
        cmp(reg_len, reg_n);
        cmovg(reg_len, reg_n);
        sub(reg_n, reg_len);
        if (table()) {
            group_table();
            lookup_group();
        } else {
            load_scale();
            if (c_.zp_dt != data_type::undef) load_zp();
            if (c_.bf16_insn) {
                // vcvtneps2bf16 flushes subnormal results: groups with a subnormal scale
                // (the only ones that can have any) take the integer rounding.
                Label l_int, l_next;
                subnormal_scale_jump(l_int);
                group(bf16_out::insn, v_s);
                jmp(l_next, T_NEAR);
                L(l_int);
                group(bf16_out::round, v_s);
                L(l_next);
            } else {
                group(bf16_out::round, v_s);
            }
        }
        add(reg_scale, scale_size());
        inc(reg_zpi);
        mov(reg_glen, c_.group > 0 ? c_.group : int64_t(1) << 62);
        jmp(l_group, T_NEAR);
        L(l_end);
    }

    /// lanes(): the run's n elements, vector by vector, each with its own scales and zero
    /// points (the zero points from a byte: zp_index is even for sub-byte ones).
    void lane_run() {
        if (has_zp()) {
            if (four_bit(c_.zp_dt)) {
                mov(rax, reg_zpi);
                shr(rax, 1);
                add(reg_zps, rax);
            } else {
                imul(rax, reg_zpi, zp_size());
                add(reg_zps, rax);
            }
        }
        mov(reg_len, reg_n);
        const auto advance = [&](int elems) {
            add(reg_src, src_bytes(elems));
            add(reg_dst, elems * dst_size());
            add(reg_scale, elems * scale_size());
            if (has_zp()) add(reg_zps, zp_bytes(elems));
        };
        if (nibbles()) lane_blocks(advance);
        element_loop(
                reg_len, vlen, unroll(), avx512,
                [&](int u, int off, bool tail) { vector(u, off, tail, bf16_out::round, v_s); },
                advance);
        if (!avx512) bounce_tail([&] { vector(0, 0, false, bf16_out::round, v_s); });
    }

    // Lanes of 4-bit x, lane_block() (16 or 32) elements at a time: the 8 or 16 bytes of x
    // widen to dwords, whose low nibbles are the even elements and high nibbles the odd ones,
    // so the block is computed as an even and an odd vector. The block's scales and zero
    // points are put in that order once and serve every row of the call (takes_rows()); the
    // two vectors' results interleave into the stores (avx2 bf16 codes with a word blend,
    // avx512 by vpermt2ps / vpermw, bf16 through vcvtne2ps2bf16 where the CPU has it and the
    // block's scales hold no subnormal).
    const Vmm v_ze = Vmm(6), v_zo = Vmm(7); ///< the block's zero points (v_s, v_zp: scales)
    // The row loop's registers. The strides share the bounce tail's keep registers: rows run
    // before any tail, and a call with a tail has one row.
    const Reg64 reg_row_src = rsi, reg_row_dst = rdx, reg_rows = rcx;
    const Reg64 reg_src_stride = rbx, reg_dst_stride = rbp;

    /// The call's whole blocks over its rows; leaves reg_len = the elements after them, the
    /// pointers on the first row's rest (the rest of a call of one row).
    template <typename Advance>
    void lane_blocks(Advance &&advance) {
        const int block = static_cast<int>(lane_block(c_));
        mov(reg_src_stride, CALL(src_stride));
        mov(reg_dst_stride, CALL(dst_stride));
        mov(rax, CALL(rows));
        mov(ptr[rsp + frame_rows], rax);
        Label l_block, l_nan, l_next, l_done;
        L(l_block);
        cmp(reg_len, block);
        jl(l_done, T_NEAR);
        lane_block_params();
        if (c_.bf16_insn) {
            // x - zp is an integer: only a subnormal scale gives a subnormal product, which
            // the instruction would flush.
            Label l_round;
            vfpclassps(k5, v_s, 0x20);
            vfpclassps(k6, v_zp, 0x20);
            kortestw(k5, k6);
            jnz(l_round, T_NEAR);
            lane_block_rows(bf16_lanes::insn);
            jmp(l_next, T_NEAR);
            L(l_round);
        }
        if (lane_top_halves()) {
            Label l_round;
            exact_lane_scales_jump(l_round);
            lane_block_rows(bf16_lanes::top_half);
            jmp(l_next, T_NEAR);
            L(l_round);
        }
        if (c_.dst_dt == data_type::bf16) {
            // x - zp is a finite integer, so only a NaN or infinite scale gives a NaN
            // product: blocks without one round without the NaN blend. s - s is +0 for
            // every finite s and NaN otherwise.
            const Vmm t0 = vreg(0, 0), t1 = vreg(0, 1);
            vsubps(t0, v_s, v_s);
            vsubps(t1, v_zp, v_zp);
            vorps(t0, t0, t1);
            if (avx512) {
                vptestmd(k5, t0, t0);
                kortestw(k5, k5);
            } else {
                vptest(t0, t0);
            }
            jnz(l_nan, T_NEAR);
            lane_block_rows(bf16_lanes::no_nan);
            jmp(l_next, T_NEAR);
            L(l_nan);
        }
        lane_block_rows(bf16_lanes::nan);
        L(l_next);
        advance(block);
        sub(reg_len, block);
        jmp(l_block, T_NEAR);
        L(l_done);
    }

    /// The scales of the block at reg_scale, even elements into v_s and odd ones into v_zp,
    /// as f32; its zero points at reg_zps (from a byte) into v_ze and v_zo, as s32 (as f32
    /// for lane_lookup()).
    void lane_block_params() {
        const Vmm a = vreg(0, 0), b = vreg(0, 1);
        // 2 * vlen dwords of a and b (or b's memory) into their even and odd ones in order.
        // avx2: vshufps takes elements 0 2 8 10 | 4 6 12 14 (lanes), vpermpd orders the
        // pairs; avx512: vpermi2ps with the even and the odd indices.
        const auto deinterleave = [&](const Vmm &even, const Vmm &odd, const Operand &hi) {
            if (avx512) {
                vmovdqu32(even, lane_const(lc_even));
                vmovdqu32(odd, lane_const(lc_odd));
                vpermi2ps(even, a, hi);
                vpermi2ps(odd, a, hi);
                return;
            }
            vshufps(even, a, hi, 0x88);
            vshufps(odd, a, hi, 0xdd);
            vpermpd(even, even, 0xd8);
            vpermpd(odd, odd, 0xd8);
        };
        switch (c_.scale_dt) {
            case data_type::bf16:
                // Dword k holds the bf16 scales of elements 2k (low word) and 2k + 1.
                vmovups(a, ptr[reg_scale]);
                vpslld(v_s, a, 16);
                vpsrld(v_zp, a, 16);
                vpslld(v_zp, v_zp, 16);
                break;
            case data_type::f16:
                vcvtph2ps(a, ptr[reg_scale]); // exact, as load_scale
                vcvtph2ps(b, ptr[reg_scale + 2 * vlen]);
                deinterleave(v_s, v_zp, b);
                break;
            default:
                vmovups(a, ptr[reg_scale]);
                deinterleave(v_s, v_zp, ptr[reg_scale + 4 * vlen]);
                break;
        }
        if (!has_zp()) return;
        switch (c_.zp_dt) {
            case data_type::s32:
                vmovups(a, ptr[reg_zps]);
                deinterleave(v_ze, v_zo, ptr[reg_zps + 4 * vlen]);
                break;
            case data_type::s8:
            case data_type::u8:
                // Dword k holds the zero points of elements 2k (low byte) and 2k + 1.
                vpmovzxwd(a, ptr[reg_zps]);
                split_bytes(v_ze, v_zo, a, 8, c_.zp_dt == data_type::s8);
                break;
            default:
                vpmovzxbd(a, ptr[reg_zps]);
                split_bytes(v_ze, v_zo, a, 4, c_.zp_dt == data_type::s4);
                break;
        }
        if (lane_lookup()) { // exact: 8-bit and 4-bit integers
            vcvtdq2ps(v_ze, v_ze);
            vcvtdq2ps(v_zo, v_zo);
        }
    }

    /// even = bits 0..w-1 of a's dwords, odd = bits w..2w-1 (w = 4: the nibbles of a byte;
    /// w = 8: the bytes of a word), sign-extended or not; a's other bits are 0.
    void split_bytes(const Vmm &even, const Vmm &odd, const Vmm &a, int w, bool is_signed) {
        if (is_signed) {
            vpslld(even, a, 32 - w);
            vpsrad(even, even, 32 - w);
            vpslld(odd, a, 32 - 2 * w);
            vpsrad(odd, odd, 32 - w);
        } else if (w == 4) {
            if (avx512)
                vpandd(even, a, v_nibble); // a's dwords hold one byte
            else
                vpand(even, a, v_nibble);
            vpsrld(odd, a, 4);
        } else {
            vpslld(even, a, 24);
            vpsrld(even, even, 24);
            vpsrld(odd, a, 8);
        }
    }

    /// How lane_block_row() makes bf16 codes: the rounding with its NaN blend, without it,
    /// the products' top halves (lane_top_halves()), or the conversion instruction.
    enum class bf16_lanes { nan, no_nan, top_half, insn };

    /// To `to` unless every scale of the block (v_s, v_zp) has no f32 mantissa bits
    /// (lane_top_halves()). Uses eax and vector 0's registers.
    void exact_lane_scales_jump(const Label &to) {
        const Vmm m = vreg(0, 0), a = vreg(0, 1), b = vreg(0, 2);
        broadcast_const(m, 0x007fffff);
        if (avx512) {
            vptestmd(k5, v_s, m);
            vptestmd(k6, v_zp, m);
            kortestw(k5, k6);
            jnz(to, T_NEAR);
            return;
        }
        vpand(a, v_s, m);
        vpand(b, v_zp, m);
        vpor(a, a, b);
        vptest(a, a);
        jnz(to, T_NEAR);
    }

    /// The block at reg_src / reg_dst over the call's rows, bf16 codes made `how`.
    void lane_block_rows(bf16_lanes how) {
        mov(reg_row_src, reg_src);
        mov(reg_row_dst, reg_dst);
        mov(reg_rows, ptr[rsp + frame_rows]);
        Label l_row;
        L(l_row);
        lane_block_row(how);
        add(reg_row_src, reg_src_stride);
        add(reg_row_dst, reg_dst_stride);
        dec(reg_rows);
        jnz(l_row, T_NEAR);
    }

    /// One row's block: y = f32(x - zp) * s for its even and odd elements, stored in order.
    void lane_block_row(bf16_lanes how) {
        const Vmm d = vreg(0, 0), e = vreg(0, 1), o = vreg(0, 2), te = vreg(1, 0),
                  to = vreg(1, 1);
        vpmovzxbd(d, ptr[reg_row_src]);
        if (lane_lookup()) {
            const Address values = ptr[rip + (float4() ? l_float4 : l_int4)];
            vpsrld(o, d, 4);
            vpermps(e, d, values);
            vpermps(o, o, values);
            if (has_zp()) {
                vsubps(e, e, v_ze);
                vsubps(o, o, v_zo);
            }
        } else {
            split_bytes(e, o, d, 4, c_.src_dt == data_type::s4);
            if (has_zp()) {
                vpsubd(e, e, v_ze); // exact: |x - zp| <= 2^30 + 15
                vpsubd(o, o, v_zo);
            }
            codes_to_f32(e, d);
            codes_to_f32(o, d);
        }
        vmulps(e, e, v_s);
        vmulps(o, o, v_zp);
        if (avx512) return store_lane_block(how, e, o, te, to, d);
        const Address y = ptr[reg_row_dst];
        switch (c_.dst_dt) {
            case data_type::bf16:
                // Element 2k's code into the low word of dword k, 2k + 1's into the high.
                if (how == bf16_lanes::top_half) {
                    vpsrld(te, e, 16);
                    vmovdqa(to, o); // its top half is in place
                } else if (how == bf16_lanes::nan) {
                    round_bf16(e, te, d);
                    round_bf16(o, to, d);
                    vpslld(to, to, 16);
                } else {
                    bf16_rounding<isa> r(*this, v_one, v_round, v_quiet);
                    r.round_no_nan(te, e);
                    r.round_no_nan(to, o);
                    vpsrld(te, te, 16);
                }
                vpblendw(te, te, to, 0xaa);
                vmovdqu(y, te);
                break;
            case data_type::f16: {
                const Xmm xe(e.getIdx()), xo(o.getIdx()), lo(te.getIdx()), hi(to.getIdx());
                vcvtps2ph(xe, e, 0); // round to nearest even, as store_f16
                vcvtps2ph(xo, o, 0);
                vpunpcklwd(lo, xe, xo);
                vpunpckhwd(hi, xe, xo);
                vmovdqu(y, lo);
                vmovdqu(ptr[reg_row_dst + 16], hi);
                break;
            }
            default:
                vunpcklps(te, e, o); // elements 0-3 | 8-11
                vunpckhps(to, e, o); // 4-7 | 12-15
                vperm2f128(d, te, to, 0x20);
                vmovups(y, d);
                vperm2f128(d, te, to, 0x31);
                vmovups(ptr[reg_row_dst + 32], d);
                break;
        }
    }

    /// avx512: the even and odd vectors' results e, o (kept or not) in element order at
    /// reg_row_dst; t, u, n scratch.
    void store_lane_block(bf16_lanes how, const Vmm &e, const Vmm &o, const Vmm &t,
            const Vmm &u, const Vmm &n) {
        const Address y = ptr[reg_row_dst];
        switch (c_.dst_dt) {
            case data_type::bf16:
                if (how == bf16_lanes::insn) {
                    vcvtne2ps2bf16(t, o, e); // e's codes in the low half, o's in the high
                    vpermw(t, v_inter_w, t);
                } else if (how == bf16_lanes::top_half) {
                    vpsrld(t, e, 16);
                    vpternlogd(t, o, lane_const(lc_odd_words), 0xf8); // t | (o & 0xffff0000)
                } else if (how == bf16_lanes::nan) {
                    // Element 2k's code into the low word of dword k, 2k + 1's into the
                    // high.
                    round_bf16(e, t, n);
                    round_bf16(o, u, n);
                    vpslld(u, u, 16);
                    vpord(t, t, u);
                } else {
                    bf16_rounding<isa> r(*this, v_one, v_round, v_quiet);
                    r.round_no_nan(t, e);
                    r.round_no_nan(u, o);
                    vpsrld(t, t, 16);
                    vpternlogd(t, u, lane_const(lc_odd_words), 0xf8); // t | (u & 0xffff0000)
                }
                vmovdqu16(y, t);
                break;
            case data_type::f16:
                vcvtps2ph(Ymm(t.getIdx()), e, 0); // round to nearest even, as store_f16
                vcvtps2ph(Ymm(u.getIdx()), o, 0);
                vinserti64x4(Zmm(t.getIdx()), Zmm(t.getIdx()), Ymm(u.getIdx()), 1);
                vpermw(t, v_inter_w, t);
                vmovdqu16(y, t);
                break;
            default:
                vmovaps(t, e);
                vpermt2ps(t, v_inter_lo, o);
                vpermt2ps(e, v_inter_hi, o);
                vmovups(y, t);
                vmovups(ptr[reg_row_dst + 64], e);
                break;
        }
    }

    /// avx512 lane blocks' constants (emit_lane_constants()), at these byte offsets.
    enum lane_consts { lc_inter_lo = 0, lc_inter_hi = 64, lc_inter_w = 128, lc_even = 192,
        lc_odd = 256, lc_odd_words = 320 };
    /// lc_odd_words is read broadcast ({1to16}), the others whole.
    Address lane_const(lane_consts k) const {
        return k == lc_odd_words ? ptr_b[rip + l_lanes + k] : ptr[rip + l_lanes + k];
    }

    /// avx512 lane blocks' indices (dwords): the f32 interleaves of elements 0-15 and 16-31
    /// (even vector: 0..15, odd: 16..31), the word interleave of two halves, the parameters'
    /// even and odd selections; then the odd words' mask.
    void emit_lane_constants() {
        align(64);
        L(l_lanes);
        for (int half = 0; half < 2; ++half)
            for (int i = 0; i < 16; ++i) dd(8 * half + i / 2 + (i % 2 ? 16 : 0));
        for (int i = 0; i < 32; ++i) dw(static_cast<uint16_t>(i / 2 + (i % 2 ? 16 : 0)));
        for (int odd = 0; odd < 2; ++odd)
            for (int i = 0; i < 16; ++i) dd(2 * i + odd);
        dd(0xffff0000u);
    }

    /// The table path's constants: the 16 values, and avx2's byte split.
    void emit_table_constants() {
        align(64);
        // avx2 bf16: codes 0-3 8-11 in v_values, 4-7 12-15 in v_values_hi (see
        // build_table_avx2); else in order.
        const bool split = !avx512 && c_.dst_dt == data_type::bf16;
        L(l_values);
        for (int i = 0; i < 16; ++i) {
            // split: i = 8 * half + 4 * lane + k holds code 8 * lane + 4 * half + k.
            const int v = split ? 8 * (i / 4 % 2) + 4 * (i / 8) + i % 4 : i;
            dd(table_value(v));
        }
        if (!avx512) {
            // vpshufb control: each lane's 8 codes split into their low bytes, then
            // their high bytes; the codes are words in order, or (split) word 2k holds
            // code k and word 2k + 1 code k + 4 (k < 4).
            L(l_split);
            for (int lane = 0; lane < 2; ++lane)
                for (int b = 0; b < 2; ++b)
                    for (int c = 0; c < 8; ++c)
                        db(2 * (split ? 2 * (c % 4) + c / 4 : c) + b);
        }
    }

    /// The table's entry for nibble `code`: x as s32 where a zero point is subtracted (x is
    /// an integer then), else x's f32 bits.
    uint32_t table_value(int code) const {
        if (float4()) return f32_bits(minifloat_to_f32(c_.src_dt, static_cast<uint32_t>(code)));
        const int x = c_.src_dt == data_type::s4 && code >= 8 ? code - 16 : code;
        return has_zp() ? static_cast<uint32_t>(x) : f32_bits(static_cast<float>(x));
    }

    /// lane_lookup()'s table for s4: the 16 values as f32, in code order.
    void emit_int4_constants() {
        align(64);
        L(l_int4);
        for (int code = 0; code < 16; ++code)
            dd(f32_bits(static_cast<float>(code >= 8 ? code - 16 : code)));
    }

    /// The arithmetic path's float4 decode (to_f32()): avx512 the 16 values in code
    /// order; avx2 the 8 magnitudes, entry m xor-ed with m << 28, which the decode's shifted
    /// code cancels.
    void emit_float4_constants() {
        align(64);
        L(l_float4);
        for (uint32_t code = 0; code < (avx512 ? 16u : 8u); ++code)
            dd(f32_bits(minifloat_to_f32(c_.src_dt, code)) ^ (avx512 ? 0u : code << 28));
    }

    /// Vector u's x (vreg(u, 0): s32, widened and the zero point subtracted) as f32, exactly:
    /// integers converted, f4_e2m1 and float8 codes decoded to their values (vreg(u, 1..4)
    /// scratch as the type needs). avx2's vpermps takes 8 entries, so a float4 sign comes
    /// from the code shifted to bit 31: code << 28 also holds the magnitude bits at 28..30,
    /// which the xor-ed entries take out again.
    void to_f32(int u) {
        const Vmm x = vreg(u, 0), t = vreg(u, 2);
        if (float8()) {
            const Vmm code = vreg(u, 3);
            vmovaps(code, x);
            f8_->decode(x, code, vreg(u, 1), t, vreg(u, 4));
            return;
        }
        codes_to_f32(x, t);
    }

    /// x = f32 of x's s32 lanes (integers, x - zp) or, for f4_e2m1, of its codes; t is
    /// scratch (avx2 float4).
    void codes_to_f32(const Vmm &x, const Vmm &t) {
        if (!float4()) {
            if (avx512)
                vcvtdq2ps(x, x | T_rn_sae);
            else
                vcvtdq2ps(x, x); // MXCSR: round to nearest even (qgraph's required environment)
            return;
        }
        if (avx512) {
            vpermps(x, x, ptr[rip + l_float4]); // indices: the codes' low 4 bits
            return;
        }
        vpslld(t, x, 28);
        vpermps(x, x, ptr[rip + l_float4]); // indices: the codes' low 3 bits
        vpxor(x, x, t);
    }

    /// y = f32(x - zp) * s over the 16 table values (the zero point in v_zp).
    void table_product(const Vmm &y, const Operand &s, bool hi = false) {
        const Vmm &values = hi ? v_values_hi : v_values;
        if (c_.zp_dt == data_type::undef) {
            vmulps(y, values, s);
            return;
        }
        vpsubd(y, values, v_zp); // exact: |x - zp| <= 2^30 + 15
        if (avx512)
            vcvtdq2ps(y, y | T_rn_sae);
        else
            vcvtdq2ps(y, y); // MXCSR: round to nearest even, as in vector()
        vmulps(y, y, s);
    }

    /// Batch group g's scale (f32 at rsp), broadcast by the multiply itself: a separate
    /// vbroadcastss per group cost a quarter of the time of groups of 32 (bf16, one thread).
    Address batch_scale(int g) const { return ptr_b[rsp + 4 * g]; }

    /// The next group's zero point into v_zp, if there are zero points.
    void next_zp() {
        if (c_.zp_dt == data_type::undef) return;
        load_zp();
        inc(reg_zpi);
    }

    /// The group's scale and zero point loaded, and its table built into v_table.
    void group_table() {
        load_scale();
        if (c_.zp_dt != data_type::undef) load_zp();
        // The bf16 instruction choice only concerns the table's 16 outputs.
        Label l_int, l_done;
        if (c_.bf16_insn) {
            subnormal_scale_jump(l_int);
            build_table(true, v_s);
            jmp(l_done, T_NEAR);
        }
        L(l_int);
        build_table(false, v_s);
        L(l_done);
    }

    /// To `to` unless the scale load_scale() left in xmm0 is a power of two (or Inf) at or
    /// above min_exact_scale() in magnitude (top_halves()). Uses eax.
    void inexact_scale_jump(const Label &to) {
        vmovd(eax, Xmm(0));
        test(eax, 0x007fffff);
        jnz(to, T_NEAR);
        and_(eax, 0x7f800000);
        cmp(eax, f32_bits(min_exact_scale()));
        jb(to, T_NEAR);
    }

    /// Jumps to `to` when the scale in xmm0 (as f32) is subnormal: vcvtneps2bf16 flushes
    /// subnormal results, and with |x - zp| an integer only a subnormal scale gives any.
    void subnormal_scale_jump(const Label &to) {
        vmovd(eax, Xmm(0));
        and_(eax, 0x7fffffff);
        dec(eax);
        cmp(eax, 0x7ffffe);
        jbe(to, T_NEAR);
    }

    /// v_table = the group's 16 outputs, y[code] = round_to_dst(f32(x(code) - zp) * s): the
    /// arithmetic path's instructions on the 16 values, so each lookup is bit for bit what
    /// that path computes. 16-bit outputs are in the low 16 words. Uses vregs 0..2.
    void build_table(bool insn, const Operand &s) {
        if (!avx512) return build_table_avx2(s);
        const Vmm y = vreg(0, 0), t = vreg(0, 1), n = vreg(0, 2);
        table_product(y, s);
        const Ymm table16(v_table.getIdx());
        switch (c_.dst_dt) {
            case data_type::bf16:
                if (insn) {
                    vcvtneps2bf16(table16, y);
                } else {
                    round_bf16(y, t, n);
                    vpmovdw(table16, t); // every value < 2^16: exact
                }
                break;
            case data_type::f16: vcvtps2ph(table16, y, 0); break;
            default: vmovaps(v_table, y); break;
        }
    }

    /// avx2: v_table / v_table_hi = the low / high bytes of the group's 16 bf16 or f16
    /// outputs, in both lanes (vpshufb tables). no_nan: the scale is neither NaN nor Inf, so
    /// no output is NaN (bf16 rounds without the NaN blend). Uses vregs 0..5.
    void build_table_avx2(const Operand &s, bool no_nan = false) {
        const Vmm w = vreg(0, 1);
        table_words_avx2(w, s, no_nan);
        vpshufb(w, w, ptr[rip + l_split]); // lo 0-7, hi 0-7 | lo 8-15, hi 8-15
        vpermq(v_table, w, 0x88); // qwords 0 2 0 2: lo 0-15 | lo 0-15
        vpermq(v_table_hi, w, 0xdd); // qwords 1 3 1 3: hi 0-15 | hi 0-15
    }

    /// avx2: two groups' tables side by side, the first's (its scale broadcast in v_s) in
    /// the low lanes of v_table / v_table_hi, the second's (scale s1, broadcast into v_s; its
    /// zero point loaded in between) in the high lanes: lookup64() of 32 elements of each.
    /// Uses vregs 0..5.
    void build_table_pair_avx2(const Address &s1, bool no_nan) {
        const Vmm wb = vreg(0, 1), x = vreg(0, 0);
        table_words_avx2(v_table_hi, v_s, no_nan); // free until the end: a temporary
        next_zp();
        vbroadcastss(v_s, s1);
        table_words_avx2(wb, v_s, no_nan);
        vperm2i128(x, v_table_hi, wb, 0x20); // first's codes 0-7 | second's 0-7
        vperm2i128(wb, v_table_hi, wb, 0x31); // first's codes 8-15 | second's 8-15
        vpshufb(x, x, ptr[rip + l_split]); // lo 0-7, hi 0-7 (first) | the same (second)
        vpshufb(wb, wb, ptr[rip + l_split]); // lo 8-15, hi 8-15 (first) | (second)
        vpunpcklqdq(v_table, x, wb); // lo 0-15 (first) | lo 0-15 (second)
        vpunpckhqdq(v_table_hi, x, wb); // hi 0-15 (first) | hi 0-15 (second)
    }

    /// avx2: w = the group's 16 outputs (bf16 or f16) as words, codes 0-7 in the low lane and
    /// 8-15 in the high one, each lane's order the one l_split undoes. Uses vregs 0..5 but w.
    void table_words_avx2(const Vmm &w, const Operand &s, bool no_nan) {
        const Vmm y0 = vreg(0, 0), t0 = vreg(0, 2), n0 = vreg(1, 0);
        const Vmm y1 = vreg(1, 1), t1 = vreg(1, 2), n1 = w;
        table_product(y0, s);
        table_product(y1, s, true);
        if (c_.dst_dt == data_type::bf16) {
            // y0 holds codes 0-3 | 8-11, y1 codes 4-7 | 12-15 (l_values): dword i of a lane
            // takes code i from y0 in its low word and code i + 4 from y1 in its high word,
            // so that l_split orders each lane's 8 codes.
            if (no_nan) {
                bf16_rounding<isa>(*this, v_one, v_round, v_quiet).round_no_nan(t0, y0);
                bf16_rounding<isa>(*this, v_one, v_round, v_quiet).round_no_nan(t1, y1);
                vpsrld(t0, t0, 16); // codes in the high words
            } else {
                round_bf16(y0, t0, n0);
                round_bf16(y1, t1, n1);
                vpslld(t1, t1, 16); // codes in the low words
            }
            vpblendw(w, t0, t1, 0xaa);
        } else {
            vcvtps2ph(Xmm(w.getIdx()), y0, 0);
            vcvtps2ph(Xmm(t1.getIdx()), y1, 0);
            vinserti128(w, w, Xmm(t1.getIdx()), 1); // codes 0-7 | 8-15
        }
    }

    /// Groups of at most 4 whole lookups (the small groups, where per-group work counts)
    /// are also taken `batch` at a time: one vector of scales.
    static constexpr int batch = avx512 ? 16 : 8;
    bool batched() const { return whole_groups() && c_.group / table_vlen() <= 4; }

    /// bf16 destinations with the instruction convert two groups' tables at once.
    bool pairs() const { return batched() && c_.bf16_insn; }

    /// `batch` whole groups whose f32 scales are at rsp, by table lookup; then the pointers
    /// moved past them. no_nan (avx2 bf16): no scale is NaN or Inf.
    void lookup_batch(bool insn, bool no_nan = false) {
        const int tv = table_vlen();
        const int vectors = static_cast<int>(c_.group / tv);
        const auto lookups = [&](int g, bool high) {
            for (int u = 0; u < vectors; ++u)
                lookup(u, static_cast<int>(g * c_.group) + u * tv, false, high);
        };
        if (!avx512) {
            // Lookups of 64 elements, whose lanes take 32 each: groups of 32 in pairs, the
            // tables side by side; larger groups one at a time, the table in both lanes.
            for (int g = 0; g < batch; g += vectors == 1 ? 2 : 1) {
                next_zp();
                vbroadcastss(v_s, ptr[rsp + 4 * g]);
                const int at = static_cast<int>(g * c_.group);
                if (vectors == 1) {
                    build_table_pair_avx2(ptr[rsp + 4 * (g + 1)], no_nan);
                    lookup64(at);
                    continue;
                }
                build_table_avx2(v_s, no_nan);
                for (int u = 0; u < vectors / 2; ++u) lookup64(at + 64 * u);
                if (vectors % 2 != 0) lookup_avx2(0, at + 64 * (vectors / 2));
            }
        } else if (insn && pairs()) {
            // Two groups' tables converted by one vcvtne2ps2bf16: the even group's in words
            // 0..15, the odd group's in words 16..31 (its indices get 16 added).
            const Vmm ya = vreg(0, 0), yb = vreg(0, 1);
            for (int g = 0; g < batch; g += 2) {
                next_zp();
                table_product(ya, batch_scale(g));
                next_zp();
                table_product(yb, batch_scale(g + 1));
                vcvtne2ps2bf16(v_table, yb, ya);
                lookups(g, false);
                lookups(g + 1, true);
            }
        } else {
            for (int g = 0; g < batch; ++g) {
                next_zp();
                build_table(insn, batch_scale(g));
                lookups(g, false);
            }
        }
        add(reg_src, batch * c_.group / 2);
        add(reg_dst, batch * c_.group * dst_size());
        add(reg_scale, batch * scale_size());
    }

    /// Groups that are whole vectors of lookups take the fast loop in generate().
    bool whole_groups() const { return table() && c_.group > 0 && c_.group % table_vlen() == 0; }

    /// One whole group (c_.group elements) by table lookup, then the pointers moved past it.
    void lookup_whole_group() {
        const int tv = table_vlen();
        const int64_t vectors = c_.group / tv;
        if (vectors > unroll()) {
            mov(reg_len, c_.group);
            return lookup_group();
        }
        for (int u = 0; u < vectors; ++u) lookup(u, u * tv, false);
        add(reg_src, c_.group / 2);
        add(reg_dst, c_.group * dst_size());
    }

    /// The reg_len elements of one group by table lookup, then the pointers moved past them.
    void lookup_group() {
        const int tv = table_vlen();
        element_loop(
                reg_len, tv, unroll(), false, [&](int u, int off, bool) { lookup(u, off, false); },
                [&](int elems) {
                    add(reg_src, elems / 2);
                    add(reg_dst, elems * dst_size());
                });
        if (avx512) {
            // The last reg_len < tv elements under k1 (elements) and k2 (their bytes).
            Label l_none;
            test(reg_len, reg_len);
            jz(l_none, T_NEAR);
            mov(rcx, reg_len);
            mov(eax, 1);
            shl(eax, cl);
            dec(eax);
            kmovd(k1, eax);
            inc(ecx);
            shr(ecx, 1);
            mov(eax, 1);
            shl(eax, cl);
            dec(eax);
            kmovd(k2, eax);
            lookup(0, 0, true);
            L(l_none);
        } else {
            bounce_tail([&] { lookup(0, 0, false); });
        }
        mov(rax, reg_len);
        shr(rax, 1); // even, but for the call's last element
        add(reg_src, rax);
        mov(rax, reg_len);
        imul(rax, rax, dst_size());
        add(reg_dst, rax);
    }

    /// table_vlen() elements at element `off` (even): their nibbles widened to indices in
    /// element order, looked up in v_table, stored.
    void lookup(int u, int off, bool tail, bool high = false) {
        if (!avx512) return lookup_avx2(u, off);
        const Vmm a = vreg(u, 0), b = vreg(u, 1);
        const bool words = dst_size() == 2;
        // The source bytes: 16 (32 elements) for 16-bit outputs, 8 for f32, in the low half
        // of a (or a's xmm) as words.
        const Address at = ptr[reg_src + off / 2];
        const Xmm ax(a.getIdx()), bx(b.getIdx());
        const Xmm aw = words ? Ymm(a.getIdx()) : ax, bw = words ? Ymm(b.getIdx()) : bx;
        const Xmm mask = words ? Ymm(v_nibble.getIdx()) : Xmm(v_nibble.getIdx());
        if (tail) {
            vmovdqu8(ax | k2 | T_z, at);
            vpmovzxbw(aw, ax);
        } else {
            vpmovzxbw(aw, at);
        }
        // Byte (hi << 4) | lo as the word w: (w | w << 4) & 0x0f0f has lo in its low byte and
        // hi in its high byte, the codes in element order; widened again they are indices.
        vpsllw(bw, aw, 4);
        vpternlogd(aw, bw, mask, 0xa8); // (a | b) & nibble mask
        const Address d = ptr[reg_dst + off * dst_size()];
        const Address dm = tail ? Address(d | k1) : d;
        if (words) {
            vpmovzxbw(a, Ymm(a.getIdx()));
            if (high) vpord(a, a, v_high);
            vpermw(a, a, v_table);
            vmovdqu16(dm, a);
        } else {
            vpmovzxbd(a, ax);
            vpermps(a, a, v_table);
            vmovups(dm, a);
        }
    }

    /// avx2: 64 elements at element `off` (even), 32 looked up in each lane's table (see
    /// build_table_pair_avx2): the 32 bytes' nibbles split and interleaved into codes in
    /// element order (elements 0-15 | 32-47, 16-31 | 48-63), two vpshufb per 32 outputs, the
    /// bytes interleaved back into words, the lanes paired into whole stores. Uses vregs 0..5.
    void lookup64(int off) {
        const Vmm a = vreg(0, 0), b = vreg(0, 1), c = vreg(0, 2), d = vreg(1, 0), e = vreg(1, 1);
        vmovdqu(a, ptr[reg_src + off / 2]);
        vpsrlw(b, a, 4);
        vpand(a, a, v_nibble);
        vpand(b, b, v_nibble);
        vpunpckhbw(c, a, b); // codes of elements 16-31 | 48-63
        vpunpcklbw(a, a, b); // codes of elements 0-15 | 32-47
        const int dst = off * dst_size();
        const Vmm later = vreg(1, 2);
        for (int h = 0; h < 2; ++h) {
            const Vmm codes = h == 0 ? a : c;
            vpshufb(b, v_table, codes);
            vpshufb(codes, v_table_hi, codes);
            vpunpcklbw(d, b, codes); // outputs 0-7 | 32-39 (+ 16 h)
            vpunpckhbw(e, b, codes); // outputs 8-15 | 40-47 (+ 16 h)
            vperm2i128(b, d, e, 0x20);
            vperm2i128(h == 0 ? later : d, d, e, 0x31);
            // Stores in address order: outputs 0-15, 16-31, 32-47, 48-63.
            vmovdqu(ptr[reg_dst + dst + 32 * h], b);
            if (h == 1) {
                vmovdqu(ptr[reg_dst + dst + 64], later);
                vmovdqu(ptr[reg_dst + dst + 96], d);
            }
        }
    }

    /// avx2: 32 elements at element `off` (even): their codes (nibbles split and interleaved
    /// into element order, elements 0-15 | 16-31 in the lanes) look up the low and the high
    /// bytes of their outputs, which interleave back into words.
    void lookup_avx2(int u, int off) {
        const Vmm a = vreg(u, 0), b = vreg(u, 1), c = vreg(u, 2);
        const Xmm ax(a.getIdx()), bx(b.getIdx()), cx(c.getIdx());
        const Xmm nib(v_nibble.getIdx());
        vmovdqu(ax, ptr[reg_src + off / 2]);
        vpsrlw(bx, ax, 4);
        vpand(ax, ax, nib);
        vpand(bx, bx, nib);
        vpunpckhbw(cx, ax, bx); // codes of elements 16..31
        vpunpcklbw(ax, ax, bx); // codes of elements 0..15
        vinserti128(a, a, cx, 1);
        vpshufb(b, v_table, a);
        vpshufb(c, v_table_hi, a);
        vpunpcklbw(a, b, c); // outputs 0-7 | 16-23
        vpunpckhbw(b, b, c); // outputs 8-15 | 24-31
        const int d = off * dst_size();
        vmovdqu(ptr[reg_dst + d], ax);
        vmovdqu(ptr[reg_dst + d + 16], bx);
        vextracti128(ptr[reg_dst + d + 32], a, 1);
        vextracti128(ptr[reg_dst + d + 48], b, 1);
    }

    /// Arithmetic groups that are whole vectors (8-bit x; avx2's 4-bit x to f32) take
    /// block_step(); groups of more than max_block_vectors() go one per step.
    bool blocks() const { return !table() && c_.group > 0 && c_.group % vlen == 0; }
    int max_block_vectors() const { return 2 * unroll(); }
    int block_vectors() const { return static_cast<int>(c_.group / vlen); }
    int block_groups() const {
        return block_vectors() > max_block_vectors()
                ? 1
                : std::max(1, max_block_vectors() / block_vectors());
    }

    /// block_groups() whole groups, then the pointers moved past them: each group's scale
    /// and zero point read at its static offset from reg_scale / reg_zpi (avx512 f32
    /// scales broadcast by the multiply itself), its vectors straight-line.
    void block_step(bf16_out how) {
        const bool embedded = avx512 && c_.scale_dt == data_type::f32;
        if (block_vectors() > max_block_vectors()) {
            if (!embedded) load_scale();
            if (c_.zp_dt != data_type::undef) load_zp();
            mov(reg_len, c_.group);
            const Address at = ptr_b[reg_scale];
            group(how, embedded ? static_cast<const Operand &>(at) : v_s);
        } else {
            for (int g = 0; g < block_groups(); ++g) {
                if (!embedded) load_scale(g);
                if (c_.zp_dt != data_type::undef) load_zp(g);
                const Address at = ptr_b[reg_scale + g * 4];
                const Operand &s = embedded ? static_cast<const Operand &>(at) : v_s;
                const int first = static_cast<int>(g * c_.group);
                if (quads() && c_.group % 32 == 0) {
                    for (int i = 0; i < c_.group; i += 32) quad(first + i, how, s);
                    continue;
                }
                for (int i = 0; i < block_vectors(); ++i)
                    vector(i % unroll(), first + i * vlen, false, how, s);
            }
            add(reg_src, src_bytes(static_cast<int>(block_groups() * c_.group)));
            add(reg_dst, block_groups() * c_.group * dst_size());
        }
        add(reg_scale, block_groups() * scale_size());
        add(reg_zpi, block_groups());
    }

    /// word_blocks(): word_groups() whole groups by words, then the pointers moved past
    /// them; to `redo`, the pointers where they were, when a scale is out of the words' range
    /// or a code is NaN or Inf (another path stores the groups again). Uses vregs 0..9, v_s,
    /// and on avx512 k5 and k7.
    void word_block(const Label &redo) {
        const int groups = word_groups();
        const Vmm a = v_s, acc(9);
        const Vmm t[float8_bf16_words<isa>::scratch]
                = {Vmm(0), Vmm(1), Vmm(2), Vmm(3), Vmm(4), Vmm(5), Vmm(6), Vmm(7), Vmm(8)};
        // The scales four at a time (frame_words holds eight A words).
        for (int first = 0; first < groups; first += 4) {
            const int count = std::min(4, groups - first);
            load_scales_f32(Xmm(first / 4), count, first * scale_size());
            words_->scale_jump(Xmm(first / 4), Xmm(2), count,
                    ptr[rsp + frame_words + 2 * first], redo);
        }
        const int elems = static_cast<int>(groups * c_.group);
        const bool planes = words_->planes() && elems % 64 == 0;
        words_->set_up(t, acc, planes);
        if (planes) {
            // 64 codes a step, whose halves may lie in two groups: t[3] holds the second's k.
            const auto group_of = [&](int at) { return static_cast<int>(at / c_.group); };
            // scale_jump()'s A words (in its xmm0 and xmm1, four each) for chunk64().
            vpunpcklqdq(Xmm(0), Xmm(0), groups > 4 ? Xmm(1) : Xmm(0));
            words_->store_plane_groups(Xmm(0), Xmm(1), ptr[rsp + frame_pairs],
                    ptr[rsp + frame_pairs + 16]);
            const auto set = [&](const Vmm &r, int g) {
                words_->set_plane_group(r, ptr[rsp + frame_pairs + 4 * g]);
            };
            int lo_group = -1;
            for (int at = 0; at < elems; at += 64) {
                const int g0 = group_of(at), g1 = group_of(at + 32);
                if (g0 != lo_group) set(a, g0);
                lo_group = g0;
                if (g1 != g0) set(t[3], g1);
                words_->chunk64(ptr[reg_src + at], reg_dst, 2 * at, a, g1 != g0 ? t[3] : a,
                        acc, t);
            }
        } else {
            for (int g = 0; g < groups; ++g) {
                words_->set_group(a, word[rsp + frame_words + 2 * g], t);
                for (int j = 0; j < static_cast<int>(c_.group / 32); ++j) {
                    const int at = static_cast<int>(g * c_.group) + 32 * j;
                    words_->chunk(ptr[reg_src + at], reg_dst, 2 * at, a, acc, t);
                }
            }
        }
        words_->special_jump(acc, t, redo, planes);
        sub(reg_n, groups * c_.group);
        add(reg_src, groups * c_.group);
        add(reg_dst, 2 * groups * c_.group);
        add(reg_scale, groups * scale_size());
        add(reg_zpi, groups);
    }

    /// The `count` (1, 2 or 4) scales at reg_scale + off bytes, exactly as f32, into s's low
    /// dwords.
    void load_scales_f32(const Xmm &s, int count, int off = 0) {
        const int bytes = count * scale_size();
        if (bytes == 2) {
            movzx(eax, word[reg_scale + off]);
            vmovd(s, eax);
        } else if (bytes == 4) {
            vmovd(s, dword[reg_scale + off]);
        } else if (bytes == 8) {
            vmovq(s, qword[reg_scale + off]);
        } else {
            vmovdqu(s, ptr[reg_scale + off]);
        }
        scales_to_f32(s, s, s);
    }

    /// The scales of scale_dt at `from` (memory, or d itself holding them packed), as many as
    /// d has lanes, exactly as f32 into d; dm is d, or d under the tail mask, for the widening.
    void scales_to_f32(const Xmm &d, const Xmm &dm, const Operand &from) {
        switch (c_.scale_dt) {
            case data_type::bf16:
                vpmovzxwd(dm, from);
                vpslld(d, d, 16);
                break;
            case data_type::f16: vcvtph2ps(dm, from); break; // exact, as load_scale
            default:
                if (from.isMEM()) vmovups(dm, from);
                break;
        }
    }

    /// Group reg_scale + g's scale, exactly as f32, into v_s (and xmm0, for the bf16 check).
    void load_scale(int g = 0) {
        const Xmm t(0);
        const int at = g * scale_size();
        switch (c_.scale_dt) {
            case data_type::bf16:
                movzx(eax, word[reg_scale + at]);
                shl(eax, 16);
                vmovd(t, eax);
                break;
            case data_type::f16:
                movzx(eax, word[reg_scale + at]);
                vmovd(t, eax);
                vcvtph2ps(t, t); // exact; a NaN is made quiet, as f16_to_f32 does
                break;
            default: vmovss(t, dword[reg_scale + at]); break;
        }
        vbroadcastss(v_s, t);
    }

    /// Group reg_zpi + g's zero point (plus the s4 bias) into v_zp. Uses eax, rcx, xmm1.
    void load_zp(int g = 0) {
        switch (c_.zp_dt) {
            case data_type::s8: movsx(eax, byte[reg_zps + reg_zpi + g]); break;
            case data_type::u8: movzx(eax, byte[reg_zps + reg_zpi + g]); break;
            case data_type::s32: mov(eax, dword[reg_zps + reg_zpi * 4 + g * 4]); break;
            default: // s4, u4: element zpi is in byte zpi / 2, from bit 4 * (zpi % 2)
                lea(rax, ptr[reg_zpi + g]);
                shr(rax, 1);
                movzx(eax, byte[reg_zps + rax]);
                lea(rcx, ptr[reg_zpi + g]);
                and_(ecx, 1);
                shl(ecx, 2);
                shr(eax, cl);
                if (c_.zp_dt == data_type::s4) {
                    shl(eax, 28);
                    sar(eax, 28);
                } else {
                    and_(eax, 0xf);
                }
                break;
        }
        if (biased()) add(eax, 8);
        vmovd(Xmm(1), eax);
        vpbroadcastd(v_zp, Xmm(1));
    }

    /// avx2 e5m2 / e4m3 x (MXFP8, blocked FP8 weights): 32 codes at a time decoded as f16
    /// words (float8_emitter::load_quad()), where to_f32() decodes 8.
    bool quads() const { return float8() && f8_->decodes_quads() && !lanes(); }

    /// quads(): the 32 elements at element off, each vector of 8 then as vector() ends.
    void quad(int off, bf16_out how, const Operand &s) {
        // Codes 0-7, 8-15, 16-23, 24-31: registers scale_and_store() leaves alone.
        const Vmm w[4] = {vreg(0, 3), vreg(0, 4), vreg(1, 3), vreg(1, 4)};
        f8_->load_quad(w, ptr[reg_src + off], vreg(0, 0));
        for (int v = 0; v < 4; ++v) {
            f8_->quad_to_f32(vreg(v % 2, 0), Xmm(w[v].getIdx()));
            scale_and_store(v % 2, off + 8 * v, false, how, s);
        }
    }

    /// The reg_len elements of one group, then the pointers moved past them.
    void group(bf16_out how, const Operand &s) {
        if (quads()) {
            Label l_top, l_done;
            L(l_top);
            cmp(reg_len, 32);
            jl(l_done, T_NEAR);
            quad(0, how, s);
            add(reg_src, 32);
            add(reg_dst, 32 * dst_size());
            sub(reg_len, 32);
            jmp(l_top, T_NEAR);
            L(l_done);
        }
        element_loop(
                reg_len, vlen, unroll(), avx512,
                [&](int u, int off, bool tail) { vector(u, off, tail, how, s); },
                [&](int elems) {
                    add(reg_src, src_bytes(elems));
                    add(reg_dst, elems * dst_size());
                });
        // reg_len < vlen elements are left: done under k1 (avx512) or not yet (avx2).
        if (!avx512) bounce_tail([&] { vector(0, 0, false, how, s); });
        mov(rax, reg_len);
        if (nibbles()) shr(rax, 1); // even, but for the call's last element
        add(reg_src, rax);
        mov(rax, reg_len);
        imul(rax, rax, dst_size());
        add(reg_dst, rax);
    }

    /// Copies rcx bytes from `from` to `to`. Uses rsi and al.
    void copy_bytes(const RegExp &to, const RegExp &from) {
        Label l_copy, l_done;
        xor_(esi, esi);
        L(l_copy);
        cmp(rsi, rcx);
        jae(l_done, T_NEAR);
        mov(al, byte[from + rsi]);
        mov(byte[to + rsi], al);
        inc(rsi);
        jmp(l_copy, T_NEAR);
        L(l_done);
    }

    /// avx2: the last reg_len elements of a group (fewer than a vector: 8, or 32 looked up)
    /// through the stack block, so that neither buffer is touched past them;
    /// vector_at_rsp() emits one vector's code, which runs on the block.
    template <typename Vector>
    void bounce_tail(Vector &&vector_at_rsp) {
        Label l_none;
        test(reg_len, reg_len);
        jz(l_none, T_NEAR);
        mov(rcx, reg_len);
        if (nibbles()) {
            inc(rcx);
            shr(rcx, 1);
        }
        copy_bytes(rsp, reg_src);
        mov(reg_keep_src, reg_src);
        mov(reg_keep_dst, reg_dst);
        mov(reg_src, rsp);
        lea(reg_dst, ptr[rsp + 32]);
        if (lanes()) {
            // The lanes' scales and zero points go through the block too.
            mov(ptr[rsp + frame_keep], reg_scale);
            mov(ptr[rsp + frame_keep + 8], reg_zps);
            imul(rcx, reg_len, scale_size());
            copy_bytes(rsp + frame_s, reg_scale);
            lea(reg_scale, ptr[rsp + frame_s]);
            if (has_zp()) {
                mov(rcx, reg_len);
                if (four_bit(c_.zp_dt)) {
                    inc(rcx);
                    shr(rcx, 1);
                } else {
                    imul(rcx, rcx, zp_size());
                }
                copy_bytes(rsp + frame_zp, reg_zps);
                lea(reg_zps, ptr[rsp + frame_zp]);
            }
        }
        vector_at_rsp();
        if (lanes()) {
            mov(reg_scale, ptr[rsp + frame_keep]);
            mov(reg_zps, ptr[rsp + frame_keep + 8]);
        }
        mov(reg_src, reg_keep_src);
        mov(reg_dst, reg_keep_dst);
        mov(rcx, reg_len);
        imul(rcx, rcx, dst_size());
        copy_bytes(reg_dst, rsp + 32);
        L(l_none);
    }

    /// vlen elements of x at element `off` (even for nibbles), widened to s32 in x.
    void load_x(const Vmm &x, const Vmm &t1, const Vmm &t2, int off, bool tail) {
        const Address at = ptr[reg_src + src_bytes(off)];
        if (!nibbles()) {
            const Vmm xd = tail ? Vmm(x | k1 | T_z) : x;
            if (c_.src_dt == data_type::s8)
                vpmovsxbd(xd, at);
            else
                vpmovzxbd(xd, at);
            return;
        }
        load_nibbles(x, t1, t2, at, tail,
                biased()                          ? nibble_form::biased
                        : c_.src_dt == data_type::s4 ? nibble_form::sign_extended
                                                     : nibble_form::plain);
    }

    /// The vlen nibbles at `at` (from a byte), widened to s32 in v; t1 and t2 are scratch.
    /// A tail reads only the ceil(reg_len / 2) bytes its nibbles are in (k2).
    void load_nibbles(const Vmm &v, const Vmm &t1, const Vmm &t2, const Address &at, bool tail,
            nibble_form form) {
        const Xmm a(t1.getIdx()), b(t2.getIdx());
        if (tail) {
            mov(rcx, reg_len);
            inc(rcx);
            shr(rcx, 1);
            mov(eax, 1);
            shl(eax, cl);
            dec(eax);
            kmovw(k2, eax);
            vmovdqu8(a | k2 | T_z, at);
        } else if (avx512) {
            vmovq(a, at);
        } else {
            vmovd(a, at);
        }
        split_nibbles(a, b, form);
        if (form == nibble_form::sign_extended)
            vpmovsxbd(v, a);
        else
            vpmovzxbd(v, a);
    }

    /// The bytes of a, (hi << 4) | lo each, as their nibbles in element order, one a byte, in
    /// `form` (s4 values as bytes when sign-extended); b is scratch.
    void split_nibbles(const Xmm &a, const Xmm &b, nibble_form form) {
        // Byte b = (hi << 4) | lo widened to the word b, then (b | b << 4) & 0x0f0f puts lo
        // in the word's low byte and hi in its high byte: the nibbles in element order.
        vpmovzxbw(a, a);
        vpsllw(b, a, 4);
        if (avx512) {
            vpternlogd(a, b, Xmm(v_nibble.getIdx()), 0xa8); // (a | b) & nibble mask
        } else {
            vpor(a, a, b);
            vpand(a, a, Xmm(v_nibble.getIdx()));
        }
        if (form == nibble_form::plain) return;
        if (avx512)
            vpxord(a, a, Xmm(v_bias.getIdx()));
        else
            vpxor(a, a, Xmm(v_bias.getIdx()));
        if (form == nibble_form::sign_extended)
            vpsubb(a, a, Xmm(v_bias.getIdx())); // (code ^ 8) - 8: the s4 value as a byte
    }

    /// lanes(): the scales of vlen elements at element `off`, as f32, into s.
    void load_lane_scales(const Vmm &s, int off, bool tail) {
        const Vmm sd = tail ? Vmm(s | k1 | T_z) : s;
        scales_to_f32(s, sd, ptr[reg_scale + off * scale_size()]);
    }

    /// lanes(): the zero points of vlen elements at element `off`, as s32, into z (t is
    /// scratch).
    void load_lane_zps(const Vmm &z, const Vmm &t, int off, bool tail) {
        const Address at = ptr[reg_zps + zp_bytes(off)];
        const Vmm zd = tail ? Vmm(z | k1 | T_z) : z;
        switch (c_.zp_dt) {
            case data_type::s8: vpmovsxbd(zd, at); break;
            case data_type::u8: vpmovzxbd(zd, at); break;
            case data_type::s32:
                if (avx512)
                    vmovdqu32(zd, at);
                else
                    vmovdqu(z, at);
                break;
            default:
                load_nibbles(z, z, t, at, tail,
                        c_.zp_dt == data_type::s4 ? nibble_form::sign_extended
                                                  : nibble_form::plain);
                break;
        }
    }

    /// s: v_s, or the group's f32 scale in memory (avx512: broadcast by the multiply); in
    /// lanes(), each element's own scale and zero point.
    void vector(int u, int off, bool tail, bf16_out how, const Operand &s) {
        const Vmm x = vreg(u, 0), t1 = vreg(u, 1), t2 = vreg(u, 2);
        if (float8() && f8_->decodes_as_f16()) {
            // e5m2, and e4m3 on avx512: the codes as f16 words, no f32 subnormal operand
            // (decode() has one for every subnormal code, which activation-like data have).
            f8_->load_words(vreg(u, 3), ptr[reg_src + src_bytes(off)], tail);
            f8_->decode_f16(x, vreg(u, 3), t1); // x = f32(code), exact
            return scale_and_store(u, off, tail, how, s);
        }
        load_x(x, t1, t2, off, tail);
        if (lanes() && has_zp()) {
            load_lane_zps(t2, t1, off, tail);
            vpsubd(x, x, t2); // exact: |x - zp| <= 2^30 + 255
        } else if (subtracts()) {
            vpsubd(x, x, v_zp);
        }
        to_f32(u);
        scale_and_store(u, off, tail, how, s);
    }

    /// Vector u's f32 x (vreg(u, 0)) times its scale, stored at element off, rounded as
    /// `how` says; vreg(u, 1..2) are scratch.
    void scale_and_store(int u, int off, bool tail, bf16_out how, const Operand &s) {
        const Vmm x = vreg(u, 0), t1 = vreg(u, 1), t2 = vreg(u, 2);
        if (lanes()) {
            load_lane_scales(t1, off, tail);
            vmulps(x, x, t1);
        } else {
            vmulps(x, x, s);
        }
        const Address d = ptr[reg_dst + off * dst_size()];
        const Address dm = tail ? Address(d | k1) : d;
        switch (c_.dst_dt) {
            case data_type::bf16:
                if (how == bf16_out::insn) {
                    // Round to nearest even, NaN quiet: exact, as no result is subnormal.
                    vcvtneps2bf16(Ymm(x.getIdx()), x);
                    vmovdqu16(dm, Ymm(x.getIdx()));
                } else if (how == bf16_out::top_half) {
                    vpsrld(x, x, 16);
                    store_words(dm, x, t1);
                } else {
                    store_bf16(dm, x, t1, t2);
                }
                break;
            case data_type::f16: store_f16(dm, x); break;
            default:
                if (tail)
                    vmovups(dm, x);
                else
                    vmovups(d, x);
        }
    }

    /// f32 -> bf16 as common/half_types.hpp's f32_to_bf16: bits + 0x7fff + (bit 16), the top
    /// half; NaN: the top half with the quiet bit set. x is consumed; t and n are scratch.
    void store_bf16(const Address &d, const Vmm &x, const Vmm &t, const Vmm &n) {
        round_bf16(x, t, n);
        store_words(d, t, n);
    }

    /// The low words of w's dwords, each < 2^16, at d; n is scratch (avx2).
    void store_words(const Address &d, const Vmm &w, const Vmm &n) {
        if (avx512) {
            vpmovdw(d, w); // exact
            return;
        }
        const Xmm wx(w.getIdx()), nx(n.getIdx());
        vextracti128(nx, Ymm(w.getIdx()), 1);
        vpackusdw(wx, wx, nx); // exact
        vmovdqu(d, wx);
    }

    /// The bf16 codes of x's lanes (jit_bf16_emitter.hpp) into the low words of t's dwords.
    void round_bf16(const Vmm &x, const Vmm &t, const Vmm &n) {
        bf16_rounding<isa>(*this, v_one, v_round, v_quiet).round(t, x, n, k3);
    }
};

#undef CALL

} // namespace

jit_grouped_dequantize_kernel::jit_grouped_dequantize_kernel(const grouped_conf &conf)
    : jit_code(generate_for_isa<grouped_generator>(conf.isa, conf)) {}

} // namespace jit
} // namespace impl
} // namespace qgraph
