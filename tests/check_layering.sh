#!/usr/bin/env bash
# Dependencies point one way: interface -> passes -> backends -> common; tools use only the
# public API (and tools/case). A lower layer that includes an upper one fails this test.
set -u
src=${1:?usage: check_layering.sh SRC_DIR}
fail=0
check() { # layer, forbidden include prefixes...
    local layer=$1; shift
    for bad in "$@"; do
        if grep -rn "#include \"$bad" "$src/$layer" >/dev/null 2>&1; then
            grep -rn "#include \"$bad" "$src/$layer"
            echo "layering: src/$layer must not include $bad*" >&2
            fail=1
        fi
    done
}
check common backends/ passes/ interface/ tools/
check backends passes/ interface/ tools/
check passes interface/ tools/
check interface tools/
check tools common/ backends/ passes/ interface/
# Only the dnnl backend includes oneDNN. The one exception is qbench's `onednn` baseline: the
# plain-oneDNN code a framework integrator would write, which qbench --mode=P times to compare
# qgraph against. It is a tool, not part of the library, so it does not use the dnnl backend.
if grep -rln "oneapi/dnnl" "$src" | grep -v "^$src/backends/dnnl/" \
        | grep -vx "$src/tools/qbench/onednn_baseline.cpp" ; then
    echo "layering: only src/backends/dnnl (and src/tools/qbench/onednn_baseline.cpp) may include oneDNN" >&2
    fail=1
fi
# The backends and passes read the ISA cap from the problem (the compile's snapshot, which the
# jit backend lowers to a kernel level: common/cpu_isa.hpp), never the global cap or the CPU's
# levels, so a compile's code follows its cache key and the levels tests skip run no other code.
if grep -rnE '\b(max_cpu_isa|effective_cpu_isa|max_hardware_isa|cpu_isa_levels|kernel_isa_levels)\(' \
        "$src/backends" "$src/passes"; then
    echo "layering: src/backends and src/passes take the ISA cap from the problem only" >&2
    fail=1
fi
[ $fail -eq 0 ] && echo "layering: ok"
exit $fail
