#ifndef QGRAPH_TENSOR_HPP
#define QGRAPH_TENSOR_HPP

#include "qgraph/engine.hpp"
#include "qgraph/export.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {

/// A logical tensor bound to memory the caller owns. qgraph never frees or keeps the handle
/// beyond a call, and never writes through an input's handle.
class QGRAPH_API tensor {
public:
    tensor(const logical_tensor &lt, const engine &eng, void *handle)
        : lt_(lt), engine_(eng), handle_(handle) {}

    void *get_data_handle() const { return handle_; }
    void set_data_handle(void *handle) { handle_ = handle; }
    const engine &get_engine() const { return engine_; }
    const logical_tensor &get_logical_tensor() const { return lt_; }

private:
    logical_tensor lt_;
    engine engine_;
    void *handle_;
};

} // namespace qgraph

#endif
