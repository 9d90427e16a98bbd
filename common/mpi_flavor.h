/* mpi_flavor: what kcal knows about each MPI library it builds for and
 * launches - the C face of the one MPI seam (common/mpi_flavor.mk is
 * make's: which pkg-config and build folder; common/mpi_flavor.sh the test
 * scripts'). Nothing else in kcal names an MPI library; the algorithms use
 * only the MPI standard.
 *
 *   openmpi  Open MPI: pkg-config ompi-c, programs in build/, libkcoll.*,
 *            launched by mpirun.openmpi (Debian's name, beside other MPIs)
 *            or mpirun; needs --oversubscribe for more ranks than cores
 *            and OMPI_ALLOW_RUN_AS_ROOT{,_CONFIRM}=1 to run as root.
 *   mpich    the MPICH ABI (MPICH, and so MVAPICH and Intel MPI):
 *            pkg-config mpich, programs in build-mpich/, libkcoll-mpich.*,
 *            launched by mpiexec.mpich (Debian) or mpiexec.hydra or
 *            mpiexec; hydra runs any number of ranks and runs as root.
 *
 * kcal links no MPI, so the library a program really uses is found out at
 * run time: the MPI programs hand MPI_Get_library_version's text to
 * kcal_mpi_flavor_of_version. A launcher of one library starting a program
 * of the other does not fail: it starts P singletons of one process each,
 * so the MPI programs also check the size of MPI_COMM_WORLD.
 * Library code: no printing, no exit. */
#ifndef KCAL_MPI_FLAVOR_H
#define KCAL_MPI_FLAVOR_H

#include <stddef.h>

typedef struct {
    const char *name;  /* "openmpi", "mpich": kcal --mpi, $KCAL_MPI, make MPI= */
    const char *title; /* "Open MPI", "MPICH": in messages */
    /* The default launcher: the first of these found on PATH (else the
     * last, for the error message to name). */
    const char *const *launchers;
    /* Launchers (base names) that take `oversubscribe`; NULL when the
     * flavor's launchers run any number of ranks without being told. */
    const char *const *oversubscribing;
    const char *oversubscribe; /* the flag, or NULL */
    /* NAME=VALUE the launcher needs to run as root, set where unset. */
    const char *const *root_env;
    /* The launcher option that sets NAME=VALUE (its next word) in every
     * rank: Open MPI's -x, hydra's -genv. */
    const char *env_flag;
    /* What a rank that waits needs when ranks share cores: Open MPI's
     * --bind-to none --mca mpi_yield_when_idle 1; none for MPICH 4 (its
     * ch4 device has no yield setting; hydra does not bind by default). */
    const char *const *shared_core_args;
    const char *build_dir; /* make's folder of its MPI programs */
    const char *suffix;    /* of its library names: "", "-mpich" */
    const char *lib;       /* libkcoll's name: libkcoll, libkcoll-mpich */
    const char *make_hint; /* how to build its programs */
} kcal_mpi_flavor;

/* The flavor named name, or NULL. */
const kcal_mpi_flavor *kcal_mpi_flavor_find(const char *name);

/* Every flavor's name, for messages: "openmpi, mpich". */
const char *kcal_mpi_flavor_names(void);

/* The flavor of a command: name when given (non-NULL), else $KCAL_MPI when
 * set and not empty, else openmpi. NULL for an unknown name, with the
 * name (and where it came from) in err. */
const kcal_mpi_flavor *kcal_mpi_flavor_choose(const char *name, char *err,
                                              size_t errlen);

/* The flavor's default launcher into buf: the first of f->launchers that
 * is an executable on PATH, else the last of them. Returns buf. */
const char *kcal_mpi_flavor_launcher(const kcal_mpi_flavor *f, char *buf,
                                     size_t len);

/* The MPI program `name` of f's build: $env_var when set and not empty,
 * else, for openmpi, kcal_exe_find's places (next to kcal, its build/, one
 * up), for another flavor DIR/<build_dir>/name and, for build/asan/kcal,
 * DIR/../../<build_dir>/name (DIR: kcal's directory). 0 with the path in
 * out, or -1 with the path the user should look at in out. */
int kcal_mpi_flavor_program(const kcal_mpi_flavor *f, const char *env_var,
                            const char *name, char *out, size_t len);

/* Whether word (a path or a name) is one of the launchers that take f's
 * oversubscribe flag. */
int kcal_mpi_flavor_oversubscribing(const kcal_mpi_flavor *f,
                                    const char *word);

/* The ABI family of a library from its MPI_Get_library_version text:
 * "Open MPI ..." is openmpi; "MPICH ...", "MVAPICH...", "Intel(R) MPI
 * ..." are mpich. NULL when unknown. */
const kcal_mpi_flavor *kcal_mpi_flavor_of_version(const char *version);

/* A one-line name of the library from the same text, into buf: "MPICH
 * 4.0.2 (ch4:ucx)", "Open MPI v4.1.4"; else its first line. Returns buf. */
const char *kcal_mpi_flavor_describe_version(const char *version, char *buf,
                                             size_t len);

#endif
