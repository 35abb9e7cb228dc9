#ifndef QGRAPH_QGRAPH_HPP
#define QGRAPH_QGRAPH_HPP

// The whole public API: include this one header.
#include "qgraph/config.hpp"
#include "qgraph/data_type_table.hpp"
#include "qgraph/engine.hpp"
#include "qgraph/error.hpp"
#include "qgraph/graph.hpp"
#include "qgraph/logical_tensor.hpp"
#include "qgraph/op.hpp"
#include "qgraph/partition.hpp"
#include "qgraph/tensor.hpp"
#include "qgraph/threadpool.hpp"
#include "qgraph/version.hpp"

#endif
