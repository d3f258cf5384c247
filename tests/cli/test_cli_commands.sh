#!/usr/bin/env bash
# The warpkit command as a user runs it: exit codes and messages, with or
# without a GPU. Usage: test_cli_commands.sh PATH_TO_WARPKIT
set -u
warpkit=$1
passed=0 failed=0
expect() { # expect DESCRIPTION CONDITION...
    local what=$1; shift
    if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "FAIL $what"; fi
}

out=$("$warpkit" help); rc=$?
expect "help exits 0" test $rc -eq 0
expect "help lists the commands" grep -q "verify" <<<"$out"

# refuses WHAT WHY PATTERN ARGS...: warpkit ARGS exits 2 and its output
# (stdout and stderr) holds PATTERN.
refuses() {
    local what=$1 why=$2 pattern=$3; shift 3
    out=$("$warpkit" "$@" 2>&1); rc=$?
    expect "$what exits 2" test $rc -eq 2
    expect "$what: $why" grep -q -- "$pattern" <<<"$out"
}
refuses "an unknown command" "says which" "unknown command 'frobnicate'" frobnicate
refuses "a bad size" "explains the format" "2^24" bench --min-n lots
refuses "a block size that is not a power of two" "says what ladder needs" "power of two" ladder --threads 96
refuses "an unknown --op" "names the choices" "reduce, scan, select, segmented or segmented-repro" bench --op sort
refuses "--op on a command without it" "says where it applies" "bench and ladder" tune --op scan
refuses "ladder --op select" "says select is for bench" "select applies to bench only" ladder --op select
refuses "ladder --op segmented" "says segmented is for bench" "segmented applies to bench only" ladder --op segmented

out=$("$warpkit" help); rc=$?
expect "help documents --op" grep -q -- "--op OP" <<<"$out"
expect "help documents --op select" grep -q -- "--op select" <<<"$out"
expect "help documents --op segmented" grep -q -- "--op segmented" <<<"$out"

# --help, -h and help COMMAND: the usage on stdout, exit 0, even without a GPU.
for args in "--help" "-h" "help"; do
    out=$("$warpkit" $args 2>/dev/null); rc=$?
    expect "warpkit $args exits 0" test $rc -eq 0
    expect "warpkit $args prints the usage" grep -q "usage: warpkit COMMAND" <<<"$out"
done
for command in info verify bench ladder tune; do
    for args in "$command --help" "$command -h" "help $command"; do
        out=$("$warpkit" $args 2>/dev/null); rc=$?
        expect "warpkit $args exits 0" test $rc -eq 0
        expect "warpkit $args names the command" grep -q "^usage: warpkit $command" <<<"$out"
    done
done
out=$("$warpkit" bench --help); rc=$?
expect "bench --help shows bench's options" grep -q -- "--min-n N" <<<"$out"
no_ladder_options() { ! grep -q -- "--threads" <<<"$out"; }
expect "and not the ladder's" no_ladder_options
out=$("$warpkit" ladder --threads 96 --help); rc=$?
expect "--help after a bad option still exits 0" test $rc -eq 0
refuses "help of an unknown command" "says which" "frobnicate" help frobnicate
out=$("$warpkit" frobnicate --help 2>&1); rc=$?
expect "an unknown command with --help exits 2" test $rc -eq 2
refuses "an unknown option" "shows the command's usage" "^usage: warpkit bench" bench --frobnicate

# verify: passes on a GPU, or says clearly that there is none (exit 3).
out=$("$warpkit" verify --quick 2>&1); rc=$?
if [ $rc -eq 3 ]; then
    expect "verify without a GPU says so" grep -q "no CUDA device" <<<"$out"
    for command in info ladder tune "bench --op scan" "bench --op select" "bench --op segmented" "ladder --op scan"; do
        out=$("$warpkit" $command 2>&1); rc=$?
        expect "$command without a GPU exits 3" test $rc -eq 3
        expect "and says so" grep -q "no CUDA device" <<<"$out"
    done
else
    expect "verify --quick on a GPU passes (exit $rc)" test $rc -eq 0
    expect "verify prints TEST PASS" grep -q "TEST PASS" <<<"$out"
    expect "verify runs the segmented cases" grep -q "^== segmented reduce and scans: [1-9]" <<<"$out"
    expect "verify runs the reproducible cases" grep -q "^== reproducible sums (whole and segmented): [1-9]" <<<"$out"
    # A function, not a child process: the output is too long for an argument.
    no_test_fail() { ! grep -q "TEST FAIL" <<<"$out"; }
    expect "verify prints no TEST FAIL" no_test_fail
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
