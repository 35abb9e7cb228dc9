#ifndef QGRAPH_TOOLS_QBENCH_ROOFLINE_HPP
#define QGRAPH_TOOLS_QBENCH_ROOFLINE_HPP

// The roofline reference of --mode=P: a plain loop that reads as many bytes as the problem's
// sources hold and writes as many as its destinations hold, with no arithmetic (64-byte lines
// are only OR-ed together when there are more source than destination bytes). No
// quantization kernel can move its bytes faster, so kernel_time / roofline_time says how
// close a kernel is to the memory system's limit at that size and thread count.

#include <cstddef>
#include <cstdint>
#include <functional>
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
    /// `omp`: run on OpenMP threads, as qgraph's regions do under the omp runtime
    /// (set_cpu_runtime), else on TBB: the loop uses the same kind of threads as the kernel.
    roofline(size_t read_bytes, size_t write_bytes, int threads, bool omp);
    ~roofline();
    roofline(const roofline &) = delete;
    roofline &operator=(const roofline &) = delete;

    /// One pass.
    void run();

    /// Runs f inside the loop's TBB arena (the caller's own when that has `threads` slots),
    /// where the loop and qgraph (whose regions join the caller's arena of its thread count,
    /// common/parallel.cpp) then share one set of workers, as in an integrator's arena. Two
    /// arenas would hand the workers back and forth between the contenders every round.
    void execute(const std::function<void()> &f);
    int threads_used() const { return threads_; }

private:
    struct impl;
    std::unique_ptr<impl> impl_;
    int threads_ = 1;
};

} // namespace qbench
} // namespace qgraph

#endif
