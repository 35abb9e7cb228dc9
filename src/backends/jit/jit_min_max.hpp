#ifndef QGRAPH_BACKENDS_JIT_JIT_MIN_MAX_HPP
#define QGRAPH_BACKENDS_JIT_JIT_MIN_MAX_HPP

// DynamicQuantizeLinear's first pass: min and max of a contiguous run of f32, and whether it
// holds a NaN. The running values live in the call (lo, hi start at 0, as the rule's range
// includes 0), so a thread can fold several runs into one result.
//
// Comparisons follow common/q10n.hpp's min_max exactly: lo = x < lo ? x : lo (a NaN x never
// enters lo or hi; it is recorded separately), so the result, including the sign of a zero,
// does not depend on how the tensor is split into runs or threads.

#include <cstdint>

#include "backends/jit/jit_code.hpp"

namespace qgraph {
namespace impl {
namespace jit {

struct min_max_call {
    const float *src;
    int64_t n;
    float lo; ///< in/out
    float hi; ///< in/out
    int32_t has_nan; ///< in/out
};

class jit_min_max_kernel : public jit_code<min_max_call> {
public:
    explicit jit_min_max_kernel(cpu_isa_t isa);
    /// avx2: n a multiple of 8 (the driver bounces the tail, padded with zeros); avx512_core:
    /// any n. Takes the call by non-const pointer, hiding jit_code's: the code writes its
    /// in/out fields.
    void operator()(min_max_call *c) const { jit_code::operator()(c); }
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
