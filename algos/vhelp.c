/* vhelp: the root's measured help policy (vhelp.h). */
#include <stdlib.h>

#include "algos/irregular.h"
#include "algos/verify.h"
#include "algos/vhelp.h"

#define SLOTS 64 /* classes per communicator; more go by the rule */

typedef struct {
    int used, v, most_class, own_class;
    int exploring, cur, turn; /* policy cur's turn-th call (0: untimed) */
    kcoll_vhelp_policy chosen;
    unsigned explorations;
    uint64_t calls, again;
    double t[KCOLL_VHELP_POLICIES][KCOLL_VHELP_SAMPLES];
} vslot;

const char *kcoll_vhelp_name(kcoll_vhelp_policy p)
{
    static const char *const names[] = {"rule", "none", "all"};
    return p < KCOLL_VHELP_POLICIES ? names[p] : "?";
}

uint64_t kcoll_vhelp_split_from(kcoll_vhelp_policy p)
{
    return p == KCOLL_VHELP_NONE  ? UINT64_MAX
           : p == KCOLL_VHELP_ALL ? 0
                                  : KCOLL_V_HELP_MIN;
}

/* The class's slot (made on its first call), or NULL when every slot is
 * taken or there is no memory. */
static vslot *slot_of(kcoll_comm *c, int v, uint64_t most, uint64_t own)
{
    if (!c->vhelp && !(c->vhelp = calloc(SLOTS, sizeof(vslot))))
        return NULL;
    vslot *tab = c->vhelp;
    int mc = kcoll_verify_size_class(most), oc = kcoll_verify_size_class(own);
    unsigned h = ((unsigned)v * 131u + (unsigned)mc * 31u + (unsigned)oc) %
                 SLOTS;
    for (int i = 0; i < SLOTS; i++) {
        vslot *s = &tab[(h + (unsigned)i) % SLOTS];
        if (s->used && s->v == v && s->most_class == mc && s->own_class == oc)
            return s;
        if (!s->used) {
            *s = (vslot){.used = 1, .v = v, .most_class = mc,
                         .own_class = oc, .exploring = 1,
                         .chosen = KCOLL_VHELP_RULE,
                         .again = KCOLL_VHELP_AGAIN};
            return s;
        }
    }
    return NULL;
}

kcoll_vhelp_policy kcoll_vhelp_choose(kcoll_comm *c, int v, uint64_t most,
                                      uint64_t own, void **slot)
{
    *slot = NULL;
    vslot *s = slot_of(c, v, most, own);
    if (!s)
        return KCOLL_VHELP_RULE;
    if (!s->exploring && ++s->calls >= s->again) {
        s->exploring = 1;
        s->cur = s->turn = 0;
    }
    if (!s->exploring)
        return s->chosen;
    *slot = s;
    return (kcoll_vhelp_policy)s->cur;
}

_Static_assert(KCOLL_VHELP_SAMPLES <= KCOLL_VERIFY_SAMPLES,
               "kcoll_verify_median takes at most KCOLL_VERIFY_SAMPLES");

static double median(const double *v)
{
    return kcoll_verify_median(v, KCOLL_VHELP_SAMPLES);
}

void kcoll_vhelp_observe(void *slot, double seconds)
{
    vslot *s = slot;
    if (!s || !s->exploring)
        return;
    if (s->turn > 0)
        s->t[s->cur][s->turn - 1] = seconds;
    if (++s->turn <= KCOLL_VHELP_SAMPLES)
        return;
    s->turn = 0;
    if (++s->cur < KCOLL_VHELP_POLICIES)
        return;
    /* The least median; a tie keeps the earlier policy (the rule first). */
    int best = 0;
    double mb = median(s->t[0]);
    for (int p = 1; p < KCOLL_VHELP_POLICIES; p++) {
        double m = median(s->t[p]);
        if (m < mb) {
            mb = m;
            best = p;
        }
    }
    int kept = s->explorations > 0 && (kcoll_vhelp_policy)best == s->chosen;
    s->again = kept && s->again < ((uint64_t)1 << 30) ? 2 * s->again
                                                       : KCOLL_VHELP_AGAIN;
    s->chosen = (kcoll_vhelp_policy)best;
    s->exploring = 0;
    s->calls = 0;
    s->explorations++;
}

void kcoll_vhelp_free(kcoll_comm *c)
{
    free(c->vhelp);
    c->vhelp = NULL;
}
