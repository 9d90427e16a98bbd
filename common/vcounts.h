/* vcounts: the distributions of a v-collective's counts, one parser and
 * one generator for `kcal predict --counts` and the benchmark of the
 * v-collectives, so a distribution means the same in a prediction and in
 * a measurement (docs/model.md "Irregular collectives").
 *
 * A distribution gives the p × p matrix M of bytes, M[s·p + d] from rank
 * s to rank d, for a size n (the mean block):
 *   uniform    every block n;
 *   skew:F     rank 1's blocks F·n (what it sends and what it receives),
 *              the others n: one rank F times the others (rank 1, so a
 *              rooted collective at root 0 has it among its peers);
 *   random:S   blocks drawn uniformly from 0..2n with seed S, the same
 *              matrix wherever it is drawn;
 *   sparse     most blocks 0: block (s, d) is 4·n where (s + d) % 4 == 0,
 *              else 0 (a quarter of the pairs, the same bytes in all);
 *   file:PATH  the matrix itself: p lines of p byte counts (decimal,
 *              separated by blanks; '#' starts a comment), n ignored.
 * A collective uses the entries it has: alltoallv all of M, scatterv at
 * root 0 row 0 (M[0·p + d] to rank d), gatherv at root 0 and allgatherv
 * column 0 (rank s's block is M[s·p + 0]). */
#ifndef KCAL_VCOUNTS_H
#define KCAL_VCOUNTS_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    KCAL_VCOUNTS_UNIFORM = 0,
    KCAL_VCOUNTS_SKEW,
    KCAL_VCOUNTS_RANDOM,
    KCAL_VCOUNTS_SPARSE,
    KCAL_VCOUNTS_FILE
} kcal_vcounts_kind;

typedef struct {
    kcal_vcounts_kind kind;
    uint64_t factor; /* skew's F (>= 1) */
    uint64_t seed;   /* random's S */
    char path[4096]; /* file's PATH */
} kcal_vcounts;

/* "uniform", "skew:16", "random:7", "sparse", "file:PATH" -> *out.
 * 0, or -1 with "--counts: ..." in err. */
int kcal_vcounts_parse(const char *spec, kcal_vcounts *out, char *err,
                       size_t errlen);

/* The spec as text ("skew:16"), into buf. */
const char *kcal_vcounts_name(const kcal_vcounts *v, char *buf, size_t len);

/* The name a measurement or prediction of v-collective `coll` under
 * these counts goes by in a CSV's collective column (kcal bench, kcal
 * predict, so kcal report joins them and keeps distributions apart):
 * the bare name for uniform counts, else the name, '-', and the spec
 * with every character but letters, digits, '.', '_' and '+' made '-'
 * ("alltoallv-skew-16", "gatherv-random-7", for a file its base name:
 * "alltoallv-file-m.txt"), so it is also a safe piece of a file name.
 * At most KCAL_VCOUNTS_LABEL_LEN - 1 characters (a long file name is cut). */
#define KCAL_VCOUNTS_LABEL_LEN 48
const char *kcal_vcounts_label(const char *coll, const kcal_vcounts *v,
                               char *buf);

/* M for p processes and mean block n into m (p·p entries). 0, or -1 with
 * a message in err: a file that does not read, has other than p × p
 * numbers, or a block past 2^48 bytes; a generated block that overflows. */
int kcal_vcounts_matrix(const kcal_vcounts *v, int p, uint64_t n,
                        uint64_t *m, char *err, size_t errlen);

/* The matrix of a file's text: len bytes from `name` (for messages), p
 * lines of p byte counts. 0, or -1 with "name:LINE: ..." or "name: N
 * byte counts, where p = P needs P*P" in err. */
int kcal_vcounts_parse_buf(const char *data, size_t len, const char *name,
                           int p, uint64_t *m, char *err, size_t errlen);

#endif
