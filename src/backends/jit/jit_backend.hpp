#ifndef QGRAPH_BACKENDS_JIT_JIT_BACKEND_HPP
#define QGRAPH_BACKENDS_JIT_JIT_BACKEND_HPP

#include "backends/backend.hpp"

namespace qgraph {
namespace impl {

/// Xbyak kernels for the CPU's ISA (avx512_core or avx2), run in parallel on qgraph's runtime
/// (TBB or OpenMP) or the integrator's thread pool.
const backend &jit_backend();

/// The name of the jit driver that a problem goes to ("lookup", "convert", "grouped
/// dequantize", "elementwise"): jit_backend.cpp's route table, first match.
const char *jit_driver_of(const quant_problem &p);

} // namespace impl
} // namespace qgraph

#endif
