/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mpi_pingpong: MPI half round-trip latency and bandwidth between ranks 0
 * and 1 (MPI_Send, then MPI_Recv, as osu_latency does), timed as
 * mx_pingpong times them: the clock read after every round trip, the
 * latency the mean of the half round trips, the median beside it (on a
 * shared machine the mean takes every preemption in; the median does not).
 * Columns: length, mean latency, MB/s (from the mean), median latency.
 *
 *   mpiexec -n 2 mpi_pingpong [-S start] [-E end] [-N iterations] [-V]
 *
 * Sizes double from start (0 goes to 1).  -V checks every byte.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define TAG 7

static void
fill(uint8_t *b, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)(seed * 31 + i * 7);
}

static int
check(const uint8_t *b, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		if (b[i] != (uint8_t)(seed * 31 + i * 7))
			return -1;
	return 0;
}

/* One round trip; rank 0 starts, rank 1 echoes. */
static int
exchange(int rank, uint8_t *sbuf, uint8_t *rbuf, int len, unsigned seed,
		int verify)
{
	MPI_Status st;
	int n;

	if (rank == 0) {
		MPI_Send(sbuf, len, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
		MPI_Recv(rbuf, len, MPI_BYTE, 1, TAG, MPI_COMM_WORLD, &st);
	} else {
		MPI_Recv(rbuf, len, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, &st);
		if (verify)
			memcpy(sbuf, rbuf, len);
		MPI_Send(sbuf, len, MPI_BYTE, 0, TAG, MPI_COMM_WORLD);
	}
	MPI_Get_count(&st, MPI_BYTE, &n);
	if (n != len || (verify && check(rbuf, len, seed)))
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	int rank, size, opt, start = 0, end = 1 << 20, iters = 10000;
	int verify = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	while ((opt = getopt(argc, argv, "S:E:N:V")) != -1) {
		switch (opt) {
		case 'S': start = atoi(optarg); break;
		case 'E': end = atoi(optarg); break;
		case 'N': iters = atoi(optarg); break;
		case 'V': verify = 1; break;
		default:
			if (rank == 0)
				fprintf(stderr, "usage: mpi_pingpong [-S start] "
						"[-E end] [-N iters] [-V]\n");
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	if (size < 2) {
		fprintf(stderr, "mpi_pingpong: needs 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	uint8_t *sbuf = malloc(end + 1), *rbuf = malloc(end + 1);
	double *lat = malloc(sizeof(*lat) * ((iters > 0 ? iters : 0) + 10));

	if (sbuf == NULL || rbuf == NULL || lat == NULL)
		MPI_Abort(MPI_COMM_WORLD, 1);
	if (rank == 0)
		printf("%-10s %14s %12s %12s\n", "length", "latency(us)", "MB/s",
				"median(us)");
	for (int len = start; len <= end; len = len ? len * 2 : 1) {
		/* Fewer round trips for large sizes, long enough to settle. */
		int n = len >= 65536 ? iters / 20 + 10 : iters;
		int warm = n / 10 + (len >= 65536 ? 10 : 1000);
		double t0 = 0, prev = 0, now, us, med;

		if (rank > 1) {
			MPI_Barrier(MPI_COMM_WORLD);
			continue;
		}
		for (int i = 0; i < warm + n; i++) {
			if (i == warm)
				t0 = prev = MPI_Wtime();
			if (rank == 0 && verify)
				fill(sbuf, len, i + len);
			if (exchange(rank, sbuf, rbuf, len, i + len, verify)) {
				fprintf(stderr, "mpi_pingpong: bad data, "
						"length %d\n", len);
				MPI_Abort(MPI_COMM_WORLD, 1);
			}
			if (i >= warm) {
				now = MPI_Wtime();
				lat[i - warm] = (now - prev) * 1e6 / 2;
				prev = now;
			}
		}
		us = (prev - t0) * 1e6 / n / 2;
		qsort(lat, n, sizeof(*lat), cmp_double);
		med = n <= 0 ? 0 : n % 2 ? lat[n / 2] :
			(lat[n / 2 - 1] + lat[n / 2]) / 2;
		if (rank == 0) {
			printf("%-10d %14.3f %12.2f %12.3f\n", len, us,
					len / us, med);
			fflush(stdout);
		}
		MPI_Barrier(MPI_COMM_WORLD);
	}
	free(sbuf);
	free(rbuf);
	free(lat);
	MPI_Finalize();
	return 0;
}
