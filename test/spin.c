// SPDX-License-Identifier: GPL-2.0-only
/*
 * spin SECONDS: use a CPU for SECONDS of wall time, then exit 0.  A load
 * that ends by itself, also when run at SCHED_FIFO (the flight recorder
 * tests), so that nothing can keep spinning after a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	struct timespec t0, t;
	double secs = argc == 2 ? atof(argv[1]) : -1;

	if (!(secs >= 0 && secs <= 600)) {
		fprintf(stderr, "usage: spin SECONDS (at most 600)\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	return 0;
}
