#ifndef QGRAPH_TESTS_JIT_JIT_TEST_UTIL_HPP
#define QGRAPH_TESTS_JIT_JIT_TEST_UTIL_HPP

// Runs one canonical problem on the jit backend and on the reference, on the same inputs, and
// compares every byte of every output, including the gaps between strided elements (which
// neither may write). Inputs and the jit's outputs sit against guard pages, so an over-run of
// generated code faults instead of passing silently.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"
#include "backends/problem.hpp"
#include "common/guarded_buffer.hpp"

namespace qtest {

using qgraph::data_type;
using qgraph::impl::param_source;
using qgraph::impl::q_kind;
using qgraph::impl::quant_problem;

/// The jit backend's kernel for p at the level under test (the global cap the fixture set,
/// passed in the problem as a compile passes it), the reference kernel its fallback; null,
/// with `reason`, when the jit rejects p.
std::unique_ptr<qgraph::impl::kernel> jit_kernel_at_level(
        const quant_problem &p, std::string &reason);
/// The reference backend's kernel for p.
std::unique_ptr<qgraph::impl::kernel> ref_kernel(const quant_problem &p);

/// A dense problem of the given canonical dims (row-major strides).
quant_problem dense_problem(q_kind kind, data_type src, data_type dst,
        const std::vector<int64_t> &dims, int channel_dim = -1);

/// Sets scales (static, or runtime with `input`) and zero points for p.nparams channels,
/// drawn from pools that cover both division paths, ties, negative and extreme values.
void set_params(quant_problem &p, param_source scales, param_source zps, data_type zp_dt,
        uint32_t seed);

struct outcome {
    std::string mismatch; ///< "" when every byte matches
    std::string kernel; ///< the jit kernel's name ("" if jit rejected the problem)
    std::string ran; ///< the kernel that ran (differs on a fallback)
    std::string rejected; ///< jit's reason when it rejected
};

/// Fills the inputs from `seed`, runs jit and ref, compares. `side`: which guard the buffers
/// are flush against.
/// `src_values`, when given, replaces the random f32 source (its size must be the span);
/// `src_codes` the random bf16 / f16 source, bit for bit (one-byte sources: the codes' low
/// bytes). A float8 zero-point tensor holds +0
/// (code 0), or `float_zps` (its size must be the tensor's). The jit kernel runs first: an
/// exception from it (a fallback's) propagates.
outcome run_and_compare(const quant_problem &p, uint32_t seed, guard_side side = guard_side::end,
        const std::vector<float> *src_values = nullptr,
        const std::vector<uint16_t> *src_codes = nullptr,
        const std::vector<uint8_t> *float_zps = nullptr);

/// Strides (elements) for dims laid out in memory in `order` (outermost first), each row of
/// the innermost dim padded by `pad` elements.
std::vector<int64_t> strides_in_order(
        const std::vector<int64_t> &dims, const std::vector<int> &order, int64_t pad);

/// Every size from 0 to 130, then sizes around tile, unroll and thread-split edges.
std::vector<int64_t> test_sizes();

} // namespace qtest

#endif
