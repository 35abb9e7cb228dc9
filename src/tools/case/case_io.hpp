#ifndef QGRAPH_TOOLS_CASE_CASE_IO_HPP
#define QGRAPH_TOOLS_CASE_CASE_IO_HPP

// Graph case files (../shared/CASE-FORMAT.md, docs/case-format.md): oneDNN graph JSON plus
// qgraph's optional "data" section. This layer sits on the public API only.

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "qgraph/qgraph.hpp"

namespace qgraph {
namespace tools {

/// One logical tensor's values in row-major order of its logical shape. Every value a
/// supported dtype can hold (f32, s32 and narrower) is exact in a double; NaN and +-Inf too.
using tensor_values = std::vector<double>;

/// A graph case as read from / written to a file. The ops keep file order; the graph sorts
/// them (graph::finalize rejects cycles).
struct graph_case {
    std::string version = "0.1.0";
    engine::kind engine_kind = engine::kind::cpu;
    fpmath_mode fpmath = fpmath_mode::strict;
    std::string fpmath_apply_to_int; ///< "" when absent, else "true"/"false"
    std::vector<op> ops;
    /// As given in the file; empty when absent (then derived: see graph_inputs/outputs).
    std::vector<size_t> input_ports;
    std::vector<size_t> output_ports;

    bool has_data = false;
    std::map<size_t, tensor_values> inputs; ///< data.inputs
    std::map<size_t, tensor_values> expected; ///< data.expected

    /// input_ports if given, else every logical tensor id that no op produces (sorted).
    std::vector<size_t> graph_inputs() const;
    /// output_ports if given, else every produced id that no op consumes (sorted).
    std::vector<size_t> graph_outputs() const;
    /// The logical tensor with this id as declared by the first op that mentions it.
    /// Throws invalid_arguments if no op mentions it.
    logical_tensor find_logical_tensor(size_t id) const;
};

/// Case files (and qbench batch files) larger than this are rejected unread: 256 MiB holds
/// the data of tensors of tens of millions of elements, far beyond any conformance case, and
/// bounds the memory the JSON parser takes (several times the text).
constexpr size_t max_case_file_bytes = size_t(256) << 20;

/// The whole text of a regular file of at most `max_bytes` bytes. Throws
/// qgraph::error(invalid_arguments) with a message that starts with `path` and says what is
/// wrong: missing, a directory, not a regular file (a FIFO, a device, a socket: never waited
/// on), unreadable (permissions, a read error such as /proc/self/mem's), or too large.
std::string read_text_file(const std::string &path, size_t max_bytes = max_case_file_bytes);

/// Parses a case. Throws qgraph::error naming `source` and, for a JSON syntax error, its line
/// and column; for a format error the JSON path (`graph[2].inputs[0].dtype`) and the rule.
graph_case parse_case(const std::string &text, const std::string &source = "<string>");
/// Reads (read_text_file) and parses a file; every failure is invalid_arguments.
graph_case load_case_file(const std::string &path);

/// Writes the case in the same format (attributes as {"type", "value"} in that order).
/// parse_case(write_case(c)) describes the same case.
std::string write_case(const graph_case &c);

/// add_op for every op, then finalize. Throws what the graph throws.
graph build_graph(const graph_case &c);

} // namespace tools
} // namespace qgraph

#endif
