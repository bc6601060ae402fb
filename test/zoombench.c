// SPDX-License-Identifier: GPL-2.0-only
/*
 * zoombench: how long the replay view takes to be exact again after a
 * zoom (make bench), and whether reading from a checkpoint gives what
 * reading from the start gives (make test).  It includes tc.c with TC_TEST
 * defined (as test/unit.c does) and opens FILE as tc --replay FILE does:
 * the whole file read into the view's model, checkpoints taken.
 *
 *   zoombench [-H MIB] FILE SPAN_MS [P...]
 *	(-H: tc's --history MIB) the time the view's first reading of FILE
 *	took ("read in"), then for each position P (a fraction of the
 *	recording's time, 0 to 1), a view of SPAN_MS milliseconds there on
 *	a 200-column screen: the
 *	time from the zoom (view_exact) until the reading child's intervals
 *	are taken (rd_history_take) and the view is drawn from them.
 *   zoombench -c EVERY FILE SPAN_MS P...
 *	checkpoints every EVERY bytes of data; for each position the
 *	intervals of SPAN_MS milliseconds from it read again from the start
 *	and from the checkpoint before it: the ring's bytes and the rows'
 *	chains must be the same.  Prints "same: ..." or what differs; exits
 *	1 if anything does, 3 if the file holds no events.
 *   zoombench -s MIB FILE
 *	the view's history after its first reading with --history MIB, as
 *	digests (FNV-1a) of each summary pool's tables and of the ring of
 *	exact intervals: make test compares them with test/golden/history.out,
 *	written by the reader before the view's reading was made faster.
 */
#pragma GCC diagnostic ignored "-Wunused-function"	/* tc's main is left out */
#include "../tc.c"

/* Read the intervals from a to a + span again (rd_history) and wait for
 * them; the ms it took. */
static double zb_read(uint64_t a, uint64_t span, char *msg, size_t msz)
{
	uint64_t t = now_ns();

	rd_history(a, a, a + span, span, msg, msz);
	while (G.z.pid) {
		rd_history_take(msg, msz);
		if (G.z.pid)
			usleep(200);
	}
	return (now_ns() - t) / 1e6;
}

/* Read the span at a from the start and from a checkpoint: are the ring's
 * bytes and the chains the same?  Says what differs into why. */
static bool zb_check(uint64_t a, uint64_t span, char *why, size_t wsz)
{
	struct ivring ib = G.ib;
	struct zheads *h0 = malloc(sizeof(*h0));
	uint8_t *bytes = NULL;
	int nck = G.rd.nck;
	uint64_t n;
	char msg[160] = "";
	bool same = false;

	G.rd.nck = 0;		/* from the start */
	zb_read(a, span, msg, sizeof(msg));
	G.rd.nck = nck;
	if (!G.z.h) {		/* no reading child: a stream */
		snprintf(why, wsz, "not read again: %s", msg);
		same = true;
		goto out;
	}
	*h0 = *G.z.h;
	n = h0->head - ib.head;
	if (!h0->done || n > ib.cap || !(bytes = malloc(n + 1))) {
		snprintf(why, wsz, "reading from the start failed (%s)", msg);
		goto out;
	}
	for (uint64_t i = 0; i < n; i++)
		bytes[i] = ib.buf[(ib.head + i) & (ib.cap - 1)];
	G.ib.head = ib.head;	/* the second pass writes where the first did */
	G.ib.chunk = ib.chunk;
	zb_read(a, span, msg, sizeof(msg));
	if (!G.z.h->done)
		snprintf(why, wsz, "reading from a checkpoint failed (%s)", msg);
	else if (G.z.h->head != h0->head || G.z.h->floor != h0->floor || G.z.h->ceil != h0->ceil ||
		 G.z.h->chunk != h0->chunk || G.z.h->ntask != h0->ntask)
		snprintf(why, wsz, "ring head %" PRIu64 "/%" PRIu64 " floor %" PRIu64 "/%" PRIu64
			 " ceil %" PRIu64 "/%" PRIu64 " tasks %d/%d", h0->head - ib.head,
			 G.z.h->head - ib.head, h0->floor, G.z.h->floor, h0->ceil, G.z.h->ceil, h0->ntask, G.z.h->ntask);
	else if (memcmp(h0->cpu, G.z.h->cpu, sizeof(h0->cpu[0]) * G.m.ncpu) ||
		 memcmp(h0->task, G.z.h->task, sizeof(h0->task[0]) * h0->ntask))
		snprintf(why, wsz, "the rows' chains differ");
	else {
		const struct rckpt *c = NULL;

		for (int i = 0; i < G.rd.nck && G.rd.ck[i].m.last <= a; i++)
			c = &G.rd.ck[i];
		same = true;
		for (uint64_t i = 0; i < n && same; i++)
			if (bytes[i] != ib.buf[(ib.head + i) & (ib.cap - 1)]) {
				snprintf(why, wsz, "ring byte %" PRIu64 " of %" PRIu64 " differs", i, n);
				same = false;
			}
		if (same)
			snprintf(why, wsz, "same: %" PRIu64 " bytes of intervals, read from %s %" PRIu64, n,
				 c ? "the checkpoint at offset" : "the start, offset", c ? c->from : G.rd.data_off);
	}
out:
	free(bytes);
	free(h0);
	return same;
}

/* FNV-1a of n bytes at p, on from h. */
static uint64_t zb_fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n--)
		h = (h ^ *b++) * 0x100000001b3ull;
	return h;
}

/* -s: the digests of the history (see above). */
static void zb_digest(void)
{
	const uint64_t h0 = 0xcbf29ce484222325ull;

	printf("base %" PRIu64 " tasks %d stolen %" PRIu64 "\n", G.hist.base, G.m.ntask, (uint64_t)G.hist.stolen);
	for (int k = 0; k < HK_N; k++) {
		const struct hpool *h = &G.hist.hp[k];

		printf("pool %d: %d blocks of %d x %d, %" PRIu64 " ns a bucket, f %016" PRIx64 " hi %016" PRIx64
		       " row %016" PRIx64 " tid %016" PRIx64 " map %016" PRIx64 "\n", k, h->nblk, h->nb, h->nslot, h->w,
		       zb_fnv(h0, h->f, (size_t)h->nblk * h->nb * h->nslot * sizeof(float)),
		       zb_fnv(h0, h->hi, h->nblk * sizeof(*h->hi)), zb_fnv(h0, h->row, h->nblk * sizeof(*h->row)),
		       zb_fnv(h0, h->tid, h->nblk * sizeof(*h->tid)), zb_fnv(h0, h->map, h->nmap * sizeof(*h->map)));
	}
	printf("ring: %" PRIu64 " bytes written of %" PRIu64 ", %" PRIu64 " intervals evicted, floor %" PRIu64
	       ", bytes %016" PRIx64 " chunks %016" PRIx64 "\n", G.ib.head, G.ib.cap, G.ib.evicted, G.ib.floor,
	       zb_fnv(h0, G.ib.buf, G.ib.head < G.ib.cap ? G.ib.head : G.ib.cap),
	       zb_fnv(h0, G.ib.ch, (G.ib.cap >> G.ib.shift) * sizeof(*G.ib.ch)));
}

int main(int argc, char **argv)
{
	char *targv[] = { "tc", "--replay", "", "--history", "64", NULL };
	uint64_t t0, span, every = 0;
	int i = 1, bad = 0;

	if (argc == 4 && !strcmp(argv[1], "-s")) {	/* (the history's digests) */
		targv[2] = argv[3];
		targv[4] = argv[2];
		G.rec.fd = -1;
		parse_args(5, targv);
		rd_open(G.opt.replay_path);
		rd_run(UINT64_MAX);
		if (!G.m.task || !G.hist.on) {
			printf("%s holds no intervals\n", G.opt.replay_path);
			return 3;
		}
		zb_digest();
		return 0;
	}
	if (argc > 3 && !strcmp(argv[1], "-c")) {
		every = strtoull(argv[2], NULL, 10);
		i = 3;
	} else if (argc > 3 && !strcmp(argv[1], "-H")) {
		targv[4] = argv[2];
		i = 3;
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: zoombench [-c EVERY | -H MIB] FILE SPAN_MS [P...] | zoombench -s MIB FILE\n");
		return 2;
	}
	targv[2] = argv[i];
	G.rec.fd = -1;
	parse_args(5, targv);
	G.rd.ck_every = every;
	t0 = now_ns();
	rd_open(G.opt.replay_path);
	rd_run(UINT64_MAX);
	if (!G.m.task || !G.m.last) {
		printf("%s holds no events\n", G.opt.replay_path);
		return 3;
	}
	printf("%s: read in %.0f ms, %d checkpoints (%.1f MiB, every %.1f MiB)\n", argv[i],
	       (now_ns() - t0) / 1e6, G.rd.nck, G.rd.ck_mem / 1048576.0, G.rd.ck_every / 1048576.0);
	scr_alloc(60, 200);
	rows_alloc(TC_MAX_TASKS);
	G.v.now = G.m.last;
	view_init();
	span = (uint64_t)(atof(argv[i + 1]) * 1e6);
	for (i += 2; i < argc; i++) {
		uint64_t at = G.m.first + (uint64_t)((G.m.last - G.m.first) * atof(argv[i]));
		char msg[160] = "";
		double ms;

		if (every) {
			bool same = zb_check(at, span, msg, sizeof(msg));

			printf("  at %.6f s: %s\n", (at - G.m.first) / 1e9, msg);
			bad += !same;
			continue;
		}
		G.v.start = at > span / 2 ? at - span / 2 : 0;
		G.v.end = G.v.start + span;
		G.v.following = false;
		G.z.v0 = G.z.v1 = 0;
		t0 = now_ns();
		view_exact();
		if (!G.z.pid) {
			printf("  at %.3f s: no reading (%s)\n", (at - G.m.first) / 1e9,
			       G.v.start >= G.ib.floor && G.v.end <= G.ib.ceil ? "exact already" : "summaries suffice");
			continue;
		}
		while (G.z.pid) {
			rd_history_take(msg, sizeof(msg));
			if (G.z.pid)
				usleep(200);
		}
		ms = (now_ns() - t0) / 1e6;
		printf("  at %.3f s: exact in %.0f ms (%.3f to %.3f s)%s%s\n", (at - G.m.first) / 1e9, ms,
		       G.ib.floor > G.m.first ? (G.ib.floor - G.m.first) / 1e9 : 0.0,
		       (G.ib.ceil < G.m.last ? G.ib.ceil - G.m.first : G.m.last - G.m.first) / 1e9,
		       msg[0] ? ": " : "", msg);
	}
	return bad ? 1 : 0;
}
