// SPDX-License-Identifier: GPL-2.0-only
/*
 * perfdata.h: the perf.data writer that test/mkdata.c and test/sim.c share.
 * A file is what `perf record -a` writes (file mode,
 * tools/perf/Documentation/perf.data-file-format.txt):
 *
 *   [ header 104 ][ ids ][ attrs ][ data ]
 *   [ feature table at data.offset + data.size ][ TRACING_DATA, HOSTNAME, NRCPUS ]
 *
 * The caller builds the data section (pw_sample, pw_comm, pw_task, pw_lost,
 * pw_hdr with the sample_id trailer pw_id_trailer) and hands it with its
 * attrs to pw_file.  Every number is written in the byte order pw_be says
 * (attr bitfields in a big-endian machine's bit order too: perf byte-swaps
 * the u64 and reverses its bits); pw_long4 is a 32-bit target: sizeof(long)
 * 4 in the tracing data and sched_switch's prev_state a 4-byte long.  The
 * tracepoint formats are built in (copied from a 6.18 x86_64 tracefs), so
 * no tracefs is needed.  The id of attr i's event on CPU c is pw_id(i, c).
 */
#ifndef TC_TEST_PERFDATA_H
#define TC_TEST_PERFDATA_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PW_ATTR_SIZE 128	/* PERF_ATTR_SIZE_VER7 */
#define PW_HDR_SIZE 104
#define PW_ID_SIZE 32		/* sample_id of TID|TIME|CPU|IDENTIFIER */

enum {				/* sample_type bits */
	PW_S_IP = 1 << 0, PW_S_TID = 1 << 1, PW_S_TIME = 1 << 2, PW_S_CPU = 1 << 7,
	PW_S_PERIOD = 1 << 8, PW_S_RAW = 1 << 10, PW_S_IDENTIFIER = 1 << 16,
};
enum {				/* record types */
	PW_R_LOST = 2, PW_R_COMM = 3, PW_R_EXIT = 4, PW_R_FORK = 7, PW_R_SAMPLE = 9,
	PW_R_FINISHED_ROUND = 68, PW_R_FINISHED_INIT = 82,
};
enum { PW_F_TRACING_DATA = 1, PW_F_HOSTNAME = 3, PW_F_VERSION = 5, PW_F_NRCPUS = 7, PW_F_CMDLINE = 11 };
enum {				/* perf_event_attr bitfield bits */
	PW_A_DISABLED = 0, PW_A_INHERIT = 1, PW_A_COMM = 9, PW_A_FREQ = 10, PW_A_ENABLE_ON_EXEC = 12,
	PW_A_TASK = 13, PW_A_SAMPLE_ID_ALL = 18,
	PW_A_COMM_EXEC = 24,
};
#define PW_MISC_KERNEL 1
#define PW_MISC_COMM_EXEC (1 << 13)

static int pw_be, pw_long4;
static const char *const *pw_cmdline;	/* NULL-terminated argv for CMDLINE, or NULL: none */
static uint64_t pw_gap;			/* a hole of so many bytes before the data section (a
					   sparse file: its data and features past 2 GiB) */

/* ---------------------------------------------------------------- formats */

#define PW_COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

#define PW_SW_MASK "((((0x00000000 | 0x00000001 | 0x00000002 | 0x00000004 | " \
	"0x00000008 | 0x00000010 | 0x00000020 | 0x00000040) + 1) << 1) - 1)"
#define PW_SW_PRINT \
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> " \
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, " \
	"REC->prev_prio, (REC->prev_state & " PW_SW_MASK ") ? __print_flags(" \
	"REC->prev_state & " PW_SW_MASK ", \"|\", { 0x00000001, \"S\" }, " \
	"{ 0x00000002, \"D\" }, { 0x00000004, \"T\" }, { 0x00000008, \"t\" }, " \
	"{ 0x00000010, \"X\" }, { 0x00000020, \"Z\" }, { 0x00000040, \"P\" }, " \
	"{ 0x00000080, \"I\" }) : \"R\", REC->prev_state & (((0x00000000 | " \
	"0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00000010 | " \
	"0x00000020 | 0x00000040) + 1) << 1) ? \"+\" : \"\", REC->next_comm, " \
	"REC->next_pid, REC->next_prio\n"

static const char pw_fmt_switch64[] =
	"name: sched_switch\nID: 372\nformat:\n" PW_COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n\n" PW_SW_PRINT;

static const char pw_fmt_switch32[] =
	"name: sched_switch\nID: 372\nformat:\n" PW_COMMON
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:36;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:52;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:56;\tsize:4;\tsigned:1;\n\n" PW_SW_PRINT;

#define PW_WAKE_FMT(NAME, ID) \
	"name: " NAME "\nID: " ID "\nformat:\n" PW_COMMON \
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n" \
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n" \
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n" \
	"\tfield:int target_cpu;\toffset:32;\tsize:4;\tsigned:1;\n\n" \
	"print fmt: \"comm=%s pid=%d prio=%d target_cpu=%03d\", REC->comm, " \
	"REC->pid, REC->prio, REC->target_cpu\n"

#define PW_POWER_FMT(NAME, ID) \
	"name: " NAME "\nID: " ID "\nformat:\n" PW_COMMON \
	"\tfield:u32 state;\toffset:8;\tsize:4;\tsigned:0;\n" \
	"\tfield:u32 cpu_id;\toffset:12;\tsize:4;\tsigned:0;\n\n" \
	"print fmt: \"state=%lu cpu_id=%lu\", (unsigned long)REC->state, " \
	"(unsigned long)REC->cpu_id\n"

static const char pw_fmt_fork[] =
	"name: sched_process_fork\nID: 366\nformat:\n" PW_COMMON
	"\tfield:__data_loc char[] parent_comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t parent_pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:__data_loc char[] child_comm;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t child_pid;\toffset:20;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d child_comm=%s child_pid=%d\", __get_str(parent_comm), "
	"REC->parent_pid, __get_str(child_comm), REC->child_pid\n";

static const char pw_fmt_exec[] =
	"name: sched_process_exec\nID: 365\nformat:\n" PW_COMMON
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), REC->pid, REC->old_pid\n";

static const char pw_fmt_exit[] =
	"name: sched_process_exit\nID: 369\nformat:\n" PW_COMMON
	"\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:bool group_dead;\toffset:32;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d group_dead=%s\", REC->comm, REC->pid, "
	"REC->prio, REC->group_dead ? \"true\" : \"false\"\n";

static const char pw_fmt_migrate[] =
	"name: sched_migrate_task\nID: 371\nformat:\n" PW_COMMON
	"\tfield:__data_loc char[] comm;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:int orig_cpu;\toffset:20;\tsize:4;\tsigned:1;\n"
	"\tfield:int dest_cpu;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d\", __get_str(comm), "
	"REC->pid, REC->prio, REC->orig_cpu, REC->dest_cpu\n";

static const char pw_header_page64[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:16;\tsize:4080;\tsigned:0;\n";

static const char pw_header_page32[] =
	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
	"\tfield: local_t commit;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
	"\tfield: char data;\toffset:12;\tsize:4084;\tsigned:0;\n";

static const char pw_header_event[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

/* A tracepoint of a file: its system, tracefs id and format (fmt32: the
 * 32-bit target's, if it differs). */
struct pw_tp {
	const char *sys;
	unsigned id;
	const char *fmt, *fmt32;
};

#define PW_TP_SWITCH { "sched", 372, pw_fmt_switch64, pw_fmt_switch32 }
#define PW_TP_WAKEUP { "sched", 374, PW_WAKE_FMT("sched_wakeup", "374"), NULL }
#define PW_TP_WAKEUP_NEW { "sched", 373, PW_WAKE_FMT("sched_wakeup_new", "373"), NULL }
#define PW_TP_WAKING { "sched", 375, PW_WAKE_FMT("sched_waking", "375"), NULL }
#define PW_TP_FORK { "sched", 366, pw_fmt_fork, NULL }
#define PW_TP_EXEC { "sched", 365, pw_fmt_exec, NULL }
#define PW_TP_EXIT { "sched", 369, pw_fmt_exit, NULL }
#define PW_TP_MIGRATE { "sched", 371, pw_fmt_migrate, NULL }
#define PW_TP_IDLE { "power", 568, PW_POWER_FMT("cpu_idle", "568"), NULL }
#define PW_TP_FREQ { "power", 565, PW_POWER_FMT("cpu_frequency", "565"), NULL }

/* An attr: type (2 tracepoint, 1 software), config (the tracepoint id),
 * sample_type, the bitfield word (PW_A_* bits) and sample_period (with
 * PW_A_FREQ: sample_freq; 0 means 1). */
struct pw_attr {
	uint32_t type;
	uint64_t config, sample_type, flags, period;
};

static inline uint64_t pw_id(int attr, int cpu)
{
	return 1000 * (uint64_t)(attr + 1) + cpu;
}

/* ---------------------------------------------------------------- bytes */

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static inline void put(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("perfdata");
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
static inline void set_n(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[pw_be ? n - 1 - i : i] = v >> (8 * i);
}

static inline void put_n(struct buf *b, uint64_t v, int n)
{
	uint8_t x[8];

	set_n(x, v, n);
	put(b, x, n);
}

#define p16(b, v) put_n(b, v, 2)
#define p32(b, v) put_n(b, v, 4)
#define p64(b, v) put_n(b, v, 8)

static inline uint64_t bitrev64(uint64_t v)
{
	uint64_t r = 0;

	for (int i = 0; i < 64; i++, v >>= 1)
		r = r << 1 | (v & 1);
	return r;
}

/* ---------------------------------------------------------------- records */

static inline void pw_hdr(struct buf *d, unsigned type, unsigned misc, size_t size)
{
	p32(d, type);
	p16(d, misc);
	p16(d, size);
}

/* The sample_id_all trailer (TID|TIME|CPU|IDENTIFIER): pid, tid, time,
 * cpu, res, identifier; PW_ID_SIZE bytes. */
static inline void pw_id_trailer(struct buf *d, int pid, int tid, uint64_t t, int cpu, uint64_t id)
{
	p32(d, pid);
	p32(d, tid);
	p64(d, t);
	p32(d, cpu);
	p32(d, 0);
	p64(d, id);
}

/* A COMM record's header and body (pid, tid, comm padded to 8); the
 * caller writes its sample_id (pw_id_trailer). */
static inline void pw_comm(struct buf *d, unsigned misc, int pid, int tid, const char *comm)
{
	size_t n = (strlen(comm) + 1 + 7) & ~7ul;

	pw_hdr(d, PW_R_COMM, misc, 8 + 8 + n + PW_ID_SIZE);
	p32(d, pid);
	p32(d, tid);
	put(d, NULL, n);
	memcpy(d->p + d->len - n, comm, strlen(comm));
}

/* A FORK or EXIT record's header and body; the caller writes its sample_id. */
static inline void pw_task(struct buf *d, unsigned type, int pid, int ppid, int tid, int ptid, uint64_t t)
{
	pw_hdr(d, type, 0, 8 + 24 + PW_ID_SIZE);
	p32(d, pid);
	p32(d, ppid);
	p32(d, tid);
	p32(d, ptid);
	p64(d, t);
}

/* A LOST record's header and body (the id of the event that found the
 * ring full, and how many records were lost); the caller writes its
 * sample_id. */
static inline void pw_lost(struct buf *d, uint64_t id, uint64_t n)
{
	pw_hdr(d, PW_R_LOST, 0, 8 + 16 + PW_ID_SIZE);
	p64(d, id);
	p64(d, n);
}

/* A SAMPLE of sample_type st (IDENTIFIER, IP, TID, TIME, CPU, PERIOD,
 * RAW: those it has, in that order; IP 0) with rn bytes of raw tracepoint
 * data, padded as the kernel pads u32 size + data to 8; period: the
 * events it stands for (1: each is recorded). */
static inline void pw_sample_p(struct buf *d, uint64_t st, uint64_t id, int pid, int tid, uint64_t t, int cpu,
			       uint64_t period, const uint8_t *raw, size_t rn)
{
	size_t rawsz = ((rn + 4 + 7) & ~7ul) - 4, size = 8;

	size += 8 * (!!(st & PW_S_IDENTIFIER) + !!(st & PW_S_IP) + !!(st & PW_S_TID) + !!(st & PW_S_TIME) +
		     !!(st & PW_S_CPU) + !!(st & PW_S_PERIOD));
	size += st & PW_S_RAW ? 4 + rawsz : 0;
	pw_hdr(d, PW_R_SAMPLE, PW_MISC_KERNEL, size);
	if (st & PW_S_IDENTIFIER)
		p64(d, id);
	if (st & PW_S_IP)
		p64(d, 0);
	if (st & PW_S_TID) {
		p32(d, pid);
		p32(d, tid);
	}
	if (st & PW_S_TIME)
		p64(d, t);
	if (st & PW_S_CPU) {
		p32(d, cpu);
		p32(d, 0);
	}
	if (st & PW_S_PERIOD)
		p64(d, period);
	if (st & PW_S_RAW) {
		p32(d, rawsz);
		put(d, raw, rn);
		put(d, NULL, rawsz - rn);
	}
}

/* pw_sample_p of a sample that stands for itself (period 1). */
static inline void pw_sample(struct buf *d, uint64_t st, uint64_t id, int pid, int tid, uint64_t t, int cpu,
			     const uint8_t *raw, size_t rn)
{
	pw_sample_p(d, st, id, pid, tid, t, cpu, 1, raw, rn);
}

/* Raw tracepoint data: the common fields (type id, flags, pid). */
static inline void pw_raw_common(uint8_t *raw, unsigned id, int flags, int pid)
{
	set_n(raw, id, 2);
	raw[2] = flags;
	raw[3] = 0;
	set_n(raw + 4, pid, 4);
}

/* A task name into a zeroed char[16] field at p. */
static inline void pw_raw_comm(uint8_t *p, const char *comm)
{
	memcpy(p, comm, strnlen(comm, 15));
}

/* sched_switch's raw data (common fields set) in raw[64]; returns its size. */
static inline size_t pw_raw_switch(uint8_t *raw, const char *prev_comm, int prev_pid, int prev_prio,
				   int64_t prev_state, const char *next_comm, int next_pid, int next_prio)
{
	int l = pw_long4 ? 4 : 8;	/* sizeof(long): prev_state */

	memset(raw + 8, 0, 56);
	pw_raw_comm(raw + 8, prev_comm);
	set_n(raw + 24, prev_pid, 4);
	set_n(raw + 28, prev_prio, 4);
	set_n(raw + 32, prev_state, l);
	pw_raw_comm(raw + 32 + l, next_comm);
	set_n(raw + 48 + l, next_pid, 4);
	set_n(raw + 52 + l, next_prio, 4);
	return 56 + l;
}

/* sched_wakeup, sched_wakeup_new, sched_waking, sched_process_exit (its
 * target_cpu is group_dead). */
static inline size_t pw_raw_wake(uint8_t *raw, const char *comm, int pid, int prio, int target_cpu)
{
	memset(raw + 8, 0, 28);
	pw_raw_comm(raw + 8, comm);
	set_n(raw + 24, pid, 4);
	set_n(raw + 28, prio, 4);
	set_n(raw + 32, target_cpu, 4);
	return 36;
}

/* cpu_idle, cpu_frequency. */
static inline size_t pw_raw_power(uint8_t *raw, uint32_t state, uint32_t cpu_id)
{
	set_n(raw + 8, state, 4);
	set_n(raw + 12, cpu_id, 4);
	return 16;
}

/* Append string s at raw[*n] as __data_loc field at raw[at]. */
static inline void pw_raw_str(uint8_t *raw, size_t at, size_t *n, const char *s)
{
	size_t len = strlen(s) + 1;

	set_n(raw + at, (uint32_t)(len << 16 | *n), 4);
	memcpy(raw + *n, s, len);
	*n += len;
}

/* sched_process_fork (raw of at least 64 bytes). */
static inline size_t pw_raw_fork(uint8_t *raw, const char *pcomm, int ppid, const char *ccomm, int cpid)
{
	size_t n = 24;

	pw_raw_str(raw, 8, &n, pcomm);
	set_n(raw + 12, ppid, 4);
	pw_raw_str(raw, 16, &n, ccomm);
	set_n(raw + 20, cpid, 4);
	return n;
}

/* sched_process_exec (raw of at least 20 + strlen(file) + 1 bytes). */
static inline size_t pw_raw_exec(uint8_t *raw, const char *file, int pid, int old_pid)
{
	size_t n = 20;

	pw_raw_str(raw, 8, &n, file);
	set_n(raw + 12, pid, 4);
	set_n(raw + 16, old_pid, 4);
	return n;
}

/* sched_migrate_task. */
static inline size_t pw_raw_migrate(uint8_t *raw, const char *comm, int pid, int prio, int orig, int dest)
{
	size_t n = 28;

	pw_raw_str(raw, 8, &n, comm);
	set_n(raw + 12, pid, 4);
	set_n(raw + 16, prio, 4);
	set_n(raw + 20, orig, 4);
	set_n(raw + 24, dest, 4);
	return n;
}

/* ---------------------------------------------------------------- the file */

/* TRACING_DATA as tools/perf/util/trace-event-info.c writes it, for the
 * ntp tracepoints tp (their systems in the order they first appear). */
static inline void pw_tracing(struct buf *b, const struct pw_tp *tp, int ntp)
{
	const char *hp = pw_long4 ? pw_header_page32 : pw_header_page64;
	const char *sys[8];
	int nsys = 0;

	for (int i = 0; i < ntp; i++) {
		int s = 0;

		while (s < nsys && strcmp(sys[s], tp[i].sys))
			s++;
		if (s == nsys && nsys < 8)
			sys[nsys++] = tp[i].sys;
	}
	put(b, "\x17\x08\x44tracing0.6", 13);
	put(b, NULL, 1);
	put(b, pw_be ? "\x01" : "\x00", 1);
	put(b, pw_long4 ? "\x04" : "\x08", 1);
	p32(b, 4096);
	put(b, "header_page", 12);
	p64(b, strlen(hp));
	put(b, hp, strlen(hp));
	put(b, "header_event", 13);
	p64(b, strlen(pw_header_event));
	put(b, pw_header_event, strlen(pw_header_event));
	p32(b, 0);			/* ftrace formats */
	p32(b, nsys);			/* systems */
	for (int s = 0; s < nsys; s++) {
		int n = 0;

		put(b, sys[s], strlen(sys[s]) + 1);
		for (int i = 0; i < ntp; i++)
			n += !strcmp(tp[i].sys, sys[s]);
		p32(b, n);
		for (int i = 0; i < ntp; i++) {
			const char *f = pw_long4 && tp[i].fmt32 ? tp[i].fmt32 : tp[i].fmt;

			if (strcmp(tp[i].sys, sys[s]))
				continue;
			p64(b, strlen(f));
			put(b, f, strlen(f));
		}
	}
	p32(b, 0);			/* kallsyms */
	p32(b, 0);			/* printk formats */
	p64(b, 0);			/* saved cmdlines */
}

static inline void pw_attr_put(struct buf *b, const struct pw_attr *a)
{
	size_t at = b->len;

	p32(b, a->type);
	p32(b, PW_ATTR_SIZE);
	p64(b, a->config);
	p64(b, a->period ? a->period : 1);	/* sample_period or sample_freq */
	p64(b, a->sample_type);
	p64(b, 0);			/* read_format */
	p64(b, pw_be ? bitrev64(a->flags) : a->flags);
	put(b, NULL, at + PW_ATTR_SIZE - b->len);
}

/* A string feature (HOSTNAME, VERSION): its length padded to NAME_ALIGN
 * 64, then the string and zeros. */
static inline void pw_feat_str(struct buf *b, const char *s)
{
	size_t n = (strlen(s) + 1 + 63) & ~63ul;

	p32(b, n);
	put(b, s, strlen(s));
	put(b, NULL, n - strlen(s));
}

/* Write the file: header, the ids of every attr's per-CPU events, the
 * nattr attrs, the data section data, the feature table and TRACING_DATA
 * (of the ntp tracepoints tp), HOSTNAME, VERSION (if version is not NULL:
 * tc's "tc VERSION" says its records are in time order), NRCPUS (ncpu). */
static inline void pw_file(const char *path, const char *host, const struct pw_attr *attr, int nattr,
			   const struct pw_tp *tp, int ntp, int ncpu, const struct buf *data,
			   const char *version)
{
	struct buf f = { 0 }, feat[5] = { { 0 } };	/* in feature bit order */
	int nfeat = version ? 4 : 3;
	size_t ids_off, attrs_off, split, data_size;
	uint64_t data_off, blob;
	uint64_t bits = 1ull << PW_F_TRACING_DATA | 1ull << PW_F_HOSTNAME | 1ull << PW_F_NRCPUS;
	FILE *out;

	put(&f, NULL, PW_HDR_SIZE);
	ids_off = f.len;
	for (int i = 0; i < nattr; i++)
		for (int c = 0; c < ncpu; c++)
			p64(&f, pw_id(i, c));
	attrs_off = f.len;
	for (int i = 0; i < nattr; i++) {
		pw_attr_put(&f, &attr[i]);
		p64(&f, ids_off + 8 * ncpu * i);
		p64(&f, 8 * ncpu);
	}
	split = f.len;	/* pw_gap's hole goes here */
	data_off = f.len + pw_gap;
	put(&f, data->p, data->len);
	data_size = f.len - split;

	pw_tracing(&feat[0], tp, ntp);
	pw_feat_str(&feat[1], host);
	if (version) {
		pw_feat_str(&feat[2], version);
		bits |= 1ull << PW_F_VERSION;
	}
	p32(&feat[nfeat - 1], ncpu);	/* nr_cpus_avail */
	p32(&feat[nfeat - 1], ncpu);	/* nr_cpus_online */
	if (pw_cmdline) {		/* u32 argc, then each a string feature */
		int n = 0;

		while (pw_cmdline[n])
			n++;
		p32(&feat[nfeat], n);
		for (int i = 0; i < n; i++)
			pw_feat_str(&feat[nfeat], pw_cmdline[i]);
		nfeat++;
		bits |= 1ull << PW_F_CMDLINE;
	}
	blob = f.len + pw_gap + 16 * nfeat;
	for (int i = 0; i < nfeat; i++) {
		p64(&f, blob);
		p64(&f, feat[i].len);
		blob += feat[i].len;
	}
	for (int i = 0; i < nfeat; i++)
		put(&f, feat[i].p, feat[i].len);

	{
		/* magic "PERFILE2", size, attr_size, attrs, data, event_types,
		 * the first 64 of the 256 feature bits */
		const uint64_t h[] = {
			0x32454c4946524550ull, PW_HDR_SIZE, PW_ATTR_SIZE + 16,
			attrs_off, split - attrs_off, data_off, data_size, 0, 0,
			bits,
		};

		for (size_t i = 0; i < sizeof(h) / sizeof(h[0]); i++)
			set_n(f.p + 8 * i, h[i], 8);
	}
	out = fopen(path, "wb");
	if (!out || fwrite(f.p, 1, split, out) != split || fseeko(out, (off_t)pw_gap, SEEK_CUR) ||
	    fwrite(f.p + split, 1, f.len - split, out) != f.len - split || fclose(out)) {
		perror(path);
		exit(1);
	}
	free(f.p);
	for (int i = 0; i < nfeat; i++)
		free(feat[i].p);
}

#endif
