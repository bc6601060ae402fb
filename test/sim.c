// SPDX-License-Identifier: GPL-2.0-only
/*
 * sim: a scheduler simulator with ground truth, for tc's model (issue 21).
 *
 *   sim gen --seed N [--cpus C] [--tasks M] [--steps S] [--damage KIND]
 *           [--be] [--long4] [--tcfile] [--pass NS] [--maxtask T] OUT
 *                                               OUT (perf.data) and OUT.truth
 *   sim check OUT.truth STATES                  tc's --states against the truth
 *   sim invariants STATES                       the invariants of any --states dump
 *   sim run --tc PATH [--seeds N] [--from S] [--damage all|KIND[,KIND]]
 *           [--show N] [--quiet]                the truth check over many seeds
 *
 * gen runs a random but valid schedule of C CPUs (1 to 256) and M tasks and
 * keeps the true state of every task and CPU at every instant: running (on
 * which CPU), runnable (from sched_waking, or preemption), sleeping (S, I),
 * blocked (D), new (forked, before sched_wakeup_new), dead (after the final
 * switch-out); per CPU the task it runs (0: idle) and its idle state.  It
 * writes the perf.data file `perf record -e sched:... -e power:cpu_idle -a`
 * would have written: one attr per tracepoint and a dummy event for the
 * COMM/FORK/EXIT side-band records (sample_id_all), FORK and COMM records
 * synthesized at time 0 for the tasks alive at the start, then per pass of
 * perf over the rings one group of records per CPU and a FINISHED_ROUND.
 * Every record is stamped on the CPU where the kernel emits it and names
 * the task current there (0: the idle task):
 *
 *   switch     sched_switch on c at t: prev leaves (prev_state 0 or R+
 *              0x100: runnable; S 1, I 0x80: sleeping; D 2: blocked;
 *              X 0x10 or Z 0x20 after sched_process_exit: dead), next runs
 *              from t.  To idle: cpu_idle k follows; from idle: cpu_idle
 *              4294967295 comes first.
 *   wakeup     sched_waking on the waker's CPU (a task, or an interrupt:
 *              common_flags 0x08/0x10 and common_pid the interrupted task)
 *              at t: runnable from t; maybe sched_migrate_task; then
 *              sched_wakeup on the waker's CPU or, from its wake list, on
 *              the target CPU.  Two races with a task on its way to sleep:
 *              woken before it is dequeued (waking and wakeup while it
 *              runs; it goes on running), and woken after (sched_waking at
 *              t1, its switch-out S or D at t2: running until t2, runnable
 *              from t2, then sched_wakeup).
 *   fork       FORK side-band record, sched_process_fork, then
 *              sched_wakeup_new of the child: new until then, runnable.
 *   exec       COMM (exec) and sched_process_exec.  exit:
 *              sched_process_exit, EXIT, later the final switch-out X/Z.
 *   migration  sched_migrate_task of a runnable task, by the CPU that
 *              balances (newidle pulls before the switch, idle pulls).
 *
 * Then it damages the trace (--damage): none; idle_out (one CPU's switches
 * out of idle left out); switch_out (a few % of the switches left out);
 * lost (one CPU's records in a stretch deleted, a LOST record after the
 * hole); gap (the same hole without the LOST record); late (one CPU's
 * records of some rounds written 1 to 3 rounds late); window (the
 * recording starts and stops mid-run); sideband_early (some CPUs'
 * tracepoints start 1 to 40 ms after the side-band records: one CPU, at
 * times two); all (a mix); sampled (the tracepoints sampled, as perf
 * record -F makes them: of each tracepoint's events on a CPU one in a
 * period of 1 to 8 is recorded, with the period in its PERIOD field);
 * perf_end (the run ends as perf record ends one: a recorder task moves
 * to each CPU in turn and turns its events off there, and the CPUs
 * already off go on unrecorded: sim_perf_end).
 *
 * check: every interval tc claims (task, cpu and cstate lines) is compared
 * with the truth: wrong ns are claimed ns where the truth differs (the
 * task's state, for running also the CPU; the CPU's task; the idle state).
 * Time tc claims nothing for is unknown: its share is the unknown task
 * time over the task time (alive: running, runnable, sleeping, blocked) in
 * the trace's span, and within the damaged stretch (the time between the
 * kept records around what the damage removed or moved, the start of a
 * window, a CPU's time before its first tracepoint).
 *
 * invariants: a task runs on at most one CPU and a CPU runs at most one
 * task at any instant, intervals end after they start and do not overlap
 * per row, a running interval lies within its CPU's interval of that task,
 * a CPU's interval of a task is not contradicted by the task's row, the
 * intervals add up to task_total and cpu_total, and those add up to the span.
 *
 * run: for each seed (CPUs, tasks, byte order, word size, tc's own file
 * layout, and a third of perf's files recorded without sched_wakeup, as
 * perf sched record records: --waking-only, varied by seed) and damage
 * kind (--rotate: one kind per seed, in turn), gen, tc --replay --states,
 * check and invariants; one line per damage kind: seeds, failed (wrong
 * time or a broken invariant), claimed_ns, wrong_ns, wrong_iv
 * (contradicting pieces of claims),
 * unknown% (of the alive task time in the trace's span), unknown%W (in
 * the damaged stretch), none%W (the same stretch of the seed's undamaged
 * trace: what the damage added), inv (invariant violations).  Exit 1 on
 * any wrong time or violated invariant, with the first failures' commands
 * to reproduce; sim events shows the records and the truth around one.
 */
#define _GNU_SOURCE
#include "perfdata.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <inttypes.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXCPU 256
#define MAXTASK 65536		/* tasks a run may make, at most (--maxtask; 4096 unless given) */
#define TID0 100		/* the first task's tid */

/* ---------------------------------------------------------------- utilities */

static void *xrealloc(void *p, size_t n)
{
	if (!(p = realloc(p, n ? n : 1))) {
		perror("sim");
		exit(2);
	}
	return p;
}

/* splitmix64: the schedule and the damage each have a stream */
static uint64_t rnd64(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rnd(uint64_t *s, uint64_t n)
{
	return n ? rnd64(s) % n : 0;
}

static int chance(uint64_t *s, int pct)
{
	return (int)rnd(s, 100) < pct;
}

/* A list of intervals [s, e) with a value (a state, a tid, an idle state)
 * and a CPU. */
struct iv {
	uint64_t s, e;
	int v, cpu;
};

struct ivs {
	struct iv *p;
	int n, cap;
};

static void ivs_add(struct ivs *l, uint64_t s, uint64_t e, int v, int cpu)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->p = xrealloc(l->p, l->cap * sizeof(*l->p));
	}
	l->p[l->n++] = (struct iv){ s, e, v, cpu };
}

static int iv_cmp(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;

	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return x->e < y->e ? -1 : x->e > y->e;
}

static void ivs_sort(struct ivs *l)
{
	qsort(l->p, l->n, sizeof(*l->p), iv_cmp);
}

/* Merge l (sorted) into disjoint intervals, values dropped. */
static void ivs_merge(struct ivs *l)
{
	int k = 0;

	for (int i = 0; i < l->n; i++) {
		if (k && l->p[i].s <= l->p[k - 1].e) {
			if (l->p[i].e > l->p[k - 1].e)
				l->p[k - 1].e = l->p[i].e;
			continue;
		}
		l->p[k++] = l->p[i];
	}
	l->n = k;
}

/* The first interval of sorted l that may overlap time s (its end > s),
 * for lists whose intervals do not overlap. */
static int ivs_find(const struct ivs *l, uint64_t s)
{
	int lo = 0, hi = l->n;

	while (lo < hi) {
		int m = (lo + hi) / 2;

		if (l->p[m].e <= s)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* ns of [s, e) covered by disjoint sorted l. */
static uint64_t ivs_cover(const struct ivs *l, uint64_t s, uint64_t e)
{
	uint64_t n = 0;

	for (int i = ivs_find(l, s); i < l->n && l->p[i].s < e; i++) {
		uint64_t a = l->p[i].s > s ? l->p[i].s : s, b = l->p[i].e < e ? l->p[i].e : e;

		if (b > a)
			n += b - a;
	}
	return n;
}

/* ---------------------------------------------------------------- the schedule */

enum { T_NONE, T_NEW, T_RUN, T_RUNNABLE, T_SLEEP, T_BLOCKED, T_DEAD, T_N };
static const char *const tnames[T_N] = { "none", "new", "running", "runnable", "sleeping", "blocked", "dead" };

/* Attrs of the file: the tracepoints (record kinds K_SWITCH .. K_IDLE),
 * then the dummy event of the side-band records. */
enum { K_SWITCH, K_WAKEUP, K_WAKEUP_NEW, K_WAKING, K_PFORK, K_PEXEC, K_PEXIT, K_MIGRATE, K_IDLE,
       A_DUMMY, NATTR };
enum { K_COMM = 16, K_FORK, K_EXIT, K_LOST };
static const struct pw_tp tps[A_DUMMY] = {
	PW_TP_SWITCH, PW_TP_WAKEUP, PW_TP_WAKEUP_NEW, PW_TP_WAKING, PW_TP_FORK,
	PW_TP_EXEC, PW_TP_EXIT, PW_TP_MIGRATE, PW_TP_IDLE,
};
#define TP_ST (PW_S_IP | PW_S_TID | PW_S_TIME | PW_S_CPU | PW_S_PERIOD | PW_S_RAW | PW_S_IDENTIFIER)
#define SB_ST (PW_S_IP | PW_S_TID | PW_S_TIME | PW_S_CPU | PW_S_IDENTIFIER)
#define IDLE_EXIT 4294967295u
#define IRQS_OFF 0x01
#define HARDIRQ 0x08
#define SOFTIRQ 0x10

/* A record as the kernel emits it: time, CPU, kind, the sample's task
 * (current on cpu: pid is its thread group), common_flags, fields:
 *   switch a prev, b next, v prev_state, s1 s2 their names
 *   wakeups a pid, b target_cpu, s1 name;  migrate a pid, b orig, c dest
 *   process_fork a parent, b child;  process_exec a pid, s1 file
 *   process_exit a pid, b group_dead;  cpu_idle v state, b cpu_id
 *   COMM a pid, b tid, v exec;  FORK/EXIT a pid, b ppid, c tid, d ptid
 *   LOST v records lost, a the attr of the id */
struct rec {
	uint64_t t;
	int cpu, kind, pid, tid, flags;
	int a, b, c, d;
	int64_t v;
	char s1[24], s2[16];
};

struct task {
	int tid, pid, ppid, kthread;
	char comm[16], comm0[16];
	int st, cpu, exiting, w2;
	uint64_t since;
	struct ivs tr;			/* the truth: v state, cpu when running */
};

struct cpu {
	int cur, cstate, resched;
	uint64_t since, cs_since;
	int *rq, nrq;
	struct ivs tr, cs;		/* the truth: v tid (0 idle); v idle state (-1 none) */
};

static struct sim {
	uint64_t rs;			/* the schedule's random stream */
	int seed, ncpu, ntask, maxtask, steps;
	uint64_t start, now, end;
	struct cpu cpu[MAXCPU];
	struct task *task;		/* maxtask of them */
	struct rec *rec;
	size_t nrec, caprec;
	uint64_t off[MAXCPU];		/* perf_end: when each CPU's events went off */
} S;

/* The CPUs that the random draws and the passes' ends walk: 64 (MAXCPU
 * before it was 256: a seed's schedule and damage stay what they were)
 * or more. */
static int cpu_slots(void)
{
	return S.ncpu > 64 ? S.ncpu : 64;
}
static int perf_end;			/* sim_run ends as perf record does (sim_perf_end) */
static int max_tasks = 4096;		/* --maxtask: the forks stop there (4096: a seed's schedule as before) */
static int waking_only;			/* no sched_wakeup recorded, as perf sched record's events */

static struct task *tk(int tid)
{
	return tid >= TID0 && tid < TID0 + S.ntask ? &S.task[tid - TID0] : NULL;
}

static const char *name_of(int tid, int cpu)
{
	static char idle[MAXCPU][16];

	if (!tid) {
		snprintf(idle[cpu], sizeof(idle[cpu]), "swapper/%d", cpu % 1000);
		return idle[cpu];
	}
	return tk(tid)->comm;
}

/* Task p is in state st (on cpu, when running) from t. */
static void t_set(struct task *p, int st, int cpu, uint64_t t)
{
	if (p->st != T_NONE && t > p->since)
		ivs_add(&p->tr, p->since, t, p->st, p->st == T_RUN ? p->cpu : -1);
	p->st = st;
	p->since = t;
	if (cpu >= 0)
		p->cpu = cpu;
}

/* CPU c runs tid from t. */
static void c_set(int c, int tid, uint64_t t)
{
	struct cpu *cp = &S.cpu[c];

	if (t > cp->since)
		ivs_add(&cp->tr, cp->since, t, cp->cur, -1);
	cp->cur = tid;
	cp->since = t;
}

/* CPU c is in idle state k (-1: none) from t. */
static void cs_set(int c, int k, uint64_t t)
{
	struct cpu *cp = &S.cpu[c];

	if (t > cp->cs_since)
		ivs_add(&cp->cs, cp->cs_since, t, cp->cstate, -1);
	cp->cstate = k;
	cp->cs_since = t;
}

/* A new record on CPU c, stamped a little after the previous one, naming
 * c's current task. */
static struct rec *emit(int c, int kind, int flags)
{
	struct rec *r;
	int cur = S.cpu[c].cur;

	if (S.nrec == S.caprec) {
		S.caprec = S.caprec ? 2 * S.caprec : 4096;
		S.rec = xrealloc(S.rec, S.caprec * sizeof(*S.rec));
	}
	r = &S.rec[S.nrec++];
	memset(r, 0, sizeof(*r));
	S.now += 60 + rnd(&S.rs, 900);
	r->t = S.now;
	r->cpu = c;
	r->kind = kind;
	r->flags = flags;
	r->tid = cur;
	r->pid = cur ? tk(cur)->pid : 0;
	return r;
}

static void rq_add(int c, int tid)
{
	S.cpu[c].rq[S.cpu[c].nrq++] = tid;
}

static void rq_del(int c, int tid)
{
	struct cpu *cp = &S.cpu[c];

	for (int i = 0; i < cp->nrq; i++)
		if (cp->rq[i] == tid) {
			cp->rq[i] = cp->rq[--cp->nrq];
			return;
		}
	fprintf(stderr, "sim: internal: task %d not queued on cpu %d\n", tid, c);
	exit(2);
}

static void idle_enter(int c)
{
	static const int w[] = { 10, 40, 30, 20 };	/* idle states 0..3 */
	int k = 0, x = rnd(&S.rs, 100);
	struct rec *r;

	while (x >= w[k]) {
		x -= w[k];
		k++;
	}
	r = emit(c, K_IDLE, IRQS_OFF);
	r->v = k;
	r->b = c;
	cs_set(c, k, r->t);
}

static void idle_exit(int c)
{
	struct rec *r;

	if (S.cpu[c].cstate < 0)
		return;
	r = emit(c, K_IDLE, IRQS_OFF);
	r->v = IDLE_EXIT;
	r->b = c;
	cs_set(c, -1, r->t);
}

/*
 * sched_switch on c from its current task to next (0: idle), prev_state
 * ps; truth: prev becomes prev_st (runnable ones are queued on c unless
 * their wakeup is still under way), next runs.  Leaving idle exits the idle
 * state first; going idle enters one after.
 */
static void sw(int c, int64_t ps, int next, int prev_st)
{
	struct cpu *cp;
	int prev;
	struct rec *r;

	if (c < 0 || c >= S.ncpu)
		abort();
	cp = &S.cpu[c];
	prev = cp->cur;

	if (!prev)
		idle_exit(c);
	r = emit(c, K_SWITCH, IRQS_OFF);
	r->a = prev;
	r->b = next;
	r->v = ps;
	snprintf(r->s1, sizeof(r->s1), "%s", name_of(prev, c));
	snprintf(r->s2, sizeof(r->s2), "%s", name_of(next, c));
	if (prev) {
		struct task *p = tk(prev);

		t_set(p, prev_st, -1, r->t);
		if (prev_st == T_RUNNABLE && !p->w2)
			rq_add(c, prev);
	}
	if (next) {
		rq_del(c, next);
		t_set(tk(next), T_RUN, c, r->t);
	}
	c_set(c, next, r->t);
	cp->resched = 0;
	if (!next)
		idle_enter(c);
}

/* Task tid, runnable, is enqueued on c (its wakeup done): an idle c
 * switches to it, a busy one may want to preempt. */
static void make_run(int c, int tid)
{
	tk(tid)->cpu = c;
	rq_add(c, tid);
	if (!S.cpu[c].cur)
		sw(c, 0, tid, T_NONE);
	else if (chance(&S.rs, 50))
		S.cpu[c].resched = 1;
}

/* A random CPU: idle if want_idle and there is one, else any. */
static int pick_cpu(int want_idle)
{
	int n = 0, c;

	if (want_idle)
		for (c = 0; c < S.ncpu; c++)
			n += !S.cpu[c].cur;
	if (!n)
		return rnd(&S.rs, S.ncpu);
	n = rnd(&S.rs, n);
	for (c = 0; c < S.ncpu; c++)
		if (!S.cpu[c].cur && !n--)
			break;
	return c;
}

/* A random busy CPU other than not (-1 if none). */
static int pick_busy(int not)
{
	int n = 0, c;

	for (c = 0; c < S.ncpu; c++)
		n += S.cpu[c].cur && c != not;
	if (!n)
		return -1;
	n = rnd(&S.rs, n);
	for (c = 0; c < S.ncpu; c++)
		if (S.cpu[c].cur && c != not && !n--)
			break;
	return c;
}

/* A random sleeping or blocked task, or NULL. */
static struct task *pick_sleeper(void)
{
	int n = 0, k;

	for (int i = 0; i < S.ntask; i++)
		n += (S.task[i].st == T_SLEEP || S.task[i].st == T_BLOCKED);
	if (!n)
		return NULL;
	k = rnd(&S.rs, n);
	for (int i = 0; i < S.ntask; i++)
		if ((S.task[i].st == T_SLEEP || S.task[i].st == T_BLOCKED) && !k--)
			return &S.task[i];
	return NULL;
}

/* Where a woken task goes: its last CPU, the waker's, or an idle one. */
static int wake_target(const struct task *w, int c)
{
	int x = rnd(&S.rs, 100);

	return x < 45 ? w->cpu : x < 70 ? c : pick_cpu(1);
}

/* The rest of a wakeup of w (sched_waking done on c with flags) to target
 * tc: sched_migrate_task if it moves, sched_wakeup on c or, from the wake
 * list, on tc; then enqueued there. */
static void wake_finish(int c, struct task *w, int tcpu, int flags)
{
	struct rec *r;

	if (tcpu != w->cpu) {
		r = emit(c, K_MIGRATE, flags);
		r->a = w->tid;
		r->b = w->cpu;
		r->c = tcpu;
		snprintf(r->s1, sizeof(r->s1), "%s", w->comm);
		w->cpu = tcpu;
	}
	if (tcpu == c || chance(&S.rs, 50)) {
		r = emit(c, K_WAKEUP, flags);
	} else {		/* the wake list: an IPI, or the idle loop polls */
		int idle = !S.cpu[tcpu].cur;

		idle_exit(tcpu);
		r = emit(tcpu, K_WAKEUP, IRQS_OFF | (!idle || chance(&S.rs, 50) ? HARDIRQ : 0));
	}
	r->a = w->tid;
	r->b = tcpu;
	snprintf(r->s1, sizeof(r->s1), "%s", w->comm);
	make_run(tcpu, w->tid);
}

/* CPU c's current task (or an interrupt on it, irq) wakes sleeping w:
 * runnable from sched_waking. */
static void wake(int c, struct task *w, int irq)
{
	int flags = IRQS_OFF | (irq ? (chance(&S.rs, 50) ? HARDIRQ : SOFTIRQ) : 0);
	struct rec *r = emit(c, K_WAKING, flags);

	r->a = w->tid;
	r->b = w->cpu;
	snprintf(r->s1, sizeof(r->s1), "%s", w->comm);
	t_set(w, T_RUNNABLE, -1, r->t);
	wake_finish(c, w, wake_target(w, c), flags);
}

/* The next task for c in __schedule: one queued on c; if none, maybe one
 * pulled from a busy CPU's queue (newidle balance: sched_migrate_task on c
 * by the task switching out); else idle (0). */
static int pick_next(int c)
{
	struct cpu *cp = &S.cpu[c];

	if (!cp->nrq && chance(&S.rs, 40)) {
		int s = rnd(&S.rs, S.ncpu);

		if (s != c && S.cpu[s].nrq) {
			int tid = S.cpu[s].rq[rnd(&S.rs, S.cpu[s].nrq)];
			struct rec *r = emit(c, K_MIGRATE, IRQS_OFF);

			r->a = tid;
			r->b = s;
			r->c = c;
			snprintf(r->s1, sizeof(r->s1), "%s", tk(tid)->comm);
			rq_del(s, tid);
			rq_add(c, tid);
			tk(tid)->cpu = c;
		}
	}
	return cp->nrq ? cp->rq[rnd(&S.rs, cp->nrq)] : 0;
}

/* The current task of c goes to sleep (S, I) or blocks (D), with the two
 * races of a wakeup against it; or is preempted (R+, or R when it yields). */
static void do_sleep(int c)
{
	struct task *p = tk(S.cpu[c].cur);
	int blocked = chance(&S.rs, 25), c2 = pick_busy(c), x = rnd(&S.rs, 100);
	int64_t ps = blocked ? 2 : p->kthread && chance(&S.rs, 60) ? 0x80 : 1;
	struct rec *r;

	if (x < 6 && c2 >= 0) {
		/* woken before it is dequeued: waking and wakeup while it
		 * runs (ttwu_runnable); it goes on running */
		int fl = IRQS_OFF | (chance(&S.rs, 30) ? HARDIRQ : 0);

		r = emit(c2, K_WAKING, fl);
		r->a = p->tid;
		r->b = c;
		snprintf(r->s1, sizeof(r->s1), "%s", p->comm);
		r = emit(c2, K_WAKEUP, fl);
		r->a = p->tid;
		r->b = c;
		snprintf(r->s1, sizeof(r->s1), "%s", p->comm);
		return;
	}
	if (x < 16 && c2 >= 0) {
		/* woken after it is dequeued, before its switch-out: waking
		 * on c2, the switch-out S or D (runnable from then), then the
		 * wakeup: on c from its wake list, or on c2 after it waited */
		int fl = IRQS_OFF | (chance(&S.rs, 30) ? HARDIRQ : 0);

		r = emit(c2, K_WAKING, fl);
		r->a = p->tid;
		r->b = c;
		snprintf(r->s1, sizeof(r->s1), "%s", p->comm);
		p->w2 = 1;
		sw(c, ps, pick_next(c), T_RUNNABLE);
		p->w2 = 0;
		if (chance(&S.rs, 50)) {
			idle_exit(c);
			r = emit(c, K_WAKEUP, IRQS_OFF | HARDIRQ);
			r->a = p->tid;
			r->b = c;
			snprintf(r->s1, sizeof(r->s1), "%s", p->comm);
			make_run(c, p->tid);
		} else {
			wake_finish(c2, p, wake_target(p, c2), fl);
		}
		return;
	}
	sw(c, ps, pick_next(c), blocked ? T_BLOCKED : T_SLEEP);
}

static void do_preempt(int c)
{
	int next = pick_next(c);

	if (next)
		sw(c, chance(&S.rs, 70) ? 0x100 : 0, next, T_RUNNABLE);
}

/* The current task of c exits: sched_process_exit, EXIT, the final
 * switch-out (Z for a process, X for a thread), maybe preempted between. */
static void do_exit(int c)
{
	struct task *p = tk(S.cpu[c].cur), *pp = tk(p->ppid);
	struct rec *r;

	if (!p->exiting) {
		r = emit(c, K_PEXIT, 0);
		r->a = p->tid;
		r->b = p->tid == p->pid;
		snprintf(r->s1, sizeof(r->s1), "%s", p->comm);
		r = emit(c, K_EXIT, 0);
		r->a = p->pid;
		r->b = r->d = pp ? pp->pid : 1;
		r->c = p->tid;
		p->exiting = 1;
		if (S.cpu[c].nrq && chance(&S.rs, 15)) {
			sw(c, 0x100, pick_next(c), T_RUNNABLE);
			return;
		}
	}
	sw(c, p->tid == p->pid ? 0x20 : 0x10, pick_next(c), T_DEAD);
}

/* The current task of c forks a thread or a process. */
static void do_fork(int c)
{
	struct task *p = tk(S.cpu[c].cur), *n = &S.task[S.ntask];
	struct rec *r;

	memset(n, 0, sizeof(*n));
	n->tid = TID0 + S.ntask++;
	n->pid = chance(&S.rs, 40) ? p->pid : n->tid;
	n->ppid = p->pid;
	n->kthread = p->kthread;
	memcpy(n->comm, p->comm, 16);
	memcpy(n->comm0, p->comm, 16);
	n->st = T_NONE;
	n->cpu = c;
	r = emit(c, K_FORK, 0);
	r->a = n->pid;
	r->b = p->pid;
	r->c = n->tid;
	r->d = p->tid;
	t_set(n, T_NEW, c, r->t);
	r = emit(c, K_PFORK, 0);
	r->a = p->tid;
	r->b = n->tid;
	snprintf(r->s1, sizeof(r->s1), "%s", p->comm);
	snprintf(r->s2, sizeof(r->s2), "%s", n->comm);
	r = emit(c, K_WAKEUP_NEW, IRQS_OFF);
	n->cpu = chance(&S.rs, 40) ? c : pick_cpu(chance(&S.rs, 70));
	r->a = n->tid;
	r->b = n->cpu;
	snprintf(r->s1, sizeof(r->s1), "%s", n->comm);
	t_set(n, T_RUNNABLE, -1, r->t);
	make_run(n->cpu, n->tid);
}

/* The current task of c names itself (exec: COMM exec and
 * sched_process_exec; else prctl: COMM). */
static void do_comm(int c, int exec)
{
	struct task *p = tk(S.cpu[c].cur);
	struct rec *r;

	snprintf(p->comm, sizeof(p->comm), "%s%d", exec ? "exe" : "thr", (int)rnd(&S.rs, 1000));
	r = emit(c, K_COMM, 0);
	r->a = p->pid;
	r->b = p->tid;
	r->v = exec;
	snprintf(r->s1, sizeof(r->s1), "%s", p->comm);
	if (exec) {
		r = emit(c, K_PEXEC, 0);
		r->a = p->tid;
		snprintf(r->s1, sizeof(r->s1), "/bin/%s", p->comm);
	}
}

/* Load balancing run on c (by its current task, or the idle task): a task
 * queued on a busy CPU moves to c or to an idle CPU. */
static void do_balance(int c)
{
	int s = rnd(&S.rs, S.ncpu), d, tid;
	struct rec *r;

	if (s == c || !S.cpu[s].nrq)
		return;
	tid = S.cpu[s].rq[rnd(&S.rs, S.cpu[s].nrq)];
	d = S.cpu[c].cur && chance(&S.rs, 50) ? pick_cpu(1) : c;
	if (d == s)
		return;
	idle_exit(c);
	r = emit(c, K_MIGRATE, IRQS_OFF);
	r->a = tid;
	r->b = s;
	r->c = d;
	snprintf(r->s1, sizeof(r->s1), "%s", tk(tid)->comm);
	rq_del(s, tid);
	make_run(d, tid);
	if (!S.cpu[c].cur && S.cpu[c].cstate < 0)
		idle_enter(c);
}

static int alive(void)
{
	int n = 0;

	for (int i = 0; i < S.ntask; i++)
		n += S.task[i].st != T_DEAD && S.task[i].st != T_NONE;
	return n;
}

/* One step on CPU c: what its task, or its idle loop, does next. */
static void step(int c)
{
	struct cpu *cp = &S.cpu[c];
	struct task *p = cp->cur ? tk(cp->cur) : NULL, *w;
	int x = rnd(&S.rs, 100);

	if (!p) {
		if (x < 35) {			/* a tick: out of idle and back */
			idle_exit(c);
			idle_enter(c);
		} else if (x < 70 && (w = pick_sleeper())) {	/* an interrupt wakes w */
			idle_exit(c);
			wake(c, w, 1);
			if (!cp->cur && cp->cstate < 0)
				idle_enter(c);
		} else if (x < 85) {
			do_balance(c);
		}
		return;
	}
	if (p->exiting) {
		do_exit(c);
	} else if (cp->resched && cp->nrq && chance(&S.rs, 80)) {
		do_preempt(c);
	} else if (x < 28) {
		do_sleep(c);
	} else if (x < 40) {
		do_preempt(c);
	} else if (x < 62) {
		if ((w = pick_sleeper()))
			wake(c, w, 0);
	} else if (x < 70) {
		if ((w = pick_sleeper()))
			wake(c, w, 1);
	} else if (x < 73) {
		if (S.ntask < S.maxtask)
			do_fork(c);
	} else if (x < 75) {
		do_comm(c, 1);
	} else if (x < 77) {
		if (alive() > S.ncpu + 2)
			do_exit(c);
	} else if (x < 78) {
		do_comm(c, 0);
	} else if (x < 84) {
		do_balance(c);
	}
}

/* The parameters of a seed (where not given: 0). */
static void sim_params(int seed, int *ncpu, int *ntask, int *steps)
{
	static const int cpus[] = { 1, 2, 2, 2, 2, 3, 4, 4, 4, 6, 8, 8, 12, 16, 32, 64 };
	uint64_t s = 0x5eed0000ull + (uint64_t)seed;

	rnd64(&s);
	if (!*ncpu)
		*ncpu = cpus[rnd(&s, sizeof(cpus) / sizeof(cpus[0]))];
	if (!*ntask)
		*ntask = *ncpu + 2 + rnd(&s, 2 * *ncpu + 6);
	if (!*steps)
		*steps = 1000 + 100 * *ncpu + rnd(&s, 2000);
}

/*
 * perf record's end (--damage perf_end): the recorder, a sleeping task, is
 * woken on cpu0 and moves to each CPU in turn (as perf does to turn each
 * CPU's events off there: evlist__disable with affinity), switched in
 * there, out of idle or preempting its task; a little later it turns the
 * CPU's events off (S.off: the records after it are left out) and leaves
 * for the next CPU, runnable and on no queue meanwhile (w2), its switch-out
 * not recorded.  Between two CPUs the others go on: wakeups, runs and
 * sleeps on CPUs already off are in the truth only.  After the last CPU
 * it sleeps.
 */
static void sim_perf_end(void)
{
	struct task *r = pick_sleeper();
	struct rec *w;

	if (!r) {	/* no task to be the recorder: the events stay on */
		for (int c = 0; c < S.ncpu; c++)
			S.off[c] = UINT64_MAX;
		return;
	}
	w = emit(0, K_WAKING, IRQS_OFF);
	w->a = r->tid;
	w->b = 0;
	snprintf(w->s1, sizeof(w->s1), "%s", r->comm);
	t_set(r, T_RUNNABLE, -1, w->t);
	w = emit(0, K_WAKEUP, IRQS_OFF);
	w->a = r->tid;
	w->b = 0;
	snprintf(w->s1, sizeof(w->s1), "%s", r->comm);
	for (int c = 0; c < S.ncpu; c++) {
		S.now += 20 + rnd(&S.rs, 2000);
		if (S.cpu[c].cur && tk(S.cpu[c].cur)->exiting)
			do_exit(c);	/* (an exiting task's last switch first) */
		r->cpu = c;
		rq_add(c, r->tid);
		sw(c, S.cpu[c].cur ? 0x100 : 0, r->tid, T_RUNNABLE);
		S.now += 10 + rnd(&S.rs, 300);
		S.off[c] = S.now;	/* its events go off */
		S.now += 5 + rnd(&S.rs, 100);
		r->w2 = 1;
		sw(c, c + 1 < S.ncpu ? 0 : 1, pick_next(c), c + 1 < S.ncpu ? T_RUNNABLE : T_SLEEP);
		r->w2 = 0;
		for (int k = rnd(&S.rs, 6); k > 0; k--) {
			S.now += 50 + rnd(&S.rs, 500);
			step(rnd(&S.rs, S.ncpu));
		}
	}
}

/* Run the schedule of seed: the records in S.rec, the truth in S.task
 * and S.cpu. */
static void sim_run(int seed, int ncpu, int ntask, int steps)
{
	for (int c = 0; c < MAXCPU; c++)
		free(S.cpu[c].rq), free(S.cpu[c].tr.p), free(S.cpu[c].cs.p);
	for (int i = 0; i < S.ntask; i++)
		free(S.task[i].tr.p);
	free(S.task);
	free(S.rec);
	memset(&S, 0, sizeof(S));
	sim_params(seed, &ncpu, &ntask, &steps);
	S.seed = seed;
	S.ncpu = ncpu > MAXCPU ? MAXCPU : ncpu < 1 ? 1 : ncpu;
	S.maxtask = max_tasks < 4 ? 4 : max_tasks > MAXTASK ? MAXTASK : max_tasks;
	S.ntask = ntask < 1 ? 1 : ntask > S.maxtask / 4 ? S.maxtask / 4 : ntask;
	S.task = xrealloc(NULL, S.maxtask * sizeof(*S.task));
	memset(S.task, 0, S.maxtask * sizeof(*S.task));
	S.steps = steps;
	S.rs = 0xc0ffee00ull ^ ((uint64_t)seed << 20);
	S.start = S.now = 1000000000000ull + rnd(&S.rs, 1000000000000ull);
	for (int c = 0; c < S.ncpu; c++) {
		S.cpu[c].rq = xrealloc(NULL, S.maxtask * sizeof(int));
		S.cpu[c].since = S.cpu[c].cs_since = S.start;
		S.cpu[c].cstate = -1;
	}
	/* at the start: tasks already running, queued, sleeping */
	for (int i = 0; i < S.ntask; i++) {
		struct task *p = &S.task[i];

		p->tid = TID0 + i;
		p->pid = i > 2 && chance(&S.rs, 25) ? S.task[rnd(&S.rs, i)].pid : p->tid;
		p->ppid = 1;
		p->kthread = chance(&S.rs, 20);
		snprintf(p->comm, sizeof(p->comm), p->kthread ? "kworker/%d:%d" : "task%d", i, (int)rnd(&S.rs, 4));
		memcpy(p->comm0, p->comm, 16);
		p->cpu = rnd(&S.rs, S.ncpu);
		p->since = S.start;
		p->st = chance(&S.rs, 30) ? T_BLOCKED : T_SLEEP;
	}
	for (int c = 0, i = 0; c < S.ncpu && i < S.ntask; c++)
		if (chance(&S.rs, 65)) {
			struct task *p = &S.task[i++];

			p->st = T_RUN;
			p->cpu = c;
			S.cpu[c].cur = p->tid;
		}
	for (int c = 0; c < S.ncpu; c++)
		if (!S.cpu[c].cur)
			S.cpu[c].cstate = rnd(&S.rs, 4);
	for (int i = 0; i < S.ntask; i++) {
		struct task *p = &S.task[i];
		int c = pick_busy(-1);

		if (p->st != T_RUN && c >= 0 && chance(&S.rs, 15)) {
			p->st = T_RUNNABLE;
			p->cpu = c;
			rq_add(c, p->tid);
		}
	}
	for (int k = 0; k < S.steps; k++) {
		S.now += 300 + rnd(&S.rs, 20000);
		step(rnd(&S.rs, S.ncpu));
	}
	if (perf_end)
		sim_perf_end();
	S.end = S.now + 1000;
	for (int i = 0; i < S.ntask; i++)
		t_set(&S.task[i], S.task[i].st, -1, S.end);
	for (int c = 0; c < S.ncpu; c++) {
		c_set(c, S.cpu[c].cur, S.end);
		cs_set(c, S.cpu[c].cstate, S.end);
	}
}

/* The truth state of task p at time t (T_NONE before it exists). */
static int truth_at(const struct task *p, uint64_t t)
{
	int i = ivs_find(&p->tr, t);

	return i < p->tr.n && p->tr.p[i].s <= t ? p->tr.p[i].v : T_NONE;
}

/* The CPU's truth at time t: its task. */
static int cpu_at(int c, uint64_t t)
{
	const struct ivs *l = &S.cpu[c].tr;
	int i = ivs_find(l, t);

	return i < l->n && l->p[i].s <= t ? l->p[i].v : -1;
}

/* The simulator checks itself: each task's truth is contiguous from its
 * birth to the end; a CPU's task runs there; every record names its CPU's
 * current task; a switch's prev ran there until it and next from it. */
static void sim_selfcheck(void)
{
	int bad = 0;

	for (int i = 0; i < S.ntask; i++) {
		const struct ivs *l = &S.task[i].tr;

		for (int k = 1; k < l->n; k++)
			if (l->p[k].s != l->p[k - 1].e || l->p[k].e <= l->p[k].s)
				bad++, fprintf(stderr, "sim: task %d's truth has a hole at %" PRIu64 "\n", S.task[i].tid,
					       l->p[k].s);
		if (l->n && l->p[l->n - 1].e != S.end)
			bad++, fprintf(stderr, "sim: task %d's truth ends early\n", S.task[i].tid);
	}
	for (int c = 0; c < S.ncpu; c++)
		for (int k = 0; k < S.cpu[c].tr.n; k++) {
			const struct iv *v = &S.cpu[c].tr.p[k];
			const struct task *p = tk(v->v);

			if (!v->v)
				continue;
			for (int j = ivs_find(&p->tr, v->s); j < p->tr.n && p->tr.p[j].s < v->e; j++)
				if (p->tr.p[j].v != T_RUN || p->tr.p[j].cpu != c)
					bad++, fprintf(stderr, "sim: cpu %d runs %d at %" PRIu64 ", which is %s\n", c, v->v,
						       v->s, tnames[p->tr.p[j].v]);
		}
	for (size_t i = 0; i < S.nrec; i++) {
		const struct rec *r = &S.rec[i];
		int cur = cpu_at(r->cpu, r->kind == K_SWITCH ? r->t - 1 : r->t);

		if (cur != r->tid)
			bad++, fprintf(stderr, "sim: record %zu (kind %d) at %" PRIu64 " on cpu %d names %d, current %d\n",
				       i, r->kind, r->t, r->cpu, r->tid, cur);
		if (r->kind == K_SWITCH && cpu_at(r->cpu, r->t) != r->b)
			bad++, fprintf(stderr, "sim: switch at %" PRIu64 " on cpu %d: next %d does not run\n", r->t,
				       r->cpu, r->b);
		if (r->kind == K_WAKING && truth_at(tk(r->a), r->t) != T_RUNNABLE && truth_at(tk(r->a), r->t) != T_RUN)
			bad++, fprintf(stderr, "sim: waking of %d at %" PRIu64 ", which is %s\n", r->a, r->t,
				       tnames[truth_at(tk(r->a), r->t)]);
		if (i && r->t <= S.rec[i - 1].t)
			bad++, fprintf(stderr, "sim: record %zu not after the one before\n", i);
	}
	if (bad) {
		fprintf(stderr, "sim: seed %d: the simulator contradicts itself %d times\n", S.seed, bad);
		exit(2);
	}
}

/* ---------------------------------------------------------------- damage */

enum { D_NONE, D_IDLE_OUT, D_SWITCH_OUT, D_LOST, D_GAP, D_LATE, D_WINDOW, D_SIDEBAND, D_ALL, D_SAMPLED,
       D_PERTASK, D_CPUS, D_FILTER, D_OVERWRITE, D_PERF_END, D_N };
static const char *const dnames[D_N] = { "none", "idle_out", "switch_out", "lost", "gap", "late",
					 "window", "sideband_early", "all", "sampled", "pertask", "cpus", "filter", "overwrite",
					 "perf_end" };

static struct dmg {
	uint64_t rs;
	uint8_t *drop;			/* per record: left out */
	int *late;			/* per record: rounds late */
	uint32_t *period;		/* per record: the events its sample stands for (sampled) */
	int sampled;			/* the tracepoints are sampled (attrs with freq) */
	int pertask;			/* recorded per task (attrs enable_on_exec, inherit; CMDLINE) */
	uint8_t traced[MAXTASK];	/* ... the tasks it traced (by index) */
	int cpus;			/* recorded on some CPUs (CMDLINE -C): */
	char cpulist[200];		/* ... which ("0,2,5") */
	int filtered;			/* recorded with tracepoint filters (CMDLINE --filter): */
	char filter_sw[64], filter_wk[32];	/* ... sched_switch's, the wakeups' ("": none) */
	int overwrite;			/* rings that overwrite (CMDLINE --overwrite) */
	struct rec lost[8];
	int nlost;
	uint64_t t0, t1;		/* the recording's window */
	struct ivs w;			/* the damaged stretch */
	char desc[512];
} D;

static void d_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void d_say(const char *fmt, ...)
{
	size_t n = strlen(D.desc);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(D.desc + n, sizeof(D.desc) - n, fmt, ap);
	va_end(ap);
}

static int is_tp(const struct rec *r)
{
	return r->kind < A_DUMMY;
}

/* Are tracepoint records left after the damage?  (A window, a hole and a
 * late start of the tracepoints together may leave none on a small run.) */
static int tp_kept(void)
{
	for (size_t i = 0; i < S.nrec; i++)
		if (is_tp(&S.rec[i]) && !D.drop[i])
			return 1;
	return 0;
}

/* The damaged stretch of left out record i: from the kept record of its
 * CPU before it to the one after. */
static void d_stretch(size_t i)
{
	uint64_t a = S.start, b = S.end;
	int c = S.rec[i].cpu;

	for (size_t k = i; k-- > 0;)
		if (S.rec[k].cpu == c && !D.drop[k]) {
			a = S.rec[k].t;
			break;
		}
	for (size_t k = i + 1; k < S.nrec; k++)
		if (S.rec[k].cpu == c && !D.drop[k]) {
			b = S.rec[k].t;
			break;
		}
	ivs_add(&D.w, a, b, 0, c);
}

static void d_idle_out(void)
{
	int c = rnd(&D.rs, S.ncpu), n = 0;

	for (size_t i = 0; i < S.nrec; i++)
		if (S.rec[i].cpu == c && S.rec[i].kind == K_SWITCH && !S.rec[i].a && !D.drop[i])
			D.drop[i] = 1, n++;
	d_say(" idle_out: cpu %d's %d switches out of idle;", c, n);
}

static void d_switch_out(void)
{
	int pct = 1 + rnd(&D.rs, 5), n = 0;

	for (size_t i = 0; i < S.nrec; i++)
		if (S.rec[i].kind == K_SWITCH && !D.drop[i] && (int)rnd(&D.rs, 100) < pct)
			D.drop[i] = 1, n++;
	d_say(" switch_out: %d switches (%d%%);", n, pct);
}

/* A hole in one CPU's records, with a LOST record after it or without
 * (gap: any stretch, no marker).  With the LOST record it is a full ring:
 * the records from its first to the pass that reads the ring again (the
 * end of that record's round: perf reads every ring each pass) are
 * dropped, and the LOST record is stamped when the ring had room again,
 * just before the CPU's next record. */
static void d_hole(int lost, const int *round)
{
	int c = rnd(&D.rs, S.ncpu);
	size_t n = 0, k = 0, from, len, i, first = 0, last = 0, next = S.nrec;

	for (i = 0; i < S.nrec; i++)
		n += S.rec[i].cpu == c && !D.drop[i];
	if (n < 10)
		return;
	from = n / 20 + rnd(&D.rs, n * 8 / 10);
	len = 1 + rnd(&D.rs, n / 8 + 1);
	for (i = 0; i < S.nrec; i++) {
		if (S.rec[i].cpu != c || D.drop[i])
			continue;
		if (k == from)
			first = i;
		if (k >= from && (lost ? round[i] == round[first] : k < from + len)) {
			D.drop[i] = 1;
			last = i;
		} else if (k >= from) {
			next = i;
			break;
		}
		k++;
	}
	if (k < from)
		return;
	for (len = 0, i = first; i <= last; i++)
		len += D.drop[i] && S.rec[i].cpu == c;
	d_say(" %s: cpu %d's records %" PRIu64 "..%" PRIu64 " (%zu);", lost ? "lost" : "gap", c, S.rec[first].t,
	      S.rec[last].t, len);
	if (lost && next < S.nrec && D.nlost < 8) {
		struct rec *r = &D.lost[D.nlost++];

		*r = S.rec[next];
		r->kind = K_LOST;
		r->t = S.rec[next].t - 1;
		r->v = len;
		r->a = S.rec[next].kind < A_DUMMY ? S.rec[next].kind : A_DUMMY;
	}
	d_stretch(first);
	d_stretch(last);
}

static void d_late(int nround, const int *round)
{
	int c = rnd(&D.rs, S.ncpu), L = 1 + rnd(&D.rs, 3), k0, k1, n = 0;

	if (nround < 4)
		return;
	k0 = rnd(&D.rs, nround - 2);
	k1 = k0 + 1 + rnd(&D.rs, nround / 3 + 1);
	for (size_t i = 0; i < S.nrec; i++)
		if (S.rec[i].cpu == c && round[i] >= k0 && round[i] <= k1 && !D.drop[i]) {
			D.late[i] = L;
			n++;
			ivs_add(&D.w, S.rec[i].t, S.rec[i].t + 1, 0, c);
		}
	d_say(" late: cpu %d's rounds %d..%d (%d records) %d late;", c, k0, k1, n, L);
}

static void d_window(void)
{
	uint64_t span = S.end - S.start;
	uint64_t firstsw[MAXCPU] = { 0 }, until;

	D.t0 = S.start + rnd(&D.rs, span / 3);
	D.t1 = S.end - rnd(&D.rs, span / 3);
	for (size_t i = 0; i < S.nrec; i++)
		if (S.rec[i].t < D.t0 || S.rec[i].t > D.t1)
			D.drop[i] = 1;
	until = D.t0;
	for (size_t i = 0; i < S.nrec; i++)
		if (!D.drop[i] && S.rec[i].kind == K_SWITCH && !firstsw[S.rec[i].cpu]) {
			firstsw[S.rec[i].cpu] = S.rec[i].t;
			if (S.rec[i].t > until)
				until = S.rec[i].t;
		}
	ivs_add(&D.w, D.t0, until, 0, -1);
	d_say(" window: %" PRIu64 "..%" PRIu64 ";", D.t0, D.t1);
}

/* Recorded into rings that overwrite (perf record --overwrite, a flight
 * recorder): each CPU's records begin where its ring last wrapped, a
 * busy CPU's later than an idle one's, and end where perf paused it, one
 * ring after another (in the last tenth of the run). */
static void d_overwrite(void)
{
	uint64_t span = S.end - S.start, t0[MAXCPU], t1[MAXCPU], until = S.start, from = S.end;

	for (int c = 0; c < S.ncpu; c++) {
		t0[c] = S.start + rnd(&D.rs, span / 2);
		t1[c] = S.end - rnd(&D.rs, span / 10);
		until = t0[c] > until ? t0[c] : until;
		from = t1[c] < from ? t1[c] : from;
	}
	for (size_t i = 0; i < S.nrec; i++)
		if (S.rec[i].t < t0[S.rec[i].cpu] || S.rec[i].t > t1[S.rec[i].cpu])
			D.drop[i] = 1;
	D.overwrite = 1;
	ivs_add(&D.w, S.start, until, 0, -1);
	ivs_add(&D.w, from, S.end, 0, -1);
	d_say(" overwrite: the CPUs' records begin from %" PRIu64 " to %" PRIu64 " and end from %" PRIu64 ";",
	      S.start, until, from);
}

/* perf record's end (sim_perf_end): each CPU's records after its events
 * went off are left out. */
static void d_perf_end(void)
{
	uint64_t from = S.end;

	for (size_t i = 0; i < S.nrec; i++)
		if (S.rec[i].t > S.off[S.rec[i].cpu])
			D.drop[i] = 1;
	for (int c = 0; c < S.ncpu; c++)
		from = S.off[c] < from ? S.off[c] : from;
	if (from >= S.end) {
		d_say(" perf_end: no task to be the recorder, the events stay on;");
		return;
	}
	ivs_add(&D.w, from, S.end, 0, -1);
	d_say(" perf_end: the CPUs' events off from %" PRIu64 " to %" PRIu64 ";", from, S.off[S.ncpu - 1]);
}

static void d_sideband(void)
{
	uint64_t span = S.end - S.start, first = S.start, from[MAXCPU] = { 0 };

	for (size_t i = 0; i < S.nrec; i++)
		if (!D.drop[i]) {
			first = S.rec[i].t;
			break;
		}
	int c1 = rnd(&D.rs, S.ncpu), c2 = chance(&D.rs, 25) ? (int)rnd(&D.rs, S.ncpu) : c1;

	for (int c = 0; c < S.ncpu; c++) {
		uint64_t late = 1000000 + rnd(&D.rs, 39000000);

		if (c != c1 && c != c2)
			continue;
		if (late > span / 2)
			late = span / 2;
		from[c] = first + late;
		d_say(" sideband_early: cpu %d's tracepoints from %" PRIu64 ";", c, from[c]);
		ivs_add(&D.w, first, from[c], 0, c);
	}
	for (size_t i = 0; i < S.nrec; i++)
		if (is_tp(&S.rec[i]) && S.rec[i].t < from[S.rec[i].cpu])
			D.drop[i] = 1;
}

/* Tracepoints sampled, not traced (perf record -F or -c applies to
 * tracepoints too): per tracepoint and CPU the kernel counts the events
 * and records one when the count reaches the period, with the count in its
 * PERIOD field; the other records are left out.  Per seed each tracepoint
 * has a largest period of 1 (all recorded), 2, 4 or 8; each kept record's
 * successor is drawn from 1 to it.  What comes after a CPU's last kept
 * record of a kind is left out with no record to tell.  As in freq mode
 * (-F), once a kind's period on a CPU has moved past 1, half the records
 * after give the period in force (1 to its largest), not their count. */
static void d_sampled(void)
{
	static const int pmax[] = { 1, 2, 4, 8 };
	int most[A_DUMMY], left[A_DUMMY][MAXCPU], n = 0;
	static uint8_t moved[A_DUMMY][MAXCPU];

	memset(moved, 0, sizeof(moved));
	D.sampled = 1;
	for (int k = 0; k < A_DUMMY; k++) {
		most[k] = pmax[rnd(&D.rs, 4)];
		for (int c = 0; c < cpu_slots(); c++)
			left[k][c] = 1 + rnd(&D.rs, most[k]);
	}
	most[K_SWITCH] = most[K_SWITCH] > 1 ? most[K_SWITCH] : 2;	/* the damage is there */
	for (size_t i = 0; i < S.nrec; i++) {
		const struct rec *r = &S.rec[i];

		if (!is_tp(r) || D.drop[i])
			continue;
		D.period[i] = ++D.period[S.nrec + r->kind * MAXCPU + r->cpu];	/* the count */
		if (--left[r->kind][r->cpu] > 0) {
			D.drop[i] = 2, n++;
			continue;
		}
		D.period[S.nrec + r->kind * MAXCPU + r->cpu] = 0;
		left[r->kind][r->cpu] = 1 + rnd(&D.rs, most[r->kind]);
		if (moved[r->kind][r->cpu] && chance(&D.rs, 50))	/* the period in force, not a count */
			D.period[i] = 1 + rnd(&D.rs, most[r->kind]);
		moved[r->kind][r->cpu] |= D.period[i] > 1;
	}
	for (size_t i = 0; i < S.nrec; i++)
		if (D.drop[i] == 2)
			d_stretch(i);
	d_say(" sampled: %d records left out (largest periods", n);
	for (int k = 0; k < A_DUMMY; k++)
		d_say(" %d", most[k]);
	d_say(");");
}

/* Recorded per task, as perf record CMD (without -a) does: the events
 * fire only in the context of one process and its descendants (inherit),
 * so a tracepoint record is kept when the task current on its CPU is one
 * of them (a switch: its prev), a side-band record when it names one.  The
 * attrs and the CMDLINE feature say so as perf's do (enable_on_exec,
 * inherit; perf record without -a). */
static void d_pertask(void)
{
	uint8_t *traced = D.traced;
	int root = -1, n = 0;

	D.pertask = 1;
	for (int i = 0; i < S.ntask && root < 0; i++)
		if (S.task[i].st != T_NONE || chance(&D.rs, 10))
			root = S.task[rnd(&D.rs, S.ntask)].pid;
	for (int i = 0; i < S.ntask; i++) {
		const struct task *p = tk(S.task[i].ppid);

		traced[i] = S.task[i].pid == root || (p && traced[p->tid - TID0]);
	}
	for (size_t i = 0; i < S.nrec; i++) {
		const struct rec *r = &S.rec[i];
		const struct task *p = tk(r->kind == K_COMM ? r->b : r->kind == K_FORK || r->kind == K_EXIT ? r->c :
					  r->tid);

		if (!D.drop[i] && !(p && traced[p->tid - TID0]))
			D.drop[i] = 1, n++;
	}
	d_say(" pertask: the events of process %d and its descendants (%d records left out);", root, n);
}

/* Recorded on some CPUs only, as perf record -C or tc --record -C do: the
 * records of the other CPUs are left out (at least one CPU is kept, and
 * at least one not).  The CMDLINE feature says -C. */
static void d_cpus(void)
{
	uint64_t keep = 0;
	int n = 0;

	uint64_t all = S.ncpu >= 64 ? ~0ull : (1ull << S.ncpu) - 1;

	if (S.ncpu < 2)
		return;
	while (!keep || keep == all)
		keep = rnd64(&D.rs) & all;
	D.cpus = 1;
	D.cpulist[0] = 0;
	for (int c = 0; c < S.ncpu && c < 64; c++)
		if (keep >> c & 1)
			snprintf(D.cpulist + strlen(D.cpulist), sizeof(D.cpulist) - strlen(D.cpulist), "%s%d",
				 D.cpulist[0] ? "," : "", c);
	for (size_t i = 0; i < S.nrec; i++)
		if (!(keep >> S.rec[i].cpu & 1) && !D.drop[i])
			D.drop[i] = 1, n++;
	d_say(" cpus: CPUs %#llx only (%d records left out);", (unsigned long long)keep, n);
}

/* Recorded with filters on the scheduler's tracepoints (perf record -e
 * sched:sched_switch --filter 'prev_pid == A || next_pid == A' ...), as
 * one who watches a task does: A's switches, the switches to A or from A,
 * or all of them, and the wakeups of A only or all of them (not both all).
 * The CMDLINE feature has the filters. */
static void d_filter(void)
{
	static const char *const sw[] = { "prev_pid == %d || next_pid == %d", "next_pid == %d",
					  "prev_pid == %d", NULL };
	int a = 0, v = rnd(&D.rs, 4), n = 0;

	for (int i = 0; i < 16 && !a; i++) {
		const struct task *t = &S.task[rnd(&D.rs, S.ntask)];

		a = t->st != T_NONE ? t->tid : 0;
	}
	if (!a)
		a = S.task[0].tid;
	D.filtered = 1;
	if (sw[v])
		snprintf(D.filter_sw, sizeof(D.filter_sw), sw[v], a, a);
	if (v != 2)
		snprintf(D.filter_wk, sizeof(D.filter_wk), "pid == %d", a);
	for (size_t i = 0; i < S.nrec; i++) {
		const struct rec *r = &S.rec[i];
		int keep = 1;

		if (r->kind == K_SWITCH)
			keep = v == 0 ? r->a == a || r->b == a : v == 1 ? r->b == a : v == 2 ? r->a == a : 1;
		else if (r->kind == K_WAKEUP || r->kind == K_WAKEUP_NEW || r->kind == K_WAKING)
			keep = v == 2 || r->a == a;
		if (!keep && !D.drop[i])
			D.drop[i] = 1, n++;
	}
	d_say(" filter: sched_switch '%s', wakeups '%s' (%d records left out);", D.filter_sw, D.filter_wk, n);
}

static uint64_t pass_ns;	/* --pass: rounds of about this long (0: per seed) */

/* Pass boundaries of perf's reads of the rings (per seed: rounds of 0.1 to
 * 30 ms, and no shorter than a pass; --pass longer than the run: one round,
 * each CPU's records in one group, as perf record -m 4096 writes its first
 * ones), and each record's round: the first pass that read its CPU's ring
 * after it was written (ring c is read c * 3 µs into the pass). */
static int *rounds(int *nround)
{
	static const uint64_t len[] = { 100000, 1000000, 5000000, 30000000 };
	uint64_t s = 0xa11ce000ull + (uint64_t)S.seed, l = pass_ns ? pass_ns : len[rnd(&s, 4)], *p = NULL;
	int n = 0, *round = xrealloc(NULL, (S.nrec + 1) * sizeof(int));

	for (uint64_t t = S.start;; ) {
		uint64_t d = l / 2 + rnd(&s, l);

		/* a pass starts when the one before has read every ring */
		t += d > 3000ull * S.ncpu ? d : 3000ull * S.ncpu;
		p = xrealloc(p, (n + 1) * sizeof(*p));
		p[n++] = t;
		if (t > S.end + 3000ull * cpu_slots())
			break;
	}
	for (size_t i = 0, k = 0; i < S.nrec; i++) {
		uint64_t t = S.rec[i].t - 3000 * S.rec[i].cpu;

		while (k > 0 && p[k - 1] > t)
			k--;
		while (k < (size_t)n - 1 && p[k] <= t)
			k++;
		round[i] = k;
	}
	free(p);
	*nround = n;
	return round;
}

/* Damage kind kind (seeded by seed and kind), after computing the rounds. */
static void damage(int kind, int nround, const int *round)
{
	free(D.drop);
	free(D.late);
	free(D.period);
	free(D.w.p);
	memset(&D, 0, sizeof(D));
	D.rs = 0xdead0000ull ^ ((uint64_t)S.seed << 8) ^ (uint64_t)kind;
	D.drop = xrealloc(NULL, S.nrec + 1);
	D.late = xrealloc(NULL, (S.nrec + 1) * sizeof(int));
	memset(D.drop, 0, S.nrec + 1);
	memset(D.late, 0, (S.nrec + 1) * sizeof(int));
	/* a period per record, then d_sampled's count per tracepoint and CPU */
	D.period = xrealloc(NULL, (S.nrec + A_DUMMY * MAXCPU) * sizeof(*D.period));
	memset(D.period, 0, (S.nrec + A_DUMMY * MAXCPU) * sizeof(*D.period));
	if (kind == D_ALL) {
		int any = 0;

		while (!any) {
			if (chance(&D.rs, 40))
				d_window(), any = 1;
			if (chance(&D.rs, 40))
				d_idle_out(), any = 1;
			if (chance(&D.rs, 40))
				d_switch_out(), any = 1;
			if (chance(&D.rs, 40))
				d_hole(chance(&D.rs, 50), round), any = 1;
			if (chance(&D.rs, 40))
				d_late(nround, round), any = 1;
			if (chance(&D.rs, 40))
				d_sideband(), any = 1;
		}
	}
	switch (kind) {
	case D_IDLE_OUT: d_idle_out(); break;
	case D_SWITCH_OUT: d_switch_out(); break;
	case D_LOST: d_hole(1, round); break;
	case D_GAP: d_hole(0, round); break;
	case D_LATE: d_late(nround, round); break;
	case D_WINDOW: d_window(); break;
	case D_SIDEBAND: d_sideband(); break;
	case D_SAMPLED: d_sampled(); break;
	case D_PERTASK: d_pertask(); break;
	case D_CPUS: d_cpus(); break;
	case D_FILTER: d_filter(); break;
	case D_OVERWRITE: d_overwrite(); break;
	case D_PERF_END: d_perf_end(); break;
	}
	if (waking_only) {	/* sched_wakeup not recorded: none of its records */
		int n = 0;

		for (size_t i = 0; i < S.nrec; i++)
			if (S.rec[i].kind == K_WAKEUP && !D.drop[i])
				D.drop[i] = 1, n++;
		d_say(" waking_only: no sched_wakeup (%d records);", n);
	}
	if (kind == D_IDLE_OUT || kind == D_SWITCH_OUT || kind == D_ALL)
		for (size_t i = 0; i < S.nrec; i++)
			if (D.drop[i] && S.rec[i].kind == K_SWITCH && (!D.t1 || (S.rec[i].t >= D.t0 && S.rec[i].t <= D.t1)))
				d_stretch(i);
	ivs_sort(&D.w);
	ivs_merge(&D.w);
}

/* ---------------------------------------------------------------- the file */

/* Raw data of tracepoint record r into raw; returns its size. */
static size_t raw_of(const struct rec *r, uint8_t *raw)
{
	memset(raw, 0, 128);
	pw_raw_common(raw, tps[r->kind].id, r->flags, r->tid);
	switch (r->kind) {
	case K_SWITCH:
		return pw_raw_switch(raw, r->s1, r->a, 120, r->v, r->s2, r->b, 120);
	case K_WAKEUP:
	case K_WAKEUP_NEW:
	case K_WAKING:
		return pw_raw_wake(raw, r->s1, r->a, 120, r->b);
	case K_PEXIT:
		pw_raw_wake(raw, r->s1, r->a, 120, 0);
		raw[32] = r->b;		/* group_dead, a bool */
		return 33;
	case K_PFORK:
		return pw_raw_fork(raw, r->s1, r->a, r->s2, r->b);
	case K_PEXEC:
		return pw_raw_exec(raw, r->s1, r->a, r->a);
	case K_MIGRATE:
		return pw_raw_migrate(raw, r->s1, r->a, 120, r->b, r->c);
	default:
		return pw_raw_power(raw, (uint32_t)r->v, r->b);
	}
}

static void rec_write(struct buf *d, const struct rec *r)
{
	uint8_t raw[128];
	uint64_t sid = pw_id(A_DUMMY, r->cpu);

	switch (r->kind) {
	case K_COMM:
		pw_comm(d, r->v ? PW_MISC_COMM_EXEC : 0, r->a, r->b, r->s1);
		break;
	case K_FORK:
	case K_EXIT:
		pw_task(d, r->kind == K_FORK ? PW_R_FORK : PW_R_EXIT, r->a, r->b, r->c, r->d, r->t + 25);
		break;
	case K_LOST:
		sid = pw_id(r->a, r->cpu);
		pw_lost(d, sid, r->v);
		break;
	default:
		pw_sample_p(d, TP_ST, pw_id(r->kind, r->cpu), r->pid, r->tid, r->t, r->cpu,
			    D.period[r - S.rec] ? D.period[r - S.rec] : 1, raw, raw_of(r, raw));
		return;
	}
	pw_id_trailer(d, r->pid, r->tid, r->t, r->cpu, sid);
}

struct out {
	const struct rec *r;
	uint64_t t;
	int round, cpu;
	size_t seq;
};

static int out_cmp(const void *a, const void *b)
{
	const struct out *x = a, *y = b;

	if (x->round != y->round)
		return x->round < y->round ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Write the damaged trace to path: tc's own layout (tcfile: in time order,
 * VERSION writer) or perf's (per round, per CPU). */
static void write_trace(const char *path, const int *round, int tcfile, const char *writer)
{
	struct buf d = { 0 };
	struct pw_attr attr[NATTR];
	struct out *o = xrealloc(NULL, (S.nrec + D.nlost) * sizeof(*o));
	size_t n = 0;
	uint64_t t0 = D.t0 ? D.t0 : S.start;

	for (int i = 0; i < A_DUMMY; i++)
		attr[i] = (struct pw_attr){ 2, tps[i].id, TP_ST,
					    1ull << PW_A_DISABLED | 1ull << PW_A_SAMPLE_ID_ALL |
					    (uint64_t)D.sampled << PW_A_FREQ | (uint64_t)D.pertask << PW_A_INHERIT |
					    (uint64_t)D.pertask << PW_A_ENABLE_ON_EXEC, D.sampled ? 4000 : 1 };
	attr[A_DUMMY] = (struct pw_attr){ 1, 9, SB_ST,
					  1ull << PW_A_COMM | 1ull << PW_A_TASK | 1ull << PW_A_SAMPLE_ID_ALL |
					  1ull << PW_A_COMM_EXEC, 1 };
	if (waking_only)	/* in sched_wakeup's place (its ids unused): a dummy with no records */
		attr[K_WAKEUP] = (struct pw_attr){ 1, 9, SB_ST, 1ull << PW_A_SAMPLE_ID_ALL, 1 };
	/* synthesized for the tasks alive at the start: FORK, COMM at time 0 */
	for (int i = 0; i < S.ntask; i++) {
		const struct task *p = &S.task[i];
		int st = truth_at(p, t0);

		if (st == T_NONE || st == T_DEAD || (D.pertask && !D.traced[i]))
			continue;	/* perf record CMD synthesizes its process's only */
		pw_task(&d, PW_R_FORK, p->pid, p->ppid, p->tid, p->ppid, 0);
		pw_id_trailer(&d, 0, 0, 0, 0, 0);
		pw_comm(&d, 0, p->pid, p->tid, p->comm0);
		pw_id_trailer(&d, 0, 0, 0, 0, 0);
	}
	pw_hdr(&d, PW_R_FINISHED_INIT, 0, 8);
	for (size_t i = 0; i < S.nrec; i++)
		if (!D.drop[i])
			o[n] = (struct out){ &S.rec[i], S.rec[i].t, tcfile ? 0 : round[i] + D.late[i],
					     tcfile ? 0 : S.rec[i].cpu, n }, n++;
	for (int k = 0; k < D.nlost; k++) {
		size_t j = 0;
		uint64_t before = 0;	/* the CPU's last record kept before the loss */

		while (j < S.nrec && (S.rec[j].cpu != D.lost[k].cpu || S.rec[j].t <= D.lost[k].t)) {
			if (S.rec[j].cpu == D.lost[k].cpu && !D.drop[j])
				before = S.rec[j].t;
			j++;
		}
		/* perf: in the round of the CPU's next record; tc's writer: where
		 * the loss began (it holds the other CPUs' records of a full ring's
		 * pass until the LOST record is read) */
		o[n] = (struct out){ &D.lost[k], tcfile && before ? before : D.lost[k].t,
				     tcfile ? 0 : j < S.nrec ? round[j] : round[S.nrec - 1], tcfile ? 0 : D.lost[k].cpu, n };
		n++;
	}
	qsort(o, n, sizeof(*o), out_cmp);
	for (size_t i = 0; i < n; i++) {
		if (tcfile ? i && i % 256 == 0 : i && o[i].round != o[i - 1].round)
			pw_hdr(&d, PW_R_FINISHED_ROUND, 0, 8);
		rec_write(&d, o[i].r);
	}
	pw_hdr(&d, PW_R_FINISHED_ROUND, 0, 8);
	{
		static const char *const cmd[] = { "perf", "record", "-e", "sched:*", "-e", "power:cpu_idle",
						   "--", "./app", NULL };
		static const char *cmdc[] = { "perf", "record", "-C", NULL, "-e", "sched:*", "-e",
					      "power:cpu_idle", "--", "./app", NULL };
		static const char *const cmdo[] = { "perf", "record", "--overwrite", "-a", "-e", "sched:*", "-e",
						    "power:cpu_idle", NULL };

		static const char *cmdf[24] = { "perf", "record", "-a", "-e", "sched:sched_switch" };
		int k = 5;

		if (D.filter_sw[0])
			cmdf[k++] = "--filter", cmdf[k++] = D.filter_sw;
		for (int i = 0; i < 3; i++) {
			cmdf[k++] = "-e";
			cmdf[k++] = (const char *[]){ "sched:sched_waking", "sched:sched_wakeup",
						      "sched:sched_wakeup_new" }[i];
			if (D.filter_wk[0])
				cmdf[k++] = "--filter", cmdf[k++] = D.filter_wk;
		}
		cmdf[k++] = "-e", cmdf[k++] = "sched:sched_process_*";
		cmdf[k++] = "--", cmdf[k++] = "./app", cmdf[k] = NULL;
		cmdc[3] = D.cpulist;
		pw_cmdline = tcfile ? NULL : D.pertask ? cmd : D.cpus ? cmdc : D.filtered ? cmdf :
			     D.overwrite ? cmdo : NULL;
	}
	pw_file(path, "sim", attr, NATTR, tps, A_DUMMY, S.ncpu, &d, tcfile ? writer : NULL);
	free(d.p);
	free(o);
}

/* The truth, as sim check reads it back:
 *   sim SEED NCPU FIRST LAST             the simulated time
 *   task TID STATE START END CPU         (STATE as tnames)
 *   cpu CPU TID START END
 *   cstate CPU STATE START END           (-1: not in an idle state)
 *   wake TID TIME WAKER KEPT             a wakeup of TID (sched_waking, or
 *                                        sched_wakeup_new) at TIME by WAKER
 *                                        (-1: an interrupt); KEPT 1 if its
 *                                        record is in the file
 *   records SAMPLES SIDEBAND LOST        what the file holds: samples,
 *                                        COMM/FORK/EXIT (synthesized
 *                                        too), LOST records
 *   damaged START END                    the damaged stretch
 *   damage TEXT                          what was done */
static void write_truth(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(2);
	}
	fprintf(f, "sim\t%d\t%d\t%" PRIu64 "\t%" PRIu64 "\n", S.seed, S.ncpu, S.start, S.end);
	for (int i = 0; i < S.ntask; i++)
		for (int k = 0; k < S.task[i].tr.n; k++) {
			const struct iv *v = &S.task[i].tr.p[k];

			fprintf(f, "task\t%d\t%s\t%" PRIu64 "\t%" PRIu64 "\t%d\n", S.task[i].tid, tnames[v->v], v->s,
				v->e, v->cpu);
		}
	for (size_t i = 0; i < S.nrec; i++) {
		const struct rec *r = &S.rec[i];

		if (r->kind == K_WAKING || r->kind == K_WAKEUP_NEW)
			fprintf(f, "wake\t%d\t%" PRIu64 "\t%d\t%d\n", r->a, r->t,
				r->flags & (HARDIRQ | SOFTIRQ) ? -1 : r->tid, !D.drop[i]);
	}
	for (int c = 0; c < S.ncpu; c++) {
		for (int k = 0; k < S.cpu[c].tr.n; k++)
			fprintf(f, "cpu\t%d\t%d\t%" PRIu64 "\t%" PRIu64 "\n", c, S.cpu[c].tr.p[k].v, S.cpu[c].tr.p[k].s,
				S.cpu[c].tr.p[k].e);
		for (int k = 0; k < S.cpu[c].cs.n; k++)
			fprintf(f, "cstate\t%d\t%d\t%" PRIu64 "\t%" PRIu64 "\n", c, S.cpu[c].cs.p[k].v,
				S.cpu[c].cs.p[k].s, S.cpu[c].cs.p[k].e);
	}
	{
		size_t n[2] = { 0, 0 };

		for (size_t i = 0; i < S.nrec; i++)
			n[!is_tp(&S.rec[i])] += !D.drop[i];
		for (int i = 0; i < S.ntask; i++) {	/* synthesized: FORK and COMM */
			int st = truth_at(&S.task[i], D.t0 ? D.t0 : S.start);

			n[1] += st != T_NONE && st != T_DEAD ? 2 : 0;
		}
		fprintf(f, "records\t%zu\t%zu\t%d\n", n[0], n[1], D.nlost);
	}
	for (int k = 0; k < D.w.n; k++)
		fprintf(f, "damaged\t%" PRIu64 "\t%" PRIu64 "\n", D.w.p[k].s, D.w.p[k].e);
	fprintf(f, "damage\t%s\n", D.desc[0] ? D.desc + 1 : "none");
	if (fclose(f)) {
		perror(path);
		exit(2);
	}
}

/* gen: the schedule of seed, damage kind, the file and its truth. */
static void gen(int seed, int ncpu, int ntask, int steps, int kind, int be, int long4, int tcfile,
		const char *writer, const char *path)
{
	char tpath[4096];
	int nround, *round;

	perf_end = kind == D_PERF_END;
	sim_run(seed, ncpu, ntask, steps);
	sim_selfcheck();
	round = rounds(&nround);
	damage(kind, nround, round);
	pw_be = be;
	pw_long4 = long4;
	write_trace(path, round, tcfile, writer);
	snprintf(tpath, sizeof(tpath), "%s.truth", path);
	write_truth(tpath);
	free(round);
}

/* ---------------------------------------------------------------- tc's --states */

/* A row of a --states dump: a task's intervals (v state T_*, cpu), or a
 * CPU's (v tid) and its idle states (cs), and its totals line. */
struct row {
	int id;
	struct ivs iv, cs;
	uint64_t unk;			/* ns of its unknown intervals (tc names why) */
	int has_total;
	uint64_t first, last, tot[6];
};

static struct dump {
	struct row *task;
	int ntask, cap;
	int *hash;			/* tid -> index + 1 (open addressing) */
	int hcap;
	struct row *cpu;
	int ncpu;
	uint64_t first, last;		/* the span (cpu_total) */
	int bad;			/* lines not understood */
} X;

static void dump_free(struct dump *d)
{
	for (int i = 0; i < d->ntask; i++)
		free(d->task[i].iv.p);
	for (int c = 0; c < d->ncpu; c++)
		free(d->cpu[c].iv.p), free(d->cpu[c].cs.p);
	free(d->task);
	free(d->hash);
	free(d->cpu);
	memset(d, 0, sizeof(*d));
}

static int dump_hslot(const struct dump *d, int tid)
{
	int h = (int)(((uint32_t)tid * 2654435761u) & (d->hcap - 1));

	while (d->hash[h] && d->task[d->hash[h] - 1].id != tid)
		h = (h + 1) & (d->hcap - 1);
	return h;
}

/* Task tid's row, made if make; NULL if none. */
static struct row *dump_task(struct dump *d, int tid, int make)
{
	int h;

	if (!d->hcap) {
		if (!make)
			return NULL;
		d->hcap = 1024;
		d->hash = xrealloc(NULL, d->hcap * sizeof(int));
		memset(d->hash, 0, d->hcap * sizeof(int));
	}
	h = dump_hslot(d, tid);
	if (d->hash[h] || !make)
		return d->hash[h] ? &d->task[d->hash[h] - 1] : NULL;
	if (d->ntask == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 256;
		d->task = xrealloc(d->task, d->cap * sizeof(*d->task));
	}
	memset(&d->task[d->ntask], 0, sizeof(d->task[0]));
	d->task[d->ntask].id = tid;
	d->hash[h] = ++d->ntask;
	if (2 * d->ntask > d->hcap) {	/* grow the hash */
		d->hcap *= 2;
		d->hash = xrealloc(d->hash, d->hcap * sizeof(int));
		memset(d->hash, 0, d->hcap * sizeof(int));
		for (int i = 0; i < d->ntask; i++)
			d->hash[dump_hslot(d, d->task[i].id)] = i + 1;
	}
	return &d->task[d->ntask - 1];
}

static struct row *dump_cpu(struct dump *d, int c)
{
	if (c < 0 || c > 1 << 16)
		return NULL;
	if (c >= d->ncpu) {
		d->cpu = xrealloc(d->cpu, (c + 1) * sizeof(*d->cpu));
		memset(d->cpu + d->ncpu, 0, (c + 1 - d->ncpu) * sizeof(*d->cpu));
		for (int k = d->ncpu; k <= c; k++)
			d->cpu[k].id = k;
		d->ncpu = c + 1;
	}
	return &d->cpu[c];
}

static int state_code(const char *s)
{
	for (int k = 0; k < T_N; k++)
		if (!strcmp(s, tnames[k]))
			return k;
	return -1;
}

/* Read a --states dump (tc --replay FILE --states); intervals sorted. */
static int dump_read(struct dump *d, const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];

	memset(d, 0, sizeof(*d));
	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *fld[12], *p = line;
		int n = 0;
		struct row *r;

		line[strcspn(line, "\n")] = 0;
		while (n < 12 && p) {
			fld[n++] = p;
			if ((p = strchr(p, '\t')))
				*p++ = 0;
		}
#define U(i) strtoull(fld[i], NULL, 10)
#define I(i) atoi(fld[i])
		if (!strcmp(fld[0], "task") && n == 7 && !strcmp(fld[2], "unknown") && (r = dump_task(d, I(1), 1))) {
			r->unk += U(4) > U(3) ? U(4) - U(3) : 0;	/* no claim; why in fld[6] */
		} else if (!strcmp(fld[0], "cpu") && n == 6 && I(2) == -1 && (r = dump_cpu(d, I(1)))) {
			r->unk += U(4) > U(3) ? U(4) - U(3) : 0;
		} else if (!strcmp(fld[0], "task") && n == 6 && (r = dump_task(d, I(1), 1))) {
			ivs_add(&r->iv, U(3), U(4), state_code(fld[2]), I(5));
		} else if (!strcmp(fld[0], "cpu") && n == 5 && (r = dump_cpu(d, I(1)))) {
			ivs_add(&r->iv, U(3), U(4), I(2), I(1));
		} else if (!strcmp(fld[0], "cstate") && n == 5 && (r = dump_cpu(d, I(1)))) {
			ivs_add(&r->cs, U(3), U(4), I(2), I(1));
		} else if (!strcmp(fld[0], "task_total") && n == 10 && (r = dump_task(d, I(1), 1))) {
			r->has_total = 1;
			r->first = U(2);
			r->last = U(3);
			for (int k = 0; k < 6; k++)
				r->tot[k] = U(4 + k);
		} else if (!strcmp(fld[0], "cpu_total") && n == 6 && (r = dump_cpu(d, I(1)))) {
			r->has_total = 1;
			r->first = d->first = U(2);
			r->last = d->last = U(3);
			r->tot[0] = U(4);
			r->tot[1] = U(5);
		} else if (strcmp(fld[0], "io") && strcmp(fld[0], "freq") && strcmp(fld[0], "hardirq") &&
			   strcmp(fld[0], "softirq")) {
			d->bad++;
		}
#undef U
#undef I
	}
	fclose(f);
	for (int i = 0; i < d->ntask; i++)
		ivs_sort(&d->task[i].iv);
	for (int c = 0; c < d->ncpu; c++)
		ivs_sort(&d->cpu[c].iv), ivs_sort(&d->cpu[c].cs);
	return 0;
}

/* ---------------------------------------------------------------- invariants */

struct viol {
	int n, shown, show;
};

static void viol(struct viol *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void viol(struct viol *v, const char *fmt, ...)
{
	va_list ap;

	v->n++;
	if (v->shown >= v->show)
		return;
	v->shown++;
	va_start(ap, fmt);
	printf("  invariant: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

#define IV "[%" PRIu64 ", %" PRIu64 ")"

static const char *sname(int v)
{
	return v >= 0 && v < T_N ? tnames[v] : "?";
}

/* " on cpu N" for a running interval, else "" (one of two buffers). */
static const char *on_cpu(const struct iv *a)
{
	static char b[2][24];
	static int k;

	k ^= 1;
	b[k][0] = 0;
	if (a->v == T_RUN)
		snprintf(b[k], sizeof(b[k]), " on cpu %d", a->cpu);
	return b[k];
}

struct run_iv {
	uint64_t s, e;
	int tid;
};

static int run_cmp(const void *a, const void *b)
{
	const struct run_iv *x = a, *y = b;

	return x->s < y->s ? -1 : x->s > y->s;
}

/* Check the invariants of dump d (see the top); returns violations. */
static int invariants(const struct dump *d, int show)
{
	struct viol v = { 0, 0, show };
	int nri = 0;

	for (int i = 0; i < d->ntask; i++) {
		const struct row *r = &d->task[i];
		uint64_t sum[T_N] = { 0 };

		for (int k = 0; k < r->iv.n; k++) {
			const struct iv *a = &r->iv.p[k];

			if (a->e <= a->s)
				viol(&v, "task %d: %s " IV " ends before it starts", r->id, sname(a->v), a->s, a->e);
			if (a->v < T_RUN || a->v > T_BLOCKED)
				viol(&v, "task %d: state %d " IV " is no state", r->id, a->v, a->s, a->e);
			else
				sum[a->v] += a->e - a->s;
			if (k && a->s < r->iv.p[k - 1].e)
				viol(&v, "task %d: %s%s " IV " overlaps %s%s " IV, r->id, sname(a->v), on_cpu(a), a->s,
				     a->e, sname(r->iv.p[k - 1].v), on_cpu(&r->iv.p[k - 1]), r->iv.p[k - 1].s,
				     r->iv.p[k - 1].e);
			if (r->has_total && (a->s < r->first || a->e > r->last))
				viol(&v, "task %d: %s " IV " outside its span " IV, r->id, sname(a->v), a->s, a->e,
				     r->first, r->last);
			nri += a->v == T_RUN;
		}
		if (!r->has_total) {
			if (r->iv.n)
				viol(&v, "task %d: intervals but no task_total", r->id);
			continue;
		}
		for (int k = T_RUN; k <= T_BLOCKED; k++)
			if (sum[k] != r->tot[k - T_RUN])
				viol(&v, "task %d: %s intervals add up to %" PRIu64 ", task_total says %" PRIu64, r->id,
				     tnames[k], sum[k], r->tot[k - T_RUN]);
		if (r->unk != r->tot[4])
			viol(&v, "task %d: unknown intervals add up to %" PRIu64 ", task_total says %" PRIu64, r->id,
			     r->unk, r->tot[4]);
		if (r->last < r->first ||
		    r->tot[0] + r->tot[1] + r->tot[2] + r->tot[3] + r->tot[4] + r->tot[5] != r->last - r->first)
			viol(&v, "task %d: task_total states add up to %" PRIu64 ", its span " IV " is %" PRIu64,
			     r->id, r->tot[0] + r->tot[1] + r->tot[2] + r->tot[3] + r->tot[4] + r->tot[5], r->first,
			     r->last, r->last - r->first);
	}
	for (int c = 0; c < d->ncpu; c++) {
		const struct row *r = &d->cpu[c];
		uint64_t busy = 0, idle = 0;

		for (int k = 0; k < r->iv.n; k++) {
			const struct iv *a = &r->iv.p[k];
			const struct row *t;

			if (a->e <= a->s)
				viol(&v, "cpu %d: task %d " IV " ends before it starts", c, a->v, a->s, a->e);
			if (k && a->s < r->iv.p[k - 1].e)
				viol(&v, "cpu %d: task %d " IV " overlaps task %d " IV, c, a->v, a->s, a->e,
				     r->iv.p[k - 1].v, r->iv.p[k - 1].s, r->iv.p[k - 1].e);
			if (r->has_total && (a->s < r->first || a->e > r->last))
				viol(&v, "cpu %d: task %d " IV " outside the span " IV, c, a->v, a->s, a->e, r->first,
				     r->last);
			if (a->v > 0)
				busy += a->e - a->s;
			else
				idle += a->e - a->s;
			/* the task's own row does not say otherwise */
			if (a->v > 0 && (t = dump_task((struct dump *)d, a->v, 0)))
				for (int j = ivs_find(&t->iv, a->s); j < t->iv.n && t->iv.p[j].s < a->e; j++)
					if (t->iv.p[j].e > a->s && (t->iv.p[j].v != T_RUN || t->iv.p[j].cpu != c))
						viol(&v, "cpu %d runs task %d " IV " while the task is %s%s " IV, c,
						     a->v, a->s, a->e, sname(t->iv.p[j].v), on_cpu(&t->iv.p[j]),
						     t->iv.p[j].s, t->iv.p[j].e);
		}
		for (int k = 0; k < r->cs.n; k++) {
			const struct iv *a = &r->cs.p[k];

			if (a->e <= a->s)
				viol(&v, "cpu %d: idle state %d " IV " ends before it starts", c, a->v, a->s, a->e);
			if (k && a->s < r->cs.p[k - 1].e)
				viol(&v, "cpu %d: idle state %d " IV " overlaps idle state %d " IV, c, a->v, a->s,
				     a->e, r->cs.p[k - 1].v, r->cs.p[k - 1].s, r->cs.p[k - 1].e);
		}
		if (r->has_total) {
			if (busy != r->tot[0] || idle != r->tot[1])
				viol(&v, "cpu %d: intervals add up to busy %" PRIu64 " idle %" PRIu64
				     ", cpu_total says %" PRIu64 " %" PRIu64, c, busy, idle, r->tot[0], r->tot[1]);
			if (r->last < r->first || r->tot[0] + r->tot[1] + r->unk > r->last - r->first)
				viol(&v, "cpu %d: busy %" PRIu64 " + idle %" PRIu64 " + unknown %" PRIu64 " > its span " IV,
				     c, r->tot[0], r->tot[1], r->unk, r->first, r->last);
		} else if (r->iv.n) {
			viol(&v, "cpu %d: intervals but no cpu_total", c);
		}
	}
	/* per CPU: running intervals of different tasks do not overlap, and
	 * lie within the CPU's intervals of their task */
	{
		int m = 0;
		struct run_iv *byc = xrealloc(NULL, (nri + 1) * sizeof(*byc));

		for (int c = 0; c < d->ncpu; c++) {
			const struct row *r = &d->cpu[c];

			m = 0;
			for (int i = 0; i < d->ntask; i++)
				for (int k = 0; k < d->task[i].iv.n; k++)
					if (d->task[i].iv.p[k].v == T_RUN && d->task[i].iv.p[k].cpu == c)
						byc[m++] = (struct run_iv){ d->task[i].iv.p[k].s, d->task[i].iv.p[k].e,
									    d->task[i].id };
			qsort(byc, m, sizeof(*byc), run_cmp);
			for (int k = 0, far = -1; k < m; k++) {
				uint64_t cov = 0;

				/* far: the interval before k that ends last */
				if (far >= 0 && byc[far].e > byc[k].s && byc[far].tid != byc[k].tid)
					viol(&v, "cpu %d runs task %d " IV " and task %d " IV " at once", c,
					     byc[k].tid, byc[k].s, byc[k].e, byc[far].tid, byc[far].s, byc[far].e);
				if (far < 0 || byc[k].e > byc[far].e)
					far = k;
				for (int j = ivs_find(&r->iv, byc[k].s); j < r->iv.n && r->iv.p[j].s < byc[k].e; j++)
					if (r->iv.p[j].v == byc[k].tid) {
						uint64_t a = r->iv.p[j].s > byc[k].s ? r->iv.p[j].s : byc[k].s;
						uint64_t b = r->iv.p[j].e < byc[k].e ? r->iv.p[j].e : byc[k].e;

						cov += b > a ? b - a : 0;
					}
				if (cov != byc[k].e - byc[k].s)
					viol(&v, "task %d runs on cpu %d " IV " but the cpu row has it for %" PRIu64
					     " of %" PRIu64 " ns", byc[k].tid, c, byc[k].s, byc[k].e, cov,
					     byc[k].e - byc[k].s);
			}
		}
		/* running intervals on CPUs the dump has no row for */
		for (int i = 0; i < d->ntask; i++)
			for (int k = 0; k < d->task[i].iv.n; k++)
				if (d->task[i].iv.p[k].v == T_RUN &&
				    (d->task[i].iv.p[k].cpu < 0 || d->task[i].iv.p[k].cpu >= d->ncpu))
					viol(&v, "task %d runs on cpu %d " IV ", which has no cpu row", d->task[i].id,
					     d->task[i].iv.p[k].cpu, d->task[i].iv.p[k].s, d->task[i].iv.p[k].e);
		free(byc);
	}
	if (d->bad)
		viol(&v, "%d lines not understood", d->bad);
	return v.n;
}

/* ---------------------------------------------------------------- the truth check */

/* Load a truth file (write_truth) into S and D. */
static int truth_read(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[1024];

	if (!f) {
		perror(path);
		return -1;
	}
	sim_run(0, 1, 1, 0);	/* empty tables */
	for (int c = 0; c < MAXCPU; c++)
		S.cpu[c].tr.n = S.cpu[c].cs.n = 0;
	S.task[0].tr.n = 0;
	S.ntask = 0;
	free(D.w.p);
	memset(&D, 0, sizeof(D));
	while (fgets(line, sizeof(line), f)) {
		char st[32];
		int a, b, k;
		uint64_t s, e;

		if (sscanf(line, "sim %d %d %" SCNu64 " %" SCNu64, &a, &b, &s, &e) == 4) {
			S.seed = a;
			S.ncpu = b;
			S.start = s;
			S.end = e;
		} else if (sscanf(line, "task %d %31s %" SCNu64 " %" SCNu64 " %d", &a, st, &s, &e, &b) == 5) {
			if (a < TID0 || a >= TID0 + MAXTASK || (k = state_code(st)) < 0)
				goto bad;
			while (S.ntask <= a - TID0) {
				memset(&S.task[S.ntask], 0, sizeof(S.task[0]));
				S.task[S.ntask].tid = TID0 + S.ntask;
				S.ntask++;
			}
			ivs_add(&S.task[a - TID0].tr, s, e, k, b);
		} else if (sscanf(line, "cpu %d %d %" SCNu64 " %" SCNu64, &a, &b, &s, &e) == 4) {
			if (a < 0 || a >= MAXCPU)
				goto bad;
			ivs_add(&S.cpu[a].tr, s, e, b, -1);
		} else if (sscanf(line, "cstate %d %d %" SCNu64 " %" SCNu64, &a, &b, &s, &e) == 4) {
			if (a < 0 || a >= MAXCPU)
				goto bad;
			ivs_add(&S.cpu[a].cs, s, e, b, -1);
		} else if (!strncmp(line, "records\t", 8) || !strncmp(line, "wake\t", 5)) {
			continue;
		} else if (sscanf(line, "damaged %" SCNu64 " %" SCNu64, &s, &e) == 2) {
			ivs_add(&D.w, s, e, 0, -1);
		} else if (!strncmp(line, "damage\t", 7)) {
			line[strcspn(line, "\n")] = 0;
			snprintf(D.desc, sizeof(D.desc), " %.500s", line + 7);
		} else {
			goto bad;
		}
	}
	fclose(f);
	return 0;
bad:
	fprintf(stderr, "sim: %s: not a truth file: %s", path, line);
	fclose(f);
	return -1;
}

/* What one check found. */
struct res {
	uint64_t claimed, wrong;		/* task, cpu and cstate lines */
	uint64_t wrong_task, wrong_cpu, wrong_cs;
	uint64_t alive, unknown;		/* task time in the span, unknown */
	uint64_t alive_w, unknown_w;		/* within the damaged stretch */
	int nwrong, shown, show;		/* contradicting claims */
	int agree;				/* tr is claims too: its holes are unknown, not wrong, */
	uint64_t tol;				/* ... and a disagreement this short is its clock's */
	uint64_t compared;			/* ns of claims tr had a word on */
};

static void contra(struct res *r, const char *what, int id, const char *claim, int ccpu, const char *truth,
		   int tcpu, uint64_t s, uint64_t e, uint64_t a, uint64_t b)
{
	r->nwrong++;
	if (r->shown >= r->show)
		return;
	r->shown++;
	printf("  wrong: %s %d claimed %s", what, id, claim);
	if (ccpu >= 0)
		printf(" on cpu %d", ccpu);
	printf(" " IV ": truth %s", s, e, truth);
	if (tcpu >= 0)
		printf(" on cpu %d", tcpu);
	printf(" " IV " (%" PRIu64 " ns)\n", a, b, b - a);
}

/* Claims l against truth tr (disjoint, sorted): the wrong ns; kind 0 task
 * rows (state, cpu), 1 cpu rows (tid), 2 idle states.  With r->agree, tr
 * is another's claims, and what it does not claim counts for nothing. */
static uint64_t claims_vs(struct res *r, const struct ivs *l, const struct ivs *tr, int kind, int id)
{
	static const char *const what[] = { "task", "cpu", "cpu" };
	uint64_t wrong = 0;
	char cs[32], ts[32];

	for (int i = 0; i < l->n; i++) {
		const struct iv *c = &l->p[i];
		uint64_t covered = 0, at = c->s;

		if (c->e <= c->s)
			continue;
		r->claimed += c->e - c->s;
		for (int j = tr ? ivs_find(tr, c->s) : 0; tr && j < tr->n && tr->p[j].s < c->e; j++) {
			const struct iv *t = &tr->p[j];
			uint64_t a = t->s > c->s ? t->s : c->s, b = t->e < c->e ? t->e : c->e;
			int bad;

			if (b <= a)
				continue;
			r->compared += b - a;
			if (a > at && !r->agree) {	/* a hole in the truth: the task did not exist */
				wrong += a - at;
				contra(r, what[kind], id, kind ? "" : sname(c->v), c->cpu, "nothing", -1, c->s, c->e,
				       at, a);
			}
			at = b;
			covered += b - a;
			bad = kind == 0 ? t->v != c->v || (c->v == T_RUN && t->cpu != c->cpu) : t->v != c->v;
			if (!bad || (r->agree && b - a <= r->tol))
				continue;
			wrong += b - a;
			if (kind == 0) {
				contra(r, "task", id, sname(c->v), c->v == T_RUN ? c->cpu : -1, sname(t->v),
				       t->v == T_RUN ? t->cpu : -1, c->s, c->e, a, b);
			} else {
				snprintf(cs, sizeof(cs), "%s %d", kind == 1 ? "task" : "idle state", c->v);
				snprintf(ts, sizeof(ts), "%s %d", kind == 1 ? "task" : "idle state", t->v);
				contra(r, "cpu", id, cs, -1, ts, -1, c->s, c->e, a, b);
			}
		}
		if (covered < c->e - c->s && !r->agree) {
			uint64_t miss = c->e - c->s - covered;

			if (!covered || at < c->e) {
				wrong += c->e - at > miss ? miss : c->e - at;
				contra(r, what[kind], id, kind ? "time" : sname(c->v), c->cpu, "nothing", -1, c->s,
				       c->e, at, c->e);
			} else {
				wrong += miss;
			}
		}
	}
	return wrong;
}

/* Unknown task time of dump d within the windows w (NULL: the span),
 * alive tasks only: into *alive and *unknown. */
static void unknown_in(const struct dump *d, const struct ivs *w, uint64_t *alive, uint64_t *unknown)
{
	struct ivs m = { 0 };

	for (int i = 0; i < S.ntask; i++) {
		const struct task *p = &S.task[i];
		const struct row *r = dump_task((struct dump *)d, p->tid, 0);

		m.n = 0;
		if (r)
			for (int k = 0; k < r->iv.n; k++)
				ivs_add(&m, r->iv.p[k].s, r->iv.p[k].e, 0, 0);
		ivs_merge(&m);
		for (int k = 0; k < p->tr.n; k++) {
			const struct iv *t = &p->tr.p[k];
			uint64_t a = t->s > d->first ? t->s : d->first, b = t->e < d->last ? t->e : d->last;

			if (t->v < T_RUN || t->v > T_BLOCKED || b <= a)
				continue;
			if (!w) {
				*alive += b - a;
				*unknown += b - a - ivs_cover(&m, a, b);
				continue;
			}
			for (int j = ivs_find(w, a); j < w->n && w->p[j].s < b; j++) {
				uint64_t x = w->p[j].s > a ? w->p[j].s : a, y = w->p[j].e < b ? w->p[j].e : b;

				if (y <= x)
					continue;
				*alive += y - x;
				*unknown += y - x - ivs_cover(&m, x, y);
			}
		}
	}
	free(m.p);
}

/* Check dump d against the truth in S and D. */
static void truth_check(const struct dump *d, struct res *r)
{
	for (int i = 0; i < d->ntask; i++) {
		const struct row *row = &d->task[i];
		const struct task *p = tk(row->id);
		uint64_t w = claims_vs(r, &row->iv, p ? &p->tr : NULL, 0, row->id);

		r->wrong_task += w;
		r->wrong += w;
	}
	for (int c = 0; c < d->ncpu; c++) {
		const struct row *row = &d->cpu[c];
		uint64_t w1 = claims_vs(r, &row->iv, c < S.ncpu ? &S.cpu[c].tr : NULL, 1, c);
		uint64_t w2 = claims_vs(r, &row->cs, c < S.ncpu ? &S.cpu[c].cs : NULL, 2, c);

		r->wrong_cpu += w1;
		r->wrong_cs += w2;
		r->wrong += w1 + w2;
	}
	unknown_in(d, NULL, &r->alive, &r->unknown);
	unknown_in(d, &D.w, &r->alive_w, &r->unknown_w);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * a / b : 0;
}

/* sim check TRUTH STATES */
static int cmd_check(const char *truth, const char *states)
{
	struct res r = { .show = 20 };
	int nv;

	if (truth_read(truth) < 0 || dump_read(&X, states) < 0)
		return 2;
	printf("damage: %s\n", D.desc[0] ? D.desc + 1 : "none");
	truth_check(&X, &r);
	nv = invariants(&X, 20);
	printf("claimed %" PRIu64 " ns, wrong %" PRIu64 " ns (task %" PRIu64 ", cpu %" PRIu64 ", idle state %" PRIu64
	       ") in %d claims; unknown %.2f%% of the task time, %.2f%% in the damaged stretch; %d invariant violations\n",
	       r.claimed, r.wrong, r.wrong_task, r.wrong_cpu, r.wrong_cs, r.nwrong, pct(r.unknown, r.alive),
	       pct(r.unknown_w, r.alive_w), nv);
	return r.wrong || nv ? 1 : 0;
}

/* sim agree REF STATES [TOL]: STATES's claims against REF's (tc's --states
 * of two recordings of the same run, REF the more complete): where both
 * claim, they agree, but for stretches of TOL ns or less (two perf events
 * on one tracepoint take their times a few hundred ns apart). */
static int cmd_agree(const char *ref, const char *states, uint64_t tol)
{
	static struct dump R;
	struct res r = { .show = 20, .agree = 1, .tol = tol };

	if (dump_read(&R, ref) < 0 || dump_read(&X, states) < 0)
		return 2;
	for (int i = 0; i < X.ntask; i++) {
		const struct row *row = &X.task[i], *q = dump_task(&R, row->id, 0);

		r.wrong_task += claims_vs(&r, &row->iv, q ? &q->iv : NULL, 0, row->id);
	}
	for (int c = 0; c < X.ncpu; c++) {
		const struct row *q = c < R.ncpu ? &R.cpu[c] : NULL;

		r.wrong_cpu += claims_vs(&r, &X.cpu[c].iv, q ? &q->iv : NULL, 1, c);
		r.wrong_cs += claims_vs(&r, &X.cpu[c].cs, q ? &q->cs : NULL, 2, c);
	}
	r.wrong = r.wrong_task + r.wrong_cpu + r.wrong_cs;
	printf("claimed %" PRIu64 " ns, %" PRIu64 " ns of it claimed by %s too, %" PRIu64 " ns disagree (task %"
	       PRIu64 ", cpu %" PRIu64 ", idle state %" PRIu64 ") in %d claims\n", r.claimed, r.compared, ref,
	       r.wrong, r.wrong_task, r.wrong_cpu, r.wrong_cs, r.nwrong);
	return r.wrong ? 1 : 0;
}

/* sim invariants STATES */
static int cmd_invariants(const char *states)
{
	int nv;

	if (dump_read(&X, states) < 0)
		return 2;
	nv = invariants(&X, 20);
	printf("%s: %d tasks, %d cpus, %d invariant violations\n", states, X.ntask, X.ncpu, nv);
	return nv ? 1 : 0;
}

/* ---------------------------------------------------------------- run */

/* Make fd a new file at path. */
static int redirect(int fd, const char *path)
{
	int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (f < 0 || dup2(f, fd) < 0)
		return -1;
	close(f);
	return 0;
}

/* Run tc --replay path --states into out (stderr into err); its exit
 * status, or 128 + signal. */
static int run_tc(const char *tc, const char *path, const char *out, const char *err)
{
	pid_t pid;
	int st;

	fflush(NULL);
	if ((pid = fork()) < 0) {
		perror("fork");
		exit(2);
	}
	if (!pid) {
		if (redirect(1, out) < 0 || redirect(2, err) < 0)
			_exit(126);
		alarm(120);
		execl(tc, tc, "--replay", path, "--states", (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			perror("waitpid");
			exit(2);
		}
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The writer tc's own files name (tc --version), for --tcfile. */
static void tc_writer(const char *tc, const char *dir, char *w, size_t n)
{
	char out[1100], err[1100];
	FILE *f;

	snprintf(out, sizeof(out), "%s/version", dir);
	snprintf(err, sizeof(err), "%s/version.err", dir);
	snprintf(w, n, "tc 0.1");
	fflush(NULL);
	if (fork() == 0) {
		if (redirect(1, out) < 0 || redirect(2, err) < 0)
			_exit(126);
		execl(tc, tc, "--version", (char *)NULL);
		_exit(127);
	}
	wait(NULL);
	if ((f = fopen(out, "r"))) {
		if (fgets(w, n, f))
			w[strcspn(w, "\n")] = 0;
		fclose(f);
	}
	unlink(out);
	unlink(err);
}

struct stat_line {
	int seeds, failed;
	uint64_t claimed, wrong, wrong_task, wrong_cpu, wrong_cs, nwrong;
	uint64_t alive, unknown, alive_w, unknown_w, base_alive_w, base_unknown_w;
	int viol, tcfail, empty;
};

static int cmd_run(const char *tc, int from, int nseed, const int *kinds, int nk, int show, int quiet,
		   const char *keepdir, int rotate)
{
	char dir[1024], path[2048], out[2100], err[2100], writer[64];
	const char *tmp = getenv("TMPDIR");
	struct stat_line st[D_N] = { { 0 } };
	struct dump base = { 0 };
	int shown = 0, bad = 0;

	snprintf(dir, sizeof(dir), "%s/sim.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		return 2;
	}
	tc_writer(tc, dir, writer, sizeof(writer));
	for (int seed = from; seed < from + nseed; seed++) {
		for (int ki = rotate ? seed % nk : 0; ki < (rotate ? seed % nk + 1 : nk); ki++) {
			int kind = kinds[ki], be = seed & 1, long4 = seed >> 1 & 1;
			int tcfile = seed % 4 == 3 && kind != D_LATE && kind != D_PERTASK && kind != D_CPUS &&
				     kind != D_FILTER && kind != D_OVERWRITE && kind != D_PERF_END, rc, nv;
			/* a third of perf's files without sched_wakeup, as perf sched record's; not
			 * those whose command line names the events it recorded */
			int wo = seed % 3 == 2 && !tcfile && kind != D_PERTASK && kind != D_CPUS && kind != D_FILTER &&
				 kind != D_OVERWRITE;
			struct res r = { .show = shown < show ? 6 : 0 };
			struct stat_line *s = &st[kind];
			struct stat sb;
			char cmd[4096];

			snprintf(path, sizeof(path), "%s/s%d-%s.data", dir, seed, dnames[kind]);
			snprintf(out, sizeof(out), "%s.states", path);
			snprintf(err, sizeof(err), "%s.err", path);
			waking_only = wo;
			gen(seed, 0, 0, 0, kind, be, long4, tcfile, writer, path);
			snprintf(cmd, sizeof(cmd), "test/sim gen --seed %d --damage %s%s%s%s%s OUT && %s --replay OUT "
				 "--states > OUT.states && test/sim check OUT.truth OUT.states", seed, dnames[kind],
				 be ? " --be" : "", long4 ? " --long4" : "", tcfile ? " --tcfile" : "",
				 wo ? " --waking-only" : "", tc);
			rc = run_tc(tc, path, out, err);
			s->seeds++;
			if (rc == 1 && !tp_kept() && stat(err, &sb) == 0 && sb.st_size) {
				s->empty++;	/* nothing to list: tc says so and exits 1, as it should */
				unlink(path);
				snprintf(cmd, sizeof(cmd), "%s.truth", path);
				unlink(cmd);
				unlink(out);
				unlink(err);
				continue;
			}
			if (rc) {
				s->tcfail++;
				s->failed++;
				bad = 1;
				shown++;	/* said whatever --show: tc must never fail */
				printf("FAIL seed %d %s: tc exit status %d\n  %s\n", seed, dnames[kind], rc, cmd);
				continue;
			}
			dump_read(&X, out);
			if (r.show)
				printf("--- seed %d %s (%d cpus, %d tasks):%s\n", seed, dnames[kind], S.ncpu, S.ntask,
				       D.desc);
			truth_check(&X, &r);
			nv = invariants(&X, r.show);
			if (kind == D_NONE) {
				dump_free(&base);
				base = X;
				memset(&X, 0, sizeof(X));
			} else if (base.ncpu && !rotate) {
				unknown_in(&base, &D.w, &s->base_alive_w, &s->base_unknown_w);
			}
			dump_free(&X);
			s->claimed += r.claimed;
			s->wrong += r.wrong;
			s->wrong_task += r.wrong_task;
			s->wrong_cpu += r.wrong_cpu;
			s->wrong_cs += r.wrong_cs;
			s->nwrong += r.nwrong;
			s->alive += r.alive;
			s->unknown += r.unknown;
			s->alive_w += r.alive_w;
			s->unknown_w += r.unknown_w;
			s->viol += nv;
			if (r.wrong || nv) {
				s->failed++;
				bad = 1;
				if (r.show) {
					printf("FAIL seed %d %s: wrong %" PRIu64 " ns in %d claims, %d invariant violations\n"
					       "  %s\n", seed, dnames[kind], r.wrong, r.nwrong, nv, cmd);
					shown++;
					if (keepdir) {
						char k[4096];

						snprintf(k, sizeof(k), "%s/s%d-%s.data", keepdir, seed, dnames[kind]);
						gen(seed, 0, 0, 0, kind, be, long4, tcfile, writer, k);
					}
				}
			} else if (r.show) {
				printf("  ok\n");
			}
			unlink(path);
			snprintf(cmd, sizeof(cmd), "%s.truth", path);
			unlink(cmd);
			unlink(out);
			unlink(err);
		}
		if (!quiet && (seed - from + 1) % 100 == 0)
			fprintf(stderr, "sim: %d seeds\n", seed - from + 1);
	}
	dump_free(&base);
	rmdir(dir);
	/* one line per damage kind: traces, traces with wrong time or a
	 * broken invariant, ns claimed, ns wrong, contradicting pieces of
	 * claims, unknown share of the task time in the span and in the
	 * damaged stretch, the latter on the same seeds' undamaged traces,
	 * invariant violations */
	printf("%-15s %6s %6s %14s %12s %8s %9s %10s %9s %6s\n", "damage", "seeds", "failed", "claimed_ns", "wrong_ns",
	       "wrong_iv", "unknown%", "unknown%W", "none%W", "inv");
	for (int ki = 0; ki < nk; ki++) {
		const struct stat_line *s = &st[kinds[ki]];

		char base[32] = "-", w[32] = "-";

		if (s->base_alive_w)
			snprintf(base, sizeof(base), "%.2f", pct(s->base_unknown_w, s->base_alive_w));
		if (s->alive_w)
			snprintf(w, sizeof(w), "%.2f", pct(s->unknown_w, s->alive_w));
		printf("%-15s %6d %6d %14" PRIu64 " %12" PRIu64 " %8" PRIu64 " %9.2f %10s %9s %6d\n", dnames[kinds[ki]],
		       s->seeds, s->failed, s->claimed, s->wrong, s->nwrong, pct(s->unknown, s->alive), w, base,
		       s->viol);
		if (s->wrong)
			printf("%-15s %6s %6s %14s %12s   (task %" PRIu64 ", cpu %" PRIu64 ", idle state %" PRIu64 ")\n",
			       "", "", "", "", "", s->wrong_task, s->wrong_cpu, s->wrong_cs);
		if (s->tcfail)
			printf("%-15s tc failed on %d seeds\n", "", s->tcfail);
		if (s->empty)
			printf("%-15s no tracepoint record left on %d seeds (tc exits 1, saying so)\n", "", s->empty);
	}
	return bad;
}

/* sim events: the simulated records from..to (ns) that name tid (as their
 * task or a field; 0: all), kept or left out by the damage, one a line:
 *   TIME CPU [-] KIND fields (current task)
 * and the truth of tid over that stretch. */
static void cmd_events(int tid, uint64_t from, uint64_t to)
{
	static const char *const kn[] = { "switch", "wakeup", "wakeup_new", "waking", "process_fork",
					  "process_exec", "process_exit", "migrate", "cpu_idle" };

	for (size_t i = 0; i < S.nrec; i++) {
		const struct rec *r = &S.rec[i];
		int names = r->kind == K_FORK || r->kind == K_EXIT ? r->c == tid || r->d == tid :
			    r->kind == K_COMM ? r->b == tid : r->kind != K_IDLE && (r->a == tid || r->b == tid);

		if (r->t < from || r->t > to || (tid && r->tid != tid && !names))
			continue;
		printf("%" PRIu64 " cpu%d %s ", r->t, r->cpu, D.drop[i] ? "LEFT OUT " : D.late[i] ? "LATE " : "");
		switch (r->kind) {
		case K_SWITCH:
			printf("switch %d -> %d prev_state 0x%" PRIx64, r->a, r->b, (uint64_t)r->v);
			break;
		case K_MIGRATE:
			printf("migrate %d cpu%d -> cpu%d", r->a, r->b, r->c);
			break;
		case K_IDLE:
			printf("cpu_idle %d", (int)r->v);
			break;
		case K_PFORK:
			printf("process_fork %d -> %d", r->a, r->b);
			break;
		case K_COMM:
			printf("COMM %d %s%s", r->b, r->s1, r->v ? " (exec)" : "");
			break;
		case K_FORK:
		case K_EXIT:
			printf("%s tid %d (parent %d)", r->kind == K_FORK ? "FORK" : "EXIT", r->c, r->d);
			break;
		default:
			printf("%s %d target_cpu %d", kn[r->kind], r->a, r->b);
		}
		printf(" (current %d%s)\n", r->tid, r->flags & (HARDIRQ | SOFTIRQ) ? ", irq" : "");
	}
	for (int k = 0; k < D.nlost; k++)
		if (D.lost[k].t >= from && D.lost[k].t <= to)
			printf("%" PRIu64 " cpu%d LOST %" PRId64 " records\n", D.lost[k].t, D.lost[k].cpu, D.lost[k].v);
	if (tk(tid)) {
		const struct ivs *l = &tk(tid)->tr;

		printf("truth of %d:\n", tid);
		for (int k = 0; k < l->n; k++)
			if (l->p[k].e >= from && l->p[k].s <= to)
				printf("  %s on cpu %d [%" PRIu64 ", %" PRIu64 ")\n", tnames[l->p[k].v], l->p[k].cpu,
				       l->p[k].s, l->p[k].e);
	}
	printf("damage:%s\n", D.desc[0] ? D.desc : " none");
}

/* ---------------------------------------------------------------- main */

static int usage(void)
{
	fprintf(stderr,
		"usage: sim gen --seed N [--cpus C] [--tasks M] [--steps S] [--damage KIND] [--be] [--long4]\n"
		"               [--tcfile] [--waking-only] [--writer 'tc VERSION'] [--pass NS] [--maxtask T] OUT\n"
		"       sim check OUT.truth STATES\n"
		"       sim agree REF.states STATES [TOL_NS]  (where both claim, they agree)\n"
		"       sim invariants STATES\n"
		"       sim events --seed N [gen's options] [--tid T] [--from NS] [--to NS]\n"
		"       sim run --tc PATH [--seeds N] [--from S] [--damage all|KIND[,KIND...]] [--show N]\n"
		"               [--keep DIR] [--rotate] [--quiet]\n"
		"damage kinds: none idle_out switch_out lost gap late window sideband_early all sampled pertask cpus filter overwrite\n"
		"              perf_end\n");
	return 2;
}

static int damage_kind(const char *s)
{
	for (int k = 0; k < D_N; k++)
		if (!strcmp(s, dnames[k]))
			return k;
	fprintf(stderr, "sim: no damage kind %s\n", s);
	exit(2);
}

int main(int argc, char **argv)
{
	int seed = 0, ncpu = 0, ntask = 0, steps = 0, kind = 0, be = 0, long4 = 0, tcfile = 0;
	int nseed = 300, from = 1, show = 5, quiet = 0, kinds[D_N], nk = 0, rotate = 0;
	const char *out = NULL, *tc = NULL, *writer = "tc 0.1", *keep = NULL;
	int tid = 0;
	uint64_t efrom = 0, eto = UINT64_MAX;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "check"))
		return argc == 4 ? cmd_check(argv[2], argv[3]) : usage();
	if (!strcmp(argv[1], "agree"))
		return argc == 4 || argc == 5 ? cmd_agree(argv[2], argv[3], argc == 5 ? strtoull(argv[4], NULL, 10) : 0) :
		       usage();
	if (!strcmp(argv[1], "invariants"))
		return argc == 3 ? cmd_invariants(argv[2]) : usage();
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--be")) {
			be = 1;
		} else if (!strcmp(a, "--long4")) {
			long4 = 1;
		} else if (!strcmp(a, "--tcfile")) {
			tcfile = 1;
		} else if (!strcmp(a, "--waking-only")) {
			waking_only = 1;
		} else if (!strcmp(a, "--quiet")) {
			quiet = 1;
		} else if (!strcmp(a, "--rotate")) {
			rotate = 1;
		} else if (v && !strcmp(a, "--seed")) {
			seed = atoi(v), i++;
		} else if (v && !strcmp(a, "--tid")) {
			tid = atoi(v), i++;
		} else if (v && !strcmp(a, "--from") && !strcmp(argv[1], "events")) {
			efrom = strtoull(v, NULL, 10), i++;
		} else if (v && !strcmp(a, "--to")) {
			eto = strtoull(v, NULL, 10), i++;
		} else if (v && !strcmp(a, "--cpus")) {
			ncpu = atoi(v), i++;
		} else if (v && !strcmp(a, "--tasks")) {
			ntask = atoi(v), i++;
		} else if (v && !strcmp(a, "--maxtask")) {
			max_tasks = atoi(v), i++;
		} else if (v && !strcmp(a, "--steps")) {
			steps = atoi(v), i++;
		} else if (v && !strcmp(a, "--pass")) {
			pass_ns = strtoull(v, NULL, 10), i++;
		} else if (v && !strcmp(a, "--seeds")) {
			nseed = atoi(v), i++;
		} else if (v && !strcmp(a, "--from")) {
			from = atoi(v), i++;
		} else if (v && !strcmp(a, "--show")) {
			show = atoi(v), i++;
		} else if (v && !strcmp(a, "--tc")) {
			tc = v, i++;
		} else if (v && !strcmp(a, "--writer")) {
			writer = v, i++;
		} else if (v && !strcmp(a, "--keep")) {
			keep = v, i++;
		} else if (v && !strcmp(a, "--damage")) {
			char buf[256], *p, *save = NULL;

			snprintf(buf, sizeof(buf), "%s", v);
			i++;
			nk = 0;
			for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
				kind = damage_kind(p);
				if (nk < D_N)
					kinds[nk++] = kind;
			}
		} else if (a[0] != '-' && !out) {
			out = a;
		} else {
			return usage();
		}
	}
	if (!strcmp(argv[1], "gen")) {
		if (!out)
			return usage();
		gen(seed, ncpu, ntask, steps, kind, be, long4, tcfile, writer, out);
		return 0;
	}
	if (!strcmp(argv[1], "events")) {
		int nround, *round;

		perf_end = kind == D_PERF_END;
		sim_run(seed, ncpu, ntask, steps);
		round = rounds(&nround);
		damage(kind, nround, round);
		cmd_events(tid, efrom, eto);
		free(round);
		return 0;
	}
	if (!strcmp(argv[1], "run")) {
		if (!tc)
			return usage();
		if (!nk || (nk == 1 && kinds[0] == D_ALL && !strcmp(argv[argc - 1], "all"))) {
			nk = 0;
			for (int k = 0; k < D_N; k++)
				kinds[nk++] = k;
		}
		if (kinds[0] != D_NONE) {	/* none first: the baseline of the others */
			memmove(kinds + 1, kinds, nk * sizeof(int));
			kinds[0] = D_NONE;
			nk++;
			for (int k = 1; k < nk; k++)
				if (kinds[k] == D_NONE)
					memmove(kinds + k, kinds + k + 1, (--nk - k) * sizeof(int));
		}
		return cmd_run(tc, from, nseed, kinds, nk, show, quiet, keep, rotate);
	}
	return usage();
}
