#!/usr/bin/env bash
# `make examples`: install fixstep into a fresh temporary prefix, build the
# examples against it with pkg-config (as a game would), run them, and check
# that the C++ arena ends on the arena's golden hash (replays/corpus/MANIFEST:
# the same 600 scripted ticks recorded by the fixstep program), and that the
# marbles game's peers, each its own process over UDP on localhost, end on
# one hash, and that the replays they record verify on it.
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
# the license and the third-party notices go with the libraries
for f in LICENSE THIRD_PARTY_NOTICES; do
    if ! cmp -s "$f" "$PREFIX/share/doc/fixstep/$f"; then
        echo "examples: FAILED: make install did not install $f in share/doc/fixstep" >&2; exit 1
    fi
done
grep -q '^libfixmath$' "$PREFIX/share/doc/fixstep/THIRD_PARTY_NOTICES" && grep -q '^xxHash' "$PREFIX/share/doc/fixstep/THIRD_PARTY_NOTICES" \
    || { echo "examples: FAILED: the installed notices lack libfixmath or xxHash" >&2; exit 1; }
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

# threads: the step on the game's own pool of threads (examples/threads/main.c,
# docs/threads.md): every step's hash the same as one thread's
for kind in shared static; do
    pc=fixstep
    [ "$kind" = static ] && pc=fixstep-static
    # shellcheck disable=SC2046
    cc -std=c11 -O2 -Wall -Wextra -pedantic -Werror $CFLAGS_FXS examples/threads/main.c \
        $(pkg-config --libs $pc) -pthread -Wl,-rpath,"$PREFIX/lib" -o "$OUT/threads_$kind"
    if ! "$OUT/threads_$kind" | tee "$OUT/threads_$kind.out" | grep -q "the same hash at every step"; then
        cat "$OUT/threads_$kind.out"
        echo "examples: FAILED: threads ($kind library): the game's pool gave another hash" >&2
        exit 1
    fi
    echo "examples: OK: threads, $kind library: $(head -n 1 "$OUT/threads_$kind.out")"
done

# marbles: a rollback session between processes (examples/marbles/main.c)
head -c 32 /dev/urandom >"$OUT/marbles.key"
port=$((40000 + ($$ % 2000) * 8))
for kind in shared static; do
    pc=fixstep
    [ "$kind" = static ] && pc=fixstep-static
    # shellcheck disable=SC2046
    cc -std=c11 -O2 -Wall -Wextra -pedantic -Werror $CFLAGS_FXS examples/marbles/main.c \
        $(pkg-config --libs $pc) -Wl,-rpath,"$PREFIX/lib" -o "$OUT/marbles_$kind"
done
if ! ldd "$OUT/marbles_shared" | grep -q "libfixstep.so.[0-9]"; then
    echo "examples: FAILED: marbles_shared does not load libfixstep.so" >&2
    exit 1
fi
# run: the peers of one session (players, then spectators), each a process
run_marbles() { # NAME PEERS SPECTATORS PORT EXTRA...
    local name=$1 peers=$2 spect=$3 base=$4 pids=() k
    shift 4
    for ((k = 0; k < peers; ++k)); do
        local exe=$OUT/marbles_shared
        ((k % 2)) && exe=$OUT/marbles_static # both libraries in one session
        "$exe" --peers "$peers" --spectators "$spect" --local "$k" --port "$base" \
            --key-file "$OUT/marbles.key" --tick-ms 8 --record "$OUT/$name.$k.fxr" "$@" >"$OUT/$name.$k.out" 2>&1 &
        pids+=($!)
    done
    local rc=0
    for k in "${!pids[@]}"; do wait "${pids[$k]}" || rc=1; done
    cat "$OUT/$name".*.out
    local hashes
    hashes=$(awk '$1 == "final" {print $3}' "$OUT/$name".*.out | sort -u)
    if [ "$rc" != 0 ] || [ "$(echo "$hashes" | wc -l)" != 1 ] || [ -z "$hashes" ]; then
        echo "examples: FAILED: marbles ($name) peers do not end on one hash" >&2
        exit 1
    fi
    # every peer recorded the confirmed inputs, and the replay verified on that hash
    if [ "$(cat "$OUT/$name".*.out | grep -c "^replay .*verified, hash $hashes")" != "$peers" ]; then
        echo "examples: FAILED: marbles ($name) replays do not all verify on $hashes" >&2
        exit 1
    fi
    echo "examples: OK: marbles, $name: $peers processes end on $hashes, and their replays verify"
}
run_marbles two 2 0 "$port"
run_marbles three_lossy 3 0 $((port + 2)) --loss 0.1 --jitter 60
run_marbles with_spectator 4 1 $((port + 5)) --loss 0.05 --jitter 30
# a desync on purpose: peer 1 moves a marble by 1 LSB after tick 100; both
# processes, each with a desync directory of its own, must name the same tick,
# body and field, learnt from each other over the protocol alone
desync() {
    local base=$((port + 10)) pids=() k rc
    for k in 0 1; do
        local extra=()
        ((k == 1)) && extra=(--perturb 100)
        mkdir -p "$OUT/desync.$k"
        "$OUT/marbles_shared" --peers 2 --local "$k" --port "$base" --key-file "$OUT/marbles.key" --tick-ms 8 \
            --desync-dir "$OUT/desync.$k" "${extra[@]}" >"$OUT/desync.$k.out" 2>&1 &
        pids+=($!)
    done
    for k in 0 1; do
        rc=0
        wait "${pids[$k]}" || rc=$?
        if [ "$rc" != 4 ]; then
            cat "$OUT/desync.$k.out"
            echo "examples: FAILED: marbles peer $k with a desync exits $rc, not 4" >&2
            exit 1
        fi
    done
    local lines
    lines=$(sed -n 's/^marbles [01]: \(desync at tick .*: .* field .*\)$/\1/p' "$OUT"/desync.[01].out | sort | uniq -c)
    echo "$lines"
    if [ "$(echo "$lines" | awk '$1 == 2' | wc -l)" != 1 ]; then
        echo "examples: FAILED: the two marbles peers do not name the same desync" >&2
        exit 1
    fi
    echo "examples: OK: marbles, desync: both processes name it the same, each from its own directory"
}
desync
