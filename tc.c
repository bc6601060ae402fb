/*
 * tc — a live timechart for Linux, in one file.
 *
 * tc shows what every CPU and task is doing: who runs, who waits for a CPU,
 * who sleeps, who is blocked, which idle state and frequency each CPU is in,
 * and who woke whom.  It records in the perf.data format and reads perf's.
 *
 * How to read this file: top to bottom.
 *
 *   limits and types      fixed sizes, the decoded event, tasks, CPUs, G
 *   formatting and output tc's printf and its buffered output (struct out)
 *   utilities             errors, memory, clocks, files, byte order, sorting
 *   tracefs               finding it, parsing event format files
 *   events                the tracepoints tc uses, attrs and the id map
 *   decoding              perf records (samples, side-band) into struct ev
 *   model                 events into task and CPU states (the state rules)
 *   merge                 per-CPU queues released in time order
 *   perf_event and rings  opening events per CPU, the ring buffer reader
 *   recorder              the crash-tolerant perf.data writer
 *   flight recorder       --flight: the last seconds kept, saved on a trigger
 *   reader                perf.data files (tc's and perf's, file and pipe mode)
 *   repair                making a cut-off recording whole again
 *   traced command        fork, hold, exec, stop, reap
 *   text outputs          --script, --summary, --states; the account on stderr
 *   answers               --latency (the worst waits), --chain, --ftrace
 *   terminal              raw mode, restoring it; the escape sequences
 *   input                 keys and mouse from escape sequences
 *   history               the view's intervals: summaries, ring, reading again
 *   drawing               a frame from the model, and its diff to the screen
 *   view state            cursor, zoom, following; what the keys do
 *   main loop             emit(), signals, --record, the view, --replay
 *   options and main      the command line, --help, main()
 *
 * One pipeline serves every mode: records come from the rings (live) or a
 * file, the merge releases them in time order to emit(), which appends them
 * to a recording, decodes them and feeds the model and the outputs.  The
 * view only reads the model.
 *
 * The ring buffer contract (linux/perf_event.h): the kernel writes records
 * into data[] and advances data_head; we read data_head with acquire
 * semantics, copy records from data_tail up to it (a record may wrap past the
 * end of data[] and is then copied in two pieces), and publish the new
 * data_tail with release semantics so the kernel may reuse the space.
 *
 *   mmap:  [ perf_event_mmap_page ][ data: 2^n pages ............ ]
 *                                    ^tail%size        ^head%size
 *
 * Time order: each CPU's records are in time order; the merge holds them in
 * per-CPU queues and releases a record only when no CPU can still deliver an
 * older one (see the merge section).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64	/* 32-bit glibc: files past 2 GiB (off_t in stat, pread, mmap, lseek) */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <linux/perf_event.h>

#define TC_VERSION "0.1"
#define TC_WRITER "tc " TC_VERSION	/* HEADER_VERSION of tc's recordings */

/* ---------------------------------------------------------------- limits and types */

enum {
	MAX_CPUS = 4096,		/* bound on any CPU number, live or from a file */
	TFS_MAX_FIELDS = 40,		/* fields of one tracepoint format */
	MAX_FMTS = 128,			/* tracepoint formats known at once */
	MAX_ATTRS = 128,		/* perf_event_attr entries of a recording */
	COMM_LEN = 16,			/* TASK_COMM_LEN */
	REC_BUF = 256 << 10,		/* recorder write buffer */
	RD_BUF = 256 << 10,		/* reader input buffer (larger ones fall out of the cache) */
	RD_CAP = (2 << 20) - 4096,	/* that of a perf file's merge in runs: one huge page */
	RD_OLD = 2,			/* a perf file's full buffers kept for the merge (rd_keep) */
	RD_KEEP_MEM = 10 << 20,		/* at most, those and the task table's slots used */
	RD_AHEAD = 4096,		/* the loops over records ask for the bytes a page ahead: the
					 * merge's first reading of a record waited for memory
					 * (run_grow, run_next: -10 to -25% time on an Intel VM) */
	RD_FILL_MIN = 4 << 20,		/* data from which a replay reads with a second thread (rd_filler) */
	RD_SPIN = 2000000,		/* ns rd_filler's sides spin before they sleep */
	RD_FILL_WAITS = 5,		/* its reader waited for most of a buffer's chunks ... */
	RD_FILL_SLOW = 3,		/* ... in as many buffers in a row: it reads them itself */
	RD_FILL_WMEM = 2 << 20,		/* at most, its queues' windows: where all of them fit (8 queues;
					 * for 8 of 64 or 256: 1.6 MB more peak RSS, and 64 CPUs'
					 * file 77 ms against 68) */
	RD_WIN_MEM = 2 << 20,		/* at most, the merge's own windows (rd_win_read), all queues */
	FW_NONE = 0, FW_ASKED, FW_READING, FW_READ,	/* a window the thread reads (struct fwin) */
	MAX_REC = 65536,		/* a perf record's size field is 16 bits */
	MAX_IDS = 1 << 20,		/* event ids of a recording, all attrs */
	MAX_TD = 64 << 20,		/* a recording's tracing data */
	FD_SPARE = 10,			/* file descriptors tc needs besides its events (+1 for the view) */
	IB_POP = 256 << 10,		/* the interval ring's pages made at once, its first time round (ib_put) */
};

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23		/* Linux 5.14; before, EINVAL: the pages come as written */
#endif

#define NS_PER_SEC 1000000000ull
#define RT_AUTO 100		/* -r not given (see pe_priority) */
#define CKPT_NS (500 * 1000000ull)	/* recorder checkpoint interval */
#define SLACK_NS (20 * 1000000ull)	/* how late a record may reach its ring (see merge) */
#define QUEUE_MAX ((size_t)64 << 20)	/* merge queues, all CPUs, at most */
#define PASS_MS 250			/* longest wait between ring passes */
#define GRACE_NS (2 * NS_PER_SEC)	/* SIGTERM to SIGKILL for the command */
#define STOP_WAIT_MS 2000		/* told to stop: longest wait for a reader to take some output */
#define IDLE_EXIT 4294967295ull		/* cpu_idle state leaving idle */
#define CSTATE_MAX 255			/* deeper idle states from a file are taken as this */

/* perf.data record types that tc handles beyond linux/perf_event.h's */
enum {
	PR_HEADER_ATTR = 64,
	PR_HEADER_EVENT_TYPE = 65,
	PR_HEADER_TRACING_DATA = 66,
	PR_FINISHED_ROUND = 68,
	PR_FINISHED_INIT = 82,
	PR_HEADER_FEATURE = 80,
	PR_COMPRESSED = 81,
	PR_MAX_USER = 100,
};
/* A LOST_SAMPLES record of samples a BPF filter of perf record dropped
 * (perf 6.5 on; the kernel's header has it since then) */
#define MISC_LOST_SAMPLES_BPF (1 << 15)

/* perf.data feature bits (tools/perf/util/header.h) */
enum {
	FEAT_RESERVED = 0, FEAT_TRACING_DATA = 1, FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4, FEAT_VERSION = 5, FEAT_ARCH = 6, FEAT_NRCPUS = 7, FEAT_CMDLINE = 11,
	FEAT_SAMPLE_TIME = 21, FEAT_CLOCKID = 23, FEAT_CLOCK_DATA = 29,
	FEAT_TC_MARK = 60,	/* tc's: what fired a flight recording (perf skips it) */
	FEAT_BITS = 256,
};

#define PERF_MAGIC2 0x32454c4946524550ull	/* "PERFILE2" little endian */
#define FILE_HDR_SIZE 104

/* perf.data's file header (tools/perf/util/header.h), in the file's byte
 * order; after the data, the feature table: a file_section per feature. */
struct file_section {
	uint64_t offset, size;
};
struct file_header {
	uint64_t magic;			/* "PERFILE2" */
	uint64_t size;			/* of this header; 16 in pipe mode */
	uint64_t attr_size;		/* of an attr and its ids section */
	struct file_section attrs, data, event_types;
	uint64_t features[4];		/* feature bits */
};
_Static_assert(sizeof(struct file_header) == FILE_HDR_SIZE, "perf.data's header is 104 bytes");
_Static_assert(offsetof(struct file_header, data) == 40 && offsetof(struct file_header, features) == 72,
	       "the header's layout is perf's");
#define FILE_ATTR_SIZE 128			/* perf_event_attr as written */

/* The sample_id after a side-band record of tc's dummy event (TID, TIME,
 * CPU, IDENTIFIER), and the records tc writes itself in that layout: a
 * task's name (COMM), a loss no LOST record reported, a pause (an empty
 * LOST_SAMPLES). */
struct dummy_sid {
	uint32_t pid, tid;
	uint64_t time;
	uint32_t cpu, res;
	uint64_t id;
};
struct comm_rec {
	struct perf_event_header h;
	uint32_t pid, tid;
	char comm[16];
	struct dummy_sid sid;
};
struct lost_rec {
	struct perf_event_header h;
	uint64_t id, lost;
	struct dummy_sid sid;
};
struct lost_samples_rec {
	struct perf_event_header h;
	uint64_t lost;
	struct dummy_sid sid;
};
_Static_assert(sizeof(struct dummy_sid) == 32 && sizeof(struct comm_rec) == 64 &&
	       sizeof(struct lost_rec) == 56 && sizeof(struct lost_samples_rec) == 48,
	       "tc's own records: perf's layouts with the dummy's sample_id");

/* What a decoded event is.  The first EV_NTP are tracepoints. */
enum ev_kind {
	EV_SWITCH, EV_WAKEUP, EV_WAKEUP_NEW, EV_WAKING, EV_PFORK, EV_PEXEC,
	EV_PEXIT, EV_MIGRATE, EV_IDLE, EV_FREQ,
	EV_IRQ, EV_IRQ_EXIT, EV_SOFTIRQ, EV_SOFTIRQ_EXIT,	/* -Q */
	EV_NTP,
	EV_COMM = EV_NTP, EV_FORK, EV_EXIT, EV_LOST,
	EV_SYS_ENTER, EV_SYS_EXIT,	/* syscalls:sys_enter_X / sys_exit_X of io_calls */
	EV_NKIND,
	EV_NONE = -1,
};

/*
 * One decoded event.  Which fields mean what depends on kind:
 *   SWITCH        a prev_pid, b next_pid, v prev_state, comm prev, comm2 next
 *   WAKEUP*       a wakee pid, c target cpu, comm wakee; waker is tid
 *   PFORK         a parent pid, b child pid, comm parent, comm2 child
 *   PEXEC         a pid, b old pid, comm file name (last 15 bytes)
 *   PEXIT         a pid, comm
 *   MIGRATE       a pid, b orig cpu, c dest cpu, comm
 *   IDLE, FREQ    v state (IDLE_EXIT leaves idle) or kHz, c cpu_id
 *   IRQ           a irq, comm its handler's name; IRQ_EXIT a irq, v ret
 *   SOFTIRQ*      a vector
 *   COMM          a pid, b tid, v 1 if from exec, comm
 *   FORK, EXIT    a pid, b ppid, c tid, v ptid
 *   LOST          v events lost
 *   SYS_ENTER     a fd (-1 if none), b io_calls index; the task is tid
 *   SYS_EXIT      v return value, b io_calls index
 * time is ns (CLOCK_MONOTONIC for tc's recordings); cpu, pid and tid are
 * those of the record (-1 where it has none); flags is common_flags.
 */
struct ev {
	uint64_t time;
	int64_t v;
	int kind, cpu, pid, tid;
	int a, b, c;
	unsigned flags;
	char comm[COMM_LEN], comm2[COMM_LEN];
};

/* Task states, in the order the summary and the view use.  ST_IO is no
 * state of the model (I/O calls are an overlay on the states, -I): it is
 * the slot the view draws them in. */
enum st {
	ST_UNKNOWN, ST_RUNNING, ST_RUNNABLE, ST_SLEEPING, ST_BLOCKED, ST_IO,
	ST_DEAD,		/* exited: no longer accounted */
	ST_N
};

static const char *const st_names[ST_N] = { "unknown", "running", "runnable", "sleeping",
					     "blocked", "I/O", "exited" };

#ifndef TC_MAX_TASKS
#define TC_MAX_TASKS 16384	/* task table; -DTC_MAX_TASKS=N to change */
#endif
#ifndef TC_MAX_IVALS
#define TC_MAX_IVALS 1		/* model_init's interval ring (bytes) until hist_init sizes it (--history) */
#endif
#define PID_MAX 4194304		/* PID_MAX_LIMIT: larger pids are invalid */
#define NO_IVAL UINT64_MAX	/* no interval: the end of a row's chain */
#define WAKER_IRQ (-2)		/* a wakeup from interrupt context */
#define TRACE_IRQ_FLAGS 0x58	/* common_flags: HARDIRQ | SOFTIRQ | NMI */

#define LAT_NB 24		/* log2 buckets of runnable waits: < 1 us, then [2^(k+9), 2^(k+10)) ns */
#define LAT_WAKES 4		/* wakeups kept per task for the waker chain */

/* A task (thread) of the model.  Times in ns; totals per state. */
struct task {
	int tid, pid;		/* pid: thread group id, -1 when unknown */
	char comm[COMM_LEN];
	uint8_t state;		/* enum st */
	bool stated;		/* an event told its state (else: only named) */
	bool exited;		/* exit seen, final switch-out pending */
	int cpu;		/* last CPU it ran or was queued on, -1 unknown */
	int waker;		/* tid of the last waker, WAKER_IRQ, or -1 */
	uint64_t since;		/* start of the current state */
	uint64_t wait_start;	/* became runnable (woken or preempted) */
	uint64_t first_seen, last_seen;
	uint64_t total[ST_N];
	uint64_t max_delay;
	uint32_t switches, wakeups;
	uint32_t inferred;	/* switch-ins the kernel did not report */
	uint64_t initial;	/* ran from its CPU's first record to that CPU's first switch */
	bool run_initial;	/* its current run began with its CPU's first record */
	uint64_t last_ival;	/* newest interval of this row, NO_IVAL */
	/* -I: inside a traced I/O call since io_start; totals of the calls */
	bool in_io;
	int8_t io_call;		/* index in io_calls */
	uint64_t io_start, io_ns, io_rbytes, io_wbytes;
	uint32_t io_count, io_errors;
	uint64_t last_iival;	/* newest I/O call interval: state = io_calls index, aux = ret */
	uint64_t io_wait;	/* ns inside I/O calls while runnable, sleeping or blocked */
	int run_cpu;		/* the CPU whose cur it is while running, else -1 */
	bool ctx;		/* a record names it: recorded per task, it is traced */
	/* a wakeup begun (sched_waking) and not finished (sched_wakeup, a
	 * switch-in): a switch-out S or D meanwhile was woken after its dequeue */
	bool wk_pending;
	bool wk_seen;		/* a sched_waking of it came, its sched_wakeup not yet */
	int wk_waker;
	int32_t unk_aux;	/* why it is unknown (UNK_AUX), while it is */
	uint32_t missing_out;	/* its switch-outs the kernel did not report */
	uint32_t lost_gaps;	/* losses of its CPU's ring that made it unknown */
	uint32_t migrations;	/* sched_migrate_task to another CPU (se.nr_migrations) */
	uint64_t irq_ns;	/* -Q: interrupt time inside its runs */
	/* answers (see lat_wait_end): runnable waits, wakeups for the chain */
	uint32_t lat_hist[LAT_NB];	/* waits per log2 bucket */
	uint32_t lat_n;
	uint64_t lat_sum, lat_max;	/* ns */
	uint32_t lat_pre_n;		/* of them, waits after a preemption */
	uint64_t lat_pre_sum, lat_pre_max;
	uint64_t lat_cpus;		/* CPUs seen on once migrated (bit 63: 63 and up) */
	bool lat_migrated;
	uint8_t lat_cstate1;		/* idle state + 1 of its CPU at its last wakeup, 0 none */
	uint8_t wk_next;		/* next slot of wk_t, wk_tid */
	uint64_t wk_t[LAT_WAKES];	/* its last wakeups: time, waker (WAKER_IRQ) */
	int32_t wk_tid[LAT_WAKES];
};

/* A CPU of the model. */
struct cpu {
	int cur;		/* running tid (0 idle), -1 unknown */
	uint64_t since;		/* start of cur */
	uint64_t busy, idle;	/* ns with a task / the idle task running */
	uint32_t switches;
	int64_t cstate;		/* idle state, -1 none */
	uint64_t cstate_since;
	int64_t freq;		/* kHz, -1 unknown */
	uint64_t freq_since;
	bool seen;		/* a switch was seen on it */
	bool traced;		/* a tracepoint record was seen on it */
	uint64_t first;		/* its first tracepoint record: nothing is known of it before */
	uint64_t tp_last;	/* its newest tracepoint record (model_end_cut) */
	uint64_t cstate_ns[10];	/* time per idle state (deeper ones in the last) */
	uint64_t freq_ns, freq_sum;	/* time with a known frequency, and kHz x ns */
	int64_t freq_max;
	uint64_t last_ival, last_cival, last_fival;	/* task, idle state, frequency rows */
	uint64_t cur_last;	/* last evidence of cur running here (a sample, its switch-in) */
	bool gap;		/* a gap since its last switch */
	bool late;		/* its records come older than the model's time (model_event) */
	bool idle_exit;		/* out of its idle state (cpu_idle exit), no switch since */
	bool sideband;		/* a side-band record came before its tracepoints */
	uint64_t task_run;	/* ns its tasks ran on it, summed over the tasks */
	uint64_t last_t;	/* its newest record: where a loss of its ring begins */
	uint32_t inferred, inferred_idle;	/* switch-ins inferred on it; of them, out of idle */
	uint64_t unrec_until;	/* inside a stretch sampled tracepoints left out until then */
	uint32_t missing_out;	/* switch-outs of its tasks the kernel did not report */
	int32_t unk_aux;	/* why it is unknown (UNK_AUX), while it is */
	/* -Q: the hardirq and softirq running on it (-1: none), since when;
	 * their time (a softirq's less the hardirqs inside it) */
	int32_t hirq, sirq, hirq_slot;
	uint64_t hirq_since, sirq_since, sirq_nested;
	uint64_t irq_ns, softirq_ns;
	uint64_t last_qival;	/* interrupt row: state irq, or -1 - vector; aux its irq_stat slot */
	int sw_next;		/* its last sched_switch: the task switched in, at sw_t (model_end_off) */
	uint64_t sw_t;
};

/* -Q: count, time and longest of one IRQ or softirq vector on one CPU. */
struct irq_stat {
	int32_t irq;		/* IRQ number or vector, -1: a free slot */
	int16_t cpu;
	bool soft;
	uint32_t count;
	uint64_t ns, max;
	char name[COMM_LEN];	/* the handler's name (hardirq) */
};

/*
 * Why a row is unknown: the aux of its unknown intervals (a task's
 * ST_UNKNOWN, a CPU's tid -1) is UNK_AUX(why, gap): before its first
 * event, a gap (the gap log says which: events lost on a CPU, a pause),
 * a switch the kernel left out, a CPU whose tracepoints were not on yet,
 * a recording per task or of some CPUs that has not its events (enum
 * part, above model_evidence), or a task switched out asleep after a
 * wakeup whose end the recording has not (model_switch).
 */
enum unk { UNK_UNSEEN, UNK_GAP, UNK_MISSING, UNK_UNTRACED, UNK_PERTASK, UNK_CPUS, UNK_FILTER, UNK_WOKEN };
/* What a recording's events cover, the least first: every task on every
 * CPU, all but some wakeups (--filter on them), some CPUs, the traced
 * tasks, not every switch (--filter on sched_switch or others). */
enum part { PART_ALL, PART_RUNS, PART_CPUS, PART_TASKS, PART_NONE };
static const uint8_t part_unk[] = { UNK_UNSEEN, UNK_FILTER, UNK_CPUS, UNK_PERTASK, UNK_FILTER };
#define UNK_AUX(why, gap) ((int32_t)((why) | ((gap) & 0xffffffu) << 3))
#define GAP_LOG 256		/* gaps the model remembers (their CPU and count) */
#define IRQ_STATS 1024		/* IRQs and softirq vectors x CPUs counted (-Q) */

/* A closed state interval of a row (task slot, or -1 - cpu for CPU rows),
 * as ival_get decodes it from the byte ring ival_add writes (see there); a
 * row's intervals are chained newest to oldest. */
struct ival {
	uint64_t start, end;
	uint64_t prev;		/* older interval of the same row, NO_IVAL */
	int32_t row;
	int32_t state;		/* enum st, or for CPU rows the running tid */
	int32_t aux;		/* runnable task: its waker (WAKER_IRQ, -1 preempted);
				 * running task: the CPU it ran on */
};

/*
 * The view's summary history behind ival_add: per row, HIST_NB buckets of
 * w ns each, holding ns per state (floats) of the intervals closed
 * in them (bucket widths and counts are per kind).  Kinds of rows and
 * their slots:
 *
 *   HK_TASK    running, runnable, sleeping, blocked, I/O, CPU + 1 (of the
 *              last running piece in the bucket)
 *   HK_IO      ns in I/O calls per enum io_kind
 *   HK_CPU     busy, idle, hardirq, softirq (-Q)
 *   HK_CSTATE  ns per idle state (deeper ones in the last)
 *   HK_FREQ    kHz x ns, ns with a known frequency
 *
 * Bucket b covers [G.hist.base + b * w, + w) and sits in slot b % nb of its
 * row's block; a block holds buckets (hi - nb, hi].  Replay doubles a
 * kind's w (merging pairs) so the whole recording fits; live
 * keeps the last 2 windows, overwriting the oldest buckets.  Task blocks
 * come from a pool; when it is empty the least recently written one is
 * taken (its row's older history then shows as unknown).
 */
enum hk { HK_TASK, HK_IO, HK_CPU, HK_CSTATE, HK_FREQ, HK_N };
enum { HT_RUN, HT_RUNNABLE, HT_SLEEP, HT_BLOCKED, HT_IO, HT_CPU, HT_N, HC_N = 10 };

struct hpool {
	float *f;		/* nblk blocks of nb * nslot floats */
	int64_t *hi;		/* per block: its newest bucket, -1 empty */
	int32_t *row, *tid;	/* per block: owner row and (tasks) tid, -1 free */
	int32_t *map;		/* row (task slot or CPU) -> block, -1 */
	int nblk, nslot, nmap, hand;
	int nb;			/* buckets per block */
	uint64_t w;		/* ns per bucket */
};

/* A field of a tracepoint format: "field:char prev_comm[16]; offset:8; ..." */
struct tfs_field {
	char name[32];
	unsigned off, size;
	bool is_signed, dyn;	/* dyn: __data_loc, a u32 of (len << 16 | off) */
};

/* A parsed tracefs format file */
struct tfs_fmt {
	char sys[32], name[64];
	unsigned id;
	int nfield;
	struct tfs_field field[TFS_MAX_FIELDS];
};

/* The fields tc reads, looked up by name in every format. */
enum fld {
	F_COMMON_FLAGS, F_COMMON_PID, F_PREV_COMM, F_PREV_PID, F_PREV_STATE,
	F_NEXT_COMM, F_NEXT_PID, F_COMM, F_PID, F_TARGET_CPU, F_PARENT_COMM,
	F_PARENT_PID, F_CHILD_COMM, F_CHILD_PID, F_FILENAME, F_OLD_PID,
	F_ORIG_CPU, F_DEST_CPU, F_STATE, F_CPU_ID, F_FD, F_RET, F_IRQ, F_NAME, F_VEC,
	F_NFLD
};
static const char *const fld_names[F_NFLD] = {
	"common_flags", "common_pid", "prev_comm", "prev_pid", "prev_state",
	"next_comm", "next_pid", "comm", "pid", "target_cpu", "parent_comm",
	"parent_pid", "child_comm", "child_pid", "filename", "old_pid",
	"orig_cpu", "dest_cpu", "state", "cpu_id", "fd", "ret", "irq", "name", "vec",
};

/* An event source of a recording: a perf_event_attr and what it means. */
struct attr {
	struct perf_event_attr pa;	/* as opened or as read (byte order fixed) */
	int kind;			/* enum ev_kind for tracepoints, else EV_NONE */
	int io;				/* SYS_ENTER/EXIT: index in io_calls */
	/* byte offsets in its samples of TID, TIME, CPU and RAW (0: absent)
	 * when nothing of variable size precedes them (fixed) */
	bool fixed;
	bool std;			/* fixed, and all four there (ev_layout), not sampled */
	/* a tracepoint tc uses recorded one event in a period (perf record
	 * -F or -c: attr freq, or sample_period above 1), not each */
	bool sampled;
	uint16_t pos_tid, pos_time, pos_cpu, pos_raw, min_size;
	uint16_t pos_period;		/* with fixed: PERIOD's offset, 0 absent */
	const struct tfs_fmt *fmt;	/* tracepoint format, or NULL */
	const struct tfs_field *fp[F_NFLD];
	/* ev_decode's fast path (ev_layout): the fields its kind reads, in
	 * ev_fields' order, all within the first raw_need bytes of the raw
	 * data (raw_need 0: the generic path) */
	struct fq { uint16_t off; uint8_t size; bool sign; } fq[6];
	uint32_t raw_need;
	bool s4;			/* ... common_flags 1 byte unsigned, the other integers
					 * (but sched_switch's prev_state) 4 bytes signed: fq_val */
	uint64_t *ids;			/* kernel ids of its per-CPU events */
	int nids;
	uint64_t nsamples;		/* its samples read */
};

/* A byte buffer that grows (buf_add: doubled, past POOL_BLOCK to fill its
 * huge pages); at start-up, in repair, and per stretch of a sampled
 * recording's left-out events (rd_unrec_add). */
struct buf {
	uint8_t *p;
	size_t len, cap;
};

/* A queued record: its time, and where it is (see the merge section). */
struct qent {
	uint64_t time;
	uint64_t ref;			/* stream offset << 8 | attr index */
};
_Static_assert(sizeof(struct qent) == 16, "a queued record costs 16 bytes");
_Static_assert(MAX_ATTRS <= 256, "an attr index fits in a queue entry's low byte");

/* A per-CPU merge queue: entries in arrival order, and for copied records
 * their bytes in a ring in the same order (positions are running counts). */
struct mq {
	struct qent *e;
	uint32_t ecap, ehead, n;	/* ecap a power of two; n entries from ehead */
	uint8_t *b;			/* copies (a file's records stay in it: runs) */
	size_t bcap;			/* a power of two */
	uint64_t bhead, btail;
	uint64_t caught;		/* no record older than this can still come */
	uint64_t last;			/* time of the newest record queued */
	uint8_t *w;			/* a file's: its bytes [woff, woff + wlen) (rd_at) */
	uint64_t woff;
	uint32_t wlen, wnext, wused;	/* ... the next read's size, records taken since */
};

/* What a record says of itself: its attr, time, cpu and task. */
struct rinfo {
	int attr;			/* -1 when unknown */
	bool has_time;
	uint64_t time;
	int cpu, pid, tid;
	uint64_t period;		/* SAMPLE: its PERIOD where read (sampled attrs), else 0 */
	const uint8_t *raw;		/* SAMPLE: the tracepoint data */
	uint32_t rawsz;
	size_t body_end;		/* non-SAMPLE: where the sample_id trailer starts */
};

/* A run of a file's queued records (see the merge section): its head is
 * the oldest of them not released yet. */
struct qrun {
	uint64_t time, pos;		/* the head's time (mq_key) and file offset */
	uint64_t end, last;		/* the offset past the run, its newest time */
	struct rinfo ri;		/* the head's parse (ri.raw: raw_off into it) */
	uint16_t raw_off;		/* (a record has at most 64 KiB) */
	bool gaps;			/* records not its own between its own (run_next) */
	int8_t at;			/* FAST: the head is a sample rec_std knows, of this
					 * attr (ri not filled: run_emit), else -1 */
	int qi;				/* its queue */
};

/* A read buffer the reader filled before its present one (rd_keep): it
 * holds file bytes [off, off + len). */
struct rold {
	uint8_t *b;
	uint64_t off;
	size_t len;
};

/* A per-CPU ring buffer as mapped (or faked by the unit tests). */
struct rb {
	struct perf_event_mmap_page *pc;
	uint8_t *data;
	uint64_t size;			/* data bytes, a power of two */
	int cpu, fd;
	int fd0, nfd;			/* its events: G.rg.fds[fd0 .. fd0+nfd) */
	uint64_t dummy_id;		/* the dummy event's id on its CPU */
	uint64_t lost_read;		/* its events' lost counts (PERF_FORMAT_LOST) */
};

/* What runs for every record is inlined where it is called.  The static
 * build, made for size (-Oz), leaves the fast paths of the formatter,
 * rec_info and ev_decode out (FAST 0): the generic ones give the same
 * (test static_same compares the two builds' outputs). */
#ifdef __OPTIMIZE_SIZE__
#define HOT static inline
#define NOINL static
#define FAST 0
#else
#define HOT static inline __attribute__((always_inline))
#define NOINL static __attribute__((noinline))	/* a function of its own: where gcc inlines */
#define FAST 1						/* it, the hot paths lose 10M instructions a file */
#endif

/*
 * The global state (busybox's G), one sub-struct per section of this file
 * (st's Term and Selection): options, events, rings, merge, model, the
 * ring of exact intervals, counters, recorder, reader, traced command,
 * terminal, view, view history, flight recorder, signals.
 */
static struct {
	struct options {		/* the command line (see "options and main") */
		const char *rec_path, *replay_path, *repair_path;
		char **argv;		/* all of it, for a recording's CMDLINE */
		int argc;
		bool script, summary, live;
		bool view;		/* the terminal view: --live, or --replay without output options */
		bool power_only, tasks_only, io, irq;	/* -P, -T, -I, -Q */
		const char *filt[32];	/* -p PID|NAME, as given */
		int nfilt;
		char self_filter[512];	/* -I: the tracepoint filter excluding tc's threads */
		bool *cpu_filt;		/* NULL: every CPU */
		const char *cpu_arg;	/* -C's list, as given */
		double duration;	/* seconds, 0 = until stopped */
		uint64_t mmap_pages;	/* -m, 0: chosen from memory (pe_pages) */
		uint64_t rt;		/* -r PRIO; RT_AUTO: raised while a ring is over half full */
		char **cmd;
		bool latency, ftrace;	/* --latency, --ftrace */
		bool states;		/* --states: every state interval as it closes */
		uint64_t chain_tid;	/* --chain TID, 0 none */
	} opt;

	struct events {			/* tracefs and events */
		char tfs_root[256];
		struct tfs_fmt fmt[MAX_FMTS];
		int nfmt;
		struct attr attr[MAX_ATTRS];
		int nattr;
		int id_pos, is_pos;	/* where the id sits when no IDENTIFIER */
		uint64_t *idmap_id;	/* open-addressing id -> attr index */
		int *idmap_attr;
		size_t idmap_cap;
		struct idc { uint64_t id; int attr1; } *idc;	/* rec_attr's cache: attr + 1, 0 none, */
		uint64_t idc_mask;	/* ... at id & idc_mask (idmap_cap slots, after idmap_id's) */
		bool swap;		/* the data is in the other byte order */
		bool sampled;		/* an attr is sampled (see struct attr) */
	} ev;

	struct rings {			/* perf_event and rings */
		struct rb *rb;		/* live: one per online CPU */
		int nrb;
		int raised;		/* RT_AUTO: SCHED_DEADLINE or SCHED_FIFO while raised, else 0 */
		int raised_to;		/* what it was raised to last */
		unsigned fill_in;	/* how full the fullest ring was when the last pass came, in 1024ths */
		bool rt_denied;		/* it may not be raised */
		uint64_t raised_since, raised_ns, calm_since;	/* when it rose; its time raised; rings calm since */
		int *fds;		/* every perf event fd */
		int nfd;
		/* every event was on from on_from to on_until (0: still on);
		 * records outside were left out (pe_outside) */
		uint64_t on_from, on_until, trimmed;
		bool off;		/* the capture has ended (capture_off) */
	} rg;

	struct merge {			/* merge (a reader's pass has its own: rd_pass) */
		struct mq *q;		/* ncpu + 1 queues: the last for records without a CPU */
		int nq;
		int *heap, nheap;	/* the non-empty queues, a min-heap by oldest record */
		struct qrun *run;	/* a file's: its runs (crun slots) */
		int *rheap, nrun, crun;	/* ... the slots of nrun, a min-heap by head */
		int rtop, rfree;	/* ... slots used so far, the first free one + 1 (its
					 * qi: the next's + 1; 0: none) */
		struct qrun cur;	/* ... the run the last record queued joined (cur_on) */
		bool runs, cur_on;	/* a file's records are queued in runs */
		bool grow;		/* queues grow (files) or refuse when full (rings) */
		size_t bytes, peak;	/* queue memory allocated, and its peak */
		size_t n, nmax;		/* records queued, and their peak (the largest round) */
		uint64_t seq;		/* live: bytes taken from the rings (arrival order) */
		uint64_t forced;	/* records released early: the queues were at QUEUE_MAX */
		uint64_t released;	/* time of the last released record */
		uint64_t pass_bound;	/* live: everything up to this was released */
	} mg;

	struct model {
		int ncpu;		/* CPU numbers are < ncpu */
		bool *cpu_online;
		struct task *task;
		int ntask;		/* slots in use */
		int32_t *task_slot;	/* tid (1..PID_MAX) -> its slot + 1, 0: none (touched
					 * only where tids are: 4 KiB per 1024 tids) */
		uint64_t *told;		/* a bit per slot: its task's state is told (neither
					 * unknown nor exited: what a gap ends, model_gap_cpu) */
		struct victims {	/* the table full: the victims' tree (task_victim) */
			struct victim_key { uint64_t seen; uint32_t live; } *key;
			int *tree, n;
		} vic;
		struct cpu *cpu;	/* ncpu of them */
		uint64_t first, last;	/* first and last event time */
		uint64_t tp_first;	/* first tracepoint record: the trace began (side-band may come before) */
		uint64_t evicted_tasks, bad_pid, gaps;
		uint64_t inferred;	/* switch-ins the kernel did not report */
		uint64_t inferred_woken;	/* of them, runs of a task woken twice (CPU unknown) */
		int64_t freq_max;	/* highest frequency seen, kHz */
		uint64_t missing_out;	/* switch-outs the kernel did not report */
		uint64_t hole_until;	/* a CPU lost its records until then (its LOST record) */
		int untraced;		/* CPUs with side-band records and no tracepoint record yet */
		int32_t hole_aux;	/* ... the gap's unknown cause */
		struct irq_stat *irqs;	/* IRQ_STATS slots, open addressing by (cpu, soft, irq) */
		uint64_t irq_full;	/* interrupts not counted: the table was full */
		uint64_t irq_lost;	/* handlers whose exit or entry was not seen */
		struct gaplog { uint64_t at, lost; int cpu; bool sampled; } gapv[GAP_LOG];	/* gap n at
					 * n % GAP_LOG: its time, events lost (0: a pause), CPU (-1:
					 * any), lost to sampling (model_unrecorded) */
		/* where they were left out (a file's, rd_unrec_scan): by from,
		 * the next to apply */
		struct unrec { uint64_t from, to, n; int cpu; bool lost; } *unrec;
		size_t nunrec, unrec_next;
		uint64_t unrec_at;	/* the next one's from (UINT64_MAX: none; 0: to be found) */
		uint8_t part;		/* what the events cover (enum part, above model_evidence) */
		bool overwrite;		/* rings that overwrite (model_cover): */
		uint64_t ow_end;	/* ... the first CPU's last record (0: not known) */
		bool ow_ended;		/* ... passed (model_unrecorded) */
	} m;

	struct ivring {			/* the byte ring of exact intervals (see ival_add) */
		uint8_t *buf;
		uint64_t cap, head;	/* its size; bytes written so far (positions) */
		uint64_t hidx;		/* head % cap, where the next byte goes */
		uint64_t chunk;		/* chunk of the last byte written, +1 (0: none yet) */
		unsigned shift;		/* log2 of its chunk size */
		struct ibchunk { uint64_t base, maxend; uint32_t n; } *ch;	/* per chunk: time
					 * base, newest end, intervals starting in it */
		uint64_t evicted;	/* intervals overwritten */
		uint64_t floor;		/* intervals ending before this were overwritten */
		uint64_t ceil;		/* ... and after this not kept (a replay's span) */
	} ib;

	struct counts {			/* counters (nothing lost silently) */
		uint64_t kind[EV_NKIND], lost, lost_read;
		uint64_t lost_session;	/* perf record --switch-output's end counts (emit) */
		uint64_t unrec[EV_NTP], unrec_all;	/* events sampled tracepoints left out, per
					 * kind and in all (rd_unrec_add, ev_unrecorded) */
		uint32_t unrec_freq;	/* kinds that left out a number not known (unrec_counted) */
		struct lostc { uint64_t n, first, last; } lostv[64];	/* per CPU (63: 63 and up,
					 * or not known): events lost, from where the first loss
					 * began (its CPU's last record) to the last LOST record */
	} n;
	struct bad {			/* bad data, per pass of a reader */
		uint64_t corrupt, order, cpu, id;	/* malformed, out of order, bad CPU, unknown id */
	} bad;

	struct recorder {
		int fd;
		uint8_t *buf;
		size_t len;
		uint64_t pos, data_off, ckpt_ns, first, last;
		uint8_t *blobs;		/* feature blobs before the data */
		size_t blobs_len;
		uint64_t blob_off[FEAT_BITS], blob_size[FEAT_BITS];
		uint64_t feat;		/* feature bits (all < 64) */
		bool kept_old;		/* an existing file was renamed FILE.old */
		bool pipe;		/* a stream (pipe, FIFO, character device): pipe mode */
		pid_t sync_pid;		/* the syncer (rec_sync_start), or 0 */
		int sync_fd;		/* its pipe */
		uint64_t close_ns;	/* capture_stop: closing the files until the disk had them all */
		bool save;		/* a file written whole at once (rec_save_open) */
		pid_t fsyncs[8];	/* saved files' final fsyncs under way (rec_fsync_later) */
	} rec;

	struct reader {			/* the recording being read */
		bool pipe;
		bool follow;		/* a stream in the view: read what has come, never wait */
		bool blocking;		/* ... except inside a record that must be whole */
		bool sorted;		/* written by tc: records in time order */
		uint8_t part;		/* what the events cover (rd_cmdline; enum part) */
		bool unrec_scanned;	/* sampled tracepoints: rd_unrec_scan found what they left out */
		bool scanning;		/* ... in its pass (with saving: emit gives them to rd_unrec_rec),
					 * or rd_lost_scan's: rd_refill says how far (rd_progress) */
		uint64_t *unrec_last;	/* ... per CPU and tracepoint kind its last record's time, */
		uint64_t *scan_last;	/* ... per CPU its last record's time (rd_lost_rec) */
		bool lost_scanned;	/* a scan placed the LOST records (rd_lost_rec, model_pre) */
		bool lost_ahead;	/* ... one that goes on as the replay reads (rd_lost_ahead): */
		uint64_t scan_pos;	/* ... the offset of the first record it has not seen */
		uint8_t *scan_buf;	/* ... what it reads past the replay's buffer, */
		uint64_t scan_boff, scan_blen;	/* ... from that file offset, so many bytes */
		bool *unrec_moved;	/* ... and whether its period has moved (freq) */
		uint32_t unrec_kinds;	/* ... the kinds that left events out (bits) */
		bool overwrite;		/* perf record --overwrite (rd_cmdline): see model_cover */
		bool no_switch;		/* tracepoints but not sched_switch (rd_queues: PART_NONE) */
		bool switch_output;	/* perf record --switch-output (rd_cmdline): one file of a
					 * session, whose last has the session's lost counts */
		bool inject;		/* the command line is perf inject's (rd_inject_part) */
		bool idle_out;		/* ... and a switch out of idle was seen */
		uint64_t *tp_last;	/* ... per CPU its last tracepoint record's time (rd_unrec_scan; 0: none) */
		uint64_t end_off;	/* perf record's end, read first (rd_end_tail): G.m.ow_end */
		struct buf unrec;	/* ... the stretches found (struct unrec) */
		uint64_t end, data_off, fsize;
		uint64_t feat_bits;	/* valid features below bit 64 */
		uint64_t feat_off[64], feat_size[64];
		int nrcpus;
		bool saving;		/* the save key's pass (rd_save), or rd_unrec_scan's: emit
					 * writes (or scans), the model stays */
		uint64_t save_from, save_until;
		int save_n;		/* records it wrote */
		char mark[96];		/* a recording's FEAT_TC_MARK */
		struct rckpt *ck;	/* the view's checkpoints, in file order (rd_ckpt) */
		int nck;
		uint64_t ck_every, ck_next;	/* bytes of data between them, offset of the next */
		uint64_t ck_mem;	/* their memory */
		uint64_t prog_t0, prog_last;	/* the view's first reading: its start, its last word (rd_progress) */
		bool prog_shown;
	} rd;
	struct rcursor {		/* a pass of the reader over it (rd_pass) */
		int fd;
		bool cut;		/* silent on a broken record */
		bool wait, eof;		/* rd_fill stopped: nothing more yet, the end */
		bool near;		/* rd_at read again a record one more of old would hold */
		uint64_t next_t;	/* time of the record rd_run stopped at */
		uint8_t *buf;		/* read buffer, of cap bytes (rd_seek) */
		size_t len, pos, cap;	/* buf holds file bytes [off, off + len) */
		uint64_t tmax, round_prev, round_prev2;	/* newest time read, as of the last round
					 * and of the one before (the release bound: merge) */
		uint64_t round_off, round_off_prev;	/* where the current round began, the last */
		bool round_lost, round_lost_prev;	/* a LOST record was queued in it, in the last */
		bool ck_on;		/* this pass takes checkpoints (the view's first) */
		int8_t filled;		/* 1: G.fill's thread reads this pass's file (rd_filler);
					 * -1: it ended, or could not start */
		int8_t nold;		/* buffers in old (rd_keep) */
		uint16_t keep_tasks;	/* with them, task slots taken at most (rd_shed) */
		uint64_t skip_off, skip_t;	/* from a checkpoint: records before skip_off up to
					 * skip_t (or untimed) were released before it */
		uint64_t off;
		struct rold old[FAST ? RD_OLD : 0];	/* nold buffers filled before buf, newest
					 * first (rd_keep; none in the static build) */
	} rc;

	struct child {			/* traced command */
		pid_t pid;
		int status;
		bool done;
		bool held;		/* forked, waiting for SIGUSR1 to exec */
		bool tty;		/* --record a job of its own at a terminal: the command gets it */
		struct termios tio;	/* with tty: the terminal's settings before the command */
		uint64_t done_at;	/* when it was reaped */
		bool exit_read, out_read;	/* its sched_process_exit, then its last switch-out, read */
		pid_t guard, guard_of;	/* the guard (see guard_start), and tc, who tells it */
		int guard_fd;		/* the pipe tc tells it over */
		bool guard_pg;		/* it knows the command's group, which may still have members */
	} child;

	struct term {			/* terminal and frame */
		int tty_in;
		bool utf8, ascii, no_color;
		int ncolor;		/* 0, 16 or 256 */
		uint64_t bps;		/* bytes per second the terminal takes */
		int rows, cols;
		struct cell *scr, *scr_prev;	/* the frame being drawn, what the terminal shows */
		uint64_t *acc;		/* per column and state: ns in the column */
		uint64_t acc_lo, acc_hi;	/* acc_add ignores time before lo, from hi on (0: none) */
		char *ob;		/* output of one frame */
		size_t ob_cap, ob_len, ob_off;
		bool full_redraw;
		uint64_t bytes_out, frames;
		uint64_t frame_ns;	/* CPU time spent drawing frames */
	} term;

	struct view {			/* view state (see its section) */
		uint64_t start, end, cursor, mark, now;
		bool following, has_mark, help, search;
		int sel, sel_key, top, order;
		char query[32], msg[96];
		int *rowlist, nrowlist, rowlist_cap;
		uint8_t *rowbusy;	/* per task slot: it did something in the span (rows_build) */
		uint64_t window_ns, refresh_ns, ev_rate;
		double speed;		/* replay pace, 0 = not paced */
		bool paused, want_pause, want_suspend;
		bool cpucol, hide;	/* 'c': task cells by CPU; 'i': hide empty rows */
		int panel, psel;	/* the open panel ('L', 'W' or 0), its selected line */
		bool pblk;		/* L: the D spans instead of the runnable waits */
		int ctid;		/* W: the chain of ctid's wakeup at or before ct */
		uint64_t ct;
		int row0;		/* screen row of the first timeline row */
		bool ended;		/* a paced replay reached the end of the file */
		char exit[64];		/* the traced command's exit, for the status line */
	} v;

	struct history {		/* view history (see struct hpool) */
		uint64_t mib;		/* --history: MiB for intervals and summaries */
		struct hpool hp[HK_N];
		bool on;		/* hist_init done */
		uint64_t base, cap;	/* time of bucket 0, span kept (0: all) */
		uint64_t stolen;	/* task blocks taken from another row */
	} hist;

	struct zoom {			/* replay: the span the file was read again for (view_exact) */
		struct zheads *h;	/* shared with the reading child */
		pid_t pid;		/* the reading child, 0: none */
		uint64_t a;		/* in the child: keep intervals from a ... */
		uint64_t keep;		/* ... and never give up those ending after keep */
		uint64_t until;		/* ... reading at least up to until */
		uint64_t v0, v1;	/* the view that asked last */
		bool pass;		/* in the child: keep intervals from a only */
		bool full;		/* ... until the ring is full (the model then
					 * takes no more events) */
		const struct task *ptask;	/* in the child: the view's model */
		const struct cpu *pcpu;
		int pntask;
	} z;

	struct flight {			/* flight recorder (--flight, see its section) */
		uint64_t secs_ns, after_ns;	/* kept before a trigger, recorded after it */
		uint64_t mem_mib;		/* --flight-mem */
		size_t cap;			/* the ring's bytes */
		uint64_t keep;			/* --keep: files at most */
		unsigned written;		/* files written */
		struct trig { int kind; uint64_t d; } trig[8];
		int ntrig;
		uint8_t *buf;			/* [u64 time][record, padded to 8] ... */
		uint64_t head, tail;		/* running byte positions */
		uint64_t newest, dropped_t;	/* newest time kept, newest time dropped */
		uint64_t oldest;		/* time of the first record kept */
		bool pending;			/* fired: write once until is recorded */
		uint64_t from, until, arm_after;
		uint64_t fired;			/* when the pending trigger fired */
		char mark[96];			/* what fired: "kind time tid length comm" */
	} fl;

	struct signals {
		int pipe[2];
		volatile sig_atomic_t stop, child, winch, tstp, cont, usr2;
	} sig;

	struct filler {			/* the thread that reads a replay's file ahead (rd_filler) */
		pthread_t th;
		pthread_mutex_t mu;	/* guards what follows */
		pthread_cond_t go, got;	/* work for the thread; a chunk or a window read */
		int8_t rd;		/* who reads a chunk now: 1 the thread, 2 the reader */
		bool quit;		/* the thread is to end */
		bool wait, idle;	/* the reader sleeps on got, the thread on go */
		unsigned seq;		/* changes with what is above (rd_fill_tell) */
		int cpu[2];		/* where the thread [0] and the reader [1] ran at their last change */
		cpu_set_t aff;		/* the thread's CPUs: not the reader's when it started */
		bool eof, err;		/* a read gave 0 (the file shrank), or failed */
		int fd;
		uint8_t *buf;		/* the pass's read buffer: holds [off, off + len) */
		uint64_t off, end;	/* ... of the file's data, which ends at end */
		size_t len, cap;
		uint64_t chunks[2];	/* reads made by the thread, by the reader */
		bool nofill;		/* the reader reads the chunks (RD_FILL_SLOW) */
		struct fwin {		/* per merge queue: the window after its present one */
			uint8_t *wb, *b;	/* the present window's buffer, this one's (2 MAX_REC) */
			uint64_t off;	/* it holds [off, off + len) from b + MAX_REC */
			uint32_t want, len;
			int8_t st;	/* FW_NONE, FW_ASKED, FW_READING, FW_READ */
			bool queued;	/* in ask */
		} *win;
		int *ask, nask, ask0, nq;	/* queues whose window is asked for: nask from ask0 */
		uint64_t wins[2];	/* windows read by the thread and taken, read by the reader */
		int waits;		/* the reader's for the thread, in this buffer */
		int slow;		/* buffers in a row it waited for most of (RD_FILL_SLOW) */
	} fill;
} G;

/* Small blocks from a pool (see the memory section), but in sanitizer
 * builds, where each keeps a guard page of its own. */
#ifdef __SANITIZE_ADDRESS__	/* (gcc's and clang's -fsanitize=address) */
#define MEM_POOL 0
#else
#define MEM_POOL FAST
#endif

/* ---------------------------------------------------------------- formatting and output */

/*
 * tc's printf, and its buffered output on a file descriptor, instead of
 * the C library's printf and stdio: those are 14 KiB of a 128 KiB static
 * binary (the floating-point printer alone is 5 KiB).  The formatter does
 * what tc's formats and the kernel's print formats (--ftrace) use:
 * flags '-', '0', ' ', '+' and '#'; width and precision as digits or '*',
 * up to FMT_MAX; sizes hh, h, l, ll, z, j and t; conversions d i u x X o c
 * s % and, for doubles, f and g, rounded as the C library rounds while
 * the double times 10^precision stays below 2^53 with a power of ten
 * that is exact (all of tc's: %.1f to %.3f and %.3g of times and sizes).
 * The compiler checks every call against printf's rules.
 */

#define FMT_MAX (1 << 20)

/* A buffered writer on a file descriptor.  unbuf: written out at the end
 * of every call (stderr).  err: the errno of a write that failed, 0 if
 * none (a buffered out drops what comes after). */
struct out {
	int fd;
	bool unbuf;
	int err;
	size_t n, cap;
	char *b;
};

/* Standard output's buffer is out_b1, or where the memory section has a
 * pool (MEM_POOL), a block of it taken at the first write (out_write): its
 * 16 pages of bss cost the first --summary 13 page faults. */
enum { OUT_BUF = 1 << 16 };
static char out_b1[MEM_POOL ? 1 : OUT_BUF], out_b2[4096];
static struct out tc_out = { .fd = 1, .cap = MEM_POOL ? 0 : OUT_BUF, .b = out_b1 },
		  tc_err = { .fd = 2, .unbuf = true, .cap = sizeof(out_b2), .b = out_b2 };

/* Where formatted text goes: a string of n bytes (len counts what the
 * whole text needs), or o. */
struct sink {
	char *s;
	size_t n, len;
	struct out *o;
};

/* Write all of buf to fd; -1 on error.  Once tc is told to stop
 * (G.sig.stop), in pieces that do not block (PIPE_BUF bytes, where poll
 * says fd takes some), and a reader that takes nothing for STOP_WAIT_MS
 * (stopped, or a pipe nobody drains) fails it (ETIMEDOUT): it must not
 * keep tc from stopping.  The signals that stop tc interrupt a write
 * (sig_setup_one). */
static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		size_t k = len;
		ssize_t n;

		if (G.sig.stop) {
			struct pollfd q = { .fd = fd, .events = POLLOUT };
			int r = poll(&q, 1, STOP_WAIT_MS);

			if (r < 0 && errno == EINTR)
				continue;
			if (r == 0) {
				errno = ETIMEDOUT;
				return -1;
			}
			k = len < PIPE_BUF ? len : PIPE_BUF;
		}
		n = write(fd, p, k);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* tcsetattr(fd, how, t), again where a signal interrupted its wait for
 * the output to drain (the signals ending tc do not restart calls). */
static void tty_setattr(int fd, int how, const struct termios *t)
{
	while (tcsetattr(fd, how, t) < 0 && errno == EINTR)
		;
}

/* Write out what o holds. */
static void out_flush(struct out *o)
{
	if (o->n && (!o->err || o->unbuf) && write_all(o->fd, o->b, o->n) < 0)
		o->err = errno ? errno : EIO;	/* stdout: the rest is dropped; stderr tries again */
	o->n = 0;
}

static void *xcalloc(size_t n, size_t size);

/* n bytes of p to o (standard output's buffer taken first where it has
 * none yet). */
static void out_write(struct out *o, const char *p, size_t n)
{
	if (MEM_POOL && !o->cap && n) {
		o->b = xcalloc(1, OUT_BUF);
		o->cap = OUT_BUF;
	}
	while (n) {
		size_t c = n < o->cap - o->n ? n : o->cap - o->n;

		memcpy(o->b + o->n, p, c);
		o->n += c;
		p += c;
		n -= c;
		if (o->n == o->cap)
			out_flush(o);
	}
}

/* n bytes of p to the sink. */
static void sink_put(struct sink *k, const char *p, size_t n)
{
	struct out *o = k->o;

	if (FAST && o && n < o->cap - o->n) {	/* fits with room to spare: no flush, no loop */
		memcpy(o->b + o->n, p, n);
		o->n += n;
	} else if (o)
		out_write(o, p, n);
	else if (k->len + 1 < k->n)
		memcpy(k->s + k->len, p, n < k->n - 1 - k->len ? n : k->n - 1 - k->len);
	k->len += n;
}

/* c, n times, to the sink. */
static void sink_rep(struct sink *k, char c, int n)
{
	char b[64];

	if (n <= 0)
		return;	/* (most fields: no padding) */
	memset(b, c, sizeof(b));
	for (; n > 0; n -= (int)sizeof(b))
		sink_put(k, b, n < (int)sizeof(b) ? (size_t)n : sizeof(b));
}

/* A field of width w: the sign or prefix pre, zeros (zero: when padded
 * with zeros, or precision digits), then the body of n bytes. */
static void fmt_field(struct sink *k, const char *pre, const char *body, size_t n, int w, int zeros,
		      bool left, bool zpad)
{
	size_t pl = *pre ? strlen(pre) : 0;
	int pad = w - (int)(pl + zeros + n);

	if (FAST && pad <= 0 && !pl && !zeros) {	/* the body alone (--script: most fields) */
		sink_put(k, body, n);
		return;
	}
	if (!left && !zpad)
		sink_rep(k, ' ', pad);
	if (pl)
		sink_put(k, pre, pl);
	sink_rep(k, '0', zeros + (zpad && !left ? pad : 0));
	sink_put(k, body, n);
	if (left)
		sink_rep(k, ' ', pad);
}

/* Digits of v in base b (lower or upper case letters) at the end of
 * out[32]; returns where they start. */
static char *fmt_digits(char *end, uint64_t v, unsigned b, bool upper)
{
	do
		*--end = "0123456789abcdef0123456789ABCDEF"[v % b + (upper ? 16 : 0)];
	while (v /= b);
	return end;
}

/* 10^k as a double, exact up to 10^22. */
static double fmt_p10(int k)
{
	double p = 1;

	for (; k > 0; k--)
		p *= 10;
	for (; k < 0; k++)
		p /= 10;
	return p;
}

/* The integer nearest to v * 10^k (v >= 0; 10^k is exact for |k| <= 22),
 * a half to even, as the C library rounds the double's exact value.  The
 * product (or quotient) is rounded once; only when that lands on a half
 * does its exact error, from Dekker's product (split at 2^27 + 1), decide. */
static uint64_t fmt_round(double v, int k)
{
	double d = fmt_p10(k < 0 ? -k : k), x = k < 0 ? v / d : v * d, a = k < 0 ? x : v, s, ah, al, bh, bl, p, e;
	uint64_t m = (uint64_t)x;

	if (x - (double)m != 0.5)
		return m + (x - (double)m > 0.5);
	s = 134217729.0 * a, ah = s - (s - a), al = a - ah;
	s = 134217729.0 * d, bh = s - (s - d), bl = d - bh;
	p = a * d;
	e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;	/* a * d == p + e exactly */
	e = k < 0 ? (v - p) - e : e;				/* the exact value is above x if > 0 */
	return m + (e > 0 || (e == 0 && (m & 1)));
}

/* A double v >= 0 as %f with p decimals or as %g with p significant
 * digits into out (at least 64 bytes); returns its length.  Magnitudes
 * tc prints only: above 1e19 (or 1e19 / 10^p for %f) it writes "inf",
 * %g below 1e-30 writes "0". */
static size_t fmt_double(char *out, double v, int p, bool g)
{
	char d[32], *e = d + sizeof(d), *s;
	int x = 0, dec = p;
	uint64_t m;

	if (v != v)
		return strlen(strcpy(out, "nan"));
	if (v > 1e19 || (!g && v * fmt_p10(p > 17 ? 17 : p) > 1e19))
		return strlen(strcpy(out, "inf"));
	if (g) {
		p = p < 1 ? 1 : p > 17 ? 17 : p;
		if (v < 1e-30)
			return strlen(strcpy(out, "0"));
		while (v >= fmt_p10(x + 1))
			x++;
		while (v < fmt_p10(x))
			x--;
		m = fmt_round(v, p - 1 - x);
		if (m >= (uint64_t)fmt_p10(p))
			m /= 10, x++;
		s = fmt_digits(e, m, 10, false);
		if (x < -4 || x >= p) {		/* d.ddde+XX, trailing zeros cut */
			size_t n = 0;

			out[n++] = *s++;
			while (e > s && e[-1] == '0')
				e--;
			if (s < e)
				out[n++] = '.';
			memcpy(out + n, s, e - s);
			n += e - s;
			out[n++] = 'e';
			out[n++] = x < 0 ? '-' : '+';
			if (x > -10 && x < 10)
				out[n++] = '0';
			s = fmt_digits(d + 8, x < 0 ? -x : x, 10, false);
			memcpy(out + n, s, d + 8 - s);
			return n + (d + 8 - s);
		}
		dec = p - 1 - x;
	} else {
		dec = p > 17 ? 17 : p;
		m = fmt_round(v, dec);
		s = fmt_digits(e, m, 10, false);
	}
	while (e - s <= dec)		/* at least one digit before the point */
		*--s = '0';
	if (g)
		while (dec > 0 && e[-1] == '0')
			e--, dec--;
	memcpy(out, s, e - s - dec);
	if (!dec)
		return e - s;
	out[e - s - dec] = '.';
	memcpy(out + (e - s - dec) + 1, e - dec, dec);
	return e - s + 1;
}

/* An integer argument of size sz (0 int, 1 long, 2 long long, 3 size_t,
 * 4 intmax_t, 5 ptrdiff_t, -1 short, -2 char) as its magnitude, and its
 * sign in *neg.  On Linux size_t and ptrdiff_t are as long as a long, and
 * intmax_t is a long long. */
static uint64_t fmt_arg(va_list *ap, int sz, bool sgn, bool *neg)
{
	int64_t v;

	if (sz == 2 || sz == 4 || (sz > 0 && sizeof(long) == 8))
		v = va_arg(*ap, long long);
	else if (sz > 0)
		v = sgn ? va_arg(*ap, long) : (int64_t)va_arg(*ap, unsigned long);
	else {
		unsigned u = va_arg(*ap, unsigned);

		v = sz == -2 ? (sgn ? (int64_t)(signed char)u : (unsigned char)u) :
		    sz == -1 ? (sgn ? (int64_t)(short)u : (unsigned short)u) : sgn ? (int64_t)(int)u : u;
	}
	*neg = sgn && v < 0;
	return *neg ? -(uint64_t)v : (uint64_t)v;
}
_Static_assert(sizeof(size_t) == sizeof(long) && sizeof(ptrdiff_t) == sizeof(long) &&
	       sizeof(intmax_t) == sizeof(long long), "integer sizes of fmt_arg");

/* Format f with ap to the sink (see the section's comment). */
static void fmt_to(struct sink *k, const char *f, va_list ap0)
{
	va_list ap;

	va_copy(ap, ap0);
	for (; *f; f++) {
		bool left = false, zpad = false, neg = false, alt = false;
		const char *pre = "", *sp = "";
		int w = 0, p = -1, sz = 0;
		char d[64], *body = d, c;
		size_t n;

		if (*f != '%') {
			const char *q = strchr(f, '%');

			n = q ? (size_t)(q - f) : strlen(f);
			sink_put(k, f, n);
			f += n - 1;
			continue;
		}
		for (f++; *f == '-' || *f == '0' || *f == ' ' || *f == '+' || *f == '#'; f++)
			if (*f == '-')
				left = true;
			else if (*f == '0')
				zpad = true;
			else if (*f == '#')
				alt = true;
			else if (*f == '+' || !*sp)
				sp = *f == '+' ? "+" : " ";
		if (*f == '*')	/* widths and precisions stop at FMT_MAX (formats from files) */
			w = va_arg(ap, int), f++, left |= w < 0, w = w < -FMT_MAX ? FMT_MAX : w < 0 ? -w : w;
		for (; *f >= '0' && *f <= '9'; f++)
			w = w < FMT_MAX ? w * 10 + *f - '0' : w;
		if (*f == '.') {
			p = 0;
			if (*++f == '*')
				p = va_arg(ap, int), f++;
			for (; *f >= '0' && *f <= '9'; f++)
				p = p < FMT_MAX ? p * 10 + *f - '0' : p;
		}
		w = w > FMT_MAX ? FMT_MAX : w;
		p = p > FMT_MAX ? FMT_MAX : p;
		for (; *f == 'h' || *f == 'l' || *f == 'z' || *f == 'j' || *f == 't'; f++)
			sz = *f == 'h' ? (sz < 0 ? -2 : -1) : *f == 'l' ? sz + 1 : *f == 'z' ? 3 : *f == 'j' ? 4 : 5;
		switch (c = *f) {
		case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': {
			uint64_t v = fmt_arg(&ap, sz, c == 'd' || c == 'i', &neg);
			int digits;

			body = fmt_digits(d + sizeof(d), v, c == 'o' ? 8 : c == 'x' || c == 'X' ? 16 : 10, c == 'X');
			n = d + sizeof(d) - body;
			if (p == 0 && v == 0)
				n = 0;
			digits = p > (int)n ? p - (int)n : 0;
			pre = neg ? "-" : c == 'd' || c == 'i' ? sp : !alt || !v ? "" : c == 'x' ? "0x" :
			      c == 'X' ? "0X" : c == 'o' && !digits ? "0" : "";
			fmt_field(k, pre, body, n, w, digits, left, zpad && p < 0);
			break;
		}
		case 'f': case 'g': {
			double v = va_arg(ap, double);

			neg = __builtin_signbit(v);
			n = fmt_double(d, neg ? -v : v, p < 0 ? 6 : p, c == 'g');
			fmt_field(k, neg ? "-" : sp, d, n, w, 0, left, zpad);
			break;
		}
		case 's':
			if (!(body = va_arg(ap, char *)))
				body = "(null)";
			n = p < 0 ? strlen(body) : strnlen(body, p);
			fmt_field(k, "", body, n, w, 0, left, false);
			break;
		case 'c':
			d[0] = (char)va_arg(ap, int);
			fmt_field(k, "", d, 1, w, 0, left, false);
			break;
		case '%':
			sink_put(k, "%", 1);
			break;
		default:			/* not a format tc uses: the compiler says so */
			va_end(ap);
			return;
		}
	}
	va_end(ap);
}

/* snprintf's contract, with tc's formatter. */
static int __attribute__((format(printf, 3, 0))) vsfmt(char *out, size_t n, const char *f, va_list ap)
{
	struct sink k = { out, n, 0, NULL };

	fmt_to(&k, f, ap);
	if (n)
		out[k.len < n ? k.len : n - 1] = 0;
	return (int)k.len;
}

static int __attribute__((format(printf, 3, 4))) sfmt(char *out, size_t n, const char *f, ...)
{
	va_list ap;
	int r;

	va_start(ap, f);
	r = vsfmt(out, n, f, ap);
	va_end(ap);
	return r;
}

/* fprintf, fputs and fputc to an out. */
static void __attribute__((format(printf, 2, 0))) vofmt(struct out *o, const char *f, va_list ap)
{
	struct sink k = { NULL, 0, 0, o };

	fmt_to(&k, f, ap);
	if (o->unbuf)
		out_flush(o);
}

static void __attribute__((format(printf, 2, 3))) ofmt(struct out *o, const char *f, ...)
{
	va_list ap;

	va_start(ap, f);
	vofmt(o, f, ap);
	va_end(ap);
}

/* n bytes of p to o, written out now if o is unbuffered. */
static void out_put(struct out *o, const char *p, size_t n)
{
	out_write(o, p, n);
	if (o->unbuf)
		out_flush(o);
}

static void oputs(const char *s, struct out *o)
{
	out_put(o, s, strlen(s));
}

static void oputc(int c, struct out *o)
{
	char b = (char)c;

	out_put(o, &b, 1);
}

/* Write s to f with every byte that is not printable ASCII, a space or a
 * backslash as \xNN: names from traced programs never reach a terminal raw. */
static void out_name(struct out *f, const char *s)
{
	while (*s) {
		size_t n = 0;

		while (s[n] > ' ' && s[n] < 0x7f && s[n] != '\\')	/* 0x80 and up: signed or not, one fails */
			n++;
		out_write(f, s, n);
		if (!s[n])
			break;
		ofmt(f, "\\x%02x", (unsigned char)s[n]);
		s += n + 1;
	}
}

/* A tab and v in decimal at p, as "\t%" PRIu64 puts them: a column of the
 * tables (--summary, --states), without the formatter's parse (a summary
 * of 16,303 tasks ran 245M of its 567M instructions in ofmt); returns the
 * end (p has room for 21 bytes). */
static char *put_col(char *p, uint64_t v)
{
	char d[20], *s = fmt_digits(d + sizeof(d), v, 10, false);

	*p = '\t';
	memcpy(p + 1, s, d + sizeof(d) - s);
	return p + 1 + (d + sizeof(d) - s);
}

/* ns as a tab and milliseconds with three decimals, exactly (truncated to
 * µs), at p (room for 25 bytes); returns the end. */
static char *put_ms(char *p, uint64_t ns)
{
	unsigned us = (unsigned)(ns / 1000 % 1000);

	p = put_col(p, ns / 1000000);
	p[0] = '.';
	p[1] = (char)('0' + us / 100);
	p[2] = (char)('0' + us / 10 % 10);
	p[3] = (char)('0' + us % 10);
	return p + 4;
}

/* ---------------------------------------------------------------- utilities */

static void cmd_kill(void);
static void stop_self(int sig);
static void term_restore(void);
static void guard_say(int op, pid_t pgid);
static void guard_done(void);
static volatile sig_atomic_t term_active;	/* the view's terminal is set up */

/* "tc: <message>" and a newline to stderr, in one write. */
static void __attribute__((format(printf, 1, 0))) say(const char *fmt, va_list ap)
{
	tc_err.unbuf = false;
	oputs("tc: ", &tc_err);
	vofmt(&tc_err, fmt, ap);
	oputc('\n', &tc_err);
	out_flush(&tc_err);
	tc_err.unbuf = true;
}

static int die_status = 1;	/* the exit status of die() */

/* Print "tc: <message>" to stderr, stop the traced command, exit with
 * die_status (1). */
static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	term_restore();
	out_flush(&tc_out);
	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
	cmd_kill();
	guard_done();
	exit(die_status);
}

/* Print "tc: <message>" to stderr and go on. */
static void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	say(fmt, ap);
	va_end(ap);
}

/*
 * Memory tc allocates: each block its own anonymous mapping, its end on
 * the last byte before an inaccessible page, so that a write past a block
 * faults at once and a block freed is unmapped (a use after free faults
 * too).  tc allocates a few dozen blocks, at start-up and when a table
 * doubles, never per event; musl's malloc would be 10 KiB of the static
 * binary.  A block's mapping and size are kept in the 16 bytes before it.
 *
 * But tc itself (MEM_POOL: FAST, not a sanitizer build) takes blocks of up
 * to POOL_BLOCK bytes from a pool first: one mapping of HUGE_PAGE bytes on
 * a transparent huge page, cut in order, with one guard page at its end.
 * Each block of its own cost tc a page fault (11 to 14 us on an AMD EPYC
 * VM under PVM), two system calls and an munmap: a replay of make bench's
 * files took 45 to 86 page faults fewer, and 1.2 to 4.8 ms less of 17 to
 * 32.  Its blocks have no guard page between them; tc-san and tc-static,
 * which the tests run too, keep one for every block.
 */

enum { HUGE_PAGE = 2 << 20 };	/* a transparent huge page (x86-64, arm64 with 4 KiB pages) */

/* A mapping of len bytes (a multiple of HUGE_PAGE plus one page of ps
 * bytes), its start on a boundary of HUGE_PAGE and all but its last page
 * (the guard) given to transparent huge pages (MADV_HUGEPAGE; where the
 * kernel has none, small pages); MAP_FAILED if there is no room.
 * HUGE_PAGE more is mapped, and what lies outside the boundaries
 * unmapped. */
static char *mem_map_huge(size_t len, size_t ps)
{
	char *r = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *a;

	if (r == MAP_FAILED)
		return r;
	a = (char *)(((uintptr_t)r + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (a > r)
		munmap(r, a - r);
	munmap(a + len, r + HUGE_PAGE - a);	/* (at least a page: r is on one) */
	madvise(a, len - ps, MADV_HUGEPAGE);
	return a;
}

/* A block's n bytes rounded up to its 16-byte alignment. */
static size_t mem_body(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

/* The end of block p's bytes (mem_body of its size). */
static char *mem_end(void *p)
{
	return (char *)p + mem_body(((size_t *)p)[-2]);
}

/* A block of n bytes (mem_alloc's), on transparent huge pages if huge
 * (FAST; mem_map_huge: from the mapping's start, so that the first 2 MiB
 * of a table filled from its start are one huge page); NULL if there is
 * no memory. */
static void *mem_block(size_t n, bool huge)
{
	size_t ps = getpagesize(), body = mem_body(n), len;
	char *m, *p;

	if (n > SIZE_MAX / 2)
		return NULL;
	if (FAST && huge) {
		len = (body + 16 + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE + ps;
		m = mem_map_huge(len, ps);
	} else {
		len = (body + 16 + ps - 1) / ps * ps + ps;
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (m == MAP_FAILED)
		return NULL;
	mprotect(m + len - ps, ps, PROT_NONE);
	p = m + len - ps - body;
	((size_t *)p)[-1] = len;
	((size_t *)p)[-2] = n;
	return p;
}

enum { POOL_BLOCK = 256 << 10 };	/* the largest block the pool gives (a tc file's read buffer) */

/* The pool (MEM_POOL): its blocks are cut from base up to top; the bytes
 * from dirty on were never written (the mapping's zeros); a pool block's
 * header has 0 for its mapping's size. */
static struct mem_pool {
	char *base, *top, *end, *dirty;
} pool;

/* Move the pool's top to top: what it gains below dirty (given back
 * before, pool_give) is zeroed. */
static void pool_top(char *top)
{
	if (pool.dirty > pool.top)
		memset(pool.top, 0, (pool.dirty < top ? pool.dirty : top) - pool.top);
	pool.top = top;
	if (top > pool.dirty)
		pool.dirty = top;
}

/* The pool's block of n bytes at top, zeroed, its header written; NULL if
 * it does not fit (or is larger than POOL_BLOCK).  The pool's mapping is
 * made at the first call. */
static void *pool_take(size_t n)
{
	size_t ps = getpagesize(), body = mem_body(n);
	char *p;

	if (!pool.base) {
		char *m = mem_map_huge(HUGE_PAGE + ps, ps);

		if (m == MAP_FAILED)
			return NULL;
		mprotect(m + HUGE_PAGE, ps, PROT_NONE);
		pool = (struct mem_pool){ m, m, m + HUGE_PAGE, m };
	}
	if (n > POOL_BLOCK || (size_t)(pool.end - pool.top) < 16 + body)
		return NULL;
	p = pool.top + 16;
	pool_top(p + body);
	((size_t *)p)[-1] = 0;
	((size_t *)p)[-2] = n;
	return p;
}

/* Is p a block of the pool? */
static bool pool_has(const void *p)
{
	return MEM_POOL && !((const size_t *)p)[-1];
}

/* Give back pool block p: its bytes are taken again if it is the last
 * one cut (a block given back below others stays unused). */
static void pool_give(char *p)
{
	if (mem_end(p) == pool.top)
		pool.top = p - 16;
}

/* Grow pool block p to n bytes in place, the new bytes zeroed; false if
 * it is not the last one cut, or the pool has no room. */
static bool pool_grow(char *p, size_t n)
{
	if (mem_end(p) != pool.top || n > POOL_BLOCK || (size_t)(pool.end - p) < mem_body(n))
		return false;
	if (n > ((size_t *)p)[-2]) {
		pool_top(p + mem_body(n));
		((size_t *)p)[-2] = n;
	}
	return true;
}

/* A block of n bytes, zeroed; NULL if there is no memory. */
static void *mem_alloc(size_t n)
{
	void *p = MEM_POOL ? pool_take(n) : NULL;

	return p ? p : mem_block(n, false);
}

/* Give back a block of mem_alloc (NULL: nothing). */
static void mem_free(void *p)
{
	if (p && pool_has(p)) {
		pool_give(p);
	} else if (p) {
		size_t len = ((size_t *)p)[-1], ps = getpagesize();
		char *end = mem_end(p) + ps;

		munmap(end - len, len);
	}
}

/* A block of n bytes with p's first bytes, the rest zeroed (p NULL: a new
 * one); NULL if there is no memory (p is kept then).  The pool's last
 * block grows in place where the pool has room.  One larger than the pool
 * gives is on huge pages (FAST): what grows is written through, and
 * each small page's first touch took 11 to 14 us on a VM under PVM (perf
 * record -F's bench file: 660 of its 732 page faults, in buf_add's
 * growth of the stretches rd_unrec_scan finds). */
static void *mem_realloc(void *p, size_t n)
{
	void *q;

	if (p && pool_has(p) && pool_grow(p, n))
		return p;
	q = FAST && n > POOL_BLOCK ? mem_block(n, true) : mem_alloc(n);
	if (q && p) {
		size_t old = ((size_t *)p)[-2];

		memcpy(q, p, old < n ? old : n);
		mem_free(p);
	}
	return q;
}

/* Allocate zeroed memory at start-up; running out is fatal. */
static void *xcalloc(size_t n, size_t size)
{
	void *p = size && n > SIZE_MAX / size ? NULL : mem_alloc(n && size ? n * size : 1);

	if (!p)
		die("out of memory (%zu x %zu bytes)", n, size);
	return p;
}

/*
 * xcalloc of a table that is touched densely from its start (the read
 * buffer, the task table, a perf file's tail), on transparent huge pages
 * (mem_block): on an AMD EPYC VM under PVM the first touch of a page of
 * 4 KiB cost 11 to 14 us, of a huge page's 2 MiB 0.1 to 0.8 ms; the
 * bench's files replayed 4 to 6% faster, tc's with 146 page faults, not
 * 272, its peak RSS 5.8 MB, not 2.4.  One that fits in the pool (a tc
 * file's or a stream's read buffer) is taken from it, on its huge page.
 * Without room for that, a block as xcalloc's.
 */
static void *xcalloc_huge(size_t n)
{
	void *p = MEM_POOL ? pool_take(n) : NULL;

	if (FAST && !p)
		p = mem_block(n, true);
	return p ? p : xcalloc(1, n);
}

/* The memory xcalloc_copy(n) takes. */
static size_t mem_copy_size(size_t n)
{
	return FAST && n >= HUGE_PAGE ? (mem_body(n) + 16 + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE : n;
}

/*
 * xcalloc of a table written whole at once and kept (a checkpoint's copy
 * of the model's tasks): on huge pages where it is a huge page or more
 * (FAST), else its pages made in one call, not a page fault each.  The view's
 * first reading of perf record's file of 40,000 processes (four copies
 * of 8 MB) took 160 ms with a page fault each, 125 with the pages made
 * at once, 78 on huge pages (peak RSS 73 to 76 MB; medians of 9
 * alternating runs).
 */
static void *xcalloc_copy(size_t n)
{
	char *p = mem_copy_size(n) != n ? mem_block(n, true) : NULL, *a;

	if (p)
		return p;
	p = xcalloc(1, n);
	if (FAST) {
		a = (char *)((uintptr_t)p & ~((uintptr_t)getpagesize() - 1));	/* (its first page) */
		madvise(a, p + n - a, MADV_POPULATE_WRITE);
	}
	return p;
}

/* CLOCK_MONOTONIC in ns, the clock of tc's recordings. */
static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* Read up to cap-1 bytes of a (small, /proc or /sys) file into buf, NUL
 * terminated.  Returns the length, or -1 (buf is "" then). */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	buf[0] = 0;
	if (fd < 0)
		return -1;
	while (len + 1 < cap && (n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return len;
}

/* Read a whole file into a block of mem_alloc (for format files and the
 * like, at start-up).  Returns NULL on error. */
static char *read_all(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	char *buf;
	ssize_t n;

	if (fd < 0)
		return NULL;
	buf = xcalloc(1, cap + 1);
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += n;
		if (len == cap) {
			char *nb = mem_realloc(buf, cap * 2 + 1);

			if (!nb)
				die("out of memory reading %s", path);
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (n < 0) {
		mem_free(buf);
		return NULL;
	}
	buf[len] = 0;
	*lenp = len;
	return buf;
}

/* In a child of tc: be killed when tc ends (and end now if tc already
 * has), and with quiet read and write nothing of the view's terminal
 * (standard input, output and error on /dev/null).  False if that
 * cannot be done. */
static bool child_of(pid_t parent, bool quiet)
{
	int nul;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		return false;	/* tc ended before the line above */
	if (!quiet)
		return true;
	if ((nul = open("/dev/null", O_RDWR)) < 0 || dup2(nul, 0) < 0 || dup2(nul, 1) < 0 || dup2(nul, 2) < 0)
		return false;
	if (nul > 2)
		close(nul);
	return true;
}

/* Reads of the data, in the byte order of the data being read (G.ev.swap). */
static uint16_t g16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return G.ev.swap ? __builtin_bswap16(v) : v;
}

static uint32_t g32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return G.ev.swap ? __builtin_bswap32(v) : v;
}

static uint64_t g64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return G.ev.swap ? __builtin_bswap64(v) : v;
}

/* A decimal number without sign or exponent ("2", "0.25", ".5"): its value,
 * and *end past it (== s if there is none).  The C library's parser would
 * bring musl's float scanner, 5 KiB of the static binary, for the options
 * alone. */
static double num_dec(const char *s, char **end)
{
	double v = 0, f = 1;
	const char *p = s;
	bool any = false;

	for (; *p >= '0' && *p <= '9'; p++, any = true)
		v = v * 10 + (*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++, any = true)
			v += (*p - '0') * (f /= 10);
	*end = (char *)(any ? p : s);
	return v;
}

/* Copy string s into d of size n, truncating. */
static void scopy(char *d, size_t n, const char *s)
{
	size_t l = strnlen(s, n - 1);

	memcpy(d, s, l);
	d[l] = 0;
}

/* An unsigned number after any blanks: decimal, or as C writes it (0x1f,
 * 017, 31) when base is 0; saturated at UINT64_MAX.  *end (if end) gets
 * the first byte after it, or s if there is none.  No sign.  (strtoul
 * would bring the C library's 2.7 KiB number scanner.) */
static uint64_t num_u(const char *s, char **end, int base)
{
	const char *p = s + strspn(s, " \t");
	const char *d0;
	uint64_t v = 0;
	unsigned b = 10, d;

	if (base == 0 && *p == '0')
		b = (p[1] | 32) == 'x' && isxdigit((unsigned char)p[2]) ? (p += 2, 16) : 8;
	for (d0 = p;; p++) {
		d = *p >= '0' && *p <= '9' ? (unsigned)(*p - '0') :
		    isxdigit((unsigned char)*p) ? (unsigned)((*p | 32) - 'a' + 10) : 99;
		if (d >= b)
			break;
		v = v > (UINT64_MAX - d) / b ? UINT64_MAX : v * b + d;
	}
	if (end)
		*end = (char *)(p > d0 ? p : s);
	return v;
}

/* A decimal number with an optional '-' (else as num_u), within int64_t. */
static int64_t num_i(const char *s, char **end)
{
	const char *p = s + strspn(s, " \t");
	bool neg = *p == '-';
	char *e;
	uint64_t v = num_u(p + neg, &e, 10);

	if (end)
		*end = e == p + neg ? (char *)s : e;
	if (neg)
		return v > INT64_MAX ? INT64_MIN : -(int64_t)v;
	return v > INT64_MAX ? INT64_MAX : (int64_t)v;
}

/* The first place in h where n is, letters' case ignored if fold; NULL if
 * none.  (strstr's two-way search is 1.3 KiB of the static binary; tc
 * searches short lines and names.) */
static char *str_find(const char *h, const char *n, bool fold)
{
	for (;; h++) {
		size_t i = 0;

		while (n[i] && (h[i] == n[i] ||
				(fold && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)n[i]))))
			i++;
		if (!n[i])
			return (char *)h;
		if (!*h)
			return NULL;
	}
}

/* Exchange the sz bytes at a with those at b (two elements of a sort,
 * the reader's pass state: rd_pass_swap). */
static void mem_swap(char *a, char *b, size_t sz)
{
	uint64_t x, y;

	for (; sz >= 8; sz -= 8, a += 8, b += 8) {	/* 8 bytes at a time: a third of the time */
		memcpy(&x, a, 8);
		memcpy(&y, b, 8);
		memcpy(a, &y, 8);
		memcpy(b, &x, 8);
	}
	while (sz--) {
		char t = *a;

		*a++ = *b;
		*b++ = t;
	}
}

/* Move element i of the heap of n down to its place, as Floyd did: down
 * the path of larger children to a leaf, one compare a level, back up to
 * the first element on it not below element i, which goes there as the
 * ones above move up (half the compares of one sift down with two a
 * level: the heapsort of 28,355 lost stretches of a perf record -F file
 * was a quarter of its replay). */
static void sort_sift(char *b, size_t i, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	size_t j = i, c;

	while ((c = 2 * j + 1) < n)
		j = c + 1 < n && cmp(b + c * sz, b + (c + 1) * sz) < 0 ? c + 1 : c;
	while (j > i && cmp(b + i * sz, b + j * sz) > 0)
		j = (j - 1) / 2;
	for (; j > i; j = (j - 1) / 2)
		mem_swap(b + i * sz, b + j * sz, sz);
}

/* qsort's contract, by heapsort: O(n log n) for any input, in place, and
 * the same order on every C library (cmp orders fully: ties broken). */
static void sort(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	char *b = base;

	for (size_t i = n / 2; i-- > 0;)
		sort_sift(b, i, n, sz, cmp);
	for (size_t e = n; e-- > 1;) {
		mem_swap(b, b + e * sz, sz);
		sort_sift(b, 0, e, sz, cmp);
	}
}

/* A directory entry as getdents64 returns it. */
struct dent64 {
	uint64_t ino;
	int64_t off;
	uint16_t reclen;
	uint8_t type;
	char name[];
};
_Static_assert(offsetof(struct dent64, name) == 19, "linux_dirent64 layout");

/* A directory read by getdents64 (of /proc for its numeric entries, pids
 * and tids; of tracefs): the C library's DIR needs its malloc.  fd < 0:
 * at the end. */
struct numdir {
	int fd, pos, len;
	uint64_t buf[512];
};

static void numdir_open(struct numdir *d, const char *path)
{
	d->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d->pos = d->len = 0;
}

/* The next entry's name (valid until the next call), or NULL at the end
 * (the directory is closed then). */
static const char *dir_next(struct numdir *d)
{
	while (d->fd >= 0) {
		const struct dent64 *e;

		if (d->pos >= d->len) {
			d->len = syscall(SYS_getdents64, d->fd, d->buf, sizeof(d->buf));
			d->pos = 0;
			if (d->len <= 0) {
				close(d->fd);
				d->fd = -1;
				break;
			}
			continue;
		}
		e = (const struct dent64 *)((const char *)d->buf + d->pos);
		d->pos += e->reclen;
		return e->name;
	}
	return NULL;
}

/* The next entry whose name is a number above 0, or 0 at the end. */
static int numdir_next(struct numdir *d)
{
	for (const char *n; (n = dir_next(d));) {
		char *end;
		uint64_t v = num_u(n, &end, 10);

		if (end != n && !*end && v > 0 && v <= INT_MAX)
			return (int)v;
	}
	return 0;
}

/* Parse a CPU list like "0-3,6" into set[0..n); false if malformed. */
static bool parse_cpulist(const char *s, bool *set, int n)
{
	while (*s && *s != '\n') {
		char *end;
		int64_t a = num_i(s, &end), b = a;

		if (end == s || a < 0)
			return false;
		s = end;
		if (*s == '-') {
			b = num_i(s + 1, &end);
			if (end == s + 1 || b < a)
				return false;
			s = end;
		}
		for (int64_t i = a; i <= b && i < n; i++)
			set[i] = true;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return false;
	}
	return true;
}

/* Highest CPU number in a list like "0-3,6" + 1, 0 if malformed. */
static int cpulist_count(const char *s)
{
	int max = -1;

	while (*s && *s != '\n') {
		char *end;
		int64_t a, b;

		if (!isdigit((unsigned char)*s))
			return 0;
		a = b = num_i(s, &end);
		s = end;
		if (*s == '-') {
			if (!isdigit((unsigned char)s[1]))
				return 0;
			b = num_i(s + 1, &end);
			if (b < a)
				return 0;
			s = end;
		}
		if (b > max)
			max = b > INT_MAX - 1 ? INT_MAX - 1 : b;
		if (*s == ',')
			s++;
		else if (*s && *s != '\n')
			return 0;
	}
	return max + 1;
}

/* ---------------------------------------------------------------- tracefs */

/*
 * Parse a tracefs format file (text, len bytes, need not be NUL terminated)
 * into f; the system name is left to the caller.  Fields whose line cannot
 * be parsed are skipped; a format with no name or id is an error (-1).
 */
static int tfs_parse(const char *text, size_t len, struct tfs_fmt *f)
{
	const char *p = text, *end = text + len;

	memset(f, 0, sizeof(*f));
	f->id = UINT_MAX;
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *q;
		size_t ll;
		char line[512];

		if (!nl)
			nl = end;
		ll = nl - p < (ptrdiff_t)sizeof(line) - 1 ? (size_t)(nl - p) : sizeof(line) - 1;
		memcpy(line, p, ll);
		line[ll] = 0;
		p = nl + 1;
		if (!strncmp(line, "name: ", 6)) {
			scopy(f->name, sizeof(f->name), line + 6);
		} else if (!strncmp(line, "ID: ", 4)) {
			f->id = num_u(line + 4, NULL, 10);
		} else if ((q = str_find(line, "field:", false)) && f->nfield < TFS_MAX_FIELDS) {
			struct tfs_field *fd = &f->field[f->nfield];
			const char *semi = strchr(q, ';'), *o, *s, *sg;
			const char *ne;
			char decl[256];
			size_t dl;

			if (!semi)
				continue;
			dl = semi - (q + 6);
			if (dl >= sizeof(decl))
				continue;
			memcpy(decl, q + 6, dl);
			decl[dl] = 0;
			/* the name is the last word, less any [array] suffix */
			{
				char *b = strchr(decl, '['), *w;

				/* "__data_loc char[] name": the [] belongs to the type */
				if (b && strchr(b, ' '))
					b = NULL;
				if (b)
					*b = 0;
				w = strrchr(decl, ' ');
				w = w ? w + 1 : decl;
				if (!*w)
					continue;
				ne = w;
				scopy(fd->name, sizeof(fd->name), ne);
			}
			fd->dyn = str_find(q, "__data_loc", false) != NULL;
			o = str_find(semi, "offset:", false);
			s = str_find(semi, "size:", false);
			sg = str_find(semi, "signed:", false);
			if (!o || !s)
				continue;
			fd->off = num_u(o + 7, NULL, 10);
			fd->size = num_u(s + 5, NULL, 10);
			fd->is_signed = sg && sg[7] == '1';
			if (fd->size == 0 || fd->size > 4096 || fd->off > 65536)
				continue;
			f->nfield++;
		}
	}
	return f->name[0] && f->id != UINT_MAX ? 0 : -1;
}

/* The field called name in f, or NULL. */
static const struct tfs_field *tfs_field(const struct tfs_fmt *f, const char *name)
{
	for (int i = 0; i < f->nfield; i++)
		if (!strcmp(f->field[i].name, name))
			return &f->field[i];
	return NULL;
}

/* An integer field of raw tracepoint data, sign-extended per the format;
 * dflt when the field is absent or does not fit in the data. */
static int64_t fld_int(const struct tfs_field *f, const uint8_t *raw, uint32_t rawsz, int64_t dflt)
{
	if (!f || f->dyn || f->off + f->size > rawsz)
		return dflt;
	switch (f->size) {
	case 1: return f->is_signed ? (int8_t)raw[f->off] : raw[f->off];
	case 2: return f->is_signed ? (int64_t)(int16_t)g16(raw + f->off) : (int64_t)g16(raw + f->off);
	case 4: return f->is_signed ? (int64_t)(int32_t)g32(raw + f->off) : (int64_t)g32(raw + f->off);
	case 8: return (int64_t)g64(raw + f->off);
	}
	return dflt;
}

/* A string field (char[N] or __data_loc char[]) into out[COMM_LEN], NUL
 * terminated; a longer string keeps its last COMM_LEN-1 bytes when tail. */
static void fld_str(const struct tfs_field *f, const uint8_t *raw, uint32_t rawsz, char *out, bool tail)
{
	const uint8_t *s;
	uint32_t n;

	out[0] = 0;
	if (!f || f->off + f->size > rawsz)
		return;
	if (f->dyn) {
		uint32_t loc = f->size == 4 ? g32(raw + f->off) : 0;
		uint32_t off = loc & 0xffff;

		n = loc >> 16;
		if (off > rawsz || n > rawsz - off)
			return;
		s = raw + off;
	} else if (!tail) {	/* char[N]: a C string within it, no scan needed */
		n = f->size < COMM_LEN - 1 ? f->size : COMM_LEN - 1;
		memcpy(out, raw + f->off, n);
		out[n] = 0;
		return;
	} else {
		s = raw + f->off;
		n = f->size;
	}
	n = strnlen((const char *)s, n);
	if (tail && n > COMM_LEN - 1) {
		s += n - (COMM_LEN - 1);
		n = COMM_LEN - 1;
	}
	if (n > COMM_LEN - 1)
		n = COMM_LEN - 1;
	memcpy(out, s, n);
	out[n] = 0;
}

/* Why tfs_find() found no tracefs, for the error message. */
static char tfs_why[512];

/* The first three fields of a /proc/mounts line (device, directory, type);
 * false if it has fewer, or one does not fit its buffer. */
static bool mount_fields(const char *line, char *dev, size_t nd, char *dir, size_t ndir, char *type, size_t nt)
{
	char *out[3] = { dev, dir, type };
	size_t cap[3] = { nd, ndir, nt };

	for (int i = 0; i < 3; i++) {
		size_t n;

		line += strspn(line, " \t");
		n = strcspn(line, " \t\n");
		if (!n || n >= cap[i])
			return false;
		memcpy(out[i], line, n);
		out[i][n] = 0;
		line += n;
	}
	return true;
}

/* Does root hold tracepoint formats?  0 if so, else the errno of opening
 * one (open, not access(): it counts effective ids and capabilities). */
static int tfs_usable(const char *root)
{
	char path[1024];
	int fd;

	sfmt(path, sizeof(path), "%s/events/sched/sched_switch/format", root);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return errno;
	close(fd);
	return 0;
}

/* Note in tfs_why that the tracefs at dir cannot be read (errno e). */
static void tfs_unreadable(const char *dir, int e)
{
	struct stat st;

	if (e == EACCES || e == EPERM) {
		if (stat(dir, &st) < 0)
			st.st_mode = st.st_uid = 0;
		sfmt(tfs_why, sizeof(tfs_why),
		     "tracefs is mounted at %s but uid %d cannot read it (mode %03o, owner uid %d): run tc as root, or make it readable (as root: mount -o remount,mode=755 %s) and allow perf events (sysctl kernel.perf_event_paranoid=-1)",
		     dir, (int)geteuid(), (unsigned)(st.st_mode & 0777), (int)st.st_uid, dir);
	} else if (e == EMFILE || e == ENFILE) {
		sfmt(tfs_why, sizeof(tfs_why), "cannot read %s: out of file descriptors (raise ulimit -n)", dir);
	} else if (!tfs_why[0]) {
		sfmt(tfs_why, sizeof(tfs_why),
		     "tracefs at %s has no events/sched/sched_switch (%s): a kernel with CONFIG_TRACEPOINTS and scheduler tracepoints is needed",
		     dir, strerror(e));
	}
}

/*
 * Find tracefs and store its path in G.ev.tfs_root: the usual places, then
 * /proc/mounts, then mount it on /sys/kernel/tracing (root only).
 * Returns -1 if there is none usable, with the reason in tfs_why.
 */
static int tfs_find(void)
{
	static const char *const places[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char dev[256], dir[512], type[64], *mounts, *fs;
	bool mounted = false, known = false;
	size_t len;
	int e;

	tfs_why[0] = 0;
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++)
		if (!(e = tfs_usable(places[i]))) {
			strcpy(G.ev.tfs_root, places[i]);
			return 0;
		}
	mounts = read_all("/proc/mounts", &len);
	for (char *l = mounts, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		if ((nl = strchr(l, '\n')))
			*nl = 0;
		if (mount_fields(l, dev, sizeof(dev), dir, sizeof(dir), type, sizeof(type)) &&
		    !strcmp(type, "tracefs")) {
			mounted = true;
			if (!(e = tfs_usable(dir))) {
				scopy(G.ev.tfs_root, sizeof(G.ev.tfs_root), dir);
				mem_free(mounts);
				return 0;
			}
			tfs_unreadable(dir, e);
		}
	}
	mem_free(mounts);
	if (!mounted && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0) {
		if (!(e = tfs_usable("/sys/kernel/tracing"))) {
			strcpy(G.ev.tfs_root, "/sys/kernel/tracing");
			return 0;
		}
		tfs_unreadable("/sys/kernel/tracing", e);
	} else if (!mounted) {
		e = errno;
		if ((fs = read_all("/proc/filesystems", &len))) {
			known = str_find(fs, "\ttracefs\n", false) != NULL;
			mem_free(fs);
		}
		if (!known)
			sfmt(tfs_why, sizeof(tfs_why),
			     "this kernel has no tracefs (not in /proc/filesystems): tc needs a kernel with CONFIG_FTRACE and CONFIG_TRACEPOINTS");
		else
			sfmt(tfs_why, sizeof(tfs_why),
			     "tracefs is not mounted, and mounting it failed (%s): as root, mount -t tracefs nodev /sys/kernel/tracing",
			     strerror(e));
	}
	return -1;
}

/* Read "<tracefs>/<rel>" whole; NULL if missing. */
static char *tfs_read(const char *rel, size_t *len)
{
	char path[512];

	sfmt(path, sizeof(path), "%s/%s", G.ev.tfs_root, rel);
	return read_all(path, len);
}

/* ---------------------------------------------------------------- events */

/* The tracepoints tc records, by enum ev_kind. */
static const struct tp_def {
	const char *sys, *name;
	bool required;
} tp_defs[EV_NTP] = {
	[EV_SWITCH] = { "sched", "sched_switch", true },
	[EV_WAKEUP] = { "sched", "sched_wakeup", true },
	[EV_WAKEUP_NEW] = { "sched", "sched_wakeup_new", true },
	[EV_WAKING] = { "sched", "sched_waking", true },
	[EV_PFORK] = { "sched", "sched_process_fork", true },
	[EV_PEXEC] = { "sched", "sched_process_exec", true },
	[EV_PEXIT] = { "sched", "sched_process_exit", true },
	[EV_MIGRATE] = { "sched", "sched_migrate_task", true },
	[EV_IDLE] = { "power", "cpu_idle", false },
	[EV_FREQ] = { "power", "cpu_frequency", false },
	[EV_IRQ] = { "irq", "irq_handler_entry", false },
	[EV_IRQ_EXIT] = { "irq", "irq_handler_exit", false },
	[EV_SOFTIRQ] = { "irq", "softirq_entry", false },
	[EV_SOFTIRQ_EXIT] = { "irq", "softirq_exit", false },
};

/* Names of event kinds as --script prints them. */
static const char *const ev_names[EV_NKIND] = {
	"sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_waking",
	"sched_process_fork", "sched_process_exec", "sched_process_exit",
	"sched_migrate_task", "cpu_idle", "cpu_frequency",
	"irq_handler_entry", "irq_handler_exit", "softirq_entry", "softirq_exit",
	"comm", "fork", "exit", "lost", "sys_enter", "sys_exit",
};

/* The I/O system calls of -I (perf timechart's set), by kind. */
enum io_kind { IO_READ, IO_WRITE, IO_SYNC, IO_POLL, IO_NKIND };
static const char *const io_kind_names[IO_NKIND] = { "read", "write", "sync", "poll" };
static const struct io_call {
	const char *name;
	int kind;
} io_calls[] = {
	{ "read", IO_READ }, { "pread64", IO_READ }, { "readv", IO_READ }, { "preadv", IO_READ },
	{ "recvfrom", IO_READ }, { "recvmmsg", IO_READ }, { "recvmsg", IO_READ },
	{ "write", IO_WRITE }, { "pwrite64", IO_WRITE }, { "writev", IO_WRITE }, { "pwritev", IO_WRITE },
	{ "sendto", IO_WRITE }, { "sendmsg", IO_WRITE }, { "sendmmsg", IO_WRITE },
	{ "sync", IO_SYNC }, { "sync_file_range", IO_SYNC }, { "fsync", IO_SYNC },
	{ "fdatasync", IO_SYNC }, { "msync", IO_SYNC },
	{ "epoll_pwait", IO_POLL }, { "epoll_wait", IO_POLL }, { "poll", IO_POLL },
	{ "ppoll", IO_POLL }, { "pselect6", IO_POLL }, { "select", IO_POLL },
};
#define N_IO ((int)(sizeof(io_calls) / sizeof(io_calls[0])))

/* Known tracepoint i (0 <= i < N_TP): tp_defs, then each I/O call's enter
 * and exit.  Writes its system and name. */
#define N_TP (EV_NTP + 2 * N_IO)
static void tp_name(int i, const char **sys, char *name, size_t n)
{
	if (i < EV_NTP) {
		*sys = tp_defs[i].sys;
		sfmt(name, n, "%s", tp_defs[i].name);
	} else {
		*sys = "syscalls";
		sfmt(name, n, "sys_%s_%s", (i - EV_NTP) % 2 ? "exit" : "enter", io_calls[(i - EV_NTP) / 2].name);
	}
}

/* Raw format texts, kept for the recorder's TRACING_DATA (index = G.ev.fmt),
 * and where in each its print fmt starts (--ftrace), or NULL. */
static struct {
	char *text;
	size_t len;
	const char *pf;
} fmt_text[MAX_FMTS];

/* Add a format (text of len bytes) of system sys; returns it, or NULL if it
 * does not parse or the table is full.  The text is copied. */
static const struct tfs_fmt *fmt_add(const char *sys, const char *text, size_t len)
{
	struct tfs_fmt *f;

	if (G.ev.nfmt >= MAX_FMTS)
		return NULL;
	f = &G.ev.fmt[G.ev.nfmt];
	if (tfs_parse(text, len, f) < 0)
		return NULL;
	scopy(f->sys, sizeof(f->sys), sys);
	fmt_text[G.ev.nfmt].text = xcalloc(1, len + 1);
	memcpy(fmt_text[G.ev.nfmt].text, text, len);
	fmt_text[G.ev.nfmt].len = len;
	if ((fmt_text[G.ev.nfmt].pf = str_find(fmt_text[G.ev.nfmt].text, "print fmt: ", false)))
		fmt_text[G.ev.nfmt].pf += 11;
	G.ev.nfmt++;
	return f;
}

/* Load the format of sys:name from tracefs; NULL if the kernel lacks it. */
static const struct tfs_fmt *fmt_load(const char *sys, const char *name)
{
	char rel[256];
	size_t len;
	char *text;
	const struct tfs_fmt *f;

	sfmt(rel, sizeof(rel), "events/%s/%s/format", sys, name);
	if (!(text = tfs_read(rel, &len)))
		return NULL;
	f = fmt_add(sys, text, len);
	mem_free(text);
	return f;
}

/* The format with tracepoint id, or NULL. */
static const struct tfs_fmt *fmt_by_id(uint64_t id)
{
	for (int i = 0; i < G.ev.nfmt; i++)
		if (G.ev.fmt[i].id == id)
			return &G.ev.fmt[i];
	return NULL;
}

/* Load the format of the tracepoint with id from the local tracefs, any
 * event's (events/SYS/NAME/id read until one is id); NULL if none is. */
static const struct tfs_fmt *fmt_scan_id(uint64_t id)
{
	char path[600], buf[32];
	const struct tfs_fmt *f = NULL;
	static struct numdir d, e;
	const char *s, *n;

	sfmt(path, sizeof(path), "%s/events", G.ev.tfs_root);
	numdir_open(&d, path);
	while (!f && (s = dir_next(&d))) {
		if (s[0] == '.')
			continue;
		sfmt(path, sizeof(path), "%s/events/%s", G.ev.tfs_root, s);
		numdir_open(&e, path);
		while (!f && (n = dir_next(&e))) {
			sfmt(path, sizeof(path), "%s/events/%s/%s/id", G.ev.tfs_root, s, n);
			if (n[0] != '.' && read_small(path, buf, sizeof(buf)) > 0 && num_u(buf, NULL, 10) == id)
				f = fmt_load(s, n);
		}
		if (e.fd >= 0)
			close(e.fd);	/* (found: left before its end) */
	}
	if (d.fd >= 0)
		close(d.fd);
	return f;
}

/* For attrs whose format is unknown (a recording without tracing data), look
 * the tracepoints up in the local tracefs by id: tc's first, then any
 * (fmt_scan_id: --repair writes every attr's format, or perf cannot read
 * the file).  Returns how many attrs were resolved this way. */
static int fmt_from_local(void)
{
	int n = 0;

	for (int i = 0; i < G.ev.nattr; i++) {
		struct attr *a = &G.ev.attr[i];

		if (a->pa.type != PERF_TYPE_TRACEPOINT || fmt_by_id(a->pa.config))
			continue;
		if (!G.ev.tfs_root[0] && tfs_find() < 0)
			return n;
		for (int k = 0; k < N_TP; k++) {
			char name[64], buf[32], path[600];
			const char *sys;

			tp_name(k, &sys, name, sizeof(name));
			sfmt(path, sizeof(path), "%s/events/%s/%s/id", G.ev.tfs_root, sys, name);
			if (read_small(path, buf, sizeof(buf)) > 0 &&
			    num_u(buf, NULL, 10) == a->pa.config && fmt_load(sys, name)) {
				n++;
				break;
			}
		}
		n += !fmt_by_id(a->pa.config) && fmt_scan_id(a->pa.config);
	}
	return n;
}

static void ev_layout(struct attr *a);

/* Bind attr a to its format and event kind, look its fields up, and lay
 * out its samples (see rec_info) and their fields (ev_layout). */
static void attr_bind(struct attr *a)
{
	uint64_t st = a->pa.sample_type;
	uint16_t o = 8;

	a->fixed = !(st & (PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN));
	o += 8 * (!!(st & PERF_SAMPLE_IDENTIFIER) + !!(st & PERF_SAMPLE_IP));
	a->pos_tid = st & PERF_SAMPLE_TID ? o : 0;
	o += st & PERF_SAMPLE_TID ? 8 : 0;
	a->pos_time = st & PERF_SAMPLE_TIME ? o : 0;
	o += st & PERF_SAMPLE_TIME ? 8 : 0;
	o += 8 * (!!(st & PERF_SAMPLE_ADDR) + !!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID));
	a->pos_cpu = st & PERF_SAMPLE_CPU ? o : 0;
	o += st & PERF_SAMPLE_CPU ? 8 : 0;
	a->pos_period = st & PERF_SAMPLE_PERIOD ? o : 0;
	o += st & PERF_SAMPLE_PERIOD ? 8 : 0;
	a->pos_raw = st & PERF_SAMPLE_RAW ? o : 0;
	a->min_size = o + (st & PERF_SAMPLE_RAW ? 4 : 0);

	a->kind = EV_NONE;
	a->fmt = NULL;
	memset(a->fp, 0, sizeof(a->fp));
	if (a->pa.type != PERF_TYPE_TRACEPOINT || !(a->fmt = fmt_by_id(a->pa.config)))
		return;
	for (int k = 0; k < EV_NTP; k++)
		if (!strcmp(a->fmt->sys, tp_defs[k].sys) && !strcmp(a->fmt->name, tp_defs[k].name))
			a->kind = k;
	if (!strcmp(a->fmt->sys, "syscalls"))
		for (int k = 0; k < N_IO; k++) {
			const char *n = a->fmt->name;

			if (strncmp(n, "sys_e", 5))
				break;
			n += !strncmp(n, "sys_enter_", 10) ? 10 : !strncmp(n, "sys_exit_", 9) ? 9 : 0;
			if (!strcmp(n, io_calls[k].name)) {
				a->kind = a->fmt->name[5] == 'n' ? EV_SYS_ENTER : EV_SYS_EXIT;
				a->io = k;
			}
		}
	for (int i = 0; i < F_NFLD; i++)
		a->fp[i] = tfs_field(a->fmt, fld_names[i]);
	/* a fixed period with PERIOD in the samples samples every event
	 * (the kernel's perf_swevent_event: period 1 each; perf record -c) */
	a->sampled = a->kind != EV_NONE &&
		     (a->pa.freq || (a->pa.sample_period > 1 && !(a->pa.sample_type & PERF_SAMPLE_PERIOD)));
	G.ev.sampled |= a->sampled;
	ev_layout(a);
}

/*
 * Build the id -> attr map and the positions of the id in records without
 * PERF_SAMPLE_IDENTIFIER (perf's evsel__calc_id_pos / is_pos, from the first
 * attr: perf requires them to agree).  Called whenever attrs change.
 */
static void idmap_build(void)
{
	size_t n = 0, cap = 16;
	uint64_t st;

	for (int i = 0; i < G.ev.nattr; i++)
		n += G.ev.attr[i].nids;
	while (cap < n * 2)
		cap <<= 1;
	mem_free(G.ev.idmap_id);	/* (and the cache after it) */
	mem_free(G.ev.idmap_attr);
	G.ev.idmap_id = xcalloc(cap, sizeof(*G.ev.idmap_id) + sizeof(*G.ev.idc));
	G.ev.idmap_attr = xcalloc(cap, sizeof(*G.ev.idmap_attr));
	G.ev.idmap_cap = cap;
	G.ev.idc = (struct idc *)(G.ev.idmap_id + cap);	/* ids are numbered in order: a recording's */
	G.ev.idc_mask = cap - 1;			/* do not collide in cap slots */
	for (size_t i = 0; i < cap; i++)
		G.ev.idmap_attr[i] = -1;
	for (int i = 0; i < G.ev.nattr; i++)
		for (int j = 0; j < G.ev.attr[i].nids; j++) {
			uint64_t id = G.ev.attr[i].ids[j];
			size_t h = (id * 0x9e3779b97f4a7c15ull) >> 32 & (cap - 1);

			while (G.ev.idmap_attr[h] >= 0 && G.ev.idmap_id[h] != id)
				h = (h + 1) & (cap - 1);
			G.ev.idmap_id[h] = id;
			G.ev.idmap_attr[h] = i;
		}
	G.ev.id_pos = G.ev.is_pos = -1;
	if (!G.ev.nattr)
		return;
	st = G.ev.attr[0].pa.sample_type;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		G.ev.id_pos = 0;
		G.ev.is_pos = 1;
	} else if (st & PERF_SAMPLE_ID) {
		G.ev.id_pos = !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
			   !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
		G.ev.is_pos = 1 + !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID);
	}
}

/* The attr index of kernel event id, or -1. */
static int idmap_find(uint64_t id)
{
	size_t h;

	if (!G.ev.idmap_cap)
		return -1;
	h = (id * 0x9e3779b97f4a7c15ull) >> 32 & (G.ev.idmap_cap - 1);
	while (G.ev.idmap_attr[h] >= 0) {
		if (G.ev.idmap_id[h] == id)
			return G.ev.idmap_attr[h];
		h = (h + 1) & (G.ev.idmap_cap - 1);
	}
	return -1;
}

/* ---------------------------------------------------------------- decoding */

/* The attr a record belongs to (see idmap_build), or -1.  A sample's id
 * is looked up in a cache first, by its low bits (ids are numbered in
 * order, and the cache has two slots for each: 64 CPUs' ids no longer take
 * turns in 64 slots). */
static int rec_attr(const uint8_t *r, size_t n, uint32_t type)
{
	int pos;

	if (G.ev.nattr == 1)
		return 0;
	if (type == PERF_RECORD_SAMPLE) {
		uint64_t id;
		struct idc *c;

		pos = G.ev.id_pos;
		if (pos < 0 || 8 + 8 * (size_t)pos + 8 > n)
			return G.ev.nattr ? 0 : -1;
		id = g64(r + 8 + 8 * pos);
		c = &G.ev.idc[id & G.ev.idc_mask];	/* (every attr added is bound: idmap_build) */
		if (c->attr1 && c->id == id)
			return c->attr1 - 1;
		if ((pos = idmap_find(id)) >= 0)
			*c = (struct idc){ id, pos + 1 };
		return pos;
	}
	/* side-band records perf synthesizes carry no known id: their
	 * sample_id layout is the first attr's, as perf reads them */
	pos = G.ev.is_pos;
	if (pos < 0 || 8 + 8 * (size_t)pos > n || (pos = idmap_find(g64(r + n - 8 * pos))) < 0)
		return G.ev.nattr ? 0 : -1;
	return pos;
}

/* g16, g32 and g64 with the byte order as an argument: where it is a
 * constant (inlined), this machine's order is a plain load. */
static inline uint16_t ld16(const uint8_t *p, bool swap)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return swap ? __builtin_bswap16(v) : v;
}

static inline uint32_t ld32(const uint8_t *p, bool swap)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t ld64(const uint8_t *p, bool swap)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

HOT int rec_info_fixed_as(const uint8_t *r, size_t n, const struct attr *a, struct rinfo *ri, bool swap)
{
	if (n < a->min_size)
		return -1;
	if (a->pos_tid) {
		ri->pid = ld32(r + a->pos_tid, swap);
		ri->tid = ld32(r + a->pos_tid + 4, swap);
	}
	if (a->pos_time) {
		ri->time = ld64(r + a->pos_time, swap);
		ri->has_time = true;
	}
	if (a->pos_cpu)
		ri->cpu = ld32(r + a->pos_cpu, swap);
	if (a->sampled && a->pos_period)
		ri->period = ld64(r + a->pos_period, swap);
	if (a->pos_raw) {
		ri->rawsz = ld32(r + a->pos_raw, swap);
		if (ri->rawsz > n - a->pos_raw - 4)
			return -1;
		ri->raw = r + a->pos_raw + 4;
	}
	return 0;
}

/* A SAMPLE of an attr whose layout is fixed (struct attr's pos_*): its
 * fields at their precomputed offsets, the common case, fast. */
static int rec_info_fixed(const uint8_t *r, size_t n, const struct attr *a, struct rinfo *ri)
{
	return G.ev.swap ? rec_info_fixed_as(r, n, a, ri, true) : rec_info_fixed_as(r, n, a, ri, false);
}

#define NEED(k) do { if ((size_t)(end - p) < (size_t)(k)) return -1; } while (0)

/* A SAMPLE of attr pa, field by field in sample_type order up to RAW. */
static int rec_info_sample(const uint8_t *r, size_t n, const struct perf_event_attr *pa, struct rinfo *ri)
{
	const uint8_t *p = r + 8, *end = r + n;
	uint64_t st = pa->sample_type;

	if (st & PERF_SAMPLE_IDENTIFIER) { NEED(8); p += 8; }
	if (st & PERF_SAMPLE_IP) { NEED(8); p += 8; }
	if (st & PERF_SAMPLE_TID) {
		NEED(8);
		ri->pid = g32(p);
		ri->tid = g32(p + 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		NEED(8);
		ri->time = g64(p);
		ri->has_time = true;
		p += 8;
	}
	if (st & PERF_SAMPLE_ADDR) { NEED(8); p += 8; }
	if (st & PERF_SAMPLE_ID) { NEED(8); p += 8; }
	if (st & PERF_SAMPLE_STREAM_ID) { NEED(8); p += 8; }
	if (st & PERF_SAMPLE_CPU) {
		NEED(8);
		ri->cpu = g32(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_PERIOD) {
		NEED(8);
		ri->period = g64(p);
		p += 8;
	}
	if (st & PERF_SAMPLE_READ) {
		uint64_t rf = pa->read_format, each = 8;
		uint64_t extra = 8 * (!!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
				      !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING));

		each += 8 * (!!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST));
		if (rf & PERF_FORMAT_GROUP) {
			uint64_t nr;

			NEED(8);
			nr = g64(p);
			if (nr > n / 8)
				return -1;
			NEED(8 + extra + nr * each);
			p += 8 + extra + nr * each;
		} else {
			NEED(extra + each);
			p += extra + each;
		}
	}
	if (st & PERF_SAMPLE_CALLCHAIN) {
		uint64_t nr;

		NEED(8);
		nr = g64(p);
		if (nr > n / 8)
			return -1;
		NEED(8 + 8 * nr);
		p += 8 + 8 * nr;
	}
	if (st & PERF_SAMPLE_RAW) {
		NEED(4);
		ri->rawsz = g32(p);
		p += 4;
		NEED(ri->rawsz);
		ri->raw = p;
	}
	return 0;
}

#undef NEED

/* The sample_id trailer (sample_id_all) of another kernel record. */
static int rec_info_trailer(const uint8_t *r, size_t n, uint64_t st, struct rinfo *ri)
{
	size_t k = 8 * (!!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
			!!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
			!!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER));
	const uint8_t *p;

	if (n < 8 + k)
		return -1;
	p = r + n - k;
	ri->body_end = n - k;
	if (st & PERF_SAMPLE_TID) {
		ri->pid = g32(p);
		ri->tid = g32(p + 4);
		p += 8;
	}
	if (st & PERF_SAMPLE_TIME) {
		ri->time = g64(p);
		ri->has_time = true;
		p += 8;
	}
	p += 8 * (!!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID));
	if (st & PERF_SAMPLE_CPU)
		ri->cpu = g32(p);
	return 0;
}

/* rec_info_as of any record (see there). */
static int rec_info_any(const uint8_t *r, size_t n, int attr, struct rinfo *ri)
{
	uint32_t type = g32(r);
	const struct attr *a;

	memset(ri, 0, sizeof(*ri));
	ri->cpu = ri->pid = ri->tid = -1;
	ri->body_end = n;
	ri->attr = attr;
	if (attr < 0 || attr >= G.ev.nattr)
		return -1;
	a = &G.ev.attr[attr];
	if (type == PERF_RECORD_SAMPLE)
		return a->fixed ? rec_info_fixed(r, n, a, ri) : rec_info_sample(r, n, &a->pa, ri);
	if (type >= PR_HEADER_ATTR || !a->pa.sample_id_all)
		return 0;
	return rec_info_trailer(r, n, a->pa.sample_type, ri);
}

/*
 * Parse the generic part of record r (n bytes, header included, n checked
 * by the caller to be >= 8 and its size field) as a record of attr index
 * attr (rec_attr's answer, kept by the merge so it is looked up once): for
 * SAMPLE the fields in sample_type order up to RAW, for other kernel
 * records the sample_id trailer.  Returns 0, or -1 if the record does not
 * fit its attr.  Inlined: a sample of a fixed layout in this machine's
 * byte order, nearly every record, takes a few loads.
 */
HOT int rec_info_as(const uint8_t *r, size_t n, int attr, struct rinfo *ri)
{
	if (FAST && !G.ev.swap && attr >= 0 && attr < G.ev.nattr && G.ev.attr[attr].fixed &&
	    ld32(r, false) == PERF_RECORD_SAMPLE) {
		*ri = (struct rinfo){ .attr = attr, .cpu = -1, .pid = -1, .tid = -1, .body_end = n };
		return rec_info_fixed_as(r, n, &G.ev.attr[attr], ri, false);
	}
	return rec_info_any(r, n, attr, ri);
}

/* What rec_std reads of the recording, which a loop over records keeps
 * in a local (rec_std_at, rd_sorted_run). */
struct std_key {
	const struct idc *idc;	/* rec_attr's cache of ids */
	uint64_t mask;
	struct attr *attr;	/* G.ev.attr */
	int pos;		/* the id's place in a sample; -1: rec_std knows none */
};

/* Does rec_std know samples of this recording (this machine's byte
 * order, ids)? */
static inline bool std_on(void)
{
	return FAST && !G.ev.swap && G.ev.nattr > 1;
}

/* rec_std's key of the recording as it is now. */
static inline struct std_key std_key(void)
{
	return (struct std_key){ G.ev.idc, G.ev.idc_mask, G.ev.attr, std_on() ? G.ev.id_pos : -1 };
}

/* The attr of record r (n bytes) where it is a sample in this machine's
 * byte order whose id rec_attr has at hand (k: std_key), of an attr whose
 * samples have TID, TIME, CPU and RAW at fixed places (std), and r fits
 * it; else -1 (rec_info's fast path: a few loads and two checks). */
HOT int rec_std_at(const struct std_key *k, const uint8_t *r, size_t n)
{
	if (k->pos >= 0 && ld32(r, false) == PERF_RECORD_SAMPLE && 8 + 8 * (size_t)k->pos + 8 <= n) {
		uint64_t id = ld64(r + 8 + 8 * k->pos, false);
		const struct idc *c = &k->idc[id & k->mask];
		const struct attr *a;

		if (!c->attr1 || c->id != id)
			return -1;
		a = &k->attr[c->attr1 - 1];
		if (a->std && n >= a->min_size && ld32(r + a->pos_raw, false) <= n - a->pos_raw - 4)
			return c->attr1 - 1;
	}
	return -1;
}

/* rec_std_at with the recording's key as it is now (std_on tested
 * first, a branch: perf's files took 1% more instructions with
 * std_key's select). */
HOT int rec_std(const uint8_t *r, size_t n)
{
	struct std_key k = { G.ev.idc, G.ev.idc_mask, G.ev.attr, G.ev.id_pos };

	return std_on() ? rec_std_at(&k, r, n) : -1;
}

/* rec_info of record r (n bytes), a sample of attr at that rec_std
 * knows: a few loads (period is not read: no such attr is sampled). */
HOT void rec_std_info(const uint8_t *r, size_t n, int at, struct rinfo *ri)
{
	const struct attr *a = &G.ev.attr[at];

	ri->attr = at;
	ri->has_time = true;
	ri->time = ld64(r + a->pos_time, false);
	ri->cpu = ld32(r + a->pos_cpu, false);
	ri->pid = ld32(r + a->pos_tid, false);
	ri->tid = ld32(r + a->pos_tid + 4, false);
	ri->rawsz = ld32(r + a->pos_raw, false);
	ri->raw = r + a->pos_raw + 4;
	ri->body_end = n;
}

/* rec_info_as for the attr the record names.  Inlined: a sample rec_std
 * knows takes a few loads; anything else the generic way. */
HOT int rec_info(const uint8_t *r, size_t n, struct rinfo *ri)
{
	int at = rec_std(r, n);

	if (at >= 0) {
		rec_std_info(r, n, at, ri);
		return 0;
	}
	return rec_info_as(r, n, rec_attr(r, n, g32(r)), ri);
}

/* The events record ri of a sampled attr says were left out before it
 * (its PERIOD less 1; sample_period's less 1 where it has none; a
 * frequency without it: none known). */
static uint64_t rec_unrecorded(const struct rinfo *ri)
{
	const struct perf_event_attr *pa = &G.ev.attr[ri->attr].pa;

	return ri->period ? ri->period - 1 : pa->freq ? 0 : pa->sample_period - 1;
}

/* Of the n events record ri stands for beyond itself (rec_unrecorded),
 * those that can be counted: all with a fixed period (-c); none with a
 * frequency (-F), whose period once the kernel moves it is the one in
 * force, not a count (the periods of a perf record -F 500 recording
 * added up to 12,355 sched_wakeup left out where a recording of all
 * had 2,935): the kind's count is then not known (G.n.unrec_freq). */
static uint64_t unrec_counted(const struct rinfo *ri, uint64_t n)
{
	const struct attr *a = &G.ev.attr[ri->attr];

	if (!a->pa.freq)
		return n;
	if (n)
		G.n.unrec_freq |= 1u << a->kind;
	return 0;
}

/* Copy a NUL-terminated string of at most max bytes at s into out[COMM_LEN]. */
static void copy_comm(char *out, const uint8_t *s, size_t max)
{
	size_t n = strnlen((const char *)s, max);

	if (n > COMM_LEN - 1)
		n = COMM_LEN - 1;
	memcpy(out, s, n);
	out[n] = 0;
}

/* A number from a recording as an int: one that does not fit is INT_MIN,
 * which every pid and CPU check rejects and counts (never narrowed). */
static int ev_int(int64_t v)
{
	return v >= INT_MIN && v <= INT_MAX ? (int)v : INT_MIN;
}

/* The tracepoint fields ev_decode reads for each kind: integers, then
 * strings (COMM_LEN bytes). */
static const struct { uint8_t nint, nstr, f[6]; } ev_fields[EV_NKIND] = {
	[EV_SWITCH] = { 4, 2, { F_COMMON_FLAGS, F_PREV_PID, F_NEXT_PID, F_PREV_STATE, F_PREV_COMM, F_NEXT_COMM } },
	[EV_WAKEUP] = { 3, 1, { F_COMMON_FLAGS, F_PID, F_TARGET_CPU, F_COMM } },
	[EV_WAKEUP_NEW] = { 3, 1, { F_COMMON_FLAGS, F_PID, F_TARGET_CPU, F_COMM } },
	[EV_WAKING] = { 3, 1, { F_COMMON_FLAGS, F_PID, F_TARGET_CPU, F_COMM } },
	[EV_PFORK] = { 3, 2, { F_COMMON_FLAGS, F_PARENT_PID, F_CHILD_PID, F_PARENT_COMM, F_CHILD_COMM } },
	[EV_PEXIT] = { 2, 1, { F_COMMON_FLAGS, F_PID, F_COMM } },
	[EV_MIGRATE] = { 4, 1, { F_COMMON_FLAGS, F_PID, F_ORIG_CPU, F_DEST_CPU, F_COMM } },
	[EV_IDLE] = { 3, 0, { F_COMMON_FLAGS, F_STATE, F_CPU_ID } },
	[EV_FREQ] = { 3, 0, { F_COMMON_FLAGS, F_STATE, F_CPU_ID } },
	[EV_SYS_ENTER] = { 2, 0, { F_COMMON_FLAGS, F_FD } },
	[EV_SYS_EXIT] = { 2, 0, { F_COMMON_FLAGS, F_RET } },
};	/* EV_PEXEC (a __data_loc file name, rare) takes the generic path */

/*
 * Lay out rec_info's fast path for attr a's samples (std), and
 * ev_decode's for their fields (a bound to its format and kind):
 * every field its kind reads present, at a fixed place, integers of 1, 2,
 * 4 or 8 bytes, strings of COMM_LEN bytes or more, or __data_loc ones for
 * sched_process_fork and sched_migrate_task (size 0 in struct fq: theirs on
 * 6.x kernels); then
 * a sample whose raw data holds raw_need bytes has them all, and fld_int
 * and fld_str would read them as fq_int and fq_str do.
 */
static void ev_layout(struct attr *a)
{
	int k = a->kind, n;
	uint32_t need = 0;

	a->std = a->fixed && a->pos_tid && a->pos_time && a->pos_cpu && a->pos_raw && !a->sampled;
	a->raw_need = 0;	/* (s4 is read only where raw_need is not 0) */
	if (!FAST || k < 0 || k >= EV_NKIND || !(n = ev_fields[k].nint + ev_fields[k].nstr))
		return;
	for (int i = 0; i < n; i++) {
		const struct tfs_field *f = a->fp[ev_fields[k].f[i]];
		bool str = i >= ev_fields[k].nint;

		if (!f || f->off > UINT16_MAX || (f->dyn && (!str || f->size != 4 || (k != EV_PFORK && k != EV_MIGRATE))) ||
		    (str ? f->size < COMM_LEN && !f->dyn : f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
			return;
		a->fq[i] = (struct fq){ f->off, str ? (f->dyn ? 0 : COMM_LEN) : f->size, f->is_signed };
		if (f->off + f->size > need)	/* as fld_int and fld_str check it */
			need = f->off + f->size;
	}
	a->raw_need = need;
	a->s4 = a->fq[0].size == 1 && !a->fq[0].sign;
	for (int i = 1; i < ev_fields[k].nint; i++)
		a->s4 &= (k == EV_SWITCH && i == 3) || (a->fq[i].size == 4 && a->fq[i].sign);
}

/* An integer field laid out by ev_layout, in raw data of this machine's
 * byte order that holds it: fld_int's value. */
HOT int64_t fq_int(const struct fq *q, const uint8_t *raw)
{
	const uint8_t *p = raw + q->off;
	uint16_t v2;
	uint32_t v4;
	uint64_t v8;

	switch (q->size) {
	case 1:
		return q->sign ? (int64_t)(int8_t)*p : (int64_t)*p;
	case 2:
		memcpy(&v2, p, 2);
		return q->sign ? (int64_t)(int16_t)v2 : (int64_t)v2;
	case 4:
		memcpy(&v4, p, 4);
		return q->sign ? (int64_t)(int32_t)v4 : (int64_t)v4;
	}
	memcpy(&v8, p, 8);
	return (int64_t)v8;
}

/* Integer field i of attr a laid out by ev_layout (not sched_switch's
 * prev_state), in raw data that holds it: fq_int's value, read as a byte
 * or an int32 where the layout is s4 (callgrind: 22 instructions an event
 * less than fq_int's switch on tc's bench file). */
HOT int64_t fq_val(const struct attr *a, int i, const uint8_t *raw)
{
	int32_t v;

	if (!a->s4)
		return fq_int(&a->fq[i], raw);
	if (!i)
		return raw[a->fq[0].off];
	memcpy(&v, raw + a->fq[i].off, 4);
	return v;
}

/* A string field laid out by ev_layout into out[COMM_LEN]: fld_str's. */
static inline void fq_str(const struct fq *q, const uint8_t *raw, char *out)
{
	memcpy(out, raw + q->off, COMM_LEN);
	out[COMM_LEN - 1] = 0;
}

/* fq_str of attr a's string field i (of a kind whose strings may be
 * __data_loc: fq size 0, read as fld_str reads it), in raw data of rawsz
 * bytes. */
static void fq_dstr(const struct attr *a, int i, const uint8_t *raw, uint32_t rawsz, char *out)
{
	if (a->fq[i].size)
		fq_str(&a->fq[i], raw, out);
	else
		fld_str(a->fp[ev_fields[a->kind].f[i]], raw, rawsz, out, false);
}

/* ev_decode of a tracepoint sample by its attr's layout (ev_layout), its
 * raw data in this machine's byte order and holding a->raw_need bytes. */
HOT void ev_decode_fast(const struct attr *a, const uint8_t *raw, uint32_t rs, struct ev *e)
{
	const struct fq *q = a->fq;

	e->flags = fq_val(a, 0, raw);
	switch (a->kind) {
	case EV_SWITCH:
		e->a = ev_int(fq_val(a, 1, raw));
		e->b = ev_int(fq_val(a, 2, raw));
		e->v = fq_int(&q[3], raw);
		fq_str(&q[4], raw, e->comm);
		fq_str(&q[5], raw, e->comm2);
		break;
	case EV_WAKEUP:
	case EV_WAKEUP_NEW:
	case EV_WAKING:
		e->a = ev_int(fq_val(a, 1, raw));
		e->c = ev_int(fq_val(a, 2, raw));
		fq_str(&q[3], raw, e->comm);
		break;
	case EV_PFORK:
		e->a = ev_int(fq_val(a, 1, raw));
		e->b = ev_int(fq_val(a, 2, raw));
		fq_dstr(a, 3, raw, rs, e->comm);
		fq_dstr(a, 4, raw, rs, e->comm2);
		break;
	case EV_PEXIT:
		e->a = ev_int(fq_val(a, 1, raw));
		fq_str(&q[2], raw, e->comm);
		break;
	case EV_MIGRATE:
		e->a = ev_int(fq_val(a, 1, raw));
		e->b = ev_int(fq_val(a, 2, raw));
		e->c = ev_int(fq_val(a, 3, raw));
		fq_dstr(a, 4, raw, rs, e->comm);
		break;
	case EV_IDLE:
	case EV_FREQ:
		e->v = (uint32_t)fq_int(&q[1], raw);
		if (a->kind == EV_IDLE && e->v != (int64_t)IDLE_EXIT && e->v > CSTATE_MAX)
			e->v = CSTATE_MAX;
		else if (a->kind == EV_FREQ && e->v > INT32_MAX)
			e->v = INT32_MAX;
		e->c = ev_int(fq_int(&q[2], raw));
		break;
	case EV_SYS_ENTER:
		e->a = fq_int(&q[1], raw);
		e->b = a->io;
		break;
	case EV_SYS_EXIT:
		e->v = fq_int(&q[1], raw);
		e->b = a->io;
		break;
	}
}

/* The fields of a tracepoint sample of attr a (a kind tc uses) into e,
 * looked up by name (fld_int, fld_str), checked one by one: ev_decode's
 * general way. */
static void ev_decode_tp(const struct attr *a, const uint8_t *raw, uint32_t rs, struct ev *e)
{
	e->kind = a->kind;
	e->flags = fld_int(a->fp[F_COMMON_FLAGS], raw, rs, 0);
	switch (a->kind) {
	case EV_SWITCH:
		e->a = ev_int(fld_int(a->fp[F_PREV_PID], raw, rs, -1));
		e->b = ev_int(fld_int(a->fp[F_NEXT_PID], raw, rs, -1));
		e->v = fld_int(a->fp[F_PREV_STATE], raw, rs, 0);
		fld_str(a->fp[F_PREV_COMM], raw, rs, e->comm, false);
		fld_str(a->fp[F_NEXT_COMM], raw, rs, e->comm2, false);
		break;
	case EV_WAKEUP:
	case EV_WAKEUP_NEW:
	case EV_WAKING:
		e->a = ev_int(fld_int(a->fp[F_PID], raw, rs, -1));
		e->c = ev_int(fld_int(a->fp[F_TARGET_CPU], raw, rs, -1));
		fld_str(a->fp[F_COMM], raw, rs, e->comm, false);
		break;
	case EV_PFORK:
		e->a = ev_int(fld_int(a->fp[F_PARENT_PID], raw, rs, -1));
		e->b = ev_int(fld_int(a->fp[F_CHILD_PID], raw, rs, -1));
		fld_str(a->fp[F_PARENT_COMM], raw, rs, e->comm, false);
		fld_str(a->fp[F_CHILD_COMM], raw, rs, e->comm2, false);
		break;
	case EV_PEXEC:
		e->a = ev_int(fld_int(a->fp[F_PID], raw, rs, -1));
		e->b = ev_int(fld_int(a->fp[F_OLD_PID], raw, rs, -1));
		fld_str(a->fp[F_FILENAME], raw, rs, e->comm, true);
		break;
	case EV_PEXIT:
		e->a = ev_int(fld_int(a->fp[F_PID], raw, rs, -1));
		fld_str(a->fp[F_COMM], raw, rs, e->comm, false);
		break;
	case EV_MIGRATE:
		e->a = ev_int(fld_int(a->fp[F_PID], raw, rs, -1));
		e->b = ev_int(fld_int(a->fp[F_ORIG_CPU], raw, rs, -1));
		e->c = ev_int(fld_int(a->fp[F_DEST_CPU], raw, rs, -1));
		fld_str(a->fp[F_COMM], raw, rs, e->comm, false);
		break;
	case EV_IDLE:
	case EV_FREQ:
		e->v = (uint32_t)fld_int(a->fp[F_STATE], raw, rs, 0);
		if (a->kind == EV_IDLE && e->v != (int64_t)IDLE_EXIT && e->v > CSTATE_MAX)
			e->v = CSTATE_MAX;
		else if (a->kind == EV_FREQ && e->v > INT32_MAX)
			e->v = INT32_MAX;
		e->c = ev_int(fld_int(a->fp[F_CPU_ID], raw, rs, -1));
		break;
	case EV_IRQ:
	case EV_IRQ_EXIT:
		e->a = ev_int(fld_int(a->fp[F_IRQ], raw, rs, -1));
		e->v = fld_int(a->fp[F_RET], raw, rs, 0);
		fld_str(a->fp[F_NAME], raw, rs, e->comm, false);
		break;
	case EV_SOFTIRQ:
	case EV_SOFTIRQ_EXIT:
		e->a = ev_int(fld_int(a->fp[F_VEC], raw, rs, -1));
		break;
	case EV_SYS_ENTER:
		e->a = fld_int(a->fp[F_FD], raw, rs, -1);
		e->b = a->io;
		break;
	case EV_SYS_EXIT:
		e->v = fld_int(a->fp[F_RET], raw, rs, 0);
		e->b = a->io;
		break;
	}
}

/* ev_decode of any record but a sample laid out by ev_layout. */
static int ev_decode_any(const uint8_t *r, const struct rinfo *ri, const struct attr *a, struct ev *e)
{
	uint32_t type = g32(r);
	const uint8_t *b = r + 8;
	size_t blen = ri->body_end - 8;

	switch (type) {
	case PERF_RECORD_SAMPLE:
		if (!a || a->kind == EV_NONE || !ri->raw)
			return 0;
		ev_decode_tp(a, ri->raw, ri->rawsz, e);
		return 1;
	case PERF_RECORD_COMM:
		if (blen < 8)
			return 0;
		e->kind = EV_COMM;
		e->a = g32(b);
		e->b = g32(b + 4);
		e->v = !!(g16(r + 4) & PERF_RECORD_MISC_COMM_EXEC);
		copy_comm(e->comm, b + 8, blen - 8);
		return 1;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (blen < 24)
			return 0;
		e->kind = type == PERF_RECORD_FORK ? EV_FORK : EV_EXIT;
		e->a = g32(b);
		e->b = g32(b + 4);
		e->c = g32(b + 8);
		e->v = (int32_t)g32(b + 12);
		if (!ri->has_time)
			e->time = g64(b + 16);
		return 1;
	case PERF_RECORD_LOST:
		if (blen < 16)
			return 0;
		e->kind = EV_LOST;
		e->v = g64(b + 8);
		return 1;
	case PERF_RECORD_LOST_SAMPLES:
		if (blen < 8)
			return 0;
		e->kind = EV_LOST;
		e->v = g64(b);
		return 1;
	}
	return 0;
}

/*
 * Decode record r (already checked by rec_info into ri) into e.  Numbers
 * are bounded here: pids and CPUs by ev_int, an idle state to CSTATE_MAX
 * (IDLE_EXIT stays), a frequency to INT32_MAX kHz.
 * Returns 1 for an event tc uses, 0 for a record it does not.  Inlined: a
 * sample laid out by ev_layout, nearly every record, is read at its fixed
 * places (ev_decode_fast); the rest the general way (ev_decode_any).
 */
HOT int ev_decode(const uint8_t *r, const struct rinfo *ri, struct ev *e)
{
	const struct attr *a = ri->attr >= 0 ? &G.ev.attr[ri->attr] : NULL;

	memset(e, 0, sizeof(*e));
	e->time = ri->time;
	e->cpu = ri->cpu;
	e->pid = ri->pid;
	e->tid = ri->tid;
	e->kind = EV_NONE;
	if (FAST && g32(r) == PERF_RECORD_SAMPLE && a && a->raw_need && ri->raw && ri->rawsz >= a->raw_need &&
	    !G.ev.swap) {
		e->kind = a->kind;	/* laid out (raw_need): a kind tc uses */
		ev_decode_fast(a, ri->raw, ri->rawsz, e);
		return 1;
	}
	return ev_decode_any(r, ri, a, e);
}

/* ev_decode of sample r of attr a that rec_std_at knows (its time t, its
 * cpu), its raw data of rawsz bytes holding a->raw_need: ev_decode's fast
 * way, without a parse (struct rinfo) in between. */
HOT void ev_decode_std(const struct attr *a, const uint8_t *r, uint64_t t, int cpu, uint32_t rawsz, struct ev *e)
{
	memset(e, 0, sizeof(*e));
	e->time = t;
	e->cpu = cpu;
	e->pid = ld32(r + a->pos_tid, false);
	e->tid = ld32(r + a->pos_tid + 4, false);
	e->kind = a->kind;
	ev_decode_fast(a, r + a->pos_raw + 4, rawsz, e);
}

static void lat_wait_end(struct task *p, uint64_t start, uint64_t end, int cpu);
static void lat_woken(struct task *p, uint64_t t, int waker);

/* ---------------------------------------------------------------- model */

/*
 * The model turns events, in time order, into what every task and CPU was
 * doing.  It never looks at where events come from (rings or a file).
 *
 * State rules (improving on perf timechart's).  Each was checked against
 * test/sim, a scheduler simulator that knows the truth and damages its
 * traces the ways real ones are damaged (README: "Traces are not
 * complete" has the figures); where the evidence does not tell, a row is
 * unknown, never guessed.
 *   sched_switch   prev leaves its CPU: prev_state masked to the state bits
 *                  gives runnable (0: preempted), blocked (D), sleeping (S
 *                  and everything else), exited (X, Z); next runs.
 *   evidence       every record names the task running on its CPU (a
 *                  tracepoint's common_pid, a side-band record's sample
 *                  id), from that CPU's first tracepoint record on.  A
 *                  record naming another task than tc believed there means
 *                  the kernel left out a switch: what tc believed running
 *                  ends at its last evidence, unknown after it (the idle
 *                  task too); the task named leaves what it was believed
 *                  doing (running elsewhere: from its last evidence there;
 *                  runnable, sleeping, blocked: from when that began, as its
 *                  switch-in could have come at any time since) and runs
 *                  from the record on.  A switch's prev not believed there
 *                  ran at the switch-out only.  Nothing is known of a CPU
 *                  before its first record:
 *
 *                    events on c   0->A ... s(A) (A->B lost) s(B) .. B->0
 *                    cpu c         |A          |  unknown   |B     |idle
 *                    task B        runnable    |  unknown   |running|
 *
 *   wakeups        sched_waking, sched_wakeup, sched_wakeup_new: a sleeping,
 *                  blocked or unknown task becomes runnable; the waker is
 *                  the sample's task, or an interrupt (common_flags).  A
 *                  wakeup races the task's way to sleep: from its
 *                  sched_waking to its sched_wakeup (or its next switch-in)
 *                  the wakeup is open, and a switch-out S or D meanwhile was
 *                  woken after its dequeue: runnable from it, one wakeup.  A
 *                  sched_wakeup while it still runs came before the dequeue:
 *                  it goes on running, and its next sleep is a sleep.  With
 *                  no sched_wakeup in the recording (perf sched record's
 *                  events) the switch-out cannot tell the two apart: it is
 *                  unknown (woken), and runnable since if the task is
 *                  switched in with no sched_waking of it before (a sleep
 *                  needs one to end).  A switch-in of a task believed
 *                  sleeping or blocked (its wakeup lost) makes that sleep
 *                  unknown.  A sched_waking (it needs a sleeping task) of
 *                  one woken and not seen running since: it ran and slept
 *                  on switches the kernel did not report, unknown since
 *                  that wakeup, runnable again.
 *                  A sched_wakeup of a task believed sleeping or blocked,
 *                  where sched_waking is recorded (it always comes first):
 *                  its sched_waking is missing and may have come before the
 *                  switch-out, so that sleep is unknown.
 *   I/O (-I)       sys_enter/sys_exit are an overlay: the scheduling state
 *                  is tracked as without -I; io_wait is the time inside the
 *                  calls while not running.
 *   cpu_idle       the state applies to cpu_id; IDLE_EXIT closes it, a new
 *                  entry closes the previous one.
 *   gaps           lost events (a LOST record, sorted where its ring lost
 *                  them), a pause, records of a CPU that arrive after newer
 *                  ones: what ran on the CPU, every runnable, sleeping and
 *                  blocked task is unknown from the CPU's last record before
 *                  the gap until events tell again.
 *   the end        open states close at the last event.  A CPU believed
 *                  idle since a cpu_idle exit, or that left out a switch out
 *                  of idle before, may have run a task since without a
 *                  word: unknown from its last record, and so is a task
 *                  still queued on it since it was woken.  So is a CPU
 *                  whose running task has exited (EXIT record): its last
 *                  switch-out, which follows at once, is missing; and one
 *                  whose task is believed running only from side-band
 *                  records after its last tracepoint record (perf switches
 *                  its tracepoints off first, CPU by CPU), and with rings
 *                  that overwrite, every CPU (model_end_cut).
 *   by design      a recording per task, of some CPUs, with filters or
 *                  rings that overwrite (its CMDLINE feature) or sampled
 *                  tracepoints leaves events out: what they would say is
 *                  unknown (enum part, model_cover, model_unrecorded).
 * Every pid and CPU number from the data is bounds-checked.
 */

static void ival_ring(uint64_t bytes);
static void ival_put(uint64_t *last, int32_t row, int32_t state, int32_t aux, uint64_t start, uint64_t end);

/* Keep interval [start, end) of row in state (ival_put) where anything
 * keeps intervals: the view's ring, --states.  Inlined, so that
 * --summary and --script, which keep none, pay one test for each. */
static inline void ival_add(uint64_t *last, int32_t row, int32_t state, int32_t aux, uint64_t start, uint64_t end)
{
	if (G.ib.cap || G.opt.states)
		ival_put(last, row, state, aux, start, end);
}

static void model_tables(int ncpu, int ntask);

/* Allocate the model's tables (start-up); ibytes 0 keeps no intervals. */
static void model_init(int ncpu, int ntask, uint64_t ibytes)
{
	model_tables(ncpu, ntask);
	ival_ring(ibytes);
}

/* Allocate the model's task and CPU tables, empty. */
static void model_tables(int ncpu, int ntask)
{
	G.m.task = xcalloc_huge((size_t)ntask * sizeof(*G.m.task));
	G.m.ntask = 0;
	G.m.task_slot = xcalloc(PID_MAX + 1, sizeof(*G.m.task_slot));
	G.m.told = xcalloc((ntask + 63) / 64, sizeof(*G.m.told));
	G.m.cpu = xcalloc(ncpu, sizeof(*G.m.cpu));
	for (int c = 0; c < ncpu; c++) {
		G.m.cpu[c].cur = -1;
		G.m.cpu[c].cstate = G.m.cpu[c].freq = -1;
		G.m.cpu[c].last_ival = G.m.cpu[c].last_cival = G.m.cpu[c].last_fival = G.m.cpu[c].last_qival = NO_IVAL;
		G.m.cpu[c].hirq = G.m.cpu[c].sirq = -1;
	}
	G.m.irqs = xcalloc(IRQ_STATS, sizeof(*G.m.irqs));
	for (int i = 0; i < IRQ_STATS; i++)
		G.m.irqs[i].irq = -1;
}

/* The name of softirq vector vec as the kernel prints it ("NET_RX"), from
 * softirq_entry's print fmt ({ 3, "NET_RX" }); "vecN" if it has none. */
static void softirq_name(int vec, char *s, size_t n)
{
	for (int i = 0; i < G.ev.nfmt; i++) {
		const char *p = fmt_text[i].text, *q;

		if (strcmp(G.ev.fmt[i].name, "softirq_entry"))
			continue;
		while ((p = strchr(p, '{'))) {
			char *e;
			uint64_t v = num_u(++p, &e, 10);

			if (e == p || v != (uint64_t)vec || strncmp(e, ", \"", 3))
				continue;
			q = strchr(e + 3, '"');
			if (q && q - e - 3 < 16) {
				sfmt(s, n, "%.*s", (int)(q - e - 3), e + 3);
				return;
			}
		}
	}
	sfmt(s, n, "vec%d", vec);
}

/* The counters of (cpu, soft, irq), made if new and make; NULL if there
 * are none (the table is full, or not make). */
static struct irq_stat *irq_stat(int cpu, bool soft, int irq, bool make)
{
	uint32_t h = ((uint32_t)irq * 2654435761u ^ (uint32_t)cpu * 40503u ^ soft) & (IRQ_STATS - 1);

	for (int n = 0; G.m.irqs && n < IRQ_STATS; n++, h = (h + 1) & (IRQ_STATS - 1)) {
		struct irq_stat *s = &G.m.irqs[h];

		if (s->irq == irq && s->cpu == cpu && s->soft == soft)
			return s;
		if (s->irq < 0 && !make)
			return NULL;
		if (s->irq < 0) {
			*s = (struct irq_stat){ .irq = irq, .cpu = cpu, .soft = soft };
			return s;
		}
	}
	G.m.irq_full += make;
	return NULL;
}

/* The name of an interrupt of CPU cpu as its row says it (state: the IRQ
 * number, or -1 - the softirq vector): the handler's, or the vector's. */
static void irq_name(int cpu, int state, char *s, size_t n)
{
	const struct irq_stat *q = state >= 0 ? irq_stat(cpu, false, state, false) : NULL;

	if (state < 0)
		softirq_name(-1 - state, s, n);
	else
		sfmt(s, n, "%s", q && q->name[0] ? q->name : "?");
}

/* Why a row is unknown, from the aux of its unknown interval (UNK_AUX): a
 * word (--states) or a phrase (the view's readouts), with what the gap log
 * still holds of the gap. */
static void unk_text(int32_t aux, bool word, char *s, size_t n)
{
	static const char *const text[][2] = {
		{ "unseen", "no event of it yet" }, { "missing", "a switch the kernel left out" },
		{ "gap", "events lost, or a pause" }, { "paused", "recording paused" }, { "lost", "events lost" },
		{ "late", "its CPU's records came after newer ones" },
		{ "untraced", "a CPU's records had not begun, or had ended" },
		{ "sampled", "" },
		{ "per_task", "recorded per task (perf record without -a)" },
		{ "some_cpus", "recorded on some CPUs (-C): it may run on the others" },
		{ "filtered", "recorded with --filter: events may be left out" },
		{ "woken", "woken as it went to sleep, sched_wakeup not recorded: runnable or asleep" },
	};
	uint32_t g = (uint32_t)aux >> 3;
	uint64_t full = G.m.gaps - ((G.m.gaps - g) & 0xffffff);	/* the gap's number */
	const struct gaplog *l = &G.m.gapv[full % GAP_LOG];
	int k = (aux & 7) == UNK_UNSEEN ? 0 : (aux & 7) == UNK_MISSING ? 1 : (aux & 7) == UNK_UNTRACED ? 6 :
		(aux & 7) == UNK_PERTASK ? 8 : (aux & 7) == UNK_CPUS ? 9 : (aux & 7) == UNK_FILTER ? 10 :
		(aux & 7) == UNK_WOKEN ? 11 :
		G.m.gaps - full >= GAP_LOG ? 2 : l->sampled ? 7 : !l->lost ? (l->cpu < 0 ? 3 : 5) : 4;

	if (k == 7 && !word)
		sfmt(s, n, "events of cpu%d the recording sampled out (perf record -F or -c)", l->cpu);
	else if (k == 4 && !word && l->cpu >= 0)
		sfmt(s, n, "%" PRIu64 " events lost on cpu%d", l->lost, l->cpu);
	else if (k == 4 && !word)
		sfmt(s, n, "%" PRIu64 " events lost", l->lost);
	else
		sfmt(s, n, "%s", text[k][!word]);
}

/* The task tid, or NULL. */
static struct task *task_find(int tid)
{
	if (!G.m.task_slot || tid <= 0 || tid > PID_MAX || !G.m.task_slot[tid])
		return NULL;
	return &G.m.task[G.m.task_slot[tid] - 1];
}

/* The task tc believes running on CPU c, or NULL (the idle task, none
 * known, or one whose run there has ended). */
static struct task *cpu_running(int c)
{
	const struct cpu *cp = &G.m.cpu[c];
	struct task *cur = cp->cur > 0 ? task_find(cp->cur) : NULL;

	return cur && cur->state == ST_RUNNING && cur->run_cpu == c ? cur : NULL;
}

#define UNTOLD (1u << ST_UNKNOWN | 1u << ST_DEAD)	/* the states G.m.told leaves out */

/* Slot i's task is in state st now: its bit in G.m.told. */
static inline void task_told(size_t i, int st)
{
	uint64_t b = 1ULL << (i & 63), *w = &G.m.told[i >> 6];

	*w = st != ST_UNKNOWN && st != ST_DEAD ? *w | b : *w & ~b;
}

/*
 * The victim when the task table is full (task_add): the exited task seen
 * longest ago, else the task seen longest ago, not running; the first
 * slot of those.  Found in a tournament tree over the slots (G.m.vic.tree:
 * node k holds the smaller of its children's, leaves at n + slot) by a
 * key per slot (G.m.vic.key: live 0 exited, 1 not, 2 never; then last seen)
 * that may be lower than the task's own but never above it: a key only
 * grows as the task is seen again, and where it falls (it exits, a record
 * older than its last one names it, the slot takes a new task) task_vkey
 * puts it in at once.  So the root's slot is the victim if its key is
 * its task's; else its key is put in and the root looked at again.
 * Running tasks are set aside (key 2) for the search.  Built at the first
 * eviction: a scan of every task for each one took 95% of a replay of
 * 40,000 short-lived processes (1.4 s).
 */

/* Does slot a's key come before slot b's? */
static bool vkey_less(int a, int b)
{
	const struct victim_key *x = &G.m.vic.key[a], *y = &G.m.vic.key[b];

	return x->live != y->live ? x->live < y->live : x->seen != y->seen ? x->seen < y->seen : a < b;
}

/* Node n of the tree: the smaller of its children's slots. */
static void vtree_node(int n)
{
	int a = G.m.vic.tree[2 * n], b = G.m.vic.tree[2 * n + 1];

	G.m.vic.tree[n] = vkey_less(a, b) ? a : b;
}

/* Slot i's key is k now: its leaf and the path to the root, up to a node
 * that holds another slot than i before and after (the nodes above it
 * compare the same keys as before). */
static void vkey_put(int i, struct victim_key k)
{
	G.m.vic.key[i] = k;
	for (int n = (G.m.vic.n + i) / 2; n; n /= 2) {
		int was = G.m.vic.tree[n];

		vtree_node(n);
		if (was != i && G.m.vic.tree[n] == was)
			break;
	}
}

/* Slot i's key as its task has it. */
static struct victim_key vkey_of(int i)
{
	const struct task *t = &G.m.task[i];

	return (struct victim_key){ t->last_seen, t->state != ST_DEAD };
}

/* Slot i's task was seen earlier than its key, or exited, or is new:
 * its key falls (while the tree is on). */
static void task_vkey(int i)
{
	if (G.m.vic.tree)
		vkey_put(i, vkey_of(i));
}

/* Every slot's key from its task (a slot without one: never), the tree
 * made anew: at the first eviction (allocated then), and for the tasks a
 * checkpoint brings back. */
static void vtree_build(void)
{
	if (!G.m.vic.tree) {
		for (G.m.vic.n = 1; G.m.vic.n < TC_MAX_TASKS; G.m.vic.n *= 2)
			;
		G.m.vic.key = xcalloc(G.m.vic.n, sizeof(*G.m.vic.key) + sizeof(int));	/* (and task_victim's aside) */
		G.m.vic.tree = xcalloc(2 * G.m.vic.n, sizeof(int));
	}
	for (int i = 0; i < G.m.vic.n; i++) {
		G.m.vic.key[i] = i < G.m.ntask ? vkey_of(i) : (struct victim_key){ 0, 2 };
		G.m.vic.tree[G.m.vic.n + i] = i;
	}
	for (int n = G.m.vic.n - 1; n; n--)
		vtree_node(n);
}

/* task_add's victim (see above): its slot. */
static int task_victim(void)
{
	int *aside, na = 0, v;

	if (!G.m.vic.tree)
		vtree_build();
	aside = (int *)(G.m.vic.key + G.m.vic.n);
	for (;;) {
		struct victim_key k;

		v = G.m.vic.tree[1];
		if (G.m.vic.key[v].live == 2) {	/* all running */
			v = 0;
			break;
		}
		k = vkey_of(v);
		if (k.seen != G.m.vic.key[v].seen || k.live != G.m.vic.key[v].live)
			vkey_put(v, k);	/* seen since, or back from exited: its key now */
		else if (G.m.task[v].state == ST_RUNNING)
			vkey_put(aside[na++] = v, (struct victim_key){ 0, 2 });
		else
			break;
	}
	while (na--)
		vkey_put(aside[na], vkey_of(aside[na]));
	return v;
}

/* task_get's new task tid (a slot of its own, else the victim's). */
static __attribute__((noinline)) struct task *task_add(int tid, uint64_t time, bool *created)
{
	int slot;
	struct task *t;

	if (G.m.ntask < TC_MAX_TASKS) {
		slot = G.m.ntask++;
	} else {
		slot = task_victim();
		G.m.task_slot[G.m.task[slot].tid] = 0;
		G.m.evicted_tasks++;
	}
	t = &G.m.task[slot];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = -1;
	t->cpu = -1;
	t->waker = -1;
	t->run_cpu = -1;
	t->state = ST_UNKNOWN;
	task_told(slot, ST_UNKNOWN);
	t->since = t->first_seen = t->last_seen = time;
	t->last_ival = t->last_iival = NO_IVAL;
	task_vkey(slot);
	G.m.task_slot[tid] = slot + 1;
	if (created)
		*created = true;
	return t;
}

/* The task tid, created (unknown, seen at time) if new; NULL for a tid
 * out of range or 0 (the idle tasks, which CPU rows account). */
HOT struct task *task_get(int tid, uint64_t time, bool *created)
{
	struct task *t;
	bool back;

	if (created)
		*created = false;
	if (tid <= 0 || tid > PID_MAX) {
		G.m.bad_pid += tid != 0;
		return NULL;
	}
	if (!G.m.task_slot[tid])
		return task_add(tid, time, created);
	t = &G.m.task[G.m.task_slot[tid] - 1];
	back = time < t->last_seen;
	t->last_seen = time;
	if (back)
		task_vkey(t - G.m.task);	/* its key falls */
	return t;
}

/* Name t from an event's comm field if it has no name yet. */
static void task_name(struct task *t, const char *comm)
{
	if (!t->comm[0])
		scopy(t->comm, sizeof(t->comm), comm);
}

/* -I: add to io_wait the time up to time that t spent in its current state,
 * if that is a waiting one (runnable, sleeping, blocked), inside its call. */
static void task_io_wait(struct task *t, uint64_t time)
{
	uint64_t from = t->io_start > t->since ? t->io_start : t->since;

	if (t->in_io && t->state >= ST_RUNNABLE && t->state <= ST_BLOCKED && time > from)
		t->io_wait += time - from;
}

/* Close t's current state at time and enter state st (also the same
 * one: the end).  Inside a CPU's loss (before G.m.hole_until), or while a
 * CPU runs with its tracepoints not on yet or its ring's records not
 * begun or ended (G.m.untraced, G.m.ow_end), a task not running enters
 * unknown instead: the missing records may wake it, run it on that CPU,
 * or put it to sleep.  So does any state a recording of some tasks or
 * CPUs, or with filters, cannot know (G.m.part). */
HOT void task_set(struct task *t, int st, uint64_t time)
{
	if (st >= ST_RUNNABLE && st <= ST_BLOCKED &&
	    (time < G.m.hole_until || G.m.untraced || (G.m.ow_end && time >= G.m.ow_end))) {
		st = ST_UNKNOWN;
		t->unk_aux = !G.m.untraced && time < G.m.hole_until ? G.m.hole_aux : UNK_AUX(UNK_UNTRACED, 0);
	}
	if (G.m.part && st != ST_DEAD &&
	    (st != ST_RUNNING || G.m.part == PART_NONE || (G.m.part == PART_TASKS && !t->ctx))) {
		st = ST_UNKNOWN;	/* above model_evidence */
		t->unk_aux = UNK_AUX(part_unk[G.m.part], 0);
	}
	t->stated = true;
	if (time > t->since) {
		task_io_wait(t, time);
		if (t->state == ST_RUNNING && t->run_cpu >= 0)
			G.m.cpu[t->run_cpu].task_run += time - t->since;
		if (t->state == ST_RUNNING && t->run_initial)
			t->initial += time - t->since;
		t->total[t->state] += time - t->since;
		if (t->state != ST_DEAD)
			ival_add(&t->last_ival, t - G.m.task, t->state, t->state == ST_RUNNABLE ? t->waker :
				 t->state == ST_UNKNOWN ? t->unk_aux : -1, t->since, time);
		t->since = time;
	}
	if (st == ST_RUNNABLE && t->state != ST_RUNNABLE)
		t->wait_start = time;
	if (st != ST_RUNNING)
		t->run_initial = false;
	if (!FAST || ((UNTOLD >> st ^ UNTOLD >> t->state) & 1))
		task_told(t - G.m.task, st);	/* (the fast build: only where it changes) */
	t->state = st;
	if (st == ST_DEAD)
		task_vkey(t - G.m.task);	/* exited: its key falls */
}

/* t is unknown from time on, for the reason aux (UNK_AUX). */
static void task_unknown(struct task *t, uint64_t time, int32_t aux)
{
	task_set(t, ST_UNKNOWN, time);
	t->unk_aux = aux;
}

/* Close CPU c's idle state at time; state (-1: none) starts. */
static void cpu_cstate(int c, int64_t state, uint64_t time)
{
	struct cpu *p = &G.m.cpu[c];

	if (G.m.part == PART_NONE)
		state = -1;	/* cpu_idle may be filtered */
	if (p->cstate >= 0) {
		ival_add(&p->last_cival, -1 - c, p->cstate, -1, p->cstate_since, time);
		if (time > p->cstate_since)
			p->cstate_ns[p->cstate < 9 ? p->cstate : 9] += time - p->cstate_since;
	}
	p->cstate = state;
	p->cstate_since = time;
}

/* Close CPU c's running task at time and make tid (0 idle, -1 unknown)
 * current.  A task running ends an idle state whose exit was not seen:
 * at the idle task's last evidence.  With a filter on sched_switch
 * (PART_NONE) the CPU is unknown instead (tid -2 inside). */
HOT void cpu_set(int c, int tid, uint64_t time)
{
	struct cpu *p = &G.m.cpu[c];

	if (G.m.part == PART_NONE && tid >= 0) {	/* a switch may be filtered */
		if (p->cur < 0 && p->unk_aux == UNK_AUX(UNK_FILTER, 0))
			return;	/* so since one before */
		tid = -2;
	}
	if (tid > 0 && p->cstate >= 0)
		cpu_cstate(c, -1, p->cur == 0 && p->cur_last > p->cstate_since ? p->cur_last : p->cstate_since);

	if (p->cur >= 0 && time > p->since) {
		if (p->cur)
			p->busy += time - p->since;
		else
			p->idle += time - p->since;
		ival_add(&p->last_ival, -1 - c, p->cur, -1, p->since, time);
	} else if (p->cur < 0 && p->since && time > p->since) {
		ival_add(&p->last_ival, -1 - c, -1, p->unk_aux, p->since, time);
	}
	p->cur = tid < 0 ? -1 : tid;
	p->idle_exit = false;
	if (time > p->since || tid < 0)
		p->since = time;
	if (tid == -2)
		p->unk_aux = UNK_AUX(UNK_FILTER, 0);
}

/* CPU c is unknown from time on, for the reason aux (UNK_AUX). */
static void cpu_unknown(int c, uint64_t time, int32_t aux)
{
	cpu_set(c, -1, time);
	G.m.cpu[c].unk_aux = aux;
}

/* Close CPU c's frequency at time; khz (-1: unknown) starts. */
static void cpu_freq(int c, int64_t khz, uint64_t time)
{
	struct cpu *p = &G.m.cpu[c];

	if (p->freq >= 0 && time > p->freq_since) {
		ival_add(&p->last_fival, -1 - c, p->freq, -1, p->freq_since, time);
		p->freq_ns += time - p->freq_since;
		p->freq_sum += (uint64_t)p->freq * (time - p->freq_since);
	}
	if (khz > G.m.freq_max)
		G.m.freq_max = khz;
	if (khz > p->freq_max)
		p->freq_max = khz;
	p->freq = khz;
	p->freq_since = time;
}

/* The state a switched-out task is in, from prev_state. */
static int model_prev_state(int64_t prev_state)
{
	int64_t s = prev_state & 0xff;	/* the state bits; higher: preempted */

	if (s == 0)
		return ST_RUNNABLE;
	if (s & 2)
		return ST_BLOCKED;
	return ST_SLEEPING;
}

/*
 * Interrupts (-Q).  Per CPU the hardirq and the softirq running: a hardirq
 * may come inside a softirq, nothing else nests.  Their time goes to the
 * CPU (a softirq's less the hardirqs inside it), to the IRQ's or vector's
 * counters on that CPU, and to the task running there (its irq_ns: the
 * part of its run time the interrupts took).  An entry while one of its
 * kind is open, or an exit without its entry, means records were lost:
 * the open one is dropped, its time unknown (irq_lost).  A gap drops what
 * is open on its CPUs; the end closes it at the last event.
 *
 *   cpu0   task A runs .....[softirq NET_RX ....[irq 24 eth0]....]......
 *          irq_ns += irq 24; softirq_ns += NET_RX less irq 24; A.irq_ns += both
 */

static void lat_irq(int c, int state, int tid, uint64_t start, uint64_t end);

/* An interrupt of CPU c ran [start, end) (its own time ns) on top of task
 * tid (the record's): count it, and charge that task when the model has
 * it running on c (else the model's run would not hold the time).  Its
 * interval on the CPU's interrupt row: state the IRQ or -1 - the vector,
 * aux the task it came on top of. */
static void irq_done(int c, int tid, bool soft, int irq, int slot, uint64_t start, uint64_t end, uint64_t ns)
{
	struct cpu *cp = &G.m.cpu[c];
	struct irq_stat *s = slot >= 0 ? &G.m.irqs[slot] : irq_stat(c, soft, irq, true);
	struct task *p = cpu_running(c);

	*(soft ? &cp->softirq_ns : &cp->irq_ns) += ns;
	if (p && p->tid == tid)
		p->irq_ns += ns;
	if (s) {
		s->count++;
		s->ns += ns;
		if (ns > s->max)
			s->max = ns;
	}
	ival_add(&cp->last_qival, -1 - c, soft ? -1 - irq : irq, tid, start, end);
	lat_irq(c, soft ? -1 - irq : irq, tid, start, end);
}

/* Drop what runs in interrupts on CPU c (a gap: its time is unknown);
 * with end, close it at end instead (the end of the trace). */
static void irq_close(int c, uint64_t end)
{
	struct cpu *cp = &G.m.cpu[c];

	if (cp->hirq >= 0 && end) {
		irq_done(c, cp->cur, false, cp->hirq, cp->hirq_slot, cp->hirq_since, end, end - cp->hirq_since);
		cp->sirq_nested += end - cp->hirq_since;
	}
	if (cp->sirq >= 0 && end)
		irq_done(c, cp->cur, true, cp->sirq, -1, cp->sirq_since, end, end - cp->sirq_since - cp->sirq_nested);
	G.m.irq_lost += !end * ((cp->hirq >= 0) + (cp->sirq >= 0));
	cp->hirq = cp->sirq = -1;
}

/* irq_handler_entry/exit, softirq_entry/exit e on CPU c at t. */
static void model_irq(const struct ev *e, int c, uint64_t t)
{
	struct cpu *cp = &G.m.cpu[c];
	struct irq_stat *s;

	switch (e->kind) {
	case EV_IRQ:
		G.m.irq_lost += cp->hirq >= 0;	/* its exit was lost */
		cp->hirq = e->a;
		cp->hirq_since = t;
		s = irq_stat(c, false, e->a, true);
		cp->hirq_slot = s ? (int32_t)(s - G.m.irqs) : -1;
		if (s && e->comm[0])
			scopy(s->name, sizeof(s->name), e->comm);
		break;
	case EV_IRQ_EXIT:
		if (cp->hirq != e->a) {
			G.m.irq_lost++;		/* its entry was lost */
			break;
		}
		irq_done(c, e->tid, false, e->a, cp->hirq_slot, cp->hirq_since, t, t - cp->hirq_since);
		if (cp->sirq >= 0)
			cp->sirq_nested += t - cp->hirq_since;
		cp->hirq = -1;
		break;
	case EV_SOFTIRQ:
		G.m.irq_lost += cp->sirq >= 0;
		cp->sirq = e->a;
		cp->sirq_since = t;
		cp->sirq_nested = 0;
		break;
	case EV_SOFTIRQ_EXIT:
		if (cp->sirq != e->a) {
			G.m.irq_lost++;
			break;
		}
		irq_done(c, e->tid, true, e->a, -1, cp->sirq_since, t, t - cp->sirq_since - cp->sirq_nested);
		cp->sirq = -1;
		break;
	}
}

/* Log a gap at time at: lost events lost of CPU cpu (-1: any), 0 for a
 * pause.  Returns the aux of what it makes unknown. */
static int32_t model_gap_log(uint64_t at, uint64_t lost, int cpu)
{
	G.m.gapv[++G.m.gaps % GAP_LOG] = (struct gaplog){ at, lost, cpu, false };
	return UNK_AUX(UNK_GAP, G.m.gaps);
}

/* A gap in the events (lost events of no known CPU, a pause): every open
 * state closes at the last event before it and is unknown from then on. */
static void model_gap(uint64_t at, uint64_t lost)
{
	uint64_t t = G.m.last;
	int32_t aux = model_gap_log(at, lost, -1);

	for (int i = 0; i < G.m.ntask; i++) {
		if (G.m.task[i].state != ST_DEAD)
			task_unknown(&G.m.task[i], t, aux);
		G.m.task[i].in_io = G.m.task[i].wk_pending = false;
		G.m.task[i].run_cpu = -1;
	}
	for (int c = 0; c < G.m.ncpu; c++) {
		G.m.cpu[c].gap = true;
		irq_close(c, 0);
		cpu_unknown(c, t, aux);
		cpu_cstate(c, -1, t);
		cpu_freq(c, -1, t);
	}
}

/*
 * The kernel lost records of CPU c's ring (a LOST record, sorted where the
 * loss began: see mq_put), or c's records came after newer ones (lost 0):
 * c's events since its newest record (since from, if not 0) are missing.
 * Unknown from then on:
 * what ran on c, every runnable task (c may have pulled it), and every
 * sleeping or blocked task (a wakeup is recorded on the waker's CPU, so
 * its wakeup may be among the lost).  Tasks running on the other CPUs
 * stand: their switches are in their own, complete rings.
 *
 *   cpu0  --a--b--c--d--e--f--      complete: its running task stands
 *   cpu1  --x--y|.........|LOST--   lost: unknown from y
 */
static void model_gap_cpu(int c, uint64_t at, uint64_t lost, uint64_t from)
{
	struct cpu *cp = &G.m.cpu[c];
	int32_t aux = model_gap_log(at, lost, c);

	from = from ? from : cp->last_t ? cp->last_t : G.m.first;
	if (lost && at > G.m.hole_until) {	/* the LOST record is stamped at the loss's end */
		G.m.hole_until = at;
		G.m.hole_aux = aux;
	}
	for (int i = 0; i < G.m.ntask; i++) {	/* the told ones (G.m.told), in slot order */
		uint64_t bits = G.m.told[i >> 6] >> (i & 63);
		struct task *p;

		if (!bits) {
			i |= 63;	/* none in the rest of its word */
			continue;
		}
		p = &G.m.task[i += __builtin_ctzll(bits)];
		if (p->state == ST_RUNNING && p->run_cpu != c)
			continue;	/* a runnable task may have been pulled to c */
		task_unknown(p, from > p->since ? from : p->since, aux);
		p->in_io = p->wk_pending = false;
		p->run_cpu = -1;
		p->lost_gaps++;
	}
	cp->gap = true;
	irq_close(c, 0);
	cpu_unknown(c, from > cp->since ? from : cp->since, aux);	/* never back in time */
	cpu_cstate(c, -1, from > cp->cstate_since ? from : cp->cstate_since);
	cpu_freq(c, -1, from > cp->freq_since ? from : cp->freq_since);
}

/* Every task waiting (runnable, sleeping, blocked) is unknown from off on
 * (untraced): a CPU whose records ended, or had not begun, may have woken
 * or run it (model_unrecorded's G.m.ow_end, model_end_offs). */
static void model_untraced(uint64_t off)
{
	for (int i = 0; i < G.m.ntask; i++)
		if (G.m.task[i].state >= ST_RUNNABLE && G.m.task[i].state <= ST_BLOCKED)
			task_unknown(&G.m.task[i], off, UNK_AUX(UNK_UNTRACED, 0));
}

/* G.m.unrec_at once the stretches or the next of them changed: the next
 * one's start, or the first CPU's end in rings that overwrite before it. */
static void model_unrec_at(void)
{
	G.m.unrec_at = G.m.unrec_next < G.m.nunrec ? G.m.unrec[G.m.unrec_next].from : UINT64_MAX;
	if (G.m.ow_end && !G.m.ow_ended && G.m.ow_end < G.m.unrec_at)
		G.m.unrec_at = G.m.ow_end;
}

/*
 * Events a sampled tracepoint (struct attr's sampled) left out: perf
 * counts a tracepoint's events per CPU and records one when the count
 * reaches the period, which the record carries; the events before it,
 * after the CPU's previous record of that kind, are not in the trace.  A
 * file is scanned for them first (rd_unrec_scan: G.m.unrec), and each
 * such stretch makes its CPU unknown from its start on, as lost records
 * do (model_gap_cpu), before any later event is applied; a task's
 * state set inside it is unknown (G.m.hole_until), and a record there of
 * a task running on that CPU is no switch-in (unrec_until): no state is
 * claimed across it.  The gap says why (gaplog's sampled).  After a
 * tracepoint's last record on a CPU its count may not have reached the
 * period again: where one of its records stood for more than one event,
 * the rest of the trace is such a stretch too (to UINT64_MAX, n 0).
 * model_pre calls this when t passes G.m.unrec_at (0 at first: the next
 * stretch is to be found), which it moves on.  It also makes the tasks
 * not running unknown when t passes the first CPU's end in rings that
 * overwrite (G.m.ow_end, see model_cover).
 *
 *   cpu0  --switch(1)--wakeup--wakeup--switch(3)--   2 switches left out:
 *              ^ unknown from here
 */
NOINL void model_unrecorded(uint64_t t)
{
	if (G.m.ow_end && t > G.m.ow_end && !G.m.ow_ended) {	/* see model_cover */
		G.m.ow_ended = true;
		model_untraced(G.m.ow_end);
	}
	while (G.m.unrec_next < G.m.nunrec && G.m.unrec[G.m.unrec_next].from < t) {
		const struct unrec *u = &G.m.unrec[G.m.unrec_next++];

		if (u->cpu < 0 || u->cpu >= G.m.ncpu)
			continue;
		if (u->to > G.m.cpu[u->cpu].unrec_until)
			G.m.cpu[u->cpu].unrec_until = u->to;
		model_gap_cpu(u->cpu, u->to != UINT64_MAX ? u->to : u->from, u->n, u->from);
		G.m.gapv[G.m.gaps % GAP_LOG].sampled = !u->lost;
		if (u->to > G.m.hole_until) {
			G.m.hole_until = u->to;
			G.m.hole_aux = UNK_AUX(UNK_GAP, G.m.gaps);
		}
	}
	model_unrec_at();
}

/* A record of a stream whose tracepoints were sampled (pipe mode: not
 * scanned first), where what was left out is known only at a sampled
 * tracepoint's next record: its CPU is unknown from e on (e applied),
 * every time (ev_unrecorded). */
NOINL void model_unplaced(const struct ev *e)
{
	if (e->cpu < 0 || e->cpu >= G.m.ncpu || !e->time || e->time < G.m.last)
		return;
	model_gap_cpu(e->cpu, e->time, 0, e->time);
	G.m.gapv[G.m.gaps % GAP_LOG].sampled = true;
}

/* Does the data record tracepoint kind (has it an attr of it)?  Only then
 * does a missing record of that kind say something. */
static bool model_traced(int kind)
{
	for (int i = 0; i < G.ev.nattr; i++)
		if (G.ev.attr[i].kind == kind)
			return true;
	return false;
}

/* Is c a CPU number of the model?  Counts the ones that are not. */
static bool model_cpu_ok(int c)
{
	if (c >= 0 && c < G.m.ncpu)
		return true;
	G.bad.cpu++;
	return false;
}

/* Task p, believed running on CPU p->run_cpu, is not (its switch-out is
 * missing): it is unknown from its last evidence there, and so is the CPU. */
static void model_displace(struct task *p)
{
	struct cpu *cp = p->run_cpu >= 0 ? &G.m.cpu[p->run_cpu] : NULL;
	uint64_t last = cp && cp->cur == p->tid ? cp->cur_last : p->since;

	if (cp && cp->cur == p->tid)
		cpu_unknown(p->run_cpu, last, UNK_AUX(UNK_MISSING, 0));
	task_unknown(p, last, UNK_AUX(UNK_MISSING, 0));
	if (cp)
		cp->missing_out++;
	p->run_cpu = -1;
	p->missing_out++;
	G.m.missing_out++;
}

/* A switch happened on CPU c, or a record names another task there:
 * whatever tc believed running there (the idle task too) ends at its last
 * evidence, and the CPU is unknown from then on. */
static void model_end_cur(int c)
{
	struct cpu *cp = &G.m.cpu[c];
	struct task *cur = cpu_running(c);

	if (cur)
		model_displace(cur);
	else if (cp->cur >= 0)
		cpu_unknown(c, cp->cur_last > cp->since ? cp->cur_last : cp->since, UNK_AUX(UNK_MISSING, 0));
}

/*
 * A record on CPU c at t says tid (0: the idle task; p its task) runs
 * there, and tc believed otherwise (see "evidence" above).  After a gap,
 * or at the CPU's first record, nothing was believed there: not counted
 * as a missing switch.
 */
static void model_infer_run(int c, int tid, struct task *p, uint64_t t)
{
	struct cpu *cp = &G.m.cpu[c];
	bool first = cp->cur < 0 && !cp->since, missed = cp->cur >= 0 && !cp->gap;

	if (missed && p) {
		p->inferred++;
		G.m.inferred++;
		cp->inferred++;
		cp->inferred_idle += cp->cur == 0;
	}
	model_end_cur(c);
	if (p) {
		if (p->state == ST_RUNNING)
			model_displace(p);
		else if (p->state != ST_UNKNOWN && p->state != ST_DEAD)
			task_unknown(p, p->since, missed ? UNK_AUX(UNK_MISSING, 0) : UNK_AUX(UNK_GAP, G.m.gaps));
		task_set(p, ST_RUNNING, t);
		p->run_cpu = p->cpu = c;
		p->run_initial = first;
		p->switches++;
	}
	cpu_set(c, tid, t);
	cp->cur_last = t;
}

/*
 * Task p, switched in, has been unknown (woken) since a switch-out S or D
 * while a wakeup of it was open, in a recording without sched_wakeup (see
 * "wakeups"), and no sched_waking of it came since: a sleeping task needs
 * one to run again, so p was woken after its dequeue and runnable since.
 * (A waking says nothing: it may be of p back on a CPU by a switch-in the
 * kernel left out, on its way to sleep again.)
 */
static void model_woken_runnable(struct task *p)
{
	p->waker = p->wk_waker;
	p->wakeups++;
	p->wait_start = p->since;
	p->state = ST_RUNNABLE;
	task_told(p - G.m.task, ST_RUNNABLE);
}

/* sched_switch on CPU c (checked) at time t: prev leaves with the state its
 * prev_state says, or runnable if a wakeup was open; next runs; the CPU
 * runs next. */
static void model_switch(const struct ev *e, uint64_t t)
{
	int c = e->cpu, st;
	struct cpu *cp = &G.m.cpu[c];
	struct task *p = task_get(e->a, t, NULL), *n;

	cp->sw_next = e->b;
	cp->sw_t = t;
	if (p) {
		task_name(p, e->comm);
		p->ctx = true;
	}
	if (p || e->a == 0) {
		if ((cp->cur != e->a || (p && (p->state != ST_RUNNING || p->run_cpu != c))) && G.m.part != PART_NONE)
			model_infer_run(c, e->a, p, t);	/* prev ran here at the switch-out only */
	} else {
		model_end_cur(c);	/* prev is no valid pid */
	}
	if (p) {
		/* exited: X or Z at its last switch, or TASK_DEAD on old kernels
		 * (0x40, now P, parked) once its exit was seen */
		st = e->v & 0x30 || (p->exited && (e->v & 0x70)) ? ST_DEAD : model_prev_state(e->v);
		bool woken = p->wk_pending && (st == ST_SLEEPING || st == ST_BLOCKED);
		bool open = woken && !model_traced(EV_WAKEUP);	/* no sched_wakeup to close it */

		if (woken && !open) {
			p->waker = p->wk_waker;		/* woken after its dequeue */
			p->wakeups++;
			st = ST_RUNNABLE;
		} else if (st == ST_RUNNABLE) {
			p->waker = -1;	/* preempted, not woken */
		}
		p->wk_pending = false;
		task_set(p, st, t);
		if (open && p->state == st)	/* see "wakeups" */
			task_unknown(p, t, UNK_AUX(UNK_WOKEN, 0));
		p->run_cpu = -1;
		p->cpu = c;
	}
	if ((n = task_get(e->b, t, NULL))) {
		task_name(n, e->comm2);
		if (n->state == ST_UNKNOWN && n->unk_aux == UNK_AUX(UNK_WOKEN, 0))
			model_woken_runnable(n);
		if (n->state == ST_RUNNING)	/* its switch-out is missing */
			model_displace(n);
		else if (n->state == ST_SLEEPING || n->state == ST_BLOCKED)	/* its wakeup is missing */
			task_unknown(n, n->since, UNK_AUX(UNK_MISSING, 0));
		lat_wait_end(n, n->wait_start, t, c);
		if (n->state == ST_RUNNABLE && t - n->wait_start > n->max_delay)
			n->max_delay = t - n->wait_start;
		n->wk_pending = false;
		task_set(n, ST_RUNNING, t);
		n->cpu = n->run_cpu = c;
		n->switches++;
	}
	cpu_set(c, e->b >= 0 && e->b <= PID_MAX ? e->b : -1, t);
	if (G.m.part == PART_TASKS && !(n && n->ctx))	/* its switch-out will not be recorded */
		cpu_unknown(c, t, UNK_AUX(UNK_PERTASK, 0));
	cp->cur_last = t;
	cp->gap = false;
	cp->seen = true;
	cp->switches++;
}

/*
 * Recorded per task (PART_TASKS: perf record CMD or -p without -a): the
 * events are those in the context of the traced tasks (a process and the
 * tasks it forks: inherit).  A record names one (a tracepoint's tid, a
 * switch's prev, a fork's child: ctx, set on every task so named, read
 * only then), whose runs tc may claim: each ends in a switch of its own,
 * always recorded, and begins at a switch from a traced task or at the
 * task's first record on the CPU.  Its sleeps and waits are unknown: a
 * wakeup or a switch-in by an untraced task is not recorded, and a sleep
 * may have ended long before the next record says so.  Any other task,
 * and a CPU that runs one or the idle task, are unknown (task_set,
 * model_switch): their switches, wakeups and idle states are not recorded.
 *
 * Recorded on some CPUs (PART_CPUS: perf record -C, tc -C): every event
 * of those CPUs is there, so their rows and each task's runs on them are
 * known (a run begins and ends in a switch there); a task not running on
 * them is unknown: it may be woken, run or sleep on another CPU unseen.
 * The same holds when a filter left wakeups out (PART_RUNS).  A filter on
 * sched_switch (or on any other event: PART_NONE) may leave out any
 * switch, so that no run, no CPU's task and no idle state is known
 * (cpu_set, cpu_cstate); only who exited is.
 */

/* A record on CPU c at time t whose task is tid (0: the idle task): tid
 * runs there then (see "evidence" above).  A side-band record (COMM, FORK,
 * EXIT, its sample_id naming the task current on c) before c's tracepoints
 * are seen on says nothing of c (a switch there may have gone unrecorded),
 * only that the task was not where else tc believed it. */
static void model_evidence(int c, int tid, uint64_t t, bool sideband)
{
	struct cpu *cp = &G.m.cpu[c];
	struct task *p = NULL;

	if (tid > 0 && !(p = task_get(tid, t, NULL)))
		return;
	if (p && !sideband)
		p->ctx = true;
	if (G.m.part == PART_NONE)
		return;	/* no CPU's task is known: nothing to infer */
	if (sideband && !cp->traced) {
		G.m.untraced += !cp->sideband;
		cp->sideband = true;
		if (p && p->state == ST_RUNNING)
			model_displace(p);
		else if (p && p->state != ST_UNKNOWN && p->state != ST_DEAD)
			task_unknown(p, p->since, UNK_AUX(UNK_MISSING, 0));
		return;
	}
	if (cp->cur == tid && (!p || (p->state == ST_RUNNING && p->run_cpu == c)))
		cp->cur_last = t;
	else if (t >= cp->unrec_until)	/* inside, a switch after t may be left out */
		model_infer_run(c, tid, p, t);
}

/* A wakeup (sched_waking, sched_wakeup, sched_wakeup_new) of e->a at t:
 * the rules under "wakeups" above. */
static void model_wake(const struct ev *e, uint64_t t)
{
	struct task *n;

	if (!(n = task_get(e->a, t, NULL)))
		return;
	task_name(n, e->comm);
	if (e->kind == EV_WAKING && n->state == ST_RUNNABLE && n->waker != -1 && !n->wk_pending) {
		/* sched_waking needs a sleeping task: one woken and not seen
		 * running since ran and slept on switches the kernel did not
		 * report; since that wakeup (kept for the chain) it is
		 * unknown, and runnable again now.  (One preempted on its way
		 * to sleep is queued asleep, and may be woken: it stays.) */
		task_unknown(n, n->since, UNK_AUX(UNK_MISSING, 0));
		n->inferred++;
		G.m.inferred++;
		G.m.inferred_woken++;
	}
	if (e->kind == EV_WAKEUP && (n->state == ST_SLEEPING || n->state == ST_BLOCKED) &&
	    model_traced(EV_WAKING))
		/* its sched_waking, recorded and always first, is missing (the
		 * start of a window, a loss): it may have come before the
		 * switch-out, woken after its dequeue and runnable since */
		task_unknown(n, n->since, UNK_AUX(UNK_MISSING, 0));
	if (n->state == ST_SLEEPING || n->state == ST_BLOCKED || n->state == ST_UNKNOWN) {
		task_set(n, ST_RUNNABLE, t);
		n->wakeups += !(e->kind == EV_WAKEUP && n->wk_pending);	/* unknown still: counted at its waking */
		n->waker = e->flags & TRACE_IRQ_FLAGS ? WAKER_IRQ : e->tid;
		n->wk_waker = n->waker;
	} else if (n->state == ST_RUNNING && e->kind == EV_WAKING) {
		n->wk_waker = e->flags & TRACE_IRQ_FLAGS ? WAKER_IRQ : e->tid;	/* on its way to sleep, maybe */
	}
	n->wk_pending = e->kind == EV_WAKING && !(n->state == ST_RUNNING && e->tid == e->a);	/* open until its sched_wakeup */
	/* for the chain, each wakeup once: a sched_wakeup after its
	 * sched_waking adds nothing, one without it (lost) has no waker
	 * known (its record may be the wakee CPU's, from an IPI) */
	if (e->kind != EV_WAKEUP || !n->wk_seen)
		lat_woken(n, t, e->kind == EV_WAKEUP && model_traced(EV_WAKING) ? -1 :
			  e->flags & TRACE_IRQ_FLAGS ? WAKER_IRQ : e->tid);
	n->wk_seen = e->kind == EV_WAKING;
	if (e->c >= 0 && e->c < G.m.ncpu)
		n->cpu = e->c;
}

/*
 * What every event gets before its own rule: names (COMM, also of tasks
 * synthesized at time 0), the first event's time, an event older than
 * what the model has applied (its CPU is unknown from its last record), a
 * loss (a gap), the CPU's last record and first tracepoint, and what the
 * record tells of the task running on its CPU.  Returns the time the event
 * is applied at, or 0 if it ends here.
 */
static uint64_t model_pre(const struct ev *e)
{
	uint64_t t = e->time;
	struct task *p;

	if (e->kind == EV_COMM) {	/* names, also of synthesized tasks at time 0 */
		if ((p = task_get(e->b, t ? t : G.m.last, NULL))) {
			scopy(p->comm, sizeof(p->comm), e->comm);
			p->pid = e->a;
			p->ctx = true;	/* per task: one of the traced */
		}
	}
	if (!t)
		return 0;
	if (!G.m.first) {	/* tasks named before the first event: unknown from it */
		G.m.first = t;
		for (int i = 0; i < G.m.ntask; i++)
			G.m.task[i].since = G.m.task[i].first_seen = G.m.task[i].last_seen = t;
	}
	if (t < G.m.last && e->kind != EV_LOST) {	/* out of order: counted by the merge */
		/* older than what the model has applied: its CPU is unknown from
		 * its last record (once for a run of them); what it says is not
		 * applied at a time it is not true at */
		if (e->cpu >= 0 && e->cpu < G.m.ncpu && !G.m.cpu[e->cpu].late) {
			model_gap_cpu(e->cpu, G.m.last, 0, 0);
			G.m.cpu[e->cpu].late = true;
		}
		return 0;
	}
	if (e->kind == EV_LOST && e->v > 0 && e->cpu >= 0 && e->cpu < G.m.ncpu && G.rd.lost_scanned)
		return 0;	/* applied where it began (rd_lost_rec); its time is its end */
	if (t < G.m.last)
		t = G.m.last;
	if (t > G.m.unrec_at)
		model_unrecorded(t);
	if (e->cpu >= 0 && e->cpu < G.m.ncpu)
		G.m.cpu[e->cpu].late = false;
	if (e->kind == EV_LOST) {	/* a gap closes at the last event before it */
		if (e->v > 0 && e->cpu >= 0 && e->cpu < G.m.ncpu)
			model_gap_cpu(e->cpu, t, e->v, 0);	/* the kernel lost records of one ring */
		else
			model_gap(t, e->v > 0 ? e->v : 0);	/* a pause, or a loss of unknown place */
		return 0;
	}
	G.m.last = t;
	if (e->cpu >= 0 && e->cpu < G.m.ncpu)
		G.m.cpu[e->cpu].last_t = t;
	if (e->cpu >= 0 && e->cpu < G.m.ncpu && (e->kind < EV_NTP || e->kind == EV_SYS_ENTER || e->kind == EV_SYS_EXIT)) {
		if (!G.m.tp_first)
			G.m.tp_first = t;
		G.m.untraced -= !G.m.cpu[e->cpu].traced && G.m.cpu[e->cpu].sideband;
		if (!G.m.cpu[e->cpu].traced)
			G.m.cpu[e->cpu].first = t;
		G.m.cpu[e->cpu].traced = true;
		G.m.cpu[e->cpu].tp_last = t;
	}
	if (e->kind != EV_SWITCH && e->kind != EV_LOST && e->cpu >= 0 && e->cpu < G.m.ncpu && e->tid >= 0)
		model_evidence(e->cpu, e->tid, t, e->kind >= EV_NTP && e->kind <= EV_EXIT);
	return t;
}

/* An I/O call's entry or exit (-I) at time t: its wait, bytes and interval. */
static void model_io(const struct ev *e, uint64_t t)
{
	struct task *p;

	if (e->kind == EV_SYS_ENTER) {
		if ((p = task_get(e->tid, t, NULL))) {
			p->in_io = true;
			p->io_call = e->b;
			p->io_start = t;
		}
	} else if ((p = task_get(e->tid, t, NULL)) && p->in_io && p->io_call == e->b) {
		int kind = io_calls[e->b].kind;

		/* no task_io_wait: it ran at this sample, so a waiting
		 * state now is one whose switch-in was lost */
		p->in_io = false;
		p->io_ns += t - p->io_start;
		p->io_count++;
		if (e->v < 0)
			p->io_errors++;
		else if (kind == IO_READ)
			p->io_rbytes += e->v;
		else if (kind == IO_WRITE)
			p->io_wbytes += e->v;
		ival_add(&p->last_iival, p - G.m.task, e->b,
			 e->v < INT32_MIN ? INT32_MIN : e->v > INT32_MAX ? INT32_MAX : (int32_t)e->v,
			 p->io_start, t > p->io_start ? t : p->io_start + 1);
	}
}

/* Feed one event, in time order, to the model: model_pre, then its rule. */
NOINL void model_event(const struct ev *e)
{
	uint64_t t = model_pre(e);
	struct task *p, *n;

	if (!t)
		return;
	switch (e->kind) {
	case EV_SWITCH:
		if (model_cpu_ok(e->cpu))
			model_switch(e, t);
		break;
	case EV_WAKEUP:
	case EV_WAKEUP_NEW:
	case EV_WAKING:
		model_wake(e, t);
		break;
	case EV_PFORK:		/* per task: its child is traced too (ctx) */
		if ((n = task_get(e->b, t, NULL))) {
			task_name(n, e->comm2);
			n->ctx = true;
		}
		break;
	case EV_FORK:
		if ((n = task_get(e->c, t, NULL))) {
			n->pid = e->a;
			n->ctx = true;
		}
		break;
	case EV_PEXIT:
	case EV_EXIT:
		if ((p = task_get(e->kind == EV_EXIT ? e->c : e->a, t, NULL)))
			p->exited = true;
		break;
	case EV_MIGRATE:	/* of a queued task: one believed running missed its switch-out */
		if ((p = task_get(e->a, t, NULL)) && e->c >= 0 && e->c < G.m.ncpu) {
			if (p->state == ST_RUNNING)
				model_displace(p);
			p->cpu = e->c;
			p->migrations += e->b != e->c;
		}
		break;
	case EV_IDLE:
		if (model_cpu_ok(e->c)) {
			cpu_cstate(e->c, (uint64_t)e->v == IDLE_EXIT ? -1 : e->v, t);
			G.m.cpu[e->c].idle_exit = (uint64_t)e->v == IDLE_EXIT;
		}
		break;
	case EV_FREQ:
		if (model_cpu_ok(e->c))
			cpu_freq(e->c, e->v, t);
		break;
	case EV_IRQ:
	case EV_IRQ_EXIT:
	case EV_SOFTIRQ:
	case EV_SOFTIRQ_EXIT:
		if (model_cpu_ok(e->cpu))
			model_irq(e, e->cpu, t);
		break;
	case EV_SYS_ENTER:
	case EV_SYS_EXIT:
		model_io(e, t);
		break;
	}
}

/* At the end: may CPU c have left idle for a task without a word?  It
 * left out a switch out of idle before (inferred_idle), or it is believed
 * idle since a cpu_idle exit: a switch out of idle (or a new idle entry)
 * follows that, and on a kernel that leaves the switch out nothing after
 * tells, even the first time. */
static bool model_end_idle(int c)
{
	const struct cpu *cp = &G.m.cpu[c];

	return cp->inferred_idle || (cp->cur == 0 && cp->idle_exit);
}

/* At the end: does CPU c run a task whose run does not last to the end?
 * One that has exited (its EXIT record or sched_process_exit seen): its
 * last switch follows its exit at once, and with that switch left out
 * nothing tells how long it ran or what ran after.  One believed running
 * from side-band records only, after the CPU's last tracepoint record:
 * perf record switches its tracepoints off before its side-band event,
 * CPU by CPU (a FORK on one was seen 2 ms before the last switch on
 * another), so a FORK or EXIT record after them says who ran then, not
 * for how long.
 * With rings that overwrite, any: perf paused each ring at a time of its
 * own, after its last record. */
static bool model_end_cut(int c)
{
	const struct task *cur = cpu_running(c);

	return G.m.overwrite || (cur && (cur->exited || cur->since > G.m.cpu[c].tp_last));
}

/* One CPU's last switch (at t, to task next) into perf record's end
 * signature (model_end_off, rd_end_tail): *n CPUs so far, all to task *r,
 * the first at *off.  False where it breaks it (idle, or another task). */
static bool end_sig(uint64_t t, int next, uint64_t *off, int *r, int *n)
{
	if (next <= 0 || ((*n)++ && next != *r))
		return false;
	*r = next;
	*off = !*off || t < *off ? t : *off;
	return true;
}

/*
 * perf record turns its events off CPU by CPU at its end: it moves to each
 * CPU in turn and turns that CPU's off there, so every CPU's last switch
 * is to it (or it ran there already).  A file of perf's thus ends on each
 * CPU at another time (cpu0 0.2 to 4 ms before cpu1 in 21 recordings
 * here), and after a CPU's events went off what it did is not recorded,
 * a wakeup done there or a run.  Where every CPU's last switch switched
 * in one task (perf, the recorder: a task can run on one CPU only, so
 * the switches out of it were not recorded), the first of those switches
 * (no CPU went off before it), if before the last record; else 0, as for
 * tc's own files (its events stop on every CPU at once, pe_enable) and
 * per task (its events go off per task).
 */
static uint64_t model_end_off(void)
{
	uint64_t off = 0;
	int n = 0, r = 0;

	if (G.rd.sorted || !G.opt.replay_path || G.m.part == PART_TASKS)
		return 0;
	for (int c = 0; c < G.m.ncpu; c++) {
		const struct cpu *cp = &G.m.cpu[c];

		if (cp->traced && (!cp->sw_t || !end_sig(cp->sw_t, cp->sw_next, &off, &r, &n)))
			return 0;
	}
	return n > 1 && off < G.m.last ? off : 0;
}

/* The CPUs went off one by one from off (model_end_off): a task not running
 * is unknown from then on (a CPU that was off may have woken or run it),
 * and a CPU's run ends at its own end. */
static void model_end_offs(uint64_t off)
{
	model_untraced(off);
	for (int c = 0; c < G.m.ncpu; c++) {
		struct cpu *cp = &G.m.cpu[c];
		struct task *cur = cpu_running(c);
		uint64_t end = cp->tp_last;

		if (!cp->traced || end >= G.m.last)
			continue;
		if (cur) {
			task_unknown(cur, end > cur->since ? end : cur->since, UNK_AUX(UNK_UNTRACED, 0));
			cur->run_cpu = -1;
		}
		if (cp->cur >= 0)
			cpu_unknown(c, end > cp->since ? end : cp->since, UNK_AUX(UNK_UNTRACED, 0));
	}
}

/* Close every open state at the last event (end of a replay or summary;
 * data_end: the data's end, not where a pass stopped).
 * A CPU that may have left idle without a word (model_end_idle), or whose
 * running task's run does not last to the end (model_end_cut), may run a
 * woken task: what it ran ends at its last record, and a task still queued
 * on it is unknown since it was woken.  With rings that overwrite, or
 * CPUs that went off one by one (model_end_offs), a CPU's idle state and
 * frequency end at its last record too. */
static void model_end(bool data_end)
{
	uint64_t off = data_end ? model_end_off() : 0;

	for (int i = 0; i < G.m.ntask; i++) {
		struct task *p = &G.m.task[i];

		if (p->state == ST_RUNNABLE && p->cpu >= 0 &&
		    (model_end_idle(p->cpu) || model_end_cut(p->cpu)))
			task_unknown(p, p->since, UNK_AUX(UNK_MISSING, 0));
	}
	for (int c = 0; c < G.m.ncpu; c++)
		if ((model_end_idle(c) && G.m.cpu[c].cur == 0) || model_end_cut(c))
			model_end_cur(c);
	if (off)
		model_end_offs(off);
	for (int i = 0; i < G.m.ntask; i++)
		task_set(&G.m.task[i], G.m.task[i].state, G.m.last);
	for (int c = 0; c < G.m.ncpu; c++) {
		const struct cpu *cp = &G.m.cpu[c];
		bool cut = (G.m.overwrite || (off && cp->traced && cp->tp_last < G.m.last)) && cp->last_t;

		irq_close(c, G.m.last);
		cpu_set(c, cp->cur, G.m.last);
		cpu_cstate(c, cut ? -1 : cp->cstate, cut ? cp->last_t : G.m.last);
		cpu_freq(c, cut ? -1 : cp->freq, cut ? cp->last_t : G.m.last);
	}
}

/* Does task t pass the -p filters (tid, thread group id or name)? */
static bool filter_task(const struct task *t)
{
	if (!G.opt.nfilt)
		return true;
	for (int i = 0; i < G.opt.nfilt; i++) {
		char *end;
		int64_t v = num_i(G.opt.filt[i], &end);

		if (*end ? !strncmp(t->comm, G.opt.filt[i], COMM_LEN - 1) : (v == t->tid || v == t->pid))
			return true;
	}
	return false;
}

/* Does CPU c pass -C? */
static bool filter_cpu(int c)
{
	return !G.opt.cpu_filt || (c >= 0 && c < MAX_CPUS && G.opt.cpu_filt[c]);
}

/* ---------------------------------------------------------------- merge */

/*
 * Records wait in per-CPU queues (struct mq) until no CPU can deliver an
 * older one; then they are released, oldest first (equal times in arrival
 * order), to emit().  What "can no longer deliver an older one" means:
 *
 *   live:  after a pass over all rings, a CPU whose ring was drained is
 *          caught up to the clock read before the pass, less SLACK_NS: a
 *          record is stamped before it is written, and a virtual CPU can be
 *          descheduled in between; one that was not drained (its queue was
 *          full) is caught up to its last record.  Records up to the
 *          smallest caught-up time are released.
 *   file:  at each FINISHED_ROUND, records up to the newest time seen
 *          before the FINISHED_ROUND two back are released (perf's rule,
 *          ordered_events, is one back); a file without rounds is one
 *          round.  A LOST record goes where its loss began (mq_key), but
 *          the kernel writes it when its ring next has room, and perf
 *          reads it a round later or more: one round back released other
 *          CPUs' records past a loss's start before its LOST record came,
 *          and tc claimed 138 sleeps that ran past their wakeups, 2.7 s in
 *          all, in a perf record -m 1 file; two back, none (test/sim's
 *          late damage: 2.13 s wrong to 1.47 s on 300 seeds).  A file
 *          that says it lost records (rd_lost_tail) has its LOST records
 *          placed first, however late (replay_lost_late).  Records
 *          without a time (perf's synthesized ones) pass at once, as in
 *          perf.
 *
 *   cpu0  |--a----c--------|         pass at T: cpu0 drained -> caught T
 *   cpu1  |----b-----d--e  (full)              cpu1 caught at e
 *         release a b c d e (<= min(T, e)), keep later ones for next pass
 *
 * A queue keeps 16 bytes per record (struct qent: time, where it is, its
 * attr), sorted by time: a ring's records are in time order but for a few
 * side-band ones (a FORK stamped before the samples written ahead of it),
 * which are inserted in place, as perf does.  Records of a file stay in the
 * file and are queued in runs instead (struct qrun, in the reader
 * section): rd_at reads them again when they are released (from the read
 * buffer if they are still in it, else through the queue's window: a
 * CPU's records of a round are together in perf's files, so one read of
 * the window serves hundreds).  The others (rings, streams) are copied
 * once into the queue's byte ring, in arrival order, each in a slot
 * (struct mq_slot):
 *
 *   b: [ free | slot,seq,rec | slot (released) | slot,seq,rec | slot (skip) ]
 *              ^bhead                                          ^btail
 *
 * A released record's slot is marked free so that bhead moves past it when
 * the records before it are gone; a record never straddles the end of b
 * (the rest is skipped, in a free slot).  The queue holding the oldest
 * record is found with a binary heap over the non-empty queues.  Queues grow
 * by doubling up to QUEUE_MAX bytes in all; past that the oldest record is
 * released early (counted in G.mg.forced).  A record older than one already
 * released is counted (G.bad.order) and passed on, never re-stamped.
 */

static void emit(const uint8_t *r, size_t n, uint64_t t, const struct rinfo *ri);
static bool emit_plain(void);
HOT void emit_model(const uint8_t *r, const struct rinfo *ri);
HOT void emit_model_std(const struct attr *a, const uint8_t *r, uint64_t t, int cpu, uint32_t rawsz);
static bool run_release(uint64_t bound, bool one);

enum { MQ_SHIFT_MAX = 4096 };	/* farthest a late record is moved in a queue */

/* Set up nq queues.  bytes: each queue's byte ring for copied records (0:
 * the records stay in the file); grow: queues may grow (up to
 * QUEUE_MAX in all) instead of refusing records when full. */
static void mrg_init(int nq, size_t bytes, bool grow)
{
	size_t b = 64;

	while (bytes && b < bytes)
		b <<= 1;
	G.mg.q = xcalloc(nq, sizeof(*G.mg.q));
	G.mg.nq = nq;
	G.mg.heap = xcalloc(nq, sizeof(int));
	G.mg.grow = grow;
	G.mg.runs = !bytes;
	for (int i = 0; i < nq; i++)
		G.mg.q[i].bcap = bytes ? b : 0;
	G.mg.released = 0;
}

/* Free queue q's memory (its entries: see mq_room). */
static void mq_free_mem(struct mq *q)
{
	if (q->e)
		munmap(q->e, (size_t)q->ecap * sizeof(*q->e));
	mem_free(q->b);
	mem_free(q->w);
	q->e = NULL;
	q->b = q->w = NULL;
	q->ecap = 0;
}

static void rd_filler_stop(void);

/* Free the queues of mrg_init (a second pass over a file is done). */
static void mrg_free(void)
{
	if (FAST)
		rd_filler_stop();	/* (it reads into the queues' windows) */
	for (int i = 0; i < G.mg.nq; i++)
		mq_free_mem(&G.mg.q[i]);
	mem_free(G.mg.q);
	mem_free(G.mg.heap);
	mem_free(G.mg.run);
	mem_free(G.mg.rheap);
	G.mg.q = NULL;
	G.mg.heap = NULL;
	G.mg.run = NULL;
	G.mg.rheap = NULL;
	G.mg.nq = G.mg.nheap = G.mg.nrun = G.mg.crun = G.mg.rtop = G.mg.rfree = 0;
	G.mg.cur_on = false;
}

/* Entry i (0: the oldest) of queue q. */
static struct qent *mq_at(const struct mq *q, uint32_t i)
{
	return &q->e[(q->ehead + i) & (q->ecap - 1)];
}

/* The oldest record of non-empty queue qi. */
static const struct qent *mq_first(int qi)
{
	return mq_at(&G.mg.q[qi], 0);
}

/* The head of a slot of a queue's byte ring, in the host's byte order: a
 * record's (followed by its u64 stream position, then the record), or
 * free space.  Positions and lengths are multiples of 8. */
struct mq_slot {
	uint32_t len;			/* bytes to the next slot */
	uint32_t free;			/* released, or a skip to the end of b */
};
enum { MQ_SLOT = sizeof(struct mq_slot) + 8 };	/* slot head and seq before a record */

/* Where entry e of queue q arrived: the stream position kept in its
 * slot. */
static uint64_t mq_seq(const struct mq *q, const struct qent *e)
{
	uint64_t seq;

	memcpy(&seq, q->b + (((e->ref >> 8) - 8) & (q->bcap - 1)), 8);
	return seq;
}

/* Is the oldest record of queue qa older than queue qb's (time, then
 * arrival)? */
static bool mq_older(int qa, int qb)
{
	const struct qent *a = mq_first(qa), *b = mq_first(qb);

	if (a->time != b->time)
		return a->time < b->time;
	return mq_seq(&G.mg.q[qa], a) < mq_seq(&G.mg.q[qb], b);
}

/* Restore the order of a binary min-heap h of n ints at slot k, older
 * its order (inlined with it): the heap of queues (of copies) and the heap
 * of runs (a file's). */
static inline void heap_fix(int *h, int n, int k, bool (*older)(int, int))
{
	int v = h[k];

	while (k > 0 && older(v, h[(k - 1) / 2])) {
		h[k] = h[(k - 1) / 2];
		k = (k - 1) / 2;
	}
	for (;;) {
		int c = 2 * k + 1;

		if (c >= n)
			break;
		if (c + 1 < n && older(h[c + 1], h[c]))
			c++;
		if (!older(h[c], v))
			break;
		h[k] = h[c];
		k = c;
	}
	h[k] = v;
}

/* Restore the heap order around heap slot k (its queue's oldest record
 * changed, or the slot was just filled). */
static void mrg_heap_fix(int k)
{
	heap_fix(G.mg.heap, G.mg.nheap, k, mq_older);
}

/* Count n more bytes of queue memory; false if queues that grow (a file's)
 * would pass QUEUE_MAX, or, for the first allocation of an empty queue
 * (first), four times that (a queue that cannot hold one record would lose
 * all of its CPU's).  The rings' queues are sized by -m at start, one
 * ring's worth each, and always get it: an empty queue takes any record. */
static bool mrg_take(size_t n, bool first)
{
	if (G.mg.grow && G.mg.bytes + n > (first ? 4 * QUEUE_MAX : QUEUE_MAX))
		return false;
	G.mg.bytes += n;
	if (G.mg.bytes > G.mg.peak)
		G.mg.peak = G.mg.bytes;
	return true;
}

/* Double q's byte ring.  Bytes keep their running positions (a record
 * within one block of the old size is within one block of the new), so
 * the entries stay valid.  False if the queues may not grow. */
static bool mq_grow_bytes(struct mq *q)
{
	size_t nb = q->bcap * 2;
	uint8_t *b;

	if (!G.mg.grow || !mrg_take(q->bcap, false))
		return false;
	b = xcalloc(1, nb);
	for (uint64_t p = q->bhead; p < q->btail;) {
		size_t o = p & (q->bcap - 1), k = q->bcap - o;

		if (k > q->btail - p)
			k = q->btail - p;
		memcpy(b + (p & (nb - 1)), q->b + o, k);
		p += k;
	}
	mem_free(q->b);
	q->b = b;
	q->bcap = nb;
	return true;
}

/*
 * Room for one more entry in q; false if it is full and may not grow.
 * The first entries: as many as the byte ring holds records of 64 bytes
 * (a record of tc's and its seq take more), at least 1024.  The entries
 * are a mapping of their own that grows in place (mremap): the pages in
 * use stay, none is copied into a fresh one (the first touch of a page
 * cost 5 to 20 us on the VMs measured; growing by copies touched twice
 * the peak).
 */
static bool mq_room(struct mq *q)
{
	struct qent *e;
	uint32_t nc;
	size_t sz = sizeof(*e);

	if (q->n < q->ecap)
		return true;
	nc = q->ecap ? q->ecap * 2 : q->bcap >= 64 * 1024 ? q->bcap / 64 : 1024;
	if ((q->ecap && !G.mg.grow) || !mrg_take((size_t)(nc - q->ecap) * sz, !q->ecap))
		return false;
	e = q->e ? mremap(q->e, q->ecap * sz, nc * sz, MREMAP_MAYMOVE) :
		   mmap(NULL, nc * sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (e == MAP_FAILED)
		die("out of memory (a merge queue of %u records)", nc);
	/* full: the ring's wrapped part [0, ehead) follows its old end */
	memcpy(e + q->ecap, e, (size_t)q->ehead * sz);
	q->e = e;
	q->ecap = nc;
	return true;
}

/* Write the slot head {len, free} at running position p of q's byte ring. */
static void mq_slot_put(struct mq *q, uint64_t p, size_t len, bool free)
{
	struct mq_slot h = { .len = len, .free = free };

	memcpy(q->b + (p & (q->bcap - 1)), &h, sizeof(h));
}

/*
 * Space for a copied record of n bytes (a multiple of 8) that arrived at
 * stream position seq, at the end of q's byte ring, in one piece after its
 * slot; NULL if q is full (and may not grow).  *pos gets its running
 * position.  The record is queued only by mq_commit.
 */
static uint8_t *mq_reserve(struct mq *q, size_t n, uint64_t seq, uint64_t *pos)
{
	if (!mq_room(q))
		return NULL;
	if (!q->b) {
		if (!mrg_take(q->bcap, true))
			return NULL;
		q->b = xcalloc(1, q->bcap);
	}
	n += MQ_SLOT;
	for (;;) {
		size_t left = q->bcap - (q->btail & (q->bcap - 1));
		size_t skip = left < n ? left : 0;

		if (q->btail - q->bhead + skip + n <= q->bcap) {
			if (skip) {
				mq_slot_put(q, q->btail, skip, true);
				q->btail += skip;
			}
			mq_slot_put(q, q->btail, n, false);
			memcpy(q->b + ((q->btail + sizeof(struct mq_slot)) & (q->bcap - 1)), &seq, 8);
			*pos = q->btail + MQ_SLOT;
			return q->b + (*pos & (q->bcap - 1));
		}
		if (!mq_grow_bytes(q))
			return NULL;
	}
}

/* The time record r (stamped t) of queue q is released at: its own; but a
 * LOST record, stamped when its ring had room again, goes where the loss
 * began, after the newest record queued before it, so that the model
 * knows of the loss before it reads the other CPUs' records of the hole
 * (never before what is released already). */
static uint64_t mq_key(const struct mq *q, const uint8_t *r, uint64_t t)
{
	uint64_t k = q->last && q->last < t ? q->last : t;

	if (g32(r) != PERF_RECORD_LOST)
		return t;
	return k > G.mg.released ? k : G.mg.released;
}

/*
 * Queue a record in queue qi with time t and attr index attr, found at
 * pos: a file offset (records that stay in the file), or the position mq_reserve gave
 * (n bytes written there).  The caller made room (mq_room or mq_reserve).
 * A record older than the newest queued one is moved back to its place
 * (at most MQ_SHIFT_MAX entries: farther, it stays and is released late).
 */
static void mq_commit(int qi, size_t n, uint64_t t, uint64_t pos, int attr)
{
	struct mq *q = &G.mg.q[qi];
	struct qent e = { t, pos << 8 | (unsigned)attr };
	uint32_t i = q->n;

	if (q->b)
		q->btail = pos + n;
	if (t > q->last)
		q->last = t;
	while (i > 0 && q->n - i < MQ_SHIFT_MAX && mq_at(q, i - 1)->time > t) {
		*mq_at(q, i) = *mq_at(q, i - 1);
		i--;
	}
	*mq_at(q, i) = e;
	q->n++;
	if (++G.mg.n > G.mg.nmax)
		G.mg.nmax = G.mg.n;
	if (q->n == 1) {		/* it joins the heap */
		G.mg.heap[G.mg.nheap++] = qi;
		mrg_heap_fix(G.mg.nheap - 1);
	} else if (i == 0) {		/* its oldest record changed */
		for (int k = 0; k < G.mg.nheap; k++)
			if (G.mg.heap[k] == qi)
				mrg_heap_fix(k);
	}
}

/* Free a copied record of q at running position p (emit is done with it):
 * mark its slot, and move bhead past every free slot at its front. */
static void mq_free(struct mq *q, uint64_t p)
{
	struct mq_slot h;

	memcpy(&h, q->b + ((p - MQ_SLOT) & (q->bcap - 1)), sizeof(h));
	mq_slot_put(q, p - MQ_SLOT, h.len, true);
	while (q->bhead < q->btail) {
		memcpy(&h, q->b + (q->bhead & (q->bcap - 1)), sizeof(h));
		if (!h.free)
			break;
		q->bhead += h.len;
	}
}

/* A record released at time t: counted out of order if it is older than
 * the last released, else (where advance) the newest released. */
static inline void mrg_order(uint64_t t, bool advance)
{
	if (t < G.mg.released)
		G.bad.order++;
	else if (advance)
		G.mg.released = t;
}

/* Pass on entry e, just taken from queue q, to emit(). */
static void mrg_emit(struct mq *q, struct qent e)
{
	struct rinfo ri;
	const uint8_t *r;
	uint64_t pos = e.ref >> 8;
	size_t n;

	r = q->b + (pos & (q->bcap - 1));
	n = g16(r + 6);
	mrg_order(e.time, true);
	if (rec_info_as(r, n, e.ref & 0xff, &ri) == 0)
		emit(r, n, e.time, &ri);
	mq_free(q, pos);
}

static void rd_lost_ahead(uint64_t bound);

/* Release every queued record with time <= bound, oldest first (one:
 * only the oldest; false if there was none): from the queue of the
 * oldest, a run of its records as long as they are older than the oldest
 * of the other queues (the smaller child of the heap's root), then the
 * heap is put in order once. */
static bool mrg_release(uint64_t bound, bool one)
{
	if (FAST && G.rd.lost_ahead)
		rd_lost_ahead(bound);	/* (one: UINT64_MAX, the whole file; the queues are full) */
	if (G.mg.runs)
		return run_release(bound, one);
	while (G.mg.nheap && mq_first(G.mg.heap[0])->time <= bound) {
		int qi = G.mg.heap[0], c;
		struct mq *q = &G.mg.q[qi];
		uint64_t lt = UINT64_MAX, ls = UINT64_MAX, t;

		if (G.mg.nheap > 1) {
			c = G.mg.heap[1];
			if (G.mg.nheap > 2 && mq_older(G.mg.heap[2], c))
				c = G.mg.heap[2];
			lt = mq_first(c)->time;
			ls = mq_seq(&G.mg.q[c], mq_first(c));
		}
		do {
			struct qent e = *mq_at(q, 0);

			q->ehead = (q->ehead + 1) & (q->ecap - 1);
			q->n--;
			G.mg.n--;
			mrg_emit(q, e);
		} while (!one && q->n && (t = mq_first(qi)->time) <= bound &&
			 (t < lt || (t == lt && mq_seq(q, mq_first(qi)) < ls)));
		if (!q->n)
			G.mg.heap[0] = G.mg.heap[--G.mg.nheap];
		if (G.mg.nheap)
			mrg_heap_fix(0);
		if (one)
			return true;
	}
	return false;
}

/* ---------------------------------------------------------------- perf_event and rings */

#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif

/* Copy bytes [off, off+n) of the ring's data (wrapping) to out. */
static void rb_copy(const struct rb *r, uint64_t off, void *out, size_t n)
{
	uint64_t o = off & (r->size - 1);
	size_t first = r->size - o < n ? r->size - o : n;

	memcpy(out, r->data + o, first);
	memcpy((uint8_t *)out + first, r->data, n - first);
}

/*
 * Bytes published in a ring from tail to head.  A 32-bit kernel keeps its
 * positions in an unsigned long that wraps at 4 GiB while tc counts on in
 * 64 bits: a distance that is only sane in 32 bits is taken in 32 bits.
 */
static uint64_t rb_avail(uint64_t head, uint64_t tail, uint64_t size)
{
	uint64_t d = head - tail;

	if (head >> 32 == 0 && d > size && (uint32_t)d <= size)
		d = (uint32_t)d;
	return d;
}

/* Bytes ring r holds now: published and not yet freed. */
static uint64_t rb_used(const struct rb *r)
{
	return rb_avail(*(volatile __u64 *)&r->pc->data_head, r->pc->data_tail, r->size);
}

/* How full ring r is when it holds used bytes, in 1024ths. */
static unsigned rb_fill(const struct rb *r, uint64_t used)
{
	return used >= r->size ? 1024 : (unsigned)(used * 1024 / r->size);
}

/* Whether record p (ri) of a ring lies outside the span every event was on
 * (see pe_enable): a sample from before it, or any record but a loss
 * report after it (side-band records from before stay: they name tasks).
 * Also notes the traced command's exit and then its last switch-out, which
 * --record waits for (cmd_out). */
static bool pe_outside(const uint8_t *p, const struct rinfo *ri)
{
	uint32_t type = g32(p);
	int kind = ri->attr >= 0 && type == PERF_RECORD_SAMPLE ? G.ev.attr[ri->attr].kind : EV_NONE;

	if ((type == PERF_RECORD_SAMPLE && ri->time < G.rg.on_from) ||
	    (G.rg.on_until && ri->time > G.rg.on_until && type != PERF_RECORD_LOST &&
	     type != PERF_RECORD_LOST_SAMPLES)) {
		G.rg.trimmed++;
		return true;
	}
	if (G.child.pid > 0 && ri->tid == G.child.pid) {
		G.child.out_read |= G.child.exit_read && kind == EV_SWITCH;
		G.child.exit_read |= kind == EV_PEXIT;
	}
	return false;
}

/*
 * Move complete records from ring r into merge queue qi (copied once, into
 * the queue's byte ring), up to the ring's head or until the queue is full.
 * A record of size zero, not a multiple of 8, or larger than what the
 * kernel published is corruption: everything up to the head is skipped and
 * counted.  *last gets the time of the last record queued.  Returns 1 if
 * the ring was drained, 0 if the queue filled up first.
 */
static int rb_drain(struct rb *r, int qi, uint64_t *last)
{
	/* acquire: read the head, then the data it covers (a plain load and a
	 * fence, as tools/include/linux/ring_buffer.h does: 32-bit targets
	 * have no 8-byte atomics) */
	uint64_t head = *(volatile __u64 *)&r->pc->data_head;
	uint64_t tail = r->pc->data_tail, avail;
	struct mq *q = &G.mg.q[qi];
	int drained = 1;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	avail = rb_avail(head, tail, r->size);
	if (avail > r->size) {	/* overrun: the writer lapped us */
		G.bad.corrupt++;
		avail = 0;
		tail = head;
	}
	while (avail >= 8) {
		struct perf_event_header h;
		struct rinfo ri;
		uint64_t pos;
		uint8_t *p;

		rb_copy(r, tail, &h, sizeof(h));
		if (h.size < 8 || h.size % 8 || h.size > avail) {
			G.bad.corrupt++;
			avail = 0;
			tail = head;
			break;
		}
		if (!(p = mq_reserve(q, h.size, G.mg.seq, &pos))) {
			drained = 0;
			break;
		}
		rb_copy(r, tail, p, h.size);
		if (rec_info(p, h.size, &ri) < 0 || !ri.has_time) {
			G.bad.id++;
		} else if (!pe_outside(p, &ri)) {
			mq_commit(qi, h.size, mq_key(q, p, ri.time), pos, ri.attr);
			*last = ri.time;
		}
		G.mg.seq += h.size;
		tail += h.size;
		avail -= h.size;
	}
	if (avail && avail < 8 && drained)
		tail = head;	/* a stub smaller than a header cannot be a record */
	__atomic_thread_fence(__ATOMIC_RELEASE);	/* done with the data, then free it */
	*(volatile __u64 *)&r->pc->data_tail = tail;
	return drained;
}

/* perf_event_open(2) for attr on cpu, all tasks. */
static int pe_open(struct perf_event_attr *pa, int cpu)
{
	return syscall(__NR_perf_event_open, pa, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Read a /proc/sys value for an error message. */
static const char *sysctl_str(const char *path)
{
	static char buf[64];

	if (read_small(path, buf, sizeof(buf)) <= 0)
		return "?";
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

/* Find the CPUs: G.m.ncpu from the possible mask, G.m.cpu_online from online. */
static void pe_cpus(void)
{
	char buf[4096];
	cpu_set_t aff;

	G.m.ncpu = 0;
	if (read_small("/sys/devices/system/cpu/possible", buf, sizeof(buf)) > 0)
		G.m.ncpu = cpulist_count(buf);
	if (G.m.ncpu <= 0 && !sched_getaffinity(0, sizeof(aff), &aff))	/* no sysfs: the CPUs tc may use */
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &aff))
				G.m.ncpu = c + 1;
	if (G.m.ncpu <= 0)
		G.m.ncpu = 1;
	if (G.m.ncpu > MAX_CPUS)
		G.m.ncpu = MAX_CPUS;
	G.m.cpu_online = xcalloc(G.m.ncpu, sizeof(bool));
	if (read_small("/sys/devices/system/cpu/online", buf, sizeof(buf)) <= 0 ||
	    !parse_cpulist(buf, G.m.cpu_online, G.m.ncpu))
		for (int i = 0; i < G.m.ncpu; i++)
			G.m.cpu_online[i] = true;
}

/* Add an attr for tracepoint format f (live). */
static void pe_add_tp(const struct tfs_fmt *f)
{
	struct attr *a = &G.ev.attr[G.ev.nattr++];
	struct perf_event_attr *pa = &a->pa;

	memset(a, 0, sizeof(*a));
	pa->type = PERF_TYPE_TRACEPOINT;
	pa->size = sizeof(*pa);
	pa->config = f->id;
	pa->sample_period = 1;
	pa->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			  PERF_SAMPLE_RAW | PERF_SAMPLE_IDENTIFIER;
	pa->read_format = PERF_FORMAT_LOST;
	pa->disabled = 1;
	pa->sample_id_all = 1;
	pa->use_clockid = 1;
	pa->clockid = CLOCK_MONOTONIC;
	pa->watermark = 1;
	attr_bind(a);
}

/*
 * Check the file descriptor limit for need event fds (-1: before the
 * events are known), after raising the soft limit to the hard one.  tc
 * itself needs FD_SPARE more (stdio, the signal pipe, the recording and
 * its syncer's pipe, the terminal, tracefs and /proc reads, the command's
 * error pipe), one more for the view and one for the guard's pipe.  Dies,
 * naming the real number, only when the limit is really too low.
 */
static void pe_fd_limit(int need)
{
	struct rlimit rl;
	long ncpu = 0;
	int est, spare = FD_SPARE + G.opt.view + (G.child.guard > 0);

	for (int c = 0; c < G.m.ncpu; c++)
		ncpu += G.m.cpu_online[c];
	est = (EV_NTP - 4 * !G.opt.irq + 1 + (G.opt.io ? 2 * N_IO : 0)) * (int)(ncpu > 0 ? ncpu : 1);

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		prlimit(0, RLIMIT_NOFILE, &rl, NULL);	/* setrlimit brings musl's all-threads call */
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		return;
	if (need < 0 && rl.rlim_cur < (rlim_t)spare)
		die("the file descriptor limit is %llu: tc needs about %d here (up to %d events on %ld CPUs, and %d for itself): ulimit -n %d",
		    (unsigned long long)rl.rlim_cur, est + spare, est / (int)(ncpu > 0 ? ncpu : 1),
		    ncpu, spare, est + spare);
	if (need >= 0 && rl.rlim_cur < (rlim_t)need + spare)
		die("%d events on %d CPUs need %d file descriptors, and tc %d more, but the limit is %llu: ulimit -n %d (as root to go above the hard limit), or trace fewer CPUs (-C)",
		    G.ev.nattr, need / G.ev.nattr, need, spare, (unsigned long long)rl.rlim_cur, need + spare);
}

/* The ring of pages pages on CPU c could not be mapped: say why (errno)
 * and what to do. */
static void __attribute__((noreturn)) pe_mmap_fail(unsigned pages, int c)
{
	int e = errno;
	uint64_t kib = (uint64_t)(pages + 1) * getpagesize() / 1024;
	struct rlimit rl = { 0, 0 };

	getrlimit(RLIMIT_MEMLOCK, &rl);
	if (e == EPERM)
		die("the %u-page ring on CPU %d (%" PRIu64 " KiB) is over the locked-memory limit for perf rings: /proc/sys/kernel/perf_event_mlock_kb is %s KiB per CPU (plus ulimit -l %llu KiB); raise it (as root: sysctl kernel.perf_event_mlock_kb=%" PRIu64 "), give tc CAP_IPC_LOCK, or use -m with fewer pages",
		    pages, c, kib, sysctl_str("/proc/sys/kernel/perf_event_mlock_kb"),
		    rl.rlim_cur == RLIM_INFINITY ? 0ull : (unsigned long long)rl.rlim_cur / 1024, kib);
	if (e == ENOMEM)
		die("the %u-page ring on CPU %d (%" PRIu64 " MiB) could not be allocated: not enough memory; use -m with fewer pages",
		    pages, c, kib / 1024);
	die("mmap of the %u-page ring on CPU %d: %s; use -m with fewer pages", pages, c, strerror(e));
}

/* -I: the tracepoint filter that leaves out every thread of tc, so that
 * none of its own calls is traced. */
static void pe_self_filter(void)
{
	struct numdir d;
	size_t n = 0;
	int tid;

	G.opt.self_filter[0] = 0;
	numdir_open(&d, "/proc/self/task");
	while ((tid = numdir_next(&d)))
		if (n + 40 < sizeof(G.opt.self_filter))
			n += sfmt(G.opt.self_filter + n, sizeof(G.opt.self_filter) - n, "%scommon_pid != %d",
				  n ? " && " : "", tid);
}

/* Open every event on online CPU c, the first with a ring of pages pages
 * that the others write to (SET_OUTPUT); need is the descriptors all CPUs
 * take, for the message when they run out.  Dies with what to do. */
static void pe_open_cpu(int c, unsigned pages, int need)
{
	long psz = getpagesize();
	struct rb *r;
	int lead = -1;

	for (int i = 0; i < G.ev.nattr; i++) {
		struct attr *a = &G.ev.attr[i];
		int fd;

		a->pa.wakeup_watermark = (uint64_t)pages * psz / 4;
		fd = pe_open(&a->pa, c);
		if (fd < 0 && errno == EINVAL && (a->pa.read_format & PERF_FORMAT_LOST)) {
			a->pa.read_format &= ~PERF_FORMAT_LOST;	/* kernel < 6.0 */
			fd = pe_open(&a->pa, c);
		}
		if (fd < 0 && errno == ENODEV) {
			note("CPU %d went offline, skipped", c);
			break;
		}
		if (fd < 0 && (errno == EACCES || errno == EPERM))
			die("perf_event_open not permitted: run as root, or give tc CAP_PERFMON (setcap cap_perfmon,cap_sys_admin+ep tc), or lower /proc/sys/kernel/perf_event_paranoid (now %s) to -1",
			    sysctl_str("/proc/sys/kernel/perf_event_paranoid"));
		if (fd < 0 && (errno == EMFILE || errno == ENFILE))
			die("out of file descriptors: %d events on %d CPUs need %d and %d more for tc; %s",
			    G.ev.nattr, need / G.ev.nattr, need, FD_SPARE + G.opt.view + (G.child.guard > 0),
			    errno == ENFILE ? "the system's limit is reached (fs.file-max)" : "raise ulimit -n");
		if (fd < 0)
			die("perf_event_open of %s on CPU %d: %s",
			    a->fmt ? a->fmt->name : "dummy", c, strerror(errno));
		G.rg.fds[G.rg.nfd++] = fd;
		if ((a->kind == EV_SYS_ENTER || a->kind == EV_SYS_EXIT) &&
		    ioctl(fd, PERF_EVENT_IOC_SET_FILTER, G.opt.self_filter) < 0)
			die("cannot filter tc's own system calls out (%s): %s", G.opt.self_filter, strerror(errno));
		if (ioctl(fd, PERF_EVENT_IOC_ID, &a->ids[a->nids]) < 0)
			die("PERF_EVENT_IOC_ID: %s", strerror(errno));
		a->nids++;
		if (lead >= 0) {
			r->nfd++;
			if (i == G.ev.nattr - 1)
				r->dummy_id = a->ids[a->nids - 1];
		}
		if (lead < 0) {
			void *m = mmap(NULL, (size_t)(pages + 1) * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

			if (m == MAP_FAILED)
				pe_mmap_fail(pages, c);
			lead = fd;
			r = &G.rg.rb[G.rg.nrb++];
			r->pc = m;
			r->data = (uint8_t *)m + psz;
			r->size = (uint64_t)pages * psz;
			r->cpu = c;
			r->fd = fd;
			r->fd0 = G.rg.nfd - 1;
			r->nfd = 1;
		} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, lead) < 0) {
			die("PERF_EVENT_IOC_SET_OUTPUT on CPU %d: %s", c, strerror(errno));
		}
	}
}

/* -I: the tracepoints of both ends of every I/O call the kernel has;
 * dies if it has none, says what a MIPS kernel's records cannot tell. */
static void pe_add_io(void)
{
	int missing = 0;
	struct utsname u;

	for (int k = 0; k < N_IO; k++) {
		char en[64], ex[64];
		const struct tfs_fmt *f1, *f2;

		sfmt(en, sizeof(en), "sys_enter_%s", io_calls[k].name);
		sfmt(ex, sizeof(ex), "sys_exit_%s", io_calls[k].name);
		f1 = fmt_load("syscalls", en);
		f2 = f1 ? fmt_load("syscalls", ex) : NULL;
		if (!f1 || !f2) {
			missing++;
			continue;
		}
		pe_add_tp(f1);
		pe_add_tp(f2);
	}
	if (missing == N_IO)
		die("-I: no syscalls tracepoints in %s/events/syscalls: a kernel with CONFIG_FTRACE_SYSCALLS is needed", G.ev.tfs_root);
	if (missing)
		note("-I: %d of the %d I/O system calls have no tracepoint in this kernel, skipped", missing, N_IO);
	if (!uname(&u) && !strncmp(u.machine, "mips", 4))
		note("-I on MIPS: a call's error comes back in a register of its own, which sys_exit leaves out: "
		     "a failed call counts as bytes moved, not in io_errors");
}

/*
 * The ring's pages per CPU when -m is not given: a 512th of the memory per
 * CPU, a power of two from 128 KiB to 2 MiB (a 256 MiB board with one CPU:
 * 512 KiB; 24 GiB and 2 CPUs: 2 MiB, 60 ms of 300,000 events a second),
 * and without root within the kernel's limit for perf rings.
 */
static unsigned pe_pages(int ncpu)
{
	struct sysinfo si;
	uint64_t want = 2 << 20, lim;
	long psz = getpagesize();
	unsigned pages = 1;

	if (sysinfo(&si) == 0 && ncpu > 0 && (uint64_t)si.totalram * si.mem_unit / ncpu / 512 < want)
		want = (uint64_t)si.totalram * si.mem_unit / ncpu / 512;
	if (geteuid() && (lim = num_u(sysctl_str("/proc/sys/kernel/perf_event_mlock_kb"), NULL, 10)) &&
	    lim * 1024 < want + psz)
		want = lim * 1024 > (uint64_t)psz ? lim * 1024 - psz : (uint64_t)psz;
	while ((uint64_t)pages * 2 * psz <= want)
		pages *= 2;
	return pages * psz < (128 << 10) && !geteuid() ? (unsigned)((128 << 10) / psz) : pages;
}

/*
 * Set up live capture: tracefs formats of tp_defs, one attr per tracepoint
 * plus a dummy software event for COMM/FORK/EXIT, opened on every online CPU
 * with one mmap'd ring per CPU (the other events SET_OUTPUT to it).  Dies
 * with a message saying what to do when the kernel refuses.
 */
static void pe_setup(void)
{
	long psz = getpagesize();
	unsigned pages;
	int need, ncpu = 0, nout = 0, first = 0;

	pe_cpus();
	for (int c = 0; c < G.m.ncpu; c++)
		ncpu += G.m.cpu_online[c];
	pages = G.opt.mmap_pages ? G.opt.mmap_pages : pe_pages(ncpu);
	pe_fd_limit(-1);
	if (tfs_find() < 0)
		die("%s", tfs_why);
	for (int k = 0; k < EV_NTP; k++) {
		const char *sys = tp_defs[k].sys;
		const struct tfs_fmt *f;

		if (!strcmp(sys, "sched") ? G.opt.power_only : !strcmp(sys, "irq") ? !G.opt.irq : G.opt.tasks_only)
			continue;
		f = fmt_load(tp_defs[k].sys, tp_defs[k].name);
		if (!f && tp_defs[k].required)
			die("tracepoint %s:%s missing from %s/events: a kernel with CONFIG_TRACEPOINTS and scheduler tracepoints is needed",
			    tp_defs[k].sys, tp_defs[k].name, G.ev.tfs_root);
		if (!f) {
			note("%s:%s not available in this kernel, skipped", tp_defs[k].sys, tp_defs[k].name);
			continue;
		}
		pe_add_tp(f);
	}
	if (G.opt.io)
		pe_add_io();
	if (G.opt.power_only && !G.ev.nattr)
		die("-P: this kernel has no power:cpu_idle or power:cpu_frequency tracepoint");
	if (!G.opt.power_only) {	/* the dummy event: task names, forks and exits */
		struct attr *a = &G.ev.attr[G.ev.nattr++];
		struct perf_event_attr *pa = &a->pa;

		memset(a, 0, sizeof(*a));
		pa->type = PERF_TYPE_SOFTWARE;
		pa->size = sizeof(*pa);
		pa->config = PERF_COUNT_SW_DUMMY;
		pa->sample_period = 1;
		pa->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
				  PERF_SAMPLE_IDENTIFIER;
		pa->disabled = 1;
		pa->sample_id_all = 1;
		pa->comm = 1;
		pa->comm_exec = 1;
		pa->task = 1;
		pa->use_clockid = 1;
		pa->clockid = CLOCK_MONOTONIC;
		pa->watermark = 1;
		attr_bind(a);
	}
	if (pages & (pages - 1) || pages == 0)
		die("-m %u: the ring size must be a power of two pages", pages);

	for (int c = MAX_CPUS - 1; G.opt.cpu_filt && c >= G.m.ncpu; c--)
		if (G.opt.cpu_filt[c])
			nout++, first = c;
	if (nout)	/* one line for them all */
		note("-C: %d of its CPUs (%d and up) are not here (CPUs 0-%d): skipped", nout, first, G.m.ncpu - 1);
	for (int c = 0; c < G.m.ncpu; c++) {
		if (!G.m.cpu_online[c] && filter_cpu(c))
			note("CPU %d is offline, skipped", c);
		if (!filter_cpu(c) && G.m.cpu_online[c])
			G.m.part = PART_CPUS;	/* -C: the others not traced at all */
		if (!filter_cpu(c))
			G.m.cpu_online[c] = false;
	}
	need = 0;
	for (int c = 0; c < G.m.ncpu; c++)
		need += G.m.cpu_online[c] ? G.ev.nattr : 0;
	if (!need) {
		char on[256];

		if (read_small("/sys/devices/system/cpu/online", on, sizeof(on)) <= 0)
			strcpy(on, "?");
		on[strcspn(on, "\n")] = 0;
		die("-C: none of the CPUs given is online; the online CPUs are %s", on);
	}
	pe_fd_limit(need);
	G.rg.fds = xcalloc(need, sizeof(int));
	if (G.opt.io)
		pe_self_filter();
	G.rg.rb = xcalloc(G.m.ncpu, sizeof(*G.rg.rb));
	for (int i = 0; i < G.ev.nattr; i++)
		G.ev.attr[i].ids = xcalloc(G.m.ncpu, sizeof(uint64_t));
	for (int c = 0; c < G.m.ncpu; c++)
		if (G.m.cpu_online[c])
			pe_open_cpu(c, pages, need);
	if (!G.rg.nrb)
		die("no online CPU could be traced");
	idmap_build();
	mrg_init(G.m.ncpu + 1, (size_t)pages * psz + MAX_REC, false);	/* a ring and one record */
}

/* Enable (on) or disable every event, one descriptor after another: the
 * span all were on is from the last enable to the first disable, and the
 * records outside it are left out (pe_outside), so that no CPU's trace
 * ends with some kinds of events and not others. */
static void pe_enable(bool on)
{
	if (!on)
		G.rg.on_until = now_ns();
	for (int i = 0; i < G.rg.nfd; i++)
		ioctl(G.rg.fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
	if (on) {
		G.rg.on_from = now_ns();
		G.rg.on_until = 0;
	}
}

/* Sum the per-event lost counts (PERF_FORMAT_LOST) per ring and into
 * G.n.lost_read. */
static void pe_read_lost(void)
{
	G.n.lost_read = 0;
	for (int k = 0; k < G.rg.nrb; k++) {
		struct rb *r = &G.rg.rb[k];

		r->lost_read = 0;
		for (int i = r->fd0; i < r->fd0 + r->nfd; i++) {
			uint64_t v[2];

			if (read(G.rg.fds[i], v, sizeof(v)) == sizeof(v))
				r->lost_read += v[1];
		}
		G.n.lost_read += r->lost_read;
	}
}

/*
 * The losses no LOST record reports, once the events are off: the kernel
 * writes a ring's LOST record when the ring next has room for a record, so
 * what a ring lost after its last record is only in its events' lost
 * counts (pe_read_lost).  For each CPU whose counts are above what its
 * LOST records said, a LOST record of the difference is emitted at the
 * last time released (the recording, the account and the model then agree
 * on each CPU's losses).
 */
static void pe_lost_unsaid(void)
{
	for (int k = 0; k < G.rg.nrb; k++) {
		const struct rb *rb = &G.rg.rb[k];
		const struct lostc *l = &G.n.lostv[rb->cpu < 63 ? rb->cpu : 63];
		struct lost_rec r = {
			.h = { .type = PERF_RECORD_LOST, .size = sizeof(r) }, .id = rb->dummy_id,
			.sid = { .time = G.mg.released, .cpu = (uint32_t)rb->cpu, .id = rb->dummy_id },
		};

		if (rb->lost_read <= l->n || !rb->dummy_id)
			continue;
		r.lost = rb->lost_read - l->n;
		emit((const uint8_t *)&r, sizeof(r), r.sid.time, NULL);
	}
}

/*
 * One pass over all rings: read the clock, drain every ring into its queue,
 * then release what every CPU has caught up to.  final releases everything
 * (for when events are disabled).  Returns true if every ring was drained.
 */
static bool pe_pass(bool final)
{
	uint64_t t0 = now_ns(), bound = UINT64_MAX;
	bool all = true;

	G.rg.fill_in = 0;
	for (int i = 0; i < G.rg.nrb; i++) {
		struct rb *r = &G.rg.rb[i];
		struct mq *q = &G.mg.q[r->cpu];
		uint64_t last = q->caught;
		uint64_t used = rb_used(r);
		/* a ring (nearly) full may have lost records: its LOST record
		 * comes with its next ones, and must go before the other CPUs'
		 * records of the loss (mq_key): they wait for the next pass */
		bool full = used + 4096 > r->size;
		unsigned fill = rb_fill(r, used);
		int drained = rb_drain(r, r->cpu, &last);

		if (fill > G.rg.fill_in)
			G.rg.fill_in = fill;

		/* queue full: caught up to its newest record (a late one
		 * inserted last is not the newest), so that releasing frees
		 * its front */
		q->caught = drained && !full ? (t0 > SLACK_NS ? t0 - SLACK_NS : 0) :
			    q->n && mq_at(q, q->n - 1)->time > last ? mq_at(q, q->n - 1)->time : last;
		if (q->caught < bound)
			bound = q->caught;
		all &= drained;
	}
	mrg_release(final ? UINT64_MAX : bound, false);
	G.mg.pass_bound = bound;
	return all;
}

/* How full the fullest ring is, in 1024ths. */
static unsigned pe_fill(void)
{
	unsigned max = 0;

	for (int i = 0; i < G.rg.nrb; i++) {
		const struct rb *r = &G.rg.rb[i];
		unsigned f = rb_fill(r, rb_used(r));

		if (f > max)
			max = f;
	}
	return max;
}

/* Set the reader's policy: SCHED_FIFO at prio (reset on fork: the traced
 * command keeps its own), or back to SCHED_OTHER (prio 0).  false if the
 * kernel refuses. */
static bool pe_sched(int prio)
{
	struct sched_param sp = { .sched_priority = prio };

	return sched_setscheduler(0, prio ? SCHED_FIFO | SCHED_RESET_ON_FORK : SCHED_OTHER, &sp) == 0;
}

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif
#ifndef SCHED_FLAG_RESET_ON_FORK
#define SCHED_FLAG_RESET_ON_FORK 0x01
#endif
#ifndef SCHED_FLAG_RECLAIM
#define SCHED_FLAG_RECLAIM 0x02
#endif
#define DL_RUN_NS (10 * 1000000ull)	/* the raised reader's CPU time ... */
#define DL_PERIOD_NS (50 * 1000000ull)	/* ... in every period */

/* sched_setattr(2)'s struct sched_attr, its first version (the UAPI
 * header's clashes with libc's struct sched_param) */
struct dl_attr {
	uint32_t size, policy;
	uint64_t flags;
	int32_t nice;
	uint32_t priority;
	uint64_t runtime, deadline, period;
};
_Static_assert(sizeof(struct dl_attr) == 48, "SCHED_ATTR_SIZE_VER0");

/* Set the reader's policy to SCHED_DEADLINE: DL_RUN_NS of CPU in every
 * DL_PERIOD_NS, ahead of every SCHED_FIFO task, and what the real-time
 * bandwidth leaves beyond it (SCHED_FLAG_RECLAIM, where the kernel has
 * it: capped at DL_RUN_NS the live view, which draws too, fell behind a
 * busy machine and lost events); reset on fork.  false if the kernel
 * refuses (a CPU affinity narrower than the machine's, no privilege). */
static bool pe_deadline(void)
{
	struct dl_attr a = {
		.size = sizeof(a), .policy = SCHED_DEADLINE, .flags = SCHED_FLAG_RESET_ON_FORK | SCHED_FLAG_RECLAIM,
		.runtime = DL_RUN_NS, .deadline = DL_PERIOD_NS, .period = DL_PERIOD_NS,
	};

	if (syscall(__NR_sched_setattr, 0, &a, 0) == 0)
		return true;
	a.flags = SCHED_FLAG_RESET_ON_FORK;
	return syscall(__NR_sched_setattr, 0, &a, 0) == 0;
}

/*
 * The reader's priority, after each pass.  A loaded machine (load average
 * 100 and more) can starve tc for longer than its rings hold, and the
 * kernel then drops events.  With -r PRIO tc runs SCHED_FIFO at PRIO all
 * along (set at the start: an error when not permitted); -r 0 never
 * changes it; without -r it is raised while a ring is over half full (as
 * a pass comes to it, or after it) and drops back to SCHED_OTHER once
 * every pass has found every ring under an eighth for a second, that is
 * once the stream has calmed (a raised reader keeps up, so the fill it
 * leaves says nothing of how it would do lowered): it takes the CPU from
 * the workload only while events are about to be lost (make bench).
 * Raised means SCHED_DEADLINE (pe_deadline), or SCHED_FIFO 1 where the
 * kernel refuses it.  SCHED_FIFO 1 starves below any busier real-time
 * task: under FIFO 50 hogs the fair class still gets its 5%, a FIFO 1
 * reader nothing, and it lost 976,526 events (perf record 225,013); a
 * deadline reader runs ahead of them (make bench).
 */
static void pe_priority(void)
{
	uint64_t now = now_ns();
	unsigned fill;

	if (G.opt.rt != RT_AUTO || G.rg.rt_denied)
		return;
	fill = pe_fill();	/* left after the pass (its queue full), or found by it */
	if (G.rg.fill_in > fill)
		fill = G.rg.fill_in;
	if (!G.rg.raised && fill > 512) {
		G.rg.raised = pe_deadline() ? SCHED_DEADLINE : pe_sched(1) ? SCHED_FIFO : 0;
		if (!G.rg.raised) {
			G.rg.rt_denied = true;
			note("a ring is over half full and tc may not raise its priority (%s): events may be lost; "
			     "run as root or with CAP_SYS_NICE, or give -m more pages", strerror(errno));
			return;
		}
		G.rg.raised_to = G.rg.raised;
		G.rg.raised_since = now;
		G.rg.calm_since = 0;
	} else if (G.rg.raised && fill < 128) {
		if (!G.rg.calm_since)
			G.rg.calm_since = now;
		if (now - G.rg.calm_since >= NS_PER_SEC && pe_sched(0)) {
			G.rg.raised_ns += now - G.rg.raised_since;
			G.rg.raised = 0;
		}
	} else {
		G.rg.calm_since = 0;
	}
}

/* With the events disabled: drain every ring and release everything.  Each
 * pass empties the queues, so a few passes do; the bound only guards
 * against a ring that never drains (counted as corrupt). */
static void pe_flush(void)
{
	for (int i = 0; !pe_pass(true); i++)
		if (i == 1000) {
			G.bad.corrupt++;
			break;
		}
}

/* ---------------------------------------------------------------- recorder */

/*
 * tc writes perf.data in file mode (tools/perf/Documentation/
 * perf.data-file-format.txt), laid out so that it stays readable by perf
 * if tc is killed at any moment:
 *
 *   [header][ids][attrs][feature blobs][data .......... ][trailer]
 *                                       ^data.offset      ^data.offset + data.size
 *
 * The trailer is the feature table (one {offset, size} per feature bit) plus
 * the SAMPLE_TIME blob.  At a checkpoint tc writes a trailer after the data
 * and then points data.size at it (one 8-byte pwrite); new data goes after
 * it.  While recording, feature bit 0 (HEADER_RESERVED, which perf ignores)
 * is set, and its table entry, the first, is crafted to read as a
 * FINISHED_ROUND record header of the trailer's length: an old trailer
 * inside the data is then one harmless record.  The final trailer clears
 * bit 0, and the header is rewritten in one pwrite.
 */

static void buf_add(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *np;

		while (cap < b->len + n)
			cap *= 2;
		if (FAST && cap > POOL_BLOCK)	/* (all of mem_realloc's huge pages) */
			cap = (cap + 16 + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE - 16;
		if (!(np = mem_realloc(b->p, cap)))
			die("out of memory");
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void buf_u32(struct buf *b, uint32_t v) { buf_add(b, &v, 4); }
static void buf_u64(struct buf *b, uint64_t v) { buf_add(b, &v, 8); }

/* Pad b with zeros to a multiple of align. */
static void buf_pad(struct buf *b, size_t align)
{
	static const uint8_t z[64];

	if (b->len % align)
		buf_add(b, z, align - b->len % align);
}

/* A perf header string: u32 length (NUL included, padded to 64) + bytes. */
static void buf_str(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1, padded = (n + 63) / 64 * 64;
	size_t start;

	buf_u32(b, padded);
	start = b->len;
	buf_add(b, s, n);
	while (b->len < start + padded)
		buf_add(b, "", 1);
}

/*
 * The TRACING_DATA feature (tools/perf/util/trace-event-info.c, version
 * 0.6): header_page, header_event, no ftrace formats, the format file of
 * every tracepoint attr by system, empty kallsyms, printk formats and saved
 * cmdlines.  Formats come from G.ev.fmt (tracefs); header_page from tracefs.
 */
static void td_build(struct buf *b)
{
	static const char *const hdrs[] = { "header_page", "header_event" };
	uint8_t v[2] = { __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, sizeof(long) };
	const char *sys[MAX_ATTRS];
	int nsys = 0;

	buf_add(b, "\x17\x08\x44tracing0.6", 14);
	buf_add(b, v, 2);
	buf_u32(b, getpagesize());
	for (int i = 0; i < 2; i++) {
		char rel[64];
		size_t len = 0;
		char *text;

		sfmt(rel, sizeof(rel), "events/%s", hdrs[i]);
		if (!(text = tfs_read(rel, &len)))
			die("cannot read %s/%s", G.ev.tfs_root, rel);
		buf_add(b, hdrs[i], strlen(hdrs[i]) + 1);
		buf_u64(b, len);
		buf_add(b, text, len);
		mem_free(text);
	}
	buf_u32(b, 0);
	for (int i = 0; i < G.ev.nattr; i++) {
		const struct tfs_fmt *f = G.ev.attr[i].fmt;
		int k;

		for (k = 0; f && k < nsys && strcmp(sys[k], f->sys); k++)
			;
		if (f && k == nsys)
			sys[nsys++] = f->sys;
	}
	buf_u32(b, nsys);
	for (int k = 0; k < nsys; k++) {
		uint32_t cnt = 0;

		buf_add(b, sys[k], strlen(sys[k]) + 1);
		for (int i = 0; i < G.ev.nattr; i++)
			cnt += G.ev.attr[i].fmt && !strcmp(G.ev.attr[i].fmt->sys, sys[k]);
		buf_u32(b, cnt);
		for (int i = 0; i < G.ev.nattr; i++) {
			const struct tfs_fmt *f = G.ev.attr[i].fmt;

			if (f && !strcmp(f->sys, sys[k])) {
				int fi = f - G.ev.fmt;

				buf_u64(b, fmt_text[fi].len);
				buf_add(b, fmt_text[fi].text, fmt_text[fi].len);
			}
		}
	}
	buf_u32(b, 0);		/* kallsyms */
	buf_u32(b, 0);		/* printk formats */
	buf_u64(b, 0);		/* saved cmdlines */
}

/* Feature bit's blob is b's bytes from start on (b sits at file offset
 * base): note where, set the bit, pad b to 8. */
static void feat_done(struct buf *b, uint64_t base, int bit, size_t start)
{
	G.rec.blob_off[bit] = base + start;
	G.rec.blob_size[bit] = b->len - start;
	G.rec.feat |= 1ull << bit;
	buf_pad(b, 8);
}

static void rd_feat_copy(uint64_t base);

/*
 * Build the feature blobs that do not change while recording, to sit at
 * file offset base: TRACING_DATA, HOSTNAME, OSRELEASE, VERSION (TC_WRITER:
 * tc writes its records in time order), ARCH, NRCPUS, CMDLINE (tc's: -C
 * says some CPUs, see rd_cmdline), CLOCKID, CLOCK_DATA.
 * Fills G.rec.blobs* and G.rec.feat.  Saving a span of a recording (in
 * --replay), the recording's own features are kept (see rd_feat_copy).
 */
static void feat_build(uint64_t base, int nr_online)
{
	struct buf b = { 0 };
	struct utsname u;
	struct timespec tod, mono;

	if (G.opt.replay_path) {	/* the save key: the recording's own */
		rd_feat_copy(base);
		return;
	}
	uname(&u);
	G.rec.feat = 0;
#define FEAT_BEGIN(bit) size_t start_##bit = b.len
#define FEAT_END(bit) feat_done(&b, base, bit, start_##bit)
	FEAT_BEGIN(FEAT_TRACING_DATA);
	td_build(&b);
	FEAT_END(FEAT_TRACING_DATA);
	FEAT_BEGIN(FEAT_HOSTNAME);
	buf_str(&b, u.nodename);
	FEAT_END(FEAT_HOSTNAME);
	FEAT_BEGIN(FEAT_OSRELEASE);
	buf_str(&b, u.release);
	FEAT_END(FEAT_OSRELEASE);
	FEAT_BEGIN(FEAT_VERSION);	/* the writer; tc's readers trust it to mean "sorted" */
	buf_str(&b, TC_WRITER);
	FEAT_END(FEAT_VERSION);
	FEAT_BEGIN(FEAT_ARCH);
	buf_str(&b, u.machine);
	FEAT_END(FEAT_ARCH);
	FEAT_BEGIN(FEAT_NRCPUS);
	buf_u32(&b, G.m.ncpu);
	buf_u32(&b, nr_online);
	FEAT_END(FEAT_NRCPUS);
	FEAT_BEGIN(FEAT_CMDLINE);
	buf_u32(&b, G.opt.argc);
	for (int i = 0; i < G.opt.argc; i++)
		buf_str(&b, G.opt.argv[i]);
	FEAT_END(FEAT_CMDLINE);
	FEAT_BEGIN(FEAT_CLOCKID);
	buf_u64(&b, 1);
	FEAT_END(FEAT_CLOCKID);
	FEAT_BEGIN(FEAT_CLOCK_DATA);
	clock_gettime(CLOCK_REALTIME, &tod);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	buf_u32(&b, 1);
	buf_u32(&b, CLOCK_MONOTONIC);
	buf_u64(&b, (uint64_t)tod.tv_sec * NS_PER_SEC + tod.tv_nsec);
	buf_u64(&b, (uint64_t)mono.tv_sec * NS_PER_SEC + mono.tv_nsec);
	FEAT_END(FEAT_CLOCK_DATA);
	if (G.fl.mark[0]) {
		FEAT_BEGIN(FEAT_TC_MARK);
		buf_str(&b, G.fl.mark);
		FEAT_END(FEAT_TC_MARK);
	}
#undef FEAT_BEGIN
#undef FEAT_END
	mem_free(G.rec.blobs);
	G.rec.blobs = b.p;
	G.rec.blobs_len = b.len;
}

/* The trailer at file offset pos into out (>= 16 * 66 bytes): the feature
 * table and the SAMPLE_TIME blob.  Returns its length. */
static size_t rec_trailer(uint8_t *out, uint64_t pos, uint64_t bits)
{
	int n = __builtin_popcountll(bits);
	size_t tlen = 16 * n + 16, o = 0;
	uint64_t v[2];

	for (int f = 0; f < 64; f++) {
		if (!(bits >> f & 1))
			continue;
		if (f == FEAT_RESERVED) {	/* a record header, as the file's byte order lays it out */
			struct perf_event_header h = { .type = PR_FINISHED_ROUND, .size = tlen };

			memset(v, 0, sizeof(v));
			memcpy(v, &h, sizeof(h));
		} else if (f == FEAT_SAMPLE_TIME) {
			v[0] = pos + 16 * n;
			v[1] = 16;
		} else {
			v[0] = G.rec.blob_off[f];
			v[1] = G.rec.blob_size[f];
		}
		memcpy(out + o, v, 16);
		o += 16;
	}
	v[0] = G.rec.first;
	v[1] = G.rec.last;
	memcpy(out + o, v, 16);
	return tlen;
}

/* A write of the recording failed (errno says why): say so and stop. */
static void __attribute__((noreturn)) rec_die(void)
{
	if (errno == ETIMEDOUT)
		die("writing %s: told to stop, and the reader of the stream took nothing for %d s: it ends there",
		    G.opt.rec_path, STOP_WAIT_MS / 1000);
	die("writing %s: %s", G.opt.rec_path, errno == EPIPE ? "the reader of the stream has gone" : strerror(errno));
}

/* Write the buffered data; a failed write is fatal (disk full, or the
 * reader of a stream has gone or does not read). */
static void rec_flush(void)
{
	if (G.rec.len && write_all(G.rec.fd, G.rec.buf, G.rec.len) < 0)
		rec_die();
	G.rec.len = 0;
}

/* Append record r (n bytes) to the data.  The buffer is written when
 * the file reaches a multiple of REC_BUF (a record may be split between
 * two writes): writes of 256 KiB at such offsets leave the file in the
 * page cache in large folios, where unaligned ones left small folios
 * (ext4, Linux 6.18: mapping 40 MB and touching it took 238 page faults
 * in 3.5 ms, against 557 in 4.4 ms; read() copies 12 GB/s of large
 * folios, 9.5 of small ones, on an AMD EPYC VM). */
static void rec_append(const void *r, size_t n)
{
	size_t k = REC_BUF - G.rec.pos % REC_BUF;	/* from the file's end to the next multiple */

	if (k < n) {
		rec_append(r, k);
		rec_append((const uint8_t *)r + k, n - k);
		return;
	}
	memcpy(G.rec.buf + G.rec.len, r, n);
	G.rec.len += n;
	G.rec.pos += n;
	if (k == n)
		rec_flush();
}

/* Append record r (n bytes, time t) to the data; a sample's time counts
 * for SAMPLE_TIME. */
static void rec_record(const uint8_t *r, size_t n, uint64_t t)
{
	rec_append(r, n);
	if (g32(r) == PERF_RECORD_SAMPLE && t) {
		if (!G.rec.first)
			G.rec.first = t;
		G.rec.last = t;
	}
}

/* Append a FINISHED_ROUND record: everything before it was one pass. */
static void rec_round(void)
{
	struct perf_event_header h = { .type = PR_FINISHED_ROUND, .size = 8 };

	rec_append(&h, sizeof(h));
}

/*
 * The syncer: a child process that makes each checkpoint durable, so that
 * the reader never waits for the disk.  fdatasync() waits until the file's
 * data is on the device: 0.3 s on this machine's disk under an fsync
 * storm, seconds on an SD card or any disk slower than the event stream,
 * and the rings overflow meanwhile (make bench: a 1 MB/s disk).  The
 * syncer reads each checkpoint's data size from a pipe (the newest of
 * those waiting), syncs the file (its trailer is written: see
 * rec_checkpoint), and only then points the header at it: a power cut
 * leaves the last synced checkpoint.  If tc is killed, the syncer
 * finishes the checkpoint it was given (one fdatasync) and exits at the
 * pipe's end.
 */
static void rec_sync_loop(int in)
{
	uint64_t d[64];
	ssize_t n, w = 0;

	while ((n = read(in, d, sizeof(d))) > 0 || (n < 0 && errno == EINTR))
		if (n >= 8 && fdatasync(G.rec.fd) == 0)
			w = pwrite(G.rec.fd, &d[n / 8 - 1], 8, 48);	/* failed: tc's own writes say why */
	_exit(w < 0);
}

/* fork() a child of the recorder named name: it holds no event (they end
 * with tc) and leaves the terminal's signals to tc.  Returns as fork(). */
static pid_t rec_fork(const char *name)
{
	static const int quiet[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH };
	pid_t pid = fork();

	if (pid)
		return pid;
	prctl(PR_SET_NAME, name);
	for (int i = 0; i < G.rg.nfd; i++)
		close(G.rg.fds[i]);
	for (size_t i = 0; i < sizeof(quiet) / sizeof(quiet[0]); i++)
		signal(quiet[i], SIG_IGN);
	return 0;
}

/* Start the syncer for the recording (a file, not a stream); without one
 * (fork refused) tc syncs checkpoints itself. */
static void rec_sync_start(void)
{
	int p[2];

	if (G.rec.pipe || pipe2(p, O_CLOEXEC) < 0)
		return;
	G.rec.sync_pid = rec_fork("tc-sync");
	if (G.rec.sync_pid == 0) {
		close(p[1]);
		rec_sync_loop(p[0]);
	}
	close(p[0]);
	if (G.rec.sync_pid < 0) {
		G.rec.sync_pid = 0;
		close(p[1]);
		return;
	}
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	G.rec.sync_fd = p[1];
}

/* Stop the syncer (what it has not done, the final header overwrites). */
static void rec_sync_stop(void)
{
	if (G.rec.sync_pid <= 0)
		return;
	close(G.rec.sync_fd);
	kill(G.rec.sync_pid, SIGKILL);
	while (waitpid(G.rec.sync_pid, NULL, 0) < 0 && errno == EINTR)
		;
	G.rec.sync_pid = 0;
}

/* Reap the saved files' fsyncs that are done; all of them (waiting) if
 * all.  One reaped by cmd_reap's waitpid(-1) is done too (ECHILD). */
static void rec_fsync_reap(bool all)
{
	for (size_t i = 0; i < sizeof(G.rec.fsyncs) / sizeof(G.rec.fsyncs[0]); i++) {
		pid_t p = G.rec.fsyncs[i], r;

		if (p <= 0)
			continue;
		while ((r = waitpid(p, NULL, all ? 0 : WNOHANG)) < 0 && errno == EINTR)
			;
		if (r != 0)
			G.rec.fsyncs[i] = 0;
	}
}

/* Make fd, a file saved while the events are on, durable in a child
 * (tc-fsync), so that the reader goes on draining the rings: on a 1 MB/s
 * disk a flight file of 10 MiB takes 10 s.  false (the caller syncs) if
 * every slot is busy or fork fails. */
static bool rec_fsync_later(int fd)
{
	rec_fsync_reap(false);
	for (size_t i = 0; i < sizeof(G.rec.fsyncs) / sizeof(G.rec.fsyncs[0]); i++)
		if (!G.rec.fsyncs[i]) {
			pid_t p = rec_fork("tc-fsync");

			if (p == 0)
				_exit(fsync(fd) < 0);
			if (p < 0)
				return false;
			G.rec.fsyncs[i] = p;
			return true;
		}
	return false;
}

/* Make everything appended so far readable after a crash (see above):
 * the trailer written here, the sync and then the header's pointer to it
 * by the syncer (here without one); a stream gets it written out. */
static void rec_checkpoint(void)
{
	uint8_t t[16 * 66];
	size_t tlen;
	uint64_t dsize;

	rec_flush();
	G.rec.ckpt_ns = now_ns();
	if (G.rec.pipe)
		return;
	tlen = rec_trailer(t, G.rec.pos, G.rec.feat);
	if (write_all(G.rec.fd, t, tlen) < 0)
		rec_die();
	dsize = G.rec.pos - G.rec.data_off;
	G.rec.pos += tlen;
	if (G.rec.sync_pid > 0) {
		if (write(G.rec.sync_fd, &dsize, 8) == 8 || errno == EAGAIN)
			return;	/* EAGAIN: the syncer is far behind; a later checkpoint goes */
		rec_sync_stop();	/* the syncer is gone: tc syncs itself */
	}
	if (!G.rec.save)	/* a saved file is synced whole when closed */
		fdatasync(G.rec.fd);
	if (pwrite(G.rec.fd, &dsize, 8, 48) != 8)
		rec_die();
}

/* Under sudo, give the recording at fd to the user who ran sudo
 * (SUDO_UID, SUDO_GID), so that it reads it without root. */
static void rec_give(int fd)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	uint64_t uid, gid;
	char *e1, *e2;

	if (geteuid() != 0 || !u || !g)
		return;
	uid = num_u(u, &e1, 10);
	gid = num_u(g, &e2, 10);
	if (!*u || *e1 || !*g || *e2 || uid >= UINT32_MAX || gid >= UINT32_MAX) {
		note("SUDO_UID=%s SUDO_GID=%s are not numbers: %s stays root's", u, g, G.opt.rec_path);
		return;
	}
	if (fchown(fd, uid, gid) < 0)
		note("cannot give %s to uid %" PRIu64 " gid %" PRIu64 ": %s", G.opt.rec_path, uid, gid, strerror(errno));
}

/*
 * Open G.opt.rec_path for the recording: sets G.rec.fd and G.rec.pipe.  "-" is
 * standard output (tc's own stdout then goes to stderr, so that neither tc
 * nor the command writes into the stream).  Only a regular file at the path
 * is ever replaced, and it is kept as FILE.old; a FIFO or a character
 * device (/dev/null) gets a stream; a symlink, a directory, a block device
 * or a socket is refused.  A new file is created mode 0600 (see rec_give).
 */
static void rec_open_out(void)
{
	const char *p = G.opt.rec_path;
	char old[PATH_MAX];
	struct stat st, fst;
	int waited = 0;

	if (!strcmp(p, "-")) {
		if (isatty(1))
			die("--record -: standard output is a terminal; pipe it into a reader (tc --record - | tc --replay -) or give a file name");
		if ((G.rec.fd = fcntl(1, F_DUPFD_CLOEXEC, 3)) < 0)
			die("--record -: standard output: %s", strerror(errno));
		dup2(2, 1);
		G.rec.pipe = true;
		return;
	}
	if (lstat(p, &st) < 0) {
		if (errno != ENOENT)
			die("cannot record to %s: %s", p, strerror(errno));
	} else if (S_ISLNK(st.st_mode)) {
		die("%s is a symbolic link: tc does not follow it or replace it; give the file it points to, or - for standard output", p);
	} else if (S_ISDIR(st.st_mode)) {
		die("%s is a directory: give a file name inside it", p);
	} else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
		/* a stream: written as it is, never renamed or created; a FIFO
		 * is waited on until it has a reader (or tc is stopped) */
		while ((G.rec.fd = open(p, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)) < 0 &&
		       errno == ENXIO && !G.sig.stop) {
			if (!waited++)
				note("%s is a FIFO: waiting for a reader", p);
			usleep(100000);
		}
		if (G.rec.fd < 0)
			die("cannot write to %s: %s", p, G.sig.stop ? "stopped before a reader came" : strerror(errno));
		fcntl(G.rec.fd, F_SETFL, fcntl(G.rec.fd, F_GETFL) & ~O_NONBLOCK);
		if (fstat(G.rec.fd, &fst) < 0 || fst.st_ino != st.st_ino || fst.st_dev != st.st_dev)
			die("%s changed while it was opened: not recording", p);
		if (isatty(G.rec.fd))
			die("%s is a terminal: record to a file, a FIFO or - (standard output into a pipe)", p);
		G.rec.pipe = true;
		return;
	} else if (!S_ISREG(st.st_mode)) {
		die("%s is a %s, not a file: tc writes only to a regular file, a FIFO or a character device",
		    p, S_ISBLK(st.st_mode) ? "block device" : "socket");
	} else {
		if ((size_t)sfmt(old, sizeof(old), "%s.old", p) >= sizeof(old))
			die("%s: the name is too long to keep the existing file as %s.old; give a shorter name", p, p);
		if (rename(p, old) < 0)
			die("cannot keep the existing %s as %s: %s", p, old, strerror(errno));
		G.rec.kept_old = true;
	}
	G.rec.fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (G.rec.fd < 0)
		die("cannot create %s: %s", p, strerror(errno));
	rec_give(G.rec.fd);
}

/* An attr as written in both modes: perf_event_attr of FILE_ATTR_SIZE
 * bytes, without read_format (tc's files hold no read values) unless its
 * samples carry them (a span saved from perf's recording). */
static void rec_attr_bytes(uint8_t a[FILE_ATTR_SIZE], const struct attr *at)
{
	struct perf_event_attr pa = at->pa;

	memset(a, 0, FILE_ATTR_SIZE);
	pa.size = FILE_ATTR_SIZE;
	if (!(pa.sample_type & PERF_SAMPLE_READ))
		pa.read_format = 0;
	memcpy(a, &pa, sizeof(pa) < FILE_ATTR_SIZE ? sizeof(pa) : FILE_ATTR_SIZE);
}

/* File mode: the header, the ids, the attrs and the feature blobs; the
 * data starts after them. */
static void rec_file_head(int nr_online)
{
	struct buf b = { 0 };
	uint64_t ids_off = FILE_HDR_SIZE, attrs_off, off, data_off;
	uint64_t hdr[13] = { 0 };

	buf_add(&b, hdr, FILE_HDR_SIZE);
	for (int i = 0; i < G.ev.nattr; i++)
		buf_add(&b, G.ev.attr[i].ids, 8 * G.ev.attr[i].nids);
	attrs_off = b.len;
	off = ids_off;
	for (int i = 0; i < G.ev.nattr; i++) {
		uint8_t a[FILE_ATTR_SIZE];
		uint64_t io[2] = { off, 8 * (uint64_t)G.ev.attr[i].nids };

		rec_attr_bytes(a, &G.ev.attr[i]);
		buf_add(&b, a, sizeof(a));
		buf_add(&b, io, sizeof(io));
		off += io[1];
	}
	feat_build(b.len, nr_online);
	buf_add(&b, G.rec.blobs, G.rec.blobs_len);
	data_off = b.len;
	G.rec.feat |= 1ull << FEAT_RESERVED | 1ull << FEAT_SAMPLE_TIME;

	hdr[0] = PERF_MAGIC2;
	hdr[1] = FILE_HDR_SIZE;
	hdr[2] = FILE_ATTR_SIZE + 16;
	hdr[3] = attrs_off;
	hdr[4] = (uint64_t)G.ev.nattr * (FILE_ATTR_SIZE + 16);
	hdr[5] = data_off;
	hdr[6] = 0;
	hdr[9] = G.rec.feat;
	memcpy(b.p, hdr, sizeof(hdr));
	if (write_all(G.rec.fd, b.p, b.len) < 0)
		rec_die();
	mem_free(b.p);
	G.rec.data_off = G.rec.pos = data_off;
}

/* Append a user record of type with body n bytes (padded to 8) to b. */
static void rec_user(struct buf *b, uint32_t type, const void *body, size_t n)
{
	struct perf_event_header h = { .type = type, .size = 8 + (n + 7) / 8 * 8 };

	if (8 + n > 0xfff8)
		die("a %u record of %zu bytes does not fit in a pipe-mode header: trace fewer CPUs (-C)", type, n);
	buf_add(b, &h, 8);
	buf_add(b, body, n);
	buf_pad(b, 8);
}

/*
 * Pipe mode (a stream, readable as it is written; no seeks): the 16-byte
 * header, HEADER_FEATURE records (each {header, u64 feature, the blob as
 * in file mode}), one HEADER_ATTR record per attr ({header, attr, ids}),
 * and HEADER_TRACING_DATA ({header, u32 size, u32 pad}, then size bytes:
 * the blob padded to 8, which the record's own size does not count).
 * The data records follow, with FINISHED_ROUND after every pass.
 */
static void rec_pipe_head(int nr_online)
{
	static const int feats[] = { FEAT_HOSTNAME, FEAT_OSRELEASE, FEAT_VERSION, FEAT_ARCH,
				     FEAT_NRCPUS, FEAT_CMDLINE, FEAT_CLOCKID, FEAT_CLOCK_DATA };
	uint64_t head[2] = { PERF_MAGIC2, 16 };
	uint32_t td[2];
	struct buf b = { 0 }, r = { 0 };

	feat_build(0, nr_online);
	buf_add(&b, head, sizeof(head));
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		uint64_t f = feats[i];

		r.len = 0;
		buf_add(&r, &f, 8);
		buf_add(&r, G.rec.blobs + G.rec.blob_off[f], G.rec.blob_size[f]);
		rec_user(&b, PR_HEADER_FEATURE, r.p, r.len);
	}
	for (int i = 0; i < G.ev.nattr; i++) {
		uint8_t a[FILE_ATTR_SIZE];

		r.len = 0;
		rec_attr_bytes(a, &G.ev.attr[i]);
		buf_add(&r, a, sizeof(a));
		buf_add(&r, G.ev.attr[i].ids, 8 * G.ev.attr[i].nids);
		rec_user(&b, PR_HEADER_ATTR, r.p, r.len);
	}
	td[0] = (G.rec.blob_size[FEAT_TRACING_DATA] + 7) / 8 * 8;
	td[1] = 0;
	rec_user(&b, PR_HEADER_TRACING_DATA, td, sizeof(td));
	buf_add(&b, G.rec.blobs + G.rec.blob_off[FEAT_TRACING_DATA], G.rec.blob_size[FEAT_TRACING_DATA]);
	buf_pad(&b, 8);
	if (write_all(G.rec.fd, b.p, b.len) < 0)
		rec_die();
	G.rec.data_off = G.rec.pos = b.len;
	mem_free(b.p);
	mem_free(r.p);
}

/*
 * Create the recording at G.opt.rec_path (see rec_open_out) for the attrs in
 * G.ev.attr, and write everything up to the first checkpoint: file mode for
 * a regular file, pipe mode for a stream.
 */
static void rec_open(int nr_online)
{
	rec_open_out();
	G.rec.buf = xcalloc(1, REC_BUF);
	if (G.rec.pipe)
		rec_pipe_head(nr_online);
	else
		rec_file_head(nr_online);
	rec_round();
	rec_checkpoint();
}

/* Finish the recording: the syncer stopped, the final trailer without bit
 * 0, the header rewritten, all synced (a file saved while the events are
 * on by rec_fsync_later); a stream just ends. */
static void rec_close(void)
{
	uint8_t t[16 * 66];
	size_t tlen;
	uint64_t h[7];

	rec_flush();
	rec_sync_stop();	/* waits for its fdatasync, if one is under way */
	mem_free(G.rec.buf);	/* rec_open allocates it: a flight or saved file each */
	G.rec.buf = NULL;
	if (G.rec.pipe) {
		close(G.rec.fd);
		G.rec.fd = -1;
		return;
	}
	G.rec.feat &= ~(1ull << FEAT_RESERVED);
	tlen = rec_trailer(t, G.rec.pos, G.rec.feat);
	if (write_all(G.rec.fd, t, tlen) < 0)
		rec_die();
	h[0] = G.rec.pos - G.rec.data_off;
	h[1] = h[2] = 0;
	h[3] = G.rec.feat;
	h[4] = h[5] = h[6] = 0;
	if (pwrite(G.rec.fd, h, sizeof(h), 48) != sizeof(h))
		rec_die();
	if (!G.rec.save || !G.rg.nrb || G.rg.on_until || !rec_fsync_later(G.rec.fd))
		fsync(G.rec.fd);
	close(G.rec.fd);
	G.rec.fd = -1;
}

/*
 * A file written whole at once (a flight file, the save key's): open it
 * as the recording (file mode; the recorder must be free), for
 * rec_save_close.  Returns the name of the recording to put back.
 */
static const char *rec_save_open(const char *path, int nr_online)
{
	const char *base = G.opt.rec_path;

	G.opt.rec_path = path;
	G.rec.save = true;
	rec_open(nr_online);
	return base;
}

/* Close a file of rec_save_open holding n records (base: what it
 * returned); msg gets "FILE: span, records, size" and then extra. */
static void rec_save_close(const char *base, int n, const char *extra, char *msg, size_t msz)
{
	struct stat st;
	char line[PATH_MAX + 128];

	rec_round();
	rec_close();
	G.rec.save = false;
	sfmt(line, sizeof(line), "%s: %.3f s, %d records, %.1f MiB%s", G.opt.rec_path,
	     (G.rec.last > G.rec.first ? G.rec.last - G.rec.first : 0) / 1e9, n,
	     stat(G.opt.rec_path, &st) == 0 ? st.st_size / 1048576.0 : 0.0, extra);
	scopy(msg, msz, line);
	G.opt.rec_path = base;
	G.rec.first = G.rec.last = 0;
}

/* Fill r with the COMM record naming tid (of thread group pid) comm, as
 * tc synthesizes it (time 0). */
static void rec_comm(struct comm_rec *r, int pid, int tid, const char *comm)
{
	memset(r, 0, sizeof(*r));
	r->h = (struct perf_event_header){ .type = PERF_RECORD_COMM, .size = sizeof(*r) };
	r->pid = r->sid.pid = pid;
	r->tid = r->sid.tid = tid;
	memcpy(r->comm, comm, strnlen(comm, COMM_LEN - 1));
	r->sid.id = G.ev.attr[G.ev.nattr - 1].ids[0];	/* the dummy event's */
}

/*
 * COMM records for the tasks alive at start (from /proc), so that their
 * names are known, as perf record synthesizes them.  Sent through emit()
 * with time 0, in the dummy event's sample_id layout.
 */
static void rec_synth_comms(void)
{
	static struct numdir pd, td;	/* 4 KiB each, off the stack */
	int pid, tid;

	numdir_open(&pd, "/proc");
	while ((pid = numdir_next(&pd))) {
		char path[300];

		sfmt(path, sizeof(path), "/proc/%d/task", pid);
		numdir_open(&td, path);
		while ((tid = numdir_next(&td))) {
			struct comm_rec r;
			char comm[64];

			sfmt(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
			if (read_small(path, comm, sizeof(comm)) <= 0)
				continue;
			comm[strcspn(comm, "\n")] = 0;
			rec_comm(&r, pid, tid, comm);
			emit((const uint8_t *)&r, sizeof(r), 0, NULL);
		}
	}
}

/* ---------------------------------------------------------------- flight recorder */

/*
 * tc --record FILE --flight SECONDS: the records released by the merge are
 * kept in memory only, in a byte ring sized at start (fl.cap), each after
 * its u64 time; when the ring is full the oldest go.  A file is written
 * when a trigger fires (the SECONDS before it and --after seconds after),
 * on SIGUSR2, and when tc stops without having fired (the last SECONDS).
 * Files are FILE, FILE.1, ... FILE.(keep-1); after the keep-th, tc stops.
 * A file starts with COMM records of every task the model knows, so that
 * names survive the records that named them, and says what fired in the
 * FEAT_TC_MARK feature (perf ignores it; tc's --summary and view show it).
 *
 * Triggers are checked on the merged stream against the model's state
 * before each event changes it:
 *
 *   wait>D     a switch-in of a task runnable for more than D
 *   blocked>D  a wakeup of a task blocked (D state) for more than D
 *   run>D      a switch-out of a task running for more than D
 *   lost       a loss of events reported by the kernel
 */

enum { TRIG_WAIT, TRIG_BLOCKED, TRIG_RUN, TRIG_LOST, TRIG_N };
static const char *const trig_names[TRIG_N] = { "wait", "blocked", "run", "lost" };

/* A FEAT_TC_MARK ("kind time tid length comm") in words, for a person;
 * *t gets the time (0 if the mark does not parse). */
static const char *fl_mark_text(const char *mark, uint64_t *t)
{
	static char out[192];
	char kind[16], comm[COMM_LEN + 1] = "";
	uint64_t len;
	int tid;

	char *p;
	size_t n = strcspn(mark, " ");

	*t = 0;
	if (!n || n >= sizeof(kind) || mark[n] != ' ')
		return "a flight recording whose trigger cannot be read";
	memcpy(kind, mark, n);
	kind[n] = 0;
	*t = num_u(mark + n + 1, &p, 10);
	tid = (int)num_i(p, &p);
	len = num_u(p, &p, 10);
	if (*p == ' ')
		scopy(comm, sizeof(comm), p + 1);
	for (char *p = comm; *p; p++)	/* a name from the traced programs */
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	if (!strcmp(kind, "lost"))
		sfmt(out, sizeof(out), "flight recording: trigger lost (%" PRIu64 " events) at %" PRIu64 ".%06u s",
		     len, (uint64_t)(*t / NS_PER_SEC), (unsigned)(*t % NS_PER_SEC / 1000));
	else
		sfmt(out, sizeof(out), "flight recording: trigger %s: %s:%d %s %" PRIu64 ".%03u ms, at %" PRIu64 ".%06u s",
		     kind, comm, tid, !strcmp(kind, "wait") ? "waited runnable" : !strcmp(kind, "run") ?
		     "ran" : "was blocked", len / 1000000, (unsigned)(len / 1000 % 1000),
		     (uint64_t)(*t / NS_PER_SEC), (unsigned)(*t % NS_PER_SEC / 1000));
	return out;
}

/* Parse a trigger "wait>30ms" (units ns, us, ms, s) into G.fl; false if bad. */
static bool fl_parse_trigger(const char *s)
{
	static const struct { const char *u; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};

	if (G.fl.ntrig == (int)(sizeof(G.fl.trig) / sizeof(G.fl.trig[0])))
		return false;
	for (int k = 0; k < TRIG_N; k++) {
		size_t n = strlen(trig_names[k]);
		char *end;
		double d;

		if (strncmp(s, trig_names[k], n))
			continue;
		if (k == TRIG_LOST) {
			if (s[n])
				return false;
			G.fl.trig[G.fl.ntrig++] = (struct trig){ k, 0 };
			return true;
		}
		if (s[n] != '>')
			return false;
		d = num_dec(s + n + 1, &end);
		for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++)
			if (end != s + n + 1 && !strcmp(end, units[u].u) && d >= 0 && d * units[u].ns < 1e15) {
				G.fl.trig[G.fl.ntrig++] = (struct trig){ k, (uint64_t)(d * units[u].ns) };
				return true;
			}
		return false;
	}
	return false;
}

/* Allocate the ring: --flight-mem MiB, else 16 MiB per second kept
 * (about 250,000 records a second), at least 16 MiB, at most 512 MiB; for
 * the live view's save key (no --flight) 8 MiB per second of the window. */
static void fl_init(void)
{
	uint64_t kept = G.fl.secs_ns ? G.fl.secs_ns : G.v.window_ns;
	size_t mib = G.fl.mem_mib ? G.fl.mem_mib : (size_t)(kept / NS_PER_SEC + 1) * (G.fl.secs_ns ? 16 : 8);

	if (mib < 16 && !G.fl.mem_mib)
		mib = 16;
	if (mib > 512 && !G.fl.mem_mib)
		mib = 512;
	G.fl.cap = mib << 20;
	G.fl.buf = xcalloc(1, G.fl.cap);
	if (G.fl.secs_ns)	/* resident from the start: memory stays flat */
		memset(G.fl.buf, 0xff, G.fl.cap);
	G.fl.arm_after = 0;
}

/* The slot of the ring at running position p: *t and *r get the time and
 * the record kept there (*r NULL: a skip to the start of the ring).
 * Returns the bytes to the next slot. */
static size_t fl_slot(uint64_t p, uint64_t *t, const uint8_t **r)
{
	size_t o = p % G.fl.cap;

	memcpy(t, G.fl.buf + o, 8);
	if (G.fl.cap - o < 16 || *t == UINT64_MAX) {
		*r = NULL;
		return G.fl.cap - o;
	}
	*r = G.fl.buf + o + 8;
	return 8 + ((g16(*r + 6) + 7) & ~(size_t)7);
}

/* Keep record r (n bytes, time t) in the ring, dropping the oldest. */
static void fl_append(const uint8_t *r, size_t n, uint64_t t)
{
	size_t need = 8 + ((n + 7) & ~(size_t)7), off = G.fl.head % G.fl.cap, skip;

	if (need > G.fl.cap)
		return;
	skip = G.fl.cap - off < need ? G.fl.cap - off : 0;
	while (G.fl.tail < G.fl.head && G.fl.head + skip + need - G.fl.tail > G.fl.cap) {	/* drop the oldest */
		uint64_t tt;
		const uint8_t *old;

		G.fl.tail += fl_slot(G.fl.tail, &tt, &old);
		if (old)
			G.fl.dropped_t = tt;
	}
	if (skip) {
		if (skip >= 8)
			memset(G.fl.buf + off, 0xff, 8);
		G.fl.head += skip;
		off = 0;
	}
	memcpy(G.fl.buf + off, &t, 8);
	memcpy(G.fl.buf + off + 8, r, n);
	G.fl.head += need;
	G.fl.newest = t;
	if (!G.fl.oldest)
		G.fl.oldest = t;
}

/* A trigger fired on task tid (-1: none) at time t: write from t - SECONDS
 * to t + --after, once that much has been recorded. */
static void fl_fire(int kind, const struct task *tk, uint64_t t, uint64_t len)
{
	if (G.fl.pending || G.fl.written >= G.fl.keep || t < G.fl.arm_after)
		return;
	G.fl.pending = true;
	G.fl.fired = t;
	G.fl.from = t > G.fl.secs_ns ? t - G.fl.secs_ns : 0;
	G.fl.until = t + G.fl.after_ns;
	sfmt(G.fl.mark, sizeof(G.fl.mark), "%s %" PRIu64 " %d %" PRIu64 " %.16s", trig_names[kind],
	     t, tk ? tk->tid : -1, len, tk ? tk->comm : "");
}

/* Check the triggers against event e, before the model applies it. */
static void fl_check(const struct ev *e)
{
	for (int i = 0; i < G.fl.ntrig; i++) {
		const struct trig *g = &G.fl.trig[i];
		const struct task *tk;

		switch (g->kind) {
		case TRIG_WAIT:
			if (e->kind == EV_SWITCH && (tk = task_find(e->b)) && tk->state == ST_RUNNABLE &&
			    e->time > tk->wait_start && e->time - tk->wait_start > g->d && filter_task(tk))
				fl_fire(g->kind, tk, e->time, e->time - tk->wait_start);
			break;
		case TRIG_RUN:
			if (e->kind == EV_SWITCH && (tk = task_find(e->a)) && tk->state == ST_RUNNING &&
			    e->time > tk->since && e->time - tk->since > g->d && filter_task(tk))
				fl_fire(g->kind, tk, e->time, e->time - tk->since);
			break;
		case TRIG_BLOCKED:
			if ((e->kind == EV_WAKEUP || e->kind == EV_WAKING) && (tk = task_find(e->a)) &&
			    tk->state == ST_BLOCKED && e->time > tk->since && e->time - tk->since > g->d &&
			    filter_task(tk))
				fl_fire(g->kind, tk, e->time, e->time - tk->since);
			break;
		case TRIG_LOST:
			if (e->kind == EV_LOST && e->v > 0)
				fl_fire(g->kind, NULL, e->time, e->v);
			break;
		}
	}
}

/* COMM records (time 0) of every task the model has a name for. */
static void fl_comms(void)
{
	for (int i = 0; i < G.m.ntask; i++) {
		const struct task *tk = &G.m.task[i];
		struct comm_rec r;

		if (!tk->comm[0])
			continue;
		rec_comm(&r, tk->pid > 0 ? tk->pid : tk->tid, tk->tid, tk->comm);
		rec_append(&r, sizeof(r));
	}
}

/*
 * Write the kept records with times from from to until as recording path,
 * after COMM records of every task the model knows (and FEAT_TC_MARK when
 * a trigger fired); msg gets a line saying what was written.  Returns the
 * number of records.  The recorder must be free (no --record running).
 */
static int fl_save(const char *path, uint64_t from, uint64_t until, char *msg, size_t msz)
{
	const char *base;
	int nonline = 0, n = 0;

	for (int c = 0; c < G.m.ncpu; c++)
		nonline += G.m.cpu_online[c];
	base = rec_save_open(path, nonline);
	fl_comms();
	rec_round();
	for (uint64_t p = G.fl.tail; p < G.fl.head;) {
		const uint8_t *r;
		uint64_t t;

		p += fl_slot(p, &t, &r);
		if (r && t >= from && t <= until) {
			rec_record(r, g16(r + 6), t);
			if (++n % 4096 == 0)
				rec_round();
		}
	}
	rec_save_close(base, n, G.fl.dropped_t > from ? " (older records had left the buffer)" : "", msg, msz);
	return n;
}

/* Write the kept records from time from to until as the next file
 * (FILE, FILE.1, ...), with what fired; say so on stderr, or on the view's
 * status line while the view owns the terminal (in_view). */
static void fl_write(uint64_t from, uint64_t until, bool in_view)
{
	char path[PATH_MAX], msg[PATH_MAX + 96];
	uint64_t t;

	if (!G.opt.rec_path)	/* parse_args makes it so; never a file named "(null)" */
		die("the flight recorder has no --record FILE to write");
	if (G.fl.written)
		sfmt(path, sizeof(path), "%s.%u", G.opt.rec_path, G.fl.written);
	else
		sfmt(path, sizeof(path), "%s", G.opt.rec_path);
	fl_save(path, from, until, msg, sizeof(msg));
	if (in_view)
		sfmt(G.v.msg, sizeof(G.v.msg), "flight recorder: %.70s", msg);
	else
		note("flight recorder: %s", msg);
	if (G.fl.mark[0] && !in_view)
		note("%s", fl_mark_text(G.fl.mark, &t));
	if (G.fl.dropped_t > from && !in_view)
		note("flight recorder: the buffer (%zu MiB) held only the last %.3f s: raise --flight-mem",
		     G.fl.cap >> 20, (until > G.fl.dropped_t ? until - G.fl.dropped_t : 0) / 1e9);
	else if (G.fl.mark[0] && G.fl.oldest > from && !in_view)
		note("flight recorder: the trigger fired %.3f s after recording began, so the file holds %.3f s "
		     "before it, not --flight %.3f s", (G.fl.fired - G.fl.oldest) / 1e9, (G.fl.fired - G.fl.oldest) / 1e9,
		     G.fl.secs_ns / 1e9);
	G.fl.written++;
	G.fl.mark[0] = 0;
	G.fl.pending = false;
	G.fl.arm_after = until;	/* one moment one file */
}

/* After each pass: write a file whose --after span has been recorded (and
 * the last SECONDS on SIGUSR2), once the rings are calm.  Returns true when
 * the keep-th file is written: --record stops then; the view goes on, its
 * triggers spent. */
static bool fl_poll(bool in_view)
{
	if (G.sig.usr2) {
		G.sig.usr2 = 0;
		if (!G.fl.pending && G.fl.newest)
			fl_write(G.fl.newest > G.fl.secs_ns ? G.fl.newest - G.fl.secs_ns : 0, G.fl.newest, in_view);
	}
	/* a ring over half full: drain first, write when calm (at most 1 s later) */
	if (G.fl.pending && G.mg.released >= G.fl.until &&
	    (G.mg.released >= G.fl.until + NS_PER_SEC || !G.rg.nrb || pe_fill() <= 512))
		fl_write(G.fl.from, G.fl.until, in_view);
	return G.fl.written >= G.fl.keep;
}

/* The capture ends: write a pending file with what there is, or, if
 * nothing was written, the last SECONDS (said as fl_write says it). */
static void fl_stop(bool in_view)
{
	if (G.fl.pending)
		fl_write(G.fl.from, G.fl.until, in_view);
	else if (!G.fl.written && G.fl.newest)
		fl_write(G.fl.newest > G.fl.secs_ns ? G.fl.newest - G.fl.secs_ns : 0, G.fl.newest, in_view);
}

/* ---------------------------------------------------------------- reader */

/*
 * The reader streams a recording's records through the merge into emit():
 * file mode (tc's and perf record's, also cut off ones) and pipe mode.
 * Every offset, count and size from the file is checked before use; what
 * cannot be read ends the stream with a note, and what was read stands.
 */

static void rd_progress(uint64_t upto);

/*
 * Make at least need bytes (at most MAX_REC) available at G.rc.buf +
 * G.rc.pos; false at the end of the data.  Every recording, file or
 * stream, is read with read() in chunks of RD_BUF bytes (larger ones fall
 * out of the cache) into one buffer, which keeps the bytes read until it
 * is full; the merge reads the records it holds that the buffer no longer
 * has again (rd_at).  A perf file's buffer (rd_seek) holds RD_CAP bytes,
 * a tc file's or a stream's RD_BUF: a perf record file's merge then read
 * 0.36 times the file again, not 1.02, and took 8 to 14% less time (the
 * bench's file, 31 alternating runs); one of tc's, read in time order,
 * was no faster with RD_CAP bytes (4% slower filled in chunks, as perf's
 * are).  A perf file's full buffers are kept for the merge (rd_keep).
 * Files were read through a mapping until
 * December 2026: on an AMD EPYC VM under PVM the first touch of each
 * mapped page of a file written not long before (the page cache's small
 * folios) cost about 1.7 us, where read() copies a page in 0.4, and
 * read() replayed the bench's files 25 to 45% faster, in half the memory
 * (HACKING, section 6).
 */
static bool rd_refill(size_t need);

static inline bool rd_fill(size_t need)
{
	return G.rc.len - G.rc.pos >= need || rd_refill(need);
}

_Static_assert(RD_KEEP_MEM / sizeof(struct task) <= UINT16_MAX, "G.rc.keep_tasks holds rd_keep_tasks");

/* The task slots the table may have taken with n buffers kept, all
 * within RD_KEEP_MEM: the huge pages its slots touch up to there (from
 * the one its first slot is on: it takes them whole) and the buffers',
 * less 8 slots (run_release looks before each record, and a record adds
 * two tasks at most). */
static int rd_keep_tasks(int n)
{
	uintptr_t base = (uintptr_t)G.m.task, start = base & ~(uintptr_t)(HUGE_PAGE - 1), end;
	size_t kept = (size_t)n * RD_CAP, k;

	if (kept >= RD_KEEP_MEM)
		return 0;
	end = (start + RD_KEEP_MEM - kept) & ~(uintptr_t)(HUGE_PAGE - 1);
	k = end > base ? (end - base) / sizeof(struct task) : 0;
	return k > 8 ? (int)(k - 8) : 0;
}

/* The buffers kept for which the task table's slots, taken since, leave
 * no room in RD_KEEP_MEM given back, the oldest first, and the slots the
 * rest leave (G.rc.keep_tasks): by rd_keep, and by run_release between
 * runs (no record's bytes held), as a round's release may take thousands
 * of new slots (perf sched record's file of 40,000 processes peaked at
 * 17.5 MB: two buffers kept while the table took its fourth huge page). */
static void rd_shed(void)
{
	while (G.rc.nold && G.m.ntask > rd_keep_tasks(G.rc.nold))
		mem_free(G.rc.old[--G.rc.nold].b);
	G.rc.keep_tasks = rd_keep_tasks(G.rc.nold);
}

/* The task table has taken more slots than the buffers kept leave it
 * (G.rc.keep_tasks): run_release stops and calls rd_shed. */
static inline bool rd_shed_due(void)
{
	return FAST && G.rc.nold && G.m.ntask > G.rc.keep_tasks;
}

/*
 * A perf file's full read buffer (FAST) joins the ones kept before it
 * (G.rc.old, newest first); returned, the buffer what is unread moves to
 * (rd_move): the oldest of them, or a new one where the merge read again
 * a record one more would have held (rd_at's near; at most RD_OLD).  NULL
 * where none is kept: a tc file's or a stream's buffer, or one the merge
 * has not asked again.  A perf sched record file's merge holds the records of
 * two rounds of up to 3.8 MB, then releases them: with one buffer it
 * read 0.92 times the file again, with two kept 0.21, and took 10% less
 * time (the bench's file, 21 alternating runs; perf record's: 0.36 to
 * 0.06, 4%); peak RSS 7.0 to 11.2 MB.  A perf record -m 4096 file's
 * rounds of 17 MB keep none: the records read again are further back.
 * The buffers kept and the task table's slots used stay within
 * RD_KEEP_MEM, the oldest given back as the table grows: perf record's
 * file of 40,000 processes (all 16,384 slots, 8 MB) took 15.6 MB of
 * peak RSS with one kept, and would take 17.6 with two (the issue's
 * limit: 16 MiB).
 */
static uint8_t *rd_keep(void)
{
	struct rold *o = G.rc.old;
	int n;
	uint8_t *b = NULL;

	if (G.rc.cap != RD_CAP || (!G.rc.nold && !G.rc.near))
		return NULL;
	rd_shed();
	n = G.rc.nold;
	if (n < RD_OLD && G.rc.near && G.m.ntask <= rd_keep_tasks(n + 1) && (b = mem_block(RD_CAP, true)))
		G.rc.nold++;
	else if (n)
		b = o[--n].b;	/* (the oldest, its bytes given up) */
	else
		return NULL;
	memmove(o + 1, o, (size_t)n * sizeof(*o));
	o[0] = (struct rold){ G.rc.buf, G.rc.off, G.rc.len };
	G.rc.near = false;
	G.rc.keep_tasks = rd_keep_tasks(G.rc.nold);
	return b;
}

/* The read buffer is full: what is unread moves to the front, of a
 * buffer kept (rd_keep) or of this one. */
static void rd_move(void)
{
	uint8_t *b = FAST ? rd_keep() : NULL;

	memmove(b ? b : G.rc.buf, G.rc.buf + G.rc.pos, G.rc.len - G.rc.pos);
	if (b)
		G.rc.buf = b;
	G.rc.off += G.rc.pos;
	G.rc.len -= G.rc.pos;
	G.rc.pos = 0;
}

static bool rd_fill_ok(void);
static void rd_filler_start(void);
static bool rd_filler_take(size_t need);

/* rd_fill's reading, when the buffer holds less than need. */
static bool rd_refill(size_t need)
{
	size_t cap = FAST ? G.rc.cap : RD_BUF;	/* (the static build's is RD_BUF) */

	if (FAST && G.rd.scanning && G.rd.prog_t0)
		rd_progress(G.rc.off + G.rc.pos);
	if (FAST && !G.rc.filled && rd_fill_ok())
		rd_filler_start();
	if (FAST && G.rc.filled > 0)
		return rd_filler_take(need);
	if (cap - G.rc.len < RD_BUF)
		rd_move();
	while (G.rc.len - G.rc.pos < need) {
		uint64_t left = G.rd.end - (G.rc.off + G.rc.len);
		size_t want = cap - G.rc.len < RD_BUF ? cap - G.rc.len : RD_BUF;
		ssize_t n;

		if (left < want)
			want = left;
		if (!want)
			return false;
		if (G.rd.follow && !G.rd.blocking) {
			struct pollfd p = { .fd = G.rc.fd, .events = POLLIN };

			if (poll(&p, 1, 0) == 0) {
				G.rc.wait = true;
				return false;
			}
		}
		n = read(G.rc.fd, G.rc.buf + G.rc.len, want);
		if (n < 0 && errno == EINTR)
			continue;
		G.rc.eof |= n == 0;
		if (n <= 0)
			return false;
		G.rc.len += n;
	}
	return true;
}

/*
 * rd_filler: a second thread reads a replay's file ahead of the reader
 * (FAST): --summary, --script and the other outputs, and the view's first
 * reading, of a regular file with RD_FILL_MIN bytes of data or more, on a
 * machine with two CPUs or more, from rd_queues to the end of rd_run (not
 * a paced view's reading, which stops and starts, nor the zoom's reading
 * child, nor the scans' passes; the view's first reading of a 3.1 GiB tc
 * file took 1.54 s with it, 1.67 to 1.78 without).  It reads chunks of
 * RD_BUF into the room of the pass's buffer (of RD_CAP bytes, a tc file's
 * too) while the reader decodes the bytes before them, and waits where
 * the buffer is full; the reader moves the buffer as rd_refill does
 * (rd_move).  It also reads the merge's windows ahead (rd_fill_win): the
 * rest of a queue's run after its present window, which the merge reads
 * again once the buffer has moved past it (a perf record -m 4096 file's
 * first round of 17 MB), where every queue's fit in RD_FILL_WMEM.
 * The reader reads a chunk or a window itself wherever the thread has not
 * begun it (asleep, or waking), so that it waits only for a read under
 * way.  The kernel's copies of the file, a quarter of a replay's time, are
 * so made on the other CPU, while the reader decodes: the bench's files,
 * medians of 31 alternating runs, tc's 22.6 to 15.6 ms, perf record's
 * 21.0 to 17.5, -m 4096 25.2 to 21.3, perf sched record's 25.1 to 23.2.
 * Where the reader has little to do between its reads (that first round:
 * records queued, not decoded), it waits for the thread's, and bytes the
 * other CPU wrote come slower to it than its own: after RD_FILL_SLOW
 * buffers in a row where it waited for most chunks, it reads the chunks
 * itself (nofill).  The two share G.fill under its mutex; the buffer's
 * bytes from G.rc.len to G.fill.len are the reader's to take, a window's
 * once it is FW_READ.
 */

/* Wait, G.fill's mutex held, for the other side to change G.fill (its
 * seq): spinning up to RD_SPIN ns while that side last ran on another
 * CPU, then asleep on cond c (on the AMD VM under PVM a thread put to
 * sleep took 0.15 to 2 ms to wake; on the same CPU as the other side,
 * spinning only keeps it from running).  me is the side: 0 the thread,
 * 1 the reader; *asleep says to the other that it sleeps. */
static void rd_fill_wait(struct filler *f, int me, pthread_cond_t *c, bool *asleep)
{
	unsigned seq = f->seq;
	uint64_t t0 = now_ns();

	__atomic_store_n(&f->cpu[me], sched_getcpu(), __ATOMIC_RELAXED);
	pthread_mutex_unlock(&f->mu);
	for (unsigned i = 1; __atomic_load_n(&f->seq, __ATOMIC_ACQUIRE) == seq; i++) {
		if (!(i & 63) && (now_ns() - t0 > RD_SPIN ||
				  sched_getcpu() == __atomic_load_n(&f->cpu[!me], __ATOMIC_RELAXED)))
			break;
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
	pthread_mutex_lock(&f->mu);
	if (f->seq == seq) {
		*asleep = true;
		pthread_cond_wait(c, &f->mu);
		*asleep = false;
	}
}

/* G.fill changed (its mutex held), by side me: wake the other side (cond c)
 * if it sleeps. */
static void rd_fill_tell(struct filler *f, int me, pthread_cond_t *c, bool asleep)
{
	__atomic_store_n(&f->cpu[me], sched_getcpu(), __ATOMIC_RELAXED);
	__atomic_store_n(&f->seq, f->seq + 1, __ATOMIC_RELEASE);
	if (asleep)
		pthread_cond_signal(c);
}

/* Has G.fill's buffer room for a chunk of RD_BUF bytes before the data's
 * end (its mutex held)? */
static bool rd_fill_room(const struct filler *f)
{
	return f->cap - f->len >= RD_BUF && f->off + f->len < f->end && !f->eof && !f->err;
}

/* pread n bytes at off into b for rd_filler's sides, G.fill's mutex
 * held but not while reading. */
static ssize_t rd_fill_pread(struct filler *f, uint8_t *b, size_t n, uint64_t off)
{
	ssize_t got;

	pthread_mutex_unlock(&f->mu);
	while ((got = pread(f->fd, b, n, off)) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&f->mu);
	return got;
}

/* Read the chunk of RD_BUF bytes (less at the data's end) after those in
 * G.fill's buffer, by side me (0 the thread, 1 the reader; f->rd says who
 * reads). */
static void rd_fill_chunk(struct filler *f, int me)
{
	uint64_t at = f->off + f->len;
	size_t want = f->end - at < RD_BUF ? f->end - at : RD_BUF;
	ssize_t n;

	f->rd = me + 1;
	n = rd_fill_pread(f, f->buf + (at - f->off), want, at);
	f->rd = 0;
	f->chunks[me]++;
	if (n > 0)
		f->len += n;
	f->eof = n == 0;
	f->err = n < 0;
	rd_fill_tell(f, me, me ? &f->go : &f->got, me ? f->idle : f->wait);
}

/* The thread's read of the window asked first (rd_fill_win), unless the
 * reader took it back. */
static void rd_fill_winread(struct filler *f)
{
	struct fwin *w = &f->win[f->ask[f->ask0]];
	ssize_t n;

	f->ask0 = (f->ask0 + 1) % f->nq;
	f->nask--;
	w->queued = false;
	if (w->st != FW_ASKED)
		return;
	w->st = FW_READING;
	n = rd_fill_pread(f, w->b + MAX_REC, w->want, w->off);
	w->len = n > 0 ? n : 0;
	w->st = FW_READ;
	rd_fill_tell(f, 0, &f->got, f->wait);
}

/* The thread: the windows asked for first (the reader needs them sooner),
 * then the chunks that fit in the buffer, else it waits to be told. */
static void *rd_filler(void *arg)
{
	struct filler *f = arg;

	sched_setaffinity(0, sizeof(f->aff), &f->aff);
	pthread_mutex_lock(&f->mu);
	while (!f->quit)
		if (f->nask)
			rd_fill_winread(f);
		else if (!f->rd && !f->nofill && rd_fill_room(f))
			rd_fill_chunk(f, 0);
		else
			rd_fill_wait(f, 0, &f->go, &f->idle);
	pthread_mutex_unlock(&f->mu);
	return NULL;
}

/* Is this pass's file one for rd_filler's thread (rd_refill), from offset
 * from on?  (Where it can run on another CPU: rd_filler_start.)  In the
 * view, its first reading of the whole file, not a paced replay's steps
 * nor the reading child's (rd_history_child). */
static bool rd_fill_big(uint64_t from)
{
	return FAST && (!G.opt.view || !(G.v.speed > 0 || G.z.pass)) && !G.rd.pipe && !G.rd.follow &&
	       G.rd.fsize != UINT64_MAX && G.rd.end > from && G.rd.end - from >= RD_FILL_MIN;
}

/* The CPUs this thread may run on, into *aff; false where there is one
 * (or cannot be told): nothing to gain from rd_filler there, and a tc
 * file read alone was 4% slower in a buffer of RD_CAP (rd_seek). */
static bool rd_fill_cpus(cpu_set_t *aff)
{
	return !sched_getaffinity(0, sizeof(*aff), aff) && CPU_COUNT(aff) >= 2;
}

/* rd_refill: start the thread?  Not for the scans' passes: they decode
 * little, and with the thread perf record -F's bench file took 30.7 ms
 * against 22.5 (medians of 31). */
static bool rd_fill_ok(void)
{
	return G.mg.q && !G.rd.scanning && !G.rd.saving && G.rc.cap == RD_CAP && rd_fill_big(G.rc.off + G.rc.len);
}

/* Start rd_filler's thread on the pass's buffer, its signals blocked (the
 * reader takes them); where it cannot start, the reader reads alone. */
static void rd_filler_start(void)
{
	struct filler *f = &G.fill;
	pthread_attr_t at;
	sigset_t all, was;

	*f = (struct filler){ .fd = G.rc.fd, .buf = G.rc.buf, .off = G.rc.off,
			      .end = G.rd.end, .len = G.rc.len, .cap = G.rc.cap, .cpu = { -1, -1 } };
	G.rc.filled = -1;
	if (!rd_fill_cpus(&f->aff))
		return;
	CPU_CLR(sched_getcpu(), &f->aff);
	f->nq = G.mg.nq;
	f->win = xcalloc(f->nq, sizeof(*f->win));
	f->ask = xcalloc(f->nq, sizeof(*f->ask));
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->go, NULL);
	pthread_cond_init(&f->got, NULL);
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 64 << 10);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &was);
	G.rc.filled = pthread_create(&f->th, &at, rd_filler, f) ? -1 : 1;
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	pthread_attr_destroy(&at);
}

/* End rd_filler's thread, if it reads this pass's file: the buffer keeps
 * what it read, the file's offset is moved past it (for rd_refill's
 * read()), and the queues' windows are rd_at's again (empty). */
static void rd_filler_stop(void)
{
	struct filler *f = &G.fill;

	if (G.rc.filled <= 0)
		return;

	pthread_mutex_lock(&f->mu);
	f->quit = true;
	rd_fill_tell(f, 1, &f->go, f->idle);
	pthread_mutex_unlock(&f->mu);
	pthread_join(f->th, NULL);
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->go);
	pthread_cond_destroy(&f->got);
	G.rc.len = f->len;
	G.rc.filled = -1;
	lseek(G.rc.fd, G.rc.off + G.rc.len, SEEK_SET);
	for (int i = 0; i < f->nq && G.mg.q; i++)	/* the queues' windows as rd_at keeps them */
		if (f->win[i].wb) {
			G.mg.q[i].w = f->win[i].wb;
			G.mg.q[i].wlen = 0;
			mem_free(f->win[i].b);
		}
	mem_free(f->win);
	mem_free(f->ask);
	f->win = NULL;
	f->ask = NULL;
}

/* rd_refill with rd_filler's thread: the bytes it has read, waiting for
 * them where need are not there yet (a chunk it has not begun read here);
 * a full buffer moved (rd_move) and the thread set on the new one; false
 * at the data's end, or where the file gave no more (as rd_refill). */
static bool rd_filler_take(size_t need)
{
	struct filler *f = &G.fill;
	bool more = true;

	pthread_mutex_lock(&f->mu);
	while ((G.rc.len = f->len) - G.rc.pos < need) {
		if (f->rd) {	/* the thread reads what is needed: it has begun */
			f->waits++;
			rd_fill_wait(f, 1, &f->got, &f->wait);
		} else if (rd_fill_room(f)) {
			rd_fill_chunk(f, 1);	/* (the thread has not begun it: asleep, or waking) */
		} else if (f->eof || f->err || G.rc.off + G.rc.len >= G.rd.end) {
			G.rc.eof |= f->eof;
			more = false;
			break;
		} else {
			f->slow = f->waits >= RD_FILL_WAITS ? f->slow + 1 : 0;
			f->nofill |= f->slow >= RD_FILL_SLOW;
			rd_move();
			f->buf = G.rc.buf;
			f->off = G.rc.off;
			f->len = G.rc.len;
			f->waits = 0;
		}
	}
	pthread_mutex_unlock(&f->mu);
	return more;
}

/* Give back the pass's read buffer (and those rd_keep kept). */
static void rd_buf_free(void)
{
	if (FAST)
		rd_filler_stop();
	for (int i = 0; FAST && i < G.rc.nold; i++)
		mem_free(G.rc.old[i].b);
	if (FAST)
		G.rc.nold = 0;
	mem_free(G.rc.buf);
	G.rc.buf = NULL;
	G.rc.len = G.rc.pos = 0;
}

/* pread exactly n bytes at off; -1 if the file is shorter. */
static int rd_pread(void *buf, size_t n, uint64_t off)
{
	if (off > G.rd.fsize || n > G.rd.fsize - off)
		return -1;
	return pread(G.rc.fd, buf, n, off) == (ssize_t)n ? 0 : -1;
}

/* Reverse the bits of v (perf_event_attr bitfields of the other byte order). */
static uint64_t bitrev64(uint64_t v)
{
	uint64_t r = 0;

	for (int i = 0; i < 64; i++, v >>= 1)
		r = r << 1 | (v & 1);
	return r;
}

/*
 * Add an attr from its on-file bytes p (len bytes, the file's byte order)
 * with ids (n of them, already in host order).  Returns -1 if there are too
 * many attrs.
 */
static int rd_add_attr(const uint8_t *p, size_t len, uint64_t *ids, int n)
{
	struct attr *a;
	struct perf_event_attr *pa;

	if (G.ev.nattr >= MAX_ATTRS || len < 48)
		return -1;
	a = &G.ev.attr[G.ev.nattr++];
	memset(a, 0, sizeof(*a));
	pa = &a->pa;
	if (!G.ev.swap)	/* all of it, for a span saved from it (rec_attr_bytes) */
		memcpy(pa, p, len < sizeof(*pa) ? len : sizeof(*pa));
	pa->type = g32(p);
	pa->size = g32(p + 4);
	pa->config = g64(p + 8);
	pa->sample_period = g64(p + 16);
	pa->sample_type = g64(p + 24);
	pa->read_format = g64(p + 32);
	{
		uint64_t flags = g64(p + 40);

		if (G.ev.swap)
			flags = bitrev64(flags);
		memcpy((uint8_t *)pa + 40, &flags, 8);
	}
	a->ids = ids;
	a->nids = n;
	return 0;
}

/* The size-prefixed blob (u64 size, then the bytes) at *o of tracing data
 * b[0..len): its start, or NULL if it does not fit; *o moves past it. */
static const uint8_t *td_next(const uint8_t *b, size_t len, size_t *o, uint64_t *sz)
{
	if (len - *o < 8)
		return NULL;
	*sz = g64(b + *o);
	*o += 8;
	if (*sz > len - *o)
		return NULL;
	*o += *sz;
	return b + *o - *sz;
}

/* Move *o past the NUL-terminated string there; false if it has no end. */
static bool td_str(const uint8_t *b, size_t len, size_t *o)
{
	const uint8_t *z = memchr(b + *o, 0, len - *o);

	if (!z)
		return false;
	*o = z - b + 1;
	return true;
}

/*
 * Parse TRACING_DATA (blob of len bytes, see td_build) into G.ev.fmt.  Its
 * numbers are in the byte order its own header names.  Returns the number
 * of formats, -1 if the blob is malformed before any format.
 */
static int td_parse(const uint8_t *b, size_t len)
{
	size_t o = 10;
	bool save = G.ev.swap, whole = false;
	int nf = 0;
	uint32_t n;
	uint64_t sz;
	const uint8_t *p;

	if (len < 10 || memcmp(b, "\x17\x08\x44tracing", 10) || !td_str(b, len, &o) || len - o < 6)
		return -1;
	G.ev.swap = b[o] != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	o += 6;	/* endianness, sizeof(long), page size */
	for (int i = 0; i < 2; i++)	/* header_page, header_event */
		if (!td_str(b, len, &o) || !td_next(b, len, &o, &sz))
			goto out;
	if (len - o < 4)
		goto out;
	n = g32(b + o);
	o += 4;
	for (uint32_t i = 0; i < n; i++)	/* ftrace formats: skipped */
		if (!td_next(b, len, &o, &sz))
			goto out;
	if (len - o < 4)
		goto out;
	n = g32(b + o);
	o += 4;
	for (uint32_t i = 0; i < n && i < 4096; i++) {	/* systems */
		char sys[32];
		size_t s0 = o;
		uint32_t cnt;

		if (!td_str(b, len, &o) || len - o < 4)
			goto out;
		sfmt(sys, sizeof(sys), "%.*s", (int)(o - 1 - s0), (const char *)b + s0);
		cnt = g32(b + o);
		o += 4;
		for (uint32_t j = 0; j < cnt; j++) {
			if (!(p = td_next(b, len, &o, &sz)))
				goto out;
			nf += fmt_add(sys, (const char *)p, sz) != NULL;
		}
	}
	whole = true;
out:
	G.ev.swap = save;
	return whole || nf ? nf : -1;
}

/* Bind every attr to its format.  With local, formats the recording lacks
 * come from this machine's tracefs, with a note (pipe mode binds without
 * until its first event, as its tracing data may come later). */
static void rd_bind(bool local)
{
	int missing = 0;

	for (int i = 0; i < G.ev.nattr; i++)
		missing += G.ev.attr[i].pa.type == PERF_TYPE_TRACEPOINT && !fmt_by_id(G.ev.attr[i].pa.config);
	if (local && missing && fmt_from_local())
		note("the recording lacks tracepoint formats: using this machine's, which fit only if it was made here");
	for (int i = 0; i < G.ev.nattr; i++)
		attr_bind(&G.ev.attr[i]);
	idmap_build();
}

/* Read the attrs of a file-mode recording (n of attr_size bytes at off,
 * each followed by the {offset, size} of its id list) with their ids. */
static void rd_attrs(const char *path, uint64_t attr_size, uint64_t off, uint64_t n)
{
	uint64_t total_ids = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint8_t a[4096];
		uint64_t io, is, *ids;

		if (rd_pread(a, attr_size, off + i * attr_size) < 0)
			die("%s: attr %" PRIu64 " is outside the file", path, i);
		io = g64(a + attr_size - 16);
		is = g64(a + attr_size - 8);
		total_ids += is / 8;
		if (is % 8 || total_ids > MAX_IDS)
			die("%s: attr %" PRIu64 " has a bad id list", path, i);
		ids = xcalloc(is / 8 + 1, 8);
		if (rd_pread(ids, is, io) < 0) {
			mem_free(ids);	/* not yet anyone's */
			die("%s: attr %" PRIu64 " ids are outside the file", path, i);
		}
		for (uint64_t k = 0; k < is / 8; k++)
			ids[k] = g64(&ids[k]);
		if (rd_add_attr(a, attr_size - 16, ids, is / 8) < 0)
			die("%s: too many attrs", path);
	}
}

/* The feature table at the end of the data (one {offset, size} per bit set
 * in bits, in bit order): where each feature below 64 is.  A data size of
 * 0 (perf record killed) or past the end, or bit 0 (tc's, cut off while
 * recording), mean a cut-off file read to its last complete record. */
static void rd_feature_table(const uint64_t bits[4], uint64_t data_size)
{
	uint64_t tab;

	G.rd.end = G.rd.data_off + data_size;
	if (data_size == 0 || data_size > G.rd.fsize - G.rd.data_off || (bits[0] & 1)) {
		G.rc.cut = true;
		G.rd.end = G.rd.fsize;
	}
	if (data_size == 0 || data_size > G.rd.fsize - G.rd.data_off)
		return;
	tab = G.rd.data_off + data_size;
	for (int f = 0; f < FEAT_BITS; f++) {
		struct file_section e;

		if (!(bits[f / 64] >> (f % 64) & 1))
			continue;
		if (rd_pread(&e, sizeof(e), tab) < 0)
			break;
		tab += sizeof(e);
		e.offset = g64(&e.offset);
		e.size = g64(&e.size);
		if (f < 64 && f != FEAT_RESERVED && e.offset <= G.rd.fsize && e.size <= G.rd.fsize - e.offset) {
			G.rd.feat_bits |= 1ull << f;
			G.rd.feat_off[f] = e.offset;
			G.rd.feat_size[f] = e.size;
		}
	}
}

/* Does perf record's event list ev (-e's value: "sched:sched_waking,...")
 * name only wakeups, so that a filter on it leaves out wakeups only
 * (PART_RUNS), or else may leave out switches (PART_NONE; also when the
 * list is not known)? */
static int rd_filtered(const char *ev)
{
	static const char *const wake[] = { "sched:sched_waking", "sched:sched_wakeup", "sched:sched_wakeup_new" };

	if (!*ev)
		return PART_NONE;
	for (size_t n; *ev; ev += n + (ev[n] == ',')) {
		size_t k = 0;

		n = strcspn(ev, ",");
		while (k < 3 && (strlen(wake[k]) != n || strncmp(ev, wake[k], n)))
			k++;
		if (k == 3)
			return PART_NONE;
	}
	return PART_RUNS;
}

/* What a command line's options say (rd_cmdline, rd_cmdline_opt). */
struct cmdl {
	bool perf;		/* perf record (or lock record ...): per task unless -a, -C */
	bool all, tasks;	/* -a (or a wrapper that adds it); -p, -t, -u */
	bool some_cpus;		/* -C LIST, not every CPU */
	bool overwrite;		/* --overwrite, or an event's overwrite term */
	bool switch_output;	/* --switch-output: one of the files of a session */
	bool inject;		/* perf inject's: the recording's own is lost */
	int part;		/* the filters' (PART_RUNS, PART_NONE) */
	const char *ev;		/* the last -e's value */
};

/* Option name ("a", "C", "--cpu") of a command line, with its value (NULL:
 * none), into c.  -C is some CPUs when its list leaves out one of the
 * recording's (G.rd.nrcpus, read before CMDLINE). */
static void rd_cmdline_opt(struct cmdl *c, const char *name, const char *val)
{
#define IS(s, l) (!strcmp(name, s) || !strcmp(name, l))
	if (IS("a", "--all-cpus")) {
		c->all = true;
	} else if (IS("C", "--cpu") && val) {
		bool set[64] = { false };	/* a list of up to 64 may be all CPUs */
		int k = 0;

		if (parse_cpulist(val, set, 64))
			while (k < G.rd.nrcpus && k < 64 && set[k])
				k++;
		c->all = true;
		c->some_cpus |= !k || k < G.rd.nrcpus;
	} else if (IS("p", "--pid") || IS("t", "--tid") || IS("u", "--uid")) {
		c->tasks = true;
	} else if (IS("e", "--event")) {
		c->ev = val ? val : "";
		for (const char *p = c->ev; *p; p++)	/* an overwrite term, not no-overwrite */
			c->overwrite |= !strncmp(p, "overwrite", 9) && (p - c->ev < 3 || strncmp(p - 3, "no-", 3));
	} else if (!strcmp(name, "--filter") || !strcmp(name, "--exclude-perf")) {
		int f = rd_filtered(c->ev);

		c->part = c->part > f ? c->part : f;
	} else if (!strcmp(name, "--overwrite")) {
		c->overwrite = true;
	} else if (!strcmp(name, "--switch-output")) {
		c->switch_output = true;
	}
#undef IS
}

/* Is word one of list's (words each ended by a NUL, the list by two)? */
static bool in_list(const char *list, const char *word)
{
	for (; *list; list += strlen(list) + 1)
		if (!strcmp(list, word))
			return true;
	return false;
}

/*
 * The CMDLINE feature b[0..sz) (u32 argc, then perf's strings: u32 size,
 * bytes padded with NULs; argv[0] the program): what the events cover
 * (G.rd.part, the least of what the options say) and G.rd.overwrite.
 * perf record (perf lock record ...) without -a or -C recorded per task,
 * and with -p, -t or -u whatever else it has; perf sched record (kmem,
 * kwork, timechart) adds -a; -C LIST recorded some CPUs; --filter (or
 * --exclude-perf, a filter on common_pid) after -e EVENTS left some of
 * those out.  Short options come alone or in groups (-aC0, -ae EVENT),
 * long ones with =VALUE or the next word.  perf's options end at "--" or
 * at its first word that is neither (the workload's: perf record -e E
 * make -C dir); tc's at "--".  perf inject's says nothing of the
 * recording (G.rd.inject: rd_inject_part).
 */
static void rd_cmdline(const uint8_t *b, size_t sz)
{
	static const char long_val[] = "--event\0--filter\0--pid\0--tid\0--uid\0--cpu\0--output\0--count\0"
				       "--freq\0--mmap-pages\0--realtime\0--cgroup\0--clockid\0--branch-filter\0"
				       "--delay\0--call-graph\0";	/* perf record's that take the next word */
	struct cmdl c = { .ev = "" };
	const char *want = NULL, *prev = "";	/* the option whose value the next word is */
	char name[32];
	size_t len;

	for (size_t o = 4, i = 0; o + 4 <= sz && (len = g32(b + o)) > 0 && len <= sz - o - 4 &&
	     memchr(b + o + 4, 0, len); o += 4 + len, i++) {
		const char *w = (const char *)b + o + 4, *eq;

		if (i == 0)
			continue;	/* the program */
		if (i == 1 && !strcmp(w, "inject")) {
			c.inject = true;
			break;
		}
		if (want) {
			rd_cmdline_opt(&c, want, w);
			want = NULL;
		} else if (!strcmp(w, "--")) {
			break;	/* the command */
		} else if (w[0] != '-' || !w[1]) {	/* a subcommand (record, sched record), a workload */
			if (!strcmp(w, "record") && i <= 2) {
				c.perf = true;
				c.all |= i == 2 && in_list("sched\0kmem\0kwork\0timechart\0", prev);	/* add -a */
			} else if (c.perf) {
				break;
			}
		} else if (w[1] == '-') {	/* --name, --name=value, --name value */
			eq = strchr(w, '=');
			sfmt(name, sizeof(name), "%.*s", (int)(eq ? eq - w : (ptrdiff_t)strlen(w)), w);
			if (!eq && in_list(long_val, name))
				want = w;
			else
				rd_cmdline_opt(&c, name, eq ? eq + 1 : NULL);
		} else {	/* -x, a group: -aC0, -ae EVENT */
			for (const char *p = w + 1; *p; p++) {
				name[0] = *p, name[1] = 0;
				if (strchr("eptrcomCFGkujD", *p)) {	/* takes a value: the rest, or the next word */
					if (p[1])
						rd_cmdline_opt(&c, name, p + 1);
					else
						want = w + (p - w);
					break;
				}
				rd_cmdline_opt(&c, name, NULL);
			}
		}
		prev = w;
	}
	G.rd.part = c.part;
	if (c.perf && (c.tasks || !c.all) && G.rd.part < PART_TASKS)
		G.rd.part = PART_TASKS;
	else if (c.some_cpus && G.rd.part < PART_CPUS)
		G.rd.part = PART_CPUS;
	G.rd.overwrite = c.overwrite;
	G.rd.switch_output = c.switch_output;
	G.rd.inject = c.inject;
}

/* What a recording of some tasks or CPUs, or with filters, or without
 * sched_switch, is (enum part): out_missing's words, and cover_note's. */
static const char *part_word(int part)
{
	static const char *const words[] = { "", "with --filter on wakeups", "on some CPUs (-C)",
					     "per task (perf record without -a)", "with --filter on switches or others" };

	return part == PART_NONE && G.rd.no_switch ? "without sched_switch" : words[part];
}

/* On stderr after a replay: what the recording leaves unknown. */
static void cover_note(void)
{
	static const char *const known[] = { "", "the runs", "those CPUs and the runs on them",
					     "the traced tasks' runs", "exits" };
	int part = G.rd.part;

	if (part)
		note("recorded %s: only %s are known; record %s for all", part_word(part), known[part],
		     part == PART_TASKS ? "with -a" : part == PART_CPUS ? "without -C" :
		     G.rd.no_switch ? "with -e sched:sched_switch" : "without --filter");
	if (G.opt.summary && part == PART_NONE && G.rd.no_switch)	/* the counts of what was left out */
		note("--summary's switches column is 0: no switch was recorded");
	else if (G.opt.summary && part)
		note("--summary's %s only the recorded ones%s: a task may have had more",
		     part == PART_RUNS ? "wakeups column counts" : part == PART_NONE ? "switches and wakeups columns count" :
		     "switches, wakeups and migrations columns count",
		     part == PART_CPUS ? " on those CPUs" : part == PART_TASKS ? " of the traced tasks" : "");
	if (G.rd.overwrite)
		note("recorded with rings that overwrite (--overwrite): each CPU's records begin and end at times "
		     "of their own; a task not running is unknown while any CPU's are missing");
}

/* The features tc uses: the tracing data (formats), VERSION (tc's files
 * are in time order), NRCPUS, CMDLINE (what the events cover) and tc's
 * flight recorder mark. */
static void rd_features(const char *path)
{
	if (G.rd.feat_bits >> FEAT_TRACING_DATA & 1) {
		uint64_t sz = G.rd.feat_size[FEAT_TRACING_DATA];
		uint8_t *td;

		if (sz > MAX_TD)
			die("%s: tracing data too large", path);
		td = xcalloc(1, sz + 1);
		if (rd_pread(td, sz, G.rd.feat_off[FEAT_TRACING_DATA]) < 0 || td_parse(td, sz) < 0)
			note("%s: tracing data unreadable", path);
		mem_free(td);
	}
	if (G.rd.feat_bits >> FEAT_VERSION & 1 && G.rd.feat_size[FEAT_VERSION] >= 4 + sizeof(TC_WRITER)) {
		char v[4 + sizeof(TC_WRITER)];

		G.rd.sorted = rd_pread(v, sizeof(v), G.rd.feat_off[FEAT_VERSION]) == 0 &&
			      !memcmp(v + 4, TC_WRITER, sizeof(TC_WRITER));
	}
	if (G.rd.feat_bits >> FEAT_NRCPUS & 1 && G.rd.feat_size[FEAT_NRCPUS] >= 8) {
		uint8_t nr[8];

		if (rd_pread(nr, 8, G.rd.feat_off[FEAT_NRCPUS]) == 0)
			G.rd.nrcpus = g32(nr);
	}
	if (G.rd.feat_bits >> FEAT_CMDLINE & 1 && G.rd.feat_size[FEAT_CMDLINE] <= MAX_TD) {
		uint64_t sz = G.rd.feat_size[FEAT_CMDLINE];
		uint8_t *b = xcalloc(1, sz + 1);

		if (rd_pread(b, sz, G.rd.feat_off[FEAT_CMDLINE]) == 0)
			rd_cmdline(b, sz);
		mem_free(b);
	}
	if (G.rd.feat_bits >> FEAT_TC_MARK & 1 && G.rd.feat_size[FEAT_TC_MARK] > 4) {
		size_t n = G.rd.feat_size[FEAT_TC_MARK] - 4;	/* perf's string: u32 length, bytes */

		if (n > sizeof(G.rd.mark) - 1)
			n = sizeof(G.rd.mark) - 1;
		if (rd_pread(G.rd.mark, n, G.rd.feat_off[FEAT_TC_MARK] + 4) < 0)
			G.rd.mark[0] = 0;
		G.rd.mark[n] = 0;
	}
}

/*
 * Read the file from offset off on: its data (file mode), or from 16 (pipe
 * mode), or a checkpoint's offset, into G.rc.buf (made here when the pass
 * has none).
 */
static void rd_seek(const char *path, uint64_t off)
{
	cpu_set_t aff;

	if (FAST)
		rd_filler_stop();
	if (lseek(G.rc.fd, off, SEEK_SET) < 0)
		die("%s: cannot seek to the data", path);
	if (!G.rc.buf) {
		G.rc.cap = FAST && ((!G.rd.sorted && !G.rd.pipe) || (rd_fill_big(off) && rd_fill_cpus(&aff))) ?
			   RD_CAP : RD_BUF;
		G.rc.buf = xcalloc_huge(G.rc.cap);
	}
	G.rc.off = G.rc.round_off = G.rc.round_off_prev = off;
	G.rc.len = G.rc.pos = 0;
}

/* The record at file offset pos, whole among the len bytes b holds from
 * file offset off, else NULL; *avail gets the bytes there from it on. */
static const uint8_t *rd_held(const uint8_t *b, uint64_t off, size_t len, uint64_t pos, size_t *avail)
{
	if (pos < off || pos - off + 8 > len || pos - off + g16(b + (pos - off) + 6) > len)
		return NULL;
	*avail = len - (pos - off);
	return b + (pos - off);
}

/* The bytes a merge queue's window reads at a time, at most: the windows
 * (rd_at's, each of that size, its pages taken as they are read) share
 * RD_WIN_MEM, as many CPUs as the recording had (G.mg.nq <= MAX_CPUS + 1:
 * 495 bytes or more each), less a block's header, so that a window of 8
 * KiB takes two pages, not three (a test/sim file of 256 CPUs whose 52,000
 * forks fill the task table: peak RSS 17.0 MB to 14.7). */
static size_t rd_wcap(void)
{
	return RD_WIN_MEM / (unsigned)G.mg.nq - 16;
}

static uint8_t rd_wlong[MAX_REC];	/* rd_win_read's second read (its pages taken where used) */

/*
 * rd_at's read of queue q's window into q->w: from pos, q->wnext bytes
 * or to stop, rd_wcap at most; the record at pos, NULL if the file has
 * none whole there.  Where the record is longer than that read, it is
 * read again with MAX_REC bytes into rd_wlong (one for all queues and
 * passes: the merge holds the bytes of one run's record at a time), and
 * the window is left empty.  A perf record -m 4096 file of 256 CPUs
 * (test/sim's, each CPU's records in one run) took 27.6 MB of peak RSS
 * with windows of MAX_REC, 13.6 so; tc-static's 20.3 and 6.0.
 */
static const uint8_t *rd_win_read(struct mq *q, uint64_t pos, uint64_t stop, size_t *avail)
{
	uint8_t *b = q->w;

	for (size_t n = q->wnext < stop - pos ? q->wnext : stop - pos, cap = rd_wcap();; n = cap = MAX_REC, b = rd_wlong) {
		ssize_t got;

		if (pos >= G.rd.end)
			return NULL;
		if (n > cap)
			n = cap;
		if (n > G.rd.end - pos)
			n = G.rd.end - pos;
		got = pread(G.rc.fd, b, n, pos);
		*avail = got > 0 ? got : 0;
		q->woff = pos;
		q->wlen = b == q->w ? *avail : 0;
		if (*avail >= 8 && g16(b + 6) <= *avail)
			return b;
		if (*avail < 8 || (size_t)got < n || b == rd_wlong)
			return NULL;
	}
}

static const uint8_t *rd_fill_win(struct mq *q, int qi, uint64_t pos, uint64_t stop, size_t *avail);

/*
 * The queued record at file offset pos of run r (one that stays in the
 * file): in the read buffer, or one rd_keep kept, if it still is, else in
 * the window of r's queue, read again from there on to r's end (or to
 * where a buffer holds the rest) at most when it is not (a
 * window that served few records reads less the next time: records of a
 * queue far apart in the file cost one small read each, not a large one);
 * *avail gets the bytes there from it on.  NULL if the file no longer has
 * it.  (Windows that read on past their run's end, into other CPUs'
 * records, read perf record's bench file again 1.26 times, not 1.02.)
 */
static const uint8_t *rd_at(const struct qrun *r, uint64_t pos, size_t *avail)
{
	struct mq *q = &G.mg.q[r->qi];
	uint64_t stop = r->end;
	const uint8_t *p;
	bool fw;	/* rd_filler's thread reads its windows (of every queue, or none) */

	if ((p = rd_held(G.rc.buf, G.rc.off, G.rc.len, pos, avail)))
		return p;
	for (int i = 0; FAST && i < G.rc.nold; i++) {
		const struct rold *o = &G.rc.old[i];

		if ((p = rd_held(o->b, o->off, o->len, pos, avail)))
			return p;
		if (o->off > pos && o->off < stop)
			stop = o->off;	/* (a window reads no further than where a buffer has them) */
	}
	if (q->w && (p = rd_held(q->w, q->woff, q->wlen, pos, avail))) {
		q->wused++;
		return p;
	}
	if (FAST && pos + (uint64_t)(G.rc.nold + 1) * G.rc.cap >= G.rc.off)
		G.rc.near = true;	/* (rd_keep) */
	if (FAST && G.rc.off > pos && G.rc.off < stop)
		stop = G.rc.off;
	fw = FAST && G.rc.filled > 0 && r->qi < G.fill.nq && G.fill.nq * 4 * MAX_REC <= RD_FILL_WMEM;
	if (!q->w) {
		if (!fw)	/* (rd_fill_win makes its own) */
			q->w = xcalloc(1, FAST && rd_wcap() > MAX_REC ? MAX_REC : rd_wcap());	/* (in the pool) */
		q->wnext = MAX_REC;
	} else {
		q->wnext = q->wused < 8 ? (q->wnext / 2 > 4096 ? q->wnext / 2 : 4096) : MAX_REC;
	}
	q->wused = 1;
	if (fw)
		return rd_fill_win(q, r->qi, pos, stop, avail);
	return rd_win_read(q, pos, stop, avail);
}

/*
 * rd_at's window of queue q (index qi) with rd_filler's thread, from pos
 * (up to stop): where the thread has read the bytes after the present
 * window (asked here when a window was read), they are the window, after
 * the bytes of the record at pos the present one holds (copied before
 * them); else read here (one the thread has not begun is taken back).
 * Then the thread is asked for the window after it, to stop, when the
 * queue's windows are read whole (q->wnext).  The record at pos, NULL if
 * the file has none whole there.
 */
static const uint8_t *rd_fill_win(struct mq *q, int qi, uint64_t pos, uint64_t stop, size_t *avail)
{
	struct filler *f = &G.fill;
	struct fwin *w = &f->win[qi];
	const uint8_t *p = NULL;

	pthread_mutex_lock(&f->mu);
	while (w->st == FW_READING)
		rd_fill_wait(f, 1, &f->got, &f->wait);
	if (w->st == FW_READ && w->len && q->w && w->off == q->woff + q->wlen && pos >= q->woff &&
	    w->off - pos <= MAX_REC) {
		size_t tail = w->off - pos;
		uint8_t *b = w->b;

		memcpy(b + MAX_REC - tail, q->w + (pos - q->woff), tail);
		w->b = w->wb;
		w->wb = b;
		q->w = b + MAX_REC - tail;
		q->woff = pos;
		q->wlen = tail + w->len;
		if ((p = rd_held(q->w, q->woff, q->wlen, pos, avail)))
			f->wins[0]++;
	}
	w->st = FW_NONE;
	if (!p) {
		if (!w->wb) {
			mem_free(q->w);	/* (rd_at's, before the thread) */
			w->wb = mem_alloc(2 * MAX_REC);
			w->b = mem_alloc(2 * MAX_REC);
		}
		q->w = w->wb;
		pthread_mutex_unlock(&f->mu);
		p = rd_win_read(q, pos, stop, avail);
		pthread_mutex_lock(&f->mu);
		f->wins[1]++;
	}
	if (p && q->wnext == MAX_REC && q->woff + q->wlen < stop && q->woff + q->wlen < G.rd.end) {
		w->off = q->woff + q->wlen;
		w->want = stop - w->off < MAX_REC ? stop - w->off : MAX_REC;
		if (w->want > G.rd.end - w->off)
			w->want = G.rd.end - w->off;
		w->st = FW_ASKED;
		if (!w->queued) {
			f->ask[(f->ask0 + f->nask++) % f->nq] = qi;
			w->queued = true;
		}
		rd_fill_tell(f, 1, &f->go, f->idle);
	}
	pthread_mutex_unlock(&f->mu);
	return p;
}

/*
 * Open a recording ("-": standard input) and read what precedes its
 * records: for file mode the header, attrs, ids and features (a cut-off
 * file is read to its last complete record), for pipe mode just the
 * 16-byte header.  Dies with a one-line message on what is not a recording
 * tc can read.
 */
static void rd_open(const char *path)
{
	struct file_header h;
	struct stat st;
	uint64_t bits[4];

	if (!strcmp(path, "-") && isatty(0))
		die("--replay -: standard input is a terminal; pipe a recording into it "
		    "(tc --record - | tc --replay -, perf record -o - ... | tc --replay -)");
	if (!strcmp(path, "-"))
		G.rc.fd = 0;	/* a stream (or a file) on standard input */
	else if ((G.rc.fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		die("cannot open %s: %s", path, strerror(errno));
	if (fstat(G.rc.fd, &st) < 0)
		die("cannot stat %s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		die("%s is a directory, as perf record --threads (or -o DIR) writes: tc reads one perf.data file; record without --threads", path);
	G.rd.fsize = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
	if (G.rd.fsize == UINT64_MAX) {	/* (a file's: rd_seek) */
		G.rc.buf = xcalloc_huge(RD_BUF);
		G.rc.cap = RD_BUF;
	}
	G.rd.end = UINT64_MAX;
	if (G.rd.fsize != UINT64_MAX ? rd_pread(&h, 16, 0) < 0 : !rd_fill(16))
		die("%s: too short for a perf.data file", path);
	if (G.rd.fsize == UINT64_MAX)
		memcpy(&h, G.rc.buf, 16);
	if (h.magic == PERF_MAGIC2)	/* a u64 value, as perf compares it */
		G.ev.swap = false;
	else if (h.magic == __builtin_bswap64(PERF_MAGIC2))
		G.ev.swap = true;
	else if (!memcmp(&h.magic, "PERFFILE", 8))
		die("%s: a perf.data version 1 file: too old, re-record it", path);
	else
		die("%s: not a perf.data file", path);
	if (g64(&h.size) == 16) {	/* pipe mode */
		G.rd.pipe = true;
		if (G.rd.fsize != UINT64_MAX)
			rd_seek(path, 16);
		else
			G.rc.pos = 16;
		return;
	}
	if (G.rd.fsize == UINT64_MAX)
		die("%s is a file-mode perf.data arriving as a stream: its tracing data and features are at its end, so it cannot be read in one pass; pass the file name instead (or record with perf record -o - for a stream)", path);
	if (g64(&h.size) < sizeof(h) || rd_pread(&h, sizeof(h), 0) < 0)
		die("%s: bad perf.data header", path);
	G.rd.data_off = g64(&h.data.offset);
	for (int i = 0; i < 4; i++)
		bits[i] = g64(&h.features[i]);
	if (g64(&h.attr_size) < 64 + 16 || g64(&h.attr_size) > 4096 ||
	    g64(&h.attrs.size) % g64(&h.attr_size) ||
	    g64(&h.attrs.size) / g64(&h.attr_size) > MAX_ATTRS || G.rd.data_off > G.rd.fsize)
		die("%s: bad perf.data header (attrs or data section)", path);
	rd_attrs(path, g64(&h.attr_size), g64(&h.attrs.offset), g64(&h.attrs.size) / g64(&h.attr_size));
	rd_feature_table(bits, g64(&h.data.size));
	rd_features(path);
	rd_bind(true);
	rd_seek(path, G.rd.data_off);
	G.rc.ck_on = G.opt.view && !(G.v.speed > 0);	/* for the exact view (rd_ckpt) */
}

/* Pipe mode HEADER_ATTR: {header, attr, ids...}. */
static void rd_attr_rec(const uint8_t *r, size_t n)
{
	uint32_t asz;
	uint64_t *ids;
	int nids;

	if (n < 8 + 16)
		return;
	asz = g32(r + 8 + 4);
	if (asz < 48 || asz > n - 8 || (n - 8 - asz) % 8)
		return;
	nids = (n - 8 - asz) / 8;
	ids = xcalloc(nids + 1, 8);
	for (int i = 0; i < nids; i++)
		ids[i] = g64(r + 8 + asz + 8 * i);
	if (rd_add_attr(r + 8, asz, ids, nids) < 0)
		die("too many attrs in the recording");
	rd_bind(false);
}

/* A stream (pipe mode) that ends inside the record at offset roff: its
 * writer stopped, so it is cut off as a file can be (exit 0), and said once. */
static void rd_stream_cut(uint64_t roff)
{
	if (!G.rc.cut)
		note("%s was cut off inside a record at offset %" PRIu64 ": read up to its last complete record",
		     !G.opt.replay_path || !strcmp(G.opt.replay_path, "-") ? "the stream" : G.opt.replay_path, roff);
	G.rc.cut = true;
}

/* Pipe mode HEADER_TRACING_DATA at offset roff: {header, u32 size, pad},
 * then size bytes that the record's own size does not count. */
static void rd_tracing_rec(const uint8_t *r, size_t n, uint64_t roff)
{
	uint32_t sz = n >= 12 ? g32(r + 8) : 0;
	uint8_t *td;
	size_t got = 0;

	if (sz > MAX_TD)
		die("tracing data too large");
	td = xcalloc(1, sz + 1);
	G.rd.blocking = true;	/* its payload follows at once */
	while (got < sz) {
		size_t k = sz - got < RD_BUF / 2 ? sz - got : RD_BUF / 2;

		if (!rd_fill(k))
			break;
		memcpy(td + got, G.rc.buf + G.rc.pos, k);
		G.rc.pos += k;
		got += k;
	}
	G.rd.blocking = false;
	if (got < sz && G.rd.pipe) {	/* the stream ends in it: nothing after it to read */
		rd_stream_cut(roff);
		G.rc.pos = G.rc.len;
	} else if (got < sz || td_parse(td, sz) < 0) {
		note("tracing data unreadable");
	}
	mem_free(td);
	rd_bind(false);
}

/* Pipe mode HEADER_FEATURE: {header, u64 feature, data}; tc uses NRCPUS,
 * VERSION to know its own streams (in time order, no merge needed), and
 * CMDLINE (what the events cover). */
static void rd_feature_rec(const uint8_t *r, size_t n)
{
	if (n >= 24 && g64(r + 8) == FEAT_NRCPUS)
		G.rd.nrcpus = g32(r + 16);
	if (n >= 20 + sizeof(TC_WRITER) && g64(r + 8) == FEAT_VERSION)	/* tc's: in time order */
		G.rd.sorted = !memcmp(r + 20, TC_WRITER, sizeof(TC_WRITER));
	if (n > 16 && g64(r + 8) == FEAT_CMDLINE && !r[n - 1])	/* its last string ends in the record */
		rd_cmdline(r + 16, n - 16);
}

static void rd_unrec_scan(void);
static const uint8_t *rd_tail(uint64_t *n);
static void rd_tail_done(const uint8_t *tail);
static bool rd_lost_tail(const uint8_t *tail, uint64_t tn);
static void rd_lost_place(void);
static void rd_lost_rec(const uint8_t *r, const struct rinfo *ri);
static uint64_t rd_end_tail(const uint8_t *b, uint64_t n);

/* What the recording's events cover (G.rd.part, above model_evidence),
 * into a model just begun.  With rings that overwrite (perf record
 * --overwrite) each CPU's records begin where its ring last wrapped, a
 * busy CPU's later, and end where perf paused it, one CPU after another:
 * until every CPU with tracepoint records has begun (those rd_unrec_scan
 * found), and after the first has ended, a task not running may run on
 * one unseen, and is unknown (G.m.untraced and G.m.ow_end, as while a
 * CPU's tracepoints are not on yet; in a stream, not read first, all the
 * time); every CPU's state ends at its last record (model_end_cut). */
static void model_cover(void)
{
	G.m.part = G.rd.part;
	G.m.overwrite = G.rd.overwrite;
	for (int c = 0; G.rd.overwrite && G.m.cpu && c < G.m.ncpu; c++)
		if (!G.rd.tp_last || G.rd.tp_last[c]) {
			G.m.cpu[c].sideband = true;
			G.m.untraced++;
			if (G.rd.tp_last && (!G.m.ow_end || G.rd.tp_last[c] < G.m.ow_end))
				G.m.ow_end = G.rd.tp_last[c];
		}
	if (G.rd.overwrite && !G.rd.tp_last)
		G.m.ow_end = 1;	/* a stream: where the CPUs' records end is not known */
	else if (!G.rd.overwrite && G.rd.end_off)
		G.m.ow_end = G.rd.end_off;	/* perf record's end: the first CPU's (rd_end_tail) */
}

/* A recording of tracepoints tc uses but not of sched_switch (perf record
 * -e sched:sched_wakeup): a record names the task running then, but
 * between two of its records it may have been switched out any number of
 * times, so no run is known (PART_NONE, as with a filter on sched_switch;
 * claimed, 164 ms of 523 ms of runs were wrong on such a recording). */
static void rd_no_switch(void)
{
	bool tp = false, sw = false;

	for (int i = 0; i < G.ev.nattr; i++) {
		tp |= G.ev.attr[i].kind != EV_NONE && G.ev.attr[i].kind < EV_NTP;
		sw |= G.ev.attr[i].kind == EV_SWITCH;
	}
	G.rd.no_switch = tp && !sw;
	if (G.rd.no_switch)
		G.rd.part = PART_NONE;
}

/*
 * A recording whose command line is perf inject's: how it was recorded
 * (-a, -C, --filter) is lost, and what the records show stands for it
 * (G.rd.part; rd_unrec_scan's pass found them): per task (PART_TASKS)
 * unless a switch out of idle was recorded, which no task's events have;
 * then on some CPUs (PART_CPUS) unless every CPU has tracepoint records.
 * A stream (no pass) is read as per task.  A --filter does not show.
 */
static void rd_inject_part(void)
{
	char why[48] = " (a stream: not scanned)";
	int seen = 0, part;

	for (int c = 0; G.rd.tp_last && c < G.m.ncpu; c++)
		seen += G.rd.tp_last[c] != 0;
	part = !G.rd.idle_out ? PART_TASKS : seen < G.m.ncpu ? PART_CPUS : PART_ALL;
	if (part == PART_CPUS)
		sfmt(why, sizeof(why), " (%d of %d CPUs have some)", seen, G.m.ncpu);
	else if (!G.rd.pipe)
		scopy(why, sizeof(why), part ? " (no switch out of idle)" : "");
	note("the command line in %s is perf inject's, not the recording's: by its records, it was recorded %s%s; "
	     "were tracepoints filtered (--filter), tc cannot tell", G.opt.replay_path,
	     part == PART_ALL ? "on every CPU" : part == PART_CPUS ? "on some CPUs" : "per task", why);
	if (part > G.rd.part)
		G.rd.part = part;	/* (without sched_switch: PART_NONE, rd_no_switch) */
}

/* Size the merge for the recording's CPUs, at its first event. */
static void rd_queues(void)
{
	uint64_t tn;
	const uint8_t *tail;

	G.m.ncpu = G.rd.nrcpus > 0 && G.rd.nrcpus <= MAX_CPUS ? G.rd.nrcpus : 0;
	if (!G.m.ncpu) {
		pe_cpus();
		note("the recording does not say how many CPUs it had: assuming %d", G.m.ncpu);
	}
	if (G.rd.pipe)
		rd_bind(true);
	tail = rd_tail(&tn);
	for (int a = 0; a < G.ev.nattr; a++)	/* perf record --overwrite's, which perf inject keeps */
		G.rd.overwrite |= G.ev.attr[a].pa.write_backward;
	if ((G.ev.sampled || G.rd.overwrite || G.rd.inject) && !G.rd.pipe)
		rd_unrec_scan();	/* (the LOST records too) */
	else if (rd_lost_tail(tail, tn))
		rd_lost_place();
	G.rd.end_off = rd_end_tail(tail, tn);
	rd_tail_done(tail);
	rd_no_switch();
	if (G.rd.inject)
		rd_inject_part();
	mrg_init(G.m.ncpu + 1, G.rd.fsize != UINT64_MAX ? 0 : 2 * MAX_REC, true);
	if (G.opt.summary || G.opt.states || G.opt.view || G.opt.ftrace)	/* --ftrace: the comm of each pid */
		model_init(G.m.ncpu, TC_MAX_TASKS, G.opt.view ? TC_MAX_IVALS : 0);
	model_cover();
}

/* Is type a record type that can appear in a perf.data file? */
static bool rd_type_ok(uint32_t type)
{
	return (type >= 1 && type < 32) || (type >= PR_HEADER_ATTR && type < PR_MAX_USER);
}

/* The next record of the pass, complete in the buffer at G.rc.pos (*sz
 * its size; the caller moves past it), or NULL at the data's end or at a
 * record no file can hold: the scans' walk (rd_lost_scan, rp_scan). */
static const uint8_t *rd_rec(size_t *sz)
{
	if (!rd_fill(8))
		return NULL;
	*sz = g16(G.rc.buf + G.rc.pos + 6);
	if (*sz < 8 || !rd_type_ok(g32(G.rc.buf + G.rc.pos)) || !rd_fill(*sz))
		return NULL;
	return G.rc.buf + G.rc.pos;
}

/* Note (once) that the merge queues are full, and release their oldest
 * record early; false if they hold none. */
static bool rd_forced(void)
{
	if (!G.mg.forced++)
		note("a round of this recording needs more than %zu MiB of merge queue: older records are released early, their order may suffer",
		     QUEUE_MAX >> 20);
	return mrg_release(UINT64_MAX, true);
}

enum { RQ_OUT = -1, RQ_NOW = -2 };

/* Is a record of type and attr one of an event tc does not use (perf's
 * sched:*)?  No output has it. */
static inline bool rd_unused(uint32_t type, int attr)
{
	return type == PERF_RECORD_SAMPLE && attr >= 0 && G.ev.attr[attr].kind == EV_NONE && !G.fl.buf && !G.rd.saving;
}

/*
 * The queue that record r's parse ri (of type, at file offset roff) goes
 * to in the merge (ri->cpu is below G.m.ncpu); RQ_OUT for one left out,
 * RQ_NOW for one passed on at once.  Asked again, with no side effects,
 * when the merge walks a run of a file's records with others between them
 * (run_next).
 */
static inline int rd_merge_q(uint32_t type, const struct rinfo *ri, uint64_t roff)
{
	if (rd_unused(type, ri->attr))
		return RQ_OUT;
	if (roff < G.rc.skip_off && (!ri->has_time || !ri->time || ri->time <= G.rc.skip_t))
		return RQ_OUT;	/* released before the checkpoint this pass started from */
	if (!ri->has_time || !ri->time)
		return RQ_NOW;	/* synthesized: at once, as perf does */
	return ri->cpu < 0 ? G.mg.nq - 1 : ri->cpu;
}

/*
 * A file's records are queued in runs (struct qrun): records of one queue
 * that came one after the other among the queued ones, each no older than
 * the one before.  The merge keeps the runs in a heap by their heads
 * (time, then file offset: arrival) and walks a run's records in the file
 * as it releases them (rd_at), its head parsed once.  A CPU's records of
 * a round make one run, or a few where a side-band record is stamped
 * before the one ahead of it.  Entries of 16 bytes a record took pages
 * the machine touched for the first time (a perf record -m 4096 file:
 * 153,452 records queued at once, 1,000 pages at about 10 us each on the
 * VMs measured); runs take 104 bytes each, a few hundred of them.  A LOST
 * record is a run of its own, at mq_key's time.  The run the last record
 * joined (G.mg.cur) may still grow (run_add, run_grow): it enters the
 * heap when a record starts another one or records are released.
 */

/* Is the head of the run in slot a older than the one's in slot b? */
static bool run_older(int a, int b)
{
	const struct qrun *x = &G.mg.run[a], *y = &G.mg.run[b];

	return x->time != y->time ? x->time < y->time : x->pos < y->pos;
}

/* Restore the order of the heap of runs around its element k. */
static void run_fix(int k)
{
	heap_fix(G.mg.rheap, G.mg.nrun, k, run_older);
}

/* A free slot for one more run; false if the queues may not grow.  The
 * heap moves slot numbers, not the runs (104 bytes each: moving them was
 * a fifth of the merge's instructions). */
static bool run_room(void)
{
	int nc = G.mg.crun ? 2 * G.mg.crun : 64;
	struct qrun *h;
	int *x;

	if (G.mg.rfree || G.mg.rtop < G.mg.crun)
		return true;
	if (!mrg_take((size_t)(nc - G.mg.crun) * (sizeof(*h) + sizeof(int)), !G.mg.crun))
		return false;
	if (!(h = mem_realloc(G.mg.run, (size_t)nc * sizeof(*h))) ||
	    !(x = mem_realloc(G.mg.rheap, (size_t)nc * sizeof(int))))
		die("out of memory (a merge of %d runs)", nc);
	G.mg.run = h;
	G.mg.rheap = x;
	G.mg.crun = nc;
	return true;
}

/* The current run enters the heap (records are released, or the next
 * one starts another run). */
static void run_close(void)
{
	int slot;

	if (!G.mg.cur_on)
		return;
	G.mg.cur_on = false;
	while (!run_room())
		if (!rd_forced())
			die("out of memory (a merge of %d runs)", G.mg.crun);
	if (G.mg.rfree) {	/* a freed one (its qi: the next free + 1) */
		slot = G.mg.rfree - 1;
		G.mg.rfree = G.mg.run[slot].qi;
	} else {
		slot = G.mg.rtop++;
	}
	G.mg.run[slot] = G.mg.cur;
	G.mg.rheap[G.mg.nrun++] = slot;
	run_fix(G.mg.nrun - 1);
}

/* Queue record r (n bytes at file offset pos, time t, parse ri) in queue
 * qi: it joins the current run, or starts one. */
static void run_add(const uint8_t *r, size_t n, uint64_t t, const struct rinfo *ri, uint64_t pos, int qi)
{
	struct mq *q = &G.mg.q[qi];
	struct qrun *c = &G.mg.cur;
	bool lost = g32(r) == PERF_RECORD_LOST;
	uint64_t key = mq_key(q, r, t);

	if (key > q->last)
		q->last = key;
	if (++G.mg.n > G.mg.nmax)
		G.mg.nmax = G.mg.n;
	if (G.mg.cur_on && c->qi == qi && t >= c->last && !lost) {
		c->gaps |= pos != c->end;
		c->end = pos + n;
		c->last = t;
		return;
	}
	run_close();
	*c = (struct qrun){ .time = key, .pos = pos, .end = pos + n, .last = t, .ri = *ri,
			    .raw_off = ri->raw ? (uint16_t)(ri->raw - r) : 0, .at = -1, .qi = qi };
	G.mg.cur_on = true;
	if (lost)
		run_close();	/* nothing joins it */
}

/* Make run r's head the first of its records from file offset pos on
 * (*p: its bytes, *avail of them, in the read buffer or r's queue's
 * window; *p then the head's); false if it has none left (or the file no
 * longer has them).  In a run without gaps each record that parses is one
 * of its own, rd_merge_q not asked.  A sample rec_std knows is read no
 * further than its time and CPU (r->at; run_emit reads the rest: 5 to 8%
 * of the instructions of perf's files). */
static bool run_next(struct qrun *r, uint64_t pos, const uint8_t **p, size_t *avail)
{
	struct mq *q = &G.mg.q[r->qi];
	const uint8_t *b = *p;
	size_t left = *avail;

	while (pos < r->end) {
		uint32_t type;
		size_t n;
		int at;

		if (left < 8 || left < g16(b + 6))
			b = rd_at(r, pos, &left);
		else
			q->wused++;
		if (!b || (n = g16(b + 6)) < 8) {
			G.bad.corrupt++;	/* the file changed under the reader */
			return false;
		}
		type = g32(b);
		if (FAST)
			__builtin_prefetch(b + RD_AHEAD);	/* (never faults) */
		if (FAST && (at = rec_std(b, n)) >= 0) {	/* its time and CPU: no more to parse */
			const struct attr *a = &G.ev.attr[at];
			struct rinfo ri = { .attr = at, .has_time = true, .time = ld64(b + a->pos_time, false),
					    .cpu = ld32(b + a->pos_cpu, false) };

			if (ri.cpu < G.m.ncpu && (!r->gaps || rd_merge_q(type, &ri, pos) == r->qi)) {
				r->pos = pos;
				r->time = ri.time;
				r->at = at;
				*p = b;
				*avail = left;
				return true;
			}
		} else if (type < PR_HEADER_ATTR &&	/* (FAST: rec_info without its rec_std) */
			   (FAST ? rec_info_as(b, n, rec_attr(b, n, type), &r->ri) : rec_info(b, n, &r->ri)) == 0 &&
			   r->ri.cpu < G.m.ncpu && (!r->gaps || rd_merge_q(type, &r->ri, pos) == r->qi)) {
			r->pos = pos;
			r->time = r->ri.time;
			r->raw_off = r->ri.raw ? (uint16_t)(r->ri.raw - b) : 0;
			if (FAST)
				r->at = -1;
			*p = b;
			*avail = left;
			return true;
		}
		pos += n;
		b += n;
		left -= n;
	}
	return false;
}

/* run_emit of run r's head p (n bytes) that run_next read its short way
 * (r->at): to emit_model_std where plain and ev_decode would take it its
 * fast way (true), else r->ri filled for emit() (false).  One that no
 * longer fits as rec_std found it (the file changed under the reader) is
 * parsed again, or counted and left out (true). */
static bool run_std(struct qrun *r, const uint8_t *p, size_t n, bool plain)
{
	const struct attr *a = &G.ev.attr[r->at];
	uint32_t rawsz = ld32(p + a->pos_raw, false);

	if (n < a->min_size || rawsz > n - a->pos_raw - 4) {	/* (rec_std_at's fit) */
		if (rec_info(p, n, &r->ri) == 0)
			return false;
		G.bad.corrupt++;
		return true;
	}
	if (plain && a->raw_need && rawsz >= a->raw_need) {
		emit_model_std(a, p, r->time, ld32(p + a->pos_cpu, false), rawsz);
		return true;
	}
	rec_std_info(p, n, r->at, &r->ri);
	return false;
}

/* Pass on run r's head to emit() (*p: its bytes, *avail of them, if
 * known, else NULL; a sample to emit_model where plain: emit_plain; one
 * run_next read its short way: run_std), then make the next record its
 * head (run_next); false if that was its last record. */
static bool run_emit(struct qrun *r, const uint8_t **p, size_t *avail, bool plain)
{
	bool done = false;
	size_t n;

	if (!*p)
		*p = rd_at(r, r->pos, avail);
	if (!*p || (n = g16(*p + 6)) < 8) {
		G.bad.corrupt++;
		return false;
	}
	mrg_order(r->time, true);
	G.mg.n--;
	if (FAST && r->at >= 0)
		done = run_std(r, *p, n, plain);
	else if (r->ri.raw)
		r->ri.raw = *p + r->raw_off;
	if (!done && plain && g32(*p) == PERF_RECORD_SAMPLE)	/* (queued: stamped, of a kind tc uses) */
		emit_model(*p, &r->ri);
	else if (!done)
		emit(*p, n, r->time, &r->ri);
	*p += n;
	*avail -= n;
	return run_next(r, r->pos + n, p, avail);
}

/* mrg_release for runs: from the oldest run, its records as long as
 * they are older than the other runs' heads, then the heap is put in
 * order. */
static bool run_release(uint64_t bound, bool one)
{
	bool plain = FAST && emit_plain();

	run_close();
	while (G.mg.nrun && G.mg.run[G.mg.rheap[0]].time <= bound) {
		struct qrun *r = &G.mg.run[G.mg.rheap[0]];
		uint64_t lt = UINT64_MAX, ls = UINT64_MAX;
		const uint8_t *p = NULL;	/* r's head's bytes, once read */
		size_t avail = 0;
		bool more;

		if (rd_shed_due())
			rd_shed();
		if (G.mg.nrun > 1) {
			int *h = G.mg.rheap, c = G.mg.nrun > 2 && run_older(h[2], h[1]) ? h[2] : h[1];

			lt = G.mg.run[c].time;
			ls = G.mg.run[c].pos;
		}
		do
			more = run_emit(r, &p, &avail, plain);
		while (!one && more && r->time <= bound && (r->time < lt || (r->time == lt && r->pos < ls)) &&
		       !rd_shed_due());
		if (!more) {
			r->qi = G.mg.rfree;	/* its slot is free */
			G.mg.rfree = G.mg.rheap[0] + 1;
			G.mg.rheap[0] = G.mg.rheap[--G.mg.nrun];
		}
		if (G.mg.nrun)
			run_fix(0);
		if (one)
			return true;
	}
	return false;
}

/*
 * rd_record of the records after one that joined the current run (one
 * there is: G.mg.cur_on), as far as each is in the read buffer and is one
 * rd_record would have join the run too or leave out: a sample rec_std
 * knows, of an attr tc does not use (rd_unused), or of the run's CPU,
 * stamped, no older than the run's last.  They are counted and queued as
 * rd_record and run_add do, without the rest of their way (rd_run took
 * 200 instructions a record of a perf record file, 86 so).  Not where a
 * checkpoint's pass skips records; for FAST and a replay that is not paced
 * (rd_run's limit).
 */
static void run_grow(void)
{
	struct qrun *c = &G.mg.cur;
	size_t pos = G.rc.pos, len = G.rc.len, k = 0;
	uint64_t last = c->last, end = c->end, *seen = G.rd.lost_ahead ? G.rd.scan_last : NULL;
	struct std_key key = std_key();

	if (!G.mg.runs || c->qi >= G.m.ncpu || end != G.rc.off + pos || end < G.rc.skip_off)
		return;
	while (len - pos >= 8) {
		const uint8_t *r = G.rc.buf + pos;
		size_t n = ld16(r + 6, false);	/* (read again where rec_std_at takes r) */
		int at;
		struct attr *a;
		uint64_t t;
		uint32_t cpu;

		__builtin_prefetch(r + RD_AHEAD);
		if (n > len - pos || (at = rec_std_at(&key, r, n)) < 0)
			break;
		a = &key.attr[at];
		t = ld64(r + a->pos_time, false);
		cpu = ld32(r + a->pos_cpu, false);
		if (cpu >= (uint32_t)G.m.ncpu)
			break;
		if (!rd_unused(PERF_RECORD_SAMPLE, at)) {	/* (else left out: RQ_OUT) */
			if (cpu != (uint32_t)c->qi || t < last || !t)
				break;
			c->gaps |= G.rc.off + pos != end;
			last = t;
			end = G.rc.off + pos + n;
			k++;
		}
		a->nsamples++;
		if (seen && G.rc.off + pos >= G.rd.scan_pos) {	/* rd_lost_rec's */
			if (t > seen[cpu])
				seen[cpu] = t;
			G.rd.scan_pos = G.rc.off + pos + n;
		}
		pos += n;
	}
	if ((G.mg.n += k) > G.mg.nmax)
		G.mg.nmax = G.mg.n;
	if (last > G.mg.q[c->qi].last)
		G.mg.q[c->qi].last = last;
	if (last > G.rc.tmax)
		G.rc.tmax = last;
	c->last = last;
	c->end = end;
	G.rc.pos = pos;
}

/*
 * rd_record of the records after one of a file in time order (tc's own:
 * G.rd.sorted, nothing queued), as far as each is in the read buffer and
 * is a sample rec_std knows, of a kind tc uses (else rd_unused may leave
 * it out), of a CPU rd_record takes, stamped (0: RQ_NOW) and not newer
 * than limit, at or past G.rc.skip_off, before the next checkpoint's
 * offset (rd_run takes it there): counted and passed on to emit() as
 * rd_record does (to emit_model where emit_plain), without the rest of
 * its way (rd_run took 164 instructions a sample of tc's own, 103 so).
 * Where emit_plain, a sample ev_decode would decode its fast way goes
 * to the model without a parse in between (emit_model_std: 415 to 376
 * instructions a sample of tc's bench file, --summary).  For FAST.
 */
static void rd_sorted_run(uint64_t limit)
{
	size_t pos = G.rc.pos, len = G.rc.len;
	uint64_t off = G.rc.off, stop = G.rc.ck_on ? G.rd.ck_next : UINT64_MAX, tmax = G.rc.tmax;
	const uint8_t *buf = G.rc.buf;
	uint32_t ncpu = G.m.ncpu;
	bool plain = emit_plain();
	struct std_key k = std_key();	/* (a local: the model's stores may alias G) */

	if (off + pos < G.rc.skip_off || k.pos < 0)
		return;
	while (len - pos >= 8) {
		const uint8_t *r = buf + pos;
		size_t n = ld16(r + 6, false);	/* (k.pos: this machine's byte order) */
		struct rinfo ri;
		struct attr *a;
		uint32_t cpu, rawsz;
		uint64_t t;
		int at;

		__builtin_prefetch(r + RD_AHEAD);	/* (never faults; past the buffer it does nothing) */

		if (n > len - pos || off + pos >= stop || (at = rec_std_at(&k, r, n)) < 0)
			break;
		a = &k.attr[at];
		t = ld64(r + a->pos_time, false);
		cpu = ld32(r + a->pos_cpu, false);
		if (cpu >= ncpu || !t || t > limit || a->kind == EV_NONE)
			break;
		G.rc.pos = pos += n;
		a->nsamples++;
		if (t > tmax)
			G.rc.tmax = tmax = t;
		mrg_order(t, true);
		rawsz = ld32(r + a->pos_raw, false);
		if (plain && a->raw_need && rawsz >= a->raw_need) {
			emit_model_std(a, r, t, cpu, rawsz);
			continue;
		}
		rec_std_info(r, n, at, &ri);
		if (plain)
			emit_model(r, &ri);
		else
			emit(r, n, t, &ri);
	}
}

/*
 * Queue record r (n bytes at stream offset pos, time t, parse ri) in queue
 * qi of the merge: a file's in runs, else a copy.  When the queues are at
 * QUEUE_MAX the oldest record is released early (counted, said once).
 */
static void rd_queue(const uint8_t *r, size_t n, uint64_t t, const struct rinfo *ri, uint64_t pos, int qi)
{
	struct mq *q = &G.mg.q[qi];
	uint8_t *p;
	uint64_t at;

	if (G.mg.runs) {
		run_add(r, n, t, ri, pos, qi);
		return;
	}
	while (!(p = mq_reserve(q, (n + 7) & ~(size_t)7, pos, &at))) {
		if (!rd_forced()) {
			G.bad.corrupt++;	/* cannot fit even with empty queues */
			return;
		}
	}
	memcpy(p, r, n);
	mq_commit(qi, (n + 7) & ~(size_t)7, mq_key(q, r, t), at, ri->attr);
}

/*
 * Checkpoints of the view's reading (replay of a file-mode file, not
 * paced), so that reading it again for exact intervals (rd_history) starts
 * near the view, not at the file's start.  One is taken every ck_every
 * bytes of data: for tc's files (in time order, nothing queued) at any
 * record, for perf's at a FINISHED_ROUND, after its release.  It keeps the
 * model (G.m, its tasks and CPUs: 488 bytes a task) and the reader's
 * state; the merge queue, which then holds just the records of the last two
 * rounds newer than the round before them, is not kept but read again: a
 * pass started from a checkpoint reads those rounds from their start (from),
 * skipping up to upto what was released before (no time, or not newer
 * than skip_t), and goes on exactly as the view's pass went on.  Not
 * taken where that could differ: after records released early
 * (G.mg.forced), nor after rounds with a LOST record, whose place in its
 * queue depends on the newest record queued before it (mq_key): each
 * queue's is kept as of the round's end, which a pass from the checkpoint
 * then starts with.  At most CK_MAX checkpoints in CK_MEM bytes: when
 * full, every other one is dropped and the spacing doubles.
 */
enum { CK_MAX = 256, CK_MEM = 32 << 20, CK_EVERY = 8 << 20 };

struct rckpt {
	uint64_t from, upto, skip_t;	/* see above */
	uint64_t tmax, round_prev, round_prev2, released;	/* the reader's and the merge's state at from */
	struct model m;			/* G.m then (its tables below) */
	struct task *task;
	struct cpu *cpu;
	uint64_t *qlast;		/* each merge queue's last (G.mg.nq of them) at upto */
	size_t bytes;
};

/* Free checkpoint c's tables. */
static void rd_ckpt_free(struct rckpt *c)
{
	mem_free(c->task);
	mem_free(c->cpu);
	mem_free(c->qlast);
	G.rd.ck_mem -= c->bytes;
}

/* Keep every other checkpoint (the first, the third, ...), twice as far
 * apart from now on. */
static void rd_ckpt_thin(void)
{
	int n = 0;

	for (int i = 0; i < G.rd.nck; i++) {
		if (i % 2)
			rd_ckpt_free(&G.rd.ck[i]);
		else
			G.rd.ck[n++] = G.rd.ck[i];
	}
	G.rd.nck = n;
	G.rd.ck_every *= 2;
}

/* The end of the view's first reading: its progress line cleared. */
static void rd_progress_end(void)
{
	if (G.rd.prog_shown)
		oputs("\r\x1b[K", &tc_err);
	G.rd.prog_t0 = 0;
	G.rd.prog_shown = false;
}

/*
 * The view's first reading of a file (prog_t0 set), at a checkpoint's
 * place (upto), or in a scan before it (G.rd.scanning, at each read
 * into the buffer: "a first pass" then): once it has taken half a second, how far
 * it is, on standard error if that is a terminal, every quarter of a
 * second (a large file read before the view is drawn: a blank screen for
 * seconds said nothing).  A signal that stops tc stops it here: the view
 * has not begun.  rd_progress_end clears the line.
 */
static void rd_progress(uint64_t upto)
{
	uint64_t now = now_ns();

	if (G.sig.stop) {
		rd_progress_end();
		note("stopped while reading the recording, %" PRIu64 " of %" PRIu64 " MiB read",
		     (upto - G.rd.data_off) >> 20, (G.rd.end - G.rd.data_off) >> 20);
		guard_done();
		exit(0);
	}
	if (now - G.rd.prog_t0 < NS_PER_SEC / 2 || now - G.rd.prog_last < NS_PER_SEC / 4 || !isatty(2))
		return;
	G.rd.prog_last = now;
	G.rd.prog_shown = true;
	ofmt(&tc_err, "\rtc: reading the recording%s: %" PRIu64 " of %" PRIu64 " MiB\x1b[K",
	     FAST && G.rd.scanning ? ", a first pass" : "", (upto - G.rd.data_off) >> 20, (G.rd.end - G.rd.data_off) >> 20);
}

/* Take a checkpoint at the end of a round that began at from and ends at
 * upto (tc's files: from == upto, anywhere), skip_t the release bound of
 * that round (see above); rd_progress's place. */
static void rd_ckpt(uint64_t from, uint64_t upto, uint64_t skip_t)
{
	size_t tb = (size_t)G.m.ntask * sizeof(struct task), cb = (size_t)G.m.ncpu * sizeof(struct cpu);
	size_t tm = mem_copy_size(tb + 1);	/* the memory the tasks' copy takes */
	struct rckpt *c;

	if (G.rd.prog_t0)
		rd_progress(upto);
	if (!G.rd.ck_every)
		G.rd.ck_every = CK_EVERY;
	G.rd.ck_next = upto + G.rd.ck_every;
	if (G.mg.forced || !G.m.task)
		return;
	if (!G.rd.ck)
		G.rd.ck = xcalloc(CK_MAX, sizeof(*G.rd.ck));
	while (G.rd.nck && (G.rd.nck == CK_MAX || G.rd.ck_mem + tm + cb > CK_MEM)) {
		rd_ckpt_thin();
		G.rd.ck_next = upto + G.rd.ck_every;
	}
	if (tm + cb > CK_MEM)
		return;
	c = &G.rd.ck[G.rd.nck++];
	c->from = from;
	c->upto = upto;
	c->skip_t = skip_t;
	c->tmax = from == upto ? G.rc.tmax : skip_t;
	c->round_prev = from == upto ? G.rc.round_prev : skip_t;
	c->round_prev2 = from == upto ? G.rc.round_prev2 : skip_t;
	c->released = G.mg.released;
	c->m = G.m;
	c->task = xcalloc_copy(tb + 1);
	memcpy(c->task, G.m.task, tb);
	c->cpu = xcalloc(1, cb + 1);
	memcpy(c->cpu, G.m.cpu, cb);
	c->qlast = xcalloc(G.mg.nq + 1, sizeof(*c->qlast));
	for (int i = 0; i < G.mg.nq; i++)
		c->qlast[i] = G.mg.q[i].last;
	c->bytes = tm + cb + (G.mg.nq + 1) * sizeof(*c->qlast);
	G.rd.ck_mem += c->bytes;
}

/*
 * Record r (sz bytes, of type, at file offset roff; parsed: rec_info's
 * result in *ri, -1 if not parsed yet) of the opened recording, read:
 * perf's own records (rounds, pipe mode's headers), then to emit() at
 * once (tc's files are in time order, synthesized records have no time)
 * or into the merge's queues.
 */
static void rd_record(const uint8_t *r, size_t sz, uint32_t type, uint64_t roff, int parsed, struct rinfo *ri)
{
	uint64_t t;
	int qi;

	switch (type) {
	case PR_FINISHED_ROUND:
	case PR_FINISHED_INIT:
		t = G.rc.round_prev2;
		mrg_release(t, false);
		G.rc.round_prev2 = G.rc.round_prev;
		G.rc.round_prev = G.rc.tmax;
		if (G.rc.ck_on && !G.rd.sorted && roff + sz >= G.rd.ck_next) {
			if (!G.rc.round_lost && !G.rc.round_lost_prev)
				rd_ckpt(G.rc.round_off_prev, roff + sz, t);
			else if (G.rd.prog_t0)
				rd_progress(roff + sz);	/* (a file that loses in every round takes none) */
		}
		G.rc.round_off_prev = G.rc.round_off;
		G.rc.round_off = roff + sz;
		G.rc.round_lost_prev = G.rc.round_lost;
		G.rc.round_lost = false;
		return;
	case PR_HEADER_ATTR:
		rd_attr_rec(r, sz);
		return;
	case PR_HEADER_TRACING_DATA:
		rd_tracing_rec(r, sz, roff);
		return;
	case PR_HEADER_FEATURE:
		rd_feature_rec(r, sz);
		return;
	case PR_COMPRESSED:
		die("the recording is compressed (perf record -z): record without -z, or decompress it with perf inject -i FILE -o PLAIN");
	}
	if (type >= PR_HEADER_ATTR)
		return;		/* other user records: skipped by size */
	if (!G.mg.q) {
		rd_queues();
		parsed = rec_info(r, sz, ri);
	}
	if (FAST && G.rd.lost_ahead && roff >= G.rd.scan_pos) {	/* what rd_lost_ahead has not seen */
		if (parsed == 0)
			rd_lost_rec(r, ri);
		G.rd.scan_pos = roff + sz;
	}
	if (parsed < 0) {
		G.bad.id++;
		return;
	}
	if (ri->cpu >= G.m.ncpu) {
		G.bad.cpu++;
		return;
	}
	if (type == PERF_RECORD_SAMPLE)
		G.ev.attr[ri->attr].nsamples++;
	if ((qi = rd_merge_q(type, ri, roff)) == RQ_OUT)
		return;
	if (qi == RQ_NOW) {
		emit(r, sz, G.mg.released, ri);
		return;
	}
	t = ri->time;
	if (t > G.rc.tmax)
		G.rc.tmax = t;
	if (G.rd.sorted) {	/* tc's own: in time order, but a LOST record where its loss began */
		mrg_order(t, type != PERF_RECORD_LOST);
		emit(r, sz, t, ri);
		return;
	}
	G.rc.round_lost |= type == PERF_RECORD_LOST;
	rd_queue(r, sz, t, ri, roff, qi);
}

/* At a broken record or an early end: why, if the file shrank while it
 * was read (it is shorter now than its data), else "". */
static const char *rd_shrunk(void)
{
	struct stat st;

	return FAST && !G.rd.pipe && fstat(G.rc.fd, &st) == 0 && (uint64_t)st.st_size < G.rd.end ?
	       " (the file shrank while tc read it)" : "";
}

/*
 * Stream the records of the opened recording through the merge to emit()
 * (rd_record; runs of samples: run_grow, rd_sorted_run), up to the first
 * record newer than limit (which stays unread, for paced replay).  Returns
 * 1 at the limit, 2 when a followed stream has nothing
 * more yet (a partial record stays unread), 0 if the data ended cleanly,
 * -1 if it ended in a broken record (what came before was emitted).
 */
static int rd_run(uint64_t limit)
{
	int ret = 0;

	G.rc.wait = false;
	while (rd_fill(8)) {
		const uint8_t *r = G.rc.buf + G.rc.pos;
		uint32_t type = g32(r);
		size_t sz = g16(r + 6);
		uint64_t roff = G.rc.off + G.rc.pos;
		struct rinfo ri;
		int parsed = -1;

		if (G.rc.ck_on && G.rd.sorted && roff >= G.rd.ck_next)
			rd_ckpt(roff, roff, 0);

		if (sz < 8 || !rd_type_ok(type)) {
			if (!G.rc.cut)
				note("bad record at offset %" PRIu64 " (type %u, size %zu)%s: the rest is skipped",
				     roff, type, sz, rd_shrunk());
			G.bad.corrupt += !G.rc.cut;
			ret = -1;
			break;
		}
		if (!rd_fill(sz)) {
			if (G.rc.wait)
				return 2;
			if (G.rd.pipe)
				rd_stream_cut(roff);
			else if (!G.rc.cut)
				note("the recording ends inside a record at offset %" PRIu64 "%s", roff, rd_shrunk());
			ret = -1;
			break;
		}
		r = G.rc.buf + G.rc.pos;
		if (type < PR_HEADER_ATTR && G.mg.q) {	/* parsed once (rd_queues binds first) */
			parsed = rec_info(r, sz, &ri);
			if (limit != UINT64_MAX && parsed == 0 && ri.has_time && ri.time > limit) {
				G.rc.next_t = ri.time;
				return 1;
			}
		}
		G.rc.pos += sz;
		if (G.rd.saving && (type == PR_HEADER_ATTR || type == PR_HEADER_TRACING_DATA ||
				    type == PR_HEADER_FEATURE)) {
			ret = -1;	/* pipe mode's, out of place in a file: the save stops */
			break;
		}
		rd_record(r, sz, type, roff, parsed, &ri);
		if (FAST && G.mg.cur_on && limit == UINT64_MAX && parsed == 0 && G.ev.attr[ri.attr].std)
			run_grow();	/* (rec_std knows the records after it) */
		else if (FAST && G.rd.sorted && G.mg.q)
			rd_sorted_run(limit);
	}
	if (!ret && !G.rc.wait && G.rd.pipe && G.rc.len > G.rc.pos) {	/* a piece of a header */
		rd_stream_cut(G.rc.off + G.rc.pos);
		ret = -1;
	} else if (FAST && !ret && G.rc.eof && !G.rc.cut && !G.rd.pipe && G.rc.off + G.rc.len < G.rd.end) {
		note("the recording ends at offset %" PRIu64 ", %" PRIu64 " bytes before the end of its data%s",
		     G.rc.off + G.rc.len, G.rd.end - (G.rc.off + G.rc.len), rd_shrunk());
		ret = -1;
	}
	if (G.rc.wait)
		return 2;	/* more may come: the queues wait for their rounds */
	if (G.mg.q)
		mrg_release(UINT64_MAX, false);
	if (FAST)
		rd_filler_stop();	/* (after the release's windows) */
	return ret;
}

/*
 * The save key's features (see feat_build): every readable feature blob of
 * the recording being read (up to MAX_TD in all), as it is, to sit at file
 * offset base; VERSION becomes TC_WRITER (the saved records are in time
 * order).  Left out are the writer's own (bit 0, SAMPLE_TIME) and what is
 * not about the records kept: file offsets (AUXTRACE, 18), a layout of the
 * data (DIR_FORMAT 24, COMPRESSED 27), a flight recording's trigger.
 */
static void rd_feat_copy(uint64_t base)
{
	const uint64_t left_out = 1ull << FEAT_RESERVED | 1ull << FEAT_VERSION | 1ull << 18 |
				  1ull << FEAT_SAMPLE_TIME | 1ull << 24 | 1ull << 27 | 1ull << FEAT_TC_MARK;
	struct buf b = { 0 };
	size_t start;

	G.rec.feat = 0;
	for (int f = 0; f < 64; f++) {
		uint64_t sz = G.rd.feat_size[f];
		uint8_t *blob;

		if (!(G.rd.feat_bits >> f & 1) || left_out >> f & 1 || sz > MAX_TD - b.len)
			continue;
		blob = xcalloc(1, sz + 1);
		if (rd_pread(blob, sz, G.rd.feat_off[f]) == 0) {
			start = b.len;
			buf_add(&b, blob, sz);
			feat_done(&b, base, f, start);
		}
		mem_free(blob);
	}
	start = b.len;
	buf_str(&b, TC_WRITER);
	feat_done(&b, base, FEAT_VERSION, start);
	mem_free(G.rec.blobs);
	G.rec.blobs = b.p;
	G.rec.blobs_len = b.len;
}

/* What a pass of the reader over the data changes besides the model: its
 * cursor, the merge, the bad-data counters.  The save key's pass
 * (rd_save) and a replay's reading child (rd_history) run with their own;
 * the view's waits in a struct rd_pass (rd_pass_swap). */
struct rd_pass {
	struct rcursor rc;
	struct merge mg;
	struct bad bad;
};

/* Exchange the reader's pass state in G with s's. */
static void rd_pass_swap(struct rd_pass *s)
{
	mem_swap((char *)&G.rc, (char *)&s->rc, sizeof(s->rc));
	mem_swap((char *)&G.mg, (char *)&s->mg, sizeof(s->mg));
	mem_swap((char *)&G.bad, (char *)&s->bad, sizeof(s->bad));
}

/*
 * Start a pass of the reader over the recording being read (--replay, a
 * regular file in file mode), from its start, with a second descriptor
 * and buffer and fresh merge queues, silent (the view's pass said what
 * was wrong); the view's pass waits in *view.  False, with why in msg,
 * if the file cannot be read again (a stream, or it changed).
 */
static bool rd_pass_open(struct rd_pass *view, char *msg, size_t msz)
{
	struct stat st;
	int fd;

	if (G.rd.pipe || G.rd.fsize == UINT64_MAX) {
		sfmt(msg, msz, "a stream cannot be read again; --script shows it");
		return false;
	}
	fd = open(strcmp(G.opt.replay_path, "-") ? G.opt.replay_path : "/proc/self/fd/0", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || (uint64_t)st.st_size != G.rd.fsize) {
		sfmt(msg, msz, "cannot read %.40s again: %s", G.opt.replay_path, fd < 0 ? strerror(errno) : "it changed");
		if (fd >= 0)
			close(fd);
		return false;
	}
	rd_pass_swap(view);
	G.rc.fd = fd;
	G.rc.buf = NULL;	/* rd_seek makes a buffer */
	rd_seek(G.opt.replay_path, G.rd.data_off);
	mrg_init(G.m.ncpu + 1, 0, true);
	G.rc.cut = true;	/* silent: no note on a broken record ... */
	G.mg.forced = 1;		/* ... or a full queue */
	return true;
}

/* End the pass rd_pass_open started (a scan's too); the view's goes on. */
static void rd_pass_close(struct rd_pass *view)
{
	G.rd.scanning = false;
	mrg_free();
	rd_buf_free();
	close(G.rc.fd);
	rd_pass_swap(view);
}

/* The stretch of n events of tracepoint kind k left out on CPU c between
 * times from (0: its first record) and to, into G.rd.unrec; counted. */
static void rd_unrec_add(uint64_t from, uint64_t to, uint64_t n, int c, int k)
{
	buf_add(&G.rd.unrec, &(struct unrec){ from, to, n, c, false }, sizeof(struct unrec));
	G.n.unrec[k] += n;
	G.n.unrec_all += n;
}

/* rd_unrec_scan's pass: record ri (a sample), in time order.  Its period
 * says how many events it stands for, but in freq mode (-F) only until
 * the kernel first moves the period: from then on the period is the one
 * in force at the sample, not a count since the one before (perf record
 * -F 2000 gave period 1 to switches with others left out before them), so
 * that every stretch after may have left some out (G.rd.unrec_moved). */
NOINL void rd_unrec_rec(const struct rinfo *ri)
{
	const struct attr *a = &G.ev.attr[ri->attr];
	uint64_t n, *l;
	bool *moved;

	if (ri->cpu < 0 || ri->cpu >= G.m.ncpu)
		return;
	if (G.rd.tp_last && ri->has_time && (a->kind < EV_NTP || a->kind == EV_SYS_ENTER || a->kind == EV_SYS_EXIT))
		G.rd.tp_last[ri->cpu] = ri->time;	/* as the model's cpu traced */
	if (G.rd.inject && !G.rd.idle_out && a->kind == EV_SWITCH && ri->raw &&
	    !fld_int(a->fp[F_PREV_PID], ri->raw, ri->rawsz, -1))
		G.rd.idle_out = true;
	if (!a->sampled || !ri->has_time)
		return;
	n = rec_unrecorded(ri);
	l = &G.rd.unrec_last[ri->cpu * EV_NTP + a->kind];
	moved = &G.rd.unrec_moved[l - G.rd.unrec_last];
	*moved |= n && a->pa.freq;
	if (n || *moved) {	/* a stretch per record: a switch record inside starts no known run */
		rd_unrec_add(*l, ri->time, unrec_counted(ri, n), ri->cpu, a->kind);
		G.rd.unrec_kinds |= 1u << a->kind;
	}
	*l = ri->time;
}

static int unrec_cmp(const void *a, const void *b)
{
	const struct unrec *x = a, *y = b;

	return x->from < y->from ? -1 : x->from > y->from ? 1 : x->cpu - y->cpu;
}

/* The model takes the stretches G.rd.unrec holds now (rd_lost_ahead adds
 * to them as the replay goes, and their buffer may move), and where it
 * has begun, the time of its next one (FAST). */
static void rd_unrec_give(void)
{
	G.m.unrec = (struct unrec *)G.rd.unrec.p;
	G.m.nunrec = G.rd.unrec.len / sizeof(struct unrec);
	if (G.m.unrec_at)	/* (0: the model finds it at its first event) */
		model_unrec_at();
}

/* A stretch rd_lost_ahead found, the newest of G.rd.unrec's, to its place
 * among those the model has not reached (the model is not past its start:
 * see rd_lost_ahead), after those that start as it does. */
static void rd_unrec_place(void)
{
	struct unrec *u = (struct unrec *)G.rd.unrec.p, v;
	size_t i = G.rd.unrec.len / sizeof(*u) - 1;

	for (v = u[i]; i > G.m.unrec_next && unrec_cmp(&u[i - 1], &v) > 0; i--)
		u[i] = u[i - 1];
	u[i] = v;
	rd_unrec_give();
}

/* rd_unrec_scan's pass: any record (ri), in time order.  A LOST record
 * (or a timed LOST_SAMPLES) of CPU c is a loss from c's last record
 * before it (the kernel writes it when the ring next has room, and perf
 * reads it a round or more later: applied when it comes, its loss began
 * before records of other CPUs the model had applied) to its own time,
 * into G.rd.unrec for the model to apply at its start. */
NOINL void rd_lost_rec(const uint8_t *r, const struct rinfo *ri)
{
	uint32_t type = g32(r);
	uint64_t n;

	if (ri->cpu < 0 || ri->cpu >= G.m.ncpu || !ri->has_time || !ri->time)
		return;
	if ((type == PERF_RECORD_LOST && ri->body_end >= 24 && (n = g64(r + 16))) ||
	    (type == PERF_RECORD_LOST_SAMPLES && ri->body_end >= 16 && (n = g64(r + 8)))) {
		buf_add(&G.rd.unrec, &(struct unrec){ G.rd.scan_last[ri->cpu], ri->time, n, ri->cpu, true },
			sizeof(struct unrec));
		if (FAST && G.rd.lost_ahead)
			rd_unrec_place();
	} else if (ri->time > G.rd.scan_last[ri->cpu])
		G.rd.scan_last[ri->cpu] = ri->time;	/* the newest, as the merge queue's (mq_key) */
}

/* The stretches a scan found, sorted by start, for the model (G.m.unrec). */
static void rd_unrec_sorted(void)
{
	G.m.unrec = (struct unrec *)G.rd.unrec.p;
	G.m.nunrec = G.rd.unrec.len / sizeof(struct unrec);
	sort(G.m.unrec, G.m.nunrec, sizeof(*G.m.unrec), unrec_cmp);
}

/*
 * A file with sampled tracepoints (struct attr's sampled): a pass over it
 * before the replay (rd_pass_open, at the first record) finds the
 * stretches the sampling left out, each from the previous record of its
 * kind on its CPU, and of a kind that left some out, after its last record
 * on each CPU; into G.m.unrec sorted by start, for the model to apply as
 * it goes (model_unrecorded).  With rings that overwrite, each CPU's last
 * tracepoint record (G.rd.tp_last, for model_cover).  The LOST records
 * too (rd_lost_rec); rd_lost_scan places those of a file that has any
 * (rd_lost_tail) and needs no other scan.
 */
static void rd_unrec_scan(void)
{
	struct rd_pass mainp = { 0 };
	char msg[160];
	uint64_t *last = G.rd.unrec_last = xcalloc((size_t)G.m.ncpu * EV_NTP, sizeof(uint64_t));

	G.rd.unrec_moved = xcalloc((size_t)G.m.ncpu * EV_NTP, sizeof(bool));
	G.rd.scan_last = xcalloc(G.m.ncpu, sizeof(uint64_t));
	if (!rd_pass_open(&mainp, msg, sizeof(msg)))
		die("%s", msg);
	if (G.rd.overwrite || G.rd.inject)
		G.rd.tp_last = xcalloc(G.m.ncpu, sizeof(uint64_t));
	G.rd.scanning = G.rd.saving = true;
	rd_run(UINT64_MAX);
	G.rd.saving = false;
	rd_pass_close(&mainp);
	for (int a = 0; a < G.ev.nattr; a++)
		G.ev.attr[a].nsamples = 0;	/* the replay's pass counts them */
	for (int i = 0; i < G.m.ncpu * EV_NTP; i++)
		if (G.rd.unrec_kinds >> (i % EV_NTP) & 1 && last[i])
			rd_unrec_add(last[i], UINT64_MAX, 0, i / EV_NTP, i % EV_NTP);
	rd_unrec_sorted();
	G.rd.unrec_scanned = true;
	if (!G.rd.unrec_kinds) {	/* every record of period 1 (perf 6.1's -c 3 kept all) */
		for (int a = 0; a < G.ev.nattr; a++)
			G.ev.attr[a].sampled = false;
		G.ev.sampled = false;
	}
	mem_free(last);
	mem_free(G.rd.unrec_moved);
	mem_free(G.rd.scan_last);
	G.rd.unrec_last = G.rd.scan_last = NULL;
	G.rd.unrec_moved = NULL;
	G.rd.lost_scanned = true;
}

/*
 * A file whose LOST records are to be placed first (rd_lost_tail), with
 * nothing else to scan for: the records in file order, where each CPU's
 * are in its ring's order, into rd_lost_rec, with no merge and no decoding
 * (a perf record file that took 244M instructions took 393M with a scan
 * through the merge, as rd_unrec_scan's, and 281M with this one).  A pass
 * of its own before the replay: for tc's files (not merged) and the static
 * build; else rd_lost_ahead.
 */
static void rd_lost_scan(void)
{
	struct rd_pass mainp = { 0 };
	char msg[160];
	struct rinfo ri;
	size_t sz;

	G.rd.scan_last = xcalloc(G.m.ncpu, sizeof(uint64_t));
	if (!rd_pass_open(&mainp, msg, sizeof(msg)))
		die("%s", msg);
	G.rd.scanning = FAST;	/* (rd_refill's rd_progress) */
	for (const uint8_t *r; (r = rd_rec(&sz)); G.rc.pos += sz)	/* (a broken record: the replay says) */
		if (g32(r) < PR_HEADER_ATTR && rec_info(r, sz, &ri) == 0)
			rd_lost_rec(r, &ri);
	rd_pass_close(&mainp);
	rd_unrec_sorted();
	mem_free(G.rd.scan_last);
	G.rd.scan_last = NULL;
	G.rd.lost_scanned = true;
}

/* rd_lost_ahead has seen every record. */
static void rd_lost_done(void)
{
	G.rd.lost_ahead = false;
	mem_free(G.rd.scan_buf);
	mem_free(G.rd.scan_last);
	G.rd.scan_buf = NULL;
	G.rd.scan_last = NULL;
}

/*
 * rd_lost_scan as the replay of a perf file goes (FAST): rd_record and
 * run_grow give the records they read to rd_lost_rec (G.rd.scan_pos: the
 * first one it has not seen), and before the merge releases records up to
 * bound (mrg_release), this reads on from there until each CPU's last
 * record seen is at least that new.  A LOST record found later starts its
 * stretch at its CPU's last record before it, no older than that: the
 * model, which has not gone past bound, has not passed its start, and
 * meets it as it would have after a pass over the whole file (a perf
 * record file with losses took 18% less time so: its bytes are read from
 * memory once, not twice).  A CPU with no record for long makes this read
 * ahead far, up to the end at worst: a pass of its own then.  The records
 * ahead are read in the replay's buffer where it has them, else into one
 * of their own of RD_BUF bytes.
 */
static void rd_lost_ahead(uint64_t bound)
{
	int lag = 0;	/* CPUs whose last record seen is older than bound */

	for (int c = 0; c < G.m.ncpu; c++)
		lag += G.rd.scan_last[c] < bound;
	while (G.rd.lost_ahead && lag) {
		uint64_t at = G.rd.scan_pos, in = at - G.rc.off, bin = at - G.rd.scan_boff;
		const uint8_t *b = NULL;
		size_t n = 0, o = 0;

		if (at >= G.rc.off && (in + MAX_REC <= G.rc.len || G.rc.off + G.rc.len >= G.rd.end) && in < G.rc.len) {
			b = G.rc.buf + in;
			n = G.rc.len - in;
		} else if (G.rd.scan_buf && at >= G.rd.scan_boff && bin < G.rd.scan_blen &&
			   (bin + MAX_REC <= G.rd.scan_blen || G.rd.scan_boff + G.rd.scan_blen >= G.rd.end)) {
			b = G.rd.scan_buf + bin;	/* what it read before */
			n = G.rd.scan_blen - bin;
		} else if (at < G.rd.end) {
			if (!G.rd.scan_buf)
				G.rd.scan_buf = xcalloc(1, RD_BUF);
			n = G.rd.end - at < RD_BUF ? G.rd.end - at : RD_BUF;
			b = G.rd.scan_buf;
			if (pread(G.rc.fd, G.rd.scan_buf, n, at) != (ssize_t)n)
				n = 0;
			G.rd.scan_boff = at;
			G.rd.scan_blen = n;
		}
		if (n > G.rd.end - at)
			n = G.rd.end - at;
		while (lag && n - o >= 8) {	/* the records rd_rec walks, as far as needed */
			uint32_t type = g32(b + o);
			size_t sz = g16(b + o + 6);
			struct rinfo ri;

			if (sz < 8 || !rd_type_ok(type) || sz > n - o)
				break;
			if (type < PR_HEADER_ATTR && rec_info(b + o, sz, &ri) == 0) {
				bool lagged = ri.cpu >= 0 && ri.cpu < G.m.ncpu && G.rd.scan_last[ri.cpu] < bound;

				rd_lost_rec(b + o, &ri);
				lag -= lagged && G.rd.scan_last[ri.cpu] >= bound;
			}
			o += sz;
		}
		G.rd.scan_pos = at + o;
		if (!o)	/* the data's end, or a record none follows (the replay stops there too) */
			rd_lost_done();
	}
}

/* Place a file's LOST records first (rd_lost_tail): as the replay goes
 * (rd_lost_ahead) where it merges, else in a pass of its own. */
static void rd_lost_place(void)
{
	if (!FAST || G.rd.sorted) {
		rd_lost_scan();
		return;
	}
	G.rd.scan_last = xcalloc(G.m.ncpu, sizeof(uint64_t));
	G.rd.scan_pos = G.rd.data_off;
	G.rd.lost_ahead = G.rd.lost_scanned = true;
	rd_unrec_sorted();	/* (none yet) */
}

/* Do the records of b from o on end exactly at its n bytes, each of a
 * type and size a file can hold? */
static bool rd_tail_parses(const uint8_t *b, uint64_t o, uint64_t n)
{
	while (o + 8 <= n) {
		size_t sz = g16(b + o + 6);

		if (sz < 8 || sz % 8 || !rd_type_ok(g32(b + o)) || sz > n - o)
			return false;
		o += sz;
	}
	return o == n;
}

/*
 * perf record's end (model_end_off), found before the replay so that the
 * model applies it as it goes (model_cover: G.m.ow_end, from which a task
 * not running is unknown, also where later records of the CPUs still on
 * would close its state).  The data's last MiB (b, n bytes: rd_tail) is
 * read from its first FINISHED_ROUND whose records parse to the end (from
 * its start if that is all of it; a round as large as that: nothing
 * found, the end rule alone applies); each CPU's last sched_switch there.
 * Where every CPU with one switched in the same task, and two or more
 * did: the first of those switches; else 0.
 */
static uint64_t rd_end_tail(const uint8_t *b, uint64_t n)
{
	uint64_t dlen = G.rd.end - G.rd.data_off, off = 0, p;
	uint64_t *t;
	int *next, r = 0, ncpu = 0;

	if (!b || G.rd.part == PART_TASKS || dlen % 8)
		return 0;
	for (p = 0; p + 8 <= n && !(p == 0 && n == dlen && rd_tail_parses(b, 0, n)); p += 8)	/* (all: from its start) */
		if (g32(b + p) == PR_FINISHED_ROUND && g16(b + p + 6) == 8 && rd_tail_parses(b, p, n))
			break;
	t = xcalloc(G.m.ncpu, sizeof(*t));
	next = xcalloc(G.m.ncpu, sizeof(*next));
	for (size_t sz; p + 8 <= n; p += sz) {
		struct rinfo ri;
		struct ev e;

		sz = g16(b + p + 6);
		if (g32(b + p) == PERF_RECORD_SAMPLE && rec_info(b + p, sz, &ri) == 0 && ri.cpu >= 0 &&
		    ri.cpu < G.m.ncpu && ri.has_time && ev_decode(b + p, &ri, &e) > 0 && e.kind == EV_SWITCH &&
		    ri.time >= t[ri.cpu]) {
			t[ri.cpu] = ri.time;
			next[ri.cpu] = e.b;
		}
	}
	for (int c = 0; c < G.m.ncpu; c++)
		if (t[c] && !end_sig(t[c], next[c], &off, &r, &ncpu)) {
			ncpu = 0;
			break;
		}
	mem_free(t);
	mem_free(next);
	return ncpu > 1 ? off : 0;
}

/* The data's last MiB or less (*n bytes) of a recording tc did not
 * write, read as a file (rd_lost_tail and rd_end_tail look there; given
 * back with rd_tail_done); NULL (*n 0) for tc's files, a stream, a cut
 * file, or less than 16 bytes.  Read into the room of the read buffer
 * (a perf file's, FAST: it has 1.7 MiB left at the first event), not a
 * buffer of its own on a huge page (xcalloc_huge, as the static build
 * does), whose 2 MiB the kernel zeroed.  On a VM under PVM a buffer's 256
 * small pages took 5 ms of a perf -m 4096 file's 53; a mapping of the
 * tail populated at once (MAP_POPULATE) was no faster than a buffer on a
 * huge page (perf's bench file: 30.2 against 29.2 ms, three sets of 21
 * runs). */
static const uint8_t *rd_tail(uint64_t *n)
{
	uint64_t dlen = G.rd.end - G.rd.data_off;
	uint8_t *b;

	*n = dlen < (1 << 20) ? dlen : 1 << 20;
	if (G.rd.sorted || G.rd.pipe || G.rd.fsize == UINT64_MAX || G.rd.end > G.rd.fsize || *n < 16) {
		*n = 0;
		return NULL;
	}
	b = FAST && G.rc.cap - G.rc.len >= *n ? G.rc.buf + G.rc.len : xcalloc_huge(*n);
	if (rd_pread(b, *n, G.rd.end - *n) < 0) {
		rd_tail_done(b);
		*n = 0;
		return NULL;
	}
	return b;
}

/* Give back rd_tail's tail (one in the read buffer's room stays). */
static void rd_tail_done(const uint8_t *tail)
{
	if (!FAST || (uintptr_t)tail - (uintptr_t)G.rc.buf >= G.rc.cap)
		mem_free((void *)tail);
}

/* Does the file end as perf record (6.0 on) ends one whose rings lost
 * events: a FINISHED_ROUND, then LOST_SAMPLES records (each event's lost
 * count, PERF_FORMAT_LOST) up to the data's end?  Then its LOST records
 * are placed first (rd_lost_scan, or rd_unrec_scan's pass).  Read in the
 * last 64 KiB of the data (of rd_tail's tn bytes at tail), at 8-byte steps
 * back from its end (perf's records are 8-byte multiples). */
static bool rd_lost_tail(const uint8_t *tail, uint64_t tn)
{
	uint64_t n = tn < (64 << 10) ? tn : 64 << 10;
	const uint8_t *b;
	bool found = false;

	if (!tail || n < 16 || n % 8)
		return false;
	b = tail + tn - n;
	for (int64_t p = (int64_t)n - 16; !found && p >= 0; p -= 8) {
		uint64_t o = (uint64_t)p + 8;

		if (g32(b + p) != PR_FINISHED_ROUND || g16(b + p + 6) != 8)
			continue;
		while (o + 8 <= n && g32(b + o) == PERF_RECORD_LOST_SAMPLES && g16(b + o + 6) >= 16)
			o += g16(b + o + 6);
		found = o == n && o > (uint64_t)p + 8;
	}
	return found;
}

/*
 * The save key's choice (rd_save) of record r (n bytes, ri its parse) as
 * its pass releases it: a sample in the span; any other record up to its
 * end (tasks' names, forks and exits before it say who is who), but for
 * losses before it; a record without a time (synthesized at the start, as
 * perf's and tc's COMM records) always.
 */
static void rd_save_rec(const uint8_t *r, size_t n, const struct rinfo *ri)
{
	uint32_t type = g32(r);
	uint64_t t = ri && ri->has_time ? ri->time : 0;
	bool early = type == PERF_RECORD_SAMPLE || type == PERF_RECORD_LOST || type == PERF_RECORD_LOST_SAMPLES;

	if (t && (t > G.rd.save_until || (t < G.rd.save_from && early)))
		return;
	rec_record(r, n, t);
	if (++G.rd.save_n % 4096 == 0)
		rec_round();
}

/*
 * Write the span [from, until] of the recording being read (--replay, a
 * regular file in file mode, of this machine's byte order) as the
 * recording out: the records rd_save_rec chooses, byte for byte, in the
 * order tc's merge releases them, under the file's own attrs, ids and
 * features (rd_feat_copy); readable by tc and perf.  The file is read
 * again in a pass of its own (a second descriptor and buffer, fresh
 * merge queues, silent: the view's pass said what was wrong): the view's
 * reading and its model stay as they were.  The recorder must be free;
 * out is created as --record creates it (rec_open_out).  msg gets what was
 * written, or why nothing was; returns the records written, -1 if none.
 */
static int rd_save(const char *out, uint64_t from, uint64_t until, char *msg, size_t msz)
{
	struct rd_pass view = { 0 };
	const char *base;

	if (G.ev.swap) {
		sfmt(msg, msz, "S saves a span of a file-mode recording of this byte order; this one: --script");
		return -1;
	}
	if (!rd_pass_open(&view, msg, msz))
		return -1;
	G.rd.save_from = from;
	G.rd.save_until = until;
	G.rd.save_n = 0;
	base = rec_save_open(out, 0);
	G.rd.saving = true;
	rd_run(UINT64_MAX);
	G.rd.saving = false;
	rec_save_close(base, G.rd.save_n, "", msg, msz);
	rd_pass_close(&view);
	return G.rd.save_n;
}

/* ---------------------------------------------------------------- repair */

/*
 * tc --repair FILE: make a cut-off recording (tc's killed while recording,
 * or perf record's, whose data size is 0 until it exits) readable by perf.
 * The records from the data offset up to the last complete one are kept,
 * byte for byte, and a new feature table is appended.  Every feature of
 * the original that can be read is kept (copied after the table when it
 * sat after the data); the ones tc needs and the file lacks are taken from
 * this machine.  The original is kept as FILE.old, which is never
 * overwritten; a complete file is left as it is.
 */

/* Remove the half-written repair tmp and die with the reason. */
static void __attribute__((noreturn)) rp_fail(const char *tmp, const char *what)
{
	int e = errno;

	unlink(tmp);
	die("writing %s (%s): %s; %s is unchanged", tmp, what, strerror(e), G.opt.repair_path);
}

/* Copy bytes [off, off + n) of the recording to out. */
static void rp_copy(int out, const char *tmp, uint64_t off, uint64_t n)
{
	uint8_t *cp = xcalloc(1, RD_BUF);

	for (uint64_t o = 0; o < n;) {
		size_t k = n - o < RD_BUF ? n - o : RD_BUF;

		if (rd_pread(cp, k, off + o) < 0)
			rp_fail(tmp, "reading the original");
		if (write_all(out, cp, k) < 0)
			rp_fail(tmp, "copying");
		o += k;
	}
	mem_free(cp);
}

/* Is the feature table after the data whole, every feature below 64 in
 * it readable? */
static bool rp_table_whole(void)
{
	uint8_t h[FILE_HDR_SIZE];
	int n = 0;
	uint64_t want;

	if (rd_pread(h, sizeof(h), 0) < 0)
		return false;
	for (int i = 0; i < 4; i++)
		n += __builtin_popcountll(g64(h + 72 + 8 * i));
	want = g64(h + 72) & ~(1ull << FEAT_RESERVED);
	return G.rd.end <= G.rd.fsize && (uint64_t)16 * n <= G.rd.fsize - G.rd.end &&
	       (G.rd.feat_bits & want) == want;
}

/* Scan the data from G.rc.pos to the last complete record (G.rec.first
 * and G.rec.last get the sample times); returns its end offset. */
static uint64_t rp_scan(int *nrec)
{
	const uint8_t *r;
	size_t sz;

	while ((r = rd_rec(&sz)) && !(sz % 8) && g32(r) != PR_HEADER_TRACING_DATA) {
		struct rinfo ri;

		if (g32(r) == PERF_RECORD_SAMPLE && rec_info(r, sz, &ri) == 0 && ri.has_time) {
			if (!G.rec.first || ri.time < G.rec.first)
				G.rec.first = ri.time;
			if (ri.time > G.rec.last)
				G.rec.last = ri.time;
		}
		G.rc.pos += sz;
		(*nrec)++;
	}
	return G.rc.off + G.rc.pos;
}

/*
 * Plan the features of a repair whose data ends at end: every readable
 * one of the file's own (*moved: those that sat after end, to be copied
 * after the new table), the ones tc needs that it lacks (*missing) built
 * from this machine into G.rec.blobs; SAMPLE_TIME from the scan.  Sets
 * G.rec.blob_off/size for rec_trailer; returns the feature bits.
 */
static uint64_t rp_features(const char *path, uint64_t end, uint64_t *moved, uint64_t *missing)
{
	/* facts of the machine, not of the recording's clock: a file without
	 * CLOCKID is in perf's clock, which this machine cannot tell */
	static const int statics[] = { FEAT_TRACING_DATA, FEAT_HOSTNAME, FEAT_OSRELEASE,
				       FEAT_ARCH, FEAT_NRCPUS };
	uint64_t bits = G.rd.feat_bits & ~(1ull << FEAT_RESERVED | 1ull << FEAT_SAMPLE_TIME);
	uint64_t app = 0, base;

	*moved = *missing = 0;
	for (size_t i = 0; i < sizeof(statics) / sizeof(statics[0]); i++)
		if (!(bits >> statics[i] & 1))
			*missing |= 1ull << statics[i];
	bits |= *missing | 1ull << FEAT_SAMPLE_TIME;
	base = end + 16 * __builtin_popcountll(bits) + 16;
	for (int f = 0; f < 64; f++)
		if (G.rd.feat_bits >> f & 1 && bits >> f & 1 &&
		    G.rd.feat_off[f] + G.rd.feat_size[f] > end) {
			*moved |= 1ull << f;
			app += (G.rd.feat_size[f] + 7) / 8 * 8;
		}
	if (*missing) {
		pe_cpus();
		if (!G.ev.tfs_root[0] && tfs_find() < 0 && (*missing >> FEAT_TRACING_DATA & 1))
			die("%s lacks tracing data and this machine has no tracefs to take it from", path);
		feat_build(base + app, G.m.ncpu);
		note("%s: features taken from this machine:%s%s%s%s%s", path,
		     *missing >> FEAT_TRACING_DATA & 1 ? " tracing data" : "",
		     *missing >> FEAT_NRCPUS & 1 ? " nrcpus" : "",
		     *missing >> FEAT_HOSTNAME & 1 ? " hostname" : "",
		     *missing >> FEAT_OSRELEASE & 1 ? " osrelease" : "",
		     *missing >> FEAT_ARCH & 1 ? " arch" : "");
	}
	for (int f = 0, o = 0; f < 64; f++)
		if (G.rd.feat_bits >> f & 1 && bits >> f & 1) {
			G.rec.blob_off[f] = *moved >> f & 1 ? base + o : G.rd.feat_off[f];
			G.rec.blob_size[f] = G.rd.feat_size[f];
			o += *moved >> f & 1 ? (G.rd.feat_size[f] + 7) / 8 * 8 : 0;
		}
	return bits;
}

/* tc --repair FILE (see above). */
static void rp_repair(const char *path)
{
	char tmp[PATH_MAX], old[PATH_MAX];
	uint64_t end, data_end, moved, missing, bits, h[7];
	uint8_t t[16 * 66];
	size_t tlen;
	int out, nrec = 0;
	bool complete;
	struct stat st;

	rd_open(path);
	if (G.rd.pipe)
		die("%s is a pipe-mode recording: perf script and tc read it as it is; nothing to repair", path);
	if (G.ev.swap)
		die("%s is in the other byte order: repair it on a machine of its own byte order", path);
	complete = !G.rc.cut && rp_table_whole();
	data_end = G.rd.end;
	if (!complete)
		G.rd.end = G.rd.fsize;
	G.rc.cut = true;
	end = rp_scan(&nrec);
	if (complete && end == data_end) {
		note("%s is complete (%d records): nothing to repair, left as it is", path, nrec);
		return;
	}

	bits = rp_features(path, end, &moved, &missing);
	/* the new file: [0, end) of the old one, the table, the blobs */
	if ((size_t)sfmt(tmp, sizeof(tmp), "%s.repair", path) >= sizeof(tmp) ||
	    (size_t)sfmt(old, sizeof(old), "%s.old", path) >= sizeof(old))
		die("%s: the name is too long to keep the original as %s.old", path, path);
	if (lstat(old, &st) == 0)
		die("%s exists (an earlier repair's original?): move it away first, tc does not overwrite it", old);
	if ((out = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		die("cannot create %s: %s", tmp, strerror(errno));
	if (fstat(G.rc.fd, &st) == 0 && (fchown(out, st.st_uid, st.st_gid) < 0 || fchmod(out, st.st_mode & 0777) < 0))
		note("%s: cannot give it the owner and mode of %s: %s", tmp, path, strerror(errno));
	rp_copy(out, tmp, 0, end);
	tlen = rec_trailer(t, end, bits);
	if (write_all(out, t, tlen) < 0)
		rp_fail(tmp, "feature table");
	for (int f = 0; f < 64; f++)
		if (moved >> f & 1) {
			static const uint8_t z[8];

			rp_copy(out, tmp, G.rd.feat_off[f], G.rd.feat_size[f]);
			if (write_all(out, z, (8 - G.rd.feat_size[f] % 8) % 8) < 0)
				rp_fail(tmp, "features");
		}
	if (missing && write_all(out, G.rec.blobs, G.rec.blobs_len) < 0)
		rp_fail(tmp, "features");
	h[0] = end - G.rd.data_off;
	h[1] = h[2] = 0;
	h[3] = bits;
	h[4] = h[5] = h[6] = 0;
	if (pwrite(out, h, sizeof(h), 48) != sizeof(h) || fsync(out) < 0)
		rp_fail(tmp, "header");
	close(out);
	if (rename(path, old) < 0 || rename(tmp, path) < 0)
		die("cannot replace %s: %s", path, strerror(errno));
	note("repaired %s: %d records, %" PRIu64 " bytes of data kept, %" PRIu64 " bytes after them dropped; the original is %s",
	     path, nrec, end - G.rd.data_off, G.rd.end - end, old);
}

/* ---------------------------------------------------------------- traced command */

/*
 * The command is forked first and held: it waits for SIGUSR1, which tc
 * sends once the events are enabled, so its first instructions are traced.
 * Waiting makes no system call that -I traces (a read would be the
 * command's first I/O).  It runs in its own process group so that stopping
 * it reaches its children, and dies with tc (PDEATHSIG), also while held.
 * An exec failure is reported back over a close-on-exec pipe.
 */
static int cmd_err_fd = -1;

/* The foreground process group of the terminal on standard input (-1:
 * none), and making g that group (tcgetpgrp, tcsetpgrp without their
 * C library wrappers: 140 bytes of a static binary). */
static pid_t tty_fg(void)
{
	pid_t g;

	return ioctl(0, TIOCGPGRP, &g) == 0 ? g : -1;
}

static void tty_give(pid_t g)
{
	ioctl(0, TIOCSPGRP, &g);
}

/* Fork the held command G.opt.cmd; G.child.pid is its pid (and process group). */
static void cmd_start(void)
{
	int err[2];
	pid_t pid, parent = getpid();
	sigset_t go, old;
	bool fg;

	if (pipe2(err, O_CLOEXEC) < 0)
		die("pipe: %s", strerror(errno));
	prctl(PR_SET_CHILD_SUBREAPER, 1);	/* what the command orphans comes to tc */
	sigemptyset(&go);
	sigaddset(&go, SIGUSR1);
	sigprocmask(SIG_BLOCK, &go, &old);	/* no SIGUSR1 can be missed */
	out_flush(&tc_out);	/* nothing buffered is written twice */
	/* tc a job of its own at a terminal: the leader of its process group
	 * (under a wrapper that does no job control, a stop of tc's would
	 * stop the job only in part), not in a pipeline (its standard output
	 * the terminal, not a stream of --record -: another member, a view,
	 * may need the terminal); the command gets the terminal now if tc is
	 * in the foreground, else when tc is brought there (cmd_reap) */
	G.child.tty = !G.opt.view && !(G.rec.pipe && !strcmp(G.opt.rec_path, "-")) && isatty(0) && isatty(1) &&
		      getpgrp() == getpid() && tcgetattr(0, &G.child.tio) == 0;
	fg = G.child.tty && tty_fg() == getpid();
	if (G.child.tty)	/* tc in the background soon: its notes, taking the terminal back */
		signal(SIGTTOU, SIG_IGN);
	pid = _Fork();		/* fork without atfork handlers, which tc has none of, nor the
				   C library's thread locks (1.5 KiB of a static binary) */
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		int e;

		setpgid(0, 0);
		if (fg)		/* SIGTTOU ignored: a group in the background may take it */
			tty_give(getpid());
		for (int sig = 1; sig < NSIG; sig++) {	/* Ctrl-C while held ends it, not tc's handler */
			struct sigaction sa;

			if (sig != SIGUSR1 && sigaction(sig, NULL, &sa) == 0 &&
			    (sa.sa_handler != SIG_IGN || sig == SIGTTOU || sig == SIGPIPE))
				signal(sig, SIG_DFL);	/* what tc was started ignoring (nohup's SIGHUP) stays so */
		}
		if (!child_of(parent, G.opt.view))	/* the view's terminal: no keys, no output */
			_exit(127);
		close(err[0]);
		while (sigwaitinfo(&go, NULL) < 0 && errno == EINTR)
			;
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(G.opt.cmd[0], G.opt.cmd);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	setpgid(pid, pid);
	close(err[1]);
	G.child.pid = pid;
	G.child.held = true;
	cmd_err_fd = err[0];
	guard_say('P', pid);
}

/* tc dies because the command cannot be executed (errno e), with the
 * status shells, env and timeout give: 127 not found, else 126. */
static void cmd_cannot_run(int e)
{
	die_status = e == ENOENT ? 127 : 126;
	die("cannot run %s: %s%s", G.opt.cmd[0], strerror(e),
	    e == ENOENT && !strchr(G.opt.cmd[0], '/') ? " (not found in PATH)" : "");
}

/*
 * Before anything is opened or renamed: die (cmd_cannot_run) unless the
 * command is an executable file, looked up in PATH as execvp does (the C
 * library's default path when PATH is unset).  What only the exec can
 * tell (a bad binary) is still caught by cmd_go.
 */
static void cmd_check(void)
{
	const char *name = G.opt.cmd[0], *path = getenv("PATH"), *p;
	char full[PATH_MAX];
	struct stat st;
	int e = ENOENT;

	/* a name with a slash is looked up as it is: one empty PATH entry */
	p = strchr(name, '/') ? "" : path ? path : "/usr/local/bin:/bin:/usr/bin";
	for (; *name; p++) {
		size_t n = strcspn(p, ":");

		if ((size_t)sfmt(full, sizeof(full), "%.*s%s%s", (int)n, p, n ? "/" : "", name) < sizeof(full) &&
		    stat(full, &st) == 0) {
			if (!S_ISDIR(st.st_mode) && access(full, X_OK) == 0)
				return;
			e = EACCES;	/* execvp goes on, and says this if nothing else runs */
		}
		p += n;
		if (!*p)
			break;
	}
	cmd_cannot_run(e);
}

/* Let the held command run.  If it cannot be executed (after cmd_check,
 * only a bad binary), the recording made for it is removed (an older one
 * put back) and tc dies. */
static void cmd_go(void)
{
	ssize_t n;
	int e;

	kill(G.child.pid, SIGUSR1);
	G.child.held = false;
	while ((n = read(cmd_err_fd, &e, sizeof(e))) < 0 && errno == EINTR)
		;
	if (n == sizeof(e)) {
		waitpid(G.child.pid, NULL, 0);
		G.child.pid = 0;
		if (G.opt.rec_path && !G.rec.pipe) {
			char old[PATH_MAX];

			unlink(G.opt.rec_path);
			sfmt(old, sizeof(old), "%s.old", G.opt.rec_path);
			if (G.rec.kept_old)
				rename(old, G.opt.rec_path);
		}
		cmd_cannot_run(e);
	}
	close(cmd_err_fd);
}

/*
 * The terminal (the command has had it: G.child.tty) back to tc's group
 * if its foreground group is the command's, or one with no process left
 * (an inner shell's job, or the inner shell that took it from tc, ended
 * with the command); with restore, in the settings it had before the
 * command (a command stopped or killed could not restore them), as a
 * shell does for a job.  ours: also when tc's group has it (the command's
 * tree is gone, but what it set stays).
 */
static void cmd_tty_back(bool restore, bool ours)
{
	pid_t g = tty_fg(), me = getpgrp();

	if (g > 0 && ((ours && g == me) || (g != me && (g == abs(G.child.pid) ||
							 (kill(-g, 0) < 0 && errno == ESRCH))))) {
		tty_give(me);	/* SIGTTOU is ignored */
		if (restore)
			tty_setattr(0, TCSADRAIN, &G.child.tio);
	}
}

/*
 * The command, holding the terminal, was stopped (Ctrl-Z, or it read the
 * terminal from the background): take the terminal back and stop tc the
 * same way, so the shell sees its job stopped.  After fg, the terminal and
 * SIGCONT go to the command; after bg, only SIGCONT.
 */
static void cmd_stopped(int st)
{
	int sig = WSTOPSIG(st) == SIGSTOP ? SIGSTOP : SIGTSTP;
	struct termios its;	/* the command's settings, for fg */
	bool had = tty_fg() == G.child.pid && tcgetattr(0, &its) == 0;

	cmd_tty_back(true, false);
	stop_self(sig);
	if (tty_fg() == getpgrp()) {
		if (had)
			tty_setattr(0, TCSADRAIN, &its);
		tty_give(G.child.pid);
	}
	kill(-G.child.pid, SIGCONT);
}

/* --record got Ctrl-Z (or SIGTSTP) itself, its command not holding the
 * terminal: stop the command and tc, as a shell's job stops; go on with
 * both when continued (fg, bg). */
static void rec_suspend(void)
{
	bool cmd = G.child.pid > 0 && !G.child.done;

	G.sig.tstp = 0;
	if (G.child.tty)
		return;	/* a stop from outside: the command's own stop stops tc (cmd_stopped) */
	if (cmd)
		kill(-G.child.pid, SIGSTOP);
	stop_self(SIGTSTP);
	if (cmd)
		kill(-G.child.pid, SIGCONT);
}

/* Reap the command if it has exited, and whatever else tc inherited as
 * subreaper; true once the command has exited.  A command holding the
 * terminal that stops stops tc (cmd_stopped). */
static bool cmd_reap(void)
{
	int st;
	pid_t p;

	if (G.child.pid <= 0)
		return true;
	if (G.child.tty && !G.child.done && tty_fg() == getpgrp())
		tty_give(G.child.pid);	/* fg after bg (no SIGCONT comes): the command's again */
	while ((p = waitpid(-1, &st, WNOHANG | (G.child.tty ? WUNTRACED : 0))) > 0)
		if (p == G.child.pid && WIFSTOPPED(st)) {
			if (!G.sig.stop)	/* tc is ending: no stop of its own (kill %1 of a stopped job) */
				cmd_stopped(st);
		} else if (p == G.child.pid && !G.child.done) {
			G.child.status = st;
			G.child.done = true;
			G.child.done_at = now_ns();
			if (G.child.tty)
				cmd_tty_back(WIFSIGNALED(st), false);
			kill(-G.child.pid, SIGTERM);	/* what it left behind in its group */
		}
	if (G.child.done && G.child.guard_pg && kill(-G.child.pid, 0) < 0)
		guard_say('P', 0);	/* the group is gone, its number free for another */
	return G.child.done;
}

/* Once the command has exited: true when its last switch-out has been
 * read from the rings (it comes after the exit the parent is told of), or
 * 100 ms after it was reaped (the record lost, no sched events). */
static bool cmd_out(void)
{
	return G.child.out_read || now_ns() - G.child.done_at >= NS_PER_SEC / 10;
}

struct cmd_proc { int pid, ppid; int8_t mine; bool zombie; };	/* mine: -1 unknown, 0, 1 */

static int cmd_proc_cmp(const void *a, const void *b)
{
	const struct cmd_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Is pr[i] a descendant of tc?  Memoized in mine; pr sorted by pid. */
static bool cmd_proc_mine(struct cmd_proc *pr, int n, int i, int depth)
{
	struct cmd_proc key, *parent;

	if (pr[i].mine < 0) {
		key.pid = pr[i].ppid;
		parent = bsearch(&key, pr, n, sizeof(*pr), cmd_proc_cmp);
		pr[i].mine = pr[i].ppid == getpid() ||
			     (parent && depth < 4096 && cmd_proc_mine(pr, n, parent - pr, depth + 1));
	}
	return pr[i].mine;
}

/*
 * Send sig (0: none) to every live descendant of tc, found by following
 * PPid in /proc/PID/stat; returns how many there are (zombies are not
 * counted).  Stop time only: it reads all of /proc.
 */
static int cmd_signal_tree(int sig)
{
	static struct numdir d;
	struct cmd_proc *pr = NULL;
	int n = 0, cap = 0, found = 0, pid;

	numdir_open(&d, "/proc");
	while ((pid = numdir_next(&d))) {
		char path[64], buf[512], *rp;

		sfmt(path, sizeof(path), "/proc/%d/stat", pid);
		if (read_small(path, buf, sizeof(buf)) <= 0 || !(rp = strrchr(buf, ')')))
			continue;
		if (n == cap) {
			void *np = mem_realloc(pr, (cap = cap ? 2 * cap : 1024) * sizeof(*pr));

			if (!np)
				break;
			pr = np;
		}
		pr[n].pid = pid;
		pr[n].mine = -1;
		pr[n].zombie = rp[1] && rp[2] == 'Z';
		if (rp[1] == ' ' && rp[2] && rp[3] == ' ' && rp[4] >= '0' && rp[4] <= '9') {	/* ") S 123" */
			pr[n].ppid = atoi(rp + 4);
			n++;
		}
	}
	if (d.fd >= 0)		/* out of memory */
		close(d.fd);
	if (n)
		sort(pr, n, sizeof(*pr), cmd_proc_cmp);
	for (int i = 0; i < n; i++)
		if (cmd_proc_mine(pr, n, i, 0) && !pr[i].zombie && pr[i].pid != G.child.guard) {
			found++;
			if (sig)
				kill(pr[i].pid, sig);
		}
	mem_free(pr);
	return found;
}

/*
 * Stop the command and everything it started: its process group and every
 * descendant, also those that left the group (tc is their subreaper):
 * SIGTERM, then SIGKILL after a grace period, whether or not the command
 * itself still lives; reap them all.  Safe to call at any time, also from
 * die().
 */
static void cmd_kill(void)
{
	uint64_t until;
	bool tty = G.child.tty && !(G.child.done && WIFEXITED(G.child.status));	/* not left as it set it */

	if (G.child.pid <= 0)
		return;
	if (G.child.held) {		/* never started */
		kill(G.child.pid, SIGKILL);
		G.child.held = false;
	}
	G.child.tty = false;	/* stopping it: its stops no longer stop tc */
	cmd_reap();
	kill(-G.child.pid, SIGTERM);
	kill(-G.child.pid, SIGCONT);	/* a stopped one, too */
	if (cmd_signal_tree(SIGTERM)) {
		until = now_ns() + GRACE_NS;
		while (now_ns() < until && (cmd_reap(), cmd_signal_tree(0)))
			usleep(20000);
		kill(-G.child.pid, SIGKILL);
		cmd_signal_tree(SIGKILL);
	}
	while (!G.child.done && waitpid(G.child.pid, &G.child.status, 0) < 0 && errno == EINTR)
		;
	G.child.done = true;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	G.child.pid = -G.child.pid;	/* done: keep the number for nothing else */
	guard_say('P', 0);
	if (tty)	/* its group, or an inner shell's job, is gone: back as it was */
		cmd_tty_back(true, true);
}

/* ---------------------------------------------------------------- text outputs */

static struct out *out_script;

/* One --script line for e: "TIME_NS CPU EVENT key=value ...". */
static void out_event(struct out *f, const struct ev *e)
{
	if (e->kind == EV_SYS_ENTER || e->kind == EV_SYS_EXIT)
		ofmt(f, "%" PRIu64 " %d sys_%s_%s", e->time, e->cpu,
		     e->kind == EV_SYS_ENTER ? "enter" : "exit", io_calls[e->b].name);
	else
		ofmt(f, "%" PRIu64 " %d %s", e->time, e->cpu, ev_names[e->kind]);
	switch (e->kind) {
	case EV_SWITCH:
		oputs(" prev_comm=", f);
		out_name(f, e->comm);
		ofmt(f, " prev_pid=%d prev_state=%" PRId64 " next_comm=", e->a, e->v);
		out_name(f, e->comm2);
		ofmt(f, " next_pid=%d", e->b);
		break;
	case EV_WAKEUP:
	case EV_WAKEUP_NEW:
	case EV_WAKING:
		oputs(" comm=", f);
		out_name(f, e->comm);
		ofmt(f, " pid=%d target_cpu=%d waker=%d irq=%d", e->a, e->c, e->tid,
		     !!(e->flags & TRACE_IRQ_FLAGS));
		break;
	case EV_PFORK:
		oputs(" parent_comm=", f);
		out_name(f, e->comm);
		ofmt(f, " parent_pid=%d child_comm=", e->a);
		out_name(f, e->comm2);
		ofmt(f, " child_pid=%d", e->b);
		break;
	case EV_PEXEC:
		oputs(" filename=", f);
		out_name(f, e->comm);
		ofmt(f, " pid=%d old_pid=%d", e->a, e->b);
		break;
	case EV_PEXIT:
	case EV_MIGRATE:
		oputs(" comm=", f);
		out_name(f, e->comm);
		ofmt(f, " pid=%d", e->a);
		if (e->kind == EV_MIGRATE)
			ofmt(f, " orig_cpu=%d dest_cpu=%d", e->b, e->c);
		break;
	case EV_IDLE:
	case EV_FREQ:
		ofmt(f, " state=%" PRId64 " cpu_id=%d", e->v, e->c);
		break;
	case EV_IRQ:
		ofmt(f, " irq=%d name=", e->a);
		out_name(f, e->comm);
		break;
	case EV_IRQ_EXIT:
		ofmt(f, " irq=%d ret=%" PRId64, e->a, e->v);
		break;
	case EV_SOFTIRQ:
	case EV_SOFTIRQ_EXIT:
		ofmt(f, " vec=%d", e->a);
		break;
	case EV_COMM:
		ofmt(f, " pid=%d tid=%d exec=%d comm=", e->a, e->b, (int)e->v);
		out_name(f, e->comm);
		break;
	case EV_FORK:
	case EV_EXIT:
		ofmt(f, " pid=%d ppid=%d tid=%d ptid=%d", e->a, e->b, e->c, (int)e->v);
		break;
	case EV_LOST:
		ofmt(f, " lost=%" PRId64, e->v);
		break;
	case EV_SYS_ENTER:
		ofmt(f, " pid=%d fd=%d", e->tid, e->a);
		break;
	case EV_SYS_EXIT:
		ofmt(f, " pid=%d ret=%" PRId64, e->tid, e->v);
		break;
	}
	oputc('\n', f);
}

/* ns as milliseconds with three decimals, exactly (truncated to µs). */
static void out_ms(struct out *f, uint64_t ns)
{
	char b[32];

	out_write(f, b, put_ms(b, ns) - b);
}

/*
 * --states, after the intervals (ival_print): the model's totals in ns over
 * the span each row was accounted, one line per task, then per CPU:
 *   task_total TID FIRST LAST RUN RUNNABLE SLEEP BLOCKED UNKNOWN EXITED
 *   cpu_total CPU FIRST LAST BUSY IDLE
 * A task's totals add up to LAST - FIRST; a CPU's time that is neither
 * busy nor idle is unknown.
 */
static void out_states_totals(struct out *f)
{
	for (int i = 0; i < G.m.ntask; i++) {
		const struct task *t = &G.m.task[i];
		char b[9 * 21 + 1], *p = put_col(b, t->first_seen);

		p = put_col(p, G.m.last);
		for (int s = ST_RUNNING; s <= ST_BLOCKED; s++)
			p = put_col(p, t->total[s]);
		p = put_col(p, t->total[ST_UNKNOWN]);
		p = put_col(p, t->total[ST_DEAD]);
		*p++ = '\n';
		ofmt(f, "task_total\t%d", t->tid);
		out_write(f, b, p - b);
	}
	for (int c = 0; c < G.m.ncpu; c++)
		ofmt(f, "cpu_total\t%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", c, G.m.first,
		     G.m.last, G.m.cpu[c].busy, G.m.cpu[c].idle);
}

/* After --summary, on stderr, one line: the switches the kernel left out
 * of the trace, per CPU, and how much of each CPU's time is therefore
 * unknown. */
static void out_missing(void)
{
	uint64_t span = G.m.last > G.m.first ? G.m.last - G.m.first : 0;
	int k = 0;

	if (!G.m.inferred && !G.m.missing_out)
		return;
	if (G.m.part)
		ofmt(&tc_err, "tc: switches are missing from this trace (recorded %s: see below):",
		     G.m.part == PART_TASKS ? "per task" : part_word(G.m.part));
	else
		oputs(G.ev.sampled ? "tc: switches are missing from this trace (its sampled tracepoints left them out):" :
		      G.rd.overwrite ? "tc: switches are missing from this trace (its rings overwrote the oldest):" :
		      "tc: the kernel left switches out of this trace (seen on VMs):", &tc_err);
	for (int c = 0; c < G.m.ncpu; c++) {
		const struct cpu *p = &G.m.cpu[c];
		uint64_t known = p->busy + p->idle, unk = span > known ? span - known : 0;

		if (p->inferred || p->missing_out)
			ofmt(&tc_err, "%s cpu%d %u switch-ins (%u out of idle) and %u switch-outs, %.1f%% of its time "
			     "unknown", k++ ? ";" : "", c, p->inferred, p->inferred_idle, p->missing_out,
			     span ? unk * 100.0 / span : 0.0);
	}
	if (G.m.inferred_woken)
		ofmt(&tc_err, "%s %" PRIu64 " runs on CPUs not known (tasks woken again, no switch-in seen)",
		     k ? ";" : "", G.m.inferred_woken);
	oputs(". tc inferred runs from the tasks' own records (columns inferred, missing_out, unknown_ms)\n", &tc_err);
}

/* --summary's CPU block: a line per CPU (-C: those given). */
static void out_summary_cpus(struct out *f)
{
	oputs("\ncpu\tbusy_ms\tidle_ms\tswitches\tidle_states_ms\tavg_mhz\tmax_mhz\ttasks_run_ms\tirq_ms\tsoftirq_ms\n", f);
	for (int c = 0; c < G.m.ncpu; c++) {
		const struct cpu *p = &G.m.cpu[c];
		bool any = false;

		if (!filter_cpu(c))
			continue;
		ofmt(f, "%d", c);
		out_ms(f, p->busy);
		out_ms(f, p->idle);
		ofmt(f, "\t%u\t", p->switches);
		for (int k = 0; k < 10; k++)	/* "1:12.000,2:3.500": ms per idle state */
			if (p->cstate_ns[k]) {
				ofmt(f, "%s%d:%" PRIu64 ".%03u", any ? "," : "", k, p->cstate_ns[k] / 1000000,
				     (unsigned)(p->cstate_ns[k] / 1000 % 1000));
				any = true;
			}
		ofmt(f, "%s\t%" PRIu64 "\t%" PRId64, any ? "" : "-",
		     p->freq_ns ? p->freq_sum / p->freq_ns / 1000 : 0, p->freq_max / 1000);
		out_ms(f, p->task_run);
		out_ms(f, p->irq_ns);
		out_ms(f, p->softirq_ns);
		oputc('\n', f);
	}
}

/* Order of the irq block: CPU, hardirqs before softirqs, number. */
static int out_cmp_irq(const void *a, const void *b)
{
	const struct irq_stat *x = *(const struct irq_stat *const *)a, *y = *(const struct irq_stat *const *)b;

	if (x->cpu != y->cpu)
		return x->cpu - y->cpu;
	if (x->soft != y->soft)
		return x->soft - y->soft;
	return (x->irq > y->irq) - (x->irq < y->irq);
}

/* --summary's irq block (-Q recordings): a line per IRQ or softirq vector
 * per CPU, as /proc/interrupts and /proc/softirqs count them. */
static void out_summary_irqs(struct out *f)
{
	const struct irq_stat **v = xcalloc(IRQ_STATS, sizeof(*v));
	char name[COMM_LEN];
	int n = 0;

	for (int i = 0; i < IRQ_STATS; i++)
		if (G.m.irqs[i].irq >= 0 && G.m.irqs[i].count && filter_cpu(G.m.irqs[i].cpu))
			v[n++] = &G.m.irqs[i];
	if (n || G.n.kind[EV_IRQ] || G.n.kind[EV_SOFTIRQ])
		oputs("\nirq\tcpu\tkind\tname\tcount\ttotal_ms\tmax_ms\n", f);
	sort(v, n, sizeof(*v), out_cmp_irq);
	for (int i = 0; i < n; i++) {
		ofmt(f, "%d\t%d\t%s\t", v[i]->irq, v[i]->cpu, v[i]->soft ? "softirq" : "hardirq");
		if (v[i]->soft)
			softirq_name(v[i]->irq, name, sizeof(name));
		out_name(f, v[i]->soft ? name : v[i]->name[0] ? v[i]->name : "?");
		ofmt(f, "\t%u", v[i]->count);
		out_ms(f, v[i]->ns);
		out_ms(f, v[i]->max);
		oputc('\n', f);
	}
	mem_free(v);
	if (G.m.irq_full || G.m.irq_lost)
		note("interrupts: %" PRIu64 " not counted (more than %d IRQs x CPUs), %" PRIu64
		     " with their entry or exit lost (time unknown)", G.m.irq_full, IRQ_STATS, G.m.irq_lost);
}

/* A row of the summary by its sort key, sorted as such, not as slots of
 * the task table (a compare then reads two keys of 16 bytes, not two
 * tasks of 16,000 scattered: 6% of the summary of 40,000 processes). */
struct sum_key {
	uint64_t run;
	int tid, slot;
};

/* Summary order: run time, largest first, then tid. */
static int out_cmp_run(const void *a, const void *b)
{
	const struct sum_key *x = a, *y = b;

	if (x->run != y->run)
		return x->run < y->run ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * --summary: per task, then per CPU, tab-separated, times in ms (product.md,
 * "--summary output"; README.md says what each column means).  Tasks with
 * nothing but a name are left out.  Then, on stderr, a warning when the
 * kernel left out switches, with the task time unknown because of them.
 */
static void out_summary(struct out *f)
{
	struct sum_key *key = xcalloc(G.m.ntask, sizeof(*key));
	int n = 0;

	for (int i = 0; i < G.m.ntask; i++) {
		const struct task *t = &G.m.task[i];
		uint64_t known = 0;

		for (int s = ST_RUNNING; s < ST_DEAD; s++)
			known += t->total[s];
		if ((known || t->switches || t->wakeups || t->io_count) && filter_task(t))
			key[n++] = (struct sum_key){ t->total[ST_RUNNING], t->tid, i };
	}
	sort(key, n, sizeof(*key), out_cmp_run);
	oputs("tid\tpid\tcomm\trun_ms\trunnable_ms\tsleep_ms\tblocked_ms\tio_ms\tswitches\twakeups\tmax_delay_ms\tunknown_ms\tinferred\tinitial_ms"
	      "\tio_calls\tio_call_ms\tread_bytes\twrite_bytes\tio_errors\tmissing_out\tlost_gaps\tirq_ms\tmigrations\n", f);
	for (int i = 0; i < n; i++) {
		const struct task *t = &G.m.task[key[i].slot];
		char row[20 * 25 + 1], *p;	/* the columns after the name */

		ofmt(f, "%d\t%d\t", t->tid, t->pid);
		out_name(f, t->comm[0] ? t->comm : "?");
		p = put_ms(row, t->total[ST_RUNNING]);
		p = put_ms(p, t->total[ST_RUNNABLE]);
		p = put_ms(p, t->total[ST_SLEEPING]);
		p = put_ms(p, t->total[ST_BLOCKED]);
		p = put_ms(p, t->io_wait);
		p = put_col(p, t->switches);
		p = put_col(p, t->wakeups);
		p = put_ms(p, t->max_delay);
		p = put_ms(p, t->total[ST_UNKNOWN]);
		p = put_col(p, t->inferred);
		p = put_ms(p, t->initial);
		p = put_col(p, t->io_count);
		p = put_ms(p, t->io_ns);
		p = put_col(p, t->io_rbytes);
		p = put_col(p, t->io_wbytes);
		p = put_col(p, t->io_errors);
		p = put_col(p, t->missing_out);
		p = put_col(p, t->lost_gaps);
		p = put_ms(p, t->irq_ns);
		p = put_col(p, t->migrations);
		*p++ = '\n';
		out_write(f, row, p - row);
	}
	mem_free(key);
	out_summary_cpus(f);
	out_summary_irqs(f);
	out_flush(f);
	out_missing();
}

/* After a replay, on stderr: which tracepoints the recording sampled
 * (struct attr's sampled), how many of their events it left out, what tc
 * made of it and how to record them all. */
static void out_unrecorded(void)
{
	int n = 0;

	if (!G.ev.sampled)
		return;
	oputs("tc: the recording sampled its tracepoints (perf record -F applies to them too); left out:",
	      &tc_err);
	for (int a = 0; a < G.ev.nattr; a++) {
		int k = G.ev.attr[a].kind;

		if (!G.ev.attr[a].sampled)
			continue;
		ofmt(&tc_err, "%s %s ", n++ ? "," : "", tp_defs[k].name);
		if (G.n.unrec_freq >> k & 1)
			oputs("(a number not known)", &tc_err);
		else
			ofmt(&tc_err, "%" PRIu64, G.n.unrec[k]);
	}
	oputs(G.rd.unrec_scanned ? " events; a CPU is unknown where they were" :
	      " events; a stream (pipe mode) does not say where: a CPU is unknown after each record", &tc_err);
	if (G.n.unrec_freq)
		oputs(" (with -F a record's period is the one in force, not a count of the events before it)", &tc_err);
	oputs(". To record them all: perf record without -F (or with -c 1)\n", &tc_err);
}

/* Events lost: what the LOST records said, or the events' own counts
 * (PERF_FORMAT_LOST: tc's rings, perf record's at its end) where those
 * are more (losses after a ring's last record have no LOST record). */
static uint64_t lost_total(void)
{
	return G.n.lost > G.n.lost_read ? G.n.lost : G.n.lost_read;
}

/* Where events were lost, for the account on stderr: per CPU the count and
 * the span from where its first loss began to its last LOST record, in
 * seconds from the first event (where that is known: not in --script);
 * then what only the events' own counts hold (lost_total). */
static void out_lost(void)
{
	uint64_t t0 = G.m.first ? G.m.first : G.rec.first;
	const char *sep = " (";

	for (int c = 0; c < 64; c++) {
		const struct lostc *l = &G.n.lostv[c];

		if (!l->n)
			continue;
		ofmt(&tc_err, "%scpu%d%s %" PRIu64, sep, c, c < 63 ? "" : " and up", l->n);
		if (l->first && t0)	/* (--script has no first event time: no span) */
			ofmt(&tc_err, " between %.3f and %.3f s", l->first > t0 ? (l->first - t0) / 1e9 : 0.0,
			     l->last > t0 ? (l->last - t0) / 1e9 : 0.0);
		sep = ", ";
	}
	if (G.n.lost_read > G.n.lost)
		ofmt(&tc_err, "%s%" PRIu64 " in the events' lost counts without a LOST record, at no known place",
		     sep, G.n.lost_read - G.n.lost), sep = ", ";
	if (G.n.lost_session)
		ofmt(&tc_err, "%sperf record --switch-output: its end counts, %" PRIu64 " lost, are of all the "
		     "session's files", sep, G.n.lost_session), sep = ", ";
	if (*sep == ',')
		oputc(')', &tc_err);
	if (G.rg.raised_ns || G.rg.raised) {	/* still raised: until the events went off */
		uint64_t end = G.rg.on_until ? G.rg.on_until : now_ns();

		ofmt(&tc_err, ", reader raised (%s) for %.3f s (a ring over half full)",
		     G.rg.raised_to == SCHED_FIFO ? "SCHED_FIFO 1" : "SCHED_DEADLINE",
		     (G.rg.raised_ns + (G.rg.raised ? end - G.rg.raised_since : 0)) / 1e9);
	}
}

/* The one-line account of a recording or replay, to stderr. */
static void out_stats(const char *verb, double secs, uint64_t bytes)
{
	static const struct { const char *name; const uint64_t *v; } anomalies[] = {
		{ "out of order", &G.bad.order }, { "corrupt", &G.bad.corrupt },
		{ "unknown", &G.bad.id }, { "bad cpu", &G.bad.cpu }, { "bad pid", &G.m.bad_pid },
		{ "not recorded (sampled tracepoints)", &G.n.unrec_all },
		{ "missing switch-ins inferred", &G.m.inferred }, { "missing switch-outs", &G.m.missing_out },
		{ "gaps", &G.m.gaps },
		{ "tasks evicted", &G.m.evicted_tasks },
		{ "released early (queues full)", &G.mg.forced },
		{ "left out from while events were switched on or off", &G.rg.trimmed },
	};
	uint64_t total = 0;
	struct rusage ru;

	for (int k = 0; k < EV_NKIND; k++)
		total += k == EV_LOST ? 0 : G.n.kind[k];
	ofmt(&tc_err, "tc: %s %" PRIu64 " events (", verb, total);
	for (int k = 0, first = 1; k < EV_NKIND; k++)
		if (k != EV_LOST && G.n.kind[k]) {
			ofmt(&tc_err, "%s%s %" PRIu64, first ? "" : ", ", ev_names[k], G.n.kind[k]);
			first = 0;
		}
	ofmt(&tc_err, "), lost %" PRIu64, lost_total());
	out_lost();
	for (size_t i = 0; i < sizeof(anomalies) / sizeof(anomalies[0]); i++)
		if (*anomalies[i].v)
			ofmt(&tc_err, ", %s %" PRIu64, anomalies[i].name, *anomalies[i].v);
	if (G.m.evicted_tasks)
		ofmt(&tc_err, " (task table of %d)", TC_MAX_TASKS);
	if (bytes)
		ofmt(&tc_err, ", %.1f MiB", bytes / 1048576.0);
	if (G.rec.close_ns >= NS_PER_SEC / 2)
		ofmt(&tc_err, ", then %.3f s for the disk to take it all (fsync)", G.rec.close_ns / 1e9);
	if (G.rg.nrb)
		ofmt(&tc_err, ", rings %" PRIu64 " KiB a CPU", G.rg.rb[0].size >> 10);
	if (G.mg.nmax)
		ofmt(&tc_err, ", merge queue peak %zu records (%zu KiB)", G.mg.nmax, G.mg.peak >> 10);
	getrusage(RUSAGE_SELF, &ru);
	ofmt(&tc_err, ", %.3f s, tc's CPU %.3f s\n", secs,
	     ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	for (int a = 0; a < G.ev.nattr; a++)
		if (G.ev.attr[a].kind == EV_SYS_ENTER && !G.n.kind[EV_SYS_ENTER] && !G.n.kind[EV_SYS_EXIT]) {
			note("-I: not one I/O system call was traced; if the command made some, this kernel's "
			     "syscall tracepoints do not fire for its calls (seen on MIPS n64)");
			break;
		}
}

/* The name of attr a: "sched:sched_switch", "cycles", "type 4 config 0x1c". */
static void attr_name(const struct attr *a, char *s, size_t n)
{
	static const char *const hw[] = { "cycles", "instructions", "cache-references", "cache-misses",
					  "branches", "branch-misses", "bus-cycles" };
	static const char *const sw[] = { "cpu-clock", "task-clock", "page-faults", "context-switches",
					  "cpu-migrations", "minor-faults", "major-faults", "alignment-faults",
					  "emulation-faults", "dummy" };
	uint64_t c = a->pa.config;

	if (a->fmt)
		sfmt(s, n, "%s:%s", a->fmt->sys, a->fmt->name);
	else if (a->pa.type == PERF_TYPE_HARDWARE && c < sizeof(hw) / sizeof(hw[0]))
		scopy(s, n, hw[c]);
	else if (a->pa.type == PERF_TYPE_SOFTWARE && c < sizeof(sw) / sizeof(sw[0]))
		scopy(s, n, sw[c]);
	else
		sfmt(s, n, "type %u config 0x%" PRIx64, a->pa.type, c);
}

/* After --script, on stderr: the samples of events tc does not read
 * (kind EV_NONE), which it left out, by event; false if it printed no
 * event at all. */
static bool out_script_skipped(const char *path)
{
	char name[96];
	uint64_t n = 0, printed = 0;
	int k = 0;

	for (int i = 0; i < EV_NKIND; i++)
		printed += G.n.kind[i];
	for (int a = 0; a < G.ev.nattr; a++)
		n += G.ev.attr[a].kind == EV_NONE ? G.ev.attr[a].nsamples : 0;
	if (n) {
		ofmt(&tc_err, "tc: --script left out %" PRIu64 " samples of events tc does not read (", n);
		for (int a = 0; a < G.ev.nattr; a++)
			if (G.ev.attr[a].kind == EV_NONE && G.ev.attr[a].nsamples) {
				attr_name(&G.ev.attr[a], name, sizeof(name));
				ofmt(&tc_err, "%s%s %" PRIu64, k++ ? ", " : "", name, G.ev.attr[a].nsamples);
			}
		ofmt(&tc_err, "): perf script -i %s shows them\n", path);
	}
	if (!printed)
		note("%s has no event tc reads: --script printed none", path);
	return printed > 0;
}

/*
 * After a replay: a recording without the scheduler's switches or wakeups,
 * the power events or I/O calls has nothing for the tables, the states or
 * the view.  Say which events it has and what records the ones tc needs;
 * false then.  Also false, said why, when what the options ask for is not
 * in it: -C's CPUs, -p's tasks, --chain's task.
 */
static bool rd_useful(const char *path)
{
	char name[96];
	int k = 0;
	bool any = false;

	if (!G.m.task) {
		note("%s holds no records: nothing to %s", path, G.opt.states ? "list" : G.opt.view ? "show" : "total");
		return false;
	}
	if (G.n.kind[EV_SWITCH] || G.n.kind[EV_WAKING] || G.n.kind[EV_WAKEUP] || G.n.kind[EV_IDLE] ||
	    G.n.kind[EV_FREQ] || G.n.kind[EV_SYS_ENTER]) {
		if (G.opt.cpu_filt)
			for (int c = G.m.ncpu; c < MAX_CPUS; c++)
				if (G.opt.cpu_filt[c]) {
					note("-C %s: %s has CPUs 0 to %d only", G.opt.cpu_arg, path, G.m.ncpu - 1);
					return false;
				}
		for (int i = 0; i < G.m.ntask && !any; i++)
			any = G.m.task[i].stated && filter_task(&G.m.task[i]);
		if (G.opt.nfilt && !any && !G.opt.view) {
			ofmt(&tc_err, "tc: -p: no task in %s is", path);
			for (int i = 0; i < G.opt.nfilt; i++)
				ofmt(&tc_err, "%s %s", i ? " or" : "", G.opt.filt[i]);
			oputs(" (a tid, a pid or the start of a name)\n", &tc_err);
			return false;
		}
		if (G.opt.chain_tid && !task_find(G.opt.chain_tid)) {
			note("--chain %" PRIu64 ": %s has no task %" PRIu64, G.opt.chain_tid, path, G.opt.chain_tid);
			return false;
		}
		return true;
	}
	ofmt(&tc_err, "tc: %s has no scheduler or power events (sched:sched_switch, power:cpu_idle): "
	     "nothing to %s. It has", path, G.opt.states ? "list" : G.opt.view ? "show" : "total");
	for (int i = 0; i < G.ev.nattr; i++)
		if (G.ev.attr[i].nsamples) {
			attr_name(&G.ev.attr[i], name, sizeof(name));
			ofmt(&tc_err, "%s %s: %" PRIu64 " samples", k++ ? "," : "", name, G.ev.attr[i].nsamples);
		}
	ofmt(&tc_err, "%s. Record with tc --record FILE, or perf record -e 'sched:*' -e power:cpu_idle -a\n",
	     k ? "" : " no samples");
	return false;
}

/* ---------------------------------------------------------------- answers */

/*
 * Answers: the longest runnable waits and who held the CPUs meanwhile, the
 * longest blocked (D) spans, wait percentiles per task, waker chains
 * (--summary --latency, --summary --chain TID).  Fixed memory, nothing is
 * allocated per event:
 *
 *   per task   a log2 histogram of its runnable waits (lat_hist), fed by
 *              lat_wait_end(), which the model calls when a task is
 *              switched in, and a ring of its last LAT_WAKES wakeups
 *              (time, waker) for the chain, fed by lat_woken() (neither
 *              in a replay whose outputs read neither, lat.off: 3% of
 *              --summary's instructions);
 *   per CPU    a ring of its last LAT_RUNS runs (tid, start, end), fed by
 *              lat_event() from the switches, and with -Q a ring of its
 *              last LAT_RUNS interrupts, fed by the model (lat_irq),
 *              (--latency only);
 *   overall    the LAT_TOP longest waits and D spans, longest first.
 *
 * Who held the CPUs: a second pass over the recording is impossible for a
 * stream, and charging every waiting task at every switch costs per event
 * what only the worst waits need.  So when a wait ends and is long enough
 * to enter the top, the runs of each CPU it could have run on are walked
 * back from the newest over the wait's span and the overlaps summed per
 * task.  Only candidates pay for the walk, and the entry threshold rises
 * quickly.  A wait reaching back further than a CPU's ring reports the
 * part not covered as unknown instead of guessing.
 *
 *   cpu0  |--X--|----Y----|--idle--|-> open run
 *   wait        [=============================)   X, Y, idle: overlaps
 *
 * Interrupts (-Q) hold a CPU too: their time in the wait is charged to
 * them ("softirq:NET_RX"), and taken from the task or idle time they came
 * on top of.  A hardirq inside a softirq counts in both.
 *
 * Allowed CPUs: the trace has no affinity masks.  Once a task migrated,
 * the CPUs it was seen on (migrations, switch-ins); all CPUs until then.
 */
enum { LAT_RUNS = 512, LAT_TOP = 10, LAT_HOLD = 4, LAT_CHAIN = 8, LAT_TIDS = 32 };

/* A holder that is an interrupt (state of a CPU's interrupt row), among
 * the tids of the holders' tables: above any tid. */
#define LAT_QID(state) (PID_MAX + 2000 + (state))
#define LAT_IS_QID(id) ((id) > PID_MAX)

/* A step of a waker chain: tid was woken by waker (WAKER_IRQ, -1) at t. */
struct lat_step {
	uint64_t t;
	int tid, waker;
};

/* One of the longest runnable waits or D spans.  cstate: idle state of the
 * wakee's CPU at the wakeup, -1 when it was not idle or not known. */
struct lat_rec {
	uint64_t start, end;
	int tid, cpu, cstate;
	char comm[COMM_LEN];
	int hold_tid[LAT_HOLD];			/* -1: unused */
	uint64_t hold_ns[LAT_HOLD], idle_ns, other_ns, unknown_ns;
	struct lat_step chain[LAT_CHAIN];	/* chain[0]: this task's wakeup */
	int nchain;
};

struct lat_run {
	uint64_t start, end;
	int32_t tid;				/* 0 idle, -1 unknown */
};

static struct {
	struct lat_run *runs;			/* ncpu rings of LAT_RUNS */
	uint32_t *head;				/* per CPU: next slot */
	struct lat_run *irqs;			/* ncpu rings of LAT_RUNS interrupts: tid is
						 * the task below, start/end, state in qstate */
	int32_t *qstate;
	uint32_t *qhead;
	int *cur;				/* per CPU: running tid, -1 unknown */
	uint64_t *since;			/* per CPU: start of cur */
	struct lat_rec wait[LAT_TOP], blk[LAT_TOP];
	int nwait, nblk;
	bool off;	/* the per-task answers are not kept: no output of this replay reads
			 * them (FAST: the static build keeps them, for its size) */
} lat;

/* The log2 bucket of a wait of d ns. */
static int lat_bucket(uint64_t d)
{
	int k;

	if (d < 1024)
		return 0;
	k = 63 - __builtin_clzll(d) - 9;
	return k < LAT_NB ? k : LAT_NB - 1;
}

/* The pct-th percentile (1..100) of p's runnable waits in ns: the upper
 * edge of the log2 bucket it falls in, at most the longest wait.  pct% of
 * the waits were shorter (or as long, at the maximum).  0 without waits. */
static uint64_t lat_pct(const struct task *p, unsigned pct)
{
	uint64_t rank = ((uint64_t)p->lat_n * pct + 99) / 100, sum = 0;

	for (int k = 0; k < LAT_NB && rank; k++) {
		sum += p->lat_hist[k];
		if (sum >= rank) {
			uint64_t edge = k == LAT_NB - 1 ? UINT64_MAX : 1ull << (k + 10);

			return edge < p->lat_max ? edge : p->lat_max;
		}
	}
	return p->lat_max;
}

/* Note that p was on CPU c (the allowed-CPU guess). */
static void lat_cpu_mark(struct task *p, int c)
{
	if (c >= 0)
		p->lat_cpus |= 1ull << (c < 63 ? c : 63);
}

/* Could p have run on CPU c, as far as the trace tells? */
static bool lat_allowed(const struct task *p, int c)
{
	return !p->lat_migrated || (p->lat_cpus >> (c < 63 ? c : 63) & 1);
}

/* The view's intervals (history section): the answers read them too, when
 * the model keeps them (the view; --summary keeps none). */
static void ival_walk(uint64_t p, int32_t row, uint64_t from,
		      bool (*fn)(const struct ival *v, void *arg), void *arg);

/* lat_wake_before's walk of a task row: its latest wakeup at or before t. */
struct lat_wk { uint64_t t; bool found; uint64_t start; int aux; };

static bool lat_wk_fn(const struct ival *v, void *arg)
{
	struct lat_wk *w = arg;

	if (v->state == ST_RUNNABLE && v->aux != -1 && v->start <= w->t) {
		w->found = true;
		w->start = v->start;
		w->aux = v->aux;
		return false;
	}
	return true;
}

/* The latest wakeup of p at or before t into s; false if none is kept.
 * Its ring holds the newest wakeups: one of them at or before t is the
 * latest; older ones come from the view's intervals, if any. */
static bool lat_wake_before(const struct task *p, uint64_t t, struct lat_step *s)
{
	struct lat_wk w = { t, false, 0, 0 };
	bool found = false;

	for (int i = 0; i < LAT_WAKES; i++)
		if (p->wk_t[i] && p->wk_t[i] <= t && (!found || p->wk_t[i] > s->t)) {
			*s = (struct lat_step){ p->wk_t[i], p->tid, p->wk_tid[i] };
			found = true;
		}
	if (!found)
		ival_walk(p->last_ival, p - G.m.task, 0, lat_wk_fn, &w);
	if (w.found)
		*s = (struct lat_step){ w.start, p->tid, w.aux };
	return found || w.found;
}

/*
 * The waker chain of task tid at time t into out (at most max steps):
 * out[0] is tid's latest wakeup at or before t, out[1] its waker's latest
 * wakeup before that, and so on.  It ends at an interrupt (waker
 * WAKER_IRQ), an unknown or idle waker, a waker with no wakeup kept before
 * (it was already running, or its wakeup left its ring), or after max
 * steps.  Returns the number of steps.  For the view's W key and --chain.
 */
static int lat_chain(int tid, uint64_t t, struct lat_step *out, int max)
{
	int n = 0;
	const struct task *p;

	while (n < max && tid > 0 && (p = task_find(tid)) && lat_wake_before(p, t, &out[n])) {
		tid = out[n].waker;
		t = out[n++].t;
		if (!t--)
			break;
	}
	return n;
}

/* A slot for a span of d ns among the LAT_TOP longest of top (n in use,
 * longest first), cleared; NULL if d is not among them. */
static struct lat_rec *lat_slot(struct lat_rec *top, int *n, uint64_t d)
{
	int i;

	if (*n == LAT_TOP && top[LAT_TOP - 1].end - top[LAT_TOP - 1].start >= d)
		return NULL;
	i = *n < LAT_TOP ? (*n)++ : LAT_TOP - 1;
	for (; i > 0 && top[i - 1].end - top[i - 1].start < d; i--)
		top[i] = top[i - 1];
	memset(&top[i], 0, sizeof(top[i]));
	for (int k = 0; k < LAT_HOLD; k++)
		top[i].hold_tid[k] = -1;
	return &top[i];
}

/* Charge the part of run [s, e) of tid inside r's span to tid in the
 * table (tids, ns, *n of LAT_TIDS), or to r's idle, unknown or other. */
static void lat_charge(struct lat_rec *r, int tid, uint64_t s, uint64_t e,
		       int *tids, uint64_t *ns, int *n)
{
	uint64_t a = s > r->start ? s : r->start, b = e < r->end ? e : r->end;
	int i;

	if (b <= a)
		return;
	if (tid <= 0) {
		*(tid ? &r->unknown_ns : &r->idle_ns) += b - a;
		return;
	}
	for (i = 0; i < *n && tids[i] != tid; i++)
		;
	if (i == *n && *n == LAT_TIDS) {
		r->other_ns += b - a;
		return;
	}
	if (i == *n) {
		tids[(*n)++] = tid;
		ns[i] = 0;
	}
	ns[i] += b - a;
}

/* Interrupt state of CPU cpu ran [s, e) on top of task tid (0: idle)
 * during r: charge it, and take the time from what it came on top of. */
static void lat_charge_irq(struct lat_rec *r, int state, int tid, uint64_t s, uint64_t e,
			   int *tids, uint64_t *ns, int *n)
{
	uint64_t a = s > r->start ? s : r->start, b = e < r->end ? e : r->end;

	if (b <= a)
		return;
	lat_charge(r, LAT_QID(state), s, e, tids, ns, n);
	if (!tid)
		r->idle_ns -= r->idle_ns < b - a ? r->idle_ns : b - a;
	for (int i = 0; i < *n && tid > 0; i++)
		if (tids[i] == tid)
			ns[i] -= ns[i] < b - a ? ns[i] : b - a;
}

/* The LAT_HOLD largest of the n shares (tids, ns) into r's holders,
 * longest first; the rest to r's other. */
static void lat_hold_keep(struct lat_rec *r, const int *tids, const uint64_t *ns, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t v = ns[i];
		int k = LAT_HOLD;

		while (k > 0 && (r->hold_tid[k - 1] < 0 || r->hold_ns[k - 1] < v))
			k--;
		if (k == LAT_HOLD) {
			r->other_ns += v;
			continue;
		}
		if (r->hold_tid[LAT_HOLD - 1] >= 0)
			r->other_ns += r->hold_ns[LAT_HOLD - 1];
		memmove(&r->hold_tid[k + 1], &r->hold_tid[k], (LAT_HOLD - 1 - k) * sizeof(int));
		memmove(&r->hold_ns[k + 1], &r->hold_ns[k], (LAT_HOLD - 1 - k) * sizeof(uint64_t));
		r->hold_tid[k] = tids[i];
		r->hold_ns[k] = v;
	}
}

/* Who ran on the CPUs p could have run on during r's span: the LAT_HOLD
 * largest shares into r, the rest as other (see "Answers" above). */
static void lat_holders(struct lat_rec *r, const struct task *p)
{
	int tids[LAT_TIDS], n = 0;
	uint64_t ns[LAT_TIDS];

	for (int c = 0; c < G.m.ncpu; c++) {
		uint64_t covered = lat.since[c];
		const struct lat_run *ring = lat.runs + (size_t)c * LAT_RUNS;

		if (!lat_allowed(p, c))
			continue;
		lat_charge(r, lat.cur[c], lat.since[c], r->end, tids, ns, &n);
		for (uint32_t k = 1; k <= LAT_RUNS && covered > r->start; k++) {
			const struct lat_run *u = &ring[(lat.head[c] - k) % LAT_RUNS];

			if (!u->end)
				break;
			lat_charge(r, u->tid, u->start, u->end, tids, ns, &n);
			covered = u->start;
		}
		if (covered > r->start)
			r->unknown_ns += (covered < r->end ? covered : r->end) - r->start;
		for (uint32_t k = 1; lat.irqs && k <= LAT_RUNS && k <= lat.qhead[c]; k++) {
			uint32_t j = (lat.qhead[c] - k) % LAT_RUNS;
			const struct lat_run *u = &lat.irqs[(size_t)c * LAT_RUNS + j];

			if (u->end <= r->start)
				break;
			lat_charge_irq(r, lat.qstate[(size_t)c * LAT_RUNS + j], u->tid, u->start, u->end, tids, ns, &n);
		}
	}
	lat_hold_keep(r, tids, ns, n);
}

/* The model's hook (-Q, --latency): interrupt state of CPU c ran [start,
 * end) on top of task tid; kept in c's ring of interrupts. */
static void lat_irq(int c, int state, int tid, uint64_t start, uint64_t end)
{
	size_t j;

	if (!lat.runs)
		return;
	if (!lat.irqs) {
		lat.irqs = xcalloc((size_t)G.m.ncpu * LAT_RUNS, sizeof(*lat.irqs));
		lat.qstate = xcalloc((size_t)G.m.ncpu * LAT_RUNS, sizeof(*lat.qstate));
		lat.qhead = xcalloc(G.m.ncpu, sizeof(*lat.qhead));
	}
	j = (size_t)c * LAT_RUNS + lat.qhead[c]++ % LAT_RUNS;
	lat.irqs[j] = (struct lat_run){ start, end, tid };
	lat.qstate[j] = state;
}

/* The model's hook: the kernel woke p at t (a sched_waking, a
 * sched_wakeup_new, or a sched_wakeup whose sched_waking is not in the
 * trace), waker a task, WAKER_IRQ or -1 (not known: that sched_waking is
 * lost); kept for the waker chain (not where lat.off).  Every wakeup the
 * kernel recorded, whatever tc makes of p's state: the chain's steps are
 * records, not inferences.  Kept when a wait ended, as before, the
 * wakeups of waits whose end the kernel did not report (a switch-in left
 * out, a CPU not yet traced) were missing, and the chain named an older
 * one as the latest (1 to 20% of the woken tasks of test/sim's files with
 * switches left out; chain_four on a VM). */
static void lat_woken(struct task *p, uint64_t t, int waker)
{
	if (FAST && lat.off)
		return;
	p->wk_t[p->wk_next] = t;
	p->wk_tid[p->wk_next] = waker;
	p->wk_next = (p->wk_next + 1) % LAT_WAKES;
}

/*
 * The model's hook: task p is being switched in on cpu at end, before its
 * state changes; if it was runnable, it waited from start.  Counts the wait
 * in p's histogram, and with --latency keeps it among the longest with
 * who held the CPUs meanwhile (nothing where lat.off).
 */
static void lat_wait_end(struct task *p, uint64_t start, uint64_t end, int cpu)
{
	uint64_t d = end - start;
	struct lat_rec *r;

	if (FAST && lat.off)
		return;
	lat_cpu_mark(p, cpu);
	if (p->state != ST_RUNNABLE || end < start)
		return;
	p->lat_hist[lat_bucket(d)]++;
	p->lat_n++;
	p->lat_sum += d;
	if (d > p->lat_max)
		p->lat_max = d;
	if (p->waker == -1) {
		p->lat_pre_n++;
		p->lat_pre_sum += d;
		if (d > p->lat_pre_max)
			p->lat_pre_max = d;
	}
	if (!lat.runs || !(r = lat_slot(lat.wait, &lat.nwait, d)))
		return;
	*r = (struct lat_rec){ .start = start, .end = end, .tid = p->tid, .cpu = cpu,
			       .cstate = p->waker != -1 ? p->lat_cstate1 - 1 : -1,
			       .hold_tid = { -1, -1, -1, -1 } };
	scopy(r->comm, sizeof(r->comm), p->comm);
	lat_holders(r, p);
	if (p->waker != -1)	/* else preempted: no chain */
		r->nchain = lat_chain(p->tid, start, r->chain, LAT_CHAIN);
}

/* Allocate the per-CPU run rings (--latency, at the first event). */
static void lat_init(void)
{
	lat.runs = xcalloc((size_t)G.m.ncpu * LAT_RUNS, sizeof(*lat.runs));
	lat.head = xcalloc(G.m.ncpu, sizeof(*lat.head));
	lat.cur = xcalloc(G.m.ncpu, sizeof(*lat.cur));
	lat.since = xcalloc(G.m.ncpu, sizeof(*lat.since));
	for (int c = 0; c < G.m.ncpu; c++)
		lat.cur[c] = -1;
}

/* CPU c's current run ends at t; tid runs from t (-1: unknown). */
static void lat_run_end(int c, int tid, uint64_t t)
{
	struct lat_run *u = &lat.runs[(size_t)c * LAT_RUNS + lat.head[c] % LAT_RUNS];

	if (t > lat.since[c]) {
		*u = (struct lat_run){ lat.since[c], t, lat.cur[c] };
		lat.head[c]++;
	}
	lat.cur[c] = tid;
	lat.since[c] = t;
}

/* A wakeup e of p, before the model applies it: the idle state of its
 * CPU, and the end of a D span. */
static void lat_wakeup(const struct ev *e, struct task *p, uint64_t t)
{
	int c = e->c >= 0 && e->c < G.m.ncpu ? e->c : p->cpu;
	int64_t cs = c >= 0 && c < G.m.ncpu ? G.m.cpu[c].cstate : -1;
	struct lat_rec *r;

	if (p->state != ST_SLEEPING && p->state != ST_BLOCKED && p->state != ST_UNKNOWN)
		return;
	p->lat_cstate1 = cs < 0 ? 0 : cs < 254 ? cs + 1 : 255;
	if (p->state != ST_BLOCKED || !p->stated || t < p->since ||
	    !(r = lat_slot(lat.blk, &lat.nblk, t - p->since)))
		return;
	*r = (struct lat_rec){ .start = p->since, .end = t, .tid = p->tid, .cpu = c,
			       .cstate = (int)cs, .hold_tid = { -1, -1, -1, -1 } };
	scopy(r->comm, sizeof(r->comm), p->comm);
	r->chain[0] = (struct lat_step){ t, p->tid, e->flags & TRACE_IRQ_FLAGS ? WAKER_IRQ : e->tid };
	r->nchain = 1 + lat_chain(r->chain[0].waker, t - 1, r->chain + 1, LAT_CHAIN - 1);
}

/* --latency: event e, before the model sees it (it reads the model's
 * state as it was before e): CPU runs, migrations, wakeups. */
static void lat_event(const struct ev *e)
{
	uint64_t t = e->time > G.m.last ? e->time : G.m.last;
	struct task *p;

	if (!e->time && e->kind != EV_LOST)
		return;
	if (!lat.runs)
		lat_init();
	switch (e->kind) {
	case EV_SWITCH:
		if (e->cpu < 0 || e->cpu >= G.m.ncpu)
			break;
		if (lat.cur[e->cpu] < 0 && !lat.since[e->cpu]) {	/* prev ran since the start */
			lat.cur[e->cpu] = e->a;
			lat.since[e->cpu] = G.m.first ? G.m.first : t;
		}
		lat_run_end(e->cpu, e->b, t);
		break;
	case EV_MIGRATE:
		if ((p = task_find(e->a))) {
			p->lat_migrated = true;
			lat_cpu_mark(p, e->b);
			lat_cpu_mark(p, e->c);
		}
		break;
	case EV_WAKEUP:
	case EV_WAKEUP_NEW:
	case EV_WAKING:
		if ((p = task_find(e->a)))
			lat_wakeup(e, p, t);
		break;
	case EV_LOST:	/* the model closes everything at its last event */
		for (int c = 0; c < G.m.ncpu; c++)
			lat_run_end(c, -1, G.m.last > lat.since[c] ? G.m.last : lat.since[c]);
		break;
	}
}

/*
 * The view's panels and readout (keys L and W): text from the model's
 * intervals, no state of their own.  lat_span_worst() finds the longest
 * runnable waits or D spans overlapping a span, the ongoing ones included
 * (live: as they happen), with who held the CPUs from the CPU rows'
 * intervals; lat_rec_text() and lat_step_text() make one panel line of a
 * wait or of a lat_chain() step.
 *
 * Idle states, live only: the exit latency (us) and name of each CPU's
 * cpuidle states, read once at start-up by lat_cidle_init() from
 * /sys/devices/system/cpu/cpuN/cpuidle/stateK/{latency,name}; a missing
 * file leaves its entry unknown.
 */
enum { LAT_CIDLE = 10 };	/* idle states per CPU kept */

static struct lat_cidle {
	int32_t exit_us;		/* -1: unknown */
	char name[16];
} *lat_cidle;			/* G.m.ncpu x LAT_CIDLE, NULL: none (replay) */

/* One line of a sysfs file into out (n bytes), newline cut; false if none. */
static bool lat_sysfs_line(const char *path, char *out, size_t n)
{
	bool ok = read_small(path, out, n) > 0;

	out[strcspn(out, "\n")] = 0;
	return ok;
}

/* Read the idle states' exit latencies and names (live view, start-up). */
static void lat_cidle_init(void)
{
	char path[96], line[32];

	lat_cidle = xcalloc((size_t)G.m.ncpu * LAT_CIDLE, sizeof(*lat_cidle));
	for (int c = 0; c < G.m.ncpu; c++)
		for (int k = 0; k < LAT_CIDLE; k++) {
			struct lat_cidle *e = &lat_cidle[c * LAT_CIDLE + k];

			sfmt(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/latency", c, k);
			e->exit_us = lat_sysfs_line(path, line, sizeof(line)) ? atoi(line) : -1;
			sfmt(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpuidle/state%d/name", c, k);
			if (!lat_sysfs_line(path, e->name, sizeof(e->name)))
				e->name[0] = 0;
		}
}

/* "idle state 2" of CPU cpu, and where known (live) " C1E, exit 10us". */
static void lat_cidle_text(char *out, size_t n, int cpu, int cs)
{
	const struct lat_cidle *e = lat_cidle && cpu >= 0 && cpu < G.m.ncpu && cs >= 0 && cs < LAT_CIDLE ?
				    &lat_cidle[cpu * LAT_CIDLE + cs] : NULL;
	size_t k = sfmt(out, n, "idle state %d", cs);

	if (e && e->name[0] && k < n)
		k += sfmt(out + k, n - k, " %s", e->name);
	if (e && e->exit_us >= 0 && k < n)
		sfmt(out + k, n - k, "%sexit %dus", e->name[0] ? ", " : " ", e->exit_us);
}

/* lat_cstate_at's walk: the idle state interval holding time t. */
struct lat_at { uint64_t t; int cstate; };

static bool lat_cstate_fn(const struct ival *v, void *arg)
{
	struct lat_at *at = arg;

	if (v->start <= at->t && at->t < v->end)
		at->cstate = v->state;
	return v->start > at->t;
}

/* The idle state of CPU c at time t (a wakeup), -1 if not idle or not known. */
static int lat_cstate_at(int c, uint64_t t)
{
	const struct cpu *q = c >= 0 && c < G.m.ncpu ? &G.m.cpu[c] : NULL;
	struct lat_at at = { t, -1 };

	if (q && q->cstate >= 0 && q->cstate_since <= t)
		return (int)q->cstate;
	if (q)
		ival_walk(q->last_cival, -1 - c, t, lat_cstate_fn, &at);
	return at.cstate;
}

/* What lat_span_worst's walk of a task row collects. */
struct lat_scan {
	uint64_t a, b;			/* the span */
	int state;			/* ST_RUNNABLE or ST_BLOCKED */
	const struct task *p;
	int next_cpu;			/* the CPU of its next run after the interval walked, -1 */
	struct lat_rec *top;
	int n;
};

/* Keep [start, end) of s->p on cpu if it overlaps the span and is among
 * the longest. */
static void lat_scan_keep(struct lat_scan *s, uint64_t start, uint64_t end, int cpu)
{
	struct lat_rec *r;

	if (end <= start || start >= s->b || end <= s->a || !(r = lat_slot(s->top, &s->n, end - start)))
		return;
	r->start = start;
	r->end = end;
	r->tid = s->p->tid;
	r->cpu = cpu;
	r->cstate = -1;
	scopy(r->comm, sizeof(r->comm), s->p->comm);
}

static bool lat_scan_task_fn(const struct ival *v, void *arg)
{
	struct lat_scan *s = arg;

	if (v->state == s->state)
		lat_scan_keep(s, v->start, v->end, s->next_cpu >= 0 ? s->next_cpu : s->p->cpu);
	if (v->state == ST_RUNNING && v->aux >= 0)
		s->next_cpu = v->aux;
	return v->start > s->a;
}

/* lat_span_holders' walk of a CPU row: its runs charged to each wait
 * whose task may run there (on), into the wait's own table. */
struct lat_hold {
	struct lat_rec *r;
	const struct task *p;		/* r's task, NULL if gone */
	bool on, done;			/* done: the walk is past its start */
	int tids[LAT_TIDS];		/* lat_charge's table */
	uint64_t ns[LAT_TIDS], covered;
	int n;
};
struct lat_holds {
	struct lat_hold h[LAT_TOP];
	int n;
	uint64_t from;			/* the earliest start of the waits */
};

/* lat_span_holders' walk of a CPU's interrupt row: each charged to the
 * waits it overlaps, taken from the task it came on top of. */
static bool lat_hold_irq_fn(const struct ival *v, void *arg)
{
	struct lat_holds *hs = arg;

	for (int i = 0; i < hs->n; i++) {
		struct lat_hold *h = &hs->h[i];

		if (h->on)
			lat_charge_irq(h->r, v->state, v->aux, v->start, v->end, h->tids, h->ns, &h->n);
	}
	return v->start > hs->from;
}

static bool lat_hold_fn(const struct ival *v, void *arg)
{
	struct lat_holds *hs = arg;

	for (int i = 0; i < hs->n; i++) {
		struct lat_hold *h = &hs->h[i];

		if (h->on && !h->done && v->end > h->r->start) {
			lat_charge(h->r, v->state, v->start, v->end, h->tids, h->ns, &h->n);
			h->covered = v->start;
			h->done = v->start <= h->r->start;
		}
	}
	return v->start > hs->from;
}

/* The holders of the spans of the n waits in top from the CPU rows'
 * intervals, as lat_holders does from its rings, in one walk of each CPU
 * row; the open runs count up to the last event, time no interval covers
 * any more is unknown. */
static void lat_span_holders(struct lat_rec *top, int n)
{
	struct lat_holds hs = { .n = n, .from = UINT64_MAX };

	for (int i = 0; i < n; i++) {
		hs.h[i].r = &top[i];
		hs.h[i].p = task_find(top[i].tid);
		if (top[i].start < hs.from)
			hs.from = top[i].start;
	}
	for (int c = 0; c < G.m.ncpu; c++) {
		const struct cpu *q = &G.m.cpu[c];

		for (int i = 0; i < n; i++) {
			struct lat_hold *h = &hs.h[i];

			h->on = h->p && lat_allowed(h->p, c);
			h->done = false;
			h->covered = q->cur >= 0 || q->since ? q->since : G.m.last;
			if (h->on)
				lat_charge(h->r, q->cur, q->since, G.m.last, h->tids, h->ns, &h->n);
		}
		ival_walk(q->last_ival, -1 - c, hs.from, lat_hold_fn, &hs);
		for (int i = 0; i < n; i++) {
			struct lat_hold *h = &hs.h[i];

			if (h->on && h->covered > h->r->start)
				h->r->unknown_ns += (h->covered < h->r->end ? h->covered : h->r->end) - h->r->start;
		}
		ival_walk(q->last_qival, -1 - c, hs.from, lat_hold_irq_fn, &hs);
	}
	for (int i = 0; i < n; i++)
		lat_hold_keep(&top[i], hs.h[i].tids, hs.h[i].ns, hs.h[i].n);
}

/*
 * The LAT_TOP longest runnable waits (blocked: D spans) overlapping
 * [a, b) into top, longest first, with their wakers and chains, the idle
 * state of the CPU at the wakeup and (waits) who held the CPUs.  Returns
 * how many.  Reads the view's intervals and the model only.
 */
static int lat_span_worst(uint64_t a, uint64_t b, bool blocked, struct lat_rec top[LAT_TOP])
{
	struct lat_scan s = { .a = a, .b = b, .state = blocked ? ST_BLOCKED : ST_RUNNABLE, .top = top };

	for (int i = 0; i < G.m.ntask; i++) {
		s.p = &G.m.task[i];
		s.next_cpu = s.p->state == ST_RUNNING ? s.p->cpu : -1;
		if (s.p->state == s.state)	/* ongoing */
			lat_scan_keep(&s, s.p->since, G.m.last > s.p->since ? G.m.last : s.p->since + 1, s.p->cpu);
		ival_walk(s.p->last_ival, i, a, lat_scan_task_fn, &s);
	}
	for (int i = 0; i < s.n; i++) {
		struct lat_rec *r = &top[i];
		const struct task *p = task_find(r->tid);
		uint64_t woken = blocked ? r->end : r->start;

		if (!p)
			continue;
		r->nchain = lat_chain(r->tid, woken, r->chain, 1);	/* the panel names the waker only */
		if (r->nchain && r->chain[0].t != woken)
			r->nchain = 0;	/* preempted, not woken yet, or its wakeup is gone */
		if (r->nchain)
			r->cstate = lat_cstate_at(r->cpu, woken);
	}
	if (!blocked)
		lat_span_holders(top, s.n);
	return s.n;
}

/* "comm:tid" of a task, "irq", "idle", or "-" (unknown) into out (n
 * bytes); the name is the model's, its reader escapes it. */
static void lat_who_text(char *out, size_t n, int tid)
{
	const struct task *p = tid > 0 && !LAT_IS_QID(tid) ? task_find(tid) : NULL;
	char name[COMM_LEN];
	int c = 0;

	if (LAT_IS_QID(tid)) {	/* an interrupt: its name on the first CPU that has it */
		while (tid - LAT_QID(0) >= 0 && c + 1 < G.m.ncpu && !irq_stat(c, false, tid - LAT_QID(0), false))
			c++;
		irq_name(c, tid - LAT_QID(0), name, sizeof(name));
		sfmt(out, n, "%s:%s", tid < LAT_QID(0) ? "softirq" : "irq", name);
	} else if (tid <= 0)
		sfmt(out, n, "%s", tid == WAKER_IRQ ? "irq" : tid ? "-" : "idle");
	else
		sfmt(out, n, "%s:%d", p && p->comm[0] ? p->comm : "?", tid);
}

/* One panel line of r (blocked: a D span) into out (n bytes): "comm:tid
 * 6.969 ms cpu1 woken by X (idle state 2) held by A 77%, B 59%, idle 3%".
 * Names are the model's: the view escapes them when it draws. */
static void lat_rec_text(const struct lat_rec *r, bool blocked, char *out, size_t n)
{
	uint64_t d = r->end - r->start;
	size_t k;
	char who[48], cs[64];

	lat_who_text(who, sizeof(who), r->tid);
	k = sfmt(out, n, "%s %" PRIu64 ".%03u ms cpu%d", who, d / 1000000, (unsigned)(d / 1000 % 1000), r->cpu);
	if (k < n && r->nchain) {
		lat_who_text(who, sizeof(who), r->chain[0].waker);
		k += sfmt(out + k, n - k, " woken by %s", who);
	} else if (k < n && !blocked) {
		k += sfmt(out + k, n - k, " preempted");
	}
	if (k < n && r->cstate >= 0) {
		lat_cidle_text(cs, sizeof(cs), r->cpu, r->cstate);
		k += sfmt(out + k, n - k, " (%s)", cs);
	}
	for (int i = 0; i < LAT_HOLD && r->hold_tid[i] >= 0 && k < n; i++) {
		lat_who_text(who, sizeof(who), r->hold_tid[i]);
		k += sfmt(out + k, n - k, "%s%s %u%%", i ? ", " : " held by ", who,
			  (unsigned)(d ? (r->hold_ns[i] * 100 + d / 2) / d : 0));
	}
	if (k < n && r->idle_ns)
		sfmt(out + k, n - k, "%sidle %u%%", r->hold_tid[0] >= 0 ? ", " : " held by ",
		     (unsigned)((r->idle_ns * 100 + d / 2) / d));
}

/* One line of a waker chain step into out (n bytes): "comm:tid woken by
 * comm:tid at 1.234567s" (seconds from the first event, as the view). */
static void lat_step_text(const struct lat_step *s, char *out, size_t n)
{
	uint64_t t = s->t > G.m.first ? s->t - G.m.first : 0;
	char a[48], b[48];

	lat_who_text(a, sizeof(a), s->tid);
	lat_who_text(b, sizeof(b), s->waker);
	sfmt(out, n, "%s woken by %s at %" PRIu64 ".%06us", a, b, t / 1000000000,
	     (unsigned)(t / 1000 % 1000000));
}

/* "comm:tid" of a task, "irq", "idle", or "-" (unknown), escaped. */
static void out_who(struct out *f, int tid)
{
	char who[48];

	lat_who_text(who, sizeof(who), tid);
	out_name(f, who);
}

/* A time stamp as seconds with six decimals, like perf and ftrace. */
static void out_secs(struct out *f, uint64_t ns)
{
	ofmt(f, "%" PRIu64 ".%06u", ns / 1000000000, (unsigned)(ns / 1000 % 1000000));
}

/* A share of a span: "12.5%" (of d ns, one decimal). */
static void out_share(struct out *f, const char *sep, uint64_t ns, uint64_t d)
{
	uint64_t pm = d ? (ns * 1000 + d / 2) / d : 0;

	ofmt(f, "%s%" PRIu64 ".%u%%", sep, pm / 10, (unsigned)(pm % 10));
}

/* A record of the longest waits (holders: with the held_by column). */
static void out_lat_rec(struct out *f, int rank, const struct lat_rec *r, bool holders)
{
	static const char *const what[] = { "idle", "other", "unknown" };
	const uint64_t ns[] = { r->idle_ns, r->other_ns, r->unknown_ns };
	uint64_t d = r->end - r->start;
	const char *sep = "";

	ofmt(f, "%d\t%d\t", rank, r->tid);
	out_name(f, r->comm[0] ? r->comm : "?");
	ofmt(f, "\t%d\t", r->cpu);
	out_secs(f, r->start);
	out_ms(f, d);
	oputc('\t', f);
	if (r->nchain)
		out_who(f, r->chain[0].waker);
	else
		oputs("preempted", f);
	if (r->cstate >= 0)
		ofmt(f, "\t%d", r->cstate);
	else
		oputs("\t-", f);
	if (holders) {
		oputc('\t', f);
		for (int k = 0; k < LAT_HOLD && r->hold_tid[k] >= 0; k++, sep = ",") {
			oputs(sep, f);
			out_who(f, r->hold_tid[k]);
			out_share(f, " ", r->hold_ns[k], d);
		}
		for (int k = 0; k < 3; k++)
			if (ns[k]) {
				ofmt(f, "%s%s", sep, what[k]);
				out_share(f, " ", ns[k], d);
				sep = ",";
			}
		if (!*sep)
			oputc('-', f);
	}
	oputc('\t', f);
	out_who(f, r->tid);
	for (int k = 0; k < r->nchain; k++) {
		oputs("<-", f);
		out_who(f, r->chain[k].waker);
	}
	oputc('\n', f);
}

/* Waits per task, most delayed first. */
static int out_cmp_wait(const void *a, const void *b)
{
	const struct task *x = &G.m.task[*(const int *)a], *y = &G.m.task[*(const int *)b];

	if (x->lat_max != y->lat_max)
		return x->lat_max < y->lat_max ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * --latency, after the summary's blocks: runnable waits per task (count,
 * average, p50 and p99 from the log2 buckets, max), the longest runnable
 * waits with who held the CPUs, the longest D spans.  Tab-separated, times
 * in ms, time stamps in seconds; README.md, "Answers", shows an example.
 */
static void out_latency(struct out *f)
{
	int *idx = xcalloc(G.m.ntask, sizeof(int)), n = 0;

	for (int i = 0; i < G.m.ntask; i++)
		if (G.m.task[i].lat_n && filter_task(&G.m.task[i]))
			idx[n++] = i;
	sort(idx, n, sizeof(int), out_cmp_wait);
	oputs("\nwait_tid\tpid\tcomm\twaits\tavg_ms\tp50_ms\tp99_ms\tmax_ms"
	      "\tpreempted\tpreempted_avg_ms\tpreempted_max_ms\n", f);
	for (int i = 0; i < n; i++) {
		const struct task *t = &G.m.task[idx[i]];

		ofmt(f, "%d\t%d\t", t->tid, t->pid);
		out_name(f, t->comm[0] ? t->comm : "?");
		ofmt(f, "\t%u", t->lat_n);
		out_ms(f, t->lat_sum / t->lat_n);
		out_ms(f, lat_pct(t, 50));
		out_ms(f, lat_pct(t, 99));
		out_ms(f, t->lat_max);
		ofmt(f, "\t%u", t->lat_pre_n);
		out_ms(f, t->lat_pre_n ? t->lat_pre_sum / t->lat_pre_n : 0);
		out_ms(f, t->lat_pre_max);
		oputc('\n', f);
	}
	mem_free(idx);
	oputs("\nrunnable_wait\ttid\tcomm\tcpu\tstart_s\twait_ms\twaker\tidle_state\theld_by\tchain\n", f);
	for (int i = 0; i < lat.nwait; i++)
		out_lat_rec(f, i + 1, &lat.wait[i], true);
	oputs("\nblocked_span\ttid\tcomm\tcpu\tstart_s\tblocked_ms\twaker\tidle_state\tchain\n", f);
	for (int i = 0; i < lat.nblk; i++)
		out_lat_rec(f, i + 1, &lat.blk[i], false);
}

/* --chain TID: the waker chain of TID's last wakeup, one step a line. */
static int out_chain(struct out *f, int tid)
{
	struct lat_step s[LAT_CHAIN * 2];
	int n = lat_chain(tid, G.m.last, s, LAT_CHAIN * 2);
	const struct task *p;

	oputs("\nchain_step\ttime_s\ttid\tcomm\twaker\n", f);
	for (int i = 0; i < n; i++) {
		ofmt(f, "%d\t", i + 1);
		out_secs(f, s[i].t);
		ofmt(f, "\t%d\t", s[i].tid);
		out_name(f, (p = task_find(s[i].tid)) && p->comm[0] ? p->comm : "?");
		oputc('\t', f);
		out_who(f, s[i].waker);
		oputc('\n', f);
	}
	return n;
}

/*
 * --script --ftrace: the events as the kernel's trace file prints them,
 *
 *   "<comm 16>-<pid -7> [<cpu 03>] <flags> <s 5>.<us 06>: <event>: <fields>"
 *
 * after a "# tracer: nop" header.  The fields come from each event's own
 * "print fmt" (its format file, live or from the recording), a printf
 * format and C expressions over REC->field, evaluated on the raw bytes.
 * The subset the scheduler and power events use is evaluated: integers,
 * strings, casts (ignored), + - * / % << >> & ^ | comparisons && || ! ~ ?:,
 * __get_str(), __print_flags(), __print_symbolic().  An event whose print
 * fmt does not evaluate prints its fields as name=value instead.  The comm
 * of common_pid is the model's ("<idle>" for 0, "<...>" unknown), as the
 * kernel's saved command lines give it.  Bytes that are not printable
 * ASCII print as \xNN.
 */
enum { PF_ARENA = 2048, PF_DEPTH = 32 };

/* The state of evaluating one print fmt over one event. */
struct pf {
	const char *p;			/* next character of the expression */
	const struct tfs_fmt *fmt;
	const uint8_t *raw;
	uint32_t rawsz;
	bool bad;			/* something was not understood */
	int depth;
	char arena[PF_ARENA];		/* strings made while evaluating */
	size_t used;
};

/* A line of output being made (cut at its size). */
struct pfo {
	char s[1024];
	size_t n;
};

/* A value: an integer, or a string when s is set. */
struct pv {
	int64_t i;
	const char *s;
};

static struct pv pf_expr(struct pf *x);

static void pf_ws(struct pf *x)
{
	while (*x->p == ' ' || *x->p == '\t' || *x->p == '\n')
		x->p++;
}

/* Consume tok (after blanks) if it comes next. */
static bool pf_eat(struct pf *x, const char *tok)
{
	size_t n = 0;

	pf_ws(x);
	while (tok[n] && x->p[n] == tok[n])
		n++;
	if (tok[n])
		return false;
	x->p += n;
	return true;
}

/* Copy n bytes of s into the arena as a string; "" when it is full. */
static const char *pf_keep(struct pf *x, const char *s, size_t n)
{
	char *d = x->arena + x->used;

	if (n + 1 > PF_ARENA - x->used)
		return "";
	memcpy(d, s, n);
	d[n] = 0;
	x->used += n + 1;
	return d;
}

/* A C identifier at x->p into out (size n); false if there is none. */
static bool pf_ident(struct pf *x, char *out, size_t n)
{
	size_t k = 0;

	pf_ws(x);
	while ((isalnum((unsigned char)*x->p) || *x->p == '_') && k + 1 < n)
		out[k++] = *x->p++;
	out[k] = 0;
	return k > 0;
}

/* A string literal at x->p (escapes \n \t \\ \"), kept in the arena. */
static const char *pf_string(struct pf *x)
{
	char buf[256];
	size_t k = 0;

	if (!pf_eat(x, "\""))
		return x->bad = true, "";
	for (; *x->p && *x->p != '"'; x->p++) {
		char c = *x->p;

		if (c == '\\' && x->p[1]) {
			c = *++x->p;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
		}
		if (k < sizeof(buf))
			buf[k++] = c;
	}
	if (*x->p != '"')
		return x->bad = true, "";
	x->p++;
	return pf_keep(x, buf, k);
}

/* Field name of the event as a value: strings for char arrays and
 * __data_loc fields, integers otherwise. */
static struct pv pf_field(struct pf *x, const char *name, bool str)
{
	const struct tfs_field *f = tfs_field(x->fmt, name);
	const uint8_t *s;
	uint32_t n;

	if (!f || f->off + f->size > x->rawsz)
		return x->bad = true, (struct pv){ 0, NULL };
	if (!str && !f->dyn && f->size <= 8)
		return (struct pv){ fld_int(f, x->raw, x->rawsz, 0), NULL };
	s = x->raw + f->off;
	n = f->size;
	if (f->dyn) {
		uint32_t loc = f->size == 4 ? g32(s) : 0, off = loc & 0xffff;

		n = loc >> 16;
		if (off > x->rawsz || n > x->rawsz - off)
			return x->bad = true, (struct pv){ 0, NULL };
		s = x->raw + off;
	}
	return (struct pv){ 0, pf_keep(x, (const char *)s, strnlen((const char *)s, n)) };
}

/* __print_flags(v, "sep", { bit, "name" }, ...) or __print_symbolic(v,
 * { value, "name" }, ...), after its "(": the names that apply. */
static struct pv pf_table(struct pf *x, bool flags)
{
	int64_t v = pf_expr(x).i, rest = v;
	const char *sep = "";
	char out[256];
	size_t k = 0;
	bool any = false;

	if (flags && (!pf_eat(x, ",") || !(sep = pf_string(x))))
		return x->bad = true, (struct pv){ 0, NULL };
	while (!x->bad && pf_eat(x, ",") && pf_eat(x, "{")) {
		int64_t m = pf_expr(x).i;
		const char *name = pf_eat(x, ",") ? pf_string(x) : (x->bad = true, "");

		if (!pf_eat(x, "}"))
			x->bad = true;
		if (flags ? m && (rest & m) == m : !any && v == m) {
			k += sfmt(out + k, sizeof(out) - k, "%s%s", any && flags ? sep : "", name);
			k = k < sizeof(out) ? k : sizeof(out) - 1;
			rest &= flags ? ~m : rest;
			any = true;
		}
	}
	if (!pf_eat(x, ")"))
		x->bad = true;
	if (flags && rest)	/* bits without a name, as the kernel prints them */
		k += sfmt(out + k, sizeof(out) - k, "%s0x%" PRIx64, any ? sep : "", rest);
	else if (!flags && !any)
		k = sfmt(out, sizeof(out), "0x%" PRIx64, v);
	return (struct pv){ 0, pf_keep(x, out, k < sizeof(out) ? k : sizeof(out) - 1) };
}

/* A primary expression, with unary operators and casts before it. */
static struct pv pf_unary(struct pf *x)
{
	char id[64];
	struct pv v;

	if (++x->depth > PF_DEPTH)
		return x->bad = true, (struct pv){ 0, NULL };
	pf_ws(x);
	if (pf_eat(x, "!"))
		v = pf_unary(x), v = (struct pv){ !v.i, NULL };
	else if (pf_eat(x, "~"))
		v = pf_unary(x), v.i = ~v.i;
	else if (pf_eat(x, "-"))
		v = pf_unary(x), v.i = -v.i;
	else if (*x->p == '"')
		v = (struct pv){ 0, pf_string(x) };
	else if (isdigit((unsigned char)*x->p)) {
		char *e;

		v = (struct pv){ (int64_t)num_u(x->p, &e, 0), NULL };
		for (x->p = e; *x->p == 'u' || *x->p == 'U' || *x->p == 'l' || *x->p == 'L'; x->p++)
			;
	} else if (pf_eat(x, "REC->")) {
		v = pf_ident(x, id, sizeof(id)) ? pf_field(x, id, false) : (x->bad = true, (struct pv){ 0, NULL });
	} else if (pf_eat(x, "(")) {
		const char *q = x->p;

		while (isalnum((unsigned char)*q) || *q == '_' || *q == ' ' || *q == '*')
			q++;
		if (*q == ')' && strncmp(x->p, "REC", 3) && !isdigit((unsigned char)*x->p)) {
			x->p = q + 1;	/* a cast: (unsigned long) */
			v = pf_unary(x);
		} else {
			v = pf_expr(x);
			if (!pf_eat(x, ")"))
				x->bad = true;
		}
	} else if (pf_ident(x, id, sizeof(id)) && pf_eat(x, "(")) {
		if (!strcmp(id, "__get_str") && pf_ident(x, id, sizeof(id)) && pf_eat(x, ")"))
			v = pf_field(x, id, true);
		else if (!strcmp(id, "__print_flags") || !strcmp(id, "__print_symbolic"))
			v = pf_table(x, id[8] == 'f');
		else
			v = (struct pv){ 0, NULL }, x->bad = true;
	} else {
		v = (struct pv){ 0, NULL };
		x->bad = true;
	}
	x->depth--;
	return v;
}

/* Binary operators by precedence, loosest first (C's order): the level
 * of the one at p (its length in *n), -1 if none is there ("|" is not
 * "||", "&" not "&&", "<" not "<<" or "<="). */
static int pf_binop(const char *p, int *n)
{
	bool twice, eq;

	*n = 1;
	if (!p[0])
		return -1;
	twice = p[1] == p[0];
	eq = p[1] == '=';
	switch (p[0]) {
	case '|': return twice ? (*n = 2, 0) : 2;
	case '&': return twice ? (*n = 2, 1) : 4;
	case '^': return 3;
	case '=': return eq ? (*n = 2, 5) : -1;
	case '!': return eq ? (*n = 2, 5) : -1;
	case '<': case '>': return twice ? (*n = 2, 7) : eq ? (*n = 2, 6) : 6;
	case '+': case '-': return 8;
	case '*': case '/': case '%': return 9;
	default: return -1;
	}
}

/* Binary expressions of operators at precedence level lv and tighter
 * (pf_binop's levels), left to right: each operator's right operand is
 * what binds tighter than it. */
static struct pv pf_binary(struct pf *x, int lv)
{
	struct pv a = pf_unary(x), b;
	int n, l;

	for (;;) {
		const char *o;

		pf_ws(x);
		o = x->p;
		if ((l = pf_binop(o, &n)) < lv)
			return a;
		x->p += n;
		b = pf_binary(x, l + 1);
		switch (o[0] * 256 + (n == 2 ? o[1] : 0)) {
		case '|' * 256 + '|': a.i = a.i || b.i; break;
		case '&' * 256 + '&': a.i = a.i && b.i; break;
		case '|' * 256: a.i |= b.i; break;
		case '^' * 256: a.i ^= b.i; break;
		case '&' * 256: a.i &= b.i; break;
		case '=' * 256 + '=': a.i = a.i == b.i; break;
		case '!' * 256 + '=': a.i = a.i != b.i; break;
		case '<' * 256 + '=': a.i = a.i <= b.i; break;
		case '>' * 256 + '=': a.i = a.i >= b.i; break;
		case '<' * 256: a.i = a.i < b.i; break;
		case '>' * 256: a.i = a.i > b.i; break;
		case '<' * 256 + '<': a.i = b.i >= 0 && b.i < 64 ? (int64_t)((uint64_t)a.i << b.i) : 0; break;
		case '>' * 256 + '>': a.i = b.i >= 0 && b.i < 64 ? (int64_t)((uint64_t)a.i >> b.i) : 0; break;
		case '+' * 256: a.i = (int64_t)((uint64_t)a.i + (uint64_t)b.i); break;
		case '-' * 256: a.i = (int64_t)((uint64_t)a.i - (uint64_t)b.i); break;
		case '*' * 256: a.i = (int64_t)((uint64_t)a.i * (uint64_t)b.i); break;
		case '/' * 256: a.i = b.i && !(a.i == INT64_MIN && b.i == -1) ? a.i / b.i : 0; break;
		case '%' * 256: a.i = b.i && !(a.i == INT64_MIN && b.i == -1) ? a.i % b.i : 0; break;
		}
		a.s = NULL;
	}
}

/* An expression: binary operators, then "c ? a : b". */
static struct pv pf_expr(struct pf *x)
{
	struct pv c, a, b;

	if (++x->depth > PF_DEPTH)	/* "1?1?1?...": bounded like "((((" */
		return x->bad = true, (struct pv){ 0, NULL };
	c = pf_binary(x, 0);
	if (pf_eat(x, "?")) {
		a = pf_expr(x);
		if (!pf_eat(x, ":"))
			x->bad = true;
		b = pf_expr(x);
		c = c.i || c.s ? a : b;
	}
	x->depth--;
	return c;
}

/* Append n bytes of s to o with bytes that are not printable ASCII (or
 * a backslash) as \xNN. */
static void pf_put(struct pfo *o, const char *s, size_t n)
{
	for (size_t i = 0; i < n && o->n + 5 < sizeof(o->s); i++) {
		unsigned char c = s[i];

		if (c >= ' ' && c < 0x7f && c != '\\')
			o->s[o->n++] = c;
		else
			o->n += sfmt(o->s + o->n, 5, "\\x%02x", c);
	}
	o->s[o->n] = 0;
}

/*
 * Evaluate the print fmt text pf (after "print fmt: ") of x's event into
 * o.  Returns false if any of it was not understood.
 */
static bool pf_print(struct pf *x, const char *pf, struct pfo *o)
{
	const char *f;
	char spec[32];

	x->p = pf;
	if (!(f = pf_string(x)) || x->bad)
		return false;
	for (; *f; f++) {
		size_t k = 0;
		struct pv v;
		char out[64], conv;
		int n;

		if (*f != '%' || f[1] == '%') {
			pf_put(o, f, 1);
			f += *f == '%';
			continue;
		}
		spec[k++] = *f++;
		while (*f && strchr("-+ #0123456789.", *f) && k < 16)
			spec[k++] = *f++;
		while (*f == 'l' || *f == 'h' || *f == 'z' || *f == 'L')
			f++;
		conv = *f;
		if (!conv || !strchr("diouxXcsp", conv) || !pf_eat(x, ","))
			return false;
		x->depth = 0;
		v = pf_expr(x);
		if (x->bad)
			return false;
		if (conv == 's' && (!v.s || k > 1)) {	/* a width on a string: not in these events */
			return false;
		} else if (conv == 's') {
			pf_put(o, v.s, strlen(v.s));
			continue;
		} else if (v.s) {
			return false;
		} else if (conv == 'p') {
			n = sfmt(out, sizeof(out), "0x%" PRIx64, (uint64_t)v.i);
		} else {
			strcpy(spec + k, conv == 'd' || conv == 'i' ? PRId64 : conv == 'o' ? PRIo64 :
			       conv == 'u' ? PRIu64 : conv == 'c' ? "c" : conv == 'x' ? PRIx64 : PRIX64);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
			n = conv == 'c' ? sfmt(out, sizeof(out), spec, (int)v.i) :
			    sfmt(out, sizeof(out), spec, v.i);
#pragma GCC diagnostic pop
		}
		if (n > 0)
			pf_put(o, out, strlen(out));
	}
	return !x->bad;
}

/* The print fmt of format f (the text after "print fmt: "), or NULL. */
static const char *pf_text(const struct tfs_fmt *f)
{
	ptrdiff_t i = f - G.ev.fmt;

	return i < 0 || i >= G.ev.nfmt ? NULL : fmt_text[i].pf;
}

/* The header of the kernel's trace file (tracer nop, latency columns). */
static void out_ftrace_head(struct out *f)
{
	oputs("# tracer: nop\n"
	      "#\n"
	      "#                                _-----=> irqs-off/BH-disabled\n"
	      "#                               / _----=> need-resched\n"
	      "#                              | / _---=> hardirq/softirq\n"
	      "#                              || / _--=> preempt-depth\n"
	      "#                              ||| / _-=> migrate-disable\n"
	      "#                              |||| /     delay\n"
	      "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	      "#              | |         |   |||||     |         |\n", f);
}

/* The five latency columns of common_flags and common_preempt_count
 * (the kernel's trace_print_lat_fmt, TRACE_FLAG_* of Linux 6.x).  The
 * preempt count of a perf sample includes the tracepoint's own
 * preempt_disable(), which the trace file leaves out (tracing_gen_ctx_dec). */
static void out_lat_flags(char *out, unsigned fl, unsigned pc)
{
	if (pc & 0xf)
		pc--;
	static const char resched[8] = { '.', 'l', 'n', 'b', 'p', 'L', 'N', 'B' };
	bool nmi = fl & 0x40, hard = fl & 0x08, soft = fl & 0x10, bh = fl & 0x80;

	out[0] = fl & 0x01 ? (bh ? 'D' : 'd') : bh ? 'b' : '.';
	out[1] = resched[(fl & 0x02 ? 1 : 0) | (fl & 0x04 ? 2 : 0) | (fl & 0x20 ? 4 : 0)];
	out[2] = nmi ? (hard ? 'Z' : 'z') : hard ? (soft ? 'H' : 'h') : soft ? 's' : '.';
	out[3] = pc & 0xf ? "0123456789abcdef"[pc & 0xf] : '.';
	out[4] = pc & 0xf0 ? "0123456789abcdef"[pc >> 4 & 0xf] : '.';
	out[5] = 0;
}

/* One --ftrace line for tracepoint event e (ri: its record), or a lost
 * events line; other records print nothing. */
static void out_ftrace(struct out *f, const struct ev *e, const struct rinfo *ri)
{
	static struct pf x;
	const struct attr *a = ri->attr >= 0 ? &G.ev.attr[ri->attr] : NULL;
	const struct task *p;
	const char *pf, *name;
	struct pfo o = { .n = 0 };
	char comm[64], lat[6];
	int pid;

	if (e->kind == EV_LOST) {
		ofmt(f, "CPU:%d [LOST %" PRId64 " EVENTS]\n", e->cpu, e->v);
		return;
	}
	if (!a || !a->fmt || !ri->raw)
		return;
	pid = fld_int(tfs_field(a->fmt, "common_pid"), ri->raw, ri->rawsz, e->tid);
	p = pid > 0 ? task_find(pid) : NULL;
	name = pid == 0 ? "<idle>" : p && p->comm[0] ? p->comm : "<...>";
	pf_put(&o, name, strlen(name));
	scopy(comm, sizeof(comm), o.s);
	out_lat_flags(lat, fld_int(tfs_field(a->fmt, "common_flags"), ri->raw, ri->rawsz, 0),
		      fld_int(tfs_field(a->fmt, "common_preempt_count"), ri->raw, ri->rawsz, 0));
	o.n = 0;
	x = (struct pf){ .fmt = a->fmt, .raw = ri->raw, .rawsz = ri->rawsz };
	if (!(pf = pf_text(a->fmt)) || !pf_print(&x, pf, &o)) {	/* fields as name=value */
		o.n = 0;
		for (int i = 0; i < a->fmt->nfield; i++) {
			const struct tfs_field *fd = &a->fmt->field[i];
			char v[32];

			if (!strncmp(fd->name, "common_", 7))
				continue;
			pf_put(&o, " ", o.n > 0);
			pf_put(&o, fd->name, strlen(fd->name));
			pf_put(&o, "=", 1);
			if (fd->dyn || fd->size > 8) {
				x.used = 0;
				pf_put(&o, pf_field(&x, fd->name, true).s ? x.arena : "", x.used ? strlen(x.arena) : 0);
			} else {
				sfmt(v, sizeof(v), "%" PRId64, fld_int(fd, ri->raw, ri->rawsz, 0));
				pf_put(&o, v, strlen(v));
			}
		}
	}
	ofmt(f, "%16s-%-7d [%03d] %s %5" PRIu64 ".%06u: %s: %s\n", comm, pid, e->cpu, lat,
	     e->time / 1000000000, (unsigned)(e->time / 1000 % 1000000), a->fmt->name, o.s);
}

/* ---------------------------------------------------------------- terminal */

/*
 * The terminal: raw mode (no echo, no line editing, no signals from keys:
 * Ctrl-C and Ctrl-Z are read as keys), the alternate screen, a hidden
 * cursor and SGR mouse reports.  Escape sequences tc writes:
 *
 *   ESC[?1049h / l   alternate screen on / off
 *   ESC[?25l / h     cursor hidden / shown
 *   ESC[?1000h ESC[?1006h / l   mouse button reports in SGR form / off
 *   ESC[r;cH         cursor to row r, column c (1-based)
 *   ESC[0;...m       attributes: 38;5;n / 48;5;n (256 colours), 3n / 4n
 *                    (16 colours), 7 (reverse), 1 (bold)
 *   ESC[2J           clear the screen (full redraw only)
 *
 * It is restored on every way out: term_restore() runs at the end of the
 * view, from die() (tc's only other exit while the view runs), and from
 * the fatal-signal handler (async-signal-safe calls only).  Output is
 * non-blocking: a slow terminal makes tc skip frames, never stop reading
 * the rings.
 */

#define TERM_ENTER "\x1b[?1049h\x1b[?25l\x1b[?1000h\x1b[?1006h\x1b[2J"
#define TERM_LEAVE "\x1b[?1006l\x1b[?1000l\x1b[0m\x1b[?25h\x1b[?1049l"

/* One screen cell: a character (ASCII or a Unicode block) and colours. */
struct cell {
	uint16_t ch;
	uint8_t fg, bg;		/* 0 default, else colour + 1 */
	uint8_t attr;		/* CA_* */
};
enum { CA_REVERSE = 1, CA_BOLD = 2 };

/*
 * Per column of the timeline, G.term.acc[col * ACC_N + slot] holds what the row
 * did in the column's span: ns per task state (slots < ST_N), ns in I/O
 * calls per kind (ACC_IO + kind: any at all shows, so that short calls are
 * seen at any zoom), ns per idle state depth (ACC_C0...), the
 * ns-weighted frequency sum, and for tasks the CPU + 1 of the longest
 * running piece (ACC_RCPU) and its length, for CPUs the ns in hardirqs
 * and softirqs (-Q).  Time a task or CPU row has no record of within its
 * life counts as unknown.
 */
enum { ACC_IO = ST_N, ACC_C0 = ACC_IO + IO_NKIND, ACC_NC = HC_N, ACC_FSUM = ACC_C0 + ACC_NC,
       ACC_FNS, ACC_RCPU, ACC_RLEN, ACC_IRQ, ACC_SIRQ, ACC_N };

/* Terminal colours by meaning (256-colour index; 16-colour fallback below). */
enum col { COL_RUN, COL_RUNNABLE, COL_SLEEP, COL_BLOCKED, COL_IO, COL_UNKNOWN,
	   COL_IDLE, COL_IDLE_DEEP, COL_FREQ, COL_AXIS, COL_CURSOR,
	   COL_IO_WRITE, COL_IO_SYNC, COL_IO_POLL, COL_IRQ, COL_CPU0, COL_N = COL_CPU0 + 6 };
static const uint8_t col_256[COL_N] = { 34, 178, 238, 160, 33, 240, 24, 17, 97, 244, 231, 129, 37, 67, 202,
					46, 39, 214, 201, 51, 196 };
/* 16 colours: unknown is grey on the terminal's background, never black on
 * black; idle states share cyan and show their depth as a digit, so that
 * blue is I/O only. */
static const uint8_t col_16[COL_N] = { 2, 3, 0, 1, 4, 7, 6, 6, 5, 7, 7, 5, 6, 4, 5, 2, 4, 3, 5, 6, 1 };
/* The colour of each enum io_kind (read is COL_IO). */
static const uint8_t io_col[IO_NKIND] = { COL_IO, COL_IO_WRITE, COL_IO_SYNC, COL_IO_POLL };
/* --ascii glyphs of I/O by kind */
static const char io_ascii[IO_NKIND] = { 'I', 'W', 'S', 'P' };

/* The state colour of each enum st (unknown and dead share one). */
static const uint8_t st_col[ST_N] = { COL_UNKNOWN, COL_RUN, COL_RUNNABLE, COL_SLEEP,
				      COL_BLOCKED, COL_IO, COL_UNKNOWN };
/* --ascii glyphs of the states when the row is not running */
static const char st_ascii[ST_N] = { ' ', '#', 'r', ' ', 'D', 'I', ' ' };

static struct termios term_saved;
static int term_saved_flags = -1;

/* Leave raw mode and the alternate screen (async-signal-safe). */
static void term_restore(void)
{
	if (!term_active)
		return;
	term_active = 0;
	guard_say('C', 0);
	if (term_saved_flags >= 0)
		fcntl(1, F_SETFL, term_saved_flags);
	if (write(1, TERM_LEAVE, sizeof(TERM_LEAVE) - 1) < 0)
		term_saved_flags = -1;
	tty_setattr(G.term.tty_in, TCSAFLUSH, &term_saved);
}

static const int term_fatal_sig[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
static struct sigaction term_fatal_old[5];	/* the default's, or a sanitizer's */

/* A fatal signal: restore the terminal, put back the handler tc found
 * (the default, or ASan's and UBSan's, which then report), and let it run:
 * a fault happens again on return, a sent signal is raised again. */
static void term_fatal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	term_restore();
	for (size_t i = 0; i < sizeof(term_fatal_sig) / sizeof(term_fatal_sig[0]); i++)
		if (term_fatal_sig[i] == sig)
			sigaction(sig, &term_fatal_old[i], NULL);
	if (si->si_code <= 0)
		raise(sig);
}

/* Enter raw mode on G.term.tty_in and the alternate screen on stdout. */
static void term_raw(void)
{
	struct termios t = term_saved;

	t.c_iflag &= ~(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
	t.c_oflag &= ~OPOST;
	t.c_cflag |= CS8;
	t.c_lflag &= ~(ECHO | ICANON | IEXTEN | ISIG);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	tty_setattr(G.term.tty_in, TCSAFLUSH, &t);
	term_saved_flags = fcntl(1, F_GETFL);
	fcntl(1, F_SETFL, term_saved_flags | O_NONBLOCK);
	term_active = 1;
	guard_say('R', 0);
	if (write(1, TERM_ENTER, sizeof(TERM_ENTER) - 1) < 0)
		G.term.full_redraw = true;
	G.term.full_redraw = true;
}

/*
 * The guard: a child of tc's ("tc-guard") that does what tc's exit does,
 * as far as it can from outside, when tc is killed outright (SIGKILL, the
 * OOM killer) and none of its own code runs: the terminal out of the view
 * (TERM_LEAVE, its settings and flags as tc found them) if the view had
 * it (on standard output, the same file as tc's), and the command's
 * process group ended (SIGTERM, SIGKILL after GRACE_NS; the command itself
 * dies of PDEATHSIG, but what it started would outlive tc).  tc tells it
 * over a close-on-exec pipe: the terminal taken ('R', with what to put
 * back) or given back ('C'), the command's group ('P'), and at its exit
 * that all is done ('D': the guard ends, and tc waits for it).  The
 * pipe's end without a 'D' is tc's death.  Forked
 * before the rings and the recording are opened, it holds none of them;
 * it ignores what a terminal or a stop of tc's group sends, and outlives
 * tc by at most the grace.
 */
struct gmsg {
	int op, pgid, flags;	/* 'R', 'C', 'P' (pgid), 'D'; flags: the terminal's file flags */
	struct termios saved;	/* with 'R': the terminal's settings before */
};

/* The guard, tc gone without a 'D': undo raw (if the view had the
 * terminal) and end group pg (if any). */
static void guard_undo(const struct gmsg *raw, pid_t pg)
{
	if (raw) {
		ssize_t w;

		if (raw->flags >= 0)
			fcntl(1, F_SETFL, raw->flags);
		w = write(1, TERM_LEAVE, sizeof(TERM_LEAVE) - 1);
		(void)w;	/* (failed: nothing more to do about it) */
		tty_setattr(1, TCSAFLUSH, &raw->saved);
	}
	if (pg > 0 && kill(-pg, SIGTERM) == 0) {
		kill(-pg, SIGCONT);
		for (int i = 0; i < (int)(GRACE_NS / 20000000) && kill(-pg, 0) == 0; i++)
			usleep(20000);
		kill(-pg, SIGKILL);
	}
}

/* The guard's life: follow what tc says on fd until it is done or gone
 * (its signals are ignored: no read is interrupted). */
static void __attribute__((noreturn)) guard_run(int fd)
{
	struct gmsg m, raw = { .op = 'C' };
	pid_t pg = 0;

	while (read(fd, &m, sizeof(m)) == sizeof(m)) {
		if (m.op == 'D')
			_exit(0);
		if (m.op == 'P')
			pg = m.pgid;
		else
			raw = m;
	}
	guard_undo(raw.op == 'R' ? &raw : NULL, pg);
	_exit(0);
}

/* At tc's exit (main's end, die): tell the guard that all is done, and
 * wait for its end. */
static void guard_done(void)
{
	if (G.child.guard <= 0 || getpid() != G.child.guard_of)
		return;
	guard_say('D', 0);
	close(G.child.guard_fd);
	kill(G.child.guard, SIGCONT);	/* stopped with tc's group (SIGSTOP): it must go on to end */
	while (waitpid(G.child.guard, NULL, 0) < 0 && errno == EINTR)
		;
	G.child.guard = -1;
}

/* Fork the guard (once; without one, tc runs as before): no file of
 * tc's but the pipe's read end and those of its standard ones that are a
 * terminal (not a stream's pipe, whose reader would wait for the guard's
 * end), the signals that stop or end tc and its group ignored (not the
 * faults), named tc-guard. */
static void guard_start(void)
{
	int p[2];
	pid_t pid;

	if (G.child.guard || pipe2(p, O_CLOEXEC) < 0)
		return;
	out_flush(&tc_out);	/* nothing buffered is written twice */
	if ((pid = _Fork()) == 0) {
		prctl(PR_SET_NAME, "tc-guard");
		for (int sig = 1; sig < 32; sig++)
			if (!((1u << SIGSEGV | 1u << SIGBUS | 1u << SIGFPE | 1u << SIGILL | 1u << SIGABRT) >> sig & 1))
				signal(sig, SIG_IGN);
		for (int fd = 0; fd < 3; fd++)
			if (!isatty(fd))
				close(fd);
		if (dup2(p[0], 3) < 0)
			_exit(0);
#ifdef SYS_close_range
		if (syscall(SYS_close_range, 4, ~0u, 0) < 0)
#endif
			for (int fd = 4; fd < 1024; fd++)	/* (tc has opened a few so far) */
				close(fd);
		guard_run(3);
	}
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return;
	}
	G.child.guard = pid;
	G.child.guard_of = getpid();
	G.child.guard_fd = p[1];
}

/* Tell the guard op (the terminal's state with 'R', pgid with 'P', 0: no
 * group; G.child.guard_pg follows); only tc does (a forked child of its
 * that exits is not tc's exit).  Async-signal-safe. */
static void guard_say(int op, pid_t pgid)
{
	struct gmsg m = { .op = op, .pgid = pgid, .flags = term_saved_flags, .saved = term_saved };

	if (G.child.guard <= 0 || getpid() != G.child.guard_of)
		return;
	if (op == 'P')
		G.child.guard_pg = pgid > 0;
	if (write(G.child.guard_fd, &m, sizeof(m)) < 0)
		G.child.guard = -1;	/* gone: say nothing more */
}

/* Bytes per second the terminal takes: from its line speed, except that a
 * pseudo-terminal at the default 38400 is taken as fast. */
static uint64_t term_rate(void)
{
	static const struct { speed_t s; unsigned baud; } sp[] = {
		{ B1200, 1200 }, { B2400, 2400 }, { B4800, 4800 }, { B9600, 9600 },
		{ B19200, 19200 }, { B38400, 38400 }, { B57600, 57600 },
		{ B115200, 115200 }, { B230400, 230400 }, { B460800, 460800 },
		{ B921600, 921600 },
	};
	struct termios t;
	const char *name = ttyname(1);

	if (tcgetattr(1, &t) < 0)
		return 1 << 20;
	for (size_t i = 0; i < sizeof(sp) / sizeof(sp[0]); i++)
		if (cfgetospeed(&t) == sp[i].s) {
			if (sp[i].baud == 38400 && name && !strncmp(name, "/dev/pts/", 9))
				return 1 << 20;
			return sp[i].baud / 10;
		}
	return 1 << 20;
}

/* (Re)allocate the frame, the screen copy, the column accumulators and
 * the output buffer for rows x cols; the next frame is drawn whole. */
static void scr_alloc(int rows, int cols)
{
	mem_free(G.term.scr);
	mem_free(G.term.scr_prev);
	mem_free(G.term.acc);
	mem_free(G.term.ob);
	G.term.rows = rows;
	G.term.cols = cols;
	G.term.scr = xcalloc((size_t)rows * cols, sizeof(struct cell));
	G.term.scr_prev = xcalloc((size_t)rows * cols, sizeof(struct cell));
	G.term.acc = xcalloc((size_t)cols * ACC_N, sizeof(uint64_t));
	G.term.ob_cap = (size_t)rows * cols * 48 + 4096;	/* move, colours, 3-byte char per cell */
	G.term.ob = xcalloc(1, G.term.ob_cap);
	G.term.ob_len = G.term.ob_off = 0;
	G.term.full_redraw = true;
}

/* Size the screen buffers for the terminal's size (start-up and resize). */
static void term_size(void)
{
	struct winsize ws;
	int rows = 24, cols = 80;

	if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0) {
		rows = ws.ws_row;
		cols = ws.ws_col;
	}
	if (rows > 500)
		rows = 500;
	if (cols > 1000)
		cols = 1000;
	if (rows == G.term.rows && cols == G.term.cols && G.term.scr)
		return;
	scr_alloc(rows, cols);
}

/* Can the view run here?  Dies with what to do instead when stdout is not
 * a terminal or the terminal cannot place the cursor (TERM=dumb). */
static void term_check(void)
{
	const char *term = getenv("TERM");

	if (!isatty(1))
		die("stdout is not a terminal: use --record FILE to record, or --replay FILE --summary");
	if (term && !strcmp(term, "dumb"))
		die("TERM=dumb cannot show the view: use --record FILE, then --replay FILE --summary or --script");
}

/*
 * Set up the terminal for the view (term_check found stdout one); keys come from
 * stdin if it is a terminal, else from /dev/tty.  Dies with what to do
 * otherwise.  Reads the options that choose glyphs and colours.
 */
static void term_init(void)
{
	const char *term = getenv("TERM"), *lang;
	struct sigaction sa = { .sa_sigaction = term_fatal, .sa_flags = SA_SIGINFO };
	bool vt;

	G.term.tty_in = isatty(0) ? 0 : open("/dev/tty", O_RDONLY | O_CLOEXEC);
	if (G.term.tty_in < 0 || tcgetattr(G.term.tty_in, &term_saved) < 0)
		die("no terminal to read keys from");
	lang = getenv("LC_ALL");
	if (!lang || !*lang)
		lang = getenv("LC_CTYPE");
	if (!lang || !*lang)
		lang = getenv("LANG");
	vt = term && term[0] == 'v' && term[1] == 't';	/* vt100, vt220: no colour, no UTF-8 */
	G.term.utf8 = !G.term.ascii && !vt && lang && (str_find(lang, "utf-8", true) || str_find(lang, "utf8", true));
	if (!term || vt || !strcmp(term, "dumb") || getenv("NO_COLOR") || G.term.no_color)
		G.term.ncolor = 0;
	else if (str_find(term, "256", false) || getenv("COLORTERM"))
		G.term.ncolor = 256;
	else
		G.term.ncolor = 16;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(term_fatal_sig) / sizeof(term_fatal_sig[0]); i++)
		sigaction(term_fatal_sig[i], &sa, &term_fatal_old[i]);
	G.term.bps = term_rate();
	term_size();
	term_raw();
}

/* Append bytes to the frame's output buffer (sized for a full redraw). */
static void ob_add(const char *s, size_t n)
{
	if (G.term.ob_len + n > G.term.ob_cap)
		return;		/* cannot happen: sized for the worst frame */
	memcpy(G.term.ob + G.term.ob_len, s, n);
	G.term.ob_len += n;
}

/* Write what is pending of the output without blocking; true when all is out. */
static bool ob_flush(void)
{
	while (G.term.ob_off < G.term.ob_len) {
		ssize_t n = write(1, G.term.ob + G.term.ob_off, G.term.ob_len - G.term.ob_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		G.term.ob_off += n;
		G.term.bytes_out += n;
	}
	G.term.ob_len = G.term.ob_off = 0;
	return true;
}

/* ---------------------------------------------------------------- input */

enum key {
	K_NONE = 0, K_CTRL_C = 3, K_CTRL_Z = 26, K_ESC = 27,
	K_UP = 0x100, K_DOWN, K_LEFT, K_RIGHT, K_PGUP, K_PGDN, K_SLEFT, K_SRIGHT,
	K_HOME, K_END, K_MOUSE_CLICK, K_WHEEL_UP, K_WHEEL_DOWN, K_UNKNOWN,
};

/*
 * Decode one key from b[0..n).  Returns the bytes it took (and *key, and
 * for the mouse *mx, *my 0-based), or 0 if b holds only the start of an
 * escape sequence: the caller waits for more, and takes a lone ESC as the
 * Esc key when nothing follows soon.
 */
static size_t key_decode(const uint8_t *b, size_t n, int *key, int *mx, int *my)
{
	static const struct { const char *seq; int key; } seqs[] = {
		{ "[A", K_UP }, { "[B", K_DOWN }, { "[C", K_RIGHT }, { "[D", K_LEFT },
		{ "OA", K_UP }, { "OB", K_DOWN }, { "OC", K_RIGHT }, { "OD", K_LEFT },
		{ "[5~", K_PGUP }, { "[6~", K_PGDN }, { "[1;2C", K_SRIGHT }, { "[1;2D", K_SLEFT },
		{ "[H", K_HOME }, { "[F", K_END }, { "[1~", K_HOME }, { "[4~", K_END },
	};
	size_t i;

	if (!n)
		return 0;
	if (b[0] != 27) {
		*key = b[0];
		return 1;
	}
	if (n == 1)
		return 0;
	if (b[1] != '[' && b[1] != 'O') {
		*key = K_ESC;	/* ESC then another key: Esc, the key comes next */
		return 1;
	}
	if (n >= 3 && b[1] == '[' && b[2] == '<') {	/* SGR mouse: ESC[<b;x;yM */
		unsigned v[3] = { 0, 0, 0 };
		int k = 0;

		for (i = 3; i < n && i < 32; i++) {
			if (isdigit(b[i]))
				v[k] = v[k] * 10 + (b[i] - '0');
			else if (b[i] == ';' && k < 2)
				k++;
			else if (b[i] == 'M' || b[i] == 'm') {
				*mx = v[1] > 0 ? v[1] - 1 : 0;
				*my = v[2] > 0 ? v[2] - 1 : 0;
				*key = b[i] == 'm' ? K_NONE : v[0] == 64 ? K_WHEEL_UP : v[0] == 65 ? K_WHEEL_DOWN :
				       (v[0] & 3) == 0 && !(v[0] & 32) ? K_MOUSE_CLICK : K_NONE;
				return i + 1;
			} else
				break;
		}
		if (i == n && n < 32)
			return 0;
		*key = K_UNKNOWN;
		return i < n ? i + 1 : n;
	}
	for (size_t s = 0; s < sizeof(seqs) / sizeof(seqs[0]); s++) {
		size_t l = strlen(seqs[s].seq);

		if (n - 1 >= l && !memcmp(b + 1, seqs[s].seq, l)) {
			*key = seqs[s].key;
			return 1 + l;
		}
		if (n - 1 < l && !memcmp(b + 1, seqs[s].seq, n - 1))
			return 0;	/* a prefix: wait for the rest */
	}
	/* an unknown CSI: skip to its final byte */
	for (i = 2; i < n && i < 16; i++)
		if (b[i] >= 0x40 && b[i] <= 0x7e) {
			*key = K_UNKNOWN;
			return i + 1;
		}
	if (i == n && n < 16)
		return 0;
	*key = K_UNKNOWN;
	return i;
}

/* What a key does in the view (view_key). */
enum kact {
	KA_QUIT, KA_DOWN, KA_UP, KA_PGDN, KA_PGUP, KA_LEFT, KA_RIGHT, KA_PAN_L, KA_PAN_R,
	KA_ZOOM_IN, KA_ZOOM_OUT, KA_WHOLE, KA_NEXT, KA_PREV, KA_WAKER, KA_PANEL, KA_MARK,
	KA_ORDER, KA_FIND, KA_CPUCOL, KA_HIDE, KA_SAVE, KA_PAUSE, KA_SUSPEND, KA_HELP, KA_CLICK,
};

/*
 * The view's keys: the key codes of an action, and for the first action
 * of a group the keys and words that ? and --help (and so tc.1) show for
 * the group, each at most 19 columns (? fits two columns in 80).
 */
static const struct keydef {
	int16_t key[3];
	uint8_t act;
	const char *keys, *help;
} keydefs[] = {
	{ { 'j', K_DOWN }, KA_DOWN, "j k Down Up", "select a row" },
	{ { 'k', K_UP }, KA_UP, NULL, NULL },
	{ { K_PGDN }, KA_PGDN, "PgDn PgUp", "a screen of rows" },
	{ { K_PGUP }, KA_PGUP, NULL, NULL },
	{ { 'h', K_LEFT }, KA_LEFT, "h l Left Right", "move the cursor" },
	{ { 'l', K_RIGHT }, KA_RIGHT, NULL, NULL },
	{ { '<', 'H', K_SLEFT }, KA_PAN_L, "< > H Shift-arrows", "pan a quarter" },
	{ { '>', K_SRIGHT }, KA_PAN_R, NULL, NULL },
	{ { '+', '=', K_WHEEL_UP }, KA_ZOOM_IN, "+ = - wheel", "zoom in / out" },
	{ { '-', K_WHEEL_DOWN }, KA_ZOOM_OUT, NULL, NULL },
	{ { '0', K_ESC }, KA_WHOLE, "0 Esc", "whole, follow" },
	{ { 'n' }, KA_NEXT, "n p", "next / prev change" },
	{ { 'p' }, KA_PREV, NULL, NULL },
	{ { 'w' }, KA_WAKER, "w", "go to the waker" },
	{ { 'L' }, KA_PANEL, "L", "worst waits panel" },
	{ { 'W' }, KA_PANEL, "W", "wakeup chain panel" },
	{ { 'Q' }, KA_PANEL, "Q", "interrupts panel" },
	{ { 'm' }, KA_MARK, "m", "set a mark" },
	{ { 's' }, KA_ORDER, "s", "task order" },
	{ { '/' }, KA_FIND, "/", "find a task" },
	{ { 'c' }, KA_CPUCOL, "c", "cells by CPU" },
	{ { 'i' }, KA_HIDE, "i", "hide empty rows" },
	{ { 'S' }, KA_SAVE, "S", "save view as a file" },
	{ { ' ' }, KA_PAUSE, "space", "pause / resume" },
	{ { K_CTRL_Z }, KA_SUSPEND, "Ctrl-Z", "suspend (fg)" },
	{ { '?' }, KA_HELP, "?", "this help" },
	{ { 'q', K_CTRL_C }, KA_QUIT, "q Ctrl-C", "quit (from anywhere)" },
	{ { K_MOUSE_CLICK }, KA_CLICK, "mouse click", "select row and time" },
};
#define N_KEYS ((int)(sizeof(keydefs) / sizeof(keydefs[0])))

/* The action of key, or NULL if it has none. */
static const struct keydef *key_find(int key)
{
	for (int i = 0; i < N_KEYS; i++)
		for (int k = 0; k < 3; k++)
			if (keydefs[i].key[k] == key && key)
				return &keydefs[i];
	return NULL;
}

/* --help's list of keys: a line per group of the table. */
static void key_help(struct out *f)
{
	for (int i = 0; i < N_KEYS; i++)
		if (keydefs[i].keys)
			ofmt(f, "  %-24s%s\n", keydefs[i].keys, keydefs[i].help);
}

/* ---------------------------------------------------------------- history */

/*
 * The view's history: the intervals the model closes, as ival_add gets
 * them (--states prints them there), kept twice: summaries per task and
 * CPU row (hist_*: the time in each state per bucket of time) and a ring
 * of exact intervals, newest overwriting oldest (ib_*, ival_*).  A
 * replay's view reads a span of its file again, in a child, for the exact
 * intervals the ring no longer holds (rd_history).  acc_row gives a row's
 * time in each state per timeline column from both; drawing makes cells
 * of it.
 */

/*
 * Size the view's history from --history (MiB, default 64), at the first
 * interval of a view: five eighths for the ring of exact intervals
 * (replacing the one model_init made), the rest for the summaries (CPU
 * rows first, at most a quarter of the whole; the rest task blocks, a
 * third of them for I/O with -I).  The blocks are on huge pages
 * (xcalloc_huge), taken in turn, and cleared only where written
 * (hist_take, hist_double): perf record's bench file (474 tasks) was read
 * into the view in 82 ms with 3,738 page faults when each block taken was
 * cleared whole on small pages, in 54 ms with 1,075 so (test/zoombench,
 * alternating runs, on the AMD VM under PVM; peak RSS 24 to 28 MB).
 */
static void hist_init(void)
{
	static const uint8_t nslot[HK_N] = { HT_N, IO_NKIND, 4, HC_N, 2 };
	uint64_t budget = (uint64_t)(G.hist.mib ? G.hist.mib : 64) << 20, cpu_b, task_b;
	int nb = 8192;		/* CPU rows; task rows 1024 */

	ival_ring(budget / 8 * 5);
	while (nb > 16 && (uint64_t)G.m.ncpu * nb * (6 + HC_N) * sizeof(float) > budget / 4)
		nb /= 2;
	cpu_b = (uint64_t)G.m.ncpu * nb * (6 + HC_N) * sizeof(float);
	cpu_b += 2 * TC_MAX_TASKS * sizeof(int32_t);	/* and the task row maps */
	task_b = budget / 8 * 3 > cpu_b ? budget / 8 * 3 - cpu_b : 0;
	G.hist.cap = G.opt.live || G.v.speed > 0 ? 2 * G.v.window_ns : 0;
	for (int k = 0; k < HK_N; k++) {
		struct hpool *h = &G.hist.hp[k];
		uint64_t blk;

		h->nb = k >= HK_CPU || nb < 1024 ? nb : 1024;
		blk = (uint64_t)h->nb * nslot[k] * sizeof(float) + 20;
		h->nslot = nslot[k];
		if (k >= HK_CPU) {
			h->nblk = h->nmap = G.m.ncpu;
		} else {
			h->nmap = TC_MAX_TASKS;
			h->nblk = (k == HK_IO ? (G.opt.io ? task_b / 3 : 0) : G.opt.io ? task_b * 2 / 3 : task_b) / blk;
			if (h->nblk > h->nmap)
				h->nblk = h->nmap;
		}
		h->f = xcalloc_huge((size_t)h->nblk * h->nb * h->nslot * sizeof(float));
		h->hi = xcalloc(h->nblk, sizeof(*h->hi));
		h->row = xcalloc(h->nblk, sizeof(*h->row));
		h->tid = xcalloc(h->nblk, sizeof(*h->tid));
		h->map = xcalloc(h->nmap, sizeof(*h->map));
		for (int i = 0; i < h->nblk; i++) {
			h->hi[i] = -1;
			h->row[i] = h->tid[i] = k >= HK_CPU ? i : -1;
		}
		for (int i = 0; i < h->nmap; i++)
			h->map[i] = k >= HK_CPU ? i : -1;
		h->w = G.hist.cap ? (G.hist.cap + h->nb - 1) / h->nb : 1000000;
	}
	G.hist.on = true;
}

/* A block for task slot row in pool h, taken from the least recently
 * written of up to 64 blocks when none is free; -1 if the pool is empty. */
static int hist_take(struct hpool *h, int row)
{
	int best = -1;

	for (int n = 0; n < 64 && n < h->nblk; n++) {
		int j = h->hand;

		h->hand = (h->hand + 1) % h->nblk;
		if (h->row[j] < 0) {
			best = j;
			break;
		}
		if (best < 0 || h->hi[j] < h->hi[best])
			best = j;
	}
	if (best < 0)
		return -1;
	if (h->row[best] >= 0 && h->row[best] != row) {
		h->map[h->row[best]] = -1;
		G.hist.stolen++;
	}
	h->row[best] = row;
	h->tid[best] = G.m.task[row].tid;
	if (h->hi[best] >= 0)	/* its buckets written (a block never written is clear) */
		memset(h->f + (size_t)best * h->nb * h->nslot, 0,
		       sizeof(float) * h->nslot * (h->hi[best] < h->nb ? h->hi[best] + 1 : h->nb));
	h->hi[best] = -1;
	h->map[row] = best;
	return best;
}

/* The block of row (task slot or CPU) in history kind k, made if make;
 * -1 if it has none. */
static int hist_block(int k, int row, bool make)
{
	struct hpool *h = &G.hist.hp[k];
	int i;

	if (!G.hist.on || row < 0 || row >= h->nmap || !h->nblk)
		return -1;
	i = h->map[row];
	if (k >= HK_CPU || (i >= 0 && h->tid[i] == G.m.task[row].tid))
		return i;
	return make ? hist_take(h, row) : -1;
}

/* Twice as wide buckets of kind k (replay): merge each pair of every
 * block (sums; a task's CPU mark is the later bucket's, if it has one).
 * A replay's buckets do not wrap (hi < nb), and those after hi are
 * clear: only the ones written are read and cleared. */
static void hist_double(int k)
{
	struct hpool *h = &G.hist.hp[k];
	int nb = h->nb, ns = h->nslot;

	for (int i = 0; i < h->nblk; i++) {
		float *f = h->f + (size_t)i * nb * ns;
		int64_t hi = h->hi[i];

		if (hi < 0)
			continue;
		for (int b = 0; b <= hi / 2; b++) {
			float *d = f + b * ns, *x = f + 2 * b * ns, *y = x + ns;	/* (d is x or before it) */
			float cpu = k == HK_TASK ? (y[HT_CPU] ? y[HT_CPU] : x[HT_CPU]) : 0;

			for (int s = 0; s < ns; s++)
				d[s] = x[s] + y[s];
			if (k == HK_TASK)
				d[HT_CPU] = cpu;
		}
		memset(f + (size_t)(hi / 2 + 1) * ns, 0, sizeof(float) * (hi - hi / 2) * ns);
		h->hi[i] = hi / 2;
	}
	h->w *= 2;
}

/* Add w per ns of [s, e) to slot of block i of pool h; for running pieces
 * (cpu1 > 0) also mark the buckets with CPU + 1. */
static void hist_add(struct hpool *h, int i, uint64_t s, uint64_t e, int slot, float w, int cpu1)
{
	int nb = h->nb;
	float *f = h->f + (size_t)i * nb * h->nslot;
	int64_t b0, b1;
	uint64_t newest = G.hist.base + (uint64_t)h->hi[i] * h->w;	/* its newest bucket's start */

	if (s < G.hist.base)
		s = G.hist.base;
	if (e <= s)
		return;
	if (FAST && h->hi[i] >= 0 && s >= newest && e - newest <= h->w) {
		b0 = b1 = h->hi[i];	/* all in its newest bucket: no division */
	} else {
		b0 = (s - G.hist.base) / h->w;
		b1 = (e - 1 - G.hist.base) / h->w;
	}
	if (b1 > h->hi[i]) {	/* newer buckets: a live view's wrap, cleared here; a replay's are clear */
		for (int64_t b = h->hi[i] < 0 || !G.hist.cap ? b1 + 1 :
				 h->hi[i] + 1 > b1 - nb + 1 ? h->hi[i] + 1 : b1 - nb + 1;
		     b <= b1; b++)
			memset(f + (b & (nb - 1)) * h->nslot, 0, sizeof(float) * h->nslot);	/* (nb: a power of two) */
		h->hi[i] = b1;
	}
	if (b0 <= h->hi[i] - nb)
		b0 = h->hi[i] - nb + 1;
	for (int64_t b = b0; b <= b1; b++) {
		uint64_t lo = G.hist.base + b * h->w, hi = lo + h->w;
		float *p = f + (b & (nb - 1)) * h->nslot;

		p[slot] += (float)((e < hi ? e : hi) - (s > lo ? s : lo)) * w;
		if (cpu1)
			p[HT_CPU] = cpu1;
	}
}

/* Add an interval, as ival_add gets it, to the summaries. */
static void hist_ival(const uint64_t *last, int32_t row, int32_t state, int32_t aux,
		      uint64_t start, uint64_t end)
{
	static const int8_t task_slot[ST_N] = { -1, HT_RUN, HT_RUNNABLE, HT_SLEEP, HT_BLOCKED, HT_IO, -1 };
	int k, c = -1 - row, i, slot;
	bool irq;

	if (row >= 0)
		k = last == &G.m.task[row].last_iival ? HK_IO : HK_TASK;
	else
		k = last == &G.m.cpu[c].last_cival ? HK_CSTATE : last == &G.m.cpu[c].last_fival ? HK_FREQ : HK_CPU;
	irq = row < 0 && last == &G.m.cpu[c].last_qival;
	if ((k == HK_TASK && (state < 0 || state >= ST_N || task_slot[state] < 0)) || (k == HK_CPU && state < 0 && !irq))
		return;		/* unknown: what no summary holds */
	if (!G.hist.base)
		G.hist.base = G.m.first && G.m.first < start ? G.m.first : start;
	while (!G.hist.cap && end > G.hist.base &&	/* (end - 1 - base) / w >= nb, nb a power of two */
	       (end - 1 - G.hist.base) >> __builtin_ctz(G.hist.hp[k].nb) >= G.hist.hp[k].w)
		hist_double(k);
	if ((i = hist_block(k, row >= 0 ? row : c, true)) < 0)
		return;
	switch (k) {
	case HK_TASK:
		slot = task_slot[state];
		break;
	case HK_IO:
		slot = state >= 0 && state < N_IO ? io_calls[state].kind : IO_READ;
		break;
	case HK_CPU:
		slot = irq ? (state >= 0 ? 2 : 3) : state > 0 ? 0 : 1;
		break;
	case HK_CSTATE:
		slot = state < 0 ? 0 : state < HC_N ? state : HC_N - 1;
		break;
	default:
		hist_add(&G.hist.hp[k], i, start, end, 0, state, 0);
		slot = 1;
		break;
	}
	hist_add(&G.hist.hp[k], i, start, end, slot, 1, k == HK_TASK && state == ST_RUNNING ? aux + 1 : 0);
}

/*
 * The exact intervals live in one byte ring, newest overwriting oldest.
 * An interval at position p (bytes written before it) is four or five
 * varints:
 *
 *   p - prev   its row's older interval (0: none)
 *   end        zigzag of end - the base of p's chunk
 *   end-start  its length
 *   state      zigzag, times 2, + 1 when aux is -1 (a CPU row's state is
 *              a tid, a frequency row's kHz)
 *   aux        zigzag, when not -1
 *
 * about 12 bytes where a struct takes 40.  The ring is cut in chunks
 * (4 KiB, or an eighth of a small ring); a chunk's base is the end of
 * the first interval starting in it.  A chunk is given up whole when the
 * writer enters it again: its intervals are counted as evicted and
 * G.ib.floor moves past their ends.  Positions only grow, so a link to an
 * overwritten interval is seen as such (ival_get) and never aliases.
 */

/* Shared memory of n bytes, zeroed (a replay's reading child writes
 * the intervals of a span into it: view_exact). */
static void *xshared(uint64_t n)
{
	void *p = n == (size_t)n ? mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0)
				 : MAP_FAILED;

	if (p == MAP_FAILED)
		die("out of memory (%" PRIu64 " bytes of history)", n);
	return p;
}

/* Make the ring of bytes for exact intervals (0: none; at least 8
 * chunks of 16 bytes), empty. */
static void ival_ring(uint64_t bytes)
{
	uint64_t nch;

	if (G.ib.buf) {
		munmap(G.ib.buf, G.ib.cap);
		munmap(G.ib.ch, (G.ib.cap >> G.ib.shift) * sizeof(*G.ib.ch));
	}
	G.ib.buf = NULL;
	G.ib.ch = NULL;
	G.ib.cap = G.ib.head = G.ib.hidx = G.ib.chunk = 0;
	G.ib.ceil = UINT64_MAX;
	if (!bytes)
		return;
	G.ib.shift = 12;
	while (G.ib.shift > 4 && bytes >> G.ib.shift < 8)
		G.ib.shift--;
	nch = bytes >> G.ib.shift > 8 ? bytes >> G.ib.shift : 8;
	G.ib.cap = nch << G.ib.shift;
	G.ib.buf = xshared(G.ib.cap);
	G.ib.ch = xshared(nch * sizeof(*G.ib.ch));
}

/* Write v as a varint at b (up to 10 bytes); the byte after it. */
static inline uint8_t *ib_var(uint8_t *b, uint64_t v)
{
	for (; v > 127; v >>= 7)
		*b++ = (v & 127) | 128;
	*b++ = v;
	return b;
}

/* Write v as a varint at the head of the ring, entering new chunks (and
 * giving up what they held) as the head reaches them.  (No division a
 * byte: it was a third of a replay's first reading with a view.)  Where
 * the head's chunk has room for an interval's varints, ival_put writes
 * them at once (FAST; the checks a byte were a fifth of that reading),
 * so this is its way at a chunk's end.  The first time round, the ring's
 * pages are made IB_POP bytes at a time, not a page fault each (shared
 * memory has no huge pages here): perf sched record's bench file went
 * into the view in 58 ms, not 64 (first quartiles of 21 alternating
 * runs). */
static void ib_put(uint64_t v)
{
	uint8_t *buf = G.ib.buf;
	uint64_t head = G.ib.head, i = G.ib.hidx;

	do {
		uint64_t ch = head >> G.ib.shift, at = ch << G.ib.shift;	/* (the chunk's first byte) */

		if (ch + 1 != G.ib.chunk) {	/* a new chunk */
			struct ibchunk *k = &G.ib.ch[ch % (G.ib.cap >> G.ib.shift)];

			G.ib.evicted += k->n;
			if (k->n && k->maxend > G.ib.floor)
				G.ib.floor = k->maxend;
			k->n = 0;
			G.ib.chunk = ch + 1;
			if (FAST && !(at & (IB_POP - 1)) && at < G.ib.cap)	/* (the first time round) */
				madvise(buf + at, G.ib.cap - at < IB_POP ? G.ib.cap - at : IB_POP, MADV_POPULATE_WRITE);
		}
		buf[i] = (v & 127) | (v > 127 ? 128 : 0);
		i = i + 1 < G.ib.cap ? i + 1 : 0;
		head++;
		v >>= 7;
	} while (v);
	G.ib.head = head;
	G.ib.hidx = i;
}

/* Whether an interval at position p is still in the ring. */
static bool ival_live(uint64_t p)
{
	return p < G.ib.head && (p >> G.ib.shift) + (G.ib.cap >> G.ib.shift) >= G.ib.chunk;
}

static uint64_t zz(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzz(uint64_t v)
{
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

/* In a replay's reading child (view_exact): where the view's own model
 * takes over the row of chain last, the start of its open state (what
 * the child knows after it the view draws already); UINT64_MAX if it
 * has none or the row is another task's there. */
static uint64_t z_clip(const uint64_t *last, int32_t row)
{
	const struct task *p;
	const struct cpu *q;
	int c = -1 - row;

	if (row >= 0) {
		p = &G.z.ptask[row];
		if (row >= G.z.pntask || p->tid != G.m.task[row].tid)
			return UINT64_MAX;
		if (last == &G.m.task[row].last_iival)
			return p->in_io ? p->io_start : UINT64_MAX;
		return p->state != ST_DEAD ? p->since : UINT64_MAX;
	}
	q = &G.z.pcpu[c];
	if (last == &G.m.cpu[c].last_cival)
		return q->cstate >= 0 ? q->cstate_since : UINT64_MAX;
	if (last == &G.m.cpu[c].last_fival)
		return q->freq >= 0 ? q->freq_since : UINT64_MAX;
	if (last == &G.m.cpu[c].last_qival)
		return q->sirq >= 0 ? q->sirq_since : q->hirq >= 0 ? q->hirq_since : UINT64_MAX;
	return q->cur >= 0 ? q->since : UINT64_MAX;
}

/*
 * --states: interval [start, end) of row as one line, tab-separated, times
 * in ns as in the recording (see out_states):
 *   task TID STATE START END CPU    STATE running, runnable, sleeping,
 *                                   blocked, unknown; CPU where it ran,
 *                                   else -1; unknown: and WHY (unk_text)
 *   io TID CALL START END RET       an I/O call (-I)
 *   cpu CPU TID START END           the task running on CPU (0: idle;
 *                                   -1: unknown, and WHY)
 *   cstate CPU STATE START END      an idle state
 *   freq CPU KHZ START END
 *   hardirq CPU IRQ START END NAME TID   an interrupt handler (-Q), on top of TID
 *   softirq CPU VEC START END NAME TID   a softirq (-Q)
 * Time a row has no line for is unknown too (a task before it was named).
 */
static void ival_print(const uint64_t *last, int32_t row, int32_t state, int32_t aux, uint64_t start, uint64_t end)
{
	int c = -1 - row;
	char why[48] = "";

	if ((row >= 0 && last == &G.m.task[row].last_ival && state == ST_UNKNOWN) ||
	    (row < 0 && last == &G.m.cpu[c].last_ival && state < 0)) {
		why[0] = '\t';
		unk_text(aux, true, why + 1, sizeof(why) - 1);
	}
	if (row < 0 && last == &G.m.cpu[c].last_qival) {
		irq_name(c, state, why, sizeof(why));
		ofmt(&tc_out, "%s\t%d\t%d\t%" PRIu64 "\t%" PRIu64 "\t", state < 0 ? "softirq" : "hardirq", c,
		     state < 0 ? -1 - state : state, start, end);
		out_name(&tc_out, why);
		ofmt(&tc_out, "\t%d\n", aux);
		return;
	}
	if (row >= 0 && last == &G.m.task[row].last_ival)
		ofmt(&tc_out, "task\t%d\t%s\t%" PRIu64 "\t%" PRIu64 "\t%d%s\n", G.m.task[row].tid,
		     state >= 0 && state < ST_N ? st_names[state] : "?", start, end, state == ST_RUNNING ? aux : -1, why);
	else if (row >= 0)
		ofmt(&tc_out, "io\t%d\t%s\t%" PRIu64 "\t%" PRIu64 "\t%d\n", G.m.task[row].tid,
		     state >= 0 && state < N_IO ? io_calls[state].name : "?", start, end, aux);
	else
		ofmt(&tc_out, "%s\t%d\t%d\t%" PRIu64 "\t%" PRIu64 "%s\n",
		     last == &G.m.cpu[c].last_cival ? "cstate" : last == &G.m.cpu[c].last_fival ? "freq" : "cpu",
		     c, state, start, end, why);
}

/* Write v as ival_put's next varint: at b where it writes them at once
 * (the byte after it returned), else at the ring's head (b NULL: NULL). */
static inline uint8_t *ival_var(uint8_t *b, uint64_t v)
{
	if (FAST && b)
		return ib_var(b, v);
	ib_put(v);
	return NULL;
}

/* ival_add's keeping: in the summaries and in the ring of exact
 * intervals, whose oldest are overwritten (and counted) when it is full,
 * and --states.  A running task's aux is set to its CPU.  A reading child
 * keeps only what the view lacks of its span, in the ring only. */
static void ival_put(uint64_t *last, int32_t row, int32_t state, int32_t aux, uint64_t start, uint64_t end)
{
	uint64_t p;
	struct ibchunk *k;
	uint8_t *b0 = NULL, *b = NULL;	/* where the varints go at once, else NULL */

	if (G.z.pass) {
		uint64_t clip = z_clip(last, row), nch = G.ib.cap >> G.ib.shift;
		/* the chunk the head enters after what closing the open states
		 * takes (at most a quarter of the ring: with more tasks than it
		 * has room for, some of the span is given up for them) */
		uint64_t close = (uint64_t)(2 * G.m.ntask + 3 * G.m.ncpu + 1) * 40;
		uint64_t far = (G.ib.head + (close < G.ib.cap / 4 ? close : G.ib.cap / 4)) >> G.ib.shift;
		const struct ibchunk *fk = &G.ib.ch[far % nch];

		if (end > clip)
			end = clip;
		/* chunks are given up oldest first and their newest ends grow:
		 * full when that one holds intervals of the span to keep */
		if (far + 1 != G.ib.chunk && fk->n && fk->maxend > G.z.keep)
			G.z.full = true;
		if (end <= G.z.a)
			return;
	}
	if (end <= start)
		return;
	if (row >= 0 && last == &G.m.task[row].last_ival && state == ST_RUNNING)
		aux = G.m.task[row].run_cpu >= 0 ? G.m.task[row].run_cpu : G.m.task[row].cpu;
	if (G.opt.states && !G.z.pass)
		ival_print(last, row, state, aux, start, end);
	if (!G.ib.cap)
		return;
	if (!G.hist.on)
		hist_init();
	if (!G.z.pass)
		hist_ival(last, row, state, aux, start, end);
	p = G.ib.head;
	if (FAST && p + 50 < G.ib.chunk << G.ib.shift)	/* its five varints in the head's chunk: at once */
		b0 = b = G.ib.buf + G.ib.hidx;
	b = ival_var(b, ival_live(*last) ? p - *last : 0);
	k = &G.ib.ch[FAST && b ? G.ib.hidx >> G.ib.shift : (p >> G.ib.shift) % (G.ib.cap >> G.ib.shift)];
	if (!k->n++)
		k->base = k->maxend = end;
	if (end > k->maxend)
		k->maxend = end;
	b = ival_var(b, zz((int64_t)(end - k->base)));
	b = ival_var(b, end - start);
	b = ival_var(b, zz(state) << 1 | (aux == -1));
	if (aux != -1)
		b = ival_var(b, zz(aux));
	if (FAST && b) {
		G.ib.head = p + (b - b0);
		G.ib.hidx += b - b0;
	}
	*last = p;
}

/* Read the varint at index *i of the interval ring, moving *i past it. */
static uint64_t ib_get(uint64_t *i)
{
	uint64_t v = 0;
	unsigned sh = 0;
	uint8_t b;

	do {
		b = G.ib.buf[*i];
		*i = *i + 1 < G.ib.cap ? *i + 1 : 0;
		v |= (uint64_t)(b & 127) << sh;
		sh += 7;
	} while ((b & 128) && sh < 64);
	return v;
}

/* Decode the interval at position p of row into v; false if it was
 * overwritten (or p is NO_IVAL). */
static bool ival_get(uint64_t p, int32_t row, struct ival *v)
{
	uint64_t q, back;

	if (p == NO_IVAL || !ival_live(p))
		return false;
	q = p % G.ib.cap;	/* its first byte's index */
	back = ib_get(&q);
	v->prev = back ? p - back : NO_IVAL;
	v->end = G.ib.ch[(p >> G.ib.shift) % (G.ib.cap >> G.ib.shift)].base + (uint64_t)unzz(ib_get(&q));
	v->start = v->end - ib_get(&q);
	back = ib_get(&q);
	v->state = (int32_t)unzz(back >> 1);
	v->aux = back & 1 ? -1 : (int32_t)unzz(ib_get(&q));
	v->row = row;
	return true;
}

/* Walk a row's intervals newest to oldest, from the one at position p:
 * calls fn for each one that still exists and ends after from (v is
 * fn's only while it runs); stops when fn returns false. */
static void ival_walk(uint64_t p, int32_t row, uint64_t from,
		      bool (*fn)(const struct ival *v, void *arg), void *arg)
{
	struct ival v;

	while (ival_get(p, row, &v) && v.end > from && fn(&v, arg))
		p = v.prev;
}

/* In a pass that has just opened (rd_pass_open) and fresh model tables:
 * start from the last checkpoint whose model knew of nothing after a (none
 * of the intervals it closed ends after a); false if there is none. */
static bool rd_ckpt_restore(uint64_t a)
{
	const struct rckpt *c = NULL;
	struct task *task = G.m.task;
	int32_t *slot = G.m.task_slot;
	uint64_t *told = G.m.told;
	struct victims vic = G.m.vic;
	struct cpu *cpu = G.m.cpu;
	bool *online = G.m.cpu_online;

	for (int i = 0; i < G.rd.nck && G.rd.ck[i].m.last <= a; i++)
		c = &G.rd.ck[i];
	if (!c || c->m.ncpu != G.m.ncpu)
		return false;
	G.m = c->m;
	if (FAST)
		rd_unrec_give();	/* rd_lost_ahead may have found more since */
	G.m.task = task;
	G.m.task_slot = slot;
	G.m.told = told;
	G.m.vic = vic;
	G.m.cpu = cpu;
	G.m.cpu_online = online;
	memcpy(task, c->task, (size_t)G.m.ntask * sizeof(*task));
	memcpy(cpu, c->cpu, (size_t)G.m.ncpu * sizeof(*cpu));
	for (int i = 0; i < G.m.ntask; i++) {	/* the pass's own chains (ival_add) */
		task[i].last_ival = task[i].last_iival = NO_IVAL;
		slot[task[i].tid] = i + 1;
		task_told(i, task[i].state);
	}
	if (G.m.vic.tree)
		vtree_build();
	for (int k = 0; k < G.m.ncpu; k++)
		cpu[k].last_ival = cpu[k].last_cival = cpu[k].last_fival = NO_IVAL;
	rd_seek(G.opt.replay_path, c->from);
	G.rc.skip_off = c->upto;
	G.rc.skip_t = c->skip_t;
	G.rc.tmax = c->tmax;
	G.rc.round_prev = c->round_prev;
	G.rc.round_prev2 = c->round_prev2;
	G.mg.released = c->released;
	for (int i = 0; i < G.mg.nq; i++)
		G.mg.q[i].last = c->qlast[i];
	return true;
}

/*
 * Replay reads its file again for the exact intervals from a time on:
 * the file is the history, the ring of intervals holds its newest part.
 * A child (forked: the model stays as it is) reads the file from the last
 * checkpoint before a (rd_ckpt; else from its start with fresh tables)
 * and keeps the intervals from a on (ival_add, clipped to where the
 * model's open states take over) in the shared ring until it is full
 * (emit then feeds it no more) or it has read to until, closes the open
 * states there (G.ib.ceil), and leaves its rows' chains in struct zheads;
 * rd_history takes them for the rows that hold the same tasks.
 */
struct zheads {
	uint64_t head, chunk, floor, ceil;
	int ntask, done;
	uint64_t cpu[MAX_CPUS][3];			/* last_ival, last_cival, last_fival */
	struct { int32_t tid; uint64_t ival, iival; } task[TC_MAX_TASKS];
};

/* The child's part: read the file from the last checkpoint before a
 * (else from its start) with a fresh model (or the checkpoint's), in
 * steps of step ns from a, until the ring would give up intervals ending
 * after G.z.keep, the model has reached G.z.until, or the data ends;
 * leave the chains in h, exit. */
static void __attribute__((noreturn)) rd_history_child(struct zheads *h, uint64_t step, pid_t parent)
{
	struct rd_pass view = { 0 };
	char msg[160];
	uint64_t lim = G.z.a;
	int ncpu = G.m.ncpu, ret;
	bool *online = G.m.cpu_online;
	struct unrec *unrec = G.m.unrec;	/* the file's, as scanned */
	size_t nunrec = G.m.nunrec;

	term_active = 0;	/* the terminal is the view's: not even die() writes to it */
	if (!child_of(parent, true))
		_exit(1);
	G.z.ptask = G.m.task;
	G.z.pcpu = G.m.cpu;
	G.z.pntask = G.m.ntask;
	memset(&G.m, 0, sizeof(G.m));	/* a model as the view's pass began with */
	G.m.unrec = unrec;
	G.m.nunrec = nunrec;
	G.m.ncpu = ncpu;
	G.m.cpu_online = online;
	model_tables(ncpu, TC_MAX_TASKS);
	model_cover();
	G.ib.floor = 0;
	memset(G.ib.ch, 0, (G.ib.cap >> G.ib.shift) * sizeof(*G.ib.ch));	/* the ring is the child's now */
	G.z.pass = true;
	if (!rd_pass_open(&view, msg, sizeof(msg)))
		_exit(1);
	rd_ckpt_restore(G.z.a);
	while ((ret = rd_run(lim)) == 1 && !G.z.full && G.m.last < G.z.until) {
		lim = lim + step > lim ? lim + step : UINT64_MAX;
		if (lim < G.rc.next_t)
			lim = G.rc.next_t;	/* over time without events at once */
	}
	model_end(ret != 1 && !G.z.full);	/* (-1: a broken record ends the data) */
	h->head = G.ib.head;
	h->chunk = G.ib.chunk;
	h->floor = G.ib.floor;
	h->ceil = G.z.full || ret == 1 ? G.m.last : UINT64_MAX;
	h->ntask = G.m.ntask;
	for (int i = 0; i < G.m.ntask; i++) {
		h->task[i].tid = G.m.task[i].tid;
		h->task[i].ival = G.m.task[i].last_ival;
		h->task[i].iival = G.m.task[i].last_iival;
	}
	for (int c = 0; c < G.m.ncpu; c++) {
		h->cpu[c][0] = G.m.cpu[c].last_ival;
		h->cpu[c][1] = G.m.cpu[c].last_cival;
		h->cpu[c][2] = G.m.cpu[c].last_fival;
	}
	h->done = 1;
	_exit(0);
}

/* Stop the reading child, if one runs; its intervals are not taken. */
static void rd_history_stop(void)
{
	if (G.z.pid > 0) {
		kill(G.z.pid, SIGKILL);
		while (waitpid(G.z.pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	G.z.pid = 0;
}

/*
 * Have the exact intervals read again from the file (a replay read whole,
 * file mode): those from a on, giving up the oldest but never one that
 * ends after keep, in steps of step ns, up to until at least.  The ring is
 * the child's until rd_history_take: the view draws from the summaries
 * meanwhile.  Why not into msg, if no child could start.
 */
static void rd_history(uint64_t a, uint64_t keep, uint64_t until, uint64_t step, char *msg, size_t msz)
{
	pid_t pid, parent = getpid();

	rd_history_stop();
	if (G.rd.pipe || G.rd.fsize == UINT64_MAX) {
		sfmt(msg, msz, "a stream cannot be read again: exact only from the status line's time");
		return;
	}
	if (!G.z.h)
		G.z.h = xshared(sizeof(*G.z.h));
	G.z.h->done = 0;
	G.z.a = a;
	G.z.keep = keep;
	G.z.until = until;
	if ((pid = _Fork()) < 0) {	/* no thread (rd_filler's ended with the first reading),
					 * no atfork handlers: cmd_start */
		sfmt(msg, msz, "cannot read the file again: %s", strerror(errno));
		return;
	}
	if (!pid)
		rd_history_child(G.z.h, step ? step : 1, parent);
	G.z.pid = pid;
	for (int i = 0; i < G.m.ntask; i++)
		G.m.task[i].last_ival = G.m.task[i].last_iival = NO_IVAL;
	for (int c = 0; c < G.m.ncpu; c++)
		G.m.cpu[c].last_ival = G.m.cpu[c].last_cival = G.m.cpu[c].last_fival = NO_IVAL;
	G.ib.floor = UINT64_MAX;	/* no column is drawn from the ring */
	G.ib.ceil = 0;
}

/* Once the reading child has ended, take its intervals for the rows that
 * hold the same tasks (nothing if it failed: why into msg). */
static void rd_history_take(char *msg, size_t msz)
{
	struct zheads *h = G.z.h;

	if (G.z.pid <= 0 || waitpid(G.z.pid, NULL, WNOHANG) == 0)
		return;
	G.z.pid = 0;
	if (!h->done) {	/* nothing of the ring is kept */
		sfmt(msg, msz, "reading %.60s again failed", G.opt.replay_path);
		return;
	}
	for (int i = 0; i < G.m.ntask; i++) {
		bool same = i < h->ntask && h->task[i].tid == G.m.task[i].tid;

		G.m.task[i].last_ival = same ? h->task[i].ival : NO_IVAL;
		G.m.task[i].last_iival = same ? h->task[i].iival : NO_IVAL;
	}
	for (int c = 0; c < G.m.ncpu; c++) {
		G.m.cpu[c].last_ival = h->cpu[c][0];
		G.m.cpu[c].last_cival = h->cpu[c][1];
		G.m.cpu[c].last_fival = h->cpu[c][2];
	}
	G.ib.head = h->head;
	G.ib.hidx = h->head % G.ib.cap;
	G.ib.chunk = h->chunk;
	G.ib.floor = h->floor > G.z.a ? h->floor : G.z.a;
	G.ib.ceil = h->ceil;
}

/* The width of a row's label, left of the timeline columns. */
#define LABEL_W (G.term.cols >= 100 ? 29 : G.term.cols >= 60 ? 24 : 16)

/* Add (overlap of [a, b) with each column) * w to slot. */
static void acc_add(uint64_t a, uint64_t b, int slot, uint64_t w)
{
	uint64_t span = G.v.end - G.v.start;
	int ncol = G.term.cols - LABEL_W;

	if (a < G.v.start)
		a = G.v.start;
	if (a < G.term.acc_lo)
		a = G.term.acc_lo;
	if (b > G.v.end)
		b = G.v.end;
	if (G.term.acc_hi && b > G.term.acc_hi)
		b = G.term.acc_hi;
	if (a >= b || ncol <= 0 || !span)
		return;
	for (int c = (a - G.v.start) * ncol / span; c < ncol; c++) {
		uint64_t c0 = G.v.start + span * c / ncol, c1 = G.v.start + span * (c + 1) / ncol;
		uint64_t lo = a > c0 ? a : c0, hi = b < c1 ? b : c1;
		uint64_t *p = &G.term.acc[c * ACC_N];

		if (c0 >= b)
			break;
		if (hi <= lo)
			continue;
		if (slot == ACC_RCPU) {	/* w: CPU + 1 of a running piece */
			if (hi - lo > p[ACC_RLEN]) {
				p[ACC_RLEN] = hi - lo;
				p[ACC_RCPU] = w;
			}
		} else {
			p[slot] += (hi - lo) * w;
		}
	}
}

static bool acc_task_fn(const struct ival *v, void *arg)
{
	(void)arg;
	acc_add(v->start, v->end, v->state, 1);
	if (v->state == ST_RUNNING && v->aux >= 0)
		acc_add(v->start, v->end, ACC_RCPU, v->aux + 1);
	return true;
}

static bool acc_io_fn(const struct ival *v, void *arg)
{
	(void)arg;
	acc_add(v->start, v->end > v->start ? v->end : v->start + 1,
		ACC_IO + (v->state < N_IO ? io_calls[v->state].kind : IO_READ), 1);
	return true;
}

static bool acc_cpu_fn(const struct ival *v, void *arg)
{
	(void)arg;
	acc_add(v->start, v->end, v->state > 0 ? ST_RUNNING : v->state == 0 ? ST_SLEEPING : ST_UNKNOWN, 1);
	return true;
}

static bool acc_cstate_fn(const struct ival *v, void *arg)
{
	(void)arg;
	acc_add(v->start, v->end, ACC_C0 + (v->state < ACC_NC ? v->state : ACC_NC - 1), 1);
	return true;
}

static bool acc_irq_fn(const struct ival *v, void *arg)
{
	(void)arg;
	acc_add(v->start, v->end, v->state >= 0 ? ACC_IRQ : ACC_SIRQ, 1);
	return true;
}

static bool acc_freq_fn(const struct ival *v, void *arg)
{
	(void)arg;
	acc_add(v->start, v->end, ACC_FSUM, v->state);
	acc_add(v->start, v->end, ACC_FNS, 1);
	return true;
}

/* Row codes of G.v.rowlist: a task slot (>= 0), a CPU, its frequency row,
 * or the one line saying the kernel reports no frequency. */
#define ROW_CPU(c) (-1 - (c))
#define ROW_FREQ(c) (-1 - (c) - MAX_CPUS)
#define ROW_NOFREQ (-1 - 2 * MAX_CPUS)
#define ROW_IS_CPU(r) ((r) < 0 && (r) > -1 - MAX_CPUS)
#define ROW_IS_FREQ(r) ((r) <= -1 - MAX_CPUS && (r) > ROW_NOFREQ)

/* Time of the start of timeline column c. */
static uint64_t col_t(int c)
{
	int ncol = G.term.cols - LABEL_W;

	return ncol > 0 ? G.v.start + (G.v.end - G.v.start) * c / ncol : G.v.start;
}

/* The columns drawn from the exact intervals for history kind k, from
 * the one returned to *end: none when columns are a bucket wide or more
 * (the summaries resolve them, at a cost that does not grow with the
 * events), else those within [G.ib.floor, G.ib.ceil]. */
static int col_exact(int k, int *end)
{
	int ncol = G.term.cols - LABEL_W, c = 0;

	*end = ncol;
	if (ncol > 0 && G.hist.on && (G.v.end - G.v.start) / ncol >= G.hist.hp[k].w)
		return ncol;
	while (c < ncol && col_t(c) < G.ib.floor)
		c++;
	while (*end > c && col_t(*end) > G.ib.ceil)
		(*end)--;
	return c;
}

/*
 * Add the summaries of history kind k, row r (task slot or CPU) to G.term.acc
 * for columns [0, x0) and [x1, ncol): each bucket's share of the column,
 * mapped to the acc slots (map[s] for summary slot s; ACC_RCPU is marked,
 * not added).  Bucket counts are powers of two.
 */
static void hist_fill(int k, int r, int x0, int x1, const int8_t *map)
{
	const struct hpool *h = &G.hist.hp[k];
	int i = hist_block(k, r, false), nb = h->nb, ns = h->nslot;

	for (int c = x0 > 0 ? 0 : x1; i >= 0 && c < G.term.cols - LABEL_W; c = c + 1 == x0 ? x1 : c + 1) {
		uint64_t c0 = col_t(c), c1 = col_t(c + 1), *a = &G.term.acc[c * ACC_N];
		double sum[HC_N] = { 0 }, run = 0, cpu = 0;
		int64_t b0, b1;

		if (c1 <= G.hist.base || c1 <= c0)
			continue;
		if (c0 < G.hist.base)
			c0 = G.hist.base;
		b0 = (c0 - G.hist.base) / h->w;
		b1 = (c1 - 1 - G.hist.base) / h->w;
		if (b0 <= h->hi[i] - nb)
			b0 = h->hi[i] - nb + 1;
		for (int64_t b = b0; b <= b1 && b <= h->hi[i]; b++) {
			const float *f = h->f + ((size_t)i * nb + (b & (nb - 1))) * ns;
			uint64_t lo = G.hist.base + b * h->w, hi = lo + h->w;
			double frac = lo >= c0 && hi <= c1 ? 1 :
				      (double)((c1 < hi ? c1 : hi) - (c0 > lo ? c0 : lo)) / h->w;

			for (int s = 0; s < ns; s++)
				sum[s] += f[s] * frac;
			if (k == HK_TASK && f[HT_CPU] && f[HT_RUN] * frac > run) {
				run = f[HT_RUN] * frac;	/* the CPU of the longest running piece */
				cpu = f[HT_CPU];
			}
		}
		for (int s = 0; s < ns; s++)
			if (map[s] != ACC_RCPU)
				a[map[s]] += sum[s];
		if (run > a[ACC_RLEN]) {
			a[ACC_RLEN] = run;
			a[ACC_RCPU] = cpu;
		}
	}
}

/* Count as unknown what a row has no record of within [from, to):
 * columns whose states add up to less than the time they overlap it. */
static void acc_unknown(uint64_t from, uint64_t to)
{
	int ncol = G.term.cols - LABEL_W;

	for (int c = 0; c < ncol; c++) {
		uint64_t c0 = col_t(c), c1 = col_t(c + 1), known = 0, *a = &G.term.acc[c * ACC_N];

		c0 = c0 > from ? c0 : from;
		c1 = c1 < to ? c1 : to;
		if (c1 <= c0)
			continue;
		for (int s = 0; s < ST_N; s++)
			known += a[s];
		if (known + (c1 - c0) / 64 < c1 - c0)
			a[ST_UNKNOWN] += c1 - c0 - known;
	}
}

/* Fill G.term.acc for row over the view: the summaries left of the exact
 * intervals' reach, the intervals from there, the open states, and unknown
 * where nothing is known within the row's life. */
static void acc_row(int row)
{
	static const int8_t task_map[HT_N] = { ST_RUNNING, ST_RUNNABLE, ST_SLEEPING, ST_BLOCKED, ST_IO, ACC_RCPU };
	static const int8_t io_map[IO_NKIND] = { ACC_IO, ACC_IO + 1, ACC_IO + 2, ACC_IO + 3 };
	static const int8_t cpu_map[4] = { ST_RUNNING, ST_SLEEPING, ACC_IRQ, ACC_SIRQ }, freq_map[2] = { ACC_FSUM, ACC_FNS };
	static const int8_t cs_map[HC_N] = { ACC_C0, ACC_C0 + 1, ACC_C0 + 2, ACC_C0 + 3, ACC_C0 + 4,
					     ACC_C0 + 5, ACC_C0 + 6, ACC_C0 + 7, ACC_C0 + 8, ACC_C0 + 9 };
	int xe, xc = col_exact(row >= 0 ? HK_TASK : HK_CPU, &xe);

	memset(G.term.acc, 0, sizeof(uint64_t) * G.term.cols * ACC_N);
	G.term.acc_lo = col_t(xc);
	G.term.acc_hi = col_t(xe);
	if (row >= 0) {
		const struct task *t = &G.m.task[row];

		hist_fill(HK_TASK, row, xc, xe, task_map);
		hist_fill(HK_IO, row, xc, xe, io_map);
		ival_walk(t->last_ival, row, G.term.acc_lo, acc_task_fn, NULL);
		ival_walk(t->last_iival, row, G.term.acc_lo, acc_io_fn, NULL);
		G.term.acc_lo = G.term.acc_hi = 0;
		if (t->state != ST_DEAD)
			acc_add(t->since, G.v.now, t->state, 1);
		if (t->state == ST_RUNNING && t->cpu >= 0)
			acc_add(t->since, G.v.now, ACC_RCPU, t->cpu + 1);
		if (t->in_io)
			acc_add(t->io_start, G.v.now, ACC_IO + io_calls[t->io_call].kind, 1);
		acc_unknown(t->first_seen, t->state == ST_DEAD ? t->since : G.v.now);
	} else if (ROW_IS_CPU(row)) {
		const struct cpu *p = &G.m.cpu[-1 - row];

		hist_fill(HK_CPU, -1 - row, xc, xe, cpu_map);
		if (p->last_cival != NO_IVAL)
			hist_fill(HK_CSTATE, -1 - row, xc, xe, cs_map);
		ival_walk(p->last_ival, row, G.term.acc_lo, acc_cpu_fn, NULL);
		ival_walk(p->last_cival, row, G.term.acc_lo, acc_cstate_fn, NULL);
		ival_walk(p->last_qival, row, G.term.acc_lo, acc_irq_fn, NULL);
		G.term.acc_lo = G.term.acc_hi = 0;
		if (p->cur >= 0)
			acc_add(p->since, G.v.now, p->cur > 0 ? ST_RUNNING : ST_SLEEPING, 1);
		if (p->sirq >= 0)
			acc_add(p->sirq_since, G.v.now, ACC_SIRQ, 1);
		if (p->hirq >= 0)
			acc_add(p->hirq_since, G.v.now, ACC_IRQ, 1);
		if (p->cstate >= 0)
			acc_add(p->cstate_since, G.v.now, ACC_C0 + (p->cstate < ACC_NC ? p->cstate : ACC_NC - 1), 1);
		if (p->seen && !G.opt.power_only)
			acc_unknown(G.m.first, G.v.now);
	} else if (ROW_IS_FREQ(row)) {
		int c = -1 - row - MAX_CPUS;
		const struct cpu *p = &G.m.cpu[c];

		hist_fill(HK_FREQ, c, xc, xe, freq_map);
		ival_walk(p->last_fival, ROW_CPU(c), G.term.acc_lo, acc_freq_fn, NULL);
		G.term.acc_lo = G.term.acc_hi = 0;
		if (p->freq >= 0) {
			acc_add(p->freq_since, G.v.now, ACC_FSUM, p->freq);
			acc_add(p->freq_since, G.v.now, ACC_FNS, 1);
		}
	}
	G.term.acc_lo = G.term.acc_hi = 0;
}

/* ---------------------------------------------------------------- drawing */

/*
 * A frame is drawn into G.term.scr by draw_frame() from the model and the view
 * state only, then draw_diff() writes the cells that differ from G.term.scr_prev
 * (what the terminal shows) as one buffer: an unchanged frame writes
 * nothing.
 *
 *   row 0         status line
 *   row 1         time axis (the mark as an M)
 *   row 2         the legend, when there is room
 *   rows 2 or 3.. CPU rows (and their frequency rows), then task rows
 *   last row      details of the selected row at the cursor
 *
 * A timeline cell covers span/ncol of time; it shows the share of each
 * state within that span: the height of an eighth block for running (or
 * busy), the background colour for the largest other state.
 */

/* Put character ch at (r, c) with colours. */
static void draw_put(int r, int c, uint16_t ch, int fg, int bg, int attr)
{
	struct cell *p;

	if (r < 0 || r >= G.term.rows || c < 0 || c >= G.term.cols)
		return;
	p = &G.term.scr[r * G.term.cols + c];
	p->ch = ch;
	p->fg = fg < 0 ? 0 : fg + 1;
	p->bg = bg < 0 ? 0 : bg + 1;
	p->attr = attr;
}

/* Put string s at (r, c), at most w columns; bytes that are not printable
 * ASCII show as '?' (task names are untrusted).  Returns columns used. */
static int draw_str(int r, int c, int w, const char *s, int fg, int bg, int attr)
{
	int i;

	for (i = 0; i < w && s[i]; i++) {
		unsigned char ch = s[i];

		draw_put(r, c + i, ch >= 0x20 && ch < 0x7f ? ch : '?', fg, bg, attr);
	}
	return i;
}

/* printf into row r from column c, at most w columns; how many it took.
 * Text that does not fit (trailing blanks aside) ends at a word with '>'
 * in the last column, so that no name or number is shown cut short (all
 * w columns are then taken). */
static int __attribute__((format(printf, 6, 7)))
draw_fmt(int r, int c, int w, int fg, int attr, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int len, cut;

	va_start(ap, fmt);
	vsfmt(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (len = (int)strlen(buf); len > w && len > 0 && buf[len - 1] == ' '; len--)
		buf[len - 1] = 0;
	if (len <= w || w < 8)
		return draw_str(r, c, w, buf, fg, -1, attr);
	for (cut = w - 1; cut > w / 2 && buf[cut] != ' '; cut--)
		;
	if (cut <= w / 2)	/* one long word: cut it */
		cut = w - 1;
	buf[cut] = 0;
	for (int i = draw_str(r, c, cut, buf, fg, -1, attr); i < w - 1; i++)
		draw_put(r, c + i, ' ', fg, -1, attr);
	draw_put(r, c + w - 1, '>', fg, -1, attr | CA_BOLD);
	return w;
}

/* A duration in ns as short text: "1.50s", "120ms", "35us", "800ns" (a
 * unit up from 999.5 of one, never "1e+03ms"; "10.0s" from 9.995 s). */
static void fmt_dur(char *out, size_t n, uint64_t ns)
{
	if (ns >= 9995000000ULL)
		sfmt(out, n, "%.1fs", ns / 1e9);
	else if (ns >= 999500000)
		sfmt(out, n, "%.2fs", ns / 1e9);
	else if (ns >= 999500)
		sfmt(out, n, "%.3gms", ns / 1e6);
	else if (ns >= 1000)
		sfmt(out, n, "%.3gus", ns / 1e3);
	else
		sfmt(out, n, "%" PRIu64 "ns", ns);
}

/*
 * Draw the timeline cells of a row from G.term.acc.  Tasks: block height is the
 * running share; the background the largest other state, I/O first.  CPUs:
 * height is the busy share; idle shows its deepest-held idle state (a digit
 * in --ascii).  Frequency rows: height is the mean frequency over the
 * highest seen.
 */
static void draw_cells(int r, int row)
{
	int ncol = G.term.cols - LABEL_W;
	uint64_t span = G.v.end - G.v.start;
	int cur_col = span && G.v.cursor >= G.v.start && G.v.cursor <= G.v.end ?
		      (int)((G.v.cursor - G.v.start) * ncol / span) : -1;
	int mark_col = span && G.v.has_mark && G.v.mark >= G.v.start && G.v.mark <= G.v.end ?
		       (int)((G.v.mark - G.v.start) * ncol / span) : -1;
	bool cpu = ROW_IS_CPU(row), freq = ROW_IS_FREQ(row);

	for (int c = 0; c < ncol; c++) {
		const uint64_t *a = &G.term.acc[c * ACC_N];
		uint64_t cw = span * (c + 1) / ncol - span * c / ncol, best = 0, run = a[ST_RUNNING];
		uint64_t best_cs = 0, idle_cs = 0, best_io = 0;
		int other = -1, eighths, fg = -1, bg = -1, cs = -1, io = IO_READ;
		uint16_t ch;
		bool irq;

		if (!cw)
			cw = 1;
		if (freq) {
			run = a[ACC_FNS] && G.m.freq_max ? a[ACC_FSUM] / a[ACC_FNS] * cw / G.m.freq_max : 0;
			fg = COL_FREQ;
		}
		for (int s = 0; s < ST_N; s++)
			if (s != ST_RUNNING && a[s] > best && (s != ST_SLEEPING || cpu)) {
				best = a[s];
				other = s;
			}
		for (int k = 0; !cpu && k < IO_NKIND && run < cw; k++)
			if (a[ACC_IO + k] > best_io) {	/* any I/O shows, by its main kind */
				best_io = a[ACC_IO + k];
				other = ST_IO;
				io = k;
			}
		for (int k = 0; cpu && k < ACC_NC; k++) {
			if (a[ACC_C0 + k] > best_cs) {
				best_cs = a[ACC_C0 + k];
				cs = k;
			}
			idle_cs += a[ACC_C0 + k];
		}
		if (cpu && !run && !a[ST_SLEEPING] && idle_cs) {
			/* no switches (-P): busy is whatever is not in an idle state */
			run = idle_cs < cw ? cw - idle_cs : 0;
			other = ST_SLEEPING;
		}
		irq = cpu && (a[ACC_IRQ] + a[ACC_SIRQ]) * 8 >= cw;	/* an eighth or more in interrupts */
		if (irq && run < a[ACC_IRQ] + a[ACC_SIRQ])
			run = a[ACC_IRQ] + a[ACC_SIRQ];
		eighths = run ? (int)((run * 8 + cw - 1) / cw) : 0;
		if (eighths > 8)
			eighths = 8;
		if (G.term.ncolor) {
			if (!freq)
				fg = !cpu && G.v.cpucol && a[ACC_RCPU] ? COL_CPU0 + (int)(a[ACC_RCPU] - 1) % 6 :
				     irq ? COL_IRQ : COL_RUN;
			if (other >= 0)
				bg = cpu && other == ST_SLEEPING ? (cs >= 2 ? COL_IDLE_DEEP : COL_IDLE) :
				     other == ST_IO ? io_col[io] : st_col[other];
			if (bg == COL_SLEEP)
				bg = -1;
		}
		if (G.term.utf8) {
			ch = eighths ? 0x2580 + eighths : ' ';	/* U+2581..2588 */
			if (eighths == 0 && !G.term.ncolor && other >= 0)
				ch = other == ST_UNKNOWN ? 0xb7 : other == ST_RUNNABLE ? 0x2591 :
				     other == ST_BLOCKED ? 0x2593 : other == ST_IO ? 0x2592 :
				     cpu && cs >= 0 ? '0' + cs : ' ';
		} else {	/* ASCII: # half or more running, + more than an eighth; less
				 * shows the state the cell holds most, or '.' (an idle
				 * CPU, a sleeping task are not drawn '+') */
			int shown = other >= 0 && eighths == 1 ? 0 : eighths;

			ch = shown >= 4 ? '#' : shown > 1 ? '+' : shown ? '.' : other == ST_IO ? (uint16_t)io_ascii[io] :
			     other >= 0 ? (uint16_t)st_ascii[other] : ' ';
			if (cpu && other == ST_SLEEPING && !shown)
				ch = cs >= 0 ? '0' + cs : '_';
		}
		if (G.term.ncolor == 16 && cpu && other == ST_SLEEPING && !eighths && cs >= 0)
			ch = '0' + cs;	/* idle depth as a digit on cyan */
		if (other == ST_UNKNOWN && !eighths) {	/* no record: hatched, never blank */
			ch = G.term.utf8 ? 0x2571 : '/';
			fg = COL_UNKNOWN;
			bg = -1;
		}
		if (!cpu && !freq && G.v.cpucol && !G.term.ncolor && eighths && a[ACC_RCPU])
			ch = '0' + (a[ACC_RCPU] - 1) % 10;
		if (irq && (!G.term.utf8 || !G.term.ncolor))
			ch = '!';
		if (c == mark_col && c != cur_col)
			bg = COL_AXIS;
		if (c == cur_col)
			bg = COL_CURSOR;
		draw_put(r, LABEL_W + c, ch, fg, bg, c == cur_col && !G.term.ncolor ? CA_REVERSE : 0);
	}
}

/* Order of task rows (the 's' key). */
enum { ORD_RUN, ORD_TID, ORD_NAME, ORD_FIRST, ORD_N };
static const char *const ord_names[ORD_N] = { "run time", "tid", "name", "first seen" };

static int row_cmp(const void *pa, const void *pb)
{
	const struct task *a = &G.m.task[*(const int *)pa], *b = &G.m.task[*(const int *)pb];
	int d = G.v.rowbusy[b - G.m.task] - G.v.rowbusy[a - G.m.task];	/* busy in the span first */

	if (d)
		return d;
	switch (G.v.order) {
	case ORD_RUN:
		d = (a->total[ST_RUNNING] < b->total[ST_RUNNING]) - (a->total[ST_RUNNING] > b->total[ST_RUNNING]);
		break;
	case ORD_NAME:
		d = strcmp(a->comm, b->comm);
		break;
	case ORD_FIRST:
		d = (a->first_seen > b->first_seen) - (a->first_seen < b->first_seen);
		break;
	}
	return d ? d : (a->tid > b->tid) - (a->tid < b->tid);
}

/* Did task slot row run, wait, block or do I/O in the view's span? */
static bool row_busy(int row)
{
	int ncol = G.term.cols - LABEL_W;

	acc_row(row);
	for (int c = 0; c < ncol; c++) {
		const uint64_t *a = &G.term.acc[c * ACC_N];

		if (a[ST_RUNNING] || a[ST_RUNNABLE] || a[ST_BLOCKED] || a[ST_IO] ||
		    a[ACC_IO] || a[ACC_IO + 1] || a[ACC_IO + 2] || a[ACC_IO + 3])
			return true;
	}
	return false;
}

/*
 * The rows of the view in order: CPUs, each with its frequency row where
 * the kernel reports one (with -P, one line says when none does), then the
 * tasks seen in the view's span: those that did something in it first (on
 * a small terminal the screen is theirs), each part in the chosen order.
 * Fills G.v.rowlist, G.v.nrowlist.
 */
static void rows_build(void)
{
	int n = 0, first_task;

	bool any_freq = false;

	for (int c = 0; c < G.m.ncpu && n < G.v.rowlist_cap - 1; c++) {
		bool freq = G.m.cpu[c].freq >= 0 || G.m.cpu[c].last_fival != NO_IVAL;

		if (!filter_cpu(c) || (!G.m.cpu[c].seen && G.m.cpu[c].last_ival == NO_IVAL && !freq &&
				       G.m.cpu[c].cstate < 0 && G.m.cpu[c].last_cival == NO_IVAL))
			continue;
		G.v.rowlist[n++] = ROW_CPU(c);
		if (freq)
			G.v.rowlist[n++] = ROW_FREQ(c);
		any_freq |= freq;
	}
	if (G.opt.power_only && !any_freq && n < G.v.rowlist_cap)
		G.v.rowlist[n++] = ROW_NOFREQ;
	first_task = n;
	for (int i = 0; i < G.m.ntask && n < G.v.rowlist_cap; i++) {
		const struct task *t = &G.m.task[i];

		if (G.opt.power_only || !filter_task(t))
			continue;
		if (t->tid != G.v.sel_key &&	/* the selection stays on pan and zoom */
		    ((t->last_seen < G.v.start && t->state != ST_RUNNING && t->state != ST_RUNNABLE) ||
		     (t->state == ST_DEAD && t->last_seen < G.v.start)))
			continue;
		G.v.rowbusy[i] = row_busy(i);
		if (!G.v.hide || G.v.rowbusy[i] || t->tid == G.v.sel_key)
			G.v.rowlist[n++] = i;
	}
	sort(G.v.rowlist + first_task, n - first_task, sizeof(int), row_cmp);
	G.v.nrowlist = n;
}

/* The view's row list, for ntask task slots and the CPUs (start-up). */
static void rows_alloc(int ntask)
{
	G.v.rowlist_cap = 2 * G.m.ncpu + ntask;
	G.v.rowlist = xcalloc(G.v.rowlist_cap, sizeof(int));
	G.v.rowbusy = xcalloc(ntask, 1);
}

/* The key of row index i of G.v.rowlist: tid for tasks, the row code else. */
static int row_key(int i)
{
	int row = G.v.rowlist[i];

	return row >= 0 ? G.m.task[row].tid : row - 1000000;
}

/* Index in G.v.rowlist of the row with key, or -1. */
static int row_find(int key)
{
	for (int i = 0; i < G.v.nrowlist; i++)
		if (row_key(i) == key)
			return i;
	return -1;
}

/* The interval of a task row that contains time t (or the current state). */
struct at { struct ival v; bool found; uint64_t t; };

static bool at_fn(const struct ival *v, void *arg)
{
	struct at *a = arg;

	if (v->start <= a->t && a->t < v->end) {
		a->v = *v;
		a->found = true;
		return false;
	}
	return v->start > a->t;
}

/* State of task slot row at time t: fills state, start, end (end 0: open),
 * aux.  False if unknown there. */
static bool task_at(int row, uint64_t t, int *state, uint64_t *start, uint64_t *end, int *aux)
{
	const struct task *tk = &G.m.task[row];
	struct at a = { .t = t };

	if (t >= tk->since && tk->state != ST_DEAD) {
		*state = tk->state;
		*start = tk->since;
		*end = 0;
		*aux = tk->state == ST_RUNNABLE ? tk->waker : tk->state == ST_RUNNING ? tk->cpu :
		       tk->state == ST_UNKNOWN ? tk->unk_aux : -1;
		return true;
	}
	ival_walk(tk->last_ival, row, t, at_fn, &a);
	if (!a.found)
		return false;
	*state = a.v.state;
	*start = a.v.start;
	*end = a.v.end;
	*aux = a.v.aux;
	return true;
}

/* The interval of the chain from position p (row) holding time t, in *v;
 * false if none. */
static bool chain_at(uint64_t p, int row, uint64_t t, struct ival *v)
{
	struct at a = { .t = t };

	ival_walk(p, row, t, at_fn, &a);
	*v = a.v;
	return a.found;
}

/* What CPU c ran at time t: the tid, 0 idle, -1 unknown; fills start and
 * end (0: still) when known.  The last answers are kept until an
 * interval is added: the labels ask every frame. */
static int cpu_at(int c, uint64_t t, uint64_t *start, uint64_t *end)
{
	static struct { int c, tid; uint64_t t, start, end, head; } memo[16];
	const struct cpu *p = &G.m.cpu[c];
	struct ival v;
	int m = c & 15;

	if (p->cur >= 0 && t >= p->since) {
		*start = p->since;
		*end = 0;
		return p->cur;
	}
	if (memo[m].c != c || memo[m].t != t || memo[m].head != G.ib.head + 1) {
		bool k = chain_at(p->last_ival, ROW_CPU(c), t, &v);

		memo[m].c = c;
		memo[m].t = t;
		memo[m].head = G.ib.head + 1;
		memo[m].tid = k ? v.state : -1;
		memo[m].start = k ? v.start : 0;
		memo[m].end = k ? v.end : 0;
	}
	*start = memo[m].start;
	*end = memo[m].end;
	return memo[m].tid;
}

/* Why nothing is known of a row at time t, for the readouts. */
static const char *why_unknown(uint64_t t)
{
	if (G.z.pid > 0)
		return "the file is being read again for exact intervals";
	if (t < G.ib.floor)
		return "older than the exact history kept (see the cell's shares)";
	if (t > G.ib.ceil)
		return "past the exact span read again (see the cell's shares)";
	if (t < G.m.first || t > G.v.now)
		return "outside the events";
	return "no events tell (lost, paused, or not yet seen)";
}

/* Name of task tid for the details line. */
static const char *task_comm(int tid)
{
	const struct task *t = tid > 0 ? task_find(tid) : NULL;

	return t ? t->comm : tid == 0 ? "idle" : "?";
}

/* d ns as seconds with the decimals a step of step ns needs ("1.2320s"
 * for a 100 us step). */
static void fmt_secs(char *out, size_t n, uint64_t d, uint64_t step)
{
	int dec = 0;
	uint64_t u, div = 1;

	for (u = NS_PER_SEC; u > step && u > 1; u /= 10)
		dec++;
	for (int i = dec; i < 9; i++)
		div *= 10;
	if (dec)
		sfmt(out, n, "%" PRIu64 ".%0*" PRIu64 "s", (uint64_t)(d / NS_PER_SEC), dec & 15,
		     (uint64_t)(d % NS_PER_SEC / div));
	else
		sfmt(out, n, "%" PRIu64 "s", (uint64_t)(d / NS_PER_SEC));
}

/* The time the view's seconds count from (the cursor, the axis): the
 * first event; before it, the window's start, not the clock's zero. */
static uint64_t view_base(void)
{
	return G.m.first ? G.m.first : G.v.start;
}

/* Time t as seconds from the first event (view_base), with the digits a
 * one-column step of the view needs. */
static void fmt_at(char *out, size_t n, uint64_t t)
{
	int ncol = G.term.cols - LABEL_W > 0 ? G.term.cols - LABEL_W : 1;

	fmt_secs(out, n, t > view_base() ? t - view_base() : 0, (G.v.end - G.v.start) / ncol);
}

/* The shares of the states in the cursor's column of row (from G.term.acc
 * after acc_row), as "running 40% sleeping 60%". */
static int draw_shares(int r, int c, int row)
{
	int ncol = G.term.cols - LABEL_W, col, n = 0;
	uint64_t tot = 0, *a;

	if (ncol <= 0 || G.v.cursor < G.v.start || G.v.cursor >= G.v.end)
		return 0;
	col = (G.v.cursor - G.v.start) * ncol / (G.v.end - G.v.start);
	acc_row(row);
	a = &G.term.acc[col * ACC_N];
	for (int s = 0; s < ST_N; s++)
		tot += a[s];
	for (int s = 0; s < ST_N && tot; s++)
		if (a[s] * 100 / tot)
			n += draw_fmt(r, c + n, G.term.cols - c - n, -1, 0, "%s%s %d%%", n ? " " : "; this cell: ",
				      row < 0 && s == ST_SLEEPING ? "idle" : row < 0 && s == ST_RUNNING ? "busy" : st_names[s],
				      (int)(a[s] * 100 / tot));
	if (row < 0 && tot && (a[ACC_IRQ] || a[ACC_SIRQ]))
		n += draw_fmt(r, c + n, G.term.cols - c - n, -1, 0, " (hardirq %d%% softirq %d%%)",
			      (int)(a[ACC_IRQ] * 100 / tot), (int)(a[ACC_SIRQ] * 100 / tot));
	return n;
}

/* The task's run share and longest wait over the view's span. */
struct vsum { uint64_t wait; };

static bool vsum_fn(const struct ival *v, void *arg)
{
	struct vsum *x = arg;
	uint64_t a = v->start > G.v.start ? v->start : G.v.start, b = v->end < G.v.end ? v->end : G.v.end;

	if (v->state == ST_RUNNABLE && b > a && b - a > x->wait)
		x->wait = b - a;
	return v->end > G.v.start;
}

static int draw_view_sums(int r, int c, int row)
{
	const struct task *t = &G.m.task[row];
	struct vsum x = { 0 };
	uint64_t run = 0;
	int ncol = G.term.cols - LABEL_W;
	char w[32];

	acc_row(row);
	for (int i = 0; i < ncol; i++)
		run += G.term.acc[i * ACC_N + ST_RUNNING];
	ival_walk(t->last_ival, row, G.v.start, vsum_fn, &x);
	if (t->state == ST_RUNNABLE && G.v.now > t->since)
		x.wait = G.v.now - t->since > x.wait ? G.v.now - t->since : x.wait;
	fmt_dur(w, sizeof(w), x.wait);
	return draw_fmt(r, c, G.term.cols - c, -1, 0, " [view: ran %d%%, longest wait %s]",
			(int)(run * 100 / (G.v.end - G.v.start + 1)), w);
}

/* The readout of a runnable state [start, end) (end 0: still) of task
 * slot row, woken by aux (-1: preempted): the waker, and the idle state
 * of the CPU it then ran on (still waiting: its CPU) at the wakeup. */
static int draw_task_woken(int r, int c, int row, int aux, uint64_t start, uint64_t end)
{
	const struct task *t = &G.m.task[row];
	struct ival run;
	bool ran = end && chain_at(t->last_ival, row, end, &run);
	int cpu = !end ? t->cpu : ran && run.state == ST_RUNNING ? run.aux : -1, cs, n;
	char idle[64];

	if (aux == -1)
		return draw_str(r, c, G.term.cols - c, ", preempted", -1, -1, 0);
	n = draw_fmt(r, c, G.term.cols - c, -1, 0, ", woken by %s", aux == WAKER_IRQ ? "an interrupt" : task_comm(aux));
	if ((cs = lat_cstate_at(cpu, start)) >= 0) {
		lat_cidle_text(idle, sizeof(idle), cpu, cs);
		n += draw_fmt(r, c + n, G.term.cols - c - n, -1, 0, " (cpu%d in %s)", cpu, idle);
	}
	return n;
}

/* The distribution of task t's runnable waits (all of them so far, from
 * its log2 buckets): "; waits p50 .. p99 .. max ..". */
static int draw_task_waits(int r, int c, const struct task *t)
{
	char p50[32], p99[32], max[32];

	fmt_dur(p50, sizeof(p50), lat_pct(t, 50));
	fmt_dur(p99, sizeof(p99), lat_pct(t, 99));
	fmt_dur(max, sizeof(max), t->lat_max);
	return draw_fmt(r, c, G.term.cols - c, -1, 0, "; %u waits p50 %s p99 %s max %s", t->lat_n, p50, p99, max);
}

/* The details line of task slot row at the cursor: its state, the CPU it
 * ran on, its waker, I/O call, and sums over the view. */
static void draw_task_details(int r, int row)
{
	const struct task *t = &G.m.task[row];
	char d1[64], d2[32];
	int st, aux, c;
	uint64_t start, end;
	struct ival io;

	fmt_at(d1, sizeof(d1), G.v.cursor);
	c = draw_fmt(r, 0, G.term.cols, -1, 0, "%d %s at %s: ", t->tid, t->comm, d1);
	if (!task_at(row, G.v.cursor, &st, &start, &end, &aux)) {
		fmt_secs(d1, sizeof(d1), (t->state == ST_DEAD ? t->since : t->first_seen) - G.m.first, 1000);	/* to the us */
		if (t->state == ST_DEAD && G.v.cursor >= t->since)
			c += draw_fmt(r, c, G.term.cols - c, -1, 0, "gone: exited at %s", d1);
		else if (G.v.cursor < t->first_seen)
			c += draw_fmt(r, c, G.term.cols - c, -1, 0, "unknown: no event of it before %s", d1);
		else
			c += draw_fmt(r, c, G.term.cols - c, -1, 0, "unknown: %s", why_unknown(G.v.cursor));
		c += draw_shares(r, c, row);
		draw_view_sums(r, c, row);
		return;
	}
	fmt_dur(d2, sizeof(d2), (end ? end : G.v.now) - start);
	fmt_at(d1, sizeof(d1), start);
	c += draw_fmt(r, c, G.term.cols - c, -1, 0, "%s", st_names[st]);
	if (st == ST_RUNNING && aux >= 0)
		c += draw_fmt(r, c, G.term.cols - c, -1, 0, " on cpu%d", aux);
	c += draw_fmt(r, c, G.term.cols - c, -1, 0, " since %s for %s%s", d1, d2, end ? "" : " (still)");
	if (st == ST_UNKNOWN) {
		unk_text(aux, false, d1, sizeof(d1));
		c += draw_fmt(r, c, G.term.cols - c, -1, 0, ": %s", d1);
	}
	if (st == ST_RUNNABLE)
		c += draw_task_woken(r, c, row, aux, start, end);
	if (t->in_io && G.v.cursor >= t->io_start) {	/* an I/O call at the cursor */
		fmt_dur(d2, sizeof(d2), G.v.now - t->io_start);
		c += draw_fmt(r, c, G.term.cols - c, -1, 0, "; in %s() (%s) for %s", io_calls[t->io_call].name,
			      io_kind_names[io_calls[t->io_call].kind], d2);
	}
	if (chain_at(t->last_iival, row, G.v.cursor, &io) && io.state < N_IO)
		c += draw_fmt(r, c, G.term.cols - c, -1, 0, "; %s() (%s) returned %d", io_calls[io.state].name,
			      io_kind_names[io_calls[io.state].kind], io.aux);
	c += draw_view_sums(r, c, row);
	if (t->lat_n)
		c += draw_task_waits(r, c, t);
	if (st != ST_RUNNING && t->cpu >= 0)
		draw_fmt(r, c, G.term.cols - c, -1, 0, "; last on cpu%d", t->cpu);
}

/* The interrupt CPU c was in at the cursor (-Q), for its details line. */
static int draw_cpu_irq(int r, int n, int c)
{
	const struct cpu *p = &G.m.cpu[c];
	struct ival v = { .state = INT32_MIN, .aux = -1 };
	char name[COMM_LEN], at[32], len[32];

	if (p->hirq >= 0 && G.v.cursor >= p->hirq_since)
		v = (struct ival){ .start = p->hirq_since, .state = p->hirq };
	else if (p->sirq >= 0 && G.v.cursor >= p->sirq_since)
		v = (struct ival){ .start = p->sirq_since, .state = -1 - p->sirq };
	else if (!chain_at(p->last_qival, ROW_CPU(c), G.v.cursor, &v))
		return 0;
	irq_name(c, v.state, name, sizeof(name));
	fmt_at(at, sizeof(at), v.start);
	fmt_dur(len, sizeof(len), (v.end ? v.end : G.v.now) - v.start);
	return draw_fmt(r, n, G.term.cols - n, -1, CA_BOLD, "; in %s %d %s since %s for %s",
			v.state < 0 ? "softirq" : "irq", v.state < 0 ? -1 - v.state : v.state, name, at, len);
}

/* The details line of CPU c at the cursor: who ran, idle state, frequency. */
static void draw_cpu_details(int r, int c)
{
	const struct cpu *p = &G.m.cpu[c];
	struct ival v;
	char d1[32], d2[64];
	uint64_t start, end;
	int tid = cpu_at(c, G.v.cursor, &start, &end), n;

	fmt_at(d1, sizeof(d1), G.v.cursor);
	n = draw_fmt(r, 0, G.term.cols, -1, 0, "cpu%d at %s: ", c, d1);
	if (tid < 0) {
		fmt_secs(d1, sizeof(d1), p->first - G.m.first, 1000);	/* to the us */
		if (!p->traced && p->sideband)
			unk_text(UNK_AUX(UNK_UNTRACED, 0), false, d2, sizeof(d2));
		else if (!p->traced)
			sfmt(d2, sizeof(d2), "no record of it yet");
		else if (G.v.cursor < p->first)
			sfmt(d2, sizeof(d2), "no record of it before %s", d1);
		else if (p->cur < 0 && p->since && G.v.cursor >= p->since)
			unk_text(p->unk_aux, false, d2, sizeof(d2));
		else if (chain_at(p->last_ival, ROW_CPU(c), G.v.cursor, &v) && v.state < 0)
			unk_text(v.aux, false, d2, sizeof(d2));
		else
			sfmt(d2, sizeof(d2), "%s", why_unknown(G.v.cursor));
		n += draw_fmt(r, n, G.term.cols - n, -1, 0, "unknown: %s", d2);
		draw_shares(r, n, ROW_CPU(c));
		return;
	}
	fmt_at(d1, sizeof(d1), start);
	fmt_dur(d2, sizeof(d2), (end ? end : G.v.now) - start);
	if (tid > 0)
		n += draw_fmt(r, n, G.term.cols - n, -1, 0, "running %s (%d)", task_comm(tid), tid);
	else
		n += draw_str(r, n, G.term.cols - n, "idle", -1, -1, 0);
	n += draw_fmt(r, n, G.term.cols - n, -1, 0, " since %s for %s%s", d1, d2, end ? "" : " (still)");
	if (p->cstate >= 0 && G.v.cursor >= p->cstate_since)
		n += draw_fmt(r, n, G.term.cols - n, -1, 0, ", idle state %" PRId64, p->cstate);
	else if (chain_at(p->last_cival, ROW_CPU(c), G.v.cursor, &v))
		n += draw_fmt(r, n, G.term.cols - n, -1, 0, ", idle state %d", v.state);
	if (p->freq >= 0 && G.v.cursor >= p->freq_since)
		n += draw_fmt(r, n, G.term.cols - n, -1, 0, ", %" PRId64 " MHz", p->freq / 1000);
	else if (chain_at(p->last_fival, ROW_CPU(c), G.v.cursor, &v))
		n += draw_fmt(r, n, G.term.cols - n, -1, 0, ", %d MHz", v.state / 1000);
	n += draw_cpu_irq(r, n, c);
	draw_shares(r, n, ROW_CPU(c));
}

/* The details line: the selected row at the cursor (or a message, or the
 * search prompt). */
static void draw_details(int r)
{
	int row;

	if (G.v.search) {
		draw_fmt(r, 0, G.term.cols, -1, CA_BOLD, "find task (name or pid): %s_", G.v.query);
		return;
	}
	if (G.v.msg[0]) {
		draw_fmt(r, 0, G.term.cols, -1, CA_BOLD, "%s", G.v.msg);
		return;
	}
	if (G.opt.nfilt && !G.opt.power_only && (!G.v.nrowlist || G.v.rowlist[G.v.nrowlist - 1] < 0)) {
		draw_fmt(r, 0, G.term.cols, -1, CA_BOLD, "no task %s -p %s%s", G.opt.live ? "matches yet" : "matches",
			 G.opt.filt[0], G.opt.nfilt > 1 ? " or the other -p" : "");
		return;
	}
	if (G.v.sel < 0 || G.v.sel >= G.v.nrowlist)
		return;
	row = G.v.rowlist[G.v.sel];
	if (row >= 0) {
		draw_task_details(r, row);
	} else if (ROW_IS_CPU(row)) {
		draw_cpu_details(r, -1 - row);
	} else if (ROW_IS_FREQ(row)) {
		const struct cpu *p = &G.m.cpu[-1 - row - MAX_CPUS];

		draw_fmt(r, 0, G.term.cols, -1, 0, "cpu%d frequency: %" PRId64 " MHz now, highest seen %" PRId64 " MHz",
			 -1 - row - MAX_CPUS, p->freq >= 0 ? p->freq / 1000 : 0, G.m.freq_max / 1000);
	} else {
		draw_str(r, 0, G.term.cols, "no cpu_frequency events: this kernel has no cpufreq driver (common in VMs)",
			 -1, -1, 0);
	}
}

/* The time axis: tick labels at a readable step, as seconds from the
 * start with the digits the step needs; the mark as an M. */
static void draw_axis(int r)
{
	static const uint64_t steps[] = { 1, 2, 5 };
	int ncol = G.term.cols - LABEL_W;
	uint64_t span = G.v.end - G.v.start, step = 1, base = view_base(), first;

	if (ncol < 10 || !span)
		return;
	/* a step whose labels are ~12 columns apart */
	for (uint64_t mag = 1; mag < UINT64_MAX / 10; mag *= 10) {
		int k;

		for (k = 0; k < 3; k++)
			if (span / (steps[k] * mag) <= (uint64_t)ncol / 12)
				break;
		if (k < 3) {
			step = steps[k] * mag;
			break;
		}
	}
	first = G.v.start > base ? base + (G.v.start - base + step - 1) / step * step : base;
	if (first < G.v.start)
		first = G.v.start;	/* the rounding wrapped */
	/* times from a file can be near 2^64: stop when t wraps, never
	 * more ticks than columns, and no product may overflow */
	for (uint64_t t = first, n = 0; t >= first && t <= G.v.end && n <= (uint64_t)ncol; t += step, n++) {
		char lab[32];
		uint64_t d = t - G.v.start;
		int c;

		c = LABEL_W + (int)(d <= UINT64_MAX / ncol ? d * ncol / span : d / (span / ncol + 1));
		fmt_secs(lab, sizeof(lab), t > base ? t - base : 0, step);
		draw_put(r, c, G.term.utf8 ? 0x2502 : '|', COL_AXIS, -1, 0);
		draw_str(r, c + 1, G.term.cols - c - 1, lab, COL_AXIS, -1, 0);
	}
	if (G.v.has_mark && G.v.mark >= G.v.start && G.v.mark < G.v.end)	/* the mark */
		draw_put(r, LABEL_W + (int)((G.v.mark - G.v.start) * ncol / span), 'M', -1, -1, CA_BOLD | CA_REVERSE);
}

/* Totals per state of task slot row within [a, b). */
struct tot { uint64_t a, b, *tot; };

static void tot_add(struct tot *x, uint64_t s, uint64_t e, int st)
{
	if (s < x->a)
		s = x->a;
	if (e > x->b)
		e = x->b;
	if (e > s)
		x->tot[st] += e - s;
}

static bool tot_fn(const struct ival *v, void *arg)
{
	tot_add(arg, v->start, v->end, v->state);
	return true;
}

static void task_totals(int row, uint64_t a, uint64_t b, uint64_t tot[ST_N])
{
	struct tot x = { a, b, tot };

	memset(tot, 0, sizeof(uint64_t) * ST_N);
	ival_walk(G.m.task[row].last_ival, row, a, tot_fn, &x);
	if (G.m.task[row].state != ST_DEAD)
		tot_add(&x, G.m.task[row].since, G.v.now, G.m.task[row].state);
}

/*
 * The status line: mode, window, cursor and the rest, as segments with a
 * priority; on a narrow terminal the least important go first (following,
 * what the exact history reaches; of equal ones the rightmost), never the
 * mode, the lost events, the bad data or the command's exit.
 */
static void draw_status(int r)
{
	enum { NSEG = 14 };
	char seg[NSEG][96], a1[32], a2[32];
	int pri[NSEG], n = 0, len = 0, c = 0;

#define SEG(p, ...) (pri[n] = (p), len += sfmt(seg[n], sizeof(seg[n]), __VA_ARGS__), n++)
	SEG(9, " tc %s ", G.v.paused ? "PAUSED" : G.opt.live ? "live" : G.rd.follow ? "stream" :
	    G.v.speed > 0 ? "replay >" : "replay");
	fmt_dur(a1, sizeof(a1), G.v.end - G.v.start);
	fmt_at(a2, sizeof(a2), G.v.cursor);
	SEG(7, "| win %s ", a1);
	SEG(7, "| cursor %s ", a2);
	if (G.v.following)
		SEG(2, "| following ");
	if (G.v.has_mark) {
		uint64_t x = G.v.mark < G.v.cursor ? G.v.mark : G.v.cursor;
		uint64_t y = G.v.mark < G.v.cursor ? G.v.cursor : G.v.mark;
		uint64_t tot[ST_N];

		fmt_dur(a1, sizeof(a1), y - x);
		SEG(6, "| to mark %s%s ", G.v.mark > G.v.cursor ? "-" : "", a1);
		if (G.v.sel >= 0 && G.v.sel < G.v.nrowlist && G.v.rowlist[G.v.sel] >= 0) {
			task_totals(G.v.rowlist[G.v.sel], x, y, tot);
			fmt_dur(a1, sizeof(a1), tot[ST_RUNNING]);
			fmt_dur(a2, sizeof(a2), tot[ST_RUNNABLE]);
			SEG(4, "| ran %s waited %s ", a1, a2);
		}
	}
	if (G.v.ended)
		SEG(6, "| %s ", G.rd.follow ? "end of stream" : "end of recording");
	if (G.v.exit[0])
		SEG(9, "| %s ", G.v.exit);
	if (G.rec.fd >= 0 && G.opt.live)
		SEG(5, "| rec %.1fMiB ", G.rec.pos / 1048576.0);
	if (G.opt.live || G.v.speed > 0)
		SEG(8, "| %" PRIu64 " ev/s ", G.v.ev_rate);
	if (G.n.lost || G.n.lost_read) {
		int k = 0, c1 = -1;

		for (int c = 0; c < 64; c++)
			if (G.n.lostv[c].n && !k++)
				c1 = c;
		fmt_at(a1, sizeof(a1), c1 >= 0 ? G.n.lostv[c1].last : 0);
		if (k == 1)
			SEG(9, "| lost %" PRIu64 " on cpu%d, last at %s ", lost_total(),
			    c1, a1);
		else
			SEG(9, "| lost %" PRIu64 "%s ", lost_total(),
			    k > 1 ? " on several CPUs (see ?)" : "");
	}
	if (G.z.pid > 0) {
		SEG(3, "| reading the file for exact ");
	} else {
		fmt_at(a1, sizeof(a1), G.ib.floor);
		fmt_at(a2, sizeof(a2), G.ib.ceil);
		if (G.ib.floor > G.v.start)
			SEG(3, "| exact from %s ", a1);
		if (G.ib.ceil < G.v.end)
			SEG(3, "| exact to %s ", a2);
	}
	if (G.bad.order || G.bad.corrupt + G.bad.cpu + G.m.bad_pid + G.bad.id)
		SEG(9, "| bad data: see ? ");
#undef SEG
	for (int p = 1; p < 9 && len > G.term.cols; p++)	/* drop the least important, the last first */
		for (int i = n - 1; i >= 0 && len > G.term.cols; i--)
			if (pri[i] == p) {
				len -= strlen(seg[i]);
				pri[i] = 0;
			}
	for (int i = 0; i < G.term.cols; i++)
		draw_put(r, i, ' ', -1, -1, CA_REVERSE);
	for (int i = 0; i < n; i++)
		if (pri[i])
			c += draw_str(r, c, G.term.cols - c, seg[i], -1, -1, CA_REVERSE | (i ? 0 : CA_BOLD));
}

/* The colour legend on one line (row r), as the cells draw each meaning;
 * where it does not fit beside the labels it takes the whole line, and an
 * item that does not fit is left out whole. */
static void draw_legend(int r)
{
	static const struct { const char *name; int col; uint16_t u, a; bool fg; } l[] = {
		{ "running", COL_RUN, 0x2588, '#', true }, { "runnable", COL_RUNNABLE, 0x2591, 'r', false },
		{ "sleeping", -1, ' ', ' ', false }, { "blocked", COL_BLOCKED, 0x2593, 'D', false },
		{ "I/O", COL_IO, 0x2592, 'I', false }, { "unknown", COL_UNKNOWN, 0x2571, '/', true },
		{ "cpu idle", COL_IDLE, '0', '0', false }, { "deep idle", COL_IDLE_DEEP, '2', '2', false },
	};
	int c = LABEL_W, need = -1;

	for (size_t i = 0; i < sizeof(l) / sizeof(l[0]); i++)
		need += 3 + (int)strlen(l[i].name);
	if (LABEL_W + need > G.term.cols)	/* narrow: the whole line for the items */
		c = 0;
	else
		draw_str(r, 0, LABEL_W, "legend", COL_AXIS, -1, 0);
	for (size_t i = 0; i < sizeof(l) / sizeof(l[0]) && c + 2 + (int)strlen(l[i].name) <= G.term.cols; i++) {
		uint16_t ch = G.term.utf8 ? l[i].u : l[i].a;

		if (G.term.ncolor && !l[i].fg && !(G.term.ncolor == 16 && l[i].col >= COL_IDLE))
			ch = ' ';
		draw_put(r, c, ch, G.term.ncolor && l[i].fg ? l[i].col : -1,
			 G.term.ncolor && !l[i].fg ? l[i].col : -1, 0);
		c += 2 + draw_str(r, c + 2, G.term.cols - c - 2, l[i].name, -1, -1, 0) + 1;
	}
	if (G.v.cpucol && c < G.term.cols)
		draw_str(r, c, G.term.cols - c, G.term.ncolor ? "(c: running coloured by CPU)" : "(c: running as CPU digit)",
			 -1, -1, 0);
}

#define HELP_CW 37	/* the help's right column, and its one column on 40 */

/* CPU c's part of the help's losses line, " cpu1 450" ("cpu63+" for the
 * count of CPUs 63 and up) into one; its length. */
static int help_lost_cpu(char *one, size_t n, int c)
{
	return sfmt(one, n, " cpu%d%s %" PRIu64, c, c == 63 ? "+" : "", G.n.lostv[c].n);
}

/* The help's losses line: "lost per CPU: cpu0 475 cpu1 450", and when the
 * CPUs do not fit in HELP_CW, those that do and "+N CPUs" (never cut). */
static void help_lost(char *out, size_t n)
{
	int nc = sfmt(out, n, "lost per CPU:%s", G.n.lost ? "" : " none"), all = nc, more = 0;
	char one[48];

	for (int c = 0; c < 64; c++)
		if (G.n.lostv[c].n)
			all += help_lost_cpu(one, sizeof(one), c);
	for (int c = 0; c < 64; c++) {
		int k;

		if (!G.n.lostv[c].n)
			continue;
		k = help_lost_cpu(one, sizeof(one), c);
		if (more || (all > HELP_CW && nc + k > HELP_CW - 10))	/* room for " +63 CPUs" */
			more++;
		else
			nc += sfmt(out + nc, n - nc, "%s", one);
	}
	if (more)
		sfmt(out + nc, n - nc, " +%d CPUs", more);
}

/* The help overlay: keys and mouse on the left; the legend and every
 * counter on the right (below the keys on a narrow terminal). */
static void draw_help(void)
{
	static const char *const legend[] = {
		"cells (legend under the axis)",
		"block height: share running (busy)",
		"colour: runnable, blocked, I/O,",
		"  CPU idle state (digits: depth)",
		"/ hatched: unknown, the details",
		"  line at the bottom says why",
		"",
	};
	char cnt[8][80], keys[N_KEYS + 1][48], d[3][16];
	int nk = 1, nl = sizeof(legend) / sizeof(legend[0]), two = G.term.cols >= 80, w = two ? 80 : 40;
	int nr = nl + (int)(sizeof(cnt) / sizeof(cnt[0])), n, r0, c0;	/* nr: the legend and counters */

	scopy(keys[0], sizeof(keys[0]), "tc keys");
	for (int i = 0; i < N_KEYS; i++)
		if (keydefs[i].keys)
			sfmt(keys[nk++], sizeof(keys[0]), "%-19s %s", keydefs[i].keys, keydefs[i].help);
	n = two ? (nk > nr ? nk : nr) : nk + nr;
	r0 = (G.term.rows - n - 2) / 2;
	c0 = (G.term.cols - w) / 2;
	sfmt(cnt[0], sizeof(cnt[0]), "events lost %" PRIu64 ", gaps %" PRIu64,
	     lost_total(), G.m.gaps);
	sfmt(cnt[1], sizeof(cnt[1]), "out of order %" PRIu64 ", bad %" PRIu64, G.bad.order,
	     G.bad.corrupt + G.bad.cpu + G.m.bad_pid + G.bad.id);
	sfmt(cnt[2], sizeof(cnt[2]), "switch-ins inferred %" PRIu64, G.m.inferred);
	sfmt(cnt[3], sizeof(cnt[3]), "evicted: tasks %" PRIu64 ", intervals %" PRIu64, G.m.evicted_tasks,
	     G.ib.evicted);
	fmt_dur(d[0], sizeof(d[0]), G.hist.hp[HK_CPU].w);
	fmt_dur(d[1], sizeof(d[1]), G.hist.hp[HK_TASK].w);
	fmt_dur(d[2], sizeof(d[2]), G.v.refresh_ns);
	sfmt(cnt[4], sizeof(cnt[4]), "buckets: cpu %s, task %s", d[0], d[1]);
	sfmt(cnt[5], sizeof(cnt[5]), "task blocks taken from rows %" PRIu64, G.hist.stolen);
	sfmt(cnt[6], sizeof(cnt[6]), "refresh %s, %" PRIu64 " ev/s", d[2], G.v.ev_rate);
	help_lost(cnt[7], sizeof(cnt[7]));
	if (r0 < 0)
		r0 = 0;
	if (c0 < 0)
		c0 = 0;
	for (int i = 0; i < n + 2; i++) {
		int j = i - 1;
		const char *right = j < 0 || j >= nr ? "" : j < nl ? legend[j] : cnt[j - nl];

		for (int k = 0; k < w; k++)
			draw_put(r0 + i, c0 + k, ' ', -1, -1, CA_REVERSE);
		if (j < 0 || j >= n)
			continue;
		if (two) {
			draw_str(r0 + i, c0 + 2, 39, j < nk ? keys[j] : "", -1, -1, CA_REVERSE);
			draw_str(r0 + i, c0 + 42, HELP_CW, right, -1, -1, CA_REVERSE);
		} else {
			j -= nk;
			draw_str(r0 + i, c0 + 2, w - 3, j < 0 ? keys[j + nk] : j < nl ? legend[j] : cnt[j - nl],
				 -1, -1, CA_REVERSE);
		}
	}
}

/*
 * The panels (L: worst waits, W: wakeup chain, Q: interrupts): a box over the timeline
 * under the axis, a title, lines (the selected one not reversed, with a
 * '>'), a hint.  Their text is recomputed from the model every frame
 * (live: as things happen; L's list when its span or the intervals
 * change, live at most once a second); the keys are view_panel_key's.
 */
enum { PANEL_LINES = LAT_CHAIN * 2, PANEL_W = 256 };
enum { PANEL_SCAN = 50000 };	/* live: L looks back over about this many events */

/* The L panel's list, and what it was found for. */
static struct {
	bool valid, blk;
	uint64_t start, end, head, floor, ceil;	/* the view and the ring it was found in */
	uint64_t at;				/* when (now_ns) */
	uint64_t a, b;				/* the span it covers */
	int n;
	struct lat_rec top[LAT_TOP];
} wl;					/* "worst list" */

/* The L panel's list (wl), found again when the view's span, the kind
 * (G.v.pblk) or the exact intervals have changed since; live, at most
 * once a second while following, and over at most the last PANEL_SCAN
 * events' time, so that a frame stays cheap at any event rate. */
static void panel_worst(void)
{
	uint64_t a = G.v.start, b = G.v.end, now = now_ns();

	if (wl.valid && wl.blk == G.v.pblk &&
	    ((wl.start == G.v.start && wl.end == G.v.end && wl.head == G.ib.head && wl.floor == G.ib.floor &&
	      wl.ceil == G.ib.ceil) || (G.opt.live && G.v.following && now - wl.at < NS_PER_SEC)))
		return;
	if (G.opt.live && G.v.ev_rate > 0 && b - a > PANEL_SCAN * NS_PER_SEC / G.v.ev_rate)
		a = b - PANEL_SCAN * NS_PER_SEC / G.v.ev_rate;
	wl = (__typeof__(wl)){ .valid = true, .blk = G.v.pblk, .start = G.v.start, .end = G.v.end,
			       .head = G.ib.head, .floor = G.ib.floor, .ceil = G.ib.ceil, .at = now,
			       .a = a > G.ib.floor ? a : G.ib.floor, .b = b < G.ib.ceil ? b : G.ib.ceil };
	wl.n = lat_span_worst(a, b, G.v.pblk, wl.top);
}

/* How many of n panel lines fit on the screen (at least 1). */
static int panel_fit(int n)
{
	int room = G.term.rows - 1 - G.v.row0 - 3;

	return n < room ? n : room > 1 ? room : 1;
}

/* Draw the panel box: title, n lines, G.v.psel's highlighted, hint. */
static void draw_panel(const char *title, char lines[][PANEL_W], int n, const char *hint)
{
	int w = G.term.cols - 2 < 160 ? G.term.cols - 2 : 160, c0 = (G.term.cols - w) / 2, r0 = G.v.row0;

	if (G.v.psel >= n)
		G.v.psel = n > 0 ? n - 1 : 0;
	for (int i = 0; i < n + 3; i++)
		for (int k = 0; k < w; k++)
			draw_put(r0 + i, c0 + k, ' ', -1, -1, CA_REVERSE);
	draw_fmt(r0, c0 + 1, w - 2, -1, CA_REVERSE | CA_BOLD, "%s", title);
	for (int i = 0; i < n; i++) {
		int attr = i == G.v.psel ? CA_BOLD : CA_REVERSE;

		if (i == G.v.psel)
			for (int k = 0; k < w; k++)
				draw_put(r0 + 1 + i, c0 + k, k == 1 ? '>' : ' ', -1, -1, attr);
		draw_fmt(r0 + 1 + i, c0 + 3, w - 4, -1, attr, "%s", lines[i]);
	}
	draw_str(r0 + n + 2, c0 + 1, w - 2, hint, -1, -1, CA_REVERSE);
}

/* One IRQ or softirq vector of one CPU in the visible span (the Q panel). */
struct qsum { int cpu, irq; bool soft; uint32_t n; uint64_t ns, max; };
struct qsums { struct qsum q[64]; int n, cpu; uint64_t lost; };

/* Add the part of interrupt [a, b) (state as in last_qival) in the
 * visible span to the sums. */
static void qsum_add(struct qsums *s, int state, uint64_t a, uint64_t b)
{
	struct qsum *q = NULL;
	uint64_t ns;

	a = a > G.v.start ? a : G.v.start;
	b = b < G.v.end ? b : G.v.end;
	if (b <= a)
		return;
	ns = b - a;
	for (int i = 0; i < s->n && !q; i++)
		if (s->q[i].cpu == s->cpu && s->q[i].irq == (state < 0 ? -1 - state : state) && s->q[i].soft == (state < 0))
			q = &s->q[i];
	if (!q && s->n == (int)(sizeof(s->q) / sizeof(s->q[0]))) {
		s->lost++;
		return;
	}
	if (!q) {
		q = &s->q[s->n++];
		*q = (struct qsum){ s->cpu, state < 0 ? -1 - state : state, state < 0, 0, 0, 0 };
	}
	q->n++;
	q->ns += ns;
	q->max = ns > q->max ? ns : q->max;
}

static bool qsum_fn(const struct ival *v, void *arg)
{
	qsum_add(arg, v->state, v->start, v->end);
	return v->start > G.v.start;
}

static int qsum_cmp(const void *a, const void *b)
{
	const struct qsum *x = a, *y = b;

	return (x->ns < y->ns) - (x->ns > y->ns);
}

/* The Q panel: the interrupts (-Q) of the visible span, most time first:
 * their CPU, kind, number and name, count, time and longest. */
static void draw_irqs(void)
{
	static struct qsums s;
	char lines[PANEL_LINES][PANEL_W], title[128], name[COMM_LEN], a[32], b[32];
	int n;

	s.n = 0;
	s.lost = 0;
	for (int c = 0; c < G.m.ncpu; c++) {
		const struct cpu *p = &G.m.cpu[c];

		s.cpu = c;
		ival_walk(p->last_qival, ROW_CPU(c), G.v.start, qsum_fn, &s);
		if (p->hirq >= 0)
			qsum_add(&s, p->hirq, p->hirq_since, G.v.now);
		if (p->sirq >= 0)
			qsum_add(&s, -1 - p->sirq, p->sirq_since, G.v.now);
	}
	sort(s.q, s.n, sizeof(s.q[0]), qsum_cmp);
	n = panel_fit(s.n < PANEL_LINES ? s.n : PANEL_LINES);
	for (int i = 0; i < n && i < s.n; i++) {
		const struct qsum *q = &s.q[i];

		irq_name(q->cpu, q->soft ? -1 - q->irq : q->irq, name, sizeof(name));
		fmt_dur(a, sizeof(a), q->ns);
		fmt_dur(b, sizeof(b), q->max);
		sfmt(lines[i], PANEL_W, "cpu%-3d %-7s %4d %-15s %7u times, %s in all, longest %s", q->cpu,
		     q->soft ? "softirq" : "hardirq", q->irq, name, q->n, a, b);
	}
	if (!s.n)
		sfmt(lines[n++], PANEL_W, "%s", G.n.kind[EV_IRQ] || G.n.kind[EV_SOFTIRQ] ?
		     "no interrupt in the visible span" : "no interrupt events: record with -Q");
	fmt_at(a, sizeof(a), G.ib.floor);
	sfmt(title, sizeof(title), "interrupts in view, most time first%s%s%s", G.ib.floor > G.v.start ? " (from " : "",
	     G.ib.floor > G.v.start ? a : "", G.ib.floor > G.v.start ? ": older ones not kept)" : "");
	draw_panel(title, lines, n, "j/k select, Esc or Q: close");
}

/* The L panel: the longest runnable waits (G.v.pblk: D spans) in the
 * visible span, of the part the exact intervals cover (the title says
 * which when it is not all). */
static void draw_worst(void)
{
	char lines[LAT_TOP][PANEL_W], title[96];
	int n;

	panel_worst();
	n = panel_fit(wl.n);
	for (int i = 0; i < n; i++)
		lat_rec_text(&wl.top[i], G.v.pblk, lines[i], PANEL_W);
	sfmt(title, sizeof(title), "longest %s in view", G.v.pblk ? "blocked (D) spans" : "runnable waits");
	if (G.z.pid > 0) {
		sfmt(title + strlen(title), sizeof(title) - strlen(title), " (reading the file again)");
	} else if (wl.a > G.v.start || wl.b < G.v.end) {	/* what the ring holds, or live the scan */
		char a[24], b[24];

		fmt_at(a, sizeof(a), wl.a);
		fmt_at(b, sizeof(b), wl.b);
		sfmt(title + strlen(title), sizeof(title) - strlen(title), ", from %s to %s", a, b);
	}
	if (!n)
		sfmt(lines[n++], PANEL_W, "none in the visible span");
	draw_panel(title, lines, n, "j/k select, Enter: go there, Tab: waits / D spans, Esc or L: close");
}

/* The steps of the W panel's chain into s (PANEL_LINES); how many.
 * Kept while what they were found from is as it was. */
static int panel_chain(struct lat_step *s)
{
	static struct {
		int tid, n;
		uint64_t t, head, floor;	/* the wakeup and the ring it was found in */
		uint64_t at;			/* when (now_ns) */
		struct lat_step s[PANEL_LINES];
	} c = { .tid = -1 };
	uint64_t now = now_ns();

	/* found again for another wakeup or other intervals (live, where
	 * they change all the time, at most once a second) */
	if (c.tid != G.v.ctid || c.t != G.v.ct ||
	    ((c.head != G.ib.head || c.floor != G.ib.floor) && G.z.pid <= 0 &&
	     (!G.opt.live || now - c.at >= NS_PER_SEC))) {
		c.tid = G.v.ctid;
		c.t = G.v.ct;
		c.head = G.ib.head;
		c.floor = G.ib.floor;
		c.at = now;
		c.n = lat_chain(c.tid, c.t, c.s, PANEL_LINES);
	}
	memcpy(s, c.s, sizeof(c.s));
	return c.n;
}

/* How a chain of n steps (s) ends, into out (n bytes). */
static void chain_end_text(const struct lat_step *s, int n, char *out, size_t len)
{
	int w = n ? s[n - 1].waker : -1;
	char who[48];

	lat_who_text(who, sizeof(who), w);
	if (w == WAKER_IRQ)
		sfmt(out, len, "ends at an interrupt (or a timer)");
	else if (w == 0)
		sfmt(out, len, "ends at the idle task (an interrupt or a timer on an idle CPU)");
	else if (n == PANEL_LINES)
		sfmt(out, len, "goes on (longer than %d steps)", PANEL_LINES);
	else if (w > 0)
		sfmt(out, len, "ends at %s: no wakeup of it before (already running, or not kept)", who);
	else
		sfmt(out, len, "ends at an unknown waker");
}

/* The W panel: the chain of wakers of G.v.ctid back from G.v.ct, one
 * step a line; the title reads it as "D <- C <- B <- A". */
static void draw_chain(void)
{
	struct lat_step s[PANEL_LINES];
	char lines[PANEL_LINES + 1][PANEL_W], title[PANEL_W], who[48];
	int n = panel_chain(s), k;

	lat_who_text(who, sizeof(who), G.v.ctid);
	k = sfmt(title, sizeof(title), "wakeup chain: %s", who);
	for (int i = 0; i < n && k < PANEL_W; i++) {
		lat_who_text(who, sizeof(who), s[i].waker);
		k += sfmt(title + k, sizeof(title) - k, " <- %s", who);
	}
	for (int i = 0; i < n; i++)
		lat_step_text(&s[i], lines[i], PANEL_W);
	if (n)
		chain_end_text(s, n, lines[n], PANEL_W);
	else
		sfmt(lines[0], PANEL_W, "no wakeup of %s kept before the cursor", who);
	draw_panel(title, lines, panel_fit(n + 1), "j/k step (the cursor and row follow), Esc or W: close");
}

/* The label of row (code) at screen row r, with attr: a task's tid and
 * name, and the share of the view it ran when there is room; a CPU's
 * task at the cursor and "busy" with its busy share of the view. */
static void draw_label(int r, int row, int attr)
{
	int ncol = G.term.cols - LABEL_W, namew = LABEL_W >= 24 ? 15 : 7, pct;
	uint64_t run = 0, st, en;
	char share[8] = "";

	for (int i = 0; i < ncol; i++)
		run += G.term.acc[i * ACC_N + ST_RUNNING];
	pct = (int)(run * 100 / (G.v.end - G.v.start + 1));
	if (LABEL_W >= 29)
		sfmt(share, sizeof(share), "%3d%%", pct);
	if (row >= 0) {
		const struct task *t = &G.m.task[row];

		draw_fmt(r, 0, LABEL_W - 1, -1, attr, "%7d %-*.*s %s", t->tid, namew, namew, t->comm, share);
	} else if (ROW_IS_CPU(row)) {
		int tid = cpu_at(-1 - row, G.v.cursor, &st, &en);

		namew = LABEL_W >= 24 ? LABEL_W - 18 : 7;	/* then "busy NN%" */
		draw_fmt(r, 0, LABEL_W - 1, -1, attr | CA_BOLD, "cpu%-4d %-*.*s", -1 - row, namew, namew,
			 tid > 0 ? task_comm(tid) : tid == 0 ? "idle" : "?");
		if (LABEL_W >= 24)
			draw_fmt(r, LABEL_W - 9, 8, -1, attr | CA_BOLD, "busy%3d%%", pct);
	} else {
		int c = -1 - row - MAX_CPUS;

		draw_fmt(r, 0, LABEL_W - 1, -1, attr, "cpu%-4d %6" PRId64 " MHz", c,
			 G.m.cpu[c].freq >= 0 ? G.m.cpu[c].freq / 1000 : 0);
	}
}

/* Build the whole frame into G.term.scr from the model and the view state
 * only (the model is not changed, the rings are not read). */
static void draw_frame(void)
{
	int legend = G.term.rows >= 16 && G.term.cols >= 60, body = G.term.rows - 3 - legend;

	for (int i = 0; i < G.term.rows * G.term.cols; i++)
		G.term.scr[i] = (struct cell){ ' ', 0, 0, 0 };
	rows_build();
	if (G.v.sel_key != INT_MIN) {
		int i = row_find(G.v.sel_key);

		if (i >= 0)
			G.v.sel = i;
	}
	if (G.v.sel >= G.v.nrowlist)
		G.v.sel = G.v.nrowlist - 1;
	if (G.v.sel < 0 && G.v.nrowlist)
		G.v.sel = 0;
	if (G.v.sel >= 0)
		G.v.sel_key = row_key(G.v.sel);
	if (G.v.sel < G.v.top)
		G.v.top = G.v.sel;
	if (body > 0 && G.v.sel >= G.v.top + body)
		G.v.top = G.v.sel - body + 1;
	if (G.v.top < 0)
		G.v.top = 0;
	G.v.row0 = 2 + legend;
	draw_status(0);
	draw_axis(1);
	if (legend)
		draw_legend(2);
	for (int i = 0; i < body && G.v.top + i < G.v.nrowlist; i++) {
		int idx = G.v.top + i, row = G.v.rowlist[idx], r = G.v.row0 + i;
		int attr = idx == G.v.sel ? CA_REVERSE : 0;

		if (row == ROW_NOFREQ) {
			draw_str(r, 0, LABEL_W - 1, "frequency", -1, -1, attr);
			draw_str(r, LABEL_W, G.term.cols - LABEL_W,
				 "not reported by this kernel (no cpufreq driver)", -1, -1, 0);
			continue;
		}
		acc_row(row);
		draw_label(r, row, attr);
		draw_cells(r, row);
	}
	draw_details(G.term.rows - 1);
	if (G.v.panel == 'L')
		draw_worst();
	else if (G.v.panel == 'W')
		draw_chain();
	else if (G.v.panel == 'Q')
		draw_irqs();
	if (G.v.help)
		draw_help();
}

/* Append the SGR sequence that selects cell p's attributes. */
static void diff_sgr(const struct cell *p)
{
	char b[64];
	int n = sfmt(b, sizeof(b), "\x1b[0%s%s", p->attr & CA_REVERSE ? ";7" : "", p->attr & CA_BOLD ? ";1" : "");

	if (p->fg && G.term.ncolor == 256)
		n += sfmt(b + n, sizeof(b) - n, ";38;5;%d", col_256[p->fg - 1]);
	else if (p->fg && G.term.ncolor)
		n += sfmt(b + n, sizeof(b) - n, ";%d", 30 + col_16[p->fg - 1]);
	if (p->bg && G.term.ncolor == 256)
		n += sfmt(b + n, sizeof(b) - n, ";48;5;%d", col_256[p->bg - 1]);
	else if (p->bg && G.term.ncolor)
		n += sfmt(b + n, sizeof(b) - n, ";%d", 40 + col_16[p->bg - 1]);
	b[n++] = 'm';
	ob_add(b, n);
}

/* Append character ch as UTF-8 (or ASCII). */
static void diff_ch(uint16_t ch)
{
	char b[4];

	if (ch < 0x80) {
		b[0] = ch;
		ob_add(b, 1);
	} else if (ch < 0x800) {
		b[0] = 0xc0 | ch >> 6;
		b[1] = 0x80 | (ch & 0x3f);
		ob_add(b, 2);
	} else {
		b[0] = 0xe0 | ch >> 12;
		b[1] = 0x80 | (ch >> 6 & 0x3f);
		b[2] = 0x80 | (ch & 0x3f);
		ob_add(b, 3);
	}
}

/* Append to G.term.ob what turns the screen G.term.scr_prev into G.term.scr, and make
 * scr_prev the new screen.  Returns the bytes appended. */
static size_t draw_diff(void)
{
	size_t start = G.term.ob_len;
	struct cell last = { 0, 255, 255, 255 };
	int cr = -1, cc = -1;

	if (G.term.full_redraw) {
		ob_add("\x1b[0m\x1b[2J", 8);
		memset(G.term.scr_prev, 0xff, sizeof(struct cell) * G.term.rows * G.term.cols);
		G.term.full_redraw = false;
	}
	for (int r = 0; r < G.term.rows; r++)
		for (int c = 0; c < G.term.cols; c++) {
			struct cell *p = &G.term.scr[r * G.term.cols + c], *q = &G.term.scr_prev[r * G.term.cols + c];
			char b[32];

			if (!memcmp(p, q, sizeof(*p)))
				continue;
			if (r != cr || c != cc)
				ob_add(b, sfmt(b, sizeof(b), "\x1b[%d;%dH", r + 1, c + 1));
			if (p->fg != last.fg || p->bg != last.bg || p->attr != last.attr) {
				diff_sgr(p);
				last = *p;
			}
			diff_ch(p->ch);
			*q = *p;
			cr = r;
			cc = c + 1;
		}
	return G.term.ob_len - start;
}

/* ---------------------------------------------------------------- view state */

/*
 * Following: while the view shows the whole rolling window (live) it
 * follows the newest events and the cursor stays on the newest time.  Any
 * zoom, pan, cursor move, search or 'w' stops following, and from then on
 * no refresh moves the view or the cursor.  '0'/Esc follows again.
 *
 *   following --zoom/pan/cursor/search/w/click--> placed
 *   placed    --0/Esc------------------------------> following
 *   refresh: following -> view = [newest - window, newest], cursor = newest
 *            placed    -> nothing moves
 */

/* The span the whole view covers: the rolling window (live), the whole
 * recording (replay). */
static void view_whole(uint64_t *a, uint64_t *b)
{
	uint64_t end = G.v.now, start;

	if (G.opt.live || G.v.speed > 0)
		start = end > G.v.window_ns ? end - G.v.window_ns : 0;
	else
		start = G.m.first;
	if (end <= start)
		end = start + 1;
	*a = start;
	*b = end;
}

/* Replay: when the view is zoomed in past the summaries' buckets and
 * reaches out of the exact intervals kept, have the file read again for
 * them from one view's span before it on (rd_history), and take them
 * when they are read.  A view once asked for is not asked again: one too
 * dense for the ring shows exactly as far as the status line says. */
static void view_exact(void)
{
	int ncol = G.term.cols - LABEL_W;
	uint64_t span = G.v.end - G.v.start;

	rd_history_take(G.v.msg, sizeof(G.v.msg));
	if (G.opt.live || G.v.speed > 0 || G.rd.follow || !G.hist.on || ncol <= 0 ||
	    span / ncol >= G.hist.hp[HK_TASK].w || (G.v.start >= G.ib.floor && G.v.end <= G.ib.ceil) ||
	    (G.v.start == G.z.v0 && G.v.end == G.z.v1))
		return;
	G.z.v0 = G.v.start;
	G.z.v1 = G.v.end;
	rd_history(G.v.start > span ? G.v.start - span : 0, G.v.start,
		   G.v.end + span > G.v.end ? G.v.end + span : UINT64_MAX, span, G.v.msg, sizeof(G.v.msg));
}

/* A refresh: new events may have moved the newest time. */
static void view_refresh(void)
{
	if (G.v.following) {
		view_whole(&G.v.start, &G.v.end);
		G.v.cursor = G.v.end;
	}
}

/* Stop following: the user placed the view or cursor. */
static void view_place(void)
{
	G.v.following = false;
}

/* Zoom by num/den around the cursor. */
static void view_zoom(uint64_t num, uint64_t den)
{
	uint64_t span = G.v.end - G.v.start, ns = span * num / den, c = G.v.cursor;

	view_place();
	if (ns < 1000)
		ns = 1000;
	if (c < G.v.start || c > G.v.end)
		c = G.v.start + span / 2;
	G.v.start = c - (uint64_t)((double)(c - G.v.start) * ns / span);
	G.v.end = G.v.start + ns;
}

/* Pan by a signed fraction (quarters) of the view. */
static void view_pan(int quarters)
{
	uint64_t q = (G.v.end - G.v.start) / 4;

	view_place();
	if (quarters < 0 && G.v.start < q)
		q = G.v.start;
	G.v.start += quarters < 0 ? -q : q;
	G.v.end += quarters < 0 ? -q : q;
	if (G.v.cursor < G.v.start)
		G.v.cursor = G.v.start;
	if (G.v.cursor > G.v.end)
		G.v.cursor = G.v.end;
}

/* Move the cursor by cols columns, panning if it leaves the view. */
static void view_cursor(int cols)
{
	int ncol = G.term.cols - LABEL_W > 0 ? G.term.cols - LABEL_W : 1;
	uint64_t step = (G.v.end - G.v.start) / ncol;

	view_place();
	if (!step)
		step = 1;
	if (cols < 0)
		G.v.cursor = G.v.cursor > step * -cols ? G.v.cursor - step * -cols : 0;
	else
		G.v.cursor += step * cols;
	if (G.v.cursor < G.v.start)
		view_pan(-1);
	else if (G.v.cursor > G.v.end)
		view_pan(1);
}

/* Put the cursor at time t, moving the view to show it. */
static void view_goto(uint64_t t)
{
	uint64_t span = G.v.end - G.v.start;

	view_place();
	G.v.cursor = t;
	if (t < G.v.start || t > G.v.end) {
		G.v.start = t > span / 2 ? t - span / 2 : 0;
		G.v.end = G.v.start + span;
	}
}

/* n/p: the next (dir > 0) or previous state change of the selected task. */
struct chg { uint64_t t, best; int dir; };

static bool chg_fn(const struct ival *v, void *arg)
{
	struct chg *c = arg;

	if (c->dir > 0 && v->start > c->t && (!c->best || v->start < c->best))
		c->best = v->start;
	if (c->dir < 0 && v->start < c->t && v->start > c->best)
		c->best = v->start;
	return c->dir > 0 ? v->end > c->t : true;
}

static void view_change(int dir)
{
	struct chg c = { G.v.cursor, 0, dir };
	int row;

	if (G.v.sel < 0 || G.v.sel >= G.v.nrowlist || (row = G.v.rowlist[G.v.sel]) < 0)
		return;
	if (dir > 0 && G.m.task[row].since > G.v.cursor)
		c.best = G.m.task[row].since;
	if (dir < 0 && G.m.task[row].since < G.v.cursor)
		c.best = G.m.task[row].since;
	ival_walk(G.m.task[row].last_ival, row, dir > 0 ? G.v.cursor : 0, chg_fn, &c);
	/* past the exact intervals kept: to their edge (replay reads on) */
	if (dir > 0 && c.best > G.ib.ceil && G.v.cursor < G.ib.ceil)
		c.best = G.ib.ceil + 1;
	if (dir < 0 && c.best < G.ib.floor && G.v.cursor > G.ib.floor && G.ib.floor > G.m.task[row].first_seen)
		c.best = G.ib.floor - 1;
	if (dir < 0 && c.best == 0)
		return;
	if (c.best)
		view_goto(c.best);
}

/* w: select the task that woke the selected one (the wakeup before the
 * cursor) and put the cursor on that wakeup. */
static bool waker_fn(const struct ival *v, void *arg)
{
	struct at *w = arg;

	if (v->state == ST_RUNNABLE && v->start <= G.v.cursor && v->aux != -1) {
		w->v = *v;
		w->found = true;
		return false;
	}
	return true;
}

static void view_waker(void)
{
	struct at w = { .found = false };
	int row, waker;
	uint64_t at;
	const struct task *t;

	if (G.v.sel < 0 || G.v.sel >= G.v.nrowlist || (row = G.v.rowlist[G.v.sel]) < 0)
		return;
	t = &G.m.task[row];
	if (t->state == ST_RUNNABLE && t->since <= G.v.cursor && t->waker != -1) {
		waker = t->waker;
		at = t->since;
	} else {
		ival_walk(t->last_ival, row, 0, waker_fn, &w);
		if (!w.found) {
			sfmt(G.v.msg, sizeof(G.v.msg), "no wakeup of %d before the cursor", t->tid);
			return;
		}
		waker = w.v.aux;
		at = w.v.start;
	}
	view_goto(at);
	if (waker == WAKER_IRQ) {
		sfmt(G.v.msg, sizeof(G.v.msg), "%d was woken by an interrupt", t->tid);
		return;
	}
	G.v.sel_key = waker;
	if (row_find(waker) < 0)
		sfmt(G.v.msg, sizeof(G.v.msg), "woken by %d, not shown", waker);
}

/* Put the cursor on task slot row's next run after the cursor, else on
 * its last run before it. */
struct act { uint64_t t, next, prev; };

static bool act_fn(const struct ival *v, void *arg)
{
	struct act *a = arg;

	if (v->state == ST_RUNNING && v->start >= a->t && (!a->next || v->start < a->next))
		a->next = v->start;
	if (v->state == ST_RUNNING && v->start < a->t && v->start > a->prev)
		a->prev = v->start;
	return !a->prev;
}

static void view_activity(int row)
{
	const struct task *t = &G.m.task[row];
	struct act a = { G.v.cursor, 0, 0 };

	if (t->state == ST_RUNNING && t->since >= a.t)
		a.next = t->since;
	else if (t->state == ST_RUNNING)
		a.prev = t->since;
	if (!a.prev)
		ival_walk(t->last_ival, row, 0, act_fn, &a);
	if (a.next || a.prev)
		view_goto(a.next ? a.next : a.prev);
}

/* Find a task by name (substring) or tid after a '/' query: select it and
 * go to its next activity. */
static void view_search(void)
{
	char *end;
	int64_t tid = num_i(G.v.query, &end);

	view_place();
	for (int i = 0; i < G.v.nrowlist; i++) {
		int row = G.v.rowlist[i];

		if (row < 0)
			continue;
		if ((*G.v.query && !*end && G.m.task[row].tid == tid) ||
		    (*G.v.query && str_find(G.m.task[row].comm, G.v.query, false))) {
			G.v.sel = i;
			G.v.sel_key = row_key(i);
			view_activity(row);
			return;
		}
	}
	sfmt(G.v.msg, sizeof(G.v.msg), "no task matches '%s'", G.v.query);
}

/* "tc-YYYYMMDD-HHMMSSZ.data" for time t (seconds since 1970) in UTC:
 * days to a civil date as in Howard Hinnant's date algorithms.  The C
 * library's gmtime would bring its time zone code, 5 KiB of a static
 * binary; UTC, because a small target often has no time zone files. */
static void utc_stamp(char *out, size_t n, int64_t t)
{
	int64_t s = t % 86400, days = t / 86400 + 719468;	/* days since 0000-03-01 */
	int64_t era = (days >= 0 ? days : days - 146096) / 146097, doe = days - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
	int m = mp < 10 ? mp + 3 : mp - 9;

	sfmt(out, n, "tc-%04d%02d%02d-%02d%02d%02dZ.data", (int)(yoe + era * 400 + (m <= 2)), m,
	     (int)(doy - (153 * mp + 2) / 5 + 1), (int)(s / 3600), (int)(s / 60 % 60), (int)(s % 60));
}

/* The save key: what the window holds, every record of its span (live:
 * from the view's ring of raw records; replay: from the recording, see
 * rd_save), as tc-DATE-TIME.data; the status line says the name and the
 * size. */
static void view_save(void)
{
	char path[64];
	int fd;

	if (G.opt.live && !G.fl.buf) {
		sfmt(G.v.msg, sizeof(G.v.msg), "recording to %.60s: it holds everything", G.opt.rec_path);
		return;
	}
	utc_stamp(path, sizeof(path), time(NULL));
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);	/* the recorder dies on failure */
	if (fd < 0) {
		sfmt(G.v.msg, sizeof(G.v.msg), "cannot save %s here: %s", path, strerror(errno));
		return;
	}
	close(fd);
	unlink(path);
	if (G.opt.live)
		fl_save(path, G.v.start, G.v.end, G.v.msg, sizeof(G.v.msg));
	else
		rd_save(path, G.v.start, G.v.end, G.v.msg, sizeof(G.v.msg));
}

/* Select task tid's row (rows_build keeps the selected task's; a task
 * filtered out has none: say so). */
static void view_select_tid(int tid)
{
	const struct task *p = task_find(tid);

	G.v.sel_key = tid;
	if (!p || !filter_task(p))
		sfmt(G.v.msg, sizeof(G.v.msg), "%d is not among the rows (filtered out)", tid);
}

/* L's Enter: the cursor on the selected wait (its start), its task's row
 * selected, following stopped; the panel closes. */
static void view_worst_go(void)
{
	G.v.panel = 0;
	if (!wl.valid || G.v.psel >= wl.n)
		return;
	view_goto(wl.top[G.v.psel].start);
	view_select_tid(wl.top[G.v.psel].tid);
}

/* W's j/k: select step dir from the selected one, the cursor on its
 * wakeup and the woken task's row selected. */
static void view_chain_step(int dir)
{
	struct lat_step s[PANEL_LINES];
	int n = panel_chain(s), i = G.v.psel + dir;

	if (!n)
		return;
	G.v.psel = i < 0 ? 0 : i >= n ? n - 1 : i;
	view_goto(s[G.v.psel].t);
	view_select_tid(s[G.v.psel].tid);
}

/* L, W or Q: open that panel (W: the chain of the selected task at the
 * cursor), or close it if it is open. */
static void view_panel_open(int which)
{
	int row = G.v.sel >= 0 && G.v.sel < G.v.nrowlist ? G.v.rowlist[G.v.sel] : -1;

	if (G.v.panel == which) {
		G.v.panel = 0;
		return;
	}
	if (which == 'W' && row < 0) {
		sfmt(G.v.msg, sizeof(G.v.msg), "W: select a task's row first");
		return;
	}
	if (which == 'W') {
		G.v.ctid = G.m.task[row].tid;
		G.v.ct = G.v.cursor;
	}
	G.v.panel = which;
	G.v.psel = 0;
	wl.valid = false;	/* L: found anew */
}

/* A key while a panel is open: its own keys (selection, Enter, Tab, Esc);
 * false for the others, which act on the view as usual. */
static bool view_panel_key(int key)
{
	int dir = key == 'j' || key == K_DOWN ? 1 : key == 'k' || key == K_UP ? -1 : 0;

	if (key == K_ESC) {
		G.v.panel = 0;
	} else if (dir && G.v.panel == 'W') {
		view_chain_step(dir);
	} else if (dir) {
		G.v.psel = G.v.psel + dir > 0 ? G.v.psel + dir : 0;	/* draw_panel bounds it */
	} else if ((key == '\r' || key == '\n') && G.v.panel == 'L') {
		view_worst_go();
	} else if (key == '\r' || key == '\n') {
		G.v.panel = 0;
	} else if (key == '\t' && G.v.panel == 'L') {
		G.v.pblk = !G.v.pblk;
		G.v.psel = 0;
	} else {
		return false;
	}
	return true;
}

/* Act on one key.  Returns false when tc should quit. */
static bool view_key(int key, int mx, int my)
{
	int body = G.term.rows - 1 - G.v.row0;
	const struct keydef *d;

	G.v.msg[0] = 0;
	if (G.v.search) {
		size_t l = strlen(G.v.query);

		if (key == '\r' || key == '\n') {
			G.v.search = false;
			view_search();
		} else if (key == K_ESC || key == K_CTRL_C) {
			G.v.search = false;
		} else if ((key == 127 || key == 8) && l) {
			G.v.query[l - 1] = 0;
		} else if (key >= 0x20 && key < 0x7f && l + 1 < sizeof(G.v.query)) {
			G.v.query[l] = key;
			G.v.query[l + 1] = 0;
		}
		return true;
	}
	if (G.v.help && key != 'q' && key != K_CTRL_C) {	/* q quits at once: one key on a slow line */
		G.v.help = false;
		return true;
	}
	if (G.v.panel && view_panel_key(key))
		return true;
	if (!(d = key_find(key)))
		return true;
	switch (d->act) {
	case KA_QUIT: return false;
	case KA_DOWN: G.v.sel++; G.v.sel_key = INT_MIN; break;
	case KA_UP: G.v.sel = G.v.sel > 0 ? G.v.sel - 1 : 0; G.v.sel_key = INT_MIN; break;
	case KA_PGDN: G.v.sel += body; G.v.sel_key = INT_MIN; break;
	case KA_PGUP: G.v.sel = G.v.sel > body ? G.v.sel - body : 0; G.v.sel_key = INT_MIN; break;
	case KA_LEFT: view_cursor(-1); break;
	case KA_RIGHT: view_cursor(1); break;
	case KA_PAN_L: view_pan(-1); break;
	case KA_PAN_R: view_pan(1); break;
	case KA_PANEL: view_panel_open(key); break;
	case KA_ZOOM_IN: view_zoom(1, 2); break;
	case KA_ZOOM_OUT: view_zoom(2, 1); break;
	case KA_WHOLE:
		view_whole(&G.v.start, &G.v.end);
		G.v.following = G.opt.live || G.v.speed > 0;
		if (G.v.following || G.v.cursor < G.v.start || G.v.cursor > G.v.end)
			G.v.cursor = G.v.following ? G.v.end : G.v.start;
		break;
	case KA_NEXT: view_change(1); break;
	case KA_PREV: view_change(-1); break;
	case KA_WAKER: view_waker(); break;
	case KA_MARK: G.v.mark = G.v.cursor; G.v.has_mark = true; break;
	case KA_ORDER: G.v.order = (G.v.order + 1) % ORD_N;
		sfmt(G.v.msg, sizeof(G.v.msg), "order: %s", ord_names[G.v.order]);
		break;
	case KA_FIND: G.v.search = true; G.v.query[0] = 0; break;
	case KA_HELP: G.v.help = true; break;
	case KA_PAUSE: if ((G.opt.live && !G.child.done) || G.v.speed > 0) G.v.want_pause = !G.v.want_pause; break;
	case KA_CPUCOL: G.v.cpucol = !G.v.cpucol; break;
	case KA_SAVE: view_save(); break;
	case KA_HIDE: G.v.hide = !G.v.hide;
		sfmt(G.v.msg, sizeof(G.v.msg), "%s", G.v.hide ? "rows with nothing in view hidden" : "all rows shown");
		break;
	case KA_SUSPEND: G.v.want_suspend = true; break;
	case KA_CLICK:
		if (my >= G.v.row0 && my < G.v.row0 + body && G.v.top + my - G.v.row0 < G.v.nrowlist) {
			G.v.sel = G.v.top + my - G.v.row0;
			G.v.sel_key = INT_MIN;
		}
		if (mx >= LABEL_W && G.term.cols > LABEL_W) {
			view_place();
			G.v.cursor = G.v.start + (G.v.end - G.v.start) * (mx - LABEL_W) / (G.term.cols - LABEL_W);
		}
		break;
	}
	if (G.v.sel < 0)
		G.v.sel = 0;
	return true;
}

/* Start the view: following, whole window. */
static void view_init(void)
{
	G.v.following = true;
	G.v.sel = 0;
	G.v.sel_key = INT_MIN;
	view_whole(&G.v.start, &G.v.end);
	G.v.cursor = G.v.end;
	if (!G.opt.live && G.v.speed <= 0) {
		G.v.following = false;
		G.v.cursor = G.v.start;
	}
	if (G.opt.live)
		lat_cidle_init();
}

/* ---------------------------------------------------------------- main loop */

/* Event e (ri its record) of a stream whose tracepoints were sampled
 * (pipe mode; a file's were scanned first: rd_unrec_scan): count what a
 * sampled one left out.  Its CPU is unknown after it (model_unplaced),
 * whatever its kind: after a FORK or EXIT record too, the switches that
 * follow may have been left out (an EXIT record's task was claimed running
 * for 8 ms after it, where the truth had other tasks run). */
NOINL void ev_unrecorded(const struct ev *e, const struct rinfo *ri)
{
	if (G.rd.unrec_scanned)
		return;
	if (e->kind < EV_NTP && ri->attr >= 0 && G.ev.attr[ri->attr].sampled) {
		uint64_t n = unrec_counted(ri, rec_unrecorded(ri));

		G.n.unrec[e->kind] += n;
		G.n.unrec_all += n;
	}
	if (G.m.task)
		model_unplaced(e);
}

/* Does emit() only pass events on to the model (emit_model)?  Not in a
 * pass of its own (G.rd.saving), nor while recording, with the flight
 * recorder or its triggers, --latency, sampled attrs or a script. */
static bool emit_plain(void)
{
	return !G.rd.saving && G.rec.fd < 0 && !G.fl.buf && G.m.task && !G.fl.ntrig && !G.opt.latency &&
	       !G.ev.sampled && !out_script;
}

/* emit() of sample r, its parse ri stamped (has_time) and of an attr of a
 * kind tc uses (no loss: emit's counts of them do not apply), where
 * emit_plain: decoded, counted, into the model (emit took 165
 * instructions a sample of tc's own, 83 so). */
HOT void emit_model(const uint8_t *r, const struct rinfo *ri)
{
	struct ev e;

	if (G.z.full || ev_decode(r, ri, &e) <= 0)
		return;
	G.n.kind[e.kind]++;
	model_event(&e);
}

/* emit_model of sample r of attr a that rec_std_at knows (time t, its
 * cpu), its raw data of rawsz bytes holding a->raw_need (ev_decode_std). */
HOT void emit_model_std(const struct attr *a, const uint8_t *r, uint64_t t, int cpu, uint32_t rawsz)
{
	struct ev e;

	if (G.z.full)
		return;
	ev_decode_std(a, r, t, cpu, rawsz, &e);
	G.n.kind[e.kind]++;
	model_event(&e);
}

/*
 * Every record released by the merge, live or from a file, comes here in
 * time order (or, where it would only go to the model, to emit_model;
 * ri: what rec_info found, or NULL to find it again): it is
 * appended to the recording (live), counted, decoded for the model and the
 * outputs when there are any.
 */
static void emit(const uint8_t *r, size_t n, uint64_t t, const struct rinfo *ri)
{
	struct rinfo tmp;
	struct ev e;
	uint32_t type = g32(r);
	bool at_end;

	if (G.rd.saving) {	/* a pass of its own (the save key's, rd_unrec_scan's): the model stays */
		if (!G.rd.scanning)
			rd_save_rec(r, n, ri);
		else if (ri) {
			if (type == PERF_RECORD_SAMPLE && ri->attr >= 0)
				rd_unrec_rec(ri);
			rd_lost_rec(r, ri);
		}
		return;
	}
	if (G.rec.fd >= 0)
		rec_record(r, n, t);
	if (G.fl.buf)
		fl_append(r, n, t);
	if (!G.m.task && !out_script && type != PERF_RECORD_LOST && type != PERF_RECORD_LOST_SAMPLES) {
		/* recording only: count by attr, no second parse (the rings'
		 * records were checked by rec_info when they were queued) */
		int a = ri ? ri->attr : rec_attr(r, n, type);
		int k = type == PERF_RECORD_SAMPLE ? (a >= 0 ? G.ev.attr[a].kind : EV_NONE) :
			type == PERF_RECORD_COMM ? EV_COMM : type == PERF_RECORD_FORK ? EV_FORK :
			type == PERF_RECORD_EXIT ? EV_EXIT : EV_NONE;

		if (k != EV_NONE)
			G.n.kind[k]++;
		return;
	}
	if (!ri) {
		if (rec_info(r, n, &tmp) < 0)
			return;
		ri = &tmp;
	}
	if (G.z.full || ev_decode(r, ri, &e) <= 0)
		return;		/* (a replay's reading child has all it can keep) */
	if (!ri->has_time && !e.time)
		e.time = t;
	G.n.kind[e.kind]++;
	at_end = type == PERF_RECORD_LOST_SAMPLES && ri->has_time && !ri->time;	/* perf record's end counts */
	if (e.kind == EV_LOST && e.v > 0 && at_end && !(g16(r + 4) & MISC_LOST_SAMPLES_BPF)) {
		/* perf record's lost count of one event, read at its end
		 * (PERF_FORMAT_LOST, time 0): the losses the LOST records of
		 * its ring placed, counted again; with --switch-output, those
		 * of all the session's files */
		*(G.rd.switch_output ? &G.n.lost_session : &G.n.lost_read) += e.v;
	} else if (e.kind == EV_LOST && e.v > 0) {
		struct lostc *l = &G.n.lostv[e.cpu >= 0 && e.cpu < 63 ? e.cpu : 63];

		G.n.lost += e.v;
		l->n += e.v;
		if (at_end)
			G.n.lost_read += e.v;	/* a BPF filter's drops: in no LOST record either */
		if (e.time) {	/* from where the first loss began: its CPU's last record */
			uint64_t from = G.m.task && e.cpu >= 0 && e.cpu < G.m.ncpu && G.m.cpu[e.cpu].last_t &&
					G.m.cpu[e.cpu].last_t < e.time ? G.m.cpu[e.cpu].last_t : e.time;

			l->first = l->first ? l->first : from;
			l->last = e.time;
		}
	}
	if (G.fl.ntrig)
		fl_check(&e);
	if (G.opt.latency)
		lat_event(&e);
	if (G.m.task)
		model_event(&e);
	if (G.ev.sampled)
		ev_unrecorded(&e, ri);
	if (out_script && G.opt.ftrace)
		out_ftrace(out_script, &e, ri);
	else if (out_script)
		out_event(out_script, &e);
}

/* Signal handlers only set flags and wake the poll loop. */
static void on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGCHLD)
		G.sig.child = 1;
	else if (sig == SIGUSR2)
		G.sig.usr2 = 1;
	else if (sig == SIGWINCH)
		G.sig.winch = 1;
	else if (sig == SIGTSTP)
		G.sig.tstp = 1;
	else if (sig == SIGCONT)
		G.sig.cont = 1;
	else
		G.sig.stop = sig;
	if (write(G.sig.pipe[1], "s", 1) < 0)
		G.sig.child |= 0;	/* the pipe is full: a wakeup is pending anyway */
	errno = saved;
}

/* Install on_signal for sig.  The calls it interrupts go on (SA_RESTART),
 * but where sig ends tc: a write to a reader that does not read, or a read
 * of a writer that does not write, then returns, so that tc stops. */
static void sig_setup_one(int sig)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	if (sig == SIGCHLD || sig == SIGUSR2 || sig == SIGWINCH || sig == SIGTSTP || sig == SIGCONT)
		sa.sa_flags = SA_RESTART;
	sigaction(sig, &sa, NULL);
}

/* Stop tc as sig (SIGTSTP, SIGSTOP) does by default, its own SIGTSTP
 * handler out of the way, until it is continued (fg, bg, SIGCONT); a
 * Ctrl-Z that came meanwhile is spent. */
static void stop_self(int sig)
{
	signal(SIGTSTP, SIG_DFL);
	raise(sig);
	sig_setup_one(SIGTSTP);
	G.sig.tstp = 0;
}

/* Install the handlers and the self-pipe.  Every signal whose default
 * ends a process stops tc as SIGTERM does (the terminal restored, the
 * command and what it started ended), but the faults' and SIGKILL, and
 * SIGHUP when tc was started ignoring it (nohup: tc and its command
 * outlive the terminal). */
static void sig_setup(void)
{
	struct sigaction hup;

	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGWINCH, SIGTSTP, SIGCONT,
				    SIGUSR2, SIGUSR1, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO,
				    SIGSYS, SIGPWR };

	if (pipe2(G.sig.pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		die("pipe: %s", strerror(errno));
	sigaction(SIGHUP, NULL, &hup);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigs[i] != SIGHUP || hup.sa_handler != SIG_IGN)
			sig_setup_one(sigs[i]);
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
		sig_setup_one(s);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * End the capture, once: disable the events, release everything still in
 * the rings, close the recording if there is one, wait until every file
 * saved is on the disk (rec_fsync_later).  The view calls it when its
 * command has exited (product.md: recording stops then; in_view: a flight
 * file is said on the status line), capture_stop at the end.
 */
static void capture_off(bool in_view)
{
	uint64_t t0;

	if (G.rg.off)
		return;
	G.rg.off = true;
	pe_enable(false);
	pe_flush();
	pe_read_lost();
	pe_lost_unsaid();
	t0 = now_ns();
	if (G.rec.fd >= 0) {
		rec_round();
		rec_close();
	}
	if (G.fl.secs_ns)
		fl_stop(in_view);
	rec_fsync_reap(true);	/* every file written is on the disk */
	G.rec.close_ns = now_ns() - t0;	/* out_stats says it when the disk was slow */
}

/*
 * Stop capturing (capture_off) and stop the command.  Returns the
 * command's exit status (128+signal if killed) if it ended on its own;
 * 0 if tc ended it (q, -d, SIGINT, SIGTERM) or there is none.
 */
static int capture_stop(void)
{
	int status = 0;
	bool ended_by_tc = G.opt.cmd && !cmd_reap();

	capture_off(false);
	if (G.opt.cmd) {
		cmd_kill();
		if (ended_by_tc)
			status = 0;
		else if (WIFEXITED(G.child.status))
			status = WEXITSTATUS(G.child.status);
		else if (WIFSIGNALED(G.child.status))
			status = 128 + WTERMSIG(G.child.status);
	}
	return status;
}

/*
 * Live start-up shared by --record and the view: the events opened (not
 * yet enabled), the reader's priority (-r), a model if model (the view;
 * --record only counts), the recording opened, the command forked and held
 * (before the COMM records, so it has a name), the names of the running
 * tasks.
 */
static void capture_start(bool model)
{
	int nonline = 0;
	struct rlimit rl = { 0, 0 };

	pe_setup();
	if (G.opt.rt && G.opt.rt != RT_AUTO && !pe_sched((int)G.opt.rt)) {
		getrlimit(RLIMIT_RTPRIO, &rl);
		die("-r %d: SCHED_FIFO is not permitted (%s): run as root, give tc CAP_SYS_NICE, or raise "
		    "ulimit -r (now %llu) to %d", (int)G.opt.rt, strerror(errno), (unsigned long long)rl.rlim_cur,
		    (int)G.opt.rt);
	}
	if (model) {
		model_init(G.m.ncpu, TC_MAX_TASKS, TC_MAX_IVALS);
		if (!G.opt.rec_path || G.fl.secs_ns)
			fl_init();	/* what the save key writes, and --live --flight */
	} else if (G.fl.secs_ns) {	/* memory only; the model for triggers and names */
		fl_init();
		model_init(G.m.ncpu, TC_MAX_TASKS, 0);
		memset(G.m.task, 0, TC_MAX_TASKS * sizeof(*G.m.task));	/* resident now, not as tasks come */
	}
	for (int c = 0; c < G.m.ncpu; c++)
		nonline += G.m.cpu_online[c];
	if (G.opt.rec_path && !G.fl.secs_ns) {
		rec_open(nonline);
		rec_sync_start();
	}
	if (G.opt.cmd)
		cmd_start();	/* before the COMM records, so it has a name */
	if (!G.opt.power_only)
		rec_synth_comms();
	if (G.rec.fd >= 0)
		rec_round();
}

/* The event pump, once per loop pass: drain the rings and release what
 * is safe (pe_pass), then end the round and write a checkpoint when due. */
static void capture_pump(void)
{
	uint64_t pos = G.rec.pos;

	pe_pass(false);
	pe_priority();
	rec_fsync_reap(false);
	if (G.rec.fd >= 0 && G.rec.pos != pos)
		rec_round();
	if (G.rec.fd >= 0 && now_ns() - G.rec.ckpt_ns >= CKPT_NS)
		rec_checkpoint();
}

/*
 * tc --record: capture until the command exits, a signal, or --duration;
 * then disable the events, drain and release everything, close the file.
 * Returns tc's exit status (the command's, 128+signal if it was killed).
 */
static int run_record(void)
{
	struct pollfd *pfd;
	uint64_t t_start, t_end = 0;
	int status = 0;

	sig_setup();
	if (G.opt.cmd)
		guard_start();
	capture_start(false);
	pe_enable(true);
	t_start = now_ns();
	if (G.opt.duration > 0)
		t_end = t_start + (uint64_t)(G.opt.duration * 1e9);
	if (G.opt.cmd)
		cmd_go();
	pfd = xcalloc(G.rg.nrb + 1, sizeof(*pfd));
	for (int i = 0; i < G.rg.nrb; i++) {
		pfd[i].fd = G.rg.rb[i].fd;
		pfd[i].events = POLLIN;
	}
	pfd[G.rg.nrb].fd = G.sig.pipe[0];
	pfd[G.rg.nrb].events = POLLIN;
	for (;;) {
		int timeout = G.child.done ? 10 : PASS_MS;	/* its last switch-out is due */
		char drain[64];

		if (t_end) {
			uint64_t now = now_ns();

			if (now >= t_end)
				break;
			if ((t_end - now) / 1000000 < (uint64_t)timeout)
				timeout = (t_end - now) / 1000000 + 1;
		}
		poll(pfd, G.rg.nrb + 1, timeout);
		while (read(G.sig.pipe[0], drain, sizeof(drain)) > 0)
			;
		if (G.sig.tstp)
			rec_suspend();
		capture_pump();
		if (G.fl.buf && fl_poll(false))
			break;
		if (G.sig.stop || (G.opt.cmd && cmd_reap() && cmd_out()))
			break;
	}
	mem_free(pfd);
	status = capture_stop();
	out_stats(G.fl.buf ? "kept" : "recorded", (G.rg.on_until - t_start) / 1e9, G.fl.buf ? 0 : G.rec.pos);
	if (G.sig.stop && !G.opt.cmd)
		status = 0;
	return status;
}

/* A pause in the recording: a LOST_SAMPLES record of 0 samples at time t,
 * so that the model, live and on replay, closes every state at the last
 * event before it (perf reads it as an empty loss report). */
static void pause_marker(uint64_t t)
{
	struct lost_samples_rec r = {
		.h = { .type = PERF_RECORD_LOST_SAMPLES, .size = sizeof(r) },
		.sid = { .time = t, .id = G.ev.attr[G.ev.nattr - 1].ids[0] },	/* TID 0, CPU 0 */
	};

	emit((const uint8_t *)&r, sizeof(r), t, NULL);
}

/*
 * Pause (on) or resume recording.  Pausing disables the events in the
 * kernel, drains every ring and releases everything recorded before it, so
 * all of it is shown, then marks the gap: each pause has its own.
 */
static void view_pause(bool on)
{
	if (on) {
		pe_enable(false);
		pe_flush();
		pause_marker(now_ns());
		if (G.rec.fd >= 0)
			rec_round();
	} else {
		pe_enable(true);
	}
	G.v.paused = on;
}

/* Ctrl-Z or SIGTSTP: restore the terminal, stop, and repaint after fg. */
static void view_suspend(void)
{
	term_restore();
	stop_self(SIGTSTP);
	term_raw();
	G.v.want_suspend = false;
}

/* The view's main loop state: the paced replay's clock, the key bytes
 * not decoded yet, the frame timer. */
struct vloop {
	uint64_t wall0, data0;		/* paced replay: data0 was at wall0 (less pauses) */
	uint64_t pause_t;		/* paced replay: paused at this wall time */
	uint64_t next_frame, esc_t, rate_t, rate_n;
	uint64_t frame_t;		/* the last frame drawn */
	uint64_t skipped;		/* frames put off for the rings (live) */
	uint8_t kb[64];
	size_t kn;
	bool quit_by_user;
};

/* A stream in the view: wait (on a plain terminal, before the view) for its
 * first events, so that the model knows its CPUs. */
static void view_wait_stream(void)
{
	while (!G.m.first && !G.rc.eof && !G.sig.stop) {
		struct pollfd p = { .fd = G.rc.fd, .events = POLLIN };

		poll(&p, 1, PASS_MS);
		rd_run(UINT64_MAX);
	}
	G.v.ended = G.rc.eof;
}

/*
 * Start the view: live, the capture set up and enabled (and the command
 * let go); replay, the recording read (all of it, or up to its first
 * record when paced); the terminal in raw mode.
 */
static void view_start(struct vloop *l)
{
	term_check();
	sig_setup();
	guard_start();
	G.v.window_ns = G.v.window_ns ? G.v.window_ns : 10 * NS_PER_SEC;
	if (G.opt.live) {
		capture_start(true);
	} else {
		rd_open(G.opt.replay_path);
		G.rd.follow = G.rd.fsize == UINT64_MAX;	/* a stream: shown as it comes */
		if (G.rd.follow) {
			G.v.speed = 1;	/* rolling like live, at the stream's pace */
			view_wait_stream();
		} else if (G.v.speed > 0) {
			rd_run(0);	/* up to the first timed record */
			l->data0 = G.rc.next_t;
		} else {
			G.rd.prog_t0 = now_ns();
			rd_run(UINT64_MAX);
			rd_progress_end();
			if (!rd_useful(G.opt.replay_path)) {
				guard_done();
				exit(1);
			}
		}
		if (!G.m.task)
			die("%s holds no events", G.opt.replay_path);
	}
	rows_alloc(TC_MAX_TASKS);
	if (G.opt.live)
		pe_enable(true);
	if (G.opt.live && G.opt.cmd)
		cmd_go();	/* before the view: an exec failure is said on a sane terminal */
	term_init();
	l->wall0 = l->rate_t = now_ns();
	G.v.now = G.opt.live ? l->wall0 : G.rd.follow ? G.m.last : G.v.speed > 0 ? l->data0 : G.m.last;
	view_init();
	if (G.rd.mark[0]) {	/* a flight recording: the cursor at what fired */
		uint64_t t;

		sfmt(G.v.msg, sizeof(G.v.msg), "%s", fl_mark_text(G.rd.mark, &t));
		if (t >= G.v.start && t <= G.v.end)
			G.v.cursor = t;
	}
}

/* Read and act on the keys waiting; false when tc should quit. */
static bool view_input(struct vloop *l, bool readable, uint64_t now)
{
	if (readable) {
		ssize_t n = read(G.term.tty_in, l->kb + l->kn, sizeof(l->kb) - l->kn);

		if (n > 0)
			l->kn += n;
	}
	while (l->kn) {
		int key = K_NONE, mx = 0, my = 0;
		size_t used = key_decode(l->kb, l->kn, &key, &mx, &my);

		if (!used) {	/* the start of a sequence: wait a little */
			if (!l->esc_t)
				l->esc_t = now;
			if (now - l->esc_t < 30 * 1000000ull && l->kn < sizeof(l->kb))
				break;
			key = K_ESC;
			used = 1;
		}
		l->esc_t = 0;
		memmove(l->kb, l->kb + used, l->kn - used);
		l->kn -= used;
		if (key != K_NONE && !view_key(key, mx, my)) {
			l->quit_by_user = !G.child.done;
			return false;
		}
		l->next_frame = 0;
	}
	if (G.v.want_pause != G.v.paused && G.opt.live) {
		view_pause(G.v.want_pause);
	} else if (G.v.want_pause != G.v.paused) {	/* paced replay: its clock stops */
		if (G.v.want_pause)
			l->pause_t = now;
		else
			l->wall0 += now - l->pause_t;
		G.v.paused = G.v.want_pause;
	}
	return true;
}

/* The events of one loop pass: the rings (live, not paused: paused, the
 * picture stays), the file up to the paced time, the command's exit, the
 * event rate. */
static void view_events(struct vloop *l, uint64_t now)
{
	if (G.opt.live && !G.v.paused && !G.rg.off) {
		capture_pump();
		G.v.now = G.mg.pass_bound;
	}
	if (G.opt.live && G.fl.secs_ns)
		fl_poll(true);
	if (G.rd.follow && !G.v.ended) {	/* what the stream has brought */
		G.v.ended = rd_run(UINT64_MAX) != 2;	/* its end, or a broken record */
		if (G.m.last > G.v.now)
			G.v.now = G.m.last;
	} else if (G.v.speed > 0 && !G.v.ended && !G.v.paused) {
		uint64_t limit = l->data0 + (uint64_t)((now - l->wall0) * G.v.speed);

		G.v.ended = rd_run(limit) != 1;
		G.v.now = limit;
	}
	if (G.opt.live && G.opt.cmd && (G.sig.child || G.child.done)) {
		G.sig.child = 0;
		if (cmd_reap() && !G.v.exit[0]) {
			const char *b = strrchr(G.opt.cmd[0], '/');

			b = b && b[1] ? b + 1 : G.opt.cmd[0];
			if (WIFEXITED(G.child.status))
				sfmt(G.v.exit, sizeof(G.v.exit), "%.20s exited (status %d): q quits", b,
				     WEXITSTATUS(G.child.status));
			else
				sfmt(G.v.exit, sizeof(G.v.exit), "%.20s killed by signal %d: q quits", b,
				     WTERMSIG(G.child.status));
		}
	}
	if (G.opt.live && G.opt.cmd && G.child.done && !G.rg.off && cmd_out()) {
		capture_off(true);	/* its last switch-out is in: the capture ends with it */
		G.v.now = G.m.last > G.v.now ? G.m.last : G.v.now;	/* all released: up to the last */
		G.v.paused = G.v.want_pause = false;	/* not paused: ended */
	}
	if (now - l->rate_t >= NS_PER_SEC) {
		uint64_t n = 0;

		for (int k = 0; k < EV_NKIND; k++)
			n += G.n.kind[k];
		G.v.ev_rate = (n - l->rate_n) * NS_PER_SEC / (now - l->rate_t);
		l->rate_n = n;
		l->rate_t = now;
	}
}

/* Draw and write a frame, and time the next: at most ~5% of a CPU
 * drawing, and no faster than the terminal takes the bytes. */
static void view_frame(struct vloop *l)
{
	uint64_t t0 = now_ns(), cost, wire;
	struct timespec c0, c1;
	size_t bytes;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
	view_refresh();
	view_exact();
	draw_frame();
	bytes = draw_diff();
	cost = now_ns() - t0;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
	G.term.frame_ns += (c1.tv_sec - c0.tv_sec) * NS_PER_SEC + c1.tv_nsec - c0.tv_nsec;
	ob_flush();
	G.term.frames++;
	wire = bytes * NS_PER_SEC / (G.term.bps ? G.term.bps : 1);
	G.v.refresh_ns = 33 * 1000000ull;
	if (cost * 20 > G.v.refresh_ns)
		G.v.refresh_ns = cost * 20;
	if (wire * 3 / 2 > G.v.refresh_ns)
		G.v.refresh_ns = wire * 3 / 2;
	if (G.v.refresh_ns > 2 * NS_PER_SEC)
		G.v.refresh_ns = 2 * NS_PER_SEC;
	l->next_frame = now_ns() + G.v.refresh_ns;
}

/*
 * The terminal view: --live (events from the rings), --replay FILE (the
 * whole recording loaded first), --replay FILE --speed N (records fed at
 * N times their pace through the same rolling view as live).  One poll()
 * loop serves the rings, the keys, the signals and the frame timer; a
 * frame is drawn only when the previous one is out, so a slow terminal
 * drops frames, never events.  Returns tc's exit status.
 */
static int run_view(void)
{
	struct vloop l = { 0 };
	struct pollfd *pfd;
	int status = 0, np;

	view_start(&l);
	pfd = xcalloc(G.rg.nrb + 3, sizeof(*pfd));
	for (;;) {
		uint64_t now = now_ns();
		int timeout = l.next_frame > now ? (int)((l.next_frame - now) / 1000000) + 1 : 0;
		char drain[64];

		if (timeout > PASS_MS)
			timeout = PASS_MS;
		if (l.kn && timeout > 30)
			timeout = 30;
		np = 0;
		pfd[np++] = (struct pollfd){ .fd = G.sig.pipe[0], .events = POLLIN };
		pfd[np++] = (struct pollfd){ .fd = G.term.tty_in, .events = POLLIN };
		pfd[np++] = (struct pollfd){ .fd = 1, .events = G.term.ob_len ? POLLOUT : 0 };
		for (int i = 0; G.opt.live && !G.v.paused && !G.rg.off && i < G.rg.nrb; i++)
			pfd[np++] = (struct pollfd){ .fd = G.rg.rb[i].fd, .events = POLLIN };
		poll(pfd, np, timeout);
		while (read(G.sig.pipe[0], drain, sizeof(drain)) > 0)
			;
		now = now_ns();
		if (G.sig.stop || (G.opt.live && G.opt.duration > 0 && now - l.wall0 >= G.opt.duration * 1e9))
			break;
		if (G.sig.winch) {
			G.sig.winch = 0;
			term_size();
			l.next_frame = 0;
		}
		if (G.sig.tstp || G.v.want_suspend)
			view_suspend();
		if (G.sig.cont) {	/* after a stop from outside: raw mode again, redraw */
			G.sig.cont = 0;
			term_raw();
			G.term.full_redraw = true;
			l.next_frame = 0;
		}
		if (!view_input(&l, pfd[1].revents & (POLLIN | POLLHUP), now))
			break;
		view_events(&l, now);
		/* the frame, when the previous one is out and it is time */
		if (G.term.ob_len && !ob_flush())
			continue;
		if (now >= l.next_frame && G.opt.live && pe_fill() > 512 && now - l.frame_t < NS_PER_SEC) {
			l.skipped++;	/* a ring over half full: drain first, draw later (a frame a second) */
			l.next_frame = now;
			continue;
		}
		if (now >= l.next_frame) {
			view_frame(&l);
			l.frame_t = now;
		}
	}
	mem_free(pfd);
	rd_history_stop();
	term_restore();
	if (G.opt.live) {
		status = capture_stop();
		out_stats(G.opt.rec_path ? "recorded" : "watched", (G.rg.on_until - l.wall0) / 1e9,
			  G.opt.rec_path ? G.rec.pos : 0);
	}
	note("%" PRIu64 " frames (%" PRIu64 " us of CPU each to draw), %" PRIu64 " bytes to the terminal%s",
	     G.term.frames, G.term.frames ? G.term.frame_ns / G.term.frames / 1000 : 0, G.term.bytes_out,
	     l.skipped ? ", frames put off while a ring was over half full" : "");
	/* quitting the view stops the command: that is not its failure */
	return l.quit_by_user || (G.sig.stop && !G.opt.cmd) ? 0 : status;
}

/* tc --replay: read the recording to the outputs. */
static int run_replay(void)
{
	uint64_t t0 = now_ns();
	int ret, chained = 1;

	rd_open(G.opt.replay_path);
	if (G.rc.cut)
		note("%s was cut off: reading up to its last complete record", G.opt.replay_path);
	if (G.rd.mark[0]) {
		uint64_t t;

		note("%s", fl_mark_text(G.rd.mark, &t));
	}
	if (out_script && G.opt.ftrace)
		out_ftrace_head(out_script);	/* once the file is known to be one */
	if (FAST)	/* (the view's panels read them) */
		lat.off = !G.opt.latency && !G.opt.chain_tid;
	ret = rd_run(UINT64_MAX);
	if (out_script) {
		out_flush(out_script);
		if (!out_script_skipped(G.opt.replay_path))
			return 1;
	}
	if ((G.opt.summary || G.opt.states) && !rd_useful(G.opt.replay_path))
		return 1;
	if (G.opt.states && G.m.task) {
		model_end(true);
		out_states_totals(&tc_out);
	}
	if (G.opt.summary && G.m.task) {
		model_end(true);
		if (G.opt.cpu_filt)	/* a task's states are not split by CPU */
			note("-C %s: the CPU rows are of these CPUs; the task rows are of every CPU in %s",
			     G.opt.cpu_arg, G.opt.replay_path);
		out_summary(&tc_out);
		if (G.opt.latency)
			out_latency(&tc_out);
		if (G.opt.chain_tid && !(chained = out_chain(&tc_out, G.opt.chain_tid)))
			note("--chain %" PRIu64 ": task %" PRIu64 " was never woken in %s: no chain", G.opt.chain_tid,
			     G.opt.chain_tid, G.opt.replay_path);
		out_flush(&tc_out);
	}
	out_unrecorded();
	cover_note();
	if (lost_total() || G.bad.order || G.bad.corrupt || G.bad.id || G.bad.cpu || G.m.bad_pid ||
	    G.m.evicted_tasks || G.m.inferred || G.m.missing_out || G.mg.forced || G.n.unrec_all || G.m.part)
		out_stats("replayed", (now_ns() - t0) / 1e9, 0);
	return (ret < 0 && !G.rc.cut) || !chained ? 1 : 0;
}

#ifdef TC_FUZZ
/*
 * Fuzzing only (built with -DTC_FUZZ; make fuzz): the view of a recording
 * drawn headless.  TC_FUZZ_VIEW="ROWS COLS KEYS" renders a first frame at
 * ROWSxCOLS, then one frame after each key that KEYS decodes to (escape
 * sequences and mouse reports included) into the frame buffer and its
 * diff, which are thrown away; q ends early.  Returns tc's exit status.
 */
static int fuzz_view(const char *spec)
{
	int rows = 0, cols = 0, off = 0;
	const uint8_t *kb;
	size_t kn;

	if (sscanf(spec, "%d %d %n", &rows, &cols, &off) < 2 || rows < 1 || rows > 500 || cols < 1 || cols > 1000)
		die("TC_FUZZ_VIEW: \"ROWS COLS KEYS\" is needed");
	rd_open(G.opt.replay_path);
	rd_run(UINT64_MAX);
	if (!G.m.task)
		die("%s holds no events", G.opt.replay_path);
	scr_alloc(rows, cols);
	rows_alloc(TC_MAX_TASKS);
	G.v.now = G.m.last;
	if (!G.m.first)
		G.m.first = G.v.now;
	view_init();
	kb = (const uint8_t *)spec + off;
	kn = strlen(spec + off);
	for (bool more = true; more;) {
		int key = K_NONE, mx = 0, my = 0;
		size_t used = kn ? key_decode(kb, kn, &key, &mx, &my) : 0;

		view_refresh();
		draw_frame();
		draw_diff();
		G.term.ob_len = G.term.ob_off = 0;
		G.term.frames++;
		if (!kn)
			break;
		if (!used) {		/* an unfinished sequence: Esc, as after the timeout */
			key = K_ESC;
			used = 1;
		}
		kb += used;
		kn -= used;
		more = key == K_NONE || view_key(key, mx, my);
	}
	ofmt(&tc_out, "%" PRIu64 " frames\n", G.term.frames);
	return 0;
}
#endif

/* ---------------------------------------------------------------- options and main */

/*
 * The command line is one table: a row per option, with its names, how
 * its value is read and bounded, the field it sets, the modes it goes
 * with and its help line.  parse_args, --help (and from it the man page
 * tc.1, make tc.1) and the test of README's option list all read it, so
 * the four never disagree.
 */

/* What a command does, for the options that go with it. */
enum mode {
	MD_LIVE = 1, MD_RECORD = 2, MD_VIEW = 4, MD_SUMMARY = 8, MD_SCRIPT = 16, MD_STATES = 32,
	MD_REPAIR = 64, MD_FLIGHT = 128,
	MD_NMODE = 8,
	MD_CAPTURE = MD_LIVE | MD_RECORD,	/* tracing the kernel */
	MD_SCREEN = MD_LIVE | MD_VIEW,		/* the terminal view */
};
static const char *const mode_names[MD_NMODE] = {
	"--live", "--record", "--replay (the view)", "--summary", "--script", "--states", "--repair", "--flight",
};

/* How an option's value is read. */
enum oarg {
	OA_FLAG,	/* none: the bool field is set */
	OA_STR,		/* the value, as given (a const char * field) */
	OA_UINT,	/* a whole number in [lo, hi] (a uint64_t field) */
	OA_DEC,		/* a decimal number in [lo, hi] (a double field) */
	OA_NS,		/* seconds in [lo, hi] (a uint64_t field of ns) */
	OA_FN,		/* fn reads it; false: refused */
};
enum { OF_POS = 1, OF_POW2 = 2, OF_REPEAT = 4 };	/* above lo, a power of two, repeatable */

static bool opt_pid(const char *v);
static bool opt_cpus(const char *v);

static const struct optdef {
	const char *name;	/* --long */
	char letter;		/* -x, or 0 */
	uint8_t arg, flags;	/* enum oarg, OF_* */
	uint16_t modes;		/* the modes it goes with; 0: it names the mode */
	const char *meta;	/* its value in --help */
	void *p;		/* the field it sets */
	uint32_t lo, hi;
	bool (*fn)(const char *v);
	const char *help;	/* '\n' continues on the next line */
} optdefs[] = {
	{ "--live", 0, OA_FLAG, 0, 0, NULL, &G.opt.live, 0, 0, NULL, NULL },
	{ "--record", 0, OA_STR, 0, 0, NULL, &G.opt.rec_path, 0, 0, NULL, NULL },
	{ "--replay", 0, OA_STR, 0, 0, NULL, &G.opt.replay_path, 0, 0, NULL, NULL },
	{ "--repair", 0, OA_STR, 0, 0, NULL, &G.opt.repair_path, 0, 0, NULL, NULL },
	{ "--summary", 0, OA_FLAG, 0, 0, NULL, &G.opt.summary, 0, 0, NULL, NULL },
	{ "--script", 0, OA_FLAG, 0, 0, NULL, &G.opt.script, 0, 0, NULL, NULL },
	{ "--states", 0, OA_FLAG, 0, 0, NULL, &G.opt.states, 0, 0, NULL, NULL },
	{ "--power-only", 'P', OA_FLAG, 0, MD_CAPTURE | MD_VIEW, NULL, &G.opt.power_only, 0, 0, NULL,
	  "CPU rows only: idle states and frequency" },
	{ "--tasks-only", 'T', OA_FLAG, 0, MD_CAPTURE, NULL, &G.opt.tasks_only, 0, 0, NULL,
	  "scheduler events only, no power events" },
	{ "--io", 'I', OA_FLAG, 0, MD_CAPTURE, NULL, &G.opt.io, 0, 0, NULL,
	  "also trace I/O system calls (read, write, sync, ...)" },
	{ "--irq", 'Q', OA_FLAG, 0, MD_CAPTURE, NULL, &G.opt.irq, 0, 0, NULL,
	  "also trace hard interrupts and softirqs" },
	{ "--realtime", 'r', OA_UINT, 0, MD_CAPTURE, "PRIO", &G.opt.rt, 0, 99, NULL,
	  "reader at SCHED_FIFO PRIO (0: never; default:\n"
	  "SCHED_DEADLINE while a ring is over half full)" },
	{ "--pid", 'p', OA_FN, OF_REPEAT, MD_LIVE | MD_VIEW | MD_SUMMARY | MD_FLIGHT, "PID|NAME", NULL, 0, 0,
	  opt_pid, "only these tasks (repeatable, at most 32)" },
	{ "--cpu", 'C', OA_FN, 0, MD_CAPTURE | MD_VIEW | MD_SUMMARY, "LIST", NULL, 0, 0, opt_cpus,
	  "only these CPUs (0-3,6)" },
	{ "--window", 'w', OA_NS, OF_POS, MD_SCREEN, "SECONDS", &G.v.window_ns, 0, 1e6, NULL,
	  "width of the rolling live window (default 10)" },
	{ "--duration", 'd', OA_DEC, OF_POS, MD_CAPTURE, "SECONDS", &G.opt.duration, 0, 1e9, NULL,
	  "stop recording after this long" },
	{ "--mmap-pages", 'm', OA_UINT, OF_POW2, MD_CAPTURE, "N", &G.opt.mmap_pages, 1, 1 << 20, NULL,
	  "ring pages per CPU, a power of two (default: RAM/CPUs\n"
	  "/ 512, from 128 KiB to 2 MiB)" },
	{ "--latency", 0, OA_FLAG, 0, MD_SUMMARY, NULL, &G.opt.latency, 0, 0, NULL,
	  "worst waits, who held the CPUs, wait percentiles" },
	{ "--chain", 0, OA_UINT, 0, MD_SUMMARY, "TID", &G.opt.chain_tid, 1, PID_MAX, NULL,
	  "who woke TID last, who woke that one, ..." },
	{ "--ftrace", 0, OA_FLAG, 0, MD_SCRIPT, NULL, &G.opt.ftrace, 0, 0, NULL,
	  "the kernel's trace text format (Perfetto opens it)" },
	{ "--speed", 0, OA_DEC, OF_POS, MD_VIEW, "N", &G.v.speed, 0, 1e6, NULL,
	  "replay at N times the recorded pace" },
	{ "--flight", 0, OA_NS, OF_POS, MD_CAPTURE, "SECONDS", &G.fl.secs_ns, 0, 1e6, NULL,
	  "keep the last SECONDS in memory (with --record FILE);\n"
	  "write FILE when a trigger fires, on SIGUSR2, at stop" },
	{ "--trigger", 0, OA_FN, OF_REPEAT, MD_FLIGHT, "COND", NULL, 0, 0, fl_parse_trigger,
	  "wait>D, blocked>D, run>D (D like 500us, 30ms, 2s)\n"
	  "or lost; at most 8; -p narrows them to those tasks" },
	{ "--after", 0, OA_NS, 0, MD_FLIGHT, "SECONDS", &G.fl.after_ns, 0, 1e6, NULL,
	  "recorded after a trigger (default 1)" },
	{ "--keep", 0, OA_UINT, 0, MD_FLIGHT, "N", &G.fl.keep, 1, 4096, NULL,
	  "at most N files FILE, FILE.1, ... (default 1)" },
	{ "--flight-mem", 0, OA_UINT, 0, MD_FLIGHT | MD_LIVE, "MIB", &G.fl.mem_mib, 1,
	  sizeof(size_t) < 8 ? 1024 : 4096, NULL, "flight recorder memory (default 16 a second kept)" },
	{ "--history", 0, OA_UINT, 0, MD_SCREEN, "MIB", &G.hist.mib, 1, sizeof(size_t) < 8 ? 1024 : 4095, NULL,
	  "memory for the view's history (default 64)" },
	{ "--ascii", 0, OA_FLAG, 0, MD_SCREEN, NULL, &G.term.ascii, 0, 0, NULL, "no UTF-8 block characters" },
	{ "--no-color", 0, OA_FLAG, 0, MD_SCREEN, NULL, &G.term.no_color, 0, 0, NULL,
	  "monochrome (also when NO_COLOR is set)" },
	{ "--help", 'h', OA_FLAG, 0, 0, NULL, NULL, 0, 0, NULL, NULL },	/* these two: at once */
	{ "--version", 0, OA_FLAG, 0, 0, NULL, NULL, 0, 0, NULL, NULL },
};
#define N_OPTS ((int)(sizeof(optdefs) / sizeof(optdefs[0])))

/* -p PID|NAME: one more task filter; false when there are too many. */
static bool opt_pid(const char *v)
{
	if (G.opt.nfilt == (int)(sizeof(G.opt.filt) / sizeof(G.opt.filt[0])))
		return false;
	G.opt.filt[G.opt.nfilt++] = v;
	return true;
}

/* -C LIST: the CPUs to show or trace; false if the list is malformed. */
static bool opt_cpus(const char *v)
{
	int n = cpulist_count(v);

	G.opt.cpu_filt = xcalloc(MAX_CPUS, sizeof(bool));
	G.opt.cpu_arg = v;
	if (n > MAX_CPUS)
		die("-C %s: CPU numbers go up to %d", v, MAX_CPUS - 1);
	return parse_cpulist(v, G.opt.cpu_filt, MAX_CPUS) && n;
}

/* The modes of mask as words: "--live or --record". */
static void opt_modes_text(char *s, size_t n, unsigned mask)
{
	size_t l = 0;
	int k = 0;

	s[0] = 0;
	for (int m = 0; m < MD_NMODE; m++)
		if (mask & 1u << m)
			l += sfmt(s + l, l < n ? n - l : 0, "%s%s", k++ ? (mask >> (m + 1) ? ", " : " or ") : "",
				  mode_names[m]);
}

/* What a value of option o must be, in the words of every error about it. */
static void opt_want(char *s, size_t n, const struct optdef *o)
{
	const char *what = o->arg == OA_NS || (o->meta && !strcmp(o->meta, "SECONDS")) ? "a number of seconds" :
			   o->flags & OF_POW2 ? "a power of two" : o->arg == OA_UINT ? "a whole number" : "a number";
	size_t l;

	if (o->arg != OA_FN) {
		sfmt(s, n, "%s %s %u %s %u is needed", what, o->flags & OF_POS ? "above" : "from", o->lo,
		     o->flags & OF_POS ? "and at most" : "to", o->hi);
		return;
	}
	l = sfmt(s, n, "expected %s: ", o->meta);
	for (const char *h = o->help; *h && l + 1 < n; h++)
		s[l++] = *h == '\n' ? ' ' : *h;
	s[l < n ? l : n - 1] = 0;
}

/* Set option o, given as a, from its value v (NULL for a flag); dies if
 * v is refused. */
static void opt_set(const struct optdef *o, const char *a, const char *v)
{
	char want[256], *end = (char *)v;
	double d = 0;

	if (o->arg == OA_UINT)
		d = (double)num_u(v, &end, 10);
	else if (o->arg == OA_DEC || o->arg == OA_NS)
		d = num_dec(v, &end);
	if (o->arg == OA_FN ? !o->fn(v) :
	    o->arg >= OA_UINT && (end == v || *end || d < o->lo || d > o->hi || ((o->flags & OF_POS) && !(d > o->lo)) ||
				  ((o->flags & OF_POW2) && ((uint64_t)d & ((uint64_t)d - 1))))) {
		opt_want(want, sizeof(want), o);
		die("%s %s: %s", a, v, want);
	}
	switch (o->arg) {
	case OA_FLAG: *(bool *)o->p = true; break;
	case OA_STR: *(const char **)o->p = v; break;
	case OA_UINT: *(uint64_t *)o->p = d; break;
	case OA_DEC: *(double *)o->p = d; break;
	case OA_NS: *(uint64_t *)o->p = d * 1e9; break;
	}
}

/* --help: the commands, then every option and key from their tables. */
static void usage(struct out *f)
{
	oputs("usage: tc --live [options] [-- command [args...]]     watch live\n"
	      "       tc --record FILE|- [options] [-- command ...]   record, no view\n"
	      "       tc --live --record FILE [options] [-- ...]      watch and record\n"
	      "       tc --replay FILE|- [--speed N]                  browse a recording\n"
	      "       tc --replay FILE|- --summary [--latency] [--chain TID]  totals\n"
	      "       tc --replay FILE|- --script [--ftrace]          every event\n"
	      "       tc --replay FILE|- --states                     every state interval\n"
	      "       tc --repair FILE                    make a cut-off recording whole\n"
	      "       tc --help | --version\n"
	      "options:\n", f);
	for (int i = 0; i < N_OPTS; i++) {
		const struct optdef *o = &optdefs[i];
		char name[40];
		int n;

		if (!o->help)
			continue;
		n = sfmt(name, sizeof(name), "%c%c%s%s%s%s", o->letter ? '-' : ' ', o->letter ? o->letter : ' ',
			 o->letter ? ", " : "  ", o->name, o->meta ? " " : "", o->meta ? o->meta : "");
		ofmt(f, "  %s%*s", name, n < 24 ? 24 - n : 1, "");
		for (const char *h = o->help; *h; h++)
			if (*h != '\n')
				oputc(*h, f);
			else
				ofmt(f, "\n%26s", "");
		oputc('\n', f);
	}
	oputs("keys in the view:\n", f);
	key_help(f);
}

/* Parse argv into G; exits on --help, --version and errors.  Every option
 * is checked against the modes its row names, in the same words. */
static void parse_args(int argc, char **argv)
{
	uint8_t given[N_OPTS] = { 0 };
	unsigned mode;
	char modes[160];

	G.opt.argc = argc;
	G.opt.argv = argv;
	G.fl.keep = 1;
	G.fl.after_ns = NS_PER_SEC;
	G.opt.rt = RT_AUTO;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct optdef *o = NULL;

		if (!strcmp(a, "--")) {
			if (i + 1 < argc)
				G.opt.cmd = argv + i + 1;
			break;
		}
		for (int k = 0; k < N_OPTS && !o; k++)
			if (!strcmp(a, optdefs[k].name) || (a[0] == '-' && a[1] == optdefs[k].letter && a[1] && !a[2]))
				o = &optdefs[k];
		if (!o) {
			usage(&tc_err);
			die("unknown option %s", a);
		}
		if (!o->p && !o->fn) {	/* --help, --version */
			if (!strcmp(o->name, "--help"))
				usage(&tc_out);
			else
				ofmt(&tc_out, "tc %s\n", TC_VERSION);
			out_flush(&tc_out);
			exit(0);
		}
		if (given[o - optdefs]++ && !(o->flags & OF_REPEAT))
			die("%s is given twice", a);
		if (o->arg != OA_FLAG && ++i == argc)
			die("%s needs a value (see tc --help)", a);
		opt_set(o, a, o->arg == OA_FLAG ? NULL : argv[i]);
	}
	if (!!(G.opt.rec_path || G.opt.live) + !!G.opt.replay_path + !!G.opt.repair_path != 1) {
		usage(&tc_err);
		die("give one of --live, --record, --replay or --repair");
	}
	if (G.opt.script + G.opt.summary + G.opt.states > 1)
		die("--summary, --script and --states are one output each: give one of them");
	if ((G.opt.script || G.opt.summary || G.opt.states) && !G.opt.replay_path)
		die("--summary, --script and --states go with --replay");
	mode = G.opt.repair_path ? MD_REPAIR : G.opt.live ? MD_LIVE : G.opt.rec_path ? MD_RECORD :
	       G.opt.summary ? MD_SUMMARY : G.opt.script ? MD_SCRIPT : G.opt.states ? MD_STATES : MD_VIEW;
	if (G.fl.secs_ns)
		mode |= MD_FLIGHT;
	for (int k = 0; k < N_OPTS; k++)
		if (given[k] && optdefs[k].modes && !(optdefs[k].modes & mode)) {
			opt_modes_text(modes, sizeof(modes), optdefs[k].modes);
			die("%s goes with %s", optdefs[k].name, modes);
		}
	if (G.opt.cmd && !(mode & MD_CAPTURE))
		die("a command to trace goes with --live or --record");
	if (G.opt.live && G.opt.rec_path && !strcmp(G.opt.rec_path, "-"))
		die("--live --record -: the view needs standard output; record to a file or a FIFO, or drop --live");
	if (G.opt.power_only && (G.opt.tasks_only || G.opt.io))
		die("-P shows CPUs only: it does not go with -T or -I");
	if (G.fl.secs_ns && (!G.opt.rec_path || !strcmp(G.opt.rec_path, "-")))
		die("--flight goes with --record FILE");
	G.opt.view = mode & MD_SCREEN;
}

#ifndef TC_TEST
int main(int argc, char **argv)
{
	int ret;

	G.rec.fd = -1;
	parse_args(argc, argv);
	if (G.opt.script)
		out_script = &tc_out;
	if (G.opt.cmd)
		cmd_check();
	if (G.opt.repair_path) {
		rp_repair(G.opt.repair_path);
		ret = 0;
	}
#ifdef TC_FUZZ
	else if (G.opt.view && G.opt.replay_path && getenv("TC_FUZZ_VIEW"))
		ret = fuzz_view(getenv("TC_FUZZ_VIEW"));
#endif
	else
		ret = G.opt.view ? run_view() : G.opt.replay_path ? run_replay() : run_record();
	guard_done();
	out_flush(&tc_out);
	if (tc_out.err) {
		note("writing standard output: %s", strerror(tc_out.err));
		return 1;
	}
	return ret;
}
#endif
