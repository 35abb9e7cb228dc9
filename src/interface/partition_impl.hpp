#ifndef QGRAPH_INTERFACE_PARTITION_IMPL_HPP
#define QGRAPH_INTERFACE_PARTITION_IMPL_HPP

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.hpp"
#include "qgraph/partition.hpp"

namespace qgraph {
namespace impl {

/// A partition: one op (qgraph fuses nothing yet), supported or not.
struct partition_impl {
    size_t id = 0;
    engine::kind ekind = engine::kind::cpu;
    op the_op {0, op::kind::Wildcard};
    bool supported = false;
    std::string reason;

    compiled_partition compile(const std::vector<logical_tensor> &inputs,
            const std::vector<logical_tensor> &outputs, const engine &eng) const;
};

/// Where each kernel argument sits in the tensors passed to execute (-1: not used).
struct arg_positions {
    int src = -1, scales = -1, zps = -1;
    int dst = -1, out_scale = -1, out_zp = -1;
};

struct compiled_partition_impl {
    size_t partition_id = 0;
    std::vector<logical_tensor> inputs;
    std::vector<logical_tensor> outputs;
    std::vector<size_t> input_bytes, output_bytes;
    arg_positions args;
    /// (input position, output position) of the pair that may share memory, or (-1, -1).
    std::pair<int, int> in_place {-1, -1};
    std::unique_ptr<kernel> k;
    std::string backend_name;
    std::string kernel_name;
    std::string description; ///< the problem, for verbose lines

    /// Runs on `pool` (the stream's; nullptr: qgraph's runtime).
    void execute(threadpool_iface *pool, const std::vector<tensor> &inputs,
            const std::vector<tensor> &outputs) const;
};

} // namespace impl
} // namespace qgraph

#endif
