# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# Tests of what keeps tc's reader ahead of an overloaded machine: -r (the
# reader at SCHED_FIFO), the raise without -r (SCHED_DEADLINE), the
# default ring size, lost events said per CPU.
# Sourced by test/run.sh (see there for the helpers).  Timing is never
# asserted: make bench measures lost events and slowdowns under load.

# -r 5: tc runs SCHED_FIFO 5 and the command it starts does not (reset on
# fork); both as the kernel reports them in /proc/PID/sched.
realtime_fifo() {
	local why=
	timeout 30 "$TC" --record "$T/f" -r 5 -- sh -c "grep -E '^(policy|prio) ' /proc/\$PPID/sched >$T/tc.sched;
		grep -E '^(policy|prio) ' /proc/\$\$/sched >$T/cmd.sched" >"$T/out" 2>"$T/err"
	if ! grep -Eq '^policy +: +1$' "$T/tc.sched" || ! grep -Eq '^prio +: +94$' "$T/tc.sched"; then
		why="tc is not SCHED_FIFO 5: $(tr '\n' ' ' <"$T/tc.sched" 2>/dev/null) $(head -2 "$T/err")"
	elif ! grep -Eq '^policy +: +0$' "$T/cmd.sched"; then
		why="the command inherited tc's policy: $(tr '\n' ' ' <"$T/cmd.sched")"
	fi
	if [ -n "$why" ]; then fail realtime_fifo "$why"; else pass realtime_fifo; fi
}

# -r without the right to it (root without CAP_SYS_NICE, ulimit -r 0) is an
# error that says what to do, before anything is recorded; out of range
# it names the bounds.
realtime_denied() {
	local why= e
	command -v setpriv >/dev/null || { skip realtime_denied "setpriv missing (util-linux)"; return; }
	e=$(ulimit -r 0; setpriv --bounding-set=-sys_nice "$TC" --record "$T/denied" -r 10 -d 0.2 2>&1) &&
		why="-r 10 without CAP_SYS_NICE accepted"
	case $e in
	"tc: -r 10: SCHED_FIFO is not permitted"*"CAP_SYS_NICE"*"ulimit -r (now 0) to 10") ;;
	*) why=${why:-"without CAP_SYS_NICE: $e"} ;;
	esac
	[ -z "$why" ] && [ -s "$T/denied" ] && why="a refused -r left a recording"
	e=$("$TC" --record "$T/f" -r 100 2>&1) && why=${why:-"-r 100 accepted"}
	[ -z "$why" ] && [ "$e" != "tc: -r 100: a whole number from 0 to 99 is needed" ] && why="-r 100: $e"
	if [ -n "$why" ]; then fail realtime_denied "$why"; else pass realtime_denied; fi
}

# Without -m the rings are a 512th of the memory per CPU, a power of two
# of pages from 128 KiB to 2 MiB, and the account says the size.
ring_default() {
	local kib want ncpu mem page
	timeout 30 "$TC" --record "$T/f" -d 0.2 >"$T/out" 2>"$T/err"
	kib=$(sed -n 's/.*rings \([0-9]*\) KiB a CPU.*/\1/p' "$T/err")
	ncpu=$(grep -c '^processor' /proc/cpuinfo)
	mem=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
	page=$(($(getconf PAGESIZE) / 1024))
	want=$(awk -v m="$mem" -v n="$ncpu" -v p="$page" 'BEGIN { w = m / n / 512; if (w > 2048) w = 2048
		k = p; while (k * 2 <= w) k *= 2; if (k < 128) k = 128; print k }')
	if [ "$kib" = "$want" ]; then
		pass ring_default
	else
		fail ring_default "rings of $kib KiB a CPU, want $want ($mem KiB on $ncpu CPUs): $(tail -1 "$T/err")"
	fi
}

# Lost events are said per CPU with when they were lost, in the account of
# the recording and of its replay: a ring of one page and a burst of
# messages lose some.
lost_per_cpu() {
	local why= n
	timeout 60 "$TC" --record "$T/f" -m 1 -r 0 -- perf bench sched messaging -g 2 -l 100 >/dev/null 2>"$T/err" ||
		{ have_perf || { skip lost_per_cpu "perf is not installed (the burst is perf bench)"; return; }; }
	n=$(sed -n 's/.*, lost \([0-9]*\).*/\1/p' "$T/err")
	if [ -z "$n" ] || [ "$n" = 0 ]; then
		skip lost_per_cpu "a one-page ring lost nothing here: $(tail -1 "$T/err")"
		return
	fi
	grep -Eq "lost $n \\(cpu[0-9]+ [0-9]+ between [0-9.]+ and [0-9.]+ s" "$T/err" ||
		why="the account does not say where: $(tail -1 "$T/err")"
	timeout 60 "$TC_SAN" --replay "$T/f" --summary >/dev/null 2>"$T/sum.err"
	[ -z "$why" ] && ! grep -Eq "lost $n \\(cpu[0-9]+ [0-9]+ between" "$T/sum.err" &&
		why="--summary does not say where: $(tail -1 "$T/sum.err")"
	[ -z "$why" ] && [ "$(sed -n 's/.*lost [0-9]* (\(.*\)).*/\1/p' "$T/err" | grep -o 'cpu[0-9]* [0-9]*' |
		awk '{ s += $2 } END { print s }')" != "$n" ] && why="the CPUs' counts do not add up to $n: $(tail -1 "$T/err")"
	if [ -n "$why" ]; then fail lost_per_cpu "$why"; else pass lost_per_cpu; fi
}

# Without -r the reader is raised to SCHED_DEADLINE (ahead of SCHED_FIFO
# tasks, which can starve a FIFO 1 reader) once a ring is over half full:
# tc is stopped for a second while pingpong fills its 8-page rings, and
# as it goes on the kernel says policy 6 (SCHED_DEADLINE), and the
# account how long it was raised (no longer than the events were on).
realtime_auto_deadline() {
	local tc why= pol i
	"$TC" --record "$T/f" -m 8 -d 4 -- "$PINGPONG" 100000000 >/dev/null 2>"$T/err" &
	tc=$!
	reap_later "$tc"
	has_descendant "$tc" pingpong 30 || note "no pingpong under tc after 30 s"
	kill -STOP "$tc"
	nap 1
	kill -CONT "$tc"
	for ((i = 0; i < 40; i++)); do	# raised at its first pass, back a second after
		pol=$(sed -n 's/^policy *: *//p' "/proc/$tc/sched" 2>/dev/null)
		[ "$pol" = 6 ] && break
		nap 0.05
	done
	wait "$tc"
	[ "$pol" = 6 ] || why="policy ${pol:-?} (not 6, SCHED_DEADLINE) after a stop of 1 s"
	grep -Eq 'reader raised \(SCHED_DEADLINE\) for [0-9.]+ s' "$T/err" ||
		why="${why:+$why; }the account does not say so: $(tail -1 "$T/err")"
	# raised no longer than the events were on (the account's duration)
	awk '{ if (match($0, /raised \(SCHED_DEADLINE\) for [0-9.]+ s/)) r = substr($0, RSTART + 28, RLENGTH - 30)
	       if (match($0, /, [0-9.]+ s, tc.s CPU/)) d = substr($0, RSTART + 2, RLENGTH - 14) }
	     END { exit !(r != "" && d != "" && r + 0 <= d + 0) }' "$T/err" ||
		why="${why:+$why; }raised longer than it recorded: $(tail -1 "$T/err")"
	if [ -n "$why" ]; then fail realtime_auto_deadline "$why"; else pass realtime_auto_deadline; fi
}

# Concurrency (run.sh): lost_per_cpu wants a burst that overflows a
# one-page ring, which load beside it only helps; the others are settings.
test_class quiet realtime_denied ring_default
test_class busy realtime_fifo lost_per_cpu realtime_auto_deadline
kernel_tests realtime_fifo realtime_denied ring_default lost_per_cpu realtime_auto_deadline
