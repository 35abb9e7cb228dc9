#include "backends/jit/jit_dequantize_transposed.hpp"

#include <cstddef>
#include <memory>

namespace qgraph {
namespace impl {
namespace jit {
namespace {

using namespace Xbyak;

#define CALL(field) ptr[abi_arg + offsetof(dequantize_transposed_call, field)]

// The block below is written for these: a ymm of 32 bytes per T, 16 ymm rows per block.
static_assert(jit_dequantize_transposed_kernel::block_k == 32
                && jit_dequantize_transposed_kernel::block_t == 16,
        "the generator's register layout");

class dequantize_transposed_generator : public jit_generator {
public:
    dequantize_transposed_generator(data_type src_dt, bool has_zp, bool lanes)
        : signed_(src_dt == data_type::s8), has_zp_(has_zp), lanes_(lanes) {
        generate();
    }

private:
    const bool signed_, has_zp_, lanes_;
    const Reg64 reg_src_t = r8, reg_dst_t = r9, reg_src_k = r10, reg_dst_k = r11, reg_row = r12,
                reg_out = r13, reg_ldk = r14, reg_ldk16 = r15, reg_ldt = rbx, reg_nk = rcx,
                reg_nt = rdx, reg_prm = rsi, reg_ls = rbp, reg_lzp = rax;
    // Lane parameters of the block's 32 K elements (two vectors each), loaded once a block.
    const Zmm v_ls[2] = {Zmm(18), Zmm(19)}, v_lzp[2] = {Zmm(20), Zmm(21)};

    void generate() {
        preamble();
        mov(reg_src_t, CALL(src));
        mov(reg_dst_t, CALL(dst));
        mov(reg_ldk, CALL(src_k_stride));
        mov(reg_ldk16, reg_ldk);
        shl(reg_ldk16, 4);
        mov(reg_ldt, CALL(dst_t_stride));
        mov(reg_prm, CALL(prm));
        mov(reg_nt, CALL(nt));
        Label l_t, l_k;
        L(l_t);
        mov(reg_src_k, reg_src_t);
        mov(reg_dst_k, reg_dst_t);
        mov(reg_nk, CALL(nk));
        if (lanes_) {
            mov(reg_ls, CALL(l_s));
            mov(reg_lzp, CALL(l_zp));
        }
        L(l_k);
        block();
        lea(reg_src_k, ptr[reg_src_k + reg_ldk16 * 2]); // 32 rows of K further
        add(reg_dst_k, 32 * 4);
        if (lanes_) {
            add(reg_ls, 32 * 4);
            if (has_zp_) add(reg_lzp, 32 * 4);
        }
        sub(reg_nk, 32);
        jnz(l_k, T_NEAR);
        add(reg_src_t, 16);
        mov(reg_out, reg_ldt);
        shl(reg_out, 4);
        add(reg_dst_t, reg_out); // 16 rows of T further
        sub(reg_nt, 16);
        jnz(l_t, T_NEAR);
        postamble();
        finish("dequantize_transposed", avx512_core);
    }

    /// 32 x 16 source bytes at reg_src_k -> 16 x 32 f32 at reg_dst_k. Rows i and 16 + i go to
    /// the two lanes of ymm i, then four rounds interleave row i with row i + 8 into rows 2i
    /// and 2i + 1 (jit_tiles.cpp's block_stack_ymm), ping-ponging between ymm0-15 and
    /// ymm16-31: ymm t ends holding column t, K 0-15 in its low lane and 16-31 in its high.
    void block() {
        mov(reg_row, reg_src_k);
        for (int i = 0; i < 16; ++i) {
            vmovdqu(Xmm(i), ptr[reg_row]);
            vinserti128(Ymm(i), Ymm(i), ptr[reg_row + reg_ldk16], 1);
            if (i < 15) add(reg_row, reg_ldk);
        }
        for (int round = 0; round < 4; ++round) {
            const int from = round % 2 ? 16 : 0, to = round % 2 ? 0 : 16;
            for (int i = 0; i < 8; ++i) {
                vpunpcklbw(Ymm(to + 2 * i), Ymm(from + i), Ymm(from + i + 8));
                vpunpckhbw(Ymm(to + 2 * i + 1), Ymm(from + i), Ymm(from + i + 8));
            }
        }
        if (lanes_)
            for (int h = 0; h < 2; ++h) {
                vmovups(v_ls[h], ptr[reg_ls + h * 64]);
                if (has_zp_) vmovdqu32(v_lzp[h], ptr[reg_lzp + h * 64]);
            }
        // As jit_dequantize.cpp's vector(): widen, x - zp, convert (nearest even), times s.
        const Zmm half[2] = {Zmm(16), Zmm(17)};
        const Zmm &lo = half[0], &hi = half[1];
        mov(reg_out, reg_dst_k);
        for (int t = 0; t < 16; ++t) {
            widen(lo, Xmm(t));
            vextracti128(Xmm(t), Ymm(t), 1);
            widen(hi, Xmm(t));
            for (int h = 0; h < 2; ++h) {
                const Zmm &x = half[h];
                if (has_zp_) {
                    if (lanes_)
                        vpsubd(x, x, v_lzp[h]);
                    else
                        vpsubd(x, x, ptr_b[reg_prm + offsetof(dequantize_params, zp)]);
                }
                vcvtdq2ps(x, x | T_rn_sae);
                if (lanes_)
                    vmulps(x, x, v_ls[h]);
                else
                    vmulps(x, x, ptr_b[reg_prm + offsetof(dequantize_params, s)]);
            }
            vmovups(ptr[reg_out], lo);
            vmovups(ptr[reg_out + 64], hi);
            if (t < 15) add(reg_out, reg_ldt);
        }
    }

    void widen(const Zmm &z, const Xmm &x) {
        if (signed_)
            vpmovsxbd(z, x);
        else
            vpmovzxbd(z, x);
    }
};

#undef CALL

} // namespace

jit_dequantize_transposed_kernel::jit_dequantize_transposed_kernel(
        data_type src_dt, bool has_zp, bool lanes)
    : jit_code(std::make_unique<dequantize_transposed_generator>(src_dt, has_zp, lanes)) {}

} // namespace jit
} // namespace impl
} // namespace qgraph
