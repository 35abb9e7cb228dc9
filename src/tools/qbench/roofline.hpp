#ifndef QGRAPH_TOOLS_QBENCH_ROOFLINE_HPP
#define QGRAPH_TOOLS_QBENCH_ROOFLINE_HPP

// The roofline reference of --mode=P: a plain loop that reads as many bytes as the problem's
// sources hold and writes as many as its destinations hold, with no arithmetic (64-byte lines
// are only OR-ed together when there are more source than destination bytes). No
// quantization kernel can move its bytes faster, so kernel_time / roofline_time says how
// close a kernel is to the memory system's limit at that size and thread count.

#include <cstddef>
#include <cstdint>
#include <memory>

namespace qgraph {
namespace qbench {

class roofline {
public:
    /// Own buffers of `read_bytes` and `write_bytes`; runs on `threads` threads (at least 1).
    /// The caller passes qgraph's thread count for the run, so that the kernel and the loop
    /// it is compared with use the same threads at every size and in every run (a loop that
    /// timed 1 against N threads and kept the faster one changed its mind between identical
    /// runs, and ROOFLINE% moved with it).
    roofline(size_t read_bytes, size_t write_bytes, int threads);
    ~roofline();
    roofline(const roofline &) = delete;
    roofline &operator=(const roofline &) = delete;

    /// One pass.
    void run();
    int threads_used() const { return threads_; }

private:
    struct impl;
    std::unique_ptr<impl> impl_;
    int threads_ = 1;
};

} // namespace qbench
} // namespace qgraph

#endif
