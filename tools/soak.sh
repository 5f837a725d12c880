#!/usr/bin/env bash
# The sessions' soak (make soak; not part of make test): 4 `fixstep peer`
# processes over loopback UDP for MINUTES minutes (default 10) of a rollback
# session at 60 Hz, every send with 5% loss and up to 60 ms of jitter,
# absent_ms 500; every minute one of peers 1..3 in turn is killed by its pid
# and started again at once with --join on. At the end every peer's last
# process must finish on one hash; it prints each one's rollbacks, stalls,
# time sync waits and connection events.
#
#   bash tools/soak.sh [MINUTES] [PROGRAM]
set -uo pipefail
MIN=${1:-10}
PROG=${2:-build/fixstep}
case $PROG in /*) ;; *) PROG=$PWD/$PROG ;; esac
[ -x "$PROG" ] || { echo "soak: no $PROG (make first)"; exit 2; }
TICK_MS=16
TICKS=$((MIN * 60 * 1000 / TICK_MS))
BASE=$((27000 + RANDOM % 2000 * 4))
PEERS="127.0.0.1:$BASE,127.0.0.1:$((BASE + 1)),127.0.0.1:$((BASE + 2)),127.0.0.1:$((BASE + 3))"
KEY=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
OPTS="--ticks $TICKS --tick-ms $TICK_MS --mode rollback --input-delay 2 --absent-ms 500 --loss 0.05 --jitter 60 --key $KEY"
DIR=$(mktemp -d /tmp/fixstep_soak.XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null' EXIT
LIMIT=$((MIN * 60 + 120)) # the last processes are stopped this long after the last restart
declare -a PID RUN
start() { # peer, join (on/off)
	local k=$1 j=$2
	RUN[$k]=$(( ${RUN[$k]:-0} + 1 ))
	"$PROG" peer --port $((BASE + k)) --peers "$PEERS" --player "$k" $OPTS --join "$j" \
		> "$DIR/peer$k.${RUN[$k]}" 2>&1 &
	PID[$k]=$!
}
echo "soak: 4 peers, $TICKS ticks of $TICK_MS ms ($MIN min), 5% loss, 60 ms jitter; a peer killed and rejoining every minute"
for k in 0 1 2 3; do start "$k" off; done
victim=1
for ((m = 1; m < MIN; ++m)); do
	sleep 60
	kill -KILL "${PID[$victim]}" 2>/dev/null
	wait "${PID[$victim]}" 2>/dev/null
	echo "soak: minute $m: peer $victim killed (pid ${PID[$victim]}) and restarted with --join on"
	start "$victim" on
	victim=$((victim % 3 + 1))
done
# the last processes: given LIMIT seconds from here, then stopped by their pids
deadline=$((SECONDS + LIMIT))
for k in 0 1 2 3; do
	while kill -0 "${PID[$k]}" 2>/dev/null && ((SECONDS < deadline)); do sleep 1; done
	kill -KILL "${PID[$k]}" 2>/dev/null
	wait "${PID[$k]}" 2>/dev/null
done
rc=0
first=""
for k in 0 1 2 3; do
	f="$DIR/peer$k.${RUN[$k]}"
	res=$(grep '^result ' "$f")
	hash=$(sed -n 's/.* hash=\([0-9a-f]*\).*/\1/p' <<<"$res")
	status=$(sed -n 's/.* status=\([a-z]*\).*/\1/p' <<<"$res")
	rb=$(sed -n 's/.* rollbacks=\([0-9]*\).*/\1/p' <<<"$res")
	ticks=$(sed -n 's/.* ticks=\([0-9]*\) .*/\1/p' <<<"$res")
	echo "peer $k (run ${RUN[$k]}): status ${status:-none} ticks ${ticks:-?} hash ${hash:-none} rollbacks ${rb:-?}"
	grep -h '^events:\|joined with' "$f" | sed 's/^/    /'
	[ -n "$first" ] || first=$hash
	if [ -z "$hash" ] || [ "$hash" != "$first" ] || [ "$status" != ok ]; then rc=1; tail -n 5 "$f"; fi
done
if [ $rc = 0 ]; then
	echo "soak: every peer ends on $first"
	rm -rf "$DIR"
else
	echo "soak: FAILED: the peers do not end on one hash (the outputs are in $DIR)"
fi
exit $rc
