#include "tools/qbench/options.hpp"

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "qgraph/qgraph.hpp"

namespace qgraph {
namespace qbench {

namespace {

/// The value of `--name=value` when `arg` is option `name`; nullptr otherwise. Throws for
/// `--name` without "=value".
const char *option_value(const std::string &arg, const char *name) {
    const std::string prefix = std::string("--") + name;
    if (arg.compare(0, prefix.size(), prefix) != 0) return nullptr;
    if (arg.size() == prefix.size())
        throw usage_error("option " + prefix + " needs a value: " + prefix + "=VALUE");
    if (arg[prefix.size()] != '=') return nullptr; // e.g. --modes
    return arg.c_str() + prefix.size() + 1;
}

uint64_t parse_unsigned(const std::string &opt, const char *text) {
    if (*text == '\0' || *text == '-' || *text == '+')
        throw usage_error("bad value '" + std::string(text) + "' for --" + opt
                + ": expected a non-negative integer");
    errno = 0;
    char *end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (*end != '\0' || errno == ERANGE)
        throw usage_error("bad value '" + std::string(text) + "' for --" + opt
                + ": expected a non-negative integer");
    return v;
}

std::string join(const std::vector<std::string> &v, const char *sep) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
    return s;
}

} // namespace

knobs default_knobs() {
    knobs k;
    k.backend = qgraph::get_backend();
    return k;
}

bool parse_knob(const std::string &arg, knobs &k) {
    if (const char *v = option_value(arg, "mode")) {
        const std::string s = v;
        if (s == "C" || s == "c")
            k.mode = mode::correctness;
        else if (s == "P" || s == "p")
            k.mode = mode::performance;
        else
            throw usage_error("bad value '" + s + "' for --mode: expected C (correctness) or "
                    "P (performance)");
        return true;
    }
    if (const char *v = option_value(arg, "backend")) {
        const std::string s = v;
        const std::vector<std::string> names = qgraph::get_backend_names();
        if (s == "auto") {
            k.backend.clear();
            return true;
        }
        for (const auto &n : names)
            if (n == s) {
                k.backend = s;
                return true;
            }
        throw usage_error("bad value '" + s + "' for --backend: expected auto|"
                + join(names, "|"));
    }
    if (const char *v = option_value(arg, "seed")) {
        k.seed = parse_unsigned("seed", v);
        return true;
    }
    if (const char *v = option_value(arg, "verbose")) {
        const uint64_t level = parse_unsigned("verbose", v);
        if (level > 2)
            throw usage_error("bad value '" + std::string(v) + "' for --verbose: expected 0, 1 "
                    "or 2");
        k.verbose = static_cast<int>(level);
        return true;
    }
    return false;
}

const char *to_string(mode m) { return m == mode::performance ? "P" : "C"; }

std::string backend_arg(const std::string &backend) {
    return backend.empty() ? "auto" : backend;
}

std::string repro_args(const knobs &k, const std::string &case_path) {
    std::string s = std::string("--mode=") + to_string(k.mode) + " --backend="
            + backend_arg(k.backend);
    if (k.seed != 0) s += " --seed=" + std::to_string(k.seed);
    return s + " --case=" + case_path;
}

std::string help_text() {
    std::string backends = "auto";
    for (const auto &n : qgraph::get_backend_names()) backends += "|" + n;
    return "Usage: qbench [OPTION]... {--case=FILE | --batch=FILE}...\n"
           "\n"
           "Runs qgraph graph cases (oneDNN graph JSON, optionally with \"data\") and prints one\n"
           "line per case and a summary, the way oneDNN's benchdnn --graph does.\n"
           "Arguments are read left to right: knobs apply to every later --case until changed\n"
           "or --reset.\n"
           "\n"
           "Cases and batches:\n"
           "  --case=FILE       run one graph case with the current knobs.\n"
           "  --batch=FILE      read more arguments from FILE: whitespace-separated, '#' starts\n"
           "                    a comment to the end of the line; --case and --batch paths in\n"
           "                    it are relative to FILE's directory. Batches may nest.\n"
           "  --reset           set every knob back to the value it had when the current batch\n"
           "                    file was entered (on the command line: the defaults).\n"
           "\n"
           "Knobs:\n"
           "  --mode=C          correctness (default): cases with \"data\" are compared bit for\n"
           "                    bit with their expected values; other cases are filled the\n"
           "                    benchdnn way, run on the ref backend and on --backend, and the\n"
           "                    outputs compared bit for bit (NaN matches NaN).\n"
           "  --mode=P          performance: not implemented yet (exits with status 2).\n"
           "  --backend=NAME    " + backends + " (default: QGRAPH_BACKEND, else auto).\n"
           "                    auto lets the library pick the best backend per partition;\n"
           "                    a name forces that backend (qgraph::set_backend).\n"
           "  --seed=N          seed mixed into the random fill (default 0).\n"
           "  --verbose=N       0 (default): one line per case; 1: adds the backend and kernel\n"
           "                    of every partition; 2: also library verbose (QGRAPH_VERBOSE=2).\n"
           "\n"
           "Other:\n"
           "  --help            print this help and exit.\n"
           "\n"
           "Output: \"N:STATE (T ms) __REPRO: ARGS\" per case, STATE one of PASSED, FAILED,\n"
           "SKIPPED, UNIMPLEMENTED, INVALID_ARGUMENTS; a non-passing case adds \"    reason: ...\"\n"
           "lines. Then \"tests:N passed:N skipped:N mistrusted:N unimplemented:N\n"
           "invalid_arguments:N failed:N listed:N\".\n"
           "\n"
           "Exit status: 0 when no case FAILED or had INVALID_ARGUMENTS; 1 otherwise;\n"
           "2 for a bad command line or batch file (nothing is run).\n";
}

} // namespace qbench
} // namespace qgraph
