#!/usr/bin/env bash
# Installs the built qgraph into a fresh prefix and uses it the ways an integrator does:
#   1. CMake: builds and runs the consumer project (tests/consumer) found through
#      find_package(qgraph CONFIG);
#   2. pkg-config: compiles docs/examples/api_example.cpp with
#      `g++ ... $(pkg-config --cflags --libs qgraph)` and runs it;
#   3. runs the installed qbench (when the build has it), which must find the installed
#      libqgraph.so through its relative runtime path.
# Neither package may name oneDNN, TBB or OpenMP: they are private to libqgraph.so, and a
# consumer must not need their -dev packages (tests/check_install_nodev.sh runs this script
# with them removed).
set -euo pipefail
build_dir=$(cd "${1:?usage: check_install.sh BUILD_DIR}" && pwd)
src_dir=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

fail() { echo "check_install.sh: $*" >&2; exit 1; }
cache_value() { sed -n "s/^$1:[A-Z]*=//p" "$build_dir/CMakeCache.txt"; }
libdir=$(cache_value CMAKE_INSTALL_LIBDIR)
bindir=$(cache_value CMAKE_INSTALL_BINDIR)
[[ $libdir != /* && $bindir != /* ]] || fail "needs relative CMAKE_INSTALL_LIBDIR and _BINDIR"

cmake --install "$build_dir" --prefix "$prefix" >/dev/null

# 1. find_package(qgraph CONFIG).
package_dir=$prefix/$libdir/cmake/qgraph
if grep -v '^ *#' "$package_dir"/*.cmake | grep -i -E 'dnnl|tbb|openmp|threads|find_dependency'; then
    fail "the installed CMake package names a private dependency (above)"
fi
cmake -S "$src_dir/tests/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
[ "$(sed -n 's/^qgraph_DIR:PATH=//p' "$work/cmake/CMakeCache.txt")" = "$package_dir" ] \
    || fail "the consumer did not find the package in $package_dir"
cmake --build "$work/cmake" >/dev/null
"$work/cmake/api_example" >/dev/null
echo "install: find_package(qgraph CONFIG) consumer: ok"

# 2. pkg-config.
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
cmake_version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' "$package_dir/qgraphConfigVersion.cmake")
[ "$(pkg-config --modversion qgraph)" = "$cmake_version" ] \
    || fail "qgraph.pc has version $(pkg-config --modversion qgraph), the CMake package $cmake_version"
[ "$(pkg-config --variable=prefix qgraph)" = "$prefix" ] \
    || fail "qgraph.pc has prefix $(pkg-config --variable=prefix qgraph), installed to $prefix"
[ -z "$(pkg-config --print-requires --print-requires-private qgraph)" ] \
    || fail "qgraph.pc requires other .pc files (their -dev packages)"
# shellcheck disable=SC2046 # pkg-config's output is meant to be split into words
g++ -o "$work/api_example_pc" "$src_dir/docs/examples/api_example.cpp" \
    $(pkg-config --cflags --libs qgraph)
LD_LIBRARY_PATH=$(pkg-config --variable=libdir qgraph) "$work/api_example_pc" >/dev/null
echo "install: pkg-config consumer: ok"

# 3. The installed qbench, with nothing but its own runtime path to find libqgraph.so.
if [ -x "$build_dir/src/tools/qbench/qbench" ]; then
    env -u LD_LIBRARY_PATH "$prefix/$bindir/qbench" --help >/dev/null
    echo "install: $bindir/qbench --help: ok"
fi
