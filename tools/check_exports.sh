#!/usr/bin/env bash
# The shared library exports exactly the functions the installed headers
# declare: every exported symbol is declared in kernel/include/fixstep/,
# replays/include/fixstep/, session/include/fixstep/ or fixmath_glue/, and
# every function of the static library that they declare is exported.
# Usage: check_exports.sh libfixstep.so libfixstep.a
set -euo pipefail
so=$1 lib=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# identifiers followed by "(" in the installed headers
cat kernel/include/fixstep/*.h replays/include/fixstep/*.h session/include/fixstep/*.h fixmath_glue/*.h | grep -o '\bfx[sg]_[a-z0-9_]*[[:space:]]*(' | tr -d '( \t' | sort -u >"$tmp/declared"
nm -D --defined-only "$so" | awk '{print $3}' | sort -u >"$tmp/exported"
nm -g --defined-only "$lib" 2>/dev/null | awk '$2 == "T" {print $3}' | sort -u >"$tmp/global"
comm -12 "$tmp/global" "$tmp/declared" >"$tmp/public"
if ! diff -u "$tmp/public" "$tmp/exported" >"$tmp/diff"; then
    echo "check_exports: $so does not export exactly the installed headers' functions (- missing, + not declared):" >&2
    grep '^[-+][a-z]' "$tmp/diff" >&2
    exit 1
fi
echo "check_exports: $so exports the $(wc -l <"$tmp/exported") functions of the installed headers, nothing else"
