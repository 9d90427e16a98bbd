/* probe_cmd: `kcal probe` — measure this machine and print its params file.
 *
 * Order: options (a --raw path is checked writable here, exit 2), CMA
 * permission test (exit 3 when forbidden), topology and the measurement
 * plan, buffers, T1/T2, T3(N) (falling back to the paper's liovcnt = 0
 * call on a kernel where the 1-byte read does not pin), T4(N) cold and/or
 * hot, reads of lines another core just wrote (dirty.h), chunks passed
 * between cores as copy_in_out passes them (pass.h), contention
 * with c = 1..C readers, T_sm_X through mpirun; then the
 * same fit as `kcal fit`. The params file is built in memory, read back,
 * and written to stdout only at the very end, so any failure leaves stdout
 * empty. This file holds the options, the fit and the output; the plan
 * (what to measure, the raw file's metadata) is probe_plan.c's, the
 * measuring probe_run.c's. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "cmd/probe_plan.h"
#include "cmd/probe_run.h"
#include "common/err.h"
#include "common/mpi_flavor.h"
#include "fit/calibrate.h"
#include "fit/raw.h"
#include "probe/cma_check.h"
#include "probe/network.h"

static const char *const CMD = PROBE_CMD;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: kcal probe [--quick] [--hot] [--max-readers C] [--mpi NAME]\n"
        "                  [--mpirun CMD] [--no-sm] [--raw RAW.csv] [-q] > machine.params\n"
        "       kcal probe --network [--params FILE] [--mpi NAME] [--mpirun CMD]\n"
        "                  [--same-node] [--quick] [-q] > cluster.params\n"
        "\n"
        "Measure the CMA cost model of this machine (alpha, beta, lock, page,\n"
        "gamma_a, gamma_b, sm_*) and print a params file with standard errors.\n"
        "\n"
        "  --quick          coarse calibration (fewer points and repeats)\n"
        "  --hot            beta from in-cache copies only (default: beta out of\n"
        "                   cache, rotating over buffers larger than the last-level\n"
        "                   cache (at most 256 MiB each), and beta_hot in cache,\n"
        "                   for --model full)\n"
        "  --max-readers C  concurrent readers for gamma(c), c = 1..C (default:\n"
        "                   the number of cores)\n"
        "  --mpi NAME       the MPI library whose T_sm, sync_step and hand-off sizes\n"
        "                   (sm_*, mpi_* keys) are measured: openmpi (default;\n"
        "                   $KCAL_MPI) or mpich (kcal-sm-bench of make MPI=mpich)\n"
        "  --mpirun CMD     launcher for the T_sm collectives (default $KCAL_MPIRUN,\n"
        "                   else --mpi's: mpirun.openmpi, mpiexec.mpich); if it\n"
        "                   fails the sm_* keys stay 0\n"
        "  --no-sm          do not launch MPI; the sm_* keys stay 0\n"
        "  --raw FILE       also save every raw sample (kcal fit FILE re-fits it)\n"
        "  -q, --quiet      no progress on stderr\n"
        "  --network        the network between two nodes instead: net_alpha,\n"
        "                   net_beta, net_gap added to the params of --params FILE\n"
        "                   (else $KCAL_PARAMS); --mpirun must put one rank on each\n"
        "                   of two nodes (\"srun -N 2 -n 2\", \"mpirun --map-by node\n"
        "                   -H a,b\"); --same-node measures two ranks of one node,\n"
        "                   for testing only\n"
        "Exit: 0 ok, 1 run-time failure, 2 bad option, 3 CMA forbidden here.\n");
}

/* kcal probe's own options (kcal_cli_option_fn). */
static int probe_option(int c, const char *arg, void *ctx)
{
    probe_options *o = ctx;
    switch (c) {
    case 'Q': o->quick = 1; return 0;
    case 'H': o->hot = 1; return 0;
    case 'n': o->no_sm = 1; return 0;
    case 'r': o->raw_path = arg; return 0;
    case 'N': o->network = 1; return 0;
    case 'S': o->same_node = 1; return 0;
    case 'P': o->params_file = arg; return 0;
    case 'c':
        return kcal_cli_int_option(CMD, "--max-readers", arg, 1, 1024,
                                   "a whole number from 1 to 1024",
                                   &o->max_readers);
    default: return KCAL_CLI_NOT_MINE;
    }
}

static int parse_options(int argc, char **argv, probe_options *o)
{
    static const struct option longopts[] = {
        {"quick", no_argument, 0, 'Q'},
        {"hot", no_argument, 0, 'H'},
        {"max-readers", required_argument, 0, 'c'},
        KCAL_LONGOPT_MPIRUN,
        KCAL_LONGOPT_MPI,
        {"no-sm", no_argument, 0, 'n'},
        {"raw", required_argument, 0, 'r'},
        {"network", no_argument, 0, 'N'},
        {"same-node", no_argument, 0, 'S'},
        {"params", required_argument, 0, 'P'},
        KCAL_LONGOPT_QUIET,
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    int rc = kcal_cli_parse_launch(CMD, argc, argv, ":qh", longopts, usage,
                                   probe_option, o, &o->launch);
    if (rc != 0)
        return rc;
    if (!o->network && (o->same_node || o->params_file)) {
        kcal_cli_error(CMD, "%s goes with --network",
                       o->same_node ? "--same-node" : "--params");
        return -1;
    }
    if (o->network && (o->hot || o->no_sm || o->raw_path || o->max_readers)) {
        kcal_cli_error(CMD, "--network measures the network only: %s does "
                       "not apply", o->hot ? "--hot" : o->no_sm ? "--no-sm"
                       : o->raw_path ? "--raw" : "--max-readers");
        return -1;
    }
    /* A bad --raw path now, not after the whole measurement. */
    char err[KCAL_ERRLEN];
    if (o->raw_path &&
        kcal_raw_check_writable(o->raw_path, err, sizeof err) < 0) {
        kcal_cli_error(CMD, "--raw %s", err);
        return -1;
    }
    return 0;
}

/* ---- writing the raw samples and the params file ----------------------- */

/* Save the raw samples (--raw) and fit them; the params file is built in
 * memory (*out, *outlen) and written by the caller. Prints the error line
 * itself; 0 or -1. */
static int fit_and_format(probe_run *r, char **out, size_t *outlen)
{
    const char *raw_path = r->o->raw_path;
    if (raw_path &&
        kcal_raw_save(raw_path, &r->raw, r->err, sizeof r->err) < 0) {
        kcal_cli_error(CMD, "--raw %s", r->err);
        return -1;
    }
    kcal_params params;
    kcal_params_init(&params);
    kcal_calibrate_notes notes;
    size_t clen = 8192;
    char *comment = malloc(clen);
    int rc = -1;
    if (!comment) {
        kcal_cli_error(CMD, "out of memory");
    } else if (kcal_calibrate_params(&r->raw, &params, &notes, comment, clen,
                                     r->err, sizeof r->err) < 0) {
        kcal_cli_error(CMD, "fit: %s", r->err);
    } else {
        if (!r->o->launch.quiet)
            for (int i = 0; i < notes.n; i++)
                kcal_cli_warn(CMD, "%s", notes.text[i]);
        /* Read back before anything reaches stdout: the probe never
         * prints a params file its own reader refuses. */
        if (kcal_params_format(&params, comment, out, outlen, r->err,
                               sizeof r->err) < 0)
            kcal_cli_error(CMD, "fit: %s", r->err);
        else
            rc = 0;
    }
    free(comment);
    kcal_params_free(&params);
    return rc;
}

int kcal_probe_main(int argc, char **argv)
{
    probe_options o;
    int prc = parse_options(argc, argv, &o);
    if (prc)
        return prc > 0 ? KCAL_EXIT_OK : KCAL_EXIT_USAGE;
    if (o.network) /* no CMA needed: another measurement */
        return kcal_probe_network(o.params_file, o.launch.mpirun,
                                  o.launch.flavor, o.same_node, o.quick,
                                  o.launch.quiet);

    char msg[KCAL_ERRLEN];
    int e;
    if (kcal_cma_check(msg, sizeof msg, &e) < 0) {
        kcal_cli_error(CMD, "%s", msg);
        return e == EPERM || e == ENOSYS ? KCAL_EXIT_FORBIDDEN : KCAL_EXIT_FAIL;
    }

    probe_run r;
    memset(&r, 0, sizeof r);
    r.o = &o;
    r.main_t = (kcal_target){.pid = -1, .ctl_fd = -1};
    r.local = MAP_FAILED;
    kcal_raw_init(&r.raw);
    /* The clock of `done (N s)` starts here: the user waits for the
     * buffers to be faulted in too. */
    kcal_progress_init(&r.pr, CMD, o.launch.quiet);
    r.topo = kcal_topo_load();
    if (!r.topo) {
        kcal_cli_error(CMD, "hwloc could not load this machine's topology");
        return KCAL_EXIT_FAIL;
    }
    kcal_topo_get_info(r.topo, &r.ti);
    r.page = sysconf(_SC_PAGESIZE);
    probe_plan pl;
    probe_plan_make(&pl, &o, &r.ti, r.page);
    r.pl = &pl;
    probe_set_meta(&r.raw, &r.ti, &o, r.page, pl.max_readers);
    probe_say_setup(&r);

    int rc = KCAL_EXIT_FAIL;
    char *out = NULL;
    size_t outlen = 0;
    r.meter = (kcal_meter){&r.pr, 0, pl.sweep_units + pl.sm_units * pl.n_ps};
    kcal_progress_update(&r.pr, "buffers", 0, r.meter.total);
    if (probe_measure(&r) < 0)
        goto fail;
    kcal_progress_update(&r.pr, "fit", r.meter.total, r.meter.total);
    if (fit_and_format(&r, &out, &outlen) < 0)
        goto done;
    kcal_progress_finish(&r.pr, "done");
    if (fwrite(out, 1, outlen, stdout) != outlen || fflush(stdout)) {
        kcal_cli_error(CMD, "writing stdout: %s", strerror(errno));
        goto done;
    }
    rc = KCAL_EXIT_OK;
    goto done;
fail:
    kcal_cli_error(CMD, "%s", r.err);
done:
    free(out);
    probe_free(&r);
    return rc;
}
