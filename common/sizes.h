/* sizes: the one parser for message sizes and size lists, shared by
 * `kcal predict`, `kcal bench` and the report (OSU-style: `1K`, `4M`,
 * `1K,64K,1M`, `1K:8M`). */
#ifndef KCAL_SIZES_H
#define KCAL_SIZES_H

#include <stddef.h>
#include <stdint.h>

/* Parse one size: decimal digits with an optional binary suffix K, M, G or T
 * (1K = 1024; lower case accepted). Zero, negative, garbage and overflow are
 * errors. Returns 0 or -1 with a message in err. */
int kcal_sizes_parse_one(const char *s, uint64_t *out, char *err, size_t errlen);

/* Parse a list: "A,B,C" (kept in the given order) or "MIN:MAX" (MIN, 2*MIN,
 * 4*MIN, ... up to MAX). On success *out is malloc'ed (caller frees) and *n
 * is its length. Returns 0 or -1 with a message in err. */
int kcal_sizes_parse(const char *spec, uint64_t **out, size_t *n, char *err,
                     size_t errlen);

/* Format a size for people: "4M", "64K", "4097" (exact: a suffix is used only
 * when it divides evenly). Returns buf. */
char *kcal_sizes_format(uint64_t n, char *buf, size_t buflen);

/* n sizes as a program's --sizes takes them, "1024,65536" (decimal,
 * comma-separated), malloc'd; NULL out of memory. */
char *kcal_sizes_join(const uint64_t *sizes, size_t n);

#define KCAL_DEFAULT_SIZES "1K:8M"

#endif
