# SPDX-License-Identifier: GPL-2.0-only
#
# test/t_answers.sh (ftrace_instance): the kernel's trace of a tracefs instance
# (file 1) against tc --script --ftrace of a recording made at the same time
# (file 2). For each tc line inside the kernel trace's span on its CPU (less
# E = 1 ms at each end), the kernel line of the same CPU, event, pid and
# fields must come in the same order (the kernel's next one, or a later one
# when tc lost events), within W = 20 ms (the two read the mono clock
# separately; a virtual CPU can be descheduled in between), with the same
# flags but for the need-resched column: another CPU can set it between the
# two reads. A CPU's first tc line is paired with the nearest equal kernel
# line.
# Prints the lines that have none and the flag differences (3 at most each)
# and a last line:
#   total N matched N flags N resched N maxdt S counts EVENT N ...
function parse(line, r,   m) {
	if (!match(line, /-[0-9]+ +\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: [a-z_0-9]+: /))
		return 0
	m = substr(line, RSTART + 1, RLENGTH - 1)
	r["fields"] = substr(line, RSTART + RLENGTH)
	split(m, w, /[ \[\]:]+/)
	r["pid"] = w[1]; r["cpu"] = w[2] + 0; r["flags"] = w[3]; r["ts"] = w[4]; r["ev"] = w[5]
	return 1
}
function absd(x) { return x < 0 ? -x : x }
BEGIN { W = 0.02; E = 0.001 }
FNR == 1 { file++ }
/^#/ { next }
file == 1 {
	if (!parse($0, r)) next
	c = r["cpu"]; n = ++kn[c]
	kkey[c, n] = r["ev"] " " r["pid"] " " r["fields"]; kts[c, n] = r["ts"]; kfl[c, n] = r["flags"]
	if (!(c in kfirst)) kfirst[c] = r["ts"]
	klast[c] = r["ts"]
	next
}
{
	if (!parse($0, r)) next
	c = r["cpu"]
	if (!(c in kfirst) || r["ts"] < kfirst[c] + E || r["ts"] > klast[c] - E) next
	total++
	key = r["ev"] " " r["pid"] " " r["fields"]
	i = 0
	if (c in pos && pos[c] <= kn[c] && kkey[c, pos[c]] == key) {
		i = pos[c]	# in step with the kernel's sequence
	} else if (c in pos) {	# the kernel has events tc has not: the next equal one
		for (j = pos[c]; j <= kn[c] && kts[c, j] <= r["ts"] + W; j++)
			if (kkey[c, j] == key) { i = j; break }
	} else {		# the first line of the CPU: the nearest equal one
		for (j = 1; j <= kn[c] && kts[c, j] <= r["ts"] + W; j++)
			if (kkey[c, j] == key && kts[c, j] >= r["ts"] - W &&
			    (!i || absd(kts[c, j] - r["ts"]) < absd(kts[c, i] - r["ts"])))
				i = j
	}
	if (!i) {
		if (unmatched++ < 3) print "no kernel line for: " $0
		next
	}
	pos[c] = i + 1
	matched++
	d = absd(kts[c, i] - r["ts"]); if (d > maxd) maxd = d
	a = kfl[c, i]; b = r["flags"]
	if (substr(a, 1, 1) substr(a, 3) != substr(b, 1, 1) substr(b, 3)) {
		if (flagdiff++ < 3) print "flags differ: kernel " a ", tc: " $0
	} else if (a != b) {
		resched++
	}
	byev[r["ev"]]++
}
END {
	printf "total %d matched %d flags %d resched %d maxdt %.6f counts", total, matched, flagdiff, resched, maxd
	for (e in byev) printf " %s %d", e, byev[e]
	print ""
}
