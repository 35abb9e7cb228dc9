#!/usr/bin/env bash
# Runs qbench and checks what it printed and how it exited (ctest entries of tests/qbench).
#
#   run_qbench.sh QBENCH EXPECT [ARG]...
#
# EXPECT:
#   state=S   exactly one case ran and its line says S; the exit status is 1 for FAILED and
#             INVALID_ARGUMENTS, else 0.
#   loads     one case ran and did not crash: its state is PASSED, SKIPPED, UNIMPLEMENTED or
#             INVALID_ARGUMENTS (not FAILED), the exit status matches it, no signal.
#   pass      any number of cases, none FAILED or INVALID_ARGUMENTS, exit status 0.
#   exit=N    exit status N; for N=2 (usage error) nothing on stdout and one "qbench: " line on
#             stderr.
set -u
qbench=$1 expect=$2
shift 2

out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
"$qbench" "$@" >"$out" 2>"$err"
rc=$?

fail() {
    echo "run_qbench.sh: $*" >&2
    echo "--- command: $qbench $*" >&2
    echo "--- exit status: $rc" >&2
    echo "--- stdout:" >&2; cat "$out" >&2
    echo "--- stderr:" >&2; cat "$err" >&2
    exit 1
}

if [ "$rc" -ge 128 ]; then fail "killed by signal $((rc - 128))"; fi

case_lines=$(grep -E '^[0-9]+:[A-Z_]+ \([0-9.]+ ms\) __REPRO: ' "$out")
summary=$(grep -E '^tests:[0-9]+ passed:[0-9]+ skipped:[0-9]+ mistrusted:[0-9]+ unimplemented:[0-9]+ invalid_arguments:[0-9]+ failed:[0-9]+ listed:[0-9]+$' "$out")
states=$(printf '%s\n' "$case_lines" | sed -E 's/^[0-9]+:([A-Z_]+) .*/\1/')

one_case() {
    [ -n "$summary" ] || fail "no summary line"
    [ "$(printf '%s\n' "$case_lines" | grep -c .)" -eq 1 ] || fail "expected exactly one case line"
}

expected_rc() {
    case $1 in FAILED | INVALID_ARGUMENTS) echo 1 ;; *) echo 0 ;; esac
}

case $expect in
    state=*)
        want=${expect#state=}
        one_case
        [ "$states" = "$want" ] || fail "state is $states, expected $want"
        [ "$rc" -eq "$(expected_rc "$want")" ] || fail "exit status $rc for $want"
        ;;
    loads)
        one_case
        case $states in
            PASSED | SKIPPED | UNIMPLEMENTED | INVALID_ARGUMENTS) ;;
            *) fail "state is $states" ;;
        esac
        [ "$rc" -eq "$(expected_rc "$states")" ] || fail "exit status $rc for $states"
        ;;
    pass)
        [ -n "$summary" ] || fail "no summary line"
        if printf '%s\n' "$states" | grep -qE '^(FAILED|INVALID_ARGUMENTS)$'; then
            fail "a case FAILED or had INVALID_ARGUMENTS"
        fi
        [ "$rc" -eq 0 ] || fail "exit status $rc"
        ;;
    exit=*)
        want=${expect#exit=}
        [ "$rc" -eq "$want" ] || fail "exit status $rc, expected $want"
        if [ "$want" -eq 2 ]; then
            [ ! -s "$out" ] || fail "usage error but something on stdout"
            [ "$(wc -l <"$err")" -eq 1 ] || fail "usage error should be one line on stderr"
            grep -q '^qbench: ' "$err" || fail "usage error without the 'qbench: ' prefix"
        fi
        ;;
    *) fail "unknown expectation '$expect'" ;;
esac
exit 0
