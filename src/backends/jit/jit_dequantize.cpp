#include "backends/jit/jit_dequantize.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>

#include "backends/jit/jit_bf16_emitter.hpp"
#include "backends/jit/jit_float8_emitter.hpp"
#include "common/data_types.hpp"
#include "common/half_types.hpp"
#include "common/minifloat.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

using namespace Xbyak;

#define CALL(field) ptr[abi_arg + offsetof(dequantize_call, field)]

template <cpu_isa_t isa>
class dequantize_generator : public jit_generator {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr int vlen = isa_traits<isa>::vlen;
    static constexpr bool avx512 = isa == avx512_core;

public:
    explicit dequantize_generator(const dequantize_conf &c) : c_(c) { generate(); }

private:
    const dequantize_conf c_;
    const Reg64 reg_src = r8, reg_dst = r9, reg_n = r10, reg_ls = r11, reg_lzp = r12,
                reg_prm = rdx;
    const Vmm v_s = Vmm(isa_traits<isa>::nregs - 1), v_zp = Vmm(isa_traits<isa>::nregs - 2);
    int top_ = isa_traits<isa>::nregs - 2;
    Vmm take_const() { return Vmm(--top_); }
    Vmm v_one, v_round, v_quiet; // bf16 rounding
    std::unique_ptr<float8_emitter<isa>> f8_; // float8 sources: the decode
    // lookup(): the tables (ntables() of them), bit 6 and bit 15 of each word; byte_planes():
    // the tables, look_up_64()'s load order and bit 7 of each byte
    Vmm v_tab[8], v_bit6, v_order, v_sign;
    Label l_codes;
    Label l_planes; // byte_planes()' constants
    Label l_bytes; // byte_lookup()'s constants

    bool lanes() const { return c_.lanes != lane_source::none; }
    int src_size() const { return static_cast<int>(size_of(c_.src_dt)); }
    int dst_size() const { return static_cast<int>(size_of(c_.dst_dt)); }
    int zp_size() const {
        return c_.lanes == lane_source::raw ? static_cast<int>(size_of(c_.raw_zp_dt)) : 4;
    }
    bool float8() const { return is_float8(c_.src_dt); }
    // x, s, zp per unrolled vector (s and zp double as bf16 scratch); float8 sources add the
    // code and a scratch register (the decode's mask is s, loaded after it; its other
    // scratch is zp, unused). Constants on top.
    // avx2: four vectors fit below v_s and v_zp but for bf16 outputs (three rounding
    // constants) and float8 sources (five registers a vector).
    int unroll() const {
        return avx512 || (!float8() && c_.dst_dt != data_type::bf16) ? 4 : 2;
    }
    Vmm vreg(int u, int i) const { return Vmm(u * (float8() ? 5 : 3) + i); }

    void generate() {
        preamble();
        if (float8()) f8_ = std::make_unique<float8_emitter<isa>>(*this, c_.src_dt, false, false); // decodes only
        if (c_.dst_dt == data_type::bf16) {
            v_one = take_const();
            v_round = take_const();
            v_quiet = take_const();
            load_bf16_constants();
        }
        if (lookup()) {
            for (int j = 0; j < ntables(); ++j)
                v_tab[j] = take_const();
            if (byte_planes()) {
                v_order = take_const();
                vmovdqu64(Zmm(v_order.getIdx()), ptr[rip + l_planes + p_order]);
                mov(eax, 0x80808080);
            } else {
                v_bit6 = take_const();
                mov(eax, 0x00400040);
                vpbroadcastd(v_bit6, eax);
                mov(eax, 0x80008000);
            }
            v_sign = take_const();
            vpbroadcastd(v_sign, eax);
        }
        row_loop<dequantize_call, dequantize_params>(reg_src, reg_dst, reg_n, reg_prm, [&] {
            if (lanes()) {
                mov(reg_ls, CALL(l_s)); // every row starts at the same lane
                mov(reg_lzp, CALL(l_zp));
            } else {
                vbroadcastss(v_s, dword[reg_prm + offsetof(dequantize_params, s)]);
                vpbroadcastd(v_zp, dword[reg_prm + offsetof(dequantize_params, zp)]);
            }
            if (!bf16_insn() && !nan_free_rows()) return row(bf16_path::rounded);
            // The row's scale says whether the bf16 instruction rounds its results exactly,
            // and whether they may hold a NaN.
            Label l_end;
            const auto row_if = [&](size_t flag, bf16_path path) {
                Label l_next;
                cmp(dword[reg_prm + flag], 0);
                je(l_next, T_NEAR);
                row(path);
                jmp(l_end, T_NEAR);
                L(l_next);
            };
            if (bf16_insn()) row_if(offsetof(dequantize_params, bf16_insn), bf16_path::insn);
            if (nan_free_rows()) row_if(offsetof(dequantize_params, finite), bf16_path::no_nan);
            row(bf16_path::rounded);
            L(l_end);
        });
        if (c_.stream) sfence(); // order the streaming stores before the caller's join
        postamble();
        if (f8_) f8_->emit_constants();
        if (byte_lookup()) emit_byte_constants();
        if (lookup()) {
            align(64);
            L(l_codes); // the table codes 0..127 (8-bit integers: 0..255)
            for (int code = 0; code < ncodes(); ++code)
                db(code);
        }
        if (byte_planes()) emit_plane_constants();
        finish("dequantize", isa);
    }

    void load_bf16_constants() {
        const uint32_t *c = bf16_rounding<isa>::constants;
        broadcast_bits(v_one, c[0]);
        broadcast_bits(v_round, c[1]);
        broadcast_bits(v_quiet, c[2]);
    }

    /// vcvtneps2bf16 may serve broadcast rows (never lane parameters).
    bool bf16_insn() const { return c_.bf16_insn && !lanes(); }
    /// Broadcast rows of integer x into bf16 whose scale is finite hold no NaN product.
    bool nan_free_rows() const {
        return c_.dst_dt == data_type::bf16 && !float8() && !lanes();
    }
    /// How a row rounds its products to bf16: the integer sequence (with the NaN blend, or
    /// without it: nan_free_rows()), or vcvtneps2bf16 (bf16_insn()).
    enum class bf16_path { rounded, insn, no_nan };

    void loop(bf16_path path) {
        if (quads()) quad_loop(path);
        if (path == bf16_path::no_nan && pairs()) pair_loop();
        element_loop(
                reg_n, vlen, unroll(), avx512,
                [&](int u, int off, bool tail) {
                    compute(u, off, tail);
                    store(u, off, tail, path);
                },
                [&](int elems) { advance(elems); });
    }

    /// avx2, 8- and 16-bit x into bf16, broadcast rows with a finite scale: 16 codes a step,
    /// loaded as 8 dwords of two codes each (8-bit x: one vpmovzxwd / vpmovsxwd for two
    /// vpmovzxbd; 16-bit x: one load for two vpmovzxwd) and split into the even codes and
    /// the odd ones. Each half rounds by Veltkamp's split, hi = c - (c - y) with
    /// c = y * (2^16 + 1): y to 8 significant bits, ties to even, its low 16 bits 0, in three
    /// float operations for the integer rounding's four (checked against f32_to_bf16 on
    /// every f32 of either sign: exact for 0 and every normal |y| below 2^111). The even half
    /// shifted down and the odd half blend into the 16 words in order, so one store and no
    /// pack. x - zp is an integer of magnitude at most 2^31, so y is 0 or normal and below
    /// 2^111 when |s| is in [2^-126, 2^80); other rows, and each row's last n % 16 codes,
    /// take the vector loop.
    bool pairs() const {
        const data_type_facts &x = facts_of(c_.src_dt);
        const bool narrow = x.cls == type_class::integer && (x.bits == 8 || x.bits == 16);
        return !avx512 && !lanes() && narrow && c_.dst_dt == data_type::bf16;
    }
    bool signed_src() const { return facts_of(c_.src_dt).is_signed; }

    void pair_loop() {
        Label l_done;
        vmovd(eax, Xmm(v_s.getIdx()));
        and_(eax, 0x7fffffff);
        sub(eax, f32_bits(0x1p-126f)); // as unsigned: |s| below 2^-126 wraps to the largest
        cmp(eax, f32_bits(0x1p80f) - f32_bits(0x1p-126f));
        jae(l_done, T_NEAR);
        // Above the two steps' registers, vreg(0..1, 0..2).
        const Vmm split(6), low_code(7);
        broadcast_bits(split, f32_bits(65537.f));
        if (!signed_src()) broadcast_bits(low_code, (1u << (8 * src_size())) - 1);
        element_loop(
                reg_n, 16, 2, false,
                [&](int u, int off, bool) { pair_step(u, off, split, low_code); },
                [&](int elems) { advance(elems); });
        L(l_done);
    }

    /// v = bits in every dword.
    void broadcast_bits(const Vmm &v, uint32_t bits) {
        mov(eax, bits);
        vmovd(Xmm(v.getIdx()), eax);
        vpbroadcastd(v, Xmm(v.getIdx()));
    }

    /// pair_loop()'s 16 codes at element off; low_code masks an unsigned code.
    void pair_step(int u, int off, const Vmm &split, const Vmm &low_code) {
        const Vmm even = vreg(u, 0), odd = vreg(u, 1), c = vreg(u, 2);
        const Address x = ptr[reg_src + off * src_size()];
        const int bits = 8 * src_size();
        if (bits == 16)
            vmovdqu(even, x);
        else if (signed_src())
            vpmovsxwd(even, x); // the odd code's sign fills the dword's top half
        else
            vpmovzxwd(even, x);
        if (signed_src()) {
            vpsrad(odd, even, bits);
            vpslld(even, even, 32 - bits);
            vpsrad(even, even, 32 - bits);
        } else {
            vpsrld(odd, even, bits);
            vpand(even, even, low_code);
        }
        for (const Vmm &y : {even, odd}) {
            if (c_.has_zp) vpsubd(y, y, v_zp);
            vcvtdq2ps(y, y); // as compute() converts
            vmulps(y, y, v_s);
            vmulps(c, y, split);
            vsubps(y, c, y);
            vsubps(y, c, y); // c - (c - y)
        }
        vpsrld(even, even, 16);
        vpblendw(even, even, odd, 0xaa); // the odd codes' high words
        vmovdqu(ptr[reg_dst + off * 2], even);
    }

    /// avx2, e5m2 / e4m3 sources: 32 codes a step (quad_loop()), decoded as f16 words by
    /// float8_emitter::load_quad(), where compute() decodes 8 at a time.
    bool quads() const { return float8() && f8_->decodes_quads(); }

    /// The row's codes 32 at a time, while 32 are left; the rest takes element_loop().
    /// Each vector of 8 is then scaled and stored as compute() and store() do it.
    void quad_loop(bf16_path path) {
        if (c_.src_dt == data_type::f8_e4m3 && !lanes()) {
            // e4m3 rows whose s * 256 is exact fold the decode's 256 into the scale (v_zp:
            // float8 has no zero point).
            Label l_unfolded, l_done;
            vmovd(eax, Xmm(v_s.getIdx()));
            and_(eax, 0x7fffffff);
            cmp(eax, 0x7b800000); // |s| < 2^120 (NaN and Inf above)
            jae(l_unfolded, T_NEAR);
            f8_->scale_up_quads(v_zp, v_s);
            quads_of(path, v_zp, true);
            jmp(l_done, T_NEAR);
            L(l_unfolded);
            quads_of(path, v_s, false);
            L(l_done);
            return;
        }
        quads_of(path, v_s, false);
    }
    /// quad_loop()'s steps, scaled by s (scaled_down: e4m3's words times s * 256).
    void quads_of(bf16_path path, const Vmm &s, bool scaled_down) {
        // Codes 0-7, 8-15, 16-23, 24-31: registers store() leaves alone (vreg(u, 3..4)).
        const Vmm w[4] = {vreg(0, 3), vreg(0, 4), vreg(1, 3), vreg(1, 4)};
        Label l_top, l_done;
        L(l_top);
        cmp(reg_n, 32);
        jl(l_done, T_NEAR);
        f8_->load_quad(w, ptr[reg_src], vreg(0, 0));
        for (int v = 0; v < 4; ++v) {
            const int u = v % 2;
            const Vmm x = vreg(u, 0);
            f8_->quad_to_f32(x, Xmm(w[v].getIdx()), scaled_down);
            if (lanes())
                vmulps(x, x, ptr[reg_ls + 8 * v * 4]);
            else
                vmulps(x, x, s);
            store(u, 8 * v, false, path);
        }
        advance(32);
        sub(reg_n, 32);
        jmp(l_top, T_NEAR);
        L(l_done);
    }

    /// float8 x to bf16 / f16 y with a broadcast scale on avx512: every y is one of 256
    /// 16-bit codes, so long rows look their codes up in tables built once per row
    /// (vpermt2w: 64 words per pair of registers) instead of decoding and multiplying.
    /// The tables hold the 128 non-negative codes' results, computed by compute() and
    /// rounded as store() rounds; a negative code's result is its magnitude's with the sign
    /// flipped. That holds when s is finite and nonzero: (-x) * s = -(x * s) under round to
    /// nearest even, a NaN x gives its own quiet NaN (the code's sign), and neither inf * 0
    /// nor a NaN s gives a NaN whose sign is not the code's. Other scales, and rows too short
    /// to pay for the tables, take the arithmetic loop.
    /// With AVX512_VBMI (byte_planes()) so do float8 codes into f32, and u8 / s8 x into bf16
    /// / f16 with tables of all 256 codes, whatever s and zp are: every entry is the
    /// arithmetic's own result.
    bool lookup() const {
        // fnuz types: code 0x80 is NaN, not -0, so the sign rule does not hold.
        const bool ocp = c_.src_dt == data_type::f8_e4m3 || c_.src_dt == data_type::f8_e5m2;
        const bool half = c_.dst_dt == data_type::bf16 || c_.dst_dt == data_type::f16;
        if (!avx512 || lanes()) return false;
        if (int8_lookup()) return half && c_.vbmi;
        return ocp && (half || (c_.dst_dt == data_type::f32 && c_.vbmi));
    }
    bool int8_lookup() const { return is_int8(c_.src_dt); }
    /// The table entries: 128 magnitudes of float8 codes, 256 codes of 8-bit integers.
    int ncodes() const { return int8_lookup() ? 256 : 128; }
    /// Registers of 64 bytes of results: 32 codes (bf16 / f16) or 16 (f32) each.
    int ntables() const { return ncodes() * dst_size() / 64; }
    /// Rows shorter than this take the arithmetic: eight table registers (f32 results, or
    /// the 256 codes of 8-bit integers) take twice the set-up of four.
    int min_lookup_row() const { return ntables() == 8 ? 1024 : 512; }

    /// One row: by table lookup where lookup() or byte_lookup() allows, else loop(path).
    void row(bf16_path path) {
        if (byte_lookup()) return byte_lookup_row();
        if (!lookup()) return loop(path);
        Label l_arith, l_done;
        cmp(reg_n, min_lookup_row());
        jl(l_arith, T_NEAR);
        if (!int8_lookup()) { // the sign rule needs a finite nonzero s
            vmovd(eax, Xmm(v_s.getIdx()));
            and_(eax, 0x7fffffff);
            dec(eax); // 0 (s = +-0) wraps to the largest
            cmp(eax, 0x7f7ffffe); // |s| <= FLT_MAX, as bits, less one
            ja(l_arith, T_NEAR);
        }
        build_tables(path);
        lookup_loop();
        jmp(l_done, T_NEAR);
        L(l_arith);
        loop(path);
        L(l_done);
    }

    /// v_tab[j] = the results of codes 32j .. 32j + 31, as words (f32: of 16j .. 16j + 15).
    void build_tables(bf16_path path) {
        mov(reg_ls, reg_src);
        lea(reg_src, ptr[rip + l_codes]);
        for (int j = 0; j < ntables(); ++j) {
            if (dst_size() == 4) {
                compute(0, 16 * j, false);
                vmovaps(v_tab[j], vreg(0, 0));
                continue;
            }
            compute(0, 32 * j, false);
            compute(1, 32 * j + 16, false);
            const Vmm lo = to_words(0, path), hi = to_words(1, path);
            vinserti64x4(Zmm(v_tab[j].getIdx()), Zmm(lo.getIdx()), Ymm(hi.getIdx()), 1);
        }
        mov(reg_src, reg_ls);
        if (byte_planes()) split_planes();
    }

    /// avx512 with AVX512_VBMI: every result is a 16- or 32-bit code whose bytes
    /// look_up_64() finds apart, one vpermi2b each for 64 codes (7-bit indexes into two
    /// registers: a float8 code's sign bit is ignored, then xor-ed into the top byte as
    /// lookup() says; an 8-bit integer's selects the second half of the tables), and
    /// interleaves with one unpack per 32 words (two per 16 dwords). Two vpermt2w, a test
    /// and a blend did 32 words; the arithmetic, a decode and a multiply per 16 dwords.
    bool byte_planes() const { return lookup() && c_.vbmi; }
    /// v_tab[tab(p, b)]: byte b of the results of codes 64p .. 64p + 63.
    int tab(int p, int b) const { return p * dst_size() + b; }

    // The load order of look_up_64() (dword indexes), then per byte b an index taking byte b
    // of each entry from two table registers (the first 32 entries of f32 tables).
    enum plane_const { p_order = 0, p_index = 64 };

    void emit_plane_constants() {
        align(64);
        L(l_planes);
        // Each 128-bit lane j then holds the codes whose results the in-lane unpacks of
        // look_up_64() put in lane j of its outputs, in code order: codes 8j..8j+7 and
        // 32+8j..32+8j+7 (16-bit results: qwords 0, 4, 1, 5, 2, 6, 3, 7), or 4j..4j+3,
        // 16+4j.., 32+4j.. and 48+4j.. (f32: dwords 0, 4, 8, 12, 1, 5, ...).
        for (int d = 0; d < 16; ++d)
            dd(static_cast<uint32_t>(dst_size() == 4 ? (d % 4) * 4 + d / 4
                                                     : (d / 2 % 2) * 8 + d / 4 * 2 + d % 2));
        for (int b = 0; b < dst_size(); ++b)
            for (int i = 0; i < 64; ++i)
                db((dst_size() * i + b) & 127);
    }

    /// The result tables (ntables() registers of whole results in code order) become byte
    /// planes: v_tab[tab(p, b)].
    void split_planes() {
        const auto z = [](const Vmm &v) { return Zmm(v.getIdx()); };
        const auto index = [&](int b) { return ptr[rip + l_planes + p_index + 64 * b]; };
        if (dst_size() == 2) {
            const Zmm lo(z(vreg(0, 0))), hi(z(vreg(0, 1)));
            for (int p = 0; p < ntables() / 2; ++p) {
                const Zmm a = z(v_tab[2 * p]), b = z(v_tab[2 * p + 1]);
                vmovdqu8(lo, index(0));
                vpermi2b(lo, a, b);
                vmovdqu8(hi, index(1));
                vpermi2b(hi, a, b);
                vmovdqa64(a, lo);
                vmovdqa64(b, hi);
            }
            return;
        }
        // f32: each plane of 64 codes from four table registers, 32 entries from each pair.
        const Zmm lo(8), hi(9);
        for (int p = 0; p < 2; ++p)
            for (int b = 0; b < 4; ++b) {
                vmovdqu8(lo, index(b));
                vpermi2b(lo, z(v_tab[4 * p]), z(v_tab[4 * p + 1]));
                vmovdqu8(hi, index(b));
                vpermi2b(hi, z(v_tab[4 * p + 2]), z(v_tab[4 * p + 3]));
                vinserti64x4(Zmm(tab(p, b)), lo, Ymm(hi.getIdx()), 1);
            }
        for (int j = 0; j < 8; ++j)
            vmovdqa64(z(v_tab[j]), Zmm(j));
    }

    /// compute()'s result for vector u rounded to the destination as store() rounds it: the
    /// 16 words in the low half of the register returned.
    Vmm to_words(int u, bf16_path path) {
        const Vmm x = vreg(u, 0);
        const Ymm h(x.getIdx());
        if (c_.dst_dt == data_type::f16) {
            vcvtps2ph(h, x, 0);
            return x;
        }
        if (path == bf16_path::insn) {
            vcvtneps2bf16(h, x);
            return x;
        }
        const Vmm t = vreg(u, 1);
        bf16_rounding<isa>(*this, v_one, v_round, v_quiet).round(t, x, vreg(u, 2), k2);
        vpmovdw(Ymm(t.getIdx()), t); // every value < 2^16: exact
        return t;
    }

    /// The row's codes 32 (word tables: look_up()) or 64 (byte_planes(): look_up_64()) a
    /// step, the last n < step under k1 (one bit per code).
    void lookup_loop() {
        const int step = byte_planes() ? 64 : 32;
        const auto look = [&](int u, int off, bool tail) {
            if (byte_planes())
                look_up_64(u, off, tail);
            else
                look_up(u, off, tail);
        };
        element_loop(
                reg_n, step, unroll(), false, [&](int u, int off, bool) { look(u, off, false); },
                [&](int elems) {
                    add(reg_src, elems);
                    add(reg_dst, elems * dst_size());
                });
        Label l_none;
        test(reg_n, reg_n);
        jz(l_none, T_NEAR);
        mov(rcx, reg_n);
        mov(rax, 1);
        shl(rax, cl);
        dec(rax);
        kmovq(k1, rax);
        look(0, 0, true);
        L(l_none);
    }

    /// Stores result vector i (of 64 / dst_size() codes) of the 64 at element off; a tail
    /// stores the codes of k1's bits i * 64 / dst_size() and up (k2 is scratch).
    void store_plane_result(int i, int off, bool tail, const Zmm &v) {
        const int per = 64 / dst_size();
        const Address d = ptr[reg_dst + off * dst_size() + 64 * i];
        if (tail && i > 0) kshiftrq(k2, k1, per * i);
        const Opmask &k = i > 0 ? k2 : k1;
        if (dst_size() == 2)
            vmovdqu16(tail ? d | k : d, v);
        else if (tail)
            vmovups(d | k, v);
        else if (c_.stream)
            vmovntps(d, v);
        else
            vmovups(d, v);
    }

    /// The 64 codes at element off looked up in the byte planes and stored (registers
    /// 4u .. 4u + 3, or 5u .. 5u + 4 for f32, below every constant: at most 15 of them with
    /// 8 tables of bf16, 12 of f32).
    void look_up_64(int u, int off, bool tail) {
        const auto z = [](const Vmm &v) { return Zmm(v.getIdx()); };
        const int r0 = dst_size() == 4 ? 5 * u : 4 * u;
        // An invariant of the register plan; Xbyak::Error makes the backend reject the
        // problem (a fallback) rather than run wrong code.
        if (r0 + (dst_size() == 4 ? 4 : 3) >= top_) throw Xbyak::Error(Xbyak::ERR_INTERNAL);
        const Zmm c(r0), lo(r0 + 1), hi(r0 + 2), t(r0 + 3);
        const Address x = ptr[reg_src + off];
        if (tail) {
            vmovdqu8(c | k1 | T_z, x);
            vpermd(c, z(v_order), c);
        } else {
            vpermd(c, z(v_order), x);
        }
        if (dst_size() == 4) return look_up_f32(c, Zmm(r0 + 1), off, tail);
        // One plane: the bytes of codes (c & 127) from tables a and b; 8-bit integers with
        // bit 7 set (k3) take theirs from the tables of codes 128..255.
        const auto plane = [&](const Zmm &r, int j) {
            vmovdqa64(r, c);
            vpermi2b(r, z(v_tab[j]), z(v_tab[j + 2])); // index bits 6..0
            if (!int8_lookup()) return;
            vmovdqa64(t, c);
            vpermi2b(t, z(v_tab[j + 4]), z(v_tab[j + 6]));
            vmovdqu8(r | k3, t);
        };
        if (int8_lookup()) vpmovb2m(k3, c);
        plane(lo, 0); // low bytes
        plane(hi, 1); // high bytes
        if (!int8_lookup()) vpternlogd(hi, c, z(v_sign), 0x78); // hi ^ (c & 0x80): the sign
        vpunpcklbw(c, lo, hi); // codes 0..31
        vpunpckhbw(lo, lo, hi); // codes 32..63
        store_plane_result(0, off, tail, c);
        store_plane_result(1, off, tail, lo);
    }

    /// look_up_64() into f32: the codes c (in its load order), four planes in p0 and the
    /// three registers after it.
    void look_up_f32(const Zmm &c, const Zmm &p0, int off, bool tail) {
        const auto z = [](const Vmm &v) { return Zmm(v.getIdx()); };
        const Zmm p[4] = {p0, Zmm(p0.getIdx() + 1), Zmm(p0.getIdx() + 2), Zmm(p0.getIdx() + 3)};
        for (int b = 0; b < 4; ++b) {
            vmovdqa64(p[b], c);
            vpermi2b(p[b], z(v_tab[tab(0, b)]), z(v_tab[tab(1, b)])); // index bits 6..0
        }
        vpternlogd(p[3], c, z(v_sign), 0x78); // p3 ^ (c & 0x80): the code's sign
        vpunpcklbw(c, p[0], p[1]); // bytes 0, 1 of the lanes' first 8 codes
        vpunpckhbw(p[1], p[0], p[1]); // and of their last 8
        vpunpcklbw(p[0], p[2], p[3]); // bytes 2, 3
        vpunpckhbw(p[3], p[2], p[3]);
        vpunpcklwd(p[2], c, p[0]); // codes 0..15
        store_plane_result(0, off, tail, p[2]);
        vpunpckhwd(c, c, p[0]); // codes 16..31
        store_plane_result(1, off, tail, c);
        vpunpcklwd(p[0], p[1], p[3]); // codes 32..47
        store_plane_result(2, off, tail, p[0]);
        vpunpckhwd(p[1], p[1], p[3]); // codes 48..63
        store_plane_result(3, off, tail, p[1]);
    }

    /// The 32 codes at element off looked up and stored.
    void look_up(int u, int off, bool tail) {
        const Zmm c(vreg(u, 0).getIdx()), a(vreg(u, 1).getIdx()), b(vreg(u, 2).getIdx());
        vpmovzxbw(tail ? c | k1 | T_z : c, ptr[reg_src + off]);
        const auto z = [](const Vmm &v) { return Zmm(v.getIdx()); };
        vmovdqa64(a, z(v_tab[0]));
        vpermt2w(a, c, z(v_tab[1])); // codes 0..63 (index bits 5..0)
        vmovdqa64(b, z(v_tab[2]));
        vpermt2w(b, c, z(v_tab[3])); // codes 64..127
        vptestmw(k2, c, z(v_bit6));
        vpblendmw(a | k2, a, b);
        vpsllw(c, c, 8); // the code's sign to bit 15
        vpternlogd(a, c, z(v_sign), 0x78); // a ^ (c & 0x8000)
        const Address d = ptr[reg_dst + off * 2];
        vmovdqu16(tail ? d | k1 : d, a);
    }

    // avx2, e4m3 / e5m2 to bf16 / f16 with a broadcast scale: byte_lookup() (docs/kernels.md
    // "float8 dequantize by byte tables"). Every result is a 16-bit code, and for the normal
    // codes (exponent field 1 and up) whose products stay in the destination's normal range,
    // 16 codes further up the code space (2 exponents for e4m3, 4 for e5m2) give the same
    // result times a power of two: the same low byte and a high byte larger by a step (the
    // exponent field moves by a whole number of high-byte units). So a code's result is
    //   lo = T1L[i1] ^ T2L[i2],  hi = (T1H[i1] ^ T2H[i2]) + T3[code >> 4]   (bytes, mod 256)
    // with vpshufb tables of 16 entries, built per row from the kernel's own arithmetic:
    //   r = (code + K) & 0x7f rotates the specials (zero and the subnormal codes, the NaN
    //       codes and e5m2's Inf: exponent field 0 or all ones) to r < S, the normal codes
    //       to r >= S, both in code order;
    //   i1 = r - S: a normal code's index (bit 7 clear), a special's bit 7 set (T1 gives 0);
    //   i2 = r + 0x80 - S: a special's index (nibbles 16 - S .. 15), a normal's bit 7 set;
    //   T3[j] = the sign (j & 8) and (j & 7) steps: code >> 4 is the code's sign and its
    //       magnitude's top bits, so + T3 adds the sign bit (mod 256: flips it) and the
    //       power of two of the code's place above its table entry; T1H and T2H hold their
    //       entries less what T3 adds for their own codes.
    // A negative code's result is its magnitude's with the sign flipped (s finite nonzero:
    // (-x) * s = -(x * s) under round to nearest even; a NaN code gives its own quiet NaN,
    // with the code's sign; Inf * s is an Inf). T1 holds the top 16 normal codes, each
    // lower normal code a whole number of steps below its entry: exact where the entry's and
    // the code's |x * s| both lie in [the destination's smallest normal, its largest finite
    // value], as there f32 and the destination's rounding commute with powers of two and a
    // result's exponent field is the power's sum. byte_lookup_bounds() keeps every entry
    // there; the codes whose product falls below the smallest normal are the lowest normal
    // codes, none where |s| is at least bounds.all. f16 rows with a smaller |s| count them
    // (count_low_codes(), at most 16) and take their results from T4, a table of the 16
    // lowest normal codes' results built per row as T2 is, blended over T1's where i1 is
    // below that count (byte_look_up() with low_tables). Other scales (0, NaN, Inf, tiny or
    // huge ones) and short rows take the arithmetic loop.
    bool byte_lookup() const {
        if (avx512 || lanes()) return false;
        if (c_.src_dt != data_type::f8_e4m3 && c_.src_dt != data_type::f8_e5m2) return false;
        if (c_.dst_dt != data_type::bf16 && c_.dst_dt != data_type::f16) return false;
        const byte_bounds b = byte_lookup_bounds();
        return b.lo <= b.hi;
    }
    static constexpr int min_byte_lookup_row = 256;
    bool e4m3() const { return c_.src_dt == data_type::f8_e4m3; }
    /// The specials' rotation and count (see byte_lookup()): e4m3 NaN 0x7f to 0, exponent
    /// field 0 to 1..8; e5m2 Inf and NaN 0x7c..0x7f to 0..3, exponent field 0 to 4..7.
    int rot_k() const { return e4m3() ? 1 : 4; }
    int specials() const { return e4m3() ? 9 : 8; }
    /// The normal codes: first_normal() .. top_normal() (e4m3 8..0x7e, e5m2 4..0x7b); i1 is
    /// a normal code's magnitude less first_normal().
    int first_normal() const { return specials() - rot_k(); }
    int top_normal() const { return 127 - rot_k(); }
    /// The high-byte step of 16 codes: 2 (e4m3) or 4 (e5m2) exponents, the exponent field
    /// at bit 7 (bf16) or 10 (f16).
    int hi_step() const { return ((e4m3() ? 2 : 4) << (c_.dst_dt == data_type::bf16 ? 7 : 10)) >> 8; }
    /// |s| the tables take, [lo, hi]: |s| * x_max at most the destination's largest finite
    /// value (bf16: 2^127 suffices), and from `all` up every normal code's product at least
    /// its smallest normal (|s| * x_min_normal); f16 rows from lo up, where at most the 16
    /// lowest normal codes' products fall below it (|s| * the 17th's at least 2^-14), take T4
    /// for those (bf16 keeps lo = all). T1's entries, the top 16 normal codes, are then far
    /// inside the normal range.
    struct byte_bounds {
        float lo, all, hi;
    };
    byte_bounds byte_lookup_bounds() const {
        const data_type_facts &x = facts_of(c_.src_dt);
        const double x_min = std::ldexp(1.0, 1 - x.bias);
        const bool bf16 = c_.dst_dt == data_type::bf16;
        const double d_min = std::ldexp(1.0, bf16 ? -126 : -14);
        const double d_max = bf16 ? std::ldexp(1.0, 127) : 65504.0;
        byte_bounds b;
        b.all = static_cast<float>(d_min / x_min); // a power of two, exact
        b.hi = static_cast<float>(d_max / x.max);
        while (static_cast<double>(b.hi) * x.max > d_max) b.hi = std::nextafter(b.hi, 0.f);
        b.lo = b.all;
        if (!bf16) {
            // At most the 16 lowest normal codes below the smallest normal (T4's).
            const uint32_t code17 = static_cast<uint32_t>(first_normal() + 16);
            const double x17 = minifloat_to_f32(c_.src_dt, code17);
            b.lo = static_cast<float>(d_min / x17); // a power of two, exact
        }
        return b;
    }
    /// The code, 0..127, of the table entry i of T1 (i < 16) or T2 (16 + j; -1 where no
    /// special has nibble j).
    int entry_code(int i) const {
        if (i < 16) { // the top normal code of nibble i
            const int top = top_normal(), nib = (top - first_normal()) & 15;
            return top - ((nib - i) & 15);
        }
        const int r = i - 16 - (16 - specials());
        return r < 0 ? -1 : (r - rot_k()) & 0x7f;
    }
    /// What + T3 adds to the high byte of the non-negative code c.
    int t3_of(int c) const { return hi_step() * (c >> 4 & 7) + (c & 0x80); }

    enum byte_const { b_codes = 0, b_split = 32, b_adj1 = 64, b_adj2 = 96, b_t3 = 128,
        b_nibble = 160, b_k = 192, b_mag = 224, b_k2 = 256, b_s = 288, b_abs = 320,
        b_d_min = 352, b_low = 384, b_adj4 = 400, b_normals = 448, b_size = 576 };
    /// count_low_codes()' vectors of normal codes (the last one padded with the top code).
    int normal_vectors() const { return (top_normal() - first_normal() + 8) / 8; }
    Address bcst(int off) { return ptr[rip + l_bytes + off]; }

    void emit_byte_constants() {
        uint8_t b[b_size] = {};
        for (int i = 0; i < 32; ++i) {
            const int c = entry_code(i);
            b[b_codes + i] = static_cast<uint8_t>(c < 0 ? 0 : c);
        }
        for (int i = 0; i < 8; ++i) {
            b[b_split + i] = static_cast<uint8_t>(2 * i); // the low bytes of 8 words,
            b[b_split + 8 + i] = static_cast<uint8_t>(2 * i + 1); // then the high bytes
        }
        for (int l = 0; l < 32; l += 16)
            for (int j = 0; j < 16; ++j) {
                const int c2 = entry_code(16 + j);
                b[b_adj1 + l + j] = static_cast<uint8_t>(t3_of(entry_code(j)));
                b[b_adj2 + l + j] = static_cast<uint8_t>(c2 < 0 ? 0 : t3_of(c2));
                b[b_t3 + l + j] = static_cast<uint8_t>(t3_of(j << 4));
            }
        for (int i = 0; i < 32; ++i) {
            b[b_nibble + i] = 0x0f;
            b[b_k + i] = static_cast<uint8_t>(rot_k());
            b[b_mag + i] = 0x7f;
            b[b_k2 + i] = static_cast<uint8_t>(0x80 - specials());
            b[b_s + i] = static_cast<uint8_t>(specials());
        }
        for (int i = 0; i < 8; ++i) {
            const uint32_t words[2] = {0x7fffffffu, f32_bits(0x1p-14f)};
            for (int j = 0; j < 2; ++j)
                std::memcpy(b + (j ? b_d_min : b_abs) + 4 * i, &words[j], 4);
        }
        for (int j = 0; j < 16; ++j) {
            b[b_low + j] = static_cast<uint8_t>(first_normal() + j); // T4's codes
            b[b_adj4 + j] = b[b_adj4 + 16 + j] = static_cast<uint8_t>(t3_of(first_normal() + j));
        }
        for (int i = 0; i < 8 * normal_vectors(); ++i)
            b[b_normals + i] = static_cast<uint8_t>(std::min(first_normal() + i, top_normal()));
        align(32);
        L(l_bytes);
        for (uint8_t v : b)
            db(v);
    }

    // byte_lookup_loop()'s registers: the tables (T3 too) above the work registers of two
    // 32-code units (vreg(u, 0..4)); the bf16 constants and zp, unused there, give way.
    Vmm btab(int i) const { return Vmm(10 + i); } // T3, T1L, T1H, T2L, T2H

    /// One row by byte tables when |s| is in byte_lookup_bounds() and the row is long
    /// enough, else by loop(). The remaining n % 32 codes take loop() too.
    void byte_lookup_row() {
        Label l_arith, l_counted, l_done;
        const byte_bounds b = byte_lookup_bounds();
        const Address s = dword[reg_prm + offsetof(dequantize_params, s)];
        cmp(reg_n, min_byte_lookup_row);
        jl(l_arith, T_NEAR);
        mov(eax, s);
        and_(eax, 0x7fffffff);
        sub(eax, f32_bits(b.lo)); // as unsigned: |s| below lo wraps to the largest
        cmp(eax, f32_bits(b.hi) - f32_bits(b.lo));
        ja(l_arith, T_NEAR);
        build_byte_tables();
        const auto advance_bytes = [&](int elems) {
            add(reg_src, elems);
            add(reg_dst, elems * 2);
        };
        if (b.lo < b.all) {
            mov(eax, s);
            and_(eax, 0x7fffffff);
            cmp(eax, f32_bits(b.all));
            jb(l_counted, T_NEAR);
        }
        Label l_plain;
        L(l_plain);
        element_loop(
                reg_n, 32, 2, false, [&](int u, int off, bool) { byte_look_up(u, off); },
                advance_bytes);
        if (b.lo < b.all) {
            jmp(l_done, T_NEAR);
            L(l_counted);
            const low_tables low = build_low_table();
            count_low_codes(); // ecx, at most 16 here
            test(ecx, ecx);
            jz(l_plain, T_NEAR); // every product rounds to a normal
            dec(ecx);
            vmovd(Xmm(low.count_less_one.getIdx()), ecx);
            vpbroadcastb(low.count_less_one, Xmm(low.count_less_one.getIdx()));
            element_loop(
                    reg_n, 32, 1, false, [&](int, int off, bool) { byte_look_up(0, off, &low); },
                    advance_bytes);
            L(l_done);
        }
        if (c_.dst_dt == data_type::bf16) load_bf16_constants(); // the tables took them
        L(l_arith);
        loop(bf16_path::rounded); // float8 codes: NaN among them
    }

    /// T4 (the results of the 16 lowest normal codes, low and high bytes in both lanes, the
    /// high ones less what T3 adds for their codes) and the registers byte_look_up() reads
    /// with it, above one 32-code unit's (vreg(0, 0..4)); the caller fills count_less_one.
    struct low_tables {
        Vmm count_less_one, lo, hi, mask, scratch;
    };
    low_tables build_low_table() {
        const low_tables t {Vmm(5), Vmm(6), Vmm(7), Vmm(8), Vmm(9)};
        const Xmm split(t.scratch.getIdx()), first(t.mask.getIdx());
        vmovdqu(split, bcst(b_split));
        with_codes_at(b_low, [&] {
            table_bytes(0, Xmm(t.lo.getIdx()), Xmm(t.hi.getIdx()), first, split);
        });
        vpermq(t.lo, t.lo, 0x44); // the 16 bytes in both lanes
        vpermq(t.hi, t.hi, 0x44);
        vpsubb(t.hi, t.hi, bcst(b_adj4));
        return t;
    }

    /// ecx = the number of normal codes whose |x * s| is below f16's smallest normal, from
    /// compute() on every normal code: they are the lowest ones (i1 below that number). Uses
    /// vreg(0, 0..4) and eax.
    void count_low_codes() {
        const Vmm y = vreg(0, 0);
        xor_(ecx, ecx);
        with_codes_at(b_normals, [&] {
            for (int v = 0; v < normal_vectors(); ++v) {
                compute(0, 8 * v, false);
                vandps(y, y, bcst(b_abs));
                vcmpltps(y, y, bcst(b_d_min));
                vmovmskps(eax, y);
                popcnt(eax, eax);
                add(ecx, eax);
            }
        });
    }

    /// fn's compute() calls read the codes of the byte constants at `off` (reg_ls, unused
    /// without lane parameters, keeps the row's source).
    template <typename Fn>
    void with_codes_at(int off, Fn &&fn) {
        mov(reg_ls, reg_src);
        lea(reg_src, bcst(off));
        fn();
        mov(reg_src, reg_ls);
    }

    /// The results of the 16 codes at element off (compute(), rounded as store() rounds
    /// them) as two byte rows: their low bytes into lo, their high bytes into hi. first holds
    /// codes 0-7's bytes meanwhile; split is b_split's shuffle. Uses vreg(0, 0..4).
    void table_bytes(int off, const Xmm &lo, const Xmm &hi, const Xmm &first, const Xmm &split) {
        for (int h = 0; h < 2; ++h) {
            compute(0, off + 8 * h, false);
            const Xmm w = to_words_avx2();
            vpshufb(h ? w : first, w, split); // 8 low bytes, then 8 high bytes
        }
        vpunpcklqdq(lo, first, Xmm(1));
        vpunpckhqdq(hi, first, Xmm(1));
    }

    /// T1 and T2 from compute() and store()'s rounding of their codes (entry_code()), T3.
    void build_byte_tables() {
        const Xmm split = Xmm(9);
        vmovdqu(split, bcst(b_split));
        // The byte rows of T1 (L, H) in xmm 5, 6 and T2's in 7, 8; entries 0-7 wait in 10.
        const Xmm first(10);
        with_codes_at(b_codes, [&] {
            for (int t = 0; t < 2; ++t)
                table_bytes(16 * t, Xmm(5 + 2 * t), Xmm(6 + 2 * t), first, split);
        });
        vmovdqu(btab(0), bcst(b_t3));
        for (int i = 0; i < 4; ++i)
            vpermq(btab(1 + i), Vmm(5 + i), 0x44); // the 16 bytes in both lanes
        vpsubb(btab(2), btab(2), bcst(b_adj1));
        vpsubb(btab(4), btab(4), bcst(b_adj2));
    }

    /// compute()'s result of vector 0 rounded to the destination as store() rounds it: 8
    /// words in xmm 1 (returned); vreg(0, 2) is scratch.
    Xmm to_words_avx2() {
        const Vmm x = vreg(0, 0), t = vreg(0, 1), n = vreg(0, 2);
        const Xmm tx(t.getIdx()), nx(n.getIdx());
        if (c_.dst_dt == data_type::f16) {
            vcvtps2ph(tx, x, 0);
            return tx;
        }
        bf16_rounding<isa>(*this, v_one, v_round, v_quiet).round(t, x, n, k2);
        vextracti128(nx, t, 1);
        vpackusdw(tx, tx, nx); // every value < 2^16: exact
        return tx;
    }

    /// The 32 codes at element off looked up and stored (registers vreg(u, 0..4)); with
    /// `low`, the lowest normal codes' results from T4.
    void byte_look_up(int u, int off, const low_tables *low = nullptr) {
        const Vmm c = vreg(u, 0), t = vreg(u, 1), i2 = vreg(u, 2), lo = vreg(u, 3),
                  hi = vreg(u, 4);
        // Qwords 0, 2, 1, 3: the unpacks below then leave codes 0-15 and 16-31 in order.
        vpermq(c, ptr[reg_src + off], 0xd8);
        vpsrlw(t, c, 4);
        vpand(t, t, bcst(b_nibble));
        vpshufb(t, btab(0), t); // T3[code >> 4]
        vpaddb(c, c, bcst(b_k));
        vpand(c, c, bcst(b_mag)); // r
        vpaddb(i2, c, bcst(b_k2));
        vpsubb(c, c, bcst(b_s)); // i1
        vpshufb(lo, btab(1), c);
        vpshufb(hi, btab(2), c);
        if (low) { // where i1 <= count - 1 (unsigned: a special's i1 is 0x80 or more), whose
            // T2 entries are 0
            vpmaxub(low->mask, c, low->count_less_one);
            vpcmpeqb(low->mask, low->mask, low->count_less_one);
            vpshufb(low->scratch, low->lo, c);
            vpblendvb(lo, lo, low->scratch, low->mask);
            vpshufb(low->scratch, low->hi, c);
            vpblendvb(hi, hi, low->scratch, low->mask);
        }
        vpshufb(c, btab(3), i2);
        vpxor(lo, lo, c);
        vpshufb(i2, btab(4), i2);
        vpxor(hi, hi, i2);
        vpaddb(hi, hi, t);
        vpunpcklbw(c, lo, hi);
        vpunpckhbw(lo, lo, hi);
        vmovdqu(ptr[reg_dst + off * 2], c);
        vmovdqu(ptr[reg_dst + off * 2 + 32], lo);
    }

    void advance(int elems) {
        add(reg_src, elems * src_size());
        add(reg_dst, elems * dst_size());
        if (!lanes()) return;
        add(reg_ls, elems * 4);
        add(reg_lzp, elems * zp_size());
    }

    /// n values of type dt at `at`, widened to s32 (masked, zeroing, for the tail).
    void load_int(const Vmm &v, const RegExp &at, data_type dt, bool tail) {
        const Vmm vd = tail ? Vmm(v | k1 | T_z) : v;
        switch (dt) {
            case data_type::u8: vpmovzxbd(vd, ptr[at]); break;
            case data_type::s8: vpmovsxbd(vd, ptr[at]); break;
            case data_type::u16: vpmovzxwd(vd, ptr[at]); break;
            case data_type::s16: vpmovsxwd(vd, ptr[at]); break;
            default:
                if (avx512)
                    vmovdqu32(vd, ptr[at]);
                else
                    vmovdqu(v, ptr[at]);
                break;
        }
    }

    /// y = f32(x - zp) * s of the vector at element off into vreg(u, 0).
    void compute(int u, int off, bool tail) {
        const Vmm x = vreg(u, 0);
        Vmm s = v_s, zp = v_zp;
        if (float8() && f8_->decodes_as_f16()) {
            // The codes as words (16 of them fill a ymm on avx512, 8 an xmm on avx2).
            f8_->load_words(vreg(u, 3), ptr[reg_src + off], tail);
            f8_->decode_f16(x, vreg(u, 3), vreg(u, 1)); // x = f32(code), exact
        } else if (float8()) {
            const Vmm code = vreg(u, 3);
            load_int(code, reg_src + off * src_size(), data_type::u8, tail);
            f8_->decode(x, code, vreg(u, 4), vreg(u, 2), vreg(u, 1)); // x = f32(code), exact
        } else {
            load_int(x, reg_src + off * src_size(), c_.src_dt, tail);
        }
        if (lanes()) {
            s = vreg(u, 1);
            if (tail)
                vmovups(s | k1 | T_z, ptr[reg_ls + off * 4]);
            else
                vmovups(s, ptr[reg_ls + off * 4]);
            if (c_.has_zp) {
                zp = vreg(u, 2);
                load_int(zp, reg_lzp + off * zp_size(),
                        c_.lanes == lane_source::raw ? c_.raw_zp_dt : data_type::s32, tail);
            }
        }
        if (c_.has_zp) vpsubd(x, x, zp);
        if (!float8()) { // float8: x is its f32 value already
            if (avx512)
                vcvtdq2ps(x, x | T_rn_sae);
            else
                vcvtdq2ps(x, x); // MXCSR: round to nearest even (qgraph's required environment)
        }
        vmulps(x, x, s);
    }

    /// compute()'s result for vector u stored at element off, rounded to the destination.
    void store(int u, int off, bool tail, bf16_path path) {
        const Vmm x = vreg(u, 0);
        const Address d = ptr[reg_dst + off * dst_size()];
        switch (c_.dst_dt) {
            case data_type::bf16:
                if (path != bf16_path::insn) {
                    store_bf16(d, x, vreg(u, 1), vreg(u, 2), tail, path == bf16_path::no_nan);
                } else {
                    // Round to nearest even, NaN quiet: exact here, as no result is subnormal.
                    const Ymm h(x.getIdx());
                    vcvtneps2bf16(h, x);
                    vmovdqu16(tail ? Address(d | k1) : d, h);
                }
                break;
            case data_type::f16: store_f16(tail ? Address(d | k1) : d, x); break;
            default:
                if (tail)
                    vmovups(d | k1, x);
                else if (c_.stream)
                    vmovntps(d, x); // no read for ownership: the line is not cached
                else
                    vmovups(d, x);
        }
    }

    /// f32 -> bf16 exactly (jit_bf16_emitter.hpp); `no_nan`: x holds no NaN. x is consumed;
    /// t and n are scratch.
    void store_bf16(
            const Address &d, const Vmm &x, const Vmm &t, const Vmm &n, bool tail, bool no_nan) {
        bf16_rounding<isa> r(*this, v_one, v_round, v_quiet);
        if (no_nan) {
            r.round_no_nan(t, x);
            vpsrld(t, t, 16);
        } else {
            r.round(t, x, n, k2);
        }
        if (avx512) {
            vpmovdw(tail ? Address(d | k1) : d, t); // every value < 2^16: exact
            return;
        }
        const Xmm tx(t.getIdx()), nx(n.getIdx());
        vextracti128(nx, Ymm(t.getIdx()), 1);
        vpackusdw(tx, tx, nx); // every value < 2^16: exact
        vmovdqu(d, tx);
    }
};

#undef CALL

} // namespace

jit_dequantize_kernel::jit_dequantize_kernel(const dequantize_conf &conf)
    : jit_code(generate_for_isa<dequantize_generator>(conf.isa, conf)) {}

} // namespace jit
} // namespace impl
} // namespace qgraph
