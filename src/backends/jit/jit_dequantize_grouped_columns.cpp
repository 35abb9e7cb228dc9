#include "backends/jit/jit_dequantize_grouped_columns.hpp"

#include <cstddef>
#include <memory>

#include "backends/jit/jit_bf16_emitter.hpp"
#include "common/data_types.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

using namespace Xbyak;

#define CALL(field) ptr[abi_arg + offsetof(grouped_columns_call, field)]

class columns_generator : public jit_generator {
public:
    explicit columns_generator(const grouped_columns_conf &c) : c_(c) { generate(); }

private:
    const grouped_columns_conf c_;
    // The block's transposed x (in the stack block), its rows 0 and 4 of y, y's row stride
    // and 3 times it, the group's scales and zero-point index, the chunk's blocks left, the
    // group's blocks, the group's blocks left, the chunk's first column.
    const Reg64 reg_x = r8, reg_y = r9, reg_y4 = r10, reg_d = r11, reg_d3 = r12, reg_s = r13,
                reg_zi = r14, reg_left = r15, reg_glen = rbx, reg_cnt = rbp, reg_n0 = rsi;
    // Opmasks: k1 / k2 the chunk's columns 0-15 / 16-31, k4 its 32 words (bf16 rows), k7 the
    // bytes of its sub-byte zero points, k5 the blocks of a transposed segment; k3 the scale
    // check and the integer bf16 rounding.
    static constexpr int chunk = 32;
    // The stack block: x transposed, block b's 32 columns at 128 * b; then the caller's rsp,
    // the repetitions left and the current one's src, dst, scales and zp_index.
    static constexpr int xt_bytes = grouped_columns_max_blocks * chunk * 4;
    static constexpr int frame = xt_bytes + 64 + 48;
    Address saved_rsp() { return qword[rsp + xt_bytes]; }
    Address outer_left() { return qword[rsp + xt_bytes + 8]; }
    Address base(int field) { return qword[rsp + xt_bytes + 16 + 8 * field]; }
    enum { b_src, b_dst, b_scales, b_zpi };

    // Vector registers: 0..11 rows (two rows in flight, three per half), 12..17 per block /
    // group, constants from 31 down; the transposes use all but the constants.
    const Zmm v_x[2] = {Zmm(12), Zmm(13)}, v_s[2] = {Zmm(14), Zmm(15)};
    Zmm v_b[2] = {Zmm(16), Zmm(17)}; ///< without zero points one constant
    int top_ = 32;
    Zmm take_const() { return Zmm(--top_); }
    Zmm v_mask, v_magic, v_flip, v_xbias, v_nib, v_one, v_round, v_quiet;
    Label l_eight;

    bool s4() const { return c_.src_dt == data_type::s4; }
    bool has_zp() const { return c_.zp_dt != data_type::undef; }
    /// s32 zero points take the integer subtraction (2^23 + zp is exact only for |zp| < 2^23).
    bool magic() const { return c_.zp_dt != data_type::s32; }
    bool bf16() const { return c_.dst_dt == data_type::bf16; }
    int dst_size() const { return static_cast<int>(size_of(c_.dst_dt)); }
    int scale_size() const { return static_cast<int>(size_of(c_.scale_dt)); }

    void broadcast_const(const Zmm &v, uint32_t bits) {
        mov(eax, bits);
        vpbroadcastd(v, eax);
    }

    void generate() {
        preamble();
        // A 64-byte aligned stack block (its rows are whole cache lines).
        mov(rax, rsp);
        sub(rsp, frame);
        and_(rsp, -64);
        mov(saved_rsp(), rax);
        mov(rax, CALL(outer));
        mov(outer_left(), rax);
        const size_t fields[] = {offsetof(grouped_columns_call, src),
                offsetof(grouped_columns_call, dst), offsetof(grouped_columns_call, scales),
                offsetof(grouped_columns_call, zp_index)};
        for (int f = b_src; f <= b_zpi; ++f) {
            mov(rax, qword[abi_arg + fields[f]]);
            mov(base(f), rax);
        }
        v_mask = take_const();
        broadcast_const(v_mask, 0xf);
        if (magic()) {
            v_magic = take_const();
            broadcast_const(v_magic, 0x4b000000u); // 2^23
        }
        if (s4()) {
            v_flip = take_const();
            broadcast_const(v_flip, 0x88888888u);
        }
        // What the zero point gets added before it is subtracted: 2^23 (as an integer, then
        // the sum converted) on the f32 path, and the s4 bias; s4 zero points are read biased
        // too (code ^ 8 = zp + 8), so 8 less.
        const uint32_t xbias = (magic() ? 0x800000u : 0u) + (s4() ? 8u : 0u)
                - (c_.zp_dt == data_type::s4 ? 8u : 0u);
        if (has_zp()) {
            v_xbias = take_const();
            broadcast_const(v_xbias, xbias);
        } else {
            v_b[0] = v_b[1] = take_const();
            broadcast_const(v_b[0], xbias);
            vcvtdq2ps(v_b[0], v_b[0]); // exact
        }
        if (c_.zp_dt == data_type::s4 || c_.zp_dt == data_type::u4) {
            v_nib = take_const();
            broadcast_const(v_nib, 0x0f0f0f0fu);
        }
        if (bf16()) {
            v_one = take_const();
            v_round = take_const();
            v_quiet = take_const();
            broadcast_const(v_one, bf16_rounding<avx512_core>::constants[0]);
            broadcast_const(v_round, bf16_rounding<avx512_core>::constants[1]);
            broadcast_const(v_quiet, bf16_rounding<avx512_core>::constants[2]);
        }
        mov(reg_d, CALL(dst_row_stride));
        lea(reg_d3, ptr[reg_d + reg_d * 2]);

        Label l_outer, l_chunk, l_group, l_next_chunk, l_next_outer, l_end;
        L(l_outer);
        xor_(reg_n0, reg_n0);
        L(l_chunk);
        mov(rax, CALL(cols));
        sub(rax, reg_n0);
        jle(l_next_outer, T_NEAR);
        chunk_masks();
        transpose_x();
        mov(reg_x, rsp);
        mov(reg_y, reg_n0);
        imul(reg_y, reg_y, dst_size());
        add(reg_y, base(b_dst));
        lea(reg_y4, ptr[reg_y + reg_d * 4]);
        mov(reg_s, reg_n0);
        imul(reg_s, reg_s, scale_size());
        add(reg_s, base(b_scales));
        mov(reg_zi, reg_n0);
        add(reg_zi, base(b_zpi));
        mov(reg_left, CALL(blocks));
        mov(reg_glen, CALL(first));

        L(l_group);
        test(reg_left, reg_left);
        jle(l_next_chunk, T_NEAR);
        mov(reg_cnt, reg_glen);
        cmp(reg_cnt, reg_left);
        cmovg(reg_cnt, reg_left);
        sub(reg_left, reg_cnt);
        load_params();
        if (c_.bf16_insn) {
            // vcvtne2ps2bf16 flushes subnormal results: with |x - zp| an integer, only a
            // subnormal scale gives any, and a group with one takes the integer rounding.
            Label l_int, l_done;
            vfpclassps(k3, v_s[0], 0x20);
            vfpclassps(k5, v_s[1], 0x20);
            korw(k3, k3, k5);
            kortestw(k3, k3);
            jnz(l_int, T_NEAR);
            block_loop(true);
            jmp(l_done, T_NEAR);
            L(l_int);
            block_loop(false);
            L(l_done);
        } else {
            block_loop(false);
        }
        mov(rax, CALL(scale_group_stride));
        imul(rax, rax, scale_size());
        add(reg_s, rax);
        add(reg_zi, CALL(zp_group_stride));
        mov(reg_glen, c_.group_blocks);
        jmp(l_group, T_NEAR);

        L(l_next_chunk);
        add(reg_n0, chunk);
        jmp(l_chunk, T_NEAR);

        L(l_next_outer);
        dec(outer_left());
        jle(l_end, T_NEAR);
        const size_t strides[] = {offsetof(grouped_columns_call, src_outer_stride),
                offsetof(grouped_columns_call, dst_outer_stride),
                offsetof(grouped_columns_call, scale_outer_stride),
                offsetof(grouped_columns_call, zp_outer_stride)};
        for (int f = b_src; f <= b_zpi; ++f) {
            mov(rax, qword[abi_arg + strides[f]]);
            if (f == b_scales) imul(rax, rax, scale_size());
            add(base(f), rax);
        }
        jmp(l_outer, T_NEAR);

        L(l_end);
        mov(rsp, saved_rsp());
        postamble();
        L(l_eight);
        dd(0x08080808u);
        finish("dequantize_grouped_columns", avx512_core);
    }

    /// From rax = the columns left (> 0): k1, k2, k4 and k7 for min(rax, 32) columns.
    void chunk_masks() {
        mov(ecx, chunk);
        cmp(rax, rcx);
        cmovg(rax, rcx);
        mov(rcx, rax);
        mov(reg_cnt, rax); // for transpose_x
        mov(edx, 1);
        shl(rdx, cl);
        dec(rdx); // the low rax bits of 33: rax <= 32
        kmovd(k4, edx);
        kmovw(k1, edx);
        shr(edx, 16);
        kmovw(k2, edx);
        inc(ecx);
        shr(ecx, 1); // bytes of the sub-byte zero points
        mov(edx, 1);
        shl(edx, cl);
        dec(edx);
        kmovw(k7, edx);
    }

    /// The chunk's x (reg_cnt columns from reg_n0) transposed into the stack block: 16
    /// blocks of 16 columns at a time, loaded (columns past the chunk's read as its last one,
    /// blocks past the call's not at all) and transposed in registers. Uses every
    /// non-constant vector register and the loop registers of generate().
    void transpose_x() {
        const Reg64 reg_src = reg_x, reg_to = reg_s, reg_stride = reg_glen, reg_col = rdx;
        mov(reg_stride, CALL(src_col_stride));
        mov(reg_src, reg_stride);
        imul(reg_src, reg_n0);
        add(reg_src, base(b_src));
        mov(reg_to, rsp);
        mov(reg_left, CALL(blocks));
        Label l_segment;
        L(l_segment);
        mov(rcx, reg_left);
        mov(eax, 16);
        cmp(rcx, rax);
        cmovg(rcx, rax);
        mov(eax, 1);
        shl(eax, cl);
        dec(eax);
        kmovw(k5, eax);
        mov(reg_col, reg_src);
        for (int h = 0; h < 2; ++h) {
            for (int i = 0; i < 16; ++i) {
                const int col = 16 * h + i;
                if (col > 0) {
                    // The next column while there is one.
                    lea(rcx, ptr[reg_col + reg_stride]);
                    cmp(reg_cnt, col);
                    cmovg(reg_col, rcx);
                }
                vmovdqu32(Zmm(i) | k5 | T_z, ptr[reg_col]);
            }
            int out[16];
            transpose_16x16(out);
            for (int b = 0; b < 16; ++b) vmovdqu32(ptr[reg_to + b * 128 + h * 64], Zmm(out[b]));
        }
        add(reg_src, 64);
        add(reg_to, 16 * 128);
        sub(reg_left, 16);
        jg(l_segment, T_NEAR);
    }

    /// Registers 0..15 hold rows i of a 16 x 16 dword matrix; out[j] gets the register that
    /// holds its column j. Registers 16..top_ - 1 are scratch.
    void transpose_16x16(int out[16]) {
        int free_reg = 16;
        int r[16];
        for (int i = 0; i < 16; ++i) r[i] = i;
        // Each step writes pairs (lo, hi) of two inputs into a fresh register and the first
        // input's; the second input's register is the next fresh one.
        const auto pairs = [&](int step, const auto &lo, const auto &hi) {
            int n[16];
            for (int i = 0; i < 16; ++i) {
                if (i & step) continue;
                const int a = r[i], b = r[i + step], t = free_reg;
                hi(Zmm(t), Zmm(a), Zmm(b));
                lo(Zmm(a), Zmm(a), Zmm(b));
                n[i] = a;
                n[i + step] = t;
                free_reg = b;
            }
            for (int i = 0; i < 16; ++i) r[i] = n[i];
        };
        // Within 128-bit lanes, two steps: lane l of r[4g + m] gets the four rows 4g..4g+3 of
        // column 4l + m.
        pairs(1, [&](const Zmm &d, const Zmm &a, const Zmm &b) { vpunpckldq(d, a, b); },
                [&](const Zmm &d, const Zmm &a, const Zmm &b) { vpunpckhdq(d, a, b); });
        // Now r[2p] holds dwords 0, 1 of each lane of rows 2p, 2p + 1 interleaved, r[2p + 1]
        // dwords 2, 3: pair r[4g] with r[4g + 2] and r[4g + 1] with r[4g + 3].
        int q[16];
        for (int g = 0; g < 4; ++g) {
            q[4 * g + 0] = r[4 * g + 0];
            q[4 * g + 1] = r[4 * g + 2];
            q[4 * g + 2] = r[4 * g + 1];
            q[4 * g + 3] = r[4 * g + 3];
        }
        for (int i = 0; i < 16; ++i) r[i] = q[i];
        pairs(1, [&](const Zmm &d, const Zmm &a, const Zmm &b) { vpunpcklqdq(d, a, b); },
                [&](const Zmm &d, const Zmm &a, const Zmm &b) { vpunpckhqdq(d, a, b); });
        int u[4][4]; // u[g][m]: lane l holds rows 4g..4g+3 of column 4l + m
        for (int g = 0; g < 4; ++g) {
            u[g][0] = r[4 * g + 0];
            u[g][1] = r[4 * g + 1];
            u[g][2] = r[4 * g + 2];
            u[g][3] = r[4 * g + 3];
        }
        // 4 x 4 transposes of 128-bit lanes: out[4l + m] = lanes l of u[0..3][m].
        for (int m = 0; m < 4; ++m) {
            int v[4] = {u[0][m], u[1][m], u[2][m], u[3][m]};
            const int a = free_reg; // [u0.l0, u0.l1, u1.l0, u1.l1] etc.
            vshufi32x4(Zmm(a), Zmm(v[0]), Zmm(v[1]), 0x44);
            vshufi32x4(Zmm(v[1]), Zmm(v[0]), Zmm(v[1]), 0xee);
            const int b = v[1];
            const int c = v[0];
            vshufi32x4(Zmm(c), Zmm(v[2]), Zmm(v[3]), 0x44);
            vshufi32x4(Zmm(v[3]), Zmm(v[2]), Zmm(v[3]), 0xee);
            const int d = v[3];
            const int o0 = v[2];
            vshufi32x4(Zmm(o0), Zmm(a), Zmm(c), 0x88);
            vshufi32x4(Zmm(c), Zmm(a), Zmm(c), 0xdd);
            const int o1 = c;
            vshufi32x4(Zmm(a), Zmm(b), Zmm(d), 0x88);
            vshufi32x4(Zmm(b), Zmm(b), Zmm(d), 0xdd);
            out[0 + m] = o0;
            out[4 + m] = o1;
            out[8 + m] = a;
            out[12 + m] = b;
            free_reg = d;
        }
    }

    /// The group's scales as f32 into v_s and what is subtracted from x into v_b (masked-off
    /// columns read as 0).
    void load_params() {
        for (int h = 0; h < 2; ++h) {
            const Address at = ptr[reg_s + h * 16 * scale_size()];
            const Zmm s = v_s[h] | (h ? k2 : k1) | T_z;
            switch (c_.scale_dt) {
                case data_type::bf16:
                    vpmovzxwd(s, at);
                    vpslld(v_s[h], v_s[h], 16);
                    break;
                case data_type::f16: vcvtph2ps(s, at); break; // exact; NaN made quiet
                default: vmovups(s, at); break;
            }
        }
        if (!has_zp()) return;
        mov(rdx, CALL(zps));
        const Zmm z[2] = {Zmm(0), Zmm(1)};
        switch (c_.zp_dt) {
            case data_type::s8:
            case data_type::u8:
                for (int h = 0; h < 2; ++h) {
                    const Zmm zm = z[h] | (h ? k2 : k1) | T_z;
                    const Address at = ptr[rdx + reg_zi + h * 16];
                    if (c_.zp_dt == data_type::s8)
                        vpmovsxbd(zm, at);
                    else
                        vpmovzxbd(zm, at);
                }
                break;
            case data_type::s32:
                for (int h = 0; h < 2; ++h)
                    vmovdqu32(z[h] | (h ? k2 : k1) | T_z, ptr[rdx + reg_zi * 4 + h * 64]);
                break;
            default: { // s4, u4: 32 nibbles from the byte zi / 2 (zi is even)
                const Ymm a(2), b(3);
                mov(rax, reg_zi);
                sar(rax, 1);
                vpmovzxbw(a | k7 | T_z, ptr[rdx + rax]);
                // Byte (hi << 4) | lo as the word w: (w | w << 4) & 0x0f0f holds the nibbles
                // in element order.
                vpsllw(b, a, 4);
                vpternlogd(a, b, Ymm(v_nib.getIdx()), 0xa8); // (a | b) & mask
                if (c_.zp_dt == data_type::s4) vpxord(a, a, ptr_b[rip + l_eight]);
                vpmovzxbd(z[0], Xmm(a.getIdx()));
                vextracti32x4(Xmm(b.getIdx()), a, 1);
                vpmovzxbd(z[1], Xmm(b.getIdx()));
                break;
            }
        }
        for (int h = 0; h < 2; ++h) {
            vpaddd(v_b[h], z[h], v_xbias);
            if (magic()) vcvtdq2ps(v_b[h], v_b[h]); // exact: |2^23 + zp + 8| <= 2^24
        }
    }

    /// Row k of the block: y's row k from reg_y (k < 4) or reg_y4.
    Address row(int k, int byte_off) const {
        const Reg64 &base = k < 4 ? reg_y : reg_y4;
        switch (k % 4) {
            case 0: return ptr[base + byte_off];
            case 1: return ptr[base + reg_d + byte_off];
            case 2: return ptr[base + reg_d * 2 + byte_off];
            default: return ptr[base + reg_d3 + byte_off];
        }
    }

    /// reg_cnt blocks of the group (>= 1), then the pointers moved past them.
    void block_loop(bool insn) {
        Label l_block;
        L(l_block);
        for (int h = 0; h < 2; ++h) {
            if (s4())
                vpxord(v_x[h], v_flip, ptr[reg_x + 64 * h]); // codes c ^ 8 = x + 8
            else
                vmovdqu32(v_x[h], ptr[reg_x + 64 * h]);
        }
        for (int k = 0; k < 8; ++k) block_row(k, insn);
        add(reg_x, 128);
        lea(reg_y, ptr[reg_y + reg_d * 8]);
        lea(reg_y4, ptr[reg_y4 + reg_d * 8]);
        dec(reg_cnt);
        jnz(l_block, T_NEAR);
    }

    /// Row k (nibble k of each lane) of the block: f32(x - zp) * s, rounded and stored.
    void block_row(int k, bool insn) {
        Zmm y[2], t[2], n[2];
        for (int h = 0; h < 2; ++h) {
            const int r = (k % 2) * 6 + h * 3;
            y[h] = Zmm(r);
            t[h] = Zmm(r + 1);
            n[h] = Zmm(r + 2);
            const Zmm &x = v_x[h];
            if (magic()) {
                // (2^23 | c) - (2^23 + zp [+ 8]): f32(x - zp), exact.
                if (k == 0) {
                    vmovdqa32(y[h], v_magic);
                    vpternlogd(y[h], x, v_mask, 0xf8); // a | (b & c)
                } else {
                    vpsrld(y[h], x, 4 * k);
                    vpternlogd(y[h], v_mask, v_magic, 0xea); // (a & b) | c
                }
                vsubps(y[h], y[h], v_b[h]);
            } else {
                if (k == 0) {
                    vpandd(y[h], x, v_mask);
                } else {
                    vpsrld(y[h], x, 4 * k);
                    if (k < 7) vpandd(y[h], y[h], v_mask);
                }
                vpsubd(y[h], y[h], v_b[h]); // exact: |x - zp| <= 2^30 + 23
                vcvtdq2ps(y[h], y[h] | T_rn_sae);
            }
            vmulps(y[h], y[h], v_s[h]);
        }
        switch (c_.dst_dt) {
            case data_type::bf16:
                if (insn) {
                    vcvtne2ps2bf16(y[0], y[1], y[0]); // columns 0-15 in words 0-15
                    vmovdqu16(row(k, 0) | k4, y[0]);
                } else {
                    for (int h = 0; h < 2; ++h) {
                        bf16_rounding<avx512_core>(*this, v_one, v_round, v_quiet)
                                .round(t[h], y[h], n[h], k3);
                        vpmovdw(row(k, 32 * h) | (h ? k2 : k1), t[h]); // < 2^16: exact
                    }
                }
                break;
            case data_type::f16:
                for (int h = 0; h < 2; ++h)
                    vcvtps2ph(row(k, 32 * h) | (h ? k2 : k1), y[h], 0); // nearest even
                break;
            default:
                for (int h = 0; h < 2; ++h) vmovups(row(k, 64 * h) | (h ? k2 : k1), y[h]);
                break;
        }
    }
};

#undef CALL

} // namespace

jit_grouped_columns_kernel::jit_grouped_columns_kernel(const grouped_columns_conf &conf)
    : jit_code(std::make_unique<columns_generator>(conf)) {}

} // namespace jit
} // namespace impl
} // namespace qgraph
