/* mpi_flavor: the MPI libraries kcal builds for and launches (see
 * mpi_flavor.h). */
#include "common/mpi_flavor.h"
#include "common/err.h"
#include "common/exe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const ompi_launchers[] = {"mpirun.openmpi", "mpirun", NULL};
/* Open MPI 4 (orterun and its aliases) and 5 (prterun) refuse more ranks
 * than slots without the flag. */
static const char *const ompi_oversub[] = {"mpirun", "mpiexec", "orterun",
                                           "mpirun.openmpi", "mpiexec.openmpi",
                                           "prterun", NULL};
static const char *const ompi_root[] = {"OMPI_ALLOW_RUN_AS_ROOT=1",
                                        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
                                        NULL};
static const char *const ompi_shared[] = {"--bind-to", "none", "--mca",
                                          "mpi_yield_when_idle", "1", NULL};
static const char *const mpich_launchers[] = {"mpiexec.mpich", "mpiexec.hydra",
                                              "mpiexec", NULL};
static const char *const none[] = {NULL};

static const kcal_mpi_flavor flavors[] = {
    {"openmpi", "Open MPI", ompi_launchers, ompi_oversub, "--oversubscribe",
     ompi_root, "-x", ompi_shared, "build", "", "libkcoll", "make"},
    {"mpich", "MPICH", mpich_launchers, NULL, NULL, none, "-genv", none,
     "build-mpich", "-mpich", "libkcoll-mpich", "make MPI=mpich"},
};
#define NFLAVORS (sizeof flavors / sizeof flavors[0])

const kcal_mpi_flavor *kcal_mpi_flavor_find(const char *name)
{
    for (size_t i = 0; name && i < NFLAVORS; i++)
        if (!strcmp(flavors[i].name, name))
            return &flavors[i];
    return NULL;
}

const char *kcal_mpi_flavor_names(void)
{
    return "openmpi, mpich";
}

const kcal_mpi_flavor *kcal_mpi_flavor_choose(const char *name, char *err,
                                              size_t errlen)
{
    const char *from = "--mpi";
    if (!name) {
        name = getenv("KCAL_MPI");
        from = "$KCAL_MPI";
        if (!name || !*name)
            return &flavors[0];
    }
    const kcal_mpi_flavor *f = kcal_mpi_flavor_find(name);
    if (!f)
        kcal_set_err(err, errlen, "%s: '%s' is not an MPI library kcal "
                     "knows (%s)", from, name, kcal_mpi_flavor_names());
    return f;
}

static const char *base_name(const char *word)
{
    const char *slash = strrchr(word, '/');
    return slash ? slash + 1 : word;
}

/* Whether name is an executable file in a directory of $PATH. */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path || strchr(name, '/'))
        return access(name, X_OK) == 0;
    while (*path) {
        size_t n = strcspn(path, ":");
        char file[4096];
        int w = snprintf(file, sizeof file, "%.*s/%s", (int)n,
                         n ? path : ".", name);
        if (w > 0 && (size_t)w < sizeof file && access(file, X_OK) == 0)
            return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

const char *kcal_mpi_flavor_launcher(const kcal_mpi_flavor *f, char *buf,
                                     size_t len)
{
    const char *pick = NULL;
    for (const char *const *l = f->launchers; *l; l++) {
        pick = *l;
        if (on_path(*l))
            break;
    }
    snprintf(buf, len, "%s", pick ? pick : "");
    return buf;
}

int kcal_mpi_flavor_program(const kcal_mpi_flavor *f, const char *env_var,
                            const char *name, char *out, size_t len)
{
    const char *env = env_var ? getenv(env_var) : NULL;
    if (f == &flavors[0] || (env && *env))
        return kcal_exe_find(env_var, name, out, len);
    char dir[4096];
    if (kcal_exe_dir(dir, sizeof dir) != 0) {
        snprintf(out, len, "%s/%s", f->build_dir, name);
        return -1;
    }
    static const char *const rel[] = {"%s/%s/%s", "%s/../../%s/%s"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        int n = snprintf(out, len, rel[i], dir, f->build_dir, name);
        if (n > 0 && (size_t)n < len && access(out, X_OK) == 0)
            return 0;
    }
    snprintf(out, len, "%s/%s/%s", dir, f->build_dir, name);
    return -1;
}

int kcal_mpi_flavor_oversubscribing(const kcal_mpi_flavor *f,
                                    const char *word)
{
    if (!f->oversubscribe || !f->oversubscribing)
        return 0;
    const char *b = base_name(word);
    for (const char *const *l = f->oversubscribing; *l; l++)
        if (!strcmp(*l, b))
            return 1;
    return 0;
}

const kcal_mpi_flavor *kcal_mpi_flavor_of_version(const char *version)
{
    static const struct {
        const char *prefix;
        const char *flavor;
    } marks[] = {{"Open MPI", "openmpi"},
                 {"MPICH", "mpich"},
                 {"MVAPICH", "mpich"},
                 {"Intel(R) MPI", "mpich"}};
    if (!version)
        return NULL;
    version += strspn(version, " \t\n");
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (!strncmp(version, marks[i].prefix, strlen(marks[i].prefix)))
            return kcal_mpi_flavor_find(marks[i].flavor);
    return NULL;
}

/* The value of the line "key:<blanks>value" of MPICH's text, into buf;
 * NULL when there is none. */
static const char *mpich_field(const char *text, const char *key, char *buf,
                               size_t len)
{
    size_t kl = strlen(key);
    for (const char *s = text; s && *s;) {
        if (!strncmp(s, key, kl) && s[kl] == ':') {
            const char *v = s + kl + 1;
            v += strspn(v, " \t");
            snprintf(buf, len, "%.*s", (int)strcspn(v, "\r\n"), v);
            return buf;
        }
        s = strchr(s, '\n');
        s = s ? s + 1 : NULL;
    }
    return NULL;
}

const char *kcal_mpi_flavor_describe_version(const char *version, char *buf,
                                             size_t len)
{
    if (len)
        buf[0] = '\0';
    if (!version)
        return buf;
    version += strspn(version, " \t\n");
    char v[64], dev[64];
    if (!strncmp(version, "MPICH Version:", 14) &&
        mpich_field(version, "MPICH Version", v, sizeof v)) {
        if (mpich_field(version, "MPICH Device", dev, sizeof dev))
            snprintf(buf, len, "MPICH %s (%s)", v, dev);
        else
            snprintf(buf, len, "MPICH %s", v);
        return buf;
    }
    /* Open MPI: "Open MPI v4.1.4, package: ..., ident: ...": up to the
     * first comma; others: the first line, tabs as blanks. */
    size_t n = strcspn(version, "\r\n");
    if (!strncmp(version, "Open MPI", 8))
        n = strcspn(version, ",\r\n");
    snprintf(buf, len, "%.*s", (int)n, version);
    for (char *t = buf; *t; t++)
        if (*t == '\t')
            *t = ' ';
    return buf;
}
