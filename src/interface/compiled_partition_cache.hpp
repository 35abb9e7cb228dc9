#ifndef QGRAPH_INTERFACE_COMPILED_PARTITION_CACHE_HPP
#define QGRAPH_INTERFACE_COMPILED_PARTITION_CACHE_HPP

// An LRU cache of compiled partitions, keyed by everything a compile depends on: the op (kind,
// id, attributes), the partition id, the logical tensors given to compile (in order), the
// backend choice and the ISA cap. A hit returns the very same compiled partition (its kernel
// is const and thread-safe), so code is generated once per distinct request.
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

/// The key of one compile request.
std::string compile_key(size_t partition_id, const op &the_op,
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
