# SPDX-License-Identifier: GPL-2.0-only
#
# test/t_answers.sh (ftrace_instance): the kernel's trace of a tracefs instance
# (file 1) against tc --script --ftrace of a recording made at the same time
# (file 2). For each tc line inside the kernel trace's span on its CPU, the
# kernel line of the same CPU, event, pid and fields within 1 ms of it (the
# two read the mono clock separately) must come, in order, with the same
# flags. Prints the lines that have none (3 at most) and a last line:
#   total N matched N flags N maxdt S counts EVENT N ...
function parse(line, r,   m) {
	if (!match(line, /-[0-9]+ +\[[0-9]+\] [^ ]+ +[0-9]+\.[0-9]+: [a-z_0-9]+: /))
		return 0
	m = substr(line, RSTART + 1, RLENGTH - 1)
	r["fields"] = substr(line, RSTART + RLENGTH)
	split(m, w, /[ \[\]:]+/)
	r["pid"] = w[1]; r["cpu"] = w[2] + 0; r["flags"] = w[3]; r["ts"] = w[4]; r["ev"] = w[5]
	return 1
}
FNR == 1 { file++ }
/^#/ { next }
file == 1 {
	if (!parse($0, r)) next
	c = r["cpu"]; n = ++kn[c]
	kev[c, n] = r["ev"]; kpid[c, n] = r["pid"]; kts[c, n] = r["ts"]; kfl[c, n] = r["flags"]; kf[c, n] = r["fields"]
	if (!(c in kfirst)) kfirst[c] = r["ts"]
	klast[c] = r["ts"]
	next
}
{
	if (!parse($0, r)) next
	c = r["cpu"]
	if (!(c in kfirst) || r["ts"] < kfirst[c] + 0.001 || r["ts"] > klast[c] - 0.001) next
	total++
	for (i = (c in pos ? pos[c] : 1); i <= kn[c] && kts[c, i] < r["ts"] - 0.001; i++)
		;
	for (; i <= kn[c] && kts[c, i] <= r["ts"] + 0.001; i++)
		if (kev[c, i] == r["ev"] && kpid[c, i] == r["pid"] && kf[c, i] == r["fields"])
			break
	if (i > kn[c] || kts[c, i] > r["ts"] + 0.001) {
		if (unmatched++ < 3) print "no kernel line for: " $0
		next
	}
	pos[c] = i + 1
	matched++
	d = kts[c, i] - r["ts"]; if (d < 0) d = -d; if (d > maxd) maxd = d
	if (kfl[c, i] != r["flags"] && flagdiff++ < 3) print "flags differ: kernel " kfl[c, i] ", tc: " $0
	byev[r["ev"]]++
}
END {
	printf "total %d matched %d flags %d maxdt %.6f counts", total, matched, flagdiff, maxd
	for (e in byev) printf " %s %d", e, byev[e]
	print ""
}
