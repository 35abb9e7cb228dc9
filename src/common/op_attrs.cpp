#include "common/op_attrs.hpp"

namespace qgraph {
namespace impl {

std::string op_desc(const op &o) {
    std::string s = to_string(o.get_kind());
    if (!o.get_name().empty()) s += " '" + o.get_name() + "'";
    return s + " (id " + std::to_string(o.get_id()) + ")";
}

int64_t attr_s64(const op &o, const char *name, int64_t dflt) {
    auto it = o.get_attrs().find(name);
    return it == o.get_attrs().end() ? dflt : std::get<int64_t>(it->second);
}

std::string attr_string(const op &o, const char *name, const std::string &dflt) {
    auto it = o.get_attrs().find(name);
    return it == o.get_attrs().end() ? dflt : std::get<std::string>(it->second);
}

const std::vector<float> &attr_f32s(const op &o, const char *name) {
    static const std::vector<float> none;
    auto it = o.get_attrs().find(name);
    return it == o.get_attrs().end() ? none : std::get<std::vector<float>>(it->second);
}

std::vector<int64_t> attr_s64s(const op &o, const char *name) {
    auto it = o.get_attrs().find(name);
    return it == o.get_attrs().end() ? std::vector<int64_t> {}
                                     : std::get<std::vector<int64_t>>(it->second);
}

} // namespace impl
} // namespace qgraph
