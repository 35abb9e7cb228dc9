#ifndef QGRAPH_ERROR_HPP
#define QGRAPH_ERROR_HPP

#include <exception>
#include <string>

#include "qgraph/export.hpp"

namespace qgraph {

/// Why a call failed. Mirrors dnnl::graph's status codes.
enum class status {
    success = 0,
    out_of_memory,
    invalid_arguments, ///< a value the caller passed breaks a documented rule
    unimplemented, ///< valid by the op specification, but qgraph cannot run it (yet)
    invalid_graph, ///< the graph as a whole is inconsistent (cycle, duplicate ids, ...)
    invalid_graph_op, ///< an op breaks its schema (ports, dtypes, attributes, shapes)
    invalid_shape, ///< dims or strides are impossible (negative, overflowing, aliasing)
    invalid_data_type, ///< a dtype the op or format does not allow
    runtime_error, ///< something failed while running (e.g. oneDNN reported an error)
};

QGRAPH_API const char *to_string(status s);

/// The only exception type qgraph throws. what() names the op, the port or attribute and the
/// rule that was broken, on one line of at most 4096 characters: control bytes, C1 controls
/// and invalid UTF-8 in the message (caller strings it quotes) appear as `\xNN`, and a longer
/// message keeps its start and its end around a "...[N bytes cut]..." marker.
class QGRAPH_API error : public std::exception {
public:
    error(qgraph::status s, std::string message);
    qgraph::status status() const noexcept { return status_; }
    const char *what() const noexcept override { return message_.c_str(); }

private:
    qgraph::status status_;
    std::string message_;
};

} // namespace qgraph

#endif
