#!/usr/bin/env bash
# Builds the fuzzers' starting corpora in OUT (a scratch directory) from files that already
# exist, so none is duplicated in the repository:
#   OUT/case_loader: every graph case of ../shared/conformance and benchdnn_inputs, plus the
#                    committed regression inputs;
#   OUT/api:         the committed regression inputs, plus a few byte strings cut from those
#                    case files (any bytes decode to some API sequence).
#
#   seed_corpus.sh REPO_ROOT OUT
set -euo pipefail
root=$(cd "$1" && pwd) out=$2
shared=$(cd "$root/.." && pwd)/shared
mkdir -p "$out/case_loader" "$out/api"

n=0
while IFS= read -r -d '' f; do
    # Flattened names keep files of the same name in different folders apart.
    cp "$f" "$out/case_loader/$(echo "${f#"$shared/"}" | tr '/' '_')"
    n=$((n + 1))
done < <(find "$shared/conformance" "$root/benchdnn_inputs" -name '*.json' -print0 2>/dev/null)
[ "$n" -gt 0 ] || { echo "seed_corpus.sh: no case files under $shared/conformance" >&2; exit 1; }

for t in case_loader api; do
    find "$root/tests/fuzz/regressions/$t" -type f ! -name README.md -exec cp {} "$out/$t/" \;
done
i=0
for f in "$out"/case_loader/*; do
    head -c 256 "$f" >"$out/api/seed_$i"
    i=$((i + 1))
    [ "$i" -lt 16 ] || break
done
echo "seed_corpus.sh: $n case files; $(ls "$out/api" | wc -l) api seeds"
