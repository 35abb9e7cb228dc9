#ifndef QGRAPH_ENGINE_HPP
#define QGRAPH_ENGINE_HPP

#include <cstddef>

#include "qgraph/export.hpp"
#include "qgraph/threadpool.hpp"

namespace qgraph {

/// The device a graph runs on. qgraph has one: the CPU, index 0.
class QGRAPH_API engine {
public:
    enum class kind { any, cpu, gpu };

    /// Throws unimplemented for any device but (cpu, 0).
    engine(kind akind, size_t index);
    kind get_kind() const { return kind_; }
    size_t get_index() const { return index_; }

private:
    kind kind_;
    size_t index_;
};

/// An execution queue on an engine. qgraph executes synchronously: execute() returns when the
/// outputs are written, so wait() has nothing to wait for.
///
/// A stream made with a thread pool runs every parallel region of its executes on that pool
/// (threadpool.hpp); the pool is not owned and must outlive the executes on the stream.
/// Without one, executes run on qgraph's runtime (set_cpu_runtime).
class QGRAPH_API stream {
public:
    explicit stream(const engine &eng, threadpool_iface *pool = nullptr)
        : engine_(eng), pool_(pool) {}
    const engine &get_engine() const { return engine_; }
    /// The integrator's pool, or nullptr.
    threadpool_iface *get_threadpool() const { return pool_; }
    stream &wait() { return *this; }

private:
    engine engine_;
    threadpool_iface *pool_;
};

/// How strictly float math must follow the op definitions; qgraph's quantization ops are always
/// exact (strict), the mode is kept so graph files round-trip.
enum class fpmath_mode { strict, bf16, f16, tf32, any };

QGRAPH_API const char *to_string(engine::kind k);
QGRAPH_API const char *to_string(fpmath_mode m);
/// Throws invalid_arguments for a name that is not a fpmath mode.
QGRAPH_API fpmath_mode fpmath_mode_from_string(const char *name);

} // namespace qgraph

#endif
