# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# The view of a stream and the save key, in tmux with the helpers of
# t_view.sh (sourced before this file).

# The same typed with the recorder's standard error on the terminal: the
# recorder is in a pipeline, so the terminal is not given to its command
# (the view, also in the job, needs it; it stopped on SIGTTOU when the
# recorder took its standard error, the terminal, for its output).
view_stream_tty() {
	local why=
	tv_begin 120 30 || { fail view_stream_tty "tmux did not start"; return; }
	tv_tmux send-keys -t t -l "$TC --record - -d 3 -- sleep 10 | $TC --replay - 2>$T/view.err; echo rc=\$? >$T/rc"
	tv_tmux send-keys -t t Enter
	if ! tv_wait 10 tv_status_has ' stream '; then
		why="no stream view: $(tv_screen | grep -v '^$' | tail -2 | tr '\n' ' ')"
	else
		reap_later $(pgrep -P "$TV_PANE")
		tv_wait 10 tv_status_has 'end of stream'
		tv_tmux send-keys -t t q
		tv_wait 10 test -s "$T/rc"
		grep -q 'rc=0' "$T/rc" 2>/dev/null || why="q: $(cat "$T/rc" 2>/dev/null), $(head -2 "$T/view.err")"
	fi
	tv_end
	if [ -n "$why" ]; then fail view_stream_tty "$why"; else pass view_stream_tty; fi
}

# tc --record - | tc --replay -: the view follows the stream while the
# recorder runs, says so, and says when the stream ends; q then exits 0.
view_stream() {
	local why= t1 t2
	tv_begin 120 30 || { fail view_stream "tmux did not start"; return; }
	tv_tmux send-keys -t t -l "$TC --record - -d 5 2>$T/rec.err -- sh -c 'exec nice -n 19 $PINGPONG 100000000 >/dev/null' | $TC --replay - 2>$T/view.err; echo rc=\$? >$T/rc"
	tv_tmux send-keys -t t Enter
	if ! tv_wait 10 tv_status_has ' stream '; then
		why="no stream view: $(tv_status)"
	else
		reap_later $(pgrep -P "$TV_PANE")
		# the cursor (the newest time) moves on
		tv_wait 10 eval 't1=$(tv_status | sed -n "s/.*cursor \([^ |]*\).*/\1/p"); [ -n "$t1" ]'
		tv_wait 10 eval 't2=$(tv_status | sed -n "s/.*cursor \([^ |]*\).*/\1/p"); [ "$t2" != "$t1" ]'
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

# tv_cursor_past S: the status line's cursor (seconds after the first event,
# as "2.3s") is at least S (a moment reached, not a value compared).
tv_cursor_past() {
	local c
	c=$(tv_status | sed -n 's/.* cursor \([0-9.]*\)s .*/\1/p')
	[ -n "$c" ] && awk -v c="$c" -v s="$1" 'BEGIN { exit !(c >= s) }'
}

# S in the live view writes what the window holds as a recording that tc
# and perf read, named on the status line; it covers the window's span.
# The ring holds the window: 128 MiB held 1.3 s of pingpong's records on
# an Intel Xeon VM (950,000 events a second); 1 GiB holds 3 s on hosts up
# to 3.5 times as fast.
view_save_key() {
	local why= f span
	tv_begin 120 30 || { fail view_save_key "tmux did not start"; return; }
	tv_tmux send-keys -t t -l "cd $T && $TC --live -w 3 --flight-mem 1024 -- sh -c 'exec nice -n 19 $PINGPONG 100000000 >/dev/null'; cd $ROOT"
	tv_tmux send-keys -t t Enter
	if ! tv_wait 10 tv_shows ' tc '; then
		why="no view"
	else
		tv_wait 10 eval '[ -n "$(descendants "$TV_PANE" | xargs -r ps -o comm= -p | grep -x pingpong)" ]'
		# shellcheck disable=SC2046
		reap_later $(descendants "$TV_PANE")
		# the window (3 s) has filled: the cursor, the newest time, is
		# 3.5 s after the first event
		tv_wait 30 tv_cursor_past 3.5
		tv_tmux send-keys -t t S
		tv_wait 10 tv_shows 'records' || why="no word of the save: $(tv_screen | tail -2 | tr '\n' ' ')"
		tv_shows 'left the buffer' && why="the ring did not hold the window: $(tv_screen | grep 'left the buffer')"
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
	if ! tv_run "--live --record $T/lf --flight 1 --trigger 'wait>1ms' --after 0.5 -- sh -c 'exec nice -n 19 $PINGPONG 100000000 >/dev/null'"; then
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

# replay_save NAME SRC: tc --replay SRC in tmux (tc-san), zoomed in twice
# (+ +: a quarter of the file, from its start), then S.  The saved file
# spans about the window and no more (its first and last events; within
# it, when SRC lost events), tc reads
# it (in time order, nothing broken), and perf script reads it with as many
# events as SRC has in that span.
# The window is exact, not read off the status line (there it is rounded):
# the replay's whole view is [first, last] of the recording, its model's
# first and last event (--states: cpu_total), the cursor at first; each +
# halves the span (integer ns, at least 1000) from the cursor.
replay_save() {
	local name=$1 src=$2 why= f win span whole n m first last sfirst slast lost TC=$TC_SAN TV_NAME
	TV_NAME=$(basename "$TC_SAN" | cut -c1-15)
	read -r first last < <("$TC" --replay "$src" --states 2>/dev/null | awk '$1 == "cpu_total" { print $3, $4; exit }')
	[ -n "$last" ] || { fail "$name" "no cpu_total line in tc --replay --states of $src"; return; }
	win=$(tv_zoomed "$((last - first))" 2)
	tv_begin 120 30 || { fail "$name" "tmux did not start"; return; }
	tv_tmux send-keys -t t -l "cd $T"
	tv_tmux send-keys -t t Enter
	if ! tv_run "--replay $src 2>$T/view.err"; then
		why="no view"
	else
		tv_tmux send-keys -t t + +
		tv_tmux send-keys -t t S
		tv_wait 30 tv_shows ' records, ' || why="no word of the save: $(tv_screen | tail -1)"
		tv_tmux send-keys -t t q
		tv_wait_exit || why=${why:-"q did not end tc"}
		grep -q 'rc=0' "$T/rc" 2>/dev/null || why=${why:-"tc: $(cat "$T/rc" 2>/dev/null), $(head -3 "$T/view.err")"}
	fi
	tv_end
	f=$(ls "$T"/tc-*.data 2>/dev/null | head -1)
	if [ -z "$why" ] && [ -z "$f" ]; then
		why="no tc-*.data file"
	elif [ -z "$why" ]; then
		# its events: the model's first and last of the saved file (the
		# file also keeps names, forks and exits from before the span)
		read -r sfirst slast < <("$TC" --replay "$f" --states 2>/dev/null | awk '$1 == "cpu_total" { print $3, $4; exit }')
		span=$((${slast:-0} - ${sfirst:-0})) whole=$((last - first))
		# (a recording that lost events beside the other tests' floods has
		# no events in its losses' stretches: its window may end early)
		lost=$("$TC" --replay "$src" --summary 2>&1 >/dev/null | sed -n 's/.*, lost \([0-9]*\).*/\1/p')
		if ! "$TC_SAN" --replay "$f" --summary >/dev/null 2>"$T/sum.err"; then
			why="tc --summary cannot read it: $(tail -2 "$T/sum.err")"
		elif grep -E -q 'out of order|corrupt|unknown [0-9]' "$T/sum.err"; then
			why="not in time order, or broken: $(tail -1 "$T/sum.err")"
		elif [ -z "$slast" ] || [ "$sfirst" -lt "$first" ] || [ "$slast" -gt $((first + win)) ]; then
			why="its events [$sfirst, $slast] are not within the window [$first, $((first + win))]"
		elif [ "${lost:-0}" = 0 ] && { [ $((10 * span)) -le $((7 * win)) ] || [ $((2 * span)) -ge "$whole" ]; }; then
			why="the file spans $span ns, the window $win ns, the recording $whole ns"
		elif have_perf && ! perf script -i "$f" --ns -F time >"$T/saved.t" 2>"$T/perf.err"; then
			why="perf script cannot read it: $(head -2 "$T/perf.err")"
		elif have_perf; then
			perf script -i "$src" --ns -F time 2>/dev/null >"$T/src.t"
			n=$(wc -l <"$T/saved.t")
			m=$(awk 'NR == FNR { t = $1 + 0; if (FNR == 1) a = t; b = t; next }
				{ t = $1 + 0 } t >= a && t <= b { k++ } END { print k + 0 }' "$T/saved.t" "$T/src.t")
			[ "$n" -gt 0 ] && [ "$n" = "$m" ] ||
				why="perf script: $n events in the saved file, $m in the recording's span"
		fi
	fi
	if [ -n "$why" ]; then
		keep_evidence "$name"
		fail "$name" "$why"
	else
		note "$name: $(basename "$f") spans $span ns of a window of $win ns (${n:-?} events, as the recording; ${lost:-0} lost in the recording)"
		pass "$name"
	fi
}

# A workload of about 2 s: bursts of pingpong, pauses between them.
REPLAY_LOAD="for i in 1 2 3 4 5 6; do $PINGPONG 2000 >/dev/null; sleep 0.25; done"

# S in the replay of tc's own recording.
view_replay_save_tc() {
	"$TC" --record "$T/src.data" -m 4096 -- sh -c "$REPLAY_LOAD" >/dev/null 2>"$T/rec.err" ||
		{ fail view_replay_save_tc "tc --record: $(tail -1 "$T/rec.err")"; return; }
	replay_save view_replay_save_tc "$T/src.data"
}

# S in the replay of perf's (rounds, perf's sample layout, its features),
# with an event tc does not use when the kernel has it.
view_replay_save_perf() {
	local ev=(-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking
		  -e sched:sched_process_fork -e sched:sched_process_exit)
	have_perf || { skip view_replay_save_perf "perf missing"; return; }
	[ -d /sys/kernel/tracing/events/sched/sched_stat_runtime ] && ev+=(-e sched:sched_stat_runtime)
	timeout 60 perf record -q -m 4096 "${ev[@]}" -a -o "$T/src.data" -- sh -c "$REPLAY_LOAD" >/dev/null 2>"$T/rec.err" ||
		{ fail view_replay_save_perf "perf record: $(tail -1 "$T/rec.err")"; return; }
	replay_save view_replay_save_perf "$T/src.data"
}

# Concurrency (run.sh): each asserts about its own recording and screen.
test_class busy view_stream view_stream_tty view_save_key view_live_flight view_replay_save_tc view_replay_save_perf
kernel_tests view_stream view_stream_tty view_save_key view_live_flight view_replay_save_tc view_replay_save_perf
