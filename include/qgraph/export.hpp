#ifndef QGRAPH_EXPORT_HPP
#define QGRAPH_EXPORT_HPP

// Symbols of the public API are exported from the shared library; everything else is hidden
// (the library is built with -fvisibility=hidden).
#if defined(QGRAPH_BUILDING_LIBRARY)
#define QGRAPH_API __attribute__((visibility("default")))
#else
#define QGRAPH_API
#endif

#endif
