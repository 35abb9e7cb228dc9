#!/usr/bin/env bash
# qgraph's one entry point for a fresh Debian machine: installs what is missing, builds, runs.
#   ./build.sh bench   build, then qbench over the default batch (benchdnn_inputs/)
#   ./build.sh test    build, then every test (ctest)
#   ./build.sh build   only set up and build
# BUILD_DIR (default: build) and JOBS (default: nproc) can be set in the environment.
set -euo pipefail
cd "$(dirname "$0")"

BUILD_DIR=${BUILD_DIR:-build}
JOBS=${JOBS:-$(nproc)}
# ocl-icd-opencl-dev: Debian's dnnl-config.cmake calls find_package(OpenCL), and the package is
# only a Recommends of libdnnl-dev, which --no-install-recommends leaves out.
PACKAGES=(g++ cmake make libdnnl-dev ocl-icd-opencl-dev libtbb-dev nlohmann-json3-dev libxbyak-dev
          libgtest-dev gnuplot-nox)

install_missing_packages() {
    local missing=()
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
            || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return
    echo "build.sh: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
}

build() {
    install_missing_packages
    cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$BUILD_DIR" -j "$JOBS"
}

case "${1:-}" in
    bench)
        build
        # The default batch in performance mode, every backend side by side (a few seconds):
        # the full perf lines go to a file, the terminal gets failures, the summary and the table.
        out="$BUILD_DIR/bench_default.txt"
        rc=0
        "$BUILD_DIR/src/tools/qbench/qbench" --mode=P --backend=auto,dnnl,ref,onednn \
            --max-ms-per-prb=50 --batch=benchdnn_inputs/harness_default >"$out" || rc=$?
        grep -E '^[0-9]+:(FAILED|INVALID_ARGUMENTS)|^    reason: ' "$out" || true
        sed -n '/^tests:/,$p' "$out"
        echo "build.sh: perf lines in $out (docs/performance.md explains them)"
        exit $rc
        ;;
    test)
        build
        (cd "$BUILD_DIR" && ctest --output-on-failure -j "$JOBS" --timeout 900)
        ;;
    build) build ;;
    *)
        echo "usage: ./build.sh bench|test|build" >&2
        exit 2
        ;;
esac
