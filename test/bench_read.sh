#!/bin/bash
# make bench, reading: tc --replay FILE --summary against perf sched timehist -s
# on four recordings of perf bench sched messaging (tc --record, perf record
# with default rings, perf record -m 4096, perf sched record), with
# cat FILE >/dev/null as the floor.  Wall, CPU (user+sys) and peak RSS, median
# of RUNS runs with the file in page cache.  Then one workload recorded by all
# four recorders at once (nested), and tc's per-task run time and switches
# compared across the four files.  Figures only, nothing asserted.  Needs root.
# BENCH_DIR=DIR keeps the four recordings in DIR and reuses them next time.
# The recordings take most of the time: 5 min on a shared 2-CPU machine at load
# average ~80, 1.5 min with BENCH_DIR reused (not measured on a quiet machine;
# a loaded machine makes them slower and makes the recorders lose more).
set -u
cd "$(dirname "$0")/.."
RUNS=${RUNS:-3}
GROUPS_=${GROUPS_:-10}	# perf bench sched messaging -g
LOOPS=${LOOPS:-100}	# and -l: ~15-25 s and 300k+ recorded events on 2 CPUs
MIN_EVENTS=300000

if [ "$(id -u)" != 0 ]; then
	echo "bench_read: skipped: needs root (perf tracepoints)"
	exit 0
fi
if ! command -v perf >/dev/null 2>&1; then
	echo "bench_read: skipped: perf is not installed"
	exit 0
fi
[ -x ./tc ] || { echo "bench_read: ./tc is not built"; exit 1; }

T=$(mktemp -d /tmp/tc-bread.XXXXXX)
if [ -n "${BENCH_DIR:-}" ]; then
	mkdir -p "$BENCH_DIR" || exit 1
	R=$BENCH_DIR
else
	R=$T
fi
JOB=
cleanup() {
	[ -n "$JOB" ] && kill -- -"$JOB" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

EV=(-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking
    -e sched:sched_wakeup_new -e sched:sched_process_fork
    -e sched:sched_process_exit -e sched:sched_process_exec
    -e sched:sched_migrate_task)
if perf list 2>/dev/null | grep -q 'power:cpu_idle'; then
	EV+=(-e power:cpu_idle)
fi

# job CMD...: runs CMD in a process group of its own (killed on exit), waits
job() {
	setsid "$@" &
	JOB=$!
	wait "$JOB"
	local rc=$?
	JOB=
	return $rc
}

# record KIND FILE LOOPS: one recording of perf bench sched messaging
record() {
	local kind=$1 f=$2 load=(perf bench sched messaging -g "$GROUPS_" -l "$3")
	rm -f "$f" "$f.old"
	case $kind in
	tc) job timeout 150 ./tc --record "$f" -- "${load[@]}" ;;
	perf) job timeout 150 perf record -q -k mono "${EV[@]}" -a -o "$f" -- "${load[@]}" ;;
	perf-m4096) job timeout 150 perf record -q -m 4096 -k mono "${EV[@]}" -a -o "$f" -- "${load[@]}" ;;
	sched) job timeout 150 perf sched record -o "$f" -- "${load[@]}" ;;
	esac >/dev/null 2>"$T/rec.err"
}

# events FILE: the number of samples in FILE, by perf's count
events() {
	perf report --stats -i "$1" 2>/dev/null | awk '/^ *SAMPLE events:/ { print $3; exit }'
}

KINDS=(tc perf perf-m4096 sched)
short=
echo "== reading: recordings (perf bench sched messaging -g $GROUPS_ -l $LOOPS; at least $MIN_EVENTS events each)"
for k in "${KINDS[@]}"; do
	f=$R/$k.data
	if [ -s "$f" ] && [ -n "${BENCH_DIR:-}" ]; then
		echo "$k: reusing $f"
	else
		# one try: under heavy load the recorders lose more, not less,
		# with a longer workload; a short file is reported, not retried
		record "$k" "$f" "$LOOPS" ||
			echo "$k: recording failed: $(grep -v '^tc: ' "$T/rec.err" | head -2)"
	fi
	rm -f "$f.old"
done

# timed FILE OUT CMD...: RUNS runs of CMD (file in page cache); OUT gets the
# medians "wall cpu maxrss_kib", each over the runs on its own
timed() {
	local f=$1 out=$2 i
	shift 2
	cat "$f" >/dev/null
	: >"$T/runs"
	for i in $(seq "$RUNS"); do
		/usr/bin/time -f '%e %U %S %M' -o "$T/t" "$@" >/dev/null 2>"$T/cmd.err"
		tail -1 "$T/t" | awk '{ print $1, $2 + $3, $4 }' >>"$T/runs"
	done
	local m=$(( (RUNS + 1) / 2 ))
	echo "$(cut -d' ' -f1 "$T/runs" | sort -g | sed -n "${m}p")" \
		"$(cut -d' ' -f2 "$T/runs" | sort -g | sed -n "${m}p")" \
		"$(cut -d' ' -f3 "$T/runs" | sort -g | sed -n "${m}p")" >"$out"
}
if [ ! -x /usr/bin/time ]; then
	# bash's time for wall and CPU; peak RSS from /proc is not available
	# after exit, so it prints as 0
	timed() {
		local f=$1 out=$2 i TIMEFORMAT='%R %U %S'
		shift 2
		cat "$f" >/dev/null
		: >"$T/runs"
		for i in $(seq "$RUNS"); do
			{ time "$@" >/dev/null 2>"$T/cmd.err"; } 2>"$T/t"
			awk '{ print $1, $2 + $3, 0 }' "$T/t" >>"$T/runs"
		done
		local m=$(( (RUNS + 1) / 2 ))
		echo "$(cut -d' ' -f1 "$T/runs" | sort -g | sed -n "${m}p")" \
			"$(cut -d' ' -f2 "$T/runs" | sort -g | sed -n "${m}p")" 0 >"$out"
	}
	echo "(no /usr/bin/time: bash's time, peak RSS not measured)"
fi

div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else print "-" }'; }
echo
echo "== reading: tc --replay F --summary vs perf sched timehist -s -i F vs cat F (medians of $RUNS, warm cache)"
printf '%-11s %9s %7s | %-20s | %-20s | %-14s | %-9s %-9s %-7s | %s\n' file events MiB \
	"tc wall/cpu/RSS" "timehist wall/cpu/RSS" "cat wall/cpu" "th/tc wall" "th/tc cpu" "tc/cat" \
	"tc merge queue peak"
for k in "${KINDS[@]}"; do
	f=$R/$k.data
	[ -s "$f" ] || { echo "$k: no recording"; continue; }
	n=$(events "$f")
	[ "${n:-0}" -ge "$MIN_EVENTS" ] || short="$short $k"
	timed "$f" "$T/tc" ./tc --replay "$f" --summary
	cp "$T/cmd.err" "$T/$k.tcerr"
	timed "$f" "$T/th" perf sched timehist -s -i "$f"
	timed "$f" "$T/cat" cat "$f"
	read -r tw tcpu trss <"$T/tc"
	read -r hw hcpu hrss <"$T/th"
	read -r cw ccpu _ <"$T/cat"
	q=$(grep -o 'merge queue peak [0-9]* records ([0-9]* KiB)' "$T/$k.tcerr" | sed 's/merge queue peak //')
	printf '%-11s %9s %7.1f | %5.2fs %5.2fs %5.1fM | %5.2fs %5.2fs %5.1fM | %5.2fs %5.2fs | %-10s %-9s %-7s | %s\n' \
		"$k" "${n:-?}" "$(awk -v s="$(stat -c %s "$f")" 'BEGIN { print s / 1048576 }')" \
		"$tw" "$tcpu" "$(awk -v r="$trss" 'BEGIN { print r / 1024 }')" \
		"$hw" "$hcpu" "$(awk -v r="$hrss" 'BEGIN { print r / 1024 }')" \
		"$cw" "$ccpu" "$(div "$hw" "$tw")x" "$(div "$hcpu" "$tcpu")x" "$(div "$tw" "$cw")x" \
		"${q:-absent from the stats line}"
done
[ -n "${short:-}" ] && echo "fewer than $MIN_EVENTS events in:$short (the recorder lost events; see lost below)"
echo "tc's stats lines:"
for k in "${KINDS[@]}"; do
	[ -s "$T/$k.tcerr" ] && echo "  $k: $(grep '^tc: replayed' "$T/$k.tcerr" | sed 's/^tc: //; s/ (.*)//')"
done

# == one workload, all four recorders at once: per-task agreement
echo
echo "== one workload recorded by all four at once (perf bench sched messaging -g 2 -l 100)"
if ! job timeout 150 ./tc --record "$T/A" -- \
	perf record -q -k mono "${EV[@]}" -a -o "$T/B" -- \
	perf record -q -m 4096 -k mono "${EV[@]}" -a -o "$T/C" -- \
	perf sched record -o "$T/D" -- \
	perf bench sched messaging -g 2 -l 100 >/dev/null 2>"$T/nest.err"; then
	echo "nested recording failed: $(grep -v '^tc: ' "$T/nest.err" | head -3)"
	exit 0
fi
for f in A B C D; do
	./tc --replay "$T/$f" --summary >"$T/$f.sum" 2>"$T/$f.err"
done
echo "tc's stats lines (A tc --record, B perf record, C perf record -m 4096, D perf sched record):"
for f in A B C D; do
	echo "  $f: $(grep '^tc: replayed' "$T/$f.err" | sed 's/^tc: //; s/ (.*)//')"
done
# per tid: run_ms - initial_ms and switches, in the four files; compared
# where every file has the task with inferred == 0 (and missing_out == 0)
awk -F'\t' '
FNR == 1 { fi++; delete col; for (i = 1; i <= NF; i++) col[$i] = i; done = 0; next }
$0 == "" { done = 1 }
done { next }
{
	t = $col["tid"]
	if ($col["inferred"] != 0 || (("missing_out" in col) && $col["missing_out"] != 0)) {
		excl[t] = 1
		next
	}
	run[fi, t] = $col["run_ms"] - $col["initial_ms"]; sw[fi, t] = $col["switches"]
	comm[t] = $col["comm"]; tids[t] = 1
}
END {
	split("tc perf perf-m4096 sched", nm, " ")
	for (t in tids) {
		all = 1
		for (f = 1; f <= 4; f++) if (!((f, t) in run)) all = 0
		if (!all || t in excl) { partial++; continue }
		lo = hi = run[1, t]; slo = shi = sw[1, t]
		for (f = 2; f <= 4; f++) {
			if (run[f, t] < lo) lo = run[f, t]
			if (run[f, t] > hi) hi = run[f, t]
			if (sw[f, t] < slo) slo = sw[f, t]
			if (sw[f, t] > shi) shi = sw[f, t]
		}
		d = hi - lo
		c = comm[t] == "sched-messaging" ? 1 : 2
		n[c]++
		if ((d <= 1 || d <= hi / 100) && shi - slo <= 1) ok[c]++
		else {
			bad[c]++
			line = sprintf("%d\t%.3f\ttid %s %s: run_ms", c, d, t, comm[t])
			for (f = 1; f <= 4; f++) line = line sprintf(" %s=%.3f", nm[f], run[f, t])
			line = line " switches"
			for (f = 1; f <= 4; f++) line = line " " sw[f, t]
			print line > "/dev/stderr"
		}
	}
	printf "workload tasks (sched-messaging) in all four files with no inferred switch-in: %d, %d agree (run within 1 %% or 1 ms, switches within 1), %d differ\n", n[1] + 0, ok[1] + 0, bad[1] + 0
	printf "other tasks (they ran outside the workload too, so the four recording windows see different stretches): %d, %d agree, %d differ\n", n[2] + 0, ok[2] + 0, bad[2] + 0
	printf "left out (missing from a file, or an inferred switch-in / missing switch-out in one): %d tasks\n", partial + 0
}' "$T/A.sum" "$T/B.sum" "$T/C.sum" "$T/D.sum" 2>"$T/worst"
for c in 1 2; do
	[ "$c" = 1 ] && what="workload tasks" || what="other tasks"
	if grep -q "^$c	" "$T/worst"; then
		echo "worst differences, $what (largest run_ms spread first):"
		grep "^$c	" "$T/worst" | sort -t"$(printf '\t')" -k2,2gr | head -5 | cut -f3- | sed 's/^/  /'
	fi
done
