#include "backends/jit/jit_lookup.hpp"

#include <cstddef>

namespace qgraph {
namespace impl {
namespace jit {
namespace {

using namespace Xbyak;

class lookup_generator : public jit_generator {
public:
    explicit lookup_generator(bool vbmi) : vbmi_(vbmi) {
        preamble();
        if (vbmi_) {
            row_loop<lookup_call, vbmi_table>(reg_src, reg_dst, reg_n, reg_prm, [&] {
                for (int i = 0; i < 4; ++i) vmovdqu8(Zmm(i), ptr[reg_prm + 64 * i]);
                loop(64, 4, [&](int k, bool tail) { vbmi_block(k, tail); });
            });
        } else {
            mov(eax, 0x10);
            vmovd(Xmm(c16), eax);
            vpbroadcastb(Ymm(c16), Xmm(c16));
            mov(eax, 0x80);
            vmovd(Xmm(c80), eax);
            vpbroadcastb(Ymm(c80), Xmm(c80));
            row_loop<lookup_call, avx2_table>(reg_src, reg_dst, reg_n, reg_prm,
                    [&] { loop(32, 4, [&](int k, bool) { avx2_block(k); }); });
        }
        postamble();
        finish("lookup", vbmi_ ? avx512_core : avx2);
    }

private:
    const bool vbmi_;
    const Reg64 reg_src = r8, reg_dst = r9, reg_n = r10, reg_prm = r11;
    // avx2: the constants 0x10 and 0x80 in every byte, the table row, the lookup result.
    static constexpr int c16 = 15, c80 = 14, tbl = 12, looked = 13;

    /// `unroll` vectors of vlen bytes per iteration while that many are left, then one at a
    /// time, then (vbmi) the last n < 64 bytes under k1. block(k, tail) does k vectors.
    template <typename Block>
    void loop(int vlen, int unroll, Block &&block) {
        Label l_main, l_single, l_tail, l_done;
        L(l_main);
        cmp(reg_n, unroll * vlen);
        jl(l_single, T_NEAR);
        block(unroll, false);
        add(reg_src, unroll * vlen);
        add(reg_dst, unroll * vlen);
        sub(reg_n, unroll * vlen);
        jmp(l_main, T_NEAR);
        L(l_single);
        cmp(reg_n, vlen);
        jl(l_tail, T_NEAR);
        block(1, false);
        add(reg_src, vlen);
        add(reg_dst, vlen);
        sub(reg_n, vlen);
        jmp(l_single, T_NEAR);
        L(l_tail);
        if (vbmi_) {
            test(reg_n, reg_n);
            jz(l_done, T_NEAR);
            mov(rax, -1);
            bzhi(rax, rax, reg_n); // the low n bits
            kmovq(k1, rax);
            block(1, true);
        }
        L(l_done);
    }

    /// k vectors of 64 bytes; the table in zmm0-3, vector u in zmm 4 + 3u .. 6 + 3u.
    void vbmi_block(int k, bool tail) {
        for (int u = 0; u < k; ++u) {
            const Zmm x(4 + 3 * u), lo(5 + 3 * u), hi(6 + 3 * u);
            const Address src = ptr[reg_src + 64 * u];
            if (tail)
                vmovdqu8(x | k1 | T_z, src);
            else
                vmovdqu8(x, src);
            vmovdqa64(lo, x);
            vpermi2b(lo, Zmm(0), Zmm(1)); // entries 0..127 by bits 0-6
            vmovdqa64(hi, x);
            vpermi2b(hi, Zmm(2), Zmm(3)); // entries 128..255
            vpmovb2m(k2, x);
            vmovdqu8(lo | k2, hi); // bit 7 set: the high half's
            const Address dst = ptr[reg_dst + 64 * u];
            if (tail)
                vmovdqu8(dst | k1, lo);
            else
                vmovdqu8(dst, lo);
        }
    }

    /// k vectors of 32 bytes: x in ymm 3u, the running index v in 3u + 1, the result in 3u + 2.
    void avx2_block(int k) {
        const auto x = [](int u) { return Ymm(3 * u); };
        const auto v = [](int u) { return Ymm(3 * u + 1); };
        const auto y = [](int u) { return Ymm(3 * u + 2); };
        for (int u = 0; u < k; ++u) vmovdqu(x(u), ptr[reg_src + 32 * u]);
        for (int j = 0; j < 16; ++j) {
            vmovdqu(Ymm(tbl), ptr[reg_prm + 32 * j]);
            for (int u = 0; u < k; ++u) {
                if (j == 0)
                    vmovdqa(v(u), x(u));
                else if (j == 8)
                    vpxor(v(u), x(u), Ymm(c80));
                else
                    vpsubsb(v(u), v(u), Ymm(c16));
                if (j == 0) {
                    vpshufb(y(u), Ymm(tbl), v(u));
                } else {
                    vpshufb(Ymm(looked), Ymm(tbl), v(u));
                    vpxor(y(u), y(u), Ymm(looked));
                }
            }
        }
        for (int u = 0; u < k; ++u) vmovdqu(ptr[reg_dst + 32 * u], y(u));
    }
};

} // namespace

void make_avx2_table(const uint8_t *table, uint8_t *out) {
    for (int j = 0; j < 16; ++j)
        for (int i = 0; i < 16; ++i) {
            // The difference to the previous row, restarting at rows 0 and 8.
            const uint8_t prev = j % 8 == 0 ? 0 : table[16 * (j - 1) + i];
            const uint8_t d = static_cast<uint8_t>(table[16 * j + i] ^ prev);
            out[32 * j + i] = d;
            out[32 * j + 16 + i] = d;
        }
}

jit_lookup_kernel::jit_lookup_kernel(bool vbmi)
    : jit_code(std::make_unique<lookup_generator>(vbmi)) {}

} // namespace jit
} // namespace impl
} // namespace qgraph
