// SPDX-License-Identifier: GPL-2.0-only
/*
 * mkdata: write a small synthetic perf.data file (file mode) for tc's tests.
 *
 *   mkdata [--be] [--long4] [--scenario basic|power|lost|hostile|lag] FILE
 *
 * The file is what `perf record -e sched:... -e power:... -a` would write on
 * a 2-CPU machine (tools/perf/Documentation/perf.data-file-format.txt):
 *
 *   [ header 104 ][ ids ][ attrs ][ data: COMM, samples, LOST, FINISHED_ROUND ]
 *   [ feature table at data.offset + data.size ][ TRACING_DATA, HOSTNAME, NRCPUS ]
 *
 * Samples are TID|TIME|CPU|RAW|IDENTIFIER with sample_id_all.  The tracepoint
 * formats are built in (copied from a 6.18 x86_64 tracefs), so no tracefs is
 * needed.  --be writes every number as a big-endian machine would (attr
 * bitfields in its bit order too: perf byte-swaps the u64 and reverses its
 * bits); --long4 is a 32-bit target: sizeof(long) 4 in the tracing data and
 * sched_switch's prev_state a 4-byte long.  Within a round the records are
 * grouped by CPU, as perf writes its per-CPU buffers, so a reader must merge.
 *
 * The scenarios' times and the numbers tc must derive from them are in
 * test/t_replay.sh.  Scenario time 0 is T0 ns.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1000000000ull	/* ns of scenario time 0 */
#define NCPU 2
#define ATTR_SIZE 128		/* PERF_ATTR_SIZE_VER7 */
#define HDR_SIZE 104

enum {				/* sample_type bits */
	S_TID = 1 << 1, S_TIME = 1 << 2, S_CPU = 1 << 7, S_RAW = 1 << 10,
	S_IDENTIFIER = 1 << 16,
	SAMPLE_TYPE = S_TID | S_TIME | S_CPU | S_RAW | S_IDENTIFIER,
};
enum { R_LOST = 2, R_COMM = 3, R_SAMPLE = 9, R_FINISHED_ROUND = 68 };
enum { F_TRACING_DATA = 1, F_HOSTNAME = 3, F_NRCPUS = 7 };

static int be, long4;

/* ---------------------------------------------------------------- formats */

#define COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

#define SW_MASK "((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | " \
	"0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)"
#define SW_PRINT \
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> " \
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, " \
	"REC->prev_prio, (REC->prev_state & " SW_MASK ") ? __print_flags(" \
	"REC->prev_state & " SW_MASK ", \"|\", { 0x00000001, \"S\" }, " \
	"{ 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, " \
	"{ 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, " \
	"{ 0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 | " \
	"0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | " \
	"0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, " \
	"REC->next_pid, REC->next_prio\n"

static const char fmt_switch64[] =
	"name: sched_switch\nID: 372\nformat:\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n" SW_PRINT;

static const char fmt_switch32[] =
	"name: sched_switch\nID: 372\nformat:\n" COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:36;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:52;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:56;\tsize:4;\tsigned:1;\n\n" SW_PRINT;

#define WAKE_FMT(NAME, ID) \
	"name: " NAME "\nID: " ID "\nformat:\n" COMMON \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n" \
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n" \
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, " \
	"REC->pid, REC->prio, REC->target_cpu\n"

#define POWER_FMT(NAME, ID) \
	"name: " NAME "\nID: " ID "\nformat:\n" COMMON \
	"\tfield:u32 state;\toffset:8;\tsize:4;\tsigned:0;\n" \
	"\tfield:u32 cpu_id;\toffset:12;\tsize:4;\tsigned:0;\n\n" \
	"print fmt: \"state=%lu cpu_id=%lu\", (unsigned long)REC->state, " \
	"(unsigned long)REC->cpu_id\n"

static const char header_page64[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char header_page32[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";

static const char header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

/* The tracepoints of every file, one attr each; ids of their per-CPU
 * events are 1000 * (index + 1) + cpu. */
enum { TP_SWITCH, TP_WAKEUP, TP_WAKING, TP_IDLE, TP_FREQ, NTP };
static const struct tp {
	const char *sys;
	unsigned id;
	const char *fmt;
} tps[NTP] = {
	[TP_SWITCH] = { "sched", 372, fmt_switch64 },
	[TP_WAKEUP] = { "sched", 374, WAKE_FMT("sched_wakeup", "374") },
	[TP_WAKING] = { "sched", 375, WAKE_FMT("sched_waking", "375") },
	[TP_IDLE] = { "power", 568, POWER_FMT("cpu_idle", "568") },
	[TP_FREQ] = { "power", 565, POWER_FMT("cpu_frequency", "565") },
};

static uint64_t ev_id(int tp, int cpu)
{
	return 1000 * (tp + 1) + cpu;
}

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

static const struct scenario {
	const char *name;
	const struct task *tasks;
	const struct sev *ev;
	size_t n;
} scenarios[] = {
	{ "basic", basic_tasks, basic, sizeof(basic) / sizeof(basic[0]) },
	{ "power", power_tasks, power, sizeof(power) / sizeof(power[0]) },
	{ "lost", lost_tasks, lost, sizeof(lost) / sizeof(lost[0]) },
	{ "hostile", power_tasks, hostile, sizeof(hostile) / sizeof(hostile[0]) },
	{ "lag", lag_tasks, lag, sizeof(lag) / sizeof(lag[0]) },
};

/* ---------------------------------------------------------------- output */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void put(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("mkdata");
			exit(1);
		}
	}
	if (d)
		memcpy(b->p + b->len, d, n);
	else
		memset(b->p + b->len, 0, n);
	b->len += n;
}

/* Store v in n bytes at p in the file's byte order. */
static void set_n(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[be ? n - 1 - i : i] = v >> (8 * i);
}

static void put_n(struct buf *b, uint64_t v, int n)
{
	uint8_t x[8];

	set_n(x, v, n);
	put(b, x, n);
}

#define p16(b, v) put_n(b, v, 2)
#define p32(b, v) put_n(b, v, 4)
#define p64(b, v) put_n(b, v, 8)

static uint64_t bitrev64(uint64_t v)
{
	uint64_t r = 0;

	for (int i = 0; i < 64; i++, v >>= 1)
		r = r << 1 | (v & 1);
	return r;
}

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

static void hdr(struct buf *d, unsigned type, unsigned misc, size_t size)
{
	p32(d, type);
	p16(d, misc);
	p16(d, size);
}

/* The sample_id_all trailer: pid, tid, time, cpu, res, identifier. */
static void trailer(struct buf *d, int pid, uint64_t t, int cpu, uint64_t id)
{
	p32(d, pid);
	p32(d, pid);
	p64(d, t);
	p32(d, cpu);
	p32(d, 0);
	p64(d, id);
}

static void comm_rec(struct buf *d, int pid, const char *comm)
{
	size_t n = (strlen(comm) + 1 + 7) & ~7ul;

	hdr(d, R_COMM, 0, 8 + 8 + n + 32);
	p32(d, pid);
	p32(d, pid);
	put(d, NULL, n);
	memcpy(d->p + d->len - n, comm, strlen(comm));
	trailer(d, pid, 0, 0, ev_id(TP_SWITCH, 0));	/* synthesized: time 0 */
}

/* Raw tracepoint data of e into raw; returns its size. */
static size_t raw_of(const struct scenario *sc, const struct sev *e, uint8_t *raw)
{
	int waker = e->kind == E_WAKEUP || e->kind == E_WAKING ? (int)e->v :
		    e->kind == E_SWITCH ? e->a : 0;

	memset(raw, 0, 64);
	set_n(raw, tps[e->kind].id, 2);
	raw[2] = e->flags;
	set_n(raw + 4, waker, 4);
	switch (e->kind) {
	case E_SWITCH: {
		int l = long4 ? 4 : 8;	/* sizeof(long): prev_state */

		strcpy((char *)raw + 8, comm_of(sc->tasks, e->a, e->cpu));
		set_n(raw + 24, e->a, 4);
		set_n(raw + 28, 120, 4);
		set_n(raw + 32, e->v, l);
		strcpy((char *)raw + 32 + l, comm_of(sc->tasks, e->b, e->cpu));
		set_n(raw + 48 + l, e->b, 4);
		set_n(raw + 52 + l, 120, 4);
		return 56 + l;
	}
	case E_WAKEUP:
	case E_WAKING:
		strcpy((char *)raw + 8, comm_of(sc->tasks, e->a, e->cpu));
		set_n(raw + 24, e->a, 4);
		set_n(raw + 28, 120, 4);
		set_n(raw + 32, e->b, 4);
		return 36;
	default:
		set_n(raw + 8, e->v, 4);
		set_n(raw + 12, e->b, 4);
		return 16;
	}
}

/* The pid running when e happened: the task of the sample. */
static int cur_pid(const struct sev *e)
{
	return e->kind == E_SWITCH ? e->a :
	       e->kind == E_WAKEUP || e->kind == E_WAKING ? (int)e->v : 0;
}

static void event_rec(struct buf *d, const struct scenario *sc, const struct sev *e)
{
	uint64_t t = T0 + e->us * 1000ull;
	uint8_t raw[64];
	size_t rn, rawsz;

	if (e->kind == E_LOST) {
		hdr(d, R_LOST, 0, 8 + 16 + 32);
		p64(d, ev_id(TP_SWITCH, e->cpu));
		p64(d, e->v);
		trailer(d, 0, t, e->cpu, ev_id(TP_SWITCH, e->cpu));
		return;
	}
	rn = raw_of(sc, e, raw);
	rawsz = ((rn + 4 + 7) & ~7ul) - 4;	/* the kernel pads u32 size + data to 8 */
	hdr(d, R_SAMPLE, 1, 8 + 8 + 8 + 8 + 8 + 4 + rawsz);	/* MISC_KERNEL */
	p64(d, ev_id(e->kind, e->cpu));
	p32(d, cur_pid(e));
	p32(d, cur_pid(e));
	p64(d, t);
	p32(d, e->cpu);
	p32(d, 0);
	p32(d, rawsz);
	put(d, raw, rn);
	put(d, NULL, rawsz - rn);
}

/* The data section: COMM records (synthesized, time 0), then the events
 * round by round, each round's records grouped by CPU. */
static void data_build(struct buf *d, const struct scenario *sc)
{
	size_t start = 0;

	comm_rec(d, 0, "swapper");
	for (const struct task *tk = sc->tasks; tk->comm; tk++)
		comm_rec(d, tk->pid, tk->comm);
	hdr(d, R_FINISHED_ROUND, 0, 8);
	for (size_t i = 0; i < sc->n; i++) {
		if (sc->ev[i].kind != E_ROUND)
			continue;
		for (int c = 0; c < NCPU; c++)
			for (size_t k = start; k < i; k++)
				if (sc->ev[k].cpu == c)
					event_rec(d, sc, &sc->ev[k]);
		hdr(d, R_FINISHED_ROUND, 0, 8);
		start = i + 1;
	}
}

/* TRACING_DATA as tools/perf/util/trace-event-info.c writes it. */
static void tracing_build(struct buf *b)
{
	static const char *const sys[] = { "sched", "power" };
	const char *hp = long4 ? header_page32 : header_page64;

	put(b, "\x17\x08\x44tracing0.6", 13);
	put(b, NULL, 1);
	put(b, be ? "\x01" : "\x00", 1);
	put(b, long4 ? "\x04" : "\x08", 1);
	p32(b, 4096);
	put(b, "header_page", 12);
	p64(b, strlen(hp));
	put(b, hp, strlen(hp));
	put(b, "header_event", 13);
	p64(b, strlen(header_event));
	put(b, header_event, strlen(header_event));
	p32(b, 0);			/* ftrace formats */
	p32(b, 2);			/* systems */
	for (int s = 0; s < 2; s++) {
		int n = 0;

		put(b, sys[s], strlen(sys[s]) + 1);
		for (int i = 0; i < NTP; i++)
			n += !strcmp(tps[i].sys, sys[s]);
		p32(b, n);
		for (int i = 0; i < NTP; i++) {
			const char *f = tps[i].fmt;

			if (strcmp(tps[i].sys, sys[s]))
				continue;
			if (i == TP_SWITCH && long4)
				f = fmt_switch32;
			p64(b, strlen(f));
			put(b, f, strlen(f));
		}
	}
	p32(b, 0);			/* kallsyms */
	p32(b, 0);			/* printk formats */
	p64(b, 0);			/* saved cmdlines */
}

static void attr_build(struct buf *b, unsigned config)
{
	/* disabled, sample_id_all: bits 0 and 18 of the bitfield word */
	uint64_t flags = 1ull | 1ull << 18;
	size_t at = b->len;

	p32(b, 2);			/* PERF_TYPE_TRACEPOINT */
	p32(b, ATTR_SIZE);
	p64(b, config);
	p64(b, 1);			/* sample_period */
	p64(b, SAMPLE_TYPE);
	p64(b, 0);			/* read_format */
	p64(b, be ? bitrev64(flags) : flags);
	put(b, NULL, at + ATTR_SIZE - b->len);
}

static void write_file(const char *path, const struct scenario *sc)
{
	struct buf f = { 0 }, feat[3] = { { 0 } };	/* in feature bit order */
	size_t ids_off, attrs_off, data_off, data_size, blob;
	FILE *out;

	put(&f, NULL, HDR_SIZE);
	ids_off = f.len;
	for (int i = 0; i < NTP; i++)
		for (int c = 0; c < NCPU; c++)
			p64(&f, ev_id(i, c));
	attrs_off = f.len;
	for (int i = 0; i < NTP; i++) {
		attr_build(&f, tps[i].id);
		p64(&f, ids_off + 8 * NCPU * i);
		p64(&f, 8 * NCPU);
	}
	data_off = f.len;
	data_build(&f, sc);
	data_size = f.len - data_off;

	tracing_build(&feat[0]);
	p32(&feat[1], 64);		/* HOSTNAME: padded to NAME_ALIGN 64 */
	put(&feat[1], "mkdata", 6);
	put(&feat[1], NULL, 58);
	p32(&feat[2], NCPU);		/* nr_cpus_avail */
	p32(&feat[2], NCPU);		/* nr_cpus_online */
	blob = f.len + 16 * 3;
	for (int i = 0; i < 3; i++) {
		p64(&f, blob);
		p64(&f, feat[i].len);
		blob += feat[i].len;
	}
	for (int i = 0; i < 3; i++)
		put(&f, feat[i].p, feat[i].len);

	{
		/* magic "PERFILE2", size, attr_size, attrs, data, event_types,
		 * the first 64 of the 256 feature bits */
		const uint64_t h[] = {
			0x32454c4946524550ull, HDR_SIZE, ATTR_SIZE + 16,
			attrs_off, data_off - attrs_off, data_off, data_size, 0, 0,
			1ull << F_TRACING_DATA | 1ull << F_HOSTNAME | 1ull << F_NRCPUS,
		};

		for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++)
			set_n(f.p + 8 * i, h[i], 8);
	}
	out = fopen(path, "wb");
	if (!out || fwrite(f.p, 1, f.len, out) != f.len || fclose(out)) {
		perror(path);
		exit(1);
	}
	free(f.p);
	for (int i = 0; i < 3; i++)
		free(feat[i].p);
}

int main(int argc, char **argv)
{
	const struct scenario *sc = &scenarios[0];
	const char *path = NULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--be")) {
			be = 1;
		} else if (!strcmp(argv[i], "--long4")) {
			long4 = 1;
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
		fprintf(stderr, "usage: mkdata [--be] [--long4] [--scenario basic|power|lost|hostile|lag] FILE\n");
		return 2;
	}
	write_file(path, sc);
	return 0;
}
