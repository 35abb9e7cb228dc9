#include "tools/qbench/roofline.hpp"

#include <algorithm>
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
// baseline x86-64). Destination lines [d0, d1) of `nd` from the `ns` source lines spread
// evenly over them: each destination line ORs its share of source lines together when the
// sources are larger, else copies the source line it falls on. The share boundaries advance
// by quotient and remainder (Bresenham), so no division runs per line.
__attribute__((target_clones("avx512f", "avx2", "default"))) void move_lines(
        const line *src, size_t ns, line *dst, size_t nd, size_t d0, size_t d1) {
    const size_t q = ns / nd, r = ns % nd;
    size_t b = static_cast<size_t>((static_cast<unsigned __int128>(d0) * ns) / nd);
    size_t rem = static_cast<size_t>((static_cast<unsigned __int128>(d0) * ns) % nd);
    for (size_t i = d0; i < d1; ++i) {
        size_t e = b + q, rem_next = rem + r;
        if (rem_next >= nd) {
            ++e;
            rem_next -= nd;
        }
        line acc = src[b < ns ? b : ns - 1];
        for (size_t k = b + 1; k < e; ++k)
            for (int j = 0; j < 8; ++j) acc.w[j] |= src[k].w[j];
        dst[i] = acc;
        b = e;
        rem = rem_next;
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
    size_t src_lines = 0, dst_lines = 0;
    line *src = nullptr, *dst = nullptr;
    tbb::task_arena arena;
    bool omp;

    impl(int threads, bool on_omp) : arena(threads), omp(on_omp) {}
    ~impl() {
        std::free(src);
        std::free(dst);
    }
};

roofline::roofline(size_t read_bytes, size_t write_bytes, int threads, bool omp)
    : impl_(std::make_unique<impl>(std::max(1, threads), omp)), threads_(std::max(1, threads)) {
    impl &m = *impl_;
    m.src_lines = (read_bytes + 63) / 64;
    m.dst_lines = (write_bytes + 63) / 64;
    m.src = alloc_lines(m.src_lines);
    m.dst = alloc_lines(m.dst_lines);
}

roofline::~roofline() = default;

void roofline::run() {
    impl &m = *impl_;
    if (m.src_lines == 0 || m.dst_lines == 0) return;
    const int threads = threads_;
    if (threads == 1) {
        move_lines(m.src, m.src_lines, m.dst, m.dst_lines, 0, m.dst_lines);
        return;
    }
    const auto part = [&](int t) {
        const size_t chunk = (m.dst_lines + threads - 1) / threads;
        const size_t b = std::min(m.dst_lines, chunk * t);
        const size_t e = std::min(m.dst_lines, b + chunk);
        move_lines(m.src, m.src_lines, m.dst, m.dst_lines, b, e);
    };
    if (m.omp) {
#pragma omp parallel for num_threads(threads) schedule(static, 1)
        for (int t = 0; t < threads; ++t) part(t);
        return;
    }
    const auto run = [&] { tbb::parallel_for(0, threads, part, tbb::static_partitioner()); };
    if (threads == tbb::this_task_arena::max_concurrency()) return run();
    m.arena.execute(run);
}

void roofline::execute(const std::function<void()> &f) {
    if (impl_->omp || threads_ == tbb::this_task_arena::max_concurrency()) return f();
    impl_->arena.execute(f);
}

} // namespace qbench
} // namespace qgraph
