#ifndef QGRAPH_COMMON_FP_ENV_HPP
#define QGRAPH_COMMON_FP_ENV_HPP

// The floating-point environment qgraph's numerics assume: MXCSR at its power-on value
// (round to nearest even, no flush-to-zero, no denormals-are-zero, exceptions masked).
// Generated code converts with vcvtps2dq and divides with the current rounding mode, and the
// reference backend's float math follows MXCSR too; a caller (or a pool thread) that runs
// with FTZ/DAZ or another rounding mode would otherwise get other results. Every execute
// and every parallel task sets it for its duration and restores the caller's afterwards.

#include <xmmintrin.h>

namespace qgraph {
namespace impl {

class fp_env_guard {
public:
    static constexpr unsigned int default_mxcsr = 0x1F80;
    /// The control bits (DAZ, exception masks, rounding, FTZ); the low six are sticky
    /// exception flags, which say nothing about how math behaves.
    static constexpr unsigned int control_bits = 0xFFC0;

    fp_env_guard() : saved_(_mm_getcsr()), changed_((saved_ & control_bits) != default_mxcsr) {
        if (changed_) _mm_setcsr(default_mxcsr);
    }
    ~fp_env_guard() {
        if (changed_) _mm_setcsr(saved_);
    }
    fp_env_guard(const fp_env_guard &) = delete;
    fp_env_guard &operator=(const fp_env_guard &) = delete;

private:
    unsigned int saved_;
    bool changed_;
};

} // namespace impl
} // namespace qgraph

#endif
