#!/usr/bin/env bash
# QGRAPH_JIT_DUMP (src/backends/jit/jit_dump.hpp) through qbench: with it, the problem's
# quantize kernel lands in the working directory as code that disassembles to the kernel's
# frame (the callee-saved pushes and the ret); without it, nothing is written; where nothing
# can be written, the run still passes and says so once.
set -euo pipefail
qbench=$(realpath "${1:?usage: check_jit_dump.sh QBENCH}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_jit_dump: $*" >&2; exit 1; }
prb=(--mode=C --backend=jit --op=Quantize --sdt=f32 --ddt=u8 --scale=0.023 1x64x56x56)

mkdir "$work/on" "$work/off" "$work/ro"
(cd "$work/on" && QGRAPH_JIT_DUMP=1 "$qbench" "${prb[@]}" >out.txt 2>&1) \
    || fail "qbench failed with QGRAPH_JIT_DUMP=1: $(cat "$work/on/out.txt")"
files=("$work"/on/qgraph_jit_quantize_*.0.bin)
[ -s "${files[0]}" ] || fail "no qgraph_jit_quantize_<isa>.0.bin: $(ls "$work/on")"
dis=$(objdump -D -b binary -mi386:x86-64 "${files[0]}")
grep -q 'push.*%rbx' <<<"$dis" || fail "the dump does not start with the kernel's preamble"
grep -q 'ret' <<<"$dis" || fail "the dump has no ret"

(cd "$work/off" && "$qbench" "${prb[@]}" >out.txt 2>&1) || fail "qbench failed without the dump"
[ -z "$(ls "$work/off" | grep -v '^out.txt$')" ] || fail "files written without QGRAPH_JIT_DUMP"

# A folder where the first file would go (root writes through permissions, not through this).
mkdir "$work/ro/qgraph_jit_quantize_avx2.0.bin" "$work/ro/qgraph_jit_quantize_avx512_core.0.bin"
(cd "$work/ro" && QGRAPH_JIT_DUMP=1 "$qbench" "${prb[@]}" >../ro.txt 2>&1) \
    || fail "qbench failed where the dump cannot be written: $(cat "$work/ro.txt")"
[ "$(grep -c 'QGRAPH_JIT_DUMP=1: cannot write' "$work/ro.txt")" -eq 1 ] \
    || fail "no single warning where the dump cannot be written: $(cat "$work/ro.txt")"
echo "check_jit_dump: ok"
