/* kcal-net-bench: the network between two nodes, for `kcal probe
 * --network` (probe/network.c), which launches it with two ranks, one per
 * node, and fits what it prints. Not run by users.
 *
 * usage: kcal-net-bench REPS [--same-node]
 *
 * Rank 0 prints, on stdout:
 *   kcal-net hosts HOST0 HOST1 SHARED
 *     the two ranks' processor names, and 1 when they share memory
 *     (MPI_COMM_TYPE_SHARED): then nothing is measured unless --same-node
 *     says this is a test on one machine;
 *   kcal-net pingpong BYTES REP SECONDS
 *     half a round trip of a BYTES-byte message between the two ranks, the
 *     mean over one repetition's back-to-back round trips (Hockney's
 *     net_alpha + BYTES·net_beta);
 *   kcal-net burst K REP SECONDS
 *     K 8-byte messages posted at once from rank 0 to rank 1, and rank 1's
 *     8-byte reply when all arrived, the mean over one repetition (the
 *     slope over K is net_gap, the time between messages that leave one
 *     process together).
 * Each repetition starts after a barrier; the first of each point is a
 * warm-up and is not printed. */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const long sizes[] = {8, 64, 512, 4096, 32768, 262144, 1048576,
                             4194304};
static const int bursts[] = {1, 2, 4, 8, 16, 32, 64};
#define N_SIZES (sizeof sizes / sizeof sizes[0])
#define N_BURSTS (sizeof bursts / sizeof bursts[0])
#define MAX_BURST 64

/* Round trips per repetition: about 32 MiB moved, at least 4, at most 200. */
static int inner_of(long bytes)
{
    long n = (32L << 20) / bytes;
    return n < 4 ? 4 : n > 200 ? 200 : (int)n;
}

static void pingpong(int rank, int reps, char *buf)
{
    for (size_t s = 0; s < N_SIZES; s++) {
        int bytes = (int)sizes[s], inner = inner_of(sizes[s]);
        for (int r = -1; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < inner; i++) {
                if (rank == 0) {
                    MPI_Send(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                    MPI_Send(buf, bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
                }
            }
            double t = (MPI_Wtime() - t0) / inner / 2;
            if (rank == 0 && r >= 0)
                printf("kcal-net pingpong %d %d %.17g\n", bytes, r, t);
        }
    }
}

/* MPI_Waitall, statuses ignored: MPICH's header makes GCC 12 warn about
 * MPI_STATUSES_IGNORE (-Wstringop-overflow, a false positive MPICH keeps:
 * pmodels/mpich issue 5687; algos/comm.c), so the warning is off here. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
static void wait_all(int n, MPI_Request *req)
{
    MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
}
#pragma GCC diagnostic pop

static void burst(int rank, int reps)
{
    uint64_t words[MAX_BURST] = {0}, ack = 0;
    MPI_Request req[MAX_BURST];
    for (size_t b = 0; b < N_BURSTS; b++) {
        int k = bursts[b], inner = 50;
        for (int r = -1; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < inner; i++) {
                for (int m = 0; m < k; m++) {
                    if (rank == 0)
                        MPI_Isend(&words[m], 1, MPI_UINT64_T, 1, 2,
                                  MPI_COMM_WORLD, &req[m]);
                    else
                        MPI_Irecv(&words[m], 1, MPI_UINT64_T, 0, 2,
                                  MPI_COMM_WORLD, &req[m]);
                }
                wait_all(k, req);
                if (rank == 0)
                    MPI_Recv(&ack, 1, MPI_UINT64_T, 1, 3, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                else
                    MPI_Send(&ack, 1, MPI_UINT64_T, 0, 3, MPI_COMM_WORLD);
            }
            double t = (MPI_Wtime() - t0) / inner;
            if (rank == 0 && r >= 0)
                printf("kcal-net burst %d %d %.17g\n", k, r, t);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int reps = argc > 1 ? atoi(argv[1]) : 0;
    int same_ok = argc > 2 && !strcmp(argv[2], "--same-node");
    if (p != 2 || reps < 1) {
        if (rank == 0)
            fprintf(stderr, "kcal-net-bench: needs 2 ranks (got %d) and "
                            "REPS >= 1\n", p);
        MPI_Finalize();
        return 2;
    }
    char names[2][MPI_MAX_PROCESSOR_NAME] = {{0}};
    int len;
    MPI_Get_processor_name(names[rank], &len);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, names,
                  MPI_MAX_PROCESSOR_NAME, MPI_CHAR, MPI_COMM_WORLD);
    MPI_Comm node;
    int node_size;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                        &node);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    int shared = node_size == 2;
    if (rank == 0) {
        printf("kcal-net hosts %s %s %d\n", names[0], names[1], shared);
        fflush(stdout);
    }
    if (!shared || same_ok) {
        char *buf = malloc((size_t)sizes[N_SIZES - 1]);
        if (!buf)
            MPI_Abort(MPI_COMM_WORLD, 1);
        memset(buf, 1, (size_t)sizes[N_SIZES - 1]);
        pingpong(rank, reps, buf);
        burst(rank, reps);
        free(buf);
    }
    MPI_Finalize();
    return 0;
}
