#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Test runner for tc, called by `make test` after the binaries are built.
#
# Runs test/unit and test/unit-san (each prints "PASS name", "FAIL name: why",
# maybe "SKIP name: why", and a last line "N passed, N failed"), then sources
# every test/t_*.sh. A t_*.sh file defines test functions and hands them to
# `run_tests` (no kernel needed) or `kernel_tests` (root and perf_event_open
# needed; each test is skipped with the reason otherwise). Test functions call
# pass/fail/skip and may use:
#
#   $TC $TC_SAN $PINGPONG   binaries (tc-san is tc with ASan+UBSan)
#   $TMP                    scratch directory of the whole run, removed on exit
#   $T                      a fresh directory for the current test
#   reap_later PID...       kill these (and their process groups) on exit
#
# Ends with exactly "N passed, N failed, N skipped"; exits 1 on any failure.

set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
# TC and TC_SAN may be set to test another build (e.g. TC=$PWD/tc-static).
TC=${TC:-$ROOT/tc}
TC_SAN=${TC_SAN:-$ROOT/tc-san}
[ -x "$TC_SAN" ] || TC_SAN=$TC
PINGPONG=$ROOT/test/pingpong
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

npass=0 nfail=0 nskip=0
pass() { npass=$((npass + 1)); echo "PASS $1"; }
fail() { nfail=$((nfail + 1)); echo "FAIL $1: ${2:-failed}"; KEEP+=("${T:-}"); }
skip() { nskip=$((nskip + 1)); echo "SKIP $1: ${2:-skipped}"; }
note() { echo "  note: $*"; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/tc-test.XXXXXX") || exit 1
REAP=() KEEP=()
reap_later() { REAP+=("$@"); }

# Kill whatever a test started and did not clean up (it said so with
# reap_later), then remove the scratch files, except the directories of the
# tests that failed (their evidence), which are named.
cleanup() {
	local p g
	for p in "${REAP[@]}"; do
		kill -0 "$p" 2>/dev/null || continue
		g=$(ps -o pgid= -p "$p" 2>/dev/null | tr -d ' ')
		if [ -n "$g" ] && [ "$g" != "$(ps -o pgid= -p $$ | tr -d ' ')" ]; then
			kill -KILL -- "-$g" 2>/dev/null
		fi
		kill -KILL "$p" 2>/dev/null
	done
	for p in "$TMP"/*/; do
		p=${p%/}
		[[ " ${KEEP[*]} " == *" $p "* ]] || rm -rf "$p"
	done
	if [ ${#KEEP[@]} -gt 0 ] && [ -d "$TMP" ]; then
		echo "run.sh: the failed tests' files are kept in $TMP"
	else
		rm -rf "$TMP"
	fi
}
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
		sleep 0.1
	done
	return 1
}

# Print the pids of all descendants of pid $1, children first.
descendants() {
	local c
	for c in $(pgrep -P "$1"); do
		echo "$c"
		descendants "$c"
	done
}

# Wait up to $3 seconds for a descendant of pid $1 running program $2.
# Returns 0 once there is one.
has_descendant() {
	local i p
	for ((i = 0; i < $3 * 10; i++)); do
		for p in $(descendants "$1"); do
			[ "$(ps -o comm= -p "$p")" = "$2" ] && return 0
		done
		sleep 0.1
	done
	return 1
}

# Print those of the pids given that are still alive (zombies count as gone).
alive() {
	local p s
	for p; do
		s=$(ps -o stat= -p "$p" 2>/dev/null) || continue
		case $s in Z*) ;; *) echo "$p" ;; esac
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
# SIGKILL 2 s into its `sleep 5` (its data size stays 0), workload reaped.
killed_perf() {
	local out=$1 perf kids
	shift
	perf record -q "$@" -a -o "$out" -- sleep 5 >/dev/null 2>&1 &
	perf=$!
	reap_later "$perf"
	has_descendant "$perf" sleep 30 || note "no sleep under perf after 30 s"
	sleep 2
	kids=$(descendants "$perf")
	# shellcheck disable=SC2086
	reap_later $kids
	kill -KILL "$perf"
	wait "$perf" 2>/dev/null
	# shellcheck disable=SC2086
	kill_workload $kids
}

# run_one FN: run test function FN in a fresh $T (only those named in
# $TESTS, when it is set: `make test TESTS="view_resize io_exact"`).
run_one() {
	[ -z "${TESTS:-}" ] || [[ " $TESTS " == *" $1 "* ]] || return 0
	T=$TMP/$1
	mkdir -p "$T"
	"$1"
}
run_tests() { local f; for f; do run_one "$f"; done; }
kernel_tests() {
	local f
	for f; do
		if [ -n "$KERNEL_WHY" ]; then
			skip "$f" "$KERNEL_WHY"
		else
			run_one "$f"
		fi
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

[ -n "${TESTS:-}" ] || unit_binary unit "$ROOT/test/unit"
[ -n "${TESTS:-}" ] || unit_binary unit-san "$ROOT/test/unit-san"

for t in "$ROOT"/test/t_*.sh; do
	[ -e "$t" ] || continue
	echo "# ${t#"$ROOT"/}"
	# shellcheck source=test/t_record.sh
	. "$t"
done

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

echo "$npass passed, $nfail failed, $nskip skipped"
[ "$nfail" = 0 ]
