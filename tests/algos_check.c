/* algos_check: the correctness suite of libkcoll, one MPI run per p.
 *
 * --mode full (default): every algorithm of model.md with every valid k (j),
 *   sizes {0, 1, 4095, 4096, 4097, 65549, 1 MiB + 5}, roots {0, middle,
 *   p−1}, in place and not, on MPI_COMM_WORLD and on a split
 *   sub-communicator (reversed rank order), buffers at odd offsets; each
 *   case runs kcoll and the MPI built-in from identical initial buffers and
 *   compares every buffer byte for byte. Also: bad algorithm ids, NULL
 *   (model-chosen) algorithms, NULL calls that repeat the last one but for
 *   the root, in place or the communicator, communicators freed and
 *   re-created.
 * --mode fallback: run under KCOLL_SIMULATE_NO_CMA=1: results still right.
 * --mode strict: under KCOLL_SIMULATE_NO_CMA=1 KCOLL_STRICT=1: every call
 *   returns an error.
 * --mode nostate: under KCOLL_SIMULATE_NO_STATE=1 (p >= 3): building
 *   libkcoll's state fails on world rank 1 only, yet every process marks
 *   MPI_COMM_WORLD no_state (the same decision everywhere), every call on
 *   it, named algorithms too, succeeds with the MPI built-in's result, the
 *   state is built once however many calls follow (the failure is not
 *   tried again), bad ids are still refused, and of the odd/even split the
 *   half without world rank 1 has a state of its own.
 * --mode modelless: under a $KCAL_PARAMS the model cannot use (missing,
 *   malformed, or overflowing every prediction): calls that leave the
 *   choice to the model (NULL, a throttled id without k) still succeed with
 *   the MPI built-in's result, and named algorithms still run
 *   (tests/algos_mpi.sh counts the warnings).
 * --mode handoff: under a $KCAL_PARAMS whose measured crossover
 *   (mpi_<coll>_below) is 64 KiB for every collective, with the size class
 *   128-256 KiB handed off too (mpi_<coll>_mask 131072; tests/algos_mpi.sh
 *   writes them): NULL calls of every collective below 64 KiB and in that
 *   class run the MPI
 *   library's collective (kcoll_handoffs counts each, with no warning),
 *   those above it a libkcoll algorithm (the counter stays), and both give
 *   the built-in's result.
 * --mode table: at p = 3 under the $KCOLL_TABLE that tests/algos_mpi.sh
 *   writes: NULL calls that a rule matches follow it (kcoll_tuned_decide
 *   says what the rule gives, kcoll_tuned_decisions counts every such
 *   call, an `mpi` rule is not counted as the model's hand-off), calls no
 *   rule matches (another p, a size outside the rules) are left to the
 *   model, and every result equals the MPI built-in's.
 * --mode tabled: under a $KCOLL_TABLE with a rule for every size of every
 *   collective at this p (kcal tune's, tests/tune_cli.sh): every NULL call
 *   is decided by the table, with the built-in's result.
 * --mode badtable: under a $KCOLL_TABLE that does not read: modelless's
 *   calls, results still right, and no call decided by the table
 *   (tests/algos_mpi.sh counts the warnings).
 * --mode types: the MPI fallback's derived type for blocks above INT_MAX
 *   bytes, scaled down (kcoll_mpi_max_count, kcoll_mpi_piece) so that every
 *   path of the five kcoll_mpi_* functions runs on kilobytes; plus the type
 *   itself at real sizes (no memory needed) and the refused piece counts.
 * --mode big: p = 2, messages above 2 GiB in total, checked against the
 *   pattern (no reference copy, to halve the memory).
 * --mode vnodes: under KCOLL_VIRTUAL_NODES=K (tests/algos_mpi.sh runs it
 *   for K in {1, 2, 3}): every algorithm (throttle factors and strides that
 *   fit the virtual nodes and that do not), NULL, sizes {0, 1, 4097,
 *   65549} and one 1 MiB + 5 call per collective, roots {0, p/2, p−1} and
 *   then every root (the leaders' communicators per root, reused and
 *   replaced), in place and not, on MPI_COMM_WORLD, on the odd/even split
 *   in reversed order and on a permutation of the world that interleaves
 *   the virtual nodes (node ranks not consecutive); each communicator's
 *   spans_nodes must be what the world ranks and K say, and a
 *   communicator inside one virtual node runs the flat algorithms.
 * Rank 0 prints "algos_check p=P mode=M (LIBRARY): N cases, F failed", LIBRARY
 * naming the MPI library it ran with (common/mpi_flavor.h: "MPICH 4.0.2
 * (ch4:ucx)"), so tests/algos_mpi.sh sees which library and how many
 * processes really ran; exit 1 on any failure. */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "tests/algos_check.h"
#include "common/mpi_flavor.h"
#include "algos/tuned.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    const char *mode = argc > 2 && !strcmp(argv[1], "--mode") ? argv[2] : "full";
    double t0 = MPI_Wtime();
    if (!strcmp(mode, "full")) {
        full();
    } else if (!strcmp(mode, "fallback")) {
        const size_t fs[] = {0, 4097, 65549};
        matrix(MPI_COMM_WORLD, "world", fs, 3, 0);
        bad_ids(MPI_COMM_WORLD);
    } else if (!strcmp(mode, "strict")) {
        strict();
    } else if (!strcmp(mode, "nostate")) {
        nostate();
    } else if (!strcmp(mode, "modelless")) {
        modelless();
    } else if (!strcmp(mode, "handoff")) {
        handoff();
    } else if (!strcmp(mode, "table")) {
        table();
    } else if (!strcmp(mode, "tabled")) {
        tabled();
    } else if (!strcmp(mode, "badtable")) {
        modelless();
        cases++;
        if (atomic_load(&kcoll_tuned_decisions) != 0)
            fail("bad table", "a call was decided by a table that does not read");
    } else if (!strcmp(mode, "types")) {
        types();
    } else if (!strcmp(mode, "big")) {
        big();
    } else if (!strcmp(mode, "vnodes")) {
        vnodes();
    } else {
        if (world_rank == 0)
            fprintf(stderr, "algos_check: unknown mode '%s'\n", mode);
        MPI_Finalize();
        return 2;
    }
    long tot[2] = {cases, failures}, sum[2];
    MPI_Reduce(tot, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    long fails = failures, anyfail;
    MPI_Allreduce(&fails, &anyfail, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "", library[256];
    int vlen = 0;
    MPI_Get_library_version(version, &vlen);
    kcal_mpi_flavor_describe_version(version, library, sizeof library);
    if (world_rank == 0)
        printf("algos_check p=%d mode=%s (%s): %ld cases (summed over ranks), "
               "%ld failed, %.1f s\n",
               p, mode, library, sum[0], sum[1], MPI_Wtime() - t0);
    MPI_Finalize();
    return anyfail ? 1 : 0;
}
