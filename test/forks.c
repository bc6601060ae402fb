// SPDX-License-Identifier: GPL-2.0-only
/*
 * forks N: fork N children one after another, each exiting at once, the
 * parent waiting for each; exits 0.  A workload of N short-lived tasks:
 * past the task table's size (16384) tc evicts one for each new one
 * (make bench: the victims' search).
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	long n = argc == 2 ? strtol(argv[1], NULL, 10) : -1;

	if (n < 0) {
		fprintf(stderr, "usage: forks N\n");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("forks: fork");
			return 1;
		}
		if (!p)
			_exit(0);
		if (waitpid(p, NULL, 0) != p) {
			perror("forks: waitpid");
			return 1;
		}
	}
	return 0;
}
