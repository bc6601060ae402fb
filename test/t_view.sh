# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# Terminal tests of tc's view, sourced by test/run.sh (see there for the
# helpers). tmux runs tc in a detached pane of a fixed size on a private
# server (its own -L socket, no config file); send-keys types, capture-pane
# reads the screen. Every wait polls the screen or a file, up to ~10 s.
#
# The command line typed into the pane's shell is
#   stty -g >stty.before; tc ARGS; echo rc=$? >rc; stty -g >stty.after
# so the terminal settings around tc are compared for each way out.
#
# The traced workload prints nothing (a view shares the terminal with it):
# pingpong with many round trips, its output sent to /dev/null, at nice 19,
# pausing 100 us after each round trip (about 20,000 events a second): the
# live tests run four at a time and every tc traces every workload, and
# without the pause (about 200,000 events a second each) they took the
# machine. TV_WORK_BUSY has no pause: alone it takes a CPU, beside other
# tests only what they leave (view_worst_waits wants runnable waits).

TV_SOCK='' TV_PANE='' TV_TC='' TV_CMD='' TV_IDS='' TV_SERVER=''
TV_WORK="exec nice -n 19 $ROOT/test/pingpong 100000000 100 >/dev/null"
TV_WORK_BUSY="exec nice -n 19 $ROOT/test/pingpong 100000000 >/dev/null"
TV_NAME=$(basename "$TC" | cut -c1-15)

# (The helpers polled in loops match in bash, with one process a look,
# tmux's: a pipe to grep is three.)
tv_tmux() { tmux -L "$TV_SOCK" "$@"; }
tv_screen() { tv_tmux capture-pane -p -t t 2>/dev/null; }
tv_shows() { local s; s=$(tv_screen); [[ $s == *"$1"* ]]; }
tv_hides() { ! tv_shows "$1"; }
tv_has_line() { tv_screen | grep -q "$1"; }	# a line matching the regex $1
tv_status() { local s; s=$(tv_screen); printf '%s\n' "${s%%$'\n'*}"; }
tv_status_has() { local s; s=$(tv_screen); s=${s%%$'\n'*}; [[ $s == *"$1"* ]]; }
tv_details() { tv_screen | sed -n "${TV_ROWS}p"; }

# tv_wait SECONDS COMMAND...: poll COMMAND every 0.05 s until it succeeds,
# SECONDS * 20 times at most (SECONDS and more: COMMAND's own time adds).
tv_wait() {
	local i
	for ((i = 0; i < $1 * 20; i++)); do
		"${@:2}" && return 0
		nap 0.05
	done
	return 1
}

tv_alive() { [ -n "$(alive "$1")" ]; }
tv_gone() { ! tv_alive "$1"; }

# tv_begin COLS ROWS [VAR=VALUE...]: a tmux server with one pane running an
# interactive bash in $ROOT with a plain prompt; extra environment for it.
tv_begin() {
	TV_SOCK=tctest-$$-$BASHPID-$RANDOM TV_ROWS=$2 TV_TC='' TV_CMD='' TV_IDS=''
	tmux -L "$TV_SOCK" -f /dev/null new-session -d -x "$1" -y "$2" -s t -c "$ROOT" \
		"env PS1='$ ' PROMPT_COMMAND= LANG=C.UTF-8 TERM=xterm-256color ${*:3} bash --norc --noprofile -i" ||
		return 1
	tv_tmux set-option -g status off >/dev/null
	TV_SERVER=$(tv_tmux display -p '#{pid}')
	TV_PANE=$(tv_tmux display -p -t t '#{pane_pid}')
	reap_later "$TV_SERVER"
	tv_wait 10 tv_shows '$'
}

# The tc started by the pane's shell, and the command it traces.
tv_find_tc() { TV_TC=$(pgrep -P "$TV_PANE" -x "$TV_NAME" | head -1); [ -n "$TV_TC" ]; }
tv_find_cmd() { TV_CMD=$(pgrep -P "$TV_TC" | head -1); [ -n "$TV_CMD" ]; }

# tv_run ARGS: type the tc command line (ARGS quoted for the shell already);
# wait for tc, its command (when -- is in ARGS) and its status line.
tv_run() {
	rm -f "$T/stty.before" "$T/stty.after" "$T/rc"
	tv_tmux send-keys -t t -l "stty -g >$T/stty.before; $TC $1; echo rc=\$? >$T/rc; stty -g >$T/stty.after"
	tv_tmux send-keys -t t Enter
	tv_wait 10 tv_find_tc || return 1
	case $1 in *" -- "*) tv_wait 10 tv_find_cmd || return 1 ;; esac
	reap_later "$TV_TC" ${TV_CMD:+"$TV_CMD"}
	TV_IDS="$TV_TC:$(proc_start "$TV_TC")${TV_CMD:+ $TV_CMD:$(proc_start "$TV_CMD")}"
	tv_wait 10 tv_shows ' tc '
}

# tv_gone_id PID:START: that process (proc_start) has ended; its pid may
# run another one now (pids wrap: a pid reused by another test's test/sim
# was killed here, in CI)
tv_gone_id() { [ "$(proc_start "${1%%:*}")" != "${1#*:}" ] || tv_gone "${1%%:*}"; }

# Kill the server (the pane's shell and tc get SIGHUP) and make sure tc
# and its command are gone; kill them by pid if not and say so.
tv_end() {
	local left='' e
	tv_tmux kill-server 2>/dev/null
	for e in $TV_IDS; do
		tv_wait 5 tv_gone_id "$e" || { left="$left ${e%%:*}"; kill -KILL "${e%%:*}" 2>/dev/null; }
	done
	[ -z "$left" ] || echo "  note: killed what the test left:$left"
}

# Wait for tc to have exited and the shell to have run the rest of the line.
tv_wait_exit() { tv_wait 15 test -s "$T/stty.after"; }

# The status line shows durations rounded ("10.0s", "5.00s", "625ms",
# "35us"): a test never takes a value from there. It knows the exact value
# (from the file, or from the keys it sent) and may check that the status
# line shows that value as tc writes it (tv_dur).
tv_win() { tv_status | sed -n 's/.*| win \([0-9.]*[a-z]*\) .*/\1/p'; }

# tv_dur NS: a duration as the status line writes it (tc's fmt_dur).
tv_dur() {
	awk -v ns="$1" 'BEGIN {
		if (ns >= 10e9) printf "%.1fs\n", ns / 1e9
		else if (ns >= 1e9) printf "%.2fs\n", ns / 1e9
		else if (ns >= 1e6) printf "%.3gms\n", ns / 1e6
		else if (ns >= 1e3) printf "%.3gus\n", ns / 1e3
		else printf "%dns\n", ns }'
}

# tv_zoomed SPAN N: the span in ns after N times + from SPAN (tc's
# view_zoom: half, in integer ns, at least 1000).
tv_zoomed() {
	local w=$1 i
	for ((i = 0; i < $2; i++)); do
		w=$((w / 2))
		[ "$w" -ge 1000 ] || w=1000
	done
	echo "$w"
}

# tv_frames N: wait up to 10 s for N new frames of a live view (its status
# line changes: the cursor follows the time, the event rate every second).
tv_frames() {
	local i n=0 s s0
	s0=$(tv_status)
	for ((i = 0; i < 50; i++)); do
		nap 0.2
		s=$(tv_status)
		if [ "$s" != "$s0" ]; then
			n=$((n + 1)) s0=$s
			[ "$n" -ge "$1" ] && return 0
		fi
	done
	return 1
}

# tv_still: the screen is the same in two captures 0.2 s apart.
tv_still() {
	local a
	a=$(tv_screen)
	nap 0.2
	[ "$a" = "$(tv_screen)" ]
}

# tv_keys_done: a frame drawn after all keys sent so far were read (they
# are read in order): ? shows the help, x closes it.
tv_keys_done() {
	tv_tmux send-keys -t t '?'
	tv_wait 10 tv_shows 'tc keys' || return 1
	tv_tmux send-keys -t t x
	tv_wait 10 tv_hides 'tc keys'
}

ncpus_online() { grep -c '^processor' /proc/cpuinfo; }

# The screen of a live view: status line, CPU rows, the workload's row.
view_live_screen_at() {
	local name=$1 cols=$2 rows=$3 why=''
	tv_begin "$cols" "$rows" || { fail "$name" "tmux did not start"; tv_end; return; }
	if ! tv_run "--live -- sh -c '$TV_WORK'"; then
		why="tc did not start: $(tv_screen | grep -v '^$' | tail -3 | tr '\n' ' ')"
	elif ! tv_wait 10 tv_shows 'pingpong'; then
		why="no pingpong row: $(tv_screen | head -5 | tr '\n' '|')"
	elif ! tv_status | grep -q '^ tc live '; then
		why="status line: $(tv_status)"
	elif ! tv_wait 10 tv_has_line '^cpu0 '; then
		why="no cpu0 row: $(tv_screen | head -5 | tr '\n' '|')"
	elif [ "$(ncpus_online)" -gt 1 ] && ! tv_wait 10 tv_has_line '^cpu1 '; then
		why="no cpu1 row"
	elif [ "$(tv_screen | wc -l)" != "$rows" ]; then
		why="capture has $(tv_screen | wc -l) lines, pane $rows"
	fi
	tv_tmux send-keys -t t q
	if [ -z "$why" ] && ! tv_wait_exit; then
		why="q did not end tc"
	fi
	tv_end
	if [ -n "$why" ]; then fail "$name" "$why"; else pass "$name"; fi
}
view_live_80x24() { view_live_screen_at view_live_80x24 80 24; }
view_live_200x60() { view_live_screen_at view_live_200x60 200 60; }

# view_worst_waits: the L panel of a live view lists the longest runnable
# waits as "comm:tid N.NNN ms cpuN ... held by ..."; Tab shows the D spans;
# paused (the list holds still), j and Enter put the cursor on the second
# wait: following stops, the panel closes and the readout is that task's.
view_worst_waits() {
	local why='' tids sel
	tv_begin 200 40 || { fail view_worst_waits "tmux did not start"; tv_end; return; }
	if ! tv_run "--live -- sh -c '$TV_WORK_BUSY'" || ! tv_wait 10 tv_shows 'pingpong'; then
		why="tc did not start: $(tv_status)"
	else
		tv_tmux send-keys -t t L
		if ! tv_wait 10 tv_shows 'longest runnable waits in view'; then
			why="no panel after L: $(tv_screen | sed -n 4p)"
		elif ! tv_wait 10 eval "tv_screen | grep -Eq ':[0-9]+ [0-9]+\.[0-9]{3} ms cpu[0-9]+ .*held by '"; then
			why="no wait line with holders: $(tv_screen | sed -n 5p)"
		fi
	fi
	if [ -z "$why" ]; then
		tv_tmux send-keys -t t Tab
		tv_wait 10 tv_shows 'longest blocked (D) spans in view' || why="Tab: $(tv_screen | sed -n 4p)"
		tv_tmux send-keys -t t Tab Space
		tv_wait 10 tv_status_has PAUSED || why="${why:-space did not pause: $(tv_status)}"
		tv_wait 10 tv_still	# the paused panel holds still
		tids=$(tv_screen | sed -n 's/^.*:\([0-9][0-9]*\) [0-9]*\.[0-9]\{3\} ms cpu.*/\1/p' | sed -n 2p)
		[ -n "$tids" ] || why="${why:-fewer than two waits in the panel}"
	fi
	if [ -z "$why" ]; then
		tv_tmux send-keys -t t j Enter
		if ! tv_wait 10 tv_hides 'longest runnable waits'; then
			why="Enter did not close the panel"
		elif tv_status_has following; then
			why="still following after Enter: $(tv_status)"
		elif ! tv_wait 5 eval "tv_details | grep -q '^ *$tids '"; then
			sel=$(tv_details)
			why="readout '$sel', want the second wait's task $tids"
		fi
	fi
	tv_screen >"$T/screen"
	tv_tmux send-keys -t t q
	[ -n "$why" ] || tv_wait_exit || why="q did not end tc"
	tv_end
	if [ -n "$why" ]; then fail view_worst_waits "$why (screen in $T)"; else pass view_worst_waits; fi
}

# view_chain_panel: the W panel of test/chain's recording, D's row
# selected and the cursor past the end, reads the chain the records give
# (chain_recs: D <- C <- B <- A unless the kernel woke them again before
# the end); j steps to its second step, C's wakeup (C's row selected); Esc
# closes it.
view_chain_panel() {
	local why='' a b c d want title w1 w2
	shared chain chain_make ||
		{ fail view_chain_panel "tc --record of test/chain failed: $(tail -2 "$CHAIN_DIR/err")"; return; }
	read -r _ a b c d <"$CHAIN_DIR/out"
	[ -n "$d" ] || { fail view_chain_panel "test/chain printed '$(cat "$CHAIN_DIR/out")'"; return; }
	# D and the wakers of the records' chain, and of its second step
	want=$(chain_recs "$CHAIN_DIR/c.data" "$d" | awk '{ for (i = 1; i <= NF; i++) {
		split($i, s, "<-"); if (i == 1) printf "%s", s[1]; printf " %s", s[2] } }')
	read -r _ w1 w2 _ <<<"$want"
	[ -n "$w2" ] || { fail view_chain_panel "the records' chain of D $d: '$want'"; return; }
	tv_begin 200 30 || { fail view_chain_panel "tmux did not start"; tv_end; return; }
	if ! tv_run "--replay $CHAIN_DIR/c.data"; then
		why="tc did not start: $(tv_status)"
	else
		tv_tmux send-keys -t t /
		tv_tmux send-keys -t t -l "$d"
		tv_tmux send-keys -t t Enter
		tv_tmux send-keys -t t -N 250 l
		tv_tmux send-keys -t t W
		tv_wait 10 tv_shows 'wakeup chain: ' || why="no panel after W: $(tv_details)"
	fi
	title=$(tv_screen | grep -o 'wakeup chain: .*' | head -1)
	if [ -z "$why" ] && [ "$(grep -o ':[0-9][0-9]*\|<- irq' <<<"$title" | tr -d ':< -' |
				 head -"$(wc -w <<<"$want")" | xargs)" != "$want" ]; then
		why="chain: '$title', the records' $want (D<-C<-B<-A = $d<-$c<-$b<-$a)"
	fi
	if [ -z "$why" ]; then
		tv_tmux send-keys -t t j
		[ "$w2" = irq ] || w2="[^ ]*:$w2"
		if ! tv_wait 10 eval "tv_screen | grep -q '> [^ ]*:$w1 woken by $w2 at '"; then
			why="j: $(tv_screen | grep -F '> ' | head -1), want $w1 woken by $w2"
		elif ! tv_wait 5 eval "tv_details | grep -q '^ *$w1 [^ ]* at '"; then
			why="j: readout '$(tv_details)', want $w1"
		fi
		tv_tmux send-keys -t t Escape
		tv_wait 10 tv_hides 'wakeup chain: ' || why="${why:-Esc did not close the panel}"
	fi
	tv_screen >"$T/screen"
	tv_tmux send-keys -t t q
	[ -n "$why" ] || tv_wait_exit || why="q did not end tc"
	tv_end
	if [ -n "$why" ]; then fail view_chain_panel "$why (files in $T)"; else pass view_chain_panel; fi
}

# TERM=vt100 and --ascii: nothing but ASCII on the screen.
view_live_ascii() {
	local why=''
	tv_begin 80 24 || { fail view_live_ascii "tmux did not start"; tv_end; return; }
	tv_tmux send-keys -t t -l "export TERM=vt100"
	tv_tmux send-keys -t t Enter
	if ! tv_run "--live --ascii -- sh -c '$TV_WORK'"; then
		why="tc did not start: $(tv_screen | grep -v '^$' | tail -3 | tr '\n' ' ')"
	elif ! tv_wait 10 tv_shows 'pingpong'; then
		why="no pingpong row"
	else
		tv_frames 3	# a few frames with timelines
		tv_screen >"$T/screen"
		if LC_ALL=C grep -q $'[\x80-\xff]' "$T/screen"; then
			why="non-ASCII bytes on the screen: $(LC_ALL=C grep -m1 $'[\x80-\xff]' "$T/screen")"
		elif ! grep -q '^ tc live ' "$T/screen"; then
			why="status line: $(head -1 "$T/screen")"
		fi
	fi
	tv_tmux send-keys -t t q
	tv_wait_exit || why=${why:-"q did not end tc"}
	tv_end
	if [ -n "$why" ]; then fail view_live_ascii "$why"; else pass view_live_ascii; fi
}

# Keys: + zooms and stops following, 0 follows again, j selects the next
# row, space pauses and resumes, ? shows the help, q quits.
view_keys() {
	# the live window is 10 s (-w's default) following, and + halves it:
	# the status line shows exactly these
	local w0 w1 want0 want1
	want0=$(tv_dur 10000000000) want1=$(tv_dur 5000000000)
	tv_begin 200 60 || { fail view_keys "tmux did not start"; tv_end; return; }
	if ! tv_run "--live -- sh -c '$TV_WORK'" || ! tv_wait 10 tv_shows 'pingpong'; then
		fail view_keys "tc did not start: $(tv_status)"
		tv_end
		return
	fi
	if ! tv_wait 10 tv_shows '| following'; then
		fail view_keys_zoom "not following at start: $(tv_status)"
	else
		w0=$(tv_win)
		tv_tmux send-keys -t t +
		if ! tv_wait 10 tv_hides '| following'; then
			fail view_keys_zoom "still following after +: $(tv_status)"
		else
			w1=$(tv_win)
			if [ "$w0" != "$want0" ] || [ "$w1" != "$want1" ]; then
				fail view_keys_zoom "win '$w0' -> '$w1' after +, want '$want0' -> '$want1'"
			else
				pass view_keys_zoom
			fi
		fi
		tv_tmux send-keys -t t 0
		if tv_wait 10 tv_shows '| following' && [ "$(tv_win)" = "$want0" ]; then
			pass view_keys_follow_again
		else
			fail view_keys_follow_again "after 0: $(tv_status)"
		fi
	fi

	local d0
	d0=$(tv_details)
	tv_tmux send-keys -t t j
	# shellcheck disable=SC2016
	if tv_wait 10 eval '[ "$(tv_details | cut -c1-5)" != "${d0:0:5}" ]'; then
		pass view_keys_select
	else
		fail view_keys_select "details line after j: '$(tv_details)', before: '$d0'"
	fi

	tv_tmux send-keys -t t Space
	if tv_wait 10 eval 'tv_status | grep -q "^ tc PAUSED "'; then
		tv_tmux send-keys -t t Space
		if tv_wait 10 eval 'tv_status | grep -q "^ tc live "'; then
			pass view_keys_pause
		else
			fail view_keys_pause "not live again after a second space: $(tv_status)"
		fi
	else
		fail view_keys_pause "no PAUSED after space: $(tv_status)"
	fi

	tv_tmux send-keys -t t '?'
	if tv_wait 10 tv_shows 'tc keys' && tv_shows 'zoom in'; then
		tv_tmux send-keys -t t x
		if tv_wait 10 tv_hides 'tc keys'; then
			pass view_keys_help
		else
			fail view_keys_help "a key did not close the help"
		fi
	else
		fail view_keys_help "no help after ?"
	fi

	tv_tmux send-keys -t t q
	if tv_wait_exit && tv_wait 10 tv_gone "$TV_TC"; then
		pass view_keys_quit
	else
		fail view_keys_quit "tc still running after q"
	fi
	tv_end
}

# view_way_out NAME HOW: start tc, end it with HOW (a key for send-keys, or
# a signal name for kill), then: tc is gone, the terminal settings are what
# they were, the shell's standard input is not left non-blocking, the main
# screen is back, the traced command is gone and so is what it started (a
# sleep in the background). SIGKILL: the guard's work (tc's own is not run).
view_way_out() {
	local name=$1 how=$2 why='' fl
	tv_begin 100 30 || { fail "$name" "tmux did not start"; tv_end; return; }
	tv_tmux send-keys -t t -l "echo before-tc-marker"
	tv_tmux send-keys -t t Enter
	if ! tv_run "--live -- sh -c 'sleep 3000$TEST_SEQ & $TV_WORK'"; then
		fail "$name" "tc did not start: $(tv_screen | grep -v '^$' | tail -3 | tr '\n' ' ')"
		tv_end
		return
	fi
	case $how in
	SIG*) kill -s "${how#SIG}" "$TV_TC" ;;
	*) tv_tmux send-keys -t t "$how" ;;
	esac
	if ! tv_wait_exit; then
		why="tc still running after $how"
	elif ! cmp -s "$T/stty.before" "$T/stty.after"; then
		why="stty -g before '$(cat "$T/stty.before")' after '$(cat "$T/stty.after")'"
	elif fl=$(sed -n 's/^flags:[[:space:]]*//p' "/proc/$TV_PANE/fdinfo/0") && ((8#$fl & 04000)); then
		why="the shell's standard input left non-blocking (flags $fl)"
	elif ! tv_wait 10 tv_shows before-tc-marker; then
		why="main screen not back: $(tv_screen | grep -v '^$' | tail -3 | tr '\n' '|')"
	elif ! tv_wait 10 tv_gone "$TV_CMD"; then
		why="traced command $TV_CMD still running"
	elif ! tv_wait 10 eval '[ -z "$(pgrep -f "^sleep 3000$TEST_SEQ\$")" ]'; then
		why="what the command started outlived tc: $(pgrep -af "^sleep 3000$TEST_SEQ\$")"
	fi
	note "$name: $(cat "$T/rc" 2>/dev/null)"
	tv_end
	if [ -n "$why" ]; then fail "$name" "$why"; else pass "$name"; fi
}
view_restore_q() { view_way_out view_restore_q q; }
view_restore_ctrl_c() { view_way_out view_restore_ctrl_c C-c; }
view_restore_sigterm() { view_way_out view_restore_sigterm SIGTERM; }
view_restore_sighup() { view_way_out view_restore_sighup SIGHUP; }
view_restore_sigquit() { view_way_out view_restore_sigquit SIGQUIT; }
view_restore_sigkill() { view_way_out view_restore_sigkill SIGKILL; }

# Ctrl-Z: back at the shell with the terminal as it was; fg repaints; q.
view_suspend() {
	local why=''
	tv_begin 100 30 || { fail view_suspend "tmux did not start"; tv_end; return; }
	if ! tv_run "--live -- sh -c '$TV_WORK'"; then
		fail view_suspend "tc did not start"
		tv_end
		return
	fi
	tv_tmux send-keys -t t C-z
	# the shell goes on with the rest of the line while tc is stopped
	if ! tv_wait_exit; then
		why="no shell after Ctrl-Z: $(tv_status)"
	elif [ "$(ps -o stat= -p "$TV_TC" | cut -c1)" != T ]; then
		why="tc is not stopped: $(ps -o stat= -p "$TV_TC")"
	elif ! cmp -s "$T/stty.before" "$T/stty.after"; then
		why="stty -g before '$(cat "$T/stty.before")' while stopped '$(cat "$T/stty.after")'"
	elif ! tv_wait 10 tv_shows 'Stopped'; then
		why="the shell did not report tc stopped"
	fi
	if [ -z "$why" ]; then
		rm -f "$T/stty.after"
		tv_tmux send-keys -t t -l "clear; fg; stty -g >$T/stty.after"
		tv_tmux send-keys -t t Enter
		if ! tv_wait 10 eval 'tv_status | grep -q "^ tc live "'; then
			why="no repaint after fg: $(tv_screen | grep -v '^$' | head -3 | tr '\n' '|')"
		elif ! tv_wait 10 tv_shows 'cpu0'; then
			why="no cpu0 row after fg"
		else
			tv_tmux send-keys -t t q
			if ! tv_wait_exit; then
				why="q after fg did not end tc"
			elif ! cmp -s "$T/stty.before" "$T/stty.after"; then
				why="stty -g after q differs"
			fi
		fi
	fi
	tv_end
	if [ -n "$why" ]; then fail view_suspend "$why"; else pass view_suspend; fi
}

# tv_type LINE: type LINE and Enter into the pane.
tv_type() { tv_tmux send-keys -t t -l "$1"; tv_tmux send-keys -t t Enter; }

# tv_job_stopped LINE [CMD]: type LINE (a tc --record of CMD, sh if not
# given, at the prompt) and, once CMD runs, Ctrl-Z; false, with the
# caller's why set, if tc did not start or the job did not stop.
tv_job_stopped() {
	tv_type "$1"
	if ! tv_wait 10 tv_find_tc; then
		why="tc did not start"
		return 1
	fi
	reap_later "$TV_TC"
	# the command runs: tc handed it the terminal (if it does) and waits for it
	tv_wait 10 pgrep -P "$TV_TC" -x "${2:-sh}" >/dev/null
	nap 0.2
	tv_tmux send-keys -t t C-z
	tv_wait 10 tv_shows 'Stopped' && return 0
	why="Ctrl-Z did not stop the job: $(tv_screen | grep -v '^$' | tail -2 | tr '\n' ' ')"
	return 1
}

# tc --record typed at an interactive shell hands the terminal to its
# command: the command sets it and reads a line from it; Ctrl-Z stops the
# job (tc and the command: the shell says Stopped, and has its own terminal
# settings back), fg resumes both with the command's settings, and gives
# the command's exit status.  Before, the command stopped on SIGTTIN at its
# read, and tc waited with no word and ignored Ctrl-Z.
record_tty_job_control() {
	local why=''
	tv_begin 120 30 || { fail record_tty_job_control "tmux did not start"; tv_end; return; }
	if tv_job_stopped "stty -g >$T/st.before; $TC --record $T/jc.data -- sh -c 'stty -echo; read x; stty echo; echo got=\$x; exit 4' 2>$T/jc.err"; then
		tv_type "stty -g >$T/st.stopped; fg; echo fgrc=\$? >$T/rc2"
		nap 0.5
		tv_type abc
		if ! tv_wait 15 test -s "$T/rc2"; then
			why="the job did not end after fg and a line: $(tv_screen | grep -v '^$' | tail -2 | tr '\n' ' ')"
		elif [ "$(cat "$T/rc2")" != fgrc=4 ] || ! tv_shows 'got=abc'; then
			why="want got=abc and exit status 4: $(cat "$T/rc2"), $(tv_screen | grep -v '^$' | tail -3 | tr '\n' ' ')"
		elif ! cmp -s "$T/st.before" "$T/st.stopped"; then
			why="the shell got the command's terminal settings while it was stopped: $(cat "$T/st.before") $(cat "$T/st.stopped")"
		elif tv_screen | grep -qx 'abc'; then
			why="the command's settings (stty -echo) were not back after fg: abc was echoed"
		fi
	fi
	tv_end
	if [ -n "$why" ]; then fail record_tty_job_control "$why"; else pass record_tty_job_control; fi
}

# Ctrl-Z, bg, then fg while the command still runs (no SIGCONT comes with
# that fg): the command has the terminal again and reads from it.  Under
# a wrapper that does no job control (sh -c), tc is not a job of its own:
# the terminal stays tc's, and one Ctrl-Z stops the job as before.  Ctrl-Z
# stops tc and a command without the terminal.  Started with &, the
# command gets the terminal at fg.  kill %1 ends a stopped job whose
# command reads the terminal.
record_tty_bg_fg() {
	local why=''
	tv_begin 120 30 || { fail record_tty_bg_fg "tmux did not start"; tv_end; return; }
	if tv_job_stopped "$TC --record $T/bg.data -- sh -c 'sleep 2; read x; echo got=\$x; exit 3' 2>$T/bg.err"; then
		tv_type bg
		nap 0.3
		tv_type "fg; echo fgrc=\$? >$T/rc2"
		nap 3
		tv_type abc
		if ! tv_wait 15 test -s "$T/rc2" || [ "$(cat "$T/rc2")" != fgrc=3 ] || ! tv_shows 'got=abc'; then
			why="bg then fg: want got=abc and exit status 3: $(cat "$T/rc2" 2>/dev/null), $(tv_screen | grep -v '^$' | tail -3 | tr '\n' ' ')"
		fi
	fi
	if [ -z "$why" ]; then
		tv_type "clear; sh -c '$TC --record $T/w.data -- sleep 30 2>/dev/null; echo after'"
		nap 1
		tv_tmux send-keys -t t C-z
		tv_wait 10 tv_shows 'Stopped' || why="under sh -c, one Ctrl-Z did not stop the job: $(tv_screen | grep -v '^$' | tail -2 | tr '\n' ' ')"
		tv_type 'kill %1; fg'
	fi
	# Ctrl-Z reaches tc itself where its command does not get the terminal
	# (standard input not the terminal): tc and the command stop, fg goes
	# on with both (tc ignored it before)
	if [ -z "$why" ] && tv_job_stopped "clear; $TC --record $T/n.data -- sleep 1.5 </dev/null 2>/dev/null" sleep; then
		tv_type "fg; echo fgrc=\$? >$T/rc3"
		tv_wait 15 test -s "$T/rc3" && [ "$(cat "$T/rc3")" = fgrc=0 ] ||
			why="Ctrl-Z then fg without the terminal: $(cat "$T/rc3" 2>/dev/null)"
	fi
	# started in the background (&): the command stops reading the
	# terminal, tc with it (Stopped); fg gives it the terminal
	if [ -z "$why" ]; then
		tv_type "clear; $TC --record $T/a.data -- sh -c 'read x; echo got=\$x; exit 6' 2>/dev/null &"
		tv_wait 10 tv_find_tc && reap_later "$TV_TC"
		tv_type "sleep 1; fg; echo fgrc=\$? >$T/rc4"
		nap 2
		tv_type xyz
		tv_wait 15 test -s "$T/rc4" && [ "$(cat "$T/rc4")" = fgrc=6 ] && tv_shows 'got=xyz' ||
			why="& then fg: want got=xyz and exit status 6: $(cat "$T/rc4" 2>/dev/null), $(tv_screen | grep -v '^$' | tail -3 | tr '\n' ' ')"
	fi
	# kill %1 of the stopped job ends it, though its command stops again
	# on SIGTTIN when continued in the background (tc stopped with it)
	if [ -z "$why" ] && tv_job_stopped "clear; $TC --record $T/k.data -- sh -c 'read x' 2>/dev/null"; then
		tv_type "kill %1; sleep 3; jobs >$T/jobs; echo >>$T/jobs"
		if ! tv_wait 15 test -s "$T/jobs" || grep -q Stopped "$T/jobs"; then
			why="kill %1 did not end the stopped job: $(cat "$T/jobs" 2>/dev/null)"
		fi
	fi
	tv_end
	if [ -n "$why" ]; then fail record_tty_bg_fg "$why"; else pass record_tty_bg_fg; fi
}

# The command an interactive shell, whose job (not the command) holds the
# terminal and sets it when -d ends the recording: tc takes the terminal
# back from its descendant's group and restores the settings of before.
record_tty_inner_job() {
	local why=''
	tv_begin 120 30 || { fail record_tty_inner_job "tmux did not start"; tv_end; return; }
	tv_type "stty -g >$T/b1; $TC --record $T/ib.data -d 3 -- bash --norc --noprofile -i 2>/dev/null; stty -g >$T/b2"
	if ! tv_wait 10 tv_find_tc || ! tv_wait 10 pgrep -P "$TV_TC" -x bash >/dev/null; then
		why="tc or its bash did not start"
	else
		reap_later "$TV_TC"
		nap 0.5
		tv_type "sh -c 'stty -echo -icanon; sleep 60'"
		if ! tv_wait 15 test -s "$T/b2"; then
			why="the shell did not get the terminal back after -d: $(tv_screen | grep -v '^$' | tail -2 | tr '\n' ' ')"
		elif ! cmp -s "$T/b1" "$T/b2"; then
			why="the terminal's settings after -d are the inner job's: $(cat "$T/b1") $(cat "$T/b2")"
		fi
	fi
	tv_end
	if [ -n "$why" ]; then fail record_tty_inner_job "$why"; else pass record_tty_inner_job; fi
}

# product.md: recording stops when the traced command exits.  --live
# --record -- CMD: once CMD has exited (the status line says so), the file
# is finished and grows no more while the view stays up (before, it went
# on recording everything until q); tc --replay reads it whole then, and
# space does not start the capture again.
view_command_end_stops() {
	local why='' data=$T/end.data s1 s2
	tv_begin 100 30 || { fail view_command_end_stops "tmux did not start"; tv_end; return; }
	if ! tv_run "--live --record $data -- sleep 1.5"; then
		why="tc did not start"
	elif ! tv_wait 15 tv_shows 'exited'; then
		why="no 'exited' message"
	else
		tv_tmux send-keys -t t ' '
		nap 1
		s1=$(stat -c %s "$data")
		nap 1.5
		s2=$(stat -c %s "$data")
		if [ "$s1" != "$s2" ]; then
			why="the recording grew from $s1 to $s2 bytes after the command exited"
		elif ! timeout 30 "$TC" --replay "$data" --summary >/dev/null 2>"$T/end.err" ||
		     grep -q 'cut off' "$T/end.err"; then
			why="the recording is not finished while the view is up: $(head -2 "$T/end.err")"
		elif tv_status_has PAUSED; then
			why="space paused a capture that had ended: $(tv_status)"
		fi
	fi
	tv_tmux send-keys -t t q
	tv_wait_exit || why=${why:-"q did not end tc"}
	tv_end
	[ -n "$why" ] || [ "$(stat -c %s "$data")" = "$s2" ] || why="the recording changed at q"
	if [ -n "$why" ]; then fail view_command_end_stops "$why"; else pass view_command_end_stops; fi
}

# A command that writes to the terminal must not break the view: when it
# has exited (and said "exited ... q quits"), the status line is still on
# the first row. pingpong prints "pids A B" when it is done.
view_command_output() {
	local why=''
	tv_begin 100 30 || { fail view_command_output "tmux did not start"; tv_end; return; }
	if ! tv_run "--live -- $PINGPONG 50000"; then
		why="tc did not start"
	elif ! tv_wait 15 tv_shows 'exited'; then
		why="no 'exited' message"
	else
		tv_frames 3	# a few frames more
		if ! tv_status | grep -q '^ tc live '; then
			why="first row after the command wrote to the terminal: '$(tv_status)'"
		fi
	fi
	tv_tmux send-keys -t t q
	tv_wait_exit
	tv_end
	if [ -n "$why" ]; then fail view_command_output "$why"; else pass view_command_output; fi
}

# Find the task named ...pwn... with '/' (among many rows it may be off
# screen) and see whether its name shows, sanitized, in its row.
tv_find_pwn() {
	tv_tmux send-keys -t t -l /pwn
	tv_tmux send-keys -t t Enter
	tv_wait 1 eval "tv_screen | grep -qF -- '?[2J?]0;pwn?evi'"
}

# A hostile task name: no clear screen, no window title, escaped in --script.
view_hostile_name() {
	local why='' data=$T/evil.data
	tv_begin 200 60 || { fail view_hostile_name "tmux did not start"; tv_end; return; }
	tv_tmux select-pane -t t -T tc-test-title
	if ! tv_run "--live --record $data -- $ROOT/test/evilname 8"; then
		why="tc did not start: $(tv_screen | grep -v '^$' | tail -3 | tr '\n' ' ')"
	elif ! tv_wait 10 tv_find_pwn; then
		why="the name does not show as '?[2J?]0;pwn?evi': $(tv_screen | grep -n evi | head -3)"
	else
		tv_frames 2	# frames with the name in them, and its details
		if ! tv_status | grep -q '^ tc live '; then
			why="status line gone: '$(tv_status)'"
		elif ! tv_screen | sed -n 3p | grep -q '^legend '; then
			# the legend is drawn once and, the frames being diffs, never
			# again: a clear screen leaves it blank (the cpu0 row, checked
			# before, scrolls off when /pwn selects a row far down, as on a
			# machine with many tasks)
			why="legend line gone (screen cleared?): '$(tv_screen | sed -n 3p)'"
		elif [ "$(tv_tmux display -p -t t '#{pane_title}')" != tc-test-title ]; then
			why="window title set to '$(tv_tmux display -p -t t '#{pane_title}')'"
		fi
	fi
	tv_tmux send-keys -t t q
	tv_wait_exit || why=${why:-"q did not end tc"}
	tv_end
	if [ -n "$why" ]; then
		fail view_hostile_name "$why"
		return
	fi
	pass view_hostile_name
	if ! timeout 60 "$TC_SAN" --replay "$data" --script >"$T/evil.script" 2>"$T/evil.err"; then
		fail view_hostile_name_script "tc --replay --script failed: $(head -3 "$T/evil.err")"
	elif LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f-\xff]' "$T/evil.script"; then
		fail view_hostile_name_script "raw control bytes in the --script output"
	elif ! grep -qF '\x1b[2J\x1b]0;pwn\x07evi' "$T/evil.script"; then
		fail view_hostile_name_script "escaped name not found: $(grep -m2 pwn "$T/evil.script")"
	else
		pass view_hostile_name_script
	fi
}

# The view needs a terminal on stdout.
view_not_a_tty() {
	local rc
	timeout 20 "$TC" --live </dev/null >"$T/x" 2>"$T/err"
	rc=$?
	if [ "$rc" != 1 ]; then
		fail view_not_a_tty "exit status $rc, want 1: $(head -3 "$T/err")"
	elif ! grep -qi 'terminal' "$T/err"; then
		fail view_not_a_tty "no message about the terminal: $(head -3 "$T/err")"
	elif [ -s "$T/x" ]; then
		fail view_not_a_tty "wrote $(wc -c <"$T/x") bytes to stdout"
	else
		pass view_not_a_tty
	fi
}

# A recording for the replay tests: tc's own of pingpong when the kernel
# can be traced (the one t_record.sh's tests read), else test/mkdata's
# synthetic one. Sets TV_DATA to its path.
TV_DATA='' TV_DATA_NAME=''
tv_recording() {
	if [ -n "$TV_DATA" ]; then
		return 0
	elif [ -z "$KERNEL_WHY" ]; then
		pp_recording || [ "$(cat "$PP_DIR/rc" 2>/dev/null)" = 0 ] && TV_DATA=$PP_DATA TV_DATA_NAME=pingpong
	elif [ -x "$ROOT/test/mkdata" ]; then
		"$ROOT/test/mkdata" "$TMP/tv.data" >/dev/null 2>&1 && TV_DATA=$TMP/tv.data TV_DATA_NAME=cpu0
	fi
	[ -n "$TV_DATA" ]
}

# tc --replay in the view, and --speed 2 through the rolling view.
view_replay_at() {
	local name=$1 args=$2 want=$3 why=''
	if ! tv_recording; then
		skip "$name" "no recording: ${KERNEL_WHY:-tc --record failed} and no test/mkdata"
		return
	fi
	tv_begin 120 40 || { fail "$name" "tmux did not start"; tv_end; return; }
	if ! tv_run "--replay $TV_DATA $args"; then
		why="tc did not start: $(tv_screen | grep -v '^$' | tail -3 | tr '\n' ' ')"
	elif ! tv_wait 10 tv_status_has "$want"; then
		why="status line '$(tv_status)', want '$want'"
	elif ! tv_wait 10 tv_shows "$TV_DATA_NAME"; then
		why="no $TV_DATA_NAME row"
	elif ! tv_wait 10 tv_has_line '^cpu0 '; then
		why="no cpu0 row: $(tv_screen | head -5 | tr '\n' '|')"
	fi
	tv_tmux send-keys -t t q
	if ! tv_wait_exit; then
		why=${why:-"q did not end tc"}
	elif ! cmp -s "$T/stty.before" "$T/stty.after"; then
		why=${why:-"terminal settings changed"}
	elif ! grep -qx 'rc=0' "$T/rc"; then
		why=${why:-"$(cat "$T/rc") after q"}
	fi
	tv_end
	if [ -n "$why" ]; then fail "$name" "$why"; else pass "$name"; fi
}
view_replay() { view_replay_at view_replay '' ' tc replay |'; }
view_replay_speed() { view_replay_at view_replay_speed '--speed 2' ' tc replay > |'; }

# tv_resized: the screen has a details line on its last row (40) and an
# axis reaching past column 100.
tv_resized() {
	[ -n "$(tv_details)" ] && [ "$(tv_screen | sed -n 2p | sed 's/ *$//' | wc -c)" -gt 100 ]
}

# Resize: the view redraws at the new size (the axis reaches the new right
# edge, the details line moves to the new last row).
view_resize() {
	local why=''
	tv_begin 80 24 || { fail view_resize "tmux did not start"; tv_end; return; }
	if ! tv_run "--live -- sh -c '$TV_WORK'"; then
		why="tc did not start"
	else
		tv_tmux resize-window -t t -x 200 -y 40
		TV_ROWS=40
		# under the workload's load a frame can take a while: wait for both
		if ! tv_wait 20 tv_resized; then
			why="not redrawn at 200x40 in 20 s: row 40 '$(tv_details)', axis '$(tv_screen | sed -n 2p)'"
		fi
	fi
	tv_tmux send-keys -t t q
	tv_wait_exit || why=${why:-"q did not end tc"}
	tv_end
	if [ -n "$why" ]; then fail view_resize "$why"; else pass view_resize; fi
}

# ---- issue 10: history, who ran where, pause, terminals

# tv_cpu_share N COLS [ALL]: per cent of the timeline columns of the cpuN
# row (--ascii, 160 or more columns: labels are 29 wide) that are drawn:
# not blank and, without ALL, not '/' (unknown: the kernel lost events, as
# the status line says; the issue counts it as non-blank).
tv_cpu_share() {
	tv_screen | LC_ALL=C awk -v p="^cpu$1 " -v w="$2" -v all="${3:-}" '
		$0 ~ p { n = 0; for (i = 30; i <= w; i++) { c = substr($0, i, 1); if (c != "" && c != " " && (all || c != "/")) n++ }
			 printf "%d\n", n * 100 / (w - 29); exit }'
}

# tv_cpus_drawn WHAT COLS [ALL]: both CPU rows drawn over 95 % of the
# columns (with ALL, unknown counts as drawn); else sets why.
tv_cpus_drawn() {
	local c s
	for c in 0 1; do
		s=$(tv_cpu_share $c "$2" "${3:-}")
		if [ -z "$s" ] || [ "$s" -lt 95 ]; then
			why=${why:-"$1: cpu$c drawn over ${s:-no}% of the columns: $(tv_screen | grep "^cpu$c " | head -1)"}
			tv_screen >"$T/screen.$1"
			return 1
		fi
	done
}


# A recording of 2 busy CPUs by the simulator (test/sim: 400,000 steps of
# 40 tasks, 4.4 s, about 89,000 switches a CPU), replayed with 2 MiB of
# history (too little to keep the whole file exact): both CPU rows are
# drawn over 95 % of the columns at the whole zoom and zoomed in 8x at
# 1/8, 1/2 and 7/8 of it, and zoomed in the span is exact (tc read it
# again from the file: once it has, the status line says no "exact
# from"). (It was a 13 s recording of perf bench sched messaging, which
# had to run alone: 16 s of the run with one CPU idle; what is tested is
# the view's history, which any file this size exercises.)
view_history_replay() {
	local why='' f=$T/sim.data moved=0 at whole
	if ! "$ROOT/test/sim" gen --seed 7 --cpus 2 --tasks 40 --steps 400000 --tcfile "$f" >"$T/gen.err" 2>&1; then
		fail view_history_replay "test/sim gen failed: $(tail -2 "$T/gen.err")"
		return
	fi
	tv_begin 160 30 || { fail view_history_replay "tmux did not start"; tv_end; return; }
	if ! tv_run "--replay $f --history 2 --ascii --no-color" || ! tv_wait 30 tv_shows 'cpu1 '; then
		why="tc did not start: $(tv_screen | grep -v '^$' | tail -3 | tr '\n' ' ')"
	else
		tv_wait 10 tv_cpus_drawn whole 160
		whole=$(tv_win)
		for at in 16 65 114; do	# columns of the whole view: 1/8, 1/2, 7/8
			[ -n "$why" ] && break
			tv_tmux send-keys -t t 0
			tv_tmux send-keys -t t -l "$(printf 'l%.0s' $(seq $((at - moved))))"
			moved=$at
			tv_tmux send-keys -t t -l '+++'
			# the keys are read in order: zoomed in, the window is no
			# longer the whole one
			tv_wait 10 eval '[ "$(tv_win)" != "$whole" ]' ||
				why="zoom8x@$at: +++ did not zoom: $(tv_status)"
			# (tc reads the span again meanwhile: under load that took
			# more than 10 s)
			tv_wait 20 tv_cpus_drawn "zoom8x@$at" 160
			if [ -z "$why" ] && ! tv_wait 20 eval '! tv_status_has "exact from" && ! tv_status_has reading'; then
				why="zoom8x@$at: not read again exactly: $(tv_status)"
			fi
		done
	fi
	tv_tmux send-keys -t t q
	tv_wait_exit || why=${why:-"q did not end tc"}
	tv_end
	if [ -n "$why" ]; then fail view_history_replay "$why (screens in $T)"; else pass view_history_replay; rm -f "$f" "$f.truth"; fi
}

# perf bench messaging, 160 tasks, at nice 19: alone it loads the machine
# (and overflows the rings), beside other tests it takes what they leave
# (at nice 0 it held both CPUs for 19 s and slowed everything beside it).
TV_LOAD="exec nice -n 19 perf bench sched messaging -g 4 -l 100000000 >/dev/null 2>&1"

# Live under that load for 11 s with -w 10 (the window is full): both CPU
# rows drawn over 95 % of the columns.
view_history_live() {
	local why=''
	if ! have_perf; then skip view_history_live "no perf for the load"; return; fi
	if [ "$(ncpus_online)" -lt 2 ]; then skip view_history_live "one CPU"; return; fi
	tv_begin 160 30 || { fail view_history_live "tmux did not start"; tv_end; return; }
	if ! tv_run "--live -w 10 --ascii --no-color -- sh -c '$TV_LOAD'"; then
		why="tc did not start: $(tv_screen | grep -v '^$' | tail -3 | tr '\n' ' ')"
	else
		sleep 11
		# live, the rings may overflow under this load: what was lost is
		# hatched (non-blank), and the status line counts it
		tv_wait 10 tv_cpus_drawn live 160 all
	fi
	tv_tmux send-keys -t t q
	tv_wait_exit || why=${why:-"q did not end tc"}
	tv_end
	if [ -n "$why" ]; then fail view_history_live "$why (screens in $T)"; else pass view_history_live; fi
}

# tv_cursor_on N: the cpuN row's label and, with that row selected (k to
# the top, then j), the readout name spinpin at the cursor.
tv_cursor_on() {
	local i
	tv_tmux send-keys -t t -l "kkkkkkkkkkkkkkkkkkkk"
	for ((i = 0; i < 4; i++)); do
		tv_wait 2 eval "tv_details | grep -q '^cpu$1 at'" && break
		tv_tmux send-keys -t t j
	done
	tv_screen | grep -q "^cpu$1 *spinpin" && tv_details | grep -q "^cpu$1 at .*running spinpin"
}

# tv_find_spinpin N: / puts the cursor on spinpin's next run, on cpuN.
tv_find_spinpin() {
	tv_tmux send-keys -t t -l '/spinpin'
	tv_tmux send-keys -t t Enter
	tv_wait 5 eval "tv_details | grep -q 'spinpin at .*running on cpu$1'"
}

# A task pinned to CPU 0 for 1.5 s, then moved to CPU 1 for 1.5 s (taskset),
# replayed: / puts the cursor on its next run after 1/4 of the recording
# (the task's readout says cpu0; CPU 0's label and readout name it), then
# after 3/4 (cpu1, CPU 1's label and readout).
view_cpu_migrate() {
	local why='' f=$T/mig.data
	if ! command -v taskset >/dev/null; then skip view_cpu_migrate "no taskset"; return; fi
	if [ "$(ncpus_online)" -lt 2 ]; then skip view_cpu_migrate "one CPU"; return; fi
	ln -sf "$(command -v sh)" "$T/spinpin"
	timeout 60 "$TC" --record "$f" -- sh -c "taskset -c 0 $T/spinpin -c 'while :; do :; done' & p=\$!;
		sleep 1.5; taskset -p -c 1 \$p >/dev/null; sleep 1.5; kill \$p" >/dev/null 2>"$T/rec.err"
	tv_begin 160 30 || { fail view_cpu_migrate "tmux did not start"; tv_end; return; }
	if ! tv_run "--replay $f --ascii" || ! tv_wait 10 tv_shows 'spinpin'; then
		why="tc did not start or no spinpin row: $(tv_screen | grep -v '^$' | tail -3 | tr '\n' ' ')"
	elif ! tv_tmux send-keys -t t -l "$(printf 'l%.0s' $(seq 33))" || ! tv_find_spinpin 0; then
		why="first half: the task's readout: $(tv_details)"
	elif ! tv_cursor_on 0; then
		why="first half: cpu0 label/readout: $(tv_screen | grep '^cpu0 ') / $(tv_details)"
	else
		tv_tmux send-keys -t t 0
		tv_tmux send-keys -t t -l "$(printf 'l%.0s' $(seq 98))"
		if ! tv_find_spinpin 1; then
			why="second half: the task's readout: $(tv_details)"
		elif ! tv_cursor_on 1; then
			why="second half: cpu1 label/readout: $(tv_screen | grep '^cpu1 ') / $(tv_details)"
		fi
	fi
	tv_tmux send-keys -t t q
	tv_wait_exit || why=${why:-"q did not end tc"}
	tv_end
	if [ -n "$why" ]; then fail view_cpu_migrate "$why"; else pass view_cpu_migrate; rm -f "$f"; fi
}

# Pause freezes the picture: two captures 2 s apart while paused show the
# same timeline (everything but the status line).
view_pause_frozen() {
	local why=''
	tv_begin 120 30 || { fail view_pause_frozen "tmux did not start"; tv_end; return; }
	if ! tv_run "--live -- sh -c '$TV_WORK'" || ! tv_wait 10 tv_shows 'pingpong'; then
		why="tc did not start"
	else
		tv_tmux send-keys -t t Space
		if ! tv_wait 10 eval 'tv_status | grep -q "^ tc PAUSED "'; then
			why="no PAUSED after space: $(tv_status)"
		else
			tv_wait 10 tv_still	# the last frame before the pause is drawn
			tv_screen | tail -n +2 >"$T/a"
			sleep 2
			tv_screen | tail -n +2 >"$T/b"
			cmp -s "$T/a" "$T/b" || why="the picture moved while paused: $(diff "$T/a" "$T/b" | head -4 | tr '\n' '|')"
		fi
	fi
	tv_tmux send-keys -t t q
	tv_wait_exit || why=${why:-"q did not end tc"}
	tv_end
	if [ -n "$why" ]; then fail view_pause_frozen "$why"; else pass view_pause_frozen; fi
}

# TERM=vt100 LANG=C: no byte above 0x7f is written to the terminal (all
# of tc's output, through tmux pipe-pane), with the help and a move.
view_vt100_bytes() {
	local why=''
	if ! tv_recording; then skip view_vt100_bytes "no recording"; return; fi
	tv_begin 120 30 TERM=vt100 LANG=C LC_ALL=C LC_CTYPE=C || { fail view_vt100_bytes "tmux did not start"; tv_end; return; }
	tv_tmux pipe-pane -t t -O "cat >>$T/bytes"
	if ! tv_run "--replay $TV_DATA" || ! tv_wait 10 tv_shows 'cpu0'; then
		why="tc did not start"
	else
		tv_tmux send-keys -t t l j '?'
		tv_wait 10 tv_shows 'tc keys' || why="no help after ?"
		tv_tmux send-keys -t t x
		tv_wait 10 tv_hides 'tc keys' || why=${why:-"x did not close the help"}
	fi
	tv_tmux send-keys -t t q
	tv_wait_exit || why=${why:-"q did not end tc"}
	tv_tmux pipe-pane -t t
	if [ -z "$why" ] && [ ! -s "$T/bytes" ]; then
		why="pipe-pane caught nothing"
	elif [ -z "$why" ] && LC_ALL=C grep -q $'[\x80-\xff]' "$T/bytes"; then
		why="bytes above 0x7f written: $(LC_ALL=C grep -c $'[\x80-\xff]' "$T/bytes") lines, in $T/bytes"
	fi
	tv_end
	if [ -n "$why" ]; then fail view_vt100_bytes "$why"; else pass view_vt100_bytes; fi
}

# TERM=dumb: a one-line error pointing at --summary and --script, exit 1.
view_term_dumb() {
	local why=''
	if ! tv_recording; then skip view_term_dumb "no recording"; return; fi
	tv_begin 100 10 TERM=dumb || { fail view_term_dumb "tmux did not start"; tv_end; return; }
	tv_tmux send-keys -t t -l "$TC --replay $TV_DATA 2>$T/err; echo rc=\$? >$T/rc"
	tv_tmux send-keys -t t Enter
	if ! tv_wait 10 test -s "$T/rc"; then
		why="tc did not end"
	elif ! grep -qx 'rc=1' "$T/rc"; then
		why="$(cat "$T/rc"), want rc=1"
	elif [ "$(wc -l <"$T/err")" != 1 ] || ! grep -q -- '--summary' "$T/err" || ! grep -q -- '--script' "$T/err"; then
		why="error: $(head -3 "$T/err" | tr '\n' '|')"
	fi
	tv_end
	if [ -n "$why" ]; then fail view_term_dumb "$why"; else pass view_term_dumb; fi
}

# Issue 11: SIGSTOP from outside, then fg (SIGCONT): the shell put the
# terminal in line mode meanwhile; tc puts it back in raw mode, so a bare
# q (no Enter) quits.
view_sigcont() {
	local why=''
	tv_begin 100 30 || { fail view_sigcont "tmux did not start"; tv_end; return; }
	if ! tv_run "--live -- sh -c '$TV_WORK'"; then
		fail view_sigcont "tc did not start"
		tv_end
		return
	fi
	kill -STOP "$TV_TC"
	if ! tv_wait_exit; then
		why="the shell did not take the terminal back after SIGSTOP"
	else
		rm -f "$T/stty.after"
		tv_tmux send-keys -t t -l "clear; fg; stty -g >$T/stty.after"
		tv_tmux send-keys -t t Enter
		if ! tv_wait 10 eval 'tv_status | grep -q "^ tc live "'; then
			why="no view after fg: $(tv_screen | grep -v '^$' | head -3 | tr '\n' '|')"
		else
			tv_frames 2	# tc's loop runs again
			tv_tmux send-keys -t t q
			if ! tv_wait_exit; then
				why="a bare q after SIGSTOP and fg did not end tc (line mode?)"
			elif ! cmp -s "$T/stty.before" "$T/stty.after"; then
				why="stty -g after q differs"
			fi
		fi
	fi
	tv_end
	if [ -n "$why" ]; then fail view_sigcont "$why"; else pass view_sigcont; fi
}

# The live view ended by q, and by -d, stops a member of the command's group
# that ignores SIGTERM and a setsid daemon, with exit status 0 (as --record
# when tc ends the command); the command has no extra /dev/null descriptor.
view_orphans_at() {
	local name=$1 args=$2 how=$3 why='' a=$((4100 + TEST_SEQ % 800)) n
	local b=$((a + 1000))
	tv_begin 100 30 || { fail "$name" "tmux did not start"; tv_end; return; }
	if ! tv_run "--live $args -- sh -c 'ls -l /proc/\$\$/fd >$T/fds; (trap \"\" TERM; exec sleep $a) & setsid sleep $b & $TV_WORK'"; then
		fail "$name" "tc did not start: $(tv_screen | grep -v '^$' | tail -3 | tr '\n' ' ')"
		tv_end
		return
	fi
	if [ -n "$how" ]; then
		# once both run (the first ignores SIGTERM from its exec on)
		tv_wait 10 eval "[ \"\$(pgrep -cfx 'sleep ($a|$b)')\" = 2 ]" ||
			note "$name: sleep $a and $b not both running"
		tv_tmux send-keys -t t "$how"
	fi
	if ! tv_wait_exit; then
		why="tc still running"
	elif ! tv_wait 5 eval "! pgrep -fx 'sleep ($a|$b)' >/dev/null"; then
		why="outlived tc: $(pgrep -fax "sleep ($a|$b)" | tr '\n' ';')"
	elif ! grep -qx 'rc=0' "$T/rc"; then
		why="$(cat "$T/rc"), want rc=0 as for --record"
	elif n=$(grep -c /dev/null "$T/fds"); [ "$n" != 3 ]; then
		why="the command has $n descriptors on /dev/null, want 3: $(tr '\n' ';' <"$T/fds")"
	fi
	pkill -KILL -fx "sleep ($a|$b)"
	tv_end
	if [ -n "$why" ]; then fail "$name" "$why"; else pass "$name"; fi
}
view_orphans_q() { view_orphans_at view_orphans_q '' q; }
view_orphans_duration() { view_orphans_at view_orphans_duration '-d 2' ''; }
view_orphans_ctrl_c() { view_orphans_at view_orphans_ctrl_c '' C-c; }

# A crafted recording (cpu_idle states of 2^31 and more, a huge frequency,
# CPU numbers out of range) replays in the view without a crash, with
# zoom and pan; the sanitizer build reports nothing.
view_hostile_file() {
	local why='' TC=$TC_SAN TV_NAME
	TV_NAME=$(basename "$TC_SAN" | cut -c1-15)
	"$ROOT/test/mkdata" --scenario hostile "$T/h.data" || { fail view_hostile_file "mkdata failed"; return; }
	tv_begin 100 30 || { fail view_hostile_file "tmux did not start"; tv_end; return; }
	if ! tv_run "--replay $T/h.data 2>$T/err"; then
		why="tc did not start: $(tv_screen | grep -v '^$' | tail -3 | tr '\n' ' ')"
	else
		tv_tmux send-keys -t t -l "+++LLH----jj0"
		tv_keys_done
		tv_tmux send-keys -t t q
		if ! tv_wait_exit; then
			why="tc did not end after q"
		elif ! grep -qx 'rc=0' "$T/rc"; then
			why="$(cat "$T/rc"): $(grep -m1 -E 'ERROR|runtime error' "$T/err")"
		fi
	fi
	tv_end
	if [ -n "$why" ]; then fail view_hostile_file "$why (files in $T)"; else pass view_hostile_file; fi
}

# Recordings that make fuzz found (times near 2^64): the axis of the view
# overflowed an int, or drew ticks for seconds. Each replays in the view
# (tc-san) and quits on q.
view_fuzz_found() {
	local why='' TC=$TC_SAN TV_NAME f
	TV_NAME=$(basename "$TC_SAN" | cut -c1-15)
	# view-axis-overflow holds no event: the view refuses it and says so
	# (test/unit's view_axis_digits draws its times near 2^64)
	tv_begin 100 30 || why="tmux did not start"
	rm -f "$T/rc" "$T/stty.after"
	tv_tmux send-keys -t t -l "$TC --replay $ROOT/test/fuzz-seeds/view-axis-overflow.data 2>$T/o.err; echo rc=\$? >$T/rc; stty -g >$T/stty.after"
	tv_tmux send-keys -t t Enter
	if [ -z "$why" ] && ! tv_wait_exit; then
		why="view-axis-overflow: tc did not end"
	elif [ -z "$why" ] && { ! grep -qx 'rc=1' "$T/rc" || grep -Eq 'ERROR|runtime error' "$T/o.err" ||
				 ! grep -q 'has no scheduler or power events.*nothing to show' "$T/o.err"; }; then
		why="view-axis-overflow: not refused as empty: $(cat "$T/rc") $(tail -2 "$T/o.err" | tr '\n' ' ')"
	fi
	tv_end
	for f in view-axis-slow; do
		[ -n "$why" ] && break
		tv_begin 100 30 || { why="tmux did not start"; break; }
		if ! tv_run "--replay $ROOT/test/fuzz-seeds/$f.data 2>$T/$f.err"; then
			why="$f: no view: $(tv_screen | grep -v '^$' | tail -2 | tr '\n' ' ')"
		else
			tv_tmux send-keys -t t -l "+-LH0"
			tv_keys_done
			tv_tmux send-keys -t t q
			if ! tv_wait_exit; then
				why="$f: tc did not end after q"
			elif ! grep -qx 'rc=0' "$T/rc"; then
				why="$f: $(cat "$T/rc"): $(grep -m1 -E 'ERROR|runtime error' "$T/$f.err")"
			fi
		fi
		tv_end
		[ -n "$why" ] && break
	done
	if [ -n "$why" ]; then fail view_fuzz_found "$why (files in $T)"; else pass view_fuzz_found; fi
}

# A fatal signal in the view: the terminal is restored, then the
# sanitizer's handler runs and reports (tc's handler hands over to it).
view_fatal_signal() {
	local why='' TV_NAME
	if [ "$TC_SAN" = "$TC" ] || ! tv_recording; then
		skip view_fatal_signal "no tc-san, or no recording"
		return
	fi
	local TC=$TC_SAN
	TV_NAME=$(basename "$TC_SAN" | cut -c1-15)
	tv_begin 100 30 || { fail view_fatal_signal "tmux did not start"; tv_end; return; }
	if ! tv_run "--replay $TV_DATA 2>$T/err"; then
		why="tc did not start"
	else
		kill -SEGV "$TV_TC"
		if ! tv_wait_exit; then
			why="tc still running after SIGSEGV"
		elif ! cmp -s "$T/stty.before" "$T/stty.after"; then
			why="terminal not restored: stty -g before '$(cat "$T/stty.before")' after '$(cat "$T/stty.after")'"
		elif ! grep -q 'AddressSanitizer' "$T/err"; then
			why="no sanitizer report: $(head -3 "$T/err")"
		fi
	fi
	tv_end
	if [ -n "$why" ]; then fail view_fatal_signal "$why (files in $T)"; else pass view_fatal_signal; fi
}

if ! command -v tmux >/dev/null; then
	for t in view_live_80x24 view_live_200x60 view_live_ascii view_keys view_restore_q \
		 view_restore_ctrl_c view_restore_sigterm view_restore_sighup view_restore_sigquit view_restore_sigkill \
		 view_suspend view_command_output view_command_end_stops record_tty_job_control record_tty_bg_fg record_tty_inner_job \
		 view_hostile_name view_replay view_replay_speed \
		 view_resize view_history_replay view_history_live view_cpu_migrate view_pause_frozen \
		 view_vt100_bytes view_term_dumb view_sigcont view_orphans_q view_orphans_duration \
		 view_orphans_ctrl_c view_hostile_file view_fuzz_found view_fatal_signal \
		 view_worst_waits view_chain_panel; do
		skip "$t" "tmux is not installed (apt-get install tmux)"
	done
	run_tests view_not_a_tty
else
	# Concurrency (run.sh): every test has a tmux server of its own; the
	# live ones run a workload (busy), the replays of small files are
	# quiet; view_history_replay reads the simulator's file (cpu).
	test_class quiet view_not_a_tty view_replay view_replay_speed view_vt100_bytes \
		view_term_dumb view_hostile_file view_fatal_signal view_fuzz_found view_chain_panel
	# view_cpu_migrate's recording must have its spinner on top: beside
	# busy tests (pingpong, a task pinned to CPU 0) it had not, and failed
	test_class exact view_cpu_migrate
	test_class busy view_history_live view_pause_frozen view_live_80x24 \
		view_live_200x60 view_live_ascii view_keys view_restore_q view_restore_ctrl_c \
		view_restore_sigterm view_restore_sighup view_restore_sigquit view_restore_sigkill view_suspend \
		view_command_output view_command_end_stops record_tty_job_control record_tty_bg_fg record_tty_inner_job \
		view_hostile_name view_resize view_sigcont view_orphans_q \
		view_orphans_duration view_orphans_ctrl_c view_worst_waits
	test_slow 13 view_history_live
	test_slow 6 view_history_replay view_cpu_migrate
	shared_by pp exact view_replay view_replay_speed view_vt100_bytes view_term_dumb \
		view_fatal_signal
	run_tests view_not_a_tty view_replay view_replay_speed view_vt100_bytes view_term_dumb \
		view_hostile_file view_fatal_signal view_fuzz_found view_history_replay
	kernel_tests view_history_live view_cpu_migrate view_pause_frozen
	kernel_tests view_live_80x24 view_live_200x60 view_live_ascii view_keys \
		view_restore_q view_restore_ctrl_c view_restore_sigterm view_restore_sighup \
		view_restore_sigquit view_restore_sigkill view_suspend view_command_output view_command_end_stops record_tty_job_control \
		record_tty_bg_fg record_tty_inner_job view_hostile_name view_resize \
		view_sigcont view_orphans_q view_orphans_duration view_orphans_ctrl_c \
		view_worst_waits view_chain_panel
fi
