#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# /init of test/boot.sh's initramfs: runs on a Debian kernel booted under
# qemu-system, with busybox (static) as its only userland, tc installed as
# /bin/timechart (busybox's shell runs its own `tc` applet, traffic control,
# before any tc in PATH) and the workloads /bin/pingpong, /bin/spin and
# /bin/iorw (test/*.c, static for the target).
#
# Everything goes out on the serial console, the one channel every kernel
# and machine has without modules, as lines the host parses (test/boot.sh):
#
#   BOOT-TEST INFO key value...
#   BOOT-TEST PASS name | FAIL name: why | SKIP name: why
#   BOOT-TEST FILE name bytes, then the file gzipped and in base64, then
#   BOOT-TEST EOF name sha256
#   BOOT-TEST LIVE-GO        the live view starts: the host sends ? then q
#   BOOT-TEST DONE
#
# The host checks the files it gets (the recordings, the target's own
# --summary, --latency and --script of them) with this machine's tc and
# perf. Every command has a timeout; the host has one for the whole boot.

export PATH=/bin
/bin/busybox mkdir -p /proc /sys /dev /tmp /r
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sys /sys
/bin/busybox mount -t devtmpfs dev /dev 2>/dev/null
/bin/busybox --install -s /bin
# Quiet: the kernel's messages would land in the middle of the results.
echo 1 >/proc/sys/kernel/printk
echo 1 >/proc/sys/kernel/sysrq		# the host's sysrq keys on a hang (test/boot.sh)
exec </dev/console >/dev/console 2>&1
cd /r || exit 1

TC=timechart
say() { echo "BOOT-TEST $*"; }
ok() { say "PASS $1"; }
bad() { say "FAIL $1: $2"; }
skp() { say "SKIP $1: $2"; }
# first line of a file, for a reason
first() { head -c 300 "$1" 2>/dev/null | tr '\n\r' '  '; }

# send NAME FILE: the file, gzipped and in base64, between markers.
send() {
	[ -f "$2" ] || { say "NOFILE $1"; return; }
	say "FILE $1 $(wc -c <"$2")"
	gzip -c "$2" | base64
	say "EOF $1 $(sha256sum <"$2" | cut -d' ' -f1)"
}

# replays NAME: the target's --summary, --summary --latency and --script of
# /r/NAME.data, sent with the recording. Sets RC_SUM.
replays() {
	timeout 120 $TC --replay "$1.data" --summary >"$1.summary" 2>"$1.summary.err"
	RC_SUM=$?
	timeout 120 $TC --replay "$1.data" --summary --latency >"$1.latency" 2>/dev/null
	timeout 120 $TC --replay "$1.data" --script >"$1.script" 2>/dev/null
	for s in data summary summary.err latency script; do send "$1.$s" "$1.$s"; done
}

say "INFO uname $(uname -srm)"
say "INFO cpus $(nproc)"
say "INFO console $(cat /sys/class/tty/console/active 2>/dev/null)"
say "INFO tc $($TC --version 2>&1 | head -1)"
grep -q ' /sys/kernel/tracing ' /proc/mounts && TRACEFS_BEFORE=1 || TRACEFS_BEFORE=0

# --- record: pingpong on one CPU (each of its two tasks then switches in
# at least 2000 times: no round trip without blocking); tc mounts tracefs.
# A ring of 2 MiB holds the whole run: on a 1-CPU guest tc reads only when
# pingpong lets it (64 pages lost 5171 of 8000 events on mipsel).
timeout 120 $TC --record rec.data -m 512 -- taskset 1 pingpong 2000 >rec.out 2>rec.err
rc=$?
send rec.err rec.err
send rec.out rec.out
if [ $rc != 0 ]; then
	bad record "exit status $rc: $(first rec.err)"
else
	ok record
fi
if [ $TRACEFS_BEFORE = 0 ] && grep -q ' /sys/kernel/tracing ' /proc/mounts; then
	ok tracefs_mount
else
	bad tracefs_mount "tracefs was $([ $TRACEFS_BEFORE = 1 ] && echo already) mounted before tc ran, $(grep -c tracefs /proc/mounts) mounts after"
fi
replays rec
if [ "$RC_SUM" = 0 ] && [ -s rec.summary ]; then ok summary; else bad summary "exit status $RC_SUM: $(first rec.summary.err)"; fi
if grep -q '^wait_tid' rec.latency && grep -q '^runnable_wait' rec.latency; then
	ok latency
else
	bad latency "no wait_tid / runnable_wait block in --summary --latency"
fi
if grep -q ' sched_switch ' rec.script; then ok script; else bad script "no sched_switch line in --script"; fi

# The tracepoint formats this kernel has, for the host to show.
T=/sys/kernel/tracing/events
for e in sched/sched_switch sched/sched_waking sched/sched_wakeup sched/sched_process_exec \
	 power/cpu_idle power/cpu_frequency raw_syscalls/sys_enter syscalls/sys_enter_read; do
	echo "== $e"
	cat "$T/$e/format" 2>&1
done >formats.txt
send formats.txt formats.txt

# --- an idle guest: nothing lost
timeout 60 $TC --record idle.data -d 2 -m 64 >idle.out 2>idle.err
rc=$?
send idle.err idle.err
if [ $rc = 0 ]; then ok idle_record; else bad idle_record "exit status $rc: $(first idle.err)"; fi
replays idle

# --- -I: iorw's known calls
timeout 120 $TC --record io.data -I -m 64 -- iorw /tmp >io.out 2>io.err
rc=$?
send io.err io.err
if [ $rc = 0 ]; then ok io_record; else bad io_record "exit status $rc (iorw exits 1 when a call failed): $(first io.err)"; fi
replays io
# The kernel's own trace of the same calls, the oracle when -I counts
# differ: does this kernel fire the syscalls tracepoints for iorw at all?
T=/sys/kernel/tracing
if [ -d $T/events/syscalls/sys_enter_read ]; then
	echo 0 >$T/tracing_on; echo >$T/trace
	echo 1 >$T/events/syscalls/sys_enter_read/enable
	echo 1 >$T/events/raw_syscalls/sys_enter/enable
	echo 1 >$T/tracing_on
	iorw /tmp
	echo 0 >$T/tracing_on
	echo 0 >$T/events/syscalls/sys_enter_read/enable
	echo 0 >$T/events/raw_syscalls/sys_enter/enable
	say "INFO ftrace_iorw sys_read $(grep -c 'iorw-.* sys_read(' $T/trace) raw_sys_enter $(grep -c 'iorw-.* sys_enter: NR' $T/trace)"
	grep 'iorw-' $T/trace | head -40 >ftrace.txt
	send ftrace.txt ftrace.txt
	echo >$T/trace
fi

# --- the flight recorder: spin runs 0.3 s, a run over 30 ms fires at its
# switch-out (the sleep after it: tc may stop before the switch-out of an
# exit of its command, see exit_switch in test/boot.sh)
timeout 120 $TC --record fl.data --flight 2 --trigger 'run>30ms' --after 0.2 -m 64 -- sh -c 'spin 0.3; sleep 0.3' >fl.out 2>fl.err
rc=$?
send fl.err fl.err
if [ $rc != 0 ]; then
	bad flight "exit status $rc: $(first fl.err)"
elif ! grep -q 'trigger run' fl.err; then
	bad flight "no 'trigger run' in tc's stderr: $(first fl.err)"
else
	ok flight
fi
replays fl
if grep -q 'trigger run' fl.summary.err; then ok flight_replay; else bad flight_replay "--summary says no 'trigger run': $(first fl.summary.err)"; fi

# --- a stream: --record - | --replay -
set -o pipefail 2>/dev/null
timeout 120 $TC --record - -m 64 -- pingpong 500 2>stream.err | tee stream.data |
	timeout 120 $TC --replay - --summary >stream.pipe.summary 2>stream.pipe.err
rc=$?
set +o pipefail 2>/dev/null
send stream.err stream.err
send stream.pipe.summary stream.pipe.summary
send stream.pipe.err stream.pipe.err
if [ $rc != 0 ]; then
	bad stream "exit status $rc: $(first stream.err) $(first stream.pipe.err)"
elif ! grep -q '	pingpong	' stream.pipe.summary; then
	bad stream "no pingpong row in --replay -'s --summary"
else
	ok stream
fi
replays stream

# --- --repair of a recording cut off by kill -9
$TC --record cut.data -m 64 -- pingpong 100000000 >cut.out 2>cut.err &
p=$!
sleep 3
kill -9 $p
wait $p 2>/dev/null
killall -9 pingpong 2>/dev/null
cp cut.data cut.killed
send cut.killed cut.killed
timeout 120 $TC --repair cut.data >repair.out 2>&1
rc=$?
send repair.out repair.out
if [ $rc != 0 ]; then bad repair "exit status $rc: $(first repair.out)"; else ok repair; fi
replays cut
if [ "$RC_SUM" = 0 ] && grep -q '	pingpong	' cut.summary; then
	ok repair_replay
else
	bad repair_replay "--summary of the repaired file: exit status $RC_SUM: $(first cut.summary.err)"
fi

# --- the live view on this console: the host sends ? and then q
tty=$(cat /sys/class/tty/console/active 2>/dev/null | awk '{print $NF}')
if [ -z "$tty" ] || [ ! -c "/dev/$tty" ]; then
	skp live "no console tty (/sys/class/tty/console/active: '$tty')"
else
	stty -F "/dev/$tty" rows 24 cols 80
	stty -F "/dev/$tty" -g >stty.before
	# The watchdog: tc has a 90 s timeout (SIGKILL), so a live view not
	# over after 150 s is a task that cannot be killed, or a console
	# that no longer sends: say where every user task is, through the
	# kernel's log (printed on the console by polling, past a stuck tty),
	# with the serial port's counters, and end the boot (the host then
	# does not wait out its own timeout).
	(
		sleep 150
		[ -e /r/live.rc ] && exit 0
		echo on >/proc/sys/kernel/printk_devkmsg
		ksay() { echo "<0>BOOT-TEST $*" >/dev/kmsg; }
		ksay "FAIL live: not over after 150 s (tc's timeout is 90 s): a task cannot be killed or the console is stuck; each task's state and stack follow, as INFO hang lines"
		for d in /proc/[0-9]*; do
			c=$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null | head -c 80)
			[ -n "$c" ] || continue		# kernel threads
			ksay "INFO hang ${d#/proc/} $(cut -d' ' -f2-3 "$d/stat" 2>/dev/null) $c"
			while read -r l; do ksay "INFO hang   $l"; done <"$d/stack"
		done
		cat /proc/tty/driver/* 2>/dev/null | while read -r l; do ksay "INFO hang uart $l"; done
		ksay DONE
		sync
		poweroff -f
	) &
	WD=$!
	say "LIVE-GO"
	setsid sh -c "exec </dev/$tty >/dev/$tty 2>/r/live.err; TERM=vt100 LANG=C timeout -s KILL 90 $TC --live --record /r/live.data -m 64 -w 5 -- pingpong 100000000; echo \$? >/r/live.rc" </dev/null
	stty -F "/dev/$tty" -g >stty.after
	echo
	say "LIVE-END"
	kill $WD 2>/dev/null
	rc=$(cat live.rc 2>/dev/null)
	send live.err live.err
	send live.data live.data
	if [ "$rc" != 0 ]; then
		bad live "exit status ${rc:-none} (137: killed after 90 s, no q came or tc did not quit): $(first live.err)"
	else
		ok live
	fi
	if cmp -s stty.before stty.after; then
		ok live_stty
	else
		bad live_stty "stty -g before $(cat stty.before), after $(cat stty.after)"
	fi
	if pidof pingpong >/dev/null; then bad live_reap "pingpong still runs after q"; killall -9 pingpong; else ok live_reap; fi
fi

say DONE
sync
poweroff -f
sleep 5
echo o >/proc/sysrq-trigger
