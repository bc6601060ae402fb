# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# Kernel tests of `tc --record`, sourced by test/run.sh (see there for the
# helpers). perf, where installed, is the independent reader of the files.
#
# `tc --replay F --script` prints one event per line:
#   TIME_NS CPU EVENT key=value ...

# Count sched_switch lines of a --script file whose prev_pid or next_pid is in
# the space-separated list $2.
count_switches_of() {
	awk -v pids="$2" '
	BEGIN { n = split(pids, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
	$3 == "sched_switch" {
		for (i = 4; i <= NF; i++) {
			k = substr($i, 1, index($i, "=") - 1)
			v = substr($i, index($i, "=") + 1)
			if ((k == "prev_pid" || k == "next_pid") && (v in want)) {
				c++; break
			}
		}
	}
	END { print c + 0 }' "$1"
}

record_exit_status() {
	timeout 60 "$TC" --record "$T/f" -- sh -c 'exit 3' 2>"$T/err"
	local rc=$?
	if [ "$rc" = 3 ]; then
		pass record_exit_status
	else
		fail record_exit_status "exit status $rc, want 3: $(head -3 "$T/err")"
	fi
	if grep -q '^tc: ' "$T/err"; then
		pass record_counts_line
	else
		fail record_counts_line "no 'tc: ' line on stderr: $(head -3 "$T/err")"
	fi
}

record_exit_signal() {
	timeout 60 "$TC" --record "$T/f" -- sh -c 'kill -9 $$' 2>"$T/err"
	local rc=$?
	if [ "$rc" = 137 ]; then
		pass record_exit_signal
	else
		fail record_exit_signal "exit status $rc, want 137: $(head -3 "$T/err")"
	fi
}

# A command that cannot run: 127 (126 not executable) as a shell says it,
# the recording and the one before it (FILE and FILE.old) both untouched.
record_missing_command() {
	local cmd=/nonexistent/tc-test-cmd rc left
	echo "the recording" >"$T/f"
	echo "the one before" >"$T/f.old"
	timeout 30 "$TC" --record "$T/f" -- "$cmd" arg >"$T/out" 2>"$T/err"
	rc=$?
	left=$(pgrep -f "$cmd")
	timeout 30 "$TC" --record "$T/g" -- /etc/passwd >/dev/null 2>"$T/err2"
	local rc2=$?
	if [ "$rc" != 127 ] || [ "$rc2" != 126 ]; then
		fail record_missing_command "exit status $rc and $rc2 (not executable), want 127 and 126"
	elif [ "$(cat "$T/f")" != "the recording" ] || [ "$(cat "$T/f.old" 2>/dev/null)" != "the one before" ]; then
		fail record_missing_command "FILE or FILE.old changed: '$(head -c 40 "$T/f")' '$(head -c 40 "$T/f.old" 2>/dev/null)'"
	elif [ -e "$T/g" ]; then
		fail record_missing_command "a recording was made for a command that cannot run"
	elif ! grep -qF "$cmd" "$T/err"; then
		fail record_missing_command "stderr does not name $cmd: $(head -3 "$T/err")"
	elif [ -n "$left" ]; then
		fail record_missing_command "processes left: $left"
		# shellcheck disable=SC2086
		kill -KILL $left 2>/dev/null
	else
		pass record_missing_command
	fi
}

# --record from a terminal (a pty of script(1), where tc is in the
# foreground): the command gets the terminal, reads a line from it and sets
# it (stty) instead of stopping on SIGTTIN/SIGTTOU; its output and exit
# status come through.
record_tty_command() {
	local out rc
	command -v script >/dev/null || { skip record_tty_command "script(1) is not installed"; return; }
	# exec: tc a job of its own, the leader of the pty's foreground group
	# (script -e exits with its status)
	out=$(printf 'hello\n' | timeout 30 script -qec "exec $TC --record $T/tty.data -- sh -c 'read x; stty -echo; stty echo; echo got=\$x; exit 5'" /dev/null 2>&1)
	rc=$?
	out=$(printf '%s' "$out" | tr -d '\r')
	if [ "$rc" = 124 ]; then
		fail record_tty_command "hung (the command stopped on the terminal?): $(printf '%s' "$out" | head -3)"
	elif [[ $out != *got=hello* ]] || [ "$rc" != 5 ]; then
		fail record_tty_command "want got=hello and exit status 5, got $rc: $(printf '%s' "$out" | grep -v '^tc: recorded' | head -4)"
	else
		pass record_tty_command
	fi
}

# The ping-pong recording, made once (shared, run.sh) for the tests that
# read it (here, filter_replay, the view's replay tests): tc --record of
# pingpong 2000 in $PP_DIR: pp.data, tc's stdout (out) and stderr (err),
# its exit status (rc), the pids pingpong printed (pids) and tc-san's
# --script of it (pp.script, and pp.script.err).
PP_N=2000
PP_DIR=$TMP/shared/pp PP_DATA=$TMP/shared/pp/pp.data PP_SCRIPT=$TMP/shared/pp/pp.script
pp_make() {
	timeout 120 "$TC" --record "$1/pp.data" -- "$PINGPONG" $PP_N >"$1/out" 2>"$1/err"
	echo $? >"$1/rc"
	awk '/^pids / { print $2, $3 }' "$1/out" >"$1/pids"
	[ "$(cat "$1/rc")" = 0 ] || return 1
	script "$1/pp.data" "$1/pp.script" || return 2
}
# pp_recording: 0 when the recording and its script are there; sets PP_PIDS.
pp_recording() {
	shared pp pp_make
	local rc=$?
	PP_PIDS=$(cat "$PP_DIR/pids" 2>/dev/null)
	return $rc
}

record_pingpong() {
	local n=$PP_N rc got
	pp_recording
	rc=$(cat "$PP_DIR/rc" 2>/dev/null)
	if [ "$rc" != 0 ]; then
		fail record_pingpong "tc exit status $rc: $(head -3 "$PP_DIR/err")"
		return
	fi
	if grep -Eq '^pids [0-9]+ [0-9]+$' "$PP_DIR/out"; then
		pass record_stdout_passes_through
	else
		fail record_stdout_passes_through "stdout: $(head -3 "$PP_DIR/out")"
	fi
	if ! pp_recording; then
		fail record_pingpong "tc --replay --script failed: $(head -3 "$PP_SCRIPT.err")"
		return
	fi
	if [ -z "$PP_PIDS" ]; then
		fail record_pingpong "no pids line from pingpong"
		return
	fi
	got=$(count_switches_of "$PP_SCRIPT" "$PP_PIDS")
	if [ "$got" -ge $((2 * n)) ]; then
		pass record_pingpong
	else
		fail record_pingpong "$got switches of pids $PP_PIDS, want >= $((2 * n)); tc: $(grep -o 'lost [0-9]*' "$PP_DIR/err" | head -1)"
	fi
}

record_script_format() {
	pp_recording || { fail record_script_format "no script output"; return; }
	local bad
	bad=$(grep -Evc '^[0-9]+ -?[0-9]+ [a-z_]+( [a-z_0-9]+=[^ ]*)*$' "$PP_SCRIPT")
	if [ "$bad" = 0 ] && [ -s "$PP_SCRIPT" ]; then
		pass record_script_format
	else
		fail record_script_format "$bad malformed lines, first: $(grep -Evm1 '^[0-9]+ -?[0-9]+ [a-z_]+( [a-z_0-9]+=[^ ]*)*$' "$PP_SCRIPT")"
	fi
}

record_merge_order() {
	pp_recording || { fail record_merge_order "no script output"; return; }
	local bad said
	# Compare as strings of digits: ns timestamps may exceed a double's 2^53.
	bad=$(awk '
	function lt(a, b) {
		if (length(a) != length(b)) return length(a) < length(b)
		return (a "") < (b "")
	}
	NR > 1 && lt($1, prev) { n++; if (!first) first = NR ": " prev " then " $1 }
	{ prev = $1 }
	END { print n + 0, first }' "$PP_SCRIPT")
	# A record that reaches its ring later than the merge's slack (a virtual
	# CPU descheduled between stamping and writing it) is passed on late:
	# tc must count every such one in its "out of order" figure.
	said=$(sed -n 's/.*, out of order \([0-9]*\).*/\1/p' "$PP_DIR/err")
	if [ "${bad%% *}" = "${said:-0}" ]; then
		pass record_merge_order
		[ "${bad%% *}" = 0 ] || note "record_merge_order: ${bad%% *} late record(s), counted by tc"
	else
		fail record_merge_order "time goes backwards ${bad%% *} times, tc counted ${said:-0}: ${bad#* }"
	fi
}

# Per CPU, each switch's prev_pid is the previous switch's next_pid, except
# after a lost record on that CPU. Some kernels never report the switch out of
# some tasks: a 6.18 Firecracker guest hides it for the idle task of CPU 1 and
# for its agent's threads, in ftrace as well as in perf. A pid that a CPU
# switches to but never from in the whole recording is such a task there, and
# a break right after a switch to it is the kernel's: counted apart, noted.
record_cpu_continuity() {
	pp_recording || { fail record_cpu_continuity "no script output"; return; }
	local res
	res=$(awk '
	function val(key,   i) {
		for (i = 4; i <= NF; i++)
			if (index($i, key "=") == 1) return substr($i, length(key) + 2)
		return ""
	}
	FNR == NR {
		if ($3 == "sched_switch") seen_out[$2, val("prev_pid")] = 1
		next
	}
	$3 == "lost" {
		if ($2 < 0) { for (c in last) delete last[c] } else delete last[$2]
		next
	}
	$3 == "sched_switch" {
		p = val("prev_pid")
		if (($2 in last) && last[$2] != p) {
			if (!(($2, last[$2]) in seen_out)) {
				hidden++
			} else {
				n++
				if (!first) first = "line " FNR " cpu " $2 ": prev_pid=" p " after next_pid=" last[$2]
			}
		}
		last[$2] = val("next_pid"); s++
	}
	END { print n + 0, s + 0, hidden + 0, first }' "$PP_SCRIPT" "$PP_SCRIPT")
	# shellcheck disable=SC2086
	set -- $res
	[ "$3" = 0 ] || note "$3 breaks after a switch to a task the kernel never reports leaving that CPU"
	if [ "$1" = 0 ] && [ "$2" -gt 0 ]; then
		pass record_cpu_continuity
	else
		fail record_cpu_continuity "$1 violations in $2 switches; first: ${*:4}"
	fi
}

record_perf_agrees() {
	if ! have_perf; then
		skip record_perf_agrees "perf is not installed"
		return
	fi
	pp_recording || [ "$(cat "$PP_DIR/rc")" = 0 ] || { fail record_perf_agrees "no recording"; return; }
	if ! timeout 120 perf script -i "$PP_DATA" >"$T/perf.script" 2>"$T/perf.err"; then
		fail record_perf_script "perf script failed: $(head -3 "$T/perf.err")"
	else
		pass record_perf_script
		# pingpong's comm must come from the file's COMM records.
		if grep -Eq '^ *pingpong +[0-9]+ ' "$T/perf.script"; then
			pass record_perf_comm
		else
			fail record_perf_comm "perf script shows no task named pingpong"
		fi
	fi
	if pp_recording &&
	   timeout 120 perf script -i "$PP_DATA" -F event >"$T/perf.ev" 2>/dev/null; then
		awk '{ sub(/:$/, "", $1); sub(/^[a-z_]+:/, "", $1); c[$1]++ }
		     END { for (e in c) print e, c[e] }' "$T/perf.ev" | sort >"$T/perf.count"
		# tc's tracepoint samples (side-band records comm/fork/exit/lost
		# are not samples in perf script).
		awk '$3 !~ /^(comm|fork|exit|lost)$/ { c[$3]++ }
		     END { for (e in c) print e, c[e] }' "$PP_SCRIPT" | sort >"$T/tc.count"
		if [ -s "$T/tc.count" ] && cmp -s "$T/perf.count" "$T/tc.count"; then
			pass record_perf_counts
		else
			fail record_perf_counts "per-event counts differ (perf | tc): $(diff "$T/perf.count" "$T/tc.count" | grep '^[<>]' | tr '\n' ' ')"
		fi
	else
		fail record_perf_counts "no script output to compare"
	fi
	if timeout 120 perf report --stats -i "$PP_DATA" >"$T/stats" 2>&1; then
		pass record_perf_report_stats
	else
		fail record_perf_report_stats "$(grep -v '^$' "$T/stats" | head -3)"
	fi
	if timeout 120 perf sched timehist -i "$PP_DATA" >"$T/timehist" 2>&1; then
		pass record_perf_sched_timehist
	else
		fail record_perf_sched_timehist "$(grep -v '^$' "$T/timehist" | head -3)"
	fi
	if timeout 120 perf timechart -i "$PP_DATA" -o "$T/out.svg" >"$T/tchart" 2>&1 &&
	   [ -s "$T/out.svg" ]; then
		pass record_perf_timechart
	else
		fail record_perf_timechart "$(grep -v '^$' "$T/tchart" | head -3)"
	fi
}

record_file_mode_and_old() {
	echo "old recording" >"$T/f"
	chmod 644 "$T/f"
	(umask 022; timeout 60 "$TC" --record "$T/f" -- true 2>"$T/err")
	local rc=$? mode
	mode=$(stat -c %a "$T/f" 2>/dev/null)
	if [ "$rc" = 0 ] && [ "$mode" = 600 ]; then
		pass record_file_mode
	else
		fail record_file_mode "exit status $rc, mode '$mode', want 600: $(head -3 "$T/err")"
	fi
	if [ "$(cat "$T/f.old" 2>/dev/null)" = "old recording" ] &&
	   ! grep -q '^old recording$' "$T/f"; then
		pass record_keeps_old
	else
		fail record_keeps_old "$T/f.old does not hold the previous file"
	fi
}

record_duration() {
	timeout 20 "$TC" --record "$T/f" -d 1 >"$T/out" 2>"$T/err"
	local rc=$?
	if [ "$rc" = 0 ] && [ -s "$T/f" ]; then
		pass record_duration
	else
		fail record_duration "exit status $rc (124: did not stop): $(head -3 "$T/err")"
	fi
}

# record_stop_signal SIG: tc --record -- sleep, SIG to tc after 1 s; tc
# ends, and so does everything it started.
record_stop_signal() {
	local sig=$1 name=record_stop_$1 tc kids left rc i
	# A background job of a script ignores SIGINT; give tc the default.
	env --default-signal=INT "$TC" --record "$T/f" -- sleep 987 >"$T/out" 2>"$T/err" &
	tc=$!
	reap_later "$tc"
	# Signal a running recording: once the command runs and events are
	# in the file.
	has_descendant "$tc" sleep 30 || note "no sleep under tc after 30 s"
	grows "$T/f" 30 || note "no events written to $T/f in 30 s"
	kids=$(descendants "$tc")
	# shellcheck disable=SC2086
	reap_later $kids
	kill "-$sig" "$tc"
	if ! wait_gone "$tc" 10; then
		fail "$name" "tc still running 10 s after SIG$sig"
		# shellcheck disable=SC2086
		kill_workload "$tc" $kids
		wait "$tc" 2>/dev/null
		return
	fi
	wait "$tc"
	rc=$?
	for ((i = 0; i < 30; i++)); do
		# shellcheck disable=SC2086
		left=$(alive $kids)
		[ -z "$left" ] && break
		nap 0.1
	done
	if [ -z "$kids" ]; then
		fail "$name" "tc started no command (exit status $rc: $(head -3 "$T/err"))"
	elif [ -n "$left" ]; then
		fail "$name" "outlived tc by 3 s: $(ps -o pid=,args= -p "${left//$'\n'/,}" | tr '\n' ';')"
		# shellcheck disable=SC2086
		kill_workload $left
	else
		pass "$name"
	fi
	note "tc exit status after SIG$sig: $rc"
	if have_perf; then
		if timeout 60 perf script -i "$T/f" >/dev/null 2>"$T/perf.err"; then
			pass "${name}_perf_reads"
		else
			fail "${name}_perf_reads" "perf script: $(head -3 "$T/perf.err")"
		fi
	fi
}
record_stop_sigterm() { record_stop_signal TERM; }
record_stop_sigint() { record_stop_signal INT; }

# The syncer (tc-sync, a child of tc that makes checkpoints durable) is
# not the workload: killed with tc, it finishes its checkpoint and exits at
# its pipe's end (record_crash_syncer_exits).
record_crash_repair() {
	local tc kids k c syncer= left n i
	"$TC" --record "$T/f" -- "$PINGPONG" 100000000 >"$T/out" 2>"$T/err" &
	tc=$!
	reap_later "$tc"
	has_descendant "$tc" pingpong 30 || note "no pingpong under tc after 30 s"
	grows "$T/f" 30 || note "no events written to $T/f in 30 s"
	kids=
	for k in $(descendants "$tc"); do
		read -r c 2>/dev/null <"/proc/$k/comm"
		if [ "$c" = tc-sync ]; then syncer=$k; else kids="$kids $k"; fi
	done
	# shellcheck disable=SC2086
	reap_later $kids $syncer
	kill -KILL "$tc"
	wait "$tc" 2>/dev/null
	if [ -z "$syncer" ]; then
		fail record_crash_syncer_exits "no tc-sync process under tc --record FILE"
	else
		for ((i = 0; i < 100; i++)); do
			[ -n "$(alive "$syncer")" ] || break
			nap 0.1
		done
		if [ -n "$(alive "$syncer")" ]; then
			fail record_crash_syncer_exits "tc-sync $syncer still runs 10 s after tc was killed"
			kill -KILL "$syncer"
		else
			pass record_crash_syncer_exits
		fi
	fi
	# shellcheck disable=SC2086
	left=$(alive $kids)
	if [ -n "$left" ]; then
		note "the workload survived SIGKILL of tc: $(ps -o pid=,args= -p "${left//$'\n'/,}" | tr '\n' ';'); killing it"
		# shellcheck disable=SC2086
		kill_workload $left
	fi
	if ! script "$T/f" "$T/script"; then
		fail record_crash_replay "tc --replay --script of a killed recording failed: $(head -3 "$T/script.err")"
	elif n=$(grep -c ' sched_switch ' "$T/script"); [ "$n" -gt 0 ]; then
		pass record_crash_replay
	else
		fail record_crash_replay "no sched_switch events in a killed recording"
	fi
	if have_perf; then
		if timeout 60 perf script -i "$T/f" >/dev/null 2>&1; then
			note "perf script reads the killed recording before repair"
		else
			note "perf script cannot read the killed recording before repair"
		fi
	fi
	if ! timeout 120 "$TC_SAN" --repair "$T/f" >"$T/out" 2>"$T/err"; then
		fail record_crash_repair "tc --repair failed: $(head -3 "$T/err")"
		return
	fi
	if [ ! -e "$T/f.old" ]; then
		fail record_crash_repair "no $T/f.old after --repair"
	elif ! have_perf; then
		skip record_crash_repair "perf is not installed"
	elif ! timeout 60 perf script -i "$T/f" >/dev/null 2>"$T/perf.err"; then
		fail record_crash_repair "perf script of the repaired file: $(head -3 "$T/perf.err")"
	elif ! timeout 60 perf report --stats -i "$T/f" >"$T/stats" 2>&1; then
		fail record_crash_repair "perf report --stats of the repaired file: $(head -3 "$T/stats")"
	else
		pass record_crash_repair
	fi
}

repair_killed_perf_record() {
	if ! have_perf; then
		skip repair_killed_perf_record "perf is not installed"
		return
	fi
	local n
	shared killed_perf killed_perf_make
	cp "$TMP/shared/killed_perf/p" "$T/p" || { fail repair_killed_perf_record "no killed perf record"; return; }
	if timeout 60 perf script -i "$T/p" >/dev/null 2>&1; then
		note "perf script reads the killed perf recording before repair"
	fi
	if ! timeout 120 "$TC_SAN" --repair "$T/p" >"$T/out" 2>"$T/err"; then
		fail repair_killed_perf_record "tc --repair failed: $(head -3 "$T/err")"
	elif ! timeout 60 perf script -i "$T/p" >"$T/script" 2>"$T/perf.err"; then
		fail repair_killed_perf_record "perf script of the repaired file: $(head -3 "$T/perf.err")"
	elif n=$(grep -c 'sched:sched_switch:' "$T/script"); [ "$n" -lt 1 ]; then
		fail repair_killed_perf_record "no sched_switch line after repair"
	elif ! grep -q 'sched:sched_stat_runtime:' "$T/script"; then
		fail repair_killed_perf_record "no sched_stat_runtime line after repair (its format not written?)"
	else
		pass repair_killed_perf_record
	fi
}

# Concurrency (run.sh): the ping-pong recording must hold all of
# pingpong's switches; its readers only read it.
test_class quiet record_exit_status record_exit_signal record_missing_command record_tty_command \
	record_script_format record_merge_order record_cpu_continuity \
	record_file_mode_and_old record_duration record_stop_sigterm record_stop_sigint
test_class exact record_pingpong
test_class busy record_perf_agrees record_crash_repair repair_killed_perf_record
shared_by pp exact record_pingpong record_script_format record_merge_order \
	record_cpu_continuity record_perf_agrees
shared_by killed_perf busy repair_killed_perf_record replay_killed_perf replay_script_left_out
kernel_tests record_exit_status record_exit_signal record_missing_command record_tty_command \
	record_pingpong record_script_format record_merge_order \
	record_cpu_continuity record_perf_agrees record_file_mode_and_old \
	record_duration record_stop_sigterm record_stop_sigint \
	record_crash_repair repair_killed_perf_record
