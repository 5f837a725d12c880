#!/usr/bin/env bash
# Build build/bullet_broadphase (Bullet's btDbvtBroadphase on the broadphase
# micro-benchmark, for `fixstep bench broadphase`) and build/bullet_scenes
# (Bullet on the benchmark scenes, for `fixstep bench SCENE`), to run
# alongside fixstep.
# Needs Debian's libbullet-dev (pkg-config bullet). Optional: the normal
# build and the tests never need it.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
CXX=${CXX:-c++}
if ! pkg-config --exists bullet; then
  echo "bench-bullet: Bullet not found (sudo apt-get install -y libbullet-dev)" >&2
  exit 1
fi
mkdir -p "$BUILD"
# -ffp-contract=off: the float motion must match tools/cli/bench_broadphase.c bit for bit
$CXX -std=c++17 -O2 -ffp-contract=off -o "$BUILD/bullet_broadphase" "$ROOT/tools/bench/bullet_broadphase.cpp" \
  $(pkg-config --cflags --libs bullet)
$CXX -std=c++17 -O2 -o "$BUILD/bullet_scenes" "$ROOT/tools/bench/bullet_scenes.cpp" $(pkg-config --cflags --libs bullet)
echo "built $BUILD/bullet_broadphase and $BUILD/bullet_scenes"
