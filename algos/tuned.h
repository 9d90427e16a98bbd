/* tuned: the selection table of $KCOLL_TABLE for calls that leave the
 * algorithm to libkcoll (algorithm NULL): `kcal tune`'s measured choices,
 * in the format of model/table.h (docs/tune.md). Not installed.
 *
 * The file is read once per process, on the first call that asks. A rule
 * that matches a call decides it; without a table, or without a matching
 * rule, the model decides as before (kcoll.c). A table that does not read
 * is one warning line per process, and then every call with algorithm
 * NULL runs the MPI library's own collective: a tuning problem must never
 * stop a job, and those results are still right. */
#ifndef KCOLL_TUNED_H
#define KCOLL_TUNED_H

#include <stdatomic.h>
#include <stdint.h>

#include "model/irregular.h"
#include "model/model.h"

typedef enum {
    KCOLL_TUNED_NONE = 0, /* no table, or no rule for this call */
    KCOLL_TUNED_MPI,      /* an `mpi` rule, or a table that does not read */
    KCOLL_TUNED_ALG       /* a rule's algorithm: *alg, and *k (-1 where the
                           * rule's k does not fit p or it has none: the
                           * model's best k for that algorithm) */
} kcoll_tuned_verdict;

/* What the table says for a call of coll with p processes and n bytes. */
kcoll_tuned_verdict kcoll_tuned_decide(kcal_coll coll, int p, uint64_t n,
                                       const kcal_algorithm **alg, int *k);

/* What the table says for a NULL call of v-collective v (irregular.def's
 * index) at p: NONE (no table, or no rule of v at p), MPI (a table that
 * does not read), or ALG with *below, *valg, *w and staged as
 * kcal_table_vchoice gives them (*valg NULL where every rule is `mpi`). */
kcoll_tuned_verdict kcoll_tuned_vdecide(int v, int p, uint64_t *below,
                                        const kcal_valgorithm **valg,
                                        int *w, uint64_t staged[2]);

/* Whether $KCOLL_TABLE is set but does not read (after the first
 * kcoll_tuned_decide): every NULL call then runs the MPI library's. */
int kcoll_tuned_unusable(void);

/* Calls a rule of the table decided (the `mpi` ones included), for the
 * tests; a bad table decides nothing. */
extern atomic_ulong kcoll_tuned_decisions;

#endif
