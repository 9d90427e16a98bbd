/* test_slow: the test builds' hook that makes chosen algorithms slow
 * ($KCOLL_TEST_SLOW, kcoll_test_slow_rules; verify.h has the rules'
 * syntax). Compiled to nothing without -DKCOLL_TEST_HOOKS: the library
 * users link never carries it. */
#include "algos/verify.h"

#ifdef KCOLL_TEST_HOOKS
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algos/config.h"
#include "algos/vrows.h"

/* $KCOLL_TEST_SLOW, parsed once: up to 8 rules. */
typedef struct {
    int coll; /* the domain (verify.h) */
    /* What the rule's id names, found once: the MPI library's
     * collective, or an algorithm of coll. A call is matched by its
     * plan's pointer, not its name: the quiet calls
     * (kcoll.c) pass through here in the test builds too, and should
     * cost those builds what they cost the library users link. */
    int mpi;
    const kcal_algorithm *alg;
    double factor;
    double floor_s; /* a floor instead ("2000us"): the call lasts at least
                     * this long, so every candidate given the same floor
                     * measures alike (a close decision, made at will) */
    int rank; /* -1: every rank */
    unsigned long after, seen;
    int when; /* 0 every call; 1 the calls started as a program makes
               * them (plan->sync 0: back to back); 2 the barrier-started
               * ones (the exploration's timed calls, the validation's) */
    double fastest[KCOLL_VERIFY_CLASSES]; /* own duration, by size class */
} slow_rule;

static pthread_once_t slow_once = PTHREAD_ONCE_INIT;
static slow_rule slow[8];
static int nslow;

static void parse_slow(const char *v)
{
    nslow = 0;
    if (!v)
        return;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", v);
    for (char *save = NULL, *r = strtok_r(buf, ",", &save); r && nslow < 8;
         r = strtok_r(NULL, ",", &save)) {
        char coll[32] = "", id[48] = "", when[16] = "any", fs[24] = "";
        double f = 1, floor_s = 0;
        int rank = -1;
        unsigned long after = 0;
        int got = sscanf(r, "%31[^:]:%47[^:]:%23[^:]:%d:%lu:%15s", coll, id,
                         fs, &rank, &after, when);
        char *end = NULL;
        double x = got >= 3 ? strtod(fs, &end) : 0;
        if (got >= 3 && end != fs && !strcmp(end, "us") && x > 0)
            floor_s = x * 1e-6;
        else if (got >= 3 && end != fs && !*end)
            f = x;
        else
            got = 0; /* neither a factor nor a floor: a bad rule */
        int w = !strcmp(when, "any") ? 0 : !strcmp(when, "steady") ? 1
                : !strcmp(when, "synced") ? 2 : -1;
        kcal_coll cc;
        int dom = -1, v = kcoll_v_from_name(coll);
        const kcal_algorithm *alg = NULL;
        int mpi = !strcmp(id, "mpi");
        if (v >= 0)
            dom = KCOLL_VERIFY_VDOM(v);
        else if (kcal_coll_from_name(coll, &cc) == 0)
            dom = (int)cc;
        if (got >= 3 && dom >= 0 && !mpi)
            alg = v >= 0 ? kcoll_v_row_regular(v, id)
                         : kcal_model_find_algorithm(cc, id);
        if (got < 3 || dom < 0 || !(f >= 1) || (!mpi && !alg) || w < 0) {
            fprintf(stderr, "kcoll: KCOLL_TEST_SLOW: bad rule '%s'\n", r);
            continue;
        }
        slow[nslow++] = (slow_rule){dom, mpi, alg, f, floor_s,
                                    got >= 4 ? rank : -1,
                                    got >= 5 ? after : 0, 0, w, {0}};
    }
}

static void read_slow(void)
{
    parse_slow(kcoll_config_text(KCOLL_CFG_TEST_SLOW));
}

unsigned kcoll_test_rules_gen = 1;

void kcoll_test_slow_rules(const char *rules)
{
    pthread_once(&slow_once, read_slow);
    parse_slow(rules);
    kcoll_test_rules_gen++;
}

/* The call takes factor times as long as the fastest call of the rule's
 * algorithm at this size class: its own duration would include waiting
 * for other ranks' slowed calls, and ranks taking turns would then slow
 * each other without end. A rule for every rank takes the slowest rank's
 * duration of each call (one MAX reduction, inside the timed call), so
 * every rank spins alike and the collective, not one rank's part of it,
 * is factor times slower: a root that does not wait (bcast's
 * copy_in_out) spun a multiple of its own fraction of a µs, and the
 * slowed algorithm still measured fastest in 3 of 10 launches. A rule for
 * one rank keeps that rank's own duration (the others make no
 * reduction). */
static int rule_applies(const slow_rule *r, int dom, const kcoll_plan *plan)
{
    static int world = -2;
    if (r->coll != dom ||
        (plan->kind == KCOLL_PLAN_MPI ? !r->mpi : plan->alg != r->alg) ||
        (r->when == 1 && plan->sync) || (r->when == 2 && !plan->sync))
        return 0;
    if (world == -2 && PMPI_Comm_rank(MPI_COMM_WORLD, &world) != MPI_SUCCESS)
        world = -1;
    return r->rank < 0 || r->rank == world;
}

int kcoll_test_slowed(int dom, const kcoll_plan *plan)
{
    pthread_once(&slow_once, read_slow);
    if (!nslow || plan->kind == KCOLL_PLAN_TWO_LEVEL)
        return 0;
    for (int i = 0; i < nslow; i++)
        if (rule_applies(&slow[i], dom, plan))
            return 1;
    return 0;
}

void kcoll_test_slow(MPI_Comm comm, int dom, const kcoll_plan *plan,
                     size_t n, double t0)
{
    if (!kcoll_test_slowed(dom, plan))
        return;
    for (int i = 0; i < nslow; i++) {
        slow_rule *r = &slow[i];
        if (!rule_applies(r, dom, plan))
            continue;
        double took = kcoll_verify_clock() - t0;
        if (r->rank < 0 &&
            PMPI_Allreduce(MPI_IN_PLACE, &took, 1, MPI_DOUBLE, MPI_MAX,
                           comm) != MPI_SUCCESS)
            continue;
        double *fast = &r->fastest[kcoll_verify_size_class(n)];
        if (*fast == 0 || took < *fast)
            *fast = took;
        if (r->seen++ < r->after)
            continue;
        double until = t0 + took + (r->factor - 1) * *fast;
        if (until < t0 + r->floor_s)
            until = t0 + r->floor_s;
        for (; kcoll_verify_clock() < until;)
            ;
    }
}
#endif
