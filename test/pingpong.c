// SPDX-License-Identifier: GPL-2.0-only
/*
 * pingpong N [PAUSE_US]: a workload with a known number of context switches.
 *
 * The parent forks a child; they do exactly N round trips over two pipes
 * (parent writes one byte, child reads it and writes it back, parent reads
 * it). Each round trip blocks each side at least once in the usual case, so
 * a trace shows switches of both pids. On success the parent prints
 * "pids PARENT CHILD" to stdout, after the child has exited; both exit 0.
 * With PAUSE_US, the parent sleeps so many microseconds after each round
 * trip: a steady, light workload (the view tests run several at once, and
 * every tc traces every one of them).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "xfer.h"

int main(int argc, char **argv)
{
	int down[2], up[2], status;
	long i, n, pause = 0;
	char *end;
	pid_t child;

	if (argc < 2 || argc > 3 || (n = strtol(argv[1], &end, 10)) < 0 || *end ||
	    end == argv[1] ||
	    (argc == 3 && ((pause = strtol(argv[2], &end, 10)) < 0 || pause > 999999 ||
			   *end || end == argv[2]))) {
		fprintf(stderr, "usage: pingpong ROUND_TRIPS [PAUSE_US]\n");
		return 2;
	}
	if (pipe(down) < 0 || pipe(up) < 0) {
		perror("pingpong: pipe");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("pingpong: fork");
		return 1;
	}
	if (child == 0) {
		close(down[1]);
		close(up[0]);
		for (i = 0; i < n; i++)
			if (xfer(down[0], 0) < 0 || xfer(up[1], 1) < 0)
				_exit(1);
		_exit(0);
	}
	close(down[0]);
	close(up[1]);
	for (i = 0; i < n; i++) {
		if (xfer(down[1], 1) < 0 || xfer(up[0], 0) < 0) {
			fprintf(stderr, "pingpong: pipe broke after %ld\n", i);
			break;
		}
		if (pause) {
			struct timespec ts = { 0, pause * 1000 };

			while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
				;
		}
	}
	close(down[1]);
	close(up[0]);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR) {
			perror("pingpong: waitpid");
			return 1;
		}
	if (i != n || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return 1;
	printf("pids %d %d\n", (int)getpid(), (int)child);
	return 0;
}
