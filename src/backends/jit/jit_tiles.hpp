#ifndef QGRAPH_BACKENDS_JIT_JIT_TILES_HPP
#define QGRAPH_BACKENDS_JIT_JIT_TILES_HPP

// The tile walk of a transposing problem (tile_plan, jit_layout.hpp): src and dst contiguous
// along different dims, K on the wide side and T on the narrow side. Each tile goes through a
// buffer on the thread's stack that holds its narrow elements with K contiguous, so that the
// generated code sees ordinary pieces (rows along T, runs along K) on both of its sides:
//
//   quantize:   code: wide src -> buffer,   then copy_tile_out: buffer -> narrow dst
//   dequantize: copy_tile_in: narrow src -> buffer,   then code: buffer -> wide dst
//
// The copies move the narrow side, the smaller one (1 byte against 4 for u8 <-> f32). A
// dequantize whose driver has code that transposes as it converts (tile_plan::direct_k) skips
// the buffer for tiles of whole blocks: src -> code -> wide dst, one pass. A same-type copy
// (tile_plan::copy) has no code: each tile is one transpose, src -> dst.

#include <algorithm>
#include <cstdint>

#include "backends/jit/jit_layout.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// The narrow side of a tile: `tn` rows of `kn` elements in `buf` (row pitch `pitch`
/// elements) go to out[k * ldk + t] (elements of `esize` bytes), or come from there.
/// `avx512`: the CPU (and the ISA cap) allow AVX-512 instructions.
void copy_tile_out(const void *buf, int64_t pitch, void *out, int64_t ldk, int64_t kn,
        int64_t tn, int esize, bool avx512);
void copy_tile_in(const void *in, int64_t ldk, void *buf, int64_t pitch, int64_t kn, int64_t tn,
        int esize, bool avx512);

/// Calls f(piece, src, dst) for tiles [begin, end) of plan, with src or dst the tile buffer
/// and the piece's offsets and strides in elements of the buffers passed; the piece's
/// channel, lane and channel_step follow run_layout's (T is the last outer dim, K the run).
template <typename F>
void for_each_tile(
        const tile_plan &tp, int64_t begin, int64_t end, const void *src, void *dst, F &&f) {
    alignas(64) unsigned char buf[tile_plan::buffer_bytes];
    const int64_t kb = tp.k_blocks(), tb = tp.t_blocks();
    for (int64_t id = begin; id < end; ++id) {
        const int64_t k0 = id % kb * tp.tk, t0 = id / kb % tb * tp.tt;
        int64_t other = id / kb / tb, wide = 0, narrow = 0, channel = 0;
        for (int d = tp.nother - 1; d >= 0; --d) {
            const int64_t i = other % tp.dims[d];
            other /= tp.dims[d];
            wide += i * tp.wide_strides[d];
            narrow += i * tp.narrow_strides[d];
            if (d == tp.channel_other) channel = i;
        }
        const int64_t kn = std::min(tp.tk, tp.nk - k0), tn = std::min(tp.tt, tp.nt - t0);
        wide += t0 * tp.wide_t_stride + k0;
        narrow += t0 + k0 * tp.narrow_k_stride;
        // Rows that follow each other on the wide side as in the buffer (the tile spans K)
        // and share their parameters make one run: a row of the code costs about 1.4 ns, and
        // NHWC tiles are often 64 rows of 64 channels.
        const bool one_run = !tp.channel_t && !tp.channel_k && kn == tp.tk
                && tp.wide_t_stride == kn;
        run_layout::piece pc {};
        pc.n = one_run ? kn * tn : kn;
        pc.rows = one_run ? 1 : tn;
        pc.channel = tp.channel_t ? t0 : channel;
        pc.lane = tp.channel_k ? k0 : 0;
        pc.channel_step = tp.channel_t ? 1 : 0;
        if (tp.copy) {
            copy_tile_out(static_cast<const char *>(src) + wide * tp.narrow_size,
                    tp.wide_t_stride, static_cast<char *>(dst) + narrow * tp.narrow_size,
                    tp.narrow_k_stride, kn, tn, tp.narrow_size, tp.avx512);
        } else if (tp.narrow_dst) {
            pc.src = wide;
            pc.src_row_stride = tp.wide_t_stride;
            pc.dst = 0;
            pc.dst_row_stride = tp.tk;
            f(pc, src, static_cast<void *>(buf));
            copy_tile_out(buf, tp.tk, static_cast<char *>(dst) + narrow * tp.narrow_size,
                    tp.narrow_k_stride, kn, tn, tp.narrow_size, tp.avx512);
        } else if (tp.direct_k > 0 && kn % tp.direct_k == 0 && tn % tp.direct_t == 0) {
            pc.src = narrow;
            pc.src_row_stride = 1;
            pc.src_lane_stride = tp.narrow_k_stride;
            pc.dst = wide;
            pc.dst_row_stride = tp.wide_t_stride;
            pc.n = kn;
            pc.rows = tn;
            f(pc, src, dst);
        } else {
            copy_tile_in(static_cast<const char *>(src) + narrow * tp.narrow_size,
                    tp.narrow_k_stride, buf, tp.tk, kn, tn, tp.narrow_size, tp.avx512);
            pc.src = 0;
            pc.src_row_stride = tp.tk;
            pc.dst = wide;
            pc.dst_row_stride = tp.wide_t_stride;
            f(pc, static_cast<const void *>(buf), dst);
        }
    }
}

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
