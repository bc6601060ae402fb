# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# A serial console: tc's view on a terminal that takes at most 11,520 bytes
# a second (115200 baud), sourced by test/run.sh (see there for the
# helpers). test/slowpty runs tc on a pty at 80x24 (TERM=vt100 LANG=C) set
# to 115200 baud, reads it no faster than the line would, types keys at
# given times and logs when each byte arrived (see test/slowpty.c).
#
# Asserted, from the arrival times:
#   - the first frame is complete within 1 s of starting tc,
#   - a key is answered within 300 ms (? shows the help: its "tc keys"
#     line has arrived),
#   - tc never writes more than the line carries: what it has written and
#     the line has not yet taken (the pty's backlog) never fills the pty's
#     4 KiB input buffer, and everything is out within 1 s of q.
# These are timing assertions, which tests otherwise never make: the issue
# asks for them. The limits are the acceptance's own and far above what tc
# needs here (its first 80x24 frame is about 2.5 KB, 0.25 s of line), which
# is the margin for this shared, noisy machine. Each test prints its figures.

SLOWPTY=$ROOT/test/slowpty

# sp_figures LOG OUT KEY_MS: "first_ms key_ms backlog drain_ms" from a
# slowpty log and output. first_ms: when the first frame had arrived. tc
# writes a frame top to bottom with cursor moves (ESC [ row ; col H), so
# the first frame ends before the first move to an earlier row (the next
# frame), or before the first pause of 200 ms or the key, whichever comes
# first. key_ms: from the key at KEY_MS to the arrival of "tc keys" (-1 if
# it never came). backlog: the largest backlog seen. drain_ms: from the last
# key (q) to the end of the output.
sp_figures() {
	local pos endoff
	pos=$(grep -boa 'tc keys' "$2" | head -1 | cut -d: -f1)
	endoff=$(grep -boa $'\e\[[0-9]*;[0-9]*H' "$2" | tr -d '\033[H' | awk -F'[:;]' '
		NR > 1 && ($2 < row || ($2 == row && $3 <= col)) { print $1 - 1; exit }
		{ row = $2; col = $3 }')
	awk -v kms="$3" -v pos="${pos:--1}" -v endoff="${endoff:--1}" '
	function at(off, t) { return off >= 0 && $3 <= off && off < $3 + $4 }
	$1 == "k" { lastk = $2 }
	$1 == "r" {
		if (!done && prev && ($2 - prev > 200000 || $2 >= kms * 1000)) { first = prev; done = 1 }
		if (!done && at(endoff)) { first = $2; done = 1 }
		prev = $2
		if ($5 > backlog) backlog = $5
		if (!found && at(pos)) { help = $2; found = 1 }
	}
	$1 == "e" { end = $2 }
	END {
		if (!done) first = prev
		printf "%d %d %d %d\n", first / 1000, found ? (help - kms * 1000) / 1000 : -1,
			backlog, (end - lastk) / 1000
	}' "$1"
}

# sp_check NAME KEY_MS ARGS...: tc ARGS on the slow line; ? at KEY_MS, q a
# second later; the assertions above.
sp_check() {
	local name=$1 kms=$2 first key backlog drain why=''
	shift 2
	TERM=vt100 LANG=C LC_ALL=C timeout 60 "$SLOWPTY" -k "$kms:?" -k "$((kms + 1000)):q" \
		-t $((kms + 5000)) -o "$T/out" -- "$TC" "$@" >"$T/log" 2>"$T/err"
	read -r first key backlog drain < <(sp_figures "$T/log" "$T/out" "$kms")
	note "$name: first frame ${first} ms, key ${key} ms, largest backlog ${backlog} bytes, out ${drain} ms after q, $(wc -c <"$T/out") bytes in all"
	if ! grep -q '^x .* 0$' "$T/log"; then
		why="tc did not exit 0 on q: $(grep '^x' "$T/log") $(tr -cd '[:print:]\n' <"$T/out" | tail -c 200)"
	elif ! grep -qa ' tc ' "$T/out"; then
		why="no status line in the output"
	elif [ "$first" -gt 1000 ]; then
		why="first frame complete after $first ms (limit 1000)"
	elif [ "$key" -lt 0 ] || [ "$key" -gt 300 ]; then
		why="? answered after $key ms (limit 300; -1: never)"
	elif [ "$backlog" -ge 4000 ]; then
		why="backlog reached $backlog bytes: tc wrote more than the line carries"
	elif [ "$drain" -gt 1000 ]; then
		why="output went on $drain ms after q: tc wrote more than the line carries"
	fi
	if [ -n "$why" ]; then
		fail "$name" "$why (log $T/log, output $T/out)"
	else
		pass "$name"
		rm -f "$T/out"
	fi
}

# Replay: the view of a synthetic recording (no kernel needed).
serial_replay() {
	[ -x "$SLOWPTY" ] || { fail serial_replay "test/slowpty was not built"; return; }
	"$ROOT/test/mkdata" --scenario basic "$T/basic.data" || { fail serial_replay "mkdata"; return; }
	sp_check serial_replay 1200 --replay "$T/basic.data"
}

# Live: a frame for every refresh, the workload switching all the time.
serial_live() {
	[ -x "$SLOWPTY" ] || { fail serial_live "test/slowpty was not built"; return; }
	sp_check serial_live 1500 --live -- sh -c "exec $ROOT/test/pingpong 100000000 >/dev/null"
}

# Concurrency (run.sh): these assert timing: alone (beside quiet tests,
# whose polling takes CPU too, serial_live answered ? after 310 and 579 ms
# and once let the backlog reach 4017 bytes on this loaded machine).
test_class solo serial_replay serial_live
run_tests serial_replay
kernel_tests serial_live
