# SPDX-License-Identifier: GPL-2.0-only
# test/recskew.awk: of two --script listings of one run (the first of the
# whole run, the second of a recording inside it), the largest gap in ns
# between the times the two give the same switch, beyond their clocks'
# offset (agree_why's margin, test/t_truth.sh).  Each CPU's switches
# (prev, state, next) are matched in order, each of the second's with the
# next of the first's with its key (at most 64 on); the gap is how much
# the difference of their times moves from one matched switch to the
# next, inside runs of at least 8 that both recordings have one after the
# other (a vCPU the host stopped between the two recorders' records of a
# switch: 1.6 ms seen; a sampled or filtered recording's switches, far
# apart in the first, tell nothing).  Prints the gap (0 where it is below
# 50 us) and the number of switches in such runs.
function abs(x) { return x < 0 ? -x : x }

function key(   p, s, n) {
	match($0, / prev_pid=[^ ]*/); p = substr($0, RSTART, RLENGTH)
	match($0, / prev_state=[^ ]*/); s = substr($0, RSTART, RLENGTH)
	match($0, / next_pid=[^ ]*/); n = substr($0, RSTART, RLENGTH)
	return p s n
}

# the gaps inside each run of the np pairs (mi, mm: the second's and the
# first's index, md: their times' difference) where both go on by one and
# nine in ten of the differences move by less than 50 us (else the keys
# matched switches that are not the same: a sampled recording's)
function runs(   a, b, q, g, small, big) {
	for (a = 0; a < np; a = b) {
		for (b = a + 1; b < np && mi[b] == mi[b - 1] + 1 && mm[b] == mm[b - 1] + 1; b++)
			;
		small = big = 0
		for (q = a + 1; q < b; q++)
			if ((g = abs(md[q] - md[q - 1])) < 50000)
				small++
			else if (g > big)
				big = g
		if (b - a < 8 || small * 10 < (b - a - 1) * 9)
			continue
		inruns += b - a
		if (big > max)
			max = big
	}
}

$3 == "sched_switch" && $1 > 0 {
	f = FILENAME == ARGV[1] ? 0 : 1
	i = n[f, $2]++
	t[f, $2, i] = $1
	k[f, $2, i] = key()
	cpus[$2] = 1
}

END {
	max = inruns = 0
	for (c in cpus) {
		# the second's first: the first's with its key nearest in time
		j = best = -1
		for (m = 0; m < n[0, c]; m++)
			if (k[0, c, m] == k[1, c, 0] && (best < 0 || abs(t[0, c, m] - t[1, c, 0]) < best)) {
				best = abs(t[0, c, m] - t[1, c, 0])
				j = m
			}
		np = 0
		for (i = 0; j >= 0 && i < n[1, c]; i++) {
			for (m = j; m < n[0, c] && m < j + 64 && k[0, c, m] != k[1, c, i]; m++)
				;
			if (m >= n[0, c] || k[0, c, m] != k[1, c, i])
				continue
			mi[np] = i
			mm[np] = m
			md[np++] = t[0, c, m] - t[1, c, i]
			j = m + 1
		}
		runs()
	}
	printf "%d %d\n", max, inruns
}
