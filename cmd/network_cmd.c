/* network_cmd: `kcal probe --network` (network.h): check the base params,
 * launch the two ranks, refuse a run whose ranks share a node (unless
 * --same-node says it is a test), and print the base params with the
 * network keys, read back first, so stdout holds a whole file or nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/cli.h"
#include "probe/network.h"
#include "model/params.h"

#ifndef KCAL_VERSION
#define KCAL_VERSION "0.1.0"
#endif

static const char *const CMD = "probe";

/* key, key_stderr, key_dof. 0 or -1. */
static int set_fit(kcal_params *p, kcal_pkey id, double v, double se, int dof)
{
    const char *key = kcal_key_name(id);
    char k[64];
    if (kcal_params_set(p, key, v) < 0)
        return -1;
    if (!kcal_key_family_name(KCAL_PK_key_stderr, key, k, sizeof k) ||
        kcal_params_set(p, k, se) < 0)
        return -1;
    if (!kcal_key_family_name(KCAL_PK_key_dof, key, k, sizeof k))
        return -1;
    return kcal_params_set(p, k, dof > 0 ? dof : 0);
}

int kcal_probe_network(const char *params_file, const char *mpirun,
                       const kcal_mpi_flavor *mpi, int same_node, int quick,
                       int quiet)
{
    const char *env = getenv("KCAL_PARAMS");
    if (!params_file && !(env && *env)) {
        kcal_cli_error(CMD, "--network adds the network keys to a node's "
                       "params: give --params FILE (kcal probe's output on "
                       "one node) or set KCAL_PARAMS");
        return KCAL_EXIT_USAGE;
    }
    kcal_params prm;
    char chosen[512];
    if (kcal_cli_load_params_quietly(CMD, params_file, NULL, &prm, chosen,
                                     sizeof chosen) < 0)
        return KCAL_EXIT_USAGE;
    char helper[4096], err[KCAL_ERRLEN];
    kcal_net_setup s = {mpirun, NULL, quick ? 5 : 15, same_node, 600, mpi};
    s.helper = kcal_net_find_helper(mpi, helper, sizeof helper);
    if (!s.helper) {
        kcal_cli_error(CMD, "kcal-net-bench not found (%s builds it; or set "
                       "KCAL_NET_BENCH): looked at %s",
                       mpi ? mpi->make_hint : "make", helper);
        kcal_params_free(&prm);
        return KCAL_EXIT_FAIL;
    }
    char dflt[256];
    if (!quiet)
        fprintf(stderr, "kcal probe: network: 2 ranks under '%s', %d "
                        "repetitions per point\n",
                mpirun ? mpirun
                : mpi ? kcal_mpi_flavor_launcher(mpi, dflt, sizeof dflt)
                      : "mpirun",
                s.reps);
    kcal_net_result r;
    if (kcal_net_measure(&s, &r, err, sizeof err) < 0) {
        kcal_cli_error(CMD, "network: %s", err);
        kcal_params_free(&prm);
        return KCAL_EXIT_FAIL;
    }
    if (!r.measured) {
        kcal_cli_error(CMD, "network: both ranks ran on %s, one node: "
                       "--network needs one rank on each of two nodes "
                       "(--mpirun \"srun -N 2 -n 2\" or \"mpirun --map-by "
                       "node -H a,b\"); --same-node measures anyway, for "
                       "testing only", r.hosts[0]);
        kcal_params_free(&prm);
        return KCAL_EXIT_USAGE;
    }
    char hosts[600], how[200], date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    snprintf(hosts, sizeof hosts, "%s %s", r.hosts[0], r.hosts[1]);
    snprintf(how, sizeof how, "kcal probe %s --network%s %s%s", KCAL_VERSION,
             quick ? " --quick" : "", date,
             r.shared ? "; both ranks on one node (--same-node): a test of "
                        "the probe, not a network"
                      : "");
    if (set_fit(&prm, KCAL_PK_net_alpha, r.alpha, r.se_alpha, r.dof_line) < 0 ||
        set_fit(&prm, KCAL_PK_net_beta, r.beta, r.se_beta, r.dof_line) < 0 ||
        set_fit(&prm, KCAL_PK_net_gap, r.gap, r.se_gap, r.dof_gap) < 0 ||
        kcal_params_set_text(&prm, kcal_key_name(KCAL_PK_net_hosts), hosts) < 0 ||
        kcal_params_set_text(&prm, kcal_key_name(KCAL_PK_net_probe), how) < 0) {
        kcal_cli_error(CMD, "network: a measured value cannot go into a "
                       "params file (host names '%s')", hosts);
        kcal_params_free(&prm);
        return KCAL_EXIT_FAIL;
    }
    if (*r.note && !quiet)
        kcal_cli_warn(CMD, "network: %s", r.note);
    if (r.shared)
        kcal_cli_warn(CMD, "network: both ranks ran on %s (--same-node): "
                      "these keys describe its shared memory, not a network",
                      r.hosts[0]);
    if (!quiet)
        fprintf(stderr, "kcal probe: network %s -> %s: %s %.3f us "
                        "(+- %.2g), %s %.4g ns/byte (%.3g GB/s), "
                        "%s %.3f us\n", r.hosts[0], r.hosts[1],
                kcal_key_name(KCAL_PK_net_alpha), r.alpha * 1e6,
                r.se_alpha * 1e6, kcal_key_name(KCAL_PK_net_beta),
                r.beta * 1e9, r.beta > 0 ? 1e-9 / r.beta : 0.0,
                kcal_key_name(KCAL_PK_net_gap), r.gap * 1e6);
    char comment[2048], *out = NULL;
    size_t outlen = 0;
    snprintf(comment, sizeof comment,
             "%s\nnetwork keys: kcal probe --network between %s and %s "
             "(Hockney: a ping-pong of 8 B .. 4 MiB, half a round trip; "
             "%s: the slope of 1 .. 64 messages posted at once)",
             chosen, r.hosts[0], r.hosts[1], kcal_key_name(KCAL_PK_net_gap));
    int rc = KCAL_EXIT_OK;
    if (kcal_params_format(&prm, comment, &out, &outlen, err, sizeof err) < 0) {
        kcal_cli_error(CMD, "network: %s", err);
        rc = KCAL_EXIT_FAIL;
    } else if (fwrite(out, 1, outlen, stdout) != outlen || fflush(stdout)) {
        kcal_cli_error(CMD, "writing stdout failed");
        rc = KCAL_EXIT_FAIL;
    }
    free(out);
    kcal_params_free(&prm);
    return rc;
}
