#include "qgraph/error.hpp"

namespace qgraph {

const char *to_string(status s) {
    switch (s) {
        case status::success: return "success";
        case status::out_of_memory: return "out_of_memory";
        case status::invalid_arguments: return "invalid_arguments";
        case status::unimplemented: return "unimplemented";
        case status::invalid_graph: return "invalid_graph";
        case status::invalid_graph_op: return "invalid_graph_op";
        case status::invalid_shape: return "invalid_shape";
        case status::invalid_data_type: return "invalid_data_type";
        case status::runtime_error: return "runtime_error";
    }
    return "unknown_status";
}

error::error(qgraph::status s, std::string message)
    : status_(s), message_(std::move(message)) {}

} // namespace qgraph
