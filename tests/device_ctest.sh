#!/usr/bin/env bash
# The whole ctest suite at every ISA level of the 16-core device machine (AVX-512, AVX512-FP16,
# AMX), whose levels the 2-core CI machine may lack (an AVX2-only Zen 3 skips every avx512
# test). docs/reliability.md, "AVX-512 levels on the device machine".
#
#   tests/device_ctest.sh pack   here, after ./build.sh build and ../shared/device/pack.sh:
#                                adds the test binaries, ctest's files and ../shared to
#                                .device-carry/ (about 9 MB more)
#   tests/device_ctest.sh run    there, from the checkout's root (the device tool's `run`
#                                with carry [".device-carry"]): ctest without the exhaustive
#                                label and the install checks; the log in $OUT/ctest.txt
#
# ctest's files name /work/main (this checkout) and /work/shared, so `run` puts the device's
# copy and the carried ../shared there. CTEST_LIMIT (seconds, default 270) bounds the run,
# CTEST_ARGS adds ctest arguments (-R ...).
set -euo pipefail
cd "$(dirname "$0")/.."
carry=.device-carry
case "${1:-}" in
pack)
    [ -d "$carry/lib" ] || { echo "device_ctest.sh: run ../shared/device/pack.sh first" >&2; exit 1; }
    [ "$PWD" = /work/main ] || { echo "device_ctest.sh: ctest's files need /work/main" >&2; exit 1; }
    files=$( { find build -type f -perm -u+x ! -path "*/CMakeFiles/*"
               find build -name CTestTestfile.cmake -o -name "*_include.cmake" -o -name "*_tests.cmake"
               find build/src -name "libqgraph.so*"; } | sort -u)
    # shellcheck disable=SC2086 # one path a word
    tar -cf - $files -C /work shared | xz -T0 -6 > "$carry/ctest.tar.xz"
    du -sh "$carry/ctest.tar.xz"
    ;;
run)
    root=$PWD
    OUT=${OUT:-/tmp/out}
    mkdir -p "$OUT" /work
    [ "$root" = /work/main ] || { rm -rf /work/main; ln -s "$root" /work/main; }
    x=$(mktemp -d)
    tar -xJf "$carry/ctest.tar.xz" -C "$x"
    cp -a "$x/build" /work/main/
    [ -d /work/shared/conformance ] || { rm -rf /work/shared; cp -a "$x/shared" /work/shared; }
    [ -f "$carry/lib/libdnnl.so.2" ] || xz -dk "$carry/lib/libdnnl.so.2.xz" 2>/dev/null || true
    export LD_LIBRARY_PATH=$root/$carry/lib
    /work/main/build/tests/jit/test_jit_execute --gtest_list_tests >/dev/null 2>&1 \
        || export LD_LIBRARY_PATH=$root/$carry/lib:$root/$carry/lib2
    lscpu | grep -E "Model name|^Model:|^CPU\(s\)" || true
    cd /work/main/build
    rc=0
    # shellcheck disable=SC2086 # CTEST_ARGS holds several arguments
    timeout "${CTEST_LIMIT:-270}" ctest -j "$(nproc)" -LE exhaustive -E "install|layering" \
        ${CTEST_ARGS:-} --timeout 200 --output-on-failure > "$OUT/ctest.txt" 2>&1 || rc=$?
    grep -E "tests passed|tests failed|Total Test time|\(Failed\)|\(Timeout\)|Not Run" \
        "$OUT/ctest.txt" | tail -40
    exit "$rc"
    ;;
*)
    echo "usage: tests/device_ctest.sh pack|run" >&2
    exit 2
    ;;
esac
