#ifndef QGRAPH_INTERFACE_COMPILED_PARTITION_CACHE_HPP
#define QGRAPH_INTERFACE_COMPILED_PARTITION_CACHE_HPP

// An LRU cache of compiled partitions, keyed by everything a compile's result depends on: the
// op (kind, id, attributes, ports), the logical tensors given to compile (in order) and the
// compile's settings snapshot (backend choice, ISA cap). The partition id is not part of it
// (ids are unique in the process): the same op in another graph hits the same entry. A hit
// shares the entry's kernel (const and thread-safe), so code is generated once per distinct
// request.
//
// Only compile touches the cache (under its mutex); execute never does.

#include <memory>
#include <string>
#include <vector>

#include "qgraph/logical_tensor.hpp"
#include "qgraph/op.hpp"

namespace qgraph {
namespace impl {

struct compiled_partition_impl;

struct compile_settings;

/// The key of one compile request for a partition of `ops` under `settings`.
std::string compile_key(const compile_settings &settings, const std::vector<op> &ops,
        const std::vector<logical_tensor> &inputs, const std::vector<logical_tensor> &outputs);

/// nullptr on a miss.
std::shared_ptr<const compiled_partition_impl> cache_find(const std::string &key);
/// Inserts `cp` unless another thread got there first; returns the entry that is cached (or
/// `cp` itself when the cache is disabled).
std::shared_ptr<const compiled_partition_impl> cache_insert(
        const std::string &key, std::shared_ptr<const compiled_partition_impl> cp);

int cache_capacity();
void set_cache_capacity(int capacity);
int cache_size();

} // namespace impl
} // namespace qgraph

#endif
