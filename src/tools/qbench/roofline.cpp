#include "tools/qbench/roofline.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

namespace qgraph {
namespace qbench {

namespace {

struct alignas(64) line {
    uint64_t w[8];
};

// Compiled for AVX-512, AVX2 and baseline x86-64, picked at load time, so that the loop
// moves full vector registers like the kernels it is compared with (the project builds for
// baseline x86-64). Lines [d0, d1) of dst from the matching src lines: `ratio` source lines
// OR-ed per destination line when the sources are larger, else one source line copied to
// `ratio` destination lines.
__attribute__((target_clones("avx512f", "avx2", "default"))) void move_lines(const line *src,
        line *dst, size_t d0, size_t d1, size_t ratio, bool src_larger) {
    if (src_larger) {
        for (size_t i = d0; i < d1; ++i) {
            line acc = src[i * ratio];
            for (size_t k = 1; k < ratio; ++k)
                for (int j = 0; j < 8; ++j) acc.w[j] |= src[i * ratio + k].w[j];
            dst[i] = acc;
        }
    } else {
        for (size_t i = d0; i < d1; ++i) dst[i] = src[i / ratio];
    }
}

line *alloc_lines(size_t n) {
    void *p = std::aligned_alloc(64, std::max<size_t>(n, 1) * sizeof(line));
    if (!p) throw std::bad_alloc();
    std::memset(p, 0x11, std::max<size_t>(n, 1) * sizeof(line));
    return static_cast<line *>(p);
}

} // namespace

struct roofline::impl {
    size_t src_lines = 0, dst_lines = 0, ratio = 1;
    bool src_larger = true;
    line *src = nullptr, *dst = nullptr;
    tbb::task_arena arena;

    explicit impl(int threads) : arena(threads) {}
    ~impl() {
        std::free(src);
        std::free(dst);
    }
};

roofline::roofline(size_t read_bytes, size_t write_bytes, int threads)
    : impl_(std::make_unique<impl>(std::max(1, threads))), threads_(std::max(1, threads)) {
    impl &m = *impl_;
    m.src_lines = (read_bytes + 63) / 64;
    m.dst_lines = (write_bytes + 63) / 64;
    m.src_larger = m.src_lines >= m.dst_lines;
    if (m.src_lines && m.dst_lines)
        m.ratio = m.src_larger ? m.src_lines / m.dst_lines : (m.dst_lines + m.src_lines - 1) / m.src_lines;
    // Whole multiples of the ratio: the last few lines of the larger side may be skipped,
    // at most ratio-1 lines (< 256 bytes for the 4:1 of f32:u8).
    m.src = alloc_lines(m.src_lines);
    m.dst = alloc_lines(m.dst_lines);
    if (m.src_larger) m.dst_lines = m.src_lines / std::max<size_t>(m.ratio, 1);
    else m.dst_lines = std::min(m.dst_lines, m.src_lines * m.ratio);
}

roofline::~roofline() = default;

void roofline::pass(int threads) {
    impl &m = *impl_;
    if (m.src_lines == 0 || m.dst_lines == 0) return;
    if (threads <= 1) {
        move_lines(m.src, m.dst, 0, m.dst_lines, m.ratio, m.src_larger);
        return;
    }
    m.arena.execute([&] {
        tbb::parallel_for(0, threads, [&](int t) {
            const size_t chunk = (m.dst_lines + threads - 1) / threads;
            const size_t b = std::min(m.dst_lines, chunk * t);
            const size_t e = std::min(m.dst_lines, b + chunk);
            move_lines(m.src, m.dst, b, e, m.ratio, m.src_larger);
        }, tbb::static_partitioner());
    });
}

void roofline::run() {
    if (chosen_ == 0) {
        if (threads_ == 1) {
            chosen_ = 1;
        } else {
            // Best of 5 each, after one warm pass each.
            using clock = std::chrono::steady_clock;
            double best[2] = {1e30, 1e30};
            const int cand[2] = {1, threads_};
            for (int c = 0; c < 2; ++c) pass(cand[c]);
            for (int rep = 0; rep < 5; ++rep)
                for (int c = 0; c < 2; ++c) {
                    const auto t0 = clock::now();
                    pass(cand[c]);
                    best[c] = std::min(best[c],
                            std::chrono::duration<double>(clock::now() - t0).count());
                }
            chosen_ = best[1] < best[0] ? threads_ : 1;
        }
    }
    pass(chosen_);
}

} // namespace qbench
} // namespace qgraph
