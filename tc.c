/*
 * tc — a live timechart for Linux, in one file.
 *
 * tc shows what every CPU and task is doing: who runs, who waits for a CPU,
 * who sleeps, who is blocked, which idle state and frequency each CPU is in,
 * and who woke whom.  It records in the perf.data format and reads perf's.
 *
 * How to read this file: top to bottom.
 *
 *   limits and types     fixed sizes, the decoded event, tasks, CPUs, G
 *   utilities            errors, clocks, files, byte order
 *   tracefs              finding it, parsing event format files
 *   events               the tracepoints tc uses, attrs and the id map
 *   decoding             perf records (samples, side-band) into struct ev
 *   model                events into task and CPU states (the state rules)
 *   merge                per-CPU queues released in time order
 *   perf_event and rings opening events per CPU, the ring buffer reader
 *   recorder             the crash-tolerant perf.data writer
 *   reader               perf.data files (tc's and perf's, file and pipe mode)
 *   repair               making a cut-off recording whole again
 *   traced command       fork, hold, exec, stop, reap
 *   output               --script and --summary text
 *   terminal             raw mode, restoring it; the escape sequences tc writes
 *   drawing              a frame from the model, and its diff to the screen
 *   input                keys and mouse from escape sequences
 *   view state           cursor, zoom, following
 *   main loop            emit(), signals, --record, the view, --replay
 *   options and main
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
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
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
	DEF_MMAP_PAGES = 128,		/* ring data pages per CPU */
	REC_BUF = 256 << 10,		/* recorder write buffer */
	RD_BUF = 1 << 20,		/* reader input buffer */
	RD_QUEUE_TOTAL = 8 << 20,	/* reader merge queues, all CPUs */
	MAX_REC = 65536,		/* a perf record's size field is 16 bits */
	MAX_IDS = 1 << 20,		/* event ids of a recording, all attrs */
	MAX_TD = 64 << 20,		/* a recording's tracing data */
	FD_SPARE = 9,			/* file descriptors tc needs besides its events (+1 for the view) */
};

#define NS_PER_SEC 1000000000ull
#define CKPT_NS (500 * 1000000ull)	/* recorder checkpoint interval */
#define SLACK_NS (20 * 1000000ull)	/* how late a record may reach its ring (see merge) */
#define PASS_MS 250			/* longest wait between ring passes */
#define GRACE_NS (2 * NS_PER_SEC)	/* SIGTERM to SIGKILL for the command */
#define IDLE_EXIT 4294967295ull		/* cpu_idle state leaving idle */
#define CSTATE_MAX 255			/* deeper idle states from a file are taken as this */

/* perf.data record types that tc handles beyond linux/perf_event.h's */
enum {
	PR_HEADER_ATTR = 64,
	PR_HEADER_EVENT_TYPE = 65,
	PR_HEADER_TRACING_DATA = 66,
	PR_FINISHED_ROUND = 68,
	PR_HEADER_FEATURE = 80,
	PR_COMPRESSED = 81,
	PR_MAX_USER = 100,
};

/* perf.data feature bits (tools/perf/util/header.h) */
enum {
	FEAT_RESERVED = 0, FEAT_TRACING_DATA = 1, FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4, FEAT_VERSION = 5, FEAT_ARCH = 6, FEAT_NRCPUS = 7,
	FEAT_SAMPLE_TIME = 21, FEAT_CLOCKID = 23, FEAT_CLOCK_DATA = 29,
	FEAT_BITS = 256,
};

#define PERF_MAGIC2 0x32454c4946524550ull	/* "PERFILE2" little endian */
#define FILE_HDR_SIZE 104
#define FILE_ATTR_SIZE 128			/* perf_event_attr as written */

/* What a decoded event is.  The first EV_NTP are tracepoints. */
enum ev_kind {
	EV_SWITCH, EV_WAKEUP, EV_WAKEUP_NEW, EV_WAKING, EV_PFORK, EV_PEXEC,
	EV_PEXIT, EV_MIGRATE, EV_IDLE, EV_FREQ,
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

/* Task states, in the order the summary and the view use. */
enum st {
	ST_UNKNOWN, ST_RUNNING, ST_RUNNABLE, ST_SLEEPING, ST_BLOCKED, ST_IO,
	ST_DEAD,		/* exited: no longer accounted */
	ST_N
};

#ifndef TC_MAX_TASKS
#define TC_MAX_TASKS 16384	/* task table; -DTC_MAX_TASKS=N to change */
#endif
#ifndef TC_MAX_IVALS
#define TC_MAX_IVALS 262144	/* state intervals kept for the view (40 bytes each) */
#endif
#define PID_MAX 4194304		/* PID_MAX_LIMIT: larger pids are invalid */
#define NO_IVAL UINT32_MAX
#define WAKER_IRQ (-2)		/* a wakeup from interrupt context */
#define TRACE_IRQ_FLAGS 0x58	/* common_flags: HARDIRQ | SOFTIRQ | NMI */

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
	uint64_t initial;	/* ran from the start to its CPU's first switch */
	uint32_t last_ival;	/* newest interval of this row, NO_IVAL */
	/* -I: inside a traced I/O call since io_start; totals of the calls */
	bool in_io;
	int8_t io_call;		/* index in io_calls */
	uint64_t io_start, io_ns, io_rbytes, io_wbytes;
	uint32_t io_count, io_errors;
	uint32_t last_iival;	/* newest I/O call interval: state = io_calls index, aux = ret */
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
	uint64_t cstate_ns[10];	/* time per idle state (deeper ones in the last) */
	uint64_t freq_ns, freq_sum;	/* time with a known frequency, and kHz x ns */
	int64_t freq_max;
	uint32_t last_ival, last_cival, last_fival;	/* task, idle state, frequency rows */
};

/* A closed state interval of a row (task slot, or -1 - cpu for CPU rows),
 * kept in a ring; a row's intervals are chained newest to oldest. */
struct ival {
	uint64_t start, end;
	uint32_t prev;		/* older interval of the same row, NO_IVAL */
	uint32_t seq;		/* which use of this slot: stale links are detected */
	int32_t row;
	int32_t state;		/* enum st, or for CPU rows the running tid */
	int32_t aux;		/* runnable task: its waker (WAKER_IRQ, -1 preempted) */
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
	F_ORIG_CPU, F_DEST_CPU, F_STATE, F_CPU_ID, F_FD, F_RET,
	F_NFLD
};
static const char *const fld_names[F_NFLD] = {
	"common_flags", "common_pid", "prev_comm", "prev_pid", "prev_state",
	"next_comm", "next_pid", "comm", "pid", "target_cpu", "parent_comm",
	"parent_pid", "child_comm", "child_pid", "filename", "old_pid",
	"orig_cpu", "dest_cpu", "state", "cpu_id", "fd", "ret",
};

/* An event source of a recording: a perf_event_attr and what it means. */
struct attr {
	struct perf_event_attr pa;	/* as opened or as read (byte order fixed) */
	int kind;			/* enum ev_kind for tracepoints, else EV_NONE */
	int io;				/* SYS_ENTER/EXIT: index in io_calls */
	/* byte offsets in its samples of TID, TIME, CPU and RAW (0: absent)
	 * when nothing of variable size precedes them (fixed) */
	bool fixed;
	uint16_t pos_tid, pos_time, pos_cpu, pos_raw, min_size;
	const struct tfs_fmt *fmt;	/* tracepoint format, or NULL */
	const struct tfs_field *fp[F_NFLD];
	uint64_t *ids;			/* kernel ids of its per-CPU events */
	int nids;
};

/* A per-CPU queue of raw records, each preceded by its u64 time. */
struct mq {
	uint8_t *buf;
	size_t cap, head, tail;		/* bytes in use: [head, tail) */
	uint64_t caught;		/* no record older than this can still come */
};

/* A per-CPU ring buffer as mapped (or faked by the unit tests). */
struct rb {
	struct perf_event_mmap_page *pc;
	uint8_t *data;
	uint64_t size;			/* data bytes, a power of two */
	int cpu, fd;
};

/* The global state, one struct (busybox's G). */
static struct {
	/* options */
	const char *rec_path, *replay_path, *repair_path;
	bool script, summary, live;
	bool view;			/* the terminal view: --live, or --replay without output options */
	bool power_only, tasks_only, io;	/* -P, -T, -I */
	const char *filt[32];		/* -p PID|NAME, as given */
	int nfilt;
	char self_filter[512];		/* -I: the tracepoint filter excluding tc's threads */
	bool *cpu_filt;			/* NULL: every CPU */
	double duration;		/* seconds, 0 = until stopped */
	unsigned mmap_pages;
	char **cmd;

	/* tracefs and events */
	char tfs_root[256];
	struct tfs_fmt fmt[MAX_FMTS];
	int nfmt;
	struct attr attr[MAX_ATTRS];
	int nattr;
	int id_pos, is_pos;		/* where the id sits when no IDENTIFIER */
	uint64_t *idmap_id;		/* open-addressing id -> attr index */
	int *idmap_attr;
	size_t idmap_cap;
	bool swap;			/* the data is in the other byte order */

	/* CPUs and rings */
	int ncpu;			/* CPU numbers are < ncpu */
	bool *cpu_online;
	struct rb *rb;			/* live: one per online CPU */
	int nrb;
	int *fds;			/* every perf event fd */
	int nfd;

	/* merge */
	struct mq *q;			/* ncpu + 1 queues: the last for records without a CPU */
	int nq;
	uint64_t released;		/* time of the last released record */
	uint64_t pass_bound;		/* live: everything up to this was released */
	uint8_t *rec_tmp;		/* one record being copied from a ring */

	/* model */
	struct task *task;
	int ntask;			/* slots in use */
	struct thash { int32_t tid, slot; } *task_hash;	/* open addressing, slot -1: empty */
	size_t task_hash_cap;
	struct cpu *cpu;		/* G.ncpu of them */
	struct ival *ival;
	uint32_t nival, ival_head;	/* ring size, next slot */
	uint32_t ival_seq;
	uint64_t m_first, m_last;	/* first and last event time */
	uint64_t evicted_tasks, evicted_ivals, bad_pid, gaps;
	uint64_t inferred;		/* switch-ins the kernel did not report */
	int64_t freq_max;		/* highest frequency seen, kHz */

	/* counters (nothing lost silently) */
	uint64_t n_kind[EV_NKIND], lost, lost_read, corrupt,
		 out_of_order, bad_cpu, unknown_id;

	/* recorder */
	int rec_fd;
	uint8_t *rec_buf;
	size_t rec_len;
	uint64_t rec_pos, rec_data_off, rec_ckpt_ns, rec_first, rec_last;
	uint8_t *rec_static;		/* feature blobs before the data */
	size_t rec_static_len;
	uint64_t rec_static_off[FEAT_BITS], rec_static_size[FEAT_BITS];
	uint64_t rec_feat;		/* feature bits (all < 64) */
	bool rec_kept_old;		/* an existing file was renamed FILE.old */
	bool rec_pipe;			/* a stream (pipe, FIFO, character device): pipe mode */

	/* reader */
	int rd_fd;
	bool rd_pipe, rd_cut;
	bool rd_sorted;			/* written by tc: records in time order */
	uint64_t rd_next_t;		/* time of the record rd_run stopped at */
	uint8_t *rd_buf;		/* read buffer, or the whole file mapped */
	size_t rd_len, rd_pos;		/* rd_buf holds file bytes [rd_off, rd_off + rd_len) */
	bool rd_mapped;
	size_t rd_dropped;		/* mapped bytes below this were let go */
	uint64_t rd_off, rd_end, rd_data_off, rd_fsize;
	uint64_t rd_feat_bits;		/* valid features below bit 64 */
	uint64_t rd_feat_off[64], rd_feat_size[64];
	int rd_nrcpus;

	/* traced command */
	pid_t child;
	int child_status;
	bool child_done;
	bool child_held;		/* forked, waiting for SIGUSR1 to exec */

	/* terminal and frame */
	int tty_in;
	bool utf8, ascii, no_color;
	int ncolor;			/* 0, 16 or 256 */
	uint64_t term_bps;		/* bytes per second the terminal takes */
	int rows, cols;
	struct cell *scr, *scr_prev;	/* the frame being drawn, what the terminal shows */
	uint64_t *acc;			/* per column and state: ns in the column */
	char *ob;			/* output of one frame */
	size_t ob_cap, ob_len, ob_off;
	bool full_redraw;
	uint64_t bytes_out, frames;

	/* view (see "view state") */
	uint64_t v_start, v_end, v_cursor, v_mark, v_now;
	bool v_following, v_has_mark, v_help, v_search;
	int v_sel, v_sel_key, v_top, v_order;
	char v_query[32], v_msg[96];
	int *rowlist, nrowlist, rowlist_cap;
	uint64_t window_ns, refresh_ns, ev_rate;
	double speed;			/* replay pace, 0 = not paced */
	bool paused, want_pause, want_suspend;

	/* signals */
	int sig_pipe[2];
	volatile sig_atomic_t sig_stop, sig_child, sig_winch, sig_tstp, sig_cont;
} G;

/* ---------------------------------------------------------------- utilities */

static void cmd_kill(void);
static void term_restore(void);

/* Print "tc: <message>" to stderr, stop the traced command, exit 1. */
static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	term_restore();
	va_start(ap, fmt);
	fputs("tc: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	cmd_kill();
	exit(1);
}

/* Print "tc: <message>" to stderr and go on. */
static void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("tc: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Allocate zeroed memory at start-up; running out is fatal. */
static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("out of memory (%zu x %zu bytes)", n, size);
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
 * terminated.  Returns the length or -1. */
static ssize_t read_small(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	while (len + 1 < cap && (n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return len;
}

/* Read a whole file into a malloc'd buffer (for format files and the like,
 * at start-up).  Returns NULL on error. */
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
			char *nb = realloc(buf, cap * 2 + 1);

			if (!nb)
				die("out of memory reading %s", path);
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[len] = 0;
	*lenp = len;
	return buf;
}

/* Write all of buf to fd; -1 on error. */
static int write_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Reads of the data, in the byte order of the data being read (G.swap). */
static uint16_t g16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return G.swap ? __builtin_bswap16(v) : v;
}

static uint32_t g32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return G.swap ? __builtin_bswap32(v) : v;
}

static uint64_t g64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return G.swap ? __builtin_bswap64(v) : v;
}

/* Copy string s into d of size n, truncating. */
static void scopy(char *d, size_t n, const char *s)
{
	size_t l = strnlen(s, n - 1);

	memcpy(d, s, l);
	d[l] = 0;
}

/* Parse a CPU list like "0-3,6" into set[0..n); false if malformed. */
static bool parse_cpulist(const char *s, bool *set, int n)
{
	while (*s && *s != '\n') {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0)
			return false;
		s = end;
		if (*s == '-') {
			b = strtol(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return false;
			s = end;
		}
		for (long i = a; i <= b && i < n; i++)
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
		long a, b;

		if (!isdigit((unsigned char)*s))
			return 0;
		a = b = strtol(s, &end, 10);
		s = end;
		if (*s == '-') {
			if (!isdigit((unsigned char)s[1]))
				return 0;
			b = strtol(s + 1, &end, 10);
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
			f->id = strtoul(line + 4, NULL, 10);
		} else if ((q = strstr(line, "field:")) && f->nfield < TFS_MAX_FIELDS) {
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
			fd->dyn = strstr(q, "__data_loc") != NULL;
			o = strstr(semi, "offset:");
			s = strstr(semi, "size:");
			sg = strstr(semi, "signed:");
			if (!o || !s)
				continue;
			fd->off = strtoul(o + 7, NULL, 10);
			fd->size = strtoul(s + 5, NULL, 10);
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

/* Does root hold tracepoint formats?  0 if so, else the errno of opening
 * one (open, not access(): it counts effective ids and capabilities). */
static int tfs_usable(const char *root)
{
	char path[1024];
	int fd;

	snprintf(path, sizeof(path), "%s/events/sched/sched_switch/format", root);
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
		snprintf(tfs_why, sizeof(tfs_why),
			 "tracefs is mounted at %s but uid %d cannot read it (mode %03o, owner uid %d): run tc as root, or make it readable (as root: mount -o remount,mode=755 %s) and allow perf events (sysctl kernel.perf_event_paranoid=-1)",
			 dir, (int)geteuid(), (unsigned)(st.st_mode & 0777), (int)st.st_uid, dir);
	} else if (e == EMFILE || e == ENFILE) {
		snprintf(tfs_why, sizeof(tfs_why), "cannot read %s: out of file descriptors (raise ulimit -n)", dir);
	} else if (!tfs_why[0]) {
		snprintf(tfs_why, sizeof(tfs_why),
			 "tracefs at %s has no events/sched/sched_switch (%s): a kernel with CONFIG_TRACEPOINTS and scheduler tracepoints is needed",
			 dir, strerror(e));
	}
}

/*
 * Find tracefs and store its path in G.tfs_root: the usual places, then
 * /proc/mounts, then mount it on /sys/kernel/tracing (root only).
 * Returns -1 if there is none usable, with the reason in tfs_why.
 */
static int tfs_find(void)
{
	static const char *const places[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char line[1024], dev[256], dir[512], type[64];
	bool mounted = false, known = false;
	FILE *m;
	int e;

	tfs_why[0] = 0;
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++)
		if (!(e = tfs_usable(places[i]))) {
			strcpy(G.tfs_root, places[i]);
			return 0;
		}
	if ((m = fopen("/proc/mounts", "re"))) {
		while (fgets(line, sizeof(line), m))
			if (sscanf(line, "%255s %511s %63s", dev, dir, type) == 3 && !strcmp(type, "tracefs")) {
				mounted = true;
				if (!(e = tfs_usable(dir))) {
					scopy(G.tfs_root, sizeof(G.tfs_root), dir);
					fclose(m);
					return 0;
				}
				tfs_unreadable(dir, e);
			}
		fclose(m);
	}
	if (!mounted && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0) {
		if (!(e = tfs_usable("/sys/kernel/tracing"))) {
			strcpy(G.tfs_root, "/sys/kernel/tracing");
			return 0;
		}
		tfs_unreadable("/sys/kernel/tracing", e);
	} else if (!mounted) {
		e = errno;
		if ((m = fopen("/proc/filesystems", "re"))) {
			while (fgets(line, sizeof(line), m))
				known |= strstr(line, "\ttracefs") != NULL;
			fclose(m);
		}
		if (!known)
			snprintf(tfs_why, sizeof(tfs_why),
				 "this kernel has no tracefs (not in /proc/filesystems): tc needs a kernel with CONFIG_FTRACE and CONFIG_TRACEPOINTS");
		else
			snprintf(tfs_why, sizeof(tfs_why),
				 "tracefs is not mounted, and mounting it failed (%s): as root, mount -t tracefs nodev /sys/kernel/tracing",
				 strerror(e));
	}
	return -1;
}

/* Read "<tracefs>/<rel>" whole; NULL if missing. */
static char *tfs_read(const char *rel, size_t *len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", G.tfs_root, rel);
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
};

/* Names of event kinds as --script prints them. */
static const char *const ev_names[EV_NKIND] = {
	"sched_switch", "sched_wakeup", "sched_wakeup_new", "sched_waking",
	"sched_process_fork", "sched_process_exec", "sched_process_exit",
	"sched_migrate_task", "cpu_idle", "cpu_frequency",
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
		snprintf(name, n, "%s", tp_defs[i].name);
	} else {
		*sys = "syscalls";
		snprintf(name, n, "sys_%s_%s", (i - EV_NTP) % 2 ? "exit" : "enter", io_calls[(i - EV_NTP) / 2].name);
	}
}

/* Raw format texts, kept for the recorder's TRACING_DATA (index = G.fmt). */
static struct {
	char *text;
	size_t len;
} fmt_text[MAX_FMTS];

/* Add a format (text of len bytes) of system sys; returns it, or NULL if it
 * does not parse or the table is full.  The text is copied. */
static const struct tfs_fmt *fmt_add(const char *sys, const char *text, size_t len)
{
	struct tfs_fmt *f;

	if (G.nfmt >= MAX_FMTS)
		return NULL;
	f = &G.fmt[G.nfmt];
	if (tfs_parse(text, len, f) < 0)
		return NULL;
	scopy(f->sys, sizeof(f->sys), sys);
	fmt_text[G.nfmt].text = xcalloc(1, len + 1);
	memcpy(fmt_text[G.nfmt].text, text, len);
	fmt_text[G.nfmt].len = len;
	G.nfmt++;
	return f;
}

/* Load the format of sys:name from tracefs; NULL if the kernel lacks it. */
static const struct tfs_fmt *fmt_load(const char *sys, const char *name)
{
	char rel[256];
	size_t len;
	char *text;
	const struct tfs_fmt *f;

	snprintf(rel, sizeof(rel), "events/%s/%s/format", sys, name);
	if (!(text = tfs_read(rel, &len)))
		return NULL;
	f = fmt_add(sys, text, len);
	free(text);
	return f;
}

/* The format with tracepoint id, or NULL. */
static const struct tfs_fmt *fmt_by_id(uint64_t id)
{
	for (int i = 0; i < G.nfmt; i++)
		if (G.fmt[i].id == id)
			return &G.fmt[i];
	return NULL;
}

/* For attrs whose format is unknown (a recording without tracing data), look
 * the tracepoints tc knows up in the local tracefs by id.  Returns how many
 * attrs were resolved this way. */
static int fmt_from_local(void)
{
	int n = 0;

	for (int i = 0; i < G.nattr; i++) {
		struct attr *a = &G.attr[i];

		if (a->pa.type != PERF_TYPE_TRACEPOINT || fmt_by_id(a->pa.config))
			continue;
		if (!G.tfs_root[0] && tfs_find() < 0)
			return n;
		for (int k = 0; k < N_TP; k++) {
			char name[64], buf[32], path[600];
			const char *sys;

			tp_name(k, &sys, name, sizeof(name));
			snprintf(path, sizeof(path), "%s/events/%s/%s/id", G.tfs_root, sys, name);
			if (read_small(path, buf, sizeof(buf)) > 0 &&
			    strtoull(buf, NULL, 10) == a->pa.config && fmt_load(sys, name)) {
				n++;
				break;
			}
		}
	}
	return n;
}

/* Bind attr a to its format and event kind, look its fields up, and lay
 * out its samples (see rec_info). */
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

	for (int i = 0; i < G.nattr; i++)
		n += G.attr[i].nids;
	while (cap < n * 2)
		cap <<= 1;
	free(G.idmap_id);
	free(G.idmap_attr);
	G.idmap_id = xcalloc(cap, sizeof(*G.idmap_id));
	G.idmap_attr = xcalloc(cap, sizeof(*G.idmap_attr));
	G.idmap_cap = cap;
	for (size_t i = 0; i < cap; i++)
		G.idmap_attr[i] = -1;
	for (int i = 0; i < G.nattr; i++)
		for (int j = 0; j < G.attr[i].nids; j++) {
			uint64_t id = G.attr[i].ids[j];
			size_t h = (id * 0x9e3779b97f4a7c15ull) >> 32 & (cap - 1);

			while (G.idmap_attr[h] >= 0 && G.idmap_id[h] != id)
				h = (h + 1) & (cap - 1);
			G.idmap_id[h] = id;
			G.idmap_attr[h] = i;
		}
	G.id_pos = G.is_pos = -1;
	if (!G.nattr)
		return;
	st = G.attr[0].pa.sample_type;
	if (st & PERF_SAMPLE_IDENTIFIER) {
		G.id_pos = 0;
		G.is_pos = 1;
	} else if (st & PERF_SAMPLE_ID) {
		G.id_pos = !!(st & PERF_SAMPLE_IP) + !!(st & PERF_SAMPLE_TID) +
			   !!(st & PERF_SAMPLE_TIME) + !!(st & PERF_SAMPLE_ADDR);
		G.is_pos = 1 + !!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_STREAM_ID);
	}
}

/* The attr index of kernel event id, or -1. */
static int idmap_find(uint64_t id)
{
	size_t h;

	if (!G.idmap_cap)
		return -1;
	h = (id * 0x9e3779b97f4a7c15ull) >> 32 & (G.idmap_cap - 1);
	while (G.idmap_attr[h] >= 0) {
		if (G.idmap_id[h] == id)
			return G.idmap_attr[h];
		h = (h + 1) & (G.idmap_cap - 1);
	}
	return -1;
}

/* ---------------------------------------------------------------- decoding */

/* What a record says of itself: its attr, time, cpu and task. */
struct rinfo {
	int attr;			/* -1 when unknown */
	bool has_time;
	uint64_t time;
	int cpu, pid, tid;
	const uint8_t *raw;		/* SAMPLE: the tracepoint data */
	uint32_t rawsz;
	size_t body_end;		/* non-SAMPLE: where the sample_id trailer starts */
};

/* The attr a record belongs to (see idmap_build), or -1. */
static int rec_attr(const uint8_t *r, size_t n, uint32_t type)
{
	int pos;

	if (G.nattr == 1)
		return 0;
	if (type == PERF_RECORD_SAMPLE) {
		pos = G.id_pos;
		if (pos < 0 || 8 + 8 * (size_t)pos + 8 > n)
			return G.nattr ? 0 : -1;
		return idmap_find(g64(r + 8 + 8 * pos));
	}
	/* side-band records perf synthesizes carry no known id: their
	 * sample_id layout is the first attr's, as perf reads them */
	pos = G.is_pos;
	if (pos < 0 || 8 + 8 * (size_t)pos > n || (pos = idmap_find(g64(r + n - 8 * pos))) < 0)
		return G.nattr ? 0 : -1;
	return pos;
}

/*
 * Parse the generic part of record r (n bytes, header included, n checked
 * by the caller to be >= 8 and its size field): for SAMPLE the fields in
 * sample_type order up to RAW, for other kernel records the sample_id
 * trailer.  Returns 0, or -1 if the record does not fit its attr.
 */
static int rec_info(const uint8_t *r, size_t n, struct rinfo *ri)
{
	uint32_t type = g32(r);
	const uint8_t *p = r + 8, *end = r + n;
	const struct perf_event_attr *pa;
	uint64_t st;

	memset(ri, 0, sizeof(*ri));
	ri->cpu = ri->pid = ri->tid = -1;
	ri->body_end = n;
	ri->attr = rec_attr(r, n, type);
	if (ri->attr < 0)
		return -1;
	pa = &G.attr[ri->attr].pa;
	st = pa->sample_type;
	if (type == PERF_RECORD_SAMPLE && G.attr[ri->attr].fixed) {	/* the common case, fast */
		const struct attr *a = &G.attr[ri->attr];

		if (n < a->min_size)
			return -1;
		if (a->pos_tid) {
			ri->pid = g32(r + a->pos_tid);
			ri->tid = g32(r + a->pos_tid + 4);
		}
		if (a->pos_time) {
			ri->time = g64(r + a->pos_time);
			ri->has_time = true;
		}
		if (a->pos_cpu)
			ri->cpu = g32(r + a->pos_cpu);
		if (a->pos_raw) {
			ri->rawsz = g32(r + a->pos_raw);
			if (ri->rawsz > n - a->pos_raw - 4)
				return -1;
			ri->raw = r + a->pos_raw + 4;
		}
		return 0;
	}
#define NEED(k) do { if ((size_t)(end - p) < (size_t)(k)) return -1; } while (0)
	if (type == PERF_RECORD_SAMPLE) {
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
		if (st & PERF_SAMPLE_PERIOD) { NEED(8); p += 8; }
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
	if (type >= PR_HEADER_ATTR || !pa->sample_id_all)
		return 0;
	{
		size_t k = 8 * (!!(st & PERF_SAMPLE_TID) + !!(st & PERF_SAMPLE_TIME) +
				!!(st & PERF_SAMPLE_ID) + !!(st & PERF_SAMPLE_STREAM_ID) +
				!!(st & PERF_SAMPLE_CPU) + !!(st & PERF_SAMPLE_IDENTIFIER));

		if (n < 8 + k)
			return -1;
		p = end - k;
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
	}
#undef NEED
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

/*
 * Decode record r (already checked by rec_info into ri) into e.  Numbers
 * are bounded here: pids and CPUs by ev_int, an idle state to CSTATE_MAX
 * (IDLE_EXIT stays), a frequency to INT32_MAX kHz.
 * Returns 1 for an event tc uses, 0 for a record it does not.
 */
static int ev_decode(const uint8_t *r, const struct rinfo *ri, struct ev *e)
{
	uint32_t type = g32(r);
	const struct attr *a = ri->attr >= 0 ? &G.attr[ri->attr] : NULL;
	const uint8_t *raw = ri->raw, *b = r + 8;
	uint32_t rs = ri->rawsz;
	size_t blen = ri->body_end - 8;

	memset(e, 0, sizeof(*e));
	e->time = ri->time;
	e->cpu = ri->cpu;
	e->pid = ri->pid;
	e->tid = ri->tid;
	e->kind = EV_NONE;
	switch (type) {
	case PERF_RECORD_SAMPLE:
		if (!a || a->kind == EV_NONE || !raw)
			return 0;
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
		case EV_SYS_ENTER:
			e->a = fld_int(a->fp[F_FD], raw, rs, -1);
			e->b = a->io;
			break;
		case EV_SYS_EXIT:
			e->v = fld_int(a->fp[F_RET], raw, rs, 0);
			e->b = a->io;
			break;
		}
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

/* ---------------------------------------------------------------- model */

/*
 * The model turns events, in time order, into what every task and CPU was
 * doing.  It never looks at where events come from (rings or a file).
 *
 * State rules (improving on perf timechart's):
 *   sched_switch   prev leaves its CPU: prev_state masked to the state bits
 *                  gives runnable (0: preempted), blocked (D), sleeping (S
 *                  and everything else); next runs.  A task first seen as
 *                  prev ran since the start of the trace.
 *   wakeups        sched_waking, sched_wakeup, sched_wakeup_new: a sleeping,
 *                  blocked or unknown task becomes runnable; the waker is
 *                  the current task, or an interrupt (common_flags).
 *   cpu_idle       the state applies to cpu_id; IDLE_EXIT closes it, a new
 *                  entry closes the previous one.
 *   gaps           lost events: every open state closes at the last event
 *                  before the gap and is unknown until events tell again.
 *   the end        open states close at the last event.
 * Every pid and CPU number from the data is bounds-checked.
 */

/* Allocate the model's tables (start-up); nival 0 keeps no intervals. */
static void model_init(int ncpu, int ntask, uint32_t nival)
{
	G.task = xcalloc(ntask, sizeof(*G.task));
	G.task_hash_cap = 16;
	while (G.task_hash_cap < (size_t)ntask * 2)
		G.task_hash_cap <<= 1;
	G.task_hash = xcalloc(G.task_hash_cap, sizeof(*G.task_hash));
	for (size_t i = 0; i < G.task_hash_cap; i++)
		G.task_hash[i].slot = -1;
	G.cpu = xcalloc(ncpu, sizeof(*G.cpu));
	for (int c = 0; c < ncpu; c++) {
		G.cpu[c].cur = -1;
		G.cpu[c].cstate = G.cpu[c].freq = -1;
		G.cpu[c].last_ival = G.cpu[c].last_cival = G.cpu[c].last_fival = NO_IVAL;
	}
	G.ival = nival ? xcalloc(nival, sizeof(*G.ival)) : NULL;
	G.nival = nival;
}

/* Keep interval [start, end) of row in state; the oldest is overwritten
 * (and counted) when the ring is full. */
static void ival_add(uint32_t *last, int32_t row, int32_t state, int32_t aux, uint64_t start, uint64_t end)
{
	struct ival *v;

	if (!G.nival || end <= start)
		return;
	v = &G.ival[G.ival_head];
	if (v->end)
		G.evicted_ivals++;
	v->start = start;
	v->end = end;
	v->row = row;
	v->state = state;
	v->aux = aux;
	v->seq = ++G.ival_seq;
	v->prev = *last;
	*last = G.ival_head;
	G.ival_head = (G.ival_head + 1) % G.nival;
}

static size_t task_hash_of(int tid)
{
	return ((uint32_t)tid * 2654435761u) & (G.task_hash_cap - 1);
}

/* The slot of tid in the hash, or where it would go. */
static size_t task_hash_find(int tid)
{
	size_t h = task_hash_of(tid);

	while (G.task_hash[h].slot >= 0 && G.task_hash[h].tid != tid)
		h = (h + 1) & (G.task_hash_cap - 1);
	return h;
}

/* The task tid, or NULL. */
static struct task *task_find(int tid)
{
	size_t h;

	if (!G.task_hash)
		return NULL;
	h = task_hash_find(tid);
	return G.task_hash[h].slot >= 0 ? &G.task[G.task_hash[h].slot] : NULL;
}

/* Remove tid from the hash (linear probing: shift the cluster back). */
static void task_hash_del(int tid)
{
	size_t i = task_hash_find(tid), j = i;

	if (G.task_hash[i].slot < 0)
		return;
	for (;;) {
		size_t k;

		G.task_hash[i].slot = -1;
		for (;;) {
			j = (j + 1) & (G.task_hash_cap - 1);
			if (G.task_hash[j].slot < 0)
				return;
			k = task_hash_of(G.task_hash[j].tid);
			/* move j back to i unless k lies cyclically in (i, j] */
			if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
				continue;
			break;
		}
		G.task_hash[i] = G.task_hash[j];
		i = j;
	}
}

/* The slot to reuse when the task table is full: the exited task seen
 * longest ago, else the task seen longest ago. */
static int task_victim(void)
{
	int best = -1;
	bool best_dead = false;

	for (int i = 0; i < G.ntask; i++) {
		const struct task *t = &G.task[i];
		bool dead = t->state == ST_DEAD;

		if (t->state == ST_RUNNING)
			continue;
		if (best < 0 || (dead && !best_dead) ||
		    (dead == best_dead && t->last_seen < G.task[best].last_seen)) {
			best = i;
			best_dead = dead;
		}
	}
	return best < 0 ? 0 : best;
}

/* The task tid, created (unknown, seen at time) if new; NULL for a tid
 * out of range or 0 (the idle tasks, which CPU rows account). */
static struct task *task_get(int tid, uint64_t time, bool *created)
{
	size_t h;
	int slot;
	struct task *t;

	if (created)
		*created = false;
	if (tid <= 0 || tid > PID_MAX) {
		G.bad_pid += tid != 0;
		return NULL;
	}
	h = task_hash_find(tid);
	if (G.task_hash[h].slot >= 0) {
		t = &G.task[G.task_hash[h].slot];
		t->last_seen = time;
		return t;
	}
	if (G.ntask < TC_MAX_TASKS) {
		slot = G.ntask++;
	} else {
		slot = task_victim();
		task_hash_del(G.task[slot].tid);
		G.evicted_tasks++;
		h = task_hash_find(tid);
	}
	t = &G.task[slot];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = -1;
	t->cpu = -1;
	t->waker = -1;
	t->state = ST_UNKNOWN;
	t->since = t->first_seen = t->last_seen = time;
	t->last_ival = t->last_iival = NO_IVAL;
	G.task_hash[h] = (struct thash){ tid, slot };
	if (created)
		*created = true;
	return t;
}

/* Name t from an event's comm field if it has no name yet. */
static void task_name(struct task *t, const char *comm)
{
	if (!t->comm[0])
		scopy(t->comm, sizeof(t->comm), comm);
}

/* Close t's current state at time and enter state st. */
static void task_set(struct task *t, int st, uint64_t time)
{
	t->stated = true;
	if (time > t->since) {
		t->total[t->state] += time - t->since;
		if (t->state != ST_UNKNOWN && t->state != ST_DEAD)
			ival_add(&t->last_ival, t - G.task, t->state,
				 t->state == ST_RUNNABLE ? t->waker : -1, t->since, time);
		t->since = time;
	}
	if (st == ST_RUNNABLE && t->state != ST_RUNNABLE)
		t->wait_start = time;
	t->state = st;
}

/* Close CPU c's running task at time and make tid (0 idle, -1 unknown) current. */
static void cpu_set(int c, int tid, uint64_t time)
{
	struct cpu *p = &G.cpu[c];

	if (p->cur >= 0 && time > p->since) {
		if (p->cur)
			p->busy += time - p->since;
		else
			p->idle += time - p->since;
		ival_add(&p->last_ival, -1 - c, p->cur, -1, p->since, time);
	}
	p->cur = tid;
	if (time > p->since || tid < 0)
		p->since = time;
}

/* Close CPU c's idle state at time; state (-1: none) starts. */
static void cpu_cstate(int c, int64_t state, uint64_t time)
{
	struct cpu *p = &G.cpu[c];

	if (p->cstate >= 0) {
		ival_add(&p->last_cival, -1 - c, p->cstate, -1, p->cstate_since, time);
		if (time > p->cstate_since)
			p->cstate_ns[p->cstate < 9 ? p->cstate : 9] += time - p->cstate_since;
	}
	p->cstate = state;
	p->cstate_since = time;
}

/* Close CPU c's frequency at time; khz (-1: unknown) starts. */
static void cpu_freq(int c, int64_t khz, uint64_t time)
{
	struct cpu *p = &G.cpu[c];

	if (p->freq >= 0 && time > p->freq_since) {
		ival_add(&p->last_fival, -1 - c, p->freq, -1, p->freq_since, time);
		p->freq_ns += time - p->freq_since;
		p->freq_sum += (uint64_t)p->freq * (time - p->freq_since);
	}
	if (khz > G.freq_max)
		G.freq_max = khz;
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

/* A gap in the events (lost, paused): every open state closes at the last
 * event before it and is unknown from then on. */
static void model_gap(void)
{
	uint64_t t = G.m_last;

	G.gaps++;
	for (int i = 0; i < G.ntask; i++) {
		if (G.task[i].state != ST_DEAD)
			task_set(&G.task[i], ST_UNKNOWN, t);
		G.task[i].in_io = false;
	}
	for (int c = 0; c < G.ncpu; c++) {
		cpu_set(c, -1, t);
		cpu_cstate(c, -1, t);
		cpu_freq(c, -1, t);
	}
}

/* Is c a CPU number of the model?  Counts the ones that are not. */
static bool model_cpu_ok(int c)
{
	if (c >= 0 && c < G.ncpu)
		return true;
	G.bad_cpu++;
	return false;
}

/* Feed one event, in time order, to the model. */
static void model_event(const struct ev *e)
{
	uint64_t t = e->time;
	struct task *p, *n;
	struct cpu *cp;
	bool created;
	int st;

	if (e->kind == EV_COMM) {	/* names, also of synthesized tasks at time 0 */
		if ((p = task_get(e->b, t ? t : G.m_last, NULL))) {
			scopy(p->comm, sizeof(p->comm), e->comm);
			p->pid = e->a;
		}
		return;
	}
	if (!t)
		return;
	if (!G.m_first) {	/* tasks named before the first event: unknown from it */
		G.m_first = t;
		for (int i = 0; i < G.ntask; i++)
			G.task[i].since = G.task[i].first_seen = G.task[i].last_seen = t;
	}
	if (t < G.m_last)
		t = G.m_last;	/* out of order: counted by the merge */
	if (e->kind == EV_LOST) {	/* a gap closes at the last event before it */
		model_gap();
		return;
	}
	G.m_last = t;
	switch (e->kind) {
	case EV_SWITCH:
		if (!model_cpu_ok(e->cpu))
			return;
		cp = &G.cpu[e->cpu];
		if ((p = task_get(e->a, t, &created))) {
			task_name(p, e->comm);
			if (!p->stated) {
				/* first seen as prev: it was switched in before the
				 * trace began (or it was created), or after this CPU's
				 * last switch if the CPU had one */
				p->since = created ? G.m_first : p->first_seen;
				if (cp->seen && cp->since > p->since)
					p->since = cp->since;
				if (cp->seen && cp->cur != e->a) {
					G.inferred++;
					p->inferred++;
					cpu_set(e->cpu, e->a, p->since);
				}
				if (!cp->seen)
					p->initial = t - p->since;
				p->state = ST_RUNNING;
				p->switches++;
			} else if (p->state >= ST_RUNNABLE && p->state <= ST_BLOCKED) {
				/* Its switch-in is missing (some kernels drop switches
				 * out of idle): it ran from when it could, its wakeup
				 * or the CPU's last switch, whichever is later. */
				uint64_t from = cp->seen && cp->since > p->since ? cp->since : p->since;

				G.inferred++;
				p->inferred++;
				task_set(p, ST_RUNNING, from);
				if (cp->seen)
					cpu_set(e->cpu, e->a, from);
				p->switches++;
			}
		}
		if (!cp->seen && (e->a == 0 || p)) {
			/* the CPU's first switch: it ran prev since prev began */
			cp->cur = e->a;
			cp->since = p && p->state == ST_RUNNING ? p->since : G.m_first;
		}
		cp->seen = true;
		if (p) {
			p->cpu = e->cpu;
			/* dead at its last switch (X, Z; TASK_DEAD on old kernels),
			 * not at an earlier one while it exits */
			st = p->exited && (e->v & 0x70) ? ST_DEAD : model_prev_state(e->v);
			task_set(p, p->in_io && st != ST_RUNNABLE && st != ST_DEAD ? ST_IO : st, t);
			if (p->state == ST_RUNNABLE)
				p->waker = -1;	/* preempted, not woken */
		}
		if ((n = task_get(e->b, t, NULL))) {
			task_name(n, e->comm2);
			if (n->state == ST_RUNNABLE && t - n->wait_start > n->max_delay)
				n->max_delay = t - n->wait_start;
			task_set(n, ST_RUNNING, t);
			n->cpu = e->cpu;
			n->switches++;
		}
		cpu_set(e->cpu, e->b >= 0 && e->b <= PID_MAX ? e->b : -1, t);
		cp->switches++;
		break;
	case EV_WAKEUP:
	case EV_WAKEUP_NEW:
	case EV_WAKING:
		if (!(n = task_get(e->a, t, NULL)))
			return;
		task_name(n, e->comm);
		if (n->state == ST_SLEEPING || n->state == ST_BLOCKED || n->state == ST_UNKNOWN) {
			task_set(n, ST_RUNNABLE, t);
			n->wakeups++;
			n->waker = e->flags & TRACE_IRQ_FLAGS ? WAKER_IRQ : e->tid;
		}
		if (e->c >= 0 && e->c < G.ncpu)
			n->cpu = e->c;
		break;
	case EV_PFORK:
		if ((n = task_get(e->b, t, NULL)))
			task_name(n, e->comm2);
		break;
	case EV_FORK:
		if ((n = task_get(e->c, t, NULL)))
			n->pid = e->a;
		break;
	case EV_PEXIT:
	case EV_EXIT:
		if ((p = task_get(e->kind == EV_EXIT ? e->c : e->a, t, NULL)))
			p->exited = true;
		break;
	case EV_MIGRATE:
		if ((p = task_get(e->a, t, NULL)) && e->c >= 0 && e->c < G.ncpu)
			p->cpu = e->c;
		break;
	case EV_IDLE:
		if (model_cpu_ok(e->c))
			cpu_cstate(e->c, (uint64_t)e->v == IDLE_EXIT ? -1 : e->v, t);
		break;
	case EV_FREQ:
		if (model_cpu_ok(e->c))
			cpu_freq(e->c, e->v, t);
		break;
	case EV_SYS_ENTER:
		if ((p = task_get(e->tid, t, NULL))) {
			p->in_io = true;
			p->io_call = e->b;
			p->io_start = t;
		}
		break;
	case EV_SYS_EXIT:
		if ((p = task_get(e->tid, t, NULL)) && p->in_io && p->io_call == e->b) {
			int kind = io_calls[e->b].kind;

			p->in_io = false;
			p->io_ns += t - p->io_start;
			p->io_count++;
			if (e->v < 0)
				p->io_errors++;
			else if (kind == IO_READ)
				p->io_rbytes += e->v;
			else if (kind == IO_WRITE)
				p->io_wbytes += e->v;
			ival_add(&p->last_iival, p - G.task, e->b,
				 e->v < INT32_MIN ? INT32_MIN : e->v > INT32_MAX ? INT32_MAX : (int32_t)e->v,
				 p->io_start, t > p->io_start ? t : p->io_start + 1);
		}
		break;
	}
}

/* Close every open state at the last event (end of a replay or summary). */
static void model_end(void)
{
	for (int i = 0; i < G.ntask; i++)
		task_set(&G.task[i], G.task[i].state, G.m_last);
	for (int c = 0; c < G.ncpu; c++) {
		cpu_set(c, G.cpu[c].cur, G.m_last);
		cpu_cstate(c, G.cpu[c].cstate, G.m_last);
		cpu_freq(c, G.cpu[c].freq, G.m_last);
	}
}

/* Does task t pass the -p filters (tid, thread group id or name)? */
static bool filter_task(const struct task *t)
{
	if (!G.nfilt)
		return true;
	for (int i = 0; i < G.nfilt; i++) {
		char *end;
		long v = strtol(G.filt[i], &end, 10);

		if (*end ? !strncmp(t->comm, G.filt[i], COMM_LEN - 1) : (v == t->tid || v == t->pid))
			return true;
	}
	return false;
}

/* Does CPU c pass -C? */
static bool filter_cpu(int c)
{
	return !G.cpu_filt || (c >= 0 && c < MAX_CPUS && G.cpu_filt[c]);
}

/* ---------------------------------------------------------------- merge */

/*
 * Records wait in per-CPU queues (struct mq), each in its CPU's time order,
 * until no CPU can deliver an older one; then they are released, oldest
 * first, to emit().  What "can no longer deliver an older one" means:
 *
 *   live:  after a pass over all rings, a CPU whose ring was drained is
 *          caught up to the clock read before the pass, less SLACK_NS: a
 *          record is stamped before it is written, and a virtual CPU can be
 *          descheduled in between; one that was not drained (its queue was
 *          full) is caught up to its last record.  Records up to the
 *          smallest caught-up time are released.
 *   file:  perf's rule: at each FINISHED_ROUND, records up to the newest
 *          time seen before the previous FINISHED_ROUND are released.
 *
 *   cpu0  |--a----c--------|         pass at T: cpu0 drained -> caught T
 *   cpu1  |----b-----d--e  (full)              cpu1 caught at e
 *         release a b c d e (<= min(T, e)), keep later ones for next pass
 *
 * A record older than one already released is counted (out_of_order) and
 * passed on, never dropped.
 */

static void emit(const uint8_t *r, size_t n, uint64_t t, const struct rinfo *ri);

/* Set up nq queues of cap bytes each; a queue's buffer is allocated at its
 * first record (recordings may name thousands of CPUs and use few). */
static void mrg_init(int nq, size_t cap)
{
	G.q = xcalloc(nq, sizeof(*G.q));
	G.nq = nq;
	for (int i = 0; i < nq; i++)
		G.q[i].cap = cap;
	G.released = 0;
}

/* Append record r (n bytes) with time t to q; -1 if q is full. */
static int mq_push(struct mq *q, const uint8_t *r, size_t n, uint64_t t)
{
	if (!q->buf)
		q->buf = xcalloc(1, q->cap);
	if (q->tail + 8 + n > q->cap) {
		if (q->head) {
			memmove(q->buf, q->buf + q->head, q->tail - q->head);
			q->tail -= q->head;
			q->head = 0;
		}
		if (q->tail + 8 + n > q->cap)
			return -1;
	}
	memcpy(q->buf + q->tail, &t, 8);
	memcpy(q->buf + q->tail + 8, r, n);
	q->tail += 8 + n;
	return 0;
}

/* Time of q's oldest record; false if q is empty. */
static bool mq_peek(const struct mq *q, uint64_t *t)
{
	if (q->head == q->tail)
		return false;
	memcpy(t, q->buf + q->head, 8);
	return true;
}

/* Release the oldest queued record if its time is <= bound; false if none. */
static bool mrg_release_one(uint64_t bound)
{
	int best = -1;
	uint64_t bt = 0, t;
	struct mq *q;
	const uint8_t *r;
	size_t n;

	for (int i = 0; i < G.nq; i++)
		if (mq_peek(&G.q[i], &t) && (best < 0 || t < bt)) {
			best = i;
			bt = t;
		}
	if (best < 0 || bt > bound)
		return false;
	q = &G.q[best];
	r = q->buf + q->head + 8;
	n = g16(r + 6);
	q->head += 8 + n;
	if (q->head == q->tail)
		q->head = q->tail = 0;
	if (bt < G.released)
		G.out_of_order++;
	else
		G.released = bt;
	emit(r, n, bt, NULL);
	return true;
}

/* Release every queued record with time <= bound, oldest first. */
static void mrg_release(uint64_t bound)
{
	while (mrg_release_one(bound))
		;
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
 * Move complete records from ring r into queue q, up to the ring's head or
 * until q is full.  A record of size zero, not a multiple of 8, or larger
 * than what the kernel published is corruption: everything up to the head is
 * skipped and counted.  *last gets the time of the last record queued.
 * Returns 1 if the ring was drained, 0 if q filled up first.
 */
static int rb_drain(struct rb *r, struct mq *q, uint64_t *last)
{
	/* acquire: read the head, then the data it covers (a plain load and a
	 * fence, as tools/include/linux/ring_buffer.h does: 32-bit targets
	 * have no 8-byte atomics) */
	uint64_t head = *(volatile __u64 *)&r->pc->data_head;
	uint64_t tail = r->pc->data_tail;

	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	int drained = 1;

	if (head - tail > r->size) {	/* overrun: the writer lapped us */
		G.corrupt++;
		tail = head;
	}
	while (head - tail >= 8) {
		struct perf_event_header h;
		struct rinfo ri;

		rb_copy(r, tail, &h, sizeof(h));
		if (h.size < 8 || h.size % 8 || h.size > head - tail) {
			G.corrupt++;
			tail = head;
			break;
		}
		rb_copy(r, tail, G.rec_tmp, h.size);
		if (rec_info(G.rec_tmp, h.size, &ri) < 0 || !ri.has_time) {
			G.unknown_id++;
		} else {
			if (mq_push(q, G.rec_tmp, h.size, ri.time) < 0) {
				drained = 0;
				break;
			}
			*last = ri.time;
		}
		tail += h.size;
	}
	if (head != tail && head - tail < 8 && drained)
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

/* Find the CPUs: G.ncpu from the possible mask, G.cpu_online from online. */
static void pe_cpus(void)
{
	char buf[4096];

	G.ncpu = 0;
	if (read_small("/sys/devices/system/cpu/possible", buf, sizeof(buf)) > 0)
		G.ncpu = cpulist_count(buf);
	if (G.ncpu <= 0)
		G.ncpu = sysconf(_SC_NPROCESSORS_CONF);
	if (G.ncpu <= 0)
		G.ncpu = 1;
	if (G.ncpu > MAX_CPUS)
		G.ncpu = MAX_CPUS;
	G.cpu_online = xcalloc(G.ncpu, sizeof(bool));
	if (read_small("/sys/devices/system/cpu/online", buf, sizeof(buf)) <= 0 ||
	    !parse_cpulist(buf, G.cpu_online, G.ncpu))
		for (int i = 0; i < G.ncpu; i++)
			G.cpu_online[i] = true;
}

/* Add an attr for tracepoint format f (live). */
static void pe_add_tp(const struct tfs_fmt *f)
{
	struct attr *a = &G.attr[G.nattr++];
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
 * itself needs FD_SPARE more (stdio, the signal pipe, the recording, the
 * terminal, tracefs and /proc reads, the command's error pipe).  Dies,
 * naming the real number, only when the limit is really too low.
 */
static void pe_fd_limit(int need)
{
	struct rlimit rl;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int est = (EV_NTP + 1 + (G.io ? 2 * N_IO : 0)) * (int)(ncpu > 0 ? ncpu : 1);
	int spare = FD_SPARE + G.view;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
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
		    G.nattr, need / G.nattr, need, spare, (unsigned long long)rl.rlim_cur, need + spare);
}

/* The ring of pages pages on CPU c could not be mapped: say why (errno)
 * and what to do. */
static void __attribute__((noreturn)) pe_mmap_fail(unsigned pages, int c)
{
	int e = errno;
	uint64_t kib = (uint64_t)(pages + 1) * sysconf(_SC_PAGESIZE) / 1024;
	struct rlimit rl = { 0, 0 };

	getrlimit(RLIMIT_MEMLOCK, &rl);
	if (e == EPERM)
		die("the %u-page ring on CPU %d (%" PRIu64 " KiB) is over the locked-memory limit for perf rings: /proc/sys/kernel/perf_event_mlock_kb is %s KiB per CPU (plus ulimit -l %llu KiB); raise it (as root: sysctl kernel.perf_event_mlock_kb=%" PRIu64 "), give tc CAP_IPC_LOCK, or use -m with fewer pages",
		    pages, c, kib, sysctl_str("/proc/sys/kernel/perf_event_mlock_kb"),
		    rl.rlim_cur == RLIM_INFINITY ? 0ull : (unsigned long long)rl.rlim_cur / 1024, kib);
	if (e == ENOMEM)
		die("the %u-page ring on CPU %d (%" PRIu64 " MiB) could not be allocated: not enough memory; use -m with fewer pages (default %d)",
		    pages, c, kib / 1024, DEF_MMAP_PAGES);
	die("mmap of the %u-page ring on CPU %d: %s; use -m with fewer pages (default %d)",
	    pages, c, strerror(e), DEF_MMAP_PAGES);
}

/*
 * Set up live capture: tracefs formats of tp_defs, one attr per tracepoint
 * plus a dummy software event for COMM/FORK/EXIT, opened on every online CPU
 * with one mmap'd ring per CPU (the other events SET_OUTPUT to it).  Dies
 * with a message saying what to do when the kernel refuses.
 */
static void pe_setup(void)
{
	long psz = sysconf(_SC_PAGESIZE);
	unsigned pages = G.mmap_pages ? G.mmap_pages : DEF_MMAP_PAGES;
	int need;

	pe_fd_limit(-1);
	if (tfs_find() < 0)
		die("%s", tfs_why);
	for (int k = 0; k < EV_NTP; k++) {
		bool sched = !strcmp(tp_defs[k].sys, "sched");
		const struct tfs_fmt *f;

		if (sched ? G.power_only : G.tasks_only)
			continue;
		f = fmt_load(tp_defs[k].sys, tp_defs[k].name);
		if (!f && tp_defs[k].required)
			die("tracepoint %s:%s missing from %s/events: a kernel with CONFIG_TRACEPOINTS and scheduler tracepoints is needed",
			    tp_defs[k].sys, tp_defs[k].name, G.tfs_root);
		if (!f) {
			note("%s:%s not available in this kernel, skipped", tp_defs[k].sys, tp_defs[k].name);
			continue;
		}
		pe_add_tp(f);
	}
	if (G.io) {	/* both ends of every I/O call the kernel has */
		int missing = 0;

		for (int k = 0; k < N_IO; k++) {
			char en[64], ex[64];
			const struct tfs_fmt *f1, *f2;

			snprintf(en, sizeof(en), "sys_enter_%s", io_calls[k].name);
			snprintf(ex, sizeof(ex), "sys_exit_%s", io_calls[k].name);
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
			die("-I: no syscalls tracepoints in %s/events/syscalls: a kernel with CONFIG_FTRACE_SYSCALLS is needed", G.tfs_root);
		if (missing)
			note("-I: %d of the %d I/O system calls have no tracepoint in this kernel, skipped", missing, N_IO);
	}
	if (G.power_only && !G.nattr)
		die("-P: this kernel has no power:cpu_idle or power:cpu_frequency tracepoint");
	if (!G.power_only) {	/* the dummy event: task names, forks and exits */
		struct attr *a = &G.attr[G.nattr++];
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

	pe_cpus();
	for (int c = G.ncpu; G.cpu_filt && c < MAX_CPUS; c++)
		if (G.cpu_filt[c])
			note("-C: there is no CPU %d here (CPUs 0-%d), skipped", c, G.ncpu - 1);
	for (int c = 0; c < G.ncpu; c++) {
		if (!G.cpu_online[c] && filter_cpu(c))
			note("CPU %d is offline, skipped", c);
		if (!filter_cpu(c))
			G.cpu_online[c] = false;	/* -C: not traced at all */
	}
	need = 0;
	for (int c = 0; c < G.ncpu; c++)
		need += G.cpu_online[c] ? G.nattr : 0;
	if (!need) {
		char on[256];

		if (read_small("/sys/devices/system/cpu/online", on, sizeof(on)) <= 0)
			strcpy(on, "?");
		on[strcspn(on, "\n")] = 0;
		die("-C: none of the CPUs given is online; the online CPUs are %s", on);
	}
	pe_fd_limit(need);
	G.fds = xcalloc(need, sizeof(int));
	if (G.io) {	/* every thread of tc, so that none of its calls is traced */
		DIR *d = opendir("/proc/self/task");
		struct dirent *de;
		size_t n = 0;

		G.self_filter[0] = 0;
		while (d && (de = readdir(d)))
			if (atoi(de->d_name) > 0 && n + 40 < sizeof(G.self_filter))
				n += snprintf(G.self_filter + n, sizeof(G.self_filter) - n, "%scommon_pid != %d",
					      n ? " && " : "", atoi(de->d_name));
		if (d)
			closedir(d);
	}
	G.rb = xcalloc(G.ncpu, sizeof(*G.rb));
	for (int i = 0; i < G.nattr; i++)
		G.attr[i].ids = xcalloc(G.ncpu, sizeof(uint64_t));
	G.rec_tmp = xcalloc(1, MAX_REC);
	for (int c = 0; c < G.ncpu; c++) {
		struct rb *r;
		int lead = -1;

		if (!G.cpu_online[c])
			continue;
		for (int i = 0; i < G.nattr; i++) {
			struct attr *a = &G.attr[i];
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
				    G.nattr, need / G.nattr, need, FD_SPARE + G.view,
				    errno == ENFILE ? "the system's limit is reached (fs.file-max)" : "raise ulimit -n");
			if (fd < 0)
				die("perf_event_open of %s on CPU %d: %s",
				    a->fmt ? a->fmt->name : "dummy", c, strerror(errno));
			G.fds[G.nfd++] = fd;
			if ((a->kind == EV_SYS_ENTER || a->kind == EV_SYS_EXIT) &&
			    ioctl(fd, PERF_EVENT_IOC_SET_FILTER, G.self_filter) < 0)
				die("cannot filter tc's own system calls out (%s): %s", G.self_filter, strerror(errno));
			if (ioctl(fd, PERF_EVENT_IOC_ID, &a->ids[a->nids]) < 0)
				die("PERF_EVENT_IOC_ID: %s", strerror(errno));
			a->nids++;
			if (lead < 0) {
				void *m = mmap(NULL, (size_t)(pages + 1) * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

				if (m == MAP_FAILED)
					pe_mmap_fail(pages, c);
				lead = fd;
				r = &G.rb[G.nrb++];
				r->pc = m;
				r->data = (uint8_t *)m + psz;
				r->size = (uint64_t)pages * psz;
				r->cpu = c;
				r->fd = fd;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, lead) < 0) {
				die("PERF_EVENT_IOC_SET_OUTPUT on CPU %d: %s", c, strerror(errno));
			}
		}
	}
	if (!G.nrb)
		die("no online CPU could be traced");
	idmap_build();
	mrg_init(G.ncpu + 1, 2 * (size_t)pages * psz + MAX_REC);	/* a ring and the slack */
}

/* Enable (on) or disable every event. */
static void pe_enable(bool on)
{
	for (int i = 0; i < G.nfd; i++)
		ioctl(G.fds[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* Sum the per-event lost counts (PERF_FORMAT_LOST) into G.lost_read. */
static void pe_read_lost(void)
{
	G.lost_read = 0;
	for (int i = 0; i < G.nfd; i++) {
		uint64_t v[2];

		if (read(G.fds[i], v, sizeof(v)) == sizeof(v))
			G.lost_read += v[1];
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

	for (int i = 0; i < G.nrb; i++) {
		struct rb *r = &G.rb[i];
		struct mq *q = &G.q[r->cpu];
		uint64_t last = q->caught;
		int drained = rb_drain(r, q, &last);

		q->caught = drained ? (t0 > SLACK_NS ? t0 - SLACK_NS : 0) : last;
		if (q->caught < bound)
			bound = q->caught;
		all &= drained;
	}
	mrg_release(final ? UINT64_MAX : bound);
	G.pass_bound = bound;
	return all;
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

/* A byte buffer that grows (start-up and repair only, never per event). */
struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void buf_add(struct buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		uint8_t *np;

		while (cap < b->len + n)
			cap *= 2;
		if (!(np = realloc(b->p, cap)))
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
 * cmdlines.  Formats come from G.fmt (tracefs); header_page from tracefs.
 */
static void td_build(struct buf *b)
{
	static const char *const hdrs[] = { "header_page", "header_event" };
	uint8_t v[2] = { __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, sizeof(long) };
	const char *sys[MAX_ATTRS];
	int nsys = 0;

	buf_add(b, "\x17\x08\x44tracing0.6", 14);
	buf_add(b, v, 2);
	buf_u32(b, sysconf(_SC_PAGESIZE));
	for (int i = 0; i < 2; i++) {
		char rel[64];
		size_t len = 0;
		char *text;

		snprintf(rel, sizeof(rel), "events/%s", hdrs[i]);
		if (!(text = tfs_read(rel, &len)))
			die("cannot read %s/%s", G.tfs_root, rel);
		buf_add(b, hdrs[i], strlen(hdrs[i]) + 1);
		buf_u64(b, len);
		buf_add(b, text, len);
		free(text);
	}
	buf_u32(b, 0);
	for (int i = 0; i < G.nattr; i++) {
		const struct tfs_fmt *f = G.attr[i].fmt;
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
		for (int i = 0; i < G.nattr; i++)
			cnt += G.attr[i].fmt && !strcmp(G.attr[i].fmt->sys, sys[k]);
		buf_u32(b, cnt);
		for (int i = 0; i < G.nattr; i++) {
			const struct tfs_fmt *f = G.attr[i].fmt;

			if (f && !strcmp(f->sys, sys[k])) {
				int fi = f - G.fmt;

				buf_u64(b, fmt_text[fi].len);
				buf_add(b, fmt_text[fi].text, fmt_text[fi].len);
			}
		}
	}
	buf_u32(b, 0);		/* kallsyms */
	buf_u32(b, 0);		/* printk formats */
	buf_u64(b, 0);		/* saved cmdlines */
}

/*
 * Build the feature blobs that do not change while recording, to sit at
 * file offset base: TRACING_DATA, HOSTNAME, OSRELEASE, VERSION (TC_WRITER:
 * tc writes its records in time order), ARCH, NRCPUS, CLOCKID, CLOCK_DATA.  Fills G.rec_static* and G.rec_feat.
 */
static void feat_build(uint64_t base, int nr_online)
{
	struct buf b = { 0 };
	struct utsname u;
	struct timespec tod, mono;

	uname(&u);
#define FEAT_BEGIN(bit) size_t start_##bit = b.len
#define FEAT_END(bit) do { \
		G.rec_static_off[bit] = base + start_##bit; \
		G.rec_static_size[bit] = b.len - start_##bit; \
		G.rec_feat |= 1ull << bit; \
		buf_pad(&b, 8); \
	} while (0)
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
	buf_u32(&b, G.ncpu);
	buf_u32(&b, nr_online);
	FEAT_END(FEAT_NRCPUS);
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
#undef FEAT_BEGIN
#undef FEAT_END
	free(G.rec_static);
	G.rec_static = b.p;
	G.rec_static_len = b.len;
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
		if (f == FEAT_RESERVED) {
			v[0] = PR_FINISHED_ROUND | (uint64_t)tlen << 48;
			v[1] = 0;
		} else if (f == FEAT_SAMPLE_TIME) {
			v[0] = pos + 16 * n;
			v[1] = 16;
		} else {
			v[0] = G.rec_static_off[f];
			v[1] = G.rec_static_size[f];
		}
		memcpy(out + o, v, 16);
		o += 16;
	}
	v[0] = G.rec_first;
	v[1] = G.rec_last;
	memcpy(out + o, v, 16);
	return tlen;
}

/* Write the buffered data; a failed write is fatal (disk full, or the
 * reader of a stream has gone). */
static void rec_flush(void)
{
	if (G.rec_len && write_all(G.rec_fd, G.rec_buf, G.rec_len) < 0)
		die("writing %s: %s", G.rec_path,
		    errno == EPIPE ? "the reader of the stream has gone" : strerror(errno));
	G.rec_len = 0;
}

/* Append record r (n bytes) to the data. */
static void rec_append(const void *r, size_t n)
{
	if (G.rec_len + n > REC_BUF)
		rec_flush();
	memcpy(G.rec_buf + G.rec_len, r, n);
	G.rec_len += n;
	G.rec_pos += n;
}

/* Append a FINISHED_ROUND record: everything before it was one pass. */
static void rec_round(void)
{
	struct perf_event_header h = { .type = PR_FINISHED_ROUND, .size = 8 };

	rec_append(&h, sizeof(h));
}

/* Make everything appended so far readable after a crash (see above);
 * a stream gets it written out. */
static void rec_checkpoint(void)
{
	uint8_t t[16 * 66];
	size_t tlen;
	uint64_t dsize;

	rec_flush();
	G.rec_ckpt_ns = now_ns();
	if (G.rec_pipe)
		return;
	tlen = rec_trailer(t, G.rec_pos, G.rec_feat);
	if (write_all(G.rec_fd, t, tlen) < 0)
		die("writing %s: %s", G.rec_path, strerror(errno));
	fdatasync(G.rec_fd);
	dsize = G.rec_pos - G.rec_data_off;
	if (pwrite(G.rec_fd, &dsize, 8, 48) != 8)
		die("writing %s: %s", G.rec_path, strerror(errno));
	G.rec_pos += tlen;
}

/* Under sudo, give the recording at fd to the user who ran sudo
 * (SUDO_UID, SUDO_GID), so that it reads it without root. */
static void rec_give(int fd)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	unsigned long uid, gid;
	char *e1, *e2;

	if (geteuid() != 0 || !u || !g)
		return;
	uid = strtoul(u, &e1, 10);
	gid = strtoul(g, &e2, 10);
	if (!*u || *e1 || !*g || *e2 || uid >= UINT32_MAX || gid >= UINT32_MAX) {
		note("SUDO_UID=%s SUDO_GID=%s are not numbers: %s stays root's", u, g, G.rec_path);
		return;
	}
	if (fchown(fd, uid, gid) < 0)
		note("cannot give %s to uid %lu gid %lu: %s", G.rec_path, uid, gid, strerror(errno));
}

/*
 * Open G.rec_path for the recording: sets G.rec_fd and G.rec_pipe.  "-" is
 * standard output (tc's own stdout then goes to stderr, so that neither tc
 * nor the command writes into the stream).  Only a regular file at the path
 * is ever replaced, and it is kept as FILE.old; a FIFO or a character
 * device (/dev/null) gets a stream; a symlink, a directory, a block device
 * or a socket is refused.  A new file is created mode 0600 (see rec_give).
 */
static void rec_open_out(void)
{
	const char *p = G.rec_path;
	char old[PATH_MAX];
	struct stat st, fst;
	int waited = 0;

	if (!strcmp(p, "-")) {
		if (isatty(1))
			die("--record -: standard output is a terminal; pipe it into a reader (tc --record - | tc --replay -) or give a file name");
		if ((G.rec_fd = fcntl(1, F_DUPFD_CLOEXEC, 3)) < 0)
			die("--record -: standard output: %s", strerror(errno));
		dup2(2, 1);
		G.rec_pipe = true;
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
		while ((G.rec_fd = open(p, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK)) < 0 &&
		       errno == ENXIO && !G.sig_stop) {
			if (!waited++)
				note("%s is a FIFO: waiting for a reader", p);
			usleep(100000);
		}
		if (G.rec_fd < 0)
			die("cannot write to %s: %s", p, G.sig_stop ? "stopped before a reader came" : strerror(errno));
		fcntl(G.rec_fd, F_SETFL, fcntl(G.rec_fd, F_GETFL) & ~O_NONBLOCK);
		if (fstat(G.rec_fd, &fst) < 0 || fst.st_ino != st.st_ino || fst.st_dev != st.st_dev)
			die("%s changed while it was opened: not recording", p);
		if (isatty(G.rec_fd))
			die("%s is a terminal: record to a file, a FIFO or - (standard output into a pipe)", p);
		G.rec_pipe = true;
		return;
	} else if (!S_ISREG(st.st_mode)) {
		die("%s is a %s, not a file: tc writes only to a regular file, a FIFO or a character device",
		    p, S_ISBLK(st.st_mode) ? "block device" : "socket");
	} else {
		if ((size_t)snprintf(old, sizeof(old), "%s.old", p) >= sizeof(old))
			die("%s: the name is too long to keep the existing file as %s.old; give a shorter name", p, p);
		if (rename(p, old) < 0)
			die("cannot keep the existing %s as %s: %s", p, old, strerror(errno));
		G.rec_kept_old = true;
	}
	G.rec_fd = open(p, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (G.rec_fd < 0)
		die("cannot create %s: %s", p, strerror(errno));
	rec_give(G.rec_fd);
}

/* An attr as written in both modes: perf_event_attr of FILE_ATTR_SIZE
 * bytes, without read_format (the files hold no read values). */
static void rec_attr_bytes(uint8_t a[FILE_ATTR_SIZE], const struct attr *at)
{
	struct perf_event_attr pa = at->pa;

	memset(a, 0, FILE_ATTR_SIZE);
	pa.size = FILE_ATTR_SIZE;
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
	for (int i = 0; i < G.nattr; i++)
		buf_add(&b, G.attr[i].ids, 8 * G.attr[i].nids);
	attrs_off = b.len;
	off = ids_off;
	for (int i = 0; i < G.nattr; i++) {
		uint8_t a[FILE_ATTR_SIZE];
		uint64_t io[2] = { off, 8 * (uint64_t)G.attr[i].nids };

		rec_attr_bytes(a, &G.attr[i]);
		buf_add(&b, a, sizeof(a));
		buf_add(&b, io, sizeof(io));
		off += io[1];
	}
	feat_build(b.len, nr_online);
	buf_add(&b, G.rec_static, G.rec_static_len);
	data_off = b.len;
	G.rec_feat |= 1ull << FEAT_RESERVED | 1ull << FEAT_SAMPLE_TIME;

	hdr[0] = PERF_MAGIC2;
	hdr[1] = FILE_HDR_SIZE;
	hdr[2] = FILE_ATTR_SIZE + 16;
	hdr[3] = attrs_off;
	hdr[4] = (uint64_t)G.nattr * (FILE_ATTR_SIZE + 16);
	hdr[5] = data_off;
	hdr[6] = 0;
	hdr[9] = G.rec_feat;
	memcpy(b.p, hdr, sizeof(hdr));
	if (write_all(G.rec_fd, b.p, b.len) < 0)
		die("writing %s: %s", G.rec_path, strerror(errno));
	free(b.p);
	G.rec_data_off = G.rec_pos = data_off;
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
				     FEAT_NRCPUS, FEAT_CLOCKID, FEAT_CLOCK_DATA };
	uint64_t head[2] = { PERF_MAGIC2, 16 };
	uint32_t td[2];
	struct buf b = { 0 }, r = { 0 };

	feat_build(0, nr_online);
	buf_add(&b, head, sizeof(head));
	for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
		uint64_t f = feats[i];

		r.len = 0;
		buf_add(&r, &f, 8);
		buf_add(&r, G.rec_static + G.rec_static_off[f], G.rec_static_size[f]);
		rec_user(&b, PR_HEADER_FEATURE, r.p, r.len);
	}
	for (int i = 0; i < G.nattr; i++) {
		uint8_t a[FILE_ATTR_SIZE];

		r.len = 0;
		rec_attr_bytes(a, &G.attr[i]);
		buf_add(&r, a, sizeof(a));
		buf_add(&r, G.attr[i].ids, 8 * G.attr[i].nids);
		rec_user(&b, PR_HEADER_ATTR, r.p, r.len);
	}
	td[0] = (G.rec_static_size[FEAT_TRACING_DATA] + 7) / 8 * 8;
	td[1] = 0;
	rec_user(&b, PR_HEADER_TRACING_DATA, td, sizeof(td));
	buf_add(&b, G.rec_static + G.rec_static_off[FEAT_TRACING_DATA], G.rec_static_size[FEAT_TRACING_DATA]);
	buf_pad(&b, 8);
	if (write_all(G.rec_fd, b.p, b.len) < 0)
		die("writing %s: %s", G.rec_path, strerror(errno));
	G.rec_data_off = G.rec_pos = b.len;
	free(b.p);
	free(r.p);
}

/*
 * Create the recording at G.rec_path (see rec_open_out) for the attrs in
 * G.attr, and write everything up to the first checkpoint: file mode for
 * a regular file, pipe mode for a stream.
 */
static void rec_open(int nr_online)
{
	rec_open_out();
	G.rec_buf = xcalloc(1, REC_BUF);
	if (G.rec_pipe)
		rec_pipe_head(nr_online);
	else
		rec_file_head(nr_online);
	rec_round();
	rec_checkpoint();
}

/* Finish the recording: final trailer without bit 0, header rewritten;
 * a stream just ends. */
static void rec_close(void)
{
	uint8_t t[16 * 66];
	size_t tlen;
	uint64_t h[7];

	rec_flush();
	if (G.rec_pipe) {
		close(G.rec_fd);
		G.rec_fd = -1;
		return;
	}
	G.rec_feat &= ~(1ull << FEAT_RESERVED);
	tlen = rec_trailer(t, G.rec_pos, G.rec_feat);
	if (write_all(G.rec_fd, t, tlen) < 0)
		die("writing %s: %s", G.rec_path, strerror(errno));
	h[0] = G.rec_pos - G.rec_data_off;
	h[1] = h[2] = 0;
	h[3] = G.rec_feat;
	h[4] = h[5] = h[6] = 0;
	if (pwrite(G.rec_fd, h, sizeof(h), 48) != sizeof(h))
		die("writing %s: %s", G.rec_path, strerror(errno));
	fsync(G.rec_fd);
	close(G.rec_fd);
	G.rec_fd = -1;
}

/*
 * COMM records for the tasks alive at start (from /proc), so that their
 * names are known, as perf record synthesizes them.  Sent through emit()
 * with time 0, in the dummy event's sample_id layout.
 */
static void rec_synth_comms(void)
{
	const struct attr *d = &G.attr[G.nattr - 1];
	DIR *pd = opendir("/proc");
	struct dirent *pe;

	if (!pd)
		return;
	while ((pe = readdir(pd))) {
		char path[300];
		DIR *td;
		struct dirent *te;
		int pid = atoi(pe->d_name);

		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
		if (!(td = opendir(path)))
			continue;
		while ((te = readdir(td))) {
			uint8_t r[8 + 8 + 16 + 32];
			char comm[64];
			int tid = atoi(te->d_name);
			struct perf_event_header h = { .type = PERF_RECORD_COMM, .size = sizeof(r) };
			uint32_t pt[2] = { pid, tid }, cpu[2] = { 0, 0 };
			uint64_t zero = 0;

			if (tid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", pid, tid);
			if (read_small(path, comm, sizeof(comm)) <= 0)
				continue;
			comm[strcspn(comm, "\n")] = 0;
			memset(r, 0, sizeof(r));
			memcpy(r, &h, 8);
			memcpy(r + 8, pt, 8);
			memcpy(r + 16, comm, strnlen(comm, COMM_LEN - 1));
			memcpy(r + 32, pt, 8);		/* sample_id: TID */
			memcpy(r + 40, &zero, 8);	/* TIME */
			memcpy(r + 48, cpu, 8);		/* CPU */
			memcpy(r + 56, &d->ids[0], 8);	/* IDENTIFIER */
			emit(r, sizeof(r), 0, NULL);
		}
		closedir(td);
	}
	closedir(pd);
}

/* ---------------------------------------------------------------- reader */

/*
 * The reader streams a recording's records through the merge into emit():
 * file mode (tc's and perf record's, also cut off ones) and pipe mode.
 * Every offset, count and size from the file is checked before use; what
 * cannot be read ends the stream with a note, and what was read stands.
 */

/* Make at least need bytes available at G.rd_buf + G.rd_pos; false at the
 * end of the data. */
static bool rd_fill(size_t need)
{
	if (G.rd_mapped && G.rd_pos - G.rd_dropped >= RD_BUF) {
		/* let go of what was read: memory stays small for any file size */
		size_t to = G.rd_pos & ~(size_t)(sysconf(_SC_PAGESIZE) - 1);

		madvise(G.rd_buf + G.rd_dropped, to - G.rd_dropped, MADV_DONTNEED);
		G.rd_dropped = to;
	}
	if (G.rd_len - G.rd_pos >= need)
		return true;
	if (G.rd_mapped)
		return false;
	memmove(G.rd_buf, G.rd_buf + G.rd_pos, G.rd_len - G.rd_pos);
	G.rd_off += G.rd_pos;
	G.rd_len -= G.rd_pos;
	G.rd_pos = 0;
	while (G.rd_len < need) {
		uint64_t left = G.rd_end - (G.rd_off + G.rd_len);
		size_t want = RD_BUF - G.rd_len;
		ssize_t n;

		if (left < want)
			want = left;
		if (!want)
			return false;
		n = read(G.rd_fd, G.rd_buf + G.rd_len, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		G.rd_len += n;
	}
	return true;
}

/* pread exactly n bytes at off; -1 if the file is shorter. */
static int rd_pread(void *buf, size_t n, uint64_t off)
{
	if (off > G.rd_fsize || n > G.rd_fsize - off)
		return -1;
	return pread(G.rd_fd, buf, n, off) == (ssize_t)n ? 0 : -1;
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

	if (G.nattr >= MAX_ATTRS || len < 48)
		return -1;
	a = &G.attr[G.nattr++];
	memset(a, 0, sizeof(*a));
	pa = &a->pa;
	pa->type = g32(p);
	pa->size = g32(p + 4);
	pa->config = g64(p + 8);
	pa->sample_period = g64(p + 16);
	pa->sample_type = g64(p + 24);
	pa->read_format = g64(p + 32);
	{
		uint64_t flags = g64(p + 40);

		if (G.swap)
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
 * Parse TRACING_DATA (blob of len bytes, see td_build) into G.fmt.  Its
 * numbers are in the byte order its own header names.  Returns the number
 * of formats, -1 if the blob is malformed before any format.
 */
static int td_parse(const uint8_t *b, size_t len)
{
	size_t o = 10;
	bool save = G.swap, whole = false;
	int nf = 0;
	uint32_t n;
	uint64_t sz;
	const uint8_t *p;

	if (len < 10 || memcmp(b, "\x17\x08\x44tracing", 10) || !td_str(b, len, &o) || len - o < 6)
		return -1;
	G.swap = b[o] != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
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
		snprintf(sys, sizeof(sys), "%.*s", (int)(o - 1 - s0), (const char *)b + s0);
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
	G.swap = save;
	return whole || nf ? nf : -1;
}

/* Bind every attr to its format.  With local, formats the recording lacks
 * come from this machine's tracefs, with a note (pipe mode binds without
 * until its first event, as its tracing data may come later). */
static void rd_bind(bool local)
{
	int missing = 0;

	for (int i = 0; i < G.nattr; i++)
		missing += G.attr[i].pa.type == PERF_TYPE_TRACEPOINT && !fmt_by_id(G.attr[i].pa.config);
	if (local && missing && fmt_from_local())
		note("the recording lacks tracepoint formats: using this machine's, which fit only if it was made here");
	for (int i = 0; i < G.nattr; i++)
		attr_bind(&G.attr[i]);
	idmap_build();
}

/*
 * Open a recording and read what precedes its records: for file mode the
 * header, attrs, ids and features (a cut-off file is read to its last
 * complete record), for pipe mode just the 16-byte header.  Dies with a
 * one-line message on what is not a recording tc can read.
 */
static void rd_open(const char *path)
{
	uint8_t h[FILE_HDR_SIZE];
	struct stat st;
	uint64_t attr_size, attrs_off, attrs_size, data_size, bits[4], total_ids = 0;

	if ((G.rd_fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		die("cannot open %s: %s", path, strerror(errno));
	if (fstat(G.rd_fd, &st) < 0)
		die("cannot stat %s: %s", path, strerror(errno));
	G.rd_fsize = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
	G.rd_buf = xcalloc(1, RD_BUF);
	G.rd_end = UINT64_MAX;
	if (!rd_fill(16))
		die("%s: too short for a perf.data file", path);
	memcpy(h, G.rd_buf, 16);
	if (!memcmp(h, "PERFILE2", 8))
		G.swap = false;
	else if (!memcmp(h, "2ELIFREP", 8))
		G.swap = true;
	else if (!memcmp(h, "PERFFILE", 8))
		die("%s: a perf.data version 1 file: too old, re-record it", path);
	else
		die("%s: not a perf.data file", path);
	if (g64(h + 8) == 16) {		/* pipe mode */
		G.rd_pipe = true;
		G.rd_pos = 16;
		return;
	}
	if (g64(h + 8) < FILE_HDR_SIZE || G.rd_fsize == UINT64_MAX || rd_pread(h, sizeof(h), 0) < 0)
		die("%s: bad perf.data header", path);
	attr_size = g64(h + 16);
	attrs_off = g64(h + 24);
	attrs_size = g64(h + 32);
	G.rd_data_off = g64(h + 40);
	data_size = g64(h + 48);
	for (int i = 0; i < 4; i++)
		bits[i] = g64(h + 72 + 8 * i);
	if (attr_size < 64 + 16 || attr_size > 4096 || attrs_size % attr_size ||
	    attrs_size / attr_size > MAX_ATTRS || G.rd_data_off > G.rd_fsize)
		die("%s: bad perf.data header (attrs or data section)", path);

	/* attrs and their ids */
	for (uint64_t i = 0; i < attrs_size / attr_size; i++) {
		uint8_t a[4096];
		uint64_t io, is, *ids;

		if (rd_pread(a, attr_size, attrs_off + i * attr_size) < 0)
			die("%s: attr %" PRIu64 " is outside the file", path, i);
		io = g64(a + attr_size - 16);
		is = g64(a + attr_size - 8);
		total_ids += is / 8;
		if (is % 8 || total_ids > MAX_IDS)
			die("%s: attr %" PRIu64 " has a bad id list", path, i);
		ids = xcalloc(is / 8 + 1, 8);
		if (rd_pread(ids, is, io) < 0)
			die("%s: attr %" PRIu64 " ids are outside the file", path, i);
		for (uint64_t k = 0; k < is / 8; k++)
			ids[k] = g64(&ids[k]);
		if (rd_add_attr(a, attr_size - 16, ids, is / 8) < 0)
			die("%s: too many attrs", path);
	}

	/* features, from the table at the end of the data */
	G.rd_end = G.rd_data_off + data_size;
	if (data_size == 0 || data_size > G.rd_fsize - G.rd_data_off) {
		G.rd_cut = true;
		G.rd_end = G.rd_fsize;
	} else {
		uint64_t tab = G.rd_end;

		for (int f = 0; f < FEAT_BITS; f++) {
			uint8_t e[16];
			uint64_t fo, fs;

			if (!(bits[f / 64] >> (f % 64) & 1))
				continue;
			if (rd_pread(e, 16, tab) < 0)
				break;
			tab += 16;
			fo = g64(e);
			fs = g64(e + 8);
			if (f < 64 && f != FEAT_RESERVED && fo <= G.rd_fsize && fs <= G.rd_fsize - fo) {
				G.rd_feat_bits |= 1ull << f;
				G.rd_feat_off[f] = fo;
				G.rd_feat_size[f] = fs;
			}
		}
		if (bits[0] & 1) {	/* tc's, cut off while recording */
			G.rd_cut = true;
			G.rd_end = G.rd_fsize;
		}
	}
	if (G.rd_feat_bits >> FEAT_TRACING_DATA & 1) {
		uint64_t sz = G.rd_feat_size[FEAT_TRACING_DATA];
		uint8_t *td;

		if (sz > MAX_TD)
			die("%s: tracing data too large", path);
		td = xcalloc(1, sz + 1);
		if (rd_pread(td, sz, G.rd_feat_off[FEAT_TRACING_DATA]) < 0 || td_parse(td, sz) < 0)
			note("%s: tracing data unreadable", path);
		free(td);
	}
	if (G.rd_feat_bits >> FEAT_VERSION & 1 && G.rd_feat_size[FEAT_VERSION] >= 4 + sizeof(TC_WRITER)) {
		char v[4 + sizeof(TC_WRITER)];

		G.rd_sorted = rd_pread(v, sizeof(v), G.rd_feat_off[FEAT_VERSION]) == 0 &&
			      !memcmp(v + 4, TC_WRITER, sizeof(TC_WRITER));
	}
	if (G.rd_feat_bits >> FEAT_NRCPUS & 1 && G.rd_feat_size[FEAT_NRCPUS] >= 8) {
		uint8_t nr[8];

		if (rd_pread(nr, 8, G.rd_feat_off[FEAT_NRCPUS]) == 0)
			G.rd_nrcpus = g32(nr);
	}
	rd_bind(true);
	/* map the file where the address space allows: no copy per read */
	if (G.rd_fsize <= SIZE_MAX / 2) {
		void *m = mmap(NULL, G.rd_fsize, PROT_READ, MAP_PRIVATE, G.rd_fd, 0);

		if (m != MAP_FAILED) {
			madvise(m, G.rd_fsize, MADV_SEQUENTIAL);
			free(G.rd_buf);
			G.rd_buf = m;
			G.rd_mapped = true;
			G.rd_off = 0;
			G.rd_len = G.rd_end;
			G.rd_pos = G.rd_data_off;
			return;
		}
	}
	if (lseek(G.rd_fd, G.rd_data_off, SEEK_SET) < 0)
		die("%s: cannot seek to the data", path);
	G.rd_off = G.rd_data_off;
	G.rd_len = G.rd_pos = 0;
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

/* Pipe mode HEADER_TRACING_DATA: {header, u32 size, pad}, then size bytes
 * that the record's own size does not count. */
static void rd_tracing_rec(const uint8_t *r, size_t n)
{
	uint32_t sz = n >= 12 ? g32(r + 8) : 0;
	uint8_t *td;
	size_t got = 0;

	if (sz > MAX_TD)
		die("tracing data too large");
	td = xcalloc(1, sz + 1);
	while (got < sz) {
		size_t k = sz - got < RD_BUF / 2 ? sz - got : RD_BUF / 2;

		if (!rd_fill(k))
			break;
		memcpy(td + got, G.rd_buf + G.rd_pos, k);
		G.rd_pos += k;
		got += k;
	}
	if (got < sz || td_parse(td, sz) < 0)
		note("tracing data unreadable");
	free(td);
	rd_bind(false);
}

/* Pipe mode HEADER_FEATURE: {header, u64 feature, data}; tc uses NRCPUS. */
static void rd_feature_rec(const uint8_t *r, size_t n)
{
	if (n >= 24 && g64(r + 8) == FEAT_NRCPUS)
		G.rd_nrcpus = g32(r + 16);
}

/* Size the merge for the recording's CPUs, at its first event. */
static void rd_queues(void)
{
	int nq;
	size_t cap;

	G.ncpu = G.rd_nrcpus > 0 && G.rd_nrcpus <= MAX_CPUS ? G.rd_nrcpus : 0;
	if (!G.ncpu) {
		pe_cpus();
		note("the recording does not say how many CPUs it had: assuming %d", G.ncpu);
	}
	if (G.rd_pipe)
		rd_bind(true);
	nq = G.ncpu + 1;
	cap = RD_QUEUE_TOTAL / nq;
	if (cap < MAX_REC + 16)
		cap = MAX_REC + 16;
	mrg_init(nq, cap);
	if (G.summary || G.view)
		model_init(G.ncpu, TC_MAX_TASKS, G.view ? TC_MAX_IVALS : 0);
}

/* Is type a record type that can appear in a perf.data file? */
static bool rd_type_ok(uint32_t type)
{
	return (type >= 1 && type < 32) || (type >= PR_HEADER_ATTR && type < PR_MAX_USER);
}

/*
 * Stream the records of the opened recording through the merge to emit(),
 * up to the first record newer than limit (which stays unread, for paced
 * replay).  Returns 1 at the limit, 0 if the data ended cleanly, -1 if it
 * ended in a broken record (what came before was emitted).
 */
static int rd_run(uint64_t limit)
{
	static uint64_t round_prev, tmax;
	int ret = 0;

	while (rd_fill(8)) {
		const uint8_t *r = G.rd_buf + G.rd_pos;
		uint32_t type = g32(r);
		size_t sz = g16(r + 6);
		uint64_t roff = G.rd_off + G.rd_pos;
		struct rinfo ri;
		uint64_t t;
		int qi;

		if (sz < 8 || !rd_type_ok(type)) {
			if (!G.rd_cut)
				note("bad record at offset %" PRIu64 " (type %u, size %zu): the rest is skipped",
				     roff, type, sz);
			G.corrupt += !G.rd_cut;
			ret = -1;
			break;
		}
		if (!rd_fill(sz)) {
			if (!G.rd_cut)
				note("the recording ends inside a record at offset %" PRIu64, roff);
			ret = -1;
			break;
		}
		r = G.rd_buf + G.rd_pos;
		if (limit != UINT64_MAX && type < PR_HEADER_ATTR && G.q &&
		    rec_info(r, sz, &ri) == 0 && ri.has_time && ri.time > limit) {
			G.rd_next_t = ri.time;
			return 1;
		}
		G.rd_pos += sz;
		switch (type) {
		case PR_FINISHED_ROUND:
			mrg_release(round_prev);
			round_prev = tmax;
			continue;
		case PR_HEADER_ATTR:
			rd_attr_rec(r, sz);
			continue;
		case PR_HEADER_TRACING_DATA:
			rd_tracing_rec(r, sz);
			continue;
		case PR_HEADER_FEATURE:
			rd_feature_rec(r, sz);
			continue;
		case PR_COMPRESSED:
			die("the recording is compressed (perf record -z): record without -z, or decompress it with perf inject -i FILE -o PLAIN");
		}
		if (type >= PR_HEADER_ATTR)
			continue;	/* other user records: skipped by size */
		if (!G.q)
			rd_queues();
		if (rec_info(r, sz, &ri) < 0) {
			G.unknown_id++;
			continue;
		}
		t = ri.has_time ? ri.time : tmax;
		if (t > tmax)
			tmax = t;
		if (ri.cpu >= G.ncpu) {
			G.bad_cpu++;
			continue;
		}
		if (G.rd_sorted) {	/* tc's own: already in time order */
			if (t < G.released)
				G.out_of_order++;
			else
				G.released = t;
			emit(r, sz, t, &ri);
			continue;
		}
		qi = ri.cpu < 0 ? G.nq - 1 : ri.cpu;
		while (mq_push(&G.q[qi], r, sz, t) < 0)
			if (!mrg_release_one(UINT64_MAX)) {
				G.corrupt++;	/* cannot fit even an empty queue */
				break;
			}
	}
	if (G.q)
		mrg_release(UINT64_MAX);
	return ret;
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
	die("writing %s (%s): %s; %s is unchanged", tmp, what, strerror(e), G.repair_path);
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
	free(cp);
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
	return G.rd_end <= G.rd_fsize && (uint64_t)16 * n <= G.rd_fsize - G.rd_end &&
	       (G.rd_feat_bits & want) == want;
}

/* Scan the data from G.rd_pos to the last complete record (G.rec_first
 * and G.rec_last get the sample times); returns its end offset. */
static uint64_t rp_scan(int *nrec)
{
	while (rd_fill(8)) {
		const uint8_t *r = G.rd_buf + G.rd_pos;
		size_t sz = g16(r + 6);
		struct rinfo ri;

		if (sz < 8 || sz % 8 || !rd_type_ok(g32(r)) || g32(r) == PR_HEADER_TRACING_DATA || !rd_fill(sz))
			break;
		r = G.rd_buf + G.rd_pos;
		if (g32(r) == PERF_RECORD_SAMPLE && rec_info(r, sz, &ri) == 0 && ri.has_time) {
			if (!G.rec_first || ri.time < G.rec_first)
				G.rec_first = ri.time;
			if (ri.time > G.rec_last)
				G.rec_last = ri.time;
		}
		G.rd_pos += sz;
		(*nrec)++;
	}
	return G.rd_off + G.rd_pos;
}

/*
 * Plan the features of a repair whose data ends at end: every readable
 * one of the file's own (*moved: those that sat after end, to be copied
 * after the new table), the ones tc needs that it lacks (*missing) built
 * from this machine into G.rec_static; SAMPLE_TIME from the scan.  Sets
 * G.rec_static_off/size for rec_trailer; returns the feature bits.
 */
static uint64_t rp_features(const char *path, uint64_t end, uint64_t *moved, uint64_t *missing)
{
	/* facts of the machine, not of the recording's clock: a file without
	 * CLOCKID is in perf's clock, which this machine cannot tell */
	static const int statics[] = { FEAT_TRACING_DATA, FEAT_HOSTNAME, FEAT_OSRELEASE,
				       FEAT_ARCH, FEAT_NRCPUS };
	uint64_t bits = G.rd_feat_bits & ~(1ull << FEAT_RESERVED | 1ull << FEAT_SAMPLE_TIME);
	uint64_t app = 0, base;

	*moved = *missing = 0;
	for (size_t i = 0; i < sizeof(statics) / sizeof(statics[0]); i++)
		if (!(bits >> statics[i] & 1))
			*missing |= 1ull << statics[i];
	bits |= *missing | 1ull << FEAT_SAMPLE_TIME;
	base = end + 16 * __builtin_popcountll(bits) + 16;
	for (int f = 0; f < 64; f++)
		if (G.rd_feat_bits >> f & 1 && bits >> f & 1 &&
		    G.rd_feat_off[f] + G.rd_feat_size[f] > end) {
			*moved |= 1ull << f;
			app += (G.rd_feat_size[f] + 7) / 8 * 8;
		}
	if (*missing) {
		pe_cpus();
		if (!G.tfs_root[0] && tfs_find() < 0 && (*missing >> FEAT_TRACING_DATA & 1))
			die("%s lacks tracing data and this machine has no tracefs to take it from", path);
		feat_build(base + app, G.ncpu);
		note("%s: features taken from this machine:%s%s%s%s%s", path,
		     *missing >> FEAT_TRACING_DATA & 1 ? " tracing data" : "",
		     *missing >> FEAT_NRCPUS & 1 ? " nrcpus" : "",
		     *missing >> FEAT_HOSTNAME & 1 ? " hostname" : "",
		     *missing >> FEAT_OSRELEASE & 1 ? " osrelease" : "",
		     *missing >> FEAT_ARCH & 1 ? " arch" : "");
	}
	for (int f = 0, o = 0; f < 64; f++)
		if (G.rd_feat_bits >> f & 1 && bits >> f & 1) {
			G.rec_static_off[f] = *moved >> f & 1 ? base + o : G.rd_feat_off[f];
			G.rec_static_size[f] = G.rd_feat_size[f];
			o += *moved >> f & 1 ? (G.rd_feat_size[f] + 7) / 8 * 8 : 0;
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
	if (G.rd_pipe)
		die("%s is a pipe-mode recording: perf script and tc read it as it is; nothing to repair", path);
	if (G.swap)
		die("%s is in the other byte order: repair it on a machine of its own byte order", path);
	complete = !G.rd_cut && rp_table_whole();
	data_end = G.rd_end;
	if (!complete)
		G.rd_end = G.rd_fsize;
	if (G.rd_mapped)
		G.rd_len = G.rd_end;
	G.rd_cut = true;
	end = rp_scan(&nrec);
	if (complete && end == data_end) {
		note("%s is complete (%d records): nothing to repair, left as it is", path, nrec);
		return;
	}

	bits = rp_features(path, end, &moved, &missing);
	/* the new file: [0, end) of the old one, the table, the blobs */
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.repair", path) >= sizeof(tmp) ||
	    (size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old))
		die("%s: the name is too long to keep the original as %s.old", path, path);
	if (lstat(old, &st) == 0)
		die("%s exists (an earlier repair's original?): move it away first, tc does not overwrite it", old);
	if ((out = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		die("cannot create %s: %s", tmp, strerror(errno));
	if (fstat(G.rd_fd, &st) == 0 && (fchown(out, st.st_uid, st.st_gid) < 0 || fchmod(out, st.st_mode & 0777) < 0))
		note("%s: cannot give it the owner and mode of %s: %s", tmp, path, strerror(errno));
	rp_copy(out, tmp, 0, end);
	tlen = rec_trailer(t, end, bits);
	if (write_all(out, t, tlen) < 0)
		rp_fail(tmp, "feature table");
	for (int f = 0; f < 64; f++)
		if (moved >> f & 1) {
			static const uint8_t z[8];

			rp_copy(out, tmp, G.rd_feat_off[f], G.rd_feat_size[f]);
			if (write_all(out, z, (8 - G.rd_feat_size[f] % 8) % 8) < 0)
				rp_fail(tmp, "features");
		}
	if (missing && write_all(out, G.rec_static, G.rec_static_len) < 0)
		rp_fail(tmp, "features");
	h[0] = end - G.rd_data_off;
	h[1] = h[2] = 0;
	h[3] = bits;
	h[4] = h[5] = h[6] = 0;
	if (pwrite(out, h, sizeof(h), 48) != sizeof(h) || fsync(out) < 0)
		rp_fail(tmp, "header");
	close(out);
	if (rename(path, old) < 0 || rename(tmp, path) < 0)
		die("cannot replace %s: %s", path, strerror(errno));
	note("repaired %s: %d records, %" PRIu64 " bytes of data kept, %" PRIu64 " bytes after them dropped; the original is %s",
	     path, nrec, end - G.rd_data_off, G.rd_end - end, old);
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

/* Fork the held command G.cmd; G.child is its pid (and process group). */
static void cmd_start(void)
{
	int err[2];
	pid_t pid, parent = getpid();
	sigset_t go, old;

	if (pipe2(err, O_CLOEXEC) < 0)
		die("pipe: %s", strerror(errno));
	prctl(PR_SET_CHILD_SUBREAPER, 1);	/* what the command orphans comes to tc */
	sigemptyset(&go);
	sigaddset(&go, SIGUSR1);
	sigprocmask(SIG_BLOCK, &go, &old);	/* no SIGUSR1 can be missed */
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		int e;

		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);	/* tc died before PDEATHSIG was set */
		close(err[0]);
		signal(SIGPIPE, SIG_DFL);
		if (G.view) {	/* the terminal is the view's: no keys, no output */
			int nul = open("/dev/null", O_RDWR);

			dup2(nul, 0);
			dup2(nul, 1);
			dup2(nul, 2);
			if (nul > 2)
				close(nul);
		}
		while (sigwaitinfo(&go, NULL) < 0 && errno == EINTR)
			;
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(G.cmd[0], G.cmd);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	setpgid(pid, pid);
	close(err[1]);
	G.child = pid;
	G.child_held = true;
	cmd_err_fd = err[0];
}

/* Let the held command run.  If it cannot be executed, the recording made
 * for it is removed (an older one put back) and tc dies. */
static void cmd_go(void)
{
	int e;

	kill(G.child, SIGUSR1);
	G.child_held = false;
	if (read(cmd_err_fd, &e, sizeof(e)) == sizeof(e)) {
		waitpid(G.child, NULL, 0);
		G.child = 0;
		if (G.rec_path && !G.rec_pipe) {
			char old[PATH_MAX];

			unlink(G.rec_path);
			snprintf(old, sizeof(old), "%s.old", G.rec_path);
			if (G.rec_kept_old)
				rename(old, G.rec_path);
		}
		die("cannot run %s: %s", G.cmd[0], strerror(e));
	}
	close(cmd_err_fd);
}

/* Reap the command if it has exited, and whatever else tc inherited as
 * subreaper; true once the command has exited. */
static bool cmd_reap(void)
{
	int st;
	pid_t p;

	if (G.child <= 0)
		return true;
	while ((p = waitpid(-1, &st, WNOHANG)) > 0)
		if (p == G.child && !G.child_done) {
			G.child_status = st;
			G.child_done = true;
			kill(-G.child, SIGTERM);	/* what it left behind in its group */
		}
	return G.child_done;
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
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct cmd_proc *pr = NULL;
	int n = 0, cap = 0, found = 0;

	while (d && (de = readdir(d))) {
		char path[64], buf[512], *rp;
		int pid = atoi(de->d_name);

		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		if (pid <= 0 || read_small(path, buf, sizeof(buf)) <= 0 || !(rp = strrchr(buf, ')')))
			continue;
		if (n == cap) {
			void *np = realloc(pr, (cap = cap ? 2 * cap : 1024) * sizeof(*pr));

			if (!np)
				break;
			pr = np;
		}
		pr[n].pid = pid;
		pr[n].mine = -1;
		pr[n].zombie = rp[1] && rp[2] == 'Z';
		if (sscanf(rp + 2, "%*c %d", &pr[n].ppid) == 1)
			n++;
	}
	if (d)
		closedir(d);
	if (n)
		qsort(pr, n, sizeof(*pr), cmd_proc_cmp);
	for (int i = 0; i < n; i++)
		if (cmd_proc_mine(pr, n, i, 0) && !pr[i].zombie) {
			found++;
			if (sig)
				kill(pr[i].pid, sig);
		}
	free(pr);
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

	if (G.child <= 0)
		return;
	if (G.child_held) {		/* never started */
		kill(G.child, SIGKILL);
		G.child_held = false;
	}
	cmd_reap();
	kill(-G.child, SIGTERM);
	if (cmd_signal_tree(SIGTERM)) {
		until = now_ns() + GRACE_NS;
		while (now_ns() < until && (cmd_reap(), cmd_signal_tree(0)))
			usleep(20000);
		kill(-G.child, SIGKILL);
		cmd_signal_tree(SIGKILL);
	}
	while (!G.child_done && waitpid(G.child, &G.child_status, 0) < 0 && errno == EINTR)
		;
	G.child_done = true;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	G.child = -G.child;	/* done: keep the number for nothing else */
}

/* ---------------------------------------------------------------- output */

static FILE *out_script;

/* Write s to f with every byte that is not printable ASCII, a space or a
 * backslash as \xNN: names from traced programs never reach a terminal raw. */
static void out_name(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = *s;

		if (c > ' ' && c < 0x7f && c != '\\')
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
}

/* One --script line for e: "TIME_NS CPU EVENT key=value ...". */
static void out_event(FILE *f, const struct ev *e)
{
	if (e->kind == EV_SYS_ENTER || e->kind == EV_SYS_EXIT)
		fprintf(f, "%" PRIu64 " %d sys_%s_%s", e->time, e->cpu,
			e->kind == EV_SYS_ENTER ? "enter" : "exit", io_calls[e->b].name);
	else
		fprintf(f, "%" PRIu64 " %d %s", e->time, e->cpu, ev_names[e->kind]);
	switch (e->kind) {
	case EV_SWITCH:
		fputs(" prev_comm=", f);
		out_name(f, e->comm);
		fprintf(f, " prev_pid=%d prev_state=%" PRId64 " next_comm=", e->a, e->v);
		out_name(f, e->comm2);
		fprintf(f, " next_pid=%d", e->b);
		break;
	case EV_WAKEUP:
	case EV_WAKEUP_NEW:
	case EV_WAKING:
		fputs(" comm=", f);
		out_name(f, e->comm);
		fprintf(f, " pid=%d target_cpu=%d waker=%d irq=%d", e->a, e->c, e->tid,
			!!(e->flags & TRACE_IRQ_FLAGS));
		break;
	case EV_PFORK:
		fputs(" parent_comm=", f);
		out_name(f, e->comm);
		fprintf(f, " parent_pid=%d child_comm=", e->a);
		out_name(f, e->comm2);
		fprintf(f, " child_pid=%d", e->b);
		break;
	case EV_PEXEC:
		fputs(" filename=", f);
		out_name(f, e->comm);
		fprintf(f, " pid=%d old_pid=%d", e->a, e->b);
		break;
	case EV_PEXIT:
	case EV_MIGRATE:
		fputs(" comm=", f);
		out_name(f, e->comm);
		fprintf(f, " pid=%d", e->a);
		if (e->kind == EV_MIGRATE)
			fprintf(f, " orig_cpu=%d dest_cpu=%d", e->b, e->c);
		break;
	case EV_IDLE:
	case EV_FREQ:
		fprintf(f, " state=%" PRId64 " cpu_id=%d", e->v, e->c);
		break;
	case EV_COMM:
		fprintf(f, " pid=%d tid=%d exec=%d comm=", e->a, e->b, (int)e->v);
		out_name(f, e->comm);
		break;
	case EV_FORK:
	case EV_EXIT:
		fprintf(f, " pid=%d ppid=%d tid=%d ptid=%d", e->a, e->b, e->c, (int)e->v);
		break;
	case EV_LOST:
		fprintf(f, " lost=%" PRId64, e->v);
		break;
	case EV_SYS_ENTER:
		fprintf(f, " pid=%d fd=%d", e->tid, e->a);
		break;
	case EV_SYS_EXIT:
		fprintf(f, " pid=%d ret=%" PRId64, e->tid, e->v);
		break;
	}
	fputc('\n', f);
}

/* ns as milliseconds with three decimals, exactly (truncated to µs). */
static void out_ms(FILE *f, uint64_t ns)
{
	fprintf(f, "\t%" PRIu64 ".%03u", ns / 1000000, (unsigned)(ns / 1000 % 1000));
}

/* Summary order: run time, largest first, then tid. */
static int out_cmp_run(const void *a, const void *b)
{
	const struct task *x = &G.task[*(const int *)a], *y = &G.task[*(const int *)b];

	if (x->total[ST_RUNNING] != y->total[ST_RUNNING])
		return x->total[ST_RUNNING] < y->total[ST_RUNNING] ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

/*
 * --summary: per task, then per CPU, tab-separated, times in ms (product.md,
 * "--summary output").  Tasks with nothing but a name are left out.
 */
static void out_summary(FILE *f)
{
	int *idx = xcalloc(G.ntask, sizeof(int)), n = 0;

	for (int i = 0; i < G.ntask; i++) {
		const struct task *t = &G.task[i];
		uint64_t known = 0;

		for (int s = ST_RUNNING; s < ST_DEAD; s++)
			known += t->total[s];
		if ((known || t->switches || t->wakeups || t->io_count) && filter_task(t))
			idx[n++] = i;
	}
	qsort(idx, n, sizeof(int), out_cmp_run);
	fputs("tid\tpid\tcomm\trun_ms\trunnable_ms\tsleep_ms\tblocked_ms\tio_ms\tswitches\twakeups\tmax_delay_ms\tunknown_ms\tinferred\tinitial_ms"
	      "\tio_calls\tio_call_ms\tread_bytes\twrite_bytes\tio_errors\n", f);
	for (int i = 0; i < n; i++) {
		const struct task *t = &G.task[idx[i]];

		fprintf(f, "%d\t%d\t", t->tid, t->pid);
		out_name(f, t->comm[0] ? t->comm : "?");
		out_ms(f, t->total[ST_RUNNING]);
		out_ms(f, t->total[ST_RUNNABLE]);
		out_ms(f, t->total[ST_SLEEPING]);
		out_ms(f, t->total[ST_BLOCKED]);
		out_ms(f, t->total[ST_IO]);
		fprintf(f, "\t%u\t%u", t->switches, t->wakeups);
		out_ms(f, t->max_delay);
		out_ms(f, t->total[ST_UNKNOWN]);
		fprintf(f, "\t%u", t->inferred);
		out_ms(f, t->initial);
		fprintf(f, "\t%u", t->io_count);
		out_ms(f, t->io_ns);
		fprintf(f, "\t%" PRIu64 "\t%" PRIu64 "\t%u\n", t->io_rbytes, t->io_wbytes, t->io_errors);
	}
	fputs("\ncpu\tbusy_ms\tidle_ms\tswitches\tidle_states_ms\tavg_mhz\tmax_mhz\n", f);
	for (int c = 0; c < G.ncpu; c++) {
		const struct cpu *p = &G.cpu[c];
		bool any = false;

		if (!filter_cpu(c))
			continue;
		fprintf(f, "%d", c);
		out_ms(f, p->busy);
		out_ms(f, p->idle);
		fprintf(f, "\t%u\t", p->switches);
		for (int k = 0; k < 10; k++)	/* "1:12.000,2:3.500": ms per idle state */
			if (p->cstate_ns[k]) {
				fprintf(f, "%s%d:%" PRIu64 ".%03u", any ? "," : "", k, p->cstate_ns[k] / 1000000,
					(unsigned)(p->cstate_ns[k] / 1000 % 1000));
				any = true;
			}
		fprintf(f, "%s\t%" PRIu64 "\t%" PRId64 "\n", any ? "" : "-",
			p->freq_ns ? p->freq_sum / p->freq_ns / 1000 : 0, p->freq_max / 1000);
	}
	free(idx);
}

/* The one-line account of a recording or replay, to stderr. */
static void out_stats(const char *verb, double secs, uint64_t bytes)
{
	static const struct { const char *name; const uint64_t *v; } anomalies[] = {
		{ "out of order", &G.out_of_order }, { "corrupt", &G.corrupt },
		{ "unknown", &G.unknown_id }, { "bad cpu", &G.bad_cpu }, { "bad pid", &G.bad_pid },
		{ "missing switch-ins inferred", &G.inferred }, { "gaps", &G.gaps },
		{ "tasks evicted", &G.evicted_tasks },
	};
	uint64_t total = 0;
	struct rusage ru;

	for (int k = 0; k < EV_NKIND; k++)
		total += k == EV_LOST ? 0 : G.n_kind[k];
	fprintf(stderr, "tc: %s %" PRIu64 " events (", verb, total);
	for (int k = 0, first = 1; k < EV_NKIND; k++)
		if (k != EV_LOST && G.n_kind[k]) {
			fprintf(stderr, "%s%s %" PRIu64, first ? "" : ", ", ev_names[k], G.n_kind[k]);
			first = 0;
		}
	fprintf(stderr, "), lost %" PRIu64, G.lost > G.lost_read ? G.lost : G.lost_read);
	for (size_t i = 0; i < sizeof(anomalies) / sizeof(anomalies[0]); i++)
		if (*anomalies[i].v)
			fprintf(stderr, ", %s %" PRIu64, anomalies[i].name, *anomalies[i].v);
	if (G.evicted_tasks)
		fprintf(stderr, " (task table of %d)", TC_MAX_TASKS);
	if (bytes)
		fprintf(stderr, ", %.1f MiB", bytes / 1048576.0);
	getrusage(RUSAGE_SELF, &ru);
	fprintf(stderr, ", %.3f s, tc's CPU %.3f s\n", secs,
		ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
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
 * It is restored on every way out: term_restore() runs from exit paths,
 * from die(), and from the fatal-signal handler (async-signal-safe calls
 * only).  Output is non-blocking: a slow terminal makes tc skip frames,
 * never stop reading the rings.
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
 * Per column of the timeline, G.acc[col * ACC_N + slot] holds what the row
 * did in the column's span: ns per task state (slots < ST_N), ns in I/O
 * calls per kind (ACC_IO + kind: any at all shows, so that short calls are
 * seen at any zoom), ns per idle state depth (ACC_C0...), and the
 * ns-weighted frequency sum.
 */
enum { ACC_IO = ST_N, ACC_C0 = ACC_IO + IO_NKIND, ACC_NC = 10, ACC_FSUM = ACC_C0 + ACC_NC,
       ACC_FNS, ACC_N };

/* Terminal colours by meaning (256-colour index; 16-colour fallback below). */
enum col { COL_RUN, COL_RUNNABLE, COL_SLEEP, COL_BLOCKED, COL_IO, COL_UNKNOWN,
	   COL_IDLE, COL_IDLE_DEEP, COL_FREQ, COL_AXIS, COL_CURSOR,
	   COL_IO_WRITE, COL_IO_SYNC, COL_IO_POLL, COL_N };
static const uint8_t col_256[COL_N] = { 34, 178, 238, 160, 33, 240, 24, 17, 97, 244, 231, 129, 37, 67 };
static const uint8_t col_16[COL_N] = { 2, 3, 0, 1, 4, 0, 6, 4, 5, 7, 7, 5, 6, 4 };
/* The colour of each enum io_kind (read is COL_IO). */
static const uint8_t io_col[IO_NKIND] = { COL_IO, COL_IO_WRITE, COL_IO_SYNC, COL_IO_POLL };
/* --ascii glyphs of I/O by kind */
static const char io_ascii[IO_NKIND] = { 'I', 'W', 'S', 'P' };

/* The state colour of each enum st (unknown and dead share one). */
static const uint8_t st_col[ST_N] = { COL_UNKNOWN, COL_RUN, COL_RUNNABLE, COL_SLEEP,
				      COL_BLOCKED, COL_IO, COL_UNKNOWN };
static const char *const st_names[ST_N] = { "unknown", "running", "runnable", "sleeping",
					     "blocked", "I/O", "exited" };
/* --ascii glyphs of the states when the row is not running */
static const char st_ascii[ST_N] = { ' ', '#', 'r', '.', 'D', 'I', ' ' };

static struct termios term_saved;
static int term_saved_flags = -1;
static volatile sig_atomic_t term_active;

/* Leave raw mode and the alternate screen (async-signal-safe). */
static void term_restore(void)
{
	if (!term_active)
		return;
	term_active = 0;
	if (term_saved_flags >= 0)
		fcntl(1, F_SETFL, term_saved_flags);
	if (write(1, TERM_LEAVE, sizeof(TERM_LEAVE) - 1) < 0)
		term_saved_flags = -1;
	tcsetattr(G.tty_in, TCSAFLUSH, &term_saved);
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

/* Enter raw mode on G.tty_in and the alternate screen on stdout. */
static void term_raw(void)
{
	struct termios t = term_saved;

	t.c_iflag &= ~(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
	t.c_oflag &= ~OPOST;
	t.c_cflag |= CS8;
	t.c_lflag &= ~(ECHO | ICANON | IEXTEN | ISIG);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	tcsetattr(G.tty_in, TCSAFLUSH, &t);
	term_saved_flags = fcntl(1, F_GETFL);
	fcntl(1, F_SETFL, term_saved_flags | O_NONBLOCK);
	term_active = 1;
	if (write(1, TERM_ENTER, sizeof(TERM_ENTER) - 1) < 0)
		G.full_redraw = true;
	G.full_redraw = true;
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
	if (rows == G.rows && cols == G.cols && G.scr)
		return;
	free(G.scr);
	free(G.scr_prev);
	free(G.acc);
	G.rows = rows;
	G.cols = cols;
	G.scr = xcalloc((size_t)rows * cols, sizeof(struct cell));
	G.scr_prev = xcalloc((size_t)rows * cols, sizeof(struct cell));
	G.acc = xcalloc((size_t)cols * ACC_N, sizeof(uint64_t));
	G.ob_cap = (size_t)rows * cols * 48 + 4096;	/* move, colours, 3-byte char per cell */
	free(G.ob);
	G.ob = xcalloc(1, G.ob_cap);
	G.ob_len = G.ob_off = 0;
	G.full_redraw = true;
}

/*
 * Set up the terminal for the view: stdout must be one; keys come from
 * stdin if it is a terminal, else from /dev/tty.  Dies with what to do
 * otherwise.  Reads the options that choose glyphs and colours.
 */
static void term_init(void)
{
	const char *term = getenv("TERM"), *lang;
	struct sigaction sa = { .sa_sigaction = term_fatal, .sa_flags = SA_SIGINFO };

	if (!isatty(1))
		die("stdout is not a terminal: use --record FILE to record, or --replay FILE --summary");
	G.tty_in = isatty(0) ? 0 : open("/dev/tty", O_RDONLY | O_CLOEXEC);
	if (G.tty_in < 0 || tcgetattr(G.tty_in, &term_saved) < 0)
		die("no terminal to read keys from");
	lang = getenv("LC_ALL");
	if (!lang || !*lang)
		lang = getenv("LC_CTYPE");
	if (!lang || !*lang)
		lang = getenv("LANG");
	G.utf8 = !G.ascii && lang && (strcasestr(lang, "utf-8") || strcasestr(lang, "utf8"));
	if (!term || !strcmp(term, "dumb") || getenv("NO_COLOR") || G.no_color)
		G.ncolor = 0;
	else if (strstr(term, "256") || getenv("COLORTERM"))
		G.ncolor = 256;
	else
		G.ncolor = 16;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(term_fatal_sig) / sizeof(term_fatal_sig[0]); i++)
		sigaction(term_fatal_sig[i], &sa, &term_fatal_old[i]);
	G.term_bps = term_rate();
	term_size();
	atexit(term_restore);
	term_raw();
}

/* Append bytes to the frame's output buffer (sized for a full redraw). */
static void ob_add(const char *s, size_t n)
{
	if (G.ob_len + n > G.ob_cap)
		return;		/* cannot happen: sized for the worst frame */
	memcpy(G.ob + G.ob_len, s, n);
	G.ob_len += n;
}

/* Write what is pending of the output without blocking; true when all is out. */
static bool ob_flush(void)
{
	while (G.ob_off < G.ob_len) {
		ssize_t n = write(1, G.ob + G.ob_off, G.ob_len - G.ob_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		G.ob_off += n;
		G.bytes_out += n;
	}
	G.ob_len = G.ob_off = 0;
	return true;
}

/* ---------------------------------------------------------------- drawing */

/*
 * A frame is drawn into G.scr by draw_frame() from the model and the view
 * state only, then draw_diff() writes the cells that differ from G.scr_prev
 * (what the terminal shows) as one buffer: an unchanged frame writes
 * nothing.
 *
 *   row 0         status line
 *   row 1         time axis
 *   rows 2..      CPU rows (and their frequency rows), then task rows
 *   last row      details of the selected row at the cursor
 *
 * A timeline cell covers span/ncol of time; it shows the share of each
 * state within that span: the height of an eighth block for running (or
 * busy), the background colour for the largest other state.
 */
enum { LABEL_W = 22 };

/* Put character ch at (r, c) with colours. */
static void draw_put(int r, int c, uint16_t ch, int fg, int bg, int attr)
{
	struct cell *p;

	if (r < 0 || r >= G.rows || c < 0 || c >= G.cols)
		return;
	p = &G.scr[r * G.cols + c];
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

/* printf into row r from column c, at most w columns. */
static int __attribute__((format(printf, 6, 7)))
draw_fmt(int r, int c, int w, int fg, int attr, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return draw_str(r, c, w, buf, fg, -1, attr);
}

/* A duration in ns as short text: "1.50s", "120ms", "35us", "800ns". */
static void fmt_dur(char *out, size_t n, uint64_t ns)
{
	if (ns >= 10 * NS_PER_SEC)
		snprintf(out, n, "%.1fs", ns / 1e9);
	else if (ns >= NS_PER_SEC)
		snprintf(out, n, "%.2fs", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(out, n, "%.3gms", ns / 1e6);
	else if (ns >= 1000)
		snprintf(out, n, "%.3gus", ns / 1e3);
	else
		snprintf(out, n, "%" PRIu64 "ns", ns);
}

/* Walk a row's intervals newest to oldest: calls fn for each one that
 * still exists and ends after from; stops when fn returns false. */
static void ival_walk(uint32_t idx, int32_t row, uint64_t from,
		      bool (*fn)(const struct ival *v, void *arg), void *arg)
{
	uint32_t seq = UINT32_MAX;

	while (idx != NO_IVAL && idx < G.nival) {
		const struct ival *v = &G.ival[idx];

		if (v->row != row || v->seq > seq || v->end <= from)
			return;
		seq = v->seq;
		if (!fn(v, arg))
			return;
		idx = v->prev;
	}
}

/* Add (overlap of [a, b) with each column) * w to slot. */
static void acc_add(uint64_t a, uint64_t b, int slot, uint64_t w)
{
	uint64_t span = G.v_end - G.v_start;
	int ncol = G.cols - LABEL_W;

	if (a < G.v_start)
		a = G.v_start;
	if (b > G.v_end)
		b = G.v_end;
	if (a >= b || ncol <= 0 || !span)
		return;
	for (int c = (a - G.v_start) * ncol / span; c < ncol; c++) {
		uint64_t c0 = G.v_start + span * c / ncol, c1 = G.v_start + span * (c + 1) / ncol;
		uint64_t lo = a > c0 ? a : c0, hi = b < c1 ? b : c1;

		if (c0 >= b)
			break;
		if (hi > lo)
			G.acc[c * ACC_N + slot] += (hi - lo) * w;
	}
}

static bool acc_task_fn(const struct ival *v, void *arg)
{
	(void)arg;
	acc_add(v->start, v->end, v->state, 1);
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

static bool acc_freq_fn(const struct ival *v, void *arg)
{
	(void)arg;
	acc_add(v->start, v->end, ACC_FSUM, v->state);
	acc_add(v->start, v->end, ACC_FNS, 1);
	return true;
}

/* Row codes of G.rowlist: a task slot (>= 0), a CPU, its frequency row,
 * or the one line saying the kernel reports no frequency. */
#define ROW_CPU(c) (-1 - (c))
#define ROW_FREQ(c) (-1 - (c) - MAX_CPUS)
#define ROW_NOFREQ (-1 - 2 * MAX_CPUS)
#define ROW_IS_CPU(r) ((r) < 0 && (r) > -1 - MAX_CPUS)
#define ROW_IS_FREQ(r) ((r) <= -1 - MAX_CPUS && (r) > ROW_NOFREQ)

/* Fill G.acc for row over the view. */
static void acc_row(int row)
{
	memset(G.acc, 0, sizeof(uint64_t) * G.cols * ACC_N);
	if (row >= 0) {
		const struct task *t = &G.task[row];

		ival_walk(t->last_ival, row, G.v_start, acc_task_fn, NULL);
		ival_walk(t->last_iival, row, G.v_start, acc_io_fn, NULL);
		if (t->state != ST_DEAD)
			acc_add(t->since, G.v_now, t->state, 1);
		if (t->in_io)
			acc_add(t->io_start, G.v_now, ACC_IO + io_calls[t->io_call].kind, 1);
	} else if (ROW_IS_CPU(row)) {
		const struct cpu *p = &G.cpu[-1 - row];

		ival_walk(p->last_ival, row, G.v_start, acc_cpu_fn, NULL);
		ival_walk(p->last_cival, row, G.v_start, acc_cstate_fn, NULL);
		if (p->cur >= 0)
			acc_add(p->since, G.v_now, p->cur > 0 ? ST_RUNNING : ST_SLEEPING, 1);
		if (p->cstate >= 0)
			acc_add(p->cstate_since, G.v_now, ACC_C0 + (p->cstate < ACC_NC ? p->cstate : ACC_NC - 1), 1);
	} else if (ROW_IS_FREQ(row)) {
		int c = -1 - row - MAX_CPUS;
		const struct cpu *p = &G.cpu[c];

		ival_walk(p->last_fival, ROW_CPU(c), G.v_start, acc_freq_fn, NULL);
		if (p->freq >= 0) {
			acc_add(p->freq_since, G.v_now, ACC_FSUM, p->freq);
			acc_add(p->freq_since, G.v_now, ACC_FNS, 1);
		}
	}
}

/*
 * Draw the timeline cells of a row from G.acc.  Tasks: block height is the
 * running share; the background the largest other state, I/O first.  CPUs:
 * height is the busy share; idle shows its deepest-held idle state (a digit
 * in --ascii).  Frequency rows: height is the mean frequency over the
 * highest seen.
 */
static void draw_cells(int r, int row)
{
	int ncol = G.cols - LABEL_W;
	uint64_t span = G.v_end - G.v_start;
	int cur_col = span && G.v_cursor >= G.v_start && G.v_cursor <= G.v_end ?
		      (int)((G.v_cursor - G.v_start) * ncol / span) : -1;
	bool cpu = ROW_IS_CPU(row), freq = ROW_IS_FREQ(row);

	for (int c = 0; c < ncol; c++) {
		const uint64_t *a = &G.acc[c * ACC_N];
		uint64_t cw = span * (c + 1) / ncol - span * c / ncol, best = 0, run = a[ST_RUNNING];
		uint64_t best_cs = 0, idle_cs = 0, best_io = 0;
		int other = -1, eighths, fg = -1, bg = -1, cs = -1, io = IO_READ;
		uint16_t ch;

		if (!cw)
			cw = 1;
		if (freq) {
			run = a[ACC_FNS] && G.freq_max ? a[ACC_FSUM] / a[ACC_FNS] * cw / G.freq_max : 0;
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
		eighths = run ? (int)((run * 8 + cw - 1) / cw) : 0;
		if (eighths > 8)
			eighths = 8;
		if (G.ncolor) {
			if (!freq)
				fg = COL_RUN;
			if (other >= 0)
				bg = cpu && other == ST_SLEEPING ? (cs >= 2 ? COL_IDLE_DEEP : COL_IDLE) :
				     other == ST_IO ? io_col[io] : st_col[other];
			if (bg == COL_SLEEP)
				bg = -1;
		}
		if (G.utf8) {
			ch = eighths ? 0x2580 + eighths : ' ';	/* U+2581..2588 */
			if (eighths == 0 && !G.ncolor && other >= 0)
				ch = other == ST_UNKNOWN ? 0xb7 : other == ST_RUNNABLE ? 0x2591 :
				     other == ST_BLOCKED ? 0x2593 : other == ST_IO ? 0x2592 :
				     cpu && cs >= 0 ? '0' + cs : ' ';
		} else {
			ch = eighths >= 4 ? '#' : eighths ? '+' : other == ST_IO ? (uint16_t)io_ascii[io] :
			     other >= 0 ? (uint16_t)st_ascii[other] : ' ';
			if (cpu && other == ST_SLEEPING && !eighths)
				ch = cs >= 0 ? '0' + cs : '_';
		}
		if (c == cur_col)
			bg = COL_CURSOR;
		draw_put(r, LABEL_W + c, ch, fg, bg, c == cur_col && !G.ncolor ? CA_REVERSE : 0);
	}
}

/* Order of task rows (the 's' key). */
enum { ORD_RUN, ORD_TID, ORD_NAME, ORD_FIRST, ORD_N };
static const char *const ord_names[ORD_N] = { "run time", "tid", "name", "first seen" };

static int row_cmp(const void *pa, const void *pb)
{
	const struct task *a = &G.task[*(const int *)pa], *b = &G.task[*(const int *)pb];
	int d = 0;

	switch (G.v_order) {
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

/*
 * The rows of the view in order: CPUs, each with its frequency row where
 * the kernel reports one (with -P, one line says when none does), then the
 * tasks seen in the view's span, in the chosen order.  Fills G.rowlist,
 * G.nrowlist.
 */
static void rows_build(void)
{
	int n = 0, first_task;

	bool any_freq = false;

	for (int c = 0; c < G.ncpu && n < G.rowlist_cap - 1; c++) {
		bool freq = G.cpu[c].freq >= 0 || G.cpu[c].last_fival != NO_IVAL;

		if (!filter_cpu(c) || (!G.cpu[c].seen && G.cpu[c].last_ival == NO_IVAL && !freq &&
				       G.cpu[c].cstate < 0 && G.cpu[c].last_cival == NO_IVAL))
			continue;
		G.rowlist[n++] = ROW_CPU(c);
		if (freq)
			G.rowlist[n++] = ROW_FREQ(c);
		any_freq |= freq;
	}
	if (G.power_only && !any_freq && n < G.rowlist_cap)
		G.rowlist[n++] = ROW_NOFREQ;
	first_task = n;
	for (int i = 0; i < G.ntask && n < G.rowlist_cap; i++) {
		const struct task *t = &G.task[i];

		if (G.power_only || !filter_task(t))
			continue;
		if (t->last_seen >= G.v_start || t->state == ST_RUNNING || t->state == ST_RUNNABLE)
			if (t->state != ST_DEAD || t->last_seen >= G.v_start)
				G.rowlist[n++] = i;
	}
	qsort(G.rowlist + first_task, n - first_task, sizeof(int), row_cmp);
	G.nrowlist = n;
}

/* The key of row index i of G.rowlist: tid for tasks, the row code else. */
static int row_key(int i)
{
	int row = G.rowlist[i];

	return row >= 0 ? G.task[row].tid : row - 1000000;
}

/* Index in G.rowlist of the row with key, or -1. */
static int row_find(int key)
{
	for (int i = 0; i < G.nrowlist; i++)
		if (row_key(i) == key)
			return i;
	return -1;
}

/* The interval of a task row that contains time t (or the current state). */
struct at { const struct ival *found; uint64_t t; };

static bool at_fn(const struct ival *v, void *arg)
{
	struct at *a = arg;

	if (v->start <= a->t && a->t < v->end) {
		a->found = v;
		return false;
	}
	return v->start > a->t;
}

/* State of task slot row at time t: fills state, start, end (end 0: open),
 * aux.  False if unknown there. */
static bool task_at(int row, uint64_t t, int *state, uint64_t *start, uint64_t *end, int *aux)
{
	const struct task *tk = &G.task[row];
	struct at a = { NULL, t };

	if (t >= tk->since && tk->state != ST_DEAD) {
		*state = tk->state;
		*start = tk->since;
		*end = 0;
		*aux = tk->state == ST_RUNNABLE ? tk->waker : -1;
		return true;
	}
	ival_walk(tk->last_ival, row, t, at_fn, &a);
	if (!a.found)
		return false;
	*state = a.found->state;
	*start = a.found->start;
	*end = a.found->end;
	*aux = a.found->aux;
	return true;
}

/* Name of task tid for the details line. */
static const char *task_comm(int tid)
{
	const struct task *t = tid > 0 ? task_find(tid) : NULL;

	return t ? t->comm : tid == 0 ? "idle" : "?";
}

/* The details line: the selected row at the cursor. */
static void draw_details(int r)
{
	char d1[32], d2[32];
	int row, st, aux;
	uint64_t start, end;

	if (G.v_search) {
		draw_fmt(r, 0, G.cols, -1, CA_BOLD, "find task (name or pid): %s_", G.v_query);
		return;
	}
	if (G.v_msg[0]) {
		draw_str(r, 0, G.cols, G.v_msg, -1, -1, CA_BOLD);
		return;
	}
	if (G.v_sel < 0 || G.v_sel >= G.nrowlist)
		return;
	row = G.rowlist[G.v_sel];
	fmt_dur(d1, sizeof(d1), G.v_cursor > G.m_first ? G.v_cursor - G.m_first : 0);
	if (row >= 0) {
		const struct task *t = &G.task[row];
		int c = draw_fmt(r, 0, G.cols, -1, 0, "%d %s at %s: ", t->tid, t->comm, d1);

		if (!task_at(row, G.v_cursor, &st, &start, &end, &aux)) {
			draw_str(r, c, G.cols - c, "unknown", -1, -1, 0);
			return;
		}
		fmt_dur(d2, sizeof(d2), (end ? end : G.v_now) - start);
		fmt_dur(d1, sizeof(d1), start > G.m_first ? start - G.m_first : 0);
		c += draw_fmt(r, c, G.cols - c, -1, 0, "%s since %s for %s%s", st_names[st], d1, d2,
			      end ? "" : " (still)");
		if (st == ST_RUNNABLE && aux != -1)
			c += draw_fmt(r, c, G.cols - c, -1, 0, ", woken by %s",
				      aux == WAKER_IRQ ? "an interrupt" : task_comm(aux));
		if (st == ST_RUNNABLE && aux == -1)
			c += draw_str(r, c, G.cols - c, ", preempted", -1, -1, 0);
		{	/* an I/O call at the cursor: which, and what it returned */
			struct at a = { NULL, G.v_cursor };

			if (t->in_io && G.v_cursor >= t->io_start) {
				fmt_dur(d2, sizeof(d2), G.v_now - t->io_start);
				c += draw_fmt(r, c, G.cols - c, -1, 0, "; in %s() (%s) for %s", io_calls[t->io_call].name,
					      io_kind_names[io_calls[t->io_call].kind], d2);
			}
			ival_walk(t->last_iival, row, G.v_cursor, at_fn, &a);
			if (a.found && a.found->state < N_IO)
				c += draw_fmt(r, c, G.cols - c, -1, 0, "; %s() (%s) returned %d",
					      io_calls[a.found->state].name,
					      io_kind_names[io_calls[a.found->state].kind], a.found->aux);
		}
		if (t->waker != -1)
			draw_fmt(r, c, G.cols - c, -1, 0, "; last waker %s",
				 t->waker == WAKER_IRQ ? "irq" : task_comm(t->waker));
	} else if (ROW_IS_CPU(row)) {
		const struct cpu *p = &G.cpu[-1 - row];

		int c = draw_fmt(r, 0, G.cols, -1, 0, "cpu%d: %s %s", -1 - row,
				 p->cur > 0 ? "running" : p->cur == 0 ? "idle" : "unknown",
				 p->cur > 0 ? task_comm(p->cur) : "");

		if (p->cstate >= 0)
			c += draw_fmt(r, c, G.cols - c, -1, 0, ", idle state %" PRId64, p->cstate);
		if (p->freq >= 0)
			draw_fmt(r, c, G.cols - c, -1, 0, ", %" PRId64 " MHz", p->freq / 1000);
	} else if (ROW_IS_FREQ(row)) {
		const struct cpu *p = &G.cpu[-1 - row - MAX_CPUS];

		draw_fmt(r, 0, G.cols, -1, 0, "cpu%d frequency: %" PRId64 " MHz now, highest seen %" PRId64 " MHz",
			 -1 - row - MAX_CPUS, p->freq >= 0 ? p->freq / 1000 : 0, G.freq_max / 1000);
	} else {
		draw_str(r, 0, G.cols, "no cpu_frequency events: this kernel has no cpufreq driver (common in VMs)",
			 -1, -1, 0);
	}
}

/* The time axis: tick labels at a readable step, relative to the start. */
static void draw_axis(int r)
{
	static const uint64_t steps[] = { 1, 2, 5 };
	int ncol = G.cols - LABEL_W;
	uint64_t span = G.v_end - G.v_start, step = 1, base = G.m_first ? G.m_first : G.v_start, first;

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
	first = G.v_start > base ? base + (G.v_start - base + step - 1) / step * step : base;
	if (first < G.v_start)
		first = G.v_start;	/* the rounding wrapped */
	/* times from a file can be near 2^64: stop when t wraps, never
	 * more ticks than columns, and no product may overflow */
	for (uint64_t t = first, n = 0; t >= first && t <= G.v_end && n <= (uint64_t)ncol; t += step, n++) {
		char lab[32];
		uint64_t d = t - G.v_start;
		int c;

		c = LABEL_W + (int)(d <= UINT64_MAX / ncol ? d * ncol / span : d / (span / ncol + 1));
		fmt_dur(lab, sizeof(lab), t > base ? t - base : 0);
		draw_put(r, c, G.utf8 ? 0x2502 : '|', COL_AXIS, -1, 0);
		draw_str(r, c + 1, G.cols - c - 1, lab, COL_AXIS, -1, 0);
	}
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
	ival_walk(G.task[row].last_ival, row, a, tot_fn, &x);
	if (G.task[row].state != ST_DEAD)
		tot_add(&x, G.task[row].since, G.v_now, G.task[row].state);
}

/* The status line. */
static void draw_status(int r)
{
	char win[32], cur[32], ref[32];
	int c;

	fmt_dur(win, sizeof(win), G.v_end - G.v_start);
	fmt_dur(cur, sizeof(cur), G.v_cursor > G.m_first ? G.v_cursor - G.m_first : 0);
	fmt_dur(ref, sizeof(ref), G.refresh_ns);
	for (int i = 0; i < G.cols; i++)
		draw_put(r, i, ' ', -1, -1, CA_REVERSE);
	c = draw_fmt(r, 0, G.cols, -1, CA_REVERSE | CA_BOLD, " tc %s ",
		     G.paused ? "PAUSED" : G.live ? "live" : G.speed > 0 ? "replay >" : "replay");
	if (G.rec_path && G.live)
		c += draw_fmt(r, c, G.cols - c, -1, CA_REVERSE, "| rec %s %.1fMiB ", G.rec_path, G.rec_pos / 1048576.0);
	c += draw_fmt(r, c, G.cols - c, -1, CA_REVERSE,
		      "| %" PRIu64 " ev/s | lost %" PRIu64 " | win %s | refresh %s | cursor %s%s",
		      G.ev_rate, G.lost > G.lost_read ? G.lost : G.lost_read, win, ref, cur,
		      G.v_following ? " | following" : "");
	if (G.v_has_mark) {
		char dm[32];
		uint64_t a = G.v_mark < G.v_cursor ? G.v_mark : G.v_cursor;
		uint64_t b = G.v_mark < G.v_cursor ? G.v_cursor : G.v_mark;

		fmt_dur(dm, sizeof(dm), b - a);
		c += draw_fmt(r, c, G.cols - c, -1, CA_REVERSE, " | cursor-mark %s%s", G.v_mark > G.v_cursor ? "-" : "", dm);
		if (G.v_sel >= 0 && G.v_sel < G.nrowlist && G.rowlist[G.v_sel] >= 0) {
			uint64_t tot[ST_N];
			char rn[32], wt[32];

			task_totals(G.rowlist[G.v_sel], a, b, tot);
			fmt_dur(rn, sizeof(rn), tot[ST_RUNNING]);
			fmt_dur(wt, sizeof(wt), tot[ST_RUNNABLE]);
			c += draw_fmt(r, c, G.cols - c, -1, CA_REVERSE, " run %s wait %s", rn, wt);
		}
	}
	if (G.evicted_tasks || G.evicted_ivals || G.out_of_order || G.corrupt || G.inferred || G.gaps)
		draw_fmt(r, c, G.cols - c, -1, CA_REVERSE,
			 " | evicted %" PRIu64 "/%" PRIu64 " ooo %" PRIu64 " bad %" PRIu64 " inferred %" PRIu64
			 " gaps %" PRIu64, G.evicted_tasks, G.evicted_ivals, G.out_of_order,
			 G.corrupt + G.bad_cpu + G.bad_pid + G.unknown_id, G.inferred, G.gaps);
}

/* The help overlay. */
static void draw_help(void)
{
	static const char *const lines[] = {
		"tc keys",
		"",
		"j k Up Down PgUp PgDn   select a row",
		"h l Left Right          move the cursor",
		"H L Shift-Left/Right    pan a quarter",
		"+ = -                   zoom in / out",
		"0 Esc                   whole window, follow",
		"n p                     next / previous change",
		"w                       go to the waker",
		"m                       set a mark",
		"s                       task order",
		"/                       find a task",
		"space                   pause / resume (live)",
		"?                       this help",
		"q Ctrl-C                quit",
		"",
		"running: block height; runnable, blocked,",
		"I/O, unknown: colour (letters in --ascii)",
	};
	int n = sizeof(lines) / sizeof(lines[0]), w = 50;
	int r0 = (G.rows - n - 2) / 2, c0 = (G.cols - w) / 2;

	if (r0 < 0)
		r0 = 0;
	if (c0 < 0)
		c0 = 0;
	for (int i = 0; i < n + 2; i++) {
		for (int j = 0; j < w; j++)
			draw_put(r0 + i, c0 + j, ' ', -1, -1, CA_REVERSE);
		if (i > 0 && i <= n)
			draw_str(r0 + i, c0 + 2, w - 4, lines[i - 1], -1, -1, CA_REVERSE);
	}
}

/* Build the whole frame into G.scr (live, draining the rings now and then). */
static void draw_frame(void)
{
	int body = G.rows - 3;
	uint64_t drained = now_ns();

	for (int i = 0; i < G.rows * G.cols; i++)
		G.scr[i] = (struct cell){ ' ', 0, 0, 0 };
	rows_build();
	if (G.v_sel_key != INT_MIN) {
		int i = row_find(G.v_sel_key);

		if (i >= 0)
			G.v_sel = i;
	}
	if (G.v_sel >= G.nrowlist)
		G.v_sel = G.nrowlist - 1;
	if (G.v_sel < 0 && G.nrowlist)
		G.v_sel = 0;
	if (G.v_sel >= 0)
		G.v_sel_key = row_key(G.v_sel);
	if (G.v_sel < G.v_top)
		G.v_top = G.v_sel;
	if (body > 0 && G.v_sel >= G.v_top + body)
		G.v_top = G.v_sel - body + 1;
	if (G.v_top < 0)
		G.v_top = 0;
	draw_status(0);
	draw_axis(1);
	for (int i = 0; i < body && G.v_top + i < G.nrowlist; i++) {
		int idx = G.v_top + i, row = G.rowlist[idx], r = 2 + i;
		int attr = idx == G.v_sel ? CA_REVERSE : 0;

		if (row >= 0) {
			const struct task *t = &G.task[row];
			char lab[LABEL_W + 1];

			snprintf(lab, sizeof(lab), "%7d %-13.13s", t->tid, t->comm);
			draw_str(r, 0, LABEL_W - 1, lab, -1, -1, attr);
		} else if (ROW_IS_CPU(row)) {
			const struct cpu *p = &G.cpu[-1 - row];

			draw_fmt(r, 0, LABEL_W - 1, -1, attr | CA_BOLD, "cpu%-4d %-12s", -1 - row,
				 p->cur > 0 ? task_comm(p->cur) : p->cur == 0 ? "idle" : "");
		} else if (ROW_IS_FREQ(row)) {
			int c = -1 - row - MAX_CPUS;

			draw_fmt(r, 0, LABEL_W - 1, -1, attr, "cpu%-4d %6" PRId64 " MHz", c,
				 G.cpu[c].freq >= 0 ? G.cpu[c].freq / 1000 : 0);
		} else {
			draw_str(r, 0, LABEL_W - 1, "frequency", -1, -1, attr);
			draw_str(r, LABEL_W, G.cols - LABEL_W,
				 "not reported by this kernel (no cpufreq driver)", -1, -1, 0);
			continue;
		}
		acc_row(row);
		draw_cells(r, row);
		if (G.live && !G.paused && now_ns() - drained > 2000000) {
			pe_pass(false);	/* a long frame must not let the rings overflow */
			drained = now_ns();
		}
	}
	draw_details(G.rows - 1);
	if (G.v_help)
		draw_help();
}

/* Append the SGR sequence that selects cell p's attributes. */
static void diff_sgr(const struct cell *p)
{
	char b[64];
	int n = snprintf(b, sizeof(b), "\x1b[0%s%s", p->attr & CA_REVERSE ? ";7" : "", p->attr & CA_BOLD ? ";1" : "");

	if (p->fg && G.ncolor == 256)
		n += snprintf(b + n, sizeof(b) - n, ";38;5;%d", col_256[p->fg - 1]);
	else if (p->fg && G.ncolor)
		n += snprintf(b + n, sizeof(b) - n, ";%d", 30 + col_16[p->fg - 1]);
	if (p->bg && G.ncolor == 256)
		n += snprintf(b + n, sizeof(b) - n, ";48;5;%d", col_256[p->bg - 1]);
	else if (p->bg && G.ncolor)
		n += snprintf(b + n, sizeof(b) - n, ";%d", 40 + col_16[p->bg - 1]);
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

/* Append to G.ob what turns the screen G.scr_prev into G.scr, and make
 * scr_prev the new screen.  Returns the bytes appended. */
static size_t draw_diff(void)
{
	size_t start = G.ob_len;
	struct cell last = { 0, 255, 255, 255 };
	int cr = -1, cc = -1;

	if (G.full_redraw) {
		ob_add("\x1b[0m\x1b[2J", 8);
		memset(G.scr_prev, 0xff, sizeof(struct cell) * G.rows * G.cols);
		G.full_redraw = false;
	}
	for (int r = 0; r < G.rows; r++)
		for (int c = 0; c < G.cols; c++) {
			struct cell *p = &G.scr[r * G.cols + c], *q = &G.scr_prev[r * G.cols + c];
			char b[32];

			if (!memcmp(p, q, sizeof(*p)))
				continue;
			if (r != cr || c != cc)
				ob_add(b, snprintf(b, sizeof(b), "\x1b[%d;%dH", r + 1, c + 1));
			if (p->fg != last.fg || p->bg != last.bg || p->attr != last.attr) {
				diff_sgr(p);
				last = *p;
			}
			diff_ch(p->ch);
			*q = *p;
			cr = r;
			cc = c + 1;
		}
	return G.ob_len - start;
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
	uint64_t end = G.v_now, start;

	if (G.live || G.speed > 0)
		start = end > G.window_ns ? end - G.window_ns : 0;
	else
		start = G.m_first;
	if (end <= start)
		end = start + 1;
	*a = start;
	*b = end;
}

/* A refresh: new events may have moved the newest time. */
static void view_refresh(void)
{
	if (G.v_following) {
		view_whole(&G.v_start, &G.v_end);
		G.v_cursor = G.v_end;
	}
}

/* Stop following: the user placed the view or cursor. */
static void view_place(void)
{
	G.v_following = false;
}

/* Zoom by num/den around the cursor. */
static void view_zoom(uint64_t num, uint64_t den)
{
	uint64_t span = G.v_end - G.v_start, ns = span * num / den, c = G.v_cursor;

	view_place();
	if (ns < 1000)
		ns = 1000;
	if (c < G.v_start || c > G.v_end)
		c = G.v_start + span / 2;
	G.v_start = c - (uint64_t)((double)(c - G.v_start) * ns / span);
	G.v_end = G.v_start + ns;
}

/* Pan by a signed fraction (quarters) of the view. */
static void view_pan(int quarters)
{
	uint64_t q = (G.v_end - G.v_start) / 4;

	view_place();
	if (quarters < 0 && G.v_start < q)
		q = G.v_start;
	G.v_start += quarters < 0 ? -q : q;
	G.v_end += quarters < 0 ? -q : q;
	if (G.v_cursor < G.v_start)
		G.v_cursor = G.v_start;
	if (G.v_cursor > G.v_end)
		G.v_cursor = G.v_end;
}

/* Move the cursor by cols columns, panning if it leaves the view. */
static void view_cursor(int cols)
{
	int ncol = G.cols - LABEL_W > 0 ? G.cols - LABEL_W : 1;
	uint64_t step = (G.v_end - G.v_start) / ncol;

	view_place();
	if (!step)
		step = 1;
	if (cols < 0)
		G.v_cursor = G.v_cursor > step * -cols ? G.v_cursor - step * -cols : 0;
	else
		G.v_cursor += step * cols;
	if (G.v_cursor < G.v_start)
		view_pan(-1);
	else if (G.v_cursor > G.v_end)
		view_pan(1);
}

/* Put the cursor at time t, moving the view to show it. */
static void view_goto(uint64_t t)
{
	uint64_t span = G.v_end - G.v_start;

	view_place();
	G.v_cursor = t;
	if (t < G.v_start || t > G.v_end) {
		G.v_start = t > span / 2 ? t - span / 2 : 0;
		G.v_end = G.v_start + span;
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
	struct chg c = { G.v_cursor, 0, dir };
	int row;

	if (G.v_sel < 0 || G.v_sel >= G.nrowlist || (row = G.rowlist[G.v_sel]) < 0)
		return;
	if (dir > 0 && G.task[row].since > G.v_cursor)
		c.best = G.task[row].since;
	if (dir < 0 && G.task[row].since < G.v_cursor)
		c.best = G.task[row].since;
	ival_walk(G.task[row].last_ival, row, dir > 0 ? G.v_cursor : 0, chg_fn, &c);
	if (dir < 0 && c.best == 0)
		return;
	if (c.best)
		view_goto(c.best);
}

/* w: select the task that woke the selected one (the wakeup before the
 * cursor) and put the cursor on that wakeup. */
static bool waker_fn(const struct ival *v, void *arg)
{
	const struct ival **w = arg;

	if (v->state == ST_RUNNABLE && v->start <= G.v_cursor && v->aux != -1) {
		*w = v;
		return false;
	}
	return true;
}

static void view_waker(void)
{
	const struct ival *w = NULL;
	int row, waker;
	uint64_t at;
	const struct task *t;

	if (G.v_sel < 0 || G.v_sel >= G.nrowlist || (row = G.rowlist[G.v_sel]) < 0)
		return;
	t = &G.task[row];
	if (t->state == ST_RUNNABLE && t->since <= G.v_cursor && t->waker != -1) {
		waker = t->waker;
		at = t->since;
	} else {
		ival_walk(t->last_ival, row, 0, waker_fn, &w);
		if (!w) {
			snprintf(G.v_msg, sizeof(G.v_msg), "no wakeup of %d before the cursor", t->tid);
			return;
		}
		waker = w->aux;
		at = w->start;
	}
	view_goto(at);
	if (waker == WAKER_IRQ) {
		snprintf(G.v_msg, sizeof(G.v_msg), "%d was woken by an interrupt", t->tid);
		return;
	}
	G.v_sel_key = waker;
	if (row_find(waker) < 0)
		snprintf(G.v_msg, sizeof(G.v_msg), "woken by %d, not shown", waker);
}

/* Find a task by name (substring) or tid after a '/' query. */
static void view_search(void)
{
	char *end;
	long tid = strtol(G.v_query, &end, 10);

	view_place();
	for (int i = 0; i < G.nrowlist; i++) {
		int row = G.rowlist[i];

		if (row < 0)
			continue;
		if ((*G.v_query && !*end && G.task[row].tid == tid) ||
		    (*G.v_query && strstr(G.task[row].comm, G.v_query))) {
			G.v_sel = i;
			G.v_sel_key = row_key(i);
			return;
		}
	}
	snprintf(G.v_msg, sizeof(G.v_msg), "no task matches '%s'", G.v_query);
}

/* Act on one key.  Returns false when tc should quit. */
static bool view_key(int key, int mx, int my)
{
	int body = G.rows - 3;

	G.v_msg[0] = 0;
	if (G.v_search) {
		size_t l = strlen(G.v_query);

		if (key == '\r' || key == '\n') {
			G.v_search = false;
			view_search();
		} else if (key == K_ESC || key == K_CTRL_C) {
			G.v_search = false;
		} else if ((key == 127 || key == 8) && l) {
			G.v_query[l - 1] = 0;
		} else if (key >= 0x20 && key < 0x7f && l + 1 < sizeof(G.v_query)) {
			G.v_query[l] = key;
			G.v_query[l + 1] = 0;
		}
		return true;
	}
	if (G.v_help && key != 'q' && key != K_CTRL_C) {
		G.v_help = false;
		return true;
	}
	switch (key) {
	case 'q':
	case K_CTRL_C:
		return false;
	case 'j': case K_DOWN: G.v_sel++; G.v_sel_key = INT_MIN; break;
	case 'k': case K_UP: G.v_sel = G.v_sel > 0 ? G.v_sel - 1 : 0; G.v_sel_key = INT_MIN; break;
	case K_PGDN: G.v_sel += body; G.v_sel_key = INT_MIN; break;
	case K_PGUP: G.v_sel = G.v_sel > body ? G.v_sel - body : 0; G.v_sel_key = INT_MIN; break;
	case 'h': case K_LEFT: view_cursor(-1); break;
	case 'l': case K_RIGHT: view_cursor(1); break;
	case 'H': case K_SLEFT: view_pan(-1); break;
	case 'L': case K_SRIGHT: view_pan(1); break;
	case '+': case '=': case K_WHEEL_UP: view_zoom(1, 2); break;
	case '-': case K_WHEEL_DOWN: view_zoom(2, 1); break;
	case '0': case K_ESC:
		view_whole(&G.v_start, &G.v_end);
		G.v_following = G.live || G.speed > 0;
		if (G.v_following || G.v_cursor < G.v_start || G.v_cursor > G.v_end)
			G.v_cursor = G.v_following ? G.v_end : G.v_start;
		break;
	case 'n': view_change(1); break;
	case 'p': view_change(-1); break;
	case 'w': view_waker(); break;
	case 'm': G.v_mark = G.v_cursor; G.v_has_mark = true; break;
	case 's': G.v_order = (G.v_order + 1) % ORD_N;
		snprintf(G.v_msg, sizeof(G.v_msg), "order: %s", ord_names[G.v_order]);
		break;
	case '/': G.v_search = true; G.v_query[0] = 0; break;
	case '?': G.v_help = true; break;
	case ' ': if (G.live) G.want_pause = !G.want_pause; break;
	case K_CTRL_Z: G.want_suspend = true; break;
	case K_MOUSE_CLICK:
		if (my >= 2 && my < 2 + body && G.v_top + my - 2 < G.nrowlist) {
			G.v_sel = G.v_top + my - 2;
			G.v_sel_key = INT_MIN;
		}
		if (mx >= LABEL_W && G.cols > LABEL_W) {
			view_place();
			G.v_cursor = G.v_start + (G.v_end - G.v_start) * (mx - LABEL_W) / (G.cols - LABEL_W);
		}
		break;
	}
	if (G.v_sel < 0)
		G.v_sel = 0;
	return true;
}

/* Start the view: following, whole window. */
static void view_init(void)
{
	G.v_following = true;
	G.v_sel = 0;
	G.v_sel_key = INT_MIN;
	view_whole(&G.v_start, &G.v_end);
	G.v_cursor = G.v_end;
	if (!G.live && G.speed <= 0) {
		G.v_following = false;
		G.v_cursor = G.v_start;
	}
}

/* ---------------------------------------------------------------- main loop */

/*
 * Every record released by the merge, live or from a file, comes here in
 * time order (ri: what rec_info found, or NULL to find it again): it is
 * appended to the recording (live), counted, decoded for the model and the
 * outputs when there are any.
 */
static void emit(const uint8_t *r, size_t n, uint64_t t, const struct rinfo *ri)
{
	struct rinfo tmp;
	struct ev e;
	uint32_t type = g32(r);

	if (G.rec_fd >= 0) {
		rec_append(r, n);
		if (type == PERF_RECORD_SAMPLE && t) {
			if (!G.rec_first)
				G.rec_first = t;
			G.rec_last = t;
		}
	}
	if (!G.task && !out_script && type != PERF_RECORD_LOST && type != PERF_RECORD_LOST_SAMPLES) {
		/* recording only: count by attr, no second parse (the rings'
		 * records were checked by rec_info when they were queued) */
		int a = ri ? ri->attr : rec_attr(r, n, type);
		int k = type == PERF_RECORD_SAMPLE ? (a >= 0 ? G.attr[a].kind : EV_NONE) :
			type == PERF_RECORD_COMM ? EV_COMM : type == PERF_RECORD_FORK ? EV_FORK :
			type == PERF_RECORD_EXIT ? EV_EXIT : EV_NONE;

		if (k != EV_NONE)
			G.n_kind[k]++;
		return;
	}
	if (!ri) {
		if (rec_info(r, n, &tmp) < 0)
			return;
		ri = &tmp;
	}
	if (ev_decode(r, ri, &e) <= 0)
		return;
	if (!ri->has_time)
		e.time = t;
	G.n_kind[e.kind]++;
	if (e.kind == EV_LOST)
		G.lost += e.v;
	if (G.task)
		model_event(&e);
	if (out_script)
		out_event(out_script, &e);
}

/* Signal handlers only set flags and wake the poll loop. */
static void on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGCHLD)
		G.sig_child = 1;
	else if (sig == SIGWINCH)
		G.sig_winch = 1;
	else if (sig == SIGTSTP)
		G.sig_tstp = 1;
	else if (sig == SIGCONT)
		G.sig_cont = 1;
	else
		G.sig_stop = sig;
	if (write(G.sig_pipe[1], "s", 1) < 0)
		G.sig_child |= 0;	/* the pipe is full: a wakeup is pending anyway */
	errno = saved;
}

/* Install on_signal for sig. */
static void sig_setup_one(int sig)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigaction(sig, &sa, NULL);
}

/* Install the handlers and the self-pipe. */
static void sig_setup(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGWINCH, SIGTSTP, SIGCONT };

	if (pipe2(G.sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		die("pipe: %s", strerror(errno));
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sig_setup_one(sigs[i]);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * Stop capturing: disable the events, release everything still in the
 * rings, close the recording if there is one, stop the command.  Returns
 * the command's exit status (128+signal if killed) if it ended on its own;
 * 0 if tc ended it (q, -d, SIGINT, SIGTERM) or there is none.
 */
static int capture_stop(void)
{
	int status = 0;
	bool ended_by_tc = G.cmd && !cmd_reap();

	pe_enable(false);
	while (!pe_pass(true))
		;
	pe_read_lost();
	if (G.rec_fd >= 0) {
		rec_round();
		rec_close();
	}
	if (G.cmd) {
		cmd_kill();
		if (ended_by_tc)
			status = 0;
		else if (WIFEXITED(G.child_status))
			status = WEXITSTATUS(G.child_status);
		else if (WIFSIGNALED(G.child_status))
			status = 128 + WTERMSIG(G.child_status);
	}
	return status;
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
	int nonline = 0, status = 0;

	sig_setup();
	pe_setup();
	for (int c = 0; c < G.ncpu; c++)
		nonline += G.cpu_online[c];
	rec_open(nonline);
	if (G.cmd)
		cmd_start();	/* before the COMM records, so it has a name */
	if (!G.power_only)
		rec_synth_comms();
	rec_round();
	pe_enable(true);
	t_start = now_ns();
	if (G.duration > 0)
		t_end = t_start + (uint64_t)(G.duration * 1e9);
	if (G.cmd)
		cmd_go();
	pfd = xcalloc(G.nrb + 1, sizeof(*pfd));
	for (int i = 0; i < G.nrb; i++) {
		pfd[i].fd = G.rb[i].fd;
		pfd[i].events = POLLIN;
	}
	pfd[G.nrb].fd = G.sig_pipe[0];
	pfd[G.nrb].events = POLLIN;
	for (;;) {
		int timeout = PASS_MS;
		char drain[64];
		uint64_t pos = G.rec_pos;

		if (t_end) {
			uint64_t now = now_ns();

			if (now >= t_end)
				break;
			if ((t_end - now) / 1000000 < (uint64_t)timeout)
				timeout = (t_end - now) / 1000000 + 1;
		}
		poll(pfd, G.nrb + 1, timeout);
		while (read(G.sig_pipe[0], drain, sizeof(drain)) > 0)
			;
		pe_pass(false);
		if (G.rec_pos != pos)
			rec_round();
		if (now_ns() - G.rec_ckpt_ns >= CKPT_NS)
			rec_checkpoint();
		if (G.sig_stop || (G.cmd && cmd_reap()))
			break;
	}
	free(pfd);
	status = capture_stop();
	out_stats("recorded", (now_ns() - t_start) / 1e9, G.rec_pos);
	if (G.sig_stop && !G.cmd)
		status = 0;
	return status;
}

/* A pause in the recording: a LOST_SAMPLES record of 0 samples at time t,
 * so that the model, live and on replay, closes every state at the last
 * event before it (perf reads it as an empty loss report). */
static void pause_marker(uint64_t t)
{
	const struct attr *d = &G.attr[G.nattr - 1];
	uint8_t r[48] = { 0 };
	struct perf_event_header h = { .type = PERF_RECORD_LOST_SAMPLES, .size = sizeof(r) };

	memcpy(r, &h, 8);
	memcpy(r + 24, &t, 8);			/* sample_id: TID 0, TIME, CPU 0 */
	memcpy(r + 40, &d->ids[0], 8);		/* IDENTIFIER */
	emit(r, sizeof(r), t, NULL);
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
		while (!pe_pass(true))
			;
		pause_marker(now_ns());
		if (G.rec_fd >= 0)
			rec_round();
	} else {
		pe_enable(true);
	}
	G.paused = on;
}

/* Ctrl-Z or SIGTSTP: restore the terminal, stop, and repaint after fg. */
static void view_suspend(void)
{
	term_restore();
	signal(SIGTSTP, SIG_DFL);
	raise(SIGTSTP);
	sig_setup_one(SIGTSTP);
	term_raw();
	G.want_suspend = false;
	G.sig_tstp = 0;
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
	struct pollfd *pfd;
	uint8_t kb[64];
	size_t kn = 0;
	uint64_t next_frame = 0, esc_t = 0, rate_t, rate_n = 0, wall0 = 0, data0 = 0;
	int status = 0, np;
	bool ended = false, quit_by_user = false;

	if (!isatty(1))
		die("stdout is not a terminal: use --record FILE to record, or --replay FILE --summary");
	sig_setup();
	G.window_ns = G.window_ns ? G.window_ns : 10 * NS_PER_SEC;
	if (G.live) {
		int nonline = 0;

		pe_setup();
		model_init(G.ncpu, TC_MAX_TASKS, TC_MAX_IVALS);
		for (int c = 0; c < G.ncpu; c++)
			nonline += G.cpu_online[c];
		if (G.rec_path)
			rec_open(nonline);
		if (G.cmd)
			cmd_start();	/* before the COMM records, so it has a name */
		if (!G.power_only)
			rec_synth_comms();
		if (G.rec_path)
			rec_round();
	} else {
		rd_open(G.replay_path);
		if (G.speed > 0) {
			rd_run(0);	/* up to the first timed record */
			data0 = G.rd_next_t;
		} else if (rd_run(UINT64_MAX) == 0 || G.rd_cut) {
			ended = true;
		}
		if (!G.task)
			die("%s holds no events", G.replay_path);
	}
	G.rowlist_cap = 2 * G.ncpu + TC_MAX_TASKS;
	G.rowlist = xcalloc(G.rowlist_cap, sizeof(int));
	pfd = xcalloc(G.nrb + 3, sizeof(*pfd));
	term_init();
	if (G.live)
		pe_enable(true);
	if (G.live && G.cmd) {
		term_restore();		/* an exec failure is reported on a sane terminal */
		cmd_go();
		term_raw();
	}
	wall0 = rate_t = now_ns();
	G.v_now = G.live ? wall0 : G.speed > 0 ? data0 : G.m_last;
	if (!G.live && !G.m_first)
		G.m_first = G.v_now;
	view_init();
	for (;;) {
		uint64_t now = now_ns();
		int timeout = next_frame > now ? (int)((next_frame - now) / 1000000) + 1 : 0;
		char drain[64];

		if (timeout > PASS_MS)
			timeout = PASS_MS;
		if (kn && timeout > 30)
			timeout = 30;
		np = 0;
		pfd[np++] = (struct pollfd){ .fd = G.sig_pipe[0], .events = POLLIN };
		pfd[np++] = (struct pollfd){ .fd = G.tty_in, .events = POLLIN };
		pfd[np++] = (struct pollfd){ .fd = 1, .events = G.ob_len ? POLLOUT : 0 };
		for (int i = 0; G.live && !G.paused && i < G.nrb; i++)
			pfd[np++] = (struct pollfd){ .fd = G.rb[i].fd, .events = POLLIN };
		poll(pfd, np, timeout);
		while (read(G.sig_pipe[0], drain, sizeof(drain)) > 0)
			;
		now = now_ns();
		if (G.sig_stop || (G.live && G.duration > 0 && now - wall0 >= G.duration * 1e9))
			break;
		if (G.sig_winch) {
			G.sig_winch = 0;
			term_size();
			next_frame = 0;
		}
		if (G.sig_tstp || G.want_suspend)
			view_suspend();
		if (G.sig_cont) {	/* after a stop from outside: raw mode again, redraw */
			G.sig_cont = 0;
			term_raw();
			next_frame = 0;
		}

		/* keys */
		if (pfd[1].revents & (POLLIN | POLLHUP)) {
			ssize_t n = read(G.tty_in, kb + kn, sizeof(kb) - kn);

			if (n > 0)
				kn += n;
		}
		while (kn) {
			int key = K_NONE, mx = 0, my = 0;
			size_t used = key_decode(kb, kn, &key, &mx, &my);

			if (!used) {	/* the start of a sequence: wait a little */
				if (!esc_t)
					esc_t = now;
				if (now - esc_t < 30 * 1000000ull && kn < sizeof(kb))
					break;
				key = K_ESC;
				used = 1;
			}
			esc_t = 0;
			memmove(kb, kb + used, kn - used);
			kn -= used;
			if (key != K_NONE && !view_key(key, mx, my)) {
				quit_by_user = !G.child_done;
				goto quit;
			}
			next_frame = 0;
		}
		if (G.want_pause != G.paused)
			view_pause(G.want_pause);

		/* events */
		if (G.live && !G.paused) {
			uint64_t pos = G.rec_pos;

			pe_pass(false);
			G.v_now = G.pass_bound;
			if (G.rec_fd >= 0 && G.rec_pos != pos)
				rec_round();
			if (G.rec_fd >= 0 && now - G.rec_ckpt_ns >= CKPT_NS)
				rec_checkpoint();
		} else if (G.live) {
			G.v_now = now;
		}
		if (G.speed > 0 && !ended) {
			uint64_t limit = data0 + (uint64_t)((now - wall0) * G.speed);

			ended = rd_run(limit) != 1;
			G.v_now = limit;
		}
		if (G.live && G.cmd && (G.sig_child || G.child_done)) {
			G.sig_child = 0;
			if (cmd_reap() && !G.v_msg[0])
				snprintf(G.v_msg, sizeof(G.v_msg), "%s exited (status %d): q quits", G.cmd[0],
					 WIFEXITED(G.child_status) ? WEXITSTATUS(G.child_status) :
					 128 + WTERMSIG(G.child_status));
		}
		if (now - rate_t >= NS_PER_SEC) {
			uint64_t n = 0;

			for (int k = 0; k < EV_NKIND; k++)
				n += G.n_kind[k];
			G.ev_rate = (n - rate_n) * NS_PER_SEC / (now - rate_t);
			rate_n = n;
			rate_t = now;
		}

		/* the frame, when the previous one is out and it is time */
		if (G.ob_len && !ob_flush())
			continue;
		if (now >= next_frame) {
			uint64_t t0 = now_ns(), cost, wire;
			size_t bytes;

			view_refresh();
			draw_frame();
			bytes = draw_diff();
			cost = now_ns() - t0;
			ob_flush();
			G.frames++;
			/* adapt: at most ~5% of a CPU drawing, and no faster than
			 * the terminal takes the bytes */
			wire = bytes * NS_PER_SEC / (G.term_bps ? G.term_bps : 1);
			G.refresh_ns = 33 * 1000000ull;
			if (cost * 20 > G.refresh_ns)
				G.refresh_ns = cost * 20;
			if (wire * 3 / 2 > G.refresh_ns)
				G.refresh_ns = wire * 3 / 2;
			if (G.refresh_ns > 2 * NS_PER_SEC)
				G.refresh_ns = 2 * NS_PER_SEC;
			next_frame = now_ns() + G.refresh_ns;
		}
	}
quit:
	free(pfd);
	term_restore();
	if (G.live) {
		status = capture_stop();
		out_stats(G.rec_path ? "recorded" : "watched", (now_ns() - wall0) / 1e9,
			  G.rec_path ? G.rec_pos : 0);
	}
	note("%" PRIu64 " frames, %" PRIu64 " bytes to the terminal", G.frames, G.bytes_out);
	/* quitting the view stops the command: that is not its failure */
	return quit_by_user || (G.sig_stop && !G.cmd) ? 0 : status;
}

/* tc --replay: read the recording to the outputs. */
static int run_replay(void)
{
	uint64_t t0 = now_ns();
	int ret;

	rd_open(G.replay_path);
	if (G.rd_cut)
		note("%s was cut off: reading up to its last complete record", G.replay_path);
	ret = rd_run(UINT64_MAX);
	if (out_script)
		fflush(out_script);
	if (G.summary && G.task) {
		model_end();
		out_summary(stdout);
		fflush(stdout);
	}
	if (G.lost || G.out_of_order || G.corrupt || G.unknown_id || G.bad_cpu || G.bad_pid ||
	    G.evicted_tasks || G.inferred)
		out_stats("replayed", (now_ns() - t0) / 1e9, 0);
	return ret < 0 && !G.rd_cut ? 1 : 0;
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
	rd_open(G.replay_path);
	rd_run(UINT64_MAX);
	if (!G.task)
		die("%s holds no events", G.replay_path);
	G.rows = rows;
	G.cols = cols;
	G.scr = xcalloc((size_t)rows * cols, sizeof(struct cell));
	G.scr_prev = xcalloc((size_t)rows * cols, sizeof(struct cell));
	G.acc = xcalloc((size_t)cols * ACC_N, sizeof(uint64_t));
	G.ob_cap = (size_t)rows * cols * 48 + 4096;
	G.ob = xcalloc(1, G.ob_cap);
	G.full_redraw = true;
	G.rowlist_cap = 2 * G.ncpu + TC_MAX_TASKS;
	G.rowlist = xcalloc(G.rowlist_cap, sizeof(int));
	G.v_now = G.m_last;
	if (!G.m_first)
		G.m_first = G.v_now;
	view_init();
	kb = (const uint8_t *)spec + off;
	kn = strlen(spec + off);
	for (bool more = true; more;) {
		int key = K_NONE, mx = 0, my = 0;
		size_t used = kn ? key_decode(kb, kn, &key, &mx, &my) : 0;

		view_refresh();
		draw_frame();
		draw_diff();
		G.ob_len = G.ob_off = 0;
		G.frames++;
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
	printf("%" PRIu64 " frames\n", G.frames);
	return 0;
}
#endif

/* ---------------------------------------------------------------- options and main */

static void usage(FILE *f)
{
	fputs("usage: tc --live [options] [-- command [args...]]    watch live\n"
	      "       tc --record FILE [options] [-- command ...]    record (perf.data) without a UI\n"
	      "       tc --live --record FILE [options] [-- ...]     watch and record\n"
	      "       tc --replay FILE [--speed N]                   browse a recording (tc's or perf's)\n"
	      "       tc --replay FILE --summary | --script          per-task totals | every event\n"
	      "       tc --repair FILE                               make a cut-off recording whole\n"
	      "       tc --help | --version\n"
	      "options:\n"
	      "  -P, --power-only         CPU rows only: idle states and frequency\n"
	      "  -T, --tasks-only         scheduler events only, no power events\n"
	      "  -I, --io                 also trace I/O system calls\n"
	      "  -p, --pid PID|NAME       show only these tasks (repeatable)\n"
	      "  -C, --cpu LIST           only these CPUs (0-3,6)\n"
	      "  -w, --window SECONDS     width of the rolling live window (default 10)\n"
	      "  -d, --duration SECONDS   stop recording after this long\n"
	      "  -m, --mmap-pages N       ring buffer pages per CPU (a power of two, default 128)\n"
	      "  --speed N                replay at N times the recorded pace\n"
	      "  --ascii                  no UTF-8 block characters\n"
	      "  --no-color               monochrome (also NO_COLOR set, or TERM=dumb)\n"
	      "keys in the view: ? shows them\n", f);
}

/* Parse argv into G; exits on --help, --version and errors. */
static void parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

#define NEEDV() do { if (!v) die("%s needs a value (see tc --help)", a); i++; } while (0)
		if (!strcmp(a, "--")) {
			if (i + 1 < argc)
				G.cmd = argv + i + 1;
			break;
		} else if (!strcmp(a, "--record")) {
			NEEDV();
			G.rec_path = v;
		} else if (!strcmp(a, "--replay")) {
			NEEDV();
			G.replay_path = v;
		} else if (!strcmp(a, "--repair")) {
			NEEDV();
			G.repair_path = v;
		} else if (!strcmp(a, "--script")) {
			G.script = true;
		} else if (!strcmp(a, "--summary")) {
			G.summary = true;
		} else if (!strcmp(a, "--live")) {
			G.live = true;
		} else if (!strcmp(a, "-P") || !strcmp(a, "--power-only")) {
			G.power_only = true;
		} else if (!strcmp(a, "-T") || !strcmp(a, "--tasks-only")) {
			G.tasks_only = true;
		} else if (!strcmp(a, "-I") || !strcmp(a, "--io")) {
			G.io = true;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--pid")) {
			NEEDV();
			if (G.nfilt == (int)(sizeof(G.filt) / sizeof(G.filt[0])))
				die("too many -p filters");
			G.filt[G.nfilt++] = v;
		} else if (!strcmp(a, "-C") || !strcmp(a, "--cpu")) {
			NEEDV();
			G.cpu_filt = xcalloc(MAX_CPUS, sizeof(bool));
			if (!parse_cpulist(v, G.cpu_filt, MAX_CPUS) || !cpulist_count(v))
				die("-C %s: a CPU list like 0-3,6 is needed", v);
		} else if (!strcmp(a, "--ascii")) {
			G.ascii = true;
		} else if (!strcmp(a, "--no-color")) {
			G.no_color = true;
		} else if (!strcmp(a, "--speed") || !strcmp(a, "-w") || !strcmp(a, "--window")) {
			char *end;
			double d;

			NEEDV();
			d = strtod(v, &end);
			if (*end || !(d > 0) || d > 1e6)
				die("%s %s: a positive number is needed", a, v);
			if (!strcmp(a, "--speed"))
				G.speed = d;
			else
				G.window_ns = d * 1e9;
		} else if (!strcmp(a, "-d") || !strcmp(a, "--duration")) {
			char *end;

			NEEDV();
			G.duration = strtod(v, &end);
			if (*end || !(G.duration > 0) || G.duration > 1e9)
				die("-d %s: not a number of seconds", v);
		} else if (!strcmp(a, "-m") || !strcmp(a, "--mmap-pages")) {
			char *end;
			unsigned long p;

			NEEDV();
			p = strtoul(v, &end, 10);
			if (*end || !p || p > (1u << 20) || (p & (p - 1)))
				die("-m %s: a power of two number of pages is needed", v);
			G.mmap_pages = p;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		} else if (!strcmp(a, "--version")) {
			printf("tc %s\n", TC_VERSION);
			exit(0);
		} else {
			usage(stderr);
			die("unknown option %s", a);
		}
#undef NEEDV
	}
	if (!!(G.rec_path || G.live) + !!G.replay_path + !!G.repair_path != 1) {
		usage(stderr);
		die("give one of --live, --record, --replay or --repair");
	}
	if (G.cmd && !G.rec_path && !G.live)
		die("a command to trace goes with --live or --record");
	if (G.live && G.rec_path && !strcmp(G.rec_path, "-"))
		die("--live --record -: the view needs standard output; record to a file or a FIFO, or drop --live");
	if ((G.script || G.summary) && !G.replay_path)
		die("--script and --summary go with --replay");
	if (G.speed > 0 && (!G.replay_path || G.script || G.summary))
		die("--speed goes with --replay (in the view)");
	G.view = G.live || (G.replay_path && !G.script && !G.summary);
	if (G.power_only && (G.tasks_only || G.io))
		die("-P shows CPUs only: it does not go with -T or -I");
}

#ifndef TC_TEST
int main(int argc, char **argv)
{
	G.rec_fd = -1;
	parse_args(argc, argv);
	if (G.script) {
		out_script = stdout;
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	}
	if (G.repair_path) {
		rp_repair(G.repair_path);
		return 0;
	}
#ifdef TC_FUZZ
	if (G.view && G.replay_path && getenv("TC_FUZZ_VIEW"))
		return fuzz_view(getenv("TC_FUZZ_VIEW"));
#endif
	if (G.view)
		return run_view();
	if (G.replay_path)
		return run_replay();
	return run_record();
}
#endif
