#!/usr/bin/env bash
# The main job, for a newcomer: run a built-in scene, print its state hashes,
# then run it again and check that the final hash is the same bits.
set -euo pipefail
prog=${1:-build/fixstep}
scene=${2:-falling_spheres_500}
echo "== fixstep run $scene --hash-every 100"
first=$("$prog" run "$scene" --hash-every 100 | tee /dev/stderr | tail -n 1)
echo "== the same run again"
second=$("$prog" run "$scene" | tail -n 1)
echo "$second"
if [ "$first" != "$second" ]; then
  echo "DIVERGED: $first vs $second" >&2
  exit 1
fi
echo "== identical: ${first#hash }"
