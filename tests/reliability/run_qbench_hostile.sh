#!/usr/bin/env bash
# qbench on every hostile case file (hostile_cases.cpp, written at test time): each run must
# end within TIMEOUT seconds and MEM_KB of address space (0: no limit, for sanitizer builds
# whose shadow memory needs terabytes of it), exit with status 1, print exactly one case line
# in state INVALID_ARGUMENTS or FAILED, and exactly one reason line, of bounded length,
# holding the expected fragment. No signal, no output on stderr.
#
#   run_qbench_hostile.sh QBENCH HOSTILE_CASE_WRITER MEM_KB TIMEOUT
set -u
qbench=$1 writer=$2 mem_kb=$3 limit=$4
max_line=4200 # "    reason: load: <status>: " + a message of at most 4096 characters

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$writer" "$dir" >"$dir/manifest" || { echo "hostile_case_writer failed" >&2; exit 1; }

failures=0 count=0
while IFS=$'\t' read -r file fragment known_bug; do
    count=$((count + 1))
    name=$(basename "$file" .json)
    if [ "$mem_kb" -eq 0 ] && [ "$fragment" = "out of memory" ]; then
        # Sanitizer build: ASan's operator new aborts on a failed allocation instead of
        # throwing std::bad_alloc (allocator_may_return_null covers malloc only), so qbench's
        # "out of memory" path is checked by the main build, under ulimit -v.
        echo "skip $name: out of memory is checked in the main build"
        continue
    fi
    if [ "$mem_kb" -eq 0 ] && [ "$(stat -c %s "$file")" -gt $((16 << 20)) ]; then
        # Sanitizer build: the files of 20-65 MB (a million ops, 10M values) take a minute
        # each there to parse; test_hostile_cases loads them through the same loader under
        # the sanitizers, and the CLI handles them as it does the small files.
        echo "skip $name: over 16 MiB, loaded by test_hostile_cases under the sanitizers"
        continue
    fi
    start=$EPOCHREALTIME
    (
        [ "$mem_kb" -gt 0 ] && ulimit -v "$mem_kb"
        exec timeout -s KILL "$limit" "$qbench" --mode=C --case="$file"
    ) >"$dir/out" 2>"$dir/err"
    rc=$?
    secs=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    problems=()
    [ "$rc" -eq 137 ] && problems+=("killed: over ${limit} s (or out of memory)")
    [ "$rc" -ge 128 ] && [ "$rc" -ne 137 ] && problems+=("killed by signal $((rc - 128))")
    [ "$rc" -lt 128 ] && [ "$rc" -ne 1 ] && problems+=("exit status $rc, expected 1")
    case_lines=$(grep -caE '^[0-9]+:(INVALID_ARGUMENTS|FAILED) \(' "$dir/out")
    [ "$case_lines" -eq 1 ] || problems+=("$case_lines INVALID_ARGUMENTS/FAILED case lines, expected 1")
    reasons=$(grep -ca '^    reason: ' "$dir/out")
    [ "$reasons" -eq 1 ] || problems+=("$reasons reason lines, expected 1")
    # Nothing but the case line, the reason and the summary.
    lines=$(wc -l <"$dir/out")
    [ "$lines" -eq 3 ] || problems+=("$lines lines on stdout, expected 3")
    grep -qa '^    reason: ' "$dir/out" && ! grep -a '^    reason: ' "$dir/out" | grep -qaF -- "$fragment" \
        && problems+=("reason lacks \"$fragment\"")
    longest=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$dir/out")
    if [ "$longest" -gt "$max_line" ]; then
        if [ "$known_bug" != "-" ]; then
            echo "$name: known bug, line of $longest characters: $known_bug"
        else
            problems+=("a line of $longest characters")
        fi
    fi
    # ASan notes a refused huge allocation (allocator_may_return_null=1) on stderr; that note
    # is the sanitizer's, not qbench's output.
    grep -av 'WARNING: AddressSanitizer failed to allocate' "$dir/err" >"$dir/err.own" || true
    [ -s "$dir/err.own" ] && problems+=("stderr: $(head -c 300 "$dir/err.own")")
    if [ ${#problems[@]} -gt 0 ]; then
        failures=$((failures + 1))
        echo "FAIL $name (${secs} s):"
        for p in "${problems[@]}"; do echo "    $p"; done
        echo "    --- stdout:"; head -c 1000 "$dir/out" | sed 's/^/    /'
    else
        printf 'ok   %s (%s s): %s\n' "$name" "$secs" "$(grep '^    reason: ' "$dir/out" | head -c 160 | sed 's/^ *//')"
    fi
done <"$dir/manifest"

echo "$count cases, $failures failed"
[ "$count" -ge 60 ] || { echo "expected at least 60 cases" >&2; exit 1; }
[ "$failures" -eq 0 ]
