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

class chain_runner;
class runtime_lookup;

/// A partition: one op, or a chain of ops a fusion pattern matched (pattern_table.hpp),
/// supported or not.
struct partition_impl {
    size_t id = 0; ///< unique in the process (graph.cpp)
    engine::kind ekind = engine::kind::cpu;
    std::vector<op> ops; ///< in execution order; each op's output feeds the next one's port 0
    std::string pattern; ///< the fusion pattern's name; "" for a single op
    /// The external ports, each id once: what the ops read that no op of the partition
    /// writes, and what the last op writes. Intermediates are not among them.
    std::vector<logical_tensor> inputs, outputs;
    bool supported = false;
    std::string reason;

    /// Fills inputs and outputs from ops.
    void set_ports();

    compiled_partition compile(const std::vector<logical_tensor> &inputs,
            const std::vector<logical_tensor> &outputs, const engine &eng) const;
};

/// A new partition id: ids are unique in the process, like oneDNN's, so verbose lines and
/// messages from different graphs never name the same partition.
size_t next_partition_id();

/// Where each kernel argument sits in the tensors passed to execute (-1: not used).
struct arg_positions {
    int src = -1, scales = -1, zps = -1;
    int dst = -1, out_scale = -1, out_zp = -1;
};

struct compiled_partition_impl {
    size_t partition_id = 0;
    /// "op:<kind>,name:<name>", for verbose lines; fused: "op:<pattern>(<kinds>),name:<names>"
    std::string op_fields;
    std::vector<logical_tensor> inputs;
    std::vector<logical_tensor> outputs;
    std::vector<size_t> input_bytes, output_bytes;
    /// A single op's kernel arguments; a fused chain binds its own (chain).
    arg_positions args;
    /// (input position, output position) of the pair that may share memory, or (-1, -1).
    std::pair<int, int> in_place {-1, -1};
    /// Shared with the cache entry and with compiled partitions of other partitions that hit it.
    std::shared_ptr<const kernel> k;
    /// A fused chain, run instead of k (which is then null).
    std::shared_ptr<const chain_runner> chain;
    /// A fused chain's table lookup whose tables are built at execute, run instead of k
    /// (which is then null); its src and dst at args.src and args.dst.
    std::shared_ptr<const runtime_lookup> lookup;
    std::string backend_name;
    std::string kernel_name;
    std::string description; ///< the problem, for verbose lines

    /// "<operation>,partition:<id>,op:<kind>,name:<name>,<problem>": how every verbose line
    /// about this compiled partition starts.
    std::string verbose_head(const char *operation) const;

    /// Runs on `pool` (the stream's; nullptr: qgraph's runtime).
    void execute(threadpool_iface *pool, const std::vector<tensor> &inputs,
            const std::vector<tensor> &outputs) const;
};

} // namespace impl
} // namespace qgraph

#endif
