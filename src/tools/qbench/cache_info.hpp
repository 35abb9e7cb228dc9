#ifndef QGRAPH_TOOLS_QBENCH_CACHE_INFO_HPP
#define QGRAPH_TOOLS_QBENCH_CACHE_INFO_HPP

// Cache sizes (for the sweep's plot and --cold-cache) and the cache flush of --cold-cache.

#include <cstddef>
#include <cstdint>
#include <memory>

namespace qgraph {
namespace qbench {

struct cache_sizes {
    size_t l1d = 0, l2 = 0, l3 = 0; ///< bytes; 0 when unknown
};

/// From /sys/devices/system/cpu/cpu0/cache (what the kernel reports per level), else
/// sysconf(_SC_LEVEL*_CACHE_SIZE). sysfs comes first because glibc's sysconf reports the
/// L3 of every AMD CCX summed on some machines (320 MB on this one, 32 MB in sysfs).
cache_sizes read_cache_sizes();

/// Evicts the data of earlier runs from every cache level: reads and writes a buffer of twice
/// the last-level cache, split over `threads` threads so that each core's private caches
/// are swept too.
class cache_flusher {
public:
    explicit cache_flusher(size_t llc_bytes);
    ~cache_flusher();
    void flush(int threads);

private:
    size_t words_ = 0;
    uint64_t *buf_ = nullptr;
};

} // namespace qbench
} // namespace qgraph

#endif
