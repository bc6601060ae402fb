// SPDX-License-Identifier: GPL-2.0-only
/*
 * readfloor FILE [RUNS]: the floor of any reader of FILE, two ways: each
 * 64-byte line of it touched once, read() 256 KiB at a time into one
 * buffer (as tc reads a recording), and mapped (MAP_POPULATE) as tc read
 * one until December 2026.  Prints the medians of RUNS (default 9)
 * alternating runs of each, in ms and ns per 4 KiB page.  make bench
 * (test/bench_read.sh) puts them next to tc and cat; on a VM whose page
 * table updates are dear (an AMD EPYC guest under PVM) the mapped way
 * takes two to four times as long on a file written not long before.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { BUF = 256 << 10, MAXRUNS = 99 };

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* One pass of read() over fd's n bytes into buf; the lines' sum. */
static uint64_t by_read(int fd, uint8_t *buf, uint64_t n)
{
	uint64_t s = 0, off = 0;
	ssize_t k;

	while (off < n && (k = pread(fd, buf, BUF, off)) > 0) {
		for (ssize_t i = 0; i < k; i += 64)
			s += buf[i];
		off += k;
	}
	return s;
}

/* One pass over a mapping of fd's n bytes; the lines' sum (0 if it
 * cannot be mapped: a file of 64 bytes or more has a line that is not). */
static uint64_t by_map(int fd, uint64_t n)
{
	uint8_t *p = mmap(NULL, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	uint64_t s = 0;

	if (p == MAP_FAILED)
		return 0;
	for (uint64_t i = 0; i < n; i += 64)
		s += p[i];
	munmap(p, n);
	return s;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[2]) : 9, fd;
	double tr[MAXRUNS], tm[MAXRUNS], pages;
	uint8_t *buf = malloc(BUF);
	struct stat st;

	if (argc < 2 || (fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) < 0 || !buf ||
	    st.st_size < 64 || runs < 1 || runs > MAXRUNS) {
		fprintf(stderr, "usage: readfloor FILE [RUNS 1-%d] (a readable file of 64 bytes or more)\n", MAXRUNS);
		return 2;
	}
	by_read(fd, buf, st.st_size);	/* into the page cache, and buf's pages touched */
	for (int i = 0; i < runs; i++) {
		double t0 = now_ms(), t1;
		uint64_t a = by_read(fd, buf, st.st_size), b;

		t1 = now_ms();
		b = by_map(fd, st.st_size);
		tr[i] = t1 - t0;
		tm[i] = now_ms() - t1;
		if (a != b) {
			fprintf(stderr, "readfloor: %s: %s\n", argv[1],
				b ? "the mapping reads otherwise than read() (the file changed?)" : "cannot be mapped");
			return 1;
		}
	}
	qsort(tr, runs, sizeof(double), cmp_d);
	qsort(tm, runs, sizeof(double), cmp_d);
	pages = (double)st.st_size / 4096;
	printf("read %.2f ms (%.0f ns a page), mapped %.2f ms (%.0f ns a page), mapped/read %.2f\n",
	       tr[runs / 2], tr[runs / 2] * 1e6 / pages, tm[runs / 2], tm[runs / 2] * 1e6 / pages,
	       tm[runs / 2] / tr[runs / 2]);
	return 0;
}
