#ifndef QGRAPH_BACKENDS_JIT_JIT_QUANTIZE_GENERATOR_HPP
#define QGRAPH_BACKENDS_JIT_JIT_QUANTIZE_GENERATOR_HPP

// The quantize kernels' code generator (jit_quantize.hpp's kernel builds one): the class, its
// register plan and the predicates that name each kind of row, with its code in three files
// by what it emits:
//   jit_quantize.cpp          the frame: generate(), rows, loops, one vector, the checked
//                             multiply's check and its redo blocks
//   jit_quantize_blocked.cpp  blocked rows (quantize_conf::block): the parameters in the code
//   jit_quantize_groups.cpp   groups of several vectors a step, stored with packs (integers,
//                             16-bit words, float8 codes)
// Each member defined in one of them and called from another is instantiated explicitly
// where it is defined, for both ISAs. Only those three files include this header.

#include <cassert>
#include <cstddef>
#include <list>
#include <memory>

#include "common/data_types.hpp"
#include "backends/jit/jit_division.hpp"
#include "backends/jit/jit_dequantize_stage_emitter.hpp"
#include "backends/jit/jit_division_emitter.hpp"
#include "backends/jit/jit_float8_emitter.hpp"
#include "backends/jit/jit_float8_planes.hpp"
#include "backends/jit/jit_load_emitter.hpp"
#include "backends/jit/jit_quantize.hpp"
#include "backends/jit/jit_store_emitter.hpp"

namespace qgraph {
namespace impl {
namespace jit {

// The call's and the row parameters' fields, for the generator's code (each file that uses
// them undefines them at its end).
#define CALL(field) ptr[abi_arg + offsetof(quantize_call, field)]
#define PRM(field) dword[reg_prm + offsetof(quantize_params, field)]

/// The byte planes' registers (jit_float8_planes.hpp), all below 16, where the kernels
/// that take the planes keep none of their constants: the step's in 0-3, 6 and 9, the
/// planes' constants in 4, 5, 7, 8, 10 and 11, the tables in 12-15. float8_group() and
/// block_row(), the steps' redos, take 0-11 (unroll() <= 4), so the tables outlive them and
/// the constants are loaded again.
struct planes_registers {
    Xbyak::Zmm code {0}, hi {1}, lo {2}, a {3}, w1 {6}, kw {9};
    float8_byte_planes::tables tb {Xbyak::Zmm(12), Xbyak::Zmm(13), Xbyak::Zmm(14), Xbyak::Zmm(15)};
    float8_byte_planes::constants c {Xbyak::Zmm(4), Xbyak::Zmm(5), Xbyak::Zmm(7), Xbyak::Zmm(8),
            Xbyak::Zmm(10), Xbyak::Zmm(11)};
};

template <cpu_isa_t isa>
class quantize_generator : public jit_generator {
    using Vmm = typename isa_traits<isa>::Vmm;
    using Reg64 = Xbyak::Reg64;
    using Xmm = Xbyak::Xmm;
    using Address = Xbyak::Address;
    using Operand = Xbyak::Operand;
    using RegExp = Xbyak::RegExp;
    static constexpr int vlen = isa_traits<isa>::vlen;
    static constexpr bool avx512 = isa == avx512_core;

public:
    explicit quantize_generator(const quantize_conf &c)
        : c_(c)
        , div_(*this)
        , load_(*this, c.src_dt, c.round_dt, c.bf16_insn)
        , dq_(*this, c.dequantize_to)
        , st_(*this, c.dst_dt == data_type::f4_e2m1 ? data_type::u4 : c.dst_dt, // the codes
                  c.has_zp && c.lanes == lane_source::none, c.stream) {
        assert(c.dst_dt != data_type::f4_e2m1 || (blocked() && !c.recip && !c.has_zp));
        assert(!c.stream || (dst_size() == 1 && !blocked()));
        assert(!dequantize() || (is_int8(c.dst_dt) && !lanes() && !blocked() && !c.stream));
        assert(!st_.nibbles() || (blocked() && c.block % 2 == 0) || lane_packed());
        generate();
    }
    /// jit_quantize_kernel::stream_align().
    int stream_align() const { return st_.stream_align(); }

private:
    const quantize_conf c_;
    division_emitter<isa> div_; // every division below (jit_division_emitter.hpp)
    load_emitter<isa> load_; // every source load (jit_load_emitter.hpp)
    dequantize_stage_emitter<isa> dq_; // quantize_conf::dequantize_to: the output stage
    store_emitter<isa> st_; // every integer and float8 code store (jit_store_emitter.hpp)
    std::unique_ptr<float8_emitter<isa>> f8_; // float8 and f4_e2m1 destinations: the encode
    std::unique_ptr<float8_byte_planes> planes_; // scaled_half_planes(): bf16 into float8
    std::unique_ptr<float8_byte_planes> any_planes_; // the same, any scale (any_scale_planes_run())

    // General registers: the call's pointers and the element count.
    const Reg64 reg_src = r8, reg_dst = r9, reg_n = r10;
    const Reg64 reg_ls = r11, reg_lyhi = r12, reg_lya = r13, reg_lyb = rsi, reg_llo = r14;
    const Reg64 reg_lhi = r15, reg_lzp = rbx, reg_prm = rdx;
    const Reg64 reg_zp_base = r15; // blocked rows (no lane parameters): nibble_zps()
    const Reg64 reg_btab = rcx; // blocked rows: the row's block_table entry (block_loop())
    // Blocked rows (no lane parameters): the byte steps from one row to the next.
    const Reg64 reg_src_step = reg_lyhi, reg_dst_step = reg_lya;

    bool lanes() const { return c_.lanes != lane_source::none; }
    bool float8() const { return is_float8(c_.dst_dt); }
    /// f4_e2m1 destinations: blocked rows of the exact quotient (block_row()), encoded by
    /// the float8 emitter (its dword encode, which takes every minifloat type).
    bool float4() const { return c_.dst_dt == data_type::f4_e2m1; }
    /// float8 or float4 destinations: the code rounds the exact quotient itself.
    bool minifloat() const { return float8() || float4(); }
    /// float8 destinations encoded through f16 words (float8_emitter::encode_f16()), a
    /// vector's codes at a time; streaming kernels stream the stores of whole groups
    /// (store_float8_words(), the byte planes' steps) and store single vectors as others do.
    bool f8_words() const { return f8_ && f8_->encodes_through_f16(); }
    /// Broadcast rows of f8_words() encode four vectors at a time (float8_groups()); on avx2
    /// only where the source needs no rounding, whose scratch registers the groups' two a
    /// vector leave no room for (regs_per_vector()).
    bool f8_groups() const {
        return f8_words() && !lanes() && (avx512 || c_.round_dt == data_type::undef)
                && !rounds_quotient(); // the groups encode the quotient as it is
    }
    /// avx2 float8 groups keep two registers a vector, x and q: x's is the f16 stage's
    /// scratch once the quotient is formed, so four vectors fit beside the row's parameters
    /// and the word encode's register constants (float8_groups()).
    bool f8_pairs() const { return !avx512 && f8_groups(); }
    /// float8 broadcast rows of the guarded path (div_path::guarded) take the reciprocal
    /// path here (y_a and y_b in registers); without room for them (avx2 groups of bf16
    /// sources, whose unpack takes two more), such rows divide.
    bool guards() const {
        return float8() && c_.recip && !lanes() && (avx512 || !f8_unpacks_bf16());
    }
    /// float8 groups of the guarded and float8_checked paths encode the quotient by y_hi first
    /// (float8_emitter::flag_near_edges()) and redo a group with a flagged lane on the exact
    /// quotient (checked_float8_groups()); y8 = y_hi (e5m2) or y_hi * 2^-8 (e4m3) in v_y8.
    bool f8_checked() const { return f8_groups() && guards(); }
    /// q[i] = x[i] / s on the guarded path for n vectors: the bounded reciprocal path where
    /// every lane of every x[i] is finite with |x| <= guarded_max_x, else vdivps for all n.
    /// x[] are clobbered; t[] are scratch, one per vector (they may be q[]).
    void divide_guarded(const Vmm *q, const Vmm *x, const Vmm *t, int n);
    // divide_guarded()'s constants, 8 lanes each: |x| mask, the bits of guarded_max_x.
    Xbyak::Label l_guard_consts_;
    enum guard_const { g_abs = 0, g_max = 32 };
    /// float8 groups of bf16 sources widen them with vpunpck[lh]wd against zero (one
    /// in-lane shuffle a vector, where vpmovzxwd and a shift take two); the final byte
    /// permutation puts the elements back in order (float8_emitter::set_up_unpacked_order()).
    bool f8_unpacks_bf16() const {
        return f8_groups() && f8_->gathers_bytes() && c_.src_dt == data_type::bf16
                && c_.round_dt == data_type::undef;
    }
    int src_size() const { return static_cast<int>(size_of(c_.src_dt)); }
    bool dequantize() const { return c_.dequantize_to != data_type::undef; }
    /// The bytes of one stored element: the quantized type's, or the fused dequantize's.
    int dst_size() const {
        return static_cast<int>(size_of(dequantize() ? c_.dequantize_to : c_.dst_dt));
    }
    /// Blocked rows with s4 / u4 zero points: reg_bzp counts elements of the packed tensor
    /// at reg_zp_base (block_loop()).
    bool nibble_zps() const {
        return c_.has_zp && (c_.raw_zp_dt == data_type::s4 || c_.raw_zp_dt == data_type::u4);
    }
    /// The bytes of `elems` stored elements from a byte boundary (s4 / u4: even elems).
    int dst_bytes(int64_t elems) const {
        return static_cast<int>(st_.nibbles() ? elems / 2 : elems * dst_size());
    }
    int lane_zp_size() const {
        return c_.lanes == lane_source::raw ? static_cast<int>(size_of(c_.raw_zp_dt)) : 4;
    }

    /// Entry `off` (bytes) of a constant table of 8-lane rows after the code: the row on
    /// avx2, its first lane broadcast on avx512.
    Xbyak::Address table_entry(const Xbyak::Label &table, int off) {
        return avx512 ? ptr_b[rip + table + off] : ptr[rip + table + off];
    }

    // Vector registers. Constants are taken from the top; each unrolled vector gets a block
    // of registers from the bottom: x, q, t, then (lane params) s, y_hi, y_a, y_b, lo, hi, zp
    // (compact_lanes(): y_hi, lo, hi, zp).
    int top_ = isa_traits<isa>::nregs;
    Vmm take_const() { return Vmm(--top_); }
    Vmm v_s, v_yhi, v_ya, v_yb, v_lo, v_hi, v_zp, v_qmin, v_qmax;
    // The checked path (avx512, and avx2 lane groups; other avx2 code reads l_consts_).
    Vmm v_magic, v_tie_mask, v_check_zero;
    Vmm v_zero; // unpack_bf16()
    Vmm v_xhi, v_xlo; // word_groups(): the bounds of x (word_clamp::x, x_upper)
    Vmm v_y8; // checked_float8_groups(): the product's y (f8_checked())
    Vmm v_clamp_from; // bounded_groups(): quantize_params::clamp_from in every word
    Vmm v_fixed_y, v_fixed_f; // fixed_broadcast(): set_up_fixed_row()

    /// The checked path: a vector whose rounding the multiply cannot prove jumps to `redo`,
    /// which divides it on the reciprocal path and jumps back to `back` to finish it.
    /// `reload`: the multiply read x from memory (folded_load()), so the redo loads it.
    struct redo_block {
        Xbyak::Label redo, back;
        int off;
        bool tail, reload;
        Vmm x, q, t; // the vector's registers: x, its quotient, a scratch
        Vmm lo, hi; // the vector's bounds: the redo clamps its quotient as check() did
        Xbyak::Label *next = nullptr; // check_group(): the next vector's redo, not `back`
        // check_group() on avx512 and checked quads: redo only a vector with a flagged lane
        bool retest = false;
        // fixed_group(): the redo leaves (clamped rne(x / s) + zp) << fixed_bits
        bool fixed = false;
        // block_pair(): a vector of the second row (x a row step on, the next table entry)
        bool second_row = false;
    };
    std::list<redo_block> redos_;
    // avx2's constants, 8 lanes each, read from memory to leave the 16 registers to the
    // unrolled vectors: tie_magic, tie_mask, 0; the division's own follow them.
    Xbyak::Label l_consts_;
    enum avx2_const { c_magic = 0, c_mask = 32, c_zero = 64 };
    // block_loop()'s constants (both ISAs), a dword each: the floats 1, qmin, qmax; the
    // integers scaled_half_base(), scaled_half_most() and the planes pairs' B (fill_half_k()).
    Xbyak::Label l_block_consts_;
    enum block_const {
        b_one = 0,
        b_qmin = 4,
        b_qmax = 8,
        b_half_base = 12,
        b_half_most = 16,
        b_pair_b = 20
    };
    bool checked() const {
        if (c_.lanes == lane_source::table)
            return static_cast<div_path>(c_.lane_path) == div_path::checked;
        // The check bounds |q| by 256.5.
        return c_.recip && !lanes() && (is_int8(c_.dst_dt) || st_.nibbles())
                && !rounds_quotient();
    }
    /// The checked multiply without its check (jit_quantize_driver.cpp proves it at compile).
    bool proven() const {
        if (c_.lanes == lane_source::table)
            return static_cast<div_path>(c_.lane_path) == div_path::proven;
        return c_.proven && !lanes() && !rounds_quotient();
    }
    /// The quotient is rounded to f16 or bf16 after the division (quantize_conf::quotient_dt).
    bool rounds_quotient() const { return c_.quotient_dt != data_type::f32; }
    /// round_quotient() in integer instructions: bf16, and f16 into u8 / s8, whose range
    /// ends far inside f16's. Not f16 into 16-bit integers: those integers give 65536 where
    /// f16 overflows to Inf, and a zero point may bring 65536 into range; nor into float8,
    /// where f16's subnormal quotients matter (e5m2 has f16's exponents) and so do their
    /// ties: these quotients are converted to f16 and back.
    bool rounds_in_integers() const {
        return c_.quotient_dt == data_type::bf16
                || (c_.quotient_dt == data_type::f16 && is_int8(c_.dst_dt));
    }
    /// bf16 into float8 rounds ties to even: below bf16's normal range a tie can decide
    /// whether a quotient becomes a zero (+0 after + 0.f) or keeps its sign (the -0 code of
    /// e4m3fn and e5m2), e.g. 2^-133 / 2.
    bool rounds_ties_even() const {
        return c_.quotient_dt == data_type::bf16 && float8();
    }
    void round_quotient(const Vmm &q, const Vmm &t);
    // round_quotient()'s integer constants, 8 lanes each.
    Xbyak::Label l_round_consts_;
    enum round_const { r_half = 0, r_high = 32, r_half_below = 64, r_one = 96 };
    /// The checked and proven paths of broadcast rows, and the multiply path of a rounded
    /// quotient into bytes, store pack_vectors vectors at a time with packs: half the
    /// shuffle work of a vpmovusdb per vector (avx2: of an extract and two packs per
    /// vector). See jit_store_emitter.hpp.
    bool packed() const {
        const bool multiplies
                = checked() || proven() || (rounds_quotient() && is_int8(c_.dst_dt));
        return multiplies && !lanes() && !blocked() && !rounds_in_registers()
                && !dequantize(); // the packs store bytes
    }
    /// avx2 rounding to bf16 keeps its three constants in registers (jit_load_emitter.hpp):
    /// with them, 16 registers leave one vector of three, too few for a pack group of two.
    bool rounds_in_registers() const { return !avx512 && load_.nconsts() > 0; }
    /// Lane tables into u8 / s8 (compact_lanes()) go pack_vectors vectors at a time too
    /// (lane_groups()): x, q and t of each, y_hi and zp read as memory operands; on the
    /// checked path one check and one branch a group, the check's constants in registers.
    /// Every lane clamps to the same bounds [qmin - zp_max, qmax - zp_min] (v_lo, v_hi; no
    /// per-lane lo and hi to load): integers, so clamping commutes with rounding, and wide
    /// enough that the packs, which saturate r + zp to [qmin, qmax], give the clamped result
    /// (NaN: the lower bound, whose sum lies at or below qmin). On the checked path
    /// checked_zp_fits, which every zero point of such a table passes, keeps them within
    /// [-256, 256], so every clamped quotient stays inside the check's range
    /// (jit_division.hpp); on the multiply path, bounds within +-2^24 keep every r + zp
    /// inside s32 (runtime s32 zero points, whose type's range does not, keep the lanes'
    /// own bounds, vector by vector).
    /// s4 / u4 lane tables take the groups on the checked path too; their packs saturate to
    /// bytes only, so q + zp is clamped to [qmin, qmax] in integers after the add
    /// (nibble_lane_clamp()).
    bool lane_packed() const {
        const bool bytes = is_int8(c_.dst_dt)
                || (st_.nibbles() && static_cast<div_path>(c_.lane_path) == div_path::checked);
        if (!compact_lanes() || !bytes || rounds_in_registers()) return false;
        const q_range q = range_of(c_.dst_dt);
        constexpr int64_t limit = int64_t(1) << 24;
        return q.lo - c_.lane_zp_max >= -limit && q.hi - c_.lane_zp_min <= limit;
    }
    /// s4 / u4 lane groups with zero points: q + zp clamped to [qmin, qmax] (one clamp range
    /// serves every lane, [qmin - zp_max, qmax - zp_min], which lets a sum past the 4-bit
    /// range through), as the packed bytes (store_emitter::clamp_packed_nibbles()).
    bool nibble_lane_clamp() const { return lane_packed() && st_.nibbles() && c_.has_zp; }
    /// s4 / u4 blocked rows clamp q to qmax - zp only (vminps keeping NaN, as the bytes'
    /// groups do; fixed rows not at all) and the packed bytes to [qmin, qmax]: below the
    /// range, NaN included, the packs saturate to the lowest byte, which the clamp brings to
    /// qmin. One vmaxps a vector less for two byte clamps a group.
    bool nibble_block_clamp() const { return block_packed() && st_.nibbles(); }
    /// Blocked rows (quantize_conf::block): the checked path, every row's parameters read
    /// and set up in the code.
    bool blocked() const { return c_.block > 0; }
    /// Blocked rows of whole pairs of vectors store with packs too: groups, and on avx512 a
    /// last half group (pack_group()). avx512 rows into u8 / s8 on the fixed-point check
    /// (fixed_rows()) longer than a pair take any length: their pairs, then a tail of fewer
    /// than 2 * vlen elements (block_tail(), fixed_vector()).
    bool block_packed() const {
        if (!blocked() || rounds_in_registers() || minifloat()) return false;
        return c_.block % (2 * vlen) == 0
                || (avx512 && c_.block > 2 * vlen && is_int8(c_.dst_dt) && fixed_types());
    }
    /// The elements of a packed blocked row after its whole pairs of vectors.
    int64_t block_tail() const { return block_packed() ? c_.block % (2 * vlen) : 0; }
    /// Packed blocked rows of at least this many elements loop over their groups of four
    /// vectors (one copy of a group's code and its redo blocks), shorter ones are
    /// straight-line code: rows of any length take the blocked code in a code buffer.
    static constexpr int64_t block_loop_min = 256;
    /// avx512 such rows into u8 / s8 on the checked path take the fixed-point check
    /// (fixed_group()): an FMA, a conversion, a test and a shift a vector and one branch a
    /// group, where the checked multiply takes a multiply, an add, a test, a branch, a clamp
    /// and a conversion, and the zero point in the FMA instead of the packs. Every zero
    /// point of a blocked row is a byte, which checked_zp_fits passes. Not avx2: there the
    /// shift takes the packs' pipes, and Zen 3 measured it 5-10% slower (docs/performance.md).
    /// s4 / u4 rows of a group or more too (rows of 32, a half group, measured 5-10% slower
    /// with it): their packed bytes are clamped to [qmin, qmax] (nibble_block_clamp()).
    bool fixed_rows() const { return avx512 && block_packed() && fixed_types(); }
    bool fixed_types() const {
        const bool nibble_rows = st_.nibbles() && c_.block >= 4 * vlen;
        return checked() && !c_.proven && (is_int8(c_.dst_dt) || nibble_rows) && !dequantize();
    }
    /// avx512 broadcast rows of f32 x into u8 / s8 take it too on the checked path, their
    /// packed groups (packed_groups()): the clamp to [lo, hi] before the check, its add,
    /// and the zero point's adds in the packs go; 21 vector uops a 64 elements instead of
    /// 29-31 (docs/performance.md). Their scales lie in [2^-30, 2^30] and their zero points
    /// pass checked_zp_fits, as fixed_group()'s argument needs. Rows of 16-bit x keep the
    /// checked multiply (bf16's unpacked order, which the packs' permutation undoes).
    bool fixed_broadcast() const {
        return avx512 && packed() && checked() && folded_load() && is_int8(c_.dst_dt);
    }
    /// Packed groups of bf16 sources widen with vpunpck[lh]wd against zero: one in-lane
    /// shuffle per vector instead of vpmovzxwd (across lanes) and a shift. The vectors then
    /// hold the group's elements in another order, which the final vpermd undoes.
    bool unpack_bf16() const { return packed() && c_.src_dt == data_type::bf16; }
    /// Packed groups of f32 sources multiply straight from memory (vmulps q, y_hi, [src]):
    /// one instruction less per vector; a redo block loads x itself (the pointers advance
    /// only after the group's store). Not where the source is rounded first.
    bool folded_load() const {
        return c_.src_dt == data_type::f32 && c_.round_dt == data_type::undef;
    }
    static constexpr int pack_vectors = store_emitter<isa>::pack_vectors;
    /// s16 / u16 broadcast rows store pairs of vectors with one pack each
    /// (store_emitter::store_words()), word_group vectors a step (word_groups()).
    bool word_pairs() const {
        return (c_.dst_dt == data_type::s16 || c_.dst_dt == data_type::u16) && !lanes()
                && !blocked() && !dequantize();
    }
    static constexpr int word_group = avx512 ? 4 : 2;
    /// Rows on the reciprocal path with s > 0 clamp x instead of resetting the residual
    /// (word_clamp::x), with the bounds in two registers: on avx2 only where no rounding
    /// constants of the source take registers, which would leave too few for a word group.
    bool word_clamps_x() const { return word_pairs() && (avx512 || load_.nconsts() == 0); }
    /// Proven groups of 16-bit sources test their codes against the row's clamp_from
    /// (avx512: two word compares a group, 32 codes each; avx2: one of 16 and a byte mask)
    /// and skip the vminps when all lie below it: every q is then below 2^31, NaN converts
    /// to qmin's side anyway, and the packs saturate the rest (store_emitter::
    /// store_packed()). Groups with a code at or above it (large positive values, +Inf,
    /// +NaN; every group of a row with a negative scale) clamp.
    bool bounded_groups() const { return proven() && packed() && src_size() == 2; }
    /// avx2 groups of the proven and multiply paths of 16-bit sources, and of the multiply
    /// path of f32 ones (no source rounding, bytes out), go four vectors a step
    /// (wide_group()): one register a vector (the code widens into q, or f32 x is read by
    /// the multiply), so four fit beside the constants, and a group's bytes take one
    /// vpackuswb and one vpermd instead of two each (store_emitter::store_packed()). A
    /// quotient rounded to f16 / bf16 takes round_quotient()'s integer form, which needs
    /// no scratch register into bytes.
    bool wide_groups(div_path path) const {
        const bool sources = src_size() == 2 || folded_load();
        return !avx512 && sources && (path == div_path::proven || path == div_path::multiply)
                && c_.round_dt == data_type::undef && !st_.nibbles()
                && (!rounds_quotient() || (rounds_in_integers() && !rounds_ties_even()))
                && !dequantize();
    }
    void broadcast_clamp_from() {
        vpbroadcastw(v_clamp_from, word[reg_prm + offsetof(quantize_params, clamp_from)]);
    }
    /// Lane tables on the checked path, and on the multiply path of a rounded quotient
    /// (f16 / bf16 division), keep seven registers a vector: x, q, t, y_hi, lo, hi, zp (the
    /// redo block divides by s in t's register). On avx2 that unrolls two vectors in 16
    /// registers instead of one; both ISAs then take lane_groups() where the destination
    /// has bytes. Other lane code keeps all ten (x, q, t, s, y_hi, y_a, y_b, lo, hi, zp).
    bool compact_lanes() const {
        const div_path path = static_cast<div_path>(c_.lane_path);
        return c_.lanes == lane_source::table
                && (path == div_path::checked
                        || (path == div_path::multiply && rounds_quotient()));
    }
    int regs_per_vector() const {
        if (f8_pairs()) return 2; // the vector path after the groups runs vector 0 alone
        return !lanes() ? ((float8() || float4()) && !f8_words() ? 3 + f8_scratch : 3)
                : compact_lanes()                    ? 7
                                                     : 10;
    }
    /// float8: the encode's three scratch registers of vector u, after x, q, t (broadcast) or
    /// in the lane slots of lo, hi and zp, which a float8 destination does not use.
    static constexpr int f8_scratch = 3;
    int slot_f8() const { return lanes() ? 7 : 3; }
    int slot_yhi() const { return compact_lanes() ? 3 : 4; }
    int slot_lo() const { return compact_lanes() ? 4 : 7; }
    int unroll() const {
        const int u = top_ / regs_per_vector();
        return u > 4 ? 4 : u;
    }
    Vmm vreg(int u, int i) const { return Vmm(u * regs_per_vector() + i); }
    /// Register i (x, q, t) of vector u of a group: lane groups pack them three a vector
    /// below the seven of the lanes' single vector (lane_packed()); checked quads keep the
    /// seven registers below the nine constants (checked_quads(), proven_block_quads()).
    Vmm group_reg(int u, int i) const {
        if (checked_quads() || proven_block_quads() || lane_multiply_quads()) {
            assert(top_ >= 7 && u < 4);
            return i == 1 ? Vmm(u) : i == 0 ? Vmm(5) : Vmm(u == 0 ? 4 : 6);
        }
        if (lane_packed()) return Vmm(3 * u + i);
        return vreg(u, i);
    }
    /// avx2 packed groups on the checked path, broadcast rows of f32 sources and blocked
    /// rows and lane tables of f32, f16 and bf16 ones, go four vectors a step, as
    /// wide_groups() do: one byte pack and one vpermd a group instead of two each, and one
    /// test and branch for 32 elements. Seven registers are free below the nine constants,
    /// too few for four x, q, t triples, so q_u lives in register u, the test of vector 0 in
    /// 4, those of vectors 1-3 in 6, each folded into 4 by its vpminud (check_group()): x is
    /// read by the multiply (f32 rows), widened into q (lanes) or into 5, one vector after
    /// the other (16-bit blocked rows), and a redo block reloads x into 5 and divides with 4
    /// or 6 as scratch, which the branch has left dead. Broadcast rows and lane tables
    /// retest the vector first and redo only a flagged one; blocked rows, whose check sees
    /// the unclamped q' (saturated lanes fail it too) and whose redo is one vdivps, do not.
    /// s4 / u4 rows and lane tables too: their 32 bytes pack into 16 (store_emitter::
    /// store_packed()).
    bool checked_quads() const {
        const bool groups = (packed() || lane_packed() || block_packed()) && checked()
                && !c_.proven;
        const bool loads = folded_load()
                || ((lane_packed() || block_packed()) && src_size() == 2
                        && c_.round_dt == data_type::undef);
        return !avx512 && groups && loads;
    }
    /// avx2 lane tables on the multiply path of a quotient rounded to f16 / bf16 in
    /// integers (16-bit x into bytes with a scale tensor of x's type per channel on the last
    /// axis) go four vectors a step in checked_quads()' registers too: x widens into q and
    /// the rounding takes no scratch, so a vector needs one register, and a group's bytes
    /// take one vpackuswb and one vpermd instead of two each.
    bool lane_multiply_quads() const {
        return !avx512 && lane_packed()
                && static_cast<div_path>(c_.lane_path) == div_path::multiply
                && rounds_quotient() && rounds_in_integers() && !rounds_ties_even()
                && src_size() == 2 && c_.round_dt == data_type::undef;
    }
    /// avx2 blocked rows on the proven path (16-bit sources into s4 / u4: the driver's
    /// proven_blocks_) go four vectors a step in checked_quads()' registers, without the
    /// check: one pack of 32 bytes (16 for nibbles) instead of two.
    bool proven_block_quads() const {
        const bool loads = folded_load() || (src_size() == 2 && c_.round_dt == data_type::undef);
        return !avx512 && block_packed() && c_.proven && loads;
    }

    void broadcast_f32(const Vmm &v, float value) {
        mov(eax, f32_bits(value));
        vmovd(Xmm(v.getIdx()), eax);
        vbroadcastss(v, Xmm(v.getIdx()));
    }

    void generate();

    /// Blocked rows: c.rows rows of c_.block elements, each with the scale and zero point
    /// it reads (quantize_conf::block). Rows go vlen at a time (a chunk): their scales and
    /// zero points into a table on the stack, and each row's y_hi = RN(1/s), lo = qmin - zp
    /// and hi = qmax - zp computed for the whole chunk by one vdivps, vcvtdq2ps and two
    /// vsubps (block_table, fill_block_table()), one chunk ahead. A row then broadcasts its parameters from the table and runs
    /// its vectors, unrolled, at offsets from the row's start; rows cost no call, no
    /// parameter struct and no path dispatch.
    void block_loop();

    /// avx512 blocked rows with a zero point that clamp vector by vector (not
    /// block_packed()): lo, hi and zp as embedded broadcasts from the row's block_table entry
    /// in the vectors' vmaxps, vminps and vpaddd, instead of three broadcasts a row. Blocks of
    /// 16, s8 zero point: 30.2 -> 24.5 us (docs/performance.md).
    bool table_bounds() const { return avx512 && blocked() && c_.has_zp && !block_packed(); }

    /// One blocked row: its elements at reg_src and reg_dst, its parameters at reg_btab.
    void block_row();
    /// fixed_rows() of two vectors (blocks of 32) go two rows a step (block_pair()): one
    /// test and branch, one byte pack and one vpermd for 64 elements where a row alone takes
    /// one each for 32; 21 vector uops a 64 elements instead of 24.
    bool row_pairs() const { return fixed_rows() && c_.block == 2 * vlen && !st_.nibbles(); }
    /// Two blocked rows: the first at reg_src, reg_dst and reg_btab, the second a step of
    /// each (reg_src_step, reg_dst_step, 4 bytes) on.
    void block_pair();
    /// Blocked rows of 32 into e4m3 / e5m2 (MXFP8) on avx512 with AVX512_VBMI, two a step by
    /// byte planes: scaled_half_rows() of bf16 x (float8_byte_planes::pair_words()), and f32
    /// x whose rows' 1/s is exact (the quotient x * y rounded to odd at bf16,
    /// float8_byte_planes::odd_words()); their tables in registers 12-15 and constants in 4-11,
    /// which the table fills between chunks leave alone (they take registers 0, 1 and 3).
    bool planes_pairs() const {
        return planes_ && blocked() && top_ >= 16;
    }
    /// planes_pairs()' tables (T of the pairs' B) and constants into their registers.
    void set_up_planes_pairs();
    /// Two rows as block_pair() takes them, by the planes where both rows' k reach the pairs'
    /// B (f32: both rows' 1/s is exact); to `flagged` where a lane lies below the normals,
    /// is marked or NaN, to `rows` where a row's scale does not serve, to `words` past the
    /// debt (planes_pair_flagged() there). The planes' registers set up.
    void planes_pair(
            const Xbyak::Label &flagged, const Xbyak::Label &rows, const Xbyak::Label &words);
    void store_planes_pair();
    void pay_pair_debt();
    /// Out of the pairs' loop: at `flagged` (the debt grown), bf16: the lanes below the
    /// normals from each row's FMA (float8_emitter::below_normal_words()); f32: at `words`,
    /// both rows by the word encode; at `rows` (also bf16's NaN and marked lanes, and its
    /// `words`) each row by block_row(); then back to `back`.
    void planes_pair_flagged(Xbyak::Label &flagged, Xbyak::Label &rows, Xbyak::Label &words,
            const Xbyak::Label &back);
    /// planes_pairs()' debt (planes_pair()), in a register float8 rows leave free (they
    /// have no zero points).
    const Xbyak::Reg64 reg_pair_debt = reg_zp_base;
    static constexpr int pair_redo_weight = 4, max_pair_debt = 16 * pair_redo_weight;
    void planes_pair_rows(Xbyak::Label &rows, const Xbyak::Label &back);
    void planes_pair_back(const Xbyak::Label &back);
    /// The vectors of one blocked row on `path` from element `from` (a multiple of vlen),
    /// the last one masked (avx512) or through the stack (avx2, 4-bit rows) if the block is
    /// not whole vectors.
    void row_vectors(div_path path, int64_t from = 0);
    /// A blocked row of a minifloat destination on the multiply or divide path: avx512
    /// e4m3 / e5m2 rows two vectors at a time, avx2 ones in float8 groups (four vectors,
    /// their words encoded two vectors to a register), then row_vectors().
    void minifloat_row(div_path path);
    /// Blocked rows of bf16 / f16 x into e4m3 / e5m2 (MXFP8 activations), block a
    /// multiple of 32, with 1/s an exact positive power of two: the codes from x's bits by
    /// words (float8_emitter::encode_scaled_half()), 32 a step, where every lane's quotient
    /// is zero or normal in the type and every x finite; other rows and scales the multiply
    /// path (minifloat_row()).
    bool scaled_half_rows() const {
        return scaled_half_types() && c_.round_dt == data_type::undef && !rounds_quotient()
                && !c_.stream && !dequantize() && c_.block % 32 == 0;
    }
    /// float8_emitter::encode_scaled_half() takes x's type into y's (bf16 / f16 into e4m3 /
    /// e5m2).
    bool scaled_half_types() const {
        return f8_ && f8_->encodes_scaled_half()
                && (c_.src_dt == data_type::bf16 || c_.src_dt == data_type::f16);
    }
    /// One such row; to `other` (nothing stored, or every code stored again there) where the
    /// row's scale or one of its lanes is not for the words.
    void scaled_half_row(const Xbyak::Label &other);
    /// fill_block_table()'s half_k column from the chunk's y_hi (in yhi): k where y_hi is a
    /// positive power of two whose k is a word, else -1 (vreg(0..1, ..) scratch).
    void fill_half_k(const Vmm &yhi, int at);
    /// Broadcast rows of bf16 / f16 x into e4m3 / e5m2 on the multiply path (a power of two
    /// scale per tensor or per outer channel; scale 1 casts): the row's whole chunks of one
    /// float8 group (4 * vlen) by words as scaled_half_rows() do, a chunk with a lane the
    /// words do not encode again by that group on the multiply path; the rest of the row
    /// the multiply path's loops.
    bool scaled_half_runs() const {
        return scaled_half_types() && !lanes() && !blocked() && f8_groups() && unroll() >= 4
                && !dequantize();
    }
    void scaled_half_run();
    /// scaled_half_runs() of bf16 x (and f16 x into e4m3) on avx512 with AVX512_VBMI: the
    /// codes by byte planes, 64 a step (jit_float8_planes.hpp), their tables in registers
    /// 12-15, above the redo's group.
    bool scaled_half_planes() const {
        return avx512 && c_.vbmi && scaled_half_runs()
                && float8_byte_planes::serves(c_.src_dt, c_.dst_dt);
    }
    void scaled_half_planes_run(const Xbyak::Reg64 &reg_k, const Xbyak::Label &done);
    /// The planes for any scale (any_scale_planes_run()): scaled_half_runs() of bf16 or f16 x
    /// into e4m3 or e5m2 on avx512 with AVX512_VBMI.
    bool any_scale_planes() const {
        return avx512 && c_.vbmi && scaled_half_runs()
                && float8_byte_planes::serves_any(c_.src_dt, c_.dst_dt);
    }
    /// Where any_scale_planes() holds, rows of any scale whose quantize_params::planes is
    /// set (the driver's float8_planes_table, for scales that are not a power of two): their
    /// whole steps of 64 by the planes, a step with a lane below the normals or marked again by
    /// the divide path's group; the rest of the row its path's loops.
    void any_scale_planes_run();
    /// k's word (float8_emitter::scaled_half_base()) from 1/s's f32 bits in eax, shifted into
    /// place in eax; to `other` where 1/s is not a positive power of two or k not a word.
    void scaled_half_k(const Xbyak::Label &other);
    /// The `elems` x at reg_src + off encoded by words into reg_dst + off (k in the words of
    /// k, the row's 1/s in the f32 lanes of y; the lanes they do not serve flagged,
    /// float8_emitter::clear_half_flags()): avx2 32, avx512 32 or 64; vreg(0..2, 0..1) are
    /// scratch. below: avx512 encodes the quotients below the type's normals too (else k
    /// must be 0).
    void scaled_half_chunk(
            int off, int elems, const Vmm &k, const Vmm &y, const Vmm &acc, bool below = true);
    /// avx2: scaled_half_chunk() of 32 x with the lanes below the normals encoded too, for x
    /// with no Inf or NaN (float8_emitter::encode_scaled_half_all()); vreg(0..2, 0..1) and m
    /// are scratch.
    void scaled_half_chunk_all(int off, const Vmm &k, const Vmm &y, const Vmm &m);
    /// The codes of scaled_half_chunk()'s n vectors of words (vreg(0..n-1, 0)) stored at
    /// reg_dst + off.
    void store_half_codes(int off, int n);

    /// block_loop()'s table of a chunk's parameters: a column of vlen floats each (row i at
    /// 4i), aligned to a column. The redo blocks read s there.
    struct block_table {
        static constexpr int col = vlen * 4;
        static constexpr int s = 0, y_hi = col, lo = 2 * col, hi = 3 * col, zp = 4 * col;
        /// fixed_rows(): y_hi holds y_hi * fixed_unit, and f the FMA's addend (zp + 0.5) *
        /// fixed_unit + fixed_offset.
        static constexpr int f = 5 * col;
        static constexpr int bytes = 6 * col;
        /// scaled_half_rows(): the row's word k (scaled_half_k()), or -1 where 1/s takes no
        /// words; lo's column (float8 rows have no bounds).
        static constexpr int half_k = lo;
        /// planes_pairs(): half_k less the pairs' B (float8_byte_planes::pair_k_min()),
        /// negative where the planes do not take the row; hi's column.
        static constexpr int pair_k = hi;
    };

    /// The table of the next `left` (1..vlen) rows (block_table), at rsp + at; steps bs and bzp
    /// past them. A whole chunk of contiguous scales and byte zero points loads a vector of
    /// each; other chunks copy theirs row by row (tab and rax as scratch).
    ///
    /// y_hi = RN(1/s), by vdivps: the same quotient as a division per row. The checked
    /// multiply needs no bounds on s here, its redo being the division itself: while 1/s is
    /// normal the check's argument holds as it stands (jit_division.hpp; [2^-30, 2^30] bounds
    /// the reciprocal path's residual, not the check). |s| > 2^126 gives a subnormal y_hi, up
    /// to 2^-22 relative error, but then |x / s| < 4, so q' errs by about 2^-20, far inside
    /// the 1.5 * 2^-14 the check catches. A reciprocal that overflows (0 and tiny s) makes q'
    /// +-Inf or NaN, and NaN s a NaN q': their low bits are 0, so every vector divides (the
    /// check sees q' itself here: clamps_before_check()). +-Inf s gives q' = +-0 = rne(x / s)
    /// for finite x and NaN (a redo) for infinite x. The lanes past `left` of a short chunk
    /// hold stale values, whose results no row reads.
    void fill_block_table(const Reg64 &bs, const Reg64 &bzp, const Reg64 &bs_step,
            const Reg64 &bzp_step, const Reg64 &tab, const Reg64 &left, int at);

    /// Blocked rows: the raw 8- or 4-bit zero point at bzp, in eax (rdi as scratch).
    void block_zp(const Reg64 &bzp);

    /// One row: its parameters, then the element loop of the path they take.
    void row();

    /// Out of line, after the return: the checked path's redo blocks, and avx2's constants.
    void emit_redo_blocks();

    /// The checked path on vector u: q = clamp(x * y_hi, lo, hi), and a jump to a redo block
    /// when some lane's rounding is not proven (jit_division.hpp); the redo block comes back
    /// here with its quotient clamped the same way.
    void multiply_checked(int u, int off, const Vmm &q, const Vmm &x, const Vmm &yhi,
            const Vmm &t, const Vmm &lo, const Vmm &hi, bool tail) {
        vmulps(q, x, yhi);
        check(u, off, q, t, lo, hi, tail, false);
    }

    /// The check of multiply_checked() on q = x * y_hi of vector u, which it first clamps to
    /// [lo, hi] (NaN -> lo): a saturated lane then holds an integer bound, which the check
    /// proves, instead of a large q whose low bits may look like a tie (docs/kernels.md, "The
    /// checked multiply"); the clamp is the one the store needs anyway. `reload`: x is not in
    /// its register (folded_load()). Packed groups and lane groups take check_group()
    /// instead, avx512 blocked rows this, a branch per vector.
    void check(int u, int off, const Vmm &q, const Vmm &t, const Vmm &lo, const Vmm &hi,
            bool tail, bool reload);

    /// check() on a group's vectors at once, q_u = group_reg(u, 1) at base + u * vlen (x
    /// reloaded by the redo where `reload` or checked quads, which keep no x a vector), one
    /// branch a group. avx2: each t_u = (q_u + M) & mask, their unsigned minimum 0 in a lane
    /// when some t_u is; a failing group redoes all its vectors, their redo blocks chained,
    /// except checked quads outside blocked rows, whose redo blocks retest as avx512's do.
    /// avx512: k2 = the proven lanes, each vector's vptestmd under the previous ones' (no
    /// mask instructions between), and a failing group's redo blocks test their own vector
    /// again and redo only one with a flagged lane (retest). Exact either way: a vector whose
    /// check would pass gets from its redo the quotient the multiply proved, the clamped
    /// rne(x / s). Against a branch per vector, the group's one branch is faster where ties
    /// are rare (generic scales) and slower where quotients keep landing on them
    /// (docs/performance.md, "Lane groups on avx512").
    void check_group(int vectors, int base, bool reload);
    /// The redo blocks of a group's `vectors` vectors at base + u * vlen, registers
    /// group_reg(u, 0..2), each chained to the next one's redo and the last one back after
    /// the group's check; returns the first.
    redo_block &group_redo_blocks(int vectors, int base, bool reload, bool retest, bool fixed) {
        redo_block *prev = nullptr;
        for (int u = 0; u < vectors; ++u) {
            redos_.emplace_back();
            redo_block &b = redos_.back();
            b.reload = reload;
            b.off = base + u * vlen;
            b.tail = false;
            b.x = group_reg(u, 0);
            b.q = group_reg(u, 1);
            b.t = group_reg(u, 2);
            b.lo = v_lo;
            b.hi = v_hi;
            b.retest = retest;
            b.fixed = fixed;
            if (prev) prev->next = &b.redo;
            prev = &b;
        }
        return *std::prev(redos_.end(), vectors);
    }
    /// avx2 check: t = (q + M) & mask, 0 in a lane whose rounding the multiply does not prove;
    /// then eax = a bit per such lane of t (or of the vpminud of a group's t), ZF when none.
    void tie_bits(const Vmm &t, const Vmm &q);
    void flagged_lanes(const Vmm &t);
    /// avx512 check_group() and its retest: k = the lanes of q (clamped) whose rounding the
    /// multiply proves, under k's write mask; t is scratch.
    void proven_lanes(const Xbyak::Opmask &k, const Vmm &q, const Vmm &t) {
        vaddps(t, q, v_magic);
        vptestmd(k, t, v_tie_mask);
    }

    /// fixed_rows() and fixed_broadcast(): `vectors` vectors (pack_vectors or 2) of a row
    /// from element `base`, stored with packs. Each lane's w (jit_division.hpp, fixed_bits)
    /// by one FMA of the row's y_hi * 2^fixed_bits (fixed_y()) and addend (fixed_f()) and one
    /// conversion; one test and one branch a group (each vector's test under the previous
    /// ones', as check_group()), then w >> fixed_bits, r + zp, packed without a zero point.
    /// The redo blocks retest their vector and divide a flagged one: blocked rows by vdivps,
    /// broadcast rows on the reciprocal path (fixed_redo()).
    /// `pair`: block_pair()'s four vectors, two of each row, the second row's factor and
    /// addend in v_s and v_yb.
    void fixed_group(int vectors, int base, bool pair = false);
    /// fixed_group()'s check of its `vectors` vectors from element `base` (`tail`: one vector
    /// under k1), to the redo blocks where a lane is flagged; leaves r + zp in group_reg(u, 1).
    void fixed_check(int vectors, int base, bool pair, bool tail);
    /// A fixed row's tail vector at element `off` (`tail`: the lanes of k1 only, loaded
    /// as zeros elsewhere, which the check proves): fixed_group()'s check on one vector,
    /// stored by vpmov[us]db (u8: from max(r + zp, 0), the conversion being unsigned).
    void fixed_vector(int off, bool tail);
    /// The end of a fixed_group() redo block, q = x / s: clamp(q, lo, hi) (NaN -> lo),
    /// rounded, + zp, shifted left by fixed_bits, as a proven lane holds it. t is scratch.
    void fixed_redo(const redo_block &b);
    /// The source and table entry of a redo block's vector.
    Address redo_src(const redo_block &b) const {
        const int at = b.off * src_size();
        return b.second_row ? ptr[reg_src + reg_src_step + at] : ptr[reg_src + at];
    }
    Address redo_table(const redo_block &b, int column) const {
        return ptr[reg_btab + column + (b.second_row ? 4 : 0)];
    }
    /// The fixed-point check's factor and addend: blocked rows broadcast theirs from the
    /// table into v_yhi and v_ya (no reciprocal path there); broadcast rows keep y_hi, y_a
    /// and y_b for the redo's reciprocal path, and theirs in two registers of their own
    /// (set_up_fixed_row()).
    Vmm fixed_y() const { return blocked() ? v_yhi : v_fixed_y; }
    Vmm fixed_f() const { return blocked() ? v_ya : v_fixed_f; }
    /// A broadcast row on the checked path of fixed_broadcast() code: v_fixed_y = y_hi *
    /// 2^14, v_fixed_f = zp * 2^14 + 2^13 + fixed_offset (exact: checked_zp_fits keeps
    /// |zp| <= 256), from the row's v_yhi and v_zp.
    void set_up_fixed_row() {
        broadcast_f32(v_fixed_y, fixed_unit);
        vcvtdq2ps(v_fixed_f, v_zp);
        vmulps(v_fixed_f, v_fixed_f, v_fixed_y);
        vmulps(v_fixed_y, v_fixed_y, v_yhi);
        const Vmm t = vreg(0, 0); // free between rows
        broadcast_f32(t, 0.5f * fixed_unit + fixed_offset);
        vaddps(v_fixed_f, v_fixed_f, t);
    }

    /// Whether check() clamps q' to [lo, hi] before its test. Broadcast and lane rows: yes, so
    /// that a saturated lane, whose q' + M lies outside the check's grid, is proven instead of
    /// redone on the reciprocal path (qbench's data redid 82% of its vectors). Blocked rows:
    /// no, their redo being one vdivps, and their code computing y_hi for any scale: a
    /// reciprocal that is not finite makes q' +-Inf or NaN, which the check sends to the
    /// division only while it sees q' itself (fill_block_table()). A clamp first there cost 13%
    /// at blocks of 32 (one more instruction a vector, and a finiteness test a row).
    bool clamps_before_check() const { return !blocked(); }
    bool clamped_by_check(div_path path) const {
        return path == div_path::checked && clamps_before_check();
    }

    /// q = min(max(q, lo), hi), NaN -> lo (vmaxps returns its second source when either is
    /// NaN): clamping commutes with rounding, the bounds being integers.
    void clamp(const Vmm &q, const Operand &lo, const Operand &hi) {
        vmaxps(q, q, lo);
        vminps(q, q, hi);
    }

    void advance(int elems) {
        add(reg_src, elems * src_size());
        add(reg_dst, dst_bytes(elems));
        if (!lanes()) return;
        // The lane pointers the code reads: s (the divide path, and the redo), y_hi (table
        // paths that multiply), y_a and y_b (the table's reciprocal path), lo and hi (table
        // zero points) and zp.
        const bool table = c_.lanes == lane_source::table;
        const div_path path = static_cast<div_path>(c_.lane_path);
        add(reg_ls, elems * 4);
        if (table && path != div_path::divide) add(reg_lyhi, elems * 4);
        if (table && path == div_path::recip) {
            add(reg_lya, elems * 4);
            add(reg_lyb, elems * 4);
        }
        if (table && c_.has_zp) {
            add(reg_llo, elems * 4);
            add(reg_lhi, elems * 4);
        }
        if (c_.has_zp) add(reg_lzp, elems * lane_zp_size());
    }

    /// `packed_multiply`: multiply rows store with packs too (row() checks their zero point).
    /// `f8_product`: float8 groups of a multiply row with |y_hi| >= 1 (float8_groups()).
    void loops(div_path path, bool packed_multiply = false, bool f8_product = false);

    /// The checked, proven or multiply path over whole groups of pack_vectors vectors, stored with
    /// packs; leaves fewer than a group's elements in reg_n.
    void packed_groups(div_path path);

    /// lane_packed(): the checked or multiply path over whole groups of pack_vectors
    /// vectors; leaves fewer than a group's elements in reg_n.
    void lane_groups(div_path path);

    /// The loop of the groups above: `body` emits one group of `elems` elements at the
    /// pointers, which then advance. reg_n counts the elements left after the group (one
    /// sub and one branch a group); fewer than a group's are left in it at the end.
    template <typename Body>
    void group_loop(int elems, Body body) {
        Xbyak::Label l_loop, l_done;
        sub(reg_n, elems);
        jl(l_done, T_NEAR);
        L(l_loop);
        body();
        advance(elems);
        sub(reg_n, elems);
        jge(l_loop, T_NEAR);
        L(l_done);
        add(reg_n, elems);
    }

    /// float8 (f8_groups()) over whole groups of four vectors: each quotient to f16 words,
    /// two vectors' words joined in one zmm, their codes and the 64 code bytes
    /// (float8_emitter): half the word instructions of one vector at a time, and one shuffle
    /// for 64 codes (with AVX512_VBMI). Multiply rows of f32 read x in the multiply;
    /// `product` rows (|y_hi| >= 1, row()) take the quotient and + 0.f as one FMA
    /// (float8_emitter::encode_product()). Leaves fewer than a group's elements in reg_n.
    void float8_groups(div_path path, bool product);
    /// float8_groups() with the checked encode (f8_checked(); rows of the guarded and
    /// float8_checked paths): a group whose quotients by y8 lie away from every rounding
    /// edge takes the shorter encode, one with a flagged lane is redone as float8_group()
    /// does it on the `redo` path (guarded or divide; out of the loop). Rows with
    /// quantize_params::f8_proven (c_.f8_proven) take the shorter encode without the check.
    void checked_float8_groups(div_path redo);
    /// One group of float8_groups() (four vectors) from element `base` of the row, stored.
    void float8_group(div_path path, bool product, int base = 0);
    /// The f16 words of a float8 group's four vectors (in their x registers) joined two to
    /// a register, encoded (float8_emitter::encode_words(), rounded half up for the checked
    /// encode), packed and stored: 4 * vlen codes at element `base` of reg_dst.
    void store_float8_words(bool half_up, int base = 0);
    /// Vector u of a float8 group's x into xd, exact (bf16 unpacked in the order pack_words()
    /// takes back, f16 converted, f32 loaded) from element `base` of the row; t0 and t1
    /// are the load's scratch.
    void load_float8_x(int u, const Vmm &xd, const Vmm &t0, const Vmm &t1, int base = 0);

    /// What word_groups() clamps; each lane then stores sat16(cvt(q') + zp), the s32 sum
    /// wrapping, sat16 being the pack's saturation to [qmin, qmax] and cvt giving rne, or
    /// -2^31 for NaN and |q'| >= 2^31. That equals clamp(rne(q) + zp, qmin, qmax), NaN ->
    /// qmin (NUMERICS.md), as argued for each; |zp| <= 2^23 (the driver's limit), and lo =
    /// qmin - zp, hi = qmax - zp are integers, so rne(min(q, hi)) = min(rne(q), hi) (and
    /// likewise max).
    enum class word_clamp {
        /// q' = q = x' / s, x' = clamp(x, x_lo, x_hi), NaN -> x_lo, x_hi = s * 2^26 = -x_lo
        /// (rows with s > 0 on the reciprocal path): x' is finite and |x' / s| <=
        /// 2^26, so the division needs no reset of its residual (divide_recip_bounded()),
        /// |rne(q')| <= 2^26 converts exactly and r + zp cannot wrap. |x| <= x_hi keeps x.
        /// Otherwise x / s and x' / s = +-2^26 are beyond 2^26 on the same side (+-Inf
        /// included), and both saturate there (2^26 - 2^23 > 65535); NaN gives -2^26, i.e. qmin.
        x,
        /// q' = x' / s, x' = min(x, x_hi), NaN kept (rows with s > 0 on the reciprocal path
        /// and zp >= 0): one instruction where `x` takes two. x <= x_hi with |x / s| <= 2^26
        /// is as for `x`; the lanes left are x / s < -2^26, -Inf and NaN. There the division
        /// without its reset gives NaN (a non-finite residual) or a value below -2^25
        /// (q0 = RN(x * RN(1/s)) within an ulp of x / s, and the residual's correction
        /// smaller than q0), both of which convert below -2^25 or to -2^31; + zp <= 2^23
        /// keeps them below qmin, no wrap: qmin, as NUMERICS.md asks for each.
        x_upper,
        /// q' = min(q, hi), NaN kept (rows with zp >= 0):
        ///  - NaN or q' <= -2^31: -2^31 + zp <= -2^31 + 2^23 < qmin, no wrap: qmin, as
        ///    rne(q) + zp < qmin for such q;
        ///  - -2^31 < q' <= hi: r = min(rne(q), hi) lies in [-2^31, hi], r + zp in
        ///    [-2^31, qmax], no wrap, and the pack clamps below.
        q_upper,
        /// q' = max(q, lo), NaN -> lo (rows with zp < 0):
        ///  - lo <= q' < 2^31: r + zp lies in [qmin, 2^31 + zp), no wrap, and the pack clamps
        ///    above;
        ///  - q' >= 2^31 (+Inf included): -2^31 + zp wraps to 2^31 + zp >= 2^31 - 2^23 >
        ///    qmax: qmax, as rne(q) + zp > qmax.
        q_lower,
    };

    /// bounded_groups(): jumps to `clamped` where one of the next `groups` (1 or 2) groups'
    /// codes is at or above clamp_from (uses the first group's registers and k2, k3 or eax).
    void bounded_test(int groups, const Xbyak::Label &clamped);

    /// s16 / u16 on `path` over whole groups of word_group vectors, stored in pairs with
    /// packs (store_emitter::store_words()); leaves fewer than a group's elements in reg_n.
    void word_groups(div_path path, word_clamp clamp);

    /// One group of packed_groups(): q = x * y_hi, its rounding, and the packed store, each
    /// step over all the group's vectors before the next (independent work side by side);
    /// `clamp`: q <= qmax - zp first (without it every q is below 2^31: bounded_groups());
    /// `base`: the group's first element, from the pointers (blocked rows).
    void group(div_path path, bool clamp, int vectors = pack_vectors, int base = 0);

    /// wide_groups(): one group of four vectors, q = x * y_hi, clamped or not (`clamp`), stored
    /// with packs.
    void wide_group(bool clamp);

    /// The group's vectors (q of each), stored with packs (jit_store_emitter.hpp) at
    /// element `base` of the row.
    void pack_group(int vectors = pack_vectors, int base = 0);

    void load_f32(const Vmm &v, const Address &a, bool tail) {
        if (tail)
            vmovups(v | k1 | Xbyak::util::T_z, a);
        else
            vmovups(v, a);
    }

    void load_s32(const Vmm &v, const Address &a, bool tail) {
        if (avx512) {
            if (tail)
                vmovdqu32(v | k1 | Xbyak::util::T_z, a);
            else
                vmovdqu32(v, a);
        } else {
            vmovdqu(v, a);
        }
    }

    /// A vector of zero points of type dt, widened to s32.
    void load_zp(const Vmm &v, const RegExp &at, data_type dt, bool tail) {
        const Vmm vd = tail ? Vmm(v | k1 | Xbyak::util::T_z) : v;
        switch (dt) {
            case data_type::u8: vpmovzxbd(vd, ptr[at]); break;
            case data_type::s8: vpmovsxbd(vd, ptr[at]); break;
            case data_type::u16: vpmovzxwd(vd, ptr[at]); break;
            case data_type::s16: vpmovsxwd(vd, ptr[at]); break;
            default: load_s32(v, ptr[at], tail); break;
        }
    }

    /// A lane table vector's lo, hi and zp (vector u, element offset off).
    void load_lane_bounds(int u, int off, bool tail) {
        load_f32(vreg(u, slot_lo()), ptr[reg_llo + off * 4], tail);
        load_f32(vreg(u, slot_lo() + 1), ptr[reg_lhi + off * 4], tail);
        load_s32(vreg(u, slot_lo() + 2), ptr[reg_lzp + off * 4], tail);
    }

    /// Vector u's x = the source elements at `off`, as f32 (jit_load_emitter.hpp); its q and
    /// t are scratch until the division.
    void load_src(int u, int off, bool tail) {
        load_.load(vreg(u, 0), ptr[reg_src + off * src_size()], tail, vreg(u, 1), vreg(u, 2));
    }

    void vector(int u, int off, div_path path, bool tail);

    void store_dst(const Vmm &q, const Vmm &scratch, int off, bool tail) {
        st_.store(q, scratch, ptr[reg_dst + dst_bytes(off)], tail);
    }
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
