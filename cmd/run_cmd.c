/* run_cmd: `kcal run`, an application under mpirun with libkcoll's
 * collectives preloaded.
 *
 *   kcal run [--np P] [--table FILE] [--params FILE] [--stats]
 *            [--oversubscribe] [--timeout S] [--mpi NAME] [--mpirun CMD]
 *            -- APP [ARGS]
 *
 * Runs `CMD -np P [--oversubscribe --bind-to none --mca
 * mpi_yield_when_idle 1] -x LD_PRELOAD=<libkcoll_pmpi.so> [-x ...] APP
 * ARGS` through common/launch.h (with --mpi mpich, or $KCAL_MPI=mpich:
 * `mpiexec.mpich -np P -genv LD_PRELOAD=... APP ARGS` and MPICH's build of
 * the interposer; common/mpi_flavor.h says what differs): the job has its
 * own process group and ends with kcal (a signal, or --timeout), and its
 * stdout and stderr pass through kcal to kcal's (tee: a launcher that
 * fails without a word is said to have). The interposer is found like
 * kcal's other programs (common/exe.h: $KCAL_PMPI_LIB, else next to kcal,
 * in its build directory, or PREFIX/lib of an installed kcal). Only the
 * ranks get it: -x (-genv) sets it in their environment, not in the
 * launcher's. The directory of the libkcoll.so beside it (PREFIX/lib, or
 * the tree's algos/) ends the ranks' LD_LIBRARY_PATH, so a program linked
 * with `pkg-config kcoll` from a prefix the loader does not search starts
 * as it is. The exit status is the application's (mpirun's): kcal's own
 * failures before the launch are one line and exit 2 (bad options, an
 * empty APP, a FIFO or a directory as a file) or 1 (no interposer, or one
 * that is no shared library); a launcher that cannot start is 127, and so
 * is an application the loader cannot start (a missing program or
 * library: kcal says so below the loader's message); a run ended by
 * --timeout 124 (as timeout(1) and shells say). */
#include <elf.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "common/cores.h"
#include "common/exe.h"
#include "common/infile.h"
#include "common/launch.h"
#include "common/mpi_flavor.h"
#include "model/params.h"

#define CMD "run"
#define EXIT_TIMEOUT 124
#define EXIT_NOT_STARTED 127

/* What the ranks get from kcal's environment when set (Open MPI's mpirun
 * passes on only its own OMPI_ variables). */
static const char *const forwarded[] = {"KCOLL_TABLE", "KCAL_PARAMS",
                                        "KCOLL_STATS", "KCOLL_STRICT"};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kcal run [--np P] [--table FILE] [--params FILE] "
            "[--stats]\n"
            "                [--oversubscribe] [--timeout S] [--mpi NAME] "
            "[--mpirun CMD]\n"
            "                -- APP [ARGS]\n\n"
            "Runs an unmodified MPI application under `mpirun -np P` with "
            "libkcoll's\ncollectives in place of the MPI library's "
            "MPI_Bcast, MPI_Scatter, MPI_Gather,\nMPI_Allgather and "
            "MPI_Alltoall (C, C++, Fortran; LD_PRELOAD of "
            "libkcoll_pmpi.so,\nranks only). Where kcoll does not apply "
            "(docs/interpose.md) and for small\nmessages the MPI library's "
            "own collective runs.\n\n"
            "  --np P            processes (default: the cores of this "
            "machine)\n"
            "  --table FILE      selection table of kcal tune "
            "(KCOLL_TABLE=FILE): its rows\n"
            "                    decide, the model the calls it has no row "
            "for\n"
            "  --params FILE     params of the model and the MPI hand-off "
            "(KCAL_PARAMS=FILE)\n"
            "  --stats           rank 0 prints what ran at MPI_Finalize "
            "(KCOLL_STATS=1)\n"
            "  --oversubscribe   allow more processes than cores (times "
            "are then not\n"
            "                    contention measurements)\n"
            "  --timeout S       end the run after S seconds, exit %d "
            "(default 0: no limit)\n"
            "  --mpi NAME        the application's MPI library: openmpi "
            "(default; $KCAL_MPI)\n"
            "                    or mpich (the MPICH ABI; the interposer of "
            "make MPI=mpich)\n"
            "  --mpirun CMD      launcher (default $KCAL_MPIRUN, else "
            "--mpi's; Open MPI's\n"
            "                    -x or hydra's -genv passes the environment); "
            "gets -np P\n"
            "KCOLL_TABLE, KCAL_PARAMS, KCOLL_STATS and KCOLL_STRICT set in "
            "the environment\nreach the ranks too (the options win). Exit: "
            "the application's; 2 bad options,\n1 kcal could not start it, "
            "%d the launcher, the application or a library it needs\nwas not "
            "found, %d --timeout.\n",
            EXIT_TIMEOUT, EXIT_NOT_STARTED, EXIT_TIMEOUT);
}

typedef struct {
    long np, timeout;
    const char *table, *params, *launcher, *mpi;
    int stats, oversubscribe;
} options;

static int parse(int argc, char **argv, options *o, int *first)
{
    static const struct option longopts[] = {
        {"np", required_argument, NULL, 'n'},
        {"table", required_argument, NULL, 't'},
        {"params", required_argument, NULL, 'p'},
        {"stats", no_argument, NULL, 's'},
        {"oversubscribe", no_argument, NULL, 'o'},
        {"timeout", required_argument, NULL, 'T'},
        {"mpirun", required_argument, NULL, 'm'},
        {"mpi", required_argument, NULL, 'M'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    opterr = 0;
    optind = 1;
    int c;
    /* '+': the application's own options after APP are not kcal's. */
    while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (kcal_cli_int_option(CMD, "--np", optarg, 1, INT_MAX,
                                    "a whole number of processes >= 1",
                                    &o->np))
                return -1;
            break;
        case 't':
            o->table = optarg;
            break;
        case 'p':
            o->params = optarg;
            break;
        case 's':
            o->stats = 1;
            break;
        case 'o':
            o->oversubscribe = 1;
            break;
        case 'T':
            if (kcal_cli_int_option(CMD, "--timeout", optarg, 0, INT_MAX,
                                    "a whole number of seconds >= 0",
                                    &o->timeout))
                return -1;
            break;
        case 'm':
            o->launcher = optarg;
            break;
        case 'M':
            o->mpi = optarg;
            break;
        default:
            return kcal_cli_other_option(CMD, c, argv, usage);
        }
    }
    *first = optind;
    return 0;
}

/* An absolute path for the ranks (they may not start where kcal runs);
 * out has PATH_MAX bytes. A FIFO or a directory would only make every
 * rank warn (a FIFO: libkcoll refuses it rather than wait for a writer):
 * say it here, once. */
static int absolute(const char *option, const char *file, char *out)
{
    char err[PATH_MAX + 128];
    if (access(file, R_OK) != 0 || !realpath(file, out)) {
        kcal_cli_error(CMD, "%s %s: cannot read it", option, file);
        return -1;
    }
    if (kcal_infile_check(file, err, sizeof err) != 0) {
        kcal_cli_error(CMD, "%s %s", option, err);
        return -1;
    }
    return 0;
}

/* The directory holding the flavor's libkcoll.so that goes with the
 * interposer at `interposer`: its own directory (an installed kcal's
 * PREFIX/lib) or ../algos (the tree's build/). 0 with it in out (PATH_MAX
 * bytes), or -1. */
static int kcoll_lib_dir(const kcal_mpi_flavor *f, const char *interposer,
                         char *out)
{
    char dir[PATH_MAX], cand[PATH_MAX + 64];
    snprintf(dir, sizeof dir, "%s", interposer);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    static const char *const rel[] = {"%s", "%s/../algos"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        char base[PATH_MAX + 16];
        snprintf(base, sizeof base, rel[i], dir);
        snprintf(cand, sizeof cand, "%s/%s.so", base, f->lib);
        if (access(cand, R_OK) == 0 && realpath(base, out))
            return 0;
    }
    return -1;
}

/* Why path cannot be the interposer (NULL: it can): ld.so preloads an ELF
 * shared object, which needs to be readable, not executable. */
static const char *not_a_library(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return "not found";
    if (S_ISDIR(st.st_mode))
        return "is a directory, not a shared library";
    unsigned char h[EI_NIDENT + 2] = {0};
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    ssize_t got = fd >= 0 && S_ISREG(st.st_mode) ? read(fd, h, sizeof h) : -1;
    if (fd >= 0)
        close(fd);
    if (fd < 0)
        return "cannot be read";
    if (got != (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0)
        return "is not a shared library (not an ELF file)";
    /* e_type follows e_ident, in the file's byte order. */
    unsigned type = h[EI_DATA] == ELFDATA2MSB
                        ? (unsigned)h[EI_NIDENT] << 8 | h[EI_NIDENT + 1]
                        : (unsigned)h[EI_NIDENT + 1] << 8 | h[EI_NIDENT];
    return type == ET_DYN ? NULL
                          : "is not a shared library (an ELF file of another "
                            "kind)";
}

/* "NAME=VALUE" in a buffer of its own (argv of the launch). */
static char *assign(const char *name, const char *value)
{
    size_t len = strlen(name) + strlen(value) + 2;
    char *s = malloc(len);
    if (s)
        snprintf(s, len, "%s=%s", name, value);
    return s;
}

int kcal_run_main(int argc, char **argv)
{
    options o = {.np = 0, .launcher = getenv("KCAL_MPIRUN")};
    int first = argc;
    int rc = parse(argc, argv, &o, &first);
    if (rc != 0)
        return rc > 0 ? KCAL_EXIT_OK : KCAL_EXIT_USAGE;
    if (first >= argc) {
        kcal_cli_error(CMD, "no application given (kcal run [options] -- "
                            "APP [ARGS])");
        return KCAL_EXIT_USAGE;
    }
    if (!*argv[first]) {
        kcal_cli_error(CMD, "the application's name is empty (kcal run "
                            "[options] -- APP [ARGS])");
        return KCAL_EXIT_USAGE;
    }
    char ferr[256];
    const kcal_mpi_flavor *flavor = kcal_mpi_flavor_choose(o.mpi, ferr,
                                                           sizeof ferr);
    if (!flavor) {
        kcal_cli_error(CMD, "%s", ferr);
        return KCAL_EXIT_USAGE;
    }
    char table[PATH_MAX], params[PATH_MAX];
    if (o.table && absolute("--table", o.table, table))
        return KCAL_EXIT_USAGE;
    if (o.params) {
        /* A params file libkcoll could not use would only warn in every
         * rank: say it here, once, before anything starts. */
        kcal_params prm;
        char chosen[PATH_MAX + 64];
        kcal_params_init(&prm);
        int bad = kcal_cli_load_params_quietly(CMD, o.params, NULL, &prm,
                                               chosen, sizeof chosen);
        kcal_params_free(&prm);
        if (bad || absolute("--params", o.params, params))
            return KCAL_EXIT_USAGE;
    }
    int cores = kcal_cores();
    if (o.np == 0)
        o.np = cores > 0 ? cores : 1;
    if (cores > 0 && o.np > cores && !o.oversubscribe) {
        kcal_cli_error(CMD, "--np %ld: %d cores here (--oversubscribe to run "
                            "more processes than cores; times are then not "
                            "contention measurements)",
                       o.np, cores);
        return KCAL_EXIT_USAGE;
    }
    char found[PATH_MAX], lib[PATH_MAX];
    /* The lookup wants an executable file; a library needs only to be
     * one, so a file that is there is judged by what it is. */
    kcal_mpi_flavor_program(flavor, "KCAL_PMPI_LIB", "libkcoll_pmpi.so",
                            found, sizeof found);
    const char *why = not_a_library(found);
    if (why || !realpath(found, lib)) {
        kcal_cli_error(CMD, "interposer %s %s (run %s, or set "
                            "KCAL_PMPI_LIB)",
                       found, why ? why : "not found", flavor->make_hint);
        return KCAL_EXIT_FAIL;
    }
    int over = cores > 0 && o.np > cores;

    /* Launcher options, then the application; launch.h puts the launcher
     * and -np P [--oversubscribe] before. The preload goes first in the
     * ranks' LD_PRELOAD, before any the user has. */
    size_t napp = (size_t)(argc - first);
    char **args = calloc(32 + napp, sizeof *args);
    char *owned[8] = {0};
    int nowned = 0, na = 0;
    if (!args) {
        kcal_cli_error(CMD, "out of memory");
        return KCAL_EXIT_FAIL;
    }
    const char *user_preload = getenv("LD_PRELOAD");
    char *preload = NULL;
    if (user_preload && *user_preload) {
        size_t len = strlen(lib) + strlen(user_preload) + 2;
        if ((preload = malloc(len)))
            snprintf(preload, len, "%s:%s", lib, user_preload);
    } else {
        preload = strdup(lib);
    }
    owned[nowned++] = preload ? assign("LD_PRELOAD", preload) : NULL;
    free(preload);
    /* -x (Open MPI) or -genv (hydra) NAME=VALUE: both launchers take it. */
    const char *envf = flavor->env_flag;
    args[na++] = (char *)envf;
    args[na++] = owned[0];
    const char *set[] = {o.table ? table : NULL, o.params ? params : NULL,
                         o.stats ? "1" : NULL, NULL};
    /* libkcoll.so's directory after the user's own LD_LIBRARY_PATH (an
     * explicit choice wins). */
    char libdir[PATH_MAX];
    if (kcoll_lib_dir(flavor, lib, libdir) == 0) {
        const char *user = getenv("LD_LIBRARY_PATH");
        size_t len = strlen(libdir) + (user ? strlen(user) : 0) + 2;
        char *path = malloc(len);
        if (path)
            snprintf(path, len, "%s%s%s", user && *user ? user : "",
                     user && *user ? ":" : "", libdir);
        owned[nowned] = path ? assign("LD_LIBRARY_PATH", path) : NULL;
        free(path);
        args[na++] = (char *)envf;
        args[na++] = owned[nowned++];
    }
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++) {
        const char *v = set[i] ? set[i] : getenv(forwarded[i]);
        if (!v)
            continue;
        args[na++] = (char *)envf;
        owned[nowned] = assign(forwarded[i], v);
        args[na++] = owned[nowned++];
    }
    /* Busy-polling ranks on shared cores wait for time slices. */
    for (const char *const *a = flavor->shared_core_args; over && *a; a++)
        args[na++] = (char *)*a;
    int oom = 0;
    for (int i = 0; i < nowned; i++)
        oom |= !owned[i];
    for (int i = first; i < argc; i++)
        args[na++] = argv[i];
    args[na] = NULL;
    if (oom) {
        kcal_cli_error(CMD, "out of memory");
        rc = KCAL_EXIT_FAIL;
        goto out;
    }

    /* tee: to tell a launcher that failed without a word. */
    kcal_launch_spec spec = {o.launcher, (int)o.np, cores, args,
                             (double)o.timeout, 0, 1, NULL, NULL, flavor, NULL,
                             1};
    if (over)
        kcal_cli_warn(CMD, "%ld processes on %d cores: oversubscribed (times "
                           "are not contention measurements)",
                      o.np, cores);
    fflush(NULL);
    kcal_launch_result r;
    char err[256];
    if (kcal_launch_run(&spec, &r, err, sizeof err) != 0) {
        kcal_cli_error(CMD, "cannot launch the application: %s", err);
        rc = KCAL_EXIT_FAIL;
        goto out;
    }
    char dflt[256];
    const char *launcher = o.launcher && *o.launcher
                               ? o.launcher
                               : kcal_mpi_flavor_launcher(flavor, dflt,
                                                          sizeof dflt);
    if (r.exec_errno) {
        kcal_cli_error(CMD, "cannot run the launcher '%s': %s (--mpirun, "
                            "$KCAL_MPIRUN or --mpi)",
                       launcher, strerror(r.exec_errno));
        rc = EXIT_NOT_STARTED;
    } else if (r.timed_out) {
        kcal_cli_error(CMD, "ended the run after the --timeout of %ld s",
                       o.timeout);
        rc = EXIT_TIMEOUT;
    } else {
        rc = r.status;
        /* The loader's (or a shell's) "not found" status, after its own
         * message: without this line 127 reads as a missing launcher. */
        if (rc == EXIT_NOT_STARTED)
            kcal_cli_error(CMD, "the application exited %d: it, or a "
                                "shared library it needs, was not found (the "
                                "loader's message above names which; not the "
                                "launcher)",
                           rc);
        /* Any other status is the application's and speaks for itself;
         * a failure without a word on either stream leaves nothing to go
         * by. */
        else if (rc != 0 && r.printed == 0)
            kcal_cli_error(CMD, "the launcher '%s' exited with status %d and "
                                "printed nothing",
                           launcher, rc);
    }
    kcal_launch_result_free(&r);
out:
    for (int i = 0; i < nowned; i++)
        free(owned[i]);
    free(args);
    return rc;
}
