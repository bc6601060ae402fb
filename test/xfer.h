// SPDX-License-Identifier: GPL-2.0-only
/* The test workloads' one byte over a pipe (pingpong, chain, schedtruth). */
#ifndef TEST_XFER_H
#define TEST_XFER_H
#include <errno.h>
#include <unistd.h>

/* Move one byte: write it to fd if out, else read it; retries on EINTR.
 * Returns 0, or -1 on error or EOF. */
static int xfer(int fd, int out)
{
	char c = 'x';
	ssize_t n;

	do
		n = out ? write(fd, &c, 1) : read(fd, &c, 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : -1;
}
#endif
