#ifndef QGRAPH_BACKENDS_JIT_JIT_LAYOUT_HPP
#define QGRAPH_BACKENDS_JIT_JIT_LAYOUT_HPP

// How the JIT driver walks a canonical problem: an inner run of L contiguous elements (stride 1
// in src and dst) repeated over up to 11 outer dims with any strides. The flat index space
// [0, rows * L) is cut into per-thread ranges; walk() turns a range back into calls on
// contiguous pieces of runs, so a thread may start and end in the middle of a run.

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

    /// A piece of a run: `n` elements starting at element offsets src/dst, with the
    /// parameter index of its first element (`lane`: the inner index when parameters vary
    /// along the run; otherwise the channel of the run, or 0).
    struct piece {
        int64_t src;
        int64_t dst;
        int64_t n;
        int64_t channel;
        int64_t lane;
    };

    /// Calls f(piece) for every piece of the flat range [begin, end), in order.
    template <typename F>
    void walk(int64_t begin, int64_t end, F &&f) const {
        if (begin >= end) return;
        int64_t row = begin / inner, off = begin % inner;
        std::array<int64_t, max_outer> idx {};
        for (int d = nouter - 1; d >= 0; --d) {
            idx[d] = row % dims[d];
            row /= dims[d];
        }
        int64_t pos = begin;
        while (pos < end) {
            int64_t so = 0, dof = 0;
            for (int d = 0; d < nouter; ++d) {
                so += idx[d] * src_strides[d];
                dof += idx[d] * dst_strides[d];
            }
            const int64_t n = inner - off < end - pos ? inner - off : end - pos;
            const int64_t ch = channel_outer >= 0 ? idx[channel_outer] : 0;
            f(piece {so + off, dof + off, n, ch, channel_inner ? off : 0});
            pos += n;
            off = 0;
            for (int d = nouter - 1; d >= 0; --d) {
                if (++idx[d] < dims[d]) break;
                idx[d] = 0;
            }
        }
    }
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
