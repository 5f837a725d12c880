#!/usr/bin/env bash
# make bench: the benchmark figures (never a test; nothing here fails on time).
#
# One table for the benchmark scenes of docs/benchmarks.md,
# fixstep beside Bullet (when build/bullet_scenes exists: make bench-bullet)
# and beside each Box3D program in BOX3D (make bench-box3d), then the
# narrowphase and broadphase micro-benchmarks. The table is also drawn as a
# chart, build/bench/scenes.svg (tools/bench_chart.py, with gnuplot: installed
# with apt-get when missing and run as root, else skipped with the command).
#   SCENES="large_pyramid_b40 joint_grid_50" RUNS=1 make bench    a quick run
#   make bench BOX3D="build/box3d_sse2 build/box3d_scalar" KERNELS=avx2
# The workers column: the scene again on WORKERS threads (default 2; the built-in pool),
# its ms per step and the speed-up over one; its hash must be the same (else "DIFFERS").
set -euo pipefail
prog=${PROG:-build/fixstep}
RUNS=${RUNS:-1}
SCENES=${SCENES:-"large_pyramid_b40 large_pyramid many_pyramids_3x3 many_pyramids joint_grid_50 joint_grid falling_spheres_500 falling_spheres"}
WORKERS=${WORKERS:-2}
read -r -a box3d <<<"${BOX3D:-}"
args=()
for b in "${box3d[@]}"; do args+=(--box3d "$b"); done
[ -n "${KERNELS:-}" ] && args+=(--kernels "$KERNELS")
out_dir=${BENCH_OUT:-build/bench}
mkdir -p "$out_dir"
scenes_table() {
printf '%-20s %7s %6s %10s %10s %6s %-10s %9s %9s' scene bodies steps "fixstep ms" "bullet ms" ratio "bullet" "fx B/body" "bt B/body"
printf ' %10s %7s' "ms ${WORKERS}w" "1w/${WORKERS}w"
for b in "${box3d[@]}"; do
  l=$(basename "$b")
  printf ' %12s %15s' "$l ms" "fixstep/$l"
done
printf '  %s\n' "fixstep hash"
for scene in $SCENES; do
  out=$("$prog" bench "$scene" --runs "$RUNS" "${args[@]}")
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
  printf '%-20s %7s %6s %10s %10s %6s %-10s %9s %9s' "$scene" "$bodies" "$steps" "$ms" "$bms" "$ratio" "$set" "$bpb" "$bbpb"
  kargs=(); [ -n "${KERNELS:-}" ] && kargs=(--kernels "$KERNELS")
  wout=$("$prog" bench "$scene" --runs "$RUNS" --no-bullet --workers "$WORKERS" "${kargs[@]}")
  wms=$(awk '/^ms\/step/{print $2}' <<<"$wout")
  whash=$(awk '/^hash /{print $2}' <<<"$wout")
  if [ "$whash" = "$hash" ]; then
    printf ' %10s %7s' "$wms" "$(awk -v a="$ms" -v b="$wms" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
  else
    printf ' %10s %7s' "$wms" "DIFFERS"
  fi
  for b in "${box3d[@]}"; do
    l=$(basename "$b")
    line=$(grep "^$l ms/step" <<<"$out" || true)
    range=$(grep "^fixstep/$l per run" <<<"$out" | sed -E 's/.*median ([0-9.]+), range ([0-9.-]+) .*/\1 (\2)/' || true)
    if [ -n "$line" ]; then
      lms=$(awk '{print $3}' <<<"$line")
      [ -n "$range" ] || range=$(sed -E "s/.*fixstep\/$l ([0-9.]+).*/\1/" <<<"$line")
    else
      lms=-; range=-
    fi
    printf ' %12s %15s' "$lms" "$range"
  done
  printf '  %s\n' "$hash"
done
}
scenes_table | tee "$out_dir/scenes.txt"
if ! command -v gnuplot >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "bench: apt-get install gnuplot-nox (for the chart)"
  apt-get install -y -qq --no-install-recommends gnuplot-nox >/dev/null 2>&1 || true
fi
if command -v gnuplot >/dev/null; then
  python3 tools/bench_chart.py "$out_dir/scenes.txt" --log --title "ms per step (RUNS=$RUNS)" -o "$out_dir/scenes.svg"
else
  echo "bench: no chart: gnuplot is not installed (apt-get install gnuplot-nox)"
fi
echo
echo "== $prog bench narrowphase"
"$prog" bench narrowphase || true
echo "== $prog bench broadphase"
"$prog" bench broadphase || true
