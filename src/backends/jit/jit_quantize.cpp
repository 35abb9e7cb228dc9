#include "backends/jit/jit_quantize.hpp"

#include <cassert>
#include <cstddef>
#include <list>

#include "common/data_types.hpp"
#include "common/half_types.hpp"
#include "common/q10n.hpp"
#include "backends/jit/jit_division.hpp"
#include "backends/jit/jit_dequantize_stage_emitter.hpp"
#include "backends/jit/jit_division_emitter.hpp"
#include "backends/jit/jit_float8_emitter.hpp"
#include "backends/jit/jit_load_emitter.hpp"
#include "backends/jit/jit_store_emitter.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

using namespace Xbyak;

#define CALL(field) ptr[abi_arg + offsetof(quantize_call, field)]
#define PRM(field) dword[reg_prm + offsetof(quantize_params, field)]

template <cpu_isa_t isa>
class quantize_generator : public jit_generator {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr int vlen = isa_traits<isa>::vlen;
    static constexpr bool avx512 = isa == avx512_core;

public:
    explicit quantize_generator(const quantize_conf &c)
        : c_(c)
        , div_(*this)
        , load_(*this, c.src_dt, c.round_dt, c.bf16_insn)
        , dq_(*this, c.dequantize_to)
        , st_(*this, c.dst_dt, c.has_zp, c.stream) {
        assert(!c.stream || (dst_size() == 1 && !blocked()));
        assert(!dequantize() || (is_int8(c.dst_dt) && !lanes() && !blocked() && !c.stream));
        assert(!st_.nibbles() || (blocked() && c.block % 2 == 0));
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
    std::unique_ptr<float8_emitter<isa>> f8_; // float8 destinations: the encode

    // General registers: the call's pointers and the element count.
    const Reg64 reg_src = r8, reg_dst = r9, reg_n = r10;
    const Reg64 reg_ls = r11, reg_lyhi = r12, reg_lya = r13, reg_lyb = rsi, reg_llo = r14;
    const Reg64 reg_lhi = r15, reg_lzp = rbx, reg_prm = rdx;
    const Reg64 reg_zp_base = r15; // blocked rows (no lane parameters): nibble_zps()
    const Reg64 reg_btab = rcx; // blocked rows: the row's block_table entry (block_loop())

    bool lanes() const { return c_.lanes != lane_source::none; }
    bool float8() const { return is_float8(c_.dst_dt); }
    /// float8 destinations encoded through f16 words (float8_emitter::encode_f16()), 16
    /// codes a vector; streaming kernels keep encode() (their stores are the store
    /// emitter's).
    bool f8_words() const { return f8_ && f8_->encodes_through_f16() && !c_.stream; }
    /// Broadcast rows of f8_words() encode four vectors at a time (float8_groups()).
    bool f8_groups() const { return f8_words() && !lanes(); }
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

    // Vector registers. Constants are taken from the top; each unrolled vector gets a block
    // of registers from the bottom: x, q, t, then (lane params) s, y_hi, y_a, y_b, lo, hi, zp
    // (compact_lanes(): y_hi, lo, hi, zp).
    int top_ = isa_traits<isa>::nregs;
    Vmm take_const() { return Vmm(--top_); }
    Vmm v_s, v_yhi, v_ya, v_yb, v_lo, v_hi, v_zp, v_qmin, v_qmax;
    Vmm v_magic, v_tie_mask; // the checked path (avx512; avx2 reads l_consts_)
    Vmm v_zero; // unpack_bf16()
    Vmm v_xhi, v_xlo; // word_groups(): the bounds of x (word_clamp::x)
    Vmm v_clamp_from; // bounded_groups(): quantize_params::clamp_from in every word

    /// The checked path: a vector whose rounding the multiply cannot prove jumps to `redo`,
    /// which divides it on the reciprocal path and jumps back to `back` to finish it.
    /// `reload`: the multiply read x from memory (folded_load()), so the redo loads it.
    struct redo_block {
        Xbyak::Label redo, back;
        int u, off;
        bool tail, reload;
        Vmm lo, hi; // the vector's bounds: the redo clamps its quotient as check() did
    };
    std::list<redo_block> redos_;
    // avx2's constants, 8 lanes each, read from memory to leave the 16 registers to the
    // unrolled vectors: tie_magic, tie_mask, 0; the division's own follow them.
    Xbyak::Label l_consts_;
    enum avx2_const { c_magic = 0, c_mask = 32, c_zero = 64 };
    // block_loop()'s constants (both ISAs), one float each: 1, qmin, qmax.
    Xbyak::Label l_block_consts_;
    enum block_const { b_one = 0, b_qmin = 4, b_qmax = 8 };
    bool checked() const {
        if (c_.lanes == lane_source::table)
            return static_cast<div_path>(c_.lane_path) == div_path::checked;
        // The check bounds |q| by 256.5.
        return c_.recip && !lanes() && (is_int8(c_.dst_dt) || st_.nibbles());
    }
    /// The checked multiply without its check (jit_quantize_driver.cpp proves it at compile).
    bool proven() const {
        if (c_.lanes == lane_source::table)
            return static_cast<div_path>(c_.lane_path) == div_path::proven;
        return c_.proven && !lanes();
    }
    /// The checked and proven paths of broadcast rows store pack_vectors vectors at a time
    /// with packs: half the shuffle work of a vpmovusdb per vector (avx2: of an extract and
    /// two packs per vector). See jit_store_emitter.hpp.
    bool packed() const {
        return (checked() || proven()) && !lanes() && !blocked() && !rounds_in_registers()
                && !dequantize(); // the packs store bytes
    }
    /// avx2 rounding to bf16 keeps its three constants in registers (jit_load_emitter.hpp):
    /// with them, 16 registers leave one vector of three, too few for a pack group of two.
    bool rounds_in_registers() const { return !avx512 && load_.nconsts() > 0; }
    /// Blocked rows (quantize_conf::block): the checked path, every row's parameters read
    /// and set up in the code.
    bool blocked() const { return c_.block > 0; }
    /// Blocked rows of whole pairs of vectors store with packs too: groups, and on avx512 a
    /// last half group (pack_group()).
    bool block_packed() const {
        return blocked() && c_.block % (2 * vlen) == 0 && !rounds_in_registers();
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
    /// avx512 proven groups of 16-bit sources test their codes against the row's clamp_from
    /// (two word compares a group, 32 codes each) and skip the four vminps when all lie
    /// below it: every q is then below 2^31, NaN converts to qmin's side anyway, and the
    /// packs saturate the rest (store_emitter::store_packed()). Groups with a code at or
    /// above it (large positive values, +Inf, +NaN; every group of a row with a negative
    /// scale) clamp.
    /// 1x64x56x56 -> u8, 1 thread: bf16 0.56-0.61 -> 0.66-0.76 of the roofline, f16
    /// 0.42-0.43 -> 0.50-0.51 (docs/performance.md).
    bool bounded_groups() const {
        return avx512 && proven() && packed() && src_size() == 2;
    }
    /// avx2 lane tables on the checked path keep seven registers a vector: x, q, t, y_hi, lo,
    /// hi, zp; the redo block borrows lo, hi and zp for s, y_a and y_b, then reloads them.
    /// That unrolls two vectors in 16 registers instead of one (1x56x56x64 axis 3: 37 -> 32
    /// us). Other lane code keeps all ten (x, q, t, s, y_hi, y_a, y_b, lo, hi, zp); on
    /// avx512, three vectors instead of two measured the same without a zero point and 5%
    /// slower with one.
    bool compact_lanes() const {
        return !avx512 && c_.lanes == lane_source::table
                && static_cast<div_path>(c_.lane_path) == div_path::checked;
    }
    int regs_per_vector() const {
        return !lanes() ? (float8() && !f8_words() ? 3 + f8_scratch : 3)
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

    void broadcast_f32(const Vmm &v, float value) {
        mov(eax, f32_bits(value));
        vmovd(Xmm(v.getIdx()), eax);
        vbroadcastss(v, Xmm(v.getIdx()));
    }

    void generate() {
        preamble();
        const q_range q = range_of(c_.dst_dt);
        if (avx512) div_.set_up(take_const());
        if (load_.nconsts() > 0) {
            Vmm consts[3];
            for (int i = 0; i < load_.nconsts(); ++i) consts[i] = take_const();
            load_.set_up(consts);
        }
        if (float8()) f8_ = std::make_unique<float8_emitter<isa>>(*this, c_.dst_dt, c_.saturate);
        if (f8_words()) {
            Vmm consts[7];
            for (int i = 0; i < f8_->word_consts(); ++i) consts[i] = take_const();
            f8_->set_up_words(consts);
            if (f8_unpacks_bf16()) f8_->set_up_unpacked_order(take_const());
        }
        if (!lanes() && float8()) {
            v_s = take_const(); // the multiply and divide paths only, no bounds
            v_yhi = take_const();
            if (f8_groups()) v_ya = take_const(); // float8_emitter::set_up_product()
        } else if (!lanes()) {
            v_s = take_const();
            v_yhi = take_const();
            v_ya = take_const();
            v_yb = take_const();
            v_lo = take_const();
            v_hi = take_const();
            v_zp = take_const();
            if (dequantize()) {
                const Vmm dq_s = take_const();
                dq_.set_up(dq_s, take_const());
            }
        } else {
            v_qmin = take_const();
            v_qmax = take_const();
            broadcast_f32(v_qmin, static_cast<float>(q.lo));
            broadcast_f32(v_qmax, static_cast<float>(q.hi));
        }
        if (checked() && avx512) {
            v_magic = take_const();
            v_tie_mask = take_const();
            broadcast_f32(v_magic, tie_magic);
            mov(eax, tie_mask);
            vpbroadcastd(v_tie_mask, eax);
        }
        if (packed() || block_packed()) {
            const Vmm zp16 = take_const();
            st_.set_up_packs(zp16, take_const(), unpack_bf16());
        }
        if (word_pairs() && avx512) {
            st_.set_up_words(take_const());
            v_xhi = take_const();
            v_xlo = take_const();
        }
        if (bounded_groups()) v_clamp_from = take_const();
        if (unpack_bf16() || f8_unpacks_bf16()) {
            v_zero = take_const();
            if (avx512)
                vpxord(v_zero, v_zero, v_zero);
            else
                vpxor(v_zero, v_zero, v_zero);
        }
        if (blocked())
            block_loop();
        else
            row_loop<quantize_call, quantize_params>(
                    reg_src, reg_dst, reg_n, reg_prm, [&] { row(); });
        if (st_.stream_align() > 0) sfence(); // order the streaming stores before the caller's join
        postamble();
        emit_redo_blocks();
        finish();
    }

    /// Blocked rows: c.rows rows of c_.block elements, each with the scale and zero point
    /// it reads (quantize_conf::block). Rows go vlen at a time (a chunk): their scales and
    /// zero points into a table on the stack, and each row's y_hi = RN(1/s), lo = qmin - zp
    /// and hi = qmax - zp computed for the whole chunk by one vdivps, vcvtdq2ps and two
    /// vsubps (block_table, fill_block_table()), one chunk ahead. A row then broadcasts its parameters from the table and runs
    /// its vectors, unrolled, at offsets from the row's start; rows cost no call, no
    /// parameter struct and no path dispatch.
    void block_loop() {
        const int64_t rem = c_.block % vlen;
        assert(avx512 || rem == 0);
        // Free without lane parameters.
        const Reg64 reg_bs = reg_ls, reg_bzp = reg_lzp, reg_src_step = reg_lyhi,
                    reg_dst_step = reg_lya, reg_bs_step = reg_lyb, reg_bzp_step = reg_llo;
        // reg_left: the chunk's rows left; rbp: rsp on entry (the tables are aligned below it).
        const Reg64 reg_tab = reg_btab, reg_left = rdx;
        Label l_done;
        mov(reg_src, CALL(src));
        mov(reg_dst, CALL(dst));
        mov(reg_bs, CALL(b_s));
        if (nibble_zps()) {
            mov(reg_zp_base, CALL(b_zp));
            mov(reg_bzp, CALL(b_zp_index));
        } else {
            mov(reg_bzp, CALL(b_zp));
        }
        mov(reg_src_step, CALL(src_row_stride));
        mov(reg_dst_step, CALL(dst_row_stride));
        mov(reg_bs_step, CALL(b_s_step));
        mov(reg_bzp_step, CALL(b_zp_step));
        if (rem > 0) {
            mov(reg_n, rem);
            set_tail_mask(reg_n);
            if (st_.nibbles()) st_.set_up_nibble_tail(static_cast<int>(rem));
        }
        mov(reg_n, CALL(rows)); // abi_arg is free from here (block_zp())
        mov(rbp, rsp);
        sub(rsp, 2 * block_table::bytes);
        and_(rsp, -block_table::col);
        if (!c_.has_zp) {
            vbroadcastss(v_lo, ptr[rip + l_block_consts_ + b_qmin]);
            vbroadcastss(v_hi, ptr[rip + l_block_consts_ + b_qmax]);
        }
        test(reg_n, reg_n);
        jle(l_done, T_NEAR);
        // Two tables, the next chunk's filled before the rows of this one: the chain of a
        // fill (loads, vdivps, the table's stores and the rows' loads) is some 30 cycles,
        // which a chunk of rows waiting on its own table would spend idle.
        const auto fill = [&](int at, int64_t after) {
            // The rows of the chunk after `after` rows: min(vlen, reg_n - after) >= 1.
            mov(reg_left, reg_n);
            if (after > 0) sub(reg_left, after);
            mov(eax, vlen);
            cmp(reg_left, rax);
            cmovg(reg_left, rax);
            fill_block_table(reg_bs, reg_bzp, reg_bs_step, reg_bzp_step, reg_tab, reg_left, at);
        };
        // The rows of the chunk whose table is at `at`, after filling the next one's at
        // `next`; then on to `l_more` while rows are left.
        const auto chunk = [&](int at, int next, Label &l_more) {
            Label l_rows, l_row;
            cmp(reg_n, vlen);
            jle(l_rows, T_NEAR);
            fill(next, vlen);
            L(l_rows);
            mov(reg_left.cvt32(), vlen);
            cmp(reg_n, reg_left);
            cmovl(reg_left, reg_n);
            lea(reg_tab, ptr[rsp + at]);
            L(l_row);
            block_row();
            add(reg_src, reg_src_step);
            add(reg_dst, reg_dst_step);
            add(reg_tab, 4);
            dec(reg_left);
            jnz(l_row, T_NEAR);
            sub(reg_n, vlen);
            jg(l_more, T_NEAR);
        };
        Label l_even, l_odd;
        fill(0, 0);
        L(l_even);
        chunk(0, block_table::bytes, l_odd);
        jmp(l_done, T_NEAR);
        L(l_odd);
        chunk(block_table::bytes, 0, l_even);
        L(l_done);
        mov(rsp, rbp);
    }

    /// avx512 blocked rows with a zero point that clamp vector by vector (not
    /// block_packed()): lo, hi and zp as embedded broadcasts from the row's block_table entry
    /// in the vectors' vmaxps, vminps and vpaddd, instead of three broadcasts a row. Blocks of
    /// 16, s8 zero point: 30.2 -> 24.5 us (docs/performance.md).
    bool table_bounds() const { return avx512 && blocked() && c_.has_zp && !block_packed(); }

    /// One blocked row: its elements at reg_src and reg_dst, its parameters at reg_btab.
    void block_row() {
        vbroadcastss(v_yhi, ptr[reg_btab + block_table::y_hi]);
        if (c_.has_zp && !table_bounds()) {
            vbroadcastss(v_lo, ptr[reg_btab + block_table::lo]);
            vbroadcastss(v_hi, ptr[reg_btab + block_table::hi]);
            if (block_packed())
                st_.broadcast_zp(word[reg_btab + block_table::zp]); // the packs add it
            else
                vpbroadcastd(v_zp, ptr[reg_btab + block_table::zp]);
        }
        if (block_packed()) {
            // Groups at offsets from the row's start.
            for (int64_t off = 0; off < c_.block; off += pack_vectors * vlen) {
                const int vectors = c_.block - off >= pack_vectors * vlen ? pack_vectors : 2;
                group(div_path::checked, true, vectors, static_cast<int>(off));
            }
        } else {
            const int64_t full = c_.block / vlen, rem = c_.block % vlen;
            for (int64_t i = 0; i < full; ++i)
                vector(static_cast<int>(i % unroll()), static_cast<int>(i * vlen),
                        div_path::checked, false);
            if (rem > 0)
                vector(static_cast<int>(full % unroll()), static_cast<int>(full * vlen),
                        div_path::checked, true);
        }
    }

    /// block_loop()'s table of a chunk's parameters: a column of vlen floats each (row i at
    /// 4i), aligned to a column. The redo blocks read s there.
    struct block_table {
        static constexpr int col = vlen * 4;
        static constexpr int s = 0, y_hi = col, lo = 2 * col, hi = 3 * col, zp = 4 * col;
        static constexpr int bytes = 5 * col;
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
            const Reg64 &bzp_step, const Reg64 &tab, const Reg64 &left, int at) {
        using t = block_table;
        // The rows' parameters go through the registers the rows broadcast into.
        const Vmm s = v_s, one = v_ya, yhi = v_yhi, zp = v_zp, lo = v_lo, hi = v_hi;
        const bool byte_zps = c_.has_zp && !nibble_zps();
        Label l_rows, l_row, l_filled;
        if (!nibble_zps()) { // s4 / u4 zero points: always row by row
            cmp(left, vlen);
            jne(l_rows, T_NEAR);
            cmp(bs_step, 4);
            jne(l_rows, T_NEAR);
            if (byte_zps) {
                cmp(bzp_step, 1);
                jne(l_rows, T_NEAR);
            }
            vmovups(s, ptr[bs]);
            add(bs, vlen * 4);
            if (byte_zps) {
                if (c_.raw_zp_dt == data_type::s8)
                    vpmovsxbd(zp, ptr[bzp]);
                else
                    vpmovzxbd(zp, ptr[bzp]);
                add(bzp, vlen);
            }
            jmp(l_filled, T_NEAR);
        }
        L(l_rows);
        lea(tab, ptr[rsp + at]);
        L(l_row);
        mov(eax, ptr[bs]);
        mov(ptr[tab + t::s], eax);
        add(bs, bs_step);
        if (c_.has_zp) {
            block_zp(bzp);
            mov(ptr[tab + t::zp], eax);
            add(bzp, bzp_step);
        }
        add(tab, 4);
        lea(rax, ptr[rsp + at + left * 4]);
        cmp(tab, rax);
        jne(l_row, T_NEAR);
        vmovaps(s, ptr[rsp + at + t::s]);
        if (c_.has_zp) vmovaps(zp, ptr[rsp + at + t::zp]); // moves bits, as vmovdqa
        L(l_filled);
        vmovaps(ptr[rsp + at + t::s], s);
        vbroadcastss(one, ptr[rip + l_block_consts_ + b_one]);
        vdivps(yhi, one, s);
        vmovaps(ptr[rsp + at + t::y_hi], yhi);
        if (c_.has_zp) {
            // lo = qmin - zp and hi = qmax - zp, exact in f32 (checked_zp_fits holds for every
            // value of the zero point's type: the driver's condition).
            vmovaps(ptr[rsp + at + t::zp], zp);
            vcvtdq2ps(zp, zp);
            vbroadcastss(lo, ptr[rip + l_block_consts_ + b_qmin]);
            vbroadcastss(hi, ptr[rip + l_block_consts_ + b_qmax]);
            vsubps(lo, lo, zp);
            vsubps(hi, hi, zp);
            vmovaps(ptr[rsp + at + t::lo], lo);
            vmovaps(ptr[rsp + at + t::hi], hi);
        }
    }

    /// Blocked rows: the raw 8- or 4-bit zero point at bzp, in eax (rdi as scratch).
    void block_zp(const Reg64 &bzp) {
        if (nibble_zps()) {
            // Element bzp of the packed tensor: the byte's high nibble for an odd bzp.
            mov(rax, bzp);
            shr(rax, 1);
            movzx(eax, byte[reg_zp_base + rax]);
            mov(edi, eax);
            shr(edi, 4);
            test(bzp.cvt8(), 1);
            cmovnz(eax, edi);
            shl(eax, 28);
            if (c_.raw_zp_dt == data_type::s4)
                sar(eax, 28);
            else
                shr(eax, 28);
        } else if (c_.raw_zp_dt == data_type::s8) {
            movsx(eax, byte[bzp]);
        } else {
            movzx(eax, byte[bzp]);
        }
    }

    /// One row: its parameters, then the element loop of the path they take.
    void row() {
        if (lanes()) {
            // Every row starts at the same lane.
            mov(reg_ls, CALL(l_s));
            mov(reg_lyhi, CALL(l_y_hi));
            mov(reg_lya, CALL(l_y_a));
            mov(reg_lyb, CALL(l_y_b));
            mov(reg_llo, CALL(l_lo));
            mov(reg_lhi, CALL(l_hi));
            mov(reg_lzp, CALL(l_zp));
        } else if (float8()) {
            vbroadcastss(v_s, PRM(s));
            vbroadcastss(v_yhi, PRM(y_hi));
        } else {
            vbroadcastss(v_s, PRM(s));
            vbroadcastss(v_yhi, PRM(y_hi));
            vbroadcastss(v_ya, PRM(y_a));
            vbroadcastss(v_yb, PRM(y_b));
            vbroadcastss(v_lo, PRM(lo));
            vbroadcastss(v_hi, PRM(hi));
            vpbroadcastd(v_zp, PRM(zp));
            if (dequantize()) dq_.load_row(PRM(dq_s), PRM(dq_off));
            if (packed()) st_.broadcast_zp(word[reg_prm + offsetof(quantize_params, zp)]);
            if (bounded_groups())
                vpbroadcastw(v_clamp_from, word[reg_prm + offsetof(quantize_params, clamp_from)]);
        }
        Label l_end;
        if (c_.lanes == lane_source::raw) {
            loops(div_path::divide); // runtime scales along the run
        } else if (c_.lanes == lane_source::table) {
            loops(static_cast<div_path>(c_.lane_path)); // decided at compile for every lane
        } else if (!c_.recip) {
            loops(div_path::divide);
        } else if (float8()) {
            // The exact quotient: rows take the multiply or the divide path (the driver's
            // parameters never name another).
            Label l_div;
            cmp(PRM(path), static_cast<int>(div_path::multiply));
            jne(l_div, T_NEAR);
            if (f8_groups()) {
                // |y_hi| >= 1: the groups' quotient is one FMA (encode_product()).
                Label l_small;
                mov(eax, PRM(y_hi));
                and_(eax, 0x7fffffff);
                cmp(eax, 0x3f800000);
                jb(l_small, T_NEAR);
                f8_->set_up_product(v_ya, v_yhi);
                loops(div_path::multiply, false, true);
                jmp(l_end, T_NEAR);
                L(l_small);
            }
            loops(div_path::multiply);
            jmp(l_end, T_NEAR);
            L(l_div);
            loops(div_path::divide);
        } else {
            // Broadcast: the row's parameters say which path its scale takes.
            Label l_div, l_mul, l_chk, l_prv;
            mov(eax, PRM(path));
            cmp(eax, static_cast<int>(div_path::divide));
            je(l_div, T_NEAR);
            cmp(eax, static_cast<int>(div_path::multiply));
            je(l_mul, T_NEAR);
            if (checked()) {
                cmp(eax, static_cast<int>(div_path::checked));
                je(l_chk, T_NEAR);
            }
            if (proven()) {
                cmp(eax, static_cast<int>(div_path::proven));
                je(l_prv, T_NEAR);
            }
            loops(div_path::recip); // and checked when the code has no checked path
            jmp(l_end, T_NEAR);
            if (checked()) {
                L(l_chk);
                loops(div_path::checked);
                jmp(l_end, T_NEAR);
            }
            if (proven()) {
                L(l_prv);
                loops(div_path::proven);
                jmp(l_end, T_NEAR);
            }
            L(l_mul);
            if (packed()) {
                // x * (1/s) is the quotient itself, so its groups can take the packed stores
                // of the checked path when the zero point passes checked_zp_fits (what
                // store_packed() needs); other zero points (s32) store vector by vector.
                const q_range r = range_of(c_.dst_dt);
                Label l_unpacked;
                mov(eax, PRM(zp));
                cmp(eax, static_cast<int>(r.hi - 256));
                jl(l_unpacked, T_NEAR);
                cmp(eax, static_cast<int>(r.lo + 256));
                jg(l_unpacked, T_NEAR);
                loops(div_path::multiply, true);
                jmp(l_end, T_NEAR);
                L(l_unpacked);
            }
            loops(div_path::multiply);
            jmp(l_end, T_NEAR);
            L(l_div);
            loops(div_path::divide);
        }
        L(l_end);
    }

    /// Out of line, after the return: the checked path's redo blocks, and avx2's constants.
    void emit_redo_blocks() {
        for (redo_block &b : redos_) {
            L(b.redo);
            const int u = b.u;
            if (b.reload) load_f32(vreg(u, 0), ptr[reg_src + b.off * 4], b.tail);
            if (compact_lanes()) {
                // The lane pointers still point at this vector's block.
                const Vmm s = vreg(u, 4), ya = vreg(u, 5), yb = vreg(u, 6);
                load_f32(s, ptr[reg_ls + b.off * 4], b.tail);
                load_f32(ya, ptr[reg_lya + b.off * 4], b.tail);
                load_f32(yb, ptr[reg_lyb + b.off * 4], b.tail);
                div_.divide_recip(vreg(u, 1), vreg(u, 0), vreg(u, 2), s, vreg(u, 3), ya, yb);
                if (c_.has_zp) load_lane_bounds(u, b.off, b.tail);
            } else if (lanes()) {
                // The lane pointers still point at this vector's block.
                load_f32(vreg(u, 3), ptr[reg_ls + b.off * 4], b.tail);
                load_f32(vreg(u, 5), ptr[reg_lya + b.off * 4], b.tail);
                load_f32(vreg(u, 6), ptr[reg_lyb + b.off * 4], b.tail);
                div_.divide_recip(vreg(u, 1), vreg(u, 0), vreg(u, 2), vreg(u, 3), vreg(u, 4),
                        vreg(u, 5), vreg(u, 6));
            } else if (blocked()) {
                // The IEEE quotient (masked tail: 0 / s), s from the row's table entry.
                vbroadcastss(vreg(u, 2), ptr[reg_btab + block_table::s]);
                vdivps(vreg(u, 1), vreg(u, 0), vreg(u, 2));
            } else {
                div_.divide_recip(vreg(u, 1), vreg(u, 0), vreg(u, 2), v_s, v_yhi, v_ya, v_yb);
            }
            if (clamps_before_check()) clamp(vreg(u, 1), b.lo, b.hi);
            jmp(b.back, T_NEAR);
        }
        if (blocked()) {
            const q_range q = range_of(c_.dst_dt);
            align(16);
            L(l_block_consts_);
            for (float v : {1.f, static_cast<float>(q.lo), static_cast<float>(q.hi)})
                dd(f32_bits(v));
        }
        if (f8_) f8_->emit_constants();
        st_.emit_constants();
        if (avx512) return;
        align(32);
        L(l_consts_);
        for (uint32_t v : {f32_bits(tie_magic), tie_mask, 0u})
            for (int i = 0; i < 8; ++i) dd(v);
        div_.emit_constants(); // 96 bytes on: aligned, so the same layout as one table
    }

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
    /// its register (folded_load()). One branch per vector: one per packed group (the masks
    /// ANDed, the group's four vectors redone together) measured 5-10% slower on qbench's
    /// quarter-integer data.
    void check(int u, int off, const Vmm &q, const Vmm &t, const Vmm &lo, const Vmm &hi,
            bool tail, bool reload) {
        redos_.emplace_back();
        redo_block &b = redos_.back();
        b.reload = reload;
        b.u = u;
        b.off = off;
        b.tail = tail;
        b.lo = lo;
        b.hi = hi;
        if (clamps_before_check()) clamp(q, lo, hi);
        if (avx512) {
            vaddps(t, q, v_magic);
            // k2 = the unproven lanes; masked-off tail lanes never are.
            vptestnmd(tail ? k2 | k1 : k2, t, v_tie_mask);
            kortestw(k2, k2);
            jnz(b.redo, T_NEAR);
        } else {
            vaddps(t, q, ptr[rip + l_consts_ + c_magic]);
            vpand(t, t, ptr[rip + l_consts_ + c_mask]);
            vpcmpeqd(t, t, ptr[rip + l_consts_ + c_zero]);
            vmovmskps(eax, t); // a bit per unproven lane (vptest costs a uop more)
            test(eax, eax);
            jnz(b.redo, T_NEAR);
        }
        L(b.back);
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
        for (const Reg64 &r : {reg_ls, reg_lyhi, reg_lya, reg_lyb, reg_llo, reg_lhi})
            add(r, elems * 4);
        add(reg_lzp, elems * lane_zp_size());
    }

    /// `packed_multiply`: multiply rows store with packs too (row() checks their zero point).
    /// `f8_product`: float8 groups of a multiply row with |y_hi| >= 1 (float8_groups()).
    void loops(div_path path, bool packed_multiply = false, bool f8_product = false) {
        int u = unroll();
        if (((path == div_path::checked || path == div_path::proven) && packed())
                || packed_multiply) {
            packed_groups(path);
            u = 1; // fewer than a group's elements are left
        } else if (f8_groups()) {
            float8_groups(path, f8_product);
            u = 1;
        } else if (word_pairs()) {
            // The sign of the row's scale (avx512 reciprocal path) or else of its zero point
            // picks what the groups clamp (word_groups()).
            Label l_rest;
            if (path == div_path::recip && avx512) {
                Label l_not_positive;
                vmovd(eax, Xmm(v_s.getIdx()));
                test(eax, eax);
                js(l_not_positive, T_NEAR);
                // x_hi = s * 2^26 (exact: 2^-30 <= s <= 2^30 on this path), x_lo = -x_hi.
                mov(eax, f32_bits(67108864.f));
                vpbroadcastd(v_xhi, eax);
                vmulps(v_xhi, v_xhi, v_s);
                vxorps(v_xlo, v_xlo, v_xlo);
                vsubps(v_xlo, v_xlo, v_xhi);
                word_groups(path, word_clamp::x);
                jmp(l_rest, T_NEAR);
                L(l_not_positive);
            }
            if (c_.has_zp) {
                Label l_upper;
                cmp(PRM(zp), 0);
                jge(l_upper, T_NEAR);
                word_groups(path, word_clamp::q_lower);
                jmp(l_rest, T_NEAR);
                L(l_upper);
            }
            word_groups(path, word_clamp::q_upper);
            L(l_rest);
            u = 1; // fewer than a group's elements are left
        }
        element_loop(
                reg_n, vlen, u, avx512,
                [&](int u, int off, bool tail) { vector(u, off, path, tail); },
                [&](int elems) { advance(elems); });
    }

    /// The checked, proven or multiply path over whole groups of pack_vectors vectors, stored with
    /// packs; leaves fewer than a group's elements in reg_n.
    void packed_groups(div_path path) {
        assert(unroll() >= pack_vectors);
        const bool bounded = path == div_path::proven && bounded_groups();
        Label l_loop, l_next, l_clamped, l_done;
        // reg_n counts the elements left after this group: one sub and one branch a group.
        const int g = pack_vectors * vlen;
        sub(reg_n, g);
        jl(l_done, T_NEAR);
        L(l_loop);
        if (bounded) {
            // k2, k3: the codes at or above clamp_from, 32 per compare (a group's 128 bytes).
            vpcmpw(k2, v_clamp_from, ptr[reg_src], 2); // clamp_from <= code, signed
            vpcmpw(k3, v_clamp_from, ptr[reg_src + 64], 2);
            kortestd(k2, k3);
            jnz(l_clamped, T_NEAR);
        }
        group(path, !bounded);
        L(l_next);
        advance(g);
        sub(reg_n, g);
        jge(l_loop, T_NEAR);
        if (bounded) {
            jmp(l_done, T_NEAR);
            L(l_clamped);
            group(path, true);
            jmp(l_next, T_NEAR);
        }
        L(l_done);
        add(reg_n, g);
    }

    /// float8 (f8_groups()) over whole groups of four vectors: each quotient to f16 words,
    /// two vectors' words joined in one zmm, their codes and the 64 code bytes
    /// (float8_emitter): half the word instructions of one vector at a time, and one shuffle
    /// for 64 codes (with AVX512_VBMI). Multiply rows of f32 read x in the multiply;
    /// `product` rows (|y_hi| >= 1, row()) take the quotient and + 0.f as one FMA
    /// (float8_emitter::encode_product()). Leaves fewer than a group's elements in reg_n.
    void float8_groups(div_path path, bool product) {
        Label l_loop, l_done;
        const int g = 4 * vlen;
        sub(reg_n, g); // the elements left after this group
        jl(l_done, T_NEAR);
        L(l_loop);
        for (int u = 0; u < 4; ++u) {
            const Vmm x = vreg(u, 0), q = vreg(u, 1), t = vreg(u, 2);
            const Ymm h(x.getIdx());
            if (product && folded_load()) {
                f8_->encode_product(h, q, ptr[reg_src + u * vlen * 4], v_ya, t);
                continue;
            }
            if (path == div_path::multiply && folded_load()) {
                vmulps(q, v_yhi, ptr[reg_src + u * vlen * 4]); // x * (1/s)
                continue;
            }
            // product: x straight into q.
            const Vmm &xd = product ? q : x;
            if (f8_unpacks_bf16()) {
                const Address a = ptr[reg_src + (u >> 1) * 2 * vlen * 2];
                if (u & 1)
                    vpunpckhwd(xd, v_zero, a);
                else
                    vpunpcklwd(xd, v_zero, a);
            } else {
                load_.load(xd, ptr[reg_src + u * vlen * src_size()], false, product ? x : q, t);
            }
            if (product) {
                f8_->encode_product(h, q, v_ya, t);
                continue;
            }
            div_.divide(path, q, x, t, v_s, v_yhi, v_ya, v_yb);
        }
        // The quotients' encodes after all the divisions, which take the longest.
        for (int u = 0; u < 4 && !product; ++u)
            f8_->encode_f16(Ymm(vreg(u, 0).getIdx()), vreg(u, 1), vreg(u, 2));
        for (int u = 0; u < 4; u += 2) {
            const Zmm w(vreg(u, 0).getIdx());
            vinserti64x4(w, w, Ymm(vreg(u + 1, 0).getIdx()), 1);
            f8_->encode_words(vreg(u, 0), vreg(u, 2));
        }
        f8_->pack_words(vreg(0, 0), vreg(2, 0));
        vmovdqu8(ptr[reg_dst], vreg(0, 0));
        advance(g);
        sub(reg_n, g);
        jge(l_loop, T_NEAR);
        L(l_done);
        add(reg_n, g);
    }

    /// What word_groups() clamps; each lane then stores sat16(cvt(q') + zp), the s32 sum
    /// wrapping, sat16 being the pack's saturation to [qmin, qmax] and cvt giving rne, or
    /// -2^31 for NaN and |q'| >= 2^31. That equals clamp(rne(q) + zp, qmin, qmax), NaN ->
    /// qmin (NUMERICS.md), as argued for each; |zp| <= 2^23 (the driver's limit), and lo =
    /// qmin - zp, hi = qmax - zp are integers, so rne(min(q, hi)) = min(rne(q), hi) (and
    /// likewise max).
    enum class word_clamp {
        /// q' = q = x' / s, x' = clamp(x, x_lo, x_hi), NaN -> x_lo, x_hi = s * 2^26 = -x_lo
        /// (avx512 rows with s > 0 on the reciprocal path): x' is finite and |x' / s| <=
        /// 2^26, so the division needs no reset of its residual (divide_recip_bounded()),
        /// |rne(q')| <= 2^26 converts exactly and r + zp cannot wrap. |x| <= x_hi keeps x.
        /// Otherwise x / s and x' / s = +-2^26 are beyond 2^26 on the same side (+-Inf
        /// included), and both saturate there (2^26 - 2^23 > 65535); NaN gives -2^26, i.e. qmin.
        x,
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

    /// s16 / u16 on `path` over whole groups of word_group vectors, stored in pairs with
    /// packs (store_emitter::store_words()); leaves fewer than a group's elements in reg_n.
    void word_groups(div_path path, word_clamp clamp) {
        assert(unroll() >= word_group);
        Label l_loop, l_done;
        const int g = word_group * vlen;
        sub(reg_n, g); // the elements left after this group
        jl(l_done, T_NEAR);
        L(l_loop);
        for (int u = 0; u < word_group; ++u) {
            const Vmm x = vreg(u, 0), q = vreg(u, 1);
            if (clamp != word_clamp::x) {
                load_src(u, u * vlen, false);
                div_.divide(path, q, x, vreg(u, 2), v_s, v_yhi, v_ya, v_yb);
                continue;
            }
            // x' = max(min(x, x_hi), x_lo): vminps keeps NaN (its second source), vmaxps
            // turns it into x_lo.
            if (folded_load()) {
                vminps(x, v_xhi, ptr[reg_src + u * vlen * 4]);
            } else {
                load_src(u, u * vlen, false);
                vminps(x, v_xhi, x);
            }
            vmaxps(x, x, v_xlo);
            div_.divide_recip_bounded(q, x, v_s, v_yhi, v_ya, v_yb);
        }
        for (int u = 0; u < word_group; ++u) {
            const Vmm q = vreg(u, 1);
            if (clamp == word_clamp::q_lower)
                vmaxps(q, q, v_lo);
            else if (clamp == word_clamp::q_upper)
                vminps(q, v_hi, q);
            if (avx512)
                vcvtps2dq(q, q | T_rn_sae);
            else
                vcvtps2dq(q, q); // MXCSR: round to nearest even
            if (c_.has_zp) vpaddd(q, q, v_zp);
        }
        for (int u = 0; u < word_group; u += 2)
            st_.store_words(vreg(u, 1), vreg(u + 1, 1), ptr[reg_dst + dst_bytes(u * vlen)]);
        advance(g);
        sub(reg_n, g);
        jge(l_loop, T_NEAR);
        L(l_done);
        add(reg_n, g);
    }

    /// One group of packed_groups(): q = x * y_hi, its rounding, and the packed store, each
    /// step over all the group's vectors before the next (independent work side by side);
    /// `clamp`: q <= qmax - zp first (without it every q is below 2^31: bounded_groups());
    /// `base`: the group's first element, from the pointers (blocked rows).
    void group(div_path path, bool clamp, int vectors = pack_vectors, int base = 0) {
        for (int u = 0; u < vectors; ++u) {
            const Vmm x = vreg(u, 0), q = vreg(u, 1);
            const int off = base + u * vlen;
            if (folded_load()) {
                vmulps(q, v_yhi, ptr[reg_src + off * 4]);
                continue;
            }
            if (unpack_bf16()) {
                // Vector 2m + h: the low (h = 0) or high words of each 128-bit lane of the
                // m-th 2 * vlen elements, each under a zero word: bf16 -> f32, exact.
                const Address a = ptr[reg_src + (base + (u >> 1) * 2 * vlen) * src_size()];
                if (u & 1)
                    vpunpckhwd(x, v_zero, a);
                else
                    vpunpcklwd(x, v_zero, a);
            } else {
                load_src(u, off, false);
            }
            vmulps(q, x, v_yhi);
        }
        if (path == div_path::checked)
            for (int u = 0; u < vectors; ++u)
                check(u, base + u * vlen, vreg(u, 1), vreg(u, 2), v_lo, v_hi, false,
                        folded_load());
        for (int u = 0; u < vectors; ++u) {
            const Vmm q = vreg(u, 1);
            // Bytes: q <= qmax - zp, NaN kept: one side is enough (store_emitter::
            // store_packed()). Nibbles: both sides, the packs saturating to bytes only.
            if (clamp && !clamped_by_check(path)) {
                if (st_.nibbles())
                    this->clamp(q, v_lo, v_hi);
                else
                    vminps(q, v_hi, q);
            }
            if (avx512)
                vcvtps2dq(q, q | T_rn_sae);
            else
                vcvtps2dq(q, q); // MXCSR: round to nearest even
        }
        pack_group(vectors, base);
    }

    /// The group's vectors (q of each), stored with packs (jit_store_emitter.hpp) at
    /// element `base` of the row.
    void pack_group(int vectors = pack_vectors, int base = 0) {
        Vmm q[pack_vectors];
        for (int u = 0; u < vectors; ++u) q[u] = vreg(u, 1);
        st_.store_packed(q, vectors, ptr[reg_dst + dst_bytes(base)]);
    }

    void load_f32(const Vmm &v, const Address &a, bool tail) {
        if (tail)
            vmovups(v | k1 | T_z, a);
        else
            vmovups(v, a);
    }

    void load_s32(const Vmm &v, const Address &a, bool tail) {
        if (avx512) {
            if (tail)
                vmovdqu32(v | k1 | T_z, a);
            else
                vmovdqu32(v, a);
        } else {
            vmovdqu(v, a);
        }
    }

    /// A vector of zero points of type dt, widened to s32.
    void load_zp(const Vmm &v, const RegExp &at, data_type dt, bool tail) {
        const Vmm vd = tail ? Vmm(v | k1 | T_z) : v;
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

    void vector(int u, int off, div_path path, bool tail) {
        const bool recip = path == div_path::recip;
        const Vmm x = vreg(u, 0), q = vreg(u, 1), t = vreg(u, 2);
        Vmm s = v_s, yhi = v_yhi, ya = v_ya, yb = v_yb, lo = v_lo, hi = v_hi, zp = v_zp;

        load_src(u, off, tail);

        if (lanes()) {
            s = vreg(u, 3);
            if (path != div_path::checked && path != div_path::proven)
                load_f32(s, ptr[reg_ls + off * 4], tail);
            if (c_.lanes == lane_source::table) {
                lo = vreg(u, slot_lo());
                hi = vreg(u, slot_lo() + 1);
                zp = vreg(u, slot_lo() + 2);
                if (path != div_path::divide) {
                    yhi = vreg(u, slot_yhi());
                    load_f32(yhi, ptr[reg_lyhi + off * 4], tail);
                }
                if (recip) {
                    ya = vreg(u, 5);
                    yb = vreg(u, 6);
                    load_f32(ya, ptr[reg_lya + off * 4], tail);
                    load_f32(yb, ptr[reg_lyb + off * 4], tail);
                }
                if (c_.has_zp) {
                    load_lane_bounds(u, off, tail);
                } else {
                    lo = v_qmin; // qmin - 0, qmax - 0 in every lane
                    hi = v_qmax;
                }
            } else {
                lo = v_qmin;
                hi = v_qmax;
                if (c_.has_zp) {
                    // lo = qmin - zp, hi = qmax - zp, exact in f32 for |zp| <= 2^23 (the
                    // driver checks the zero points of each call before it runs).
                    zp = vreg(u, 9);
                    load_zp(zp, reg_lzp + off * lane_zp_size(), c_.raw_zp_dt, tail);
                    lo = vreg(u, 7);
                    hi = vreg(u, 8);
                    vcvtdq2ps(hi, zp);
                    vsubps(lo, v_qmin, hi);
                    vsubps(hi, v_qmax, hi);
                }
            }
        }

        if (path == div_path::checked)
            multiply_checked(u, off, q, x, yhi, t, lo, hi, tail);
        else if (path == div_path::proven)
            vmulps(q, x, yhi);
        else
            div_.divide(path, q, x, t, s, yhi, ya, yb); // jit_division_emitter.hpp

        if (dequantize()) {
            if (!clamped_by_check(path)) clamp(q, lo, hi);
            return dq_.store(q, ptr[reg_dst + off * dst_size()], tail);
        }
        if (f8_words()) {
            // The codes as words in x's ymm (free after the division), stored as bytes.
            const Ymm h(x.getIdx());
            f8_->encode_f16(h, q, t);
            f8_->encode_words(h, Ymm(t.getIdx()));
            f8_->pack_word(h);
            const Address d = ptr[reg_dst + off];
            if (tail)
                vmovdqu8(d | k1, Xmm(h.getIdx()));
            else
                vmovdqu(d, Xmm(h.getIdx()));
            return;
        }
        if (float8()) {
            // x / s + 0.f, then the code (into x, free after the division), stored as bytes.
            f8_->add_zero(q);
            const int f = slot_f8();
            f8_->encode(x, q, t, vreg(u, f), vreg(u, f + 1), vreg(u, f + 2));
            return store_dst(x, t, off, tail);
        }
        // The bounds are integers, so clamping commutes with rounding.
        const bool is_unsigned = c_.dst_dt == data_type::u8 || c_.dst_dt == data_type::u16;
        // s4 / u4: no store saturates to 4 bits.
        const bool one_sided = avx512 && (is_unsigned || !c_.has_zp) && !st_.nibbles();
        const Address t_lo = ptr_b[reg_btab + block_table::lo],
                      t_hi = ptr_b[reg_btab + block_table::hi],
                      t_zp = ptr_b[reg_btab + block_table::zp];
        const bool tb = table_bounds();
        const Operand &lo_op = tb ? static_cast<const Operand &>(t_lo) : lo;
        const Operand &hi_op = tb ? static_cast<const Operand &>(t_hi) : hi;
        const Operand &zp_op = tb ? static_cast<const Operand &>(t_zp) : zp;
        if (clamped_by_check(path)) {
            // check() clamped q.
        } else if (!one_sided) {
            clamp(q, lo_op, hi_op);
        } else if (is_unsigned) {
            // q >= qmin - zp, NaN -> lo. What is left above the range converts to a value
            // that, as unsigned, exceeds qmax (exact ints, or 0x80000000 + zp when q >= 2^31,
            // or a sum that wraps past 2^31), so vpmovusdb / vpmovusdw saturates it to qmax.
            vmaxps(q, q, lo_op);
        } else {
            // s8 / s16 without a zero point: q <= qmax keeping NaN (vminps returns its second
            // source, q, when either is NaN). NaN and q <= -2^31 convert to 0x80000000,
            // which vpmovsdb / vpmovsdw saturates to qmin, as NUMERICS asks.
            vminps(q, hi, q);
        }
        if (avx512)
            vcvtps2dq(q, q | T_rn_sae);
        else
            vcvtps2dq(q, q);
        if (c_.has_zp) vpaddd(q, q, zp_op);
        store_dst(q, t, off, tail);
    }

    void store_dst(const Vmm &q, const Vmm &scratch, int off, bool tail) {
        st_.store(q, scratch, ptr[reg_dst + dst_bytes(off)], tail);
    }
};

#undef CALL
#undef PRM

template <cpu_isa_t isa>
std::unique_ptr<jit_generator> make_generator(const quantize_conf &conf, int &stream_align) {
    auto g = std::make_unique<quantize_generator<isa>>(conf);
    stream_align = g->stream_align();
    return g;
}

} // namespace

jit_quantize_kernel::generated jit_quantize_kernel::generate(const quantize_conf &conf) {
    generated g {nullptr, 0};
    g.gen = conf.isa == avx512_core ? make_generator<avx512_core>(conf, g.stream_align)
                                    : make_generator<avx2>(conf, g.stream_align);
    return g;
}

jit_quantize_kernel::jit_quantize_kernel(const quantize_conf &conf)
    : jit_quantize_kernel(conf, generate(conf)) {}

jit_quantize_kernel::jit_quantize_kernel(const quantize_conf &conf, generated g)
    : jit_code(std::move(g.gen)), conf_(conf), stream_align_(g.stream_align) {}

} // namespace jit
} // namespace impl
} // namespace qgraph
