/* cli: what every kcal subcommand shares (see cli.h). */
#include "cmd/cli.h"

#include "model/irregular.h"
#include "bench/capacity.h"
#include "common/cores.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void vline(const char *cmd, const char *kind, const char *fmt,
                  va_list ap)
{
    /* One write per line, so lines from concurrent processes do not mix. */
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "kcal %s: %s", cmd, kind);
    if (n < 0 || (size_t)n >= sizeof buf)
        n = 0;
    vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    fprintf(stderr, "%s\n", buf);
}

void kcal_cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(cmd, "", fmt, ap);
    va_end(ap);
}

void kcal_cli_warn(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(cmd, "warning: ", fmt, ap);
    va_end(ap);
}

int kcal_cli_bad_option(const char *cmd, int c, char **argv)
{
    /* getopt_long has advanced optind past the offending word. */
    const char *word = argv[optind - 1];
    if (c == ':')
        kcal_cli_error(cmd, "option '%s' needs a value (kcal %s --help)", word,
                       cmd);
    else
        kcal_cli_error(cmd, "unknown option '%s' (kcal %s --help)", word, cmd);
    return -1;
}

int kcal_cli_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno == ERANGE || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int kcal_cli_other_option(const char *cmd, int c, char **argv,
                          void (*usage)(FILE *))
{
    if (c == 'h') {
        usage(stdout);
        return 1;
    }
    return kcal_cli_bad_option(cmd, c, argv);
}

int kcal_cli_int_option(const char *cmd, const char *option, const char *arg,
                        long lo, long hi, const char *what, long *out)
{
    if (kcal_cli_int(arg, lo, hi, out) == 0)
        return 0;
    kcal_cli_error(cmd, "%s: '%s' is not %s", option, arg, what);
    return -1;
}

int kcal_cli_mpirun_option(const char *cmd, const char *arg, const char **out)
{
    if (!*arg) {
        kcal_cli_error(cmd, "--mpirun needs a command");
        return -1;
    }
    *out = arg;
    return 0;
}

int kcal_cli_timeout_option(const char *cmd, const char *arg, long *out)
{
    return kcal_cli_int_option(cmd, "--timeout", arg, 0, 100000000,
                               "a number of seconds >= 0", out);
}

/* One of the launch options: 0 taken, -1 after its one line; anything
 * else is kcal_cli_other_option's (1 after --help, else -1). */
static int launch_option(const char *cmd, int c, char **argv,
                         void (*usage)(FILE *), kcal_launch_opts *o)
{
    switch (c) {
    case 'q':
        o->quiet = 1;
        return 0;
    case 'v':
        o->verbose = 1;
        return 0;
    case KCAL_OPT_MPI:
        o->mpi = optarg;
        return 0;
    case KCAL_OPT_MPIRUN:
        return kcal_cli_mpirun_option(cmd, optarg, &o->mpirun);
    case KCAL_OPT_TIMEOUT:
        return kcal_cli_timeout_option(cmd, optarg, &o->timeout);
    case KCAL_OPT_P: {
        char what[48];
        snprintf(what, sizeof what, "a process count >= %d", o->min_p);
        return kcal_cli_int_option(cmd, "--p", optarg, o->min_p, 1 << 20,
                                   what, &o->p);
    }
    case KCAL_OPT_ITERS:
        return kcal_cli_int_option(cmd, o->iters_option, optarg, 1,
                                   100000000, "a count >= 1", &o->iters);
    case KCAL_OPT_WARMUP:
        return kcal_cli_int_option(cmd, "--warmup", optarg, 0, 100000000,
                                   "a count >= 0", &o->warmup);
    default:
        return kcal_cli_other_option(cmd, c, argv, usage);
    }
}

static int require_p(const char *cmd, const kcal_launch_opts *o)
{
    if (o->p != 0)
        return 0;
    kcal_cli_error(cmd, "--p is required");
    return -1;
}

int kcal_cli_parse_launch(const char *cmd, int argc, char **argv,
                          const char *optstring,
                          const struct option *longopts,
                          void (*usage)(FILE *), kcal_cli_option_fn own,
                          void *ctx, kcal_launch_opts *o)
{
    opterr = 0;
    optind = 1;
    int c, rc;
    while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
        rc = own(c, optarg, ctx);
        if (rc == KCAL_CLI_NOT_MINE)
            rc = launch_option(cmd, c, argv, usage, o);
        if (rc != 0)
            return rc;
    }
    if (kcal_cli_no_operands(cmd, argc, argv, optind) != 0 ||
        (o->require_p && require_p(cmd, o) != 0))
        return -1;
    if (!o->mpirun) {
        const char *env = getenv("KCAL_MPIRUN");
        if (env && *env)
            o->mpirun = env;
    }
    char err[256];
    o->flavor = kcal_mpi_flavor_choose(o->mpi, err, sizeof err);
    if (!o->flavor) {
        kcal_cli_error(cmd, "%s", err);
        return -1;
    }
    return 0;
}

int kcal_cli_coll_and_p(const char *cmd, const char *coll_s, kcal_coll *coll,
                        const kcal_launch_opts *o)
{
    if (!coll_s || kcal_coll_from_name(coll_s, coll) != 0) {
        if (coll_s)
            kcal_cli_error(cmd, "--coll: unknown collective '%s' (%s)",
                           coll_s, kcal_coll_list());
        else
            kcal_cli_error(cmd, "--coll is required");
        return -1;
    }
    return require_p(cmd, o);
}

int kcal_cli_any_coll_and_p(const char *cmd, const char *coll_s,
                            kcal_coll *coll, int *vcoll,
                            const kcal_launch_opts *o)
{
    *vcoll = coll_s && kcal_model_is_vcoll(coll_s);
    if (!*vcoll && coll_s && kcal_coll_from_name(coll_s, coll) != 0) {
        kcal_cli_error(cmd, "--coll: unknown collective '%s' (%s, or a "
                       "v-collective: %s)", coll_s, kcal_coll_list(),
                       kcal_model_vcoll_list());
        return -1;
    }
    if (*vcoll)
        return require_p(cmd, o);
    return kcal_cli_coll_and_p(cmd, coll_s, coll, o);
}

int kcal_cli_launch_fits(const char *cmd, const kcal_launch_opts *o,
                         int *cores)
{
    *cores = kcal_cores();
    char why[256];
    long max_p = kcal_capacity_max_ranks(*cores, why, sizeof why);
    if (o->p <= max_p)
        return 0;
    kcal_cli_error(cmd, "--p %ld: at most %ld processes here (%s)", o->p,
                   max_p, why);
    return -1;
}

int kcal_cli_table_or_csv(const char *cmd, const char *format)
{
    if (!strcmp(format, "table") || !strcmp(format, "csv"))
        return 0;
    kcal_cli_error(cmd, "--format: '%s' is not table or csv", format);
    return -1;
}

int kcal_cli_no_operands(const char *cmd, int argc, char **argv, int next)
{
    if (next >= argc)
        return 0;
    kcal_cli_error(cmd, "unexpected argument '%s' (kcal %s --help)", argv[next],
                   cmd);
    return -1;
}

int kcal_cli_load_params_quietly(const char *cmd, const char *file,
                                 const char *machine, kcal_params *p,
                                 char *chosen, size_t chosenlen)
{
    char err[KCAL_ERRLEN];
    if (kcal_params_choose(file, machine, p, chosen, chosenlen, err,
                           sizeof err) < 0) {
        kcal_cli_error(cmd, "%s", err);
        return -1;
    }
    return 0;
}

void kcal_cli_say_params(const char *cmd, const kcal_params *p,
                         const char *chosen)
{
    fprintf(stderr, "kcal %s: params: %s\n", cmd, chosen);
    for (size_t i = 0; i < p->n_entries; i++)
        if (!p->entries[i].known)
            kcal_cli_warn(cmd, "%s:%d: unknown key '%s' kept and ignored",
                          p->origin, p->entries[i].line, p->entries[i].key);
}

int kcal_cli_load_params(const char *cmd, const char *file,
                         const char *machine, kcal_params *p)
{
    char chosen[512];
    if (kcal_cli_load_params_quietly(cmd, file, machine, p, chosen,
                                     sizeof chosen) < 0)
        return -1;
    kcal_cli_say_params(cmd, p, chosen);
    return 0;
}
