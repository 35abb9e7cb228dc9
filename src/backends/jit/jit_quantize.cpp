// The frame of the quantize generator (jit_quantize_generator.hpp): generate(), the rows and
// their loops, one vector's division, rounding and store, the checked multiply's check and
// its redo blocks; and the kernel that builds it (jit_quantize.hpp).

#include <type_traits>

#include "backends/jit/jit_quantize_generator.hpp"

namespace qgraph {
namespace impl {
namespace jit {

using namespace Xbyak;

template <cpu_isa_t isa>
void quantize_generator<isa>::generate() {
    preamble();
    const q_range q = range_of(c_.dst_dt);
    if (avx512) div_.set_up(take_const());
    if (load_.nconsts() > 0) {
        Vmm consts[3];
        for (int i = 0; i < load_.nconsts(); ++i) consts[i] = take_const();
        load_.set_up(consts);
    }
    if (float8() || float4())
        f8_ = std::make_unique<float8_emitter<isa>>(*this, c_.dst_dt, c_.saturate, c_.vbmi);
    if (scaled_half_rows() || scaled_half_runs()) f8_->set_scaled_half_source(c_.src_dt);
    // (planes_pairs() also asks for free registers, known once the constants are taken.)
    const bool pairs = avx512 && c_.vbmi && blocked() && c_.block == 2 * vlen
            && ((c_.src_dt != data_type::f32 && scaled_half_rows()
                        && float8_byte_planes::serves(c_.src_dt, c_.dst_dt))
                    || (c_.src_dt == data_type::f32 && c_.round_dt == data_type::undef
                            && !rounds_quotient()
                            && float8_byte_planes::serves(data_type::bf16, c_.dst_dt)));
    // The planes read bf16 words but for f16 x (f32 pairs round their quotients to bf16).
    const data_type words = c_.src_dt == data_type::f16 ? data_type::f16 : data_type::bf16;
    if (scaled_half_planes() || pairs)
        planes_ = std::make_unique<float8_byte_planes>(
                *this, words, c_.dst_dt, f8_->overflow_magnitude(), false);
    if (any_scale_planes())
        any_planes_ = std::make_unique<float8_byte_planes>(
                *this, words, c_.dst_dt, f8_->overflow_magnitude(), true);
    if (f8_words()) {
        Vmm consts[float8_emitter<isa>::max_word_consts];
        const int n = f8_->word_consts(f8_checked());
        assert(n <= float8_emitter<isa>::max_word_consts);
        for (int i = 0; i < n; ++i) consts[i] = take_const();
        f8_->set_up_words(consts, f8_checked());
        if (f8_unpacks_bf16()) f8_->set_up_unpacked_order(take_const());
    }
    if (!lanes() && float8()) {
        v_s = take_const(); // the multiply, guarded and divide paths only, no bounds
        v_yhi = take_const();
        // Also set_up_product()'s, and the blocked rows' 1.f (fill_block_table()).
        if (f8_groups() || guards() || blocked()) v_ya = take_const();
        if (guards()) v_yb = take_const();
        if (f8_checked()) v_y8 = take_const();
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
        mov(eax, tie_mask); // the fixed-point check's mask too (jit_division.hpp)
        vpbroadcastd(v_tie_mask, eax);
    }
    if (lane_packed()) {
        const q_range r = range_of(c_.dst_dt);
        const int64_t lo = r.lo - c_.lane_zp_max, hi = r.hi - c_.lane_zp_min;
        assert(!checked() || (lo >= -256 && hi <= 256));
        v_lo = take_const();
        v_hi = take_const();
        broadcast_f32(v_lo, static_cast<float>(lo));
        broadcast_f32(v_hi, static_cast<float>(hi));
    }
    if (lane_packed() && checked() && !avx512) {
        v_magic = take_const();
        v_tie_mask = take_const();
        v_check_zero = take_const();
        broadcast_f32(v_magic, tie_magic);
        mov(eax, tie_mask);
        vmovd(Xmm(v_tie_mask.getIdx()), eax);
        vpbroadcastd(v_tie_mask, Xmm(v_tie_mask.getIdx()));
        vpxor(v_check_zero, v_check_zero, v_check_zero);
    }
    if (packed() || block_packed() || lane_packed()) {
        const Vmm zp16 = take_const();
        st_.set_up_packs(zp16, take_const(), unpack_bf16());
        if (nibble_lane_clamp() || nibble_block_clamp()) st_.clamp_packed_nibbles();
    }
    if (word_pairs() && avx512) st_.set_up_words(take_const());
    if (word_clamps_x()) {
        v_xhi = take_const();
        v_xlo = take_const();
    }
    // avx2 has no register to spare: its proven rows leave y_b unused (the redo blocks
    // and the reciprocal path read it), so the proven loops hold clamp_from there.
    if (bounded_groups()) v_clamp_from = avx512 ? take_const() : v_yb;
    if (fixed_broadcast()) {
        v_fixed_y = take_const();
        v_fixed_f = take_const();
    }
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
    finish("quantize", isa);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::row() {
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
        if (bounded_groups() && avx512) broadcast_clamp_from();
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
        // parameters never name another); rows with a planes table first their whole steps
        // of 64 by the planes.
        if (any_planes_ && top_ >= 16) any_scale_planes_run();
        Label l_div;
        cmp(PRM(path), static_cast<int>(div_path::multiply));
        jne(l_div, T_NEAR);
        if (scaled_half_runs()) scaled_half_run();
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
        if (guards()) {
            Label l_divide, l_checked;
            if (f8_checked()) {
                cmp(PRM(path), static_cast<int>(div_path::float8_checked));
                je(l_checked, T_NEAR);
            }
            cmp(PRM(path), static_cast<int>(div_path::guarded));
            jne(l_divide, T_NEAR);
            vbroadcastss(v_ya, PRM(y_a));
            vbroadcastss(v_yb, PRM(y_b));
            if (f8_checked()) f8_->set_up_product(v_y8, v_yhi);
            loops(div_path::guarded);
            jmp(l_end, T_NEAR);
            if (f8_checked()) {
                L(l_checked);
                f8_->set_up_product(v_y8, v_yhi);
                loops(div_path::float8_checked);
                jmp(l_end, T_NEAR);
            }
            L(l_divide);
        }
        loops(div_path::divide); // and float8_checked rows of code without the checked groups
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
            if (fixed_broadcast()) set_up_fixed_row();
            loops(div_path::checked);
            jmp(l_end, T_NEAR);
        }
        if (proven()) {
            L(l_prv);
            if (bounded_groups() && !avx512) broadcast_clamp_from(); // over y_b
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

template <cpu_isa_t isa>
void quantize_generator<isa>::emit_redo_blocks() {
    for (redo_block &b : redos_) {
        L(b.redo);
        if (b.retest && avx512) {
            // The group's test, for this vector alone (q is as the group left it).
            if (b.fixed)
                vptestmd(k3, b.q, v_tie_mask);
            else
                proven_lanes(k3, b.q, b.t);
            kortestw(k3, k3);
            jc(b.next ? *b.next : b.back, T_NEAR); // all 16 proven: keep q
        } else if (b.retest) {
            tie_bits(b.t, b.q);
            flagged_lanes(b.t);
            jz(b.next ? *b.next : b.back, T_NEAR); // all 8 proven: keep q
        }
        if (b.reload) load_.load(b.x, redo_src(b), b.tail, b.q, b.t);
        if (lanes()) {
            // The IEEE quotient by the lane's scale (masked tail: 0 / s): lane tables need no
            // y_a, y_b for the checked path, so runtime scales take it with only their
            // reciprocals set up (runtime_lane_tables). The lane pointers still point at this
            // vector's block.
            load_f32(b.t, ptr[reg_ls + b.off * 4], b.tail);
            vdivps(b.q, b.x, b.t);
        } else if (blocked()) {
            // The IEEE quotient (masked tail: 0 / s), s from the row's table entry.
            vbroadcastss(b.t, redo_table(b, block_table::s));
            vdivps(b.q, b.x, b.t);
        } else {
            div_.divide_recip(b.q, b.x, b.t, v_s, v_yhi, v_ya, v_yb);
        }
        if (b.fixed)
            fixed_redo(b);
        else if (clamps_before_check())
            clamp(b.q, b.lo, b.hi);
        jmp(b.next ? *b.next : b.back, T_NEAR);
    }
    if (blocked()) {
        const q_range q = range_of(c_.dst_dt);
        align(16);
        L(l_block_consts_);
        for (float v : {1.f, static_cast<float>(q.lo), static_cast<float>(q.hi)})
            dd(f32_bits(v));
        dd(scaled_half_rows() ? f8_->scaled_half_base() : 0);
        dd(scaled_half_rows() ? f8_->scaled_half_most() : 0);
        dd(planes_pairs() ? planes_->pair_k_min() : 0);
    }
    if (f8_) f8_->emit_constants();
    if (planes_) planes_->emit_constants();
    if (any_planes_) any_planes_->emit_constants();
    st_.emit_constants();
    if (guards()) {
        align(32);
        L(l_guard_consts_);
        for (uint32_t v : {0x7fffffffu, f32_bits(guarded_max_x)})
            for (int i = 0; i < 8; ++i) dd(v);
    }
    if (rounds_in_integers()) {
        // round_quotient()'s half unit of the last kept bit, and the kept bits: bf16 keeps
        // the top 16 bits of an f32, f16's 11-bit significand the top 19 (normal values).
        const int drop = c_.quotient_dt == data_type::bf16 ? 16 : 13;
        align(32);
        L(l_round_consts_);
        for (uint32_t v : {1u << (drop - 1), ~((1u << drop) - 1), (1u << (drop - 1)) - 1, 1u})
            for (int i = 0; i < 8; ++i) dd(v);
    }
    if (avx512) return;
    align(32);
    L(l_consts_);
    for (uint32_t v : {f32_bits(tie_magic), tie_mask, 0u})
        for (int i = 0; i < 8; ++i) dd(v);
    div_.emit_constants(); // 96 bytes on: aligned, so the same layout as one table
}

template <cpu_isa_t isa>
void quantize_generator<isa>::round_quotient(const Vmm &q, const Vmm &t) {
    if (!rounds_in_integers()) {
        // f16: nearest even (imm 0), overflow to Inf, subnormals kept; widened back exactly.
        using Half = typename std::conditional<avx512, Ymm, Xmm>::type;
        vcvtps2ph(Half(t.getIdx()), q, 0);
        vcvtph2ps(q, Half(t.getIdx()));
        return;
    }
    // The f32 pattern rounded to its top 32 - drop bits in integers: q + 2^(drop - 1), the
    // low bits cleared. That rounds ties away from zero, but no quotient a row computes is a
    // tie where it matters: x * RN(1/s), and RN(x / s) on the divide path, lie strictly on
    // the side of x / s of every midpoint between two normal values of the type
    // (jit_division.hpp, "Division in f16 and bf16"). Below the normal range (2^-14 for
    // f16) every value quantizes to 0 anyway. Above it, bf16 has f32's exponents, so a sum
    // past the largest finite value is Inf; f16 quotients stay above 65504, where every byte
    // saturates alike. NaNs stay NaNs: the division's are the default one or an operand's,
    // whose payload lies in the kept bits, so the sum cannot carry out of the mantissa.
    if (rounds_ties_even()) {
        // Ties to even: half a unit less one, plus the last kept bit.
        vpsrld(t, q, 16);
        if (avx512) {
            vpandd(t, t, table_entry(l_round_consts_, r_one));
            vpaddd(t, t, table_entry(l_round_consts_, r_half_below));
        } else {
            vpand(t, t, table_entry(l_round_consts_, r_one));
            vpaddd(t, t, table_entry(l_round_consts_, r_half_below));
        }
        vpaddd(q, q, t);
    } else {
        vpaddd(q, q, table_entry(l_round_consts_, r_half));
    }
    if (avx512)
        vpandd(q, q, table_entry(l_round_consts_, r_high));
    else
        vpand(q, q, table_entry(l_round_consts_, r_high));
}

template <cpu_isa_t isa>
void quantize_generator<isa>::divide_guarded(const Vmm *q, const Vmm *x, const Vmm *t, int n) {
    // The largest |x| as bits (integers order them, NaN above Inf above every finite value).
    for (int i = 0; i < n; ++i) {
        if (avx512)
            vpandd(t[i], x[i], table_entry(l_guard_consts_, g_abs));
        else
            vpand(t[i], x[i], table_entry(l_guard_consts_, g_abs));
        if (i > 0) vpmaxsd(t[0], t[0], t[i]);
    }
    Label l_slow, l_done;
    if (avx512) {
        vpcmpgtd(k2, t[0], table_entry(l_guard_consts_, g_max));
        kortestw(k2, k2);
    } else {
        vpcmpgtd(t[0], t[0], table_entry(l_guard_consts_, g_max));
        vmovmskps(eax, t[0]);
        test(eax, eax);
    }
    jnz(l_slow, T_NEAR);
    for (int i = 0; i < n; ++i) div_.divide_recip_bounded(q[i], x[i], v_s, v_yhi, v_ya, v_yb);
    jmp(l_done, T_NEAR);
    L(l_slow);
    for (int i = 0; i < n; ++i) vdivps(q[i], x[i], v_s);
    L(l_done);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::check(int u, int off, const Vmm &q, const Vmm &t, const Vmm &lo, const Vmm &hi,
        bool tail, bool reload) {
    redos_.emplace_back();
    redo_block &b = redos_.back();
    b.reload = reload;
    b.off = off;
    b.tail = tail;
    b.x = vreg(u, 0);
    b.q = q;
    b.t = t;
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
        tie_bits(t, q);
        flagged_lanes(t);
        jnz(b.redo, T_NEAR);
    }
    L(b.back);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::tie_bits(const Vmm &t, const Vmm &q) {
    if (lane_packed()) { // the constants in registers
        vaddps(t, q, v_magic);
        vpand(t, t, v_tie_mask);
    } else {
        vaddps(t, q, ptr[rip + l_consts_ + c_magic]);
        vpand(t, t, ptr[rip + l_consts_ + c_mask]);
    }
}

template <cpu_isa_t isa>
void quantize_generator<isa>::flagged_lanes(const Vmm &t) {
    if (lane_packed())
        vpcmpeqd(t, t, v_check_zero);
    else
        vpcmpeqd(t, t, ptr[rip + l_consts_ + c_zero]);
    vmovmskps(eax, t); // a bit per unproven lane (vptest costs a uop more)
    test(eax, eax);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::check_group(int vectors, int base, bool reload) {
    assert(vectors >= 2);
    redo_block &first = group_redo_blocks(vectors, base, reload || checked_quads(),
            avx512 || (checked_quads() && !blocked()), false);
    for (int u = 0; u < vectors; ++u) {
        const Vmm q = group_reg(u, 1), t = group_reg(u, 2);
        if (clamps_before_check()) clamp(q, v_lo, v_hi);
        if (avx512) {
            // k2 = the group's proven lanes: each vector's test under the previous ones'.
            proven_lanes(u == 0 ? k2 : k2 | k2, q, t);
            continue;
        }
        tie_bits(t, q);
        if (u > 0) vpminud(group_reg(0, 2), group_reg(0, 2), t);
    }
    if (avx512) {
        kortestw(k2, k2); // CF: all 16 proven in every vector
        jnc(first.redo, T_NEAR);
    } else {
        flagged_lanes(group_reg(0, 2));
        jnz(first.redo, T_NEAR);
    }
    L(redos_.back().back); // the last vector's
}

template <cpu_isa_t isa>
void quantize_generator<isa>::loops(div_path path, bool packed_multiply, bool f8_product) {
    int u = unroll();
    if ((path == div_path::checked || path == div_path::multiply) && lane_packed()) {
        lane_groups(path);
        u = 1; // fewer than a group's elements are left
    } else if (((path == div_path::checked || path == div_path::proven) && packed())
            || packed_multiply) {
        packed_groups(path);
        u = 1; // fewer than a group's elements are left
    } else if (path == div_path::float8_checked) {
        // The groups' redo and the vectors after them divide.
        checked_float8_groups(div_path::divide);
        path = div_path::divide;
        u = 1;
    } else if (f8_groups() && path == div_path::guarded && f8_checked()) {
        checked_float8_groups(div_path::guarded);
        u = 1;
    } else if (f8_groups()) {
        float8_groups(path, f8_product);
        u = 1;
    } else if (word_pairs()) {
        // The sign of the row's scale (avx512 reciprocal path) or else of its zero point
        // picks what the groups clamp (word_groups()).
        Label l_rest;
        if (path == div_path::recip && word_clamps_x()) {
            Label l_not_positive;
            vmovd(eax, Xmm(v_s.getIdx()));
            test(eax, eax);
            js(l_not_positive, T_NEAR);
            // x_hi = s * 2^26 (exact: 2^-30 <= s <= 2^30 on this path), x_lo = -x_hi.
            broadcast_f32(v_xhi, 67108864.f);
            vmulps(v_xhi, v_xhi, v_s);
            vxorps(v_xlo, v_xlo, v_xlo);
            vsubps(v_xlo, v_xlo, v_xhi);
            // zp >= 0 (or none): the upper bound alone (word_clamp::x_upper).
            Label l_negative_zp;
            if (c_.has_zp) {
                cmp(PRM(zp), 0);
                jl(l_negative_zp, T_NEAR);
            }
            word_groups(path, word_clamp::x_upper);
            jmp(l_rest, T_NEAR);
            if (c_.has_zp) {
                L(l_negative_zp);
                word_groups(path, word_clamp::x);
                jmp(l_rest, T_NEAR);
            }
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

template <cpu_isa_t isa>
void quantize_generator<isa>::vector(int u, int off, div_path path, bool tail) {
    const bool recip = path == div_path::recip;
    const Vmm x = vreg(u, 0), q = vreg(u, 1), t = vreg(u, 2);
    Vmm s = v_s, yhi = v_yhi, ya = v_ya, yb = v_yb, lo = v_lo, hi = v_hi, zp = v_zp;

    load_src(u, off, tail);

    if (lanes()) {
        s = vreg(u, 3);
        if (path == div_path::divide || path == div_path::recip)
            load_f32(s, ptr[reg_ls + off * 4], tail); // (compact_lanes(): y_hi's register)
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
    else if (path == div_path::guarded)
        divide_guarded(&q, &x, &t, 1);
    else
        div_.divide(path, q, x, t, s, yhi, ya, yb); // jit_division_emitter.hpp
    if (rounds_quotient()) round_quotient(q, t);

    if (dequantize()) {
        if (!clamped_by_check(path)) clamp(q, lo, hi);
        return dq_.store(q, ptr[reg_dst + off * dst_size()], tail);
    }
    if (f8_words() && !avx512) {
        // The codes as words in x's xmm (free after the division), stored as 8 bytes; avx2
        // has no masked tail (element_loop()).
        assert(!tail);
        const Xmm h(x.getIdx());
        f8_->encode_f16(Ymm(x.getIdx()), q, t);
        f8_->encode_words(h, Xmm(t.getIdx()));
        f8_->pack_word(h);
        vmovq(ptr[reg_dst + off], h);
        return;
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
    if (f8_) {
        // x / s + 0.f, then the code (into x, free after the division), stored as bytes
        // (f4_e2m1: as u4 nibbles).
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
    // Lane rows' tails: k3 = the bytes of the n (even) elements left, for this row.
    if (avx512 && tail && st_.nibbles() && !blocked()) st_.set_up_nibble_tail(reg_n);
    store_dst(q, t, off, tail);
}

// block_loop() (jit_quantize_blocked.cpp) and the groups (jit_quantize_groups.cpp) call these.
#define QGRAPH_FRAME(isa) \
    template void quantize_generator<isa>::vector(int, int, div_path, bool); \
    template void quantize_generator<isa>::check( \
            int, int, const Vmm &, const Vmm &, const Vmm &, const Vmm &, bool, bool); \
    template void quantize_generator<isa>::check_group(int, int, bool); \
    template void quantize_generator<isa>::divide_guarded( \
            const Vmm *, const Vmm *, const Vmm *, int);
QGRAPH_FRAME(avx2)
QGRAPH_FRAME(avx512_core)
#undef QGRAPH_FRAME

#undef CALL
#undef PRM

namespace {

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
