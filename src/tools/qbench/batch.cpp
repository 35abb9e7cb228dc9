#include "tools/qbench/batch.hpp"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "qgraph/error.hpp"
#include "tools/case/case_io.hpp"
#include "tools/qbench/op_case.hpp"
#include "tools/qbench/overrides.hpp"

namespace qgraph {
namespace qbench {

namespace {

/// Reads a batch file; its problems are usage errors.
std::string read_batch_file(const std::string &path) {
    try {
        return tools::read_text_file(path);
    } catch (const error &e) {
        throw usage_error(std::string("cannot read batch file: ") + e.what());
    }
}

/// Why a case file cannot be run, "" if it can: the checks of read_text_file that need no
/// read (the case runs later, and reads it then).
std::string case_file_problem(const std::string &path) {
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    if (ec) return ec.message();
    if (std::filesystem::is_directory(st)) return "is a directory";
    if (!std::filesystem::is_regular_file(st)) return "is not a regular file";
    if (!std::ifstream(path, std::ios::binary)) return "cannot be opened";
    return "";
}

const char *value_of(const std::string &arg, const std::string &prefix) {
    return arg.compare(0, prefix.size(), prefix) == 0 ? arg.c_str() + prefix.size() : nullptr;
}

/// Knobs as the reader holds them: one value each in `base`, and the comma lists that will be
/// expanded into one job per combination.
struct knob_state {
    knobs base;
    std::map<std::string, std::vector<std::string>> lists;
};

std::vector<std::string> split_commas(const std::string &s) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
        const size_t at = s.find(',', start);
        parts.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) return parts;
        start = at + 1;
    }
}

bool looks_like_shape(const std::string &arg) {
    if (arg == "scalar") return true;
    if (arg.empty() || !std::isdigit(static_cast<unsigned char>(arg[0]))) return false;
    for (char ch : arg)
        if (!std::isdigit(static_cast<unsigned char>(ch)) && ch != 'x') return false;
    return true;
}

struct planner {
    plan out;
    knob_state current;
    std::string sweep_out = "perf_sweep";
    /// The last option given since the last case, and where: options apply to the cases
    /// after them, so one that no case follows would be silently ignored.
    std::string trailing, trailing_where;
    /// --sweep-out given with no --sweep after it yet, and where.
    std::string unused_sweep_out, unused_sweep_out_where;

    /// `where`: "" on the command line, else "in batch file F" for messages.
    void read(const std::vector<std::string> &args, const std::string &dir,
            const std::string &where, int depth) {
        const knob_state at_entry = current;
        for (const auto &arg : args) {
            try {
                step(arg, dir, where, at_entry, depth);
            } catch (const usage_error &e) {
                // Name the innermost batch file only once.
                const std::string msg = e.what();
                if (where.empty() || msg.find(" (in batch file ") != std::string::npos) throw;
                throw usage_error(msg + " (" + where + ")");
            }
        }
    }

    /// Every combination of the lists, applied to the single values; in --mode=C each backend
    /// of a list is a case of its own.
    std::vector<knobs> expand() const {
        std::vector<knobs> combos {current.base};
        for (const auto &kv : current.lists) {
            std::vector<knobs> next;
            for (const auto &c : combos)
                for (const auto &v : kv.second) {
                    knobs k = c;
                    parse_knob("--" + kv.first + "=" + v, k);
                    next.push_back(k);
                }
            combos = std::move(next);
        }
        std::vector<knobs> out;
        for (const auto &c : combos) {
            if (c.mode == mode::performance) {
                out.push_back(c);
                continue;
            }
            for (const auto &b : c.backends) {
                if (b == onednn_baseline_name)
                    throw usage_error(std::string("--backend=") + onednn_baseline_name
                            + " is a performance baseline: use it with --mode=P");
                for (const auto &pol : c.policies) {
                    knobs k = c;
                    k.backends = {b};
                    k.policies = {pol};
                    out.push_back(k);
                }
            }
        }
        return out;
    }

    void add_jobs(const std::string &case_path, const logical_tensor::dims &shape,
            int64_t sweep_min, int64_t sweep_max) {
        for (const knobs &k : expand()) {
            job j;
            j.settings = k;
            j.case_path = case_path;
            j.shape = shape;
            j.sweep_min = sweep_min;
            j.sweep_max = sweep_max;
            j.sweep_out = sweep_out;
            out.jobs.push_back(std::move(j));
        }
        trailing.clear();
        if (sweep_max != 0) unused_sweep_out.clear();
    }

    /// After the last argument: an option that applies to nothing is an error, and so is a
    /// plan without a case.
    void finish() const {
        const auto in = [](const std::string &where) {
            return where.empty() ? std::string() : " (" + where + ")";
        };
        if (!trailing.empty())
            throw usage_error("'" + trailing + "'" + in(trailing_where)
                    + " is followed by no case, so it would apply to nothing: options apply to "
                      "the cases after them (put it before --case, the SHAPE or --sweep)");
        if (!unused_sweep_out.empty())
            throw usage_error("'" + unused_sweep_out + "'" + in(unused_sweep_out_where)
                    + " names the files of a --sweep, but no --sweep follows it");
        if (out.jobs.empty())
            throw usage_error("nothing to run: give --case=FILE, --batch=FILE, a problem "
                              "shape or --sweep=MIN:MAX (see --help)");
    }

    void step(const std::string &arg, const std::string &dir, const std::string &where,
            const knob_state &at_entry, int depth) {
        if (arg == "--help" || arg == "-h") {
            out.help = true;
            return;
        }
        if (arg == "--reset") {
            current = at_entry;
            return;
        }
        if (const char *v = value_of(arg, "--case=")) {
            if (*v == '\0') throw usage_error("--case needs a file name: --case=FILE");
            const std::string path = join_path(dir, v);
            const std::string problem = case_file_problem(path);
            if (!problem.empty())
                throw usage_error("cannot read case file '" + path + "': " + problem);
            add_jobs(path, {}, 0, 0);
            return;
        }
        if (const char *v = value_of(arg, "--batch=")) {
            if (*v == '\0') throw usage_error("--batch needs a file name: --batch=FILE");
            const std::string path = join_path(dir, v);
            if (depth >= max_batch_depth)
                throw usage_error("batch files nest deeper than "
                        + std::to_string(max_batch_depth) + " at '" + path
                        + "' (does a batch include itself?)");
            read(tokenize_batch(read_batch_file(path)), dir_name(path), "in batch file " + path,
                    depth + 1);
            return;
        }
        if (const char *v = value_of(arg, "--sweep=")) {
            const std::string s = v;
            const size_t colon = s.find(':');
            if (colon == std::string::npos)
                throw usage_error("bad value '" + s + "' for --sweep: expected MIN:MAX "
                        "(elements, e.g. 1K:256M)");
            const int64_t lo = parse_count(s.substr(0, colon), "--sweep");
            const int64_t hi = parse_count(s.substr(colon + 1), "--sweep");
            if (lo < 1 || hi < lo)
                throw usage_error("bad value '" + s + "' for --sweep: expected 1 <= MIN <= MAX");
            add_jobs("", {}, lo, hi);
            return;
        }
        if (const char *v = value_of(arg, "--sweep-out=")) {
            if (*v == '\0') throw usage_error("--sweep-out needs a file prefix");
            sweep_out = v;
            trailing = unused_sweep_out = arg;
            trailing_where = unused_sweep_out_where = where;
            return;
        }
        if (arg == "--case" || arg == "--batch" || arg == "--sweep")
            throw usage_error("option " + arg + " needs a value: " + arg + "=VALUE");
        if (arg.compare(0, 2, "--") == 0 && arg.find('=') != std::string::npos) {
            const std::string name = arg.substr(2, arg.find('=') - 2);
            const std::string value = arg.substr(arg.find('=') + 1);
            if (is_list_knob(name) && value.find(',') != std::string::npos) {
                const std::vector<std::string> values = split_commas(value);
                knobs scratch = current.base;
                for (const auto &one : values) parse_knob("--" + name + "=" + one, scratch);
                current.lists[name] = values;
                trailing = arg;
                trailing_where = where;
                return;
            }
        }
        if (parse_knob(arg, current.base)) {
            const std::string name = arg.substr(2, arg.find('=') - 2);
            current.lists.erase(name);
            trailing = arg;
            trailing_where = where;
            return;
        }
        if (arg.compare(0, 2, "--") == 0) {
            const std::string name = arg.substr(0, arg.find('='));
            throw usage_error("unknown option '" + name + "' (see --help)");
        }
        if (looks_like_shape(arg)) {
            add_jobs("", parse_shape(arg, "the problem shape"), 0, 0);
            return;
        }
        throw usage_error("unexpected argument '" + arg + "': cases are given as --case=FILE, "
                "problems as a shape like 1x64x56x56 (see --help)");
    }
};

} // namespace

std::vector<std::string> tokenize_batch(const std::string &text) {
    std::vector<std::string> tokens;
    std::string cur;
    bool comment = false;
    for (char ch : text) {
        if (comment) {
            if (ch == '\n') comment = false;
            continue;
        }
        if (ch == '#') {
            comment = true;
        } else if (!std::isspace(static_cast<unsigned char>(ch))) {
            cur += ch;
            continue;
        }
        if (!cur.empty()) tokens.push_back(cur);
        cur.clear();
    }
    if (!cur.empty()) tokens.push_back(cur);
    return tokens;
}

std::string join_path(const std::string &dir, const std::string &path) {
    if (dir.empty() || path.empty() || path[0] == '/') return path;
    return dir.back() == '/' ? dir + path : dir + "/" + path;
}

std::string dir_name(const std::string &path) {
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos) return "";
    return slash == 0 ? "/" : path.substr(0, slash);
}

plan make_plan(const std::vector<std::string> &args, const knobs &defaults) {
    planner p;
    p.current.base = defaults;
    p.read(args, "", "", 0);
    if (!p.out.help) p.finish();
    return std::move(p.out);
}

int64_t parse_count(const std::string &text, const std::string &what) {
    int64_t mult = 1;
    std::string digits = text;
    if (!digits.empty()) {
        const char last = digits.back();
        if (last == 'K' || last == 'k') mult = int64_t(1) << 10;
        if (last == 'M' || last == 'm') mult = int64_t(1) << 20;
        if (last == 'G' || last == 'g') mult = int64_t(1) << 30;
        if (mult != 1) digits.pop_back();
    }
    errno = 0;
    char *end = nullptr;
    const long long v = std::strtoll(digits.c_str(), &end, 10);
    if (digits.empty() || !std::isdigit(static_cast<unsigned char>(digits[0])) || *end != '\0'
            || errno == ERANGE || v > (int64_t(1) << 40) / mult)
        throw usage_error("bad count '" + text + "' for " + what
                + ": expected a number of elements, optionally with K, M or G (1K = 1024)");
    return v * mult;
}

std::string problem_args(const job &j) {
    std::string s = problem_knob_args(j.settings);
    if (j.is_sweep())
        return s + op_knob_args(j.settings.op) + " --sweep=" + std::to_string(j.sweep_min) + ":"
                + std::to_string(j.sweep_max);
    if (j.is_shorthand()) return s + op_knob_args(j.settings.op) + " " + shape_string(j.shape);
    return s + "--case=" + j.case_path;
}

std::string repro_args(const job &j) {
    const knobs &k = j.settings;
    std::string s = std::string("--mode=") + to_string(k.mode) + " --backend="
            + backends_arg(k.backends);
    if (k.policies != knobs().policies) {
        s += " --policy=";
        for (size_t i = 0; i < k.policies.size(); ++i) s += (i ? "," : "") + k.policies[i];
    }
    if (k.seed != 0) s += " --seed=" + std::to_string(k.seed);
    if (k.mode == mode::performance) {
        char buf[64];
        if (k.fix_times_per_prb != 0)
            s += " --fix-times-per-prb=" + std::to_string(k.fix_times_per_prb);
        else if (k.max_ms_per_prb != knobs().max_ms_per_prb) {
            std::snprintf(buf, sizeof(buf), "%g", k.max_ms_per_prb);
            s += std::string(" --max-ms-per-prb=") + buf;
        }
        if (k.cold_cache) s += " --cold-cache";
        if (!k.roofline) s += " --roofline=off";
    }
    return s + " " + problem_args(j);
}

std::string job_title(const job &j) {
    if (!j.is_shorthand() && !j.is_sweep()) {
        // The file and its folder (graph/<op>/<file>): file names repeat across ops.
        const size_t slash = j.case_path.rfind('/');
        if (slash == std::string::npos || slash == 0) return j.case_path;
        const size_t prev = j.case_path.rfind('/', slash - 1);
        return j.case_path.substr(prev == std::string::npos ? 0 : prev + 1);
    }
    const op_knobs o = resolve_op_knobs(j.settings.op);
    std::string s = o.op + " " + o.sdt + ":" + o.ddt;
    if (!o.group.empty())
        s += " group=" + std::to_string(o.group[0]) + "x" + std::to_string(o.group[1]);
    else if (o.op != "DynamicQuantizeLinear")
        s += " " + o.qtype;
    return s + " "
            + (j.is_sweep() ? "sweep " + std::to_string(j.sweep_min) + ":"
                                + std::to_string(j.sweep_max)
                            : shape_string(j.shape));
}

} // namespace qbench
} // namespace qgraph
