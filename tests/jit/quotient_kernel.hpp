#ifndef QGRAPH_TESTS_JIT_QUOTIENT_KERNEL_HPP
#define QGRAPH_TESTS_JIT_QUOTIENT_KERNEL_HPP

// A test-only kernel that stores the quotients x / s the quantize kernels compute: the same
// division instructions (src/backends/jit/jit_division_emitter.hpp) between a plain load and
// store, so the division test can compare them with IEEE division bit for bit.

#include <cstdint>

#include "common/cpu_isa.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// q[i] = x[i] / s for i < n, computed by the generated division on the path make_recip(s)
/// chooses (reciprocal, multiply or the divide instruction), as the quantize kernels do.
/// isa: avx2 or avx512_core.
void jit_divide(cpu_isa_t isa, const float *x, float *q, int64_t n, float s);

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
