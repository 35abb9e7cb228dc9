#include "backends/jit/jit_params.hpp"

#include <cstring>
#include <type_traits>

#include "backends/jit/jit_division.hpp"
#include "common/data_types.hpp"

namespace qgraph {
namespace impl {
namespace jit {

void lane_tables::init(const std::vector<float> &scales, const std::vector<int64_t> &zps,
        q_range q, int64_t reps) {
    const size_t c = scales.size(), n = c * static_cast<size_t>(reps);
    s.resize(n);
    y_hi.resize(n);
    y_a.resize(n);
    y_b.resize(n);
    lo.resize(n);
    hi.resize(n);
    zp.resize(n);
    for (size_t i = 0; i < n; ++i) {
        const size_t ch = i % c;
        const quantize_params p = broadcast_params(scales[ch], zps.empty() ? 0 : zps[ch], q);
        const recip_params r = make_recip(scales[ch]);
        all_exact = all_exact && r.path == div_path::multiply;
        all_fast = all_fast && r.in_range;
        all_checked = all_checked && r.in_range && checked_zp_fits(p.zp, q.lo, q.hi);
        s[i] = scales[ch];
        y_hi[i] = p.y_hi;
        y_a[i] = p.y_a;
        y_b[i] = p.y_b;
        lo[i] = p.lo;
        hi[i] = p.hi;
        zp[i] = p.zp;
    }
}

void lane_tables::point(quantize_call &c, int64_t first) const {
    c.l_s = s.data() + first;
    c.l_y_hi = y_hi.data() + first;
    c.l_y_a = y_a.data() + first;
    c.l_y_b = y_b.data() + first;
    c.l_lo = lo.data() + first;
    c.l_hi = hi.data() + first;
    c.l_zp = zp.data() + first;
}

bool runtime_lane_tables::init(const float *scales, const void *zps, data_type zp_dt,
        int64_t entries, q_range q) {
    n = entries;
    const size_t count = static_cast<size_t>(n);
    f32.reset(new float[zps ? 3 * count : count]);
    if (!reciprocals_in_range(scales, n, f32.get())) return false;
    if (!zps) return true;
    zp.reset(new int32_t[count]);
    float *lo = f32.get() + n, *hi = lo + n;
    const auto put = [&](int64_t i, int32_t v) {
        zp[i] = v;
        lo[i] = static_cast<float>(static_cast<int32_t>(q.lo) - v);
        hi[i] = static_cast<float>(static_cast<int32_t>(q.hi) - v);
    };
    // One loop per type, each vectorized (a select inside one loop was not).
    const auto fill = [&](const auto *type) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(type)>>;
        const auto *bytes = static_cast<const unsigned char *>(zps);
        for (int64_t i = 0; i < n; ++i) {
            T z;
            std::memcpy(&z, bytes + sizeof(T) * i, sizeof(T)); // any alignment
            put(i, z);
        }
    };
    if (zp_dt == data_type::s4 || zp_dt == data_type::u4) {
        // Packed two a byte: the type table's element addressing (load_int()).
        for (int64_t i = 0; i < n; ++i) put(i, static_cast<int32_t>(load_int(zps, zp_dt, i)));
        return true;
    }
    switch (zp_dt) {
        case data_type::s8: fill(static_cast<const int8_t *>(nullptr)); break;
        case data_type::u8: fill(static_cast<const uint8_t *>(nullptr)); break;
        case data_type::s16: fill(static_cast<const int16_t *>(nullptr)); break;
        case data_type::u16: fill(static_cast<const uint16_t *>(nullptr)); break;
        default: fill(static_cast<const int32_t *>(nullptr)); break; // |zp| <= 2^23: exact
    }
    return true;
}

void runtime_lane_tables::point(quantize_call &c, const float *scales, int64_t first) const {
    c.l_s = scales + first;
    c.l_y_hi = f32.get() + first;
    if (!zp) return;
    c.l_lo = f32.get() + n + first;
    c.l_hi = f32.get() + 2 * n + first;
    c.l_zp = zp.get() + first;
}

} // namespace jit
} // namespace impl
} // namespace qgraph
