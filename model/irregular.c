/* irregular: the model of the v-collectives (irregular.h). */
#include <stdlib.h>
#include <string.h>

#include "model/irregular.h"

typedef struct {
    const char *coll, *id, *regular_id;
    kcal_coll regular;
    kcal_vpath path;
} vrow;

static const vrow rows[] = {
#define KCOLL_VALGORITHM(VCOLL, id, fn, regular, path)                       \
    {NULL, #id, #regular, 0, KCAL_VPATH_##path},
#include "algos/irregular.def"
};
#define NROWS (sizeof rows / sizeof rows[0])

/* Which v-collective each row is of, and its regular collective. */
static const struct {
    const char *name;
    kcal_coll regular;
} vcolls[] = {
#define KCOLL_VCOLL(ID, name, REGULAR) {#name, KCAL_COLL_##REGULAR},
#include "algos/irregular.def"
};
#define NVCOLLS (sizeof vcolls / sizeof vcolls[0])

static const char *const row_coll[] = {
#define KCOLL_VALGORITHM(VCOLL, id, fn, regular, path) #VCOLL,
#include "algos/irregular.def"
};

/* Each v-collective's staged row (irregular.def's KCOLL_VSTAGED). */
static const struct {
    const char *coll, *id;
} staged[] = {
#define KCOLL_VSTAGED(VCOLL, id) {#VCOLL, #id},
#include "algos/irregular.def"
};
#define NSTAGED (sizeof staged / sizeof staged[0])

/* The rows whose large pairs another regular row prices (KCOLL_VSLOT). */
static const struct {
    const char *coll, *id, *large;
} slotted[] = {
#define KCOLL_VSLOT(VCOLL, id, large) {#VCOLL, #id, #large},
#include "algos/irregular.def"
};
#define NSLOTTED (sizeof slotted / sizeof slotted[0])

static kcal_valgorithm table[NROWS];
static int built;

/* The table, once: the rows with their collective's name and regular
 * row resolved (the .def names them as C identifiers). */
static void build(void)
{
    if (built)
        return;
    for (size_t i = 0; i < NROWS; i++) {
        size_t v = 0;
        while (v < NVCOLLS && strcasecmp(vcolls[v].name, row_coll[i]) != 0)
            v++;
        const kcal_algorithm *large = NULL;
        for (size_t j = 0; j < NSLOTTED && v < NVCOLLS; j++)
            if (strcasecmp(slotted[j].coll, row_coll[i]) == 0 &&
                strcmp(slotted[j].id, rows[i].id) == 0)
                large = kcal_model_find_algorithm(vcolls[v].regular,
                                                  slotted[j].large);
        table[i] = (kcal_valgorithm){
            v < NVCOLLS ? vcolls[v].name : "?", rows[i].id,
            v < NVCOLLS ? vcolls[v].regular : KCAL_COLL_COUNT,
            v < NVCOLLS ? kcal_model_find_algorithm(vcolls[v].regular,
                                                    rows[i].regular_id)
                        : NULL,
            rows[i].path, large};
    }
    built = 1;
}

int kcal_model_vcoll_index(const char *name)
{
    for (size_t v = 0; v < NVCOLLS; v++)
        if (strcmp(vcolls[v].name, name) == 0)
            return (int)v;
    return -1;
}

const char *kcal_model_vcoll_name(int index)
{
    return index >= 0 && (size_t)index < NVCOLLS ? vcolls[index].name : NULL;
}

int kcal_model_is_vcoll(const char *name)
{
    return kcal_model_vcoll_index(name) >= 0;
}

const char *kcal_model_vcoll_list(void)
{
    static char list[128];
    if (!list[0])
        for (size_t v = 0; v < NVCOLLS; v++) {
            strcat(list, v ? ", " : "");
            strcat(list, vcolls[v].name);
        }
    return list;
}

const kcal_valgorithm *kcal_model_valgorithms(const char *name, size_t *n)
{
    build();
    *n = 0;
    const kcal_valgorithm *first = NULL;
    for (size_t i = 0; i < NROWS; i++)
        if (strcmp(table[i].coll, name) == 0) {
            if (!first)
                first = &table[i];
            (*n)++;
        }
    return first;
}

void kcal_model_vblocks(kcal_coll regular, int p, const uint64_t *m,
                        uint64_t *b)
{
    size_t pp = (size_t)p * (size_t)p;
    memset(b, 0, sizeof *b * pp);
    for (int s = 0; s < p; s++)
        for (int d = 0; d < p; d++) {
            size_t i = (size_t)s * (size_t)p + (size_t)d;
            switch (regular) {
            case KCAL_COLL_SCATTER: /* root 0's row */
                b[i] = s == 0 ? m[i] : 0;
                break;
            case KCAL_COLL_GATHER: /* column 0, to root 0 */
                b[i] = d == 0 ? m[i] : 0;
                break;
            case KCAL_COLL_ALLGATHER: /* rank s's block: M[s][0], to all */
                b[i] = m[(size_t)s * (size_t)p];
                break;
            default:
                b[i] = m[i];
            }
        }
}

/* One pair's price: the regular row's terms at a peer block of n bytes
 * and the process's own block of `own` (its local copy, T_memcpy, and
 * what the split rows' root copies before it helps), with its start-up,
 * copy and lock divided among the copies on its critical path
 * (`copies`), and its synchronisation (the call's, not the pair's) apart.
 * Pricing the own block at n instead charged a skewed call's one large
 * pair a local copy as large: the rows with T_memcpy ran 1.2–1.6× over
 * their measured times under skew:16 (model.md). Remembered for the last
 * distinct (n, own): a generated matrix repeats a few. */
typedef struct {
    uint64_t n, own;
    kcal_terms pair;
    double sync;
} priced;

#define MEMO 32

typedef struct {
    kcal_model_kind model;
    const kcal_params *prm;
    const kcal_valgorithm *a;
    int p;
    double copies;
    priced memo[MEMO];
    int used, next;
} pricer;

static const priced *price(pricer *pr, uint64_t n, uint64_t own)
{
    for (int i = 0; i < pr->used; i++)
        if (pr->memo[i].n == n && pr->memo[i].own == own)
            return &pr->memo[i];
    priced *e = &pr->memo[pr->next];
    pr->next = (pr->next + 1) % MEMO;
    if (pr->used < MEMO)
        pr->used++;
    kcal_terms t = {0, 0, 0, 0};
    /* a pair past one slot runs as the large row's (KCOLL_VSLOT) */
    const kcal_algorithm *row =
        pr->a->large && n > KCAL_V_SLOT_BLOCK ? pr->a->large : pr->a->row;
    int k = row->kind == KCAL_PARAM_STRIDE ? 1 : 0;
    kcal_model_pair_time(pr->model, pr->prm, pr->a->regular, row, k, pr->p,
                         n, own, &t);
    e->n = n;
    e->own = own;
    e->sync = t.sync;
    e->pair = (kcal_terms){t.startup / pr->copies, t.copy / pr->copies,
                           t.lock / pr->copies, 0};
    return e;
}

static double sum(const kcal_terms *t)
{
    return t->startup + t->copy + t->lock + t->sync;
}

int kcal_model_vwindowed(const kcal_valgorithm *a)
{
    return a && a->path == KCAL_VPATH_ROOT_WINDOW;
}

/* The windowed path (ROOT_WINDOW): the root's pairs, in its order, each
 * taken by the lane (of w) that frees first, as the root hands the next
 * pair its address when a done arrives; the lane that ends last. */
static kcal_terms window_lanes(pricer *pr, const uint64_t *b, int p, int w,
                               uint64_t own, int scatter, uint64_t *most)
{
    kcal_terms lane[w > 0 ? w : 1], last = {0, 0, 0, 0};
    for (int i = 0; i < w; i++)
        lane[i] = last;
    for (int s = 1; s < p; s++) {
        uint64_t n = scatter ? b[(size_t)s] : b[(size_t)s * (size_t)p];
        if (!n)
            continue;
        if (n > *most)
            *most = n;
        int free = 0;
        for (int i = 1; i < w; i++)
            if (sum(&lane[i]) < sum(&lane[free]))
                free = i;
        const priced *e = price(pr, n, own);
        lane[free].startup += e->pair.startup;
        lane[free].copy += e->pair.copy;
        lane[free].lock += e->pair.lock;
    }
    for (int i = 0; i < w; i++)
        if (sum(&lane[i]) > sum(&last))
            last = lane[i];
    return last;
}

double kcal_model_vtime(kcal_model_kind model, const kcal_params *prm,
                        const kcal_valgorithm *a, int p, int w,
                        const uint64_t *m, kcal_terms *terms)
{
    if (p < 2 || !a || !a->row)
        return -1;
    int windowed = kcal_model_vwindowed(a);
    if (windowed && (w < 1 || w > p - 1))
        return -1;
    size_t pp = (size_t)p * (size_t)p;
    uint64_t *b = malloc(sizeof *b * pp);
    pricer *pr = calloc(1, sizeof *pr);
    if (!b || !pr) {
        free(b);
        free(pr);
        return -1;
    }
    kcal_model_vblocks(a->regular, p, m, b);
    /* A windowed row's pair is the parallel row's at w + 1 processes: w
     * copies contend on the root, each alone on its critical path. */
    *pr = (pricer){model, prm, a, windowed ? w + 1 : p,
                   a->path == KCAL_VPATH_ROOT_MAX || windowed
                       ? 1.0
                       : (double)(p - 1),
                   {{0, 0, {0, 0, 0, 0}, 0}}, 0, 0};
    kcal_terms best = {0, 0, 0, 0};
    double sync = 0;
    if (windowed) {
        uint64_t most = 0;
        best = window_lanes(pr, b, p, w, b[0],
                            a->regular == KCAL_COLL_SCATTER, &most);
        /* The call's synchronisation is the whole communicator's. */
        kcal_terms t = {0, 0, 0, 0};
        kcal_model_pair_time(model, prm, a->regular, a->row, 0, p,
                             most ? most : 1, b[0], &t);
        sync = t.sync;
    }
    /* The busiest process: each process's pairs (ROOT_*: the root's
     * row or column; the others: each rank's sources) added up along
     * the path, the largest kept. */
    int processes = windowed ? 0
                    : a->path == KCAL_VPATH_ROOT_MAX ||
                            a->path == KCAL_VPATH_ROOT_SUM
                        ? 1
                        : p;
    for (int d = 0; d < processes; d++) {
        kcal_terms mine = {0, 0, 0, 0};
        /* d's own block: b's diagonal (the root's for the rooted rows) */
        uint64_t own = b[(size_t)d * (size_t)p + (size_t)d];
        for (int s = 0; s < p; s++) {
            /* Pair (s -> d) of a receiver d; rooted: the root's peer s. */
            uint64_t n;
            if (processes == 1)
                n = s == 0 ? 0
                    : a->regular == KCAL_COLL_SCATTER
                        ? b[(size_t)s]
                        : b[(size_t)s * (size_t)p];
            else
                n = s == d ? 0 : b[(size_t)s * (size_t)p + (size_t)d];
            if (!n)
                continue;
            const priced *e = price(pr, n, own);
            if (e->sync > sync)
                sync = e->sync;
            if (a->path == KCAL_VPATH_ROOT_MAX) {
                if (sum(&e->pair) > sum(&mine))
                    mine = e->pair;
            } else {
                mine.startup += e->pair.startup;
                mine.copy += e->pair.copy;
                mine.lock += e->pair.lock;
            }
        }
        if (sum(&mine) > sum(&best))
            best = mine;
    }
    if (sync == 0 && !windowed) /* nothing moves: the call's sync alone */
        sync = price(pr, 1, 1)->sync;
    best.sync = sync;
    free(b);
    free(pr);
    if (terms)
        *terms = best;
    return sum(&best);
}

uint64_t kcal_model_vcrossover(kcal_model_kind model, const kcal_params *prm,
                               const kcal_valgorithm *a, int p)
{
    if (p < 2 || !a || !a->row)
        return 0;
    const kcal_param *la =
        kcal_params_find_key(prm, KCAL_PK_MEMBER(mpi_a, a->regular));
    const kcal_param *lb =
        kcal_params_find_key(prm, KCAL_PK_MEMBER(mpi_b, a->regular));
    if (!la || !lb || la->is_text || lb->is_text)
        return 0;
    uint64_t n = 64;
    for (; n < ((uint64_t)1 << 30); n *= 2) {
        double line = la->value + lb->value * (double)(p - 1) * (double)n;
        double t = kcal_model_time(model, prm, a->regular, a->row,
                                   a->row->kind == KCAL_PARAM_STRIDE, p, n,
                                   0, NULL);
        if (t >= 0 && t < line)
            break;
    }
    return n;
}

const kcal_valgorithm *kcal_model_vstaged_row(const char *vcoll)
{
    size_t n;
    const kcal_valgorithm *rows = kcal_model_valgorithms(vcoll, &n);
    for (size_t i = 0; i < NSTAGED && rows; i++)
        if (strcasecmp(staged[i].coll, vcoll) == 0)
            for (size_t r = 0; r < n; r++)
                if (strcmp(rows[r].id, staged[i].id) == 0)
                    return &rows[r];
    return NULL;
}

uint64_t kcal_model_vstaged(kcal_model_kind model, const kcal_params *prm,
                            const kcal_valgorithm *first,
                            const kcal_valgorithm *st, int p)
{
    if (p < 2 || !first || !first->row || !st || !st->row)
        return 0;
    uint64_t n = 64;
    for (; n < ((uint64_t)1 << 30); n *= 2) {
        double f = kcal_model_time(model, prm, first->regular, first->row,
                                   first->row->kind == KCAL_PARAM_STRIDE, p,
                                   n, 0, NULL);
        double t = kcal_model_time(model, prm, st->regular, st->row,
                                   st->row->kind == KCAL_PARAM_STRIDE, p, n,
                                   0, NULL);
        if (f < 0 || t < 0)
            return 0;
        if (f < t)
            break;
    }
    return n;
}

double kcal_model_vmpi_time(const kcal_params *prm, const char *vcoll, int p,
                            const uint64_t *m)
{
    size_t v = 0;
    while (v < NVCOLLS && strcmp(vcolls[v].name, vcoll) != 0)
        v++;
    if (v == NVCOLLS || p < 2)
        return -1;
    kcal_coll c = vcolls[v].regular;
    size_t pp = (size_t)p * (size_t)p;
    uint64_t *b = malloc(sizeof *b * pp), most = 0;
    if (!b)
        return -1;
    kcal_model_vblocks(c, p, m, b);
    /* Bytes each process sends to and receives from the others. */
    for (int r = 0; r < p; r++) {
        uint64_t out = 0, in = 0;
        for (int q = 0; q < p; q++)
            if (q != r) {
                out += b[(size_t)r * (size_t)p + (size_t)q];
                in += b[(size_t)q * (size_t)p + (size_t)r];
            }
        if (out > most)
            most = out;
        if (in > most)
            most = in;
    }
    free(b);
    return kcal_model_mpi_time(prm, c, p, (most + (uint64_t)p - 2) /
                                              (uint64_t)(p - 1));
}
