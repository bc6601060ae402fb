// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of tc: static functions of tc.c, on memory only.
 *
 * This file includes tc.c with TC_TEST defined, which leaves tc's main out
 * (the Makefile builds test/unit, and test/unit-san with ASan and UBSan).
 * Each test prints "PASS name" or "FAIL name: why" (the first failed check,
 * with its line); the last line is "N passed, N failed"; the exit status is
 * 1 on any failure.
 *
 * Every test starts from a clean G (g_reset) and everything a test
 * allocates is freed by the next g_reset, also when a check fails half way,
 * so the leak checker of unit-san stays quiet.
 *
 * What is tested:
 *   formats    tracefs format files of several kernels (x86_64 today,
 *              2.6.32, an int prev_state, a 32-bit long, __data_loc,
 *              cpu_idle), fields decoded from raw bytes in each layout
 *   rings      rb_drain over a fake mmap page: order, wrap, corruption
 *              (size 0, not a multiple of 8, oversize), overrun, a full
 *              queue that leaves the rest in the ring
 *   merge      the live release rule over skewed CPUs, out-of-order
 *              records counted and passed on
 *   decoding   rec_info and ev_decode of perf's and tc's sample layouts,
 *              side-band records with sample_id_all, every truncation
 *   tracing    td_parse of a TRACING_DATA blob, every prefix of it
 *   reader     recordings written and read back: through the refilling
 *              read buffer, a file cut short while it is read (in a
 *              record, between two); the tail of a perf file
 *              (rd_end_tail: its end signature)
 *   libc       tc's printf, number parsing, search, sort, UTC date, memory
 *              blocks and /proc directories, against the C library's
 *   misc       CPU lists, escaping of hostile task names
 *   view       the frame diff, key decoding, the following state machine
 *              (live, replay, --speed), hostile names on the screen
 *   model      pause and lost-event gaps, prev_state and wakeup rules,
 *              cpu_idle, bounds of CPU numbers and pids; missing switches
 *              (one task per CPU, switch-ins at the evidence), early
 *              wakings, -I as an overlay (also as drawn), LOST amid each
 */
#pragma GCC diagnostic ignored "-Wunused-function"	/* tc's main is left out */
#define _GNU_SOURCE		/* as tc.c: its headers are included first */
#include "../tc.c"

/* ---------------------------------------------------------------- harness */

static int npass, nfail;
static char why[512];

/* Fail the current test with a message (first failure wins) and leave it. */
#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		if (!why[0]) {						\
			int l_ = snprintf(why, sizeof(why), "line %d: ", __LINE__); \
			snprintf(why + l_, sizeof(why) - l_, __VA_ARGS__); \
		}							\
		return;							\
	}								\
} while (0)

/* Allocations of the current test, freed by g_reset. */
static void *scratch[256];
static int nscratch;

static void *tmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p || nscratch == (int)(sizeof(scratch) / sizeof(scratch[0]))) {
		fprintf(stderr, "unit: out of scratch memory\n");
		exit(2);
	}
	scratch[nscratch++] = p;
	return p;
}

/* out_script as a memory file; ms_sync puts what it holds in ms_buf. */
static char *ms_buf, ms_b[4096];
static size_t ms_len;
static struct out ms_out = { .fd = -1, .cap = sizeof(ms_b), .b = ms_b };

static void ms_open(void)
{
	ms_out.fd = memfd_create("unit", MFD_CLOEXEC);
	ms_out.n = 0;
	ms_out.err = 0;
	if (ms_out.fd < 0) {
		perror("unit: memfd_create");
		exit(2);
	}
	out_script = &ms_out;
}

static void ms_sync(void)
{
	struct stat st;

	out_flush(&ms_out);
	free(ms_buf);
	if (fstat(ms_out.fd, &st) < 0 || !(ms_buf = calloc(1, st.st_size + 1)) ||
	    pread(ms_out.fd, ms_buf, st.st_size, 0) != st.st_size) {
		perror("unit: memory file");
		exit(2);
	}
	ms_len = st.st_size;
}

/* Free what tc and the last test allocated and zero the global state. */
static void g_reset(void)
{
	if (ms_out.fd >= 0)
		close(ms_out.fd);
	ms_out.fd = -1;
	out_script = NULL;
	free(ms_buf);
	ms_buf = NULL;
	ms_len = 0;
	for (int i = 0; i < MAX_FMTS; i++)
		mem_free(fmt_text[i].text);
	memset(fmt_text, 0, sizeof(fmt_text));
	for (int i = 0; G.mg.q && i < G.mg.nq; i++)
		mq_free_mem(&G.mg.q[i]);
	mem_free(G.mg.q);
	mem_free(G.mg.heap);
	mem_free(G.mg.run);	/* (a file's runs: run_room) */
	mem_free(G.mg.rheap);
	mem_free(G.ev.idmap_id);
	mem_free(G.ev.idmap_attr);
	rd_buf_free();	/* (file_read's, and those rd_keep kept) */
	/* the model's and the view's tables (model_init, scr_setup) */
	mem_free(G.m.task);
	mem_free(G.m.task_slot);
	mem_free(G.m.told);
	mem_free(G.m.vic.key);
	mem_free(G.m.vic.tree);
	mem_free(G.m.cpu);
	ival_ring(0);	/* unmaps the interval ring */
	mem_free(G.term.scr);
	mem_free(G.term.scr_prev);
	mem_free(G.term.acc);
	mem_free(G.term.ob);
	mem_free(G.v.rowlist);
	mem_free(lat.runs);
	mem_free(lat.head);
	mem_free(lat.cur);
	mem_free(lat.since);
	memset(&lat, 0, sizeof(lat));
	mem_free(lat_cidle);	/* the live view's idle states (lat_cidle_init) */
	lat_cidle = NULL;
	for (int k = 0; k < HK_N; k++) {	/* the view's history (hist_init) */
		mem_free(G.hist.hp[k].f);
		mem_free(G.hist.hp[k].hi);
		mem_free(G.hist.hp[k].row);
		mem_free(G.hist.hp[k].tid);
		mem_free(G.hist.hp[k].map);
	}
	for (int i = 0; i < G.rd.nck; i++)	/* the view's checkpoints (rd_ckpt) */
		rd_ckpt_free(&G.rd.ck[i]);
	mem_free(G.rd.ck);
	while (nscratch)
		free(scratch[--nscratch]);
	memset(&G, 0, sizeof(G));
	G.rec.fd = -1;
}

static void run(const char *name, void (*fn)(void))
{
	g_reset();
	why[0] = 0;
	fn();
	g_reset();
	if (why[0]) {
		printf("FAIL %s: %s\n", name, why);
		nfail++;
	} else {
		printf("PASS %s\n", name);
		npass++;
	}
	fflush(stdout);
}

#define RUN(name) run(#name, t_##name)

/* ---------------------------------------------------------------- format files */

/* The common fields of a tracepoint's format as today's kernels lay them
 * out (2.6.32's had one more: FMT_2632). */
#define FMT_COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

/* sched_switch of x86_64 Linux 6.18 (this machine's tracefs, print fmt cut). */
static const char FMT_MODERN[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	FMT_COMMON
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, "
	"REC->prev_prio, (REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | "
	"0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)) ? "
	"__print_flags(REC->prev_state & ((((0x00000000 | 0x00000001 | 0x00000002 | "
	"0x00000004 | 0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1), "
	"\"|\", { 0x00000001, \"S\" }, { 0x00000002, \"D\" }, { 0x00000004, \"T\" }, "
	"{ 0x00000008, \"t\" }, { 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, "
	"{ 0x00000040, \"P\" }, { 0x00000080, \"I\" }) : \"R\", REC->prev_state & "
	"(((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | "
	"0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, REC->next_pid, "
	"REC->next_prio\n";

/* sched_switch of x86_64 Linux 2.6.32: common_lock_depth, TASK_COMM_LEN,
 * no "signed:" yet, prev_state a long at 40 (LWN's TRACE_EVENT article). */
static const char FMT_2632[] =
	"name: sched_switch\n"
	"ID: 33\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\n"
	"\tfield:int common_lock_depth;\toffset:8;\tsize:4;\n"
	"\n"
	"\tfield:char prev_comm[TASK_COMM_LEN];\toffset:12;\tsize:16;\n"
	"\tfield:pid_t prev_pid;\toffset:28;\tsize:4;\n"
	"\tfield:int prev_prio;\toffset:32;\tsize:4;\n"
	"\tfield:long prev_state;\toffset:40;\tsize:8;\n"
	"\tfield:char next_comm[TASK_COMM_LEN];\toffset:48;\tsize:16;\n"
	"\tfield:pid_t next_pid;\toffset:64;\tsize:4;\n"
	"\tfield:int next_prio;\toffset:68;\tsize:4;\n"
	"\n"
	"print fmt: \"task %s:%d [%d] (%s) ==> %s:%d [%d]\", REC->prev_comm, REC->prev_pid, "
	"REC->prev_prio, REC->prev_state ? __print_flags(REC->prev_state, \"|\", { 1, \"S\"} , "
	"{ 2, \"D\" }, { 4, \"T\" }, { 8, \"t\" }, { 16, \"Z\" }, { 32, \"X\" }, { 64, \"x\" }, "
	"{ 128, \"W\" }) : \"R\", REC->next_comm, REC->next_pid, REC->next_prio\n";

/* sched_switch with prev_state an int (size 4) right after prev_prio. */
static const char FMT_INT[] =
	"name: sched_switch\n"
	"ID: 300\n"
	"format:\n"
	FMT_COMMON
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_state;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:36;\tsize:16;\tsigned:1;\n"
	"\tfield:pid_t next_pid;\toffset:52;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s ==> "
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, "
	"REC->prev_prio, REC->prev_state ? \"S\" : \"R\", REC->next_comm, "
	"REC->next_pid, REC->next_prio\n";

/* sched_switch of a 32-bit kernel (i386, arm): long prev_state is 4 bytes. */
static const char FMT_I386[] =
	"name: sched_switch\n"
	"ID: 301\n"
	"format:\n"
	FMT_COMMON
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:36;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:52;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, "
	"REC->prev_prio, REC->prev_state & 0xff ? \"S\" : \"R\", \"\", REC->next_comm, "
	"REC->next_pid, REC->next_prio\n";

/* sched_process_exec of Linux 6.18: the file name is a __data_loc string. */
static const char FMT_EXEC[] =
	"name: sched_process_exec\n"
	"ID: 365\n"
	"format:\n"
	FMT_COMMON
	"\n"
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, "
	"REC->old_pid\n";

/* sched:sched_process_fork of Linux 6.18: its names are __data_loc. */
static const char FMT_FORK[] =
	"name: sched_process_fork\n"
	"ID: 366\n"
	"format:\n"
	FMT_COMMON
	"\n"
	"\tfield:__data_loc char[] parent_comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t parent_pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] child_comm;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t child_pid;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"comm=%s pid=%d child_comm=%s child_pid=%d\", __get_str(parent_comm), "
	"REC->parent_pid, __get_str(child_comm), REC->child_pid\n";

/* power:cpu_idle of Linux 6.18. */
static const char FMT_IDLE[] =
	"name: cpu_idle\n"
	"ID: 568\n"
	"format:\n"
	FMT_COMMON
	"\n"
	"\tfield:u32 state;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 cpu_id;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"state=%lu cpu_id=%lu\", (unsigned long)REC->state, "
	"(unsigned long)REC->cpu_id\n";

/* sched_wakeup of x86_64 Linux 6.18 (this machine's tracefs; sched_waking's
 * fields are the same). */
static const char FMT_WAKEUP[] =
	"name: sched_wakeup\n"
	"ID: 374\n"
	"format:\n"
	FMT_COMMON
	"\n"
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, REC->pid, "
	"REC->prio, REC->target_cpu\n";

/* Where a sched_switch layout keeps its fields (for building raw data). */
struct sw_layout {
	const char *what, *text;
	unsigned id;
	unsigned prev_comm, prev_pid, prev_prio, prev_state, state_size;
	unsigned next_comm, next_pid, next_prio, size;
	bool has_signed;	/* the format says "signed:" */
};

static const struct sw_layout layouts[] = {
	{ "x86_64 6.18", FMT_MODERN, 372, 8, 24, 28, 32, 8, 40, 56, 60, 64, true },
	{ "x86_64 2.6.32", FMT_2632, 33, 12, 28, 32, 40, 8, 48, 64, 68, 72, false },
	{ "int prev_state", FMT_INT, 300, 8, 24, 28, 32, 4, 36, 52, 56, 60, true },
	{ "32-bit long", FMT_I386, 301, 8, 24, 28, 32, 4, 36, 52, 56, 60, true },
};
#define NLAYOUT ((int)(sizeof(layouts) / sizeof(layouts[0])))

/* ---------------------------------------------------------------- raw data and records */

/* The host's byte order is the data's unless put_swap: the other byte order
 * (big-endian on x86-64, little-endian on mips and s390x), read with G.ev.swap. */
#define HOST_BE (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
static bool put_swap;

static void put_n(uint8_t *p, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		p[put_swap != HOST_BE ? size - 1 - i : i] = v >> (8 * i);
}

/* A sched_switch event, whatever the layout. */
struct sw {
	const char *prev_comm, *next_comm;
	int prev_pid, next_pid, prev_prio, next_prio, common_pid;
	int64_t prev_state;
	uint8_t flags;
};

/* Write s as raw tracepoint data of layout L into raw; returns its size. */
static uint32_t mk_switch_raw(uint8_t *raw, const struct sw_layout *L, const struct sw *s)
{
	memset(raw, 0, L->size);
	put_n(raw, L->id, 2);
	raw[2] = s->flags;
	put_n(raw + 4, s->common_pid, 4);
	strncpy((char *)raw + L->prev_comm, s->prev_comm, 16);
	put_n(raw + L->prev_pid, s->prev_pid, 4);
	put_n(raw + L->prev_prio, s->prev_prio, 4);
	put_n(raw + L->prev_state, s->prev_state, L->state_size);
	strncpy((char *)raw + L->next_comm, s->next_comm, 16);
	put_n(raw + L->next_pid, s->next_pid, 4);
	put_n(raw + L->next_prio, s->next_prio, 4);
	return L->size;
}

/* The generic part of a SAMPLE or the sample_id trailer of a record. */
struct smp {
	uint64_t id, ip, time, period;
	int pid, tid, cpu;
	const void *raw;
	uint32_t rawsz;
	bool nopad;	/* RAW as is: no padding of the raw data or the record */
};

/* tc's live tracepoint attrs, and perf record's for one tracepoint. */
#define SMP_LIVE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		  PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)
#define SMP_PERF (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
		  PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW)

static void put_hdr(uint8_t *out, uint32_t type, uint16_t misc, size_t n)
{
	put_n(out, type, 4);
	put_n(out + 4, misc, 2);
	put_n(out + 6, n, 2);
}

/* Build a SAMPLE record of sample_type st into out; returns its size. */
static size_t mk_sample(uint8_t *out, uint64_t st, const struct smp *s)
{
	uint8_t *p = out + 8;

	if (st & PERF_SAMPLE_IDENTIFIER) { put_n(p, s->id, 8); p += 8; }
	if (st & PERF_SAMPLE_IP) { put_n(p, s->ip, 8); p += 8; }
	if (st & PERF_SAMPLE_TID) {
		put_n(p, s->pid, 4);
		put_n(p + 4, s->tid, 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) { put_n(p, s->time, 8); p += 8; }
	if (st & PERF_SAMPLE_ID) { put_n(p, s->id, 8); p += 8; }
	if (st & PERF_SAMPLE_CPU) {
		put_n(p, s->cpu, 4);
		put_n(p + 4, 0, 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) { put_n(p, s->period, 8); p += 8; }
	if (st & PERF_SAMPLE_RAW) {
		/* the kernel pads the raw data so that the record stays 8-aligned */
		uint32_t padded = s->nopad ? s->rawsz : ((s->rawsz + 4 + 7) & ~7u) - 4;

		put_n(p, padded, 4);
		p += 4;
		if (s->rawsz)
			memcpy(p, s->raw, s->rawsz);
		memset(p + s->rawsz, 0, padded - s->rawsz);
		p += padded;
	}
	put_hdr(out, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL, p - out);
	return p - out;
}

/* Append the sample_id trailer of st at p; returns the end. */
static uint8_t *put_trailer(uint8_t *p, uint64_t st, const struct smp *s)
{
	if (st & PERF_SAMPLE_TID) {
		put_n(p, s->pid, 4);
		put_n(p + 4, s->tid, 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) { put_n(p, s->time, 8); p += 8; }
	if (st & PERF_SAMPLE_ID) { put_n(p, s->id, 8); p += 8; }
	if (st & PERF_SAMPLE_STREAM_ID) { put_n(p, 0, 8); p += 8; }
	if (st & PERF_SAMPLE_CPU) {
		put_n(p, s->cpu, 4);
		put_n(p + 4, 0, 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_IDENTIFIER) { put_n(p, s->id, 8); p += 8; }
	return p;
}

/* A COMM record (pid, tid, comm) with the sample_id trailer of st. */
static size_t mk_comm(uint8_t *out, uint64_t st, int pid, int tid, const char *comm,
		      bool exec, const struct smp *s)
{
	size_t cl = (strlen(comm) + 1 + 7) & ~7ul;
	uint8_t *p = out + 8;

	put_n(p, pid, 4);
	put_n(p + 4, tid, 4);
	memset(p + 8, 0, cl);
	memcpy(p + 8, comm, strlen(comm));
	p = put_trailer(p + 8 + cl, st, s);
	put_hdr(out, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, p - out);
	return p - out;
}

/* Make G.ev.attr[i] an attr of sample_type st with sample_id_all, bound to
 * the tracepoint format with id (0: none). */
static void set_attr(int i, uint64_t st, unsigned id)
{
	struct attr *a = &G.ev.attr[i];

	memset(a, 0, sizeof(*a));
	a->pa.type = id ? PERF_TYPE_TRACEPOINT : PERF_TYPE_SOFTWARE;
	a->pa.config = id ? id : PERF_COUNT_SW_DUMMY;
	a->pa.size = sizeof(a->pa);
	a->pa.sample_type = st;
	a->pa.sample_id_all = 1;
	attr_bind(a);
	if (G.ev.nattr <= i)
		G.ev.nattr = i + 1;
}

/* ---------------------------------------------------------------- formats */

/* Check the sched_switch fields of layout L in parsed format f; "" or why not. */
static const char *check_switch_fmt(const struct tfs_fmt *f, const struct sw_layout *L)
{
	static char msg[160];
	static const char *const name[] = {
		"common_type", "common_flags", "common_pid", "prev_comm", "prev_pid",
		"prev_prio", "prev_state", "next_comm", "next_pid", "next_prio",
	};
	static const bool is_signed[] = { 0, 0, 1, 0, 1, 1, 1, 0, 1, 1 };
	const unsigned off[] = { 0, 2, 4, L->prev_comm, L->prev_pid, L->prev_prio,
				 L->prev_state, L->next_comm, L->next_pid, L->next_prio };
	const unsigned size[] = { 2, 1, 4, 16, 4, 4, L->state_size, 16, 4, 4 };

	if (strcmp(f->name, "sched_switch") || f->id != L->id) {
		snprintf(msg, sizeof(msg), "name '%s' id %u", f->name, f->id);
		return msg;
	}
	for (size_t i = 0; i < sizeof(name) / sizeof(name[0]); i++) {
		const struct tfs_field *fd = tfs_field(f, name[i]);
		/* char arrays: signed:1 on some kernels, irrelevant to tc */
		bool sg = is_signed[i] && L->has_signed;

		if (!fd) {
			snprintf(msg, sizeof(msg), "no field %s", name[i]);
			return msg;
		}
		if (fd->off != off[i] || fd->size != size[i] || fd->dyn ||
		    (size[i] != 16 && fd->is_signed != sg)) {
			snprintf(msg, sizeof(msg), "%s: off %u size %u signed %d dyn %d, want %u %u %d 0",
				 name[i], fd->off, fd->size, fd->is_signed, fd->dyn,
				 off[i], size[i], sg);
			return msg;
		}
	}
	return "";
}

static void t_fmt_sched_switch_layouts(void)
{
	for (int i = 0; i < NLAYOUT; i++) {
		const struct sw_layout *L = &layouts[i];
		struct tfs_fmt f;
		const char *m;

		CHECK(tfs_parse(L->text, strlen(L->text), &f) == 0, "%s: tfs_parse failed", L->what);
		m = check_switch_fmt(&f, L);
		CHECK(!*m, "%s: %s", L->what, m);
		CHECK(!tfs_field(&f, "prev") && !tfs_field(&f, "prev_comm[16]") &&
		      !tfs_field(&f, "TASK_COMM_LEN]") && !tfs_field(&f, ""),
		      "%s: a field with a made-up name", L->what);
	}
}

static void t_fmt_counts(void)
{
	struct tfs_fmt f;

	CHECK(tfs_parse(FMT_MODERN, strlen(FMT_MODERN), &f) == 0, "modern");
	CHECK(f.nfield == 11, "modern: %d fields, want 11", f.nfield);
	CHECK(tfs_parse(FMT_2632, strlen(FMT_2632), &f) == 0, "2.6.32");
	CHECK(f.nfield == 12, "2.6.32: %d fields, want 12", f.nfield);
	CHECK(tfs_field(&f, "common_lock_depth") && tfs_field(&f, "common_lock_depth")->off == 8,
	      "2.6.32: common_lock_depth");
	CHECK(!f.field[0].is_signed && !tfs_field(&f, "prev_pid")->is_signed,
	      "2.6.32: a field without signed: reads as signed");
}

static void t_fmt_data_loc(void)
{
	struct tfs_fmt f;
	const struct tfs_field *fn, *pid, *old;

	CHECK(tfs_parse(FMT_EXEC, strlen(FMT_EXEC), &f) == 0, "tfs_parse failed");
	CHECK(!strcmp(f.name, "sched_process_exec") && f.id == 365, "name '%s' id %u", f.name, f.id);
	CHECK(f.nfield == 7, "%d fields, want 7", f.nfield);
	fn = tfs_field(&f, "filename");
	CHECK(fn, "no field filename (fields: %s %s %s)", f.field[4].name,
	      f.field[5].name, f.field[6].name);
	CHECK(fn->dyn && fn->off == 8 && fn->size == 4 && !fn->is_signed,
	      "filename: dyn %d off %u size %u signed %d", fn->dyn, fn->off, fn->size, fn->is_signed);
	pid = tfs_field(&f, "pid");
	old = tfs_field(&f, "old_pid");
	CHECK(pid && !pid->dyn && pid->off == 12 && pid->size == 4 && pid->is_signed, "pid");
	CHECK(old && !old->dyn && old->off == 16 && old->size == 4 && old->is_signed, "old_pid");
	CHECK(!tfs_field(&f, "char"), "the type became a field name");
}

static void t_fmt_cpu_idle(void)
{
	struct tfs_fmt f;
	const struct tfs_field *st, *cpu;

	CHECK(tfs_parse(FMT_IDLE, strlen(FMT_IDLE), &f) == 0, "tfs_parse failed");
	CHECK(!strcmp(f.name, "cpu_idle") && f.id == 568, "name '%s' id %u", f.name, f.id);
	st = tfs_field(&f, "state");
	cpu = tfs_field(&f, "cpu_id");
	CHECK(st && st->off == 8 && st->size == 4 && !st->is_signed && !st->dyn, "state");
	CHECK(cpu && cpu->off == 12 && cpu->size == 4 && !cpu->is_signed && !cpu->dyn, "cpu_id");
}

static void t_fmt_errors(void)
{
	static const char noid[] = "name: x\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n";
	static const char noname[] = "ID: 7\nformat:\n\tfield:int a;\toffset:8;\tsize:4;\tsigned:1;\n";
	static const char junk[] =
		"name: j\nID: 9\nformat:\n"
		"\tfield:int nosemi\toffset:8\n"			/* no ';': skipped */
		"\tfield:int nooff;\tsize:4;\n"			/* no offset: skipped */
		"\tfield:int zero;\toffset:8;\tsize:0;\tsigned:1;\n"	/* size 0: skipped */
		"\tfield:int huge;\toffset:99999999;\tsize:4;\tsigned:1;\n"
		"\tfield:;\toffset:8;\tsize:4;\n"			/* no name */
		"\tfield:int ok;\toffset:8;\tsize:4;\tsigned:1;\n";
	struct tfs_fmt f;
	char many[8192];
	int len;

	CHECK(tfs_parse(noid, strlen(noid), &f) < 0, "a format without ID parsed");
	CHECK(tfs_parse(noname, strlen(noname), &f) < 0, "a format without name parsed");
	CHECK(tfs_parse("", 0, &f) < 0, "an empty format parsed");
	CHECK(tfs_parse(junk, strlen(junk), &f) == 0, "junk: tfs_parse failed");
	CHECK(f.nfield == 1 && !strcmp(f.field[0].name, "ok") && f.field[0].off == 8,
	      "junk: %d fields, first '%s'", f.nfield, f.field[0].name);
	/* more fields than TFS_MAX_FIELDS: the rest are dropped, nothing overflows */
	len = snprintf(many, sizeof(many), "name: many\nID: 1\nformat:\n");
	for (int i = 0; i < TFS_MAX_FIELDS + 20; i++)
		len += snprintf(many + len, sizeof(many) - len,
				"\tfield:int f%d;\toffset:%d;\tsize:4;\tsigned:1;\n", i, 8 + 4 * i);
	CHECK(len < (int)sizeof(many), "test buffer too small");
	CHECK(tfs_parse(many, len, &f) == 0 && f.nfield == TFS_MAX_FIELDS,
	      "many: %d fields, want %d", f.nfield, TFS_MAX_FIELDS);
}

/* Every prefix of a format (not NUL terminated, exactly allocated) parses
 * without reading past it. */
static void t_fmt_prefixes(void)
{
	const char *texts[] = { FMT_MODERN, FMT_2632, FMT_EXEC, FMT_IDLE };

	for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++) {
		size_t full = strlen(texts[k]);

		for (size_t n = 0; n <= full; n++) {
			char *p = malloc(n ? n : 1);
			struct tfs_fmt f;
			int r;

			memcpy(p, texts[k], n);
			r = tfs_parse(p, n, &f);
			free(p);
			CHECK(r == 0 || r == -1, "text %zu prefix %zu: returned %d", k, n, r);
			CHECK(f.nfield >= 0 && f.nfield <= TFS_MAX_FIELDS, "nfield %d", f.nfield);
		}
	}
}

/* ---------------------------------------------------------------- fields */

static void t_fld_int_layouts(void)
{
	const struct sw s = {
		.prev_comm = "prev-task", .next_comm = "next-task", .prev_pid = 4242,
		.next_pid = 4343, .prev_prio = -5, .next_prio = 120,
		.common_pid = 4242, .prev_state = -2, .flags = 0x09,
	};

	for (int i = 0; i < NLAYOUT; i++) {
		const struct sw_layout *L = &layouts[i];
		uint8_t raw[128];
		uint32_t n = mk_switch_raw(raw, L, &s);
		struct tfs_fmt f;
		const struct tfs_field *fp;
		char comm[COMM_LEN];
		int64_t v;

		CHECK(tfs_parse(L->text, strlen(L->text), &f) == 0, "%s: parse", L->what);
		v = fld_int(tfs_field(&f, "common_type"), raw, n, -1);
		CHECK(v == L->id, "%s: common_type %" PRId64, L->what, v);
		v = fld_int(tfs_field(&f, "common_flags"), raw, n, -1);
		CHECK(v == 9, "%s: common_flags %" PRId64, L->what, v);
		v = fld_int(tfs_field(&f, "prev_pid"), raw, n, -1);
		CHECK(v == 4242, "%s: prev_pid %" PRId64, L->what, v);
		v = fld_int(tfs_field(&f, "next_pid"), raw, n, -1);
		CHECK(v == 4343, "%s: next_pid %" PRId64, L->what, v);
		v = fld_int(tfs_field(&f, "next_prio"), raw, n, -1);
		CHECK(v == 120, "%s: next_prio %" PRId64, L->what, v);
		/* a negative int: sign-extended when the format says signed */
		v = fld_int(tfs_field(&f, "prev_prio"), raw, n, 0);
		CHECK(v == (L->has_signed ? -5 : 4294967291ll), "%s: prev_prio %" PRId64, L->what, v);
		/* prev_state -2 in 8 bytes, or in 4 signed bytes */
		v = fld_int(tfs_field(&f, "prev_state"), raw, n, 0);
		CHECK(v == -2, "%s: prev_state %" PRId64 ", want -2", L->what, v);
		fld_str(tfs_field(&f, "prev_comm"), raw, n, comm, false);
		CHECK(!strcmp(comm, "prev-task"), "%s: prev_comm '%s'", L->what, comm);
		fld_str(tfs_field(&f, "next_comm"), raw, n, comm, false);
		CHECK(!strcmp(comm, "next-task"), "%s: next_comm '%s'", L->what, comm);

		/* fields beyond rawsz give the default */
		fp = tfs_field(&f, "next_prio");
		CHECK(fld_int(fp, raw, n - 1, 77) == 77, "%s: next_prio beyond rawsz", L->what);
		CHECK(fld_int(fp, raw, 0, 77) == 77, "%s: rawsz 0", L->what);
		fp = tfs_field(&f, "prev_pid");
		CHECK(fld_int(fp, raw, L->prev_pid + 3, 77) == 77, "%s: prev_pid cut", L->what);
		CHECK(fld_int(fp, raw, L->prev_pid + 4, 77) == 4242, "%s: prev_pid just fits", L->what);
		fp = tfs_field(&f, "next_comm");
		strcpy(comm, "junk");
		fld_str(fp, raw, L->next_comm + 15, comm, false);
		CHECK(!comm[0], "%s: next_comm beyond rawsz gave '%s'", L->what, comm);
		CHECK(fld_int(NULL, raw, n, 55) == 55, "NULL field");
	}
}

static void t_fld_int_sizes(void)
{
	/* u32 4294967295 (cpu_idle's exit) stays unsigned; other sizes */
	struct tfs_fmt f;
	uint8_t raw[16];
	int64_t v;
	struct tfs_field odd = { "odd", 8, 3, true, false };
	struct tfs_field s8 = { "s8", 8, 1, true, false }, u8 = { "u8", 8, 1, false, false };
	struct tfs_field s16 = { "s16", 8, 2, true, false }, u16 = { "u16", 8, 2, false, false };
	struct tfs_field u64 = { "u64", 8, 8, false, false };

	CHECK(tfs_parse(FMT_IDLE, strlen(FMT_IDLE), &f) == 0, "parse");
	memset(raw, 0, sizeof(raw));
	put_n(raw, 568, 2);
	put_n(raw + 8, 4294967295u, 4);
	put_n(raw + 12, 3, 4);
	v = fld_int(tfs_field(&f, "state"), raw, 16, 0);
	CHECK(v == 4294967295ll, "state %" PRId64 ", want 4294967295", v);
	v = fld_int(tfs_field(&f, "cpu_id"), raw, 16, -1);
	CHECK(v == 3, "cpu_id %" PRId64, v);
	CHECK(fld_int(tfs_field(&f, "cpu_id"), raw, 15, -1) == -1, "cpu_id beyond rawsz");

	memset(raw + 8, 0xff, 8);
	CHECK(fld_int(&s8, raw, 16, 0) == -1, "s8");
	CHECK(fld_int(&u8, raw, 16, 0) == 255, "u8");
	CHECK(fld_int(&s16, raw, 16, 0) == -1, "s16");
	CHECK(fld_int(&u16, raw, 16, 0) == 65535, "u16");
	CHECK(fld_int(&u64, raw, 16, 0) == -1, "u64 all ones");
	CHECK(fld_int(&odd, raw, 16, 42) == 42, "a 3-byte field gave a value");
}

/* Data in the other byte order (on x86-64 a 32-bit big-endian recording):
 * G.ev.swap reads it. */
static void t_fld_swapped(void)
{
	const struct sw_layout *L = &layouts[3];	/* 32-bit */
	const struct sw s = {
		.prev_comm = "be", .next_comm = "be2", .prev_pid = 0x01020304,
		.next_pid = 77, .prev_prio = -3, .next_prio = 100, .prev_state = -1,
	};
	struct tfs_fmt f;
	uint8_t raw[64];
	uint32_t n;

	CHECK(tfs_parse(L->text, strlen(L->text), &f) == 0, "parse");
	put_swap = true;
	n = mk_switch_raw(raw, L, &s);
	put_swap = false;
	G.ev.swap = true;
	CHECK(fld_int(tfs_field(&f, "common_type"), raw, n, 0) == L->id, "common_type");
	CHECK(fld_int(tfs_field(&f, "prev_pid"), raw, n, 0) == 0x01020304, "prev_pid");
	CHECK(fld_int(tfs_field(&f, "prev_prio"), raw, n, 0) == -3, "prev_prio");
	CHECK(fld_int(tfs_field(&f, "prev_state"), raw, n, 0) == -1, "prev_state");
	CHECK(fld_int(tfs_field(&f, "next_pid"), raw, n, 0) == 77, "next_pid");
}

/* Raw sched_process_exec data with the file name at off (loc as given). */
static uint32_t mk_exec_raw(uint8_t *raw, const char *name, uint32_t loc_override)
{
	size_t l = strlen(name) + 1;

	memset(raw, 0, 20);
	put_n(raw, 365, 2);
	put_n(raw + 8, loc_override ? loc_override : (uint32_t)(l << 16 | 20), 4);
	put_n(raw + 12, 4444, 4);
	put_n(raw + 16, 4443, 4);
	memcpy(raw + 20, name, l);
	return 20 + l;
}

static void t_fld_str_data_loc(void)
{
	struct tfs_fmt f;
	const struct tfs_field *fn;
	char out[COMM_LEN];
	uint8_t *raw;
	uint32_t n;

	CHECK(tfs_parse(FMT_EXEC, strlen(FMT_EXEC), &f) == 0, "parse");
	fn = tfs_field(&f, "filename");
	CHECK(fn, "no filename");

	raw = tmalloc(64);
	n = mk_exec_raw(raw, "/bin/true", 0);
	fld_str(fn, raw, n, out, true);
	CHECK(!strcmp(out, "/bin/true"), "short name: '%s'", out);
	CHECK(fld_int(fn, raw, n, -9) == -9, "fld_int of a __data_loc field");
	CHECK(fld_int(tfs_field(&f, "pid"), raw, n, 0) == 4444, "pid");
	CHECK(fld_int(tfs_field(&f, "old_pid"), raw, n, 0) == 4443, "old_pid");

	/* a long name keeps its last 15 bytes with tail, its first without */
	raw = tmalloc(128);
	n = mk_exec_raw(raw, "/usr/lib/some/long/path/program-name", 0);
	fld_str(fn, raw, n, out, true);
	CHECK(!strcmp(out, "th/program-name"), "tail: '%s'", out);
	fld_str(fn, raw, n, out, false);
	CHECK(!strcmp(out, "/usr/lib/some/l"), "head: '%s'", out);

	/* bad locs: beyond the data, length past the end, offset past the end */
	raw = tmalloc(64);
	n = mk_exec_raw(raw, "/bin/true", 10u << 16 | 200);
	strcpy(out, "x");
	fld_str(fn, raw, n, out, true);
	CHECK(!out[0], "offset 200 of %u bytes: '%s'", n, out);
	raw = tmalloc(64);
	n = mk_exec_raw(raw, "/bin/true", 0xffffu << 16 | 20);
	strcpy(out, "x");
	fld_str(fn, raw, n, out, true);
	CHECK(!out[0], "length 65535: '%s'", out);
	raw = tmalloc(64);
	n = mk_exec_raw(raw, "/bin/true", 11u << 16 | 20);
	strcpy(out, "x");
	fld_str(fn, raw, n, out, true);
	CHECK(!out[0], "length one past the end: '%s'", out);
	/* the loc itself beyond rawsz */
	raw = tmalloc(64);
	n = mk_exec_raw(raw, "/bin/true", 0);
	strcpy(out, "x");
	fld_str(fn, raw, 11, out, true);
	CHECK(!out[0], "loc beyond rawsz: '%s'", out);
	/* a string without its NUL, exactly at the end of the data */
	{
		uint8_t full[64];

		mk_exec_raw(full, "/bin/true", 9u << 16 | 20);
		raw = tmalloc(29);
		memcpy(raw, full, 29);
	}
	fld_str(fn, raw, 29, out, true);
	CHECK(!strcmp(out, "/bin/true"), "no NUL: '%s'", out);
	/* a char[16] without NUL is cut to 15 */
	{
		struct tfs_fmt sf;
		uint8_t r2[64];

		CHECK(tfs_parse(FMT_MODERN, strlen(FMT_MODERN), &sf) == 0, "parse");
		memset(r2, 0, sizeof(r2));
		memcpy(r2 + 8, "0123456789abcdefXYZ", 19);
		fld_str(tfs_field(&sf, "prev_comm"), r2, 64, out, false);
		CHECK(!strcmp(out, "0123456789abcde"), "comm without NUL: '%s'", out);
	}
}

/* The same switch in every layout decodes to the same event through
 * fmt_add, attr_bind and ev_decode (fields are looked up by name). */
static void t_decode_switch_layouts(void)
{
	static uint64_t ids[NLAYOUT];
	struct ev e[NLAYOUT];

	for (int i = 0; i < NLAYOUT; i++) {
		CHECK(fmt_add("sched", layouts[i].text, strlen(layouts[i].text)), "fmt_add %d", i);
		set_attr(i, SMP_LIVE, layouts[i].id);
		ids[i] = 1000 + i;
		G.ev.attr[i].ids = &ids[i];
		G.ev.attr[i].nids = 1;
		CHECK(G.ev.attr[i].kind == EV_SWITCH, "%s: kind %d", layouts[i].what, G.ev.attr[i].kind);
	}
	idmap_build();
	for (int i = 0; i < NLAYOUT; i++) {
		const struct sw s = {
			.prev_comm = "prev-task", .next_comm = "next-task", .prev_pid = 4242,
			.next_pid = 4343, .prev_prio = 120, .next_prio = 120,
			.common_pid = 4242, .prev_state = 0x402, .flags = 1,
		};
		uint8_t raw[128], rec[256];
		struct smp sm = { .id = ids[i], .time = 5000, .pid = 4242, .tid = 4242,
				  .cpu = 3, .raw = raw };
		struct rinfo ri;
		size_t n;

		sm.rawsz = mk_switch_raw(raw, &layouts[i], &s);
		n = mk_sample(rec, SMP_LIVE, &sm);
		CHECK(rec_info(rec, n, &ri) == 0, "%s: rec_info", layouts[i].what);
		CHECK(ri.attr == i, "%s: attr %d, want %d", layouts[i].what, ri.attr, i);
		CHECK(ev_decode(rec, &ri, &e[i]) == 1, "%s: ev_decode", layouts[i].what);
		CHECK(e[i].kind == EV_SWITCH && e[i].time == 5000 && e[i].cpu == 3 &&
		      e[i].a == 4242 && e[i].b == 4343 && e[i].v == 0x402 && e[i].flags == 1 &&
		      !strcmp(e[i].comm, "prev-task") && !strcmp(e[i].comm2, "next-task"),
		      "%s: kind %d time %" PRIu64 " cpu %d a %d b %d v %" PRId64 " flags %u '%s' '%s'",
		      layouts[i].what, e[i].kind, e[i].time, e[i].cpu, e[i].a, e[i].b, e[i].v,
		      e[i].flags, e[i].comm, e[i].comm2);
	}
}

static void t_decode_exec_idle(void)
{
	const struct tfs_fmt *fx, *fi;
	uint8_t raw[128], rec[256];
	struct smp sm = { .time = 7, .pid = 1, .tid = 1, .cpu = 0, .raw = raw };
	struct rinfo ri;
	struct ev e;
	size_t n;
	static uint64_t id0 = 1, id1 = 2;

	CHECK((fx = fmt_add("sched", FMT_EXEC, strlen(FMT_EXEC))), "fmt_add exec");
	CHECK((fi = fmt_add("power", FMT_IDLE, strlen(FMT_IDLE))), "fmt_add idle");
	CHECK(!strcmp(fx->sys, "sched") && !strcmp(fi->sys, "power"), "sys names");
	CHECK(fmt_by_id(365) == fx && fmt_by_id(568) == fi && !fmt_by_id(372), "fmt_by_id");
	set_attr(0, SMP_LIVE, 365);
	set_attr(1, SMP_LIVE, 568);
	G.ev.attr[0].ids = &id0;
	G.ev.attr[0].nids = 1;
	G.ev.attr[1].ids = &id1;
	G.ev.attr[1].nids = 1;
	idmap_build();
	CHECK(G.ev.attr[0].kind == EV_PEXEC && G.ev.attr[1].kind == EV_IDLE, "kinds %d %d",
	      G.ev.attr[0].kind, G.ev.attr[1].kind);

	sm.id = 1;
	sm.rawsz = mk_exec_raw(raw, "/usr/local/bin/a-long-program", 0);
	n = mk_sample(rec, SMP_LIVE, &sm);
	CHECK(rec_info(rec, n, &ri) == 0 && ri.attr == 0, "exec rec_info");
	CHECK(ev_decode(rec, &ri, &e) == 1 && e.kind == EV_PEXEC, "exec ev_decode");
	CHECK(e.a == 4444 && e.b == 4443 && !strcmp(e.comm, "/a-long-program"),
	      "exec: a %d b %d comm '%s'", e.a, e.b, e.comm);

	sm.id = 2;
	memset(raw, 0, 16);
	put_n(raw, 568, 2);
	put_n(raw + 8, 4294967295u, 4);
	put_n(raw + 12, 5, 4);
	sm.rawsz = 16;
	n = mk_sample(rec, SMP_LIVE, &sm);
	CHECK(rec_info(rec, n, &ri) == 0 && ri.attr == 1, "idle rec_info");
	CHECK(ev_decode(rec, &ri, &e) == 1 && e.kind == EV_IDLE, "idle ev_decode");
	CHECK(e.v == (int64_t)IDLE_EXIT && e.c == 5, "idle: v %" PRId64 " c %d", e.v, e.c);
	put_n(raw + 8, 2, 4);
	n = mk_sample(rec, SMP_LIVE, &sm);
	CHECK(rec_info(rec, n, &ri) == 0 && ev_decode(rec, &ri, &e) == 1, "idle 2");
	CHECK(e.v == 2 && e.c == 5, "idle: v %" PRId64 " c %d", e.v, e.c);
}

/*
 * Integers at the edges of their types decode at fixed places (ev_decode,
 * fq_val: a layout of 4-byte signed pids read as such, s4) as the general
 * way (ev_decode_tp, fld_int) decodes them, in every sched_switch layout
 * (2.6.32's says nothing of signs: its pids are unsigned, so -1 is out of
 * range there) and in sched_wakeup's: pids of 0, -1, INT_MIN, INT_MAX,
 * prev_state with high bits, common_flags of 0xff.
 */
static void t_decode_fast_ints(void)
{
	static const int64_t pid[] = { 0, 1, -1, INT32_MIN, INT32_MAX, 4194304 };
	static const int64_t state[] = { 0, 0x402, -1, (int64_t)1 << 40 };
	enum { NPID = sizeof(pid) / sizeof(pid[0]), NSTATE = sizeof(state) / sizeof(state[0]) };
	static uint64_t ids[NLAYOUT + 1];
	uint8_t raw[128], rec[256];
	struct rinfo ri;
	struct ev fast, slow;
	int checked = 0;

	for (int i = 0; i <= NLAYOUT; i++) {
		const char *text = i < NLAYOUT ? layouts[i].text : FMT_WAKEUP;

		CHECK(fmt_add("sched", text, strlen(text)), "fmt_add %d", i);
		set_attr(i, SMP_LIVE, i < NLAYOUT ? layouts[i].id : 374);
		ids[i] = 2000 + i;
		G.ev.attr[i].ids = &ids[i];
		G.ev.attr[i].nids = 1;
	}
	idmap_build();
	CHECK(G.ev.attr[0].s4 && !G.ev.attr[1].s4 && G.ev.attr[2].s4 && G.ev.attr[3].s4 && G.ev.attr[NLAYOUT].s4,
	      "s4: %d %d %d %d %d", G.ev.attr[0].s4, G.ev.attr[1].s4, G.ev.attr[2].s4, G.ev.attr[3].s4,
	      G.ev.attr[NLAYOUT].s4);
	for (int i = 0; i <= NLAYOUT; i++)
		for (int p = 0; p < NPID; p++)
			for (int k = 0; k < NSTATE; k++) {
				struct smp sm = { .id = ids[i], .time = 7, .pid = 1, .tid = 1, .cpu = 0, .raw = raw };
				const struct attr *a = &G.ev.attr[i];
				size_t n;

				if (i < NLAYOUT) {
					const struct sw s = {
						.prev_comm = "p", .next_comm = "n", .prev_pid = (int)pid[p],
						.next_pid = (int)pid[(p + k) % NPID], .prev_state = state[k],
						.flags = k % 2 ? 0xff : 0,
					};
					sm.rawsz = mk_switch_raw(raw, &layouts[i], &s);
				} else {
					memset(raw, 0, 36);
					put_n(raw, 374, 2);
					raw[2] = k % 2 ? 0xff : 0;
					put_n(raw + 24, pid[p], 4);
					put_n(raw + 32, pid[(p + k) % NPID], 4);
					sm.rawsz = 36;
				}
				n = mk_sample(rec, SMP_LIVE, &sm);
				CHECK(rec_info(rec, n, &ri) == 0 && ri.attr == i && a->raw_need, "%d: rec_info", i);
				CHECK(ev_decode(rec, &ri, &fast) == 1, "%d: ev_decode", i);
				memset(&slow, 0, sizeof(slow));
				ev_decode_tp(a, ri.raw, ri.rawsz, &slow);
				CHECK(fast.a == slow.a && fast.b == slow.b && fast.c == slow.c && fast.v == slow.v &&
				      fast.flags == slow.flags && fast.flags == (k % 2 ? 0xff : 0),
				      "%d pid %" PRId64 " state %" PRId64 ": fast a %d b %d c %d v %" PRId64
				      " flags %u, general a %d b %d c %d v %" PRId64 " flags %u", i, pid[p], state[k],
				      fast.a, fast.b, fast.c, fast.v, fast.flags, slow.a, slow.b, slow.c, slow.v, slow.flags);
				checked++;
			}
	CHECK(checked == (NLAYOUT + 1) * NPID * NSTATE, "checked %d", checked);
}

/* sched_process_fork of a 6.x kernel (its names __data_loc) decodes at
 * fixed places (ev_decode_fast, raw_need set) as the general way
 * (ev_decode_tp, fld_str) decodes it: names of every length, locs past
 * the data, lengths past its end, a name without its NUL at the end. */
static void t_decode_fork_data_loc(void)
{
	static const struct { const char *p, *c; uint32_t ploc, cloc, rs; } v[] = {
		{ "bash", "sleep", 0, 0, 0 },
		{ "a-very-long-parent-name", "", 0, 0, 0 },
		{ "x", "child-name-of-many-bytes", 0, 0, 0 },
		{ "p", "c", 200u | 5u << 16, 0, 0 },		/* parent's offset past the data */
		{ "p", "c", 0, 24u | 0xffffu << 16, 0 },	/* child's length past its end */
		{ "parent", "child-no-nul", 0, 31u | 12u << 16, 43 },	/* the child's name without its NUL */
	};
	static uint64_t id = 9;
	uint8_t raw[128], rec[256];
	struct smp sm = { .id = 9, .time = 11, .pid = 1, .tid = 1, .cpu = 0, .raw = raw };
	struct rinfo ri;
	struct ev fast, slow;

	CHECK(fmt_add("sched", FMT_FORK, strlen(FMT_FORK)), "fmt_add fork");
	set_attr(0, SMP_LIVE, 366);
	G.ev.attr[0].ids = &id;
	G.ev.attr[0].nids = 1;
	idmap_build();
	CHECK(G.ev.attr[0].kind == EV_PFORK && G.ev.attr[0].raw_need == 24, "kind %d raw_need %u",
	      G.ev.attr[0].kind, G.ev.attr[0].raw_need);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		size_t pl = strlen(v[i].p) + 1, cl = strlen(v[i].c) + 1, n;

		memset(raw, 0, sizeof(raw));
		put_n(raw, 366, 2);
		put_n(raw + 8, v[i].ploc ? v[i].ploc : (uint32_t)(pl << 16 | 24), 4);
		put_n(raw + 12, 300 + i, 4);
		put_n(raw + 16, v[i].cloc ? v[i].cloc : (uint32_t)(cl << 16 | (24 + pl)), 4);
		put_n(raw + 20, 400 + i, 4);
		memcpy(raw + 24, v[i].p, pl);
		memcpy(raw + 24 + pl, v[i].c, cl);
		sm.rawsz = v[i].rs ? v[i].rs : 24 + pl + cl;
		n = mk_sample(rec, SMP_LIVE, &sm);
		CHECK(rec_info(rec, n, &ri) == 0 && ri.attr == 0, "%zu: rec_info", i);
		CHECK(ev_decode(rec, &ri, &fast) == 1 && fast.kind == EV_PFORK, "%zu: ev_decode", i);
		memset(&slow, 0, sizeof(slow));
		ev_decode_tp(&G.ev.attr[0], ri.raw, ri.rawsz, &slow);
		CHECK(fast.a == 300 + (int)i && fast.b == 400 + (int)i && fast.a == slow.a && fast.b == slow.b &&
		      !strcmp(fast.comm, slow.comm) && !strcmp(fast.comm2, slow.comm2),
		      "%zu: fast %d %d '%s' '%s', general %d %d '%s' '%s'", i, fast.a, fast.b, fast.comm,
		      fast.comm2, slow.a, slow.b, slow.comm, slow.comm2);
	}
	CHECK(!strcmp(fast.comm, "parent") && !strcmp(fast.comm2, "child-no-nul"), "no NUL: '%s' '%s'",
	      fast.comm, fast.comm2);
}

/* ---------------------------------------------------------------- ring reader */

enum { RING = 4096 };
static struct perf_event_mmap_page ring_pc;
static uint8_t ring_data[RING];

/* A fake ring whose head and tail start at start (free-running counters). */
static void ring_init(struct rb *r, uint64_t start)
{
	memset(&ring_pc, 0, sizeof(ring_pc));
	memset(ring_data, 0xa5, sizeof(ring_data));
	r->pc = &ring_pc;
	r->data = ring_data;
	r->size = RING;
	r->cpu = 0;
	r->fd = -1;
	ring_pc.data_head = ring_pc.data_tail = start;
}

/* The kernel's side: write n bytes at the head and publish them. */
static void ring_put(struct rb *r, const void *rec, size_t n)
{
	uint64_t h = r->pc->data_head;

	for (size_t i = 0; i < n; i++)
		r->data[(h + i) & (r->size - 1)] = ((const uint8_t *)rec)[i];
	r->pc->data_head = h + n;
}

/* tc's live set-up for the ring tests: one attr, a queue of cap bytes. */
static void ring_setup(size_t cap)
{
	set_attr(0, SMP_LIVE, 0);
	idmap_build();
	mrg_init(1, cap, false);
}

/* A live SAMPLE of rawsz bytes of raw data (0x11 * k) at time t. */
static size_t mk_live(uint8_t *rec, uint64_t t, uint32_t rawsz, int k)
{
	uint8_t raw[512];
	struct smp s = { .id = 1, .time = t, .pid = 100 + k, .tid = 100 + k, .cpu = 0,
			 .raw = raw, .rawsz = rawsz };

	memset(raw, 0x11 * k, rawsz);
	return mk_sample(rec, SMP_LIVE, &s);
}

/* The i-th record of q (a queue of copies): its time, bytes and size;
 * false if there is none. */
static bool q_rec(const struct mq *q, int i, uint64_t *t, const uint8_t **r, size_t *n)
{
	const struct qent *e;

	if (i < 0 || (uint32_t)i >= q->n)
		return false;
	e = mq_at(q, i);
	*t = e->time;
	*r = q->b + ((e->ref >> 8) & (q->bcap - 1));
	*n = g16(*r + 6);	/* the host's byte order */
	return (e->ref >> 8) >= q->bhead && (e->ref >> 8) + *n <= q->btail;
}

static int q_count(const struct mq *q)
{
	return q->n;
}

static void t_rb_plain(void)
{
	struct rb r;
	uint8_t rec[5][256];
	size_t n[5];
	uint64_t last = 0;

	ring_setup(1 << 16);
	ring_init(&r, 0);
	CHECK(rb_drain(&r, 0, &last) == 1 && last == 0, "empty ring");
	CHECK(ring_pc.data_tail == 0 && q_count(&G.mg.q[0]) == 0, "empty ring moved");
	for (int k = 0; k < 5; k++) {
		n[k] = mk_live(rec[k], 1000 * (k + 1), 12 + 8 * k, k + 1);
		ring_put(&r, rec[k], n[k]);
	}
	CHECK(rb_drain(&r, 0, &last) == 1, "not drained");
	CHECK(last == 5000, "last %" PRIu64, last);
	CHECK(ring_pc.data_tail == ring_pc.data_head, "tail %llu head %llu",
	      (unsigned long long)ring_pc.data_tail, (unsigned long long)ring_pc.data_head);
	CHECK(q_count(&G.mg.q[0]) == 5, "%d records queued", q_count(&G.mg.q[0]));
	for (int k = 0; k < 5; k++) {
		uint64_t t;
		const uint8_t *p;
		size_t m;

		CHECK(q_rec(&G.mg.q[0], k, &t, &p, &m), "record %d", k);
		CHECK(t == 1000u * (k + 1), "record %d: time %" PRIu64, k, t);
		CHECK(m == n[k] && !memcmp(p, rec[k], m), "record %d: bytes differ", k);
	}
	CHECK(G.bad.corrupt == 0 && G.bad.id == 0, "corrupt %" PRIu64 " unknown %" PRIu64,
	      G.bad.corrupt, G.bad.id);
	/* a COMM record: its time comes from the sample_id trailer */
	{
		struct smp s = { .id = 1, .time = 6000, .pid = 9, .tid = 9, .cpu = 0 };
		uint8_t c[128];
		size_t cn = mk_comm(c, SMP_LIVE, 9, 9, "worker", false, &s);

		ring_put(&r, c, cn);
		CHECK(rb_drain(&r, 0, &last) == 1 && last == 6000, "comm: last %" PRIu64, last);
		CHECK(q_count(&G.mg.q[0]) == 6, "comm not queued");
	}
}

/* A record wrapping past the end of data[] is copied whole. */
static void t_rb_wrap(void)
{
	struct rb r;
	uint8_t a[256], b[256], c[256];
	size_t na, nb, nc;
	uint64_t last = 0, t;
	const uint8_t *p;
	size_t m;

	ring_setup(1 << 16);
	/* third lap, 72 bytes before the end: a ends exactly at the end */
	ring_init(&r, 3 * RING - 72);
	na = mk_live(a, 10, 28, 1);
	CHECK(na == 72, "record a is %zu bytes", na);
	ring_put(&r, a, na);
	nb = mk_live(b, 20, 28, 2);
	ring_put(&r, b, nb);
	CHECK(rb_drain(&r, 0, &last) == 1 && last == 20, "first drain: last %" PRIu64, last);
	/* now c starts 24 bytes before the end: its time field wraps */
	ring_init(&r, 5 * RING - 24);
	nc = mk_live(c, 30, 100, 3);
	ring_put(&r, c, nc);
	CHECK(rb_drain(&r, 0, &last) == 1 && last == 30, "second drain: last %" PRIu64, last);
	CHECK(ring_pc.data_tail == 5 * RING - 24 + nc, "tail not at head");
	CHECK(q_count(&G.mg.q[0]) == 3, "%d records", q_count(&G.mg.q[0]));
	CHECK(q_rec(&G.mg.q[0], 0, &t, &p, &m) && t == 10 && m == na && !memcmp(p, a, na), "a");
	CHECK(q_rec(&G.mg.q[0], 1, &t, &p, &m) && t == 20 && m == nb && !memcmp(p, b, nb), "b");
	CHECK(q_rec(&G.mg.q[0], 2, &t, &p, &m) && t == 30 && m == nc && !memcmp(p, c, nc),
	      "wrapped record c differs (time %" PRIu64 ", %zu bytes)", t, m);
}

/* Corruption: everything to the head is skipped and counted. */
static void corrupt_case(uint16_t bad_size, size_t bad_len, const char *what)
{
	struct rb r;
	uint8_t a[256], bad[256], c[256];
	size_t na, nc;
	uint64_t last = 0;

	ring_setup(1 << 16);
	ring_init(&r, 16);
	na = mk_live(a, 100, 12, 1);
	ring_put(&r, a, na);
	memset(bad, 0x5a, sizeof(bad));
	put_hdr(bad, PERF_RECORD_SAMPLE, 0, bad_size);
	ring_put(&r, bad, bad_len);
	nc = mk_live(c, 300, 12, 3);
	if (bad_size <= bad_len) {	/* else c is part of the bad record */
		ring_put(&r, c, nc);
	} else {
		/* beyond the head: stale but valid-looking records, not to be read */
		uint64_t h = ring_pc.data_head;

		for (int i = 0; i < 8; i++)
			ring_put(&r, c, nc);
		ring_pc.data_head = h;
	}
	CHECK(rb_drain(&r, 0, &last) == 1, "%s: not drained", what);
	CHECK(G.bad.corrupt == 1 && G.bad.id == 0, "%s: corrupt %" PRIu64 " unknown %" PRIu64,
	      what, G.bad.corrupt, G.bad.id);
	CHECK(ring_pc.data_tail == ring_pc.data_head, "%s: tail %llu head %llu", what,
	      (unsigned long long)ring_pc.data_tail, (unsigned long long)ring_pc.data_head);
	CHECK(q_count(&G.mg.q[0]) == 1 && last == 100, "%s: %d queued, last %" PRIu64, what,
	      q_count(&G.mg.q[0]), last);
	/* the ring goes on after it */
	ring_put(&r, c, nc);
	CHECK(rb_drain(&r, 0, &last) == 1 && last == 300 && q_count(&G.mg.q[0]) == 2,
	      "%s: no recovery", what);
}

static void t_rb_zero_size(void)
{
	corrupt_case(0, 8, "size 0");
}

static void t_rb_misaligned_size(void)
{
	corrupt_case(44, 48, "size 44");
}

static void t_rb_oversize(void)
{
	/* size 128 with only 64 bytes published after it */
	corrupt_case(128, 64, "oversize");
}

/* head - tail > size: the writer lapped the reader; counted, skipped. */
static void t_rb_overrun(void)
{
	struct rb r;
	uint8_t a[256];
	size_t na = mk_live(a, 1, 20, 1);	/* 64 bytes: valid records all round */
	uint64_t last = 0;

	ring_setup(1 << 16);
	ring_init(&r, 0);
	CHECK(na == 64, "record of %zu bytes", na);
	while (ring_pc.data_head <= RING)
		ring_put(&r, a, na);
	CHECK(rb_drain(&r, 0, &last) == 1, "not drained");
	CHECK(G.bad.corrupt == 1 && G.bad.id == 0, "overrun counted %" PRIu64 " times", G.bad.corrupt);
	CHECK(ring_pc.data_tail == ring_pc.data_head, "tail not at head");
	CHECK(q_count(&G.mg.q[0]) == 0 && last == 0, "lapped data was queued");
}

/* Records that do not fit their attr are counted and skipped, not queued. */
static void t_rb_short_record(void)
{
	struct rb r;
	uint8_t a[256], shortr[16], c[256];
	size_t na, nc;
	uint64_t last = 0;

	ring_setup(1 << 16);
	ring_init(&r, 0);
	na = mk_live(a, 10, 12, 1);
	ring_put(&r, a, na);
	memset(shortr, 0, sizeof(shortr));
	put_hdr(shortr, PERF_RECORD_SAMPLE, 0, 16);
	ring_put(&r, shortr, 16);
	nc = mk_live(c, 30, 12, 3);
	ring_put(&r, c, nc);
	CHECK(rb_drain(&r, 0, &last) == 1 && last == 30, "last %" PRIu64, last);
	CHECK(G.bad.id == 1 && G.bad.corrupt == 0, "unknown %" PRIu64 " corrupt %" PRIu64,
	      G.bad.id, G.bad.corrupt);
	CHECK(q_count(&G.mg.q[0]) == 2 && ring_pc.data_tail == ring_pc.data_head, "queued %d",
	      q_count(&G.mg.q[0]));
}

/* A full queue stops the drain; the rest stays in the ring for later, and
 * the queue's byte ring skips its end rather than split a record. */
static void t_rb_queue_full(void)
{
	struct rb r;
	uint8_t rec[5][256];
	size_t n = 0;
	uint64_t last = 0, t, t0;
	const uint8_t *p;
	size_t m;
	static const int want[3] = { 2, 2, 1 };
	int done = 0;

	ring_setup(256);		/* room for two 72-byte records in their slots */
	CHECK(G.mg.q[0].bcap == 256, "byte ring of %zu", G.mg.q[0].bcap);
	ring_init(&r, RING - 104);	/* pass the end of data[] on the way */
	t0 = ring_pc.data_tail;
	for (int k = 0; k < 5; k++) {
		n = mk_live(rec[k], 100 * (k + 1), 28, k + 1);
		ring_put(&r, rec[k], n);
	}
	CHECK(n == 72, "records of %zu bytes", n);
	for (int pass = 0; pass < 3; pass++) {
		int got = rb_drain(&r, 0, &last);

		CHECK(got == (pass == 2), "pass %d: rb_drain returned %d", pass, got);
		CHECK(q_count(&G.mg.q[0]) == want[pass], "pass %d: %d queued", pass, q_count(&G.mg.q[0]));
		CHECK(last == 100u * (done + want[pass]), "pass %d: last %" PRIu64, pass, last);
		CHECK(ring_pc.data_tail == t0 + 72 * (done + want[pass]),
		      "pass %d: tail at +%llu, want +%d", pass,
		      (unsigned long long)(ring_pc.data_tail - t0), 72 * (done + want[pass]));
		for (int k = 0; k < want[pass]; k++) {
			int idx = done + k;

			CHECK(q_rec(&G.mg.q[0], k, &t, &p, &m) && t == 100u * (idx + 1) &&
			      m == 72 && !memcmp(p, rec[idx], 72), "pass %d: record %d", pass, idx);
		}
		done += want[pass];
		mrg_release(UINT64_MAX, false);
		CHECK(G.mg.q[0].n == 0 && G.mg.q[0].bhead == G.mg.q[0].btail, "pass %d: not freed", pass);
	}
	CHECK(ring_pc.data_tail == ring_pc.data_head && G.bad.corrupt == 0, "end");
	CHECK(G.mg.released == 500, "released %" PRIu64, G.mg.released);
}

/* 32-bit kernels: ring positions wrap at 4 GiB; records across the wrap
 * are read, not dropped as corruption. */
static void t_rb_wrap32(void)
{
	struct rb r;
	uint8_t a[256], b[256];
	size_t na, nb;
	uint64_t last = 0;

	ring_setup(1 << 16);
	ring_init(&r, 0xffffffffull - 40 + 1);	/* 40 bytes before the 4 GiB wrap */
	na = mk_live(a, 10, 28, 1);
	ring_put(&r, a, na);
	nb = mk_live(b, 20, 28, 2);
	ring_put(&r, b, nb);
	ring_pc.data_head &= 0xffffffffull;	/* the kernel's unsigned long wrapped */
	CHECK(ring_pc.data_head < ring_pc.data_tail, "no wrap in the test");
	CHECK(rb_drain(&r, 0, &last) == 1 && last == 20, "last %" PRIu64, last);
	CHECK(G.bad.corrupt == 0 && q_count(&G.mg.q[0]) == 2, "corrupt %" PRIu64 ", %d queued",
	      G.bad.corrupt, q_count(&G.mg.q[0]));
	CHECK((uint32_t)ring_pc.data_tail == (uint32_t)ring_pc.data_head, "tail not at head");
	/* and a real overrun is still one */
	CHECK(rb_avail(0x100000000ull + 4096, 0, 4096) > 4096, "64-bit overrun taken for a wrap");
	CHECK(rb_avail(0x10, 0xfffffff0ull, 4096) == 0x20, "32-bit wrap distance");
}

/* ---------------------------------------------------------------- merge */

/* Set up one sched_switch attr of the modern format, output to memory. */
static bool merge_setup(int nq)
{
	if (!fmt_add("sched", FMT_MODERN, strlen(FMT_MODERN)))
		return false;
	set_attr(0, SMP_LIVE, 372);
	idmap_build();
	mrg_init(nq, 1 << 16, true);
	ms_open();
	return G.ev.attr[0].kind == EV_SWITCH;
}

/* Copy record rec (n bytes, time t) into queue qi; false if it is full. */
static bool q_push(int qi, const uint8_t *rec, size_t n, uint64_t t)
{
	uint64_t pos;
	uint8_t *p = mq_reserve(&G.mg.q[qi], n, G.mg.seq++, &pos);

	if (!p)
		return false;
	memcpy(p, rec, n);
	mq_commit(qi, n, t, pos, 0);
	return true;
}

/* The time of queue qi's oldest record; false if it is empty. */
static bool q_peek(int qi, uint64_t *t)
{
	if (!G.mg.q[qi].n)
		return false;
	*t = mq_first(qi)->time;
	return true;
}

/* Queue a switch on cpu at time t whose prev_pid is id. */
static bool push_switch(int cpu, uint64_t t, int id)
{
	const struct sw s = { .prev_comm = "p", .next_comm = "n", .prev_pid = id,
			      .next_pid = 0, .prev_prio = 120, .next_prio = 120 };
	uint8_t raw[128], rec[256];
	struct smp sm = { .id = 1, .time = t, .pid = id, .tid = id, .cpu = cpu, .raw = raw };
	size_t n;

	sm.rawsz = mk_switch_raw(raw, &layouts[0], &s);
	n = mk_sample(rec, SMP_LIVE, &sm);
	return q_push(cpu, rec, n, t);
}

/* Parse the lines of out_script after *pos: times, CPUs and prev_pids;
 * returns how many, or -1 for a line that does not parse. */
static int out_lines(size_t *pos, uint64_t *t, int *cpu, int *id, int max)
{
	int k = 0;

	ms_sync();
	while (*pos < ms_len) {
		char *line = ms_buf + *pos, *nl = memchr(line, '\n', ms_len - *pos);

		if (!nl || k == max)
			return -1;
		char *pp;

		*nl = 0;
		pp = strstr(line, " prev_pid=");
		if (sscanf(line, "%" SCNu64 " %d sched_switch prev_comm=", &t[k], &cpu[k]) != 2 ||
		    !pp || sscanf(pp, " prev_pid=%d", &id[k]) != 1)
			return -1;
		*nl = '\n';
		*pos = nl + 1 - ms_buf;
		k++;
	}
	return k;
}

/*
 * Three CPUs; CPU 2's queue is "full" every pass (it delivers at most two
 * records per pass), so it lags behind; the bound is the live rule's.
 */
static void t_merge_live_rule(void)
{
	enum { NC = 3, NEV = 40 };
	uint64_t tev[NC][NEV], prev = 0;
	int pushed[NC] = { 0 }, total = 0;
	bool held = false;
	bool seen[NC][NEV] = { { false } };
	size_t pos = 0;
	uint64_t ot[NC * NEV];
	int oc[NC * NEV], oid[NC * NEV];

	CHECK(merge_setup(NC + 1), "setup");
	for (int c = 0; c < NC; c++)
		for (int k = 0; k < NEV; k++)
			tev[c][k] = 1000 + 250 * k + 37 * c;
	CHECK(!mrg_release(UINT64_MAX, true), "released from empty queues");
	for (uint64_t pass = 1; pushed[0] + pushed[1] + pushed[2] < NC * NEV; pass++) {
		uint64_t T = 1000 * pass, bound = UINT64_MAX, qt = 0;
		int k;

		CHECK(pass < 1000, "no progress");
		for (int c = 0; c < NC; c++) {
			int lim = c == 2 ? 2 : NEV, m = 0;
			bool drained;
			uint64_t caught;

			while (pushed[c] < NEV && tev[c][pushed[c]] <= T && m < lim) {
				CHECK(push_switch(c, tev[c][pushed[c]], 1000 * (c + 1) + pushed[c]),
				      "push cpu %d", c);
				pushed[c]++;
				m++;
			}
			drained = pushed[c] == NEV || tev[c][pushed[c]] > T;
			caught = drained ? T : tev[c][pushed[c] - 1];
			if (caught < bound)
				bound = caught;
		}
		mrg_release(bound, false);
		k = out_lines(&pos, ot, oc, oid, NC * NEV);
		CHECK(k >= 0, "pass %" PRIu64 ": bad output line", pass);
		for (int i = 0; i < k; i++) {
			int c = oid[i] / 1000 - 1, e = oid[i] % 1000;

			CHECK(ot[i] <= bound, "pass %" PRIu64 ": released %" PRIu64 " beyond bound %"
			      PRIu64, pass, ot[i], bound);
			CHECK(ot[i] >= prev, "time went back: %" PRIu64 " after %" PRIu64, ot[i], prev);
			CHECK(c >= 0 && c < NC && e < NEV && oc[i] == c && tev[c][e] == ot[i] &&
			      !seen[c][e], "bad or repeated event %d at %" PRIu64, oid[i], ot[i]);
			seen[c][e] = true;
			prev = ot[i];
		}
		total += k;
		for (int c = 0; c < NC; c++) {
			CHECK(!q_peek(c, &qt) || qt > bound,
			      "cpu %d keeps %" PRIu64 " <= bound %" PRIu64, c, qt, bound);
			held |= c < 2 && q_peek(c, &qt);
		}
	}
	CHECK(total > 0, "nothing released before the end");
	CHECK(held, "CPU 2 never held the others back: no lag tested");
	mrg_release(UINT64_MAX, false);
	{
		int k = out_lines(&pos, ot, oc, oid, NC * NEV);

		CHECK(k >= 0, "bad output line");
		for (int i = 0; i < k; i++) {
			int c = oid[i] / 1000 - 1, e = oid[i] % 1000;

			CHECK(ot[i] >= prev, "time went back at the end");
			CHECK(c >= 0 && c < NC && e < NEV && !seen[c][e], "bad or repeated event");
			seen[c][e] = true;
			prev = ot[i];
		}
		total += k;
	}
	CHECK(total == NC * NEV, "%d of %d released", total, NC * NEV);
	CHECK(G.bad.order == 0, "out_of_order %" PRIu64 " for valid input", G.bad.order);
	CHECK(G.n.kind[EV_SWITCH] == NC * NEV, "n_kind[SWITCH] %" PRIu64, G.n.kind[EV_SWITCH]);
	CHECK(G.mg.released == tev[NC - 1][NEV - 1], "released %" PRIu64, G.mg.released);
}

/* An older record than one released is counted and passed on. */
static void t_merge_out_of_order(void)
{
	size_t pos = 0;
	uint64_t ot[8];
	int oc[8], oid[8], k;

	CHECK(merge_setup(3), "setup");
	CHECK(push_switch(0, 1000, 1) && push_switch(1, 2000, 2) && push_switch(0, 3000, 3),
	      "push");
	CHECK(!mrg_release(999, true), "released beyond the bound");
	mrg_release(2500, false);
	k = out_lines(&pos, ot, oc, oid, 8);
	CHECK(k == 2 && ot[0] == 1000 && ot[1] == 2000, "%d lines released to 2500", k);
	CHECK(G.mg.released == 2000, "released %" PRIu64, G.mg.released);
	/* CPU 1 delivers 1500 after 2000 went out */
	CHECK(push_switch(1, 1500, 4), "push");
	mrg_release(2500, false);
	k = out_lines(&pos, ot, oc, oid, 8);
	CHECK(k == 1 && ot[0] == 1500 && oid[0] == 4, "late record: %d lines", k);
	CHECK(G.bad.order == 1, "out_of_order %" PRIu64, G.bad.order);
	CHECK(G.mg.released == 2000, "released went back to %" PRIu64, G.mg.released);
	/* equal to the last released is in order */
	CHECK(push_switch(1, 2000, 5), "push");
	mrg_release(UINT64_MAX, false);
	k = out_lines(&pos, ot, oc, oid, 8);
	CHECK(k == 2 && ot[0] == 2000 && ot[1] == 3000, "%d lines at the end", k);
	CHECK(G.bad.order == 1, "equal time counted as out of order");
	CHECK(G.n.kind[EV_SWITCH] == 5, "n_kind %" PRIu64, G.n.kind[EV_SWITCH]);
}

/* A queue that may not grow refuses when full; room made by releases is
 * reused, across the end of the byte ring. */
static void t_mq_full(void)
{
	uint8_t rec[256];
	struct smp s = { .id = 1, .pid = 1, .tid = 1, .cpu = 0 };
	size_t n;
	uint64_t t = 0;
	size_t pos = 0;
	uint64_t ot[8];
	int oc[8], oid[8], k;

	CHECK(merge_setup(1), "setup");
	mem_free(G.mg.q);
	mem_free(G.mg.heap);
	mrg_init(1, 256, false);	/* 48-byte records take 64 in their slots */
	n = mk_sample(rec, SMP_LIVE, &s);
	CHECK(n == 48, "record of %zu bytes", n);
	for (int i = 0; i < 3; i++) {
		s.time = 10 * (i + 1);
		mk_sample(rec, SMP_LIVE, &s);
		CHECK(q_push(0, rec, n, s.time), "push %d", i);
	}
	{	/* a 72-byte record (88 in its slot) does not fit in the 64 left */
		uint8_t big[256], raw[28] = { 0 };
		struct smp b = { .id = 1, .pid = 1, .tid = 1, .cpu = 0, .time = 40, .raw = raw, .rawsz = 28 };
		size_t nb = mk_sample(big, SMP_LIVE, &b);

		CHECK(nb == 72, "record of %zu bytes", nb);
		CHECK(!q_push(0, big, nb, 40), "a full queue took a record");
		CHECK(mrg_release(10, true) && !mrg_release(15, true), "release of one");
		CHECK(!q_push(0, big, nb, 40), "64 + 64 bytes took 88 in one piece");
		CHECK(mrg_release(20, true), "release of the second");
		CHECK(q_push(0, big, nb, 40), "freed room not reused");
		/* 192 + skip 64 to the end + 88 */
		CHECK(G.mg.q[0].btail == 256 + 88, "the end of the byte ring not skipped: tail %" PRIu64, G.mg.q[0].btail);
	}
	CHECK(q_peek(0, &t) && t == 30, "oldest %" PRIu64, t);
	mrg_release(UINT64_MAX, false);
	CHECK(G.mg.q[0].n == 0 && G.mg.q[0].bhead == G.mg.q[0].btail, "queue not empty");
	CHECK(G.mg.released == 40 && G.bad.order == 0, "released %" PRIu64, G.mg.released);
	/* raw data of 4 zero bytes: a switch of default fields, in time order */
	k = out_lines(&pos, ot, oc, oid, 8);
	CHECK(k == 4 && ot[0] == 10 && ot[1] == 20 && ot[2] == 30 && ot[3] == 40 && oid[0] == -1,
	      "%d lines, first at %" PRIu64, k, ot[0]);
}

/* With the queues' budget spent, a queue still empty gets its first
 * allocation (else every record of its CPU would be lost), but a queue
 * that has one does not grow. */
static void t_mq_budget(void)
{
	uint8_t rec[256];
	struct smp s = { .id = 1, .pid = 1, .tid = 1, .cpu = 0, .time = 10 };
	size_t n;

	CHECK(merge_setup(2), "setup");
	n = mk_sample(rec, SMP_LIVE, &s);
	CHECK(q_push(0, rec, n, 10), "push");
	G.mg.bytes = QUEUE_MAX;
	CHECK(q_push(1, rec, n, 20), "an empty queue refused its first record");
	CHECK(!mq_grow_bytes(&G.mg.q[0]), "a queue grew past the budget");
	mrg_release(UINT64_MAX, false);
	CHECK(G.mg.released == 20 && G.bad.order == 0, "released %" PRIu64, G.mg.released);
}

/* A copied record whose stream position has 32 zero low bits (the first
 * of a live pass) is not taken for free space when a later one goes
 * first. */
static void t_mq_seq_zero(void)
{
	uint8_t rec[256];
	struct smp s = { .id = 1, .pid = 1, .tid = 1, .cpu = 0 };
	size_t n;

	CHECK(merge_setup(1), "setup");
	n = mk_sample(rec, SMP_LIVE, &s);
	G.mg.seq = 0;
	s.time = 20;
	mk_sample(rec, SMP_LIVE, &s);
	CHECK(q_push(0, rec, n, 20), "push");
	s.time = 10;	/* late: inserted before, released first */
	mk_sample(rec, SMP_LIVE, &s);
	CHECK(q_push(0, rec, n, 10), "push");
	CHECK(mrg_release(10, true), "release of the late one");
	CHECK(G.mg.q[0].n == 1 && G.mg.q[0].bhead == 0, "bhead %" PRIu64 " past a record still queued", G.mg.q[0].bhead);
	mrg_release(UINT64_MAX, false);
	CHECK(G.mg.q[0].n == 0 && G.mg.q[0].bhead == G.mg.q[0].btail, "queue not empty");
}

/* ---------------------------------------------------------------- merge of files */

/* A record of a hand-built file: 's' a switch on cpu at time t whose
 * prev_pid is id, 'c' a COMM side-band record of tid id, 'r' FINISHED_ROUND. */
struct frec {
	char kind;
	int cpu;
	uint64_t t;
	int id;
};

enum { FREC_LONG = 20000 };	/* raw bytes of a long switch ('l') */

/* Lay out records f[0..n) as a perf.data data section in buf; returns its
 * size.  Kinds: 's' a switch, 'l' a switch of FREC_LONG raw bytes (its
 * fields, then zeros), 'c' a COMM record, 'r' a FINISHED_ROUND. */
static size_t file_build(uint8_t *buf, const struct frec *f, int n)
{
	size_t len = 0;

	for (int i = 0; i < n; i++) {
		const struct sw s = { .prev_comm = "p", .next_comm = "n", .prev_pid = f[i].id,
				      .next_pid = 0, .prev_prio = 120, .next_prio = 120 };
		static uint8_t raw[FREC_LONG];
		struct smp sm = { .id = 1, .time = f[i].t, .pid = f[i].id, .tid = f[i].id,
				  .cpu = f[i].cpu, .raw = raw };

		if (f[i].kind == 'r') {
			put_hdr(buf + len, PR_FINISHED_ROUND, 0, 8);
			len += 8;
		} else if (f[i].kind == 'c') {
			len += mk_comm(buf + len, SMP_LIVE, f[i].id, f[i].id, "side", false, &sm);
		} else {
			sm.rawsz = mk_switch_raw(raw, &layouts[0], &s);
			if (f[i].kind == 'l') {
				memset(raw + sm.rawsz, 0, FREC_LONG - sm.rawsz);
				sm.rawsz = FREC_LONG;
			}
			len += mk_sample(buf + len, SMP_LIVE, &sm);
		}
	}
	return len;
}

static size_t file_cap;	/* file_read's buffer: RD_BUF where 0, RD_CAP as a perf file's */

/* G.rc on a memory file of buf's len bytes (fsize: UINT64_MAX as a
 * stream) whose data ends at end, for ncpu CPUs, with a read buffer of cap
 * bytes: as rd_open leaves it for rd_run. */
static bool file_mem(const uint8_t *buf, size_t len, uint64_t end, uint64_t fsize, int ncpu, size_t cap)
{
	G.rd.nrcpus = ncpu;
	G.rd.end = end;
	G.rd.fsize = fsize;
	G.rc.fd = memfd_create("unit", 0);
	if (G.rc.fd < 0 || write(G.rc.fd, buf, len) != (ssize_t)len || lseek(G.rc.fd, 0, SEEK_SET) != 0)
		return false;
	G.rc.cap = cap;
	G.rc.buf = xcalloc_huge(cap);
	return true;
}

/* Read data section buf[0..len) through rd_run from a memfd, as a file
 * (file: queued records stay in it, rd_at reads them again) or as a
 * stream (copies), with ncpu CPUs; records of queues are released into
 * out_script. */
static bool file_read(uint8_t *buf, size_t len, bool file, int ncpu)
{
	if (!file_mem(buf, len, len, file ? len : UINT64_MAX, ncpu, file_cap ? file_cap : RD_BUF))
		return false;
	rd_run(UINT64_MAX);
	close(G.rc.fd);
	return true;
}

/*
 * perf's order of records f[0..n): by time, equal times in file order
 * (records without a round before them too); rounds left out.  Returns the
 * number of records in want[] (indices into f).
 */
static int file_order(const struct frec *f, int n, int *want)
{
	int k = 0;

	for (int i = 0; i < n; i++)
		if (f[i].kind != 'r')
			want[k++] = i;
	for (int i = 1; i < k; i++)	/* insertion sort: stable */
		for (int j = i; j > 0 && f[want[j - 1]].t > f[want[j]].t; j--) {
			int x = want[j];

			want[j] = want[j - 1];
			want[j - 1] = x;
		}
	return k;
}

/* The attrs of file_check: a switch format; with std, a second attr
 * beside it, so that rec_std knows the switches by their ids (run_next
 * then reads a run's head no further than its time and CPU). */
static bool merge_setup_std(bool std)
{
	static uint64_t id0 = 1, id1 = 2;

	if (!fmt_add("sched", FMT_MODERN, strlen(FMT_MODERN)))
		return false;
	set_attr(0, SMP_LIVE, 372);
	if (std) {
		G.ev.attr[0].ids = &id0;
		G.ev.attr[0].nids = 1;
		set_attr(1, SMP_LIVE, 0);
		G.ev.attr[1].ids = &id1;
		G.ev.attr[1].nids = 1;
	}
	idmap_build();
	ms_open();
	return std_on() == std;
}

static bool merge_setup_file(void)
{
	return merge_setup_std(false);
}

static const char *const FILE_MODE[] = { "in the file", "copied", "in the file, rec_std's",
					  "copied, rec_std's" };

/* Read f[0..n) both ways (FILE_MODE), with one attr and with two, and
 * check the output is perf's order, with expect_ooo records out of
 * order; why says which layout failed. */
static void file_check(const char *what, const struct frec *f, int n, int ncpu, int expect_ooo)
{
	static uint8_t buf[12 << 20];
	static int want[100000];
	int k = file_order(f, n, want);
	size_t len = file_build(buf, f, n);

	for (int mode = 0; mode < 4; mode++) {
		size_t pos = 0;
		int got = 0;

		g_reset();
		CHECK(merge_setup_std(mode >= 2), "%s: setup", what);
		CHECK(file_read(buf, len, mode % 2 == 0, ncpu), "%s: read", what);
		ms_sync();
		while (pos < ms_len && got <= k) {
			char *line = ms_buf + pos, *nl = memchr(line, '\n', ms_len - pos), *p;
			uint64_t t;
			int id = -1;

			CHECK(nl, "%s: unterminated output", what);
			*nl = 0;
			CHECK(sscanf(line, "%" SCNu64, &t) == 1, "%s: line '%s'", what, line);
			if ((p = strstr(line, " prev_pid=")) || (p = strstr(line, " tid=")))
				sscanf(strchr(p, '=') + 1, "%d", &id);
			CHECK(got < k && t == f[want[got]].t && id == f[want[got]].id,
			      "%s (%s): record %d is %" PRIu64 "/%d, want %" PRIu64 "/%d", what,
			      FILE_MODE[mode], got, t, id, got < k ? f[want[got]].t : 0,
			      got < k ? f[want[got]].id : 0);
			*nl = '\n';
			pos = nl + 1 - ms_buf;
			got++;
		}
		CHECK(got == k, "%s (%s): %d of %d records", what, FILE_MODE[mode], got, k);
		CHECK(G.bad.order == (uint64_t)expect_ooo, "%s (%s): out_of_order %" PRIu64,
		      what, FILE_MODE[mode], G.bad.order);
		CHECK(G.mg.forced == 0 && G.bad.corrupt == 0, "%s: forced %" PRIu64, what, G.mg.forced);
	}
}

/* perf record's layout: per round, each CPU's chunk in time order. */
static void t_merge_file_rounds(void)
{
	static struct frec f[400];
	int n = 0, id = 1;

	for (int round = 0; round < 10; round++) {
		for (int c = 0; c < 3; c++)
			for (int k = 0; k < 10; k++)
				f[n++] = (struct frec){ 's', c, 1000 * round + 97 * k + 13 * c + 1, id++ };
		f[n++] = (struct frec){ 'r', 0, 0, 0 };
	}
	file_check("rounds", f, n, 3, 0);
}

/* No rounds at all: one round, everything read before anything goes out;
 * one CPU's chunk far larger than the others' (queue growth, wrap). */
static void t_merge_file_no_rounds(void)
{
	static struct frec f[6000];
	int n = 0, id = 1;

	for (int k = 0; k < 5000; k++)
		f[n++] = (struct frec){ 's', 1, 10 * k + 5, id++ };
	for (int k = 0; k < 50; k++)
		f[n++] = (struct frec){ 's', 0, 1000 * k, id++ };
	for (int k = 0; k < 3; k++)
		f[n++] = (struct frec){ 's', 2, 20000 * k + 1, id++ };
	file_check("no rounds, big chunk", f, n, 3, 0);
}

/* Side-band records between samples, one stamped before the samples
 * written ahead of it (a FORK or COMM, as the kernel writes them), and
 * equal times across CPUs (file order). */
static void t_merge_file_side_band(void)
{
	static const struct frec f[] = {
		{ 's', 0, 100, 1 }, { 'c', 0, 150, 2 }, { 's', 0, 200, 3 }, { 's', 0, 300, 4 },
		{ 'c', 0, 250, 5 }, { 's', 0, 400, 6 },
		{ 's', 1, 150, 7 }, { 's', 1, 250, 8 }, { 'c', 1, 400, 9 },
		{ 'r', 0, 0, 0 },
		{ 's', 0, 500, 10 }, { 's', 1, 450, 11 }, { 'r', 0, 0, 0 },
		{ 's', 1, 600, 12 }, { 'r', 0, 0, 0 },
	};

	file_check("side band", f, sizeof(f) / sizeof(f[0]), 2, 0);
}

/* A record really out of order: older than one released at an earlier
 * round (two back: a record a round late is in time).  It is counted, and
 * passed on where it is read. */
static void t_merge_file_late(void)
{
	static const struct frec f[] = {
		{ 's', 0, 100, 1 }, { 's', 1, 200, 2 }, { 'r', 0, 0, 0 },
		{ 's', 0, 300, 3 }, { 'r', 0, 0, 0 },
		{ 's', 0, 350, 6 }, { 'r', 0, 0, 0 },	/* releases up to 200 */
		{ 's', 1, 150, 4 }, { 's', 1, 400, 5 }, { 'r', 0, 0, 0 },
	};
	static uint8_t buf[4096];
	size_t len = file_build(buf, f, sizeof(f) / sizeof(f[0])), pos = 0;
	uint64_t ot[8];
	int oc[8], oid[8], k;

	CHECK(merge_setup_file() && file_read(buf, len, true, 2), "setup");
	k = out_lines(&pos, ot, oc, oid, 8);
	CHECK(k == 6 && oid[0] == 1 && oid[1] == 2 && oid[2] == 4 && oid[3] == 3 && oid[4] == 6 && oid[5] == 5,
	      "%d records, order %d %d %d %d %d %d", k, oid[0], oid[1], oid[2], oid[3], oid[4], oid[5]);
	CHECK(ot[2] == 150, "the late record was re-stamped: %" PRIu64, ot[2]);
	CHECK(G.bad.order == 1, "out_of_order %" PRIu64, G.bad.order);
}

/* Nothing is released before an older record can still come: at each
 * round, only what is older than the newest time of the round before. */
static void t_merge_file_held(void)
{
	static const struct frec f[] = {
		{ 's', 0, 100, 1 }, { 's', 0, 900, 2 }, { 'r', 0, 0, 0 },
		/* CPU 1 delivers 200..800 only now: all must still be held */
		{ 's', 1, 200, 3 }, { 's', 1, 800, 4 }, { 'r', 0, 0, 0 },
		{ 's', 1, 950, 5 }, { 'r', 0, 0, 0 },
	};
	/* had the first round released 900, 200 and 800 would come late */
	file_check("held", f, sizeof(f) / sizeof(f[0]), 2, 0);
}

/*
 * Random files as perf record writes them: per round, chunks of CPUs (one
 * CPU's records in time order, or two chunks of it: its ring wrapped),
 * side-band records stamped before the record ahead of them, many equal
 * times within and across CPUs, some rounds empty, the last unended.  A
 * round's times stay above the round before's (perf's guarantee), so
 * perf's order is the stable sort by time.  Read in runs (in the file)
 * and copied (a stream), both must give it.
 */
static void t_merge_file_random(void)
{
	static struct frec f[2000];
	uint32_t x = 12345;

	for (int iter = 0; iter < 300; iter++) {
		int n = 0, id = 1, ncpu = 1 + iter % 4, rounds = 1 + iter % 7;
		char what[32];

		for (int r = 0; r < rounds; r++) {
			int chunks = (x = x * 1103515245 + 12345) >> 16 & 7;

			for (int k = 0; k < chunks && n < 1900; k++) {
				int c = (x = x * 1103515245 + 12345) >> 16 & 3, len = (x >> 20) % 40;
				uint64_t t = 1000 * (uint64_t)(r + 1) + (x >> 8) % 30;

				c %= ncpu;
				for (int i = 0; i < len && n < 1900; i++) {
					bool back = ((x = x * 1103515245 + 12345) >> 16) % 7 == 0;

					t += (x >> 20) % 3;	/* equal times, often */
					f[n++] = (struct frec){ back ? 'c' : 's', c,
								back ? t - (x >> 24) % 20 : t, id++ };
				}
			}
			if (r < rounds - 1 || iter % 2)
				f[n++] = (struct frec){ 'r', 0, 0, 0 };
		}
		snprintf(what, sizeof(what), "random %d", iter);
		file_check(what, f, n, ncpu, 0);
	}
}

/* Random rounds of runs, as perf record writes them, in f (at most max
 * records and the rounds' ends): per round, each of ncpu CPUs' records
 * (len / 4 to len of them) in time order, one in 16 a COMM side-band
 * record; x is the random state.  Returns the number of records. */
static int runs_build(struct frec *f, int max, int ncpu, int rounds, int len, uint32_t *x)
{
	int n = 0;

	for (int r = 0; r < rounds && n < max; r++) {
		for (int c = 0; c < ncpu; c++) {
			uint64_t t = 1000000 * (uint64_t)(r + 1);
			int k;

			*x = *x * 1103515245 + 12345;
			k = len / 4 + (int)(*x >> 8) % (len - len / 4 + 1);
			for (int i = 0; i < k && n < max; i++, n++) {
				*x = *x * 1103515245 + 12345;
				t += (*x >> 20) % 5;	/* equal times, often */
				f[n] = (struct frec){ (*x >> 16 & 15) ? 's' : 'c', c, t, n };
			}
		}
		f[n++] = (struct frec){ 'r', 0, 0, 0 };
	}
	return n;
}

/*
 * Records the read buffer has moved past are read again through their
 * queue's window, which ends where their run ends: a round of two CPUs'
 * runs of 3000 switches each (330 KB, more than RD_BUF) comes out in
 * perf's order, and CPU 0's last window stops at CPU 1's first record,
 * not a whole window on.  Then random rounds of such runs, past RD_BUF,
 * and past RD_CAP in a buffer of that size (a perf file's, rd_seek).
 */
static void t_merge_file_windows(void)
{
	enum { N = 3000 };
	static struct frec f[2 * N + 8];
	static uint8_t buf[1 << 20];
	uint32_t x = 777;
	size_t len, cpu1;
	const struct mq *q;

	for (int i = 0; i < N; i++) {
		f[i] = (struct frec){ 's', 0, 1000 + 2 * (uint64_t)i, 100 + i % 50 };
		f[N + i] = (struct frec){ 's', 1, 1001 + 2 * (uint64_t)i, 200 + i % 50 };
	}
	f[2 * N] = (struct frec){ 'r', 0, 0, 0 };
	file_check("two runs", f, 2 * N + 1, 2, 0);
	cpu1 = file_build(buf, f, N);
	len = file_build(buf, f, 2 * N + 1);
	CHECK(len > RD_BUF + cpu1 / 2, "%zu bytes: the buffer holds them all", len);
	g_reset();
	CHECK(merge_setup_file() && file_read(buf, len, true, 2), "read");
	q = &G.mg.q[0];
	CHECK(q->w && q->woff < cpu1 && q->woff + q->wlen == cpu1,
	      "CPU 0's last window: %" PRIu64 " bytes at %" PRIu64 ", its run ends at %zu", (uint64_t)q->wlen, q->woff, cpu1);
	for (int iter = 0; iter < 6 && !why[0]; iter++) {
		int ncpu = 2 + iter % 3, n = runs_build(f, 2 * N, ncpu, 4, 1500, &x);
		char what[32];

		snprintf(what, sizeof(what), "runs past RD_BUF %d", iter);
		file_check(what, f, n, ncpu, 0);
	}
	file_cap = RD_CAP;	/* a perf file's buffer: filled in chunks, moved when full */
	for (int iter = 0; iter < 3 && !why[0]; iter++) {
		static struct frec g[40008];
		int n = runs_build(g, 40000, 2 + iter, 12, 5000, &x);
		char what[32];

		snprintf(what, sizeof(what), "runs past RD_CAP %d", iter);
		file_check(what, g, n, 2 + iter, 0);
	}
	file_cap = 0;
}

/*
 * A perf file's full read buffer is kept (rd_keep) once the merge has read
 * again a record one more buffer would have held, up to RD_OLD of them,
 * and rd_at finds the records there: ten rounds of two CPUs' runs of 0.25
 * to 1 MB each (released one round later: up to 4 MB back) come out in
 * perf's order, the reader keeps RD_OLD buffers, the newest from where the
 * present one starts, and a record in the oldest is read from it, not
 * from a window; both are given back when the task table's slots used
 * grow to RD_KEEP_MEM.  With those taking RD_KEEP_MEM (less one buffer)
 * from the start, none kept (one).  No buffer is kept for a stream.
 */
static void t_merge_file_keep(void)
{
	static struct frec f[90008];
	static uint8_t buf[12 << 20];
	uint32_t x = 4242;
	int n = runs_build(f, 90000, 2, 10, 9000, &x);
	size_t len = file_build(buf, f, n), avail = 0;
	const struct rold *o;
	struct qrun r = { .qi = 0 };
	const uint8_t *p;
	uint64_t woff;

	file_cap = RD_CAP;
	file_check("rounds of up to 2 MB", f, n, 2, 0);
	g_reset();
	CHECK(merge_setup_std(true) && file_read(buf, len, true, 2), "read");
	CHECK(G.rc.nold == RD_OLD, "%d buffers kept, want %d", G.rc.nold, RD_OLD);
	o = &G.rc.old[RD_OLD - 1];
	CHECK(G.rc.old[0].off + G.rc.old[0].len >= G.rc.off && G.rc.old[0].off < G.rc.off &&
	      G.rc.old[1].off + G.rc.old[1].len >= G.rc.old[0].off && o->len > MAX_REC,
	      "buffers at %" PRIu64 " (%zu bytes), %" PRIu64 " (%zu), present at %" PRIu64, G.rc.old[1].off,
	      G.rc.old[1].len, G.rc.old[0].off, G.rc.old[0].len, G.rc.off);
	r.end = o->off + o->len;
	woff = G.mg.q[0].woff;
	p = rd_at(&r, o->off, &avail);	/* (a record starts there: where the buffer before moved on) */
	CHECK(p == o->b && avail == o->len && G.mg.q[0].woff == woff, "the oldest buffer's first record not read from it");
	G.m.ntask = rd_keep_tasks(1) + 1;	/* the tasks grew: both given back */
	CHECK(!rd_keep() && G.rc.nold == 0, "%d buffers kept with the task table's slots all of RD_KEEP_MEM", G.rc.nold);
	for (int room = 0; room < 2 && !why[0]; room++) {	/* the task table's slots take the rest */
		g_reset();
		CHECK(merge_setup_std(true), "setup");
		G.m.ntask = rd_keep_tasks(room + 1) + 1;
		CHECK(file_read(buf, len, true, 2) && G.rc.nold == room,
		      "%d tasks: %d buffers kept, want %d", G.m.ntask, G.rc.nold, room);
	}
	g_reset();
	CHECK(merge_setup_std(true) && file_read(buf, len, false, 2), "read as a stream");
	CHECK(G.rc.nold == 0, "a stream kept %d buffers", G.rc.nold);
	file_cap = 0;
}

/* The huge pages the task table's first slots touch (base: its address),
 * from the one its first slot is on. */
static uintptr_t task_hpages(uintptr_t base, size_t slots)
{
	return slots ? (base + slots * sizeof(struct task) + HUGE_PAGE - 1) / HUGE_PAGE - base / HUGE_PAGE : 0;
}

/*
 * The buffers kept and the task table's huge pages stay within
 * RD_KEEP_MEM while a release takes new slots: rd_keep_tasks' slots, and
 * a few more, touch no more huge pages than RD_KEEP_MEM leaves beside n
 * buffers (counted here from the table's address, one huge page more
 * than it leaves with a huge page's slots more), and a file whose every
 * fourth switch names a new task (prev_pid), read round by round with
 * the model on (90,000 records, the table full three quarters in), gives
 * its kept buffers back as the table grows, during the releases: after
 * each round the table's huge pages and the buffers kept fit RD_KEEP_MEM.
 * (Given back only at the read buffer's moves, two were still kept with
 * the table's fourth huge page.)
 */
static void t_merge_file_shed(void)
{
	static struct frec f[90008];
	static uint8_t buf[12 << 20];
	const uintptr_t H = HUGE_PAGE;
	uint32_t x = 4242;
	int n = runs_build(f, 90000, 2, 10, 9000, &x), maxold = 0, ret = 1;
	size_t len;
	uintptr_t base;
	char over[160] = "";

	for (int i = 0; i < n; i++)
		f[i].id = 100 + i / 4;	/* (22,500 tasks: evictions after 65,536 records) */
	len = file_build(buf, f, n);
	g_reset();
	file_cap = RD_CAP;
	CHECK(merge_setup_std(true), "setup");
	model_init(2, TC_MAX_TASKS, 0);
	base = (uintptr_t)G.m.task;
	for (int k = 0; k <= RD_OLD; k++) {
		size_t slots = (size_t)rd_keep_tasks(k) + 8, more = slots + H / sizeof(struct task);
		uintptr_t pages = task_hpages(base, slots), pmore = task_hpages(base, more);

		CHECK(pages * H + k * RD_CAP <= RD_KEEP_MEM && (pmore * H + k * RD_CAP > RD_KEEP_MEM || more > TC_MAX_TASKS),
		      "%d kept: %zu slots touch %" PRIuPTR " huge pages", k, slots, pages);
	}
	CHECK(file_mem(buf, len, len, len, 2, RD_CAP), "file");
	for (int r = 1; ret == 1; r++) {	/* (up to the next round's records; to the end) */
		uintptr_t used;

		ret = rd_run(r < 20 ? 1000000 * (uint64_t)(r + 1) - 1 : UINT64_MAX);
		used = task_hpages(base, G.m.ntask);
		if (G.rc.nold > maxold)
			maxold = G.rc.nold;
		if (!over[0] && used * H + G.rc.nold * RD_CAP > RD_KEEP_MEM)
			snprintf(over, sizeof(over), "round %d: %d tasks on %" PRIuPTR " huge pages, %d buffers kept",
				 r, G.m.ntask, used, G.rc.nold);
	}
	close(G.rc.fd);
	CHECK(ret == 0 && !over[0], "%s (rd_run last gave %d)", over, ret);
	CHECK(maxold == RD_OLD && G.m.ntask == TC_MAX_TASKS && G.m.evicted_tasks > 0,
	      "%d buffers kept at most, %d tasks, %" PRIu64 " evicted", maxold, G.m.ntask, (uint64_t)G.m.evicted_tasks);
	file_cap = 0;
}

/*
 * The merge's windows share RD_WIN_MEM: with 255 CPUs (256 queues) each
 * has 8 KiB less a block's header (two pages), and a record longer than
 * that (a switch of 20 KB) is read into the long record's buffer, its
 * window left empty.  Two rounds of runs of the 255 CPUs (1.8 MB, read
 * again through the windows past RD_BUF), a long switch among them now
 * and then, come out in perf's order (file_check); read as a file, the
 * windows take at most RD_WIN_MEM, and the long records went through the
 * long buffer.
 */
static void t_merge_file_wshared(void)
{
	static struct frec f[30008];
	static uint8_t buf[12 << 20];
	uint32_t x = 99;
	int n = runs_build(f, 30000, 255, 2, 40, &x), nw = 0;
	size_t len;

	for (int i = 7; i < n; i += 499)
		if (f[i].kind == 's')
			f[i].kind = 'l';
	file_check("255 CPUs, long records", f, n, 255, 0);
	len = file_build(buf, f, n);
	memset(rd_wlong, 0, 8);
	g_reset();
	CHECK(merge_setup_std(true) && file_read(buf, len, true, 255), "read");
	for (int i = 0; i < G.mg.nq; i++)
		nw += G.mg.q[i].w != NULL;
	CHECK(rd_wcap() + 16 == 8192 && nw > 200 && (size_t)nw * rd_wcap() <= RD_WIN_MEM && g32(rd_wlong) == PERF_RECORD_SAMPLE,
	      "%zu bytes: windows of %zu bytes, %d of them; the long record's buffer %s", len, rd_wcap(), nw,
	      g32(rd_wlong) == PERF_RECORD_SAMPLE ? "used" : "not used");
}

/* Read buf (len bytes, a file of ncpu CPUs) as a file (with rd_filler's
 * thread where it starts) or as a stream (without): its output, *olen
 * bytes (malloc'd). */
static char *filler_read(const uint8_t *buf, size_t len, bool file, int ncpu, size_t *olen)
{
	char *o;

	g_reset();
	if (!merge_setup_std(true) || !file_read((uint8_t *)buf, len, file, ncpu))
		fprintf(stderr, "filler_read: cannot read\n");
	ms_sync();
	o = malloc(ms_len + 1);
	memcpy(o, ms_buf, ms_len);
	*olen = ms_len;
	return o;
}

/*
 * rd_filler's thread reads the windows of no queue where those of every
 * queue do not fit in RD_FILL_WMEM: a file of 255 CPUs' runs past
 * RD_FILL_MIN (5.2 MB, eight rounds) read with the thread gives what a
 * stream's read gives (perf's order), and every queue's window is rd_at's
 * (rd_wcap bytes), none of the thread's.  (With the thread's windows for
 * 8 of the 256 queues, a test/sim file of 256 CPUs took 1.7 MB more.)
 */
static void t_merge_file_wfill(void)
{
	static struct frec f[48008];
	static uint8_t buf[12 << 20];
	uint32_t x = 99;
	int n = runs_build(f, 48000, 255, 8, 40, &x), theirs = 0;
	size_t len = file_build(buf, f, n), la, lb;
	char *a, *b;
	cpu_set_t two;

	CHECK(len > RD_FILL_MIN + RD_BUF, "%zu bytes", len);
	file_cap = RD_CAP;
	b = filler_read(buf, len, false, 255, &lb);
	a = filler_read(buf, len, true, 255, &la);
	for (int i = 0; i < G.mg.nq; i++)
		theirs += G.mg.q[i].w && ((size_t *)G.mg.q[i].w)[-2] != rd_wcap();
	file_cap = 0;
	CHECK(la == lb && !memcmp(a, b, la), "the output with the thread differs (%zu bytes against %zu)", la, lb);
	free(a);
	free(b);
	CHECK(!theirs && G.fill.wins[0] == 0, "%d windows not rd_at's, %" PRIu64 " read by the thread", theirs,
	      G.fill.wins[0]);
	CHECK(G.fill.chunks[0] > 0 || !rd_fill_cpus(&two), "the thread read no chunk (%" PRIu64 " read by the reader)",
	      G.fill.chunks[1]);
}

/* file_mem of buf's len bytes, a perf file of two CPUs whose data says it
 * ends at end, with a fresh state. */
static bool filler_open(const uint8_t *buf, size_t len, uint64_t end)
{
	g_reset();
	return merge_setup_std(true) && file_mem(buf, len, end, len, 2, RD_CAP);
}

/* Wait, up to 10 s, for rd_filler's thread to have read n bytes of the
 * buffer (chunk) or window 0 (!chunk). */
static bool filler_until(bool chunk, size_t n)
{
	for (int i = 0; i < 10000; i++) {
		bool done;

		pthread_mutex_lock(&G.fill.mu);
		done = chunk ? G.fill.len >= n : G.fill.win[0].st == FW_READ;
		pthread_mutex_unlock(&G.fill.mu);
		if (done)
			return true;
		usleep(1000);
	}
	return false;
}

/* A checkpoint's copy of the model's tasks (rd_ckpt): the bytes of the
 * table, on huge pages where it is 2 MiB or more, counted in the
 * checkpoints' memory as the huge pages it takes; a small one as it is. */
static void t_ckpt_copy(void)
{
	static const int ntask[2] = { 5000, 100 };
	size_t tb, cb = 2 * sizeof(struct cpu);

	for (int k = 0; k < 2; k++) {
		tb = ntask[k] * sizeof(struct task);
		G.m.ntask = ntask[k];
		G.m.ncpu = 2;
		G.m.task = xcalloc_huge(tb);
		G.m.cpu = xcalloc(2, sizeof(struct cpu));
		for (size_t i = 0; i < tb; i++)
			((uint8_t *)G.m.task)[i] = i * 7 + k;
		rd_ckpt(4096, 4096, 0);
		CHECK(G.rd.nck == 1 && !memcmp(G.rd.ck[0].task, G.m.task, tb), "%d tasks: %d checkpoints, copy %s",
		      ntask[k], G.rd.nck, G.rd.nck ? "differs" : "absent");
		CHECK(mem_copy_size(tb + 1) == (k ? tb + 1 : 4u << 20) &&
		      G.rd.ck_mem == mem_copy_size(tb + 1) + cb + sizeof(uint64_t),
		      "%d tasks: %zu bytes of copy take %zu, checkpoints' memory %zu", ntask[k], tb, mem_copy_size(tb + 1),
		      (size_t)G.rd.ck_mem);
		g_reset();
	}
}

/*
 * rd_filler, the thread that reads a replay's file ahead.  Started on a
 * perf file's buffer (5 MB of five rounds) after its first chunk and left
 * alone, it reads the chunks that fit (RD_CAP / RD_BUF), the file's
 * bytes; the replay then
 * gives what a stream's (no thread, perf's order: merge_file_keep) gives,
 * and ends with every byte read and the thread ended.  A window read here
 * asks it for the next; left alone it reads that, and the window after a
 * record cut at the first one's end is the file's bytes from that record
 * on, the thread's.  Two rounds of runs of up to 2.4 MB (the first read
 * again through the queues' windows) give what a stream's gives, however
 * the two sides meet.  A file that ends 1 MiB before its data says (it
 * shrank) ends as read alone: -1, eof, every byte there read, its note
 * saying how far before.  With one CPU to run on, no thread.
 */
static void t_rd_filler(void)
{
	static struct frec f[45008];
	static uint8_t buf[6 << 20];
	enum { FIT = RD_CAP / RD_BUF };
	uint32_t x = 4242;
	size_t len = file_build(buf, f, runs_build(f, 45000, 2, 5, 9000, &x)), la, lb, avail, o;
	char *a, *b = filler_read(buf, len, false, 2, &lb);
	const uint8_t *p;
	cpu_set_t all, one;
	struct mq *q;
	int ret, efd;
	char note[256];

	file_cap = RD_CAP;
	CHECK(len >= RD_FILL_MIN && filler_open(buf, len, len) && rd_run(0) == 1 && G.rc.len == RD_BUF && !G.rc.filled,
	      "%zu bytes, %zu read up to the first record", len, G.rc.len);
	rd_filler_start();	/* (rd_refill would, at the next) */
	CHECK(G.rc.filled == 1 && filler_until(true, FIT * RD_BUF), "the thread read %zu bytes", G.fill.len);
	CHECK(G.fill.chunks[0] == FIT - 1 && !memcmp(G.rc.buf, buf, FIT * RD_BUF), "the thread's %" PRIu64 " chunks",
	      G.fill.chunks[0]);
	ret = rd_run(UINT64_MAX);
	close(G.rc.fd);
	ms_sync();
	CHECK(ret == 0 && ms_len == lb && !memcmp(ms_buf, b, lb), "rd_run %d, %zu bytes out, want %zu", ret, ms_len, lb);
	CHECK(G.rc.filled == -1 && G.rc.off + G.rc.len == len && G.rc.pos == G.rc.len, "filled %d, read to %" PRIu64
	      " of %zu", G.rc.filled, G.rc.off + G.rc.len, len);
	free(b);

	CHECK(filler_open(buf, len, len) && rd_run(0) == 1, "open");
	rd_filler_start();
	q = &G.mg.q[0];
	q->wnext = MAX_REC;	/* (as rd_at sets it) */
	CHECK(G.rc.filled == 1 && rd_fill_win(q, 0, 0, len, &avail) && q->woff == 0 && q->wlen == MAX_REC &&
	      G.fill.wins[1] == 1, "the first window: %u bytes at %" PRIu64, q->wlen, q->woff);
	CHECK(filler_until(false, 0) && G.fill.win[0].off == MAX_REC, "the window after");
	for (o = 0; o + 8 <= q->wlen && o + g16(q->w + o + 6) <= q->wlen; o += g16(q->w + o + 6))
		;
	p = rd_fill_win(q, 0, o, len, &avail);
	CHECK(p && G.fill.wins[0] == 1 && q->woff == o && avail == 2 * MAX_REC - o && !memcmp(p, buf + o, avail),
	      "from %zu: %zu bytes, the thread's %" PRIu64, o, avail, G.fill.wins[0]);
	rd_filler_stop();
	close(G.rc.fd);

	len = file_build(buf, f, runs_build(f, 45000, 2, 2, 20000, &x));
	b = filler_read(buf, len, false, 2, &lb);
	a = filler_read(buf, len, true, 2, &la);
	CHECK(len >= RD_FILL_MIN && la == lb && !memcmp(a, b, la), "%zu bytes: read with the thread, %zu bytes out; "
	      "as a stream, %zu", len, la, lb);
	free(a);
	free(b);

	CHECK(filler_open(buf, len, len + (1 << 20)), "open");
	efd = memfd_create("unit-err", MFD_CLOEXEC);	/* (its note, not on make test's stderr) */
	tc_err.fd = efd;
	ret = rd_run(UINT64_MAX);
	tc_err.fd = 2;
	close(G.rc.fd);
	CHECK(ret == -1 && G.rc.eof && G.fill.eof && G.rc.off + G.rc.len == len,
	      "cut: rd_run %d, eof %d, read to %" PRIu64 " of %zu", ret, G.rc.eof, G.rc.off + G.rc.len, len);
	memset(note, 0, sizeof(note));
	CHECK(pread(efd, note, sizeof(note) - 1, 0) > 0 && strstr(note, "1048576 bytes before the end of its data"),
	      "cut: the note '%s'", note);
	close(efd);

	CHECK(sched_getaffinity(0, sizeof(all), &all) == 0, "affinity");
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	CHECK(sched_setaffinity(0, sizeof(one), &one) == 0, "one CPU");
	g_reset();
	CHECK(merge_setup_std(true) && file_read(buf, len, true, 2), "read on one CPU");
	CHECK(G.fill.chunks[0] == 0 && G.rc.filled == -1 && !rd_fill_cpus(&one), "one CPU: the thread read %" PRIu64
	      " chunks", G.fill.chunks[0]);
	sched_setaffinity(0, sizeof(all), &all);
	file_cap = 0;
}

/* run_std, the release of a run's head run_next read its short way: the
 * rest of its parse, as rec_info gives it; a head whose raw size no
 * longer fits it (the file changed under the reader) is parsed again and
 * left out, counted, not read past its end. */
static void t_run_std_changed(void)
{
	const struct sw s = { .prev_comm = "p", .next_comm = "n", .prev_pid = 7, .next_pid = 0,
			      .prev_prio = 120, .next_prio = 120 };
	uint8_t raw[128], rec[256];
	struct smp sm = { .id = 1, .time = 500, .pid = 7, .tid = 7, .cpu = 0, .raw = raw };
	struct qrun r = { .time = 500, .at = 0 };
	struct rinfo want;
	size_t n;

	g_reset();
	CHECK(merge_setup_std(true), "setup");
	sm.rawsz = mk_switch_raw(raw, &layouts[0], &s);
	n = mk_sample(rec, SMP_LIVE, &sm);
	CHECK(rec_info(rec, n, &want) == 0 && rec_std(rec, n) == 0, "not a sample rec_std knows");
	CHECK(!run_std(&r, rec, n, false) && r.ri.attr == want.attr && r.ri.has_time == want.has_time &&
	      r.ri.time == want.time && r.ri.cpu == want.cpu && r.ri.pid == want.pid && r.ri.tid == want.tid &&
	      r.ri.raw == want.raw && r.ri.rawsz == want.rawsz && r.ri.body_end == want.body_end,
	      "the parse differs from rec_info's");
	put_n(rec + G.ev.attr[0].pos_raw, 60000, 4);	/* its raw size, changed */
	CHECK(run_std(&r, rec, n, false) && G.bad.corrupt == 1, "a changed head: corrupt %" PRIu64, G.bad.corrupt);
}

/* ---------------------------------------------------------------- decoding */

/* perf record's tracepoint sample: IP|TID|TIME|CPU|PERIOD|RAW. */
static void t_rec_info_perf_sample(void)
{
	const struct sw s = { .prev_comm = "bash", .next_comm = "swapper/3", .prev_pid = 321,
			      .next_pid = 0, .prev_prio = 120, .next_prio = 120,
			      .prev_state = 1, .common_pid = 321 };
	uint8_t raw[128], rec[256];
	struct smp sm = { .ip = 0xffffffff81000000ull, .time = 123456789, .pid = 321,
			  .tid = 322, .cpu = 3, .period = 1, .raw = raw };
	struct rinfo ri;
	struct ev e;
	size_t n;

	CHECK(fmt_add("sched", FMT_MODERN, strlen(FMT_MODERN)), "fmt_add");
	set_attr(0, SMP_PERF, 372);
	idmap_build();
	sm.rawsz = mk_switch_raw(raw, &layouts[0], &s);
	n = mk_sample(rec, SMP_PERF, &sm);
	CHECK(n == 8 + 40 + 4 + 68, "record of %zu bytes", n);
	CHECK(rec_info(rec, n, &ri) == 0, "rec_info");
	CHECK(ri.attr == 0 && ri.has_time && ri.time == 123456789 && ri.cpu == 3 &&
	      ri.pid == 321 && ri.tid == 322, "attr %d time %" PRIu64 " cpu %d pid %d tid %d",
	      ri.attr, ri.time, ri.cpu, ri.pid, ri.tid);
	CHECK(ri.raw == rec + 52 && ri.rawsz == 68, "raw at %td, %u bytes", ri.raw - rec, ri.rawsz);
	CHECK(ev_decode(rec, &ri, &e) == 1, "ev_decode");
	CHECK(e.kind == EV_SWITCH && e.a == 321 && e.b == 0 && e.v == 1 &&
	      !strcmp(e.comm, "bash") && !strcmp(e.comm2, "swapper/3") && e.cpu == 3 &&
	      e.time == 123456789 && e.tid == 322,
	      "kind %d a %d b %d v %" PRId64 " '%s' '%s'", e.kind, e.a, e.b, e.v, e.comm, e.comm2);

	/* every truncation, exactly allocated: -1, never a read past it */
	for (size_t m = 8; m < n; m++) {
		uint8_t *p = tmalloc(m);
		int r;

		memcpy(p, rec, m);
		put_n(p + 6, m, 2);
		r = rec_info(p, m, &ri);
		CHECK(r == -1, "cut to %zu of %zu bytes: rec_info returned %d", m, n, r);
	}
	/* a raw size beyond the record */
	put_n(rec + 48, 0xffffffffu, 4);
	CHECK(rec_info(rec, n, &ri) == -1, "raw size 4294967295 accepted");
	put_n(rec + 48, 69, 4);
	CHECK(rec_info(rec, n, &ri) == -1, "raw size one past the record accepted");
}

/* Raw data shorter than the format: absent fields get their defaults. */
static void t_ev_decode_short_raw(void)
{
	const struct sw s = { .prev_comm = "prev", .next_comm = "next", .prev_pid = 11,
			      .next_pid = 22, .prev_prio = 1, .next_prio = 2,
			      .prev_state = 2, .flags = 8 };
	uint8_t raw[128], rec[256];

	CHECK(fmt_add("sched", FMT_MODERN, strlen(FMT_MODERN)), "fmt_add");
	set_attr(0, SMP_LIVE, 372);
	idmap_build();
	mk_switch_raw(raw, &layouts[0], &s);
	for (uint32_t rs = 0; rs <= 64; rs++) {
		struct smp sm = { .id = 1, .time = 5, .pid = 1, .tid = 1, .cpu = 0,
				  .raw = raw, .rawsz = rs, .nopad = true };
		size_t n = mk_sample(rec, SMP_LIVE, &sm);
		uint8_t *p = tmalloc(n);
		struct rinfo ri;
		struct ev e;

		memcpy(p, rec, n);
		CHECK(rec_info(p, n, &ri) == 0 && ri.rawsz == rs, "rawsz %u: rec_info", rs);
		CHECK(ev_decode(p, &ri, &e) == 1 && e.kind == EV_SWITCH, "rawsz %u: ev_decode", rs);
		CHECK(e.a == (rs >= 28 ? 11 : -1) && e.b == (rs >= 60 ? 22 : -1) &&
		      e.v == (rs >= 40 ? 2 : 0) && e.flags == (rs >= 3 ? 8u : 0u) &&
		      !strcmp(e.comm, rs >= 24 ? "prev" : "") &&
		      !strcmp(e.comm2, rs >= 56 ? "next" : ""),
		      "rawsz %u: a %d b %d v %" PRId64 " flags %u '%s' '%s'", rs, e.a, e.b, e.v,
		      e.flags, e.comm, e.comm2);
	}
}

/* A COMM record with the sample_id_all trailer, and every truncation. */
static void t_rec_info_comm(void)
{
	struct smp s = { .time = 99999, .pid = 500, .tid = 501, .cpu = 2 };
	uint8_t rec[128];
	struct rinfo ri;
	struct ev e;
	size_t n;

	set_attr(0, SMP_PERF, 0);
	idmap_build();
	n = mk_comm(rec, SMP_PERF, 500, 501, "bash", true, &s);
	CHECK(n == 48, "COMM of %zu bytes", n);
	CHECK(rec_info(rec, n, &ri) == 0, "rec_info");
	CHECK(ri.has_time && ri.time == 99999 && ri.cpu == 2 && ri.pid == 500 && ri.tid == 501 &&
	      ri.body_end == 24, "time %" PRIu64 " cpu %d pid %d tid %d body_end %zu",
	      ri.time, ri.cpu, ri.pid, ri.tid, ri.body_end);
	CHECK(ev_decode(rec, &ri, &e) == 1, "ev_decode");
	CHECK(e.kind == EV_COMM && e.a == 500 && e.b == 501 && e.v == 1 &&
	      !strcmp(e.comm, "bash") && e.time == 99999,
	      "kind %d a %d b %d v %" PRId64 " comm '%s'", e.kind, e.a, e.b, e.v, e.comm);

	/* a long name is cut to 15 bytes */
	n = mk_comm(rec, SMP_PERF, 500, 501, "a-name-much-longer-than-16", false, &s);
	CHECK(rec_info(rec, n, &ri) == 0 && ev_decode(rec, &ri, &e) == 1, "long comm");
	CHECK(!strcmp(e.comm, "a-name-much-lon") && e.v == 0, "long comm '%s'", e.comm);

	/* every truncation: the trailer is taken from the end, never beyond */
	n = mk_comm(rec, SMP_PERF, 500, 501, "bash", true, &s);
	for (size_t m = 8; m <= n; m++) {
		uint8_t *p = tmalloc(m);
		int r, d;

		memcpy(p, rec, m);
		put_n(p + 6, m, 2);
		r = rec_info(p, m, &ri);
		CHECK(r == (m < 32 ? -1 : 0), "cut to %zu: rec_info %d", m, r);
		if (r < 0)
			continue;
		CHECK(ri.body_end == m - 24, "cut to %zu: body_end %zu", m, ri.body_end);
		d = ev_decode(p, &ri, &e);
		CHECK(d == (m - 24 >= 16), "cut to %zu: ev_decode %d", m, d);
		CHECK(!d || strlen(e.comm) <= m - 24 - 16, "cut to %zu: comm '%s' read past the body",
		      m, e.comm);
	}
}

/* FORK, EXIT, LOST and LOST_SAMPLES records. */
static void t_ev_decode_side_band(void)
{
	struct smp s = { .time = 777, .pid = 10, .tid = 11, .cpu = 1 };
	uint8_t rec[128], *p;
	struct rinfo ri;
	struct ev e;
	size_t n;

	set_attr(0, SMP_LIVE, 0);
	idmap_build();
	/* FORK: pid ppid tid ptid time */
	p = rec + 8;
	put_n(p, 20, 4);
	put_n(p + 4, 10, 4);
	put_n(p + 8, 21, 4);
	put_n(p + 12, 11, 4);
	put_n(p + 16, 776, 8);
	p = put_trailer(p + 24, SMP_LIVE, &s);
	n = p - rec;
	put_hdr(rec, PERF_RECORD_FORK, 0, n);
	CHECK(rec_info(rec, n, &ri) == 0 && ev_decode(rec, &ri, &e) == 1, "fork");
	CHECK(e.kind == EV_FORK && e.a == 20 && e.b == 10 && e.c == 21 && e.v == 11 &&
	      e.time == 777 && e.cpu == 1, "fork: %d %d %d %" PRId64 " time %" PRIu64,
	      e.a, e.b, e.c, e.v, e.time);
	put_hdr(rec, PERF_RECORD_EXIT, 0, n);
	CHECK(rec_info(rec, n, &ri) == 0 && ev_decode(rec, &ri, &e) == 1 && e.kind == EV_EXIT,
	      "exit");
	/* LOST: id, lost */
	p = rec + 8;
	put_n(p, 1, 8);
	put_n(p + 8, 12345, 8);
	p = put_trailer(p + 16, SMP_LIVE, &s);
	n = p - rec;
	put_hdr(rec, PERF_RECORD_LOST, 0, n);
	CHECK(rec_info(rec, n, &ri) == 0 && ev_decode(rec, &ri, &e) == 1, "lost");
	CHECK(e.kind == EV_LOST && e.v == 12345 && e.time == 777, "lost: v %" PRId64, e.v);
	/* LOST_SAMPLES: lost */
	p = rec + 8;
	put_n(p, 54321, 8);
	p = put_trailer(p + 8, SMP_LIVE, &s);
	n = p - rec;
	put_hdr(rec, PERF_RECORD_LOST_SAMPLES, 0, n);
	CHECK(rec_info(rec, n, &ri) == 0 && ev_decode(rec, &ri, &e) == 1, "lost samples");
	CHECK(e.kind == EV_LOST && e.v == 54321, "lost samples: v %" PRId64, e.v);
	/* cut bodies decode to nothing */
	put_hdr(rec, PERF_RECORD_FORK, 0, 8 + 32);
	n = put_trailer(rec + 8, SMP_LIVE, &s) - rec;
	CHECK(rec_info(rec, n, &ri) == 0 && ev_decode(rec, &ri, &e) == 0,
	      "a FORK without body decoded");
}

/* The ids of three attrs on 64 CPUs (numbered in order, as the kernel
 * does) and a fourth attr's, which take the first one's cache slots
 * (idmap_cap apart): each of them, again and again in turns, finds its own
 * attr (rec_attr's cache has a slot for each id in order, and tells ids
 * that share one apart). */
static void t_rec_attr_id_cache(void)
{
	static uint64_t ids[4][64];
	uint8_t raw[8] = { 0 }, rec[256];
	struct rinfo ri;
	int found = 0;

	for (int a = 0; a < 4; a++) {
		for (int c = 0; c < 64; c++)
			ids[a][c] = a < 3 ? 5000 + 64 * a + c : 5000 + 512 + c;
		set_attr(a, SMP_PERF | PERF_SAMPLE_ID, 0);
		G.ev.attr[a].ids = ids[a];
		G.ev.attr[a].nids = 64;
	}
	idmap_build();
	CHECK(G.ev.idmap_cap == 512, "idmap_cap %zu", G.ev.idmap_cap);
	for (int round = 0; round < 3; round++)
		for (int c = 0; c < 64; c++)
			for (int a = 0; a < 4; a++) {
				struct smp s = { .id = ids[a][c], .time = 5, .pid = 1, .tid = 1, .cpu = c,
						 .raw = raw, .rawsz = 8 };
				size_t n = mk_sample(rec, SMP_PERF | PERF_SAMPLE_ID, &s);

				CHECK(rec_info(rec, n, &ri) == 0 && ri.attr == a, "round %d id %" PRIu64 ": attr %d, want %d",
				      round, ids[a][c], ri.attr, a);
				found++;
			}
	CHECK(found == 3 * 64 * 4, "found %d", found);
}

/* Several attrs: the id finds the attr, with and without IDENTIFIER. */
static void t_rec_attr_ids(void)
{
	static uint64_t ids0[] = { 101, 102 }, ids1[] = { 201, 202 };
	const uint64_t sts[] = {
		PERF_SAMPLE_IDENTIFIER | SMP_PERF | PERF_SAMPLE_ID,
		SMP_PERF | PERF_SAMPLE_ID,
	};
	uint8_t raw[8] = { 0 }, rec[256];
	struct rinfo ri;
	size_t n;

	for (size_t k = 0; k < 2; k++) {
		struct smp s = { .time = 5, .pid = 1, .tid = 1, .cpu = 1, .raw = raw, .rawsz = 8 };

		G.ev.nattr = 0;
		set_attr(0, sts[k], 0);
		set_attr(1, sts[k], 0);
		G.ev.attr[0].ids = ids0;
		G.ev.attr[0].nids = 2;
		G.ev.attr[1].ids = ids1;
		G.ev.attr[1].nids = 2;
		idmap_build();
		CHECK(idmap_find(102) == 0 && idmap_find(201) == 1 && idmap_find(7) == -1,
		      "idmap_find");
		s.id = 202;
		n = mk_sample(rec, sts[k], &s);
		CHECK(rec_info(rec, n, &ri) == 0 && ri.attr == 1 && ri.time == 5 && ri.cpu == 1,
		      "st %zu: sample of id 202: attr %d", k, ri.attr);
		s.id = 101;
		n = mk_comm(rec, sts[k], 1, 1, "x", false, &s);
		CHECK(rec_info(rec, n, &ri) == 0 && ri.attr == 0 && ri.time == 5 && ri.cpu == 1,
		      "st %zu: comm of id 101: attr %d time %" PRIu64, k, ri.attr, ri.time);
		s.id = 999;
		n = mk_sample(rec, sts[k], &s);
		CHECK(rec_info(rec, n, &ri) == -1, "st %zu: unknown id accepted", k);
		/* side-band records perf synthesizes carry no known id: the
		 * first attr's layout reads them */
		n = mk_comm(rec, sts[k], 1, 1, "x", false, &s);
		CHECK(rec_info(rec, n, &ri) == 0 && ri.attr == 0 && ri.time == 5,
		      "st %zu: unknown id in trailer: attr %d", k, ri.attr);
	}
}

/* ---------------------------------------------------------------- tracing data */

struct blob {
	uint8_t p[8192];
	size_t len;
};

static void b_add(struct blob *b, const void *d, size_t n)
{
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void b_num(struct blob *b, uint64_t v, unsigned size)
{
	put_n(b->p + b->len, v, size);
	b->len += size;
}

/* A TRACING_DATA blob (version 0.6) with sched_switch and
 * sched_process_exec in "sched", cpu_idle in "power"; ends[] gets the
 * offset just after each format text.  Numbers in the other byte order
 * (big-endian on x86-64) if be. */
static void mk_td(struct blob *b, bool be, size_t ends[3])
{
	static const char hp[] = "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n";
	static const char he[] = "# compressed entry header\n\ttype_len    :    5 bits\n";
	const char *f[3] = { FMT_MODERN, FMT_EXEC, FMT_IDLE };

	put_swap = be;
	b->len = 0;
	b_add(b, "\x17\x08\x44tracing0.6", 14);
	b_num(b, be != HOST_BE, 1);
	b_num(b, 8, 1);
	b_num(b, 4096, 4);
	b_add(b, "header_page", 12);
	b_num(b, strlen(hp), 8);
	b_add(b, hp, strlen(hp));
	b_add(b, "header_event", 13);
	b_num(b, strlen(he), 8);
	b_add(b, he, strlen(he));
	b_num(b, 0, 4);		/* ftrace formats */
	b_num(b, 2, 4);		/* systems */
	b_add(b, "sched", 6);
	b_num(b, 2, 4);
	for (int i = 0; i < 3; i++) {
		if (i == 2) {
			b_add(b, "power", 6);
			b_num(b, 1, 4);
		}
		b_num(b, strlen(f[i]), 8);
		b_add(b, f[i], strlen(f[i]));
		ends[i] = b->len;
	}
	b_num(b, 0, 4);		/* kallsyms */
	b_num(b, 0, 4);		/* printk formats */
	b_num(b, 0, 8);		/* saved cmdlines */
	put_swap = false;
}

static void t_td_parse(void)
{
	static struct blob b;
	size_t ends[3];
	int r;

	mk_td(&b, false, ends);
	r = td_parse(b.p, b.len);
	CHECK(r == 3, "td_parse returned %d, want 3", r);
	CHECK(G.ev.nfmt == 3, "nfmt %d", G.ev.nfmt);
	CHECK(!strcmp(G.ev.fmt[0].sys, "sched") && !strcmp(G.ev.fmt[0].name, "sched_switch") &&
	      G.ev.fmt[0].id == 372, "format 0: %s:%s %u", G.ev.fmt[0].sys, G.ev.fmt[0].name, G.ev.fmt[0].id);
	CHECK(!strcmp(G.ev.fmt[1].sys, "sched") && !strcmp(G.ev.fmt[1].name, "sched_process_exec") &&
	      G.ev.fmt[1].id == 365, "format 1: %s:%s %u", G.ev.fmt[1].sys, G.ev.fmt[1].name, G.ev.fmt[1].id);
	CHECK(!strcmp(G.ev.fmt[2].sys, "power") && !strcmp(G.ev.fmt[2].name, "cpu_idle") &&
	      G.ev.fmt[2].id == 568, "format 2: %s:%s %u", G.ev.fmt[2].sys, G.ev.fmt[2].name, G.ev.fmt[2].id);
	CHECK(!*check_switch_fmt(&G.ev.fmt[0], &layouts[0]), "%s", check_switch_fmt(&G.ev.fmt[0], &layouts[0]));
	CHECK(fmt_text[0].len == strlen(FMT_MODERN) &&
	      !memcmp(fmt_text[0].text, FMT_MODERN, fmt_text[0].len), "format text not kept");
	CHECK(!G.ev.swap, "G.ev.swap left set");
}

/* Every prefix of the blob: -1 or the formats wholly inside it. */
static void t_td_parse_prefixes(void)
{
	static struct blob b;
	size_t ends[3];

	mk_td(&b, false, ends);
	for (size_t len = 0; len <= b.len; len++) {
		uint8_t *p = malloc(len ? len : 1);
		int r, want = 0;

		memcpy(p, b.p, len);
		for (int i = 0; i < 3; i++)
			want += ends[i] <= len;
		r = td_parse(p, len);
		free(p);
		CHECK(r == (want ? want : -1), "prefix %zu of %zu: returned %d, want %d", len,
		      b.len, r, want ? want : -1);
		CHECK(G.ev.nfmt == want, "prefix %zu: nfmt %d", len, G.ev.nfmt);
		CHECK(!G.ev.swap, "prefix %zu: G.ev.swap left set", len);
		for (int i = 0; i < G.ev.nfmt; i++)
			mem_free(fmt_text[i].text);
		memset(fmt_text, 0, sizeof(fmt_text));
		G.ev.nfmt = 0;
	}
}

static void t_td_parse_big_endian(void)
{
	static struct blob b;
	size_t ends[3];
	int r;

	mk_td(&b, true, ends);
	r = td_parse(b.p, b.len);
	CHECK(r == 3 && G.ev.nfmt == 3, "td_parse returned %d", r);
	CHECK(G.ev.fmt[0].id == 372 && G.ev.fmt[2].id == 568, "ids %u %u", G.ev.fmt[0].id, G.ev.fmt[2].id);
	CHECK(!G.ev.swap, "G.ev.swap left set after a big-endian blob");
}

/* Counts and sizes that lie: no crash, no endless loop, nothing made up. */
static void t_td_parse_bad_counts(void)
{
	static struct blob b, c;
	size_t ends[3], o;
	int r;

	mk_td(&b, false, ends);
	/* the header_page size */
	c = b;
	o = 14 + 6 + 12;
	put_n(c.p + o, UINT64_MAX, 8);
	CHECK(td_parse(c.p, c.len) == -1 && G.ev.nfmt == 0, "header_page size 2^64-1");
	put_n(c.p + o, UINT64_MAX - 20, 8);
	CHECK(td_parse(c.p, c.len) == -1 && G.ev.nfmt == 0, "header_page size 2^64-21");
	/* the ftrace count */
	c = b;
	o = ends[0] - strlen(FMT_MODERN) - 8 - 4 - 6 - 4 - 4;
	put_n(c.p + o, 0xffffffffu, 4);
	CHECK(td_parse(c.p, c.len) == -1 && G.ev.nfmt == 0, "ftrace count 2^32-1");
	/* the system count: 2^32-1 systems after the real two */
	c = b;
	put_n(c.p + o + 4, 0xffffffffu, 4);
	r = td_parse(c.p, c.len);
	CHECK(r == 3 && G.ev.nfmt == 3, "system count 2^32-1: returned %d", r);
	for (int i = 0; i < G.ev.nfmt; i++)
		mem_free(fmt_text[i].text);
	memset(fmt_text, 0, sizeof(fmt_text));
	G.ev.nfmt = 0;
	/* the format count of power */
	c = b;
	put_n(c.p + ends[1] + 6, 0xffffffffu, 4);
	r = td_parse(c.p, c.len);
	CHECK(r == 3, "format count 2^32-1: returned %d", r);
	for (int i = 0; i < G.ev.nfmt; i++)
		mem_free(fmt_text[i].text);
	memset(fmt_text, 0, sizeof(fmt_text));
	G.ev.nfmt = 0;
	/* a format size of 2^64-1 */
	c = b;
	put_n(c.p + ends[0], UINT64_MAX, 8);
	r = td_parse(c.p, c.len);
	CHECK(r == 1, "format size 2^64-1: returned %d", r);
	/* bad magic */
	c = b;
	c.p[3] = 'T';
	CHECK(td_parse(c.p, c.len) == -1, "bad magic accepted");
}

/* ---------------------------------------------------------------- CPU lists */

static bool set_is(const bool *set, int n, const char *want)
{
	for (int i = 0; i < n; i++)
		if (set[i] != (want[i] == '1'))
			return false;
	return true;
}

static void t_cpulist(void)
{
	bool *set = tmalloc(8 * sizeof(bool));
	static const char *const bad[] = { "a", "3-1", "-1", "0-", "1,,2", "0-3x", "1 2", "," };

	memset(set, 0, 8);
	CHECK(parse_cpulist("0-3,6", set, 8) && set_is(set, 8, "11110010"), "0-3,6");
	memset(set, 0, 8);
	CHECK(parse_cpulist("0-3,6\n", set, 8) && set_is(set, 8, "11110010"), "0-3,6 newline");
	memset(set, 0, 8);
	CHECK(parse_cpulist("0", set, 8) && set_is(set, 8, "10000000"), "0");
	memset(set, 0, 8);
	CHECK(parse_cpulist("", set, 8) && set_is(set, 8, "00000000"), "empty");
	memset(set, 0, 8);
	CHECK(parse_cpulist("5-100,7,4000", set, 8) && set_is(set, 8, "00000111"),
	      "CPUs beyond n");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(!parse_cpulist(bad[i], set, 8), "'%s' accepted", bad[i]);

	CHECK(cpulist_count("0-3,6") == 7, "count 0-3,6: %d", cpulist_count("0-3,6"));
	CHECK(cpulist_count("0") == 1, "count 0");
	CHECK(cpulist_count("0-63\n") == 64, "count 0-63");
	CHECK(cpulist_count("2,0-1") == 3, "count 2,0-1: %d", cpulist_count("2,0-1"));
	CHECK(cpulist_count("") == 0, "count of empty: %d", cpulist_count(""));
	CHECK(cpulist_count("abc") == 0, "count abc");
	CHECK(cpulist_count("0-3x") == 0, "count 0-3x: %d", cpulist_count("0-3x"));
}

/* cpulist_count's contract: 0 for a malformed list, like parse_cpulist's
 * false (pe_cpus then falls back to sysconf). */
static void t_cpulist_count_malformed(void)
{
	static const char *const bad[] = { "0-", "3-1", "1 2", "0--3", "-1", "x", "0,,1" };
	char msg[256] = "";
	size_t len = 0;
	bool set[8];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int n = cpulist_count(bad[i]);

		CHECK(!parse_cpulist(bad[i], set, 8), "parse_cpulist accepts '%s'", bad[i]);
		if (n && len < sizeof(msg))
			len += snprintf(msg + len, sizeof(msg) - len, " \"%s\"->%d", bad[i], n);
	}
	CHECK(!msg[0], "malformed lists not counted as 0:%s", msg);
}

/* ---------------------------------------------------------------- tc's libc parts, against the C library */

#if defined(__GNUC__) && !defined(__clang__)	/* cut on purpose, to 5 bytes */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-truncation"
#pragma GCC diagnostic ignored "-Wformat-overflow"
#endif

/* One format with the same arguments through sfmt and snprintf. */
#define FMT_EQ(...) do {							\
	char a_[256], b_[256];						\
	int la_ = sfmt(a_, sizeof(a_), __VA_ARGS__);			\
	int lb_ = snprintf(b_, sizeof(b_), __VA_ARGS__);		\
	CHECK(la_ == lb_ && !strcmp(a_, b_), "format %s: '%s' (%d), libc '%s' (%d)", #__VA_ARGS__, a_, la_, b_, lb_); \
	la_ = sfmt(a_, 5, __VA_ARGS__);				\
	lb_ = snprintf(b_, 5, __VA_ARGS__);				\
	CHECK(la_ == lb_ && !strcmp(a_, b_), "cut to 5: %s: '%s', libc '%s'", #__VA_ARGS__, a_, b_); \
} while (0)

static void t_fmt_libc(void)
{
	static const int ints[] = { 0, 1, -1, 42, -42, 99999, INT_MAX, INT_MIN };
	static const double dbl[] = { 0, 0.05, 0.125, 0.5, 1, 1.25, 2.5, 3.14159, 9.9996, 12.345, 99.95,
				      123.456, 999.4, 999.96, 1234.5, 333333.333, 1e6, 12345678.9, 0.0004,
				      0.00012345, 0.001, 7e-7, 1e9, 123456789.987654 };
	char s[] = "abcdefgh", ten[16];

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		int v = ints[i];

		FMT_EQ("%d|%5d|%-5d|%05d|% d|%+d|%i", v, v, v, v, v, v, v);
		FMT_EQ("%u|%x|%X|%o|%02x|%03o|%06u|%.3d|%.0d|", v, v, v, v, v, v, v, v, v);
		FMT_EQ("%hhd|%hd|%hu|%ld|%lu|%7d|%-7d|%-4d", (signed char)v, (short)v, (unsigned short)v,
		       (long)v, (unsigned long)v, v, v, v);
		FMT_EQ("%*d|%-*d|%.*d", 6, v, -6, v, 3, v);
	}
	FMT_EQ("%lld|%llu|%" PRId64 "|%" PRIu64 "|%" PRIx64 "|%zu|%jd", LLONG_MIN, ULLONG_MAX, INT64_MIN,
	       UINT64_MAX, UINT64_MAX, SIZE_MAX, INTMAX_MIN);
	FMT_EQ("%zd|%td|%ju", (ssize_t)-5, (ptrdiff_t)-7, (uintmax_t)8);
	for (size_t i = 0; i < sizeof(dbl) / sizeof(dbl[0]); i++) {
		double v = dbl[i];

		FMT_EQ("%.3f|%.1f|%.2f|%f|%.0f|%8.2f|%-8.1f|%08.3f|%+.1f", v, v, v, v, v, v, v, v, v);
		FMT_EQ("%.3g|%g|%.1g|%.6g|%10.3g|%-10.4g|%.15g", v, v, v, v, v, v, v);
		FMT_EQ("%.3f|%.3g|%g", -v, -v, -v);
	}
	FMT_EQ("%s|%10s|%-10s|%.3s|%.*s|%-*.*s|%16s|%.0s", s, s, s, s, 2, s, 6, 2, s, s, s);
	FMT_EQ("%c%c|%3c|%-3c|%%|100%%", 'x', '!', 'y', 'z');
	FMT_EQ("no conversions at all");
	for (int i = 0; i < 3; i++) {	/* the kernel's print formats use '#' */
		unsigned v = i == 0 ? 0 : i == 1 ? 31 : 0xdeadbeef;

		FMT_EQ("%#x|%#X|%#o|%#lx|%#016llx|%#10x|%-#8x|%#.3o|%#.0x", v, v, v, (unsigned long)v,
		       (unsigned long long)v, v, v, v, v);
	}
	FMT_EQ("%s", "");
	{	/* widths from a file: bounded, no overflow, the length says so */
		char b[16];
		int l = sfmt(b, sizeof(b), "%99999999999999d|%.99999999999999d", 5, 6);

		CHECK(l == 2 * (1 << 20) + 1 && !strcmp(b, "               "), "huge widths: %d '%s'", l, b);
	}
	memset(ten, 'q', sizeof(ten));	/* no NUL within the precision: never read past it */
	FMT_EQ("%.10s|", ten);
	{
		struct out o = { .fd = memfd_create("fmt", MFD_CLOEXEC), .cap = 7, .b = ten };
		char got[64] = "";

		ofmt(&o, "%s=%d;", "abcdefghij", -12);	/* more than the buffer: written in parts */
		oputs("xy", &o);
		oputc('\n', &o);
		out_flush(&o);
		CHECK(pread(o.fd, got, sizeof(got) - 1, 0) == 18 && !strcmp(got, "abcdefghij=-12;xy\n"), "out wrote '%s'", got);
		close(o.fd);
		o = (struct out){ .fd = -1, .unbuf = true, .cap = 7, .b = ten };	/* stderr: a failed write */
		ofmt(&o, "lost");
		o.fd = memfd_create("err", MFD_CLOEXEC);
		oputs("kept", &o);				/* is not the end of it */
		CHECK(o.err == EBADF && pread(o.fd, got, sizeof(got) - 1, 0) == 4 && !memcmp(got, "kept", 4),
		      "stderr after a failed write: err %d, '%.4s'", o.err, got);
		close(o.fd);
		CHECK(read_small("/nonexistent", got, sizeof(got)) < 0 && !got[0], "read_small of nothing: '%s'", got);
	}
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static void t_num_libc(void)
{
	static const char *const u[] = { "0", "7", "123", "  42", "\t9x", "18446744073709551615",
					 "18446744073709551616", "99999999999999999999999", "12abc", "abc", "",
					 " ", "0x1f", "0X1fz", "017", "09", "0x", "0xg", "00", "4294967296" };
	static const char *const i[] = { "-5", "  -12x", "9223372036854775807", "9223372036854775808",
					 "-9223372036854775808", "-9223372036854775809", "-", "- 1", "-x", "31" };

	for (size_t k = 0; k < sizeof(u) / sizeof(u[0]); k++)
		for (int base = 0; base <= 10; base += 10) {
			char *e1, *e2;
			uint64_t a = num_u(u[k], &e1, base);
			unsigned long long b = strtoull(u[k], &e2, base);

			CHECK(a == b && e1 == e2, "num_u('%s', %d) = %" PRIu64 " +%d, strtoull %llu +%d", u[k], base, a,
			      (int)(e1 - u[k]), b, (int)(e2 - u[k]));
		}
	for (size_t k = 0; k < sizeof(i) / sizeof(i[0]); k++) {
		char *e1, *e2;
		int64_t a = num_i(i[k], &e1);
		long long b = strtoll(i[k], &e2, 10);

		CHECK((a == b && e1 == e2) || !strcmp(i[k], "- 1"), "num_i('%s') = %" PRId64 " +%d, strtoll %lld +%d",
		      i[k], a, (int)(e1 - i[k]), b, (int)(e2 - i[k]));
	}
	{
		char *e;

		CHECK(num_u("-5", &e, 10) == 0 && !strcmp(e, "-5"), "a sign is not a number");
	}
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Elements of 12 bytes (sort_swap's 8 at a time and the rest), ordered by
 * all three words. */
static int cmp_3u32(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;

	for (int w = 0; w < 3; w++)
		if (x[w] != y[w])
			return x[w] < y[w] ? -1 : 1;
	return 0;
}

static void t_str_sort_libc(void)
{
	static const char *const h[] = { "", "a", "abc", "aab", "xabcabd", "ttracefs", "nodev\ttracefs\n",
					 "en_US.UTF-8", "C.utf8", "xterm-256color" };
	static const char *const n[] = { "", "a", "ab", "abd", "b", "\ttracefs\n", "utf-8", "UTF8", "256", "zz" };
	uint32_t x[1000], y[1000], seed = 1;

	for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++)
		for (size_t j = 0; j < sizeof(n) / sizeof(n[0]); j++) {
			CHECK(str_find(h[i], n[j], false) == strstr(h[i], n[j]), "str_find('%s', '%s')", h[i], n[j]);
			CHECK(str_find(h[i], n[j], true) == strcasestr(h[i], n[j]), "str_find('%s', '%s', fold)",
			      h[i], n[j]);
		}
	for (size_t len = 0; len <= 1000; len += len < 10 ? 1 : 331) {
		for (size_t i = 0; i < len; i++)
			x[i] = y[i] = (seed = seed * 1103515245 + 12345) >> 16 & (len < 10 ? 3 : 0xffff);
		sort(x, len, sizeof(x[0]), cmp_u32);
		qsort(y, len, sizeof(y[0]), cmp_u32);
		CHECK(!memcmp(x, y, len * sizeof(x[0])), "sort of %zu differs from qsort", len);
	}
	for (size_t n = 0; n <= 333; n += n < 12 ? 1 : 107) {	/* x and y hold 333 of 12 bytes */
		uint32_t (*a)[3] = (uint32_t (*)[3])x, (*b)[3] = (uint32_t (*)[3])y;

		for (size_t i = 0; i < n; i++)
			for (int w = 0; w < 3; w++)
				a[i][w] = b[i][w] = (seed = seed * 1103515245 + 12345) >> (w == 2 ? 0 : 16) &
						    (w == 0 ? 7 : w == 1 ? 3 : 0xffffffff);
		sort(a, n, sizeof(a[0]), cmp_3u32);
		qsort(b, n, sizeof(b[0]), cmp_3u32);
		CHECK(!memcmp(a, b, n * sizeof(a[0])), "sort of %zu elements of 12 bytes differs from qsort", n);
	}
}

static void t_utc_stamp(void)
{
	static const int64_t t[] = { 0, 59, 86399, 86400, 951782400, 951868799, 1709164800, 1735689599,
				     4102444800, 4107542400, 253402300799 };

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]) + 50; i++) {
		int64_t v = i < sizeof(t) / sizeof(t[0]) ? t[i] : (int64_t)(i * 2654435761u % 4000000000u) * 7;
		time_t tt = v;
		struct tm tm;
		char a[64], b[64];

		if ((int64_t)tt != v)
			continue;	/* past 2038 where time_t has 32 bits: no gmtime to compare with */
		gmtime_r(&tt, &tm);
		utc_stamp(a, sizeof(a), v);
		snprintf(b, sizeof(b), "tc-%04d%02d%02d-%02d%02d%02dZ.data", tm.tm_year + 1900, tm.tm_mon + 1,
			 tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
		CHECK(!strcmp(a, b), "%" PRId64 ": %s, gmtime %s", v, a, b);
	}
}

/* Block p of n bytes (mem_alloc's, xcalloc_huge's): 16-byte aligned and
 * zeroed; filled with 0xa5, and a write just past its 16-byte rounded end
 * faults (in a child). */
static void mem_check_block(unsigned char *p, size_t n)
{
	size_t end = (n + 15) & ~(size_t)15, nz = 0;
	int st;
	pid_t pid;

	CHECK(p && !((uintptr_t)p & 15), "a block of %zu bytes at %p", n, (void *)p);
	for (size_t j = 0; j < end; j++)
		nz += p[j] != 0;
	CHECK(!nz, "%zu bytes of %zu not zero", nz, n);
	memset(p, 0xa5, end);
	if ((pid = fork()) == 0) {
		signal(SIGSEGV, SIG_DFL);
		p[end] = 1;
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	      "a write past %zu bytes did not fault (status %x)", n, st);
}

/* An empty pool for a test of its own (the tests before filled it with
 * blocks given back out of order); the pool as it was is returned for
 * pool_back. */
static struct mem_pool pool_fresh(void)
{
	struct mem_pool was = pool;

	pool = (struct mem_pool){ 0 };
	return was;
}

/* Drop the pool of pool_fresh and put back the one it returned. */
static void pool_back(struct mem_pool was)
{
	if (pool.base)
		munmap(pool.base, HUGE_PAGE + getpagesize());
	pool = was;
}

/* Is block p of n bytes all zeros? */
static bool mem_zero(const unsigned char *p, size_t n)
{
	while (n && !p[n - 1])
		n--;
	return !n;
}

/* Blocks of their own (mem_block: all of mem_alloc's where !MEM_POOL)
 * are zeroed, keep their bytes through mem_realloc, and a write just past
 * the 16-byte rounded end faults. */
static void t_mem_guard(void)
{
	static const size_t sz[] = { 1, 15, 16, 4080, 4096, 4097, 100000 };

	for (size_t i = 0; i < sizeof(sz) / sizeof(sz[0]) && !why[0]; i++) {
		unsigned char *p = mem_block(sz[i], false), *q;

		mem_check_block(p, sz[i]);
		if (why[0])
			return;
		q = mem_realloc(p, 2 * sz[i]);
		CHECK(q && q[0] == 0xa5 && q[sz[i] - 1] == 0xa5 && !q[2 * sz[i] - 1], "mem_realloc(%zu)", sz[i]);
		mem_free(q);
	}
}

/* xcalloc_huge's blocks are zeroed and guarded as mem_alloc's; FAST, the
 * mapping begins on a HUGE_PAGE boundary, and the huge page that holds
 * the block's first byte is all in it (so that a table's first 2 MiB are
 * one huge page).  (Whether mem_free unmapped it is not asked: under
 * qemu-user msync finds the guest's unmapped pages.) */
static void t_mem_huge(void)
{
	static const size_t sz[] = { 1, 256 << 10, (2 << 20) - 16, 2 << 20, 8 << 20 };
	size_t ps = getpagesize();
	struct mem_pool was = pool_fresh();

	for (size_t i = 0; i < sizeof(sz) / sizeof(sz[0]) && !why[0]; i++) {
		unsigned char *p = xcalloc_huge(sz[i]), *m;
		size_t len = ((size_t *)p)[-1];

		if (sz[i] <= POOL_BLOCK && MEM_POOL) {	/* the pool's (t_mem_pool) */
			CHECK(pool_has(p) && (char *)p > pool.base && (char *)p + sz[i] <= pool.end &&
			      !((uintptr_t)pool.base % HUGE_PAGE),
			      "%zu bytes at %p, the pool at %p", sz[i], (void *)p, (void *)pool.base);
			mem_free(p);
			continue;
		}
		mem_check_block(p, sz[i]);
		if (why[0])
			break;
		m = p + ((sz[i] + 15) & ~(size_t)15) + ps - len;
		CHECK(!FAST || (!((uintptr_t)m % HUGE_PAGE) &&
				((uintptr_t)p & ~(uintptr_t)(HUGE_PAGE - 1)) >= (uintptr_t)m),
		      "%zu bytes at %p: the mapping begins at %p", sz[i], (void *)p, (void *)m);
		CHECK(msync(m, len, MS_ASYNC) == 0, "%zu bytes: the mapping is not whole", sz[i]);
		mem_free(p);
	}
	pool_back(was);
}

/* A struct buf grows by mem_realloc with its bytes in order; past
 * POOL_BLOCK (FAST) on huge pages, its capacity all of them (perf record
 * -F's stretches took a page fault per small page: 660 of 732). */
static void t_buf_grow(void)
{
	struct buf b = { 0 };
	size_t ps = getpagesize();
	uint32_t i;

	for (i = 0; i < (3 << 20) / 4 && !why[0]; i++) {
		buf_u32(&b, i * 2654435761u);
		if (b.len == 4 || b.len + 4 <= b.cap || !FAST || b.cap <= POOL_BLOCK)
			continue;
		size_t len = ((size_t *)b.p)[-1];
		uintptr_t m = (uintptr_t)b.p + b.cap + ps - len;	/* (cap: a multiple of 16) */

		CHECK((b.cap + 16) % HUGE_PAGE == 0 && len == b.cap + 16 + ps && m % HUGE_PAGE == 0,
		      "%zu bytes in %zu: a mapping of %zu at %p", b.len, b.cap, len, (void *)m);
	}
	for (uint32_t k = 0; k < i && !why[0]; k++)
		CHECK(((uint32_t *)b.p)[k] == k * 2654435761u, "word %u of %u", k, i);
	CHECK(!FAST || b.cap == (4 << 20) - 16, "3 MB in a buffer of %zu bytes", b.cap);
	mem_free(b.p);
}

/* The pool (MEM_POOL; else mem_alloc is mem_block, asked only that its
 * blocks are zeroed): blocks cut in order on a HUGE_PAGE boundary, zeroed
 * when given again, the last one grown in place by mem_realloc, another
 * moved; blocks larger than POOL_BLOCK, and those past a full pool, of
 * their own (guarded); a write past the pool's end faults. */
static void t_mem_pool(void)
{
	struct mem_pool was = pool_fresh();
	unsigned char *a = mem_alloc(100), *b = mem_alloc(200), *c, *d, *e;
	int st, n = 0;
	pid_t pid;

	CHECK(a && b && mem_zero(a, 100) && mem_zero(b, 200), "two new blocks zeroed");
	if (why[0] || !MEM_POOL) {
		mem_free(a);
		mem_free(b);
		pool_back(was);
		return;
	}
	CHECK(pool_has(a) && pool_has(b) && (char *)a == pool.base + 16 && !((uintptr_t)pool.base % HUGE_PAGE) &&
	      b == a + 112 + 16,
	      "blocks at %p and %p, the pool at %p", (void *)a, (void *)b, (void *)pool.base);
	memset(a, 0xa5, 100);
	memset(b, 0xa5, 200);
	mem_free(b);
	c = mem_alloc(300);
	CHECK(c == b && mem_zero(c, 300), "the last block given back and taken again: at %p, was %p", (void *)c, (void *)b);
	memset(c, 0x5a, 300);
	d = mem_realloc(c, 5000);
	CHECK(d == c && d[0] == 0x5a && d[299] == 0x5a && mem_zero(d + 300, 4700), "the last block grown in place");
	e = mem_realloc(a, 1000);
	CHECK(e != a && e > d && e[0] == 0xa5 && e[99] == 0xa5 && mem_zero(e + 100, 900), "a block below another moved");
	mem_free(e);
	mem_free(d);
	c = mem_alloc(POOL_BLOCK + 1);
	CHECK(c && !pool_has(c), "a block of %d bytes from the pool", POOL_BLOCK + 1);
	mem_check_block(c, POOL_BLOCK + 1);
	mem_free(c);
	while ((c = mem_alloc(POOL_BLOCK)) && pool_has(c))
		n++;
	CHECK(c && n == (HUGE_PAGE - 128) / (POOL_BLOCK + 16), "%d blocks of %d bytes filled the pool", n, POOL_BLOCK);
	if (!why[0])
		mem_check_block(c, POOL_BLOCK);
	mem_free(c);
	if ((pid = fork()) == 0) {
		signal(SIGSEGV, SIG_DFL);
		pool.end[0] = 1;
		_exit(0);
	}
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) && WTERMSIG(st) == SIGSEGV,
	      "a write past the pool did not fault (status %x)", st);
	pool_back(was);
}

/* A buffered out without a buffer (standard output's where MEM_POOL)
 * takes one of OUT_BUF bytes at its first write, from the pool, and
 * writes what it is given, in order, through it. */
static void t_out_first_write(void)
{
	struct mem_pool was = pool_fresh();
	struct out o = { .fd = memfd_create("out", MFD_CLOEXEC) };
	char got[3 * OUT_BUF], want[3 * OUT_BUF];

	if (!MEM_POOL) {	/* (tc_out has out_b1 there: a cap of 0 is never written) */
		close(o.fd);
		pool_back(was);
		return;
	}
	for (size_t i = 0; i < sizeof(want); i++)
		want[i] = (char)(i * 7 + i / 251);
	out_write(&o, want, 0);
	CHECK(!o.cap && !o.b, "a buffer taken for 0 bytes");
	out_write(&o, want, 100);
	CHECK(o.cap == OUT_BUF && o.b && pool_has(o.b) && o.n == 100, "after 100 bytes: cap %zu, %zu held", o.cap, o.n);
	out_write(&o, want + 100, sizeof(want) - 100);
	out_flush(&o);
	CHECK(pread(o.fd, got, sizeof(got), 0) == (ssize_t)sizeof(got) && !memcmp(got, want, sizeof(want)),
	      "the bytes written differ");
	close(o.fd);
	pool_back(was);
}

/* numdir_next gives the numeric entries of a directory, each once. */
static void t_numdir(void)
{
	char dir[] = "/tmp/tc-unit-XXXXXX", path[64];
	static const char *const names[] = { "1", "22", "abc", "0", "007", "12x", "2147483648", "31" };
	struct numdir d;
	int got = 0, v;

	CHECK(mkdtemp(dir), "mkdtemp");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		close(open(path, O_CREAT | O_WRONLY, 0600));
	}
	numdir_open(&d, dir);
	while ((v = numdir_next(&d)))
		got |= v == 1 ? 1 : v == 22 ? 2 : v == 7 ? 4 : v == 31 ? 8 : 16;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
	CHECK(got == 15 && d.fd < 0, "entries found: %x, fd %d", got, d.fd);
	numdir_open(&d, "/nonexistent");
	CHECK(!numdir_next(&d), "a missing directory has entries");
}

/* ---------------------------------------------------------------- escaping */

static void t_out_name(void)
{
	const char *in = "a\x1b[2J b\n\\\xc3\xa9~\x7f\t";
	const char *want = "a\\x1b[2J\\x20b\\x0a\\x5c\\xc3\\xa9~\\x7f\\x09";

	ms_open();
	out_name(out_script, in);
	ms_sync();
	CHECK(ms_len == strlen(want) && !memcmp(ms_buf, want, ms_len), "got '%.*s', want '%s'",
	      (int)ms_len, ms_buf, want);
	for (size_t i = 0; i < ms_len; i++)
		CHECK(ms_buf[i] > ' ' && ms_buf[i] < 0x7f, "byte 0x%02x written raw",
		      (unsigned char)ms_buf[i]);
}

/* A --script line of a switch between hostile names stays one clean line. */
static void t_out_event_hostile(void)
{
	struct ev e = { .time = 1, .kind = EV_SWITCH, .cpu = 0, .a = 1, .b = 2 };

	strcpy(e.comm, "\x1b]0;pwn\x07\r");
	strcpy(e.comm2, "x\ny \xff");
	ms_open();
	out_event(out_script, &e);
	ms_sync();
	CHECK(ms_len > 0 && ms_buf[ms_len - 1] == '\n', "no line end");
	for (size_t i = 0; i + 1 < ms_len; i++)
		CHECK(ms_buf[i] >= ' ' && ms_buf[i] < 0x7f, "byte 0x%02x at %zu written raw",
		      (unsigned char)ms_buf[i], i);
	CHECK(strstr(ms_buf, "prev_comm=\\x1b]0;pwn\\x07\\x0d prev_pid=1") &&
	      strstr(ms_buf, "next_comm=x\\x0ay\\x20\\xff next_pid=2"), "line '%s'", ms_buf);
}

/* ---------------------------------------------------------------- the view */

/* A screen of rows x cols as term_size() makes it (no tty needed), cleared
 * to spaces as draw_frame() clears it; UTF-8 and 256 colours. */
static void scr_setup(int rows, int cols)
{
	scr_alloc(rows, cols);
	G.term.utf8 = true;
	G.term.ncolor = 256;
	for (int i = 0; i < rows * cols; i++)
		G.term.scr[i] = (struct cell){ ' ', 0, 0, 0 };
}

/* Does G.term.ob[from, G.term.ob_len) contain the n bytes s? */
static bool ob_has(size_t from, const char *s, size_t n)
{
	for (size_t i = from; i + n <= G.term.ob_len; i++)
		if (!memcmp(G.term.ob + i, s, n))
			return true;
	return false;
}
#define OB_HAS(from, lit) ob_has(from, lit, sizeof(lit) - 1)

/*
 * Every ESC in G.term.ob[from, G.term.ob_len) is one of tc's own sequences: '[', then
 * digits, ';', '?' or '<' only, then a final H, m, J, h or l; no other C0
 * or C1 control byte and no DEL; bytes >= 0x80 only as the UTF-8 of a
 * character tc draws (U+00B7, U+2500..U+25FF).  Returns NULL or what is wrong.
 */
static const char *ob_clean(size_t from, char *msg, size_t n)
{
	for (size_t i = from; i < G.term.ob_len; i++) {
		unsigned char c = G.term.ob[i];

		if (c == 0x1b) {
			size_t j = i + 1;

			if (j >= G.term.ob_len || G.term.ob[j] != '[') {
				snprintf(msg, n, "ESC not followed by '[' at %zu", i - from);
				return msg;
			}
			for (j++; j < G.term.ob_len && (isdigit((unsigned char)G.term.ob[j]) || G.term.ob[j] == ';' ||
						   G.term.ob[j] == '?' || G.term.ob[j] == '<'); j++)
				;
			if (j >= G.term.ob_len || !strchr("HmJhl", G.term.ob[j])) {
				snprintf(msg, n, "escape sequence '\\e%.*s' at %zu", (int)(j - i), G.term.ob + i + 1,
					 i - from);
				return msg;
			}
			i = j;
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(msg, n, "control byte 0x%02x at %zu", c, i - from);
			return msg;
		} else if (c >= 0x80) {
			unsigned char c1 = i + 1 < G.term.ob_len ? G.term.ob[i + 1] : 0;
			unsigned char c2 = i + 2 < G.term.ob_len ? G.term.ob[i + 2] : 0;

			if (c == 0xc2 && c1 == 0xb7) {
				i += 1;
			} else if (c == 0xe2 && (c1 == 0x94 || c1 == 0x95 || c1 == 0x96) &&
				   c2 >= 0x80 && c2 < 0xc0) {
				i += 2;
			} else {
				snprintf(msg, n, "byte 0x%02x at %zu", c, i - from);
				return msg;
			}
		}
	}
	return NULL;
}

/* The frame diff: full redraw, nothing for an unchanged frame, a cursor
 * move and the cell for a one-cell change, UTF-8 of a block character. */
static void t_frame_diff(void)
{
	size_t n1, n2, n3, n4, from;
	char msg[128];

	scr_setup(10, 40);
	draw_str(0, 0, 40, "hello", -1, -1, CA_REVERSE);
	draw_put(3, 5, 0x2588, COL_RUN, -1, 0);
	draw_put(3, 6, 0x2581, COL_RUN, COL_RUNNABLE, 0);
	n1 = draw_diff();
	CHECK(n1 == G.term.ob_len && n1 > 0, "full redraw wrote %zu bytes, ob_len %zu", n1, G.term.ob_len);
	CHECK(OB_HAS(0, "\x1b[2J"), "full redraw without ESC[2J");
	CHECK(OB_HAS(0, "hello"), "'hello' not written");
	CHECK(OB_HAS(0, "\xe2\x96\x88"), "U+2588 not written as E2 96 88");
	CHECK(OB_HAS(0, "\xe2\x96\x81"), "U+2581 not written as E2 96 81");
	CHECK(!G.term.full_redraw, "full_redraw still set after a full redraw");
	CHECK(!ob_clean(0, msg, sizeof(msg)), "full redraw: %s", msg);
	CHECK(!memcmp(G.term.scr, G.term.scr_prev, sizeof(struct cell) * 400), "scr_prev is not the screen");

	/* nothing changed: nothing written */
	G.term.ob_len = 0;
	n2 = draw_diff();
	CHECK(n2 == 0 && G.term.ob_len == 0, "unchanged frame wrote %zu bytes", n2);

	/* one cell changed: a cursor move to it and the character, nothing more */
	draw_put(7, 20, 'X', -1, -1, 0);
	n3 = draw_diff();
	CHECK(n3 > 0 && n3 <= 32, "one changed cell wrote %zu bytes", n3);
	CHECK(OB_HAS(0, "\x1b[8;21H"), "no cursor move to row 8, column 21: '%.*s'", (int)n3, G.term.ob);
	CHECK(G.term.ob[G.term.ob_len - 1] == 'X', "last byte 0x%02x, want 'X'", (unsigned char)G.term.ob[G.term.ob_len - 1]);
	CHECK(!OB_HAS(0, "\x1b[2J"), "a one-cell change cleared the screen");

	/* two adjacent changed cells: one cursor move */
	G.term.ob_len = 0;
	draw_str(5, 10, 2, "ab", -1, -1, 0);
	draw_diff();
	CHECK(OB_HAS(0, "\x1b[6;11H") && !OB_HAS(0, "\x1b[6;12H") && OB_HAS(0, "ab"),
	      "adjacent cells: '%.*s'", (int)G.term.ob_len, G.term.ob);

	/* full_redraw: everything again */
	G.term.ob_len = 0;
	G.term.full_redraw = true;
	from = G.term.ob_len;
	n4 = draw_diff();
	CHECK(n4 > n1 / 2 && OB_HAS(from, "\x1b[2J") && OB_HAS(from, "hello") &&
	      OB_HAS(from, "\xe2\x96\x88") && OB_HAS(from, "X") && OB_HAS(from, "ab"),
	      "full redraw after full_redraw = true: %zu bytes", n4);
	G.term.ob_len = 0;
	CHECK(draw_diff() == 0, "frame after the full redraw not empty");

	/* --ascii: no byte >= 0x80 even for the cells drawn */
	G.term.utf8 = false;
	G.term.ob_len = 0;
	G.term.full_redraw = true;
	draw_put(3, 5, '#', COL_RUN, -1, 0);
	draw_put(3, 6, '+', COL_RUN, -1, 0);
	draw_diff();
	for (size_t i = 0; i < G.term.ob_len; i++)
		CHECK((unsigned char)G.term.ob[i] < 0x80, "byte 0x%02x in an ASCII frame", (unsigned char)G.term.ob[i]);
}

/* Keys from bytes: decode b fully, one key per call; fills keys, returns
 * how many, or -1 if a call takes 0 bytes (incomplete) or more than left. */
static int keys_of(const char *b, size_t n, int *keys, int max, int *mx, int *my)
{
	int k = 0;

	for (size_t off = 0; off < n && k < max;) {
		int key = K_NONE;
		size_t used = key_decode((const uint8_t *)b + off, n - off, &key, mx, my);

		if (!used || used > n - off)
			return -1;
		keys[k++] = key;
		off += used;
	}
	return k;
}

static void t_key_decode(void)
{
	static const struct { const char *s; int key, mx, my; } one[] = {
		{ "q", 'q', -1, -1 }, { "j", 'j', -1, -1 }, { "+", '+', -1, -1 }, { " ", ' ', -1, -1 },
		{ "\x03", K_CTRL_C, -1, -1 }, { "\x1a", K_CTRL_Z, -1, -1 }, { "\r", '\r', -1, -1 },
		{ "\x1b[A", K_UP, -1, -1 }, { "\x1b[B", K_DOWN, -1, -1 },
		{ "\x1b[C", K_RIGHT, -1, -1 }, { "\x1b[D", K_LEFT, -1, -1 },
		{ "\x1bOA", K_UP, -1, -1 }, { "\x1bOB", K_DOWN, -1, -1 },
		{ "\x1bOC", K_RIGHT, -1, -1 }, { "\x1bOD", K_LEFT, -1, -1 },
		{ "\x1b[5~", K_PGUP, -1, -1 }, { "\x1b[6~", K_PGDN, -1, -1 },
		{ "\x1b[1;2C", K_SRIGHT, -1, -1 }, { "\x1b[1;2D", K_SLEFT, -1, -1 },
		{ "\x1b[<0;10;5M", K_MOUSE_CLICK, 9, 4 },
		{ "\x1b[<64;1;1M", K_WHEEL_UP, 0, 0 }, { "\x1b[<65;3;7M", K_WHEEL_DOWN, 2, 6 },
		{ "\x1b[<0;100;50m", K_NONE, 99, 49 },	/* release: no key */
	};
	int keys[8], mx, my, key;
	size_t used;

	for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++) {
		const char *s = one[i].s;
		size_t n = strlen(s);

		/* whole: one key, all bytes */
		mx = my = -1;
		key = -12345;
		used = key_decode((const uint8_t *)s, n, &key, &mx, &my);
		CHECK(used == n, "'\\e%s': took %zu of %zu bytes", s + 1, used, n);
		CHECK(key == one[i].key, "'\\e%s': key %#x, want %#x", s + 1, key, one[i].key);
		if (one[i].mx >= 0)
			CHECK(mx == one[i].mx && my == one[i].my, "'\\e%s': mouse at %d,%d, want %d,%d",
			      s + 1, mx, my, one[i].mx, one[i].my);

		/* followed by a key: that key comes next */
		{
			char b[32];

			snprintf(b, sizeof(b), "%sk", s);
			CHECK(keys_of(b, n + 1, keys, 8, &mx, &my) == 2 && keys[0] == one[i].key &&
			      keys[1] == 'k', "'\\e%s' then 'k': keys %#x %#x", s + 1, keys[0], keys[1]);
		}

		/* every split point of an escape sequence: incomplete until whole */
		if (s[0] == 27)
			for (size_t k = 1; k < n; k++) {
				key = -12345;
				used = key_decode((const uint8_t *)s, k, &key, &mx, &my);
				CHECK(used == 0, "'\\e%s' cut after %zu bytes: took %zu (key %#x), want 0",
				      s + 1, k, used, key);
			}
	}

	/* a lone ESC waits (the caller's timeout makes it Esc) */
	CHECK(key_decode((const uint8_t *)"\x1b", 1, &key, &mx, &my) == 0, "lone ESC not held");
	/* ESC then a letter: Esc, then the letter */
	CHECK(keys_of("\x1bq", 2, keys, 8, &mx, &my) == 2 && keys[0] == K_ESC && keys[1] == 'q',
	      "ESC q: %#x %#x", keys[0], keys[1]);
	CHECK(keys_of("\x1b\x1bq", 3, keys, 8, &mx, &my) == 3 && keys[0] == K_ESC && keys[1] == K_ESC &&
	      keys[2] == 'q', "ESC ESC q: %#x %#x %#x", keys[0], keys[1], keys[2]);
	/* unknown CSI sequences are skipped whole */
	CHECK(keys_of("\x1b[99~j", 6, keys, 8, &mx, &my) == 2 && keys[0] == K_UNKNOWN && keys[1] == 'j',
	      "ESC[99~ j: %#x %#x", keys[0], keys[1]);
	CHECK(keys_of("\x1b[2;5Rk", 7, keys, 8, &mx, &my) == 2 && keys[0] == K_UNKNOWN && keys[1] == 'k',
	      "ESC[2;5R k: %#x %#x", keys[0], keys[1]);
	CHECK(keys_of("\x1b[1;5Cq", 7, keys, 8, &mx, &my) == 2 && keys[0] == K_UNKNOWN && keys[1] == 'q',
	      "ESC[1;5C q (ctrl-right): %#x %#x", keys[0], keys[1]);
	CHECK(key_decode((const uint8_t *)"\x1b[99", 4, &key, &mx, &my) == 0, "ESC[99 not held");
	/* a mouse report cut anywhere is held, whole it is one key */
	{
		const char *m = "\x1b[<0;123;45M";
		size_t n = strlen(m);

		for (size_t k = 1; k < n; k++)
			CHECK(key_decode((const uint8_t *)m, k, &key, &mx, &my) == 0, "mouse cut at %zu", k);
		CHECK(key_decode((const uint8_t *)m, n, &key, &mx, &my) == n && key == K_MOUSE_CLICK &&
		      mx == 122 && my == 44, "mouse: key %#x at %d,%d", key, mx, my);
	}
	/* garbage never takes 0 bytes of a long buffer or more than it has */
	{
		uint8_t b[64];

		memset(b, ';', sizeof(b));
		b[0] = 27;
		b[1] = '[';
		b[2] = '<';
		used = key_decode(b, sizeof(b), &key, &mx, &my);
		CHECK(used > 0 && used <= sizeof(b), "long mouse garbage: took %zu", used);
		memset(b + 2, '1', sizeof(b) - 2);
		used = key_decode(b, sizeof(b), &key, &mx, &my);
		CHECK(used > 0 && used <= sizeof(b), "long CSI garbage: took %zu", used);
	}
}

/* ------------------------------------------------ following (view state) */

#define V_T0 (1000 * NS_PER_SEC)		/* first event of the view tests */

/* A small live model: 2 CPUs, task 100 "pingpong" sleeping, woken by task
 * 200 "waker" at V_T0 + 15 s, running from V_T0 + 15.5 s. */
static void view_setup(bool live)
{
	struct ev e = { .kind = EV_SWITCH, .cpu = 0 };

	G.m.ncpu = 2;
	model_init(G.m.ncpu, 64, 65536);
	rows_alloc(64);
	scr_alloc(30, 122);			/* 100 timeline columns */
	G.opt.live = live;
	G.v.window_ns = 10 * NS_PER_SEC;

	e.time = V_T0; e.a = 0; e.b = 200; strcpy(e.comm2, "waker");
	model_event(&e);
	e.time = V_T0 + NS_PER_SEC; e.a = 200; e.v = 1; e.b = 100;
	strcpy(e.comm, "waker"); strcpy(e.comm2, "pingpong");
	model_event(&e);
	e.time = V_T0 + 2 * NS_PER_SEC; e.a = 100; e.v = 1; e.b = 200;
	strcpy(e.comm, "pingpong"); strcpy(e.comm2, "waker");
	model_event(&e);
	e = (struct ev){ .kind = EV_WAKEUP, .time = V_T0 + 15 * NS_PER_SEC, .cpu = 0, .tid = 200,
			 .a = 100, .c = 0 };
	strcpy(e.comm, "pingpong");
	model_event(&e);
	e = (struct ev){ .kind = EV_SWITCH, .time = V_T0 + 15 * NS_PER_SEC + NS_PER_SEC / 2,
			 .cpu = 0, .a = 200, .v = 1, .b = 100 };
	strcpy(e.comm, "waker");
	strcpy(e.comm2, "pingpong");
	model_event(&e);
	G.v.now = V_T0 + 20 * NS_PER_SEC;
	view_init();
	view_refresh();
	rows_build();
}

/* Is the view following exactly: the window ends at G.v.now, cursor on it? */
static bool follows(void)
{
	return G.v.following && G.v.end == G.v.now && G.v.start == G.v.now - G.v.window_ns &&
	       G.v.cursor == G.v.now;
}

/* A key (and for the mouse a position) as run_view hands it on. */
struct vkey { const char *name; int keys[8]; int mx, my; };

static const struct vkey placing[] = {
	{ "+", { '+' }, 0, 0 }, { "=", { '=' }, 0, 0 }, { "-", { '-' }, 0, 0 },
	{ "H", { 'H' }, 0, 0 }, { ">", { '>' }, 0, 0 }, { "<", { '<' }, 0, 0 },
	{ "shift-left", { K_SLEFT }, 0, 0 }, { "shift-right", { K_SRIGHT }, 0, 0 },
	{ "h", { 'h' }, 0, 0 }, { "l", { 'l' }, 0, 0 }, { "left", { K_LEFT }, 0, 0 }, { "right", { K_RIGHT }, 0, 0 },
	{ "wheel up", { K_WHEEL_UP }, 0, 0 }, { "wheel down", { K_WHEEL_DOWN }, 0, 0 },
	{ "click", { K_MOUSE_CLICK }, 70, 3 },
	{ "/ping Enter", { '/', 'p', 'i', 'n', 'g', '\r' }, 0, 0 },
	{ "/nomatch Enter", { '/', 'z', 'z', '\r' }, 0, 0 },
	{ "w", { 'w' }, 0, 0 },
	{ "h then +", { 'h', '+' }, 0, 0 },
	{ "+ then -", { '+', '-' }, 0, 0 },
};

static void press(const struct vkey *k)
{
	for (int i = 0; i < 8 && k->keys[i]; i++)
		view_key(k->keys[i], k->mx, k->my);
}

/* Live: following until the user places the view; no refresh then moves
 * anything; 0 and Esc follow again (also after a cursor move: the
 * predecessor's bug). */
static void t_view_following(void)
{
	uint64_t s, e, c;

	view_setup(true);
	CHECK(follows(), "not following at start: [%" PRIu64 ", %" PRIu64 "] cursor %" PRIu64,
	      G.v.start, G.v.end, G.v.cursor);
	G.v.now += 3 * NS_PER_SEC;
	view_refresh();
	CHECK(follows(), "a refresh did not follow v_now");

	for (size_t i = 0; i < sizeof(placing) / sizeof(placing[0]); i++) {
		const struct vkey *k = &placing[i];
		int sel;

		/* select the task row pingpong (for w) */
		rows_build();
		sel = row_find(100);
		CHECK(sel >= 0, "task 100 not among the rows");
		G.v.sel = sel;
		G.v.sel_key = 100;
		view_key('0', 0, 0);
		view_refresh();
		CHECK(follows(), "%s: not following after 0", k->name);

		press(k);
		CHECK(!G.v.following, "%s: still following", k->name);
		if (!strcmp(k->name, "w"))
			CHECK(G.v.cursor == V_T0 + 15 * NS_PER_SEC, "w: cursor at %" PRIu64 ", want the wakeup",
			      (uint64_t)(G.v.cursor - V_T0));
		s = G.v.start;
		e = G.v.end;
		c = G.v.cursor;
		for (int r = 0; r < 3; r++) {
			G.v.now += NS_PER_SEC;
			view_refresh();
			CHECK(G.v.start == s && G.v.end == e && G.v.cursor == c && !G.v.following,
			      "%s: refresh %d moved the view: [%" PRIu64 ", %" PRIu64 "] cursor %" PRIu64
			      " -> [%" PRIu64 ", %" PRIu64 "] cursor %" PRIu64, k->name, r,
			      s, e, c, G.v.start, G.v.end, G.v.cursor);
		}

		/* back to following, with 0 and with Esc */
		view_key(i % 2 ? K_ESC : '0', 0, 0);
		CHECK(follows(), "%s then %s: not following", k->name, i % 2 ? "Esc" : "0");
		G.v.now += NS_PER_SEC;
		view_refresh();
		CHECK(follows(), "%s then %s: the next refresh did not follow", k->name, i % 2 ? "Esc" : "0");
	}

	/* keys that do not place the view keep following */
	{
		static const int keep[] = { 'j', 'k', K_UP, K_DOWN, K_PGUP, K_PGDN, 's', 'm', '?', 'x' };

		for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) {
			view_key(keep[i], 0, 0);
			if (G.v.help)
				view_key('x', 0, 0);	/* any key closes the help */
			G.v.now += NS_PER_SEC;
			view_refresh();
			CHECK(follows(), "key %#x stopped following", keep[i]);
		}
	}
}

/* Zoom keeps the cursor where it is, also on later refreshes (the
 * predecessor's follow_cursor stayed on after a zoom). */
static void t_view_zoom_cursor(void)
{
	uint64_t c;

	view_setup(true);
	view_key('h', 0, 0);
	view_key('h', 0, 0);
	c = G.v.cursor;
	view_key('+', 0, 0);
	CHECK(G.v.cursor == c, "zoom moved the cursor");
	CHECK(G.v.start <= c && c <= G.v.end, "cursor out of the zoomed view");
	CHECK(G.v.end - G.v.start == G.v.window_ns / 2, "zoom in: span %" PRIu64, G.v.end - G.v.start);
	G.v.now += 5 * NS_PER_SEC;
	view_refresh();
	CHECK(G.v.cursor == c, "refresh after zoom moved the cursor");
	view_key('0', 0, 0);
	CHECK(follows(), "0 after h h +: not following");
}

/* Replay without --speed: 0 shows the whole recording, nothing follows;
 * replay with --speed: like live. */
static void t_view_replay(void)
{
	uint64_t s, e, c;

	view_setup(false);
	G.v.speed = 0;
	G.v.now = G.m.last;
	view_init();
	CHECK(!G.v.following, "replay view follows");
	CHECK(G.v.start == G.m.first && G.v.end == G.m.last, "replay view [%" PRIu64 ", %" PRIu64
	      "], want the recording [%" PRIu64 ", %" PRIu64 "]", G.v.start, G.v.end, G.m.first, G.m.last);
	view_key('+', 0, 0);
	view_key('l', 0, 0);
	view_key('0', 0, 0);
	CHECK(!G.v.following, "replay: 0 made it follow");
	CHECK(G.v.start == G.m.first && G.v.end == G.m.last, "replay: 0 shows [%" PRIu64 ", %" PRIu64 "]",
	      G.v.start, G.v.end);
	CHECK(G.v.cursor >= G.v.start && G.v.cursor <= G.v.end, "replay: cursor outside the view");
	s = G.v.start;
	e = G.v.end;
	c = G.v.cursor;
	view_refresh();
	CHECK(G.v.start == s && G.v.end == e && G.v.cursor == c, "replay: refresh moved the view");
	view_key(K_ESC, 0, 0);
	CHECK(!G.v.following && G.v.start == G.m.first && G.v.end == G.m.last, "replay: Esc");

	/* --speed: a rolling window that follows, like live */
	G.v.speed = 2;
	G.v.now = V_T0 + 16 * NS_PER_SEC;
	view_init();
	view_refresh();
	CHECK(follows(), "replay --speed: not following");
	view_key('+', 0, 0);
	s = G.v.start;
	G.v.now += NS_PER_SEC;
	view_refresh();
	CHECK(!G.v.following && G.v.start == s, "replay --speed: refresh moved a zoomed view");
	view_key('0', 0, 0);
	G.v.now += NS_PER_SEC;
	view_refresh();
	CHECK(follows(), "replay --speed: 0 does not follow");
}

/* Busy cells of a timeline row: columns with a block (U+2581..2588). */
static int drawn_cols(int r)
{
	int n = 0;

	for (int c = LABEL_W; c < G.term.cols; c++)
		n += G.term.scr[r * G.term.cols + c].ch >= 0x2581 && G.term.scr[r * G.term.cols + c].ch <= 0x2588;
	return n;
}

/* Switches on CPU c at time t from prev to next (both running tasks). */
static void hist_switch(int c, uint64_t t, int prev, int next)
{
	struct ev e = { .kind = EV_SWITCH, .cpu = c, .time = t, .a = prev, .b = next, .v = 1 };

	snprintf(e.comm, sizeof(e.comm), "t%d", prev);
	snprintf(e.comm2, sizeof(e.comm2), "t%d", next);
	model_event(&e);
}

/* The ring of exact intervals' varints (ib_put: bytes at once where the
 * chunk and the ring have room, else a byte at a time) on a ring of 8
 * chunks of 16 bytes: every value of every length reads back with
 * ib_get, across chunk edges and the ring's wrap, and the head, its index
 * and the chunk entered are where the bytes written put them. */
static void t_ib_varints(void)
{
	uint64_t vals[64], pos[64], n = 0, at;
	int k = 0;

	ival_ring(128);
	CHECK(G.ib.cap == 128 && G.ib.shift == 4, "cap %" PRIu64 " shift %d", G.ib.cap, G.ib.shift);
	for (int round = 0; round < 200; round++) {
		uint64_t v = round % 11 == 10 ? UINT64_MAX : (1ull << (round % 11 * 7)) - 1 + round;

		pos[k] = G.ib.hidx;
		vals[k] = v;
		ib_put(v);
		for (uint64_t w = v; ; w >>= 7) {
			n++;
			if (w < 128)
				break;
		}
		CHECK(G.ib.head == n && G.ib.hidx == n % 128 && G.ib.chunk == ((n - 1) >> 4) + 1,
		      "after %d: head %" PRIu64 " hidx %" PRIu64 " chunk %" PRIu64 ", want %" PRIu64,
		      round, G.ib.head, G.ib.hidx, G.ib.chunk, n);
		k = (k + 1) % 8;
		if (round >= 8) {	/* the last 8 (at most 80 bytes) are still in the ring */
			for (int j = 0; j < 8; j++) {
				at = pos[j];
				CHECK(ib_get(&at) == vals[j], "round %d: value %d reads back wrong", round, j);
			}
		}
	}
	ival_ring(0);
}

/* A replay far larger than the ring of exact intervals (1 MiB of
 * history): both CPU rows are drawn over every column at the whole zoom
 * and zoomed in 8x at three places, from the summaries where the exact
 * intervals are gone; unknown time (a gap) is drawn, not blank. */
static void t_view_history(void)
{
	uint64_t t = V_T0;
	int ncol;

	G.m.ncpu = 2;
	G.hist.mib = 1;
	model_init(G.m.ncpu, 64, 65536);
	rows_alloc(64);
	scr_setup(30, 150);
	ncol = G.term.cols - LABEL_W;
	for (int i = 0; i < 200000; i++, t += 60000)	/* 12 s, busy */
		for (int c = 0; c < 2; c++)
			hist_switch(c, t + c * 1000, 10 + c * 2 + (i & 1), 10 + c * 2 + !(i & 1));
	CHECK(G.ib.evicted > 0, "the ring of %" PRIu64 " bytes held all", G.ib.cap);
	CHECK(G.ib.floor > V_T0 + 6 * NS_PER_SEC, "exact from %" PRIu64, (uint64_t)(G.ib.floor - V_T0));
	G.v.now = G.m.last;
	view_init();
	for (int place = 0; place < 4; place++) {
		if (place) {	/* 8x around 1/8, 1/2 and 7/8 of the recording */
			view_key('0', 0, 0);
			view_goto(V_T0 + (G.m.last - V_T0) * (place == 1 ? 1 : place == 2 ? 4 : 7) / 8);
			view_zoom(1, 8);
		}
		draw_frame();
		for (int r = G.v.row0; r < G.v.row0 + 2; r++)
			CHECK(drawn_cols(r) == ncol, "place %d: cpu row %d busy over %d of %d columns", place,
			      r - G.v.row0, drawn_cols(r), ncol);
	}
	/* a gap: unknown on both CPUs, hatched */
	G.m.last = t;
	model_gap(G.m.last, 0);
	t += 4 * NS_PER_SEC;
	hist_switch(0, t, 10, 11);
	hist_switch(1, t, 12, 13);
	G.v.now = t;
	view_key('0', 0, 0);
	draw_frame();
	{
		int col = LABEL_W + (int)((t - 2 * NS_PER_SEC - G.v.start) * ncol / (G.v.end - G.v.start));

		CHECK(G.term.scr[G.v.row0 * G.term.cols + col].ch == 0x2571, "the gap is drawn as %#x",
		      G.term.scr[G.v.row0 * G.term.cols + col].ch);
	}
}

/* Who ran where: a task on CPU 0, then on CPU 1; the CPU rows, their
 * labels and the readouts at the cursor say so; 'c' colours by CPU. */
static void t_view_cpu_at(void)
{
	uint64_t st, en;
	int state, aux, row;
	char line[256] = "";

	G.m.ncpu = 2;
	model_init(G.m.ncpu, 64, 65536);
	rows_alloc(64);
	scr_setup(30, 150);
	hist_switch(0, V_T0, 0, 300);
	hist_switch(1, V_T0, 0, 400);
	hist_switch(0, V_T0 + NS_PER_SEC, 300, 0);
	hist_switch(1, V_T0 + NS_PER_SEC, 400, 300);
	hist_switch(1, V_T0 + 2 * NS_PER_SEC, 300, 0);
	G.v.now = G.m.last;
	view_init();
	CHECK(cpu_at(0, V_T0 + NS_PER_SEC / 2, &st, &en) == 300, "cpu0 at 0.5 s: %d",
	      cpu_at(0, V_T0 + NS_PER_SEC / 2, &st, &en));
	CHECK(cpu_at(1, V_T0 + NS_PER_SEC / 2, &st, &en) == 400, "cpu1 at 0.5 s");
	CHECK(cpu_at(1, V_T0 + 3 * NS_PER_SEC / 2, &st, &en) == 300, "cpu1 at 1.5 s");
	CHECK(cpu_at(0, V_T0 + 3 * NS_PER_SEC / 2, &st, &en) == 0, "cpu0 at 1.5 s not idle");
	row = task_find(300) - G.m.task;
	CHECK(task_at(row, V_T0 + NS_PER_SEC / 2, &state, &st, &en, &aux) && state == ST_RUNNING && aux == 0,
	      "task 300 at 0.5 s: state %d cpu %d", state, aux);
	CHECK(task_at(row, V_T0 + 3 * NS_PER_SEC / 2, &state, &st, &en, &aux) && state == ST_RUNNING && aux == 1,
	      "task 300 at 1.5 s: state %d cpu %d", state, aux);
	G.v.cursor = V_T0 + 3 * NS_PER_SEC / 2;
	G.v.sel_key = INT_MIN;
	draw_frame();	/* cpu1's label and, selected, its readout name t300 */
	for (int c = 0; c < G.term.cols && c < 255; c++)
		line[c] = (char)G.term.scr[(G.v.row0 + 1) * G.term.cols + c].ch;
	CHECK(strstr(line, "cpu1") && strstr(line, "t300"), "cpu1 label at 1.5 s: '%s'", line);
	view_key('j', 0, 0);
	draw_frame();
	for (int c = 0; c < G.term.cols && c < 255; c++)
		line[c] = (char)G.term.scr[(G.term.rows - 1) * G.term.cols + c].ch;
	CHECK(strstr(line, "cpu1 at") && strstr(line, "running t300"), "cpu1 readout: '%s'", line);
	view_key('c', 0, 0);
	draw_frame();
	CHECK(G.v.cpucol, "c did not toggle");
}

/* fmt_at: enough digits for one column's step. */
static void t_view_fmt_at(void)
{
	char b[32];

	G.term.cols = 100 + LABEL_W;
	G.m.first = V_T0;
	G.v.start = V_T0;
	G.v.end = V_T0 + 10 * NS_PER_SEC;	/* 100 ms a column */
	fmt_at(b, sizeof(b), V_T0 + 1234567890);
	CHECK(!strcmp(b, "1.2s"), "10 s over 100 columns: %s", b);
	G.v.end = V_T0 + 1000000;		/* 10 us a column */
	fmt_at(b, sizeof(b), V_T0 + 1234567890);
	CHECK(!strcmp(b, "1.23456s"), "1 ms over 100 columns: %s", b);
	/* before the first event (a live view's first moments) the seconds
	 * count from the window's start, not from the clock's zero: once a
	 * test read "cursor 10667.8s" there as 3.5 s of events seen */
	G.m.first = 0;
	G.v.start = V_T0 + 7 * NS_PER_SEC;
	G.v.end = G.v.start + 3 * NS_PER_SEC;
	fmt_at(b, sizeof(b), G.v.end);
	CHECK(!strcmp(b, "3.00s"), "no event yet, the cursor at the end of a 3 s window: %s", b);
}

/* The axis: tick labels with the digits their step needs, so that a
 * 15.6 ms window at 1.23 s shows 1.226s, 1.228s, ... (not 1.23s each). */
static void t_view_axis_digits(void)
{
	char line[256], b[32];
	int n = 0;

	fmt_secs(b, sizeof(b), 1230000000, 2000000);
	CHECK(!strcmp(b, "1.230s"), "2 ms step: %s", b);
	fmt_secs(b, sizeof(b), 12000000000ull, NS_PER_SEC);
	CHECK(!strcmp(b, "12s"), "1 s step: %s", b);
	scr_setup(24, 160);
	G.m.first = V_T0;
	G.v.start = V_T0 + 1225000000;
	G.v.end = G.v.start + 15600000;
	draw_axis(1);
	for (int c = 0; c < G.term.cols; c++)
		line[c] = (char)(G.term.scr[G.term.cols + c].ch < 0x80 ? G.term.scr[G.term.cols + c].ch : '|');
	line[G.term.cols] = 0;
	CHECK(strstr(line, "|1.226s") && strstr(line, "|1.228s") && strstr(line, "|1.238s"), "axis: %s", line);
	for (const char *q = line; (q = strstr(q, "1.23s")); q++)
		n++;
	CHECK(!n, "a label without the step's digits: %s", line);
	/* times near 2^64 from a file (found by make fuzz's view target): the
	 * ticks stop where t wraps, never more than the columns, none off it */
	G.m.first = UINT64_MAX - 5 * NS_PER_SEC;
	G.v.start = G.m.first;
	G.v.end = UINT64_MAX - 1;
	for (int c = 0; c < G.term.cols; c++)
		G.term.scr[G.term.cols + c] = (struct cell){ ' ', 0, 0, 0 };
	draw_axis(1);
	n = 0;
	for (int c = 0; c < G.term.cols; c++)
		n += G.term.scr[G.term.cols + c].ch == 0x2502;
	CHECK(n >= 1 && n <= G.term.cols - LABEL_W, "%d ticks near 2^64", n);
}

/* Hostile names: cells hold printable ASCII only, and the bytes written
 * hold no escape sequence but tc's own. */
static void t_view_hostile_names(void)
{
	static const char *const names[] = {
		"\x1b[2J\x1b]0;pwn\x07" "evil", "a\nb\rc\td", "\x9b" "31mred", "\xc3\xa9t\xe9\xff\x80",
		"\x1bP+q\x1b\\", "\x7f\x01\x08",
	};
	char msg[128];

	scr_setup(24, 100);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int w = draw_str((int)i, 0, 40, names[i], -1, -1, 0);

		CHECK(w == (int)strlen(names[i]), "name %zu: %d columns for %zu bytes", i, w, strlen(names[i]));
		for (int c = 0; c < w; c++) {
			uint16_t ch = G.term.scr[i * G.term.cols + c].ch;

			CHECK(ch >= 0x20 && ch < 0x7f, "name %zu column %d holds %#x", i, c, ch);
			if ((unsigned char)names[i][c] < 0x20 || (unsigned char)names[i][c] >= 0x7f)
				CHECK(ch == '?', "name %zu column %d: %#x for byte %#x", i, c, ch,
				      (unsigned char)names[i][c]);
			else
				CHECK(ch == (unsigned char)names[i][c], "name %zu column %d changed", i, c);
		}
	}
	draw_diff();
	CHECK(!ob_clean(0, msg, sizeof(msg)), "draw_str names: %s", msg);

	/* the whole frame, with the names coming from events */
	mem_free(G.term.scr); mem_free(G.term.scr_prev); mem_free(G.term.acc); mem_free(G.term.ob);
	G.term.scr = G.term.scr_prev = NULL;
	G.term.acc = NULL;
	G.term.ob = NULL;
	view_setup(true);
	scr_setup(30, 122);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct ev e = { .kind = EV_SWITCH, .cpu = 1, .time = V_T0 + (17 + i) * NS_PER_SEC,
				.a = i ? 300 + (int)i - 1 : 0, .v = 1, .b = 300 + (int)i };

		if (i)	/* prev: the task before (comm stays empty for the idle task) */
			memcpy(e.comm, names[i - 1], strnlen(names[i - 1], COMM_LEN - 1));
		memcpy(e.comm2, names[i], strnlen(names[i], COMM_LEN - 1));
		model_event(&e);
	}
	G.v.now = V_T0 + 25 * NS_PER_SEC;
	view_refresh();
	for (int sel = 0; sel < 12; sel++) {	/* details line of each row */
		G.v.sel = sel;
		G.v.sel_key = INT_MIN;
		G.term.ob_len = 0;
		draw_frame();
		draw_diff();
		for (int i = 0; i < G.term.rows * G.term.cols; i++)
			CHECK(G.term.scr[i].ch >= 0x20 && (G.term.scr[i].ch < 0x7f || G.term.scr[i].ch == 0xb7 ||
						      (G.term.scr[i].ch >= 0x2500 && G.term.scr[i].ch < 0x2600)),
			      "row %d column %d holds %#x", i / G.term.cols, i % G.term.cols, G.term.scr[i].ch);
		CHECK(!ob_clean(0, msg, sizeof(msg)), "frame with row %d selected: %s", sel, msg);
	}
	CHECK(row_find(300) >= 0, "the hostile task is not shown");
	G.v.help = true;
	G.term.ob_len = 0;
	draw_frame();
	draw_diff();
	CHECK(!ob_clean(0, msg, sizeof(msg)), "frame with help: %s", msg);
}

/* ---------------------------------------------------------------- model */

/* Feed a switch / wakeup / lost / idle event to the model. */
static void ev_switch(uint64_t t, int cpu, int prev, int64_t prev_state, int next)
{
	struct ev e = { .kind = EV_SWITCH, .time = t, .cpu = cpu, .a = prev, .v = prev_state, .b = next };

	snprintf(e.comm, sizeof(e.comm), "t%d", prev);
	snprintf(e.comm2, sizeof(e.comm2), "t%d", next);
	model_event(&e);
}

static void ev_wakeup(uint64_t t, int waker, int wakee, unsigned flags)
{
	const struct task *w = waker > 0 ? task_find(waker) : NULL;
	/* the record is on the waker's CPU: records name who runs there */
	struct ev e = { .kind = EV_WAKEUP, .time = t, .cpu = w && w->state == ST_RUNNING ? w->run_cpu : 0,
			.tid = waker, .pid = waker, .a = wakee, .c = 0, .flags = flags };

	snprintf(e.comm, sizeof(e.comm), "t%d", wakee);
	model_event(&e);
}

static void ev_lost(uint64_t t, int64_t n)
{
	struct ev e = { .kind = EV_LOST, .time = t, .cpu = 0, .tid = 0, .v = n };

	model_event(&e);
}

static void ev_idle(uint64_t t, int cpu, int64_t state)
{
	/* the idle task's record, as the kernel's cpu_idle is */
	struct ev e = { .kind = EV_IDLE, .time = t, .cpu = cpu, .tid = 0, .c = cpu, .v = state };

	model_event(&e);
}

static struct task *task_of(int tid)
{
	return task_find(tid);
}

#define CHECK_TOTAL(tid, st, want) do {					\
	struct task *t_ = task_of(tid);					\
	CHECK(t_, "task %d missing", tid);				\
	CHECK(t_->total[st] == (want), "task %d %s total %" PRIu64 ", want %" PRIu64, \
	      tid, st_names[st], t_->total[st], (uint64_t)(want));	\
} while (0)

/*
 * Two pauses in a row: each closes every state at the last event before
 * it; unknown from there until the task's next event; totals exact.
 *
 *   1000 cpu0 idle -> 100      2000 cpu1 idle -> 200     3000 100 wakes 300
 *   5000 pause marker          6000 pause marker (second pause, no event between)
 *   8000 cpu0 100 (S) -> idle  9000 cpu1 200 (R) -> 300  end 9000
 */
static void t_model_pause_gaps(void)
{
	int st, aux;
	uint64_t s, e;

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	ev_switch(1000, 0, 0, 0, 100);
	ev_switch(2000, 1, 0, 0, 200);
	ev_wakeup(3000, 100, 300, 0);
	ev_lost(5000, 0);
	ev_lost(6000, 0);
	CHECK(G.m.gaps == 2, "gaps %" PRIu64 ", want 2", G.m.gaps);
	CHECK(task_of(100)->state == ST_UNKNOWN && task_of(200)->state == ST_UNKNOWN &&
	      task_of(300)->state == ST_UNKNOWN, "states not unknown in the gap");
	CHECK(G.m.cpu[0].cur == -1 && G.m.cpu[1].cur == -1, "CPUs not unknown in the gap");
	ev_switch(8000, 0, 100, 1, 0);
	ev_switch(9000, 1, 200, 0, 300);
	model_end(true);

	CHECK_TOTAL(100, ST_RUNNING, 2000);	/* 1000..3000, not ..5000 */
	CHECK_TOTAL(100, ST_UNKNOWN, 5000);	/* 3000..8000 */
	CHECK_TOTAL(100, ST_SLEEPING, 1000);	/* 8000..9000 */
	CHECK_TOTAL(200, ST_RUNNING, 1000);	/* 2000..3000 */
	CHECK_TOTAL(200, ST_UNKNOWN, 6000);	/* 3000..9000 */
	CHECK_TOTAL(300, ST_RUNNABLE, 0);	/* woken at 3000, the last event before the gap */
	CHECK_TOTAL(300, ST_UNKNOWN, 6000);
	CHECK(G.m.cpu[0].busy == 2000, "cpu0 busy %" PRIu64 ", want 2000", G.m.cpu[0].busy);
	CHECK(G.m.cpu[1].busy == 1000, "cpu1 busy %" PRIu64 ", want 1000", G.m.cpu[1].busy);

	/* the view: running up to 3000, unknown in the gap, sleeping after */
	CHECK(task_at(task_of(100) - G.m.task, 2500, &st, &s, &e, &aux) && st == ST_RUNNING &&
	      s == 1000 && e == 3000, "task 100 at 2500: %s [%" PRIu64 ", %" PRIu64 ")", st_names[st], s, e);
	/* unknown in the gap, and why: a pause (the second's, as the first
	 * had no event after it) */
	CHECK(task_at(task_of(100) - G.m.task, 4000, &st, &s, &e, &aux) && st == ST_UNKNOWN && s == 3000 &&
	      e == 8000 && (aux & 7) == UNK_GAP && G.m.gapv[(uint32_t)aux >> 3].lost == 0 && aux >> 3 == 2,
	      "task 100 at 4000 (in the gap) is %s [%" PRIu64 ", %" PRIu64 ") aux %d", st_names[st], s, e, aux);
	CHECK(task_at(task_of(100) - G.m.task, 5500, &st, &s, &e, &aux) && st == ST_UNKNOWN,
	      "task 100 at 5500 (between the pauses) is %s", st_names[st]);
	CHECK(task_at(task_of(100) - G.m.task, 8500, &st, &s, &e, &aux) && st == ST_SLEEPING,
	      "task 100 at 8500 not sleeping");
}

/* perf record's end: its events go off CPU by CPU (model_end_off), the
 * recorder (900) moving to each: cpu0's last switch is to it at 5000,
 * cpu1's at 8000.  From 5000 a task not running is unknown (a wakeup on
 * cpu0 would not be recorded) and cpu0's run ends at its last record.
 * Not so in tc's own files (sorted: one end for all CPUs), where the last
 * switches are to different tasks (k 2: no recorder seen), nor in a pass
 * that stopped before the data's end (k 3). */
static void t_model_end_off(void)
{
	for (int k = 0; k < 4; k++) {
		g_reset();
		G.opt.replay_path = "perf.data";
		G.rd.sorted = k == 1;
		G.m.ncpu = 2;
		model_init(2, 64, 65536);
		ev_switch(1000, 0, 0, 0, 100);
		ev_switch(1500, 1, 0, 0, 200);
		ev_switch(2000, 1, 200, 1, 300);	/* 200 sleeps */
		ev_switch(3000, 0, 100, 1, 400);	/* 100 sleeps */
		ev_switch(5000, 0, 400, 0, 900);	/* the recorder on cpu0: its last record */
		ev_switch(8000, 1, 300, 0, k == 2 ? 500 : 900);	/* and on cpu1 */
		model_end(k != 3);
		if (k == 0) {
			CHECK_TOTAL(200, ST_SLEEPING, 3000);	/* 2000..5000 */
			CHECK_TOTAL(200, ST_UNKNOWN, 3000);	/* 5000..8000 */
			CHECK_TOTAL(100, ST_SLEEPING, 2000);
			CHECK_TOTAL(100, ST_UNKNOWN, 3000);
			CHECK_TOTAL(400, ST_RUNNABLE, 0);	/* preempted at 5000 */
			CHECK_TOTAL(400, ST_UNKNOWN, 3000);
			CHECK_TOTAL(300, ST_RUNNING, 6000);	/* cpu1's run: to its end */
			CHECK(task_of(400)->unk_aux == UNK_AUX(UNK_UNTRACED, 0) &&
			      task_of(200)->unk_aux == UNK_AUX(UNK_UNTRACED, 0), "unknown at the end, but not as untraced");
			CHECK(G.m.cpu[0].busy == 4000, "cpu0 busy %" PRIu64 ", want 4000 (1000..5000)", G.m.cpu[0].busy);
		} else {
			CHECK_TOTAL(200, ST_SLEEPING, 6000);
			CHECK_TOTAL(100, ST_SLEEPING, 5000);
			CHECK_TOTAL(400, ST_RUNNABLE, 3000);
			CHECK_TOTAL(200, ST_UNKNOWN, 0);
		}
	}
}

/* The tail of a perf file (rd_end_tail, from rd_tail's last MiB): read
 * from its first FINISHED_ROUND whose records parse to the end, not from
 * a round-like word inside a record cut at the tail's start; the end
 * signature (every CPU's last switch to one task) gives the first of
 * those switches.  k 0: as perf writes it; 1: cpu1's last switch to
 * another task; 2: a second round among the switches (cpu0's last one
 * before it); 3: no round, the tail a part of the data; 4: no round, the
 * tail all of it (read from its start); 5: recorded per task. */
static void t_rd_end_tail(void)
{
	static const struct { int cpu, prev, next; uint64_t t; } sw[] = {
		{ 0, 100, 400, 4000 }, { 1, 200, 300, 4500 }, { 0, 400, 900, 5000 }, { 1, 300, 900, 8000 },
	};
	static const uint64_t want[] = { 5000, 0, 5000, 0, 5000, 0 };

	for (int k = 0; k < 6; k++) {
		static uint8_t buf[4096];
		size_t len = 0;

		g_reset();
		CHECK(merge_setup_file(), "setup");
		G.m.ncpu = 2;
		if (k != 4) {	/* a record's last 40 bytes, with a FINISHED_ROUND's header in them */
			memset(buf, 'A', 40);
			put_hdr(buf + 8, PR_FINISHED_ROUND, 0, 8);
			len = 40;
		}
		if (k != 3 && k != 4) {
			put_hdr(buf + len, PR_FINISHED_ROUND, 0, 8);
			len += 8;
		}
		for (int i = 0; i < 4; i++) {
			const struct sw s = { .prev_comm = "p", .next_comm = "n", .prev_pid = sw[i].prev,
					      .next_pid = k == 1 && i == 3 ? 500 : sw[i].next, .prev_prio = 120,
					      .next_prio = 120, .prev_state = 1 };
			uint8_t raw[128];
			struct smp sm = { .id = 1, .time = sw[i].t, .pid = sw[i].prev, .tid = sw[i].prev,
					  .cpu = sw[i].cpu, .raw = raw };

			if (k == 2 && i == 3) {
				put_hdr(buf + len, PR_FINISHED_ROUND, 0, 8);
				len += 8;
			}
			sm.rawsz = mk_switch_raw(raw, &layouts[0], &s);
			len += mk_sample(buf + len, SMP_LIVE, &sm);
		}
		G.rd.data_off = 4096;
		G.rd.end = G.rd.data_off + (k == 4 ? len : len + 1024);	/* the tail: the data's last len bytes */
		G.rd.part = k == 5 ? PART_TASKS : 0;
		CHECK(rd_end_tail(buf, len) == want[k], "k %d: end %" PRIu64 ", want %" PRIu64,
		      k, rd_end_tail(buf, len), want[k]);
	}
}

/* rd_tail reads a perf file's last MiB into the read buffer's room where
 * it has that much (no buffer of its own, whose huge page the kernel
 * zeroes), else into a buffer of its own; either way the file's bytes,
 * and rd_tail_done gives back only the latter. */
static void t_rd_tail_room(void)
{
	static uint8_t data[3 << 20];
	const uint8_t *t;
	uint64_t n;

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + i / 4096);
	CHECK(file_mem(data, sizeof(data), sizeof(data), sizeof(data), 1, RD_CAP), "memfd");
	G.rd.data_off = 4096;
	for (int k = 0; k < 2 && !why[0]; k++) {
		G.rc.len = k ? RD_CAP - 4096 : RD_BUF;	/* room for it, none */
		t = rd_tail(&n);
		CHECK(t && n == 1 << 20 && !memcmp(t, data + sizeof(data) - n, n), "k %d: the tail's bytes", k);
		CHECK(k ? (uintptr_t)t - (uintptr_t)G.rc.buf >= RD_CAP : t == G.rc.buf + G.rc.len,
		      "k %d: the tail at %p, the buffer at %p (%zu bytes used)", k, (const void *)t, (void *)G.rc.buf, G.rc.len);
		rd_tail_done(t);
	}
	close(G.rc.fd);
}

/* The victim scan task_victim's tree replaced: the exited task seen
 * longest ago, else the task seen longest ago, not running; the first
 * slot of those; slot 0 if all run. */
static int victim_scan(void)
{
	int best = -1;
	bool best_dead = false;

	for (int i = 0; i < G.m.ntask; i++) {
		const struct task *t = &G.m.task[i];
		bool dead = t->state == ST_DEAD;

		if (t->state == ST_RUNNING)
			continue;
		if (best < 0 || (dead && !best_dead) ||
		    (dead == best_dead && t->last_seen < G.m.task[best].last_seen)) {
			best = i;
			best_dead = dead;
		}
	}
	return best < 0 ? 0 : best;
}

/* A full task table under random records (tasks seen again, also at an
 * older time, at equal times, exiting, running, woken; new tids evicting
 * one): each eviction takes the scan's victim, and so does a search
 * between records. */
static void t_task_victim(void)
{
	uint32_t x = 777;
	uint64_t now = 1000;
	int next = 1;

	G.m.ncpu = 2;
	model_init(2, TC_MAX_TASKS, 65536);
	while (G.m.ntask < TC_MAX_TASKS)
		task_get(next++, now += (x = x * 1103515245 + 12345) >> 16 & 1, NULL);
	for (int i = 0; i < 60000 && !why[0]; i++) {
		uint32_t r = (x = x * 1103515245 + 12345) >> 8;
		struct task *t = &G.m.task[(r >> 4) % G.m.ntask];
		int want;

		now += r & 1;
		switch (r & 15) {
		case 0:	/* a new task: the scan's victim makes room */
			want = victim_scan();
			task_get(next++, now, NULL);
			CHECK(G.m.task_slot[next - 1] == want + 1, "step %d: new task in slot %d, the scan's %d",
			      i, G.m.task_slot[next - 1] - 1, want);
			break;
		case 1:
			task_get(t->tid, now - (r >> 12) % 5000, NULL);	/* an older record */
			break;
		case 2:
		case 3:
			task_set(t, ST_DEAD, now);
			break;
		case 4:
			task_set(t, ST_RUNNING, now);
			break;
		case 5:
			task_set(t, ST_RUNNABLE, now);
			break;
		case 6:
			want = victim_scan();
			CHECK(task_victim() == want, "step %d: victim %d, the scan's %d", i, task_victim(), want);
			break;
		default:
			task_get(t->tid, now, NULL);
		}
	}
	CHECK(G.m.evicted_tasks > 3000, "%" PRIu64 " evictions", G.m.evicted_tasks);
}

/* A gap of lost events between events: same rule. */
static void t_model_lost_gap(void)
{
	G.m.ncpu = 1;
	model_init(1, 64, 65536);
	ev_switch(1000, 0, 0, 0, 100);
	ev_switch(2000, 0, 100, 0, 200);	/* 100 preempted: runnable */
	ev_lost(4000, 17);
	ev_switch(7000, 0, 200, 1, 100);
	model_end(true);
	CHECK_TOTAL(100, ST_RUNNING, 1000);
	CHECK_TOTAL(100, ST_RUNNABLE, 0);	/* closed at 2000 */
	CHECK_TOTAL(100, ST_UNKNOWN, 5000);	/* 2000..7000 */
	CHECK_TOTAL(200, ST_RUNNING, 0);
	CHECK_TOTAL(200, ST_UNKNOWN, 5000);
	CHECK_TOTAL(200, ST_SLEEPING, 0);
}

/* prev_state to a state, wakeups and wakers, the first switch of a task. */
static void t_model_states(void)
{
	static const struct { int64_t prev_state; int st; } ps[] = {
		{ 0, ST_RUNNABLE }, { 1, ST_SLEEPING }, { 2, ST_BLOCKED }, { 0x100, ST_RUNNABLE },
		{ 0x80, ST_SLEEPING }, { 0x101, ST_SLEEPING }, { 0x102, ST_BLOCKED },
	};
	uint64_t t = 1000;
	struct task *p;

	G.m.ncpu = 3;
	model_init(3, 64, 65536);
	ev_switch(t, 1, 0, 0, 50);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		int tid = 10 + i;

		ev_switch(t += 100, 0, 0, 0, tid);
		ev_switch(t += 100, 0, tid, ps[i].prev_state, 0);
		p = task_of(tid);
		CHECK(p && p->state == ps[i].st, "prev_state %#" PRIx64 ": %s, want %s", ps[i].prev_state,
		      p ? st_names[p->state] : "no task", st_names[ps[i].st]);
	}

	/* wakeup of a sleeping task: runnable, waker the event's tid */
	ev_wakeup(t += 100, 50, 11, 0);
	p = task_of(11);
	CHECK(p->state == ST_RUNNABLE && p->waker == 50 && p->wakeups == 1,
	      "woken: %s waker %d wakeups %u", st_names[p->state], p->waker, p->wakeups);
	/* of a blocked task from interrupt context: waker WAKER_IRQ */
	ev_wakeup(t += 100, 50, 12, 0x08);
	p = task_of(12);
	CHECK(p->state == ST_RUNNABLE && p->waker == WAKER_IRQ, "irq wakeup: %s waker %d",
	      st_names[p->state], p->waker);
	ev_wakeup(t += 100, 50, 14, 0x10);
	CHECK(task_of(14)->waker == WAKER_IRQ, "softirq wakeup: waker %d", task_of(14)->waker);
	/* the wakeup delay: runnable from the wakeup to the switch-in */
	ev_switch(t + 700, 0, 0, 0, 11);
	CHECK(task_of(11)->max_delay == 700 + 200, "max_delay %" PRIu64, task_of(11)->max_delay);
	t += 700;

	/* a task first seen as prev of its CPU's first record: nothing is
	 * known of that CPU before it (its tracepoints may have come on
	 * late, test/sim's sideband_early), so no run is claimed */
	ev_switch(t += 100, 2, 60, 1, 0);
	p = task_of(60);
	CHECK(p && p->total[ST_RUNNING] == 0 && p->state == ST_SLEEPING && G.m.cpu[2].busy == 0,
	      "first seen as prev: running %" PRIu64 " %s, cpu2 busy %" PRIu64, p ? p->total[ST_RUNNING] : 0,
	      p ? st_names[p->state] : "-", G.m.cpu[2].busy);
	/* a task first seen as next was unknown before */
	CHECK(task_of(10)->total[ST_RUNNING] == 100, "next: running %" PRIu64, task_of(10)->total[ST_RUNNING]);
}

/* cpu_idle: enter, exit, a second entry closing the first, bounds. */
static void t_model_idle_bounds(void)
{
	struct cpu *c;
	struct ival iv, *v = &iv;

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	ev_switch(1000, 0, 0, 0, 100);
	ev_idle(2000, 1, 2);
	c = &G.m.cpu[1];
	CHECK(c->cstate == 2 && c->cstate_since == 2000, "idle enter: state %" PRId64, c->cstate);
	ev_idle(3000, 1, (int64_t)IDLE_EXIT);
	CHECK(c->cstate == -1, "idle exit: state %" PRId64, c->cstate);
	CHECK(c->last_cival != NO_IVAL, "no idle interval");
	CHECK(ival_get(c->last_cival, -2, v), "the idle interval was lost");
	CHECK(v->start == 2000 && v->end == 3000 && v->state == 2, "idle interval [%" PRIu64 ", %"
	      PRIu64 ") state %d", v->start, v->end, v->state);
	ev_idle(4000, 1, 1);
	ev_idle(5000, 1, 3);		/* a second entry closes the first */
	CHECK(ival_get(c->last_cival, -2, v), "the idle interval was lost");
	CHECK(v->start == 4000 && v->end == 5000 && v->state == 1 && c->cstate == 3,
	      "second entry: [%" PRIu64 ", %" PRIu64 ") state %d, now %" PRId64, v->start, v->end,
	      v->state, c->cstate);
	ev_switch(5500, 0, 100, 1, 0);
	model_end(true);		/* the open idle state closes at the last event */
	CHECK(ival_get(c->last_cival, -2, v), "the idle interval was lost");
	CHECK(v->start == 5000 && v->end == 5500 && v->state == 3, "at the end: [%" PRIu64 ", %"
	      PRIu64 ") state %d", v->start, v->end, v->state);

	/* bounds: counted, nothing written out of range */
	ev_switch(6000, 5000, 100, 0, 200);
	ev_idle(6100, 5000, 1);
	ev_idle(6200, -1, 1);
	CHECK(G.bad.cpu == 3, "bad_cpu %" PRIu64 ", want 3", G.bad.cpu);
	ev_wakeup(6300, 100, -5, 0);
	ev_switch(6400, 0, -5, 0, 100);
	ev_switch(6500, 0, 100, 0, PID_MAX + 1);
	CHECK(G.m.bad_pid == 3, "bad_pid %" PRIu64 ", want 3", G.m.bad_pid);
	CHECK(!task_of(-5) && !task_of(PID_MAX + 1), "a bad pid became a task");
}

/* A sample of tid on cpu: a syscall record when call >= 0 (sys_enter, or
 * sys_exit with ret when exit), else a sched_migrate_task it raised. */
static void ev_sample(uint64_t t, int cpu, int tid, int call, bool exit, int64_t ret)
{
	struct ev e = { .time = t, .cpu = cpu, .tid = tid, .pid = tid };

	if (call >= 0) {
		e.kind = exit ? EV_SYS_EXIT : EV_SYS_ENTER;
		e.b = call;
		e.a = 3;
		e.v = ret;
	} else {
		e.kind = EV_MIGRATE;
		e.a = 999;
		e.b = e.c = cpu;
	}
	model_event(&e);
}

/* sched_waking (or another wakeup kind) of wakee raised by tid waker on cpu. */
static void ev_wake(uint64_t t, int kind, int cpu, int waker, int wakee, unsigned flags)
{
	struct ev e = { .kind = kind, .time = t, .cpu = cpu, .tid = waker, .pid = waker,
			.a = wakee, .c = cpu, .flags = flags };

	snprintf(e.comm, sizeof(e.comm), "t%d", wakee);
	model_event(&e);
}

/* The recording has sched_waking and sched_wakeup (model_traced), as tc's
 * own and perf record -e 'sched:*' have (without sched_wakeup:
 * t_model_waking_only). */
static void traced_wakeups(void)
{
	G.ev.attr[0].kind = EV_WAKING;
	G.ev.attr[1].kind = EV_WAKEUP;
	G.ev.nattr = 2;
}

/* Collects the running intervals ival_walk finds (up to max). */
struct runs { struct ival *v; int n, max; };

static bool runs_fn(const struct ival *v, void *arg)
{
	struct runs *r = arg;

	if (v->state == ST_RUNNING && r->n < r->max)
		r->v[r->n++] = *v;
	return true;
}

/* The model's invariants after model_end: at no instant more tasks running
 * than CPUs; per CPU, the tasks' run time is its busy time.  Empty string
 * if they hold, else what broke. */
/* ns of task time unknown because of switches the kernel left out: the
 * unknown intervals of that cause (after model_end, all are closed). */
static bool missing_fn(const struct ival *v, void *arg)
{
	if (v->state == ST_UNKNOWN && (v->aux & 7) == UNK_MISSING)
		*(uint64_t *)arg += v->end - v->start;
	return true;
}

static uint64_t missing_ns(void)
{
	uint64_t ns = 0;

	for (int i = 0; i < G.m.ntask; i++)
		ival_walk(G.m.task[i].last_ival, i, 0, missing_fn, &ns);
	return ns;
}

static const char *model_invariants(void)
{
	static char msg[160];

	static struct ival run[4096];
	struct runs r = { run, 0, 4096 };

	for (int i = 0; i < G.m.ntask; i++)
		ival_walk(G.m.task[i].last_ival, i, 0, runs_fn, &r);
	for (int i = 0; i < r.n; i++) {
		const struct ival *v = &run[i];
		int n = 0;

		for (int j = 0; j < r.n; j++) {
			const struct ival *w = &run[j];

			if (w->start <= v->start && v->start < w->end)
				n++;
		}
		if (n > G.m.ncpu) {
			snprintf(msg, sizeof(msg), "%d tasks running at %" PRIu64 " on %d CPUs", n, v->start, G.m.ncpu);
			return msg;
		}
	}
	for (int c = 0; c < G.m.ncpu; c++)
		if (G.m.cpu[c].task_run != G.m.cpu[c].busy) {
			snprintf(msg, sizeof(msg), "cpu%d: tasks ran %" PRIu64 ", busy %" PRIu64, c,
				 G.m.cpu[c].task_run, G.m.cpu[c].busy);
			return msg;
		}
	return "";
}

#define CHECK_INVARIANTS() do {						\
	const char *m_ = model_invariants();				\
	CHECK(!m_[0], "%s", m_);					\
} while (0)

/*
 * Switch-ins never followed by their switch-outs: the next switch on the
 * CPU ends the task at its last sample there, or at its switch-in.
 *
 *   cpu0  1000 0->100  1500 sample 100  (100->0 lost)  3000 0->200  4000 200(S)->0
 *   cpu1  1000 0->300  1200 sample 300  (300->0 lost)  3500 0->300
 */
static void t_model_missing_out(void)
{
	struct task *a, *b;

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	ev_switch(1000, 0, 0, 0, 100);
	ev_switch(1000, 1, 0, 0, 300);
	ev_sample(1200, 1, 300, -1, false, 0);
	ev_sample(1500, 0, 100, -1, false, 0);
	ev_switch(3000, 0, 0, 0, 200);		/* 100's switch-out is missing */
	a = task_of(100);
	CHECK(a->state == ST_UNKNOWN && a->run_cpu == -1 && a->missing_out == 1,
	      "100 after the switch: %s on %d, missing_out %u", st_names[a->state], a->run_cpu, a->missing_out);
	CHECK(G.m.cpu[0].cur == 200, "cpu0 runs %d", G.m.cpu[0].cur);
	ev_switch(3500, 1, 0, 0, 300);		/* 300 in again: its switch-out was lost */
	ev_switch(4000, 0, 200, 1, 0);
	/* 300 switched in on cpu0 while believed on cpu1: ends there at 4100 */
	ev_sample(4100, 1, 300, -1, false, 0);
	ev_switch(4500, 0, 0, 0, 300);
	ev_switch(5000, 0, 300, 1, 0);
	model_end(true);
	CHECK_TOTAL(100, ST_RUNNING, 500);	/* 1000..1500, its last sample */
	CHECK_TOTAL(100, ST_UNKNOWN, 3500);	/* 1500..5000 */
	CHECK_TOTAL(200, ST_RUNNING, 1000);
	b = task_of(300);
	CHECK(b->total[ST_RUNNING] == 200 + 600 + 500 && b->total[ST_UNKNOWN] == 2300 + 400 && b->missing_out == 2,
	      "300: running %" PRIu64 " unknown %" PRIu64 " missing_out %u", b->total[ST_RUNNING],
	      b->total[ST_UNKNOWN], b->missing_out);
	CHECK(G.m.missing_out == 3, "missing_out %" PRIu64 ", want 3", G.m.missing_out);
	/* cpu0: 100 until 1500, unknown until 3000 (no evidence of idle), 200,
	 * idle, 300 */
	CHECK(G.m.cpu[0].busy == 1500 + 500 && G.m.cpu[0].idle == 500, "cpu0 busy %" PRIu64 " idle %" PRIu64,
	      G.m.cpu[0].busy, G.m.cpu[0].idle);
	CHECK(missing_ns() == 3500 + 2300 + 400, "unknown because of missing switches %" PRIu64,
	      missing_ns());
	CHECK_INVARIANTS();
}

/*
 * Switch-outs never preceded by their switch-ins (this machine's kernel
 * drops CPU 1's switches out of idle): a task runs from its first record
 * on the CPU, unknown since it was woken (its switch-in could have come at
 * any time); the idle task ends at its last evidence, the CPU is unknown
 * until the task's record; nothing is known of a CPU before its first
 * record.
 *
 *   cpu0  1000 100(S)->0   2000 200 woken   3000 sample 200   4000 200(S)->0
 *         5000 300 woken   6000 300(S)->0 (no sample)
 */
static void t_model_missing_in(void)
{
	struct task *p;

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	ev_switch(500, 1, 0, 0, 7);
	ev_switch(1000, 0, 100, 1, 0);			/* cpu0's first record */
	ev_wake(2000, EV_WAKING, 1, 7, 200, 0);
	ev_wake(2001, EV_WAKEUP, 1, 7, 200, 0);
	ev_sample(3000, 0, 200, 0, false, 0);		/* sys_enter: 200 runs on cpu0 */
	ev_switch(4000, 0, 200, 1, 0);
	p = task_of(200);
	CHECK(p->inferred == 1 && p->switches == 1 && G.m.inferred == 1, "200: inferred %u switches %u",
	      p->inferred, p->switches);
	CHECK_TOTAL(200, ST_RUNNABLE, 0);	/* woken at 2000: when it ran is unknown */
	CHECK_TOTAL(200, ST_UNKNOWN, 1000);
	CHECK_TOTAL(200, ST_RUNNING, 1000);	/* from its sample */
	/* idle ended at its last evidence (the switch at 1000); 100 ran at
	 * cpu0's first record only */
	CHECK(G.m.cpu[0].idle == 0 && G.m.cpu[0].busy == 1000, "cpu0 idle %" PRIu64 " busy %" PRIu64,
	      G.m.cpu[0].idle, G.m.cpu[0].busy);
	ev_wake(5000, EV_WAKING, 1, 7, 300, 0);
	ev_wake(5001, EV_WAKEUP, 1, 7, 300, 0);
	ev_switch(6000, 0, 300, 1, 0);
	ev_switch(7000, 1, 7, 1, 0);
	model_end(true);
	CHECK_TOTAL(300, ST_RUNNING, 0);
	CHECK_TOTAL(300, ST_UNKNOWN, 1000);
	CHECK_TOTAL(300, ST_SLEEPING, 1000);
	CHECK_TOTAL(200, ST_SLEEPING, 3000);
	/* cpu0 left out a switch out of idle: at the end its idle stops at its
	 * last record (6000), as it may run a woken task without a word */
	CHECK(G.m.cpu[0].idle == 0 && G.m.cpu[0].busy == 1000, "cpu0 idle %" PRIu64 " busy %" PRIu64,
	      G.m.cpu[0].idle, G.m.cpu[0].busy);
	CHECK(G.m.inferred == 2 && G.m.missing_out == 0 && missing_ns() == 2000,
	      "inferred %" PRIu64 " missing_out %" PRIu64 " unknown %" PRIu64, G.m.inferred, G.m.missing_out,
	      missing_ns());
	CHECK_TOTAL(100, ST_RUNNING, 0);	/* nothing known before cpu0's first record */
	CHECK(task_of(100)->initial == 0 && task_of(7)->initial == 0, "initial: 100 %" PRIu64 " 7 %" PRIu64,
	      task_of(100)->initial, task_of(7)->initial);
	CHECK_INVARIANTS();
}

/*
 * A task first seen as prev on a CPU that had switches, with and without a
 * sample of it; and the idle task seen as prev where a task was believed
 * running: idle from its first sample (cpu_idle), the task unknown.
 */
static void t_model_first_prev(void)
{
	G.m.ncpu = 1;
	model_init(1, 64, 65536);
	ev_switch(1000, 0, 0, 0, 100);
	ev_sample(1500, 0, 100, -1, false, 0);
	ev_idle(2000, 0, 1);			/* the idle task's sample: 100 left */
	ev_switch(3000, 0, 0, 0, 200);		/* 100's switch-out and idle's switch-in lost */
	ev_sample(3500, 0, 300, -1, false, 0);	/* 300, never seen before */
	ev_switch(4000, 0, 300, 1, 0);		/* 200's switch-out and 300's switch-in lost */
	ev_switch(5000, 0, 0, 0, 400);
	ev_switch(6000, 0, 500, 1, 0);		/* 500 first seen as prev, no sample */
	model_end(true);
	CHECK_TOTAL(100, ST_RUNNING, 500);
	/* idle from its sample at 2000 to 3000, and 4000..5000 */
	CHECK(G.m.cpu[0].idle == 1000 + 1000, "cpu0 idle %" PRIu64, G.m.cpu[0].idle);
	CHECK_TOTAL(200, ST_RUNNING, 0);	/* to its last evidence: its switch-in */
	CHECK_TOTAL(200, ST_UNKNOWN, 3000);
	CHECK_TOTAL(300, ST_RUNNING, 500);	/* from its sample */
	CHECK_TOTAL(500, ST_RUNNING, 0);
	CHECK(task_of(400)->missing_out == 1 && task_of(200)->missing_out == 1 && task_of(100)->missing_out == 1,
	      "missing_out of 100, 200, 400: %u %u %u", task_of(100)->missing_out,
	      task_of(200)->missing_out, task_of(400)->missing_out);
	CHECK(task_of(300)->inferred == 1 && task_of(500)->inferred == 1, "inferred of 300, 500: %u %u",
	      task_of(300)->inferred, task_of(500)->inferred);
	CHECK_INVARIANTS();
}

/* A sched_waking of a task woken before and not seen running since (the
 * kernel left out its switches): the time since that wakeup is unknown,
 * an inferred switch-in, not a wait; it is runnable again from the new
 * waking.  A task preempted is runnable on the runqueue and may get a
 * waking (preempted on its way to sleep): it stays runnable. */
static void t_model_waking_again(void)
{
	struct task *p;

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	ev_switch(1000, 0, 0, 0, 10);
	ev_switch(1100, 0, 10, 1, 0);			/* 10 sleeps */
	ev_wake(2000, EV_WAKING, 1, 9, 10, 0);		/* woken by 9 */
	ev_wake(2001, EV_WAKEUP, 1, 9, 10, 0);		/* the same wakeup */
	p = task_of(10);
	CHECK(p->state == ST_RUNNABLE && p->inferred == 0, "woken: %s, inferred %u", st_names[p->state], p->inferred);
	ev_wake(7000, EV_WAKING, 1, 9, 10, 0);		/* its run and sleep were not reported */
	CHECK(p->state == ST_RUNNABLE && p->since == 7000 && p->inferred == 1 && p->wakeups == 2 &&
	      p->total[ST_RUNNABLE] == 0 && p->total[ST_UNKNOWN] == 5000,
	      "woken again: %s since %" PRIu64 ", inferred %u, wakeups %u, runnable %" PRIu64 ", unknown %" PRIu64,
	      st_names[p->state], p->since, p->inferred, p->wakeups, p->total[ST_RUNNABLE], p->total[ST_UNKNOWN]);
	ev_switch(7500, 0, 0, 0, 10);
	CHECK(p->max_delay == 500, "its wait: %" PRIu64 " ns, want 500", p->max_delay);
	ev_switch(8000, 0, 10, 0, 0);			/* preempted */
	ev_wake(8100, EV_WAKING, 1, 9, 10, 0);
	CHECK(p->state == ST_RUNNABLE && p->since == 8000 && p->inferred == 1,
	      "preempted, then a waking: %s since %" PRIu64 ", inferred %u", st_names[p->state], p->since, p->inferred);
}

/*
 * What the kernel may have left unsaid, and tc must not claim: a
 * sched_wakeup without the sched_waking recorded before it (its sleep is
 * unknown: the waking may have come before the switch-out); at the end, a
 * CPU idle since its cpu_idle exit (the task queued on it may have run:
 * unknown since its wakeup), and a task running after its exit (its last
 * switch-out is missing: its run ends at its last record).  Each fails
 * without its rule in model_wake or model_end.
 */
static void t_model_end_unsaid(void)
{
	struct ev x = { .kind = EV_PEXIT, .time = 5000, .cpu = 0, .tid = 10, .pid = 10, .a = 10 };
	struct ev w = { .kind = EV_WAKING, .cpu = 1, .tid = 0, .a = 30, .c = 1 };
	struct task *p;

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	G.ev.attr[0].kind = EV_WAKING;		/* the file records sched_waking */
	G.ev.nattr = 1;
	ev_switch(1000, 0, 0, 0, 10);
	ev_switch(1000, 1, 0, 0, 20);
	ev_switch(1200, 1, 20, 1, 0);			/* 20 sleeps */
	ev_wake(2000, EV_WAKEUP, 0, 10, 20, 0);		/* no sched_waking before it */
	p = task_of(20);
	CHECK(p->state == ST_RUNNABLE && p->total[ST_SLEEPING] == 0 && p->total[ST_UNKNOWN] == 800,
	      "wakeup without waking: %s, sleeping %" PRIu64 ", unknown %" PRIu64 " (want 0, 800)",
	      st_names[p->state], p->total[ST_SLEEPING], p->total[ST_UNKNOWN]);
	ev_switch(2100, 1, 0, 0, 20);
	ev_switch(2200, 1, 20, 1, 0);			/* 20 sleeps again */
	ev_wake(2300, EV_WAKING, 0, 10, 20, 0);
	ev_wake(2301, EV_WAKEUP, 0, 10, 20, 0);		/* with its waking: nothing unknown */
	CHECK(p->total[ST_SLEEPING] == 100 && p->total[ST_UNKNOWN] == 800, "with waking: sleeping %" PRIu64
	      ", unknown %" PRIu64 " (want 100, 800)", p->total[ST_SLEEPING], p->total[ST_UNKNOWN]);
	ev_idle(2400, 1, 1);
	ev_idle(2500, 1, (int64_t)IDLE_EXIT);		/* out of idle, no switch follows */
	model_event(&x);				/* 10 exits on CPU 0, no switch-out */
	w.time = 9500;					/* from CPU 1's idle: 30 queued there */
	model_event(&w);
	w.kind = EV_WAKEUP;
	w.time = 9501;
	model_event(&w);
	w.kind = EV_WAKING;				/* the last event, CPU 1's: 40 woken */
	w.time = 12000;
	w.a = 40;
	model_event(&w);
	model_end(true);
	CHECK_TOTAL(30, ST_RUNNABLE, 0);		/* CPU 1 may have run it */
	p = task_of(10);
	CHECK(p->total[ST_RUNNING] == 4000 && p->missing_out == 1, "exited: ran %" PRIu64 " (want 4000), missing_out %u",
	      p->total[ST_RUNNING], p->missing_out);
}

/*
 * perf record switches its tracepoints off before its side-band event: a
 * FORK record after the last tracepoint says its task ran then, not until
 * the end (replay_perf_sched_record once had bash running 1.5 ms more
 * than timehist after such a FORK).  Fails without model_end_cut's
 * side-band rule.
 */
static void t_model_end_untraced(void)
{
	struct ev f = { .kind = EV_FORK, .time = 5000, .cpu = 0, .tid = 10, .pid = 10, .a = 11, .c = 11 };
	struct ev x = { .kind = EV_EXIT, .time = 8000, .cpu = 1, .tid = 30, .pid = 30, .a = 30, .c = 30 };
	const struct task *p;

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	ev_switch(1000, 0, 0, 0, 10);
	ev_switch(1000, 1, 0, 0, 30);
	ev_switch(2000, 0, 10, 0, 20);			/* 10 preempted: the last tracepoint */
	model_event(&f);				/* 10 forks on CPU 0 at 5000 */
	model_event(&x);				/* the last record, at 8000 */
	model_end(true);
	p = task_of(10);
	CHECK(p->total[ST_RUNNING] == 1000, "10 ran %" PRIu64 " ns, want 1000 (not 3000 more after its FORK)",
	      p->total[ST_RUNNING]);
	p = task_of(30);
	CHECK(p->total[ST_RUNNING] == 7000, "30 ran %" PRIu64 " ns, want 7000 (running since before it)",
	      p->total[ST_RUNNING]);
}

/* tc's live attrs on 2 CPUs: sched_switch (id 11, layouts[0]) and a
 * second event of sample type st (id 12, a dummy). */
static void live_attrs(uint64_t st)
{
	static uint64_t ids[2] = { 11, 12 };

	set_attr(0, SMP_LIVE, layouts[0].id);
	set_attr(1, st, 0);
	for (int i = 0; i < 2; i++) {
		G.ev.attr[i].ids = &ids[i];
		G.ev.attr[i].nids = 1;
	}
	idmap_build();
	G.m.ncpu = 2;
}

/*
 * What a ring lost after its last LOST record is only in its events' lost
 * counts (the kernel writes a LOST record when the ring next has room):
 * at the end, a LOST record of the difference on that CPU, at the last
 * time released (lost_per_cpu once saw "lost 933 (cpu0 475, cpu1 450)").
 */
static void t_lost_unsaid(void)
{
	struct rb rb[2] = { { .cpu = 0, .dummy_id = 12, .lost_read = 10 },
			    { .cpu = 1, .dummy_id = 12, .lost_read = 5 } };

	live_attrs(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU);
	G.rg.rb = rb;
	G.rg.nrb = 2;
	G.n.lostv[0] = (struct lostc){ 7, 100, 200 };	/* CPU 0's LOST records said 7 */
	G.n.lost = 7;
	G.mg.released = 5000;
	pe_lost_unsaid();
	CHECK(G.n.lost == 15 && G.n.lostv[0].n == 10 && G.n.lostv[1].n == 5,
	      "lost %" PRIu64 ", cpu0 %" PRIu64 ", cpu1 %" PRIu64 " (want 15, 10, 5)",
	      G.n.lost, G.n.lostv[0].n, G.n.lostv[1].n);
	CHECK(G.n.lostv[0].first == 100 && G.n.lostv[0].last == 5000 && G.n.lostv[1].first == 5000,
	      "cpu0 from %" PRIu64 " to %" PRIu64 ", cpu1 from %" PRIu64 " (want 100, 5000, 5000)",
	      G.n.lostv[0].first, G.n.lostv[0].last, G.n.lostv[1].first);
	pe_lost_unsaid();				/* said now: nothing more */
	CHECK(G.n.lost == 15, "a second time: lost %" PRIu64, G.n.lost);
	G.rg.rb = NULL;
	for (int i = 0; i < 2; i++)
		G.ev.attr[i].ids = NULL;
}

/* The view's pause writes an empty LOST_SAMPLES record in the dummy's
 * sample_id layout (struct lost_samples_rec): read back through emit(),
 * a pause of 0 events at its time, which closes every state. */
static void t_pause_marker(void)
{
	live_attrs(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU);
	model_init(2, 64, 65536);
	ev_switch(1000, 0, 0, 0, 100);
	pause_marker(5000);
	CHECK(G.n.kind[EV_LOST] == 1 && G.n.lost == 0 && G.m.gaps == 1 && G.m.gapv[1].at == 5000,
	      "pause: %" PRIu64 " loss records, %" PRIu64 " lost, %" PRIu64 " gaps at %" PRIu64 " (want 1, 0, 1, 5000)",
	      G.n.kind[EV_LOST], G.n.lost, G.m.gaps, G.m.gapv[1].at);
	CHECK(task_of(100)->state == ST_UNKNOWN, "task 100 is %s after the pause", st_names[task_of(100)->state]);
	for (int i = 0; i < 2; i++)
		G.ev.attr[i].ids = NULL;
}

/*
 * perf record (6.0 on) writes at its end one LOST_SAMPLES record per event
 * and CPU with a loss: the event's own lost count (PERF_FORMAT_LOST), at
 * time 0.  Those are the losses its ring's LOST records placed, counted
 * again: a perf file whose rings lost 154904 events said "lost 309808
 * (cpu0 240609 between 7.505 and 0.000 s, ...)".  Counted once; what the
 * counts hold beyond the LOST records is lost at no known place; a BPF
 * filter's drops (misc bit 15) are losses of their own.
 */
static void t_lost_counted_once(void)
{
	struct lost_rec l = {
		.h = { .type = PERF_RECORD_LOST, .size = sizeof(l) }, .id = 12, .lost = 7,
		.sid = { .time = 2000, .cpu = 1, .id = 12 },
	};
	struct lost_samples_rec e = {
		.h = { .type = PERF_RECORD_LOST_SAMPLES, .size = sizeof(e) }, .lost = 7, .sid = { .id = 12 },
	};

	live_attrs(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU);
	emit((const uint8_t *)&l, sizeof(l), 2000, NULL);
	emit((const uint8_t *)&e, sizeof(e), 2000, NULL);
	CHECK(lost_total() == 7 && G.n.lostv[1].n == 7 && G.n.lostv[0].n == 0 && G.n.lostv[1].last == 2000,
	      "lost %" PRIu64 ", cpu0 %" PRIu64 ", cpu1 %" PRIu64 " last at %" PRIu64 " (want 7, 0, 7, 2000)",
	      lost_total(), G.n.lostv[0].n, G.n.lostv[1].n, G.n.lostv[1].last);
	e.lost = 3;	/* the counts say more: the rest at no known place */
	emit((const uint8_t *)&e, sizeof(e), 2000, NULL);
	CHECK(lost_total() == 10 && G.n.lost == 7, "more counted: lost %" PRIu64 ", placed %" PRIu64 " (want 10, 7)",
	      lost_total(), G.n.lost);
	e.h.misc = 1 << 15;
	e.lost = 2;
	emit((const uint8_t *)&e, sizeof(e), 2000, NULL);
	CHECK(lost_total() == 12 && G.n.lost == 9 && G.n.lostv[0].n == 2 && G.n.lostv[0].first == 0,
	      "BPF filter: lost %" PRIu64 ", placed %" PRIu64 ", cpu0 %" PRIu64 " from %" PRIu64
	      " (want 12, 9, 2, 0: no time)", lost_total(), G.n.lost, G.n.lostv[0].n, G.n.lostv[0].first);
	G.rd.switch_output = true;	/* one file of a session: its end counts are the session's */
	e.h.misc = 0;
	e.lost = 50;
	emit((const uint8_t *)&e, sizeof(e), 2000, NULL);
	CHECK(lost_total() == 12 && G.n.lost_session == 50,
	      "--switch-output: lost %" PRIu64 ", the session's %" PRIu64 " (want 12, 50)", lost_total(),
	      G.n.lost_session);
	for (int i = 0; i < 2; i++)
		G.ev.attr[i].ids = NULL;
}

/*
 * A sched_waking while the wakee still runs (it is in schedule()) is one
 * wakeup applied at its switch-out S or D, by the task that raised it; a
 * following sched_wakeup adds nothing.  irq: only by the record's flags.
 * Preempted instead (R), or seen running on (a sample in process
 * context): the waking did not put it to sleep, dropped.
 */
static void t_model_early_waking(void)
{
	static const struct { bool wakeup, irq; } v[] = {
		{ false, false }, { true, false }, { true, true },
	};
	struct task *p;
	uint64_t t = 1000;

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	traced_wakeups();
	ev_switch(t, 1, 0, 0, 9);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int tid = 100 + i;

		ev_switch(t += 100, 0, 0, 0, tid);
		ev_wake(t += 100, EV_WAKING, 1, 9, tid, v[i].irq ? 0x08 : 0);
		ev_switch(t += 100, 0, tid, 1, 0);		/* S: woken already */
		if (v[i].wakeup)
			ev_wake(t += 50, EV_WAKEUP, 0, 0, tid, 0x08);
		p = task_of(tid);
		CHECK(p->state == ST_RUNNABLE && p->wakeups == 1 && p->waker == (v[i].irq ? WAKER_IRQ : 9),
		      "case %zu: %s, wakeups %u, waker %d", i, st_names[p->state], p->wakeups, p->waker);
		ev_switch(t += 100, 0, 0, 0, tid);
		CHECK(p->max_delay == (v[i].wakeup ? 150u : 100u), "case %zu: max_delay %" PRIu64, i, p->max_delay);
		CHECK(p->total[ST_SLEEPING] == 0, "case %zu: slept %" PRIu64, i, p->total[ST_SLEEPING]);
		ev_switch(t += 100, 0, tid, 1, 0);
	}
	/* preempted after the waking: not woken, and the waking is not kept */
	ev_switch(t += 100, 0, 0, 0, 200);
	ev_wake(t += 100, EV_WAKING, 1, 9, 200, 0);
	ev_switch(t += 100, 0, 200, 0, 0);
	p = task_of(200);
	CHECK(p->state == ST_RUNNABLE && p->wakeups == 0 && p->waker == -1, "preempted: %s wakeups %u waker %d",
	      st_names[p->state], p->wakeups, p->waker);
	ev_switch(t += 100, 0, 0, 0, 200);
	ev_switch(t += 100, 0, 200, 1, 0);
	CHECK(p->state == ST_SLEEPING && p->wakeups == 0, "then asleep: %s wakeups %u", st_names[p->state], p->wakeups);
	/* a record of it in process context after the waking does not close
	 * the wakeup: it may come from __schedule itself (test/sim found a
	 * newidle pull's migrate there); woken after the dequeue */
	ev_switch(t += 100, 0, 0, 0, 201);
	ev_wake(t += 100, EV_WAKING, 1, 9, 201, 0);
	ev_sample(t += 100, 0, 201, 0, false, 0);
	ev_switch(t += 100, 0, 201, 1, 0);
	p = task_of(201);
	CHECK(p->state == ST_RUNNABLE && p->wakeups == 1, "sample in schedule: %s wakeups %u", st_names[p->state],
	      p->wakeups);
	ev_wake(t += 50, EV_WAKEUP, 1, 9, 201, 0);
	/* its sched_wakeup before the switch-out: woken before the dequeue,
	 * it ran on, and its next sleep is a sleep */
	ev_switch(t += 100, 0, 0, 0, 202);
	ev_wake(t += 100, EV_WAKING, 1, 9, 202, 0);
	ev_wake(t += 10, EV_WAKEUP, 1, 9, 202, 0);
	ev_switch(t += 100, 0, 202, 1, 0);
	p = task_of(202);
	CHECK(p->state == ST_SLEEPING && p->wakeups == 0, "ran on: %s wakeups %u", st_names[p->state], p->wakeups);
	/* files with only sched_wakeup, or only sched_waking: once each */
	ev_wake(t += 100, EV_WAKEUP, 1, 9, 202, 0);
	ev_wake(t += 100, EV_WAKEUP, 1, 9, 202, 0);
	CHECK(p->wakeups == 1 && p->waker == 9, "only wakeup: wakeups %u waker %d", p->wakeups, p->waker);
	ev_wake(t += 100, EV_WAKING, 1, 9, 200, 0);
	CHECK(task_of(200)->wakeups == 1, "only waking: wakeups %u", task_of(200)->wakeups);
	model_end(true);
	CHECK_INVARIANTS();
}

/*
 * Recorded without sched_wakeup (perf sched record's events): a switch-out
 * S or D after a sched_waking of the task while it ran may be either a
 * wakeup after the dequeue (runnable since) or one before it and a new
 * sleep, so it is unknown (woken).  A switch-in with no waking since says
 * runnable since the switch-out (a sleep needs a waking to end); a waking
 * leaves it unknown (the task may be back on a CPU by a switch-in the
 * kernel left out).  With sched_wakeup recorded: t_model_early_waking.
 */
static void t_model_waking_only(void)
{
	struct task *p;
	char cause[64];

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	G.ev.attr[0].kind = EV_WAKING;
	G.ev.nattr = 1;
	ev_switch(1000, 1, 0, 0, 9);
	/* 100: woken after its dequeue, switched in without a waking */
	ev_switch(1000, 0, 0, 0, 100);
	ev_wake(1100, EV_WAKING, 1, 9, 100, 0);
	ev_switch(1200, 0, 100, 1, 0);				/* S */
	p = task_of(100);
	unk_text(p->unk_aux, true, cause, sizeof(cause));
	CHECK(p->state == ST_UNKNOWN && !strcmp(cause, "woken") && p->wakeups == 0,
	      "after the switch-out: %s (%s), wakeups %u", st_names[p->state], cause, p->wakeups);
	ev_switch(1500, 0, 0, 0, 100);
	CHECK(p->total[ST_RUNNABLE] == 300 && p->total[ST_UNKNOWN] == 0 && p->total[ST_SLEEPING] == 0 &&
	      p->wakeups == 1 && p->waker == 9 && p->max_delay == 300,
	      "switched in: runnable %" PRIu64 " unknown %" PRIu64 " sleeping %" PRIu64 " wakeups %u waker %d "
	      "max_delay %" PRIu64 " (want 300 0 0 1 9 300)", p->total[ST_RUNNABLE], p->total[ST_UNKNOWN],
	      p->total[ST_SLEEPING], p->wakeups, p->waker, p->max_delay);
	/* 101: blocked (D) after a waking, woken again: unknown until then */
	ev_switch(2000, 0, 100, 1, 101);
	ev_wake(2100, EV_WAKING, 1, 9, 101, 0);
	ev_switch(2200, 0, 101, 2, 0);				/* D */
	ev_wake(2600, EV_WAKING, 1, 9, 101, 0);
	ev_switch(2700, 0, 0, 0, 101);
	p = task_of(101);
	CHECK(p->total[ST_UNKNOWN] == 400 && p->total[ST_BLOCKED] == 0 && p->total[ST_RUNNABLE] == 100 &&
	      p->wakeups == 1,
	      "woken again: unknown %" PRIu64 " blocked %" PRIu64 " runnable %" PRIu64 " wakeups %u "
	      "(want 400 0 100 1)", p->total[ST_UNKNOWN], p->total[ST_BLOCKED], p->total[ST_RUNNABLE], p->wakeups);
	CHECK_INVARIANTS();
}

/* The events of t_model_io_overlay, with the I/O calls when io. */
static void io_seq(bool io)
{
	traced_wakeups();
	ev_switch(1000, 1, 0, 0, 9);
	ev_switch(1000, 0, 0, 0, 100);
	if (io)
		ev_sample(1100, 0, 100, 0, false, 0);		/* read( */
	ev_wake(1200, EV_WAKING, 1, 9, 100, 0);		/* early waking */
	ev_switch(1300, 0, 100, 1, 0);
	ev_wake(1400, EV_WAKEUP, 0, 0, 100, 0x08);
	ev_switch(1500, 0, 0, 0, 100);
	if (io) {
		ev_sample(1600, 0, 100, 0, true, 1);		/* ) = 1 */
		ev_sample(1700, 0, 100, 16, false, 0);		/* fsync( */
	}
	ev_switch(1800, 0, 100, 2, 0);				/* D */
	ev_wake(2000, EV_WAKING, 1, 9, 100, 0);
	ev_wake(2001, EV_WAKEUP, 1, 9, 100, 0);
	/* its switch-in is lost; its first sample after it at 2400 */
	if (io)
		ev_sample(2400, 0, 100, 16, true, 0);		/* ) = 0 */
	ev_sample(2400, 0, 100, -1, false, 0);
	ev_switch(2600, 0, 100, 1, 0);
	ev_wake(2700, EV_WAKING, 1, 9, 100, 0);
	ev_switch(2900, 1, 9, 0, 100);
	ev_switch(3000, 1, 100, 1, 9);
	model_end(true);
}

/*
 * -I: I/O calls are an overlay.  The same events with and without the
 * calls give the same scheduling totals, switches and wakeups; io_ms is
 * the time inside calls while not running.
 */
static void t_model_io_overlay(void)
{
	uint64_t tot[ST_N];
	uint32_t sw, wk, inf;
	uint64_t delay;
	struct task *p;

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	io_seq(false);
	p = task_of(100);
	memcpy(tot, p->total, sizeof(tot));
	sw = p->switches;
	wk = p->wakeups;
	inf = p->inferred;
	delay = p->max_delay;
	CHECK(wk == 3 && sw == 4 && inf == 1, "without -I: wakeups %u switches %u inferred %u", wk, sw, inf);
	g_reset();
	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	io_seq(true);
	p = task_of(100);
	for (int s = 0; s < ST_N; s++)
		CHECK(p->total[s] == tot[s], "%s: %" PRIu64 " with -I, %" PRIu64 " without", st_names[s],
		      p->total[s], tot[s]);
	CHECK(p->switches == sw && p->wakeups == wk && p->inferred == inf && p->max_delay == delay,
	      "with -I: switches %u wakeups %u inferred %u max_delay %" PRIu64, p->switches, p->wakeups,
	      p->inferred, p->max_delay);
	CHECK(p->io_count == 2 && p->io_ns == 500 + 700, "io_count %u io_ns %" PRIu64, p->io_count, p->io_ns);
	/* read: runnable 1300..1500; fsync: blocked 1800..2000, then unknown */
	CHECK(p->io_wait == 200 + 200, "io_wait %" PRIu64 ", want 400", p->io_wait);
	CHECK(p->last_iival != NO_IVAL, "no I/O interval for the view");
	CHECK_INVARIANTS();
}

/*
 * LOST in the middle of each rule: a gap is not a missing switch (no
 * displacement, nothing inferred, nothing counted as unknown because of
 * missing switches), evidence from before a gap does not count after it,
 * and a waking kept for a switch-out is dropped by the gap.
 */
static void t_model_lost_middle(void)
{
	struct task *p;

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	/* switch-in, gap, no switch-out: the next switch displaces nothing */
	ev_switch(1000, 0, 0, 0, 100);
	ev_sample(1500, 0, 100, -1, false, 0);
	ev_lost(2000, 5);
	ev_switch(3000, 0, 0, 0, 200);
	CHECK(task_of(100)->missing_out == 0 && G.m.missing_out == 0, "gap counted as a missing switch-out");
	CHECK_TOTAL(100, ST_RUNNING, 500);
	/* switch-out after a gap: from its first sample after the gap, not
	 * from the one before it */
	ev_sample(3200, 0, 200, -1, false, 0);
	ev_lost(3300, 5);
	ev_sample(3600, 0, 200, -1, false, 0);
	ev_switch(4000, 0, 200, 1, 0);
	p = task_of(200);
	CHECK(p->total[ST_RUNNING] == 200 + 400 && p->total[ST_UNKNOWN] == 400 && p->inferred == 0,
	      "200: running %" PRIu64 " unknown %" PRIu64 " inferred %u", p->total[ST_RUNNING],
	      p->total[ST_UNKNOWN], p->inferred);
	/* early waking, gap, switch-out S: asleep, the wakeup after counts once */
	ev_switch(4100, 0, 0, 0, 300);
	ev_wake(4200, EV_WAKING, 1, 0, 300, 0x08);
	{	/* a loss of unknown place (no CPU): every CPU's gap */
		struct ev g = { .kind = EV_LOST, .time = 4300, .cpu = -1, .v = 5 };

		model_event(&g);
	}
	ev_switch(4400, 0, 300, 1, 0);
	p = task_of(300);
	CHECK(p->state == ST_SLEEPING && p->wakeups == 0, "300 after the gap: %s, wakeups %u",
	      st_names[p->state], p->wakeups);
	ev_wake(4500, EV_WAKEUP, 1, 0, 300, 0x08);
	CHECK(p->state == ST_RUNNABLE && p->wakeups == 1, "300 woken: %s, wakeups %u", st_names[p->state], p->wakeups);
	/* a CPU's first record after a gap: prev ran at it, since when is
	 * not known (its switch-in may be in the gap) */
	ev_switch(4600, 1, 400, 1, 0);
	CHECK_TOTAL(400, ST_RUNNING, 0);
	model_end(true);
	CHECK(G.m.inferred == 0 && G.m.missing_out == 0 && missing_ns() == 0,
	      "inferred %" PRIu64 " missing_out %" PRIu64 " unknown %" PRIu64, G.m.inferred, G.m.missing_out,
	      missing_ns());
	CHECK(G.m.gaps == 3, "gaps %" PRIu64, G.m.gaps);
	CHECK_INVARIANTS();
}

/*
 * A loss in one CPU's ring (a LOST record with that CPU, after the hole)
 * makes unknown only what ran on that CPU, from its newest record; the
 * other CPU's task keeps running.
 *   cpu0  1000 0->100 ...................................... 9000 100->0
 *   cpu1  1000 0->200  2000 sample 200 |hole| 8000 LOST  8500 0->200?
 */
static void t_model_lost_one_cpu(void)
{
	struct ev lost = { .kind = EV_LOST, .time = 8000, .cpu = 1, .v = 42 };

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	ev_switch(1000, 0, 0, 0, 100);
	ev_switch(1000, 1, 0, 0, 200);
	ev_sample(2000, 1, 200, -1, false, 0);
	ev_sample(5000, 0, 100, -1, false, 0);
	model_event(&lost);
	ev_switch(9000, 0, 100, 1, 0);
	model_end(true);
	CHECK_TOTAL(100, ST_RUNNING, 8000);	/* cpu0 is complete */
	CHECK_TOTAL(200, ST_RUNNING, 1000);	/* to cpu1's newest record */
	CHECK(task_of(200)->total[ST_UNKNOWN] >= 6000 && task_of(200)->lost_gaps == 1 &&
	      task_of(100)->lost_gaps == 0, "200: unknown %" PRIu64 ", lost_gaps %u / %u",
	      task_of(200)->total[ST_UNKNOWN], task_of(200)->lost_gaps, task_of(100)->lost_gaps);
	CHECK(G.m.cpu[1].busy == 1000 && G.m.cpu[0].busy == 8000, "busy cpu0 %" PRIu64 " cpu1 %" PRIu64,
	      G.m.cpu[0].busy, G.m.cpu[1].busy);
	CHECK_INVARIANTS();
}

/*
 * A stream (pipe mode: not scanned first) whose sched_switch was sampled
 * (perf record -F): after a side-band record, as after a sampled one, the
 * CPU is unknown, since the switches that followed may have been left
 * out.  cpu1: 1000 0->300, 2000 300->0, 3000 and 6000 COMM records of
 * 400 (evidence that 400 ran there then), 9000 500->0.  400 is not
 * claimed running between its records (it was, 3000 to 6000, where the
 * truth can have other tasks run).
 */
static void t_sampled_stream_sideband(void)
{
	static const int sw[][4] = { { 1000, 0, 300 }, { 2000, 300, 0 }, { 9000, 500, 0 } };
	static uint8_t buf[4096];
	size_t len = 0;

	CHECK(merge_setup_file(), "setup");
	G.ev.attr[0].pa.freq = 1;	/* -F: sampled */
	attr_bind(&G.ev.attr[0]);
	CHECK(G.ev.sampled, "the attr is not sampled");
	for (int i = 0; i < 3; i++) {
		const struct sw s = { .prev_comm = "p", .next_comm = "n", .prev_pid = sw[i][1],
				      .next_pid = sw[i][2], .prev_prio = 120, .next_prio = 120 };
		uint8_t raw[128];
		struct smp sm = { .id = 1, .time = sw[i][0], .pid = sw[i][1], .tid = sw[i][1], .cpu = 1, .raw = raw };

		for (int k = 0; i == 2 && k < 2; k++) {	/* side-band records before the last switch */
			struct smp c = { .id = 1, .time = 3000 + 3000 * k, .pid = 400, .tid = 400, .cpu = 1 };

			len += mk_comm(buf + len, SMP_LIVE, 400, 400, "side", false, &c);
		}
		sm.rawsz = mk_switch_raw(raw, &layouts[0], &s);
		len += mk_sample(buf + len, SMP_LIVE, &sm);
	}
	G.rd.pipe = true;
	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	CHECK(file_read(buf, len, false, 2), "read");
	model_end(true);
	CHECK(task_of(400), "task 400 missing");
	CHECK_TOTAL(400, ST_RUNNING, 0);
	CHECK(G.n.unrec_all == 0, "%" PRIu64 " events counted left out (freq periods of 0)", G.n.unrec_all);
}

/*
 * What is sampled: a frequency (-F); a fixed period only where the samples
 * have no PERIOD, since with it the kernel records every event, period 1
 * each (perf record -c 4: every record of period 1, nothing left out).
 */
static void t_sampled_attr(void)
{
	static const struct { uint64_t freq, period, type; bool sampled; } v[] = {
		{ 1, 500, PERF_SAMPLE_PERIOD, true },
		{ 0, 4, PERF_SAMPLE_PERIOD, false },
		{ 0, 4, 0, true },
		{ 0, 1, 0, false },
	};

	CHECK(merge_setup_file(), "setup");
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct attr *a = &G.ev.attr[0];

		a->pa.freq = v[i].freq;
		a->pa.sample_period = v[i].period;
		a->pa.sample_type = (a->pa.sample_type & ~(uint64_t)PERF_SAMPLE_PERIOD) | v[i].type;
		G.ev.sampled = false;
		attr_bind(a);
		CHECK(a->sampled == v[i].sampled && G.ev.sampled == v[i].sampled,
		      "case %zu (freq %" PRIu64 ", period %" PRIu64 "): sampled %d", i, v[i].freq, v[i].period,
		      a->sampled);
	}
}

/* An interrupt record of kind on cpu at t, on top of task tid. */
static void ev_irq(uint64_t t, int cpu, int tid, int kind, int irq, const char *name)
{
	struct ev e = { .kind = kind, .time = t, .cpu = cpu, .tid = tid, .pid = tid, .a = irq, .flags = 0x08 };

	snprintf(e.comm, sizeof(e.comm), "%s", name);
	model_event(&e);
}

/*
 * -Q: a hardirq inside a softirq inside a task's run; a lost exit; a gap
 * inside a softirq.  The CPU's hardirq time, its softirq time less the
 * nested hardirq, the task's share, the counters per IRQ and vector.
 *
 *   cpu0  1000 0->100  2000 [irq 24 eth0] 2500  3000 [NET_RX 3200 [irq 24] 3300] 4000
 *         5000 100->0  6000 [irq 24 (exit lost)  7000 [irq 24] 7100
 *         8000 [NET_RX  9000 LOST cpu0  (dropped)  10000 0->100  11000 end
 */
static void t_model_irq(void)
{
	const struct irq_stat *s;
	const struct cpu *c;
	char name[COMM_LEN];

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	ev_switch(1000, 0, 0, 0, 100);
	ev_irq(2000, 0, 100, EV_IRQ, 24, "eth0");
	ev_irq(2500, 0, 100, EV_IRQ_EXIT, 24, "");
	ev_irq(3000, 0, 100, EV_SOFTIRQ, 3, "");
	ev_irq(3200, 0, 100, EV_IRQ, 24, "eth0");
	ev_irq(3300, 0, 100, EV_IRQ_EXIT, 24, "");
	ev_irq(4000, 0, 100, EV_SOFTIRQ_EXIT, 3, "");
	ev_switch(5000, 0, 100, 1, 0);
	ev_irq(6000, 0, 0, EV_IRQ, 24, "eth0");
	ev_irq(7000, 0, 0, EV_IRQ, 24, "eth0");	/* the exit of 6000 was lost */
	ev_irq(7100, 0, 0, EV_IRQ_EXIT, 24, "");
	ev_irq(8000, 0, 0, EV_SOFTIRQ, 3, "");
	{
		struct ev lost = { .kind = EV_LOST, .time = 9000, .cpu = 0, .v = 5 };

		model_event(&lost);
	}
	ev_switch(10000, 0, 0, 0, 100);
	ev_switch(11000, 1, 0, 0, 7);
	model_end(true);
	c = &G.m.cpu[0];
	CHECK(c->irq_ns == 500 + 100 + 100 && c->softirq_ns == 1000 - 100, "cpu0 irq %" PRIu64 " softirq %" PRIu64,
	      c->irq_ns, c->softirq_ns);
	CHECK(task_of(100)->irq_ns == 500 + 1000, "task 100 irq_ns %" PRIu64, task_of(100)->irq_ns);
	CHECK_TOTAL(100, ST_RUNNING, 4000 + 1000);
	s = irq_stat(0, false, 24, false);
	CHECK(s && s->count == 3 && s->ns == 700 && s->max == 500 && !strcmp(s->name, "eth0"),
	      "irq 24: %u, %" PRIu64 " ns, max %" PRIu64 ", %s", s ? s->count : 0, s ? s->ns : 0, s ? s->max : 0,
	      s ? s->name : "-");
	s = irq_stat(0, true, 3, false);
	CHECK(s && s->count == 1 && s->ns == 900, "NET_RX: %u, %" PRIu64 " ns", s ? s->count : 0, s ? s->ns : 0);
	CHECK(G.m.irq_lost == 2, "irq_lost %" PRIu64 ", want 2 (an exit, a gap)", G.m.irq_lost);
	CHECK(!irq_stat(1, false, 24, false), "cpu1 has an irq 24");
	irq_name(0, 24, name, sizeof(name));
	CHECK(!strcmp(name, "eth0"), "irq 24 named %s", name);
	irq_name(0, -1 - 3, name, sizeof(name));
	CHECK(!strcmp(name, "vec3"), "vector 3 without a format named %s", name);
	CHECK_INVARIANTS();
}

/*
 * migrations counts a task's sched_migrate_task records to another CPU:
 * 200 woken on cpu0, pulled to cpu1 and back, and one record from a CPU
 * to itself (set_task_cpu traces that too), which the kernel's
 * se.nr_migrations does not count.
 */
static void t_model_migrations(void)
{
	static const int move[][2] = { { 0, 1 }, { 1, 1 }, { 1, 0 } };

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	ev_switch(1000, 0, 0, 0, 100);
	ev_switch(1000, 1, 0, 0, 0);
	ev_wake(2000, EV_WAKING, 0, 100, 200, 0);
	for (int i = 0; i < 3; i++) {
		struct ev e = { .kind = EV_MIGRATE, .time = 3000 + i, .cpu = 0, .tid = 100, .pid = 100,
				.a = 200, .b = move[i][0], .c = move[i][1] };

		model_event(&e);
	}
	model_end(true);
	CHECK(task_of(200)->migrations == 2 && task_of(100)->migrations == 0, "migrations 200: %u, 100: %u",
	      task_of(200)->migrations, task_of(100)->migrations);
	CHECK(task_of(200)->cpu == 0, "200 queued on cpu%d, want cpu0", task_of(200)->cpu);
	CHECK_INVARIANTS();
}

/*
 * -I in the view: a task sleeping inside a read() is sleeping in the model
 * and drawn as I/O (from its call intervals), running where it runs.
 *   100 runs [1000, 2000), read( at 1500, sleeps 2000, woken 9000, runs
 *   9500, ) at 9600, sleeps at 10000; the view [1000, 11000) in 100 columns
 */
static void t_model_io_drawn(void)
{
	int slot, st, aux;
	uint64_t s, e;

	G.m.ncpu = 1;
	model_init(1, 64, 65536);
	ev_switch(1000, 0, 0, 0, 100);
	ev_sample(1500, 0, 100, 0, false, 0);
	ev_switch(2000, 0, 100, 1, 0);
	ev_wake(9000, EV_WAKING, 0, 0, 100, 0x08);
	ev_switch(9500, 0, 0, 0, 100);
	ev_sample(9600, 0, 100, 0, true, 1);
	ev_switch(10000, 0, 100, 1, 0);
	ev_idle(11000, 0, 1);
	slot = task_of(100) - G.m.task;
	CHECK(task_at(slot, 6000, &st, &s, &e, &aux) && st == ST_SLEEPING && s == 2000 && e == 9000,
	      "at 6000: %s [%" PRIu64 ", %" PRIu64 ")", st_names[st], s, e);
	scr_setup(4, 129);
	CHECK(G.term.cols - LABEL_W == 100, "%d columns of cells", G.term.cols - LABEL_W);
	G.term.utf8 = false;
	G.term.ncolor = 0;
	G.v.start = 1000;
	G.v.end = G.v.now = 11000;
	acc_row(slot);
	draw_cells(0, slot);
	for (int c = 0; c < 100; c++) {
		/* running: #; not running inside the call (sleeping, then
		 * runnable): the I/O glyph; sleeping after it: blank */
		uint16_t ch = G.term.scr[LABEL_W + c].ch, want = c < 10 ? '#' : c < 85 ? 'I' : c < 90 ? '#' : ' ';

		CHECK(ch == want, "column %d (t %d) holds '%c', want '%c'", c, 1000 + c * 100, ch, want);
	}
}

/* ---------------------------------------------------------------- recorder */

/*
 * The recorder over synthetic events, read back by the reader: in the host's
 * byte order, so that on a big-endian target (make cross runs this under
 * qemu on mips and s390x) it is a big-endian recording.  With TC_UNIT_REC=DIR
 * the files stay as DIR/rec.data (closed) and DIR/rec-cut.data (a copy of
 * the file after the first checkpoint, cut inside a record: what a killed tc
 * leaves), for test/cross.sh to read on every target, repair and give to
 * perf script.
 */
enum { REC_NEV = 40 };

/* A fake tracefs: what td_build reads besides the formats. */
static void rec_fake_tfs(const char *dir)
{
	static const char *const files[][2] = {
		{ "events/header_page",
		  "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
		  "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
		  "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
		  "\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n" },
		{ "events/header_event",
		  "# compressed entry header\n\ttype_len    :    5 bits\n"
		  "\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n"
		  "\tpadding     : type == 29\n\ttime_extend : type == 30\n"
		  "\ttime_stamp : type == 31\n\tdata max type_len  == 28\n" },
	};
	char path[700];

	snprintf(path, sizeof(path), "%s/events", dir);
	mkdir(path, 0700);
	for (int i = 0; i < 2; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i][0]);
		if (!(f = fopen(path, "w")) || fputs(files[i][1], f) < 0 || fclose(f)) {
			perror(path);
			exit(2);
		}
	}
	scopy(G.ev.tfs_root, sizeof(G.ev.tfs_root), dir);
}

/* Record nev switches (i = 0..: time 1000 + 10 i, CPU i % 2, prev pid
 * 100 + i) through emit, with a checkpoint half way and a copy of the file
 * after it in cut (NULL: none). */
static void rec_write(const char *path, const char *cut, int nev)
{
	const struct sw_layout *L = &layouts[0];
	uint8_t raw[128], rec[256];

	fmt_add("sched", L->text, strlen(L->text));
	live_attrs(SMP_LIVE);
	G.opt.rec_path = path;
	rec_open(2);
	for (int i = 0; i < nev; i++) {
		char prev[24];
		struct sw s = { .prev_comm = prev, .next_comm = "next", .prev_pid = 100 + i,
				.next_pid = 7, .prev_prio = 120, .next_prio = 120,
				.common_pid = 100 + i, .prev_state = 1 };
		struct smp sm = { .id = 11, .time = 1000 + 10 * i, .pid = 100 + i,
				  .tid = 100 + i, .cpu = i % 2, .raw = raw };
		struct rinfo ri;
		size_t n;

		snprintf(prev, sizeof(prev), "task-%d", i);
		sm.rawsz = mk_switch_raw(raw, L, &s);
		n = mk_sample(rec, SMP_LIVE, &sm);
		if (rec_info(rec, n, &ri) == 0)
			emit(rec, n, sm.time, &ri);
		if (i == nev / 2) {
			rec_round();
			rec_checkpoint();
			if (cut) {
				size_t len;
				char *all = read_all(path, &len);
				int fd = open(cut, O_WRONLY | O_CREAT | O_TRUNC, 0600);

				/* cut 12 bytes into the first record after the trailer */
				if (!all || fd < 0 || write_all(fd, all, len) < 0 ||
				    write_all(fd, rec, 12) < 0)
					exit(2);
				close(fd);
				mem_free(all);
			}
		}
	}
	rec_round();
	rec_close();
	mem_free(G.rec.blobs);
	mem_free(G.rec.buf);
}

/* What rd_open took for a read of a recording, given back. */
static void rec_read_end(void)
{
	for (int i = 0; i < G.ev.nattr; i++)
		mem_free(G.ev.attr[i].ids);
	rd_buf_free();
	close(G.rc.fd);
}

/* Read path to the script stream (ms_buf); returns rd_run's result. */
static int rec_read(const char *path)
{
	int ret;

	ms_open();
	rd_open(path);
	ret = rd_run(UINT64_MAX);
	ms_sync();
	rec_read_end();
	return ret;
}

/* nev records written (rec_write) and read back (rec_read), every event
 * as written, in order; the files stay in keep (NULL: removed). */
static void rec_roundtrip(int nev, const char *keep)
{
	char dir[] = "/tmp/tc-unit-rec.XXXXXX", path[600], cut[600], tfs[600];
	char *text = NULL, *line;
	int ret, n = 0;
	bool ok = true;
	struct stat st;
	uint64_t size = 0;

	CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
	snprintf(tfs, sizeof(tfs), "%s/tfs", dir);
	mkdir(tfs, 0700);
	rec_fake_tfs(tfs);
	snprintf(path, sizeof(path), "%s/rec.data", keep ? keep : dir);
	snprintf(cut, sizeof(cut), "%s/rec-cut.data", keep ? keep : dir);
	unlink(path);
	unlink(cut);
	rec_write(path, keep ? cut : NULL, nev);
	g_reset();
	if (stat(path, &st) == 0)
		size = st.st_size;
	ret = rec_read(path);
	if (ms_buf)
		text = strdup(ms_buf);
	g_reset();
	if (!keep) {
		unlink(path);
		snprintf(tfs, sizeof(tfs), "rm -rf '%s'", dir);
		ok = system(tfs) == 0;
	}
	CHECK(ok, "could not remove %s", dir);
	CHECK(text, "no script output");
	scratch[nscratch++] = text;
	CHECK(ret == 0, "rd_run %d (0: clean end); read: %.300s", ret, text);
	for (line = text; *line; line = strchr(line, '\n') + 1) {
		char want[160];

		snprintf(want, sizeof(want),
			 "%d %d sched_switch prev_comm=task-%d prev_pid=%d prev_state=1 next_comm=next next_pid=7\n",
			 1000 + 10 * n, n % 2, n, 100 + n);
		CHECK(!strncmp(line, want, strlen(want)), "event %d: '%.*s', want '%.*s'", n,
		      (int)strcspn(line, "\n"), line, (int)strlen(want) - 1, want);
		n++;
		if (!strchr(line, '\n'))
			break;
	}
	CHECK(n == nev, "%d events read back, want %d", n, nev);
	CHECK(nev == REC_NEV || size > 8 * RD_BUF, "%" PRIu64 " bytes: the buffer refilled a few times only", size);
}

/*
 * The recorder writes its buffer when it reaches a multiple of REC_BUF
 * in the file (rec_append: writes at such offsets leave the file in the
 * page cache in large folios), whatever the records' sizes and where the
 * data began; the bytes are the records, in order.
 */
static void t_rec_aligned(void)
{
	enum { START = 10464, NREC = 40000 };
	static uint8_t want[START + NREC * 200];
	uint8_t rec[200];
	size_t len = START;
	uint8_t *got;

	G.rec.fd = memfd_create("unit-rec", 0);
	CHECK(G.rec.fd >= 0 && pwrite(G.rec.fd, want, START, 0) == START &&
	      lseek(G.rec.fd, START, SEEK_SET) == START, "memfd");
	G.rec.buf = tmalloc(REC_BUF);
	G.rec.pos = START;
	for (int i = 0; i < NREC; i++) {
		size_t n = 8 * (1 + (size_t)i * 7919 % 25);	/* 8 to 200 bytes */

		for (size_t k = 0; k < n; k++)
			rec[k] = (uint8_t)(i + k);
		rec_append(rec, n);
		memcpy(want + len, rec, n);
		len += n;
		CHECK(lseek(G.rec.fd, 0, SEEK_CUR) % REC_BUF == 0 || lseek(G.rec.fd, 0, SEEK_CUR) == START,
		      "record %d: a write ended at %lld", i, (long long)lseek(G.rec.fd, 0, SEEK_CUR));
	}
	rec_flush();
	CHECK(G.rec.pos == len && lseek(G.rec.fd, 0, SEEK_CUR) == (off_t)len, "%" PRIu64 " bytes, want %zu", G.rec.pos, len);
	got = tmalloc(len);
	CHECK(pread(G.rec.fd, got, len, 0) == (ssize_t)len && !memcmp(got, want, len), "the bytes differ");
	close(G.rec.fd);
	G.rec.fd = -1;
}

static void t_rec_roundtrip(void)
{
	rec_roundtrip(REC_NEV, getenv("TC_UNIT_REC"));
}

/* 40,000 records (about 4.7 MiB): the reader's buffer refills as it
 * reads, and every event comes back as written, in order. */
static void t_rd_refills(void)
{
	rec_roundtrip(40000, NULL);
}

/*
 * A recording that shrinks while tc reads it (another program truncated
 * it) past what the read buffer holds: read() ends early, so the data
 * ends there as broken (-1) with a note that says the file shrank, and
 * every record wholly before the cut was read.  boundary: the cut falls
 * between two records (the data "ends at offset"), else inside one.
 */
static void rd_shrunk_case(bool boundary)
{
	enum { NEV = 4000, STOP = 100 };
	char dir[] = "/tmp/tc-unit-shrink.XXXXXX", path[600], tfs[600], err[512] = "";
	uint64_t at, cut, o, whole = 0;
	int ret1, ret2, n = 0, efd = memfd_create("unit-err", MFD_CLOEXEC), fd2 = tc_err.fd;
	struct stat st;

	CHECK(efd >= 0 && mkdtemp(dir), "memfd, mkdtemp: %s", strerror(errno));
	snprintf(tfs, sizeof(tfs), "%s/tfs", dir);
	mkdir(tfs, 0700);
	rec_fake_tfs(tfs);
	snprintf(path, sizeof(path), "%s/rec.data", dir);
	rec_write(path, NULL, NEV);
	g_reset();
	ms_open();
	rd_open(path);
	ret1 = rd_run(1000 + 10 * STOP - 1);	/* stops at record STOP, unread */
	at = G.rc.off + G.rc.pos;
	cut = G.rc.off + G.rc.len + 4099;	/* past what was read */
	CHECK(stat(path, &st) == 0 && (uint64_t)st.st_size > cut + 4096,
	      "the file (%" PRIu64 " bytes) is too short to cut at %" PRIu64, (uint64_t)st.st_size, cut);
	for (o = at; o + 8 <= cut; ) {	/* the samples wholly before the cut */
		struct perf_event_header h;

		CHECK(pread(G.rc.fd, &h, 8, o) == 8 && h.size >= 8, "no record at %" PRIu64, o);
		if (o + h.size > cut)
			break;
		whole += h.type == PERF_RECORD_SAMPLE;
		o += h.size;
	}
	cut = boundary ? o : o + 9;
	CHECK(truncate(path, cut) == 0, "truncate: %s", strerror(errno));
	tc_err.fd = efd;
	ret2 = rd_run(UINT64_MAX);
	tc_err.fd = fd2;
	CHECK(pread(efd, err, sizeof(err) - 1, 0) >= 0, "the note: %s", strerror(errno));
	close(efd);
	ms_sync();
	for (const char *l = ms_buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		n++;
	rec_read_end();
	unlink(path);
	snprintf(tfs, sizeof(tfs), "rm -rf '%s'", dir);
	CHECK(system(tfs) == 0, "could not remove %s", dir);
	CHECK(ret1 == 1, "rd_run to record %d: %d, want 1 (at the limit)", STOP, ret1);
	CHECK(ret2 == -1, "rd_run after the cut: %d, want -1 (a broken end)", ret2);
	CHECK(strstr(err, boundary ? "ends at offset" : "ends inside a record") &&
	      strstr(err, "(the file shrank while tc read it)"), "the note: '%.300s'", err);
	CHECK((uint64_t)n == STOP + whole, "%d events read, want %" PRIu64, n, STOP + whole);
}

static void t_rd_shrunk(void)
{
	if (!FAST)
		return;	/* the build for size says nothing of an early end */
	rd_shrunk_case(false);
	if (!why[0])
		rd_shrunk_case(true);
}

/* ---------------------------------------------------------------- answers */

/* Feed e as emit() does with --latency: lat_event, then the model. */
static void lat_feed(struct ev e)
{
	if (e.kind == EV_SWITCH) {
		snprintf(e.comm, sizeof(e.comm), "t%d", e.a);
		snprintf(e.comm2, sizeof(e.comm2), "t%d", e.b);
	} else if (e.kind != EV_IDLE) {
		snprintf(e.comm, sizeof(e.comm), "t%d", e.a);
	}
	lat_event(&e);
	model_event(&e);
}

#define L_SW(t_, cpu_, prev_, st_, next_) \
	lat_feed((struct ev){ .kind = EV_SWITCH, .time = t_, .cpu = cpu_, .a = prev_, .v = st_, .b = next_ })
#define L_WAKE(t_, waker_, wakee_, cpu_, flags_) \
	lat_feed((struct ev){ .kind = EV_WAKING, .time = t_, .cpu = 0, .tid = waker_, .pid = waker_, \
			      .a = wakee_, .c = cpu_, .flags = flags_ })

/* log2 buckets and the percentiles read from them. */
static void t_lat_buckets(void)
{
	static const struct { uint64_t d; int k; } b[] = {
		{ 0, 0 }, { 1023, 0 }, { 1024, 1 }, { 2047, 1 }, { 2048, 2 },
		{ 1000000, 10 }, { 1ull << 33, LAT_NB - 1 }, { UINT64_MAX, LAT_NB - 1 },
	};
	struct task p;

	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
		CHECK(lat_bucket(b[i].d) == b[i].k, "bucket of %" PRIu64 ": %d, want %d",
		      b[i].d, lat_bucket(b[i].d), b[i].k);
	memset(&p, 0, sizeof(p));
	CHECK(lat_pct(&p, 50) == 0 && lat_pct(&p, 99) == 0, "percentiles without waits");
	p.waker = -1;
	for (int i = 0; i < 100; i++) {	/* 98 waits of 1.5 us, 2 of 1 ms */
		p.state = ST_RUNNABLE;
		lat_wait_end(&p, 1000, 1000 + (i < 98 ? 1500 : 1000000), 0);
	}
	CHECK(p.lat_n == 100 && p.lat_max == 1000000 && p.lat_sum == 98 * 1500 + 2000000,
	      "n %u max %" PRIu64 " sum %" PRIu64, p.lat_n, p.lat_max, p.lat_sum);
	CHECK(lat_pct(&p, 50) == 2048, "p50 %" PRIu64 ", want 2048 (edge of [1024, 2048))", lat_pct(&p, 50));
	CHECK(lat_pct(&p, 98) == 2048, "p98 %" PRIu64 ", want 2048", lat_pct(&p, 98));
	CHECK(lat_pct(&p, 99) == 1000000, "p99 %" PRIu64 ", want the max 1000000", lat_pct(&p, 99));
	CHECK(p.lat_pre_n == 100 && p.wk_t[0] == 0, "preempted waits %u, wakeups kept", p.lat_pre_n);
	p.state = ST_SLEEPING;
	lat_wait_end(&p, 0, 5, 0);
	CHECK(p.lat_n == 100, "a task that was not runnable counted a wait");
}

/* The longest waits: who held the allowed CPUs, in order, idle, unknown. */
static void t_lat_holders(void)
{
	const struct lat_rec *r;

	G.m.ncpu = 2;
	model_init(2, 64, 0);
	G.opt.latency = true;
	L_SW(1000, 0, 0, 0, 30);
	L_SW(1000, 1, 0, 0, 20);
	L_SW(1500, 0, 30, 1, 10);	/* 30 sleeps, 10 runs on cpu0 */
	L_WAKE(2000, 20, 30, 0, 0);	/* 20 wakes 30 */
	L_SW(3000, 1, 20, 0, 21);	/* 20 preempted by 21 on cpu1 */
	L_SW(5000, 0, 10, 1, 30);	/* 30 runs after 3000 ns */
	CHECK(lat.nwait == 1, "%d waits kept, want 1 (30's; 20 still waits)", lat.nwait);
	r = &lat.wait[0];
	CHECK(r->tid == 30 && r->start == 2000 && r->end == 5000 && r->cpu == 0,
	      "longest: tid %d [%" PRIu64 ", %" PRIu64 ") cpu %d", r->tid, r->start, r->end, r->cpu);
	CHECK(r->hold_tid[0] == 10 && r->hold_ns[0] == 3000 && r->hold_tid[1] == 21 &&
	      r->hold_ns[1] == 2000 && r->hold_tid[2] == 20 && r->hold_ns[2] == 1000 &&
	      r->hold_tid[3] == -1 && !r->idle_ns && !r->unknown_ns && !r->other_ns,
	      "holders %d:%" PRIu64 " %d:%" PRIu64 " %d:%" PRIu64 " %d idle %" PRIu64 " unknown %" PRIu64,
	      r->hold_tid[0], r->hold_ns[0], r->hold_tid[1], r->hold_ns[1], r->hold_tid[2],
	      r->hold_ns[2], r->hold_tid[3], r->idle_ns, r->unknown_ns);
	CHECK(r->nchain == 1 && r->chain[0].waker == 20 && r->chain[0].t == 2000,
	      "chain of 30: %d steps, waker %d", r->nchain, r->chain[0].waker);
	/* 21 leaves cpu1 idle; 20 (runnable since 3000) runs at 9000 */
	L_SW(7000, 1, 21, 1, 0);
	L_SW(9000, 1, 0, 0, 20);
	r = &lat.wait[0];
	CHECK(r->tid == 20 && r->end - r->start == 6000 && r->nchain == 0,
	      "longest: tid %d for %" PRIu64 ", chain %d (preempted: none)", r->tid, r->end - r->start, r->nchain);
	CHECK(r->hold_tid[0] == 30 && r->hold_ns[0] == 4000 && r->hold_tid[1] == 21 &&
	      r->hold_ns[1] == 4000 && r->idle_ns == 2000,
	      "holders %d:%" PRIu64 " %d:%" PRIu64 " idle %" PRIu64, r->hold_tid[0], r->hold_ns[0],
	      r->hold_tid[1], r->hold_ns[1], r->idle_ns);
	ms_open();
	out_latency(out_script);
	ms_sync();
	CHECK(strstr(ms_buf, "1\t20\tt20\t1\t0.000003\t0.006\tpreempted\t-\tt30:30 66.7%,t21:21 66.7%,t10:10 33.3%,idle 33.3%\tt20:20\n"),
	      "rank 1 line not found in:\n%s", ms_buf);
	CHECK(strstr(ms_buf, "2\t30\tt30\t0\t0.000002\t0.003\tt20:20\t-\tt10:10 100.0%,t21:21 66.7%,t20:20 33.3%\tt30:30<-t20:20\n"),
	      "rank 2 line not found in:\n%s", ms_buf);
	/* a task that migrated could run only where it was seen */
	task_of(20)->lat_migrated = true;
	task_of(20)->lat_cpus = 2;
	CHECK(lat_allowed(task_of(20), 1) && !lat_allowed(task_of(20), 0), "allowed CPUs of a migrated task");
}

/* A wait reaching back past a CPU's ring: the rest is unknown. */
static void t_lat_ring_short(void)
{
	uint64_t t = 1000;
	const struct lat_rec *r;

	G.m.ncpu = 1;
	model_init(1, 64, 0);
	G.opt.latency = true;
	L_SW(t, 0, 0, 0, 5);
	L_SW(t += 10, 0, 5, 0, 6);	/* 5 preempted at 1010 */
	for (int i = 0; i < LAT_RUNS + 10; i++)	/* 6 and 7 take turns */
		L_SW(t += 10, 0, 6 + i % 2, 0, 7 - i % 2);
	L_SW(t += 10, 0, 7 - (LAT_RUNS + 10) % 2, 0, 5);
	r = &lat.wait[0];
	CHECK(r->tid == 5 && r->start == 1010 && r->end == t, "longest: tid %d from %" PRIu64, r->tid, r->start);
	CHECK(r->unknown_ns == 110 && r->hold_ns[0] + r->hold_ns[1] + r->unknown_ns == t - 1010,
	      "unknown %" PRIu64 ", want 110 (the ring holds the last %d runs)", r->unknown_ns, LAT_RUNS);
}

/* D spans with the waker and the idle state of the wakee's CPU. */
static void t_lat_blocked_idle(void)
{
	const struct lat_rec *r;

	G.m.ncpu = 2;
	model_init(2, 64, 0);
	G.opt.latency = true;
	L_SW(500, 1, 0, 0, 40);
	L_SW(1000, 1, 40, 2, 0);	/* 40 blocked (D) */
	lat_feed((struct ev){ .kind = EV_IDLE, .time = 1100, .cpu = 1, .c = 1, .v = 2 });
	L_WAKE(3000, 0, 40, 1, 0x08);	/* from an interrupt */
	lat_feed((struct ev){ .kind = EV_IDLE, .time = 3200, .cpu = 1, .c = 1, .v = IDLE_EXIT });
	L_SW(3500, 1, 0, 0, 40);
	CHECK(lat.nblk == 1, "%d D spans, want 1", lat.nblk);
	r = &lat.blk[0];
	CHECK(r->tid == 40 && r->start == 1000 && r->end == 3000 && r->cstate == 2 &&
	      r->nchain == 1 && r->chain[0].waker == WAKER_IRQ,
	      "D span: tid %d [%" PRIu64 ", %" PRIu64 ") idle state %d waker %d", r->tid, r->start,
	      r->end, r->cstate, r->nchain ? r->chain[0].waker : 0);
	r = &lat.wait[0];
	CHECK(lat.nwait == 1 && r->start == 3000 && r->end == 3500 && r->cstate == 2 && r->idle_ns == 500 &&
	      r->unknown_ns == 500, "wait: %d kept, [%" PRIu64 ", %" PRIu64 ") idle state %d idle %"
	      PRIu64 " unknown %" PRIu64 " (cpu0 had no switch)", lat.nwait, r->start, r->end,
	      r->cstate, r->idle_ns, r->unknown_ns);
}

/* The waker chain D<-C<-B<-A, the latest wakeup at a time, the step cap. */
static void t_lat_chain(void)
{
	struct lat_step s[LAT_CHAIN];
	int n;

	G.m.ncpu = 1;
	model_init(1, 64, 0);
	for (int tid = 2; tid <= 4; tid++) {	/* B, C, D sleep */
		ev_switch(10 * tid, 0, 0, 0, tid);
		ev_switch(10 * tid + 5, 0, tid, 1, 0);
	}
	ev_switch(90, 0, 0, 0, 1);	/* A runs and wakes B */
	ev_wakeup(100, 1, 2, 0);
	ev_switch(110, 0, 1, 1, 2);
	ev_wakeup(200, 2, 3, 0);
	ev_switch(210, 0, 2, 1, 3);
	ev_wakeup(300, 3, 4, 0);
	n = lat_chain(4, 299, s, LAT_CHAIN);
	CHECK(n == 0, "chain before D's wakeup: %d steps", n);
	n = lat_chain(4, 300, s, LAT_CHAIN);	/* D woken, still waiting */
	CHECK(n == 3 && s[0].tid == 4 && s[0].waker == 3 && s[0].t == 300 && s[1].tid == 3 &&
	      s[1].waker == 2 && s[1].t == 200 && s[2].tid == 2 && s[2].waker == 1 && s[2].t == 100,
	      "chain: %d steps %d<-%d %d<-%d %d<-%d", n, s[0].tid, s[0].waker, s[1].tid, s[1].waker,
	      s[2].tid, s[2].waker);
	ev_switch(310, 0, 3, 1, 4);
	CHECK(lat_chain(4, 1000, s, LAT_CHAIN) == 3 && s[2].waker == 1, "chain after D ran");
	/* A and B waking each other: the chain stops at max steps */
	for (uint64_t t = 400; t < 2000; t += 100) {
		ev_switch(t, 0, 4, 1, 1);
		ev_wakeup(t + 10, 1, 2, 0);
		ev_switch(t + 20, 0, 1, 1, 2);
		ev_wakeup(t + 30, 2, 1, 0);
		ev_switch(t + 40, 0, 2, 1, 4);
	}
	n = lat_chain(1, 1950, s, LAT_CHAIN);
	CHECK(n == LAT_CHAIN && s[0].tid == 1 && s[1].tid == 2 && s[0].t > s[1].t,
	      "ping-pong chain: %d steps", n);
}

/* The panels' workload: two CPUs, tasks 10, 20, 21, 30; waits of 20
 * (preempted, 6000), 10 (woken by 30, 3500; ongoing from 9800), 30 (woken
 * by 20, 3000); a D span of 10 (1000, woken by 30); cpu0 idle in state 1
 * from 9900.  With intervals (the view) when ibytes. */
static void lat_panel_model(uint64_t ibytes)
{
	G.m.ncpu = 2;
	model_init(2, 64, ibytes);
	ev_switch(1000, 0, 0, 0, 30);
	ev_switch(1000, 1, 0, 0, 20);
	ev_switch(1500, 0, 30, 1, 10);		/* 30 sleeps */

	ev_wakeup(2000, 20, 30, 0);		/* 20 wakes 30 */
	ev_switch(3000, 1, 20, 0, 21);		/* 20 preempted */
	ev_switch(5000, 0, 10, 2, 30);		/* 10 blocked; 30 waited 3000 */
	ev_wakeup(6000, 30, 10, 0);		/* 10's D span: 1000 */
	ev_switch(7000, 1, 21, 1, 0);
	ev_idle(7500, 1, 0);			/* cpu1 idle state 0 */
	ev_idle(8900, 1, IDLE_EXIT);
	ev_switch(9000, 1, 0, 0, 20);		/* 20 waited 6000 */
	ev_switch(9500, 0, 30, 1, 10);		/* 10 waited 3500 */
	ev_switch(9800, 0, 10, 0, 0);		/* 10 runnable until the end: ongoing */
	ev_idle(9900, 0, 1);
}

/* The view's panel text: the longest waits and D spans of a span from the
 * intervals, holders from the CPU rows, idle states (live: with sysfs's
 * name and exit latency), a chain step. */
static void t_lat_panel(void)
{
	struct lat_rec top[LAT_TOP];
	struct lat_step st;
	char line[256];
	int n;

	lat_panel_model(65536);
	n = lat_span_worst(0, 20000, false, top);	/* chains: the waker only */
	CHECK(n == 4, "%d waits, want 4", n);
	CHECK(top[0].tid == 20 && top[0].end - top[0].start == 6000 && top[0].nchain == 0 &&
	      top[1].tid == 10 && top[1].start == 6000 && top[1].end == 9500 && top[1].nchain == 1 &&
	      top[1].chain[0].waker == 30 && top[2].tid == 30 && top[2].nchain == 1 &&
	      top[2].chain[0].waker == 20 && top[3].tid == 10 && top[3].start == 9800,
	      "order: %d %d %d %d; chains %d %d %d; 10: [%" PRIu64 ", %" PRIu64 ") [%" PRIu64 ", %" PRIu64 ")",
	      top[0].tid, top[1].tid, top[2].tid, top[3].tid, top[0].nchain, top[1].nchain, top[2].nchain,
	      top[1].start, top[1].end, top[3].start, top[3].end);
	lat_rec_text(&top[2], false, line, sizeof(line));
	CHECK(!strcmp(line, "t30:30 0.003 ms cpu0 woken by t20:20 held by t10:10 100%, t21:21 67%, t20:20 33%"),
	      "line: %s", line);
	lat_rec_text(&top[0], false, line, sizeof(line));
	CHECK(!strcmp(line, "t20:20 0.006 ms cpu1 preempted held by t30:30 67%, t21:21 67%, t10:10 33%, idle 33%"),
	      "line: %s", line);
	n = lat_span_worst(4000, 5000, false, top);	/* the span: only what overlaps it */
	CHECK(n == 2 && top[0].tid == 20 && top[1].tid == 30, "waits in [4000, 5000): %d", n);
	n = lat_span_worst(0, 20000, true, top);
	CHECK(n == 1 && top[0].tid == 10 && top[0].start == 5000 && top[0].end == 6000 &&
	      top[0].nchain == 1 && top[0].chain[0].waker == 30,
	      "D spans: %d, tid %d, chain %d", n, top[0].tid, top[0].nchain);
	CHECK(lat_chain(10, 6000, top[0].chain, LAT_CHAIN) == 2 && top[0].chain[1].waker == 20,
	      "the D span's chain: 30 <- 20");
	CHECK(lat_chain(10, 9500, &st, 1) == 1, "a chain step");
	lat_step_text(&st, line, sizeof(line));
	CHECK(!strcmp(line, "t10:10 woken by t30:30 at 0.000005s"), "step: %s", line);
	/* a wakeup on an idle CPU: its idle state, and live sysfs's */
	ev_wakeup(10000, 0, 10, TRACE_IRQ_FLAGS);	/* no matter: 10 is runnable already */
	CHECK(lat_cstate_at(0, 9950) == 1 && lat_cstate_at(0, 9000) == -1 && lat_cstate_at(1, 7600) == 0,
	      "idle states at the wakeup: %d %d %d", lat_cstate_at(0, 9950), lat_cstate_at(0, 9000),
	      lat_cstate_at(1, 7600));
	lat_cidle_text(line, sizeof(line), 0, 1);
	CHECK(!strcmp(line, "idle state 1"), "idle text without sysfs: %s", line);
	lat_cidle = xcalloc((size_t)G.m.ncpu * LAT_CIDLE, sizeof(*lat_cidle));
	lat_cidle[1] = (struct lat_cidle){ 10, "C1E" };
	lat_cidle[LAT_CIDLE + 1] = (struct lat_cidle){ -1, "" };
	lat_cidle_text(line, sizeof(line), 0, 1);
	CHECK(!strcmp(line, "idle state 1 C1E, exit 10us"), "idle text, live: %s", line);
	lat_cidle_text(line, sizeof(line), 1, 1);
	CHECK(!strcmp(line, "idle state 1"), "idle text, sysfs files missing: %s", line);
}

/* The L panel's holders of several waits from one walk of each CPU row:
 * a CPU row without intervals at one wait's start (unknown after a loss)
 * stays unknown for it while the walk goes on back for an earlier wait. */
static void t_lat_holders_gap(void)
{
	struct lat_rec top[LAT_TOP];
	int n;

	G.m.ncpu = 2;
	model_init(2, 64, 65536);
	ev_switch(1000, 0, 0, 0, 40);		/* cpu0 runs 40 */
	ev_switch(1000, 1, 0, 0, 30);		/* cpu1 runs 30 */
	ev_switch(1100, 0, 10, 1, 40);		/* 10 and 20 seen, asleep */
	ev_switch(1200, 0, 20, 1, 40);
	ev_wakeup(1500, 40, 10, 0);		/* 10 waits from 1500 */
	ev_switch(2000, 1, 30, 1, 0);		/* cpu1 idle */
	model_event(&(struct ev){ .kind = EV_LOST, .time = 2500, .cpu = 1, .v = 5 });	/* cpu1 lost */
	ev_wakeup(3000, 40, 20, 0);		/* 20 waits from 3000 */
	ev_switch(4000, 1, 0, 0, 31);		/* cpu1 known again */
	ev_switch(6000, 0, 40, 0, 10);
	ev_switch(7000, 0, 10, 1, 20);		/* 20 runs at 7000 */
	ev_switch(7100, 1, 31, 0, 31);
	n = lat_span_worst(0, 20000, false, top);
	CHECK(n >= 2, "%d waits", n);
	for (int i = 0; i < n; i++)
		if (top[i].tid == 20)
			CHECK(top[i].start == 3000 && top[i].end == 7000 && top[i].unknown_ns == 1000,
			      "20's wait [%" PRIu64 ", %" PRIu64 "): unknown %" PRIu64 ", idle %" PRIu64,
			      top[i].start, top[i].end, top[i].unknown_ns, top[i].idle_ns);
}

/* The view's chain goes back past a task's ring of wakeups through its
 * intervals; without intervals (--summary) it stops there. */
static void t_lat_chain_ivals(void)
{
	struct lat_step s[4];

	for (int nival = 0; nival <= 65536; nival += 65536) {
		G.m.ncpu = 1;
		model_init(1, 64, nival);
		ev_switch(10, 0, 0, 0, 2);
		ev_switch(20, 0, 2, 1, 0);		/* 2 sleeps */
		ev_wakeup(30, 1, 2, 0);			/* 1 wakes 2 */
		ev_switch(40, 0, 0, 0, 2);
		for (uint64_t t = 100; t < 100 + 100 * LAT_WAKES; t += 100) {	/* then interrupts */
			ev_switch(t, 0, 2, 1, 0);
			ev_wakeup(t + 10, 0, 2, TRACE_IRQ_FLAGS);
			ev_switch(t + 20, 0, 0, 0, 2);
		}
		CHECK(lat_chain(2, 60, s, 4) == (nival ? 1 : 0) && (!nival || (s[0].waker == 1 && s[0].t == 30)),
		      "nival %d: chain at 60: %d, waker %d", nival, lat_chain(2, 60, s, 4), s[0].waker);
		g_reset();
	}
}

/* The L and W panels in a frame: L lists the waits, j and Enter put the
 * cursor on the second and select its task; W lists 10's chain, j steps
 * to 30's wakeup. */
static void t_view_panels(void)
{
	char line[256];

	lat_panel_model(65536);
	rows_alloc(64);
	scr_setup(30, 150);
	G.v.now = G.m.last;
	view_init();
	view_key('L', 0, 0);
	draw_frame();
	for (int c = 0; c < G.term.cols && c < 255; c++)
		line[c] = (char)G.term.scr[(G.v.row0 + 1) * G.term.cols + c].ch;
	line[G.term.cols < 255 ? G.term.cols : 255] = 0;
	CHECK(strstr(line, "> t20:20 0.006 ms cpu1 preempted"), "L's first line: '%s'", line);
	view_key('j', 0, 0);
	view_key('\r', 0, 0);
	draw_frame();
	CHECK(!G.v.panel && G.v.cursor == 6000 && G.v.sel_key == 10 && !G.v.following,
	      "Enter: panel %d cursor %" PRIu64 " row %d", G.v.panel, G.v.cursor, G.v.sel_key);
	G.v.cursor = 9600;
	view_key('W', 0, 0);
	draw_frame();
	for (int c = 0; c < G.term.cols && c < 255; c++)
		line[c] = (char)G.term.scr[G.v.row0 * G.term.cols + c].ch;
	CHECK(strstr(line, "wakeup chain: t10:10 <- t30:30 <- t20:20"), "W's title: '%s'", line);
	view_key('j', 0, 0);
	CHECK(G.v.panel == 'W' && G.v.cursor == 2000 && G.v.sel_key == 30, "W's step 2: cursor %" PRIu64 " row %d",
	      G.v.cursor, G.v.sel_key);
	view_key(K_ESC, 0, 0);
	CHECK(!G.v.panel && G.v.cursor == 2000, "Esc closes W only");
	view_key('>', 0, 0);
	CHECK(G.v.start > 0, "> pans right");
	/* hostile names in both panels: no control byte reaches the terminal */
	snprintf(task_find(20)->comm, COMM_LEN, "\x1b]0;x\x07\x9b" "2J");
	snprintf(task_find(30)->comm, COMM_LEN, "\x1b[2J\r\x7f");
	view_key('0', 0, 0);
	for (int k = 0; k < 2; k++) {
		view_key(k ? 'W' : 'L', 0, 0);
		G.term.ob_len = 0;
		draw_frame();
		draw_diff();
		CHECK(G.v.panel == (k ? 'W' : 'L') && !ob_clean(0, line, sizeof(line)), "panel %c: %s",
		      k ? 'W' : 'L', line);
	}
}

/* The text of screen row r. */
static void scr_row(int r, char *line, size_t n)
{
	int c;

	for (c = 0; c < G.term.cols && c + 1 < (int)n; c++)
		line[c] = G.term.scr[r * G.term.cols + c].ch < 0x80 ? (char)G.term.scr[r * G.term.cols + c].ch : '~';
	line[c] = 0;
}

/*
 * -Q in the view: a CPU busy mostly in a softirq storm draws '!' in ASCII
 * (and in its colour with colours), its readout names the softirq at the
 * cursor and the cell's share, and the Q panel lists the interrupts of
 * the span, most time first, with hostile names escaped.
 *
 *   cpu0  1000 0->100 ... 100 in NET_RX [2000, 9000), irq 30 [9000, 9100) ... 10000
 */
static void t_view_irq(void)
{
	char line[256];
	int r0;

	G.m.ncpu = 1;
	model_init(1, 64, 65536);
	ev_switch(1000, 0, 0, 0, 100);
	ev_irq(2000, 0, 100, EV_SOFTIRQ, 3, "");
	ev_irq(9000, 0, 100, EV_SOFTIRQ_EXIT, 3, "");
	ev_irq(9000, 0, 100, EV_IRQ, 30, "\x1b[2Jnic");
	ev_irq(9100, 0, 100, EV_IRQ_EXIT, 30, "");
	ev_switch(10000, 0, 100, 1, 0);
	rows_alloc(64);
	scr_setup(30, 200);		/* 171 timeline columns */
	G.term.utf8 = false;
	G.term.ncolor = 0;
	G.v.now = G.m.last;
	view_init();
	G.v.cursor = 5000;
	draw_frame();
	r0 = G.v.row0;
	scr_row(r0, line, sizeof(line));
	CHECK(strstr(line, "cpu0") && strstr(line, "!!!!!!!!!!"), "cpu0 row: '%s'", line);
	scr_row(G.term.rows - 1, line, sizeof(line));
	CHECK(strstr(line, "in softirq 3 vec3 since") && strstr(line, "(hardirq 0% softirq 100%)"), "readout: '%s'", line);
	view_key('Q', 0, 0);
	draw_frame();
	scr_row(r0 + 1, line, sizeof(line));
	CHECK(strstr(line, "cpu0   softirq    3 vec3") && strstr(line, "1 times, 7us in all, longest 7us"), "Q line 1: '%s'", line);
	scr_row(r0 + 2, line, sizeof(line));
	CHECK(strstr(line, "hardirq   30 ?[2Jnic"), "Q line 2: '%s'", line);
}

/* The help at 80x24: every counter whole in its 37 columns, with its
 * number (the buckets' line was cut before "lost N"), durations in units. */
static void t_view_help(void)
{
	static const char *const want[] = {
		"events lost 0, gaps 0", "buckets: cpu 1.00s, task 20.0s", "task blocks taken from rows 123456",
		"refresh 1.00s, 987654 ev/s",
	};
	char line[128];
	int found = 0;

	lat_panel_model(65536);
	rows_alloc(64);
	scr_setup(24, 80);
	G.v.now = G.m.last;
	view_init();
	G.hist.hp[HK_CPU].w = 999600000;	/* %.3gms would write 1e+03ms */
	G.hist.hp[HK_TASK].w = 19999000000ULL;
	G.hist.stolen = 123456;
	G.v.refresh_ns = 999950000;
	G.v.ev_rate = 987654;
	view_key('?', 0, 0);
	draw_frame();
	for (int r = 0; r < G.term.rows; r++) {
		for (int c = 0; c < G.term.cols && c < 127; c++)
			line[c] = (char)G.term.scr[r * G.term.cols + c].ch;
		line[G.term.cols < 127 ? G.term.cols : 127] = 0;
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
			found += strstr(line, want[i]) != NULL;
		CHECK(!strstr(line, "e+"), "row %d: '%s'", r, line);
	}
	CHECK(found == (int)(sizeof(want) / sizeof(want[0])), "%d of the %d counters whole on the help screen", found,
	      (int)(sizeof(want) / sizeof(want[0])));
	/* losses on more CPUs than fit: those that fit, and how many more */
	for (int c = 0; c < 8; c++)
		G.n.lost += G.n.lostv[c].n = 1000000 + c;
	help_lost(line, sizeof(line));
	CHECK(!strcmp(line, "lost per CPU: cpu0 1000000 +7 CPUs"), "'%s'", line);
	for (int c = 2; c < 8; c++)
		G.n.lost -= G.n.lostv[c].n, G.n.lostv[c].n = 0;
	help_lost(line, sizeof(line));	/* 39 columns in all */
	CHECK(!strcmp(line, "lost per CPU: cpu0 1000000 +1 CPUs"), "'%s'", line);
	G.n.lost = (G.n.lostv[0].n = 5) + (G.n.lostv[1].n = 1000007);
	help_lost(line, sizeof(line));	/* 33: all fit */
	CHECK(!strcmp(line, "lost per CPU: cpu0 5 cpu1 1000007"), "'%s'", line);
	memset(G.n.lostv, 0, sizeof(G.n.lostv));
	G.n.lost = 0;
	G.v.help = false;
}

/* fmt_dur: each unit up to 999.5 of it, then the next ("1.00s", never
 * "1e+03ms", which %.3g of 999.95 gives); seconds to one decimal from
 * 9.995 s ("10.0s", not "10.00s"). */
static void t_fmt_dur(void)
{
	static const struct { uint64_t ns; const char *want; } c[] = {
		{ 0, "0ns" }, { 999, "999ns" }, { 1000, "1us" }, { 999499, "999us" }, { 999500, "1ms" },
		{ 999499999, "999ms" }, { 999500000, "1.00s" }, { 999950000, "1.00s" }, { 2000000000, "2.00s" },
		{ 9994999999ULL, "9.99s" }, { 9995000000ULL, "10.0s" }, { 10000000000ULL, "10.0s" },
	};
	char b[32];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		fmt_dur(b, sizeof(b), c[i].ns);
		CHECK(!strcmp(b, c[i].want), "%llu ns: '%s', want '%s'", (unsigned long long)c[i].ns, b, c[i].want);
	}
}

/* --ftrace: the print fmt of sched_switch (6.18) evaluated on raw bytes:
 * prev_state letters and "+", hostile names escaped; other expressions;
 * the fallback; the latency columns. */
static void t_ftrace_print_fmt(void)
{
	static const char other[] =
		"name: ev\nID: 9\nformat:\n"
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
		"\tfield:__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;\n"
		"\tfield:int pid;\toffset:12;\tsize:4;\tsigned:1;\n"
		"\tfield:bool group_dead;\toffset:16;\tsize:1;\tsigned:0;\n"
		"\tfield:u32 state;\toffset:20;\tsize:4;\tsigned:0;\n\n"
		"print fmt: \"comm=%s pid=%d dead=%s state=%lu sym=%s x=%03d|%x %%\", __get_str(comm), "
		"REC->pid, REC->group_dead ? \"true\" : \"false\", (unsigned long)REC->state, "
		"__print_symbolic(REC->pid, { 1, \"one\" }, { 7, \"seven\" }), -REC->pid * 2 + 20 / 3, "
		"(REC->pid << 4 | 3) & ~0x2\n";
	static const struct { int64_t st; const char *want; } sw[] = {
		{ 0, "R" }, { 1, "S" }, { 0x102, "D+" }, { 0x100, "R+" }, { 0x81, "S|I" }, { 0x300, "R+" }, { 0x3, "S|D" },
	};
	const struct tfs_fmt *f, *g;
	uint8_t raw[64];
	struct pfo o;
	static struct pf x;
	char lat[6], want[256];

	CHECK((f = fmt_add("sched", FMT_MODERN, strlen(FMT_MODERN))) && pf_text(f), "sched_switch format");
	for (size_t i = 0; i < sizeof(sw) / sizeof(sw[0]); i++) {
		memset(raw, 0, sizeof(raw));
		memcpy(raw + 8, "a\x1b[2Jb", 6);
		memcpy(raw + 40, "next", 4);
		*(int32_t *)(raw + 24) = 5;
		*(int32_t *)(raw + 28) = 120;
		*(int64_t *)(raw + 32) = sw[i].st;
		*(int32_t *)(raw + 56) = 6;
		*(int32_t *)(raw + 60) = 98;
		x = (struct pf){ .fmt = f, .raw = raw, .rawsz = sizeof(raw) };
		o.n = 0;
		CHECK(pf_print(&x, pf_text(f), &o), "prev_state %#" PRIx64 ": not evaluated", sw[i].st);
		snprintf(want, sizeof(want), "prev_comm=a\\x1b[2Jb prev_pid=5 prev_prio=120 prev_state=%s "
			 "==> next_comm=next next_pid=6 next_prio=98", sw[i].want);
		CHECK(!strcmp(o.s, want), "prev_state %#" PRIx64 ":\n got %.200s\nwant %.200s", sw[i].st, o.s, want);
	}
	CHECK((g = fmt_add("x", other, strlen(other))), "other format");
	memset(raw, 0, sizeof(raw));
	*(uint32_t *)(raw + 8) = 3 << 16 | 24;	/* __data_loc: 3 bytes at 24 */
	memcpy(raw + 24, "ab", 3);
	*(int32_t *)(raw + 12) = 7;
	raw[16] = 1;
	*(uint32_t *)(raw + 20) = 4294967295u;
	x = (struct pf){ .fmt = g, .raw = raw, .rawsz = 28 };
	o.n = 0;
	CHECK(pf_print(&x, pf_text(g), &o), "other: not evaluated");
	CHECK(!strcmp(o.s, "comm=ab pid=7 dead=true state=4294967295 sym=seven x=-08|71 %"),
	      "other: %.200s", o.s);
	x = (struct pf){ .fmt = g, .raw = raw, .rawsz = 10 };	/* pid out of the data */
	o.n = 0;
	CHECK(!pf_print(&x, pf_text(g), &o), "a field beyond the data was evaluated");
	x = (struct pf){ .fmt = g, .raw = raw, .rawsz = 28 };
	o.n = 0;
	CHECK(!pf_print(&x, "\"%d\", foo(REC->pid)", &o) && !pf_print(&x, "\"%d %d\", REC->pid", &o) &&
	      !pf_print(&x, "\"%s\", REC->pid", &o) && !pf_print(&x, "\"%d\", ((((((((((((((((((((((((((((((((((1", &o),
	      "an unknown function, a missing argument, a type mismatch or deep nesting was evaluated");
	x = (struct pf){ .fmt = g, .raw = raw, .rawsz = 28 };
	o.n = 0;	/* C's precedence and left to right, as gcc evaluates them */
	CHECK(pf_print(&x, "\"%d %d %d %d %d %d %d %d\", 1 - 2 - 3, 2 + 3 * 4, 1 << 2 + 1, 6 | 1 ^ 3 & 1 == 1, "
		       "100 / 10 / 5, 1 < 2 == 1, 0 || 2 | 1, 7 - 2 * 3 % 4 >> 1 > 2 && 5 != 5 - 1", &o) &&
	      !strcmp(o.s, "-4 14 8 6 2 1 1 0"), "precedence: %.200s, want -4 14 8 6 2 1 1 0", o.s);
	{
		char deep[1024] = "\"%d\", ";

		for (int i = 0; i < 300; i++)
			strcat(deep, "1?");
		CHECK(!pf_print(&x, deep, &o), "300 nested ?: were evaluated");
	}
	out_lat_flags(lat, 0x01 | 0x04 | 0x20 | 0x08, 3);
	CHECK(!strcmp(lat, "dNh2."), "flags: %s, want dNh2.", lat);
	out_lat_flags(lat, 0x80 | 0x10, 0x21);
	CHECK(!strcmp(lat, "b.s.2"), "flags: %s, want b.s.2", lat);
}

/* What a recording covers, from its CMDLINE feature: perf's and tc's
 * command lines, one per line (words split at spaces), and the part. */
static void t_cmdline_part(void)
{
	static const struct { const char *line; int part; } c[] = {
		{ "perf record -a -e sched:*", PART_ALL },
		{ "perf record -e sched:* -- make -j", PART_TASKS },
		{ "perf record -p 12 -e sched:*", PART_TASKS },
		{ "perf record -ag -e sched:*", PART_ALL },
		{ "perf record -aC 1 -e sched:*", PART_CPUS },
		{ "perf record -C0-1 -e sched:* -- sleep 1", PART_CPUS },
		{ "perf record --cpu=2 -e sched:*", PART_CPUS },
		{ "perf record -a -- cmd -C 1", PART_ALL },	/* the command's */
		{ "perf sched record -- sleep 1", PART_ALL },
		{ "perf sched record -C 1 -- sleep 1", PART_CPUS },
		{ "tc --record f.data -- sleep 1", PART_ALL },
		{ "tc --record f.data -C 0 -- sleep 1", PART_CPUS },
		{ "perf record -a -e sched:sched_waking,sched:sched_wakeup --filter pid==1", PART_RUNS },
		{ "perf record -a -e sched:sched_switch -e sched:sched_wakeup_new --filter=pid==1", PART_RUNS },
		{ "perf record -a -e sched:sched_switch --filter prev_pid!=0 -e sched:sched_waking", PART_NONE },
		{ "perf record -a -esched:sched_wak* --filter pid==1", PART_NONE },
		{ "perf record -a --event=power:cpu_idle --filter state==1", PART_NONE },
		{ "perf record -C 1 -e sched:sched_waking --filter pid==1", PART_CPUS },
		{ "perf record -a -e sched:sched_switch/overwrite/", PART_ALL },
		{ "perf record -e sched:sched_switch --filter prev_pid==1 -- cmd", PART_NONE },
		{ "perf record -a -e sched:sched_switch --exclude-perf", PART_NONE },
		{ "perf record -ae sched:sched_switch --filter prev_pid!=0", PART_NONE },
		{ "perf record -e sched:sched_waking -ae sched:sched_switch --filter x", PART_NONE },
		{ "perf record -a --filter x", PART_NONE },	/* on no -e: not known which */
		{ "perf record -a -e sched:sched_waking --filter=pid==1 -e sched:sched_switch", PART_RUNS },
		{ "perf record -a -p 123 -e sched:*", PART_TASKS },	/* -p overrides -a */
		{ "perf record -C 0 --pid=123", PART_TASKS },
		{ "perf sched record -t 5 -- sleep 1", PART_TASKS },
		{ "perf record -e sched:* ./prog -a", PART_TASKS },	/* the workload's -a */
		{ "perf record -e sched:* make -C src", PART_TASKS },
		{ "perf record -o out -a -e sched:*", PART_ALL },
		{ "perf record --output out -a", PART_ALL },
		{ "perf lock record -- cmd", PART_TASKS },
		{ "perf kwork record -- cmd", PART_ALL },
		{ "perf record -a --overwrite -e sched:*", PART_ALL },
		{ "perf record -C 0-3 -e sched:*", PART_ALL },	/* every CPU of 4 */
		{ "perf record -C 0,2 -e sched:*", PART_CPUS },
		{ "tc --record f.data -C 0-3 -- sleep 1", PART_ALL },
		{ "perf record -a --switch-output=1s -e sched:*", PART_ALL },
		{ "perf record -a --switch-output -e sched:*", PART_ALL },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		uint8_t b[512] = { 0 };
		char words[256], *save = NULL;
		size_t o = 4;
		uint32_t n = 0;

		snprintf(words, sizeof(words), "%s", c[i].line);
		for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save), n++) {
			uint32_t len = (uint32_t)(strlen(w) + 1 + 7) / 8 * 8;

			memcpy(b + o, &len, 4);
			memcpy(b + o + 4, w, strlen(w));
			o += 4 + len;
		}
		memcpy(b, &n, 4);
		G.rd.part = -1;
		G.rd.nrcpus = 4;
		rd_cmdline(b, o);
		CHECK(G.rd.part == c[i].part, "%s: part %d, want %d", c[i].line, G.rd.part, c[i].part);
		CHECK(G.rd.overwrite == (strstr(c[i].line, "overwrite") != NULL), "%s: overwrite %d", c[i].line,
		      G.rd.overwrite);
		CHECK(G.rd.switch_output == (strstr(c[i].line, "switch-output") != NULL), "%s: switch_output %d",
		      c[i].line, G.rd.switch_output);
	}
	{	/* a last string of length 0 at the end: not read past */
		uint8_t *b = malloc(8);
		uint32_t one = 1, zero = 0;

		memcpy(b, &one, 4);
		memcpy(b + 4, &zero, 4);
		G.rd.part = -1;
		rd_cmdline(b, 8);
		CHECK(G.rd.part == PART_ALL, "an empty string: part %d", G.rd.part);
		free(b);
	}
	G.rd.nrcpus = 0;
}

/* ---------------------------------------------------------------- main */

int main(void)
{
	RUN(fmt_sched_switch_layouts);
	RUN(fmt_counts);
	RUN(fmt_data_loc);
	RUN(fmt_cpu_idle);
	RUN(fmt_errors);
	RUN(fmt_prefixes);
	RUN(fld_int_layouts);
	RUN(fld_int_sizes);
	RUN(fld_swapped);
	RUN(fld_str_data_loc);
	RUN(decode_switch_layouts);
	RUN(decode_exec_idle);
	RUN(decode_fork_data_loc);
	RUN(decode_fast_ints);
	RUN(rb_plain);
	RUN(rb_wrap);
	RUN(rb_zero_size);
	RUN(rb_misaligned_size);
	RUN(rb_oversize);
	RUN(rb_overrun);
	RUN(rb_short_record);
	RUN(rb_queue_full);
	RUN(rb_wrap32);
	RUN(merge_live_rule);
	RUN(merge_out_of_order);
	RUN(mq_full);
	RUN(mq_seq_zero);
	RUN(mq_budget);
	RUN(merge_file_rounds);
	RUN(merge_file_no_rounds);
	RUN(merge_file_side_band);
	RUN(merge_file_late);
	RUN(merge_file_held);
	RUN(merge_file_random);
	RUN(merge_file_windows);
	RUN(merge_file_wshared);
	RUN(merge_file_wfill);
	RUN(merge_file_keep);
	RUN(merge_file_shed);
	RUN(rd_filler);
	RUN(ckpt_copy);
	RUN(run_std_changed);
	RUN(rec_info_perf_sample);
	RUN(ev_decode_short_raw);
	RUN(rec_info_comm);
	RUN(ev_decode_side_band);
	RUN(rec_attr_ids);
	RUN(rec_attr_id_cache);
	RUN(td_parse);
	RUN(td_parse_prefixes);
	RUN(td_parse_big_endian);
	RUN(td_parse_bad_counts);
	RUN(fmt_libc);
	RUN(num_libc);
	RUN(str_sort_libc);
	RUN(utc_stamp);
	RUN(mem_guard);
	RUN(mem_huge);
	RUN(mem_pool);
	RUN(buf_grow);
	RUN(out_first_write);
	RUN(numdir);
	RUN(cpulist);
	RUN(cpulist_count_malformed);
	RUN(out_name);
	RUN(out_event_hostile);
	RUN(frame_diff);
	RUN(key_decode);
	RUN(view_following);
	RUN(view_zoom_cursor);
	RUN(view_replay);
	RUN(view_hostile_names);
	RUN(view_history);
	RUN(view_cpu_at);
	RUN(view_fmt_at);
	RUN(view_axis_digits);
	RUN(model_pause_gaps);
	RUN(model_end_off);
	RUN(rd_end_tail);
	RUN(rd_tail_room);
	RUN(rd_shrunk);
	RUN(rd_refills);
	RUN(model_lost_gap);
	RUN(task_victim);
	RUN(model_states);
	RUN(model_idle_bounds);
	RUN(model_missing_out);
	RUN(model_missing_in);
	RUN(model_first_prev);
	RUN(model_early_waking);
	RUN(model_waking_only);
	RUN(model_waking_again);
	RUN(model_end_unsaid);
	RUN(model_end_untraced);
	RUN(lost_unsaid);
	RUN(pause_marker);
	RUN(lost_counted_once);
	RUN(model_io_overlay);
	RUN(model_lost_middle);
	RUN(model_lost_one_cpu);
	RUN(sampled_stream_sideband);
	RUN(sampled_attr);
	RUN(model_irq);
	RUN(model_migrations);
	RUN(view_irq);
	RUN(model_io_drawn);
	RUN(rec_aligned);
	RUN(rec_roundtrip);
	RUN(lat_buckets);
	RUN(lat_holders);
	RUN(lat_ring_short);
	RUN(ib_varints);
	RUN(lat_blocked_idle);
	RUN(lat_chain);
	RUN(lat_panel);
	RUN(lat_holders_gap);
	RUN(lat_chain_ivals);
	RUN(view_panels);
	RUN(view_help);
	RUN(fmt_dur);
	RUN(ftrace_print_fmt);
	RUN(cmdline_part);
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
