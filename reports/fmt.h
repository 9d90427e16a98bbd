/* fmt: numbers for people in the report's prose and tables — times in µs or
 * ms, byte counts in KiB/MiB/GiB, message sizes as the CLI spells them
 * ("64K"). Three significant digits: the report argues about tens of
 * percent, not the last digit. Each returns buf. */
#ifndef KCAL_FMT_H
#define KCAL_FMT_H

#include <stddef.h>
#include <stdint.h>

/* "1.5 ms", "320 µs"; "–" for a time that is not finite. */
const char *kcal_fmt_time(double s, char *buf, size_t len);
/* "32 KiB", "1.5 MiB", "512 B". */
const char *kcal_fmt_bytes(double b, char *buf, size_t len);
/* "64K", "4M", "4097": kcal_sizes_format, the spelling of --sizes. */
const char *kcal_fmt_size(uint64_t n, char *buf, size_t len);

#endif
