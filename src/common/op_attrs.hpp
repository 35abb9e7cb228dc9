#ifndef QGRAPH_COMMON_OP_ATTRS_HPP
#define QGRAPH_COMMON_OP_ATTRS_HPP

// Typed reads of an op's attributes with defaults, and how messages name an op. The schema
// (interface/op_schema) has checked the types before anything below it reads them.

#include <cstdint>
#include <string>
#include <vector>

#include "qgraph/op.hpp"

namespace qgraph {
namespace impl {

/// "Quantize 'q0' (id 3)": how every message names an op.
std::string op_desc(const op &o);

int64_t attr_s64(const op &o, const char *name, int64_t dflt);
bool attr_bool(const op &o, const char *name, bool dflt);
std::string attr_string(const op &o, const char *name, const std::string &dflt);
/// Empty when absent.
const std::vector<float> &attr_f32s(const op &o, const char *name);
std::vector<int64_t> attr_s64s(const op &o, const char *name);

/// The qgraph type of an ONNX TensorProto.DataType code (the ONNX ops' `output_dtype` and
/// `precision` attributes), or undef for a code qgraph has no type for.
data_type onnx_data_type(int64_t code);
/// "16 (BFLOAT16)": how messages name an ONNX type code.
std::string onnx_code_desc(int64_t code);

} // namespace impl
} // namespace qgraph

#endif
