# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# Issue 11, "nothing harmed, nothing left behind": what tc does to the
# output path, to the processes the command starts, and the errors it
# gives, sourced by test/run.sh (see there for the helpers). The view's
# cases (SIGCONT, q, the crafted file in the view) are in t_view.sh.

# Pids of processes whose command line is exactly $1.
harm_pids() { pgrep -fx "$1"; }

# harm_gone NAME PATTERN...: pass/fail NAME by whether no process runs any
# of the command lines given, within 5 s; kills the survivors.
harm_gone() {
	local name=$1 p left i
	shift
	for ((i = 0; i < 50; i++)); do
		left=''
		for p; do left="$left$(harm_pids "$p" | tr '\n' ' ')"; done
		[ -z "$left" ] && break
		nap 0.1
	done
	if [ -n "$left" ]; then
		# shellcheck disable=SC2086
		kill -KILL $left 2>/dev/null
		return 1
	fi
	return 0
}

# A device node, a FIFO, a symlink and a directory at the output path stay
# what they were; nothing is renamed to PATH.old or created beside them.
harm_output_paths() {
	local why='' out rc target
	mknod "$T/null" c 1 3 || { fail harm_output_paths "mknod failed"; return; }
	chmod 666 "$T/null"
	timeout 30 "$TC" --record "$T/null" -d 0.3 >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" != 0 ]; then
		why="--record onto a device node: exit status $rc: $(head -2 "$T/err")"
	elif [ "$(stat -c '%F %t:%T %a' "$T/null")" != "character special file 1:3 666" ]; then
		why="the device node became: $(stat -c '%F %t:%T %a' "$T/null")"
	fi
	# a FIFO: a stream in pipe mode, read by tc itself
	mkfifo "$T/fifo"
	timeout 60 cat "$T/fifo" >"$T/fifo.data" &
	timeout 30 "$TC" --record "$T/fifo" -d 0.5 >"$T/out" 2>"$T/err.fifo"
	rc=$?
	wait
	if [ -z "$why" ] && [ "$rc" != 0 ]; then
		why="--record onto a FIFO: exit status $rc: $(head -2 "$T/err.fifo")"
	elif [ -z "$why" ] && [ ! -p "$T/fifo" ]; then
		why="the FIFO became: $(stat -c %F "$T/fifo")"
	elif [ -z "$why" ] && ! timeout 60 "$TC" --replay "$T/fifo.data" --summary >"$T/fifo.sum" 2>&1; then
		why="tc --summary of what the FIFO carried: $(head -2 "$T/fifo.sum")"
	fi
	# a symlink and a directory: refused, left alone
	echo target >"$T/target"
	ln -s target "$T/link"
	mkdir "$T/dir"
	for target in link dir; do
		timeout 30 "$TC" --record "$T/$target" -d 0.3 >"$T/out" 2>"$T/err.$target"
		rc=$?
		if [ -n "$why" ]; then
			break
		elif [ "$rc" = 0 ]; then
			why="--record onto a $target succeeded"
		elif ! grep -q "$target" "$T/err.$target" || ! grep -Eq 'symbolic link|directory' "$T/err.$target"; then
			why="--record onto a $target: unclear error: $(head -2 "$T/err.$target")"
		fi
	done
	if [ -z "$why" ] && { [ ! -L "$T/link" ] || [ "$(readlink "$T/link")" != target ] ||
			      [ "$(cat "$T/target")" != target ] || [ ! -d "$T/dir" ]; }; then
		why="the symlink, its target or the directory changed: $(ls -l "$T" | tr '\n' ';')"
	fi
	out=$(ls "$T" | grep -E '\.old$')
	[ -z "$why" ] && [ -n "$out" ] && why="renamed: $out"
	if [ -n "$why" ]; then fail harm_output_paths "$why (files in $T)"; else pass harm_output_paths; fi
}

# tc --record - is perf's pipe mode on standard output: perf script reads
# it from a pipe, tc --summary reads it saved. perf sched timehist of perf
# 6.1 does not read pipe mode (perf record -o - neither): noted, not failed.
harm_record_stdout() {
	if ! have_perf; then
		skip harm_record_stdout "perf is not installed"
		return
	fi
	local n
	timeout 60 "$TC" --record - -d 1 2>"$T/err" | tee "$T/stream" |
		timeout 60 perf script -i - >"$T/script" 2>"$T/perf.err"
	n=$(grep -c 'sched:sched_switch:' "$T/script")
	if [ "$(head -c 8 "$T/stream")" != PERFILE2 ]; then
		fail harm_record_stdout "the stream does not start with PERFILE2: $(head -2 "$T/err")"
	elif [ "$n" -lt 1 ]; then
		fail harm_record_stdout "perf script -i - shows no sched_switch: $(head -3 "$T/perf.err") (files in $T)"
	elif ! timeout 60 "$TC_SAN" --replay "$T/stream" --summary >"$T/sum" 2>"$T/sum.err"; then
		fail harm_record_stdout "tc --summary of the stream: $(head -3 "$T/sum.err")"
	else
		pass harm_record_stdout
	fi
	if timeout 60 perf sched timehist -i - <"$T/stream" >"$T/th" 2>&1 && grep -q '^ *[0-9]' "$T/th"; then
		note "perf sched timehist -i - reads the stream"
	else
		note "perf sched timehist -i - does not read it: $(head -1 "$T/th")"
	fi
	rm -f "$T/stream"
}

# harm_orphans_record NAME HOW: tc --record of a command that leaves a
# member of its group that ignores SIGTERM and a setsid daemon; ended by
# HOW (-d, SIGTERM, SIGINT, SIGHUP, or exit: the command ends on its own
# with 5).
# Afterwards none of them runs, and the exit status is 0 when tc ended the
# command, 5 when it ended on its own.
harm_orphans_record() {
	local name=$1 how=$2 tc rc i want=0 a=$((3100 + TEST_SEQ % 800)) lead='sleep 100' args=()
	local b=$((a + 1000))
	[ "$how" = exit ] && lead='sleep 1; exit 5'
	[ "$how" = -d ] && args=(-d 1)
	env --default-signal=INT,HUP "$TC" --record "$T/f" "${args[@]}" -- sh -c \
		"(trap '' TERM; exec sleep $a) & setsid sleep $b & $lead" >"$T/out" 2>"$T/err" &
	tc=$!
	reap_later "$tc"
	has_descendant "$tc" sleep 30 || note "no sleep under tc after 30 s"
	case $how in
	SIG*)	# signalled once both run (the first ignores SIGTERM from its exec on)
		for ((i = 0; i < 100; i++)); do
			[ "$(pgrep -cfx "sleep ($a|$b)")" = 2 ] && break
			nap 0.1
		done
		kill -s "${how#SIG}" "$tc" ;;
	exit) want=5 ;;
	esac
	if ! wait_gone "$tc" 20; then
		fail "$name" "tc still running 20 s after $how"
		kill_workload "$tc"
		harm_gone "$name" "sleep $a" "sleep $b"
		return
	fi
	wait "$tc"
	rc=$?
	if ! harm_gone "$name" "sleep $a" "sleep $b"; then
		fail "$name" "a process outlived tc ($how)"
	elif [ "$rc" != "$want" ]; then
		fail "$name" "exit status $rc, want $want: $(head -3 "$T/err")"
	else
		pass "$name"
	fi
}
harm_orphans_duration() { harm_orphans_record harm_orphans_duration -d; }
harm_orphans_sigterm() { harm_orphans_record harm_orphans_sigterm SIGTERM; }
harm_orphans_sigint() { harm_orphans_record harm_orphans_sigint SIGINT; }
harm_orphans_sighup() { harm_orphans_record harm_orphans_sighup SIGHUP; }
harm_orphans_exit() { harm_orphans_record harm_orphans_exit exit; }
# signals whose default would end tc at once (the terminal raw, the
# command's children left running): they stop it as SIGTERM does
harm_orphans_sigusr1() { harm_orphans_record harm_orphans_sigusr1 SIGUSR1; }
harm_orphans_sigalrm() { harm_orphans_record harm_orphans_sigalrm SIGALRM; }

# nohup: tc started ignoring SIGHUP keeps ignoring it, and so does its
# command: a SIGHUP (the terminal closed) ends neither; the recording ends
# with the command, which ran to its end.
harm_nohup() {
	local tc rc
	env --ignore-signal=HUP "$TC" --record "$T/f" -- sh -c 'sleep 1.5; grep SigIgn /proc/self/status' \
		>"$T/out" 2>"$T/err" &
	tc=$!
	reap_later "$tc"
	has_descendant "$tc" sleep 30 || note "no sleep under tc after 30 s"
	kill -HUP "$tc"
	wait "$tc"
	rc=$?
	# SigIgn is hex: bit 0 is SIGHUP
	if [ "$rc" != 0 ] || ! grep -Eq '^SigIgn:.*[13579bdf]$' "$T/out"; then
		fail harm_nohup "exit status $rc, the command's $(cat "$T/out"): $(tail -c 200 "$T/err")"
	else
		pass harm_nohup
	fi
}

# A recorder told to stop while its stream's reader reads nothing (here a
# FIFO's reader that never reads: the pipe is full and tc blocked in a
# write) stops all the same, STOP_WAIT_MS later: exit status 1, a note
# that says why, its command ended.  It used to wait for the reader for
# ever, the command running on.
harm_stopped_reader() {
	local tc r rc i cmd
	mkfifo "$T/p"
	sleep 600 <"$T/p" &
	r=$!
	"$TC" --record - -- sh -c 'while :; do /bin/true; done' >"$T/p" 2>"$T/err" &
	tc=$!
	reap_later "$tc" "$r"
	for ((i = 0; i < 300; i++)); do
		grep -q pipe_write "/proc/$tc/wchan" 2>/dev/null && break
		nap 0.1
	done
	cmd=$(descendants "$tc")
	kill -TERM "$tc"
	for ((i = 0; i < 300; i++)); do
		[ -n "$(alive "$tc")" ] || break
		nap 0.1
	done
	if [ -n "$(alive "$tc")" ]; then
		fail harm_stopped_reader "tc still blocked in $(cat "/proc/$tc/wchan") 30 s after SIGTERM"
		return
	fi
	wait "$tc"
	rc=$?
	{ kill "$r" && wait "$r"; } 2>/dev/null
	if [ "$rc" != 1 ] || ! grep -q "took nothing for 2 s" "$T/err"; then
		fail harm_stopped_reader "exit status $rc: $(tail -c 300 "$T/err")"
	elif [ -z "$cmd" ] || [ -n "$(alive $cmd)" ]; then
		fail harm_stopped_reader "the command ($cmd) outlived tc: $(alive $cmd)"
	else
		pass harm_stopped_reader
	fi
}

# tc killed outright (SIGKILL: none of its code runs) while recording a
# command that started more: its guard ends the command's group (the
# command itself dies of PDEATHSIG), so nothing it started outlives tc.
# Before the guard, the background sleep lived on.
harm_sigkill_record() {
	local tc i
	"$TC" --record "$T/f" -- sh -c "sleep 3100$TEST_SEQ & sleep 3200$TEST_SEQ; wait" >"$T/out" 2>"$T/err" &
	tc=$!
	reap_later "$tc"
	has_descendant "$tc" sleep 30 || note "no sleep under tc after 30 s"
	nap 0.3
	kill -KILL "$tc"
	wait "$tc" 2>/dev/null
	for ((i = 0; i < 100; i++)); do
		[ -z "$(pgrep -f "^sleep 3[12]00$TEST_SEQ\$")" ] && break
		nap 0.1
	done
	if [ -n "$(pgrep -f "^sleep 3[12]00$TEST_SEQ\$")" ]; then
		fail harm_sigkill_record "10 s after tc's SIGKILL, still running: $(pgrep -af "^sleep 3[12]00$TEST_SEQ\$" | tr '\n' ' ')"
		pkill -f "^sleep 3[12]00$TEST_SEQ\$"
	else
		pass harm_sigkill_record
	fi
}

# Under sudo (SUDO_UID/SUDO_GID), the recording belongs to that user,
# mode 0600, and that user can replay it.
harm_sudo_owner() {
	local st d
	d=$(mktemp -d /tmp/tc-sudo.XXXXXX) && chmod 755 "$d"
	SUDO_UID=65534 SUDO_GID=65534 timeout 30 "$TC" --record "$d/f" -d 0.3 >"$T/out" 2>"$T/err"
	st=$(stat -c '%u:%g %a' "$d/f" 2>/dev/null)
	if [ "$st" != "65534:65534 600" ]; then
		fail harm_sudo_owner "owner and mode '$st', want '65534:65534 600': $(head -2 "$T/err")"
	elif ! setpriv --reuid=65534 --regid=65534 --clear-groups \
		timeout 60 "$TC" --replay "$d/f" --summary >"$T/sum" 2>"$T/sum.err"; then
		fail harm_sudo_owner "uid 65534 cannot replay it: $(head -2 "$T/sum.err")"
	else
		pass harm_sudo_owner
	fi
	rm -rf "$d"
}

# A path so long that PATH.old does not fit in PATH_MAX: tc refuses and the
# existing file is kept whole (it was kept as PATH.ol).
harm_long_path() {
	local d=$T p rc
	while [ ${#d} -lt 3840 ]; do d=$d/$(printf 'd%.0s' {1..200}); done
	mkdir -p "$d" || { skip harm_long_path "cannot make a ${#d}-character directory"; return; }
	p=$d/$(printf 'f%.0s' $(seq 1 $((4092 - ${#d} - 1))))
	echo kept >"$p" || { skip harm_long_path "cannot create a 4092-character path"; return; }
	timeout 30 "$TC" --record "$p" -d 0.2 >"$T/out" 2>"$T/err"
	rc=$?
	if [ "$rc" = 0 ]; then
		fail harm_long_path "tc recorded to a ${#p}-character path whose .old does not fit"
	elif [ "$(cat "$p")" != kept ] || ls "$d" | grep -q '\.ol'; then
		fail harm_long_path "the existing file was not kept whole: $(ls "$d" | cut -c1-20 | tr '\n' ' ')"
	elif ! grep -q 'too long' "$T/err"; then
		fail harm_long_path "unclear error: $(head -2 "$T/err" | cut -c1-200)"
	else
		pass harm_long_path
	fi
}

# --repair: a complete file is left as it is; repairing a cut-off file
# keeps the original as .old, a second repair never overwrites it; a repair
# that cannot be written (full disk) leaves no FILE.repair and the file as
# it was; perf's own features survive the repair of a perf file.
harm_repair() {
	local why='' sz
	timeout 30 "$TC" --record "$T/f" -d 0.5 >"$T/out" 2>&1
	cp "$T/f" "$T/complete"
	timeout 60 "$TC_SAN" --repair "$T/f" >"$T/out" 2>"$T/err.1"
	if ! cmp -s "$T/f" "$T/complete" || [ -e "$T/f.old" ]; then
		why="a complete file was rewritten: $(head -2 "$T/err.1")"
	elif ! grep -q complete "$T/err.1"; then
		why="no 'complete' note: $(head -2 "$T/err.1")"
	fi
	sz=$(stat -c %s "$T/f")
	truncate -s $((sz - 100)) "$T/f"
	cp "$T/f" "$T/cut"
	timeout 60 "$TC_SAN" --repair "$T/f" >"$T/out" 2>"$T/err.2"
	if [ -z "$why" ] && ! cmp -s "$T/f.old" "$T/cut"; then
		why="the first repair did not keep the original as f.old: $(head -2 "$T/err.2")"
	fi
	truncate -s $((sz - 300)) "$T/f"
	timeout 60 "$TC_SAN" --repair "$T/f" >"$T/out" 2>"$T/err.3"
	if [ -z "$why" ] && ! cmp -s "$T/f.old" "$T/cut"; then
		why="a second repair overwrote f.old: $(head -2 "$T/err.3")"
	elif [ -z "$why" ] && ! grep -q 'f.old exists' "$T/err.3"; then
		why="the second repair does not say why it stops: $(head -2 "$T/err.3")"
	fi
	if [ -n "$why" ]; then fail harm_repair "$why (files in $T)"; else pass harm_repair; fi
	harm_repair_full_disk
	harm_repair_perf_features
}

harm_repair_full_disk() {
	local m=$T/mnt sz
	mkdir -p "$m"
	sz=$(stat -c %s "$T/cut")
	if ! mount -t tmpfs -o size=$((sz + 16384)) tmpfs "$m" 2>"$T/mount.err"; then
		skip harm_repair_full_disk "cannot mount a small tmpfs: $(head -1 "$T/mount.err")"
		return
	fi
	cp "$T/cut" "$m/f"
	timeout 60 "$TC_SAN" --repair "$m/f" >"$T/out" 2>"$T/err.full"
	if [ -e "$m/f.repair" ]; then
		fail harm_repair_full_disk "f.repair left behind ($(stat -c %s "$m/f.repair") bytes)"
	elif ! cmp -s "$m/f" "$T/cut"; then
		fail harm_repair_full_disk "the file changed"
	elif ! grep -q 'No space left' "$T/err.full"; then
		fail harm_repair_full_disk "no 'No space left' error: $(head -2 "$T/err.full")"
	else
		pass harm_repair_full_disk
	fi
	umount "$m"
}

# A perf file whose last record is broken: the repair keeps perf's cmdline,
# CPU and event description features.
harm_repair_perf_features() {
	if ! have_perf; then
		skip harm_repair_perf_features "perf is not installed"
		return
	fi
	local off size last h1 h2
	perf record -q -e sched:sched_switch -a -o "$T/p" -- sleep 0.3 >/dev/null 2>&1
	read -r off size < <(od -An -t u8 -j 40 -N 16 "$T/p")
	# walk 100 records into the data (one od, in awk) and give that one size 3
	last=$(od -An -v -t u1 -j "$off" -N 65536 "$T/p" | tr -s ' ' '\n' | grep -v '^$' | awk '
		{ b[NR - 1] = $1 } END {
			o = 0
			for (n = 0; n < 100 && o + 8 <= NR; n++) {
				s = b[o + 6] + 256 * b[o + 7]
				if (s < 8 || o + s + 8 > NR) break
				o += s
			}
			print o }')
	printf '\003\000' | dd of="$T/p" bs=1 seek=$((off + last + 6)) conv=notrunc 2>/dev/null
	h1=$(perf report --header-only -i "$T/p" 2>/dev/null | grep -E '^# (cmdline|cpudesc|event) ')
	timeout 60 "$TC_SAN" --repair "$T/p" >"$T/out" 2>"$T/err.p"
	h2=$(perf report --header-only -i "$T/p" 2>/dev/null | grep -E '^# (cmdline|cpudesc|event) ')
	if [ ! -e "$T/p.old" ]; then
		fail harm_repair_perf_features "not repaired: $(head -2 "$T/err.p")"
	elif [ -z "$h1" ] || [ "$h1" != "$h2" ]; then
		fail harm_repair_perf_features "features before: '$h1' after: '$h2'"
	elif ! timeout 60 perf script -i "$T/p" >/dev/null 2>"$T/perf.err"; then
		fail harm_repair_perf_features "perf script of the repaired file: $(head -2 "$T/perf.err")"
	else
		pass harm_repair_perf_features
	fi
}

# Errors that say what is wrong and what to do.

# as uid 65534 with tracefs mode 0700: says it is not readable, and how.
harm_err_tracefs_unreadable() {
	local mode
	mode=$(stat -c %a /sys/kernel/tracing 2>/dev/null)
	if [ "$mode" != 700 ]; then
		skip harm_err_tracefs_unreadable "tracefs is mode '$mode' here, not 700"
		return
	fi
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		timeout 30 "$TC" --record "$T/rec" -d 0.2 >"$T/out" 2>"$T/err"
	if grep -q 'not found' "$T/err" || ! grep -q 'cannot read it' "$T/err" || ! grep -q 'mode=755' "$T/err"; then
		fail harm_err_tracefs_unreadable "$(head -2 "$T/err")"
	else
		pass harm_err_tracefs_unreadable
	fi
}

# tracefs absent: in a mount namespace without it, and without the right to
# mount it.
harm_err_tracefs_absent() {
	if ! unshare -m true 2>/dev/null; then
		skip harm_err_tracefs_absent "no mount namespaces (unshare -m)"
		return
	fi
	# (debugfs mounted, as systemd does, mounts tracefs again under it when
	# its tracing is looked at: it goes too)
	unshare -m sh -c 'umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug/tracing 2>/dev/null
		umount -l /sys/kernel/debug 2>/dev/null
		exec setpriv --bounding-set=-sys_admin "$0" --record "$1" -d 0.2' "$TC" "$T/rec" >"$T/out" 2>"$T/err"
	if ! grep -q 'tracefs is not mounted' "$T/err" || ! grep -q 'mount -t tracefs' "$T/err"; then
		fail harm_err_tracefs_absent "$(head -2 "$T/err")"
	else
		pass harm_err_tracefs_absent
	fi
}

# A root without capabilities is an ordinary user to perf_event_open.
harm_noroot() {
	setpriv --securebits=+noroot,+noroot_locked,+no_setuid_fixup --bounding-set=-all \
		--inh-caps=-all "$@"
}

harm_err_paranoid() {
	local p
	p=$(cat /proc/sys/kernel/perf_event_paranoid)
	if [ "$p" -lt 0 ]; then
		skip harm_err_paranoid "perf_event_paranoid is $p here"
		return
	fi
	harm_noroot timeout 30 "$TC" --record "$T/rec" -d 0.2 >"$T/out" 2>"$T/err"
	if ! grep -q "perf_event_paranoid (now $p) to -1" "$T/err"; then
		fail harm_err_paranoid "$(head -2 "$T/err")"
	else
		pass harm_err_paranoid
	fi
}

# ulimit -n 5: says what is short (not a kernel without tracepoints); at
# 12 it names the real number N: N - 1 is refused, with N it records.
harm_err_fd_limit() {
	local need
	(ulimit -n 5; timeout 30 "$TC" --record "$T/rec" -d 0.2 >"$T/out" 2>"$T/err.5")
	if grep -q 'tracepoint' "$T/err.5" || ! grep -q 'ulimit -n [0-9]' "$T/err.5"; then
		fail harm_err_fd_limit "ulimit -n 5: $(head -2 "$T/err.5")"
		return
	fi
	(ulimit -n 12; timeout 30 "$TC" --record "$T/rec" -d 0.2 -- true >"$T/out" 2>"$T/err.12")
	need=$(sed -n 's/.*ulimit -n \([0-9]*\).*/\1/p' "$T/err.12" | head -1)
	if [ -z "$need" ]; then
		fail harm_err_fd_limit "ulimit -n 12: $(head -2 "$T/err.12")"
	elif (ulimit -n $((need - 1)); timeout 30 "$TC" --record "$T/rec" -d 0.2 -- true >"$T/out" 2>"$T/err.short"); then
		fail harm_err_fd_limit "ulimit -n $((need - 1)) was not refused, so $need is not the real need"
	elif ! (ulimit -n "$need"; timeout 30 "$TC" --record "$T/rec" -d 0.2 -- true >"$T/out" 2>"$T/err.need"); then
		fail harm_err_fd_limit "ulimit -n $need, the number tc asked for, fails: $(head -2 "$T/err.need")"
	else
		pass harm_err_fd_limit
		note "harm_err_fd_limit: $(head -1 "$T/err.12")"
	fi
}

# The ring: too big for memory (ENOMEM) vs over the mlock limit (EPERM).
harm_err_ring() {
	timeout 30 "$TC" --record "$T/rec" -m 1048576 -d 0.2 >"$T/out" 2>"$T/err.nomem"
	if ! grep -q 'not enough memory' "$T/err.nomem" || grep -q mlock "$T/err.nomem"; then
		fail harm_err_ring_enomem "$(head -2 "$T/err.nomem")"
	else
		pass harm_err_ring_enomem
	fi
	# EPERM: over perf_event_mlock_kb, as root without CAP_IPC_LOCK
	(ulimit -l 0; setpriv --bounding-set=-ipc_lock \
		timeout 30 "$TC" --record "$T/rec" -m 4096 -d 0.2 >"$T/out" 2>"$T/err.mlock")
	if ! grep -q 'over the locked-memory limit' "$T/err.mlock" || grep -q 'not enough memory' "$T/err.mlock"; then
		fail harm_err_ring_mlock "$(head -2 "$T/err.mlock")"
	else
		pass harm_err_ring_mlock
	fi
}

# -C naming no online CPU names the online ones.
harm_err_cpulist() {
	local on
	on=$(cat /sys/devices/system/cpu/online)
	timeout 30 "$TC" --record "$T/rec" -C 4000 -d 0.2 >"$T/out" 2>"$T/err"
	# CPUs that are not here: one line for them all (it was one a CPU)
	timeout 30 "$TC" --record "$T/rec2" -C "0-$(($(nproc) + 61))" -d 0.2 >"$T/out" 2>"$T/err2"
	timeout 30 "$TC" --record "$T/rec3" -C 0-5000 -d 0.2 >"$T/out" 2>"$T/err3"
	if ! grep -qF "online CPUs are $on" "$T/err"; then
		fail harm_err_cpulist "$(head -2 "$T/err")"
	elif [ "$(grep -c -- '-C: ' "$T/err2")" != 1 ] ||
	     ! grep -qE -- "-C: [0-9]+ of its CPUs \([0-9]+ and up\) are not here" "$T/err2"; then
		fail harm_err_cpulist "-C 0-$(($(nproc) + 61)): $(grep -c -- '-C: ' "$T/err2") lines, want one: $(head -2 "$T/err2")"
	elif ! grep -qF -- "-C 0-5000: CPU numbers go up to 4095" "$T/err3"; then
		fail harm_err_cpulist "-C 0-5000: $(head -2 "$T/err3")"
	else
		pass harm_err_cpulist
	fi
}

# Concurrency (run.sh): short recordings of no workload, errors, and
# processes found by their own command lines.
test_class quiet harm_output_paths harm_orphans_duration harm_orphans_sigterm harm_orphans_sigint \
	harm_orphans_sighup harm_orphans_exit harm_orphans_sigusr1 harm_orphans_sigalrm harm_nohup harm_sigkill_record harm_sudo_owner \
	harm_long_path harm_err_tracefs_unreadable harm_err_tracefs_absent harm_err_paranoid harm_err_fd_limit \
	harm_err_ring harm_err_cpulist
test_class busy harm_record_stdout harm_repair harm_stopped_reader
kernel_tests harm_output_paths harm_record_stdout harm_orphans_duration \
	harm_orphans_sigterm harm_orphans_sigint harm_orphans_sighup harm_orphans_exit harm_orphans_sigusr1 \
	harm_orphans_sigalrm harm_nohup harm_stopped_reader harm_sigkill_record harm_sudo_owner \
	harm_long_path harm_repair harm_err_tracefs_unreadable harm_err_tracefs_absent \
	harm_err_paranoid harm_err_fd_limit harm_err_ring harm_err_cpulist
