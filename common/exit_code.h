/* exit_code: the exit status of every kcal command (README "Every command
 * prints one line ..."), shared by the commands (cmd/) and the launch code
 * that returns a command's status (cmd/bench_run.c). */
#ifndef KCAL_EXIT_CODE_H
#define KCAL_EXIT_CODE_H

enum {
    KCAL_EXIT_OK = 0,
    KCAL_EXIT_FAIL = 1,      /* a run-time failure (I/O, a child failed) */
    KCAL_EXIT_USAGE = 2,     /* bad input: options, sizes, params files */
    KCAL_EXIT_FORBIDDEN = 3, /* CMA is not permitted on this machine */
};

#endif
