/* common/mpi_flavor: the flavors by name and from $KCAL_MPI (an unknown one
 * refused with its name and where it came from), the library family and
 * its one-line name from real MPI_Get_library_version texts (Open MPI
 * 4.1.4's and MPICH 4.0.2's of Debian 12, and the MPICH-ABI family's
 * first lines), the oversubscribe flag only for Open MPI's launchers, and
 * where each build's programs are found. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check.h"
#include "common/exe.h"
#include "common/mpi_flavor.h"

static const char ompi_text[] =
    "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: "
    "v4.1.4, May 26, 2022\0";
static const char mpich_text[] =
    "MPICH Version:\t4.0.2\n"
    "MPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n"
    "MPICH ABI:\t14:2:2\n"
    "MPICH Device:\tch4:ucx\n"
    "MPICH configure:\t--build=x86_64-linux-gnu --prefix=/usr\n"
    "MPICH CC:\tgcc  -g -O2\n";

int main(void)
{
    char err[256], buf[256];
    const kcal_mpi_flavor *ompi = kcal_mpi_flavor_find("openmpi");
    const kcal_mpi_flavor *mpich = kcal_mpi_flavor_find("mpich");
    CHECK(ompi && mpich && ompi != mpich);
    CHECK(kcal_mpi_flavor_find("mvapich") == NULL);
    CHECK(kcal_mpi_flavor_find(NULL) == NULL);
    CHECK_STR(ompi->title, "Open MPI");
    CHECK_STR(mpich->build_dir, "build-mpich");
    CHECK_STR(mpich->lib, "libkcoll-mpich");
    CHECK_STR(ompi->lib, "libkcoll");
    CHECK_STR(ompi->suffix, "");
    CHECK_STR(mpich->suffix, "-mpich");
    CHECK_STR(ompi->env_flag, "-x");
    CHECK_STR(mpich->env_flag, "-genv");
    CHECK_STR(ompi->shared_core_args[3], "mpi_yield_when_idle");
    CHECK(mpich->shared_core_args[0] == NULL);

    /* --mpi wins over $KCAL_MPI; $KCAL_MPI over the default Open MPI. */
    unsetenv("KCAL_MPI");
    CHECK(kcal_mpi_flavor_choose(NULL, err, sizeof err) == ompi);
    setenv("KCAL_MPI", "", 1);
    CHECK(kcal_mpi_flavor_choose(NULL, err, sizeof err) == ompi);
    setenv("KCAL_MPI", "mpich", 1);
    CHECK(kcal_mpi_flavor_choose(NULL, err, sizeof err) == mpich);
    CHECK(kcal_mpi_flavor_choose("openmpi", err, sizeof err) == ompi);
    setenv("KCAL_MPI", "lam", 1);
    CHECK(kcal_mpi_flavor_choose(NULL, err, sizeof err) == NULL);
    CHECK_STR(err, "$KCAL_MPI: 'lam' is not an MPI library kcal knows "
                   "(openmpi, mpich)");
    CHECK(kcal_mpi_flavor_choose("lam", err, sizeof err) == NULL);
    CHECK(strncmp(err, "--mpi: 'lam'", 12) == 0);
    unsetenv("KCAL_MPI");

    /* The library from its own words. */
    CHECK(kcal_mpi_flavor_of_version(ompi_text) == ompi);
    CHECK(kcal_mpi_flavor_of_version(mpich_text) == mpich);
    CHECK(kcal_mpi_flavor_of_version("MVAPICH2 Version:\t2.3.7\n") == mpich);
    CHECK(kcal_mpi_flavor_of_version("Intel(R) MPI Library 2021.6 for Linux* OS\n") == mpich);
    CHECK(kcal_mpi_flavor_of_version("LAM/MPI 7.1\n") == NULL);
    CHECK(kcal_mpi_flavor_of_version(NULL) == NULL);
    CHECK_STR(kcal_mpi_flavor_describe_version(ompi_text, buf, sizeof buf),
              "Open MPI v4.1.4");
    CHECK_STR(kcal_mpi_flavor_describe_version(mpich_text, buf, sizeof buf),
              "MPICH 4.0.2 (ch4:ucx)");
    CHECK_STR(kcal_mpi_flavor_describe_version("MPICH Version:\t3.4\n", buf,
                                               sizeof buf),
              "MPICH 3.4");
    CHECK_STR(kcal_mpi_flavor_describe_version("Intel(R) MPI Library\t2021\nmore",
                                               buf, sizeof buf),
              "Intel(R) MPI Library 2021");
    char tiny[8];
    CHECK_STR(kcal_mpi_flavor_describe_version(mpich_text, tiny, sizeof tiny),
              "MPICH 4");

    /* --oversubscribe: Open MPI's launchers by base name, never hydra. */
    CHECK(kcal_mpi_flavor_oversubscribing(ompi, "/usr/bin/mpirun"));
    CHECK(kcal_mpi_flavor_oversubscribing(ompi, "mpirun.openmpi"));
    CHECK(kcal_mpi_flavor_oversubscribing(ompi, "prterun"));
    CHECK(!kcal_mpi_flavor_oversubscribing(ompi, "srun"));
    CHECK(!kcal_mpi_flavor_oversubscribing(ompi, "mpiexec.mpich"));
    CHECK(!kcal_mpi_flavor_oversubscribing(mpich, "mpiexec"));
    CHECK(!kcal_mpi_flavor_oversubscribing(mpich, "mpiexec.hydra"));

    /* The default launcher: one of the flavor's, the first found on PATH;
     * with none on PATH, the last (for the message to name). */
    char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", "/nonexistent", 1);
    CHECK_STR(kcal_mpi_flavor_launcher(ompi, buf, sizeof buf), "mpirun");
    CHECK_STR(kcal_mpi_flavor_launcher(mpich, buf, sizeof buf), "mpiexec");
    if (path) {
        setenv("PATH", path, 1);
        free(path);
    }

    /* Programs: $VAR wins for any flavor; MPICH's build/tests/test_...
     * finds build-mpich/NAME two levels up, and names that path when
     * absent. */
    char dir[4096], got[4200], want[4300];
    CHECK(kcal_exe_dir(dir, sizeof dir) == 0);
    setenv("KCAL_TEST_EXE", "/bin/sh", 1);
    CHECK(kcal_mpi_flavor_program(mpich, "KCAL_TEST_EXE", "x", got,
                                  sizeof got) == 0);
    CHECK_STR(got, "/bin/sh");
    unsetenv("KCAL_TEST_EXE");
    CHECK(kcal_mpi_flavor_program(mpich, "KCAL_TEST_EXE", "no-such-program",
                                  got, sizeof got) < 0);
    snprintf(want, sizeof want, "%s/build-mpich/no-such-program", dir);
    CHECK_STR(got, want);
    snprintf(want, sizeof want, "%s/../../build-mpich/kcal-bench-mpi", dir);
    if (access(want, X_OK) == 0) {
        CHECK(kcal_mpi_flavor_program(mpich, NULL, "kcal-bench-mpi", got,
                                      sizeof got) == 0);
        CHECK_STR(got, want);
    }
    /* Open MPI's are where they always were (kcal_exe_find). */
    CHECK(kcal_mpi_flavor_program(ompi, "KCAL_TEST_EXE", "no-such-program",
                                  got, sizeof got) < 0);
    snprintf(want, sizeof want, "%s/build/no-such-program", dir);
    CHECK_STR(got, want);
    return check_report();
}
