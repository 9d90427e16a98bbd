/* choice: what one call of libkcoll runs, and why (choice.h). The params
 * are read here, once per process; the model is asked here; the table is
 * asked here (through tuned.c, which owns reading it); the run-time check
 * is verify.c's. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algos/choice.h"
#include "algos/config.h"
#include "algos/tuned.h"
#include "algos/verify.h"
#include "algos/vrows.h"
#include "model/irregular.h"
#include "model/params.h"

atomic_ulong kcoll_handoffs;

/* Params for the model's choices: $KCAL_PARAMS (config.h) or the embedded
 * default, read once per process (pthread_once: calls may come from any
 * thread) and never changed afterwards, so readers need no lock. A file that does not
 * read is reported once, here, and leaves the model unable to choose. */
static pthread_once_t params_once = PTHREAD_ONCE_INIT;
static kcal_params params;
static int params_ok;

static void read_params(void)
{
    char err[KCAL_ERRLEN];
    const char *file = kcoll_config_path(KCOLL_CFG_PARAMS);
    kcal_params_init(&params);
    params_ok = kcal_params_choose(file,
                                   file ? NULL : KCAL_PARAMS_DEFAULT_MACHINE,
                                   &params, NULL, 0, err, sizeof err) == 0;
    if (!params_ok)
        fprintf(stderr, "kcoll: warning: $%s: %s; calls that leave the "
                        "algorithm to the model use the MPI library's own "
                        "collectives (pid %ld)\n",
                kcoll_config_name(KCOLL_CFG_PARAMS), err, (long)getpid());
}

const kcal_params *kcoll_choice_params(void)
{
    pthread_once(&params_once, read_params);
    return params_ok ? &params : NULL;
}

void kcoll_choice_rate_view(const kcal_params *prm, int rate,
                            kcal_params *view)
{
    kcal_params_reduce_view(prm, rate >= 0 ? KCAL_PK_MEMBER(reduce_rate, rate)
                                           : -1,
                            view);
}

static void warn_nonfinite(kcal_coll coll, const kcal_algorithm *only, int p,
                           uint64_t n)
{
    static atomic_int warned;
    if (!atomic_exchange(&warned, 1))
        fprintf(stderr, "kcoll: warning: %s: every predicted time of %s%s%s "
                        "at p = %d, n = %llu overflows (inf or NaN); using "
                        "the MPI library's own collective where the model "
                        "chooses (pid %ld)\n",
                params.origin, kcal_coll_name(coll), only ? " " : "",
                only ? only->id : "", p, (unsigned long long)n,
                (long)getpid());
}

static void warn_no_cma(void)
{
    static atomic_int warned;
    if (!atomic_exchange(&warned, 1))
        fprintf(stderr, "kcoll: warning: process_vm_readv is not permitted "
                        "here (pid %ld); using the MPI library's own "
                        "collectives (set KCOLL_STRICT=1 to fail instead)\n",
                (long)getpid());
}

/* A counter for tests, not a lock-prefixed add on every call. */
static void count_handoff(void)
{
    atomic_store_explicit(&kcoll_handoffs,
                          atomic_load_explicit(&kcoll_handoffs,
                                               memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* Whether the params hand n bytes of coll's calls on c to the MPI library
 * (the model ranks its row first exactly there: below mpi_<coll>_below and
 * in the size classes of mpi_<coll>_mask, with the line's keys, p >= 2),
 * read once per communicator and collective: the pure choice's fast path
 * for calls of a microsecond, where asking the model was a tenth of what
 * libkcoll added to them. */
static int handoff(kcoll_comm *c, kcal_coll coll, uint64_t n)
{
    if (!(c->handoff_known & (1u << coll))) {
        const kcal_params *prm = kcoll_choice_params();
        double below =
            prm ? kcal_params_get_key(prm, KCAL_PK_MEMBER(mpi_below, coll), 0)
                : 0;
        c->handoff[coll] = 0;
        c->handoff_mask[coll] = 0;
        if (below >= 1 && kcal_model_mpi_time(prm, coll, c->size, 0) >= 0) {
            c->handoff[coll] = below >= 18446744073709551615.0
                                   ? UINT64_MAX
                                   : (uint64_t)ceil(below);
            c->handoff_mask[coll] =
                kcal_params_get_key(prm, KCAL_PK_MEMBER(mpi_mask, coll), 0);
        }
        c->handoff_known |= 1u << coll;
    }
    return c->handoff[coll] &&
           kcal_model_handed_off((double)c->handoff[coll],
                                 c->handoff_mask[coll], n);
}

/* The slot of a key: a multiplicative hash of (coll, rate, n, in_place,
 * only). */
static kcoll_choice_slot *choice_slot(kcoll_comm *c, kcal_coll coll,
                                      int rate, uint64_t n, int in_place,
                                      const kcal_algorithm *only)
{
    uint64_t h = n ^ ((uint64_t)coll << 58) ^ ((uint64_t)in_place << 57) ^
                 ((uint64_t)(only ? only->index + 1 : 0) << 48) ^
                 ((uint64_t)(rate + 1) << 40);
    h *= 0x9e3779b97f4a7c15ull; /* the high bits mix every bit of the key */
    return &c->choices[(h >> 40) % KCOLL_CHOICE_SLOTS];
}

/* The model's (alg, k) for this call, remembered per communicator: among
 * every algorithm (only = NULL) or among one throttled algorithm's k.
 * MPI_SUCCESS with *out set, or with *use_mpi = 1 when the model chose the
 * MPI library's collective (its measured line is faster here: no warning)
 * or cannot choose (the warning is printed). */
static int model_choice(kcoll_comm *c, kcal_coll coll, int rate,
                        uint64_t n, int in_place, const kcal_algorithm *only,
                        kcal_choice *out, int *use_mpi)
{
    const kcal_params *prm = kcoll_choice_params();
    *use_mpi = 0;
    if (!prm) {
        *use_mpi = 1;
        return MPI_SUCCESS;
    }
    kcoll_choice_slot *s = choice_slot(c, coll, rate, n, in_place, only);
    if (!(s->used && s->coll == coll && s->rate == rate && s->n == n &&
          s->in_place == in_place && s->only == only)) {
        *s = (kcoll_choice_slot){.used = 1, .coll = coll, .rate = rate,
                                 .n = n, .in_place = in_place, .only = only};
        kcal_params view;
        kcoll_choice_rate_view(prm, rate, &view);
        /* The default model for these params: full for a probed file. */
        s->rc = kcal_model_select(kcal_model_default(prm), &view, coll,
                                  c->size, n, in_place, only, &s->choice);
    }
    if (s->rc == KCAL_SELECT_NONFINITE) {
        warn_nonfinite(coll, only, c->size, n);
        *use_mpi = 1;
        return MPI_SUCCESS;
    }
    if (s->rc != 0)
        return MPI_ERR_ARG; /* no valid (alg, k) at this p */
    if (kcal_model_is_mpi(s->choice.alg)) {
        count_handoff();
        *use_mpi = 1;
        return MPI_SUCCESS;
    }
    *out = s->choice;
    return MPI_SUCCESS;
}

/* The user's "id" or "id:k" (spec not NULL) -> algorithm and k; k = -1 when
 * the id is a throttled one without k, which the model must choose. */
static int parse(kcal_coll coll, const char *spec, int p,
                 const kcal_algorithm **alg, int *k)
{
    char id[64];
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (len == 0 || len >= sizeof id)
        return MPI_ERR_ARG;
    memcpy(id, spec, len);
    id[len] = '\0';
    const kcal_algorithm *a = kcal_model_find_algorithm(coll, id);
    if (!a)
        return MPI_ERR_ARG;
    long v = 0;
    if (colon) {
        char *end;
        errno = 0;
        v = strtol(colon + 1, &end, 10);
        if (errno || end == colon + 1 || *end || v < 1 || v > INT_MAX)
            return MPI_ERR_ARG;
    } else if (a->kind == KCAL_PARAM_STRIDE) {
        v = 1;
    } else if (a->kind == KCAL_PARAM_THROTTLE) {
        if (p - 1 < 2)
            return MPI_ERR_ARG; /* no valid k at this p */
        *alg = a;
        *k = -1;
        return MPI_SUCCESS;
    }
    /* At p = 1 everything is a local copy; j = 1 is the plain ring. */
    int ok = kcal_model_k_valid(a, p, (int)v) ||
             (p == 1 && a->kind == KCAL_PARAM_STRIDE && v == 1);
    if (!ok)
        return MPI_ERR_ARG;
    *alg = a;
    *k = (int)v;
    return MPI_SUCCESS;
}

static void set_plan(kcoll_plan *plan, kcoll_plan_kind kind,
                     const kcal_algorithm *alg, int k, kcoll_why why)
{
    *plan = (kcoll_plan){kind, alg, k, why, NULL, 0, 0};
}

/* The model's best k for a throttled algorithm named without one. */
static int best_k(kcoll_comm *c, kcal_coll coll, uint64_t n, int in_place,
                  kcoll_plan *plan)
{
    kcal_choice ch;
    int use_mpi;
    KCOLL_TRY(model_choice(c, coll, -1, n, in_place, plan->alg, &ch, &use_mpi));
    if (use_mpi)
        set_plan(plan, KCOLL_PLAN_MPI, NULL, 0, KCOLL_WHY_NO_MODEL);
    else
        plan->k = ch.k;
    return MPI_SUCCESS;
}

/* The pure choice (KCOLL_VERIFY=0, and the two-level path's hand-off): a
 * table rule, the MPI library below the crossover, the model's first. */
static int pure_choice(kcoll_comm *c, kcal_coll coll, int rate, uint64_t n,
                       int in_place, kcoll_plan *plan)
{
    const kcal_algorithm *alg = NULL;
    int k = -1;
    kcoll_tuned_verdict v = kcoll_tuned_decide(coll, c->size, n, &alg, &k);
    if (c->size == 1 && v != KCOLL_TUNED_NONE) {
        /* At p = 1 every algorithm is the same local copy, faster than a
         * rule's "mpi" could be, and a table that does not read has
         * nothing to say about it: the rule decides (and is counted),
         * the local copy runs. Without a rule the model is asked, so
         * params it cannot use still warn. */
        set_plan(plan, KCOLL_PLAN_ALG, v == KCOLL_TUNED_ALG ? alg : NULL, 0,
                 KCOLL_WHY_TABLE);
        return MPI_SUCCESS;
    }
    if (v == KCOLL_TUNED_MPI) {
        set_plan(plan, KCOLL_PLAN_MPI, NULL, 0, KCOLL_WHY_TABLE);
        return MPI_SUCCESS;
    }
    if (v == KCOLL_TUNED_ALG && c->spans_nodes) {
        /* The rule names the node steps (k < 0: each node's best). */
        set_plan(plan, KCOLL_PLAN_TWO_LEVEL, alg, k, KCOLL_WHY_TABLE);
        return MPI_SUCCESS;
    }
    if (v == KCOLL_TUNED_ALG) {
        set_plan(plan, KCOLL_PLAN_ALG, alg, k, KCOLL_WHY_TABLE);
        return k < 0 ? best_k(c, coll, n, in_place, plan) : MPI_SUCCESS;
    }
    if (handoff(c, coll, n)) {
        count_handoff();
        set_plan(plan, KCOLL_PLAN_MPI, NULL, 0, KCOLL_WHY_HANDOFF);
        return MPI_SUCCESS;
    }
    if (c->spans_nodes) {
        set_plan(plan, KCOLL_PLAN_TWO_LEVEL, NULL, -1, KCOLL_WHY_MODEL);
        return MPI_SUCCESS;
    }
    kcal_choice ch;
    int use_mpi;
    KCOLL_TRY(model_choice(c, coll, rate, n, in_place, NULL, &ch, &use_mpi));
    if (use_mpi)
        set_plan(plan, KCOLL_PLAN_MPI, NULL, 0,
                 kcoll_choice_params() ? KCOLL_WHY_HANDOFF : KCOLL_WHY_NO_MODEL);
    else
        set_plan(plan, KCOLL_PLAN_ALG, ch.alg, ch.k, KCOLL_WHY_MODEL);
    return MPI_SUCCESS;
}

int kcoll_choose(kcoll_comm *c, kcal_coll coll, int rate,
                 const char *algorithm, size_t n, int in_place,
                 kcoll_plan *plan)
{
    int p = c->size;
    set_plan(plan, KCOLL_PLAN_ALG, NULL, -1, KCOLL_WHY_USER);
    if (algorithm) {
        const kcal_algorithm *alg;
        int k;
        KCOLL_TRY(parse(coll, algorithm, p, &alg, &k));
        set_plan(plan, KCOLL_PLAN_ALG, alg, k, KCOLL_WHY_USER);
    }
    /* No state (comm.c): the MPI library on the user's communicator, on
     * every process alike. */
    if (c->no_state) {
        set_plan(plan, KCOLL_PLAN_MPI, NULL, 0, KCOLL_WHY_NO_STATE);
        return MPI_SUCCESS;
    }
    /* Across nodes each node's state knows whether CMA works there. */
    if (!c->spans_nodes && !c->cma_ok) {
        if (kcoll_config_on(KCOLL_CFG_STRICT))
            return MPI_ERR_OTHER;
        warn_no_cma();
        set_plan(plan, KCOLL_PLAN_MPI, NULL, 0, KCOLL_WHY_NO_CMA);
        return MPI_SUCCESS;
    }
    if (c->spans_nodes) {
        /* The user's algorithm names the node steps; NULL: the hand-off
         * for the whole communicator, else each node chooses (and
         * verifies) at its size. */
        if (algorithm) {
            plan->kind = KCOLL_PLAN_TWO_LEVEL;
            return MPI_SUCCESS;
        }
        return pure_choice(c, coll, rate, (uint64_t)n, in_place, plan);
    }
    if (algorithm)
        return plan->k < 0 ? best_k(c, coll, (uint64_t)n, in_place, plan)
                           : MPI_SUCCESS;
    if (!kcoll_choice_verified(c, n))
        return pure_choice(c, coll, rate, (uint64_t)n, in_place, plan);
    return kcoll_verify_plan(c, coll, rate, (uint64_t)n, in_place, plan);
}

int kcoll_choice_vwindow(kcoll_comm *c, kcal_coll regular, uint64_t n)
{
    int p = c->size;
    if (p <= 2)
        return 1;
    size_t na;
    const kcal_algorithm *rows = kcal_model_algorithms(regular, &na), *thr = NULL;
    for (size_t i = 0; i < na && !thr; i++)
        if (rows[i].kind == KCAL_PARAM_THROTTLE)
            thr = &rows[i];
    kcal_choice ch;
    int use_mpi = 1;
    if (thr && model_choice(c, regular, -1, n ? n : 1, 0, thr, &ch, &use_mpi) ==
                   MPI_SUCCESS &&
        !use_mpi && ch.k >= 1 && ch.k <= p - 1)
        return ch.k;
    return p - 1;
}

/* Rank 0's choice for NULL calls of v-collective v on c, before it is
 * broadcast: msg = {MPI library, below, row, window, staged_from,
 * staged_to}. */
enum { VMSG = 6 };

static void vchoice_local(kcoll_comm *c, int v, const char *vname,
                          int64_t *msg)
{
    uint64_t below = 0;
    const kcal_valgorithm *valg = NULL;
    int w = 0;
    size_t na;
    const kcal_valgorithm *rows = kcal_model_valgorithms(vname, &na);
    uint64_t staged[2] = {0, 0};
    kcoll_tuned_verdict tv = kcoll_tuned_vdecide(v, c->size, &below, &valg,
                                                 &w, staged);
    if (tv == KCOLL_TUNED_MPI) {
        msg[0] = 1;
    } else if (tv == KCOLL_TUNED_ALG) {
        /* Every pair below the crossover and no algorithm named: the
         * whole call is the MPI library's. */
        msg[0] = !valg && below == UINT64_MAX;
        msg[1] = (int64_t)(below > INT64_MAX ? INT64_MAX : below);
        msg[2] = valg && rows ? (int64_t)(valg - rows) : -1;
        msg[3] = w;
        msg[4] = (int64_t)staged[0];
        msg[5] = (int64_t)staged[1];
    } else if (!kcoll_choice_params()) {
        msg[0] = 1;
    } else {
        /* The larger of the regular collective's crossover and the
         * model's for a pair (kcal_model_vcrossover): on the Zen 5 guest
         * the first is 256-512 B, where the regular collectives'
         * copy_in_out wins, but one CMA pair cost 3.7-5 us against
         * 1.1-1.5 us for the MPI library's v-collective at 1-2 KiB
         * (scripts/bench-irregular). */
        const kcal_params *prm = kcoll_choice_params();
        kcal_model_kind kind = kcal_model_default(prm);
        uint64_t x = rows ? kcal_model_vcrossover(kind, prm, rows, c->size)
                          : 0;
        if (rows)
            handoff(c, rows->regular, 0); /* loads the crossover */
        uint64_t h = rows ? c->handoff[rows->regular] : 0;
        msg[1] = (int64_t)(x > h ? x : h);
        /* The staged row from the measured crossover (where the regular
         * collective's own copy_in_out beat the MPI library) to where
         * the model prices the first row faster. */
        const kcal_valgorithm *st = kcal_model_vstaged_row(vname);
        uint64_t to = st ? kcal_model_vstaged(kind, prm, rows, st, c->size)
                         : 0;
        to = to > KCAL_V_STAGED_MAX ? KCAL_V_STAGED_MAX : to ? to - 1 : 0;
        if (to && to >= h) {
            msg[4] = (int64_t)h;
            msg[5] = (int64_t)to;
        }
    }
}

int kcoll_choice_irregular(kcoll_comm *c, int v, const char *vname,
                           int user_named, kcoll_vdecision *d)
{
    *d = (kcoll_vdecision){1, 0, -1, 0};
    if (c->no_state)
        return MPI_SUCCESS;
    /* Across nodes each node's state knows whether CMA works there; the
     * pairs it does not reach go as messages (irregular.h). */
    if (!c->spans_nodes && !c->cma_ok) {
        if (kcoll_config_on(KCOLL_CFG_STRICT))
            return MPI_ERR_OTHER;
        warn_no_cma();
        return MPI_SUCCESS;
    }
    d->use_mpi = 0;
    if (user_named)
        return MPI_SUCCESS;
    if (!(c->vbelow_known & (1u << v))) {
        int64_t msg[VMSG] = {0, 0, -1, 0, 0, 0};
        if (c->rank == 0)
            vchoice_local(c, v, vname, msg);
        KCOLL_TRY(MPI_Bcast(msg, VMSG, MPI_INT64_T, 0, c->comm));
        c->vbelow[v] = (uint64_t)msg[1];
        c->vrow[v] = (signed char)msg[2];
        c->vwindow[v] = (int)msg[3];
        c->vstaged_from[v] = (uint64_t)msg[4];
        c->vstaged_to[v] = (uint64_t)msg[5];
        if (msg[0])
            c->vmpi |= 1u << v;
        c->vbelow_known |= 1u << v;
    }
    d->below = c->vbelow[v];
    d->row = c->vrow[v];
    d->window = c->vwindow[v];
    d->use_mpi = (c->vmpi >> v) & 1u;
    return MPI_SUCCESS;
}

int kcoll_choice_verified(const kcoll_comm *c, size_t n)
{
    return !c->no_state && !c->spans_nodes && c->cma_ok && c->size >= 2 &&
           n > 0 && kcoll_config_number(KCOLL_CFG_VERIFY);
}

int kcoll_choice_observe(kcoll_comm *c, const kcoll_plan *plan, double t0,
                         double t1, int call_rc)
{
    return plan->slot ? kcoll_verify_observe(c, plan, t0, t1, call_rc)
                      : MPI_SUCCESS;
}

int kcoll_choice_start(kcoll_comm *c, int dom, const kcoll_plan *plan,
                       double *t0)
{
    if (plan->sync)
        KCOLL_TRY(MPI_Barrier(c->comm));
    *t0 = plan->timed || kcoll_test_slowed(dom, plan) ? kcoll_verify_clock()
                                                      : 0;
    return MPI_SUCCESS;
}

int kcoll_choice_finish(kcoll_comm *c, int dom, const kcoll_plan *plan,
                        size_t n, double t0, int rc)
{
    kcoll_test_slow(c->comm, dom, plan, n, t0);
    if (plan->slot) {
        double t1 = plan->timed ? kcoll_verify_clock() : t0;
        int orc = kcoll_choice_observe(c, plan, t0, t1, rc);
        if (rc == MPI_SUCCESS)
            rc = orc;
    }
    return rc;
}

const char *kcoll_plan_name(const kcoll_plan *plan)
{
    if (plan->kind == KCOLL_PLAN_MPI)
        return plan->why == KCOLL_WHY_NO_STATE ? "mpi(no-state)" : "mpi";
    if (plan->kind == KCOLL_PLAN_TWO_LEVEL)
        return "two_level";
    return plan->alg ? plan->alg->id : "none";
}

/* Whether cand already holds alg. */
static int listed(const kcoll_candidate *cand, int n, const kcal_algorithm *a)
{
    for (int i = 0; i < n; i++)
        if (cand[i].alg == a)
            return 1;
    return 0;
}

/* Whether libkcoll's row alg, predicted at t, is the twin of one listed:
 * the model prices them within KCOLL_VERIFY_TWIN of each other, which it
 * does where they move the same bytes the same way (at p = 2 allgather's
 * ring_source_read, its _flags form, recursive_doubling and ring_neighbor
 * are one exchange), and both move them by CMA or both through the
 * staging areas. A staged row and a CMA row priced alike are not twins:
 * the two paths move apart with the host's state (bcast at 4 MiB on the
 * Zen 5 guest, kernel 6.18.44-fc-v1272: copy_in_out and scatter_allgather
 * predicted within 0.4 %, the latter left out as a twin, and with
 * copy_in_out and direct_split slowed 4x auto ran 1.23-2.06x the
 * scatter_allgather it never tried, in all 10 launches of bench-auto). */
int kcoll_choice_twin(kcal_coll coll, const kcoll_candidate *cand, int n,
                      const kcal_algorithm *alg, double t)
{
    const kcal_algorithm *staged = kcal_model_staged(coll);
    for (int i = 0; i < n; i++)
        if (!kcal_model_is_mpi(cand[i].alg) && cand[i].predicted > 0 &&
            (cand[i].alg == staged) == (alg == staged) &&
            fabs(cand[i].predicted - t) <= KCOLL_VERIFY_TWIN * t)
            return 1;
    return 0;
}

int kcoll_choice_candidates(kcoll_comm *c, kcal_coll coll, int rate,
                            uint64_t n, int in_place, double spread,
                            int own_min, kcoll_candidate *out, int max)
{
    const kcal_algorithm *mpi = kcal_model_mpi(coll);
    const kcal_params *base = kcoll_choice_params(), *prm = NULL;
    kcal_params view;
    if (base) {
        kcoll_choice_rate_view(base, rate, &view);
        prm = &view;
    }
    int nc = 0;
    if (max < 1)
        return 0;
    kcal_prediction *pr = NULL;
    long np = prm ? kcal_model_rank(kcal_model_default(prm), prm, coll,
                                    c->size, n, in_place, 0, &pr)
                  : -1;
    /* A table's rule first: measured on this machine, it is the best
     * guess to start from. */
    const kcal_algorithm *talg = NULL;
    int tk = -1;
    kcoll_tuned_verdict v = kcoll_tuned_decide(coll, c->size, n, &talg, &tk);
    if (kcoll_tuned_unusable()) {
        /* A table that does not read sends every call to the MPI
         * library, verified or not (tuned.h): a tuning problem never
         * decides for the model. */
        free(pr);
        out[0] = (kcoll_candidate){mpi, 0, 0};
        return 1;
    }
    if (v == KCOLL_TUNED_MPI) {
        out[nc++] = (kcoll_candidate){mpi, 0, 0};
    } else if (v == KCOLL_TUNED_ALG) {
        for (long i = 0; tk < 0 && i < np; i++)
            if (pr[i].alg == talg)
                tk = pr[i].k; /* the rule's id without a k that fits */
        if (tk >= 0 || talg->kind == KCAL_PARAM_NONE)
            out[nc++] = (kcoll_candidate){talg, tk < 0 ? 0 : tk, 0};
    }
    double best = -1;
    int own = 0; /* libkcoll's algorithms listed */
    for (int i = 0; i < nc; i++)
        own += !kcal_model_is_mpi(out[i].alg);
    for (long i = 0; i < np && nc < max; i++) {
        if (!isfinite(pr[i].seconds) || listed(out, nc, pr[i].alg))
            continue;
        if (best < 0)
            best = pr[i].seconds;
        int is_mpi = kcal_model_is_mpi(pr[i].alg);
        /* Past the spread only to reach own_min of libkcoll's own: where
         * the host makes the model's first several times slower than its
         * prediction, the next best fallback is often libkcoll's next,
         * not the MPI library's (verify.h). */
        if (pr[i].seconds > spread * best && (own >= own_min || is_mpi)) {
            if (own >= own_min)
                break;
            continue;
        }
        /* A twin of one listed tells little the other does not: the
         * list's room goes to the next row that moves otherwise. At p = 2
         * on the Zen 5 guest (2026-12-07) allgather's list at 4 MiB was
         * copy_in_out and three twins of one exchange by reads (predicted
         * within 0.07 % of each other), and ring_source_write, predicted
         * 1.10x them, ran 0.84-0.96x them in all 10 launches with
         * copy_in_out slowed 4x, where auto, never trying it, ran 1.12x
         * the fastest row in 8 (0.82-1.07x without the slowing). */
        if (!is_mpi && own >= own_min &&
            kcoll_choice_twin(coll, out, nc, pr[i].alg, pr[i].seconds))
            continue;
        /* Room for the MPI library's at the end, where the model ranks it
         * below the others or does not rank it at all. */
        if (!is_mpi && nc == max - 1 && !listed(out, nc, mpi))
            break;
        out[nc++] = (kcoll_candidate){pr[i].alg, pr[i].k, pr[i].seconds};
        own += !is_mpi;
    }
    if (np > 0 && best < 0)
        warn_nonfinite(coll, NULL, c->size, n);
    /* The staged row within the spread is always measured: its time moves
     * with the host's passing state, which the probe priced once, while
     * the rows that fill the list ahead of it are variants of one CMA
     * mechanism that move together. With params probed while passing was
     * slow it came fifth to seventh at 8-16 KiB (1.4-2.4x the best's
     * prediction), behind four CMA variants, and was never tried, where it
     * was the fastest row in most launches and the 10,000-call loops ran
     * at 1.1-3.5x the fastest (Zen 5 guest, 2026-12-02). Where the list
     * is full it takes the place of libkcoll's last (the least predicted;
     * never the first, the model's or the table's). */
    const kcal_algorithm *staged = kcal_model_staged(coll);
    for (long i = 0; staged && best > 0 && i < np; i++) {
        if (pr[i].alg != staged || listed(out, nc, staged) ||
            !(pr[i].seconds <= spread * best))
            continue;
        int at = nc < max - (listed(out, nc, mpi) ? 0 : 1) ? nc : -1;
        for (int j = nc - 1; at < 0 && j > 0; j--)
            if (!kcal_model_is_mpi(out[j].alg))
                at = j;
        if (at == nc)
            nc++;
        if (at >= 0)
            out[at] = (kcoll_candidate){staged, pr[i].k, pr[i].seconds};
        break;
    }
    free(pr);
    if (!listed(out, nc, mpi)) {
        double t = prm ? kcal_model_mpi_time(prm, coll, c->size, n) : -1;
        out[nc < max ? nc++ : max - 1] = (kcoll_candidate){mpi, 0, t > 0 ? t : 0};
    }
    return nc;
}

int kcoll_choice_vcandidates(kcoll_comm *c, int v, uint64_t n, int in_place,
                             kcoll_candidate *out, int max)
{
    kcal_coll coll = kcoll_v_regular(v);
    const kcal_algorithm *mpi = kcal_model_mpi(coll);
    const kcal_params *prm = kcoll_choice_params();
    /* Every row's regular one, in irregular.def's order (so a table's
     * row index finds its own), repeats and all: the windowed rows stand
     * on their parallel one. Not cut at max: scatterv's fifth row
     * (copy_in_out, 1.2-2.5x the MPI library at 8 KiB on the Zen 3
     * guest) is its fourth distinct one. */
    const kcal_algorithm *rows[KCOLL_VROWS_MAX];
    int nrows = kcoll_v_regular_rows(v, rows, KCOLL_VROWS_MAX), nc = 0;
    if (max < 1)
        return 0;
    /* A table's row first, as for the other collectives. */
    if (c->vrow[v] >= 0 && c->vrow[v] < nrows && max > 1)
        out[nc++] = (kcoll_candidate){rows[(int)c->vrow[v]], 0, 0};
    kcal_prediction *pr = NULL;
    long np = prm ? kcal_model_rank(kcal_model_default(prm), prm, coll,
                                    c->size, n, in_place, 0, &pr)
                  : -1;
    /* Then every row, in the model's order at n (priced as the regular
     * collective at blocks of n: a proposal, the calls decide), the rows
     * it does not price after them. */
    for (long i = 0; i < np && nc < max - 1; i++)
        for (int r = 0; r < nrows; r++)
            if (pr[i].alg == rows[r] && !listed(out, nc, rows[r]) &&
                isfinite(pr[i].seconds))
                out[nc++] = (kcoll_candidate){rows[r], 0, pr[i].seconds};
    free(pr);
    for (int r = 0; r < nrows && nc < max - 1; r++)
        if (!listed(out, nc, rows[r]))
            out[nc++] = (kcoll_candidate){rows[r], 0, 0};
    double t = prm ? kcal_model_mpi_time(prm, coll, c->size, n) : -1;
    out[nc++] = (kcoll_candidate){mpi, 0, t > 0 ? t : 0};
    return nc;
}
