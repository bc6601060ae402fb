# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-only
# Golden outputs (issue 23), sourced by test/run.sh (see there for the
# helpers): every output of tc --replay (--summary, --summary --latency,
# --script, --script --ftrace, --states) of test/mkdata's scenarios and of
# the fuzz seeds, byte for byte as test/golden/NAME.out has them: stdout,
# the exit status, and stderr but for the stats line's times and queue
# memory. A pipe-mode file is read both by name and from standard input.
# Files whose outputs depend on this machine (a recording without its CPU
# count or tracepoint formats) are left out.
# The files were written by the reader before issue 23's rewrite, which
# must not change one byte. A change of the model or of the outputs that is
# meant changes them: write them again with
#   TC_GOLDEN_WRITE=1 make test TESTS=golden_outputs
# and read the diff before committing it.

GOLDEN=$ROOT/test/golden
GOLDEN_MODES=("--summary" "--summary --latency" "--script" "--script --ftrace" "--states")

# golden_of FILE: all outputs of $TC for FILE (run in FILE's directory, so
# messages name it as NAME.data), in the format of test/golden/NAME.out.
golden_of() {
	local dir name m rc
	dir=$(dirname "$1") name=$(basename "$1")
	for m in "${GOLDEN_MODES[@]}"; do
		for src in file stdin; do
			if [ "$src" = stdin ]; then
				# a pipe-mode file (16-byte header): also as a stream
				[ "$(od -An -tu8 -j8 -N8 "$1" | tr -d ' ')" = 16 ] || continue
			fi
			echo "== $m ($src)"
			# shellcheck disable=SC2086
			if [ "$src" = file ]; then
				(cd "$dir" && timeout 60 "$TC" --replay "$name" $m) >"$T/g.out" 2>"$T/g.err"
			else
				(cd "$dir" && timeout 60 "$TC" --replay - $m <"$name") >"$T/g.out" 2>"$T/g.err"
			fi
			rc=$?
			cat "$T/g.out"
			echo "-- exit $rc, stderr:"
			sed -E 's/, [0-9.]+ s, tc.s CPU [0-9.]+ s$//; s/ \([0-9]+ KiB\)//' "$T/g.err"
		done
	done
}

golden_outputs() {
	local v f name bad= n=0
	mkdir -p "$T/in"
	for v in "basic" "basic --be" "basic --long4" "basic --be --long4" "power" "power --be" \
		 "lost" "lost --long4" "hostile" "lag" "lag --be"; do
		# shellcheck disable=SC2086
		set -- $v
		name=mk-$1$(echo "${*:2}" | tr -d ' ' | sed 's/--/-/g')
		"$ROOT/test/mkdata" "${@:2}" --scenario "$1" "$T/in/$name.data" 2>/dev/null || bad="$bad [mkdata $v]"
	done
	cp "$ROOT"/test/fuzz-seeds/*.data "$T/in/"
	for f in "$T"/in/*.data; do
		name=$(basename "$f" .data)
		golden_of "$f" >"$T/$name.out"
		# what this machine's CPUs or tracefs decide is not golden
		grep -q "had: assuming [0-9]\|using this machine's" "$T/$name.out" && continue
		n=$((n + 1))
		if [ -n "${TC_GOLDEN_WRITE:-}" ]; then
			mkdir -p "$GOLDEN" && cp "$T/$name.out" "$GOLDEN/$name.out"
		elif [ ! -e "$GOLDEN/$name.out" ]; then
			bad="$bad [$name: no test/golden/$name.out]"
		elif ! cmp -s "$T/$name.out" "$GOLDEN/$name.out"; then
			bad="$bad [$name: $(diff "$GOLDEN/$name.out" "$T/$name.out" | grep -m1 '^[<>]' | cut -c1-100)]"
		fi
	done
	if [ -n "$bad" ]; then
		fail golden_outputs "outputs differ from test/golden (< expected, > got):$bad"
	elif [ "$n" -lt 14 ]; then
		fail golden_outputs "only $n inputs"
	else
		pass golden_outputs
	fi
}

# Issue 23: the replay view reads its file again from a checkpoint (the
# model and the reader's state as they were there) instead of from the
# start; test/zoombench -c reads spans of every mkdata file and fuzz seed
# both ways, with a checkpoint every 256 bytes (at every record of tc's
# files, every round of perf's), and the intervals must be the same byte
# for byte. mkdata's lag scenario has a CPU a round late, whose records a
# pass from a checkpoint must partly skip (without that: "ring byte 2 of
# 100 differs").
zoom_checkpoints() {
	local f v name rc bad= n=0
	[ -x "$ROOT/test/zoombench" ] || { fail zoom_checkpoints "test/zoombench was not built"; return; }
	for v in "basic" "basic --be" "power" "lost" "hostile" "lag" "lag --be"; do
		# shellcheck disable=SC2086
		set -- $v
		"$ROOT/test/mkdata" "${@:2}" --scenario "$1" "$T/mk-$1${2:-}.data" 2>/dev/null || bad="$bad [mkdata $v]"
	done
	for f in "$T"/mk-*.data "$ROOT"/test/fuzz-seeds/*.data; do
		name=$(basename "$f")
		timeout 60 "$ROOT/test/zoombench" -c 256 "$f" 1 0.02 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 0.97 \
			>"$T/$name.out" 2>&1
		rc=$?
		case $rc in
		0) grep -q 'same: [1-9]' "$T/$name.out" && n=$((n + 1)) ;;
		1) bad="$bad [$name: $(grep -v 'same' "$T/$name.out" | grep -m1 '^  at')]" ;;
		3) ;;	# no events
		*) bad="$bad [$name: exit $rc: $(tail -1 "$T/$name.out")]" ;;
		esac
	done
	if [ -n "$bad" ]; then
		fail zoom_checkpoints "read from a checkpoint differs from read from the start:$bad"
	elif [ "$n" -lt 6 ]; then
		fail zoom_checkpoints "only $n files had intervals to compare"
	else
		pass zoom_checkpoints
	fi
}

# The replay view's history after its first reading (the summaries' tables
# and the ring of exact intervals, as digests: test/zoombench -s), the same
# as test/golden/history.out, which the reader wrote before that reading
# was made faster (the summaries' blocks cleared only where written, on
# huge pages; an interval's varints written at once; the second thread).
# The inputs: test/sim's schedules of 4,096 task slots over 3 s (tasks
# taking each other's blocks, buckets widened twice), a perf file and a tc
# file (its own reading path), with --history 2 (5 and 10 blocks, the ring
# wrapping) and 64; mkdata's and the fuzz seeds with 64.  Rewrite it as
# golden_outputs' files are (TC_GOLDEN_WRITE=1).
view_history_golden() {
	local f h out=$T/history.out
	[ -x "$ROOT/test/zoombench" ] || { fail view_history_golden "test/zoombench was not built"; return; }
	"$ROOT/test/sim" gen --seed 11 --cpus 4 --tasks 300 --steps 300000 "$T/hist-perf.data" >/dev/null 2>&1 &&
		"$ROOT/test/sim" gen --seed 12 --cpus 3 --tasks 40 --steps 200000 --tcfile "$T/hist-tc.data" \
			>/dev/null 2>&1 &&
		"$ROOT/test/mkdata" --scenario basic "$T/hist-mk.data" 2>/dev/null ||
		{ fail view_history_golden "test/sim or test/mkdata failed"; return; }
	for f in "$T"/hist-{perf,tc,mk}.data "$ROOT"/test/fuzz-seeds/{perf-system-switch,tc-record-true}.data; do
		for h in 2 64; do
			case $f in *-mk.data | */fuzz-seeds/*) [ $h = 2 ] && continue ;; esac
			echo "== $(basename "$f") --history $h"
			timeout 60 "$ROOT/test/zoombench" -s $h "$f" 2>&1
			echo "-- exit $?"
		done
	done >"$out"
	if [ -n "${TC_GOLDEN_WRITE:-}" ]; then
		cp "$out" "$GOLDEN/history.out"
		pass view_history_golden
	elif ! cmp -s "$out" "$GOLDEN/history.out"; then
		fail view_history_golden "the view's history differs from test/golden/history.out (< expected, > got): $(diff "$GOLDEN/history.out" "$out" | grep '^[<>]' | head -4 | cut -c1-160 | tr '\n' ' ')"
	elif [ "$(grep -c 'ring: [1-9]' "$out")" -lt 7 ] || ! grep -q 'stolen [1-9]' "$out"; then
		fail view_history_golden "too little history to compare: $(grep -c 'ring: [1-9]' "$out") rings written"
	else
		pass view_history_golden
	fi
}

test_slow 10 golden_outputs
run_tests golden_outputs zoom_checkpoints view_history_golden
