# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# Tests of the state model on real recordings of this machine, sourced by
# test/run.sh (see there for the helpers).  This kind of VM drops events
# (switches out of idle on a CPU, switch-outs of some threads), so these
# check that tc's picture stays possible and true where the trace is not
# complete (design.md, "State rules"):
#
#   model_busy_share     a mixed workload recorded by tc: per CPU, tc's busy
#                        share within 5 percentage points of /proc/stat's over
#                        the same time, and the tasks' run time on each CPU
#                        never more than the recording's length
#   model_timehist       the same recording: tasks with no inferred or
#                        missing switches equal perf sched timehist
#   model_pingpong_io    pingpong with and without -I: switches per task
#                        within 1 %, wakeups within 1 % of the task's sleeps
#                        (switch-outs S or D) in both, the right I/O calls
#   model_migrations_proc
#                        a shell that moves itself between CPUs: tc's
#                        migrations bracket the kernel's se.nr_migrations

MODEL_MIX=$TMP/shared/model_mix/mix.data

# model_mix_record: record the mixed workload into $MODEL_MIX once (shared,
# run.sh: pipe ping-pong, short sleeps, a CPU spinner, many small
# syscalls), with /proc/stat before and after in $MODEL_MIX.stat0 and
# .stat1.  Returns 1, with the reason in $MODEL_MIX.why, if the recording
# failed.
model_mix_record() { shared model_mix model_mix_make; }
model_mix_make() {
	# /proc/stat is read by the traced command itself, first and last, so
	# that its span lies within the recording's
	timeout 120 "$TC" --record "$MODEL_MIX" -m 4096 -- sh -c '
		head -3 /proc/stat >"$2"
		pp=$1
		"$pp" 10000 >/dev/null &
		i=0; while [ $i -lt 300 ]; do sleep 0.002; i=$((i + 1)); done &
		timeout 2 sh -c "while :; do :; done" &
		dd if=/dev/zero of=/dev/null bs=512 count=100000 2>/dev/null &
		wait
		head -3 /proc/stat >"$3"' sh "$PINGPONG" "$MODEL_MIX.stat0" "$MODEL_MIX.stat1" >/dev/null 2>"$MODEL_MIX.err"
	local rc=$?
	if [ "$rc" != 0 ]; then
		echo "tc --record: exit status $rc: $(head -3 "$MODEL_MIX.err")" >"$MODEL_MIX.why"
		return 1
	fi
	timeout 120 "$TC_SAN" --replay "$MODEL_MIX" --summary >"$MODEL_MIX.sum" 2>"$MODEL_MIX.sumerr"
	rc=$?
	if [ "$rc" != 0 ]; then
		echo "tc --replay --summary: exit status $rc: $(head -3 "$MODEL_MIX.sumerr")" >"$MODEL_MIX.why"
		return 1
	fi
}

# model_keep NAME: a failing test's files stay in $T, which is under $TMP
# (removed on exit): copy them to /tmp/tc-NAME and say where.
model_keep() {
	local d=/tmp/tc-$1
	rm -rf "$d" && mkdir -p "$d" && cp -r "$T"/. "$MODEL_MIX"* "$d"/ 2>/dev/null
	note "files kept in $d"
}

model_busy_share() {
	local res first last
	if ! model_mix_record; then
		fail model_busy_share "$(cat "$MODEL_MIX.why")"
		return
	fi
	# the recording's length: its first and last event
	script "$MODEL_MIX" "$T/script"
	first=$(awk '$1 != 0 { print $1; exit }' "$T/script")
	last=$(tail -1 "$T/script" | awk '{ print $1 }')
	res=$(awk -F'\t' -v len="$(( (last - first) / 1000 ))" '
	FILENAME ~ /stat0$/ && $1 ~ /^cpu[0-9]/ { split($0, f, " "); b0[substr(f[1], 4)] = f[2] + f[3] + f[4] + f[7] + f[8] + f[9]; i0[substr(f[1], 4)] = f[5] + f[6]; next }
	FILENAME ~ /stat1$/ && $1 ~ /^cpu[0-9]/ { split($0, f, " "); b1[substr(f[1], 4)] = f[2] + f[3] + f[4] + f[7] + f[8] + f[9]; i1[substr(f[1], 4)] = f[5] + f[6]; next }
	FILENAME ~ /stat[01]$/ { next }
	$1 == "cpu" { for (i = 1; i <= NF; i++) col[$i] = i; on = 1; next }
	on && $1 != "" {
		c = $1; n++
		busy = $col["busy_ms"]; idle = $col["idle_ms"]; run = $col["tasks_run_ms"]
		tc = busy + idle > 0 ? 100 * busy / (busy + idle) : -1
		db = b1[c] - b0[c]; di = i1[c] - i0[c]
		ps = db + di > 0 ? 100 * db / (db + di) : -1
		d = tc - ps; if (d < 0) d = -d
		line = line sprintf("cpu%s tc %.1f%% /proc/stat %.1f%% tasks ran %.3f of %.3f ms; ", c, tc, ps, run, len / 1000)
		if (tc < 0 || ps < 0 || d > 5) bad = bad sprintf("cpu%s busy %.1f%% vs /proc/stat %.1f%%; ", c, tc, ps)
		if (run * 1000 > len + 1) bad = bad sprintf("cpu%s tasks ran %.3f ms in a %.3f ms recording; ", c, run, len / 1000)
		if (run == "") bad = bad "no tasks_run_ms column; "
	}
	END { if (!n) bad = "no CPU rows"; print (bad == "" ? "ok " : "bad ") line bad }' \
		"$MODEL_MIX.stat0" "$MODEL_MIX.stat1" "$MODEL_MIX.sum")
	note "${res#* }"
	if [ "${res%% *}" = ok ]; then
		pass model_busy_share
	else
		fail model_busy_share "${res#* }"
		model_keep model_busy_share
	fi
}


model_timehist() {
	have_perf || { skip model_timehist "perf is not installed"; return; }
	local res lost
	if ! model_mix_record; then
		fail model_timehist "$(cat "$MODEL_MIX.why")"
		return
	fi
	lost=$(sed -n 's/.*, lost \([1-9][0-9]*\).*/\1/p' "$MODEL_MIX.err")
	if [ -n "$lost" ]; then
		skip model_timehist "tc lost $lost events under this load: perf and tc fill the gaps differently"
		return
	fi
	if ! timeout 120 perf sched timehist -s -i "$MODEL_MIX" >"$T/th" 2>"$T/th.err"; then
		fail model_timehist "perf sched timehist failed: $(head -3 "$T/th.err")"
		return
	fi
	timehist_tasks "$T/th" >"$T/th.tasks"
	# set aside when they differ: tasks with inferred or missing switches
	# (tc places those runs at the evidence, timehist charges the whole
	# gap), tasks that ran after their exit record, or were switched out
	# after it (timehist drops that last stretch), the prev
	# of each CPU's first switch (tc counts the switch-in that its run since
	# the start implies, timehist does not) and the next of each CPU's last
	# switch (timehist counts a switch-in at its switch-out)
	script "$MODEL_MIX" "$T/script"
	awk '$3 == "exit" { split($6, a, "="); gone[a[2]] = 1 }
	$3 == "sched_process_exit" { split($5, a, "="); gone[a[2]] = 1 }
	$3 == "sched_switch" { split($5, b, "="); if (b[2] in gone) print b[2] }
	$3 == "sched_switch" { split($8, a, "="); if (a[2] in gone) print a[2]; last[$2] = a[2] }
	$3 == "sched_switch" && !($2 in seen) { seen[$2] = 1; split($5, a, "="); print a[2] }
	END { for (c in last) print last[c] }' "$T/script" |
		sort -u >"$T/aside"
	res=$(awk -F'\t' '
	FILENAME ~ /aside$/ { late[$1] = 1; next }
	FILENAME ~ /th.tasks$/ { split($0, a, " "); thsw[a[1]] = a[2]; thrun[a[1]] = a[3]; next }
	FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$0 == "" { done = 1 }
	done { next }
	{
		t = $col["tid"]; run[t] = $col["run_ms"] - $col["initial_ms"]; sw[t] = $col["switches"]
		odd[t] = $col["inferred"] > 0 || $col["missing_out"] > 0 || $col["missing_out"] == ""
	}
	END {
		for (t in thrun) {
			tot++
			if (!(t in run)) { bad++; if (!first) first = "tid " t " missing in tc"; continue }
			d = run[t] - thrun[t]; if (d < 0) d = -d
			if ((d > 1 && d > thrun[t] / 100) || sw[t] != thsw[t]) {
				if (odd[t] || t in late) { aside++; continue }
				bad++
				if (!first) first = "tid " t ": run_ms " run[t] " vs " thrun[t] ", switches " sw[t] " vs " thsw[t]
			} else {
				ok++
			}
		}
		print tot + 0, ok + 0, aside + 0, bad + 0, first
	}' "$T/aside" "$T/th.tasks" "$MODEL_MIX.sum")
	# shellcheck disable=SC2086
	set -- $res
	note "timehist: $1 tasks, $2 agree, $3 set aside (inferred or missing switches, ran after exit, at the ends)"
	if [ "$4" != 0 ]; then
		fail model_timehist "$4 tasks differ; first: ${*:5}"
		model_keep model_timehist
	elif [ "$2" -lt 5 ]; then
		fail model_timehist "only $2 of $1 tasks compared"
		model_keep model_timehist
	else
		pass model_timehist
	fi
}

# model_pp_rows SUMMARY SCRIPT PIDS: per pingpong task of a --summary
# "tid switches wakeups sleeps io_calls sys_exits read_bytes write_bytes"
# (parent first), where sleeps counts its switch-outs S or D and sys_exits
# its sys_exit records in the --script (both of the same recording); PIDS:
# what pingpong printed ("pids PARENT CHILD"; other pingpongs may run).
model_pp_rows() {
	awk -F'\t' -v pids="$3" '
	BEGIN { split(pids, p, " "); want[p[2]] = 1; want[p[3]] = 2 }
	FILENAME ~ /script$/ {
		split($0, f, " ")
		if (f[3] == "sched_switch") {
			split(f[5], a, "="); split(f[6], b, "=")
			s = b[2] % 256
			if (s == 1 || s == 2) sleeps[a[2]]++
		} else if (f[3] ~ /^sys_exit_/) {
			split(f[4], a, "="); exits[a[2]]++
		}
		next
	}
	$1 == "tid" { for (i = 1; i <= NF; i++) col[$i] = i; on = 1; next }
	$0 == "" { on = 0 }
	on && $col["tid"] in want {
		t = $col["tid"]
		print want[t], t, $col["switches"], $col["wakeups"], sleeps[t] + 0, $col["io_calls"], exits[t] + 0,
		      $col["read_bytes"], $col["write_bytes"]
	}' "$2" "$1" | sort -n | cut -d' ' -f2-
}

model_pingpong_io() {
	local n=10000 io rc res opt lost
	for io in plain io; do
		opt=
		[ "$io" = io ] && opt=-I
		# shellcheck disable=SC2086
		timeout 120 "$TC" --record "$T/$io.data" -m 4096 $opt -- "$PINGPONG" $n \
			>"$T/$io.out" 2>"$T/$io.err"
		rc=$?
		if [ "$rc" != 0 ]; then
			fail model_pingpong_io "tc --record $opt: exit status $rc: $(head -3 "$T/$io.err")"
			model_keep model_pingpong_io
			return
		fi
		lost=$(sed -n 's/.*, lost \([1-9][0-9]*\).*/\1/p' "$T/$io.err")
		if [ -n "$lost" ]; then
			skip model_pingpong_io "tc $opt lost $lost events under this load: counts would not be whole"
			return
		fi
		timeout 120 "$TC_SAN" --replay "$T/$io.data" --summary >"$T/$io.sum" 2>"$T/$io.sumerr" &&
			script "$T/$io.data" "$T/$io.script"
		model_pp_rows "$T/$io.sum" "$T/$io.script" "$(grep '^pids ' "$T/$io.out")" >"$T/$io.rows"
	done
	# rows, parent then child: tid switches wakeups sleeps io_calls sys_exits
	# read_bytes write_bytes
	res=$(awk -v n=$n '
	function off(a, b) { d = a - b; if (d < 0) d = -d; return d > b / 100 + 1 }
	FILENAME ~ /plain.rows$/ { k++; psw[k] = $2; if (off($3, $4)) bad = bad "plain: tid " $1 " wakeups " $3 " vs sleeps " $4 "; "; next }
	{
		j++
		if (off($3, $4)) bad = bad "-I: tid " $1 " wakeups " $3 " vs sleeps " $4 "; "
		if (off($2, psw[j])) bad = bad "-I: tid " $1 " switches " $2 " vs " psw[j] " without -I; "
		if ($5 != $6) bad = bad "-I: tid " $1 " io_calls " $5 " vs " $6 " sys_exit records; "
		if ($5 < 2 * n) bad = bad "-I: tid " $1 " io_calls " $5 " < " 2 * n "; "
		if (j == 2 && ($5 != 2 * n || $7 != n || $8 != n)) bad = bad "-I: child " $1 " io_calls " $5 " read " $7 " written " $8 ", want " 2 * n ", " n ", " n "; "
	}
	END {
		if (k != 2 || j != 2) bad = bad "want 2 pingpong rows, got " k + 0 " and " j + 0
		print bad
	}' \
		"$T/plain.rows" "$T/io.rows")
	note "plain: $(tr '\n' ';' <"$T/plain.rows") -I: $(tr '\n' ';' <"$T/io.rows")"
	if [ -z "$res" ]; then
		pass model_pingpong_io
	else
		fail model_pingpong_io "$res"
		model_keep model_pingpong_io
	fi
}

# The kernel counts a task's moves to another CPU in se.nr_migrations
# (/proc/PID/sched). A shell reads its own count, moves itself between
# CPU 0 and CPU 1 100 times (taskset on itself while it waits: it wakes on
# the other CPU), and reads it again; /bin/true before and after each read
# marks the reads in the trace (its fork records). The kernel's delta lies
# between tc's sched_migrate_task records of the shell from the second to
# the second-to-last fork and those from the first to the last, and the
# migrations column of --summary counts all of them.
model_migrations_proc() {
	local rc res sh try
	if [ "$(nproc)" -lt 2 ] || ! command -v taskset >/dev/null; then
		skip model_migrations_proc "needs 2 CPUs and taskset"
		return
	fi
	# up to three tries: a recording that lost events (beside the busy
	# tests: 6,488 at once) may lack one of the shell's migrations
	for try in 1 2 3; do
		# shellcheck disable=SC2016
		timeout 120 "$TC" --record "$T/m.data" -- sh -c '
			m() { while read -r k c v; do [ "$k" = se.nr_migrations ] && echo "$v"; done </proc/$$/sched; }
			/bin/true; m >"$1.a"; /bin/true
			i=0; while [ $i -lt 100 ]; do taskset -pc $((i % 2)) $$ >/dev/null; i=$((i + 1)); done
			/bin/true; m >"$1.b"; /bin/true; echo $$ >"$1.pid"' sh "$T/m" >/dev/null 2>"$T/err"
		rc=$?
		if [ "$rc" != 0 ] || [ ! -s "$T/m.pid" ]; then
			fail model_migrations_proc "tc --record: exit status $rc: $(head -3 "$T/err")"
			return
		fi
		grep -q '), lost 0,' "$T/err" && break
		note "model_migrations_proc: try $try lost events: $(grep -o 'lost [0-9]* ([^)]*)' "$T/err")"
		rm -f "$T/m.data.old"
		[ "$try" = 3 ] && { skip model_migrations_proc "three recordings lost events (a loaded machine)"; return; }
	done
	sh=$(cat "$T/m.pid")
	timeout 60 "$TC_SAN" --replay "$T/m.data" --script >"$T/m.script" 2>/dev/null &&
		timeout 60 "$TC_SAN" --replay "$T/m.data" --summary -p "$sh" >"$T/m.sum" 2>/dev/null
	res=$(awk -v sh="$sh" -v a="$(cat "$T/m.a")" -v b="$(cat "$T/m.b")" '
	FILENAME ~ /script$/ && $3 == "sched_process_fork" && $5 == "parent_pid=" sh { fork[++nf] = $1 }
	FILENAME ~ /script$/ && $3 == "sched_migrate_task" && $5 == "pid=" sh {
		split($6, o, "="); split($7, d, "=")
		if (o[2] != d[2]) mig[++nm] = $1
	}
	FILENAME ~ /sum$/ && FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	FILENAME ~ /sum$/ && $1 == sh { column = $col["migrations"] }
	END {
		for (i = 1; i <= nm; i++) {
			inner += mig[i] > fork[2] && mig[i] < fork[nf - 1]
			outer += mig[i] > fork[1] && mig[i] < fork[nf]
		}
		delta = b - a
		if (nf < 4) print "the shell forked " nf + 0 " times in the trace, want 104"
		else if (delta < 50) print "the kernel counted " delta " migrations of the shell, want about 100"
		else if (delta < inner || delta > outer) print "the kernel counted " delta ", tc " inner " to " outer " between the reads"
		else if (column != nm) print "--summary migrations " column ", want its " nm " records"
		printf "ok %d %d %d %d\n", delta, inner, outer, nm
	}' "$T/m.script" "$T/m.sum")
	note "model_migrations_proc: kernel delta, tc inner, outer, all: ${res##*ok }"
	if [ "${res%%ok *}" = "" ]; then
		pass model_migrations_proc
	else
		fail model_migrations_proc "${res%%ok *}"
	fi
}

# Concurrency (run.sh): the model against /proc/stat and timehist wants a
# recording that lost nothing (a loss skips the comparisons).
# All run alone: model_pingpong_io compares the switches of two runs of
# pingpong within 1 % (preemptions by a sanitizer run beside it made them
# differ by 103 of 10005), and the mix recorded beside one lost 238235
# events, which skips model_timehist.
test_class sensitive model_busy_share model_timehist model_pingpong_io
# the shell's moves need no quiet machine: every count is the kernel's own
test_class busy model_migrations_proc
kernel_tests model_busy_share model_timehist model_pingpong_io model_migrations_proc
