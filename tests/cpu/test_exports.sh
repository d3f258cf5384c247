#!/usr/bin/env bash
# libwarpkit.so exports the public API and nothing else: every function that
# include/warpkit.h declares is a defined dynamic symbol of the library, and
# every defined dynamic symbol is one of them. The header's functions come
# from the C compiler's own reading of it (gcc -aux-info), so the test does
# not share the configure-time parse that writes the version script.
# Usage: test_exports.sh LIBWARPKIT_SO HEADER CC [INCLUDE_DIR...]
set -eu
lib=$1 header=$2 cc=$3
shift 3
includes=()
for dir in "$@"; do includes+=(-I "$dir"); done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The functions the header declares (not static inline ones), as the compiler sees them.
printf '#include "%s"\n' "$header" >"$scratch/h.c"
if "$cc" -std=c11 -fsyntax-only -aux-info "$scratch/aux" "${includes[@]}" "$scratch/h.c" 2>"$scratch/err"; then
    grep -F "$(basename "$header"):" "$scratch/aux" | grep -v ' static ' |
        sed -E 's/.*[ *]([A-Za-z_][A-Za-z0-9_]*) \(.*/\1/' | sort -u >"$scratch/declared"
else # not gcc: the declarations that start a line
    echo "note: $cc has no -aux-info ($(head -n 1 "$scratch/err")); reading the header's lines"
    grep -E '^[A-Za-z_][A-Za-z0-9_ *]*[ *]wk_[A-Za-z0-9_]+ *\(' "$header" | grep -Ev '^(typedef|static)' |
        sed -E 's/^[^(]*[ *](wk_[A-Za-z0-9_]+) *\(.*/\1/' | sort -u >"$scratch/declared"
fi
# The library's defined dynamic symbols, without version suffixes (wk_create@@WARPKIT_0).
nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' | sed 's/@.*//' | grep -v '^WARPKIT_' | sort -u \
    >"$scratch/exported"

declared=$(wc -l <"$scratch/declared") exported=$(wc -l <"$scratch/exported")
echo "$(basename "$header") declares $declared functions; $(basename "$lib") exports $exported symbols"
failed=0
if [ "$declared" -lt 20 ]; then
    echo "FAIL: found only $declared functions in $header"
    failed=1
fi
for name in $(comm -13 "$scratch/declared" "$scratch/exported"); do
    echo "FAIL: $name is exported but not declared in $(basename "$header")"
    failed=1
done
for name in $(comm -23 "$scratch/declared" "$scratch/exported"); do
    echo "FAIL: $name is declared in $(basename "$header") but not exported"
    failed=1
done
# The version node: programs linked against this library record WARPKIT_0.
if ! objdump -T "$lib" | grep -q 'WARPKIT_0.*wk_create$'; then
    echo "FAIL: wk_create is not in the WARPKIT_0 version node"
    failed=1
fi
[ $failed -eq 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $failed
