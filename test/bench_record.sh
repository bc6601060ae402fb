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
EV=(-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new
    -e sched:sched_waking -e sched:sched_process_fork -e sched:sched_process_exec
    -e sched:sched_process_exit -e sched:sched_migrate_task -e power:cpu_idle)

setsid perf bench sched messaging -g 10 -l 10000000 >/dev/null 2>&1 &
LOAD=$!	# a process group of its own: the workers go with it
sleep 1
med() { sort -g | sed -n "$(( (RUNS + 1) / 2 ))p"; }
for i in $(seq "$RUNS"); do
	/usr/bin/time -f "%U %S" -o "$D/t" ./tc --record "$D/tc.data" -d "$DUR" 2>"$D/tc.err" >/dev/null
	n=$(sed -n 's/^tc: recorded \([0-9]*\) events.*/\1/p' "$D/tc.err")
	l=$(sed -n 's/.*, lost \([0-9]*\).*/\1/p' "$D/tc.err")
	echo "$n $l $(awk '{ print $1 + $2 }' "$D/t")" >>"$D/tc.runs"
	/usr/bin/time -f "%U %S" -o "$D/t" perf record -q "${EV[@]}" -a -k mono -o "$D/p.data" -- sleep "$DUR" 2>/dev/null >/dev/null
	perf report --stats -i "$D/p.data" 2>/dev/null >"$D/p.stats"
	n=$(awk '/^ *SAMPLE events:/ { print $3; exit }' "$D/p.stats")
	# perf's lost count: the sum of its LOST records' counts
	l=$(perf script -i "$D/p.data" --show-lost-events 2>/dev/null | awk '/LOST/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/ && $(i-1) == "lost") s += $i } END { print s + 0 }')
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
