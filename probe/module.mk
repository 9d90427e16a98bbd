# probe/: the MPI helper `kcal probe` launches with mpirun to time the
# small-message shared-memory collectives (T_sm_X) and, against libkcoll's
# algorithms (it links libkcoll.a), the MPI library's own collectives. It
# lives in probe/mpi/ so the wildcard probe/*.c that makes up kcal does not
# pick it up.
SM_BENCH := $(MPI_BUILD)/kcal-sm-bench

# It also times the reductions' op, MPI_Reduce_local, for the probe's
# reduce phase (probe/reduce.h): kcal itself does not link MPI. Its
# operands are kcal bench's data (bench/reduce_fill.c, on the rows of
# bench/reduce_names.c; neither uses MPI), under the pairs' patterns of
# probe/reduce_rates.c.
SM_BENCH_SRCS := probe/mpi/sm_bench.c probe/mpi/reduce_local.c probe/reduce_rates.c bench/reduce_fill.c bench/reduce_names.c

$(SM_BENCH): $(SM_BENCH_SRCS) probe/mpi/reduce_local.h probe/reduce.h fit/raw.h model/keys.h model/reduce_rates.def algos/reduce_types.def algos/reduce_types.h bench/reduce_fill.h bench/reduce_names.h $(KCOLL_LIB).a | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) -o $@ $(SM_BENCH_SRCS) $(KCOLL_LIB).a $(MPI_LIBS) -lm

all: $(SM_BENCH)
TEST_EXTRA_BINS += $(SM_BENCH)
MPI_TEST_PROGS += $(SM_BENCH)
kcal: | $(SM_BENCH)

# The network between two nodes (kcal probe --network): plain MPI, no
# libkcoll.
NET_BENCH := $(MPI_BUILD)/kcal-net-bench

$(NET_BENCH): probe/mpi/net_bench.c | $(STAMP)
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(MPI_CFLAGS) $(CFLAGS) -o $@ $< $(MPI_LIBS)

all: $(NET_BENCH)
TEST_EXTRA_BINS += $(NET_BENCH)
MPI_TEST_PROGS += $(NET_BENCH)
kcal: | $(NET_BENCH)
