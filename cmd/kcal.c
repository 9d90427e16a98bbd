/* kcal: one binary, one subcommand per job. Each subcommand is a file of
 * cmd/ (<name>_cmd.c) over the libraries it drives (model/, probe/, fit/,
 * bench/, reports/, tune/) and has the shape
 * int kcal_<name>_main(int argc, char **argv), argv[0] being its name. */
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"

#ifndef KCAL_VERSION
#define KCAL_VERSION "0.1.0"
#endif

int kcal_predict_main(int argc, char **argv);
int kcal_probe_main(int argc, char **argv);
int kcal_fit_main(int argc, char **argv);
int kcal_bench_main(int argc, char **argv);
int kcal_report_main(int argc, char **argv);
int kcal_run_main(int argc, char **argv);
int kcal_tune_main(int argc, char **argv);
int kcal_profile_main(int argc, char **argv);
int kcal_doc_tables_main(int argc, char **argv);

static const struct {
    const char *name;
    int (*main)(int, char **);
    const char *summary;
} commands[] = {
    {"predict", kcal_predict_main,
     "rank the reference algorithms of a collective with the cost model"},
    {"probe", kcal_probe_main,
     "measure this machine's model parameters (alpha, beta, l, gamma, T_sm)"},
    {"fit", kcal_fit_main,
     "re-fit the raw samples saved by kcal probe --raw into a params file"},
    {"bench", kcal_bench_main,
     "time libkcoll's algorithms and the MPI library's own (mpirun)"},
    {"report", kcal_report_main,
     "join measured and predicted times: model error, selection regret, plots"},
    {"tune", kcal_tune_main,
     "measure the model's best candidates into a selection table (KCOLL_TABLE)"},
    {"profile", kcal_profile_main,
     "where a collective's time goes: its calls under perf, by phase"},
    {"run", kcal_run_main,
     "run an MPI application with libkcoll's collectives preloaded"},
    /* a maintainer's: the docs' tables from the registries (not listed) */
    {"doc-tables", kcal_doc_tables_main, NULL},
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kcal <command> [options]   (kcal <command> --help for "
            "its options)\n\n"
            "kcal tells how kernel-assisted (CMA) MPI collectives perform on "
            "a machine.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (commands[i].summary)
            fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nparams: --params FILE, else --machine knl|broadwell|power8, "
               "else $KCAL_PARAMS, else knl.\n"
               "Model and file format: docs/model.md; see README.md.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        /* Bad input gets one line, like every other usage error; the
         * names come from the table, so a new command is never left out. */
        size_t n = sizeof commands / sizeof commands[0];
        char names[256] = "";
        size_t len = 0;
        for (size_t i = 0; i < n && len < sizeof names; i++)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
                                    i == 0 ? "" : i + 1 == n ? " or " : ", ",
                                    commands[i].name);
        fprintf(stderr, "kcal: no command given (%s; kcal --help says more)\n",
                names);
        return KCAL_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(stdout);
        return KCAL_EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("kcal %s\n", KCAL_VERSION);
        return KCAL_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].main(argc - 1, argv + 1);
    fprintf(stderr, "kcal: unknown command '%s' (try kcal --help)\n", argv[1]);
    return KCAL_EXIT_USAGE;
}
