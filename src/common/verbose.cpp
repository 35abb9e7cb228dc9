#include "common/verbose.hpp"

#include <atomic>
#include <cstdio>
#include <functional>
#include <mutex>
#include <utility>

#include "common/config.hpp"
#include "common/cpu_isa.hpp"
#include "common/parallel.hpp"
#include "qgraph/config.hpp"
#include "qgraph/version.hpp"

namespace qgraph {
namespace impl {
namespace {

std::atomic<int> &level() {
    static std::atomic<int> l {env_int("QGRAPH_VERBOSE", 0, 2, 0)};
    return l;
}

/// Where lines go. One mutex orders every line, the header and callback changes, so a line
/// is never split or interleaved and never reaches a callback that was already replaced.
struct sink {
    std::mutex m;
    std::function<void(const std::string &)> callback; // empty: stdout
    bool header_sent = false;

    void emit(const std::string &line) {
        if (!callback) {
            std::printf("%s\n", line.c_str());
            std::fflush(stdout);
            return;
        }
        try {
            callback(line);
        } catch (...) {
            // A logging callback must not turn a compile or execute that worked into a
            // failure; set_verbose_callback documents that throwing drops the line.
        }
    }

    /// What is running, as ONEDNN_VERBOSE's header says it: read when it is sent, so it
    /// describes the settings of the first line that follows.
    void send_header() {
        const version_t v = version();
        const cpu_isa_t cap = max_cpu_isa();
        emit("qgraph_verbose,info,qgraph v" + std::to_string(v.major) + "."
                + std::to_string(v.minor) + "." + std::to_string(v.patch)
                + " (git hash " + v.hash + ")");
        emit(std::string("qgraph_verbose,info,cpu,runtime:") + v.cpu_runtime
                + ",nthr:" + std::to_string(num_threads()));
        emit(std::string("qgraph_verbose,info,cpu,isa:") + isa_name(effective_cpu_isa(cap))
                + ",isa_cap:" + isa_name(cap) + ",cpu_max_isa:" + isa_name(max_hardware_isa()));
        emit("qgraph_verbose,info,template:operation,partition,op,name,problem,backend,kernel,"
             "time_ms[,extras]");
    }
};

sink &the_sink() {
    static sink s;
    return s;
}

} // namespace

int verbose_level() { return level().load(std::memory_order_relaxed); }

void verbose_print(const std::string &line) {
    sink &s = the_sink();
    std::lock_guard<std::mutex> lock(s.m);
    if (!s.header_sent) {
        s.send_header();
        s.header_sent = true;
    }
    s.emit("qgraph_verbose," + line);
}

std::string verbose_field(const std::string &s) {
    std::string r = s;
    for (char &c : r)
        if (c == ',')
            c = ';';
        else if (c == '\n' || c == '\r')
            c = ' ';
    return r;
}

} // namespace impl

void set_verbose(int l) { impl::level().store(l < 0 ? 0 : l); }
int get_verbose() { return impl::verbose_level(); }

void set_verbose_callback(std::function<void(const std::string &line)> callback) {
    impl::sink &s = impl::the_sink();
    std::lock_guard<std::mutex> lock(s.m);
    s.callback = std::move(callback);
    s.header_sent = false; // the new sink gets its own header
}

} // namespace qgraph
