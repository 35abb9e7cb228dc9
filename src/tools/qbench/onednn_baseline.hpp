#ifndef QGRAPH_TOOLS_QBENCH_ONEDNN_BASELINE_HPP
#define QGRAPH_TOOLS_QBENCH_ONEDNN_BASELINE_HPP

// The `onednn` pseudo-backend of --mode=P: plain oneDNN 2.6 used directly, the way a framework
// integrator would write the op without qgraph. It is what qgraph is compared against, not
// part of the library (and not bit-exact with NUMERICS.md: qbench reports its mismatches as
// information only):
// - Quantize-like ops: one reorder f32 -> u8/s8 with output scales 1/s (mask 0, or the
//   channel axis) and a dst zero point;
// - Dequantize-like ops: one reorder u8/s8/s32 -> f32 with output scales s and a src zero
//   point;
// - DynamicQuantizeLinear: a min and a max reduction over the tensor, the scalar scale and
//   zero-point arithmetic, then the reorder with runtime scale and zero point.
// Primitives are created once (like compile); run() only executes, with runtime scales and
// zero points read from the input buffers per call, as an integrator has to.
//
// This header is free of oneDNN types so that the rest of qbench does not see oneDNN.

#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "qgraph/logical_tensor.hpp"
#include "tools/case/case_io.hpp"

namespace qgraph {
namespace qbench {

class onednn_baseline {
public:
    virtual ~onednn_baseline() = default;
    /// One execution (sets oneDNN's OpenMP threads to qgraph::get_num_threads() first).
    virtual void run() = 0;
    /// What runs: "reorder (jit:uni)" or "reduction+reorder (...)".
    virtual std::string kernel() const = 0;
};

/// Builds the baseline for a one-op case. `layouts` holds the concrete logical tensor of every
/// id (as a qgraph compile made them) and `buffers` its memory: inputs are read, outputs
/// written. Returns nullptr with `reason` set when the case is not one quantization op or
/// oneDNN refuses the primitive (e.g. per-channel zero points in 2.6's reorder).
std::unique_ptr<onednn_baseline> make_onednn_baseline(const tools::graph_case &c,
        const std::map<size_t, logical_tensor> &layouts, const std::map<size_t, void *> &buffers,
        std::string &reason);

} // namespace qbench
} // namespace qgraph

#endif
