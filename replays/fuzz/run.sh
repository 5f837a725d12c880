#!/usr/bin/env bash
# `make fuzz FUZZ_SECONDS=N`: builds the replay and snapshot parsers' libFuzzer
# targets with clang (Debian's clang-14 and libclang-rt-14-dev) under
# AddressSanitizer + UndefinedBehaviorSanitizer (leaks are checked too) and runs
# each for N seconds (default 60) from the seed corpus in replays/fuzz/seeds plus
# seeds freshly made by this kernel; and a session attacked by an insider
# (tests/session_insider.h: packets that pass the MAC, bodies of the fuzzer's making). Crashes, hangs (> 10 s) and leaks land in
# build/fuzz/artifacts/ and make the script fail. FUZZ_KEEP_GOING=1 runs libFuzzer in
# fork mode and goes on after a finding (to collect every distinct one in a long run).
#
#   replays/fuzz/run.sh [SECONDS] [replay|snapshot|session ...]
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
SECS=${1:-60}; shift || true
TARGETS=${*:-replay snapshot session}
B=build/fuzz
CC=${FUZZ_CC:-clang}
command -v "$CC" >/dev/null || { echo "fuzz: needs clang (apt-get install clang libclang-rt-14-dev)"; exit 2; }
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"

# the library, the replay/scene objects and the session attack harness, instrumented
TOOL_SRC="replays/replay_run.c tools/scenes/*.c tools/cli/scene_session.c tests/session_insider.c"
make --no-print-directory -s BUILD=$B/obj-san CC="$CC" OPT=-O1 CFLAGS="$SAN -fsanitize=fuzzer-no-link" \
    $B/obj-san/libfixstep.a \
    $(for f in $TOOL_SRC; do echo "$B/obj-san/obj/${f%.c}.o"; done)
TOOL_OBJ=$(for f in $TOOL_SRC; do echo "$B/obj-san/obj/${f%.c}.o"; done)
INC="-Ifixmath_glue -Ikernel/include -Iauthoring/include -Ireplays/include -Isession/include -Ikernel/src -Ireplays -Itools -Itests -I."
LIBS="-llibfixmath -l:libxxhash.a -lsodium -pthread"
for t in $TARGETS; do
    $CC -std=c17 -O1 $SAN -fsanitize=fuzzer $INC -o $B/fuzz_$t replays/fuzz/fuzz_$t.c $TOOL_OBJ $B/obj-san/libfixstep.a $LIBS
done

# fresh seeds from this kernel (the committed ones may predate a state-format change)
make --no-print-directory -s BUILD=$B/obj-seed $B/obj-seed/libfixstep.a \
    $(for f in $TOOL_SRC; do echo "$B/obj-seed/obj/${f%.c}.o"; done)
SEED_OBJ=$(for f in $TOOL_SRC; do echo "$B/obj-seed/obj/${f%.c}.o"; done)
cc -std=c17 -O2 $INC -o $B/make_seeds replays/fuzz/make_seeds.c $SEED_OBJ $B/obj-seed/libfixstep.a $LIBS
mkdir -p $B/seeds/snapshot $B/seeds/replay $B/seeds/session $B/artifacts
$B/make_seeds $B/seeds/snapshot $B/seeds/replay $B/seeds/session

fail=0
for t in $TARGETS; do
    mkdir -p $B/corpus/$t
    log=$B/fuzz_$t.log
    echo "fuzz: $t for ${SECS}s (log: $log)"
    keep=""; [ "${FUZZ_KEEP_GOING:-0}" = 1 ] && keep="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
    before=$(ls $B/artifacts | grep -c "^$t-" || true)
    committed=""; [ -d replays/fuzz/seeds/$t ] && committed=replays/fuzz/seeds/$t
    # shellcheck disable=SC2086
    if ! $B/fuzz_$t $keep -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix=$B/artifacts/$t- $B/corpus/$t $committed $B/seeds/$t >"$log" 2>&1; then
        fail=1; echo "fuzz: $t FOUND A PROBLEM:"; grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -n 5 || true
    fi
    runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -n 1 || true)
    [ -n "$runs" ] || runs=$(grep -E '^#[0-9]+' "$log" | tail -n 1 | sed -E 's/^#([0-9]+).*/\1/' || true)
    cov=$(grep -E '^#[0-9]+.*cov:' "$log" | tail -n 1 | sed -E 's/.*cov: ([0-9]+).*ft: ([0-9]+).*corp: ([0-9]+).*/cov \1, features \2, corpus \3/' || true)
    found=$(( $(ls $B/artifacts | grep -c "^$t-" || true) - before ))
    if [ "$found" -gt 0 ]; then fail=1; fi
    echo "fuzz: $t: ${runs:-?} executions in ${SECS}s, ${cov:-?}, $found new artifacts in $B/artifacts"
done
exit $fail
