#!/usr/bin/env bash
# Installs the built qgraph into a scratch prefix, then builds and runs the consumer project
# (tests/consumer) against it with find_package(qgraph CONFIG): what an integrator does.
set -euo pipefail
build_dir=${1:?usage: check_install.sh BUILD_DIR CONSUMER_DIR}
consumer=${2:?usage: check_install.sh BUILD_DIR CONSUMER_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S "$consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/build" -j2 >/dev/null
"$work/build/api_example"
echo "install + find_package(qgraph CONFIG) consumer: ok"
