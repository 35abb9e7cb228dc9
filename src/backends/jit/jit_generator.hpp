#ifndef QGRAPH_BACKENDS_JIT_JIT_GENERATOR_HPP
#define QGRAPH_BACKENDS_JIT_JIT_GENERATOR_HPP

// The base of every generated kernel: an Xbyak code buffer with the System V calling
// convention around it. A kernel is a function `void f(const Call *args)`: the only argument
// arrives in rdi, and the generated code reads its fields by offsetof. Code is generated once,
// in the constructor of a derived class (at compile), and is read-only and executable after.

#include <cstddef>

#include <xbyak/xbyak.h>

#include "backends/jit/jit_code_pool.hpp"
#include "backends/jit/jit_dump.hpp"
#include "common/cpu_isa.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// Vector register type and width for each kernel ISA.
template <cpu_isa_t isa>
struct isa_traits;
template <>
struct isa_traits<avx2> {
    using Vmm = Xbyak::Ymm;
    static constexpr int vlen = 8; // f32 lanes
    static constexpr int nregs = 16;
};
template <>
struct isa_traits<avx512_core> {
    using Vmm = Xbyak::Zmm;
    static constexpr int vlen = 16;
    static constexpr int nregs = 32;
};

class jit_generator : public Xbyak::CodeGenerator {
public:
    // A fixed-size buffer from the code pool (no AutoGrow: it would move the code after we
    // have taken its address). The buffer is writable while code is generated and becomes
    // read+execute, never writable and executable at once, in finish().
    jit_generator()
        : Xbyak::CodeGenerator(
                code_pool::buffer_size, Xbyak::DontSetProtectRWE, &code_pool::get()) {}

    /// The entry point, valid after finish().
    template <typename Call>
    void (*entry() const)(const Call *) {
        return reinterpret_cast<void (*)(const Call *)>(const_cast<Xbyak::uint8 *>(getCode()));
    }

    /// x's f32 lanes stored at d as f16: nearest even (imm 0, whatever MXCSR says),
    /// subnormals kept, NaN made quiet. Converted in x's own register (x is lost), then
    /// stored: vcvtps2ph's memory form is far slower than the two on AMD Zen 3
    /// (docs/performance.md, "f16 stores"). d may carry avx512's tail mask.
    void store_f16(const Xbyak::Address &d, const Xbyak::Zmm &x) {
        vcvtps2ph(Xbyak::Ymm(x.getIdx()), x, 0);
        vmovdqu16(d, Xbyak::Ymm(x.getIdx()));
    }
    void store_f16(const Xbyak::Address &d, const Xbyak::Ymm &x) {
        vcvtps2ph(Xbyak::Xmm(x.getIdx()), x, 0);
        vmovdqu(d, Xbyak::Xmm(x.getIdx()));
    }

protected:
    const Xbyak::Reg64 abi_arg = rdi;

    /// Saves the callee-saved registers the kernels use (rbx, rbp, r12-r15).
    void preamble() {
        for (int i = 0; i < 6; ++i) push(saved()[i]);
    }
    /// Restores them, clears the upper vector state (avoids AVX-SSE transition penalties in
    /// the caller) and returns.
    void postamble() {
        for (int i = 5; i >= 0; --i) pop(saved()[i]);
        vzeroupper();
        ret();
    }
    /// The row loop of kernels whose Call has the row fields src, dst, n, rows,
    /// src_row_stride, dst_row_stride, prm and prm_step (bytes for strides, elements of
    /// sizeof(Param) for prm_step). Before each row, `src`, `dst` and `n` hold the row's start
    /// and length and `prm` its parameters; row() emits the row's code, which may change
    /// them, rax, rcx and rdx, but not rsp. The loop state lives in a 32-byte stack frame, so
    /// the kernels keep their registers for the element loop.
    template <typename Call, typename Param, typename Row>
    void row_loop(const Xbyak::Reg64 &src, const Xbyak::Reg64 &dst, const Xbyak::Reg64 &n,
            const Xbyak::Reg64 &prm, Row &&row) {
        using namespace Xbyak;
        const Address row_src = qword[rsp], row_dst = qword[rsp + 8],
                      rows_left = qword[rsp + 16], row_prm = qword[rsp + 24];
        const auto field = [&](size_t off) { return qword[abi_arg + off]; };
        Label l_row, l_done;
        sub(rsp, 32);
        mov(rax, field(offsetof(Call, rows)));
        test(rax, rax);
        jle(l_done, T_NEAR);
        mov(rows_left, rax);
        mov(rax, field(offsetof(Call, src)));
        mov(row_src, rax);
        mov(rax, field(offsetof(Call, dst)));
        mov(row_dst, rax);
        mov(rax, field(offsetof(Call, prm)));
        mov(row_prm, rax);

        L(l_row);
        mov(src, row_src);
        mov(dst, row_dst);
        mov(n, field(offsetof(Call, n)));
        mov(prm, row_prm);
        row();
        mov(rax, field(offsetof(Call, src_row_stride)));
        add(row_src, rax);
        mov(rax, field(offsetof(Call, dst_row_stride)));
        add(row_dst, rax);
        mov(rax, field(offsetof(Call, prm_step)));
        imul(rax, rax, static_cast<int>(sizeof(Param)));
        add(row_prm, rax);
        dec(rows_left);
        jnz(l_row, T_NEAR);
        L(l_done);
        add(rsp, 32);
    }

    /// The element loop every kernel shares, over the count in `n` (consumed): `unroll`
    /// vectors per iteration while that many are left, then one vector at a time, then, with
    /// `masked_tail` (avx512), the last n < vlen elements under k1. body(u, off, tail) emits
    /// vector u at element offset `off`; advance(elems) moves the kernel's pointers.
    template <typename Body, typename Advance>
    void element_loop(const Xbyak::Reg64 &n, int vlen, int unroll, bool masked_tail,
            Body &&body, Advance &&advance) {
        Xbyak::Label l_main, l_single, l_tail, l_done;
        L(l_main);
        cmp(n, unroll * vlen);
        jl(l_single, T_NEAR);
        for (int u = 0; u < unroll; ++u) body(u, u * vlen, false);
        advance(unroll * vlen);
        sub(n, unroll * vlen);
        jmp(l_main, T_NEAR);

        L(l_single);
        cmp(n, vlen);
        jl(l_tail, T_NEAR);
        body(0, 0, false);
        advance(vlen);
        sub(n, vlen);
        jmp(l_single, T_NEAR);

        L(l_tail);
        if (masked_tail) {
            test(n, n);
            jz(l_done, T_NEAR);
            set_tail_mask(n);
            body(0, 0, true);
        }
        L(l_done);
    }

    /// k1 = the low n bits set, n = the element count left in `n` (< 16): the opmask of an
    /// avx512 tail. Masked-off lanes are neither loaded (AVX-512 suppresses their faults) nor
    /// stored, so no byte past either buffer is touched. Uses eax and rcx.
    void set_tail_mask(const Xbyak::Reg64 &n) {
        mov(rcx, n);
        mov(eax, 1);
        shl(eax, cl);
        sub(eax, 1);
        kmovw(k1, eax);
    }

    /// Makes the buffer read+execute; call once, after the last instruction. `kind` and
    /// `isa` name the code where QGRAPH_JIT_DUMP asks for it (jit_dump.hpp).
    void finish(const char *kind, cpu_isa_t isa) {
        ready(); // checks every label is defined
        dump_code(kind, isa, getCode(), getSize());
        setProtectModeRE();
    }

private:
    static const Xbyak::Reg64 *saved() {
        static const Xbyak::Reg64 regs[6] = {Xbyak::util::rbx, Xbyak::util::rbp,
                Xbyak::util::r12, Xbyak::util::r13, Xbyak::util::r14, Xbyak::util::r15};
        return regs;
    }
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
