#!/bin/bash
# make bench, load part (issue 26): tc next to perf record when the machine
# is on fire, and what each costs the workload.  Figures only, nothing
# asserted; needs root.
#
# 1. Lost events at load averages of about 50, 100 and 150: perf bench
#    sched messaging with 5, 10 and 15 groups (40 tasks each) runs in the
#    background; tc --record (default: the reader is raised to
#    SCHED_DEADLINE while a ring is over half full), tc --record -r 0
#    (never), tc --record -r 1 (FIFO all along) and perf record of the same
#    events record DUR seconds each, one after the other; RUNS rounds,
#    medians.
# 2. Slowdown: perf bench sched pipe, perf bench sched messaging and a fork
#    loop, untraced, while perf stat counts the same tracepoints (the cost
#    of their firing at all), under tc --record and under perf record,
#    alternating, RUNS rounds, medians of the workload's own wall time;
#    events per second of each recording.  The floor of any recorder of
#    those events, test/ringfloor (the samples written into rings that a
#    reader only frees), is measured beside them.
# 3. A slow disk: the recording written to an ext4 on a loop device that
#    the blkio controller throttles to 1 MB/s (an SD card's pace, slower
#    than the event stream) while messaging -g 2 runs: lost events, and how
#    long each recorder takes to exit after its DUR2 seconds; and tc
#    --flight, whose file is written while it records.
# 4. Real-time hogs: a SCHED_FIFO 50 spinner on each CPU and a SCHED_FIFO
#    60 pingpong (events at full rate, no CPU left for anyone below): lost
#    events of tc (raised to SCHED_DEADLINE), tc -r 0, tc -r 1 and perf
#    record, each in its own round of hogs.
set -u
cd "$(dirname "$0")/.."
DUR=${DUR:-4}
RUNS=${RUNS:-3}
D=$(mktemp -d /tmp/tc-bload.XXXXXX)
LOAD=
LOOP=
trap '[ -n "$LOAD" ] && kill -- -"$LOAD" 2>/dev/null; slow_disk_off; rm -rf "$D"' EXIT
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
# kernel's floor), while ringfloor has them write tc's samples into rings
# that a reader only frees (the floor of any recorder), under tc --record
# and under perf record, alternating; events/s of the recordings
slowdown() {
	local name=$1 i m u c r t p te pe
	shift
	for m in u c r t p te pe; do : >"$D/$m"; done
	for i in $(seq "$RUNS"); do
		: >"$D/w"; timed "$@"; cat "$D/w" >>"$D/u"
		: >"$D/w"; perf stat -a "${EV[@]}" -o /dev/null -- bash -c 'timed "$@"' bash "$@" >/dev/null 2>&1
		cat "$D/w" >>"$D/c"
		: >"$D/w"; test/ringfloor bash -c 'timed "$@"' bash "$@" >/dev/null 2>&1
		cat "$D/w" >>"$D/r"
		: >"$D/w"; ./tc --record "$D/a" -- bash -c 'timed "$@"' bash "$@" >/dev/null 2>"$D/e"
		cat "$D/w" >>"$D/t"; echo "$(tc_events "$D/e") $(cat "$D/w")" >>"$D/te"
		: >"$D/w"; perf record -q "${EV[@]}" -a -k mono -o "$D/p.data" -- bash -c 'timed "$@"' bash "$@" >/dev/null 2>&1
		cat "$D/w" >>"$D/p"; echo "$(perf_events "$D/p.data") $(cat "$D/w")" >>"$D/pe"
		rm -f "$D/a" "$D/a.old" "$D/p.data" "$D/p.data.old"
	done
	u=$(med <"$D/u"); c=$(med <"$D/c"); r=$(med <"$D/r"); t=$(med <"$D/t"); p=$(med <"$D/p")
	te=$(awk '{ print $1 / ($2 / 1e6) }' "$D/te" | med); pe=$(awk '{ print $1 / ($2 / 1e6) }' "$D/pe" | med)
	printf '%-22s %9.3f %+8.1f%% %+8.1f%% %9.3f %+7.1f%% %9.3f %+7.1f%% %9.0f %9.0f %7.2f %9.2f\n' "$name" \
		"$(echo "$u / 1000000" | bc -l)" \
		"$(echo "($c - $u) * 100 / $u" | bc -l)" "$(echo "($r - $u) * 100 / $u" | bc -l)" \
		"$(echo "$t / 1000000" | bc -l)" "$(echo "($t - $u) * 100 / $u" | bc -l)" \
		"$(echo "$p / 1000000" | bc -l)" "$(echo "($p - $u) * 100 / $u" | bc -l)" "$te" "$pe" \
		"$(echo "if ($p > $u) ($t - $u) / ($p - $u) else 0" | bc -l)" \
		"$(echo "if ($p > $r) ($t - $r) / ($p - $r) else 0" | bc -l)"
}
cat >"$D/forks.sh" <<'EOS'
i=0; while [ $i -lt 3000 ]; do /bin/true; i=$((i + 1)); done
EOS
echo "== the workload's slowdown ($RUNS runs each, medians; s of the workload's own wall time)"
printf '%-22s %9s %9s %9s %9s %8s %9s %8s %9s %9s %7s %9s\n' workload untraced "counted" "rings" "tc" "+%" "perf" "+%" \
	"tc ev/s" "perf ev/s" tc/perf "over rings"
slowdown "sched pipe 100000" perf bench sched pipe -l 100000
slowdown "sched pipe, one CPU" taskset -c 1 perf bench sched pipe -l 100000
slowdown "messaging -g 10 -l 500" perf bench sched messaging -g 10 -l 500
slowdown "3000 forks" sh "$D/forks.sh"
echo "(counted: perf stat -a of the same tracepoints, which fire and write nothing;"
echo " rings: test/ringfloor, the same tracepoints writing tc's samples into rings that a"
echo " reader only frees, the floor of any recorder of them;"
echo " tc/perf: the time tc adds over the time perf record adds; over rings: the same above the floor)"

# slow_disk_on: $D/mnt, an ext4 on a loop device written at 1 MB/s at most
# (cgroup v1 blkio throttle of the root group, which the writeback runs
# in); false, with the reason in $D/why, if this machine cannot
BLKIO=/sys/fs/cgroup/blkio/blkio.throttle.write_bps_device
slow_disk_on() {
	[ -w "$BLKIO" ] || { echo "no cgroup v1 blkio throttle ($BLKIO)" >"$D/why"; return 1; }
	command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null ||
		{ echo "needs losetup and mkfs.ext4" >"$D/why"; return 1; }
	truncate -s 1G "$D/disk.img" && LOOP=$(losetup -f --show "$D/disk.img") ||
		{ echo "no loop device" >"$D/why"; return 1; }
	mkdir -p "$D/mnt"
	mkfs.ext4 -q "$LOOP" && mount "$LOOP" "$D/mnt" ||
		{ echo "cannot make or mount an ext4 on $LOOP" >"$D/why"; return 1; }
	echo "$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ') 1000000" >"$BLKIO"
}
slow_disk_off() {
	[ -n "$LOOP" ] || return 0
	echo "$(lsblk -dno MAJ:MIN "$LOOP" | tr -d ' ') 0" >"$BLKIO" 2>/dev/null
	umount "$D/mnt" 2>/dev/null
	losetup -d "$LOOP"
	LOOP=
}
DUR2=${DUR2:-8}
echo
echo "== recording to a 1 MB/s disk under messaging -g 2 ($RUNS runs of $DUR2 s each, medians)"
if slow_disk_on; then
	setsid perf bench sched messaging -g 2 -l 100000000 >/dev/null 2>&1 &
	LOAD=$!
	sleep 5
	: >"$D/tc"; : >"$D/perf"; : >"$D/fl"
	for i in $(seq "$RUNS"); do
		rm -f "$D/mnt/"*.data*
		/usr/bin/time -f %e -o "$D/tm" ./tc --record "$D/mnt/a.data" -d "$DUR2" >/dev/null 2>"$D/e"
		echo "$(tc_lost "$D/e") $(tc_events "$D/e") $(cat "$D/tm")" >>"$D/tc"
		rm -f "$D/mnt/"*.data*
		/usr/bin/time -f %e -o "$D/tm" perf record -q "${EV[@]}" -a -k mono -o "$D/mnt/p.data" -- sleep "$DUR2" >/dev/null 2>&1
		echo "$(perf_lost "$D/mnt/p.data") $(perf_events "$D/mnt/p.data") $(cat "$D/tm")" >>"$D/perf"
		rm -f "$D/mnt/"*.data*
		(sleep 3; chrt -f 10 test/spin 0.3) &	# a run of 300 ms fires the trigger
		/usr/bin/time -f %e -o "$D/tm" ./tc --record "$D/mnt/f.data" --flight 3 --trigger 'run>200ms' \
			-d "$DUR2" >/dev/null 2>"$D/e"
		wait $!
		sed -i 's/^tc: kept /tc: recorded /' "$D/e"
		echo "$(tc_lost "$D/e") $(tc_events "$D/e") $(cat "$D/tm")" >>"$D/fl"
	done
	kill -- -"$LOAD" 2>/dev/null; wait "$LOAD" 2>/dev/null; LOAD=
	printf '%-10s %10s %10s %8s\n' tool lost events exit_s
	for t in tc perf fl; do
		printf '%-10s %10s %10s %8s\n' "${t/fl/tc flight}" "$(cut -d' ' -f1 "$D/$t" | med)" \
			"$(cut -d' ' -f2 "$D/$t" | med)" "$(cut -d' ' -f3 "$D/$t" | med)"
	done
	echo "(exit_s: from start to exit; tc syncs the finished file, perf record does not; tc flight:"
	echo " --flight 3 --trigger 'run>200ms', a FIFO spinner firing it at 3 s: a file of 4 s written"
	echo " while recording goes on, events of the whole run counted)"
else
	echo "skipped: $(cat "$D/why")"
fi

# hogs SECONDS: a SCHED_FIFO 50 spinner pinned to each CPU and a SCHED_FIFO
# 60 pingpong, all ending by themselves after SECONDS
hogs() {
	local c
	for c in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$c" chrt -f 50 test/spin "$1" &
	done
	timeout "$1" chrt -f 60 test/pingpong 1000000000 >/dev/null &
}
echo
echo "== real-time hogs: SCHED_FIFO 50 spinners on every CPU, a SCHED_FIFO 60 pingpong ($RUNS runs of $DUR s, medians)"
for t in tc tc0 tc1 perf; do : >"$D/$t"; done
for i in $(seq "$RUNS"); do
	for t in tc tc0 tc1 perf; do
		hogs $((DUR + 3))
		sleep 1
		case $t in
		tc) timeout 60 ./tc --record "$D/a" -d "$DUR" >/dev/null 2>"$D/e" ;;
		tc0) timeout 60 ./tc --record "$D/a" -d "$DUR" -r 0 >/dev/null 2>"$D/e" ;;
		tc1) timeout 60 ./tc --record "$D/a" -d "$DUR" -r 1 >/dev/null 2>"$D/e" ;;
		perf) timeout 60 perf record -q "${EV[@]}" -a -k mono -o "$D/p" -- sleep "$DUR" >/dev/null 2>&1 ;;
		esac
		if [ "$t" = perf ]; then
			echo "$(perf_lost "$D/p") $(perf_events "$D/p")" >>"$D/$t"
		else
			echo "$(tc_lost "$D/e") $(tc_events "$D/e")" >>"$D/$t"
		fi
		wait
		rm -f "$D/a" "$D/a.old" "$D/p" "$D/p.old"
	done
done
printf '%14s %14s %14s %14s\n' "tc" "tc -r 0" "tc -r 1" "perf record"
row=""
for t in tc tc0 tc1 perf; do
	row="$row $(printf '%14s' "$(cut -d' ' -f1 "$D/$t" | med)/$(cut -d' ' -f2 "$D/$t" | med)")"
done
echo "${row# }"
echo "(lost/recorded events; tc -r 1, at SCHED_FIFO 1 from its start, gets no CPU until the hogs end"
echo " and records after them)"
