#!/usr/bin/env bash
# make bench: the benchmark figures (never a test; nothing here fails on time).
#
# One table for the benchmark scenes of docs/benchmarks.md,
# fixstep beside Bullet (when build/bullet_scenes exists: make bench-bullet),
# then the narrowphase and broadphase micro-benchmarks.
#   SCENES="large_pyramid_b40 joint_grid_50" RUNS=1 make bench    a quick run
set -euo pipefail
prog=${PROG:-build/fixstep}
RUNS=${RUNS:-1}
SCENES=${SCENES:-"large_pyramid_b40 large_pyramid many_pyramids_3x3 many_pyramids joint_grid_50 joint_grid falling_spheres_500 falling_spheres"}
printf '%-20s %7s %6s %10s %10s %6s %-10s %9s %9s  %s\n' scene bodies steps "fixstep ms" "bullet ms" ratio "bullet" "fx B/body" "bt B/body" "fixstep hash"
for scene in $SCENES; do
  out=$("$prog" bench "$scene" --runs "$RUNS")
  bodies=$(awk '/^scene /{print $3}' <<<"$out")
  steps=$(awk '/^scene /{print $5}' <<<"$out")
  ms=$(awk '/^ms\/step/{print $2}' <<<"$out")
  bpb=$(awk '/^snapshot/{print $5}' <<<"$out")
  hash=$(awk '/^hash /{print $2}' <<<"$out")
  bl=$(grep '^bullet ' <<<"$out" || true)
  if [ -n "$bl" ]; then
    bms=$(awk '{print $3}' <<<"$bl"); set=$(sed -E 's/.*\(([0-9]+) sub-steps? x ([0-9]+) iterations\).*/\1x\2/' <<<"$bl")
    bbpb=$(sed -E 's/.*, ([0-9.]+) bytes\/body.*/\1/' <<<"$bl"); ratio=$(sed -E 's/.*fixstep\/bullet ([0-9.]+).*/\1/' <<<"$bl")
  else
    bms=-; set=-; bbpb=-; ratio=-
  fi
  printf '%-20s %7s %6s %10s %10s %6s %-10s %9s %9s  %s\n' "$scene" "$bodies" "$steps" "$ms" "$bms" "$ratio" "$set" "$bpb" "$bbpb" "$hash"
done
echo
echo "== $prog bench narrowphase"
"$prog" bench narrowphase || true
echo "== $prog bench broadphase"
"$prog" bench broadphase || true
