/* network: launch kcal-net-bench between two nodes and fit the network's
 * Hockney parameters (network.h).
 *
 * net_alpha and net_beta: a weighted straight-line fit (GSL, fit/fit.h) of
 * the ping-pong's half round trip over the message size, 8 B to 4 MiB, each
 * size's median over the repetitions weighted by its standard error; a
 * negative intercept or slope is held at 0 and the other refitted, as the
 * probe does for its other lines. net_gap: the slope of the burst's time
 * over the number of messages posted at once (1 to 64 of 8 bytes). */
#include "probe/network.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/exe.h"
#include "fit/fit.h"
#include "common/launch.h"
#include "model/keys.h"

const char *kcal_net_find_helper(const kcal_mpi_flavor *mpi, char *buf,
                                 size_t len)
{
    if (!mpi)
        mpi = kcal_mpi_flavor_find("openmpi");
    return kcal_mpi_flavor_program(mpi, "KCAL_NET_BENCH", "kcal-net-bench",
                                   buf, len) == 0
               ? buf
               : NULL;
}

#define MAX_SAMPLES 4096

typedef struct {
    int got_hosts;
    char hosts[2][256];
    int shared;
    /* (x, seconds) samples of the two series */
    double ping_x[MAX_SAMPLES], ping_t[MAX_SAMPLES];
    double burst_x[MAX_SAMPLES], burst_t[MAX_SAMPLES];
    size_t n_ping, n_burst;
    char last[256];
} net_output;

static void on_line(void *ctx, const char *line)
{
    net_output *o = ctx;
    long x;
    int rep, shared;
    double t;
    if (sscanf(line, "kcal-net hosts %255s %255s %d", o->hosts[0], o->hosts[1],
               &shared) == 3) {
        o->got_hosts = 1;
        o->shared = shared;
    } else if (sscanf(line, "kcal-net pingpong %ld %d %lg", &x, &rep, &t) == 3) {
        if (o->n_ping < MAX_SAMPLES) {
            o->ping_x[o->n_ping] = (double)x;
            o->ping_t[o->n_ping++] = t;
        }
    } else if (sscanf(line, "kcal-net burst %ld %d %lg", &x, &rep, &t) == 3) {
        if (o->n_burst < MAX_SAMPLES) {
            o->burst_x[o->n_burst] = (double)x;
            o->burst_t[o->n_burst++] = t;
        }
    } else if (*line) {
        snprintf(o->last, sizeof o->last, "%.200s", line);
    }
}

/* The medians of the samples at each distinct x (in the order they came)
 * and their standard errors, into px, py, pse; returns the point count. */
static size_t points(const double *x, const double *t, size_t n, double *px,
                     double *py, double *pse)
{
    size_t np = 0;
    double *vals = malloc(sizeof *vals * (n ? n : 1));
    if (!vals)
        return 0;
    for (size_t i = 0; i < n; i++) {
        size_t j;
        for (j = 0; j < np; j++)
            if (px[j] == x[i])
                break;
        if (j < np)
            continue;
        size_t m = 0;
        for (size_t k = i; k < n; k++)
            if (x[k] == x[i])
                vals[m++] = t[k];
        kcal_stat st;
        if (kcal_stat_robust(vals, m, &st) < 0)
            continue;
        px[np] = x[i];
        py[np] = st.median;
        /* A spread of 0 (a timer's resolution) must not weigh infinitely. */
        pse[np] = st.se > 0 ? st.se : 1e-3 * st.median + 1e-12;
        np++;
    }
    free(vals);
    return np;
}

/* y = a + b·x with a, b >= 0 (one held at 0 when the free fit gives it
 * negative; `note` says which). 0, or -1. */
static int fit_nonneg(const double *x, const double *y, const double *se,
                      size_t n, const char *what, const char *ka,
                      const char *kb, double *a, double *b, double *sa,
                      double *sb, int *dof, char *note, size_t notelen)
{
    kcal_linfit lf;
    if (n < 2 || kcal_fit_line(x, y, se, n, &lf) < 0)
        return -1;
    *a = lf.c0, *b = lf.c1, *sa = lf.se0, *sb = lf.se1, *dof = lf.dof;
    if (lf.c1 < 0) {
        if (kcal_fit_const(y, se, n, a, sa) < 0)
            return -1;
        *b = *sb = 0;
        snprintf(note, notelen, "%s: the free fit gave %s = %.3g < 0; held at 0",
                 what, kb, lf.c1);
    } else if (lf.c0 < 0) {
        if (kcal_fit_origin(x, y, se, n, b, sb) < 0)
            return -1;
        *a = *sa = 0;
        snprintf(note, notelen, "%s: the free fit gave %s = %.3g < 0; held at 0",
                 what, ka, lf.c0);
    }
    return 0;
}

int kcal_net_measure(const kcal_net_setup *s, kcal_net_result *out, char *err,
                     size_t errlen)
{
    memset(out, 0, sizeof *out);
    net_output *o = calloc(1, sizeof *o);
    if (!o) {
        kcal_set_err(err, errlen, "out of memory");
        return -1;
    }
    char reps[16];
    snprintf(reps, sizeof reps, "%d", s->reps);
    char *prog[] = {(char *)s->helper, reps,
                    s->same_node_ok ? "--same-node" : NULL, NULL};
    /* cores 0: never --oversubscribe; the launcher places the two ranks. */
    kcal_launch_spec spec = {s->mpirun, 2, 0, prog, s->timeout, 1, 0,
                             on_line, o, s->mpi, NULL, 0};
    kcal_launch_result r;
    int rc = -1;
    if (kcal_launch_run(&spec, &r, err, errlen) != 0) {
        free(o);
        return -1;
    }
    char own[256], log[4096], where[4200] = "";
    const char *line = kcal_launch_err_line(&r, "kcal-net-bench", own,
                                            sizeof own);
    if (!line && *o->last)
        line = o->last;
    if (r.exec_errno) {
        char dflt[256];
        kcal_set_err(err, errlen, "cannot run the launcher '%s': %s",
                     s->mpirun ? s->mpirun
                     : s->mpi ? kcal_mpi_flavor_launcher(s->mpi, dflt,
                                                         sizeof dflt)
                              : "mpirun",
                     strerror(r.exec_errno));
    } else if (r.timed_out || r.status != 0 || !o->got_hosts) {
        if (kcal_launch_save_err(&r, "probe-network", log, sizeof log) == 0)
            snprintf(where, sizeof where, "; the launcher's output: %s", log);
        if (r.timed_out)
            kcal_set_err(err, errlen, "the network run took longer than "
                         "%.0f s; ended it%s", s->timeout, where);
        else
            kcal_set_err(err, errlen, "the network run failed (%s %d)%s%s%s",
                         r.term_signal ? "signal" : "exit",
                         r.term_signal ? r.term_signal : r.status,
                         line ? ": " : "", line ? line : "", where);
    } else {
        rc = 0;
    }
    kcal_launch_result_free(&r);
    if (rc < 0) {
        free(o);
        return -1;
    }
    memcpy(out->hosts, o->hosts, sizeof out->hosts);
    out->shared = o->shared;
    if (o->shared && !s->same_node_ok) {
        free(o);
        return 0;
    }
    double px[64], py[64], pse[64];
    size_t np = points(o->ping_x, o->ping_t, o->n_ping, px, py, pse);
    double unused, unused_se;
    int dof;
    const char *k_alpha = kcal_key_name(KCAL_PK_net_alpha);
    const char *k_beta = kcal_key_name(KCAL_PK_net_beta);
    const char *k_gap = kcal_key_name(KCAL_PK_net_gap);
    if (fit_nonneg(px, py, pse, np, "ping-pong", k_alpha, k_beta,
                   &out->alpha, &out->beta, &out->se_alpha, &out->se_beta,
                   &out->dof_line, out->note, sizeof out->note) < 0) {
        kcal_set_err(err, errlen, "the ping-pong fit failed (%zu sizes "
                     "measured, %zu samples)", np, o->n_ping);
        free(o);
        return -1;
    }
    np = points(o->burst_x, o->burst_t, o->n_burst, px, py, pse);
    char gap_note[256] = "";
    if (fit_nonneg(px, py, pse, np, "burst", "its intercept", k_gap,
                   &unused, &out->gap, &unused_se, &out->se_gap, &dof,
                   gap_note, sizeof gap_note) < 0) {
        kcal_set_err(err, errlen, "the burst fit failed (%zu points "
                     "measured, %zu samples)", np, o->n_burst);
        free(o);
        return -1;
    }
    out->dof_gap = dof;
    if (!*out->note && strstr(gap_note, k_gap))
        snprintf(out->note, sizeof out->note, "%s", gap_note);
    out->measured = 1;
    free(o);
    return 0;
}
