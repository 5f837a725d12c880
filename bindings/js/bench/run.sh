#!/usr/bin/env bash
# `make bench-js`: fixstep's wasm builds (portable and SIMD128) against Rapier's
# deterministic build and Jolt, installed from npm into a scratch folder
# (build/js/bench-deps; never a dependency of the package): in one node process,
# then in one page of headless Chromium (skipped, saying why, without it).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../../.."
deps=build/js/bench-deps
mkdir -p "$deps"
if [ ! -d "$deps/node_modules/@dimforge/rapier3d-deterministic-compat" ] || [ ! -d "$deps/node_modules/jolt-physics" ]; then
    [ -f "$deps/package.json" ] || echo '{"private": true}' >"$deps/package.json"
    (cd "$deps" && npm install --no-audit --no-fund --silent @dimforge/rapier3d-deterministic-compat jolt-physics)
fi
node bindings/js/bench/bench.mjs
echo
node bindings/js/bench/browser.mjs
