// SPDX-License-Identifier: GPL-2.0-only
/*
 * irqload: raise interrupts on purpose, for the -Q tests (t_irq.sh).
 *
 *   irqload PACKETS WRITES FILE
 *
 * Sends PACKETS UDP datagrams over loopback to itself (NET_RX softirqs),
 * writes WRITES 4 KiB blocks to FILE with O_DIRECT and fdatasync (the
 * disk's hardirqs and BLOCK softirqs), and sleeps 1 ms twenty times
 * (TIMER / HRTIMER softirqs).  Prints what it did and its pid.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	long packets, writes, got = 0;
	int r, s, fd;
	void *blk;
	char buf[64] = "irqload";

	if (argc != 4) {
		fprintf(stderr, "usage: irqload PACKETS WRITES FILE\n");
		return 2;
	}
	packets = atol(argv[1]);
	writes = atol(argv[2]);
	r = socket(AF_INET, SOCK_DGRAM, 0);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	if (r < 0 || s < 0 || bind(r, (struct sockaddr *)&a, sizeof(a)) || getsockname(r, (struct sockaddr *)&a, &al)) {
		perror("irqload: socket");
		return 1;
	}
	for (long i = 0; i < packets; i++) {
		if (sendto(s, buf, sizeof(buf), 0, (struct sockaddr *)&a, al) < 0)
			perror("irqload: sendto");
		if (recv(r, buf, sizeof(buf), 0) > 0)
			got++;
	}
	fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0600);
	if (fd < 0)
		fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0600);	/* tmpfs: no O_DIRECT */
	if (fd < 0 || posix_memalign(&blk, 4096, 4096)) {
		perror("irqload: open");
		return 1;
	}
	memset(blk, 0x5a, 4096);
	for (long i = 0; i < writes; i++)
		if (write(fd, blk, 4096) != 4096 || fdatasync(fd))
			perror("irqload: write");
	close(fd);
	unlink(argv[3]);
	for (int i = 0; i < 20; i++)
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	printf("%ld packets sent, %ld received, %ld blocks written by pid %d\n", packets, got, writes, (int)getpid());
	return 0;
}
