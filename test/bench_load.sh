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
#    loop, untraced, while perf stat counts the same tracepoints (the cost
#    of their firing at all), under tc --record and under perf record,
#    alternating, RUNS rounds, medians of the workload's own wall time;
#    events per second of each recording.
set -u
cd "$(dirname "$0")/.."
DUR=${DUR:-4}
RUNS=${RUNS:-3}
D=$(mktemp -d /tmp/tc-bload.XXXXXX)
LOAD=
trap '[ -n "$LOAD" ] && kill -- -"$LOAD" 2>/dev/null; rm -rf "$D"' EXIT
. test/bench_lib.sh
[ "$(id -u)" = 0 ] || { echo "bench_load: needs root (perf_event_open)"; exit 1; }
command -v perf >/dev/null || { echo "bench_load: needs perf (linux-perf)"; exit 1; }

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

# timed CMD...: CMD with its wall time in us appended to $D/w, taken by
# the command itself (the recorder's start and end are not the workload's)
timed() {
	sh -c 'a=$(date +%s%N); "$@" >/dev/null 2>&1; b=$(date +%s%N); echo $(((b - a) / 1000)) >>'"$D/w" sh "$@"
}
export D
export -f timed
# slowdown NAME CMD...: the median wall time of CMD untraced, while perf
# stat counts the same tracepoints (they fire, nothing is written: the
# kernel's floor), under tc --record and under perf record, alternating;
# events/s of the recordings
slowdown() {
	local name=$1 i m u c t p te pe
	shift
	for m in u c t p te pe; do : >"$D/$m"; done
	for i in $(seq "$RUNS"); do
		: >"$D/w"; timed "$@"; cat "$D/w" >>"$D/u"
		: >"$D/w"; perf stat -a "${EV[@]}" -o /dev/null -- bash -c 'timed "$@"' bash "$@" >/dev/null 2>&1
		cat "$D/w" >>"$D/c"
		: >"$D/w"; ./tc --record "$D/a" -- bash -c 'timed "$@"' bash "$@" >/dev/null 2>"$D/e"
		cat "$D/w" >>"$D/t"; echo "$(tc_events "$D/e") $(cat "$D/w")" >>"$D/te"
		: >"$D/w"; perf record -q "${EV[@]}" -a -k mono -o "$D/p.data" -- bash -c 'timed "$@"' bash "$@" >/dev/null 2>&1
		cat "$D/w" >>"$D/p"; echo "$(perf_events "$D/p.data") $(cat "$D/w")" >>"$D/pe"
		rm -f "$D/a" "$D/a.old" "$D/p.data" "$D/p.data.old"
	done
	u=$(med <"$D/u"); c=$(med <"$D/c"); t=$(med <"$D/t"); p=$(med <"$D/p")
	te=$(awk '{ print $1 / ($2 / 1e6) }' "$D/te" | med); pe=$(awk '{ print $1 / ($2 / 1e6) }' "$D/pe" | med)
	printf '%-22s %9.3f %9.3f %+7.1f%% %9.3f %+7.1f%% %9.3f %+7.1f%% %9.0f %9.0f %7.2f\n' "$name" \
		"$(echo "$u / 1000000" | bc -l)" \
		"$(echo "$c / 1000000" | bc -l)" "$(echo "($c - $u) * 100 / $u" | bc -l)" \
		"$(echo "$t / 1000000" | bc -l)" "$(echo "($t - $u) * 100 / $u" | bc -l)" \
		"$(echo "$p / 1000000" | bc -l)" "$(echo "($p - $u) * 100 / $u" | bc -l)" "$te" "$pe" \
		"$(echo "if ($p > $u) ($t - $u) / ($p - $u) else 0" | bc -l)"
}
cat >"$D/forks.sh" <<'EOS'
i=0; while [ $i -lt 3000 ]; do /bin/true; i=$((i + 1)); done
EOS
echo "== the workload's slowdown ($RUNS runs each, medians; s of the workload's own wall time)"
printf '%-22s %9s %9s %8s %9s %8s %9s %8s %9s %9s %7s\n' workload untraced counted "+%" "tc" "+%" "perf" "+%" \
	"tc ev/s" "perf ev/s" tc/perf
slowdown "sched pipe 100000" perf bench sched pipe -l 100000
slowdown "messaging -g 10 -l 500" perf bench sched messaging -g 10 -l 500
slowdown "3000 forks" sh "$D/forks.sh"
echo "(counted: perf stat -a of the same tracepoints, which fire and write nothing;"
echo " tc/perf: the time tc adds over the time perf record adds)"
