#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Test runner for tc, called by `make test` after the binaries are built.
#
# Runs test/unit and test/unit-san (each prints "PASS name", "FAIL name: why",
# maybe "SKIP name: why", and a last line "N passed, N failed"), and the
# tests of every test/t_*.sh. A t_*.sh file defines test functions and hands
# them to `run_tests` (no kernel needed) or `kernel_tests` (root and
# perf_event_open needed; each test is skipped with the reason otherwise).
# Test functions call pass/fail/skip and may use:
#
#   $TC $TC_SAN $PINGPONG   binaries (tc-san is tc with ASan+UBSan)
#   $TMP                    scratch directory of the whole run, removed on exit
#   $T                      a fresh directory for the current test
#   $TEST_SEQ               a number of the current test's own (its place in
#                           the list), for names no other test running at
#                           the same time uses
#   reap_later PID...       kill these (and their process groups) when the
#                           test is done
#   nap SECONDS             sleep without a process (a poll loop's pause:
#                           sleep(1) is a fork and an exec each time, and the
#                           tests' polling took half the machine)
#   shared NAME FUNCTION    a recording made once per run and read by several
#                           tests (see below)
#
# The tests run in parallel, each test function in a subshell of its own
# whose output is printed whole when it ends: TEST_JOBS at a time (default
# two per CPU; TEST_JOBS=1 runs them one after the other), at most one per
# CPU that is not quiet. Kernel tests trace the whole machine, so what may
# run beside what is declared with `test_class CLASS NAME...` before the
# tests are handed over:
#
#   quiet      little CPU time, few trace events, and asserts nothing that
#              other tests can disturb: beside all but solo and sensitive
#   cpu        CPU time (sanitizer runs over files) but few trace events;
#              asserts nothing load disturbs: beside all but solo and
#              sensitive; runs at nice 10, so that what it takes from the
#              others is the CPU time they leave
#   busy       CPU time and a flood of trace events (a workload), asserts
#              nothing load disturbs: beside quiet, cpu and busy tests
#   exact      a small workload whose every event counts (exact counts, a
#              wakeup chain, a loss fails or skips it): beside quiet tests
#              and two cpu tests at most (a busy test's events would flood
#              its rings)
#   sensitive  a heavy workload whose every event counts (perf bench), or
#              CPU 0 to itself: alone (beside quiet tests, their recorders
#              included, perf record lost 0.2 and 0.7 million events and
#              latency_perf_sched and replay_three_forms skipped)
#   solo       alone: timing, and kernel tests nobody classified
#
# A kernel test nobody classified is solo, a no-kernel test cpu. A test that
# reads a shared recording counts, until the recording is made, as what
# making it needs (shared_by). Slow tests are started first, the slowest
# first (test_slow SECONDS NAME...).

# Ends with exactly "N passed, N failed, N skipped"; exits 1 on any failure.

set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
# TC and TC_SAN may be set to test another build (e.g. TC=$PWD/tc-static).
TC=${TC:-$ROOT/tc}
TC_SAN=${TC_SAN:-$ROOT/tc-san}
[ -x "$TC_SAN" ] || TC_SAN=$TC
PINGPONG=$ROOT/test/pingpong
SCHEDTRUTH=$ROOT/test/schedtruth
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

npass=0 nfail=0 nskip=0
pass() { npass=$((npass + 1)); echo "PASS $1"; }
fail() {
	nfail=$((nfail + 1))
	echo "FAIL $1: ${2:-failed}"
	[ -z "${T:-}" ] || echo "$T" >>"$TMP/.keep"
}
skip() { nskip=$((nskip + 1)); echo "SKIP $1: ${2:-skipped}"; }
note() { echo "  note: $*"; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/tc-test.XXXXXX") || exit 1
mkdir "$TMP/.jobs"
REAP=()

# proc_start PID: when process PID started (/proc/PID/stat's 22nd field,
# clock ticks since boot); nothing if it does not run
proc_start() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
	s=${s##*) }	# (the name, in parentheses, may hold spaces)
	# shellcheck disable=SC2086
	set -- $s
	echo "${20}"
}

# reap_later PID...: reap kills them at the test's end, each only if it is
# still the process that had its pid then: pids wrap at 32768 on the CI
# machine, and a pid reused by another test's process was killed with its
# group (the likely end of a test/sim run cut short in CI, truth_sim)
reap_later() {
	local p
	for p; do REAP+=("$p:$(proc_start "$p")"); done
}

# Kill what the current test (or the runner) started and did not clean up
# (it said so with reap_later), with their process groups unless the group
# is the runner's.
reap() {
	local e p g mine
	mine=$(ps -o pgid= -p $$ | tr -d ' ')
	for e in "${REAP[@]}"; do
		p=${e%%:*}
		[ -n "${e#*:}" ] && [ "$(proc_start "$p")" = "${e#*:}" ] || continue
		g=$(ps -o pgid= -p "$p" 2>/dev/null | tr -d ' ')
		if [ -n "$g" ] && [ "$g" != "$mine" ]; then
			kill -KILL -- "-$g" 2>/dev/null
		fi
		kill -KILL "$p" 2>/dev/null
	done
	REAP=()
}

# Stop the tests still running, reap, then remove the scratch files, except
# the directories of the tests that failed (their evidence), which are named.
cleanup() {
	local p keep=
	for p in "${!RUNNING[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
	for p in "${!RUNNING[@]}"; do
		wait "$p" 2>/dev/null
	done
	reap
	[ -e "$TMP/.keep" ] && keep=" $(tr '\n' ' ' <"$TMP/.keep")"
	for p in "$TMP"/*/; do
		p=${p%/}
		[[ "$keep " == *" $p "* ]] || rm -rf "$p"
	done
	if [ -n "$keep" ] && [ -d "$TMP" ]; then
		rm -rf "$TMP/.jobs"
		echo "run.sh: the failed tests' files are kept in $TMP"
	else
		rm -rf "$TMP"
	fi
}
declare -A RUNNING=()
trap cleanup EXIT
trap 'echo "run.sh: interrupted"; exit 130' INT TERM HUP

# Why kernel tests cannot run here, or empty if they can.
KERNEL_WHY=
if [ "$(id -u)" != 0 ]; then
	KERNEL_WHY="needs root (perf_event_open of tracepoints, tracefs)"
elif [ ! -e /proc/sys/kernel/perf_event_paranoid ]; then
	KERNEL_WHY="kernel has no perf_event_open (CONFIG_PERF_EVENTS)"
elif [ ! -d /sys/kernel/tracing/events ] &&
     [ ! -d /sys/kernel/debug/tracing/events ] &&
     ! grep -qw tracefs /proc/filesystems; then
	KERNEL_WHY="kernel has no tracefs (CONFIG_FTRACE)"
fi

# Helpers shared by the t_*.sh files.

# nap SECONDS: wait so long in bash itself: a read that times out on a
# FIFO nobody writes to, opened for the read only (a descriptor kept open
# would be inherited by every tc the tests start: harm_err_fd_limit counts
# them).
mkfifo "$TMP/.nap"
nap() {
	local fd
	exec {fd}<>"$TMP/.nap"
	read -r -t "$1" -u "$fd" _
	exec {fd}>&-
	return 0
}

# perf sched timehist -s as "tid sched-in run_ms" lines, idle left out; a
# task shown under two names (":TID" before its name is known, then
# "comm[TID]") is summed.
timehist_tasks() {
	awk '
	/Runtime summary/ { on = 1; next }
	/^Idle stats/ { on = 0 }
	on && match($0, /(\[[0-9]+\]|^ *:[0-9]+) +-?[0-9]+ +[0-9]+ +[0-9.]+/) {
		s = substr($0, RSTART, RLENGTH)
		gsub(/[\[\]:]/, " ", s)
		split(s, f, " ")
		if (f[1] != 0) { sw[f[1]] += f[3]; run[f[1]] += f[4] }
	}
	END { for (t in sw) print t, sw[t], run[t] }' "$1"
}

# keep_evidence NAME: copy the current test's files where they outlive the
# run ($TMP is removed), and say where.
keep_evidence() {
	local dir=${TMPDIR:-/tmp}/tc-failed-$1
	rm -rf "$dir" && cp -r "$T" "$dir" && note "$1: its files are kept in $dir"
}

# Wait up to $2 seconds for pid $1 to end. Returns 0 if it ended.
wait_gone() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		nap 0.1
	done
	return 1
}

# grows FILE SECONDS: wait up to SECONDS for FILE, a recording being
# written, to grow twice past the size it first had (its header and
# attributes): events have been written to it. Returns 0 once they have.
grows() {
	local i s s0='' n=0
	for ((i = 0; i < $2 * 20; i++)); do
		s=$(stat -c %s "$1" 2>/dev/null)
		if [ -n "$s" ] && [ "$s" != "$s0" ]; then
			[ -n "$s0" ] && n=$((n + 1))
			s0=$s
			[ "$n" -ge 2 ] && return 0
		fi
		nap 0.05
	done
	return 1
}

# Print the pids of all descendants of pid $1, children first (from
# /proc/PID/task/*/children where the kernel has it, else pgrep -P).
descendants() {
	local c t kids=
	if [ -e "/proc/$1/task/$1/children" ]; then
		for t in /proc/"$1"/task/*/children; do
			read -r -d '' c 2>/dev/null <"$t"
			kids="$kids $c"
		done
	elif [ -e /proc/self/task/$BASHPID/children ]; then
		return 0	# gone
	else
		kids=$(pgrep -P "$1")
	fi
	for c in $kids; do
		echo "$c"
		descendants "$c"
	done
}

# Wait up to $3 seconds for a descendant of pid $1 running program $2.
# Returns 0 once there is one, 1 at once if pid $1 is gone (or a zombie).
has_descendant() {
	local i p c
	for ((i = 0; i < $3 * 10; i++)); do
		[ -n "$(alive "$1")" ] || return 1
		for p in $(descendants "$1"); do
			read -r c 2>/dev/null <"/proc/$p/comm" && [ "$c" = "$2" ] && return 0
		done
		nap 0.1
	done
	return 1
}

# Print those of the pids given that are still alive (zombies count as
# gone): the state field of /proc/PID/stat, after the name in parentheses.
alive() {
	local p s
	for p; do
		read -r s 2>/dev/null <"/proc/$p/stat" || continue
		s=${s##*) }
		[ "${s%% *}" = Z ] || echo "$p"
	done
}

# Kill the pids given and their process groups (unless it is ours): what a
# killed recorder left behind.
kill_workload() {
	local p g mine
	mine=$(ps -o pgid= -p $$ | tr -d ' ')
	for p; do
		g=$(ps -o pgid= -p "$p" 2>/dev/null | tr -d ' ')
		[ -n "$g" ] && [ "$g" != "$mine" ] && kill -KILL -- "-$g" 2>/dev/null
		kill -KILL "$p" 2>/dev/null
	done
	for p; do wait_gone "$p" 5; done
}

have_perf() { command -v perf >/dev/null; }

# script FILE OUT: tc --replay FILE --script > OUT (with the sanitizer build).
script() {
	timeout 120 "$TC_SAN" --replay "$1" --script >"$2" 2>"$2.err"
}

# killed_perf FILE EVENT...: a perf record of EVENTs into FILE, killed with
# SIGKILL during its `sleep 5` once it has written events (its data size
# stays 0), workload reaped.
killed_perf() {
	local out=$1 perf kids
	shift
	perf record -q "$@" -a -o "$out" -- sleep 5 >/dev/null 2>&1 &
	perf=$!
	reap_later "$perf"
	has_descendant "$perf" sleep 30 || note "no sleep under perf after 30 s"
	grows "$out" 30 || note "perf wrote no events in 30 s"
	kids=$(descendants "$perf")
	# shellcheck disable=SC2086
	reap_later $kids
	kill -KILL "$perf"
	wait "$perf" 2>/dev/null
	# shellcheck disable=SC2086
	kill_workload $kids
}

# shared NAME FUNCTION: the files FUNCTION DIR makes in DIR (a recording,
# its --script, what its command printed), made once per run for the tests
# that only read them: the first test to ask makes them, under a lock, and
# a test asking meanwhile waits for them. Returns FUNCTION's status, then
# and for every later ask. A test that changes the files works on a copy.
shared() {
	local d=$TMP/shared/$1
	mkdir -p "$d"
	{
		flock 9
		if [ ! -e "$d/.status" ]; then
			"$2" "$d"
			echo $? >"$d/.status"
		fi
	} 9>"$d/.lock"
	return "$(cat "$d/.status")"
}

# killed_perf_make DIR: the killed perf record (killed_perf) of
# sched_switch, sched_wakeup and sched_stat_runtime (an event tc does not
# read, whose format the repair must write too) that
# repair_killed_perf_record (on a copy) and replay_killed_perf read, as DIR/p.
killed_perf_make() { killed_perf "$1/p" -e sched:sched_switch -e sched:sched_wakeup -e sched:sched_stat_runtime; }

# The schedule: one job per test function, in the order handed over; the
# class of each (test_class), the slow ones (test_slow) and the shared
# recordings a test reads (shared_by).
declare -A CLASS=() SLOW=() NEEDS=() NEED_CLASS=()
JOBS=() JOB_CLASS=()
test_class() { local c=$1 f; shift; for f; do CLASS[$f]=$c; done; }
# test_slow SECONDS NAME...: these take about SECONDS of CPU (or of wall,
# if more) on this 2-CPU machine beside the others: started first, the
# slowest first.
test_slow() { local s=$1 f; shift; for f; do SLOW[$f]=$s; done; }
# shared_by NAME CLASS TEST...: the shared recording NAME is made by the
# first of these tests to ask for it; until it is made, each of them
# counts as CLASS (what making it needs) if that is stricter than its own.
shared_by() {
	local n=$1 c=$2 f
	shift 2
	NEED_CLASS[$n]=$c
	for f; do NEEDS[$f]="${NEEDS[$f]:-} $n"; done
}

# want FN: FN is among $TESTS, or $TESTS is empty
# (`make test TESTS="view_resize io_exact"` runs only those).
want() { [ -z "${TESTS:-}" ] || [[ " $TESTS " == *" $1 "* ]]; }

run_tests() {
	local f
	for f; do
		want "$f" || continue
		JOBS+=("$f") JOB_CLASS+=("${CLASS[$f]:-cpu}")
	done
}
kernel_tests() {
	local f
	for f; do
		want "$f" || continue
		if [ -n "$KERNEL_WHY" ]; then
			skip "$f" "$KERNEL_WHY"
		else
			JOBS+=("$f") JOB_CLASS+=("${CLASS[$f]:-solo}")
		fi
	done
}

# run_job I CLASS: job I in this subshell, its output and counts in
# $TMP/.jobs/I.*, what it left behind (reap_later) killed at its end; at
# nice 10 if CLASS is cpu.
run_job() {
	local i=$1 fn=${JOBS[$1]} t0
	exec >"$TMP/.jobs/$i.out" 2>&1 </dev/null
	[ "$2" != cpu ] || renice -n 10 -p "$BASHPID" >/dev/null
	npass=0 nfail=0 nskip=0 REAP=()
	trap 'exit 143' TERM INT HUP
	trap 'reap; echo "$npass $nfail $nskip" >"$TMP/.jobs/$i.n"' EXIT
	TEST_SEQ=$i
	T=$TMP/$fn
	mkdir -p "$T"
	t0=$EPOCHREALTIME
	"$fn"
	# wall seconds, and the CPU seconds of the processes it waited for
	times >"$TMP/.jobs/$i.cpu"
	echo "$fn $(awk -v a="$t0" -v b="$EPOCHREALTIME" -v s="$RUN_T0" 'NR == 2 {
		for (i = 1; i <= 2; i++) { split($i, m, /[ms]/); c += m[1] * 60 + m[2] }
		printf "%.1f %.1f %.1f", b - a, c, a - s }' "$TMP/.jobs/$i.cpu")" >"$TMP/.jobs/$i.time"
}

declare -A RANK=([quiet]=0 [cpu]=1 [busy]=2 [exact]=3 [sensitive]=4 [solo]=5)

# job_class I: sets JC to job I's class now: its own, or that of a shared
# recording it reads that is not made yet, if stricter.
job_class() {
	local n
	JC=${JOB_CLASS[$1]}
	[ -z "$KERNEL_WHY" ] || return 0
	for n in ${NEEDS[${JOBS[$1]}]:-}; do
		[ -e "$TMP/shared/$n/.status" ] && continue
		[ "${RANK[${NEED_CLASS[$n]}]}" -gt "${RANK[$JC]}" ] && JC=${NEED_CLASS[$n]}
	done
}

# What a class puts on the machine (load: 0 nothing to speak of, 1 CPU
# time at nice 10, 3 CPU time and a flood of trace events, or a workload
# whose events all count) and the most it bears beside it, all the others'
# loads added. pair_ok A B: tests of classes A and B may run at the same
# time.
declare -A LOAD=([quiet]=0 [cpu]=1 [busy]=3 [exact]=3 [sensitive]=3 [solo]=99)
declare -A BEARS=([quiet]=99 [cpu]=99 [busy]=99 [exact]=2 [sensitive]=-1 [solo]=-1)
pair_ok() { [ "${LOAD[$1]}" -le "${BEARS[$2]}" ] && [ "${LOAD[$2]}" -le "${BEARS[$1]}" ]; }
# (A test that bears -1 bears nothing, not even a quiet test, whose load is
# 0: it starts only when nothing runs.)

# slow_first CLASS...: the jobs of these classes, the slow ones first (the
# slowest first: test_slow), then the others, each group as handed over.
slow_first() {
	local i c
	for i in "${!JOBS[@]}"; do
		for c; do
			[ "${JOB_CLASS[$i]}" = "$c" ] || continue
			printf '%d %d %d\n' "${SLOW[${JOBS[$i]}]:-0}" $((-i)) "$i"
		done
	done | sort -k1,1nr -k2,2nr | cut -d' ' -f3
}

# Run the jobs, TEST_JOBS at a time (default: two per CPU; TEST_HEAVY: at
# most so many of them not quiet, default all), each beside only what its
# class bears and what bears it; in the order below: a job that cannot
# start yet holds back the jobs after it that could not run beside it.
# Print each job's output when it ends, take over its counts.
run_jobs() {
	local ncpu max order=() i k p n c rest blocked ok heavy heavy_max load JC
	RUN_T0=$EPOCHREALTIME
	ncpu=$(nproc 2>/dev/null || echo 1)
	max=${TEST_JOBS:-$((2 * ncpu))}
	[ "$max" -ge 1 ] 2>/dev/null || max=1
	declare -A RCLASS=()
	heavy_max=${TEST_HEAVY:-$max}
	# the strictest first (while they run, quiet tests fill the other
	# places; beside the exact ones, cpu ones), the slow first in a class
	# (the slowest first), then the rest as handed over
	for c in solo sensitive exact; do
		mapfile -t -O ${#order[@]} order < <(slow_first "$c")
	done
	mapfile -t -O ${#order[@]} order < <(slow_first quiet cpu busy)
	if [ -n "${TEST_LIST:-}" ]; then	# TEST_LIST=1: the order and classes only
		for i in "${order[@]}"; do echo "${JOB_CLASS[$i]} ${JOBS[$i]}"; done
		exit 0
	fi
	while [ ${#order[@]} -gt 0 ] || [ ${#RUNNING[@]} -gt 0 ]; do
		rest=() blocked=()
		for k in "${order[@]}"; do
			if [ ${#RUNNING[@]} -ge "$max" ]; then
				rest+=("$k")
				continue
			fi
			job_class "$k"
			c=$JC ok=1 heavy=0 load=0
			for p in "${!RUNNING[@]}"; do
				load=$((load + LOAD[${RCLASS[$p]}]))
				[ "${RCLASS[$p]}" = quiet ] || heavy=$((heavy + 1))
			done
			[ "$load" -le "${BEARS[$c]}" ] || ok=
			for p in "${!RUNNING[@]}"; do
				[ $((load - LOAD[${RCLASS[$p]}] + LOAD[$c])) -le "${BEARS[${RCLASS[$p]}]}" ] || ok=
			done
			[ "$c" = quiet ] || [ "$heavy" -lt "$heavy_max" ] || ok=
			if [ "${BEARS[$c]}" -lt 0 ]; then
				ok=
				[ ${#RUNNING[@]} != 0 ] || ok=1
			fi
			for p in "${blocked[@]}"; do
				pair_ok "$c" "$p" || ok=
			done
			if [ -n "$ok" ]; then
				run_job "$k" "$c" &
				RUNNING[$!]=$k RCLASS[$!]=$c
			else
				rest+=("$k") blocked+=("$c")
			fi
		done
		order=("${rest[@]}")
		p=
		wait -n -p p "${!RUNNING[@]}"
		[ -n "$p" ] || continue
		i=${RUNNING[$p]}
		unset "RUNNING[$p]" "RCLASS[$p]"
		cat "$TMP/.jobs/$i.out"
		if read -r -a n <"$TMP/.jobs/$i.n" 2>/dev/null; then
			npass=$((npass + n[0])) nfail=$((nfail + n[1])) nskip=$((nskip + n[2]))
		else
			fail "${JOBS[$i]}" "the test's shell ended without its counts"
		fi
		cat "$TMP/.jobs/$i.time" >>"$TMP/.jobs/times" 2>/dev/null
	done
}

# unit_binary NAME PATH: run a unit test binary and take over its results.
unit_binary() {
	local name=$1 bin=$2 out rc line total_p=0 total_f=0 summary=
	if [ ! -x "$bin" ]; then
		if [ -e "$ROOT/test/unit.c" ]; then
			fail "$name" "$bin was not built"
		else
			skip "$name" "test/unit.c not written yet"
		fi
		return
	fi
	out=$TMP/$name.out
	timeout 300 "$bin" >"$out" 2>"$out.err"
	rc=$?
	while IFS= read -r line; do
		case $line in
		"PASS "*) pass "$name:${line#PASS }"; total_p=$((total_p + 1)) ;;
		"FAIL "*) line=${line#FAIL }
			  fail "$name:${line%%: *}" "${line#*: }"
			  total_f=$((total_f + 1)) ;;
		"SKIP "*) line=${line#SKIP }
			  skip "$name:${line%%: *}" "${line#*: }" ;;
		[0-9]*" passed, "[0-9]*" failed"*) summary=$line ;;
		esac
	done <"$out"
	if [ "$rc" = 124 ]; then
		fail "$name" "timed out after 300 s"
	elif [ -z "$summary" ]; then
		fail "$name" "no summary line, exit status $rc: $(tail -3 "$out.err" | tr '\n' ' ')"
	elif [ "${summary%% *}" != "$total_p" ]; then
		fail "$name" "summary '$summary' does not match $total_p PASS lines"
	elif [ "$rc" != 0 ] && [ "$total_f" = 0 ]; then
		fail "$name" "exit status $rc with no FAIL line: $(tail -3 "$out.err" | tr '\n' ' ')"
	fi
	if grep -Eq 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$out.err"; then
		fail "$name" "sanitizer: $(grep -Em1 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$out.err")"
	elif [ "$rc" -gt 128 ] && [ "$rc" != 124 ]; then
		fail "$name" "exit status $rc (signal $((rc - 128))?)"
	fi
}

# The checkout's untracked files (git status), before and after the run.
untracked() {
	git -C "$ROOT" status --porcelain --untracked-files=all 2>/dev/null | sed -n 's/^?? //p' | sort
}
git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1 && untracked >"$TMP/.untracked"

unit() { unit_binary unit "$ROOT/test/unit"; }
unit-san() { unit_binary unit-san "$ROOT/test/unit-san"; }
test_slow 2 unit-san
run_tests unit unit-san

for t in "$ROOT"/test/t_*.sh; do
	[ -e "$t" ] || continue
	# shellcheck source=test/t_record.sh
	. "$t"
done
run_jobs

# No test leaves a process behind: nothing started from this tree (tc,
# tc-san, pingpong) and none of the tests' own workloads may survive.
left=$(pgrep -f "^($ROOT/|sleep 987\$)")
if [ -z "$left" ]; then
	pass no_processes_left
else
	# shellcheck disable=SC2086
	fail no_processes_left "$(ps -o pid=,args= -p "${left//$'\n'/,}" | tr '\n' ';')"
	# shellcheck disable=SC2086
	kill -KILL $left 2>/dev/null
fi

# No test leaves a file in the checkout: what tc and the tests write there
# is in .gitignore.
if [ ! -e "$TMP/.untracked" ]; then
	skip no_untracked_files "not a git checkout"
else
	left=$(untracked | comm -13 "$TMP/.untracked" -)
	if [ -z "$left" ]; then
		pass no_untracked_files
	else
		fail no_untracked_files "new untracked files in the checkout: $(echo "$left" | head -5 | tr '\n' ' ')"
	fi
fi

# The slowest tests, for test/README.
if [ -s "$TMP/.jobs/times" ]; then
	echo "# slowest (s): $(sort -k2,2nr "$TMP/.jobs/times" | head -15 | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')"
	# TEST_TIMES=FILE: every test's start (s after the first), wall and CPU s
	[ -z "${TEST_TIMES:-}" ] || cp "$TMP/.jobs/times" "$TEST_TIMES"
fi
echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]
