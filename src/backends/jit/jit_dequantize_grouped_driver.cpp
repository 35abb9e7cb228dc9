// The grouped dequantize driver: problems whose contiguous inner dim is cut into groups of
// consecutive elements sharing a scale and zero point (ONNX block_size on the last axis,
// oneDNN per_group 1xG), or whose parameters do not vary along it at all, from s4, u4, s8,
// u8, f4_e2m1 or float8 (MX and blocked FP8 weights) sources; and 4-bit sources with a scale
// per element of it (per channel on the last axis, blocks on outer dims: ONNX block_size on
// axis 0 of MatMul weights [K, N]), as groups of 1, several rows with the same parameters a
// call (whole_rows()).
// e8m0 scale tensors are widened to f32 at execute. Rows of the inner dim go to
// jit_dequantize_grouped.hpp's code; a problem whose rows continue one another (dense, whole
// groups) is one run. When x is contiguous along
// another dim than y (oneDNN's int4 weights: x along the grouped K, y along N), 4-bit x in
// groups of whole blocks of 8 with a parameter per n goes to jit_dequantize_grouped_columns.hpp
// on avx512 (column_items, in y's order); other such problems run x through the code into a
// tile on the stack, with their parameters gathered into dense blocks, and the tile is
// transposed into y (transposed_tile). Threads take whole items or tiles.
//
// Threads split the flat element range in multiples of range_align (64) elements. The
// destinations are f32, bf16 or f16, so no two threads ever write one byte; a sub-byte source
// is only read. The code reads sub-byte x from a byte boundary, with every group starting on
// one: groups are even, and rows (when there are several runs) start on even elements. A
// run whose first element is a high nibble (a thread's share starting inside a row of odd
// length, a row with one group) has that element dequantized here, the rest by the code.

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "backends/jit/jit_dequantize_grouped.hpp"
#include "backends/jit/jit_dequantize_grouped_columns.hpp"
#include "backends/jit/jit_driver.hpp"
#include "backends/jit/jit_params.hpp"
#include "backends/jit/jit_tiles.hpp"
#include "common/minifloat.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

// The index arrays of execute live on the stack (execute allocates nothing).
constexpr size_t max_ndims = 12;

class grouped_dequantize_kernel : public kernel {
public:
    grouped_dequantize_kernel(const quant_problem &p, cpu_isa_t isa) : p_(p), isa_(isa) {
        if (p_.dims.empty()) { // a single element: one row of one
            p_.dims = p_.src_strides = p_.dst_strides = {1};
            p_.params = {param_dim {}};
        }
    }

    const char *backend() const override { return "jit"; }
    std::string name() const override {
        return std::string(backend()) + ":" + isa_name(conf_.bf16_insn ? avx512_core_bf16 : isa_);
    }

    bool init(const fallback_factory &next, std::string &reason) {
        const data_type s = p_.src_dt, d = p_.dst_dt;
        if (!four_bit(s) && !is_int8(s) && !is_float8(s)) {
            reason = std::string("grouped dequantize from ") + to_string(s)
                    + " (the kernel reads s4, u4, s8, u8, f4_e2m1 and float8)";
            return false;
        }
        if (d != data_type::f32 && d != data_type::bf16 && d != data_type::f16) {
            reason = std::string("grouped dequantize to ") + to_string(d);
            return false;
        }
        const bool attr = p_.scale_src == param_source::attr;
        // e8m0 scale tensors (MX formats) are widened to f32 at execute (with_widened_scales()).
        widen_e8m0_ = !attr && p_.scale_dt == data_type::e8m0;
        const data_type sdt = attr || widen_e8m0_ ? data_type::f32 : p_.scale_dt;
        if (sdt != data_type::f32 && sdt != data_type::bf16 && sdt != data_type::f16) {
            reason = std::string("scales of type ") + to_string(sdt)
                    + " (the grouped kernel reads f32, bf16, f16)";
            return false;
        }
        data_type zdt = data_type::undef;
        if (p_.zp_src == param_source::attr && is_minifloat(s)) {
            // A float x's static zero points are 0 (checked when the op is added): none.
        } else if (p_.zp_src == param_source::attr) {
            for (int64_t z : p_.zps) {
                if (z > max_dequantize_zp || z < -max_dequantize_zp) {
                    reason = "zero point " + std::to_string(z)
                            + " beyond +-2^30: x - zp needs 64 bits";
                    return false;
                }
                zps_.push_back(static_cast<int32_t>(z));
            }
            zdt = data_type::s32;
        } else if (p_.zp_src == param_source::input && is_minifloat(s)) {
            // A float x's zero-point tensor: zeros, checked at execute (runtime_zps_fit);
            // the code subtracts none.
            float_zps_ = true;
        } else if (p_.zp_src == param_source::input) {
            zdt = p_.zp_dt;
            if (!four_bit(zdt) && !is_quant_int(zdt)) {
                reason = std::string("zero points of type ") + to_string(zdt);
                return false;
            }
        }
        if (p_.dims.size() > max_ndims) {
            reason = "more than " + std::to_string(max_ndims) + " dims";
            return false;
        }
        // The code's run: the last canonical dim when it is contiguous in x and y, else the
        // dim contiguous in x (transposed: y contiguous along the last dim, oneDNN's int4
        // weights), whose runs go to a tile and are transposed into y.
        const size_t last = p_.dims.size() - 1;
        run_dim_ = last;
        if (p_.src_strides[last] != 1 && p_.dst_strides[last] == 1)
            for (size_t d = 0; d < last; ++d)
                if (p_.src_strides[d] == 1) run_dim_ = d;
        if (p_.src_strides[run_dim_] != 1 || p_.dst_strides[last] != 1) {
            reason = "grouped dequantize with a strided inner dim (" + p_.describe() + ")";
            return false;
        }
        const bool transposed = run_dim_ != last;
        const param_dim &in = p_.params[run_dim_];
        if (in.varies()) {
            if (in.group == 1 && transposed) {
                reason = "parameters per element of x's contiguous dim, y being contiguous "
                         "along another (" + p_.describe() + ")";
                return false;
            }
            // Lanes of sub-byte zero points are read from a byte, as x is.
            if (in.group == 1 && four_bit(zdt))
                for (size_t d = 0; d < run_dim_; ++d)
                    if (p_.params[d].zp_stride % 2 != 0) {
                        reason = "sub-byte zero points per element whose rows start inside "
                                 "a byte (odd stride " + std::to_string(p_.params[d].zp_stride)
                                + ")";
                        return false;
                    }
            // A transposed tile gathers each run's parameters into a dense block.
            if (!transposed
                    && (in.scale_stride != 1 || (zdt != data_type::undef && in.zp_stride != 1))) {
                reason = "strided scale or zero-point tensor along the groups";
                return false;
            }
            if (four_bit(s) && in.group % 2 != 0 && in.group != 1) {
                reason = "odd group size " + std::to_string(in.group) + " of a "
                        + to_string(s) + " source (groups must start on a byte)";
                return false;
            }
        }
        group_ = in.varies() ? in.group : 0;
        row_ = p_.dims[last];
        flat_ = !transposed && is_flat(zdt != data_type::undef);
        // A row starting on a high nibble would have every group start on one; the code
        // reads whole bytes (a row with one group only needs its first element done here;
        // a transposed tile's runs always start on a byte).
        if (four_bit(s) && (group_ > 0 || transposed) && !flat_)
            for (size_t d = 0; d <= last; ++d)
                if (d != run_dim_ && p_.src_strides[d] % 2 != 0) {
                    reason = "grouped " + std::string(to_string(s))
                            + " rows starting inside a byte (odd row stride "
                            + std::to_string(p_.src_strides[d]) + ")";
                    return false;
                }

        conf_.isa = isa_;
        conf_.src_dt = s;
        conf_.dst_dt = d;
        conf_.scale_dt = sdt;
        // A transposed tile widens the zero points it gathers to s32 (exact for every type).
        conf_.zp_dt = transposed && zdt != data_type::undef ? data_type::s32 : zdt;
        zp_dt_ = zdt;
        conf_.group = group_;
        // Lanes of 4-bit x take the instruction in lane blocks whose scales hold no
        // subnormal (x - zp is an integer), and round the rest of a row in integers; lanes
        // of 8-bit x round every bf16 result in integers. Float x never takes it: 0.5
        // (float4) or a float8 subnormal times a normal scale may be subnormal, which the
        // instruction flushes.
        conf_.bf16_insn = d == data_type::bf16 && isa_ == avx512_core
                && mayiuse(avx512_core_bf16, p_.isa_cap) && (group_ != 1 || four_bit(s))
                && !is_minifloat(s);
        conf_.vbmi = vbmi_code(isa_);
        if ((zdt == data_type::s32 && p_.zp_src == param_source::input) || float_zps_)
            fallback_ = next();
        if (transposed && columns_fit(zdt)) {
            grouped_columns_conf cc;
            cc.src_dt = s;
            cc.dst_dt = d;
            cc.scale_dt = sdt;
            cc.zp_dt = zdt;
            cc.group_blocks = group_ / 8;
            cc.bf16_insn = conf_.bf16_insn;
            columns_ = std::make_unique<jit_grouped_columns_kernel>(cc);
        } else {
            code_ = std::make_unique<jit_grouped_dequantize_kernel>(conf_);
        }
        return true;
    }

    const char *fallback_reason(const exec_args &a) const override {
        if (p_.nelems == 0 || runtime_zps_fit(a)) return nullptr;
        return float_zps_ ? "float zero point other than 0 (the fallback reports it)"
                          : "runtime s32 zero point beyond +-2^30 (x - zp would overflow s32)";
    }

    const kernel &run(const exec_args &args) const override {
        if (p_.nelems == 0) return *this;
        if (!runtime_zps_fit(args)) return fallback_->run(args);
        std::shared_ptr<const widened_scales> widened;
        const exec_args a = with_widened_scales(args, widened);
        const int64_t x_bytes = four_bit(p_.src_dt) ? (p_.nelems + 1) / 2 : p_.nelems;
        const int nthr = threads_for(
                a.par.max_threads, x_bytes + p_.nelems * static_cast<int64_t>(dst_size()));
        if (columns_) {
            // Whole items per thread: each writes its own block of y.
            parallel(a.par, nthr, [&](int ithr, int n) {
                int64_t b, e;
                balance(column_items(), 1, ithr, n, b, e);
                column_items(a, b, e);
            });
            return *this;
        }
        if (run_dim_ != p_.dims.size() - 1) {
            // Whole tiles per thread: each writes its own block of y.
            parallel(a.par, nthr, [&](int ithr, int n) {
                int64_t b, e;
                balance(tiles(), 1, ithr, n, b, e);
                for (int64_t t = b; t < e; ++t) transposed_tile(a, t);
            });
            return *this;
        }
        parallel(a.par, nthr, [&](int ithr, int n) {
            int64_t b, e;
            balance(p_.nelems, range_align, ithr, n, b, e);
            if (b >= e) return;
            if (flat_) return segment(a, {0, 0, 0, 0}, b, e);
            for (int64_t r = b / row_; r * row_ < e;) {
                const int64_t j0 = std::max<int64_t>(b - r * row_, 0);
                const int64_t j1 = std::min<int64_t>(e - r * row_, row_);
                r += j0 == 0 && j1 == row_ ? whole_rows(a, r, e / row_ - r)
                                           : (segment(a, row_start(r), j0, j1), 1);
            }
        });
        return *this;
    }

private:
    quant_problem p_;
    cpu_isa_t isa_;
    grouped_conf conf_;
    bool widen_e8m0_ = false; ///< e8m0 scale tensor: the code reads it widened to f32
    bool float_zps_ = false; ///< float x with a zero-point tensor, which must hold zeros

    /// a, or with an e8m0 scale tensor a copy whose scales are the entries up to the last
    /// one the map reaches, as f32 (exact: powers of two, code 255 NaN), in `w` (kept from
    /// call to call where the tensor is small: kept_setup).
    exec_args with_widened_scales(
            const exec_args &a, std::shared_ptr<const widened_scales> &w) const {
        if (!widen_e8m0_) return a;
        const int64_t n = p_.scale_span();
        const uint8_t *c = static_cast<const uint8_t *>(a.scales);
        w = kept_e8m0_.get({{c, static_cast<size_t>(n)}}, [&] {
            widened_scales r {std::unique_ptr<float[]>(new float[static_cast<size_t>(n)])};
            float *f = r.f32.get();
            widen_in_parts(a.par, n, n * static_cast<int64_t>(1 + sizeof(float)),
                    [&](int64_t b, int64_t e) { e8m0_to_f32(c + b, f + b, e - b); });
            return r;
        });
        exec_args x = a;
        x.scales = w->f32.get();
        return x;
    }
    kept_setup<widened_scales> kept_e8m0_; ///< widen_e8m0_'s f32 scales
    std::unique_ptr<jit_grouped_dequantize_kernel> code_; ///< or columns_
    std::unique_ptr<jit_grouped_columns_kernel> columns_; ///< transposed 4-bit x, y's order
    std::unique_ptr<kernel> fallback_; ///< runtime s32 zero points beyond +-2^30
    std::vector<int32_t> zps_; ///< static zero points (the code reads them as s32)
    data_type zp_dt_ = data_type::undef; ///< of zps_ or the zero-point input; undef: none
    size_t run_dim_ = 0; ///< the dim the code runs along: contiguous in x
    int64_t group_ = 0; ///< along run_dim_; 0: one parameter entry per run
    int64_t row_ = 0; ///< inner dim
    bool flat_ = false;

    /// Offsets (elements) of a row's first element and of its first parameters.
    struct offsets {
        int64_t src, dst, scale, zp;
    };

    size_t dst_size() const { return size_of(p_.dst_dt); }

    /// Every row continues the previous one in x, y and the parameter tensors, with whole
    /// groups: the problem is one run of nelems elements.
    bool is_flat(bool has_zp) const {
        if (p_.dims.size() == 1) return true;
        if (group_ == 0 || row_ % group_ != 0) return false;
        int64_t elems = row_, prms = row_ / group_;
        for (size_t d = p_.dims.size() - 1; d-- > 0;) {
            const param_dim &pd = p_.params[d];
            if (p_.src_strides[d] != elems || p_.dst_strides[d] != elems || pd.group != 1
                    || pd.scale_stride != prms || (has_zp && pd.zp_stride != prms))
                return false;
            elems *= p_.dims[d];
            prms *= p_.dims[d];
        }
        return true;
    }

    offsets row_start(int64_t r) const {
        int64_t idx[max_ndims] = {};
        const size_t last = p_.dims.size() - 1;
        for (size_t d = last; d-- > 0;) {
            idx[d] = r % p_.dims[d];
            r /= p_.dims[d];
        }
        offsets o {0, 0, p_.scale_offset(idx), p_.zp_offset(idx)};
        for (size_t d = 0; d < last; ++d) {
            o.src += idx[d] * p_.src_strides[d];
            o.dst += idx[d] * p_.dst_strides[d];
        }
        return o;
    }

    /// Rows at most a call of several rows takes (takes_rows()). The code goes lane block by
    /// lane block over all of them, each row a stream of x and one of y: more rows share a
    /// block's parameters, fewer keep the streams few (docs/performance.md, "4-bit lanes").
    static constexpr int64_t max_call_rows = 8;

    /// Whole rows from r (at most `left`): those with r's parameter row, at r's row strides,
    /// as one call of several rows where the code takes them (their elements past the last
    /// whole lane block a call each), else the one row r. Returns the rows done.
    int64_t whole_rows(const exec_args &a, int64_t r, int64_t left) const {
        const offsets o = row_start(r);
        const int64_t blocks = row_ / lane_block(conf_) * lane_block(conf_);
        if (!takes_rows(conf_) || blocks == 0 || left < 2) {
            segment(a, o, 0, row_);
            return 1;
        }
        const offsets o1 = row_start(r + 1);
        const int64_t src_step = o1.src - o.src, dst_step = o1.dst - o.dst;
        int64_t k = 1;
        for (; k < std::min(left, max_call_rows); ++k) {
            const offsets ok = row_start(r + k);
            if (ok.scale != o.scale || ok.zp != o.zp || ok.src != o.src + k * src_step
                    || ok.dst != o.dst + k * dst_step)
                break;
        }
        segment(a, o, 0, blocks, k, src_step, dst_step);
        if (blocks < row_)
            for (int64_t i = 0; i < k; ++i) segment(a, row_start(r + i), blocks, row_);
        return k;
    }

    /// Elements [j0, j1) of the row starting at o, and of rows - 1 more rows with the same
    /// parameters at src_step / dst_step elements from one another (takes_rows()).
    void segment(const exec_args &a, const offsets &o, int64_t j0, int64_t j1,
            int64_t rows = 1, int64_t src_step = 0, int64_t dst_step = 0) const {
        const bool attr = p_.scale_src == param_source::attr;
        const void *scales = attr ? static_cast<const void *>(p_.scales.data()) : a.scales;
        const void *zps = p_.zp_src == param_source::attr ? zps_.data() : a.zps;
        if (four_bit(p_.src_dt) && (o.src + j0) % 2 != 0) {
            scalar(a, o, j0, scales, zps);
            if (++j0 == j1) return;
        }
        const int64_t g = group_ > 0 ? j0 / group_ : 0;
        grouped_call c;
        c.src = static_cast<const char *>(a.src)
                + (four_bit(p_.src_dt) ? (o.src + j0) / 2 : o.src + j0);
        c.dst = static_cast<char *>(a.dst) + (o.dst + j0) * static_cast<int64_t>(dst_size());
        c.scales = static_cast<const char *>(scales)
                + (o.scale + g) * static_cast<int64_t>(size_of(conf_.scale_dt));
        c.zps = zps;
        c.zp_index = o.zp + g;
        c.n = j1 - j0;
        c.first = group_ > 0 ? std::min(group_ - j0 % group_, c.n) : c.n;
        c.rows = rows;
        c.src_stride = four_bit(p_.src_dt) ? src_step / 2 : src_step; // even for 4-bit x
        c.dst_stride = dst_step * static_cast<int64_t>(dst_size());
        (*code_)(&c);
    }

    /// Element j of the row at o, as the reference computes it (NUMERICS.md).
    void scalar(const exec_args &a, const offsets &o, int64_t j, const void *scales,
            const void *zps) const {
        const int64_t g = group_ > 0 ? j / group_ : 0;
        const float s = load_float(scales, conf_.scale_dt, o.scale + g);
        if (is_minifloat(p_.src_dt)) {
            const float x = minifloat_to_f32(p_.src_dt, load_code(a.src, p_.src_dt, o.src + j));
            return store_float(a.dst, p_.dst_dt, o.dst + j, x * s);
        }
        const int64_t zp = conf_.zp_dt == data_type::undef ? 0
                                                           : load_int(zps, conf_.zp_dt, o.zp + g);
        store_float(a.dst, p_.dst_dt, o.dst + j,
                dequantize_value(load_int(a.src, p_.src_dt, o.src + j), zp, s));
    }

    // A transposed tile: tile_runs runs (consecutive elements of y's contiguous last dim) of
    // tile_len elements along run_dim_ each, dequantized by the code into a stack block in
    // x's order and transposed into y. tile_len is even, so every run starts on a byte.
    static constexpr int64_t tile_len = 128;
    static constexpr int64_t tile_runs = 32;
    /// Groups one run of a tile may touch (a partial first group, then groups of >= 2).
    static constexpr int64_t tile_groups = tile_len / 2 + 1;

    int64_t tiles() const {
        const size_t last = p_.dims.size() - 1;
        const int64_t len = p_.dims[run_dim_], runs = p_.dims[last];
        return p_.nelems / (len * runs) * ((len + tile_len - 1) / tile_len)
                * ((runs + tile_runs - 1) / tile_runs);
    }

    /// A transposed 4-bit x goes to jit_dequantize_grouped_columns.hpp's code, in y's order,
    /// when avx512 has it: groups of whole blocks of 8 along x's contiguous dim (which they
    /// and their parameters cut into whole blocks), one parameter per element of y's
    /// contiguous dim, dense, and sub-byte zero points whose rows start on a byte.
    bool columns_fit(data_type zdt) const {
        const size_t last = p_.dims.size() - 1;
        const param_dim &pl = p_.params[last];
        if (isa_ != avx512_core || !four_bit(p_.src_dt) || is_minifloat(p_.src_dt)
                || group_ == 0 || group_ % 8 != 0 || p_.dims[run_dim_] % 8 != 0)
            return false;
        if (pl.group != 1 || pl.scale_stride != 1
                || (zdt != data_type::undef && pl.zp_stride != 1))
            return false;
        if (four_bit(zdt))
            for (size_t d = 0; d < last; ++d)
                if (p_.params[d].zp_stride % 2 != 0) return false;
        return true;
    }

    // The columns code's work items: column_rows of x's contiguous dim by column_cols of y's,
    // per index of the other dims, numbered with the index along outer_dim() fastest so that
    // a thread's consecutive items are mostly one call repeated along it (a call per 32x128
    // weight of the conformance cases cost 8% of the time); each thread takes whole items.
    static constexpr int64_t column_rows = 8 * grouped_columns_max_blocks;
    static constexpr int64_t column_cols = 256;

    int64_t column_items() const {
        const int64_t k = p_.dims[run_dim_], n = p_.dims[p_.dims.size() - 1];
        return p_.nelems / (k * n) * ((k + column_rows - 1) / column_rows)
                * ((n + column_cols - 1) / column_cols);
    }

    /// The dim a call repeats along: the innermost but x's and y's contiguous ones, when its
    /// parameters move by a fixed stride per element (not grouped); else none (-1).
    int outer_dim() const {
        const size_t last = p_.dims.size() - 1;
        for (size_t d = last; d-- > 0;)
            if (d != run_dim_) return p_.params[d].group > 1 ? -1 : static_cast<int>(d);
        return -1;
    }

    /// Items [b, e): a call per run of consecutive indices along outer_dim().
    void column_items(const exec_args &a, int64_t b, int64_t e) const {
        const size_t last = p_.dims.size() - 1, c = run_dim_;
        const int o = outer_dim();
        const int64_t outer = o >= 0 ? p_.dims[o] : 1;
        const int64_t items_n = (p_.dims[last] + column_cols - 1) / column_cols;
        const int64_t items_k = (p_.dims[c] + column_rows - 1) / column_rows;
        const bool attr = p_.scale_src == param_source::attr;
        const char *scales = attr ? reinterpret_cast<const char *>(p_.scales.data())
                                  : static_cast<const char *>(a.scales);
        const int64_t ysz = static_cast<int64_t>(dst_size());
        const int64_t ssz = static_cast<int64_t>(size_of(conf_.scale_dt));
        for (int64_t t = b; t < e;) {
            int64_t idx[max_ndims] = {};
            int64_t r = t;
            const int64_t i_o = r % outer;
            r /= outer;
            idx[last] = r % items_n * column_cols;
            r /= items_n;
            idx[c] = r % items_k * column_rows;
            r /= items_k;
            for (size_t d = last; d-- > 0;) {
                if (d == c) continue;
                if (static_cast<int>(d) == o) {
                    idx[d] = i_o;
                    continue;
                }
                idx[d] = r % p_.dims[d];
                r /= p_.dims[d];
            }
            int64_t x = 0, y = 0;
            for (size_t d = 0; d <= last; ++d) {
                x += idx[d] * p_.src_strides[d];
                y += idx[d] * p_.dst_strides[d];
            }
            grouped_columns_call call;
            call.src = static_cast<const char *>(a.src) + x / 2;
            call.dst = static_cast<char *>(a.dst) + y * ysz;
            call.scales = scales + p_.scale_offset(idx) * ssz;
            call.zps = p_.zp_src == param_source::attr ? zps_.data() : a.zps;
            call.zp_index = p_.zp_offset(idx);
            call.cols = std::min(column_cols, p_.dims[last] - idx[last]);
            call.blocks = std::min(column_rows, p_.dims[c] - idx[c]) / 8;
            call.first = (group_ - idx[c] % group_) / 8;
            call.src_col_stride = p_.src_strides[last] / 2;
            call.dst_row_stride = p_.dst_strides[c] * ysz;
            call.scale_group_stride = p_.params[c].scale_stride;
            call.zp_group_stride = p_.params[c].zp_stride;
            call.outer = std::min(outer - i_o, e - t);
            if (o >= 0) {
                call.src_outer_stride = p_.src_strides[o] / 2;
                call.dst_outer_stride = p_.dst_strides[o] * ysz;
                call.scale_outer_stride = p_.params[o].varies() ? p_.params[o].scale_stride : 0;
                call.zp_outer_stride = p_.params[o].varies() ? p_.params[o].zp_stride : 0;
            } else {
                call.src_outer_stride = call.dst_outer_stride = 0;
                call.scale_outer_stride = call.zp_outer_stride = 0;
            }
            (*columns_)(&call);
            t += call.outer;
        }
    }

    /// Tile t: the runs' parameters are gathered into dense blocks (zero points widened to
    /// s32), each run goes through the code into y_tile, which is then transposed into y.
    void transposed_tile(const exec_args &a, int64_t t) const {
        const size_t last = p_.dims.size() - 1, c = run_dim_;
        const int64_t runs_per = (p_.dims[last] + tile_runs - 1) / tile_runs;
        const int64_t tiles_per = (p_.dims[c] + tile_len - 1) / tile_len;
        const int64_t j0 = t % runs_per * tile_runs, l0 = t / runs_per % tiles_per * tile_len;
        int64_t r = t / runs_per / tiles_per;
        int64_t idx[max_ndims] = {};
        for (size_t d = last; d-- > 0;) {
            if (d == c) continue;
            idx[d] = r % p_.dims[d];
            r /= p_.dims[d];
        }
        idx[c] = l0;
        const int64_t len = std::min(tile_len, p_.dims[c] - l0);
        const int64_t runs = std::min(tile_runs, p_.dims[last] - j0);
        const int64_t first = group_ > 0 ? std::min(group_ - l0 % group_, len) : len;
        const int64_t ngroups = group_ > 0 ? 1 + (len - first + group_ - 1) / group_ : 1;
        const param_dim &pc = p_.params[c];
        const bool attr = p_.scale_src == param_source::attr;
        const char *scales = attr ? reinterpret_cast<const char *>(p_.scales.data())
                                  : static_cast<const char *>(a.scales);
        const void *zps = p_.zp_src == param_source::attr ? zps_.data() : a.zps;
        const size_t ssz = size_of(conf_.scale_dt), ysz = dst_size();

        alignas(64) uint16_t y_tile[tile_runs * tile_len * 2]; // f32 y: two words an element
        alignas(64) unsigned char s_run[tile_groups * sizeof(float)];
        alignas(64) int32_t z_run[tile_groups];
        // Run j's parameters: those of the tile's first column plus its own along `last`.
        idx[last] = 0;
        const int64_t so0 = p_.scale_offset(idx), zo0 = p_.zp_offset(idx);
        int64_t x0 = 0;
        for (size_t d = 0; d <= last; ++d) x0 += idx[d] * p_.src_strides[d];
        const param_dim &pl = p_.params[last];
        for (int64_t j = 0; j < runs; ++j) {
            const int64_t e = pl.varies() ? (j0 + j) / pl.group : 0;
            const int64_t so = so0 + e * pl.scale_stride, zo = zo0 + e * pl.zp_stride;
            if (ssz == 4)
                gather<4>(scales, so, pc.scale_stride, ngroups, s_run);
            else
                gather<2>(scales, so, pc.scale_stride, ngroups, s_run);
            if (zp_dt_ != data_type::undef)
                gather_zps(zps, zo, pc.zp_stride, ngroups, z_run);
            const int64_t x = x0 + (j0 + j) * p_.src_strides[last];
            grouped_call call;
            call.src = static_cast<const char *>(a.src) + (four_bit(p_.src_dt) ? x / 2 : x);
            call.dst = reinterpret_cast<char *>(y_tile) + j * tile_len * ysz;
            call.scales = s_run;
            call.zps = z_run;
            call.zp_index = 0;
            call.n = len;
            call.first = first;
            (*code_)(&call);
        }
        idx[last] = j0;
        int64_t y = 0;
        for (size_t d = 0; d <= last; ++d) y += idx[d] * p_.dst_strides[d];
        char *dst = static_cast<char *>(a.dst) + y * static_cast<int64_t>(ysz);
        const int64_t ys = p_.dst_strides[c];
        const bool avx512 = isa_ == avx512_core;
        if (ysz == 4) return copy_tile_out(y_tile, tile_len, dst, ys, len, runs, 4, avx512);
        // 16-bit y: the tiles' vector transposes move 1- or 4-byte elements, so runs 2i and
        // 2i + 1 are interleaved into 4-byte pairs (y's neighbours along `last`) and those
        // transposed; a last odd run, or an odd row pitch of y, goes element by element.
        const uint16_t *y16 = y_tile;
        const int64_t pairs = ys % 2 == 0 ? runs / 2 : 0;
        alignas(64) uint32_t y_pairs[tile_runs / 2 * tile_len];
        for (int64_t i = 0; i < pairs; ++i)
            for (int64_t l = 0; l < len; ++l)
                y_pairs[i * tile_len + l] = y16[2 * i * tile_len + l]
                        | static_cast<uint32_t>(y16[(2 * i + 1) * tile_len + l]) << 16;
        copy_tile_out(y_pairs, tile_len, dst, ys / 2, len, pairs, 4, avx512);
        for (int64_t j = 2 * pairs; j < runs; ++j)
            for (int64_t l = 0; l < len; ++l)
                std::memcpy(dst + (l * ys + j) * 2, y16 + j * tile_len + l, 2);
    }

    /// out[k] = in[off + k * stride] for k < n, elements of E bytes (copied as bytes: the
    /// attribute scales are floats).
    template <size_t E>
    static void gather(const void *in, int64_t off, int64_t stride, int64_t n, void *out) {
        for (int64_t k = 0; k < n; ++k)
            std::memcpy(static_cast<char *>(out) + k * E,
                    static_cast<const char *>(in) + (off + k * stride) * E, E);
    }

    /// The zero points of gather as s32. One switch per run: load_int per element (a call and
    /// a switch each) took a quarter of a tile's time.
    void gather_zps(const void *in, int64_t off, int64_t stride, int64_t n, int32_t *out) const {
        const auto *b = static_cast<const uint8_t *>(in);
        switch (zp_dt_) {
            case data_type::s4:
            case data_type::u4: {
                const int sign = zp_dt_ == data_type::s4 ? 8 : 0;
                for (int64_t k = 0; k < n; ++k) {
                    const uint64_t i = static_cast<uint64_t>(off + k * stride);
                    out[k] = (((b[i >> 1] >> (i & 1) * 4) & 0xf) ^ sign) - sign;
                }
                return;
            }
            case data_type::s8:
                for (int64_t k = 0; k < n; ++k) out[k] = static_cast<int8_t>(b[off + k * stride]);
                return;
            case data_type::u8:
                for (int64_t k = 0; k < n; ++k) out[k] = b[off + k * stride];
                return;
            default: gather<4>(in, off, stride, n, out); return;
        }
    }

    /// Runtime zero points the code does not take go to the fallback: s32 ones beyond
    /// +-2^30 (narrower ones never do), and float8 / float4 ones other than +-0 (which the
    /// fallback reports, NUMERICS.md).
    bool runtime_zps_fit(const exec_args &a) const {
        if (!fallback_) return true;
        const size_t nd = p_.dims.size();
        std::array<int64_t, max_ndims> idx {};
        for (;;) {
            int64_t off = 0;
            for (size_t d = 0; d < nd; ++d) off += idx[d] * p_.params[d].zp_stride;
            if (float_zps_) {
                if (minifloat_to_f32(p_.zp_dt, load_code(a.zps, p_.zp_dt, off)) != 0.f)
                    return false;
            } else {
                const int64_t z = load_elem<int32_t>(a.zps, off);
                if (z > max_dequantize_zp || z < -max_dequantize_zp) return false;
            }
            size_t d = nd;
            while (d-- > 0 && ++idx[d] == p_.params[d].count(p_.dims[d])) idx[d] = 0;
            if (d == static_cast<size_t>(-1)) return true;
        }
    }
};

} // namespace

std::unique_ptr<kernel> make_grouped_dequantize_driver(const quant_problem &p, cpu_isa_t isa,
        const fallback_factory &next, std::string &reason) {
    auto k = std::make_unique<grouped_dequantize_kernel>(p, isa);
    if (!k->init(next, reason)) return nullptr;
    return k;
}

} // namespace jit
} // namespace impl
} // namespace qgraph
