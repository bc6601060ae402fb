// SPDX-License-Identifier: GPL-2.0-only
/*
 * slowpty: run a command on a pseudo-terminal that is read no faster than a
 * serial line carries, for t_serial.sh.
 *
 *   slowpty [-r BYTES_PER_S] [-c COLS] [-l ROWS] [-k MS:KEYS]... [-t MS]
 *           -o OUT -- COMMAND [ARGS...]
 *
 * The command gets a new pty of COLS x ROWS (default 80 x 24) at 115200
 * baud as its controlling terminal, stdin, stdout and stderr.  slowpty reads
 * what it writes at most BYTES_PER_S (default 11520, 115200 baud at 10 bits
 * a byte), BATCH bytes at a time once the line has carried them (a UART's
 * FIFO: never more than FIFO bytes ahead of the line), and writes it to OUT.  Each
 * -k types KEYS (C escapes \e \n \r \\ \xHH) MS milliseconds after the
 * start.  After -t MS (default 10000) the command gets SIGTERM, then SIGKILL
 * a second later.
 *
 * The timing log goes to stdout, one line per event, times in microseconds
 * since the command was started:
 *
 *   r T OFFSET LEN BACKLOG   LEN bytes read at T; OFFSET is their place in
 *                            OUT; BACKLOG is what the pty still holds for
 *                            the reader after the read (FIONREAD)
 *   k T OFFSET               the keys of a -k written at T, when OFFSET
 *                            bytes had been read
 *   x T STATUS               the command ended (exit status, or 128+signal)
 *   e T OFFSET               end of output (all read)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

enum { FIFO = 64, BATCH = 32, MAX_KEYS = 32 };

struct key {
	long ms;
	char text[64];
	size_t len;
};

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void usage(void)
{
	fputs("usage: slowpty [-r BYTES_PER_S] [-c COLS] [-l ROWS] [-k MS:KEYS]... [-t MS] "
	      "-o OUT -- COMMAND [ARGS...]\n", stderr);
	exit(2);
}

/* Parse "MS:KEYS" with C escapes into k; false if malformed. */
static int key_parse(const char *s, struct key *k)
{
	char *end;

	k->ms = strtol(s, &end, 10);
	if (*end != ':' || k->ms < 0)
		return 0;
	k->len = 0;
	for (s = end + 1; *s && k->len < sizeof(k->text); s++) {
		char c = *s;

		if (c == '\\' && s[1]) {
			s++;
			c = *s == 'e' ? 27 : *s == 'n' ? '\n' : *s == 'r' ? '\r' : *s;
			if (*s == 'x' && s[1] && s[2]) {
				char hex[3] = { s[1], s[2], 0 };

				c = (char)strtol(hex, NULL, 16);
				s += 2;
			}
		}
		k->text[k->len++] = c;
	}
	return 1;
}

/* The reader: a token bucket of rate bytes/s holding at most FIFO bytes,
 * read when it holds BATCH (or the command has ended). */
static void pump(int m, FILE *out, uint64_t t0, long rate, struct key *keys, int nkeys,
		 long limit_ms, pid_t pid)
{
	uint64_t got = 0, last = t0;
	double tokens = FIFO;
	int status = -1, nextkey = 0, killed = 0;

	for (;;) {
		uint64_t now = now_us();
		struct pollfd p = { .fd = m, .events = POLLIN };
		struct timespec wait = { 0, 5000000 };

		tokens += (now - last) * (double)rate / 1e6;
		if (tokens > FIFO)
			tokens = FIFO;
		last = now;
		while (nextkey < nkeys && (long)((now - t0) / 1000) >= keys[nextkey].ms) {
			if (write(m, keys[nextkey].text, keys[nextkey].len) < 0)
				perror("slowpty: write");
			printf("k %llu %llu\n", (unsigned long long)(now - t0), (unsigned long long)got);
			nextkey++;
		}
		if (status < 0) {
			pid_t w = waitpid(pid, &status, WNOHANG);

			if (w == pid) {
				status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
				printf("x %llu %d\n", (unsigned long long)(now - t0), status);
			} else {
				status = -1;
				if (!killed && (long)((now - t0) / 1000) >= limit_ms) {
					kill(pid, SIGTERM);
					killed = 1;
				} else if (killed == 1 && (long)((now - t0) / 1000) >= limit_ms + 1000) {
					kill(pid, SIGKILL);
					killed = 2;
				}
			}
		}
		if (tokens >= BATCH || (status >= 0 && tokens >= 1)) {
			char buf[FIFO];
			ssize_t n = read(m, buf, (size_t)tokens);

			if (n > 0) {
				int backlog = 0;

				fwrite(buf, 1, n, out);
				ioctl(m, FIONREAD, &backlog);
				printf("r %llu %llu %zd %d\n", (unsigned long long)(now - t0),
				       (unsigned long long)got, n, backlog);
				got += n;
				tokens -= n;
				continue;
			}
			if (n < 0 && errno != EAGAIN && errno != EINTR) {	/* EIO: no writer left */
				if (status >= 0)
					break;
				usleep(1000);
				continue;
			}
		}
		if (tokens < BATCH) {	/* the line is busy: no spinning on POLLIN */
			wait.tv_nsec = (long)((BATCH - tokens) * 1e9 / rate) + 1000;
			nanosleep(&wait, NULL);
		} else {
			ppoll(&p, 1, &wait, NULL);
		}
	}
	printf("e %llu %llu\n", (unsigned long long)(now_us() - t0), (unsigned long long)got);
}

int main(int argc, char **argv)
{
	struct key keys[MAX_KEYS];
	int nkeys = 0, m, opt;
	long rate = 11520, limit_ms = 10000;
	struct winsize ws = { .ws_col = 80, .ws_row = 24 };
	struct termios tio;
	const char *outpath = NULL;
	FILE *out;
	pid_t pid;
	uint64_t t0;

	while ((opt = getopt(argc, argv, "+r:c:l:k:t:o:")) != -1) {
		switch (opt) {
		case 'r': rate = atol(optarg); break;
		case 'c': ws.ws_col = atoi(optarg); break;
		case 'l': ws.ws_row = atoi(optarg); break;
		case 't': limit_ms = atol(optarg); break;
		case 'o': outpath = optarg; break;
		case 'k':
			if (nkeys == MAX_KEYS || !key_parse(optarg, &keys[nkeys++]))
				usage();
			break;
		default: usage();
		}
	}
	if (!outpath || optind >= argc || rate <= 0)
		usage();
	if (!(out = fopen(outpath, "w"))) {
		perror(outpath);
		return 1;
	}
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	fflush(NULL);
	t0 = now_us();
	pid = forkpty(&m, NULL, NULL, &ws);
	if (pid < 0) {
		perror("slowpty: forkpty");
		return 1;
	}
	if (pid == 0) {
		/* a serial line's speed, so that the program can see it */
		if (tcgetattr(0, &tio) == 0) {
			cfsetispeed(&tio, B115200);
			cfsetospeed(&tio, B115200);
			tcsetattr(0, TCSANOW, &tio);
		}
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		_exit(127);
	}
	fcntl(m, F_SETFL, fcntl(m, F_GETFL) | O_NONBLOCK);
	pump(m, out, t0, rate, keys, nkeys, limit_ms, pid);
	fclose(out);
	return 0;
}
