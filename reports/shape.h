/* shape: what an algorithm does per step, in the counts its model.md row
 * multiplies by — the facts the report's explanations quote ("it runs 4
 * synchronised steps", "3 copies run at once", "the formula charges p
 * transfers"). All of it is this one function, kept apart on purpose: the
 * model's algorithm registry is to provide the same facts, and then this
 * file goes. */
#ifndef KCAL_SHAPE_H
#define KCAL_SHAPE_H

typedef struct {
    int steps;       /* steps that each end in a synchronisation (>= 1) */
    int concurrent;  /* copies running at once */
    int p_transfers; /* the row charges p transfers, p·(X(n) + l·pages(n)),
                      * where the root makes p − 1 remote ones */
} kcal_shape;

/* The shape of algorithm `alg` (model.md id) at p processes; k is its
 * throttle factor (0 where it takes none). Unknown ids: one step, p copies
 * at once. */
kcal_shape kcal_shape_of(const char *alg, int p, int k);

#endif
