# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# Tests of the answers (issue 14), sourced by test/run.sh (see there for the
# helpers): --summary --latency against perf sched latency on the same
# file, the waker chain of test/chain (D<-C<-B<-A), and --script --ftrace
# against the kernel's own trace text of the same run.

CHAIN=$ROOT/test/chain

# ans_stderr ERRFILE: prints a sanitizer report or a line that is not
# "tc: ...", if there is one.
ans_stderr() {
	grep -Em1 'Sanitizer|runtime error' "$1" || grep -vm1 '^tc: ' "$1"
}

# lat_block SUMMARY HEADER: the rows of the --latency block whose header
# starts with HEADER, tab-separated, header included.
lat_block() {
	awk -F'\t' -v h="$2" '$0 == "" { blk = 0; next } $1 == h { blk = 1 } blk' "$1"
}

# latency_perf_sched: perf sched latency -p and tc --summary --latency read
# the same perf record of test/pingpong; for both pingpong tasks the number
# of waits, their average and their maximum must agree (perf rounds to µs,
# tc truncates: 0.001 ms apart at most; perf adds a wait of 0 for a task
# first seen switching in, tc does not: one wait apart at most).
# Two differences of perf 6.1 are known, and the file avoids or measures
# them: its latency ignores sched_waking (with waking it counts preempted
# waits only; tc shows those in its preempted columns), so the file has
# sched_wakeup; and it does not take prev_state 0x100 ("R+", preempted on
# Linux 6.x) as runnable, so when a task has N such switch-outs, tc counts
# up to N more waits and only max >= perf's max is asserted for it.
latency_perf_sched() {
	local a b pids p perf_line tc_line rplus
	have_perf || { skip latency_perf_sched "perf not installed"; return; }
	timeout 60 perf record -q -o "$T/p.data" -e sched:sched_switch -e sched:sched_wakeup \
		-e sched:sched_wakeup_new -e sched:sched_migrate_task -e sched:sched_process_fork \
		-e sched:sched_process_exit -e sched:sched_stat_runtime -a -- "$PINGPONG" 2000 \
		>"$T/pp" 2>"$T/perf.err"
	pids=$(awk '/^pids/ { print $2, $3 }' "$T/pp")
	[ -n "$pids" ] || { fail latency_perf_sched "no pids from pingpong in $T: $(head -2 "$T/perf.err")"; return; }
	timeout 120 perf sched latency -p -i "$T/p.data" >"$T/lat" 2>"$T/lat.err"
	timeout 120 "$TC_SAN" --replay "$T/p.data" --summary --latency >"$T/sum" 2>"$T/sum.err"
	if grep -q ', lost [1-9]' "$T/sum.err"; then
		# tc makes the span of a ring's loss unknown; perf counts it as a wait
		skip latency_perf_sched "perf record lost events under this load: $(grep -o 'lost [0-9]*' "$T/sum.err" | head -1)"
		return
	fi
	lat_block "$T/sum" wait_tid >"$T/waits"
	timeout 120 perf script -i "$T/p.data" -F tid,event,trace >"$T/script" 2>/dev/null
	for p in $pids; do
		rplus=$(grep -c "prev_pid=$p prev_prio=[0-9]* prev_state=R+ " "$T/script")
		# perf: "pingpong:PID | 24.638 ms | 2007 | avg: 0.023 ms | max: 6.969 ms | ..."
		perf_line=$(awk -F'|' -v p="pingpong:$p" '{ t = $1; gsub(/ /, "", t) }
			t == p { s = $3; a = $4; m = $5; gsub(/[^0-9.]/, "", s); gsub(/[^0-9.]/, "", a)
				 gsub(/[^0-9.]/, "", m); print s, a, m }' "$T/lat")
		tc_line=$(awk -F'\t' -v p="$p" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$1 == p { print $c["waits"], $c["avg_ms"], $c["max_ms"] }' "$T/waits")
		# shellcheck disable=SC2086
		if [ -z "$perf_line" ] || [ -z "$tc_line" ]; then
			fail latency_perf_sched "pid $p: perf '$perf_line' tc '$tc_line' (files in $T)"
			return
		elif ! awk -v x="$perf_line" -v y="$tc_line" -v r="$rplus" 'BEGIN {
			split(x, a, " "); split(y, b, " ")
			d = b[1] - a[1]; e = a[2] - b[2]; f = a[3] - b[3]
			if (r == 0)
				exit !(d >= -1 && d <= 0 && e * e < 1.0001e-6 && f * f < 1.0001e-6)
			exit !(d >= -1 && d <= r && f < 0.0010001) }'; then
			fail latency_perf_sched "pid $p: perf waits avg max '$perf_line', tc '$tc_line', R+ switch-outs $rplus (files in $T)"
			return
		fi
		note "pid $p: perf sched latency $perf_line, tc $tc_line (waits avg_ms max_ms), R+ switch-outs $rplus"
	done
	# the longest wait listed is the largest max_ms, and says who held the CPUs
	a=$(lat_block "$T/sum" runnable_wait | awk -F'\t' 'NR == 2 { print $6 }')
	b=$(awk -F'\t' 'NR > 1 && $8 > m { m = $8 } END { print m }' "$T/waits")
	if [ -z "$a" ] || [ "$a" != "$b" ]; then
		fail latency_perf_sched "longest wait listed '$a', largest max_ms '$b' (files in $T)"
	elif lat_block "$T/sum" runnable_wait | awk -F'\t' 'NR > 1 && $9 == ""' | grep -q .; then
		fail latency_perf_sched "a wait without held_by (files in $T)"
	elif [ -n "$(ans_stderr "$T/sum.err")" ]; then
		fail latency_perf_sched "stderr: $(ans_stderr "$T/sum.err")"
	else
		pass latency_perf_sched
	fi
}

# The recording of test/chain, made once (shared, run.sh) for chain_four
# and view_chain_panel: c.data, what chain printed (out: "pids A B C D")
# and tc's stderr (err).
chain_make() { timeout 60 "$TC" --record "$1/c.data" -- "$CHAIN" >"$1/out" 2>"$1/err"; }
CHAIN_DIR=$TMP/shared/chain

# chain_recs FILE TID: the waker chain of TID's last wakeup as the records
# of FILE give it (tc --script prints each as it is: pid=, waker=, irq=),
# the oracle of tc's chain: "TID<-WAKER WAKER<-ITS_WAKER ...", 3 steps at
# most, ending at an interrupt (irq) or a waker with none before.  A step
# is the last sched_waking or sched_wakeup_new of the task at or before
# the step before it.
chain_recs() {
	"$TC" --replay "$1" --script 2>/dev/null |
		awk -v tid="$2" '$3 == "sched_waking" || $3 == "sched_wakeup_new" {
			pid = waker = irq = ""
			for (i = 4; i <= NF; i++)
				if ($i ~ /^pid=/) pid = substr($i, 5)
				else if ($i ~ /^waker=/) waker = substr($i, 7)
				else if ($i ~ /^irq=/) irq = substr($i, 5)
			k = n[pid]++; t[pid, k] = $1; w[pid, k] = irq == 1 ? "irq" : waker }
		END {
			at = "99999999999999999999"
			for (s = 0; s < 3 && tid != "irq"; s++) {
				for (k = n[tid] - 1; k >= 0 && t[tid, k] + 0 > at + 0; k--) ;
				if (k < 0) break
				printf "%s<-%s ", tid, w[tid, k]
				at = t[tid, k] - 1; tid = w[tid, k]
			}
		}'
}

# chain_four: tc records test/chain; --chain D reads the chain the records
# give (chain_recs), which is D<-C<-B<-A unless the kernel woke D, C or B
# again before the recording ended (seen: in their exit, by kdamond and by
# each other, on a VM: noted).  The records must have C's wakeup of D, B's
# of C and A's of B.
chain_four() {
	local a b c d got want
	shared chain chain_make ||
		{ fail chain_four "tc --record of test/chain failed: $(tail -2 "$CHAIN_DIR/err")"; return; }
	read -r _ a b c d <"$CHAIN_DIR/out"
	[ -n "$d" ] || { fail chain_four "test/chain printed '$(cat "$CHAIN_DIR/out")'"; return; }
	timeout 60 "$TC_SAN" --replay "$CHAIN_DIR/c.data" --summary --chain "$d" >"$T/sum" 2>"$T/sum.err"
	got=$(lat_block "$T/sum" chain_step | awk -F'\t' 'NR > 1 && NR <= 4 {
		w = $5; sub(/.*:/, "", w); printf "%s<-%s ", $3, w }')
	want=$(chain_recs "$CHAIN_DIR/c.data" "$d")
	"$TC" --replay "$CHAIN_DIR/c.data" --script 2>/dev/null | awk '$3 == "sched_waking" {
		for (i = 4; i <= NF; i++) if ($i ~ /^(pid|waker)=/) k = k " " $i; print k; k = "" }' >"$T/wakings"
	if [ "$got" != "$want" ]; then
		cp "$CHAIN_DIR/c.data" "$CHAIN_DIR/out" "$T/"
		fail chain_four "chain of D $d: '$got', the records' '$want' (D<-C<-B<-A = $d<-$c<-$b<-$a; files in $T)"
	elif ! grep -qx " pid=$d waker=$c" "$T/wakings" || ! grep -qx " pid=$c waker=$b" "$T/wakings" ||
	     ! grep -qx " pid=$b waker=$a" "$T/wakings"; then
		cp "$CHAIN_DIR/c.data" "$CHAIN_DIR/out" "$T/"
		fail chain_four "the records have no wakeup of D $d by C $c, C by B $b or B by A $a (files in $T)"
	elif [ -n "$(ans_stderr "$T/sum.err")" ]; then
		fail chain_four "stderr: $(ans_stderr "$T/sum.err")"
	else
		[ "$got" = "$d<-$c $c<-$b $b<-$a " ] ||
			note "chain_four: the kernel woke them again before the end: '$got', not D<-C<-B<-A $d<-$c<-$b<-$a"
		pass chain_four
	fi
}

# ftrace_instance: a tracefs instance (mono clock) and tc --record -Q trace
# the same run of test/pingpong; every event of tc --script --ftrace inside the
# instance's span must be in the kernel's own trace text with the same
# event, pid, flags (but need-resched) and fields (test/ftrace_cmp.awk).
ftrace_instance() {
	local tfs inst e res ev total matched flags resched maxdt
	tfs=/sys/kernel/tracing
	[ -d "$tfs/instances" ] || tfs=/sys/kernel/debug/tracing
	inst=$tfs/instances/tctest_$$
	if ! mkdir "$inst" 2>/dev/null; then
		skip ftrace_instance "no tracefs instances ($tfs/instances)"
		return
	fi
	if ! echo mono >"$inst/trace_clock" 2>/dev/null; then
		rmdir "$inst"
		skip ftrace_instance "no mono trace clock"
		return
	fi
	echo 8192 >"$inst/buffer_size_kb"
	for e in sched/sched_switch sched/sched_wakeup sched/sched_waking sched/sched_wakeup_new \
		 sched/sched_migrate_task sched/sched_process_fork sched/sched_process_exec \
		 sched/sched_process_exit power/cpu_idle power/cpu_frequency irq/irq_handler_entry \
		 irq/irq_handler_exit irq/softirq_entry irq/softirq_exit; do
		[ -e "$inst/events/$e/enable" ] && echo 1 >"$inst/events/$e/enable"
	done
	echo 1 >"$inst/tracing_on"
	timeout 60 "$TC" --record "$T/r.data" -Q -- "$PINGPONG" 3000 >"$T/out" 2>"$T/err"
	echo 0 >"$inst/tracing_on"
	cat "$inst/trace" >"$T/kernel.txt"
	echo 0 >"$inst/events/enable"
	rmdir "$inst"
	timeout 60 "$TC_SAN" --replay "$T/r.data" --script --ftrace >"$T/tc.txt" 2>"$T/tc.err"
	res=$(awk -f "$ROOT/test/ftrace_cmp.awk" "$T/kernel.txt" "$T/tc.txt")
	read -r _ total _ matched _ flags _ resched _ maxdt _ ev <<<"$(tail -1 <<<"$res")"
	if [ "$(head -1 "$T/tc.txt")" != "# tracer: nop" ]; then
		fail ftrace_instance "no '# tracer: nop' header (files in $T)"
	elif grep -q 'LOST' "$T/kernel.txt"; then
		skip ftrace_instance "the instance lost events (files in $T)"
	elif [ "${total:-0}" -lt 100 ] || [ "$matched" != "$total" ] || [ "$flags" != 0 ]; then
		fail ftrace_instance "$(tr '\n' ';' <<<"$res") (files in $T)"
	elif [[ " $ev " != *" sched_switch "* ]] || [[ " $ev " != *" sched_waking "* ]] ||
	     [[ " $ev " != *" softirq_entry "* ]] || [[ " $ev " != *" softirq_exit "* ]]; then
		fail ftrace_instance "no sched_switch, sched_waking or softirq matched: $ev (files in $T)"
	elif [ -n "$(ans_stderr "$T/tc.err")" ]; then
		fail ftrace_instance "stderr: $(ans_stderr "$T/tc.err")"
	else
		note "$total lines matched the kernel's, $resched with another need-resched flag, timestamps at most $maxdt s apart; $ev"
		pass ftrace_instance
	fi
}

# Concurrency (run.sh): perf sched latency, the kernel's trace and
# test/chain's wakeups want every event (a loss skips or fails them); perf
# sched latency, its pingpong's waits as they are alone.
test_class sensitive latency_perf_sched
test_class exact ftrace_instance chain_four
shared_by chain exact chain_four view_chain_panel
kernel_tests latency_perf_sched chain_four ftrace_instance
