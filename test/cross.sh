#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# make cross: tc on other architectures and byte orders, under qemu-user.
#
#   bash test/cross.sh TARGET...     (GNU triplets; `make cross` builds
#                                     cross/TARGET/{tc,unit} first)
#
# Tracing cannot run under qemu-user (it emulates a CPU, not perf_event_open
# of another architecture's kernel), so what runs there is what needs no
# kernel: the unit tests, and the reader over recordings made beforehand.
#
# 1. Each target's unit tests; rec_roundtrip writes a recording with tc's
#    recorder (in the target's byte order and word size) and keeps it
#    (TC_UNIT_REC), with a copy cut off after its first checkpoint.
# 2. Each target repairs its own cut-off recording (tc --repair).
# 3. Every target replays every recording: test/mkdata's (little- and
#    big-endian, 64- and 32-bit, and one whose data lies past 3 GiB),
#    test/fuzz-seeds (perf's and tc's, from
#    x86-64), each target's recorded and repaired ones, and, as root with
#    tracing, a tc --record and a perf record made here and now. --summary
#    and --script must be byte-identical, with the same exit status, to
#    those of ./tc on this machine.
# 4. perf script (x86-64) reads every target's recorded and repaired files,
#    with as many sched_switch events as tc finds in them.
#
# Prints a table (target, stripped static size, unit tests, replay tests,
# seconds under qemu) and ends with "N passed, N failed". A failure keeps the
# scratch directory and prints where it is.

set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
TC=$ROOT/tc
MKDATA=$ROOT/test/mkdata
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || { echo "usage: test/cross.sh TARGET..." >&2; exit 2; }

TMP=$(mktemp -d "${TMPDIR:-/tmp}/tc-cross.XXXXXX") || exit 1
npass=0 nfail=0
pass() { npass=$((npass + 1)); }
fail() { nfail=$((nfail + 1)); echo "FAIL $1: ${2:-failed}"; }
note() { echo "  note: $*"; }

# qemu-user's program for a triplet.
qemu_of() {
	case $1 in
	aarch64-*) echo qemu-aarch64-static ;;
	arm*) echo qemu-arm-static ;;
	riscv64-*) echo qemu-riscv64-static ;;
	mips-*) echo qemu-mips-static ;;
	mipsel-*) echo qemu-mipsel-static ;;
	s390x-*) echo qemu-s390x-static ;;
	i?86-*) echo qemu-i386-static ;;
	powerpc-*) echo qemu-ppc-static ;;
	powerpc64-*) echo qemu-ppc64-static ;;
	*) return 1 ;;
	esac
}

for t in "${TARGETS[@]}"; do
	q=$(qemu_of "$t") || { echo "cross.sh: no qemu-user for $t" >&2; exit 2; }
	command -v "$q" >/dev/null || { echo "cross.sh: $q missing (apt-get install qemu-user-static)" >&2; exit 2; }
	[ -x "cross/$t/tc" ] && [ -x "cross/$t/unit" ] || { echo "cross.sh: cross/$t/ not built (make cross)" >&2; exit 2; }
done

IN=$TMP/in
mkdir -p "$IN"

# --- recordings from this machine and synthetic ones
for sc in basic power lost; do
	for v in "" --be --long4 "--be --long4"; do
		name=mkdata-$sc${v// /}
		# shellcheck disable=SC2086
		"$MKDATA" $v --scenario "$sc" "$IN/${name//--/-}.data" || fail "mkdata $sc $v"
	done
done
# its data and features past 3 GiB (a sparse file): 32-bit hosts need
# 64-bit file offsets (a 32-bit glibc build without them could not stat it)
"$MKDATA" --gap 3221225472 --scenario basic "$IN/mkdata-basic-gap.data" || fail "mkdata --gap"
cp test/fuzz-seeds/* "$IN/"
if [ "$(id -u)" = 0 ]; then
	if timeout 60 "$TC" --record "$IN/x86-tc-record.data" -m 16 -- sleep 0.3 >/dev/null 2>"$TMP/record.err"; then
		rm -f "$IN/x86-tc-record.data.old"
	else
		note "tc --record here failed ($(tail -1 "$TMP/record.err")): replaying the committed recordings only"
		rm -f "$IN"/x86-tc-record.data*
	fi
	if command -v perf >/dev/null &&
	   timeout 60 perf record -q -e sched:sched_switch -e sched:sched_wakeup -a -o "$IN/x86-perf-record.data" \
		-- sleep 0.3 >/dev/null 2>"$TMP/perf.err"; then
		rm -f "$IN/x86-perf-record.data.old"
	else
		note "perf record here failed: $(tail -1 "$TMP/perf.err" 2>/dev/null)"
		rm -f "$IN"/x86-perf-record.data*
	fi
else
	note "not root: no fresh recordings, the committed and synthetic ones only"
fi

declare -A UNIT_OK UNIT_BAD REP_OK REP_BAD SECS
for t in "${TARGETS[@]}"; do
	UNIT_OK[$t]=0 UNIT_BAD[$t]=0 REP_OK[$t]=0 REP_BAD[$t]=0 SECS[$t]=0
done

# Run "$@" and add its wall time, in ms, to SECS[$t].
timed() {
	local t0 t1 rc
	t0=$(date +%s%N)
	"$@"
	rc=$?
	t1=$(date +%s%N)
	SECS[$t]=$((SECS[$t] + (t1 - t0) / 1000000))
	return $rc
}

# --- 1. unit tests; each target's recording
for t in "${TARGETS[@]}"; do
	q=$(qemu_of "$t")
	mkdir -p "$TMP/unit-$t"
	timed env TC_UNIT_REC="$TMP/unit-$t" timeout 300 "$q" "cross/$t/unit" \
		>"$TMP/unit-$t.out" 2>"$TMP/unit-$t.err"
	rc=$?
	p=$(grep -c '^PASS ' "$TMP/unit-$t.out")
	f=$(grep -c '^FAIL ' "$TMP/unit-$t.out")
	UNIT_OK[$t]=$p UNIT_BAD[$t]=$f
	grep '^FAIL ' "$TMP/unit-$t.out" | sed "s/^FAIL /FAIL $t: unit:/"
	if [ "$rc" != 0 ] || [ "$f" != 0 ] || ! grep -q "^$p passed, 0 failed\$" "$TMP/unit-$t.out"; then
		fail "$t: unit" "exit status $rc; see $TMP/unit-$t.out and .err"
		[ "$f" != 0 ] || UNIT_BAD[$t]=1
	else
		pass
	fi
	if [ -s "$TMP/unit-$t/rec.data" ] && [ -s "$TMP/unit-$t/rec-cut.data" ]; then
		cp "$TMP/unit-$t/rec.data" "$IN/rec-$t.data"
		cp "$TMP/unit-$t/rec-cut.data" "$IN/repaired-$t.data"
	else
		fail "$t: recording" "the unit tests left no recording in $TMP/unit-$t"
	fi
done

# --- 2. each target repairs its own cut-off recording
for t in "${TARGETS[@]}"; do
	f=$IN/repaired-$t.data
	[ -e "$f" ] || continue
	if timed timeout 120 "$(qemu_of "$t")" "cross/$t/tc" --repair "$f" >"$TMP/repair-$t.out" 2>&1; then
		rm -f "$f.old"
		REP_OK[$t]=$((REP_OK[$t] + 1))
		pass
	else
		REP_BAD[$t]=$((REP_BAD[$t] + 1))
		fail "$t: --repair" "$(tail -1 "$TMP/repair-$t.out")"
		rm -f "$f" "$f.old"
	fi
done

# --- 3. every target replays every recording like x86-64
mkdir -p "$TMP/ref"
for f in "$IN"/*.data; do
	b=$(basename "$f" .data)
	for m in summary script; do
		timeout 120 "$TC" --replay "$f" --$m >"$TMP/ref/$b.$m" 2>"$TMP/ref/$b.$m.err"
		echo $? >"$TMP/ref/$b.$m.rc"
	done
done
for t in "${TARGETS[@]}"; do
	q=$(qemu_of "$t")
	mkdir -p "$TMP/out-$t"
	for f in "$IN"/*.data; do
		b=$(basename "$f" .data)
		for m in summary script; do
			o=$TMP/out-$t/$b.$m
			timed timeout 300 "$q" "cross/$t/tc" --replay "$f" --$m >"$o" 2>"$o.err"
			echo $? >"$o.rc"
			if cmp -s "$o" "$TMP/ref/$b.$m" && cmp -s "$o.rc" "$TMP/ref/$b.$m.rc"; then
				REP_OK[$t]=$((REP_OK[$t] + 1))
				pass
			else
				REP_BAD[$t]=$((REP_BAD[$t] + 1))
				fail "$t: --$m $b" "differs from x86-64 (exit $(cat "$o.rc"), x86-64 $(cat "$TMP/ref/$b.$m.rc")): diff $o $TMP/ref/$b.$m"
			fi
		done
	done
done

# --- 4. perf script reads the targets' recordings
if command -v perf >/dev/null; then
	for f in "$IN"/rec-*.data "$IN"/repaired-*.data; do
		[ -e "$f" ] || continue
		b=$(basename "$f" .data)
		want=$(grep -c ' sched_switch ' "$TMP/ref/$b.script")
		got=$(timeout 120 perf script -i "$f" 2>"$TMP/perf-$b.err" | grep -c 'sched:sched_switch:')
		if [ "$want" -gt 0 ] && [ "$got" = "$want" ]; then
			pass
		else
			fail "perf script $b" "$got sched_switch events, tc finds $want: $TMP/perf-$b.err"
		fi
	done
else
	note "no perf: the targets' recordings are not checked by perf script"
fi

printf '\n%-22s %12s %14s %16s %10s\n' target "static size" "unit tests" "replay tests" "qemu (s)"
for t in "${TARGETS[@]}"; do
	s=$(stat -c %s "cross/$t/tc-stripped" 2>/dev/null || echo "?")
	printf '%-22s %12s %14s %16s %10s\n' "$t" "$s" \
		"${UNIT_OK[$t]}/$((UNIT_OK[$t] + UNIT_BAD[$t]))" \
		"${REP_OK[$t]}/$((REP_OK[$t] + REP_BAD[$t]))" \
		"$((SECS[$t] / 1000)).$(printf %03d $((SECS[$t] % 1000)))"
done
echo "(replay tests: $(ls "$IN" | wc -l) recordings x --summary, --script, plus the target's --repair)"
echo
if [ "$nfail" = 0 ]; then
	rm -rf "$TMP"
else
	echo "cross: files kept in $TMP"
fi
echo "cross: $npass passed, $nfail failed"
[ "$nfail" = 0 ]
