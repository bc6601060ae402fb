// SPDX-License-Identifier: GPL-2.0-only
/*
 * runtime CMD [ARG...]: run CMD (stdout and stderr as given) and print on
 * fd 3 "WALL_US USER_S SYS_S MAXRSS_KIB": the wall time from the fork to
 * the child's end (its exec included, nothing of a shell or of GNU time's
 * own start), and the child's CPU time and peak RSS (wait4).  Exits with
 * the child's status (128 + signal if killed; 127 if it cannot be run).
 * make bench's clock: /usr/bin/time around a command costs a fork and an
 * exec of its own (3-8 ms on the bench's VM), added to every command
 * alike, which hid part of the difference between fast ones.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	FILE *out;
	pid_t pid;
	int st;

	if (argc < 2 || !(out = fdopen(3, "w"))) {
		fprintf(stderr, "usage: runtime CMD [ARG...] 3>FILE\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("runtime: fork");
		return 2;
	}
	if (pid == 0) {
		close(3);
		execvp(argv[1], argv + 1);
		perror(argv[1]);
		_exit(127);
	}
	if (wait4(pid, &st, 0, &ru) != pid) {
		perror("runtime: wait4");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(out, "%lld %ld.%06ld %ld.%06ld %ld\n",
		(long long)(t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000,
		(long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec,
		(long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec, ru.ru_maxrss);
	fclose(out);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
