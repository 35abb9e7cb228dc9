#ifndef QGRAPH_BACKENDS_JIT_JIT_DIVISION_EMITTER_HPP
#define QGRAPH_BACKENDS_JIT_JIT_DIVISION_EMITTER_HPP

// The division of jit_division.hpp as instructions: q = x / s on the reciprocal, multiply or
// divide path. The quantize kernels emit their division only through this class, and the
// exhaustive division test (tests/jit) builds its quotient kernel on it too, so the test
// checks the very sequence the kernels run.

#include <cstdint>
#include <limits>

#include "backends/jit/jit_division.hpp"
#include "backends/jit/jit_generator.hpp"
#include "common/half_types.hpp"

namespace qgraph {
namespace impl {
namespace jit {

template <cpu_isa_t isa>
class division_emitter {
    using Vmm = typename isa_traits<isa>::Vmm;
    static constexpr bool avx512 = isa == avx512_core;

public:
    explicit division_emitter(jit_generator &g) : g_(g) {}

    /// Before the first division. avx512: `fix` becomes the register that holds
    /// vfixupimmps's table for the whole kernel (uses eax). avx2: nothing; its divisions read
    /// emit_constants()' vectors instead.
    void set_up(const Vmm &fix) {
        if (!avx512) return;
        fix_ = fix;
        // vfixupimmps token table, 4 bits per input class: QNaN, SNaN, -Inf and +Inf
        // become +0 (token 8); every other class keeps the value (token 1).
        g_.mov(g_.eax, 0x11881188);
        g_.vpbroadcastd(fix_, g_.eax);
    }

    /// q = x / s on `path` (recip, multiply or divide); x and t may be overwritten. y_hi,
    /// y_a and y_b are make_recip(s)'s, as the path needs them.
    void divide(div_path path, const Vmm &q, const Vmm &x, const Vmm &t, const Vmm &s,
            const Vmm &yhi, const Vmm &ya, const Vmm &yb) {
        if (path == div_path::recip)
            divide_recip(q, x, t, s, yhi, ya, yb);
        else if (path == div_path::multiply)
            g_.vmulps(q, x, yhi); // exact 1/s, or a quotient rounded after (jit_division.hpp)
        else
            g_.vdivps(q, x, s);
    }

    /// q = x / s on the reciprocal path; x becomes the residual, t scratch.
    void divide_recip(const Vmm &q, const Vmm &x, const Vmm &t, const Vmm &s, const Vmm &yhi,
            const Vmm &ya, const Vmm &yb) {
        g_.vmulps(q, x, yb);
        g_.vfmadd231ps(q, x, ya);
        g_.vfnmadd231ps(x, q, s);
        reset_non_finite(x, t);
        g_.vfmadd231ps(q, x, yhi);
    }

    /// divide_recip() for x finite with |x / s| <= 2^26 (the caller clamps x): the residual
    /// is then finite (jit_division.hpp: exact in the domain, below 2^-33 under it), so the
    /// reset of non-finite residuals has nothing to do and is left out. x becomes the residual.
    void divide_recip_bounded(const Vmm &q, const Vmm &x, const Vmm &s, const Vmm &yhi,
            const Vmm &ya, const Vmm &yb) {
        g_.vmulps(q, x, yb);
        g_.vfmadd231ps(q, x, ya);
        g_.vfnmadd231ps(x, q, s);
        g_.vfmadd231ps(q, x, yhi);
    }

    /// avx2: the constants the divisions read (64 bytes, 32-byte aligned), placed where the
    /// caller puts data, after the code. Nothing on avx512.
    void emit_constants() {
        if (avx512) return;
        g_.align(32);
        g_.L(l_consts_);
        for (uint32_t v : {0x7fffffffu, f32_bits(std::numeric_limits<float>::infinity())})
            for (int i = 0; i < 8; ++i) g_.dd(v);
    }

private:
    jit_generator &g_;
    Vmm fix_; // avx512
    Xbyak::Label l_consts_; // avx2: |x| mask, +Inf
    enum avx2_const { c_abs = 0, c_inf = 32 };

    /// r = 0 where r is NaN or +-Inf (jit_division.hpp), else r.
    void reset_non_finite(const Vmm &r, const Vmm &tmp) {
        if (avx512) {
            g_.vfixupimmps(r, r, fix_, 0);
        } else {
            g_.vandps(tmp, r, g_.ptr[g_.rip + l_consts_ + c_abs]);
            // |r| < Inf, ordered: false for NaN and Inf
            g_.vcmpps(tmp, tmp, g_.ptr[g_.rip + l_consts_ + c_inf], 1);
            g_.vandps(r, r, tmp);
        }
    }
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
