/* exe: find the programs and files that are installed next to kcal (the MPI
 * helpers kcal-bench-mpi and kcal-sm-bench, the report's gnuplot scripts),
 * wherever kcal itself runs from: ./kcal at the top of the tree,
 * build/asan/kcal in the tests, or an installed copy. */
#ifndef KCAL_EXE_H
#define KCAL_EXE_H

#include <stddef.h>

/* The directory of the running executable (/proc/self/exe). 0, or -1. */
int kcal_exe_dir(char *out, size_t len);

/* Program `name`: $env_var when it is set and not empty (it must be
 * executable), else the first executable of DIR/name, DIR/build/name,
 * DIR/../name, DIR/../libexec/kcal/name and DIR/../lib/name, DIR being
 * kcal's directory (so ./kcal finds build/name, build/asan/kcal finds
 * build/name and an installed PREFIX/bin/kcal finds its helpers and
 * libkcoll_pmpi.so). Returns 0 with the path in out, or -1
 * with the path the user should look at in out ($env_var's value, or
 * DIR/build/name). */
int kcal_exe_find(const char *env_var, const char *name, char *out,
                  size_t len);

#endif
