// SPDX-License-Identifier: GPL-2.0-only
/*
 * evilname [SECONDS]: a workload with a hostile task name.
 *
 * It names itself "ESC[2J ESC]0;pwn BEL evil" with prctl(PR_SET_NAME) (the
 * kernel keeps the first 15 bytes): a clear-screen and a set-title sequence
 * that a viewer printing task names raw would obey.  Then it sleeps 1 ms at
 * a time for SECONDS (default 5), so it shows up in sched_switch events
 * under that name, and exits 0.
 */
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 5;
	struct timespec t0, t, ms = { 0, 1000000 };

	if (prctl(PR_SET_NAME, "\x1b[2J\x1b]0;pwn\x07" "evil", 0, 0, 0) < 0)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		nanosleep(&ms, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
