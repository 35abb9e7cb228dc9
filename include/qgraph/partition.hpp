#ifndef QGRAPH_PARTITION_HPP
#define QGRAPH_PARTITION_HPP

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "qgraph/engine.hpp"
#include "qgraph/export.hpp"
#include "qgraph/logical_tensor.hpp"
#include "qgraph/op.hpp"
#include "qgraph/tensor.hpp"

namespace qgraph {

namespace impl {
struct partition_impl;
struct compiled_partition_impl;
} // namespace impl

/// A partition compiled for concrete shapes and layouts: all the work (validation, lowering,
/// backend selection, primitive creation) happened in partition::compile, execute only binds
/// pointers and runs. Safe to execute from several threads at once on different buffers.
class QGRAPH_API compiled_partition {
public:
    /// `inputs` and `outputs` are matched to the compiled logical tensors by position; each
    /// must equal the compiled one (id, dtype, shape, strides) and have a non-null handle
    /// unless it is empty. Inputs are never written, but for an input whose buffer an output
    /// shares (get_inplace_ports).
    void execute(stream &strm, const std::vector<tensor> &inputs,
            const std::vector<tensor> &outputs) const;

    /// The compiled logical tensor for a port id, with concrete shape and strides (outputs
    /// given with layout `any` come back strided). Throws invalid_arguments for an unknown id.
    logical_tensor query_logical_tensor(size_t id) const;

    /// Pairs (input id, output id) whose tensors may share one buffer at execute, as in
    /// dnnl::graph: the output then overwrites the input. Offered when both have the same
    /// element size and strides and the chosen kernel is exact in place (docs/api.md,
    /// "In place"); execute rejects every other overlap, and a partial one within a pair.
    std::vector<std::pair<size_t, size_t>> get_inplace_ports() const;

    const std::vector<logical_tensor> &get_input_logical_tensors() const;
    const std::vector<logical_tensor> &get_output_logical_tensors() const;

    /// qgraph extension: the backend and kernel chosen at compile ("dnnl", "dnnl:reorder").
    const std::string &get_backend_name() const;
    const std::string &get_kernel_name() const;

private:
    friend struct impl::partition_impl;
    explicit compiled_partition(std::shared_ptr<const impl::compiled_partition_impl> p)
        : impl_(std::move(p)) {}
    std::shared_ptr<const impl::compiled_partition_impl> impl_;
};

/// A subgraph qgraph can (is_supported) or cannot run as one unit: one op, or a chain of ops
/// a fusion pattern matched. Partitions come from graph::get_partitions in an order in which
/// they can be executed.
class QGRAPH_API partition {
public:
    size_t get_id() const;
    bool is_supported() const;
    /// Why the partition is not supported ("" when it is).
    const std::string &get_unsupported_reason() const;
    std::vector<size_t> get_ops() const;
    size_t get_ops_num() const;
    std::vector<op::kind> get_op_kinds() const;
    /// Logical tensors the partition reads / writes, as declared in the graph, each once: a
    /// tensor on two ports of the op (DequantizeLinear's x also as x_zero_point) is one
    /// logical tensor, given once to compile and bound to a single tensor at execute. A fused
    /// partition's intermediates are not among them.
    std::vector<logical_tensor> get_input_ports() const;
    std::vector<logical_tensor> get_output_ports() const;
    engine::kind get_engine_kind() const;

    /// Compiles for concrete input logical tensors (all ports, any order) and output logical
    /// tensors (strided or `any`). Throws unimplemented for an unsupported partition or when
    /// a forced backend (QGRAPH_BACKEND) rejects it, naming the reason.
    compiled_partition compile(const std::vector<logical_tensor> &inputs,
            const std::vector<logical_tensor> &outputs, const engine &eng) const;

private:
    friend class graph;
    explicit partition(std::shared_ptr<const impl::partition_impl> p) : impl_(std::move(p)) {}
    std::shared_ptr<const impl::partition_impl> impl_;
};

} // namespace qgraph

#endif
