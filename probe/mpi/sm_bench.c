/* kcal-sm-bench: the small-message shared-memory collectives of the model,
 * T_sm_X for X = bcast, gather, allgather, barrier (model.md), and the full
 * model's sync_step (one point-to-point control message), timed among
 * the ranks mpirun started. Run by `kcal probe` (probe/sm.c), not by users.
 *
 * usage: kcal-sm-bench REPS INNER WARMUP
 * Each repetition times INNER back-to-back 8-byte (pointer-sized) calls after
 * a barrier (step: half of a rank-0/rank-1 ping-pong, see OP_STEP); the
 * time of one call is the slowest rank's mean, as a
 * collective is done when its last rank is. Rank 0 prints one line per
 * repetition: "kcal-sm OP P REP SECONDS". */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* OP_STEP: the full model's sync_step, one point-to-point control message
 * as libkcoll sends between steps (algos/comm.c kcoll_ctl_send/recv):
 * an 8-byte ping-pong between ranks 0 and 1, reported as half the round
 * trip; the other ranks wait. */
enum { OP_BCAST, OP_GATHER, OP_ALLGATHER, OP_BARRIER, OP_STEP, OP_COUNT };
static const char *const names[OP_COUNT] = {"bcast", "gather", "allgather",
                                            "barrier", "step"};

static void call(int op, uint64_t *word, uint64_t *all, int rank)
{
    switch (op) {
    case OP_STEP:
        if (rank == 0) {
            MPI_Send(word, 1, MPI_UINT64_T, 1, 7, MPI_COMM_WORLD);
            MPI_Recv(word, 1, MPI_UINT64_T, 1, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(word, 1, MPI_UINT64_T, 0, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(word, 1, MPI_UINT64_T, 0, 7, MPI_COMM_WORLD);
        }
        break;
    case OP_BCAST:
        MPI_Bcast(word, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        break;
    case OP_GATHER:
        MPI_Gather(word, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0,
                   MPI_COMM_WORLD);
        break;
    case OP_ALLGATHER:
        MPI_Allgather(word, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T,
                      MPI_COMM_WORLD);
        break;
    default:
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc != 4) {
        if (rank == 0)
            fprintf(stderr, "usage: kcal-sm-bench REPS INNER WARMUP\n");
        MPI_Finalize();
        return 2;
    }
    int reps = atoi(argv[1]), inner = atoi(argv[2]), warmup = atoi(argv[3]);
    if (reps < 1 || inner < 1 || warmup < 0) {
        if (rank == 0)
            fprintf(stderr, "kcal-sm-bench: bad REPS/INNER/WARMUP\n");
        MPI_Finalize();
        return 2;
    }
    uint64_t word = (uint64_t)rank, *all = malloc((size_t)p * sizeof *all);
    if (!all)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int op = 0; op < OP_COUNT; op++) {
        for (int i = 0; i < warmup; i++)
            call(op, &word, all, rank);
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < inner; i++)
                call(op, &word, all, rank);
            double t = (MPI_Wtime() - t0) / inner, tmax;
            if (op == OP_STEP)
                t /= 2; /* one message of the round trip */
            MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (rank == 0)
                printf("kcal-sm %s %d %d %.17g\n", names[op], p, r, tmax);
        }
    }
    fflush(stdout);
    free(all);
    MPI_Finalize();
    return 0;
}
