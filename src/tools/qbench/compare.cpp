#include "tools/qbench/compare.hpp"

#include "tools/qbench/buffer.hpp"
#include "tools/qbench/codec.hpp"

namespace qgraph {
namespace qbench {

bool same_bits(data_type dt, uint64_t got, uint64_t expected) {
    return got == expected || (is_nan(dt, got) && is_nan(dt, expected));
}

compare_result compare_bits(data_type dt, const std::vector<uint64_t> &got,
        const std::vector<uint64_t> &expected, size_t max_report) {
    compare_result r;
    r.total = static_cast<int64_t>(got.size());
    for (size_t i = 0; i < got.size() && i < expected.size(); ++i) {
        if (same_bits(dt, got[i], expected[i])) continue;
        ++r.mismatches;
        if (r.first.size() < max_report)
            r.first.push_back({static_cast<int64_t>(i), got[i], expected[i]});
    }
    return r;
}

std::string describe_tensor(const logical_tensor &lt) {
    std::string s = to_string(lt.get_data_type());
    if (!lt.has_known_shape()) return s + " ?";
    const auto &dims = lt.get_dims();
    if (dims.empty()) return s + " scalar";
    s += " ";
    for (size_t d = 0; d < dims.size(); ++d) s += (d ? "x" : "") + std::to_string(dims[d]);
    return s;
}

std::vector<std::string> describe_mismatches(
        const compare_result &r, const logical_tensor &lt, const std::string &against) {
    const std::string name = "output " + std::to_string(lt.get_id());
    const data_type dt = lt.get_data_type();
    std::vector<std::string> lines;
    lines.push_back(name + " (" + describe_tensor(lt) + "): " + std::to_string(r.mismatches)
            + " of " + std::to_string(r.total) + " elements differ from " + against);
    for (const auto &m : r.first)
        lines.push_back("mismatch: " + name + " [" + std::to_string(m.index) + "] "
                + index_string(lt.get_dims(), m.index) + ": got " + format_value(dt, m.got)
                + ", " + against + " " + format_value(dt, m.expected));
    const int64_t hidden = r.mismatches - static_cast<int64_t>(r.first.size());
    if (hidden > 0)
        lines.push_back("mismatch: " + name + ": " + std::to_string(hidden) + " more not shown");
    return lines;
}

} // namespace qbench
} // namespace qgraph
