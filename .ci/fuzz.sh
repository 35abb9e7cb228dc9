#!/usr/bin/env bash
# CI stage (after ./build.sh test): builds the two libFuzzer targets with clang + ASan + UBSan
# in build-fuzz and runs each for FUZZ_SECONDS (default 60), both at once, from corpora seeded
# at run time (tests/fuzz/seed_corpus.sh). A crash, leak, timeout or sanitizer report fails
# the stage and leaves the input in build-fuzz/findings/<target>/: minimise it and commit it to
# tests/fuzz/regressions/<target>/ with the fix (docs/reliability.md).
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
./build.sh build >/dev/null # the packages the library needs

# clang and its runtimes (libFuzzer, the sanitizers) from apt when missing.
missing=()
for p in clang-14 libclang-rt-14-dev; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
fi

stamp() { echo "fuzz.sh: $* ($(date +%T))"; }
stamp "configure and build the fuzzers"
# fuzzer-no-link everywhere: the library's code gets the coverage feedback too.
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DQGRAPH_BUILD_FUZZERS=ON -DQGRAPH_SANITIZE="address;undefined" \
    -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link >/dev/null
cmake --build build-fuzz -j "$JOBS" --target fuzz_case_loader fuzz_api >/dev/null

corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
tests/fuzz/seed_corpus.sh . "$corpus"

export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
run() { # target, extra libFuzzer options...
    local t=$1
    shift
    mkdir -p "build-fuzz/findings/$t"
    "build-fuzz/tests/fuzz/fuzz_$t" "$corpus/$t" -max_total_time="$FUZZ_SECONDS" \
        -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="build-fuzz/findings/$t/" "$@" >"build-fuzz/findings/$t.log" 2>&1
}
stamp "fuzzing each target for ${FUZZ_SECONDS} s"
status=0
run case_loader -dict=tests/fuzz/case_loader.dict &
pid1=$!
run api &
pid2=$!
wait $pid1 || status=1
wait $pid2 || status=1
for t in case_loader api; do
    echo "--- fuzz_$t: $(grep -E '^stat::number_of_executed_units' "build-fuzz/findings/$t.log" || true)"
    grep -E 'ERROR|SUMMARY|Test unit written' "build-fuzz/findings/$t.log" || true
done
if [ "$status" -ne 0 ]; then
    echo "fuzz.sh: a fuzzer found a problem; the inputs are in build-fuzz/findings/" >&2
    exit 1
fi
stamp "done, no finding"
