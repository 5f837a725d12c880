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
OUT=$BUILD/examples
mkdir -p "$OUT"
# the arena's rules: plain C on the public API, compiled with the game
# shellcheck disable=SC2086
cc -std=c11 -O2 -Wall -Wextra -pedantic -Werror $CFLAGS_FXS -Itools -c tools/scenes/arena.c -o "$OUT/arena.o"
want=$(awk '$1 == "arena" {print $5}' replays/corpus/MANIFEST)
echo "examples: built against $PREFIX ($(pkg-config --modversion fixstep))"
# linked twice: with the shared library (pkg-config fixstep) and with the
# static one (pkg-config fixstep-static); both must end on the corpus's hash
for kind in shared static; do
    pc=fixstep
    [ "$kind" = static ] && pc=fixstep-static
    # shellcheck disable=SC2046
    g++ -std=c++17 -O2 -Wall -Wextra -pedantic -Werror $CFLAGS_FXS -Itools examples/arena_cpp/main.cpp "$OUT/arena.o" \
        $(pkg-config --libs $pc) -Wl,-rpath,"$PREFIX/lib" -o "$OUT/arena_cpp_$kind"
    if [ "$kind" = shared ] && ! ldd "$OUT/arena_cpp_$kind" | grep -q "libfixstep.so.[0-9]"; then
        echo "examples: FAILED: arena_cpp_shared does not load libfixstep.so" >&2
        exit 1
    fi
    "$OUT/arena_cpp_$kind" | tee "$OUT/arena_cpp_$kind.out"
    got=$(awk '$1 == "hash" {print $2}' "$OUT/arena_cpp_$kind.out")
    if [ -z "$want" ] || [ "$got" != "$want" ]; then
        echo "examples: FAILED: the C++ arena ($kind library) ends on $got, the corpus on ${want:-(none)}" >&2
        exit 1
    fi
    echo "examples: OK: the C++ arena, $kind library, ends on the corpus's hash $want"
done
