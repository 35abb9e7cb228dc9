#include "tools/qbench/progress.hpp"

#include <unistd.h>

namespace qgraph {
namespace qbench {

std::string progress_line(size_t done, size_t total, const std::string &title) {
    return "\r[" + std::to_string(done) + "/" + std::to_string(total) + "] " + title
            + " ...\033[K";
}

std::string progress_clear() { return "\r\033[K"; }

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

} // namespace qbench
} // namespace qgraph
