/* interpose_check.h: what the four files of the interposer's test program
 * share. tests/interpose_check.c holds main (its comment says what each
 * --mode checks), the counts every mode keeps, --mode matrix and loop;
 * tests/interpose_check_reduce.c --mode reduce;
 * tests/interpose_check_irregular.c --mode irregular;
 * tests/interpose_check_errors.c --mode errors, fatal, strict,
 * strict-fatal, attr and attr-fatal. Like the program, nothing here knows
 * of kcoll: MPI_* and PMPI_* only. */
#ifndef KCAL_TESTS_INTERPOSE_CHECK_H
#define KCAL_TESTS_INTERPOSE_CHECK_H

#include <mpi.h>

enum { BCAST, SCATTER, GATHER, ALLGATHER, ALLTOALL, NCOLL };
extern const char *const coll_names[NCOLL];

/* This process's rank in MPI_COMM_WORLD and the world's size; the calls it
 * checked and its failures (fail() counts one, and prints the first 20:
 * fmt takes two strings and two ints). */
extern int world_rank, world_size;
extern long checked, failures;
void fail(const char *fmt, const char *a, const char *b, int c, int d);

int is_inter(MPI_Comm comm);

/* The modes of interpose_check_reduce.c, interpose_check_irregular.c and
 * interpose_check_errors.c; each returns main's exit status. */
int reductions(void);
int irregular(void);
int errors(void);
int fatal(void);
int strict(int fatal_handler);
int attr(int fatal_handler);

#endif
