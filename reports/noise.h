/* noise: how far the same measurement moves between two launches of
 * `kcal bench` (make report's second launch, `kcal report
 * --measured-again`), and which of the model's choices lie inside that
 * movement. The repeat error (join.h) is the noise inside one launch; on a
 * virtual machine the cost of passing cache lines between vCPUs changes
 * from one minute to the next, so two launches differ by more, and a
 * choice closer than that to its rival can be right in one launch and
 * wrong in the next. Library code: never prints. */
#ifndef KCAL_NOISE_H
#define KCAL_NOISE_H

#include "reports/join.h"

/* The between-launch noise floor: over the rows of the model's candidates
 * (kcoll algorithms: not mpi, auto or limit) of KCAL_JOIN_MIN_ERR_SIZE and
 * more, not oversubscribed, measured in both launches, the median and the
 * 90th percentile of 100·|t1 − t2| / min(t1, t2) (t the medians): how
 * many per cent slower the slower launch measured the same row, the unit
 * of a selection regret. */
typedef struct {
    int rows;          /* rows measured in both launches */
    int points;        /* (collective, p, size) points among them */
    double median_pct; /* NAN when rows is 0 */
    double p90_pct;
} kcal_noise_floor;

/* 0, or -1 when out of memory. */
int kcal_noise_floor_of(const kcal_join_table *first,
                        const kcal_join_table *again, kcal_noise_floor *out);

/* 100·|a − b| / min(a, b): how much slower the slower of two times is. */
double kcal_noise_change_pct(double a, double b);

/* One point (collective, p, size) as the second launch measured it. */
typedef struct {
    const kcal_join_row *best; /* fastest kcoll algorithm; NULL when the
                                * point was not measured again */
    const kcal_join_row *mpi, *auto_choice; /* NULL when not measured */
    const kcal_join_row *best_row; /* best or mpi, whichever is faster (as
                                    * kcal_noise_best_row) */
} kcal_noise_again;

void kcal_noise_again_of(const kcal_join_table *again, const kcal_join_rank *r,
                         kcal_noise_again *out);

/* The model's margin at a point: 100·(predicted time of its second choice
 * − of its first) / its first, among the measured algorithms; NAN when
 * only one was measured. */
double kcal_noise_margin_pct(const kcal_join_rank *r);

/* Which of a point's differences are smaller than floor_pct (none when
 * floor_pct is NAN): a regret above 0 (the model's first choice measured
 * slower than the best by less than the machine moves between launches),
 * the model's margin (its first and second choice are closer than that). */
enum { KCAL_NOISE_REGRET = 1, KCAL_NOISE_MARGIN = 2 };
unsigned kcal_noise_marks(const kcal_join_rank *r, double floor_pct);

/* The fastest row a caller of libkcoll could have had at the point: the
 * measured best kcoll algorithm or the MPI library's collective (`auto`'s
 * candidates), whichever measured faster. */
const kcal_join_row *kcal_noise_best_row(const kcal_join_rank *r);

#endif
