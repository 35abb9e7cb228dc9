// Blocked rows of the quantize generator (jit_quantize_generator.hpp): c.rows rows of c.block
// elements, each with its own scale and zero point, whose parameters the code reads and sets
// up itself, a chunk of rows ahead (docs/kernels.md, "Blocked rows").

#include "backends/jit/jit_quantize_generator.hpp"

namespace qgraph {
namespace impl {
namespace jit {

using namespace Xbyak;

// The registers of planes_pairs(), k's words in kw.
namespace {
const planes_registers pp;
} // namespace

template <cpu_isa_t isa>
void quantize_generator<isa>::block_loop() {
    const int64_t rem = c_.block % vlen;
    assert(avx512 || rem == 0 || st_.nibbles()); // avx2: 4-bit rows' tails (row_vectors())
    // Free without lane parameters (and reg_src_step, reg_dst_step).
    const Reg64 reg_bs = reg_ls, reg_bzp = reg_lzp, reg_bs_step = reg_lyb,
                reg_bzp_step = reg_llo;
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
    if (avx512 && rem > 0) {
        mov(reg_n, rem);
        set_tail_mask(reg_n);
        if (st_.nibbles()) st_.set_up_nibble_tail(static_cast<int>(rem));
    }
    mov(reg_n, CALL(rows)); // abi_arg is free from here (block_zp())
    mov(rbp, rsp);
    sub(rsp, 2 * block_table::bytes);
    and_(rsp, -block_table::col);
    if (!c_.has_zp && !minifloat()) {
        vbroadcastss(v_lo, ptr[rip + l_block_consts_ + b_qmin]);
        vbroadcastss(v_hi, ptr[rip + l_block_consts_ + b_qmax]);
    }
    test(reg_n, reg_n);
    jle(l_done, T_NEAR);
    if (planes_pairs()) {
        xor_(reg_pair_debt.cvt32(), reg_pair_debt.cvt32());
        set_up_planes_pairs();
    }
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
        if (row_pairs() || planes_pairs()) {
            // Two rows a step while two are left, then a last single one.
            Label l_pair, l_back, l_flagged, l_rows, l_words, l_one, l_rows_done;
            // bf16 and f16 rows' word encode is their own (block_row()).
            Label &words = c_.src_dt == data_type::f32 ? l_words : l_rows;
            L(l_pair);
            cmp(reg_left, 2);
            jl(l_one, T_NEAR);
            if (row_pairs())
                block_pair();
            else
                planes_pair(l_flagged, l_rows, words);
            L(l_back);
            lea(reg_src, ptr[reg_src + reg_src_step * 2]);
            lea(reg_dst, ptr[reg_dst + reg_dst_step * 2]);
            add(reg_tab, 8);
            sub(reg_left, 2);
            jnz(l_pair, T_NEAR);
            jmp(l_rows_done, T_NEAR);
            if (planes_pairs()) planes_pair_flagged(l_flagged, l_rows, words, l_back);
            L(l_one);
            block_row();
            if (planes_pairs()) planes_->load_constants(pp.c);
            add(reg_src, reg_src_step);
            add(reg_dst, reg_dst_step);
            L(l_rows_done);
        } else {
            L(l_row);
            block_row();
            add(reg_src, reg_src_step);
            add(reg_dst, reg_dst_step);
            add(reg_tab, 4);
            dec(reg_left);
            jnz(l_row, T_NEAR);
        }
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

template <cpu_isa_t isa>
void quantize_generator<isa>::block_row() {
    if (minifloat()) {
        // The float encode rounds the exact quotient itself (float8_emitter): x * y_hi where
        // the table's y_hi is the exact 1/s (a power-of-two scale: every e8m0 one), else
        // x / s (y_hi 0 there: fill_block_table()).
        Label l_divide, l_done;
        cmp(dword[reg_btab + block_table::y_hi], 0);
        je(l_divide, T_NEAR);
        if (scaled_half_rows()) {
            Label l_multiply;
            scaled_half_row(l_multiply);
            jmp(l_done, T_NEAR);
            L(l_multiply);
        }
        vbroadcastss(v_yhi, ptr[reg_btab + block_table::y_hi]);
        minifloat_row(div_path::multiply);
        jmp(l_done, T_NEAR);
        L(l_divide);
        vbroadcastss(v_s, ptr[reg_btab + block_table::s]);
        minifloat_row(div_path::divide);
        L(l_done);
        return;
    }
    vbroadcastss(v_yhi, ptr[reg_btab + block_table::y_hi]); // fixed_rows(): fixed_y()
    if (fixed_rows()) {
        vbroadcastss(fixed_f(), ptr[reg_btab + block_table::f]);
    } else if (c_.has_zp && !table_bounds()) {
        vbroadcastss(v_lo, ptr[reg_btab + block_table::lo]);
        vbroadcastss(v_hi, ptr[reg_btab + block_table::hi]);
        if (block_packed())
            st_.broadcast_zp(word[reg_btab + block_table::zp]); // the packs add it
        else
            vpbroadcastd(v_zp, ptr[reg_btab + block_table::zp]);
    }
    // quantize_conf::proven: the driver proved the multiply for every value of x.
    const div_path path = c_.proven ? div_path::proven : div_path::checked;
    if (block_packed()) {
        // Groups at offsets from the row's start, the last one of two vectors where the
        // block leaves no more; long rows first loop over their whole groups, the pointers
        // advancing (rdi counts them: free inside a row) and set back at the row's end.
        const int most = checked_quads() || proven_block_quads() ? 4 : pack_vectors;
        const int64_t g = most * vlen, body = c_.block - block_tail();
        const int64_t loops = c_.block >= block_loop_min ? body / g : 0;
        const auto emit = [&](int vectors, int64_t off) {
            if (fixed_rows())
                fixed_group(vectors, static_cast<int>(off));
            else
                group(path, true, vectors, static_cast<int>(off));
        };
        if (loops > 0) {
            Label l_group;
            mov(edi, static_cast<uint32_t>(loops));
            L(l_group);
            emit(most, 0);
            add(reg_src, g * src_size());
            add(reg_dst, dst_bytes(g));
            dec(edi);
            jnz(l_group, T_NEAR);
        }
        for (int64_t off = loops * g; off < body;) {
            const int vectors = body - off >= g ? most : 2;
            emit(vectors, off - loops * g);
            off += vectors * vlen;
        }
        for (int64_t off = body; off < c_.block; off += vlen)
            fixed_vector(static_cast<int>(off - loops * g), c_.block - off < vlen);
        if (loops > 0) {
            sub(reg_src, loops * g * src_size());
            sub(reg_dst, dst_bytes(loops * g));
        }
    } else {
        row_vectors(path);
    }
}

template <cpu_isa_t isa>
void quantize_generator<isa>::block_pair() {
    // The first row's factor and addend where block_row() puts them, the second's in v_s
    // and v_yb (free on blocked rows of the fixed-point check, whose redo broadcasts s).
    vbroadcastss(fixed_y(), ptr[reg_btab + block_table::y_hi]);
    vbroadcastss(fixed_f(), ptr[reg_btab + block_table::f]);
    vbroadcastss(v_s, ptr[reg_btab + 4 + block_table::y_hi]);
    vbroadcastss(v_yb, ptr[reg_btab + 4 + block_table::f]);
    fixed_group(4, 0, true);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::set_up_planes_pairs() {
    mov(edi, c_.src_dt == data_type::f32 ? planes_->k_one() : planes_->pair_k_min());
    planes_->build_tables(pp.tb, edi, eax, pp.code);
    planes_->load_constants(pp.c);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::planes_pair(
        const Label &flagged, const Label &rows, const Label &words) {
    // Pairs that keep having a flagged lane (quotients below the normals: x small against
    // its block's scale) make the planes a loss: each adds pair_redo_weight to a debt that
    // each clean pair pays down by one, and past max_pair_debt the rest of the call takes
    // the word encode (from a flagged rate of about one pair in pair_redo_weight + 1).
    if (c_.src_dt == data_type::f32) {
        // Both rows' 1/s exact (y_hi 0: the divide path's), the quotients x * y.
        for (int r = 0; r < 2; ++r) {
            mov(eax, ptr[reg_btab + 4 * r + block_table::y_hi]);
            test(eax, eax);
            jz(rows, T_NEAR);
        }
        cmp(reg_pair_debt.cvt32(), max_pair_debt);
        jae(words, T_NEAR);
        const Zmm q[4] = {pp.hi, pp.lo, pp.w1, pp.a};
        vbroadcastss(pp.kw, ptr[reg_btab + block_table::y_hi]);
        vmulps(q[0], pp.kw, ptr[reg_src]);
        vmulps(q[1], pp.kw, ptr[reg_src + 64]);
        vbroadcastss(pp.kw, ptr[reg_btab + 4 + block_table::y_hi]);
        vmulps(q[2], pp.kw, ptr[reg_src + reg_src_step]);
        vmulps(q[3], pp.kw, ptr[reg_src + reg_src_step + 64]);
        planes_->odd_words(q, pp.kw);
        planes_->signs(pp.c, pp.hi, pp.w1);
        vmovdqa64(pp.lo, pp.hi);
        planes_->encode_words(pp.tb, pp.c, pp.code, pp.hi, pp.lo, pp.a, pp.w1);
        kortestq(k5, k5); // below the normals or marked
        jnz(flagged, T_NEAR);
        store_planes_pair();
        return pay_pair_debt();
    }
    cmp(reg_pair_debt.cvt32(), max_pair_debt);
    jae(words, T_NEAR);
    // Both rows' k at least B (pair_k negative: a scale the words do not take, or k < B).
    mov(eax, ptr[reg_btab + block_table::pair_k]);
    or_(eax, ptr[reg_btab + 4 + block_table::pair_k]);
    js(rows, T_NEAR);
    vmovdqu16(pp.hi, ptr[reg_src]);
    vmovdqu16(pp.w1, ptr[reg_src + reg_src_step]);
    planes_->pair_words(pp.c, pp.hi, pp.w1, pp.kw, word[reg_btab + block_table::pair_k],
            word[reg_btab + 4 + block_table::pair_k]);
    vmovdqa64(pp.lo, pp.hi);
    planes_->encode_words(pp.tb, pp.c, pp.code, pp.hi, pp.lo, pp.a, pp.w1);
    kortestq(k5, k6); // below the normals or marked (k5), NaN (k6's low 32 bits)
    jnz(flagged, T_NEAR);
    store_planes_pair();
    pay_pair_debt();
}

template <cpu_isa_t isa>
void quantize_generator<isa>::store_planes_pair() {
    planes_->apply_sign(pp.code);
    vmovdqu8(ptr[reg_dst], Ymm(pp.code.getIdx()));
    vextracti64x4(Ymm(pp.hi.getIdx()), pp.code, 1);
    vmovdqu8(ptr[reg_dst + reg_dst_step], Ymm(pp.hi.getIdx()));
}

template <cpu_isa_t isa>
void quantize_generator<isa>::pay_pair_debt() {
    // debt = max(debt - 1, 0): the borrow of 0 - 1 adds the 1 back.
    sub(reg_pair_debt.cvt32(), 1);
    adc(reg_pair_debt.cvt32(), 0);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::planes_pair_flagged(
        Label &flagged, Label &rows, Label &words, const Label &back) {
    L(flagged);
    add(reg_pair_debt.cvt32(), pair_redo_weight);
    if (c_.src_dt == data_type::f32) {
        // The word encode of the rows' quotients, which takes every f32: x * y again, its
        // f16 words, a row's 32 codes a register.
        L(words);
        const Zmm q[4] = {pp.hi, pp.lo, pp.a, pp.w1}, t = pp.code;
        for (int r = 0; r < 2; ++r) {
            vbroadcastss(pp.kw, ptr[reg_btab + 4 * r + block_table::y_hi]);
            const Address x = r == 0 ? ptr[reg_src] : ptr[reg_src + reg_src_step];
            vmulps(q[2 * r], pp.kw, x);
            vmulps(q[2 * r + 1], pp.kw, r == 0 ? ptr[reg_src + 64] : ptr[reg_src + reg_src_step + 64]);
        }
        for (int u = 0; u < 4; ++u) f8_->encode_f16(Ymm(q[u].getIdx()), q[u], t);
        for (int r = 0; r < 2; ++r) {
            vinserti64x4(q[2 * r], q[2 * r], Ymm(q[2 * r + 1].getIdx()), 1);
            f8_->encode_words(q[2 * r], t);
        }
        f8_->pack_words(q[0], q[2]);
        vmovdqu8(ptr[reg_dst], Ymm(q[0].getIdx()));
        vextracti64x4(Ymm(q[1].getIdx()), q[0], 1);
        vmovdqu8(ptr[reg_dst + reg_dst_step], Ymm(q[1].getIdx()));
        planes_pair_back(back);
        return planes_pair_rows(rows, back);
    }
    kortestd(k6, k6);
    jnz(rows, T_NEAR);
    planes_->jump_if_marked(pp.a, ptr[reg_src], ptr[reg_src + reg_src_step], pp.hi, pp.w1, rows);
    // Lanes below the normals only: their codes as each row's word encode computes them
    // (its FMA with the row's y), merged, as scaled_half_planes_run() does per tensor.
    const Zmm s[4] = {pp.lo, pp.a, pp.c.lo_index, pp.c.hi_index};
    vbroadcastss(pp.kw, ptr[reg_btab + block_table::y_hi]);
    f8_->below_normal_words(s[0], s[1], s[2], pp.kw, ptr[reg_src]);
    vbroadcastss(pp.kw, ptr[reg_btab + 4 + block_table::y_hi]);
    f8_->below_normal_words(s[3], s[1], s[2], pp.kw, ptr[reg_src + reg_src_step]);
    f8_->join_half_codes(s[1], s[0], s[3]);
    planes_->merge_below(pp.code, s[1]);
    store_planes_pair();
    planes_pair_back(back);
    planes_pair_rows(rows, back);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::planes_pair_rows(Label &rows, const Label &back) {
    L(rows); // a row the planes do not take, or a NaN or marked lane: each row its own way
    block_row();
    add(reg_src, reg_src_step);
    add(reg_dst, reg_dst_step);
    add(reg_btab, 4);
    block_row();
    sub(reg_src, reg_src_step);
    sub(reg_dst, reg_dst_step);
    sub(reg_btab, 4);
    planes_pair_back(back);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::planes_pair_back(const Label &back) {
    // The planes' constants again (block_row() and the word encode take registers 0-11,
    // unroll() <= 4; the tables in 12-15 stay), unless past the debt, where no pair of the
    // call reads them again.
    cmp(reg_pair_debt.cvt32(), max_pair_debt);
    jae(back, T_NEAR);
    planes_->load_constants(pp.c);
    jmp(back, T_NEAR);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::scaled_half_row(const Label &other) {
    cmp(dword[reg_btab + block_table::half_k], 0);
    jl(other, T_NEAR);
    // v_s and v_ya are free on the multiply path of blocked rows.
    const Vmm k = v_ya, acc = v_s;
    vpbroadcastw(k, word[reg_btab + block_table::half_k]);
    vbroadcastss(v_yhi, ptr[reg_btab + block_table::y_hi]);
    f8_->clear_half_flags(acc);
    for (int off = 0; off < c_.block; off += 32) scaled_half_chunk(off, 32, k, v_yhi, acc);
    // A lane the words do not encode: the whole row again, by the multiply path.
    f8_->test_half_flags(acc);
    jnz(other, T_NEAR);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::minifloat_row(div_path path) {
    if (!avx512 && f8_groups() && unroll() >= 4) {
        // Groups of four vectors as broadcast rows take them: the words of two vectors
        // encoded in one ymm, 32 codes packed and stored at once (vector() encodes 8).
        const int groups = static_cast<int>(c_.block / (4 * vlen));
        for (int i = 0; i < groups; ++i) float8_group(path, false, 4 * vlen * i);
        return row_vectors(path, 4 * vlen * groups);
    }
    if (!(avx512 && f8_words())) return row_vectors(path);
    // Pairs of vectors: both quotients' f16 words in one zmm, one word encode and one byte
    // gather for 32 codes (vector() encodes 16 at a time).
    const int pairs = static_cast<int>(c_.block / (2 * vlen));
    for (int i = 0; i < pairs; ++i) {
        const int off = 2 * vlen * i;
        for (int u = 0; u < 2; ++u) {
            load_src(u, off + u * vlen, false);
            div_.divide(path, vreg(u, 1), vreg(u, 0), vreg(u, 2), v_s, v_yhi, v_ya, v_yb);
            f8_->encode_f16(Ymm(vreg(u, 0).getIdx()), vreg(u, 1), vreg(u, 2));
        }
        const Zmm w(vreg(0, 0).getIdx());
        vinserti64x4(w, w, Ymm(vreg(1, 0).getIdx()), 1);
        f8_->encode_words(w, vreg(0, 2));
        f8_->pack_words32(w);
        vmovdqu(ptr[reg_dst + off], Ymm(w.getIdx()));
    }
    row_vectors(path, 2 * vlen * pairs);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::row_vectors(div_path path, int64_t from) {
    const int64_t full = c_.block / vlen, rem = c_.block % vlen;
    for (int64_t i = from / vlen; i < full; ++i)
        vector(static_cast<int>(i % unroll()), static_cast<int>(i * vlen), path, false);
    if (rem == 0) return;
    const int u = static_cast<int>(full % unroll()), off = static_cast<int>(full * vlen);
    if (avx512) return vector(u, off, path, true);
    // avx2 has no masked loads and stores: the last rem elements (4-bit rows: even) go
    // through a stack block, x at rsp and the codes at rsp + 32, the row's pointers pushed
    // above it. rem * src_size() and rem / 2 are whole dwords and bytes.
    const int x_bytes = static_cast<int>(rem) * src_size(), y_bytes = dst_bytes(rem);
    push(reg_src);
    push(reg_dst);
    sub(rsp, 64);
    for (int k = 0; k < x_bytes; k += 4) {
        mov(eax, dword[reg_src + off * src_size() + k]);
        mov(dword[rsp + k], eax);
    }
    mov(reg_src, rsp);
    lea(reg_dst, ptr[rsp + 32]);
    vector(u, 0, path, false);
    mov(reg_dst, ptr[rsp + 64]); // the row's
    for (int k = 0; k < y_bytes; ++k) {
        mov(al, byte[rsp + 32 + k]);
        mov(byte[reg_dst + dst_bytes(off) + k], al);
    }
    add(rsp, 64);
    pop(reg_dst);
    pop(reg_src);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::fill_block_table(const Reg64 &bs, const Reg64 &bzp, const Reg64 &bs_step,
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
    if (minifloat()) {
        // y_hi where it is exactly 1/s (y_hi * s - 1 = 0, fused), else 0: block_row()
        // multiplies by the first and divides for the second. Scratch: vector 0's registers,
        // free between rows (float8 rows have no lo, hi or zp registers).
        const Vmm r = vreg(0, 0), zero = vreg(0, 1);
        vmovaps(r, yhi);
        vfmsub213ps(r, s, one);
        vxorps(zero, zero, zero);
        if (avx512) {
            vcmpneqps(k4, r, zero); // NaN too
            vxorps(yhi | k4, yhi, yhi);
        } else {
            vcmpeqps(r, r, zero);
            vandps(yhi, yhi, r);
        }
    }
    if (fixed_rows()) {
        // y_hi * 2^14: exact, or +-Inf for |s| < 2^-114, which flags every lane.
        broadcast_f32(one, fixed_unit);
        vmulps(yhi, yhi, one);
    }
    vmovaps(ptr[rsp + at + t::y_hi], yhi);
    if (scaled_half_rows()) fill_half_k(yhi, at);
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
    if (fixed_rows()) {
        // f = zp * 2^14 + (2^13 + fixed_offset), exact (|f| < 2^23); lo and hi are
        // free here (fixed rows broadcast neither), one without a zero point.
        const Vmm f = c_.has_zp ? hi : one;
        broadcast_f32(f, 0.5f * fixed_unit + fixed_offset);
        if (c_.has_zp) {
            broadcast_f32(lo, fixed_unit);
            vfmadd231ps(f, zp, lo);
        }
        vmovaps(ptr[rsp + at + t::f], f);
    }
}

template <cpu_isa_t isa>
void quantize_generator<isa>::fill_half_k(const Vmm &yhi, int at) {
    // scaled_half_k() for a vector of rows: y_hi's biased exponent e (with the sign at bit
    // 8), no mantissa bits, d = base - e in [0, most] as unsigned (a sign makes e >= 256:
    // d wraps), k = d << x's mantissa bits; y_hi = 0 (divided rows) never reaches the words.
    const Vmm k = vreg(0, 0), e = vreg(0, 1), t = vreg(1, 0);
    const Address base = ptr[rip + l_block_consts_ + b_half_base];
    vpsrld(e, yhi, 23);
    vpslld(t, e, 23);
    vpbroadcastd(k, base);
    vpsubd(k, k, e);
    if (avx512) {
        vpcmpeqd(k5, t, yhi);
        vpcmpud(k5 | k5, k, ptr_b[rip + l_block_consts_ + b_half_most], 2); // <=
        vpslld(k, k, f8_->scaled_half_man_bits());
        vpternlogd(t, t, t, 0xff);
        vmovdqa32(t | k5, k);
        vmovaps(ptr[rsp + at + block_table::half_k], t);
        if (planes_pairs() && c_.src_dt != data_type::f32) { // -1 - B where half_k is -1
            vpbroadcastd(k, ptr[rip + l_block_consts_ + b_pair_b]);
            vpsubd(t, t, k);
            vmovaps(ptr[rsp + at + block_table::pair_k], t);
        }
        return;
    }
    vpcmpeqd(t, t, yhi);
    vpbroadcastd(e, ptr[rip + l_block_consts_ + b_half_most]);
    vpminud(e, e, k);
    vpcmpeqd(e, e, k); // d <= most
    vpand(t, t, e);
    vpslld(k, k, f8_->scaled_half_man_bits());
    vpcmpeqd(e, e, e);
    vpxor(t, t, e);
    vpor(k, k, t); // -1 where not
    vmovaps(ptr[rsp + at + block_table::half_k], k);
}

template <cpu_isa_t isa>
void quantize_generator<isa>::block_zp(const Reg64 &bzp) {
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

// generate() calls it (jit_quantize.cpp).
template void quantize_generator<avx2>::block_loop();
template void quantize_generator<avx512_core>::block_loop();

#undef CALL
#undef PRM

} // namespace jit
} // namespace impl
} // namespace qgraph
