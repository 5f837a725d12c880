#!/usr/bin/env bash
# `make test-js`: builds the package and runs its tests with node's built-in
# test runner (the API, the same bits as native on the corpus and every scene,
# npm pack + install, the wasm kernels' comparison, and the viewer in headless
# Chromium when Chromium is installed). Skips, saying why, when node is missing
# or emscripten is missing and cannot be installed (not root).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
if ! command -v node >/dev/null; then echo "test-js: skipped: node is not installed (apt-get install nodejs npm)"; exit 0; fi
if ! command -v emcc >/dev/null && [ "$(id -u)" != 0 ]; then
    echo "test-js: skipped: emscripten is not installed (sudo apt-get install emscripten)"; exit 0
fi
make --no-print-directory js
bash bindings/js/build.sh tests
cd bindings/js
# node's TAP report, then one summary line in the C runner's words
set +e
node --test test/*.test.mjs | tee ../../build/js-test.log
rc=${PIPESTATUS[0]}
set -e
pass=$(sed -n 's/^# pass //p' ../../build/js-test.log | tail -n 1)
fail=$(sed -n 's/^# fail //p' ../../build/js-test.log | tail -n 1)
echo "${pass:-0} passed, ${fail:-?} failed (the JavaScript package)"
exit "$rc"
