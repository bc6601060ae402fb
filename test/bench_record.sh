#!/bin/bash
# make bench, first part: recording.  tc --record and perf record of the same
# events, one after the other, for DUR seconds each while perf bench sched
# messaging loads both CPUs; RUNS rounds, medians.  Prints events per second,
# lost events, and the recorder's own CPU time per event, with tc/perf ratios;
# and, from a recording of 0.05 s each, the CPU it takes to start and end and
# the CPU per event above that.
# Figures only, nothing asserted.  Needs root.
set -u
cd "$(dirname "$0")/.."
DUR=${DUR:-10}
RUNS=${RUNS:-3}
D=$(mktemp -d /tmp/tc-brec.XXXXXX)
trap 'kill -- -$LOAD 2>/dev/null; rm -rf "$D"' EXIT
. test/bench_lib.sh

setsid perf bench sched messaging -g 10 -l 10000000 >/dev/null 2>&1 &
LOAD=$!	# a process group of its own: the workers go with it
sleep 1
# rec TOOL SECONDS: one recording of SECONDS by TOOL; appends "events lost
# cpu_s" to $D/TOOL.runs (SECONDS = DUR) or $D/TOOL.short (a 0.05 s one:
# the CPU a recorder spends to start and end, whatever it records)
rec() {
	local f=$D/$1.runs n l
	[ "$2" = "$DUR" ] || f=$D/$1.short
	if [ "$1" = tc ]; then
		perf stat -x, -e task-clock -o "$D/t" -- ./tc --record "$D/tc.data" -d "$2" 2>"$D/tc.err" >/dev/null
		n=$(tc_events "$D/tc.err") l=$(tc_lost "$D/tc.err")
	else
		perf stat -x, -e task-clock -o "$D/t" -- perf record -q "${EV[@]}" -a -k mono -o "$D/p.data" -- sleep "$2" 2>/dev/null >/dev/null
		n=$(perf_events "$D/p.data") l=$(perf_lost "$D/p.data")
	fi
	echo "$n $l $(awk -F, '$3 == "task-clock" { print $1 / 1000 }' "$D/t")" >>"$f"
	rm -f "$D/tc.data" "$D/tc.data.old" "$D/p.data" "$D/p.data.old"
}
for i in $(seq "$RUNS"); do
	rec tc "$DUR"; rec perf "$DUR"; rec tc 0.05; rec perf 0.05
done
kill -- -$LOAD 2>/dev/null
wait $LOAD 2>/dev/null
echo "== recording ($RUNS runs of ${DUR} s each under perf bench sched messaging -g 10; medians)"
printf '%-6s %12s %10s %12s %14s %9s %12s\n' tool events/s lost cpu_s cpu_ns/event fixed_s marginal_ns
for t in tc perf; do
	ev=$(cut -d' ' -f1 "$D/$t.runs" | med)
	lo=$(cut -d' ' -f2 "$D/$t.runs" | med)
	cpu=$(cut -d' ' -f3 "$D/$t.runs" | med)
	ev0=$(cut -d' ' -f1 "$D/$t.short" | med)
	cpu0=$(cut -d' ' -f3 "$D/$t.short" | med)
	mg=$(echo "if ($ev > $ev0) ($cpu - $cpu0) * 1000000000 / ($ev - $ev0) else 0" | bc -l)
	printf '%-6s %12.0f %10s %12.3f %14.0f %9.3f %12.0f\n' "$t" "$(echo "$ev / $DUR" | bc -l)" "$lo" "$cpu" \
		"$(echo "if ($ev > 0) $cpu * 1000000000 / $ev else 0" | bc -l)" "$cpu0" "$mg"
	eval "${t}_ev=$ev ${t}_cpu=$cpu ${t}_mg=$mg"
done
echo "tc/perf: events $(echo "$tc_ev / $perf_ev" | bc -l | cut -c1-5), CPU per event $(echo "($tc_cpu / $tc_ev) / ($perf_cpu / $perf_ev)" | bc -l | cut -c1-5), marginal CPU per event $(echo "if ($perf_mg > 0) $tc_mg / $perf_mg else 0" | bc -l | cut -c1-5)"
echo "(fixed_s: the CPU of a 0.05 s recording, what a recorder spends to start and end; marginal_ns: the"
echo " CPU per event above it, (cpu_s - fixed_s) / (events - its events); CPU: perf stat's task-clock of the"
echo " recorder and its children (tc-sync; perf record's sleep)"
echo "per-run figures (events lost cpu_s): tc: $(tr '\n' ';' <"$D/tc.runs") perf: $(tr '\n' ';' <"$D/perf.runs")"
