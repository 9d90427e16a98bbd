#!/usr/bin/env bash
# The CMA transfer loop of libkcoll (tests/algos_cma_check.c, ASan build).
BUILD=${BUILD:-build}
exec "$BUILD/tests/algos_cma_check"
