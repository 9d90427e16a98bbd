/* bench/capacity, common/exe and common/cores: the buffers of each
 * collective, overflow anywhere in p * n * ranks, the process-count limit,
 * bytes for people, finding a program next to the executable, the core
 * count. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/capacity.h"
#include "tests/check.h"
#include "common/cores.h"
#include "common/exe.h"
#include "common/grow.h"

static void buffers(kcal_coll c, uint64_t p, uint64_t n, uint64_t want_send,
                    uint64_t want_recv)
{
    uint64_t s = 1, r = 1;
    CHECK(kcal_capacity_coll_buffers(c, p, n, &s, &r) == 0);
    CHECK(s == want_send);
    CHECK(r == want_recv);
}

int main(void)
{
    /* Per collective: the root's p*n where a root gathers or scatters. */
    buffers(KCAL_COLL_SCATTER, 4, 1024, 4096, 1024);
    buffers(KCAL_COLL_GATHER, 4, 1024, 1024, 4096);
    buffers(KCAL_COLL_BCAST, 4, 1024, 0, 1024);
    buffers(KCAL_COLL_ALLGATHER, 4, 1024, 1024, 4096);
    buffers(KCAL_COLL_ALLTOALL, 4, 1024, 4096, 4096);

    /* The audit's case: 8388608T = 2^63 bytes, p = 2: p*n wraps to 0. */
    uint64_t s, r, per, total;
    CHECK(kcal_capacity_coll_buffers(KCAL_COLL_ALLTOALL, 2, 1ull << 63, &s, &r) < 0);
    CHECK(kcal_capacity_bench_bytes(KCAL_COLL_ALLTOALL, 2, 2, 1ull << 63, 1,
                                    &per, &total) < 0);
    /* n fits, p*n fits, the sum of send and receive does not. */
    CHECK(kcal_capacity_bench_bytes(KCAL_COLL_ALLTOALL, 2, 1, 1ull << 62, 0,
                                    &per, &total) < 0);
    /* Per rank fits, ranks x per rank does not. */
    CHECK(kcal_capacity_bench_bytes(KCAL_COLL_BCAST, 4, 4, 1ull << 62, 0,
                                    &per, &total) < 0);
    /* --check adds the reference copy of the receive buffer. */
    CHECK(kcal_capacity_bench_bytes(KCAL_COLL_SCATTER, 3, 3, 1000, 0, &per,
                                    &total) == 0 && per == 4000 && total == 12000);
    CHECK(kcal_capacity_bench_bytes(KCAL_COLL_SCATTER, 3, 3, 1000, 1, &per,
                                    &total) == 0 && per == 5000 && total == 15000);
    CHECK(kcal_capacity_bench_bytes(KCAL_COLL_ALLTOALL, 4, 2, 1024, 1, &per,
                                    &total) == 0 && per == 3 * 4096 &&
          total == 2 * 3 * 4096);

    /* Memory: at least the 64 MiB any machine running this has, and no
     * more than its physical pages. */
    uint64_t mem = kcal_capacity_memory();
    uint64_t phys = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
    CHECK(mem >= 64ull << 20);
    CHECK(mem <= phys);

    /* Ranks: never more than KCAL_CAPACITY_OVERSUB per core, always a why. */
    char why[256] = "";
    CHECK(kcal_capacity_max_ranks(2, why, sizeof why) <= 2 * KCAL_CAPACITY_OVERSUB);
    CHECK(kcal_capacity_max_ranks(2, why, sizeof why) >= 1);
    CHECK(why[0] != '\0');
    long one = kcal_capacity_max_ranks(1, why, sizeof why);
    CHECK(one <= KCAL_CAPACITY_OVERSUB);
    if (one == KCAL_CAPACITY_OVERSUB)
        CHECK(strstr(why, "16 ranks per core on 1 core:") != NULL);
    /* Unknown cores: the online CPUs count. */
    long on = sysconf(_SC_NPROCESSORS_ONLN);
    CHECK(kcal_capacity_max_ranks(0, why, sizeof why) <= on * KCAL_CAPACITY_OVERSUB);

    char b[32];
    CHECK_STR(kcal_capacity_format_bytes(512, b, sizeof b), "512 bytes");
    CHECK_STR(kcal_capacity_format_bytes(3ull << 20, b, sizeof b), "3.0 MiB");
    CHECK_STR(kcal_capacity_format_bytes(24ull << 30, b, sizeof b), "24 GiB");
    CHECK_STR(kcal_capacity_format_bytes(UINT64_MAX, b, sizeof b), "16 EiB");

    /* exe: the test binary's own directory; $VAR wins when set. */
    char dir[4096], path[4096];
    CHECK(kcal_exe_dir(dir, sizeof dir) == 0);
    CHECK(strlen(dir) > 6 && !strcmp(dir + strlen(dir) - 6, "/tests"));
    setenv("KCAL_TEST_EXE", "/bin/sh", 1);
    CHECK(kcal_exe_find("KCAL_TEST_EXE", "nothing-here", path, sizeof path) == 0);
    CHECK_STR(path, "/bin/sh");
    setenv("KCAL_TEST_EXE", "/etc/hostname-not-executable", 1);
    CHECK(kcal_exe_find("KCAL_TEST_EXE", "x", path, sizeof path) < 0);
    CHECK_STR(path, "/etc/hostname-not-executable");
    unsetenv("KCAL_TEST_EXE");
    /* Unset: next to the binary, in build/ or one up; else the build/ path. */
    CHECK(kcal_exe_find("KCAL_TEST_EXE", "no-such-program", path, sizeof path) < 0);
    char want[4200];
    snprintf(want, sizeof want, "%s/build/no-such-program", dir);
    CHECK_STR(path, want);
    /* build/tests/test_common finds build/kcal-bench-mpi one level up. */
    snprintf(want, sizeof want, "%s/../kcal-bench-mpi", dir);
    if (access(want, X_OK) == 0) {
        CHECK(kcal_exe_find(NULL, "kcal-bench-mpi", path, sizeof path) == 0);
        CHECK_STR(path, want);
    }

    /* cores: what hwloc says, at least one and no more than the CPUs. */
    int cores = kcal_cores();
    CHECK(cores >= 1);
    CHECK(cores <= sysconf(_SC_NPROCESSORS_CONF));

    /* grow: the first room, doubling, the same array while there is room,
     * and NULL with the array and its room unchanged past size_t. */
    size_t cap = 0;
    int *a = kcal_grow(NULL, &cap, 0, sizeof *a, 4);
    CHECK(a != NULL && cap == 4);
    for (int i = 0; i < 4; i++)
        a[i] = i;
    CHECK(kcal_grow(a, &cap, 3, sizeof *a, 4) == a && cap == 4);
    int *g = kcal_grow(a, &cap, 4, sizeof *g, 4);
    CHECK(g != NULL && cap == 8);
    CHECK(g[3] == 3); /* the elements survive the move */
    size_t huge = SIZE_MAX / 2 + 1;
    CHECK(kcal_grow(g, &huge, huge, 1, 4) == NULL);
    CHECK(huge == SIZE_MAX / 2 + 1);
    size_t big = SIZE_MAX / 16;
    CHECK(kcal_grow(g, &big, big, 16, 4) == NULL); /* n * elem overflows */
    CHECK(big == SIZE_MAX / 16);
    CHECK(kcal_grow(NULL, &cap, 0, 0, 4) == NULL || cap == 8);
    free(g);

    /* grow_to: room for a whole chunk, doubling from `first` as needed. */
    size_t bcap = 0;
    char *bytes = kcal_grow_to(NULL, &bcap, 10, 1, 4);
    CHECK(bytes != NULL && bcap == 16);
    CHECK(kcal_grow_to(bytes, &bcap, 16, 1, 4) == bytes && bcap == 16);
    char *more = kcal_grow_to(bytes, &bcap, 100, 1, 4);
    CHECK(more != NULL && bcap == 128);
    size_t hcap = 8;
    CHECK(kcal_grow_to(more, &hcap, SIZE_MAX, 1, 4) == NULL && hcap == 8);
    free(more);
    return check_report();
}
