#ifndef QGRAPH_ENGINE_HPP
#define QGRAPH_ENGINE_HPP

#include <cstddef>

#include "qgraph/export.hpp"

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
class QGRAPH_API stream {
public:
    explicit stream(const engine &eng) : engine_(eng) {}
    const engine &get_engine() const { return engine_; }
    stream &wait() { return *this; }

private:
    engine engine_;
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
