#ifndef QGRAPH_COMMON_CONFIG_HPP
#define QGRAPH_COMMON_CONFIG_HPP

// The QGRAPH_* environment variables, read through one strict parser. A variable that is
// unset or empty gives the default. A value that does not parse in full (QGRAPH_VERBOSE=2abc,
// a count out of range, an unknown name) is not guessed at: it is reported once per variable
// on stderr, naming the variable, the value and what is accepted, and the default is used.
//
// Each variable is read where its setting lives: QGRAPH_VERBOSE (verbose.cpp),
// QGRAPH_MAX_CPU_ISA (cpu_isa.cpp), QGRAPH_NUM_THREADS and QGRAPH_CPU_RUNTIME (parallel.cpp),
// QGRAPH_CACHE_CAPACITY and QGRAPH_BACKEND (src/interface), QGRAPH_JIT_DUMP
// (backends/jit/jit_dump.cpp).

#include <string>

namespace qgraph {
namespace impl {

/// The value of `name`; nullptr when unset or empty.
const char *env_value(const char *name);

/// Reports once per variable on stderr:
/// "qgraph: NAME=VALUE is not ACCEPTED; using FALLBACK".
void env_warn_invalid(const char *name, const char *value, const std::string &accepted,
        const std::string &fallback);

/// A decimal integer in [lo, hi] and nothing else: no sign other than a leading '-', no
/// spaces, no suffix, no overflow.
bool parse_int(const char *s, long lo, long hi, long &out);

/// `name` as an integer in [lo, hi]; `dflt` when unset, empty or invalid (reported).
int env_int(const char *name, int lo, int hi, int dflt);

} // namespace impl
} // namespace qgraph

#endif
