# bench/: the benchmark driver of `kcal bench` and `kcal profile` (cmd/)
# and the microbenchmarks of scripts/bench-*. bench/bench_mpi.c is the MPI
# program `kcal bench` launches under the MPI launcher,
# $(MPI_BUILD)/kcal-bench-mpi (build/ or, with MPI=mpich, build-mpich/),
# linked against $(KCOLL_LIB).a, bench/capacity.c (the size checks, which
# kcal bench makes too, so both decide alike) and the common/ modules:
# cores (the core count, with hwloc) and mpi_flavor (with exe), which
# names the MPI library it runs with; bench/reduce_names.c (the reductions'
# --type and --op, which kcal bench checks too) and bench/reduce_fill.c.
HWLOC_LIBS = $(shell pkg-config --libs hwloc)
KCOLL_BENCH := $(MPI_BUILD)/kcal-bench-mpi
BENCH_COMMON_OBJS := $(patsubst %,$(MPI_BUILD)/kcoll/common/%.o,cores mpi_flavor exe quantile) $(MPI_BUILD)/kcoll/bench/capacity.o $(MPI_BUILD)/kcoll/bench/bench_world.o \
                     $(MPI_BUILD)/kcoll/bench/reduce_names.o $(MPI_BUILD)/kcoll/bench/reduce_fill.o

lib: $(KCOLL_BENCH)

$(KCOLL_BENCH): $(MPI_BUILD)/kcoll/bench/bench_mpi.o $(MPI_BUILD)/kcoll/bench/perf_ctl.o $(MPI_BUILD)/kcoll/bench/bench_stats.o $(MPI_BUILD)/kcoll/bench/bench_opts.o $(BENCH_COMMON_OBJS) $(KCOLL_LIB).a
	$(CC) $(CFLAGS) -o $@ $< $(MPI_BUILD)/kcoll/bench/perf_ctl.o $(MPI_BUILD)/kcoll/bench/bench_stats.o $(MPI_BUILD)/kcoll/bench/bench_opts.o $(BENCH_COMMON_OBJS) $(KCOLL_LIB).a $(MPI_LIBS) $(HWLOC_LIBS) -lm

# kcal-bench-mpi-hooks: the same program over libkcoll built with the test
# hooks (algos/verify.h: $KCOLL_TEST_SLOW slows chosen algorithms), for
# scripts/bench-auto's hooked launches; not part of `make` (the library
# users link never carries the hooks).
KCOLL_HOOKS_BENCH := $(MPI_BUILD)/kcal-bench-mpi-hooks
BENCH_HOOKS_SRCS := $(KCOLL_SRCS) bench/bench_mpi.c bench/perf_ctl.c bench/bench_stats.c bench/bench_opts.c
BENCH_HOOKS_OBJS := $(patsubst %.c,$(MPI_BUILD)/kcoll-hooks/%.o,$(BENCH_HOOKS_SRCS))
$(MPI_BUILD)/kcoll-hooks/%.o: %.c | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) -DKCOLL_TEST_HOOKS $(MPI_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@
$(KCOLL_HOOKS_BENCH): $(BENCH_HOOKS_OBJS) $(KCOLL_MODEL_OBJS) $(BENCH_COMMON_OBJS)
	$(CC) $(CFLAGS) -o $@ $^ $(MPI_LIBS) $(HWLOC_LIBS) -lm

# kcal-copy-bench: memcpy against kcal_copy (scripts/bench-copy); no MPI.
COPY_BENCH := $(BUILD)/kcal-copy-bench
lib: $(COPY_BENCH)
$(COPY_BENCH): bench/copy_bench.c common/copy.c common/copy.h | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ bench/copy_bench.c common/copy.c

# kcal-coherence-bench: a chunk passed between two cores through shared
# memory, over time (scripts/bench-coherence); the probe's hwloc binding
# (probe/topo.c), no MPI.
COHERENCE_BENCH := $(BUILD)/kcal-coherence-bench
lib: $(COHERENCE_BENCH)
COHERENCE_SRCS := bench/coherence_bench.c common/copy.c probe/topo.c common/cores.c
$(COHERENCE_BENCH): $(COHERENCE_SRCS) common/copy.h probe/topo.h common/cores.h | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ $(COHERENCE_SRCS) $(HWLOC_LIBS)

# kcal-vcoll-bench: the irregular collectives (kcoll_scatterv, gatherv,
# allgatherv, alltoallv) against the MPI library's own, one collective and
# one count distribution per launch: what `kcal bench --coll V --counts D`
# launches (so part of `make`, as kcal-bench-mpi is) and
# scripts/bench-irregular runs directly; linked as kcal-bench-mpi is,
# against $(KCOLL_LIB).a, bench_world (the same job checks) and
# common/vcounts.c (the distributions kcal predict --counts reads).
VCOLL_BENCH := $(MPI_BUILD)/kcal-vcoll-bench
$(VCOLL_BENCH): $(MPI_BUILD)/kcoll/bench/vcoll_bench.o $(MPI_BUILD)/kcoll/bench/bench_stats.o $(MPI_BUILD)/kcoll/bench/bench_world.o $(MPI_BUILD)/kcoll/common/cores.o $(MPI_BUILD)/kcoll/common/mpi_flavor.o $(MPI_BUILD)/kcoll/common/exe.o $(MPI_BUILD)/kcoll/common/quantile.o $(MPI_BUILD)/kcoll/common/vcounts.o $(KCOLL_LIB).a
	$(CC) $(CFLAGS) -o $@ $^ $(MPI_LIBS) $(HWLOC_LIBS) -lm
lib: $(VCOLL_BENCH)
