# SPDX-License-Identifier: GPL-2.0-only
# The interface is written once, in tc's option and key tables: --help
# prints them, and README's command list and the man page are checked
# against it, as README's --summary columns are against --summary.
# Sourced by test/run.sh.

# README's block between "<!-- tc --help -->" and its end is what
# tc --help prints before the keys.
readme_help() {
	local why=
	"$TC" --help | sed '/^keys in the view:$/,$d' >"$T/help"
	sed -n '/^<!-- tc --help -->$/,/^<!-- end of tc --help -->$/p' "$ROOT/README.md" |
		sed '1,2d;$d' | sed '$d' >"$T/readme"
	if [ ! -s "$T/readme" ]; then
		why="README.md has no <!-- tc --help --> block"
	elif ! diff -u "$T/readme" "$T/help" >"$T/diff"; then
		why="README.md's command list is not tc --help's: $(head -8 "$T/diff" | tr '\n' ' ')"
	elif awk 'length($0) > 79 { exit 1 }' "$T/help"; then
		:
	else
		why="tc --help has lines over 79 columns"
	fi
	if [ -n "$why" ]; then fail readme_help "$why"; else pass readme_help; fi
}

# tc.1 is what make tc.1 makes of tc --help now; man reads it.
man_page() {
	local why=
	"$TC" --help | awk -v VERSION="$("$TC" --version | cut -d' ' -f2)" -f "$ROOT/test/mkman.awk" >"$T/tc.1"
	if ! diff -u "$ROOT/tc.1" "$T/tc.1" >"$T/diff"; then
		why="tc.1 is stale (make tc.1): $(head -8 "$T/diff" | tr '\n' ' ')"
	elif ! grep -q '^\.B \\-p, \\-\\-pid PID|NAME$' "$ROOT/tc.1" || ! grep -q '^\.SH KEYS$' "$ROOT/tc.1"; then
		why="tc.1 lacks the -p option or the KEYS section"
	elif command -v man >/dev/null && ! MANWIDTH=80 man -l "$ROOT/tc.1" 2>"$T/man.err" | grep -q 'worst waits panel'; then
		why="man -l tc.1: $(head -2 "$T/man.err")"
	fi
	if [ -n "$why" ]; then fail man_page "$why"; else pass man_page; fi
}

# Options are refused in the same words wherever they do not belong, and
# values out of their row's bounds are named with the bounds.
options_table() {
	local why= e
	e=$("$TC" --record "$T/x" -p foo 2>&1) && why="--record -p accepted"
	[ -z "$why" ] && [ "$e" != "tc: --pid goes with --live, --replay (the view), --summary or --flight" ] &&
		why="--record -p: $e"
	e=$("$TC" --replay "$T/x" --summary --script 2>&1) && why=${why:-"--summary --script accepted"}
	[ -z "$why" ] && [ "$e" != "tc: --summary, --script and --states are one output each: give one of them" ] &&
		why="--summary --script: $e"
	e=$("$TC" --live -m 3 2>&1) && why=${why:-"-m 3 accepted"}
	[ -z "$why" ] && [ "$e" != "tc: -m 3: a power of two from 1 to 1048576 is needed" ] && why="-m 3: $e"
	e=$("$TC" --live -w 0 2>&1) && why=${why:-"-w 0 accepted"}
	[ -z "$why" ] && [ "$e" != "tc: -w 0: a number of seconds above 0 and at most 1000000 is needed" ] && why="-w 0: $e"
	e=$("$TC" --record "$T/x" -d 1 -d 2 2>&1) && why=${why:-"-d twice accepted"}
	[ -z "$why" ] && [ "$e" != "tc: -d is given twice" ] && why="-d twice: $e"
	e=$("$TC" --replay "$T/x" --ftrace 2>&1) && why=${why:-"--ftrace without --script accepted"}
	[ -z "$why" ] && [ "$e" != "tc: --ftrace goes with --script" ] && why="--ftrace: $e"
	[ -e "$T/x" ] && why=${why:-"a refused command wrote $T/x"}
	if [ -n "$why" ]; then fail options_table "$why"; else pass options_table; fi
}

# README's --summary section names every column of --summary's task and CPU
# blocks (as `name`), and its task table names no column tc does not print.
summary_columns() {
	local why= miss extra
	"$ROOT/test/mkdata" --scenario basic "$T/b.data" && "$TC" --replay "$T/b.data" --summary >"$T/sum" 2>/dev/null
	sed -n '/^## `--summary`$/,/^## /p' "$ROOT/README.md" >"$T/readme"
	awk -F'\t' 'NR == 1 || $1 == "cpu" { for (i = 1; i <= NF; i++) print $i }' "$T/sum" | sort -u >"$T/cols"
	grep -o '`[a-z_]*`' "$T/readme" | tr -d '`' | sort -u >"$T/named"
	grep '^| `' "$T/readme" | cut -d'|' -f2 | grep -o '`[a-z_]*`' | tr -d '`' | sort -u >"$T/table"
	miss=$(comm -23 "$T/cols" "$T/named" | tr '\n' ' ')
	extra=$(comm -13 "$T/cols" "$T/table" | tr '\n' ' ')
	if [ ! -s "$T/cols" ] || [ ! -s "$T/table" ]; then
		why="no columns found: --summary $(wc -l <"$T/cols") lines, README's table $(wc -l <"$T/table")"
	elif [ -n "$miss" ]; then
		why="README's --summary section does not name: $miss"
	elif [ -n "$extra" ]; then
		why="README's task table names columns tc does not print: $extra"
	fi
	if [ -n "$why" ]; then fail summary_columns "$why"; else pass summary_columns; fi
}

test_class quiet readme_help man_page options_table summary_columns
run_tests readme_help man_page options_table summary_columns
