/* progress: a long job's progress on stderr and the clock it runs on, for
 * the commands and the measuring code they call (probe/, bench/). */
#ifndef KCAL_PROGRESS_H
#define KCAL_PROGRESS_H

/* Progress on stderr: "kcal probe: [phase] 42% ~13 s left". Rate-limited
 * (at most ~4 updates a second, always the last); silent when quiet is set.
 * Redraws in place on a terminal, one line per update otherwise. */
typedef struct {
    const char *cmd;
    int quiet;
    double start, last_print;
    int tty;
} kcal_progress;

void kcal_progress_init(kcal_progress *pr, const char *cmd, int quiet);
/* done/total of the whole job; phase names what is running now. */
void kcal_progress_update(kcal_progress *pr, const char *phase, double done,
                          double total);
void kcal_progress_finish(kcal_progress *pr, const char *summary);

/* Monotonic seconds. */
double kcal_now(void);

#endif
