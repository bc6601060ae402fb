#!/bin/bash
# make bench, interrupts: what -Q costs.  While test/irqload sends loopback
# datagrams on each CPU (a NET_RX softirq each, with the timer and disk
# ones), tc --record without and with -Q, and perf record of the same
# events without and with irq:irq_handler_entry/exit and
# irq:softirq_entry/exit, DUR seconds each, one after the other; RUNS
# rounds, medians.  Prints events per second, lost events, the recorder's
# own CPU time per event and the datagrams the load sent per second beside
# it (none: no recorder; the rate drifts by a fifth from run to run here),
# with the tc/perf ratios.  Figures only, nothing asserted.  Needs root.
set -u
cd "$(dirname "$0")/.." || exit 1
DUR=${DUR:-5}
RUNS=${RUNS:-3}
D=$(mktemp -d /tmp/tc-birq.XXXXXX)
trap 'kill -- -$LOAD 2>/dev/null; rm -rf "$D"' EXIT
. test/bench_lib.sh
IRQ=(-e irq:irq_handler_entry -e irq:irq_handler_exit -e irq:softirq_entry -e irq:softirq_exit)
[ -x test/irqload ] || make -s test/irqload || exit 1

# the load: per CPU a loop of batches of 20,000 datagrams; each batch
# done appends a line to $D/sent, so the lines a span adds are its rate
setsid bash -c "for c in \$(seq $(nproc)); do
	while :; do test/irqload 20000 0 $D/blk >/dev/null && echo >>$D/sent; done &
done; wait" >/dev/null 2>&1 &
LOAD=$!
sleep 1
sent() { wc -l <"$D/sent" 2>/dev/null || echo 0; }
# run NAME CMD...: one recording; appends "events lost cpu_s datagrams/s"
run() {
	local name=$1 s0 s1 n l
	shift
	s0=$(sent)
	/usr/bin/time -f "%U %S" -o "$D/t" "$@" 2>"$D/err" >/dev/null
	s1=$(sent)
	case $name in
	none)	n=0 l=0 ;;
	tc*)	n=$(tc_events "$D/err") l=$(tc_lost "$D/err") ;;
	*)	n=$(perf_events "$D/p.data") l=$(perf_lost "$D/p.data") ;;
	esac
	echo "${n:-0} ${l:-0} $(awk '{ print $1 + $2 }' "$D/t") $(( (s1 - s0) * 20000 / DUR ))" >>"$D/$name.runs"
	rm -f "$D/tc.data" "$D/tc.data.old" "$D/p.data" "$D/p.data.old"
}
for i in $(seq "$RUNS"); do
	run none sleep "$DUR"
	run tc ./tc --record "$D/tc.data" -d "$DUR"
	run tc-Q ./tc --record "$D/tc.data" -Q -d "$DUR"
	run perf perf record -q "${EV[@]}" -a -k mono -o "$D/p.data" -- sleep "$DUR"
	run perf-irq perf record -q "${EV[@]}" "${IRQ[@]}" -a -k mono -o "$D/p.data" -- sleep "$DUR"
done
kill -- -$LOAD 2>/dev/null
wait $LOAD 2>/dev/null
echo "== interrupts ($RUNS runs of ${DUR} s each under test/irqload on every CPU; medians)"
printf '%-9s %12s %10s %10s %14s %14s\n' tool events/s lost cpu_s cpu_ns/event datagrams/s
for t in none tc tc-Q perf perf-irq; do
	ev=$(cut -d' ' -f1 "$D/$t.runs" | med)
	lo=$(cut -d' ' -f2 "$D/$t.runs" | med)
	cpu=$(cut -d' ' -f3 "$D/$t.runs" | med)
	dg=$(cut -d' ' -f4 "$D/$t.runs" | med)
	printf '%-9s %12.0f %10s %10.2f %14.0f %14s\n' "$t" "$(echo "$ev / $DUR" | bc -l)" "$lo" "$cpu" \
		"$(echo "if ($ev > 0) $cpu * 1000000000 / $ev else 0" | bc -l)" "$dg"
	eval "v_${t//-/_}_ev=$ev v_${t//-/_}_cpu=$cpu"
done
ratio() { echo "if ($2 > 0 && $3 > 0 && $4 > 0) ($1 / $2) / ($3 / $4) else 0" | bc -l | cut -c1-5; }
echo "CPU per event, tc/perf: without interrupts $(ratio "$v_tc_cpu" "$v_tc_ev" "$v_perf_cpu" "$v_perf_ev"), with them $(ratio "$v_tc_Q_cpu" "$v_tc_Q_ev" "$v_perf_irq_cpu" "$v_perf_irq_ev")"
echo "per-run figures (events lost cpu_s datagrams/s):"
for t in tc tc-Q perf perf-irq; do echo "  $t: $(tr '\n' ';' <"$D/$t.runs")"; done
