// SPDX-License-Identifier: GPL-2.0-only
/*
 * ringfloor CMD [ARG...]: run CMD while tc's default tracepoints write
 * their samples (tc's sample fields: TID, TIME, CPU, RAW, IDENTIFIER) into
 * one ring per CPU, as tc --record opens them, and a reader that does
 * nothing but free what was written (data_tail = data_head).  The time CMD
 * takes under it is the floor of any recorder of those events: what the
 * kernel spends writing them.  make bench (test/bench_load.sh) puts it next
 * to tc and perf record.  Prints the bytes the rings took to stderr; exits
 * with CMD's status.  Needs root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define PAGES 512	/* 2 MiB rings of 4 KiB pages, tc's default on this machine */
#define MAXCPU 256

static const char *const tps[] = {
	"sched/sched_switch", "sched/sched_wakeup", "sched/sched_wakeup_new", "sched/sched_waking",
	"sched/sched_process_fork", "sched/sched_process_exec", "sched/sched_process_exit",
	"sched/sched_migrate_task", "power/cpu_idle",
};

/* The id of tracepoint tp ("sys/name"), or -1. */
static long tp_id(const char *tp)
{
	static const char *const roots[] = { "/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events" };
	char path[256];
	long id = -1;

	for (size_t i = 0; i < 2 && id < 0; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/id", roots[i], tp);
		if ((f = fopen(path, "r"))) {
			if (fscanf(f, "%ld", &id) != 1)
				id = -1;
			fclose(f);
		}
	}
	return id;
}

int main(int argc, char **argv)
{
	struct pollfd pfd[MAXCPU];
	struct perf_event_mmap_page *pc[MAXCPU];
	long psz = sysconf(_SC_PAGESIZE), ncpu = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t bytes = 0;
	int nr = 0, st = 0;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: ringfloor CMD [ARG...]\n");
		return 2;
	}
	if (ncpu > MAXCPU)
		ncpu = MAXCPU;
	for (int c = 0; c < ncpu; c++) {
		int lead = -1;

		for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
			struct perf_event_attr a = {
				.type = PERF_TYPE_TRACEPOINT, .size = sizeof(a), .sample_period = 1,
				.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
					       PERF_SAMPLE_RAW | PERF_SAMPLE_IDENTIFIER,
				.sample_id_all = 1, .use_clockid = 1, .clockid = CLOCK_MONOTONIC,
				.watermark = 1, .wakeup_watermark = PAGES * psz / 4,
			};
			long id = tp_id(tps[i]);
			int fd;

			if (id < 0)
				continue;
			a.config = id;
			fd = syscall(__NR_perf_event_open, &a, -1, c, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0)
				break;	/* an offline CPU */
			if (lead < 0) {
				void *m = mmap(NULL, (PAGES + 1) * psz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

				if (m == MAP_FAILED) {
					perror("ringfloor: mmap");
					return 1;
				}
				lead = fd;
				pc[nr] = m;
				pfd[nr].fd = fd;
				pfd[nr++].events = POLLIN;
			} else if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, lead) < 0) {
				perror("ringfloor: PERF_EVENT_IOC_SET_OUTPUT");
				return 1;
			}
		}
	}
	if (!nr) {
		fprintf(stderr, "ringfloor: no tracepoint could be opened (root? tracefs?): %s\n", strerror(errno));
		return 1;
	}
	if ((pid = fork()) == 0) {
		execvp(argv[1], argv + 1);
		perror("ringfloor: exec");
		_exit(127);
	}
	while (waitpid(pid, &st, WNOHANG) == 0) {
		poll(pfd, nr, 250);
		for (int i = 0; i < nr; i++) {
			uint64_t head = __atomic_load_n(&pc[i]->data_head, __ATOMIC_ACQUIRE);

			bytes += head - pc[i]->data_tail;
			__atomic_store_n(&pc[i]->data_tail, head, __ATOMIC_RELEASE);
		}
	}
	fprintf(stderr, "ringfloor: %llu bytes through %d rings\n", (unsigned long long)bytes, nr);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
