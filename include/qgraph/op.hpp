#ifndef QGRAPH_OP_HPP
#define QGRAPH_OP_HPP

#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "qgraph/export.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {

/// The quantization ops qgraph runs, then every other oneDNN Graph op kind: those load and end
/// up in partitions that report is_supported() == false.
#define QGRAPH_OP_KINDS(X) \
    X(Quantize) X(Dequantize) X(DynamicQuantize) X(DynamicDequantize) \
    X(QuantizeLinear) X(DequantizeLinear) X(DynamicQuantizeLinear) \
    X(Abs) X(AbsBackward) X(Add) X(AvgPool) X(AvgPoolBackward) X(BatchNormForwardTraining) \
    X(BatchNormInference) X(BatchNormTrainingBackward) X(BiasAdd) X(BiasAddBackward) \
    X(Clamp) X(ClampBackward) X(Concat) X(Convolution) X(ConvolutionBackwardData) \
    X(ConvolutionBackwardWeights) X(ConvTranspose) X(ConvTransposeBackwardData) \
    X(ConvTransposeBackwardWeights) X(Divide) X(Elu) X(EluBackward) X(End) X(Exp) X(GELU) \
    X(GELUBackward) X(GenIndex) X(GreaterEqual) X(GroupNorm) X(HardSigmoid) \
    X(HardSigmoidBackward) X(HardSwish) X(HardSwishBackward) X(Interpolate) \
    X(InterpolateBackward) X(LayerNorm) X(LayerNormBackward) X(LeakyReLU) X(Log) \
    X(LogSoftmax) X(LogSoftmaxBackward) X(MatMul) X(Maximum) X(MaxPool) X(MaxPoolBackward) \
    X(Minimum) X(Mish) X(MishBackward) X(Multiply) X(Pow) X(PReLU) X(PReLUBackward) \
    X(Reciprocal) X(ReduceL1) X(ReduceL2) X(ReduceMax) X(ReduceMean) X(ReduceMin) \
    X(ReduceProd) X(ReduceSum) X(ReLU) X(ReLUBackward) X(Reorder) X(RMSNorm) X(Round) \
    X(Select) X(Sigmoid) X(SigmoidBackward) X(SoftMax) X(SoftMaxBackward) X(SoftPlus) \
    X(SoftPlusBackward) X(Sqrt) X(SqrtBackward) X(Square) X(SquaredDifference) \
    X(StaticReshape) X(StaticTranspose) X(Subtract) X(Tanh) X(TanhBackward) X(TypeCast) \
    X(Wildcard)

/// One node of a graph: a kind, attributes, and the logical tensors it reads and writes.
/// Modelled on dnnl::graph::op. The op is checked against its schema when added to a graph.
class QGRAPH_API op {
public:
#define QGRAPH_X(name) name,
    enum class kind { QGRAPH_OP_KINDS(QGRAPH_X) };
#undef QGRAPH_X

    /// Names of the attributes the quantization ops use. Any other attribute (as found in
    /// oneDNN graph files) can be set by its string name.
    enum class attr { axis, qtype, scales, zps, group_shape, block_size, saturate };

    using attr_value = std::variant<int64_t, float, bool, std::string, std::vector<int64_t>,
            std::vector<float>>;

    op(size_t id, kind akind, const std::string &name = "");
    op(size_t id, kind akind, const std::vector<logical_tensor> &inputs,
            const std::vector<logical_tensor> &outputs, const std::string &name = "");

    op &add_input(const logical_tensor &lt);
    op &add_inputs(const std::vector<logical_tensor> &lts);
    op &add_output(const logical_tensor &lt);
    op &add_outputs(const std::vector<logical_tensor> &lts);

    /// set_attr<std::vector<float>>(op::attr::scales, {0.5f}) as in dnnl::graph; integral
    /// values are stored as int64 (s64), floating ones as float (f32).
    template <typename T>
    op &set_attr(attr name, const T &value) {
        return set_attr(to_string(name), value);
    }
    template <typename T>
    op &set_attr(const std::string &name, const T &value) {
        if constexpr (std::is_same_v<T, bool>)
            return set_attr_value(name, attr_value(value));
        else if constexpr (std::is_integral_v<T>)
            return set_attr_value(name, attr_value(static_cast<int64_t>(value)));
        else if constexpr (std::is_floating_point_v<T>)
            return set_attr_value(name, attr_value(static_cast<float>(value)));
        else if constexpr (std::is_convertible_v<T, std::string>)
            return set_attr_value(name, attr_value(std::string(value)));
        else
            return set_attr_value(name, attr_value(value));
    }
    op &set_attr_value(const std::string &name, const attr_value &value);

    size_t get_id() const { return id_; }
    kind get_kind() const { return kind_; }
    const std::string &get_name() const { return name_; }
    const std::vector<logical_tensor> &get_input_logical_tensors() const { return inputs_; }
    const std::vector<logical_tensor> &get_output_logical_tensors() const { return outputs_; }
    const std::map<std::string, attr_value> &get_attrs() const { return attrs_; }
    bool has_attr(const std::string &name) const { return attrs_.count(name) != 0; }

    static const char *to_string(attr a);

private:
    size_t id_;
    kind kind_;
    std::string name_;
    std::vector<logical_tensor> inputs_;
    std::vector<logical_tensor> outputs_;
    std::map<std::string, attr_value> attrs_;
};

/// "Quantize", "MatMul", ... as in oneDNN's graph JSON.
QGRAPH_API const char *to_string(op::kind k);
/// Inverse of to_string; throws invalid_arguments for a kind oneDNN Graph does not define.
QGRAPH_API op::kind op_kind_from_string(const std::string &name);
/// True for the seven quantization ops qgraph implements.
QGRAPH_API bool is_quantization_op(op::kind k);

} // namespace qgraph

#endif
