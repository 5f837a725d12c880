#!/usr/bin/env bash
# `make test-csharp` (part of `make test` when Mono is installed): builds the
# C# binding (Fixstep.dll) with Mono's mcs at C# 7.2, which Unity's C# 7.3
# and .NET's compilers accept too; the test-only native library of the
# built-in scenes (libfixstep_scenes.so: tools/scenes on libfixstep.so); the
# tests and the arena example. Runs the tests ("N passed, N failed"), checks
# that a unit slip (a raw integer as a Fix) does not compile, and that the
# example ends on the arena's corpus hash. Skips, saying why, without Mono.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
BUILD=${BUILD:-build}
for tool in mcs mono; do
    if ! command -v $tool >/dev/null; then
        echo "test-csharp: skipped: $tool is not installed (apt-get install mono-mcs mono-runtime)"; exit 0
    fi
done
OUT=$BUILD/csharp
mkdir -p "$OUT"
so=$(ls "$BUILD"/libfixstep.so.[0-9]* 2>/dev/null | head -n 1)
[ -n "$so" ] || { echo "test-csharp: no $BUILD/libfixstep.so (make SHARED=1)" >&2; exit 1; }
# the scenes, as the JS package gets them (tools/scenes), here against the shared library
${CC:-cc} -std=c17 -O2 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
    -Ikernel/include -Ireplays/include -Isession/include -Iauthoring/include -Ifixmath_glue -Itools \
    bindings/csharp/native/fixstep_scenes.c tools/scenes/*.c -L"$BUILD" -l:"$(basename "$so" | sed 's/\.[0-9]*\.[0-9]*$//')" \
    -llibfixmath -Wl,--no-undefined -Wl,--exclude-libs,ALL -o "$OUT/libfixstep_scenes.so"
MCS="mcs -langversion:7.2 -warnaserror+ -nologo"
$MCS -target:library -doc:"$OUT/Fixstep.xml" -nowarn:1591 -out:"$OUT/Fixstep.dll" bindings/csharp/src/*.cs
$MCS -r:"$OUT/Fixstep.dll" -out:"$OUT/tests.exe" bindings/csharp/tests/*.cs
$MCS -r:"$OUT/Fixstep.dll" -out:"$OUT/arena.exe" bindings/csharp/examples/Arena/*.cs
# a unit slip must not compile: an int is no Fix, a Fix no int (and the right way does)
printf 'using Fixstep;\nstatic class Slip { static void Main() { Fix f = (Fix)200 + Fix.FromRaw(200); FixVec3 v = FixVec3.FromUnits(1, 2, 3); int raw = f.Raw + v.X.Raw; double m = (double)f; System.Console.Write(raw + m); } }\n' >"$OUT/slip.cs"
$MCS -r:"$OUT/Fixstep.dll" -out:"$OUT/slip.exe" "$OUT/slip.cs"
for slip in 'Fix f = 200;' 'Fixstep.FixVec3 v = new Fixstep.FixVec3(1, 2, 3);' 'int raw = (Fix)1.5;'; do
    printf 'using Fixstep;\nstatic class Slip { static void Main() { %s } }\n' "$slip" >"$OUT/slip.cs"
    if $MCS -r:"$OUT/Fixstep.dll" -out:"$OUT/slip.exe" "$OUT/slip.cs" >/dev/null 2>&1; then
        echo "test-csharp: FAILED: a unit slip compiles: $slip" >&2; exit 1
    fi
done
echo "test-csharp: unit slips do not compile (an int as a Fix, a Fix as an int)"
export LD_LIBRARY_PATH=$ROOT/$BUILD:$ROOT/$OUT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mono "$OUT/arena.exe" | tee "$OUT/arena.out"
want=$(awk '$1 == "arena" {print $5}' replays/corpus/MANIFEST)
got=$(awk '$1 == "hash" {print $2}' "$OUT/arena.out")
if [ -z "$want" ] || [ "$got" != "$want" ]; then
    echo "test-csharp: FAILED: the C# arena ends on ${got:-nothing}, the corpus on ${want:-(none)}" >&2; exit 1
fi
echo "test-csharp: the C# arena example ends on the corpus's hash $want"
mono --debug "$OUT/tests.exe" "$ROOT" "$ROOT/$BUILD/fixstep"
