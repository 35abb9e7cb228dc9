#ifndef QGRAPH_BACKENDS_JIT_JIT_LAYOUT_HPP
#define QGRAPH_BACKENDS_JIT_JIT_LAYOUT_HPP

// How the JIT driver walks a canonical problem: an inner run of L contiguous elements (stride 1
// in src and dst) repeated over up to 11 outer dims with any strides. The flat index space
// [0, rows * L) is cut into per-thread ranges; walk() turns a range back into pieces (whole
// runs along the innermost outer dim, or the part of a run where a range starts or ends).
//
// A problem whose src and dst are contiguous along different dims (NCHW <-> NHWC) is walked
// tile by tile instead (tile_plan, jit_tiles.hpp): the code runs between the wide side and a
// stack buffer, and a copy transposes the buffer to or from the narrow side.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "backends/problem.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// The tiles of a transposing problem. The wide side (quantize: src; dequantize: dst, the f32
/// or half side) is contiguous along dim K, the narrow side (the integer side, 1 to 4 bytes)
/// along another dim T. A tile is tt x tk elements at (t0, k0) of one index of the other
/// dims; the code converts it between the wide side (rows along T, runs along K) and a
/// buffer of narrow elements laid out the same way (row pitch tk), and copy_tile_out /
/// copy_tile_in (jit_tiles.hpp) transpose the buffer to or from the narrow side.
struct tile_plan {
    static constexpr int max_other = 10;
    static constexpr int64_t buffer_bytes = 16384; ///< the buffer, on each thread's stack
    bool active = false;
    bool narrow_dst = true; ///< quantize: the code fills the buffer, which then goes to dst
    int narrow_size = 1; ///< bytes per narrow element
    int64_t nk = 1, nt = 1; ///< extents of K and T
    int64_t tk = 1, tt = 1; ///< tile extents
    int64_t wide_t_stride = 0; ///< the wide side's stride along T (along K it is 1)
    int64_t narrow_k_stride = 0; ///< the narrow side's stride along K (along T it is 1)
    int nother = 0; ///< the other dims, outermost first
    std::array<int64_t, max_other> dims {};
    std::array<int64_t, max_other> wide_strides {};
    std::array<int64_t, max_other> narrow_strides {};
    int channel_other = -1; ///< the channel's index among the other dims, or -1
    bool channel_k = false; ///< the channel is K (parameters vary along each run)
    bool channel_t = false; ///< the channel is T (parameters vary from row to row)
    bool avx512 = false; ///< the copies may use AVX-512 (set with the kernel's ISA)
    /// Dequantize: tiles whose kn and tn are multiples of these go from src to dst in one
    /// pass, without the buffer (a piece with src_lane_stride != 1, for the driver's
    /// transposing code); 0: none do. Set by the driver.
    int64_t direct_k = 0, direct_t = 0;
    /// A same-type copy (convert): each tile is one transpose from src to dst, with no code
    /// and no buffer. Set by the driver.
    bool copy = false;

    int64_t k_blocks() const { return (nk + tk - 1) / tk; }
    int64_t t_blocks() const { return (nt + tt - 1) / tt; }
    int64_t tiles() const {
        int64_t n = k_blocks() * t_blocks();
        for (int d = 0; d < nother; ++d) n *= dims[d];
        return n;
    }
};

struct run_layout {
    static constexpr int max_outer = 11;
    int64_t inner = 1; ///< L
    int64_t rows = 1;
    int nouter = 0;
    std::array<int64_t, max_outer> dims {};
    std::array<int64_t, max_outer> src_strides {};
    std::array<int64_t, max_outer> dst_strides {};
    /// Outer dim the parameters vary along (the innermost such dim when they vary along
    /// several), or -1.
    int channel_outer = -1;
    bool channel_inner = false; ///< parameters vary along the inner run
    /// How a row's parameter index grows along each outer dim: 1 along the channel of a
    /// per-channel problem (the index is the channel, which the drivers scale by the
    /// channel's strides); the dim's stride in entries of the parameter tensors when they
    /// vary along several dims (blocks split into rows by split_full_groups: blocks along
    /// the last dim make the rows of each outer index a row of the tensor, blocks along an
    /// outer dim a run of rows whose lanes read one row of it); the index is then the entry
    /// (with channel_inner, of the lanes' first one) and the drivers' strides are 1; 0 along
    /// dims they do not vary along.
    std::array<int64_t, max_outer> param_steps {};

    /// Parameters vary from row to row or along the run (not per tensor).
    bool params_vary() const { return channel_outer >= 0 || channel_inner; }
    /// Active when src and dst are contiguous along different dims: the layout above is then
    /// that of the problem with T and K moved last, whose narrow side is the tile buffer's
    /// (only the wide side's strides are real: DynamicQuantizeLinear's min/max pass walks
    /// src with them), and pieces come from jit_tiles.hpp instead of walk().
    tile_plan tiles;

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
        /// 1: a row's elements follow each other in src. Otherwise a direct tile (tile_plan):
        /// rows run along the destination's contiguous dim (K), src_lane_stride elements
        /// apart in src, and the next row starts src_row_stride (1) further.
        int64_t src_lane_stride = 1;
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
            int64_t ch = 0;
            for (int d = 0; d < nouter; ++d)
                ch += idx[d] * param_steps[d];
            int64_t rows = 1, advance = 1;
            if (off == 0 && last >= 0 && end - pos >= inner) {
                rows = std::min(dims[last] - idx[last], (end - pos) / inner);
                advance = rows;
            }
            const int64_t n = std::min(inner - off, end - pos);
            f(piece {so + off, dof + off, n, ch, channel_inner ? off : 0, rows,
                    last >= 0 ? src_strides[last] : 0, last >= 0 ? dst_strides[last] : 0,
                    last >= 0 ? param_steps[last] : 0});
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

private:
    bool init_runs(const quant_problem &p, std::string &reason);
    /// Parameters along several outer dims, one entry per row (param_steps).
    bool init_entry_rows(const quant_problem &p, std::string &reason);
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
