#ifndef QGRAPH_CONFIG_HPP
#define QGRAPH_CONFIG_HPP

#include <functional>
#include <string>
#include <vector>

#include "qgraph/export.hpp"

namespace qgraph {

/// Backends in priority order, best first ("jit", "dnnl", "ref").
QGRAPH_API std::vector<std::string> get_backend_names();

/// Forces one backend for every later compile ("" = pick the best that accepts). Initialised
/// from QGRAPH_BACKEND. Throws invalid_arguments for an unknown name.
QGRAPH_API void set_backend(const std::string &name);
QGRAPH_API std::string get_backend();

/// 0 silent, 1 a line per compile and execute (with why a compile or execute fell back to
/// another backend), 2 adds why each backend was rejected. Initialised from QGRAPH_VERBOSE
/// (0, 1 or 2). Levels above 2 act as 2; negative levels as 0.
QGRAPH_API void set_verbose(int level);
QGRAPH_API int get_verbose();

/// Sends verbose lines to `callback` instead of stdout (the default); an empty callback
/// (nullptr) restores stdout. Each call gets one whole line, starting "qgraph_verbose," and
/// without a newline. Calls never overlap (lines from all threads are serialised), so the
/// callback needs no lock of its own, but it runs inside compile and execute: it must not
/// call qgraph, and an exception it throws is dropped with its line. Each sink first gets
/// the "qgraph_verbose,info," header (version, git hash, ISA, runtime, threads).
QGRAPH_API void set_verbose_callback(std::function<void(const std::string &line)> callback);

/// Threads for qgraph's kernels and for the oneDNN primitives it runs (oneDNN's OpenMP
/// threads): one setting for both. 0 restores the default: QGRAPH_NUM_THREADS if set, else
/// every core. Results are bitwise identical at any thread count. Throws invalid_arguments
/// for a negative count.
QGRAPH_API void set_num_threads(int n);
QGRAPH_API int get_num_threads();

/// The runtime qgraph's own parallel regions run on when a stream has no thread pool of the
/// integrator's: "tbb" (the default) or "omp", the OpenMP runtime that Debian's oneDNN uses.
/// Integrators that also run oneDNN (or other OpenMP code) in the process choose "omp": both
/// then share one team of threads, instead of two pools that spin-wait against each other.
/// Under "tbb" (and on a stream with a pool), the dnnl backend runs oneDNN on the calling
/// thread only, so qgraph itself never starts a second pool. Initialised from
/// QGRAPH_CPU_RUNTIME; applies to later executes. Throws invalid_arguments for another name.
QGRAPH_API void set_cpu_runtime(const std::string &name);
QGRAPH_API std::string get_cpu_runtime();

/// Caps the instruction set JIT kernels are generated for, like oneDNN's set_max_cpu_isa:
/// "none" (no JIT kernels), "avx2", "avx512_core", "avx512_core_vnni", "avx512_core_bf16",
/// "avx512_core_fp16", "avx512_core_amx" or "all". Initialised from QGRAPH_MAX_CPU_ISA;
/// applies to later compiles (compiled partitions keep their code). A cap above what the CPU
/// has means "what the CPU has". Throws invalid_arguments for an unknown name.
QGRAPH_API void set_max_cpu_isa(const std::string &isa);
QGRAPH_API std::string get_max_cpu_isa();
/// The level JIT kernels are generated for now: the best the CPU has under the cap.
QGRAPH_API std::string get_effective_cpu_isa();
/// Every level the CPU has, lowest first.
QGRAPH_API std::vector<std::string> get_cpu_isa_levels();
/// The levels of get_cpu_isa_levels() whose JIT kernels differ, lowest first: "avx2",
/// "avx512_core" and "avx512_core_bf16" where the CPU has them. Every other level generates
/// exactly the code of the highest of these below it (none of its instructions is used), so a
/// test that runs each of these has run the code of every level.
QGRAPH_API std::vector<std::string> get_cpu_isa_kernel_levels();

/// The compiled-partition cache: compiling the same partition with the same logical tensors
/// (under the same backend choice and ISA cap) returns the same compiled partition without
/// generating code again. Capacity in entries, least recently used dropped first; 0 disables
/// and empties it. Initialised from QGRAPH_CACHE_CAPACITY (default 1024).
QGRAPH_API void set_compiled_partition_cache_capacity(int capacity);
QGRAPH_API int get_compiled_partition_cache_capacity();
/// Entries in the cache now.
QGRAPH_API int get_compiled_partition_cache_size();

} // namespace qgraph

#endif
