/* columns: the CSV column contracts between kcal's commands, in one place.
 *
 * `kcal predict --format csv` writes KCAL_CSV_PREDICTED_HEADER and `kcal
 * bench --format csv` (bench/bench_mpi.c) KCAL_CSV_MEASURED_HEADER; `kcal
 * report` joins the two on their first five columns (KCAL_CSV_KEY: the
 * point and the algorithm, k empty where it takes none) and writes
 * summary.csv, ranking.csv and speedup.csv with the headers below. The
 * readers (reports/join.c, cmd/bench_cmd.c) check against these same
 * strings, so a writer and its reader cannot drift apart. Changing a string
 * here changes a file format that users' scripts read (the README documents
 * each). */
#ifndef KCAL_COLUMNS_H
#define KCAL_COLUMNS_H

/* The join key, the first columns of both inputs. */
#define KCAL_CSV_KEY "collective,p,size_bytes,algorithm,k"

/* kcal predict: the model's time and the algorithm's rank at the point
 * (1 = fastest; equal times share a rank). */
#define KCAL_CSV_PREDICTED_HEADER KCAL_CSV_KEY ",predicted_s,rank"

/* kcal bench: median, fastest and slowest iteration, how many iterations,
 * and whether ranks outnumbered cores (0/1); then (issue 9, appended: a
 * reader of the first columns is not disturbed) the quartiles p25_s and
 * p75_s, and the medians of the two interleaved halves of the iterations
 * (odd and even ones), half1_s and half2_s, whose difference is the noise
 * of the median itself. KCAL_CSV_MEASURED_REQUIRED is what a reader
 * requires: the columns before issue 9, so older files still read. Last
 * (issue 8, appended likewise) p05_s, the 5th percentile: the fast end of
 * the iterations without the single fastest call, which on a shared host
 * is one lucky moment of its cache (scripts/bench-collectives' T5). */
#define KCAL_CSV_MEASURED_REQUIRED                                            \
    KCAL_CSV_KEY ",median_s,min_s,max_s,iterations,oversubscribed"
#define KCAL_CSV_MEASURED_HEADER                                              \
    KCAL_CSV_MEASURED_REQUIRED ",p25_s,p75_s,half1_s,half2_s,p05_s"

/* kcal report: the model's error per (collective, p, algorithm, k). */
#define KCAL_CSV_SUMMARY_HEADER                                               \
    "collective,p,algorithm,k,points,mape_pct,max_ape_pct"

/* kcal report: predicted against measured best per (collective, p, size). */
#define KCAL_CSV_RANKING_HEADER                                               \
    "collective,p,size_bytes,predicted_best,measured_best,regret_pct,tie"

/* kcal report: the best kcoll algorithm against the MPI library's. */
#define KCAL_CSV_SPEEDUP_HEADER                                               \
    "collective,p,size_bytes,best_algorithm,best_s,mpi_s,speedup"

#endif
