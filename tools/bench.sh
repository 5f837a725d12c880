#!/usr/bin/env bash
# make bench: the benchmark figures (never a test; nothing here fails on time).
set -euo pipefail
prog=${PROG:-build/fixstep}
for scene in falling_spheres_500 large_pyramid_b20 falling_spheres large_pyramid_b40; do
  echo "== $prog bench $scene"
  "$prog" bench "$scene"
done
echo "== $prog bench narrowphase"
"$prog" bench narrowphase || true
echo "== $prog bench broadphase"
"$prog" bench broadphase || true
