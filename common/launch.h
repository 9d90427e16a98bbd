/* launch: run an MPI job under a launcher (the MPI library's, or the
 * command the user names) so that kcal always ends it, and collect what it
 * prints. The one implementation behind kcal bench and kcal probe's T_sm
 * launches. What differs between MPI libraries comes from the spec's
 * flavor (common/mpi_flavor.h; NULL: Open MPI's rules, launcher `mpirun`).
 *
 *   - Command: the launcher's words (split at blanks; when none, the
 *     flavor's launcher: mpirun.openmpi or mpirun, mpiexec.mpich or
 *     mpiexec.hydra or mpiexec), -np P (-n P for srun), the flavor's
 *     oversubscribe flag (Open MPI: --oversubscribe, when the launcher is
 *     its mpirun, mpiexec, orterun or prterun, as Open MPI refuses more
 *     ranks than slots; MPICH's hydra needs none) when P exceeds the cores,
 *     then the program and its arguments.
 *   - Open MPI refuses to run as root unless OMPI_ALLOW_RUN_AS_ROOT=1 and
 *     OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1: when euid is 0 the flavor's root
 *     variables are added to the job's environment where absent; a value
 *     the user set is kept (setting them to anything else is how a user
 *     says "not as root"). MPICH needs none.
 *   - The job runs in its own process group, stdin from /dev/null (a
 *     background group that reads a terminal would be stopped).
 *   - Ending it (timeout, or kcal gets SIGTERM, SIGINT or SIGHUP): SIGTERM
 *     and SIGCONT to the group, then up to KCAL_LAUNCH_GRACE seconds for the
 *     launcher to go (mpirun kills its ranks, stopped ones too: they live in
 *     process groups of their own, so only mpirun reaches them), then
 *     SIGKILL to the group and to every process of the job's tree that is
 *     still there. A signal is delivered after that as it would have been
 *     (by default it ends kcal, with the signal's status).
 *   - When kcal dies of SIGKILL, the kernel sends the launcher SIGTERM
 *     (PR_SET_PDEATHSIG, which survives exec: a wrapper script must exec
 *     mpirun) and mpirun takes its ranks down.
 *   - stdout goes to a callback line by line or, without one, is kcal's;
 *     stderr is kept in memory (the first KCAL_LAUNCH_ERR_KEEP
 *     bytes) or, with pass_stderr, is kcal's. With tee, what is kcal's
 *     passes through it, so the result says whether the job printed.
 * Library code: returns errors, never prints. */
#ifndef KCAL_LAUNCH_H
#define KCAL_LAUNCH_H

#include <stddef.h>

#include "common/mpi_flavor.h"

#define KCAL_LAUNCH_GRACE 3.0          /* seconds between SIGTERM and SIGKILL */
#define KCAL_LAUNCH_ERR_KEEP (1 << 20) /* bytes of stderr kept */

typedef struct {
    const char *launcher; /* NULL or "": the flavor's (mpirun without one) */
    int np;
    int cores;            /* > 0: the oversubscribe flag when np > cores */
    char *const *prog;    /* program and arguments, NULL-terminated */
    double timeout;       /* seconds; <= 0: none */
    int unbind;           /* give the job every CPU (the probe binds itself) */
    int pass_stderr;      /* 1: the job's stderr is kcal's; 0: kept */
    /* Each line of the job's stdout, without its newline; NULL: the job's
     * stdout is kcal's. */
    void (*on_line)(void *ctx, const char *line);
    void *ctx;
    const kcal_mpi_flavor *mpi; /* NULL: Open MPI's rules, `mpirun` */
    /* Words run before the launcher, NULL-terminated (a tool that runs the
     * launcher as its workload: `perf record ... --`), or NULL. The
     * launcher's rules (-n for srun, the oversubscribe flag) still come
     * from the launcher's own first word. */
    char *const *wrapper;
    /* 1: the job's stdout (without on_line) and stderr (with pass_stderr),
     * which are kcal's, pass through kcal, copied on as they come, so that
     * r->printed counts them too (a launcher that fails without a word
     * can be told from one that said why). The ranks see no difference:
     * their output reaches the launcher through its own pipes either way. */
    int tee;
} kcal_launch_spec;

typedef struct {
    int status;     /* exit status; 128 + N when signal N ended it */
    int term_signal; /* N when signal N ended the launcher; else 0 */
    int timed_out;  /* the job was ended after spec.timeout */
    int signal;     /* kcal got this signal while the job ran and ended it */
    int exec_errno; /* the launcher could not be started (then status 127) */
    char *err;      /* the job's stderr, '\0'-terminated; NULL when empty */
    size_t err_len;
    size_t err_dropped; /* bytes beyond KCAL_LAUNCH_ERR_KEEP, not kept */
    /* Of err_len, the bytes the job wrote before kcal ended it (timeout or
     * signal): what a hung job said for itself, as opposed to the launcher's
     * own words about being ended, which come and go with timing. Equal to
     * err_len when the job ended by itself. */
    size_t err_before_end;
    /* Bytes the job wrote on the streams kcal read (on_line's stdout, the
     * kept stderr, and with tee the ones it passed through). */
    unsigned long long printed;
} kcal_launch_result;

/* Whether P ranks get --oversubscribe with this spec. */
int kcal_launch_oversubscribes(const kcal_launch_spec *s);

/* The command line as it will run, words joined by blanks, into buf. */
char *kcal_launch_describe(const kcal_launch_spec *s, char *buf, size_t len);

/* Run the job to its end (or the timeout, or a signal). 0 with *r filled
 * (the job may still have failed: see r->status), or -1 with the reason in
 * err when it could not be started at all (pipe, fork, an empty command). */
int kcal_launch_run(const kcal_launch_spec *s, kcal_launch_result *r,
                    char *err, size_t errlen);

void kcal_launch_result_free(kcal_launch_result *r);

/* The first line of the job's stderr that starts with prefix (the job's
 * own message among mpirun's), into buf; NULL when there is none. */
const char *kcal_launch_err_line(const kcal_launch_result *r,
                                 const char *prefix, char *buf, size_t len);

/* Keep the job's stderr in a new file $TMPDIR/kcal-<tag>-XXXXXX.log (/tmp
 * without TMPDIR); its path into path. 0, or -1 (nothing kept, or the file
 * could not be written). A job that kcal ended (timeout, signal) gets a
 * file only when it wrote something before it was ended: the launcher's
 * words about being ended come or not with timing, and a message naming a
 * file of them alone would tell the user nothing. */
int kcal_launch_save_err(const kcal_launch_result *r, const char *tag,
                         char *path, size_t len);

#endif
