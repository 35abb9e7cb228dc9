// graph_case queries, file loading and graph building. Parsing is in case_reader.cpp, writing
// in case_writer.cpp.

#include "tools/case/case_io.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

namespace {

/// Closes the descriptor on every way out of read_text_file.
struct fd_closer {
    int fd;
    ~fd_closer() { ::close(fd); }
};

/// What a file that is not regular or a directory is, for messages.
const char *kind_of(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    return "not a plain file";
}

[[noreturn]] void file_error(const std::string &path, const std::string &what) {
    throw error(status::invalid_arguments, path + ": " + what);
}

} // namespace

std::string read_text_file(const std::string &path, size_t max_bytes) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer; it is
    // rejected below as not a regular file. On a regular file the flag changes nothing.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) file_error(path, std::string("cannot open: ") + std::strerror(errno));
    const fd_closer closer {fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        file_error(path, std::string("cannot stat: ") + std::strerror(errno));
    if (S_ISDIR(st.st_mode)) file_error(path, "is a directory, not a file");
    if (!S_ISREG(st.st_mode))
        file_error(path, std::string("is not a regular file (") + kind_of(st.st_mode) + ")");
    const std::string too_large = "larger than the limit of " + std::to_string(max_bytes)
            + " bytes";
    if (static_cast<uint64_t>(st.st_size) > max_bytes)
        file_error(path, "is " + std::to_string(st.st_size) + " bytes, " + too_large);
    // Read to the end rather than st_size bytes: files under /proc say 0 and hold more.
    std::string text;
    char chunk[1 << 16];
    while (true) {
        const ssize_t n = ::read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) file_error(path, std::string("cannot read: ") + std::strerror(errno));
        if (n == 0) return text;
        if (text.size() + static_cast<size_t>(n) > max_bytes) file_error(path, "is " + too_large);
        text.append(chunk, static_cast<size_t>(n));
    }
}

graph_case load_case_file(const std::string &path) {
    return parse_case(read_text_file(path), path);
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
