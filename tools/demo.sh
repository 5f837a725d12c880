#!/usr/bin/env bash
# The main job, for a newcomer (`make demo`): run a built-in scene and print its
# state hashes, record a replay of it driven by seeded player inputs, and verify
# the replay by re-simulating it: every tick's hash must be the same bits.
set -euo pipefail
prog=${1:-build/fixstep}
scene=${2:-falling_spheres_500}
steps=${3:-300}
out=$(dirname "$prog")/demo.fxr
echo "== fixstep run $scene --steps $steps --hash-every 100"
"$prog" run "$scene" --steps "$steps" --hash-every 100
echo "== fixstep record $scene --steps $steps --random-inputs 1 -o $out"
"$prog" record "$scene" --steps "$steps" --random-inputs 1 -o "$out"
echo "== fixstep verify $out"
"$prog" verify "$out"
