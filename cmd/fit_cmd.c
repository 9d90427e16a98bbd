/* fit_cmd: `kcal fit RAW.csv` — re-fit the raw samples that
 * `kcal probe --raw RAW.csv` saved, without measuring again. Same fit code
 * as the probe (kcal_calibrate_params), so the params file is the same. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/calibrate.h"
#include "cmd/cli.h"
#include "fit/raw.h"

static const char *const CMD = "fit";

static void usage(FILE *f)
{
    fprintf(f,
        "usage: kcal fit [-q] [--points] RAW.csv > machine.params\n"
        "\n"
        "Fit alpha, l (lock), beta, gamma_a, gamma_b and the sm_* pairs from\n"
        "the raw samples of `kcal probe --raw RAW.csv` (columns\n"
        "phase,pattern,readers,pages,bytes,rep,seconds) and write a params\n"
        "file on stdout, with standard errors as <key>_stderr.\n"
        "  --points      instead of params, print the statistic of every\n"
        "                measured point as CSV (" KCAL_POINTS_HEADER ";\n"
        "                median and 1.4826*MAD spread and standard error)\n"
        "  -q, --quiet   no notes about the fit on stderr\n");
}

int kcal_fit_main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"quiet", no_argument, 0, 'q'},
        {"points", no_argument, 0, 'p'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int quiet = 0, points = 0, c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'q':
            quiet = 1;
            break;
        case 'p':
            points = 1;
            break;
        case 'h':
            usage(stdout);
            return KCAL_EXIT_OK;
        default:
            kcal_cli_bad_option(CMD, c, argv);
            return KCAL_EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
        kcal_cli_error(CMD, "give exactly one raw CSV file (kcal fit --help)");
        return KCAL_EXIT_USAGE;
    }
    const char *path = argv[optind];
    char err[KCAL_ERRLEN];
    kcal_raw raw;
    if (kcal_raw_read(path, &raw, err, sizeof err) < 0) {
        kcal_cli_error(CMD, "%s", err);
        return KCAL_EXIT_USAGE;
    }
    if (points) {
        /* Built in memory first: a failure leaves stdout empty. */
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        int rc = !m || kcal_calibrate_write_points(m, &raw) < 0;
        if (m && fclose(m))
            rc = 1;
        if (rc || fwrite(buf, 1, len, stdout) != len || fflush(stdout)) {
            kcal_cli_error(CMD, "writing the points failed");
            rc = 1;
        }
        free(buf);
        kcal_raw_free(&raw);
        return rc ? KCAL_EXIT_FAIL : KCAL_EXIT_OK;
    }
    kcal_params p;
    kcal_params_init(&p);
    kcal_calibrate_notes notes;
    size_t clen = 8192, outlen = 0;
    char *comment = malloc(clen), *out = NULL;
    int rc = KCAL_EXIT_OK;
    if (!comment) {
        kcal_cli_error(CMD, "out of memory");
        rc = KCAL_EXIT_FAIL;
    } else if (kcal_calibrate_params(&raw, &p, &notes, comment, clen, err,
                                     sizeof err) < 0 ||
               kcal_params_format(&p, comment, &out, &outlen, err,
                                  sizeof err) < 0) {
        /* Built and read back in memory first: a raw file whose params
         * would not read back leaves stdout empty. */
        kcal_cli_error(CMD, "%s: %s", path, err);
        rc = KCAL_EXIT_USAGE;
    } else {
        if (!quiet)
            for (int i = 0; i < notes.n; i++)
                kcal_cli_warn(CMD, "%s", notes.text[i]);
        if (fwrite(out, 1, outlen, stdout) != outlen || fflush(stdout)) {
            kcal_cli_error(CMD, "writing stdout failed");
            rc = KCAL_EXIT_FAIL;
        }
    }
    free(out);
    free(comment);
    kcal_params_free(&p);
    kcal_raw_free(&raw);
    return rc;
}
