/* test_model.h: what the two files of the paper model's unit test share.
 * tests/test_model.c holds main, the formulas against values worked out by
 * hand, the derived rows, the MPI library's row, the ranking, the paper's
 * conclusions and the registry's pinned list (which `make docs-tables`
 * writes there); tests/model_shape_select.c the algorithms' shapes,
 * kcal_model_select, kcal_model_rank_into and params that overflow. */
#ifndef KCAL_TESTS_TEST_MODEL_H
#define KCAL_TESTS_TEST_MODEL_H

#define CHECK_SHARED_COUNTS
#include "tests/check.h"
#include "model/model.h"

/* The hand-worked params (test_model.c says their values). */
kcal_params hand_params(void);

/* model_shape_select.c's tests, which main runs in its order. */
void test_shape(void);
void test_select(void);
void test_rank_into(void);
void test_nonfinite(void);

#endif
