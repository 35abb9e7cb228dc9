#include "tools/qbench/batch.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace qgraph {
namespace qbench {

namespace {

bool readable_file(const std::string &path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return false;
    return static_cast<bool>(std::ifstream(path, std::ios::binary));
}

std::string read_file(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

const char *value_of(const std::string &arg, const std::string &prefix) {
    return arg.compare(0, prefix.size(), prefix) == 0 ? arg.c_str() + prefix.size() : nullptr;
}

struct planner {
    plan out;
    knobs current;

    /// `where`: "" on the command line, else "in batch file F" for messages.
    void read(const std::vector<std::string> &args, const std::string &dir,
            const std::string &where, int depth) {
        const knobs at_entry = current;
        for (const auto &arg : args) {
            try {
                step(arg, dir, at_entry, depth);
            } catch (const usage_error &e) {
                // Name the innermost batch file only once.
                const std::string msg = e.what();
                if (where.empty() || msg.find(" (in batch file ") != std::string::npos) throw;
                throw usage_error(msg + " (" + where + ")");
            }
        }
    }

    void step(const std::string &arg, const std::string &dir, const knobs &at_entry,
            int depth) {
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
            if (!readable_file(path)) throw usage_error("cannot read case file '" + path + "'");
            out.jobs.push_back({current, path});
            return;
        }
        if (const char *v = value_of(arg, "--batch=")) {
            if (*v == '\0') throw usage_error("--batch needs a file name: --batch=FILE");
            const std::string path = join_path(dir, v);
            if (depth >= max_batch_depth)
                throw usage_error("batch files nest deeper than "
                        + std::to_string(max_batch_depth) + " at '" + path
                        + "' (does a batch include itself?)");
            if (!readable_file(path))
                throw usage_error("cannot read batch file '" + path + "'");
            read(tokenize_batch(read_file(path)), dir_name(path), "in batch file " + path,
                    depth + 1);
            return;
        }
        if (arg == "--case" || arg == "--batch")
            throw usage_error("option " + arg + " needs a value: " + arg + "=FILE");
        if (parse_knob(arg, current)) {
            // Performance mode is planned (see options.hpp); until then it stops here, before
            // anything runs.
            if (current.mode == mode::performance)
                throw usage_error("--mode=P (performance) is not implemented yet");
            return;
        }
        if (arg.compare(0, 2, "--") == 0) {
            const std::string name = arg.substr(0, arg.find('='));
            throw usage_error("unknown option '" + name + "' (see --help)");
        }
        throw usage_error("unexpected argument '" + arg + "': cases are given as --case=FILE "
                "(see --help)");
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
    p.current = defaults;
    p.read(args, "", "", 0);
    return std::move(p.out);
}

} // namespace qbench
} // namespace qgraph
