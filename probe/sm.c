/* sm: T_sm_X by launching an MPI helper with mpirun (see sm.h). */
#include "sm.h"
#include "err.h"
#include "exe.h"
#include "launch.h"

#include <stdio.h>
#include <string.h>

const char *kcal_sm_find_helper(char *buf, size_t len)
{
    return kcal_exe_find("KCAL_SM_BENCH", "kcal-sm-bench", buf, len) == 0
               ? buf
               : NULL;
}

typedef struct {
    kcal_raw *raw;
    int got;
    char last[256]; /* the last line that was not a sample */
} sm_output;

/* "kcal-sm OP P REP SECONDS" lines become samples sm_<OP> (fit/raw.h),
 * "kcal-mpi COLL P BYTES REP SECONDS" samples mpi_<COLL> with the bytes,
 * "kcal-kcoll COLL ALG P BYTES REP SECONDS" samples kcoll_<COLL> whose
 * pattern is the algorithm (with its k). */
static void on_line(void *ctx, const char *line)
{
    sm_output *o = ctx;
    char op[32];
    int np, rep;
    long bytes;
    double sec;
    char spec[32];
    if (sscanf(line, "kcal-kcoll %15s %31s %d %ld %d %lg", op, spec, &np,
               &bytes, &rep, &sec) == 6) {
        char phase[48];
        snprintf(phase, sizeof phase, KCAL_PHASE_KCOLL_PREFIX "%s", op);
        if (kcal_raw_add(o->raw, phase, spec, np, 0, bytes, rep, sec) == 0)
            o->got++;
    } else if (sscanf(line, "kcal-mpi %15s %d %ld %d %lg", op, &np, &bytes,
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

/* One mpirun launch at p ranks (common/launch.h: own process group, the
 * timeout, Open MPI's root variables); parse its samples into raw. */
static int launch(const kcal_sm_setup *s, int p, kcal_raw *raw, char *err,
                  size_t errlen)
{
    char nb[3][16];
    snprintf(nb[0], sizeof nb[0], "%d", s->reps);
    snprintf(nb[1], sizeof nb[1], "%d", s->inner);
    snprintf(nb[2], sizeof nb[2], "%d", s->warmup);
    char *prog[] = {(char *)s->helper, nb[0], nb[1], nb[2], NULL};
    sm_output o = {raw, 0, ""};
    /* The probe is bound to one core; mpirun and its ranks would inherit
     * that (unbind), and a launcher that does not bind would stack every
     * rank on one core. cores 0: p stays within the cores, no
     * --oversubscribe. */
    kcal_launch_spec spec = {s->mpirun, p, 0, prog, s->timeout, 1, 0,
                             on_line, &o};
    kcal_launch_result r;
    size_t n0 = raw->n; /* a failed launch leaves no samples */
    if (kcal_launch_run(&spec, &r, err, errlen) != 0) {
        raw->n = n0;
        return -1;
    }
    char own[256], log[4096], where[4200] = "";
    const char *line = kcal_launch_err_line(&r, "kcal-sm-bench", own,
                                            sizeof own);
    if (!line && *o.last)
        line = o.last;
    int rc = -1;
    if (r.exec_errno) {
        char word[256];
        const char *l = s->mpirun ? s->mpirun : "mpirun";
        l += strspn(l, " \t");
        snprintf(word, sizeof word, "%.*s", (int)strcspn(l, " \t"), l);
        kcal_set_err(err, errlen, "cannot run '%s': %s", word,
                     strerror(r.exec_errno));
    } else if (r.timed_out || r.status != 0 || o.got == 0) {
        if (kcal_launch_save_err(&r, "probe", log, sizeof log) == 0)
            snprintf(where, sizeof where, "; mpirun's output: %s", log);
        if (r.timed_out)
            kcal_set_err(err, errlen, "mpirun -np %d took longer than %.0f s; "
                         "ended it%s", p, s->timeout, where);
        else
            kcal_set_err(err, errlen, "mpirun -np %d failed (%s %d)%s%s%s", p,
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
        if (launch(s, (int)s->ps[i], raw, err, errlen) < 0)
            return -1;
        kcal_meter_tick(s->meter, "T_sm (mpirun)", s->tick_units);
    }
    return 0;
}
