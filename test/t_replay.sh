# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# Tests of `tc --replay`, sourced by test/run.sh (see there for the helpers).
#
# Synthetic files from test/mkdata (no kernel needed) have hand-computed
# --summary and --script output: little and big endian, 64- and 32-bit
# tracepoint layouts, idle states and frequencies, a lost-events gap.
# perf recordings (kernel needed) are checked against perf sched timehist and
# against the same run in pipe mode and as recorded by tc. Broken files must
# never crash or hang tc.
#
# Uses have_perf, descendants, has_descendant and kill_workload from
# t_record.sh, which run.sh sources first.

MKDATA=$ROOT/test/mkdata
TC_SMALL=$ROOT/tc-small
SCHED_EVENTS=(-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_waking
	-e sched:sched_wakeup_new -e sched:sched_process_fork
	-e sched:sched_process_exit -e sched:sched_process_exec
	-e sched:sched_migrate_task)

# summary_cols FILE: a --summary as space-separated lines of the columns
# product.md documents plus unknown_ms (tasks) and the idle-state and
# frequency columns (CPUs), found by header name (tc may add or
# move other columns); a missing column prints as MISSING.
summary_cols() {
	awk -F'\t' '
	BEGIN {
		nt = split("tid pid comm run_ms runnable_ms sleep_ms blocked_ms io_ms switches wakeups max_delay_ms unknown_ms", tw, " ")
		nc = split("cpu busy_ms idle_ms switches idle_states_ms avg_mhz max_mhz", cw, " ")
	}
	$0 == "" { next }
	$1 == "tid" || $1 == "cpu" {
		delete col
		for (i = 1; i <= NF; i++) col[$i] = i
		blk = $1
	}
	{
		n = blk == "tid" ? nt : nc
		line = ""
		for (i = 1; i <= n; i++) {
			w = blk == "tid" ? tw[i] : cw[i]
			line = line (i > 1 ? " " : "") (w in col ? $col[w] : "MISSING")
		}
		print line
	}' "$1"
}

# stderr_ok ERRFILE: no sanitizer report, at most 5 lines (notes on the
# file, --summary's warning about missing switches, the account), each
# "tc: ...".  Prints what is wrong, if anything.
stderr_ok() {
	local l lines
	# in the shell, without a process: bad_corpus calls it 150 times
	mapfile -t lines <"$1"
	for l in "${lines[@]}"; do
		[[ $l == *Sanitizer* || $l == *"runtime error"* ]] && { echo "$l"; return; }
	done
	if [ ${#lines[@]} -gt 5 ]; then
		echo "${#lines[@]} lines on stderr"
		return
	fi
	for l in "${lines[@]}"; do
		[[ $l == "tc: "* ]] || { echo "stderr line without 'tc: ': $l"; return; }
	done
}

# ---------------------------------------------------------------- expected
# Scenario time 0 is 1 s (1000000000 ns); the times below are ms after it.
# Every task has a COMM record (time 0) before the first event.

# basic: alpha (100) and beta (200) on 2 CPUs.
#   0     cpu0 waking+wakeup alpha          alpha runnable
#   5     cpu1 beta S -> idle               cpu1's first record: beta ran at 5,
#                                           nothing known of cpu1 before
#  10     cpu0 idle -> alpha                delay 10
#  20     cpu1 waking beta                  22.5 cpu1 idle -> beta (delay 2.5)
#  30     cpu0 alpha S -> idle              35 cpu1 beta D -> idle
#  50     cpu1 wakeup alpha (hard irq, its  50.25 cpu0 idle -> alpha
#         waking missing: it may have come
#         before alpha's switch-out at 30)
#  55     cpu0 waking beta (by alpha)       56 cpu1 idle -> beta; 60 beta S -> idle
#  61     cpu0 waking beta                  62 cpu0 alpha R+ (256) -> beta
#  63     cpu1 idle -> alpha                70 cpu0 beta S -> idle
#  75     cpu1 alpha S -> idle              80 cpu0 waking alpha (the end)
# alpha: run [10,30) [50.25,62) [63,75) = 43.75; runnable [0,10) [50,50.25)
#   [62,63) = 11.25; sleep [75,80) = 5; unknown [30,50) = 20; 3 switches,
#   3 wakeups.
# beta: run [22.5,35) [56,60) [62,70) = 24.5; runnable [20,22.5) [55,56)
#   [61,62) = 4.5; sleep [5,20) [60,61) [70,80) = 26; blocked [35,55) = 20;
#   unknown [0,5); 4 switches: 3 seen, and the one before 5 that its
#   switch-out there implies.
# cpu0: idle [0,10) [30,50.25) [70,80) = 40.25, busy 39.75, 5 switches.
# cpu1: busy [22.5,35) [56,60) [63,75) = 28.5, idle 46.5, unknown [0,5),
#   7 switches.
EXP_BASIC='tid pid comm run_ms runnable_ms sleep_ms blocked_ms io_ms switches wakeups max_delay_ms unknown_ms
100 100 alpha 43.750 11.250 5.000 0.000 0.000 3 3 10.000 20.000
200 200 beta 24.500 4.500 26.000 20.000 0.000 4 3 2.500 5.000
cpu busy_ms idle_ms switches idle_states_ms avg_mhz max_mhz
0 39.750 40.250 5 - 0 0
1 28.500 46.500 7 - 0 0'

EXP_BASIC_SCRIPT='0 0 comm pid=0 tid=0 exec=0 comm=swapper
0 0 comm pid=100 tid=100 exec=0 comm=alpha
0 0 comm pid=200 tid=200 exec=0 comm=beta
1000000000 0 sched_waking comm=alpha pid=100 target_cpu=0 waker=0 irq=0
1000000000 0 sched_wakeup comm=alpha pid=100 target_cpu=0 waker=0 irq=0
1005000000 1 sched_switch prev_comm=beta prev_pid=200 prev_state=1 next_comm=swapper/1 next_pid=0
1010000000 0 sched_switch prev_comm=swapper/0 prev_pid=0 prev_state=0 next_comm=alpha next_pid=100
1020000000 1 sched_waking comm=beta pid=200 target_cpu=1 waker=0 irq=0
1022500000 1 sched_switch prev_comm=swapper/1 prev_pid=0 prev_state=0 next_comm=beta next_pid=200
1030000000 0 sched_switch prev_comm=alpha prev_pid=100 prev_state=1 next_comm=swapper/0 next_pid=0
1035000000 1 sched_switch prev_comm=beta prev_pid=200 prev_state=2 next_comm=swapper/1 next_pid=0
1050000000 1 sched_wakeup comm=alpha pid=100 target_cpu=0 waker=0 irq=1
1050250000 0 sched_switch prev_comm=swapper/0 prev_pid=0 prev_state=0 next_comm=alpha next_pid=100
1055000000 0 sched_waking comm=beta pid=200 target_cpu=1 waker=100 irq=0
1056000000 1 sched_switch prev_comm=swapper/1 prev_pid=0 prev_state=0 next_comm=beta next_pid=200
1060000000 1 sched_switch prev_comm=beta prev_pid=200 prev_state=1 next_comm=swapper/1 next_pid=0
1061000000 0 sched_waking comm=beta pid=200 target_cpu=0 waker=100 irq=0
1062000000 0 sched_switch prev_comm=alpha prev_pid=100 prev_state=256 next_comm=beta next_pid=200
1063000000 1 sched_switch prev_comm=swapper/1 prev_pid=0 prev_state=0 next_comm=alpha next_pid=100
1070000000 0 sched_switch prev_comm=beta prev_pid=200 prev_state=1 next_comm=swapper/0 next_pid=0
1075000000 1 sched_switch prev_comm=alpha prev_pid=100 prev_state=1 next_comm=swapper/1 next_pid=0
1080000000 0 sched_waking comm=alpha pid=100 target_cpu=1 waker=0 irq=0'

# power: worker (300); idle states (4294967295 leaves idle) and frequencies.
#   cpu0: freq 1000000 [0,8) 2000000 [8,40) 1200000 at 40; C1 [1,4)
#         C1 [15.5,17) C2 [17,30); idle -> worker at 5, worker S -> idle at 15
#   cpu1: freq 800000 [0.5,20) 1600000 [20,40); C2 [2,16) C3 [16,25)
#         C1 [38.5,40); idle -> worker at 26, worker D -> idle at 38
#   worker: unknown [0,4.5) runnable [4.5,5) [25.5,26) sleep [15,25.5)
#         blocked [38,40).
# cpu0: C1 4.5 ms, C2 13 ms; 1000 MHz for 8 ms, 2000 for 32: 1800 average.
# cpu1: C1 1.5, C2 14, C3 9; 800 MHz for 19.5 ms, 1600 for 20: 1205 average;
#   idle from its first record (0.5), busy [26,38).
EXP_POWER='tid pid comm run_ms runnable_ms sleep_ms blocked_ms io_ms switches wakeups max_delay_ms unknown_ms
300 300 worker 22.000 1.000 10.500 2.000 0.000 2 2 0.500 4.500
cpu busy_ms idle_ms switches idle_states_ms avg_mhz max_mhz
0 10.000 30.000 2 1:4.500,2:13.000 1800 2000
1 12.000 27.500 2 1:1.500,2:14.000,3:9.000 1205 1600'

EXP_POWER_SCRIPT='0 0 comm pid=0 tid=0 exec=0 comm=swapper
0 0 comm pid=300 tid=300 exec=0 comm=worker
1000000000 0 cpu_frequency state=1000000 cpu_id=0
1000500000 1 cpu_frequency state=800000 cpu_id=1
1001000000 0 cpu_idle state=1 cpu_id=0
1002000000 1 cpu_idle state=2 cpu_id=1
1004000000 0 cpu_idle state=4294967295 cpu_id=0
1004500000 0 sched_waking comm=worker pid=300 target_cpu=0 waker=0 irq=0
1005000000 0 sched_switch prev_comm=swapper/0 prev_pid=0 prev_state=0 next_comm=worker next_pid=300
1008000000 0 cpu_frequency state=2000000 cpu_id=0
1015000000 0 sched_switch prev_comm=worker prev_pid=300 prev_state=1 next_comm=swapper/0 next_pid=0
1015500000 0 cpu_idle state=1 cpu_id=0
1016000000 1 cpu_idle state=3 cpu_id=1
1017000000 0 cpu_idle state=2 cpu_id=0
1020000000 1 cpu_frequency state=1600000 cpu_id=1
1025000000 1 cpu_idle state=4294967295 cpu_id=1
1025500000 1 sched_waking comm=worker pid=300 target_cpu=1 waker=0 irq=0
1026000000 1 sched_switch prev_comm=swapper/1 prev_pid=0 prev_state=0 next_comm=worker next_pid=300
1030000000 0 cpu_idle state=4294967295 cpu_id=0
1038000000 1 sched_switch prev_comm=worker prev_pid=300 prev_state=2 next_comm=swapper/1 next_pid=0
1038500000 1 cpu_idle state=1 cpu_id=1
1040000000 0 cpu_frequency state=1200000 cpu_id=0'

# lost: left (400), right (500); 5 events lost, reported at 20 on cpu0:
# cpu0's records after its newest one (10) are missing.  The LOST record
# goes where the loss began (after 10, before cpu1's 12): what ran on cpu0,
# every runnable, sleeping or blocked task (its wakeup may be among cpu0's
# lost records) is unknown from there until the next event about it, and
# no task is taken for asleep before the loss's end (20); cpu1's own
# switches stand.
#   0 cpu1 waking right; 1 cpu1 idle -> right; 2 cpu0 idle -> left
#  10 cpu0 left S -> idle; 12 cpu1 right D -> idle; 20 LOST (cpu0)
#  25 cpu1 idle -> right; 27 cpu0 waking left; 28 cpu0 idle -> left
#  35 cpu1 right S -> idle; 40 cpu0 left S -> idle; 45 cpu1 waking right
# right: runnable [0,1) run [1,12) [25,35) unknown [12,25) sleep [35,45)
# left: unknown [0,2) [10,27) run [2,10) [28,40) sleep [40,45)
#   runnable [27,28)
# cpu0: nothing known before its first record (2); idle [40,45), and
#   [27,28) from the idle task's waking at 27 (the first evidence of idle
#   after the gap) = 6, busy 20, [10,27) unknown; cpu1: idle [0,1) [12,25)
#   [35,45) = 24, busy 21 (its ring lost nothing: its switches say it was
#   idle while right was unknown).
EXP_LOST='tid pid comm run_ms runnable_ms sleep_ms blocked_ms io_ms switches wakeups max_delay_ms unknown_ms
500 500 right 21.000 1.000 10.000 0.000 0.000 2 2 1.000 13.000
400 400 left 20.000 1.000 5.000 0.000 0.000 2 1 1.000 19.000
cpu busy_ms idle_ms switches idle_states_ms avg_mhz max_mhz
0 20.000 6.000 4 - 0 0
1 21.000 24.000 4 - 0 0'

EXP_LOST_SCRIPT='0 0 comm pid=0 tid=0 exec=0 comm=swapper
0 0 comm pid=400 tid=400 exec=0 comm=left
0 0 comm pid=500 tid=500 exec=0 comm=right
1000000000 1 sched_waking comm=right pid=500 target_cpu=1 waker=0 irq=0
1001000000 1 sched_switch prev_comm=swapper/1 prev_pid=0 prev_state=0 next_comm=right next_pid=500
1002000000 0 sched_switch prev_comm=swapper/0 prev_pid=0 prev_state=0 next_comm=left next_pid=400
1010000000 0 sched_switch prev_comm=left prev_pid=400 prev_state=1 next_comm=swapper/0 next_pid=0
1020000000 0 lost lost=5
1012000000 1 sched_switch prev_comm=right prev_pid=500 prev_state=2 next_comm=swapper/1 next_pid=0
1025000000 1 sched_switch prev_comm=swapper/1 prev_pid=0 prev_state=0 next_comm=right next_pid=500
1027000000 0 sched_waking comm=left pid=400 target_cpu=0 waker=0 irq=0
1028000000 0 sched_switch prev_comm=swapper/0 prev_pid=0 prev_state=0 next_comm=left next_pid=400
1035000000 1 sched_switch prev_comm=right prev_pid=500 prev_state=1 next_comm=swapper/1 next_pid=0
1040000000 0 sched_switch prev_comm=left prev_pid=400 prev_state=1 next_comm=swapper/0 next_pid=0
1045000000 1 sched_waking comm=right pid=500 target_cpu=1 waker=0 irq=0'

# ---------------------------------------------------------------- synthetic

# synth NAME SCENARIO EXP_SUMMARY EXP_SCRIPT [MKDATA_OPTIONS...]
synth() {
	local name=$1 sc=$2 exp=$3 exps=$4 rc why
	shift 4
	if ! "$MKDATA" "$@" --scenario "$sc" "$T/$name.data" 2>"$T/mk.err"; then
		fail "$name" "mkdata failed: $(head -3 "$T/mk.err")"
		return
	fi
	timeout 60 "$TC_SAN" --replay "$T/$name.data" --summary >"$T/$name.sum" 2>"$T/$name.err"
	rc=$?
	summary_cols "$T/$name.sum" >"$T/$name.got"
	why=$(stderr_ok "$T/$name.err")
	if [ "$rc" != 0 ]; then
		fail "${name}_summary" "exit status $rc: $(head -3 "$T/$name.err")"
	elif [ -n "$why" ]; then
		fail "${name}_summary" "$why"
	elif [ "$(cat "$T/$name.got")" = "$exp" ]; then
		pass "${name}_summary"
	else
		fail "${name}_summary" "got (<) vs expected (>): $(diff "$T/$name.got" <(echo "$exp") | grep '^[<>]' | tr '\n' ';')"
	fi
	timeout 60 "$TC_SAN" --replay "$T/$name.data" --script >"$T/$name.script" 2>"$T/$name.serr"
	rc=$?
	why=$(stderr_ok "$T/$name.serr")
	if [ "$rc" != 0 ]; then
		fail "${name}_script" "exit status $rc: $(head -3 "$T/$name.serr")"
	elif [ -n "$why" ]; then
		fail "${name}_script" "$why"
	elif [ "$(cat "$T/$name.script")" = "$exps" ]; then
		pass "${name}_script"
	else
		fail "${name}_script" "got (<) vs expected (>): $(diff "$T/$name.script" <(echo "$exps") | grep '^[<>]' | head -6 | tr '\n' ';')"
	fi
}

replay_basic() { synth replay_basic basic "$EXP_BASIC" "$EXP_BASIC_SCRIPT"; }
replay_basic_be() { synth replay_basic_be basic "$EXP_BASIC" "$EXP_BASIC_SCRIPT" --be; }
replay_basic_long4() { synth replay_basic_long4 basic "$EXP_BASIC" "$EXP_BASIC_SCRIPT" --long4; }
replay_basic_be_long4() {
	synth replay_basic_be_long4 basic "$EXP_BASIC" "$EXP_BASIC_SCRIPT" --be --long4
}
replay_power() { synth replay_power power "$EXP_POWER" "$EXP_POWER_SCRIPT"; }
replay_lost() { synth replay_lost lost "$EXP_LOST" "$EXP_LOST_SCRIPT"; }

# perf, an independent reader, sees in every mkdata file the samples meant
# (this checks the generator, byte order and layouts included).
mkdata_perf_reads() {
	have_perf || { skip mkdata_perf_reads "perf is not installed"; return; }
	local v n bad=
	for v in "basic 19" "basic 19 --be" "basic 19 --long4" "basic 19 --be --long4" \
		 "power 20" "lost 11"; do
		# shellcheck disable=SC2086
		set -- $v
		"$MKDATA" "${@:3}" --scenario "$1" "$T/f" 2>/dev/null &&
			n=$(timeout 60 perf script -i "$T/f" 2>/dev/null | grep -c ' sched:\| power:')
		[ "${n:-0}" = "$2" ] || bad="$bad [$v: $n samples]"
	done
	if [ -z "$bad" ]; then
		pass mkdata_perf_reads
	else
		fail mkdata_perf_reads "perf script reads other sample counts:$bad"
	fi
}

# The static build (musl, and tc's own printf, allocator and number
# parsing in place of the C library's) prints what the glibc build prints:
# --summary, --latency, --script, --ftrace, --help and errors, byte for
# byte, for the synthetic files and the committed recordings, hostile
# names included.  lostlate: the static build places its losses in a
# pass of their own first (rd_lost_scan), the other as it reads
# (rd_lost_ahead).
static_same() {
	local st=$ROOT/tc-static f m v bad= n=0
	[ -x "$st" ] || { skip static_same "no tc-static (make static needs musl-gcc)"; return; }
	for v in "basic" "basic --be" "basic --long4" "power" "lost" "lostlate"; do
		# shellcheck disable=SC2086
		set -- $v
		"$MKDATA" "${@:2}" --scenario "$1" "$T/mk-$n.data" 2>/dev/null || bad="$bad [mkdata $v]"
		n=$((n + 1))
	done
	for f in "$T"/mk-*.data "$ROOT"/test/fuzz-seeds/*.data; do
		for m in "--summary" "--summary --latency" "--script" "--script --ftrace"; do
			# shellcheck disable=SC2086
			timeout 60 "$TC" --replay "$f" $m >"$T/a" 2>"$T/a.err"
			# shellcheck disable=SC2086
			timeout 60 "$st" --replay "$f" $m >"$T/b" 2>"$T/b.err"
			cmp -s "$T/a" "$T/b" || bad="$bad [$(basename "$f") $m: stdout]"
			# stderr's last line has tc's CPU time in it
			cmp -s <(grep -v "tc's CPU" "$T/a.err") <(grep -v "tc's CPU" "$T/b.err") ||
				bad="$bad [$(basename "$f") $m: stderr]"
		done
	done
	"$TC" --help >"$T/a" 2>&1; "$st" --help >"$T/b" 2>&1
	cmp -s "$T/a" "$T/b" || bad="$bad [--help]"
	"$TC" --history 0 >"$T/a" 2>&1; "$st" --history 0 >"$T/b" 2>&1
	cmp -s "$T/a" "$T/b" || bad="$bad [an error]"
	if [ -z "$bad" ]; then
		pass static_same
	else
		fail static_same "tc-static and tc differ:$bad"
	fi
}

# Output that cannot be written is an error, not a silent success.
replay_stdout_full() {
	local rc
	[ -w /dev/full ] || { skip replay_stdout_full "no /dev/full"; return; }
	timeout 60 "$TC" --replay "$ROOT/test/fuzz-seeds/tc-record-true.data" --script >/dev/full 2>"$T/err"
	rc=$?
	if [ "$rc" = 1 ] && grep -q 'writing standard output: No space left on device' "$T/err"; then
		pass replay_stdout_full
	else
		fail replay_stdout_full "exit status $rc: $(head -3 "$T/err")"
	fi
}

# lostlate (mkdata): cpu0 loses its records from 5 ms to 32 ms, and its
# LOST record comes five rounds later, after cpu1's records of 12-30 were
# read; the file ends as perf record's does (a LOST_SAMPLES count at time
# 0), so tc places the LOST records first (rd_lost_tail, rd_lost_rec).
# left slept at 5 on cpu0 (the truth: woken and run there in the loss):
# not asleep over [5,12), where perf's merge rule, one round back, claimed
# it (sleep_ms 7); nor right over [13,24) (its waker may be among the
# lost); the loss counted once (4), from 0.004 s; the CPUs' own switches
# stand.
EXP_LOSTLATE='tid pid comm run_ms runnable_ms sleep_ms blocked_ms io_ms switches wakeups max_delay_ms unknown_ms
400 400 left 17.000 1.000 0.000 0.000 0.000 3 2 1.000 21.000
500 500 right 17.000 0.000 0.000 0.000 0.000 2 1 0.000 22.000
cpu busy_ms idle_ms switches idle_states_ms avg_mhz max_mhz
0 10.000 1.000 4 - 0 0
1 24.000 15.000 5 - 0 0'

replay_lost_late() {
	local got
	"$MKDATA" --scenario lostlate "$T/f.data" 2>"$T/mk.err" || { fail replay_lost_late "mkdata failed"; return; }
	timeout 60 "$TC_SAN" --replay "$T/f.data" --summary >"$T/sum" 2>"$T/err"
	got=$(summary_cols "$T/sum")
	if [ "$got" != "$EXP_LOSTLATE" ]; then
		fail replay_lost_late "got (<) vs expected (>): $(diff <(echo "$got") <(echo "$EXP_LOSTLATE") | grep '^[<>]' | tr '\n' ';')"
	elif ! grep -q ', lost 4 (cpu0 4 between 0.004 and 0.031 s)' "$T/err"; then
		fail replay_lost_late "the loss is not said once, from where it began: $(tail -1 "$T/err")"
	else
		pass replay_lost_late
	fi
}

# Concurrency (run.sh): synthetic files, read in moments but for the
# static build's comparison.
test_class quiet replay_basic replay_basic_be replay_basic_long4 replay_basic_be_long4 \
	replay_power replay_lost replay_lost_late mkdata_perf_reads replay_stdout_full
test_class cpu static_same
run_tests replay_basic replay_basic_be replay_basic_long4 replay_basic_be_long4 \
	replay_power replay_lost replay_lost_late mkdata_perf_reads static_same replay_stdout_full

# ---------------------------------------------------------------- bad input

# A deterministic byte stream: $1 bytes from seed $2 (Park-Miller).
prng_bytes() {
	LC_ALL=C awk -v n="$1" -v x="$2" 'BEGIN {
		for (i = 0; i < n; i++) {
			x = (x * 16807) % 2147483647
			printf "%c", int(x / 256) % 256
		}
	}'
}

# u64 (little endian) at offset $2 of file $1.
u64_at() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }

# Overwrite the byte at offset $2 of file $1 with value $3.
poke() { printf '%b' "\\x$(printf %02x "$3")" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }

# Overwrite u64 at offset $2 of file $1 with $3 (little endian).
poke64() {
	local i v=$3
	for ((i = 0; i < 8; i++)); do
		poke "$1" $(($2 + i)) $((v & 255))
		v=$((v >> 8))
	done
}

# bad_corpus NAME SRC: broken versions of the little-endian file-mode
# recording SRC in $T/c/, then tc-san on each: exit 0 or 1, no signal, no
# timeout, no sanitizer report, a few 'tc: ' lines on stderr. LeakSanitizer
# looks at the cut, random and resized files, not at the 50 flips: its scan
# at exit costs 47 ms a run here (most of the test's time), and a flipped
# byte takes the paths a cut or a random file takes.
bad_corpus() {
	local name=$1 src=$2 fsize ao asz dof dsz ft fb fbs pos i f rc why n=0 bad= lk out
	mkdir -p "$T/c"
	: >"$T/c/empty"
	head -c 10 "$src" >"$T/c/ten"
	prng_bytes 4096 12345 >"$T/c/random"
	{ printf 'PERFILE2'; prng_bytes 4088 777; } >"$T/c/random_magic"
	{ printf 'PERFILE2\x10\0\0\0\0\0\0\0'; prng_bytes 4080 4242; } >"$T/c/random_pipe"
	fsize=$(stat -c %s "$src")
	asz=$(u64_at "$src" 16)
	ao=$(u64_at "$src" 24)
	dof=$(u64_at "$src" 40)
	dsz=$(u64_at "$src" 48)
	ft=$((dof + dsz))
	fb=$(u64_at "$src" "$ft")
	fbs=$(u64_at "$src" $((ft + 8)))
	i=0
	for pos in 8 16 60 104 $((ao + 20)) $((ao + asz + 70)) $((ao + 2 * asz - 4)) \
		   "$dof" $((dof + 4)) $((dof + 20)) $((dof + dsz / 4 + 3)) \
		   $((dof + dsz / 2 + 5)) $((dof + 3 * dsz / 4 + 1)) $((ft - 1)) "$ft" \
		   $((ft + 8)) $((ft + 24)) $((fb + 5)) $((fb + fbs / 2)) $((fsize - 1)); do
		if [ "$pos" -gt 0 ] && [ "$pos" -lt "$fsize" ]; then
			head -c "$pos" "$src" >"$T/c/cut${i}_$pos"
			i=$((i + 1))
		fi
	done
	for ((i = 0; i < 50; i++)); do
		# 20 flips in the header, attrs and first records, 30 anywhere
		if [ $i -lt 20 ]; then
			pos=$(((i * 7919 + 3) % (dof + 256 < fsize ? dof + 256 : fsize)))
		else
			pos=$(((i * 104729 + 17) % fsize))
		fi
		f=$T/c/flip${i}_$pos
		cp "$src" "$f"
		poke "$f" "$pos" $((0x$(od -An -tx1 -j "$pos" -N 1 "$src" | tr -d ' ') ^ 255))
	done
	cp "$src" "$T/c/bigsize"
	poke64 "$T/c/bigsize" 48 $((fsize * 2))
	cp "$src" "$T/c/hugesize"
	poke64 "$T/c/hugesize" 48 $((1 << 62))
	local files=("$T"/c/*)
	for f in "${files[@]}"; do
		lk=1
		[[ ${f##*/} == flip* ]] && lk=0
		for mode in --summary --script; do
			n=$((n + 1))
			ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=$lk timeout 20 "$TC_SAN" --replay "$f" $mode >/dev/null 2>"$f.err"
			rc=$?
			why=$(stderr_ok "$f.err")
			if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
				why="exit status $rc${why:+, $why}"
			fi
			[ -z "$why" ] || bad="$bad [${f##*/} $mode: $why]"
		done
	done
	# what is not a recording gets no --ftrace header on stdout either
	for f in "$T/c/empty" "$T/c/ten" "$T/c/random"; do
		out=$(timeout 20 "$TC_SAN" --replay "$f" --script --ftrace 2>/dev/null)
		rc=$?
		[ "$rc" = 1 ] && [ -z "$out" ] ||
			bad="$bad [${f##*/} --script --ftrace: exit status $rc, ${#out} bytes on stdout]"
	done
	if [ -z "$bad" ]; then
		pass "$name"
	else
		fail "$name" "$(echo "$bad" | cut -c1-600)"
	fi
	note "$name: $n runs on ${#files[@]} files"
	rm -rf "$T/c"
}

bad_input_synthetic() {
	"$MKDATA" --scenario lost "$T/src" || { fail bad_input_synthetic "mkdata failed"; return; }
	bad_corpus bad_input_synthetic "$T/src"
}

test_class cpu bad_input_synthetic
test_slow 18 bad_input_synthetic
run_tests bad_input_synthetic

# ---------------------------------------------------------------- kernel

bad_input_recording() {
	if ! timeout 60 "$TC" --record "$T/src" -- sh -c 'sleep 0.2' >/dev/null 2>"$T/err"; then
		fail bad_input_recording "tc --record failed: $(head -3 "$T/err")"
		return
	fi
	bad_corpus bad_input_recording "$T/src"
}


# timehist_compare NAME FILE: tc --summary of perf recording FILE against
# perf sched timehist -s of it, task by task (run time within 1 % or 1 ms
# after initial_ms, switches within 1); passes or fails test NAME.
# A task that differs is set aside if tc found switches the kernel did not
# report for it (inferred switch-ins, missing switch-outs) or its CPU's ring
# lost records while it was there (lost_gaps): timehist charges the whole
# gap to it; or if it ran after its EXIT record: timehist drops
# that last stretch; or if tc left it unknown where its CPU's records came
# late (seen once in a perf sched record file, with old tc too).
# timehist does not count the run before a CPU's first
# switch: tc's initial_ms.  On failure the files stay in $T.
timehist_compare() {
	local name=$1 f=$2 res
	if ! timeout 120 perf sched timehist -s -i "$f" >"$T/th" 2>"$T/th.err"; then
		fail "$name" "perf sched timehist failed: $(head -3 "$T/th.err")"
		return
	fi
	timehist_tasks "$T/th" >"$T/th.tasks"
	if ! timeout 120 "$TC_SAN" --replay "$f" --summary >"$T/sum" 2>"$T/err"; then
		fail "$name" "tc --replay failed: $(head -3 "$T/err")"
		return
	fi
	if grep -q 'out of order' "$T/err"; then
		keep_evidence "$name"
		fail "$name" "records out of order in a file perf wrote: $(grep -o 'out of order [0-9]*' "$T/err")"
		return
	fi
	"$TC_SAN" --replay "$f" --script 2>/dev/null | awk '
	$3 == "exit" { split($6, a, "="); gone[a[2]] = 1 }
	$3 == "sched_process_exit" { split($5, a, "="); gone[a[2]] = 1 }
	$3 == "sched_switch" { split($5, b, "="); if (b[2] in gone) print b[2] }
	$3 == "sched_switch" { split($8, a, "="); if (a[2] in gone) print a[2] }' >"$T/after_exit"
	# and the tasks tc leaves unknown where a CPU's records came late
	# (perf's rounds do not always hold them back: a late record is not
	# applied, and timehist counts what tc calls unknown)
	"$TC" --replay "$f" --states 2>/dev/null |
		awk '$1 == "task" && $3 == "unknown" && $7 == "late" { print $2 }' >>"$T/after_exit"
	sort -u -o "$T/after_exit" "$T/after_exit"
	res=$(awk -F'\t' '
	FILENAME ~ /after_exit$/ { late[$1] = 1; next }
	FILENAME ~ /th.tasks$/ { split($0, a, " "); thsw[a[1]] = a[2]; thrun[a[1]] = a[3]; next }
	FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$0 == "" { done = 1 }
	done { next }
	{
		t = $col["tid"]; run[t] = $col["run_ms"] - $col["initial_ms"]; sw[t] = $col["switches"]
		inf[t] = $col["inferred"] + ("missing_out" in col ? $col["missing_out"] : 0) + ("lost_gaps" in col ? $col["lost_gaps"] : 0)
	}
	END {
		for (t in thrun) {
			tot++
			if (!(t in run)) {
				bad++
				if (!first) first = "tid " t " missing in tc"
				continue
			}
			d = run[t] - thrun[t]
			if (d < 0) d = -d
			ds = sw[t] - thsw[t]
			if (ds < 0) ds = -ds
			if ((d > 1 && d > thrun[t] / 100) || ds > 1) {
				if (inf[t] > 0 || t in late) { aside++; continue }
				bad++
				if (!first) first = "tid " t ": run_ms " run[t] " vs " thrun[t] ", switches " sw[t] " vs " thsw[t]
			} else {
				ok++
			}
		}
		print tot + 0, ok + 0, aside + 0, bad + 0, first
	}' "$T/after_exit" "$T/th.tasks" "$T/sum")
	# shellcheck disable=SC2086
	set -- $res
	note "$name: timehist: $1 tasks, $2 agree, $3 differ where tc found switches the kernel did not report or the task ran after its exit record"
	if [ "$1" -lt 10 ]; then
		fail "$name" "only $1 tasks in timehist's summary"
	elif [ "$4" != 0 ]; then
		keep_evidence "$name"
		fail "$name" "$4 tasks differ; first: ${*:5}"
	elif [ "$2" -lt 10 ] || [ $(($2 * 100)) -lt $(($1 * 50)) ]; then
		# this VM's kernel drops many switches out of idle under load:
		# tasks it hits are set aside, but most must still be compared
		fail "$name" "only $2 of $1 tasks compared"
	else
		pass "$name"
	fi
}

# timehist_recorded NAME PERF-ARGS...: run perf (perf record or perf sched
# record, with -o FILE added) over perf bench sched messaging, then compare
# its file with timehist (timehist_compare).
timehist_recorded() {
	local name=$1
	shift
	have_perf || { skip "$name" "perf is not installed"; return; }
	if ! timeout 120 perf "$@" -q -o "$T/p" -- perf bench sched messaging -g 4 -l 300 \
		>/dev/null 2>"$T/err"; then
		fail "$name" "perf $1 failed: $(head -3 "$T/err")"
		return
	fi
	timehist_compare "$name" "$T/p"
}

replay_timehist_agrees() { timehist_recorded replay_timehist_agrees record "${SCHED_EVENTS[@]}" -a; }

# perf record with rings of 16 MiB per CPU: rounds far larger than any
# fixed queue; every record in perf's order (none counted out of order) and
# timehist's numbers.
replay_perf_big_rings() {
	timehist_recorded replay_perf_big_rings record -m 4096 -k mono -e 'sched:*' -e power:cpu_idle -a
}

# perf sched record: its own event set, one big round per ring flush.
replay_perf_sched_record() { timehist_recorded replay_perf_sched_record sched record; }

# tc --replay -: a pipe-mode stream on standard input gives what the same
# bytes give as a file; a file-mode file on a pipe and a directory get a
# message naming what to do.
replay_stdin() {
	have_perf || { skip replay_stdin "perf is not installed"; return; }
	local why=
	if ! timeout 60 perf record -q "${SCHED_EVENTS[@]}" -a -o - -- \
		sh -c "$PINGPONG 2000 >/dev/null" >"$T/pipe.data" 2>"$T/err"; then
		fail replay_stdin "perf record -o - failed: $(head -3 "$T/err")"
		return
	fi
	"$TC_SAN" --replay "$T/pipe.data" --summary >"$T/file.sum" 2>/dev/null
	cat "$T/pipe.data" | "$TC_SAN" --replay - --summary >"$T/stdin.sum" 2>"$T/err1"
	cat "$T/pipe.data" | "$TC_SAN" --replay - --script >"$T/stdin.script" 2>/dev/null
	"$TC_SAN" --replay "$T/pipe.data" --script >"$T/file.script" 2>/dev/null
	timeout 60 perf record -q -e sched:sched_switch -a -o "$T/file.data" -- sleep 0.2 >/dev/null 2>&1
	cat "$T/file.data" | "$TC_SAN" --replay - --summary >/dev/null 2>"$T/err2"
	"$TC_SAN" --replay - --summary <"$T/file.data" >/dev/null 2>"$T/err3"
	mkdir "$T/dir.data"
	"$TC_SAN" --replay "$T/dir.data" --summary >/dev/null 2>"$T/err4"
	# a stream whose writer stopped inside a record: cut off, as a file
	# can be: what came before, a note, exit 0
	head -c $(($(stat -c %s "$T/pipe.data") - 3)) "$T/pipe.data" | "$TC_SAN" --replay - --summary >"$T/cut.sum" 2>"$T/err5"
	local rc5=$? pos cutbad=
	# cut anywhere (in its header records, in the tracing data that follows
	# one, in the samples): one cut note, no bad record, no other error
	for pos in 100 1000 3000 5000 9000 17000 33000 65000 $(($(stat -c %s "$T/pipe.data") / 2)); do
		head -c "$pos" "$T/pipe.data" | "$TC_SAN" --replay - --summary >/dev/null 2>"$T/err6"
		grep -q 'was cut off inside a record' "$T/err6" && ! grep -Eq 'bad record|unreadable|ERROR|runtime error' "$T/err6" ||
			cutbad="$cutbad [$pos: $(grep -v 'holds no records' "$T/err6" | head -2 | tr '\n' ' ')]"
	done
	if [ ! -s "$T/stdin.sum" ] || ! cmp -s "$T/file.sum" "$T/stdin.sum"; then
		why="the summary from stdin differs from the file's"
	elif ! cmp -s "$T/file.script" "$T/stdin.script"; then
		why="the script from stdin differs from the file's"
	elif ! grep -q 'pass the file name' "$T/err2"; then
		why="file mode on a pipe: $(head -1 "$T/err2")"
	elif grep -q 'stream\|cannot\|not a' "$T/err3"; then
		why="a file-mode file redirected to stdin: $(head -1 "$T/err3")"
	elif ! grep -q 'is a directory' "$T/err4"; then
		why="a directory: $(head -1 "$T/err4")"
	elif [ "$rc5" != 0 ] || [ ! -s "$T/cut.sum" ] || ! grep -q 'the stream was cut off inside a record' "$T/err5"; then
		why="a cut stream: exit status $rc5, $(wc -c <"$T/cut.sum") bytes of summary: $(head -1 "$T/err5")"
	elif [ -n "$cutbad" ]; then
		why="a stream cut at byte$cutbad"
	fi
	if [ -n "$why" ]; then
		keep_evidence replay_stdin
		fail replay_stdin "$why"
	else
		pass replay_stdin
	fi
}

# The same workload recorded at once by perf (file mode), perf (pipe mode)
# and tc. perf 6.1 cannot convert between the modes (perf inject writes
# streams it cannot read back), hence three recorders nested. Each recorder
# stamps its own copy of an event, so times may differ by a few µs a switch.
replay_three_forms() {
	have_perf || { skip replay_three_forms "perf is not installed"; return; }
	local f res cmd lost
	if ! timeout 120 perf record -q -m 1024 "${SCHED_EVENTS[@]}" -a -o "$T/p" -- \
		sh -c 'tc=$1 out=$2 pipe=$3; shift 3
			perf record -q -m 1024 "$@" -a -o - -- "$tc" --record "$out" -m 1024 -- \
				perf bench sched messaging -g 2 -l 100 >"$pipe"' \
			sh "$TC" "$T/t" "$T/pipe" "${SCHED_EVENTS[@]}" >/dev/null 2>"$T/err"; then
		fail replay_three_forms "recording failed: $(grep -v '^tc: ' "$T/err" | head -3)"
		return
	fi
	for f in p pipe t; do
		if ! timeout 120 "$TC_SAN" --replay "$T/$f" --summary >"$T/$f.sum" 2>"$T/$f.err"; then
			fail replay_three_forms "tc --replay of the $f file failed: $(head -3 "$T/$f.err")"
			return
		fi
	done
	# the forms hold the same events only if no recorder lost any
	lost=$(sed -n 's/.*, lost \([1-9][0-9]*\).*/\1/p' "$T/p.err" "$T/pipe.err" "$T/t.err" | head -1)
	if [ -n "$lost" ]; then
		skip replay_three_forms "a recorder lost $lost events under this load: the three files differ"
		return
	fi
	# run_ms within 1% or 0.2 ms, switches equal, against the perf file;
	# but for the command tc runs (its first exec): tc forks it and holds it
	# before its events are on, and that stretch is not in tc's recording
	cmd=$("$TC_SAN" --replay "$T/t" --script 2>/dev/null |
		awk '$3 == "comm" && $6 == "exec=1" { split($5, a, "="); print a[2]; exit }')
	res=$(awk -F'\t' -v cmd="${cmd:-0}" '
	FNR == 1 { fi++; for (i = 1; i <= NF; i++) col[fi, $i] = i; next }
	$0 == "" { end[fi] = 1 }
	end[fi] { next }
	$col[fi, "comm"] == "sched-messaging" {
		t = $col[fi, "tid"]; run[fi, t] = $col[fi, "run_ms"]; sw[fi, t] = $col[fi, "switches"]
		tids[t] = 1
	}
	END {
		split("perf pipe tc", nm, " ")
		for (t in tids) {
			n++
			for (f = 1; f <= 3; f++) {
				if ((f, t) in run) continue
				bad++
				if (!first) first = "tid " t " missing in the " nm[f] " file"
			}
			for (f = 2; f <= 3; f++) {
				if (!((1, t) in run) || !((f, t) in run) || (f == 3 && t == cmd)) continue
				d = run[f, t] - run[1, t]
				if (d < 0) d = -d
				if (d > max) max = d
				if (sw[f, t] != sw[1, t] || (d > 0.2 && d > run[1, t] / 100)) {
					bad++
					if (!first) first = "tid " t " " nm[f] ": run_ms " run[f, t] " vs " run[1, t] ", switches " sw[f, t] " vs " sw[1, t]
				}
			}
		}
		printf "%d %d %.3f %s\n", n, bad, max, first
	}' "$T/p.sum" "$T/pipe.sum" "$T/t.sum")
	# shellcheck disable=SC2086
	set -- $res
	note "three forms: $1 sched-messaging tasks, largest run_ms difference $3 ms"
	if [ "$1" -lt 10 ]; then
		fail replay_three_forms "only $1 sched-messaging tasks"
	elif [ "$2" != 0 ]; then
		fail replay_three_forms "$2 differences; first: ${*:4}; readers said: $(for f in p pipe t; do
			printf '%s: %s; ' "$f" "$(grep -o 'lost [0-9]*.*inferred [0-9]*\|lost [0-9]*' "$T/$f.err" | head -1)"; done)"
	else
		pass replay_three_forms
	fi
	# the pipe-mode file read from an actual pipe: the same summary
	if cat "$T/pipe" | timeout 120 "$TC_SAN" --replay /dev/stdin --summary >"$T/stdin.sum" 2>"$T/err" &&
	   cmp -s "$T/stdin.sum" "$T/pipe.sum"; then
		pass replay_from_pipe
	else
		fail replay_from_pipe "summary from a pipe differs or failed: $(head -3 "$T/err")"
	fi
}

replay_killed_perf() {
	have_perf || { skip replay_killed_perf "perf is not installed"; return; }
	local n rc
	shared killed_perf killed_perf_make
	cp "$TMP/shared/killed_perf/p" "$T/p" || { fail replay_killed_perf "no killed perf record"; return; }
	[ "$(u64_at "$T/p" 48)" = 0 ] || note "the killed perf record file has data size $(u64_at "$T/p" 48), not 0"
	timeout 60 "$TC_SAN" --replay "$T/p" --summary >"$T/sum" 2>"$T/err"
	rc=$?
	n=$(awk -F'\t' '$0 == "" { exit } NR > 1 { n++ } END { print n + 0 }' "$T/sum")
	if [ "$rc" != 0 ]; then
		fail replay_killed_perf "exit status $rc: $(head -3 "$T/err")"
	elif [ -n "$(stderr_ok "$T/err")" ]; then
		fail replay_killed_perf "$(stderr_ok "$T/err")"
	elif [ "$n" -lt 1 ]; then
		fail replay_killed_perf "no tasks in the summary"
	else
		pass replay_killed_perf
	fi
}

replay_compressed() {
	have_perf || { skip replay_compressed "perf is not installed"; return; }
	if ! perf version --build-options 2>/dev/null | grep -q 'zstd: \[ on'; then
		skip replay_compressed "this perf has no zstd (perf record -z)"
		return
	fi
	if ! timeout 60 perf record -q -z -e sched:sched_switch -a -o "$T/z" -- sleep 0.3 >/dev/null 2>"$T/err"; then
		skip replay_compressed "perf record -z failed: $(head -1 "$T/err")"
		return
	fi
	timeout 60 "$TC_SAN" --replay "$T/z" --summary >/dev/null 2>"$T/err"
	local rc=$?
	if [ "$rc" = 0 ] || [ "$rc" -gt 128 ]; then
		fail replay_compressed "exit status $rc"
	elif ! grep -q 'compressed' "$T/err"; then
		fail replay_compressed "message does not say 'compressed': $(head -3 "$T/err")"
	elif [ -n "$(stderr_ok "$T/err")" ]; then
		fail replay_compressed "$(stderr_ok "$T/err")"
	else
		pass replay_compressed
	fi
}

# A loss is counted once: perf record (6.0 on) writes at its end, besides
# its rings' LOST records, each event's own lost count (PERF_FORMAT_LOST)
# as a LOST_SAMPLES record at time 0, the same losses again (tc said
# "lost 309808 (cpu0 240609 between 7.505 and 0.000 s, ...)" where perf's
# LOST records said 154904).  Oracle: perf's dump of the file (perf
# script -D): tc's total is the LOST records' sum, or the time-0 counts'
# where those are more, and each CPU's part is its LOST records' sum.
replay_perf_lost_once() {
	have_perf || { skip replay_perf_lost_once "perf is not installed"; return; }
	local want got
	if ! timeout 120 perf record -q -m 1 "${SCHED_EVENTS[@]}" -a -o "$T/p" -- \
		perf bench sched messaging -g 2 -l 100 >/dev/null 2>"$T/err"; then
		fail replay_perf_lost_once "perf record failed: $(head -3 "$T/err")"
		return
	fi
	want=$(perf script -D -i "$T/p" 2>/dev/null | awk '
	/: PERF_RECORD_LOST: / { n = $NF; sub(/^lost:/, "", n); cpu[$1] += n; placed += n }
	/: PERF_RECORD_LOST_SAMPLES: / && $2 == 0 { n = $NF; sub(/^:/, "", n); counted += n }
	END {
		printf "%d", (placed > counted ? placed : counted)
		for (c in cpu) printf " cpu%s=%d", c, cpu[c]
		printf " (counted at the end %d)\n", counted
	}')
	if [ "${want%% *}" = 0 ]; then
		skip replay_perf_lost_once "perf's one-page rings lost nothing here"
		return
	fi
	if ! timeout 60 "$TC_SAN" --replay "$T/p" --summary >/dev/null 2>"$T/sum.err"; then
		fail replay_perf_lost_once "tc --replay failed: $(head -3 "$T/sum.err")"
		return
	fi
	got=$(sed -n 's/.*, lost \([0-9]*\) (\([^)]*\)).*/\1 \2/p' "$T/sum.err" | awk '{
		printf "%s", $1
		for (i = 2; i <= NF; i++) if ($i ~ /^cpu[0-9]+$/) c[substr($i, 4)] = $(i + 1)
		for (k in c) printf " cpu%s=%d", k, c[k]
		print ""
	}')
	note "perf's dump: lost $want; tc: lost $got"
	if [ "${got%% *}" != "${want%% *}" ]; then
		fail replay_perf_lost_once "tc says lost ${got:-nothing}, perf's dump $want: $(tail -1 "$T/sum.err")"
	elif [ "$(echo "${got#* }" | tr ' ' '\n' | sort | tr '\n' ' ')" != \
	       "$(echo "${want#* }" | sed 's/ (.*//' | tr ' ' '\n' | sort | tr '\n' ' ')" ]; then
		fail replay_perf_lost_once "per CPU, tc: ${got#* }, perf's LOST records: ${want#* }"
	else
		pass replay_perf_lost_once
	fi
}

# A task table of 64 (tc-small) and 300 short-lived processes: the model
# evicts tasks, says so, and still summarizes.
replay_evicts_tasks() {
	[ -x "$TC_SMALL" ] || { fail replay_evicts_tasks "$TC_SMALL was not built"; return; }
	local n
	if ! timeout 120 "$TC_SMALL" --record "$T/f" -- \
		sh -c 'for i in $(seq 300); do /bin/true; done' >/dev/null 2>"$T/err"; then
		fail replay_evicts_tasks "tc-small --record failed: $(head -3 "$T/err")"
		return
	fi
	if ! timeout 120 "$TC_SMALL" --replay "$T/f" --summary >"$T/sum" 2>"$T/err"; then
		fail replay_evicts_tasks "tc-small --replay --summary failed: $(head -3 "$T/err")"
		return
	fi
	n=$(sed -n 's/.*tasks evicted \([0-9]*\).*/\1/p' "$T/err")
	if [ "${n:-0}" -gt 0 ]; then
		pass replay_evicts_tasks
		note "tc-small evicted $n tasks"
	else
		fail replay_evicts_tasks "no 'tasks evicted N' with N > 0 on stderr: $(head -3 "$T/err")"
	fi
}

# --script names on stderr the samples of events it does not read (the
# killed perf record's sched_stat_runtime), as many as perf script shows
# of it once repaired;
# a recording with no event tc reads (perf stat record's) exits 1, saying so.
replay_script_left_out() {
	have_perf || { skip replay_script_left_out "perf is not installed"; return; }
	local n rc
	shared killed_perf killed_perf_make
	cp "$TMP/shared/killed_perf/p" "$T/p" && timeout 60 "$TC" --repair "$T/p" >/dev/null 2>&1
	n=$(timeout 60 perf script -i "$T/p" 2>/dev/null | grep -c 'sched:sched_stat_runtime:')
	timeout 60 "$TC_SAN" --replay "$TMP/shared/killed_perf/p" --script >"$T/out" 2>"$T/err"
	timeout 60 perf stat record -o "$T/stat" -- true >/dev/null 2>&1
	timeout 60 "$TC_SAN" --replay "$T/stat" --script >"$T/out2" 2>"$T/err2"
	rc=$?
	if [ "${n:-0}" -lt 1 ]; then
		fail replay_script_left_out "perf script shows no sched_stat_runtime in the killed perf record"
	elif ! grep -qE "left out $n samples of events tc does not read \(sched:sched_stat_runtime $n\)" "$T/err"; then
		fail replay_script_left_out "want $n sched_stat_runtime samples named: $(grep -v replayed "$T/err" | head -2)"
	elif [ ! -s "$T/stat" ]; then
		skip replay_script_left_out "perf stat record wrote no file (its left-out note passed)"
	elif [ "$rc" != 1 ] || ! grep -q "has no event tc reads: --script printed none" "$T/err2"; then
		fail replay_script_left_out "perf stat record's file: exit $rc, $(head -2 "$T/err2")"
	else
		pass replay_script_left_out
	fi
}

# perf inject writes its own command line over the recording's: tc tells
# how it was recorded from its records (a switch out of idle: not per
# task; a CPU without records: some CPUs), and reads -C 0 and per-task
# recordings after perf inject as before it (--states the same, byte for
# byte), saying so; -a's too.  A system-wide recording with no switch out
# of idle (CPUs never idle under the tests' load) is read as per task:
# more unknown, never a false claim.
replay_perf_inject() {
	if ! have_perf; then
		skip replay_perf_inject "perf is not installed"
		return
	fi
	[ "$(nproc)" -lt 2 ] && { skip replay_perf_inject "one CPU: -C 0 is every CPU"; return; }
	local how k want bad=
	for k in a c0 task; do
		case $k in
		a) how="-a" want="on every CPU" ;;
		c0) how="-C 0" want="recorded on some CPUs (1 of $(nproc) CPUs have some)" ;;
		task) how="" want="recorded per task" ;;
		esac
		# shellcheck disable=SC2086
		timeout 60 perf record -q -e sched:sched_switch -e sched:sched_waking -e sched:sched_wakeup $how \
			-o "$T/$k" -- test/pingpong 3000 >/dev/null 2>&1
		timeout 60 perf inject -i "$T/$k" -o "$T/$k.inj" 2>/dev/null
		timeout 60 "$TC_SAN" --replay "$T/$k" --states >"$T/$k.st" 2>/dev/null
		timeout 60 "$TC_SAN" --replay "$T/$k.inj" --states >"$T/$k.inj.st" 2>"$T/$k.inj.err"
		if [ "$k" != task ] && ! timeout 60 "$TC" --replay "$T/$k" --script 2>/dev/null | grep -q ' prev_pid=0 '; then
			grep -q "perf inject's, not the recording's.*recorded per task" "$T/$k.inj.err" ||
				bad="$bad; $k: no switch out of idle, not read as per task: $(head -2 "$T/$k.inj.err")"
			note "perf record $how: no switch out of idle recorded (busy CPUs): read as per task after inject"
		elif [ ! -s "$T/$k.st" ]; then
			bad="$bad; $k: no states from perf record $how"
		elif ! cmp -s "$T/$k.st" "$T/$k.inj.st"; then
			bad="$bad; $k: --states differ after perf inject ($(diff "$T/$k.st" "$T/$k.inj.st" | wc -l) lines)"
		elif ! grep -q "perf inject's, not the recording's.*$want" "$T/$k.inj.err"; then
			bad="$bad; $k: no '$want' on stderr: $(head -2 "$T/$k.inj.err")"
		fi
	done
	if [ -n "$bad" ]; then
		fail replay_perf_inject "${bad#; }"
	else
		pass replay_perf_inject
	fi
}

# Concurrency (run.sh): perf against tc on perf's recordings of perf bench
# wants what a loss makes perf and tc fill in differently (timehist: the
# tasks it touches are set aside; three forms: all the tasks must agree,
# a loss skips it); the rest reads files of its own, or its own tasks.
test_class exact replay_timehist_agrees replay_perf_big_rings replay_perf_sched_record
test_class sensitive replay_three_forms
test_class cpu bad_input_recording
test_class busy replay_stdin replay_killed_perf replay_evicts_tasks replay_perf_lost_once replay_perf_inject \
	replay_script_left_out
test_class quiet replay_compressed
test_slow 17 bad_input_recording
kernel_tests bad_input_recording replay_timehist_agrees replay_perf_big_rings \
	replay_perf_sched_record replay_stdin replay_three_forms \
	replay_killed_perf replay_compressed replay_evicts_tasks replay_perf_lost_once replay_perf_inject \
	replay_script_left_out
