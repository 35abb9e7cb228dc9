#ifndef QGRAPH_TESTS_JIT_FLOAT8_KERNEL_HPP
#define QGRAPH_TESTS_JIT_FLOAT8_KERNEL_HPP

// Test-only kernels around the float8/float4 conversions the quantize and dequantize kernels
// emit (src/backends/jit/jit_float8_emitter.hpp): a plain load, the conversion, a plain store,
// so the tests compare the very instruction sequence with common/minifloat.hpp.

#include <cstdint>

#include "common/cpu_isa.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// code[i] = the dt code of x[i] + 0.f (f32_to_minifloat's), for i < n, as the quantize
/// kernels encode x / s + 0.f (the + 0.f makes a -0 +0 and changes nothing else). isa: avx2
/// or avx512_core. packs: avx512's word encode stores its codes with the packs a CPU
/// without AVX512_VBMI takes (else the CPU decides).
void jit_encode_minifloat(cpu_isa_t isa, data_type dt, bool saturate, const float *x,
        uint32_t *code, int64_t n, bool packs = false);
/// y[i] = the value of code[i] (minifloat_to_f32's), for i < n.
void jit_decode_minifloat(
        cpu_isa_t isa, data_type dt, const uint32_t *code, float *y, int64_t n);
/// The same through the dequantize kernels' f16 route (the emitter's load_words() and
/// decode_f16(), codes as bytes); false, and y untouched, where that route does not serve dt
/// at isa.
bool jit_decode_minifloat_f16(
        cpu_isa_t isa, data_type dt, const uint8_t *code, float *y, int64_t n);
/// The same through avx2's 32-code decode of the dequantize kernels (the emitter's
/// load_quad() and quad_to_f32()); false, and y untouched, where it does not serve dt at isa.
bool jit_decode_minifloat_quads(
        cpu_isa_t isa, data_type dt, const uint8_t *code, float *y, int64_t n);

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
