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

out=$("$warpkit" frobnicate 2>&1); rc=$?
expect "an unknown command exits 2" test $rc -eq 2
expect "and says which" grep -q "unknown command 'frobnicate'" <<<"$out"

out=$("$warpkit" bench --min-n lots 2>&1); rc=$?
expect "a bad size exits 2" test $rc -eq 2
expect "and explains the format" grep -q "2^24" <<<"$out"

out=$("$warpkit" ladder --threads 96 2>&1); rc=$?
expect "ladder refuses a block size that is not a power of two" test $rc -eq 2
expect "and says what it needs" grep -q "power of two" <<<"$out"

out=$("$warpkit" bench --op sort 2>&1); rc=$?
expect "an unknown --op exits 2" test $rc -eq 2
expect "and names the choices" grep -q "reduce, scan, select or segmented" <<<"$out"

out=$("$warpkit" tune --op scan 2>&1); rc=$?
expect "--op on a command without it exits 2" test $rc -eq 2
expect "and says where it applies" grep -q "bench and ladder" <<<"$out"

out=$("$warpkit" ladder --op select 2>&1); rc=$?
expect "ladder --op select exits 2" test $rc -eq 2
expect "and says select is for bench" grep -q "select applies to bench only" <<<"$out"

out=$("$warpkit" ladder --op segmented 2>&1); rc=$?
expect "ladder --op segmented exits 2" test $rc -eq 2
expect "and says segmented is for bench" grep -q "segmented applies to bench only" <<<"$out"

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
out=$("$warpkit" help frobnicate 2>&1); rc=$?
expect "help of an unknown command exits 2" test $rc -eq 2
expect "and says which" grep -q "frobnicate" <<<"$out"
out=$("$warpkit" frobnicate --help 2>&1); rc=$?
expect "an unknown command with --help exits 2" test $rc -eq 2
out=$("$warpkit" bench --frobnicate 2>&1); rc=$?
expect "an unknown option exits 2" test $rc -eq 2
expect "and shows the command's usage" grep -q "^usage: warpkit bench" <<<"$out"

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
