/* sm: T_sm_X by launching an MPI helper under the MPI launcher (see sm.h). */
#include "probe/sm.h"
#include "common/err.h"
#include "common/exe.h"
#include "common/launch.h"
#include "probe/reduce.h"

#include <stdio.h>
#include <string.h>

const char *kcal_sm_find_helper(const kcal_mpi_flavor *mpi, char *buf,
                                size_t len)
{
    if (!mpi)
        mpi = kcal_mpi_flavor_find("openmpi");
    return kcal_mpi_flavor_program(mpi, "KCAL_SM_BENCH", "kcal-sm-bench", buf,
                                   len) == 0
               ? buf
               : NULL;
}

typedef struct {
    kcal_raw *raw;
    int got;
    char last[256]; /* the last line that was not a sample */
    int p;          /* the ranks launched */
    int other_p;    /* a sample of another p: not one job of p ranks */
    int bad_reduce; /* a reduce line that did not parse */
} sm_output;

/* "kcal-sm OP P REP SECONDS" lines become samples sm_<OP> (fit/raw.h),
 * "kcal-mpi COLL P BYTES REP SECONDS" samples mpi_<COLL> with the bytes,
 * "kcal-kcoll COLL ALG P BYTES REP SECONDS" samples kcoll_<COLL> whose
 * pattern is the algorithm (with its k); "kcal-reduce ..." lines samples
 * of the reductions' op (reduce.h). */
static void on_line(void *ctx, const char *line)
{
    sm_output *o = ctx;
    char op[32];
    int np, rep;
    long bytes;
    double sec;
    char spec[32];
    /* A launcher of another MPI library than the helper's starts p
     * singletons: their samples say p = 1 and are not T_sm at p. */
    if ((sscanf(line, "kcal-kcoll %31s %31s %d", op, spec, &np) == 3 ||
         sscanf(line, "kcal-mpi %31s %d", op, &np) == 2 ||
         sscanf(line, "kcal-sm %31s %d", op, &np) == 2) &&
        np != o->p) {
        o->other_p = np;
        return;
    }
    int red = kcal_reduce_parse_line(line, o->raw);
    if (red != 0) {
        if (red < 0)
            o->bad_reduce = 1;
    } else if (sscanf(line, "kcal-kcoll %31s %31s %d %ld %d %lg", op, spec, &np,
               &bytes, &rep, &sec) == 6) {
        char phase[48];
        snprintf(phase, sizeof phase, KCAL_PHASE_KCOLL_PREFIX "%s", op);
        if (kcal_raw_add(o->raw, phase, spec, np, 0, bytes, rep, sec) == 0)
            o->got++;
    } else if (sscanf(line, "kcal-mpi %31s %d %ld %d %lg", op, &np, &bytes,
                      &rep, &sec) == 5) {
        char phase[48];
        snprintf(phase, sizeof phase, KCAL_PHASE_MPI_PREFIX "%s", op);
        if (kcal_raw_add(o->raw, phase, KCAL_PATTERN_MPI, np, 0, bytes, rep,
                         sec) == 0)
            o->got++;
    } else if (sscanf(line, "kcal-sm %31s %d %d %lg", op, &np, &rep, &sec) == 4) {
        char phase[48];
        snprintf(phase, sizeof phase, KCAL_PHASE_SM_PREFIX "%s", op);
        if (kcal_raw_add(o->raw, phase, KCAL_PATTERN_MPI, np, 0, 8, rep, sec) == 0)
            o->got++;
    } else if (*line) {
        snprintf(o->last, sizeof o->last, "%.200s", line);
    }
}

/* One launch at p ranks (common/launch.h: own process group, the
 * timeout, Open MPI's root variables); parse its samples into raw. */
static int launch(const kcal_sm_setup *s, int p, char *const *extra,
                  kcal_raw *raw, char *err, size_t errlen)
{
    char nb[3][16];
    snprintf(nb[0], sizeof nb[0], "%d", s->reps);
    snprintf(nb[1], sizeof nb[1], "%d", s->inner);
    snprintf(nb[2], sizeof nb[2], "%d", s->warmup);
    enum { MAX_EXTRA = 32 };
    char *prog[5 + MAX_EXTRA] = {(char *)s->helper, nb[0], nb[1], nb[2]};
    for (int i = 0; extra && extra[i]; i++) {
        if (i == MAX_EXTRA) {
            kcal_set_err(err, errlen, "more than %d extra arguments for "
                         "kcal-sm-bench", MAX_EXTRA);
            return -1;
        }
        prog[4 + i] = extra[i];
    }
    sm_output o = {raw, 0, "", p, 0, 0};
    /* The probe is bound to one core; mpirun and its ranks would inherit
     * that (unbind), and a launcher that does not bind would stack every
     * rank on one core. cores 0: p stays within the cores, no
     * --oversubscribe. */
    kcal_launch_spec spec = {s->mpirun, p, 0, prog, s->timeout, 1, 0,
                             on_line, &o, s->mpi, NULL, 0};
    kcal_launch_result r;
    size_t n0 = raw->n; /* a failed launch leaves no samples */
    if (kcal_launch_run(&spec, &r, err, errlen) != 0) {
        raw->n = n0;
        return -1;
    }
    /* How messages name the launch: Open MPI's "mpirun" as before, else
     * the library's launcher. */
    const char *what = s->mpi && strcmp(s->mpi->name, "openmpi")
                           ? s->mpi->launchers[0] : "mpirun";
    char own[256], log[4096], where[4200] = "", dflt[256];
    const char *line = kcal_launch_err_line(&r, "kcal-sm-bench", own,
                                            sizeof own);
    if (!line && *o.last)
        line = o.last;
    int rc = -1;
    if (r.exec_errno) {
        char word[256];
        const char *l = s->mpirun ? s->mpirun
                        : s->mpi ? kcal_mpi_flavor_launcher(s->mpi, dflt,
                                                            sizeof dflt)
                                 : "mpirun";
        l += strspn(l, " \t");
        snprintf(word, sizeof word, "%.*s", (int)strcspn(l, " \t"), l);
        kcal_set_err(err, errlen, "cannot run '%s': %s", word,
                     strerror(r.exec_errno));
    } else if (o.other_p) {
        kcal_set_err(err, errlen, "%s -np %d started jobs of %d process(es), "
                     "not one of %d: a launcher of another MPI library than "
                     "kcal-sm-bench's (%s)?", what, p, o.other_p, p,
                     s->helper);
    } else if (o.bad_reduce) {
        kcal_set_err(err, errlen, "kcal-sm-bench printed a reduce line the "
                     "probe cannot read (%s): a helper of another kcal?",
                     s->helper);
    } else if (r.timed_out || r.status != 0 || o.got == 0) {
        if (kcal_launch_save_err(&r, "probe", log, sizeof log) == 0)
            snprintf(where, sizeof where, "; %s's output: %s", what, log);
        if (r.timed_out)
            kcal_set_err(err, errlen, "%s -np %d took longer than %.0f s; "
                         "ended it%s", what, p, s->timeout, where);
        else
            kcal_set_err(err, errlen, "%s -np %d failed (%s %d)%s%s%s", what, p,
                         r.term_signal ? "signal" : "exit",
                         r.term_signal ? r.term_signal : r.status,
                         line ? ": " : "", line ? line : "", where);
    } else {
        rc = 0;
    }
    if (rc < 0)
        raw->n = n0;
    kcal_launch_result_free(&r);
    return rc;
}

int kcal_sm_measure(const kcal_sm_setup *s, kcal_raw *raw, char *err,
                    size_t errlen)
{
    for (size_t i = 0; i < s->n_ps; i++) {
        if (launch(s, (int)s->ps[i], i == 0 ? s->first_args : NULL, raw,
                   err, errlen) < 0)
            return -1;
        kcal_meter_tick(s->meter, "T_sm (MPI)", s->tick_units);
    }
    return 0;
}
