// SPDX-License-Identifier: GPL-2.0-only
/*
 * chain: a wakeup chain of four tasks over pipes, for the waker chain test.
 *
 * A (this process) forks B, C and D, each blocked in a read of its own
 * pipe. Once /proc says all three sleep, A writes one byte to B's pipe; B
 * reads it and writes one to C's; C to D's. So D was woken by C, C by B
 * and B by A: the chain of D's wakeup reads D<-C<-B<-A. On success A
 * prints "tids A B C D" after the others have exited; all exit 0.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "xfer.h"

/* Wait up to 5 s for pid to sleep (state S in /proc/PID/stat). */
static int sleeping(pid_t pid)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 500; i++) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = 0;
		if ((p = strrchr(buf, ')')) && p[1] == ' ' && p[2] == 'S')
			return 0;
		nanosleep(&ts, NULL);
	}
	return -1;
}

int main(void)
{
	int fd[3][2], status, ok = 1;
	pid_t kid[3];

	for (int i = 0; i < 3; i++)
		if (pipe(fd[i]) < 0) {
			perror("chain: pipe");
			return 1;
		}
	for (int i = 0; i < 3; i++) {
		kid[i] = fork();
		if (kid[i] < 0) {
			perror("chain: fork");
			return 1;
		}
		if (kid[i] == 0) {	/* B, C, D: read mine, write the next one's */
			if (xfer(fd[i][0], 0) < 0 || (i < 2 && xfer(fd[i + 1][1], 1) < 0))
				_exit(1);
			_exit(0);
		}
	}
	for (int i = 0; i < 3; i++)
		if (sleeping(kid[i]) < 0) {
			fprintf(stderr, "chain: %d does not sleep\n", (int)kid[i]);
			ok = 0;
		}
	if (xfer(fd[0][1], 1) < 0) {
		perror("chain: write");
		ok = 0;
	}
	for (int i = 0; i < 3; i++)
		while (waitpid(kid[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
			if (errno != EINTR) {
				ok = 0;
				break;
			}
	if (!ok)
		return 1;
	printf("tids %d %d %d %d\n", (int)getpid(), (int)kid[0], (int)kid[1], (int)kid[2]);
	return 0;
}
