/* overhead_bench: what the interposer adds to a call it hands to the MPI
 * library, for scripts/bench-interposer (a benchmark, not a test).
 *
 * In one process, rounds alternate between the MPI library's entry point
 * (PMPI_X, never interposed) and the application's (MPI_X: the
 * interposer's when it is preloaded), each round ITER back-to-back calls
 * after a barrier; the time of a round is the slowest rank's. Per case it
 * prints the median per-call time of each and their difference:
 *   bcast-8B, allgather-8B  a small message on MPI_COMM_WORLD: libkcoll
 *                           hands it to the MPI library below the measured
 *                           crossover (run with a KCAL_PARAMS that has one);
 *   bcast-inter             an intercommunicator: the interposer itself
 *                           hands it on unchanged.
 * Output: "case PMPI_us MPI_us overhead_us" rows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

enum { BCAST, ALLGATHER };

/* One round of iter calls through the library (pmpi) or the application's
 * name; the slowest rank's seconds per call. */
static double round_of(int coll, int pmpi, MPI_Comm comm, int root,
                       long iter, MPI_Comm world)
{
    char buf[8] = {0}, all[8 * 64];
    MPI_Barrier(world);
    double t0 = MPI_Wtime();
    for (long i = 0; i < iter; i++) {
        if (coll == BCAST)
            (pmpi ? PMPI_Bcast : MPI_Bcast)(buf, 8, MPI_BYTE, root, comm);
        else
            (pmpi ? PMPI_Allgather : MPI_Allgather)(buf, 8, MPI_BYTE, all, 8,
                                                    MPI_BYTE, comm);
    }
    double t = (MPI_Wtime() - t0) / (double)iter, worst;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, world);
    return worst;
}

static void measure(const char *name, int coll, MPI_Comm comm, int root,
                    int rounds, long iter, int rank)
{
    double *lib = malloc(sizeof(double) * (size_t)rounds);
    double *app = malloc(sizeof(double) * (size_t)rounds);
    double *diff = malloc(sizeof(double) * (size_t)rounds);
    round_of(coll, 0, comm, root, iter / 10 + 1, MPI_COMM_WORLD); /* warm-up */
    round_of(coll, 1, comm, root, iter / 10 + 1, MPI_COMM_WORLD);
    for (int r = 0; r < rounds; r++) {
        /* Alternate which goes first, so neither always follows the other. */
        int first = r % 2;
        double a = round_of(coll, first, comm, root, iter, MPI_COMM_WORLD);
        double b = round_of(coll, !first, comm, root, iter, MPI_COMM_WORLD);
        lib[r] = first ? a : b;
        app[r] = first ? b : a;
        diff[r] = app[r] - lib[r];
    }
    if (rank == 0)
        printf("%-14s %10.3f %10.3f %12.3f\n", name, 1e6 * median(lib, rounds),
               1e6 * median(app, rounds), 1e6 * median(diff, rounds));
    free(lib);
    free(app);
    free(diff);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    int rounds = argc > 1 ? atoi(argv[1]) : 21;
    long iter = argc > 2 ? atol(argv[2]) : 20000;
    if (rank == 0)
        printf("%-14s %10s %10s %12s\n", "case", "PMPI_us", "MPI_us",
               "overhead_us");
    measure("bcast-8B", BCAST, MPI_COMM_WORLD, 0, rounds, iter, rank);
    measure("allgather-8B", ALLGATHER, MPI_COMM_WORLD, 0, rounds, iter, rank);
    if (p >= 2) {
        /* Rank 0 against the others. */
        MPI_Comm half, inter;
        int low = rank == 0;
        MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? 1 : 0, 9, &inter);
        int root = low ? MPI_ROOT : 0;
        measure("bcast-inter", BCAST, inter, root, rounds, iter, rank);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    MPI_Finalize();
    return 0;
}
