/* exe: programs next to kcal (see exe.h). */
#include "common/exe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int kcal_exe_dir(char *out, size_t len)
{
    if (len < 2)
        return -1;
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n <= 0 || (size_t)n >= len - 1)
        return -1;
    out[n] = '\0';
    char *slash = strrchr(out, '/');
    if (!slash)
        return -1;
    if (slash == out)
        slash++; /* kcal in / itself */
    *slash = '\0';
    return 0;
}

int kcal_exe_find(const char *env_var, const char *name, char *out,
                  size_t len)
{
    const char *env = env_var ? getenv(env_var) : NULL;
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return access(out, X_OK) == 0 ? 0 : -1;
    }
    char dir[4096];
    if (kcal_exe_dir(dir, sizeof dir) != 0) {
        snprintf(out, len, "%s", name);
        return -1;
    }
    /* Beside kcal, its build directory, one up (build/asan/kcal), and the
     * installed layout of `make install`: PREFIX/bin/kcal with the helper
     * programs in PREFIX/libexec/kcal and the libraries in PREFIX/lib. */
    static const char *const rel[] = {"%s/%s", "%s/build/%s", "%s/../%s",
                                      "%s/../libexec/kcal/%s",
                                      "%s/../lib/%s"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        int n = snprintf(out, len, rel[i], dir, name);
        if (n > 0 && (size_t)n < len && access(out, X_OK) == 0)
            return 0;
    }
    snprintf(out, len, "%s/build/%s", dir, name);
    return -1;
}
