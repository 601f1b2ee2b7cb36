/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_allsizes: every message size class from 0 to 64 MiB between every
 * pair of ranks, both ways at once, every byte checked.
 *
 *   mpiexec -n N mpi_allsizes [-E largest]
 *
 * Sizes: each of 0..2048 (one-frame messages and their boundary), then
 * 2^k - 1, 2^k and 2^k + 1 up to 2^20 (medium, the eager limit, large),
 * then 2^k up to the largest (64 MiB by default).  In step s every rank
 * sends to rank + s and receives from rank - s.  The size's index picks
 * how: a plain receive, MPI_Issend with an MPI_ANY_SOURCE receive,
 * MPI_Mprobe + MPI_Mrecv, or MPI_Iprobe polling then MPI_Recv.  Then
 * strided datatypes (a vector on both sides, of few and of many pieces)
 * check gather/scatter and packing.  The data of a message depends on
 * sender, receiver and size, so a message delivered to the wrong receive
 * fails.  Prints one summary line; exit status 0 when all is well.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, nranks, errors;

static uint64_t
seed_of(int src, int dst, long size)
{
	return ((uint64_t)src << 48) ^ ((uint64_t)dst << 32) ^
		(uint64_t)size ^ 0x9e3779b97f4a7c15ull;
}

/* xorshift64 bytes: cheap enough to fill and check 64 MiB */
static void
pattern(uint8_t *b, long len, uint64_t s, int check, const char *what)
{
	uint64_t x = s | 1;

	for (long i = 0; i < len; i += 8) {
		uint8_t w[8];
		long n = len - i < 8 ? len - i : 8;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(w, &x, sizeof(w));
		if (!check) {
			memcpy(b + i, w, n);
		} else if (memcmp(b + i, w, n) != 0) {
			if (errors++ < 10)
				fprintf(stderr, "rank %d: %s: bad byte near "
						"%ld\n", rank, what, i);
			return;
		}
	}
}

static void
expect(int ok, const char *what, long size, int src)
{
	if (!ok && errors++ < 10)
		fprintf(stderr, "rank %d: %s (size %ld from %d)\n", rank, what,
				size, src);
}

/* One size, one step: send to dst, receive from src, check. */
static void
one(long size, int idx, int src, int dst, uint8_t *sb, uint8_t *rb,
		int tag)
{
	MPI_Request sr, rr;
	MPI_Status st;
	MPI_Message msg;
	int mode = idx % 4, flag = 0, n;

	pattern(sb, size, seed_of(rank, dst, size), 0, NULL);
	memset(rb, 0xa5, size + 1);
	if (mode == 1)
		MPI_Issend(sb, (int)size, MPI_BYTE, dst, tag, MPI_COMM_WORLD,
				&sr);
	else
		MPI_Isend(sb, (int)size, MPI_BYTE, dst, tag, MPI_COMM_WORLD,
				&sr);
	switch (mode) {
	case 0:
		MPI_Recv(rb, (int)size + 1, MPI_BYTE, src, tag,
				MPI_COMM_WORLD, &st);
		break;
	case 1:
		MPI_Irecv(rb, (int)size + 1, MPI_BYTE, MPI_ANY_SOURCE, tag,
				MPI_COMM_WORLD, &rr);
		MPI_Wait(&rr, &st);
		break;
	case 2:
		MPI_Mprobe(src, tag, MPI_COMM_WORLD, &msg, &st);
		MPI_Get_count(&st, MPI_BYTE, &n);
		expect(n == size, "mprobe count", size, src);
		MPI_Mrecv(rb, (int)size + 1, MPI_BYTE, &msg, &st);
		break;
	default:
		while (!flag)
			MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag,
					&st);
		expect(st.MPI_SOURCE == src, "iprobe source", size, src);
		MPI_Recv(rb, (int)size + 1, MPI_BYTE, src, tag,
				MPI_COMM_WORLD, &st);
		break;
	}
	MPI_Get_count(&st, MPI_BYTE, &n);
	expect(n == size, "count", size, src);
	expect(st.MPI_SOURCE == src, "source", size, src);
	expect(st.MPI_TAG == tag, "tag", size, src);
	pattern(rb, size, seed_of(src, rank, size), 1, "data");
	expect(rb[size] == 0xa5, "wrote past the message", size, src);
	MPI_Wait(&sr, MPI_STATUS_IGNORE);
}

/* Strided vectors on both sides: 'count' blocks of 8 bytes, stride 16. */
static void
vectors(int count, int src, int dst, uint8_t *sb, uint8_t *rb)
{
	MPI_Datatype vec;
	MPI_Request sr;
	size_t span = (size_t)count * 16;
	uint8_t *tmp = malloc(count * 8 + 1);

	MPI_Type_vector(count, 1, 2, MPI_DOUBLE, &vec);
	MPI_Type_commit(&vec);
	pattern(tmp, count * 8L, seed_of(rank, dst, -count), 0, NULL);
	for (long i = 0; i < count; i++)
		memcpy(sb + i * 16, tmp + i * 8, 8);
	memset(rb, 0x5a, span);
	MPI_Isend(sb, 1, vec, dst, 32500, MPI_COMM_WORLD, &sr);
	MPI_Recv(rb, 1, vec, src, 32500, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	for (long i = 0; i < count; i++) {
		memcpy(tmp + i * 8, rb + i * 16, 8);
		for (int g = 8; g < 16; g++)
			expect(rb[i * 16 + g] == 0x5a, "vector gap written",
					count, src);
	}
	pattern(tmp, count * 8L, seed_of(src, rank, -count), 1, "vector");
	MPI_Wait(&sr, MPI_STATUS_IGNORE);
	MPI_Type_free(&vec);
	free(tmp);
}

static long
next_size(long s)
{
	if (s < 2048)
		return s + 1;
	for (long p = 2048; p <= (1L << 20); p *= 2) {
		if (s < p - 1)
			return p - 1;
		if (s < p + 1)
			return s + 1;
	}
	for (long p = 1L << 21;; p *= 2)
		if (s < p)
			return p;
}

int
main(int argc, char **argv)
{
	long largest = 64L << 20, msgs = 0, bytes = 0;
	int opt, total;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((opt = getopt(argc, argv, "E:")) != -1)
		if (opt == 'E')
			largest = atol(optarg);
	/* room for the largest message, and for 1000 strided doubles */
	long room = largest > 16000 ? largest : 16000;
	uint8_t *sb = malloc(room + 1), *rb = malloc(room + 1);

	if (sb == NULL || rb == NULL || nranks < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	double t0 = MPI_Wtime();

	for (int s = 1; s < nranks; s++) {
		int dst = (rank + s) % nranks, src = (rank - s + nranks) % nranks;
		int idx = 0;

		for (long size = 0; size <= largest; size = next_size(size)) {
			/* tags unique per step: a rank ahead of us in the next step
			 * never meets our MPI_ANY_SOURCE receives */
			one(size, idx, src, dst, sb, rb, (s * 2200 + idx) % 32000);
			msgs++;
			bytes += size;
			idx++;
		}
		vectors(4, src, dst, sb, rb);		/* an MX gather list */
		vectors(1000, src, dst, sb, rb);	/* packed */
		vectors((int)(largest / 16 < (1 << 20) ? largest / 16 : 1 << 20),
				src, dst, sb, rb);		/* packed, large */
		msgs += 3;
	}
	MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("mpi_allsizes: %d ranks, %ld messages and %.1f MiB sent "
				"per rank, every byte checked: %s (%.1f s)\n",
				nranks, msgs, bytes / 1048576.0,
				total ? "FAILED" : "ok", MPI_Wtime() - t0);
	free(sb);
	free(rb);
	MPI_Finalize();
	return total != 0;
}
