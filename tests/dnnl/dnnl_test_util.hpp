#ifndef QGRAPH_TESTS_DNNL_DNNL_TEST_UTIL_HPP
#define QGRAPH_TESTS_DNNL_DNNL_TEST_UTIL_HPP

// Helpers for the dnnl backend tests: build quant_problems the way lowering does (user layout
// plus its canonical form), make inputs, and run the dnnl kernel against the reference kernel
// on identical buffers.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backends/backend.hpp"
#include "backends/problem.hpp"

namespace qgraph {
namespace impl {
namespace dnnl_test {

/// A problem as a test states it: the user's dims, strides (empty = dense row-major), the
/// per-channel axis, and where scales and zero points come from.
struct spec {
    q_kind kind = q_kind::quantize;
    data_type src_dt = data_type::f32;
    data_type dst_dt = data_type::u8;
    std::vector<int64_t> dims;
    std::vector<int64_t> src_strides; ///< empty: dense
    std::vector<int64_t> dst_strides; ///< empty: dense
    int axis = -1; ///< per-channel axis, -1 per-tensor

    param_source scale_src = param_source::attr;
    /// attr: the static scales; input: the values fed at execute. One per channel or one.
    std::vector<float> scales {1.f};
    int64_t scale_stride = 1;

    param_source zp_src = param_source::none;
    data_type zp_dt = data_type::undef;
    std::vector<int64_t> zps; ///< attr: static values; input: values fed at execute
    int64_t zp_stride = 1;
};

/// f32 -> u8 quantize, dense, scale 1.
spec quantize_spec(std::vector<int64_t> dims = {64});
/// `src` -> f32 dequantize, dense, scale 0.1.
spec dequantize_spec(data_type src = data_type::u8, std::vector<int64_t> dims = {64});

/// Column-major strides: the src of a transpose.
std::vector<int64_t> reversed_strides(const std::vector<int64_t> &dims);
/// Row-major strides with `pad` unused elements after every row of every dim.
std::vector<int64_t> padded_strides(const std::vector<int64_t> &dims, int64_t pad);

/// The quant_problem lowering would build: orig_* from the spec, canonical dims with size-1
/// dims dropped and contiguous neighbours merged (never the channel dim).
quant_problem make_problem(const spec &s);

/// Elements spanned by a strided layout (max offset + 1; 1 for 0-D).
int64_t span_of(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides);

/// Runtime inputs for one call: src bytes over the whole span (gaps hold junk too), and the
/// runtime scale / zero-point buffers laid out with the spec's strides.
struct inputs {
    std::vector<uint8_t> src;
    std::vector<float> scales;
    std::vector<uint8_t> zps;
};

/// src values from `value(i)` for every element of the span, i = element index in memory.
/// f32 sources keep their exact bits (NaN payloads included).
inputs make_f32_inputs(const spec &s, const std::function<float(int64_t)> &value);
inputs make_int_inputs(const spec &s, const std::function<int64_t(int64_t)> &value);

/// Interesting f32 sources for quantize with scale s: ties, saturation edges, NaN, +-Inf,
/// |x/s| >= 2^31, subnormals, -0, then pseudo-random values around [-300, 300] * s.
float quantize_input(int64_t i, float s);
/// Integer sources for dequantize: all 256 values of u8/s8 in turn; for s32 edges, values
/// around 2^24 and pseudo-random ones.
int64_t dequantize_input(int64_t i, data_type dt);

/// A fallback factory building the reference kernel for `prb`.
fallback_factory ref_factory(const quant_problem &prb);

/// Creates the dnnl kernel (with the reference as fallback); nullptr and `reason` if rejected.
std::unique_ptr<kernel> create_dnnl(const quant_problem &prb, std::string &reason);

/// Runs the dnnl kernel and the reference kernel on the same inputs and compares the whole
/// dst buffers bytewise (float outputs bit for bit, untouched gaps included). `ran` gets the
/// name of the kernel dnnl's run() reports.
::testing::AssertionResult same_as_ref(const spec &s, const inputs &in, std::string *ran = nullptr);

/// same_as_ref with inputs from quantize_input / dequantize_input.
::testing::AssertionResult same_as_ref(const spec &s, std::string *ran = nullptr);

} // namespace dnnl_test
} // namespace impl
} // namespace qgraph

#endif
