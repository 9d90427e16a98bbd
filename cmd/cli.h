/* cli: what every kcal subcommand shares — the one-line error message, the
 * options every command parses alike and the params options; with the exit
 * codes (common/exit_code.h) and progress on stderr (common/progress.h),
 * which the measuring code below the commands uses too. Only command code
 * (the *_main functions) uses this; library code returns errors instead. */
#ifndef KCAL_CLI_H
#define KCAL_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "common/exit_code.h"
#include "common/mpi_flavor.h"
#include "common/progress.h"
#include "model/model.h"
#include "model/params.h"

/* Print "kcal <cmd>: <message>\n" on stderr (one line). */
void kcal_cli_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void kcal_cli_warn(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The one message for a getopt_long failure (opterr = 0 and an optstring
 * starting with ':'): c is ':' (an option without its value) or anything
 * else (an unknown option). Prints one line; returns -1. */
int kcal_cli_bad_option(const char *cmd, int c, char **argv);

/* The options every command shares at the end of its getopt switch: -h /
 * --help prints usage on stdout and returns 1 (done); anything else is
 * kcal_cli_bad_option (-1). Use as `default: return kcal_cli_other_option(
 * CMD, c, argv, usage);` with 'h' in the optstring. */
int kcal_cli_other_option(const char *cmd, int c, char **argv,
                          void (*usage)(FILE *));

/* Parse a whole decimal integer in [lo, hi]; 0 or -1. */
int kcal_cli_int(const char *s, long lo, long hi, long *out);

/* The value of a whole-number option: kcal_cli_int, and on failure the one
 * line "OPTION: 'ARG' is not WHAT" (WHAT says the range in words). 0 or -1. */
int kcal_cli_int_option(const char *cmd, const char *option, const char *arg,
                        long lo, long hi, const char *what, long *out);

/* The options of the commands that launch MPI programs (bench, tune,
 * probe, profile), parsed in one place. Each command lists in its
 * getopt_long table the ones it takes (KCAL_LONGOPT_*; -q and -v are the
 * short options 'q' and 'v' with --quiet and --verbose), sets the defaults
 * of the fields it uses, and hands its own options to
 * kcal_cli_parse_launch as a function. */
typedef struct {
    const char *mpirun; /* --mpirun CMD, which must not be empty; else
                           $KCAL_MPIRUN when set and not empty (NULL: the
                           MPI library's launcher) */
    const char *mpi;    /* --mpi NAME as given (NULL: $KCAL_MPI, else Open MPI) */
    const kcal_mpi_flavor *flavor; /* what --mpi names (after parsing) */
    long timeout;       /* --timeout S, whole seconds >= 0 (0: none) */
    long p;             /* --p P, from min_p to 2^20 (0: not given) */
    long iters, warmup; /* --iterations N >= 1, --warmup N >= 0 */
    int quiet, verbose; /* -q, -v */
    int min_p;          /* the command's smallest --p (1 or 2) */
    int require_p;      /* --p is required, checked with the options */
    const char *iters_option; /* the name --iterations goes by in errors */
} kcal_launch_opts;

enum {
    KCAL_OPT_MPIRUN = 0x100, /* above every short option */
    KCAL_OPT_MPI,
    KCAL_OPT_TIMEOUT,
    KCAL_OPT_P,
    KCAL_OPT_ITERS,
    KCAL_OPT_WARMUP,
};
#define KCAL_LONGOPT_MPIRUN {"mpirun", required_argument, 0, KCAL_OPT_MPIRUN}
#define KCAL_LONGOPT_MPI {"mpi", required_argument, 0, KCAL_OPT_MPI}
#define KCAL_LONGOPT_TIMEOUT {"timeout", required_argument, 0, KCAL_OPT_TIMEOUT}
#define KCAL_LONGOPT_P {"p", required_argument, 0, KCAL_OPT_P}
#define KCAL_LONGOPT_WARMUP {"warmup", required_argument, 0, KCAL_OPT_WARMUP}
#define KCAL_LONGOPT_QUIET {"quiet", no_argument, 0, 'q'}
#define KCAL_LONGOPT_VERBOSE {"verbose", no_argument, 0, 'v'}
/* The end of the table of a command that takes all of --mpirun, --mpi,
 * --timeout, -q and -v, with --help. */
#define KCAL_LONGOPTS_LAUNCH_END                                              \
    KCAL_LONGOPT_MPIRUN, KCAL_LONGOPT_MPI, KCAL_LONGOPT_TIMEOUT,              \
    KCAL_LONGOPT_QUIET, KCAL_LONGOPT_VERBOSE,                                 \
    {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}

/* A command's own options: option c of getopt_long, its value arg. 0
 * taken, -1 a bad value (its one line printed), KCAL_CLI_NOT_MINE not one
 * of the command's. */
#define KCAL_CLI_NOT_MINE 2
typedef int (*kcal_cli_option_fn)(int c, const char *arg, void *ctx);

/* A launching command's whole command line: every option of argv
 * (getopt_long with optstring and longopts) to own(c, optarg, ctx), the
 * ones it does not take to the launch options, then -h/--help or the
 * unknown-option line; no words left over; --p when o->require_p; then
 * $KCAL_MPIRUN when --mpirun was not given, and the MPI library --mpi
 * names into o->flavor. 0, 1 (--help printed) or -1 (the error line
 * printed). */
int kcal_cli_parse_launch(const char *cmd, int argc, char **argv,
                          const char *optstring,
                          const struct option *longopts,
                          void (*usage)(FILE *), kcal_cli_option_fn own,
                          void *ctx, kcal_launch_opts *o);

/* --coll names a collective (into *coll) and --p was given: else the one
 * line, "--coll is required", "--coll: unknown collective 'X' (...)" or
 * "--p is required", and -1. */
int kcal_cli_coll_and_p(const char *cmd, const char *coll_s, kcal_coll *coll,
                        const kcal_launch_opts *o);

/* As kcal_cli_coll_and_p, and a v-collective's name (model/irregular.h)
 * as well: *vcoll 1 then, *coll untouched. */
int kcal_cli_any_coll_and_p(const char *cmd, const char *coll_s,
                            kcal_coll *coll, int *vcoll,
                            const kcal_launch_opts *o);

/* --p fits this machine (bench/capacity.h: kcal_capacity_max_ranks);
 * *cores gets its core count. 0, or -1 after the one line. */
int kcal_cli_launch_fits(const char *cmd, const kcal_launch_opts *o,
                         int *cores);

/* --format is table or csv: 0, or -1 after the one line. */
int kcal_cli_table_or_csv(const char *cmd, const char *format);

/* The checks behind --mpirun and --timeout, for a command that parses
 * them itself: each prints its one line and returns -1 on a bad value,
 * else sets *out and returns 0. */
int kcal_cli_mpirun_option(const char *cmd, const char *arg, const char **out);
int kcal_cli_timeout_option(const char *cmd, const char *arg, long *out);

/* After getopt: words left over are an error ("unexpected argument 'W'"),
 * one line. 0 when there are none, else -1. */
int kcal_cli_no_operands(const char *cmd, int argc, char **argv, int next);

/* --params FILE / --machine NAME / $KCAL_PARAMS / knl: load, print which on
 * stderr ("kcal predict: params: ..."), and print a warning per unknown key.
 * Returns 0, or -1 after printing the error line. */
int kcal_cli_load_params(const char *cmd, const char *file,
                         const char *machine, kcal_params *p);

/* The same in two halves, for a command that checks more of the params
 * before it says anything (so a rejected file is one line): load quietly,
 * writing which params were chosen into `chosen`; then say so. */
int kcal_cli_load_params_quietly(const char *cmd, const char *file,
                                 const char *machine, kcal_params *p,
                                 char *chosen, size_t chosenlen);
void kcal_cli_say_params(const char *cmd, const kcal_params *p,
                         const char *chosen);

#endif
