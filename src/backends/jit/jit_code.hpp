#ifndef QGRAPH_BACKENDS_JIT_JIT_CODE_HPP
#define QGRAPH_BACKENDS_JIT_JIT_CODE_HPP

// What every kernel class holds: the finished generator (which owns the code buffer) and the
// code's entry point typed by the kernel's call struct. A kernel derives from jit_code<Call>
// and keeps only what is its own (its conf, constants the driver reads); calling the kernel
// runs the code. Not copyable or movable: the entry point points into the generator's buffer,
// so the two never part.

#include <memory>
#include <utility>

#include "backends/jit/jit_generator.hpp"
#include "common/cpu_isa.hpp"

namespace qgraph {
namespace impl {
namespace jit {

template <typename Call>
class jit_code {
public:
    /// `gen`: a generator whose constructor emitted and finished the code.
    explicit jit_code(std::unique_ptr<jit_generator> gen)
        : gen_(std::move(gen)), fn_(gen_->entry<Call>()) {}
    jit_code(const jit_code &) = delete;
    jit_code &operator=(const jit_code &) = delete;

    /// Runs the code on one call (each kernel's header states what a call may hold).
    void operator()(const Call *c) const { fn_(c); }

private:
    std::unique_ptr<jit_generator> gen_;
    void (*fn_)(const Call *);
};

/// Generator<avx512_core> for isa avx512_core, else Generator<avx2>: the two ISAs a generator
/// template on the ISA is written for. `args`: its constructor's.
template <template <cpu_isa_t> class Generator, typename... Args>
std::unique_ptr<jit_generator> generate_for_isa(cpu_isa_t isa, const Args &...args) {
    if (isa == avx512_core) return std::make_unique<Generator<avx512_core>>(args...);
    return std::make_unique<Generator<avx2>>(args...);
}

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
