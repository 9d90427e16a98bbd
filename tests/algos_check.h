/* algos_check.h: what the three files of the correctness suite share.
 * tests/algos_check.c holds main (the modes, rank 0's line),
 * tests/algos_check_case.c one case (patterned buffers, kcoll against the
 * MPI built-in, byte for byte) and the matrices of cases,
 * tests/algos_check_modes.c the cases of each --mode. */
#ifndef KCAL_TESTS_ALGOS_CHECK_H
#define KCAL_TESTS_ALGOS_CHECK_H

#include <stddef.h>

#include <mpi.h>

#include "model/model.h"

enum { SCATTER, GATHER, BCAST, ALLGATHER, ALLTOALL, NCOLL };
extern const char *coll_names[NCOLL];

/* The algorithms come from the registry (model/algorithms.def) through
 * kcal_model_algorithms, so a new row is checked here without listing it
 * again; tests/test_model.c pins the list itself. */
_Static_assert(SCATTER == (int)KCAL_COLL_SCATTER && ALLTOALL == (int)KCAL_COLL_ALLTOALL,
               "collective numbers follow kcal_coll");

/* This rank's count of cases run and of failures (fail() counts one),
 * and its rank in MPI_COMM_WORLD, which every message names. */
extern long cases, failures;
extern int world_rank;

void fail(const char *what, const char *detail);

/* One case's data and calls (algos_check_case.c). */
void pattern(unsigned char *buf, size_t n, int owner, int block,
             unsigned seed);
size_t check_pattern(const unsigned char *buf, size_t n, int owner,
                     int block, unsigned seed);

typedef struct {
    unsigned char *s_mem, *r_mem, *s, *r; /* s, r: at an odd offset */
    size_t slen, rlen;
} bufs;
void bufs_alloc(bufs *b, size_t slen, size_t rlen, size_t off);
void bufs_free(bufs *b);
void bufs_init(bufs *b, int coll, int me, int p, size_t n, int root,
               int in_place, unsigned seed);
int call(int coll, int kcoll, bufs *b, size_t n, int root, int in_place,
         MPI_Comm comm, const char *alg, int me);
size_t first_diff(const unsigned char *a, const unsigned char *b, size_t n);

/* One case, and matrices of them (algos_check_case.c). */
void run_case(int coll, const char *alg, size_t n, int root, int in_place,
              MPI_Comm comm, const char *comm_name);
char **specs_for(int coll, int p, int *count);
void free_specs(char **s, int count);
void matrix(MPI_Comm comm, const char *comm_name, const size_t *sz,
            size_t nsz, int all_algs);
void bad_ids(MPI_Comm comm);

/* The modes of algos_check.c's comment (algos_check_modes.c), one
 * function each; --mode fallback and badtable are main's own. */
void full(void);
void strict(void);
void nostate(void);
void modelless(void);
void handoff(void);
void table(void);
void tabled(void);
void types(void);
void big(void);
void vnodes(void);

#endif
