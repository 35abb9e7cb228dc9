#include "tools/qbench/cache_info.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <new>
#include <string>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <unistd.h>

namespace qgraph {
namespace qbench {

namespace {

/// "32K", "1024K", "32M" -> bytes; 0 if unreadable.
size_t read_size(const std::string &path) {
    std::ifstream f(path);
    std::string s;
    if (!(f >> s) || s.empty()) return 0;
    char *end = nullptr;
    const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
    if (*end == 'K') return v << 10;
    if (*end == 'M') return v << 20;
    if (*end == 'G') return v << 30;
    return v;
}

std::string read_word(const std::string &path) {
    std::ifstream f(path);
    std::string s;
    f >> s;
    return s;
}

size_t sysconf_size(int name) {
    const long v = sysconf(name);
    return v > 0 ? static_cast<size_t>(v) : 0;
}

} // namespace

cache_sizes read_cache_sizes() {
    cache_sizes c;
    const std::string base = "/sys/devices/system/cpu/cpu0/cache/index";
    for (int i = 0; i < 8; ++i) {
        const std::string dir = base + std::to_string(i) + "/";
        const std::string level = read_word(dir + "level"), type = read_word(dir + "type");
        if (level.empty()) break;
        const size_t size = read_size(dir + "size");
        if (level == "1" && type == "Data") c.l1d = size;
        if (level == "2" && type != "Instruction") c.l2 = size;
        if (level == "3" && type != "Instruction") c.l3 = size;
    }
    if (c.l1d == 0) c.l1d = sysconf_size(_SC_LEVEL1_DCACHE_SIZE);
    if (c.l2 == 0) c.l2 = sysconf_size(_SC_LEVEL2_CACHE_SIZE);
    if (c.l3 == 0) c.l3 = sysconf_size(_SC_LEVEL3_CACHE_SIZE);
    return c;
}

cache_flusher::cache_flusher(size_t llc_bytes) {
    const size_t bytes = 2 * (llc_bytes ? llc_bytes : (size_t(64) << 20));
    words_ = bytes / sizeof(uint64_t);
    buf_ = static_cast<uint64_t *>(std::aligned_alloc(64, words_ * sizeof(uint64_t)));
    if (!buf_) throw std::bad_alloc();
    for (size_t i = 0; i < words_; ++i) buf_[i] = i;
}

cache_flusher::~cache_flusher() { std::free(buf_); }

void cache_flusher::flush(int threads) {
    if (threads < 1) threads = 1;
    auto sweep = [this](size_t begin, size_t end) {
        // A read-modify-write per cache line: the lines become dirty, so the old contents of
        // the cache are both evicted and not cheaply re-fetched.
        for (size_t i = begin; i < end; i += 8) buf_[i] += 1;
    };
    if (threads == 1) {
        sweep(0, words_);
        return;
    }
    tbb::task_arena arena(threads);
    arena.execute([&] {
        tbb::parallel_for(0, threads, [&](int t) {
            const size_t chunk = (words_ / threads + 7) / 8 * 8;
            const size_t b = std::min(words_, chunk * t), e = std::min(words_, b + chunk);
            sweep(b, e);
        }, tbb::static_partitioner());
    });
}

} // namespace qbench
} // namespace qgraph
