/* progress: see progress.h. */
#include "common/progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

double kcal_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void kcal_progress_init(kcal_progress *pr, const char *cmd, int quiet)
{
    pr->cmd = cmd;
    pr->quiet = quiet;
    pr->start = kcal_now();
    pr->last_print = 0;
    pr->tty = isatty(STDERR_FILENO);
}

void kcal_progress_update(kcal_progress *pr, const char *phase, double done,
                          double total)
{
    if (pr->quiet)
        return;
    double now = kcal_now();
    int last = done >= total;
    /* On a pipe (CI logs) print rarely; on a terminal redraw often. */
    double every = pr->tty ? 0.25 : 2.0;
    if (!last && now - pr->last_print < every)
        return;
    pr->last_print = now;
    double frac = total > 0 ? done / total : 1;
    if (frac > 1)
        frac = 1;
    double elapsed = now - pr->start;
    char left[48] = "";
    if (frac > 0.02 && frac < 1)
        snprintf(left, sizeof left, " ~%.0f s left",
                 elapsed * (1 - frac) / frac + 0.5);
    fprintf(stderr, "%skcal %s: [%s] %3.0f%%%s%s", pr->tty ? "\r\033[K" : "",
            pr->cmd, phase, 100 * frac, left, pr->tty ? "" : "\n");
    fflush(stderr);
}

void kcal_progress_finish(kcal_progress *pr, const char *summary)
{
    if (pr->quiet)
        return;
    fprintf(stderr, "%skcal %s: %s (%.1f s)\n", pr->tty ? "\r\033[K" : "",
            pr->cmd, summary, kcal_now() - pr->start);
}
