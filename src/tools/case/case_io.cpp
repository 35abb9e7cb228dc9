// graph_case queries, file loading and graph building. Parsing is in case_reader.cpp, writing
// in case_writer.cpp.

#include "tools/case/case_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <system_error>

namespace qgraph {
namespace tools {

std::vector<size_t> graph_case::graph_inputs() const {
    if (!input_ports.empty()) return input_ports;
    std::set<size_t> produced, ids;
    for (const op &o : ops) {
        for (const auto &lt : o.get_output_logical_tensors()) produced.insert(lt.get_id());
        for (const auto &lt : o.get_input_logical_tensors()) ids.insert(lt.get_id());
    }
    std::vector<size_t> out;
    for (size_t id : ids)
        if (!produced.count(id)) out.push_back(id);
    return out;
}

std::vector<size_t> graph_case::graph_outputs() const {
    if (!output_ports.empty()) return output_ports;
    std::set<size_t> consumed, ids;
    for (const op &o : ops) {
        for (const auto &lt : o.get_input_logical_tensors()) consumed.insert(lt.get_id());
        for (const auto &lt : o.get_output_logical_tensors()) ids.insert(lt.get_id());
    }
    std::vector<size_t> out;
    for (size_t id : ids)
        if (!consumed.count(id)) out.push_back(id);
    return out;
}

logical_tensor graph_case::find_logical_tensor(size_t id) const {
    for (const op &o : ops) {
        for (const auto &lt : o.get_input_logical_tensors())
            if (lt.get_id() == id) return lt;
        for (const auto &lt : o.get_output_logical_tensors())
            if (lt.get_id() == id) return lt;
    }
    throw error(status::invalid_arguments,
            "graph case: no op mentions logical tensor " + std::to_string(id));
}

graph_case load_case_file(const std::string &path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw error(status::invalid_arguments, path + ": is a directory, not a case file");
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw error(status::invalid_arguments,
                path + ": cannot open the case file"
                        + (errno ? std::string(": ") + std::strerror(errno) : std::string()));
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw error(status::invalid_arguments, path + ": cannot read the case file");
    return parse_case(text, path);
}

graph build_graph(const graph_case &c) {
    graph g(c.engine_kind, c.fpmath);
    for (size_t i = 0; i < c.ops.size(); ++i) {
        const op &o = c.ops[i];
        try {
            g.add_op(o);
        } catch (const error &e) {
            // The graph's message names the op; graph[i] says where it is in the file.
            throw error(e.status(), "graph[" + std::to_string(i) + "]: " + e.what());
        }
    }
    try {
        g.finalize();
    } catch (const error &e) { throw error(e.status(), std::string("graph: ") + e.what()); }
    return g;
}

} // namespace tools
} // namespace qgraph
