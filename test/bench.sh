#!/bin/bash
# make bench: tc's speed and memory next to perf's on the same recording.
#
# Records a recording of at least $EVENTS events (default 500000) with
# tc --record under perf bench sched messaging, then times, on that file:
# tc --replay --summary, perf sched timehist -s, perf script, perf timechart,
# and cat (the floor).  Prints wall time, CPU time, peak memory, events per
# second, and tc's ratio to each.  Nothing here is asserted: figures only.
set -u
cd "$(dirname "$0")/.."
EVENTS=${EVENTS:-500000}
RUNS=${RUNS:-3}
D=$(mktemp -d /tmp/tc-bench.XXXXXX)
trap 'rm -rf "$D"' EXIT
F=$D/bench.data

if [ "$(id -u)" != 0 ]; then
	echo "bench: needs root to record (perf_event_open)"; exit 1
fi
n=0
loops=200
while [ "$n" -lt "$EVENTS" ]; do
	./tc --record "$F" -- perf bench sched messaging -g 10 -l $loops >/dev/null 2>"$D/rec.err" || { cat "$D/rec.err"; exit 1; }
	n=$(sed -n 's/^tc: recorded \([0-9]*\) events.*/\1/p' "$D/rec.err")
	loops=$((loops * 2))
done
rm -f "$F.old"
size=$(stat -c %s "$F")
echo "recording: $n events, $((size / 1048576)) MiB ($(sed -n 's/.*lost \([0-9]*\).*/\1/p' "$D/rec.err") lost)"
echo

# measure NAME CMD...: median wall time (ns clock) of $RUNS runs; CPU time
# and peak RSS (GNU time) of the median run
declare -A WALL CPU RSS
measure() {
	local name=$1; shift
	local i runs=() line t0 t1
	for i in $(seq "$RUNS"); do
		cat "$F" >/dev/null	# same page cache state for all
		t0=$(date +%s%N)
		/usr/bin/time -f "%U %S %M" -o "$D/t" "$@" >/dev/null 2>"$D/err" || { echo "$name failed:"; tail -3 "$D/err"; return; }
		t1=$(date +%s%N)
		runs+=("$(echo "($t1 - $t0) / 1000000000" | bc -l) $(cat "$D/t")")
	done
	line=$(printf '%s\n' "${runs[@]}" | sort -n | sed -n "$(( (RUNS + 1) / 2 ))p")
	read -r w u s m <<<"$line"
	WALL[$name]=$w
	CPU[$name]=$(echo "$u + $s" | bc -l)
	RSS[$name]=$m
}

measure tc ./tc --replay "$F" --summary
measure timehist perf sched timehist -s -i "$F"
measure script perf script -i "$F"
measure timechart perf timechart -i "$F" -o "$D/out.svg"
measure cat cat "$F"

printf '%-10s %9s %9s %10s %12s %10s %10s\n' tool wall_s cpu_s peak_MiB events/s "tc/x wall" "tc/x cpu"
for t in tc timehist script timechart cat; do
	[ -n "${WALL[$t]:-}" ] || continue
	w=${WALL[$t]}; c=${CPU[$t]}
	eps=$(echo "if ($w > 0) $n / $w else 0" | bc -l)
	rw=$(echo "if ($w > 0) ${WALL[tc]} / $w else 0" | bc -l)
	rc=$(echo "if ($c > 0) ${CPU[tc]} / $c else 0" | bc -l)
	printf '%-10s %9.3f %9.3f %10.1f %12.0f %10.3f %10.3f\n' "$t" "$w" "$c" \
		"$(echo "${RSS[$t]} / 1024" | bc -l)" "$eps" "$rw" "$rc"
done
echo
echo "speed-up of tc over each (wall): timehist $(echo "${WALL[timehist]:-0} / ${WALL[tc]}" | bc -l | cut -c1-6)x," \
	"timechart $(echo "${WALL[timechart]:-0} / ${WALL[tc]}" | bc -l | cut -c1-6)x," \
	"script $(echo "${WALL[script]:-0} / ${WALL[tc]}" | bc -l | cut -c1-6)x; tc / cat: $(echo "${WALL[tc]} / ${WALL[cat]}" | bc -l | cut -c1-6)"
