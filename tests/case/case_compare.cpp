#include "case/case_compare.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <variant>

namespace qgraph {
namespace tools {
namespace test {

namespace {

template <typename T>
bool same_bits(const T &a, const T &b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

bool same_attr(const op::attr_value &a, const op::attr_value &b) {
    if (a.index() != b.index()) return false;
    if (const float *fa = std::get_if<float>(&a)) return same_bits(*fa, std::get<float>(b));
    if (const auto *va = std::get_if<std::vector<float>>(&a)) {
        const auto &vb = std::get<std::vector<float>>(b);
        if (va->size() != vb.size()) return false;
        for (size_t i = 0; i < va->size(); ++i)
            if (!same_bits((*va)[i], vb[i])) return false;
        return true;
    }
    return a == b;
}

std::string lt_text(const logical_tensor &lt) {
    std::ostringstream os;
    os << "{id " << lt.get_id() << ", " << to_string(lt.get_data_type()) << ", ndims "
       << lt.get_ndims() << ", dims";
    for (auto d : lt.get_dims()) os << " " << d;
    os << ", strides";
    for (auto s : lt.get_strides()) os << " " << s;
    os << ", " << to_string(lt.get_layout_type()) << ", " << to_string(lt.get_property_type())
       << "}";
    return os.str();
}

std::string lts_difference(const std::vector<logical_tensor> &a,
        const std::vector<logical_tensor> &b, const std::string &where) {
    if (a.size() != b.size())
        return where + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size())
                + " logical tensors";
    for (size_t i = 0; i < a.size(); ++i)
        if (!a[i].is_equal(b[i]))
            return where + "[" + std::to_string(i) + "]: " + lt_text(a[i]) + " vs "
                    + lt_text(b[i]);
    return "";
}

std::string data_difference(const std::map<size_t, tensor_values> &a,
        const std::map<size_t, tensor_values> &b, const std::string &where) {
    if (a.size() != b.size())
        return where + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size())
                + " tensors";
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
        if (ia->first != ib->first)
            return where + ": id " + std::to_string(ia->first) + " vs "
                    + std::to_string(ib->first);
        const std::string w = where + "[" + std::to_string(ia->first) + "]";
        if (ia->second.size() != ib->second.size())
            return w + ": " + std::to_string(ia->second.size()) + " vs "
                    + std::to_string(ib->second.size()) + " values";
        for (size_t i = 0; i < ia->second.size(); ++i)
            if (!same_bits(ia->second[i], ib->second[i])) {
                std::ostringstream os;
                os.precision(17);
                os << w << "[" << i << "]: " << ia->second[i] << " vs " << ib->second[i];
                return os.str();
            }
    }
    return "";
}

} // namespace

std::string case_difference(const graph_case &a, const graph_case &b) {
    if (a.version != b.version) return "version: " + a.version + " vs " + b.version;
    if (a.engine_kind != b.engine_kind) return "engine_kind differs";
    if (a.fpmath != b.fpmath)
        return std::string("fpmath: ") + to_string(a.fpmath) + " vs " + to_string(b.fpmath);
    if (a.fpmath_apply_to_int != b.fpmath_apply_to_int)
        return "fpmath_apply_to_int: " + a.fpmath_apply_to_int + " vs " + b.fpmath_apply_to_int;
    if (a.input_ports != b.input_ports) return "input_ports differ";
    if (a.output_ports != b.output_ports) return "output_ports differ";
    if (a.ops.size() != b.ops.size())
        return std::to_string(a.ops.size()) + " vs " + std::to_string(b.ops.size()) + " ops";
    for (size_t i = 0; i < a.ops.size(); ++i) {
        const op &x = a.ops[i], &y = b.ops[i];
        const std::string w = "ops[" + std::to_string(i) + "]";
        if (x.get_id() != y.get_id()) return w + ": id differs";
        if (x.get_kind() != y.get_kind()) return w + ": kind differs";
        if (x.get_name() != y.get_name()) return w + ": name " + x.get_name() + " vs " + y.get_name();
        const auto &ax = x.get_attrs(), &ay = y.get_attrs();
        if (ax.size() != ay.size()) return w + ": attribute count differs";
        for (auto ix = ax.begin(), iy = ay.begin(); ix != ax.end(); ++ix, ++iy) {
            if (ix->first != iy->first)
                return w + ": attribute " + ix->first + " vs " + iy->first;
            if (!same_attr(ix->second, iy->second))
                return w + ": attribute " + ix->first + " differs";
        }
        std::string d = lts_difference(
                x.get_input_logical_tensors(), y.get_input_logical_tensors(), w + ".inputs");
        if (d.empty())
            d = lts_difference(x.get_output_logical_tensors(), y.get_output_logical_tensors(),
                    w + ".outputs");
        if (!d.empty()) return d;
    }
    if (a.has_data != b.has_data) return "has_data differs";
    std::string d = data_difference(a.inputs, b.inputs, "data.inputs");
    if (d.empty()) d = data_difference(a.expected, b.expected, "data.expected");
    return d;
}

std::string shared_dir() {
    if (const char *env = std::getenv("QGRAPH_SHARED_DIR"))
        if (*env) return env;
    return QGRAPH_SHARED_DIR_DEFAULT;
}

std::string conformance_test_name(const ::testing::TestParamInfo<std::string> &info) {
    const std::filesystem::path p(info.param);
    std::string name = p.parent_path().filename().string() + "_" + p.stem().string();
    for (char &ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
}

std::vector<std::string> conformance_files() {
    namespace fs = std::filesystem;
    std::vector<std::string> files;
    for (const char *sub : {"conformance/onnx", "conformance/onednn-graph"}) {
        const fs::path dir = fs::path(shared_dir()) / sub;
        std::error_code ec;
        for (const auto &e : fs::directory_iterator(dir, ec))
            if (e.path().extension() == ".json") files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

::testing::AssertionResult throws_error(const std::function<void()> &fn, status st,
        std::initializer_list<std::string> fragments) {
    try {
        fn();
    } catch (const error &e) {
        const std::string msg = e.what();
        if (e.status() != st)
            return ::testing::AssertionFailure() << "status " << to_string(e.status())
                                                 << ", expected " << to_string(st)
                                                 << "; message: " << msg;
        for (const std::string &f : fragments)
            if (msg.find(f) == std::string::npos)
                return ::testing::AssertionFailure()
                        << "message lacks \"" << f << "\": " << msg;
        return ::testing::AssertionSuccess() << msg;
    } catch (const std::exception &e) {
        return ::testing::AssertionFailure() << "threw a non-qgraph exception: " << e.what();
    }
    return ::testing::AssertionFailure() << "did not throw";
}

} // namespace test
} // namespace tools
} // namespace qgraph
