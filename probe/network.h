/* network: `kcal probe --network`, the network keys of the params
 * (net_alpha, net_beta, net_gap: docs/model.md "Across nodes"), measured by
 * launching kcal-net-bench (probe/mpi/net_bench.c) with two ranks on two
 * nodes and fitting what it prints. The launcher is the user's (--mpirun
 * "srun -N 2 -n 2", "mpirun --map-by node -H a,b"): only it knows the
 * cluster. Library code: returns error codes, never prints. */
#ifndef KCAL_NETWORK_H
#define KCAL_NETWORK_H

#include <stddef.h>

#include "common/mpi_flavor.h"

typedef struct {
    const char *mpirun; /* NULL: the flavor's launcher ("mpirun" without) */
    const char *helper; /* path of kcal-net-bench */
    int reps;           /* repetitions per point */
    int same_node_ok;   /* measure even when both ranks share a node
                         * (testing only) */
    double timeout;     /* seconds for the launch */
    const kcal_mpi_flavor *mpi; /* the MPI library; NULL: Open MPI */
} kcal_net_setup;

typedef struct {
    char hosts[2][256];
    int shared;          /* the two ranks share a node */
    int measured;        /* 0: shared and not same_node_ok */
    double alpha, beta, gap;          /* net_alpha, net_beta, net_gap */
    double se_alpha, se_beta, se_gap; /* their standard errors */
    int dof_line, dof_gap;
    char note[256];      /* a parameter held at 0, or "" */
} kcal_net_result;

/* Find kcal-net-bench of flavor mpi's build ($KCAL_NET_BENCH, else next
 * to kcal, as kcal_sm_find_helper). buf, or NULL. */
const char *kcal_net_find_helper(const kcal_mpi_flavor *mpi, char *buf,
                                 size_t len);

/* Launch and fit. 0 with *out filled (out->measured 0 when the ranks share
 * a node and same_node_ok is 0), or -1 with the reason in err. */
int kcal_net_measure(const kcal_net_setup *s, kcal_net_result *out, char *err,
                     size_t errlen);

/* The command: `kcal probe --network [--params FILE] [--mpirun CMD]
 * [--same-node] [--quick] [-q]` (probe_cmd.c hands over): the base params
 * (FILE, else $KCAL_PARAMS; there is no default: the network keys go with a
 * node's own params) with the network keys added, on stdout. Returns kcal's
 * exit code; prints its own messages. */
int kcal_probe_network(const char *params_file, const char *mpirun,
                       const kcal_mpi_flavor *mpi, int same_node, int quick,
                       int quiet);

#endif
