#include "qgraph/op.hpp"

namespace qgraph {

op::op(size_t id, kind akind, const std::string &name) : id_(id), kind_(akind), name_(name) {}

op::op(size_t id, kind akind, const std::vector<logical_tensor> &inputs,
        const std::vector<logical_tensor> &outputs, const std::string &name)
    : id_(id), kind_(akind), name_(name), inputs_(inputs), outputs_(outputs) {}

op &op::add_input(const logical_tensor &lt) {
    inputs_.push_back(lt);
    return *this;
}
op &op::add_inputs(const std::vector<logical_tensor> &lts) {
    inputs_.insert(inputs_.end(), lts.begin(), lts.end());
    return *this;
}
op &op::add_output(const logical_tensor &lt) {
    outputs_.push_back(lt);
    return *this;
}
op &op::add_outputs(const std::vector<logical_tensor> &lts) {
    outputs_.insert(outputs_.end(), lts.begin(), lts.end());
    return *this;
}

op &op::set_attr_value(const std::string &name, const attr_value &value) {
    attrs_[name] = value;
    return *this;
}

const char *op::to_string(attr a) {
    switch (a) {
        case attr::axis: return "axis";
        case attr::qtype: return "qtype";
        case attr::scales: return "scales";
        case attr::zps: return "zps";
        case attr::group_shape: return "group_shape";
        case attr::block_size: return "block_size";
        case attr::saturate: return "saturate";
    }
    return "?";
}

} // namespace qgraph
