# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# The ground-truth oracle of tc's model (issue 21, testing.md "Oracles"),
# sourced by test/run.sh (see there for the helpers). test/sim simulates
# schedules whose true state is known at every instant, writes the
# perf.data the kernel would have produced, damages it the ways real
# traces are damaged, and compares tc's --states with the truth:
#
#   truth_sim          TRUTH_SEEDS seeds (default 300) of each damage kind in
#                      turn: undamaged, idle_out, window, sampled,
#                      pertask, cpus, filter and overwrite: no ns where tc
#                      claims a state the truth contradicts; switch_out,
#                      lost, gap, late, sideband_early, all: at most 1 ns
#                      in 100 of the claims (what no evidence shows); the
#                      invariants hold (make sim SEEDS=N runs every kind on
#                      every seed)
#   truth_chain        tc --summary --chain TID of every task test/sim woke,
#                      undamaged and damaged: the first step is the last
#                      wakeup of TID whose record the file holds
#                      (sched_waking, sched_wakeup_new; time to the us,
#                      waker, irq), or where the last one's record is not
#                      in the file (lost, out of the window, before its
#                      CPU's tracepoints), that or a later sched_wakeup
#                      with the waker unknown (-); checked to fail with a
#                      step left out
#   truth_oracle       the checks themselves: a claim made wrong in a dump
#                      of tc's is found, to the ns; a task put on a CPU
#                      another task runs on breaks the invariants; a
#                      switch two recorders stamped 1.6 ms apart is found
#                      (test/recskew.awk), none in a sampled recording
#   truth_perf_reads   perf script, an independent reader, finds in the
#                      simulator's files (each byte order and word size, and
#                      tc's own layout) the samples, side-band and LOST
#                      records the simulator says it wrote
#   truth_invariants_files
#                      the invariants (sim invariants) of tc's --states of
#                      every file in test/fuzz-seeds and of test/mkdata's
#                      files (each byte order and word size)
#   truth_invariants_recorded
#                      the same of fresh recordings of a workload (kernel):
#                      tc --record, perf record -e 'sched:*' -e
#                      power:cpu_idle -a, and with -m 4096
#   truth_sampled_recorded
#                      perf record -F samples tracepoints (kernel): tc
#                      says the number of events left out is not known
#                      (the periods are no count), in a file and in a
#                      stream; it says why and how to record them all;
#                      the invariants
#   truth_pertask_recorded
#                      perf record CMD (per task, no -a) inside tc --record
#                      (kernel): tc says it is per task, claims runs of the
#                      traced tasks only, none longer than the same task's
#                      in tc's own recording; the invariants
#   truth_cpus_recorded
#                      perf record -C 0 inside tc --record (kernel): tc
#                      says it is of some CPUs, claims of tasks only runs
#                      on CPU 0, none longer than system-wide; the
#                      invariants
#   truth_filter_recorded
#                      perf record --filter on the wakeups, then on
#                      sched_switch, inside tc --record (kernel): tc
#                      says so, claims runs only, then no state but exits;
#                      none longer than system-wide; the invariants
#   truth_noswitch_recorded
#                      perf record of the wakeups without sched_switch
#                      inside tc --record (kernel): tc says so, claims no
#                      state but exits; the invariants
#   truth_overwrite_recorded
#                      perf record --overwrite inside tc --record (kernel):
#                      tc says so, not that the kernel left switches out
#   truth_schedstat    the kernel's own counters (kernel): test/schedtruth's
#                      children, recorded by tc and by perf record -a, each
#                      checked against its /proc/PID/schedstat once it
#                      exited (test/schedtruth.awk): switch-ins equal to
#                      the times the kernel ran it (at most, after a loss),
#                      run time at most 5% above, 10% below (runnable
#                      time is noted beside the kernel's run delay, not
#                      compared: see test/schedtruth.awk)
#
#   Each truth_*_recorded but the sampled one also checks that where tc
#   claims a state of perf's file, tc's whole recording of the same run
#   agrees (sim agree, perf record -k mono)

SIM=$ROOT/test/sim

# truth_details FILE: the first failures and the table of a sim run, as
# notes.
truth_details() {
	grep -E '^(--- seed|FAIL|  (wrong|invariant|test/sim)|damage|[a-z_]+ +[0-9]+ )' "$1" | head -44 |
		while IFS= read -r l; do note "$l"; done
}

truth_sim() {
	local bad=
	[ -x "$SIM" ] || { fail truth_sim "test/sim was not built"; return; }
	# undamaged, a CPU that leaves out its switches out of idle, a window
	# cut from a longer run, tracepoints sampled (their PERIOD says how
	# many events each record stands for), a recording per task (perf
	# record without -a), one of some CPUs (perf record -C), one with
	# tracepoint filters (--filter), rings that overwrite (--overwrite),
	# perf record's end (its events off CPU by CPU, the CPUs already off
	# going on unrecorded): tc claims nothing false, to the ns
	TMPDIR=$T timeout 600 "$SIM" run --tc "$TC" --seeds "${TRUTH_SEEDS:-300}" --rotate --quiet --show 3 \
		--damage none,idle_out,window,sampled,pertask,cpus,filter,overwrite,perf_end >"$T/run.out" 2>&1
	case $? in
	0) ;;
	1) bad="tc claims states the truth contradicts, or breaks an invariant (make sim for all)"
	   truth_details "$T/run.out" ;;
	*) bad="test/sim exit status: $(tail -3 "$T/run.out" | tr '\n' ' ')" ;;
	esac
	# records the kernel wrote and the trace lost without a trace of the
	# loss (a switch, a stretch of a ring with or without its LOST record,
	# a CPU's records rounds late, tracepoints on late): what no evidence
	# shows cannot be known, so some claims may be false; never more than
	# 1 ns in 100 of what tc claims (about 0.6% measured for silent gaps,
	# under 0.3% for the others), and the invariants hold
	TMPDIR=$T timeout 600 "$SIM" run --tc "$TC" --seeds "${TRUTH_SEEDS:-300}" --rotate --quiet --show 0 \
		--damage switch_out,lost,gap,late,sideband_early,all >"$T/dmg.out" 2>&1
	[ $? -gt 1 ] && bad=${bad:-"test/sim exit status: $(tail -3 "$T/dmg.out" | tr '\n' ' ')"}
	bad=${bad:-$(awk '$1 ~ /^[a-z_]+$/ && NF == 10 && $2 ~ /^[0-9]+$/ {
		if ($10 > 0) printf "%s: %d invariant violations; ", $1, $10
		if ($4 > 0 && $5 * 100 > $4) printf "%s: wrong %.0f ns of %.0f claimed; ", $1, $5, $4 }' "$T/dmg.out")}
	if [ -n "$bad" ]; then
		fail truth_sim "$bad"
	else
		awk '$1 ~ /^[a-z_]+$/ && NF == 10 && $2 ~ /^[0-9]+$/' "$T/run.out" "$T/dmg.out" |
			while IFS= read -r l; do note "truth_sim: $l"; done
		pass truth_sim
	fi
}

# chain_firsts FILE: "TID TIME WAKER" for each task test/sim's truth of
# FILE says was woken: the first step of tc --chain TID (TIME as printed,
# in s; "none -" if there is none).
chain_firsts() {
	local tid
	awk -F'\t' '$1 == "wake" { print $2 }' "$1.truth" | sort -un | while read -r tid; do
		echo "chain $tid"
		timeout 20 "$TC" --replay "$1" --summary --chain "$tid" 2>/dev/null
	done | awk -F'\t' 'function end() { if (tid != "") print tid "\t" (n ? first : "none\t-") }
		/^chain [0-9]+$/ { end(); tid = substr($0, 7); on = n = 0; next }
		$1 == "chain_step" { on = 1; next }
		on && $1 == 1 && !n++ { first = $2 "\t" $5 }
		END { end() }'
}

# chain_wrong FILE FIRSTS: the tasks whose first step (FIRSTS: chain_firsts)
# is not the truth's last kept wakeup, nor, where its last wakeup's record
# is not in the file, a later one's sched_wakeup with the waker unknown
# (-); one line each, then "N of M".
chain_wrong() {
	awk -F'\t' 'function us(t) { return sprintf("%d.%06d", t / 1e9, int(t / 1000) % 1000000) }
		FNR == NR && $1 == "wake" {	# TID TIME WAKER KEPT, in time order per record
			if ($5 == 1 && ($2 in kt == 0 || $3 >= kt[$2])) { kt[$2] = $3; kw[$2] = $4 }
			if ($2 in lt == 0 || $3 >= lt[$2]) { lt[$2] = $3; lk[$2] = $5 }
			next }
		FNR != NR {
			m++
			want = $1 in kt ? us(kt[$1]) : "none"
			who = !($1 in kt) ? "-" : kw[$1] == -1 ? "irq" : ":" kw[$1]
			ok = $2 == want && ($3 == who || substr($3, length($3) - length(who) + 1) == who)
			if (!ok && !lk[$1])	# its last wakeup left out: unknown at a sched_wakeup
				ok = $3 == "-" && (!($1 in kt) || $2 > want)
			if (!ok) { print "tid " $1 ": " $2 " " $3 ", truth " want " " who (lk[$1] ? "" : " (its last left out)"); n++ }
		}
		END { printf "%d of %d\n", n, m }' "$1.truth" "$2"
}

# truth_chain: see the top.  Files of 16 tasks at first and 1,000 steps (25
# to 45 woken), 2 seeds of each damage kind but the sampled ones.
truth_chain() {
	local kind seed f bad= out
	[ -x "$SIM" ] || { fail truth_chain "test/sim was not built"; return; }
	for kind in none idle_out switch_out lost gap late window sideband_early perf_end all; do
		for seed in 1 2; do
			f=$T/$kind$seed.data
			"$SIM" gen --seed "$seed" --tasks 16 --steps 1000 --damage "$kind" "$f" >/dev/null 2>"$f.err" ||
				{ bad="$bad sim gen $kind $seed failed: $(head -1 "$f.err");"; continue; }
			chain_firsts "$f" >"$f.got"
			out=$(chain_wrong "$f" "$f.got")
			case $out in
			"0 of "*) ;;
			*) bad="$bad $kind seed $seed: $(tail -1 <<<"$out") wrong: $(head -2 <<<"$out" | tr '\n' ' ');" ;;
			esac
		done
	done
	# the check: a step left out of one task's chain (a woken task with
	# no step, and another one's step a us late) is found
	f=$T/switch_out1.data
	awk -F'\t' 'NR == 1 { print $1 "\tnone\t-"; next } NR == 2 { $2 = $2 + 0.000001; OFS = "\t" } 1' \
		"$f.got" >"$f.bad" 2>/dev/null
	case $(chain_wrong "$f" "$f.bad" | tail -1) in
	"2 of "*) ;;
	*) bad="$bad the check did not find 2 wrong steps: $(chain_wrong "$f" "$f.bad" | tr '\n' ' ');" ;;
	esac
	if [ -n "$bad" ]; then fail truth_chain "$bad"; else pass truth_chain; fi
}

# wrong_ns CHECK_OUTPUT: the wrong ns sim check reports.
wrong_ns() {
	sed -n 's/.*, wrong \([0-9]*\) ns .*/\1/p' "$1"
}

truth_oracle() {
	local f=$T/o.data line s e w0 w1 bad=
	[ -x "$SIM" ] || { fail truth_oracle "test/sim was not built"; return; }
	"$SIM" gen --seed 7 --cpus 2 "$f" && "$TC" --replay "$f" --states >"$T/o.states" 2>/dev/null ||
		{ fail truth_oracle "gen or tc failed"; return; }
	"$SIM" check "$f.truth" "$T/o.states" >"$T/c0.out"
	# the longest running claim, said blocked instead
	line=$(awk -F'\t' '$1 == "task" && $3 == "running" { print $5 - $4, NR, $4, $5 }' "$T/o.states" |
		sort -n | tail -1)
	read -r _ n s e <<<"$line"
	awk -F'\t' -v n="$n" 'BEGIN { OFS = "\t" } NR == n { $3 = "blocked"; $6 = -1 } { print }' \
		"$T/o.states" >"$T/bad.states"
	"$SIM" check "$f.truth" "$T/bad.states" >"$T/c1.out"
	[ $? = 1 ] || bad="$bad [check of a wrong claim did not exit 1]"
	w0=$(wrong_ns "$T/c0.out") w1=$(wrong_ns "$T/c1.out")
	[ -n "$w0" ] && [ -n "$w1" ] && [ $((w1 - w0)) = $((e - s)) ] ||
		bad="$bad [running [$s, $e) said blocked: wrong ns $w0 -> $w1, not +$((e - s))]"
	grep -q "wrong: task .* claimed blocked \[$s, $e): truth running" "$T/c1.out" ||
		bad="$bad [the wrong claim is not named]"
	# a second task on the CPU of that run, at the same time
	awk -F'\t' -v n="$n" 'BEGIN { OFS = "\t" } { print } NR == n { $2 = 99999; print }' \
		"$T/o.states" >"$T/two.states"
	"$SIM" invariants "$T/two.states" >"$T/i.out"
	[ $? = 1 ] && grep -q "and task .* at once" "$T/i.out" ||
		bad="$bad [two tasks on one CPU not found: $(head -2 "$T/i.out" | tr '\n' ' ')]"
	# agree_why's margin: 40 switches on CPU 0, one of them stamped 1.6 ms
	# late in the whole run's recording; a recording of every 5th has none
	awk 'BEGIN { for (i = 0; i < 40; i++) printf "%d 0 sched_switch prev_comm=a prev_pid=%d prev_state=1 next_comm=b next_pid=%d\n",
		1000000 + 10000 * i + 700 + (i == 20) * 1600000, 100 + i % 2, 101 - i % 2 }' >"$T/whole.script"
	awk '{ $1 -= 700 + ($1 > 1800000) * 1600000; print }' "$T/whole.script" >"$T/part.script"
	awk 'NR % 5 == 0' "$T/part.script" >"$T/sampled.script"
	s=$(awk -f "$ROOT/test/recskew.awk" "$T/whole.script" "$T/part.script")
	[ "$s" = "1600000 40" ] || bad="$bad [recskew: '$s', not '1600000 40']"
	s=$(awk -f "$ROOT/test/recskew.awk" "$T/whole.script" "$T/sampled.script")
	[ "${s%% *}" = 0 ] || bad="$bad [recskew of a sampled one: '$s', not a gap of 0]"
	if [ -z "$bad" ]; then
		pass truth_oracle
	else
		fail truth_oracle "$bad"
	fi
}

truth_perf_reads() {
	local v n=0 want got bad=
	have_perf || { skip truth_perf_reads "perf is not installed"; return; }
	for v in "--damage lost" "--be --damage lost" "--long4 --damage all" "--be --long4 --damage window" \
		"--tcfile --damage lost"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		"$SIM" gen --seed $((40 + n)) $v "$T/p$n.data" || { bad="$bad [gen $v]"; continue; }
		want=$(awk '$1 == "records" { print $2, $3, $4 }' "$T/p$n.data.truth")
		got="$(perf script -i "$T/p$n.data" 2>/dev/null | wc -l)"
		got="$got $(perf script -i "$T/p$n.data" --show-task-events 2>/dev/null | grep -c 'PERF_RECORD_\(FORK\|COMM\|EXIT\)')"
		got="$got $(perf script -i "$T/p$n.data" --show-lost-events 2>/dev/null | grep -c PERF_RECORD_LOST)"
		[ "$want" = "$got" ] || bad="$bad [$v: wrote $want, perf reads $got]"
	done
	if [ -z "$bad" ]; then
		pass truth_perf_reads
	else
		fail truth_perf_reads "$bad"
	fi
}

# truth_inv FILE...: tc --replay --states of each file, checked by sim
# invariants; prints the files that fail, with the first violations.
truth_inv() {
	local f n=0 rc
	for f; do
		n=$((n + 1))
		timeout 120 "$TC" --replay "$f" --states >"$T/inv$n.states" 2>"$T/inv$n.err"
		rc=$?
		if [ "$rc" -gt 1 ]; then	# 1: a broken file, read as far as it goes
			echo "${f##*/}: tc exit status $rc"
			continue
		fi
		"$SIM" invariants "$T/inv$n.states" >"$T/inv$n.out" ||
			echo "${f##*/}: $(grep -m3 invariant: "$T/inv$n.out" | tr '\n' ' ')"
	done
}

truth_invariants_files() {
	local sc v files=() out
	[ -x "$SIM" ] || { fail truth_invariants_files "test/sim was not built"; return; }
	for sc in basic power lost hostile; do
		for v in "" --be --long4 "--be --long4"; do
			# shellcheck disable=SC2086
			"$ROOT/test/mkdata" $v --scenario "$sc" "$T/mk-$sc${v// /}.data" || continue
			files+=("$T/mk-$sc${v// /}.data")
		done
	done
	out=$(truth_inv "$ROOT"/test/fuzz-seeds/* "${files[@]}")
	if [ -z "$out" ]; then
		pass truth_invariants_files
	else
		fail truth_invariants_files "$(echo "$out" | head -5 | tr '\n' ' ')"
	fi
}

truth_invariants_recorded() {
	local load out files=()
	[ -x "$SIM" ] || { fail truth_invariants_recorded "test/sim was not built"; return; }
	load="$PINGPONG 3000 >/dev/null & i=0; while [ \$i -lt 100 ]; do sleep 0.001; i=\$((i + 1)); done; wait"
	timeout 60 "$TC" --record "$T/tc.data" -- sh -c "$load" >/dev/null 2>"$T/tc.err" &&
		files+=("$T/tc.data")
	if have_perf; then
		timeout 60 perf record -q -e 'sched:*' -e power:cpu_idle -a -o "$T/perf.data" -- sh -c "$load" \
			>/dev/null 2>"$T/perf.err" && files+=("$T/perf.data")
		timeout 60 perf record -q -m 4096 -e 'sched:*' -e power:cpu_idle -a -o "$T/perf-m.data" -- \
			sh -c "$load" >/dev/null 2>"$T/perf-m.err" && files+=("$T/perf-m.data")
	fi
	if [ ${#files[@]} = 0 ]; then
		fail truth_invariants_recorded "no recording: $(head -2 "$T/tc.err" | tr '\n' ' ')"
		return
	fi
	out=$(truth_inv "${files[@]}")
	if [ -n "$out" ]; then
		fail truth_invariants_recorded "$(echo "$out" | head -5 | tr '\n' ' ')"
	elif [ ${#files[@]} -lt 3 ] && have_perf; then
		fail truth_invariants_recorded "perf record failed: $(head -2 "$T/perf.err" "$T/perf-m.err" | tr '\n' ' ')"
	else
		pass truth_invariants_recorded
	fi
}

# unrec_want FILE: the events perf script's periods say FILE's sched
# tracepoint records left out (each stands for its period).
unrec_want() {
	perf script -i "$1" -F event,period 2>/dev/null |
		awk '$2 ~ /^sched:/ { n += $1 - 1 } END { print n + 0 }'
}

# unrec_got ERR: tc's count of them, from its stats line.
unrec_got() {
	sed -n 's/.*not recorded (sampled tracepoints) \([0-9]*\).*/\1/p' "$1"
}

# recorded_end NAME WHY WHAT: the end of a truth_*_recorded test: it
# fails with WHY (its files kept), or passes with the note WHAT.
recorded_end() {
	local name=$1 why=$2 what=$3
	if [ -n "$why" ]; then
		keep_evidence "$name"
		fail "$name" "$why"
	else
		note "$name: $what"
		pass "$name"
	fi
}

truth_sampled_recorded() {
	local why= want got pwant pgot
	have_perf || { skip truth_sampled_recorded "perf is not installed"; return; }
	[ -x "$SIM" ] || { fail truth_sampled_recorded "test/sim was not built"; return; }
	# 500 Hz against tens of thousands of switches a second; inside tc
	# --record, to check tc's claims against (agree_why)
	if ! timeout 60 "$TC" --record "$T/all.data" -- perf record -q -k mono -F 500 "${SCHED_EVENTS[@]}" -a \
		-o "$T/s.data" -- sh -c "$PINGPONG 20000 >/dev/null" >/dev/null 2>"$T/perr" ||
	   ! timeout 60 "$TC" --record "$T/allp.data" -- sh -c "perf record -q -k mono -F 500 ${SCHED_EVENTS[*]} -a \
		-o - -- sh -c '$PINGPONG 20000 >/dev/null' >'$T/p.data'" >/dev/null 2>"$T/perr"; then
		fail truth_sampled_recorded "perf record -F 500 failed: $(head -2 "$T/perr" | tr '\n' ' ')"
		return
	fi
	want=$(unrec_want "$T/s.data")
	pwant=$(unrec_want "$T/p.data")
	timeout 120 "$TC_SAN" --replay "$T/s.data" --summary >"$T/sum" 2>"$T/err"
	cat "$T/p.data" | timeout 120 "$TC_SAN" --replay - --summary >/dev/null 2>"$T/perr"
	got=$(unrec_got "$T/err")
	pgot=$(unrec_got "$T/perr")
	# with -F the periods are not counts (a -F 500 recording's added up to
	# 12,355 sched_wakeup left out where a recording of all had 2,935): tc
	# says the number is not known; truth_sampled_period checks the counts
	if [ "$want" = 0 ]; then
		why="perf record -F 500 left no event out (every period 1): no test"
	elif [ -n "$got$pgot" ] ||
	     ! grep -q 'left out: sched_switch (a number not known).*not a count' "$T/err" ||
	     ! grep -q 'left out: sched_switch (a number not known).*not a count' "$T/perr"; then
		why="tc counts what -F left out from the periods: tc ${got:-none} (stream ${pgot:-none}), perf script's periods $want (stream $pwant): $(grep 'left out' "$T/err" | head -c 300)"
	elif ! grep -q 'the recording sampled its tracepoints.*perf record without -F' "$T/err" ||
	     ! grep -q 'a stream (pipe mode) does not say where' "$T/perr"; then
		why="no word of the sampling: $(head -c 300 "$T/err")"
	elif grep -q 'the kernel left switches out' "$T/err"; then
		why="the missing switches put on the kernel"
	elif [ -n "$(stderr_ok "$T/err")" ]; then
		why="$(stderr_ok "$T/err")"
	else
		why=$(agree_why s)$(agree_why p allp)
	fi
	[ -z "$why" ] && why=$(truth_inv "$T/s.data" "$T/p.data")
	recorded_end truth_sampled_recorded "$why" "perf script's periods $want (stream $pwant), not counted"
}

# task_runs SUMMARY: "tid comm run_ms switches unknown_ms" of each task,
# by tid.
task_runs() {
	awk -F'\t' '$1 == "tid" { for (i = 1; i <= NF; i++) c[$i] = i; on = 1; next }
		$0 == "" || $1 == "cpu" { on = 0 }
		on { gsub(/ /, "_", $c["comm"])
		     print $1, $c["comm"], $c["run_ms"], $c["switches"], ("unknown_ms" in c) ? $c["unknown_ms"] : 0 }' "$1" |
		sort
}

# nested_perf NAME P PERF-ARGS...: perf record PERF-ARGS (its events
# too; its clock tc's, CLOCK_MONOTONIC) -o $T/P.data of pingpong inside tc
# --record $T/all.data; then $T/P.sum and $T/P.err (tc-san --summary of
# it), and $T/P.join: for each task of its summary, "tid comm run_ms
# switches run_ms-system-wide", the last the most it can have run: its
# run_ms and unknown_ms there (the kernel left some of its switches out
# of the system-wide recording too: 0.000 ms run and 1,328 ms unknown
# against 3.9 ms run in perf's file). Returns 1 (having failed NAME) if
# the recording failed.
nested_perf() {
	local name=$1 p=$2
	shift 2
	if ! timeout 60 "$TC" --record "$T/all.data" -- perf record -q -k mono "$@" -o "$T/$p.data" -- \
		sh -c "$PINGPONG 5000 >/dev/null" >/dev/null 2>"$T/err"; then
		fail "$name" "tc --record -- perf record $*: failed: $(head -3 "$T/err" | tr '\n' ' ')"
		return 1
	fi
	timeout 120 "$TC_SAN" --replay "$T/$p.data" --summary >"$T/$p.sum" 2>"$T/$p.err"
	timeout 120 "$TC" --replay "$T/all.data" --summary >"$T/all.sum" 2>/dev/null
	task_runs "$T/$p.sum" >"$T/$p.runs"
	task_runs "$T/all.sum" | awk '{ printf "%s %s %.3f\n", $1, $2, $3 + $5 }' >"$T/all.runs"
	join -a1 -e 0 -o 0,1.2,1.3,1.4,2.3 "$T/$p.runs" "$T/all.runs" >"$T/$p.join"
}

# agree_why P [REF]: where tc's --states of $T/P.data and of $T/REF.data
# (default all: the same run, recorded whole) both claim, they agree (sim
# agree), but for 500 us at a state's edge: each perf event takes its own
# time, and on a VM the same switch was seen 123 us apart in two
# recorders; else why not.  Where the two recorders stamped a switch
# further apart (test/recskew.awk: the host stopped the vCPU between their
# records of it, 1.6 ms seen), neither tells when it was: the margin is
# that gap and 100 us, and a note says so.
agree_why() {
	local ref=${2:-all} tol=500000 skew
	timeout 120 "$TC" --replay "$T/$1.data" --states >"$T/$1.states" 2>/dev/null
	timeout 120 "$TC" --replay "$T/$ref.data" --states >"$T/$ref.states" 2>/dev/null
	timeout 120 "$TC" --replay "$T/$1.data" --script >"$T/$1.script" 2>/dev/null
	timeout 120 "$TC" --replay "$T/$ref.data" --script >"$T/$ref.script" 2>/dev/null
	skew=$(awk -f "$ROOT/test/recskew.awk" "$T/$ref.script" "$T/$1.script")
	if [ "${skew%% *}" -gt $((tol - 100000)) ]; then
		tol=$((${skew%% *} + 100000))
		note "$1.data: the two recorders stamped a switch ${skew%% *} ns apart (of ${skew##* } matched): agreement within $tol ns" >&2
	fi
	"$SIM" agree "$T/$ref.states" "$T/$1.states" $tol >"$T/$1.agree" ||
		echo "claims that tc's whole recording contradicts: $(tail -1 "$T/$1.agree"); $(head -2 "$T/$1.agree" | tr '\n' ' ')"
}

# nested_why P: why $T/P.data (perf's, nested_perf) fails the checks every
# such test makes: stderr (stderr_ok), tc's claims against its whole
# recording (agree_why), the invariants (truth_inv); empty if it passes.
nested_why() {
	local why
	why=$(stderr_ok "$T/$1.err")
	[ -z "$why" ] && why=$(agree_why "$1")
	[ -z "$why" ] && why=$(truth_inv "$T/$1.data")
	echo "$why"
}

truth_pertask_recorded() {
	local why
	have_perf || { skip truth_pertask_recorded "perf is not installed"; return; }
	[ -x "$SIM" ] || { fail truth_pertask_recorded "test/sim was not built"; return; }
	nested_perf truth_pertask_recorded pt "${SCHED_EVENTS[@]}" || return
	why=$(awk '
		$3 > 0 && $2 != "sh" && $2 != "pingpong" { printf "%s %s runs %s ms, not traced; ", $1, $2, $3 }
		$3 > $5 * 1.001 + 0.01 * ($4 + 1) { printf "%s %s runs %s ms, %s ms system-wide; ", $1, $2, $3, $5 }
		$3 > 0 { n++ } END { if (!n) print "no traced task runs" }' "$T/pt.join" | head -c 400)
	if [ -z "$why" ] && ! grep -q 'recorded per task' "$T/pt.err"; then
		why="no word of the recording per task: $(head -c 300 "$T/pt.err")"
	elif [ -z "$why" ] && grep -q 'the kernel left switches out' "$T/pt.err"; then
		why="the switches a recording per task has not put on the kernel"
	elif [ -z "$why" ] && ! grep -q "summary's switches, wakeups and migrations columns count only the recorded ones of the traced tasks" "$T/pt.err"; then
		why="the counts not said to be of the traced tasks' records only"
	fi
	[ -z "$why" ] && why=$(nested_why pt)
	recorded_end truth_pertask_recorded "$why" \
		"$(awk '$3 > 0' "$T/pt.runs" | wc -l) traced tasks run, none longer than system-wide"
}

# perf record -C 0 (some CPUs) inside tc --record (all of them): tc claims
# each task's runs on CPU 0 and nothing of a task off it (no sleep, no
# wait: it may run on CPU 1 unseen); no task runs longer than system-wide,
# and stderr says why the rest is unknown.
truth_cpus_recorded() {
	local why
	have_perf || { skip truth_cpus_recorded "perf is not installed"; return; }
	[ "$(nproc)" -ge 2 ] || { skip truth_cpus_recorded "one CPU"; return; }
	nested_perf truth_cpus_recorded c0 -C 0 "${SCHED_EVENTS[@]}" || return
	why=$(awk '
		$3 > $5 * 1.001 + 0.01 * ($4 + 1) { printf "%s %s runs %s ms, %s ms system-wide; ", $1, $2, $3, $5 }
		$3 > 0 { n++ } END { if (!n) print "no task run on CPU 0" }' "$T/c0.join" |
		head -c 400)
	if [ -z "$why" ] && ! grep -q 'recorded on some CPUs' "$T/c0.err"; then
		why="no word of the recording of some CPUs: $(head -c 300 "$T/c0.err")"
	elif [ -z "$why" ] && ! grep -q "summary's switches, wakeups and migrations columns count only the recorded ones on those CPUs" "$T/c0.err"; then
		why="the counts not said to be of CPU 0's records only"
	fi
	if [ -z "$why" ]; then
		timeout 120 "$TC" --replay "$T/c0.data" --states >"$T/c0.states" 2>/dev/null
		why=$(awk '$1 == "task" && $3 != "running" && $3 != "unknown" && $3 != "dead" { n++; l = $0 }
			$1 == "task" && $3 == "running" && $6 != 0 { m++; r = $0 }
			$1 == "task" && $3 == "unknown" && $7 == "some_cpus" { k++ }
			END { if (n) printf "%d task states off CPU 0 claimed: %s; ", n, l
			      if (m) printf "%d runs claimed off CPU 0: %s; ", m, r
			      if (!k) printf "no task unknown for being off CPU 0 (some_cpus)" }' "$T/c0.states")
	fi
	[ -z "$why" ] && why=$(nested_why c0)
	recorded_end truth_cpus_recorded "$why" \
		"$(awk '$3 > 0' "$T/c0.runs" | wc -l) tasks run on CPU 0, none longer than system-wide"
}

# perf record with --filter inside tc --record: on the wakeups (all but
# init's left out), tc claims each task's runs and no other task state;
# on sched_switch (the switches from idle left out), it claims no run, no
# CPU's task, no idle state. No run longer than system-wide; stderr says
# what the filter left unknown, and that the counts of what it filtered
# (switches, wakeups) are lower bounds.
truth_filter_recorded() {
	local why ev=() e
	have_perf || { skip truth_filter_recorded "perf is not installed"; return; }
	for e in "${SCHED_EVENTS[@]}"; do
		case $e in -e|sched:sched_switch|sched:sched_wak*) ;; *) ev+=(-e "$e") ;; esac
	done
	nested_perf truth_filter_recorded fw -a -e sched:sched_switch \
		-e sched:sched_waking,sched:sched_wakeup,sched:sched_wakeup_new --filter 'pid == 1' "${ev[@]}" || return
	why=$(awk '$3 > $5 * 1.001 + 0.01 * ($4 + 1) { printf "%s %s runs %s ms, %s ms system-wide; ", $1, $2, $3, $5 }
		$2 == "pingpong" && $3 > 0 { n++ } END { if (!n) print "no pingpong run" }' "$T/fw.join" | head -c 400)
	grep -q 'recorded with --filter on wakeups' "$T/fw.err" || why+="no word of the wakeups' filter: $(head -c 200 "$T/fw.err"); "
	grep -q "summary's wakeups column counts only the recorded ones" "$T/fw.err" ||
		why+="the wakeups column not said to be a lower bound; "
	timeout 120 "$TC" --replay "$T/fw.data" --states >"$T/fw.states" 2>/dev/null
	why+=$(awk '$1 == "task" && $3 != "running" && $3 != "unknown" && $3 != "dead" { n++; l = $0 }
		END { if (n) printf "wakeups filtered: %d task states claimed: %s; ", n, l }' "$T/fw.states")
	why+=$(agree_why fw)
	nested_perf truth_filter_recorded fs -a -e sched:sched_switch --filter 'prev_pid != 0' "${SCHED_EVENTS[@]:2}" ||
		return
	grep -q 'recorded with --filter on switches' "$T/fs.err" || why+="no word of sched_switch's filter: $(head -c 200 "$T/fs.err"); "
	grep -q "summary's switches and wakeups columns count only the recorded ones" "$T/fs.err" ||
		why+="the switches column not said to be a lower bound; "
	timeout 120 "$TC" --replay "$T/fs.data" --states >"$T/fs.states" 2>/dev/null
	why+=$(awk '($1 == "task" && $3 != "unknown" && $3 != "dead") || ($1 == "cpu" && $3 != -1) { n++; l = $0 }
		END { if (n) printf "switches filtered: %d states claimed: %s; ", n, l }' "$T/fs.states")
	[ -z "$why" ] && why=$(stderr_ok "$T/fw.err")
	[ -z "$why" ] && why=$(stderr_ok "$T/fs.err")
	[ -z "$why" ] && why=$(agree_why fs)
	[ -z "$why" ] && why=$(truth_inv "$T/fw.data" "$T/fs.data")
	recorded_end truth_filter_recorded "$why" \
		"$(awk '$3 > 0' "$T/fw.runs" | wc -l) tasks run with wakeups filtered, none longer than system-wide"
}

# perf record of the wakeups but not sched_switch, inside tc --record: a
# record names the task running then, not how long it ran (tc claimed 164
# ms of 523 ms of runs wrong on such a file): no state but exits is
# claimed, and stderr says the file lacks sched_switch, not that the
# kernel left switches out.
truth_noswitch_recorded() {
	local why
	have_perf || { skip truth_noswitch_recorded "perf is not installed"; return; }
	[ -x "$SIM" ] || { fail truth_noswitch_recorded "test/sim was not built"; return; }
	nested_perf truth_noswitch_recorded ns -a -e sched:sched_waking -e sched:sched_wakeup || return
	grep -q 'recorded without sched_switch: .*record with -e sched:sched_switch' "$T/ns.err" ||
		why+="no word of the missing sched_switch: $(head -c 200 "$T/ns.err"); "
	grep -q 'the kernel left switches out' "$T/ns.err" && why+="the missing switches put on the kernel; "
	grep -q "summary's switches column is 0: no switch was recorded" "$T/ns.err" ||
		why+="the switches column's 0 not explained; "
	timeout 120 "$TC" --replay "$T/ns.data" --states >"$T/ns.states" 2>/dev/null
	why+=$(awk '($1 == "task" && $3 != "unknown" && $3 != "dead") || ($1 == "cpu" && $3 != -1) { n++; l = $0 }
		END { if (n) printf "no sched_switch: %d states claimed: %s; ", n, l }' "$T/ns.states")
	[ -z "$why" ] && why=$(stderr_ok "$T/ns.err")
	[ -z "$why" ] && why=$(truth_inv "$T/ns.data")
	recorded_end truth_noswitch_recorded "$why" "no state claimed of $(grep -c '^task' "$T/ns.states") task stretches"
}

# perf record --overwrite (rings that keep their newest records, 8 pages)
# inside tc --record: each CPU's records begin at another time; where tc
# claims a state of the file, its whole recording agrees; stderr says why
# the start is unknown and does not blame the kernel.
truth_overwrite_recorded() {
	local why
	have_perf || { skip truth_overwrite_recorded "perf is not installed"; return; }
	[ -x "$SIM" ] || { fail truth_overwrite_recorded "test/sim was not built"; return; }
	nested_perf truth_overwrite_recorded ow -a --overwrite -m 8 "${SCHED_EVENTS[@]}" || return
	why=$(awk '$2 == "pingpong" && $3 > 0 { n++ } END { if (!n) print "no pingpong run" }' "$T/ow.join")
	grep -q 'recorded with rings that overwrite' "$T/ow.err" || why+="no word of the overwriting rings: $(head -c 200 "$T/ow.err"); "
	! grep -q 'the kernel left switches out' "$T/ow.err" || why+="the overwritten switches put on the kernel; "
	[ -z "$why" ] && why=$(nested_why ow)
	recorded_end truth_overwrite_recorded "$why" "$(tail -1 "$T/ow.agree")"
}

# steal_ms: the time this VM's CPUs were stolen by the host so far, in ms
# (/proc/stat's 8th column, in USER_HZ ticks of 10 ms): the kernel's task
# clock leaves it out (paravirt steal time), the trace's clock does not.
steal_ms() { awk '$1 == "cpu" { print $9 * 10; exit }' /proc/stat; }

# schedstat_check NAME FILE TRUTH STEAL_MS: FILE's summary against the
# kernel's counters in TRUTH (test/schedtruth.awk), equal switch-ins
# unless tc's account says it lost events, run time above the kernel's by
# at most its margin and the STEAL_MS stolen while it ran; a failure is
# added to the caller's out.
schedstat_check() {
	local exact=1 res
	if ! timeout 60 "$TC_SAN" --replay "$2" --summary >"$2.sum" 2>"$2.err"; then
		out="$out $1: tc --replay failed: $(head -2 "$2.err" | tr '\n' ' ')"
		return
	fi
	grep -q ', lost 0' "$2.err" || exact=0
	res=$(awk -F'\t' -v exact=$exact -v steal="${4:-0}" -f "$ROOT/test/schedtruth.awk" "$3" "$2.sum")
	# shellcheck disable=SC2086
	set -- "$1" $res
	note "$1: $2 children, switch-ins $3 (the kernel's runs $4), run time up to $5% above the kernel's, $6% below; runnable $7 ms (the kernel's run delay $8 ms)"
	[ $# -gt 8 ] && out="$out $1:${*:9}"
	[ "${2:-0}" -ge 2 ] || out="$out $1: no children in the truth"
}

# The kernel's counters of each task, read once it exited, against tc's
# claims of recordings of it: the ground truth of a real kernel, beside the
# simulator's (see schedstat_check).
truth_schedstat() {
	local out= s0
	[ -r /proc/self/schedstat ] || { skip truth_schedstat "no /proc/PID/schedstat (CONFIG_SCHED_INFO)"; return; }
	s0=$(steal_ms)
	if ! timeout 60 "$TC" --record "$T/tc.data" -- sh -c "$SCHEDTRUTH 8 150 >$T/tc.truth" >/dev/null 2>"$T/tc.err"; then
		fail truth_schedstat "tc --record failed: $(head -2 "$T/tc.err" | tr '\n' ' ')"
		return
	fi
	schedstat_check "tc --record" "$T/tc.data" "$T/tc.truth" $(($(steal_ms) - s0))
	s0=$(steal_ms)
	if ! have_perf; then
		:
	elif timeout 60 perf record -q -k mono "${SCHED_EVENTS[@]}" -a -o "$T/perf.data" -- \
		sh -c "$SCHEDTRUTH 8 150 >$T/perf.truth" >/dev/null 2>"$T/perf.err"; then
		schedstat_check "perf record" "$T/perf.data" "$T/perf.truth" $(($(steal_ms) - s0))
	else
		out="$out perf record failed: $(head -2 "$T/perf.err" | tr '\n' ' ')"
	fi
	if [ -n "$out" ]; then fail truth_schedstat "$out"; else pass truth_schedstat; fi
}

# Concurrency (run.sh): files only, but for one recording of a workload.
test_class cpu truth_sim truth_invariants_files
test_class quiet truth_oracle truth_perf_reads
test_class cpu truth_chain
test_class busy truth_invariants_recorded truth_sampled_recorded truth_pertask_recorded truth_cpus_recorded \
	truth_filter_recorded truth_overwrite_recorded truth_schedstat truth_noswitch_recorded
# the longest of their classes (49 s and 23 s): started first, not last
test_slow 26 truth_sim
test_slow 7 truth_invariants_recorded
run_tests truth_sim truth_oracle truth_perf_reads truth_invariants_files truth_chain
kernel_tests truth_invariants_recorded truth_sampled_recorded truth_pertask_recorded truth_cpus_recorded \
	truth_filter_recorded truth_overwrite_recorded truth_schedstat truth_noswitch_recorded
