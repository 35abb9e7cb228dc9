// The lookup driver (q_kind::lookup): the tables in the layout the code reads, the layout
// walk in parallel, and avx2's bounced row tails.

#include <cstring>
#include <vector>

#include "backends/jit/jit_driver.hpp"
#include "backends/jit/jit_lookup.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

class lookup_kernel : public jit_kernel_base {
public:
    lookup_kernel(const quant_problem &p, bool vbmi, const run_layout &lay)
        : jit_kernel_base(p, vbmi ? avx512_core : avx2, lay)
        , vbmi_(vbmi)
        , table_bytes_(vbmi ? sizeof(vbmi_table) : sizeof(avx2_table))
        , code_(vbmi) {
        if (vbmi_) {
            tables_ = p.tables;
        } else {
            tables_.resize(static_cast<size_t>(nparams_) * table_bytes_);
            for (int64_t e = 0; e < nparams_; ++e)
                make_avx2_table(&p.tables[e * 256], &tables_[e * table_bytes_]);
        }
    }

    std::string name() const override {
        return std::string("jit:") + (vbmi_ ? "avx512_core_vbmi" : "avx2") + ":lookup";
    }

    /// Every vector is loaded before it is stored, and a bounced tail is copied out whole
    /// before it is written back.
    bool in_place_safe() const override { return true; }

    const kernel &run(const exec_args &a) const override {
        if (p_.nelems == 0) return *this;
        for_pieces(a.par, threads(a), a.src, a.dst,
                [&](const run_layout::piece &pc, const void *src, void *dst) {
            lookup_call c = piece_call<lookup_call>(pc, src, dst);
            c.prm = &tables_[static_cast<size_t>(pc.channel) * table_bytes_];
            c.prm_step = pc.channel_step;
            call(c);
        });
        return *this;
    }

private:
    const bool vbmi_;
    const size_t table_bytes_;
    std::vector<uint8_t> tables_; ///< one table_bytes_ table per parameter entry
    jit_lookup_kernel code_;

    /// The avx2 code takes whole vectors: a row's last n % 32 bytes go through a stack buffer.
    void call(const lookup_call &c) const {
        const int64_t vlen = jit_lookup_kernel::avx2_vlen;
        if (vbmi_ || c.n % vlen == 0) return code_(&c);
        const int64_t body = c.n / vlen * vlen, rest = c.n - body;
        for (int64_t r = 0; r < c.rows; ++r) {
            lookup_call row = c;
            row.src = bytes(c.src, r * c.src_row_stride, 1);
            row.dst = bytes(c.dst, r * c.dst_row_stride, 1);
            row.prm = c.prm + r * c.prm_step * static_cast<int64_t>(table_bytes_);
            row.rows = 1;
            row.n = body;
            if (body > 0) code_(&row);
            uint8_t buf[vlen] = {};
            std::memcpy(buf, bytes(row.src, body, 1), static_cast<size_t>(rest));
            row.src = buf;
            row.dst = buf;
            row.n = vlen;
            code_(&row);
            std::memcpy(bytes(bytes(c.dst, r * c.dst_row_stride, 1), body, 1), buf,
                    static_cast<size_t>(rest));
        }
    }
};

} // namespace

std::unique_ptr<kernel> make_lookup_driver(
        const quant_problem &p, cpu_isa_t isa, std::string &reason) {
    // vpermi2b needs AVX512_VBMI (common/cpu_isa.hpp), asked under the avx512_core cap;
    // without it the avx2 code runs.
    const bool vbmi = vbmi_code(isa);
    run_layout lay;
    if (!lay.init(p, reason)) return nullptr;
    // src and dst contiguous along different dims (NHWC <-> NCHW): the code runs along src's
    // runs into the tile buffer, which jit_tiles' byte transpose copies to dst.
    lay.tiles.avx512 = isa == avx512_core;
    if (lay.channel_inner) {
        reason = "lookup whose table changes along the contiguous run (channel innermost)";
        return nullptr;
    }
    return std::make_unique<lookup_kernel>(p, vbmi, lay);
}

} // namespace jit
} // namespace impl
} // namespace qgraph
