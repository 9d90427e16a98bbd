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
/* A CPU model name short enough for a plot title (issue 9): without the
 * trademark marks (R), (TM), the clock ("@ 2.10GHz"), "CPU", "Processor"
 * and "N-Core"; "Intel(R) Xeon(R) Processor" -> "Intel Xeon". The name as
 * given when nothing is left. */
const char *kcal_fmt_cpu(const char *cpu, char *buf, size_t len);

#endif
