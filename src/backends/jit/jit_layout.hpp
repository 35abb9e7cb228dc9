#ifndef QGRAPH_BACKENDS_JIT_JIT_LAYOUT_HPP
#define QGRAPH_BACKENDS_JIT_JIT_LAYOUT_HPP

// How the JIT driver walks a canonical problem: an inner run of L contiguous elements (stride 1
// in src and dst) repeated over up to 11 outer dims with any strides. The flat index space
// [0, rows * L) is cut into per-thread ranges; walk() turns a range back into pieces (whole
// runs along the innermost outer dim, or the part of a run where a range starts or ends).

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "backends/problem.hpp"

namespace qgraph {
namespace impl {
namespace jit {

struct run_layout {
    static constexpr int max_outer = 11;
    int64_t inner = 1; ///< L
    int64_t rows = 1;
    int nouter = 0;
    std::array<int64_t, max_outer> dims {};
    std::array<int64_t, max_outer> src_strides {};
    std::array<int64_t, max_outer> dst_strides {};
    int channel_outer = -1; ///< outer dim the parameters vary along, or -1
    bool channel_inner = false; ///< parameters vary along the inner run

    /// Fills the layout from a canonical problem, or returns false with `reason`.
    bool init(const quant_problem &p, std::string &reason);

    /// A piece: `rows` runs (or one part of a run) of `n` elements each, the first starting
    /// at element offsets src/dst and each next one src_row_stride/dst_row_stride further,
    /// with the parameter index of the first row's first element (`lane`: the inner index
    /// when parameters vary along the run; otherwise the channel of the first row, or 0),
    /// which grows by channel_step from row to row.
    struct piece {
        int64_t src;
        int64_t dst;
        int64_t n;
        int64_t channel;
        int64_t lane;
        int64_t rows;
        int64_t src_row_stride;
        int64_t dst_row_stride;
        int64_t channel_step;
    };

    /// Calls f(piece) for every piece of the flat range [begin, end), in order. Whole runs
    /// along the innermost outer dim come in one piece, so that a kernel call covers many
    /// short runs; a range that starts or ends inside a run gets that part alone.
    template <typename F>
    void walk(int64_t begin, int64_t end, F &&f) const {
        if (begin >= end) return;
        int64_t row = begin / inner, off = begin % inner;
        std::array<int64_t, max_outer> idx {};
        for (int d = nouter - 1; d >= 0; --d) {
            idx[d] = row % dims[d];
            row /= dims[d];
        }
        const int last = nouter - 1;
        int64_t pos = begin;
        while (pos < end) {
            int64_t so = 0, dof = 0;
            for (int d = 0; d < nouter; ++d) {
                so += idx[d] * src_strides[d];
                dof += idx[d] * dst_strides[d];
            }
            const int64_t ch = channel_outer >= 0 ? idx[channel_outer] : 0;
            int64_t rows = 1, advance = 1;
            if (off == 0 && last >= 0 && end - pos >= inner) {
                rows = std::min(dims[last] - idx[last], (end - pos) / inner);
                advance = rows;
            }
            const int64_t n = std::min(inner - off, end - pos);
            f(piece {so + off, dof + off, n, ch, channel_inner ? off : 0, rows,
                    last >= 0 ? src_strides[last] : 0, last >= 0 ? dst_strides[last] : 0,
                    channel_outer >= 0 && channel_outer == last ? 1 : 0});
            pos += rows * n;
            off = 0;
            for (int d = last; d >= 0; --d) {
                idx[d] += advance;
                if (idx[d] < dims[d]) break;
                idx[d] = 0;
                advance = 1;
            }
        }
    }
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
