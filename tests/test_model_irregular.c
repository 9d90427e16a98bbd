/* The v-collectives' model (model/irregular.c) and the count
 * distributions (common/vcounts.c): uniform counts give exactly the
 * regular row's prediction, empty pairs cost nothing, skew and sparse
 * move the busiest process as they should, every spec parses or is
 * refused with a message naming it, a matrix file reads or says where it
 * is wrong. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check.h"
#include "common/vcounts.h"
#include "model/irregular.h"

static int close_to(double a, double b)
{
    return fabs(a - b) <= 1e-9 * fabs(b) + 1e-15;
}

static kcal_vcounts spec(const char *s)
{
    kcal_vcounts v;
    char err[256];
    CHECK(kcal_vcounts_parse(s, &v, err, sizeof err) == 0);
    return v;
}

static void bad_spec(const char *s, const char *want)
{
    kcal_vcounts v;
    char err[256] = "";
    CHECK(kcal_vcounts_parse(s, &v, err, sizeof err) < 0);
    CHECK(strstr(err, want) != NULL);
}

static void distributions(void)
{
    enum { P = 5 };
    uint64_t m[P * P], m2[P * P];
    char err[256], name[64];
    kcal_vcounts u = spec("uniform");
    CHECK(kcal_vcounts_matrix(&u, P, 100, m, err, sizeof err) == 0);
    for (int i = 0; i < P * P; i++)
        CHECK(m[i] == 100);
    kcal_vcounts sk = spec("skew:16");
    CHECK_STR(kcal_vcounts_name(&sk, name, sizeof name), "skew:16");
    CHECK(kcal_vcounts_matrix(&sk, P, 100, m, err, sizeof err) == 0);
    for (int s = 0; s < P; s++)
        for (int d = 0; d < P; d++)
            CHECK(m[s * P + d] == (s == 1 || d == 1 ? 1600u : 100u));
    kcal_vcounts r = spec("random:7");
    CHECK(kcal_vcounts_matrix(&r, P, 100, m, err, sizeof err) == 0);
    CHECK(kcal_vcounts_matrix(&r, P, 100, m2, err, sizeof err) == 0);
    int differ = 0;
    for (int i = 0; i < P * P; i++) {
        CHECK(m[i] <= 200 && m[i] == m2[i]);
        differ |= m[i] != m[0];
    }
    CHECK(differ);
    kcal_vcounts r8 = spec("random:8");
    CHECK(kcal_vcounts_matrix(&r8, P, 100, m2, err, sizeof err) == 0);
    CHECK(memcmp(m, m2, sizeof m) != 0);
    kcal_vcounts sp = spec("sparse");
    CHECK(kcal_vcounts_matrix(&sp, P, 100, m, err, sizeof err) == 0);
    for (int s = 0; s < P; s++)
        for (int d = 0; d < P; d++)
            CHECK(m[s * P + d] == ((s + d) % 4 == 0 ? 400u : 0u));
    bad_spec("", "empty");
    bad_spec("skew", "not uniform");
    bad_spec("skew:0", "factor F of 1 to 1000000");
    bad_spec("skew:x", "factor");
    bad_spec("random:", "seed");
    bad_spec("random:-1", "seed");
    bad_spec("file:", "not uniform");
    bad_spec("Uniform", "'Uniform'");
    CHECK(kcal_vcounts_matrix(&sk, P, UINT64_MAX / 4, m, err, sizeof err) <
              0 &&
          strstr(err, "overflow"));

    char path[] = "/tmp/kcal-test-vcounts-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("# s -> d\n0 1 2\n3 4 5 # end\n6 7 8\n", f);
    fclose(f);
    char arg[64];
    snprintf(arg, sizeof arg, "file:%s", path);
    kcal_vcounts fl = spec(arg);
    CHECK(kcal_vcounts_matrix(&fl, 3, 999, m, err, sizeof err) == 0);
    for (int i = 0; i < 9; i++)
        CHECK(m[i] == (uint64_t)i);
    CHECK(kcal_vcounts_matrix(&fl, 2, 1, m, err, sizeof err) < 0 &&
          strstr(err, "9 byte counts, where p = 2 needs 4"));
    f = fopen(path, "w");
    fputs("0 1\n2 3e4\n", f);
    fclose(f);
    CHECK(kcal_vcounts_matrix(&fl, 2, 1, m, err, sizeof err) < 0 &&
          strstr(err, ":2: '3e4' is not a byte count"));
    unlink(path);
    CHECK(kcal_vcounts_matrix(&fl, 2, 1, m, err, sizeof err) < 0 &&
          strstr(err, "cannot open"));
}

/* Uniform counts: every v-algorithm is its regular row (a slotted row,
 * KCOLL_VSLOT: its large row past one slot). */
static void uniform_is_regular(const kcal_params *prm, kcal_model_kind model)
{
    const char *v[] = {"scatterv", "gatherv", "allgatherv", "alltoallv"};
    for (size_t c = 0; c < 4; c++) {
        size_t na;
        const kcal_valgorithm *a = kcal_model_valgorithms(v[c], &na);
        CHECK(a && na >= 1);
        for (size_t i = 0; i < na; i++) {
            CHECK(a[i].row != NULL);
            for (int p = 2; p <= 9; p += 7)
                for (uint64_t n = 64; n <= (1u << 22); n *= 64) {
                    uint64_t *m = malloc(sizeof *m * (size_t)(p * p));
                    for (int j = 0; j < p * p; j++)
                        m[j] = n;
                    kcal_terms t;
                    double tv = kcal_model_vtime(model, prm, &a[i], p, p - 1, m, &t);
                    const kcal_algorithm *row =
                        a[i].large && n > KCAL_V_SLOT_BLOCK ? a[i].large
                                                            : a[i].row;
                    double tr = kcal_model_time(model, prm, a[i].regular,
                                                row, 0, p, n, 0, NULL);
                    CHECK(tr > 0 && close_to(tv, tr));
                    CHECK(close_to(t.startup + t.copy + t.lock + t.sync, tv));
                    double mpi = kcal_model_vmpi_time(prm, v[c], p, m);
                    CHECK(close_to(mpi, kcal_model_mpi_time(prm, a[i].regular,
                                                            p, n)));
                    free(m);
                }
        }
    }
}

/* What moves the busiest process moves the prediction. */
static void shapes(const kcal_params *prm)
{
    enum { P = 4 };
    uint64_t m[P * P];
    size_t na;
    const kcal_valgorithm *a = kcal_model_valgorithms("alltoallv", &na);
    /* pairwise, then its staged row */
    CHECK(a && na == 2 && !strcmp(a->id, "pairwise") &&
          kcal_model_valgorithms("bcastv", &na) == NULL);
    kcal_model_kind full = KCAL_MODEL_FULL;
    for (int i = 0; i < P * P; i++)
        m[i] = 65536;
    double uniform = kcal_model_vtime(full, prm, a, P, P - 1, m, NULL);
    m[1 * P + 2] = 0; /* one empty pair: the other columns still full */
    CHECK(close_to(kcal_model_vtime(full, prm, a, P, P - 1, m, NULL), uniform));
    for (int d = 0; d < P; d++) /* rank 1 moves nothing: every column */
        m[1 * P + d] = m[d * P + 1] = 0; /* has a pair less */
    CHECK(kcal_model_vtime(full, prm, a, P, P - 1, m, NULL) < uniform);
    for (int s = 0; s < P; s++) /* rank 2 receives 16x: dearer */
        m[s * P + 2] = 16 * 65536;
    CHECK(kcal_model_vtime(full, prm, a, P, P - 1, m, NULL) > 4 * uniform);
    memset(m, 0, sizeof m); /* nothing moves: the synchronisation alone */
    kcal_terms t;
    double none = kcal_model_vtime(full, prm, a, P, P - 1, m, &t);
    CHECK(none > 0 && t.copy == 0 && t.lock == 0 && t.startup == 0 &&
          none == t.sync);
    /* scatterv reads row 0 only, gatherv column 0 only. */
    const kcal_valgorithm *sc = kcal_model_valgorithms("scatterv", &na);
    const kcal_valgorithm *ga = kcal_model_valgorithms("gatherv", &na);
    for (int i = 0; i < P * P; i++)
        m[i] = i / P == 0 ? 4096 : 1 << 20;
    double row_small = kcal_model_vtime(full, prm, sc, P, P - 1, m, NULL);
    for (int i = 0; i < P * P; i++)
        m[i] = 4096;
    CHECK(close_to(row_small, kcal_model_vtime(full, prm, sc, P, P - 1, m, NULL)));
    for (int i = 0; i < P * P; i++)
        m[i] = i % P == 0 ? 4096 : 1 << 20;
    double column_small = kcal_model_vtime(full, prm, ga, P, P - 1, m, NULL);
    for (int i = 0; i < P * P; i++)
        m[i] = 4096;
    CHECK(close_to(column_small, kcal_model_vtime(full, prm, ga, P, P - 1, m, NULL)));
    CHECK(kcal_model_vtime(full, prm, a, 1, 0, m, NULL) < 0);
    CHECK(kcal_model_is_vcoll("alltoallv") && !kcal_model_is_vcoll("alltoall"));
    CHECK_STR(kcal_model_vcoll_list(),
              "scatterv, gatherv, allgatherv, alltoallv");
}

/* A process's own block is priced at its own size: the rows that copy it
 * locally (T_memcpy; the split rows' root before it helps) get cheaper
 * when it shrinks while the blocks it moves stay, the parallel rows,
 * which copy it while their peers read, do not change; in the paper's
 * model the difference is the local copy itself, (own − own')·β. */
static void own_block(const kcal_params *prm, kcal_model_kind model)
{
    const uint64_t big = 1 << 20, small = 65536;
    static const char *const rooted[] = {"scatterv", "gatherv"};
    for (size_t c = 0; c < 2; c++) {
        size_t na;
        const kcal_valgorithm *a = kcal_model_valgorithms(rooted[c], &na);
        for (size_t i = 0; i < na; i++) {
            /* p = 2: root 0's own block M[0][0], its one pair big */
            uint64_t same[4] = {big, big, big, big};
            uint64_t mine[4] = {small, big, big, big};
            double t_same = kcal_model_vtime(model, prm, &a[i], 2, 1, same, NULL);
            double t_mine = kcal_model_vtime(model, prm, &a[i], 2, 1, mine, NULL);
            /* copy_in_out: the root copies its own block while the
             * reader copies the last chunk out, which may end later */
            if (!strcmp(a[i].id, "copy_in_out"))
                CHECK(t_mine <= t_same);
            else if (!kcal_model_vwindowed(&a[i]) &&
                     (strncmp(a[i].id, "parallel_", 9) != 0 ||
                      strstr(a[i].id, "_split") != NULL))
                CHECK(t_mine < t_same);
            else
                CHECK(close_to(t_mine, t_same));
            if (model == KCAL_MODEL_PAPER && strstr(a[i].id, "sequential_"))
                CHECK(close_to(t_same - t_mine,
                               (double)(big - small) * prm->beta));
        }
    }
    /* allgatherv, p = 3, rank 0's block small: rank 0 still reads two
     * big blocks, as with every block big, but copies a small one of its
     * own; the others read less than rank 0. */
    size_t na;
    const kcal_valgorithm *ag = kcal_model_valgorithms("allgatherv", &na);
    uint64_t same[9], mine[9];
    for (int i = 0; i < 9; i++) {
        same[i] = big;
        mine[i] = i / 3 == 0 ? small : big; /* rank s's block is M[s][0] */
    }
    CHECK(kcal_model_vtime(model, prm, ag, 3, 2, mine, NULL) <
          kcal_model_vtime(model, prm, ag, 3, 2, same, NULL));
}

/* The windowed rows (throttled_read, throttled_write): w = p − 1 is the
 * parallel row's pricing for any matrix (each pair its own lane); w = 1
 * is one copy at a time, the pairs' sum, each at the contention of one
 * copy (the parallel row at p = 2); in between the pairs fill w lanes in
 * the root's order, each taking the lane that frees first; windows out
 * of 1..p − 1 are refused. */
static void windows(const kcal_params *prm, kcal_model_kind model)
{
    enum { P = 5 };
    static const char *const rooted[] = {"scatterv", "gatherv"};
    static const char *const parallel[] = {"parallel_read", "parallel_write"};
    for (size_t c = 0; c < 2; c++) {
        size_t na;
        const kcal_valgorithm *a = kcal_model_valgorithms(rooted[c], &na);
        const kcal_valgorithm *win = NULL, *par = NULL;
        for (size_t i = 0; i < na; i++) {
            if (kcal_model_vwindowed(&a[i]))
                win = &a[i];
            if (!strcmp(a[i].id, parallel[c]))
                par = &a[i];
        }
        CHECK(win && par && !kcal_model_vwindowed(par));
        if (!win || !par)
            continue;
        /* scatterv reads root 0's row, gatherv column 0: a matrix that
         * is the same both ways (M symmetric) serves both */
        uint64_t m[P * P], one[4];
        uint64_t blocks[P] = {65536, 1 << 20, 4096, 0, 262144};
        for (int s = 0; s < P; s++)
            for (int d = 0; d < P; d++)
                m[s * P + d] = s == 0 ? blocks[d] : d == 0 ? blocks[s] : 7;
        kcal_terms tw, tp;
        CHECK(close_to(kcal_model_vtime(model, prm, win, P, P - 1, m, &tw),
                       kcal_model_vtime(model, prm, par, P, 0, m, &tp)));
        /* w = 1: the sum of each pair alone, at p = 2 with the same own
         * block; the call's synchronisation is the whole one's */
        double alone = 0;
        for (int d = 1; d < P; d++) {
            if (!blocks[d])
                continue;
            one[0] = blocks[0];
            one[1] = one[2] = blocks[d];
            one[3] = 7;
            kcal_terms t;
            kcal_model_vtime(model, prm, par, 2, 0, one, &t);
            alone += t.startup + t.copy + t.lock;
        }
        kcal_model_vtime(model, prm, win, P, 1, m, &tw);
        CHECK(close_to(tw.startup + tw.copy + tw.lock, alone));
        CHECK(close_to(tw.sync, tp.sync));
        /* w = 2, the root's order d = 1 (1M), 2 (4K), 4 (256K; 3 has
         * none): 1M and 4K start, 256K takes the 4K lane, which frees
         * first. Each pair alone, priced as the window prices it: */
        double pair[P] = {0};
        for (int d = 1; d < P; d++) {
            uint64_t mm[P * P];
            for (int i = 0; i < P * P; i++)
                mm[i] = 0;
            mm[0] = blocks[0];
            mm[d] = mm[d * P] = blocks[d];
            kcal_terms t;
            if (blocks[d] && kcal_model_vtime(model, prm, win, P, 2, mm, &t) > 0)
                pair[d] = t.startup + t.copy + t.lock;
        }
        double lanes = pair[2] + pair[4] > pair[1] ? pair[2] + pair[4] : pair[1];
        kcal_model_vtime(model, prm, win, P, 2, m, &tw);
        CHECK(pair[1] > 0 && close_to(tw.startup + tw.copy + tw.lock, lanes));
        CHECK(kcal_model_vtime(model, prm, win, P, 0, m, NULL) < 0);
        CHECK(kcal_model_vtime(model, prm, win, P, P, m, NULL) < 0);
    }
}

/* The staged row (irregular.def's KCOLL_VSTAGED): every v-collective's
 * is its copy_in_out; kcal_model_vstaged is where the
 * first row's regular row is first predicted faster than the staged
 * one's, every block n, at p: the staged row not slower just below it,
 * the first row faster at it. */
static void staged(const kcal_params *prm, kcal_model_kind model)
{
    const kcal_valgorithm *st = kcal_model_vstaged_row("allgatherv");
    CHECK(st && !strcmp(st->id, "copy_in_out") &&
          st->regular == KCAL_COLL_ALLGATHER);
    static const char *const others[] = {"scatterv", "gatherv",
                                         "alltoallv"};
    static const kcal_coll regular[] = {KCAL_COLL_SCATTER, KCAL_COLL_GATHER,
                                        KCAL_COLL_ALLTOALL};
    /* their large pairs as the parallel rows' (KCOLL_VSLOT);
     * allgatherv's copy_in_out copies any block in chunks */
    static const char *const large[] = {"parallel_read", "parallel_write",
                                        "pairwise"};
    for (size_t i = 0; i < 3; i++) {
        const kcal_valgorithm *r = kcal_model_vstaged_row(others[i]);
        CHECK(r && !strcmp(r->id, "copy_in_out") &&
              r->regular == regular[i]);
        CHECK(r && r->large && !strcmp(r->large->id, large[i]));
    }
    CHECK(st && !st->large);
    CHECK(!kcal_model_vstaged_row("nonesuch"));
    size_t na;
    const kcal_valgorithm *first = kcal_model_valgorithms("allgatherv", &na);
    for (int p = 2; p <= 8 && st && first; p *= 2) {
        uint64_t n = kcal_model_vstaged(model, prm, first, st, p);
        CHECK(n >= 64 && n <= ((uint64_t)1 << 30));
        double f = kcal_model_time(model, prm, first->regular, first->row,
                                   0, p, n, 0, NULL);
        double t = kcal_model_time(model, prm, st->regular, st->row, 0, p,
                                   n, 0, NULL);
        if (n < ((uint64_t)1 << 30)) /* 2^30: never, below 1 GiB */
            CHECK(f < t);
        if (n > 64) {
            f = kcal_model_time(model, prm, first->regular, first->row, 0,
                                p, n / 2, 0, NULL);
            t = kcal_model_time(model, prm, st->regular, st->row, 0, p,
                                n / 2, 0, NULL);
            CHECK(t <= f);
        }
    }
    CHECK(kcal_model_vstaged(model, prm, first, st, 1) == 0);
    CHECK(kcal_model_vstaged(model, prm, first, NULL, 2) == 0);
}

int main(void)
{
    distributions();
    kcal_params knl, zen;
    char err[512];
    CHECK(kcal_params_load_embedded("knl", &knl, err, sizeof err) == 0);
    uniform_is_regular(&knl, KCAL_MODEL_PAPER);
    uniform_is_regular(&knl, KCAL_MODEL_FULL);
    own_block(&knl, KCAL_MODEL_PAPER);
    own_block(&knl, KCAL_MODEL_FULL);
    windows(&knl, KCAL_MODEL_PAPER);
    windows(&knl, KCAL_MODEL_FULL);
    /* Measured params, with the MPI library's rows. */
    kcal_params_init(&zen);
    CHECK(kcal_params_read("tests/data/probed-quick.params", &zen, err,
                           sizeof err) == 0);
    uniform_is_regular(&zen, KCAL_MODEL_FULL);
    uniform_is_regular(&zen, KCAL_MODEL_PAPER);
    shapes(&zen);
    staged(&zen, KCAL_MODEL_FULL);
    staged(&zen, KCAL_MODEL_PAPER);
    windows(&zen, KCAL_MODEL_FULL);
    own_block(&zen, KCAL_MODEL_FULL);
    kcal_params_free(&zen);
    kcal_params_free(&knl);
    return check_report();
}
