/* doc_tables_cmd: `kcal doc-tables NAME` (a maintainer's command, not
 * listed by kcal --help) prints a table the docs hold, made from the
 * registries, so the docs cannot drift from the code:
 *   algorithms            docs/model.md's algorithm ids (algorithms.def)
 *   libkcoll-algorithms   docs/libkcoll.md's
 *   keys                  docs/model.md's params keys (keys.def)
 *   test-pins             the list of algorithms tests/test_model.c pins
 *   key-names             every key's name and every family's name
 *                         pattern (printf style), one a line: what
 *                         tests/key_literals.sh looks for in the code
 * scripts/doc-tables writes them between their markers in the files
 * (`make docs-tables`) or checks that they are there (`make test`). */
#include <stdio.h>
#include <string.h>

#include "cmd/cli.h"
#include "model/keys.h"
#include "model/model.h"

static const char *const CMD = "doc-tables";

typedef struct {
    char s[1024];
    size_t n;
} line_buf;

static void add(line_buf *b, const char *s)
{
    size_t l = strlen(s);
    if (b->n + l < sizeof b->s) {
        memcpy(b->s + b->n, s, l + 1);
        b->n += l;
    }
}

/* The ids of c's algorithms of one origin, `id`, comma-separated;
 * libkcoll's style adds the parameter (`throttled_read:k`). */
static void ids(line_buf *b, kcal_coll c, kcal_alg_origin origin, int with_k)
{
    size_t n, shown = 0;
    const kcal_algorithm *a = kcal_model_algorithms(c, &n);
    for (size_t i = 0; i < n; i++) {
        if (a[i].origin != origin)
            continue;
        char one[96];
        const char *param = !with_k                             ? ""
                            : a[i].kind == KCAL_PARAM_THROTTLE ? ":k"
                            : a[i].kind == KCAL_PARAM_STRIDE   ? ":j"
                                                               : "";
        snprintf(one, sizeof one, "%s`%s%s`%s", shown++ ? ", " : "", a[i].id,
                 param,
                 with_k && a[i].kind == KCAL_PARAM_STRIDE
                     ? " (default j = 1)"
                     : "");
        add(b, one);
    }
    if (!shown)
        add(b, "–");
}

static void algorithms(int libkcoll)
{
    if (libkcoll)
        puts("| collective | ids | derived ids "
             "([model.md](model.md#derived-algorithms)) |\n|---|---|---|");
    else
        puts("| collective | algorithm ids, in the model's order | derived "
             "(not in the paper) | parameter |\n|---|---|---|---|");
    for (int c = 0; c < KCAL_COLL_COUNT; c++) {
        line_buf b = {.n = 0};
        add(&b, "| ");
        add(&b, kcal_coll_name((kcal_coll)c));
        add(&b, " | ");
        ids(&b, (kcal_coll)c, KCAL_ORIGIN_PAPER, libkcoll);
        add(&b, " | ");
        ids(&b, (kcal_coll)c, KCAL_ORIGIN_DERIVED, libkcoll);
        if (!libkcoll) {
            size_t n, shown = 0;
            const kcal_algorithm *a = kcal_model_algorithms((kcal_coll)c, &n);
            add(&b, " | ");
            for (size_t i = 0; i < n; i++) {
                if (a[i].kind == KCAL_PARAM_NONE)
                    continue;
                char one[96];
                snprintf(one, sizeof one, "%s%s for `%s`", shown++ ? ", " : "",
                         a[i].kind == KCAL_PARAM_THROTTLE ? "k" : "j",
                         a[i].id);
                add(&b, one);
            }
            if (!shown)
                add(&b, "–");
        }
        add(&b, " |");
        puts(b.s);
    }
}

static const char *kind_text(const kcal_key_info *in)
{
    if (in->required)
        return "required";
    switch (in->kind) {
    case KCAL_KEY_NUMBER: return "number";
    case KCAL_KEY_META_NUMBER: return "number (the machine)";
    case KCAL_KEY_TEXT: return "text";
    default: return "";
    }
}

/* A phase column: each item's first word as code (`lock`, `ws` (cma)),
 * unless the item is prose ("the probe: ..."). */
static void print_phase(const char *phase)
{
    const char *c = phase;
    while (*c) {
        size_t item = strcspn(c, ",");
        size_t word = strcspn(c, " ,");
        if (strncmp(c, "the ", 4))
            printf("`%.*s`%.*s", (int)word, c, (int)(item - word), c + word);
        else
            printf("%.*s", (int)item, c);
        c += item;
        if (*c == ',') {
            fputs(", ", stdout);
            c++;
            while (*c == ' ')
                c++;
        }
    }
}

static void keys(void)
{
    puts("| key | kind | unit | meaning | measured by | used by |\n"
         "|---|---|---|---|---|---|");
    for (kcal_pkey k = 0; k < KCAL_PK_ROWS; k++) {
        const kcal_key_info *in = kcal_key_info_of(k);
        char name[64];
        kcal_key_pattern(k, name, sizeof name);
        printf("| `%s` | %s | %s | %s | ", name, kind_text(in),
               *in->unit ? in->unit : "–", in->meaning);
        print_phase(in->phase);
        printf(" | %s |\n", *in->models ? in->models : "–");
    }
    printf("\n`<op>`: ");
    for (int op = 0; op < KCAL_SM_COUNT; op++)
        printf("%s`%s`", op ? ", " : "", kcal_sm_name((kcal_sm_op)op));
    printf("; `<coll>`: ");
    for (int c = 0; c < KCAL_COLL_COUNT; c++)
        printf("%s`%s`", c ? ", " : "", kcal_coll_name((kcal_coll)c));
    puts("; `<W>`: a working set in bytes, digits and then `k`, `m` or `g` "
         "(`64k`, `512m`); `<key>`: any numeric key above.");
}

/* tests/test_model.c's pin: the registry's ids per collective, as C. */
static void test_pins(void)
{
    size_t most = 0, total = 0;
    for (int c = 0; c < KCAL_COLL_COUNT; c++) {
        size_t n;
        kcal_model_algorithms((kcal_coll)c, &n);
        most = n > most ? n : most;
        total += n;
    }
    printf("    enum { WANT_ROWS = %zu, WANT_MAX = %zu };\n", total, most);
    puts("    static const char *const want[KCAL_COLL_COUNT][WANT_MAX] = {");
    for (int c = 0; c < KCAL_COLL_COUNT; c++) {
        size_t n;
        const kcal_algorithm *a = kcal_model_algorithms((kcal_coll)c, &n);
        char up[32];
        const char *name = kcal_coll_name((kcal_coll)c);
        size_t l = strlen(name);
        for (size_t i = 0; i <= l && i < sizeof up; i++)
            up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32
                                                            : name[i]);
        line_buf b = {.n = 0};
        add(&b, "        [KCAL_COLL_");
        add(&b, up);
        add(&b, "] = {");
        size_t indent = b.n, col = b.n;
        for (size_t i = 0; i < n; i++) {
            char one[64];
            snprintf(one, sizeof one, "\"%s\"%s", a[i].id,
                     i + 1 < n ? "," : "},");
            if (i && col + 1 + strlen(one) > 79) {
                printf("%s\n", b.s);
                b.n = 0;
                b.s[0] = '\0';
                for (size_t s = 0; s < indent; s++)
                    add(&b, " ");
                col = indent;
            } else if (i) {
                add(&b, " ");
                col++;
            }
            add(&b, one);
            col += strlen(one);
        }
        puts(b.s);
    }
    puts("    };");
}

static void key_names(void)
{
    for (kcal_pkey k = 0; k < KCAL_PK_SLOTS; k++)
        if (kcal_key_name(k))
            puts(kcal_key_name(k));
    for (kcal_pkey k = 0; k < KCAL_PK_ROWS; k++) {
        const kcal_key_info *in = kcal_key_info_of(k);
        if (in->members != KCAL_MEMBERS_NONE)
            printf("%s%%s%s\n", in->prefix, in->suffix);
    }
}

int kcal_doc_tables_main(int argc, char **argv)
{
    static const char *const names[] = {"algorithms", "libkcoll-algorithms",
                                        "keys", "test-pins", "key-names"};
    if (argc != 2) {
        kcal_cli_error(CMD, "usage: kcal doc-tables algorithms|"
                       "libkcoll-algorithms|keys|test-pins|key-names");
        return KCAL_EXIT_USAGE;
    }
    size_t i = 0;
    while (i < sizeof names / sizeof names[0] && strcmp(argv[1], names[i]))
        i++;
    switch (i) {
    case 0: algorithms(0); break;
    case 1: algorithms(1); break;
    case 2: keys(); break;
    case 3: test_pins(); break;
    case 4: key_names(); break;
    default:
        kcal_cli_error(CMD, "unknown table '%s' (algorithms, "
                       "libkcoll-algorithms, keys, test-pins, key-names)",
                       argv[1]);
        return KCAL_EXIT_USAGE;
    }
    if (fflush(stdout) != 0) {
        kcal_cli_error(CMD, "writing the output failed");
        return KCAL_EXIT_FAIL;
    }
    return KCAL_EXIT_OK;
}
