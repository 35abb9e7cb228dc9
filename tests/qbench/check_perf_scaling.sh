#!/usr/bin/env bash
# docs/perf_scaling.sh on a small saved run (tests/qbench/cases/scaling_run): every source
# lands in the CSV under the same problem key, each problem gets one panel, and the SVG is made.
set -euo pipefail
root=${1:?usage: check_perf_scaling.sh PROJECT_DIR}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bash "$root/docs/perf_scaling.sh" "$root/tests/qbench/cases/scaling_run" "$work/s" >/dev/null 2>&1
fail() { echo "check_perf_scaling: $*" >&2; exit 1; }
want=(
    "Quantize 8x64x56x56,qgraph,1,0.42"        # qbench jit, median column
    "Quantize 8x64x56x56,qgraph,16,0.058"
    "Quantize 8x64x56x56,onednn,16,0.5"
    "Quantize 8x64x56x56,roofline,16,0.017"
    "Quantize 8x64x56x56,onnxruntime,16,0.0780" # peers.py, median_ms
    "Quantize 8x64x56x56,pytorch,16,0.0400"
    "DynamicQuantizeLinear 64x1024x1024,onnxruntime,2,31.0000"
    "Quantize 64x1024x1024,limit,16,2.6600"     # stream_q, the nt-store line only
    "Quantize 8x64x56x56,limit,16,0.0130"
)
for w in "${want[@]}"; do grep -qxF "$w" "$work/s.csv" || fail "missing row '$w'"; done
[ "$(wc -l < "$work/s.csv")" -eq $((1 + 13)) ] || fail "expected 13 rows: $(cat "$work/s.csv")"
grep -q ',limit,16,3.5000' "$work/s.csv" && fail "the plain-store limit line was taken"
grep -q 'blocked_int4' "$work/s.csv" && fail "a peers error line was taken"
# qgraph's points of one problem come in thread order (the plot joins them in file order).
[ "$(grep -n '^Quantize 8x64x56x56,qgraph,' "$work/s.csv" | cut -d, -f3 | tr '\n' ' ')" = "1 16 " ] \
    || fail "qgraph rows not in thread order"
[ "$(grep -c "^set title" "$work/s.gp")" -eq 3 ] || fail "expected 3 panels"
grep -q "title 'pytorch'" "$work/s.gp" || fail "no pytorch line"
if command -v gnuplot >/dev/null; then
    grep -q "Quantize 8x64x56x56" "$work/s.svg" || fail "the SVG lacks a panel title"
fi
echo "perf_scaling.sh: ok"
