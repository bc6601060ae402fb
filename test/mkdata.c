// SPDX-License-Identifier: GPL-2.0-only
/*
 * mkdata: write a small synthetic perf.data file (file mode) for tc's tests.
 *
 *   mkdata [--be] [--long4] [--gap BYTES] [--scenario basic|power|lost|hostile|lag|lostlate] FILE
 *
 * The file is what `perf record -e sched:... -e power:... -a` would write on
 * a 2-CPU machine (tools/perf/Documentation/perf.data-file-format.txt):
 *
 *   [ header 104 ][ ids ][ attrs ][ data: COMM, samples, LOST, FINISHED_ROUND ]
 *   [ feature table at data.offset + data.size ][ TRACING_DATA, HOSTNAME, NRCPUS ]
 *
 * Samples are TID|TIME|CPU|RAW|IDENTIFIER with sample_id_all.  The writer
 * (formats, records, the file) is test/perfdata.h, shared with test/sim.c.
 * --be writes every number as a big-endian machine would; --long4 is a
 * 32-bit target (sizeof(long) 4); --gap puts a hole of BYTES before the
 * data section (a sparse file: a reader's offsets past 2 GiB, as 32-bit
 * hosts must read them).  Within a round the records are grouped
 * by CPU, as perf writes its per-CPU buffers, so a reader must merge.
 *
 * The scenarios' times and the numbers tc must derive from them are in
 * test/t_replay.sh.  Scenario time 0 is T0 ns.
 */
#include "perfdata.h"

#define T0 1000000000ull	/* ns of scenario time 0 */
#define NCPU 2
#define SAMPLE_TYPE (PW_S_TID | PW_S_TIME | PW_S_CPU | PW_S_RAW | PW_S_IDENTIFIER)

/* The tracepoints of every file, one attr each; ids of their per-CPU
 * events are pw_id(index, cpu). */
enum { TP_SWITCH, TP_WAKEUP, TP_WAKING, TP_IDLE, TP_FREQ, NTP };
static const struct pw_tp tps[NTP] = {
	[TP_SWITCH] = PW_TP_SWITCH,
	[TP_WAKEUP] = PW_TP_WAKEUP,
	[TP_WAKING] = PW_TP_WAKING,
	[TP_IDLE] = PW_TP_IDLE,
	[TP_FREQ] = PW_TP_FREQ,
};

/* ---------------------------------------------------------------- scenarios */

enum { E_SWITCH = TP_SWITCH, E_WAKEUP = TP_WAKEUP, E_WAKING = TP_WAKING,
       E_IDLE = TP_IDLE, E_FREQ = TP_FREQ, E_LOST, E_ROUND };

/*
 * One event at us µs after T0 on cpu.  switch: a prev pid, b next pid, v
 * prev_state; wakeups: a pid, b target_cpu, v waker pid; idle, freq: b
 * cpu_id, v state; lost: v events lost.  flags: common_flags.
 */
struct sev {
	unsigned us;
	int cpu, kind, a, b;
	long long v;
	int flags;
};

#define SW(t, c, prev, st, next) { t, c, E_SWITCH, prev, next, st, 0 }
#define WK(t, c, k, pid, tcpu, waker, fl) { t, c, k, pid, tcpu, waker, fl }
#define PW(t, c, k, state) { t, c, k, 0, c, state, 0 }
#define LOST(t, c, n) { t, c, E_LOST, 0, 0, n, 0 }
#define ROUND { 0, 0, E_ROUND, 0, 0, 0, 0 }
#define IDLE_EXIT 4294967295ll

struct task {
	int pid;
	const char *comm;
};

static const struct task basic_tasks[] = { { 100, "alpha" }, { 200, "beta" }, { 0 } };
static const struct sev basic[] = {
	WK(0, 0, E_WAKING, 100, 0, 0, 0),
	WK(0, 0, E_WAKEUP, 100, 0, 0, 0),
	SW(5000, 1, 200, 1, 0),
	SW(10000, 0, 0, 0, 100),
	ROUND,
	WK(20000, 1, E_WAKING, 200, 1, 0, 0),
	SW(22500, 1, 0, 0, 200),
	SW(30000, 0, 100, 1, 0),
	SW(35000, 1, 200, 2, 0),
	ROUND,
	WK(50000, 1, E_WAKEUP, 100, 0, 0, 0x08),	/* from a hard irq */
	SW(50250, 0, 0, 0, 100),
	WK(55000, 0, E_WAKING, 200, 1, 100, 0),
	SW(56000, 1, 0, 0, 200),
	SW(60000, 1, 200, 1, 0),
	WK(61000, 0, E_WAKING, 200, 0, 100, 0),
	ROUND,
	SW(62000, 0, 100, 256, 200),			/* preempted: R+ */
	SW(63000, 1, 0, 0, 100),
	SW(70000, 0, 200, 1, 0),
	SW(75000, 1, 100, 1, 0),
	WK(80000, 0, E_WAKING, 100, 1, 0, 0),
	ROUND,
};

static const struct task power_tasks[] = { { 300, "worker" }, { 0 } };
static const struct sev power[] = {
	PW(0, 0, E_FREQ, 1000000),
	PW(500, 1, E_FREQ, 800000),
	PW(1000, 0, E_IDLE, 1),
	PW(2000, 1, E_IDLE, 2),
	PW(4000, 0, E_IDLE, IDLE_EXIT),
	WK(4500, 0, E_WAKING, 300, 0, 0, 0),
	SW(5000, 0, 0, 0, 300),
	PW(8000, 0, E_FREQ, 2000000),
	ROUND,
	SW(15000, 0, 300, 1, 0),
	PW(15500, 0, E_IDLE, 1),
	PW(16000, 1, E_IDLE, 3),
	PW(17000, 0, E_IDLE, 2),
	PW(20000, 1, E_FREQ, 1600000),
	PW(25000, 1, E_IDLE, IDLE_EXIT),
	WK(25500, 1, E_WAKING, 300, 1, 0, 0),
	SW(26000, 1, 0, 0, 300),
	ROUND,
	PW(30000, 0, E_IDLE, IDLE_EXIT),
	SW(38000, 1, 300, 2, 0),
	PW(38500, 1, E_IDLE, 1),
	PW(40000, 0, E_FREQ, 1200000),
	ROUND,
};

static const struct task lost_tasks[] = { { 400, "left" }, { 500, "right" }, { 0 } };
static const struct sev lost[] = {
	WK(0, 1, E_WAKING, 500, 1, 0, 0),
	SW(1000, 1, 0, 0, 500),
	SW(2000, 0, 0, 0, 400),
	SW(10000, 0, 400, 1, 0),
	SW(12000, 1, 500, 2, 0),
	ROUND,
	LOST(20000, 0, 5),
	SW(25000, 1, 0, 0, 500),
	WK(27000, 0, E_WAKING, 400, 0, 0, 0),
	SW(28000, 0, 0, 0, 400),
	ROUND,
	SW(35000, 1, 500, 1, 0),
	SW(40000, 0, 400, 1, 0),
	WK(45000, 1, E_WAKING, 500, 1, 0, 0),
	ROUND,
};

/* Numbers no kernel writes (issue 11): idle states of 2^31 and more, a
 * frequency above 2^31 kHz, a cpu_id far out of range. */
static const struct sev hostile[] = {
	PW(0, 0, E_FREQ, 4294967294ll),
	PW(1000, 0, E_IDLE, 2147483648ll),
	PW(2000, 1, E_IDLE, 4294967294ll),
	{ 2500, 1, E_IDLE, 0, 2147483647, 1, 0 },
	{ 2600, 1, E_IDLE, 0, -5, 1, 0 },
	WK(3000, 0, E_WAKING, 300, 0, 0, 0),
	SW(3500, 0, 0, 0, 300),
	PW(4000, 1, E_IDLE, IDLE_EXIT),
	SW(5000, 0, 300, 1, 0),
	PW(6000, 0, E_IDLE, 3000000000ll),
	ROUND,
};

/* A CPU whose records come a round late (issue 23), as perf writes a ring
 * it read late: each round holds cpu1's records older than the newest of
 * the round before, which that round's FINISHED_ROUND releases, and newer
 * ones, which wait for the next.  Two tasks wake each other across the
 * CPUs; tc's merge must order them as perf does, and a pass started from
 * a checkpoint at a round must skip exactly what was released before. */
static const struct task lag_tasks[] = { { 600, "ping" }, { 700, "pong" }, { 0 } };
static const struct sev lag[] = {
	SW(1000, 0, 0, 0, 600),
	WK(2000, 0, E_WAKING, 700, 1, 600, 0),
	SW(3000, 0, 600, 1, 0),
	SW(500, 1, 0, 0, 700),
	SW(1500, 1, 700, 1, 0),
	ROUND,
	SW(2500, 1, 0, 0, 700),
	WK(2800, 1, E_WAKING, 600, 0, 700, 0),
	SW(3500, 1, 700, 1, 0),
	SW(4000, 0, 0, 0, 600),
	WK(5000, 0, E_WAKING, 700, 1, 600, 0),
	SW(6000, 0, 600, 1, 0),
	ROUND,
	SW(5500, 1, 0, 0, 700),
	WK(5800, 1, E_WAKING, 600, 0, 700, 0),
	SW(6500, 1, 700, 2, 0),
	SW(7000, 0, 0, 0, 600),
	WK(7500, 0, E_WAKEUP, 700, 1, 600, 0),
	SW(9000, 0, 600, 256, 0),
	ROUND,
	SW(8000, 1, 0, 0, 700),
	WK(8200, 1, E_WAKING, 600, 0, 700, 0),
	SW(9500, 1, 700, 1, 0),
	SW(10000, 0, 0, 0, 600),
	WK(11000, 0, E_WAKING, 700, 1, 600, 0),
	SW(12000, 0, 600, 1, 0),
	ROUND,
	SW(11500, 1, 0, 0, 700),
	LOST(11800, 1, 3),
	SW(13000, 1, 700, 1, 0),
	SW(13500, 0, 0, 0, 600),
	WK(14000, 0, E_WAKING, 700, 1, 600, 0),
	SW(15000, 0, 600, 1, 0),
	ROUND,
	SW(14500, 1, 0, 0, 700),
	WK(14800, 1, E_WAKING, 600, 0, 700, 0),
	SW(16000, 1, 700, 1, 0),
	SW(16500, 0, 0, 0, 600),
	SW(18000, 0, 600, 1, 0),
	ROUND,
	SW(17000, 1, 0, 0, 700),
	SW(19000, 1, 700, 1, 0),
	ROUND,
};

/* A LOST record read rounds after its loss began, as perf writes a ring
 * that lost records and then stayed quiet: the kernel writes the LOST
 * record when the ring next has room and a record comes.  cpu0 loses its
 * records from 5 (left switched out asleep; the truth: woken and run on
 * cpu0 meanwhile) to 32; cpu1's rounds go on (right wakes left at 12,
 * left runs there 13-20).  perf record's end: a LOST_SAMPLES record of
 * the count (time 0).  left is no sleeper over [5,12). */
static const struct sev lostlate[] = {
	SW(1000, 0, 0, 0, 400),
	SW(5000, 0, 400, 1, 0),
	SW(1000, 1, 0, 0, 500),
	ROUND,
	WK(12000, 1, E_WAKING, 400, 1, 500, 0),
	SW(13000, 1, 500, 1, 400),
	ROUND,
	SW(20000, 1, 400, 1, 0),
	ROUND,
	WK(24000, 1, E_WAKING, 500, 1, 0, 0),
	SW(25000, 1, 0, 0, 500),
	ROUND,
	SW(30000, 1, 500, 1, 0),
	ROUND,
	LOST(32000, 0, 4),
	WK(33000, 0, E_WAKING, 400, 0, 0, 0),
	SW(34000, 0, 0, 0, 400),
	SW(40000, 0, 400, 1, 0),
	ROUND,
};

static const struct scenario {
	const char *name;
	const struct task *tasks;
	const struct sev *ev;
	size_t n;
	uint64_t lost_tail;	/* perf record's end: a LOST_SAMPLES of so many, time 0 */
} scenarios[] = {
	{ "basic", basic_tasks, basic, sizeof(basic) / sizeof(basic[0]), 0 },
	{ "power", power_tasks, power, sizeof(power) / sizeof(power[0]), 0 },
	{ "lost", lost_tasks, lost, sizeof(lost) / sizeof(lost[0]), 0 },
	{ "hostile", power_tasks, hostile, sizeof(hostile) / sizeof(hostile[0]), 0 },
	{ "lag", lag_tasks, lag, sizeof(lag) / sizeof(lag[0]), 0 },
	{ "lostlate", lost_tasks, lostlate, sizeof(lostlate) / sizeof(lostlate[0]), 4 },
};

/* ---------------------------------------------------------------- output */

static const char *comm_of(const struct task *tk, int pid, int cpu)
{
	static char idle[16];

	if (!pid) {
		snprintf(idle, sizeof(idle), "swapper/%d", cpu);
		return idle;
	}
	for (; tk->comm; tk++)
		if (tk->pid == pid)
			return tk->comm;
	return "?";
}

static void comm_rec(struct buf *d, int pid, const char *comm)
{
	pw_comm(d, 0, pid, pid, comm);
	pw_id_trailer(d, pid, pid, 0, 0, pw_id(TP_SWITCH, 0));	/* synthesized: time 0 */
}

/* Raw tracepoint data of e into raw; returns its size. */
static size_t raw_of(const struct scenario *sc, const struct sev *e, uint8_t *raw)
{
	int waker = e->kind == E_WAKEUP || e->kind == E_WAKING ? (int)e->v :
		    e->kind == E_SWITCH ? e->a : 0;

	pw_raw_common(raw, tps[e->kind].id, e->flags, waker);
	switch (e->kind) {
	case E_SWITCH:
		return pw_raw_switch(raw, comm_of(sc->tasks, e->a, e->cpu), e->a, 120, e->v,
				     comm_of(sc->tasks, e->b, e->cpu), e->b, 120);
	case E_WAKEUP:
	case E_WAKING:
		return pw_raw_wake(raw, comm_of(sc->tasks, e->a, e->cpu), e->a, 120, e->b);
	default:
		return pw_raw_power(raw, e->v, e->b);
	}
}

/* The pid running when e happened: the task of the sample. */
static int cur_pid(const struct sev *e)
{
	static int cur[NCPU];	/* each CPU's task, from its switches (written in order per CPU) */
	int pid = e->kind == E_SWITCH ? e->a : e->kind == E_WAKEUP || e->kind == E_WAKING ? (int)e->v :
		  e->cpu >= 0 && e->cpu < NCPU ? cur[e->cpu] : 0;

	if (e->kind == E_SWITCH && e->cpu >= 0 && e->cpu < NCPU)
		cur[e->cpu] = e->b;
	return pid;
}

static void event_rec(struct buf *d, const struct scenario *sc, const struct sev *e)
{
	uint64_t t = T0 + e->us * 1000ull;
	uint8_t raw[64];
	size_t rn;
	int pid;

	if (e->kind == E_LOST) {
		pw_lost(d, pw_id(TP_SWITCH, e->cpu), e->v);
		pw_id_trailer(d, 0, 0, t, e->cpu, pw_id(TP_SWITCH, e->cpu));
		return;
	}
	pid = cur_pid(e);
	rn = raw_of(sc, e, raw);
	pw_sample(d, SAMPLE_TYPE, pw_id(e->kind, e->cpu), pid, pid, t, e->cpu, raw, rn);
}

/* The data section: COMM records (synthesized, time 0), then the events
 * round by round, each round's records grouped by CPU. */
static void data_build(struct buf *d, const struct scenario *sc)
{
	size_t start = 0;

	comm_rec(d, 0, "swapper");
	for (const struct task *tk = sc->tasks; tk->comm; tk++)
		comm_rec(d, tk->pid, tk->comm);
	pw_hdr(d, PW_R_FINISHED_ROUND, 0, 8);
	for (size_t i = 0; i < sc->n; i++) {
		if (sc->ev[i].kind != E_ROUND)
			continue;
		for (int c = 0; c < NCPU; c++)
			for (size_t k = start; k < i; k++)
				if (sc->ev[k].cpu == c)
					event_rec(d, sc, &sc->ev[k]);
		pw_hdr(d, PW_R_FINISHED_ROUND, 0, 8);
		start = i + 1;
	}
	if (sc->lost_tail) {
		pw_hdr(d, 13, 0, 8 + 8 + PW_ID_SIZE);	/* PERF_RECORD_LOST_SAMPLES */
		p64(d, sc->lost_tail);
		pw_id_trailer(d, 0, 0, 0, 0, pw_id(TP_SWITCH, 0));
	}
}

static void write_file(const char *path, const struct scenario *sc)
{
	struct pw_attr attr[NTP];
	struct buf d = { 0 };

	/* disabled, sample_id_all */
	for (int i = 0; i < NTP; i++)
		attr[i] = (struct pw_attr){ 2, tps[i].id, SAMPLE_TYPE,
					    1ull << PW_A_DISABLED | 1ull << PW_A_SAMPLE_ID_ALL, 1 };
	data_build(&d, sc);
	pw_file(path, "mkdata", attr, NTP, tps, NTP, NCPU, &d, NULL);
	free(d.p);
}

int main(int argc, char **argv)
{
	const struct scenario *sc = &scenarios[0];
	const char *path = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--be")) {
			pw_be = 1;
		} else if (!strcmp(argv[i], "--long4")) {
			pw_long4 = 1;
		} else if (!strcmp(argv[i], "--gap") && i + 1 < argc) {
			pw_gap = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--scenario") && i + 1 < argc) {
			size_t k;

			i++;
			for (k = 0; k < sizeof(scenarios) / sizeof(scenarios[0]); k++)
				if (!strcmp(argv[i], scenarios[k].name))
					break;
			if (k == sizeof(scenarios) / sizeof(scenarios[0])) {
				fprintf(stderr, "mkdata: no scenario %s\n", argv[i]);
				return 2;
			}
			sc = &scenarios[k];
		} else if (argv[i][0] != '-' && !path) {
			path = argv[i];
		} else {
			path = NULL;
			break;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: mkdata [--be] [--long4] [--gap BYTES] [--scenario basic|power|lost|hostile|lag|lostlate] FILE\n");
		return 2;
	}
	write_file(path, sc);
	return 0;
}
