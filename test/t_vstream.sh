# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# The view of a stream and the save key, in tmux with the helpers of
# t_view.sh (sourced before this file).

# tc --record - | tc --replay -: the view follows the stream while the
# recorder runs, says so, and says when the stream ends; q then exits 0.
view_stream() {
	local why= t1 t2
	tv_begin 120 30 || { fail view_stream "tmux did not start"; return; }
	tv_tmux send-keys -t t -l "$TC --record - -d 5 2>$T/rec.err -- sh -c 'exec $PINGPONG 100000000 >/dev/null' | $TC --replay - 2>$T/view.err; echo rc=\$? >$T/rc"
	tv_tmux send-keys -t t Enter
	if ! tv_wait 10 tv_status_has ' stream '; then
		why="no stream view: $(tv_status)"
	else
		reap_later $(pgrep -P "$TV_PANE")
		sleep 1.5
		t1=$(tv_status | sed -n 's/.*cursor \([^ |]*\).*/\1/p')
		sleep 1.5
		t2=$(tv_status | sed -n 's/.*cursor \([^ |]*\).*/\1/p')
		if [ -z "$t1" ] || [ "$t1" = "$t2" ]; then
			why="the view did not follow the stream: cursor $t1 then $t2"
		elif ! tv_shows pingpong; then
			why="no pingpong row while it runs"
		elif ! tv_wait 10 tv_status_has 'end of stream'; then
			why="the end of the stream is not shown: $(tv_status)"
		else
			tv_tmux send-keys -t t q
			tv_wait 10 test -s "$T/rc"
			grep -q 'rc=0' "$T/rc" 2>/dev/null || why="q after the end: $(cat "$T/rc" 2>/dev/null), $(head -2 "$T/view.err")"
		fi
	fi
	[ -n "$why" ] && tv_screen >"$T/screen"
	tv_end
	if [ -n "$why" ]; then
		keep_evidence view_stream
		fail view_stream "$why"
	else
		pass view_stream
	fi
}

# S in the live view writes what the window holds as a recording that tc
# and perf read, named on the status line; it covers the window's span.
view_save_key() {
	local why= f span
	tv_begin 120 30 || { fail view_save_key "tmux did not start"; return; }
	tv_tmux send-keys -t t -l "cd $T && $TC --live -w 3 --flight-mem 128 -- sh -c 'exec $PINGPONG 100000000 >/dev/null'; cd $ROOT"
	tv_tmux send-keys -t t Enter
	if ! tv_wait 10 tv_shows ' tc '; then
		why="no view"
	else
		reap_later $(pgrep -P "$TV_PANE") $(pgrep -f "$PINGPONG 100000000")
		sleep 4
		tv_tmux send-keys -t t S
		tv_wait 10 tv_shows 'records' || why="no word of the save: $(tv_screen | tail -2 | tr '\n' ' ')"
		tv_tmux send-keys -t t q
		tv_wait 10 tv_shows "cd $ROOT"
	fi
	tv_end
	f=$(ls "$T"/tc-*.data 2>/dev/null | head -1)
	if [ -z "$why" ] && [ -z "$f" ]; then
		why="no tc-*.data file"
	elif [ -z "$why" ]; then
		span=$("$TC" --replay "$f" --script 2>/dev/null |
			awk '$1 > 0 && !a { a = $1 } $1 > 0 { b = $1 } END { printf "%.3f\n", (b - a) / 1e9 }')
		if ! awk -v s="$span" 'BEGIN { exit !(s >= 2.4 && s <= 3.2) }'; then
			why="the file spans $span s, the window 3 s"
		elif have_perf && ! perf script -i "$f" >/dev/null 2>"$T/perf.err"; then
			why="perf script cannot read it: $(head -2 "$T/perf.err")"
		fi
	fi
	if [ -n "$why" ]; then
		keep_evidence view_save_key
		fail view_save_key "$why"
	else
		note "view_save_key: $(basename "$f") spans $span s"
		pass view_save_key
	fi
}

# --live --flight: the view shows what the flight recorder wrote when its
# trigger fired, and the file names the trigger.
view_live_flight() {
	local why=
	tv_begin 120 30 || { fail view_live_flight "tmux did not start"; return; }
	if ! tv_run "--live --record $T/lf --flight 1 --trigger 'wait>1ms' --after 0.5 -- sh -c 'exec $PINGPONG 100000000 >/dev/null'"; then
		why="no view"
	elif ! tv_wait 15 tv_shows 'flight recorder: '; then
		why="no word of a flight file: $(tv_screen | tail -2 | tr '\n' ' ')"
	fi
	tv_tmux send-keys -t t q
	tv_wait_exit || why=${why:-"q did not end tc"}
	tv_end
	if [ -z "$why" ] && ! "$TC" --replay "$T/lf" --summary 2>&1 >/dev/null | grep -q 'trigger wait'; then
		why="the file does not name its trigger"
	fi
	if [ -n "$why" ]; then
		keep_evidence view_live_flight
		fail view_live_flight "$why"
	else
		pass view_live_flight
	fi
}

kernel_tests view_stream view_save_key view_live_flight
