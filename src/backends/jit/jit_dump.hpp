#ifndef QGRAPH_BACKENDS_JIT_JIT_DUMP_HPP
#define QGRAPH_BACKENDS_JIT_JIT_DUMP_HPP

// QGRAPH_JIT_DUMP=1 (as oneDNN's ONEDNN_JIT_DUMP): every kernel generated after it is set is
// written, as raw machine code, to qgraph_jit_<kind>_<isa>.<n>.bin in the working directory,
// n counting the process's kernels from 0. A developer's tool, for reading the code a problem
// really gets (objdump -D -b binary -mi386:x86-64 -M intel FILE) and for static throughput
// models of its loops (docs/kernels.md, "Reading the generated code"). A file that cannot be
// written is reported once on stderr; generation goes on.

#include <cstddef>
#include <cstdint>

#include "common/cpu_isa.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// Writes code[0 .. size) when QGRAPH_JIT_DUMP=1 (read once per process), else nothing.
void dump_code(const char *kind, cpu_isa_t isa, const uint8_t *code, size_t size);

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
