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
[ $fail -eq 0 ] && echo "layering: ok"
exit $fail
