// SPDX-License-Identifier: GPL-2.0-only
/*
 * iorw [DIR]: a workload with a known set of I/O system calls, for the -I
 * tests. After opening its files it does, in this order and nothing else
 * of the traced families (read, write, sync, poll; see io_calls in tc.c):
 *
 *   7 x read(/dev/zero, 1000)       7 calls, 7000 bytes read
 *   5 x write(/dev/null, 333)       5 calls, 1665 bytes written
 *   1 x read(-1, 1)                 fails with EBADF: one error, no bytes
 *   1 x fsync(DIR/iorw.sync)        a file it created (DIR defaults to /tmp)
 *   1 x poll(/dev/zero, 0 ms)       returns at once
 *
 * 15 calls, 7000 bytes read, 1665 written, 1 error. It prints nothing (a
 * message would be one more write). Built static (see the Makefile), so no
 * dynamic loader reads a library before main; glibc's static start-up makes
 * none of these calls either (strace: brk, arch_prctl, set_tid_address,
 * set_robust_list, rseq, prlimit64, readlink, getrandom, mprotect). Exits 0
 * when every call did what it should, 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NREAD 7
#define RSIZE 1000
#define NWRITE 5
#define WSIZE 333

int main(int argc, char **argv)
{
	static char buf[RSIZE];
	char path[4096];
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	int zero, null, f, bad = 0, i;
	struct pollfd p;

	zero = open("/dev/zero", O_RDONLY);
	null = open("/dev/null", O_WRONLY);
	snprintf(path, sizeof(path), "%s/iorw.sync", dir);
	f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (zero < 0 || null < 0 || f < 0)
		return 1;
	for (i = 0; i < NREAD; i++)
		bad |= read(zero, buf, RSIZE) != RSIZE;
	for (i = 0; i < NWRITE; i++)
		bad |= write(null, buf, WSIZE) != WSIZE;
	bad |= read(-1, buf, 1) != -1 || errno != EBADF;
	bad |= fsync(f) != 0;
	p.fd = zero;
	p.events = POLLIN;
	bad |= poll(&p, 1, 0) != 1;
	unlink(path);
	return bad;
}
