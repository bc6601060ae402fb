# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# What the make bench scripts that run perf record beside tc share
# (bench_record.sh, bench_load.sh, bench_irq.sh source it).

# EV: the tracepoints tc --record records by default, for perf record
# shellcheck disable=SC2034 # used by the scripts that source this
EV=(-e sched:sched_switch -e sched:sched_wakeup -e sched:sched_wakeup_new
    -e sched:sched_waking -e sched:sched_process_fork -e sched:sched_process_exec
    -e sched:sched_process_exit -e sched:sched_migrate_task -e power:cpu_idle)

# med: the median of the RUNS numbers on standard input
med() { sort -g | sed -n "$(( (RUNS + 1) / 2 ))p"; }

# tc_lost ERRFILE, tc_events ERRFILE: lost and recorded events of tc
# --record's account line
tc_lost() { sed -n 's/.*, lost \([0-9]*\).*/\1/p' "$1"; }
tc_events() { sed -n 's/^tc: recorded \([0-9]*\) events.*/\1/p' "$1"; }

# perf_lost FILE: the events a perf.data's LOST records say were lost,
# added up (perf report --stats counts the records, and has no line for
# none); perf_events FILE: its samples
perf_lost() {
	perf script -i "$1" --show-lost-events 2>/dev/null |
		awk '/PERF_RECORD_LOST/ { for (i = 1; i < NF; i++) if ($i == "lost") s += $(i + 1) } END { print s + 0 }'
}
perf_events() {
	perf report --stats -i "$1" 2>/dev/null | awk '/^ *SAMPLE events:/ { print $3; exit }'
}
