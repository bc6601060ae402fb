# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# Tests of the flight recorder (tc --record FILE --flight SECONDS ...),
# sourced by test/run.sh (see there for the helpers).
#
# The moment to catch: a task pinned to CPU 0 (a copy of test/spin named
# tcvictim, so that -p can name it) spins while a SCHED_FIFO spinner takes
# CPU 0 for 0.3 s: the victim waits runnable about 300 ms at a known moment.
# Both spinners end by themselves (test/spin SECONDS), whatever happens.
SPIN=$ROOT/test/spin

# victim_script SPIKE: a command line that runs the victim 5 s, with the
# FIFO spike 1.5 s in when SPIKE is 1.
victim_script() {
	cp "$SPIN" "$T/tcvictim"
	local spike=":"
	[ "$1" = 1 ] && spike="chrt -f 50 taskset -c 0 $SPIN 0.3"
	echo "taskset -c 0 $T/tcvictim 5 & sleep 1.5; $spike; wait"
}

# span_s FILE: seconds between the first and the last event of a recording.
span_s() {
	"$TC" --replay "$1" --script 2>/dev/null |
		awk '$1 > 0 && !a { a = $1 } $1 > 0 { b = $1 } END { printf "%.3f\n", (b - a) / 1e9 }'
}

flight_trigger() {
	command -v chrt >/dev/null && command -v taskset >/dev/null ||
		{ skip flight_trigger "chrt or taskset missing (util-linux)"; return; }
	local why= span delay
	timeout 60 "$TC_SAN" --record "$T/f" --flight 2 --trigger 'wait>30ms' -p tcvictim -- \
		sh -c "$(victim_script 1)" >"$T/out" 2>"$T/err"
	span=$([ -e "$T/f" ] && span_s "$T/f")
	"$TC" --replay "$T/f" --summary >"$T/sum" 2>"$T/sum.err"
	delay=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$0 == "" { exit } $c["comm"] == "tcvictim" { print $c["max_delay_ms"] }' "$T/sum" | sort -n | tail -1)
	if [ ! -e "$T/f" ]; then
		why="no file written: $(tail -2 "$T/err")"
	elif [ -e "$T/f.1" ]; then
		why="a second file with --keep 1"
	elif ! grep -q 'trigger wait: tcvictim' "$T/sum.err"; then
		why="the file does not say what fired: $(head -2 "$T/sum.err")"
	elif ! awk -v s="$span" 'BEGIN { exit !(s > 1.0 && s <= 3.2) }'; then
		why="the file spans $span s, not about 3 s (2 before, 1 after)"
	elif ! awk -v d="${delay:-0}" 'BEGIN { exit !(d > 30) }'; then
		why="tcvictim's longest wait in the file is ${delay:-none} ms"
	fi
	if [ -n "$why" ]; then
		keep_evidence flight_trigger
		fail flight_trigger "$why"
	else
		note "flight_trigger: one file of $span s, tcvictim waited up to $delay ms"
		pass flight_trigger
	fi
}

# With a trigger that never fires, nothing is written until tc stops; then
# the last SECONDS are.
flight_no_trigger() {
	command -v taskset >/dev/null || { skip flight_no_trigger "taskset missing (util-linux)"; return; }
	local why= pid span
	"$TC_SAN" --record "$T/f" --flight 1 --trigger 'wait>10s' -p tcvictim -d 3 -- \
		sh -c "$(victim_script 0)" >"$T/out" 2>"$T/err" &
	pid=$!
	reap_later "$pid"
	sleep 2
	[ -e "$T/f" ] && why="a file before tc stopped"
	wait "$pid"
	span=$([ -e "$T/f" ] && span_s "$T/f")
	if [ -z "$why" ] && [ ! -e "$T/f" ]; then
		why="no file when tc stopped: $(tail -2 "$T/err")"
	elif [ -z "$why" ] && ! awk -v s="$span" 'BEGIN { exit !(s > 0.5 && s <= 1.2) }'; then
		why="the file spans $span s, not the last 1 s"
	fi
	if [ -n "$why" ]; then
		keep_evidence flight_no_trigger
		fail flight_no_trigger "$why"
	else
		pass flight_no_trigger
	fi
}

# The ring is sized at start: memory stays flat however long tc runs. The
# flight ring is resident from the start; the merge queues, sized by the
# rings, become resident as they fill (a busy machine fills them deeper
# later): with rings of 64 pages, all of them are under 1 MiB. The
# workload makes up to 200,000 events a second, and the 9 s between the
# readings up to 1.8 million (growth of a byte an event would be 1.7 MiB;
# 1 MiB fails). (It ran 40 s, readings at 8 s and 36 s, default rings: a
# slot and the pingpongs' CPU for 40 s of the run.)
flight_rss_flat() {
	local pid a b why=
	# -d 60 only as a bound: stopped after the second reading (with -d 14
	# a loaded machine's sleeps once outlasted it: tc was gone at 13 s)
	"$TC" --record "$T/f" --flight 1 --flight-mem 8 -m 64 -d 60 -- \
		sh -c "while :; do nice -n 19 $PINGPONG 20000 >/dev/null; done" >"$T/out" 2>"$T/err" &
	pid=$!
	reap_later "$pid"
	sleep 4
	a=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	sleep 9
	b=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
	if [ -z "$a" ] || [ -z "$b" ]; then
		why="tc was gone before the second reading: $(tail -2 "$T/err")"
	elif [ $((b - a)) -gt 1024 ]; then
		why="RSS grew from $a KiB to $b KiB"
	elif [ ! -e "$T/f" ]; then
		why="no file at the end"
	fi
	if [ -n "$why" ]; then
		fail flight_rss_flat "$why"
	else
		note "flight_rss_flat: RSS $a KiB after 4 s, $b KiB after 13 s"
		pass flight_rss_flat
	fi
}

flight_bad_options() {
	local why=
	"$TC" --record "$T/f" --trigger 'wait>1ms' 2>"$T/e1" && why="--trigger without --flight accepted"
	"$TC" --record "$T/f" --flight 1 --trigger 'wait>1parsec' 2>"$T/e2" && why="a bad unit accepted"
	"$TC" --record "$T/f" --flight 1 --trigger 'wait<1ms' 2>"$T/e3" && why="a bad trigger accepted"
	grep -q 'wait>D' "$T/e3" || why="the message does not say what triggers exist: $(head -1 "$T/e3")"
	if [ -n "$why" ]; then fail flight_bad_options "$why"; else pass flight_bad_options; fi
}

# Concurrency (run.sh): the trigger needs CPU 0 to itself but for the
# spike; flight_rss_flat is long (14 s) with a workload of its own.
test_class quiet flight_bad_options
test_class sensitive flight_trigger
test_class busy flight_no_trigger flight_rss_flat
test_slow 14 flight_rss_flat
run_tests flight_bad_options
kernel_tests flight_trigger flight_no_trigger flight_rss_flat
