#include "tools/qbench/codec.hpp"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "qgraph/data_type_table.hpp"

namespace qgraph {
namespace qbench {

namespace {

enum class kind { none, sint, uint, boolean, f32, minifloat };

/// The type table's row as the codec uses it: f32 is converted by the compiler, every other
/// float through its code table (minifloat_decode / value_table).
struct type_info {
    kind k = kind::none;
    int bits = 0;
    // minifloat only
    int ebits = 0, mbits = 0, bias = 0;
    float_style nan = float_style::none;
    bool has_sign = true;
};

type_info info(data_type dt) {
    const data_type_facts &f = facts_of(dt);
    type_info t;
    t.bits = f.bits;
    switch (f.cls) {
        case type_class::none: break;
        case type_class::integer: t.k = f.is_signed ? kind::sint : kind::uint; break;
        case type_class::boolean: t.k = kind::boolean; break;
        case type_class::floating:
            t.k = dt == data_type::f32 ? kind::f32 : kind::minifloat;
            t.ebits = f.exp_bits;
            t.mbits = f.man_bits;
            t.bias = f.bias;
            t.nan = f.style;
            t.has_sign = f.is_signed;
            break;
    }
    return t;
}

uint64_t mask_of(int bits) { return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1; }

double minifloat_decode(const type_info &t, uint64_t bits) {
    const uint64_t emask = mask_of(t.ebits), mmask = mask_of(t.mbits);
    if (t.nan == float_style::e8m0)
        return bits == 0xff ? std::nan("") : std::ldexp(1.0, static_cast<int>(bits) - t.bias);
    const bool neg = t.has_sign && ((bits >> (t.ebits + t.mbits)) & 1);
    const uint64_t e = (bits >> t.mbits) & emask, m = bits & mmask;
    if (t.nan == float_style::ieee && e == emask)
        return m == 0 ? (neg ? -INFINITY : INFINITY) : std::nan("");
    if (t.nan == float_style::fn && e == emask && m == mmask) return std::nan("");
    if (t.nan == float_style::fnuz && bits == (uint64_t(1) << (t.bits - 1))) return std::nan("");
    const double v = e == 0
            ? std::ldexp(static_cast<double>(m), 1 - t.bias - t.mbits)
            : std::ldexp(static_cast<double>(mmask + 1 + m), static_cast<int>(e) - t.bias - t.mbits);
    return neg ? -v : v;
}

/// Every finite, non-NaN value of a small float type with its code, sorted by value; -0 is
/// left out (zero is handled by sign). Built once per type.
const std::vector<std::pair<double, uint32_t>> &value_table(data_type dt) {
    static std::mutex mu;
    static std::map<data_type, std::vector<std::pair<double, uint32_t>>> tables;
    std::lock_guard<std::mutex> lock(mu);
    auto it = tables.find(dt);
    if (it != tables.end()) return it->second;
    const type_info t = info(dt);
    std::vector<std::pair<double, uint32_t>> v;
    for (uint64_t code = 0; code <= mask_of(t.bits); ++code) {
        const double x = minifloat_decode(t, code);
        if (std::isnan(x) || std::isinf(x) || (x == 0 && std::signbit(x))) continue;
        v.emplace_back(x, static_cast<uint32_t>(code));
    }
    std::sort(v.begin(), v.end());
    return tables.emplace(dt, std::move(v)).first->second;
}

bool minifloat_encode(data_type dt, const type_info &t, double v, uint64_t &bits,
        std::string &why) {
    const uint64_t sign_bit = t.has_sign ? uint64_t(1) << (t.bits - 1) : 0;
    if (std::isnan(v)) {
        switch (t.nan) {
            case float_style::ieee:
                bits = (mask_of(t.ebits) << t.mbits) | (uint64_t(1) << (t.mbits - 1));
                return true;
            case float_style::fn: bits = mask_of(t.bits - 1); return true;
            case float_style::fnuz: bits = sign_bit; return true;
            case float_style::e8m0: bits = 0xff; return true;
            case float_style::finite:
            case float_style::none: why = "NaN"; return false;
        }
    }
    const auto &table = value_table(dt);
    const bool neg = std::signbit(v);
    const double hi = table.back().first;
    if (std::fabs(v) > hi && t.nan == float_style::ieee) {
        // Round to nearest even past the top binade: halfway to the next power gives Inf.
        const double ulp = hi - table[table.size() - 2].first;
        if (std::fabs(v) >= hi + ulp / 2) {
            bits = (neg ? sign_bit : 0) | (mask_of(t.ebits) << t.mbits);
            return true;
        }
    }
    auto it = std::lower_bound(table.begin(), table.end(), std::make_pair(v, uint32_t(0)));
    const std::pair<double, uint32_t> *pick;
    if (it == table.end()) {
        pick = &table.back();
    } else if (it == table.begin() || it->first == v) {
        pick = &*it;
    } else {
        const auto &below = *(it - 1), &above = *it;
        const double db = v - below.first, da = above.first - v;
        pick = db < da ? &below : da < db ? &above : (below.second & 1) ? &above : &below;
    }
    bits = pick->second;
    // A negative value that rounds to zero keeps its sign where the type has -0.
    if (pick->first == 0 && neg && t.has_sign && t.nan != float_style::fnuz) bits |= sign_bit;
    return true;
}

} // namespace

int type_bits(data_type dt) { return info(dt).bits; }

bool is_float_type(data_type dt) {
    const kind k = info(dt).k;
    return k == kind::f32 || k == kind::minifloat;
}

bool is_int_type(data_type dt) {
    const kind k = info(dt).k;
    return k == kind::sint || k == kind::uint || k == kind::boolean;
}

double type_max(data_type dt) {
    const data_type_facts &f = facts_of(dt);
    return f.cls == type_class::floating ? f.max : static_cast<double>(f.hi);
}

double type_lowest(data_type dt) {
    const data_type_facts &f = facts_of(dt);
    if (f.cls != type_class::floating) return static_cast<double>(f.lo);
    // e8m0 has no sign: its lowest value is its smallest code's.
    return f.is_signed ? -f.max : value_table(dt).front().first;
}

bool encode(data_type dt, double v, uint64_t &bits, std::string &why) {
    const type_info t = info(dt);
    switch (t.k) {
        case kind::f32: {
            const float f = static_cast<float>(v);
            uint32_t u;
            std::memcpy(&u, &f, sizeof(u));
            bits = u;
            return true;
        }
        case kind::minifloat: return minifloat_encode(dt, t, v, bits, why);
        case kind::sint:
        case kind::uint:
        case kind::boolean: {
            if (!std::isfinite(v) || v != std::floor(v)) {
                why = "not an integer";
                return false;
            }
            // s64's max is not a double; the bound 2^63 itself is out of range.
            const bool too_big = t.bits == 64 ? v >= std::ldexp(1.0, 63) : v > type_max(dt);
            if (too_big || v < type_lowest(dt)) {
                why = "out of range";
                return false;
            }
            bits = static_cast<uint64_t>(static_cast<int64_t>(v)) & mask_of(t.bits);
            return true;
        }
        default: why = "unsupported data type"; return false;
    }
}

double decode(data_type dt, uint64_t bits) {
    const type_info t = info(dt);
    switch (t.k) {
        case kind::f32: {
            const uint32_t u = static_cast<uint32_t>(bits);
            float f;
            std::memcpy(&f, &u, sizeof(f));
            return f;
        }
        case kind::minifloat: return minifloat_decode(t, bits);
        case kind::sint: {
            const uint64_t sign = uint64_t(1) << (t.bits - 1);
            const uint64_t b = bits & mask_of(t.bits);
            return static_cast<double>(static_cast<int64_t>((b ^ sign) - sign));
        }
        case kind::uint:
        case kind::boolean: return static_cast<double>(bits & mask_of(t.bits));
        default: return 0;
    }
}

bool is_nan(data_type dt, uint64_t bits) {
    return is_float_type(dt) && std::isnan(decode(dt, bits));
}

uint64_t load_bits(const void *base, data_type dt, int64_t i) {
    const int bits = info(dt).bits;
    const auto *p = static_cast<const uint8_t *>(base);
    if (bits % 8 == 0) {
        uint64_t v = 0;
        std::memcpy(&v, p + i * (bits / 8), bits / 8); // little endian
        return v;
    }
    const int64_t pos = i * bits;
    return (p[pos / 8] >> (pos % 8)) & mask_of(bits);
}

void store_bits(void *base, data_type dt, int64_t i, uint64_t v) {
    const int bits = info(dt).bits;
    auto *p = static_cast<uint8_t *>(base);
    if (bits % 8 == 0) {
        std::memcpy(p + i * (bits / 8), &v, bits / 8);
        return;
    }
    const int64_t pos = i * bits;
    const uint8_t m = static_cast<uint8_t>(mask_of(bits) << (pos % 8));
    p[pos / 8] = static_cast<uint8_t>((p[pos / 8] & ~m) | ((v << (pos % 8)) & m));
}

std::string format_value(data_type dt, uint64_t bits) {
    const type_info t = info(dt);
    char buf[96];
    if (t.k == kind::sint || t.k == kind::uint || t.k == kind::boolean) {
        if (t.k == kind::sint) {
            const uint64_t sign = uint64_t(1) << (t.bits - 1);
            const uint64_t b = bits & mask_of(t.bits);
            std::snprintf(buf, sizeof(buf), "%" PRId64, static_cast<int64_t>((b ^ sign) - sign));
        } else {
            std::snprintf(buf, sizeof(buf), "%" PRIu64, bits & mask_of(t.bits));
        }
        return buf;
    }
    if (t.k == kind::none) {
        std::snprintf(buf, sizeof(buf), "0x%" PRIx64, bits);
        return buf;
    }
    const double v = decode(dt, bits);
    const int digits = (t.bits + 3) / 4;
    if (std::isnan(v))
        std::snprintf(buf, sizeof(buf), "nan (0x%0*" PRIx64 ")", digits, bits);
    else
        std::snprintf(buf, sizeof(buf), "%.9g (0x%0*" PRIx64 ")", v, digits, bits);
    return buf;
}

} // namespace qbench
} // namespace qgraph
