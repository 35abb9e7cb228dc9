#include "backends/jit/jit_params.hpp"

#include "backends/jit/jit_division.hpp"

namespace qgraph {
namespace impl {
namespace jit {

void set_broadcast_params(quantize_call &c, float s, int64_t zp, q_range q) {
    const recip_params r = make_recip(s);
    c.s = s;
    c.y_hi = r.y_hi;
    c.y_lo = r.y_lo;
    c.path = static_cast<int32_t>(r.path);
    c.lo = static_cast<float>(q.lo - zp);
    c.hi = static_cast<float>(q.hi - zp);
    c.zp = static_cast<int32_t>(zp);
}

void lane_tables::init(const std::vector<float> &scales, const std::vector<int64_t> &zps,
        q_range q) {
    const size_t n = scales.size();
    s = scales;
    y_hi.resize(n);
    y_lo.resize(n);
    lo.resize(n);
    hi.resize(n);
    zp.resize(n);
    for (size_t i = 0; i < n; ++i) {
        quantize_call c {};
        set_broadcast_params(c, scales[i], zps.empty() ? 0 : zps[i], q);
        const auto path = static_cast<div_path>(c.path);
        all_exact = all_exact && path == div_path::multiply;
        all_fast = all_fast && path != div_path::divide;
        y_hi[i] = c.y_hi;
        y_lo[i] = c.y_lo;
        lo[i] = c.lo;
        hi[i] = c.hi;
        zp[i] = c.zp;
    }
}

void lane_tables::point(quantize_call &c, int64_t first) const {
    c.l_s = s.data() + first;
    c.l_y_hi = y_hi.data() + first;
    c.l_y_lo = y_lo.data() + first;
    c.l_lo = lo.data() + first;
    c.l_hi = hi.data() + first;
    c.l_zp = zp.data() + first;
}

} // namespace jit
} // namespace impl
} // namespace qgraph
