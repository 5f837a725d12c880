#!/usr/bin/env bash
# Instructions a step, counted: what a time ratio cannot show on a machine
# whose speed moves (docs/benchmarks.md, "Instructions a step").
#
#   bash tools/bench/count_instructions.sh [BOX3D_PROGRAM ...]
#
# For each scene (SCENES, default large_pyramid many_pyramids joint_grid) it
# runs `fixstep run SCENE --steps N --kernels K` for each kernel level K this
# CPU has below AVX-512 (valgrind does not run AVX-512), and each Box3D
# program of `make bench-box3d` as `PROGRAM SCENE N`, under valgrind's
# cachegrind, at N = N1 and N2 (default 20 and 40). The difference over
# N2 - N1 steps leaves the scene's setup out. Prints a Markdown table of
# millions of instructions a step. JOBS runs at a time (default 2); about a
# quarter of an hour on a 2-core machine for the defaults.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FIXSTEP=${FIXSTEP:-$ROOT/build/fixstep}
SCENES=${SCENES:-large_pyramid many_pyramids joint_grid}
N1=${N1:-20} N2=${N2:-40}
JOBS=${JOBS:-2}
command -v valgrind >/dev/null || { echo "count_instructions: needs valgrind (apt-get install valgrind)" >&2; exit 2; }
[ -x "$FIXSTEP" ] || { echo "count_instructions: no $FIXSTEP (make first)" >&2; exit 2; }
for p in "$@"; do
	[ -x "$p" ] || { echo "count_instructions: $p is not a program (make bench-box3d builds one)" >&2; exit 2; }
done

# the levels `fixstep run --kernels K` really runs here (it falls back to
# the widest it has at most K: keep K only where that is K itself)
levels=()
for k in portable sse4 avx2; do
	got=$("$FIXSTEP" bench large_pyramid_b40 --steps 1 --runs 1 --no-bullet --kernels "$k" 2>/dev/null |
		awk '$1 == "kernels" { print $2 }')
	[ "$got" = "$k" ] && levels+=("$k")
done

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# one job a line: the output name, then the command up to the step count
jobs_file=$T/jobs
for s in $SCENES; do
	for k in "${levels[@]}"; do
		for n in "$N1" "$N2"; do
			echo "$s fixstep_$k $n $FIXSTEP run $s --steps $n --kernels $k"
		done
	done
	for p in "$@"; do
		for n in "$N1" "$N2"; do
			echo "$s $(basename "$p") $n $p $s $n"
		done
	done
done >"$jobs_file"

run_one() {
	local scene=$1 name=$2 n=$3
	shift 3
	valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" >/dev/null 2>"$T/$scene.$name.$n.err" ||
		{ echo "count_instructions: failed: $*" >&2; return 1; }
	awk '/I *refs/ { gsub(",", "", $NF); print $NF }' "$T/$scene.$name.$n.err" >"$T/$scene.$name.$n"
}
export -f run_one
export T
xargs -P "$JOBS" -L 1 bash -c 'run_one "$@"' _ <"$jobs_file"

names=()
for k in "${levels[@]}"; do names+=("fixstep_$k"); done
for p in "$@"; do names+=("$(basename "$p")"); done
printf '| scene |'
for c in "${names[@]}"; do printf ' %s |' "${c//_/ }"; done
printf '\n|---|'
for _ in "${names[@]}"; do printf -- '---|'; done
printf '\n'
for s in $SCENES; do
	printf '| %s |' "$s"
	for c in "${names[@]}"; do
		a=$(cat "$T/$s.$c.$N1") b=$(cat "$T/$s.$c.$N2")
		printf ' %d |' $(((b - a + (N2 - N1) * 500000) / ((N2 - N1) * 1000000)))
	done
	printf '\n'
done
echo "(millions of instructions a step: valgrind cachegrind, steps $((N1 + 1))-$N2)"
