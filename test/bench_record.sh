#!/bin/bash
# make bench, first part: recording.  tc --record and perf record of the same
# events, one after the other, for DUR seconds each while perf bench sched
# messaging loads both CPUs; RUNS rounds, medians.  Prints events per second,
# lost events, and the recorder's own CPU time per event, with tc/perf ratios.
# Figures only, nothing asserted.  Needs root.
set -u
cd "$(dirname "$0")/.."
DUR=${DUR:-5}
RUNS=${RUNS:-3}
D=$(mktemp -d /tmp/tc-brec.XXXXXX)
trap 'kill -- -$LOAD 2>/dev/null; rm -rf "$D"' EXIT
. test/bench_lib.sh

setsid perf bench sched messaging -g 10 -l 10000000 >/dev/null 2>&1 &
LOAD=$!	# a process group of its own: the workers go with it
sleep 1
for i in $(seq "$RUNS"); do
	/usr/bin/time -f "%U %S" -o "$D/t" ./tc --record "$D/tc.data" -d "$DUR" 2>"$D/tc.err" >/dev/null
	n=$(tc_events "$D/tc.err")
	l=$(tc_lost "$D/tc.err")
	echo "$n $l $(awk '{ print $1 + $2 }' "$D/t")" >>"$D/tc.runs"
	/usr/bin/time -f "%U %S" -o "$D/t" perf record -q "${EV[@]}" -a -k mono -o "$D/p.data" -- sleep "$DUR" 2>/dev/null >/dev/null
	n=$(perf_events "$D/p.data")
	l=$(perf_lost "$D/p.data")
	echo "$n $l $(awk '{ print $1 + $2 }' "$D/t")" >>"$D/perf.runs"
	rm -f "$D/tc.data" "$D/tc.data.old" "$D/p.data" "$D/p.data.old"
done
kill -- -$LOAD 2>/dev/null
wait $LOAD 2>/dev/null
echo "== recording ($RUNS runs of ${DUR} s each under perf bench sched messaging -g 10; medians)"
printf '%-6s %12s %10s %12s %14s\n' tool events/s lost cpu_s cpu_ns/event
for t in tc perf; do
	ev=$(cut -d' ' -f1 "$D/$t.runs" | med)
	lo=$(cut -d' ' -f2 "$D/$t.runs" | med)
	cpu=$(cut -d' ' -f3 "$D/$t.runs" | med)
	printf '%-6s %12.0f %10s %12.2f %14.0f\n' "$t" "$(echo "$ev / $DUR" | bc -l)" "$lo" "$cpu" \
		"$(echo "if ($ev > 0) $cpu * 1000000000 / $ev else 0" | bc -l)"
	eval "${t}_ev=$ev ${t}_cpu=$cpu"
done
echo "tc/perf: events $(echo "$tc_ev / $perf_ev" | bc -l | cut -c1-5), CPU per event $(echo "($tc_cpu / $tc_ev) / ($perf_cpu / $perf_ev)" | bc -l | cut -c1-5)"
echo "per-run figures (events lost cpu_s): tc: $(tr '\n' ';' <"$D/tc.runs") perf: $(tr '\n' ';' <"$D/perf.runs")"
