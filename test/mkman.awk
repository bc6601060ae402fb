# SPDX-License-Identifier: GPL-2.0-only
# tc.1 from `tc --help` (make tc.1): the synopsis, options and keys come
# from tc's own tables, so the man page, --help and README (checked by the
# test man_page) never disagree.  VERSION is set by the Makefile.
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	sub(/^\./, "\\\\\\&.", s)
	sub(/^'/, "\\\\\\&'", s)
	return s
}
BEGIN {
	print ".TH TC 1 \"\" \"tc " VERSION "\" \"User Commands\""
	print ".SH NAME"
	print "tc \\- a live timechart for Linux: who runs, who waits, who sleeps, who woke whom"
	print ".SH SYNOPSIS"
	print ".nf"
}
/^usage: / { sub(/^usage: /, ""); sect = "usage" }
/^options:$/ {
	print ".fi"
	print ".SH DESCRIPTION"
	print "tc shows what every CPU and every task of a Linux system is doing, as a"
	print "rolling timeline in a terminal: who runs where, who waits for a CPU, who"
	print "sleeps, who is blocked, who is in I/O, which idle state and frequency each CPU"
	print "is in, and who woke whom.  It traces with perf_event_open and tracepoints,"
	print "and its recordings are perf.data files that perf reads; it reads perf"
	print "record's files too."
	print ".PP"
	print "With \\fB\\-\\-summary\\fR it prints per-task and per-CPU totals, tab-separated,"
	print "times in milliseconds; \\fB\\-\\-script\\fR prints every event; \\fB\\-\\-states\\fR"
	print "every state interval of tc's model in nanoseconds.  README.md says what each"
	print "column, state and colour means, and how tc fills in what the kernel left out."
	print ".SH OPTIONS"
	sect = "options"; next
}
/^keys in the view:$/ { print ".SH KEYS"; sect = "keys"; next }
sect == "usage" { sub(/^ +/, ""); print esc($0); next }
sect == "options" || sect == "keys" {
	if ($0 ~ /^ {20,}/) {		# a help line continued
		sub(/^ +/, "")
		print esc($0)
		next
	}
	line = $0
	sub(/^ +/, "", line)
	col = sect == "options" ? 24 : 24
	name = substr($0, 3, col)
	sub(/ +$/, "", name)
	sub(/^ +/, "", name)
	help = substr($0, 3 + col)
	sub(/^ +/, "", help)
	print ".TP"
	print ".B " esc(name)
	print esc(help)
}
END {
	print ".SH EXIT STATUS"
	print "0 on success; 1 on an error, said on standard error; with a traced command"
	print "that ends on its own, its exit status (128 + the signal that killed it)."
	print ".SH FILES"
	print "A recording is a perf.data file, created mode 0600; an existing file is kept"
	print "as \\fIFILE\\fR.old.  tc needs tracefs at /sys/kernel/tracing and the right to"
	print "use perf_event_open (root, CAP_PERFMON, or kernel.perf_event_paranoid \\-1)."
	print ".SH NOTES"
	print "iproute2 and busybox also have a command named tc (traffic control): install"
	print "this one under another name where that one is installed (make install NAME=...)."
	print ".SH SEE ALSO"
	print "perf-sched(1), perf-timechart(1), perf-script(1), perf-record(1)"
}
