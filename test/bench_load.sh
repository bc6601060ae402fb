#!/bin/bash
# make bench, load part (issue 26): tc next to perf record when the machine
# is on fire, and what each costs the workload.  Figures only, nothing
# asserted; needs root.
#
# 1. Lost events at load averages of about 50, 100 and 150: perf bench
#    sched messaging with 5, 10 and 15 groups (40 tasks each) runs in the
#    background; tc --record (default: the reader rises to SCHED_FIFO 1
#    while a ring is over half full), tc --record -r 0 (never), tc --record
#    -r 1 (FIFO all along) and perf record of the same events record DUR
#    seconds each, one after the other; RUNS rounds, medians.
# 2. Slowdown: perf bench sched pipe, perf bench sched messaging and a fork
#    loop, untraced, under tc --record and under perf record, alternating,
#    RUNS rounds, medians; events per second of each recording.
set -u
cd "$(dirname "$0")/.."
DUR=${DUR:-4}
RUNS=${RUNS:-3}
D=$(mktemp -d /tmp/tc-bload.XXXXXX)
LOAD=
trap '[ -n "$LOAD" ] && kill -- -"$LOAD" 2>/dev/null; rm -rf "$D"' EXIT
EV=(-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new
    -e sched:sched_waking -e sched:sched_process_fork -e sched:sched_process_exec
    -e sched:sched_process_exit -e sched:sched_migrate_task -e power:cpu_idle)
[ "$(id -u)" = 0 ] || { echo "bench_load: needs root (perf_event_open)"; exit 1; }
command -v perf >/dev/null || { echo "bench_load: needs perf (linux-perf)"; exit 1; }
med() { sort -g | sed -n "$(( (RUNS + 1) / 2 ))p"; }

# tc_lost ERRFILE: lost events of tc's account line
tc_lost() { sed -n 's/.*, lost \([0-9]*\).*/\1/p' "$1"; }
tc_events() { sed -n 's/^tc: recorded \([0-9]*\) events.*/\1/p' "$1"; }
# perf_lost FILE: the sum of a perf.data's LOST records
perf_lost() {
	perf report --stats -i "$1" 2>/dev/null | awk '/LOST events:/ { print $3; exit }'
}
perf_events() {
	perf report --stats -i "$1" 2>/dev/null | awk '/^ *SAMPLE events:/ { print $3; exit }'
}

echo "== lost events under load (messaging in the background; $RUNS runs of $DUR s each, medians)"
printf '%-8s %8s %14s %14s %14s %14s\n' groups load1 "tc" "tc -r 0" "tc -r 1" "perf record"
for g in 5 10 15; do
	setsid perf bench sched messaging -g "$g" -l 100000000 >/dev/null 2>&1 &
	LOAD=$!
	sleep 20	# let the load average build up
	: >"$D/tc" ; : >"$D/tc0" ; : >"$D/tc1" ; : >"$D/perf"
	for i in $(seq "$RUNS"); do
		./tc --record "$D/a" -d "$DUR" >/dev/null 2>"$D/e"; echo "$(tc_lost "$D/e") $(tc_events "$D/e")" >>"$D/tc"
		./tc --record "$D/a" -d "$DUR" -r 0 >/dev/null 2>"$D/e"; echo "$(tc_lost "$D/e") $(tc_events "$D/e")" >>"$D/tc0"
		./tc --record "$D/a" -d "$DUR" -r 1 >/dev/null 2>"$D/e"; echo "$(tc_lost "$D/e") $(tc_events "$D/e")" >>"$D/tc1"
		perf record -q "${EV[@]}" -a -k mono -o "$D/p" -- sleep "$DUR" >/dev/null 2>&1
		echo "$(perf_lost "$D/p") $(perf_events "$D/p")" >>"$D/perf"
		rm -f "$D/a" "$D/a.old" "$D/p" "$D/p.old"
	done
	l1=$(cut -d' ' -f1 /proc/loadavg)
	kill -- -"$LOAD" 2>/dev/null; wait "$LOAD" 2>/dev/null; LOAD=
	row=""
	for t in tc tc0 tc1 perf; do
		lo=$(cut -d' ' -f1 "$D/$t" | med); ev=$(cut -d' ' -f2 "$D/$t" | med)
		row="$row $(printf '%14s' "${lo:-?}/${ev:-?}")"
	done
	printf '%-8s %8s%s\n' "$g" "$l1" "$row"
	sleep 10
done
echo "(lost/recorded events; perf record of the same tracepoints, -k mono)"
echo

# slowdown NAME CMD...: the median wall time of CMD untraced, under tc
# --record and under perf record, alternating; events/s of the recordings
slowdown() {
	local name=$1 i t0 t1 ev
	shift
	: >"$D/u"; : >"$D/t"; : >"$D/p"; : >"$D/te"; : >"$D/pe"
	for i in $(seq "$RUNS"); do
		t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(((t1 - t0) / 1000)) >>"$D/u"
		t0=$(date +%s%N); ./tc --record "$D/a" -- "$@" >/dev/null 2>"$D/e"; t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000)) >>"$D/t"; echo "$(tc_events "$D/e") $(((t1 - t0) / 1000))" >>"$D/te"
		t0=$(date +%s%N); perf record -q "${EV[@]}" -a -k mono -o "$D/p.data" -- "$@" >/dev/null 2>&1; t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000)) >>"$D/p"; echo "$(perf_events "$D/p.data") $(((t1 - t0) / 1000))" >>"$D/pe"
		rm -f "$D/a" "$D/a.old" "$D/p.data" "$D/p.data.old"
	done
	u=$(med <"$D/u"); t=$(med <"$D/t"); p=$(med <"$D/p")
	te=$(awk '{ print $1 / ($2 / 1e6) }' "$D/te" | med); pe=$(awk '{ print $1 / ($2 / 1e6) }' "$D/pe" | med)
	printf '%-22s %10.3f %10.3f %+8.1f%% %10.3f %+8.1f%% %10.0f %10.0f %8.2f\n' "$name" \
		"$(echo "$u / 1000000" | bc -l)" "$(echo "$t / 1000000" | bc -l)" "$(echo "($t - $u) * 100 / $u" | bc -l)" \
		"$(echo "$p / 1000000" | bc -l)" "$(echo "($p - $u) * 100 / $u" | bc -l)" "$te" "$pe" \
		"$(echo "if ($p > $u) ($t - $u) / ($p - $u) else 0" | bc -l)"
}
cat >"$D/forks.sh" <<'EOS'
i=0; while [ $i -lt 3000 ]; do /bin/true; i=$((i + 1)); done
EOS
echo "== the workload's slowdown ($RUNS runs each, medians; s of wall time)"
printf '%-22s %10s %10s %9s %10s %9s %10s %10s %8s\n' workload untraced "tc" "+%" "perf" "+%" "tc ev/s" "perf ev/s" "tc/perf"
slowdown "sched pipe 100000" perf bench sched pipe -l 100000
slowdown "messaging -g 10 -l 500" perf bench sched messaging -g 10 -l 500
slowdown "3000 forks" sh "$D/forks.sh"
echo "(tc/perf: the time tc adds over the time perf record adds)"
