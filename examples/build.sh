#!/usr/bin/env bash
# `make examples`: install fixstep into a fresh temporary prefix, build the
# examples against it with pkg-config (as a game would), run them, and check
# that the C++ arena ends on the arena's golden hash (replays/corpus/MANIFEST:
# the same 600 scripted ticks recorded by the fixstep program).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build}
for tool in pkg-config g++ cc; do
    command -v "$tool" >/dev/null || { echo "examples: needs $tool (Debian: apt-get install pkg-config g++)" >&2; exit 1; }
done
PREFIX=$(mktemp -d)
trap 'rm -rf "$PREFIX"' EXIT
make --no-print-directory -s install PREFIX="$PREFIX" >/dev/null
export PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig
CFLAGS_FXS=$(pkg-config --cflags fixstep)
LIBS_FXS=$(pkg-config --libs fixstep)
OUT=$BUILD/examples
mkdir -p "$OUT"
# the arena's rules: plain C on the public API, compiled with the game
# shellcheck disable=SC2086
cc -std=c11 -O2 -Wall -Wextra -pedantic -Werror $CFLAGS_FXS -Itools -c tools/scenes/arena.c -o "$OUT/arena.o"
# shellcheck disable=SC2086
g++ -std=c++17 -O2 -Wall -Wextra -pedantic -Werror $CFLAGS_FXS -Itools examples/arena_cpp/main.cpp "$OUT/arena.o" \
    $LIBS_FXS -o "$OUT/arena_cpp"
echo "examples: built against $PREFIX ($(pkg-config --modversion fixstep)): $OUT/arena_cpp"
"$OUT/arena_cpp" | tee "$OUT/arena_cpp.out"
got=$(awk '$1 == "hash" {print $2}' "$OUT/arena_cpp.out")
want=$(awk '$1 == "arena" {print $5}' replays/corpus/MANIFEST)
if [ -z "$want" ] || [ "$got" != "$want" ]; then
    echo "examples: FAILED: the C++ arena ends on $got, the corpus on ${want:-(none)}" >&2
    exit 1
fi
echo "examples: OK: the C++ arena ends on the corpus's hash $want"
