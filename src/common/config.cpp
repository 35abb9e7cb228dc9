// One strict parser for every QGRAPH_* environment variable (config.hpp says why strict).

#include "common/config.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>

namespace qgraph {
namespace impl {

const char *env_value(const char *name) {
    const char *v = std::getenv(name);
    return v && *v ? v : nullptr;
}

void env_warn_invalid(const char *name, const char *value, const std::string &accepted,
        const std::string &fallback) {
    // Once per variable: QGRAPH_NUM_THREADS is read again by every set_num_threads(0).
    static std::mutex m;
    static std::set<std::string> warned;
    std::lock_guard<std::mutex> lock(m);
    if (!warned.insert(name).second) return;
    std::fprintf(stderr, "qgraph: %s=%s is not %s; using %s\n", name, value, accepted.c_str(),
            fallback.c_str());
}

bool parse_int(const char *s, long lo, long hi, long &out) {
    // strtol alone would take leading spaces, a '+' and any suffix, and saturate on overflow.
    const char *digits = *s == '-' ? s + 1 : s;
    if (!std::isdigit(static_cast<unsigned char>(*digits))) return false;
    char *end = nullptr;
    errno = 0;
    const long v = std::strtol(s, &end, 10);
    if (errno == ERANGE || *end != '\0' || v < lo || v > hi) return false;
    out = v;
    return true;
}

int env_int(const char *name, int lo, int hi, int dflt) {
    const char *v = env_value(name);
    if (!v) return dflt;
    long n = 0;
    if (parse_int(v, lo, hi, n)) return static_cast<int>(n);
    env_warn_invalid(name, v,
            "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]",
            "the default " + std::to_string(dflt));
    return dflt;
}

} // namespace impl
} // namespace qgraph
