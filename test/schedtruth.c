// SPDX-License-Identifier: GPL-2.0-only
/*
 * schedtruth N ROUNDS: a workload whose every process's CPU time, wait for
 * a CPU and runs the kernel itself counts, for tc's claims to be checked
 * against (test/t_truth.sh: truth_schedstat).
 *
 * N children, in pairs, each ROUNDS times: spin a while (its length varies
 * with the child and the round), pass a byte to its partner over a pipe and
 * wait for one back, sleep 0-2 ms.  More children than CPUs, so some wait
 * runnable.  Once a child has exited, the parent (waitid WNOWAIT: not yet
 * reaped, so its counters stay) lets its last switch-out pass, reads its
 * /proc/PID/schedstat (ns on a CPU, ns waiting runnable, times run) and
 * prints "PID EXEC_NS DELAY_NS RUNS", then reaps it.  Exit 0 when every
 * child exited 0 and was read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "xfer.h"

/* Spin on the CPU for about us microseconds (no system call but the clock's,
 * which the vDSO answers). */
static void spin(long us)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

/* Child k of a pair: the first writes then reads, the second reads then
 * writes. */
static int child(int k, long rounds, int rd, int wr)
{
	for (long i = 0; i < rounds; i++) {
		struct timespec s = { 0, ((k * 7 + i * 13) % 3) * 1000000L };

		spin(100 + (k * 37 + i * 11) % 400);
		if (k % 2 == 0 ? xfer(wr, 1) || xfer(rd, 0) : xfer(rd, 0) || xfer(wr, 1))
			return 1;
		nanosleep(&s, NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0, bad = 0;
	long rounds = argc > 2 ? atol(argv[2]) : 0;

	if (n < 2 || n > 64 || n % 2 || rounds < 1) {
		fprintf(stderr, "usage: schedtruth N ROUNDS (N even, 2..64)\n");
		return 2;
	}
	for (int k = 0; k < n; k += 2) {
		int a[2], b[2];

		if (pipe(a) || pipe(b)) {
			perror("pipe");
			return 1;
		}
		for (int j = 0; j < 2; j++) {
			pid_t p = fork();

			if (p < 0) {
				perror("fork");
				return 1;
			}
			if (p == 0)
				_exit(j ? child(k + 1, rounds, a[0], b[1]) : child(k, rounds, b[0], a[1]));
		}
		close(a[0]), close(a[1]), close(b[0]), close(b[1]);
	}
	for (int left = n; left > 0; left--) {
		siginfo_t si = { 0 };
		struct timespec settle = { 0, 20 * 1000000L };
		unsigned long long exec, delay, runs;
		char path[64];
		FILE *f;
		int ok;

		if (waitid(P_ALL, 0, &si, WEXITED | WNOWAIT) < 0) {
			perror("waitid");
			return 1;
		}
		nanosleep(&settle, NULL);	/* its last switch-out (do_task_dead) */
		snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)si.si_pid);
		f = fopen(path, "r");
		ok = f && fscanf(f, "%llu %llu %llu", &exec, &delay, &runs) == 3;
		if (f)
			fclose(f);
		if (ok)
			printf("%d %llu %llu %llu\n", (int)si.si_pid, exec, delay, runs);
		else
			fprintf(stderr, "schedtruth: cannot read %s\n", path);
		waitpid(si.si_pid, NULL, 0);
		bad |= !ok || si.si_code != CLD_EXITED || si.si_status != 0;
	}
	fflush(stdout);
	return bad;
}
