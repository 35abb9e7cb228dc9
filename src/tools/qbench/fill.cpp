#include "tools/qbench/fill.hpp"

#include <cmath>
#include <random>
#include <vector>

#include "tools/qbench/codec.hpp"

namespace qgraph {
namespace qbench {

namespace {

/// splitmix64: spreads (seed, tensor id) over the generator's seed space.
uint64_t mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

class rng {
public:
    rng(uint64_t seed, size_t id) : gen_(mix(mix(seed) ^ static_cast<uint64_t>(id))) {}

    /// Uniform in [lo, hi] (both inclusive); rejection sampling keeps it exactly uniform.
    int64_t uniform(int64_t lo, int64_t hi) {
        const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
        if (span == ~uint64_t(0)) return static_cast<int64_t>(gen_());
        const uint64_t n = span + 1;
        const uint64_t limit = ~uint64_t(0) - (~uint64_t(0) % n + 1) % n;
        uint64_t r;
        do {
            r = gen_();
        } while (r > limit);
        return static_cast<int64_t>(static_cast<uint64_t>(lo) + r % n);
    }
    bool coin() { return gen_() >> 63; }
    /// Near a standard normal: 12 uniform 32-bit fractions summed exactly, less 6.
    double normal() {
        int64_t sum = 0;
        for (int i = 0; i < 12; ++i) sum += static_cast<int64_t>(gen_() >> 32);
        return std::ldexp(static_cast<double>(sum - (int64_t(6) << 32)), -32);
    }

private:
    std::mt19937_64 gen_;
};

bool is_quantizing(op::kind k) {
    return k == op::kind::Quantize || k == op::kind::DynamicQuantize
            || k == op::kind::QuantizeLinear;
}

bool has_param_inputs(op::kind k) {
    return k == op::kind::DynamicQuantize || k == op::kind::DynamicDequantize
            || k == op::kind::QuantizeLinear || k == op::kind::DequantizeLinear;
}

/// Values of `specials` the type can hold (in range; NaN/Inf only for types that have them).
std::vector<double> usable(data_type dt, const std::vector<double> &specials) {
    std::vector<double> out;
    const double hi = type_max(dt), lo = type_lowest(dt);
    for (double v : specials) {
        if (std::isnan(v) || std::isinf(v)) {
            uint64_t bits;
            std::string why;
            if (encode(dt, v, bits, why) && std::isnan(decode(dt, bits)) == std::isnan(v)
                    && std::isinf(decode(dt, bits)) == std::isinf(v))
                out.push_back(v);
        } else if (v >= lo && v <= hi) {
            out.push_back(v);
        }
    }
    return out;
}

} // namespace

const char *to_string(fill_role r) {
    switch (r) {
        case fill_role::data: return "data";
        case fill_role::quant_src: return "quant_src";
        case fill_role::dql_src: return "dql_src";
        case fill_role::scale: return "scale";
        case fill_role::zero_point: return "zero_point";
    }
    return "?";
}

fill_role input_role(const tools::graph_case &c, size_t id) {
    fill_role found = fill_role::data;
    for (const auto &o : c.ops) {
        const auto &ins = o.get_input_logical_tensors();
        for (size_t k = 0; k < ins.size(); ++k) {
            if (ins[k].get_id() != id) continue;
            if (has_param_inputs(o.get_kind()) && k == 1) return fill_role::scale;
            if (has_param_inputs(o.get_kind()) && k == 2) return fill_role::zero_point;
            if (found != fill_role::data || k != 0) continue;
            if (o.get_kind() == op::kind::DynamicQuantizeLinear)
                found = fill_role::dql_src;
            else if (is_quantizing(o.get_kind()) && is_float_type(ins[k].get_data_type()))
                found = fill_role::quant_src;
        }
    }
    return found;
}

tools::tensor_values fill_values(fill_role role, data_type dt, int64_t n, uint64_t seed,
        size_t tensor_id, fill_dist dist) {
    rng r(seed, tensor_id);
    const bool is_int = is_int_type(dt);
    const double hi = type_max(dt), lo = type_lowest(dt);

    std::vector<double> specials;
    switch (role) {
        case fill_role::quant_src:
            specials = usable(dt, {hi, lo, 0, .25, .5, 1, 1.5, 2, 16, 64, -.5, 2.5, -2.5, -0.0,
                    INFINITY, -INFINITY, NAN});
            break;
        case fill_role::dql_src:
            specials = usable(dt, {0, .25, .5, 1, 1.5, 2, 16, 64});
            break;
        case fill_role::data:
            specials = is_int ? usable(dt, {hi, lo, 0, 1, 2, 16, 64, -1})
                              : usable(dt, {0, .25, .5, 1, 1.5, 2, 16, 64});
            break;
        case fill_role::scale:
        case fill_role::zero_point: break;
    }

    static const double scales[] // powers of two first
            = {0.25, 0.5, 1, 2, 4, 0.125, 0.1, 3, 0.3, 1.5, 0.7, 10};
    const int64_t n_scales = sizeof(scales) / sizeof(scales[0]);
    // s64 values past 2^53 are not exact in a double.
    const double int_hi = std::fmin(hi, 9007199254740991.0);
    const double int_lo = std::fmax(lo, -9007199254740991.0);

    tools::tensor_values v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
        double x;
        if (i < static_cast<int64_t>(specials.size())) {
            x = specials[static_cast<size_t>(i)];
        } else if (dist == fill_dist::normal && !is_int
                && (role == fill_role::quant_src || role == fill_role::dql_src
                        || role == fill_role::data)) {
            x = r.normal();
        } else {
            switch (role) {
                case fill_role::quant_src:
                    x = 0.25 * static_cast<double>(r.coin() ? r.uniform(-128, 128)
                                                            : r.uniform(-4096, 4096));
                    break;
                case fill_role::dql_src: x = 0.25 * static_cast<double>(r.uniform(-256, 256)); break;
                case fill_role::scale:
                    // f16, bf16 and e8m0 scales get the powers of two (the first 6 entries),
                    // which they hold exactly, so the values are the ones stored; an integer
                    // type (no schema takes one) small positive integers.
                    x = is_int ? static_cast<double>(r.uniform(1, static_cast<int64_t>(std::fmin(hi, 15))))
                               : scales[r.uniform(0, dt == data_type::f32 ? n_scales - 1 : 5)];
                    break;
                case fill_role::zero_point:
                    // NUMERICS.md: a float quantized type (float8, float4) takes no zero
                    // point, and ONNX's 0 means none.
                    if (!is_int) {
                        x = 0;
                        break;
                    }
                    x = static_cast<double>(r.uniform(static_cast<int64_t>(std::fmax(lo, -16)),
                            static_cast<int64_t>(std::fmin(hi, 15))));
                    break;
                case fill_role::data:
                default:
                    x = is_int ? static_cast<double>(r.uniform(static_cast<int64_t>(int_lo),
                                static_cast<int64_t>(int_hi)))
                               : 0.25 * static_cast<double>(r.uniform(-64, 64));
                    break;
            }
        }
        v[static_cast<size_t>(i)] = x;
    }
    return v;
}

} // namespace qbench
} // namespace qgraph
