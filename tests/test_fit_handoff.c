/* test_fit_handoff: the keys fitted from the probe's runs of libkcoll's
 * algorithms and of the MPI library's collectives, on synthetic samples
 * (tests/fit_samples.h): cma_context, and the hand-off to the MPI library
 * (sm_flag, the mpi_<coll> lines, mpi_<coll>_below and _mask), which
 * follows the choice of the model libkcoll uses. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fit/calibrate.h"
#include "tests/check.h"
#include "tests/fit_samples.h"
#include "model/model.h"
#include "fit/raw.h"

/* cma_context: the probe's samples of scatter parallel_read_flags and
 * gather parallel_write_flags (one CMA call each) from 256 B to 8 KiB at
 * the smallest p >= 2, less the full model's time for them, weighted over
 * the points. Samples made as the model's time (from a fit without them)
 * plus CTX are recovered within 2 %; a size above 8 KiB (64 KiB, 10 µs
 * over) and a larger p (p = 3 beside p = 2, 5 µs over) do not count; rows
 * faster than the model hold the key at 0 with a note; without the
 * samples there is no key. */
static void test_context(gsl_rng *rng)
{
    const double CTX = 4e-7;
    static const long sizes[] = {256, 1024, 4096, 8192, 65536};
    for (int variant = 0; variant < 3; variant++) {
        kcal_raw r;
        make_samples(&r, rng, 3);
        kcal_params p0;
        kcal_params_init(&p0);
        kcal_calibrate_notes notes;
        char comment[16384] = "", err[256] = "";
        CHECK(kcal_calibrate_params(&r, &p0, &notes, comment, sizeof comment,
                                    err, sizeof err) == 0);
        CHECK(kcal_params_get(&p0, "cma_context", -1) == -1);
        for (int k = 0; variant > 0 && k < REPS; k++)
            for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
                static const kcal_coll cs[2] = {KCAL_COLL_SCATTER, KCAL_COLL_GATHER};
                static const char *const ids[2] = {"parallel_read_flags",
                                                   "parallel_write_flags"};
                for (int j = 0; j < 2; j++) {
                    const kcal_algorithm *a = kcal_model_find_algorithm(cs[j], ids[j]);
                    double t = kcal_model_time(KCAL_MODEL_FULL, &p0, cs[j], a, 0, 2,
                                               (uint64_t)sizes[i], 0, NULL);
                    double t3 = kcal_model_time(KCAL_MODEL_FULL, &p0, cs[j], a, 0, 3,
                                                (uint64_t)sizes[i], 0, NULL);
                    double extra = variant == 2 ? -1e-7 : sizes[i] > 8192 ? 1e-5 : CTX;
                    char phase[32];
                    snprintf(phase, sizeof phase, "kcoll_%s", kcal_coll_name(cs[j]));
                    kcal_raw_add(&r, phase, ids[j], 2, 0, sizes[i], k,
                                 t + extra + gsl_ran_gaussian(rng, 1e-9));
                    kcal_raw_add(&r, phase, ids[j], 3, 0, sizes[i], k,
                                 t3 + 5e-6 + gsl_ran_gaussian(rng, 1e-9));
                }
            }
        kcal_params p;
        kcal_params_init(&p);
        comment[0] = 0;
        CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment,
                                    err, sizeof err) == 0);
        if (variant == 0) {
            CHECK(kcal_params_get(&p, "cma_context", -1) == -1);
        } else if (variant == 1) {
            CHECK_NEAR(kcal_params_get(&p, "cma_context", -1), CTX, 0.02);
            CHECK(kcal_params_get(&p, "cma_context_stderr", -1) > 0);
            CHECK(strstr(comment, "cma_context: scatter parallel_read_flags at "
                                  "p = 2, measured - full model (us): 256 ") != NULL);
            CHECK(strstr(comment, "cma_context: gather parallel_write_flags") != NULL);
            /* the comment's points stop at 8 KiB */
            const char *line = strstr(comment, "cma_context: scatter");
            const char *end = line ? strchr(line, '\n') : NULL;
            CHECK(line && end);
            if (line && end) {
                char one[512];
                snprintf(one, sizeof one, "%.*s", (int)(end - line), line);
                CHECK(strstr(one, " 8192 ") != NULL);
                CHECK(strstr(one, " 65536 ") == NULL);
            }
            CHECK(kcal_params_validate(&p, "fit", err, sizeof err) == 0);
        } else {
            CHECK(kcal_params_get(&p, "cma_context", -1) == 0);
            CHECK(has_note(&notes, "cma_context: the fit gave"));
        }
        kcal_params_free(&p);
        kcal_params_free(&p0);
        kcal_raw_free(&r);
    }
}

/* libkcoll's hand-off (model.md "The MPI library as a candidate"): sm_flag
 * is the median of its phase at the smallest p; the MPI line is fitted
 * through the medians of mpi_<coll> over v = (p−1)·n; mpi_<coll>_below is
 * the smallest size from which libkcoll's choice (the default model's
 * with the fitted params: the paper model's, without working-set samples)
 * beats the MPI library by more than 20 % at that size and every larger
 * one. Gather, worked by hand: MPI 1 µs + 0.1 ns/B;
 * parallel_write 2 µs + 0.05 ns/B; parallel_write_flags, the model's
 * choice here (its flags, sm_flag 50 ns against sync_step's 140 ns, cost
 * a third of parallel_write's T_sm), 1.2 µs + 0.05 ns/B (and
 * parallel_write_split, which the model picks at the larger sizes,
 * measured the same, so either choice gives the same crossover):
 *   n      MPI     parallel_write_flags
 *   256    1.026   1.213   MPI
 *   1K     1.102   1.251   MPI
 *   4K     1.410   1.405   1.004x faster: within the margin, MPI
 *   16K    2.638   2.019   1.31x faster: libkcoll
 *   64K    7.554   4.477   1.69x faster: libkcoll
 * so mpi_gather_below = 16384.
 * Alltoall: the model chooses pairwise (its paper row has no
 * synchronisation but the address allgather, which these params leave at
 * 0), measured 1.5x MPI up to 4K, 1.03x faster at 16K (within the margin)
 * and 1.3x faster at 64K; pairwise_flags, twice as fast everywhere, is
 * not what libkcoll runs: mpi_alltoall_below = 65536. A collective without libkcoll's samples gets its line but no
 * crossover (no hand-off). */
static void test_handoff_fit(gsl_rng *rng)
{
    kcal_raw r;
    make_samples(&r, rng, 3);
    static const long sizes[] = {256, 1024, 4096, 16384, 65536};
    for (int k = 0; k < REPS; k++) {
        kcal_raw_add(&r, "sm_flag", "mpi", 2, 0, 8, k, 5e-8 + gsl_ran_gaussian(rng, 1e-9));
        kcal_raw_add(&r, "sm_flag", "mpi", 3, 0, 8, k, 4e-7 + gsl_ran_gaussian(rng, 2e-9));
        for (size_t i = 0; i < 5; i++) {
            double n = (double)sizes[i];
            kcal_raw_add(&r, "mpi_gather", "mpi", 2, 0, sizes[i], k,
                         1e-6 + 1e-10 * n + gsl_ran_gaussian(rng, 1e-9));
            kcal_raw_add(&r, "kcoll_gather", "parallel_write", 2, 0, sizes[i], k,
                         2e-6 + 0.5e-10 * n + gsl_ran_gaussian(rng, 1e-9));
            kcal_raw_add(&r, "kcoll_gather", "parallel_write_flags", 2, 0, sizes[i], k,
                         1.2e-6 + 0.5e-10 * n + gsl_ran_gaussian(rng, 1e-9));
            kcal_raw_add(&r, "kcoll_gather", "parallel_write_split", 2, 0, sizes[i], k,
                         1.2e-6 + 0.5e-10 * n + gsl_ran_gaussian(rng, 1e-9));
            kcal_raw_add(&r, "kcoll_gather", "copy_in_out", 2, 0, sizes[i], k,
                         1.2e-6 + 0.5e-10 * n + gsl_ran_gaussian(rng, 1e-9));
            kcal_raw_add(&r, "mpi_scatter", "mpi", 2, 0, sizes[i], k,
                         5e-7 + 2e-10 * n + gsl_ran_gaussian(rng, 1e-9));
            double m = 1e-6 + 1e-10 * n;
            double pw = sizes[i] <= 4096 ? 1.5 * m : sizes[i] == 16384 ? m / 1.03 : m / 1.3;
            kcal_raw_add(&r, "mpi_alltoall", "mpi", 2, 0, sizes[i], k, m);
            kcal_raw_add(&r, "kcoll_alltoall", "pairwise", 2, 0, sizes[i], k, pw);
            kcal_raw_add(&r, "kcoll_alltoall", "pairwise_flags", 2, 0, sizes[i], k, m / 2);
        }
    }
    kcal_params p;
    kcal_params_init(&p);
    kcal_calibrate_notes notes;
    char comment[8192] = "", err[256] = "";
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err, sizeof err) == 0);
    CHECK_NEAR(kcal_params_get(&p, "sm_flag", -1), 5e-8, 0.02);
    CHECK(kcal_params_get(&p, "sm_flag_stderr", -1) > 0);
    CHECK_NEAR(kcal_params_get(&p, "mpi_gather_a", -1), 1e-6, 0.02);
    CHECK_NEAR(kcal_params_get(&p, "mpi_gather_b", -1), 1e-10, 0.02);
    CHECK(kcal_params_get(&p, "mpi_gather_a_stderr", -1) > 0);
    CHECK(kcal_params_get(&p, "mpi_gather_below", -1) == 16384);
    CHECK(kcal_params_get(&p, "mpi_alltoall_below", -1) == 65536);
    CHECK_NEAR(kcal_params_get(&p, "mpi_scatter_b", -1), 2e-10, 0.02);
    CHECK(kcal_params_find(&p, "mpi_scatter_below") == NULL);
    CHECK(kcal_params_find(&p, "mpi_bcast_a") == NULL);
    CHECK(strstr(comment, "mpi_gather_below 16384: at p = 2") != NULL);
    kcal_params_free(&p);
    kcal_raw_free(&r);
}

/* The crossover measures what libkcoll will run: the choice of the model
 * libkcoll uses with the fitted params (kcal_model_default: the full model
 * once the probe measured the working set), not the paper model's, which
 * can differ (bcast at p = 2 on the Zen 5 guest: the paper model's
 * direct_split decided the hand-off, and the full model's scatter_allgather
 * then ran, slower than MPI_Bcast). Here, allgather at p = 2 (the paper
 * model picks ring_neighbor, the full one ring_source_read_flags), every
 * algorithm is measured 1.5x slower than MPI but the full model's choice,
 * 1.5x faster from 4 KiB: so mpi_allgather_below is 4096 (65536, the
 * largest size, had the paper's choice decided), and each size's
 * algorithm in the comment is the full model's choice there. */
static void test_handoff_follows_default_model(gsl_rng *rng)
{
    static const long sizes[] = {1024, 4096, 16384, 65536};
    enum { NS_ = sizeof sizes / sizeof *sizes };
    kcal_raw r;
    make_samples(&r, rng, 2);
    for (int k = 0; k < REPS; k++) {
        add_ws_samples(&r, rng, k);
        kcal_raw_add(&r, "sm_flag", "mpi", 2, 0, 8, k,
                     5e-8 + gsl_ran_gaussian(rng, 1e-9));
    }
    /* The model's choices with everything but the MPI samples. */
    kcal_params p0;
    kcal_params_init(&p0);
    kcal_calibrate_notes notes;
    char comment[8192] = "", err[256] = "";
    CHECK(kcal_calibrate_params(&r, &p0, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK(kcal_model_default(&p0) == KCAL_MODEL_FULL);
    kcal_choice full[NS_], paper[NS_];
    int differ = 0;
    for (int i = 0; i < NS_; i++) {
        CHECK(kcal_model_select(KCAL_MODEL_FULL, &p0, KCAL_COLL_ALLGATHER, 2,
                                (uint64_t)sizes[i], 0, NULL, &full[i]) == 0);
        CHECK(kcal_model_select(KCAL_MODEL_PAPER, &p0, KCAL_COLL_ALLGATHER, 2,
                                (uint64_t)sizes[i], 0, NULL, &paper[i]) == 0);
        differ |= full[i].alg != paper[i].alg;
    }
    CHECK(differ); /* else this test could not tell the two apart */
    kcal_params_free(&p0);
    for (int k = 0; k < REPS; k++)
        for (int i = 0; i < NS_; i++) {
            double m = 1e-6 + 1e-10 * (double)sizes[i];
            kcal_raw_add(&r, "mpi_allgather", "mpi", 2, 0, sizes[i], k, m);
            size_t na = 0;
            const kcal_algorithm *algs = kcal_model_algorithms(KCAL_COLL_ALLGATHER, &na);
            for (size_t a = 0; a < na; a++) {
                const kcal_algorithm *alg = &algs[a];
                int wins = alg == full[i].alg && sizes[i] >= 4096;
                char pat[48]; /* a throttled row is measured as id:k */
                snprintf(pat, sizeof pat, alg->kind == KCAL_PARAM_NONE ? "%s" : "%s:1",
                         alg->id);
                kcal_raw_add(&r, "kcoll_allgather", pat, 2, 0, sizes[i], k,
                             wins ? m / 1.5 : m * 1.5);
            }
        }
    kcal_params p;
    kcal_params_init(&p);
    comment[0] = 0;
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK(kcal_params_get(&p, "mpi_allgather_below", -1) == 4096);
    const char *line = strstr(comment, "mpi_allgather_below 4096: at p = 2");
    CHECK(line != NULL);
    for (int i = 0; line && i < NS_; i++) {
        char want[64];
        snprintf(want, sizeof want, " %ld ", sizes[i]);
        const char *at = strstr(line, want);
        CHECK(at != NULL);
        if (!at)
            continue;
        char got[32] = "";
        CHECK(sscanf(at, " %*d %*s %31s", got) == 1);
        CHECK_STR(got, full[i].alg->id);
    }
    kcal_params_free(&p);
    kcal_raw_free(&r);
}

/* A near tie at the largest size measured does not hand the clear wins
 * below it to the MPI library: every allgather algorithm measured 1.5x
 * slower than MPI at 256 B, 2x faster from 1 KiB to 16 KiB and 1.1x
 * faster (within the margin) at 64 KiB, as copy_in_out on the Zen 5
 * guest; alltoall the same but 1.05x slower at 64 KiB. Both
 * mpi_<c>_below are 1024; the rule that wanted the margin at every larger
 * size said 65536. */
static void test_handoff_tie_at_top(gsl_rng *rng)
{
    static const long sizes[] = {256, 1024, 4096, 16384, 65536};
    kcal_raw r;
    make_samples(&r, rng, 2);
    size_t na = 0;
    const kcal_algorithm *algs = kcal_model_algorithms(KCAL_COLL_ALLGATHER, &na);
    for (int k = 0; k < REPS; k++)
        for (size_t i = 0; i < 5; i++) {
            double m = 1e-6 + 1e-10 * (double)sizes[i];
            double ours = sizes[i] < 1024 ? m * 1.5 : sizes[i] < 65536 ? m / 2 : m / 1.1;
            kcal_raw_add(&r, "mpi_allgather", "mpi", 2, 0, sizes[i], k, m);
            for (size_t a = 0; a < na; a++) {
                char pat[48]; /* a throttled row is measured as id:k */
                snprintf(pat, sizeof pat, algs[a].kind == KCAL_PARAM_NONE ? "%s" : "%s:1",
                         algs[a].id);
                kcal_raw_add(&r, "kcoll_allgather", pat, 2, 0, sizes[i], k, ours);
            }
            kcal_raw_add(&r, "mpi_alltoall", "mpi", 2, 0, sizes[i], k, m);
            size_t nt = 0;
            const kcal_algorithm *a2a = kcal_model_algorithms(KCAL_COLL_ALLTOALL, &nt);
            for (size_t a = 0; a < nt; a++)
                kcal_raw_add(&r, "kcoll_alltoall", a2a[a].id, 2, 0, sizes[i], k,
                             sizes[i] == 65536 ? m * 1.05 : ours);
        }
    kcal_params p;
    kcal_params_init(&p);
    kcal_calibrate_notes notes;
    char comment[8192] = "", err[256] = "";
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK(kcal_params_get(&p, "mpi_allgather_below", -1) == 1024);
    CHECK(strstr(comment, "mpi_allgather_below 1024: at p = 2") != NULL);
    CHECK(kcal_params_get(&p, "mpi_alltoall_below", -1) == 1024);
    /* alltoall's choice was 5 % slower than the MPI library at 64K: that
     * size class goes to the MPI library too (bit 16); allgather's was
     * faster everywhere above the crossover: no mask. */
    CHECK(kcal_params_get(&p, "mpi_alltoall_mask", -1) == 65536);
    CHECK(strstr(comment, "mpi_alltoall_mask: 65536 B and its size class") != NULL);
    CHECK(kcal_params_find(&p, "mpi_allgather_mask") == NULL);
    kcal_params_free(&p);
    kcal_raw_free(&r);
}

int main(void)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 20171);
    test_context(rng);
    test_handoff_fit(rng);
    test_handoff_follows_default_model(rng);
    test_handoff_tie_at_top(rng);
    gsl_rng_free(rng);
    return check_report();
}
