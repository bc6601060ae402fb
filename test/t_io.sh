# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# Tests of -I (I/O system calls), -P, -T and the -p/-C filters in record,
# replay and live mode, sourced by test/run.sh (see there for the helpers).
#
# test/iorw makes a known set of I/O calls (see test/iorw.c): 7 reads of
# 1000 bytes, 5 writes of 333, one read(-1) that fails with EBADF, one
# fsync, one poll with timeout 0. 15 calls, 7000 bytes read, 1665 written,
# 1 error. It is static: no dynamic loader reads before main, and glibc's
# static start-up makes none of the traced calls (strace shows brk,
# arch_prctl, set_tid_address, set_robust_list, rseq, prlimit64, readlink,
# getrandom, mprotect). So its --summary row must show exactly these.
#
# The helpers shared with the other t_*.sh files are in run.sh.

IORW=$ROOT/test/iorw
IO_EXP='15 7000 1665 1'		# io_calls read_bytes write_bytes io_errors

# io_stderr_bad ERRFILE: prints a sanitizer report or a stderr line that is
# not "tc: ...", if there is one.
io_stderr_bad() {
	grep -Em1 'Sanitizer|runtime error' "$1" || grep -vm1 '^tc: ' "$1"
}

# io_sum_rows SUMMARY: "tid pid comm" per task row of a --summary, then
# "cpu N" per CPU row (columns found by header name).
io_sum_rows() {
	awk -F'\t' '
	$0 == "" { next }
	$1 == "tid" { for (i = 1; i <= NF; i++) col[$i] = i; blk = "t"; next }
	$1 == "cpu" { blk = "c"; next }
	blk == "t" { print $col["tid"], $col["pid"], $col["comm"] }
	blk == "c" { print "cpu", $1 }' "$1"
}

# iorw_static: true if test/iorw has no program interpreter (is static).
iorw_static() {
	[ -x "$IORW" ] && ! LC_ALL=C readelf -l "$IORW" 2>/dev/null | grep -q 'INTERP'
}

# io_rows SUMMARY COMM: the task rows of a --summary whose comm is COMM, as
# "tid pid io_calls read_bytes write_bytes io_errors" (columns found by
# header name; a missing one prints as MISSING).
io_rows() {
	awk -F'\t' -v want="$2" '
	BEGIN { n = split("tid pid io_calls read_bytes write_bytes io_errors", w, " ") }
	$1 == "tid" { for (i = 1; i <= NF; i++) col[$i] = i; blk = 1; next }
	$1 == "cpu" || $0 == "" { blk = 0; next }
	blk && $col["comm"] == want {
		line = ""
		for (i = 1; i <= n; i++)
			line = line (i > 1 ? " " : "") (w[i] in col ? $col[w[i]] : "MISSING")
		print line
	}' "$1"
}

# sys_counts_tc SCRIPT PID: "EVENT COUNT" per sys_enter_X/sys_exit_X line
# of a tc --script whose pid= is PID, sorted.
sys_counts_tc() {
	awk -v p="pid=$2" '$3 ~ /^sys_(enter|exit)_/ && $4 == p { n[$3]++ }
	END { for (e in n) print e, n[e] }' "$1" | sort
}

# sys_counts_perf FILE PID: the same from perf script (without "syscalls:").
sys_counts_perf() {
	timeout 120 perf script -i "$1" -F pid,event 2>/dev/null |
	awk -v p="$2" '$1 == p && $2 ~ /^syscalls:sys_(enter|exit)_/ {
		e = $2; sub(/^syscalls:/, "", e); sub(/:$/, "", e); n[e]++ }
	END { for (e in n) print e, n[e] }' | sort
}

# io_pre_exec SCRIPT TID: the sys_enter/sys_exit lines of TID before its
# exec, as "EVENT ARG," ... These are not the command's: tc forks the
# command's process first and holds it in a read of a pipe (cmd_start) until
# the events are enabled, so that read's exit, and its entry too when the
# child gets there after enabling, is traced with the command's pid.
io_pre_exec() {
	awk -v p="pid=$2" -v c="tid=$2" '
	$3 == "comm" && $5 == c && $6 == "exec=1" { exit }
	$3 ~ /^sys_(enter|exit)_/ && $4 == p { print $3, $5 }' "$1" | tr '\n' ','
}

# The -I recording of iorw, made once (shared, run.sh) for io_exact and
# io_perf_reads, in $IO_DIR: io.data and tc's exit status (rc), stderr
# (err), tc-san's --summary (sum, sum.err, sum.rc) and --script (script).
IO_DIR=$TMP/shared/io IO_DATA=$TMP/shared/io/io.data IO_SCRIPT=$TMP/shared/io/script
io_make() {
	timeout 60 "$TC" --record "$1/io.data" -I -- "$IORW" "$1" >"$1/out" 2>"$1/err"
	echo $? >"$1/rc"
	[ "$(cat "$1/rc")" = 0 ] || return 1
	timeout 60 "$TC_SAN" --replay "$1/io.data" --summary >"$1/sum" 2>"$1/sum.err"
	echo $? >"$1/sum.rc"
	script "$1/io.data" "$1/script"
	return 0
}
# io_recording: 0 when the recording is there; sets IO_TID (empty unless
# the --summary has exactly one iorw row) and IO_ROWS (the iorw rows).
io_recording() {
	shared io io_make || return 1
	IO_ROWS=$(io_rows "$IO_DIR/sum" iorw)
	IO_TID=
	[ "$(echo "$IO_ROWS" | grep -c .)" = 1 ] && IO_TID=${IO_ROWS%% *}
	return 0
}

io_exact() {
	local rc rows got pre why
	if ! io_recording; then
		fail io_exact "tc --record -I -- iorw: exit status $(cat "$IO_DIR/rc") (iorw exits 1 when a call did not do what it should): $(head -3 "$IO_DIR/err")"
		return
	fi
	rc=$(cat "$IO_DIR/sum.rc")
	why=$(io_stderr_bad "$IO_DIR/sum.err")
	rows=$IO_ROWS
	if [ "$rc" != 0 ] || [ -n "$why" ]; then
		fail io_exact "--summary: exit status $rc $why: $(head -3 "$IO_DIR/sum.err")"
	elif [ -z "$IO_TID" ]; then
		fail io_exact "want one iorw row in the --summary, got: $(echo "$rows" | tr '\n' ';')"
	elif ! iorw_static; then
		skip io_exact "test/iorw is not static (no static libc): the dynamic loader's reads are not counted; row: $rows"
	else
		got=${rows#* * }
		if [ "$got" = "$IO_EXP" ]; then
			pass io_exact
		else
			pre=$(io_pre_exec "$IO_SCRIPT" "$IO_TID")
			fail io_exact "iorw (tid $IO_TID): io_calls read_bytes write_bytes io_errors = $got, want $IO_EXP${pre:+; calls of that pid before its exec (by tc itself, in the held child): $pre}"
		fi
	fi
	# perf, the independent reader, sees the same sys_enter/exit lines of
	# iorw's pid as tc --script (the held child's, before exec, included).
	if [ -z "$IO_TID" ]; then
		fail io_exact_perf_script "no iorw tid"
	elif ! have_perf; then
		skip io_exact_perf_script "perf is not installed"
	else
		sys_counts_tc "$IO_SCRIPT" "$IO_TID" >"$T/tc.counts"
		sys_counts_perf "$IO_DATA" "$IO_TID" >"$T/perf.counts"
		if iorw_static && ! grep -q '^sys_enter_read 8$' "$T/perf.counts" &&
		   ! grep -q '^sys_enter_read 9$' "$T/perf.counts"; then
			fail io_exact_perf_script "perf script: iorw's reads are not 8 (9 with the held child's): $(tr '\n' ' ' <"$T/perf.counts")"
		elif cmp -s "$T/tc.counts" "$T/perf.counts"; then
			pass io_exact_perf_script
		else
			fail io_exact_perf_script "pid $IO_TID: tc --script (<) vs perf script (>): $(diff "$T/tc.counts" "$T/perf.counts" | grep '^[<>]' | tr '\n' ';')"
		fi
	fi
}

# tc filters its own threads out of the syscalls events (a tracepoint filter
# set before enabling). Its own writes of the recording and its polls must
# not be in it; iorw's, run at the same time, must.
io_self_filtered() {
	local tcpid n_self n_iorw iorw_pid i
	"$TC" --record "$T/f" -I -d 2 >"$T/out" 2>"$T/err" &
	tcpid=$!
	reap_later "$tcpid"
	# the file is made just before enabling: once events are written to
	# it, they are on
	grows "$T/f" 30 || note "no events written to $T/f in 30 s"
	"$IORW" "$T" &
	iorw_pid=$!
	wait "$iorw_pid"
	if ! wait_gone "$tcpid" 30; then
		kill_workload "$tcpid"
		fail io_self_filtered "tc --record -I -d 2 did not stop"
		return
	fi
	if ! wait "$tcpid"; then
		fail io_self_filtered "tc --record -I -d 2 failed: $(head -3 "$T/err")"
		return
	fi
	script "$T/f" "$T/script"
	n_self=$(grep -Ec "^[0-9]+ -?[0-9]+ sys_(enter|exit)_[a-z0-9_]+ pid=$tcpid " "$T/script")
	n_iorw=$(grep -Ec "^[0-9]+ -?[0-9]+ sys_(enter|exit)_[a-z0-9_]+ pid=$iorw_pid " "$T/script")
	if [ "$n_self" != 0 ] || [ "$n_iorw" -lt 30 ]; then
		fail io_self_filtered "tc --script: $n_self syscalls events of tc (pid $tcpid), want 0; $n_iorw of iorw (pid $iorw_pid), want >= 30"
		return
	fi
	if have_perf; then
		n_self=$(timeout 120 perf script -i "$T/f" -F pid,event 2>/dev/null |
			 awk -v p="$tcpid" '$1 == p && $2 ~ /^syscalls:/' | grep -c .)
		n_iorw=$(timeout 120 perf script -i "$T/f" -F pid,event 2>/dev/null |
			 awk -v p="$iorw_pid" '$1 == p && $2 ~ /^syscalls:/' | grep -c .)
		if [ "$n_self" != 0 ] || [ "$n_iorw" -lt 30 ]; then
			fail io_self_filtered "perf script: $n_self syscalls events of tc (pid $tcpid), want 0; $n_iorw of iorw, want >= 30"
			return
		fi
	else
		note "perf is not installed: checked with tc --script only"
	fi
	pass io_self_filtered
}

# perf timechart draws the I/O of a tc -I recording; perf report reads it.
io_perf_reads() {
	io_recording || { fail io_perf_reads "no -I recording (see io_exact)"; return; }
	have_perf || { skip io_perf_reads "perf is not installed"; return; }
	local rc n pre
	# perf stretches short calls to --io-min-time and then merges the ones
	# that overlap: a box per call needs both at their least
	timeout 120 perf timechart --io-min-time 1ns --io-merge-dist 0 -i "$IO_DATA" -o "$T/out.svg" >"$T/tc.out" 2>"$T/tc.err"
	rc=$?
	n=$(grep -c 'class="disk"' "$T/out.svg" 2>/dev/null)
	if [ "$rc" != 0 ]; then
		pre=
		grep -q 'Invalid pidcomm' "$T/tc.err" && [ -n "$IO_TID" ] &&
			pre=$(io_pre_exec "$IO_SCRIPT" "$IO_TID")
		fail io_perf_reads "perf timechart: exit status $rc: $(head -2 "$T/tc.err" | tr '\n' ' ')${pre:+; the file has no COMM or FORK record of pid $IO_TID before its exec, and these events of it (by tc itself, in the held child): $pre}"
	elif [ "${n:-0}" -lt 12 ]; then
		fail io_perf_reads "perf timechart svg has ${n:-0} class=\"disk\" boxes, want >= 12 (iorw's 7 reads and 5 writes)"
	elif ! timeout 120 perf report --stats -i "$IO_DATA" >"$T/stats" 2>"$T/stats.err"; then
		fail io_perf_reads "perf report --stats failed: $(head -3 "$T/stats.err")"
	elif ! grep -q '^syscalls:sys_enter_read stats:' "$T/stats"; then
		fail io_perf_reads "perf report --stats shows no syscalls:sys_enter_read"
	else
		pass io_perf_reads
	fi
}

# tc reads perf timechart's own -I recordings: same program, same numbers.
io_from_perf_timechart_record() {
	have_perf || { skip io_from_perf_timechart_record "perf is not installed"; return; }
	iorw_static || { skip io_from_perf_timechart_record "test/iorw is not static"; return; }
	local rc rows
	# perf timechart record has no -o: it writes perf.data in the cwd.
	(cd "$T" && timeout 60 perf timechart record -I -- "$IORW" "$T") >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" != 0 ] || [ ! -s "$T/perf.data" ]; then
		if grep -q "unknown switch \`I'" "$T/err"; then
			skip io_from_perf_timechart_record "this perf timechart record has no -I"
		else
			fail io_from_perf_timechart_record "perf timechart record -I: exit status $rc: $(head -3 "$T/err")"
		fi
		return
	fi
	timeout 60 "$TC_SAN" --replay "$T/perf.data" --summary >"$T/sum" 2>"$T/sum.err"
	rc=$?
	rows=$(io_rows "$T/sum" iorw)
	if [ "$rc" != 0 ]; then
		fail io_from_perf_timechart_record "tc --replay --summary: exit status $rc: $(head -3 "$T/sum.err")"
	elif [ "$(echo "$rows" | grep -c .)" != 1 ]; then
		fail io_from_perf_timechart_record "want one iorw row, got: $(echo "$rows" | tr '\n' ';')"
	elif [ "${rows#* * }" = "$IO_EXP" ]; then
		pass io_from_perf_timechart_record
	else
		fail io_from_perf_timechart_record "iorw: io_calls read_bytes write_bytes io_errors = ${rows#* * }, want $IO_EXP"
	fi
}

# stats_events FILE: the tracepoints perf report --stats lists sample stats of.
stats_events() {
	timeout 120 perf report --stats -i "$1" 2>/dev/null |
		sed -n 's/^\([a-z_]*:[a-z_0-9]*\) stats:$/\1/p'
}

# evlist_events FILE: the events of the file's attributes (perf evlist).
evlist_events() {
	timeout 120 perf evlist -i "$1" 2>/dev/null | grep -v '^#'
}

# -P: the file has power events only, by its attributes (perf evlist) and by
# its samples (perf report --stats; a busy or cpuidle-less machine may have
# none in 1 s).
power_only_events() {
	have_perf || { skip power_only_events "perf is not installed"; return; }
	local rc ev ea
	timeout 30 "$TC" --record "$T/f" -P -d 1 >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" != 0 ]; then
		if grep -q 'no power:cpu_idle or power:cpu_frequency' "$T/err"; then
			skip power_only_events "this kernel has no power tracepoints"
		else
			fail power_only_events "tc --record -P: exit status $rc: $(head -3 "$T/err")"
		fi
		return
	fi
	ea=$(evlist_events "$T/f" | tr '\n' ' ')
	ev=$(stats_events "$T/f" | tr '\n' ' ')
	if [ -z "$ea" ] || echo "$ea" | tr ' ' '\n' | grep -v '^$' | grep -vq '^power:'; then
		fail power_only_events "perf evlist: '$ea', want power:* only"
	elif echo "$ev" | tr ' ' '\n' | grep -v '^$' | grep -vq '^power:'; then
		fail power_only_events "perf report --stats lists: $ev; want power:* only"
	else
		[ -n "$ev" ] || note "no power sample in 1 s (busy machine or no cpuidle): checked the attributes only"
		pass power_only_events
	fi
}

# -T: scheduler events, no power events, by attributes and by samples.
tasks_only_events() {
	have_perf || { skip tasks_only_events "perf is not installed"; return; }
	local rc ev ea
	timeout 30 "$TC" --record "$T/f" -T -d 1 >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" != 0 ]; then
		fail tasks_only_events "tc --record -T: exit status $rc: $(head -3 "$T/err")"
		return
	fi
	ea=$(evlist_events "$T/f" | tr '\n' ' ')
	ev=$(stats_events "$T/f" | tr '\n' ' ')
	if echo "$ea $ev" | grep -q 'power:'; then
		fail tasks_only_events "power events: perf evlist '$ea', perf report --stats '$ev'"
	elif ! echo "$ea" | grep -q 'sched:sched_switch'; then
		fail tasks_only_events "perf evlist has no sched:sched_switch: $ea"
	elif ! echo "$ev" | grep -q 'sched:sched_switch'; then
		fail tasks_only_events "perf report --stats has no sched:sched_switch samples: $ev"
	else
		pass tasks_only_events
	fi
}

# ---------------------------------------------------------------- filters

# The replay filters, on the shared recording of pingpong (t_record.sh).
filter_replay() {
	local pids p1 p2 rows bad
	pp_recording
	pids=$PP_PIDS
	if [ "$(cat "$PP_DIR/rc" 2>/dev/null)" != 0 ] || [ -z "$pids" ]; then
		fail filter_replay "tc --record -- pingpong: exit status $(cat "$PP_DIR/rc" 2>/dev/null): $(head -3 "$PP_DIR/err")"
		return
	fi
	read -r p1 p2 <<<"$pids"
	# -p NAME: pingpong's rows only, both of them.
	timeout 60 "$TC_SAN" --replay "$PP_DATA" --summary -p pingpong >"$T/s1" 2>"$T/e1"
	rows=$(io_sum_rows "$T/s1" | grep -v '^cpu ')
	bad=$(echo "$rows" | awk '$3 != "pingpong"')
	if [ -n "$bad" ] || ! echo "$rows" | grep -q "^$p1 " || ! echo "$rows" | grep -q "^$p2 "; then
		fail filter_replay_name "--summary -p pingpong (pids $p1 $p2) rows: $(echo "$rows" | head -5 | tr '\n' ';')"
	else
		pass filter_replay_name
	fi
	# -p PID: that pid's rows only.
	timeout 60 "$TC_SAN" --replay "$PP_DATA" --summary -p "$p1" >"$T/s2" 2>"$T/e2"
	rows=$(io_sum_rows "$T/s2" | grep -v '^cpu ')
	bad=$(echo "$rows" | awk -v p="$p1" '$1 != p && $2 != p')
	if [ -n "$bad" ] || ! echo "$rows" | grep -q "^$p1 "; then
		fail filter_replay_pid "--summary -p $p1 rows: $(echo "$rows" | head -5 | tr '\n' ';')"
	else
		pass filter_replay_pid
	fi
	# -C 1: the CPU block has cpu 1 only.
	if [ "$(nproc)" -lt 2 ]; then
		skip filter_replay_cpu "one CPU"
		return
	fi
	timeout 60 "$TC_SAN" --replay "$PP_DATA" --summary -C 1 >"$T/s3" 2>"$T/e3"
	rows=$(io_sum_rows "$T/s3" | awk '$1 == "cpu" { print $2 }' | tr '\n' ' ')
	if [ "$rows" = "1 " ] && ! grep -q '^tc: -C 1: the CPU rows are of these CPUs; the task rows are of every CPU' "$T/e3"; then
		fail filter_replay_cpu "stderr does not say the task rows are of every CPU: $(head -2 "$T/e3")"
	elif [ "$rows" = "1 " ]; then
		pass filter_replay_cpu
	else
		fail filter_replay_cpu "--summary -C 1 CPU block rows: '$rows', want '1 '"
	fi
}

# tc --record -C 0: only CPU 0's ring is recorded, and its replay knows.
filter_record_cpu() {
	local rc n bad
	# pinned to CPU 0, so that the traced CPU sees the workload whatever
	# the load elsewhere
	timeout 120 "$TC" --record "$T/f" -C 0 -- taskset -c 0 "$PINGPONG" 2000 >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" != 0 ]; then
		fail filter_record_cpu "tc --record -C 0: exit status $rc: $(head -3 "$T/err")"
		return
	fi
	script "$T/f" "$T/script"
	n=$(grep -c . "$T/script")
	bad=$(awk '$2 != 0' "$T/script" | head -3 | tr '\n' ';')
	if [ "$n" -lt 10 ] || [ -n "$bad" ]; then
		fail filter_record_cpu "tc --script: $n events, not on CPU 0: $bad"
		return
	fi
	if have_perf; then
		n=$(timeout 120 perf script -i "$T/f" -F cpu 2>/dev/null | grep -c .)
		bad=$(timeout 120 perf script -i "$T/f" -F cpu 2>/dev/null | grep -v '^ *\[000\]' | sort | uniq -c | tr '\n' ';')
		if [ "$n" -lt 10 ] || [ -n "$bad" ]; then
			fail filter_record_cpu "perf script -F cpu: $n samples, other CPUs: $bad"
			return
		fi
	fi
	# its CMDLINE says -C: a task off CPU 0 is unknown, not asleep or waiting
	timeout 60 "$TC" --replay "$T/f" --states >"$T/states" 2>"$T/err"
	bad=$(awk '$1 == "task" && $3 != "running" && $3 != "unknown" && $3 != "dead"' "$T/states" | head -2 | tr '\n' ';')
	if ! grep -q 'recorded on some CPUs (-C)' "$T/err" || [ -n "$bad" ]; then
		fail filter_record_cpu "replay of tc --record -C 0: $(head -c 200 "$T/err"), claimed off CPU 0: $bad"
		return
	fi
	pass filter_record_cpu
}

# live_screen NAME ARGS...: run tc --live ARGS -- pingpong 200000 in a
# private tmux server (120x40), wait until the view says pingpong exited,
# save the screen to $T/NAME.screen, quit with q. Returns 1 (and fails NAME)
# if something went wrong.
live_screen() {
	local name=$1 sock="tcio$BASHPID" i ok= pane kids left
	shift
	command -v tmux >/dev/null || { skip "$name" "tmux is not installed"; return 1; }
	# timeout --foreground: in a process group of its own (plain timeout),
	# tc would be stopped by SIGTTOU when it sets up the terminal.
	tmux -L "$sock" -f /dev/null new-session -d -x 120 -y 40 \
		"exec env LANG=C.UTF-8 timeout --foreground 120 $TC --live $* -- $PINGPONG 200000 2>$T/$name.err" ||
		{ fail "$name" "tmux new-session failed"; return 1; }
	for ((i = 0; i < 600; i++)); do
		tmux -L "$sock" capture-pane -p -t 0 >"$T/$name.screen" 2>/dev/null || break
		if grep -q 'pingpong exited' "$T/$name.screen"; then
			ok=1
			break
		fi
		nap 0.1
	done
	pane=$(tmux -L "$sock" display -p -t 0 '#{pane_pid}' 2>/dev/null)
	kids=$([ -n "$pane" ] && echo "$pane" && descendants "$pane")
	tmux -L "$sock" send-keys -t 0 q 2>/dev/null
	for ((i = 0; i < 50; i++)); do
		tmux -L "$sock" has-session 2>/dev/null || break
		nap 0.1
	done
	if tmux -L "$sock" has-session 2>/dev/null; then
		tmux -L "$sock" kill-server 2>/dev/null
		fail "$name" "q did not quit tc"
		return 1
	fi
	tmux -L "$sock" kill-server 2>/dev/null
	# (up to 3 s: one may still be exiting, as timeout was once in CI)
	for ((i = 0; i < 30; i++)); do
		# shellcheck disable=SC2086
		left=$(alive $kids)
		[ -z "$left" ] && break
		nap 0.1
	done
	if [ -n "$left" ]; then
		fail "$name" "left running after q: $(ps -o pid=,args= -p "${left//$'\n'/,}" | tr '\n' ';')"
		# shellcheck disable=SC2086
		kill_workload $left
		return 1
	fi
	if [ -z "$ok" ]; then
		fail "$name" "no 'pingpong exited' on the screen in 60 s: $(grep -v '^ *$' "$T/$name.screen" | head -3 | tr '\n' ';') $(head -2 "$T/$name.err")"
		return 1
	fi
}

filter_live_pid() {
	live_screen filter_live_pid -p pingpong || return
	# Task rows: "  TID NAME ..." (CPU rows start with "cpu").
	local rows bad
	rows=$(grep -E '^ *[0-9]+ [^ ]' "$T/filter_live_pid.screen" | grep -Ev '^pids ' | awk '{ print $1, $2 }')
	bad=$(echo "$rows" | awk '$2 != "pingpong"')
	if [ -z "$rows" ] || [ -n "$bad" ]; then
		fail filter_live_pid "task rows with -p pingpong: $(echo "$rows" | head -5 | tr '\n' ';')"
	else
		pass filter_live_pid
	fi
}

filter_live_cpu() {
	[ "$(nproc)" -ge 2 ] || { skip filter_live_cpu "one CPU"; return; }
	live_screen filter_live_cpu -C 1 || return
	local s=$T/filter_live_cpu.screen
	if grep -Eq '^cpu1( |$)' "$s" && ! grep -Eq '^cpu0( |$)' "$s"; then
		pass filter_live_cpu
	else
		fail filter_live_cpu "CPU rows with -C 1: $(grep -E '^cpu' "$s" | cut -c1-20 | tr '\n' ';')"
	fi
}

filter_cpu_malformed() {
	local rc
	timeout 10 "$TC" --record "$T/f" -C 3-1 -d 1 >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" != 1 ]; then
		fail filter_cpu_malformed "-C 3-1: exit status $rc, want 1"
	elif ! grep -q -- '3-1' "$T/err"; then
		fail filter_cpu_malformed "-C 3-1: no message naming it: $(head -2 "$T/err")"
	elif [ -e "$T/f" ]; then
		fail filter_cpu_malformed "-C 3-1: a recording was made"
	else
		pass filter_cpu_malformed
	fi
}

# Too few file descriptors: tc says how many it needs before recording.
# Expected: one fd per event per online CPU; events are the 8 sched
# tracepoints, the power ones the kernel has, both ends of every I/O call
# the kernel has, and the dummy event.
io_fd_limit() {
	local tfs rc k nev=9 ncpu need
	for tfs in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -d "$tfs/events/sched" ] && break
	done
	[ -d "$tfs/events/syscalls" ] || { skip io_fd_limit "no syscalls tracepoints"; return; }
	for k in cpu_idle cpu_frequency; do
		[ -d "$tfs/events/power/$k" ] && nev=$((nev + 1))
	done
	for k in read pread64 readv preadv recvfrom recvmmsg recvmsg write pwrite64 \
		 writev pwritev sendto sendmsg sendmmsg sync sync_file_range fsync \
		 fdatasync msync epoll_pwait epoll_wait poll ppoll pselect6 select; do
		[ -d "$tfs/events/syscalls/sys_enter_$k" ] && [ -d "$tfs/events/syscalls/sys_exit_$k" ] &&
			nev=$((nev + 2))
	done
	ncpu=$(grep -c . < <(tr ',' '\n' </sys/devices/system/cpu/online | awk -F- '{ for (i = $1; i <= ($2 == "" ? $1 : $2); i++) print i }'))
	need=$((nev * ncpu))
	(ulimit -n 40 && timeout 30 "$TC" --record "$T/f" -I -d 1) >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" != 1 ]; then
		fail io_fd_limit "ulimit -n 40: exit status $rc, want 1: $(head -2 "$T/err")"
	elif ! grep -qw -- "$need" "$T/err"; then
		fail io_fd_limit "message does not name $need file descriptors ($nev events x $ncpu CPUs): $(head -2 "$T/err")"
	elif [ -e "$T/f" ]; then
		fail io_fd_limit "a recording was left: $(ls -l "$T/f")"
	else
		pass io_fd_limit
	fi
}

# Concurrency (run.sh): the exact counts want every event of the machine's
# I/O calls (perf timechart record -I too); the filters and the live
# screens only their own tasks.
test_class exact io_exact io_self_filtered io_from_perf_timechart_record
test_class busy io_perf_reads filter_replay filter_record_cpu filter_live_pid filter_live_cpu
test_class quiet power_only_events tasks_only_events io_fd_limit filter_cpu_malformed
shared_by io exact io_exact io_perf_reads
shared_by pp exact filter_replay
kernel_tests io_exact io_self_filtered io_perf_reads io_from_perf_timechart_record \
	power_only_events tasks_only_events filter_replay filter_record_cpu \
	filter_live_pid filter_live_cpu io_fd_limit
run_tests filter_cpu_malformed
