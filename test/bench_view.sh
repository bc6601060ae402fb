#!/bin/bash
# make bench, second part: the live view's costs, measured in tmux panes.
#   - time to first frame (tc started -> status line on screen)
#   - bytes per frame: unchanged screen, one row changing, full redraw
#   - tc's CPU use at steady state in a 200x60 pane, idle and under
#     perf bench sched messaging
#   - frames per second at 115200 baud (stty on the pane's pty)
# Figures only, nothing asserted.  Needs root and tmux.
set -u
cd "$(dirname "$0")/.."
TC=$PWD/tc
S=tcbench$$
T="tmux -L $S"
D=$(mktemp -d /tmp/tc-bview.XXXXXX)
trap '$T kill-server 2>/dev/null; rm -rf "$D"' EXIT
export LANG=C.UTF-8 TERM=xterm-256color

# pane CMD COLSxROWS: run CMD in a fresh pane
pane() {
	$T kill-server 2>/dev/null
	sleep 0.5
	$T new-session -d -s b -x "${2%x*}" -y "${2#*x}" "$1"
}
# cpu_of PID: utime+stime in clock ticks
cpu_of() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# tcpid: tc in the pane (a child of the pane's shell)
tcpid() { pgrep -P "$($T display -p -t b '#{pane_pid}')" -x tc | head -1; }

echo "== view"
# time to first frame
pane "sleep 0.2; date +%s%N > $D/t0; $TC --live; sleep 30" 120x40
for _ in $(seq 200); do
	$T capture-pane -p -t b 2>/dev/null | grep -q ' tc live ' && break
	sleep 0.01
done
t1=$(date +%s%N)
echo "time to first frame: $(( (t1 - $(cat "$D/t0")) / 1000000 )) ms (includes tmux polling, 10 ms steps)"
$T send-keys -t b q
sleep 1

# bytes per frame: replay view of a still recording, then keys
$TC --record "$D/r.data" -- test/pingpong 2000 >/dev/null 2>&1
pane "$TC --replay $D/r.data 2> $D/full.err; sleep 30" 200x60
sleep 2
$T send-keys -t b q
sleep 1
full=$(sed -n 's/^tc: \([0-9]*\) frames, \([0-9]*\) bytes.*/\1 \2/p' "$D/full.err")
echo "replay, nothing changing: frames and bytes: $full (the first frame is the full redraw; the rest write nothing)"
pane "$TC --replay $D/r.data 2> $D/j.err; sleep 30" 200x60
sleep 1.5
$T send-keys -t b j
sleep 1
$T send-keys -t b q
sleep 1
echo "replay, one 'j' (selection moves: two rows and the details line change): $(sed -n 's/^tc: //p' "$D/j.err")"

# CPU use at steady state, 200x60, idle and under load
for load in idle messaging; do
	pane "$TC --live 2>/dev/null; sleep 30" 200x60
	sleep 3
	p=$(tcpid)
	c0=$(cpu_of "$p")
	if [ $load = messaging ]; then
		setsid timeout 25 perf bench sched messaging -g 4 -l 100000 >/dev/null 2>&1 &
		bp=$!
	fi
	sleep 10
	c1=$(cpu_of "$p")
	[ $load = messaging ] && { kill -- -$bp 2>/dev/null; wait $bp 2>/dev/null; }
	hz=$(getconf CLK_TCK)
	echo "CPU use of tc --live at 200x60, $load: $(echo "scale=1; ($c1 - $c0) * 100 / $hz / 10" | bc) % of one core"
	$T send-keys -t b q
	sleep 1
done

# frames per second at 115200 baud
pane "stty 115200; $TC --live -- test/pingpong 100000 2> $D/baud.err; sleep 30" 120x40
sleep 10
$T send-keys -t b q
sleep 2
echo "at 115200 baud, 120x40, 10 s under pingpong: $(sed -n 's/^tc: \([0-9]*\) frames.*/\1/p' "$D/baud.err") frames"
