#!/usr/bin/env bash
# `make js`: the npm package's wasm builds and its ES module and CommonJS files.
#
# Builds the kernel, the replay library, the session library (session/, whose
# MACs are libsodium's, compiled with emcc from Debian's source package into the
# wasm32 sysroot), the built-in scenes and the flat C API of bindings/js/src with
# Debian's emscripten at -O3, twice: "simd128" (-msimd128:
# the contact solver's SIMD128 kernel, chosen at build time) and "portable" (no
# vector instruction at all, for engines without SIMD128 and for comparison). The
# wasm32 sysroot (libfixmath compiled with emcc from Debian's source package) and
# emscripten itself come from tools/crosscheck.sh (with libsodium), which the wasm32 row of the
# crosscheck uses too. Then build.mjs writes bindings/js/dist/.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
OUT=${JS_BUILD:-build/js}
SYS=$ROOT/build/x/sysroot/wasm32
say() { printf 'make js: %s\n' "$*" >&2; }

if ! command -v emcc >/dev/null || [ ! -f "$SYS/.done" ] || [ ! -f "$SYS/usr/lib/libsodium.a" ]; then
    TARGETS=wasm32 bash tools/crosscheck.sh setup
fi
export NODE_PATH=/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}

# `build.sh tests`: the C tests built for wasm with -msimd128 (tests/test_batch.c
# compares the SIMD128 kernel with the portable one there; make test-js runs it).
if [ "${1:-}" = tests ]; then
    b=$OUT/simd128; mkdir -p "$OUT"
    make --no-print-directory BUILD="$b" CC=emcc AR=emar OPT=-O3 XXH_INLINE=1 DEPS_CHECK=0 EXE=.js SESSIONS=0 \
        CPPFLAGS="-I$SYS/usr/include" CFLAGS=-msimd128 \
        LDFLAGS="-L$SYS/usr/lib -sSINGLE_FILE=1 -sEXIT_RUNTIME=1 -sNODERAWFS=1 -sALLOW_MEMORY_GROWTH=1" \
        "$b/fixstep_tests.js" >"$b-tests.log" 2>&1 || { say "building the wasm tests failed:"; tail -n 30 "$b-tests.log" >&2; exit 1; }
    exit 0
fi

JS_SRC=$(ls bindings/js/src/*.c)
SRC="$(ls replays/*.c) $(ls tools/scenes/*.c) $JS_SRC"
mkdir -p "$OUT"
for variant in simd128 portable; do
    flags=; [ "$variant" = simd128 ] && flags=-msimd128
    b=$OUT/$variant
    objs=$(for f in $SRC; do printf '%s/obj/%s.o ' "$b" "${f%.c}"; done)
    # shellcheck disable=SC2086
    make --no-print-directory BUILD="$b" CC=emcc AR=emar OPT=-O3 XXH_INLINE=1 DEPS_CHECK=0 SESSIONS=1 \
        CPPFLAGS="-I$SYS/usr/include" CFLAGS="$flags" "$b/libfixstep.a" $objs >"$b.log" 2>&1 \
        || { say "compiling $variant failed:"; tail -n 30 "$b.log" >&2; exit 1; }
    # linked again only when an object or the library changed: a `make js` with
    # nothing to do takes seconds, not the two links' minute
    # shellcheck disable=SC2086
    if [ -f "$b/fixstep_wasm.js" ] && [ -z "$(find $objs "$b/libfixstep.a" -newer "$b/fixstep_wasm.js" | head -n 1)" ]; then
        continue
    fi
    # shellcheck disable=SC2086
    emcc -O3 $flags $objs "$b/libfixstep.a" -L"$SYS/usr/lib" -llibfixmath -lsodium -o "$b/fixstep_wasm.js" \
        -sMODULARIZE=1 -sEXPORT_NAME=createFixstepWasm -sSINGLE_FILE=1 -sENVIRONMENT=web \
        -sALLOW_MEMORY_GROWTH=1 -sFILESYSTEM=1 -sEXPORTED_FUNCTIONS=_malloc,_free \
        -sEXPORTED_RUNTIME_METHODS=UTF8ToString >>"$b.log" 2>&1 \
        || { say "linking $variant failed:"; tail -n 30 "$b.log" >&2; exit 1; }
done
# ws for the sessions' relay (the one dependency), three.js for the viewer,
# puppeteer-core for its test and TypeScript for the types' test (the
# devDependencies), from the committed lock when one is missing
node -e 'const p = require("./bindings/js/package.json"), d = { ...p.dependencies, ...p.devDependencies };
  process.exit(Object.keys(d).every((k) => require("fs").existsSync(`bindings/js/node_modules/${k}`)) ? 0 : 1)' \
    || (cd bindings/js && npm ci --no-audit --no-fund --silent)
node bindings/js/build.mjs "$OUT"
