// Groups of the quantize generator (jit_quantize_generator.hpp): several vectors a step, their
// results stored together with packs: the packed bytes of the checked and proven paths, the
// 16-bit words of s16 / u16, the float8 codes, and the runs of 32 bf16 / f16 x encoded into
// float8 by words (docs/kernels.md, "Packed stores on the checked path", "s16 and u16",
// "float8").

#include "backends/jit/jit_quantize_generator.hpp"

namespace qgraph {
namespace impl {
namespace jit {

using namespace Xbyak;

template <cpu_isa_t isa>
void quantize_generator<isa>::packed_groups(div_path path) {
    const bool bounded = path == div_path::proven && bounded_groups();
    const bool wide = wide_groups(path);
    const bool quads = path == div_path::checked && checked_quads();
    assert(wide || quads || unroll() >= pack_vectors);
    assert(avx512 || !bounded || wide);
    const int vectors = wide || quads ? 4 : pack_vectors;
    const int g = vectors * vlen;
    const bool fixed = path == div_path::checked && fixed_broadcast();
    const auto emit = [&](bool clamp) {
        if (wide)
            wide_group(clamp);
        else if (fixed)
            fixed_group(vectors, 0);
        else
            group(path, clamp, vectors);
    };
    // Steps of `groups` groups while that many are left; reg_n counts the elements left
    // after a step: one sub and one branch a step. Bounded steps test their codes first and
    // take the clamped body where one reaches clamp_from.
    const auto steps = [&](int groups) {
        Label l_step, l_next, l_clamped, l_done;
        sub(reg_n, groups * g);
        jl(l_done, T_NEAR);
        L(l_step);
        if (bounded) bounded_test(groups, l_clamped);
        for (int h = 0; h < groups; ++h) {
            emit(!bounded);
            advance(g);
        }
        L(l_next);
        sub(reg_n, groups * g);
        jge(l_step, T_NEAR);
        if (bounded) {
            jmp(l_done, T_NEAR);
            L(l_clamped);
            for (int h = 0; h < groups; ++h) {
                emit(true);
                advance(g);
            }
            jmp(l_next, T_NEAR);
        }
        L(l_done);
        add(reg_n, groups * g);
    };
    if (bounded) steps(2);
    steps(1);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::bounded_test(int groups, const Label &clamped) {
    const Vmm m0(0), m1(1); // the first group's registers, which its load overwrites
    const int bytes = vlen * 4; // one register of codes
    if (groups == 1 && avx512) {
        // k2, k3: the codes at or above clamp_from, 32 per compare (a group's 128 bytes).
        vpcmpw(k2, v_clamp_from, ptr[reg_src], 2); // clamp_from <= code, signed
        vpcmpw(k3, v_clamp_from, ptr[reg_src + 64], 2);
        kortestd(k2, k3);
        jnz(clamped, T_NEAR);
        return;
    }
    if (groups == 1) {
        // The group's 32 codes (64 bytes), 16 a compare: every word below clamp_from.
        vpcmpgtw(m0, v_clamp_from, ptr[reg_src]); // clamp_from > code, signed
        vpcmpgtw(m1, v_clamp_from, ptr[reg_src + 32]);
        vpand(m0, m0, m1);
        vpmovmskb(eax, m0);
        cmp(eax, -1);
        jne(clamped, T_NEAR);
        return;
    }
    // Two groups: their codes (four registers' worth) by one compare of their word-wise
    // signed maximum, which any code at or above clamp_from leaves there. avx512: the three
    // vpmaxsw run on either vector port where the four compares they replace take the
    // shuffle port, which the unpacks and packs already fill; avx2: 5 instructions for 64
    // codes where two groups' tests take 8.
    assert(groups == 2);
    if (avx512) {
        vmovdqu16(m0, ptr[reg_src]);
        vmovdqu16(m1, ptr[reg_src + 2 * bytes]);
    } else {
        vmovdqu(m0, ptr[reg_src]);
        vmovdqu(m1, ptr[reg_src + 2 * bytes]);
    }
    vpmaxsw(m0, m0, ptr[reg_src + bytes]);
    vpmaxsw(m1, m1, ptr[reg_src + 3 * bytes]);
    vpmaxsw(m0, m0, m1);
    if (avx512) {
        vpcmpw(k2, v_clamp_from, m0, 2); // clamp_from <= the maximum, signed
        kortestd(k2, k2);
        jnz(clamped, T_NEAR);
    } else {
        vpcmpgtw(m0, v_clamp_from, m0); // clamp_from > the maximum, signed
        vpmovmskb(eax, m0);
        cmp(eax, -1);
        jne(clamped, T_NEAR);
    }
}

template <cpu_isa_t isa>
void quantize_generator<isa>::wide_group(bool clamp) {
    // One register a vector: f32 x is read by the multiply; a code widens into q (bf16:
    // under a zero word; f16: vcvtph2ps), exact, and q = q * y_hi in place.
    const Vmm q[4] = {Vmm(0), Vmm(1), Vmm(2), Vmm(3)};
    assert(top_ >= 4);
    for (int u = 0; u < 4; ++u) {
        if (folded_load()) {
            vmulps(q[u], v_yhi, ptr[reg_src + u * vlen * 4]);
            continue;
        }
        if (unpack_bf16()) {
            // Vector 2m + h: the low (h = 0) or high words of each 128-bit lane of the
            // m-th 16 codes; the packs' dword order undoes it (set_up_packs()).
            const Address a = ptr[reg_src + (u >> 1) * 32];
            if (u & 1)
                vpunpckhwd(q[u], v_zero, a);
            else
                vpunpcklwd(q[u], v_zero, a);
        } else {
            load_.load(q[u], ptr[reg_src + u * vlen * 2], false, q[u], q[u]); // no rounding
        }
        vmulps(q[u], q[u], v_yhi);
    }
    for (int u = 0; u < 4; ++u) {
        if (rounds_quotient()) round_quotient(q[u], q[u]); // (its scratch is not read)
        if (clamp) vminps(q[u], v_hi, q[u]); // as group() does: one side, NaN kept
        vcvtps2dq(q[u], q[u]); // MXCSR: round to nearest even
    }
    st_.store_packed(q, 4, ptr[reg_dst]);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::lane_groups(div_path path) {
    assert(path == div_path::checked || path == div_path::multiply);
    const bool quads = path == div_path::checked ? checked_quads() : lane_multiply_quads();
    const int vectors = quads ? 4 : pack_vectors;
    group_loop(vectors * vlen, [&] {
        for (int u = 0; u < vectors; ++u) {
            const int off = u * vlen;
            const Vmm x = group_reg(u, 0), q = group_reg(u, 1);
            if (quads) { // x, which a redo reloads, widened into q
                load_.load(q, ptr[reg_src + off * src_size()], false, x, group_reg(u, 2));
                vmulps(q, q, ptr[reg_lyhi + off * 4]);
                continue;
            }
            // x stays in its register for the redo.
            load_.load(x, ptr[reg_src + off * src_size()], false, q, group_reg(u, 2));
            vmulps(q, x, ptr[reg_lyhi + off * 4]);
        }
        if (path == div_path::checked) {
            check_group(vectors, 0, false); // clamps to [v_lo, v_hi]
        } else {
            // x * RN(1/s) rounded to the division's type is the rounded quotient
            // (jit_division.hpp, "Division in f16 and bf16").
            // With no negative zero point one side is enough, as in group(): NaN and
            // q <= -2^31 convert to 0x80000000, and 0x80000000 + zp still saturates to qmin.
            // A negative zp would wrap it to a large positive sum.
            const bool one_sided = (!c_.has_zp || c_.lane_zp_min >= 0) && !st_.nibbles();
            for (int u = 0; u < vectors; ++u) {
                const Vmm q = group_reg(u, 1);
                round_quotient(q, group_reg(u, 2));
                if (one_sided)
                    vminps(q, v_hi, q); // q <= qmax - zp_min, NaN kept
                else
                    clamp(q, v_lo, v_hi);
            }
        }
        for (int u = 0; u < vectors; ++u) {
            const Vmm q = group_reg(u, 1);
            if (avx512)
                vcvtps2dq(q, q | T_rn_sae);
            else
                vcvtps2dq(q, q); // MXCSR: round to nearest even
            if (c_.has_zp) vpaddd(q, q, ptr[reg_lzp + u * vlen * 4]);
        }
        // Clamped both sides, q + zp lies in [qmin, qmax]; else the packs saturate (4-bit:
        // and clamp the bytes, nibble_lane_clamp()).
        pack_group(vectors);
    });
}

template <cpu_isa_t isa>
void quantize_generator<isa>::load_float8_x(
        int u, const Vmm &xd, const Vmm &t0, const Vmm &t1, int base) {
    if (f8_unpacks_bf16()) {
        const Address a = ptr[reg_src + (base + (u >> 1) * 2 * vlen) * 2];
        if (u & 1)
            vpunpckhwd(xd, v_zero, a);
        else
            vpunpcklwd(xd, v_zero, a);
    } else {
        load_.load(xd, ptr[reg_src + (base + u * vlen) * src_size()], false, t0, t1);
    }
}

template <cpu_isa_t isa>
void quantize_generator<isa>::float8_groups(div_path path, bool product) {
    assert(unroll() >= 4
            && (path == div_path::multiply || path == div_path::divide
                    || path == div_path::guarded));
    group_loop(4 * vlen, [&] { float8_group(path, product); });
}

template <cpu_isa_t isa>
void quantize_generator<isa>::float8_group(div_path path, bool product, int base) {
    // Vector u's scratch. f8_pairs(): x's register (no source rounding, so the load takes
    // none, nor do the multiply and divide paths; the f16 stage's words replace it).
    const auto scratch = [&](int u) { return f8_pairs() ? vreg(u, 0) : vreg(u, 2); };
    for (int u = 0; u < 4; ++u) {
        const Vmm x = vreg(u, 0), q = vreg(u, 1), t = scratch(u);
        const Ymm h(x.getIdx());
        const int off = base + u * vlen;
        if (product && folded_load()) {
            f8_->encode_product(h, q, ptr[reg_src + off * 4], v_ya, t);
            continue;
        }
        if (path == div_path::multiply && folded_load()) {
            vmulps(q, v_yhi, ptr[reg_src + off * 4]); // x * (1/s)
            continue;
        }
        // product: x straight into q.
        if (product) {
            load_float8_x(u, q, x, t, base);
            f8_->encode_product(h, q, v_ya, t);
            continue;
        }
        load_float8_x(u, x, q, t, base);
        if (path != div_path::guarded) div_.divide(path, q, x, t, v_s, v_yhi, v_ya, v_yb);
    }
    if (path == div_path::guarded) {
        // One guard for the group's four vectors (q's registers its scratch); a group with an
        // x it does not take divides all four.
        const Vmm x[4] = {vreg(0, 0), vreg(1, 0), vreg(2, 0), vreg(3, 0)};
        const Vmm q[4] = {vreg(0, 1), vreg(1, 1), vreg(2, 1), vreg(3, 1)};
        divide_guarded(q, x, q, 4);
    }
    // The quotients' encodes after all the divisions, which take the longest.
    for (int u = 0; u < 4 && !product; ++u)
        f8_->encode_f16(Ymm(vreg(u, 0).getIdx()), vreg(u, 1), scratch(u));
    store_float8_words(false, base);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::store_float8_words(bool half_up, int base) {
    if (avx512) {
        for (int u = 0; u < 4; u += 2) {
            const Zmm w(vreg(u, 0).getIdx());
            vinserti64x4(w, w, Ymm(vreg(u + 1, 0).getIdx()), 1);
            f8_->encode_words(w, Zmm(vreg(u, 2).getIdx()), half_up);
        }
        f8_->pack_words(vreg(0, 0), vreg(2, 0));
        st_.store_vector(ptr[reg_dst + base], vreg(0, 0));
    } else {
        // The 8 words of vectors 0 and 2 in one ymm, of 1 and 3 in another: the pack, lane
        // by lane, then leaves the 32 codes in order (float8_emitter::pack_words()); q's
        // registers are free for the word stage's scratch.
        for (int u = 0; u < 2; ++u) {
            const Ymm w(vreg(u, 0).getIdx());
            vinserti128(w, w, Xmm(vreg(u + 2, 0).getIdx()), 1);
            f8_->encode_words(w, Ymm(vreg(u, 1).getIdx()), half_up);
        }
        f8_->pack_words(vreg(0, 0), vreg(1, 0));
        st_.store_vector(ptr[reg_dst + base], vreg(0, 0));
    }
}

template <cpu_isa_t isa>
void quantize_generator<isa>::checked_float8_groups(div_path redo) {
    assert(f8_checked() && unroll() >= 4);
    Label l_loop, l_next, l_exact, l_done;
    const int g = 4 * vlen;
    // Vector u: v = x * y8 in q's register; scratch t in x's (avx2 keeps two registers a
    // vector, f8_pairs()), or the third (avx512). avx2 gathers the flags in vector 0's t.
    const auto t = [&](int u) { return avx512 ? vreg(u, 2) : vreg(u, 0); };
    // Quotients that keep landing near edges (x on the float8 grid of this scale: data
    // quantized with it before) make the check a loss: each redone group adds
    // redo_weight to a debt that each short-encoded group pays down by one, and past
    // max_redo_debt the rest of the row takes the exact encode (a redo rate of about one
    // group in redo_weight and up).
    const Reg64 reg_debt = reg_ls; // free on broadcast rows
    constexpr int redo_weight = 32, max_redo_debt = 8 * redo_weight;
    Label l_rest;
    xor_(reg_debt.cvt32(), reg_debt.cvt32());
    sub(reg_n, g);
    jl(l_done, T_NEAR);
    if (c_.f8_proven) {
        // The driver proved the shorter encode for every value of x (a 16-bit type).
        assert(!folded_load());
        Label l_proven, l_checked;
        cmp(PRM(f8_proven), 0);
        je(l_checked, T_NEAR);
        L(l_proven);
        for (int u = 0; u < 4; ++u) {
            const Vmm v = vreg(u, 1);
            load_float8_x(u, v, vreg(u, 0), t(u));
            f8_->product_plus_zero(v, v_y8);
            f8_->encode_f16_truncated(Ymm(vreg(u, 0).getIdx()), v);
        }
        store_float8_words(true);
        advance(g);
        sub(reg_n, g);
        jge(l_proven, T_NEAR);
        jmp(l_done, T_NEAR);
        L(l_checked);
    }
    L(l_loop);
    // The loads first, as a rounding load uses k2.
    for (int u = 0; u < 4 && !folded_load(); ++u)
        load_float8_x(u, vreg(u, 1), vreg(u, 0), t(u));
    for (int u = 0; u < 4; ++u) {
        const Vmm v = vreg(u, 1);
        if (folded_load())
            vmulps(v, v_y8, ptr[reg_src + u * vlen * 4]);
        else
            vmulps(v, v, v_y8);
        f8_->flag_near_edges(v, t(u), t(0), u == 0);
    }
    f8_->jump_if_flagged(t(0), l_exact);
    for (int u = 0; u < 4; ++u) f8_->encode_f16_truncated(Ymm(vreg(u, 0).getIdx()), vreg(u, 1));
    store_float8_words(true);
    // debt = max(debt - 1, 0): the borrow of 0 - 1 adds the 1 back.
    sub(reg_debt.cvt32(), 1);
    adc(reg_debt.cvt32(), 0);
    L(l_next);
    advance(g);
    sub(reg_n, g);
    jge(l_loop, T_NEAR);
    jmp(l_done, T_NEAR);
    L(l_exact); // a lane near an edge: the group on the exact quotient
    float8_group(redo, false);
    add(reg_debt.cvt32(), redo_weight);
    cmp(reg_debt.cvt32(), max_redo_debt);
    jb(l_next, T_NEAR);
    L(l_rest); // the rest of the row on the exact quotient
    advance(g);
    sub(reg_n, g);
    jl(l_done, T_NEAR);
    float8_group(redo, false);
    jmp(l_rest, T_NEAR);
    L(l_done);
    add(reg_n, g);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::word_groups(div_path path, word_clamp clamp) {
    assert(unroll() >= word_group);
    group_loop(word_group * vlen, [&] {
        for (int u = 0; u < word_group; ++u) {
            const Vmm x = vreg(u, 0), q = vreg(u, 1);
            if (clamp != word_clamp::x && clamp != word_clamp::x_upper) {
                load_src(u, u * vlen, false);
                div_.divide(path, q, x, vreg(u, 2), v_s, v_yhi, v_ya, v_yb);
                continue;
            }
            // x' = min(x, x_hi), NaN kept (vminps returns its second source), then (`x`)
            // max(x', x_lo), NaN -> x_lo.
            if (folded_load()) {
                vminps(x, v_xhi, ptr[reg_src + u * vlen * 4]);
            } else {
                load_src(u, u * vlen, false);
                vminps(x, v_xhi, x);
            }
            if (clamp == word_clamp::x) vmaxps(x, x, v_xlo);
            div_.divide_recip_bounded(q, x, v_s, v_yhi, v_ya, v_yb);
        }
        for (int u = 0; u < word_group; ++u) {
            const Vmm q = vreg(u, 1);
            if (rounds_quotient()) round_quotient(q, vreg(u, 2));
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
    });
}

template <cpu_isa_t isa>
void quantize_generator<isa>::group(div_path path, bool clamp, int vectors, int base) {
    for (int u = 0; u < vectors; ++u) {
        const Vmm x = group_reg(u, 0), q = group_reg(u, 1);
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
            load_.load(x, ptr[reg_src + off * src_size()], false, q, group_reg(u, 2));
        }
        vmulps(q, x, v_yhi);
    }
    if (rounds_quotient())
        for (int u = 0; u < vectors; ++u) round_quotient(group_reg(u, 1), group_reg(u, 2));
    // One test and one branch for the group; avx512 blocked rows, which check q' unclamped
    // and so flag saturated lanes too, keep a branch per vector.
    if (path == div_path::checked && vectors > 1 && !(avx512 && blocked()))
        check_group(vectors, base, folded_load());
    else if (path == div_path::checked)
        for (int u = 0; u < vectors; ++u)
            check(u, base + u * vlen, group_reg(u, 1), group_reg(u, 2), v_lo, v_hi, false,
                    folded_load());
    for (int u = 0; u < vectors; ++u) {
        const Vmm q = group_reg(u, 1);
        // Bytes: q <= qmax - zp, NaN kept: one side is enough (store_emitter::
        // store_packed()). Nibbles: both sides, the packs saturating to bytes only, or the
        // packs' bytes clamped (nibble_block_clamp()).
        if (clamp && !clamped_by_check(path)) {
            if (st_.nibbles() && !nibble_block_clamp())
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

template <cpu_isa_t isa>
void quantize_generator<isa>::fixed_check(int vectors, int base, bool pair, bool tail) {
    assert(avx512 && (!pair || (vectors == 4 && base == 0)) && (!tail || vectors == 1));
    // Each redo block retests its vector and redoes only one with a flagged lane.
    redo_block &first = group_redo_blocks(vectors, base, true, true, true);
    auto block = std::prev(redos_.end(), vectors);
    for (int u = 0; u < vectors; ++u, ++block) {
        const Vmm x = group_reg(u, 0), w = group_reg(u, 1), t = group_reg(u, 2);
        const bool second = pair && u >= 2;
        if (second) { // the second row's vectors, at its own offsets 0 and vlen
            block->off -= 2 * vlen;
            block->second_row = true;
        }
        block->tail = tail;
        load_.load(w, redo_src(*block), tail, x, t); // where the redo reloads it
        // x * y_hi * 2^14 + f, rounded once
        if (second)
            vfmadd213ps(w, v_s, v_yb);
        else
            vfmadd213ps(w, fixed_y(), fixed_f());
        vcvtps2dq(w, w | T_rn_sae);
        vptestmd(u == 0 ? k2 : k2 | k2, w, v_tie_mask); // k2: the proven lanes
    }
    kortestw(k2, k2); // CF: every lane proven
    jnc(first.redo, T_NEAR);
    L(redos_.back().back); // the last vector's
    for (int u = 0; u < vectors; ++u) vpsrad(group_reg(u, 1), group_reg(u, 1), fixed_bits);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::fixed_group(int vectors, int base, bool pair) {
    fixed_check(vectors, base, pair, false);
    Vmm q[4];
    for (int u = 0; u < vectors; ++u) q[u] = group_reg(u, 1); // r + zp
    if (pair)
        st_.store_packed_rows(q, ptr[reg_dst], ptr[reg_dst + reg_dst_step]);
    else
        st_.store_packed(q, vectors, ptr[reg_dst + dst_bytes(base)], true);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::fixed_vector(int off, bool tail) {
    fixed_check(1, off, false, tail);
    const Vmm w = group_reg(0, 1), t = group_reg(0, 2);
    if (c_.dst_dt == data_type::u8) { // vpmovusdb reads r + zp as unsigned
        vpxord(t, t, t);
        vpmaxsd(w, w, t);
    }
    st_.store(w, t, ptr[reg_dst + dst_bytes(off)], tail);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::fixed_redo(const redo_block &b) {
    assert(avx512);
    const Vmm &q = b.q, &t = b.t;
    if (blocked() && c_.has_zp) { // the row's bounds in its table
        vbroadcastss(t, redo_table(b, block_table::lo));
        vmaxps(q, q, t); // NaN -> lo
        vbroadcastss(t, redo_table(b, block_table::hi));
        vminps(q, q, t);
    } else {
        clamp(q, v_lo, v_hi); // the row's, or blocked rows' qmin and qmax
    }
    vcvtps2dq(q, q | T_rn_sae);
    if (!blocked()) {
        vpaddd(q, q, v_zp);
    } else if (c_.has_zp) {
        vpbroadcastd(t, redo_table(b, block_table::zp));
        vpaddd(q, q, t);
    }
    vpslld(q, q, fixed_bits);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::pack_group(int vectors, int base) {
    Vmm q[4];
    assert(vectors <= 4);
    for (int u = 0; u < vectors; ++u) q[u] = group_reg(u, 1);
    st_.store_packed(q, vectors, ptr[reg_dst + dst_bytes(base)]);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::scaled_half_k(const Label &other) {
    // 1/s a positive power of two (no sign, no mantissa bits) with biased exponent e >= 1
    // (1/s is not 0 on the multiply path): k = (base - e) << x's mantissa bits, base - e in
    // [0, most].
    test(eax, 0x807fffff);
    jnz(other, T_NEAR);
    shr(eax, 23);
    neg(eax);
    add(eax, f8_->scaled_half_base());
    js(other, T_NEAR);
    cmp(eax, f8_->scaled_half_most());
    jg(other, T_NEAR);
    shl(eax, f8_->scaled_half_man_bits());
}

template <cpu_isa_t isa>
void quantize_generator<isa>::scaled_half_chunk(
        int off, int elems, const Vmm &k, const Vmm &y, const Vmm &acc, bool below) {
    // A vector of words a 2 * vlen elements: avx2 two for 32, avx512 one or two.
    const int words = 2 * vlen, n = elems / words;
    assert(n * words == elems && (n == 2 || (avx512 && n == 1)));
    const Vmm t = vreg(2, 0), f = vreg(2, 1);
    for (int i = 0; i < n; ++i) {
        const Vmm c = vreg(i, 0), w = vreg(i, 1);
        const Address x = ptr[reg_src + (off + i * words) * 2];
        if (avx512)
            vmovdqu16(w, x);
        else
            vmovdqu(w, x);
        f8_->encode_scaled_half(c, w, k, y, acc, t, f, below);
    }
    store_half_codes(off, n);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::scaled_half_chunk_all(
        int off, const Vmm &k, const Vmm &y, const Vmm &m) {
    const Vmm t = vreg(2, 0), f = vreg(2, 1);
    for (int i = 0; i < 2; ++i) {
        const Vmm c = vreg(i, 0), w = vreg(i, 1);
        vmovdqu(w, ptr[reg_src + (off + 16 * i) * 2]);
        f8_->encode_scaled_half_all(c, w, k, y, t, f, m);
    }
    store_half_codes(off, 2);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::store_half_codes(int off, int n) {
    const int words = 2 * vlen;
    const Vmm t = vreg(2, 0);
    if (avx512) {
        // Every code is below 256: their low bytes, 64 by one byte gather where the CPU has
        // one, else each vector's by vpmovwb.
        if (n == 2 && f8_->join_half_codes(t, vreg(0, 0), vreg(1, 0)))
            return vmovdqu8(ptr[reg_dst + off], t);
        for (int i = 0; i < n; ++i) vpmovwb(ptr[reg_dst + off + i * words], vreg(i, 0));
        return;
    }
    // Lane by lane: codes 0-7, 16-23 | 8-15, 24-31; the qwords put back in order.
    const Vmm c0 = vreg(0, 0), c1 = vreg(1, 0);
    vpackuswb(c0, c0, c1);
    vpermq(c0, c0, 0xd8);
    vmovdqu(ptr[reg_dst + off], c0);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::scaled_half_run() {
    Label l_done;
    mov(eax, PRM(y_hi));
    scaled_half_k(l_done);
    // k waits in reg_ls (no lane parameters here): a redo's group takes every scratch
    // register. vreg(3, ..) hold k and the flags beside the chunk's.
    const Reg64 reg_k = reg_ls;
    const Vmm k = vreg(3, 0), acc = vreg(3, 1);
    const int g = 4 * vlen; // float8_group()'s elements, the redo
    mov(reg_k.cvt32(), eax);
    if (planes_ && top_ >= 16) { // registers 0-15 free of the kernel's constants
        scaled_half_planes_run(reg_k, l_done);
        L(l_done);
        return;
    }
    const auto broadcast_k = [&] {
        vmovd(Xmm(k.getIdx()), reg_k.cvt32());
        vpbroadcastw(k, Xmm(k.getIdx()));
    };
    // avx2: a chunk whose flags are all quotients below the normals is encoded again with
    // them (scaled_half_chunk_all()), one with an Inf or NaN x by the multiply path's group.
    const auto runs = [&](bool below) {
        Label l_chunk, l_next, l_group;
        broadcast_k();
        L(l_chunk);
        cmp(reg_n, g);
        jl(l_done, T_NEAR);
        f8_->clear_half_flags(acc);
        scaled_half_chunk(0, g, k, v_yhi, acc, below);
        f8_->test_half_flags(acc);
        jz(l_next, T_NEAR);
        if (!avx512) {
            f8_->test_half_specials(acc);
            jnz(l_group, T_NEAR);
            scaled_half_chunk_all(0, k, v_yhi, acc); // acc: scratch
            jmp(l_next, T_NEAR);
        }
        L(l_group);
        float8_group(div_path::multiply, false); // the chunk again, stored over the words'
        broadcast_k(); // the group took k's register
        L(l_next);
        add(reg_src, g * src_size());
        add(reg_dst, g);
        sub(reg_n, g);
        jmp(l_chunk, T_NEAR);
    };
    if (avx512) {
        // k = 0 (f16 into e5m2 with scale 1, the plain FP8 cast): x's pattern is the
        // quotient's in the code's bias, subnormals included, so the integer rounding is
        // exact for every finite x and the runs skip the quotients below the normals.
        Label l_k_zero;
        test(eax, eax);
        jz(l_k_zero, T_NEAR);
        runs(true);
        L(l_k_zero);
        runs(false);
    } else {
        runs(false);
    }
    L(l_done);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::scaled_half_planes_run(const Reg64 &reg_k, const Label &done) {
    // planes_registers (16-31 hold the kernel's constants); the lanes below the normals take
    // the constants' 4 and 5 and encode()'s lo and a.
    const planes_registers r;
    const Zmm &code = r.code, &hi = r.hi, &lo = r.lo, &a = r.a, &w1 = r.w1;
    const float8_byte_planes::tables &tb = r.tb;
    const float8_byte_planes::constants &c = r.c;
    const Vmm s[4] = {lo, a, c.lo_index, c.hi_index};
    const Address x0 = ptr[reg_src], x1 = ptr[reg_src + 64];
    Label l_step, l_flagged, l_marked, l_store, l_next;
    const auto set_up = [&] {
        planes_->build_tables(tb, reg_k.cvt32(), eax, code);
        planes_->load_constants(c);
    };
    set_up();
    L(l_step);
    cmp(reg_n, 64);
    jl(done, T_NEAR);
    planes_->encode(tb, c, code, hi, lo, a, w1, x0, x1);
    planes_->jump_if_flagged(l_flagged);
    L(l_store);
    planes_->apply_sign(code);
    st_.store_vector(ptr[reg_dst], code); // each step at a multiple of 64 from the row start
    L(l_next);
    add(reg_src, 128);
    add(reg_dst, 64);
    sub(reg_n, 64);
    jmp(l_step, T_NEAR);

    L(l_flagged);
    planes_->jump_if_marked(a, x0, x1, hi, w1, l_marked);
    // The lanes below the normals as the word encode computes them, their 64 codes' low
    // bytes in order.
    f8_->below_normal_words(s[0], s[1], s[2], v_yhi, x0);
    f8_->below_normal_words(s[3], s[1], s[2], v_yhi, x1);
    f8_->join_half_codes(s[1], s[0], s[3]);
    planes_->merge_below(code, Zmm(s[1].getIdx()));
    planes_->load_constants(c);
    jmp(l_store, T_NEAR);
    L(l_marked);
    float8_group(div_path::multiply, false); // the step again, stored
    set_up(); // the group took the registers
    jmp(l_next, T_NEAR);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::any_scale_planes_run() {
    // planes_registers; the table's address in reg_lyhi and k in reg_ls, free on broadcast
    // rows.
    const planes_registers r;
    const Zmm &code = r.code, &hi = r.hi, &lo = r.lo, &a = r.a, &w1 = r.w1;
    const float8_byte_planes::tables &tb = r.tb;
    const float8_byte_planes::constants &c = r.c;
    const Reg64 reg_table = reg_lyhi;
    const Address table = qword[reg_prm + offsetof(quantize_params, planes)];
    Label l_step, l_flagged, l_next, l_done;
    mov(reg_table, table);
    test(reg_table, reg_table);
    jz(l_done, T_NEAR);
    cmp(reg_n, 64);
    jl(l_done, T_NEAR);
    // f16 x: its three tables in six registers, two more scratch, only the byte indices among
    // the constants (encode_f16_any()); 11 is free.
    const bool f16 = c_.src_dt == data_type::f16;
    float8_byte_planes::tables t = tb;
    t.th0 = Zmm(8);
    t.th1 = Zmm(10);
    const float8_byte_planes::f16_any_registers h {
            code, hi, lo, a, w1, Zmm(9), Zmm(7), c.lo_index, c.hi_index};
    const auto set_up = [&] {
        mov(reg_table, table);
        mov(reg_ls.cvt32(), dword[reg_table + offsetof(float8_planes_table, k)]);
        any_planes_->build_tables(t, reg_ls.cvt32(), eax, code, reg_table);
        if (f16)
            any_planes_->load_indices(c.lo_index, c.hi_index);
        else
            any_planes_->load_constants(c);
    };
    set_up();
    L(l_step);
    if (f16)
        any_planes_->encode_f16_any(t, h, ptr[reg_src], ptr[reg_src + 64]);
    else
        any_planes_->encode(tb, c, code, hi, lo, a, w1, ptr[reg_src], ptr[reg_src + 64]);
    any_planes_->jump_if_flagged(l_flagged);
    any_planes_->apply_sign(code);
    st_.store_vector(ptr[reg_dst], code);
    L(l_next);
    add(reg_src, 128);
    add(reg_dst, 64);
    sub(reg_n, 64);
    cmp(reg_n, 64);
    jge(l_step, T_NEAR);
    jmp(l_done, T_NEAR);
    L(l_flagged);
    float8_group(div_path::divide, false); // the step again, stored
    set_up(); // the group took the registers
    jmp(l_next, T_NEAR);
    L(l_done);
}

// loops() and row() (jit_quantize.cpp) and block_loop() (jit_quantize_blocked.cpp) call
// these.
#define QGRAPH_GROUPS(isa) \
    template void quantize_generator<isa>::packed_groups(div_path); \
    template void quantize_generator<isa>::wide_group(bool); \
    template void quantize_generator<isa>::lane_groups(div_path); \
    template void quantize_generator<isa>::float8_groups(div_path, bool); \
    template void quantize_generator<isa>::float8_group(div_path, bool, int); \
    template void quantize_generator<isa>::store_float8_words(bool, int); \
    template void quantize_generator<isa>::checked_float8_groups(div_path); \
    template void quantize_generator<isa>::load_float8_x(int, const Vmm &, const Vmm &, const Vmm &, int); \
    template void quantize_generator<isa>::word_groups(div_path, word_clamp); \
    template void quantize_generator<isa>::group(div_path, bool, int, int); \
    template void quantize_generator<isa>::fixed_group(int, int, bool); \
    template void quantize_generator<isa>::fixed_vector(int, bool); \
    template void quantize_generator<isa>::fixed_redo(const redo_block &); \
    template void quantize_generator<isa>::scaled_half_k(const Label &); \
    template void quantize_generator<isa>::scaled_half_chunk(int, int, const Vmm &, const Vmm &, const Vmm &, bool); \
    template void quantize_generator<isa>::scaled_half_chunk_all(int, const Vmm &, const Vmm &, const Vmm &); \
    template void quantize_generator<isa>::store_half_codes(int, int); \
    template void quantize_generator<isa>::scaled_half_run(); \
    template void quantize_generator<isa>::scaled_half_planes_run(const Reg64 &, const Label &); \
    template void quantize_generator<isa>::any_scale_planes_run();
QGRAPH_GROUPS(avx2)
QGRAPH_GROUPS(avx512_core)
#undef QGRAPH_GROUPS

#undef CALL
#undef PRM

} // namespace jit
} // namespace impl
} // namespace qgraph
